//! What an approval pins: the key of a hook in the allowlist (its point, transport and command
//! line or URL, and its script) and the SHA-256 of what it runs, and the check of that hash at
//! every firing of an admitted hook ([`Verified`]).
//!
//! # The rules it keeps
//!
//! - The hash covers the command line, then the hook's `env`, `working_dir`, `env_clear` and
//!   `env_allow`, then the script's content and every other file the command names — and, for
//!   a Hermes Python hook, every Python file of its directory and its `HOOK.yaml` or
//!   `plugin.yaml` ([`hermes_python`](crate::hermes_python)); an HTTP
//!   hook's covers its URL and its headers as written (see the module docs of
//!   [`consent`](crate::consent), "What is approved").
//! - A file is keyed by its canonical path, however the path to it was written.
//! - A firing whose hash is no longer the approved one fails before anything runs.

use std::path::PathBuf;

use hookchain_core::ConfigOrigin;
use hookchain_external::{ExternalHook, Transport};
use sha2::{Digest, Sha256};

use crate::script::{self, shell_line};

/// What pins a hook: its key in the allowlist and the hash of what it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Pin {
    pub(super) event: String,
    pub(super) kind: String,
    pub(super) command: String,
    pub(super) script: Option<PathBuf>,
    pub(super) sha256: Option<String>,
    /// Why the line cannot be pinned to the files it runs, when it cannot: it computes them
    /// when it runs. The hash then pins the exact line and settings alone.
    pub(super) not_pinnable: Option<String>,
}

impl Pin {
    pub(super) fn of(hook: &ExternalHook) -> Pin {
        let mut not_pinnable = None;
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
                let files = script::files_of(spec).unwrap_or_else(|why| {
                    not_pinnable = Some(why);
                    Vec::new()
                });
                if not_pinnable.is_none() {
                    not_pinnable = script::env_not_pinnable(spec);
                }
                let mut files = files.into_iter().map(canonical);
                let script = files.next();
                let mut hasher = Sha256::new();
                hasher.update(shell_line(spec).unwrap_or(&spec.display).as_bytes());
                // The shell that reads the line: `sh` (what Claude Code runs by default) adds
                // nothing, so approvals of `sh` lines keep their hash; a line approved under
                // `sh` and switched to `bash` is drifted.
                if let Some(shell) = shell_line(spec).and(spec.argv.first())
                    && shell != "sh"
                {
                    hasher.update(b"\0shell=");
                    hasher.update(shell.as_bytes());
                }
                // A line that computes what it runs: approved as written, and only as written.
                if not_pinnable.is_some() {
                    hasher.update(b"\0not pinnable");
                }
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
                // A Hermes Python hook: the runner loads the directory its environment names,
                // so every Python file of it (and its manifest) is what runs.
                if let Some(dir) = spec.env.get(crate::hermes_python::DIR_ENV) {
                    for file in crate::hermes_python::pinned_files(std::path::Path::new(dir)) {
                        hasher.update(b"\0python=");
                        hasher.update(file.as_os_str().as_encoded_bytes());
                        hasher.update([0]);
                        if let Ok(content) = std::fs::read(&file) {
                            hasher.update(&content);
                        }
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
            not_pinnable,
        }
    }
}

/// Why `hook` cannot be pinned to the files it runs, when it cannot: its command line computes
/// what it runs (a glob or a substitution naming the program, `X=./x.sh; $X`, `eval`). Such a
/// hook runs only once the user approves that exact line — at the prompt or with `hookchain
/// approve NAME`; `--accept-hooks`, `HOOKCHAIN_ACCEPT_HOOKS` and `hooks_auto_accept` do not
/// approve it.
pub fn not_pinnable(hook: &ExternalHook) -> Option<String> {
    Pin::of(hook).not_pinnable
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

/// Where a hook is configured, as consent's messages say it (`FILE line N`).
pub(super) fn origin_text(origin: &ConfigOrigin) -> String {
    match (origin.path(), origin.line()) {
        (Some(file), Some(line)) => format!("{file} line {line}"),
        _ => origin.short().to_string(),
    }
}

/// Lower-case hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first 12 digits of a hash, as messages show it.
pub(super) fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
