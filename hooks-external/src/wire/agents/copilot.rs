//! GitHub Copilot's differences from Claude Code's hook protocol (Copilot CLI and Copilot's cloud
//! agent, `.github/hooks/*.json` with camelCase event keys), as an overlay (see the
//! [parent module](super)). Sources: `github/docs`,
//! `content/copilot/reference/copilot-cli-reference/cli-hooks-reference.md` (the reference) and
//! `content/copilot/reference/hooks-configuration.md` (the examples), the Copilot SDK's
//! `onPreToolUse` page; rules marked (summary) come from a third-party summary of the same
//! reference. The research is in `docs/agents/copilot.md`.
//!
//! A hook configured under a PascalCase key of the same files (`PreToolUse`: the VS Code
//! compatible form) speaks Claude Code's protocol and is loaded in Claude Code's dialect: this
//! overlay is for the camelCase events.
//!
//! # Events and firings
//!
//! | Copilot event | point | fires for |
//! |---|---|---|
//! | `sessionStart` | `session_start` | a session that is not a child agent's; the answer is ignored |
//! | `subagentStart` | `session_start` | a child agent's session (its `additionalContext` is the child's context) |
//! | `sessionEnd` | `session_end` | every end |
//! | `userPromptSubmitted` | `transform_user_input` | every prompt; the answer is ignored |
//! | `preToolUse` | `intercept_tool_call` | every call |
//! | `permissionRequest` | `permission_request` | every permission asked for |
//! | `postToolUse` | `transform_tool_result` | a call that succeeded (`is_error` false) |
//! | `postToolUseFailure` | `after_tool_call` | a call that failed (`is_error` true), not one a hook refused |
//! | `agentStop` | `on_stop` | every end of a turn |
//! | `subagentStop` | `subagent_stop` | every child agent's end (observe: Copilot's block, "run the child again", has no counterpart) |
//! | `preCompact` | `before_compaction` | every compaction; the answer is ignored |
//! | `errorOccurred` | `notification` | error-level notifications only |
//! | `notification` | `notification` | every notification |
//!
//! # The payload
//!
//! Copilot sends camelCase fields and **no event name** (the reference: only `notification`
//! carries `hook_event_name`), so the payload is Copilot's own, built from Claude Code's:
//!
//! | Copilot field | from | events |
//! |---|---|---|
//! | `sessionId` | `session_id` | every event |
//! | `timestamp` | the clock, epoch milliseconds | every event |
//! | `cwd` | the session's project directory | every event |
//! | `toolName` | `tool_name`, in Copilot's names (`Bash` → `bash`, `Write` → `create`, …) | the tool events |
//! | `toolArgs` | `tool_input`, **as JSON text** (the reference's examples: `"{\"command\":\"…\"}"`) | the tool events |
//! | `toolResult` | `{resultType: "success", textResultForLlm}` from `tool_response` | `postToolUse` |
//! | `error` | the tool's output, as text | `postToolUseFailure` |
//! | `error`, `errorContext`, `recoverable` | `{message, name: "Error"}`, `"system"`, `true` | `errorOccurred` |
//! | `prompt` | `prompt` | `userPromptSubmitted` |
//! | `source` | `source`: `startup`; hookchain's `reset` as `new`; `resume` and `compact` as `resume` | `sessionStart` |
//! | `reason` | `reason`: Copilot's own values kept; `exit`, `logout`, `prompt_input_exit`, `clear` as `user_exit`; `dropped`, `canceled`, `interrupted` as `abort`; `failed` as `error`; else `complete` | `sessionEnd` |
//! | `transcriptPath` | `transcript_path` | `agentStop`, `subagentStart`, `subagentStop`, `preCompact` |
//! | `stopReason`, `stop_hook_active` | `"end_turn"`, `stop_hook_active` | `agentStop` |
//! | `agentName` | the agent's `agent_name` (when it gave one), else `""` | `subagentStart`, `subagentStop` |
//! | `trigger`, `customInstructions` | `trigger`, `""` | `preCompact` |
//! | `hook_event_name`, `message`, `notification_type` | `"Notification"`, `message`, Claude Code's type of the notification's kind where it has one (`permission_prompt`, `idle_prompt`), else the kind (`general`, `max_iterations`) | `notification` |
//!
//! hookchain's own `turn` and `turn_state` are kept (a script that does not read them is not
//! disturbed); Claude Code's names that Copilot does not send (`hook_event_name`, `session_id`,
//! `tool_input`, `permission_mode`, …) are not.
//!
//! # The answer
//!
//! | exit | read as |
//! |---|---|
//! | 0 | stdout as one JSON object (progress lines `{"type": "progress", …}` before it skipped, (summary)); empty = pass; text that is not JSON is logged and dropped |
//! | 2 | `preToolUse`: deny, stderr the reason (summary; the reference documents exit 2 for the two events below only: hookchain takes the summary's reading, the one that does not let a deny through); `permissionRequest`: deny, stdout's JSON merged into `{"behavior": "deny"}`, stderr ignored (reference); `postToolUseFailure`: stderr (else stdout) is context, recovery guidance (reference); elsewhere a failure |
//! | other, timeout | a failure: "they never block agent execution" (reference), so the hook's policy (warn) applies and the call goes on |
//!
//! | field | event | means |
//! |---|---|---|
//! | `permissionDecision` `allow`/`deny`/`ask` + `permissionDecisionReason` | `preToolUse` | allow (later hooks still run), block, or ask — which hookchain, with no one to ask, blocks (the cloud agent reads `ask` as deny) |
//! | `modifiedArgs` | `preToolUse` | the tool's new arguments, whole |
//! | `behavior` `allow`/`deny` + `message`, `interrupt` | `permissionRequest` | grant or refuse the permission; `interrupt: true` with deny stops the agent |
//! | `decision: "block"` + `reason` | `agentStop`, `subagentStop` | the agent goes on with `reason` as its next prompt (`subagent_stop` observes: there the block is logged) |
//! | `additionalContext` | `preToolUse`, `postToolUse`, `postToolUseFailure`, `subagentStart`, `notification` | context for the model |
//!
//! `modifiedResult` replaces a result for the SDK's in-process hooks only ("SDK programmatic
//! hooks only", reference): a command hook's is ignored.
//!
//! Claude Code's `hookSpecificOutput` fields are read too (a script may mix them). The output of
//! `sessionStart`, `sessionEnd`, `userPromptSubmitted`, `preCompact` and `errorOccurred` is
//! ignored, as Copilot ignores it (the reference's "Output processed: No"): a block there is
//! logged, never applied. Plain stdout is never context.

