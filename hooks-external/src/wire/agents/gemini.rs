//! Gemini CLI's differences from Claude Code's hook protocol, as an overlay (see the
//! [parent module](super)). Sources: Gemini CLI's documentation
//! (<https://geminicli.com/docs/hooks/reference/>) and its source, `google-gemini/gemini-cli`
//! `packages/core/src/hooks/hookRunner.ts` (exit codes, plain text, stderr),
//! `hookAggregator.ts` (how answers merge), `types.ts` (the output fields); the whole reference
//! is `docs/agents/gemini.md`.
//!
//! # Events
//!
//! | Gemini CLI | point | note |
//! |---|---|---|
//! | `SessionStart` | `session_start` | advisory: `decision` and `continue` are ignored; `additionalContext` is the session's context |
//! | `SessionEnd` | `session_end` | observe |
//! | `BeforeAgent` | `transform_user_input` | `deny` or `continue: false` blocks the prompt; `additionalContext` is context |
//! | `AfterAgent` | `on_stop` | `deny` sends the agent back with the reason as its next prompt; `continue: false` ends the turn |
//! | `BeforeModel` | `before_llm_call` | `deny` blocks the model call; `llm_request` and `llm_response` overrides are left out with a warning (hookchain's point injects text, it does not replace the request) |
//! | `AfterModel` | `after_llm_call` | observe; a replaced `llm_response` is left out with a warning |
//! | `BeforeToolSelection` | none | hookchain has no point that narrows the tools offered: its hooks are left out with a warning |
//! | `BeforeTool` | `intercept_tool_call` | `deny` blocks with the reason (to the model); `hookSpecificOutput.tool_input` is merged over the arguments |
//! | `AfterTool` | `transform_tool_result` | `deny` replaces the result with the reason; `hookSpecificOutput.tool_output` replaces it; `additionalContext` is context |
//! | `PreCompress` | `before_compaction` | advisory: no veto, no summary (dropped with a warning) |
//! | `Notification` | `notification` | observe; matched on `ToolPermission` for a permission prompt |
//!
//! # Payloads
//!
//! Claude Code's, in Gemini CLI's names: its tool names (`run_shell_command`, `replace`, …),
//! `timestamp` (ISO 8601, UTC), no `permission_mode`; `AfterAgent` has the reply as
//! `prompt_response`; `AfterTool`'s `tool_response` is `{"llmContent", "returnDisplay"}` (and
//! `error` for a failed call); `BeforeModel` and `AfterModel` carry `llm_request` (`messages`)
//! and `llm_response` (`text`); `Notification`'s `notification_type` is `ToolPermission` for a
//! permission prompt, with `details`.
//!
//! # Answers
//!
//! | Gemini CLI's rule | here |
//! |---|---|
//! | exit 0, nothing on stdout | pass (stderr read as the answer when it is a JSON object) |
//! | exit 0, JSON (or a JSON string holding JSON) | read: `decision` `allow`/`approve`, `deny`/`block` (+ `reason`), `ask`; `continue: false` + `stopReason`; `systemMessage` a warning; `hookSpecificOutput` per event (above); other fields ignored |
//! | exit 0, plain text | allow; the text is a warning (`systemMessage`), never context |
//! | exit 2 | block; stdout is read first, stderr when stdout is empty (`stdout \|\| stderr`, as for every exit code): a JSON object is read as on exit 0 and its `reason` is the block's reason, other text is the reason (on `AfterTool`: the replacement result; on `AfterAgent`: the next prompt). Public scripts print `{"decision":"deny","reason":…}` and `exit 2` with nothing on stderr (`5throck/co-safety` `scripts/hooks/gateguard-fact-force.ts`) |
//! | exit 1, a timeout | failed: a warning, the action goes on |
//! | another exit code with text on stdout or stderr that is not JSON | `deny` with that text as the reason |
//! | another exit code otherwise | failed |
//!
//! One divergence in the reading: Gemini CLI reads a JSON object on exit 2 as it reads it on
//! exit 0, so an exit 2 whose JSON says `allow` (or says nothing) lets the action go on there;
//! here exit 2 is the documented block whatever the JSON says (its `reason`, else stderr), as
//! hookchain never lets a hook's blocking exit through.
//!
//! Several answers to one event: in Gemini CLI every hook of a parallel group sees the original
//! input and the answers merge (any `deny` wins, `tool_input`s merge in order); here every
//! group runs as a `sequential` one does — in order, each seeing the previous rewrite — so the
//! merged result is the same except where a later hook reads what an earlier one rewrote.

