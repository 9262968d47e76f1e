//! What the integration tests of hookchain-external share: the fixture scripts of the
//! workspace's `tests/fixtures/external/`, temporary directories, command specs, whether a
//! process is gone, the thread and descriptor counts of this process, and re-running one test
//! alone in a child process. Each test program declares it with `mod support;` (or
//! `#[path = "../support/mod.rs"] mod support;` from `tests/external/`) and uses some of it.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use hookchain_external::CommandSpec;
use tempfile::TempDir;

/// The fixture `name` of the workspace's `tests/fixtures/external/`, as an absolute path without
/// `..`, wherever the checkout is.
pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/external")
        .join(name)
        .canonicalize()
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// [`fixture`] as a string, for an `argv` or a config line.
pub(crate) fn fixture_str(name: &str) -> String {
    fixture(name).display().to_string()
}

/// A fresh, empty directory under the system's temporary directory, removed when dropped. Its
/// path has no symbolic link in it, so that it reads the same as a hook's `pwd`.
pub(crate) fn temp_dir() -> TempDir {
    let base = std::env::temp_dir()
        .canonicalize()
        .expect("the temporary directory");
    tempfile::Builder::new()
        .prefix("hookchain-")
        .tempdir_in(base)
        .expect("a temporary directory")
}

/// Makes `path` executable by everyone (mode 755).
#[cfg(unix)]
pub(crate) fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A spec running `argv` as it is, with nothing else set.
pub(crate) fn spec(argv: &[&str]) -> CommandSpec {
    CommandSpec {
        argv: argv.iter().map(|s| (*s).to_owned()).collect(),
        display: argv.join(" "),
        env: BTreeMap::new(),
        working_dir: None,
        env_clear: false,
        env_allow: Vec::new(),
    }
}

/// A spec running the shell line `line` with `sh -c`.
#[cfg(unix)]
pub(crate) fn shell(line: &str) -> CommandSpec {
    CommandSpec {
        argv: hookchain_external::command::shell_argv(line),
        display: line.to_owned(),
        ..spec(&[])
    }
}

/// The pid a fixture wrote to `file` (it may still be writing it: bounded retries).
pub(crate) fn read_pid(file: &Path) -> u32 {
    for _ in 0..250 {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no pid in {}", file.display());
}

/// Whether `pid` is gone: no such process, or a zombie waiting for a parent that is not us.
#[cfg(unix)]
pub(crate) fn gone(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
            Some(state == 'Z' || state == 'X')
        })
        .unwrap_or(false)
}

/// Whether `pid` is gone within about 3 s (killing and reaping are asynchronous).
#[cfg(unix)]
pub(crate) fn ends(pid: u32) -> bool {
    for _ in 0..150 {
        if gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    gone(pid)
}

/// Asserts that `pid` is gone, giving the kernel a moment.
#[cfg(unix)]
pub(crate) fn assert_gone(pid: u32) {
    assert!(ends(pid), "process {pid} is still running");
}

/// The threads and the open descriptors of this process (Linux's `/proc/self`).
pub(crate) fn threads_and_fds() -> (usize, usize) {
    let entries = |dir: &str| std::fs::read_dir(dir).map_or(0, |d| d.count());
    (entries("/proc/self/task"), entries("/proc/self/fd"))
}

/// Runs the test `path` of this test program again, alone, in a child process whose
/// environment adds `env`, and returns what it did; asserts that the child found the test (a
/// filter matching no test would pass unseen). `path` is `concat!(module_path!(), "::name")`,
/// whichever program the test's module is part of.
pub(crate) fn run_alone(path: &str, env: &[(&str, &str)]) -> Output {
    // The harness names a test by its path without the crate's name.
    let name = path.split_once("::").map_or(path, |(_, rest)| rest);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("running 1 test"),
        "no test `{name}` in {}: {}",
        std::env::current_exe().unwrap().display(),
        String::from_utf8_lossy(&out.stdout)
    );
    out
}
