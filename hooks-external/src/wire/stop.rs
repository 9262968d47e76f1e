//! The end of a run and what shortens it, on the wire: `on_stop`, `before_compaction`,
//! `after_compaction` and `subagent_stop`.

use hookchain_core::points::{AfterCompaction, BeforeCompaction, OnStop, SubagentStop};
use hookchain_core::{
    Compaction, CompactionDone, Dialect, HookContext, HookResult, Observed, StopEvent,
    SubagentStopEvent,
};
use serde_json::{Map, Value};

use super::apply::{Context, apply, observe, report};
use super::tables::{child_status, hermes_extra};
use super::{Subject, WirePoint, assistant_text, fields, json, put_opt};
use crate::answer::{Answer, Verdict};

impl WirePoint for OnStop {
    fn fields(input: &StopEvent) -> Map<String, Value> {
        let response = Value::from(input.response.as_str());
        fields([
            ("response", response.clone()),
            ("last_assistant_message", response.clone()),
            ("stop_response", response),
            ("stop_hook_active", Value::from(input.stop_hook_active)),
            ("redos", Value::from(input.redos)),
        ])
    }

    fn transcript_entry(input: &StopEvent) -> Option<Value> {
        Some(assistant_text(&input.response))
    }

    fn in_dialect(_: &StopEvent, decision: &mut Answer, dialect: Dialect, _: &HookContext<'_>) {
        // Current Claude Code: a Stop hook's `additionalContext` keeps the agent going, the
        // context its next instruction.
        if dialect == Dialect::ClaudeCode
            && decision.stop.is_none()
            && matches!(decision.verdict, Verdict::Pass | Verdict::Allow)
            && !decision.context.is_empty()
        {
            decision.verdict = Verdict::Block(decision.context.join("\n"));
            decision.context.clear();
        }
    }

    fn apply_answer(
        _: &StopEvent,
        mut decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        if let Some(reason) = decision.stop.take() {
            // `continue: false` on a stop hook: the agent stops, and does not redo.
            report(&mut decision, cx, Context::Add);
            if !reason.is_empty() {
                cx.warn(reason);
            }
            return HookResult::Pass;
        }
        apply(decision, cx, Context::Add, |d| d.updated_text.take())
    }
}

impl WirePoint for BeforeCompaction {
    fn fields(input: &Compaction) -> Map<String, Value> {
        let mut map = fields([
            ("trigger", Value::from(input.trigger.as_str())),
            ("source", Value::from(input.trigger.as_str())),
            ("messages", json(&input.messages)),
        ]);
        put_opt(&mut map, "summary", input.summary.as_deref());
        map
    }

    fn dialect_fields(input: &Compaction, dialect: Dialect, map: &mut Map<String, Value>) {
        match dialect {
            Dialect::ClaudeCode => {
                // Claude Code sends the user's `/compact` instructions; hookchain has none.
                map.insert("custom_instructions".to_owned(), Value::from(""));
            }
            Dialect::DockerAgent => {
                // docker-agent's `threshold` is Claude Code's `auto`.
                let reason = match input.trigger.as_str() {
                    "auto" => "threshold",
                    other => other,
                };
                map.insert("compaction_reason".to_owned(), Value::from(reason));
            }
            _ => {}
        }
    }

    fn event_subject(input: &Compaction, dialect: Dialect) -> Subject {
        match dialect {
            Dialect::ClaudeCode => Subject::Value(input.trigger.clone()),
            _ => Subject::Unfiltered,
        }
    }

    fn in_dialect(
        input: &Compaction,
        decision: &mut Answer,
        dialect: Dialect,
        cx: &HookContext<'_>,
    ) {
        // docker-agent: the first non-empty summary, in config order, wins.
        if dialect == Dialect::DockerAgent
            && input.summary.is_some()
            && (decision.summary.is_some() || decision.updated_text.is_some())
        {
            tracing::debug!(
                point = cx.point(),
                hook = cx.hook_name(),
                "ignoring the hook's summary: an earlier hook supplied one, and docker-agent keeps the first"
            );
            decision.summary = None;
            decision.updated_text = None;
        }
    }

    fn apply_answer(_: &Compaction, decision: Answer, cx: &HookContext<'_>) -> HookResult<String> {
        apply(decision, cx, Context::Add, |d| {
            d.summary.take().or_else(|| d.updated_text.take())
        })
    }
}

impl WirePoint for AfterCompaction {
    fn fields(input: &CompactionDone) -> Map<String, Value> {
        fields([
            ("summary", Value::from(input.summary.as_str())),
            ("messages_before", Value::from(input.messages_before)),
            ("messages_after", Value::from(input.messages_after)),
        ])
    }