use hookchain_core::Dialect;
use serde_json::{Map, Value};

use super::Overlay;
use crate::RawOutput;
use crate::answer::{Answer, Verdict};
use crate::protocol::{self, ProtocolError};

/// Gemini CLI's overlay.
pub(super) const OVERLAY: Overlay = Overlay {
    tools: &TOOLS,
    payload,
    from_agent,
    decide,
    plain_stdout_is_context: |_| false,
    claude_rules: false,
    adjust,
    subject,
    ..Overlay::CLAUDE_CODE
};

/// Gemini CLI's tools, and Claude Code's names for them (the names hookchain's guards know).
const TOOLS: [(&str, &str); 11] = [
    ("run_shell_command", "Bash"),
    ("write_file", "Write"),
    ("replace", "Edit"),
    ("read_file", "Read"),
    ("glob", "Glob"),
    ("search_file_content", "Grep"),
    ("grep_search", "Grep"),
    ("list_directory", "LS"),
    ("web_fetch", "WebFetch"),
    ("google_web_search", "WebSearch"),
    ("write_todos", "TodoWrite"),
];

/// Gemini CLI's value of a matcher's subject, where it names it otherwise than Claude Code.
fn subject(point: &str, value: &str) -> Option<&'static str> {
    match (point, value) {
        ("notification", "permission_prompt") => Some("ToolPermission"),
        _ => None,
    }
}

