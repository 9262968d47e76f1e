//! The wire protocol: the payload an external hook receives, and the [`Answer`] read from what
//! it answers, in whichever agent's dialect it answers. This module reads the exit code and
//! stdout; [`answer`] reads a JSON answer's fields (its dialects and their contradictions), and
//! [`ProtocolError`] is what cannot be read.
//!
//! # The payload
//!
//! One JSON object ([`payload`], built by the [`wire`](super::wire) module):
//!
//! | key | value |
//! |---|---|
//! | `hook_event_name` | the event as the hook was configured, in its dialect's spelling (`"PreToolUse"` in a Claude Code file, `"pre_tool_use"` in a docker-agent file, `"pre_tool_call"` for Hermes; the canonical point, `"intercept_tool_call"`, in hookchain's own protocol) |
//! | `event` | the same (Starchild's name for the key) |
//! | `session_id` | the session |
//! | `cwd` | the project directory: the agent's current directory |
//! | `transcript_path` | the session's transcript, JSONL in Claude Code's format: the agent's ([`set_transcript_path`](super::transcript::set_transcript_path)), else a private one hookchain keeps of what passed through the session's external hooks ([`transcript`](super::transcript)); absent outside any session |
//! | `permission_mode` | the agent's permission mode ([`set_permission_mode`](super::transcript::set_permission_mode)), `"default"` when it gave none |
//! | `turn` | the turn's index in its session, from 0 |
//! | `turn_state` | a snapshot of the turn's state (`get_turn_state(session_id).snapshot()`) |
//! | the point's fields | `tool_name`, `tool_input`, `prompt`, … as [`WirePoint::fields`] lists them |
//!
//! # Reading the answer
//!
//! [`decide`] reads a [`RawOutput`]:
//!
//! - exit code 0 (or none, for `process` and `http`): stdout is read, a leading byte-order mark
//!   skipped. Empty or blank: pass. First non-blank character `{` or `[`: JSON, which must be an
//!   object in one of the dialects of [`answer`]; invalid JSON, an array, and stdout that is a JSON
//!   number, boolean, string or null are a [`ProtocolError`] (the hook meant something hookchain
//!   cannot read, so its `on_error` applies). Anything else: plain text, a context entry marked
//!   [`Answer::plain_text`]; it reaches the model only where the hook's agent gives plain
//!   stdout to the model (see [`wire::tables`](super::wire::tables), "Plain stdout"). Stdout
//!   that is not UTF-8 is a [`ProtocolError`].
//! - exit code 2: a block; stderr, trimmed, is the reason (stderr that is not UTF-8 is read
//!   lossily, as it is only a message). When stderr is empty and stdout holds a JSON answer that
//!   refuses with a reason (`{"decision": "block", "reason": …}`), that reason is used;
//!   otherwise the hook's name makes a default reason. Nothing else of stdout is read: exit 2
//!   blocks whatever the JSON says. For a Hermes hook the JSON's reason comes first and stderr
//!   second, as Hermes reads them (`agent/shell_hooks.py`, `_evaluate_result`: "message: stdout
//!   JSON, then stderr, then default").
//! - any other exit code: see "Exit codes per dialect" below. When the JSON answer is read, a
//!   warning names the exit code and the first line of stderr, so the user hears of the error;
//!   when it is not (or there is none: nothing, text, invalid JSON), the result is a
//!   [`ProtocolError`] naming the code and the first line of stderr: the hook failed, and its
//!   `on_error` applies.
//!
//! ## Exit codes per dialect
//!
//! [`decide_in`] takes the agent whose dialect the hook speaks. On an exit code other than 0
//! and 2:
//!
//! | dialect | a JSON answer on stdout | source |
//! |---|---|---|
//! | hookchain's own protocol | read, as on exit 0 (a deny printed before `exit 1` denies) | hookchain's choice, as Hermes does: a guard's deny is never lost to a stray exit code |
//! | Hermes | read | `agent/shell_hooks.py`: "Other non-zero exits: still parse stdout so exit-code failures can carry a block directive" |
//! | Claude Code | not read: the hook failed | hooks reference: "Claude Code only processes JSON on exit 0"; any other exit code is a "non-blocking error" |
//! | docker-agent | not read: the hook failed | `pkg/hooks/executor.go`, `runHook`: "exited with status N" is a failure under the hook's `on_error` |
//! | Starchild | not read: the hook failed | its hooks reference: "Exit non-zero / non-JSON = continue" |
//!
//! A failure is not a silent pass: the hook's `on_error` applies (Claude Code's "non-blocking
//! error" is `on_error: pass`, which still logs the failure and lists it in the outcome).
//!
//! [`WirePoint::fields`]: super::wire::WirePoint::fields
//! [`payload`]: super::wire::payload

pub mod answer;
mod error;

use hookchain_core::Dialect;
use serde_json::Value;

use super::RawOutput;
pub use super::answer::{Answer, Verdict};
use answer::from_object;
pub use error::ProtocolError;
use error::{excerpt, not_an_object};

