//! Each catalog point's semantics, and the driver's guarantees on every exit path.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use hookchain_core::points::*;
use hookchain_core::{
    Compaction, CompactionDone, Flow, HookContext, HookPoint, HookResult, Level, LlmReply, Message,
    Notification, Observed, OnError, Outbound, SessionEndEvent, SessionResetEvent, SessionSource,
    SessionStartEvent, StopEvent, SubagentStopEvent, ToolCall, ToolResult, TurnEnd, TurnEndEvent,
};
use hookchain_runtime::{
    HookOptions, Hooks, HooksBuilder, Stop, get_session_state, get_turn_state,
};
use parking_lot::Mutex;
use serde_json::{Value, json};

type Log = Arc<Mutex<Vec<String>>>;

/// Adds an observer on `P` that logs `label(value)`.
fn log_on<P: HookPoint>(
    builder: HooksBuilder,
    log: &Log,
    point: P,
    label: fn(&P::Input) -> String,
) -> HooksBuilder
where
    (): hookchain_core::IntoHookReturn<P::Rewrite>,
{
    let log = log.clone();
    builder.hook_with(
        point,
        HookOptions::new(format!("log-{}", P::NAME)),
        move |v: &P::Input, _: &HookContext| {
            log.lock().push(label(v));
        },
    )
}

fn lifecycle_log(builder: HooksBuilder, log: &Log) -> HooksBuilder {
    let b = log_on(builder, log, SessionEnd, |e: &SessionEndEvent| {
        format!("session_end {} {}", e.session_id, e.reason)
    });
    let b = log_on(b, log, SessionReset, |e: &SessionResetEvent| {
        format!("session_reset {} -> {}", e.old_session_id, e.new_session_id)
    });
    let b = log_on(b, log, SubagentStop, |e: &SubagentStopEvent| {
        format!(
            "subagent_stop {} parent={}",
            e.session_id, e.parent_session_id
        )
    });
    let b = log_on(b, log, TurnEnded, |e: &TurnEndEvent| {
        format!("turn_end {} #{} {}", e.session_id, e.turn, e.reason)
    });
    log_on(b, log, Notify, |n: &Notification| {
        format!("notification {:?}: {}", n.level, n.message)
    })
}

fn session_start_context(builder: HooksBuilder) -> HooksBuilder {
    builder
        .hook(SessionStart, 1, |e: &SessionStartEvent, _: &HookContext| {
            HookResult::Rewrite(format!("project rules for {}", e.session_id))
        })
        .hook(SessionStart, 2, |e: &SessionStartEvent, _: &HookContext| {
            assert_eq!(e.context.len(), 1, "later hooks see earlier injections");
            match (&e.parent_session_id, e.source) {
                (Some(parent), SessionSource::Subagent) => {
                    HookResult::Rewrite(format!("child of {parent}"))
                }
                (None, SessionSource::Reset) => HookResult::Rewrite("after a reset".to_owned()),
                _ => HookResult::Pass,
            }
        })
}

#[test]
fn session_start_context_persists_for_the_session_and_end_fires_once() {
    let log = Log::default();
    let hooks = lifecycle_log(session_start_context(HooksBuilder::new()), &log)
        .build()
        .unwrap();
    let session = hooks.session("s1");
    assert_eq!(session.context(), ["project rules for s1"]);
    let turn = session.begin_turn();
    turn.end(TurnEnd::Normal);
    assert_eq!(
        session.context(),
        ["project rules for s1"],
        "the context outlives turns"
    );
    let clone = session.clone();
    session.end("exit");
    drop(clone);
    assert_eq!(
        *log.lock(),
        ["turn_end s1 #0 normal", "session_end s1 exit"]
    );
}

#[test]
fn a_session_dropped_without_end_fires_session_end_dropped_and_frees_its_state() {
    let log = Log::default();
    let hooks = lifecycle_log(HooksBuilder::new(), &log).build().unwrap();
    let session = hooks.session("s-drop");
    session.state().set("k", 1);
    let clone = session.clone();
    drop(session);
    assert!(log.lock().is_empty(), "a live clone keeps the session");
    drop(clone);
    assert_eq!(*log.lock(), ["session_end s-drop dropped"]);
    assert!(get_session_state("s-drop").is_empty());
}

