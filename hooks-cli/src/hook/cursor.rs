//! Cursor as the agent (<https://cursor.com/docs/agent/hooks>): `hook_event_name`,
//! `conversation_id` (the session), `generation_id` and `workspace_roots` (the first is the
//! directory) in every payload; each "before" event carries its own fields.
//!
//! Events with a point: `beforeShellExecution` (`command`: a call of `Bash`),
//! `beforeMCPExecution` (`tool_name`, `tool_input`: a call of that tool), `beforeReadFile`
//! (`file_path`: a call of `Read`), `preToolUse` (`tool_name`, `tool_input`; `Shell` is
//! `Bash`) — all `intercept_tool_call`; `afterShellExecution`, `afterMCPExecution`,
//! `afterFileEdit`, `postToolUse` (`after_tool_call`); `beforeSubmitPrompt`
//! (`transform_user_input`); `stop` (`on_stop`); `sessionStart`, `sessionEnd`, `preCompact`.
//!
//! Answers, exit 0 with JSON on stdout:
//!
//! | event | block | allow | rewrite | context |
//! |---|---|---|---|---|
//! | `beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`, `preToolUse` | `permission: "deny"` + `user_message` + `agent_message` (the reason) | `permission: "allow"` | `preToolUse` only: `updated_input` with `permission: "allow"`; elsewhere refused (Cursor cannot take the new command, and running the old one would undo the hook) | — |
//! | `beforeSubmitPrompt` | `continue: false` + `user_message` | `continue: true` | — | — |
//! | `stop` | `followup_message` (the agent goes on with it) | `{}` | — | — |
//! | `sessionStart` | — | `{}` | — | `additional_context` |
//!
//! Every other event is answered `{}`.

use serde_json::{Map, Value, json};

use super::{Answer, Protocol, Verdict, copy, hook_event_name, joined};

/// Cursor's side of the protocol.
pub(crate) const PROTOCOL: Protocol = Protocol {
    point_of,
    event_of: hook_event_name,
    normalize,
    answer,
};

/// Cursor's events with a point.
fn point_of(event: &str) -> Option<&'static str> {
    match event {
        "beforeShellExecution" | "beforeMCPExecution" | "beforeReadFile" | "preToolUse" => {
            Some("intercept_tool_call")
        }
        "afterShellExecution" | "afterMCPExecution" | "afterFileEdit" | "postToolUse" => {
            Some("after_tool_call")
        }
        "beforeSubmitPrompt" => Some("transform_user_input"),
        "stop" => Some("on_stop"),
        "sessionStart" => Some("session_start"),
        "sessionEnd" => Some("session_end"),
        "preCompact" => Some("before_compaction"),
        _ => None,
    }
}

/// Cursor's tool input: an object, or the JSON text of one (its MCP events send a string).
fn tool_input(payload: &Map<String, Value>) -> Value {
    match payload.get("tool_input") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or_else(|_| json!({})),
        Some(value) => value.clone(),
        None => json!({}),
    }
}

/// The payload in the wire's fields.
fn normalize(event: &str, payload: &Map<String, Value>) -> Map<String, Value> {
    let mut wire = Map::new();
    if let Some(session) = payload.get("conversation_id") {
        wire.insert("session_id".to_owned(), session.clone());
    }
    if let Some(dir) = super::working_dir(payload) {
        wire.insert("cwd".to_owned(), Value::from(dir.display().to_string()));
    }
    copy(payload, &mut wire, &["prompt", "tool_use_id"]);
    let call = |name: &str, input: Value| (Value::from(name), input);
    let tool = match event {
        "beforeShellExecution" | "afterShellExecution" => Some(call(
            "Bash",
            json!({"command": payload.get("command").cloned().unwrap_or_default()}),
        )),
        "beforeReadFile" => Some(call(
            "Read",
            json!({"file_path": payload.get("file_path").cloned().unwrap_or_default()}),
        )),
        "afterFileEdit" => Some(call(
            "Edit",
            json!({"file_path": payload.get("file_path").cloned().unwrap_or_default()}),
        )),
        _ => payload
            .get("tool_name")
            .and_then(Value::as_str)
            .map(|name| {
                call(
                    if name == "Shell" { "Bash" } else { name },
                    tool_input(payload),
                )
            }),
    };
    if let Some((name, input)) = tool {
        wire.insert("tool_name".to_owned(), name);
        wire.insert("tool_input".to_owned(), input);
    }
    if let Some(output) = payload.get("output").or_else(|| payload.get("tool_output")) {
        wire.insert("tool_response".to_owned(), output.clone());
    }
    wire
}

