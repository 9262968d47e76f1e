//! The points only the agent knows the moment of: the turn's start, a permission prompt, the
//! end of a batch of tool calls, the iteration cap, waiting for the user, a resumed session and
//! a compaction.

use std::sync::Arc;

use hookchain_core::points::*;
use hookchain_core::{Flow, HookContext, HookResult, Level, Notification, SessionSource, ToolCall};
use hookchain_runtime::{HookOptions, HooksBuilder};
use parking_lot::Mutex;
use serde_json::json;

#[test]
fn turn_start_injects_context_for_the_turn_and_sees_the_prompt() {
    let hooks = HooksBuilder::new()
        .hook(TurnStart, 0, |start: &TurnStartEvent, _: &HookContext| {
            HookResult::Rewrite(format!("the user asked: {}", start.prompt))
        })
        .hook(TurnStart, 1, |start: &TurnStartEvent, _: &HookContext| {
            // Later hooks see the earlier injections.
            HookResult::Rewrite(format!("{} earlier", start.context.len()))
        })
        .build()
        .unwrap();
    let session = hooks.session("turn-start");
    let turn = session.begin_turn();
    match turn.turn_start("fix the build") {
        Flow::Continue(start) => {
            assert_eq!(start.prompt, "fix the build");
            assert_eq!(
                start.context,
                ["the user asked: fix the build", "1 earlier"]
            );
        }
        Flow::Blocked(b) => panic!("{b:?}"),
    }
    // The context is the turn's only: the session keeps none of it.
    assert!(session.context().is_empty());
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_turn_start_block_ends_the_turn_with_its_reason() {
    let hooks = HooksBuilder::new()
        .hook(TurnStart, 0, |_: &TurnStartEvent, _: &HookContext| {
            HookResult::<String>::block("the budget is spent")
        })
        .build()
        .unwrap();
    let turn = hooks.session("turn-start-block").begin_turn();
    let blocked = turn.turn_start("hi").blocked().expect("blocked");
    assert_eq!(blocked.reason, "the budget is spent");
}

#[test]
fn permission_request_grants_denies_or_leaves_it_to_the_user() {
    let hooks = HooksBuilder::new()
        .hook(
            PermissionRequest,
            0,
            |ask: &PermissionAsk, _: &HookContext| match ask.tool_name.as_str() {
                "read" => HookResult::allow(),
                "make" => HookResult::Rewrite(PermissionGrant::with_args(json!({"jobs": 2}))),
                _ => HookResult::Pass,
            },
        )
        .hook(
            PermissionRequest,
            1,
            |ask: &PermissionAsk, _: &HookContext| {
                // A later hook's block wins over an earlier grant.
                if ask.tool_input["path"] == "/etc/shadow" {
                    return HookResult::block("not that file");
                }
                HookResult::Pass
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("permissions").begin_turn();
    let ask = |name: &str, args| PermissionAsk::new(&ToolCall::new(name, args));

    let granted = turn
        .permission_request(ask("read", json!({"path": "a.txt"})))
        .continued()
        .unwrap();
    assert!(granted.allowed);
    assert_eq!(granted.call().args, json!({"path": "a.txt"}));

    let rewritten = turn
        .permission_request(ask("make", json!({})))
        .continued()
        .unwrap();
    assert!(rewritten.allowed);
    assert_eq!(rewritten.call().args, json!({"jobs": 2}));

    let asked = turn
        .permission_request(ask("shell", json!({"cmd": "ls"})))
        .continued()
        .unwrap();
    assert!(!asked.allowed, "nobody decided: the agent asks the user");

    let denied = turn
        .permission_request(ask("read", json!({"path": "/etc/shadow"})))
        .blocked()
        .expect("denied");
    assert_eq!(denied.reason, "not that file");
}

#[test]
fn after_tool_batch_sees_every_result_of_the_batch() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let hooks = HooksBuilder::new()
        .hook(
            AfterToolBatch,
            0,
            move |batch: &ToolBatch, _: &HookContext| {
                log.lock()
                    .extend(batch.results.iter().map(|r| r.tool_name.clone()));
                HookResult::Rewrite(format!("{} calls ran", batch.results.len()))
            },
        )
        .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            if call.name == "rm" {
                return HookResult::block("no");
            }
            HookResult::Pass
        })
        .build()
        .unwrap();
    let turn = hooks.session("batch").begin_turn();
    let calls = [
        ToolCall::new("ls", json!({})),
        ToolCall::new("rm", json!({})),
    ];
    let results: Vec<_> = calls
        .into_iter()
        .map(|call| turn.run_tool(call, |_| Ok(json!("ok"))).result)
        .collect();
    let batch = turn.after_tool_batch(results).continued().unwrap();
    assert_eq!(*seen.lock(), ["ls", "rm"]);
    assert_eq!(batch.context, ["2 calls ran"]);
    assert!(batch.results[1].is_error);
}

fn notifications(builder: HooksBuilder) -> (HooksBuilder, Arc<Mutex<Vec<Notification>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let builder = builder.hook_with(
        Notify,
        HookOptions::new("notes"),
        move |n: &Notification, _: &HookContext| log.lock().push(n.clone()),
    );
    (builder, seen)
}

