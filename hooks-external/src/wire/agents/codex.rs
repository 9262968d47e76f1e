//! Codex's differences from Claude Code's hook protocol, as an overlay (see the
//! [parent module](super)). Sources: Codex's documentation
//! (<https://developers.openai.com/codex/hooks>) and its source, `openai/codex`
//! `codex-rs/hooks/src/engine/output_parser.rs` (what an answer may say),
//! `codex-rs/hooks/src/schema.rs` (every output object `deny_unknown_fields`),
//! `codex-rs/hooks/src/events/*.rs` (exit codes, plain stdout); the whole reference is
//! `docs/agents/codex.md`.
//!
//! # Events
//!
//! | Codex | point | which firings |
//! |---|---|---|
//! | `SessionStart` | `session_start` | every session start (matcher on `source`) |
//! | `SubagentStart` | `session_start` | a child agent's session (Claude Code's rule) |
//! | `SessionEnd` | `session_end` | every one |
//! | `UserPromptSubmit` | `transform_user_input` | every prompt |
//! | `PreToolUse` | `intercept_tool_call` | every tool call (matcher on the tool name) |
//! | `PermissionRequest` | `permission_request` | every request |
//! | `PostToolUse` | `transform_tool_result` | every result |
//! | `PreCompact`, `PostCompact` | `before_compaction`, `after_compaction` | every one; `PreCompact` cannot veto nor rewrite |
//! | `Stop` | `on_stop` | every one |
//! | `SubagentStop` | `subagent_stop` | every one |
//! | `Interrupt` | `turn_end` | a turn the user canceled only |
//! | `StopFailure` | none | its hooks are left out with a warning (no point has its firing: an API error ending the turn) |
//!
//! # Payloads
//!
//! Claude Code's, plus `turn_id` (the turn, as text) on every event but `SessionStart` and
//! `SessionEnd`, and without `permission_mode` on `PreCompact` and `PostCompact`. Tool names:
//! every shell tool of the session (`Bash`, `shell`, `exec_command`, …) reaches a Codex script
//! as `Bash` with `{"command": …}`, as in Codex; the other names are kept (Codex's `apply_patch`
//! is its own, with a patch for input: hookchain's guards do not read it as `Edit`).
//!
//! # Answers
//!
//! | Codex's rule | here |
//! |---|---|
//! | exit 0, nothing on stdout | pass |
//! | exit 0, JSON with a field Codex does not know for the event (or a known one it does not support there) | the hook failed ([`ProtocolError::Rejected`]): its answer is dropped, the call goes on |
//! | `PreToolUse`: `permissionDecision: "allow"` without `updatedInput`; `"ask"`; `updatedInput` without `allow`; `permissionDecisionReason` without a decision; `deny` with an empty reason; `decision: "approve"`; `reason` without `decision`; `continue: false`, `stopReason`, `suppressOutput` | failed |
//! | `PreToolUse`: `deny` + reason, `decision: "block"` + reason | block |
//! | `PreToolUse`: `allow` + `updatedInput` | the call's input replaced |
//! | `PostToolUse`, `UserPromptSubmit`, `Stop`: `decision: "block"` with an empty reason; `PostToolUse`: `reason` without `decision`, `suppressOutput` | failed |
//! | `PostToolUse`: `updatedToolOutput` or `updatedMCPToolOutput` | the result replaced |
//! | `PermissionRequest`: `decision.updatedInput`, `updatedPermissions`, `interrupt: true`, `continue: false`, `stopReason`, `suppressOutput` | failed |
//! | `hookSpecificOutput.hookEventName` other than the event | failed |
//! | exit 0, stdout starting with `{` or `[` that is not a JSON object | failed |
//! | exit 0, plain text | context on `SessionStart` and `UserPromptSubmit`, ignored on the others; on `Interrupt` the hook failed |
//! | exit 2 | block with stderr on `PreToolUse` (empty stderr: failed), `PermissionRequest`, `PostToolUse`, `UserPromptSubmit`, `Stop`, `SubagentStop`; failed on the others |
//! | another exit code, a timeout | failed |
//! | `Interrupt` answers `systemMessage` only | the same: anything else is a failed hook |
//! | `PreCompact` observes only | a block or a summary is dropped, with a warning |
//!
//! A failed hook is an error under the hook's policy: Codex's files load with
//! [`OnError::Warn`](crate::OnError::Warn), so it is reported and the action goes on, as in
//! Codex. Several hooks rewriting one call: in Codex they run concurrently and the last to
//! finish wins; here they run as a chain in file order, each seeing the previous rewrite, and
//! the last in order wins.