/// Claude Code's payload in Gemini CLI's form (see the [module docs](self)).
fn payload(point: &str, _event: &str, payload: &mut Map<String, Value>) {
    payload.remove("permission_mode");
    payload.insert("timestamp".to_owned(), Value::from(timestamp_now()));
    match point {
        "on_stop" => {
            if let Some(reply) = payload.get("last_assistant_message").cloned() {
                payload.insert("prompt_response".to_owned(), reply);
            }
        }
        "transform_tool_result" | "after_tool_call" => {
            let failed = payload.get("is_error") == Some(&Value::Bool(true));
            if let Some(response) = payload.get("tool_response").cloned() {
                let text = match &response {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                let mut wrapped = Map::new();
                wrapped.insert("llmContent".to_owned(), response);
                wrapped.insert("returnDisplay".to_owned(), Value::from(text.clone()));
                if failed {
                    wrapped.insert("error".to_owned(), Value::from(text));
                }
                payload.insert("tool_response".to_owned(), Value::Object(wrapped));
            }
        }
        "before_llm_call" => {
            let mut request = Map::new();
            if let Some(messages) = payload.get("messages") {
                request.insert("messages".to_owned(), messages.clone());
            }
            payload.insert("llm_request".to_owned(), Value::Object(request));
        }
        "after_llm_call" => {
            let mut response = Map::new();
            if let Some(text) = payload.get("response") {
                response.insert("text".to_owned(), text.clone());
            }
            payload.insert("llm_response".to_owned(), Value::Object(response));
        }
        "notification" => {
            if payload.get("notification_type").and_then(Value::as_str) == Some("permission_prompt")
            {
                payload.insert(
                    "notification_type".to_owned(),
                    Value::from("ToolPermission"),
                );
            }
            payload
                .entry("details")
                .or_insert_with(|| Value::Object(Map::new()));
        }
        _ => {}
    }
}

/// A payload Gemini CLI sends, in Claude Code's form: its tools under Claude Code's names, the
/// reply of `AfterAgent` as `last_assistant_message`, an `AfterTool` result as its text.
fn from_agent(_event: &str, payload: &mut Map<String, Value>) {
    if let Some(Value::String(tool)) = payload.get("tool_name")
        && let Some((_, ours)) = TOOLS.iter().find(|(theirs, _)| theirs == tool)
    {
        payload.insert("tool_name".to_owned(), Value::from(*ours));
    }
    if let Some(reply) = payload.get("prompt_response").cloned() {
        payload.insert("last_assistant_message".to_owned(), reply);
    }
    if let Some(Value::Object(response)) = payload.get("tool_response").cloned()
        && let Some(content) = response.get("llmContent")
    {
        if response.get("error").is_some_and(|e| !e.is_null()) {
            payload.insert("is_error".to_owned(), Value::Bool(true));
        }
        payload.insert("tool_response".to_owned(), content.clone());
    }
}

/// Reads the hook's output as Gemini CLI reads it (see the [module docs](self)).
fn decide(point: &str, _event: &str, raw: &RawOutput) -> Result<Answer, ProtocolError> {
    let stdout = String::from_utf8_lossy(&raw.stdout);
    let stdout = stdout.trim_start_matches('\u{feff}').trim();
    let stderr = String::from_utf8_lossy(&raw.stderr).trim().to_owned();
    match raw.exit_code.unwrap_or(0) {
        0 => {
            // "If stdout is empty, Gemini tries to parse stderr instead."
            let text = if stdout.is_empty() && stderr.starts_with('{') {
                stderr.as_str()
            } else {
                stdout
            };
            if text.is_empty() {
                return Ok(Answer::pass());
            }
            match json_object(text) {
                Some(object) => read_object(point, &object),
                None => Ok(Answer {
                    warnings: vec![text.to_owned()],
                    ..Answer::default()
                }),
            }
        }
        2 => {
            // `hookRunner.ts` reads `stdout || stderr` whatever the exit code: a JSON object is
            // the answer, other text the reason. Exit 2 stays a block here even when that JSON
            // allows (see the module docs).
            let text = if stdout.is_empty() {
                stderr.as_str()
            } else {
                stdout
            };
            match json_object(text) {
                Some(object) => {
                    let mut answer = read_object(point, &object)?;
                    if !matches!(answer.verdict, Verdict::Block(_)) {
                        let reason = object.get("reason").and_then(Value::as_str);
                        let reason = reason.map_or(stderr.clone(), str::to_owned);
                        answer.verdict = Verdict::Block(reason);
                    }
                    Ok(answer)
                }
                None => Ok(Answer::block(text)),
            }
        }
        1 => protocol::decide_in(raw, Dialect::ClaudeCode),
        code => {
            let text = [stdout, stderr.as_str()]
                .into_iter()
                .find(|t| !t.is_empty() && json_object(t).is_none());
            match text {
                Some(text) => Ok(Answer::block(text)),
                None => Err(ProtocolError::ExitCode {
                    code,
                    stderr: stderr.lines().next().unwrap_or_default().to_owned(),
                }),
            }
        }
    }
}

/// `text` as a JSON object, also when it is a JSON string holding one (Gemini CLI parses such a
/// string again).
fn json_object(text: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Object(object) => Some(object),
        Value::String(inner) => match serde_json::from_str::<Value>(&inner).ok()? {
            Value::Object(object) => Some(object),
            _ => None,
        },
        _ => None,
    }
}

