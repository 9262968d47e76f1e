//! Real scripts, one per dialect, run through the `command` transport in a chain: each gives the
//! decision its own agent would give — a block with its reason for `rm -rf`, and otherwise the
//! rewrite, context and warnings its dialect expresses.

use std::collections::BTreeMap;
use std::time::Duration;

use hookchain_core::points::{
    InterceptToolCall, OnStop, OutboundMessage, SessionStart, TransformToolResult,
    TransformUserInput,
};
use hookchain_core::{
    Flow, Outbound, SessionSource, SessionStartEvent, StopEvent, ToolCall, ToolResult,
};
use hookchain_external::ExternalHooksExt;
use hookchain_external::{
    CommandSpec, ConfigOrigin, Dialect, ExternalHook, Matcher, OnError, Transport,
};
use hookchain_runtime::{Hooks, HooksBuilder, Outcome};
use serde_json::{Value, json};

use crate::support::{fixture_str, temp_dir};

/// A hook on `point` running the fixture `script_name`, configured as `event` in a file of
/// `dialect`, with `matcher` read by that dialect's rule.
fn dialect_hook(
    script_name: &str,
    point: &'static str,
    event: &str,
    dialect: Dialect,
    matcher: &str,
) -> ExternalHook {
    let mut hook = hook(script_name, event);
    hook.point = point;
    hook.dialect = dialect;
    hook.matcher = Matcher::parse(dialect, matcher).unwrap();
    hook
}

fn hooks_of(hooks: impl IntoIterator<Item = ExternalHook>) -> Hooks {
    hooks
        .into_iter()
        .fold(HooksBuilder::new(), |builder, hook| builder.external(hook))
        .build()
        .unwrap()
}

