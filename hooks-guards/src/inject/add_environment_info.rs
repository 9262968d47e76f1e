//! `add-environment-info`: the working directory, whether it is in a git repository (and
//! where its top is), the operating system and the CPU architecture.
//!
//! ```yaml
//! extensions:
//!   add-environment-info:
//!     enabled: true
//!     point: session_start   # default; or turn_start
//!     project_dir: /work/repo  # default: the session's project directory
//!     timeout_ms: 5000       # the time limit of the git command
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{GIT_TIMEOUT_MS, InjectAt, Injector, add_injector, git, no_args, project_dir};
use crate::BuiltinExtension;
use hookchain_runtime::HooksBuilder;

/// The `add-environment-info` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{AddEnvironmentInfo, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let hooks = Hooks::builder().builtin(AddEnvironmentInfo::default()).build().unwrap();
/// let session = hooks.session("doc");
/// assert!(session.context()[0].contains(std::env::consts::OS));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AddEnvironmentInfo {
    /// Where the information is added (default `session_start`).
    pub point: InjectAt,
    /// The working directory described (default: the session's project directory).
    pub project_dir: Option<String>,
    /// The time limit of the git command, in milliseconds (default 5000).
    pub timeout_ms: u64,
}

impl Default for AddEnvironmentInfo {
    fn default() -> Self {
        AddEnvironmentInfo {
            point: InjectAt::SessionStart,
            project_dir: None,
            timeout_ms: GIT_TIMEOUT_MS,
        }
    }
}

impl BuiltinExtension for AddEnvironmentInfo {
    const NAME: &'static str = "add-environment-info";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

impl Injector for AddEnvironmentInfo {
    const DOCKER_AGENT: &'static str = "add_environment_info";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, project: &Path) -> Option<String> {
        let dir = project_dir(&self.project_dir, project);
        let repo = match git(&dir, &["rev-parse", "--show-toplevel"], self.timeout_ms) {
            Ok(top) => format!("yes (top: {})", top.trim()),
            Err(why) => format!("no ({why})"),
        };
        Some(format!(
            "Environment:\n- working directory: {}\n- git repository: {repo}\n- operating system: {}\n- architecture: {}",
            dir.display(),
            std::env::consts::OS,
            std::env::consts::ARCH,
        ))
    }

    fn from_docker_agent_args(args: &[String]) -> Result<Self, String> {
        no_args("add_environment_info", args).map(|()| AddEnvironmentInfo::default())
    }
}
