//! hookchain's built-in guards, ready to enable: compiled in, tested against real commands, and
//! tuned to block what is dangerous without blocking normal work.
//!
//! | extension | guards against | point(s) |
//! |---|---|---|
//! | [`destructive-commands`](DestructiveCommands) | irreversible data loss and credential exfiltration in shell tool calls | `intercept_tool_call` |
//! | [`protected-paths`](ProtectedPaths) | writes and edits to configured paths (real path logic: `..`, absolute/relative, symlinks), by write tools and by shell commands (`>`, `tee`, `sed -i`, `cp`, `rm`, …) | `intercept_tool_call` |
//! | [`workflow-guard`](WorkflowGuard) | writes before a valid plan exists (plan before implement): blocks write tools outside the plan and allowed paths, routes implementation requests to planning, tells the model the plan's status | `intercept_tool_call`, `transform_user_input`, `turn_start` |
//! | [`module-router`](ModuleRouter) | repository-wide exploration (`rg`, `grep -r`, `find`, `fd`, `ls -R`, `tree`, `Grep`/`Glob` at the root) before the turn has read the routing files (`ARCHITECTURE.md`, `docs/modules.md`) | `intercept_tool_call`, `after_tool_call` |
//! | [`git-checkpoint`](GitCheckpoint) | losing work: a snapshot of the working tree, in a shadow git repository, at each turn's start and before each write, restorable | `turn_start`, `intercept_tool_call`, `turn_end` |
//! | [`audit-log`](AuditLog) | nothing: it writes one JSON line per tool call (blocked ones included) to a file rotated by size, and optionally one per dispatch | `intercept_tool_call`, `after_tool_call` (wildcard: `points`) |
//! | [`metrics`](Metrics) | nothing: it counts dispatches per point, decision and tool, read with [`Metrics::snapshot`] | every point (wildcard `*`) |
//! | [`secrets`](Secrets) | API keys (its own formats and gitleaks' rule set), bearer tokens, private keys and seed phrases: blocked in user input, outbound messages and tool calls' arguments, masked in tool results and replies | `transform_user_input`, `outbound_message`, `intercept_tool_call`, `transform_tool_result`, `transform_response` |
//! | [`max-iterations`](MaxIterations) | runaway turns: the model call past N (25) in one turn is refused, and a `notification` fires | `before_llm_call` |
//! | [`stop-verifier`](StopVerifier) | unverified claims: a final reply that says files were written, tests pass or something was pushed/sent/deployed, with no successful tool call of this turn that did it, is sent back for a redo | `after_tool_call`, `on_stop` |
//!
//! And the context injectors ([`inject`]), which add context rather than block: `add-date`,
//! `add-environment-info`, `add-prompt-files`, `add-git-status`, `add-git-diff`,
//! `add-directory-listing`, `add-user-info`, `add-recent-commits`, each on `session_start`
//! (persistent) or `turn_start` (this turn only), as docker-agent's builtins of those names; and
//! `boot-md`, Hermes' startup instructions (`~/.hermes/BOOT.md`).
//!
//! # What it owns
//!
//! One module per guard. Each guard is an **extension, off by default**, whose hooks a registry
//! gets in one of two ways, never at link time (a guard collected by every registry would sit,
//! disabled, in every chain of every program):
//!
//! - one config entry, in `hookchain.yaml` (read by `hookchain::init()`, `hookchain test`, or
//!   any builder given a `Config`): a section named after a guard adds its hooks, and
//!   `enabled: true` turns it on (a project's file may enable a guard: that adds one, it
//!   switches nothing off):
//!
//!   ```yaml
//!   extensions:
//!     destructive-commands:
//!       enabled: true
//!       protected_branches: [main, "release/*"]
//!   ```
//!
//! - one line of Rust, on a builder ([`BuiltinsExt::builtin`] or [`BuiltinExtension::install`]): it adds the
//!   guard's hooks and a section from code with `enabled: true` and the guard's config (a
//!   config file loaded later is put over it key by key):
//!
//!   ```
//!   use hookchain::guards::{DestructiveCommands, BuiltinsExt};
//!   use hookchain::prelude::*;
//!
//!   let hooks = Hooks::builder().builtin(DestructiveCommands::default()).build().unwrap();
//!   let turn = hooks.session("doc").begin_turn();
//!   let call = ToolCall::new("bash", json!({"command": "sudo rm -rf --no-preserve-root /"}));
//!   assert!(turn.intercept_tool_call(call).is_blocked());
//!   ```
//!
//! Each guard's config is a typed struct (the guard's own type, [`DestructiveCommands`], ...),
//! declared to the registry with the guard's hooks, so a config that does not fit — a misspelt
//! field, a value of the wrong type — is refused when it is loaded, naming the extension, the
//! field, the file and the line. A section whose name is close to a guard's
//! (`destructive-command`) is an error with a "did you mean `destructive-commands`?".
//!
//! # The rules it keeps
//!
//! - A guard's hooks are added once per registry, however many times it is installed or named
//!   in config files ([`add_guard`] remembers it in the builder).
//! - A guard's extension name is the guard's alone: a hook or config type of the program's own
//!   under it is an error naming both when the registry is built
//!   (`HooksBuilder::claim_extension`), never a section and an `enabled` flag shared by both.
//! - A project's file may enable a guard and tighten it, never loosen it: each field of each
//!   built-in's config has a project rule (`project_rules.rs`: lists of protected things are
//!   joined, what scopes a guard or where it writes is the user's only, limits only go down),
//!   and a test fails on a field without one.
//! - A guard does no I/O but what its job needs (protected-paths resolves symlinks and lists
//!   the directories a shell command's glob names; an injector reads its files or runs git,
//!   with a time limit), never reaches the network, and never panics on input: its hooks run
//!   with `on_error = block`, so a guard that fails blocks rather than letting the action
//!   through.
//! - **A repository is untrusted input**: its `.git/config`, `.gitattributes`, files and
//!   symlinks are written by whoever wrote it. Every git command a guard or injector runs is
//!   built in one place, with each program-running setting of git switched off
//!   (`core.fsmonitor`, hooks, filters, diff drivers, text conversion, pagers, editors,
//!   signatures, transports, submodules) and `core.worktree` not followed; a file read from a
//!   project is opened without blocking and only if it is a regular file (a FIFO or a device
//!   is never read), capped in size and time; a relative `add-prompt-files` entry is read only
//!   inside the project, symlinks resolved; `audit-log` never writes through a symlink and
//!   `git-checkpoint` never reads `.git/info/exclude` through one nor keeps its shadow
//!   repositories in the project's `.git`.
//! - Every block says which guard blocked, what it saw and why, in one sentence the model (or
//!   the user) can act on. (An injector never blocks: what it cannot read is a note in its
//!   context, and its hooks warn when they fail.)

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod audit_log;
pub mod destructive_commands;
mod git;
pub mod git_checkpoint;
pub mod inject;
pub mod max_iterations;
pub mod metrics;
pub mod module_router;
mod project_file;
mod project_rules;
pub mod protected_paths;
pub mod secrets;
mod shell_call;
pub mod stop_verifier;
pub mod workflow_guard;