    fn apply_answer(
        _: &CompactionDone,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

impl WirePoint for SubagentStop {
    fn fields(input: &SubagentStopEvent) -> Map<String, Value> {
        fields([
            (
                "parent_session_id",
                Value::from(input.parent_session_id.as_str()),
            ),
            ("reason", Value::from(input.reason.as_str())),
        ])
    }

    fn dialect_fields(input: &SubagentStopEvent, dialect: Dialect, map: &mut Map<String, Value>) {
        match dialect {
            Dialect::ClaudeCode => {
                map.insert(
                    "agent_id".to_owned(),
                    Value::from(input.session_id.as_str()),
                );
                map.insert("stop_hook_active".to_owned(), Value::from(false));
            }
            // Hermes' `subagent_stop` kwargs, under `extra`: `parent_session_id`,
            // `child_status`, `child_role` and `child_summary` (`None` where Hermes has none),
            // and the child's session as `child_session_id` (the name of its `subagent_start`).
            Dialect::Hermes => hermes_extra(
                map,
                [
                    ("child_session_id", Value::from(input.session_id.as_str())),
                    ("child_status", Value::from(child_status(&input.reason))),
                    ("child_role", Value::Null),
                    ("child_summary", Value::Null),
                ],
            ),
            _ => {}
        }
    }

    fn session_id_in(input: &SubagentStopEvent, dialect: Dialect) -> Option<&str> {
        // Claude Code's SubagentStop and Hermes' subagent_stop fire in the parent's session:
        // `session_id` is the parent's, the child is `agent_id` / `extra.child_session_id`.
        matches!(dialect, Dialect::ClaudeCode | Dialect::Hermes)
            .then_some(input.parent_session_id.as_str())
    }

    fn apply_answer(
        _: &SubagentStopEvent,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::adapt;
    use crate::wire::testing::{block, with_cx};

    #[test]
    fn stop_on_on_stop_ends_the_turn_and_block_redoes() {
        let event = StopEvent {
            response: "done".into(),
            stop_hook_active: false,
            redos: 0,
        };
        let stop = Answer {
            verdict: Verdict::Block("keep going".into()),
            stop: Some("enough".into()),
            ..Answer::default()
        };
        let (r, _, warnings) = with_cx("on_stop", |cx| OnStop::apply_answer(&event, stop, cx));
        assert_eq!(r, HookResult::Pass);
        assert_eq!(warnings, ["enough"]);
        let (r, _, _) = with_cx("on_stop", |cx| {
            OnStop::apply_answer(&event, block("run the tests"), cx)
        });
        assert_eq!(r, HookResult::block("run the tests"));
    }

    /// Claude Code's SubagentStop and Hermes' subagent_stop name the parent's session in
    /// `session_id` (the child is `agent_id`, `extra.child_session_id`); hookchain's own
    /// protocol and docker-agent keep the firing's session, with `parent_session_id`.
    #[test]
    fn subagent_stop_names_the_parent_session_where_its_agent_does() {
        let event = SubagentStopEvent {
            session_id: "wire-test".into(),
            parent_session_id: "parent".into(),
            reason: "normal".into(),
        };
        let (payloads, _, _) = with_cx("subagent_stop", |cx| {
            [
                Dialect::ClaudeCode,
                Dialect::Hermes,
                Dialect::Hookchain,
                Dialect::DockerAgent,
            ]
            .map(|dialect| crate::wire::payload_in::<SubagentStop>("e", dialect, &event, cx))
        });
        let [claude, hermes, native, docker] = payloads;
        assert_eq!(
            (&claude["session_id"], &claude["agent_id"]),
            (&"parent".into(), &"wire-test".into())
        );
        assert_eq!(hermes["session_id"], "parent");
        assert_eq!(hermes["extra"]["child_session_id"], "wire-test");
        assert_eq!(hermes["extra"]["child_status"], "completed");
        for payload in [native, docker] {
            assert_eq!(payload["session_id"], "wire-test");
            assert_eq!(payload["parent_session_id"], "parent");
        }
    }

    #[test]
    fn docker_agent_keeps_the_first_summary() {
        let earlier = Compaction {
            messages: Vec::new(),
            trigger: "manual".into(),
            summary: Some("first".into()),
        };
        let d = Answer {
            summary: Some("second".into()),
            ..Answer::default()
        };
        let (r, _, _) = with_cx("before_compaction", |cx| {
            let mut d = d.clone();
            adapt::<BeforeCompaction>(&earlier, &mut d, Dialect::DockerAgent, cx);
            BeforeCompaction::apply_answer(&earlier, d, cx)
        });
        assert_eq!(r, HookResult::Pass);
        // hookchain's own protocol: the last hook's summary wins, as in every chain.
        let (r, _, _) = with_cx("before_compaction", |cx| {
            let mut d = d.clone();
            adapt::<BeforeCompaction>(&earlier, &mut d, Dialect::Hookchain, cx);
            BeforeCompaction::apply_answer(&earlier, d, cx)
        });
        assert_eq!(r, HookResult::Rewrite("second".to_owned()));
    }
}
