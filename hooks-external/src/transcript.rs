//! The session's transcript and permission mode, as Claude Code hooks read them:
//! `transcript_path` and `permission_mode` in every payload.
//!
//! # What it owns
//!
//! - What the agent says about a session: the path of its own transcript
//!   ([`set_transcript_path`]), its permission mode ([`set_permission_mode`]) and payload
//!   fields hookchain has no source for ([`set_payload_field`]: `agent_name`, `model`, …), kept in the
//!   session's state, so every external hook of the session reads them.
//! - A transcript hookchain keeps when the agent gives none: a JSONL file in the format Claude
//!   Code hooks read (`{"type": "user" | "assistant", "message": {"role", "content"}}`, one line
//!   per entry), holding what passed through the session's external hooks — the user's prompts,
//!   the model's replies, the tool calls and their results, in firing order.
//!
//! # The rules it keeps
//!
//! - The kept transcript is private: a directory of its own under the system's temp directory,
//!   readable by the user only (0700), holding one file (0600). It is removed, directory and
//!   all, when the session ends (its state is freed). It is created at the session's first
//!   firing of an external hook, never for a dispatch outside any session.
//! - An entry is written before the payload that carries it is sent, so a `Stop` hook finds the
//!   reply it is asked about as the transcript's last assistant message (ralph-wiggum's loop,
//!   hookify's transcript rules). The same entry twice in a row (two hooks on one point) is
//!   written once.
//! - The transcript holds only what external hooks were fired with: an agent whose hooks do not
//!   see every message should give its own transcript ([`set_transcript_path`]).
//! - Without a permission mode from the agent, `permission_mode` is `"default"`, Claude Code's
//!   name for "ask before anything that is not allowed".
//! - Writing never fails a firing: a transcript that cannot be created or written is logged, and
//!   the payload carries no `transcript_path` (a hook that needs one sees it missing, as it would
//!   in an agent that gives none).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use hookchain_core::{HookContext, SessionState};
use serde_json::{Value, json};

/// What the agent told external hooks about one session (a typed slot of its state).
#[derive(Default)]
struct Facts {
    transcript_path: Option<PathBuf>,
    permission_mode: Option<String>,
    /// Payload fields the agent gives (`agent_name`, `model`, …), in the order given.
    fields: serde_json::Map<String, Value>,
    kept: Option<Kept>,
}

/// Tells the session's external hooks where the agent keeps the session's transcript (a JSONL
/// file in Claude Code's format): the payloads carry it as `transcript_path`, and hookchain
/// keeps no transcript of its own for the session.
///
/// ```
/// use hookchain::Hooks;
/// use hookchain::external::transcript;
///
/// let hooks = Hooks::builder().build().unwrap();
/// let session = hooks.session("s-1");
/// transcript::set_transcript_path(&session.state(), "/var/agent/s-1.jsonl");
/// transcript::set_permission_mode(&session.state(), "acceptEdits");
/// session.end("exit");
/// ```
pub fn set_transcript_path(state: &SessionState, path: impl Into<PathBuf>) {
    let path = path.into();
    state.with_ext_or_default(|facts: &mut Facts| {
        facts.transcript_path = Some(path);
        facts.kept = None;
    });
}

/// Tells the session's external hooks the agent's permission mode (Claude Code's names:
/// `default`, `plan`, `acceptEdits`, `dontAsk`, `bypassPermissions`): the payloads carry it as
/// `permission_mode`.
pub fn set_permission_mode(state: &SessionState, mode: impl Into<String>) {
    let mode = mode.into();
    state.with_ext_or_default(|facts: &mut Facts| facts.permission_mode = Some(mode));
}

/// Gives every payload of the session's external hooks the field `key` with `value`, for the
/// fields hookchain has no source of its own for — docker-agent's `agent_name`, Starchild's
/// `agent_id` and `model`, Hermes' `profile`, … (see the payload tables of
/// [`wire`](super::wire)). A field the firing sets itself (`session_id`, `tool_name`, …) is not
/// overridden. Setting a key again replaces its value.
///
/// ```
/// use hookchain::Hooks;
/// use hookchain::external::transcript;
///
/// let hooks = Hooks::builder().build().unwrap();
/// let session = hooks.session("s-2");
/// transcript::set_payload_field(&session.state(), "agent_name", "root");
/// transcript::set_payload_field(&session.state(), "model", "anthropic/claude-sonnet-4.6");
/// session.end("exit");
/// ```
pub fn set_payload_field(state: &SessionState, key: impl Into<String>, value: impl Into<Value>) {
    let (key, value) = (key.into(), value.into());
    state.with_ext_or_default(|facts: &mut Facts| {
        facts.fields.insert(key, value);
    });
}