pub use audit_log::AuditLog;
pub use destructive_commands::DestructiveCommands;
pub use git_checkpoint::GitCheckpoint;
pub use inject::{
    AddDate, AddDirectoryListing, AddEnvironmentInfo, AddGitDiff, AddGitStatus, AddPromptFiles,
    AddRecentCommits, AddUserInfo, BootMd, InjectAt, Injector,
};
pub use max_iterations::MaxIterations;
pub use metrics::{Metrics, MetricsSnapshot};
pub use module_router::ModuleRouter;
pub use protected_paths::ProtectedPaths;
pub use secrets::Secrets;
pub use stop_verifier::{ClaimRule, StopVerifier};
pub use workflow_guard::WorkflowGuard;

use hookchain_core::OnError;
use hookchain_core::ProjectRules;
use hookchain_runtime::sections::Sections;
use hookchain_runtime::{HookOptions, HooksBuilder};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Every built-in guard, once: its name and what adds its hooks are read from this one list.
macro_rules! guards {
    ($($guard:ident),* $(,)?) => {
        /// The names of the built-in guards, as `extensions:` keys name them.
        pub const NAMES: &[&str] = &[$(<$guard as BuiltinExtension>::NAME),*];

        /// The function that adds the hooks of the guard `name`, off by default, and declares
        /// its config type with the project rule of each field.
        fn hooks_of(name: &str) -> Option<fn(HooksBuilder) -> HooksBuilder> {
            $(
                if name == <$guard as BuiltinExtension>::NAME {
                    return Some(|builder| {
                        <$guard as BuiltinExtension>::add_hooks(builder)
                            .config_type_with_rules::<$guard>(<$guard as BuiltinExtension>::NAME)
                    });
                }
            )*
            None
        }

        /// Each guard's name, the project rule of each field of its config, and its config by
        /// default: what the test that every field has a rule reads.
        #[cfg(test)]
        fn every_project_rule() -> Vec<(
            &'static str,
            &'static [(&'static str, hookchain_core::ProjectRule)],
            serde_json::Map<String, serde_json::Value>,
        )> {
            vec![$((
                <$guard as BuiltinExtension>::NAME,
                <$guard as ProjectRules>::PROJECT_RULES,
                <$guard as ProjectRules>::project_defaults(),
            )),*]
        }
    };
}

