//! The pass path of a chain made only of `#[register_hook]` fns, which runs them with no check of
//! their own while no extension was switched: a switch, by the agent or by a hook, is seen from the
//! next dispatch, a required hook whose extension was disabled still blocks, and a hook that
//! panics or blocks there is the one the outcome names, with the hooks before it not run again.
//!
//! Each test builds a registry of the fns of this file that it selects by name, so the tests do
//! not see each other's hooks; the counters are per test for the same reason.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use hookchain::prelude::*;
use hookchain::{HookContext, Hooks, HooksBuilder, points::InterceptToolCall};

static SWITCHED_RUNS: AtomicUsize = AtomicUsize::new(0);
static FIRST_RUNS: AtomicUsize = AtomicUsize::new(0);
static AFTER_PANIC_RUNS: AtomicUsize = AtomicUsize::new(0);
static LATER_RUNS: AtomicUsize = AtomicUsize::new(0);
/// The registry the `switcher` hook switches an extension of.
static SWITCHED_IN: OnceLock<Hooks> = OnceLock::new();

#[register_hook("intercept_tool_call", priority = 1)]
fn switcher(call: &ToolCall) -> HookResult<Value> {
    if call.name == "switch_off"
        && let Some(hooks) = SWITCHED_IN.get()
    {
        hooks.disable_extension("later").unwrap();
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 2, extension = "later")]
fn later(_call: &ToolCall) -> HookResult<Value> {
    LATER_RUNS.fetch_add(1, Ordering::SeqCst);
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 1, extension = "switched")]
fn switched(_call: &ToolCall) -> HookResult<Value> {
    SWITCHED_RUNS.fetch_add(1, Ordering::SeqCst);
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 2)]
fn plain(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 1, extension = "guarded")]
fn guard(call: &ToolCall) -> HookResult<Value> {
    if call.name == "delete_file" {
        return HookResult::block("delete_file is not allowed");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 1)]
fn first(_call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    FIRST_RUNS.fetch_add(1, Ordering::SeqCst);
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 2)]
fn second(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 3)]
fn panics(call: &ToolCall) -> HookResult<Value> {
    if call.name == "boom" {
        panic!("the third hook panicked");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 4)]
fn after_panic(_call: &ToolCall) -> HookResult<Value> {
    AFTER_PANIC_RUNS.fetch_add(1, Ordering::SeqCst);
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 5)]
fn blocks_fifth(call: &ToolCall) -> HookResult<Value> {
    if call.name == "shell" {
        return HookResult::block("no shell");
    }
    HookResult::Pass
}

/// The fns of this file whose names end with one of `names`, in a builder.
fn builder(names: &'static [&'static str]) -> HooksBuilder {
    Hooks::builder().collected_where(move |r| {
        r.file.ends_with("pass_path.rs")
            && names.iter().any(|n| r.name.ends_with(&format!("::{n}")))
    })
}

fn call(name: &str) -> ToolCall {
    ToolCall::new(name, Value::Null)
}

#[test]
fn an_extension_switched_between_dispatches_is_seen_by_the_next_one() {
    let hooks = builder(&["switched", "plain"]).build().unwrap();
    let session = hooks.session("switches");
    let turn = session.begin_turn();
    let runs = || SWITCHED_RUNS.load(Ordering::SeqCst);

    assert!(!turn.intercept_tool_call(call("read_file")).is_blocked());
    assert!(!turn.intercept_tool_call(call("read_file")).is_blocked());
    assert_eq!(runs(), 2);

    hooks.disable_extension("switched").unwrap();
    assert!(!turn.intercept_tool_call(call("read_file")).is_blocked());
    assert_eq!(runs(), 2, "a disabled extension's hook ran");

    hooks.enable_extension("switched").unwrap();
    assert!(!turn.intercept_tool_call(call("read_file")).is_blocked());
    assert_eq!(runs(), 3, "an enabled extension's hook did not run");
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_required_fn_whose_extension_was_disabled_blocks_instead_of_vanishing() {
    let hooks = builder(&["guard", "plain"])
        .require_extension("guarded")
        .build()
        .unwrap();
    let session = hooks.session("required");
    let turn = session.begin_turn();

    // Runs once with the extension enabled, so the chain has been found all enabled.
    let blocked = turn
        .intercept_tool_call(call("delete_file"))
        .blocked()
        .expect("blocked");
    assert_eq!(blocked.reason, "delete_file is not allowed");
    assert!(!turn.intercept_tool_call(call("read_file")).is_blocked());

    hooks.disable_extension("guarded").unwrap();
    let blocked = turn
        .intercept_tool_call(call("read_file"))
        .blocked()
        .expect("blocked");
    assert!(
        blocked
            .reason
            .starts_with("required hook `pass_path::guard` (")
            && blocked
                .reason
                .contains("did not run: its extension `guarded` is disabled by the agent's code"),
        "{}",
        blocked.reason
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_panic_and_a_block_in_the_pass_path_name_their_own_hook() {
    let hooks = builder(&["first", "second", "panics", "after_panic", "blocks_fifth"])
        .build()
        .unwrap();
    assert_eq!(hooks.chain_of("intercept_tool_call").len(), 5);

    let outcome = hooks.dispatch::<InterceptToolCall>(call("boom"));
    assert!(!outcome.flow.is_blocked(), "on_error = pass goes on");
    assert_eq!(outcome.failures.len(), 1, "{:?}", outcome.failures);
    assert_eq!(outcome.failures[0].hook, "pass_path::panics");
    assert_eq!(outcome.failures[0].error, "the third hook panicked");
    assert!(outcome.failures[0].panicked);
    assert_eq!(
        FIRST_RUNS.load(Ordering::SeqCst),
        1,
        "a hook before the panic ran again"
    );
    assert_eq!(AFTER_PANIC_RUNS.load(Ordering::SeqCst), 1);

    let session = hooks.session("names");
    let turn = session.begin_turn();
    let blocked = turn
        .intercept_tool_call(call("shell"))
        .blocked()
        .expect("blocked");
    assert_eq!(
        (blocked.reason.as_str(), blocked.hook.as_str()),
        ("no shell", "pass_path::blocks_fifth")
    );
    assert_eq!(FIRST_RUNS.load(Ordering::SeqCst), 2);
    assert_eq!(AFTER_PANIC_RUNS.load(Ordering::SeqCst), 2);
    turn.end(TurnEnd::Normal);
}

#[test]
fn an_extension_a_hook_disables_is_skipped_from_the_next_dispatch() {
    let hooks = builder(&["switcher", "later"]).build().unwrap();
    SWITCHED_IN.set(hooks.clone()).ok().unwrap();
    let session = hooks.session("switched-by-a-hook");
    let turn = session.begin_turn();
    let runs = || LATER_RUNS.load(Ordering::SeqCst);

    assert!(!turn.intercept_tool_call(call("read_file")).is_blocked());
    assert_eq!(runs(), 1);
    // The dispatch under way may run it or not; every dispatch after it skips it.
    assert!(!turn.intercept_tool_call(call("switch_off")).is_blocked());
    let after_switch = runs();
    assert!(after_switch <= 2);
    assert!(!turn.intercept_tool_call(call("read_file")).is_blocked());
    assert!(!turn.intercept_tool_call(call("read_file")).is_blocked());
    assert_eq!(runs(), after_switch, "a hook of a disabled extension ran");
    turn.end(TurnEnd::Normal);
}
