//! What the tests of the guards that run git share.

use std::path::Path;
use std::process::Command;

/// Runs git in `dir` as a user would, with a test identity, no signing, `main` as the first
/// branch, no prompt and no optional locks (so reading never rewrites the index): its stdout.
/// Panics, with git's output, when git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}
