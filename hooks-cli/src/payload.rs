//! The values `test` and `doctor` fire a chain with: a synthetic value of each point, and a
//! payload file's JSON put in the shape of the point's value (another agent's wire form, its
//! field names, Hermes' `extra`).

use serde_json::{Map, Value, json};

/// The tool of the synthetic payload on tool points, when `--for-tool` names none.
pub const DEFAULT_TOOL: &str = "Bash";

/// The session id of synthetic payloads.
pub(crate) const SESSION: &str = "hookchain-test";

/// A synthetic value of `point`, as JSON its value type reads.
pub(crate) fn synthetic(point: &str, tool: &str) -> Value {
    let conversation = json!([
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hello! How can I help?"},
    ]);
    match point {
        "session_start" => json!({"session_id": SESSION, "source": "startup", "context": []}),
        "session_end" => json!({"session_id": SESSION, "reason": "exit"}),
        "session_reset" => {
            json!({"old_session_id": SESSION, "new_session_id": format!("{SESSION}-2")})
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
            "session_id": format!("{SESSION}-child"),
            "parent_session_id": SESSION,
            "reason": "done",
        }),
        "outbound_message" => {
            json!({"platform": "slack", "recipient": "#general", "text": "Hello!"})
        }
        "turn_end" => json!({"session_id": SESSION, "turn": 0, "reason": {"reason": "normal"}}),
        _ => json!({"level": "warning", "message": "a test notification from hookchain"}),
    }
}

/// The payload file's JSON as `point`'s value type reads it: the wire form of tool points
/// (`tool_name`, `tool_input`, `tool_use_id`) and `{"prompt": …}` for user input are put in the
/// value's shape; `tool` (from `--for-tool`) renames the tool.
pub(crate) fn from_file(point: &str, mut value: Value, tool: Option<&str>) -> Value {
    match point {
        "intercept_tool_call" => {
            if let Value::Object(object) = &mut value
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
                value = Value::Object(call);
            }
            if let (Some(tool), Value::Object(object)) = (tool, &mut value) {
                object.insert("name".to_owned(), Value::from(tool));
            }
        }
        "transform_tool_result" | "after_tool_call" | "permission_request" => {
            if let Value::Object(object) = &mut value {
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
        }
        "transform_user_input" => {
            if let Value::Object(object) = &value
                && let Some(Value::String(prompt)) = object.get("prompt")
            {
                value = Value::from(prompt.as_str());
            }
        }
        _ => {}
    }
    value
}

/// `file`'s fields over `value` (a synthetic value of `point`): each key of `value` that `file`
/// has — at its top level, else in Hermes' `extra` — is taken from `file`, the others kept,
/// and `file`'s keys the value has no place for are left out; other agents' names are read as
/// the value's (`last_assistant_message`, docker-agent's `stop_response`: the Stop `response`;
/// Hermes' `assistant_response`: the reply's `text`; docker-agent's `notification_level` and
/// `notification_message`). Anything but two objects is `value` unchanged.
pub(crate) fn overlay(point: &str, mut value: Value, file: &Value) -> Value {
    let (Value::Object(value_fields), Value::Object(file_fields)) = (&mut value, file) else {
        return value;
    };
    let aliases: &[(&str, &str)] = match point {
        "on_stop" => &[
            ("response", "last_assistant_message"),
            ("response", "stop_response"),
        ],
        "after_llm_call" => &[("text", "assistant_response"), ("text", "stop_response")],
        "before_compaction" => &[("trigger", "compaction_reason")],
        "notification" => &[
            ("level", "notification_level"),
            ("message", "notification_message"),
        ],
        _ => &[],
    };
    let extra = file_fields.get("extra").and_then(Value::as_object);
    let get = |key: &str| {
        file_fields
            .get(key)
            .filter(|v| !v.is_null())
            .or_else(|| extra.and_then(|extra| extra.get(key)))
    };
    for (key, slot) in value_fields.iter_mut() {
        let found = get(key).or_else(|| {
            aliases
                .iter()
                .filter(|(ours, _)| ours == key)
                .find_map(|(_, theirs)| get(theirs))
        });
        if let Some(found) = found {
            *slot = found.clone();
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Failure;
    use crate::point::canonical;
    use hookchain_core::points;

    fn check(point: &str) -> Result<(), Failure> {
        with_point!(point, canonical(&synthetic(point, DEFAULT_TOOL))).map(drop)
    }

    #[test]
    fn every_point_has_a_synthetic_value() {
        for point in points::catalog() {
            if let Err(Failure(e)) = check(point.name) {
                panic!("{}: {e}", point.name);
            }
        }
    }

    #[test]
    fn tool_points_take_the_wire_form() {
        let call = from_file(
            "intercept_tool_call",
            json!({"tool_name": "Write", "tool_input": {"path": "a"}, "tool_use_id": "t1"}),
            None,
        );
        assert_eq!(
            call,
            json!({"name": "Write", "args": {"path": "a"}, "id": "t1"})
        );
        let result = from_file(
            "transform_tool_result",
            json!({"tool_name": "Write"}),
            Some("Edit"),
        );
        assert_eq!(
            result,
            json!({"tool_name": "Edit", "tool_input": {}, "tool_response": ""})
        );
        assert_eq!(
            from_file("transform_user_input", json!({"prompt": "hi"}), None),
            json!("hi")
        );
    }
}
