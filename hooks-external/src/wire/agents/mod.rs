//! The agents whose hook protocols copy Claude Code's — Codex, Gemini CLI, Cursor and Copilot —
//! each as one overlay on Claude Code's tables ([`Dialect::base`]).
//!
//! A hook in one of these dialects is fired as a Claude Code hook would be — the point's fields,
//! Claude Code's per-point fields, its matcher rules — and then its agent's overlay changes what
//! that agent does differently, in one file per agent under `wire/agents/`:
//!
//! | step | what the overlay says |
//! |---|---|
//! | which firings | an event that names some firings of its point only (Cursor's `beforeShellExecution`: shell calls; by the payload's fields, Copilot's `errorOccurred`: error-level notifications) |
//! | tool names | the agent's name for a tool of the session (`Bash` → Gemini's `run_shell_command`), what its scripts read and its matchers match; a matcher passes when it matches the agent's name or the session's own |
//! | the payload | the agent's field names and case, its own fields, its tool names (built on Claude Code's payload, or, for an agent whose payload shares little with it, on the point's own fields: Copilot's) |
//! | the answer | exit codes, the JSON fields it reads, what it rejects |
//! | plain stdout | on which events it is context |
//! | decisions | whether Claude Code's per-point rules apply, and the agent's own |
//! | matchers on other events | the agent's name for the value its matcher filters on (a notification's type) |
//!
//! The same tables serve the other direction: [`payload_from_agent`] reads an agent's payload as
//! Claude Code's (for `hookchain hook --agent NAME` and `hookchain test`), and
//! [`tool_name_from_agent`] names an agent's tool as the guards know it.

mod codex;
mod copilot;
mod cursor;
mod gemini;

use std::borrow::Cow;

use hookchain_core::Dialect;
use serde_json::{Map, Value};

use crate::RawOutput;
use crate::answer::Answer;
use crate::protocol::{self, ProtocolError};

/// A test of a firing's payload fields (see [`Overlay::narrowed`]).
pub(crate) type FieldTest = fn(fields: &Map<String, Value>) -> bool;

/// What one agent does differently from Claude Code (see the [module docs](self)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Overlay {
    /// The agent's tools, as (the agent's name, Claude Code's name for the same tool).
    pub(crate) tools: &'static [(&'static str, &'static str)],
    /// `false` when a hook configured as `event` must not fire for this firing of `point`;
    /// `tool` is the firing's tool on tool points (the session's own name for it).
    pub(crate) fires_for: fn(point: &str, event: &str, tool: Option<&str>) -> bool,
    /// Events that fire for some firings of their point only, told by the point's payload
    /// fields ([`WirePoint::fields`](super::WirePoint::fields)): `(event, test)`, the hook
    /// firing when `test` says `true` (Copilot's `errorOccurred`: error-level notifications).
    pub(crate) narrowed: &'static [(&'static str, FieldTest)],
    /// `true` when the payload gets Claude Code's own fields of the point
    /// ([`WirePoint::dialect_fields`](super::WirePoint::dialect_fields) in Claude Code's
    /// dialect: its `SessionEnd` reasons, `notification_type`, …) before `payload`; `false` for
    /// an agent whose payload is built from the point's fields alone (Copilot's).
    pub(crate) claude_fields: bool,
    /// Turns the payload built with Claude Code's tables into the agent's, in place.
    pub(crate) payload: fn(point: &str, event: &str, payload: &mut Map<String, Value>),
    /// Turns a payload the agent sends into Claude Code's form, in place (the reverse of
    /// `payload`, for the guest side and `hookchain test`).
    pub(crate) from_agent: fn(event: &str, payload: &mut Map<String, Value>),
    /// Reads the hook's raw output as the agent reads it.
    pub(crate) decide:
        fn(point: &str, event: &str, raw: &RawOutput) -> Result<Answer, ProtocolError>,
    /// `true` where the agent gives a hook's plain stdout to the model.
    pub(crate) plain_stdout_is_context: fn(point: &str) -> bool,
    /// `true` when Claude Code's per-point decision rules apply
    /// ([`WirePoint::in_dialect`](super::WirePoint::in_dialect) with Claude Code's dialect).
    pub(crate) claude_rules: bool,
    /// The agent's own reading of a decision, after Claude Code's rules (when they apply).
    pub(crate) adjust: fn(point: &str, event: &str, answer: &mut Answer),
    /// The agent's name for the value a matcher filters on, on a point that is not about a
    /// tool (Claude Code's `permission_prompt` is Gemini CLI's `ToolPermission`); `None`: the
    /// same name.
    pub(crate) subject: fn(point: &str, value: &str) -> Option<&'static str>,
}

impl Overlay {
    /// Claude Code's protocol unchanged: the start of every agent's overlay.
    pub(crate) const CLAUDE_CODE: Overlay = Overlay {
        tools: &[],
        fires_for: |_, _, _| true,
        narrowed: &[],
        claude_fields: true,
        payload: |_, _, _| {},
        from_agent: |_, _| {},
        decide: |_, _, raw| protocol::decide_in(raw, Dialect::ClaudeCode),
        plain_stdout_is_context: |point| {
            super::tables::plain_stdout_is_context(point, Dialect::ClaudeCode)
        },
        claude_rules: true,
        adjust: |_, _, _| {},
        subject: |_, _| None,
    };
}