/// The payload fields the agent gave the session of `cx` ([`set_payload_field`]).
pub(crate) fn agent_fields(cx: &HookContext<'_>) -> serde_json::Map<String, Value> {
    let state = cx.session_state();
    if outside_any_session(state) {
        return serde_json::Map::new();
    }
    state.with_ext_or_default(|facts: &mut Facts| facts.fields.clone())
}

/// `transcript_path` and `permission_mode` for a payload fired in `cx`, after recording `entry`
/// (a transcript line of the firing, if it has one) in the transcript hookchain keeps.
pub(crate) fn fields(cx: &HookContext<'_>, entry: Option<Value>) -> (Option<String>, String) {
    let state = cx.session_state();
    if outside_any_session(state) {
        return (None, "default".to_owned());
    }
    state.with_ext_or_default(|facts: &mut Facts| {
        let mode = facts
            .permission_mode
            .clone()
            .unwrap_or_else(|| "default".to_owned());
        if let Some(path) = &facts.transcript_path {
            return (Some(path.display().to_string()), mode);
        }
        if facts.kept.is_none() {
            match Kept::create(cx.session_id()) {
                Ok(kept) => facts.kept = Some(kept),
                Err(error) => {
                    tracing::warn!(
                        session = cx.session_id(),
                        "cannot keep a transcript for external hooks: {error}"
                    );
                    return (None, mode);
                }
            }
        }
        let kept = facts.kept.as_mut().expect("created above");
        if let Some(entry) = entry {
            kept.record(cx.session_id(), entry);
        }
        (Some(kept.file.display().to_string()), mode)
    })
}

/// `true` for the state of a context made outside any session (one detached state shared by
/// every such context), where no transcript is kept.
fn outside_any_session(state: &SessionState) -> bool {
    let notes = hookchain_core::Annotations::new();
    let detached = HookContext::new("", 0, "", &notes);
    state.same_as(detached.session_state())
}

/// A transcript line: a user message.
pub(crate) fn user(content: Value) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": content}})
}

/// A transcript line: an assistant message made of `content` blocks.
pub(crate) fn assistant(content: Value) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": content}})
}

/// The transcript hookchain keeps: its private directory and file, removed on drop.
struct Kept {
    dir: PathBuf,
    file: PathBuf,
    out: File,
    last: Option<Value>,
}

impl Kept {
    fn create(session_id: &str) -> std::io::Result<Kept> {
        let dir = private_dir()?;
        let file = dir.join("transcript.jsonl");
        let out = private_file(&file).inspect_err(|_| {
            let _ = std::fs::remove_dir_all(&dir);
        })?;
        tracing::debug!(
            session = session_id,
            "keeping the session's transcript for external hooks at {}",
            file.display()
        );
        Ok(Kept {
            dir,
            file,
            out,
            last: None,
        })
    }

    fn record(&mut self, session_id: &str, entry: Value) {
        if self.last.as_ref() == Some(&entry) {
            return;
        }
        let mut line = entry.clone();
        if let Value::Object(map) = &mut line {
            map.insert("session_id".to_owned(), Value::from(session_id));
        }
        let written = serde_json::to_vec(&line)
            .map_err(std::io::Error::other)
            .and_then(|mut bytes| {
                bytes.push(b'\n');
                self.out.write_all(&bytes)?;
                self.out.flush()
            });
        match written {
            Ok(()) => self.last = Some(entry),
            Err(error) => tracing::warn!(
                session = session_id,
                "cannot write the transcript {}: {error}",
                self.file.display()
            ),
        }
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_dir_all(&self.dir) {
            tracing::warn!(
                "cannot remove the transcript {}: {error}",
                self.dir.display()
            );
        }
    }
}

/// A new directory under the temp directory that only the user can read.
fn private_dir() -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for _ in 0..16 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!(
            "hookchain-transcript-{}-{nanos:x}-{n}",
            std::process::id()
        ));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "no free name for a transcript directory",
    ))
}

/// A new file only the user can read and write.
fn private_file(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}
