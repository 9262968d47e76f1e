//! `add-git-status`: `git status --short --branch` of the project directory.
//!
//! ```yaml
//! extensions:
//!   add-git-status:
//!     enabled: true
//!     point: turn_start      # default; or session_start
//!     project_dir: /work/repo  # default: the session's project directory
//!     max_bytes: 4096        # the output is cut past it
//!     timeout_ms: 5000       # git is stopped past it
//! ```
//!
//! Outside a git repository (or without git) the context says so instead. Submodules are not
//! looked into (`--ignore-submodules=all`: git would run in each under the submodule's own
//! config), and git runs with the repository's program-running settings off (see the
//! [crate's rules](crate)).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{GIT_TIMEOUT_MS, InjectAt, Injector, add_injector, cap, git, no_args, project_dir};
use crate::BuiltinExtension;
use hookchain_runtime::HooksBuilder;

/// The `add-git-status` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{AddGitStatus, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let outside = std::env::temp_dir();
/// let guard = AddGitStatus { project_dir: Some(outside.display().to_string()), ..Default::default() };
/// let hooks = Hooks::builder().builtin(guard).build().unwrap();
/// let start = hooks.session("doc").begin_turn().turn_start("hi").continued().unwrap();
/// assert!(start.context[0].starts_with("Git status"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AddGitStatus {
    /// Where the status is added (default `turn_start`).
    pub point: InjectAt,
    /// The repository's directory (default: the session's project directory).
    pub project_dir: Option<String>,
    /// The most bytes of output added (default 4096).
    pub max_bytes: usize,
    /// The time limit of the git command, in milliseconds (default 5000).
    pub timeout_ms: u64,
}

impl Default for AddGitStatus {
    fn default() -> Self {
        AddGitStatus {
            point: InjectAt::TurnStart,
            project_dir: None,
            max_bytes: 4096,
            timeout_ms: GIT_TIMEOUT_MS,
        }
    }
}

impl BuiltinExtension for AddGitStatus {
    const NAME: &'static str = "add-git-status";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

impl Injector for AddGitStatus {
    const DOCKER_AGENT: &'static str = "add_git_status";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, project: &Path) -> Option<String> {
        let dir = project_dir(&self.project_dir, project);
        let args = ["status", "--short", "--branch", "--ignore-submodules=all"];
        Some(match git(&dir, &args, self.timeout_ms) {
            Ok(out) => format!(
                "Git status (git status --short --branch):\n{}",
                cap(out.trim_end(), self.max_bytes)
            ),
            Err(why) => format!("Git status: none, {why}."),
        })
    }

    fn from_docker_agent_args(args: &[String]) -> Result<Self, String> {
        no_args("add_git_status", args).map(|()| AddGitStatus::default())
    }
}
