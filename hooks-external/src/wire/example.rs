//! Example values of the points, and a hook's payload read back as a point's value: what a
//! command line fires a chain with when it tries hooks (`hookchain test`, `hookchain doctor`).
//!
//! [`example_value`] is a value of each point as JSON its value type reads. [`value_from_payload`]
//! goes the other way from [`payload_in`](super::payload_in): it takes a payload a hook was sent
//! (or would be sent) — in hookchain's own protocol or in another agent's dialect — and puts it in
//! the shape of the point's value, reading each dialect's names for the value's fields from
//! [`tables`](super::tables) ("Payloads read back as values").

use hookchain_core::Dialect;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::WirePoint;
use super::tables::{extra_field, renamed_value_fields};

/// The session of [`example_value`]'s values that name one (`session_start`, `session_end`, …).
pub const EXAMPLE_SESSION_ID: &str = "hookchain-test";

/// The tool of [`example_value`]'s calls where none is named.
pub const EXAMPLE_TOOL: &str = "Bash";

/// A value of the point named `point` (its canonical name), as JSON its value type reads: a
/// short conversation, a call of `tool` with `{}` args on tool points, a warning for
/// `notification` (and for a name that is no built-in point).
///
/// ```
/// use hookchain_external::wire::example_value;
/// use serde_json::json;
///
/// assert_eq!(
///     example_value("intercept_tool_call", "Write"),
///     json!({"name": "Write", "args": {}})
/// );
/// assert_eq!(example_value("transform_user_input", "Bash"), json!("Hello"));
/// ```
pub fn example_value(point: &str, tool: &str) -> Value {
    let session = EXAMPLE_SESSION_ID;
    let conversation = json!([
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hello! How can I help?"},
    ]);
    match point {
        "session_start" => json!({"session_id": session, "source": "startup", "context": []}),
        "session_end" => json!({"session_id": session, "reason": "exit"}),
        "session_reset" => {
            json!({"old_session_id": session, "new_session_id": format!("{session}-2")})
        }
        "transform_user_input" => json!("Hello"),
        "turn_start" => json!({"prompt": "Hello", "context": []}),
        "before_llm_call" => json!({
            "system_prompt": "You are a helpful assistant.",
            "messages": [{"role": "user", "content": "Hello"}],
        }),
        "after_llm_call" => json!({"text": "Hello! How can I help?", "tool_calls": []}),
        "intercept_tool_call" => json!({"name": tool, "args": {}}),
        "permission_request" => json!({"tool_name": tool, "tool_input": {}}),
        "after_tool_batch" => json!({"results": [{
            "tool_name": tool,
            "tool_input": {},
            "tool_response": "",
            "is_error": false,
        }]}),
        "transform_tool_result" | "after_tool_call" => json!({
            "tool_name": tool,
            "tool_input": {},
            "tool_response": "",
            "is_error": false,
        }),
        "transform_response" => json!("Hello! How can I help?"),
        "on_stop" => json!({"response": "Done.", "stop_hook_active": false, "redos": 0}),
        "before_compaction" => json!({"messages": conversation, "trigger": "manual"}),
        "after_compaction" => json!({
            "summary": "The user said hello.",
            "messages_before": 2,
            "messages_after": 1,
        }),
        "subagent_stop" => json!({
            "session_id": format!("{session}-child"),
            "parent_session_id": session,
            "reason": "done",
        }),
        "outbound_message" => {
            json!({"platform": "slack", "recipient": "#general", "text": "Hello!"})
        }
        "slash_command" => json!({"name": "help", "args": ""}),
        "turn_end" => json!({"session_id": session, "turn": 0, "reason": {"reason": "normal"}}),
        _ => json!({"level": "warning", "message": "a test notification from hookchain"}),
    }
}

