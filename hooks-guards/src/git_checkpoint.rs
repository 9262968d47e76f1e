//! `git-checkpoint`: a snapshot of the project's working tree at the start of every turn and
//! before every tool that writes, kept in a shadow git repository of its own, so the agent (or
//! the user) can go back to how the files were.
//!
//! # What it owns
//!
//! One **shadow repository** per project directory, under [`dir`](GitCheckpoint::dir)
//! (default `$XDG_STATE_HOME/hookchain/checkpoints`, else
//! `~/.local/state/hookchain/checkpoints`): `<dir>/<project name>-<hash of its path>.git`,
//! with an index of its own. A snapshot is a commit there (branch `checkpoints`), whose
//! message names the session, the turn and the trigger (`turn_start`, the tool about to run,
//! `turn_end`, a restore); its id is a [`Checkpoint`]'s id.
//!
//! - **When**: at `turn_start` ([`turn_start`](GitCheckpoint::turn_start)), on
//!   `intercept_tool_call` for the tools in [`tools`](GitCheckpoint::tools) (writes, edits
//!   and shells by default; `"*"` for every tool), and, if asked, at `turn_end`. On
//!   `intercept_tool_call` it runs after every other hook (priority [`CHECKPOINT_PRIORITY`]),
//!   so a call another hook blocks costs no snapshot. A snapshot whose files are those of
//!   the last one makes no new commit: the last checkpoint is the one.
//! - **Where the agent finds it**: the checkpoint's id is put in the turn's state and in the
//!   session's state under the key `git-checkpoint` (`turn.state().get::<String>
//!   ("git-checkpoint")`), and in the metadata of the dispatch that took it (the
//!   `Outcome::metadata` of `turn.fire::<InterceptToolCall>(call)`); [`GitCheckpoint::list`]
//!   lists them all, newest first.
//! - **Going back**: [`GitCheckpoint::restore`] puts the files of a checkpoint back; the
//!   agent may offer it to the model as a tool of its own.
//!
//! # The rules it keeps
//!
//! - **The user's git is never touched.** Every git command runs with `GIT_DIR` (the shadow
//!   repository), `GIT_WORK_TREE` (the project) and `GIT_INDEX_FILE` (the shadow's index) set,
//!   so the user's `.git` — index, refs, history, stash — is never read or written (its
//!   `info/exclude` is read, to honour it). Git hooks, filters (LFS), end-of-line conversion
//!   and fsmonitor are off for the shadow repository: a snapshot stores the bytes on disk.
//! - **What is snapshotted**: every file of the project that git would not ignore — the
//!   `.gitignore` files, the user's `.git/info/exclude` (when `.git` is a directory) and
//!   global excludes file are honoured;
//!   `.git` directories are skipped, and so are nested repositories. A directory that is not
//!   a git repository is snapshotted the same way. Files larger than
//!   [`max_file_bytes`](GitCheckpoint::max_file_bytes) (2 MiB, as docker-agent) are left out,
//!   and once the files taken add up to [`max_total_bytes`](GitCheckpoint::max_total_bytes)
//!   the ones that do not fit are left out too (a warning says so); the checkpoint's message
//!   counts what was left out.
//! - **A time limit**: all the git commands of one snapshot share
//!   [`timeout_ms`](GitCheckpoint::timeout_ms) (default 10 s), and so do those of one restore
//!   (its snapshot included); past it, git is stopped and the snapshot or the restore fails.
//! - **A snapshot that fails does not stop the agent's work** by default: git missing, too
//!   slow, a project that cannot be read — the hook warns (a user-facing warning and a
//!   `notification`) and the turn or the tool call goes on, without a checkpoint. With
//!   [`required: true`](GitCheckpoint::required) it blocks instead: the turn does not start,
//!   the tool does not run, and the reason says why — for agents that must never write
//!   without a way back (at `turn_end`, which cannot block, it warns).
//! - **Restore never loses what no checkpoint holds.** [`restore`](GitCheckpoint::restore)
//!   first takes a checkpoint of the files as they are (so a restore can itself be undone),
//!   then writes back the files the target checkpoint holds and that differ, and **removes
//!   the files created since** — those in the new checkpoint and not in the target. A file
//!   that no checkpoint holds (ignored, over the size cap) is never overwritten or removed;
//!   a path where a directory (or a file in the way of its directories) now stands is left
//!   alone. Each is listed in the [`Restored`] it returns. Directories left empty by a
//!   removal are removed.
//! - Snapshots of one process are taken one at a time (a lock); a stale `index.lock` left by a
//!   git this guard stopped is removed.
//!
//! Known limits: the first snapshot of a project stores every file (about 3 s for 10,000 small
//! files on a slow disk), later ones only what changed (about 0.1 s there, 40 ms for a
//! project of 300 files); a project whose first snapshot does not fit in `timeout_ms` never
//! gets one, and says so at every trigger: raise `timeout_ms`. The shadow repositories are
//! never pruned: delete a project's `<…>.git` directory to drop its checkpoints. File names
//! that are not UTF-8 are left out.
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   git-checkpoint:
//!     enabled: true
//!     turn_start: true             # a snapshot at the start of every turn (default)
//!     tools: [write_file, edit_file, Write, Edit, shell, bash]   # default: writes, edits, shells; "*" = every tool
//!     turn_end: false              # a snapshot when the turn ends too
//!     project_dir: /work/repo      # default: the session's project directory
//!     dir: ~/.local/state/hookchain/checkpoints   # default: $XDG_STATE_HOME/hookchain/checkpoints
//!     max_file_bytes: 2097152      # larger files are left out (2 MiB)
//!     max_total_bytes: 268435456   # the files of one snapshot add up to at most this (256 MiB)
//!     timeout_ms: 10000            # the time limit of one snapshot
//!     required: false              # true: a snapshot that fails blocks the turn or the tool
//! ```
//!
//! or, in Rust, `Hooks::builder().builtin(GitCheckpoint { project_dir: Some(dir), ..Default::default() })`:
//!
//! ```
//! use hookchain::guards::{GitCheckpoint, BuiltinsExt};
//! use hookchain::prelude::*;
//!
//! let root = std::env::temp_dir().join(format!("git-checkpoint-doc-{}", std::process::id()));
//! let (project, state) = (root.join("project"), root.join("state"));
//! std::fs::create_dir_all(&project).unwrap();
//! std::fs::write(project.join("notes.md"), "first\n").unwrap();
//! let guard = GitCheckpoint {
//!     project_dir: Some(project.display().to_string()),
//!     dir: Some(state.display().to_string()),
//!     ..GitCheckpoint::default()
//! };
//! let hooks = Hooks::builder().builtin(guard.clone()).build().unwrap();
//! let turn = hooks.session("doc").begin_turn();
//! turn.turn_start("tidy the notes").continued().unwrap();
//! # if turn.state().get::<String>("git-checkpoint").is_none() { return; } // no git installed
//! let first: String = turn.state().get("git-checkpoint").unwrap();
//! std::fs::write(project.join("notes.md"), "changed\n").unwrap();
//! guard.restore(&project, &first).unwrap();
//! assert_eq!(std::fs::read_to_string(project.join("notes.md")).unwrap(), "first\n");
//! # std::fs::remove_dir_all(&root).unwrap();
//! ```
//!
//! docker-agent's `snapshot` builtin (`{type: builtin, command: snapshot}`) is read as this
//! guard: see [`GitCheckpoint::docker_agent_section`].

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::inject::{project_dir, run_git};
use crate::{BuiltinExtension, reason};
use hookchain_core::points::{
    InterceptToolCall, TurnEndEvent, TurnEnded, TurnStart, TurnStartEvent,
};
use hookchain_core::{HookContext, HookResult, OnError, ToolCall};
use hookchain_runtime::{HookOptions, HooksBuilder};

