//! The project rule of every field of every built-in: what a project's file may do to it.
//!
//! # What it owns
//!
//! One [`ProjectRules`] implementation per built-in's config type, all in this one table, so
//! that the rule of each field is read in one place (the guide's chapter on config files shows
//! the same table to users). A registry applies them to every key a project's file writes
//! (see [`hookchain_core::ProjectRule`] for what each rule does).
//!
//! # The rules it keeps
//!
//! - A list of protected or blocked things is a **union**: a project adds to the user's list,
//!   or to the guard's default, never replaces it.
//! - What scopes a guard (the tools and args it watches, its exemptions, its project
//!   directory), where it logs or keeps its data, and what a project could loosen it with
//!   in either direction (a checkpoint's size limits and time limit) is **user only**.
//! - A limit may only be lowered, a minimum or a switch that tightens only raised, a choice
//!   among levels (secrets' `off`, `mask`, `block`) only made stronger.
//! - Files an injector reads are **inside the project** when a project's file names them, and
//!   how much of them it adds is **user only** (a project could cut the user's own files to a
//!   byte).
//! - What cannot weaken (a message, where an injector's context goes) is **free**.
//! - Every field of every built-in has a rule: a test reads each built-in's default config and
//!   fails on a field with none, so a new field cannot be forgotten.

use serde::Serialize;
use serde_json::{Map, Value};

use hookchain_core::ProjectRule::{Free, InsideProject, Lower, Raise, Stronger, Union, UserOnly};
use hookchain_core::ProjectRules;

use crate::{
    AddDate, AddDirectoryListing, AddEnvironmentInfo, AddGitDiff, AddGitStatus, AddPromptFiles,
    AddRecentCommits, AddUserInfo, AuditLog, BootMd, DestructiveCommands, GitCheckpoint,
    MaxIterations, Metrics, ModuleRouter, ProtectedPaths, Secrets, StopVerifier, WorkflowGuard,
};

/// What the `secrets` guard does with a secret at a point, weakest first.
const SECRET_ACTIONS: &[&str] = &["off", "mask", "block"];

/// The fields of `T::default()`, as a section writes them: what a union adds to and a limit is
/// compared with.
fn defaults_of<T: Default + Serialize>() -> Map<String, Value> {
    match serde_json::to_value(T::default()) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// `impl ProjectRules for TYPE` with these fields' rules, and the type's `Default` as the
/// defaults.
macro_rules! project_rules {
    ($($ty:ty { $($field:literal: $rule:expr),* $(,)? })*) => {
        $(
            impl ProjectRules for $ty {
                const PROJECT_RULES: &'static [(&'static str, hookchain_core::ProjectRule)] =
                    &[$(($field, $rule)),*];

                fn project_defaults() -> Map<String, Value> {
                    defaults_of::<Self>()
                }
            }
        )*
    };
}

