//! Wildcard keys in `hookchain.yaml`: an external command hook under `"*"` gets the JSON of every
//! dispatch's event on stdin (a script fixture appends each to a file), blocked calls included;
//! a pattern that can match nothing, or a key a wildcard hook cannot have, is an error naming the
//! file and line. No network; each test's temporary directory is removed when it ends.

use hookchain::config::Config;
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::points::InterceptToolCall;
use hookchain::{HookContext, HookOptions, HooksBuilder, prelude::*};

use crate::support::temp_dir;

fn fixture_file() -> String {
    crate::support::fixture("external/hookchain.yaml")
        .display()
        .to_string()
}

#[test]
fn a_star_key_runs_a_command_hook_on_every_dispatch_with_the_event() {
    let dir = temp_dir();
    let out = dir.path().join("events.jsonl");
    let yaml = format!(
        "hooks:\n  \"*\":\n    - name: audit-script\n      command: ./append_event.sh\n      \
         env: {{OUT: \"{}\"}}\n      timeout: 5\n",
        out.display()
    );
    let config = Config::from_yaml_str(&yaml, &fixture_file()).unwrap();
    let hooks = HooksBuilder::new()
        .config(config)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("no-rm"),
            |call: &ToolCall, _: &HookContext| {
                if call.name == "rm" {
                    HookResult::block("rm is refused")
                } else {
                    HookResult::<Value>::Pass
                }
            },
        )
        .build()
        .unwrap();
    assert_eq!(hooks.consent_report().admitted.len(), 1);
    assert_eq!(hooks.chain_of("*").len(), 1);
    let session = hooks.session("wild-config");
    let turn = session.begin_turn();
    let run = turn.run_tool(ToolCall::new("rm", json!({"path": "/"})), |_| {
        unreachable!("refused")
    });
    assert!(!run.ran);
    turn.end(TurnEnd::Normal);

    let text = std::fs::read_to_string(&out).unwrap();
    let events: Vec<Value> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let points: Vec<&str> = events
        .iter()
        .map(|e| e["point"].as_str().unwrap())
        .collect();
    assert_eq!(
        points,
        [
            "session_start",
            "intercept_tool_call",
            "after_tool_call",
            "turn_end"
        ]
    );
    let blocked = &events[1];
    assert_eq!(blocked["hook_event_name"], "intercept_tool_call");
    assert_eq!(blocked["decision"], "block");
    assert_eq!(blocked["hook"], "no-rm");
    assert_eq!(blocked["reason"], "rm is refused");
    assert_eq!(blocked["session_id"], "wild-config");
    assert_eq!(blocked["turn"], 0);
    assert_eq!(blocked["payload"]["name"], "rm");
    assert_eq!(blocked["payload"]["args"], json!({"path": "/"}));
    assert!(blocked["duration_us"].is_u64());
    assert_eq!(events[2]["payload"]["blocked"]["hook"], "no-rm");
}

#[test]
fn a_wildcard_key_that_cannot_match_or_has_a_matcher_is_an_error_with_its_line() {
    let error = |yaml: &str| {
        Config::from_yaml_str(yaml, "./hookchain.yaml")
            .unwrap_err()
            .to_string()
    };
    let typo = error("hooks:\n  \"atfer_*\":\n    - command: ./a.sh\n");
    assert!(
        typo.starts_with("event `atfer_*` in ./hookchain.yaml line 2:"),
        "{typo}"
    );
    assert!(typo.contains("did you mean `after_*`?"), "{typo}");
    let matcher = error("hooks:\n  \"*\":\n    - command: ./a.sh\n      matcher: Bash\n");
    assert!(matcher.contains("./hookchain.yaml line 4"), "{matcher}");
    assert!(
        matcher.contains("a wildcard hook only observes"),
        "{matcher}"
    );
}

#[test]
fn hookchain_doctor_fires_a_wildcard_hook_on_a_synthetic_event() {
    let dir = temp_dir();
    let out = dir.path().join("events.jsonl");
    let script = crate::support::fixture("external/append_event.sh");
    let config = dir.path().join("hookchain.yaml");
    std::fs::write(
        &config,
        format!(
            "hooks:\n  \"after_*\":\n    - name: after-script\n      command: {}\n      \
             env: {{OUT: \"{}\"}}\n",
            script.display(),
            out.display()
        ),
    )
    .unwrap();
    let consent = dir.path().join("approved.json");
    let run = |command: &str, extra: &[&str]| {
        let mut argv = vec![
            "hookchain",
            "--config",
            config.to_str().unwrap(),
            "--consent-file",
            consent.to_str().unwrap(),
            command,
        ];
        argv.extend_from_slice(extra);
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let code = hookchain::cli::run_with(argv, HooksBuilder::new(), &mut stdout, &mut stderr);
        (
            code,
            String::from_utf8(stdout).unwrap() + &String::from_utf8(stderr).unwrap(),
        )
    };
    let (code, output) = run("approve", &["--all"]);
    assert_eq!(code, hookchain::cli::EXIT_OK, "{output}");
    let (_, output) = run("doctor", &[]);
    assert!(
        output.contains("fired on a synthetic dispatch event"),
        "{output}"
    );
    assert!(!output.contains("not a built-in point"), "{output}");
    let event: Value = serde_json::from_str(
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(event["point"], "intercept_tool_call");
    assert_eq!(event["decision"], "pass");
}
