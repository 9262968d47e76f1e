//! `protected-paths`: blocks writes and edits to configured paths, with real path logic — by
//! write tools and by shell commands.
//!
//! # What it owns
//!
//! A write tool's call (by name, [`ProtectedPaths::write_tools`]) names the files it writes
//! under [`ProtectedPaths::path_keys`], at any depth of its args (`edits[2].file_path`), and, for
//! patch tools, in the patch text (`*** Update File: x`, `+++ b/x`).
//!
//! A shell tool's call (by name, [`ProtectedPaths::shell_tools`]; its command line under
//! [`ProtectedPaths::command_keys`], its working directory under
//! [`ProtectedPaths::workdir_keys`]) is read with the shell model, and the files the line
//! writes are judged as a write tool's: redirections (`>`, `>>`, `&>`, `<>`), `tee`, `sed -i`,
//! `perl -i`, the destination of `cp`, `mv`, `install`, `ln` (and the source `mv` removes, and
//! the file `ln` links to), `truncate`, `dd of=`, `touch`, `rm`, `unlink`, `shred`, `chmod`,
//! `chown`, `rsync`'s destination, `tar -x`'s directory, `curl -o`, `unzip -d`'s directory,
//! what `gzip` replaces, `git checkout -- PATH`, `git rm`, a file an editor opens (`vim -c wq
//! FILE`), `awk -i inplace`, `sqlite3`'s database, `sort -o`, `ssh-keygen`'s keys, `scp`'s
//! destination, … (the table is in `shell_call/writes.rs`) — through wrappers (`sudo`, `env`, `timeout`, `busybox`, `xargs`),
//! `bash -c` strings (`bash -euo pipefail -c '…'`), `env -S` strings, here-strings,
//! here-documents, `echo …` and `cat <<EOF` piped into a shell (`| sudo sh` too), a process
//! substitution a shell runs (`bash <(echo …)`), what `xargs` is fed by `echo`, a here-string
//! or a `find` (`find . -name .env | xargs rm`), substitutions and function bodies, and from
//! the directory each command runs in (`cd .git && …`). A deletion is a write: `rm -r` (and
//! `mv`, `chmod -R`, `chown -R`, `rsync --delete`) of a directory that holds a protected path
//! that exists is blocked too (`rm -rf .` holds `.git`), and so is a `find` that deletes or
//! runs a command that writes what it finds (`-exec rm {} +`, `-exec sudo rm {} +`, `-exec sh
//! -c 'rm "$1"' _ {} \;`; not `-exec cp {} /tmp`), when it may select a protected path in its
//! start directory (`find . -name .env -delete`; `find . -name '*.pyc' -delete` selects no
//! `.git`). Reads are not writes: `cat .env`, `cp .env.example x`.
//!
//! Each path, and each protected path, is resolved the way the file system will resolve it:
//!
//! - `~` and `$HOME` are the home directory; a relative path is relative to the project
//!   directory ([`ProtectedPaths::project_dir`], default: the session's project directory,
//!   `cx.project_dir()`), or for a shell command to the directory it runs in;
//! - `.` and `//` collapse and `..` climbs, so `src/../.git/config` is `.git/config` and a
//!   path that climbs out of the project lands where it lands;
//! - every symlink on the way is followed (a link in the project that points at `.git`, or at
//!   a directory outside the project, protects or exposes what it points at), component by
//!   component, as the kernel does — a path that does not exist yet is resolved as far as it
//!   exists;
//!
//! and the call is blocked when a resolved path is a protected path or inside one. Matching is
//! by path components, never substrings: `.github/x` is not inside `.git`.
//!
//! # What a shell command's unknown target means
//!
//! A target the line only computes when it runs is judged by what is known of it:
//!
//! - a glob or a brace expansion is expanded as bash expands it, against the files there are
//!   (`.gi*/config`, `~/.ssh/{authorized_keys,config}`), and each file it names is judged;
//! - a variable's default is what the word may be (`> ${OUT:-.env}` may write `.env`, and so
//!   may `> ${OUT:+.env}`), and a command substitution of `echo` or `printf` of known words
//!   is what it prints (`> $(echo .env)` writes `.env`), a file's word or a directory's
//!   (`cd ${D:-.git} && touch x`, `tar -xf x.tar -C $(echo .git)`);
//! - a word with a part nobody can tell before the run — a variable the guard does not know,
//!   a command substitution — is blocked when the directory known before that part is a
//!   protected path or inside one (`> ~/.ssh/$NAME`, `cp x .git/hooks/"$H"`), and passes
//!   otherwise: `> "$OUT"`, `tee "$LOG"` and `cp x "$DEST"` are ordinary work, and what
//!   they name cannot be known;
//! - a relative path after a `cd` the line makes unknown (`cd "$(…)" && echo x > config`) is
//!   judged from every directory the line is known to visit: where it starts and every
//!   directory a `cd` of it names.
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   protected-paths:
//!     enabled: true
//!     paths: [.git, hookchain.yaml, ~/.config/hookchain, ~/.ssh, "*.pem"]
//!     project_dir: /work/repo          # default: the session's project directory
//!     write_tools: [write_file, edit_file, Write, Edit, MultiEdit, apply_patch]   # and more, see below
//!     path_keys: [path, file_path]     # and more, see below
//!     shell_tools: [bash, Bash, shell]  # default: destructive-commands' shell_tools
//! ```
//!
//! A pattern with a `*` matches by glob: one without a `/` (`*.pem`) matches a file's name
//! anywhere, one with a `/` matches the path relative to the project directory.
//!
//! Known limits: what an interpreter's code writes (`python -c "open('.env','w')"`), and what a
//! program writes of its own accord (`git config`, a build, a git command that names no path: `git
//! clean -fdx`, `git reset --hard`), are not read; a directory removed whole is checked for the
//! protected paths given as paths, not for a glob (`rm -r certs` with `*.pem` protected), and
//! `find`'s `-name` is matched against a protected path's own name, not the names inside it (`find
//! . -name config -delete` is let through though it reaches `.git/config`); a symlink the same line
//! creates before writing through it is not followed unless it points at a protected path (then
//! `ln` itself is blocked); a case-insensitive file system is compared case-sensitively. The shell
//! model does not yet say what a `for` loop over a glob gives its variable, what arguments a
//! function is given (`f() { rm "$1"; }; f .env`), nor what `parallel` runs with its `:::` lists,
//! nor what a backslash-newline inside a word, `CDPATH=DIR cd`, `printf -v`, `read` or an array
//! make a word: such a target is judged as unknown.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::shell_call::{ShellCall, Write};
use crate::{BuiltinExtension, DestructiveCommands, hook_options, reason};
use hookchain_core::points::InterceptToolCall;
use hookchain_core::{HookContext, ToolCall};
use hookchain_core::{HookResult, project};
use hookchain_runtime::HooksBuilder;

