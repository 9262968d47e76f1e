//! What the integration tests of hookchain-config share: temporary directories and executable
//! scripts. Each test program declares it with `mod support;` and uses some of it.

#![allow(dead_code)]

use std::path::Path;

use tempfile::TempDir;

/// A fresh, empty directory under the system's temporary directory, removed when dropped. Its
/// path has no symbolic link in it, so that it reads the same as a script's `pwd`.
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
