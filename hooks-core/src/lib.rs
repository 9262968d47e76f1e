//! The vocabulary of hookchain, with no I/O: hook points and their payloads, what hooks return,
//! what they know about their dispatch, the extensions hooks are grouped and configured by, the
//! tools extensions give the model ([`ToolSpec`]), the records `#[register_hook]`,
//! `#[register_tool]` and [`extension_config!`] collect at link time, the agents whose hook
//! dialects hookchain speaks ([`Dialect`]), and the "did you mean ..?" suggestions every part of
//! hookchain makes ([`suggest`]).
//!
//! Agents use these types through the `hookchain` facade; this crate is what a library of hooks
//! can depend on without pulling in the runtime.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod command;
mod config;
mod context;
mod convert;
mod dialect;
mod emit;
mod extension;
mod manifest;
mod point;
pub mod points;
pub mod project;
mod project_rule;
mod registration;
mod result;
mod state;
pub mod suggest;
mod tool;
pub mod wildcard;

pub use command::{
    CommandReply, check_name as check_command_name, parse_line as parse_command_line,
};
pub use config::{
    ConfigError, ConfigOrigin, ConfigSection, ConfigSource, PathSegment, ShortOrigin, json_kind,
};
pub use context::{Annotations, Attached, HookContext, Metadata};
pub use convert::ToolArgsError;
pub use dialect::{Dialect, UnknownDialect};
pub use emit::Emitted;
pub use extension::{
    ConfigDeclaration, DISABLED_BY_DEFAULT, Extension, config_declarations, validate_config,
};
pub use manifest::{Manifest, ManifestDeclaration, manifest_declarations};
pub use point::{HookPoint, IntoHookReturn, Observed, OnError, PointKind};
pub use points::{
    Compaction, CompactionDone, Injection, Level, LlmCall, LlmReply, Message, Notification,
    NotificationKind, Outbound, PermissionAsk, PermissionGrant, Role, SessionEndEvent,
    SessionResetEvent, SessionSource, SessionStartEvent, StopEvent, SubagentStopEvent, ToolBatch,
    ToolBlock, ToolCall, ToolResult, TurnEnd, TurnEndEvent, TurnStartEvent,
};
pub use project_rule::{DeclaredRules, ProjectRule, ProjectRules};
pub use registration::{BoxFuture, HookReturn};
pub use result::{Blocked, Flow, HookError, HookResult, Reason};
pub use state::{SessionState, State, StateError, TurnState};
pub use wildcard::{Decision, DispatchEvent, Pattern, PatternError};

// Tools: what a model is told of a tool, and the schemars its argument types derive with.
pub use schemars;
pub use tool::{ToolFailure, ToolSpec, parameters_of};

/// What `#[register_hook]` expands to refers to these; not a public API.
#[doc(hidden)]
pub mod __private {
    /// The table of built-in points (`points/table.rs`): `builtin_points!(callback)`.
    pub use crate::__builtin_points as builtin_points;
    /// The hook a dispatch runs, as the runtime's chains keep it; what a turn's dispatches hand
    /// their contexts.
    pub use crate::context::{RunningHook, TurnScope};
    /// The checks of a hook's signature, and the flat result of a compiled-in sync hook.
    pub use crate::point::{ContextArg, HookArg, HookOutput, point_kinds};
    /// `hook_point!`'s JSON of a point's value.
    pub use crate::point::{NoPayload, Payload, SerializePayload};
    /// The link-time record of a `#[register_hook]` fn, its handlers, and how to read them all.
    pub use crate::registration::{
        AsyncHandler, AsyncHookFn, Registration, SyncHandler, SyncHookFn, SyncReturn, backend,
        registrations,
    };
    /// The point type behind `#[register_hook("*")]`.
    pub use crate::wildcard::Wildcard;
    pub use inventory;
    #[cfg(feature = "linkme")]
    pub use linkme;
    /// For the types the table of built-in points names.
    pub use serde_json;

    /// The linkme slices that collect registrations and `extension_config!` declarations.
    #[cfg(feature = "linkme")]
    pub use crate::extension::CONFIG_DECLARATIONS;
    /// The linkme slice that collects `extension!` manifests.
    #[cfg(feature = "linkme")]
    pub use crate::manifest::MANIFEST_DECLARATIONS;
    pub use crate::manifest::ManifestDeclaration;
    #[cfg(feature = "linkme")]
    pub use crate::registration::REGISTRATIONS;

