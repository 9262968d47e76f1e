//! The shadow repository: one git repository per project, with an index of its own, that the
//! guard's snapshots are commits of — where it lives, how git is run on it, and how a snapshot
//! becomes a commit.
//!
//! # The rules it keeps
//!
//! - The user's git is never touched: every command runs with `GIT_DIR`, `GIT_WORK_TREE` and
//!   `GIT_INDEX_FILE` set to the shadow's (so the project's `.git/config` is never read), with
//!   every program-running setting off ([`crate::git`]), end-of-line conversion off, and the
//!   shadow's `info/attributes` unsetting every filter, text conversion and encoding of the
//!   project's `.gitattributes`.
//! - The git commands of one snapshot share its time limit; a git stopped for it leaves no
//!   `index.lock` behind.
//! - A snapshot takes every file git would not ignore, within the size caps, and makes no new
//!   commit when the files are those of the last checkpoint.
//! - A repository's name is the project's name and a hash of its path that stays the same on
//!   every build.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::checkpoint::{CheckpointError, Label, Snapshot, io, message};
use super::config::GitCheckpoint;
use crate::project_file::{FileError, Links, read_capped};

/// The largest `.git/info/exclude` honoured, in bytes.
const MAX_EXCLUDE_BYTES: u64 = 1024 * 1024;

/// The branch of the shadow repository whose commits are the checkpoints.
pub(super) const BRANCH: &str = "refs/heads/checkpoints";

/// The file a shadow repository holds once it is set up, naming its project.
const MARKER: &str = "hookchain-project";

impl GitCheckpoint {
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

    /// The shadow repository of `project`, its time limit counted from `start`.
    pub(super) fn shadow(&self, project: &Path, start: Instant) -> Result<Shadow, CheckpointError> {
        let project = project
            .canonicalize()
            .map_err(|e| CheckpointError::Project {
                dir: project.display().to_string(),
                error: e.to_string(),
            })?;
        let dir = self.checkpoints_dir()?;
        if let Some(git_dir) = inside_git_dir(&dir, &project) {
            return Err(CheckpointError::InsideGitDir {
                dir: dir.display().to_string(),
                git_dir: git_dir.display().to_string(),
            });
        }
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
            deadline: start + Duration::from_millis(self.timeout_ms),
            timeout_ms: self.timeout_ms,
        })
    }
}

/// `path` made absolute, with its longest existing ancestor's symlinks resolved.
fn resolved(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut at = path.as_path();
    loop {
        if let Ok(real) = at.canonicalize() {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                at = parent;
            }
            _ => return path,
        }
    }
}

/// The git directory `dir` is in, or is: a directory named `.git` on its path, or the
/// project's git directory (`.git`, through a symlink or a `gitdir:` file).
fn inside_git_dir(dir: &Path, project: &Path) -> Option<PathBuf> {
    let dir = resolved(dir);
    let mut at = PathBuf::new();
    for part in dir.components() {
        at.push(part);
        if part.as_os_str() == ".git" {
            return Some(at);
        }
    }
    let dot_git = project.join(".git");
    let git_dir = match std::fs::symlink_metadata(&dot_git) {
        Ok(meta) if meta.is_file() => {
            let text = read_capped(&dot_git, Links::Refuse, 4096, Duration::from_secs(1)).ok()?;
            let text = String::from_utf8_lossy(&text.bytes).into_owned();
            let named = text
                .lines()
                .find_map(|l| l.strip_prefix("gitdir:"))?
                .trim()
                .to_owned();
            project.join(named)
        }
        Ok(_) => dot_git,
        Err(_) => return None,
    };
    let git_dir = git_dir.canonicalize().ok()?;
    dir.starts_with(&git_dir).then_some(git_dir)
}

/// FNV-1a, 64 bits: a name for a project's path that stays the same on every build.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Paths as git's `-z --stdin` reads them: each ended by a NUL.
pub(super) fn nul_list(paths: &[String]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for path in paths {
        bytes.extend_from_slice(path.as_bytes());
        bytes.push(0);
    }
    bytes
}

/// A project's shadow repository.
pub(super) struct Shadow {
    git_dir: PathBuf,
    index: PathBuf,
    pub(super) project: PathBuf,
    /// When the snapshot's time is up.
    deadline: Instant,
    timeout_ms: u64,
}

