//! The built-in hook points and their payloads.
//!
//! | point | kind | value (what the agent passes; hooks borrow it) | a rewrite carries |
//! |---|---|---|---|
//! | `session_start` | inject | [`SessionStartEvent`] | context for the session (`String`) |
//! | `session_end` | observe | [`SessionEndEvent`] | — |
//! | `session_reset` | observe | [`SessionResetEvent`] | — |
//! | `transform_user_input` | transform | `String` (hooks see `&str`) | the new text |
//! | `before_llm_call` | inject | [`LlmCall`] | an [`Injection`] |
//! | `after_llm_call` | observe | [`LlmReply`] | — |
//! | `intercept_tool_call` | transform | [`ToolCall`] | the new **args** (`Value`) |
//! | `transform_tool_result` | transform | [`ToolResult`] | the new `tool_response` (`Value`) |
//! | `after_tool_call` | observe | [`ToolResult`] | — |
//! | `transform_response` | transform | `String` (hooks see `&str`) | the new reply |
//! | `on_stop` | transform | [`StopEvent`] | the new final reply; a block makes the agent redo |
//! | `before_compaction` | transform | [`Compaction`] | the summary to use; a block vetoes |
//! | `after_compaction` | observe | [`CompactionDone`] | — |
//! | `subagent_stop` | observe | [`SubagentStopEvent`] | — |
//! | `outbound_message` | transform | [`Outbound`] | the new text |
//! | `turn_end` ([`TurnEnded`]) | observe | [`TurnEndEvent`] | — |
//! | `notification` ([`Notify`]) | observe | [`Notification`] | — |
//!
//! On observe points the rewrite type is [`Observed`], which has no values: hooks return `()`.
//!
//! [`catalog`] lists every built-in point with its kind and the names other agents use for it.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::point::{HookPoint, Observed, PointKind};

/// A built-in point as the catalog lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointInfo {
    /// The canonical name.
    pub name: &'static str,
    /// What hooks on it can do.
    pub kind: PointKind,
    /// When it fires.
    pub fires: &'static str,
    /// Other agents' names for it, with the agent that uses each.
    pub aliases: &'static [(&'static str, &'static str)],
}

/// Every built-in point, in the order of the agent loop.
pub fn catalog() -> &'static [PointInfo] {
    CATALOG
}

/// Finds a built-in point by its canonical name or by another agent's name for it.
///
/// ```
/// let p = hookchain::points::resolve("PreToolUse").unwrap();
/// assert_eq!(p.name, "intercept_tool_call");
/// ```
pub fn resolve(name: &str) -> Option<&'static PointInfo> {
    CATALOG
        .iter()
        .find(|p| p.name == name || p.aliases.iter().any(|(alias, _)| *alias == name))
}

const CATALOG: &[PointInfo] = &[
    info::<SessionStart>(
        "a new session starts (and again after a reset)",
        &[
            ("on_session_start", "Hermes"),
            ("SessionStart", "Claude Code"),
        ],
    ),
    info::<SessionEnd>(
        "the session ends, with its reason",
        &[
            ("on_session_end", "Hermes"),
            ("SessionEnd", "Claude Code"),
            ("session_shutdown", "Pi"),
        ],
    ),
    info::<SessionReset>(
        "the session id is rotated (/new)",
        &[
            ("on_session_reset", "Hermes"),
            ("on_session_finalize", "Hermes"),
        ],
    ),
    info::<TransformUserInput>(
        "a user message arrives, before the model sees it",
        &[
            ("on_user_message", "Hermes"),
            ("UserPromptSubmit", "Claude Code"),
            ("user_prompt_submit", "docker-agent"),
            ("input", "Pi"),
        ],
    ),
    info::<BeforeLlmCall>(
        "before every model call",
        &[
            ("pre_llm_call", "Hermes"),
            ("before_agent_start", "Pi"),
            ("context", "Pi"),
            ("turn_start", "docker-agent"),
        ],
    ),
    info::<AfterLlmCall>("after a model reply", &[("post_llm_call", "Hermes")]),
    info::<InterceptToolCall>(
        "before a tool runs",
        &[
            ("pre_tool_call", "Hermes"),
            ("PreToolUse", "Claude Code"),
            ("pre_tool_use", "docker-agent"),
            ("tool_call", "Pi"),
        ],
    ),
    info::<TransformToolResult>(
        "a tool returned, before the model sees the result",
        &[
            ("tool_result", "Pi"),
            ("tool_response_transform", "Starchild"),
            ("PostToolUse", "Claude Code"),
            ("post_tool_use", "docker-agent"),
        ],
    ),
    info::<AfterToolCall>(
        "after a tool ran, on success and on error",
        &[("post_tool_call", "Hermes"), ("tool_execution_end", "Pi")],
    ),
    info::<TransformResponse>(
        "the final reply is assembled",
        &[("on_response_end", "Starchild")],
    ),
    info::<OnStop>(
        "the agent is about to end its turn",
        &[
            ("Stop", "Claude Code"),
            ("stop", "docker-agent"),
            ("on_completion_claim", "Starchild"),
        ],
    ),
    info::<BeforeCompaction>(
        "before the context is compacted",
        &[
            ("PreCompact", "Claude Code"),
            ("pre_compact", "docker-agent"),
            ("session_before_compact", "Pi"),
        ],
    ),
    info::<AfterCompaction>(
        "after the context was compacted",
        &[("PostCompact", "Claude Code")],
    ),
    info::<SubagentStop>("a child agent finished", &[("SubagentStop", "Claude Code")]),
    info::<OutboundMessage>(
        "before a message leaves for a chat platform",
        &[("on_outbound_message", "Hermes")],
    ),
    info::<TurnEnded>("the turn ended, whatever the reason", &[]),
    info::<Notify>(
        "the runtime reports a warning or an error",
        &[
            ("Notification", "Claude Code"),
            ("on_error", "Starchild"),
            ("on_max_iterations", "Starchild"),
        ],
    ),
];

