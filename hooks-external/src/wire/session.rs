//! Session lifecycle on the wire: `session_start` (with Claude Code's `SubagentStart`),
//! `session_end` and `session_reset`.

use hookchain_core::points::{SessionEnd, SessionReset, SessionStart};
use hookchain_core::{
    Dialect, HookContext, HookResult, Observed, SessionEndEvent, SessionResetEvent, SessionSource,
    SessionStartEvent,
};
use serde_json::{Map, Value};

use super::apply::{Context, apply, joined, observe};
use super::tables::{end_reason, start_source};
use super::{Subject, WirePoint, fields, json, put_opt};
use crate::answer::Answer;

impl WirePoint for SessionStart {
    fn fields(input: &SessionStartEvent) -> Map<String, Value> {
        let mut map = fields([
            ("source", json(&input.source)),
            ("context", json(&input.context)),
        ]);
        put_opt(
            &mut map,
            "parent_session_id",
            input.parent_session_id.as_deref(),
        );
        map
    }

    fn dialect_fields(input: &SessionStartEvent, dialect: Dialect, map: &mut Map<String, Value>) {
        if matches!(dialect, Dialect::ClaudeCode | Dialect::DockerAgent) {
            map.insert("source".to_owned(), Value::from(start_source(input.source)));
        }
        if dialect == Dialect::ClaudeCode && input.source == SessionSource::Subagent {
            // SubagentStart: the child's id.
            map.insert(
                "agent_id".to_owned(),
                Value::from(input.session_id.as_str()),
            );
        }
    }

    fn fires_for(input: &SessionStartEvent, event: &str, dialect: Dialect) -> bool {
        let child = input.source == SessionSource::Subagent;
        match event {
            // Claude Code's SubagentStart (Cursor's and Copilot's `subagentStart`): a child
            // session only.
            "SubagentStart" | "subagentStart" => child,
            // Claude Code fires no SessionStart for a subagent (it has SubagentStart).
            _ if dialect == Dialect::ClaudeCode => !child,
            _ => true,
        }
    }

    fn event_subject(input: &SessionStartEvent, dialect: Dialect) -> Subject {
        match dialect {
            // SubagentStart filters on `agent_type`, which hookchain has no value for.
            Dialect::ClaudeCode if input.source == SessionSource::Subagent => Subject::Unknown,
            Dialect::ClaudeCode => Subject::Value(start_source(input.source).to_owned()),
            _ => Subject::Unfiltered,
        }
    }

    fn apply_answer(
        _: &SessionStartEvent,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        apply(decision, cx, Context::Inject, |d| joined(&mut d.context))
    }
}

impl WirePoint for SessionEnd {
    fn fields(input: &SessionEndEvent) -> Map<String, Value> {
        fields([("reason", Value::from(input.reason.as_str()))])
    }

    fn dialect_fields(input: &SessionEndEvent, dialect: Dialect, map: &mut Map<String, Value>) {
        if matches!(dialect, Dialect::ClaudeCode | Dialect::DockerAgent) {
            map.insert("reason".to_owned(), Value::from(end_reason(&input.reason)));
        }
    }

    fn event_subject(input: &SessionEndEvent, dialect: Dialect) -> Subject {
        match dialect {
            Dialect::ClaudeCode => Subject::Value(end_reason(&input.reason).to_owned()),
            _ => Subject::Unfiltered,
        }
    }

    fn apply_answer(
        _: &SessionEndEvent,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Drop)
    }
}

impl WirePoint for SessionReset {
    fn fields(input: &SessionResetEvent) -> Map<String, Value> {
        fields([
            ("old_session_id", Value::from(input.old_session_id.as_str())),
            ("new_session_id", Value::from(input.new_session_id.as_str())),
        ])
    }

    fn apply_answer(
        _: &SessionResetEvent,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::testing::dialect_payload;

    #[test]
    fn session_sources_and_end_reasons_in_claude_codes_names() {
        let start = |source| SessionStartEvent {
            session_id: "s".into(),
            parent_session_id: None,
            source,
            context: Vec::new(),
        };
        for (source, name) in [
            (SessionSource::Startup, "startup"),
            (SessionSource::Reset, "clear"),
            (SessionSource::Resume, "resume"),
            (SessionSource::Compact, "compact"),
        ] {
            let map = dialect_payload::<SessionStart>(Dialect::ClaudeCode, &start(source));
            assert_eq!(map["source"], name);
            assert_eq!(
                SessionStart::event_subject(&start(source), Dialect::ClaudeCode),
                Subject::Value(name.to_owned())
            );
        }
        // hookchain's own protocol keeps its own names and ignores matchers there.
        assert_eq!(
            SessionStart::fields(&start(SessionSource::Reset))["source"],
            "reset"
        );
        assert_eq!(
            SessionStart::event_subject(&start(SessionSource::Reset), Dialect::Hermes),
            Subject::Unfiltered
        );
        // Claude Code fires no SessionStart for a subagent.
        assert!(!SessionStart::fires_for(
            &start(SessionSource::Subagent),
            "SessionStart",
            Dialect::ClaudeCode
        ));
        assert!(SessionStart::fires_for(
            &start(SessionSource::Subagent),
            "session_start",
            Dialect::DockerAgent
        ));
        let end = |reason: &str| SessionEndEvent {
            session_id: "s".into(),
            reason: reason.into(),
        };
        assert_eq!(
            dialect_payload::<SessionEnd>(Dialect::ClaudeCode, &end("logout"))["reason"],
            "logout"
        );
        assert_eq!(
            dialect_payload::<SessionEnd>(Dialect::DockerAgent, &end("dropped"))["reason"],
            "other"
        );
    }
}