use serde_json::{Map, Value};

use super::Overlay;
use crate::RawOutput;
use crate::answer::Answer;
use crate::protocol::{self, ProtocolError};
use hookchain_core::Dialect;

/// Copilot's overlay.
pub(super) const OVERLAY: Overlay = Overlay {
    tools: TOOLS,
    claude_fields: false,
    narrowed: &[
        ("errorOccurred", |fields| {
            fields.get("level").and_then(Value::as_str) == Some("error")
        }),
        ("postToolUse", |fields| !is_error(fields)),
        ("postToolUseFailure", |fields| is_error(fields)),
    ],
    payload,
    from_agent,
    decide,
    plain_stdout_is_context: |_| false,
    adjust,
    ..Overlay::CLAUDE_CODE
};

/// Copilot's tools and Claude Code's names for them (the reference's tool names). `powershell`
/// has none: its command is PowerShell, which the guards' reading of a shell line does not judge.
const TOOLS: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("view", "Read"),
    ("create", "Write"),
    ("edit", "Edit"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("web_fetch", "WebFetch"),
    ("task", "Task"),
    ("ask_user", "AskUserQuestion"),
];

/// The events whose output Copilot ignores.
const IGNORED: &[&str] = &[
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "preCompact",
    "errorOccurred",
];

