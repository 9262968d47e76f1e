//! `hookchain::init()`: the binary's explicit choice to read the config files, apply consent
//! and install the result as the global registry.
//!
//! # The rules it keeps
//!
//! - Nothing happens behind the program's back: [`Hooks::global`] never reads a file. A binary
//!   calls [`init`] (or [`Init::install`]) once, before anything uses the global registry, as it
//!   would call `tracing::subscriber::set_global_default`; a library never calls it.
//! - It reads `~/.config/hookchain/hookchain.yaml`, then `./hookchain.yaml` over it
//!   ([`Config::discover`](crate::Config::discover)), or the files given with [`Init::file`],
//!   and the external extensions of the user and the project
//!   ([`Config::discover_extensions`](crate::Config::discover_extensions)).
//! - `hooks_enabled: false` in the user's file switches every extension and configured hook
//!   off, except the extensions that hold a `required` hook and the required configured hooks,
//!   and every session hears so when it starts.
//! - The configured external hooks run once consent lets them (see [`consent`](crate::consent)):
//!   the allowlist `~/.config/hookchain/approved-hooks.json` and `HOOKCHAIN_ACCEPT_HOOKS`, by
//!   default. Nobody is asked on a terminal unless the program says so ([`Init::prompt`]).
//! - One bad entry, section or file does not cost the others: a part of a file that cannot be
//!   loaded is left out with a warning (in the report, and in a `notification` every session
//!   hears); a file that does not parse is left out whole, and its error is returned
//!   ([`InitError::Config`]) — never only logged, and the report names the file as left out. A binary that would
//!   rather stop returns the error (`hookchain::init()?`); one that goes on has the rest of its
//!   hooks installed, and prints the error.
//! - What was loaded, admitted and skipped comes back in an [`InitReport`], which prints as a
//!   few lines for the user.

use std::fmt;
use std::path::PathBuf;

use hookchain_runtime::{BuildError, Hooks, HooksBuilder};

use crate::config::Config;
use crate::consent::{Consent, ConsentPolicy, ConsentReport, TerminalPrompt};
use crate::file::home_dir;
use crate::registry::{ConfigBuilderExt, ConfigHooksExt};

/// Reads the discovered config files, applies consent and installs the result as the global
/// registry ([`Hooks::global`]): `Init::new().install()`.
///
/// ```no_run
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let report = hookchain::init()?;
///     eprintln!("{report}");
///     let hooks = hookchain::Hooks::global(); // the collected hooks + the configured ones
///     # let _ = hooks;
///     Ok(())
/// }
/// ```
pub fn init() -> Result<InitReport, InitError> {
    Init::new().install()
}

/// How [`init`] reads the config and applies consent, to change before installing.
#[must_use = "nothing is read or installed until `install` (or `build`) is called"]
pub struct Init {
    project_dir: PathBuf,
    home_dir: Option<PathBuf>,
    files: Vec<PathBuf>,
    consent: Option<(Consent, ConsentPolicy)>,
    prompt: bool,
    builder: Option<HooksBuilder>,
}

impl fmt::Debug for Init {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Init")
            .field("project_dir", &self.project_dir)
            .field("home_dir", &self.home_dir)
            .field("files", &self.files)
            .field("prompt", &self.prompt)
            .finish_non_exhaustive()
    }
}

impl Default for Init {
    fn default() -> Self {
        Init::new()
    }
}

impl Init {
    /// Discovery from the current directory and `$HOME`, the default allowlist and the
    /// environment's policy, no prompt, and every `#[register_hook]` fn.
    pub fn new() -> Self {
        Init {
            project_dir: PathBuf::from("."),
            home_dir: home_dir(),
            files: Vec::new(),
            consent: None,
            prompt: false,
            builder: None,
        }
    }

