//! A wildcard hook costs only the points it watches: in a registry with a wildcard hook on
//! `after_*`, an all-pass dispatch of `intercept_tool_call` builds no event and no JSON of the
//! call — it allocates nothing — while a dispatch of the watched `after_tool_call` does build
//! them. One test in the file: the counting allocator counts on the test's own thread only.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hookchain::points::InterceptToolCall;
use hookchain::{DispatchEvent, HookContext, HookOptions, HooksBuilder, prelude::*};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

#[test]
fn an_unwatched_point_builds_no_event_and_no_json() {
    let events = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&events);
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            if call.name == "rm" {
                HookResult::block("no")
            } else {
                HookResult::<Value>::Pass
            }
        })
        .watch(
            "after_*",
            HookOptions::new("after"),
            move |ev: &DispatchEvent, _: &HookContext| {
                assert_eq!(ev.payload["tool_name"], "read_file");
                seen.fetch_add(1, Ordering::Relaxed);
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("alloc-wildcard").begin_turn();
    let calls: Vec<ToolCall> = (0..100)
        .map(|_| ToolCall::new("read_file", json!({"path": "src/lib.rs", "n": [1, 2, 3]})))
        .collect();
    let mut flows = Vec::with_capacity(calls.len());
    let (n, ()) = allocations(|| {
        for call in calls {
            flows.push(turn.intercept_tool_call(call));
        }
    });
    assert_eq!(n, 0, "100 unwatched dispatches allocated {n} times");
    assert!(flows.iter().all(|f| !f.is_blocked()));
    assert_eq!(events.load(Ordering::Relaxed), 0);

    // The watched point builds its event and the JSON of its payload, once per dispatch.
    let call = ToolCall::new("read_file", json!({"path": "src/lib.rs"}));
    let result = ToolResult::new(&call, Ok(json!("fn main() {}")));
    let (n, _) = allocations(|| turn.after_tool_call(result));
    assert!(n > 0, "a watched dispatch builds its event");
    assert_eq!(events.load(Ordering::Relaxed), 1);
    drop(flows);
    turn.end(TurnEnd::Normal);
}
