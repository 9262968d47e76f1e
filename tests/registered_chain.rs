//! The chain rules, through `#[register_hook]` fns collected at link time into
//! `Hooks::global()`.
//!
//! This file is one test program: the hooks below are all the hooks its `Hooks::global()` has,
//! and every test dispatches through the same chains, in parallel threads. So each test uses a
//! session of its own, hooks record what they do per session (`cx.session_id()`), and a hook that
//! rewrites, blocks or fails does so only for the tool names (or texts) one test reserves.
//!
//! The `intercept_tool_call` chain, in the order it runs:
//!
//! | priority | hook | does |
//! |---|---|---|
//! | -100 | `first_seen` | tool `meta`: metadata `risk = "high"` and context for the model |
//! | -10 | `sandbox_paths` | a relative `path` arg becomes `/sandbox/<path>` |
//! | 0 | `alpha_tie`, `tie::middle_tie`, `zeta_tie`, `tie::named_last` | ties, ordered by name |
//! | 10 | `mark_readonly` | tool `read_file`: adds `readonly: true` |
//! | 15 | `async_review` (async) | `deploy`: blocks; `async_edit`: rewrites; `async_panic`: panics |
//! | 16 | `async_guard` (async, `on_error = "block"`) | `async_err`: returns `Err` |
//! | 20 | `deny_rm` | tool `rm`: blocks |
//! | 30 | `fail_open` (`on_error = "pass"`) | `panic_open`: panics; `err_open`: returns `Err` |
//! | 31 | `fail_closed` (`on_error = "block"`) | `panic_closed`: panics; `err_closed`: `Err` |
//! | 40 | `reads_metadata` | `risk == "high"`: a warning and metadata `reviewed = true` |
//! | 100 | `last_seen` | records the args it saw |
//!
//! `before_llm_call` has two hooks registered under one name (the global registry keeps both);
//! `send_email` and `deploy` are points of this file's own, `deploy` failing closed by default.

use std::collections::HashMap;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::LazyLock;
use std::task::{Context, Poll};

use hookchain::points::TurnEndEvent;
use hookchain::points::{BeforeLlmCall, InterceptToolCall, TransformUserInput};
use hookchain::registry::HookSource;
use hookchain::{HookContext, points::Message, prelude::*};
use hookchain::{OnError, Outcome};
use parking_lot::Mutex;

// ---------------------------------------------------------------------------------------------
// What the hooks record, per session.

/// A map from session id to what happened in it, shared by the test threads.
type PerSession<T> = LazyLock<Mutex<HashMap<String, T>>>;

/// The hooks that ran, in order, per session.
static LOG: PerSession<Vec<&'static str>> = LazyLock::new(Default::default);

/// What a hook saw, per session and hook.
static SEEN: PerSession<HashMap<&'static str, Value>> = LazyLock::new(Default::default);

/// The `turn_end` events, per session: (turn index, reason).
static ENDS: PerSession<Vec<(u64, TurnEnd)>> = LazyLock::new(Default::default);

fn log(cx: &HookContext, hook: &'static str) {
    LOG.lock()
        .entry(cx.session_id().to_owned())
        .or_default()
        .push(hook);
}

/// Takes the log of a session.
fn take_log(session: &str) -> Vec<&'static str> {
    LOG.lock().remove(session).unwrap_or_default()
}

fn saw(cx: &HookContext, hook: &'static str, value: impl Into<Value>) {
    SEEN.lock()
        .entry(cx.session_id().to_owned())
        .or_default()
        .insert(hook, value.into());
}

fn seen(session: &str, hook: &str) -> Option<Value> {
    SEEN.lock().get(session)?.get(hook).cloned()
}

fn ends(session: &str) -> Vec<(u64, TurnEnd)> {
    ENDS.lock().get(session).cloned().unwrap_or_default()
}

/// Every `intercept_tool_call` hook, in chain order, as it logs itself.
const ALL: [&str; 14] = [
    "first_seen",
    "sandbox_paths",
    "alpha_tie",
    "middle_tie",
    "zeta_tie",
    "named_last",
    "mark_readonly",
    "async_review",
    "async_guard",
    "deny_rm",
    "fail_open",
    "fail_closed",
    "reads_metadata",
    "last_seen",
];

/// The hooks of [`ALL`] up to and including `last`.
fn up_to(last: &str) -> Vec<&'static str> {
    let end = ALL.iter().position(|h| *h == last).unwrap();
    ALL[..=end].to_vec()
}

// ---------------------------------------------------------------------------------------------
// The `intercept_tool_call` chain. The ties at priority 0 are deliberately declared in an order
// that is neither their chain order nor its reverse.

#[register_hook("intercept_tool_call", priority = -100)]
fn first_seen(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "first_seen");
    if call.name == "meta" {
        cx.set_metadata("risk", "high");
        cx.add_context("meta is a high-risk tool: explain why you call it");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 0)]
fn zeta_tie(_: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "zeta_tie");
    HookResult::Pass
}

/// Sorts first by its fn name, last by the name it is registered under.
#[register_hook("intercept_tool_call", name = "tie::named_last")]
fn aardvark_tie(_: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "named_last");
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 0)]
fn alpha_tie(_: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "alpha_tie");
    HookResult::Pass
}

mod tie {
    use hookchain::{HookContext, prelude::*};

    #[register_hook("intercept_tool_call")]
    pub(crate) fn middle_tie(_: &ToolCall, cx: &HookContext) -> HookResult<Value> {
        super::log(cx, "middle_tie");
        HookResult::Pass
    }
}

