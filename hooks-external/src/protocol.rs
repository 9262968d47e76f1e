//! The wire protocol: the payload an external hook receives, and the [`Decision`] read from what
//! it answers, in whichever agent's dialect it answers.
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
//!   object in one of the dialects below; invalid JSON, an array, and stdout that is a JSON
//!   number, boolean, string or null are a [`ProtocolError`] (the hook meant something hookchain
//!   cannot read, so its `on_error` applies). Anything else: plain text, a context entry marked
//!   [`Decision::plain_text`]; it reaches the model only where the hook's agent gives plain
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

//! # The dialects
//!
//! Every field of every dialect is read from the same object, so a script written for any of
//! these agents works unchanged (and a script may mix them).
//!
//! | dialect | verdict | input | other |
//! |---|---|---|---|
//! | Claude Code | `decision`: `approve`/`block` + `reason`; `hookSpecificOutput.permissionDecision`: `allow`/`deny`/`ask`/`defer` + `permissionDecisionReason`; PermissionRequest's `hookSpecificOutput.decision.behavior`: `allow`/`deny` + `message` | `hookSpecificOutput.updatedInput` (then `hookSpecificOutput.decision.updatedInput`) replaces it | `hookSpecificOutput.additionalContext`, `hookSpecificOutput.updatedMCPToolOutput` (tool result), `continue: false` + `stopReason` (and PermissionRequest's `decision.interrupt: true` + `message`), `systemMessage` (warning), PermissionDenied's `hookSpecificOutput.retry` |
//! | docker-agent | `decision: block` + `reason`; `hook_specific_output.permission_decision`: `allow`/`deny`/`ask` + `permission_decision_reason` | `hook_specific_output.updated_input` replaces it | `hook_specific_output.additional_context`, `.updated_tool_response`, `.summary` (compaction; also read as `hookSpecificOutput.summary`), `continue: false` + `stop_reason`, `system_message` |
//! | Hermes | `action: block` + `message` (or `reason`) | `action: modify` merges `args`, `tool_input` or `input` into it | `modify` may carry `prompt` or `text` (new text); `context` |
//! | Starchild | `decision` | `tool_input` rewrites the keys it names that the input has (others are kept; keys the input lacks are ignored) | `notification` (a new outbound message), `context`, `systemMessage`, `add_warning` |
//!
//! `decision` is shared by Claude Code, docker-agent and Starchild; it takes `approve`/`allow`,
//! `block`/`deny`, `ask`, and Hermes' `modify` (which merges `tool_input` like `action: modify`).
//! `context` and `add_warning` take a string or a list of strings.
//!
//! Strictness follows each field's source: Claude Code and docker-agent reject a `decision` or a
//! permission decision they do not know, so an unknown value there is a [`ProtocolError`] (the
//! hook meant something, and a guessed pass would fail open); Hermes ignores an `action` it does
//! not know, so hookchain passes on it, with a debug log. A field of the wrong type is a
//! [`ProtocolError`]; unknown keys are ignored.
//!
//! # Contradictions
//!
//! When one answer says two things, each rule below is the one its source documents:
//!
//! 1. **`continue: false` wins over everything** — it stops, whatever the verdict, and rewrites
//!    are not applied. Claude Code, hooks reference, "Common JSON fields": "In all cases,
//!    `continue = false` takes precedence over any `decision: block` output". docker-agent
//!    checks `continue` before the verdict (`pkg/hooks/executor.go`, `aggregate`).
//! 2. **`permissionDecision` overrides the top-level `decision`** in Claude Code's own fields:
//!    `{"decision": "block", "hookSpecificOutput": {"permissionDecision": "allow"}}` allows.
//!    Claude Code, hooks reference, "PreToolUse decision control": "The `decision` and `reason`
//!    fields are deprecated for PreToolUse hooks. Use `hookSpecificOutput.permissionDecision` …
//!    The deprecated fields `approve` and `block` map to `allow` and `deny`"; its output parser
//!    reads `decision` first, then overrides it "with more specific permission decision if
//!    provided". `defer` is no decision: the top-level `decision` is not overridden by it, and
//!    on its own it passes.
//! 3. **Otherwise the most restrictive verdict wins: block (deny) over ask over allow** — across
//!    dialects (`{"hookSpecificOutput": {"permissionDecision": "allow"}, "hook_specific_output":
//!    {"permission_decision": "deny"}}` blocks) and within docker-agent's fields (`decision:
//!    block` with `permission_decision: allow` blocks). Claude Code, hooks reference: when hooks
//!    disagree "deny > defer > ask > allow"; docker-agent, `decisionWeight`/`strongerDecision`:
//!    "Deny > Ask > Allow", and `decision: block` sets `Allowed = false` whatever the permission
//!    decision. The reasons of every blocking field are kept, one per line, as docker-agent
//!    joins its messages.
//! 4. **A block wins over a rewrite**: a blocked (or asked, or stopped) answer's `updatedInput`,
//!    `modify` or text is not applied. Hermes checks every `block` before any `modify`
//!    (`agent/shell_hooks.py`, `_parse_pre_tool_call`); docker-agent applies `ModifiedInput` only
//!    when the call is allowed (`pkg/runtime`, `executePreToolHook`); in Claude Code a denied call
//!    never runs.
//! 5. **A replacement comes before a merge**: `updatedInput` (or `updated_input`, or Starchild's
//!    `tool_input`) replaces the input, then Hermes' `modify` merges into the replacement, then
//!    Starchild's `tool_input` rewrites the keys it names that the input has. Between the
//!    replacements, Claude Code's comes first, then docker-agent's.
//! 6. **Exit code 2 blocks whatever stdout says**: Claude Code, hooks reference, "Exit code
//!    output": "If your hook exits with code 2 (blocking error), stderr text is used directly —
//!    any JSON in stdout is ignored." One divergence, on purpose: with nothing on stderr, the
//!    reason of a JSON answer on stdout is the block's reason (Hermes reads it first), rather
//!    than a reason that says nothing. A Hermes hook's JSON reason wins over its stderr, as in
//!    Hermes.
//! 7. **The block reason**: Claude Code's `decision: block` takes `reason` (then Hermes'
//!    `message`); Hermes' `action: block` takes `message` (then `reason`), as Hermes does;
//!    `permissionDecision: deny` takes `permissionDecisionReason`, then `reason`, as Claude Code
//!    does.
//!
//! Context and warnings are never contradictory: every one is kept, in the order of the table.
//!
//! [`WirePoint::fields`]: super::wire::WirePoint::fields
//! [`payload`]: super::wire::payload

