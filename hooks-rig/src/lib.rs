//! hookchain inside [rig-agent](https://docs.rs/rig-agent/0.44.0): the whole integration is
//! one line of the agent's builder,
//!
//! ```text
//! AgentBuilder::new(model) … .add_hook(HookchainHook::new(Hooks::global().session(id))).build()
//! ```
//!
//! and the program's ordinary `#[register_hook]` fns then run at every step of every run of
//! that agent. Agents reach it as `hookchain::adapters::rig` (the facade's `rig` feature).
//!
//! # What it owns
//!
//! - [`HookchainHook`] (in `hook.rs`): the rig `AgentHook` that maps a rig run onto one
//!   hookchain turn and fires each point at the rig event that matches it. Its docs hold the
//!   table of events and points, the points no rig run fires and why ([`FIRED`],
//!   [`NOT_FIRED`]), and everything the mapping cannot carry.
//! - [`tools`] (in `tools.rs`): the tools a session offers (`#[register_tool]` fns and
//!   `HooksBuilder::tool`), as rig tools for `AgentBuilder::dynamic_tools`, each call run through
//!   the session's hooks.
//! - The conversions between rig's messages, tool calls and tool results and hookchain's
//!   payloads (in `convert.rs`): hooks see text; media are kept, never shown to them.
//!
//! # The rules it keeps
//!
//! - One rig run (one `agent.prompt(..)`) is one hookchain [`Turn`](hookchain_runtime::Turn): two
//!   runs of one agent at once have two turns, each with its own state.
//! - Every point fires through its `_async` method inside rig's task: `async fn` hooks that
//!   await tokio work, and nothing blocks an executor thread.
//! - A hook that blocks stops what it guards: the run (`transform_user_input`, `turn_start`,
//!   `after_tool_batch`, `before_llm_call`, `transform_response`), or the tool call, which then
//!   never runs (`intercept_tool_call`).
//! - No hook is silently absent: every point rig has a moment for fires, and a hook on a point
//!   it has none for is reported (logged when the adapter is made, told to the hooks of
//!   `notification` at its first run, listed by [`HookchainHook::describe`]).
//!
//! # Versions
//!
//! Built against rig-agent `=0.44.0` (re-exported as [`rig_agent`], so the agent can name the
//! very version the adapter implements), which needs rustc 1.95; rig-agent 0.45 and later
//! need 1.97.1.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod convert;
mod hook;
mod tools;

pub use hook::{FIRED, HookchainHook, NOT_FIRED, turn_end};
pub use rig_agent;
pub use tools::tools;