#[register_hook("intercept_tool_call", priority = -10)]
fn sandbox_paths(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "sandbox_paths");
    match call.str_arg("path") {
        Some(path) if !path.starts_with('/') => {
            let mut args = call.args.clone();
            args["path"] = json!(format!("/sandbox/{path}"));
            HookResult::Rewrite(args)
        }
        _ => HookResult::Pass,
    }
}

#[register_hook("intercept_tool_call", priority = 10)]
fn mark_readonly(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "mark_readonly");
    if call.name != "read_file" {
        return HookResult::Pass;
    }
    saw(cx, "mark_readonly", call.args.clone());
    let mut args = call.args.clone();
    args["readonly"] = json!(true);
    HookResult::Rewrite(args)
}

/// Pending once, then ready: an `.await` that really suspends the hook.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, task: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            task.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

#[register_hook("intercept_tool_call", priority = 15)]
async fn async_review(call: &ToolCall, cx: &HookContext<'_>) -> HookResult<Value> {
    YieldOnce(false).await;
    log(cx, "async_review");
    match call.name.as_str() {
        "deploy" => HookResult::block("deploys are frozen"),
        "async_edit" => {
            saw(cx, "async_review", call.args.clone());
            let mut args = call.args.clone();
            args["reviewed_async"] = json!(true);
            HookResult::Rewrite(args)
        }
        "async_panic" => panic!("async_review panicked on purpose"),
        _ => HookResult::Pass,
    }
}

#[register_hook("intercept_tool_call", priority = 16, on_error = "block")]
async fn async_guard(call: &ToolCall, cx: &HookContext<'_>) -> Result<HookResult<Value>, String> {
    YieldOnce(false).await;
    log(cx, "async_guard");
    if call.name == "async_err" {
        return Err("async guard unavailable".to_owned());
    }
    Ok(HookResult::Pass)
}

#[register_hook("intercept_tool_call", priority = 20)]
fn deny_rm(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "deny_rm");
    if call.name == "rm" {
        return HookResult::block("rm is not allowed");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 30, on_error = "pass")]
