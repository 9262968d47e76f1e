//! Copilot's fixtures (`tests/fixtures/agents/copilot/`, see their README) through the
//! command line, both directions: `hookchain test EVENT --payload-file` takes Copilot's event
//! names and its camelCase payloads and gives each fixture script's answer as Copilot reads
//! it; `hookchain hook --agent copilot` answers every fixture payload in a form Copilot reads
//! for that event (GitHub's hooks reference: `permissionDecision` and `modifiedArgs` on
//! `preToolUse`, `decision` on `agentStop`/`subagentStop`, `behavior` on `permissionRequest`,
//! nothing where Copilot ignores the output). Every run names its config and allowlist, or
//! runs with a temporary home: the user's own is never read or written.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};

use hookchain::HooksBuilder;
use hookchain::cli::{self, EXIT_BLOCKED, EXIT_OK};
use serde_json::Value;

use support::{Run, copy_dir, hookchain, temp};

/// The fixtures of Copilot, in the source tree.
fn fixtures() -> PathBuf {
    support::fixtures("copilot")
}

/// `hookchain --config FILE --consent-file … ARGS`, in process.
fn run(config: &Path, consent: &Path, args: &[&str]) -> Run {
    let mut argv: Vec<String> = vec![
        "hookchain".into(),
        "--config".into(),
        config.display().to_string(),
        "--consent-file".into(),
        consent.display().to_string(),
    ];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run_with(argv, HooksBuilder::new(), &mut out, &mut err);
    Run {
        code,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
    }
}

/// A fixture payload, written into `dir` with `dir` as its `cwd` (the hooks run there).
fn payload(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    std::fs::write(
        &path,
        support::with_cwd(&fixtures().join("payloads").join(name), dir),
    )
    .unwrap();
    path.display().to_string()
}

/// `hookchain test` takes Copilot's event names and payloads: the guard's deny blocks, the
/// rewrite's `modifiedArgs` are the call's new arguments, the stop gate sends the agent back.
#[test]
fn hookchain_test_reads_copilots_events_and_payloads() {
    let dir = temp();
    copy_dir(&fixtures().join("repo"), &dir.path().join("repo"));
    let hooks = dir.path().join("repo/.github/hooks");
    let consent = dir.path().join("approved-hooks.json");
    let guard = hooks.join("guard.json");
    assert_eq!(run(&guard, &consent, &["approve", "--all"]).code, EXIT_OK);

    let blocked = run(
        &guard,
        &consent,
        &[
            "test",
            "preToolUse",
            "--verbose",
            "--payload-file",
            &payload(dir.path(), "preToolUse.json"),
        ],
    );
    assert_eq!(blocked.code, EXIT_BLOCKED, "{}{}", blocked.out, blocked.err);
    assert!(
        blocked
            .out
            .contains("recursive forced delete is not allowed in this repository"),
        "{}",
        blocked.out
    );
    // The matcher `bash` matches the session's `Bash` (Copilot's `bash`): the chain says so.
    assert!(!blocked.out.contains("does not match"), "{}", blocked.out);
    assert!(
        blocked.out.contains(r#""toolName":"bash""#),
        "{}",
        blocked.out
    );

    let rewritten = run(
        &guard,
        &consent,
        &[
            "test",
            "preToolUse",
            "--json",
            "--payload-file",
            &payload(dir.path(), "preToolUse.cli_object_args.json"),
        ],
    );
    assert_eq!(
        rewritten.code, EXIT_OK,
        "{}{}",
        rewritten.out, rewritten.err
    );
    let json: Value = serde_json::from_str(rewritten.out.trim()).unwrap();
    assert_eq!(json["value"]["name"], "Bash");
    assert_eq!(json["value"]["args"]["command"], "npm ci");

    // `permissionRequest` has `preToolUse`'s fields: the event given names it.
    let refused = run(
        &guard,
        &consent,
        &[
            "test",
            "permissionRequest",
            "--payload-file",
            &payload(dir.path(), "permissionRequest.json"),
        ],
    );
    assert_eq!(refused.code, EXIT_BLOCKED, "{}{}", refused.out, refused.err);
    assert!(
        refused.out.contains("Pushing is done by a person"),
        "{}",
        refused.out
    );

    let loop_file = hooks.join("agent-loop.json");
    assert_eq!(
        run(&loop_file, &consent, &["approve", "--all"]).code,
        EXIT_OK
    );
    // `list` names what each matcher filters on, in Copilot's field names.
    let listed = run(&loop_file, &consent, &["list"]);
    assert!(listed.out.contains("agentName:explore.*"), "{}", listed.out);
    let stop = run(
        &loop_file,
        &consent,
        &[
            "test",
            "agentStop",
            "--payload-file",
            &payload(dir.path(), "agentStop.json"),
        ],
    );
    assert_eq!(stop.code, EXIT_BLOCKED, "{}{}", stop.out, stop.err);
    assert!(stop.out.contains("Run the test suite"), "{}", stop.out);
    // A failed call's guidance (exit 2 on `postToolUseFailure`) is context for the model.
    let failure = run(
        &loop_file,
        &consent,
        &[
            "test",
            "postToolUseFailure",
            "--json",
            "--payload-file",
            &payload(dir.path(), "postToolUseFailure.json"),
        ],
    );
    assert_eq!(failure.code, EXIT_OK, "{}{}", failure.out, failure.err);
    assert!(
        failure
            .out
            .contains("list the directory with glob before retrying"),
        "{}",
        failure.out
    );
}

/// The fields Copilot reads in a hook's answer to `event` (GitHub's hooks reference).
fn answer_fields(event: &str) -> &'static [&'static str] {
    match event {
        "preToolUse" => &[
            "permissionDecision",
            "permissionDecisionReason",
            "modifiedArgs",
        ],
        "permissionRequest" => &["behavior", "message", "interrupt"],
        "agentStop" | "subagentStop" => &["decision", "reason"],
        "postToolUse" | "sessionStart" | "subagentStart" | "notification" => &["additionalContext"],
        _ => &[],
    }
}

