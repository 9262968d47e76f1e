//! The registry: every hook the agent has, and one sorted chain per point.
//!
//! # What it owns
//!
//! [`Hooks`] holds the hooks collected at link time by `#[register_hook]` and the hooks added
//! through [`HooksBuilder`] (closures), and builds from them one [`Chain`](crate::chain) per
//! point. Chains of the built-in points are built when the registry is; chains of user-defined
//! points are built the first time their point is dispatched. After that a chain is only read:
//! a dispatch takes no lock for built-in points.
//!
//! One file per job, each with the rules it keeps:
//!
//! - `info`: what a hook is, as listings show it ([`HookInfo`], [`HookSource`]);
//! - `error`: what can go wrong building a registry or switching its extensions;
//! - `builder`: what [`HooksBuilder`] collects (hooks, options, sections, steps, notices);
//! - `required`: required hooks and extensions, and the stand-ins of the missing ones;
//! - `attachments`: what layered crates keep with the builder and then the registry;
//! - `chains`: how the chain of a point is built from the hooks on it;
//! - `build`: how a builder becomes a registry, and what a build refuses;
//! - `hooks`: the registry a [`Hooks`] shares, and the lookup of a point's chain;
//! - `extensions`: one extension per name, enabled, disabled and configured at runtime;
//! - `global`: the program's registry;
//! - `dispatch`: a dispatch straight on the registry;
//! - `manifests`: the checks of extensions' manifests, and the manifest each one keeps;
//! - `describe`: the listing of every hook;
//! - `tools`: the tools extensions give the model, one per name;
//! - `commands`: the slash commands, and how they are added;
//! - `builtin_commands`: `/hooks` and `/extensions`.

mod attachments;
mod build;
mod builder;
mod builtin_commands;
mod chains;
pub(crate) mod commands;
mod describe;
mod dispatch;
mod error;
mod extensions;
mod global;
mod hooks;
mod info;
mod manifests;
mod required;
mod tools;

pub use builder::{
    BUILDER_EXTENSION, BuildMode, BuildStep, DEFAULT_ASYNC_TIMEOUT, DEFAULT_OBSERVER_TIMEOUT,
    DEFAULT_STOP_REDO_CAP, HookOptions, HooksBuilder,
};
pub use commands::{
    CommandInfo, CommandOptions, EXTENSIONS_COMMAND_EXTENSION, HOOKS_COMMAND_EXTENSION,
};
pub use describe::Description;
pub use error::{BuildError, ExtensionError, SetGlobalError};
pub use hooks::Hooks;
pub(crate) use hooks::Registry;
pub use info::{HookInfo, HookSource};
pub(crate) use tools::{Tool, quoted};