/// The priority of the guard's hooks: after every other hook, so that a tool call another hook
/// blocks costs no snapshot.
pub const CHECKPOINT_PRIORITY: i32 = 1_000_000;

/// docker-agent's name for its shadow-git snapshots builtin, which loads as this guard
/// ([`GitCheckpoint::docker_agent_section`]).
pub const DOCKER_AGENT: &str = "snapshot";

/// The key of the turn's and the session's state that holds the last checkpoint's id.
pub const STATE_KEY: &str = "git-checkpoint";

/// The branch of the shadow repository whose commits are the checkpoints.
const BRANCH: &str = "refs/heads/checkpoints";

/// The file a shadow repository holds once it is set up, naming its project.
const MARKER: &str = "hookchain-project";

/// One snapshot at a time in this process: they share the shadow repository's index.
static SNAPSHOTS: Mutex<()> = Mutex::new(());

/// The `git-checkpoint` guard and its config (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GitCheckpoint {
    /// A snapshot at the start of every turn (default `true`).
    pub turn_start: bool,
    /// A snapshot before these tools run; `"*"` is every tool, `[]` none (default: the write
    /// and edit tools `protected-paths` knows and the shell tools `destructive-commands`
    /// knows).
    pub tools: Vec<String>,
    /// A snapshot when the turn ends, whatever the reason (default `false`).
    pub turn_end: bool,
    /// The project whose files are snapshotted (default: the session's project directory).
    pub project_dir: Option<String>,
    /// Where the shadow repositories live (default: `$XDG_STATE_HOME/hookchain/checkpoints`,
    /// else `~/.local/state/hookchain/checkpoints`).
    pub dir: Option<String>,
    /// Files larger than this many bytes are left out (default 2 MiB).
    pub max_file_bytes: u64,
    /// The files of one snapshot add up to at most this many bytes; those that do not fit are
    /// left out, with a warning (default 256 MiB).
    pub max_total_bytes: u64,
    /// The time limit of one snapshot, all its git commands together, in milliseconds
    /// (default 10000).
    pub timeout_ms: u64,
    /// A snapshot that fails blocks the turn or the tool call it was for, instead of warning
    /// (default `false`).
    pub required: bool,
}

