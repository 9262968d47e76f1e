//! The per-dialect tables: what each agent sends beyond hookchain's own payload, where its
//! plain stdout goes, how it reads a decision, which of its events name only some firings of a
//! point, and what its matchers filter on outside tool points. The docs below are the tables;
//! the functions of this module are the names and values they list that more than one point
//! uses. Each point's own dialect fields are written next to its
//! [`WirePoint`](super::WirePoint) impl, in its family's file of `wire/`.
//!
//! # Payload fields per dialect
//!
//! A hook configured in another agent's dialect ([`payload_in`](super::payload_in)) gets the fields above and, in
//! its agent's names and values, what that agent sends beyond them
//! ([`WirePoint::dialect_fields`](super::WirePoint::dialect_fields)). Where hookchain has no source for a field, the agent can
//! give it for its sessions ([`set_payload_field`](crate::transcript::set_payload_field));
//! otherwise it is left out, as these agents leave out fields they have no value for, unless
//! the table says what is sent instead.
//!
//! **Claude Code** (common: `session_id`, `transcript_path`, `cwd`, `permission_mode`,
//! `hook_event_name`):
//!
//! | event | field | from |
//! |---|---|---|
//! | `SessionStart` | `source` | `startup` (a new session), `clear` (`Session::reset`), `resume`, `compact` (`SessionSource::Resume`/`Compact`, which the agent fires itself); not fired for a child session (Claude Code fires `SubagentStart` there) |
//! | `SessionStart` | `model`, `agent_type` | no source: left out |
//! | `SubagentStart` | `agent_id` | the child's session id (`session_start` of a `Session::child`) |
//! | `SubagentStart` | `agent_type` | no source: left out |
//! | `PermissionRequest` | `tool_name`, `tool_input`, `permission_suggestions` | the call; the agent's suggestions, when it gives some |
//! | `PermissionDenied` | `tool_name`, `tool_input`, `tool_use_id`, `reason` | the refused call and the block's reason |
//! | `PostToolBatch` | `tool_calls` | every call of the batch with its result |
//! | `SessionEnd` | `reason` | the agent's reason when it is one of `clear`, `logout`, `prompt_input_exit`, `bypass_permissions_disabled`, `other`; else `other` |
//! | `UserPromptSubmit` | `prompt` | the user's message |
//! | `PreToolUse`, `PostToolUse` | `tool_name`, `tool_input`, `tool_use_id`, `tool_response` | the call and its result |
//! | `Stop` | `stop_hook_active`, `last_assistant_message` | the stop event |
//! | `SubagentStop` | `session_id` | the parent's session: Claude Code fires it in the session that started the subagent |
//! | `SubagentStop` | `agent_id`, `stop_hook_active` | the child's session id; `false` |
//! | `SubagentStop` | `agent_type`, `agent_transcript_path`, `last_assistant_message` | no source: left out |
//! | `PreCompact` | `trigger`, `custom_instructions` | `auto` or `manual`; `""` (hookchain has no `/compact` instructions) |
//! | `Notification` | `message` | the notification's message |
//! | `Notification` | `notification_type` | `idle_prompt` for `NotificationKind::UserInput`, `permission_prompt` for `NotificationKind::PermissionPrompt`; left out for the others (none of Claude Code's types) |
//! | `Notification` | `title` | no source: left out |
//!
//! **docker-agent** (common: `session_id`, `cwd`, `hook_event_name`):
//!
//! | event | field | from |
//! |---|---|---|
//! | every event | `agent_name` | no source: left out (docker-agent omits it when empty) |
//! | `session_start` | `source` | as Claude Code's |
//! | `session_end` | `reason` | as Claude Code's |
//! | `pre_tool_use`, `post_tool_use` | `tool_name`, `tool_input`, `tool_use_id`, `tool_response`, `tool_error` | the call and its result |
//! | `stop`, `after_llm_call` | `stop_response` | the reply |
//! | `pre_compact` | `source` | the trigger |
//! | `before_compaction` | `compaction_reason` | `threshold` (hookchain's `auto`) or `manual` |
//! | `before_compaction`, `after_compaction` | `input_tokens`, `output_tokens`, `context_limit` | no source: left out (docker-agent omits zeros; `context_limit` 0 means "unknown") |
//! | `subagent_stop` | `parent_session_id` | the parent's session |
//! | `notification`, `on_error`, `on_max_iterations`, `on_user_input` | `notification_level`, `notification_message` | the level (`info`, `warning`, `error`) and message |
//! | `turn_start` | `prompt` | the user's message (beyond docker-agent's payload, which has none there) |
//! | `permission_request` | `tool_name`, `tool_input`, `tool_use_id` | the call |
//! | `turn_end` | `reason` | as hookchain's, `blocked` spelled `hook_blocked` |
//!
//! **Hermes** (every event: `hook_event_name`, `tool_name`, `tool_input` — `null` where there
//! is no tool — `session_id`, `cwd`, `profile`, `extra`; each event's arguments as Hermes'
//! Event Hooks docs list them):
//!
//! | event | field | from |
//! |---|---|---|
//! | every event | `profile` | `default`, the profile Hermes uses when none is chosen (hookchain has none) |
//! | every event | `extra` | the point's other fields (above), and `task_id` (the session) |
//! | `pre_tool_call`, `post_tool_call` | `extra.tool_call_id`, `extra.result` | the call's id; the result as a string (JSON for a structured one) |
//! | `post_tool_call` | `extra.duration_ms` | no source: left out |
//! | `pre_llm_call` | `extra.user_message`, `extra.conversation_history` | the last user message; the messages |
//! | `pre_llm_call`, `post_llm_call`, `on_session_start` | `extra.model`, `extra.platform`, `extra.is_first_turn` | no source: left out |
//! | `post_llm_call` | `extra.assistant_response` | the reply |
//! | `subagent_stop` | `session_id` | the parent's session (Hermes fires it on the parent's thread; its docs' `log-orchestration.sh` logs `.session_id` as the parent) |
//! | `subagent_stop` | `extra.parent_session_id`, `extra.child_session_id` | the parent's session; the child's (the name of Hermes' `subagent_start` argument) |
//! | `subagent_stop` | `extra.child_status` | `completed`, `failed`, `interrupted` or `error`: the child's end reason when it is one of those, `completed` for `normal`, `exit`, `done` or none, `interrupted` for `canceled`, else `error` |
//! | `subagent_stop` | `extra.child_role`, `extra.child_summary` | no source: `null` (Hermes sends `None` when it has none) |
//! | `subagent_stop` | `extra.duration_ms` | no source: left out |
//!
//! **Starchild** (every event: `event`, `session_id`, `cwd`; the events and their fields as
//! Starchild's agent-hooks skill lists them — `Starchild-ai-agent/official-skills`,
//! `agent-hooks/SKILL.md`, "Events and what each can do" — and as its templates read them):
//!
//! | event | field | from |
//! |---|---|---|
//! | every event | `agent_id` | no source: left out |
//! | `on_user_message` | `message` | the user's message (`prompt` too) |
//! | `on_user_message` | `channel` | the session's `channel` field when the agent gives one ([`set_payload_field`](crate::transcript::set_payload_field)), else `""` (hookchain does not know the chat surface) |
//! | `pre_tool_call` | `tool_name`, `tool_input` | the call |
//! | `post_tool_call`, `transform_tool_result` | `tool_name`, `tool_result` | the result |
//! | `pre_llm_call` | `system`, `last_user_message` | the system prompt; the last user message |
//! | `pre_llm_call`, `post_llm_call`, `on_response_end` | `model`, `tokens`, `turn_cost_usd` | no source: left out |
//! | `post_llm_call` | `tool_names` | the tools the reply calls |
//! | `on_completion_claim` | `response` | the reply |
//! | `on_completion_claim` | `goal`, `summary`, `tool_names` | no source: left out |
//! | `on_outbound_message` | `notification`, `message`, `channel` | the message and its platform |
//! | `on_session_start`, `on_session_end` | `status` | no source: left out |
//!
//! # Payloads read back as values
//!
//! [`value_from_payload`](super::value_from_payload) reads a payload in a dialect back as the
//! point's value (`renamed_value_fields`, `extra_field`). A field of the value is read under
//! its own name, then under its dialect's name for it:
//!
//! | dialect | point | value's field | dialect's field |
//! |---|---|---|---|
//! | Claude Code | `on_stop` (`Stop`) | `response` | `last_assistant_message` |
//! | docker-agent | `on_stop` (`stop`) | `response` | `stop_response` |
//! | docker-agent | `after_llm_call` | `text` | `stop_response` |
//! | docker-agent | `before_compaction` | `trigger` | `compaction_reason` (as sent: `threshold` stays `threshold`) |
//! | docker-agent | `notification` | `level`, `message` | `notification_level`, `notification_message` |
//! | Hermes | `after_llm_call` (`post_llm_call`) | `text` | `extra.assistant_response` |
//!
//! Hermes' fields are read at the top level, then in `extra`. Starchild's and hookchain's own
//! protocol (and Pi's event names) send the value's fields under their own names.
//!
//!
//! # Plain stdout
//!
//! A hook's plain text on stdout ([`Answer::plain_text`](crate::Answer::plain_text)) is model context only where its
//! agent gives it to the model ([`plain_stdout_is_context`]); elsewhere it is logged (at info
//! level) and dropped ([`adapt`](super::adapt)):
//!
//! | dialect | plain stdout is context on |
//! |---|---|
//! | hookchain's own protocol | every point that takes context (step 2 below) |
//! | Claude Code | `UserPromptSubmit`, `SessionStart` ("stdout is added to the context"; elsewhere it shows in the transcript view only) |
//! | docker-agent | `session_start`, `user_prompt_submit`, `turn_start`, `pre_compact` (`before_compaction`): its events whose contract takes context (`pkg/hooks/events/contracts.go`) |
//! | Hermes, Starchild | none: stdout that is not JSON is ignored with a log |
//!
//!
//! # Decisions per dialect
//!
//! Before the steps below, [`WirePoint::in_dialect`](super::WirePoint::in_dialect) reads a decision as the hook's agent does:
//!
//! - **Claude Code, `PostToolUse`** (`transform_tool_result`): a block (`decision: block`, exit
//!   2) keeps the tool's output and gives the reason to the model beside it, as context: the
//!   tool already ran ("Shows stderr to Claude (tool already ran)"). A lint hook's feedback no
//!   longer turns a good write into an error. `continue: false` still stops.
//! - **Claude Code, `Stop`**: `additionalContext` keeps the agent going (current Claude Code),
//!   the context its next instruction, as a block does; the redo cap applies.
//! - **docker-agent, `before_compaction`**: the first non-empty summary in config order wins
//!   (`aggregate`: "First non-empty summary in CONFIG ORDER wins"); a later hook's summary is
//!   ignored. In hookchain's own protocol the last one wins, as every rewrite of a chain does.
//!
//! - **Starchild, `on_user_message`** (`transform_user_input`): `{"message": "..."}` is the new
//!   message; **`on_response_end`** (`transform_response`): `{"response": "..."}` is the new
//!   reply (the agent-hooks skill's security guard masks a leaked key so). Other dialects do
//!   not read these keys so (a top-level `message` is Hermes' block reason).
//!
//! - **Hermes, `pre_llm_call`** (`before_llm_call`): the context goes into the user's message
//!   (an `Injection::user`), never the system prompt, as Hermes injects it.
//! - **Claude Code, `PermissionDenied`** (`after_tool_call` for a refused call):
//!   `hookSpecificOutput.retry: true` tells the model it may retry the call, as context beside
//!   the refusal.
//! - **`permission_request`**, every dialect: `allow` (Claude Code's `decision.behavior`,
//!   `permissionDecision`, docker-agent's `permission_decision`) grants the call, with Claude
//!   Code's `decision.updatedInput` (or any new input) as its args; `deny` blocks it with the
//!   hook's `message`; `ask` is no decision, as in both agents: the agent asks the user.
//!   Claude Code's `decision.interrupt: true` stops, as `continue: false` does.
//!
//! Kept on purpose: a docker-agent `post_tool_use` block still blocks (replacing the result
//! with the reason): docker-agent stops its run loop after the batch, which a chain entry
//! cannot do, and a block is the nearest that does not fail open. Likewise a block on
//! docker-agent's `turn_start`, which docker-agent does not read there, blocks the turn: a
//! hook that says block is not ignored. docker-agent fires `turn_start` before every model
//! call; hookchain's `turn_start` fires once per turn, and its context is given to every model
//! call of the turn, which is what the agent's model sees either way.
//!
//!
//! # Events that name some firings of a point
//!
//! Some events of other agents are one point of hookchain's seen from one side. An external
//! hook configured under such an event fires for those firings only
//! ([`WirePoint::fires_for`](super::WirePoint::fires_for)); a hook registered in Rust under the same name sees every firing
//! of the point:
//!
//! | event | point | fires for |
//! |---|---|---|
//! | `on_error` (Starchild, docker-agent) | `notification` | notifications of level `error` |
//! | `on_max_iterations` (Starchild, docker-agent) | `notification` | `NotificationKind::MaxIterations` (`Turn::max_iterations_reached`) |
//! | `on_user_input` (docker-agent) | `notification` | `NotificationKind::UserInput` (`Turn::waiting_for_user`) |
//! | `SubagentStart` (Claude Code) | `session_start` | a child agent's session (`Session::child`); Claude Code's `SessionStart` fires for the others |
//! | `PermissionDenied` (Claude Code) | `after_tool_call` | a call a hook refused (`ToolResult::blocked`) |
//! | `pre_llm_call` (Hermes) | `before_llm_call` | the turn's first model call, the one whose last message is the user's: Hermes fires it once per turn |
//! | `post_llm_call` (Hermes) | `after_llm_call` | the turn's final reply, the one that calls no tool: Hermes fires it once per turn |
//!
//!
//! # Matchers on other events
//!
//! A hook in Claude Code's dialect has its matcher applied, on events that are not about a tool,
//! to the field Claude Code documents ([`WirePoint::event_subject`](super::WirePoint::event_subject)): `SessionStart`'s `source`,
//! `SessionEnd`'s `reason`, `PreCompact`'s `trigger` (as the table above spells them), and
//! `Notification`'s `notification_type` (`idle_prompt`, `permission_prompt`; a notification of
//! none of Claude Code's types passes only a matcher for everything, `*` or empty). A
//! `SubagentStart` matcher filters on `agent_type`, which hookchain has no value for: only a
//! matcher for everything fires there. The agents fired as Claude Code hooks
//! ([`agents`](super::agents)) follow the same rule; for Copilot, `subagentStart` filters on
//! `agentName` (hookchain has no value for it either: only a matcher for everything fires),
//! `preCompact` on `trigger`, `notification` on `notification_type`, and its loader drops a
//! matcher on the events Copilot filters by none. In other dialects, and in hookchain's
//! own protocol, a matcher on such an event is not consulted.
//!
//! # Refused tool calls
//!
//! `after_tool_call` also fires for a call `intercept_tool_call` blocked (the tool never ran):
//! `is_error` is `true`, `tool_response` is the reason, and `blocked` says which hook blocked
//! and whether it failed under `on_error: block`. A hook in hookchain's own protocol (its event
//! spelled `after_tool_call`, or by Pi's name, in a `hookchain.yaml`) gets that firing, so an
//! audit script sees every call. A hook written for another agent does not: Claude Code, Hermes,
//! docker-agent and Starchild fire no post-tool event for a call their pre-tool hook denied, so
//! a hook configured under one of their event names (Hermes' `post_tool_call`) or in one of
//! their files (a Claude Code settings file, a docker-agent YAML) is not fired for it
//! ([`WirePoint::fires_for`](super::WirePoint::fires_for)), and its script never meets a case
//! its agent never sends.
//!