const fn info<P: HookPoint>(
    fires: &'static str,
    aliases: &'static [(&'static str, &'static str)],
) -> PointInfo {
    PointInfo {
        name: P::NAME,
        kind: P::KIND,
        fires,
        aliases,
    }
}

/// Implements `HookPoint` for a built-in point.
macro_rules! builtin_point {
    (
        $ty:ident, $name:literal, $kind:ident, slot $slot:literal,
        value $value:ty, input $input:ty, rewrite $rewrite:ty,
        apply |$v:ident, $r:ident| $apply:expr
    ) => {
        impl HookPoint for $ty {
            const NAME: &'static str = $name;
            const KIND: PointKind = PointKind::$kind;
            type Value = $value;
            type Input = $input;
            type Rewrite = $rewrite;
            #[inline(always)]
            fn input(value: &$value) -> &$input {
                value
            }
            #[allow(unused_variables, clippy::unused_unit)]
            fn apply($v: &mut $value, $r: $rewrite) {
                $apply
            }
            const BUILTIN_SLOT: Option<usize> = Some($slot);
        }
    };
}

/// `session_start`: a new session starts (and again after a reset). Inject.
///
/// Hooks return context (`HookResult::Rewrite(text)`) that persists for the whole session: the
/// agent gets it back from `Session::context()` and adds it to its model calls. Injections
/// accumulate in chain order.
#[derive(Debug, Clone, Copy)]
pub struct SessionStart;
builtin_point!(SessionStart, "session_start", Inject, slot 4,
    value SessionStartEvent, input SessionStartEvent, rewrite String,
    apply |v, r| v.context.push(r));

/// `session_end`: the session ends. Observe.
#[derive(Debug, Clone, Copy)]
pub struct SessionEnd;
builtin_point!(SessionEnd, "session_end", Observe, slot 5,
    value SessionEndEvent, input SessionEndEvent, rewrite Observed,
    apply |v, r| match r {});

/// `session_reset`: the session id was rotated (`/new`). Observe.
#[derive(Debug, Clone, Copy)]
pub struct SessionReset;
builtin_point!(SessionReset, "session_reset", Observe, slot 6,
    value SessionResetEvent, input SessionResetEvent, rewrite Observed,
    apply |v, r| match r {});

/// `transform_user_input`: a user message arrives, before the model sees it. Transform.
///
/// Hooks see the text (`&str`), rewrite it with a `String`, or block with a reply for the user.
#[derive(Debug, Clone, Copy)]
pub struct TransformUserInput;

builtin_point!(TransformUserInput, "transform_user_input", Transform, slot 0,
    value String, input str, rewrite String,
    apply |v, r| *v = r);

