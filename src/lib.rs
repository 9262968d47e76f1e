//! # hookchain
//!
//! Hooks for AI agents. An agent loops — user message → model call → tool calls → model call →
//! … → reply — and hookchain lets its author attach hooks to every step: observe it, **rewrite**
//! its input, **block** it with a reason the model or the user sees, or **inject** context.
//!
//! ```rust,standalone_crate
//! use hookchain::{HookContext, prelude::*};
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
//! [`register_hook`] collects a fn at link time and checks its signature against the point at
//! compile time; [`Hooks`] builds one priority-ordered chain per point, written once in
//! [`chain`]; [`Session`] and [`Turn`] fire them. [`Hooks::global`] never reads a file: a binary
//! that wants `hookchain.yaml` and its external hooks calls `hookchain::init()` (feature `config`)
//! first.
//!
//! An extension gives the model tools too: [`register_tool`] collects a fn the model can call,
//! written with its path (rustc reserves the bare `#[register_tool]` for an attribute of its
//! own); its arguments' JSON Schema comes from [`schemars`], re-exported so the tool's crate
//! needs none of its own. [`Session::tools`] lists the tools ([`ToolSpec`], with the shapes
//! OpenAI, Anthropic and MCP take), and [`Turn::call_tool`] runs a call through the same chains
//! as the agent's own tools, so the guards apply:
//!
//! ```rust,standalone_crate
//! use hookchain::{HookContext, ToolSpec, prelude::*};
//! use hookchain::schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! /// Where to look.
//! #[derive(Deserialize, JsonSchema)]
//! #[schemars(crate = "hookchain::schemars")]
//! struct Lookup {
//!     /// The word to look up.
//!     word: String,
//! }
//!
//! /// Looks a word up in the glossary.
//! #[hookchain::register_tool(extension = "glossary")]
//! fn define(args: Lookup, _cx: &HookContext) -> Result<String, String> {
//!     match args.word.as_str() {
//!         "hook" => Ok("a fn run at a step of the agent loop".to_owned()),
//!         other => Err(format!("`{other}` is not in the glossary")),
//!     }
//! }
//!
//! let session = Hooks::global().session("doc-tools");
//! let tools: Vec<ToolSpec> = session.tools();
//! assert_eq!(tools[0].to_openai()["function"]["name"], "define");
//! let turn = session.begin_turn();
//! let run = turn.call_tool(ToolCall::new("define", json!({"word": "hook"})));
//! assert_eq!(run.result.tool_response, json!("a fn run at a step of the agent loop"));
//! turn.end(TurnEnd::Normal);
//! ```
//!
//! Slash commands ([`register_command`], `Session::command`), typed events between extensions
//! (`HookContext::emit`) and manifests ([`extension!`]) complete an extension: the guide's
//! [chapter on extensions](crate::guide::extensions) has the rules.
//!
//! The [`guide`] walks through it all, one chapter per topic: writing hooks, the points, the
//! driver, state, config and consent, other agents' hooks, the command line, the built-in
//! guards, async, frameworks, the features, tracing, and extensions.
//!
//! # Features
//!
#![doc = document_features::document_features!()]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub use hookchain_core::CommandReply;
pub use hookchain_core::{
    Blocked, ConfigError, Decision, Dialect, DispatchEvent, Flow, HookContext, HookPoint,
    HookResult, OnError, Pattern, PointKind, TurnEnd, extension_config, hook_point,
};
pub use hookchain_macros::{extension, register_command, register_hook};
pub use hookchain_runtime::{
    HookOptions, Hooks, HooksBuilder, Outcome, Session, SessionState, Stop, ToolRun, Turn,
    TurnState, get_session_state, get_turn_state,
};
pub use serde_json::Value;

// Tools extensions give the model: `#[register_tool]`, what the model is told of a tool, and the
// schemars 1.x its argument types derive `JsonSchema` with (`#[schemars(crate =
// "hookchain::schemars")]`), so a tool's crate needs no schemars of its own.
pub use hookchain_core::{ToolSpec, schemars};
pub use hookchain_macros::register_tool;

#[cfg(feature = "config")]
pub use hookchain_config::init;

