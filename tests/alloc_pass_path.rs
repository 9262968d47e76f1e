//! Nothing in the pass-only path allocates: a 10-hook chain on `intercept_tool_call` where every
//! hook passes, dispatched through `Turn::intercept_tool_call`, makes no heap allocation, whether
//! the hooks are `#[register_hook]` fns or closures added through `HooksBuilder`.
//!
//! The counting global allocator of `tests/support/counting_alloc.rs` counts `alloc`,
//! `alloc_zeroed` and `realloc` calls, but only on a thread that switched counting on, so the
//! test harness's other threads cannot disturb the count. The file holds a single test for the
//! same reason.

use std::hint::black_box;

use hookchain::HooksBuilder;
use hookchain::points::InterceptToolCall;
use hookchain::{HookContext, prelude::*};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

#[register_hook("intercept_tool_call", priority = 1)]
fn no_delete_file(call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    if call.name == "delete_file" {
        return HookResult::block("delete_file is disabled");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 2)]
fn no_rm_rf(call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    if call.name == "shell" && call.str_arg("cmd").is_some_and(|c| c.contains("rm -rf")) {
        return HookResult::block("rm -rf is not allowed");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 3)]
fn no_network(call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    if call.name == "http_request" || call.name == "fetch_url" {
        return HookResult::block("network access is disabled");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 4)]
fn no_etc_writes(call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    if call.name == "write_file" && call.str_arg("path").is_some_and(|p| p.starts_with("/etc/")) {
        return HookResult::block("writes under /etc are not allowed");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 5)]
fn path_required(call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    if (call.name == "read_file" || call.name == "write_file") && call.str_arg("path").is_none() {
        return HookResult::block("file tools need a string `path`");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 6)]
fn no_parent_dirs(call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    if call.str_arg("path").is_some_and(|p| p.contains("..")) {
        return HookResult::block("paths may not contain `..`");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 7)]
fn no_env_files(call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    if call.str_arg("path").is_some_and(|p| p.ends_with(".env")) {
        return HookResult::block(".env files are off limits");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 8)]
fn no_secrets_dir(call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    if call
        .str_arg("path")
        .is_some_and(|p| p.starts_with("secrets/"))
    {
        return HookResult::block("secrets/ is off limits");
    }
    HookResult::Pass
}

/// Reads what it can without allocating: the context's names, the point and the turn.
#[register_hook("intercept_tool_call", priority = 9)]
fn reads_context(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    if cx.point() != "intercept_tool_call" || cx.hook_name().is_empty() || cx.turn() > 1 {
        return HookResult::block("a hook must know where it runs");
    }
    if cx.session_id().is_empty() || call.name.is_empty() {
        return HookResult::block("a hook must know what it sees");
    }
    HookResult::Pass
}

/// Takes the input alone.
#[register_hook("intercept_tool_call", priority = 10)]
fn input_only(call: &ToolCall) -> HookResult<Value> {
    if call.str_arg("path").is_some_and(|p| p.len() > 4096) {
        return HookResult::block("path too long");
    }
    HookResult::Pass
}

/// The ten `#[register_hook]` fns of this file, as collected at link time.
fn registered_chain() -> Hooks {
    HooksBuilder::new()
        .collected_where(|r| r.file.ends_with("alloc_pass_path.rs"))
        .build()
        .expect("ten distinct hooks")
}

/// The same ten fns added as closures through the builder.
fn builder_chain() -> Hooks {
    HooksBuilder::new()
        .hook(InterceptToolCall, 1, no_delete_file)
        .hook(InterceptToolCall, 2, no_rm_rf)
        .hook(InterceptToolCall, 3, no_network)
        .hook(InterceptToolCall, 4, no_etc_writes)
        .hook(InterceptToolCall, 5, path_required)
        .hook(InterceptToolCall, 6, no_parent_dirs)
        .hook(InterceptToolCall, 7, no_env_files)
        .hook(InterceptToolCall, 8, no_secrets_dir)
        .hook(InterceptToolCall, 9, reads_context)
        .hook(InterceptToolCall, 10, |call: &ToolCall, _: &HookContext| {
            input_only(call)
        })
        .build()
        .expect("ten distinct hooks")
}

fn read_lib() -> ToolCall {
    ToolCall::new("read_file", json!({"path": "src/lib.rs"}))
}

#[test]
fn an_all_pass_dispatch_through_a_turn_allocates_nothing() {
    // The counter works: one allocation is one, a growing Vec reallocates.
    let (n, v) = allocations(|| Vec::<u8>::with_capacity(1));
    assert_eq!(
        n, 1,
        "the counting allocator must see a Vec::with_capacity(1)"
    );
    let (n, v) = allocations(move || {
        let mut v = v;
        v.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        v
    });
    assert_eq!(n, 1, "the counting allocator must see a realloc");
    drop(v);
    // Building a call allocates, so the calls are built before counting starts.
    let (n, call) = allocations(read_lib);
    assert!(n > 0, "building a ToolCall allocates ({n})");
    drop(call);

    for (what, hooks) in [
        ("#[register_hook] fns", registered_chain()),
        ("builder closures", builder_chain()),
    ] {
        assert_eq!(hooks.chain_of("intercept_tool_call").len(), 10, "{what}");
        let session = hooks.session(format!("alloc-pass-path {what}"));
        let turn = session.begin_turn();

        // The very first dispatch, with nothing warmed up.
        let call = read_lib();
        let (first, flow) = allocations(|| turn.intercept_tool_call(call));
        assert_eq!(flow, Flow::Continue(read_lib()), "{what}");
        drop(flow);
        assert_eq!(
            first, 0,
            "{what}: the first all-pass dispatch allocated {first} times"
        );

        // Many more; the results are dropped after counting stops.
        let calls: Vec<ToolCall> = (0..1000).map(|_| read_lib()).collect();
        let mut flows = Vec::with_capacity(calls.len());
        let (n, ()) = allocations(|| {
            for call in calls {
                flows.push(turn.intercept_tool_call(black_box(call)));
            }
        });
        assert!(flows.iter().all(|f| !f.is_blocked()), "{what}");
        drop(flows);
        assert_eq!(n, 0, "{what}: 1000 all-pass dispatches allocated {n} times");

        // The same chain does allocate once a hook blocks (the reason and the hook's name are
        // owned), which shows the count covers the dispatch.
        let call = ToolCall::new("delete_file", json!({"path": "src/lib.rs"}));
        let (n, flow) = allocations(|| turn.intercept_tool_call(call));
        assert!(flow.is_blocked(), "{what}");
        drop(flow);
        assert!(n > 0, "{what}: a blocked dispatch builds its `Blocked`");

        turn.end(TurnEnd::Normal);
    }
}