use hookchain_core::Dialect;
use serde_json::{Map, Value};

use super::RawOutput;
pub use super::decision::{Decision, Verdict};

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
fn excerpt(text: &str) -> String {
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

/// Reads a hook's raw output into a [`Decision`], by hookchain's own rules (see the
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
pub fn decide(raw: &RawOutput) -> Result<Decision, ProtocolError> {
    decide_in(raw, Dialect::Hookchain)
}

/// Reads a hook's raw output into a [`Decision`] as the agent of `dialect`, the dialect the
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
pub fn decide_in(raw: &RawOutput, dialect: Dialect) -> Result<Decision, ProtocolError> {
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
            Ok(Decision::block(reason))
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
fn read_stdout(raw: &RawOutput) -> Result<Decision, ProtocolError> {
    let stdout = std::str::from_utf8(&raw.stdout).map_err(|e| ProtocolError::NotUtf8 {
        stream: "stdout",
        offset: e.valid_up_to(),
    })?;
    // A byte-order mark is an editor's, not the hook's.
    let text = stdout.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        Ok(Decision::pass())
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
        Ok(Decision {
            context: vec![text.to_owned()],
            plain_text: true,
            ..Decision::default()
        })
    }
}

/// The decision of stdout when it is one readable JSON object; `None` otherwise (nothing,
/// text, invalid JSON, an object with a field hookchain cannot read).
fn json_answer(raw: &RawOutput) -> Option<Decision> {
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

/// An answer that is JSON but not an object.
fn not_an_object(value: &Value) -> ProtocolError {
    ProtocolError::WrongType {
        field: "stdout".to_owned(),
        expected: "a JSON object",
        found: describe(value),
    }
}

/// A JSON value as a message names it: its type and a short excerpt.
fn describe(value: &Value) -> String {
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

/// The fields of one JSON object, read with their path for messages.
#[derive(Clone, Copy)]
struct Fields<'a> {
    object: &'a Map<String, Value>,
    path: &'static str,
}

impl<'a> Fields<'a> {
    fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn wrong(&self, key: &str, expected: &'static str, found: &Value) -> ProtocolError {
        ProtocolError::WrongType {
            field: self.name(key),
            expected,
            found: describe(found),
        }
    }

    /// A field that is absent or `null` is `None`.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.object.get(key).filter(|v| !v.is_null())
    }

    /// A string; an empty one is `None`.
    fn string(&self, key: &str) -> Result<Option<&'a str>, ProtocolError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    fn boolean(&self, key: &str) -> Result<Option<bool>, ProtocolError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong(key, "true or false", other)),
        }
    }

    fn object(&self, key: &str) -> Result<Option<&'a Map<String, Value>>, ProtocolError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o)),
            Some(other) => Err(self.wrong(key, "an object", other)),
        }
    }

    fn nested(&self, key: &'static str) -> Result<Option<Fields<'a>>, ProtocolError> {
        Ok(self.object(key)?.map(|object| Fields { object, path: key }))
    }

    /// A string or a list of strings; empty ones are dropped.
    fn texts(&self, key: &str) -> Result<Vec<String>, ProtocolError> {
        const EXPECTED: &str = "a string or a list of strings";
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(non_empty(s).into_iter().collect()),
            Some(Value::Array(items)) => items
                .iter()
                .filter(|item| !item.is_null())
                .map(|item| match item {
                    Value::String(s) => Ok(non_empty(s)),
                    other => Err(self.wrong(key, EXPECTED, other)),
                })
                .filter_map(Result::transpose)
                .collect(),
            Some(other) => Err(self.wrong(key, EXPECTED, other)),
        }
    }
}

