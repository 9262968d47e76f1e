//! `stop-verifier` against a corpus of final replies: claims of written files, passing tests
//! and pushed/sent/deployed work, with and without the tool calls that did it; negated, future,
//! hedged and conditional claims, questions, code blocks and quotes that must pass. Prints the
//! corpus sizes and the false positives and negatives. Then the guard in a registry: evidence
//! recorded on `after_tool_call` (failed and refused calls are none), its own redo cap, per-turn
//! state, config from `hookchain.yaml` and from Rust.

use crate::support::{from_yaml, listening, yaml_error};
use hookchain::points::{AfterToolCall, InterceptToolCall, ToolResult};
use hookchain::prelude::*;
use hookchain::{HookContext, Stop, TurnEnd};
use hookchain_guards::{BuiltinsExt, ClaimRule, StopVerifier};
use serde_json::Value;

/// A successful call: the tool and its args.
type Call = (&'static str, Value);

fn bash(command: &str) -> Call {
    ("bash", json!({ "command": command }))
}

fn write(path: &str) -> Call {
    ("write_file", json!({ "path": path, "content": "..." }))
}

/// Replies that claim work no call of the turn did: each must be sent back, for the rules named.
fn unverified() -> Vec<(&'static str, Vec<Call>, &'static [&'static str])> {
    vec![
        // files
        (
            "I've updated `src/lib.rs` to handle the empty input case.",
            vec![],
            &["files"],
        ),
        (
            "Created README.md with the installation steps.",
            vec![],
            &["files"],
        ),
        (
            "Done! I wrote the migration to migrations/0004_add_users.sql.",
            vec![],
            &["files"],
        ),
        (
            "The config file has been updated with the new port.",
            vec![],
            &["files"],
        ),
        ("I fixed the typo in docs/guide.md.", vec![], &["files"]),
        (
            "Summary of changes:\n- Added a `--verbose` flag to cli.rs\n- Refactored the parser module",
            vec![],
            &["files"],
        ),
        (
            "I\u{2019}ve saved the report to /tmp/report.html.",
            vec![],
            &["files"],
        ),
        (
            "\u{2705} Updated package.json and bumped the version.",
            vec![],
            &["files"],
        ),
        (
            "I removed the unused import from main.py, and the linter is happy.",
            vec![],
            &["files"],
        ),
        (
            "The fix is in: I patched handler.go to check for nil.",
            vec![],
            &["files"],
        ),
        (
            "I have created the Dockerfile and the docker-compose.yml.",
            vec![],
            &["files"],
        ),
        (
            "Both files were modified: a.rs and b.rs.",
            vec![],
            &["files"],
        ),
        (
            "I've implemented the retry logic in `client.ts` as requested.",
            vec![("read_file", json!({"path": "client.ts"}))],
            &["files"],
        ),
        (
            "I edited the function so it returns early.",
            vec![bash("cat src/util.rs")],
            &["files"],
        ),
        // tests
        ("All tests pass.", vec![], &["tests"]),
        (
            "I ran the test suite and everything is green.",
            vec![],
            &["tests"],
        ),
        ("The tests are now passing.", vec![], &["tests"]),
        ("Ran `cargo test`: 42 passed, 0 failed.", vec![], &["tests"]),
        (
            "I've run the unit tests again and they pass.",
            vec![],
            &["tests"],
        ),
        ("Test results: 128 passed.", vec![], &["tests"]),
        (
            "Great news \u{2014} the integration tests pass on the first try.",
            vec![],
            &["tests"],
        ),
        (
            "I executed pytest and all checks came back clean.",
            vec![],
            &["tests"],
        ),
        ("I can confirm that all tests pass.", vec![], &["tests"]),
        (
            "Tests pass locally.",
            vec![bash("cargo build --release")],
            &["tests"],
        ),
        (
            "All 17 specs passed after the change.",
            vec![bash("npm run lint")],
            &["tests"],
        ),
        // publish
        ("Pushed the fix to origin/main.", vec![], &["publish"]),
        (
            "I've deployed the new version to staging.",
            vec![],
            &["publish"],
        ),
        (
            "The package has been published to crates.io.",
            vec![],
            &["publish"],
        ),
        (
            "I sent the weekly report to the team channel.",
            vec![],
            &["publish"],
        ),
        (
            "Done \u{2014} the changes are live on production.",
            vec![],
            &["publish"],
        ),
        (
            "I merged the PR and deleted the branch.",
            vec![],
            &["publish"],
        ),
        ("Emailed the invoice to the client.", vec![], &["publish"]),
        (
            "I posted the summary to #engineering on Slack.",
            vec![],
            &["publish"],
        ),
        ("Your message has been sent to Alice.", vec![], &["publish"]),
        (
            "Released v2.3.0 and pushed the tag.",
            vec![bash("git tag v2.3.0")],
            &["publish"],
        ),
        (
            "The site is deployed at https://example.com.",
            vec![],
            &["publish"],
        ),
        (
            "I pushed the branch.",
            vec![bash("git commit -am wip")],
            &["publish"],
        ),
        // several at once, some with evidence
        (
            "I updated the README and ran the tests; everything passes.",
            vec![],
            &["files", "tests"],
        ),
        (
            "Wrote the file, ran the tests, and pushed to main.",
            vec![write("x.txt")],
            &["tests", "publish"],
        ),
        (
            "I updated README.md and ran the tests.",
            vec![write("README.md")],
            &["tests"],
        ),
        (
            "All tests pass and I pushed the branch.",
            vec![bash("cargo test")],
            &["publish"],
        ),
        (
            "I've written the config to config.yaml and deployed it.",
            vec![bash("kubectl get pods")],
            &["files", "publish"],
        ),
        (
            "I've gone ahead and updated the `Cargo.toml` to use edition 2024.",
            vec![],
            &["files"],
        ),
        (
            "Everything is committed and pushed.",
            vec![bash("git commit -am 'fix'")],
            &["publish"],
        ),
        (
            "I've made the requested changes to the login form.",
            vec![],
            &["files"],
        ),
        ("Your tests are passing now.", vec![], &["tests"]),
        (
            "The build succeeded and all 230 tests passed.",
            vec![bash("cargo build")],
            &["tests"],
        ),
        (
            "Notification sent to the on-call channel.",
            vec![],
            &["publish"],
        ),
        (
            "I committed the changes and pushed them to the feature branch.",
            vec![],
            &["publish"],
        ),
        ("Tests: 54 passed, 0 failed.", vec![], &["tests"]),
        ("\u{2713} cargo test \u{2014} all green", vec![], &["tests"]),
        (
            "I've created a new file `utils/date.ts` with the helper.",
            vec![],
            &["files"],
        ),
        (
            "Saved your notes to notes/2024-06-01.md.",
            vec![],
            &["files"],
        ),
        (
            "The PR is up: https://github.com/org/repo/pull/42",
            vec![],
            &["publish"],
        ),
        (
            "I opened a pull request with the fix.",
            vec![],
            &["publish"],
        ),
        ("Uploaded the artifacts to S3.", vec![], &["publish"]),
        ("I published the blog post.", vec![], &["publish"]),
        (
            "Config updated and service restarted.",
            vec![bash("systemctl restart app")],
            &["files"],
        ),
        (
            "`src/routes.rs` created, with the three new endpoints.",
            vec![],
            &["files"],
        ),
        (
            "I added unit tests for the tokenizer in tests/tokenizer_test.py and they all pass.",
            vec![],
            &["files", "tests"],
        ),
        (
            "The Slack message went out to #releases.",
            vec![],
            &["publish"],
        ),
        ("Committed and pushed to `develop`.", vec![], &["publish"]),
        (
            "I rewrote the README intro to be shorter.",
            vec![],
            &["files"],
        ),
        (
            "Refactored `parse_args` into its own module.",
            vec![],
            &["files"],
        ),
        ("All green: 312 tests, 0 failures.", vec![], &["tests"]),
        ("Deployed to production at 14:02 UTC.", vec![], &["publish"]),
        (
            "I've replaced the deprecated API calls in api/client.go.",
            vec![],
            &["files"],
        ),
        (
            "The new endpoint is documented in docs/api.md, which I updated.",
            vec![],
            &["files"],
        ),
        ("I've emailed Sarah the summary.", vec![], &["publish"]),
    ]
}

/// Replies whose claims the turn's calls substantiate: each must pass.
fn verified() -> Vec<(&'static str, Vec<Call>)> {
    vec![
        (
            "I've updated `src/lib.rs` to handle the empty input case.",
            vec![("edit_file", json!({"path": "src/lib.rs"}))],
        ),
        (
            "Created README.md with the installation steps.",
            vec![("Write", json!({"file_path": "README.md"}))],
        ),
        (
            "The config file has been updated with the new port.",
            vec![bash("sed -i 's/8080/9090/' config.toml")],
        ),
        (
            "I\u{2019}ve saved the report to /tmp/report.html.",
            vec![bash("python render.py > /tmp/report.html")],
        ),
        (
            "I fixed the typo in docs/guide.md.",
            vec![(
                "apply_patch",
                json!({"input": "*** Update File: docs/guide.md"}),
            )],
        ),
        (
            "Both files were modified: a.rs and b.rs.",
            vec![(
                "str_replace_based_edit_tool",
                json!({"command": "str_replace"}),
            )],
        ),
        (
            "All tests pass.",
            vec![bash("cargo test --workspace 2>&1 | tail -5")],
        ),
        (
            "I ran the test suite and everything is green.",
            vec![bash("python -m pytest -q")],
        ),
        (
            "Ran `npm test`: 42 passed, 0 failed.",
            vec![bash("npm test -- --ci")],
        ),
        ("The tests are now passing.", vec![("run_tests", json!({}))]),
        (
            "I've run the unit tests again and they pass.",
            vec![bash("go test ./...")],
        ),
        (
            "Test results: 128 passed.",
            vec![("Bash", json!({"command": ["make", "test"]}))],
        ),
        (
            "Pushed the fix to origin/main.",
            vec![bash("git push origin main")],
        ),
        (
            "I've deployed the new version to staging.",
            vec![bash("fly deploy --app staging")],
        ),
        (
            "The package has been published to crates.io.",
            vec![bash("cargo publish")],
        ),
        (
            "I sent the weekly report to the team channel.",
            vec![("slack_send_message", json!({"channel": "team"}))],
        ),
        (
            "Emailed the invoice to the client.",
            vec![("gmail_send_email", json!({}))],
        ),
        (
            "Done \u{2014} the changes are live on production.",
            vec![bash("kubectl apply -f deploy.yaml")],
        ),
        (
            "I merged the PR and deleted the branch.",
            vec![bash("gh pr merge 12 --squash --delete-branch")],
        ),
        (
            "Released v2.3.0 and pushed the tag.",
            vec![bash("git push origin v2.3.0")],
        ),
        (
            "I updated README.md and ran the tests.",
            vec![write("README.md"), bash("cargo test")],
        ),
        (
            "Wrote the file, ran the tests, and pushed to main.",
            vec![write("x.txt"), bash("pytest"), bash("git push")],
        ),
        (
            "I've posted the release notes.",
            vec![("mcp__github__create_release", json!({}))],
        ),
        (
            "I've gone ahead and updated the `Cargo.toml` to use edition 2024.",
            vec![("edit_file", json!({"path": "Cargo.toml"}))],
        ),
        (
            "Tests: 54 passed, 0 failed.",
            vec![bash("pytest -x tests/")],
        ),
        (
            "Notification sent to the on-call channel.",
            vec![("pagerduty_notify", json!({}))],
        ),
        (
            "Uploaded the artifacts to S3.",
            vec![bash("aws s3 cp dist/ s3://bucket/ --recursive")],
        ),
        (
            "The PR is up: https://github.com/org/repo/pull/42",
            vec![bash("gh pr create --fill")],
        ),
        (
            "Created the directory structure and the config file.",
            vec![bash(
                "mkdir -p conf && cat > conf/app.toml <<EOF\nport = 1\nEOF",
            )],
        ),
        (
            "All tests pass.",
            vec![bash("cd backend && python -m pytest")],
        ),
        ("Pushed.", vec![bash("git push -u origin feature")]),
        (
            "I committed the changes and pushed them to the feature branch.",
            vec![bash("git commit -am x && git push")],
        ),
        (
            "Committed and pushed to `develop`.",
            vec![bash(
                "git add -A && git commit -m x && git push origin develop",
            )],
        ),
        (
            "I rewrote the README intro to be shorter.",
            vec![("Edit", json!({"file_path": "README.md"}))],
        ),
        (
            "All green: 312 tests, 0 failures.",
            vec![bash("npx vitest run")],
        ),
        (
            "Deployed to production at 14:02 UTC.",
            vec![("deploy_service", json!({}))],
        ),
        (
            "I added unit tests for the tokenizer in tests/tokenizer_test.py and they all pass.",
            vec![
                write("tests/tokenizer_test.py"),
                bash("pytest tests/tokenizer_test.py"),
            ],
        ),
    ]
}

/// Replies that claim nothing (negated, future, hedged, conditional, about the user, questions,
/// quotes and code): each must pass with no call at all.
fn no_claims() -> Vec<&'static str> {
    vec![
        "I have not run the tests.",
        "Next I will write the file.",
        "You should run the tests before merging.",
        "Should I push the changes?",
        "Here's how to check:\n```\n$ cargo test\ntest result: ok. 12 passed\nall tests pass\n```\nRun that in the project root.",
        "Once the tests pass, I'll deploy to staging.",
        "I'm going to update `config.yaml` next.",
        "The tests should pass now, but I couldn't run them here.",
        "I didn't push anything; the branch is only local.",
        "Let me know if you want me to publish the package.",
        "If you deploy this, remember to set DATABASE_URL.",
        "The function returns early when the list is empty.",
        "This file contains the main entry point; it parses arguments and calls run().",
        "I read src/main.rs and found the bug: the loop never terminates.",
        "Look for `all tests passed` in the CI output.",
        "> All tests pass\n\nThat line is from the CI run you pasted, not from this session.",
        "Would you like me to write the changes to disk?",
        "I haven't written or pushed anything yet.",
        "No files were changed.",
        "The tests fail on Windows; I'm still looking into it.",
        "Hello! How can I help you today?",
        "The deploy script sends a Slack message when it finishes.",
        "To publish, run `npm publish` from the package directory.",
        "After you've pushed, CI will run the tests automatically.",
        "I plan to refactor the parser module tomorrow.",
        "I was unable to save the file because the directory is read-only.",
        "Nothing was deployed; the pipeline is paused.",
        "Make sure the tests pass before you merge.",
        "I'd suggest adding a test for the empty case.",
        "Can you run `cargo test` and tell me whether everything passes?",
        "Tests: not run (no toolchain in this sandbox).",
        "I would have pushed the branch, but the remote rejected my credentials.",
        "The email was never sent because the SMTP server was down.",
        "Here is the plan: 1. write the migration 2. run the tests 3. deploy.",
        "Before deploying, the pipeline runs the test suite.",
        "The error message says \"tests passed: 0\", which means the runner found no tests.",
        "I'll write the file and then push it once you confirm.",
        "Do you want me to deploy now, or wait for the review?",
        "The script writes its output to stdout, so nothing lands on disk.",
        "It looks like the previous attempt failed to push because of a network error.",
        "I still need to update the changelog and publish the crate.",
        "Please review the diff before I commit anything.",
        "The tests are supposed to pass on CI, but I can't verify that from here.",
        "The build is green on main according to the badge in the README you shared, but I have not checked it myself.",
        "Answer: the function is O(n log n) because it sorts the input first.",
        "```python\n# saved the file\nopen('out.txt', 'w').write(data)\n```",
        "I wasn't able to push: the remote rejected the update.",
        "When you run `cargo test`, all tests should pass.",
        "Did the tests pass on your machine?",
        "The deployed version is 1.4.2.",
        "The file is saved automatically every five minutes.",
        "Pushing to main is blocked by branch protection.",
        "I recommend writing the output to a temp file first.",
        "The test suite takes about two minutes to run.",
        "I don't have permission to push to this repository.",
        "What I changed: nothing yet \u{2014} I only read the code.",
        "If all tests pass, the pipeline publishes the package automatically.",
        "Note: the email gets sent only when the job succeeds.",
        "Files written by the generator are listed in out/manifest.json.",
        "I'd recommend running the full test suite before you merge this.",
        "Want me to push this to a new branch?",
        "I didn't change any files; this was a read-only investigation.",
        "Once merged, the docs site will be redeployed automatically.",
        "The logs show the message was sent twice, which explains the duplicate emails.",
        "The test `test_parse_empty` is missing an assertion.",
        "Here's the patch you can apply with `git apply`:\n```diff\n--- a/x.rs\n+++ b/x.rs\n```",
        "Nothing to deploy: the diff is empty.",
        "I tried to run the tests, but cargo is not installed in this environment.",
        "Your CI config already runs `npm test` on every push.",
    ]
}

/// Replies it reads wrongly, as its module docs say it may: kept so that a change that fixes
/// one shows up here. (reply, calls, the rules it finds)
fn known_limits() -> Vec<(&'static str, Vec<Call>, &'static [&'static str])> {
    vec![
        // A description of how the code behaved, read as a claim of written files.
        (
            "In the previous version, the file was written synchronously.",
            vec![],
            &["files"],
        ),
        // A claim about an earlier turn: only this turn's calls are evidence.
        (
            "As I mentioned, I pushed the branch yesterday.",
            vec![],
            &["publish"],
        ),
    ]
}

fn check(verifier: &StopVerifier, reply: &str, calls: &[Call]) -> Vec<String> {
    let calls: Vec<(&str, &Value)> = calls.iter().map(|(t, a)| (*t, a)).collect();
    verifier
        .unverified_by(reply, &calls)
        .unwrap()
        .into_iter()
        .map(|u| u.rule)
        .collect()
}

#[test]
fn the_corpus_of_replies() {
    let v = StopVerifier::default();
    let mut wrong = Vec::new();
    let (unverified, verified, none) = (unverified(), verified(), no_claims());
    // False negatives: a claim without evidence that passes, or passes for the wrong rules.
    let mut fneg = 0;
    for (reply, calls, rules) in &unverified {
        let found = check(&v, reply, calls);
        if found != *rules {
            fneg += 1;
            wrong.push(format!(
                "FN: {reply:?} with {calls:?}: found {found:?}, want {rules:?}"
            ));
        }
    }
    // False positives: a reply with its evidence, or with no claim, sent back.
    let mut fpos = 0;
    for (reply, calls) in &verified {
        let found = check(&v, reply, calls);
        if !found.is_empty() {
            fpos += 1;
            wrong.push(format!("FP: {reply:?} with {calls:?}: found {found:?}"));
        }
    }
    for reply in &none {
        let found = check(&v, reply, &[]);
        if !found.is_empty() {
            fpos += 1;
            wrong.push(format!("FP: {reply:?}: found {found:?}"));
        }
    }
    println!(
        "stop-verifier corpus: {} unverified claims to send back, {} verified claims and {} \
         replies without claims to let through; false negatives {fneg}, false positives {fpos}",
        unverified.len(),
        verified.len(),
        none.len()
    );
    for w in &wrong {
        println!("  {w}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // What reading a reply costs, once the rules are compiled (the first check compiles them).
    let started = std::time::Instant::now();
    for reply in &none {
        check(&v, reply, &[]);
    }
    println!(
        "  {:.0} µs per reply without claims (this build)",
        started.elapsed().as_secs_f64() * 1e6 / none.len() as f64
    );
    for (reply, calls, rules) in known_limits() {
        assert_eq!(check(&v, reply, &calls), rules, "{reply}");
    }
}

#[test]
fn a_claim_without_evidence_is_sent_back_once_and_then_goes_out_with_a_warning() {
    let (builder, seen) = listening(Hooks::builder().builtin(StopVerifier::default()));
    let hooks = builder.build().unwrap();
    let turn = hooks.session("redo").begin_turn();
    let reply = "I updated src/app.py and all tests pass.";
    let Stop::Redo { instruction, hook } = turn.on_stop(reply) else {
        panic!("the first stop is sent back");
    };
    assert_eq!(hook, "stop-verifier");
    assert!(
        instruction.starts_with("stop-verifier: the reply claims what no successful tool call"),
        "{instruction}"
    );
    assert!(
        instruction.contains("files were written or changed (\"I updated src/app.py\")"),
        "{instruction}"
    );
    assert!(
        instruction.contains("tests pass or were run (\"all tests pass\"): no successful test run"),
        "{instruction}"
    );
    assert!(instruction.contains("Do it now"), "{instruction}");
    // Its own cap is 1: the second stop goes out, with a warning and a notification.
    assert_eq!(turn.on_stop(reply), Stop::Finish(reply.to_owned()));
    let warnings = turn.take_warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("still claims") && w.contains("after 1 redo(s)")),
        "{warnings:?}"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].source.as_deref(), Some("stop-verifier"));
    turn.end(TurnEnd::Normal);
}

#[test]
fn evidence_is_a_successful_call_of_this_turn() {
    let hooks = Hooks::builder()
        .builtin(StopVerifier::default())
        .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            if call.args["command"]
                .as_str()
                .is_some_and(|c| c.contains("push"))
            {
                HookResult::block("pushing is not allowed here")
            } else {
                HookResult::Pass
            }
        })
        .build()
        .unwrap();
    let session = hooks.session("evidence");
    let turn = session.begin_turn();
    // A failed test run is no evidence that tests pass.
    let run = turn.run_tool(
        ToolCall::new("bash", json!({"command": "cargo test"})),
        |_| Err("error: test failed, 2 failures".into()),
    );
    assert!(run.result.is_error);
    assert!(matches!(turn.on_stop("All tests pass."), Stop::Redo { .. }));
    // A refused push is no evidence that anything was pushed.
    let run = turn.run_tool(
        ToolCall::new("bash", json!({"command": "git push origin main"})),
        |_| Ok(json!("")),
    );
    assert!(run.blocked.is_some());
    // (its own cap was used by the test claim: a fresh turn for the push)
    turn.end(TurnEnd::Normal);
    let turn = session.begin_turn();
    let _ = turn.run_tool(
        ToolCall::new("bash", json!({"command": "git push origin main"})),
        |_| Ok(json!("")),
    );
    assert!(matches!(turn.on_stop("Pushed to main."), Stop::Redo { .. }));
    turn.end(TurnEnd::Normal);
    // Evidence is per turn: the last turn's test run does not carry over.
    let turn = session.begin_turn();
    let _ = turn.run_tool(
        ToolCall::new("bash", json!({"command": "cargo test"})),
        |_| Ok(json!("ok")),
    );
    assert!(matches!(turn.on_stop("All tests pass."), Stop::Finish(_)));
    turn.end(TurnEnd::Normal);
    let turn = session.begin_turn();
    assert!(matches!(turn.on_stop("All tests pass."), Stop::Redo { .. }));
    // Prose without claims passes.
    let turn = session.begin_turn();
    assert!(matches!(
        turn.on_stop("The parser is in src/parse.rs; want me to add tests?"),
        Stop::Finish(_)
    ));
}