/// The `protected-paths` guard and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{BuiltinsExt, ProtectedPaths};
/// use hookchain::prelude::*;
///
/// let project = std::env::temp_dir().join("protected-paths-doc");
/// let guard = ProtectedPaths {
///     paths: vec![".git".into()],
///     project_dir: Some(project.display().to_string()),
///     ..ProtectedPaths::default()
/// };
/// let hooks = Hooks::builder().builtin(guard).build().unwrap();
/// let turn = hooks.session("doc").begin_turn();
/// let write = |path: &str| ToolCall::new("write_file", json!({ "path": path, "content": "x" }));
/// assert!(turn.intercept_tool_call(write("src/../.git/config")).is_blocked());
/// assert!(!turn.intercept_tool_call(write(".github/workflows/ci.yml")).is_blocked());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProtectedPaths {
    /// The protected paths: relative to the project directory, absolute, `~/…`, or globs
    /// (default: `.git`, `hookchain.yaml`, `~/.config/hookchain`, `~/.ssh`).
    pub paths: Vec<String>,
    /// What relative paths are relative to (default: the session's project directory,
    /// `cx.project_dir()`, when the call is checked; a relative one is taken from it).
    pub project_dir: Option<String>,
    /// The tools that write or edit files (default: `write_file`, `edit_file`, `Write`,
    /// `Edit`, `MultiEdit`, `NotebookEdit`, `apply_patch`, `create_file`, `write_to_file`,
    /// `replace_in_file`, `str_replace_editor`, `str_replace_based_edit_tool`,
    /// `insert_edit_into_file`, `delete_file`, `move_file`, `rename_file`).
    pub write_tools: Vec<String>,
    /// The args that name a file a write tool writes (default: `path`, `file_path`,
    /// `filePath`, `target_file`, `notebook_path`, `filename`, `file`, `paths`, `source`,
    /// `destination`, `old_path`, `new_path`).
    pub path_keys: Vec<String>,
    /// The args of a patch tool that hold the patch text (default: `input`, `patch`, `diff`).
    pub patch_keys: Vec<String>,
    /// The tools whose calls are shell commands, whose writes are judged too (default:
    /// destructive-commands' `shell_tools`).
    pub shell_tools: Vec<String>,
    /// The args that hold a shell command (default: `command`, `cmd`).
    pub command_keys: Vec<String>,
    /// The args of a shell tool that hold its working directory, relative to the project
    /// directory (default: `cwd`, `workdir`, `working_directory`, `dir`).
    pub workdir_keys: Vec<String>,
}

