//! The built-in hook points and their payloads.
//!
//! | point | kind | value (what the agent passes; hooks borrow it) | a rewrite carries |
//! |---|---|---|---|
//! | `session_start` | inject | [`SessionStartEvent`] | context for the session (`String`) |
//! | `session_end` | observe | [`SessionEndEvent`] | — |
//! | `session_reset` | observe | [`SessionResetEvent`] | — |
//! | `transform_user_input` | transform | `String` (hooks see `&str`) | the new text |
//! | `turn_start` | inject | [`TurnStartEvent`] | context for this turn only (`String`) |
//! | `before_llm_call` | inject | [`LlmCall`] | an [`Injection`] |
//! | `after_llm_call` | observe | [`LlmReply`] | — |
//! | `intercept_tool_call` | transform | [`ToolCall`] | the new **args** (`Value`) |
//! | `permission_request` | transform | [`PermissionAsk`] | a [`PermissionGrant`]: allowed without asking; a block denies |
//! | `transform_tool_result` | transform | [`ToolResult`] | the new `tool_response` (`Value`) |
//! | `after_tool_call` | observe | [`ToolResult`] | — |
//! | `after_tool_batch` | inject | [`ToolBatch`] | context for the next model call (`String`); a block stops the turn |
//! | `transform_response` | transform | `String` (hooks see `&str`) | the new reply |
//! | `on_stop` | transform | [`StopEvent`] | the new final reply; a block makes the agent redo |
//! | `before_compaction` | transform | [`Compaction`] | the summary to use; a block vetoes |
//! | `after_compaction` | observe | [`CompactionDone`] | — |
//! | `subagent_stop` | observe | [`SubagentStopEvent`] | — |
//! | `outbound_message` | transform | [`Outbound`] | the new text |
//! | `turn_end` ([`TurnEnded`]) | observe | [`TurnEndEvent`] | — |
//! | `notification` ([`Notify`]) | observe | [`Notification`] (its [`NotificationKind`]) | — |
//!
//! On observe points the rewrite type is [`Observed`](crate::Observed), which has no values:
//! hooks return `()`.
//!
//! [`catalog`] lists every built-in point with its kind and the names other agents use for it.
//!
//! Every built-in point is declared once, as a row of one table (`points/table.rs`), and every
//! list of them — the types and their `HookPoint` impls below, the catalog, the names
//! `#[register_hook]` knows — is generated from it.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dialect::Dialect;
use crate::point::{HookPoint, OnError, PointKind};

mod table;

/// A built-in point as the catalog lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointInfo {
    /// The canonical name.
    pub name: &'static str,
    /// What hooks on it can do.
    pub kind: PointKind,
    /// When it fires.
    pub fires: &'static str,
    /// Other agents' names for it, with the agent that uses each (its [`Dialect::name`]; see
    /// [`dialect_of`](Self::dialect_of)).
    pub aliases: &'static [(&'static str, &'static str)],
}

