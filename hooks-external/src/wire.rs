//! How each point speaks the wire protocol: its input as payload fields, its tool name for
//! matchers, and how a [`Decision`] becomes its [`HookResult`].
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
//! | `turn_end` | `reason` (`normal`, `error`, `canceled`, `blocked`, `max_iterations`), `detail` (for an error) |
//! | `notification` | `message`, `level` (`info`, `warning`, `error`), `kind` (`general`, `max_iterations`, `user_input`, `permission_prompt`), `source` |
//!
//! Optional fields (`tool_use_id`, `parent_session_id`, `summary`, `source`, `blocked`) are left
//! out when the value has none. The common keys (`hook_event_name`, `session_id`, …) are added
//! by [`payload`].
//!
//! # Payload fields per dialect
//!
//! A hook configured in another agent's dialect ([`payload_in`]) gets the fields above and, in
//! its agent's names and values, what that agent sends beyond them
//! ([`WirePoint::dialect_fields`]). Where hookchain has no source for a field, the agent can
//! give it for its sessions ([`set_payload_field`](super::transcript::set_payload_field));
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
//! is no tool — `session_id`, `cwd`, `profile`, `extra`):
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
//!
//! **Starchild** (every event: `event`, `session_id`, `cwd`):
//!
//! | event | field | from |
//! |---|---|---|
//! | every event | `agent_id` | no source: left out |
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
//! # Plain stdout
//!
//! A hook's plain text on stdout ([`Decision::plain_text`]) is model context only where its
//! agent gives it to the model ([`plain_stdout_is_context`]); elsewhere it is logged (at info
//! level) and dropped ([`adapt`]):
//!
//! | dialect | plain stdout is context on |
//! |---|---|
//! | hookchain's own protocol | every point that takes context (step 2 below) |
//! | Claude Code | `UserPromptSubmit`, `SessionStart` ("stdout is added to the context"; elsewhere it shows in the transcript view only) |
//! | docker-agent | `session_start`, `user_prompt_submit`, `turn_start`, `pre_compact` (`before_compaction`): its events whose contract takes context (`pkg/hooks/events/contracts.go`) |
//! | Hermes, Starchild | none: stdout that is not JSON is ignored with a log |
//!
//! # Decisions per dialect
//!
//! Before the steps below, [`WirePoint::in_dialect`] reads a decision as the hook's agent does:
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
//! # Events that name some firings of a point
//!
//! Some events of other agents are one point of hookchain's seen from one side. An external
//! hook configured under such an event fires for those firings only
//! ([`WirePoint::fires_for`]); a hook registered in Rust under the same name sees every firing
//! of the point:
//!
//! | event | point | fires for |
//! |---|---|---|
//! | `on_error` (Starchild, docker-agent) | `notification` | notifications of level `error` |
//! | `on_max_iterations` (Starchild, docker-agent) | `notification` | `NotificationKind::MaxIterations` (`Turn::max_iterations_reached`) |
//! | `on_user_input` (docker-agent) | `notification` | `NotificationKind::UserInput` (`Turn::waiting_for_user`) |
//! | `SubagentStart` (Claude Code) | `session_start` | a child agent's session (`Session::child`); Claude Code's `SessionStart` fires for the others |
//! | `PermissionDenied` (Claude Code) | `after_tool_call` | a call a hook refused (`ToolResult::blocked`) |
//!
//! # Matchers on other events
//!
//! A hook in Claude Code's dialect has its matcher applied, on events that are not about a tool,
//! to the field Claude Code documents ([`WirePoint::event_subject`]): `SessionStart`'s `source`,
//! `SessionEnd`'s `reason`, `PreCompact`'s `trigger` (as the table above spells them), and
//! `Notification`'s `notification_type` (`idle_prompt`, `permission_prompt`; a notification of
//! none of Claude Code's types passes only a matcher for everything, `*` or empty). A
//! `SubagentStart` matcher filters on `agent_type`, which hookchain has no value for: only a
//! matcher for everything fires there. In other dialects, and in hookchain's
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
//! ([`WirePoint::fires_for`]), and its script never meets a case its agent never sends.
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
//!    `session_end`, `session_reset`, `turn_end`, `transform_response`, `outbound_message`.
//! 3. **Stop, block, ask** (in that order, see the contradiction rules of
//!    [`protocol`](super::protocol)) block with the hook's reason on transform and inject points.
//!    An empty reason becomes one naming the hook. `ask` blocks too, with a reason saying the
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

use hookchain_core::points::{
    AfterCompaction, AfterLlmCall, AfterToolBatch, AfterToolCall, BeforeCompaction, BeforeLlmCall,
    Injection, InterceptToolCall, Notify, OnStop, OutboundMessage, PermissionRequest, SessionEnd,
    SessionReset, SessionStart, SubagentStop, TransformResponse, TransformToolResult,
    TransformUserInput, TurnEnded, TurnStart,
};
use hookchain_core::{
    Compaction, CompactionDone, Dialect, HookContext, HookPoint, HookResult, Level, LlmCall,
    LlmReply, Notification, NotificationKind, Observed, Outbound, PermissionAsk, PermissionGrant,
    Role, SessionEndEvent, SessionResetEvent, SessionSource, SessionStartEvent, StopEvent,
    SubagentStopEvent, ToolBatch, ToolCall, ToolResult, TurnEnd, TurnEndEvent, TurnStartEvent,
};
use serde::Serialize;
use serde_json::{Map, Value};