/// The built-in hook points, their payloads, and the catalog of their names.
///
/// Each point is a unit type implementing [`HookPoint`] (`InterceptToolCall`,
/// …); the agent fires it with a [`Turn`] method of the same name, and a hook takes
/// its payload (`&ToolCall`, …). [`catalog`](points::catalog) and [`resolve`](points::resolve)
/// give every point's canonical name, kind and other agents' names for it; the table of points
/// is in the guide's [chapter on points](crate::guide::points).
pub mod points {
    pub use hookchain_core::points::*;
    pub use hookchain_core::{
        Compaction, CompactionDone, Injection, Level, LlmCall, LlmReply, Message, Notification,
        Outbound, Role, SessionEndEvent, SessionResetEvent, SessionSource, SessionStartEvent,
        StopEvent, SubagentStopEvent, ToolArgsError, ToolCall, ToolResult, TurnEnd, TurnEndEvent,
    };
}

/// The chain rules, and what a dispatch gives back.
pub mod chain {
    pub use hookchain_core::Emitted;
    pub use hookchain_core::{
        Annotations, Attached, Blocked, Flow, HookError, Metadata, Observed, Reason,
    };
    #[doc(inline)]
    pub use hookchain_runtime::chain::*;
    pub use hookchain_runtime::{MAX_EMIT_DEPTH, MAX_EVENTS_PER_CALL};
}

/// The registry: how it is built, what it lists, its extensions and their config sections.
pub mod registry {
    pub use hookchain_core::{BoxFuture, ConfigOrigin, ConfigSection, ConfigSource, PathSegment};
    pub use hookchain_core::{DeclaredRules, ProjectRule, ProjectRules};
    pub use hookchain_core::{Extension, Manifest};
    pub use hookchain_core::{ToolSpec, parameters_of};
    pub use hookchain_core::{check_command_name, parse_command_line};
    pub use hookchain_runtime::sections::Sections;
    pub use hookchain_runtime::{
        BUILDER_EXTENSION, BuildError, BuildMode, BuildStep, DEFAULT_ASYNC_TIMEOUT,
        DEFAULT_OBSERVER_TIMEOUT, DEFAULT_STOP_REDO_CAP, Description, ExtensionError, HookInfo,
        HookSource, SetGlobalError,
    };
    pub use hookchain_runtime::{
        CommandInfo, CommandOptions, EXTENSIONS_COMMAND_EXTENSION, HOOKS_COMMAND_EXTENSION,
    };
}

/// Per-turn and per-session state.
pub mod state {
    pub use hookchain_runtime::{
        SessionState, State, StateError, TurnState, evict_idle_sessions, get_session_state,
        get_turn_state, live_sessions, set_idle_timeout,
    };
}

#[doc(inline)]
pub use hookchain_core::project;

/// Config files: `hookchain.yaml`, Claude Code settings and plugin `hooks.json`, docker-agent
/// agent files, Hermes `config.yaml`, gateway hooks and Python plugins, Starchild
/// `shell_hooks.yaml`, Codex, Gemini CLI, Cursor and GitHub Copilot hook files; and [`init`],
/// which reads them into the global registry.
#[cfg(feature = "config")]
pub mod config {
    #[doc(inline)]
    pub use hookchain_config::{
        CONFIG_FILE, Config, ConfigBuilderExt, ConfigHooksExt, Init, InitError, InitReport, claude,
        copilot, docker_agent, hermes, hermes_python, init, native,
    };
    // Cursor's `hooks.json`.
    #[doc(inline)]
    pub use hookchain_config::cursor;
    #[doc(inline)]
    pub use hookchain_config::{codex, gemini};
    // External extensions (`NAME/EXTENSION.yaml`) and the master switch.
    #[doc(inline)]
    pub use hookchain_config::{
        ExtensionScope, ExternalExtension, ExternalTool, external_extension, switch, switch_off_all,
    };
}

/// Consent: configured hooks run only once approved, pinned to their scripts' content.
#[cfg(feature = "config")]
pub mod consent {
    #[doc(inline)]
    pub use hookchain_config::consent::*;
}

/// External hooks: scripts, long-lived workers and HTTP endpoints in the same chains.
#[cfg(feature = "external")]
pub mod external {
    #[doc(inline)]
    pub use hookchain_external::*;
}

/// The `hookchain` command line, to mount in an agent (`cli::run_with`).
#[cfg(feature = "cli")]
pub mod cli {
    #[doc(inline)]
    pub use hookchain_cli::*;
}