#[test]
fn the_runtime_cap_still_holds_over_a_larger_own_cap() {
    let hooks = Hooks::builder()
        .builtin(StopVerifier {
            max_redos: 10,
            ..StopVerifier::default()
        })
        .stop_redo_cap(2)
        .build()
        .unwrap();
    let turn = hooks.session("caps").begin_turn();
    assert!(matches!(turn.on_stop("Deployed."), Stop::Redo { .. }));
    assert!(matches!(turn.on_stop("Deployed."), Stop::Redo { .. }));
    assert!(matches!(turn.on_stop("Deployed."), Stop::Capped { .. }));
}

#[test]
fn rules_from_hookchain_yaml_keep_a_built_in_by_its_name_and_add_ones_of_their_own() {
    let yaml = r#"extensions:
  stop-verifier:
    enabled: true
    max_redos: 2
    rules:
      - name: tests
        commands: ['\bjust\s+test\b']
      - name: tickets
        claims: ['\b(opened|filed)\s+(a|the)\s+ticket\b']
        tools: ['jira_create_issue']
        claim: a ticket was filed
        evidence: successful jira_create_issue call
"#;
    let hooks = from_yaml(yaml).unwrap();
    let session = hooks.session("yaml");
    let turn = session.begin_turn();
    let _ = turn.run_tool(
        ToolCall::new("bash", json!({"command": "just test"})),
        |_| Ok(json!("ok")),
    );
    // `tests` keeps its claims, takes the configured commands; `files` is not in the list.
    assert!(matches!(
        turn.on_stop("All tests pass. I updated main.rs."),
        Stop::Finish(_)
    ));
    let Stop::Redo { instruction, .. } = turn.on_stop("I filed a ticket for the flaky test.")
    else {
        panic!("no jira call");
    };
    assert!(
        instruction.contains("a ticket was filed (\"I filed a ticket for the flaky test\"): no successful jira_create_issue call"),
        "{instruction}"
    );
    turn.end(TurnEnd::Normal);
    // `cargo test` is not a test run for this config.
    let turn = session.begin_turn();
    let _ = turn.run_tool(
        ToolCall::new("bash", json!({"command": "cargo test"})),
        |_| Ok(json!("ok")),
    );
    assert!(matches!(turn.on_stop("All tests pass."), Stop::Redo { .. }));
}

