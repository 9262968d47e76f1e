//! `hookchain --config ~/.hermes/hooks/NAME/HOOK.yaml test …` and `--config PLUGIN_DIR`: one
//! Hermes gateway hook or Python plugin, named on the command line, fired by `hookchain test`
//! (the binary, with `HOME` a temporary directory, so the handler's `Path.home()` is it). Each
//! test needs `python3`: without it, it says so and passes, unless `HOOKCHAIN_PYTHON_REQUIRED=1`.
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use tempfile::TempDir;

/// A gateway hook as Hermes' Event Hooks page shapes its first example: it logs every agent
/// event, with its context, to `~/.hermes/hooks/my-hook/activity.log`.
const MANIFEST: &str = "\
name: my-hook
description: Log all agent activity to a file
events:
  - agent:start
  - agent:end
  - agent:step
";

const HANDLER: &str = r#"import json
from pathlib import Path

LOG_FILE = Path.home() / ".hermes" / "hooks" / "my-hook" / "activity.log"


async def handle(event_type: str, context: dict):
    with open(LOG_FILE, "a") as f:
        f.write(json.dumps({"event": event_type, **context}) + "\n")
"#;

const PLUGIN: &str = r#"def no_rm(tool_name, args, **kwargs):
    if "rm -rf" in str(args.get("command", "")):
        return {"action": "block", "message": "no rm -rf, says the plugin"}


def register(ctx):
    ctx.register_hook("pre_tool_call", no_rm)
"#;

fn python() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        assert!(
            std::env::var("HOOKCHAIN_PYTHON_REQUIRED").is_err(),
            "python3 is not on PATH and HOOKCHAIN_PYTHON_REQUIRED is set: install python3"
        );
        eprintln!("skipped: python3 is not on PATH");
    }
    found
}

fn hookchain(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookchain"))
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env_remove("HOOKCHAIN_ACCEPT_HOOKS")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn test_fires_the_agent_start_handler_of_the_hook_named_with_config() {
    if !python() {
        return;
    }
    let home = TempDir::new().unwrap();
    let dir = home.path().join(".hermes/hooks/my-hook");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("HOOK.yaml"), MANIFEST).unwrap();
    std::fs::write(dir.join("handler.py"), HANDLER).unwrap();
    std::fs::write(home.path().join("p.json"), r#""summarise the logs""#).unwrap();
    let manifest = dir.join("HOOK.yaml").display().to_string();
    let consent = home.path().join("approved.json").display().to_string();
    let common = ["--config", &manifest, "--consent-file", &consent];

    let approve = hookchain(home.path(), &[&common[..], &["approve", "--all"]].concat());
    assert!(approve.status.success(), "{}", text(&approve));
    let run = hookchain(
        home.path(),
        &[
            &common[..],
            &[
                "test",
                "transform_user_input",
                "--payload-file",
                "p.json",
                "--json",
            ],
        ]
        .concat(),
    );
    assert!(run.status.success(), "{}", text(&run));
    let outcome: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(outcome["outcome"], json!("continue"), "{}", text(&run));
    assert_eq!(outcome["value"], json!("summarise the logs"));
    let log = std::fs::read_to_string(dir.join("activity.log")).unwrap();
    let line: Value = serde_json::from_str(log.trim()).unwrap();
    assert_eq!(line["event"], json!("agent:start"));
    assert_eq!(line["message"], json!("summarise the logs"));

    // Edited after approval: it does not run, and says why.
    std::fs::write(dir.join("handler.py"), format!("{HANDLER}\n# edited\n")).unwrap();
    let run = hookchain(
        home.path(),
        &[
            &common[..],
            &["test", "transform_user_input", "--payload-file", "p.json"],
        ]
        .concat(),
    );
    assert!(
        text(&run).contains("changed since it was approved"),
        "{}",
        text(&run)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("activity.log"))
            .unwrap()
            .lines()
            .count(),
        1
    );
}

#[test]
fn test_is_blocked_by_the_plugin_directory_named_with_config() {
    if !python() {
        return;
    }
    let home = TempDir::new().unwrap();
    let dir = home.path().join("no-rm");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("__init__.py"), PLUGIN).unwrap();
    std::fs::write(
        home.path().join("call.json"),
        r#"{"tool_name": "terminal", "tool_input": {"command": "rm -rf /tmp/x"}}"#,
    )
    .unwrap();
    let plugin = dir.display().to_string();
    let consent = home.path().join("approved.json").display().to_string();
    let common = ["--config", &plugin, "--consent-file", &consent];
    let approve = hookchain(home.path(), &[&common[..], &["approve", "--all"]].concat());
    assert!(approve.status.success(), "{}", text(&approve));
    let run = hookchain(
        home.path(),
        &[
            &common[..],
            &[
                "test",
                "pre_tool_call",
                "--payload-file",
                "call.json",
                "--json",
            ],
        ]
        .concat(),
    );
    let outcome: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(outcome["outcome"], json!("blocked"), "{}", text(&run));
    assert_eq!(outcome["reason"], json!("no rm -rf, says the plugin"));
}

#[test]
fn without_python3_the_hook_is_a_notice_naming_its_file_and_what_to_install() {
    let home = TempDir::new().unwrap();
    let dir = home.path().join(".hermes/hooks/my-hook");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("HOOK.yaml"), MANIFEST).unwrap();
    std::fs::write(dir.join("handler.py"), HANDLER).unwrap();
    std::fs::write(home.path().join("p.json"), r#""hi""#).unwrap();
    let manifest = dir.join("HOOK.yaml").display().to_string();
    let consent = home.path().join("approved.json").display().to_string();
    let no_python = home.path().join("empty-path");
    std::fs::create_dir_all(&no_python).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_hookchain"))
            .args(["--config", &manifest, "--consent-file", &consent])
            .args(args)
            .current_dir(home.path())
            .env("HOME", home.path())
            .env("XDG_CACHE_HOME", home.path().join(".cache"))
            .env("PATH", &no_python)
            .env_remove("HOOKCHAIN_ACCEPT_HOOKS")
            .output()
            .unwrap()
    };
    assert!(run(&["approve", "--all"]).status.success());
    let out = run(&["test", "transform_user_input", "--payload-file", "p.json"]);
    let said = text(&out);
    // A gateway hook never blocks: the message goes on, and the user is told what to install.
    assert!(out.status.success(), "{said}");
    assert!(said.contains("outcome: continue with \"hi\""), "{said}");
    assert!(
        said.contains("my-hook/handler.py: Hermes' Python hooks need `python3`, which is not on PATH: install Python 3"),
        "{said}"
    );
    assert!(
        said.contains("`python3` is not found in PATH (on_error = warn)"),
        "{said}"
    );
}