/// `true` for a tool result that is an error.
fn is_error(fields: &Map<String, Value>) -> bool {
    fields.get("is_error").and_then(Value::as_bool) == Some(true)
}

/// A value as text: a string as it is, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Milliseconds since the epoch (0 if the clock is before it).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Claude Code's payload, rebuilt with Copilot's fields (see the module docs).
fn payload(point: &str, event: &str, map: &mut Map<String, Value>) {
    let claude = std::mem::take(map);
    let get = |key: &str| claude.get(key).cloned();
    let mut out = Map::new();
    let mut put = |key: &str, value: Value| {
        out.insert(key.to_owned(), value);
    };
    put("sessionId", get("session_id").unwrap_or(Value::Null));
    put("timestamp", Value::from(now_ms()));
    put("cwd", get("cwd").unwrap_or(Value::Null));
    let transcript = || get("transcript_path").unwrap_or_else(|| Value::from(""));
    let agent_name = || get("agent_name").unwrap_or_else(|| Value::from(""));
    if let Some(tool) = get("tool_name") {
        put("toolName", tool);
        let args = get("tool_input").unwrap_or(Value::Object(Map::new()));
        put("toolArgs", Value::from(args.to_string()));
    }
    match (point, event) {
        (_, "postToolUse") => {
            let result = get("tool_response").unwrap_or(Value::Null);
            put(
                "toolResult",
                serde_json::json!({"resultType": "success", "textResultForLlm": text(&result)}),
            );
        }
        (_, "postToolUseFailure") => {
            put(
                "error",
                Value::from(text(&get("tool_response").unwrap_or_default())),
            );
        }
        (_, "userPromptSubmitted") => put("prompt", get("prompt").unwrap_or_default()),
        ("session_start", "subagentStart") => {
            put("transcriptPath", transcript());
            put("agentName", agent_name());
        }
        ("session_start", _) => {
            let source = match get("source").as_ref().and_then(Value::as_str) {
                Some("reset") => "new",
                Some("resume" | "compact") => "resume",
                _ => "startup",
            };
            put("source", Value::from(source));
        }
        ("session_end", _) => {
            let reason = get("reason");
            let reason = match reason.as_ref().and_then(Value::as_str).unwrap_or_default() {
                known @ ("complete" | "error" | "abort" | "timeout" | "user_exit") => known,
                "exit" | "logout" | "prompt_input_exit" | "clear" => "user_exit",
                "dropped" | "canceled" | "interrupted" => "abort",
                "failed" => "error",
                _ => "complete",
            };
            put("reason", Value::from(reason));
        }
        ("on_stop", _) => {
            put("transcriptPath", transcript());
            put("stopReason", Value::from("end_turn"));
            put(
                "stop_hook_active",
                get("stop_hook_active").unwrap_or(Value::Bool(false)),
            );
        }
        ("subagent_stop", _) => {
            put("transcriptPath", transcript());
            put("agentName", agent_name());
            put("stopReason", Value::from("end_turn"));
        }
        ("before_compaction", _) => {
            put("transcriptPath", transcript());
            put(
                "trigger",
                get("trigger").unwrap_or_else(|| Value::from("auto")),
            );
            put("customInstructions", Value::from(""));
        }
        ("notification", "errorOccurred") => {
            let message = get("message").unwrap_or_default();
            put(
                "error",
                serde_json::json!({"message": message, "name": "Error"}),
            );
            put("errorContext", Value::from("system"));
            put("recoverable", Value::Bool(true));
        }
        ("notification", _) => {
            put("hook_event_name", Value::from("Notification"));
            put("message", get("message").unwrap_or_default());
            // Claude Code's type where it has one (what a matcher is matched against), else
            // hookchain's kind.
            let kind = get("kind").unwrap_or_default();
            let named = serde_json::from_value(kind.clone())
                .ok()
                .and_then(crate::wire::tables::notification_type);
            put("notification_type", named.map_or(kind, Value::from));
        }
        _ => {}
    }
    for key in ["turn", "turn_state"] {
        if let Some(value) = get(key) {
            put(key, value);
        }
    }
    *map = out;
}