fn fail_open(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, String> {
    log(cx, "fail_open");
    match call.name.as_str() {
        "panic_open" => panic!("fail_open panicked on purpose"),
        "err_open" => Err("policy server unreachable".to_owned()),
        _ => Ok(HookResult::Pass),
    }
}

#[register_hook("intercept_tool_call", priority = 31, on_error = "block")]
fn fail_closed(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, String> {
    log(cx, "fail_closed");
    match call.name.as_str() {
        "panic_closed" => panic!("fail_closed panicked on purpose"),
        "err_closed" => Err("guard config missing".to_owned()),
        _ => Ok(HookResult::Pass),
    }
}

#[register_hook("intercept_tool_call", priority = 40)]
fn reads_metadata(_: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "reads_metadata");
    if cx.get_metadata("risk") == Some(json!("high")) {
        cx.warn("a high-risk tool call is about to run");
        cx.set_metadata("reviewed", true);
        cx.set_metadata("reviewed_by", cx.hook_name());
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 100)]
fn last_seen(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    log(cx, "last_seen");
    saw(cx, "last_seen", call.args.clone());
    HookResult::Pass
}

// ---------------------------------------------------------------------------------------------
// `transform_user_input` and `before_llm_call`.

#[register_hook("transform_user_input")]
fn expand_plan_command(text: &str) -> HookResult<String> {
    if let Some(rest) = text.strip_prefix("/plan ") {
        HookResult::Rewrite(format!("Write a plan first: {rest}"))
    } else if text.contains("password") {
        HookResult::block("Please do not paste secrets here.")
    } else {
        HookResult::Pass
    }
}

#[register_hook("transform_user_input", priority = 10)]
fn note_user_text(text: &str, cx: &HookContext) -> HookResult<String> {
    saw(cx, "note_user_text", text);
    if text.starts_with("Write a plan first:") {
        cx.set_metadata("plan_requested", true);
    }
    HookResult::Pass
}

const LLM_BASE: &str = "registered_chain base prompt";

#[register_hook("before_llm_call", priority = 1)]
fn inject_reminder(call: &LlmCall) -> HookResult<Injection> {
    if !call.system_prompt.starts_with(LLM_BASE) {
        return HookResult::Pass;
    }
    assert!(
        call.system_prompt.ends_with("Plan before you implement."),
        "sees the earlier injection: {}",
        call.system_prompt
    );
    HookResult::inject_user("Remember the plan.")
}

#[register_hook("before_llm_call")]
fn inject_rules(call: &LlmCall) -> HookResult<Injection> {
    if call.system_prompt == LLM_BASE {
        HookResult::inject_system("Plan before you implement.")
    } else {
        HookResult::Pass
    }
}

const DUP_PROMPT: &str = "registered_chain duplicates";

/// Registered under the same name as [`duplicate_two`]; declared first.
#[register_hook("before_llm_call", priority = 50, name = "registered_chain::duplicate")]
fn duplicate_one(call: &LlmCall) -> HookResult<Injection> {
    if call.system_prompt.starts_with(DUP_PROMPT) {
        HookResult::inject_system("one")
    } else {
        HookResult::Pass
    }
}

/// Registered under the same name as [`duplicate_one`]; declared second.
#[register_hook("before_llm_call", priority = 50, name = "registered_chain::duplicate")]
fn duplicate_two(call: &LlmCall) -> HookResult<Injection> {
    if call.system_prompt.starts_with(DUP_PROMPT) {
        HookResult::inject_system("two")
    } else {
        HookResult::Pass
    }
}

// ---------------------------------------------------------------------------------------------
// A point of this file's own: fired before the agent sends an e-mail.

/// Fired before the agent sends an e-mail; hooks may rewrite the body or block the send.
struct SendEmail;

/// An e-mail about to be sent.
#[derive(Debug, Clone, PartialEq)]
struct Email {
    to: String,
    body: String,
}

impl HookPoint for SendEmail {
    const NAME: &'static str = "send_email";
    const KIND: PointKind = PointKind::Transform;
    type Value = Email;
    type Input = Email;
    type Rewrite = String;
    fn input(value: &Email) -> &Email {
        value
    }
    fn apply(value: &mut Email, body: String) {
        value.body = body;
    }
}

#[register_hook(SendEmail, priority = 1)]
fn sign_email(email: &Email) -> HookResult<String> {
    HookResult::Rewrite(format!("{}\n-- sent by an agent", email.body))
}

#[register_hook(SendEmail)]
fn no_external_email(email: &Email, cx: &HookContext) -> HookResult<String> {
    cx.set_metadata("checked_by", cx.hook_name());
    if email.to.ends_with("@example.com") {
        HookResult::Pass
    } else {
        HookResult::block("e-mail leaves the company only after review")
    }
}

/// A point of this file's own whose hooks fail closed unless they say otherwise.
struct Deploy;

impl HookPoint for Deploy {
    const NAME: &'static str = "deploy";
    const KIND: PointKind = PointKind::Transform;
    const DEFAULT_ON_ERROR: OnError = OnError::Block;
    type Value = String;
    type Input = str;
    type Rewrite = String;
    fn input(target: &String) -> &str {
        target
    }
    fn apply(target: &mut String, rewrite: String) {
        *target = rewrite;
    }
}

/// Declares no `on_error`, so it runs under `Deploy::DEFAULT_ON_ERROR`.
#[register_hook(Deploy)]
fn check_target(target: &str) -> Result<HookResult<String>, String> {
    if target == "unknown" {
        return Err(format!("no such target: {target}"));
    }
    Ok(HookResult::Pass)
}

// ---------------------------------------------------------------------------------------------
// `turn_end` observers.

#[register_hook("turn_end")]
fn record_turn_end(event: &TurnEndEvent, cx: &HookContext) {
    assert_eq!(event.session_id, cx.session_id());
    assert_eq!(event.turn, cx.turn());
    ENDS.lock()
        .entry(event.session_id.clone())
        .or_default()
        .push((event.turn, event.reason.clone()));
}

/// Runs before [`record_turn_end`], and panics in sessions whose id ends in `observer-panics`.
#[register_hook("turn_end", priority = -1)]
fn panicking_observer(event: &TurnEndEvent) {
    if event.session_id.ends_with("observer-panics") {
        panic!("panicking_observer panicked on purpose");
    }
}

// ---------------------------------------------------------------------------------------------
// The tests.

fn names(point: &str) -> Vec<String> {
    Hooks::global()
        .chain_of(point)
        .iter()
        .map(|h| h.name.to_string())
        .collect()
}

/// Rule 0: ascending priority, ties by name, whatever the order in the source (and whatever
/// order the link-time backend collected them in).
#[test]
fn chain_order_is_priority_then_name_whatever_the_source_order() {
    let session = Hooks::global().session("order");
    let turn = session.begin_turn();
    let call = ToolCall::new("ls", json!({"all": true}));
    let outcome = turn.fire::<InterceptToolCall>(call.clone());
    assert_eq!(outcome.flow, Flow::Continue(call));
    assert!(outcome.rewritten_by.is_empty());
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(take_log("order"), ALL);

    assert_eq!(
        names("intercept_tool_call"),
        [
            "registered_chain::first_seen",
            "registered_chain::sandbox_paths",
            "registered_chain::alpha_tie",
            "registered_chain::tie::middle_tie",
            "registered_chain::zeta_tie",
            "tie::named_last",
            "registered_chain::mark_readonly",
            "registered_chain::async_review",
            "registered_chain::async_guard",
            "registered_chain::deny_rm",
            "registered_chain::fail_open",
            "registered_chain::fail_closed",
            "registered_chain::reads_metadata",
            "registered_chain::last_seen",
        ]
    );
    let chain = Hooks::global().chain_of("intercept_tool_call");
    let priorities: Vec<i32> = chain.iter().map(|h| h.priority).collect();
    assert_eq!(
        priorities,
        [-100, -10, 0, 0, 0, 0, 10, 15, 16, 20, 30, 31, 40, 100]
    );
    // The ties are not in source order: zeta_tie is declared before alpha_tie, and the hook
    // named last is declared second.
    let line = |name: &str| chain.iter().find(|h| &*h.name == name).unwrap().line;
    assert!(line("registered_chain::zeta_tie") < line("tie::named_last"));
    assert!(line("tie::named_last") < line("registered_chain::alpha_tie"));
    assert!(line("registered_chain::alpha_tie") < line("registered_chain::tie::middle_tie"));

    assert_eq!(
        names("transform_user_input"),
        [
            "registered_chain::expand_plan_command",
            "registered_chain::note_user_text"
        ]
    );
    assert_eq!(
        names("before_llm_call"),
        [
            "registered_chain::inject_rules",
            "registered_chain::inject_reminder",
            "registered_chain::duplicate",
            "registered_chain::duplicate"
        ]
    );
    assert_eq!(
        names("send_email"),
        [
            "registered_chain::no_external_email",
            "registered_chain::sign_email"
        ]
    );
    assert_eq!(
        names("turn_end"),
        [
            "registered_chain::panicking_observer",
            "registered_chain::record_turn_end"
        ]
    );
    turn.end(TurnEnd::Normal);
}

/// Rule 1 and 2: a rewrite is what later hooks see, and the caller gets the final value and the
/// names of the hooks that rewrote it, in chain order.
#[test]
fn a_rewrite_is_seen_downstream_and_returned_with_the_hooks_that_made_it() {
    let session = Hooks::global().session("rewrite");
    let turn = session.begin_turn();
    let call = ToolCall::new("read_file", json!({"path": "src/lib.rs"})).with_id("call-1");
    let outcome = turn.fire::<InterceptToolCall>(call);
    assert_eq!(
        outcome.rewritten_by,
        [
            "registered_chain::sandbox_paths",
            "registered_chain::mark_readonly"
        ]
    );
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    let Flow::Continue(call) = outcome.flow else {
        panic!("not blocked: {:?}", outcome.flow)
    };
    assert_eq!(
        call.args,
        json!({"path": "/sandbox/src/lib.rs", "readonly": true})
    );
    assert_eq!(call.name, "read_file", "a rewrite carries args only");
    assert_eq!(call.id.as_deref(), Some("call-1"));
    assert_eq!(
        seen("rewrite", "mark_readonly"),
        Some(json!({"path": "/sandbox/src/lib.rs"})),
        "mark_readonly saw sandbox_paths' rewrite"
    );
    assert_eq!(
        seen("rewrite", "last_seen"),
        Some(json!({"path": "/sandbox/src/lib.rs", "readonly": true}))
    );
    assert_eq!(take_log("rewrite"), ALL);

    // Through the point's own method: the same final call, and an absolute path is left alone.
    let flow = turn.intercept_tool_call(ToolCall::new("write_file", json!({"path": "notes.md"})));
    assert_eq!(
        flow.continued().unwrap().args,
        json!({"path": "/sandbox/notes.md"})
    );
    let untouched = ToolCall::new("write_file", json!({"path": "/tmp/notes.md"}));
    let outcome = turn.fire::<InterceptToolCall>(untouched.clone());
    assert!(outcome.rewritten_by.is_empty());
    assert_eq!(outcome.flow, Flow::Continue(untouched));
    turn.end(TurnEnd::Normal);
}

/// Rule 3: a block stops the chain at once and names the hook that blocked.
#[test]
fn a_block_stops_later_hooks_and_names_the_hook() {
    let session = Hooks::global().session("block");
    let turn = session.begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("rm", json!({"path": "src"})));
    let Flow::Blocked(blocked) = &outcome.flow else {
        panic!("expected a block: {:?}", outcome.flow)
    };
    assert_eq!(blocked.reason, "rm is not allowed");
    assert_eq!(blocked.hook, "registered_chain::deny_rm");
    assert!(!blocked.failed);
    assert!(outcome.failures.is_empty());
    assert_eq!(
        outcome.rewritten_by,
        ["registered_chain::sandbox_paths"],
        "the rewrite before the block is still reported"
    );
    assert_eq!(take_log("block"), up_to("deny_rm"), "later hooks never ran");
    assert_eq!(seen("block", "last_seen"), None);

    let blocked = turn
        .intercept_tool_call(ToolCall::new("rm", json!({})))
        .blocked()
        .unwrap();
    assert_eq!(blocked.hook, "registered_chain::deny_rm");
    assert_eq!(take_log("block"), up_to("deny_rm"));
    turn.end(TurnEnd::Blocked);
}

