//! The wire protocol of external hooks, through the chain, with a fake transport: every dialect
//! gives the decision its own agent would give, every contradiction resolves as its source
//! documents, failures follow the hook's policy, matchers gate the firing, and external hooks
//! share one chain with Rust hooks.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hookchain_core::points::{
    AfterLlmCall, AfterToolCall, BeforeCompaction, BeforeLlmCall, InterceptToolCall,
    TransformResponse, TransformToolResult, TransformUserInput,
};
use hookchain_core::{
    Compaction, Flow, HookContext, HookResult, Level, LlmCall, LlmReply, Message, Notification,
    PermissionAsk, ToolCall, ToolResult, TurnEnd,
};
use hookchain_external::ExternalHooksExt;
use hookchain_external::{
    CommandSpec, ConfigOrigin, Dialect, ExternalHook, Invoke, MAX_TIMEOUT, Matcher, OnError,
    RawOutput, Transport, TransportError,
};
use hookchain_runtime::{HookOptions, HookSource, Hooks, HooksBuilder, Outcome, Stop, Turn};
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::support;

/// How a [`Fake`] answers a payload.
type Answer = Box<dyn Fn(&Value) -> Result<RawOutput, TransportError> + Send + Sync>;

/// A transport that answers every firing with a canned output (or one computed from the
/// payload), and remembers what it was sent.
struct Fake {
    answer: Answer,
    calls: AtomicUsize,
    payloads: Mutex<Vec<Value>>,
    timeouts: Mutex<Vec<Duration>>,
}

impl Fake {
    fn with(
        answer: impl Fn(&Value) -> Result<RawOutput, TransportError> + Send + Sync + 'static,
    ) -> Arc<Fake> {
        Arc::new(Fake {
            answer: Box::new(answer),
            calls: AtomicUsize::new(0),
            payloads: Mutex::new(Vec::new()),
            timeouts: Mutex::new(Vec::new()),
        })
    }

    /// Exit 0 with `stdout`.
    fn stdout(stdout: impl Into<String>) -> Arc<Fake> {
        let stdout = stdout.into();
        Fake::with(move |_| Ok(exit(0, &stdout, "")))
    }

    /// Exit 0 with `value` as JSON on stdout.
    fn json(value: Value) -> Arc<Fake> {
        Fake::stdout(value.to_string())
    }

    fn raw(raw: RawOutput) -> Arc<Fake> {
        Fake::with(move |_| Ok(raw.clone()))
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn last_payload(&self) -> Value {
        self.payloads
            .lock()
            .last()
            .cloned()
            .expect("the hook was fired")
    }
}

impl Invoke for Fake {
    fn invoke(&self, payload: &[u8], timeout: Duration) -> Result<RawOutput, TransportError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let payload: Value = serde_json::from_slice(payload).expect("the payload is JSON");
        self.timeouts.lock().push(timeout);
        let answer = (self.answer)(&payload);
        self.payloads.lock().push(payload);
        answer
    }
}

fn exit(code: i32, stdout: &str, stderr: &str) -> RawOutput {
    RawOutput {
        exit_code: Some(code),
        stdout: stdout.as_bytes().to_vec(),
        stderr: stderr.as_bytes().to_vec(),
    }
}

/// An external hook on `point` (canonical name), configured as `event`.
fn hook(point: &'static str, event: &str) -> ExternalHook {
    ExternalHook {
        point,
        event: event.to_owned(),
        name: "guard".to_owned(),
        transport: Transport::Command(CommandSpec {
            argv: vec!["./guard.sh".to_owned()],
            display: "./guard.sh".to_owned(),
            env: BTreeMap::new(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        }),
        matcher: Matcher::all(),
        timeout: Duration::from_secs(5),
        priority: 10,
        on_error: OnError::Pass,
        dialect: Dialect::Hookchain,
        required: false,
        origin: ConfigOrigin::file("hooks/hookchain.yaml", Some(12)),
    }
}

fn registry(hook: ExternalHook, fake: &Arc<Fake>) -> Hooks {
    HooksBuilder::new()
        .external_with(hook, fake.clone())
        .build()
        .unwrap()
}

/// A turn of a fresh session of `hooks`; the session lives as long as the turn needs it.
fn turn(hooks: &Hooks, id: &str) -> Turn {
    hooks.session(id).begin_turn()
}

fn rm_call() -> ToolCall {
    ToolCall::new("Bash", json!({"command": "rm -rf /", "cwd": "/"})).with_id("toolu_1")
}

/// Fires `intercept_tool_call` with `rm_call()` through a `PreToolUse` hook answering with
/// `fake`, under `on_error`.
fn pre_tool_use(fake: &Arc<Fake>, on_error: OnError) -> Outcome<ToolCall> {
    let hooks = registry(
        ExternalHook {
            on_error,
            ..hook("intercept_tool_call", "PreToolUse")
        },
        fake,
    );
    let turn = turn(&hooks, "pre-tool-use");
    turn.fire::<InterceptToolCall>(rm_call())
}

/// The same, for an answer given as JSON.
fn pre_tool_use_json(answer: Value) -> Outcome<ToolCall> {
    pre_tool_use(&Fake::json(answer), OnError::Pass)
}

#[track_caller]
fn blocked_reason<T: std::fmt::Debug>(outcome: &Outcome<T>) -> String {
    match &outcome.flow {
        Flow::Blocked(b) => {
            assert_eq!(b.hook, "guard");
            b.reason.clone()
        }
        Flow::Continue(v) => panic!("expected a block, got {v:?}"),
    }
}

#[track_caller]
fn continued_args(outcome: &Outcome<ToolCall>) -> Value {
    match &outcome.flow {
        Flow::Continue(call) => call.args.clone(),
        Flow::Blocked(b) => panic!("expected to go on, got {b:?}"),
    }
}

#[track_caller]
fn unchanged(outcome: &Outcome<ToolCall>) {
    assert_eq!(continued_args(outcome), rm_call().args);
    assert!(
        outcome.rewritten_by.is_empty(),
        "{:?}",
        outcome.rewritten_by
    );
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
}

const ASKS: &str =
    "hook `guard` asks for the user's confirmation, which hookchain cannot ask for, so it blocks";

// ---------------------------------------------------------------------------------------------
// The payload.

#[test]
fn the_payload_carries_the_common_keys_the_point_fields_and_the_turn_state() {
    let fake = Fake::stdout("");
    let hooks = registry(hook("intercept_tool_call", "PreToolUse"), &fake);
    let session = hooks.session("payload-session");
    let _first = session.begin_turn();
    let turn = session.begin_turn();
    turn.state().set("plan_ok", true);
    let _ = turn.intercept_tool_call(rm_call());
    let mut payload = fake.last_payload();
    // The transcript hookchain keeps for the session (see `transcript`).
    let transcript = payload["transcript_path"].as_str().unwrap().to_owned();
    assert!(transcript.ends_with("/transcript.jsonl"), "{transcript}");
    payload.as_object_mut().unwrap().remove("transcript_path");
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(
        payload,
        json!({
            "hook_event_name": "PreToolUse",
            "event": "PreToolUse",
            "permission_mode": "default",
            "session_id": "payload-session",
            "cwd": cwd.to_string_lossy(),
            "turn": 1,
            "turn_state": {"plan_ok": true},
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf /", "cwd": "/"},
            "tool_use_id": "toolu_1",
        })
    );
    assert_eq!(*fake.timeouts.lock(), [Duration::from_secs(5)]);
}

#[test]
fn the_time_limit_is_capped() {
    let fake = Fake::stdout("");
    let hooks = registry(
        ExternalHook {
            timeout: Duration::from_secs(3600),
            ..hook("transform_user_input", "UserPromptSubmit")
        },
        &fake,
    );
    let _ = turn(&hooks, "capped").transform_user_input("hi");
    assert_eq!(*fake.timeouts.lock(), [MAX_TIMEOUT]);
}

// ---------------------------------------------------------------------------------------------
// Claude Code.

#[test]
fn claude_code_decision_block_blocks_with_its_reason() {
    let outcome = pre_tool_use_json(json!({"decision": "block", "reason": "no rm -rf"}));
    assert_eq!(blocked_reason(&outcome), "no rm -rf");
}

#[test]
fn claude_code_permission_deny_blocks_with_its_reason() {
    let outcome = pre_tool_use_json(json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "Destructive command blocked by hook"
    }}));
    assert_eq!(
        blocked_reason(&outcome),
        "Destructive command blocked by hook"
    );
}

