//! With the `tokio` feature, an async hook that runs past the registry's timeout fails, and its
//! `on_error` decides what that means; the agent's value is never lost.

use std::time::{Duration, Instant};

use hookchain::points::InterceptToolCall;
use hookchain::prelude::*;
use hookchain::{BoxFuture, HookOptions, HooksBuilder};

fn hangs<'a>(_: &'a ToolCall, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    Box::pin(async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        HookResult::block("unreachable: the timeout fires first")
    })
}

fn hooks(on_error: OnError) -> Hooks {
    HooksBuilder::new()
        .async_hook(
            InterceptToolCall,
            HookOptions::new("hangs").on_error(on_error),
            hangs,
        )
        .hook(InterceptToolCall, 5, |_: &ToolCall, _: &HookContext| {
            HookResult::Rewrite(json!({"checked": true}))
        })
        .async_timeout(Duration::from_millis(100))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_hook_past_its_timeout_fails_open_under_on_error_pass() {
    let hooks = hooks(OnError::Pass);
    let turn = hooks.session("timeout-pass").begin_turn();
    let started = Instant::now();
    let outcome = turn
        .fire_async::<InterceptToolCall>(ToolCall::new("ls", json!({})))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the timeout ended the hook"
    );
    assert_eq!(
        outcome.flow.continued().unwrap().args,
        json!({"checked": true})
    );
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(outcome.failures[0].hook, "hangs");
    assert!(
        outcome.failures[0].error.contains("timed out"),
        "{}",
        outcome.failures[0].error
    );
}

#[tokio::test]
async fn a_hook_past_its_timeout_blocks_under_on_error_block() {
    let hooks = hooks(OnError::Block);
    let turn = hooks.session("timeout-block").begin_turn();
    let blocked = turn
        .intercept_tool_call_async(ToolCall::new("ls", json!({})))
        .await
        .blocked()
        .unwrap();
    assert_eq!(blocked.hook, "hangs");
    assert!(blocked.failed);
    assert!(blocked.reason.contains("timed out"), "{}", blocked.reason);
}

#[path = "support/deadline.rs"]
mod deadline;

fn sleeps<'a>(_: &'a ToolCall, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    Box::pin(async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        HookResult::Rewrite(json!({"slept": true}))
    })
}

/// Inside a current-thread runtime the sync API cannot drive a hook that awaits tokio's timer:
/// the only thread that could drive the timer is the one blocked in the sync call.
#[tokio::test(flavor = "current_thread")]
async fn the_sync_api_in_a_current_thread_runtime_never_hangs() {
    let _deadline = deadline::deadline(
        "sync API in a current-thread runtime",
        Duration::from_secs(20),
    );
    let hooks = HooksBuilder::new()
        .async_hook(InterceptToolCall, HookOptions::new("sleeps"), sleeps)
        .build()
        .unwrap();
    let turn = hooks.session("current-thread-sync").begin_turn();
    let _ = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
}