/// Rule 4: metadata attached by one hook is read by a later one of the same dispatch and comes
/// back with the outcome, with the context and warnings hooks added.
#[test]
fn metadata_attached_early_is_read_later_and_returned() {
    let session = Hooks::global().session("metadata");
    let turn = session.begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("meta", json!({})));
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.metadata.get("risk"), Some(&json!("high")));
    assert_eq!(outcome.metadata.get("reviewed"), Some(&json!(true)));
    assert_eq!(
        outcome.metadata.get("reviewed_by"),
        Some(&json!("registered_chain::reads_metadata")),
        "cx.hook_name() is the registered name"
    );
    assert_eq!(
        outcome.context,
        ["meta is a high-risk tool: explain why you call it"]
    );
    assert_eq!(outcome.warnings, ["a high-risk tool call is about to run"]);
    assert_eq!(
        turn.take_warnings(),
        ["a high-risk tool call is about to run"]
    );

    // Metadata belongs to one dispatch: the next one starts without it.
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("ls", json!({})));
    assert!(outcome.metadata.is_empty(), "{:?}", outcome.metadata);
    assert!(outcome.warnings.is_empty());
    turn.end(TurnEnd::Normal);
}

/// Rule 5, fail open: a hook that panics or returns `Err` under `on_error = "pass"` is
/// recorded, and the chain goes on with the value as it was.
#[test]
fn a_failing_hook_under_on_error_pass_is_recorded_and_the_chain_goes_on() {
    for (tool, panicked, error) in [
        ("panic_open", true, "fail_open panicked on purpose"),
        ("err_open", false, "policy server unreachable"),
    ] {
        let id = format!("fail-open-{tool}");
        let session = Hooks::global().session(id.clone());
        let turn = session.begin_turn();
        let call = ToolCall::new(tool, json!({"n": 1}));
        let outcome = turn.fire::<InterceptToolCall>(call.clone());
        assert_eq!(outcome.flow, Flow::Continue(call), "{tool}");
        assert_eq!(take_log(&id), ALL, "{tool}: every hook ran");
        assert_eq!(outcome.failures.len(), 1, "{tool}: {:?}", outcome.failures);
        let failure = &outcome.failures[0];
        assert_eq!(failure.hook, "registered_chain::fail_open");
        assert_eq!(failure.panicked, panicked, "{tool}");
        assert_eq!(failure.on_error, OnError::Pass);
        assert_eq!(failure.error, error);
        turn.end(TurnEnd::Normal);
    }
}

