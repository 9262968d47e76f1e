//! The six chain rules, through hooks added with the builder.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hookchain_core::points::{BeforeLlmCall, InterceptToolCall, TransformUserInput, TurnEnded};
use hookchain_core::{
    BoxFuture, Flow, HookContext, HookResult, Injection, LlmCall, Message, OnError, ToolCall,
    TurnEndEvent,
};
use hookchain_runtime::{BuildError, HookOptions, Hooks, HooksBuilder};
use parking_lot::Mutex;
use serde_json::{Value, json};

type Log = Arc<Mutex<Vec<String>>>;

/// A hook that records its name and passes.
fn recorder(
    log: &Log,
    name: &'static str,
) -> impl Fn(&ToolCall, &HookContext) -> HookResult<Value> + Send + Sync + 'static {
    let log = log.clone();
    move |_call, _cx| {
        log.lock().push(name.to_owned());
        HookResult::Pass
    }
}

fn call(name: &str) -> ToolCall {
    ToolCall::new(name, json!({"path": "src/lib.rs"}))
}

#[test]
fn lower_priority_runs_first_and_ties_break_by_name_whatever_the_order_added() {
    let log = Log::default();
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("c").priority(5),
            recorder(&log, "c5"),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("b").priority(10),
            recorder(&log, "b10"),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("a").priority(10),
            recorder(&log, "a10"),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("z").priority(-3),
            recorder(&log, "z-3"),
        )
        .build()
        .unwrap();
    let turn = hooks.session("order").begin_turn();
    assert!(!turn.intercept_tool_call(call("ls")).is_blocked());
    assert_eq!(*log.lock(), ["z-3", "c5", "a10", "b10"]);
    let names: Vec<&str> = hooks
        .chain_of("intercept_tool_call")
        .iter()
        .map(|h| &*h.name)
        .collect();
    assert_eq!(names, ["z", "c", "a", "b"]);
}