impl Default for GitCheckpoint {
    fn default() -> Self {
        let mut tools = crate::ProtectedPaths::default().write_tools;
        tools.extend(crate::DestructiveCommands::default().shell_tools);
        GitCheckpoint {
            turn_start: true,
            tools,
            turn_end: false,
            project_dir: None,
            dir: None,
            max_file_bytes: 2 * 1024 * 1024,
            max_total_bytes: 256 * 1024 * 1024,
            timeout_ms: 10_000,
            required: false,
        }
    }
}

impl BuiltinExtension for GitCheckpoint {
    const NAME: &'static str = "git-checkpoint";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        let options = || {
            HookOptions::new(Self::NAME)
                .extension(Self::NAME)
                .priority(CHECKPOINT_PRIORITY)
                .on_error(OnError::Warn)
        };
        builder
            .hook_with(
                TurnStart,
                options(),
                |_: &TurnStartEvent, cx: &HookContext| {
                    hook(cx, |c| c.turn_start.then_some(Trigger::TurnStart))
                },
            )
            .hook_with(
                InterceptToolCall,
                options(),
                |call: &ToolCall, cx: &HookContext| {
                    hook(cx, |c| {
                        c.tools
                            .iter()
                            .any(|t| t == "*" || *t == call.name)
                            .then(|| Trigger::Tool(call.name.clone()))
                    })
                },
            )
            .hook_with(
                TurnEnded,
                options(),
                |_: &TurnEndEvent, cx: &HookContext| {
                    // `turn_end` cannot block: a required checkpoint that fails warns there.
                    match hook::<hookchain_core::Observed>(cx, |c| {
                        c.turn_end.then_some(Trigger::TurnEnd)
                    })? {
                        HookResult::Block(why) => Err(why.to_string()),
                        _ => Ok(()),
                    }
                },
            )
            .config_type::<GitCheckpoint>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

/// What a checkpoint was taken for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// The start of a turn.
    TurnStart,
    /// Before the tool of this name ran.
    Tool(String),
    /// The end of a turn.
    TurnEnd,
    /// Before the files were restored to the checkpoint of this id.
    Restore(String),
    /// Taken by the agent's own code, with its label.
    Manual(String),
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trigger::TurnStart => f.write_str("turn_start"),
            Trigger::Tool(name) => write!(f, "tool {name}"),
            Trigger::TurnEnd => f.write_str("turn_end"),
            Trigger::Restore(id) => write!(f, "restore {id}"),
            Trigger::Manual(label) => write!(f, "manual {label}"),
        }
    }
}

/// Who a snapshot is for: the session and the turn, and what triggered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// The session's id.
    pub session: String,
    /// The turn's index in its session.
    pub turn: u64,
    /// Why it is taken.
    pub trigger: Trigger,
}

/// A checkpoint: a snapshot in the shadow repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Its id (the shadow commit's hash), what [`GitCheckpoint::restore`] takes.
    pub id: String,
    /// When it was taken, in seconds since the Unix epoch.
    pub time: u64,
    /// One line saying what it is (`before \`write_file\` (session s1, turn 3)`).
    pub summary: String,
    /// The session it was taken in (empty for one taken outside a session).
    pub session: String,
    /// The turn it was taken in.
    pub turn: u64,
    /// What triggered it: `turn_start`, `tool <name>`, `turn_end`, `restore <id>`,
    /// `manual <label>`.
    pub trigger: String,
    /// What was left out, when something was (`3 files over 2097152 bytes`).
    pub left_out: Option<String>,
}

/// What a snapshot did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The checkpoint that holds the files now.
    pub id: String,
    /// `false` when the files were those of the last checkpoint, which is `id` (no new commit).
    pub new: bool,
    /// How many files it holds.
    pub files: usize,
    /// Files left out for their size.
    pub too_large: usize,
    /// Files left out because the snapshot reached `max_total_bytes`.
    pub over_total: usize,
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Restored {
    /// The checkpoint the files were restored to.
    pub checkpoint: String,
    /// The checkpoint taken just before restoring: restore it to undo the restore.
    pub before: String,
    /// The files written back, relative to the project.
    pub written: Vec<String>,
    /// The files removed (created after the checkpoint), relative to the project.
    pub removed: Vec<String>,
    /// The paths left alone, each with the reason.
    pub left_alone: Vec<(String, String)>,
}

/// Why a checkpoint could not be taken, listed or restored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// The project directory cannot be read.
    #[error(
        "the project directory {dir} cannot be read ({error}): set `project_dir` to a directory that exists"
    )]
    Project {
        /// The directory.
        dir: String,
        /// Why.
        error: String,
    },
    /// Neither `dir` nor a state directory is known.
    #[error(
        "git-checkpoint has nowhere to keep its checkpoints: neither `dir`, $XDG_STATE_HOME nor $HOME is set; set `dir`"
    )]
    NoStateDir,
    /// A file or directory could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The path.
        path: String,
        /// Why.
        error: String,
    },
    /// A git command failed, was too slow, or git is not installed.
    #[error("{0}")]
    Git(String),
    /// No checkpoint of this id for this project.
    #[error("no checkpoint `{id}` for {project}: `GitCheckpoint::list` gives the ids")]
    Unknown {
        /// The id asked for.
        id: String,
        /// The project.
        project: String,
    },
}

