//! Codex both ways, with the fixtures of `tests/fixtures/agents/codex/` (see the README there):
//! `hookchain test` fires Codex's own hooks with Codex's own payloads and reports what Codex
//! would do, and `hookchain hook --agent codex` answers every fixture payload in a form Codex
//! accepts — read back by the host's reading of Codex's answers, which counts an answer with a
//! field Codex does not support as a failed hook — with the guard's block as Codex's block.
//! Runs the `hookchain` binary with its home directory (`HOME`) and the project in temporary
//! directories.
#![cfg(unix)]

mod support;

use hookchain_external::Dialect;
use hookchain_external::answer::Verdict;
use hookchain_external::wire::agents::read_answer;
use serde_json::{Value, json};

use support::{GUARD, Sandbox};

/// `hookchain test` with Codex's event names and Codex's payloads fires the project's Codex
/// hooks as Codex would: `deny_rm.sh` blocks the `rm -rf` payload (exit code 2, the reason
/// Codex's), `rewrite_install.sh` turns `npm install` into `npm ci`, the prompt guard's context
/// comes back, and the `config.toml`'s exit-2 blocker reads a payload naming Codex's own shell
/// tool `exec_command`.
#[test]
fn hookchain_test_fires_codex_hooks_with_codex_payloads() {
    let sandbox = Sandbox::new("codex", "project");
    let (run, json) = sandbox.test_file(
        ".codex/hooks.json",
        "PreToolUse",
        &sandbox.payload_file("PreToolUse"),
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(json["outcome"], "blocked", "{json}");
    assert_eq!(
        json["reason"],
        "recursive forced delete is not allowed in this repository"
    );

    let (run, json) = sandbox.test_file(
        ".codex/hooks.json",
        "PreToolUse",
        &sandbox.payload_file("PreToolUse.npm_install"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        json["value"]["args"],
        json!({"command": "npm ci"}),
        "{json}"
    );

    let (_, json) = sandbox.test_file(
        ".codex/hooks.json",
        "UserPromptSubmit",
        &sandbox.payload_file("UserPromptSubmit"),
    );
    assert_eq!(json["context"], json!(["Answer in English."]), "{json}");

    // `Interrupt` is the end of a turn the user canceled: the config.toml's hook says its
    // `systemMessage`.
    let (run, json) = sandbox.test_file(
        ".codex/config.toml",
        "Interrupt",
        &sandbox.payload_file("Interrupt"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        json["warnings"]
            .as_array()
            .is_some_and(|w| w.contains(&json!("Turn interrupted; partial edits may be on disk."))),
        "{json}"
    );

    let push = sandbox.project().join("push.json");
    let text = json!({
        "session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": "/work/project",
        "hook_event_name": "PreToolUse", "model": "gpt-5-codex", "permission_mode": "default",
        "tool_name": "exec_command", "tool_input": {"command": "git push -f origin main"},
        "tool_use_id": "c"
    });
    std::fs::write(&push, text.to_string()).unwrap();
    let (run, json) = sandbox.test_file(".codex/config.toml", "PreToolUse", &push);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        json["reason"],
        "force-pushing rewrites shared history; push without --force"
    );
}

/// `hookchain test SubagentStart` fires a child agent's start, as Codex fires that event: the
/// `SubagentStart` hook runs (with the child's `agent_id`), the `SessionStart` one does not
/// (the `child` fixture, modelled on `1nf3rn0-H/agent-runtime-security`: one script on both
/// events). It used to fire the parent's `SessionStart` hooks instead.
#[test]
fn hookchain_test_subagent_start_fires_the_child_start_hooks() {
    let sandbox = Sandbox::new("codex", "child");
    let (run, json) = sandbox.test_file(
        ".codex/hooks.json",
        "SubagentStart",
        &sandbox.payload_file("SubagentStart"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        json["value"]["context"],
        json!(["trace: SubagentStart of agent-2"]),
        "{json}"
    );
    assert_eq!(json["value"]["source"], "subagent", "{json}");

    let (run, json) = sandbox.test_file(
        ".codex/hooks.json",
        "SessionStart",
        &sandbox.payload_file("SessionStart"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        json["value"]["context"],
        json!(["trace: SessionStart"]),
        "{json}"
    );
}

/// Every fixture payload through `hookchain hook --agent codex`, and a force push: each answer
/// is one Codex accepts (read back as Codex reads answers, it is no failed hook), and the force
/// push comes back as Codex's block.
#[test]
fn hook_agent_codex_answers_every_fixture_payload_in_a_form_codex_accepts() {
    let sandbox = Sandbox::new("codex", "project");
    std::fs::write(sandbox.project().join("hookchain.yaml"), GUARD).unwrap();
    // An event with no point (`StopFailure`) fails open, as Codex takes a failed hook.
    let push =
        support::hook_every_payload(&sandbox, "codex", Dialect::Codex, "PreToolUse", "Codex");
    let run = sandbox.run(&["hook", "--agent", "codex"], &push.to_string());
    let answer = read_answer(
        Dialect::Codex,
        "intercept_tool_call",
        "PreToolUse",
        &run.raw(),
    )
    .unwrap_or_else(|e| panic!("Codex would reject {run:?}: {e}"));
    assert!(
        matches!(&answer.verdict, Verdict::Block(reason) if !reason.is_empty()),
        "{run:?} read as {answer:?}"
    );
    let json: Value = serde_json::from_str(&run.out).unwrap();
    assert_eq!(
        json["hookSpecificOutput"]["permissionDecision"], "deny",
        "{json}"
    );
}