/// `payload` — a value of point `P`, or a payload of one of its events in one of `dialects` —
/// read as JSON `P`'s value type reads:
///
/// - On tool points, the wire form (`tool_name`, `tool_input`, `tool_use_id`) is put in the
///   value's shape (`intercept_tool_call`: `name`, `args`, `id`; the others get `{}` input and an
///   empty response when the payload has none), and `tool`, when given, names the tool. A payload
///   that names no tool is left as it is: there is no tool to make up.
/// - On `transform_user_input`, `{"prompt": …}` is the prompt.
/// - On the other points, a payload `P`'s value type reads is taken as it is. Any other object
///   fills in [`example_value`]: each of its fields the payload has — under its own name or, in
///   one of `dialects`, under that dialect's name for it (Claude Code's `last_assistant_message`
///   for `on_stop`'s `response`, …), at the top level or in Hermes' `extra` — is the payload's;
///   the others are the example's (its tool `tool`, else [`EXAMPLE_TOOL`]); the payload's fields the value has no place for are left
///   out.
///
/// Pass [`Dialect::ALL`] for a payload from an agent not known in advance.
///
/// ```
/// use hookchain_core::{Dialect, points::OnStop};
/// use hookchain_external::wire::value_from_payload;
/// use serde_json::json;
///
/// // A Claude Code `Stop` payload.
/// let payload = json!({
///     "hook_event_name": "Stop",
///     "stop_hook_active": true,
///     "last_assistant_message": "All done.",
/// });
/// assert_eq!(
///     value_from_payload::<OnStop>(&[Dialect::ClaudeCode], payload, None),
///     json!({"response": "All done.", "stop_hook_active": true, "redos": 0})
/// );
/// ```
pub fn value_from_payload<P>(dialects: &[Dialect], payload: Value, tool: Option<&str>) -> Value
where
    P: WirePoint,
    P::Value: DeserializeOwned,
{
    match P::NAME {
        "turn_end" => value_from_payload_inner::<P>(dialects, turn_end(payload), tool),
        _ => value_from_payload_inner::<P>(dialects, payload, tool),
    }
}

/// [`value_from_payload`], once a `turn_end` payload's reason is in the value's form.
fn value_from_payload_inner<P>(dialects: &[Dialect], payload: Value, tool: Option<&str>) -> Value
where
    P: WirePoint,
    P::Value: DeserializeOwned,
{
    match P::NAME {
        "intercept_tool_call" => tool_call(payload, tool),
        "transform_tool_result" | "after_tool_call" | "permission_request" => {
            tool_result(payload, tool)
        }
        "transform_user_input" => match &payload {
            Value::Object(object) => match object.get("prompt") {
                Some(Value::String(prompt)) => Value::from(prompt.as_str()),
                _ => payload,
            },
            _ => payload,
        },
        point if serde_json::from_value::<P::Value>(payload.clone()).is_err() => {
            let example = example_value(point, tool.unwrap_or(EXAMPLE_TOOL));
            fill_in(dialects, point, example, &payload)
        }
        _ => payload,
    }
}

/// A `turn_end` payload's `reason` (and `detail`), as the wire sends them side by side
/// (`"reason": "canceled"`), in the value's form (`"reason": {"reason": "canceled"}`).
fn turn_end(mut payload: Value) -> Value {
    if let Value::Object(object) = &mut payload
        && let Some(Value::String(reason)) = object.get("reason").cloned()
    {
        let mut end = Map::new();
        end.insert("reason".to_owned(), Value::from(reason));
        if let Some(detail) = object.remove("detail") {
            end.insert("detail".to_owned(), detail);
        }
        object.insert("reason".to_owned(), Value::Object(end));
    }
    payload
}

/// A tool call's wire form as `intercept_tool_call`'s value, its tool renamed to `tool`.
fn tool_call(mut payload: Value, tool: Option<&str>) -> Value {
    if let Value::Object(object) = &mut payload
        && object.contains_key("tool_name")
        && !object.contains_key("name")
    {
        let mut call = Map::new();
        call.insert(
            "name".to_owned(),
            object.remove("tool_name").unwrap_or_default(),
        );
        call.insert(
            "args".to_owned(),
            object.remove("tool_input").unwrap_or_else(|| json!({})),
        );
        if let Some(id) = object.remove("tool_use_id") {
            call.insert("id".to_owned(), id);
        }
        payload = Value::Object(call);
    }
    if let (Some(tool), Value::Object(object)) = (tool, &mut payload) {
        object.insert("name".to_owned(), Value::from(tool));
    }
    payload
}

