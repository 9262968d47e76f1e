//! The hookchain runtime: the registry and its priority chains, sync and async dispatch,
//! per-turn and per-session state, the [`Session`]/[`Turn`] driver, and the [`Sections`] that
//! configure the extensions hooks are grouped by. It does no file, process or network I/O.
//!
//! Agents use it through the `hookchain` facade. The chain rules are documented once, in
//! [`chain`].

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod chain;
mod exec;
mod registry;
pub mod sections;
mod session;
mod state;
mod trace;

pub use chain::{HookFailure, Outcome};
pub use registry::{
    BUILDER_EXTENSION, BuildError, BuildMode, BuildStep, DEFAULT_ASYNC_TIMEOUT,
    DEFAULT_OBSERVER_TIMEOUT, DEFAULT_STOP_REDO_CAP, Description, ExtensionError, HookInfo,
    HookOptions, HookSource, Hooks, HooksBuilder, SetGlobalError,
};
pub use registry::{
    CommandInfo, CommandOptions, EXTENSIONS_COMMAND_EXTENSION, HOOKS_COMMAND_EXTENSION,
};
pub use sections::Sections;
pub use session::{MAX_EMIT_DEPTH, MAX_EVENTS_PER_CALL, Session, Stop, ToolRun, Turn};

/// What the facade's `__private` hands `#[register_hook]`'s expansion; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::session::{Firer, firer};
}
pub use state::{
    SessionState, State, StateError, TurnState, evict_idle_sessions, get_session_state,
    get_turn_state, live_sessions, set_idle_timeout,
};