impl Default for ProtectedPaths {
    fn default() -> Self {
        let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect();
        let shells = DestructiveCommands::default();
        ProtectedPaths {
            paths: strings(&[".git", "hookchain.yaml", "~/.config/hookchain", "~/.ssh"]),
            project_dir: None,
            write_tools: strings(&[
                "write_file",
                "edit_file",
                "Write",
                "Edit",
                "MultiEdit",
                "NotebookEdit",
                "apply_patch",
                "create_file",
                "write_to_file",
                "replace_in_file",
                "str_replace_editor",
                "str_replace_based_edit_tool",
                "insert_edit_into_file",
                "delete_file",
                "move_file",
                "rename_file",
            ]),
            path_keys: strings(&[
                "path",
                "file_path",
                "filePath",
                "target_file",
                "notebook_path",
                "filename",
                "file",
                "paths",
                "source",
                "destination",
                "old_path",
                "new_path",
            ]),
            patch_keys: strings(&["input", "patch", "diff"]),
            shell_tools: shells.shell_tools,
            command_keys: shells.command_keys,
            workdir_keys: strings(&["cwd", "workdir", "working_directory", "dir"]),
        }
    }
}

impl BuiltinExtension for ProtectedPaths {
    const NAME: &'static str = "protected-paths";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        builder
            .hook_with(InterceptToolCall, hook_options(Self::NAME), guard_hook)
            .config_type::<ProtectedPaths>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

/// The hook: blocks the call [`ProtectedPaths::check_call`] refuses.
fn guard_hook(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, String> {
    let config = cx.config::<ProtectedPaths>().map_err(|e| e.to_string())?;
    Ok(match config.check_call_in(call, &cx.project_dir())? {
        Some(why) => HookResult::block(reason(ProtectedPaths::NAME, why)),
        None => HookResult::Pass,
    })
}

impl ProtectedPaths {
    /// Why `call` must not run, or `None` (also for a tool that is neither a write tool nor a
    /// shell tool). An error when the project directory is not configured and the current
    /// directory cannot be read.
    pub fn check_call(&self, call: &ToolCall) -> Result<Option<String>, String> {
        self.check_call_in(call, &project::decide(None))
    }

    /// [`check_call`](Self::check_call) in a session whose project directory is `session`.
    fn check_call_in(&self, call: &ToolCall, session: &Path) -> Result<Option<String>, String> {
        if self.shell_tools.contains(&call.name) {
            let project = self.project(session)?;
            if let Some(shell) =
                ShellCall::read(&call.args, &self.command_keys, &self.workdir_keys, &project)
                && let Some(why) = self.check_shell(&shell, &project)
            {
                return Ok(Some(format!("`{}` {why}", call.name)));
            }
        }
        if !self.write_tools.contains(&call.name) {
            return Ok(None);
        }
        let mut paths = Vec::new();
        self.collect_paths(&call.args, &mut paths);
        if paths.is_empty() {
            return Ok(None);
        }
        let project = self.project(session)?;
        Ok(paths
            .iter()
            .find_map(|p| self.check_path_in(p, &project))
            .map(|why| format!("`{}` {why}", call.name)))
    }

    /// Why the shell command line `line`, run in the project directory, must not run, or
    /// `None`: it writes a protected path.
    ///
    /// ```
    /// use hookchain::guards::ProtectedPaths;
    ///
    /// let guard = ProtectedPaths {
    ///     paths: vec![".env".into()],
    ///     project_dir: Some("/work/repo".into()),
    ///     ..ProtectedPaths::default()
    /// };
    /// assert!(guard.check_command("bash -c 'echo KEY=x >> .env'").unwrap().is_some());
    /// assert!(guard.check_command("cp .env.example .env.sample").unwrap().is_none());
    /// ```
    pub fn check_command(&self, line: &str) -> Result<Option<String>, String> {
        let project = self.project(&project::decide(None))?;
        Ok(self.check_shell(&ShellCall::read_line(line, &project), &project))
    }

    /// Why the shell call's writes must not happen, or `None`.
    fn check_shell(&self, shell: &ShellCall, project: &Path) -> Option<String> {
        shell
            .writes()
            .iter()
            .find_map(|write| self.check_write(write, project))
    }

    /// Why one write of a shell command must not happen, or `None`.
    fn check_write(&self, write: &Write, project: &Path) -> Option<String> {
        let with = format!("with `{}`", write.by);
        for path in &write.paths {
            let text = path.to_string_lossy();
            // A name removed: a symlink there is removed, not what it points at (but `link/`
            // and `link/.` go through it).
            let last_is_name =
                !text.ends_with('/') && !text.ends_with("/.") && !text.ends_with("..");
            let target = match (path.parent(), path.file_name()) {
                (Some(parent), Some(name)) if write.removes && last_is_name => {
                    resolve(&parent.to_string_lossy(), project).join(name)
                }
                _ => resolve(&text, project),
            };
            if let Some(pattern) = self.protected_by(&target, project) {
                return Some(format!(
                    "would write `{}`{} {with}, inside the protected path `{pattern}`: {FIX}",
                    write.shown,
                    resolves_to(&write.shown, &target),
                ));
            }
            if let Some(finds) = &write.finds
                && let Some(pattern) =
                    self.held_by(&target, project, |inside| finds.may_select(inside))
            {
                return Some(format!(
                    "would delete or change what `find` selects in `{}`{} {with}, and it may \
                     select the protected path `{pattern}`: {FIX}",
                    write.shown,
                    resolves_to(&write.shown, &target),
                ));
            }
            if write.tree
                && let Some(pattern) = self.held_by(&target, project, |_| true)
            {
                return Some(format!(
                    "would change `{}`{} and all it holds {with}, and it holds the protected \
                     path `{pattern}`: {FIX}",
                    write.shown,
                    resolves_to(&write.shown, &target),
                ));
            }
        }
        for dir in write.unknown_in.iter().flatten() {
            let target = resolve(&dir.to_string_lossy(), project);
            if let Some(pattern) = self.protected_by(&target, project) {
                return Some(format!(
                    "would write `{}` {with}, a file in {}, inside the protected path \
                     `{pattern}` (what it names is only known when it runs): {FIX}",
                    write.shown,
                    target.display(),
                ));
            }
        }
        None
    }

    /// Why writing `path` must not happen, or `None`.
    ///
    /// ```
    /// use hookchain::guards::ProtectedPaths;
    ///
    /// let guard = ProtectedPaths {
    ///     paths: vec!["secrets".into()],
    ///     project_dir: Some("/work/repo".into()),
    ///     ..ProtectedPaths::default()
    /// };
    /// assert!(guard.check_path("./src/../secrets/prod.yaml").unwrap().is_some());
    /// assert!(guard.check_path("/work/repo/secrets").unwrap().is_some());
    /// assert!(guard.check_path("secrets-notes.md").unwrap().is_none());
    /// ```
    pub fn check_path(&self, path: &str) -> Result<Option<String>, String> {
        let project = self.project(&project::decide(None))?;
        Ok(self.check_path_in(path, &project))
    }

    fn project(&self, session: &Path) -> Result<PathBuf, String> {
        project_dir(self.project_dir.as_deref(), session, Self::NAME)
    }

    fn check_path_in(&self, raw: &str, project: &Path) -> Option<String> {
        let target = resolve(raw, project);
        let pattern = self.protected_by(&target, project)?;
        Some(format!(
            "would write `{raw}`{}, inside the protected path `{pattern}`: {FIX}",
            resolves_to(raw, &target)
        ))
    }

    /// The protected path that covers the resolved path `target`.
    fn protected_by(&self, target: &Path, project: &Path) -> Option<&str> {
        self.paths
            .iter()
            .find(|pattern| covers(pattern, target, project))
            .map(String::as_str)
    }

    /// The protected path (given as a path, not a glob) that exists inside the resolved
    /// directory `target` and that `reached` (given its path below `target`) says is reached.
    fn held_by(
        &self,
        target: &Path,
        project: &Path,
        reached: impl Fn(&Path) -> bool,
    ) -> Option<&str> {
        self.paths
            .iter()
            .filter(|pattern| !pattern.contains('*'))
            .find(|pattern| {
                let protected = resolve(pattern, project);
                protected.strip_prefix(target).is_ok_and(&reached)
                    && std::fs::symlink_metadata(&protected).is_ok()
            })
            .map(String::as_str)
    }

    fn collect_paths(&self, value: &Value, out: &mut Vec<String>) {
        collect_paths(value, &self.path_keys, &self.patch_keys, out);
    }
}

/// What every block ends with: what to do instead.
const FIX: &str = "protected paths are not written by the agent; ask the user to change it";

/// " (it resolves to /x/y)" when `raw` is not already the path it resolves to, else "".
fn resolves_to(raw: &str, target: &Path) -> String {
    if raw == target.to_string_lossy() {
        String::new()
    } else {
        format!(" (it resolves to {})", target.display())
    }
}

/// Every string under one of `path_keys`, at any depth of `value`, and the files a patch text
/// under one of `patch_keys` names.
pub(crate) fn collect_paths(
    value: &Value,
    path_keys: &[String],
    patch_keys: &[String],
    out: &mut Vec<String>,
) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                if path_keys.iter().any(|k| k == key) {
                    match value {
                        Value::String(s) => out.push(s.clone()),
                        Value::Array(items) => {
                            out.extend(items.iter().filter_map(Value::as_str).map(str::to_owned))
                        }
                        other => collect_paths(other, path_keys, patch_keys, out),
                    }
                } else if patch_keys.iter().any(|k| k == key)
                    && let Value::String(patch) = value
                {
                    out.extend(patch_files(patch));
                } else {
                    collect_paths(value, path_keys, patch_keys, out);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_paths(item, path_keys, patch_keys, out);
            }
        }
        _ => {}
    }
}

