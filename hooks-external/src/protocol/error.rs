//! What cannot be read of a hook's answer ([`ProtocolError`]), and how its messages quote the
//! hook's output: short excerpts, control characters escaped.

use serde_json::Value;

/// An answer hookchain cannot read: the hook failed, and its `on_error` applies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The hook exited with a code other than 0 and 2.
    #[error(
        "the hook exited with code {code} (only 0, go on, and 2, block, have a meaning){}",
        stderr_hint(.stderr)
    )]
    ExitCode {
        /// The exit code.
        code: i32,
        /// The first line of its stderr, trimmed (empty when it printed nothing).
        stderr: String,
    },
    /// The hook printed bytes that are not UTF-8.
    #[error("the hook printed {stream} that is not UTF-8 (an invalid byte at offset {offset})")]
    NotUtf8 {
        /// `"stdout"`.
        stream: &'static str,
        /// Where the first invalid byte is.
        offset: usize,
    },
    /// Stdout starts with `{` but is not one JSON object.
    #[error("the hook printed invalid JSON on stdout ({error}); it began: {start}")]
    InvalidJson {
        /// What the JSON parser says.
        error: String,
        /// The first characters of stdout.
        start: String,
    },
    /// A known field has the wrong type.
    #[error("the hook printed `{field}` as {found}, but it must be {expected}")]
    WrongType {
        /// The field (`hookSpecificOutput.updatedInput`).
        field: String,
        /// What it must be.
        expected: &'static str,
        /// What it was.
        found: String,
    },
    /// The hook's agent rejects this answer, and counts the hook as failed (Codex validates
    /// every answer against the schema of its event).
    #[error("{agent} rejects this answer, and counts the hook as failed: {problem}")]
    Rejected {
        /// The agent (`Codex`).
        agent: &'static str,
        /// What it rejects (`unknown field \`foo\``).
        problem: String,
    },
    /// A verdict field has a value its dialect does not know.
    #[error("the hook printed `{field}: {value}`, but it must be one of {expected}")]
    UnknownValue {
        /// The field (`decision`).
        field: String,
        /// The value, as printed (its first characters, when it is long).
        value: String,
        /// The values it may take.
        expected: &'static str,
    },
}

fn stderr_hint(stderr: &str) -> String {
    if stderr.is_empty() {
        "; it printed nothing on stderr".to_owned()
    } else {
        format!("; its stderr began: {stderr}")
    }
}

/// The longest excerpt of a hook's output a message quotes.
const EXCERPT: usize = 80;

/// The first characters of `text`, control characters escaped, marked when cut.
pub(super) fn excerpt(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == EXCERPT {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// An answer that is JSON but not an object.
pub(super) fn not_an_object(value: &Value) -> ProtocolError {
    ProtocolError::WrongType {
        field: "stdout".to_owned(),
        expected: "a JSON object",
        found: describe(value),
    }
}

/// A JSON value as a message names it: its type and a short excerpt.
pub(super) fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    format!("{kind} ({})", excerpt(&value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_and_escaped() {
        assert_eq!(excerpt("a\nb"), "a\\nb");
        let long = "x".repeat(200);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT + 1);
    }
}
