//! Consent: an external hook from a config file runs only once it is approved, and only as long
//! as its script is the one that was approved.
//!
//! # What is approved
//!
//! An approval is for one hook — its point (the canonical name, so `PreToolUse` and
//! `intercept_tool_call` share it), its transport (`command`, `process` or `http`), its command
//! line or URL as configured, and its script — and pins a SHA-256 of the command line followed by
//! the content of the script. The script is the file the command runs: its program when it is
//! named by a path (`./hooks/guard.sh`), or the first operand that is a file when the program is
//! a bare name found on `PATH` (`python3 hooks/guard.py`); for the `sh -c` lines of Claude Code
//! and docker-agent configs, the same rule applied to the line's words, with variables expanded
//! as the shell will expand them (`$CLAUDE_PROJECT_DIR` and `$HOOKCHAIN_PROJECT_DIR` the project,
//! `${CLAUDE_PLUGIN_ROOT}` a plugin's directory, `$HOME` and `~/` the home directory): the
//! expanded path is the file hashed. Every other word of the command
//! that names a file is hashed too, so a wrapper cannot hide the script it runs (`sh -o errexit
//! x.sh`, `python3 -W ignore x.py`, `env python3 x.py`, `nice -n 5 sh x.sh`, `timeout 5 sh x.sh`,
//! `cd "$CLAUDE_PROJECT_DIR" && ./x.sh`, `cat | ./x.sh`). The hash covers the hook's `env`,
//! `working_dir`, `env_clear` and `env_allow` too, so adding `BASH_ENV`, `LD_PRELOAD` or a `PATH`
//! to an approved hook, moving it to another directory, or letting it inherit more of the agent's
//! environment (`env_clear` switched off, a name added to `env_allow`) makes it drifted. A hook
//! whose command runs no file is pinned
//! by its command line, `env` and `working_dir`; an HTTP hook by its URL, and its headers as
//! written (a header added later, which could carry a secret, makes it drifted).
//!
//! Relative paths are taken from the hook's `working_dir`, else from the directory it runs in:
//! the current directory, or during a firing the session's project directory when the agent
//! gives one (`hookchain::external::program::firing_dir`). So the check at each firing hashes
//! the files that firing would run: a line approved as `./guard.sh` where there was none does
//! not run another directory's `guard.sh`.
//!
//! A hook's [`ConsentStatus`] is `Approved`, `New` (never approved), or `Drifted` (approved, but
//! its script has changed since: edited, replaced, or swapped for another file). Only an
//! approved hook runs. This is stricter than a check of the script's modification time: a
//! script edited back and forth, or copied over with its old mtime, is still caught.
//!
//! # Where approvals are kept
//!
//! In a JSON allowlist, by default `~/.config/hookchain/approved-hooks.json`
//! ([`Consent::default_path`]), any other file with [`Consent::load`]. It is rewritten whole on
//! every change, atomically: the new list is written to a temporary file in the same directory,
//! flushed, then renamed over the old one, so a reader (or a crash) never sees half a file. Each
//! change reads, edits and writes the list under an exclusive lock on `.NAME.lock` beside it, so
//! approvals made at the same time by several threads or processes are all kept. An allowlist
//! that does not parse is an error, never an empty list.
//!
//! # How a hook gets approved
//!
//! When the registry is built, each configured hook that is not approved is approved and run
//! when
//!
//! - the agent says so: `--accept-hooks` on the CLI, [`ConsentPolicy::accept_hooks`] in code;
//! - the environment says so: `HOOKCHAIN_ACCEPT_HOOKS=1` (or `true`, `yes`);
//! - the user's config says so: `hooks_auto_accept: true` in
//!   `~/.config/hookchain/hookchain.yaml` (a project's file cannot approve its own hooks);
//! - or the user says yes when asked: on an interactive terminal (stdin is a TTY), each new or
//!   changed hook is shown with its point, command, file and line, and runs only on `y`.
//!
//! Each of these records the approval, so the next run does not ask again. Otherwise — a
//! non-interactive run with none of them — the hook is **skipped**: it does not run, a warning
//! naming it, its file and line and why is logged with `tracing::warn!`, and the
//! [`ConsentReport`] lists it. Hooks added in code ([`HooksBuilder::external`]) are the agent's
//! own and need no consent.
//!
//! ```
//! use hookchain::consent::{Consent, ConsentPolicy, ConsentStatus, admit};
//! use hookchain::config::Config;
//!
//! let config = Config::from_yaml_str(
//!     "hooks:\n  intercept_tool_call:\n    - url: https://hooks.example.com/check\n",
//!     "./hookchain.yaml",
//! )?;
//! let mut consent = Consent::in_memory();
//! let hook = &config.external_hooks()[0];
//! assert_eq!(consent.status(hook), ConsentStatus::New);
//!
//! // Non-interactive and not accepted: skipped, with a warning naming it.
//! let hooks = config.external_hooks().to_vec();
//! let (admitted, report) = admit(hooks.clone(), &mut consent, &mut ConsentPolicy::new());
//! assert!(admitted.is_empty());
//! assert!(report.skipped[0].to_string().contains("./hookchain.yaml#01"));
//!
//! // Approved: it runs.
//! consent.approve(hook)?;
//! let (admitted, _) = admit(hooks, &mut consent, &mut ConsentPolicy::new());
//! assert_eq!(admitted.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`HooksBuilder::external`]: hookchain_external::ExternalHooksExt::external

