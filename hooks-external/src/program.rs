//! Programs of `command` and `process` hooks: splitting a command line into an argv, and
//! finding the file that would run — checks that hold on every platform, whether or not a
//! transport that starts programs is part of the build, so a config loader reports a missing
//! program when the file is loaded.
//!
//! It also keeps the directory a firing runs in ([`firing_dir`]): the project directory of the
//! session whose hook fires ([`hookchain_core::project`]: the one the agent gave, else the
//! process's current directory). A firing sets it on its own thread for the time it invokes the hook's
//! transport, which starts the program on that thread; consent's check of the script, made
//! on the same thread just before, reads the same directory.

use std::cell::RefCell;
use std::io;
use std::path::{Path, PathBuf};

use super::{CommandSpec, TransportError};

/// Splits a native config's command line into an argv with shell quoting rules (`'…'`, `"…"`,
/// `\`), without a shell: no variables, globs, pipes or redirections.
///
/// ```
/// use hookchain::external::program::argv_from_line;
///
/// let argv = argv_from_line(r#"./hooks/guard.sh --reason "no rm -rf" 'a b'"#).unwrap();
/// assert_eq!(argv, ["./hooks/guard.sh", "--reason", "no rm -rf", "a b"]);
/// assert!(argv_from_line("guard.sh 'unclosed").is_err());
/// ```
pub fn argv_from_line(line: &str) -> Result<Vec<String>, ArgvError> {
    let argv = shell_words::split(line).map_err(|_| ArgvError::Unclosed {
        line: line.to_owned(),
    })?;
    if argv.is_empty() {
        return Err(ArgvError::Empty);
    }
    Ok(argv)
}

/// The argv that runs `line` with `sh -c`, as Claude Code and docker-agent run their hook
/// commands.
///
/// ```
/// use hookchain::external::program::shell_argv;
///
/// assert_eq!(shell_argv("jq -r .tool_name | grep -q rm"), ["sh", "-c", "jq -r .tool_name | grep -q rm"]);
/// ```
pub fn shell_argv(line: &str) -> Vec<String> {
    vec!["sh".to_owned(), "-c".to_owned(), line.to_owned()]
}

/// Why a command line cannot be split into an argv.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgvError {
    /// The line is empty or blank.
    #[error("the command is empty")]
    Empty,
    /// A quote is not closed, or the line ends with a lone `\`.
    #[error("cannot split `{line}` into arguments: a quote is not closed or a `\\` ends the line")]
    Unclosed {
        /// The line.
        line: String,
    },
}

/// Resolves the program of `spec` to the file that would run, and checks that it can run.
///
/// A program without `/` is looked up in `PATH` (the hook's own `PATH` when its `env` sets one);
/// a relative path (`./hooks/x.sh`, `bin/x`) is taken from the working directory (`working_dir`
/// when set, else the current directory). The file must exist, not be a directory, and be
/// executable by this process; `working_dir`, when set, must be a directory. Each failure is a
/// [`TransportError::Spawn`] saying which.
pub fn resolve_program(spec: &CommandSpec) -> Result<PathBuf, TransportError> {
    let fail = |reason: String| TransportError::Spawn {
        command: spec.display.clone(),
        reason,
    };
    let program = match spec.argv.first() {
        Some(p) if !p.is_empty() => p,
        _ => return Err(fail("the command is empty".to_owned())),
    };
    let base = run_dir(spec).map_err(|e| fail(format!("no current directory: {e}")))?;
    if spec.working_dir.is_some() && !base.is_dir() {
        return Err(fail(format!(
            "its working_dir `{}` is not a directory",
            base.display()
        )));
    }
    if program.contains('/') {
        let path = base.join(program);
        return match check_executable(&path) {
            Ok(()) => Ok(path),
            Err(why) => Err(fail(format!("`{}` {why}", path.display()))),
        };
    }
    let search = match spec.env.get("PATH") {
        Some(path) => path.into(),
        None => std::env::var_os("PATH").unwrap_or_default(),
    };
    let mut not_executable = None;
    for dir in std::env::split_paths(&search) {
        let candidate = base.join(dir).join(program);
        match check_executable(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(why) if candidate.exists() && not_executable.is_none() => {
                not_executable = Some(format!("`{}` {why}", candidate.display()));
            }
            Err(_) => {}
        }
    }
    Err(fail(not_executable.unwrap_or_else(|| {
        format!("`{program}` is not found in PATH")
    })))
}

/// `Ok` when `path` is a file this process may execute; else why not, as the end of a sentence.
fn check_executable(path: &Path) -> Result<(), String> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err("does not exist".to_owned()),
        Err(e) => return Err(format!("cannot be read: {e}")),
    };
    if meta.is_dir() {
        return Err("is a directory".to_owned());
    }
    executable(path, &meta)
}

/// With a transport that starts programs: `access(2)`, which knows this process's user.
#[cfg(all(unix, any(feature = "command", feature = "process")))]
fn executable(path: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let c_path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| "has a NUL byte in its name".to_owned())?;
    // SAFETY: `c_path` is a valid NUL-terminated string that outlives the call.
    if unsafe { libc::access(c_path.as_ptr(), libc::X_OK) } != 0 {
        return Err(format!(
            "is not executable (mode {:o})",
            meta.permissions().mode() & 0o7777
        ));
    }
    Ok(())
}

/// Without one (the spec is only checked): an execute bit.
#[cfg(all(unix, not(any(feature = "command", feature = "process"))))]
fn executable(_path: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode();
    if mode & 0o111 == 0 {
        return Err(format!("is not executable (mode {:o})", mode & 0o7777));
    }
    Ok(())
}

/// Elsewhere any file may be started.
#[cfg(not(unix))]
fn executable(_path: &Path, _meta: &std::fs::Metadata) -> Result<(), String> {
    Ok(())
}

thread_local! {
    /// The project directory of the firing running on this thread, if its session has one.
    static FIRING_DIR: RefCell<Option<PathBuf>> = const { RefCell::new(None) };
}

/// The directory relative paths of a firing are taken from, and that a hook without an
/// absolute `working_dir` runs in: during a firing of an external hook, the project directory
/// of its session ([`hookchain_core::project::try_decide`]: the one the agent gave, else the
/// process's current directory); outside a firing, the current directory.
pub fn firing_dir() -> io::Result<PathBuf> {
    let given = FIRING_DIR.with(|dir| dir.borrow().clone());
    hookchain_core::project::try_decide(given.as_deref())
}

/// Runs `f` with [`firing_dir`] set to `dir` on this thread (`None`: the current directory),
/// and puts back what was there before, however `f` returns.
pub(crate) fn with_firing_dir<R>(dir: Option<PathBuf>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<PathBuf>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            FIRING_DIR.with(|dir| *dir.borrow_mut() = before);
        }
    }
    let _restore = Restore(FIRING_DIR.with(|slot| slot.replace(dir)));
    f()
}

/// The directory the program of `spec` runs in: its `working_dir` (made absolute against the
/// firing's directory), else the directory of the firing ([`firing_dir`]).
pub(crate) fn run_dir(spec: &CommandSpec) -> io::Result<PathBuf> {
    let cwd = firing_dir()?;
    Ok(match &spec.working_dir {
        Some(dir) => cwd.join(dir),
        None => cwd,
    })
}