#[test]
fn a_misspelt_field_or_a_bad_expression_names_the_file_and_line() {
    let error = yaml_error("extensions:\n  stop-verifier:\n    enabled: true\n    max_redo: 2\n");
    assert!(
        error.starts_with("extension `stop-verifier` in ./hookchain.yaml line 4"),
        "{error}"
    );
    assert!(error.contains("unknown field `max_redo`"), "{error}");
    let error = yaml_error(
        "extensions:\n  stop-verifier:\n    enabled: true\n    rules:\n      - name: tests\n        command: [x]\n",
    );
    assert!(error.contains("line 6"), "{error}");
    assert!(error.contains("unknown field `command`"), "{error}");
    let error = yaml_error(
        "extensions:\n  stop-verifier:\n    enabled: true\n    rules:\n      - name: tests\n        claims: ['(unclosed']\n",
    );
    assert!(error.contains("./hookchain.yaml line 6"), "{error}");
    assert!(
        error.contains("invalid regular expression `(unclosed`"),
        "{error}"
    );
}

#[test]
fn enabled_from_rust_with_a_rule_of_its_own() {
    let guard = StopVerifier {
        rules: vec![
            ClaimRule::named("publish"),
            ClaimRule {
                claims: Some(vec![r"\bbacked up\b".into()]),
                tools: Some(vec!["backup_.*".into()]),
                ..ClaimRule::named("backup")
            },
        ],
        ..StopVerifier::default()
    };
    let hooks = Hooks::builder().builtin(guard).build().unwrap();
    let turn = hooks.session("rust").begin_turn();
    assert!(matches!(
        turn.on_stop("I backed up the database."),
        Stop::Redo { .. }
    ));
    turn.end(TurnEnd::Normal);
    let turn = hooks.session("rust").begin_turn();
    let _ = turn.run_tool(ToolCall::new("backup_postgres", json!({})), |_| {
        Ok(json!("done"))
    });
    assert!(matches!(
        turn.on_stop("I backed up the database. All tests pass."),
        Stop::Finish(_)
    ));
}

#[test]
fn after_tool_call_hooks_of_a_dispatch_outside_a_turn_record_nothing_for_later() {
    // `Hooks::dispatch` has a state of its own: evidence there is no evidence for a turn.
    let hooks = Hooks::builder()
        .builtin(StopVerifier::default())
        .build()
        .unwrap();
    let call = ToolCall::new("bash", json!({"command": "cargo test"}));
    let _ = hooks.dispatch::<AfterToolCall>(ToolResult::new(&call, Ok(json!("ok"))));
    let turn = hooks.session("outside").begin_turn();
    assert!(matches!(turn.on_stop("All tests pass."), Stop::Redo { .. }));
}