project_rules! {
    DestructiveCommands {
        "shell_tools": UserOnly,
        "command_keys": UserOnly,
        "protected_branches": Union,
        "on_unknown": Stronger(crate::destructive_commands::OnUnknown::LEVELS),
        "block_pipe_to_shell": Raise,
        "git_discards": Raise,
        "delete_outside_temp": Raise,
    }
    ProtectedPaths {
        "paths": Union,
        "project_dir": UserOnly,
        "write_tools": UserOnly,
        "path_keys": UserOnly,
        "patch_keys": UserOnly,
        // A project may name more shell tools to watch, never fewer.
        "shell_tools": Union,
        "command_keys": UserOnly,
        "workdir_keys": UserOnly,
    }
    Secrets {
        "transform_user_input": Stronger(SECRET_ACTIONS),
        "outbound_message": Stronger(SECRET_ACTIONS),
        "intercept_tool_call": Stronger(SECRET_ACTIONS),
        "transform_tool_result": Stronger(SECRET_ACTIONS),
        "transform_response": Stronger(SECRET_ACTIONS),
        "allow": UserOnly,
    }
    WorkflowGuard {
        "plan_path": UserOnly,
        "project_dir": UserOnly,
        "required_headings": Union,
        "min_plan_chars": Raise,
        "blocked_tools": UserOnly,
        "allowed_paths": UserOnly,
        "path_keys": UserOnly,
        "patch_keys": UserOnly,
        "shell_writes": Raise,
        "shell_tools": UserOnly,
        "command_keys": UserOnly,
        "route_requests": Raise,
        "request_patterns": Union,
        "planning_instruction": Free,
        "no_plan_context": Free,
        "plan_context": Free,
    }
    ModuleRouter {
        "routing_files": UserOnly,
        "require": Stronger(&["any", "all"]),
        "project_dir": UserOnly,
        "read_tools": UserOnly,
        "path_keys": UserOnly,
        "read_commands": UserOnly,
        "search_tools": UserOnly,
        "search_path_keys": UserOnly,
        "shell_tools": UserOnly,
        "command_keys": UserOnly,
        "workdir_keys": UserOnly,
    }
    MaxIterations {
        "max": Lower,
    }
    StopVerifier {
        "max_redos": Raise,
        "shell_tools": UserOnly,
        "command_keys": UserOnly,
        "rules": UserOnly,
    }
    GitCheckpoint {
        "turn_start": Raise,
        "tools": Union,
        "turn_end": Raise,
        "project_dir": UserOnly,
        "dir": UserOnly,
        "max_file_bytes": UserOnly,
        "max_total_bytes": UserOnly,
        "timeout_ms": UserOnly,
        "required": Raise,
    }
    AuditLog {
        "path": UserOnly,
        "max_bytes": UserOnly,
        "keep": UserOnly,
        "redact_args": UserOnly,
        "points": Union,
    }
    Metrics {}
    AddDate {
        "point": Free,
    }
    AddEnvironmentInfo {
        "point": Free,
        "project_dir": UserOnly,
        "timeout_ms": Lower,
    }
    AddPromptFiles {
        "files": InsideProject,
        // The files are the user's as much as the project's (their rules): a project's
        // smaller limit would cut them short, to a byte.
        "max_bytes": UserOnly,
        "point": Free,
        "project_dir": UserOnly,
    }
    AddGitStatus {
        "point": Free,
        "project_dir": UserOnly,
        "max_bytes": Lower,
        "timeout_ms": Lower,
    }
    AddGitDiff {
        "point": Free,
        "full": Free,
        "max_bytes": Lower,
        "project_dir": UserOnly,
        "timeout_ms": Lower,
    }
    AddDirectoryListing {
        "depth": Lower,
        "max_entries": Lower,
        "hidden": Free,
        "point": Free,
        "project_dir": UserOnly,
    }
    AddUserInfo {
        "point": Free,
    }
    AddRecentCommits {
        "count": Lower,
        "point": Free,
        "project_dir": UserOnly,
        "timeout_ms": Lower,
    }
    BootMd {
        // Which file is read, and how much of it, are the user's: a project's file cannot
        // point the hook at another of the user's files.
        "path": UserOnly,
        "max_bytes": UserOnly,
        "point": Free,
    }
}

#[cfg(test)]
mod tests {
    /// Every field of every built-in's config (as its default writes it) has a project rule, and
    /// every rule names a field: a field added to a guard without one fails here.
    #[test]
    fn every_field_of_every_builtin_has_a_project_rule() {
        let mut missing = Vec::new();
        let mut unknown = Vec::new();
        let every = crate::every_project_rule();
        assert_eq!(every.len(), crate::NAMES.len());
        for (guard, rules, defaults) in every {
            for field in defaults.keys() {
                if !rules.iter().any(|(name, _)| name == field) {
                    missing.push(format!("{guard}.{field}"));
                }
            }
            for (name, _) in rules {
                if !defaults.contains_key(*name) {
                    unknown.push(format!("{guard}.{name}"));
                }
            }
            let mut names: Vec<&str> = rules.iter().map(|(name, _)| *name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(
                names.len(),
                rules.len(),
                "a field of `{guard}` has two rules"
            );
        }
        assert!(
            missing.is_empty(),
            "fields with no project rule: {missing:?}"
        );
        assert!(unknown.is_empty(), "rules for no field: {unknown:?}");
    }
}
