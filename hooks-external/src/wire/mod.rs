//! How each point speaks the wire protocol: its input as payload fields, its tool name for
//! matchers, and how a [`Answer`] becomes its [`HookResult`].
//!
//! The [`WirePoint`] impls are grouped by point family, one file each under `wire/`: `session`
//! (session lifecycle), `prompt` (a turn's prompt, model calls and reply), `tool` (tool calls),
//! `stop` (stop, compaction, subagents) and `message` (outbound messages and notifications);
//! they share `apply`, the steps of "Decisions" below. [`example_value`] and
//! [`value_from_payload`] (in `example`) go the other way: a value of each point to try hooks
//! with, and a payload read back as a point's value. What differs per agent dialect —
//! payload fields, plain stdout, decisions, events, matchers, refused tool calls — is in one
//! place: [`tables`].
//!
//! # Payload fields
//!
//! Fields are named as the other agents' protocols name them, so their scripts read them
//! unchanged; where agents disagree, the payload carries each name.
//!
//! | point | fields |
//! |---|---|
//! | `session_start` | `source` (`startup`, `reset`, `subagent`, `resume`, `compact`), `parent_session_id`, `context` (injected so far) |
//! | `session_end` | `reason` |
//! | `session_reset` | `old_session_id`, `new_session_id` |
//! | `transform_user_input` | `prompt` |
//! | `turn_start` | `prompt`, `context` (injected so far) |
//! | `before_llm_call` | `system_prompt`, `messages` (`[{role, content}]`) |
//! | `after_llm_call` | `response`, `tool_calls` (`[{name, args, id}]`) |
//! | `intercept_tool_call` | `tool_name`, `tool_input`, `tool_use_id` |
//! | `permission_request` | `tool_name`, `tool_input`, `tool_use_id`, `permission_suggestions` (when the agent offers some) |
//! | `transform_tool_result`, `after_tool_call` | `tool_name`, `tool_input`, `tool_use_id`, `tool_response`, `is_error` (and docker-agent's `tool_error`), `blocked` (`{reason, hook, failed}`, for a call `intercept_tool_call` refused) and `reason` (the block's reason, Claude Code's PermissionDenied `reason`) |
//! | `after_tool_batch` | `tool_calls` (one object per call, with the fields of `after_tool_call`), `context` (injected so far) |
//! | `transform_response` | `response` |
//! | `on_stop` | `response` (and Claude Code's `last_assistant_message`, docker-agent's `stop_response`), `stop_hook_active`, `redos` |
//! | `before_compaction` | `trigger` (and docker-agent's `source`), `messages`, `summary` |
//! | `after_compaction` | `summary`, `messages_before`, `messages_after` |
//! | `subagent_stop` | `parent_session_id`, `reason` |
//! | `outbound_message` | `platform` (and Starchild's `channel`), `recipient`, `message` (and `text`, and Starchild's `notification`) |
//! | `slash_command` | `command` (the name, no `/`), `args`; a matcher filters on `command` |
//! | `turn_end` | `reason` (`normal`, `error`, `canceled`, `blocked`, `max_iterations`), `detail` (for an error) |
//! | `notification` | `message`, `level` (`info`, `warning`, `error`), `kind` (`general`, `max_iterations`, `user_input`, `permission_prompt`), `source` |
//!
//! Optional fields (`tool_use_id`, `parent_session_id`, `summary`, `source`, `blocked`) are left
//! out when the value has none. The common keys (`hook_event_name`, `session_id`, …) are added
//! by [`payload`].
//!
//!
//! # Decisions
//!
//! Every point applies a decision in the same order:
//!
//! 1. **Warnings** go to `cx.warn`, on every point.
//! 2. **Context** goes to `cx.add_context` — except on the inject points, where the context is
//!    the injection (`session_start`: the session's context, `turn_start`: the turn's,
//!    `after_tool_batch`: the next model call's, the texts one per line; `before_llm_call`: an
//!    `Injection::system`). Points after
//!    which no model call of the turn follows take no context, and drop it with a debug log:
//!    `session_end`, `session_reset`, `turn_end`, `transform_response`, `outbound_message`,
//!    `slash_command`.
//! 3. **Stop, block, ask** (in that order, see the contradiction rules of
//!    [`protocol::answer`](super::protocol::answer)) block with the hook's reason on transform
//!    and inject points. An empty reason becomes one naming the hook. `ask` blocks too, with a reason saying the
//!    hook asked for a confirmation hookchain has no way to ask for: there is no interactive
//!    prompt in the chain, and going on unasked would fail open.
//!    One exception: on `on_stop` a block sends the agent back to work (Claude Code's
//!    `decision: block` on `Stop`), while `continue: false` means the agent stops — Claude Code:
//!    "For Stop and SubagentStop, this takes precedence over any `decision: block` output" — so
//!    there a stop passes (the turn ends) and its reason becomes a warning.
//! 4. **Rewrites**, when nothing blocked: new or merged input on `intercept_tool_call` (a
//!    `Rewrite` of the args); new text on `transform_user_input`, `transform_response`,
//!    `outbound_message` (also Starchild's `notification`) and `on_stop` (the final reply); a
//!    new tool result on
//!    `transform_tool_result`; a summary (or new text) on `before_compaction`. A part a point has
//!    no use for is ignored with a debug log.
//!
//! `allow` is a pass: later hooks of the chain still run, as Claude Code's `allow` skips the
//! permission prompt but not the deny rules.
//!
//! On observe points every part is ignored (with a debug log) except warnings and context,
//! which are still reported.