/// Reads a hook's raw output into a [`Answer`], by hookchain's own rules (see the
/// [module docs](self)): [`decide_in`] with no dialect.
///
/// ```
/// use hookchain::external::RawOutput;
/// use hookchain::external::protocol::{decide, Verdict};
///
/// let raw = RawOutput {
///     exit_code: Some(0),
///     stdout: br#"{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no rm"}}"#.to_vec(),
///     stderr: Vec::new(),
/// };
/// assert_eq!(decide(&raw).unwrap().verdict, Verdict::Block("no rm".into()));
///
/// let blocked = RawOutput { exit_code: Some(2), stdout: Vec::new(), stderr: b"no rm\n".to_vec() };
/// assert_eq!(decide(&blocked).unwrap().verdict, Verdict::Block("no rm".into()));
/// ```
pub fn decide(raw: &RawOutput) -> Result<Answer, ProtocolError> {
    decide_in(raw, Dialect::Hookchain)
}

/// Reads a hook's raw output into a [`Answer`] as the agent of `dialect`, the dialect the
/// hook speaks, reads it ([`Dialect::Hookchain`] for hookchain's own protocol): see "Exit codes
/// per dialect" in the [module docs](self).
///
/// ```
/// use hookchain::Dialect;
/// use hookchain::external::RawOutput;
/// use hookchain::external::protocol::{decide_in, Verdict};
///
/// // A deny printed before `exit 1`: Hermes reads it, Claude Code reads only exit 0's JSON.
/// let raw = RawOutput {
///     exit_code: Some(1),
///     stdout: br#"{"decision": "block", "reason": "no rm"}"#.to_vec(),
///     stderr: Vec::new(),
/// };
/// assert_eq!(decide_in(&raw, Dialect::Hermes).unwrap().verdict, Verdict::Block("no rm".into()));
/// assert!(decide_in(&raw, Dialect::ClaudeCode).is_err());
/// ```
pub fn decide_in(raw: &RawOutput, dialect: Dialect) -> Result<Answer, ProtocolError> {
    match raw.exit_code.unwrap_or(0) {
        0 => read_stdout(raw),
        2 => {
            let stderr = String::from_utf8_lossy(&raw.stderr).trim().to_owned();
            let json_reason = || {
                json_answer(raw)
                    .and_then(|d| d.refusal_reason())
                    .unwrap_or_default()
            };
            let reason = if dialect == Dialect::Hermes {
                // Hermes reads the JSON's block message first, then stderr
                // (`agent/shell_hooks.py`, `_evaluate_result`).
                let reason = json_reason();
                if reason.is_empty() { stderr } else { reason }
            } else if stderr.is_empty() {
                json_reason()
            } else {
                stderr
            };
            Ok(Answer::block(reason))
        }
        code => {
            let stderr = first_line(&raw.stderr);
            match json_answer(raw).filter(|_| reads_json_on_any_exit(dialect)) {
                // Hermes reads a JSON answer whatever the exit code ("still parse stdout so
                // exit-code failures can carry a block directive"), and so does hookchain's own
                // protocol: a deny printed before `exit 1` still denies. The user hears of the
                // exit code.
                Some(mut decision) => {
                    decision.warnings.push(format!(
                        "the hook exited with code {code}{}",
                        if stderr.is_empty() {
                            String::new()
                        } else {
                            format!(": {stderr}")
                        }
                    ));
                    Ok(decision)
                }
                None => Err(ProtocolError::ExitCode { code, stderr }),
            }
        }
    }
}

/// `true` when a hook in `dialect` has its JSON answer read on an exit code other than 0 and 2:
/// hookchain's own protocol and Hermes read it; Claude Code ("Claude Code only processes JSON on
/// exit 0"), docker-agent (any other exit is a failure, `pkg/hooks/executor.go`) and Starchild
/// ("exit non-zero … = continue") do not.
fn reads_json_on_any_exit(dialect: Dialect) -> bool {
    // Pi's event names in a hookchain.yaml speak hookchain's own protocol.
    matches!(dialect, Dialect::Hookchain | Dialect::Hermes | Dialect::Pi)
}

/// The answer of an exit code 0: nothing, JSON, or plain text.
fn read_stdout(raw: &RawOutput) -> Result<Answer, ProtocolError> {
    let stdout = std::str::from_utf8(&raw.stdout).map_err(|e| ProtocolError::NotUtf8 {
        stream: "stdout",
        offset: e.valid_up_to(),
    })?;
    // A byte-order mark is an editor's, not the hook's.
    let text = stdout.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        Ok(Answer::pass())
    } else if text.starts_with(['{', '[']) {
        let value: Value = serde_json::from_str(text).map_err(|e| ProtocolError::InvalidJson {
            error: e.to_string(),
            start: excerpt(text),
        })?;
        match value {
            Value::Object(object) => from_object(&object),
            other => Err(not_an_object(&other)),
        }
    } else if let Ok(other) = serde_json::from_str::<Value>(text) {
        // Stdout that is JSON but not an object (`42`, `true`, `"deny"`) meant something
        // in a JSON dialect hookchain cannot read: a failure, under the hook's policy,
        // never context for the model.
        Err(not_an_object(&other))
    } else {
        Ok(Answer {
            context: vec![text.to_owned()],
            plain_text: true,
            ..Answer::default()
        })
    }
}

