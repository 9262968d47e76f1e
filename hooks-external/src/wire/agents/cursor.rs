//! Cursor's differences from Claude Code's hook protocol, as an overlay (see the
//! [parent module](super)). Sources: Cursor's hooks page (<https://cursor.com/docs/agent/hooks>,
//! its 2.0 text as copied in `pcomans/caruso` `reference/cursor_hooks.md`), and, for what that
//! page does not say, the secondary references of `docs/agents/cursor.md` (marked (secondary)).
//!
//! # Which firings each event gets
//!
//! | event | point | fires for |
//! |---|---|---|
//! | `preToolUse` | `intercept_tool_call` | every call |
//! | `beforeShellExecution` | `intercept_tool_call` | shell calls (`Bash`, `shell`, …) |
//! | `beforeMCPExecution` | `intercept_tool_call` | MCP tools (`mcp__server__tool`, `MCP:server:tool`) |
//! | `beforeReadFile` | `intercept_tool_call` | file reads (`Read`, `read_file`, …) |
//! | `postToolUse` | `transform_tool_result` | every call that ran |
//! | `postToolUseFailure` | `after_tool_call` | calls that ran and failed (`is_error`) |
//! | `afterShellExecution`, `afterMCPExecution` | `after_tool_call` | shell calls, MCP calls that ran |
//! | `afterFileEdit` | `after_tool_call` | edits and writes (`Edit`, `Write`, `MultiEdit`, …) that ran |
//! | `subagentStart` | `session_start` | a child agent's session (`Session::child`); `sessionStart` the others |
//!
//! No post-tool event fires for a call a hook denied: Cursor runs no `after*` hook for a command
//! it did not run.
//!
//! # The payload
//!
//! Claude Code's payload, then: `conversation_id` (the session), `generation_id` (the session
//! and the turn: `<session>:<turn>`, one per prompt as Cursor's is), `workspace_roots` (the
//! project directory, alone); `permission_mode` (Claude Code's) is left out. Per event:
//!
//! | event | fields |
//! |---|---|
//! | `beforeShellExecution` | `command`, `cwd` (the call's `cwd` or `workdir` when it has one, else the project) — no `tool_name`/`tool_input` |
//! | `afterShellExecution` | `command`, `output` (the result as text) |
//! | `beforeMCPExecution` | `tool_name` (the MCP tool's own name, without `mcp__server__`), `tool_input` (a JSON **string**) |
//! | `afterMCPExecution` | the same, and `result_json` (the result as a JSON string) |
//! | `beforeReadFile` | `file_path`, `content` (the file's text when it is a readable regular file of at most 1 MiB, else `""`), `attachments` (`[]`) |
//! | `afterFileEdit` | `file_path`, `edits` (`[{old_string, new_string}]`: an edit's strings, a write's content as `new_string`, a multi-edit's list) |
//! | `preToolUse` | `tool_name` (Cursor's name: `Shell` for `Bash`), `tool_input`, `tool_use_id` |
//! | `postToolUse` | the same and `tool_output` (the result as text) |
//! | `postToolUseFailure` | the same and `error` (the result as text) |
//! | `beforeSubmitPrompt` | `prompt`, `attachments` (`[]`) |
//! | `stop`, `subagentStop` | `status` (`completed`), `loop_count` (the follow-ups of the turn so far: hookchain's redos); no `stop_hook_active` |
//! | `afterAgentResponse` | `text` (the reply) |
//! | `sessionStart` | `is_background_agent` (`false`) |
//!
//! The other way ([`payload_from_agent`](super::payload_from_agent)) reads each of these
//! back: a Cursor MCP payload names its server only by its `command` or `url`, so its tool is
//! read as `mcp__cursor__<tool>`, an MCP tool of a server called `cursor`.
//!
//! # The answer
//!
//! | exit | meaning |
//! |---|---|
//! | 0 | stdout: nothing is a pass; one JSON object is read by the fields below; anything else is a failure (Cursor: "unparsable stdout") |
//! | 2 | deny (secondary) on the events that can be stopped (the before-events, `beforeSubmitPrompt`, `subagentStart`): stderr is the reason, else the JSON's `agent_message`, then `user_message`; on the others a warning, nothing stopped |
//! | other | a JSON object on stdout is read as on exit 0, with a warning naming the code (public Cursor scripts print a deny and `exit 1`, as `gullitmiranda/.cursor` `hooks/block-git-reset-hard.sh` does: a deny is never lost to the exit code); anything else is the hook's failure, and its policy applies (`failClosed: true` blocks) |
//!
//! | event | fields read | as |
//! |---|---|---|
//! | `preToolUse`, `beforeShellExecution`, `beforeMCPExecution`, `subagentStart` | `permission` (`allow`, `deny`, `ask`), `agent_message`, `user_message`, `continue` (`false` stops, as on prompts); `updated_input` on `preToolUse` only | allow; block with `agent_message` (else `user_message`) as the reason, `user_message` also a warning for the user; ask (which hookchain refuses: it has no one to ask); new args |
//! | `beforeReadFile` | `permission` (`allow`, `deny`) | allow; block |
//! | `beforeSubmitPrompt` | `continue`, `user_message` | `continue: false` blocks the prompt with `user_message` |
//! | `stop`, `subagentStop` | `followup_message` | a non-empty one sends the agent back to work with it (hookchain's redo) |
//! | `sessionStart`, `subagentStart`, `postToolUse` | `additional_context` (secondary) | context |
//! | every event | — | every other field is ignored, as Cursor ignores what an event does not read |
//!
//! The 1.7-era camelCase spellings (`userMessage`, `agentMessage`, `followupMessage`,
//! `updatedInput`, `additionalContext`) are read too. A field of the wrong type, and a
//! `permission` that is none of the three, is a failure of the hook (its policy applies).
//! Plain stdout is never context.

