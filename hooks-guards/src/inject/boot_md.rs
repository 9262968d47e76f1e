//! `boot-md`: Hermes' built-in startup hook — the instructions of `~/.hermes/BOOT.md`, given to
//! the agent when a session starts, so a Hermes user's startup checklist ("check the deploy
//! channel", "summarise yesterday's alerts") reaches an agent built on hookchain.
//!
//! ```yaml
//! extensions:
//!   boot-md:
//!     enabled: true
//!     path: ~/.hermes/BOOT.md   # default
//!     max_bytes: 16384          # a longer file is cut, with a note
//!     point: session_start      # default; or turn_start
//! ```
//!
//! # The rules it keeps
//!
//! - **Off by default**, as every built-in; Hermes' gateway ran its `boot-md` hook at startup.
//!   hookchain has no gateway process: the start is the session's (`session_start`, a
//!   session's persistent context), not a child agent's session.
//! - **No file, no context**: without `BOOT.md` the hook adds nothing, as Hermes' did. A file
//!   that cannot be read (not a regular file, a read past 5 s, a permission) is a note in the
//!   context and a warning, so the model and the user know the instructions are missing.
//! - **The path is the user's**: `path` and `max_bytes` are set in the user's own
//!   `hookchain.yaml` or the agent's code; a project's file cannot point it at another file.
//!   The file is read from the user's home directory (`~/`), never from the project.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{InjectAt, Injector, add_injector, read_file_capped};
use crate::BuiltinExtension;
use crate::project_file::{FileError, Links};
use hookchain_runtime::HooksBuilder;

/// The file Hermes reads at startup.
pub const DEFAULT_PATH: &str = "~/.hermes/BOOT.md";

/// The `boot-md` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{BootMd, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let dir = std::env::temp_dir().join(format!("boot-md-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let boot = dir.join("BOOT.md");
/// std::fs::write(&boot, "Check the deploy channel first.\n").unwrap();
///
/// let guard = BootMd { path: boot.display().to_string(), ..Default::default() };
/// let hooks = Hooks::builder().builtin(guard).build().unwrap();
/// let session = hooks.session("doc");
/// assert!(session.context().join("\n").contains("Check the deploy channel first."));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BootMd {
    /// The instructions' file: absolute, or `~/…` (default `~/.hermes/BOOT.md`).
    pub path: String,
    /// The most bytes of the file added (default 16384).
    pub max_bytes: usize,
    /// Where the instructions are added (default `session_start`).
    pub point: InjectAt,
}

impl Default for BootMd {
    fn default() -> Self {
        BootMd {
            path: DEFAULT_PATH.to_owned(),
            max_bytes: 16 * 1024,
            point: InjectAt::SessionStart,
        }
    }
}

impl BuiltinExtension for BootMd {
    const NAME: &'static str = "boot-md";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

impl BootMd {
    /// The file, with `~/` expanded; `None` when it is neither absolute nor under `~/`.
    fn file(&self) -> Option<PathBuf> {
        match crate::protected_paths::expand_home(&self.path) {
            Some(path) => Some(path),
            None if Path::new(&self.path).is_absolute() => Some(PathBuf::from(&self.path)),
            None => None,
        }
    }
}

impl Injector for BootMd {
    /// None: docker-agent has no such builtin (it is Hermes'), so no docker-agent file names it.
    const DOCKER_AGENT: &'static str = "";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, _project: &Path) -> Option<String> {
        let note = |why: String| {
            tracing::warn!("boot-md: {}: {why}", self.path);
            Some(format!(
                "Startup instructions ({}): not read, {why}",
                self.path
            ))
        };
        let Some(path) = self.file() else {
            return note(
                "the path is neither absolute nor under `~/` (a relative path would be read \
                 from the project, which cannot name it)"
                    .to_owned(),
            );
        };
        match read_file_capped(&path, Links::Follow, self.max_bytes) {
            Ok(shown) if shown.trim().is_empty() => None,
            Ok(shown) => Some(format!("Startup instructions ({}):\n{shown}", self.path)),
            Err(FileError::NotFound) => None,
            Err(e) => note(format!("it cannot be read ({}: {e})", path.display())),
        }
    }

    fn from_docker_agent_args(_: &[String]) -> Result<Self, String> {
        Err("`boot-md` is Hermes' built-in, not a docker-agent builtin".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boot(dir: &Path, text: &str) -> BootMd {
        let path = dir.join("BOOT.md");
        std::fs::write(&path, text).unwrap();
        BootMd {
            path: path.display().to_string(),
            ..BootMd::default()
        }
    }

    #[test]
    fn the_file_is_the_sessions_context() {
        let dir = tempfile::tempdir().unwrap();
        let guard = boot(dir.path(), "Summarise yesterday's alerts.\n");
        let context = guard.context_in(dir.path()).unwrap();
        assert!(context.starts_with("Startup instructions ("), "{context}");
        assert!(
            context.ends_with("Summarise yesterday's alerts."),
            "{context}"
        );
    }

    #[test]
    fn no_file_and_an_empty_file_add_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let missing = BootMd {
            path: dir.path().join("BOOT.md").display().to_string(),
            ..BootMd::default()
        };
        assert_eq!(missing.context_in(dir.path()), None);
        assert_eq!(boot(dir.path(), "  \n").context_in(dir.path()), None);
    }

    #[test]
    fn a_long_file_is_cut_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let guard = BootMd {
            max_bytes: 10,
            ..boot(dir.path(), &"x".repeat(100))
        };
        let context = guard.context_in(dir.path()).unwrap();
        assert!(
            context.contains("[… truncated: 10 of 100 bytes shown]"),
            "{context}"
        );
    }

    #[test]
    fn a_relative_path_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let guard = BootMd {
            path: "BOOT.md".to_owned(),
            ..BootMd::default()
        };
        let context = guard.context_in(dir.path()).unwrap();
        assert!(context.contains("not read"), "{context}");
    }

    #[test]
    fn a_directory_is_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let guard = BootMd {
            path: dir.path().display().to_string(),
            ..BootMd::default()
        };
        let context = guard.context_in(dir.path()).unwrap();
        assert!(context.contains("cannot be read"), "{context}");
    }
}