use std::fmt;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use crate::script::script_of;
use crate::script::shell_line;
use hookchain_core::ConfigOrigin;
use hookchain_external::{ExternalHook, Transport};

/// The environment variable that approves every hook when it is `1`, `true` or `yes`.
pub const ACCEPT_HOOKS_ENV: &str = "HOOKCHAIN_ACCEPT_HOOKS";

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

/// What pins a hook: its key in the allowlist and the hash of what it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pin {
    event: String,
    kind: String,
    command: String,
    script: Option<PathBuf>,
    sha256: Option<String>,
}

impl Pin {
    fn of(hook: &ExternalHook) -> Pin {
        let (script, sha256) = match &hook.transport {
            Transport::Http(spec) => {
                // The URL is the key; the headers (names and values as written, `$VAR`s
                // unexpanded) are what a later edit could add a secret to.
                let mut hasher = Sha256::new();
                hasher.update(spec.url.as_bytes());
                for (name, value) in &spec.headers {
                    hasher.update([0]);
                    hasher.update(name.as_bytes());
                    hasher.update([b'=']);
                    hasher.update(value.as_bytes());
                }
                (None, Some(hex(&hasher.finalize())))
            }
            Transport::Command(spec) | Transport::Process(spec) => {
                // One key per file, however the path to it was written (`../x/hooks/a.sh` from
                // one directory, `hooks/a.sh` from another, through a symlink).
                let canonical = |p: PathBuf| {
                    std::fs::canonicalize(&p)
                        .or_else(|_| std::path::absolute(&p))
                        .unwrap_or(p)
                };
                let mut files = crate::script::files_of(spec).into_iter().map(canonical);
                let script = files.next();
                let mut hasher = Sha256::new();
                hasher.update(shell_line(spec).unwrap_or(&spec.display).as_bytes());
                hasher.update([0]);
                // What else decides what runs: the environment it is given (`BASH_ENV`,
                // `LD_PRELOAD`, `PATH`) and the directory it runs in.
                for (name, value) in &spec.env {
                    hasher.update(name.as_bytes());
                    hasher.update([b'=']);
                    hasher.update(value.as_bytes());
                    hasher.update([0]);
                }
                if let Some(dir) = &spec.working_dir {
                    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
                    hasher.update(dir.as_os_str().as_encoded_bytes());
                }
                hasher.update([0]);
                // Which of the agent's variables it inherits. Hashed only when the environment is
                // cleared, so that approvals of hooks that inherit it all stay valid; each name
                // is length-prefixed, as a name cannot hold a NUL to end it.
                if spec.env_clear {
                    hasher.update(b"env_clear");
                    for name in &spec.env_allow {
                        hasher.update((name.len() as u64).to_le_bytes());
                        hasher.update(name.as_bytes());
                    }
                    hasher.update([0]);
                }
                if let Some(content) = script.as_ref().and_then(|p| std::fs::read(p).ok()) {
                    hasher.update(&content);
                }
                // Every other file the command names (an option's value, a wrapper's operand):
                // none for a plain `./guard.sh`, so its pin is the script's alone.
                for file in files {
                    hasher.update([0]);
                    hasher.update(file.as_os_str().as_encoded_bytes());
                    hasher.update([0]);
                    if let Ok(content) = std::fs::read(&file) {
                        hasher.update(&content);
                    }
                }
                (script, Some(hex(&hasher.finalize())))
            }
        };
        Pin {
            event: hook.point.to_owned(),
            kind: hook.transport.kind().to_owned(),
            command: hook.transport.target().to_owned(),
            script,
            sha256,
        }
    }
}