use super::decision::{Decision, Verdict};
use super::transcript;

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
    /// firings of a point" in the [module docs](self)). `true` by default.
    fn fires_for(input: &Self::Input, event: &str, dialect: Dialect) -> bool {
        let _ = (input, event, dialect);
        true
    }

    /// Adds to `map` (the point's [`fields`](Self::fields)) what `dialect` sends
    /// on this point beyond them, in its own names and values (see "Payload fields per
    /// dialect" in the [module docs](self)). Nothing by default.
    fn dialect_fields(input: &Self::Input, dialect: Dialect, map: &mut Map<String, Value>) {
        let _ = (input, dialect, map);
    }

    /// What a matcher of a hook in `dialect` filters on, on this point when it is
    /// not about a tool (see "Matchers on other events" in the [module docs](self)).
    /// [`Subject::Unfiltered`] by default: the matcher is not consulted.
    fn event_subject(input: &Self::Input, dialect: Dialect) -> Subject {
        let _ = (input, dialect);
        Subject::Unfiltered
    }

    /// Reads `decision` as the agent of its dialect reads it on this point, before
    /// [`apply_decision`](Self::apply_decision) (see "Decisions per dialect" in the
    /// [module docs](self)). Nothing by default.
    fn in_dialect(
        input: &Self::Input,
        decision: &mut Decision,
        dialect: Dialect,
        cx: &HookContext<'_>,
    ) {
        let _ = (input, decision, dialect, cx);
    }

    /// The point's result for `decision` (see the [module docs](self)); warnings and context go
    /// to `cx`.
    fn apply_decision(
        input: &Self::Input,
        decision: Decision,
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

/// The payload field a matcher of a hook in `dialect`, configured as `event` on `point`, filters
/// on when the point is not about a tool (see "Matchers on other events" in the
/// [module docs](self)): `source` for Claude Code's `SessionStart`, …; `None` where the matcher
/// is not consulted. [`WirePoint::event_subject`] gives the field's value for one firing.
pub fn subject_field(dialect: Dialect, point: &str, event: &str) -> Option<&'static str> {
    if dialect != Dialect::ClaudeCode {
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

/// Reads `decision` as the agent of `dialect` ([`Dialect::Hookchain`]: hookchain's own protocol) reads it on point
/// `P`: plain stdout that agent does not give to the model is logged and dropped, then the
/// point's [`WirePoint::in_dialect`] applies.
pub fn adapt<P: WirePoint>(
    input: &P::Input,
    decision: &mut Decision,
    dialect: Dialect,
    cx: &HookContext<'_>,
) {
    if decision.plain_text && !plain_stdout_is_context(P::NAME, dialect) {
        let text = decision.context.join("\n");
        tracing::info!(
            point = P::NAME,
            hook = cx.hook_name(),
            "the hook printed plain text, which {} does not give to the model on `{}`: {text}",
            dialect,
            P::NAME
        );
        decision.context.clear();
        decision.plain_text = false;
    }
    P::in_dialect(input, decision, dialect, cx);
}

/// Claude Code's and docker-agent's `source` of a session start.
fn start_source(source: SessionSource) -> &'static str {
    match source {
        SessionSource::Startup | SessionSource::Subagent => "startup",
        SessionSource::Reset => "clear",
        SessionSource::Resume => "resume",
        SessionSource::Compact => "compact",
    }
}

/// Claude Code's and docker-agent's `reason` of a session end: the agent's, when it is one of
/// theirs, else `other`.
fn end_reason(reason: &str) -> &str {
    match reason {
        "clear" | "logout" | "prompt_input_exit" | "bypass_permissions_disabled" | "other" => {
            reason
        }
        _ => "other",
    }
}

/// Claude Code's `notification_type` of a notification of `kind`, when it has one.
fn notification_type(kind: NotificationKind) -> Option<&'static str> {
    match kind {
        NotificationKind::UserInput => Some("idle_prompt"),
        NotificationKind::PermissionPrompt => Some("permission_prompt"),
        NotificationKind::General | NotificationKind::MaxIterations => None,
    }
}

/// Moves the fields of `map` but `keep` into Hermes' `extra`, adding `more`.
fn hermes_extra(
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

/// What a point does with context.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// `cx.add_context`.
    Add,
    /// Dropped: no model call of the turn follows.
    Drop,
    /// The point's rewrite injects it (the point's closure takes it).
    Inject,
}

/// Step 1 and 2 of the module docs, for `Add` and `Drop`.
fn report(decision: &mut Decision, cx: &HookContext<'_>, context: Context) {
    for warning in decision.warnings.drain(..) {
        cx.warn(warning);
    }
    match context {
        Context::Add => {
            for text in decision.context.drain(..) {
                cx.add_context(text);
            }
        }
        Context::Drop if !decision.context.is_empty() => {
            tracing::debug!(
                point = cx.point(),
                hook = cx.hook_name(),
                "`{}` takes no context; dropping what the hook printed",
                cx.point()
            );
            decision.context.clear();
        }
        Context::Drop | Context::Inject => {}
    }
}

/// The reason a decision blocks with (step 3), or `None` when it does not block.
fn refusal(decision: &Decision, cx: &HookContext<'_>) -> Option<String> {
    let hook = cx.hook_name();
    if let Some(reason) = &decision.stop {
        return Some(if reason.is_empty() {
            format!("hook `{hook}` asked the agent to stop")
        } else {
            reason.clone()
        });
    }
    match &decision.verdict {
        Verdict::Pass | Verdict::Allow => None,
        Verdict::Block(reason) if reason.is_empty() => Some(format!("blocked by hook `{hook}`")),
        Verdict::Block(reason) => Some(reason.clone()),
        Verdict::Ask(reason) => Some(format!(
            "hook `{hook}` asks for the user's confirmation, which hookchain cannot ask for, so it blocks{}",
            if reason.is_empty() {
                String::new()
            } else {
                format!(": {reason}")
            }
        )),
    }
}

/// Logs the rewrites left in `decision` after the point took what it uses.
fn log_unused(decision: &Decision, cx: &HookContext<'_>) {
    let unused: Vec<&str> = [
        ("a new input", decision.updated_input.is_some()),
        ("input to merge", decision.merge_input.is_some()),
        ("input keys to rewrite", decision.rewrite_keys.is_some()),
        ("a new outbound message", decision.notification.is_some()),
        ("a new tool result", decision.updated_output.is_some()),
        ("a new text", decision.updated_text.is_some()),
        ("a summary", decision.summary.is_some()),
    ]
    .into_iter()
    .filter_map(|(what, present)| present.then_some(what))
    .collect();
    if !unused.is_empty() {
        tracing::debug!(
            point = cx.point(),
            hook = cx.hook_name(),
            "ignoring {} from the hook: `{}` has no use for it",
            unused.join(", "),
            cx.point()
        );
    }
}

/// Steps 1–4 for a transform or inject point; `rewrite` takes what the point uses.
fn apply<R>(
    mut decision: Decision,
    cx: &HookContext<'_>,
    context: Context,
    rewrite: impl FnOnce(&mut Decision) -> Option<R>,
) -> HookResult<R> {
    report(&mut decision, cx, context);
    if let Some(reason) = refusal(&decision, cx) {
        if context == Context::Inject {
            // Nothing is injected into a blocked call; the context still reaches the agent.
            for text in decision.context.drain(..) {
                cx.add_context(text);
            }
        }
        return HookResult::block(reason);
    }
    let result = rewrite(&mut decision);
    log_unused(&decision, cx);
    match result {
        Some(r) => HookResult::Rewrite(r),
        None => HookResult::Pass,
    }
}

/// An observe point: warnings and context are reported, the rest ignored.
fn observe(mut decision: Decision, cx: &HookContext<'_>, context: Context) -> HookResult<Observed> {
    report(&mut decision, cx, context);
    if decision.stop.is_some() || !matches!(decision.verdict, Verdict::Pass | Verdict::Allow) {
        tracing::debug!(
            point = cx.point(),
            hook = cx.hook_name(),
            "ignoring a block from the hook: `{}` is an observe point",
            cx.point()
        );
    }
    log_unused(&decision, cx);
    HookResult::Pass
}