/// Rule 5, fail closed: under `on_error = "block"` a panic or `Err` blocks, marked as a failure,
/// with a reason naming the hook.
#[test]
fn a_failing_hook_under_on_error_block_blocks_and_names_it() {
    for (tool, how, error) in [
        (
            "panic_closed",
            "panicked",
            "fail_closed panicked on purpose",
        ),
        ("err_closed", "failed", "guard config missing"),
    ] {
        let id = format!("fail-closed-{tool}");
        let session = Hooks::global().session(id.clone());
        let turn = session.begin_turn();
        let outcome = turn.fire::<InterceptToolCall>(ToolCall::new(tool, json!({})));
        let Flow::Blocked(blocked) = &outcome.flow else {
            panic!("{tool} must block: {:?}", outcome.flow)
        };
        assert_eq!(blocked.hook, "registered_chain::fail_closed");
        assert!(blocked.failed, "{tool}");
        for part in ["hook `registered_chain::fail_closed`", how, error] {
            assert!(blocked.reason.contains(part), "{part:?} not in {blocked}");
        }
        assert_eq!(
            take_log(&id),
            up_to("fail_closed"),
            "{tool}: later hooks never ran"
        );
        assert_eq!(outcome.failures.len(), 1);
        assert_eq!(outcome.failures[0].on_error, OnError::Block);
        assert_eq!(outcome.failures[0].panicked, how == "panicked");
        turn.end(TurnEnd::Blocked);
    }
}

/// The outcomes of the mixed sync/async chain, fired by `fire` or `fire_async`.
struct Mixed {
    edit: Outcome<ToolCall>,
    /// The args `async_review` and `last_seen` saw in the edit dispatch.
    edit_seen: [Option<Value>; 2],
    deploy: Outcome<ToolCall>,
    panic: Outcome<ToolCall>,
    err: Outcome<ToolCall>,
}

fn edit_call() -> ToolCall {
    ToolCall::new("async_edit", json!({"path": "x.rs"}))
}

fn deploy_call() -> ToolCall {
    ToolCall::new("deploy", json!({"env": "prod"}))
}

fn panic_call() -> ToolCall {
    ToolCall::new("async_panic", json!({}))
}

fn err_call() -> ToolCall {
    ToolCall::new("async_err", json!({}))
}

fn edit_seen(id: &str) -> [Option<Value>; 2] {
    [seen(id, "async_review"), seen(id, "last_seen")]
}

/// What the mixed chain must give, whichever dispatch ran it.
fn check_mixed(id: &str, mixed: Mixed) {
    // A sync rewrite (sandbox_paths) is seen by the async hook, whose own rewrite is seen by a
    // sync hook after it.
    assert_eq!(
        mixed.edit.rewritten_by,
        [
            "registered_chain::sandbox_paths",
            "registered_chain::async_review"
        ]
    );
    let final_args = json!({"path": "/sandbox/x.rs", "reviewed_async": true});
    assert_eq!(
        mixed.edit_seen,
        [
            Some(json!({"path": "/sandbox/x.rs"})),
            Some(final_args.clone())
        ]
    );
    assert_eq!(mixed.edit.flow.continued().unwrap().args, final_args);
    assert!(mixed.edit.failures.is_empty());

    let blocked = mixed.deploy.flow.blocked().unwrap();
    assert_eq!(blocked.hook, "registered_chain::async_review");
    assert_eq!(blocked.reason, "deploys are frozen");
    assert!(!blocked.failed);

    assert_eq!(mixed.panic.flow, Flow::Continue(panic_call()));
    assert_eq!(mixed.panic.failures.len(), 1);
    let failure = &mixed.panic.failures[0];
    assert_eq!(failure.hook, "registered_chain::async_review");
    assert!(failure.panicked);
    assert_eq!(failure.error, "async_review panicked on purpose");
    assert_eq!(failure.on_error, OnError::Pass);

    // An async hook under `on_error = "block"` that returns `Err` blocks, as a failure.
    let blocked = mixed.err.flow.blocked().unwrap();
    assert_eq!(blocked.hook, "registered_chain::async_guard");
    assert!(blocked.failed);
    assert!(
        blocked.reason.contains("async guard unavailable"),
        "{blocked}"
    );
    assert_eq!(mixed.err.failures.len(), 1);
    assert!(!mixed.err.failures[0].panicked);
    assert_eq!(mixed.err.failures[0].on_error, OnError::Block);

    let mut expected = ALL.to_vec();
    expected.extend(up_to("async_review"));
    expected.extend(ALL);
    expected.extend(up_to("async_guard"));
    assert_eq!(
        take_log(id),
        expected,
        "edit: all; deploy: up to async_review; panic: all (the panicking hook logs first); \
         err: up to async_guard"
    );
}

/// An `async fn` hook and sync hooks in one chain, awaited by the async dispatch.
#[tokio::test]
async fn an_async_hook_and_sync_hooks_run_in_one_chain_under_fire_async() {
    let session = Hooks::global().session("mixed-async");
    let turn = session.begin_turn();
    let mixed = Mixed {
        edit: turn.fire_async::<InterceptToolCall>(edit_call()).await,
        edit_seen: edit_seen("mixed-async"),
        deploy: turn.fire_async::<InterceptToolCall>(deploy_call()).await,
        panic: turn.fire_async::<InterceptToolCall>(panic_call()).await,
        err: turn.fire_async::<InterceptToolCall>(err_call()).await,
    };
    check_mixed("mixed-async", mixed);

    // The async dispatch is a `Send` future: it can run on a spawned task.
    let flow = tokio::spawn(async move {
        let flow = turn.intercept_tool_call_async(deploy_call()).await;
        turn.end(TurnEnd::Normal);
        flow
    })
    .await
    .unwrap();
    assert_eq!(
        flow.blocked().unwrap().hook,
        "registered_chain::async_review"
    );
    assert_eq!(take_log("mixed-async"), up_to("async_review"));
}