#[test]
fn a_rewrite_is_seen_downstream_and_the_caller_gets_the_final_value() {
    let seen = Arc::new(Mutex::new(None));
    let seen2 = seen.clone();
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("sandbox").priority(1),
            |c: &ToolCall, _: &HookContext| {
                let path = c.str_arg("path").unwrap_or_default();
                HookResult::Rewrite(json!({"path": format!("/sandbox/{path}")}))
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("observer").priority(2),
            move |c: &ToolCall, _: &HookContext| {
                *seen2.lock() = Some(c.args.clone());
                HookResult::<Value>::Pass
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("readonly").priority(3),
            |c: &ToolCall, _: &HookContext| {
                let mut args = c.args.clone();
                args["readonly"] = json!(true);
                HookResult::Rewrite(args)
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("rewrite").begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(call("read_file").with_id("call-1"));
    assert_eq!(outcome.rewritten_by, ["sandbox", "readonly"]);
    let Flow::Continue(final_call) = outcome.flow else {
        panic!("not blocked")
    };
    assert_eq!(
        final_call.args,
        json!({"path": "/sandbox/src/lib.rs", "readonly": true})
    );
    assert_eq!(final_call.name, "read_file", "a rewrite carries args only");
    assert_eq!(final_call.id.as_deref(), Some("call-1"));
    assert_eq!(*seen.lock(), Some(json!({"path": "/sandbox/src/lib.rs"})));
}

#[test]
fn a_block_stops_later_hooks_and_names_the_hook() {
    let log = Log::default();
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("first").priority(1),
            recorder(&log, "first"),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard").priority(2),
            |c: &ToolCall, _: &HookContext| {
                if c.name == "rm" {
                    HookResult::block("rm is not allowed")
                } else {
                    HookResult::Pass
                }
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("last").priority(3),
            recorder(&log, "last"),
        )
        .build()
        .unwrap();
    let turn = hooks.session("block").begin_turn();
    let Flow::Blocked(blocked) = turn.intercept_tool_call(call("rm")) else {
        panic!("expected a block")
    };
    assert_eq!(blocked.reason, "rm is not allowed");
    assert_eq!(blocked.hook, "guard");
    assert!(!blocked.failed);
    assert_eq!(*log.lock(), ["first"], "hooks after the block never ran");
    log.lock().clear();
    assert!(!turn.intercept_tool_call(call("ls")).is_blocked());
    assert_eq!(*log.lock(), ["first", "last"]);
}

#[test]
fn metadata_flows_to_later_hooks_and_back_to_the_caller_with_context_and_warnings() {
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("classify").priority(1),
            |_: &ToolCall, cx: &HookContext| {
                cx.set_metadata("risk", "high");
                cx.add_context("the file is generated; edit the template instead");
                HookResult::<Value>::Pass
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("react").priority(2),
            |_: &ToolCall, cx: &HookContext| {
                assert_eq!(cx.hook_name(), "react");
                assert_eq!(cx.point(), "intercept_tool_call");
                assert_eq!(cx.session_id(), "metadata");
                if cx.get_metadata("risk") == Some(json!("high")) {
                    cx.warn("a high-risk tool call ran");
                    cx.set_metadata("reviewed", true);
                }
                HookResult::<Value>::Pass
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("metadata").begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(call("write_file"));
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.metadata.get("risk"), Some(&json!("high")));
    assert_eq!(outcome.metadata.get("reviewed"), Some(&json!(true)));
    assert_eq!(
        outcome.context,
        ["the file is generated; edit the template instead"]
    );
    assert_eq!(outcome.warnings, ["a high-risk tool call ran"]);
    assert_eq!(
        turn.take_context(),
        ["the file is generated; edit the template instead"]
    );
    assert_eq!(turn.take_warnings(), ["a high-risk tool call ran"]);
    assert!(
        turn.take_context().is_empty(),
        "take_context empties the list"
    );
}

#[test]
fn metadata_lives_for_one_dispatch_only() {
    let seen_at_start = Arc::new(Mutex::new(Vec::new()));
    let seen = seen_at_start.clone();
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("first").priority(0),
            move |_: &ToolCall, cx: &HookContext| {
                seen.lock().push(cx.metadata().len());
                cx.set_metadata("seen", true);
                HookResult::<Value>::Pass
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("metadata-once").begin_turn();
    for _ in 0..3 {
        let outcome = turn.fire::<InterceptToolCall>(call("ls"));
        assert_eq!(outcome.metadata.len(), 1);
    }
    assert_eq!(*seen_at_start.lock(), [0, 0, 0]);
}

fn panicking(_: &ToolCall, _: &HookContext) -> HookResult<Value> {
    panic!("the guard's config is missing")
}

fn erroring(_: &ToolCall, _: &HookContext) -> Result<HookResult<Value>, String> {
    Err("policy server unreachable".to_owned())
}

fn failing_chain(policy: OnError, fail_by_panic: bool, log: &Log) -> Hooks {
    let options = HookOptions::new("flaky").priority(2).on_error(policy);
    let builder = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("before").priority(1),
            recorder(log, "before"),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("after").priority(3),
            recorder(log, "after"),
        );
    let builder = if fail_by_panic {
        builder.hook_with(InterceptToolCall, options, panicking)
    } else {
        builder.hook_with(InterceptToolCall, options, erroring)
    };
    builder.build().unwrap()
}

#[test]
fn a_panic_or_err_under_on_error_pass_is_isolated_and_the_chain_goes_on() {
    for by_panic in [true, false] {
        let log = Log::default();
        let hooks = failing_chain(OnError::Pass, by_panic, &log);
        let turn = hooks.session("fail-pass").begin_turn();
        let outcome = turn.fire::<InterceptToolCall>(call("ls"));
        let Flow::Continue(value) = outcome.flow else {
            panic!("on_error = pass must not block")
        };
        assert_eq!(value, call("ls"), "the value survives the failed hook");
        assert_eq!(*log.lock(), ["before", "after"]);
        assert_eq!(outcome.failures.len(), 1);
        let failure = &outcome.failures[0];
        assert_eq!(failure.hook, "flaky");
        assert_eq!(failure.panicked, by_panic);
        assert_eq!(failure.on_error, OnError::Pass);
        let expected = if by_panic {
            "the guard's config is missing"
        } else {
            "policy server unreachable"
        };
        assert_eq!(failure.error, expected);
    }
}

#[test]
fn a_panic_or_err_under_on_error_block_blocks_with_a_reason_naming_the_hook() {
    for by_panic in [true, false] {
        let log = Log::default();
        let hooks = failing_chain(OnError::Block, by_panic, &log);
        let turn = hooks.session("fail-block").begin_turn();
        let Flow::Blocked(blocked) = turn.intercept_tool_call(call("ls")) else {
            panic!("must block")
        };
        assert_eq!(blocked.hook, "flaky");
        assert!(blocked.failed);
        assert!(
            blocked.reason.contains("hook `flaky`"),
            "{}",
            blocked.reason
        );
        assert!(
            blocked
                .reason
                .contains(if by_panic { "panicked" } else { "failed" }),
            "{}",
            blocked.reason
        );
        assert_eq!(
            *log.lock(),
            ["before"],
            "hooks after the failed one never ran"
        );
    }
}

#[test]
fn a_panicking_hook_between_rewrites_keeps_the_earlier_rewrite() {
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("a").priority(1),
            |_: &ToolCall, _: &HookContext| HookResult::Rewrite(json!({"n": 1})),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("b").priority(2),
            panicking,
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("c").priority(3),
            |c: &ToolCall, _: &HookContext| {
                HookResult::Rewrite(json!({"n": c.args["n"].as_i64().unwrap() + 1}))
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("d").priority(4),
            panicking,
        )
        .build()
        .unwrap();
    let turn = hooks.session("panic-rewrite").begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(call("x"));
    assert_eq!(outcome.flow.continued().unwrap().args, json!({"n": 2}));
    assert_eq!(outcome.rewritten_by, ["a", "c"]);
    let failed: Vec<&str> = outcome.failures.iter().map(|f| f.hook.as_str()).collect();
    assert_eq!(failed, ["b", "d"]);
}

#[test]
fn user_input_rewrite_and_block_with_a_reply() {
    let hooks = HooksBuilder::new()
        .hook(TransformUserInput, 1, |text: &str, _: &HookContext| {
            if text.starts_with("implement") {
                HookResult::Rewrite(format!("/start-feature {text}"))
            } else if text.contains("password") {
                HookResult::block("Please do not paste secrets here.")
            } else {
                HookResult::Pass
            }
        })
        .build()
        .unwrap();
    let turn = hooks.session("input").begin_turn();
    assert_eq!(
        turn.transform_user_input("implement login"),
        Flow::Continue("/start-feature implement login".to_owned())
    );
    assert_eq!(
        turn.transform_user_input("hello"),
        Flow::Continue("hello".to_owned())
    );
    let blocked = turn
        .transform_user_input("my password is x")
        .blocked()
        .unwrap();
    assert_eq!(blocked.reason, "Please do not paste secrets here.");
}

#[test]
fn llm_injections_accumulate_in_chain_order() {
    let hooks = HooksBuilder::new()
        .hook(BeforeLlmCall, 2, |_: &LlmCall, _: &HookContext| {
            HookResult::Rewrite(Injection::system("second").and_user("user note"))
        })
        .hook(BeforeLlmCall, 1, |call: &LlmCall, _: &HookContext| {
            assert_eq!(call.system_prompt, "base");
            HookResult::inject_system("first")
        })
        .hook(BeforeLlmCall, 3, |call: &LlmCall, _: &HookContext| {
            assert!(
                call.system_prompt.ends_with("second"),
                "later hooks see earlier injections"
            );
            HookResult::<Injection>::Pass
        })
        .build()
        .unwrap();
    let turn = hooks.session("inject").begin_turn();
    let call = turn
        .before_llm_call(LlmCall::new("base", vec![Message::user("hi")]))
        .continued()
        .unwrap();
    assert_eq!(call.system_prompt, "base\n\nfirst\n\nsecond");
    assert_eq!(
        call.messages,
        [Message::user("hi"), Message::user("user note")]
    );
}

#[test]
fn observe_points_run_every_hook_even_when_one_panics_or_blocks() {
    let count = Arc::new(AtomicUsize::new(0));
    let (c1, c2) = (count.clone(), count.clone());
    let hooks = HooksBuilder::new()
        .hook_with(
            TurnEnded,
            HookOptions::new("a").priority(1).on_error(OnError::Block),
            |_: &TurnEndEvent, _: &HookContext| -> () { panic!("observer bug") },
        )
        .hook_with(
            TurnEnded,
            HookOptions::new("b").priority(2),
            move |_: &TurnEndEvent, _: &HookContext| {
                c1.fetch_add(1, Ordering::SeqCst);
                HookResult::block("observers cannot block")
            },
        )
        .hook_with(
            TurnEnded,
            HookOptions::new("c").priority(3),
            move |_: &TurnEndEvent, _: &HookContext| {
                c2.fetch_add(1, Ordering::SeqCst);
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("observe");
    let turn = session.begin_turn();
    let outcome = turn.fire::<TurnEnded>(TurnEndEvent {
        session_id: "observe".into(),
        turn: 0,
        reason: hookchain_core::TurnEnd::Normal,
    });
    assert!(!outcome.is_blocked());
    assert_eq!(count.load(Ordering::SeqCst), 2);
    assert_eq!(
        outcome.failures[0].on_error,
        OnError::Pass,
        "observe points never fail closed"
    );
}

fn slow_guard<'a>(call: &'a ToolCall, cx: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    Box::pin(async move {
        tokio::task::yield_now().await;
        cx.set_metadata("async_saw", call.args.clone());
        if call.name == "deploy" {
            HookResult::block("deploys are frozen")
        } else {
            HookResult::Rewrite(json!({"path": "async.rs"}))
        }
    })
}

fn async_panics<'a>(_: &'a ToolCall, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    Box::pin(async move {
        tokio::task::yield_now().await;
        panic!("async hook bug")
    })
}

fn mixed_chain(log: &Log) -> Hooks {
    let log2 = log.clone();
    HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("sync-1").priority(1),
            |_: &ToolCall, _: &HookContext| HookResult::Rewrite(json!({"path": "sync.rs"})),
        )
        .async_hook(
            InterceptToolCall,
            HookOptions::new("async-2").priority(2),
            slow_guard,
        )
        .async_hook(
            InterceptToolCall,
            HookOptions::new("async-panics").priority(3),
            async_panics,
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("sync-4").priority(4),
            move |c: &ToolCall, _: &HookContext| {
                log2.lock()
                    .push(c.str_arg("path").unwrap_or_default().to_owned());
                HookResult::<Value>::Pass
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn async_and_sync_hooks_mix_in_one_chain() {
    let log = Log::default();
    let hooks = mixed_chain(&log);
    let turn = hooks.session("mixed").begin_turn();
    let outcome = turn
        .fire_async::<InterceptToolCall>(call("read_file"))
        .await;
    assert_eq!(outcome.rewritten_by, ["sync-1", "async-2"]);
    assert_eq!(
        outcome.metadata.get("async_saw"),
        Some(&json!({"path": "sync.rs"}))
    );
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(outcome.failures[0].hook, "async-panics");
    assert_eq!(*log.lock(), ["async.rs"]);
    let blocked = turn
        .intercept_tool_call_async(call("deploy"))
        .await
        .blocked()
        .unwrap();
    assert_eq!(blocked.hook, "async-2");
    // The future of an async dispatch can move between threads.
    let handle =
        tokio::spawn(async move { turn.intercept_tool_call_async(call("read_file")).await });
    assert!(!handle.await.unwrap().is_blocked());
}

#[test]
fn the_sync_dispatch_drives_async_hooks_without_an_executor() {
    let log = Log::default();
    let hooks = mixed_chain(&log);
    let turn = hooks.session("mixed-sync").begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(call("read_file"));
    assert_eq!(outcome.rewritten_by, ["sync-1", "async-2"]);
    assert_eq!(outcome.failures[0].hook, "async-panics");
    assert_eq!(*log.lock(), ["async.rs"]);
}

#[test]
fn the_same_hooks_and_input_give_the_same_outcome_on_any_number_of_threads() {
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("count").priority(1),
            |c: &ToolCall, _: &HookContext| {
                let n = c.args["n"].as_i64().unwrap_or(0);
                HookResult::Rewrite(json!({"n": n * 2 + 1}))
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("cap").priority(2),
            |c: &ToolCall, _: &HookContext| {
                if c.args["n"].as_i64().unwrap() > 1_000 {
                    HookResult::block("too big")
                } else {
                    HookResult::Pass
                }
            },
        )
        .build()
        .unwrap();
    let expected: Vec<Flow<ToolCall>> = (0..200)
        .map(|n| {
            hooks
                .dispatch::<InterceptToolCall>(ToolCall::new("t", json!({"n": n})))
                .flow
        })
        .collect();
    let session = hooks.session("determinism");
    let turn = session.begin_turn();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for (n, want) in expected.iter().enumerate() {
                    let got = turn.intercept_tool_call(ToolCall::new("t", json!({"n": n})));
                    assert_eq!(&got, want);
                }
            });
        }
    });
}

#[test]
fn duplicate_names_on_one_point_are_a_build_error_naming_both_places() {
    let err = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .build()
        .unwrap_err();
    let BuildError::DuplicateName {
        point,
        name,
        first,
        second,
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((*point, name.as_str()), ("intercept_tool_call", "guard"));
    assert!(
        first.contains("chain_rules.rs:") && second.contains("chain_rules.rs:"),
        "{err}"
    );
    assert!(
        err.to_string().contains("give one of them another `name"),
        "{err}"
    );
    // The same name on two different points is fine.
    HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .hook_with(
            TransformUserInput,
            HookOptions::new("guard"),
            |_: &str, _: &HookContext| HookResult::<String>::Pass,
        )
        .build()
        .unwrap();
}

#[test]
fn describe_lists_every_hook_and_says_so_when_there_are_none() {
    let empty = HooksBuilder::new().build().unwrap();
    let text = empty.describe().to_string();
    assert!(text.contains("0 hook(s)"), "{text}");
    assert!(text.contains("use my_hooks as _;"), "{text}");
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("plan-guard")
                .priority(10)
                .extension("workflow-guard")
                .on_error(OnError::Block),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .build()
        .unwrap();
    let text = hooks.describe().to_string();
    let row = text.lines().find(|l| l.contains("plan-guard")).unwrap();
    for field in [
        "intercept_tool_call",
        "10",
        "workflow-guard",
        "block",
        "chain_rules.rs:",
    ] {
        assert!(row.contains(field), "`{field}` missing from {row}");
    }
}

#[test]
fn a_failure_under_on_error_warn_goes_on_and_warns_the_user_naming_the_hook() {
    let log = Log::default();
    let hooks = failing_chain(OnError::Warn, false, &log);
    let turn = hooks.session("fail-warn").begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(call("ls"));
    assert_eq!(outcome.flow, Flow::Continue(call("ls")));
    assert_eq!(*log.lock(), ["before", "after"]);
    assert_eq!(outcome.failures[0].on_error, OnError::Warn);
    assert_eq!(
        outcome.warnings,
        [
            "hook `flaky` failed: policy server unreachable (on_error = warn); the chain went on without it"
        ]
    );
}