/// The hash an approval of `hook` pins now (`None` for a hook pinned by its key alone).
pub(crate) fn pin_hash(hook: &ExternalHook) -> Option<String> {
    Pin::of(hook).sha256
}

/// An admitted hook's transport, checked again at every firing: when what the approval pinned
/// (the script, the command line, `env`, `working_dir`, the headers) is no longer what was
/// approved, the firing fails before anything runs ([`TransportError::CannotRun`]), and the
/// hook's `on_error` applies — a required hook blocks its point whatever its `on_error`.
///
/// [`TransportError::CannotRun`]: hookchain_external::TransportError::CannotRun
pub(crate) struct Verified {
    pub(crate) inner: std::sync::Arc<dyn hookchain_external::Invoke>,
    pub(crate) hook: ExternalHook,
    pub(crate) approved: Option<String>,
}

impl hookchain_external::Invoke for Verified {
    fn invoke(
        &self,
        payload: &[u8],
        timeout: std::time::Duration,
    ) -> Result<hookchain_external::RawOutput, hookchain_external::TransportError> {
        let now = pin_hash(&self.hook);
        if now != self.approved {
            let what = match &self.hook.transport {
                Transport::Http(_) => "its URL or headers",
                _ => "its script or settings",
            };
            tracing::warn!(
                hook = %self.hook.name,
                "hook `{}` ({}): {what} changed since it was approved; it does not run",
                self.hook.name,
                origin_text(&self.hook.origin)
            );
            return Err(hookchain_external::TransportError::CannotRun(format!(
                "{what} changed since it was approved (sha256 {} is now {}); it does not run \
                 until it is approved again: `hookchain approve {}`",
                short(self.approved.as_deref().unwrap_or("-")),
                short(now.as_deref().unwrap_or("-")),
                self.hook.name
            )));
        }
        self.inner.invoke(payload, timeout)
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

/// Writes the list to a temporary file next to `path`, then renames it over `path`.
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

/// Asks the user whether a hook that is not approved may run.
pub trait Prompt {
    /// `true` when `hook` (new, or changed as `status` says) may run, now and from now on.
    fn ask(&mut self, hook: &ExternalHook, status: &ConsentStatus) -> bool;
}

impl<F> Prompt for F
where
    F: FnMut(&ExternalHook, &ConsentStatus) -> bool,
{
    fn ask(&mut self, hook: &ExternalHook, status: &ConsentStatus) -> bool {
        self(hook, status)
    }
}

/// Asks on a terminal: shows the hook on `output`, reads one line from `input`, and takes `y`
/// or `yes` (any case) for yes and anything else, end of input included, for no.
///
/// ```
/// use hookchain::consent::{ConsentStatus, Prompt, TerminalPrompt};
/// use hookchain::config::Config;
///
/// let config = Config::from_yaml_str(
///     "hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/check\n",
///     "./hookchain.yaml",
/// )?;
/// let mut shown = Vec::new();
/// let mut prompt = TerminalPrompt::new(&b"y\n"[..], &mut shown);
/// assert!(prompt.ask(&config.external_hooks()[0], &ConsentStatus::New));
/// drop(prompt);
/// let shown = String::from_utf8(shown)?;
/// assert!(shown.contains("intercept_tool_call"));
/// assert!(shown.contains("https://hooks.example.com/check"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TerminalPrompt<R, W> {
    input: R,
    output: W,
}

impl<R, W> fmt::Debug for TerminalPrompt<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TerminalPrompt").finish_non_exhaustive()
    }
}

impl<R: Read, W: Write> TerminalPrompt<R, W> {
    /// A prompt reading answers from `input` and writing questions to `output`.
    pub fn new(input: R, output: W) -> Self {
        TerminalPrompt { input, output }
    }

    /// One line of input, read a byte at a time so nothing after it is taken from the reader.
    fn read_line(&mut self) -> String {
        let mut line = Vec::new();
        let mut byte = [0u8];
        while let Ok(1) = self.input.read(&mut byte) {
            if byte[0] == b'\n' {
                break;
            }
            line.push(byte[0]);
        }
        String::from_utf8_lossy(&line).into_owned()
    }
}

