//! The hookchain runtime: the registry and its priority chains, sync and async dispatch,
//! per-turn and per-session state, the [`Session`]/[`Turn`] driver, and the [`Config`] of the
//! extensions hooks are grouped by.
//!
//! Agents use it through the `hookchain` facade. The chain rules are documented once, in
//! [`chain`].

#![warn(missing_docs)]

pub mod chain;
pub mod cli;
pub mod config;
pub mod consent;
mod exec;
pub mod external;
mod registry;
mod session;
mod state;

pub use chain::{HookFailure, Outcome};
pub use config::{CONFIG_FILE, Config};
pub use registry::{
    BUILDER_EXTENSION, BuildError, DEFAULT_ASYNC_TIMEOUT, DEFAULT_OBSERVER_TIMEOUT,
    DEFAULT_STOP_REDO_CAP, Description, ExtensionError, HookInfo, HookOptions, HookSource, Hooks,
    HooksBuilder,
};
pub use session::{Session, Stop, ToolRun, Turn};
pub use state::{
    SessionState, State, StateError, TurnState, evict_idle_sessions, get_session_state,
    get_turn_state, live_sessions, set_idle_timeout,
};
