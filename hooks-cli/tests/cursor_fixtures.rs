//! Cursor's fixtures (`tests/fixtures/agents/cursor/`) through the `hookchain` binary, both
//! ways:
//!
//! - host: `hookchain --config .cursor/hooks.json test EVENT --payload-file PAYLOAD` fires the
//!   project's Cursor hooks on Cursor's own payload, and each script's answer comes out as
//!   Cursor reads it (the fixtures' README lists what each script answers to each payload);
//! - guest: every fixture payload through `hookchain hook --agent cursor` with the
//!   destructive-commands guard gets an answer Cursor reads for that event — one JSON object
//!   with only the fields Cursor documents for it (cursor.com/docs/agent/hooks), `permission`
//!   `allow` or `deny` (never `ask`, which Cursor runs unasked in its Auto-review mode) — and
//!   the guard's block comes out in Cursor's block form.
//!
//! Runs with the home directory (`HOME`) and a copy of the fixtures in temporary directories;
//! the payloads' `/work/project` is rewritten to the copy's project.
#![cfg(unix)]

mod support;

use serde_json::{Value, json};

use support::{GUARD, Sandbox};

/// A copy of the fixtures and an empty home directory.
fn sandbox() -> Sandbox {
    Sandbox::new("cursor", "project")
}

/// The fixture payload `name`, its project directory the copy's.
fn payload(sandbox: &Sandbox, name: &str) -> String {
    let text = std::fs::read_to_string(sandbox.root.path().join("payloads").join(name)).unwrap();
    text.replace("/work/project", &sandbox.project().display().to_string())
}

/// `hookchain test EVENT` on the fixture payload, with the project's Cursor hooks approved.
fn test(sandbox: &Sandbox, event: &str, name: &str) -> Value {
    let consent = sandbox.root.path().join("consent.json");
    sandbox
        .test(
            ".cursor/hooks.json",
            Some(&consent),
            event,
            &payload(sandbox, name),
        )
        .json()
}

/// Host: Cursor's own payloads fire the project's Cursor hooks, read as Cursor reads them.
#[test]
fn hookchain_test_runs_cursor_hooks_on_cursor_payloads() {
    let sandbox = sandbox();
    let shell = test(
        &sandbox,
        "beforeShellExecution",
        "beforeShellExecution.json",
    );
    assert_eq!(shell["outcome"], "blocked", "{shell}");
    assert_eq!(
        shell["reason"],
        "rm -rf is not allowed in this repository; delete specific files instead."
    );
    let mcp = test(&sandbox, "beforeMCPExecution", "beforeMCPExecution.json");
    assert_eq!(
        mcp["reason"], "Destructive SQL through MCP is not allowed; use a read-only query.",
        "{mcp}"
    );
    let prompt = test(&sandbox, "beforeSubmitPrompt", "beforeSubmitPrompt.json");
    assert_eq!(prompt["outcome"], "continue", "{prompt}");
    // `stop` is docker-agent's name too: the payload's Cursor fields say whose it is, and
    // the follow-up sends the agent back to work.
    let stop = test(&sandbox, "stop", "stop.json");
    assert_eq!(
        (&stop["outcome"], &stop["reason"]),
        (
            &json!("blocked"),
            &json!("Run the test suite and report its result.")
        ),
        "{stop}"
    );
}

/// The fields Cursor reads on each event's answer.
fn documented(event: &str) -> &'static [&'static str] {
    match event {
        "preToolUse" => &[
            "permission",
            "user_message",
            "agent_message",
            "updated_input",
        ],
        "beforeShellExecution" | "beforeMCPExecution" => {
            &["permission", "user_message", "agent_message"]
        }
        "beforeReadFile" => &["permission"],
        "beforeSubmitPrompt" => &["continue", "user_message"],
        "stop" => &["followup_message"],
        "sessionStart" | "postToolUse" => &["additional_context"],
        "subagentStart" => &[
            "permission",
            "user_message",
            "agent_message",
            "additional_context",
        ],
        _ => &[],
    }
}

/// Guest: every fixture payload gets an answer in Cursor's form for its event.
#[test]
fn every_fixture_payload_gets_an_answer_cursor_reads() {
    let sandbox = sandbox();
    std::fs::write(sandbox.project().join("hookchain.yaml"), GUARD).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(sandbox.root.path().join("payloads"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 12);
    for name in &names {
        let payload = payload(&sandbox, name);
        let event = serde_json::from_str::<Value>(&payload).unwrap()["hook_event_name"]
            .as_str()
            .unwrap()
            .to_owned();
        let run = sandbox.run(&["hook", "--agent", "cursor"], &payload);
        assert_eq!(run.code, 0, "{name}: {run:?}");
        let answer = run.json();
        let fields = answer.as_object().unwrap();
        for key in fields.keys() {
            assert!(
                documented(&event).contains(&key.as_str()),
                "{name}: `{key}` is not a field Cursor reads on {event}: {run:?}"
            );
        }
        if let Some(permission) = fields.get("permission") {
            assert!(
                permission == "allow" || permission == "deny",
                "{name}: {run:?}"
            );
        }
    }
}

/// Guest: the guard's decision on a destructive command comes out as Cursor's deny on each of
/// its events that carry one, with the reason for the model; on `beforeReadFile`, the one
/// field that event reads.
#[test]
fn the_guards_block_is_cursors_deny() {
    let sandbox = sandbox();
    std::fs::write(sandbox.project().join("hookchain.yaml"), GUARD).unwrap();
    for name in ["beforeShellExecution.json", "preToolUse.json"] {
        let payload = payload(&sandbox, name).replace("rm -rf node_modules/.cache", "rm -rf /");
        let run = sandbox.run(&["hook", "--agent", "cursor"], &payload);
        let answer = run.json();
        assert_eq!(answer["permission"], "deny", "{name}: {run:?}");
        assert!(
            answer["agent_message"]
                .as_str()
                .is_some_and(|r| r.starts_with("destructive-commands: ")),
            "{name}: {run:?}"
        );
    }
    // A hook of the project's hookchain.yaml that blocks every read: `permission` alone.
    std::fs::write(
        sandbox.project().join("no_reads.sh"),
        "#!/bin/sh\ncat >/dev/null\necho 'no reads here' >&2\nexit 2\n",
    )
    .unwrap();
    std::fs::set_permissions(
        sandbox.project().join("no_reads.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(
        sandbox.project().join("hookchain.yaml"),
        "hooks:\n  intercept_tool_call:\n    - command: ./no_reads.sh\n      name: no-reads\n",
    )
    .unwrap();
    let approve = sandbox.run(&["approve", "--all"], "");
    assert_eq!(approve.code, 0, "{approve:?}");
    let run = sandbox.run(
        &["hook", "--agent", "cursor"],
        &payload(&sandbox, "beforeReadFile.json"),
    );
    assert_eq!(run.json(), json!({"permission": "deny"}), "{run:?}");
    assert!(run.err.contains("no reads here"), "{run:?}");
}
