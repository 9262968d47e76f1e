//! Gemini CLI as the agent (<https://geminicli.com/docs/hooks/reference/>): `hook_event_name`,
//! `session_id`, `cwd`, `transcript_path` in every payload, its own event names and its own
//! tool names.
//!
//! Events with a point: `BeforeTool` (`intercept_tool_call`), `AfterTool`
//! (`transform_tool_result`), `BeforeAgent` (`transform_user_input`: `prompt`), `AfterAgent`
//! (`on_stop`: `prompt_response` is the reply), `SessionStart`, `SessionEnd`, `PreCompress`
//! (`before_compaction`), `Notification`, `BeforeModel` (`before_llm_call`), `AfterModel`
//! (`after_llm_call`). `BeforeToolSelection` has none (an unknown event: fail open).
//!
//! Tools, as the guards name them (the Gemini dialect's table, shared with the host side):
//! `run_shell_command` → `Bash` (its `command` is the command line), `write_file` → `Write`,
//! `replace` → `Edit`, `read_file` → `Read`, `glob` → `Glob`, `search_file_content` and
//! `grep_search` → `Grep`, `list_directory` → `LS`, `web_fetch` → `WebFetch`,
//! `google_web_search` → `WebSearch`, `write_todos` → `TodoWrite`; the argument keys (`command`, `file_path`, `content`, `old_string`,
//! `new_string`) are the same on both sides.
//!
//! Answers, exit 0 with JSON on stdout:
//!
//! | event | block | rewrite | context |
//! |---|---|---|---|
//! | `BeforeTool` | `decision: "deny"` + `reason` (the reason goes to the model) | `hookSpecificOutput.tool_input` (merged over the call's arguments) | none: said on stderr |
//! | `BeforeAgent` | `decision: "deny"` + `reason` | none: said on stderr | `hookSpecificOutput.additionalContext` |
//! | `AfterTool` | `decision: "deny"` + `reason` (replaces the result the model sees) | none | `hookSpecificOutput.additionalContext` |
//! | `AfterAgent` | `decision: "deny"` + `reason` (the agent retries, the reason its prompt) | — | — |
//! | `SessionStart` | — | — | `hookSpecificOutput.additionalContext` |
//! | `BeforeModel`, `PreCompress` | `decision: "deny"` + `reason` | — | — |
//!
//! A pass with nothing to add is exit 0 and `{}`: Gemini CLI parses stdout as JSON on exit 0,
//! and an empty object is its documented "success, nothing to change"; a `decision: "allow"`
//! is never sent, since hookchain did not approve the call.

use hookchain_core::Dialect;
use hookchain_external::wire::agents::payload_from_agent;
use serde_json::{Map, Value, json};

use super::{Answer, Protocol, Verdict, hook_event_name, joined};

/// Gemini CLI's side of the protocol.
pub(crate) const PROTOCOL: Protocol = Protocol {
    point_of,
    event_of: hook_event_name,
    normalize,
    answer,
};

/// Gemini's events with a point.
fn point_of(event: &str) -> Option<&'static str> {
    match event {
        "BeforeTool" => Some("intercept_tool_call"),
        "AfterTool" => Some("transform_tool_result"),
        "BeforeAgent" => Some("transform_user_input"),
        "AfterAgent" => Some("on_stop"),
        "SessionStart" => Some("session_start"),
        "SessionEnd" => Some("session_end"),
        "PreCompress" => Some("before_compaction"),
        "Notification" => Some("notification"),
        "BeforeModel" => Some("before_llm_call"),
        "AfterModel" => Some("after_llm_call"),
        _ => None,
    }
}

/// The payload in the wire's form, by the Gemini dialect's own tables
/// ([`payload_from_agent`]): its tools under the guards' names, its reply under the wire's
/// name, an `AfterTool` result as its text.
fn normalize(event: &str, payload: &Map<String, Value>) -> Map<String, Value> {
    payload_from_agent(Dialect::Gemini, event, payload)
}

/// Gemini's answer (see the table above).
fn answer(event: &str, point: &str, verdict: Verdict) -> Answer {
    let specific = |key: &str, value: Value| {
        let mut fields = Map::new();
        fields.insert("hookEventName".to_owned(), Value::from(event));
        fields.insert(key.to_owned(), value);
        json!({ "hookSpecificOutput": fields })
    };
    match (point, verdict) {
        (
            "intercept_tool_call"
            | "transform_user_input"
            | "transform_tool_result"
            | "on_stop"
            | "before_llm_call"
            | "before_compaction",
            Verdict::Block { reason },
        ) => Answer::json(&json!({"decision": "deny", "reason": reason})),
        ("intercept_tool_call", Verdict::Rewrite { value, context }) => {
            let answer = Answer::json(&specific("tool_input", value));
            match joined(&context) {
                Some(_) => answer.say(&format!(
                    "the hooks' context has no place in an answer to {event}: left out"
                )),
                None => answer,
            }
        }
        (
            "transform_user_input" | "transform_tool_result" | "session_start",
            Verdict::Pass { context } | Verdict::Rewrite { context, .. },
        ) if !context.is_empty() => Answer::json(&specific(
            "additionalContext",
            Value::from(context.join("\n")),
        )),
        ("intercept_tool_call", Verdict::Pass { context }) if !context.is_empty() => {
            Answer::json(&json!({})).say(&format!(
                "the hooks' context has no place in an answer to {event}: left out"
            ))
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

    /// https://geminicli.com/docs/hooks/reference/: "AfterAgent" (`decision: "deny"` retries
    /// with the reason), "AfterTool" and "SessionStart" (`hookSpecificOutput.additionalContext`).
    #[test]
    fn the_other_events_answer_in_their_documented_forms() {
        let reason = || Verdict::Block {
            reason: "tests fail".to_owned(),
        };
        let after = answer("AfterAgent", "on_stop", reason());
        assert_eq!(
            stdout(&after),
            json!({"decision": "deny", "reason": "tests fail"})
        );
        let context = Verdict::Pass {
            context: vec!["a".to_owned(), "b".to_owned()],
        };
        let tool = answer("AfterTool", "transform_tool_result", context.clone());
        assert_eq!(
            stdout(&tool),
            json!({"hookSpecificOutput": {
                "hookEventName": "AfterTool",
                "additionalContext": "a\nb",
            }})
        );
        let start = answer("SessionStart", "session_start", context);
        assert_eq!(
            stdout(&start)["hookSpecificOutput"]["hookEventName"],
            "SessionStart"
        );
        let pass = answer("AfterAgent", "on_stop", Verdict::Pass { context: vec![] });
        assert_eq!((pass.code, stdout(&pass)), (0, json!({})));
    }

    #[test]
    fn the_reply_is_read_under_the_wire_name() {
        let Value::Object(payload) = json!({"prompt_response": "done", "tool_name": "glob"}) else {
            unreachable!()
        };
        let wire = normalize("AfterAgent", &payload);
        assert_eq!(wire["last_assistant_message"], "done");
        assert_eq!(wire["tool_name"], "Glob");
    }
}