use hookchain_core::Dialect;
use serde_json::{Map, Value};

use super::Overlay;
use crate::RawOutput;
use crate::answer::{Answer, Verdict};
use crate::protocol::{self, ProtocolError};

/// Codex's overlay.
pub(super) const OVERLAY: Overlay = Overlay {
    tools: &TOOLS,
    payload,
    from_agent,
    decide,
    adjust,
    ..Overlay::CLAUDE_CODE
};

/// Codex's tools, and Claude Code's names for them: every shell tool reaches hooks as `Bash`.
const TOOLS: [(&str, &str); 5] = [
    ("Bash", "Bash"),
    ("exec_command", "Bash"),
    ("shell", "Bash"),
    ("shell_command", "Bash"),
    ("local_shell", "Bash"),
];

/// The agent's name in messages.
const CODEX: &str = "Codex";

/// Claude Code's payload in Codex's form (see the [module docs](self)).
fn payload(_point: &str, event: &str, payload: &mut Map<String, Value>) {
    if !matches!(event, "SessionStart" | "SessionEnd") && !payload.contains_key("turn_id") {
        let turn = match payload.get("turn") {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => "0".to_owned(),
        };
        payload.insert("turn_id".to_owned(), Value::from(turn));
    }
    if matches!(event, "PreCompact" | "PostCompact") {
        payload.remove("permission_mode");
    }
}

/// A payload Codex sends, in Claude Code's form: its shell tools named `Bash`, and an
/// `Interrupt` the end of a canceled turn.
fn from_agent(event: &str, payload: &mut Map<String, Value>) {
    if event == "Interrupt" {
        payload
            .entry("reason")
            .or_insert_with(|| Value::from("canceled"));
    }
    if let Some(Value::String(tool)) = payload.get("tool_name")
        && let Some((_, ours)) = TOOLS.iter().find(|(theirs, _)| theirs == tool)
    {
        payload.insert("tool_name".to_owned(), Value::from(*ours));
    }
}

/// The fields Codex accepts at the top of every answer.
const UNIVERSAL: &[&str] = &["continue", "stopReason", "suppressOutput", "systemMessage"];

/// What Codex accepts in an answer to `event`: the top-level fields beyond [`UNIVERSAL`], and
/// the fields of `hookSpecificOutput` (`None`: it has none).
fn accepted(event: &str) -> (&'static [&'static str], Option<&'static [&'static str]>) {
    match event {
        "PreToolUse" => (
            &["decision", "reason"],
            Some(&[
                "hookEventName",
                "permissionDecision",
                "permissionDecisionReason",
                "updatedInput",
                "additionalContext",
            ]),
        ),
        "PermissionRequest" => (&[], Some(&["hookEventName", "decision"])),
        "PostToolUse" => (
            &["decision", "reason"],
            Some(&[
                "hookEventName",
                "additionalContext",
                "updatedMCPToolOutput",
                "updatedToolOutput",
            ]),
        ),
        "UserPromptSubmit" => (
            &["decision", "reason"],
            Some(&["hookEventName", "additionalContext"]),
        ),
        "Stop" | "SubagentStop" => (&["decision", "reason"], None),
        "SessionStart" | "SubagentStart" => (&[], Some(&["hookEventName", "additionalContext"])),
        _ => (&[], None),
    }
}