fn io(path: &Path, error: std::io::Error) -> CheckpointError {
    CheckpointError::Io {
        path: path.display().to_string(),
        error: error.to_string(),
    }
}

/// The guard's hook at any point: a snapshot when `wanted` says the config asks for one, its id
/// in the turn's and the session's state; a failure warns (`Err`), or blocks when `required`.
fn hook<R>(
    cx: &HookContext,
    wanted: impl FnOnce(&GitCheckpoint) -> Option<Trigger>,
) -> Result<HookResult<R>, String> {
    let config = cx.config::<GitCheckpoint>().map_err(|e| e.to_string())?;
    let Some(trigger) = wanted(&config) else {
        return Ok(HookResult::Pass);
    };
    let project = project_dir(&config.project_dir, &cx.project_dir());
    let what = match &trigger {
        Trigger::Tool(name) => format!("before `{name}`"),
        other => format!("at {other}"),
    };
    let label = Label {
        session: cx.session_id().to_owned(),
        turn: cx.turn(),
        trigger,
    };
    match config.snapshot(&project, &label) {
        Ok(snapshot) => {
            cx.turn_state().set(STATE_KEY, snapshot.id.clone());
            cx.session_state().set(STATE_KEY, snapshot.id.clone());
            cx.set_metadata(STATE_KEY, &snapshot.id);
            if snapshot.over_total > 0 {
                cx.warn(format!(
                    "{}: checkpoint {} of {} leaves out {} files: the snapshot reached \
                     `max_total_bytes` ({} bytes); a restore will not bring them back",
                    GitCheckpoint::NAME,
                    short(&snapshot.id),
                    project.display(),
                    snapshot.over_total,
                    config.max_total_bytes
                ));
            }
            Ok(HookResult::Pass)
        }
        Err(error) if config.required => Ok(HookResult::block(reason(
            GitCheckpoint::NAME,
            format!(
                "no checkpoint of {} could be taken {what} ({error}), and checkpoints are \
                 required (`required: true`): nothing runs without a way back",
                project.display()
            ),
        ))),
        Err(error) => Err(format!(
            "no checkpoint of {} {what}: {error}; the agent's work goes on without one",
            project.display()
        )),
    }
}

/// The first 12 characters of an id.
fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

impl GitCheckpoint {
    /// Takes a snapshot of `project`'s files now, labelled `label`: a new checkpoint, or the
    /// last one when no file changed since.
    pub fn snapshot(&self, project: &Path, label: &Label) -> Result<Snapshot, CheckpointError> {
        let _one_at_a_time = SNAPSHOTS.lock().unwrap_or_else(|e| e.into_inner());
        self.shadow(project, Instant::now())?.snapshot(self, label)
    }

    /// The checkpoints of `project`, newest first; none when it has no shadow repository yet.
    pub fn list(&self, project: &Path) -> Result<Vec<Checkpoint>, CheckpointError> {
        let shadow = self.shadow(project, Instant::now())?;
        if !shadow.is_set_up() || shadow.head()?.is_none() {
            return Ok(Vec::new());
        }
        let out = shadow.git(
            &["log", "-z", "--format=%H%x1f%ct%x1f%B", BRANCH, "--"],
            None,
        )?;
        Ok(String::from_utf8_lossy(&out)
            .split('\0')
            .filter(|record| !record.trim().is_empty())
            .filter_map(parse_checkpoint)
            .collect())
    }