use std::io::Read;

use hookchain_core::Dialect;
use serde_json::{Map, Value};

use super::{Overlay, claude_name};
use crate::RawOutput;
use crate::answer::{Answer, Verdict};
use crate::protocol::{self, ProtocolError};

/// Cursor's overlay.
pub(super) const OVERLAY: Overlay = Overlay {
    tools: TOOLS,
    fires_for,
    narrowed: &[],
    claude_fields: true,
    payload,
    from_agent,
    decide,
    plain_stdout_is_context: |_| false,
    claude_rules: false,
    adjust: |_, _, _| {},
    subject: |_, _| None,
};

/// Cursor's tools, as (Cursor's name, Claude Code's): `docs/agents/cursor.md`, "Tool names"
/// (matchers of public files: `Shell|Read|Write|Grep`, `Shell`, `Write`, `StrReplace`, `Edit`).
/// The first row of a Claude Code name is the one Cursor's scripts are given.
const TOOLS: &[(&str, &str)] = &[
    ("Shell", "Bash"),
    ("Read", "Read"),
    ("Write", "Write"),
    ("Edit", "Edit"),
    ("StrReplace", "Edit"),
    ("Grep", "Grep"),
    ("Glob", "Glob"),
    ("Task", "Task"),
];

/// The largest file whose text `beforeReadFile` carries as `content`.
const MAX_CONTENT: u64 = 1024 * 1024;

/// `true` for an MCP tool, in Claude Code's spelling (`mcp__server__tool`) or Cursor's
/// (`MCP:server:tool`).
fn is_mcp(tool: &str) -> bool {
    tool.starts_with("mcp__") || tool.starts_with("MCP:")
}

/// Claude Code's name for `tool`, whatever common name the session calls it by.
fn claude(tool: Option<&str>) -> Option<&'static str> {
    tool.and_then(claude_name)
}

fn fires_for(_point: &str, event: &str, tool: Option<&str>) -> bool {
    match event {
        "beforeShellExecution" | "afterShellExecution" => claude(tool) == Some("Bash"),
        "beforeMCPExecution" | "afterMCPExecution" => tool.is_some_and(is_mcp),
        "beforeReadFile" => claude(tool) == Some("Read"),
        "afterFileEdit" => {
            matches!(claude(tool), Some("Edit" | "Write"))
                || tool.is_some_and(|t| matches!(t, "MultiEdit" | "multi_edit" | "apply_patch"))
        }
        _ => true,
    }
}

/// A value as text: a string as it is, anything else as its JSON.
fn text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The string at `key` of an object, if any.
fn string_at<'v>(object: Option<&'v Value>, keys: &[&str]) -> Option<&'v str> {
    let object = object?.as_object()?;
    keys.iter().find_map(|key| object.get(*key)?.as_str())
}

