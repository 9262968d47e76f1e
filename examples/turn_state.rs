//! Turn state lives and dies with its turn; session state lives with its session.
//!
//! Three turns of one session: one that ends normally, one that returns early with `?`, one that
//! panics. Hooks count the tool calls of the turn in the turn state and of the whole session in
//! the session state; after every turn, whatever its exit, the turn state is empty again.
//!
//! Run it with `cargo run --example turn_state`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use hookchain::points::TurnEndEvent;
use hookchain::{HookContext, prelude::*};

/// Counts tool calls per turn (turn state) and per session (session state).
#[register_hook("intercept_tool_call", priority = 0)]
fn count_calls(
    _call: &ToolCall,
    cx: &HookContext,
) -> Result<HookResult<Value>, hookchain::state::StateError> {
    cx.turn_state().update("calls", |n: &mut u32| *n += 1)?;
    get_session_state(cx.session_id()).update("calls", |n: &mut u32| *n += 1)?;
    Ok(HookResult::Pass)
}

/// A later hook of the same turn reads what the earlier one wrote.
#[register_hook("intercept_tool_call", priority = 10)]
fn limit_calls(_call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    let calls: u32 = cx.turn_state().get("calls").unwrap_or(0);
    if calls > 3 {
        return HookResult::block(format!(
            "at most 3 tool calls per turn (this is call {calls})"
        ));
    }
    HookResult::Pass
}

/// Sees the turn's state one last time, just before it is cleared.
#[register_hook("turn_end")]
fn report(event: &TurnEndEvent, cx: &HookContext) {
    let calls: u32 = cx.turn_state().get("calls").unwrap_or(0);
    println!(
        "  turn_end: turn {} ended ({}) after {calls} tool call(s)",
        event.turn, event.reason
    );
}

fn call(name: &str) -> ToolCall {
    ToolCall::new(name, json!({}))
}

/// A turn that gives up half-way with `?`: dropping the `Turn` ends it.
fn turn_with_early_return(session: &Session) -> Result<(), String> {
    let turn = session.begin_turn();
    let _ = turn.intercept_tool_call(call("read_file"));
    let _ = turn.intercept_tool_call(call("run_tests"));
    Err("the test runner crashed".to_owned())?;
    turn.end(TurnEnd::Normal);
    Ok(())
}

fn show(session: &Session, when: &str) {
    let turn_calls: Option<u32> = get_turn_state(session.id()).get("calls");
    let session_calls: Option<u32> = get_session_state(session.id()).get("calls");
    println!(
        "  {when}: turn state calls = {turn_calls:?}, session state calls = {session_calls:?}"
    );
}

fn main() {
    let session = Hooks::global().session("turn-state-demo");

    println!("turn 0: ends normally");
    let turn = session.begin_turn();
    for name in ["read_file", "write_file", "run_tests", "deploy"] {
        match turn.intercept_tool_call(call(name)) {
            Flow::Continue(c) => println!("  {} allowed", c.name),
            Flow::Blocked(b) => println!("  {name} blocked by {}: {}", b.hook, b.reason),
        }
    }
    show(&session, "before end");
    turn.end(TurnEnd::Normal);
    show(&session, "after end ");

    println!("turn 1: returns early with `?`");
    let result = turn_with_early_return(&session);
    println!("  the turn returned {result:?}");
    show(&session, "after drop");

    println!("turn 2: a tool panics");
    // Keep the demo's output readable: the panic is expected.
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(|| {
        let turn = session.begin_turn();
        let _ = turn.intercept_tool_call(call("flaky_tool"));
        panic!("flaky_tool crashed");
    }));
    let _ = std::panic::take_hook();
    println!("  the turn panicked: {}", result.is_err());
    show(&session, "after panic");

    session.end("demo finished");
    println!("session ended: its state is freed");
}
