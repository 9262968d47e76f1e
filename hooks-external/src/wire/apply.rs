//! How a [`Answer`] becomes a point's [`HookResult`]: the steps of "Decisions" in the
//! [module docs](super), which each point's `apply_answer` runs with what the point does with
//! context and the rewrite it takes.

use hookchain_core::{HookContext, HookResult, Observed};

use crate::answer::{Answer, Verdict};

/// What a point does with context.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Context {
    /// `cx.add_context`.
    Add,
    /// Dropped: no model call of the turn follows.
    Drop,
    /// The point's rewrite injects it (the point's closure takes it).
    Inject,
}

/// Step 1 and 2 of the module docs, for `Add` and `Drop`.
pub(super) fn report(decision: &mut Answer, cx: &HookContext<'_>, context: Context) {
    for warning in decision.warnings.drain(..) {
        cx.warn(warning);
    }
    match context {
        Context::Add => {
            for text in decision.context.drain(..) {
                cx.add_context(text);
            }
        }
        Context::Drop if !decision.context.is_empty() => {
            tracing::debug!(
                point = cx.point(),
                hook = cx.hook_name(),
                "`{}` takes no context; dropping what the hook printed",
                cx.point()
            );
            decision.context.clear();
        }
        Context::Drop | Context::Inject => {}
    }
}

/// The reason a decision blocks with (step 3), or `None` when it does not block.
pub(super) fn refusal(decision: &Answer, cx: &HookContext<'_>) -> Option<String> {
    let hook = cx.hook_name();
    if let Some(reason) = &decision.stop {
        return Some(if reason.is_empty() {
            format!("hook `{hook}` asked the agent to stop")
        } else {
            reason.clone()
        });
    }
    match &decision.verdict {
        Verdict::Pass | Verdict::Allow => None,
        Verdict::Block(reason) if reason.is_empty() => Some(format!("blocked by hook `{hook}`")),
        Verdict::Block(reason) => Some(reason.clone()),
        Verdict::Ask(reason) => Some(format!(
            "hook `{hook}` asks for the user's confirmation, which hookchain cannot ask for, so it blocks{}",
            if reason.is_empty() {
                String::new()
            } else {
                format!(": {reason}")
            }
        )),
    }
}

/// Logs the rewrites left in `decision` after the point took what it uses.
pub(super) fn log_unused(decision: &Answer, cx: &HookContext<'_>) {
    let unused: Vec<&str> = [
        ("a new input", decision.updated_input.is_some()),
        ("input to merge", decision.merge_input.is_some()),
        ("input keys to rewrite", decision.rewrite_keys.is_some()),
        ("a new outbound message", decision.notification.is_some()),
        ("a new tool result", decision.updated_output.is_some()),
        ("a new text", decision.updated_text.is_some()),
        ("a summary", decision.summary.is_some()),
    ]
    .into_iter()
    .filter_map(|(what, present)| present.then_some(what))
    .collect();
    if !unused.is_empty() {
        tracing::debug!(
            point = cx.point(),
            hook = cx.hook_name(),
            "ignoring {} from the hook: `{}` has no use for it",
            unused.join(", "),
            cx.point()
        );
    }
}

/// Steps 1–4 for a transform or inject point; `rewrite` takes what the point uses.
pub(super) fn apply<R>(
    mut decision: Answer,
    cx: &HookContext<'_>,
    context: Context,
    rewrite: impl FnOnce(&mut Answer) -> Option<R>,
) -> HookResult<R> {
    report(&mut decision, cx, context);
    if let Some(reason) = refusal(&decision, cx) {
        if context == Context::Inject {
            // Nothing is injected into a blocked call; the context still reaches the agent.
            for text in decision.context.drain(..) {
                cx.add_context(text);
            }
        }
        return HookResult::block(reason);
    }
    let result = rewrite(&mut decision);
    log_unused(&decision, cx);
    match result {
        Some(r) => HookResult::Rewrite(r),
        None => HookResult::Pass,
    }
}

/// An observe point: warnings and context are reported, the rest ignored.
pub(super) fn observe(
    mut decision: Answer,
    cx: &HookContext<'_>,
    context: Context,
) -> HookResult<Observed> {
    report(&mut decision, cx, context);
    if decision.stop.is_some() || !matches!(decision.verdict, Verdict::Pass | Verdict::Allow) {
        tracing::debug!(
            point = cx.point(),
            hook = cx.hook_name(),
            "ignoring a block from the hook: `{}` is an observe point",
            cx.point()
        );
    }
    log_unused(&decision, cx);
    HookResult::Pass
}

