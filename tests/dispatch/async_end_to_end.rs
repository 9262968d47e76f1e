//! Async, end to end: an agent on tokio drives a whole session through the `_async` methods —
//! `Hooks::session_async`, `Session::{child_async, fire_async, reset_async, end_async}`, the
//! points' twins, `Turn::{run_tool_async, on_stop_async, end_async}` — with hooks that await
//! tokio's timer at every point, in a current-thread and in a multi-thread runtime. Every test is
//! bounded with `tokio::time::timeout`: nothing here blocks the runtime, so the timeout can fire.

use std::sync::Arc;
use std::time::Duration;

use hookchain::points::{
    AfterToolCall, InterceptToolCall, Notify, OnStop, SessionEnd, SessionReset, SessionStart,
    SubagentStop, TransformToolResult, TransformUserInput, TurnEnded,
};
use hookchain::points::{
    Level, Notification, NotificationKind, SessionEndEvent, SessionResetEvent, SessionStartEvent,
    StopEvent, SubagentStopEvent, ToolResult, TurnEndEvent,
};
use hookchain::registry::BoxFuture;
use hookchain::{HookContext, prelude::*};
use hookchain::{HookOptions, HooksBuilder, Stop};
use parking_lot::Mutex;

type Log = Arc<Mutex<Vec<String>>>;

/// A short wait on tokio's timer: a hook that needs the runtime to go on.
async fn nap() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

/// Gives a closure the signature `async_hook` expects.
fn async_fn<I: ?Sized, R, F>(f: F) -> F
where
    F: for<'a> Fn(&'a I, &'a HookContext<'a>) -> BoxFuture<'a, R>,
{
    f
}

/// A registry with one async hook, awaiting tokio's timer, on every point the session uses.
fn registry(log: &Log) -> Hooks {
    let l = log.clone();
    let start = async_fn(move |e: &SessionStartEvent, cx: &HookContext| {
        let l = l.clone();
        Box::pin(async move {
            nap().await;
            cx.session_state().set("source", format!("{:?}", e.source));
            l.lock().push(format!("session_start {}", e.session_id));
            HookResult::Rewrite(format!("rules for {}", e.session_id))
        }) as BoxFuture<'_, HookResult<String>>
    });
    let input = async_fn(|text: &str, _: &HookContext| {
        Box::pin(async move {
            nap().await;
            HookResult::Rewrite(text.to_uppercase())
        }) as BoxFuture<'_, HookResult<String>>
    });
    let intercept = async_fn(|call: &ToolCall, cx: &HookContext| {
        Box::pin(async move {
            nap().await;
            // The turn's state, through the context and through the id, across `.await`s.
            cx.turn_state()
                .update("calls", |n: &mut u32| *n += 1)
                .unwrap();
            nap().await;
            let by_id: u32 = get_turn_state(cx.session_id()).get("calls").unwrap();
            if call.name == "rm" {
                return HookResult::block("no rm");
            }
            HookResult::Rewrite(json!({"sandboxed": true, "calls": by_id}))
        }) as BoxFuture<'_, HookResult<Value>>
    });
    let l = log.clone();
    let after = async_fn(move |r: &ToolResult, _: &HookContext| {
        let l = l.clone();
        Box::pin(async move {
            nap().await;
            l.lock()
                .push(format!("after_tool_call {}", r.tool_response));
        }) as BoxFuture<'_, ()>
    });
    let transform = async_fn(|r: &ToolResult, _: &HookContext| {
        Box::pin(async move {
            nap().await;
            HookResult::Rewrite(json!(format!("{} [checked]", r.tool_response)))
        }) as BoxFuture<'_, HookResult<Value>>
    });
    let stop = async_fn(|e: &StopEvent, _: &HookContext| {
        Box::pin(async move {
            nap().await;
            if e.response.contains("TODO") {
                HookResult::block("finish the TODO")
            } else {
                HookResult::Pass
            }
        }) as BoxFuture<'_, HookResult<String>>
    });
    let l = log.clone();
    let turn_end = async_fn(move |e: &TurnEndEvent, cx: &HookContext| {
        let l = l.clone();
        Box::pin(async move {
            nap().await;
            let calls: u32 = cx.turn_state().get("calls").unwrap_or(0);
            l.lock().push(format!(
                "turn_end {} {} calls={calls}",
                e.session_id, e.reason
            ));
        }) as BoxFuture<'_, ()>
    });
    let l = log.clone();
    let subagent = async_fn(move |e: &SubagentStopEvent, _: &HookContext| {
        let l = l.clone();
        Box::pin(async move {
            nap().await;
            l.lock().push(format!(
                "subagent_stop {} parent={}",
                e.session_id, e.parent_session_id
            ));
        }) as BoxFuture<'_, ()>
    });
    let l = log.clone();
    let end = async_fn(move |e: &SessionEndEvent, _: &HookContext| {
        let l = l.clone();
        Box::pin(async move {
            nap().await;
            l.lock()
                .push(format!("session_end {} {}", e.session_id, e.reason));
        }) as BoxFuture<'_, ()>
    });
    let l = log.clone();
    let reset = async_fn(move |e: &SessionResetEvent, _: &HookContext| {
        let l = l.clone();
        Box::pin(async move {
            nap().await;
            l.lock().push(format!(
                "session_reset {} -> {}",
                e.old_session_id, e.new_session_id
            ));
        }) as BoxFuture<'_, ()>
    });
    let l = log.clone();
    let notify = async_fn(move |n: &Notification, _: &HookContext| {
        let l = l.clone();
        Box::pin(async move {
            nap().await;
            l.lock().push(format!("notification {}", n.message));
        }) as BoxFuture<'_, ()>
    });
    HooksBuilder::new()
        .async_hook(SessionStart, HookOptions::new("start"), start)
        .async_hook(TransformUserInput, HookOptions::new("input"), input)
        .async_hook(InterceptToolCall, HookOptions::new("intercept"), intercept)
        .async_hook(AfterToolCall, HookOptions::new("after"), after)
        .async_hook(
            TransformToolResult,
            HookOptions::new("transform"),
            transform,
        )
        .async_hook(OnStop, HookOptions::new("stop"), stop)
        .async_hook(TurnEnded, HookOptions::new("turn_end"), turn_end)
        .async_hook(SubagentStop, HookOptions::new("subagent"), subagent)
        .async_hook(SessionEnd, HookOptions::new("end"), end)
        .async_hook(SessionReset, HookOptions::new("reset"), reset)
        .async_hook(Notify, HookOptions::new("notify"), notify)
        .build()
        .unwrap()
}

