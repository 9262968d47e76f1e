//! The allowlist of approved hooks ([`Consent`]): the JSON file it is kept in, a hook's
//! [`ConsentStatus`] against it, and approving and revoking.
//!
//! # The rules it keeps
//!
//! - The file is rewritten whole on every change, atomically: written to a temporary file in
//!   the same directory, flushed, then renamed over the old one, so a reader (or a crash) never
//!   sees half a file.
//! - Each change reads, edits and writes the list under an exclusive lock on `.NAME.lock` beside
//!   it, so approvals made at the same time by several threads or processes are all kept.
//! - An allowlist that does not parse, or is of another format version, is an error, never an
//!   empty list.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use hookchain_external::ExternalHook;
use serde::{Deserialize, Serialize};

use super::pin::{Pin, short};

/// The allowlist's file name, in `~/.config/hookchain/`.
pub const APPROVALS_FILE: &str = "approved-hooks.json";

/// The version of the allowlist's format.
const FORMAT_VERSION: u32 = 1;

/// What can go wrong reading or writing the allowlist.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConsentError {
    /// The allowlist exists and cannot be read.
    #[error("cannot read the approved hooks in {path}: {reason}")]
    Read {
        /// The allowlist.
        path: String,
        /// Why.
        reason: String,
    },
    /// The allowlist is not the JSON hookchain writes.
    #[error(
        "the approved hooks in {path} cannot be read: {reason}; fix the file, or remove it to \
         approve the hooks again"
    )]
    Invalid {
        /// The allowlist.
        path: String,
        /// What the JSON parser says.
        reason: String,
    },
    /// The allowlist cannot be written.
    #[error("cannot save the approved hooks to {path}: {reason}")]
    Write {
        /// The allowlist.
        path: String,
        /// Why.
        reason: String,
    },
    /// There is no home directory to keep the allowlist in.
    #[error(
        "there is no allowlist of approved hooks: $HOME is not set (give the registry a \
         `Consent::load(path)`)"
    )]
    NoHome,
}

/// The message, as `Display` writes it: what `main` prints for an error it returns with `?`.
impl fmt::Debug for ConsentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// One approved hook, as the allowlist keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The point's canonical name.
    pub event: String,
    /// `command`, `process` or `http`.
    pub kind: String,
    /// The command line or URL, as configured.
    pub command: String,
    /// The script it runs, when it runs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<PathBuf>,
    /// The SHA-256 (hex) of the command line followed by the script's content; `None` for HTTP
    /// hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// When it was approved, in seconds since the Unix epoch.
    pub approved_at: u64,
}

impl Approval {
    fn is_for(&self, pin: &Pin) -> bool {
        self.event == pin.event
            && self.kind == pin.kind
            && self.command == pin.command
            && self.script == pin.script
    }
}

/// The allowlist file.
#[derive(Serialize, Deserialize)]
struct AllowList {
    version: u32,
    hooks: Vec<Approval>,
}

/// Whether a hook may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsentStatus {
    /// Approved, and its script is the one approved.
    Approved,
    /// Never approved.
    New,
    /// Approved, but its script changed since: `old` is the approved SHA-256, `new` today's.
    Drifted {
        /// The SHA-256 approved.
        old: String,
        /// The SHA-256 of the script now.
        new: String,
    },
}

impl fmt::Display for ConsentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsentStatus::Approved => f.write_str("approved"),
            ConsentStatus::New => f.write_str("new: never approved"),
            ConsentStatus::Drifted { old, new } => write!(
                f,
                "its script changed since it was approved (sha256 {} → {})",
                short(old),
                short(new)
            ),
        }
    }
}

/// The allowlist of approved hooks, and the file it is kept in.
#[derive(Debug, Clone, Default)]
pub struct Consent {
    path: Option<PathBuf>,
    approvals: Vec<Approval>,
}

impl Consent {
    /// `~/.config/hookchain/approved-hooks.json` (`$HOME`), or `None` without a home directory.
    pub fn default_path() -> Option<PathBuf> {
        std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(|home| Consent::path_under(Path::new(&home)))
    }

    /// The allowlist of the user whose home directory is `home`:
    /// `home/.config/hookchain/approved-hooks.json`.
    pub fn path_under(home: &Path) -> PathBuf {
        home.join(".config").join("hookchain").join(APPROVALS_FILE)
    }

    /// The allowlist kept in `path`; a file that does not exist is an empty list (created on
    /// the first approval).
    pub fn load(path: impl Into<PathBuf>) -> Result<Consent, ConsentError> {
        let path = path.into();
        let approvals = read_list(&path)?;
        Ok(Consent {
            path: Some(path),
            approvals,
        })
    }

