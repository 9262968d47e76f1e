//! What a checkpoint is: what it was taken for ([`Trigger`], [`Label`]), the records the guard
//! returns ([`Checkpoint`], [`Snapshot`], [`Restored`]), its errors ([`CheckpointError`]), and
//! the commit message that carries a checkpoint's label in the shadow repository.
//!
//! # The rules it keeps
//!
//! - A message is a summary line, then one `Key: value` line each (`Session`, `Turn`,
//!   `Trigger`, `Project`, `Left out`), with no control characters, so a checkpoint reads back
//!   from its commit as it was labelled.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::config::GitCheckpoint;

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
    /// What the snapshot could not honour or take, each a sentence naming the file and why
    /// (a `.git/info/exclude` that is a symlink or a FIFO, a FIFO or device in the project).
    pub warnings: Vec<String>,
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
    /// The shadow repositories' directory is the project's git directory or inside it.
    #[error(
        "git-checkpoint's `dir` ({dir}) is inside the project's git directory {git_dir}, which \
         git-checkpoint never touches: set `dir` to a directory outside it, or leave `dir` out \
         to keep the checkpoints in the state directory"
    )]
    InsideGitDir {
        /// The directory `dir` names, resolved.
        dir: String,
        /// The git directory it is in.
        git_dir: String,
    },
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

/// An I/O error on `path`.
pub(super) fn io(path: &Path, error: std::io::Error) -> CheckpointError {
    CheckpointError::Io {
        path: path.display().to_string(),
        error: error.to_string(),
    }
}

/// The first 12 characters of an id.
pub(super) fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

/// One record of `git log -z --format=%H%x1f%ct%x1f%B`.
pub(super) fn parse_checkpoint(record: &str) -> Option<Checkpoint> {
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

/// One line of text, without control characters (a session id goes into a commit message).
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A checkpoint's commit message: a summary line, then one `Key: value` line each.
pub(super) fn message(
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
}
