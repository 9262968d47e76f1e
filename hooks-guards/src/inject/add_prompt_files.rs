//! `add-prompt-files`: the contents of named files (`AGENTS.md`, `docs/conventions.md`, …),
//! relative to the project directory, each capped in size.
//!
//! ```yaml
//! extensions:
//!   add-prompt-files:
//!     enabled: true
//!     files: [AGENTS.md, docs/conventions.md]
//!     max_bytes: 16384       # per file; a longer file is cut, with a note
//!     point: turn_start      # default; or session_start
//!     project_dir: /work/repo  # default: the session's project directory
//! ```
//!
//! A file that does not exist, or cannot be read, is skipped with a note saying so; a file
//! that is not UTF-8 is read with its bad bytes replaced. A path may be absolute or start with
//! `~/` (such entries are read as configured; a project's own file cannot set them).
//!
//! # The rules it keeps
//!
//! - **A relative entry is read only inside the project**: it is resolved against the project
//!   directory, symlinks and `..` included, and one that ends up outside it (`notes.md ->
//!   ~/.aws/credentials`, `../../.ssh/id_rsa`) is skipped with a note and a warning naming
//!   where it leads.
//! - **Only regular files are read**: a FIFO, a device or a socket is skipped with a note
//!   (opened without blocking, so a FIFO cannot hang the turn), and so is a file whose read
//!   takes longer than 5 s.
//! - **At most `max_bytes` of a file are read**, whatever its size.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{InjectAt, Injector, add_injector, project_dir, read_file_capped};
use crate::BuiltinExtension;
use crate::project_file::{FileError, Links};
use hookchain_runtime::HooksBuilder;

/// The `add-prompt-files` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{AddPromptFiles, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let guard = AddPromptFiles { files: vec!["NO-SUCH-FILE.md".into()], ..Default::default() };
/// let hooks = Hooks::builder().builtin(guard).build().unwrap();
/// let start = hooks.session("doc").begin_turn().turn_start("hi").continued().unwrap();
/// assert!(start.context[0].contains("NO-SUCH-FILE.md: skipped, it does not exist"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AddPromptFiles {
    /// The files, relative to the project directory (or absolute, or `~/…`), in order.
    pub files: Vec<String>,
    /// The most bytes of each file added (default 16384).
    pub max_bytes: usize,
    /// Where the files are added (default `turn_start`).
    pub point: InjectAt,
    /// What the files are relative to (default: the session's project directory).
    pub project_dir: Option<String>,
}

impl Default for AddPromptFiles {
    fn default() -> Self {
        AddPromptFiles {
            files: Vec::new(),
            max_bytes: 16 * 1024,
            point: InjectAt::TurnStart,
            project_dir: None,
        }
    }
}

impl BuiltinExtension for AddPromptFiles {
    const NAME: &'static str = "add-prompt-files";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

impl AddPromptFiles {
    /// The part of the context for the file `name`: its text, capped, or a note saying why it
    /// was skipped.
    fn read(&self, name: &str, dir: &Path) -> String {
        let skipped = |why: String| {
            tracing::warn!("add-prompt-files: {name}: skipped, {why}");
            format!("--- {name}: skipped, {why} ---")
        };
        let (path, links) = match crate::protected_paths::expand_home(name) {
            Some(path) => (path, Links::Follow),
            None if Path::new(name).is_absolute() => (PathBuf::from(name), Links::Follow),
            None => {
                let joined = dir.join(name);
                let root = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
                match joined.canonicalize() {
                    Ok(real) if real.starts_with(&root) => (real, Links::Refuse),
                    Ok(real) => {
                        return skipped(format!(
                            "it resolves to {}, outside the project {} (through a symbolic \
                             link or `..`): a relative entry is read only inside the project",
                            real.display(),
                            root.display()
                        ));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return skipped(format!(
                            "it does not exist (looked for {})",
                            joined.display()
                        ));
                    }
                    Err(e) => {
                        return skipped(format!("it cannot be read ({}: {e})", joined.display()));
                    }
                }
            }
        };
        match read_file_capped(&path, links, self.max_bytes) {
            Ok(shown) => format!("--- {name} ---\n{shown}"),
            Err(FileError::NotFound) => {
                skipped(format!("it does not exist (looked for {})", path.display()))
            }
            Err(e) => skipped(format!("it cannot be read ({}: {e})", path.display())),
        }
    }
}

impl Injector for AddPromptFiles {
    const DOCKER_AGENT: &'static str = "add_prompt_files";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, project: &Path) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let dir = project_dir(&self.project_dir, project);
        let parts: Vec<String> = self
            .files
            .iter()
            .map(|name| self.read(name, &dir))
            .collect();
        Some(format!("Prompt files:\n{}", parts.join("\n")))
    }

    fn from_docker_agent_args(args: &[String]) -> Result<Self, String> {
        if args.is_empty() {
            return Err("`add_prompt_files` needs the files in `args: [file, ...]`".to_owned());
        }
        Ok(AddPromptFiles {
            files: args.to_vec(),
            ..AddPromptFiles::default()
        })
    }
}
