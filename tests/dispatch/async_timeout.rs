//! Async hooks in time: with the `tokio` feature, an async hook that runs past the registry's
//! time limit (30 s unless the builder says otherwise) fails, and its `on_error` decides what that
//! means; the agent's value is never lost. The sync API inside a tokio runtime drives async hooks
//! through a multi-thread runtime, and fails them at once in a current-thread one, naming the
//! `_async` method to call — it never hangs.
//!
//! Every test is bounded in time: by `tokio::time::timeout` when the runtime stays free to fire
//! it, by a watchdog thread (`support/deadline.rs`) when the sync API blocks the runtime's thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hookchain::points::{InterceptToolCall, OnStop, SessionStart, TurnEnded};
use hookchain::points::{SessionStartEvent, StopEvent, TurnEndEvent};
use hookchain::registry::{BoxFuture, DEFAULT_ASYNC_TIMEOUT};
use hookchain::{HookContext, prelude::*};
use hookchain::{HookOptions, HooksBuilder};

use crate::support::deadline::deadline;

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

fn sleeps<'a>(_: &'a ToolCall, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    Box::pin(async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        HookResult::Rewrite(json!({"slept": true}))
    })
}

fn never<'a>(_: &'a ToolCall, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    Box::pin(std::future::pending())
}

fn sleeper(on_error: OnError) -> Hooks {
    HooksBuilder::new()
        .async_hook(
            InterceptToolCall,
            HookOptions::new("sleeps").on_error(on_error),
            sleeps,
        )
        .build()
        .unwrap()
}

const NAMES_THE_ASYNC_METHOD: &str = "call `Turn::intercept_tool_call_async` instead";

/// The hang this guards against: inside a current-thread runtime the one thread that could drive
/// tokio's timer is the one blocked in the sync call.
#[tokio::test(flavor = "current_thread")]
async fn current_thread_the_sync_api_fails_a_waiting_hook_fast_under_on_error_pass() {
    let _deadline = deadline("sync API, current thread, pass", Duration::from_secs(20));
    let turn = sleeper(OnError::Pass).session("ct-pass").begin_turn();
    let started = Instant::now();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("ls", json!({})));
    assert!(started.elapsed() < Duration::from_secs(1), "it failed fast");
    assert_eq!(
        outcome.flow.continued().unwrap().args,
        json!({}),
        "fails open: the call goes on unchanged"
    );
    let error = &outcome.failures[0].error;
    assert!(error.contains("current-thread tokio runtime"), "{error}");
    assert!(error.contains("call `Turn::fire_async` instead"), "{error}");
    // The same hook through the async twin works.
    let flow = turn
        .intercept_tool_call_async(ToolCall::new("ls", json!({})))
        .await;
    assert_eq!(flow.continued().unwrap().args, json!({"slept": true}));
    turn.end_async(TurnEnd::Normal).await;
}

#[tokio::test(flavor = "current_thread")]
async fn current_thread_the_sync_api_fails_a_waiting_hook_fast_under_on_error_block() {
    let _deadline = deadline("sync API, current thread, block", Duration::from_secs(20));
    let turn = sleeper(OnError::Block).session("ct-block").begin_turn();
    let blocked = turn
        .intercept_tool_call(ToolCall::new("ls", json!({})))
        .blocked()
        .unwrap();
    assert_eq!(blocked.hook, "sleeps");
    assert!(blocked.failed);
    assert!(
        blocked.reason.contains(NAMES_THE_ASYNC_METHOD),
        "{}",
        blocked.reason
    );
    // run_tool names its own twin; the tool never runs.
    let run = turn.run_tool(ToolCall::new("ls", json!({})), |_| panic!("blocked"));
    assert!(!run.ran);
    let reason = run.blocked.unwrap().reason;
    assert!(
        reason.contains("call `Turn::run_tool_async` instead"),
        "{reason}"
    );
    turn.end_async(TurnEnd::Normal).await;
}

fn start_sleeps<'a>(
    _: &'a SessionStartEvent,
    _: &'a HookContext<'a>,
) -> BoxFuture<'a, HookResult<String>> {
    Box::pin(async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        HookResult::Rewrite("slept".to_owned())
    })
}

fn stop_sleeps<'a>(_: &'a StopEvent, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<String>> {
    Box::pin(async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        HookResult::block("not yet")
    })
}

fn end_sleeps<'a>(_: &'a TurnEndEvent, _: &'a HookContext<'a>) -> BoxFuture<'a, ()> {
    Box::pin(async {
        tokio::time::sleep(Duration::from_millis(20)).await;
    })
}