pub mod agents;
mod apply;
mod example;
mod message;
mod prompt;
mod session;
mod stop;
pub mod tables;
#[cfg(test)]
mod testing;
mod tool;

use hookchain_core::{Dialect, HookContext, HookPoint, HookResult, ToolCall};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::answer::Answer;
use crate::transcript;
use tables::hermes_extra;

pub use example::{EXAMPLE_SESSION_ID, EXAMPLE_TOOL, example_value, value_from_payload};
pub use tables::{plain_stdout_is_context, subject_field};

/// A hook point external hooks can attach to: how its input goes on the wire and how an answer
/// comes back as its result. Implemented for every built-in point.
pub trait WirePoint: HookPoint {
    /// The point's fields of the payload (see the [module docs](self)).
    fn fields(input: &Self::Input) -> Map<String, Value>;

    /// The tool a firing is about, for matchers; `None` on points that are not about a tool.
    fn tool_name(input: &Self::Input) -> Option<&str> {
        let _ = input;
        None
    }

    /// The line the firing adds to the transcript hookchain keeps for a session
    /// ([`transcript`] module), in Claude Code's format; `None` for points whose
    /// input is not part of the conversation.
    fn transcript_entry(input: &Self::Input) -> Option<Value> {
        let _ = input;
        None
    }

    /// `false` when a hook configured as `event` in `dialect` ([`Dialect::Hookchain`] for
    /// hookchain's own protocol) must not be fired for `input`: its agent fires no such event
    /// there, or `event` names only some firings of the point (see "Events that name some
    /// firings of a point" in the [`tables`]). `true` by default.
    fn fires_for(input: &Self::Input, event: &str, dialect: Dialect) -> bool {
        let _ = (input, event, dialect);
        true
    }

    /// Adds to `map` (the point's [`fields`](Self::fields)) what `dialect` sends
    /// on this point beyond them, in its own names and values (see "Payload fields per
    /// dialect" in the [`tables`]). Nothing by default.
    fn dialect_fields(input: &Self::Input, dialect: Dialect, map: &mut Map<String, Value>) {
        let _ = (input, dialect, map);
    }

    /// The session `dialect` names in the payload's `session_id`, when it is not the firing's
    /// own: Claude Code's SubagentStop and Hermes' `subagent_stop` fire in the parent's session
    /// (see "Payload fields per dialect" in the [`tables`]). `None` by default.
    fn session_id_in(input: &Self::Input, dialect: Dialect) -> Option<&str> {
        let _ = (input, dialect);
        None
    }

