//! What every command reads: the config (the files of `--config`, or discovery's) and the
//! allowlist of approved hooks (`--consent-file`, or the user's own).

use std::path::{Path, PathBuf};

use hookchain_config::consent::Consent;
use hookchain_config::{CONFIG_FILE, Config};

use crate::args::Cli;
use crate::outcome::Failure;

/// The config of `--config` (in order, later over earlier) or of discovery, read as `init()`
/// reads it: a part of a `hookchain.yaml` that cannot be loaded is left out with a warning,
/// which the commands print as a note, and the rest is listed; a file that does not parse is an
/// error.
///
/// The external extensions of the user (`~/.config/hookchain/extensions/`) and of the current
/// directory's project (`./.hookchain/extensions/`) are added either way, as `init()` adds them.
///
/// `hooks_auto_accept: true` is honoured only in the user's own file
/// (`~/.config/hookchain/hookchain.yaml`), whether it is discovered or named with `--config`:
/// pointing the command line at a project's file to see what it would do must not let that
/// file approve its own hooks. `Config::load` keeps that rule; what it leaves out is among the
/// config's warnings, which the commands print as notes.
pub(crate) fn load_config(cli: &Cli) -> Result<(Config, Vec<String>), Failure> {
    if cli.config.is_empty() {
        return Ok((Config::discover_lenient()?, Vec::new()));
    }
    let mut config = Config::new();
    for path in &cli.config {
        config = config.merge(Config::load_lenient(path)?);
    }
    // The external extensions of the user and the project, as discovery adds them.
    let home = home_dir();
    let config = config.merge(Config::discover_extensions(Path::new("."), home.as_deref()));
    Ok((config, Vec::new()))
}

/// The user's home directory, from `HOME`.
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// The files discovery reads, whether or not they exist.
pub(crate) fn discovery_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(home) = home_dir() {
        files.push(home.join(".config").join("hookchain").join(CONFIG_FILE));
    }
    files.push(Path::new(".").join(CONFIG_FILE));
    files
}

/// The files discovery reads, as a sentence: `A and B`.
pub(crate) fn discovery_files_text() -> String {
    let looked: Vec<String> = discovery_files()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    looked.join(" and ")
}

/// The allowlist of `--consent-file`, else the user's own.
pub(crate) fn load_consent(cli: &Cli) -> Result<Consent, Failure> {
    match &cli.consent_file {
        Some(path) => Consent::load(path).map_err(Failure::from),
        None => Consent::load_default().map_err(|e| {
            Failure(format!(
                "{e}; or name the allowlist with --consent-file FILE"
            ))
        }),
    }
}