/// Every sync entry point names its own `_async` twin.
#[tokio::test(flavor = "current_thread")]
async fn current_thread_every_sync_entry_point_names_its_async_twin() {
    let _deadline = deadline("sync entry points, current thread", Duration::from_secs(20));
    let notes = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let notes2 = notes.clone();
    let hooks = HooksBuilder::new()
        .async_hook(
            SessionStart,
            HookOptions::new("start").on_error(OnError::Block),
            start_sleeps,
        )
        .async_hook(
            OnStop,
            HookOptions::new("stop").on_error(OnError::Block),
            stop_sleeps,
        )
        .async_hook(TurnEnded, HookOptions::new("end"), end_sleeps)
        .hook(
            hookchain::points::Notify,
            0,
            move |n: &hookchain::points::Notification, _: &HookContext| {
                notes2.lock().push(n.message.clone())
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("ct-entry-points");
    let reason = &session.start_blocked().unwrap().reason;
    assert!(
        reason.contains("call `Hooks::session_async` instead"),
        "{reason}"
    );
    let turn = session.begin_turn();
    let hookchain::Stop::Redo { instruction, .. } = turn.on_stop("done") else {
        panic!("the failed guard blocks")
    };
    assert!(
        instruction.contains("call `Turn::on_stop_async` instead"),
        "{instruction}"
    );
    turn.end(TurnEnd::Normal);
    assert!(
        notes.lock().iter().any(
            |n| n.contains("hook `end` failed") && n.contains("call `Turn::end_async` instead")
        ),
        "{:?}",
        notes.lock()
    );
    let child = session.child("ct-entry-points/child");
    let reason = &child.start_blocked().unwrap().reason;
    assert!(
        reason.contains("call `Session::child_async` instead"),
        "{reason}"
    );
    child.end_async("done").await;
    let reset = session.reset("ct-entry-points-2");
    let reason = &reset.start_blocked().unwrap().reason;
    assert!(
        reason.contains("call `Session::reset_async` instead"),
        "{reason}"
    );
    reset.end_async("done").await;
}

/// A hook that finishes at its first poll needs no driver: it runs through the sync API even in
/// a current-thread runtime.
#[tokio::test(flavor = "current_thread")]
async fn current_thread_an_async_hook_that_never_waits_runs_through_the_sync_api() {
    fn ready<'a>(_: &'a ToolCall, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
        Box::pin(async { HookResult::Rewrite(json!({"ready": true})) })
    }
    let _deadline = deadline("a ready hook, current thread", Duration::from_secs(20));
    let hooks = HooksBuilder::new()
        .async_hook(InterceptToolCall, HookOptions::new("ready"), ready)
        .build()
        .unwrap();
    let turn = hooks.session("ct-ready").begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
    assert_eq!(flow.continued().unwrap().args, json!({"ready": true}));
    turn.end(TurnEnd::Normal);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_thread_the_sync_api_drives_a_tokio_sleeping_hook() {
    let _deadline = deadline("sync API, multi thread", Duration::from_secs(20));
    let hooks = sleeper(OnError::Block);
    // From the runtime's `block_on` thread (the test's body)...
    let turn = hooks.session("mt-sync").begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
    assert_eq!(flow.continued().unwrap().args, json!({"slept": true}));
    // ... and from tasks on the worker threads, several at once.
    let tasks: Vec<_> = (0..4)
        .map(|i| {
            let turn = turn.clone();
            tokio::spawn(async move {
                turn.intercept_tool_call(ToolCall::new(format!("t{i}"), json!({})))
            })
        })
        .collect();
    for task in tasks {
        let flow = task.await.unwrap();
        assert_eq!(flow.continued().unwrap().args, json!({"slept": true}));
    }
    // And from a blocking thread of the runtime.
    let blocking = turn.clone();
    let flow = tokio::task::spawn_blocking(move || {
        blocking.intercept_tool_call(ToolCall::new("ls", json!({})))
    })
    .await
    .unwrap();
    assert_eq!(flow.continued().unwrap().args, json!({"slept": true}));
    turn.end(TurnEnd::Normal);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_thread_the_sync_api_keeps_the_time_limit() {
    let _deadline = deadline("sync API time limit, multi thread", Duration::from_secs(20));
    let turn = hooks(OnError::Block).session("mt-limit").begin_turn();
    let started = Instant::now();
    let blocked = turn
        .intercept_tool_call(ToolCall::new("ls", json!({})))
        .blocked()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        blocked.reason.contains("timed out after 100ms"),
        "{}",
        blocked.reason
    );
    turn.end(TurnEnd::Normal);
}

/// Without a tokio runtime the sync API drives async hooks on the calling thread, as before.
#[test]
fn without_a_runtime_the_sync_api_drives_async_hooks_on_the_calling_thread() {
    fn woken<'a>(_: &'a ToolCall, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
        Box::pin(async {
            // A future woken from another thread: no executor involved.
            let flag = Arc::new(AtomicBool::new(false));
            let wait = std::future::poll_fn(move |cx| {
                if flag.load(Ordering::Acquire) {
                    return std::task::Poll::Ready(());
                }
                let (waker, flag) = (cx.waker().clone(), flag.clone());
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(10));
                    flag.store(true, Ordering::Release);
                    waker.wake();
                });
                std::task::Poll::Pending
            });
            wait.await;
            HookResult::Rewrite(json!({"woken": true}))
        })
    }
    let _deadline = deadline("sync API without a runtime", Duration::from_secs(20));
    let hooks = HooksBuilder::new()
        .async_hook(InterceptToolCall, HookOptions::new("woken"), woken)
        .build()
        .unwrap();
    let turn = hooks.session("no-runtime").begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
    assert_eq!(flow.continued().unwrap().args, json!({"woken": true}));
    turn.end(TurnEnd::Normal);
}

/// No `async_timeout` given: an async hook that never finishes fails after the default 30 s
/// (tokio's paused clock jumps there at once).
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn an_async_hook_has_a_default_time_limit_of_30_seconds() {
    assert_eq!(DEFAULT_ASYNC_TIMEOUT, Duration::from_secs(30));
    let hooks = HooksBuilder::new()
        .async_hook(InterceptToolCall, HookOptions::new("never"), never)
        .build()
        .unwrap();
    let turn = hooks.session("default-limit").begin_turn();
    let started = tokio::time::Instant::now();
    let outcome = tokio::time::timeout(
        Duration::from_secs(120),
        turn.fire_async::<InterceptToolCall>(ToolCall::new("ls", json!({}))),
    )
    .await
    .expect("the default limit fires first");
    assert_eq!(started.elapsed(), DEFAULT_ASYNC_TIMEOUT);
    assert_eq!(outcome.failures[0].hook, "never");
    assert_eq!(outcome.failures[0].error, "timed out after 30s");
    assert!(!outcome.is_blocked(), "on_error = pass by default");
    turn.end_async(TurnEnd::Normal).await;
}