impl PointInfo {
    /// The dialect whose name for this point `event` is (`PreToolUse`: Claude Code), or `None`
    /// when `event` is none of the [`aliases`](Self::aliases) (the canonical name included).
    ///
    /// ```
    /// use hookchain::Dialect;
    ///
    /// let point = hookchain::points::resolve("post_tool_call").unwrap();
    /// assert_eq!(point.dialect_of("post_tool_call"), Some(Dialect::Hermes));
    /// assert_eq!(point.dialect_of("after_tool_call"), None);
    /// ```
    pub fn dialect_of(&self, event: &str) -> Option<Dialect> {
        let (_, agent) = self.aliases.iter().find(|(alias, _)| *alias == event)?;
        Dialect::ALL.into_iter().find(|d| d.name() == *agent)
    }
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

/// Generates, from the rows of [`__builtin_points!`](crate::__builtin_points): each point's
/// type and its `HookPoint` impl, [`CATALOG`] and [`BUILTIN_SLOTS`].
macro_rules! builtin_points {
    ($(
        $(#[$doc:meta])*
        $point:ident {
            name: $name:literal,
            kind: $kind:ident,
            fires: $fires:literal,
            aliases: [$(($alias:literal, $agent:literal)),* $(,)?],
            slot: $slot:literal,
            on_error: $on_error:ident,
            value: $value:ty,
            input: $input:ty,
            rewrite: $rewrite:ty,
            apply: |$v:ident, $r:ident| $apply:expr,
        }
    )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $point;

            impl HookPoint for $point {
                const NAME: &'static str = $name;
                const KIND: PointKind = PointKind::$kind;
                const DEFAULT_ON_ERROR: OnError = OnError::$on_error;
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
                fn payload_json(value: &$value) -> ::serde_json::Value {
                    ::serde_json::to_value(value).unwrap_or(::serde_json::Value::Null)
                }
            }
        )*

        /// The number of built-in points with a slot in the runtime's fixed table.
        #[doc(hidden)]
        pub const BUILTIN_SLOTS: usize = [$($slot),*].len();

        // Each built-in point has its own slot, from 0 to `BUILTIN_SLOTS - 1`.
        const _: () = assert!(
            slots_are_a_permutation(&[$($slot),*]),
            "the built-in points' slots must be 0, 1, 2, ... in some order, each used once"
        );

        const CATALOG: &[PointInfo] = &[$(
            PointInfo {
                name: <$point as HookPoint>::NAME,
                kind: <$point as HookPoint>::KIND,
                fires: $fires,
                aliases: &[$(($alias, $agent)),*],
            },
        )*];
    };
}

crate::__builtin_points!(builtin_points);

/// `true` when `slots` holds each of `0..slots.len()` once.
const fn slots_are_a_permutation(slots: &[usize]) -> bool {
    let mut i = 0;
    while i < slots.len() {
        if slots[i] >= slots.len() {
            return false;
        }
        let mut j = i + 1;
        while j < slots.len() {
            if slots[i] == slots[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

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

/// The payload of `turn_start`: the user's message as the model will get it, and the context
/// hooks injected for this turn.
///
/// ```
/// use hookchain::points::{TurnStart, TurnStartEvent};
/// use hookchain::HookPoint;
///
/// let mut event = TurnStartEvent::new("fix the build");
/// TurnStart::apply(&mut event, "the CI runs `make check`".to_owned());
/// assert_eq!(event.context, ["the CI runs `make check`"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnStartEvent {
    /// The user's message, after `transform_user_input`.
    pub prompt: String,
    /// The context injected so far by earlier hooks, in chain order: for this turn's model calls
    /// only.
    #[serde(default)]
    pub context: Vec<String>,
}

impl TurnStartEvent {
    /// A turn start for the user's message `prompt`, with no context yet.
    pub fn new(prompt: impl Into<String>) -> Self {
        TurnStartEvent {
            prompt: prompt.into(),
            context: Vec::new(),
        }
    }
}

/// The payload of `permission_request`: a tool call the agent is about to ask the user to
/// confirm.
///
/// ```
/// use hookchain::points::{PermissionAsk, PermissionGrant, PermissionRequest, ToolCall};
/// use hookchain::HookPoint;
/// use serde_json::json;
///
/// let call = ToolCall::new("shell", json!({"cmd": "make"})).with_id("t1");
/// let mut ask = PermissionAsk::new(&call);
/// assert!(!ask.allowed);
/// PermissionRequest::apply(&mut ask, PermissionGrant::with_args(json!({"cmd": "make -j2"})));
/// assert!(ask.allowed);
/// assert_eq!(ask.call().args, json!({"cmd": "make -j2"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionAsk {
    /// The tool's name.
    pub tool_name: String,
    /// The args the tool would run with.
    pub tool_input: Value,
    /// The model's id for the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The permission rules the agent would offer the user ("always allow `npm test`"), as the
    /// agent spells them (Claude Code's `permission_suggestions`); empty when it offers none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_suggestions: Vec<Value>,
    /// `true` once a hook granted the call: the agent runs it without asking.
    #[serde(default)]
    pub allowed: bool,
}

impl PermissionAsk {
    /// The request to confirm `call`.
    pub fn new(call: &ToolCall) -> Self {
        PermissionAsk {
            tool_name: call.name.clone(),
            tool_input: call.args.clone(),
            tool_use_id: call.id.clone(),
            permission_suggestions: Vec::new(),
            allowed: false,
        }
    }

    /// The call, with its args as the hooks left them.
    pub fn call(&self) -> ToolCall {
        ToolCall {
            name: self.tool_name.clone(),
            args: self.tool_input.clone(),
            id: self.tool_use_id.clone(),
        }
    }

    /// Applies a grant: the call is allowed, with the grant's args when it has some.
    pub fn grant(&mut self, grant: PermissionGrant) {
        self.allowed = true;
        if let Some(args) = grant.args {
            self.tool_input = args;
        }
    }
}

/// What a `permission_request` hook returns to allow a call without asking the user.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionGrant {
    /// New args for the call (Claude Code's `updatedInput`); `None` keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
}

impl PermissionGrant {
    /// Allows the call as it is.
    pub fn allow() -> Self {
        PermissionGrant { args: None }
    }

    /// Allows the call with new args.
    pub fn with_args(args: Value) -> Self {
        PermissionGrant { args: Some(args) }
    }
}

impl crate::HookResult<PermissionGrant> {
    /// Shorthand for `HookResult::Rewrite(PermissionGrant::allow())`: the call runs without
    /// asking the user.
    pub fn allow() -> Self {
        crate::HookResult::Rewrite(PermissionGrant::allow())
    }
}

/// The payload of `after_tool_batch`: the results of every call of one batch, in the order the
/// model asked for them, and the context hooks injected for the next model call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolBatch {
    /// The results, refused calls included ([`ToolResult::blocked`]).
    pub results: Vec<ToolResult>,
    /// The context injected so far by earlier hooks, in chain order.
    #[serde(default)]
    pub context: Vec<String>,
}

impl ToolBatch {
    /// The batch of `results`, with no context yet.
    pub fn new(results: Vec<ToolResult>) -> Self {
        ToolBatch {
            results,
            context: Vec::new(),
        }
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
    /// A conversation the agent resumed (Claude Code's `--resume`): the agent starts its
    /// session with `Hooks::session_with(id, SessionSource::Resume)`.
    Resume,
    /// The same conversation, its context just compacted: the agent fires `session_start` with
    /// this source after a compaction (`Session::restart(SessionSource::Compact)`), so hooks
    /// re-inject what the summary lost (Claude Code's `SessionStart` with `source: compact`).
    Compact,
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
    /// `true` when the tool failed, or did not run because a hook blocked it.
    #[serde(default)]
    pub is_error: bool,
    /// The block, when `intercept_tool_call` refused the call and the tool never ran: who
    /// blocked it and why. `tool_response` then holds the reason and `is_error` is `true`.
    /// `None` for a tool that ran (left out of the JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<ToolBlock>,
}

/// Why a tool call did not run: the `intercept_tool_call` block that `after_tool_call` hooks
/// see in [`ToolResult::blocked`], so an audit hook also sees the calls that were refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolBlock {
    /// The reason the model was given.
    pub reason: String,
    /// The name of the hook that blocked.
    pub hook: String,
    /// `true` when the hook did not decide to block but failed under `on_error = "block"`.
    #[serde(default)]
    pub failed: bool,
}

impl From<&crate::Blocked> for ToolBlock {
    fn from(blocked: &crate::Blocked) -> Self {
        ToolBlock {
            reason: blocked.reason.clone(),
            hook: blocked.hook.clone(),
            failed: blocked.failed,
        }
    }
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
            blocked: None,
        }
    }

    /// The result of `call` when `intercept_tool_call` blocked it and the tool never ran: the
    /// reason as an error, with the block recorded in [`blocked`](ToolResult::blocked). What
    /// `Turn::run_tool` fires `after_tool_call` with for a refused call; an agent that fires the
    /// tool points itself does the same.
    ///
    /// ```
    /// use hookchain::points::{ToolBlock, ToolCall, ToolResult};
    /// use serde_json::json;
    ///
    /// let call = ToolCall::new("shell", json!({"cmd": "rm -rf /"}));
    /// let block = ToolBlock { reason: "no".into(), hook: "guard".into(), failed: false };
    /// let result = ToolResult::refused(&call, block);
    /// assert!(result.is_error);
    /// assert_eq!(result.tool_response, json!("no"));
    /// assert_eq!(result.tool_input, json!({"cmd": "rm -rf /"}));
    /// assert_eq!(result.blocked.unwrap().hook, "guard");
    /// ```
    pub fn refused(call: &ToolCall, block: ToolBlock) -> Self {
        let mut result = ToolResult::new(call, Err(block.reason.clone()));
        result.blocked = Some(block);
        result
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

/// What a notification is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationKind {
    /// A warning or an error of the runtime or the agent (a hook failed, a redo cap was
    /// reached, a turn failed).
    #[default]
    General,
    /// The agent reached its cap of model calls for one run (`Turn::max_iterations_reached`);
    /// docker-agent's and Starchild's `on_max_iterations`.
    MaxIterations,
    /// The agent waits for the user's input (`Turn::waiting_for_user`); docker-agent's
    /// `on_user_input`, Claude Code's `idle_prompt` notification.
    UserInput,
    /// The agent asks the user to confirm a tool call; Claude Code's `permission_prompt`
    /// notification.
    PermissionPrompt,
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
    /// What kind of notification it is ([`NotificationKind::General`] unless the agent says).
    #[serde(default)]
    pub kind: NotificationKind,
}

