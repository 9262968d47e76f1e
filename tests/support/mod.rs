//! What the facade's tests share: temporary directories, the paths of `tests/fixtures/`,
//! executable scripts, whether a process is gone, and a deadline for code that may hang. Each
//! test program declares it with `#[path = "../support/mod.rs"] mod support;` (or `mod support;`
//! from `tests/`) and uses some of it. (`counting_alloc.rs` is not part of it: it installs a
//! global allocator, in the `alloc_*` programs only.)

#![allow(dead_code)]

pub(crate) mod deadline;

use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// A fresh, empty directory under the system's temporary directory, unique to the caller,
/// removed when dropped.
pub(crate) fn temp_dir() -> TempDir {
    tempfile::Builder::new()
        .prefix("hookchain-")
        .tempdir()
        .expect("a temporary directory")
}

/// `tests/fixtures/PATH` of this package, wherever the checkout is.
pub(crate) fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

/// Makes `path` executable by everyone (mode 755).
pub(crate) fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `true` once `pid` has exited (a zombie waiting to be reaped counts as exited).
pub(crate) fn gone(pid: u32) -> bool {
    let alive = std::process::Command::new("sh")
        .args(["-c", &format!("kill -0 {pid} 2>/dev/null")])
        .status()
        .is_ok_and(|status| status.success());
    if !alive {
        return true;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
            Some(state == 'Z' || state == 'X')
        })
        .unwrap_or(false)
}
