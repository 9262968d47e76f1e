//! GitHub Copilot CLI and cloud agent as the agent
//! (<https://docs.github.com/en/copilot/reference/hooks-configuration>): camelCase payloads
//! with no event name — `timestamp`, `cwd`, and per event `toolName` + `toolArgs` (the
//! arguments as JSON text) for `preToolUse`, with `toolResult` for `postToolUse`, `prompt`
//! for `userPromptSubmitted`, `stopReason` for `agentStop`, `source`/`initialPrompt` for
//! `sessionStart`, `reason` for `sessionEnd`, `error` for `errorOccurred` — so the event is
//! read from the fields when EVENT does not name it.
//!
//! Tools and payload fields are read with the table the Copilot dialect fires hooks with
//! ([`payload_from_agent`], one table both ways): `bash` → `Bash` (its `command` is the command
//! line), `edit` → `Edit`, `create` → `Write`, `view` → `Read`, `glob`, `grep`, `web_fetch`,
//! `task`, `ask_user`; `toolArgs` as JSON text or an object. `powershell` keeps its name: its
//! command is PowerShell, which the guards' bash reading does not judge.
//!
//! Answers, exit 0 with JSON on stdout: `preToolUse` blocks with `permissionDecision: "deny"`
//! and `permissionDecisionReason`, rewrites with `modifiedArgs` (the tool's new arguments);
//! `permissionRequest` (given as EVENT) refuses with `behavior: "deny"` + `message`;
//! `agentStop` and `subagentStop` block with `decision: "block"` + `reason` (the agent goes
//! on); context is `additionalContext` on `subagentStart` and `notification`, and exit 2 with
//! the text on stderr on `postToolUseFailure` (recovery guidance). Copilot ignores the output
//! of its other events: a block there is said on stderr. A pass is exit 0 and no output.

use hookchain_core::Dialect;
use hookchain_external::wire::agents::payload_from_agent;
use serde_json::{Map, Value, json};

use super::{Answer, Protocol, Verdict, copy};

/// Copilot's side of the protocol.
pub(crate) const PROTOCOL: Protocol = Protocol {
    point_of,
    event_of,
    normalize,
    answer,
};

/// Copilot's events with a point.
fn point_of(event: &str) -> Option<&'static str> {
    match event {
        "preToolUse" => Some("intercept_tool_call"),
        "permissionRequest" => Some("permission_request"),
        "postToolUse" => Some("after_tool_call"),
        "postToolUseFailure" => Some("after_tool_call"),
        "subagentStart" => Some("session_start"),
        "preCompact" => Some("before_compaction"),
        "notification" => Some("notification"),
        "userPromptSubmitted" => Some("transform_user_input"),
        "agentStop" => Some("on_stop"),
        "subagentStop" => Some("subagent_stop"),
        "sessionStart" => Some("session_start"),
        "sessionEnd" => Some("session_end"),
        "errorOccurred" => Some("notification"),
        _ => None,
    }
}

/// The event the payload's fields say (Copilot sends no event name).
fn event_of(payload: &Map<String, Value>) -> Option<String> {
    let has = |key: &str| payload.contains_key(key);
    let event = if let Some(Value::String(name)) = payload.get("hookEventName") {
        return Some(name.clone());
    } else if has("toolName") && has("toolResult") {
        "postToolUse"
    } else if has("toolName") && has("error") {
        "postToolUseFailure"
    } else if has("toolName") {
        "preToolUse"
    } else if has("errorContext") {
        "errorOccurred"
    } else if has("notification_type") {
        "notification"
    } else if has("agentName") && has("stopReason") {
        "subagentStop"
    } else if has("agentName") {
        "subagentStart"
    } else if has("stopReason") {
        "agentStop"
    } else if has("trigger") && has("customInstructions") {
        "preCompact"
    } else if has("prompt") {
        "userPromptSubmitted"
    } else if has("error") {
        "errorOccurred"
    } else if has("source") || has("initialPrompt") {
        "sessionStart"
    } else if has("reason") {
        "sessionEnd"
    } else {
        return None;
    };
    Some(event.to_owned())
}