impl Shadow {
    pub(super) fn is_set_up(&self) -> bool {
        self.git_dir.join(MARKER).is_file()
    }

    /// Runs git on the shadow repository and the project, with what time is left.
    pub(super) fn git(
        &self,
        args: &[&str],
        stdin: Option<Vec<u8>>,
    ) -> Result<Vec<u8>, CheckpointError> {
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
        let no_hooks = no_hooks.to_string_lossy();
        // After `crate::git::NEUTRAL`, which switches off every program-running setting.
        let settings: [(&str, &str); 5] = [
            ("core.autocrlf", "false"),
            ("core.safecrlf", "false"),
            ("core.logAllRefUpdates", "false"),
            ("core.sparseCheckout", "false"),
            ("core.hooksPath", &no_hooks),
        ];
        let env = crate::git::vars(&[
            ("GIT_DIR", self.git_dir.as_os_str()),
            ("GIT_WORK_TREE", self.project.as_os_str()),
            ("GIT_INDEX_FILE", index.as_os_str()),
            ("GIT_AUTHOR_NAME", OsStr::new("hookchain")),
            ("GIT_AUTHOR_EMAIL", OsStr::new("hookchain@localhost")),
            ("GIT_COMMITTER_NAME", OsStr::new("hookchain")),
            ("GIT_COMMITTER_EMAIL", OsStr::new("hookchain@localhost")),
        ]);
        let result = crate::git::run(
            &self.project,
            args,
            &env,
            &settings,
            stdin,
            left.min(self.timeout_ms),
        );
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
    fn set_up(&self, warnings: &mut Vec<String>) -> Result<(), CheckpointError> {
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
        match self.user_exclude() {
            Ok(Some(text)) => {
                exclude.push_str(&text);
                exclude.push('\n');
            }
            Ok(None) => {}
            Err(why) => warnings.push(why),
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

    /// The text of the project's `.git/info/exclude`, when there is one to honour: never read
    /// through a symlink (of `.git`, `info` or the file), never a FIFO or a device, at most
    /// [`MAX_EXCLUDE_BYTES`], within the snapshot's time; a file that is not honoured is a
    /// warning saying why.
    fn user_exclude(&self) -> Result<Option<String>, String> {
        let git = self.project.join(".git");
        let info = git.join("info");
        for dir in [&git, &info] {
            match std::fs::symlink_metadata(dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(format!(
                        "{} is a symbolic link, so the excludes under it are not read (a \
                         symlink is never followed)",
                        dir.display()
                    ));
                }
                _ => return Ok(None),
            }
        }
        let path = info.join("exclude");
        let left = self.deadline.saturating_duration_since(Instant::now());
        match read_capped(&path, Links::Refuse, MAX_EXCLUDE_BYTES, left) {
            Ok(read) if read.len > MAX_EXCLUDE_BYTES => Err(format!(
                "{} is larger than {MAX_EXCLUDE_BYTES} bytes, so it is not honoured",
                path.display()
            )),
            Ok(read) => Ok(Some(String::from_utf8_lossy(&read.bytes).into_owned())),
            Err(FileError::NotFound) => Ok(None),
            Err(e) => Err(format!("{} is not honoured: {e}", path.display())),
        }
    }

    /// The last checkpoint's id, if any.
    pub(super) fn head(&self) -> Result<Option<String>, CheckpointError> {
        let out = self.git(&["for-each-ref", "--format=%(objectname)", BRANCH], None)?;
        let id = String::from_utf8_lossy(&out).trim().to_owned();
        Ok((!id.is_empty()).then_some(id))
    }

    pub(super) fn snapshot(
        &self,
        config: &GitCheckpoint,
        label: &Label,
    ) -> Result<Snapshot, CheckpointError> {
        let mut warnings = Vec::new();
        self.set_up(&mut warnings)?;
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
            if !meta.is_file() && !meta.file_type().is_symlink() {
                warnings.push(format!(
                    "{path} is not a regular file or a symbolic link (a FIFO, a device or a \
                     socket), so it is left out"
                ));
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
                    warnings,
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
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shadow_name_is_stable() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