#[test]
fn reset_rotates_the_id_fires_session_reset_and_starts_the_new_session() {
    let log = Log::default();
    let hooks = lifecycle_log(session_start_context(HooksBuilder::new()), &log)
        .build()
        .unwrap();
    let session = hooks.session("s-old");
    session.state().set("k", 1);
    let session = session.reset("s-new");
    assert_eq!(session.id(), "s-new");
    assert_eq!(
        session.context(),
        ["project rules for s-new", "after a reset"]
    );
    assert!(get_session_state("s-old").is_empty());
    drop(session);
    assert_eq!(
        *log.lock(),
        ["session_reset s-old -> s-new", "session_end s-new dropped"]
    );
}

#[test]
fn children_share_the_parents_chains_and_subagent_stop_carries_the_parent_id() {
    let log = Log::default();
    let builder = session_start_context(HooksBuilder::new()).hook(
        InterceptToolCall,
        1,
        |c: &ToolCall, cx: &HookContext| {
            if c.name == "rm" {
                HookResult::block(format!("no rm in {}", cx.session_id()))
            } else {
                HookResult::Pass
            }
        },
    );
    let hooks = lifecycle_log(builder, &log).build().unwrap();
    let parent = hooks.session("parent");
    let child = parent.child("parent/child-1");
    assert_eq!(child.parent_id(), Some("parent"));
    assert_eq!(
        child.context(),
        ["project rules for parent/child-1", "child of parent"]
    );
    let turn = child.begin_turn();
    let blocked = turn
        .intercept_tool_call(ToolCall::new("rm", json!({})))
        .blocked()
        .unwrap();
    assert_eq!(
        blocked.reason, "no rm in parent/child-1",
        "the child's tool calls go through the chain"
    );
    turn.end(TurnEnd::Normal);
    child.end("done");
    assert_eq!(
        *log.lock(),
        [
            "turn_end parent/child-1 #0 normal",
            "subagent_stop parent/child-1 parent=parent",
            "session_end parent/child-1 done",
        ]
    );
}

#[test]
fn turn_end_fires_exactly_once_on_every_exit_path_and_the_state_is_cleared() {
    let log = Log::default();
    let hooks = lifecycle_log(HooksBuilder::new(), &log).build().unwrap();
    let session = hooks.session("exits");
    // Normal, with a reason.
    let turn = session.begin_turn();
    turn.state().set("k", 1);
    turn.end(TurnEnd::MaxIterations);
    // Dropped.
    let turn = session.begin_turn();
    turn.state().set("k", 1);
    drop(turn);
    // A panicking tool inside run_tool: the turn goes on and ends normally.
    let turn = session.begin_turn();
    let run = turn.run_tool(ToolCall::new("flaky", json!({})), |_| panic!("tool bug"));
    assert!(run.ran && run.result.is_error);
    turn.end(TurnEnd::Normal);
    // A panic through the turn.
    let result = catch_unwind(AssertUnwindSafe(|| {
        let turn = session.begin_turn();
        turn.state().set("k", 1);
        panic!("agent bug");
    }));
    assert!(result.is_err());
    // Blocked, error, canceled.
    for reason in [
        TurnEnd::Blocked,
        TurnEnd::Error("model down".into()),
        TurnEnd::Canceled,
    ] {
        session.begin_turn().end(reason);
    }
    assert!(get_turn_state("exits").is_empty());
    let ends: Vec<String> = log
        .lock()
        .iter()
        .filter(|l| l.starts_with("turn_end"))
        .cloned()
        .collect();
    assert_eq!(
        ends,
        [
            "turn_end exits #0 max_iterations",
            "turn_end exits #1 canceled",
            "turn_end exits #2 normal",
            "turn_end exits #3 error: the turn panicked",
            "turn_end exits #4 blocked",
            "turn_end exits #5 error: model down",
            "turn_end exits #6 canceled",
        ]
    );
    assert!(
        log.lock()
            .iter()
            .any(|l| l.contains("the tool `flaky` panicked: tool bug"))
    );
}