    /// Puts `project`'s files back as they were in checkpoint `id` (a full id, or a prefix of at
    /// least 4 hex digits), after taking a checkpoint of them as they are now. Files created
    /// since `id` are removed; see the [module docs](self) for what is left alone.
    pub fn restore(&self, project: &Path, id: &str) -> Result<Restored, CheckpointError> {
        let _one_at_a_time = SNAPSHOTS.lock().unwrap_or_else(|e| e.into_inner());
        let shadow = self.shadow(project, Instant::now())?;
        let unknown = || CheckpointError::Unknown {
            id: id.to_owned(),
            project: shadow.project.display().to_string(),
        };
        if id.len() < 4 || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(unknown());
        }
        if !shadow.is_set_up() {
            return Err(unknown());
        }
        let target = shadow
            .git(
                &[
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    &format!("{id}^{{commit}}"),
                ],
                None,
            )
            .map_err(|_| unknown())?;
        let target = String::from_utf8_lossy(&target).trim().to_owned();
        let label = Label {
            session: String::new(),
            turn: 0,
            trigger: Trigger::Restore(short(&target).to_owned()),
        };
        let before = shadow.snapshot(self, &label)?;
        let diff = shadow.git(
            &[
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--name-status",
                &target,
                &before.id,
            ],
            None,
        )?;
        let mut restored = Restored {
            checkpoint: target.clone(),
            before: before.id,
            ..Restored::default()
        };
        let mut to_write = Vec::new();
        let diff = String::from_utf8_lossy(&diff);
        let mut fields = diff.split('\0').filter(|f| !f.is_empty());
        while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
            let on_disk = shadow.project.join(path);
            match status {
                // In the checkpoint taken now, not in the target: created since.
                "A" => match std::fs::symlink_metadata(&on_disk) {
                    Ok(meta) if !meta.is_dir() => {
                        std::fs::remove_file(&on_disk).map_err(|e| io(&on_disk, e))?;
                        remove_empty_parents(&shadow.project, &on_disk);
                        restored.removed.push(path.to_owned());
                    }
                    _ => {}
                },
                // In the target, not in the checkpoint taken now: gone since, unless a file no
                // checkpoint holds stands there.
                "D" if std::fs::symlink_metadata(&on_disk).is_ok() => restored.left_alone.push((
                    path.to_owned(),
                    "it exists and no checkpoint holds it (ignored or over the size cap), so \
                     it is not overwritten"
                        .to_owned(),
                )),
                _ => to_write.push(path.to_owned()),
            }
        }
        to_write.retain(|path| match in_the_way(&shadow.project, path) {
            Some(why) => {
                restored.left_alone.push((path.clone(), why));
                false
            }
            None => true,
        });
        shadow.git(&["read-tree", "-m", &target], None)?;
        if !to_write.is_empty() {
            let input = nul_list(&to_write);
            shadow.git(
                &["checkout-index", "-f", "-u", "-z", "--stdin"],
                Some(input),
            )?;
        }
        restored.written = to_write;
        Ok(restored)
    }

    /// The directory of the shadow repositories: `dir` (`~` expanded), else the state
    /// directory's.
    fn checkpoints_dir(&self) -> Result<PathBuf, CheckpointError> {
        if let Some(dir) = &self.dir {
            return Ok(
                crate::protected_paths::expand_home(dir).unwrap_or_else(|| PathBuf::from(dir))
            );
        }
        let state = std::env::var_os("XDG_STATE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| PathBuf::from(h).join(".local").join("state"))
            })
            .ok_or(CheckpointError::NoStateDir)?;
        Ok(state.join("hookchain").join("checkpoints"))
    }

    fn shadow(&self, project: &Path, start: Instant) -> Result<Shadow, CheckpointError> {
        let project = project
            .canonicalize()
            .map_err(|e| CheckpointError::Project {
                dir: project.display().to_string(),
                error: e.to_string(),
            })?;
        let dir = self.checkpoints_dir()?;
        let name: String = project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "root".to_owned())
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        let hash = fnv1a(project.to_string_lossy().as_bytes());
        let git_dir = dir.join(format!("{name}-{hash:016x}.git"));
        Ok(Shadow {
            index: git_dir.join("index"),
            git_dir,
            project,
            deadline: start + std::time::Duration::from_millis(self.timeout_ms),
            timeout_ms: self.timeout_ms,
        })
    }

    /// The section a docker-agent `{type: builtin, command: snapshot}` entry of the event whose
    /// point is `point` (and, on tool events, whose group has `matcher`) makes, put over the
    /// section earlier `snapshot` entries of the same file made (`existing`): the first one
    /// enables the guard with every trigger off, and each entry turns on its own —
    /// `session_start` and `turn_start` a snapshot at the turn's start (the first turn starts
    /// where the session does), `pre_tool_use` (and docker-agent's other tool-call phases)
    /// before the tools its matcher names (a matcher that is not a plain list of names, `*`
    /// or none: every tool), `turn_end`, `session_end` and `post_tool_use` at the turn's end
    /// (the files after a tool are those before the next write or at the turn's end).
    /// `snapshot` takes no `args`. Unlike docker-agent, which does nothing outside a git
    /// repository, the guard snapshots a plain directory too.
    ///
    /// ```
    /// use hookchain::guards::GitCheckpoint;
    ///
    /// let first = GitCheckpoint::docker_agent_section(None, "turn_start", None, &[]).unwrap();
    /// let both =
    ///     GitCheckpoint::docker_agent_section(Some(&first), "intercept_tool_call", Some("shell|edit_file"), &[])
    ///         .unwrap();
    /// assert_eq!(both["turn_start"], true);
    /// assert_eq!(both["tools"], serde_json::json!(["shell", "edit_file"]));
    /// assert_eq!(both["turn_end"], false);
    /// ```
    pub fn docker_agent_section(
        existing: Option<&Value>,
        point: &str,
        matcher: Option<&str>,
        args: &[String],
    ) -> Result<Value, String> {
        if !args.is_empty() {
            return Err(format!("`snapshot` takes no `args`, found {args:?}"));
        }
        let mut section = existing.cloned().unwrap_or_else(|| {
            serde_json::json!({
                "enabled": true,
                "turn_start": false,
                "tools": [],
                "turn_end": false,
                "project_dir": null,
            })
        });
        let Some(map) = section.as_object_mut() else {
            return Err("the `git-checkpoint` section is not a mapping".to_owned());
        };
        match point {
            "session_start" | "turn_start" => {
                map.insert("turn_start".to_owned(), true.into());
            }
            "intercept_tool_call" => {
                let mut tools: Vec<String> = map
                    .get("tools")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                let names = matcher.filter(|m| !m.is_empty() && *m != "*").filter(|m| {
                    m.split('|').all(|name| {
                        !name.is_empty()
                            && name
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || "_-:".contains(c))
                    })
                });
                match names {
                    Some(names) => {
                        for name in names.split('|') {
                            if !tools.iter().any(|t| t == name) {
                                tools.push(name.to_owned());
                            }
                        }
                    }
                    None => tools = vec!["*".to_owned()],
                }
                if tools.iter().any(|t| t == "*") {
                    tools = vec!["*".to_owned()];
                }
                map.insert("tools".to_owned(), tools.into());
            }
            "turn_end" | "session_end" | "transform_tool_result" | "after_tool_call" => {
                map.insert("turn_end".to_owned(), true.into());
            }
            other => {
                return Err(format!(
                    "`snapshot` runs on session_start, turn_start, pre_tool_use, post_tool_use, \
                     turn_end or session_end, not on `{other}`"
                ));
            }
        }
        Ok(section)
    }
}

