//! `hookchain::init()`: the binary's explicit choice to read the config files, apply consent and
//! install the global registry; what it reports; what it does with a file that has an error.

use std::path::PathBuf;

use hookchain::config::{Init, InitError};
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::prelude::*;
use tempfile::TempDir;

mod support;
use support::temp_dir;

fn block_script() -> PathBuf {
    support::fixture("external/block.sh")
}

/// A fresh directory holding `hookchain.yaml` with `text`, removed when dropped.
fn project(text: &str) -> TempDir {
    let dir = temp_dir();
    std::fs::write(dir.path().join("hookchain.yaml"), text).unwrap();
    dir
}

fn guard_yaml() -> String {
    format!(
        "hooks:\n  PreToolUse:\n    - command: {}\n      name: no-rm\n",
        block_script().display()
    )
}

fn rm_rf(hooks: &Hooks) -> bool {
    let turn = hooks.session("init").begin_turn();
    let blocked = turn
        .intercept_tool_call(ToolCall::new("Bash", json!({"command": "rm -rf /"})))
        .is_blocked();
    turn.end(TurnEnd::Normal);
    blocked
}

#[test]
fn init_installs_the_discovered_config_and_says_what_it_loaded() {
    let temp = project(&guard_yaml());
    let dir = temp.path();
    let report = Init::new()
        .project_dir(dir)
        .home_dir(None)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .install()
        .unwrap();
    let file = dir.join("hookchain.yaml").display().to_string();
    assert_eq!(report.files, std::slice::from_ref(&file));
    assert_eq!(report.consent.admitted.len(), 1);
    assert!(report.consent.skipped.is_empty());
    let text = report.to_string();
    assert!(text.contains(&format!("config from {file}")), "{text}");
    assert!(
        text.contains("1 configured hook(s) run, 0 skipped"),
        "{text}"
    );
    // The global registry is the installed one.
    assert!(rm_rf(Hooks::global()));
    assert_eq!(
        Hooks::global().chain_of("intercept_tool_call")[0]
            .name
            .as_ref(),
        "no-rm"
    );
    // Once is all.
    let again = Init::new().project_dir(dir).home_dir(None).install();
    assert!(matches!(again, Err(InitError::AlreadyInstalled)));
}

#[test]
fn an_unapproved_hook_is_skipped_and_reported_never_prompted() {
    let temp = project(&guard_yaml());
    let dir = temp.path();
    let (hooks, report, errors) = Init::new()
        .project_dir(dir)
        .home_dir(None)
        .consent(Consent::in_memory(), ConsentPolicy::new())
        .build();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(report.consent.skipped.len(), 1);
    assert_eq!(report.consent.skipped[0].name, "no-rm");
    assert!(report.to_string().contains("no-rm"), "{report}");
    assert!(!rm_rf(&hooks));
}

#[test]
fn a_broken_file_is_an_error_naming_it_and_the_rest_still_loads() {
    let temp = project("extensions:\n  guard: [\n");
    let dir = temp.path();
    let extra = dir.join("claude.json");
    std::fs::write(
        &extra,
        format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "{}"}}]}}]}}}}"#,
            block_script().display()
        ),
    )
    .unwrap();
    let broken = dir.join("hookchain.yaml");
    let (hooks, report, errors) = Init::new()
        .file(&broken)
        .file(&extra)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let message = errors[0].to_string();
    assert!(
        message.starts_with(&format!("{} line 3", broken.display())),
        "{message}"
    );
    assert_eq!(report.files, [extra.display().to_string()]);
    assert!(rm_rf(&hooks));
}