fn hook(script_name: &str, event: &str) -> ExternalHook {
    let path = fixture_str(script_name);
    ExternalHook {
        point: "intercept_tool_call",
        event: event.to_owned(),
        name: script_name.to_owned(),
        transport: Transport::Command(CommandSpec {
            argv: vec![path.clone()],
            display: path,
            env: BTreeMap::new(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        }),
        matcher: Matcher::parse(Dialect::Hookchain, "shell").unwrap(),
        timeout: Duration::from_secs(20),
        priority: 10,
        on_error: OnError::Block,
        dialect: Dialect::Hookchain,
        required: false,
        origin: ConfigOrigin::Code,
    }
}

fn fire(script_name: &str, event: &str, cmd: &str) -> Outcome<ToolCall> {
    let hooks = HooksBuilder::new()
        .external(hook(script_name, event))
        .build()
        .unwrap();
    let session = hooks.session(format!("dialect-{script_name}-{}", cmd.len()));
    let turn = session.begin_turn();
    turn.fire::<InterceptToolCall>(ToolCall::new("shell", json!({ "cmd": cmd })))
}

fn blocked(outcome: &Outcome<ToolCall>) -> (String, String) {
    match &outcome.flow {
        Flow::Blocked(b) => (b.reason.clone(), b.hook.clone()),
        Flow::Continue(call) => panic!("expected a block, got {call:?} ({:?})", outcome.failures),
    }
}

fn args(outcome: &Outcome<ToolCall>) -> Value {
    match &outcome.flow {
        Flow::Continue(call) => call.args.clone(),
        Flow::Blocked(b) => panic!("expected to go on, got {b}"),
    }
}

#[test]
fn claude_code_script_denies_and_rewrites_through_hook_specific_output() {
    let (reason, hook) = blocked(&fire("claude_code_guard.sh", "PreToolUse", "rm -rf /"));
    assert_eq!(reason, "rm -rf is not allowed here");
    assert_eq!(hook, "claude_code_guard.sh");
    let outcome = fire("claude_code_guard.sh", "PreToolUse", "ls");
    assert_eq!(
        args(&outcome),
        json!({"cmd": "set -e; ls"}),
        "updatedInput replaces the input"
    );
    assert_eq!(outcome.context, ["commands run with set -e"]);
    assert_eq!(outcome.warnings, ["shell command rewritten"]);
}

#[test]
fn hermes_script_blocks_and_modify_merges_into_the_input() {
    let (reason, _) = blocked(&fire("hermes_guard.sh", "pre_tool_call", "rm -rf /"));
    assert_eq!(reason, "Hermes policy: no rm -rf");
    let outcome = fire("hermes_guard.sh", "pre_tool_call", "ls");
    assert_eq!(
        args(&outcome),
        json!({"cmd": "ls", "timeout": 30}),
        "modify merges"
    );
    assert_eq!(outcome.context, ["shell calls time out after 30 s"]);
}

#[test]
fn docker_agent_script_denies_and_replaces_the_input() {
    let (reason, _) = blocked(&fire("docker_agent_guard.sh", "pre_tool_use", "rm -rf /"));
    assert_eq!(reason, "docker-agent policy: no rm -rf");
    let outcome = fire("docker_agent_guard.sh", "pre_tool_use", "ls");
    assert_eq!(args(&outcome), json!({"cmd": "ls -la"}));
    assert_eq!(outcome.context, ["listing in long form"]);
}

#[test]
fn starchild_script_blocks_and_replaces_tool_input_with_a_warning() {
    let (reason, _) = blocked(&fire("starchild_guard.sh", "tool_call", "rm -rf /"));
    assert_eq!(reason, "Starchild policy: no rm -rf");
    let outcome = fire("starchild_guard.sh", "tool_call", "ls");
    assert_eq!(args(&outcome), json!({"cmd": "ls -1"}));
    assert_eq!(outcome.context, ["one name per line"]);
    assert_eq!(outcome.warnings, ["the command was changed"]);
}

#[test]
fn a_tool_the_matcher_does_not_name_never_runs_the_script() {
    let hooks = HooksBuilder::new()
        .external(hook("claude_code_guard.sh", "PreToolUse"))
        .build()
        .unwrap();
    let session = hooks.session("dialect-matcher-miss");
    let turn = session.begin_turn();
    let outcome =
        turn.fire::<InterceptToolCall>(ToolCall::new("read_file", json!({"cmd": "rm -rf /"})));
    assert!(
        !outcome.is_blocked(),
        "read_file is not `shell`: the guard does not fire"
    );
    assert!(outcome.failures.is_empty());
}

/// Anthropic's hookify plugin denies only `if hook_event == 'PreToolUse'`: the payload must name
/// the event as Claude Code does, or its block rules become warnings and the command runs.
#[test]
fn hook_event_name_is_the_dialects_spelling_so_a_hookify_block_rule_blocks() {
    let hooks = hooks_of([dialect_hook(
        "dialects/hookify_rule.py",
        "intercept_tool_call",
        "PreToolUse",
        Dialect::ClaudeCode,
        "Bash",
    )]);
    let session = hooks.session("hookify-pre-tool-use");
    let turn = session.begin_turn();
    let outcome =
        turn.fire::<InterceptToolCall>(ToolCall::new("Bash", json!({"command": "rm -rf build/"})));
    let (reason, _) = blocked(&outcome);
    assert_eq!(reason, "hookify: rm -rf is blocked");
    assert_eq!(outcome.warnings, ["hookify: rm -rf is blocked"]);
}

/// A deny printed by a script that then exits 1 is read as its agent reads it: Hermes parses
/// stdout on any exit ("still parse stdout so exit-code failures can carry a block directive"),
/// so the guard blocks; Claude Code "only processes JSON on exit 0", so there the hook failed, and
/// its `on_error` applies (here `pass`, Claude Code's "non-blocking error"), the failure listed.
#[test]
fn a_json_deny_with_exit_code_1_is_read_as_its_agent_reads_it() {
    let mut hermes = dialect_hook(
        "dialects/hermes_deny_then_exit_1.sh",
        "intercept_tool_call",
        "pre_tool_call",
        Dialect::Hermes,
        "terminal",
    );
    hermes.on_error = OnError::Pass;
    let hooks = hooks_of([hermes]);
    let session = hooks.session("deny-exit-1-hermes");
    let turn = session.begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new(
        "terminal",
        json!({"command": "rm -rf build/"}),
    ));
    let (reason, _) = blocked(&outcome);
    assert_eq!(reason, "no rm -rf, even on exit 1");
    // The user still hears that the hook exited with an error.
    assert_eq!(outcome.warnings.len(), 1, "{:?}", outcome.warnings);
    assert!(
        outcome.warnings[0].contains("exited with code 1")
            && outcome.warnings[0].contains("guard: refusing"),
        "{:?}",
        outcome.warnings
    );

    let mut claude = dialect_hook(
        "dialects/deny_then_exit_1.sh",
        "intercept_tool_call",
        "PreToolUse",
        Dialect::ClaudeCode,
        "Bash",
    );
    claude.on_error = OnError::Pass;
    let hooks = hooks_of([claude]);
    let session = hooks.session("deny-exit-1-claude");
    let turn = session.begin_turn();
    let outcome =
        turn.fire::<InterceptToolCall>(ToolCall::new("Bash", json!({"command": "rm -rf build/"})));
    assert!(!outcome.is_blocked(), "{:?}", outcome.flow);
    assert_eq!(outcome.failures.len(), 1, "{:?}", outcome.failures);
    assert!(
        outcome.failures[0].error.contains("exited with code 1"),
        "{:?}",
        outcome.failures
    );
    // Exit 0 goes on, with no failure.
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("Bash", json!({"command": "ls"})));
    assert!(!outcome.is_blocked());
    assert!(
        outcome.failures.is_empty(),
        "exit 0: {:?}",
        outcome.failures
    );
}