#[test]
fn run_tool_fires_the_tool_points_in_order_and_the_result_sees_the_call_as_run() {
    let log = Log::default();
    let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
    let hooks = HooksBuilder::new()
        .hook(
            InterceptToolCall,
            1,
            move |c: &ToolCall, _: &HookContext| {
                l1.lock().push(format!("intercept {}", c.args));
                HookResult::Rewrite(json!({"path": "/sandbox/a.txt"}))
            },
        )
        .hook(AfterToolCall, 1, move |r: &ToolResult, _: &HookContext| {
            l2.lock().push(format!(
                "after {} {} error={}",
                r.tool_input, r.tool_response, r.is_error
            ));
        })
        .hook(
            TransformToolResult,
            1,
            move |r: &ToolResult, cx: &HookContext| {
                l3.lock().push(format!("transform {}", r.tool_input));
                cx.add_context("the sandbox is read-only");
                if r.is_error {
                    HookResult::Pass
                } else {
                    HookResult::Rewrite(json!(format!(
                        "{} [checked]",
                        r.tool_response.as_str().unwrap()
                    )))
                }
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("tools");
    let turn = session.begin_turn();
    let run = turn.run_tool(
        ToolCall::new("read_file", json!({"path": "a.txt"})).with_id("c1"),
        |call| {
            assert_eq!(
                call.args,
                json!({"path": "/sandbox/a.txt"}),
                "the tool runs the rewritten call"
            );
            Ok(json!("hello"))
        },
    );
    assert!(run.ran && run.blocked.is_none());
    assert_eq!(run.result.tool_response, json!("hello [checked]"));
    assert_eq!(run.result.tool_use_id.as_deref(), Some("c1"));
    assert_eq!(turn.take_context(), ["the sandbox is read-only"]);
    let failed = turn.run_tool(ToolCall::new("read_file", json!({})), |_| {
        Err("no such file".into())
    });
    assert!(failed.result.is_error);
    assert_eq!(failed.result.tool_response, json!("no such file"));
    assert_eq!(
        *log.lock(),
        [
            r#"intercept {"path":"a.txt"}"#,
            r#"after {"path":"/sandbox/a.txt"} "hello" error=false"#,
            r#"transform {"path":"/sandbox/a.txt"}"#,
            "intercept {}",
            r#"after {"path":"/sandbox/a.txt"} "no such file" error=true"#,
            r#"transform {"path":"/sandbox/a.txt"}"#,
        ]
    );
}

#[test]
fn a_blocked_tool_call_never_runs_and_the_model_gets_the_reason() {
    let log = Log::default();
    let t = log.clone();
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 1, |_: &ToolCall, _: &HookContext| {
            HookResult::block("writes need a plan")
        })
        .hook(
            TransformToolResult,
            1,
            move |_: &ToolResult, _: &HookContext| -> HookResult<Value> {
                t.lock().push("transform_tool_result".into());
                HookResult::Pass
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("blocked-tool");
    let turn = session.begin_turn();
    let run = turn.run_tool(ToolCall::new("write_file", json!({})).with_id("c9"), |_| {
        panic!("must not run")
    });
    assert!(!run.ran);
    assert_eq!(run.blocked.unwrap().reason, "writes need a plan");
    assert!(run.result.is_error);
    assert_eq!(run.result.tool_response, json!("writes need a plan"));
    assert_eq!(run.result.tool_use_id.as_deref(), Some("c9"));
    assert!(log.lock().is_empty(), "no result to transform: {log:?}");
}

fn stop_guard(e: &StopEvent, _: &HookContext) -> HookResult<String> {
    if e.response.contains("TODO") {
        HookResult::block("The reply still has a TODO: finish it.")
    } else {
        HookResult::Pass
    }
}

#[test]
fn on_stop_redoes_with_the_reason_then_caps_and_notifies() {
    let log = Log::default();
    let active = Arc::new(Mutex::new(Vec::new()));
    let active2 = active.clone();
    let hooks = lifecycle_log(HooksBuilder::new(), &log)
        .hook(OnStop, 0, move |e: &StopEvent, _: &HookContext| {
            active2.lock().push((e.stop_hook_active, e.redos));
            HookResult::<String>::Pass
        })
        .hook_with(
            OnStop,
            HookOptions::new("todo-guard").priority(1),
            stop_guard,
        )
        .stop_redo_cap(2)
        .build()
        .unwrap();
    let session = hooks.session("stop");
    let turn = session.begin_turn();
    assert_eq!(
        turn.on_stop("done, TODO tests"),
        Stop::Redo {
            instruction: "The reply still has a TODO: finish it.".into(),
            hook: "todo-guard".into()
        }
    );
    assert!(matches!(turn.on_stop("TODO"), Stop::Redo { .. }));
    let Stop::Capped { response, blocked } = turn.on_stop("still TODO") else {
        panic!("the cap is 2")
    };
    assert_eq!(response, "still TODO");
    assert_eq!(blocked.hook, "todo-guard");
    assert_eq!(turn.redos(), 2);
    assert_eq!(*active.lock(), [(false, 0), (true, 1), (true, 2)]);
    assert!(log.lock().iter().any(|l| {
        l.starts_with("notification Warning: on_stop hook `todo-guard` blocked after 2 redo(s)")
    }));
    turn.end(TurnEnd::MaxIterations);
    // A new turn starts with its redos back at zero, and a clean reply finishes.
    let turn = session.begin_turn();
    assert_eq!(turn.on_stop("all done"), Stop::Finish("all done".into()));
    assert!(matches!(turn.on_stop("TODO"), Stop::Redo { .. }));
}

#[test]
fn before_compaction_can_veto_or_supply_the_summary() {
    let hooks = HooksBuilder::new()
        .hook(BeforeCompaction, 1, |c: &Compaction, _: &HookContext| {
            if c.trigger == "manual" {
                HookResult::block("keep the full history while the plan is being written")
            } else {
                HookResult::Rewrite(format!(
                    "{} messages about the login feature",
                    c.messages.len()
                ))
            }
        })
        .build()
        .unwrap();
    let session = hooks.session("compaction");
    let turn = session.begin_turn();
    let messages = vec![Message::user("a"), Message::assistant("b")];
    let veto = turn.before_compaction(Compaction {
        messages: messages.clone(),
        trigger: "manual".into(),
        summary: None,
    });
    assert!(veto.is_blocked());
    let auto = turn
        .before_compaction(Compaction {
            messages,
            trigger: "auto".into(),
            summary: None,
        })
        .continued()
        .unwrap();
    assert_eq!(
        auto.summary.as_deref(),
        Some("2 messages about the login feature")
    );
    let done = CompactionDone {
        summary: "s".into(),
        messages_before: 2,
        messages_after: 1,
    };
    assert_eq!(turn.after_compaction(done.clone()), done);
}

#[test]
fn response_outbound_and_llm_reply_points() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let hooks = HooksBuilder::new()
        .hook(TransformResponse, 1, |r: &str, _: &HookContext| {
            HookResult::Rewrite(r.replace("sk-123", "[secret]"))
        })
        .hook(TransformResponse, 2, |r: &str, _: &HookContext| {
            HookResult::Rewrite(format!("{r}\n-- sent by hookchain"))
        })
        .hook(OutboundMessage, 1, |m: &Outbound, _: &HookContext| {
            if m.platform == "slack" && m.text.contains("[secret]") {
                HookResult::block("secrets never leave for Slack")
            } else {
                HookResult::Rewrite(m.text.to_uppercase())
            }
        })
        .hook(AfterLlmCall, 1, move |r: &LlmReply, _: &HookContext| {
            seen2.lock().push(r.tool_calls.len())
        })
        .build()
        .unwrap();
    let session = hooks.session("response");
    let turn = session.begin_turn();
    let reply = turn
        .transform_response("the key is sk-123")
        .continued()
        .unwrap();
    assert_eq!(reply, "the key is [secret]\n-- sent by hookchain");
    let out = Outbound {
        platform: "slack".into(),
        recipient: "#dev".into(),
        text: reply,
    };
    assert!(turn.outbound_message(out).is_blocked());
    let out = Outbound {
        platform: "telegram".into(),
        recipient: "me".into(),
        text: "hi".into(),
    };
    assert_eq!(turn.outbound_message(out).continued().unwrap().text, "HI");
    let reply = LlmReply {
        text: "x".into(),
        tool_calls: vec![ToolCall::new("ls", json!({}))],
    };
    assert_eq!(turn.after_llm_call(reply.clone()), reply);
    assert_eq!(*seen.lock(), [1]);
}

#[test]
fn observers_all_run_even_if_one_panics_and_failures_become_notifications() {
    let log = Log::default();
    let builder = lifecycle_log(HooksBuilder::new(), &log)
        .hook_with(
            AfterToolCall,
            HookOptions::new("broken-audit").priority(0),
            |_: &ToolResult, _: &HookContext| -> () { panic!("audit log is full") },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("strict")
                .priority(0)
                .on_error(OnError::Block),
            |_: &ToolCall, _: &HookContext| -> Result<HookResult<Value>, String> {
                Err("policy unreadable".into())
            },
        );
    let l = log.clone();
    let hooks = builder
        .hook_with(
            AfterToolCall,
            HookOptions::new("second-audit").priority(1),
            move |r: &ToolResult, _: &HookContext| {
                l.lock().push(format!("audited {}", r.tool_name));
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("observers");
    let turn = session.begin_turn();
    let result = ToolResult::new(&ToolCall::new("ls", json!({})), Ok(json!([])));
    assert_eq!(turn.after_tool_call(result.clone()), result);
    let blocked = turn
        .intercept_tool_call(ToolCall::new("ls", json!({})))
        .blocked()
        .unwrap();
    assert!(blocked.failed);
    let log = log.lock();
    assert!(log.contains(&"audited ls".to_string()));
    assert!(
        log.iter().any(|l| l
            .starts_with("notification Warning: hook `broken-audit` panicked: audit log is full")),
        "{log:?}"
    );
    assert!(
        log.iter()
            .any(|l| l.starts_with("notification Error: hook `strict` failed: policy unreadable")),
        "{log:?}"
    );
}

#[test]
fn every_catalog_point_is_dispatchable_through_its_turn_method_or_fire() {
    // Observe points hand back their value unchanged, whatever the hooks return.
    let hooks = Hooks::builder().build().unwrap();
    let session = hooks.session("catalog");
    let turn = session.begin_turn();
    let n = Notification {
        level: Level::Info,
        message: "m".into(),
        source: None,
        kind: NotificationKind::General,
    };
    assert_eq!(turn.notify(n.clone()), n);
    let outcome = turn.fire::<SessionEnd>(SessionEndEvent {
        session_id: "x".into(),
        reason: "r".into(),
    });
    assert!(!outcome.is_blocked());
    let _: fn(Observed) = |o| match o {};
    let command = SlashCommand::new("notes", "add x");
    let outcome = session.fire::<OnSlashCommand>(command.clone());
    assert_eq!(outcome.flow.continued(), Some(command));
    assert_eq!(catalog().len(), 21);
    assert!(matches!(turn.transform_user_input("hi"), Flow::Continue(t) if t == "hi"));
}

fn never_finishes<'a>(
    _: &'a ToolResult,
    _: &'a HookContext<'a>,
) -> hookchain_core::BoxFuture<'a, ()> {
    Box::pin(std::future::pending())
}

#[test]
fn an_async_observer_cannot_hold_the_turn_past_its_timeout() {
    use std::time::{Duration, Instant};
    let log = Log::default();
    let hooks = lifecycle_log(HooksBuilder::new(), &log)
        .async_hook(
            AfterToolCall,
            HookOptions::new("stuck-observer"),
            never_finishes,
        )
        .observer_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let session = hooks.session("stuck");
    let turn = session.begin_turn();
    let started = Instant::now();
    let run = turn.run_tool(ToolCall::new("ls", json!({})), |_| Ok(json!("ok")));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the observer was cut off"
    );
    assert_eq!(run.result.tool_response, json!("ok"));
    assert!(
        log.lock()
            .iter()
            .any(|l| l.contains("hook `stuck-observer` failed: timed out after 100ms")),
        "{:?}",
        log.lock()
    );
}

#[tokio::test]
async fn an_async_observer_is_cut_off_in_the_async_dispatch_too() {
    use std::time::{Duration, Instant};
    let hooks = HooksBuilder::new()
        .async_hook(
            AfterToolCall,
            HookOptions::new("stuck-observer"),
            never_finishes,
        )
        .observer_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let session = hooks.session("stuck-async");
    let turn = session.begin_turn();
    let started = Instant::now();
    let result = ToolResult::new(&ToolCall::new("ls", json!({})), Ok(json!("ok")));
    let outcome = turn.fire_async::<AfterToolCall>(result).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.failures[0].hook, "stuck-observer");
    assert!(outcome.failures[0].error.contains("timed out"));
}