use hookchain_core::{Dialect, NotificationKind, SessionSource};
use serde_json::{Map, Value};

/// The payload field a matcher of a hook in `dialect`, configured as `event` on `point`, filters
/// on when the point is not about a tool (see "Matchers on other events" in the
/// [module docs](self)): `source` for Claude Code's `SessionStart`, …; `None` where the matcher
/// is not consulted. [`WirePoint::event_subject`](super::WirePoint::event_subject) gives the
/// field's value for one firing.
pub fn subject_field(dialect: Dialect, point: &str, event: &str) -> Option<&'static str> {
    if dialect == Dialect::Copilot {
        // Copilot's names for the fields its matchers read (its loader drops the matchers of
        // the other events).
        return match (point, event) {
            ("session_start", "subagentStart") => Some("agentName"),
            ("before_compaction", _) => Some("trigger"),
            ("notification", "notification") => Some("notification_type"),
            _ => None,
        };
    }
    // Codex, Gemini CLI and Cursor filter on Claude Code's fields ([`Dialect::base`]).
    if dialect.base() != Dialect::ClaudeCode {
        return None;
    }
    match point {
        "session_start" if event == "SubagentStart" => Some("agent_type"),
        "session_start" => Some("source"),
        "session_end" => Some("reason"),
        "before_compaction" => Some("trigger"),
        "notification" => Some("notification_type"),
        _ => None,
    }
}

