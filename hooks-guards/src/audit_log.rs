//! `audit-log`: one JSON line per tool call, blocked calls included, in a file that rotates by
//! size.
//!
//! # What it owns
//!
//! Two hooks of the extension `audit-log` (off by default):
//!
//! - a wildcard hook on `intercept_tool_call` notes, per call, what the chain decided (`pass`,
//!   `rewrite` or `block`), the hook that blocked or rewrote and its reason, and how long the
//!   chain took;
//! - a hook on `after_tool_call` — which fires for every call, the refused ones too
//!   (`Turn::run_tool`) — writes the line, with the args as the model asked for them (the
//!   refused call's) or as the tool ran them, and the time from `intercept_tool_call` to
//!   `after_tool_call`.
//!
//! With `points: ["*"]` (or `["after_*", "myapp:*"]`: the patterns of wildcard hooks), a
//! wildcard hook also writes one line per dispatch of those points: the
//! [`DispatchEvent`]'s JSON with `"type": "dispatch"`.
//!
//! One line of a tool call:
//!
//! ```json
//! {"type": "tool_call", "ts_ms": 1767225600000, "session_id": "s1", "turn": 0, "tool": "bash",
//!  "id": "call_1", "args": {"command": "rm -rf /"}, "decision": "block",
//!  "hook": "destructive-commands", "reason": "…", "failed": false, "ran": false,
//!  "is_error": true, "intercept_us": 41, "duration_us": 97}
//! ```
//!
//! # The rules it keeps
//!
//! - A line is written whole, with one `write` of a file opened to append, under a lock every
//!   registry of the process shares and an advisory lock on `.NAME.lock` beside the log that
//!   other processes take too: concurrent sessions, threads and processes never interleave
//!   lines, and two processes never rotate at once (which lost lines).
//! - **Never written through a symlink**: the log (and the lock file) is opened with
//!   `O_NOFOLLOW` and must be a regular file, so a link planted in a repository
//!   (`.hookchain/audit.jsonl -> ~/.bashrc`) is refused, with the warning below saying why; on
//!   a relative `path` (inside the project) each directory on the way must be a real
//!   directory, not a link, and missing ones are created. Rotation renames and removes the
//!   files themselves, never where a link points.
//! - Before a line would take the file past `max_bytes`, the file is rotated: `audit.jsonl.1`
//!   becomes `.2` and so on up to `keep` files (the oldest is removed), the file becomes
//!   `audit.jsonl.1`, and the line starts a new file. `max_bytes: 0` never rotates; `keep: 0`
//!   keeps no old file.
//! - Writing never panics and never holds the agent past a short wait for the lock (a line that
//!   cannot get it in time is dropped and counted as a failure). The first failure to write
//!   (a directory that cannot be created, a full disk) is reported once, as a warning through
//!   `notification` naming the file and the error; later ones are logged only.
//! - `redact_args: true` writes `"args": "[redacted]"`; the rest of the line is kept.
//! - A call is matched to its `intercept_tool_call` by session, turn and tool name, first in
//!   first out: two parallel calls of one tool in one turn may swap their durations and
//!   decisions if they finish out of order. A call `after_tool_call` sees without an
//!   `intercept_tool_call` before it is logged with the decision its result says (`block` for a
//!   refused call, else `pass`) and no durations.
//! - `points` is read when the registry is built (its wildcard hook is added then); a reload
//!   can narrow it (lines of points no longer listed stop) but not widen it.
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   audit-log:
//!     enabled: true
//!     path: .hookchain/audit.jsonl   # default; relative to the agent's current directory
//!     max_bytes: 10485760            # rotate past 10 MiB (default)
//!     keep: 3                        # audit.jsonl.1 … .3 (default)
//!     redact_args: false             # default
//!     points: ["*"]                  # also log every dispatch (default: none)
//! ```
//!
//! ```
//! use hookchain::guards::{AuditLog, BuiltinsExt};
//! let log = std::env::temp_dir().join("audit-log-doc.jsonl");
//! let hooks = hookchain::Hooks::builder()
//!     .builtin(AuditLog { path: log.display().to_string(), ..AuditLog::default() })
//!     .build()
//!     .unwrap();
//! # let _ = hooks;
//! ```

use std::collections::{HashMap, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hookchain_core::points::AfterToolCall;
use hookchain_core::{Decision, DispatchEvent, HookContext, OnError, Pattern, ToolResult};
use hookchain_runtime::sections::Sections;
use hookchain_runtime::{HookOptions, HooksBuilder};
use parking_lot::Mutex;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};

use crate::project_file::{FileError, Links, open};
use crate::{BuiltinExtension, add_guard};