/// A tool result's (or permission request's) wire form with the input and response it lacks,
/// its tool renamed to `tool`.
fn tool_result(mut payload: Value, tool: Option<&str>) -> Value {
    if let Value::Object(object) = &mut payload {
        if object.contains_key("tool_name") {
            object.entry("tool_input").or_insert_with(|| json!({}));
            object
                .entry("tool_response")
                .or_insert_with(|| Value::from(""));
        }
        if let Some(tool) = tool {
            object.insert("tool_name".to_owned(), Value::from(tool));
        }
    }
    payload
}

/// `payload`'s fields over `example`, a value of `point` (see [`value_from_payload`]); anything
/// but two objects is `example` unchanged.
fn fill_in(dialects: &[Dialect], point: &str, mut example: Value, payload: &Value) -> Value {
    let (Value::Object(fields), Value::Object(given)) = (&mut example, payload) else {
        return example;
    };
    let nested: Vec<&Map<String, Value>> = dialects
        .iter()
        .filter_map(|&dialect| extra_field(dialect))
        .filter_map(|key| given.get(key).and_then(Value::as_object))
        .collect();
    let get = |key: &str| {
        given
            .get(key)
            .filter(|v| !v.is_null())
            .or_else(|| nested.iter().find_map(|extra| extra.get(key)))
    };
    for (key, slot) in fields.iter_mut() {
        let found = get(key).or_else(|| {
            dialects
                .iter()
                .flat_map(|&dialect| renamed_value_fields(dialect, point))
                .filter(|(ours, _)| ours == key)
                .find_map(|(_, theirs)| get(theirs))
        });
        if let Some(found) = found {
            *slot = found.clone();
        }
    }
    example
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookchain_core::points::{
        AfterLlmCall, BeforeCompaction, InterceptToolCall, Notify, OnStop, OutboundMessage,
        SessionStart, TransformToolResult, TransformUserInput,
    };

    fn read<P>(dialect: Dialect, payload: Value) -> Value
    where
        P: WirePoint,
        P::Value: DeserializeOwned,
    {
        value_from_payload::<P>(&[dialect], payload, None)
    }

    #[test]
    fn hookchain_payloads_of_tool_points_take_the_values_shape() {
        let call = json!({"tool_name": "Write", "tool_input": {"path": "a"}, "tool_use_id": "t1"});
        assert_eq!(
            read::<InterceptToolCall>(Dialect::Hookchain, call),
            json!({"name": "Write", "args": {"path": "a"}, "id": "t1"})
        );
        let result = value_from_payload::<TransformToolResult>(
            &Dialect::ALL,
            json!({"tool_name": "Write"}),
            Some("Edit"),
        );
        assert_eq!(
            result,
            json!({"tool_name": "Edit", "tool_input": {}, "tool_response": ""})
        );
        assert_eq!(
            read::<TransformUserInput>(Dialect::Pi, json!({"prompt": "hi"})),
            json!("hi")
        );
        // A value of the point is taken as it is, its optional fields kept.
        let start =
            json!({"session_id": "s", "source": "resume", "context": [], "parent_session_id": "p"});
        assert_eq!(
            read::<SessionStart>(Dialect::Hookchain, start.clone()),
            start
        );
    }

    #[test]
    fn claude_codes_stop_and_pre_tool_use() {
        let stop = json!({
            "session_id": "s1",
            "transcript_path": "/t.jsonl",
            "cwd": "/",
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": true,
            "last_assistant_message": "All done.",
        });
        assert_eq!(
            read::<OnStop>(Dialect::ClaudeCode, stop.clone()),
            json!({"response": "All done.", "stop_hook_active": true, "redos": 0})
        );
        // docker-agent's name is not Claude Code's.
        assert_eq!(
            read::<OnStop>(Dialect::DockerAgent, stop)["response"],
            "Done."
        );
        let call = json!({
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "toolu_1",
        });
        assert_eq!(
            read::<InterceptToolCall>(Dialect::ClaudeCode, call),
            json!({"name": "Bash", "args": {"command": "ls"}, "id": "toolu_1"})
        );
    }

    #[test]
    fn docker_agents_stop_reply_compaction_and_notification() {
        let stop = json!({"hook_event_name": "stop", "stop_response": "Finished."});
        assert_eq!(
            read::<OnStop>(Dialect::DockerAgent, stop)["response"],
            "Finished."
        );
        let reply = json!({"hook_event_name": "after_llm_call", "stop_response": "Hi there."});
        assert_eq!(
            read::<AfterLlmCall>(Dialect::DockerAgent, reply),
            json!({"text": "Hi there.", "tool_calls": []})
        );
        let compaction =
            json!({"hook_event_name": "before_compaction", "compaction_reason": "manual"});
        assert_eq!(
            read::<BeforeCompaction>(Dialect::DockerAgent, compaction)["trigger"],
            "manual"
        );
        let note = json!({
            "hook_event_name": "notification",
            "notification_level": "error",
            "notification_message": "the build failed",
        });
        assert_eq!(
            read::<Notify>(Dialect::DockerAgent, note.clone()),
            json!({"level": "error", "message": "the build failed"})
        );
        // Claude Code has no such names: the example's fields stay.
        assert_eq!(
            read::<Notify>(Dialect::ClaudeCode, note)["level"],
            "warning"
        );
    }

    #[test]
    fn hermes_fields_are_read_in_extra() {
        let reply = json!({
            "hook_event_name": "post_llm_call",
            "tool_name": null,
            "tool_input": null,
            "session_id": "s1",
            "profile": "default",
            "extra": {"assistant_response": "Hi there.", "task_id": "s1"},
        });
        assert_eq!(
            read::<AfterLlmCall>(Dialect::Hermes, reply.clone()),
            json!({"text": "Hi there.", "tool_calls": []})
        );
        let stop = json!({"hook_event_name": "on_stop", "extra": {"response": "Done here."}});
        assert_eq!(
            read::<OnStop>(Dialect::Hermes, stop)["response"],
            "Done here."
        );
        // `extra` is Hermes': in another dialect it is not looked into.
        assert_eq!(
            read::<AfterLlmCall>(Dialect::Starchild, reply)["text"],
            "Hello! How can I help?"
        );
    }

    #[test]
    fn starchilds_tool_call_reply_and_message() {
        let call = json!({
            "event": "pre_tool_call",
            "session_id": "s1",
            "tool_name": "bash",
            "tool_input": {"command": "ls"},
        });
        assert_eq!(
            read::<InterceptToolCall>(Dialect::Starchild, call),
            json!({"name": "bash", "args": {"command": "ls"}})
        );
        let claim = json!({"event": "on_completion_claim", "response": "Shipped."});
        assert_eq!(
            read::<OnStop>(Dialect::Starchild, claim)["response"],
            "Shipped."
        );
        // hookchain sends every dialect `text` and `platform` beside Starchild's names.
        let message = json!({"event": "on_outbound_message", "text": "Hi!", "platform": "discord", "channel": "discord"});
        assert_eq!(
            read::<OutboundMessage>(Dialect::Starchild, message),
            json!({"platform": "discord", "recipient": "#general", "text": "Hi!"})
        );
    }

    #[test]
    fn anything_but_an_object_keeps_the_example() {
        assert_eq!(
            read::<OnStop>(Dialect::ClaudeCode, json!("done")),
            example_value("on_stop", EXAMPLE_TOOL)
        );
    }
}