/// The text of the file at `path` (relative to `dir`), when it is a readable regular UTF-8
/// file of at most [`MAX_CONTENT`] bytes; else `""`.
fn file_text(dir: &str, path: &str) -> String {
    if path.is_empty() {
        return String::new();
    }
    let path = std::path::Path::new(dir).join(path);
    let Ok(meta) = std::fs::metadata(&path) else {
        return String::new();
    };
    if !meta.is_file() || meta.len() > MAX_CONTENT {
        return String::new();
    }
    let mut bytes = Vec::new();
    match std::fs::File::open(&path).and_then(|f| f.take(MAX_CONTENT).read_to_end(&mut bytes)) {
        Ok(_) => String::from_utf8(bytes).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// The edits of an edit or write call, as Cursor's `afterFileEdit` lists them.
fn edits(input: Option<&Value>) -> Value {
    let Some(Value::Object(input)) = input else {
        return Value::Array(Vec::new());
    };
    let edit = |object: &Map<String, Value>| {
        serde_json::json!({
            "old_string": text(object.get("old_string").or(object.get("old_str"))),
            "new_string": text(
                object
                    .get("new_string")
                    .or(object.get("new_str"))
                    .or(object.get("content"))
            ),
        })
    };
    match input.get("edits") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_object)
            .map(edit)
            .collect(),
        _ => Value::Array(vec![edit(input)]),
    }
}

/// Claude Code's payload in Cursor's names (see "The payload" in the [module docs](self)).
fn payload(_point: &str, event: &str, map: &mut Map<String, Value>) {
    let session = text(map.get("session_id"));
    let turn = text(map.get("turn"));
    let cwd = text(map.get("cwd"));
    map.insert("conversation_id".to_owned(), Value::from(session.as_str()));
    map.insert(
        "generation_id".to_owned(),
        Value::from(format!("{session}:{turn}")),
    );
    map.insert(
        "workspace_roots".to_owned(),
        Value::Array(vec![Value::from(cwd.as_str())]),
    );
    map.remove("permission_mode");
    let remove_call = |map: &mut Map<String, Value>| {
        for key in ["tool_name", "tool_input", "tool_use_id"] {
            map.remove(key);
        }
    };
    let remove_result = |map: &mut Map<String, Value>| {
        for key in [
            "tool_response",
            "is_error",
            "tool_error",
            "blocked",
            "reason",
        ] {
            map.remove(key);
        }
    };
    match event {
        "beforeShellExecution" | "afterShellExecution" => {
            let input = map.get("tool_input");
            let command = string_at(input, &["command", "cmd"]).unwrap_or_default();
            let dir = string_at(input, &["cwd", "workdir", "dir_path"]).unwrap_or(&cwd);
            let (command, dir) = (command.to_owned(), dir.to_owned());
            map.insert("command".to_owned(), Value::from(command));
            map.insert("cwd".to_owned(), Value::from(dir));
            if event == "afterShellExecution" {
                let output = text(map.get("tool_response"));
                map.insert("output".to_owned(), Value::from(output));
                remove_result(map);
            }
            remove_call(map);
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            let tool = text(map.get("tool_name"));
            // Cursor names the MCP tool alone; the server is its `command` or `url`.
            let bare = tool
                .strip_prefix("mcp__")
                .and_then(|rest| rest.split_once("__").map(|(_, tool)| tool))
                .or_else(|| {
                    tool.strip_prefix("MCP:")
                        .and_then(|r| r.rsplit_once(':'))
                        .map(|(_, t)| t)
                })
                .unwrap_or(&tool)
                .to_owned();
            map.insert("tool_name".to_owned(), Value::from(bare));
            let input = map
                .get("tool_input")
                .map(Value::to_string)
                .unwrap_or_else(|| "{}".to_owned());
            map.insert("tool_input".to_owned(), Value::from(input));
            if event == "afterMCPExecution" {
                let result = match map.get("tool_response") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => "null".to_owned(),
                };
                map.insert("result_json".to_owned(), Value::from(result));
                remove_result(map);
            }
        }
        "beforeReadFile" => {
            let path = string_at(
                map.get("tool_input"),
                &["file_path", "path", "absolute_path"],
            )
            .unwrap_or_default()
            .to_owned();
            let content = file_text(&cwd, &path);
            map.insert("file_path".to_owned(), Value::from(path));
            map.insert("content".to_owned(), Value::from(content));
            map.insert("attachments".to_owned(), Value::Array(Vec::new()));
            remove_call(map);
        }
        "afterFileEdit" => {
            let input = map.get("tool_input");
            let path = string_at(input, &["file_path", "path"])
                .unwrap_or_default()
                .to_owned();
            let edits = edits(input);
            map.insert("file_path".to_owned(), Value::from(path));
            map.insert("edits".to_owned(), edits);
            remove_result(map);
            remove_call(map);
        }
        "postToolUse" | "postToolUseFailure" => {
            let output = text(map.get("tool_response"));
            let key = if event == "postToolUse" {
                "tool_output"
            } else {
                "error"
            };
            map.insert(key.to_owned(), Value::from(output));
        }
        "beforeSubmitPrompt" => {
            map.insert("attachments".to_owned(), Value::Array(Vec::new()));
        }
        "stop" | "subagentStop" => {
            let redos = map.get("redos").cloned().unwrap_or(Value::from(0));
            map.insert("status".to_owned(), Value::from("completed"));
            map.insert("loop_count".to_owned(), redos);
            map.remove("stop_hook_active");
        }
        "afterAgentResponse" => {
            let reply = text(map.get("response"));
            map.insert("text".to_owned(), Value::from(reply));
        }
        "sessionStart" => {
            map.insert("is_background_agent".to_owned(), Value::Bool(false));
        }
        _ => {}
    }
}

