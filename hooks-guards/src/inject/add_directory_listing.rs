//! `add-directory-listing`: the project directory's entries, alphabetical, directories marked
//! with a `/`, bounded in depth and count.
//!
//! ```yaml
//! extensions:
//!   add-directory-listing:
//!     enabled: true
//!     depth: 1               # 1: the top level only; 2: and one level below; ...
//!     max_entries: 100       # past it, "… and N more"
//!     hidden: false          # list dot-files (and .git)
//!     point: session_start   # default; or turn_start
//!     project_dir: /work/repo  # default: the session's project directory
//! ```
//!
//! Symlinks are listed, never followed (a link to a directory is not walked into), so the walk
//! ends however the tree is linked. A directory that cannot be read is noted in the listing.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{InjectAt, Injector, add_injector, no_args, project_dir};
use crate::BuiltinExtension;
use hookchain_runtime::HooksBuilder;

/// The `add-directory-listing` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{AddDirectoryListing, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let hooks = Hooks::builder().builtin(AddDirectoryListing::default()).build().unwrap();
/// assert!(hooks.session("doc").context()[0].starts_with("Directory listing of "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AddDirectoryListing {
    /// How many levels are listed (default 1: the top level; 0 counts as 1).
    pub depth: u32,
    /// The most entries listed, all levels together (default 100).
    pub max_entries: usize,
    /// Lists entries whose name starts with a `.` (default `false`).
    pub hidden: bool,
    /// Where the listing is added (default `session_start`).
    pub point: InjectAt,
    /// The directory listed (default: the session's project directory).
    pub project_dir: Option<String>,
}

impl Default for AddDirectoryListing {
    fn default() -> Self {
        AddDirectoryListing {
            depth: 1,
            max_entries: 100,
            hidden: false,
            point: InjectAt::SessionStart,
            project_dir: None,
        }
    }
}

impl BuiltinExtension for AddDirectoryListing {
    const NAME: &'static str = "add-directory-listing";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

impl Injector for AddDirectoryListing {
    const DOCKER_AGENT: &'static str = "add_directory_listing";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, project: &Path) -> Option<String> {
        let dir = project_dir(&self.project_dir, project);
        let mut lines = Vec::new();
        let mut more = 0usize;
        self.walk(&dir, 0, &mut lines, &mut more);
        if more > 0 {
            lines.push(format!("… and {more} more"));
        }
        if lines.is_empty() {
            lines.push("(empty)".to_owned());
        }
        Some(format!(
            "Directory listing of {}:\n{}",
            dir.display(),
            lines.join("\n")
        ))
    }

    fn from_docker_agent_args(args: &[String]) -> Result<Self, String> {
        no_args("add_directory_listing", args).map(|()| AddDirectoryListing::default())
    }
}

impl AddDirectoryListing {
    /// Lists `dir` at `level` into `lines`, counting what does not fit in `more`.
    fn walk(&self, dir: &Path, level: u32, lines: &mut Vec<String>, more: &mut usize) {
        let indent = "  ".repeat(level as usize);
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                lines.push(format!("{indent}(cannot be read: {e})"));
                return;
            }
        };
        let mut entries: Vec<(String, bool)> = entries
            .filter_map(Result::ok)
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                // `file_type` does not follow symlinks: a link is never walked into.
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                (name, is_dir)
            })
            .filter(|(name, _)| self.hidden || !name.starts_with('.'))
            .collect();
        entries.sort();
        for (name, is_dir) in entries {
            if lines.len() >= self.max_entries {
                *more += 1;
                continue;
            }
            lines.push(format!("{indent}{name}{}", if is_dir { "/" } else { "" }));
            if is_dir && level + 1 < self.depth.max(1) {
                self.walk(&dir.join(&name), level + 1, lines, more);
            }
        }
    }
}