#[test]
fn the_iteration_cap_and_waiting_for_the_user_are_notifications_of_their_own_kind() {
    let (builder, seen) = notifications(HooksBuilder::new());
    let hooks = builder.build().unwrap();
    let turn = hooks.session("cap").begin_turn();
    turn.max_iterations_reached(25);
    turn.waiting_for_user("which branch?");
    let seen = seen.lock();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].kind, NotificationKind::MaxIterations);
    assert_eq!(seen[0].level, Level::Warning);
    assert!(seen[0].message.contains("25"), "{}", seen[0].message);
    assert_eq!(seen[1].kind, NotificationKind::UserInput);
    assert_eq!(seen[1].message, "which branch?");
}

#[test]
fn async_twins_fire_the_same_points() {
    let (builder, seen) = notifications(HooksBuilder::new());
    let hooks = builder
        .hook(TurnStart, 0, |_: &TurnStartEvent, _: &HookContext| {
            HookResult::Rewrite("ctx".to_owned())
        })
        .build()
        .unwrap();
    current_thread().block_on(async {
        let session = hooks
            .session_with_async("async-points", SessionSource::Resume)
            .await;
        let turn = session.begin_turn();
        let start = turn.turn_start_async("hi").await.continued().unwrap();
        assert_eq!(start.context, ["ctx"]);
        turn.max_iterations_reached_async(3).await;
        turn.waiting_for_user_async("?").await;
        let ask = PermissionAsk::new(&ToolCall::new("ls", json!({})));
        assert!(
            !turn
                .permission_request_async(ask)
                .await
                .continued()
                .unwrap()
                .allowed
        );
        let batch = turn
            .after_tool_batch_async(Vec::new())
            .await
            .continued()
            .unwrap();
        assert!(batch.results.is_empty());
        let again = session.restart_async(SessionSource::Compact).await;
        assert!(matches!(again, Flow::Continue(_)));
        turn.end_async(TurnEnd::Normal).await;
        session.end_async("done").await;
    });
    assert_eq!(seen.lock().len(), 2);
}

#[test]
fn a_session_starts_with_the_agents_source_and_restarts_after_a_compaction() {
    let sources = Arc::new(Mutex::new(Vec::new()));
    let log = sources.clone();
    let hooks = HooksBuilder::new()
        .hook(
            SessionStart,
            0,
            move |start: &SessionStartEvent, _: &HookContext| {
                log.lock().push(start.source);
                match start.source {
                    SessionSource::Compact => HookResult::Rewrite("re-read PLAN.md".to_owned()),
                    SessionSource::Resume => HookResult::Rewrite("welcome back".to_owned()),
                    _ => HookResult::Pass,
                }
            },
        )
        .build()
        .unwrap();
    let session = hooks.session_with("resumed", SessionSource::Resume);
    assert_eq!(session.context(), ["welcome back"]);
    let state = session.state();
    state.set("kept", true);
    let again = session.restart(SessionSource::Compact).continued().unwrap();
    assert_eq!(again.context, ["re-read PLAN.md"]);
    assert_eq!(again.session_id, "resumed");
    // The same session: its state and its first context stay.
    assert_eq!(session.state().get::<bool>("kept"), Some(true));
    assert_eq!(session.context(), ["welcome back"]);
    assert_eq!(
        *sources.lock(),
        [SessionSource::Resume, SessionSource::Compact]
    );
    session.end("done");
}

#[test]
fn a_hook_asks_for_a_notification_and_the_turn_fires_it_after_the_dispatch() {
    let (builder, seen) = notifications(HooksBuilder::new());
    let hooks = builder
        .hook(BeforeLlmCall, 0, |_: &LlmCall, cx: &HookContext| {
            cx.notify(
                Notification::new(Level::Warning, "budget spent")
                    .source("budget")
                    .kind(NotificationKind::MaxIterations),
            );
            HookResult::block("no more model calls")
        })
        // A notification hook asking for one starts no loop: it is not fired.
        .hook(Notify, 1, |n: &Notification, cx: &HookContext| {
            cx.notify(Notification::new(
                Level::Info,
                format!("echo of {}", n.message),
            ));
        })
        .build()
        .unwrap();
    let turn = hooks.session("notify").begin_turn();
    assert!(turn.before_llm_call(LlmCall::default()).is_blocked());
    let seen = seen.lock().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].message, "budget spent");
    assert_eq!(seen[0].kind, NotificationKind::MaxIterations);
    assert_eq!(seen[0].source.as_deref(), Some("budget"));
    // Outside a session the caller gets them in the outcome.
    let outcome = hooks.dispatch::<BeforeLlmCall>(LlmCall::default());
    assert_eq!(outcome.notifications.len(), 1);
}

/// An async `session_start` hook that asks for a notification.
fn announces<'a>(
    _: &'a SessionStartEvent,
    cx: &'a HookContext<'a>,
) -> hookchain_core::BoxFuture<'a, HookResult<String>> {
    Box::pin(async move {
        cx.notify(Notification::new(Level::Info, "session ready"));
        HookResult::Pass
    })
}

#[test]
fn notifications_asked_for_by_async_hooks_fire_from_the_async_twins() {
    let (builder, seen) = notifications(HooksBuilder::new());
    let hooks = builder
        .async_hook(SessionStart, HookOptions::new("announces"), announces)
        .build()
        .unwrap();
    current_thread().block_on(async {
        let session = hooks.session_async("async-notify").await;
        session.end_async("done").await;
    });
    let seen = seen.lock();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].message, "session ready");
}

/// A current-thread tokio runtime with its timer, for the `_async` twins.
fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}
