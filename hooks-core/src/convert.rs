//! Building hookchain's payloads from what agent frameworks hand over: a tool call whose
//! arguments are a JSON string, as most model APIs send them, and a tool's output as text.
//!
//! Adapters for particular frameworks live in crates of their own; these two constructors are
//! what they (and agents without one) build on.

use serde_json::Value;

use crate::points::{ToolCall, ToolResult};

/// Why [`ToolCall::from_json_str`] refused a tool call's arguments. It names the tool, and says
/// what is wrong with the JSON and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolArgsError {
    /// The arguments are not JSON at all.
    #[error("the arguments of tool `{tool}` are not valid JSON: {message}")]
    Syntax {
        /// The tool's name.
        tool: String,
        /// What the JSON parser said, with the line and column.
        message: String,
        /// The line of the error, from 1.
        line: usize,
        /// The column of the error, from 1.
        column: usize,
    },
    /// The arguments are JSON, but not an object (`[1, 2]`, `"text"`, `3`, `null`).
    #[error("the arguments of tool `{tool}` must be a JSON object, not {found}")]
    NotAnObject {
        /// The tool's name.
        tool: String,
        /// What they are instead: "an array", "a string", ...
        found: &'static str,
    },
}

impl ToolArgsError {
    /// The name of the tool whose arguments were refused.
    pub fn tool(&self) -> &str {
        match self {
            ToolArgsError::Syntax { tool, .. } | ToolArgsError::NotAnObject { tool, .. } => tool,
        }
    }
}

impl ToolCall {
    /// A call of `name` whose arguments arrive as a JSON string (`args_json`), with the model's
    /// id for it when there is one — the shape most model APIs and agent frameworks use.
    ///
    /// The arguments must be a JSON object; an empty (or all-whitespace) string means no
    /// arguments, `{}`, as some APIs send for tools that take none. Anything else is a
    /// [`ToolArgsError`] naming the tool and what is wrong.
    ///
    /// ```
    /// use hookchain::points::{ToolArgsError, ToolCall};
    /// use serde_json::json;
    ///
    /// let call = ToolCall::from_json_str("shell", r#"{"cmd": "ls"}"#, Some("call_1"))?;
    /// assert_eq!(call.args, json!({"cmd": "ls"}));
    /// assert_eq!(call.id.as_deref(), Some("call_1"));
    ///
    /// let err = ToolCall::from_json_str("shell", r#"{"cmd": "ls""#, None).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "the arguments of tool `shell` are not valid JSON: EOF while parsing an object at line 1 column 12"
    /// );
    /// # Ok::<(), ToolArgsError>(())
    /// ```
    pub fn from_json_str(
        name: impl Into<String>,
        args_json: &str,
        id: Option<&str>,
    ) -> Result<ToolCall, ToolArgsError> {
        let name = name.into();
        let args = if args_json.trim().is_empty() {
            Value::Object(serde_json::Map::new())
        } else {
            match serde_json::from_str::<Value>(args_json) {
                Ok(args @ Value::Object(_)) => args,
                Ok(other) => {
                    return Err(ToolArgsError::NotAnObject {
                        tool: name,
                        found: kind(&other),
                    });
                }
                Err(error) => {
                    return Err(ToolArgsError::Syntax {
                        tool: name,
                        message: error.to_string(),
                        line: error.line(),
                        column: error.column(),
                    });
                }
            }
        };
        Ok(ToolCall {
            name,
            args,
            id: id.map(str::to_owned),
        })
    }
}