impl Notification {
    /// A general notification of `level` saying `message`, with no source.
    ///
    /// ```
    /// use hookchain::points::{Level, Notification, NotificationKind};
    ///
    /// let n = Notification::new(Level::Error, "the model call failed").source("llm");
    /// assert_eq!(n.kind, NotificationKind::General);
    /// assert_eq!(n.source.as_deref(), Some("llm"));
    /// ```
    pub fn new(level: Level, message: impl Into<String>) -> Self {
        Notification {
            level,
            message: message.into(),
            source: None,
            kind: NotificationKind::General,
        }
    }

    /// An error (what `on_error` hooks fire for).
    pub fn error(message: impl Into<String>) -> Self {
        Notification::new(Level::Error, message)
    }

    /// The same notification, about `source`.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The same notification, of `kind`.
    pub fn kind(mut self, kind: NotificationKind) -> Self {
        self.kind = kind;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every point of the table, as its type says: (name, kind, slot, default `on_error`).
    macro_rules! point_types {
        ($($(#[$doc:meta])* $point:ident { $($row:tt)* })*) => {
            [$((
                <$point as HookPoint>::NAME,
                <$point as HookPoint>::KIND,
                <$point as HookPoint>::BUILTIN_SLOT,
                <$point as HookPoint>::DEFAULT_ON_ERROR,
            )),*]
        };
    }

    #[test]
    fn the_catalog_lists_every_point_type_in_table_order() {
        let types = crate::__builtin_points!(point_types);
        assert_eq!(types.len(), catalog().len());
        assert_eq!(types.len(), BUILTIN_SLOTS);
        for ((name, kind, _, _), info) in types.iter().zip(catalog()) {
            assert_eq!((*name, *kind), (info.name, info.kind));
        }
        let mut slots: Vec<usize> = types.iter().map(|t| t.2.unwrap()).collect();
        slots.sort_unstable();
        assert_eq!(slots, (0..BUILTIN_SLOTS).collect::<Vec<_>>());
        assert!(types.iter().all(|t| t.3 == OnError::Pass));
    }

    #[test]
    fn the_order_and_slots_of_the_agent_loop() {
        let names: Vec<&str> = catalog().iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            [
                "session_start",
                "session_end",
                "session_reset",
                "transform_user_input",
                "turn_start",
                "before_llm_call",
                "after_llm_call",
                "intercept_tool_call",
                "permission_request",
                "transform_tool_result",
                "after_tool_call",
                "after_tool_batch",
                "transform_response",
                "on_stop",
                "before_compaction",
                "after_compaction",
                "subagent_stop",
                "outbound_message",
                "turn_end",
                "notification",
            ]
        );
        assert_eq!(TransformUserInput::BUILTIN_SLOT, Some(0));
        assert_eq!(BeforeLlmCall::BUILTIN_SLOT, Some(1));
        assert_eq!(InterceptToolCall::BUILTIN_SLOT, Some(2));
        assert_eq!(TurnEnded::BUILTIN_SLOT, Some(3));
        assert_eq!(Notify::BUILTIN_SLOT, Some(16));
        assert_eq!(TurnStart::BUILTIN_SLOT, Some(17));
        assert_eq!(PermissionRequest::BUILTIN_SLOT, Some(18));
        assert_eq!(AfterToolBatch::BUILTIN_SLOT, Some(19));
    }

    /// Every event of another agent that has a point resolves to it, by the agent's own name.
    #[test]
    fn other_agents_events_resolve_to_their_points() {
        for (event, point) in [
            ("turn_start", "turn_start"),
            ("before_agent_start", "turn_start"),
            ("permission_request", "permission_request"),
            ("PermissionRequest", "permission_request"),
            ("PermissionDenied", "after_tool_call"),
            ("PostToolBatch", "after_tool_batch"),
            ("SubagentStart", "session_start"),
            ("on_user_input", "notification"),
            ("on_error", "notification"),
            ("on_max_iterations", "notification"),
        ] {
            assert_eq!(resolve(event).map(|p| p.name), Some(point), "{event}");
        }
        assert_eq!(resolve("turn_start").unwrap().kind, PointKind::Inject);
        assert_eq!(
            resolve("PermissionRequest").unwrap().kind,
            PointKind::Transform
        );
        assert_eq!(resolve("PostToolBatch").unwrap().kind, PointKind::Inject);
    }

    #[test]
    fn a_grant_allows_and_may_replace_the_args() {
        let call = ToolCall::new("shell", Value::from("ls")).with_id("t");
        let mut ask = PermissionAsk::new(&call);
        PermissionRequest::apply(&mut ask, PermissionGrant::allow());
        assert!(ask.allowed);
        assert_eq!(ask.call(), call);
        PermissionRequest::apply(&mut ask, PermissionGrant::with_args(Value::from("pwd")));
        assert_eq!(ask.tool_input, Value::from("pwd"));
    }

    #[test]
    fn turn_and_batch_context_accumulates() {
        let mut start = TurnStartEvent::new("hi");
        TurnStart::apply(&mut start, "a".into());
        TurnStart::apply(&mut start, "b".into());
        assert_eq!(start.context, ["a", "b"]);
        let mut batch = ToolBatch::new(Vec::new());
        AfterToolBatch::apply(&mut batch, "c".into());
        assert_eq!(batch.context, ["c"]);
    }

    /// A notification written without a kind (an older agent, a test payload) is a general one.
    #[test]
    fn a_notification_without_a_kind_is_general() {
        let n: Notification =
            serde_json::from_value(serde_json::json!({"level": "error", "message": "m"})).unwrap();
        assert_eq!(n, Notification::error("m"));
        let json = serde_json::to_value(
            Notification::new(Level::Info, "w").kind(NotificationKind::UserInput),
        )
        .unwrap();
        assert_eq!(json["kind"], "user_input");
    }

    #[test]
    fn resolves_names_and_aliases() {
        assert_eq!(resolve("turn_end").unwrap().name, "turn_end");
        assert_eq!(resolve("PreToolUse").unwrap().name, "intercept_tool_call");
        assert_eq!(resolve("on_error").unwrap().name, "notification");
        assert_eq!(resolve("Stop").unwrap().kind, PointKind::Transform);
        assert!(resolve("intercept_tool_cal").is_none());
        assert!(resolve("turnend").is_none());
    }

    #[test]
    fn no_name_is_used_twice() {
        let mut names: Vec<&str> = catalog()
            .iter()
            .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().map(|(a, _)| *a)))
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a name or an alias is used twice");
    }

    #[test]
    fn rewrites_apply_to_the_value() {
        let mut call = ToolCall::new("ls", Value::Null);
        InterceptToolCall::apply(&mut call, Value::Bool(true));
        assert_eq!(call.args, Value::Bool(true));
        let mut text = String::from("a");
        TransformUserInput::apply(&mut text, "b".to_owned());
        assert_eq!(TransformUserInput::input(&text), "b");
        let mut compaction = Compaction {
            messages: Vec::new(),
            trigger: "auto".into(),
            summary: None,
        };
        BeforeCompaction::apply(&mut compaction, "short".into());
        assert_eq!(compaction.summary.as_deref(), Some("short"));
    }

    /// The table at the top of this module's docs has a row for every point.
    #[test]
    fn the_module_docs_list_every_point() {
        let docs: Vec<&str> = include_str!("points.rs")
            .lines()
            .take_while(|line| line.starts_with("//!"))
            .collect();
        for point in catalog() {
            let row = format!("//! | `{}` ", point.name);
            assert!(
                docs.iter().any(|line| line.starts_with(&row)),
                "the docs of `points` have no row for `{}`",
                point.name
            );
        }
    }
}
