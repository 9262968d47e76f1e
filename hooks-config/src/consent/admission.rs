//! Admission: which configured hooks run when a registry is built — each approved and unchanged,
//! and each the [`ConsentPolicy`] approves (the flag, the environment, the user's config, or the
//! user when asked) — and the [`ConsentReport`] of what was let run or skipped, and why.
//!
//! # The rules it keeps
//!
//! - A hook that nothing approves is skipped, never run: a warning naming it, its file and line
//!   and why is logged, and the report lists it.
//! - What the policy approves is recorded in the allowlist, so the next run does not ask again;
//!   an approval that cannot be saved is an error of the report, and the hook still runs.
//! - The order of the hooks is kept.

use std::fmt;

use hookchain_core::ConfigOrigin;
use hookchain_external::ExternalHook;

use super::allowlist::{Consent, ConsentError, ConsentStatus};
use super::pin::origin_text;
use super::prompt::{Prompt, TerminalPrompt};

/// The environment variable that approves every hook when it is `1`, `true` or `yes`.
pub const ACCEPT_HOOKS_ENV: &str = "HOOKCHAIN_ACCEPT_HOOKS";

/// How configured hooks that are not approved get approved (see the [module docs](crate::consent)).
#[derive(Default)]
pub struct ConsentPolicy {
    accept_flag: bool,
    env: bool,
    config: bool,
    prompt: Option<Box<dyn Prompt + Send>>,
}

impl fmt::Debug for ConsentPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConsentPolicy")
            .field("accept_hooks", &self.accept_flag)
            .field("env", &self.env)
            .field("config", &self.config)
            .field("prompt", &self.prompt.is_some())
            .finish()
    }
}

impl ConsentPolicy {
    /// Nothing approved beyond the allowlist, and nobody asked: a non-interactive run.
    pub fn new() -> Self {
        ConsentPolicy::default()
    }

    /// What the process says: `HOOKCHAIN_ACCEPT_HOOKS`, and a [`TerminalPrompt`] when stdin is
    /// a terminal. A program asks for the prompt; [`init`](crate::init) and a builder without
    /// [`consent`](crate::ConfigBuilderExt::consent) ask nobody.
    pub fn from_env() -> Self {
        let mut policy = ConsentPolicy::from_lookup(|name| std::env::var(name).ok());
        if let Some(prompt) = TerminalPrompt::stdio() {
            policy.prompt = Some(Box::new(prompt));
        }
        policy
    }

    /// `HOOKCHAIN_ACCEPT_HOOKS` as `lookup` gives it (`1`, `true` or `yes`, in any case,
    /// approve every hook), and nobody asked.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let env = lookup(ACCEPT_HOOKS_ENV).is_some_and(|v| {
            matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes")
        });
        ConsentPolicy {
            env,
            ..ConsentPolicy::default()
        }
    }

    /// Approves every hook, as `--accept-hooks` does.
    pub fn accept_hooks(mut self, accept: bool) -> Self {
        self.accept_flag = accept;
        self
    }

    /// Approves every hook, as `hooks_auto_accept: true` in the user's config does.
    pub fn auto_accept(mut self, accept: bool) -> Self {
        self.config = accept;
        self
    }

    /// Asks `prompt` about each hook that is not approved (when nothing approves it first).
    pub fn prompt(mut self, prompt: impl Prompt + Send + 'static) -> Self {
        self.prompt = Some(Box::new(prompt));
        self
    }

    /// Asks nobody: hooks that are not approved are skipped.
    pub fn no_prompt(mut self) -> Self {
        self.prompt = None;
        self
    }

    /// What approves every hook without asking, if anything.
    fn accepted_by(&self) -> Option<AcceptedBy> {
        if self.accept_flag {
            Some(AcceptedBy::AcceptFlag)
        } else if self.env {
            Some(AcceptedBy::Env)
        } else if self.config {
            Some(AcceptedBy::Config)
        } else {
            None
        }
    }
}