#[test]
fn claude_code_allow_and_approve_go_on() {
    unchanged(&pre_tool_use_json(json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow",
        "permissionDecisionReason": "safe"
    }})));
    unchanged(&pre_tool_use_json(
        json!({"decision": "approve", "reason": "fine"}),
    ));
}

#[test]
fn claude_code_allow_does_not_skip_later_hooks() {
    let fake = Fake::json(json!({"hookSpecificOutput": {"permissionDecision": "allow"}}));
    let hooks = HooksBuilder::new()
        .external_with(hook("intercept_tool_call", "PreToolUse"), fake)
        .hook(InterceptToolCall, 20, |_: &ToolCall, _: &HookContext| {
            HookResult::<Value>::block("later guard")
        })
        .build()
        .unwrap();
    let outcome = turn(&hooks, "allow-later").fire::<InterceptToolCall>(rm_call());
    assert!(outcome.is_blocked());
}

#[test]
fn claude_code_ask_blocks_and_says_it_cannot_ask() {
    let outcome = pre_tool_use_json(json!({"hookSpecificOutput": {
        "permissionDecision": "ask", "permissionDecisionReason": "rm is risky"
    }}));
    assert_eq!(blocked_reason(&outcome), format!("{ASKS}: rm is risky"));
}

#[test]
fn claude_code_updated_input_replaces_the_whole_input() {
    let outcome = pre_tool_use_json(json!({"hookSpecificOutput": {
        "permissionDecision": "allow", "updatedInput": {"command": "ls"}
    }}));
    assert_eq!(continued_args(&outcome), json!({"command": "ls"}));
    assert_eq!(outcome.rewritten_by, ["guard"]);
}

#[test]
fn claude_code_additional_context_and_system_message() {
    let outcome = pre_tool_use_json(json!({
        "systemMessage": "careful with rm",
        "hookSpecificOutput": {"additionalContext": "the repo is read-only"}
    }));
    unchanged(&outcome);
    assert_eq!(outcome.context, ["the repo is read-only"]);
    assert_eq!(outcome.warnings, ["careful with rm"]);
}

#[test]
fn claude_code_continue_false_stops_with_the_stop_reason() {
    let outcome = pre_tool_use_json(json!({"continue": false, "stopReason": "budget spent"}));
    assert_eq!(blocked_reason(&outcome), "budget spent");
    let outcome = pre_tool_use_json(json!({"continue": false}));
    assert_eq!(
        blocked_reason(&outcome),
        "hook `guard` asked the agent to stop"
    );
}

#[test]
fn claude_code_exit_2_blocks_with_stderr() {
    let fake = Fake::raw(exit(2, "", "  Blocked: rm is not allowed\n"));
    let outcome = pre_tool_use(&fake, OnError::Pass);
    assert_eq!(blocked_reason(&outcome), "Blocked: rm is not allowed");
    assert!(!outcome.flow.clone().blocked().unwrap().failed);
}

#[test]
fn claude_code_user_prompt_submit_block_and_plain_text_context() {
    let fake = Fake::json(json!({"decision": "block", "reason": "no secrets in prompts"}));
    let hooks = registry(hook("transform_user_input", "UserPromptSubmit"), &fake);
    let outcome = turn(&hooks, "ups").fire::<TransformUserInput>("my key is sk-1".into());
    assert_eq!(blocked_reason(&outcome), "no secrets in prompts");
    assert_eq!(fake.last_payload()["prompt"], "my key is sk-1");

    let fake = Fake::stdout("Current branch: main\n");
    let hooks = registry(hook("transform_user_input", "UserPromptSubmit"), &fake);
    let outcome = turn(&hooks, "ups-context").fire::<TransformUserInput>("hi".into());
    assert_eq!(outcome.flow, Flow::Continue("hi".to_owned()));
    assert_eq!(outcome.context, ["Current branch: main"]);
}

#[test]
fn claude_code_stop_block_makes_the_agent_redo() {
    let fake = Fake::json(json!({"decision": "block", "reason": "run the tests first"}));
    let hooks = registry(hook("on_stop", "Stop"), &fake);
    let turn = turn(&hooks, "stop-redo");
    assert_eq!(
        turn.on_stop("done"),
        Stop::Redo {
            instruction: "run the tests first".to_owned(),
            hook: "guard".to_owned()
        }
    );
    assert_eq!(fake.last_payload()["stop_hook_active"], false);
    assert_eq!(fake.last_payload()["last_assistant_message"], "done");
    let _ = turn.on_stop("done again");
    assert_eq!(fake.last_payload()["stop_hook_active"], true);
}

#[test]
fn claude_code_post_tool_use_updated_mcp_tool_output_rewrites_the_result() {
    let fake = Fake::json(json!({"hookSpecificOutput": {
        "hookEventName": "PostToolUse", "updatedMCPToolOutput": {"rows": "[redacted]"},
        "additionalContext": "rows were redacted"
    }}));
    let hooks = registry(hook("transform_tool_result", "PostToolUse"), &fake);
    let result = ToolResult::new(&rm_call(), Ok(json!({"rows": "secret"})));
    let outcome = turn(&hooks, "post-tool").fire::<TransformToolResult>(result);
    let Flow::Continue(result) = outcome.flow else {
        panic!("blocked")
    };
    assert_eq!(result.tool_response, json!({"rows": "[redacted]"}));
    assert_eq!(outcome.context, ["rows were redacted"]);
    assert_eq!(
        fake.last_payload()["tool_response"],
        json!({"rows": "secret"})
    );
}

// ---------------------------------------------------------------------------------------------
// Hermes.

#[test]
fn hermes_action_block_blocks_with_its_message() {
    let outcome = pre_tool_use_json(json!({"action": "block", "message": "Blocked: rm -rf"}));
    assert_eq!(blocked_reason(&outcome), "Blocked: rm -rf");
    let outcome = pre_tool_use_json(json!({"action": "block", "reason": "from reason"}));
    assert_eq!(blocked_reason(&outcome), "from reason");
    let outcome = pre_tool_use_json(json!({"action": "block"}));
    assert_eq!(blocked_reason(&outcome), "blocked by hook `guard`");
}

#[test]
fn hermes_modify_merges_into_the_input() {
    for key in ["args", "tool_input", "input"] {
        let outcome = pre_tool_use_json(json!({"action": "modify", key: {"command": "ls"}}));
        assert_eq!(
            continued_args(&outcome),
            json!({"command": "ls", "cwd": "/"}),
            "{key}"
        );
    }
    // Hermes' Claude-Code-style spelling.
    let outcome = pre_tool_use_json(json!({"decision": "modify", "tool_input": {"dry_run": true}}));
    assert_eq!(
        continued_args(&outcome),
        json!({"command": "rm -rf /", "cwd": "/", "dry_run": true})
    );
}

#[test]
fn hermes_modify_rewrites_text() {
    let fake = Fake::json(json!({"action": "modify", "prompt": "my key is [redacted]"}));
    let hooks = registry(hook("transform_user_input", "on_user_message"), &fake);
    let outcome = turn(&hooks, "hermes-text").fire::<TransformUserInput>("my key is sk-1".into());
    assert_eq!(
        outcome.flow,
        Flow::Continue("my key is [redacted]".to_owned())
    );

    let fake = Fake::json(json!({"action": "modify", "text": "reply -- sent by bot"}));
    let hooks = registry(hook("transform_response", "on_response_end"), &fake);
    let outcome = turn(&hooks, "hermes-reply").fire::<TransformResponse>("reply".into());
    assert_eq!(
        outcome.flow,
        Flow::Continue("reply -- sent by bot".to_owned())
    );
}

#[test]
fn hermes_context_is_context() {
    let outcome = pre_tool_use_json(json!({"context": "remember the style guide"}));
    unchanged(&outcome);
    assert_eq!(outcome.context, ["remember the style guide"]);
}

#[test]
fn hermes_unknown_actions_pass_as_in_hermes() {
    unchanged(&pre_tool_use_json(json!({"action": "continue"})));
    unchanged(&pre_tool_use_json(json!({"action": "allow"})));
}