/// `true` when a hook in `dialect` ([`Dialect::Hookchain`]: hookchain's own protocol) has its plain
/// stdout given to the model on `point` (see "Plain stdout" in the [module docs](self)).
pub fn plain_stdout_is_context(point: &str, dialect: Dialect) -> bool {
    match dialect {
        Dialect::ClaudeCode => matches!(point, "transform_user_input" | "session_start"),
        Dialect::DockerAgent => matches!(
            point,
            "session_start" | "transform_user_input" | "turn_start" | "before_compaction"
        ),
        // Hermes and Starchild read stdout as JSON only; anything else is logged and ignored.
        Dialect::Hermes | Dialect::Starchild => false,
        // hookchain's own protocol (Pi's event names in a hookchain.yaml speak it too).
        _ => true,
    }
}

/// Claude Code's and docker-agent's `source` of a session start.
pub(super) fn start_source(source: SessionSource) -> &'static str {
    match source {
        SessionSource::Startup | SessionSource::Subagent => "startup",
        SessionSource::Reset => "clear",
        SessionSource::Resume => "resume",
        SessionSource::Compact => "compact",
    }
}

/// Claude Code's and docker-agent's `reason` of a session end: the agent's, when it is one of
/// theirs, else `other`.
pub(super) fn end_reason(reason: &str) -> &str {
    match reason {
        "clear" | "logout" | "prompt_input_exit" | "bypass_permissions_disabled" | "other" => {
            reason
        }
        _ => "other",
    }
}

