//! A directory of its own under the system's temporary directory, unique per process and per
//! call, removed on drop. Shared with `#[path = ".."] mod temp_dir;` by the tests that write
//! files (`tests/wildcard_config.rs`, `hooks-guards/tests/audit_log.rs`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh, empty directory; `.0` is its path.
pub(crate) struct TempDir(pub PathBuf);

impl TempDir {
    /// `hookchain-LABEL-PID-N` under the system's temporary directory.
    pub(crate) fn new(label: &str) -> TempDir {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hookchain-{label}-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
