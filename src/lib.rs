//! # hookchain
//!
//! Hooks for AI agents. An agent loops — user message → model call → tool calls → model call →
//! … → reply — and hookchain lets its author attach hooks to every step: observe it, **rewrite**
//! its input, **block** it with a reason the model or the user sees, or **inject** context.
//!
//! ```
//! use hookchain::prelude::*;
//!
//! /// Plan before implement: no writes outside plans/ until a plan exists.
//! #[register_hook("intercept_tool_call", priority = 10)]
//! fn require_plan(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
//!     let plan_ok = get_turn_state(cx.session_id()).get::<bool>("plan_ok").unwrap_or(false);
//!     if call.name == "write_file" && !plan_ok {
//!         return HookResult::block("No valid plan yet: write plans/active/plan.md first");
//!     }
//!     HookResult::Pass
//! }
//!
//! let session = Hooks::global().session("doc-example");
//! let turn = session.begin_turn();
//! let flow = turn.intercept_tool_call(ToolCall::new("write_file", json!({"path": "src/main.rs"})));
//! let Flow::Blocked(blocked) = flow else { panic!("expected a block") };
//! assert!(blocked.hook.ends_with("require_plan"));
//! turn.end(TurnEnd::Normal);
//! ```
//!
//! - [`register_hook`] collects a fn at link time (inventory by default, linkme with the `linkme`
//!   feature) and checks its signature against the point at compile time.
//! - [`Hooks`] builds one priority-ordered chain per point; [`Session`] and [`Turn`] fire them.
//! - `cx.turn_state()` and `cx.session_state()` ([`HookContext::turn_state`]) share state between
//!   the hooks of a turn and of a session; [`get_turn_state`] and [`get_session_state`] reach it
//!   from code that has only a session id.
//! - Every firing method has an `_async` twin ([`Turn::intercept_tool_call_async`],
//!   [`Turn::run_tool_async`], [`Turn::end_async`], [`Hooks::session_async`], ...) for agents on
//!   an async runtime; see [`hooks_runtime::chain`] for how the sync methods run async hooks.
//! - Hooks are grouped by extension: [`Hooks::disable_extension`] switches a group off at
//!   runtime, and `hookchain.yaml` ([`Config`]) gives each group its typed config, which a hook
//!   reads with [`HookContext::config`] and declares with [`extension_config!`].
//!
//! The chain rules are written once, in [`hooks_runtime::chain`].

#![warn(missing_docs)]

pub use hooks_core::{
    Annotations, AnnotationsInner, AsyncHandler, AsyncHookFn, Blocked, BoxFuture, Compaction,
    CompactionDone, ConfigDeclaration, ConfigError, ConfigOrigin, ContextArg, Extension, Flow,
    HookArg, HookContext, HookError, HookPoint, HookResult, HookReturn, Injection, IntoHookReturn,
    Level, LlmCall, LlmReply, Message, Metadata, Notification, Observed, OnError, Outbound,
    PointKind, Reason, Registration, Role, SessionEndEvent, SessionResetEvent, SessionSource,
    SessionStartEvent, StopEvent, SubagentStopEvent, SyncHandler, SyncHookFn, ToolArgsError,
    ToolCall, ToolResult, TurnEnd, TurnEndEvent, backend, config_declarations, points,
    registrations,
};
pub use hooks_core::{extension_config, hook_point};
pub use hooks_macros::register_hook;
pub use hooks_runtime::*;

/// What `#[register_hook]` expands to refers to these; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use hooks_core::__private::*;
}

/// The names an agent or a hook needs, in one import: `use hookchain::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Blocked, Flow, HookContext, HookPoint, HookResult, Hooks, Injection, LlmCall, Message,
        OnError, PointKind, Session, ToolCall, Turn, TurnEnd, TurnState, get_session_state,
        get_turn_state, register_hook,
    };
    pub use serde_json::{Value, json};
}