/// A payload Cursor sends, in Claude Code's form (the reverse of [`payload`]).
fn from_agent(event: &str, map: &mut Map<String, Value>) {
    if !map.contains_key("session_id")
        && let Some(session) = map.get("conversation_id").cloned()
    {
        map.insert("session_id".to_owned(), session);
    }
    let root = map
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|roots| roots.first())
        .and_then(Value::as_str)
        .filter(|dir| !dir.is_empty())
        .map(str::to_owned);
    let call = |map: &mut Map<String, Value>, name: &str, input: Value| {
        map.insert("tool_name".to_owned(), Value::from(name));
        map.insert("tool_input".to_owned(), input);
    };
    match event {
        "beforeShellExecution" | "afterShellExecution" => {
            let command = map.remove("command").unwrap_or(Value::from(""));
            call(map, "Bash", serde_json::json!({ "command": command }));
            if let Some(output) = map.remove("output") {
                map.insert("tool_response".to_owned(), output);
            }
        }
        "beforeReadFile" => {
            let path = map.remove("file_path").unwrap_or(Value::from(""));
            map.remove("content");
            call(map, "Read", serde_json::json!({ "file_path": path }));
        }
        "afterFileEdit" => {
            let path = map.remove("file_path").unwrap_or(Value::from(""));
            let mut input = serde_json::json!({ "file_path": path });
            if let Some(Value::Array(edits)) = map.remove("edits") {
                if let [Value::Object(only)] = edits.as_slice() {
                    for key in ["old_string", "new_string"] {
                        if let Some(value) = only.get(key) {
                            input[key] = value.clone();
                        }
                    }
                } else {
                    input["edits"] = Value::Array(edits);
                }
            }
            call(map, "Edit", input);
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            // Cursor names the MCP tool alone (its server by `command` or `url`): the session
            // knows it as an MCP tool of a server hookchain calls `cursor`.
            if let Some(Value::String(tool)) = map.get("tool_name")
                && !is_mcp(tool)
            {
                let named = format!("mcp__cursor__{tool}");
                map.insert("tool_name".to_owned(), Value::from(named));
            }
            if let Some(result) = map.remove("result_json") {
                let result = match &result {
                    Value::String(s) => serde_json::from_str(s).unwrap_or(result),
                    _ => result,
                };
                map.insert("tool_response".to_owned(), result);
            }
        }
        "postToolUse" => {
            if let Some(output) = map.remove("tool_output") {
                map.insert("tool_response".to_owned(), output);
            }
        }
        "postToolUseFailure" => {
            if let Some(error) = map.remove("error") {
                map.insert("tool_response".to_owned(), error);
            }
            map.insert("is_error".to_owned(), Value::Bool(true));
        }
        "stop" | "subagentStop" => {
            let count = map.get("loop_count").and_then(Value::as_u64).unwrap_or(0);
            map.insert("redos".to_owned(), Value::from(count));
            map.insert("stop_hook_active".to_owned(), Value::Bool(count > 0));
        }
        "afterAgentResponse" => {
            if let Some(reply) = map.remove("text") {
                map.insert("response".to_owned(), reply);
            }
        }
        _ => {}
    }
    // Cursor's tool names (`Shell` is `Bash`), its tool input an object (its MCP events send
    // the JSON text of one).
    if let Some(Value::String(tool)) = map.get("tool_name") {
        let named = super::tool_name_from_agent(Dialect::Cursor, tool).to_owned();
        map.insert("tool_name".to_owned(), Value::from(named));
    }
    if let Some(Value::String(input)) = map.get("tool_input") {
        let parsed = serde_json::from_str(input)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| serde_json::json!({}));
        map.insert("tool_input".to_owned(), parsed);
    }
    if let Some(root) = root {
        map.insert("cwd".to_owned(), Value::from(root));
    }
}