/// A payload Copilot sends, in Claude Code's form: `sessionId` → `session_id`, `toolName` →
/// `tool_name` in Claude Code's names, `toolArgs` (JSON text or an object) → `tool_input`,
/// `toolResult` → `tool_response` (its `textResultForLlm`), `transcriptPath` →
/// `transcript_path`, `stopReason` → `stop_reason`, `agentName` → `agent_name`,
/// `customInstructions` → `custom_instructions`, `source: "new"` → `"reset"`; a failed
/// call's `error` → `tool_response` with `is_error`; `errorOccurred`'s `error.message` →
/// `message` with `level: "error"`; other fields are kept.
fn from_agent(event: &str, map: &mut Map<String, Value>) {
    let renames = [
        ("sessionId", "session_id"),
        ("transcriptPath", "transcript_path"),
        ("stopReason", "stop_reason"),
        ("agentName", "agent_name"),
        ("customInstructions", "custom_instructions"),
    ];
    for (theirs, ours) in renames {
        if let Some(value) = map.remove(theirs) {
            map.insert(ours.to_owned(), value);
        }
    }
    // Copilot's `new` session is hookchain's `reset` (the reverse of the payload's).
    if map.get("source").and_then(Value::as_str) == Some("new") {
        map.insert("source".to_owned(), Value::from("reset"));
    }
    if let Some(Value::String(tool)) = map.remove("toolName") {
        let ours = super::tool_name_from_agent(Dialect::Copilot, &tool).to_owned();
        map.insert("tool_name".to_owned(), Value::from(ours));
    }
    if let Some(args) = map.remove("toolArgs") {
        let args = match args {
            Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
            other => other,
        };
        map.insert("tool_input".to_owned(), args);
    }
    if let Some(result) = map.remove("toolResult") {
        let failed = result.get("resultType").and_then(Value::as_str) == Some("failure");
        let response = match result.get("textResultForLlm") {
            Some(text) => text.clone(),
            None => result,
        };
        map.insert("tool_response".to_owned(), response);
        map.insert("is_error".to_owned(), Value::Bool(failed));
    }
    let is_tool_event = map.contains_key("tool_name");
    if event == "postToolUseFailure" || (is_tool_event && map.contains_key("error")) {
        // A failed call: its error is the tool's response.
        if let Some(error) = map.remove("error") {
            map.insert("tool_response".to_owned(), error);
        }
        map.insert("is_error".to_owned(), Value::Bool(true));
    } else if event == "errorOccurred" || map.contains_key("errorContext") {
        // An error: a notification of level error, its message the error's.
        let message = match map.get("error") {
            Some(Value::Object(error)) => error.get("message").cloned(),
            Some(Value::String(text)) => Some(Value::from(text.as_str())),
            _ => None,
        };
        if let Some(message) = message {
            map.insert("message".to_owned(), message);
        }
        map.insert("level".to_owned(), Value::from("error"));
    }
}

