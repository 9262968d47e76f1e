//! The agent's side of the checkpoints: [`GitCheckpoint::snapshot`],
//! [`GitCheckpoint::list`] and [`GitCheckpoint::restore`].
//!
//! # The rules it keeps
//!
//! - Snapshots (and restores) of one process are taken one at a time: they share the shadow
//!   repository's index.
//! - A restore never loses what no checkpoint holds: it first takes a checkpoint of the files
//!   as they are, writes back only the files the target holds and that differ, removes the
//!   files created since, and leaves alone (and lists) a file no checkpoint holds and a path
//!   where a directory, or something in the way of its directories, now stands.

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use super::checkpoint::{
    Checkpoint, CheckpointError, Label, Restored, Snapshot, Trigger, io, parse_checkpoint, short,
};
use super::config::GitCheckpoint;
use super::shadow::{BRANCH, nul_list};

/// One snapshot at a time in this process: they share the shadow repository's index.
static SNAPSHOTS: Mutex<()> = Mutex::new(());

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
    /// since `id` are removed; see the [module docs](crate::git_checkpoint) for what is left alone.
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