/// FNV-1a, 64 bits: a name for a project's path that stays the same on every build.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Why writing `path` back would destroy what stands there: a directory at its place, or
/// something not a directory in the way of its parents.
fn in_the_way(project: &Path, path: &str) -> Option<String> {
    let full = project.join(path);
    if std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir()) {
        return Some("a directory stands where the file was, so it is not overwritten".to_owned());
    }
    let mut parent = full.parent();
    while let Some(dir) = parent {
        if dir == project {
            break;
        }
        if let Ok(meta) = std::fs::symlink_metadata(dir)
            && !meta.is_dir()
        {
            return Some(format!(
                "{} is not a directory now, so it is not replaced",
                dir.strip_prefix(project).unwrap_or(dir).display()
            ));
        }
        parent = dir.parent();
    }
    None
}

/// Removes the directories `removed` leaves empty, up to (not including) `project`.
fn remove_empty_parents(project: &Path, removed: &Path) {
    let mut parent = removed.parent();
    while let Some(dir) = parent {
        if dir == project || !dir.starts_with(project) || std::fs::remove_dir(dir).is_err() {
            break;
        }
        parent = dir.parent();
    }
}

/// One record of `git log -z --format=%H%x1f%ct%x1f%B`.
fn parse_checkpoint(record: &str) -> Option<Checkpoint> {
    let mut parts = record.trim_start_matches('\n').splitn(3, '\x1f');
    let id = parts.next()?.trim().to_owned();
    let time = parts.next()?.trim().parse().unwrap_or(0);
    let body = parts.next().unwrap_or("");
    let field = |key: &str| {
        body.lines()
            .find_map(|l| l.strip_prefix(key).map(|v| v.trim().to_owned()))
    };
    Some(Checkpoint {
        id,
        time,
        summary: body.lines().next().unwrap_or("").to_owned(),
        session: field("Session: ").unwrap_or_default(),
        turn: field("Turn: ").and_then(|t| t.parse().ok()).unwrap_or(0),
        trigger: field("Trigger: ").unwrap_or_default(),
        left_out: field("Left out: "),
    })
}

/// Paths as git's `-z --stdin` reads them: each ended by a NUL.
fn nul_list(paths: &[String]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for path in paths {
        bytes.extend_from_slice(path.as_bytes());
        bytes.push(0);
    }
    bytes
}

/// One line of text, without control characters (a session id goes into a commit message).
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A project's shadow repository.
struct Shadow {
    git_dir: PathBuf,
    index: PathBuf,
    project: PathBuf,
    /// When the snapshot's time is up.
    deadline: Instant,
    timeout_ms: u64,
}

impl Shadow {
    fn is_set_up(&self) -> bool {
        self.git_dir.join(MARKER).is_file()
    }

    /// Runs git on the shadow repository and the project, with what time is left.
    fn git(&self, args: &[&str], stdin: Option<Vec<u8>>) -> Result<Vec<u8>, CheckpointError> {
        self.git_with_index(&self.index, args, stdin)
    }