/// Exit 2 with nothing on stderr and a JSON reason on stdout blocks with that reason, not with
/// "blocked by hook …".
#[test]
fn exit_2_with_a_json_reason_on_stdout_uses_it() {
    let hooks = hooks_of([dialect_hook(
        "dialects/exit_2_json_reason.sh",
        "intercept_tool_call",
        "pre_tool_call",
        Dialect::Hookchain,
        "",
    )]);
    let session = hooks.session("exit-2-json");
    let turn = session.begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("shell", json!({"cmd": "ls"})));
    assert_eq!(blocked(&outcome).0, "the reason is in the JSON");
}

/// Starchild's matchers are regexes on the payload's content: a guard copied from its docs
/// (`matcher: "rm -rf|dd if=|mkfs"` on `pre_tool_call`) fires for the destructive command and
/// spawns nothing for any other. Read as a tool-name regex, it never fired.
#[test]
fn a_starchild_content_matcher_gates_the_guard_on_the_command() {
    let dir = temp_dir();
    let log = dir.path().join("spawns.log");
    let mut guard = dialect_hook(
        "dialects/starchild_destructive_guard.sh",
        "intercept_tool_call",
        "pre_tool_call",
        Dialect::Starchild,
        "rm -rf|dd if=|mkfs",
    );
    if let Transport::Command(spec) = &mut guard.transport {
        spec.env
            .insert("SPAWN_LOG".into(), log.display().to_string());
    }
    let hooks = hooks_of([guard]);
    let session = hooks.session("starchild-content-matcher");
    let turn = session.begin_turn();

    let outcome =
        turn.fire::<InterceptToolCall>(ToolCall::new("bash", json!({"command": "ls -la"})));
    assert!(!outcome.is_blocked());
    assert!(!log.exists(), "no match in the content: nothing is spawned");

    let outcome =
        turn.fire::<InterceptToolCall>(ToolCall::new("bash", json!({"command": "rm -rf /srv"})));
    assert_eq!(
        blocked(&outcome).0,
        "refusing destructive command: rm -rf /srv"
    );
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "spawned\n");
}

/// Starchild's `{"notification": …}` rewrites an outbound message: a masking hook's rewrite was
/// ignored, and the secret left for the chat.
#[test]
fn a_starchild_notification_rewrite_masks_the_outbound_message() {
    let hooks = hooks_of([dialect_hook(
        "dialects/starchild_redact_outbound.py",
        "outbound_message",
        "on_outbound_message",
        Dialect::Starchild,
        "",
    )]);
    let session = hooks.session("starchild-outbound");
    let turn = session.begin_turn();
    let outcome = turn.fire::<OutboundMessage>(Outbound {
        platform: "telegram".into(),
        recipient: "@ops".into(),
        text: "the key is sk-abcdef1234567890".into(),
    });
    match outcome.flow {
        Flow::Continue(out) => assert_eq!(out.text, "the key is sk-***"),
        Flow::Blocked(b) => panic!("{b}"),
    }
}

/// Starchild's `{"tool_input": …}` rewrites the keys the input has and keeps the others; it
/// replaced the whole input, dropping keys the hook did not name.
#[test]
fn a_starchild_tool_input_rewrites_existing_keys_only() {
    let hooks = hooks_of([dialect_hook(
        "dialects/starchild_rewrite_keys.sh",
        "intercept_tool_call",
        "pre_tool_call",
        Dialect::Starchild,
        "",
    )]);
    let session = hooks.session("starchild-rewrite-keys");
    let turn = session.begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new(
        "bash",
        json!({"command": "ls", "cwd": "/srv", "timeout": 30}),
    ));
    assert_eq!(
        args(&outcome),
        json!({"command": "ls -1", "cwd": "/srv", "timeout": 30})
    );
}

