//! A point of the agent's own whose `apply` can panic: the failure belongs to the hook whose
//! rewrite was being applied, under that hook's `on_error`, and every later hook still runs —
//! in the sync and in the async dispatch.

use std::sync::Arc;
use std::time::Duration;

use hookchain_core::{BoxFuture, Flow, HookContext, HookResult, OnError};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder, Outcome};
use parking_lot::Mutex;

hookchain_core::hook_point! {
    /// A note the agent is about to send; a rewrite of `"boom"` makes `apply` panic.
    pub struct Note: transform("note") {
        type Value = String;
        type Rewrite = String;
        fn apply(note, text) {
            if text == "boom" {
                panic!("apply cannot take this rewrite")
            }
            *note = text;
        }
    }
}

type Log = Arc<Mutex<Vec<String>>>;

/// Where the rewriting hook sits.
#[derive(Debug, Clone, Copy, PartialEq)]
enum At {
    /// Before a guard that records what it saw and blocks.
    Middle,
    /// Last in the chain.
    Last,
}

fn boom_async<'a>(_: &'a String, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<String>> {
    Box::pin(async { HookResult::Rewrite("boom".to_owned()) })
}

/// `first` rewrites to `"first"`, `rewriter` (sync or async) returns a rewrite `apply` panics on,
/// and in the middle case `guard` records the value it sees and blocks.
fn chain(policy: OnError, at: At, async_rewriter: bool, log: &Log) -> Hooks {
    let options = HookOptions::new("rewriter").priority(2).on_error(policy);
    let builder = HooksBuilder::new().hook_with(
        Note,
        HookOptions::new("first").priority(1),
        |_: &String, _: &HookContext| HookResult::Rewrite("first".to_owned()),
    );
    let builder = if async_rewriter {
        builder.async_hook(Note, options, boom_async)
    } else {
        builder.hook_with(Note, options, |_: &String, _: &HookContext| {
            HookResult::Rewrite("boom".to_owned())
        })
    };
    let builder = match at {
        At::Last => builder,
        At::Middle => {
            let log = log.clone();
            builder.hook_with(
                Note,
                HookOptions::new("guard").priority(3),
                move |note: &String, _: &HookContext| {
                    log.lock().push(note.clone());
                    HookResult::<String>::block("the guard says no")
                },
            )
        }
    };
    builder.build().unwrap()
}

/// What every dispatch of [`chain`] must give.
fn check(outcome: Outcome<String>, policy: OnError, at: At, log: &Log) {
    assert_eq!(outcome.rewritten_by, ["first"], "{policy:?} {at:?}");
    assert_eq!(outcome.failures.len(), 1, "{:?}", outcome.failures);
    let failure = &outcome.failures[0];
    assert_eq!(
        failure.hook, "rewriter",
        "the rewriting hook is the one that failed"
    );
    assert!(failure.panicked);
    assert_eq!(failure.on_error, policy);
    assert_eq!(failure.error, "apply cannot take this rewrite");
    match policy {
        OnError::Block => {
            let Flow::Blocked(blocked) = outcome.flow else {
                panic!("on_error = block must block")
            };
            assert_eq!(blocked.hook, "rewriter");
            assert!(blocked.failed);
            assert!(log.lock().is_empty(), "the chain stopped at the rewriter");
        }
        OnError::Pass | OnError::Warn => {
            match at {
                At::Middle => {
                    let Flow::Blocked(blocked) = outcome.flow else {
                        panic!("the guard after the rewriter must run and block")
                    };
                    assert_eq!(blocked.hook, "guard");
                    assert!(!blocked.failed);
                    assert_eq!(*log.lock(), ["first"], "the guard saw the value before");
                }
                At::Last => {
                    assert_eq!(outcome.flow.continued().as_deref(), Some("first"));
                }
            }
            let warned = outcome.warnings.iter().any(|w| w.contains("`rewriter`"));
            assert_eq!(warned, policy == OnError::Warn, "{:?}", outcome.warnings);
        }
    }
}

const POLICIES: [OnError; 3] = [OnError::Pass, OnError::Warn, OnError::Block];

#[test]
fn a_panicking_apply_fails_the_rewriting_hook_and_the_next_hook_still_runs() {
    for policy in POLICIES {
        let log = Log::default();
        let hooks = chain(policy, At::Middle, false, &log);
        let turn = hooks.session("apply-middle").begin_turn();
        check(
            turn.fire::<Note>("hello".to_owned()),
            policy,
            At::Middle,
            &log,
        );
    }
}

#[test]
fn a_panicking_apply_of_the_last_hook_does_not_escape() {
    for policy in POLICIES {
        let log = Log::default();
        let hooks = chain(policy, At::Last, false, &log);
        let turn = hooks.session("apply-last").begin_turn();
        check(
            turn.fire::<Note>("hello".to_owned()),
            policy,
            At::Last,
            &log,
        );
    }
}

#[test]
fn a_panicking_apply_after_an_async_hook_in_the_sync_dispatch() {
    for (policy, at) in POLICIES
        .into_iter()
        .flat_map(|p| [(p, At::Middle), (p, At::Last)])
    {
        let log = Log::default();
        let hooks = chain(policy, at, true, &log);
        let turn = hooks.session("apply-sync-async-hook").begin_turn();
        check(turn.fire::<Note>("hello".to_owned()), policy, at, &log);
    }
}

async fn async_dispatch(async_rewriter: bool) {
    for (policy, at) in POLICIES
        .into_iter()
        .flat_map(|p| [(p, At::Middle), (p, At::Last)])
    {
        let log = Log::default();
        let hooks = chain(policy, at, async_rewriter, &log);
        let turn = hooks.session("apply-async").begin_turn();
        let outcome = tokio::time::timeout(
            Duration::from_secs(10),
            turn.fire_async::<Note>("hello".to_owned()),
        )
        .await
        .expect("the async dispatch finished");
        check(outcome, policy, at, &log);
    }
}

#[tokio::test]
async fn a_panicking_apply_in_the_async_dispatch_fails_the_rewriting_sync_hook() {
    async_dispatch(false).await;
}

#[tokio::test]
async fn a_panicking_apply_in_the_async_dispatch_fails_the_rewriting_async_hook() {
    async_dispatch(true).await;
}
