//! The context injectors: extensions, off by default, that add context for the model at the
//! start of a session (persistent) or of a turn (for that turn only).
//!
//! | extension | adds | default point | docker-agent builtin |
//! |---|---|---|---|
//! | [`add-date`](AddDate) | today's date | `turn_start` | `add_date` |
//! | [`add-environment-info`](AddEnvironmentInfo) | working directory, git repository or not, OS, architecture | `session_start` | `add_environment_info` |
//! | [`add-prompt-files`](AddPromptFiles) | the contents of named files, each capped | `turn_start` | `add_prompt_files` |
//! | [`add-git-status`](AddGitStatus) | `git status --short --branch` | `turn_start` | `add_git_status` |
//! | [`add-git-diff`](AddGitDiff) | `git diff --stat`, or the full diff capped | `turn_start` | `add_git_diff` |
//! | [`add-directory-listing`](AddDirectoryListing) | the project directory's entries, bounded | `session_start` | `add_directory_listing` |
//! | [`add-user-info`](AddUserInfo) | the user's name and the host name | `session_start` | `add_user_info` |
//! | [`add-recent-commits`](AddRecentCommits) | `git log --oneline -n N` (N = 10) | `session_start` | `add_recent_commits` |
//! | [`boot-md`](BootMd) | Hermes' startup instructions, `~/.hermes/BOOT.md` | `session_start` | none (Hermes' built-in) |
//!
//! # What it owns
//!
//! One module per injector; here, what they share: the [`point`](InjectAt) an injector adds its
//! context at (each has a `point` field, defaulting to the point docker-agent uses), the way
//! git is run, and the cap on a text's size.
//!
//! # The rules it keeps
//!
//! - An injector never fails the session or the turn: what it cannot read (a missing file, a
//!   directory that is not a git repository, git not installed, git too slow) becomes a note
//!   in its context saying so, so the model knows the context is missing and why.
//! - git runs with a time limit (`timeout_ms`, default 5 s; killed past it), no pager, no
//!   prompt for credentials (`GIT_TERMINAL_PROMPT=0`), no optional locks, stdin closed, and
//!   with every setting of the repository that would run a program (`core.fsmonitor`,
//!   filters, diff drivers, text conversion, hooks, …) overridden, as the [crate's rules](crate)
//!   say.
//! - Text an injector reads is capped (`max_bytes`), cut at a character boundary with a note
//!   saying how much was left out.
//! - Its hooks run on `session_start` and `turn_start`, and the one the config's `point` does
//!   not name passes; a hook that cannot read its config warns (`on_error = warn`).

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use hookchain_core::points::{SessionStart, SessionStartEvent, TurnStart, TurnStartEvent};
use hookchain_core::{HookContext, HookResult, OnError};
use hookchain_runtime::{HookOptions, HooksBuilder};

use crate::BuiltinExtension;

pub mod add_date;
pub mod add_directory_listing;
pub mod add_environment_info;
pub mod add_git_diff;
pub mod add_git_status;
pub mod add_prompt_files;
pub mod add_recent_commits;
pub mod add_user_info;
pub mod boot_md;

pub use add_date::AddDate;
pub use add_directory_listing::AddDirectoryListing;
pub use add_environment_info::AddEnvironmentInfo;
pub use add_git_diff::AddGitDiff;
pub use add_git_status::AddGitStatus;
pub use add_prompt_files::AddPromptFiles;
pub use add_recent_commits::AddRecentCommits;
pub use add_user_info::AddUserInfo;
pub use boot_md::BootMd;

/// Where an injector adds its context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InjectAt {
    /// `session_start`: once per session; the context persists for the whole session.
    SessionStart,
    /// `turn_start`: every turn; the context is for that turn only.
    TurnStart,
}

impl InjectAt {
    /// The point's name: `session_start` or `turn_start`.
    pub fn name(self) -> &'static str {
        match self {
            InjectAt::SessionStart => "session_start",
            InjectAt::TurnStart => "turn_start",
        }
    }

    /// The point named `name`, if it is one an injector can use.
    pub fn from_name(name: &str) -> Option<InjectAt> {
        match name {
            "session_start" => Some(InjectAt::SessionStart),
            "turn_start" => Some(InjectAt::TurnStart),
            _ => None,
        }
    }
}

/// A context injector: its point and the context it adds there.
pub trait Injector: BuiltinExtension + DeserializeOwned + Send + Sync + 'static {
    /// docker-agent's name for it (`add_date`).
    const DOCKER_AGENT: &'static str;

    /// Where it adds its context.
    fn point(&self) -> InjectAt;

    /// The context to add now for a session whose project directory is `project`
    /// ([`HookContext::project_dir`]), or `None` for nothing (a note when something could not
    /// be read is context too).
    fn context_in(&self, project: &Path) -> Option<String>;

    /// [`context_in`](Self::context_in) the process's current directory.
    fn context(&self) -> Option<String> {
        self.context_in(&hookchain_core::project::decide(None))
    }

    /// This injector's config from docker-agent's `args:` of a `type: builtin` entry, or why
    /// they do not fit.
    fn from_docker_agent_args(args: &[String]) -> Result<Self, String>;
}