/// A hook Codex counts as failed.
fn rejected(problem: impl Into<String>) -> ProtocolError {
    ProtocolError::Rejected {
        agent: CODEX,
        problem: problem.into(),
    }
}

/// Reads the hook's output as Codex reads it (see the [module docs](self)).
fn decide(_point: &str, event: &str, raw: &RawOutput) -> Result<Answer, ProtocolError> {
    match raw.exit_code.unwrap_or(0) {
        0 => {
            let text = String::from_utf8_lossy(&raw.stdout);
            let text = text.trim_start_matches('\u{feff}').trim();
            if text.is_empty() {
                return Ok(Answer::pass());
            }
            if !text.starts_with(['{', '[']) {
                if event == "Interrupt" {
                    return Err(rejected(
                        "an `Interrupt` hook must answer JSON (`systemMessage`) or nothing, and \
                         printed plain text",
                    ));
                }
                // Plain text: context where Claude Code's tables say so, else dropped.
                return protocol::decide_in(raw, Dialect::ClaudeCode);
            }
            let object = match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(object)) => object,
                // Not an object, or not JSON: the protocol's own error says which.
                _ => return protocol::decide_in(raw, Dialect::ClaudeCode),
            };
            check(event, &object)?;
            let mut answer = protocol::decide_in(raw, Dialect::ClaudeCode)?;
            if let Some(Value::Object(specific)) = object.get("hookSpecificOutput")
                && let Some(output) = specific.get("updatedToolOutput")
            {
                answer.updated_output = Some(output.clone());
            }
            Ok(answer)
        }
        2 => {
            let stderr = String::from_utf8_lossy(&raw.stderr).trim().to_owned();
            match event {
                "PreToolUse" if stderr.is_empty() => Err(rejected(
                    "exit code 2 blocks a `PreToolUse` call with the reason on stderr, and \
                     stderr was empty",
                )),
                "PreToolUse" | "PermissionRequest" | "PostToolUse" | "UserPromptSubmit"
                | "Stop" | "SubagentStop" => Ok(Answer::block(stderr)),
                _ => Err(ProtocolError::ExitCode {
                    code: 2,
                    stderr: stderr.lines().next().unwrap_or_default().to_owned(),
                }),
            }
        }
        _ => protocol::decide_in(raw, Dialect::ClaudeCode),
    }
}

