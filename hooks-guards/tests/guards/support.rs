//! What the guards' tests share: a registry from a `hookchain.yaml` text, a listener of
//! notifications, a corpus of tool calls run through a turn, `hookchain test` through the
//! CLI's entry point, a project directory of its own, and git run as a user would.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use hookchain::cli;
use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::points::{Notification, Notify};
use hookchain::prelude::*;
use hookchain::{HookContext, HookOptions, Hooks, HooksBuilder};
use tempfile::TempDir;

/// A registry built from `yaml`, read as the user's own file named `./hookchain.yaml` (every
/// setting the user's to make; a project's file is held to the project rule).
pub(crate) fn from_yaml(yaml: &str) -> Result<Hooks, String> {
    let config = Config::from_user_yaml_str(yaml, "./hookchain.yaml").map_err(|e| e.to_string())?;
    Hooks::builder()
        .config(config)
        .build()
        .map_err(|e| e.to_string())
}

/// The error of a registry built from `yaml`, read as `./hookchain.yaml`.
pub(crate) fn yaml_error(yaml: &str) -> String {
    match from_yaml(yaml) {
        Ok(_) => panic!("the config is accepted:\n{yaml}"),
        Err(error) => error,
    }
}

/// `builder` with a `notification` hook that keeps every notification fired.
pub(crate) fn listening(builder: HooksBuilder) -> (HooksBuilder, Arc<Mutex<Vec<Notification>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let builder = builder.hook_with(
        Notify,
        HookOptions::new("listener"),
        move |n: &Notification, _: &HookContext| log.lock().unwrap().push(n.clone()),
    );
    (builder, seen)
}

/// Fires `intercept_tool_call` for every call of `block` and `allow` in `turn`: the calls of
/// `block` it let through (false negatives) and those of `allow` it blocked, with the reason
/// (false positives). Prints the counts under `label`.
pub(crate) fn corpus(
    label: &str,
    turn: &Turn,
    block: &[ToolCall],
    allow: &[ToolCall],
) -> (Vec<String>, Vec<String>) {
    let false_negatives: Vec<String> = block
        .iter()
        .filter(|c| !turn.intercept_tool_call((*c).clone()).is_blocked())
        .map(|c| format!("{} {}", c.name, c.args))
        .collect();
    let false_positives = blocked(turn, allow);
    println!(
        "{label}: {} to block, {} to allow; {} false negatives, {} false positives",
        block.len(),
        allow.len(),
        false_negatives.len(),
        false_positives.len()
    );
    (false_negatives, false_positives)
}

/// The calls of `calls` that `turn` blocks, each with its reason.
pub(crate) fn blocked<'a>(
    turn: &Turn,
    calls: impl IntoIterator<Item = &'a ToolCall>,
) -> Vec<String> {
    calls
        .into_iter()
        .filter_map(|c| match turn.intercept_tool_call(c.clone()) {
            Flow::Blocked(b) => Some(format!("{} {}: {}", c.name, c.args, b.reason)),
            Flow::Continue(_) => None,
        })
        .collect()
}

/// Runs `hookchain --config CONFIG test EVENT --payload-file …` with `payload` (written into
/// `dir`) through the CLI's entry point: its exit code and everything it printed.
pub(crate) fn hookchain_test(
    dir: &Path,
    config: &Path,
    event: &str,
    payload: Value,
) -> (i32, String) {
    let payload_file = dir.join("payload.json");
    std::fs::write(&payload_file, payload.to_string()).unwrap();
    let consent = dir.join("approved.json");
    let argv = [
        "hookchain",
        "--config",
        config.to_str().unwrap(),
        "--consent-file",
        consent.to_str().unwrap(),
        "test",
        event,
        "--payload-file",
        payload_file.to_str().unwrap(),
    ];
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run_with(argv, HooksBuilder::new(), &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap() + &String::from_utf8(err).unwrap(),
    )
}

/// A fresh, empty directory under the system's temporary directory, unique to the caller,
/// removed when dropped.
pub(crate) fn temp_dir() -> TempDir {
    tempfile::Builder::new()
        .prefix("hookchain-")
        .tempdir()
        .expect("a temporary directory")
}

/// A project directory of its own under the temporary directory, removed when dropped.
pub(crate) struct Project {
    pub root: PathBuf,
    _dir: TempDir,
}

impl Project {
    /// A fresh, empty project directory.
    pub(crate) fn empty() -> Project {
        let dir = temp_dir();
        Project {
            root: dir.path().to_path_buf(),
            _dir: dir,
        }
    }

    /// The directory, as a config names it.
    pub(crate) fn dir(&self) -> String {
        self.root.display().to_string()
    }
}

/// Runs git in `dir` as a user would, with a test identity, no signing, `main` as the first
/// branch, no prompt and no optional locks (so reading never rewrites the index): its stdout.
/// Panics, with git's output, when git fails.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
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
