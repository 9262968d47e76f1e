//! Gemini CLI both ways, with the fixtures of `tests/fixtures/agents/gemini/` (see the README
//! there): `hookchain test` fires Gemini CLI's own hooks with its own payloads (its event and
//! tool names) and reports what Gemini CLI would do, and `hookchain hook --agent gemini`
//! answers every fixture payload in a form Gemini CLI reads without a failure — read back by the
//! host's reading of Gemini CLI's answers — with the guard's block as Gemini CLI's `deny`.
//! Runs the `hookchain` binary with its home directory (`HOME`) and the project in temporary
//! directories.
#![cfg(unix)]

mod support;

use hookchain_external::Dialect;
use hookchain_external::answer::Verdict;
use hookchain_external::wire::agents::read_answer;
use serde_json::{Value, json};

use support::{GUARD, Sandbox};

/// `hookchain test` with Gemini CLI's event names and payloads fires the project's hooks as
/// Gemini CLI would: `shell_guard.sh` denies the `rm -rf` payload (exit code 2, its reason),
/// `rewrite_install.sh`'s `tool_input` is merged over the arguments, and `turn_context.sh`'s
/// context comes back on `BeforeAgent`.
#[test]
fn hookchain_test_fires_gemini_hooks_with_gemini_payloads() {
    let sandbox = Sandbox::new("gemini", "project");
    let settings = ".gemini/settings.json";
    let (run, json) =
        sandbox.test_file(settings, "BeforeTool", &sandbox.payload_file("BeforeTool"));
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(json["outcome"], "blocked", "{json}");
    assert_eq!(
        json["reason"],
        "recursive forced delete is not allowed in this repository"
    );

    let (run, json) = sandbox.test_file(
        settings,
        "BeforeTool",
        &sandbox.payload_file("BeforeTool.npm_install"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        json["value"]["args"],
        json!({"command": "npm ci", "description": "Install dependencies"}),
        "{json}"
    );

    let (_, json) = sandbox.test_file(
        settings,
        "BeforeAgent",
        &sandbox.payload_file("BeforeAgent"),
    );
    assert_eq!(
        json["context"],
        json!(["Current branch: main. Run npm test before claiming a fix."]),
        "{json}"
    );
}

/// A deny printed as JSON on stdout beside exit 2, with nothing on stderr (the `gate` fixture,
/// modelled on `5throck/co-safety`'s gate): Gemini CLI reads stdout whatever the exit code, so
/// the block carries the JSON's reason, not an empty one.
#[test]
fn an_exit_2_deny_printed_as_json_keeps_its_reason() {
    let sandbox = Sandbox::new("gemini", "gate");
    let settings = ".gemini/settings.json";
    let (run, json) = sandbox.test_file(
        settings,
        "BeforeTool",
        &sandbox.payload_file("BeforeTool.write_file"),
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(json["outcome"], "blocked", "{json}");
    assert_eq!(
        json["reason"],
        "first edit of this module: list its importers (git grep) before changing it",
        "{json}"
    );

    let (run, json) = sandbox.test_file(
        settings,
        "BeforeTool",
        &sandbox.payload_file("BeforeTool.replace"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(json["outcome"], "continue", "{json}");
}

/// Every fixture payload through `hookchain hook --agent gemini`, and a force push: each answer
/// is one Gemini CLI reads without a failure, and the force push comes back as its `deny`.
#[test]
fn hook_agent_gemini_answers_every_fixture_payload_in_a_form_gemini_reads() {
    let sandbox = Sandbox::new("gemini", "project");
    std::fs::write(sandbox.project().join("hookchain.yaml"), GUARD).unwrap();
    // An event with no point (`BeforeToolSelection`) fails open, as Gemini CLI takes a failed hook.
    let push = support::hook_every_payload(
        &sandbox,
        "gemini",
        Dialect::Gemini,
        "BeforeTool",
        "Gemini CLI",
    );
    let run = sandbox.run(&["hook", "--agent", "gemini"], &push.to_string());
    let answer = read_answer(
        Dialect::Gemini,
        "intercept_tool_call",
        "BeforeTool",
        &run.raw(),
    )
    .unwrap_or_else(|e| panic!("Gemini CLI would count {run:?} as failed: {e}"));
    assert!(
        matches!(&answer.verdict, Verdict::Block(reason) if !reason.is_empty()),
        "{run:?} read as {answer:?}"
    );
    let json: Value = serde_json::from_str(&run.out).unwrap();
    assert_eq!(json["decision"], "deny", "{json}");
}