/// The fields of one JSON answer, read by their snake_case or camelCase name.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn get<'n>(&self, names: &[&'n str]) -> Option<(&'n str, &Value)> {
        names.iter().find_map(|name| {
            self.0
                .get(*name)
                .filter(|v| !v.is_null())
                .map(|v| (*name, v))
        })
    }

    fn string(&self, names: &[&str]) -> Result<Option<String>, ProtocolError> {
        match self.get(names) {
            None => Ok(None),
            Some((_, Value::String(s))) if s.trim().is_empty() => Ok(None),
            Some((_, Value::String(s))) => Ok(Some(s.trim().to_owned())),
            Some((name, other)) => Err(wrong(name, "a string", other)),
        }
    }
}

fn wrong(field: &str, expected: &'static str, found: &Value) -> ProtocolError {
    ProtocolError::WrongType {
        field: field.to_owned(),
        expected,
        found: short(&found.to_string()),
    }
}

/// The first characters of `text`, for messages.
fn short(text: &str) -> String {
    const MAX: usize = 80;
    let mut out: String = text.chars().take(MAX).collect();
    if text.chars().count() > MAX {
        out.push('…');
    }
    out
}

/// The events a hook can stop: the before-events, prompts, and a child's start (secondary).
fn blocks(event: &str) -> bool {
    reads_permission(event) || event == "beforeSubmitPrompt"
}

/// The events whose `permission` Cursor reads.
fn reads_permission(event: &str) -> bool {
    matches!(
        event,
        "preToolUse"
            | "beforeShellExecution"
            | "beforeMCPExecution"
            | "beforeReadFile"
            | "subagentStart"
    )
}

/// Reads a hook's output as Cursor does (see "The answer" in the [module docs](self)).
fn decide(point: &str, event: &str, raw: &RawOutput) -> Result<Answer, ProtocolError> {
    match raw.exit_code.unwrap_or(0) {
        0 => {}
        2 => {
            let stderr = String::from_utf8_lossy(&raw.stderr).trim().to_owned();
            let reason = if stderr.is_empty() {
                json_object(raw)
                    .ok()
                    .flatten()
                    .and_then(|object| {
                        Fields(&object)
                            .string(&[
                                "agent_message",
                                "agentMessage",
                                "user_message",
                                "userMessage",
                            ])
                            .ok()
                            .flatten()
                    })
                    .unwrap_or_default()
            } else {
                stderr
            };
            if !blocks(event) {
                // Cursor cannot block this step: the hook's message is said, nothing stopped.
                let mut answer = Answer::pass();
                answer.warnings.push(format!(
                    "the hook exited with code 2 on `{event}`, which Cursor does not block{}",
                    if reason.is_empty() {
                        String::new()
                    } else {
                        format!(": {reason}")
                    }
                ));
                return Ok(answer);
            }
            return Ok(Answer::block(reason));
        }
        // Any other code: a JSON answer on stdout is still read (public Cursor scripts print
        // a deny and `exit 1`: dropping it would let the command through), with a warning;
        // without one, the hook failed.
        code => {
            let Ok(Some(object)) = json_object(raw) else {
                return protocol::decide_in(raw, Dialect::ClaudeCode);
            };
            let mut answer = read_object(point, event, &object)?;
            let stderr = String::from_utf8_lossy(&raw.stderr);
            let stderr = stderr.lines().map(str::trim).find(|l| !l.is_empty());
            answer.warnings.push(match stderr {
                Some(line) => format!("the hook exited with code {code}: {}", short(line)),
                None => format!("the hook exited with code {code}"),
            });
            return Ok(answer);
        }
    }
    let Some(object) = json_object(raw)? else {
        return Ok(Answer::pass());
    };
    read_object(point, event, &object)
}