/// The context texts as one injection, one per line.
pub(super) fn joined(context: &mut Vec<String>) -> Option<String> {
    let text = context.join("\n");
    context.clear();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::WirePoint;
    use crate::wire::testing::{block, with_cx};
    use hookchain_core::points::{
        AfterToolCall, BeforeCompaction, BeforeLlmCall, InterceptToolCall, OutboundMessage,
        SessionStart, TransformResponse, TransformToolResult, TransformUserInput, TurnEnded,
    };
    use hookchain_core::{
        Compaction, Injection, LlmCall, Outbound, SessionSource, SessionStartEvent, ToolCall,
        ToolResult, TurnEnd, TurnEndEvent,
    };
    use serde_json::json;

    #[test]
    fn an_empty_reason_names_the_hook() {
        let call = ToolCall::new("x", json!({}));
        let (r, _, _) = with_cx("intercept_tool_call", |cx| {
            InterceptToolCall::apply_answer(&call, block(""), cx)
        });
        assert_eq!(r, HookResult::block("blocked by hook `guard`"));
        let stop = Answer {
            stop: Some(String::new()),
            ..Answer::default()
        };
        let (r, _, _) = with_cx("intercept_tool_call", |cx| {
            InterceptToolCall::apply_answer(&call, stop, cx)
        });
        assert_eq!(r, HookResult::block("hook `guard` asked the agent to stop"));
    }

    #[test]
    fn ask_blocks_and_says_why() {
        let ask = Answer {
            verdict: Verdict::Ask("rm is risky".into()),
            ..Answer::default()
        };
        let (r, _, _) = with_cx("transform_user_input", |cx| {
            TransformUserInput::apply_answer("hi", ask, cx)
        });
        assert_eq!(
            r,
            HookResult::block(
                "hook `guard` asks for the user's confirmation, which hookchain cannot ask for, so it blocks: rm is risky"
            )
        );
    }

    #[test]
    fn inject_points_inject_the_context() {
        let d = Answer {
            context: vec!["one".into(), "two".into()],
            ..Answer::default()
        };
        let start = SessionStartEvent {
            session_id: "s".into(),
            parent_session_id: None,
            source: SessionSource::Startup,
            context: Vec::new(),
        };
        let (r, context, _) = with_cx("session_start", |cx| {
            SessionStart::apply_answer(&start, d.clone(), cx)
        });
        assert_eq!(r, HookResult::Rewrite("one\ntwo".to_owned()));
        assert!(context.is_empty());
        let (r, context, _) = with_cx("before_llm_call", |cx| {
            BeforeLlmCall::apply_answer(&LlmCall::default(), d.clone(), cx)
        });
        assert_eq!(r, HookResult::Rewrite(Injection::system("one\ntwo")));
        assert!(context.is_empty());
        // A blocked call injects nothing; its context still reaches the agent.
        let blocked = Answer {
            verdict: Verdict::Block("budget".into()),
            ..d
        };
        let (r, context, _) = with_cx("before_llm_call", |cx| {
            BeforeLlmCall::apply_answer(&LlmCall::default(), blocked, cx)
        });
        assert_eq!(r, HookResult::block("budget"));
        assert_eq!(context, ["one", "two"]);
    }

    #[test]
    fn points_without_a_model_call_ahead_drop_context_but_keep_warnings() {
        let d = Answer {
            context: vec!["c".into()],
            warnings: vec!["w".into()],
            updated_text: Some("new".into()),
            ..Answer::default()
        };
        let (r, context, warnings) = with_cx("transform_response", |cx| {
            TransformResponse::apply_answer("old", d, cx)
        });
        assert_eq!(r, HookResult::Rewrite("new".to_owned()));
        assert!(context.is_empty());
        assert_eq!(warnings, ["w"]);
    }

    #[test]
    fn observe_points_report_warnings_and_context_only() {
        let d = Answer {
            verdict: Verdict::Block("no".into()),
            stop: Some("stop".into()),
            updated_text: Some("x".into()),
            context: vec!["c".into()],
            warnings: vec!["w".into()],
            ..Answer::default()
        };
        let result = ToolResult::new(&ToolCall::new("t", json!({})), Ok(json!(1)));
        let (r, context, warnings) = with_cx("after_tool_call", |cx| {
            AfterToolCall::apply_answer(&result, d.clone(), cx)
        });
        assert_eq!(r, HookResult::Pass);
        assert_eq!(
            (context, warnings),
            (vec!["c".to_owned()], vec!["w".to_owned()])
        );
        let ended = TurnEndEvent {
            session_id: "s".into(),
            turn: 0,
            reason: TurnEnd::Normal,
        };
        let (r, context, warnings) =
            with_cx("turn_end", |cx| TurnEnded::apply_answer(&ended, d, cx));
        assert_eq!(r, HookResult::Pass);
        assert!(context.is_empty());
        assert_eq!(warnings, ["w"]);
    }

    #[test]
    fn rewrites_land_where_the_point_uses_them() {
        let result = ToolResult::new(&ToolCall::new("t", json!({})), Ok(json!("secret")));
        let d = Answer {
            updated_output: Some(json!("***")),
            ..Answer::default()
        };
        let (r, _, _) = with_cx("transform_tool_result", |cx| {
            TransformToolResult::apply_answer(&result, d, cx)
        });
        assert_eq!(r, HookResult::Rewrite(json!("***")));
        let compaction = Compaction {
            messages: Vec::new(),
            trigger: "manual".into(),
            summary: None,
        };
        let d = Answer {
            summary: Some("short".into()),
            ..Answer::default()
        };
        let (r, _, _) = with_cx("before_compaction", |cx| {
            BeforeCompaction::apply_answer(&compaction, d, cx)
        });
        assert_eq!(r, HookResult::Rewrite("short".to_owned()));
        let out = Outbound {
            platform: "slack".into(),
            recipient: "x".into(),
            text: "key=abc".into(),
        };
        let d = Answer {
            updated_text: Some("key=***".into()),
            updated_input: Some(json!({})),
            ..Answer::default()
        };
        let (r, _, _) = with_cx("outbound_message", |cx| {
            OutboundMessage::apply_answer(&out, d, cx)
        });
        assert_eq!(r, HookResult::Rewrite("key=***".to_owned()));
    }
}