/// The `audit-log` guard and its config (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditLog {
    /// The file, relative to the agent's current directory or absolute (default
    /// `.hookchain/audit.jsonl`); its directory is created when missing.
    pub path: String,
    /// Rotate before the file would grow past this many bytes (default 10 MiB; 0: never).
    pub max_bytes: u64,
    /// How many rotated files to keep (default 3).
    pub keep: u32,
    /// Write `"[redacted]"` instead of each call's args (default `false`).
    pub redact_args: bool,
    /// Wildcard patterns of points whose every dispatch is also logged (default none).
    #[serde(deserialize_with = "patterns")]
    pub points: Vec<String>,
}

impl Default for AuditLog {
    fn default() -> Self {
        AuditLog {
            path: ".hookchain/audit.jsonl".to_owned(),
            max_bytes: 10 * 1024 * 1024,
            keep: 3,
            redact_args: false,
            points: Vec::new(),
        }
    }
}

/// `points`: each a wildcard pattern that can match a point.
fn patterns<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let points = Vec::<String>::deserialize(deserializer)?;
    let names = hookchain_core::points::catalog().iter().map(|p| p.name);
    for point in &points {
        Pattern::parse(point, names.clone()).map_err(serde::de::Error::custom)?;
    }
    Ok(points)
}

impl BuiltinExtension for AuditLog {
    const NAME: &'static str = "audit-log";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        let state = Arc::new(State::default());
        let (noted, written) = (Arc::clone(&state), Arc::clone(&state));
        let mut builder = builder
            .watch(
                "intercept_tool_call*",
                options("audit-log:intercept").without_payload(),
                move |event: &DispatchEvent, cx: &HookContext| noted.note(event, cx),
            )
            .hook_with(
                AfterToolCall,
                options(Self::NAME),
                move |result: &ToolResult, cx: &HookContext| written.tool_call(result, cx),
            );
        for pattern in configured_points(builder.sections_so_far()) {
            let logged = Arc::clone(&state);
            builder = builder.watch(
                &pattern,
                options("audit-log:points").priority(i32::MAX),
                move |event: &DispatchEvent, cx: &HookContext| logged.dispatch(event, cx),
            );
        }
        builder
            .config_type::<AuditLog>(Self::NAME)
            .off_by_default(Self::NAME)
    }

    /// Sets the section first, so that the wildcard hook of `points` is added with the hooks.
    fn install(&self, builder: HooksBuilder) -> HooksBuilder {
        let mut section = match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        section.insert("enabled".to_owned(), Value::Bool(true));
        let builder =
            builder.sections(Sections::new().extension(Self::NAME, Value::Object(section)));
        add_guard(builder, Self::NAME)
    }
}

/// The options of the guard's hooks: in its extension, last among observers, failures reported
/// and passed (a log must never block the agent).
fn options(name: &str) -> HookOptions {
    HookOptions::new(name)
        .extension(AuditLog::NAME)
        .priority(i32::MAX - 1)
        .on_error(OnError::Pass)
}