/// The directory relative paths are relative to: the configured `dir` (`~` expanded; a
/// relative one taken from the session's project directory `session`), else `session` itself
/// ([`HookContext::project_dir`]); `guard` names who asks, in the error.
pub(crate) fn project_dir(
    dir: Option<&str>,
    session: &Path,
    guard: &str,
) -> Result<PathBuf, String> {
    let dir = match dir {
        Some(dir) => session.join(expand_home(dir).unwrap_or_else(|| PathBuf::from(dir))),
        None => session.to_path_buf(),
    };
    match dir.is_absolute() {
        true => Ok(dir),
        false => Err(format!(
            "{guard} cannot tell where relative paths point: the session has no project \
             directory and the current directory cannot be read; set `project_dir`"
        )),
    }
}

/// Whether the path pattern `pattern` covers the resolved path `target`: a path (relative to
/// `project`, absolute, `~/…`) when `target` is it or inside it; a glob without a `/` (`*.pem`)
/// by the file's name; a glob with a `/` by the path relative to `project`.
pub(crate) fn covers(pattern: &str, target: &Path, project: &Path) -> bool {
    if pattern.contains('*') {
        if pattern.contains('/') {
            target
                .strip_prefix(resolve(".", project))
                .ok()
                .is_some_and(|rel| glob_path(pattern, &rel.to_string_lossy()))
        } else {
            target
                .file_name()
                .is_some_and(|n| crate::destructive_commands::glob(pattern, &n.to_string_lossy()))
        }
    } else {
        target.starts_with(resolve(pattern, project))
    }
}