/// Adds `I`'s hooks on `session_start` and `turn_start`, off by default, and declares its
/// config type.
pub(crate) fn add_injector<I: Injector>(builder: HooksBuilder) -> HooksBuilder {
    let options = || {
        HookOptions::new(I::NAME)
            .extension(I::NAME)
            .priority(crate::PRIORITY)
            .on_error(OnError::Warn)
    };
    builder
        .hook_with(
            SessionStart,
            options(),
            |_: &SessionStartEvent, cx: &HookContext| inject::<I>(cx, InjectAt::SessionStart),
        )
        .hook_with(
            TurnStart,
            options(),
            |_: &TurnStartEvent, cx: &HookContext| inject::<I>(cx, InjectAt::TurnStart),
        )
        .config_type::<I>(I::NAME)
        .off_by_default(I::NAME)
}

fn inject<I: Injector>(cx: &HookContext, at: InjectAt) -> Result<HookResult<String>, String> {
    let config = cx.config::<I>().map_err(|e| e.to_string())?;
    if config.point() != at {
        return Ok(HookResult::Pass);
    }
    Ok(match config.context_in(&cx.project_dir()) {
        Some(text) => HookResult::Rewrite(text),
        None => HookResult::Pass,
    })
}

/// The default time limit of a git command, in milliseconds.
pub const GIT_TIMEOUT_MS: u64 = 5000;

/// The directory an injector reads: the configured `project_dir` (`~` expanded; a relative
/// one taken from `session`), else the session's project directory `session`.
pub(crate) fn project_dir(configured: &Option<String>, session: &Path) -> PathBuf {
    match configured {
        Some(dir) => session
            .join(crate::protected_paths::expand_home(dir).unwrap_or_else(|| PathBuf::from(dir))),
        None => session.to_path_buf(),
    }
}

/// Runs `git args…` in the repository of `dir` with a time limit and the repository's
/// program-running settings overridden ([`crate::git`]): its stdout, or a note saying why there
/// is none (not a git repository, git missing, too slow, failed).
pub(crate) fn git(dir: &Path, args: &[&str], timeout_ms: u64) -> Result<String, String> {
    crate::git::in_project(dir, args, timeout_ms)
}

/// `text` cut to at most `max` bytes at a character boundary, with a note of what was left out.
pub(crate) fn cap(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[… truncated: {} of {} bytes shown]",
        &text[..end],
        end,
        text.len()
    )
}

/// At most `max` bytes of the file at `path` as text (bad UTF-8 replaced), within the time
/// limit of a file read, cut at a character boundary with a note of how much of the file was
/// left out.
pub(crate) fn read_file_capped(
    path: &Path,
    links: crate::project_file::Links,
    max: usize,
) -> Result<String, crate::project_file::FileError> {
    const READ_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(GIT_TIMEOUT_MS);
    // A few bytes more than the cap, so that a character cut by it is not garbled.
    let capped = crate::project_file::read_capped(
        path,
        links,
        (max as u64).saturating_add(4),
        READ_TIMEOUT,
    )?;
    let text = String::from_utf8_lossy(&capped.bytes);
    if capped.len <= max as u64 {
        return Ok(cap(text.trim_end(), max));
    }
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Ok(format!(
        "{}\n[… truncated: {end} of {} bytes shown]",
        &text[..end],
        capped.len
    ))
}

/// docker-agent's `args:` for an injector that takes none.
pub(crate) fn no_args(name: &str, args: &[String]) -> Result<(), String> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(format!("`{name}` takes no `args`, found {args:?}"))
    }
}

/// The injector a docker-agent `type: builtin` entry names (`command: add_date`), as an
/// extension's name and the section that enables it with `args` read into its config and
/// `point` (the entry's event) as its point; `None` for a builtin that is not an injector, and
/// an error when its `args` do not fit.
///
/// ```
/// use hookchain::guards::inject::{InjectAt, docker_agent_builtin};
///
/// let (name, section) =
///     docker_agent_builtin("add_recent_commits", &["5".into()], InjectAt::SessionStart)
///         .unwrap()
///         .unwrap();
/// assert_eq!(name, "add-recent-commits");
/// assert_eq!(section["count"], 5);
/// assert_eq!(section["enabled"], true);
/// assert!(docker_agent_builtin("max_iterations", &[], InjectAt::TurnStart).is_none());
/// ```
pub fn docker_agent_builtin(
    builtin: &str,
    args: &[String],
    point: InjectAt,
) -> Option<Result<(&'static str, serde_json::Value), String>> {
    fn section<I: Injector>(
        args: &[String],
        point: InjectAt,
    ) -> Result<(&'static str, serde_json::Value), String> {
        let config = I::from_docker_agent_args(args)?;
        let mut value = serde_json::to_value(&config).map_err(|e| e.to_string())?;
        if let Some(map) = value.as_object_mut() {
            map.insert("enabled".to_owned(), serde_json::Value::Bool(true));
            map.insert("point".to_owned(), point.name().into());
        }
        Ok((I::NAME, value))
    }
    Some(match builtin {
        AddDate::DOCKER_AGENT => section::<AddDate>(args, point),
        AddEnvironmentInfo::DOCKER_AGENT => section::<AddEnvironmentInfo>(args, point),
        AddPromptFiles::DOCKER_AGENT => section::<AddPromptFiles>(args, point),
        AddGitStatus::DOCKER_AGENT => section::<AddGitStatus>(args, point),
        AddGitDiff::DOCKER_AGENT => section::<AddGitDiff>(args, point),
        AddDirectoryListing::DOCKER_AGENT => section::<AddDirectoryListing>(args, point),
        AddUserInfo::DOCKER_AGENT => section::<AddUserInfo>(args, point),
        AddRecentCommits::DOCKER_AGENT => section::<AddRecentCommits>(args, point),
        _ => return None,
    })
}