/// Cursor's answer (see the table above).
fn answer(event: &str, point: &str, verdict: Verdict) -> Answer {
    match (point, verdict) {
        ("intercept_tool_call", Verdict::Block { reason }) => Answer::json(&json!({
            "permission": "deny",
            "user_message": reason,
            "agent_message": reason,
        })),
        ("intercept_tool_call", Verdict::Rewrite { value, .. }) if event == "preToolUse" => {
            Answer::json(&json!({"permission": "allow", "updated_input": value}))
        }
        ("intercept_tool_call", Verdict::Rewrite { .. }) => {
            let reason = format!(
                "hookchain: a hook rewrote this call, and Cursor cannot take a rewrite on \
                 {event}: refused rather than run unchanged"
            );
            Answer::json(&json!({
                "permission": "deny",
                "user_message": reason,
                "agent_message": reason,
            }))
        }
        ("intercept_tool_call", Verdict::Pass { .. }) => {
            Answer::json(&json!({"permission": "allow"}))
        }
        ("transform_user_input", Verdict::Block { reason }) => {
            Answer::json(&json!({"continue": false, "user_message": reason}))
        }
        ("transform_user_input", _) => Answer::json(&json!({"continue": true})),
        ("on_stop", Verdict::Block { reason }) => {
            Answer::json(&json!({"followup_message": reason}))
        }
        ("session_start", Verdict::Pass { context } | Verdict::Rewrite { context, .. }) => {
            match joined(&context) {
                Some(text) => Answer::json(&json!({"additional_context": text})),
                None => Answer::json(&json!({})),
            }
        }
        (_, Verdict::Block { reason }) => Answer::json(&json!({})).say(&format!(
            "a hook blocked {event}, which the agent cannot block: {reason}"
        )),
        _ => Answer::json(&json!({})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdout(answer: &Answer) -> Value {
        serde_json::from_str(&answer.stdout).unwrap_or(Value::Null)
    }

    /// https://cursor.com/docs/agent/hooks: "stop" (`followup_message`), "preToolUse"
    /// (`updated_input`), "sessionStart" (`additional_context`).
    #[test]
    fn the_other_events_answer_in_their_documented_forms() {
        let stop = answer(
            "stop",
            "on_stop",
            Verdict::Block {
                reason: "tests fail".to_owned(),
            },
        );
        assert_eq!(stdout(&stop), json!({"followup_message": "tests fail"}));
        let rewrite = answer(
            "preToolUse",
            "intercept_tool_call",
            Verdict::Rewrite {
                value: json!({"command": "ls"}),
                context: vec![],
            },
        );
        assert_eq!(
            stdout(&rewrite),
            json!({"permission": "allow", "updated_input": {"command": "ls"}})
        );
        let start = answer(
            "sessionStart",
            "session_start",
            Verdict::Pass {
                context: vec!["branch: dev".to_owned()],
            },
        );
        assert_eq!(stdout(&start), json!({"additional_context": "branch: dev"}));
    }

    #[test]
    fn a_read_and_an_mcp_call_are_tool_calls() {
        let Value::Object(read) = json!({"file_path": ".env", "conversation_id": "c"}) else {
            unreachable!()
        };
        let wire = normalize("beforeReadFile", &read);
        assert_eq!(
            (&wire["tool_name"], &wire["tool_input"], &wire["session_id"]),
            (&json!("Read"), &json!({"file_path": ".env"}), &json!("c"))
        );
        let Value::Object(mcp) = json!({"tool_name": "db_query", "tool_input": "{\"q\":1}"}) else {
            unreachable!()
        };
        let wire = normalize("beforeMCPExecution", &mcp);
        assert_eq!(wire["tool_input"], json!({"q": 1}));
    }
}