/// Claude Code's `notification_type` of a notification of `kind`, when it has one.
pub(super) fn notification_type(kind: NotificationKind) -> Option<&'static str> {
    match kind {
        NotificationKind::UserInput => Some("idle_prompt"),
        NotificationKind::PermissionPrompt => Some("permission_prompt"),
        NotificationKind::General | NotificationKind::MaxIterations => None,
    }
}

/// Hermes' `child_status` of a child session that ended with `reason`: the reason when it is one
/// of Hermes' (`completed`, `failed`, `interrupted`, `error`), `completed` for the ends
/// hookchain calls normal, else `error`.
pub(super) fn child_status(reason: &str) -> &str {
    match reason {
        "completed" | "failed" | "interrupted" | "error" => reason,
        "normal" | "exit" | "done" | "" => "completed",
        "canceled" | "cancelled" => "interrupted",
        _ => "error",
    }
}

/// The fields `dialect` sends on `point` that the agent may give itself for its sessions
/// ([`set_payload_field`](crate::transcript::set_payload_field)), with the value sent when it
/// gives none: Starchild's `on_user_message` `channel` (the chat surface the message came
/// from, which hookchain does not know: `""`).
pub(super) fn default_fields(
    point: &str,
    dialect: Dialect,
) -> &'static [(&'static str, &'static str)] {
    match (dialect, point) {
        (Dialect::Starchild, "transform_user_input") => &[("channel", "")],
        _ => &[],
    }
}