/// One session, driven through every `_async` method.
async fn agent(prefix: &str) {
    let log = Log::default();
    let hooks = registry(&log);
    let id = format!("{prefix}-session");

    let session = hooks.session_async(id.clone()).await;
    assert_eq!(session.context(), [format!("rules for {id}")]);
    assert_eq!(session.state().get::<String>("source").unwrap(), "Startup");

    let turn = session.begin_turn();
    let text = turn.transform_user_input_async("fix the bug").await;
    assert_eq!(text.continued().unwrap(), "FIX THE BUG");

    // A tool call, all of it awaited: the hooks, and the tool itself.
    let run = turn
        .run_tool_async(
            ToolCall::new("read_file", json!({})),
            async |call: &ToolCall| {
                nap().await;
                assert_eq!(
                    call.args["sandboxed"],
                    json!(true),
                    "the tool runs the rewrite"
                );
                Ok(json!("contents"))
            },
        )
        .await;
    assert!(run.ran && run.blocked.is_none());
    assert_eq!(run.result.tool_response, json!("\"contents\" [checked]"));
    assert_eq!(run.result.tool_input["calls"], json!(1));
    let refused = turn
        .run_tool_async(ToolCall::new("rm", json!({})), async |_: &ToolCall| {
            panic!("a blocked tool never runs")
        })
        .await;
    assert!(!refused.ran);
    assert_eq!(refused.result.tool_response, json!("no rm"));
    // A tool that panics becomes an error result, and a notification.
    let crashed = turn
        .run_tool_async(ToolCall::new("flaky", json!({})), async |_: &ToolCall| {
            nap().await;
            panic!("tool bug")
        })
        .await;
    assert!(crashed.ran && crashed.result.is_error);

    assert!(matches!(
        turn.on_stop_async("done, TODO tests").await,
        Stop::Redo { .. }
    ));
    assert_eq!(turn.redos(), 1);
    assert_eq!(
        turn.on_stop_async("all done").await,
        Stop::Finish("all done".to_owned())
    );

    // Session::fire_async, at the session's level.
    let note = Notification {
        level: Level::Info,
        message: "from the session".to_owned(),
        source: None,
        kind: NotificationKind::General,
    };
    let outcome = session.fire_async::<Notify>(note).await;
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);

    turn.end_async(TurnEnd::Normal).await;
    turn.end_async(TurnEnd::Canceled).await;
    assert!(turn.state().is_empty());

    let child = session.child_async(format!("{id}/child")).await;
    assert_eq!(child.parent_id(), Some(id.as_str()));
    child.end_async("child done").await;
    child.end_async("twice").await;

    let session = session.reset_async(format!("{id}-2")).await;
    assert_eq!(session.state().get::<String>("source").unwrap(), "Reset");
    session.end_async("bye").await;

    assert_eq!(
        *log.lock(),
        [
            format!("session_start {id}"),
            "after_tool_call \"contents\"".to_owned(),
            // The refused call reaches the audit too, with the reason.
            "after_tool_call \"no rm\"".to_owned(),
            "notification the tool `flaky` panicked: tool bug".to_owned(),
            "after_tool_call \"the tool `flaky` panicked: tool bug\"".to_owned(),
            "notification from the session".to_owned(),
            format!("turn_end {id} normal calls=3"),
            format!("session_start {id}/child"),
            format!("subagent_stop {id}/child parent={id}"),
            format!("session_end {id}/child child done"),
            format!("session_reset {id} -> {id}-2"),
            format!("session_start {id}-2"),
            format!("session_end {id}-2 bye"),
        ]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn every_async_method_in_a_current_thread_runtime() {
    tokio::time::timeout(Duration::from_secs(20), agent("ct"))
        .await
        .expect("the session finishes in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_async_method_in_a_multi_thread_runtime() {
    // On a spawned task, so the session's futures move between the worker threads.
    let task = tokio::spawn(agent("mt"));
    tokio::time::timeout(Duration::from_secs(20), task)
        .await
        .expect("the session finishes in time")
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_overlapping_turns_on_two_tasks_each_see_their_own_state() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let hook = async_fn(move |call: &ToolCall, cx: &HookContext| {
        let seen = seen2.clone();
        Box::pin(async move {
            nap().await;
            let by_cx: String = cx.turn_state().get("who").unwrap();
            nap().await;
            let by_id: String = get_turn_state(cx.session_id()).get("who").unwrap();
            seen.lock().push((call.name.clone(), by_cx, by_id));
            HookResult::<Value>::Pass
        }) as BoxFuture<'_, HookResult<Value>>
    });
    let hooks = HooksBuilder::new()
        .async_hook(InterceptToolCall, HookOptions::new("who"), hook)
        .build()
        .unwrap();
    let session = hooks.session_async("overlap-tasks").await;
    let tasks: Vec<_> = ["first", "second"]
        .into_iter()
        .map(|who| {
            let turn = session.begin_turn();
            turn.state().set("who", who);
            tokio::spawn(async move {
                for _ in 0..20 {
                    let _ = turn
                        .intercept_tool_call_async(ToolCall::new(who, json!({})))
                        .await;
                }
                turn.end_async(TurnEnd::Normal).await;
            })
        })
        .collect();
    let all = async {
        for task in tasks {
            task.await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(20), all)
        .await
        .expect("in time");
    let seen = std::mem::take(&mut *seen.lock());
    assert_eq!(seen.len(), 40);
    for (name, by_cx, by_id) in seen.iter() {
        assert_eq!((by_cx, by_id), (name, name));
    }
    session.end_async("done").await;
}

/// An `end_async` whose future is dropped half-way (the agent's task was canceled) has ended the
/// turn; its state is cleared at the latest when the turn's last clone goes.
#[tokio::test(flavor = "current_thread")]
async fn a_canceled_end_async_still_clears_the_state_when_the_turn_goes() {
    fn slow_end<'a>(_: &'a TurnEndEvent, _: &'a HookContext<'a>) -> BoxFuture<'a, ()> {
        Box::pin(tokio::time::sleep(Duration::from_secs(60)))
    }
    let hooks = HooksBuilder::new()
        .async_hook(TurnEnded, HookOptions::new("slow"), slow_end)
        .build()
        .unwrap();
    let session = hooks.session_async("canceled-end").await;
    let turn = session.begin_turn();
    let state = turn.state().clone();
    state.set("k", 1);
    let canceled =
        tokio::time::timeout(Duration::from_millis(20), turn.end_async(TurnEnd::Normal)).await;
    assert!(canceled.is_err(), "the end was canceled half-way");
    assert!(turn.is_ended());
    drop(turn);
    assert!(state.is_empty());
    assert!(get_turn_state("canceled-end").is_empty());
    session.end_async("done").await;
}