/// The files a patch writes: `*** Add File:`, `*** Update File:`, `*** Delete File:`,
/// `*** Move to:` (the apply_patch format) and `+++ b/x`, `--- a/x` (a unified diff).
fn patch_files(patch: &str) -> Vec<String> {
    let mut files = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end();
        for prefix in [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ] {
            if let Some(file) = line.strip_prefix(prefix) {
                files.push(file.trim().to_owned());
            }
        }
        for prefix in ["+++ ", "--- "] {
            if let Some(file) = line.strip_prefix(prefix) {
                let file = file.split('\t').next().unwrap_or(file).trim();
                if file == "/dev/null" {
                    continue;
                }
                let file = file
                    .strip_prefix("a/")
                    .or_else(|| file.strip_prefix("b/"))
                    .unwrap_or(file);
                files.push(file.to_owned());
            }
        }
    }
    files
}

/// `~`, `~/x`, `$HOME`, `$HOME/x`, `${HOME}/x` with the home directory in.
pub(crate) fn expand_home(raw: &str) -> Option<PathBuf> {
    let rest = if raw == "~" || raw == "$HOME" || raw == "${HOME}" {
        ""
    } else {
        raw.strip_prefix("~/")
            .or_else(|| raw.strip_prefix("$HOME/"))
            .or_else(|| raw.strip_prefix("${HOME}/"))?
    };
    let home = std::env::var_os("HOME").map(PathBuf::from)?;
    Some(if rest.is_empty() {
        home
    } else {
        home.join(rest)
    })
}