    /// The allowlist in [`default_path`](Consent::default_path).
    pub fn load_default() -> Result<Consent, ConsentError> {
        Consent::load(Consent::default_path().ok_or(ConsentError::NoHome)?)
    }

    /// An empty allowlist kept in no file: approvals last as long as it does.
    pub fn in_memory() -> Consent {
        Consent::default()
    }

    /// The file the allowlist is kept in (`None` for [`in_memory`](Consent::in_memory)).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Every approval, in the order they were given.
    pub fn approvals(&self) -> &[Approval] {
        &self.approvals
    }

    /// Whether `hook` may run: approved, new, or changed since it was approved. Reads the
    /// hook's script to hash it.
    pub fn status(&self, hook: &ExternalHook) -> ConsentStatus {
        status_of(&self.approvals, &Pin::of(hook))
    }

    /// Approves `hook` as it is now (its script's current content), replacing an approval of
    /// an older version, and saves the allowlist. The file is read again first, so approvals
    /// another process saved meanwhile are kept.
    pub fn approve(&mut self, hook: &ExternalHook) -> Result<(), ConsentError> {
        let pin = Pin::of(hook);
        let approved_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.change(|approvals| {
            approvals.retain(|a| !a.is_for(&pin));
            approvals.push(Approval {
                event: pin.event.clone(),
                kind: pin.kind.clone(),
                command: pin.command.clone(),
                script: pin.script.clone(),
                sha256: pin.sha256.clone(),
                approved_at,
            });
        })
    }

    /// Withdraws the approval of `hook` and saves the allowlist; `false` when it had none.
    pub fn revoke(&mut self, hook: &ExternalHook) -> Result<bool, ConsentError> {
        let pin = Pin::of(hook);
        let mut found = false;
        self.change(|approvals| {
            let before = approvals.len();
            approvals.retain(|a| !a.is_for(&pin));
            found = approvals.len() != before;
        })?;
        Ok(found)
    }

    /// Applies `edit` to the list on disk (or in memory) and saves it.
    fn change(&mut self, edit: impl FnOnce(&mut Vec<Approval>)) -> Result<(), ConsentError> {
        let Some(path) = &self.path else {
            edit(&mut self.approvals);
            return Ok(());
        };
        // One writer at a time, across threads and processes: the read, the edit and the write
        // are one step, so a concurrent approval is never lost.
        let _lock = lock_list(path)?;
        let mut approvals = read_list(path)?;
        edit(&mut approvals);
        write_list(path, &approvals)?;
        self.approvals = approvals;
        Ok(())
    }
}

fn status_of(approvals: &[Approval], pin: &Pin) -> ConsentStatus {
    match approvals.iter().rev().find(|a| a.is_for(pin)) {
        None => ConsentStatus::New,
        Some(a) if a.sha256 == pin.sha256 => ConsentStatus::Approved,
        Some(a) => ConsentStatus::Drifted {
            old: a.sha256.clone().unwrap_or_default(),
            new: pin.sha256.clone().unwrap_or_default(),
        },
    }
}

fn read_list(path: &Path) -> Result<Vec<Approval>, ConsentError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(ConsentError::Read {
                path: path.display().to_string(),
                reason: e.to_string(),
            });
        }
    };
    let list: AllowList = serde_json::from_str(&text).map_err(|e| ConsentError::Invalid {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    if list.version != FORMAT_VERSION {
        return Err(ConsentError::Invalid {
            path: path.display().to_string(),
            reason: format!(
                "format version {} (this hookchain reads version {FORMAT_VERSION})",
                list.version
            ),
        });
    }
    Ok(list.hooks)
}

/// An exclusive lock on the allowlist at `path`, held until dropped: a lock on the file
/// `.NAME.lock` beside it (the list itself is replaced by a rename, so it cannot carry the lock).
fn lock_list(path: &Path) -> Result<std::fs::File, ConsentError> {
    let fail = |e: std::io::Error| ConsentError::Write {
        path: path.display().to_string(),
        reason: format!("cannot lock it: {e}"),
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| APPROVALS_FILE.to_owned());
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!(".{name}.lock")))
        .map_err(fail)?;
    lock.lock().map_err(fail)?;
    Ok(lock)
}

/// Writes the list to a temporary file next to `path`, then renames it over `path`.
fn write_list(path: &Path, approvals: &[Approval]) -> Result<(), ConsentError> {
    let fail = |e: std::io::Error| ConsentError::Write {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let list = AllowList {
        version: FORMAT_VERSION,
        hooks: approvals.to_vec(),
    };
    let mut json = serde_json::to_vec_pretty(&list).map_err(|e| fail(std::io::Error::other(e)))?;
    json.push(b'\n');
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| APPROVALS_FILE.to_owned());
    // A name of its own per writer: the process, and a number unique within it.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(&json)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(fail(e));
    }
    Ok(())
}
