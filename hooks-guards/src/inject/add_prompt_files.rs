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
//! `~/`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{InjectAt, Injector, add_injector, cap, project_dir};
use crate::BuiltinExtension;
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
            .map(|name| {
                let path =
                    crate::protected_paths::expand_home(name).unwrap_or_else(|| dir.join(name));
                match std::fs::read(&path) {
                    Ok(bytes) => format!(
                        "--- {name} ---\n{}",
                        cap(String::from_utf8_lossy(&bytes).trim_end(), self.max_bytes)
                    ),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!(
                        "--- {name}: skipped, it does not exist (looked for {}) ---",
                        path.display()
                    ),
                    Err(e) => format!(
                        "--- {name}: skipped, it cannot be read ({}: {e}) ---",
                        path.display()
                    ),
                }
            })
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
