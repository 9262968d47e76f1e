//! `add-recent-commits`: the last commits of the project directory's repository, `git log
//! --oneline -n N`.
//!
//! ```yaml
//! extensions:
//!   add-recent-commits:
//!     enabled: true
//!     count: 10              # N, default 10
//!     point: session_start   # default; or turn_start
//!     project_dir: /work/repo  # default: the session's project directory
//!     timeout_ms: 5000       # git is stopped past it
//! ```
//!
//! Outside a git repository, in one with no commit yet, or without git, the context says so
//! instead.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{GIT_TIMEOUT_MS, InjectAt, Injector, add_injector, git, project_dir};
use crate::BuiltinExtension;
use hookchain_runtime::HooksBuilder;

/// The `add-recent-commits` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{AddRecentCommits, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let hooks = Hooks::builder().builtin(AddRecentCommits { count: 3, ..Default::default() }).build().unwrap();
/// assert!(hooks.session("doc").context()[0].starts_with("Recent commits"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AddRecentCommits {
    /// How many commits (default 10).
    pub count: u32,
    /// Where the commits are added (default `session_start`).
    pub point: InjectAt,
    /// The repository's directory (default: the session's project directory).
    pub project_dir: Option<String>,
    /// The time limit of the git command, in milliseconds (default 5000).
    pub timeout_ms: u64,
}

impl Default for AddRecentCommits {
    fn default() -> Self {
        AddRecentCommits {
            count: 10,
            point: InjectAt::SessionStart,
            project_dir: None,
            timeout_ms: GIT_TIMEOUT_MS,
        }
    }
}

impl BuiltinExtension for AddRecentCommits {
    const NAME: &'static str = "add-recent-commits";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

impl Injector for AddRecentCommits {
    const DOCKER_AGENT: &'static str = "add_recent_commits";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, project: &Path) -> Option<String> {
        let dir = project_dir(&self.project_dir, project);
        let n = self.count.to_string();
        let shown = format!("git log --oneline -n {n}");
        Some(
            match git(
                &dir,
                &["log", "--oneline", "--no-decorate", "-n", &n],
                self.timeout_ms,
            ) {
                Ok(out) if out.trim().is_empty() => format!("Recent commits ({shown}): none."),
                Ok(out) => format!("Recent commits ({shown}):\n{}", out.trim_end()),
                Err(why) => format!("Recent commits: none, {why}."),
            },
        )
    }

    fn from_docker_agent_args(args: &[String]) -> Result<Self, String> {
        match args {
            [] => Ok(AddRecentCommits::default()),
            [n] => match n.trim().parse::<u32>() {
                Ok(count) if count > 0 => Ok(AddRecentCommits {
                    count,
                    ..AddRecentCommits::default()
                }),
                _ => Err(format!(
                    "`add_recent_commits` takes a positive number of commits, found `{n}`"
                )),
            },
            other => Err(format!(
                "`add_recent_commits` takes no `args` or `[\"<N>\"]`, found {other:?}"
            )),
        }
    }
}