/// The overlay of `dialect`, when it is one of the agents of the [module docs](self).
pub(crate) fn overlay(dialect: Dialect) -> Option<&'static Overlay> {
    match dialect {
        Dialect::Codex => Some(&codex::OVERLAY),
        Dialect::Gemini => Some(&gemini::OVERLAY),
        Dialect::Cursor => Some(&cursor::OVERLAY),
        Dialect::Copilot => Some(&copilot::OVERLAY),
        _ => None,
    }
}

/// `false` when `overlay` narrows `event` to some firings of its point and the firing whose
/// payload fields `fields` gives is not one of them.
pub(crate) fn fires_for_fields(
    overlay: &Overlay,
    event: &str,
    fields: impl FnOnce() -> Map<String, Value>,
) -> bool {
    match overlay.narrowed.iter().find(|(name, _)| *name == event) {
        Some((_, test)) => test(&fields()),
        None => true,
    }
}

/// Claude Code's name for a tool a session may call by another common name (`shell`,
/// `run_shell_command`, `write_file`, …), the key the agents' tool tables are written in.
fn claude_name(tool: &str) -> Option<&'static str> {
    const SYNONYMS: &[(&str, &[&str])] = &[
        (
            "Bash",
            &[
                "Bash",
                "bash",
                "shell",
                "Shell",
                "terminal",
                "run_shell_command",
                "exec_command",
                "execute_command",
                "run_terminal_cmd",
            ],
        ),
        ("Write", &["Write", "write_file", "write", "create_file"]),
        (
            "Edit",
            &["Edit", "edit_file", "edit", "replace", "str_replace"],
        ),
        ("Read", &["Read", "read_file", "read", "view"]),
        ("Glob", &["Glob", "glob", "find_files"]),
        (
            "Grep",
            &["Grep", "grep", "search_file_content", "grep_search"],
        ),
        ("LS", &["LS", "ls", "list_directory", "list_dir"]),
        ("WebFetch", &["WebFetch", "web_fetch", "fetch"]),
    ];
    SYNONYMS
        .iter()
        .find(|(_, names)| names.contains(&tool))
        .map(|(claude, _)| *claude)
}

/// The name `dialect`'s scripts know the session's tool `tool` by: the agent's own name for the
/// same tool when its table has one (`Bash` or `shell` → Gemini's `run_shell_command`), else
/// `tool` unchanged. Dialects without an overlay keep every name.
///
/// ```
/// use hookchain::external::wire::agents::tool_name_in;
/// use hookchain::Dialect;
///
/// assert_eq!(tool_name_in(Dialect::Gemini, "shell"), "run_shell_command");
/// assert_eq!(tool_name_in(Dialect::ClaudeCode, "shell"), "shell");
/// assert_eq!(tool_name_in(Dialect::Gemini, "deploy"), "deploy");
/// ```
pub fn tool_name_in(dialect: Dialect, tool: &str) -> Cow<'_, str> {
    let found = overlay(dialect).and_then(|overlay| {
        let claude = claude_name(tool)?;
        overlay
            .tools
            .iter()
            .find(|(_, ours)| *ours == claude)
            .map(|(theirs, _)| *theirs)
    });
    match found {
        Some(name) => Cow::Borrowed(name),
        None => Cow::Borrowed(tool),
    }
}

/// Claude Code's name (the one hookchain's guards know) for `dialect`'s tool `tool`
/// (`run_shell_command` → `Bash` in Gemini CLI's), or `tool` unchanged.
pub fn tool_name_from_agent(dialect: Dialect, tool: &str) -> &str {
    overlay(dialect)
        .and_then(|overlay| overlay.tools.iter().find(|(theirs, _)| *theirs == tool))
        .map_or(tool, |(_, ours)| ours)
}

/// A hook's raw output — exit code, stdout, stderr — answering `event` (a firing of `point`),
/// read as `dialect`'s agent reads it, before the point applies it: `Err` when that agent counts
/// the hook as failed (Codex rejects an answer with a field it does not support for the event).
/// Dialects without an overlay read it as [`protocol::decide_in`] does. What `hookchain hook
/// --agent NAME` answers can be checked with it: an agent never rejects it.
pub fn read_answer(
    dialect: Dialect,
    point: &str,
    event: &str,
    raw: &RawOutput,
) -> Result<Answer, ProtocolError> {
    match overlay(dialect) {
        Some(overlay) => (overlay.decide)(point, event, raw),
        None => protocol::decide_in(raw, dialect),
    }
}

/// A payload `dialect`'s agent sends for `event`, in Claude Code's form: its field names, its
/// tool names (the guards'), its values. Dialects without an overlay are returned unchanged.
pub fn payload_from_agent(
    dialect: Dialect,
    event: &str,
    payload: &Map<String, Value>,
) -> Map<String, Value> {
    let mut payload = payload.clone();
    if let Some(overlay) = overlay(dialect) {
        (overlay.from_agent)(event, &mut payload);
    }
    payload
}

/// What a hook process gave, for the tests of the overlays: its exit code and its output.
#[cfg(test)]
pub(super) fn raw(code: i32, stdout: &str, stderr: &str) -> RawOutput {
    RawOutput {
        exit_code: Some(code),
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
    }
}