/// `before_llm_call`: before every model call. Inject.
///
/// Hooks see the whole [`LlmCall`] and return an [`Injection`] of system text and/or user text,
/// or block the call. Injections accumulate in chain order: each later hook sees the call with
/// the earlier injections applied.
#[derive(Debug, Clone, Copy)]
pub struct BeforeLlmCall;
builtin_point!(BeforeLlmCall, "before_llm_call", Inject, slot 1,
    value LlmCall, input LlmCall, rewrite Injection,
    apply |v, r| v.inject(r));

/// `after_llm_call`: the model replied. Observe.
#[derive(Debug, Clone, Copy)]
pub struct AfterLlmCall;
builtin_point!(AfterLlmCall, "after_llm_call", Observe, slot 7,
    value LlmReply, input LlmReply, rewrite Observed,
    apply |v, r| match r {});

/// `intercept_tool_call`: before a tool runs. Transform.
///
/// Hooks see the [`ToolCall`], rewrite its **args** (the name and id stay), or block it with an
/// error the model sees.
#[derive(Debug, Clone, Copy)]
pub struct InterceptToolCall;
builtin_point!(InterceptToolCall, "intercept_tool_call", Transform, slot 2,
    value ToolCall, input ToolCall, rewrite Value,
    apply |v, r| v.args = r);

/// `transform_tool_result`: a tool returned, before the model sees the result. Transform.
///
/// Hooks see the call as it actually ran (after every rewrite) and its result; they rewrite the
/// result's `tool_response`, add context for the model (`cx.add_context`), or block, which
/// replaces the result with the reason as an error.
#[derive(Debug, Clone, Copy)]
pub struct TransformToolResult;
builtin_point!(TransformToolResult, "transform_tool_result", Transform, slot 8,
    value ToolResult, input ToolResult, rewrite Value,
    apply |v, r| v.tool_response = r);

/// `after_tool_call`: a tool ran, whether it succeeded or failed. Observe.
#[derive(Debug, Clone, Copy)]
pub struct AfterToolCall;
builtin_point!(AfterToolCall, "after_tool_call", Observe, slot 9,
    value ToolResult, input ToolResult, rewrite Observed,
    apply |v, r| match r {});

/// `transform_response`: the final reply is assembled. Transform.
///
/// Hooks see the reply (`&str`) and rewrite it (mask secrets, add a footer) or block it.
#[derive(Debug, Clone, Copy)]
pub struct TransformResponse;

builtin_point!(TransformResponse, "transform_response", Transform, slot 10,
    value String, input str, rewrite String,
    apply |v, r| *v = r);

/// `on_stop`: the agent is about to end its turn. Transform.
///
/// A block tells the agent to go on: the reason becomes its next instruction. The number of such
/// redos is capped per turn; on a repeat, [`StopEvent::stop_hook_active`] is `true`. A rewrite
/// replaces the final reply.
#[derive(Debug, Clone, Copy)]
pub struct OnStop;
builtin_point!(OnStop, "on_stop", Transform, slot 11,
    value StopEvent, input StopEvent, rewrite String,
    apply |v, r| v.response = r);

/// `before_compaction`: the context is about to be compacted. Transform.
///
/// A block vetoes the compaction; a rewrite supplies the summary to use instead of the agent's.
#[derive(Debug, Clone, Copy)]
pub struct BeforeCompaction;
builtin_point!(BeforeCompaction, "before_compaction", Transform, slot 12,
    value Compaction, input Compaction, rewrite String,
    apply |v, r| v.summary = Some(r));

/// `after_compaction`: the context was compacted. Observe.
#[derive(Debug, Clone, Copy)]
pub struct AfterCompaction;
builtin_point!(AfterCompaction, "after_compaction", Observe, slot 13,
    value CompactionDone, input CompactionDone, rewrite Observed,
    apply |v, r| match r {});

/// `subagent_stop`: a child agent finished. Observe.
#[derive(Debug, Clone, Copy)]
pub struct SubagentStop;
builtin_point!(SubagentStop, "subagent_stop", Observe, slot 14,
    value SubagentStopEvent, input SubagentStopEvent, rewrite Observed,
    apply |v, r| match r {});

/// `outbound_message`: a message is about to leave for a chat platform. Transform.
#[derive(Debug, Clone, Copy)]
pub struct OutboundMessage;
builtin_point!(OutboundMessage, "outbound_message", Transform, slot 15,
    value Outbound, input Outbound, rewrite String,
    apply |v, r| v.text = r);