/// Hermes' `pre_llm_call` context goes into the user's message ("never the system prompt").
#[test]
fn hermes_context_injects_on_before_llm_call_as_the_users() {
    let fake = Fake::json(json!({"context": "Plan before you implement."}));
    let hooks = registry(hook("before_llm_call", "pre_llm_call"), &fake);
    let outcome = turn(&hooks, "hermes-llm").fire::<BeforeLlmCall>(LlmCall::new(
        "You are helpful.",
        vec![Message::user("add a cache")],
    ));
    let Flow::Continue(call) = outcome.flow else {
        panic!("blocked")
    };
    assert_eq!(call.system_prompt, "You are helpful.");
    assert_eq!(
        call.messages.last(),
        Some(&Message::user("Plan before you implement."))
    );
}

/// Hermes fires `pre_llm_call` once per turn, before the first model call (the one that ends
/// with the user's message), and `post_llm_call` once, after the final reply (the one that
/// calls no tool); hookchain's own protocol gets every model call.
#[test]
fn hermes_llm_hooks_fire_once_per_turn() {
    let fake = Fake::json(json!({}));
    let hooks = registry(hook("before_llm_call", "pre_llm_call"), &fake);
    let turn = turn(&hooks, "hermes-once");
    let first = vec![Message::user("add a cache")];
    let mut second = first.clone();
    second.push(Message::assistant("reading the module"));
    second.push(Message::tool("src/cache.rs: 40 lines"));
    let _ = turn.fire::<BeforeLlmCall>(LlmCall::new("", first));
    let _ = turn.fire::<BeforeLlmCall>(LlmCall::new("", second.clone()));
    assert_eq!(fake.calls(), 1);

    let own = Fake::json(json!({}));
    let hooks = registry(hook("before_llm_call", "before_llm_call"), &own);
    let _ = hooks
        .session("own-every-call")
        .begin_turn()
        .fire::<BeforeLlmCall>(LlmCall::new("", second));
    assert_eq!(own.calls(), 1);

    let after = Fake::json(json!({}));
    let hooks = registry(hook("after_llm_call", "post_llm_call"), &after);
    let turn = hooks.session("hermes-after").begin_turn();
    let mut calling = LlmReply::text("reading the module");
    calling
        .tool_calls
        .push(ToolCall::new("read_file", json!({"path": "src/cache.rs"})));
    let _ = turn.fire::<AfterLlmCall>(calling);
    assert_eq!(after.calls(), 0);
    let _ = turn.fire::<AfterLlmCall>(LlmReply::text("done"));
    assert_eq!(after.calls(), 1);
}

// ---------------------------------------------------------------------------------------------
// docker-agent.

#[test]
fn docker_agent_deny_and_decision_block() {
    let outcome = pre_tool_use_json(json!({"hook_specific_output": {
        "hook_event_name": "pre_tool_use", "permission_decision": "deny",
        "permission_decision_reason": "not on main"
    }}));
    assert_eq!(blocked_reason(&outcome), "not on main");
    let outcome = pre_tool_use_json(json!({"decision": "block", "reason": "loop detected"}));
    assert_eq!(blocked_reason(&outcome), "loop detected");
}

#[test]
fn docker_agent_allow_goes_on() {
    unchanged(&pre_tool_use_json(
        json!({"hook_specific_output": {"permission_decision": "allow"}}),
    ));
}

#[test]
fn docker_agent_ask_blocks_and_says_it_cannot_ask() {
    let outcome = pre_tool_use_json(json!({"hook_specific_output": {
        "permission_decision": "ask", "permission_decision_reason": "confirm the push"
    }}));
    assert_eq!(
        blocked_reason(&outcome),
        format!("{ASKS}: confirm the push")
    );
}

#[test]
fn docker_agent_updated_input_replaces_the_whole_input() {
    let outcome = pre_tool_use_json(json!({"hook_specific_output": {
        "updated_input": {"command": "rm -ri /tmp/x"}
    }}));
    assert_eq!(
        continued_args(&outcome),
        json!({"command": "rm -ri /tmp/x"})
    );
}

#[test]
fn docker_agent_additional_context_and_system_message() {
    let outcome = pre_tool_use_json(json!({
        "system_message": "hook ran",
        "hook_specific_output": {"additional_context": "cwd is /work"}
    }));
    unchanged(&outcome);
    assert_eq!(outcome.context, ["cwd is /work"]);
    assert_eq!(outcome.warnings, ["hook ran"]);
}

#[test]
fn docker_agent_continue_false_stops_with_the_stop_reason() {
    let outcome = pre_tool_use_json(json!({"continue": false, "stop_reason": "max cost"}));
    assert_eq!(blocked_reason(&outcome), "max cost");
}

#[test]
fn docker_agent_updated_tool_response_and_summary() {
    let fake = Fake::json(json!({"hook_specific_output": {"updated_tool_response": "[scrubbed]"}}));
    let hooks = registry(
        hook("transform_tool_result", "tool_response_transform"),
        &fake,
    );
    let result = ToolResult::new(&rm_call(), Ok(json!("token=abc")));
    let outcome = turn(&hooks, "docker-result").fire::<TransformToolResult>(result);
    assert_eq!(
        outcome.flow.continued().unwrap().tool_response,
        json!("[scrubbed]")
    );

    let fake = Fake::json(json!({"hook_specific_output": {"summary": "we fixed the bug"}}));
    let hooks = registry(hook("before_compaction", "pre_compact"), &fake);
    let compaction = Compaction {
        messages: Vec::new(),
        trigger: "auto".to_owned(),
        summary: None,
    };
    let outcome = turn(&hooks, "docker-compact").fire::<BeforeCompaction>(compaction);
    assert_eq!(
        outcome.flow.continued().unwrap().summary.as_deref(),
        Some("we fixed the bug")
    );
    assert_eq!(fake.last_payload()["trigger"], "auto");
}

// ---------------------------------------------------------------------------------------------
// Starchild.

#[test]
fn starchild_decision_block_and_allow() {
    let outcome = pre_tool_use_json(json!({"decision": "block", "reason": "private key"}));
    assert_eq!(blocked_reason(&outcome), "private key");
    unchanged(&pre_tool_use_json(json!({"decision": "allow"})));
}

/// Starchild: "`tool_input`: rewrite EXISTING input keys".
#[test]
fn starchild_tool_input_rewrites_the_keys_the_input_has() {
    let outcome = pre_tool_use_json(json!({"tool_input": {"command": "ls", "extra": 1}}));
    assert_eq!(
        continued_args(&outcome),
        json!({"command": "ls", "cwd": "/"})
    );
    // Naming only keys the input lacks changes nothing.
    unchanged(&pre_tool_use_json(json!({"tool_input": {"extra": 1}})));
}

#[test]
fn starchild_context_system_message_and_add_warning() {
    let outcome = pre_tool_use_json(json!({
        "context": ["one", "two"],
        "systemMessage": "first",
        "add_warning": ["second", "third"]
    }));
    unchanged(&outcome);
    assert_eq!(outcome.context, ["one", "two"]);
    assert_eq!(outcome.warnings, ["first", "second", "third"]);
    let outcome = pre_tool_use_json(json!({"add_warning": "only"}));
    assert_eq!(outcome.warnings, ["only"]);
}

// ---------------------------------------------------------------------------------------------
// Contradictions (rules of `external::protocol`).

#[test]
fn rule_1_continue_false_wins_over_everything() {
    let outcome = pre_tool_use_json(json!({
        "continue": false, "stopReason": "stop now",
        "decision": "approve",
        "hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}
    }));
    assert_eq!(blocked_reason(&outcome), "stop now");
}

#[test]
fn rule_1_on_stop_continue_false_ends_the_turn_instead_of_redoing() {
    let fake = Fake::json(json!({
        "continue": false, "stopReason": "enough for today",
        "decision": "block", "reason": "keep going"
    }));
    let hooks = registry(hook("on_stop", "Stop"), &fake);
    let turn = turn(&hooks, "stop-continue-false");
    assert_eq!(turn.on_stop("done"), Stop::Finish("done".to_owned()));
    assert_eq!(turn.take_warnings(), ["enough for today"]);
}