    fn git_with_index(
        &self,
        index: &Path,
        args: &[&str],
        stdin: Option<Vec<u8>>,
    ) -> Result<Vec<u8>, CheckpointError> {
        let left = self
            .deadline
            .saturating_duration_since(Instant::now())
            .as_millis() as u64;
        let no_hooks = self.git_dir.join("no-hooks");
        // Settings through the environment (`GIT_CONFIG_COUNT`), so that a message naming a
        // command names the command.
        let settings: [(&str, &OsStr); 9] = [
            ("core.fsmonitor", OsStr::new("false")),
            ("core.autocrlf", OsStr::new("false")),
            ("core.safecrlf", OsStr::new("false")),
            ("core.logAllRefUpdates", OsStr::new("false")),
            ("core.sparseCheckout", OsStr::new("false")),
            ("commit.gpgSign", OsStr::new("false")),
            ("gc.auto", OsStr::new("0")),
            ("maintenance.auto", OsStr::new("false")),
            ("core.hooksPath", no_hooks.as_os_str()),
        ];
        let names: Vec<(String, String)> = (0..settings.len())
            .map(|i| {
                (
                    format!("GIT_CONFIG_KEY_{i}"),
                    format!("GIT_CONFIG_VALUE_{i}"),
                )
            })
            .collect();
        let count = settings.len().to_string();
        let mut env: Vec<(&str, &OsStr)> = vec![
            ("GIT_DIR", self.git_dir.as_os_str()),
            ("GIT_WORK_TREE", self.project.as_os_str()),
            ("GIT_INDEX_FILE", index.as_os_str()),
            ("GIT_AUTHOR_NAME", OsStr::new("hookchain")),
            ("GIT_AUTHOR_EMAIL", OsStr::new("hookchain@localhost")),
            ("GIT_COMMITTER_NAME", OsStr::new("hookchain")),
            ("GIT_COMMITTER_EMAIL", OsStr::new("hookchain@localhost")),
            ("GIT_CONFIG_COUNT", OsStr::new(&count)),
        ];
        for ((key, value), (key_var, value_var)) in settings.iter().zip(&names) {
            env.push((key_var, OsStr::new(key)));
            env.push((value_var, value));
        }
        let result = run_git(&self.project, args, &env, stdin, left.min(self.timeout_ms));
        if let Err(why) = &result
            && why.contains("did not finish within")
        {
            // The git stopped here held the index's lock: nobody else writes this index.
            let _ = std::fs::remove_file(self.index.with_extension("lock"));
        }
        result.map_err(CheckpointError::Git)
    }

    /// Creates the shadow repository (again, when a setup was cut short) and writes what it
    /// ignores and how it stores files: every time, as the user's excludes may have changed.
    fn set_up(&self) -> Result<(), CheckpointError> {
        if !self.is_set_up() {
            if self.git_dir.exists() {
                std::fs::remove_dir_all(&self.git_dir).map_err(|e| io(&self.git_dir, e))?;
            }
            let parent = self.git_dir.parent().unwrap_or(&self.git_dir);
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            self.git(&["init", "-q", "--template="], None)?;
            self.git(&["symbolic-ref", "HEAD", BRANCH], None)?;
            let info = self.git_dir.join("info");
            std::fs::create_dir_all(&info).map_err(|e| io(&info, e))?;
            // No text conversion, no filter, no ident: the bytes on disk, stored as they are.
            let attributes = info.join("attributes");
            std::fs::write(
                &attributes,
                "* -text -filter -ident -working-tree-encoding\n",
            )
            .map_err(|e| io(&attributes, e))?;
            let marker = self.git_dir.join(MARKER);
            std::fs::write(&marker, format!("{}\n", self.project.display()))
                .map_err(|e| io(&marker, e))?;
        }
        let mut exclude = String::from("# hookchain git-checkpoint: the project's own excludes\n");
        let user_exclude = self.project.join(".git").join("info").join("exclude");
        if let Ok(text) = std::fs::read_to_string(&user_exclude) {
            exclude.push_str(&text);
            exclude.push('\n');
        }
        // The checkpoints' own directory, when it is inside the project.
        let dir = self.git_dir.parent().unwrap_or(&self.git_dir);
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
        if let Ok(inside) = dir.strip_prefix(&self.project) {
            exclude.push_str(&format!("/{}/\n", inside.display()));
        }
        let path = self.git_dir.join("info").join("exclude");
        std::fs::write(&path, exclude).map_err(|e| io(&path, e))
    }

    /// The last checkpoint's id, if any.
    fn head(&self) -> Result<Option<String>, CheckpointError> {
        let out = self.git(&["for-each-ref", "--format=%(objectname)", BRANCH], None)?;
        let id = String::from_utf8_lossy(&out).trim().to_owned();
        Ok((!id.is_empty()).then_some(id))
    }

