//! Claude Code as the agent: its payload is already hookchain's wire form (the host side in
//! `hookchain_external::wire` was written from it), so its events resolve through the point
//! catalog's Claude Code aliases and its fields are read as they are.
//!
//! Answers (<https://code.claude.com/docs/en/hooks>, "Decision control"), exit 0 with JSON on
//! stdout unless said otherwise:
//!
//! | event | block | rewrite | context |
//! |---|---|---|---|
//! | `PreToolUse` | `hookSpecificOutput.permissionDecision: "deny"` + `permissionDecisionReason` | `hookSpecificOutput.updatedInput` with `permissionDecision: "allow"` (see below) | `hookSpecificOutput.additionalContext` |
//! | `PermissionRequest` | `hookSpecificOutput.decision: {behavior: "deny", message}` | — | — |
//! | `UserPromptSubmit` | `decision: "block"` + `reason` | none: said on stderr | `hookSpecificOutput.additionalContext` |
//! | `PostToolUse` | `decision: "block"` + `reason` (the reason goes to the model; the tool already ran) | none: said on stderr | `hookSpecificOutput.additionalContext` |
//! | `Stop`, `SubagentStop` | `decision: "block"` + `reason` (the agent goes on, the reason its instruction) | — | — |
//! | `SessionStart` | none: said on stderr | — | `hookSpecificOutput.additionalContext` |
//!
//! A pass with nothing to add is exit 0 and no output: Claude Code's "success", which leaves
//! its permission rules in charge (`permissionDecision: "allow"` would skip its prompt).
//!
//! A rewrite is the one answer that approves: Claude Code applies `updatedInput` only with
//! `permissionDecision: "allow"` (with `ask` it runs the original input), and Codex refuses
//! `updatedInput` without it ("updatedInput without permissionDecision:allow") and then runs
//! the original call. Approving the rewritten call is what keeps the rewrite from being
//! dropped; the agents' deny rules still apply to it.

use serde_json::{Map, Value, json};

use super::{Answer, Protocol, Verdict, hook_event_name, joined};

/// Claude Code's side of the protocol.
pub(crate) const PROTOCOL: Protocol = Protocol {
    point_of,
    event_of: hook_event_name,
    normalize,
    answer,
};

/// Claude Code's events with a point: the catalog's aliases (Codex's too).
pub(super) fn point_of(event: &str) -> Option<&'static str> {
    match event {
        "PreToolUse" => Some("intercept_tool_call"),
        "PermissionRequest" => Some("permission_request"),
        "PostToolUse" => Some("transform_tool_result"),
        "UserPromptSubmit" => Some("transform_user_input"),
        "Stop" => Some("on_stop"),
        "SubagentStop" => Some("subagent_stop"),
        "SessionStart" => Some("session_start"),
        "SessionEnd" => Some("session_end"),
        "PreCompact" => Some("before_compaction"),
        "PostCompact" => Some("after_compaction"),
        "Notification" => Some("notification"),
        _ => None,
    }
}

/// The payload as it is: Claude Code's fields are hookchain's wire fields.
fn normalize(_event: &str, payload: &Map<String, Value>) -> Map<String, Value> {
    payload.clone()
}

/// Claude Code's answer (see the table above).
fn answer(event: &str, point: &str, verdict: Verdict) -> Answer {
    claude_form(event, point, verdict)
}

/// The answer in the JSON forms Claude Code documents, which Codex copies event for event:
/// `event` is the agent's own name of the event (its `hookEventName`).
pub(crate) fn claude_form(event: &str, point: &str, verdict: Verdict) -> Answer {
    let specific = |fields: Value| {
        let mut object = Map::new();
        object.insert("hookEventName".to_owned(), Value::from(event));
        if let Value::Object(fields) = fields {
            object.extend(fields);
        }
        json!({ "hookSpecificOutput": object })
    };
    let context_only = |context: &[String]| match joined(context) {
        Some(text) => Answer::json(&specific(json!({ "additionalContext": text }))),
        None => Answer::silent(),
    };
    match (point, verdict) {
        ("intercept_tool_call", Verdict::Block { reason }) => Answer::json(&specific(json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }))),
        ("intercept_tool_call", Verdict::Rewrite { value, context }) => {
            // Both agents take `updatedInput` only beside `allow` (Codex refuses it alone,
            // and the original call then runs).
            let mut fields = json!({ "permissionDecision": "allow", "updatedInput": value });
            if let Some(text) = joined(&context) {
                fields["additionalContext"] = Value::from(text);
            }
            Answer::json(&specific(fields))
        }
        ("permission_request", Verdict::Block { reason }) => Answer::json(&specific(json!({
            "decision": {"behavior": "deny", "message": reason},
        }))),
        (
            "transform_user_input" | "transform_tool_result" | "on_stop" | "subagent_stop",
            Verdict::Block { reason },
        ) => Answer::json(&json!({"decision": "block", "reason": reason})),
        (
            "intercept_tool_call"
            | "transform_user_input"
            | "transform_tool_result"
            | "session_start",
            Verdict::Pass { context },
        ) => context_only(&context),
        ("transform_user_input" | "transform_tool_result", Verdict::Rewrite { context, .. }) => {
            context_only(&context).say(&format!(
                "a hook rewrote the value of {event}, which the agent has no answer for: \
                 it goes on unchanged"
            ))
        }
        (_, Verdict::Block { reason }) => Answer::silent().say(&format!(
            "a hook blocked {event}, which the agent cannot block: {reason}"
        )),
        _ => Answer::silent(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(reason: &str) -> Verdict {
        Verdict::Block {
            reason: reason.to_owned(),
        }
    }

    fn context(text: &str) -> Verdict {
        Verdict::Pass {
            context: vec![text.to_owned()],
        }
    }

    fn stdout(answer: &Answer) -> Value {
        serde_json::from_str(&answer.stdout).unwrap_or(Value::Null)
    }

    /// https://code.claude.com/docs/en/hooks: "Stop and SubagentStop" and "PostToolUse
    /// decision control" (`decision: "block"` + `reason`), "SessionStart" and "PostToolUse"
    /// (`hookSpecificOutput.additionalContext`), "PermissionRequest decision control".
    #[test]
    fn the_other_events_answer_in_their_documented_forms() {
        let stop = answer("Stop", "on_stop", block("tests fail"));
        assert_eq!(
            (stop.code, stdout(&stop)),
            (0, json!({"decision": "block", "reason": "tests fail"}))
        );
        let post = answer("PostToolUse", "transform_tool_result", block("lint"));
        assert_eq!(
            stdout(&post),
            json!({"decision": "block", "reason": "lint"})
        );
        let start = answer("SessionStart", "session_start", context("branch: dev"));
        assert_eq!(
            stdout(&start),
            json!({"hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": "branch: dev",
            }})
        );
        let request = answer("PermissionRequest", "permission_request", block("no"));
        assert_eq!(
            stdout(&request),
            json!({"hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "no"},
            }})
        );
        // Nothing to say: no output at all.
        let pass = answer("Stop", "on_stop", Verdict::Pass { context: vec![] });
        assert_eq!(pass, Answer::silent());
        // A block the agent cannot take is said, not dropped.
        let end = answer("SessionEnd", "session_end", block("audit down"));
        assert_eq!((end.code, end.stdout.as_str()), (0, ""));
        assert!(end.stderr.contains("audit down"), "{end:?}");
    }
}
