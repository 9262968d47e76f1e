//! Running git in a repository someone else wrote: every `git` command the guards and
//! injectors run is built here, with every setting of the repository that would run a program
//! switched off, and with a time limit.
//!
//! # What it owns
//!
//! [`in_project`], which runs git in a project's own repository (`add-git-status`,
//! `add-git-diff`, `add-recent-commits`, `add-environment-info`), and [`run`], which runs it with
//! the caller's environment (git-checkpoint's shadow repository sets `GIT_DIR`,
//! `GIT_WORK_TREE` and `GIT_INDEX_FILE`).
//!
//! # The rules it keeps
//!
//! A repository is untrusted input: its `.git/config` (and the files it includes), its
//! `.gitattributes` and `.git/info/attributes` are written by whoever wrote the repository.
//! git reads them and runs the programs they name. So:
//!
//! - **Every program-running setting is overridden** by [`NEUTRAL`], passed as command-line
//!   settings (`GIT_CONFIG_COUNT`), which win over every config file:
//!
//!   | setting | what it would run | set to |
//!   |---|---|---|
//!   | `core.fsmonitor` | a command at every read of the index (`status`, `diff`, `ls-files`) | `false` |
//!   | `core.hooksPath` (and `.git/hooks/`) | hooks (`post-index-change`, `reference-transaction`, …) | `/dev/null` (the shadow repository: a directory of its own with none) |
//!   | `core.pager`, `pager.<cmd>` | a pager | `cat`, and `--no-pager`, `GIT_PAGER=cat`, `PAGER=cat` |
//!   | `core.editor`, `sequence.editor` | an editor | `false` |
//!   | `core.sshCommand`, `core.askPass`, `credential.helper` | ssh, a password prompt, a credential helper (network only) | `false`, `false`, empty (no helper) |
//!   | `core.alternateRefsCommand` | a command listing the refs of alternates | empty (none) |
//!   | `diff.external` | an external diff program | empty, and `--no-ext-diff` |
//!   | `log.showSignature`, `gpg.program`, `gpg.<format>.program`, `gpg.ssh.defaultKeyCommand`, `commit.gpgSign`, `tag.gpgSign`, `merge.verifySignatures` | gpg or ssh-keygen to check or make signatures | signatures off, programs `false` or empty |
//!   | `protocol.allow`, `protocol.<name>.allow` (`ext::`, `file`, `ssh`, …; remote helpers, `remote.<name>.uploadpack`, `core.gitProxy`) | network transports and any program an `ext::` URL names, e.g. in a lazy fetch of a partial clone | `never`, and `GIT_ALLOW_PROTOCOL=none`, `GIT_PROTOCOL_FROM_USER=0`, `GIT_NO_LAZY_FETCH=1` |
//!   | `submodule.recurse`, `diff.ignoreSubmodules`, `status.submoduleSummary` | git in each submodule, under the submodule's own config | off (`all`); `status` and `diff` also get `--ignore-submodules=all` |
//!   | `gc.auto`, `maintenance.auto` | `git maintenance` in the background | off |
//!
//! - **Settings named by a driver** cannot be listed in advance (`filter.<driver>.clean`,
//!   `.smudge`, `.process`, `diff.<driver>.command`, `.textconv`, `merge.<driver>.driver`,
//!   `credential.<url>.helper`, `gpg.<format>.program`): [`in_project`] first lists the
//!   names of every setting the repository's config defines (`git config --list
//!   --name-only`, which runs no program) and overrides each of those with an empty value
//!   (`filter.<driver>.required` with `false`), so no filter, text conversion or diff driver
//!   runs. The callers of `git diff` also pass `--no-ext-diff --no-textconv`.
//! - **`core.worktree` is not followed**: [`in_project`] sets `GIT_WORK_TREE` to the directory
//!   that holds the `.git` found above the project, so a repository cannot point git at the
//!   user's home directory and have its file names listed.
//! - The variables that would send git to another repository (`GIT_DIR`, `GIT_INDEX_FILE`, …)
//!   and those that name programs (`GIT_EXTERNAL_DIFF`, `GIT_EDITOR`, `GIT_SSH_COMMAND`,
//!   `GIT_ASKPASS`, …) are cleared from what git inherits, so a variable the agent inherited
//!   (from a git hook, say) changes nothing; `-c` settings inherited through
//!   `GIT_CONFIG_PARAMETERS` are cleared too.
//! - **Left as git has them**: the system and the user's global config (they are the user's,
//!   not the repository's), `safe.directory` (never set: git's check that the repository
//!   belongs to the user stands, and a refusal is reported as git words it), and what git only
//!   reads from those files anyway (`trace2.*`, `uploadpack.packObjectsHook`,
//!   `safe.bareRepository`). Settings that only commands hookchain never runs read
//!   (`difftool`, `mergetool`, `interactive.diffFilter`, `browser`, `man`, `guitool`,
//!   `instaweb`, `sendemail`, `imap.tunnel`, `submodule.<name>.update`) are not touched.
//!   `include.path` reads a file; a FIFO there is stopped by the time limit.
//! - **A time limit on every run**: git is killed past it, and the caller gets a sentence
//!   saying so; stdin is closed unless the caller writes to it; no prompt
//!   (`GIT_TERMINAL_PROMPT=0`), no optional locks (reading never rewrites the index).

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The settings every git command runs with: each program-running setting of git set to a
/// value that runs nothing (see the [module docs](self)).
pub(crate) const NEUTRAL: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("core.alternateRefsCommand", ""),
    ("credential.helper", ""),
    ("diff.external", ""),
    ("log.showSignature", "false"),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("merge.verifySignatures", "false"),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.ssh.defaultKeyCommand", ""),
    ("protocol.allow", "never"),
    ("protocol.ext.allow", "never"),
    ("protocol.fd.allow", "never"),
    ("protocol.file.allow", "never"),
    ("protocol.git.allow", "never"),
    ("protocol.ssh.allow", "never"),
    ("protocol.http.allow", "never"),
    ("protocol.https.allow", "never"),
    ("protocol.ftp.allow", "never"),
    ("protocol.ftps.allow", "never"),
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "all"),
    ("status.submoduleSummary", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("color.ui", "false"),
];