#[test]
fn rule_2_permission_decision_overrides_decision() {
    unchanged(&pre_tool_use_json(json!({
        "decision": "block", "reason": "old style",
        "hookSpecificOutput": {"permissionDecision": "allow"}
    })));
    let outcome = pre_tool_use_json(json!({
        "decision": "approve",
        "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "new style"}
    }));
    assert_eq!(blocked_reason(&outcome), "new style");
    let outcome = pre_tool_use_json(json!({
        "decision": "block", "reason": "r",
        "hookSpecificOutput": {"permissionDecision": "ask"}
    }));
    assert_eq!(blocked_reason(&outcome), format!("{ASKS}: r"));
}

#[test]
fn rule_2_defer_does_not_override_and_alone_passes() {
    let outcome = pre_tool_use_json(json!({
        "decision": "block", "reason": "still blocked",
        "hookSpecificOutput": {"permissionDecision": "defer"}
    }));
    assert_eq!(blocked_reason(&outcome), "still blocked");
    unchanged(&pre_tool_use_json(
        json!({"hookSpecificOutput": {"permissionDecision": "defer"}}),
    ));
}

#[test]
fn rule_3_deny_beats_allow_across_dialects() {
    let outcome = pre_tool_use_json(json!({
        "hookSpecificOutput": {"permissionDecision": "allow"},
        "hook_specific_output": {"permission_decision": "deny", "permission_decision_reason": "docker says no"}
    }));
    assert_eq!(blocked_reason(&outcome), "docker says no");
    let outcome = pre_tool_use_json(json!({
        "hookSpecificOutput": {"permissionDecision": "allow"},
        "action": "block", "message": "hermes says no"
    }));
    assert_eq!(blocked_reason(&outcome), "hermes says no");
}

#[test]
fn rule_3_docker_agent_decision_block_beats_its_permission_allow() {
    let outcome = pre_tool_use_json(json!({
        "decision": "block", "reason": "blocked",
        "hook_specific_output": {"permission_decision": "allow"}
    }));
    assert_eq!(blocked_reason(&outcome), "blocked");
}

#[test]
fn rule_3_block_beats_ask_and_ask_beats_allow_and_reasons_are_joined() {
    let outcome = pre_tool_use_json(json!({
        "hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "asked"},
        "hook_specific_output": {"permission_decision": "deny", "permission_decision_reason": "denied"}
    }));
    assert_eq!(blocked_reason(&outcome), "denied");
    let outcome = pre_tool_use_json(json!({
        "hookSpecificOutput": {"permissionDecision": "allow"},
        "hook_specific_output": {"permission_decision": "ask", "permission_decision_reason": "sure?"}
    }));
    assert_eq!(blocked_reason(&outcome), format!("{ASKS}: sure?"));
    let outcome = pre_tool_use_json(json!({
        "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "one"},
        "action": "block", "message": "two"
    }));
    assert_eq!(blocked_reason(&outcome), "one\ntwo");
}

#[test]
fn rule_4_a_block_wins_over_a_rewrite() {
    let outcome = pre_tool_use_json(json!({"hookSpecificOutput": {
        "permissionDecision": "deny", "permissionDecisionReason": "no",
        "updatedInput": {"command": "ls"}
    }}));
    assert_eq!(blocked_reason(&outcome), "no");
    let outcome = pre_tool_use_json(json!({"action": "block", "message": "no", "args": {"x": 1}}));
    assert_eq!(blocked_reason(&outcome), "no");
    assert!(outcome.rewritten_by.is_empty());
}

#[test]
fn rule_5_a_replacement_comes_before_a_merge_and_claude_code_first() {
    let outcome = pre_tool_use_json(json!({
        "action": "modify", "args": {"dry_run": true},
        "hookSpecificOutput": {"updatedInput": {"command": "ls"}}
    }));
    assert_eq!(
        continued_args(&outcome),
        json!({"command": "ls", "dry_run": true})
    );
    let outcome = pre_tool_use_json(json!({
        "hookSpecificOutput": {"updatedInput": {"from": "claude"}},
        "hook_specific_output": {"updated_input": {"from": "docker"}},
        "tool_input": {"to": "starchild"}
    }));
    assert_eq!(continued_args(&outcome), json!({"from": "claude"}));
    // Starchild's `tool_input` rewrites keys of the replacement.
    let outcome = pre_tool_use_json(json!({
        "hook_specific_output": {"updated_input": {"from": "docker"}},
        "tool_input": {"from": "starchild"}
    }));
    assert_eq!(continued_args(&outcome), json!({"from": "starchild"}));
}