/// The answer `object` to `event`, held to Codex's schema and rules: `Err` when Codex counts
/// the hook as failed.
fn check(event: &str, object: &Map<String, Value>) -> Result<(), ProtocolError> {
    let (top, specific) = accepted(event);
    for key in object.keys() {
        let key = key.as_str();
        let known = if event == "Interrupt" {
            key == "systemMessage"
        } else {
            UNIVERSAL.contains(&key)
                || top.contains(&key)
                || (key == "hookSpecificOutput" && specific.is_some())
        };
        if !known {
            return Err(rejected(format!(
                "`{key}` is not a field of Codex's answer to `{event}`"
            )));
        }
    }
    let string = |key: &str| object.get(key).and_then(Value::as_str);
    let non_empty = |text: Option<&str>| text.is_some_and(|t| !t.trim().is_empty());
    let hso = match object.get("hookSpecificOutput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(fields)) => Some(fields),
        Some(_) => return Err(rejected("`hookSpecificOutput` must be an object")),
    };
    if let (Some(fields), Some(allowed)) = (hso, specific) {
        for key in fields.keys() {
            if !allowed.contains(&key.as_str()) {
                return Err(rejected(format!(
                    "`hookSpecificOutput.{key}` is not a field of Codex's answer to `{event}`"
                )));
            }
        }
        match fields.get("hookEventName").and_then(Value::as_str) {
            Some(name) if name == event => {}
            Some(name) => {
                return Err(rejected(format!(
                    "`hookSpecificOutput.hookEventName` is `{name}`, not `{event}`"
                )));
            }
            None => {
                return Err(rejected(
                    "`hookSpecificOutput` has no `hookEventName` naming the event",
                ));
            }
        }
    }
    let stops = object.get("continue") == Some(&Value::Bool(false));
    let specific_str = |key: &str| hso.and_then(|f| f.get(key)).and_then(Value::as_str);
    match event {
        "PreToolUse" | "PermissionRequest" => {
            for (key, set) in [
                ("continue: false", stops),
                ("stopReason", object.contains_key("stopReason")),
                (
                    "suppressOutput",
                    object.get("suppressOutput") == Some(&Value::Bool(true)),
                ),
            ] {
                if set {
                    return Err(rejected(format!("`{key}` is not supported on `{event}`")));
                }
            }
        }
        "PostToolUse" if object.get("suppressOutput") == Some(&Value::Bool(true)) => {
            return Err(rejected(
                "`suppressOutput` is not supported on `PostToolUse`",
            ));
        }
        _ => {}
    }
    if let Some(decision) = object.get("decision")
        && !decision.is_null()
    {
        match decision.as_str() {
            Some("block") => {
                if !non_empty(string("reason")) {
                    return Err(rejected(format!(
                        "`decision: \"block\"` on `{event}` needs a non-empty `reason`"
                    )));
                }
            }
            Some("approve") if event == "PreToolUse" => {
                return Err(rejected("`decision: \"approve\"` is not supported"));
            }
            _ => {
                return Err(rejected(format!(
                    "`decision` must be \"block\" on `{event}`, found {decision}"
                )));
            }
        }
    } else if object.contains_key("reason")
        && (event == "PreToolUse" || (event == "PostToolUse" && !stops))
    {
        return Err(rejected("`reason` without `decision`"));
    }
    if event == "PreToolUse" {
        let permission = specific_str("permissionDecision");
        let updated = hso.is_some_and(|f| f.contains_key("updatedInput"));
        let reason = specific_str("permissionDecisionReason");
        let has_reason = hso.is_some_and(|f| f.contains_key("permissionDecisionReason"));
        match permission {
            Some("allow") if !updated => {
                return Err(rejected(
                    "`permissionDecision: \"allow\"` is supported only beside `updatedInput`",
                ));
            }
            Some("allow") => {}
            Some("deny") if !non_empty(reason) => {
                return Err(rejected(
                    "`permissionDecision: \"deny\"` needs a non-empty `permissionDecisionReason`",
                ));
            }
            Some("deny") => {}
            Some(other) => {
                return Err(rejected(format!(
                    "`permissionDecision: \"{other}\"` is not supported (`allow` with \
                     `updatedInput`, or `deny`)"
                )));
            }
            None if updated => {
                return Err(rejected(
                    "`updatedInput` without `permissionDecision: \"allow\"`",
                ));
            }
            None if has_reason => {
                return Err(rejected(
                    "`permissionDecisionReason` without `permissionDecision`",
                ));
            }
            None => {}
        }
    }
    if event == "PermissionRequest"
        && let Some(request) = hso.and_then(|f| f.get("decision"))
    {
        let Value::Object(request) = request else {
            return Err(rejected("`hookSpecificOutput.decision` must be an object"));
        };
        for (key, value) in request {
            match key.as_str() {
                "behavior" | "message" => {}
                "interrupt" if value == &Value::Bool(false) => {}
                "updatedInput" | "updatedPermissions" | "interrupt" => {
                    return Err(rejected(format!(
                        "`decision.{key}` is not supported on `PermissionRequest`"
                    )));
                }
                other => {
                    return Err(rejected(format!(
                        "`decision.{other}` is not a field of Codex's `PermissionRequest` \
                         decision"
                    )));
                }
            }
        }
        match request.get("behavior").and_then(Value::as_str) {
            Some("allow" | "deny") => {}
            _ => {
                return Err(rejected(
                    "`decision.behavior` must be \"allow\" or \"deny\"",
                ));
            }
        }
    }
    Ok(())
}

