//! Gemini CLI both ways, with the fixtures of `tests/fixtures/agents/gemini/` (see the README
//! there): `hookchain test` fires Gemini CLI's own hooks with its own payloads (its event and
//! tool names) and reports what Gemini CLI would do, and `hookchain hook --agent gemini`
//! answers every fixture payload in a form Gemini CLI reads without a failure — read back by the
//! host's reading of Gemini CLI's answers — with the guard's block as Gemini CLI's `deny`.
//! Runs the `hookchain` binary with its home directory (`HOME`) and the project in temporary
//! directories.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};

use hookchain_core::points;
use hookchain_external::answer::Verdict;
use hookchain_external::wire::agents::read_answer;
use hookchain_external::{Dialect, RawOutput};
use serde_json::{Value, json};

use support::{Run, Sandbox};

fn fixtures() -> PathBuf {
    support::fixtures("gemini")
}

/// `hookchain --config CONFIG --accept-hooks test EVENT --payload-file PAYLOAD --json` in a
/// sandbox of the fixtures, the payload's `cwd` the project's copy.
fn test(sandbox: &Sandbox, config: &str, event: &str, payload: &Path) -> (Run, Value) {
    let config = sandbox.project().join(config).display().to_string();
    let payload = support::with_cwd(payload, &sandbox.project());
    let run = sandbox.test(&config, None, event, &payload);
    let json = run.json();
    (run, json)
}

fn payload_file(name: &str) -> PathBuf {
    fixtures().join("payloads").join(format!("{name}.json"))
}

/// `hookchain test` with Gemini CLI's event names and payloads fires the project's hooks as
/// Gemini CLI would: `shell_guard.sh` denies the `rm -rf` payload (exit code 2, its reason),
/// `rewrite_install.sh`'s `tool_input` is merged over the arguments, and `turn_context.sh`'s
/// context comes back on `BeforeAgent`.
#[test]
fn hookchain_test_fires_gemini_hooks_with_gemini_payloads() {
    let sandbox = Sandbox::new("gemini", "project");
    let settings = ".gemini/settings.json";
    let (run, json) = test(
        &sandbox,
        settings,
        "BeforeTool",
        &payload_file("BeforeTool"),
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(json["outcome"], "blocked", "{json}");
    assert_eq!(
        json["reason"],
        "recursive forced delete is not allowed in this repository"
    );

    let (run, json) = test(
        &sandbox,
        settings,
        "BeforeTool",
        &payload_file("BeforeTool.npm_install"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        json["value"]["args"],
        json!({"command": "npm ci", "description": "Install dependencies"}),
        "{json}"
    );

    let (_, json) = test(
        &sandbox,
        settings,
        "BeforeAgent",
        &payload_file("BeforeAgent"),
    );
    assert_eq!(
        json["context"],
        json!(["Current branch: main. Run npm test before claiming a fix."]),
        "{json}"
    );
}

/// The guard as hookchain's projects configure it.
const GUARD: &str = "extensions:\n  destructive-commands:\n    enabled: true\n    protected_branches: [main, master]\n";

/// Every fixture payload through `hookchain hook --agent gemini`, and a force push: each answer
/// is one Gemini CLI reads without a failure, and the force push comes back as its `deny`.
#[test]
fn hook_agent_gemini_answers_every_fixture_payload_in_a_form_gemini_reads() {
    let sandbox = Sandbox::new("gemini", "project");
    std::fs::write(sandbox.project().join("hookchain.yaml"), GUARD).unwrap();
    let cwd = sandbox.project().display().to_string();
    let mut payloads: Vec<PathBuf> = std::fs::read_dir(fixtures().join("payloads"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    payloads.sort();
    let mut force_push = None;
    for path in &payloads {
        let mut payload: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        payload["cwd"] = Value::from(cwd.as_str());
        if path.ends_with("BeforeTool.json") {
            let mut push = payload.clone();
            push["tool_input"]["command"] = Value::from("git push --force origin main");
            force_push = Some(push);
        }
        let event = payload["hook_event_name"].as_str().unwrap().to_owned();
        let run = sandbox.run(&["hook", "--agent", "gemini"], &payload.to_string());
        let Some(point) = points::resolve(&event).map(|p| p.name) else {
            // An event with no point (`BeforeToolSelection`): the hook fails open, as Gemini CLI
            // takes a failed hook — never a block.
            assert!(run.code != 2 && run.out.is_empty(), "{event}: {run:?}");
            continue;
        };
        let raw = RawOutput {
            exit_code: Some(run.code),
            stdout: run.out.clone().into_bytes(),
            stderr: run.err.clone().into_bytes(),
        };
        let answer = read_answer(Dialect::Gemini, point, &event, &raw);
        assert!(
            answer.is_ok(),
            "{}: Gemini CLI would count {run:?} as failed: {answer:?}",
            path.display()
        );
    }
    let push = force_push.expect("the fixtures have BeforeTool.json");
    let run = sandbox.run(&["hook", "--agent", "gemini"], &push.to_string());
    let raw = RawOutput {
        exit_code: Some(run.code),
        stdout: run.out.clone().into_bytes(),
        stderr: run.err.clone().into_bytes(),
    };
    let answer = read_answer(Dialect::Gemini, "intercept_tool_call", "BeforeTool", &raw)
        .unwrap_or_else(|e| panic!("Gemini CLI would count {run:?} as failed: {e}"));
    assert!(
        matches!(&answer.verdict, Verdict::Block(reason) if !reason.is_empty()),
        "{run:?} read as {answer:?}"
    );
    let json: Value = serde_json::from_str(&run.out).unwrap();
    assert_eq!(json["decision"], "deny", "{json}");
}