/// A JSON answer, by Gemini CLI's fields.
fn read_object(point: &str, object: &Map<String, Value>) -> Result<Answer, ProtocolError> {
    let mut answer = Answer::default();
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    let reason = text("reason").unwrap_or_default();
    if let Some(decision) = object.get("decision").filter(|v| !v.is_null()) {
        answer.verdict = match decision.as_str().map(str::to_ascii_lowercase).as_deref() {
            Some("allow" | "approve") => Verdict::Allow,
            Some("deny" | "block") => Verdict::Block(reason),
            Some("ask") => Verdict::Ask(reason),
            _ => {
                return Err(ProtocolError::UnknownValue {
                    field: "decision".to_owned(),
                    value: decision.to_string(),
                    expected: "`allow`, `deny`, `block` or `ask`",
                });
            }
        };
    }
    if object.get("continue") == Some(&Value::Bool(false)) {
        answer.stop = Some(text("stopReason").unwrap_or_default());
    }
    if let Some(message) = text("systemMessage").filter(|m| !m.is_empty()) {
        answer.warnings.push(message);
    }
    let Some(Value::Object(specific)) = object.get("hookSpecificOutput") else {
        return Ok(answer);
    };
    if let Some(context) = specific.get("additionalContext").and_then(Value::as_str) {
        answer.context.push(context.to_owned());
    }
    match (point, specific.get("tool_input")) {
        ("intercept_tool_call", Some(Value::Object(input))) => {
            answer.merge_input = Some(input.clone());
        }
        ("intercept_tool_call", Some(other)) if !other.is_null() => {
            return Err(ProtocolError::WrongType {
                field: "hookSpecificOutput.tool_input".to_owned(),
                expected: "an object of arguments",
                found: hookchain_core::json_kind(other).to_owned(),
            });
        }
        _ => {}
    }
    if point == "transform_tool_result"
        && let Some(output) = specific.get("tool_output").filter(|v| !v.is_null())
    {
        answer.updated_output = Some(output.clone());
    }
    for (key, what) in [
        ("llm_request", "a replaced model request"),
        ("llm_response", "a replaced model response"),
        ("clearContext", "clearing the model's memory"),
        ("toolConfig", "narrowing the tools offered"),
    ] {
        if specific
            .get(key)
            .is_some_and(|v| !v.is_null() && v != &Value::Bool(false))
        {
            answer.warnings.push(format!(
                "the hook's `hookSpecificOutput.{key}` ({what}) has no equivalent in hookchain: \
                 left out"
            ));
        }
    }
    Ok(answer)
}

/// Gemini CLI's reading of a decision on each point (see the [module docs](self)).
fn adjust(point: &str, event: &str, answer: &mut Answer) {
    match point {
        // A `deny` of `AfterTool` replaces the result the model sees with the reason.
        "transform_tool_result" => {
            if let Verdict::Block(reason) = &answer.verdict {
                answer.updated_output = Some(Value::from(reason.as_str()));
                answer.verdict = Verdict::Pass;
            }
        }
        // Advisory events: no veto, no rewrite.
        "session_start" | "before_compaction" => {
            let vetoed = matches!(answer.verdict, Verdict::Block(_) | Verdict::Ask(_))
                || answer.stop.is_some();
            if vetoed || answer.summary.is_some() {
                answer.warnings.push(format!(
                    "Gemini CLI's `{event}` is advisory: the hook's decision is left out"
                ));
            }
            if vetoed {
                answer.verdict = Verdict::Pass;
            }
            answer.stop = None;
            answer.summary = None;
            answer.updated_text = None;
        }
        _ => {}
    }
}

/// Now as ISO 8601 in UTC with milliseconds (`2026-11-26T05:12:40.019Z`), as Gemini CLI writes
/// `timestamp`.
fn timestamp_now() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    timestamp(now.as_secs(), now.subsec_millis())
}