/// The context texts as one injection, one per line.
fn joined(context: &mut Vec<String>) -> Option<String> {
    let text = context.join("\n");
    context.clear();
    (!text.is_empty()).then_some(text)
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

impl WirePoint for SessionStart {
    fn fields(input: &SessionStartEvent) -> Map<String, Value> {
        let mut map = fields([
            ("source", json(&input.source)),
            ("context", json(&input.context)),
        ]);
        put_opt(
            &mut map,
            "parent_session_id",
            input.parent_session_id.as_deref(),
        );
        map
    }

    fn dialect_fields(input: &SessionStartEvent, dialect: Dialect, map: &mut Map<String, Value>) {
        if matches!(dialect, Dialect::ClaudeCode | Dialect::DockerAgent) {
            map.insert("source".to_owned(), Value::from(start_source(input.source)));
        }
        if dialect == Dialect::ClaudeCode && input.source == SessionSource::Subagent {
            // SubagentStart: the child's id.
            map.insert(
                "agent_id".to_owned(),
                Value::from(input.session_id.as_str()),
            );
        }
    }

    fn fires_for(input: &SessionStartEvent, event: &str, dialect: Dialect) -> bool {
        let child = input.source == SessionSource::Subagent;
        match event {
            // Claude Code's SubagentStart: a child session only.
            "SubagentStart" => child,
            // Claude Code fires no SessionStart for a subagent (it has SubagentStart).
            _ if dialect == Dialect::ClaudeCode => !child,
            _ => true,
        }
    }

    fn event_subject(input: &SessionStartEvent, dialect: Dialect) -> Subject {
        match dialect {
            // SubagentStart filters on `agent_type`, which hookchain has no value for.
            Dialect::ClaudeCode if input.source == SessionSource::Subagent => Subject::Unknown,
            Dialect::ClaudeCode => Subject::Value(start_source(input.source).to_owned()),
            _ => Subject::Unfiltered,
        }
    }

    fn apply_decision(
        _: &SessionStartEvent,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        apply(decision, cx, Context::Inject, |d| joined(&mut d.context))
    }
}

impl WirePoint for SessionEnd {
    fn fields(input: &SessionEndEvent) -> Map<String, Value> {
        fields([("reason", Value::from(input.reason.as_str()))])
    }

    fn dialect_fields(input: &SessionEndEvent, dialect: Dialect, map: &mut Map<String, Value>) {
        if matches!(dialect, Dialect::ClaudeCode | Dialect::DockerAgent) {
            map.insert("reason".to_owned(), Value::from(end_reason(&input.reason)));
        }
    }

    fn event_subject(input: &SessionEndEvent, dialect: Dialect) -> Subject {
        match dialect {
            Dialect::ClaudeCode => Subject::Value(end_reason(&input.reason).to_owned()),
            _ => Subject::Unfiltered,
        }
    }

    fn apply_decision(
        _: &SessionEndEvent,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Drop)
    }
}

impl WirePoint for SessionReset {
    fn fields(input: &SessionResetEvent) -> Map<String, Value> {
        fields([
            ("old_session_id", Value::from(input.old_session_id.as_str())),
            ("new_session_id", Value::from(input.new_session_id.as_str())),
        ])
    }

    fn apply_decision(
        _: &SessionResetEvent,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Drop)
    }
}

impl WirePoint for TransformUserInput {
    fn fields(input: &str) -> Map<String, Value> {
        fields([("prompt", Value::from(input))])
    }

    fn transcript_entry(input: &str) -> Option<Value> {
        Some(transcript::user(Value::from(input)))
    }

    fn apply_decision(_: &str, decision: Decision, cx: &HookContext<'_>) -> HookResult<String> {
        apply(decision, cx, Context::Add, |d| d.updated_text.take())
    }
}

impl WirePoint for TurnStart {
    fn fields(input: &TurnStartEvent) -> Map<String, Value> {
        fields([
            ("prompt", Value::from(input.prompt.as_str())),
            ("context", json(&input.context)),
        ])
    }

    fn apply_decision(
        _: &TurnStartEvent,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        apply(decision, cx, Context::Inject, |d| joined(&mut d.context))
    }
}

impl WirePoint for BeforeLlmCall {
    fn fields(input: &LlmCall) -> Map<String, Value> {
        fields([
            ("system_prompt", Value::from(input.system_prompt.as_str())),
            ("messages", json(&input.messages)),
        ])
    }

    fn dialect_fields(input: &LlmCall, dialect: Dialect, map: &mut Map<String, Value>) {
        let last_user = input
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map_or("", |m| m.content.as_str());
        match dialect {
            Dialect::Hermes => hermes_extra(
                map,
                [
                    ("user_message", Value::from(last_user)),
                    ("conversation_history", json(&input.messages)),
                ],
            ),
            Dialect::Starchild => {
                map.insert(
                    "system".to_owned(),
                    Value::from(input.system_prompt.as_str()),
                );
                map.insert("last_user_message".to_owned(), Value::from(last_user));
            }
            _ => {}
        }
    }

    fn apply_decision(
        _: &LlmCall,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Injection> {
        apply(decision, cx, Context::Inject, |d| {
            joined(&mut d.context).map(Injection::system)
        })
    }
}

impl WirePoint for AfterLlmCall {
    fn fields(input: &LlmReply) -> Map<String, Value> {
        fields([
            ("response", Value::from(input.text.as_str())),
            ("tool_calls", json(&input.tool_calls)),
        ])
    }

    fn dialect_fields(input: &LlmReply, dialect: Dialect, map: &mut Map<String, Value>) {
        match dialect {
            Dialect::Hermes => hermes_extra(
                map,
                [("assistant_response", Value::from(input.text.as_str()))],
            ),
            Dialect::DockerAgent => {
                map.insert("stop_response".to_owned(), Value::from(input.text.as_str()));
            }
            Dialect::Starchild => {
                let names: Vec<&str> = input.tool_calls.iter().map(|c| c.name.as_str()).collect();
                map.insert("tool_names".to_owned(), json(&names));
            }
            _ => {}
        }
    }

    fn transcript_entry(input: &LlmReply) -> Option<Value> {
        let mut content = Vec::new();
        if !input.text.is_empty() {
            content.push(serde_json::json!({"type": "text", "text": input.text}));
        }
        content.extend(input.tool_calls.iter().map(tool_use));
        Some(transcript::assistant(Value::Array(content)))
    }