    /// Discovers `dir/hookchain.yaml` instead of `./hookchain.yaml`.
    pub fn project_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.project_dir = dir.into();
        self
    }

    /// Discovers `dir/.config/hookchain/hookchain.yaml` as the user's file, and reads the
    /// allowlist `dir/.config/hookchain/approved-hooks.json` (unless [`consent`](Init::consent)
    /// gives one), instead of those under `$HOME` (`None`: no user file, and the allowlist of
    /// `$HOME`).
    pub fn home_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.home_dir = dir;
        self
    }

    /// Reads `path` ([`Config::load`]: a `hookchain.yaml`, a Claude Code settings file or a
    /// docker-agent agent file) instead of discovering; given several times, later files are
    /// put over earlier ones.
    pub fn file(mut self, path: impl Into<PathBuf>) -> Self {
        self.files.push(path.into());
        self
    }

    /// The allowlist and the policy for configured hooks that are not approved.
    pub fn consent(mut self, consent: Consent, policy: ConsentPolicy) -> Self {
        self.consent = Some((consent, policy));
        self
    }

    /// Asks the user on the terminal about each configured hook that is not approved, when stdin
    /// is one (default: nobody is asked; hooks not approved are skipped and reported).
    pub fn prompt(mut self, prompt: bool) -> Self {
        self.prompt = prompt;
        self
    }

    /// The builder the config is added to (default:
    /// `Hooks::builder().collected().builtin_commands()`, as [`Hooks::global`] has it), for
    /// closures and settings of the agent's own.
    pub fn builder(mut self, builder: HooksBuilder) -> Self {
        self.builder = Some(builder);
        self
    }

    /// Builds the registry without installing it: what [`install`](Init::install) would
    /// install, with the report, and the errors met.
    pub fn build(self) -> (Hooks, InitReport, Vec<BuildError>) {
        let mut errors: Vec<BuildError> = Vec::new();
        let config = if self.files.is_empty() {
            let (config, discovery) =
                Config::discover_leaving_out(&self.project_dir, self.home_dir.as_deref());
            errors.extend(discovery.into_iter().map(BuildError::from));
            config
        } else {
            let mut config = Config::new();
            for file in &self.files {
                match Config::load_lenient(file) {
                    Ok(file) => config = config.merge(file),
                    Err(error) => {
                        config = config.merge(Config::left_out_whole(file, &error));
                        errors.push(error.into());
                    }
                }
            }
            config.merge(Config::discover_extensions(
                &self.project_dir,
                self.home_dir.as_deref(),
            ))
        };
        let master_switch = match config.hooks_enabled() {
            Some(false) => config.hooks_enabled_at().map(str::to_owned),
            _ => None,
        };
        for error in &errors {
            tracing::error!("{error}");
        }
        let files = config.files().to_vec();
        let left_out = config.left_out_files.clone();
        let mut warnings = config.warnings().to_vec();
        let mut builder = self
            .builder
            .unwrap_or_else(|| HooksBuilder::new().collected().builtin_commands())
            .config(config);
        let (allowlist, mut policy) = match self.consent {
            Some(given) => given,
            None => {
                let allowlist = match &self.home_dir {
                    Some(home) => Consent::load(Consent::path_under(home)),
                    None => Consent::load_default(),
                };
                let allowlist = allowlist.unwrap_or_else(|error| {
                    tracing::error!("{error}");
                    errors.push(BuildError::step(error));
                    Consent::in_memory()
                });
                (
                    allowlist,
                    ConsentPolicy::from_lookup(|name| std::env::var(name).ok()),
                )
            }
        };
        if self.prompt
            && let Some(prompt) = TerminalPrompt::stdio()
        {
            policy = policy.prompt(prompt);
        }
        builder = builder.consent(allowlist, policy);
        let (hooks, build_errors) = builder.build_reporting();
        errors.extend(build_errors);
        // `hooks_enabled: false`: every extension is off but those with a required hook (the
        // configured hooks were left out when the config was applied).
        if let Some(at) = &master_switch {
            crate::registry::switch_off_all(&hooks, at);
        }
        // What a project's file was refused when the registry decided whose hooks it may switch
        // off, with what the files' merge refused.
        for refusal in hooks.refusals() {
            if !warnings.contains(&refusal) {
                warnings.push(refusal);
            }
        }
        let report = InitReport {
            files,
            left_out,
            hooks: hooks.len(),
            consent: hooks.consent_report().clone(),
            warnings,
        };
        (hooks, report, errors)
    }

    /// Builds the registry and installs it as the global one. Fails when the global registry is
    /// already in use ([`InitError::AlreadyInstalled`]: nothing changes), or when something
    /// configured could not be loaded ([`InitError::Config`]: the rest is installed).
    pub fn install(self) -> Result<InitReport, InitError> {
        let (hooks, report, errors) = self.build();
        Hooks::set_global(hooks).map_err(|_| InitError::AlreadyInstalled)?;
        if errors.is_empty() {
            Ok(report)
        } else {
            Err(InitError::Config {
                errors,
                report: Box::new(report),
            })
        }
    }
}

