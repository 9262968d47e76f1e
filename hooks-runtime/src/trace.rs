//! Every dispatch as a [`tracing`] span, named and attributed after OpenTelemetry's semantic
//! conventions for generative AI, so that `tracing-opentelemetry` ships hookchain's decisions to
//! any OpenTelemetry backend with no hookchain code.
//!
//! # What it owns
//!
//! The span of one dispatch: target `hookchain`, level `INFO`, name `hookchain.dispatch`, with
//! these fields (empty ones are not recorded):
//!
//! | field | value |
//! |---|---|
//! | `otel.name` | `execute_tool Bash` on the tool points, `chat` on the model points, else `hookchain POINT` (the span's name in OpenTelemetry) |
//! | `gen_ai.operation.name` | `execute_tool` on the tool points (`intercept_tool_call`, `permission_request`, `transform_tool_result`, `after_tool_call`), `chat` on `before_llm_call` and `after_llm_call` |
//! | `gen_ai.tool.name` | the tool's name, on the tool points |
//! | `gen_ai.conversation.id` | the session id |
//! | `hookchain.point` | the point's canonical name |
//! | `hookchain.turn` | the turn's index, in a turn |
//! | `hookchain.decision` | `pass`, `rewrite`, `inject` or `block` |
//! | `hookchain.hook` | the hook that blocked; for a rewrite or an injection, the last one that made one |
//! | `hookchain.reason` | why it blocked |
//! | `hookchain.failures` | how many hooks failed (panicked or returned `Err`), when some did |
//! | `error.type` | `hook_failed` when a hook failed, `hook_failed_closed` when the failure blocked |
//! | `otel.status_code` | `ERROR` when a hook failed |
//!
//! The span's duration is the chain's.
//!
//! # The rules it keeps
//!
//! - **One check when nobody listens.** Whether a subscriber wants the span is `tracing`'s own
//!   check of a callsite ([`wanted`]): with no subscriber, or one whose filter leaves
//!   `hookchain` at `INFO` out, one relaxed load and a compare. The points' fast paths ask it
//!   next to the one flag that says a wildcard hook watches the point, and only when either is
//!   set does a dispatch take the full path, which times the chain and builds the span.
//! - **Where the agent is.** A span's parent is the span the agent has entered (its turn, its
//!   request); the dispatch span is entered while the hooks run (or instruments the future of
//!   an async dispatch), so a hook's own spans and events nest under it.
//! - **A point nobody hooks is not dispatched**, so it has no span.

use tracing::Span;
use tracing::field::Empty;

use hookchain_core::{Blocked, Decision, Flow, HookPoint, PointKind};

use crate::chain::{Outcome, Scope};

/// The target of the spans: `RUST_LOG=hookchain=info` keeps them.
pub(crate) const TARGET: &str = "hookchain";

/// `true` when a subscriber wants the dispatch spans: `tracing`'s check of a callsite.
#[inline(always)]
pub(crate) fn wanted() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::INFO)
}

/// The GenAI operation a dispatch of `point` hooks into, where the conventions name one.
fn operation(point: &str) -> Option<&'static str> {
    match point {
        "intercept_tool_call"
        | "permission_request"
        | "transform_tool_result"
        | "after_tool_call" => Some("execute_tool"),
        "before_llm_call" | "after_llm_call" => Some("chat"),
        _ => None,
    }
}