/// `turn_end`: the turn ended, whatever the reason. Observe: every hook runs.
#[derive(Debug, Clone, Copy)]
pub struct TurnEnded;
builtin_point!(TurnEnded, "turn_end", Observe, slot 3,
    value TurnEndEvent, input TurnEndEvent, rewrite Observed,
    apply |v, r| match r {});

/// `notification`: the runtime reports a warning or an error (a hook failed, a redo cap was
/// reached). Observe.
#[derive(Debug, Clone, Copy)]
pub struct Notify;
builtin_point!(Notify, "notification", Observe, slot 16,
    value Notification, input Notification, rewrite Observed,
    apply |v, r| match r {});

/// The number of built-in points with a slot in the runtime's fixed table.
#[doc(hidden)]
pub const BUILTIN_SLOTS: usize = 17;

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name (`"write_file"`).
    pub name: String,
    /// The arguments, as the model produced them.
    pub args: Value,
    /// The model's id for the call, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl ToolCall {
    /// A call of `name` with `args` and no id.
    pub fn new(name: impl Into<String>, args: Value) -> Self {
        ToolCall {
            name: name.into(),
            args,
            id: None,
        }
    }

    /// The same call with the model's id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The string argument `key`, if the args are an object holding a string there.
    pub fn str_arg(&self, key: &str) -> Option<&str> {
        self.args.get(key).and_then(Value::as_str)
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A model message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }

    /// A tool result.
    pub fn tool(content: impl Into<String>) -> Self {
        Message {
            role: Role::Tool,
            content: content.into(),
        }
    }
}

/// A model call about to be made: the system prompt and the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LlmCall {
    /// The system prompt.
    pub system_prompt: String,
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
}

impl LlmCall {
    /// A call with a system prompt and messages.
    pub fn new(system_prompt: impl Into<String>, messages: Vec<Message>) -> Self {
        LlmCall {
            system_prompt: system_prompt.into(),
            messages,
        }
    }

    /// Applies an injection: system text is appended to the system prompt as a new paragraph,
    /// user text is appended to the conversation as a user message.
    pub fn inject(&mut self, injection: Injection) {
        if let Some(system) = injection.system {
            if !self.system_prompt.is_empty() {
                self.system_prompt.push_str("\n\n");
            }
            self.system_prompt.push_str(&system);
        }
        if let Some(user) = injection.user {
            self.messages.push(Message::user(user));
        }
    }
}

/// What a `before_llm_call` hook adds to the model call.
///
/// ```
/// use hookchain::{HookResult, points::Injection};
/// let r: HookResult<Injection> = HookResult::Rewrite(Injection::system("Plan first."));
/// # assert!(r.is_rewrite());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Injection {
    /// Text appended to the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Text appended to the conversation as a user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

impl Injection {
    /// Injects system text.
    pub fn system(text: impl Into<String>) -> Self {
        Injection {
            system: Some(text.into()),
            user: None,
        }
    }

    /// Injects user text.
    pub fn user(text: impl Into<String>) -> Self {
        Injection {
            system: None,
            user: Some(text.into()),
        }
    }

    /// Adds user text to this injection.
    pub fn and_user(mut self, text: impl Into<String>) -> Self {
        self.user = Some(text.into());
        self
    }
}

impl crate::HookResult<Injection> {
    /// Shorthand for `HookResult::Rewrite(Injection::system(text))`.
    pub fn inject_system(text: impl Into<String>) -> Self {
        crate::HookResult::Rewrite(Injection::system(text))
    }

    /// Shorthand for `HookResult::Rewrite(Injection::user(text))`.
    pub fn inject_user(text: impl Into<String>) -> Self {
        crate::HookResult::Rewrite(Injection::user(text))
    }
}

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason", content = "detail")]
pub enum TurnEnd {
    /// The agent replied and the turn is over.
    Normal,
    /// The turn failed; the message says how.
    Error(String),
    /// The turn was canceled (also: a `Turn` dropped without `end()`).
    Canceled,
    /// A hook blocked the turn.
    Blocked,
    /// The agent hit its iteration limit.
    MaxIterations,
}

impl fmt::Display for TurnEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnEnd::Normal => f.write_str("normal"),
            TurnEnd::Error(e) => write!(f, "error: {e}"),
            TurnEnd::Canceled => f.write_str("canceled"),
            TurnEnd::Blocked => f.write_str("blocked"),
            TurnEnd::MaxIterations => f.write_str("max_iterations"),
        }
    }
}