/// The same chain through the sync dispatch, which drives the async hook on the calling thread.
#[test]
fn the_sync_dispatch_drives_the_async_hook_inline() {
    let session = Hooks::global().session("mixed-sync");
    let turn = session.begin_turn();
    let mixed = Mixed {
        edit: turn.fire::<InterceptToolCall>(edit_call()),
        edit_seen: edit_seen("mixed-sync"),
        deploy: turn.fire::<InterceptToolCall>(deploy_call()),
        panic: turn.fire::<InterceptToolCall>(panic_call()),
        err: turn.fire::<InterceptToolCall>(err_call()),
    };
    check_mixed("mixed-sync", mixed);
    turn.end(TurnEnd::Normal);
}

/// Rule 6: the same hooks and input give the same outcome, on any number of threads at once.
#[test]
fn the_same_input_gives_the_same_outcome_on_many_threads() {
    let inputs = [
        ToolCall::new("read_file", json!({"path": "a.rs"})),
        ToolCall::new("rm", json!({})),
        ToolCall::new("meta", json!({})),
        ToolCall::new("err_open", json!({})),
        ToolCall::new("panic_closed", json!({})),
        ToolCall::new("deploy", json!({})),
    ];
    let session = Hooks::global().session("determinism");
    let turn = session.begin_turn();
    let expected: Vec<Outcome<ToolCall>> = inputs
        .iter()
        .map(|c| turn.fire::<InterceptToolCall>(c.clone()))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..5 {
                    for (call, want) in inputs.iter().zip(&expected) {
                        let got = turn.fire::<InterceptToolCall>(call.clone());
                        assert_eq!(&got, want);
                    }
                }
            });
        }
    });
    take_log("determinism");
    turn.end(TurnEnd::Normal);
}

/// `transform_user_input` through registered hooks: a rewrite, a block with a reply, a pass.
#[test]
fn user_input_is_rewritten_or_blocked_by_registered_hooks() {
    let session = Hooks::global().session("user-input");
    let turn = session.begin_turn();
    assert_eq!(
        turn.transform_user_input("/plan the login page"),
        Flow::Continue("Write a plan first: the login page".to_owned())
    );
    assert_eq!(
        seen("user-input", "note_user_text"),
        Some(json!("Write a plan first: the login page")),
        "the later hook saw the rewrite"
    );
    let outcome = turn.fire::<TransformUserInput>("/plan x".to_owned());
    assert_eq!(
        outcome.rewritten_by,
        ["registered_chain::expand_plan_command"]
    );
    assert_eq!(outcome.metadata.get("plan_requested"), Some(&json!(true)));

    let outcome = turn.fire::<TransformUserInput>("hello".to_owned());
    assert_eq!(outcome.flow, Flow::Continue("hello".to_owned()));
    assert!(outcome.rewritten_by.is_empty());

    let blocked = turn
        .transform_user_input("my password is hunter2")
        .blocked()
        .unwrap();
    assert_eq!(blocked.reason, "Please do not paste secrets here.");
    assert_eq!(blocked.hook, "registered_chain::expand_plan_command");
    assert_eq!(
        seen("user-input", "note_user_text"),
        Some(json!("hello")),
        "the hook after the block never saw the blocked text"
    );
    turn.end(TurnEnd::Normal);
}

/// `before_llm_call` through registered hooks: injections accumulate in chain order.
#[test]
fn llm_call_injections_accumulate_in_chain_order() {
    let session = Hooks::global().session("llm");
    let turn = session.begin_turn();
    let outcome = turn.fire::<BeforeLlmCall>(LlmCall::new(LLM_BASE, vec![Message::user("hi")]));
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(
        outcome.rewritten_by,
        [
            "registered_chain::inject_rules",
            "registered_chain::inject_reminder"
        ]
    );
    let call = outcome.flow.continued().unwrap();
    assert_eq!(
        call.system_prompt,
        format!("{LLM_BASE}\n\nPlan before you implement.")
    );
    assert_eq!(
        call.messages,
        [Message::user("hi"), Message::user("Remember the plan.")]
    );
    let other = LlmCall::new("another prompt", vec![]);
    assert_eq!(turn.before_llm_call(other.clone()), Flow::Continue(other));
    turn.end(TurnEnd::Normal);
}

/// Two registered hooks with one name cannot make `Hooks::global()` fail: both are kept and
/// run, in file:line order.
#[test]
fn hooks_registered_under_one_name_both_run_in_file_and_line_order() {
    let chain = Hooks::global().chain_of("before_llm_call");
    let duplicates: Vec<u32> = chain
        .iter()
        .filter(|h| &*h.name == "registered_chain::duplicate")
        .map(|h| h.line)
        .collect();
    assert_eq!(duplicates.len(), 2, "{chain:?}");
    assert!(duplicates[0] < duplicates[1], "{duplicates:?}");

    let session = Hooks::global().session("duplicates");
    let turn = session.begin_turn();
    let outcome = turn.fire::<BeforeLlmCall>(LlmCall::new(DUP_PROMPT, vec![]));
    assert_eq!(
        outcome.rewritten_by,
        ["registered_chain::duplicate", "registered_chain::duplicate"]
    );
    assert_eq!(
        outcome.flow.continued().unwrap().system_prompt,
        format!("{DUP_PROMPT}\n\none\n\ntwo")
    );
    turn.end(TurnEnd::Normal);
}