impl TerminalPrompt<std::io::Stdin, std::io::Stderr> {
    /// A prompt on stdin and stderr, when stdin is a terminal; `None` otherwise (a
    /// non-interactive run never waits for an answer).
    pub fn stdio() -> Option<Self> {
        let stdin = std::io::stdin();
        stdin
            .is_terminal()
            .then(|| TerminalPrompt::new(stdin, std::io::stderr()))
    }
}

impl<R: Read, W: Write> Prompt for TerminalPrompt<R, W> {
    fn ask(&mut self, hook: &ExternalHook, status: &ConsentStatus) -> bool {
        let headline = match status {
            ConsentStatus::Drifted { .. } => "the script of an approved hook changed",
            _ => "a new hook wants to run",
        };
        let mut question = format!(
            "hookchain: {headline}\n  {} on {}: {} `{}`\n  configured in {}\n",
            hook.name,
            hook.point,
            hook.transport.kind(),
            hook.transport.target(),
            origin_text(&hook.origin),
        );
        let pin = Pin::of(hook);
        if let Some(script) = &pin.script {
            question.push_str(&format!("  script {}\n", script.display()));
        }
        if let ConsentStatus::Drifted { .. } = status {
            question.push_str(&format!("  {status}\n"));
        }
        question.push_str("Run it, now and from now on? [y/N] ");
        if self.output.write_all(question.as_bytes()).is_err() {
            return false;
        }
        let _ = self.output.flush();
        let answer = self.read_line();
        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    }
}

/// How configured hooks that are not approved get approved (see the [module docs](self)).
#[derive(Default)]
pub struct ConsentPolicy {
    accept_flag: bool,
    env: bool,
    config: bool,
    prompt: Option<Box<dyn Prompt + Send>>,
}

impl fmt::Debug for ConsentPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConsentPolicy")
            .field("accept_hooks", &self.accept_flag)
            .field("env", &self.env)
            .field("config", &self.config)
            .field("prompt", &self.prompt.is_some())
            .finish()
    }
}

impl ConsentPolicy {
    /// Nothing approved beyond the allowlist, and nobody asked: a non-interactive run.
    pub fn new() -> Self {
        ConsentPolicy::default()
    }

    /// What the process says: `HOOKCHAIN_ACCEPT_HOOKS`, and a [`TerminalPrompt`] when stdin is
    /// a terminal. A program asks for the prompt; [`init`](crate::init) and a builder without
    /// [`consent`](crate::ConfigBuilderExt::consent) ask nobody.
    pub fn from_env() -> Self {
        let mut policy = ConsentPolicy::from_lookup(|name| std::env::var(name).ok());
        if let Some(prompt) = TerminalPrompt::stdio() {
            policy.prompt = Some(Box::new(prompt));
        }
        policy
    }

    /// `HOOKCHAIN_ACCEPT_HOOKS` as `lookup` gives it (`1`, `true` or `yes`, in any case,
    /// approve every hook), and nobody asked.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let env = lookup(ACCEPT_HOOKS_ENV).is_some_and(|v| {
            matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes")
        });
        ConsentPolicy {
            env,
            ..ConsentPolicy::default()
        }
    }

    /// Approves every hook, as `--accept-hooks` does.
    pub fn accept_hooks(mut self, accept: bool) -> Self {
        self.accept_flag = accept;
        self
    }

    /// Approves every hook, as `hooks_auto_accept: true` in the user's config does.
    pub fn auto_accept(mut self, accept: bool) -> Self {
        self.config = accept;
        self
    }

    /// Asks `prompt` about each hook that is not approved (when nothing approves it first).
    pub fn prompt(mut self, prompt: impl Prompt + Send + 'static) -> Self {
        self.prompt = Some(Box::new(prompt));
        self
    }

    /// Asks nobody: hooks that are not approved are skipped.
    pub fn no_prompt(mut self) -> Self {
        self.prompt = None;
        self
    }

    /// What approves every hook without asking, if anything.
    fn accepted_by(&self) -> Option<AcceptedBy> {
        if self.accept_flag {
            Some(AcceptedBy::AcceptFlag)
        } else if self.env {
            Some(AcceptedBy::Env)
        } else if self.config {
            Some(AcceptedBy::Config)
        } else {
            None
        }
    }
}