impl ToolResult {
    /// The result of `call` as the text a tool printed (a success), or the error message it
    /// failed with when `is_error` is `true`. The text becomes a JSON string; use
    /// [`ToolResult::new`] for a result that is structured JSON.
    ///
    /// ```
    /// use hookchain::points::{ToolCall, ToolResult};
    /// use serde_json::json;
    ///
    /// let call = ToolCall::from_json_str("read_file", r#"{"path": "a.txt"}"#, Some("call_7")).unwrap();
    /// let result = ToolResult::from_text(&call, "hello", false);
    /// assert_eq!(result.tool_response, json!("hello"));
    /// assert_eq!(result.tool_input, json!({"path": "a.txt"}));
    /// assert_eq!(result.tool_use_id.as_deref(), Some("call_7"));
    /// assert!(!result.is_error);
    /// assert!(ToolResult::from_text(&call, "no such file", true).is_error);
    /// ```
    pub fn from_text(call: &ToolCall, text: impl Into<String>, is_error: bool) -> ToolResult {
        let text = text.into();
        ToolResult::new(
            call,
            if is_error {
                Err(text)
            } else {
                Ok(Value::String(text))
            },
        )
    }
}

/// What a JSON value is, with its article, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_becomes_the_args_and_the_id_is_kept() {
        let call = ToolCall::from_json_str(
            "write_file",
            r#"{"path": "a.txt", "text": "hi", "n": [1, 2]}"#,
            Some("toolu_01"),
        )
        .unwrap();
        assert_eq!(
            call,
            ToolCall::new(
                "write_file",
                json!({"path": "a.txt", "text": "hi", "n": [1, 2]})
            )
            .with_id("toolu_01")
        );
        let call = ToolCall::from_json_str(String::from("ls"), "{}", None).unwrap();
        assert_eq!(call.id, None);
        assert_eq!(call.args, json!({}));
    }

    #[test]
    fn empty_arguments_mean_an_empty_object() {
        for empty in ["", "   ", "\n\t"] {
            let call = ToolCall::from_json_str("now", empty, None).unwrap();
            assert_eq!(call.args, json!({}), "{empty:?}");
        }
    }

    #[test]
    fn broken_json_names_the_tool_the_problem_and_where() {
        let err = ToolCall::from_json_str("shell", "{\n  \"cmd\": ls\n}", None).unwrap_err();
        assert_eq!(err.tool(), "shell");
        let ToolArgsError::Syntax { line, column, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!((*line, *column), (2, 10));
        assert_eq!(
            err.to_string(),
            "the arguments of tool `shell` are not valid JSON: expected value at line 2 column 10"
        );
        let err = ToolCall::from_json_str("shell", r#"{"cmd": "ls"} trailing"#, None).unwrap_err();
        assert!(
            err.to_string()
                .contains("trailing characters at line 1 column 15"),
            "{err}"
        );
    }

    #[test]
    fn arguments_that_are_not_an_object_are_refused() {
        for (json, found) in [
            ("[1, 2]", "an array"),
            (r#""ls""#, "a string"),
            ("3", "a number"),
            ("true", "a boolean"),
            ("null", "null"),
        ] {
            let err = ToolCall::from_json_str("shell", json, None).unwrap_err();
            assert_eq!(
                err,
                ToolArgsError::NotAnObject {
                    tool: "shell".into(),
                    found
                }
            );
            assert_eq!(
                err.to_string(),
                format!("the arguments of tool `shell` must be a JSON object, not {found}")
            );
        }
    }

    #[test]
    fn text_results_are_json_strings_for_the_call_they_answer() {
        let call = ToolCall::new("grep", json!({"pattern": "todo"})).with_id("c1");
        let ok = ToolResult::from_text(&call, String::from("a.rs:3: todo"), false);
        assert_eq!(ok, ToolResult::new(&call, Ok(json!("a.rs:3: todo"))));
        let failed = ToolResult::from_text(&call, "grep: no such file", true);
        assert_eq!(
            failed,
            ToolResult::new(&call, Err("grep: no such file".into()))
        );
        assert_eq!(failed.call(), call);
        // Text that happens to be JSON stays text.
        let text = ToolResult::from_text(&call, "[1, 2]", false);
        assert_eq!(text.tool_response, json!("[1, 2]"));
    }
}
