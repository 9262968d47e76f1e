//! What the guards' tests share: running a corpus of tool calls through a turn, a registry from
//! a `hookchain.yaml` text, and `hookchain test` through the CLI's entry point.

use std::path::Path;

use hookchain::HooksBuilder;
use hookchain::cli;
use hookchain::config::Config;
use hookchain::prelude::*;

/// Fires `intercept_tool_call` for every call of `block` and `allow` in `turn`: the calls of
/// `block` it let through (false negatives) and those of `allow` it blocked, with the reason
/// (false positives). Prints the counts under `label`.
pub fn corpus(
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
pub fn blocked<'a>(turn: &Turn, calls: impl IntoIterator<Item = &'a ToolCall>) -> Vec<String> {
    calls
        .into_iter()
        .filter_map(|c| match turn.intercept_tool_call(c.clone()) {
            Flow::Blocked(b) => Some(format!("{} {}: {}", c.name, c.args, b.reason)),
            Flow::Continue(_) => None,
        })
        .collect()
}

/// A registry built from the `hookchain.yaml` text `yaml`, or the error it gives.
pub fn yaml_registry(yaml: &str) -> Result<Hooks, String> {
    let config = Config::from_yaml_str(yaml, "./hookchain.yaml").map_err(|e| e.to_string())?;
    HooksBuilder::new()
        .config(config)
        .build()
        .map_err(|e| e.to_string())
}

/// Runs `hookchain --config CONFIG test EVENT --payload-file …` with `payload` (written into
/// `dir`) through the CLI's entry point: its exit code and everything it printed.
pub fn hookchain_test(dir: &Path, config: &Path, event: &str, payload: Value) -> (i32, String) {
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

/// A project directory of its own under the temporary directory, removed when dropped.
pub struct Project {
    pub root: std::path::PathBuf,
}

impl Project {
    /// A fresh, empty `hookchain-TAG-PID` under the temporary directory.
    pub fn empty(tag: &str) -> Project {
        let root = std::env::temp_dir().join(format!("hookchain-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        Project { root }
    }

    /// The directory, as a config names it.
    pub fn dir(&self) -> String {
        self.root.display().to_string()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