/// Reads one JSON answer's fields as Cursor reads them for `event`.
fn read_object(
    point: &str,
    event: &str,
    object: &Map<String, Value>,
) -> Result<Answer, ProtocolError> {
    let fields = Fields(object);
    let mut answer = Answer::default();
    if reads_permission(event) {
        let agent = fields.string(&["agent_message", "agentMessage"])?;
        let user = fields.string(&["user_message", "userMessage"])?;
        let reason = || agent.clone().or_else(|| user.clone()).unwrap_or_default();
        // `continue: false` (the 1.7-era typings have it on every before-event) stops.
        match fields.get(&["continue"]) {
            None | Some((_, Value::Bool(true))) => {}
            Some((_, Value::Bool(false))) => answer.stop = Some(reason()),
            Some((name, other)) => return Err(wrong(name, "true or false", other)),
        }
        if let Some(permission) = fields.string(&["permission"])? {
            let read_only = event == "beforeReadFile";
            answer.verdict = match permission.to_ascii_lowercase().as_str() {
                "allow" => Verdict::Allow,
                "deny" => Verdict::Block(reason()),
                "ask" if !read_only => Verdict::Ask(reason()),
                _ => {
                    return Err(ProtocolError::UnknownValue {
                        field: "permission".to_owned(),
                        value: short(&permission),
                        expected: if read_only {
                            "`allow` or `deny`"
                        } else {
                            "`allow`, `deny` or `ask`"
                        },
                    });
                }
            };
            // The user's message is for the person, beside the reason the model gets.
            if matches!(answer.verdict, Verdict::Block(_) | Verdict::Ask(_))
                && let Some(user) = &user
                && agent.is_some()
                && agent.as_ref() != Some(user)
            {
                answer.warnings.push(user.clone());
            }
        }
        if event == "preToolUse" && point == "intercept_tool_call" {
            match fields.get(&["updated_input", "updatedInput"]) {
                None => {}
                Some((_, Value::Object(input))) => {
                    answer.updated_input = Some(Value::Object(input.clone()));
                }
                Some((name, other)) => return Err(wrong(name, "an object", other)),
            }
        }
    }
    match event {
        "beforeSubmitPrompt" => match fields.get(&["continue"]) {
            None | Some((_, Value::Bool(true))) => {}
            Some((_, Value::Bool(false))) => {
                let reason = fields
                    .string(&["user_message", "userMessage"])?
                    .unwrap_or_default();
                answer.verdict = Verdict::Block(reason);
            }
            Some((name, other)) => return Err(wrong(name, "true or false", other)),
        },
        "stop" | "subagentStop" => {
            if let Some(followup) = fields.string(&["followup_message", "followupMessage"])? {
                answer.verdict = Verdict::Block(followup);
            }
        }
        _ => {}
    }
    if matches!(event, "sessionStart" | "subagentStart" | "postToolUse")
        && let Some(context) = fields.string(&["additional_context", "additionalContext"])?
    {
        answer.context.push(context);
    }
    Ok(answer)
}