/// Why a hook was let run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AcceptedBy {
    /// It was in the allowlist, unchanged.
    Allowlist,
    /// `--accept-hooks` ([`ConsentPolicy::accept_hooks`]).
    AcceptFlag,
    /// `HOOKCHAIN_ACCEPT_HOOKS`.
    Env,
    /// `hooks_auto_accept: true`.
    Config,
    /// The user said yes.
    Prompt,
}

impl fmt::Display for AcceptedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AcceptedBy::Allowlist => "the allowlist",
            AcceptedBy::AcceptFlag => "--accept-hooks",
            AcceptedBy::Env => ACCEPT_HOOKS_ENV,
            AcceptedBy::Config => "hooks_auto_accept",
            AcceptedBy::Prompt => "the user",
        })
    }
}

/// A hook let run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmittedHook {
    /// The hook's name.
    pub name: String,
    /// Its point.
    pub point: &'static str,
    /// Why it runs.
    pub accepted_by: AcceptedBy,
    /// Its status before it was admitted (`Drifted` for a changed script approved again).
    pub was: ConsentStatus,
}

/// A hook that does not run because it is not approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedHook {
    /// The hook's name.
    pub name: String,
    /// Its point.
    pub point: &'static str,
    /// `command`, `process` or `http`.
    pub kind: &'static str,
    /// Its command line or URL.
    pub target: String,
    /// Where it is configured.
    pub origin: ConfigOrigin,
    /// Why it is not approved: new, or changed since it was approved.
    pub status: ConsentStatus,
    /// Why its command line cannot be pinned to the files it runs, when it cannot
    /// ([`not_pinnable`](super::not_pinnable)): only the user approves it, at the prompt or
    /// with `hookchain approve NAME`.
    pub not_pinnable: Option<String>,
}

impl fmt::Display for SkippedHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(why) = &self.not_pinnable {
            return write!(
                f,
                "hook `{}` ({} `{}` on {}, {}) is skipped: {}; not pinnable: runs what the line \
                 computes ({why}); only the user approves such a line: `hookchain approve {}`, \
                 or yes when asked (--accept-hooks, {ACCEPT_HOOKS_ENV} and hooks_auto_accept \
                 do not)",
                self.name,
                self.kind,
                self.target,
                self.point,
                origin_text(&self.origin),
                self.status,
                self.name
            );
        }
        write!(
            f,
            "hook `{}` ({} `{}` on {}, {}) is skipped: {}; approve it with `hookchain approve`, \
             --accept-hooks or {ACCEPT_HOOKS_ENV}=1",
            self.name,
            self.kind,
            self.target,
            self.point,
            origin_text(&self.origin),
            self.status
        )
    }
}

/// What consent did with a registry's configured hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsentReport {
    /// The hooks that run, and why.
    pub admitted: Vec<AdmittedHook>,
    /// The hooks that do not run, and why (each was logged with `tracing::warn!`).
    pub skipped: Vec<SkippedHook>,
    /// Approvals that could not be saved (the hooks still ran this time), or an allowlist that
    /// could not be read (its hooks were skipped).
    pub errors: Vec<ConsentError>,
    /// What a way of approving was not taken for, and why: `HOOKCHAIN_ACCEPT_HOOKS` set by a
    /// settings file the hooks come from (each was logged with `tracing::warn!`).
    pub warnings: Vec<String>,
}