/// Why a hook was let run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AcceptedBy {
    /// It was in the allowlist, unchanged.
    Allowlist,
    /// `--accept-hooks` ([`ConsentPolicy::accept_hooks`]).
    AcceptFlag,
    /// `HOOKCHAIN_ACCEPT_HOOKS`.
    Env,
    /// `hooks_auto_accept: true`.
    Config,
    /// The user said yes.
    Prompt,
}

impl fmt::Display for AcceptedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AcceptedBy::Allowlist => "the allowlist",
            AcceptedBy::AcceptFlag => "--accept-hooks",
            AcceptedBy::Env => ACCEPT_HOOKS_ENV,
            AcceptedBy::Config => "hooks_auto_accept",
            AcceptedBy::Prompt => "the user",
        })
    }
}

/// A hook let run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmittedHook {
    /// The hook's name.
    pub name: String,
    /// Its point.
    pub point: &'static str,
    /// Why it runs.
    pub accepted_by: AcceptedBy,
    /// Its status before it was admitted (`Drifted` for a changed script approved again).
    pub was: ConsentStatus,
}

/// A hook that does not run because it is not approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedHook {
    /// The hook's name.
    pub name: String,
    /// Its point.
    pub point: &'static str,
    /// `command`, `process` or `http`.
    pub kind: &'static str,
    /// Its command line or URL.
    pub target: String,
    /// Where it is configured.
    pub origin: ConfigOrigin,
    /// Why it is not approved: new, or changed since it was approved.
    pub status: ConsentStatus,
}

impl fmt::Display for SkippedHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hook `{}` ({} `{}` on {}, {}) is skipped: {}; approve it with `hookchain approve`, \
             --accept-hooks or {ACCEPT_HOOKS_ENV}=1",
            self.name,
            self.kind,
            self.target,
            self.point,
            origin_text(&self.origin),
            self.status
        )
    }
}

/// What consent did with a registry's configured hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsentReport {
    /// The hooks that run, and why.
    pub admitted: Vec<AdmittedHook>,
    /// The hooks that do not run, and why (each was logged with `tracing::warn!`).
    pub skipped: Vec<SkippedHook>,
    /// Approvals that could not be saved (the hooks still ran this time), or an allowlist that
    /// could not be read (its hooks were skipped).
    pub errors: Vec<ConsentError>,
}

/// Lets through the hooks that may run: each hook approved and unchanged, and each hook the
/// policy approves (recorded in `consent`); the others are skipped with a warning. The order of
/// `hooks` is kept.
pub fn admit(
    hooks: Vec<ExternalHook>,
    consent: &mut Consent,
    policy: &mut ConsentPolicy,
) -> (Vec<ExternalHook>, ConsentReport) {
    let mut report = ConsentReport::default();
    let mut admitted = Vec::with_capacity(hooks.len());
    for hook in hooks {
        let status = consent.status(&hook);
        let accepted_by = match (&status, policy.accepted_by()) {
            (ConsentStatus::Approved, _) => Some(AcceptedBy::Allowlist),
            (_, Some(by)) => Some(by),
            (_, None) => policy
                .prompt
                .as_mut()
                .is_some_and(|prompt| prompt.ask(&hook, &status))
                .then_some(AcceptedBy::Prompt),
        };
        let Some(accepted_by) = accepted_by else {
            let skipped = SkippedHook {
                name: hook.name.clone(),
                point: hook.point,
                kind: hook.transport.kind(),
                target: hook.transport.target().to_owned(),
                origin: hook.origin.clone(),
                status,
            };
            tracing::warn!(hook = %skipped.name, "{skipped}");
            report.skipped.push(skipped);
            continue;
        };
        if accepted_by != AcceptedBy::Allowlist {
            if let ConsentStatus::Drifted { .. } = &status {
                tracing::warn!(
                    hook = %hook.name,
                    "hook `{}` ({}): {status}; approved again by {accepted_by}",
                    hook.name,
                    origin_text(&hook.origin)
                );
            }
            if let Err(error) = consent.approve(&hook) {
                tracing::error!("{error}");
                report.errors.push(error);
            }
        }
        report.admitted.push(AdmittedHook {
            name: hook.name.clone(),
            point: hook.point,
            accepted_by,
            was: status,
        });
        admitted.push(hook);
    }
    (admitted, report)
}

fn origin_text(origin: &ConfigOrigin) -> String {
    match (origin.path(), origin.line()) {
        (Some(file), Some(line)) => format!("{file} line {line}"),
        _ => origin.short().to_string(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