#[test]
fn dispatch_in_session_fires_one_chain_with_the_given_id_and_state() {
    let log: Log = Arc::default();
    let seen = log.clone();
    let hooks = lifecycle_log(HooksBuilder::new(), &log)
        .hook(
            SessionStart,
            0,
            |_: &SessionStartEvent, _: &HookContext| -> HookResult<String> {
                panic!("session_start must not fire")
            },
        )
        .hook(OnStop, 0, move |_: &StopEvent, cx: &HookContext| {
            let mode: Option<String> = cx.session_state().get("mode");
            seen.lock()
                .push(format!("on_stop {} {mode:?}", cx.session_id()));
            HookResult::<String>::Pass
        })
        .hook_with(
            OnStop,
            HookOptions::new("fails")
                .priority(1)
                .on_error(OnError::Warn),
            |_: &StopEvent, _: &HookContext| -> HookResult<String> { panic!("boom") },
        )
        .build()
        .unwrap();
    let state = hookchain_core::SessionState::default();
    state.set("mode", "plan");
    let stop = StopEvent {
        response: "Done.".into(),
        stop_hook_active: false,
        redos: 0,
    };
    let outcome = hooks.dispatch_in_session::<OnStop>("abc-123", &state, stop);
    assert!(matches!(outcome.flow, Flow::Continue(_)));
    assert_eq!(outcome.failures.len(), 1, "{:?}", outcome.failures);
    // The chain of on_stop alone: no session_start, no session_end, no notification of the
    // failure.
    assert_eq!(*log.lock(), ["on_stop abc-123 Some(\"plan\")"]);
}
