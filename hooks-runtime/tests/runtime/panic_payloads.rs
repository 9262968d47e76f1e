//! A panic whose payload panics again when dropped: the hook (or the tool) fails like any other,
//! and the second panic never reaches the agent.

use std::time::Duration;

use hookchain_core::points::InterceptToolCall;
use hookchain_core::{BoxFuture, Flow, HookContext, HookResult, OnError, ToolCall};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder};
use serde_json::{Value, json};

/// A panic payload that panics when dropped.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("again")
    }
}

fn bomb(_: &ToolCall, _: &HookContext) -> HookResult<Value> {
    std::panic::panic_any(Bomb)
}

fn bomb_async<'a>(_: &'a ToolCall, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    Box::pin(async {
        if true {
            std::panic::panic_any(Bomb)
        }
        HookResult::Pass
    })
}

fn after(_: &ToolCall, _: &HookContext) -> HookResult<Value> {
    HookResult::Rewrite(json!({"after": true}))
}

/// `bomb` (sync or async) panics with a [`Bomb`]; `after` rewrites, to show it ran.
fn chain(async_bomb: bool, policy: OnError) -> Hooks {
    let options = HookOptions::new("bomb").priority(1).on_error(policy);
    let builder = if async_bomb {
        HooksBuilder::new().async_hook(InterceptToolCall, options, bomb_async)
    } else {
        HooksBuilder::new().hook_with(InterceptToolCall, options, bomb)
    };
    builder
        .hook_with(
            InterceptToolCall,
            HookOptions::new("after").priority(2),
            after,
        )
        .build()
        .unwrap()
}

fn call() -> ToolCall {
    ToolCall::new("ls", json!({}))
}

fn check(outcome: hookchain_runtime::Outcome<ToolCall>, policy: OnError) {
    assert_eq!(outcome.failures.len(), 1, "{:?}", outcome.failures);
    assert_eq!(outcome.failures[0].hook, "bomb");
    assert!(outcome.failures[0].panicked);
    match policy {
        OnError::Block => {
            let Flow::Blocked(blocked) = outcome.flow else {
                panic!("on_error = block must block")
            };
            assert_eq!(blocked.hook, "bomb");
        }
        _ => {
            assert_eq!(outcome.rewritten_by, ["after"], "the next hook ran");
            assert_eq!(
                outcome.flow.continued().unwrap().args,
                json!({"after": true})
            );
        }
    }
}

fn sync_dispatch(async_bomb: bool) {
    for policy in [OnError::Pass, OnError::Block] {
        let hooks = chain(async_bomb, policy);
        let turn = hooks.session("bomb-sync").begin_turn();
        check(turn.fire::<InterceptToolCall>(call()), policy);
    }
}

async fn async_dispatch(async_bomb: bool) {
    for policy in [OnError::Pass, OnError::Block] {
        let hooks = chain(async_bomb, policy);
        let turn = hooks.session("bomb-async").begin_turn();
        let outcome = tokio::time::timeout(
            Duration::from_secs(10),
            turn.fire_async::<InterceptToolCall>(call()),
        )
        .await
        .expect("the async dispatch finished");
        check(outcome, policy);
    }
}

#[test]
fn a_sync_hook_whose_payload_panics_on_drop_fails_in_the_sync_dispatch() {
    sync_dispatch(false);
}

#[test]
fn an_async_hook_whose_payload_panics_on_drop_fails_in_the_sync_dispatch() {
    sync_dispatch(true);
}

#[tokio::test]
async fn a_sync_hook_whose_payload_panics_on_drop_fails_in_the_async_dispatch() {
    async_dispatch(false).await;
}

#[tokio::test]
async fn an_async_hook_whose_payload_panics_on_drop_fails_in_the_async_dispatch() {
    async_dispatch(true).await;
}

#[test]
fn a_tool_whose_payload_panics_on_drop_is_an_error_result() {
    let hooks = HooksBuilder::new().build().unwrap();
    let turn = hooks.session("bomb-tool").begin_turn();
    let run = turn.run_tool(call(), |_| std::panic::panic_any(Bomb));
    assert!(run.ran);
    assert!(run.result.is_error);
    assert!(
        run.result
            .tool_response
            .as_str()
            .unwrap()
            .contains("`ls` panicked"),
        "{:?}",
        run.result.tool_response
    );
}

#[tokio::test]
async fn an_async_tool_whose_payload_panics_on_drop_is_an_error_result() {
    let hooks = HooksBuilder::new().build().unwrap();
    let turn = hooks.session("bomb-tool-async").begin_turn();
    let run = tokio::time::timeout(
        Duration::from_secs(10),
        turn.run_tool_async(call(), async |_: &ToolCall| -> Result<Value, String> {
            std::panic::panic_any(Bomb)
        }),
    )
    .await
    .expect("run_tool_async finished");
    assert!(run.ran);
    assert!(run.result.is_error);
    assert!(
        run.result
            .tool_response
            .as_str()
            .unwrap()
            .contains("`ls` panicked"),
        "{:?}",
        run.result.tool_response
    );
}