/// How many symlinks one path may go through (as the kernel's `ELOOP` limit).
const MAX_LINKS: usize = 40;

/// Where `raw` points, relative paths against `project`: `~` expanded, `.` and `..` applied
/// and symlinks followed component by component, as far as the path exists.
pub(crate) fn resolve(raw: &str, project: &Path) -> PathBuf {
    let path = expand_home(raw).unwrap_or_else(|| PathBuf::from(raw));
    let path = if path.is_absolute() {
        path
    } else {
        project.join(path)
    };
    let mut resolved = PathBuf::new();
    let mut links = 0;
    // Components still to walk, last first.
    let mut todo: Vec<std::ffi::OsString> = Vec::new();
    push_components(&path, &mut todo, &mut resolved);
    while let Some(part) = todo.pop() {
        if part == ".." {
            resolved.pop();
            continue;
        }
        if part == "." || part.is_empty() {
            continue;
        }
        resolved.push(&part);
        if links < MAX_LINKS
            && let Ok(meta) = std::fs::symlink_metadata(&resolved)
            && meta.file_type().is_symlink()
            && let Ok(target) = std::fs::read_link(&resolved)
        {
            links += 1;
            resolved.pop();
            push_components(&target, &mut todo, &mut resolved);
        }
    }
    if resolved.as_os_str().is_empty() {
        resolved.push("/");
    }
    resolved
}