/// A user-defined point has the same chain rules, through `turn.fire::<P>` and through
/// `Hooks::dispatch` outside any session.
#[test]
fn a_point_of_the_agents_own_runs_its_registered_hooks() {
    let session = Hooks::global().session("send-email");
    let turn = session.begin_turn();
    let email = Email {
        to: "team@example.com".to_owned(),
        body: "Build is green.".to_owned(),
    };
    let outcome = turn.fire::<SendEmail>(email.clone());
    assert_eq!(outcome.rewritten_by, ["registered_chain::sign_email"]);
    assert_eq!(
        outcome.metadata.get("checked_by"),
        Some(&json!("registered_chain::no_external_email"))
    );
    assert_eq!(
        outcome.flow.continued().unwrap().body,
        "Build is green.\n-- sent by an agent"
    );

    let external = Email {
        to: "someone@elsewhere.org".to_owned(),
        ..email
    };
    let outcome = turn.fire::<SendEmail>(external.clone());
    let blocked = outcome.flow.blocked().unwrap();
    assert_eq!(blocked.hook, "registered_chain::no_external_email");
    assert_eq!(
        blocked.reason,
        "e-mail leaves the company only after review"
    );
    assert!(outcome.rewritten_by.is_empty(), "sign_email never ran");
    turn.end(TurnEnd::Normal);

    let outcome = Hooks::global().dispatch::<SendEmail>(external);
    assert_eq!(
        outcome.flow.blocked().unwrap().hook,
        "registered_chain::no_external_email"
    );
}

/// A hook that declares no `on_error` runs under its point's default: `Deploy` fails closed.
#[test]
fn a_points_default_on_error_applies_to_hooks_that_declare_none() {
    let session = Hooks::global().session("deploy");
    let turn = session.begin_turn();
    let outcome = turn.fire::<Deploy>("unknown".to_owned());
    let blocked = outcome.flow.blocked().unwrap();
    assert_eq!(blocked.hook, "registered_chain::check_target");
    assert!(blocked.failed);
    assert!(
        blocked.reason.contains("no such target: unknown"),
        "{blocked}"
    );
    assert_eq!(outcome.failures[0].on_error, OnError::Block);
    assert_eq!(
        turn.fire::<Deploy>("staging".to_owned()).flow,
        Flow::Continue("staging".to_owned())
    );
    turn.end(TurnEnd::Normal);
}

/// The listing of a registered hook that declares no `on_error` shows the policy it runs under:
/// its point's `DEFAULT_ON_ERROR` (`block` for `deploy`).
#[test]
fn describe_lists_the_on_error_a_registered_hook_runs_under() {
    let _ = Hooks::global().dispatch::<Deploy>("staging".to_owned());
    let chain = Hooks::global().chain_of("deploy");
    assert_eq!(chain.len(), 1);
    assert_eq!(chain[0].on_error, OnError::Block, "{:?}", chain[0]);
    let text = Hooks::global().describe().to_string();
    let row = text
        .lines()
        .find(|l| l.contains("registered_chain::check_target"))
        .unwrap();
    assert_eq!(row.split_whitespace().nth(4), Some("block"), "{row}");
}

/// The listing knows the kind of a user-defined point's hooks.
#[test]
fn hook_info_knows_the_kind_of_a_user_defined_point() {
    let email = Email {
        to: "team@example.com".to_owned(),
        body: String::new(),
    };
    let _ = Hooks::global().dispatch::<SendEmail>(email);
    let kinds: Vec<PointKind> = Hooks::global()
        .chain_of("send_email")
        .iter()
        .map(|h| h.kind)
        .collect();
    assert_eq!(kinds, [PointKind::Transform; 2]);
}

/// `turn_end` fires exactly once per turn ended with `end()`, with the reason given.
#[test]
fn turn_end_fires_once_per_turn_for_end() {
    let session = Hooks::global().session("turn-end-normal");
    let turn = session.begin_turn();
    turn.state().set("plan_ok", true);
    turn.end(TurnEnd::Normal);
    assert_eq!(ends("turn-end-normal"), [(0, TurnEnd::Normal)]);
    assert_eq!(
        get_turn_state("turn-end-normal").get::<bool>("plan_ok"),
        None,
        "the turn's state is cleared"
    );
    session
        .begin_turn()
        .end(TurnEnd::Error("model unreachable".to_owned()));
    session.begin_turn().end(TurnEnd::MaxIterations);
    assert_eq!(
        ends("turn-end-normal"),
        [
            (0, TurnEnd::Normal),
            (1, TurnEnd::Error("model unreachable".to_owned())),
            (2, TurnEnd::MaxIterations)
        ]
    );
}

/// A turn dropped without `end()` (an early return, a `?`) fires `turn_end` once, as canceled.
#[test]
fn turn_end_fires_once_when_the_turn_is_dropped() {
    fn agent_step(session: &Session) -> Result<(), Blocked> {
        let turn = session.begin_turn();
        turn.intercept_tool_call(ToolCall::new("rm", json!({})))
            .into_result()?;
        turn.end(TurnEnd::Normal);
        Ok(())
    }

    let session = Hooks::global().session("turn-end-drop");
    drop(session.begin_turn());
    assert_eq!(ends("turn-end-drop"), [(0, TurnEnd::Canceled)]);
    let blocked = agent_step(&session).unwrap_err();
    assert_eq!(blocked.hook, "registered_chain::deny_rm");
    assert_eq!(
        ends("turn-end-drop"),
        [(0, TurnEnd::Canceled), (1, TurnEnd::Canceled)]
    );
    take_log("turn-end-drop");
}