/// The payload in the wire's fields, read with the Copilot dialect's table
/// ([`payload_from_agent`]); arguments that are not JSON are no arguments.
fn normalize(event: &str, payload: &Map<String, Value>) -> Map<String, Value> {
    let claude = payload_from_agent(Dialect::Copilot, event, payload);
    let mut wire = Map::new();
    copy(
        &claude,
        &mut wire,
        &[
            "cwd",
            "prompt",
            "source",
            "reason",
            "tool_name",
            "tool_response",
        ],
    );
    let session = claude
        .get("session_id")
        .cloned()
        .unwrap_or_else(|| Value::from("copilot"));
    wire.insert("session_id".to_owned(), session);
    if wire.contains_key("tool_name") {
        let args = match claude.get("tool_input") {
            Some(Value::String(_)) | None => json!({}),
            Some(args) => args.clone(),
        };
        wire.insert("tool_input".to_owned(), args);
    }
    wire
}

/// Copilot's answer (see the module docs).
fn answer(event: &str, point: &str, verdict: Verdict) -> Answer {
    match (point, verdict) {
        ("intercept_tool_call", Verdict::Block { reason }) => Answer::json(&json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        })),
        ("intercept_tool_call", Verdict::Rewrite { value, .. }) => {
            Answer::json(&json!({"modifiedArgs": value}))
        }
        ("permission_request", Verdict::Block { reason }) => {
            Answer::json(&json!({"behavior": "deny", "message": reason}))
        }
        ("on_stop" | "subagent_stop", Verdict::Block { reason }) => {
            Answer::json(&json!({"decision": "block", "reason": reason}))
        }
        // Context where the CLI hooks reference gives it a form: `additionalContext` on
        // `subagentStart` (prepended to the child's prompt) and `notification` (a user
        // message); exit 2 with the text on stderr on `postToolUseFailure` (recovery guidance).
        // `session_start` injects: its new value carries the child's context.
        ("session_start", Verdict::Rewrite { value, context }) if event == "subagentStart" => {
            let mut lines: Vec<String> = value
                .get("context")
                .and_then(Value::as_array)
                .map(|lines| {
                    lines
                        .iter()
                        .filter_map(|line| line.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            lines.extend(context);
            if lines.is_empty() {
                Answer::silent()
            } else {
                Answer::json(&json!({"additionalContext": lines.join("\n")}))
            }
        }
        (_, Verdict::Pass { context })
            if !context.is_empty() && matches!(event, "subagentStart" | "notification") =>
        {
            Answer::json(&json!({"additionalContext": context.join("\n")}))
        }
        (_, Verdict::Pass { context }) if !context.is_empty() && event == "postToolUseFailure" => {
            Answer {
                stderr: format!("{}\n", context.join("\n")),
                code: 2,
                ..Answer::default()
            }
        }
        (_, Verdict::Block { reason }) => Answer::silent().say(&format!(
            "a hook blocked {event}, whose answer Copilot does not read: {reason}"
        )),
        (_, Verdict::Rewrite { .. }) => Answer::silent().say(&format!(
            "a hook rewrote the value of {event}, whose answer Copilot does not read"
        )),
        _ => Answer::silent(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(payload: Value) -> Option<String> {
        let Value::Object(map) = payload else {
            return None;
        };
        event_of(&map)
    }

    #[test]
    fn the_event_is_read_from_the_fields() {
        let pre = json!({"toolName": "bash", "toolArgs": "{\"command\":\"ls\"}"});
        assert_eq!(event(pre).as_deref(), Some("preToolUse"));
        let post = json!({"toolName": "bash", "toolArgs": "{}", "toolResult": {}});
        assert_eq!(event(post).as_deref(), Some("postToolUse"));
        assert_eq!(
            event(json!({"prompt": "hi"})).as_deref(),
            Some("userPromptSubmitted")
        );
        assert_eq!(
            event(json!({"stopReason": "end_turn"})).as_deref(),
            Some("agentStop")
        );
        assert_eq!(event(json!({"timestamp": 1})), None);
        let failed = json!({"toolName": "view", "toolArgs": {}, "error": "ENOENT"});
        assert_eq!(event(failed).as_deref(), Some("postToolUseFailure"));
        let error = json!({"error": {"message": "x"}, "errorContext": "model_call"});
        assert_eq!(event(error).as_deref(), Some("errorOccurred"));
        let child = json!({"agentName": "explore", "transcriptPath": "t"});
        assert_eq!(event(child).as_deref(), Some("subagentStart"));
        let child_end = json!({"agentName": "explore", "stopReason": "end_turn"});
        assert_eq!(event(child_end).as_deref(), Some("subagentStop"));
        let compact = json!({"trigger": "auto", "customInstructions": ""});
        assert_eq!(event(compact).as_deref(), Some("preCompact"));
        let note = json!({"hook_event_name": "Notification", "notification_type": "agent_idle"});
        assert_eq!(event(note).as_deref(), Some("notification"));
    }
}