    fn snapshot(&self, config: &GitCheckpoint, label: &Label) -> Result<Snapshot, CheckpointError> {
        self.set_up()?;
        // Every file git would not ignore, listed against an empty index.
        let scan_index = self.git_dir.join("scan-index");
        let _ = std::fs::remove_file(&scan_index);
        let found = self.git_with_index(
            &scan_index,
            &["ls-files", "-z", "--others", "--exclude-standard"],
            None,
        )?;
        let (mut taken, mut too_large, mut over_total, mut total) = (Vec::new(), 0, 0, 0u64);
        for path in String::from_utf8_lossy(&found).split('\0') {
            // A name ending in `/` is a nested repository: its files are its own.
            if path.is_empty() || path.ends_with('/') {
                continue;
            }
            let Ok(meta) = std::fs::symlink_metadata(self.project.join(path)) else {
                continue;
            };
            if meta.is_dir() {
                continue;
            }
            let size = meta.len();
            if size > config.max_file_bytes {
                too_large += 1;
            } else if total.saturating_add(size) > config.max_total_bytes {
                over_total += 1;
            } else {
                total += size;
                taken.push(path.to_owned());
            }
        }
        let cached = self.git(&["ls-files", "-z", "--cached"], None)?;
        let keep: BTreeSet<&str> = taken.iter().map(String::as_str).collect();
        let gone: Vec<String> = String::from_utf8_lossy(&cached)
            .split('\0')
            .filter(|p| !p.is_empty() && !keep.contains(p))
            .map(str::to_owned)
            .collect();
        if !gone.is_empty() {
            let input = nul_list(&gone);
            self.git(
                &["update-index", "--force-remove", "-z", "--stdin"],
                Some(input),
            )?;
        }
        if !taken.is_empty() {
            let input = nul_list(&taken);
            self.git(
                &[
                    "update-index",
                    "--add",
                    "--remove",
                    "--replace",
                    "-z",
                    "--stdin",
                ],
                Some(input),
            )?;
        }
        let tree = String::from_utf8_lossy(&self.git(&["write-tree"], None)?)
            .trim()
            .to_owned();
        let parent = self.head()?;
        if let Some(parent) = &parent {
            let parent_tree = self.git(&["rev-parse", &format!("{parent}^{{tree}}")], None)?;
            if String::from_utf8_lossy(&parent_tree).trim() == tree {
                return Ok(Snapshot {
                    id: parent.clone(),
                    new: false,
                    files: taken.len(),
                    too_large,
                    over_total,
                });
            }
        }
        let message = message(label, &self.project, too_large, over_total, config);
        let mut args = vec!["commit-tree", tree.as_str()];
        if let Some(parent) = &parent {
            args.extend(["-p", parent.as_str()]);
        }
        args.extend(["-F", "-"]);
        let id = String::from_utf8_lossy(&self.git(&args, Some(message.into_bytes()))?)
            .trim()
            .to_owned();
        self.git(
            &["update-ref", BRANCH, &id, parent.as_deref().unwrap_or("")],
            None,
        )?;
        Ok(Snapshot {
            id,
            new: true,
            files: taken.len(),
            too_large,
            over_total,
        })
    }
}

/// A checkpoint's commit message: a summary line, then one `Key: value` line each.
fn message(
    label: &Label,
    project: &Path,
    too_large: usize,
    over_total: usize,
    config: &GitCheckpoint,
) -> String {
    let session = one_line(&label.session);
    let summary = match &label.trigger {
        Trigger::TurnStart => format!("start of turn {} (session {session})", label.turn),
        Trigger::TurnEnd => format!("end of turn {} (session {session})", label.turn),
        Trigger::Tool(name) => format!(
            "before `{}` (session {session}, turn {})",
            one_line(name),
            label.turn
        ),
        Trigger::Restore(id) => format!("before restoring {id}"),
        Trigger::Manual(text) => one_line(text),
    };
    let mut text = format!(
        "{summary}\n\nSession: {session}\nTurn: {}\nTrigger: {}\nProject: {}\n",
        label.turn,
        one_line(&label.trigger.to_string()),
        project.display()
    );
    let mut left_out = Vec::new();
    if too_large > 0 {
        left_out.push(format!(
            "{too_large} files over {} bytes",
            config.max_file_bytes
        ));
    }
    if over_total > 0 {
        left_out.push(format!(
            "{over_total} files past the total of {} bytes",
            config.max_total_bytes
        ));
    }
    if !left_out.is_empty() {
        text.push_str(&format!("Left out: {}\n", left_out.join(", ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_reads_back_from_its_message() {
        let label = Label {
            session: "s\n1".into(),
            turn: 3,
            trigger: Trigger::Tool("write_file".into()),
        };
        let config = GitCheckpoint::default();
        let text = message(&label, Path::new("/p"), 2, 0, &config);
        let record = format!("abc123\x1f1700000000\x1f{text}");
        let checkpoint = parse_checkpoint(&record).unwrap();
        assert_eq!(checkpoint.id, "abc123");
        assert_eq!(checkpoint.time, 1_700_000_000);
        assert_eq!(
            checkpoint.summary,
            "before `write_file` (session s 1, turn 3)"
        );
        assert_eq!(checkpoint.session, "s 1");
        assert_eq!(checkpoint.turn, 3);
        assert_eq!(checkpoint.trigger, "tool write_file");
        assert_eq!(
            checkpoint.left_out.as_deref(),
            Some("2 files over 2097152 bytes")
        );
    }

    #[test]
    fn the_shadow_name_is_stable() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