/// `secs` since the epoch (and `millis`) as ISO 8601 in UTC.
fn timestamp(secs: u64, millis: u32) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rest = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::agents::raw;

    #[test]
    fn timestamps_are_iso_8601_in_utc() {
        assert_eq!(timestamp(0, 0), "1970-01-01T00:00:00.000Z");
        // 2026-11-26T05:12:40.019Z
        assert_eq!(timestamp(1_795_669_960, 19), "2026-11-26T05:12:40.019Z");
        assert_eq!(timestamp(951_782_400, 5), "2000-02-29T00:00:00.005Z");
    }

    /// `hookRunner.ts`: exit codes, plain text, a JSON string holding JSON, stderr when stdout
    /// is empty.
    #[test]
    fn answers_are_read_as_gemini_reads_them() {
        let deny = decide(
            "intercept_tool_call",
            "BeforeTool",
            &raw(0, r#"{"decision":"deny","reason":"no"}"#, ""),
        );
        assert_eq!(deny.unwrap().verdict, Verdict::Block("no".to_owned()));
        let quoted = decide(
            "intercept_tool_call",
            "BeforeTool",
            &raw(0, r#""{\"decision\":\"block\",\"reason\":\"q\"}""#, ""),
        );
        assert_eq!(quoted.unwrap().verdict, Verdict::Block("q".to_owned()));
        let plain = decide("transform_user_input", "BeforeAgent", &raw(0, "hello", "")).unwrap();
        assert_eq!(
            (plain.warnings, plain.context),
            (vec!["hello".to_owned()], vec![])
        );
        let from_stderr = decide(
            "intercept_tool_call",
            "BeforeTool",
            &raw(0, "", r#"{"decision":"deny","reason":"e"}"#),
        );
        assert_eq!(from_stderr.unwrap().verdict, Verdict::Block("e".to_owned()));
        let two = decide("intercept_tool_call", "BeforeTool", &raw(2, "", "stop\n")).unwrap();
        assert_eq!(two.verdict, Verdict::Block("stop".to_owned()));
        assert!(decide("intercept_tool_call", "BeforeTool", &raw(1, "", "oops")).is_err());
        let odd = decide(
            "intercept_tool_call",
            "BeforeTool",
            &raw(3, "not allowed", ""),
        )
        .unwrap();
        assert_eq!(odd.verdict, Verdict::Block("not allowed".to_owned()));
        assert!(decide("intercept_tool_call", "BeforeTool", &raw(3, "", "")).is_err());
        let merge = decide(
            "intercept_tool_call",
            "BeforeTool",
            &raw(
                0,
                r#"{"hookSpecificOutput":{"tool_input":{"command":"npm ci"}}}"#,
                "",
            ),
        )
        .unwrap();
        assert_eq!(
            merge.merge_input.map(Value::Object),
            Some(serde_json::json!({"command": "npm ci"}))
        );
    }

    /// Exit 2 reads `stdout || stderr` as `hookRunner.ts` does: a deny printed as JSON with
    /// nothing on stderr keeps its reason; an allow printed beside exit 2 still blocks.
    #[test]
    fn exit_2_reads_the_json_on_stdout_for_its_reason() {
        let json_deny = raw(
            2,
            r#"{"decision":"deny","reason":"read the importers first"}"#,
            "",
        );
        let answer = decide("intercept_tool_call", "BeforeTool", &json_deny).unwrap();
        assert_eq!(
            answer.verdict,
            Verdict::Block("read the importers first".to_owned())
        );
        let plain_stdout = decide("intercept_tool_call", "BeforeTool", &raw(2, "out", "err"));
        assert_eq!(
            plain_stdout.unwrap().verdict,
            Verdict::Block("out".to_owned())
        );
        let allow = decide(
            "intercept_tool_call",
            "BeforeTool",
            &raw(2, r#"{"decision":"allow"}"#, "because"),
        );
        assert_eq!(allow.unwrap().verdict, Verdict::Block("because".to_owned()));
        let context = decide(
            "transform_tool_result",
            "AfterTool",
            &raw(
                2,
                r#"{"decision":"deny","reason":"r","hookSpecificOutput":{"additionalContext":"c"}}"#,
                "",
            ),
        )
        .unwrap();
        assert_eq!(
            (context.verdict, context.context),
            (Verdict::Block("r".to_owned()), vec!["c".to_owned()])
        );
        let json_on_stderr = decide(
            "intercept_tool_call",
            "BeforeTool",
            &raw(2, "", r#"{"decision":"deny","reason":"e2"}"#),
        );
        assert_eq!(
            json_on_stderr.unwrap().verdict,
            Verdict::Block("e2".to_owned())
        );
    }

    #[test]
    fn a_deny_of_after_tool_replaces_the_result() {
        let mut answer = Answer::block("[withheld]");
        adjust("transform_tool_result", "AfterTool", &mut answer);
        assert_eq!(answer.verdict, Verdict::Pass);
        assert_eq!(answer.updated_output, Some(Value::from("[withheld]")));
    }
}