/// The decision of stdout when it is one readable JSON object; `None` otherwise (nothing,
/// text, invalid JSON, an object with a field hookchain cannot read).
fn json_answer(raw: &RawOutput) -> Option<Answer> {
    let text = std::str::from_utf8(&raw.stdout).ok()?;
    let text = text.trim_start_matches('\u{feff}').trim();
    if !text.starts_with('{') {
        return None;
    }
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Object(object) => from_object(&object).ok(),
        _ => None,
    }
}

/// The first non-blank line of `bytes`, trimmed and cut to an excerpt.
fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(excerpt)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn out(stdout: &str) -> RawOutput {
        RawOutput {
            exit_code: Some(0),
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
        }
    }

    /// An answer of the wrong shape is a failure (the hook's `on_error` applies), never context.
    #[test]
    fn json_that_is_not_an_object_is_a_failure_not_text() {
        for answer in [
            r#"[{"decision": "block"}]"#,
            "42",
            "true",
            "null",
            r#""deny""#,
            "-1.5",
        ] {
            let error = decide(&out(answer)).unwrap_err();
            assert!(
                matches!(error, ProtocolError::WrongType { .. }),
                "{answer}: {error}"
            );
            assert!(
                error.to_string().contains("a JSON object"),
                "{answer}: {error}"
            );
        }
        // Plain text is still context, numbers inside it included.
        let text = decide(&out("42 files changed; run the tests")).unwrap();
        assert_eq!(text.context, ["42 files changed; run the tests"]);
    }

    /// A byte-order mark before the JSON (as Windows editors and PowerShell write it) is not
    /// part of the answer.
    #[test]
    fn a_byte_order_mark_before_json_is_skipped() {
        let decision = decide(&out(
            "\u{feff}{\"decision\": \"block\", \"reason\": \"no\"}\n",
        ))
        .unwrap();
        assert_eq!(decision.verdict, Verdict::Block("no".to_owned()));
    }

    #[test]
    fn no_exit_code_is_zero() {
        let raw = RawOutput {
            exit_code: None,
            stdout: b"hello".to_vec(),
            stderr: Vec::new(),
        };
        assert_eq!(decide(&raw).unwrap().context, ["hello"]);
    }

    fn exit(code: i32, stdout: &str, stderr: &str) -> RawOutput {
        RawOutput {
            exit_code: Some(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
        }
    }

    /// On exit codes other than 0 and 2, Hermes and hookchain's own protocol read the JSON
    /// answer; Claude Code, docker-agent and Starchild do not: the hook failed.
    #[test]
    fn json_on_other_exit_codes_is_read_per_dialect() {
        let raw = exit(1, r#"{"decision": "block", "reason": "no"}"#, "oops\n");
        for dialect in [Dialect::Hookchain, Dialect::Hermes] {
            let d = decide_in(&raw, dialect).unwrap();
            assert_eq!(d.verdict, Verdict::Block("no".into()), "{dialect:?}");
            assert_eq!(d.warnings, ["the hook exited with code 1: oops"]);
        }
        for dialect in [
            Dialect::ClaudeCode,
            Dialect::DockerAgent,
            Dialect::Starchild,
        ] {
            assert_eq!(
                decide_in(&raw, dialect).unwrap_err(),
                ProtocolError::ExitCode {
                    code: 1,
                    stderr: "oops".into()
                },
                "{dialect}"
            );
        }
    }

    /// On exit 2, Hermes takes the JSON's reason before stderr; the others stderr first.
    #[test]
    fn exit_2_reason_order_per_dialect() {
        let raw = exit(
            2,
            r#"{"action": "block", "message": "from json"}"#,
            "from stderr",
        );
        assert_eq!(
            decide_in(&raw, Dialect::Hermes).unwrap().verdict,
            Verdict::Block("from json".into())
        );
        for dialect in [Dialect::Hookchain, Dialect::ClaudeCode] {
            assert_eq!(
                decide_in(&raw, dialect).unwrap().verdict,
                Verdict::Block("from stderr".into())
            );
        }
        let no_json = exit(2, "", "from stderr");
        assert_eq!(
            decide_in(&no_json, Dialect::Hermes).unwrap().verdict,
            Verdict::Block("from stderr".into())
        );
    }

    /// Plain text is marked as such; JSON context is not.
    #[test]
    fn plain_text_is_marked() {
        assert!(decide(&out("hello")).unwrap().plain_text);
        let json = out(&json!({"context": "hello"}).to_string());
        assert!(!decide(&json).unwrap().plain_text);
    }
}