    fn apply_decision(
        _: &LlmReply,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

impl WirePoint for InterceptToolCall {
    fn fields(input: &ToolCall) -> Map<String, Value> {
        let mut map = fields([
            ("tool_name", Value::from(input.name.as_str())),
            ("tool_input", input.args.clone()),
        ]);
        put_opt(&mut map, "tool_use_id", input.id.as_deref());
        map
    }

    fn tool_name(input: &ToolCall) -> Option<&str> {
        Some(&input.name)
    }

    fn dialect_fields(input: &ToolCall, dialect: Dialect, map: &mut Map<String, Value>) {
        if dialect == Dialect::Hermes {
            let mut more = Vec::new();
            if let Some(id) = &input.id {
                more.push(("tool_call_id", Value::from(id.as_str())));
            }
            hermes_extra(map, more);
        }
    }

    fn transcript_entry(input: &ToolCall) -> Option<Value> {
        Some(transcript::assistant(Value::Array(vec![tool_use(input)])))
    }

    fn apply_decision(
        input: &ToolCall,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Value> {
        apply(decision, cx, Context::Add, |d| {
            let args = d.new_input(&input.args);
            d.updated_input = None;
            d.merge_input = None;
            d.rewrite_keys = None;
            args
        })
    }
}

/// The fields of a tool result, shared by `transform_tool_result` and `after_tool_call`.
fn tool_result_fields(input: &ToolResult) -> Map<String, Value> {
    let mut map = fields([
        ("tool_name", Value::from(input.tool_name.as_str())),
        ("tool_input", input.tool_input.clone()),
        ("tool_response", input.tool_response.clone()),
        ("is_error", Value::from(input.is_error)),
        ("tool_error", Value::from(input.is_error)),
    ]);
    put_opt(&mut map, "tool_use_id", input.tool_use_id.as_deref());
    if let Some(block) = &input.blocked {
        map.insert("blocked".to_owned(), json(block));
        // Claude Code's PermissionDenied `reason`.
        map.insert("reason".to_owned(), Value::from(block.reason.as_str()));
    }
    map
}

/// The dialect fields of a tool result, shared by `transform_tool_result` and `after_tool_call`.
fn tool_result_dialect_fields(input: &ToolResult, dialect: Dialect, map: &mut Map<String, Value>) {
    match dialect {
        Dialect::Hermes => {
            // Hermes' `result` is a string (a JSON string for structured results).
            let result = match &input.tool_response {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let mut more = vec![("result", Value::from(result))];
            if let Some(id) = &input.tool_use_id {
                more.push(("tool_call_id", Value::from(id.as_str())));
            }
            hermes_extra(map, more);
        }
        Dialect::Starchild => {
            map.insert("tool_result".to_owned(), input.tool_response.clone());
        }
        _ => {}
    }
}

/// `true` for the agents whose post-tool event does not fire for a call their pre-tool hook
/// denied: Claude Code (`PostToolUse` runs "after a tool completes successfully"), Hermes
/// (`post_tool_call` follows the tool's execution), docker-agent (`post_tool_use` runs after
/// the tool ran) and Starchild. A hook configured in their dialect on `after_tool_call` is not
/// fired for a refused call, as its script would never see one there.
fn no_post_tool_event_when_denied(dialect: Dialect) -> bool {
    matches!(
        dialect,
        Dialect::ClaudeCode | Dialect::Hermes | Dialect::DockerAgent | Dialect::Starchild
    )
}

impl WirePoint for PermissionRequest {
    fn fields(input: &PermissionAsk) -> Map<String, Value> {
        let mut map = fields([
            ("tool_name", Value::from(input.tool_name.as_str())),
            ("tool_input", input.tool_input.clone()),
        ]);
        put_opt(&mut map, "tool_use_id", input.tool_use_id.as_deref());
        if !input.permission_suggestions.is_empty() {
            map.insert(
                "permission_suggestions".to_owned(),
                json(&input.permission_suggestions),
            );
        }
        map
    }

    fn tool_name(input: &PermissionAsk) -> Option<&str> {
        Some(&input.tool_name)
    }

    fn apply_decision(
        input: &PermissionAsk,
        mut decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<PermissionGrant> {
        // `ask` is what the agent does when no hook decides: the user is asked.
        if matches!(decision.verdict, Verdict::Ask(_)) {
            decision.verdict = Verdict::Pass;
        }
        let allowed = decision.verdict == Verdict::Allow;
        apply(decision, cx, Context::Add, |d| {
            let args = d.new_input(&input.tool_input);
            d.updated_input = None;
            d.merge_input = None;
            d.rewrite_keys = None;
            allowed.then_some(PermissionGrant { args })
        })
    }
}

impl WirePoint for TransformToolResult {
    fn fields(input: &ToolResult) -> Map<String, Value> {
        tool_result_fields(input)
    }

    fn dialect_fields(input: &ToolResult, dialect: Dialect, map: &mut Map<String, Value>) {
        tool_result_dialect_fields(input, dialect, map);
    }

    fn in_dialect(_: &ToolResult, decision: &mut Decision, dialect: Dialect, cx: &HookContext<'_>) {
        // Claude Code's PostToolUse `decision: block` (and exit 2) keeps the tool's output and
        // gives the reason to the model beside it: the tool already ran.
        if dialect == Dialect::ClaudeCode
            && decision.stop.is_none()
            && let Verdict::Block(reason) = &decision.verdict
        {
            let reason = if reason.is_empty() {
                format!("hook `{}` flagged the tool's result", cx.hook_name())
            } else {
                reason.clone()
            };
            decision.context.insert(0, reason);
            decision.verdict = Verdict::Pass;
        }
    }

    fn transcript_entry(input: &ToolResult) -> Option<Value> {
        Some(transcript::user(serde_json::json!([{
            "type": "tool_result",
            "tool_use_id": input.tool_use_id,
            "content": input.tool_response,
            "is_error": input.is_error,
        }])))
    }

    fn tool_name(input: &ToolResult) -> Option<&str> {
        Some(&input.tool_name)
    }

    fn apply_decision(
        _: &ToolResult,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Value> {
        apply(decision, cx, Context::Add, |d| d.updated_output.take())
    }
}

impl WirePoint for AfterToolCall {
    fn fields(input: &ToolResult) -> Map<String, Value> {
        tool_result_fields(input)
    }

    fn dialect_fields(input: &ToolResult, dialect: Dialect, map: &mut Map<String, Value>) {
        tool_result_dialect_fields(input, dialect, map);
    }

    fn fires_for(input: &ToolResult, event: &str, dialect: Dialect) -> bool {
        match event {
            // Claude Code's PermissionDenied: a refused call only.
            "PermissionDenied" => input.blocked.is_some(),
            _ => input.blocked.is_none() || !no_post_tool_event_when_denied(dialect),
        }
    }

    fn in_dialect(
        input: &ToolResult,
        decision: &mut Decision,
        dialect: Dialect,
        _: &HookContext<'_>,
    ) {
        // Claude Code's PermissionDenied: `retry: true` tells the model it may retry the call.
        if dialect == Dialect::ClaudeCode && input.blocked.is_some() && decision.retry == Some(true)
        {
            decision.context.push(format!(
                "The call of `{}` was denied, but you may retry it.",
                input.tool_name
            ));
        }
    }

    fn tool_name(input: &ToolResult) -> Option<&str> {
        Some(&input.tool_name)
    }

    fn apply_decision(
        _: &ToolResult,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

impl WirePoint for AfterToolBatch {
    fn fields(input: &ToolBatch) -> Map<String, Value> {
        let calls: Vec<Value> = input
            .results
            .iter()
            .map(|result| Value::Object(tool_result_fields(result)))
            .collect();
        fields([
            ("tool_calls", Value::Array(calls)),
            ("context", json(&input.context)),
        ])
    }

    fn apply_decision(
        _: &ToolBatch,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        apply(decision, cx, Context::Inject, |d| joined(&mut d.context))
    }
}

impl WirePoint for TransformResponse {
    fn fields(input: &str) -> Map<String, Value> {
        fields([("response", Value::from(input))])
    }

    fn transcript_entry(input: &str) -> Option<Value> {
        Some(assistant_text(input))
    }

    fn apply_decision(_: &str, decision: Decision, cx: &HookContext<'_>) -> HookResult<String> {
        apply(decision, cx, Context::Drop, |d| d.updated_text.take())
    }
}

impl WirePoint for OnStop {
    fn fields(input: &StopEvent) -> Map<String, Value> {
        let response = Value::from(input.response.as_str());
        fields([
            ("response", response.clone()),
            ("last_assistant_message", response.clone()),
            ("stop_response", response),
            ("stop_hook_active", Value::from(input.stop_hook_active)),
            ("redos", Value::from(input.redos)),
        ])
    }

    fn transcript_entry(input: &StopEvent) -> Option<Value> {
        Some(assistant_text(&input.response))
    }

    fn in_dialect(_: &StopEvent, decision: &mut Decision, dialect: Dialect, _: &HookContext<'_>) {
        // Current Claude Code: a Stop hook's `additionalContext` keeps the agent going, the
        // context its next instruction.
        if dialect == Dialect::ClaudeCode
            && decision.stop.is_none()
            && matches!(decision.verdict, Verdict::Pass | Verdict::Allow)
            && !decision.context.is_empty()
        {
            decision.verdict = Verdict::Block(decision.context.join("\n"));
            decision.context.clear();
        }
    }

    fn apply_decision(
        _: &StopEvent,
        mut decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        if let Some(reason) = decision.stop.take() {
            // `continue: false` on a stop hook: the agent stops, and does not redo.
            report(&mut decision, cx, Context::Add);
            if !reason.is_empty() {
                cx.warn(reason);
            }
            return HookResult::Pass;
        }
        apply(decision, cx, Context::Add, |d| d.updated_text.take())
    }
}

impl WirePoint for BeforeCompaction {
    fn fields(input: &Compaction) -> Map<String, Value> {
        let mut map = fields([
            ("trigger", Value::from(input.trigger.as_str())),
            ("source", Value::from(input.trigger.as_str())),
            ("messages", json(&input.messages)),
        ]);
        put_opt(&mut map, "summary", input.summary.as_deref());
        map
    }

    fn dialect_fields(input: &Compaction, dialect: Dialect, map: &mut Map<String, Value>) {
        match dialect {
            Dialect::ClaudeCode => {
                // Claude Code sends the user's `/compact` instructions; hookchain has none.
                map.insert("custom_instructions".to_owned(), Value::from(""));
            }
            Dialect::DockerAgent => {
                // docker-agent's `threshold` is Claude Code's `auto`.
                let reason = match input.trigger.as_str() {
                    "auto" => "threshold",
                    other => other,
                };
                map.insert("compaction_reason".to_owned(), Value::from(reason));
            }
            _ => {}
        }
    }

    fn event_subject(input: &Compaction, dialect: Dialect) -> Subject {
        match dialect {
            Dialect::ClaudeCode => Subject::Value(input.trigger.clone()),
            _ => Subject::Unfiltered,
        }
    }

    fn in_dialect(
        input: &Compaction,
        decision: &mut Decision,
        dialect: Dialect,
        cx: &HookContext<'_>,
    ) {
        // docker-agent: the first non-empty summary, in config order, wins.
        if dialect == Dialect::DockerAgent
            && input.summary.is_some()
            && (decision.summary.is_some() || decision.updated_text.is_some())
        {
            tracing::debug!(
                point = cx.point(),
                hook = cx.hook_name(),
                "ignoring the hook's summary: an earlier hook supplied one, and docker-agent keeps the first"
            );
            decision.summary = None;
            decision.updated_text = None;
        }
    }

    fn apply_decision(
        _: &Compaction,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        apply(decision, cx, Context::Add, |d| {
            d.summary.take().or_else(|| d.updated_text.take())
        })
    }
}

impl WirePoint for AfterCompaction {
    fn fields(input: &CompactionDone) -> Map<String, Value> {
        fields([
            ("summary", Value::from(input.summary.as_str())),
            ("messages_before", Value::from(input.messages_before)),
            ("messages_after", Value::from(input.messages_after)),
        ])
    }

    fn apply_decision(
        _: &CompactionDone,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

impl WirePoint for SubagentStop {
    fn fields(input: &SubagentStopEvent) -> Map<String, Value> {
        fields([
            (
                "parent_session_id",
                Value::from(input.parent_session_id.as_str()),
            ),
            ("reason", Value::from(input.reason.as_str())),
        ])
    }

    fn dialect_fields(input: &SubagentStopEvent, dialect: Dialect, map: &mut Map<String, Value>) {
        if dialect == Dialect::ClaudeCode {
            map.insert(
                "agent_id".to_owned(),
                Value::from(input.session_id.as_str()),
            );
            map.insert("stop_hook_active".to_owned(), Value::from(false));
        }
    }

    fn apply_decision(
        _: &SubagentStopEvent,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

impl WirePoint for OutboundMessage {
    fn fields(input: &Outbound) -> Map<String, Value> {
        fields([
            ("platform", Value::from(input.platform.as_str())),
            ("recipient", Value::from(input.recipient.as_str())),
            ("message", Value::from(input.text.as_str())),
            ("text", Value::from(input.text.as_str())),
            ("notification", Value::from(input.text.as_str())),
            ("channel", Value::from(input.platform.as_str())),
        ])
    }

    fn apply_decision(
        _: &Outbound,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        apply(decision, cx, Context::Drop, |d| {
            let text = d.updated_text.take();
            let notification = d.notification.take();
            text.or(notification)
        })
    }
}

impl WirePoint for TurnEnded {
    fn fields(input: &TurnEndEvent) -> Map<String, Value> {
        // `TurnEnd` serializes as `{"reason": "error", "detail": "..."}`.
        match json(&input.reason) {
            Value::Object(map) => map,
            other => fields([("reason", other)]),
        }
    }

    fn dialect_fields(input: &TurnEndEvent, dialect: Dialect, map: &mut Map<String, Value>) {
        if dialect == Dialect::DockerAgent && input.reason == TurnEnd::Blocked {
            map.insert("reason".to_owned(), Value::from("hook_blocked"));
        }
    }

    fn apply_decision(
        _: &TurnEndEvent,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Drop)
    }
}

impl WirePoint for Notify {
    fn fields(input: &Notification) -> Map<String, Value> {
        let mut map = fields([
            ("message", Value::from(input.message.as_str())),
            ("level", json(&input.level)),
            ("kind", json(&input.kind)),
        ]);
        put_opt(&mut map, "source", input.source.as_deref());
        map
    }

    fn dialect_fields(input: &Notification, dialect: Dialect, map: &mut Map<String, Value>) {
        match dialect {
            Dialect::DockerAgent => {
                map.insert("notification_level".to_owned(), json(&input.level));
                map.insert(
                    "notification_message".to_owned(),
                    Value::from(input.message.as_str()),
                );
            }
            Dialect::ClaudeCode => put_opt(map, "notification_type", notification_type(input.kind)),
            _ => {}
        }
    }

    fn fires_for(input: &Notification, event: &str, _: Dialect) -> bool {
        match event {
            "on_error" => input.level == Level::Error,
            "on_max_iterations" => input.kind == NotificationKind::MaxIterations,
            "on_user_input" => input.kind == NotificationKind::UserInput,
            _ => true,
        }
    }

    fn event_subject(input: &Notification, dialect: Dialect) -> Subject {
        // Claude Code filters on `notification_type` (`permission_prompt`, `idle_prompt`, …);
        // a notification of none of its types passes only a matcher for everything.
        match (dialect, notification_type(input.kind)) {
            (Dialect::ClaudeCode, Some(kind)) => Subject::Value(kind.to_owned()),
            (Dialect::ClaudeCode, None) => Subject::Unknown,
            _ => Subject::Unfiltered,
        }
    }

    fn apply_decision(
        _: &Notification,
        decision: Decision,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
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
/// dialect" in the [module docs](self)).
pub fn payload_in<P: WirePoint>(
    event: &str,
    dialect: Dialect,
    input: &P::Input,
    cx: &HookContext<'_>,
) -> Map<String, Value> {
    let mut payload = P::fields(input);
    P::dialect_fields(input, dialect, &mut payload);
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
    // The session's project directory when the agent gives one, else the current directory.
    let cwd = transcript::project_dir(cx)
        .map_or_else(std::env::current_dir, Ok)
        .map(|dir| dir.to_string_lossy().into_owned())
        .unwrap_or_default();
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
    for (key, value) in transcript::agent_fields(cx) {
        payload.entry(key).or_insert(value);
    }
    payload
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookchain_core::points::catalog;
    use hookchain_core::{Annotations, Level, Message, NotificationKind};
    use serde_json::json;

    fn with_cx<T>(
        point: &'static str,
        f: impl FnOnce(&HookContext<'_>) -> T,
    ) -> (T, Vec<String>, Vec<String>) {
        let notes = Annotations::new();
        let cx = HookContext::new("wire-test", 3, point, &notes).with_hook("guard");
        let result = f(&cx);
        let notes = notes.into_inner();
        (result, notes.context, notes.warnings)
    }

    fn block(reason: &str) -> Decision {
        Decision::block(reason)
    }

    #[test]
    fn every_builtin_point_is_a_wire_point() {
        // One name per impl below, checked against the catalog so none is left out.
        let names = [
            SessionStart::NAME,
            SessionEnd::NAME,
            SessionReset::NAME,
            TransformUserInput::NAME,
            TurnStart::NAME,
            BeforeLlmCall::NAME,
            AfterLlmCall::NAME,
            InterceptToolCall::NAME,
            PermissionRequest::NAME,
            TransformToolResult::NAME,
            AfterToolCall::NAME,
            AfterToolBatch::NAME,
            TransformResponse::NAME,
            OnStop::NAME,
            BeforeCompaction::NAME,
            AfterCompaction::NAME,
            SubagentStop::NAME,
            OutboundMessage::NAME,
            TurnEnded::NAME,
            Notify::NAME,
        ];
        let mut catalog: Vec<&str> = catalog().iter().map(|p| p.name).collect();
        let mut names = names.to_vec();
        catalog.sort_unstable();
        names.sort_unstable();
        assert_eq!(names, catalog);
    }

    #[test]
    fn tool_points_name_their_tool_and_others_do_not() {
        let call = ToolCall::new("shell", json!({"cmd": "ls"})).with_id("t1");
        assert_eq!(InterceptToolCall::tool_name(&call), Some("shell"));
        let result = ToolResult::new(&call, Ok(json!("ok")));
        assert_eq!(TransformToolResult::tool_name(&result), Some("shell"));
        assert_eq!(AfterToolCall::tool_name(&result), Some("shell"));
        assert_eq!(TransformUserInput::tool_name("hi"), None);
    }

    #[test]
    fn fields_use_the_other_agents_names() {
        let call = ToolCall::new("shell", json!({"cmd": "ls"})).with_id("t1");
        assert_eq!(
            Value::Object(InterceptToolCall::fields(&call)),
            json!({"tool_name": "shell", "tool_input": {"cmd": "ls"}, "tool_use_id": "t1"})
        );
        let result = ToolResult::new(&ToolCall::new("shell", json!({})), Err("boom".into()));
        assert_eq!(
            Value::Object(TransformToolResult::fields(&result)),
            json!({"tool_name": "shell", "tool_input": {}, "tool_response": "boom",
                   "is_error": true, "tool_error": true})
        );
        assert_eq!(
            Value::Object(TransformUserInput::fields("hello")),
            json!({"prompt": "hello"})
        );
        let stop = StopEvent {
            response: "done".into(),
            stop_hook_active: true,
            redos: 1,
        };
        assert_eq!(
            Value::Object(OnStop::fields(&stop)),
            json!({"response": "done", "last_assistant_message": "done", "stop_response": "done",
                   "stop_hook_active": true, "redos": 1})
        );
        let start = SessionStartEvent {
            session_id: "c".into(),
            parent_session_id: Some("p".into()),
            source: SessionSource::Subagent,
            context: vec!["x".into()],
        };
        assert_eq!(
            Value::Object(SessionStart::fields(&start)),
            json!({"source": "subagent", "parent_session_id": "p", "context": ["x"]})
        );
        let ended = TurnEndEvent {
            session_id: "s".into(),
            turn: 2,
            reason: TurnEnd::Error("oops".into()),
        };
        assert_eq!(
            Value::Object(TurnEnded::fields(&ended)),
            json!({"reason": "error", "detail": "oops"})
        );
        let normal = TurnEndEvent {
            reason: TurnEnd::Normal,
            ..ended
        };
        assert_eq!(
            Value::Object(TurnEnded::fields(&normal)),
            json!({"reason": "normal"})
        );
        let note = Notification {
            level: Level::Warning,
            message: "m".into(),
            source: None,
            kind: NotificationKind::General,
        };
        assert_eq!(
            Value::Object(Notify::fields(&note)),
            json!({"message": "m", "level": "warning", "kind": "general"})
        );
        let compaction = Compaction {
            messages: vec![Message::user("hi")],
            trigger: "auto".into(),
            summary: None,
        };
        assert_eq!(
            Value::Object(BeforeCompaction::fields(&compaction)),
            json!({"trigger": "auto", "source": "auto",
                   "messages": [{"role": "user", "content": "hi"}]})
        );
        let out = Outbound {
            platform: "slack".into(),
            recipient: "#ops".into(),
            text: "hi".into(),
        };
        assert_eq!(
            Value::Object(OutboundMessage::fields(&out)),
            json!({"platform": "slack", "recipient": "#ops", "message": "hi", "text": "hi",
                   "notification": "hi", "channel": "slack"})
        );
    }

    #[test]
    fn an_empty_reason_names_the_hook() {
        let call = ToolCall::new("x", json!({}));
        let (r, _, _) = with_cx("intercept_tool_call", |cx| {
            InterceptToolCall::apply_decision(&call, block(""), cx)
        });
        assert_eq!(r, HookResult::block("blocked by hook `guard`"));
        let stop = Decision {
            stop: Some(String::new()),
            ..Decision::default()
        };
        let (r, _, _) = with_cx("intercept_tool_call", |cx| {
            InterceptToolCall::apply_decision(&call, stop, cx)
        });
        assert_eq!(r, HookResult::block("hook `guard` asked the agent to stop"));
    }

    #[test]
    fn ask_blocks_and_says_why() {
        let ask = Decision {
            verdict: Verdict::Ask("rm is risky".into()),
            ..Decision::default()
        };
        let (r, _, _) = with_cx("transform_user_input", |cx| {
            TransformUserInput::apply_decision("hi", ask, cx)
        });
        assert_eq!(
            r,
            HookResult::block(
                "hook `guard` asks for the user's confirmation, which hookchain cannot ask for, so it blocks: rm is risky"
            )
        );
    }

    #[test]
    fn inject_points_inject_the_context() {
        let d = Decision {
            context: vec!["one".into(), "two".into()],
            ..Decision::default()
        };
        let start = SessionStartEvent {
            session_id: "s".into(),
            parent_session_id: None,
            source: SessionSource::Startup,
            context: Vec::new(),
        };
        let (r, context, _) = with_cx("session_start", |cx| {
            SessionStart::apply_decision(&start, d.clone(), cx)
        });
        assert_eq!(r, HookResult::Rewrite("one\ntwo".to_owned()));
        assert!(context.is_empty());
        let (r, context, _) = with_cx("before_llm_call", |cx| {
            BeforeLlmCall::apply_decision(&LlmCall::default(), d.clone(), cx)
        });
        assert_eq!(r, HookResult::Rewrite(Injection::system("one\ntwo")));
        assert!(context.is_empty());
        // A blocked call injects nothing; its context still reaches the agent.
        let blocked = Decision {
            verdict: Verdict::Block("budget".into()),
            ..d
        };
        let (r, context, _) = with_cx("before_llm_call", |cx| {
            BeforeLlmCall::apply_decision(&LlmCall::default(), blocked, cx)
        });
        assert_eq!(r, HookResult::block("budget"));
        assert_eq!(context, ["one", "two"]);
    }

    #[test]
    fn points_without_a_model_call_ahead_drop_context_but_keep_warnings() {
        let d = Decision {
            context: vec!["c".into()],
            warnings: vec!["w".into()],
            updated_text: Some("new".into()),
            ..Decision::default()
        };
        let (r, context, warnings) = with_cx("transform_response", |cx| {
            TransformResponse::apply_decision("old", d, cx)
        });
        assert_eq!(r, HookResult::Rewrite("new".to_owned()));
        assert!(context.is_empty());
        assert_eq!(warnings, ["w"]);
    }

    #[test]
    fn observe_points_report_warnings_and_context_only() {
        let d = Decision {
            verdict: Verdict::Block("no".into()),
            stop: Some("stop".into()),
            updated_text: Some("x".into()),
            context: vec!["c".into()],
            warnings: vec!["w".into()],
            ..Decision::default()
        };
        let result = ToolResult::new(&ToolCall::new("t", json!({})), Ok(json!(1)));
        let (r, context, warnings) = with_cx("after_tool_call", |cx| {
            AfterToolCall::apply_decision(&result, d.clone(), cx)
        });
        assert_eq!(r, HookResult::Pass);
        assert_eq!(
            (context, warnings),
            (vec!["c".to_owned()], vec!["w".to_owned()])
        );
        let ended = TurnEndEvent {
            session_id: "s".into(),
            turn: 0,
            reason: TurnEnd::Normal,
        };
        let (r, context, warnings) =
            with_cx("turn_end", |cx| TurnEnded::apply_decision(&ended, d, cx));
        assert_eq!(r, HookResult::Pass);
        assert!(context.is_empty());
        assert_eq!(warnings, ["w"]);
    }

    #[test]
    fn stop_on_on_stop_ends_the_turn_and_block_redoes() {
        let event = StopEvent {
            response: "done".into(),
            stop_hook_active: false,
            redos: 0,
        };
        let stop = Decision {
            verdict: Verdict::Block("keep going".into()),
            stop: Some("enough".into()),
            ..Decision::default()
        };
        let (r, _, warnings) = with_cx("on_stop", |cx| OnStop::apply_decision(&event, stop, cx));
        assert_eq!(r, HookResult::Pass);
        assert_eq!(warnings, ["enough"]);
        let (r, _, _) = with_cx("on_stop", |cx| {
            OnStop::apply_decision(&event, block("run the tests"), cx)
        });
        assert_eq!(r, HookResult::block("run the tests"));
    }

    #[test]
    fn rewrites_land_where_the_point_uses_them() {
        let result = ToolResult::new(&ToolCall::new("t", json!({})), Ok(json!("secret")));
        let d = Decision {
            updated_output: Some(json!("***")),
            ..Decision::default()
        };
        let (r, _, _) = with_cx("transform_tool_result", |cx| {
            TransformToolResult::apply_decision(&result, d, cx)
        });
        assert_eq!(r, HookResult::Rewrite(json!("***")));
        let compaction = Compaction {
            messages: Vec::new(),
            trigger: "manual".into(),
            summary: None,
        };
        let d = Decision {
            summary: Some("short".into()),
            ..Decision::default()
        };
        let (r, _, _) = with_cx("before_compaction", |cx| {
            BeforeCompaction::apply_decision(&compaction, d, cx)
        });
        assert_eq!(r, HookResult::Rewrite("short".to_owned()));
        let out = Outbound {
            platform: "slack".into(),
            recipient: "x".into(),
            text: "key=abc".into(),
        };
        let d = Decision {
            updated_text: Some("key=***".into()),
            updated_input: Some(json!({})),
            ..Decision::default()
        };
        let (r, _, _) = with_cx("outbound_message", |cx| {
            OutboundMessage::apply_decision(&out, d, cx)
        });
        assert_eq!(r, HookResult::Rewrite("key=***".to_owned()));
    }

    fn dialect_payload<P: WirePoint>(dialect: Dialect, input: &P::Input) -> Map<String, Value> {
        let mut map = P::fields(input);
        P::dialect_fields(input, dialect, &mut map);
        map
    }

    #[test]
    fn session_sources_and_end_reasons_in_claude_codes_names() {
        let start = |source| SessionStartEvent {
            session_id: "s".into(),
            parent_session_id: None,
            source,
            context: Vec::new(),
        };
        for (source, name) in [
            (SessionSource::Startup, "startup"),
            (SessionSource::Reset, "clear"),
            (SessionSource::Resume, "resume"),
            (SessionSource::Compact, "compact"),
        ] {
            let map = dialect_payload::<SessionStart>(Dialect::ClaudeCode, &start(source));
            assert_eq!(map["source"], name);
            assert_eq!(
                SessionStart::event_subject(&start(source), Dialect::ClaudeCode),
                Subject::Value(name.to_owned())
            );
        }
        // hookchain's own protocol keeps its own names and ignores matchers there.
        assert_eq!(
            SessionStart::fields(&start(SessionSource::Reset))["source"],
            "reset"
        );
        assert_eq!(
            SessionStart::event_subject(&start(SessionSource::Reset), Dialect::Hermes),
            Subject::Unfiltered
        );
        // Claude Code fires no SessionStart for a subagent.
        assert!(!SessionStart::fires_for(
            &start(SessionSource::Subagent),
            "SessionStart",
            Dialect::ClaudeCode
        ));
        assert!(SessionStart::fires_for(
            &start(SessionSource::Subagent),
            "session_start",
            Dialect::DockerAgent
        ));
        let end = |reason: &str| SessionEndEvent {
            session_id: "s".into(),
            reason: reason.into(),
        };
        assert_eq!(
            dialect_payload::<SessionEnd>(Dialect::ClaudeCode, &end("logout"))["reason"],
            "logout"
        );
        assert_eq!(
            dialect_payload::<SessionEnd>(Dialect::DockerAgent, &end("dropped"))["reason"],
            "other"
        );
        let note = Notification {
            level: Level::Error,
            message: "m".into(),
            source: None,
            kind: NotificationKind::General,
        };
        assert_eq!(
            Notify::event_subject(&note, Dialect::ClaudeCode),
            Subject::Unknown
        );
        let map = dialect_payload::<Notify>(Dialect::DockerAgent, &note);
        assert_eq!(
            (&map["notification_level"], &map["notification_message"]),
            (&json!("error"), &json!("m"))
        );
    }

    #[test]
    fn hermes_and_starchild_fields() {
        let call = ToolCall::new("terminal", json!({"command": "ls"})).with_id("c1");
        let (payload, _, _) = with_cx("intercept_tool_call", |cx| {
            payload_in::<InterceptToolCall>("pre_tool_call", Dialect::Hermes, &call, cx)
        });
        assert_eq!(payload["profile"], "default");
        assert_eq!(
            payload["extra"],
            json!({"tool_use_id": "c1", "tool_call_id": "c1", "task_id": "wire-test"})
        );
        let (payload, _, _) = with_cx("transform_user_input", |cx| {
            payload_in::<TransformUserInput>("on_user_message", Dialect::Hermes, "hi", cx)
        });
        assert_eq!(
            (&payload["tool_name"], &payload["tool_input"]),
            (&Value::Null, &Value::Null)
        );
        assert_eq!(payload["extra"]["prompt"], "hi");
        let result = ToolResult::new(&call, Ok(json!({"out": 1})));
        let map = dialect_payload::<AfterToolCall>(Dialect::Hermes, &result);
        assert_eq!(map["extra"]["result"], r#"{"out":1}"#);
        let map = dialect_payload::<TransformToolResult>(Dialect::Starchild, &result);
        assert_eq!(map["tool_result"], json!({"out": 1}));
        let llm = LlmCall {
            system_prompt: "sys".into(),
            messages: vec![Message::user("first"), Message::user("last")],
        };
        let map = dialect_payload::<BeforeLlmCall>(Dialect::Starchild, &llm);
        assert_eq!(
            (&map["system"], &map["last_user_message"]),
            (&json!("sys"), &json!("last"))
        );
        let compaction = Compaction {
            messages: Vec::new(),
            trigger: "auto".into(),
            summary: None,
        };
        let map = dialect_payload::<BeforeCompaction>(Dialect::DockerAgent, &compaction);
        assert_eq!(map["compaction_reason"], "threshold");
        let map = dialect_payload::<BeforeCompaction>(Dialect::ClaudeCode, &compaction);
        assert_eq!(map["custom_instructions"], "");
    }

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

    #[test]
    fn docker_agent_keeps_the_first_summary() {
        let earlier = Compaction {
            messages: Vec::new(),
            trigger: "manual".into(),
            summary: Some("first".into()),
        };
        let d = Decision {
            summary: Some("second".into()),
            ..Decision::default()
        };
        let (r, _, _) = with_cx("before_compaction", |cx| {
            let mut d = d.clone();
            adapt::<BeforeCompaction>(&earlier, &mut d, Dialect::DockerAgent, cx);
            BeforeCompaction::apply_decision(&earlier, d, cx)
        });
        assert_eq!(r, HookResult::Pass);
        // hookchain's own protocol: the last hook's summary wins, as in every chain.
        let (r, _, _) = with_cx("before_compaction", |cx| {
            let mut d = d.clone();
            adapt::<BeforeCompaction>(&earlier, &mut d, Dialect::Hookchain, cx);
            BeforeCompaction::apply_decision(&earlier, d, cx)
        });
        assert_eq!(r, HookResult::Rewrite("second".to_owned()));
    }

    #[test]
    fn a_claude_code_post_tool_use_block_is_feedback_and_a_stop_still_stops() {
        let result = ToolResult::new(&ToolCall::new("Write", json!({})), Ok(json!("ok")));
        let (r, context, _) = with_cx("transform_tool_result", |cx| {
            let mut d = block("");
            adapt::<TransformToolResult>(&result, &mut d, Dialect::ClaudeCode, cx);
            TransformToolResult::apply_decision(&result, d, cx)
        });
        assert_eq!(r, HookResult::Pass);
        assert_eq!(context, ["hook `guard` flagged the tool's result"]);
        let stop = Decision {
            stop: Some("halt".into()),
            ..Decision::default()
        };
        let (r, _, _) = with_cx("transform_tool_result", |cx| {
            let mut d = stop.clone();
            adapt::<TransformToolResult>(&result, &mut d, Dialect::ClaudeCode, cx);
            TransformToolResult::apply_decision(&result, d, cx)
        });
        assert_eq!(r, HookResult::block("halt"));
    }
}
