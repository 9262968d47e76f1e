//! `~`, `$HOME` and the user's own files, read as each agent reads them. The tests of this
//! binary point `HOME` at a directory of their own under the system's temp directory, one test
//! at a time (they hold `HOME_LOCK`). Setting `HOME` while another thread reads the environment
//! is undefined behaviour: this program holds no other tests.

mod support;

use hookchain::config::Config;
use hookchain::external::Transport;
use tempfile::TempDir;

use support::{make_executable, temp_dir};

/// Held by each test while it reads or sets `HOME`.
static HOME_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Points `HOME` at a fresh directory, removed when the returned guard drops.
fn scratch_home() -> TempDir {
    let home = temp_dir();
    // SAFETY: every test of this binary holds HOME_LOCK while it reads or sets the environment.
    unsafe { std::env::set_var("HOME", home.path()) };
    home
}

/// A `hookchain.yaml` command written as Hermes' docs write them (`~/.hermes/agent-hooks/x.py`)
/// runs the script under the home directory, and so does `$HOME/…`; a Claude Code line starting
/// with `$HOME/…` names the script under it, so the file loads with no warning and consent pins
/// that script.
#[test]
fn tilde_and_home_name_the_script_under_the_home_directory() {
    let _lock = HOME_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = scratch_home();
    let home = scratch.path();
    std::fs::create_dir_all(home.join(".hermes/agent-hooks")).unwrap();
    let script = home.join(".hermes/agent-hooks/guard.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    make_executable(&script);

    for written in [
        "~/.hermes/agent-hooks/guard.sh",
        "$HOME/.hermes/agent-hooks/guard.sh",
    ] {
        let config = Config::from_yaml_str(
            &format!("hooks:\n  pre_tool_call:\n    - command: {written} --strict\n"),
            "./hookchain.yaml",
        )
        .unwrap_or_else(|e| panic!("{written}: {e}"));
        let Transport::Command(spec) = &config.external_hooks()[0].transport else {
            panic!("a command hook")
        };
        assert_eq!(
            spec.argv,
            [script.display().to_string(), "--strict".to_owned()]
        );
        assert_eq!(hookchain::consent::script_of(spec), Some(script.clone()));
    }

    let settings = Config::from_claude_settings_str(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "$HOME/.hermes/agent-hooks/guard.sh"}]}]}}"#,
        "settings.json",
    )
    .unwrap();
    assert!(settings.warnings().is_empty(), "{:#?}", settings.warnings());
    let Transport::Command(spec) = &settings.external_hooks()[0].transport else {
        panic!("a command hook")
    };
    assert_eq!(hookchain::consent::script_of(spec), Some(script.clone()));
}

/// The user's own `~/.claude/settings.json` belongs to no project: its hooks run in the
/// session's project directory (the agent's current directory when they fire), with
/// `CLAUDE_PROJECT_DIR` set to it — not `$HOME`.
#[test]
fn user_level_claude_settings_run_in_the_sessions_project() {
    let _lock = HOME_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = scratch_home();
    let home = scratch.path();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let file = home.join(".claude/settings.json");
    let config = Config::from_claude_settings_str(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo $CLAUDE_PROJECT_DIR"}]}]}}"#,
        file.to_str().unwrap(),
    )
    .unwrap();
    let Transport::Command(spec) = &config.external_hooks()[0].transport else {
        panic!("a command hook")
    };
    assert_eq!(spec.working_dir, None);

    let project = Config::from_claude_settings_str(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
        "/some/project/.claude/settings.json",
    )
    .unwrap();
    let Transport::Command(spec) = &project.external_hooks()[0].transport else {
        panic!("a command hook")
    };
    assert_eq!(
        spec.working_dir.as_deref(),
        Some(std::path::Path::new("/some/project"))
    );
}