/// The patterns of `points` in the sections given so far, each once. One that cannot match is
/// left to the section's check, which refuses it naming the file and line.
fn configured_points(sections: Option<&Sections>) -> Vec<String> {
    let names = hookchain_core::points::catalog().iter().map(|p| p.name);
    let mut points: Vec<String> = sections
        .and_then(|s| s.section(AuditLog::NAME))
        .and_then(|section| section.get("points"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|p| Pattern::parse(p, names.clone()).is_ok())
        .map(str::to_owned)
        .collect();
    points.sort();
    points.dedup();
    points
}

/// What `intercept_tool_call` decided about a call, until its `after_tool_call`.
#[derive(Debug)]
struct Pending {
    decision: Decision,
    hook: Option<String>,
    reason: Option<String>,
    failed: bool,
    intercept: Duration,
    started: Instant,
}

/// (session, turn, tool): where a call's [`Pending`] waits.
type CallKey = (String, u64, String);

/// How many calls may wait for their `after_tool_call`; past it the oldest are forgotten (an
/// agent that never fires `after_tool_call` cannot grow the map without bound).
const MAX_PENDING: usize = 4096;

/// The state of one registry's `audit-log`.
#[derive(Default)]
struct State {
    pending: Mutex<HashMap<CallKey, VecDeque<Pending>>>,
    waiting: AtomicU64,
    /// Set at the first failure to write, which is reported; later ones are logged.
    failed: AtomicBool,
}

impl State {
    /// Notes what `intercept_tool_call` decided.
    fn note(&self, event: &DispatchEvent, cx: &HookContext<'_>) {
        let Some(tool) = event.tool.clone() else {
            return;
        };
        let pending = Pending {
            decision: event.decision,
            hook: event.hook.clone(),
            reason: event.reason.clone(),
            failed: event.failed,
            intercept: event.duration,
            started: Instant::now()
                .checked_sub(event.duration)
                .unwrap_or_else(Instant::now),
        };
        let mut map = self.pending.lock();
        if self.waiting.load(Ordering::Relaxed) as usize >= MAX_PENDING {
            map.clear();
            self.waiting.store(0, Ordering::Relaxed);
        }
        map.entry((cx.session_id().to_owned(), cx.turn(), tool))
            .or_default()
            .push_back(pending);
        self.waiting.fetch_add(1, Ordering::Relaxed);
    }

    /// What `intercept_tool_call` noted about the call `result` is the result of.
    fn take(&self, cx: &HookContext<'_>, tool: &str) -> Option<Pending> {
        let key = (cx.session_id().to_owned(), cx.turn(), tool.to_owned());
        let mut map = self.pending.lock();
        let queue = map.get_mut(&key)?;
        let pending = queue.pop_front();
        if queue.is_empty() {
            map.remove(&key);
        }
        if pending.is_some() {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
        }
        pending
    }

    /// Writes the line of the tool call `result` ends.
    fn tool_call(&self, result: &ToolResult, cx: &HookContext<'_>) -> Result<(), String> {
        let config = cx.config::<AuditLog>().map_err(|e| e.to_string())?;
        let pending = self.take(cx, &result.tool_name);
        let blocked = result.blocked.as_ref();
        let (decision, hook, reason, failed) = match (&pending, blocked) {
            (Some(p), _) => (p.decision, p.hook.clone(), p.reason.clone(), p.failed),
            (None, Some(b)) => (
                Decision::Block,
                Some(b.hook.clone()),
                Some(b.reason.clone()),
                b.failed,
            ),
            (None, None) => (Decision::Pass, None, None, false),
        };
        let line = json!({
            "type": "tool_call",
            "ts_ms": now_ms(),
            "session_id": cx.session_id(),
            "turn": cx.turn(),
            "tool": result.tool_name,
            "id": result.tool_use_id,
            "args": if config.redact_args { json!("[redacted]") } else { result.tool_input.clone() },
            "decision": decision.as_str(),
            "hook": hook,
            "reason": reason,
            "failed": failed,
            "ran": blocked.is_none(),
            "is_error": result.is_error,
            "intercept_us": pending.as_ref().map(|p| micros(p.intercept)),
            "duration_us": pending.as_ref().map(|p| micros(p.started.elapsed())),
        });
        self.write(&config, &line)
    }

    /// Writes the line of a dispatch of a point `points` lists.
    fn dispatch(&self, event: &DispatchEvent, cx: &HookContext<'_>) -> Result<(), String> {
        let config = cx.config::<AuditLog>().map_err(|e| e.to_string())?;
        let names = hookchain_core::points::catalog().iter().map(|p| p.name);
        let listed = config.points.iter().any(|p| {
            Pattern::parse(p, names.clone()).is_ok_and(|pattern| pattern.matches(event.point))
        });
        if !listed {
            return Ok(());
        }
        let mut line = event.to_json();
        line["type"] = json!("dispatch");
        line["ts_ms"] = json!(now_ms());
        if config.redact_args {
            line["payload"] = json!("[redacted]");
        }
        self.write(&config, &line)
    }

    /// Appends `line` to the log; the first failure is an error (reported through
    /// `notification`), later ones are logged only.
    fn write(&self, config: &AuditLog, line: &Value) -> Result<(), String> {
        let mut text = line.to_string();
        text.push('\n');
        match append(config, text.as_bytes()) {
            Ok(()) => Ok(()),
            Err(error) => {
                let message = format!("audit-log cannot write `{}`: {error}", config.path);
                if self.failed.swap(true, Ordering::Relaxed) {
                    tracing::debug!("{message}");
                    Ok(())
                } else {
                    Err(format!(
                        "{message}; lines are dropped until it can (reported once)"
                    ))
                }
            }
        }
    }
}

/// How long a line waits for the locks before it is dropped.
const LOCK_WAIT: Duration = Duration::from_millis(500);

/// The lock every write of the process takes: lines never interleave, and a rotation never
/// runs while another line is written.
static WRITING: Mutex<()> = Mutex::new(());

/// Appends `bytes` (one whole line) to the log, rotating first when it would grow past
/// `max_bytes`: in this process under [`WRITING`], across processes under an advisory lock
/// on `.NAME.lock` beside the log; never through a symlink.
fn append(config: &AuditLog, bytes: &[u8]) -> std::io::Result<()> {
    let Some(_writing) = WRITING.try_lock_for(LOCK_WAIT) else {
        return Err(std::io::Error::other(format!(
            "another write held the log for more than {LOCK_WAIT:?}; the line is dropped"
        )));
    };
    let path = Path::new(&config.path);
    let dir = path.parent().unwrap_or(Path::new(""));
    if path.is_absolute() {
        std::fs::create_dir_all(dir)?;
    } else {
        real_dirs(Path::new(""), dir)?;
    }
    let _lock = lock_beside(path)?;
    let mut file = open_log(path)?;
    let size = file.metadata()?.len();
    if config.max_bytes > 0 && size > 0 && size + bytes.len() as u64 > config.max_bytes {
        drop(file);
        rotate(path, config.keep)?;
        file = open_log(path)?;
    }
    file.write_all(bytes)
}

/// Makes sure `base/dir` is a directory reached through real directories only, creating the
/// missing ones: a relative `path` is inside the project, where a repository could plant a
/// symlink (`.hookchain -> ~`) to send the log elsewhere.
fn real_dirs(base: &Path, dir: &Path) -> std::io::Result<()> {
    let mut at = base.to_path_buf();
    for part in dir.components() {
        at.push(part);
        if matches!(
            part,
            std::path::Component::CurDir | std::path::Component::ParentDir
        ) {
            continue;
        }
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(std::io::Error::other(format!(
                    "{} is a symbolic link: on a relative `path` the log is written only \
                     through real directories (a repository could plant a link to send it \
                     elsewhere); remove the link, or set an absolute `path` in your own \
                     config",
                    at.display()
                )));
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(std::io::Error::other(format!(
                    "{} is not a directory",
                    at.display()
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::create_dir(&at) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Opens `path` to append, creating it, refusing a symlink or anything not a regular file.
fn open_log(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    open(path, &mut options, Links::Refuse).map_err(|e| match e {
        FileError::Symlink => std::io::Error::other(format!(
            "{} {e}; audit-log never writes through one: remove it",
            path.display()
        )),
        e => std::io::Error::other(format!("{}: {e}", path.display())),
    })
}

/// An exclusive advisory lock on `.NAME.lock` beside the log at `path`, held until dropped, so
/// two processes never rotate (or write while the other rotates) at once; waits at most
/// [`LOCK_WAIT`].
fn lock_beside(path: &Path) -> std::io::Result<File> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lock_path = path.with_file_name(format!(".{name}.lock"));
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    let lock = open(&lock_path, &mut options, Links::Refuse)
        .map_err(|e| std::io::Error::other(format!("{}: {e}", lock_path.display())))?;
    let start = Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(lock),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(std::io::Error::other(format!(
                    "another process held {} for more than {LOCK_WAIT:?}; the line is dropped",
                    lock_path.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
    }
}

/// `path.N` for the N-th rotated file.
fn rotated(path: &Path, n: u32) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{n}"));
    PathBuf::from(name)
}

/// Shifts `path.1` … `path.keep-1` up by one (the oldest goes), and `path` to `path.1`; with
/// `keep` 0, removes `path`. Renames and removals act on a symlink itself, never on where it
/// points.
fn rotate(path: &Path, keep: u32) -> std::io::Result<()> {
    if keep == 0 {
        return std::fs::remove_file(path);
    }
    let _ = std::fs::remove_file(rotated(path, keep));
    for n in (1..keep).rev() {
        let from = rotated(path, n);
        if std::fs::symlink_metadata(&from).is_ok() {
            std::fs::rename(&from, rotated(path, n + 1))?;
        }
    }
    std::fs::rename(path, rotated(path, 1))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_shifts_the_files_and_keeps_at_most_keep() {
        let dir = std::env::temp_dir().join(format!("audit-log-rotate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = AuditLog {
            path: dir.join("a.jsonl").display().to_string(),
            max_bytes: 10,
            keep: 2,
            ..AuditLog::default()
        };
        for line in ["1111111\n", "2222222\n", "3333333\n", "4444444\n"] {
            append(&config, line.as_bytes()).unwrap();
        }
        let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
        let path = PathBuf::from(&config.path);
        assert_eq!(read(path.clone()), "4444444\n");
        assert_eq!(read(rotated(&path, 1)), "3333333\n");
        assert_eq!(read(rotated(&path, 2)), "2222222\n");
        assert!(!rotated(&path, 3).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_relative_path_through_a_symlinked_directory_is_refused() {
        let base = tempfile::tempdir().unwrap();
        let elsewhere = base.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::create_dir(base.path().join("project")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, base.path().join("project/.hookchain")).unwrap();
        let error = real_dirs(base.path(), Path::new("project/.hookchain/logs")).unwrap_err();
        assert!(error.to_string().contains("is a symbolic link"), "{error}");
        assert!(!elsewhere.join("logs").exists());
        real_dirs(base.path(), Path::new("project/logs/today")).unwrap();
        assert!(base.path().join("project/logs/today").is_dir());
    }
}