/// A Stop hook that reads the transcript (a completion-promise loop): with no `transcript_path`
/// it did nothing and the agent stopped. hookchain keeps a private JSONL transcript in Claude
/// Code's format, removed when the session ends.
#[test]
fn a_stop_hook_reads_the_transcript_hookchain_keeps() {
    let hooks = hooks_of([dialect_hook(
        "dialects/stop_reads_transcript.sh",
        "on_stop",
        "Stop",
        Dialect::ClaudeCode,
        "",
    )]);
    let session = hooks.session("stop-transcript");
    let turn = session.begin_turn();
    let stop = |response: &str| {
        turn.fire::<OnStop>(StopEvent {
            response: response.into(),
            stop_hook_active: false,
            redos: 0,
        })
    };
    let outcome = stop("I wrote half of it.");
    match &outcome.flow {
        Flow::Blocked(b) => assert_eq!(
            b.reason,
            "Not done yet: keep working until <promise>DONE</promise>"
        ),
        Flow::Continue(_) => panic!("the hook read no transcript: {:?}", outcome.failures),
    }
    let outcome = stop("All tests pass. <promise>DONE</promise>");
    assert!(!outcome.is_blocked(), "{:?}", outcome.flow);

    // The transcript is private, and gone with the session.
    let dir = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("hookchain-transcript-{}-", std::process::id()))
        })
        // Other tests' sessions keep their own transcripts meanwhile.
        .filter(|p| {
            std::fs::read_to_string(p.join("transcript.jsonl"))
                .is_ok_and(|t| t.contains("\"session_id\":\"stop-transcript\""))
        })
        .collect::<Vec<_>>();
    assert_eq!(dir.len(), 1, "{dir:?}");
    let file = dir[0].join("transcript.jsonl");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir[0]), 0o700);
        assert_eq!(mode(&file), 0o600);
    }
    let lines = std::fs::read_to_string(&file).unwrap();
    assert_eq!(lines.lines().count(), 2, "{lines}");
    drop(turn);
    session.end("exit");
    assert!(
        !dir[0].exists(),
        "the transcript is removed when the session ends"
    );
}

/// The agent's own transcript reaches the payload, in place of the one hookchain keeps.
#[test]
fn the_agents_transcript_path_is_sent() {
    let dir = temp_dir();
    let file = dir.path().join("agent.jsonl");
    std::fs::write(
        &file,
        "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"still working\"}]}}\n",
    )
    .unwrap();
    let hooks = hooks_of([dialect_hook(
        "dialects/stop_reads_transcript.sh",
        "on_stop",
        "Stop",
        Dialect::ClaudeCode,
        "",
    )]);
    let session = hooks.session("agent-transcript");
    hookchain_external::transcript::set_transcript_path(&session.state(), &file);
    let turn = session.begin_turn();
    // The reply claims DONE, but the agent's transcript, which the hook reads, does not.
    let outcome = turn.fire::<OnStop>(StopEvent {
        response: "<promise>DONE</promise>".into(),
        stop_hook_active: false,
        redos: 0,
    });
    assert!(outcome.is_blocked(), "the hook read the agent's transcript");
}

fn write_result(content: &str) -> ToolResult {
    let call = ToolCall::new(
        "Write",
        json!({"file_path": "src/app.js", "content": content}),
    )
    .with_id("toolu_1");
    ToolResult::new(
        &call,
        Ok(json!({"success": true, "filePath": "src/app.js"})),
    )
}

/// A PostToolUse lint-feedback hook answers `decision: block` after a good write: Claude Code
/// keeps the tool's output and gives the reason to the model beside it. hookchain replaced the
/// output with an error, and the write looked failed.
#[test]
fn a_post_tool_use_block_keeps_the_output_and_adds_the_reason() {
    let hooks = hooks_of([dialect_hook(
        "dialects/lint_feedback.sh",
        "transform_tool_result",
        "PostToolUse",
        Dialect::ClaudeCode,
        "Write|Edit",
    )]);
    let session = hooks.session("lint-feedback");
    let turn = session.begin_turn();
    let outcome = turn.fire::<TransformToolResult>(write_result("console.log(1);\n"));
    match &outcome.flow {
        Flow::Continue(result) => {
            assert_eq!(
                result.tool_response,
                json!({"success": true, "filePath": "src/app.js"}),
                "the write's output is kept"
            );
            assert!(!result.is_error);
        }
        Flow::Blocked(b) => panic!("the good write was turned into an error: {b}"),
    }
    assert_eq!(
        outcome.context,
        ["lint: remove the console.log call (no-console)"]
    );
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    // A clean write: nothing is added.
    let outcome = turn.fire::<TransformToolResult>(write_result("let x = 1;\n"));
    assert!(!outcome.is_blocked());
    assert!(outcome.context.is_empty(), "{:?}", outcome.context);
}