/// The payload of `turn_end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnEndEvent {
    /// The session.
    pub session_id: String,
    /// The turn's index in its session, from 0.
    pub turn: u64,
    /// Why it ended.
    pub reason: TurnEnd,
}

/// Where a session comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionSource {
    /// A new conversation.
    Startup,
    /// A conversation started over by `Session::reset`.
    Reset,
    /// A child agent's session, started by `Session::child`.
    Subagent,
}

/// The payload of `session_start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionStartEvent {
    /// The new session.
    pub session_id: String,
    /// The parent's session id, for a child agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    /// Why the session starts.
    pub source: SessionSource,
    /// The context injected so far by earlier hooks, in chain order.
    #[serde(default)]
    pub context: Vec<String>,
}

/// The payload of `session_end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEndEvent {
    /// The session.
    pub session_id: String,
    /// Why it ended, as the agent said (`"exit"`, `"logout"`, …; `"dropped"` when its last
    /// handle was dropped without `end`).
    pub reason: String,
}

/// The payload of `session_reset`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionResetEvent {
    /// The id before the reset; its state is gone.
    pub old_session_id: String,
    /// The id after the reset.
    pub new_session_id: String,
}

/// The payload of `after_llm_call`: what the model replied.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LlmReply {
    /// The reply's text.
    pub text: String,
    /// The tool calls the model asked for.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
}

impl LlmReply {
    /// A reply with text and no tool calls.
    pub fn text(text: impl Into<String>) -> Self {
        LlmReply {
            text: text.into(),
            tool_calls: Vec::new(),
        }
    }
}

/// A tool call as it ran, and its result: the payload of `transform_tool_result` and
/// `after_tool_call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The tool's name.
    pub tool_name: String,
    /// The args the tool ran with, after every rewrite.
    pub tool_input: Value,
    /// The model's id for the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What the tool returned (on error: the error message as a string).
    pub tool_response: Value,
    /// `true` when the tool failed.
    #[serde(default)]
    pub is_error: bool,
}

impl ToolResult {
    /// The result of `call`: `Ok` for a success, `Err` with the message for a failure.
    pub fn new(call: &ToolCall, result: Result<Value, String>) -> Self {
        let (tool_response, is_error) = match result {
            Ok(v) => (v, false),
            Err(e) => (Value::String(e), true),
        };
        ToolResult {
            tool_name: call.name.clone(),
            tool_input: call.args.clone(),
            tool_use_id: call.id.clone(),
            tool_response,
            is_error,
        }
    }

    /// The call this is the result of.
    pub fn call(&self) -> ToolCall {
        ToolCall {
            name: self.tool_name.clone(),
            args: self.tool_input.clone(),
            id: self.tool_use_id.clone(),
        }
    }
}

/// The payload of `on_stop`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopEvent {
    /// The reply the agent is about to end the turn with.
    pub response: String,
    /// `true` when the agent is already redoing because an `on_stop` hook blocked before.
    pub stop_hook_active: bool,
    /// How many times `on_stop` hooks made the agent redo in this turn so far.
    pub redos: u32,
}

/// The payload of `before_compaction`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compaction {
    /// The messages about to be compacted.
    pub messages: Vec<Message>,
    /// `"auto"` (the context is full) or `"manual"` (the user asked).
    pub trigger: String,
    /// A summary supplied by a hook, to use instead of the agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// The payload of `after_compaction`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionDone {
    /// The summary that replaced the messages.
    pub summary: String,
    /// How many messages there were before.
    pub messages_before: usize,
    /// How many there are after.
    pub messages_after: usize,
}

/// The payload of `subagent_stop`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubagentStopEvent {
    /// The child's session.
    pub session_id: String,
    /// The parent's session.
    pub parent_session_id: String,
    /// Why the child stopped.
    pub reason: String,
}

/// The payload of `outbound_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outbound {
    /// The platform (`"slack"`, `"telegram"`, …).
    pub platform: String,
    /// The chat, channel or user the message goes to.
    pub recipient: String,
    /// The message.
    pub text: String,
}

/// How serious a notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// For information.
    Info,
    /// Something went wrong but the agent goes on.
    Warning,
    /// Something failed.
    Error,
}

/// The payload of `notification`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    /// How serious it is.
    pub level: Level,
    /// What happened.
    pub message: String,
    /// What it is about: a hook's name, a point, a session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}
