//! A user's home and a project, each in a directory of its own: what the tests of what a
//! project's file may do lay out. Each module adds the methods it needs.
#![allow(dead_code)]

use std::path::PathBuf;

use tempfile::TempDir;

use crate::support::{make_executable, temp_dir};

/// A user's home and a project, each in a directory of its own, removed when dropped.
pub(crate) struct Dirs {
    _dir: TempDir,
    pub(crate) root: PathBuf,
    pub(crate) home: PathBuf,
    pub(crate) project: PathBuf,
}

impl Dirs {
    pub(crate) fn new() -> Dirs {
        let dir = temp_dir();
        let root = dir.path().to_path_buf();
        let (home, project) = (root.join("home"), root.join("project"));
        std::fs::create_dir_all(home.join(".config/hookchain")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        Dirs {
            _dir: dir,
            root,
            home,
            project,
        }
    }

    /// The user's own `~/.config/hookchain/hookchain.yaml`.
    pub(crate) fn user_file(&self) -> PathBuf {
        self.home.join(".config/hookchain/hookchain.yaml")
    }

    /// The project's `hookchain.yaml`.
    pub(crate) fn project_file(&self) -> PathBuf {
        self.project.join("hookchain.yaml")
    }

    /// The user's allowlist of approved hooks.
    pub(crate) fn allowlist(&self) -> PathBuf {
        self.home.join(".config/hookchain/approved-hooks.json")
    }

    /// Writes the user's file and the project's.
    pub(crate) fn write(&self, user: &str, project: &str) {
        std::fs::write(self.user_file(), user).unwrap();
        std::fs::write(self.project_file(), project).unwrap();
    }

    /// An executable script in the root directory.
    pub(crate) fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.root.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        make_executable(&path);
        path
    }
}