/// The built-in guards (`destructive-commands`, `protected-paths`, `secrets`, `workflow-guard`,
/// `module-router`, `max-iterations`, `stop-verifier`, `git-checkpoint`), the observers
/// `audit-log` and `metrics` ([`Metrics::snapshot`](hookchain_guards::Metrics::snapshot)), and context
/// injectors (`add-date`, `add-git-status`, `add-prompt-files`, …: [`inject`](hookchain_guards::inject)),
/// each an extension off by default, enabled by `extensions: {NAME: {enabled: true, ...}}` in
/// `hookchain.yaml` or one line of Rust (`builder.builtin(DestructiveCommands::default())`).
#[cfg(feature = "guards")]
pub mod guards {
    #[doc(inline)]
    pub use hookchain_guards::*;
}

/// Adapters that run the hooks inside Rust agent frameworks.
#[cfg(feature = "rig")]
pub mod adapters {
    /// rig-agent: [`HookchainHook`](rig::HookchainHook), one `AgentHook` that fires every
    /// point at the rig event that matches it. The whole integration is
    /// `.add_hook(HookchainHook::new(hooks.session(id)))` on the agent's builder; the tools
    /// extensions give the model are `.dynamic_tools(tools(&session))`
    /// ([`tools`](rig::tools)).
    pub mod rig {
        #[doc(inline)]
        pub use hookchain_rig::*;
    }
}

/// What `#[register_hook]`, `hook_point!` and `extension_config!` expand to refers to these;
/// not a public API: it changes in any release.
#[doc(hidden)]
pub mod __private {
    pub use hookchain_core::__private::*;
    pub use hookchain_core::{
        BoxFuture, ConfigDeclaration, HookReturn, IntoHookReturn, config_declarations,
    };
    /// The runtime's dispatch of a user-defined point's events, in `#[register_hook]`'s record.
    pub use hookchain_runtime::__private::firer;
}

/// The names an agent or a hook needs, in one import: `use hookchain::prelude::*;`.
///
/// It exports nothing that rig-agent's prelude exports too, so a program can glob-import both
/// (a name in two globs is an error where it is used): the hook context is imported by name
/// (`use hookchain::{HookContext, prelude::*};`), and the conversation's `Message` is
/// `hookchain::points::Message`.
pub mod prelude {
    pub use crate::ToolSpec;
    #[cfg(feature = "config")]
    pub use crate::config::{ConfigBuilderExt as _, ConfigHooksExt as _};
    #[cfg(feature = "external")]
    pub use crate::external::ExternalHooksExt as _;
    #[cfg(feature = "guards")]
    pub use crate::guards::BuiltinsExt as _;
    pub use crate::points::{Injection, LlmCall, ToolCall, ToolResult};
    pub use crate::{
        Blocked, ConfigError, Flow, HookPoint, HookResult, Hooks, OnError, PointKind, Session,
        Stop, Turn, TurnEnd, TurnState, get_session_state, get_turn_state, register_hook,
    };
    pub use serde_json::{Value, json};
}

/// The guide: everything an agent's author needs, one chapter per topic. Every Rust block in it is
/// compiled and run by `cargo test -p hookchain --doc`.
pub mod guide {
    #[doc = include_str!("../docs/guide/01-hooks.md")]
    pub mod hooks {}

    #[doc = include_str!("../docs/guide/02-points.md")]
    #[doc = include_str!("../docs/guide/points-table.md")]
    pub mod points {}

    #[doc = include_str!("../docs/guide/03-driver.md")]
    pub mod driver {}

    #[doc = include_str!("../docs/guide/04-state.md")]
    pub mod state {}

    #[cfg(feature = "config")]
    #[doc = include_str!("../docs/guide/05-config.md")]
    pub mod config {}

    #[cfg(feature = "config")]
    #[doc = include_str!("../docs/guide/06-dialects.md")]
    #[doc = include_str!("../docs/guide/dialects-table.md")]
    pub mod dialects {}

    #[cfg(feature = "cli")]
    #[doc = include_str!("../docs/guide/07-cli.md")]
    pub mod cli {}

    #[cfg(feature = "guards")]
    #[doc = include_str!("../docs/guide/08-guards.md")]
    pub mod guards {}

    #[doc = include_str!("../docs/guide/09-async.md")]
    pub mod async_hooks {}

    #[doc = include_str!("../docs/guide/10-frameworks.md")]
    pub mod frameworks {}

    #[doc = include_str!("../docs/guide/11-features.md")]
    pub mod features {}

    #[doc = include_str!("../docs/guide/12-observability.md")]
    pub mod observability {}

    #[doc = include_str!("../docs/guide/13-extensions.md")]
    pub mod extensions {}
}

/// The Rust blocks of README.md, compiled and run as doc tests.
#[cfg(all(doctest, feature = "config"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
