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
//!   `info/exclude` is read, to honour it: never through a symlink, never when it is a FIFO or
//!   a device — a warning says so —, at most 1 MiB, within the time limit). Git hooks,
//!   filters (LFS), end-of-line conversion, fsmonitor and every other program-running setting
//!   are off for the shadow repository: a snapshot stores the bytes on disk.
//! - **Never inside the project's `.git`**: a [`dir`](GitCheckpoint::dir) that is the
//!   project's git directory, or inside it (or inside any directory named `.git`), is refused
//!   with [`CheckpointError::InsideGitDir`], whoever set it.
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

mod checkpoint;
mod config;
mod history;
mod hooks;
mod shadow;

pub use checkpoint::{Checkpoint, CheckpointError, Label, Restored, Snapshot, Trigger};
pub use config::{DOCKER_AGENT, GitCheckpoint};
pub use hooks::{CHECKPOINT_PRIORITY, STATE_KEY};