/// What [`init`] loaded: the files, the hooks, what consent did, what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct InitReport {
    /// The config files read, in the order they were put over each other.
    pub files: Vec<String>,
    /// The config files left out whole because they do not read or parse as YAML (the error
    /// of each is among [`init`]'s errors, and in [`warnings`](InitReport::warnings)).
    pub left_out: Vec<String>,
    /// How many hooks the registry has: collected, configured and added in code.
    pub hooks: usize,
    /// Which configured hooks run, which were skipped and why.
    pub consent: ConsentReport,
    /// What the files have that hookchain left out (a hook entry or section that cannot be
    /// loaded, events it has no point for, a project's `hooks_auto_accept`, what a project's
    /// file tried to switch off, a file that does not parse), each naming its file and line.
    pub warnings: Vec<String>,
}

impl fmt::Display for InitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.files.len(), self.left_out.len()) {
            (0, 0) => writeln!(f, "hookchain: no config file")?,
            (0, _) => writeln!(f, "hookchain: no config file loaded")?,
            _ => writeln!(f, "hookchain: config from {}", self.files.join(", "))?,
        }
        if !self.left_out.is_empty() {
            writeln!(
                f,
                "hookchain: left out whole (it does not parse): {}",
                self.left_out.join(", ")
            )?;
        }
        writeln!(
            f,
            "hookchain: {} hook(s); {} configured hook(s) run, {} skipped",
            self.hooks,
            self.consent.admitted.len(),
            self.consent.skipped.len()
        )?;
        for skipped in &self.consent.skipped {
            writeln!(f, "hookchain: {skipped}")?;
        }
        for error in &self.consent.errors {
            writeln!(f, "hookchain: {error}")?;
        }
        for warning in &self.consent.warnings {
            writeln!(f, "hookchain: {warning}")?;
        }
        for warning in &self.warnings {
            writeln!(f, "hookchain: {warning}")?;
        }
        Ok(())
    }
}

/// Why [`init`] failed.
///
/// `Debug` prints the same sentences as `Display`, so `fn main() -> Result<(), Box<dyn Error>>`
/// with `hookchain::init()?` shows the user every error with its file and line, not a dump.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    /// The global registry was already built or installed: `init` must run before anything
    /// calls `Hooks::global()`. Nothing was changed.
    #[error(
        "the global registry is already in use: call hookchain::init() before anything calls \
         Hooks::global()"
    )]
    AlreadyInstalled,
    /// Something configured could not be loaded. Everything else was installed.
    #[error("{}", config_errors(.errors))]
    Config {
        /// Every error, each naming its file, line or hook.
        errors: Vec<BuildError>,
        /// What was installed.
        report: Box<InitReport>,
    },
}

impl fmt::Debug for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn config_errors(errors: &[BuildError]) -> String {
    let mut text = match errors.len() {
        1 => "the hookchain config has an error (the rest was installed):".to_owned(),
        n => format!("the hookchain config has {n} errors (the rest was installed):"),
    };
    for error in errors {
        text.push_str("\n  ");
        text.push_str(&error.to_string());
    }
    text
}
