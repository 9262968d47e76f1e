//! Codex as the agent (<https://developers.openai.com/codex/hooks>): its events and payloads
//! copy Claude Code's (`hook_event_name`, `session_id`, `cwd`, `tool_name`, `tool_input`,
//! `prompt`, `last_assistant_message`), and its shell tool (`exec_command`, `shell`) reaches
//! hooks as `tool_name: "Bash"` with the command line in `tool_input.command`, which is what
//! the guards read.
//!
//! Codex validates an answer against the schema of its event and counts a hook whose answer
//! has a field it does not support as failed — and then the tool runs. So the answers are
//! Claude Code's forms limited to the fields Codex's schemas list for each event
//! (`hookEventName`, `permissionDecision`, `permissionDecisionReason`, `updatedInput`,
//! `additionalContext` in `hookSpecificOutput`; `decision: "block"` + `reason` at the top
//! level), which is exactly what [`claude_form`] writes; no `systemMessage` and no
//! `suppressOutput` are ever sent, and `permissionDecision: "allow"` only beside
//! `updatedInput`, which Codex refuses without it. A pass with nothing to
//! add is exit 0 and no output. One form is Codex's own: a rewritten tool result on
//! `PostToolUse` is `hookSpecificOutput.updatedToolOutput`.
//!
//! Codex's events with a point: `SessionStart`, `PreToolUse`, `PermissionRequest`,
//! `PostToolUse`, `UserPromptSubmit`, `Stop`, `SubagentStop`, `PreCompact`, `PostCompact`,
//! `SessionEnd`, `Notification`, `SubagentStart` (`session_start` of a child's session) and
//! `Interrupt` (`turn_end` of a canceled turn, observed, answered with nothing), as the Codex
//! dialect fires them. Others (`StopFailure`) are unknown
//! events (fail open).

use hookchain_core::Dialect;
use hookchain_external::wire::agents::payload_from_agent;
use serde_json::{Map, Value, json};

use super::claude_code::claude_form;
use super::{Answer, Protocol, Verdict, hook_event_name, joined};

/// Codex's side of the protocol. Its events with a point are Claude Code's, named alike.
pub(crate) const PROTOCOL: Protocol = Protocol {
    point_of,
    event_of: hook_event_name,
    normalize,
    answer,
};

/// Claude Code's events with a point, `SubagentStart` and `Interrupt`, as the Codex dialect
/// maps them.
fn point_of(event: &str) -> Option<&'static str> {
    match event {
        "SubagentStart" => Some("session_start"),
        "Interrupt" => Some("turn_end"),
        _ => super::claude_code::point_of(event),
    }
}

/// The payload with Codex's shell tools named as the guards name the shell tool: the Codex
/// dialect's own table ([`payload_from_agent`]), the one its hosted hooks are fired with.
fn normalize(event: &str, payload: &Map<String, Value>) -> Map<String, Value> {
    payload_from_agent(Dialect::Codex, event, payload)
}

/// Codex's answer: Claude Code's forms, with only the fields Codex supports; and on
/// `PostToolUse` a rewritten result as `hookSpecificOutput.updatedToolOutput`, which Codex
/// has and Claude Code has not.
fn answer(event: &str, point: &str, verdict: Verdict) -> Answer {
    match (point, verdict) {
        ("transform_tool_result", Verdict::Rewrite { value, context }) => {
            let mut specific = Map::new();
            specific.insert("hookEventName".to_owned(), Value::from(event));
            specific.insert(
                "updatedToolOutput".to_owned(),
                value.get("tool_response").cloned().unwrap_or(Value::Null),
            );
            if let Some(text) = joined(&context) {
                specific.insert("additionalContext".to_owned(), Value::from(text));
            }
            Answer::json(&json!({ "hookSpecificOutput": specific }))
        }
        (_, verdict) => claude_form(event, point, verdict),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codex's output schemas (`openai/codex`, `codex-rs/hooks/schema/generated/
    /// post-tool-use.command.output.schema.json`, `stop.command.output.schema.json`): a new
    /// result is `updatedToolOutput`; Stop blocks with `decision: "block"` and a `reason`.
    #[test]
    fn post_tool_use_rewrites_and_stop_blocks() {
        let rewrite = Verdict::Rewrite {
            value: json!({"tool_name": "Bash", "tool_input": {}, "tool_response": "[redacted]"}),
            context: vec![],
        };
        let post = answer("PostToolUse", "transform_tool_result", rewrite);
        assert_eq!(
            serde_json::from_str::<Value>(&post.stdout).ok(),
            Some(json!({"hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "updatedToolOutput": "[redacted]",
            }}))
        );
        let block = Verdict::Block {
            reason: "tests fail".to_owned(),
        };
        let stop = answer("Stop", "on_stop", block);
        assert_eq!(
            serde_json::from_str::<Value>(&stop.stdout).ok(),
            Some(json!({"decision": "block", "reason": "tests fail"}))
        );
    }
}