fn non_empty(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_owned())
}

fn owned(s: Option<&str>) -> String {
    s.map(str::to_owned).unwrap_or_default()
}

/// What the top-level `decision` says.
enum TopDecision {
    Verdict(Verdict),
    /// Hermes' `decision: modify`.
    Modify,
}

/// Reads one JSON answer, applying the contradiction rules of the module docs.
fn from_object(object: &Map<String, Value>) -> Result<Decision, ProtocolError> {
    let top = Fields { object, path: "" };
    let claude = top.nested("hookSpecificOutput")?;
    let docker = top.nested("hook_specific_output")?;
    let reason = top.string("reason")?;
    let message = top.string("message")?;
    let mut decision = Decision::default();

    // The verdict. Rule 2: Claude Code's permission decision overrides the top-level `decision`;
    // rule 3: everything else combines, the most restrictive winning.
    let top_decision = match top.string("decision")? {
        None => None,
        Some(value) => Some(match value.to_ascii_lowercase().as_str() {
            "approve" | "allow" => TopDecision::Verdict(Verdict::Allow),
            "block" | "deny" => TopDecision::Verdict(Verdict::Block(owned(reason.or(message)))),
            "ask" => TopDecision::Verdict(Verdict::Ask(owned(reason.or(message)))),
            "modify" => TopDecision::Modify,
            _ => {
                return Err(ProtocolError::UnknownValue {
                    field: "decision".to_owned(),
                    value: excerpt(value),
                    expected: "`approve`, `allow`, `block`, `deny`, `ask` or `modify`",
                });
            }
        }),
    };
    let claude_permission = match claude {
        None => None,
        Some(fields) => permission(
            &fields,
            "permissionDecision",
            "permissionDecisionReason",
            reason,
            "`allow`, `deny`, `ask` or `defer`",
        )?,
    };
    let docker_permission = match docker {
        None => None,
        Some(fields) => permission(
            &fields,
            "permission_decision",
            "permission_decision_reason",
            reason,
            "`allow`, `deny` or `ask`",
        )?,
    };
    let mut verdict = Verdict::Pass;
    match (claude_permission, &top_decision) {
        // `defer` is no decision: it neither overrides `decision` nor says anything itself.
        (Some(Permission::Defer) | None, Some(TopDecision::Verdict(v))) => {
            verdict = verdict.and(v.clone());
        }
        (Some(Permission::Verdict(v)), _) => verdict = verdict.and(v),
        _ => {}
    }
    if let Some(Permission::Verdict(v)) = docker_permission {
        verdict = verdict.and(v);
    }
    // Claude Code's PermissionRequest: `hookSpecificOutput.decision.behavior`, with its
    // `message`, `updatedInput` and `interrupt`.
    let request = match claude.map(|fields| fields.object("decision")).transpose()? {
        Some(Some(object)) => Some(Fields {
            object,
            path: "hookSpecificOutput.decision",
        }),
        _ => None,
    };
    let mut interrupt = None;
    if let Some(request) = request {
        let message = request.string("message")?;
        match request.string("behavior")? {
            None => {}
            Some(behavior) => match behavior.to_ascii_lowercase().as_str() {
                "allow" => verdict = verdict.and(Verdict::Allow),
                "deny" => verdict = verdict.and(Verdict::Block(owned(message.or(reason)))),
                _ => {
                    return Err(ProtocolError::UnknownValue {
                        field: request.name("behavior"),
                        value: excerpt(behavior),
                        expected: "`allow` or `deny`",
                    });
                }
            },
        }
        if request.boolean("interrupt")? == Some(true) {
            interrupt = Some(owned(message.or(reason)));
        }
    }

    // Hermes: `action: block | modify`; any other action passes, as in Hermes.
    let mut modify = matches!(top_decision, Some(TopDecision::Modify));
    match top.string("action")? {
        None => {}
        Some(action) => match action.to_ascii_lowercase().as_str() {
            "block" | "deny" => verdict = verdict.and(Verdict::Block(owned(message.or(reason)))),
            "modify" => modify = true,
            other => tracing::debug!(action = other, "ignoring an unknown Hermes `action`"),
        },
    }
    decision.verdict = verdict;

    // Rule 5: replacements, Claude Code's first, then docker-agent's; Starchild's `tool_input`
    // (Hermes' merge payload under `modify`) rewrites existing keys.
    let mut replacements = Vec::new();
    if let Some(fields) = claude {
        replacements.push(fields.object("updatedInput")?);
    }
    if let Some(request) = request {
        replacements.push(request.object("updatedInput")?);
    }
    if let Some(fields) = docker {
        replacements.push(fields.object("updated_input")?);
    }
    if !modify {
        decision.rewrite_keys = top.object("tool_input")?.cloned();
    }
    // Starchild: `{"notification": "..."}` rewrites an outbound message.
    decision.notification = top.string("notification")?.map(str::to_owned);
    decision.updated_input = replacements
        .into_iter()
        .flatten()
        .next()
        .map(|o| Value::Object(o.clone()));
    if modify {
        for key in ["args", "tool_input", "input"] {
            if let Some(merge) = top.object(key)? {
                decision.merge_input = Some(merge.clone());
                break;
            }
        }
        decision.updated_text = top
            .string("prompt")?
            .or(top.string("text")?)
            .map(str::to_owned);
    }

    // Tool results, summaries.
    if let Some(fields) = claude {
        decision.updated_output = fields.get("updatedMCPToolOutput").cloned();
    }
    if let Some(fields) = docker {
        if decision.updated_output.is_none() {
            decision.updated_output = fields
                .get("updated_tool_response")
                .map(|v| match v {
                    Value::String(_) => Ok(v.clone()),
                    other => Err(fields.wrong("updated_tool_response", "a string", other)),
                })
                .transpose()?;
        }
        decision.summary = fields.string("summary")?.map(str::to_owned);
    }
    if decision.summary.is_none()
        && let Some(fields) = claude
    {
        // docker-agent's summary, written in Claude Code's camelCase object.
        decision.summary = fields.string("summary")?.map(str::to_owned);
    }

    // Context and warnings: every one, in the order of the dialect table.
    if let Some(fields) = claude {
        decision.context.extend(fields.texts("additionalContext")?);
    }
    if let Some(fields) = docker {
        decision.context.extend(fields.texts("additional_context")?);
    }
    decision.context.extend(top.texts("context")?);
    decision.warnings.extend(top.texts("systemMessage")?);
    decision.warnings.extend(top.texts("system_message")?);
    decision.warnings.extend(top.texts("add_warning")?);

    // Claude Code's PermissionDenied: `retry: true` lets the model retry the denied call.
    if let Some(fields) = claude {
        decision.retry = fields.boolean("retry")?;
    }

    // Rule 1: `continue: false` stops, whatever else was said; so does a PermissionRequest's
    // `interrupt: true`.
    if top.boolean("continue")? == Some(false) {
        decision.stop = Some(owned(
            top.string("stopReason")?.or(top.string("stop_reason")?),
        ));
    } else if let Some(reason) = interrupt {
        decision.stop = Some(reason);
    }
    Ok(decision)
}

