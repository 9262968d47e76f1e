//! `add-git-diff`: the uncommitted changes of the project directory against `HEAD`: `git diff
//! HEAD --stat` by default, or the full diff (`full: true`), capped.
//!
//! ```yaml
//! extensions:
//!   add-git-diff:
//!     enabled: true
//!     point: turn_start      # default; or session_start
//!     full: false            # true: the whole unified diff
//!     max_bytes: 4096        # the output is cut past it
//!     project_dir: /work/repo  # default: the session's project directory
//!     timeout_ms: 5000       # git is stopped past it
//! ```
//!
//! Staged and unstaged changes to tracked files count (the diff is against `HEAD`; in a
//! repository with no commit yet, against the empty tree, i.e. the staged files). Outside a git
//! repository (or without git) the context says so instead. The diff is git's own
//! (`--no-ext-diff --no-textconv`: no diff driver or text conversion the repository names
//! runs), submodules are not looked into (`--ignore-submodules=all`), and git runs with the
//! repository's program-running settings off (see the [crate's rules](crate)).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{GIT_TIMEOUT_MS, InjectAt, Injector, add_injector, cap, git, project_dir};
use crate::BuiltinExtension;
use hookchain_runtime::HooksBuilder;

/// The `add-git-diff` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{AddGitDiff, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let guard = AddGitDiff { full: true, max_bytes: 8192, ..AddGitDiff::default() };
/// let hooks = Hooks::builder().builtin(guard).build().unwrap();
/// let start = hooks.session("doc").begin_turn().turn_start("hi").continued().unwrap();
/// assert!(start.context[0].starts_with("Git diff"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AddGitDiff {
    /// Where the diff is added (default `turn_start`).
    pub point: InjectAt,
    /// The full unified diff rather than `--stat` (default `false`).
    pub full: bool,
    /// The most bytes of output added (default 4096).
    pub max_bytes: usize,
    /// The repository's directory (default: the session's project directory).
    pub project_dir: Option<String>,
    /// The time limit of each git command, in milliseconds (default 5000).
    pub timeout_ms: u64,
}

impl Default for AddGitDiff {
    fn default() -> Self {
        AddGitDiff {
            point: InjectAt::TurnStart,
            full: false,
            max_bytes: 4096,
            project_dir: None,
            timeout_ms: GIT_TIMEOUT_MS,
        }
    }
}

impl BuiltinExtension for AddGitDiff {
    const NAME: &'static str = "add-git-diff";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

/// The empty tree's id: what a repository with no commit is compared against.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

impl Injector for AddGitDiff {
    const DOCKER_AGENT: &'static str = "add_git_diff";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, project: &Path) -> Option<String> {
        let dir = project_dir(&self.project_dir, project);
        let base = match git(
            &dir,
            &["rev-parse", "--verify", "--quiet", "HEAD"],
            self.timeout_ms,
        ) {
            Ok(_) => "HEAD",
            Err(why) if why.contains("not a git repository") || !why.contains("failed") => {
                return Some(format!("Git diff: none, {why}."));
            }
            Err(_) => EMPTY_TREE,
        };
        let mut args = vec![
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--ignore-submodules=all",
            base,
        ];
        if !self.full {
            args.insert(4, "--stat");
        }
        let shown = if self.full {
            "git diff HEAD"
        } else {
            "git diff HEAD --stat"
        };
        Some(match git(&dir, &args, self.timeout_ms) {
            Ok(out) if out.trim().is_empty() => {
                format!("Git diff ({shown}): no uncommitted changes.")
            }
            Ok(out) => format!(
                "Git diff ({shown}):\n{}",
                cap(out.trim_end(), self.max_bytes)
            ),
            Err(why) => format!("Git diff: none, {why}."),
        })
    }

    fn from_docker_agent_args(args: &[String]) -> Result<Self, String> {
        match args {
            [] => Ok(AddGitDiff::default()),
            [full] if full == "full" => Ok(AddGitDiff {
                full: true,
                ..AddGitDiff::default()
            }),
            other => Err(format!(
                "`add_git_diff` takes no `args` or `[\"full\"]`, found {other:?}"
            )),
        }
    }
}