/// Moves the fields of `map` but `keep` into Hermes' `extra`, adding `more`.
pub(super) fn hermes_extra(
    map: &mut Map<String, Value>,
    more: impl IntoIterator<Item = (&'static str, Value)>,
) {
    let mut extra: Map<String, Value> = map
        .iter()
        .filter(|(key, _)| !matches!(key.as_str(), "tool_name" | "tool_input"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (key, value) in more {
        extra.insert(key.to_owned(), value);
    }
    map.insert("extra".to_owned(), Value::Object(extra));
}

/// The fields of `point`'s value (its canonical name) that `dialect` sends under a name of its
/// own, as (the value's field, the dialect's field), in the order they are looked for (see
/// "Payloads read back as values" in the [module docs](self)).
pub(super) fn renamed_value_fields(
    dialect: Dialect,
    point: &str,
) -> &'static [(&'static str, &'static str)] {
    match (dialect, point) {
        (Dialect::ClaudeCode, "on_stop") => &[("response", "last_assistant_message")],
        (Dialect::DockerAgent, "on_stop") => &[("response", "stop_response")],
        (Dialect::DockerAgent, "after_llm_call") => &[("text", "stop_response")],
        (Dialect::DockerAgent, "before_compaction") => &[("trigger", "compaction_reason")],
        (Dialect::DockerAgent, "notification") => &[
            ("level", "notification_level"),
            ("message", "notification_message"),
        ],
        (Dialect::Hermes, "after_llm_call") => &[("text", "assistant_response")],
        _ => &[],
    }
}

/// The key under which `dialect` nests a point's fields: Hermes' `extra`.
pub(super) fn extra_field(dialect: Dialect) -> Option<&'static str> {
    match dialect {
        Dialect::Hermes => Some("extra"),
        _ => None,
    }
}

/// `true` for the agents whose post-tool event does not fire for a call their pre-tool hook
/// denied: Claude Code (`PostToolUse` runs "after a tool completes successfully"), Hermes
/// (`post_tool_call` follows the tool's execution), docker-agent (`post_tool_use` runs after
/// the tool ran) and Starchild. A hook configured in their dialect on `after_tool_call` is not
/// fired for a refused call, as its script would never see one there.
pub(super) fn no_post_tool_event_when_denied(dialect: Dialect) -> bool {
    matches!(
        dialect,
        Dialect::ClaudeCode | Dialect::Hermes | Dialect::DockerAgent | Dialect::Starchild
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_stdout_is_context_where_the_agent_uses_it() {
        for point in ["transform_user_input", "session_start"] {
            assert!(
                plain_stdout_is_context(point, Dialect::ClaudeCode),
                "{point}"
            );
        }
        for point in ["intercept_tool_call", "transform_tool_result", "on_stop"] {
            assert!(
                !plain_stdout_is_context(point, Dialect::ClaudeCode),
                "{point}"
            );
            assert!(
                plain_stdout_is_context(point, Dialect::Hookchain),
                "{point}"
            );
        }
        // docker-agent's `turn_start` takes context; its `before_llm_call` does not ("this
        // event's AdditionalContext is not consumed").
        assert!(plain_stdout_is_context("turn_start", Dialect::DockerAgent));
        assert!(!plain_stdout_is_context(
            "before_llm_call",
            Dialect::DockerAgent
        ));
        assert!(!plain_stdout_is_context(
            "intercept_tool_call",
            Dialect::DockerAgent
        ));
        assert!(!plain_stdout_is_context("before_llm_call", Dialect::Hermes));
        assert!(!plain_stdout_is_context(
            "session_start",
            Dialect::Starchild
        ));
    }
}