/// Every fixture payload, through `hookchain hook --agent copilot` with the destructive-commands
/// guard: the event is told from the payload's fields (`permissionRequest` given as EVENT, as
/// its fields are `preToolUse`'s), and the answer is exit 0 with nothing, or one JSON object of
/// the fields Copilot reads for that event.
#[test]
fn the_guest_answers_every_fixture_payload_in_copilots_form() {
    let home = temp();
    let project = temp();
    std::fs::create_dir_all(home.path().join(".config/hookchain")).unwrap();
    std::fs::write(
        project.path().join("hookchain.yaml"),
        "extensions:\n  destructive-commands:\n    enabled: true\n",
    )
    .unwrap();
    let cases = [
        ("preToolUse.json", "preToolUse", None),
        ("preToolUse.cli_object_args.json", "preToolUse", None),
        ("preToolUse.edit.json", "preToolUse", None),
        ("preToolUse.commit.json", "preToolUse", None),
        (
            "permissionRequest.json",
            "permissionRequest",
            Some("permissionRequest"),
        ),
        ("postToolUse.json", "postToolUse", None),
        ("postToolUseFailure.json", "postToolUseFailure", None),
        ("userPromptSubmitted.json", "userPromptSubmitted", None),
        ("agentStop.json", "agentStop", None),
        ("subagentStart.json", "subagentStart", None),
        ("subagentStop.json", "subagentStop", None),
        ("sessionStart.json", "sessionStart", None),
        ("sessionEnd.json", "sessionEnd", None),
        ("preCompact.json", "preCompact", None),
        ("errorOccurred.json", "errorOccurred", None),
        ("notification.json", "notification", None),
    ];
    for (file, event, given) in cases {
        let payload = support::with_cwd(&fixtures().join("payloads").join(file), project.path());
        let mut args = vec!["hook", "--agent", "copilot"];
        args.extend(given);
        let Run { code, out, err } = hookchain(home.path(), home.path(), &args, &payload);
        assert_eq!(code, 0, "{file}: {out}{err}");
        if out.trim().is_empty() {
            continue;
        }
        let answer: Value = serde_json::from_str(out.trim())
            .unwrap_or_else(|e| panic!("{file}: not JSON ({e}): {out}"));
        let fields = answer_fields(event);
        for key in answer.as_object().unwrap().keys() {
            assert!(
                fields.contains(&key.as_str()),
                "{file}: `{key}` is not a field Copilot reads on {event}: {out}"
            );
        }
    }
}

/// Context from the chain comes back in the form Copilot reads for the event:
/// `additionalContext` on `subagentStart`, exit 2 with the text on stderr on
/// `postToolUseFailure` (GitHub's CLI hooks reference).
#[test]
fn the_guest_gives_context_where_copilot_reads_it() {
    let home = temp();
    let project = temp();
    std::fs::create_dir_all(home.path().join(".config/hookchain")).unwrap();
    let script = project.path().join("context.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\nprintf '%s' '{\"hookSpecificOutput\":{\"additionalContext\":\"read the runbook first\"}}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::write(
        project.path().join("hookchain.yaml"),
        "hooks:\n  session_start:\n    - command: ./context.sh\n  after_tool_call:\n    - command: ./context.sh\n",
    )
    .unwrap();
    let hookchain =
        |args: &[&str], stdin: &str| hookchain(project.path(), home.path(), args, stdin);
    let approved = hookchain(&["approve", "--all"], "");
    assert_eq!(approved.code, 0, "{approved:?}");
    let with_cwd =
        |name: &str| support::with_cwd(&fixtures().join("payloads").join(name), project.path());

    let child = hookchain(
        &["hook", "--agent", "copilot"],
        &with_cwd("subagentStart.json"),
    );
    let out = child.out;
    assert_eq!(child.code, 0, "{out}");
    let answer: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        answer,
        serde_json::json!({"additionalContext": "read the runbook first"})
    );

    let failure = hookchain(
        &["hook", "--agent", "copilot"],
        &with_cwd("postToolUseFailure.json"),
    );
    assert_eq!(failure.code, 2);
    assert!(failure.out.is_empty());
    assert_eq!(failure.err, "read the runbook first\n");
}