#[test]
fn rule_6_exit_2_ignores_stdout() {
    let fake = Fake::raw(exit(2, r#"{"decision": "approve"}"#, "not allowed"));
    assert_eq!(
        blocked_reason(&pre_tool_use(&fake, OnError::Pass)),
        "not allowed"
    );
    let fake = Fake::raw(exit(2, "", "   \n"));
    assert_eq!(
        blocked_reason(&pre_tool_use(&fake, OnError::Pass)),
        "blocked by hook `guard`"
    );
}

#[test]
fn rule_7_each_dialect_takes_its_own_reason_first() {
    let outcome = pre_tool_use_json(json!({"decision": "block", "reason": "r", "message": "m"}));
    assert_eq!(blocked_reason(&outcome), "r");
    let outcome = pre_tool_use_json(json!({"decision": "block", "message": "m"}));
    assert_eq!(blocked_reason(&outcome), "m");
    let outcome = pre_tool_use_json(json!({"action": "block", "reason": "r", "message": "m"}));
    assert_eq!(blocked_reason(&outcome), "m");
    let outcome = pre_tool_use_json(json!({"reason": "top",
        "hookSpecificOutput": {"permissionDecision": "deny"}}));
    assert_eq!(blocked_reason(&outcome), "top");
    let outcome = pre_tool_use_json(json!({"reason": "top",
        "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "specific"}}));
    assert_eq!(blocked_reason(&outcome), "specific");
}

// ---------------------------------------------------------------------------------------------
// Empty, plain text, junk and failures.

#[test]
fn empty_output_passes() {
    for stdout in ["", "  \n\t"] {
        let fake = Fake::stdout(stdout);
        let outcome = pre_tool_use(&fake, OnError::Block);
        unchanged(&outcome);
        assert!(outcome.context.is_empty() && outcome.warnings.is_empty());
        assert_eq!(fake.calls(), 1);
    }
    let fake = Fake::raw(RawOutput::default());
    unchanged(&pre_tool_use(&fake, OnError::Block));
}

/// A hook in hookchain's own protocol (its event spelled as the point).
fn native_pre_tool_use(fake: &Arc<Fake>, on_error: OnError) -> Outcome<ToolCall> {
    let hooks = registry(
        ExternalHook {
            on_error,
            ..hook("intercept_tool_call", "intercept_tool_call")
        },
        fake,
    );
    turn(&hooks, "native-pre-tool-use").fire::<InterceptToolCall>(rm_call())
}

#[test]
fn plain_text_is_context_where_context_is_taken() {
    let outcome = native_pre_tool_use(&Fake::stdout("  lint passed\n"), OnError::Pass);
    unchanged(&outcome);
    assert_eq!(outcome.context, ["lint passed"]);
    // Claude Code gives plain stdout to the model on UserPromptSubmit and SessionStart only.
    let outcome = pre_tool_use(&Fake::stdout("  lint passed\n"), OnError::Pass);
    unchanged(&outcome);
    assert!(outcome.context.is_empty(), "{:?}", outcome.context);

    let fake = Fake::stdout("footer?");
    let hooks = registry(hook("transform_response", "on_response_end"), &fake);
    let outcome = turn(&hooks, "no-context").fire::<TransformResponse>("reply".into());
    assert_eq!(outcome.flow, Flow::Continue("reply".to_owned()));
    assert!(outcome.context.is_empty());
}

/// An answer that is a failure, under each policy: `pass` goes on unchanged, `block` blocks
/// naming the hook, `warn` goes on with a warning naming the hook.
#[track_caller]
fn fails_under_every_policy(fake: &Arc<Fake>, what: &str) {
    let outcome = pre_tool_use(fake, OnError::Pass);
    assert_eq!(continued_args(&outcome), rm_call().args);
    assert_eq!(outcome.failures.len(), 1);
    let error = &outcome.failures[0].error;
    assert!(error.contains(what), "{error}");
    assert!(
        error.starts_with(
            "external hook `guard` (command `./guard.sh`, configured at hooks/hookchain.yaml:12) failed: "
        ),
        "{error}"
    );
    assert!(outcome.warnings.is_empty());

    let outcome = pre_tool_use(fake, OnError::Block);
    let blocked = outcome.flow.clone().blocked().expect("blocked");
    assert!(blocked.failed);
    assert_eq!(blocked.hook, "guard");
    assert!(blocked.reason.contains("`guard`"), "{}", blocked.reason);
    assert!(blocked.reason.contains(what), "{}", blocked.reason);

    let outcome = pre_tool_use(fake, OnError::Warn);
    assert_eq!(continued_args(&outcome), rm_call().args);
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(outcome.warnings.len(), 1);
    let warning = &outcome.warnings[0];
    assert!(
        warning.contains("`guard`") && warning.contains(what),
        "{warning}"
    );
    assert!(
        warning.ends_with("(on_error = warn); the chain went on without it"),
        "{warning}"
    );
}

#[test]
fn exit_1_and_127_are_failures_under_every_policy() {
    fails_under_every_policy(
        &Fake::raw(exit(
            1,
            "checking the command...",
            "Traceback (most recent call last):\n  boom",
        )),
        "the hook exited with code 1 (only 0, go on, and 2, block, have a meaning); its stderr began: Traceback (most recent call last):",
    );
    // Invalid JSON is no answer either.
    fails_under_every_policy(
        &Fake::raw(exit(1, r#"{"decision": "block""#, "")),
        "exited with code 1",
    );
    // A Claude Code hook's JSON on exit 1 is not read: "Claude Code only processes JSON on
    // exit 0".
    fails_under_every_policy(
        &Fake::raw(exit(1, r#"{"decision": "block", "reason": "no rm"}"#, "")),
        "exited with code 1",
    );
    fails_under_every_policy(
        &Fake::raw(exit(127, "", "sh: ./guard.sh: not found\n")),
        "exited with code 127",
    );
    fails_under_every_policy(
        &Fake::raw(exit(3, "", "")),
        "exited with code 3 (only 0, go on, and 2, block, have a meaning); it printed nothing on stderr",
    );
}

/// In hookchain's own protocol a JSON answer is read whatever the exit code, as Hermes reads it;
/// the exit code becomes a warning. (Claude Code reads JSON on exit 0 only: see
/// `exit_1_and_127_are_failures_under_every_policy`.)
#[test]
fn a_json_answer_with_another_exit_code_is_read_under_every_policy() {
    for on_error in [OnError::Pass, OnError::Warn, OnError::Block] {
        let fake = Fake::raw(exit(
            1,
            r#"{"decision": "block", "reason": "no rm"}"#,
            "Traceback (most recent call last):\n  boom",
        ));
        let outcome = native_pre_tool_use(&fake, on_error);
        assert_eq!(blocked_reason(&outcome), "no rm", "{on_error:?}");
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert_eq!(
            outcome.warnings,
            ["the hook exited with code 1: Traceback (most recent call last):"]
        );
    }
}

#[test]
fn junk_is_a_failure_under_every_policy() {
    fails_under_every_policy(
        &Fake::stdout("{\"decision\": \"block\",\n oops"),
        "the hook printed invalid JSON on stdout (",
    );
    fails_under_every_policy(
        &Fake::stdout("{\"decision\": \"block\"} trailing"),
        "it began: {\"decision\": \"block\"} trailing",
    );
    fails_under_every_policy(
        &Fake::json(json!({"decision": "maybe"})),
        "the hook printed `decision: maybe`, but it must be one of",
    );
    fails_under_every_policy(
        &Fake::json(json!({"hookSpecificOutput": {"permissionDecision": "yes"}})),
        "`hookSpecificOutput.permissionDecision: yes`",
    );
    fails_under_every_policy(
        &Fake::json(json!({"hookSpecificOutput": {"updatedInput": ["ls"]}})),
        "`hookSpecificOutput.updatedInput` as an array",
    );
}

#[test]
fn non_utf8_output_is_a_failure_under_every_policy() {
    fails_under_every_policy(
        &Fake::raw(RawOutput {
            exit_code: Some(0),
            stdout: b"ok\xff\xfe".to_vec(),
            stderr: Vec::new(),
        }),
        "the hook printed stdout that is not UTF-8 (an invalid byte at offset 2)",
    );
}

#[test]
fn transport_errors_are_failures_under_every_policy() {
    fails_under_every_policy(
        &Fake::with(|_| Err(TransportError::Timeout(Duration::from_secs(5)))),
        "timed out after 5s",
    );
    fails_under_every_policy(
        &Fake::with(|_| {
            Err(TransportError::Spawn {
                command: "./guard.sh".into(),
                reason: "No such file or directory".into(),
            })
        }),
        "cannot start `./guard.sh`: No such file or directory",
    );
}

#[test]
fn a_failure_on_an_observe_point_never_blocks() {
    let fake = Fake::raw(exit(1, "", "boom"));
    let hooks = registry(
        ExternalHook {
            on_error: OnError::Block,
            ..hook("after_tool_call", "post_tool_call")
        },
        &fake,
    );
    let outcome = turn(&hooks, "observe-failure")
        .fire::<AfterToolCall>(ToolResult::new(&rm_call(), Ok(json!(1))));
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.failures.len(), 1);
}

#[test]
fn an_observe_point_ignores_a_block_but_reports_context_and_warnings() {
    let fake = Fake::json(json!({
        "decision": "block", "reason": "too late",
        "systemMessage": "logged", "hookSpecificOutput": {"additionalContext": "3 files changed"}
    }));
    let hooks = registry(hook("after_tool_call", "post_tool_call"), &fake);
    let outcome = turn(&hooks, "observe-block")
        .fire::<AfterToolCall>(ToolResult::new(&rm_call(), Ok(json!(1))));
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.context, ["3 files changed"]);
    assert_eq!(outcome.warnings, ["logged"]);
}

// ---------------------------------------------------------------------------------------------
// Matchers.

#[test]
fn a_matcher_miss_never_invokes_the_hook() {
    let fake = Fake::json(json!({"decision": "block", "reason": "no edits"}));
    let hooks = registry(
        ExternalHook {
            matcher: Matcher::parse(Dialect::ClaudeCode, "Write|Edit").unwrap(),
            ..hook("intercept_tool_call", "PreToolUse")
        },
        &fake,
    );
    let turn = turn(&hooks, "matcher");
    for name in ["Bash", "WriteFile", "edit"] {
        let outcome = turn.fire::<InterceptToolCall>(ToolCall::new(name, json!({})));
        assert!(!outcome.is_blocked(), "{name}");
    }
    assert_eq!(fake.calls(), 0);
    assert!(
        turn.fire::<InterceptToolCall>(ToolCall::new("Edit", json!({})))
            .is_blocked()
    );
    assert_eq!(fake.calls(), 1);
    // Tool results are gated too.
    let results = Fake::stdout("");
    let edit_only = || Matcher::parse(Dialect::ClaudeCode, "Write|Edit").unwrap();
    let hooks = HooksBuilder::new()
        .external_with(
            ExternalHook {
                matcher: edit_only(),
                ..hook("after_tool_call", "post_tool_call")
            },
            results.clone(),
        )
        .external_with(
            ExternalHook {
                matcher: edit_only(),
                ..hook("transform_tool_result", "PostToolUse")
            },
            results.clone(),
        )
        .build()
        .unwrap();
    let turn = self::turn(&hooks, "matcher-results");
    let result = |name: &str| ToolResult::new(&ToolCall::new(name, json!({})), Ok(json!(1)));
    let _ = turn.fire::<AfterToolCall>(result("Bash"));
    let _ = turn.fire::<TransformToolResult>(result("Bash"));
    assert_eq!(results.calls(), 0);
    let _ = turn.fire::<AfterToolCall>(result("Write"));
    let _ = turn.fire::<TransformToolResult>(result("Write"));
    assert_eq!(results.calls(), 2);
}

#[test]
fn regex_and_anchored_matchers_gate_by_their_rule() {
    let claude = Fake::stdout("");
    let docker = Fake::stdout("");
    let hooks = HooksBuilder::new()
        .external_with(
            ExternalHook {
                name: "claude".into(),
                matcher: Matcher::parse(Dialect::ClaudeCode, "mcp__.*").unwrap(),
                ..hook("intercept_tool_call", "PreToolUse")
            },
            claude.clone(),
        )
        .external_with(
            ExternalHook {
                name: "docker".into(),
                matcher: Matcher::parse(Dialect::DockerAgent, "mcp__.*").unwrap(),
                ..hook("intercept_tool_call", "pre_tool_use")
            },
            docker.clone(),
        )
        .build()
        .unwrap();
    let turn = turn(&hooks, "regex-matchers");
    let _ = turn.intercept_tool_call(ToolCall::new("mcp__github__push", json!({})));
    let _ = turn.intercept_tool_call(ToolCall::new("x_mcp__y", json!({})));
    let _ = turn.intercept_tool_call(ToolCall::new("Bash", json!({})));
    assert_eq!(
        claude.calls(),
        2,
        "unanchored: mcp__github__push and x_mcp__y"
    );
    assert_eq!(docker.calls(), 1, "anchored: mcp__github__push only");
}

#[test]
fn points_without_a_tool_ignore_the_matcher() {
    let fake = Fake::stdout("");
    let hooks = registry(
        ExternalHook {
            matcher: Matcher::parse(Dialect::ClaudeCode, "Write").unwrap(),
            ..hook("transform_user_input", "UserPromptSubmit")
        },
        &fake,
    );
    let _ = turn(&hooks, "no-tool").transform_user_input("hi");
    assert_eq!(fake.calls(), 1);
}

// ---------------------------------------------------------------------------------------------
// One chain with Rust hooks.

#[test]
fn a_mixed_chain_passes_each_rewrite_to_the_next_hook() {
    let fake = Fake::with(|payload| {
        let mut input = payload["tool_input"].clone();
        assert_eq!(
            input["by5"], true,
            "the external hook sees the rewrite of priority 5"
        );
        input["by10"] = json!(true);
        Ok(exit(
            0,
            &json!({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": input}})
                .to_string(),
            "",
        ))
    });
    let seen_by_20 = Arc::new(Mutex::new(Value::Null));
    let seen = seen_by_20.clone();
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("rust-5").priority(5),
            |call: &ToolCall, _: &HookContext| {
                let mut args = call.args.clone();
                args["by5"] = json!(true);
                HookResult::Rewrite(args)
            },
        )
        .external_with(
            ExternalHook {
                name: "script-10".into(),
                priority: 10,
                ..hook("intercept_tool_call", "PreToolUse")
            },
            fake.clone(),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("rust-20").priority(20),
            move |call: &ToolCall, _: &HookContext| {
                *seen.lock() = call.args.clone();
                let mut args = call.args.clone();
                args["by20"] = json!(true);
                HookResult::Rewrite(args)
            },
        )
        .build()
        .unwrap();
    let turn = turn(&hooks, "mixed-chain");
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("write_file", json!({"path": "a"})));
    assert_eq!(
        *seen_by_20.lock(),
        json!({"path": "a", "by5": true, "by10": true})
    );
    assert_eq!(
        continued_args(&outcome),
        json!({"path": "a", "by5": true, "by10": true, "by20": true})
    );
    assert_eq!(outcome.rewritten_by, ["rust-5", "script-10", "rust-20"]);
    assert_eq!(fake.calls(), 1);
    turn.end(TurnEnd::Normal);
}

#[test]
fn every_builtin_point_takes_an_external_hook_and_describe_shows_where_it_was_configured() {
    let mut builder = HooksBuilder::new();
    for point in hookchain_core::points::catalog() {
        builder = builder.external_with(hook(point.name, point.name), Fake::stdout(""));
    }
    let hooks = builder.build().unwrap();
    for point in hookchain_core::points::catalog() {
        let chain = hooks.chain_of(point.name);
        assert_eq!(chain.len(), 1, "{}", point.name);
        let info = chain[0];
        assert_eq!(&*info.name, "guard");
        assert_eq!(info.priority, 10);
        assert_eq!(&*info.extension, "external");
        assert_eq!(info.location(), "hooks/hookchain.yaml:12");
    }
    let listing = hooks.describe().to_string();
    assert!(listing.contains("hooks/hookchain.yaml:12"), "{listing}");
    assert!(listing.contains("external (21 hooks)"), "{listing}");
    assert!(
        listing.starts_with(
            "21 hook(s): 0 collected by #[register_hook] (inventory), 0 added by the builder, \
             21 external"
        ) || listing.contains("(linkme), 0 added by the builder, 21 external"),
        "{listing}"
    );
    assert!(
        chain_sources(&hooks)
            .iter()
            .all(|s| *s == HookSource::External),
        "{listing}"
    );
}

fn chain_sources(hooks: &Hooks) -> Vec<HookSource> {
    hooks.hooks().iter().map(|h| h.source.clone()).collect()
}

#[test]
fn on_error_maps_to_the_chain_policy() {
    for (policy, expected) in [
        (OnError::Pass, OnError::Pass),
        (OnError::Warn, OnError::Warn),
        (OnError::Block, OnError::Block),
    ] {
        let hooks = registry(
            ExternalHook {
                on_error: policy,
                ..hook("intercept_tool_call", "PreToolUse")
            },
            &Fake::stdout(""),
        );
        assert_eq!(hooks.chain_of("intercept_tool_call")[0].on_error, expected);
    }
}

#[test]
fn a_hook_built_in_code_is_listed_where_it_was_added() {
    let hooks = registry(
        ExternalHook {
            origin: ConfigOrigin::Code,
            ..hook("intercept_tool_call", "PreToolUse")
        },
        &Fake::stdout(""),
    );
    let info = hooks.chain_of("intercept_tool_call")[0];
    assert_eq!(&*info.file, file!());
}

#[test]
fn a_hook_for_an_unknown_point_is_left_out() {
    let hooks = registry(hook("no_such_point", "Nope"), &Fake::stdout(""));
    assert!(hooks.is_empty());
}

#[test]
fn disabling_the_external_extension_skips_every_external_hook() {
    let fake = Fake::json(json!({"decision": "block"}));
    let hooks = registry(hook("intercept_tool_call", "PreToolUse"), &fake);
    hooks.disable_extension("external").unwrap();
    unchanged(&turn(&hooks, "disabled").fire::<InterceptToolCall>(rm_call()));
    assert_eq!(fake.calls(), 0);
}

#[test]
fn session_start_context_persists_for_the_session() {
    let fake = Fake::json(json!({"hookSpecificOutput": {
        "hookEventName": "SessionStart", "additionalContext": "branch: main"
    }}));
    let hooks = registry(hook("session_start", "SessionStart"), &fake);
    let session = hooks.session("start-context");
    assert_eq!(session.context(), ["branch: main"]);
    assert_eq!(fake.last_payload()["source"], "startup");
}

// ---------------------------------------------------------------------------------------------
// `HooksBuilder::external`: the real transport of `hook.transport`.

/// A `command` hook running `sh -c script`.
fn shell_hook(script: &str, on_error: OnError) -> ExternalHook {
    ExternalHook {
        transport: Transport::Command(support::shell(script)),
        on_error,
        ..hook("intercept_tool_call", "intercept_tool_call")
    }
}

#[test]
fn external_runs_the_command_of_the_hook() {
    let script = r#"cat >/dev/null; printf '%s' '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "end to end"}}'"#;
    let hooks = HooksBuilder::new()
        .external(shell_hook(script, OnError::Pass))
        .build()
        .unwrap();
    let outcome = turn(&hooks, "end-to-end").fire::<InterceptToolCall>(rm_call());
    assert_eq!(blocked_reason(&outcome), "end to end");

    // The script sees the payload on stdin.
    let script = r#"grep -q '"tool_name":"Bash"' && echo 'saw Bash' || echo 'no payload'"#;
    let hooks = HooksBuilder::new()
        .external(shell_hook(script, OnError::Pass))
        .build()
        .unwrap();
    let outcome = turn(&hooks, "end-to-end-stdin").fire::<InterceptToolCall>(rm_call());
    assert_eq!(outcome.context, ["saw Bash"]);
}

#[test]
fn external_with_a_missing_program_fails_every_firing_under_its_policy() {
    let missing = |on_error| ExternalHook {
        transport: Transport::Command(CommandSpec {
            argv: vec!["./hooks/no-such-guard.sh".to_owned()],
            display: "./hooks/no-such-guard.sh".to_owned(),
            env: BTreeMap::new(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        }),
        on_error,
        ..hook("intercept_tool_call", "PreToolUse")
    };
    let hooks = HooksBuilder::new()
        .external(missing(OnError::Block))
        .build()
        .unwrap();
    let outcome = turn(&hooks, "missing-block").fire::<InterceptToolCall>(rm_call());
    let blocked = outcome.flow.clone().blocked().expect("blocked");
    assert!(blocked.failed);
    assert!(
        blocked
            .reason
            .contains("cannot start `./hooks/no-such-guard.sh`"),
        "{}",
        blocked.reason
    );

    let hooks = HooksBuilder::new()
        .external(missing(OnError::Warn))
        .build()
        .unwrap();
    let outcome = turn(&hooks, "missing-warn").fire::<InterceptToolCall>(rm_call());
    assert_eq!(continued_args(&outcome), rm_call().args);
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(outcome.warnings.len(), 1);
}

/// `after_tool_call` for a refused call reaches a hook in hookchain's own protocol, with the
/// block in the payload, and never a hook written for an agent that fires no post-tool event
/// for a denied call.
#[test]
fn a_refused_tool_call_reaches_native_after_tool_call_hooks_only() {
    let cases = [
        ("after_tool_call", Dialect::Hookchain, true),
        ("tool_execution_end", Dialect::Hookchain, true),
        ("post_tool_call", Dialect::Hookchain, false),
        ("after_tool_call", Dialect::ClaudeCode, false),
        ("after_tool_call", Dialect::DockerAgent, false),
    ];
    for (event, dialect, fired) in cases {
        let audit = Fake::stdout("");
        let hooks = HooksBuilder::new()
            .hook_with(
                InterceptToolCall,
                HookOptions::new("no-rm"),
                |c: &ToolCall, _: &HookContext| {
                    if c.args["command"] == "rm -rf /" {
                        HookResult::block("no rm")
                    } else {
                        HookResult::Pass
                    }
                },
            )
            .external_with(
                ExternalHook {
                    dialect,
                    ..hook("after_tool_call", event)
                },
                audit.clone(),
            )
            .build()
            .unwrap();
        let turn = turn(&hooks, "refused-audit");
        let run = turn.run_tool(rm_call(), |_| panic!("refused"));
        assert!(!run.ran);
        let case = format!("{event} in a {dialect:?} file");
        assert_eq!(audit.calls(), usize::from(fired), "{case}");
        if fired {
            let payload = audit.last_payload();
            assert_eq!(payload["tool_input"], rm_call().args, "{case}");
            assert_eq!(payload["tool_response"], "no rm", "{case}");
            assert_eq!(payload["is_error"], true, "{case}");
            assert_eq!(
                payload["blocked"],
                json!({"reason": "no rm", "hook": "no-rm", "failed": false}),
                "{case}"
            );
        }
        // A call that ran reaches every one of them, without a `blocked` key.
        let ls = ToolCall::new("Bash", json!({"command": "ls"}));
        let _ = turn.run_tool(ls, |_| Ok(json!("a.txt")));
        assert_eq!(audit.calls(), usize::from(fired) + 1, "{case}");
        assert!(audit.last_payload().get("blocked").is_none(), "{case}");
    }
}

/// A required hook whose program cannot be started blocks its point even under `on_error:
/// pass`, naming the hook; a hook that ran and failed follows its `on_error`, required or not.
#[test]
fn a_required_external_hook_that_cannot_run_blocks_under_on_error_pass() {
    let missing = |required| ExternalHook {
        transport: Transport::Command(CommandSpec {
            argv: vec!["./hooks/no-such-guard.sh".to_owned()],
            display: "./hooks/no-such-guard.sh".to_owned(),
            env: BTreeMap::new(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        }),
        on_error: OnError::Pass,
        required,
        name: "no-force-push".to_owned(),
        ..hook("intercept_tool_call", "PreToolUse")
    };
    let hooks = HooksBuilder::new().external(missing(true)).build().unwrap();
    assert!(hooks.hooks()[0].required);
    let outcome = turn(&hooks, "required-missing").fire::<InterceptToolCall>(rm_call());
    let blocked = outcome
        .flow
        .clone()
        .blocked()
        .expect("a required hook must block");
    assert!(blocked.failed);
    assert!(
        blocked
            .reason
            .starts_with("required hook `no-force-push` (")
            && blocked
                .reason
                .contains("did not run: external hook `no-force-push`")
            && blocked
                .reason
                .contains("cannot start `./hooks/no-such-guard.sh`"),
        "{}",
        blocked.reason
    );
    // Not required: it fails under `on_error: pass`, as before.
    let hooks = HooksBuilder::new()
        .external(missing(false))
        .build()
        .unwrap();
    let outcome = turn(&hooks, "optional-missing").fire::<InterceptToolCall>(rm_call());
    assert_eq!(continued_args(&outcome), rm_call().args);
    // A required hook that ran and failed (exit 1, no verdict) follows its `on_error: pass`.
    let hooks = HooksBuilder::new()
        .external(ExternalHook {
            required: true,
            ..shell_hook("cat >/dev/null; echo broken >&2; exit 1", OnError::Pass)
        })
        .build()
        .unwrap();
    let outcome = turn(&hooks, "required-ran").fire::<InterceptToolCall>(rm_call());
    assert!(!outcome.is_blocked(), "{outcome:?}");
}

// ---------------------------------------------------------------------------------------------
// Events that name some firings of a point, and the points only the agent knows the moment of.

/// Starchild's and docker-agent's `on_error` fires for errors only, `on_max_iterations` for the
/// iteration cap only, docker-agent's `on_user_input` when the agent waits for the user; a
/// `notification` hook sees them all. They fired on every notification.
#[test]
fn on_error_on_max_iterations_and_on_user_input_fire_for_their_notifications_only() {
    let fakes: Vec<(&str, Dialect, Arc<Fake>)> = [
        ("on_error", Dialect::Starchild),
        ("on_max_iterations", Dialect::DockerAgent),
        ("on_user_input", Dialect::DockerAgent),
        ("notification", Dialect::DockerAgent),
    ]
    .into_iter()
    .map(|(event, dialect)| (event, dialect, Fake::stdout("")))
    .collect();
    let mut builder = HooksBuilder::new();
    for (event, dialect, fake) in &fakes {
        builder = builder.external_with(
            ExternalHook {
                name: (*event).to_owned(),
                dialect: *dialect,
                ..hook("notification", event)
            },
            fake.clone(),
        );
    }
    let hooks = builder.build().unwrap();
    let turn = turn(&hooks, "notifications");
    let calls = || fakes.iter().map(|(_, _, f)| f.calls()).collect::<Vec<_>>();

    turn.notify(Notification::new(Level::Warning, "a hook failed"));
    assert_eq!(calls(), [0, 0, 0, 1]);
    turn.notify(Notification::error("the model call failed"));
    assert_eq!(calls(), [1, 0, 0, 2]);
    assert_eq!(fakes[0].2.last_payload()["event"], "on_error");
    turn.max_iterations_reached(30);
    assert_eq!(calls(), [1, 1, 0, 3]);
    let payload = fakes[1].2.last_payload();
    assert_eq!(payload["hook_event_name"], "on_max_iterations");
    assert_eq!(payload["kind"], "max_iterations");
    assert_eq!(payload["notification_level"], "warning");
    turn.waiting_for_user("which branch?");
    assert_eq!(calls(), [1, 1, 1, 4]);
    assert_eq!(
        fakes[2].2.last_payload()["notification_message"],
        "which branch?"
    );
}

/// Claude Code's `Notification` matchers filter on `notification_type`: waiting for the user
/// is `idle_prompt`.
#[test]
fn claude_code_notification_matchers_see_idle_prompt() {
    let fake = Fake::stdout("");
    let hooks = registry(
        ExternalHook {
            dialect: Dialect::ClaudeCode,
            matcher: Matcher::parse(Dialect::ClaudeCode, "idle_prompt").unwrap(),
            ..hook("notification", "Notification")
        },
        &fake,
    );
    let turn = turn(&hooks, "idle");
    turn.notify(Notification::error("boom"));
    assert_eq!(fake.calls(), 0);
    turn.waiting_for_user("Claude is waiting for your input");
    assert_eq!(fake.calls(), 1);
    assert_eq!(fake.last_payload()["notification_type"], "idle_prompt");
}

/// Claude Code's `SubagentStart` fires for a child agent's session only, with the child's id
/// as `agent_id`; its context goes into the child's session. It was left out of the file.
#[test]
fn claude_code_subagent_start_fires_for_child_sessions_with_their_context() {
    let fake = Fake::json(json!({"hookSpecificOutput": {
        "hookEventName": "SubagentStart",
        "additionalContext": "follow the repository's style guide",
    }}));
    let hooks = registry(
        ExternalHook {
            dialect: Dialect::ClaudeCode,
            ..hook("session_start", "SubagentStart")
        },
        &fake,
    );
    let parent = hooks.session("parent");
    assert_eq!(fake.calls(), 0, "not for the main session");
    assert!(parent.context().is_empty());
    let child = parent.child("child-1");
    assert_eq!(fake.calls(), 1);
    let payload = fake.last_payload();
    assert_eq!(payload["hook_event_name"], "SubagentStart");
    assert_eq!(payload["agent_id"], "child-1");
    assert_eq!(child.context(), ["follow the repository's style guide"]);
    child.end("done");
    parent.end("done");
}

/// Claude Code's `PermissionDenied` fires for a refused call only, with the reason; its
/// `retry: true` tells the model it may retry.
#[test]
fn claude_code_permission_denied_fires_for_refused_calls_and_retry_reaches_the_model() {
    let fake = Fake::json(json!({"hookSpecificOutput": {
        "hookEventName": "PermissionDenied",
        "retry": true,
    }}));
    let hooks = HooksBuilder::new()
        .hook(
            InterceptToolCall,
            0,
            |call: &ToolCall, _: &HookContext| match call.name.as_str() {
                "Bash" => HookResult::block("rm is not allowed"),
                _ => HookResult::Pass,
            },
        )
        .external_with(
            ExternalHook {
                dialect: Dialect::ClaudeCode,
                ..hook("after_tool_call", "PermissionDenied")
            },
            fake.clone(),
        )
        .build()
        .unwrap();
    let turn = turn(&hooks, "denied");
    let run = turn.run_tool(ToolCall::new("Read", json!({"path": "a"})), |_| {
        Ok(json!("text"))
    });
    assert!(run.ran);
    assert_eq!(fake.calls(), 0, "not for a call that ran");
    let run = turn.run_tool(rm_call(), |_| Ok(json!("ran")));
    assert!(!run.ran);
    assert_eq!(fake.calls(), 1);
    let payload = fake.last_payload();
    assert_eq!(payload["hook_event_name"], "PermissionDenied");
    assert_eq!(payload["reason"], "rm is not allowed");
    assert_eq!(payload["tool_use_id"], "toolu_1");
    assert_eq!(
        turn.take_context(),
        ["The call of `Bash` was denied, but you may retry it."]
    );
}

fn permission(fake: &Arc<Fake>, dialect: Dialect, event: &str) -> Flow<PermissionAsk> {
    let hooks = registry(
        ExternalHook {
            dialect,
            ..hook("permission_request", event)
        },
        fake,
    );
    turn(&hooks, "permission").permission_request(PermissionAsk::new(&rm_call()))
}

/// Claude Code's `PermissionRequest` and docker-agent's `permission_request`: allow grants the
/// call (with Claude Code's `updatedInput`), deny refuses it with the message, ask or nothing
/// leaves it to the user. Both events were left out of their files.
#[test]
fn permission_request_allows_denies_or_leaves_it_to_the_user() {
    let allow = Fake::json(json!({"hookSpecificOutput": {
        "hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedInput": {"command": "rm -rf ./build"}},
    }}));
    let ask = permission(&allow, Dialect::ClaudeCode, "PermissionRequest")
        .continued()
        .unwrap();
    assert!(ask.allowed);
    assert_eq!(ask.tool_input, json!({"command": "rm -rf ./build"}));
    let payload = allow.last_payload();
    assert_eq!(payload["hook_event_name"], "PermissionRequest");
    assert_eq!(payload["tool_name"], "Bash");

    let deny = Fake::json(json!({"hookSpecificOutput": {
        "hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "message": "not on this machine"},
    }}));
    let blocked = permission(&deny, Dialect::ClaudeCode, "PermissionRequest")
        .blocked()
        .unwrap();
    assert_eq!(blocked.reason, "not on this machine");

    let docker_allow =
        Fake::json(json!({"hook_specific_output": {"permission_decision": "allow"}}));
    let ask = permission(&docker_allow, Dialect::DockerAgent, "permission_request")
        .continued()
        .unwrap();
    assert!(ask.allowed);
    assert_eq!(ask.tool_input, rm_call().args);

    for answer in [
        json!({"hook_specific_output": {"permission_decision": "ask"}}),
        json!({}),
    ] {
        let ask = permission(
            &Fake::json(answer),
            Dialect::DockerAgent,
            "permission_request",
        )
        .continued()
        .unwrap();
        assert!(!ask.allowed, "the user is asked");
    }

    // A PermissionRequest matcher filters on the tool, as PreToolUse's does.
    let fake = Fake::json(json!({"hookSpecificOutput": {"decision": {"behavior": "deny"}}}));
    let hooks = registry(
        ExternalHook {
            dialect: Dialect::ClaudeCode,
            matcher: Matcher::parse(Dialect::ClaudeCode, "Edit|Write").unwrap(),
            ..hook("permission_request", "PermissionRequest")
        },
        &fake,
    );
    let flow = turn(&hooks, "matcher").permission_request(PermissionAsk::new(&rm_call()));
    assert!(!flow.is_blocked());
    assert_eq!(fake.calls(), 0);
}

/// docker-agent's `turn_start` fires once per turn with the prompt, and its context (plain
/// stdout too, as docker-agent reads it there) is the turn's. It fired on every model call, as
/// `before_llm_call`.
#[test]
fn docker_agent_turn_start_context_is_for_the_turn() {
    let fake = Fake::stdout("today is a release day");
    let hooks = registry(
        ExternalHook {
            dialect: Dialect::DockerAgent,
            ..hook("turn_start", "turn_start")
        },
        &fake,
    );
    let turn = turn(&hooks, "turn-start");
    let start = turn.turn_start("ship it").continued().unwrap();
    assert_eq!(start.context, ["today is a release day"]);
    let payload = fake.last_payload();
    assert_eq!(payload["hook_event_name"], "turn_start");
    assert_eq!(payload["prompt"], "ship it");
    // Not a before_llm_call hook any more.
    let _ = turn.before_llm_call(LlmCall::default());
    assert_eq!(fake.calls(), 1);
}

/// Claude Code's `PostToolBatch` gets every call of the batch; its context is for the next
/// model call, and its block stops the turn before it.
#[test]
fn claude_code_post_tool_batch_sees_the_batch_and_may_stop_it() {
    let context = Fake::json(json!({"hookSpecificOutput": {
        "hookEventName": "PostToolBatch",
        "additionalContext": "both files changed: run the tests",
    }}));
    let hooks = registry(
        ExternalHook {
            dialect: Dialect::ClaudeCode,
            ..hook("after_tool_batch", "PostToolBatch")
        },
        &context,
    );
    let batch_turn = turn(&hooks, "batch");
    let results = vec![
        ToolResult::new(
            &ToolCall::new("Edit", json!({"file": "a"})).with_id("t1"),
            Ok(json!("ok")),
        ),
        ToolResult::new(
            &ToolCall::new("Edit", json!({"file": "b"})).with_id("t2"),
            Err("denied".into()),
        ),
    ];
    let batch = batch_turn.after_tool_batch(results).continued().unwrap();
    assert_eq!(batch.context, ["both files changed: run the tests"]);
    let payload = context.last_payload();
    assert_eq!(payload["hook_event_name"], "PostToolBatch");
    let calls = payload["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1]["tool_use_id"], "t2");
    assert_eq!(calls[1]["is_error"], true);

    let block = Fake::json(json!({"decision": "block", "reason": "too many edits at once"}));
    let hooks = registry(
        ExternalHook {
            dialect: Dialect::ClaudeCode,
            ..hook("after_tool_batch", "PostToolBatch")
        },
        &block,
    );
    let blocked = turn(&hooks, "batch-block")
        .after_tool_batch(Vec::new())
        .blocked()
        .unwrap();
    assert_eq!(blocked.reason, "too many edits at once");
}