    /// Submits an `extension!` manifest to the compiled-in backend.
    #[cfg(not(feature = "linkme"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit_manifest {
        ($declaration:expr) => {
            $crate::__private::inventory::submit! { $declaration }
        };
    }

    /// Submits an `extension!` manifest to the compiled-in backend.
    #[cfg(feature = "linkme")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit_manifest {
        ($declaration:expr) => {
            #[$crate::__private::linkme::distributed_slice(
                $crate::__private::MANIFEST_DECLARATIONS
            )]
            #[linkme(crate = $crate::__private::linkme)]
            static __HOOKCHAIN_MANIFEST: $crate::__private::ManifestDeclaration = $declaration;
        };
    }

    pub use crate::__hookchain_submit_manifest as submit_manifest;

    /// Submits a registration to the compiled-in backend.
    #[cfg(not(feature = "linkme"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit {
        ($registration:expr) => {
            $crate::__private::inventory::submit! { $registration }
        };
    }

    /// Submits a registration to the compiled-in backend.
    #[cfg(feature = "linkme")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit {
        ($registration:expr) => {
            #[$crate::__private::linkme::distributed_slice($crate::__private::REGISTRATIONS)]
            #[linkme(crate = $crate::__private::linkme)]
            static __HOOKCHAIN_REGISTRATION: $crate::__private::Registration = $registration;
        };
    }

    /// Submits a config declaration to the compiled-in backend.
    #[cfg(not(feature = "linkme"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit_config {
        ($declaration:expr) => {
            $crate::__private::inventory::submit! { $declaration }
        };
    }

    /// Submits a config declaration to the compiled-in backend.
    #[cfg(feature = "linkme")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit_config {
        ($declaration:expr) => {
            #[$crate::__private::linkme::distributed_slice($crate::__private::CONFIG_DECLARATIONS)]
            #[linkme(crate = $crate::__private::linkme)]
            static __HOOKCHAIN_CONFIG_DECLARATION: $crate::ConfigDeclaration = $declaration;
        };
    }

    /// The linkme slice that collects `#[register_command]` fns.
    #[cfg(feature = "linkme")]
    pub use crate::command::COMMAND_REGISTRATIONS;
    /// Slash commands: the link-time record of a `#[register_command]` fn, its handler and the
    /// normalisation of what it returns.
    pub use crate::command::{
        AsyncCommandFn, CommandArgs, CommandFn, CommandRegistration, CommandReturn,
        IntoCommandReturn, SyncCommandFn, command_registrations,
    };

    /// Submits a command registration to the compiled-in backend.
    #[cfg(not(feature = "linkme"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit_command {
        ($registration:expr) => {
            $crate::__private::inventory::submit! { $registration }
        };
    }

    /// Submits a command registration to the compiled-in backend.
    #[cfg(feature = "linkme")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit_command {
        ($registration:expr) => {
            #[$crate::__private::linkme::distributed_slice(
                $crate::__private::COMMAND_REGISTRATIONS
            )]
            #[linkme(crate = $crate::__private::linkme)]
            static __HOOKCHAIN_COMMAND: $crate::__private::CommandRegistration = $registration;
        };
    }

    pub use crate::__hookchain_submit as submit;
    pub use crate::__hookchain_submit_command as submit_command;
    pub use crate::__hookchain_submit_config as submit_config;

    /// The linkme slice that collects tool registrations.
    #[cfg(feature = "linkme")]
    pub use crate::tool::TOOL_REGISTRATIONS;
    /// The link-time record of a `#[register_tool]` fn, its handlers, the checks of its
    /// signature, and how to read them all.
    pub use crate::tool::{
        AsyncToolClosure, AsyncToolFn, IntoToolReturn, SyncToolClosure, SyncToolFn, ToolArgs,
        ToolErrorMessage, ToolHandler, ToolOutput, ToolRegistration, ToolReturn, tool_args,
        tool_registrations,
    };

    /// Submits a tool registration to the compiled-in backend.
    #[cfg(not(feature = "linkme"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit_tool {
        ($registration:expr) => {
            $crate::__private::inventory::submit! { $registration }
        };
    }

    /// Submits a tool registration to the compiled-in backend.
    #[cfg(feature = "linkme")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __hookchain_submit_tool {
        ($registration:expr) => {
            #[$crate::__private::linkme::distributed_slice($crate::__private::TOOL_REGISTRATIONS)]
            #[linkme(crate = $crate::__private::linkme)]
            static __HOOKCHAIN_TOOL: $crate::__private::ToolRegistration = $registration;
        };
    }

    pub use crate::__hookchain_submit_tool as submit_tool;
}