/// The variables that point git at another repository, index or object store than the one of
/// the directory it runs in, that name a program git would run, or that carry settings: [`run`]
/// clears them before setting its own.
const CLEARED: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_ATTR_SOURCE",
];

/// Whether a setting of this name, defined by some config file, names a program git runs for a
/// driver or a URL (`filter.lfs.clean`, `diff.evil.textconv`): [`in_project`] overrides each.
fn runs_a_driver(name: &str) -> Option<&'static str> {
    let name = name.to_ascii_lowercase();
    let (section, rest) = name.split_once('.')?;
    let (_, key) = rest.rsplit_once('.')?;
    match (section, key) {
        ("filter", "clean" | "smudge" | "process") => Some(""),
        ("filter", "required") => Some("false"),
        ("diff", "command" | "textconv") => Some(""),
        ("merge", "driver") => Some(""),
        ("credential", "helper") => Some(""),
        ("gpg", "program") => Some("false"),
        _ => None,
    }
}

/// The directory holding the `.git` that git would find from `dir` (`dir` itself or the
/// nearest parent with a `.git`), or `None` when there is none.
fn work_tree_of(dir: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// Runs `git args…` in `dir`, a project's own repository, with every program-running setting
/// of the repository overridden (see the [module docs](self)) and one time limit for all it
/// takes: its stdout, or a sentence saying why there is none (not a git repository, git
/// missing, too slow, failed).
pub(crate) fn in_project(dir: &Path, args: &[&str], timeout_ms: u64) -> Result<String, String> {
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    let left = || {
        deadline
            .saturating_duration_since(Instant::now())
            .as_millis() as u64
    };
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    if let Some(top) = work_tree_of(dir) {
        env.push(("GIT_WORK_TREE".into(), top.into()));
    }
    let listed = run(
        dir,
        &["config", "--list", "--name-only", "-z"],
        &env,
        &[],
        None,
        left(),
    )
    .map_err(|why| why.replace("`git config --list --name-only -z`", "`git config`"))?;
    let mut drivers: Vec<(String, &str)> = String::from_utf8_lossy(&listed)
        .split('\0')
        .filter_map(|name| runs_a_driver(name).map(|value| (name.to_owned(), value)))
        .collect();
    drivers.sort();
    drivers.dedup();
    let settings: Vec<(&str, &str)> = drivers.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    run(dir, args, &env, &settings, None, left())
        .map(|out| String::from_utf8_lossy(&out).into_owned())
}

/// Runs `git args…` in `dir` with [`NEUTRAL`] and then `settings` as command-line settings
/// (a later one wins), the variables `env` set (after clearing those that redirect git or name
/// programs), `stdin` written to its input (else stdin closed), no pager, no prompt, and a time
/// limit (killed past it): its stdout, or a sentence saying why there is none.
pub(crate) fn run(
    dir: &Path,
    args: &[&str],
    env: &[(OsString, OsString)],
    settings: &[(&str, &str)],
    stdin: Option<Vec<u8>>,
    timeout_ms: u64,
) -> Result<Vec<u8>, String> {
    let shown = format!("git {}", args.join(" "));
    let mut command = Command::new("git");
    command.arg("--no-pager").args(args).current_dir(dir);
    for name in CLEARED {
        command.env_remove(name);
    }
    command
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_PAGER", "cat")
        .env("PAGER", "cat")
        .env("GIT_ALLOW_PROTOCOL", "none")
        .env("GIT_PROTOCOL_FROM_USER", "0")
        .env("GIT_NO_LAZY_FETCH", "1");
    let all = NEUTRAL.iter().chain(settings);
    let mut count = 0usize;
    for (i, (key, value)) in all.enumerate() {
        command
            .env(format!("GIT_CONFIG_KEY_{i}"), key)
            .env(format!("GIT_CONFIG_VALUE_{i}"), value);
        count = i + 1;
    }
    command.env("GIT_CONFIG_COUNT", count.to_string());
    for (name, value) in env {
        command.env(name, value);
    }
    spawn_within(command, &shown, dir, stdin, timeout_ms)
}

/// `(name, value)` pairs of variables, owned, from borrowed ones.
pub(crate) fn vars(pairs: &[(&str, &OsStr)]) -> Vec<(OsString, OsString)> {
    pairs
        .iter()
        .map(|(k, v)| (OsString::from(k), v.to_os_string()))
        .collect()
}

/// Spawns `command`, writes `stdin`, reads its output, and kills it past `timeout_ms`.
fn spawn_within(
    mut command: Command,
    shown: &str,
    dir: &Path,
    stdin: Option<Vec<u8>>,
    timeout_ms: u64,
) -> Result<Vec<u8>, String> {
    let mut child = match command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("`{shown}` could not run: git is not installed"));
        }
        Err(e) => return Err(format!("`{shown}` could not run in {}: {e}", dir.display())),
    };
    let input = child.stdin.take().zip(stdin).map(|(mut pipe, bytes)| {
        std::thread::spawn(move || {
            use std::io::Write;
            // A git that exits early closes the pipe: its exit status says what went wrong.
            let _ = pipe.write_all(&bytes);
        })
    });
    let read_all = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut s) = pipe {
                let _ = s.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = read_all(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = read_all(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    if let Some(input) = input {
        let _ = input.join();
    }
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    let Some(status) = status else {
        return Err(format!(
            "`{shown}` did not finish within {timeout_ms} ms in {}, so it was stopped",
            dir.display()
        ));
    };
    let err = String::from_utf8_lossy(&err);
    if !status.success() {
        if err.contains("not a git repository") {
            return Err(format!("{} is not a git repository", dir.display()));
        }
        let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!(
            "`{shown}` failed in {} ({status}): {first}",
            dir.display()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_settings_are_recognised_whatever_their_case_and_subsection() {
        assert_eq!(runs_a_driver("filter.lfs.process"), Some(""));
        assert_eq!(runs_a_driver("filter.a.b.clean"), Some(""));
        assert_eq!(runs_a_driver("diff.Evil.textconv"), Some(""));
        assert_eq!(runs_a_driver("merge.ours.driver"), Some(""));
        assert_eq!(runs_a_driver("filter.lfs.required"), Some("false"));
        assert_eq!(runs_a_driver("core.fsmonitor"), None);
        assert_eq!(runs_a_driver("diff.renames"), None);
    }
}