enum Permission {
    Verdict(Verdict),
    Defer,
}

/// A permission decision (`allow`/`deny`/`ask`, and for Claude Code `defer`) with its reason;
/// rule 7: the specific reason first, then the top-level `reason`.
fn permission(
    fields: &Fields<'_>,
    key: &str,
    reason_key: &str,
    top_reason: Option<&str>,
    expected: &'static str,
) -> Result<Option<Permission>, ProtocolError> {
    let Some(value) = fields.string(key)? else {
        return Ok(None);
    };
    let reason = || -> Result<String, ProtocolError> {
        Ok(owned(fields.string(reason_key)?.or(top_reason)))
    };
    let defer_allowed = expected.contains("defer");
    Ok(Some(match value.to_ascii_lowercase().as_str() {
        "allow" | "approve" => Permission::Verdict(Verdict::Allow),
        "deny" | "block" => Permission::Verdict(Verdict::Block(reason()?)),
        "ask" => Permission::Verdict(Verdict::Ask(reason()?)),
        "defer" if defer_allowed => Permission::Defer,
        _ => {
            return Err(ProtocolError::UnknownValue {
                field: fields.name(key),
                value: excerpt(value),
                expected,
            });
        }
    }))
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

    fn json(value: Value) -> Decision {
        decide(&out(&value.to_string())).unwrap()
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

    #[test]
    fn verdicts_combine_most_restrictive_first() {
        let block = || Verdict::Block("b".into());
        let ask = || Verdict::Ask("a".into());
        assert_eq!(Verdict::Allow.and(block()), block());
        assert_eq!(block().and(Verdict::Allow), block());
        assert_eq!(ask().and(Verdict::Allow), ask());
        assert_eq!(ask().and(block()), block());
        assert_eq!(Verdict::Pass.and(Verdict::Allow), Verdict::Allow);
        assert_eq!(
            Verdict::Block("x".into()).and(Verdict::Block("y".into())),
            Verdict::Block("x\ny".into())
        );
        assert_eq!(
            Verdict::Block("x".into()).and(Verdict::Block("x".into())),
            Verdict::Block("x".into())
        );
        assert_eq!(
            Verdict::Block(String::new()).and(Verdict::Block("y".into())),
            Verdict::Block("y".into())
        );
    }

    #[test]
    fn new_input_replaces_then_merges() {
        let current = json!({"a": 1, "b": 2});
        assert_eq!(Decision::pass().new_input(&current), None);
        let merge = Decision {
            merge_input: json!({"b": 3}).as_object().cloned(),
            ..Decision::default()
        };
        assert_eq!(merge.new_input(&current), Some(json!({"a": 1, "b": 3})));
        let both = Decision {
            updated_input: Some(json!({"c": 1})),
            ..merge.clone()
        };
        assert_eq!(both.new_input(&current), Some(json!({"c": 1, "b": 3})));
        assert_eq!(merge.new_input(&json!("text")), Some(json!({"b": 3})));
    }

    #[test]
    fn fields_of_the_wrong_type_are_named() {
        let err = decide(&out(r#"{"hookSpecificOutput": {"updatedInput": "rm"}}"#)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the hook printed `hookSpecificOutput.updatedInput` as a string (\"rm\"), but it must be an object"
        );
        let err = decide(&out(r#"{"continue": "no"}"#)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the hook printed `continue` as a string (\"no\"), but it must be true or false"
        );
        let err = decide(&out(r#"{"context": [1]}"#)).unwrap_err();
        assert!(
            err.to_string().contains(
                "`context` as a number (1), but it must be a string or a list of strings"
            ),
            "{err}"
        );
    }

    #[test]
    fn nulls_and_empty_strings_say_nothing() {
        let d = json(json!({
            "decision": null, "reason": "", "hookSpecificOutput": null, "context": ["", null],
            "systemMessage": "  ", "continue": null
        }));
        assert!(d.is_pass(), "{d:?}");
    }

    #[test]
    fn excerpts_are_short_and_escaped() {
        assert_eq!(excerpt("a\nb"), "a\\nb");
        let long = "x".repeat(200);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT + 1);
    }

    /// Found by fuzzing: a verdict field holding a huge string made a message as long as the
    /// output, which then went into logs and notifications whole.
    #[test]
    fn an_unknown_verdict_is_quoted_as_an_excerpt() {
        let huge = "}".repeat(100_000);
        for stdout in [
            json!({ "decision": huge }),
            json!({ "hookSpecificOutput": { "permissionDecision": huge } }),
        ] {
            let error = decide(&out(&stdout.to_string())).unwrap_err();
            assert!(
                matches!(error, ProtocolError::UnknownValue { .. }),
                "{error}"
            );
            assert!(error.to_string().len() < 500, "{error:.300}");
        }
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
        assert!(!json(json!({"context": "hello"})).plain_text);
    }

    /// docker-agent's summary written in Claude Code's camelCase object is read.
    #[test]
    fn a_camel_case_summary_is_read() {
        let d = json(json!({"hookSpecificOutput": {"summary": "short"}}));
        assert_eq!(d.summary.as_deref(), Some("short"));
        let both = json(json!({"hookSpecificOutput": {"summary": "b"},
                               "hook_specific_output": {"summary": "a"}}));
        assert_eq!(both.summary.as_deref(), Some("a"));
    }
}