/// A `SessionStart` hook with `matcher: compact` (re-inject the rules after a compaction) fires
/// only when the session starts again after a compaction: hookchain ignored the matcher, and the
/// hook fired at every start-up.
#[test]
fn a_session_start_matcher_compact_fires_only_after_compaction() {
    let dir = temp_dir();
    let log = dir.path().join("spawns.log");
    let mut hook = dialect_hook(
        "dialects/reinject_after_compact.sh",
        "session_start",
        "SessionStart",
        Dialect::ClaudeCode,
        "compact",
    );
    if let Transport::Command(spec) = &mut hook.transport {
        spec.env
            .insert("SPAWN_LOG".into(), log.display().to_string());
    }
    let hooks = hooks_of([hook]);
    let session = hooks.session("compact-matcher");
    assert!(session.context().is_empty(), "{:?}", session.context());
    assert!(
        !log.exists(),
        "start-up is not `compact`: nothing is spawned"
    );

    let outcome = session.fire::<SessionStart>(SessionStartEvent {
        session_id: "compact-matcher".into(),
        parent_session_id: None,
        source: SessionSource::Compact,
        context: Vec::new(),
    });
    match &outcome.flow {
        Flow::Continue(event) => {
            assert_eq!(event.context, ["Reminder: the project indents with tabs."]);
        }
        Flow::Blocked(b) => panic!("{b}"),
    }
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "spawned\n");
    session.end("exit");
}

/// Plain stdout is model context only where the hook's agent uses it: a Claude Code PreToolUse
/// hook's printed line is logged, not given to the model; on UserPromptSubmit it is context. In
/// hookchain's own protocol plain stdout is context on every point that takes context.
#[test]
fn plain_stdout_on_pre_tool_use_does_not_reach_the_model() {
    let pre_tool = dialect_hook(
        "dialects/plain_stdout_note.sh",
        "intercept_tool_call",
        "PreToolUse",
        Dialect::ClaudeCode,
        "Bash",
    );
    let prompt = dialect_hook(
        "dialects/plain_stdout_note.sh",
        "transform_user_input",
        "UserPromptSubmit",
        Dialect::ClaudeCode,
        "",
    );
    let hooks = hooks_of([pre_tool, prompt]);
    let session = hooks.session("plain-stdout");
    let turn = session.begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("Bash", json!({"command": "ls"})));
    assert!(!outcome.is_blocked());
    assert!(outcome.context.is_empty(), "{:?}", outcome.context);
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    let outcome = turn.fire::<TransformUserInput>("hello".to_owned());
    assert_eq!(outcome.context, ["checked by plain_stdout_note"]);

    // The same script in hookchain's own protocol.
    let native = dialect_hook(
        "dialects/plain_stdout_note.sh",
        "intercept_tool_call",
        "intercept_tool_call",
        Dialect::Hookchain,
        "Bash",
    );
    let hooks = hooks_of([native]);
    let session = hooks.session("plain-stdout-native");
    let turn = session.begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("Bash", json!({"command": "ls"})));
    assert_eq!(outcome.context, ["checked by plain_stdout_note"]);
}

/// A Stop hook's `hookSpecificOutput.additionalContext` keeps the agent going (current Claude
/// Code), the context its next instruction; on the redo (`stop_hook_active`) the hook lets it
/// stop. hookchain added the context and let the agent stop.
#[test]
fn a_stop_hooks_additional_context_makes_the_agent_redo() {
    let hooks = hooks_of([dialect_hook(
        "dialects/stop_additional_context.sh",
        "on_stop",
        "Stop",
        Dialect::ClaudeCode,
        "",
    )]);
    let session = hooks.session("stop-additional-context");
    let turn = session.begin_turn();
    let outcome = turn.fire::<OnStop>(StopEvent {
        response: "Done.".into(),
        stop_hook_active: false,
        redos: 0,
    });
    match &outcome.flow {
        Flow::Blocked(b) => assert_eq!(b.reason, "Run the test suite before you finish."),
        Flow::Continue(_) => panic!(
            "the agent stopped: {:?} {:?}",
            outcome.context, outcome.failures
        ),
    }
    let outcome = turn.fire::<OnStop>(StopEvent {
        response: "Tests pass. Done.".into(),
        stop_hook_active: true,
        redos: 1,
    });
    assert!(!outcome.is_blocked(), "{:?}", outcome.flow);
}