/// Codex's own reading after Claude Code's rules: `PreCompact` observes only.
fn adjust(point: &str, event: &str, answer: &mut Answer) {
    if point == "before_compaction" {
        let vetoed = matches!(answer.verdict, Verdict::Block(_) | Verdict::Ask(_));
        if vetoed || answer.summary.is_some() || answer.updated_text.is_some() {
            answer.warnings.push(format!(
                "Codex's `{event}` cannot stop nor rewrite the compaction: the hook's decision \
                 is left out"
            ));
        }
        if vetoed {
            answer.verdict = Verdict::Pass;
        }
        answer.summary = None;
        answer.updated_text = None;
        answer.stop = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::agents::raw;

    fn failed(event: &str, stdout: &str) -> bool {
        matches!(
            decide("", event, &raw(0, stdout, "")),
            Err(ProtocolError::Rejected { .. })
        )
    }

    /// `codex-rs/hooks/src/engine/output_parser.rs`: what makes a `PreToolUse` answer fail.
    #[test]
    fn pre_tool_use_answers_codex_rejects_fail() {
        let hso = |fields: &str| {
            format!("{{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", {fields}}}}}")
        };
        assert!(failed(
            "PreToolUse",
            &hso("\"permissionDecision\": \"allow\"")
        ));
        assert!(failed(
            "PreToolUse",
            &hso("\"permissionDecision\": \"ask\"")
        ));
        assert!(failed(
            "PreToolUse",
            &hso("\"updatedInput\": {\"command\": \"ls\"}")
        ));
        assert!(failed(
            "PreToolUse",
            &hso("\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \" \"")
        ));
        assert!(failed("PreToolUse", "{\"decision\": \"approve\"}"));
        assert!(failed("PreToolUse", "{\"reason\": \"why\"}"));
        assert!(failed("PreToolUse", "{\"continue\": false}"));
        assert!(failed("PreToolUse", "{\"unknown\": 1}"));
        assert!(failed(
            "PreToolUse",
            "{\"hookSpecificOutput\": {\"hookEventName\": \"Stop\"}}"
        ));
        let rewrite =
            hso("\"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"npm ci\"}");
        let answer = decide("", "PreToolUse", &raw(0, &rewrite, "")).unwrap();
        assert_eq!(
            answer.updated_input,
            Some(serde_json::json!({"command": "npm ci"}))
        );
        let deny = hso("\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no\"");
        let answer = decide("", "PreToolUse", &raw(0, &deny, "")).unwrap();
        assert_eq!(answer.verdict, Verdict::Block("no".to_owned()));
    }

    #[test]
    fn exit_two_blocks_only_where_codex_reads_it() {
        let block = decide("", "PreToolUse", &raw(2, "", "force push\n")).unwrap();
        assert_eq!(block.verdict, Verdict::Block("force push".to_owned()));
        assert!(decide("", "PreToolUse", &raw(2, "", "")).is_err());
        assert!(decide("", "SessionStart", &raw(2, "", "no")).is_err());
        assert!(decide("", "Interrupt", &raw(2, "", "no")).is_err());
        assert!(decide("", "PostToolUse", &raw(1, "", "boom")).is_err());
    }

    #[test]
    fn interrupt_takes_a_system_message_only() {
        let note = decide(
            "",
            "Interrupt",
            &raw(0, "{\"systemMessage\": \"saved\"}", ""),
        );
        assert_eq!(note.unwrap().warnings, vec!["saved".to_owned()]);
        assert!(failed("Interrupt", "{\"continue\": false}"));
        assert!(failed("Interrupt", "interrupted"));
    }

    #[test]
    fn post_tool_use_reads_both_output_fields() {
        let answer = decide(
            "",
            "PostToolUse",
            &raw(
                0,
                "{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \
                 \"updatedToolOutput\": \"[redacted]\"}}",
                "",
            ),
        )
        .unwrap();
        assert_eq!(answer.updated_output, Some(Value::from("[redacted]")));
        assert!(failed("PostToolUse", "{\"suppressOutput\": true}"));
        assert!(failed("PostToolUse", "{\"decision\": \"block\"}"));
    }
}