guards!(
    DestructiveCommands,
    ProtectedPaths,
    Secrets,
    WorkflowGuard,
    ModuleRouter,
    MaxIterations,
    StopVerifier,
    GitCheckpoint,
    AuditLog,
    Metrics,
    AddDate,
    AddEnvironmentInfo,
    AddPromptFiles,
    AddGitStatus,
    AddGitDiff,
    AddDirectoryListing,
    AddUserInfo,
    AddRecentCommits,
    BootMd,
);

/// The priority of the guards' hooks: before the agent's own hooks (0) and external ones (50).
pub const PRIORITY: i32 = -1000;

/// What every built-in shares, guard, injector or observer alike: an extension of hookchain's
/// own, with a typed config, off until enabled.
///
/// The value is its config: [`install`](BuiltinExtension::install) adds its hooks to a builder
/// and enables it with this config, as `extensions: {NAME: {enabled: true, ...}}` would. Its
/// config type says what a project's file may do to each of its fields ([`ProjectRules`]):
/// a project's file may add to a guard and tighten it, never loosen it.
pub trait BuiltinExtension:
    Serialize + DeserializeOwned + ProjectRules + Send + Sync + Sized + 'static
{
    /// The extension's name, as `hookchain.yaml` names it (`destructive-commands`).
    const NAME: &'static str;

    /// Adds the guard's hooks, off by default, and declares its config type. Use
    /// [`add_guard`], which adds them once.
    #[doc(hidden)]
    fn add_hooks(builder: HooksBuilder) -> HooksBuilder;

    /// Adds the guard's hooks to `builder` (once) and enables the guard with this config, set
    /// from code: a config file loaded later is put over it key by key.
    fn install(&self, builder: HooksBuilder) -> HooksBuilder {
        let mut section = match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        section.insert("enabled".to_owned(), serde_json::Value::Bool(true));
        add_guard(builder, Self::NAME)
            .sections(Sections::new().extension(Self::NAME, serde_json::Value::Object(section)))
    }
}

/// `builder.builtin(G::default())`: [`BuiltinExtension::install`] as a method of the builder.
pub trait BuiltinsExt {
    /// Adds `builtin`'s hooks and enables it with its config.
    fn builtin<G: BuiltinExtension>(self, builtin: G) -> Self;
}

impl BuiltinsExt for HooksBuilder {
    fn builtin<G: BuiltinExtension>(self, builtin: G) -> Self {
        builtin.install(self)
    }
}

/// The guards already added to a builder.
struct Added(Vec<&'static str>);

/// Adds the hooks of the built-in guard `name`, off by default, unless the builder has them
/// already; an unknown name adds nothing. A config loader calls it for every guard its files
/// name; [`BuiltinExtension::install`] calls it too.
pub fn add_guard(mut builder: HooksBuilder, name: &str) -> HooksBuilder {
    let Some(&name) = NAMES.iter().find(|n| **n == name) else {
        return builder;
    };
    let Some(add_hooks) = hooks_of(name) else {
        return builder;
    };
    match builder.attachment_mut::<Added>() {
        Some(added) if added.0.contains(&name) => return builder,
        Some(added) => added.0.push(name),
        None => builder = builder.attach(Added(vec![name])),
    }
    // The extension is the guard's alone: the program's own hooks under its name are an error.
    builder = builder.claim_extension(name, format!("the built-in guard `{name}`"));
    add_hooks(builder)
}

/// Adds every built-in guard, each off by default (for `hookchain test`, which tries them).
pub fn add_all(builder: HooksBuilder) -> HooksBuilder {
    NAMES.iter().fold(builder, |b, name| add_guard(b, name))
}

/// The guard a config section's name means: the guard of that name, or the guard it is a
/// near miss of (`destructive-command`), so that the registry knows the guard and the section
/// is refused with a "did you mean".
pub fn guard_for_section(name: &str) -> Option<&'static str> {
    NAMES
        .iter()
        .copied()
        .find(|n| *n == name)
        .or_else(|| hookchain_core::suggest::closest(name, NAMES.iter().copied()))
}

/// The options of a guard's hook: named after the guard, in its extension, before other hooks,
/// blocking when it fails.
fn hook_options(name: &'static str) -> HookOptions {
    HookOptions::new(name)
        .extension(name)
        .priority(PRIORITY)
        .on_error(OnError::Block)
}

/// The reason a guard blocks with: `guard: what`, one sentence.
fn reason(guard: &str, what: impl std::fmt::Display) -> String {
    format!("{guard}: {what}")
}