/// Reads a Copilot hook's output (see "The answer" in the module docs).
fn decide(point: &str, event: &str, raw: &RawOutput) -> Result<Answer, ProtocolError> {
    let stderr = String::from_utf8_lossy(&raw.stderr).trim().to_owned();
    match raw.exit_code.unwrap_or(0) {
        0 => {}
        2 if point == "intercept_tool_call" => return Ok(Answer::block(stderr)),
        2 if point == "permission_request" => {
            // Stdout's JSON merged into `{"behavior": "deny"}`, stderr ignored (reference).
            let mut object = copilot_json(raw).unwrap_or_default();
            object.insert("behavior".to_owned(), Value::from("deny"));
            let raw = RawOutput {
                exit_code: Some(0),
                stdout: Value::Object(in_claude_form(point, object))
                    .to_string()
                    .into_bytes(),
                stderr: Vec::new(),
            };
            return protocol::decide_in(&raw, Dialect::ClaudeCode);
        }
        2 if event == "postToolUseFailure" => {
            // Stderr is the recovery guidance (reference); stdout when stderr says nothing.
            let stdout = String::from_utf8_lossy(&raw.stdout).trim().to_owned();
            let guidance = if stderr.is_empty() { stdout } else { stderr };
            return Ok(Answer {
                context: vec![guidance]
                    .into_iter()
                    .filter(|g| !g.is_empty())
                    .collect(),
                ..Answer::default()
            });
        }
        code => {
            let stderr = stderr.lines().next().unwrap_or_default().to_owned();
            return Err(ProtocolError::ExitCode { code, stderr });
        }
    }
    let Some(object) = copilot_json(raw) else {
        return protocol::decide_in(&without_progress(raw), Dialect::ClaudeCode);
    };
    let claude = in_claude_form(point, object);
    let raw = RawOutput {
        exit_code: Some(0),
        stdout: Value::Object(claude).to_string().into_bytes(),
        stderr: Vec::new(),
    };
    protocol::decide_in(&raw, Dialect::ClaudeCode)
}

/// Stdout without the progress lines Copilot shows and strips (summary).
fn without_progress(raw: &RawOutput) -> RawOutput {
    let text = String::from_utf8_lossy(&raw.stdout);
    let kept: Vec<&str> = text.lines().filter(|line| !is_progress(line)).collect();
    RawOutput {
        exit_code: raw.exit_code,
        stdout: if kept.len() == text.lines().count() {
            raw.stdout.clone()
        } else {
            kept.join("\n").into_bytes()
        },
        stderr: raw.stderr.clone(),
    }
}

/// `true` for a `{"type": "progress", …}` line.
fn is_progress(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('{')
        && serde_json::from_str::<Value>(line)
            .is_ok_and(|v| v.get("type").and_then(Value::as_str) == Some("progress"))
}

