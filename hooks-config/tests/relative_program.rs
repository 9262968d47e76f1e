//! A Hermes or Starchild hook with a relative program runs the file that was approved, from the
//! agent's directory, whatever project directory a session gives — and not a copy of it in
//! that project, nor the agent's copy once it is rewritten.
//!
//! One test in a program of its own: it changes the process's current directory, which the
//! loader reads (a relative program is taken from the agent's current directory).
#![cfg(unix)]

mod support;

use std::path::Path;

use hookchain::HooksBuilder;
use hookchain::SessionState;
use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::points::{InterceptToolCall, ToolCall};
use serde_json::json;
use support::{make_executable, temp_dir};

fn guard(dir: &Path, log: &Path, says: &str) {
    std::fs::create_dir_all(dir.join("hooks")).unwrap();
    let path = dir.join("hooks/guard.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ncat >/dev/null\necho {says} >> '{}'\n",
            log.display()
        ),
    )
    .unwrap();
    make_executable(&path);
}

#[test]
fn a_relative_program_is_resolved_and_hashed_in_the_agents_directory() {
    let agent = temp_dir();
    let project = temp_dir();
    let logs = temp_dir();
    let log = logs.path().join("ran");
    std::env::set_current_dir(agent.path()).unwrap();
    let hermes = "hooks:\n  pre_tool_call:\n    - command: ./hooks/guard.sh\n";
    let starchild = "hooks:\n  - event: pre_tool_call\n    command: ./hooks/guard.sh\n";
    // The session's project holds, at the same relative path, a copy of the approved file (its
    // hash is the approved one), or another file.
    for copy in ["approved", "project-copy"] {
        for (kind, yaml) in [("hermes", hermes), ("starchild", starchild)] {
            guard(project.path(), &log, copy);
            guard(agent.path(), &log, "approved");
            let _ = std::fs::remove_file(&log);
            let config = match kind {
                "hermes" => Config::from_hermes_str(yaml, "/home/u/.hermes/config.yaml"),
                _ => Config::from_starchild_str(yaml, "/data/workspace/config/shell_hooks.yaml"),
            }
            .unwrap();
            let hook = config.external_hooks()[0].clone();
            let mut consent = Consent::in_memory();
            consent.approve(&hook).unwrap();
            let hooks = HooksBuilder::new()
                .config(config)
                .consent(consent, ConsentPolicy::new())
                .build()
                .unwrap();
            let state = SessionState::default();
            state.set_project_dir(project.path());
            let fire = || {
                let _outcome = hooks.dispatch_in_session::<InterceptToolCall>(
                    "s-1",
                    &state,
                    ToolCall::new("terminal", json!({})),
                );
            };
            fire();
            // The agent's copy, rewritten after approval, does not run.
            guard(agent.path(), &log, "rewritten");
            fire();
            let ran = std::fs::read_to_string(&log).unwrap_or_default();
            assert_eq!(
                ran, "approved\n",
                "{kind}, the project's copy saying {copy}"
            );
        }
    }
}