fn panic_through_a_turn(session: &Session) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let turn = session.begin_turn();
        turn.state().set("plan_ok", true);
        let _ = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
        panic!("the agent panicked on purpose");
    }));
    assert!(result.is_err());
}

/// A panic that unwinds through a turn fires `turn_end` once, as an error.
#[test]
fn turn_end_fires_once_when_a_panic_unwinds_through_the_turn() {
    let session = Hooks::global().session("turn-end-panic");
    panic_through_a_turn(&session);
    let ends = ends("turn-end-panic");
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0].0, 0);
    assert!(matches!(ends[0].1, TurnEnd::Error(_)), "{ends:?}");
    assert_eq!(
        get_turn_state("turn-end-panic").get::<bool>("plan_ok"),
        None
    );
    take_log("turn-end-panic");
}

/// An observer that panics — even while a panic unwinds through the turn — neither takes the
/// agent down nor keeps the other observers from running, once.
#[test]
fn a_panicking_turn_end_observer_does_not_stop_the_others() {
    let id = "turn-end-observer-panics";
    let session = Hooks::global().session(id);
    session.begin_turn().end(TurnEnd::Normal);
    drop(session.begin_turn());
    panic_through_a_turn(&session);
    let ends = ends(id);
    assert_eq!(ends.len(), 3, "{ends:?}");
    assert_eq!(ends[0], (0, TurnEnd::Normal));
    assert_eq!(ends[1], (1, TurnEnd::Canceled));
    assert_eq!(ends[2].0, 2);
    assert!(matches!(ends[2].1, TurnEnd::Error(_)), "{ends:?}");
    take_log(id);
}

/// `describe()` lists every registered hook, with its point, priority, extension, `on_error`
/// and the file:line of its fn.
#[test]
fn describe_lists_every_registered_hook_with_file_and_line() {
    const SOURCE: &str = include_str!("registered_chain.rs");
    let fn_line = |ident: &str| -> u32 {
        let needle = format!("fn {ident}(");
        let found: Vec<usize> = SOURCE
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(&needle) && !l.trim_start().starts_with("//"))
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(found.len(), 1, "{needle}: {found:?}");
        found[0] as u32
    };
    // (fn, point, priority)
    let expected: [(&str, &str, i32); 25] = [
        ("first_seen", "intercept_tool_call", -100),
        ("sandbox_paths", "intercept_tool_call", -10),
        ("alpha_tie", "intercept_tool_call", 0),
        ("middle_tie", "intercept_tool_call", 0),
        ("zeta_tie", "intercept_tool_call", 0),
        ("aardvark_tie", "intercept_tool_call", 0),
        ("mark_readonly", "intercept_tool_call", 10),
        ("async_review", "intercept_tool_call", 15),
        ("async_guard", "intercept_tool_call", 16),
        ("deny_rm", "intercept_tool_call", 20),
        ("fail_open", "intercept_tool_call", 30),
        ("fail_closed", "intercept_tool_call", 31),
        ("reads_metadata", "intercept_tool_call", 40),
        ("last_seen", "intercept_tool_call", 100),
        ("expand_plan_command", "transform_user_input", 0),
        ("note_user_text", "transform_user_input", 10),
        ("inject_rules", "before_llm_call", 0),
        ("inject_reminder", "before_llm_call", 1),
        ("duplicate_one", "before_llm_call", 50),
        ("duplicate_two", "before_llm_call", 50),
        ("no_external_email", "send_email", 0),
        ("sign_email", "send_email", 1),
        ("check_target", "deploy", 0),
        ("panicking_observer", "turn_end", -1),
        ("record_turn_end", "turn_end", 0),
    ];
    let name_of = |ident: &str| match ident {
        "middle_tie" => "registered_chain::tie::middle_tie".to_owned(),
        "aardvark_tie" => "tie::named_last".to_owned(),
        "duplicate_one" | "duplicate_two" => "registered_chain::duplicate".to_owned(),
        _ => format!("registered_chain::{ident}"),
    };
    let backend = if cfg!(feature = "linkme") {
        "linkme"
    } else {
        "inventory"
    };
    assert_eq!(hookchain::__private::backend(), backend);
    let hooks = Hooks::global();
    assert_eq!(hooks.len(), expected.len(), "{}", hooks.describe());
    let text = hooks.describe().to_string();
    let n = expected.len();
    let header = format!(
        "{n} hook(s): {n} collected by #[register_hook] ({}), 0 added by the builder",
        hookchain::__private::backend()
    );
    assert_eq!(text.lines().next(), Some(header.as_str()), "{text}");
    for (ident, point, priority) in expected {
        let name = name_of(ident);
        let name = name.as_str();
        // `check_target` declares nothing and runs under its point's default, `block`.
        let on_error = if ["fail_closed", "async_guard", "check_target"].contains(&ident) {
            "block"
        } else {
            "pass"
        };
        let is_async = ["async_review", "async_guard"].contains(&ident);
        let location = format!("{}:{}", file!(), fn_line(ident));
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.split_whitespace().last() == Some(location.as_str()))
            .collect();
        assert_eq!(rows.len(), 1, "{name} at {location}: {text}");
        let columns: Vec<&str> = rows[0].split_whitespace().collect();
        let priority = priority.to_string();
        assert_eq!(
            columns,
            [
                point,
                priority.as_str(),
                name,
                "hookchain",
                on_error,
                if is_async { "yes" } else { "no" },
                location.as_str()
            ],
            "{}",
            rows[0]
        );
        let info = hooks
            .hooks()
            .iter()
            .find(|h| format!("{}:{}", h.file, h.line) == location)
            .unwrap();
        assert_eq!((&*info.name, info.point), (name, point));
        assert_eq!(info.source, HookSource::Registered);
    }
}