/// The span of a dispatch of `P` in `scope` whose value names the tool `tool`, not entered;
/// [`Span::none`] when no subscriber wants it.
#[cold]
pub(crate) fn dispatch_span<P: HookPoint>(tool: Option<&str>, scope: &Scope<'_>) -> Span {
    let operation = operation(P::NAME);
    let span = tracing::info_span!(
        target: TARGET,
        "hookchain.dispatch",
        otel.name = Empty,
        otel.status_code = Empty,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.conversation.id = scope.session_id,
        hookchain.point = P::NAME,
        hookchain.turn = Empty,
        hookchain.decision = Empty,
        hookchain.hook = Empty,
        hookchain.reason = Empty,
        hookchain.failures = Empty,
        error.type = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let name = match (operation, tool) {
        (Some(operation), Some(tool)) => format!("{operation} {tool}"),
        (Some(operation), None) => operation.to_owned(),
        (None, _) => format!("hookchain {}", P::NAME),
    };
    span.record("otel.name", name);
    if let Some(operation) = operation {
        span.record("gen_ai.operation.name", operation);
    }
    if let Some(tool) = tool {
        span.record("gen_ai.tool.name", tool);
    }
    if scope.frame.in_turn() {
        span.record("hookchain.turn", scope.turn);
    }
    span
}

/// What a dispatch of `P` that gave `outcome` decided: the decision, the deciding hook, the
/// reason of a block, and whether the block is a failure.
pub(crate) fn decided<P: HookPoint, T>(
    outcome: &Outcome<T>,
) -> (Decision, Option<&str>, Option<&str>, bool) {
    match &outcome.flow {
        Flow::Blocked(Blocked {
            hook,
            reason,
            failed,
            ..
        }) => (Decision::Block, Some(hook), Some(reason), *failed),
        Flow::Continue(_) => match outcome.rewritten_by.last() {
            None => (Decision::Pass, None, None, false),
            Some(last) if P::KIND == PointKind::Inject => {
                (Decision::Inject, Some(last), None, false)
            }
            Some(last) => (Decision::Rewrite, Some(last), None, false),
        },
    }
}

/// Records on `span` what the dispatch decided.
#[cold]
pub(crate) fn record<P: HookPoint, T>(span: &Span, outcome: &Outcome<T>) {
    if span.is_disabled() {
        return;
    }
    let (decision, hook, reason, failed) = decided::<P, T>(outcome);
    span.record("hookchain.decision", decision.as_str());
    if let Some(hook) = hook {
        span.record("hookchain.hook", hook);
    }
    if let Some(reason) = reason {
        span.record("hookchain.reason", reason);
    }
    if !outcome.failures.is_empty() || failed {
        span.record("hookchain.failures", outcome.failures.len().max(1));
        span.record(
            "error.type",
            if failed {
                "hook_failed_closed"
            } else {
                "hook_failed"
            },
        );
        span.record("otel.status_code", "ERROR");
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fmt::Debug;
    use std::sync::Arc;

    use hookchain_core::points::{BeforeLlmCall, Injection, InterceptToolCall, LlmCall, ToolCall};
    use hookchain_core::{HookContext, HookResult, TurnEnd};
    use parking_lot::Mutex;
    use serde_json::json;
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing_subscriber::layer::{Context, SubscriberExt};
    use tracing_subscriber::registry::LookupSpan;

    use crate::HooksBuilder;

    /// One span as a subscriber saw it: its name, its parent's name, its fields.
    #[derive(Debug, Clone, Default)]
    struct Seen {
        name: String,
        parent: Option<String>,
        fields: BTreeMap<String, String>,
    }

    impl Visit for Seen {
        fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
            self.fields
                .insert(field.name().to_owned(), format!("{value:?}"));
        }
        fn record_str(&mut self, field: &Field, value: &str) {
            self.fields
                .insert(field.name().to_owned(), value.to_owned());
        }
    }

    /// Keeps every span, in the order they were created, with the fields recorded later.
    #[derive(Clone, Default)]
    struct Spans(Arc<Mutex<Vec<(u64, Seen)>>>);

    impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Spans {
        fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, cx: Context<'_, S>) {
            let mut seen = Seen {
                name: attrs.metadata().name().to_owned(),
                parent: cx
                    .span(id)
                    .and_then(|s| s.parent())
                    .map(|p| p.name().to_owned()),
                ..Seen::default()
            };
            attrs.record(&mut seen);
            self.0.lock().push((id.into_u64(), seen));
        }
        fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
            let mut spans = self.0.lock();
            if let Some((_, seen)) = spans.iter_mut().find(|(i, _)| *i == id.into_u64()) {
                values.record(seen);
            }
        }
    }

    #[test]
    fn a_turn_is_a_tree_of_dispatch_spans_named_after_the_genai_conventions() {
        let hooks = HooksBuilder::new()
            .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
                let _own = tracing::info_span!("hook.own_work").entered();
                match call.name.as_str() {
                    "rm" => HookResult::block("no rm"),
                    _ => HookResult::Pass,
                }
            })
            .hook(BeforeLlmCall, 0, |_: &LlmCall, _: &HookContext| {
                HookResult::Rewrite(Injection::system("be brief"))
            })
            .build()
            .unwrap();
        let spans = Spans::default();
        let subscriber = tracing_subscriber::registry().with(spans.clone());
        tracing::subscriber::with_default(subscriber, || {
            let session = hooks.session("trace-session");
            let turn = session.begin_turn();
            let _turn_span = tracing::info_span!("agent.turn").entered();
            let _ = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
            let _ = turn.intercept_tool_call(ToolCall::new("rm", json!({})));
            let _ = turn.before_llm_call(LlmCall::new("be helpful", Vec::new()));
            turn.end(TurnEnd::Normal);
        });
        let spans: Vec<Seen> = spans.0.lock().iter().map(|(_, s)| s.clone()).collect();
        let dispatch = |otel: &str| {
            spans
                .iter()
                .find(|s| {
                    s.name == "hookchain.dispatch"
                        && s.fields.get("otel.name").map(String::as_str) == Some(otel)
                })
                .unwrap_or_else(|| panic!("no span `{otel}` in {spans:#?}"))
        };
        let ls = dispatch("execute_tool ls");
        assert_eq!(ls.parent.as_deref(), Some("agent.turn"));
        assert_eq!(ls.fields["gen_ai.operation.name"], "execute_tool");
        assert_eq!(ls.fields["gen_ai.tool.name"], "ls");
        assert_eq!(ls.fields["gen_ai.conversation.id"], "trace-session");
        assert_eq!(ls.fields["hookchain.point"], "intercept_tool_call");
        assert_eq!(ls.fields["hookchain.decision"], "pass");
        assert!(ls.fields.contains_key("hookchain.turn"));
        let rm = dispatch("execute_tool rm");
        assert_eq!(rm.fields["hookchain.decision"], "block");
        assert_eq!(rm.fields["hookchain.reason"], "no rm");
        assert!(rm.fields.contains_key("hookchain.hook"));
        let chat = dispatch("chat");
        assert_eq!(chat.fields["gen_ai.operation.name"], "chat");
        assert_eq!(chat.fields["hookchain.decision"], "inject");
        // The hook's own span is a child of the dispatch it ran in.
        let own: Vec<&Seen> = spans.iter().filter(|s| s.name == "hook.own_work").collect();
        assert_eq!(own.len(), 2);
        assert!(
            own.iter()
                .all(|s| s.parent.as_deref() == Some("hookchain.dispatch"))
        );
    }

    #[test]
    fn no_subscriber_no_span() {
        assert!(!super::wanted());
    }
}
