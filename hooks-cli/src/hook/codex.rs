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
//! level), which is exactly what [`claude_form`] writes; no `systemMessage`, no
//! `permissionDecision: "allow"` and no `suppressOutput` are ever sent. A pass with nothing to
//! add is exit 0 and no output.
//!
//! Codex's events with a point: `SessionStart`, `PreToolUse`, `PermissionRequest`,
//! `PostToolUse`, `UserPromptSubmit`, `Stop`, `SubagentStop`, `PreCompact`, `PostCompact`,
//! `SessionEnd`, `Notification`. Others (`Interrupt`) are unknown events (fail open).

use serde_json::{Map, Value};

use super::claude_code::claude_form;
use super::{Answer, Protocol, Verdict, hook_event_name};

/// Codex's side of the protocol.
pub(crate) const PROTOCOL: Protocol = Protocol {
    point_of,
    event_of: hook_event_name,
    normalize,
    answer,
};

/// Codex's events with a point.
fn point_of(event: &str) -> Option<&'static str> {
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

/// The payload with Codex's shell tools named as the guards name the shell tool.
fn normalize(_event: &str, payload: &Map<String, Value>) -> Map<String, Value> {
    let mut wire = payload.clone();
    if let Some(Value::String(tool)) = wire.get("tool_name")
        && matches!(
            tool.as_str(),
            "exec_command" | "shell" | "shell_command" | "local_shell"
        )
    {
        wire.insert("tool_name".to_owned(), Value::from("Bash"));
    }
    wire
}

/// Codex's answer: Claude Code's forms, with only the fields Codex supports.
fn answer(event: &str, point: &str, verdict: Verdict) -> Answer {
    claude_form(event, point, verdict)
}