/// Stdout of an exit 0 as one JSON object; `None` when it is empty. Anything else — text,
/// invalid JSON, JSON that is not an object, bytes that are not UTF-8 — is the hook's failure.
fn json_object(raw: &RawOutput) -> Result<Option<Map<String, Value>>, ProtocolError> {
    let stdout = std::str::from_utf8(&raw.stdout).map_err(|e| ProtocolError::NotUtf8 {
        stream: "stdout",
        offset: e.valid_up_to(),
    })?;
    let text = stdout.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(Some(object)),
        Ok(other) => Err(wrong("stdout", "a JSON object", &other)),
        Err(error) => Err(ProtocolError::InvalidJson {
            error: error.to_string(),
            start: short(text),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::agents::raw;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// `permission: deny` blocks with `agent_message` (the model's), and the user hears
    /// `user_message`; `ask` asks; `allow` allows; exit 2 denies with stderr.
    #[test]
    fn permission_answers_read_as_cursor_reads_them() {
        let deny = decide(
            "intercept_tool_call",
            "beforeShellExecution",
            &raw(
                0,
                r#"{"permission":"deny","user_message":"Blocked.","agent_message":"no rm -rf"}"#,
                "",
            ),
        )
        .unwrap();
        assert_eq!(deny.verdict, Verdict::Block("no rm -rf".to_owned()));
        assert_eq!(deny.warnings, ["Blocked."]);
        let ask = decide(
            "intercept_tool_call",
            "preToolUse",
            &raw(0, r#"{"permission":"ask","userMessage":"push?"}"#, ""),
        )
        .unwrap();
        assert_eq!(ask.verdict, Verdict::Ask("push?".to_owned()));
        let allow = decide(
            "intercept_tool_call",
            "beforeMCPExecution",
            &raw(0, r#"{"permission":"allow"}"#, ""),
        );
        assert_eq!(allow.unwrap().verdict, Verdict::Allow);
        let exit2 = decide(
            "intercept_tool_call",
            "beforeShellExecution",
            &raw(2, "", "force push\n"),
        );
        assert_eq!(
            exit2.unwrap().verdict,
            Verdict::Block("force push".to_owned())
        );
        // `beforeReadFile` takes `allow` and `deny` only.
        let ask_read = decide(
            "intercept_tool_call",
            "beforeReadFile",
            &raw(0, r#"{"permission":"ask"}"#, ""),
        );
        assert!(
            matches!(ask_read, Err(ProtocolError::UnknownValue { .. })),
            "{ask_read:?}"
        );
    }

    /// Each event reads its own fields: `continue` on prompts, `followup_message` on `stop`,
    /// `updated_input` on `preToolUse` only, context on `sessionStart`; the rest is ignored.
    #[test]
    fn each_event_reads_its_own_fields() {
        let prompt = decide(
            "transform_user_input",
            "beforeSubmitPrompt",
            &raw(
                0,
                r#"{"continue":false,"user_message":"token in prompt"}"#,
                "",
            ),
        )
        .unwrap();
        assert_eq!(prompt.verdict, Verdict::Block("token in prompt".to_owned()));
        let stop = decide(
            "on_stop",
            "stop",
            &raw(0, r#"{"followup_message":"run the tests"}"#, ""),
        );
        assert_eq!(
            stop.unwrap().verdict,
            Verdict::Block("run the tests".to_owned())
        );
        let rewrite = json!({"permission":"allow","updated_input":{"command":"ls"}}).to_string();
        let pre = decide("intercept_tool_call", "preToolUse", &raw(0, &rewrite, "")).unwrap();
        assert_eq!(pre.updated_input, Some(json!({"command": "ls"})));
        let shell = decide(
            "intercept_tool_call",
            "beforeShellExecution",
            &raw(0, &rewrite, ""),
        )
        .unwrap();
        assert_eq!(shell.updated_input, None);
        let start = decide(
            "session_start",
            "sessionStart",
            &raw(0, r#"{"additional_context":"uses pnpm"}"#, ""),
        )
        .unwrap();
        assert_eq!(start.context, ["uses pnpm"]);
        // A Claude Code answer means nothing to Cursor.
        let claude = r#"{"decision":"block","reason":"no"}"#;
        assert!(
            decide("intercept_tool_call", "preToolUse", &raw(0, claude, ""))
                .unwrap()
                .is_pass()
        );
        // Exit 2 stops what Cursor can stop, and is a warning elsewhere.
        let exit2 = decide(
            "transform_response",
            "afterAgentResponse",
            &raw(2, "", "no"),
        );
        let exit2 = exit2.unwrap();
        assert_eq!(exit2.verdict, Verdict::Pass);
        assert_eq!(exit2.warnings.len(), 1);
        let prompt2 = decide(
            "transform_user_input",
            "beforeSubmitPrompt",
            &raw(2, "", "no"),
        );
        assert_eq!(prompt2.unwrap().verdict, Verdict::Block("no".to_owned()));
        // `continue: false` on a before-event stops.
        let stop = decide(
            "intercept_tool_call",
            "beforeShellExecution",
            &raw(0, r#"{"continue":false,"agent_message":"halt"}"#, ""),
        );
        assert_eq!(stop.unwrap().stop, Some("halt".to_owned()));
        // After-events: the output is ignored.
        let after = decide(
            "after_tool_call",
            "afterFileEdit",
            &raw(0, r#"{"permission":"deny"}"#, ""),
        );
        assert!(after.unwrap().is_pass());
    }

    /// Text, invalid JSON and exit codes other than 0 and 2 are the hook's failure (its policy,
    /// `failClosed`, decides) — unless they carry a JSON answer.
    #[test]
    fn unparsable_answers_and_other_exit_codes_are_failures() {
        for out in [
            raw(0, "ok", ""),
            raw(0, "{", ""),
            raw(0, "[1]", ""),
            raw(1, "", "boom"),
        ] {
            assert!(
                decide("intercept_tool_call", "beforeShellExecution", &out).is_err(),
                "{out:?}"
            );
        }
        assert!(
            decide("intercept_tool_call", "preToolUse", &raw(0, "", ""))
                .unwrap()
                .is_pass()
        );
        // A deny printed before `exit 1` still denies, and the exit code is said.
        let deny = r#"{"permission":"deny","agentMessage":"no reset --hard"}"#;
        let denied = decide(
            "intercept_tool_call",
            "beforeShellExecution",
            &raw(1, deny, ""),
        );
        let denied = denied.unwrap();
        assert_eq!(denied.verdict, Verdict::Block("no reset --hard".to_owned()));
        assert_eq!(denied.warnings, ["the hook exited with code 1"]);
    }

    #[test]
    fn each_event_fires_for_its_own_tools() {
        assert!(fires_for(
            "intercept_tool_call",
            "beforeShellExecution",
            Some("Bash")
        ));
        assert!(fires_for(
            "intercept_tool_call",
            "beforeShellExecution",
            Some("shell")
        ));
        assert!(!fires_for(
            "intercept_tool_call",
            "beforeShellExecution",
            Some("Write")
        ));
        assert!(fires_for(
            "intercept_tool_call",
            "beforeMCPExecution",
            Some("mcp__pg__query")
        ));
        assert!(!fires_for(
            "intercept_tool_call",
            "beforeMCPExecution",
            Some("Bash")
        ));
        assert!(fires_for(
            "intercept_tool_call",
            "beforeReadFile",
            Some("read_file")
        ));
        assert!(!fires_for(
            "intercept_tool_call",
            "beforeReadFile",
            Some("Edit")
        ));
        assert!(fires_for("after_tool_call", "afterFileEdit", Some("Write")));
        assert!(!fires_for("after_tool_call", "afterFileEdit", Some("Bash")));
        assert!(fires_for(
            "intercept_tool_call",
            "preToolUse",
            Some("anything")
        ));
    }

    /// Both directions: Claude Code's shell call in Cursor's `beforeShellExecution` form, and
    /// back.
    #[test]
    fn payloads_go_both_ways() {
        let mut map = object(json!({
            "hook_event_name": "beforeShellExecution",
            "session_id": "s1", "turn": 2, "cwd": "/p", "permission_mode": "default",
            "tool_name": "Shell", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t",
        }));
        payload("intercept_tool_call", "beforeShellExecution", &mut map);
        assert_eq!(map["command"], "rm -rf /");
        assert_eq!(map["cwd"], "/p");
        assert_eq!(map["conversation_id"], "s1");
        assert_eq!(map["generation_id"], "s1:2");
        assert_eq!(map["workspace_roots"], json!(["/p"]));
        assert!(!map.contains_key("tool_input") && !map.contains_key("permission_mode"));
        from_agent("beforeShellExecution", &mut map);
        assert_eq!(map["tool_name"], "Bash");
        assert_eq!(map["tool_input"], json!({"command": "rm -rf /"}));

        let mut mcp = object(json!({
            "session_id": "s1", "turn": 0, "cwd": "/p",
            "tool_name": "mcp__pg__query", "tool_input": {"sql": "select 1"}, "tool_response": {"rows": []},
        }));
        payload("after_tool_call", "afterMCPExecution", &mut mcp);
        assert_eq!(mcp["tool_name"], "query");
        assert_eq!(mcp["tool_input"], r#"{"sql":"select 1"}"#);
        assert_eq!(mcp["result_json"], r#"{"rows":[]}"#);
        from_agent("afterMCPExecution", &mut mcp);
        assert_eq!(mcp["tool_name"], "mcp__cursor__query");
        assert_eq!(mcp["tool_input"], json!({"sql": "select 1"}));
        assert_eq!(mcp["tool_response"], json!({"rows": []}));

        let mut edit = object(json!({
            "session_id": "s1", "turn": 0, "cwd": "/p",
            "tool_name": "Edit", "tool_input": {"file_path": "a.ts", "old_string": "x", "new_string": "y"},
        }));
        payload("after_tool_call", "afterFileEdit", &mut edit);
        assert_eq!(
            edit["edits"],
            json!([{"old_string": "x", "new_string": "y"}])
        );
        from_agent("afterFileEdit", &mut edit);
        assert_eq!(
            edit["tool_input"],
            json!({"file_path": "a.ts", "old_string": "x", "new_string": "y"})
        );

        let mut stop = object(
            json!({"session_id": "s1", "turn": 0, "cwd": "/p", "redos": 1, "stop_hook_active": true}),
        );
        payload("on_stop", "stop", &mut stop);
        assert_eq!(
            (&stop["status"], &stop["loop_count"]),
            (&json!("completed"), &json!(1))
        );
        assert!(!stop.contains_key("stop_hook_active"));
    }

    /// `beforeReadFile` carries the file's text, as Cursor's does.
    #[test]
    fn a_read_carries_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "KEY=1\n").unwrap();
        let cwd = dir.path().display().to_string();
        let mut map = object(json!({
            "session_id": "s1", "turn": 0, "cwd": cwd,
            "tool_name": "Read", "tool_input": {"file_path": ".env"},
        }));
        payload("intercept_tool_call", "beforeReadFile", &mut map);
        assert_eq!(
            (&map["file_path"], &map["content"]),
            (&json!(".env"), &json!("KEY=1\n"))
        );
        assert!(!map.contains_key("tool_name"));
    }
}