    /// What a matcher of a hook in `dialect` filters on, on this point when it is
    /// not about a tool (see "Matchers on other events" in the [`tables`]).
    /// [`Subject::Unfiltered`] by default: the matcher is not consulted.
    fn event_subject(input: &Self::Input, dialect: Dialect) -> Subject {
        let _ = (input, dialect);
        Subject::Unfiltered
    }

    /// Reads `answer` as the agent of its dialect reads it on this point, before
    /// [`apply_answer`](Self::apply_answer) (see "Decisions per dialect" in the
    /// [`tables`]). Nothing by default.
    fn in_dialect(
        input: &Self::Input,
        answer: &mut Answer,
        dialect: Dialect,
        cx: &HookContext<'_>,
    ) {
        let _ = (input, answer, dialect, cx);
    }

    /// The point's result for `answer` (see the [module docs](self)); warnings and context go
    /// to `cx`.
    fn apply_answer(
        input: &Self::Input,
        answer: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<Self::Rewrite>;
}

/// What a matcher filters on, on a point that is not about a tool
/// ([`WirePoint::event_subject`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// The matcher is not consulted: the hook fires whatever it says.
    Unfiltered,
    /// The matcher is matched against this value (Claude Code's SessionStart `source`).
    Value(String),
    /// The dialect filters on a field hookchain has no value for (Claude Code's Notification
    /// `notification_type`): only a matcher for everything (`*` or empty) fires.
    Unknown,
}

/// Reads `answer` as the agent of `dialect` ([`Dialect::Hookchain`]: hookchain's own protocol)
/// reads it on point `P`: plain stdout that agent does not give to the model is logged and
/// dropped, then the point's [`WirePoint::in_dialect`] applies.
pub fn adapt<P: WirePoint>(
    input: &P::Input,
    answer: &mut Answer,
    dialect: Dialect,
    cx: &HookContext<'_>,
) {
    adapt_as::<P>(input, answer, dialect, P::NAME, cx);
}

/// [`adapt`] for a hook configured as `event` (its agent's name for the point), which the
/// agents with an overlay ([`agents`]) read some answers by.
pub fn adapt_as<P: WirePoint>(
    input: &P::Input,
    answer: &mut Answer,
    dialect: Dialect,
    event: &str,
    cx: &HookContext<'_>,
) {
    let overlay = agents::overlay(dialect);
    let plain_is_context = match overlay {
        Some(overlay) => (overlay.plain_stdout_is_context)(P::NAME),
        None => plain_stdout_is_context(P::NAME, dialect),
    };
    if answer.plain_text && !plain_is_context {
        let text = answer.context.join("\n");
        tracing::info!(
            point = P::NAME,
            hook = cx.hook_name(),
            "the hook printed plain text, which {} does not give to the model on `{}`: {text}",
            dialect,
            P::NAME
        );
        answer.context.clear();
        answer.plain_text = false;
    }
    match overlay {
        Some(overlay) => {
            if overlay.claude_rules {
                P::in_dialect(input, answer, Dialect::ClaudeCode, cx);
            }
            (overlay.adjust)(P::NAME, event, answer);
        }
        None => P::in_dialect(input, answer, dialect, cx),
    }
}

/// A value as JSON; a value that does not serialize becomes its error message, so a payload is
/// always built.
fn json<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| Value::String(format!("unserializable: {e}")))
}

/// Builds a field map.
fn fields<const N: usize>(entries: [(&str, Value); N]) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}

/// A tool call as a transcript's `tool_use` block.
fn tool_use(call: &ToolCall) -> Value {
    serde_json::json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.args})
}

/// A reply as a transcript's assistant message.
fn assistant_text(text: &str) -> Value {
    transcript::assistant(serde_json::json!([{"type": "text", "text": text}]))
}