/// Lets through the hooks that may run: each hook approved and unchanged, and each hook the
/// policy approves (recorded in `consent`); the others are skipped with a warning. The order of
/// `hooks` is kept.
pub fn admit(
    hooks: Vec<ExternalHook>,
    consent: &mut Consent,
    policy: &mut ConsentPolicy,
) -> (Vec<ExternalHook>, ConsentReport) {
    let mut report = ConsentReport::default();
    let mut admitted = Vec::with_capacity(hooks.len());
    // An agent applies the `env` of the settings files it reads to what it starts: when a
    // project's settings file sets the accept variable, the variable is that file's word, not
    // the user's, and approves nothing.
    let set_by_a_file = if policy.env {
        accept_variable_set_by(&hooks)
    } else {
        None
    };
    if let Some(file) = &set_by_a_file {
        let warning = format!(
            "{ACCEPT_HOOKS_ENV} is set by the `env` of {file}, a settings file of the project \
             these hooks come from: an agent applies that file's variables to what it starts, so \
             the variable approves nothing (approve with `hookchain approve`, --accept-hooks or \
             `hooks_auto_accept` in ~/.config/hookchain/hookchain.yaml)"
        );
        tracing::warn!("{warning}");
        report.warnings.push(warning);
    }
    for hook in hooks {
        let status = consent.status(&hook);
        // A line that computes what it runs is approved by the user alone, line by line.
        let not_pinnable = super::not_pinnable(&hook);
        let blanket = policy
            .accepted_by()
            .filter(|by| !(set_by_a_file.is_some() && *by == AcceptedBy::Env))
            .filter(|_| not_pinnable.is_none());
        let accepted_by = match (&status, blanket) {
            (ConsentStatus::Approved, _) => Some(AcceptedBy::Allowlist),
            (_, Some(by)) => Some(by),
            (_, None) => policy
                .prompt
                .as_mut()
                .is_some_and(|prompt| prompt.ask(&hook, &status))
                .then_some(AcceptedBy::Prompt),
        };
        let Some(accepted_by) = accepted_by else {
            let skipped = SkippedHook {
                name: hook.name.clone(),
                point: hook.point,
                kind: hook.transport.kind(),
                target: hook.transport.target().to_owned(),
                origin: hook.origin.clone(),
                status,
                not_pinnable,
            };
            tracing::warn!(hook = %skipped.name, "{skipped}");
            report.skipped.push(skipped);
            continue;
        };
        if accepted_by != AcceptedBy::Allowlist {
            if let ConsentStatus::Drifted { .. } = &status {
                tracing::warn!(
                    hook = %hook.name,
                    "hook `{}` ({}): {status}; approved again by {accepted_by}",
                    hook.name,
                    origin_text(&hook.origin)
                );
            }
            if let Err(error) = consent.approve(&hook) {
                tracing::error!("{error}");
                report.errors.push(error);
            }
        }
        report.admitted.push(AdmittedHook {
            name: hook.name.clone(),
            point: hook.point,
            accepted_by,
            was: status,
        });
        admitted.push(hook);
    }
    (admitted, report)
}

/// The first settings file of another agent whose `env` sets [`ACCEPT_HOOKS_ENV`]: among the
/// JSON files `hooks` come from, and the Claude Code settings of the directories they (and the
/// current directory) are in (`.claude/settings.json`, `.claude/settings.local.json`) — not the
/// user's own `~/.claude/settings.json`.
fn accept_variable_set_by(hooks: &[ExternalHook]) -> Option<String> {
    use std::path::{Path, PathBuf};
    let users = crate::file::home_dir().map(|home| home.join(".claude").join("settings.json"));
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let claude_settings = |dir: &Path| -> [PathBuf; 2] {
        [
            dir.join(".claude").join("settings.json"),
            dir.join(".claude").join("settings.local.json"),
        ]
    };
    let mut candidates: Vec<PathBuf> = Vec::new();
    for path in hooks.iter().filter_map(|hook| hook.origin.path()) {
        let file = PathBuf::from(path);
        if path.ends_with(".json") {
            candidates.push(file.clone());
        }
        // A project's file is at its root (`hookchain.yaml`) or in `.claude/`.
        let mut dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        if dir.file_name().is_some_and(|name| name == ".claude") {
            dir.pop();
        }
        candidates.extend(claude_settings(&dir));
    }
    candidates.extend(claude_settings(Path::new(".")));
    let mut read = std::collections::BTreeSet::new();
    for file in candidates {
        if !read.insert(file.clone()) || users.as_deref().is_some_and(|u| same(&file, u)) {
            continue;
        }
        let Ok(Some(text)) = crate::file::read_text(&file) else {
            continue;
        };
        let sets = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|value| value.get("env")?.get(ACCEPT_HOOKS_ENV).cloned())
            .is_some();
        if sets {
            return Some(file.display().to_string());
        }
    }
    None
}