/// Stdout's JSON object, progress lines skipped; `None` when stdout is not one object (the
/// Claude Code reader then says why).
fn copilot_json(raw: &RawOutput) -> Option<Map<String, Value>> {
    let raw = without_progress(raw);
    let text = std::str::from_utf8(&raw.stdout).ok()?;
    let text = text.trim_start_matches('\u{feff}').trim();
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// Copilot's answer fields moved to where Claude Code's reader finds them: `permissionDecision`,
/// `permissionDecisionReason`, `additionalContext` and `modifiedArgs` (as `updatedInput`) into
/// `hookSpecificOutput` (`modifiedResult`, the SDK's, is dropped); on `permission_request`,
/// `behavior`, `message` and `interrupt` into its `decision`.
fn in_claude_form(point: &str, mut object: Map<String, Value>) -> Map<String, Value> {
    let mut specific = match object.remove("hookSpecificOutput") {
        Some(Value::Object(specific)) => specific,
        Some(other) => {
            object.insert("hookSpecificOutput".to_owned(), other);
            return object;
        }
        None => Map::new(),
    };
    let moves = [
        ("permissionDecision", "permissionDecision"),
        ("permissionDecisionReason", "permissionDecisionReason"),
        ("additionalContext", "additionalContext"),
        ("modifiedArgs", "updatedInput"),
    ];
    object.remove("modifiedResult");
    for (theirs, ours) in moves {
        if let Some(value) = object.remove(theirs) {
            specific.insert(ours.to_owned(), value);
        }
    }
    if point == "permission_request" {
        let mut decision = Map::new();
        for key in ["behavior", "message", "interrupt"] {
            if let Some(value) = object.remove(key) {
                decision.insert(key.to_owned(), value);
            }
        }
        if !decision.is_empty() {
            specific.insert("decision".to_owned(), Value::Object(decision));
        }
    }
    if !specific.is_empty() {
        object.insert("hookSpecificOutput".to_owned(), Value::Object(specific));
    }
    object
}

/// Copilot ignores the output of some events (see the module docs).
fn adjust(point: &str, event: &str, answer: &mut Answer) {
    if IGNORED.contains(&event) && !answer.is_pass() {
        tracing::info!(
            point,
            event,
            "Copilot ignores the output of `{event}`: the hook's answer is dropped"
        );
        let warnings = std::mem::take(&mut answer.warnings);
        *answer = Answer {
            warnings,
            ..Answer::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Verdict;
    use crate::wire::agents::raw;
    use crate::wire::payload_in;
    use crate::wire::testing::with_cx;
    use hookchain_core::points::{InterceptToolCall, Notify, SessionEnd, TransformToolResult};
    use hookchain_core::{Level, Notification, SessionEndEvent, ToolCall, ToolResult};
    use serde_json::json;

    fn keys(map: &Map<String, Value>) -> Vec<&str> {
        let mut keys: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !matches!(*k, "turn" | "turn_state"))
            .collect();
        keys.sort_unstable();
        keys
    }

    /// `preToolUse` gets Copilot's fields only — its tool name, the arguments as JSON text —
    /// and the guest's reading of it gives the session's call back.
    #[test]
    fn a_tool_payload_is_copilots_and_reads_back() {
        let call = ToolCall::new("Bash", json!({"command": "ls -la"}));
        let (payload, _, _) = with_cx("intercept_tool_call", |cx| {
            payload_in::<InterceptToolCall>("preToolUse", Dialect::Copilot, &call, cx)
        });
        assert_eq!(
            keys(&payload),
            ["cwd", "sessionId", "timestamp", "toolArgs", "toolName"]
        );
        assert_eq!(payload["toolName"], "bash");
        assert_eq!(payload["toolArgs"], r#"{"command":"ls -la"}"#);
        let back = super::super::payload_from_agent(Dialect::Copilot, "preToolUse", &payload);
        assert_eq!(back["tool_name"], "Bash");
        assert_eq!(back["tool_input"], json!({"command": "ls -la"}));
        // Object arguments (the CLI reference's form) read the same.
        let object = json!({"toolName": "view", "toolArgs": {"path": "a.rs"}});
        let Value::Object(object) = object else {
            unreachable!()
        };
        let back = super::super::payload_from_agent(Dialect::Copilot, "preToolUse", &object);
        assert_eq!(back["tool_name"], "Read");
        assert_eq!(back["tool_input"], json!({"path": "a.rs"}));
    }

    /// A failed call and an error, read back as the points' values.
    #[test]
    fn failures_and_errors_read_back() {
        let read = |event: &str, payload: Value| {
            let Value::Object(map) = payload else {
                unreachable!()
            };
            super::super::payload_from_agent(Dialect::Copilot, event, &map)
        };
        let failed = read(
            "postToolUseFailure",
            json!({"toolName": "view", "toolArgs": {"path": "a"}, "error": "ENOENT"}),
        );
        assert_eq!(failed["tool_response"], "ENOENT");
        assert_eq!(failed["is_error"], true);
        let error = read(
            "errorOccurred",
            json!({"error": {"message": "timeout", "name": "TimeoutError"}, "errorContext": "model_call"}),
        );
        assert_eq!(error["message"], "timeout");
        assert_eq!(error["level"], "error");
        let done = read(
            "postToolUse",
            json!({"toolName": "bash", "toolArgs": "{}", "toolResult": {"resultType": "success", "textResultForLlm": "ok"}}),
        );
        assert_eq!(done["tool_response"], "ok");
        assert_eq!(done["is_error"], false);
    }

    /// The result and the failure of a call, an error, a notification and a session's end, in
    /// Copilot's fields and values.
    #[test]
    fn event_payloads_carry_copilots_fields() {
        let result = ToolResult {
            tool_name: "Bash".to_owned(),
            tool_input: json!({"command": "npm test"}),
            tool_use_id: Some("t-1".to_owned()),
            tool_response: json!("ok"),
            is_error: false,
            blocked: None,
        };
        let (post, _, _) = with_cx("transform_tool_result", |cx| {
            payload_in::<TransformToolResult>("postToolUse", Dialect::Copilot, &result, cx)
        });
        assert_eq!(
            post["toolResult"],
            json!({"resultType": "success", "textResultForLlm": "ok"})
        );
        let failed = ToolResult {
            is_error: true,
            tool_response: json!({"stderr": "boom"}),
            ..result
        };
        let (failure, _, _) = with_cx("after_tool_call", |cx| {
            payload_in::<hookchain_core::points::AfterToolCall>(
                "postToolUseFailure",
                Dialect::Copilot,
                &failed,
                cx,
            )
        });
        assert_eq!(failure["error"], r#"{"stderr":"boom"}"#);
        assert!(!failure.contains_key("toolResult"));

        let error = Notification::new(Level::Error, "disk full");
        let (error, _, _) = with_cx("notification", |cx| {
            payload_in::<Notify>("errorOccurred", Dialect::Copilot, &error, cx)
        });
        assert_eq!(
            keys(&error),
            [
                "cwd",
                "error",
                "errorContext",
                "recoverable",
                "sessionId",
                "timestamp"
            ]
        );
        assert_eq!(error["error"]["message"], "disk full");
        let note = Notification::new(Level::Info, "idle");
        let (note, _, _) = with_cx("notification", |cx| {
            payload_in::<Notify>("notification", Dialect::Copilot, &note, cx)
        });
        assert_eq!(note["hook_event_name"], "Notification");
        assert_eq!(note["message"], "idle");

        for (reason, copilot) in [
            ("exit", "user_exit"),
            ("timeout", "timeout"),
            ("dropped", "abort"),
            ("done", "complete"),
        ] {
            let end = SessionEndEvent {
                session_id: "s".to_owned(),
                reason: reason.to_owned(),
            };
            let (end, _, _) = with_cx("session_end", |cx| {
                payload_in::<SessionEnd>("sessionEnd", Dialect::Copilot, &end, cx)
            });
            assert_eq!(end["reason"], copilot, "{reason}");
        }
    }

    /// Copilot's answer fields, where Claude Code's reader finds them.
    #[test]
    fn answers_are_read_as_copilot_reads_them() {
        let pre = |stdout: &str| decide("intercept_tool_call", "preToolUse", &raw(0, stdout, ""));
        let deny = pre(r#"{"permissionDecision":"deny","permissionDecisionReason":"no"}"#).unwrap();
        assert_eq!(deny.verdict, Verdict::Block("no".to_owned()));
        let rewrite =
            pre(r#"{"permissionDecision":"allow","modifiedArgs":{"command":"npm ci"}}"#).unwrap();
        assert_eq!(rewrite.verdict, Verdict::Allow);
        assert_eq!(rewrite.updated_input, Some(json!({"command": "npm ci"})));
        let context = pre(r#"{"additionalContext":"mind the lockfile"}"#).unwrap();
        assert_eq!(context.context, ["mind the lockfile"]);
        // A progress line before the answer is shown by Copilot and stripped (summary).
        let progress = pre(concat!(
            r#"{"type":"progress","message":"scanning","temporary":true}"#,
            "\n",
            r#"{"permissionDecision":"deny","permissionDecisionReason":"secret"}"#
        ))
        .unwrap();
        assert_eq!(progress.verdict, Verdict::Block("secret".to_owned()));
        // Plain text is no JSON answer: read as text, which Copilot never gives the model.
        assert!(pre("looks fine").unwrap().plain_text);

        let permission = |code, stdout: &str, stderr: &str| {
            decide(
                "permission_request",
                "permissionRequest",
                &raw(code, stdout, stderr),
            )
        };
        let refused = permission(0, r#"{"behavior":"deny","message":"ask a person"}"#, "").unwrap();
        assert_eq!(refused.verdict, Verdict::Block("ask a person".to_owned()));
        let granted = permission(0, r#"{"behavior":"allow"}"#, "").unwrap();
        assert_eq!(granted.verdict, Verdict::Allow);
        // Exit 2: deny, the JSON's message the reason, stderr ignored (reference).
        let exit2 = permission(2, r#"{"message":"not now"}"#, "ignored").unwrap();
        assert_eq!(exit2.verdict, Verdict::Block("not now".to_owned()));
        let interrupted = permission(2, r#"{"interrupt":true,"message":"stop"}"#, "").unwrap();
        assert!(interrupted.stop.is_some(), "{interrupted:?}");

        // `modifiedResult` is the SDK's: a command hook's is not applied.
        let result = decide(
            "transform_tool_result",
            "postToolUse",
            &raw(
                0,
                r#"{"modifiedResult":"[redacted]","additionalContext":"flaky"}"#,
                "",
            ),
        )
        .unwrap();
        assert_eq!(result.updated_output, None);
        assert_eq!(result.context, ["flaky"]);
        let stop = decide(
            "on_stop",
            "agentStop",
            &raw(0, r#"{"decision":"block","reason":"run the tests"}"#, ""),
        )
        .unwrap();
        assert_eq!(stop.verdict, Verdict::Block("run the tests".to_owned()));
    }

    /// Exit 2 means what the reference gives it per event; any other non-zero code is a failure,
    /// whatever stdout says ("they never block agent execution").
    #[test]
    fn exit_codes_per_event() {
        let denied = decide("intercept_tool_call", "preToolUse", &raw(2, "", "no rm\n")).unwrap();
        assert_eq!(denied.verdict, Verdict::Block("no rm".to_owned()));
        let guidance = decide(
            "after_tool_call",
            "postToolUseFailure",
            &raw(2, "", "list the directory first\n"),
        )
        .unwrap();
        assert_eq!(guidance.context, ["list the directory first"]);
        assert_eq!(guidance.verdict, Verdict::Pass);
        assert!(matches!(
            decide("on_stop", "agentStop", &raw(2, "", "x")),
            Err(ProtocolError::ExitCode { code: 2, .. })
        ));
        let deny = r#"{"permissionDecision":"deny","permissionDecisionReason":"no"}"#;
        assert!(matches!(
            decide("intercept_tool_call", "preToolUse", &raw(1, deny, "oops")),
            Err(ProtocolError::ExitCode { code: 1, .. })
        ));
    }

    /// The output of the events Copilot ignores is dropped, its warnings kept.
    #[test]
    fn ignored_events_drop_the_answer() {
        let mut answer = Answer::block("no");
        answer.warnings.push("heads up".to_owned());
        adjust("transform_user_input", "userPromptSubmitted", &mut answer);
        assert_eq!(answer.verdict, Verdict::Pass);
        assert_eq!(answer.warnings, ["heads up"]);
        let mut start = Answer::default();
        start.context.push("ignored by Copilot".to_owned());
        adjust("session_start", "sessionStart", &mut start);
        assert!(start.is_pass());
        let mut child = Answer::default();
        child.context.push("read-only".to_owned());
        adjust("session_start", "subagentStart", &mut child);
        assert_eq!(child.context, ["read-only"]);
        let mut kept = Answer::block("no");
        adjust("intercept_tool_call", "preToolUse", &mut kept);
        assert_eq!(kept.verdict, Verdict::Block("no".to_owned()));
    }
}
