//! Cursor as the agent (<https://cursor.com/docs/agent/hooks>): `hook_event_name`,
//! `conversation_id` (the session), `generation_id` and `workspace_roots` (the first is the
//! directory) in every payload; each "before" event carries its own fields.
//!
//! Events with a point: the Cursor dialect's table (`hookchain_config::cursor`): the four
//! before-tool events (`preToolUse`, `beforeShellExecution`, `beforeMCPExecution`,
//! `beforeReadFile`) are `intercept_tool_call`, `postToolUse` `transform_tool_result`, the
//! after-events `after_tool_call`, `beforeSubmitPrompt` `transform_user_input`, `stop`
//! `on_stop`, and so on. The payload is read by the Cursor overlay
//! (`hookchain_external::wire::agents`), the table the dialect writes Cursor's payloads with:
//! `command` is a call of `Bash`, `file_path` a call of `Read` (or, after an edit, of `Edit`),
//! an MCP tool's `tool_input` the JSON text of its arguments.
//!
//! Answers, exit 0 with JSON on stdout:
//!
//! | event | block | allow | rewrite | context |
//! |---|---|---|---|---|
//! | `beforeShellExecution`, `beforeMCPExecution`, `preToolUse` | `permission: "deny"` + `user_message` + `agent_message` (the reason) | `permission: "allow"` | `preToolUse` only: `updated_input` with `permission: "allow"`; elsewhere refused (Cursor cannot take the new command, and running the old one would undo the hook) | — |
//! | `beforeReadFile` | `permission: "deny"` (the reason on stderr: this event reads nothing else) | `permission: "allow"` | refused, as above | — |
//! | `beforeSubmitPrompt` | `continue: false` + `user_message` | `continue: true` | — | — |
//! | `stop` | `followup_message` (the agent goes on with it) | `{}` | — | — |
//! | `sessionStart` | — | `{}` | — | `additional_context` |
//! | `subagentStart` | `permission: "deny"` + both messages (secondary) | `{}` | — | `additional_context` |
//! | `postToolUse` | — (the tool ran: said on stderr) | `{}` | — (said on stderr) | `additional_context` (secondary) |
//!
//! Every other event is answered `{}`.

use serde_json::{Map, Value, json};

use hookchain_core::Dialect;
use hookchain_external::wire::agents::payload_from_agent;

use super::{Answer, Protocol, Verdict, hook_event_name, joined};

/// Cursor's side of the protocol.
pub(crate) const PROTOCOL: Protocol = Protocol {
    point_of,
    event_of: hook_event_name,
    normalize,
    answer,
};

/// Cursor's events with a point: the Cursor dialect's table
/// ([`hookchain_config::cursor::EVENTS`]), so an event means the same point both ways.
fn point_of(event: &str) -> Option<&'static str> {
    hookchain_config::cursor::EVENTS
        .iter()
        .find(|(name, _)| *name == event)
        .and_then(|(_, point)| *point)
}

/// The payload in the wire's fields: the Cursor overlay's reading of it
/// ([`payload_from_agent`]), the same table the Cursor dialect writes payloads with — the
/// session from `conversation_id`, the directory from `workspace_roots`, Cursor's tools by
/// the names the guards know (`Shell` is `Bash`), each before-event's own fields as a tool
/// call (`command` of `Bash`, `file_path` of `Read`, an MCP tool's JSON text as its input).
fn normalize(event: &str, payload: &Map<String, Value>) -> Map<String, Value> {
    payload_from_agent(Dialect::Cursor, event, payload)
}

/// Cursor's answer (see the table above).
fn answer(event: &str, point: &str, verdict: Verdict) -> Answer {
    match (point, verdict) {
        // `beforeReadFile` reads `permission` alone: the reason is said on stderr.
        ("intercept_tool_call", Verdict::Block { reason }) if event == "beforeReadFile" => {
            Answer::json(&json!({"permission": "deny"})).say(&reason)
        }
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
        // `subagentStart` reads `permission` (secondary): a block keeps the child from starting.
        ("session_start", Verdict::Block { reason }) if event == "subagentStart" => {
            Answer::json(&json!({
                "permission": "deny",
                "user_message": reason,
                "agent_message": reason,
            }))
        }
        // `postToolUse` takes `additional_context` (secondary), as the Cursor dialect reads it.
        ("transform_tool_result", Verdict::Pass { context } | Verdict::Rewrite { context, .. })
            if event == "postToolUse" && !context.is_empty() =>
        {
            Answer::json(&json!({"additional_context": context.join("\n")}))
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

    /// The Cursor dialect reads these forms as a host: `permission` on `subagentStart`,
    /// `additional_context` on `postToolUse`.
    #[test]
    fn a_child_and_a_tool_result_answer_in_the_forms_the_host_reads() {
        let child = answer(
            "subagentStart",
            "session_start",
            Verdict::Block {
                reason: "no children".to_owned(),
            },
        );
        assert_eq!(stdout(&child)["permission"], "deny");
        let result = answer(
            "postToolUse",
            "transform_tool_result",
            Verdict::Pass {
                context: vec!["lint: 2 warnings".to_owned()],
            },
        );
        assert_eq!(
            stdout(&result),
            json!({"additional_context": "lint: 2 warnings"})
        );
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