/// Puts `path`'s components on `todo` (to be walked first), restarting `resolved` at the root
/// for an absolute path.
fn push_components(path: &Path, todo: &mut Vec<std::ffi::OsString>, resolved: &mut PathBuf) {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => {
                *resolved = PathBuf::from(prefix.as_os_str());
            }
            Component::RootDir => {
                let prefix = match resolved.components().next() {
                    Some(Component::Prefix(p)) => PathBuf::from(p.as_os_str()),
                    _ => PathBuf::new(),
                };
                *resolved = prefix;
                resolved.push(Component::RootDir.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => parts.push("..".into()),
            Component::Normal(part) => parts.push(part.to_owned()),
        }
    }
    todo.extend(parts.into_iter().rev());
}

/// A glob with `*` (not crossing `/`) against a path relative to the project directory.
fn glob_path(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern.trim_start_matches("./").split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    path.len() >= pattern.len()
        && pattern
            .iter()
            .zip(&path)
            .all(|(p, s)| crate::destructive_commands::glob(p, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BuiltinsExt;
    use serde_json::json;

    #[test]
    fn relative_paths_are_relative_to_the_sessions_project_directory() {
        let guard = ProtectedPaths {
            paths: vec!["secrets".into()],
            ..ProtectedPaths::default()
        };
        let hooks = HooksBuilder::new().builtin(guard).build().unwrap();
        let write = |path: &str| ToolCall::new("write_file", json!({ "path": path }));
        let shop = hooks.session("project-shop");
        shop.set_project_dir("/nonexistent-shop");
        let other = hooks.session("project-other");
        other.set_project_dir("/nonexistent-other");
        let (in_shop, in_other) = (shop.begin_turn(), other.begin_turn());
        assert!(
            in_shop
                .intercept_tool_call(write("secrets/key"))
                .is_blocked()
        );
        assert!(
            in_other
                .intercept_tool_call(write("secrets/key"))
                .is_blocked()
        );
        // A path into the other session's project is protected there only.
        let shop_secret = "/nonexistent-shop/secrets/key";
        assert!(in_shop.intercept_tool_call(write(shop_secret)).is_blocked());
        assert!(
            !in_other
                .intercept_tool_call(write(shop_secret))
                .is_blocked()
        );
        in_shop.end(hookchain_core::TurnEnd::Normal);
        in_other.end(hookchain_core::TurnEnd::Normal);
    }

    #[test]
    fn a_relative_project_dir_is_taken_from_the_sessions() {
        let session = Path::new("/nonexistent-session");
        let dir = project_dir(Some("sub"), session, "g").unwrap();
        assert_eq!(dir, Path::new("/nonexistent-session/sub"));
        assert_eq!(project_dir(None, session, "g").unwrap(), session);
        let error = project_dir(None, Path::new("."), "protected-paths").unwrap_err();
        assert!(error.contains("set `project_dir`"), "{error}");
    }

    #[test]
    fn patches_name_their_files() {
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n*** Add File: .git/hooks/x\n*** End Patch";
        assert_eq!(patch_files(patch), ["src/a.rs", ".git/hooks/x"]);
        let diff = "--- a/src/b.rs\n+++ b/src/b.rs\n@@ -1 +1 @@\n";
        assert_eq!(patch_files(diff), ["src/b.rs", "src/b.rs"]);
    }

    #[test]
    fn dot_dot_climbs_lexically_where_nothing_exists() {
        let project = Path::new("/nonexistent-project-xyz");
        assert_eq!(
            resolve("src/../.git/config", project),
            Path::new("/nonexistent-project-xyz/.git/config")
        );
        assert_eq!(resolve("../../../etc", project), Path::new("/etc"));
        assert_eq!(resolve("/a//b/./c", project), Path::new("/a/b/c"));
    }
}