/// Adds `key` when `value` is `Some`.
fn put_opt(map: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(value) = value {
        map.insert(key.to_owned(), Value::from(value));
    }
}

/// The payload of one firing of an external hook on point `P`, in hookchain's own protocol: the
/// common keys and the point's fields (see the [module docs](self)). [`payload_in`] with no
/// dialect.
pub fn payload<P: WirePoint>(
    event: &str,
    input: &P::Input,
    cx: &HookContext<'_>,
) -> Map<String, Value> {
    payload_in::<P>(event, Dialect::Hookchain, input, cx)
}

/// The payload of one firing of an external hook on point `P` configured as `event` in
/// `dialect` ([`Dialect::Hookchain`] for hookchain's own protocol):
/// the common keys, the point's fields and what that dialect adds (see "Payload fields per
/// dialect" in the [`tables`]).
pub fn payload_in<P: WirePoint>(
    event: &str,
    dialect: Dialect,
    input: &P::Input,
    cx: &HookContext<'_>,
) -> Map<String, Value> {
    let overlay = agents::overlay(dialect);
    // An agent with an overlay gets Claude Code's payload, then its own differences.
    let base = dialect.base();
    let mut payload = P::fields(input);
    if overlay.is_none_or(|overlay| overlay.claude_fields) {
        P::dialect_fields(input, base, &mut payload);
    }
    if dialect == Dialect::Hermes {
        // Hermes sends these keys on every event: `null` where there is no tool, and the
        // event's other arguments under `extra`.
        payload.entry("tool_name").or_insert(Value::Null);
        payload.entry("tool_input").or_insert(Value::Null);
        if !payload.contains_key("extra") {
            hermes_extra(&mut payload, []);
        }
        if let Some(Value::Object(extra)) = payload.get_mut("extra") {
            extra.insert("task_id".to_owned(), Value::from(cx.session_id()));
        }
        // Hermes' active profile; hookchain has profiles of none, and Hermes names the one
        // used when none is chosen `default`.
        payload.insert("profile".to_owned(), Value::from("default"));
    }
    // The session's project directory (`hookchain_core::project`).
    let cwd = cx.project_dir().to_string_lossy().into_owned();
    let common = [
        // The event as the hook was configured: the dialect's own spelling (`PreToolUse`,
        // `pre_tool_use`, `pre_tool_call`), or the canonical point in hookchain's own protocol.
        // Scripts branch on it (hookify denies only `if hook_event == 'PreToolUse'`).
        ("hook_event_name", Value::from(event)),
        ("event", Value::from(event)),
        ("session_id", Value::from(cx.session_id())),
        ("cwd", Value::from(cwd)),
        ("turn", Value::from(cx.turn())),
        ("turn_state", Value::Object(cx.turn_state().snapshot())),
    ];
    for (key, value) in common {
        payload.insert(key.to_owned(), value);
    }
    let (transcript_path, permission_mode) = transcript::fields(cx, P::transcript_entry(input));
    if let Some(path) = transcript_path {
        payload.insert("transcript_path".to_owned(), Value::from(path));
    }
    payload.insert("permission_mode".to_owned(), Value::from(permission_mode));
    if let Some(session) = P::session_id_in(input, base) {
        payload.insert("session_id".to_owned(), Value::from(session));
    }
    for (key, value) in transcript::agent_fields(cx) {
        payload.entry(key).or_insert(value);
    }
    for (key, value) in tables::default_fields(P::NAME, dialect) {
        payload
            .entry((*key).to_owned())
            .or_insert_with(|| Value::from(*value));
    }
    if let Some(overlay) = overlay {
        if let Some(Value::String(tool)) = payload.get("tool_name") {
            let named = agents::tool_name_in(dialect, tool).into_owned();
            payload.insert("tool_name".to_owned(), Value::from(named));
        }
        (overlay.payload)(P::NAME, event, &mut payload);
    }
    payload
}

#[cfg(test)]
mod tests;
