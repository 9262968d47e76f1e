//! What the lean dispatch of a `Turn`'s point methods allocates beyond the pass path: a rewrite
//! allocates only what the rewritten value itself allocates (nothing is recorded about who
//! rewrote, since the caller gets the flow alone), and the `_async` twins of a chain with no
//! async hook allocate nothing on the pass path, like the sync methods.
//!
//! Counted with the counting global allocator of `tests/support/counting_alloc.rs`, on this
//! test's thread only; the file holds a single test so that no other test's allocations share
//! the process while it counts.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use hookchain::points::{InterceptToolCall, TransformResponse};
use hookchain::prelude::*;
use hookchain::{HookContext, HooksBuilder};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

/// Polls a future that must finish at once (no hook of these chains waits).
fn ready<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("a chain of sync hooks must finish at its first poll"),
    }
}

fn read_lib() -> ToolCall {
    ToolCall::new("read_file", json!({"path": "src/lib.rs"}))
}

#[test]
fn a_rewrite_allocates_only_its_value_and_async_twins_allocate_nothing_on_the_pass_path() {
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 1, |_: &ToolCall, _: &HookContext| {
            HookResult::<Value>::Pass
        })
        // `Value::Bool` owns nothing: building it allocates nothing.
        .hook(InterceptToolCall, 2, |call: &ToolCall, _: &HookContext| {
            if call.name == "read_file" {
                HookResult::Rewrite(Value::Bool(true))
            } else {
                HookResult::Pass
            }
        })
        .hook(InterceptToolCall, 3, |_: &ToolCall, _: &HookContext| {
            HookResult::<Value>::Pass
        })
        .build()
        .unwrap();
    let session = hooks.session("alloc-rewrite-path");
    let turn = session.begin_turn();

    // The rewrite path, sync and async: the first dispatch and a hundred more.
    for round in 0..101 {
        let call = read_lib();
        let (n, flow) = allocations(|| turn.intercept_tool_call(call));
        assert!(
            matches!(&flow, Flow::Continue(c) if c.args == Value::Bool(true)),
            "{flow:?}"
        );
        drop(flow);
        assert_eq!(
            n, 0,
            "round {round}: a rewrite to a value that owns nothing allocated {n} times"
        );

        let call = read_lib();
        let (n, flow) = allocations(|| ready(turn.intercept_tool_call_async(call)));
        assert!(
            matches!(&flow, Flow::Continue(c) if c.args == Value::Bool(true)),
            "{flow:?}"
        );
        drop(flow);
        assert_eq!(n, 0, "round {round}: the async rewrite allocated {n} times");
    }

    // The pass path of the async twin, and an async point with no hooks.
    for round in 0..101 {
        let call = ToolCall::new("list_dir", json!({"path": "."}));
        let (n, flow) = allocations(|| ready(turn.intercept_tool_call_async(call)));
        assert!(matches!(flow, Flow::Continue(_)));
        drop(flow);
        assert_eq!(
            n, 0,
            "round {round}: an all-pass async dispatch allocated {n} times"
        );

        let reply = String::from("done");
        let (n, flow) = allocations(|| ready(turn.transform_response_async(reply)));
        assert_eq!(flow, Flow::Continue("done".to_owned()));
        assert_eq!(
            n, 0,
            "round {round}: an async point with no hooks allocated {n} times"
        );
    }
    assert!(hooks.chain_of(TransformResponse::NAME).is_empty());

    turn.end(TurnEnd::Normal);
}
