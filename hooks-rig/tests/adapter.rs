//! The adapter through a real rig-agent agent on rig's scripted wire: every point it maps, the
//! turn it keeps per run, async hooks on tokio inside rig, and failing hooks. Every run is
//! bounded by `tokio::time::timeout`, so a hang fails the test instead of holding it.

mod support;

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use hookchain::points::{
    AfterLlmCall, AfterToolCall, BeforeLlmCall, InterceptToolCall, LlmCall, LlmReply, OnStop,
    StopEvent, ToolResult, TransformToolResult, TransformUserInput, TurnEndEvent, TurnEnded,
};
use hookchain::prelude::*;
use hookchain::registry::BoxFuture;
use hookchain::{HookContext, HookOptions, HooksBuilder};
use hookchain_rig::HookchainHook;
use hookchain_rig::rig_agent::agent::SettledOutcome;
use hookchain_rig::rig_agent::completion::PromptError;
use hookchain_rig::rig_agent::{Agent, AgentBuilder};
use serde_json::json;
use support::{
    Log, ReadFile, Recorder, Reply, Responder, WriteFile, documents, log, texts, user_texts,
};

/// Waits for a run, at most long enough that only a hang reaches the limit.
async fn bounded<T>(run: impl IntoFuture<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), run.into_future())
        .await
        .expect("the run finished")
}

/// An agent on `model` with the two tools and `hooks`' session `id`.
fn agent(model: &Responder, hooks: &Hooks, id: &str) -> (Agent, WriteFile, ReadFile) {
    let write = WriteFile(Recorder::new("written"));
    let read = ReadFile(Recorder::new("token sk-123 inside"));
    let agent = AgentBuilder::new(model.model())
        .preamble("You edit files.")
        .default_max_turns(8)
        .tool(write.clone())
        .tool(read.clone())
        .add_hook(HookchainHook::new(hooks.session(id)))
        .build();
    (agent, write, read)
}

fn call(id: &str, name: &str, args: Value) -> (String, String, Value) {
    (id.to_owned(), name.to_owned(), args)
}

/// Records every `turn_end` as `turn_end <index> <reason>`.
fn turn_ends(builder: HooksBuilder, log: &Log) -> HooksBuilder {
    let log = log.clone();
    builder.hook(TurnEnded, 0, move |e: &TurnEndEvent, _: &HookContext| {
        log.lock().push(format!("turn_end {} {}", e.turn, e.reason));
    })
}

#[tokio::test]
async fn a_blocked_tool_call_never_runs_and_the_model_sees_the_reason() {
    let log = log();
    let l = log.clone();
    let hooks = turn_ends(HooksBuilder::new(), &log)
        .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            if call.name == "write_file" {
                HookResult::block("no writes before a plan")
            } else {
                HookResult::Pass
            }
        })
        .hook(AfterToolCall, 0, move |r: &ToolResult, _: &HookContext| {
            let blocked = r.blocked.as_ref().map(|b| b.reason.clone());
            l.lock()
                .push(format!("after {} {:?}", r.tool_name, blocked));
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call(
            "c1",
            "write_file",
            json!({"path": "src/main.rs"}),
        )]),
        Reply::Text("I could not write.".into()),
    ]);
    let (agent, write, _) = agent(&model, &hooks, "block");

    let reply = bounded(agent.prompt("write the file")).await.unwrap();

    assert_eq!(reply.to_string(), "I could not write.");
    assert!(write.0.calls.lock().is_empty(), "the blocked tool ran");
    let second = &model.requests()[1];
    assert!(
        texts(second).iter().any(|t| t == "no writes before a plan"),
        "the model does not see the reason: {:?}",
        texts(second)
    );
    assert_eq!(
        *log.lock(),
        [
            "after write_file Some(\"no writes before a plan\")",
            "turn_end 0 normal"
        ]
    );
}

#[tokio::test]
async fn a_rewrite_patches_the_arguments_the_tool_gets() {
    let hooks = HooksBuilder::new()
        .hook(
            InterceptToolCall,
            0,
            |call: &ToolCall, _: &HookContext| match call.str_arg("path") {
                Some(path) if !path.starts_with("sandbox/") => {
                    HookResult::Rewrite(json!({"path": format!("sandbox/{path}")}))
                }
                _ => HookResult::Pass,
            },
        )
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call("c1", "write_file", json!({"path": "a.txt"}))]),
        Reply::Text("done".into()),
    ]);
    let (agent, write, _) = agent(&model, &hooks, "rewrite");

    bounded(agent.prompt("write a.txt")).await.unwrap();

    assert_eq!(*write.0.calls.lock(), [json!({"path": "sandbox/a.txt"})]);
}

#[tokio::test]
async fn tool_results_reach_after_tool_call_and_are_redacted_before_the_model_sees_them() {
    let log = log();
    let l = log.clone();
    let hooks = HooksBuilder::new()
        .hook(AfterToolCall, 0, move |r: &ToolResult, _: &HookContext| {
            l.lock()
                .push(format!("after {} {}", r.tool_name, r.tool_response));
        })
        .hook(
            TransformToolResult,
            0,
            |r: &ToolResult, _: &HookContext| match r.tool_response.as_str() {
                Some(text) if text.contains("sk-") => {
                    HookResult::Rewrite(json!(text.replace("sk-123", "[secret]")))
                }
                _ => HookResult::Pass,
            },
        )
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call("c1", "read_file", json!({"path": ".env"}))]),
        Reply::Text("read it".into()),
    ]);
    let (agent, _, read) = agent(&model, &hooks, "redact");

    bounded(agent.prompt("read .env")).await.unwrap();

    assert_eq!(read.0.calls.lock().len(), 1);
    assert_eq!(*log.lock(), ["after read_file \"token sk-123 inside\""]);
    let seen = texts(&model.requests()[1]);
    assert!(
        seen.iter().any(|t| t == "token [secret] inside"),
        "{seen:?}"
    );
    assert!(!seen.iter().any(|t| t.contains("sk-123")), "{seen:?}");
}

#[tokio::test]
async fn turn_state_lives_across_the_tool_calls_of_one_run_and_ends_with_it() {
    let log = log();
    let (l, states) = (log.clone(), Arc::new(parking_lot::Mutex::new(Vec::new())));
    let s = states.clone();
    let hooks = turn_ends(HooksBuilder::new(), &log)
        .hook(
            InterceptToolCall,
            0,
            move |call: &ToolCall, cx: &HookContext| {
                let seen = cx.turn_state().get::<u32>("calls").unwrap_or(0);
                cx.turn_state().set("calls", seen + 1);
                s.lock().push(cx.turn_state().clone());
                l.lock().push(format!("{} after {seen} calls", call.name));
                HookResult::Pass
            },
        )
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call("c1", "read_file", json!({"path": "a"}))]),
        Reply::Tools(vec![call("c2", "write_file", json!({"path": "a"}))]),
        Reply::Text("done".into()),
    ]);
    let (agent, _, _) = agent(&model, &hooks, "state");

    bounded(agent.prompt("first")).await.unwrap();
    bounded(agent.prompt("second")).await.unwrap();

    assert_eq!(
        *log.lock(),
        [
            "read_file after 0 calls",
            "write_file after 1 calls",
            "turn_end 0 normal",
            // A new run is a new turn: its state starts empty.
            "read_file after 0 calls",
            "write_file after 1 calls",
            "turn_end 1 normal",
        ]
    );
    // Each run's state was cleared when its turn ended.
    assert!(
        states
            .lock()
            .iter()
            .all(|s| s.get::<u32>("calls").is_none())
    );
}

#[tokio::test]
async fn the_prompt_is_rewritten_before_the_model_sees_it() {
    let hooks = HooksBuilder::new()
        .hook(TransformUserInput, 0, |text: &str, _: &HookContext| {
            HookResult::Rewrite(text.replace("password=hunter2", "password=[redacted]"))
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![Reply::Text("ok".into())]);
    let (agent, _, _) = agent(&model, &hooks, "input");

    bounded(agent.prompt("log in with password=hunter2"))
        .await
        .unwrap();

    assert_eq!(
        user_texts(&model.requests()[0]),
        ["log in with password=[redacted]"]
    );
}

#[tokio::test]
async fn a_blocked_prompt_stops_the_run_before_any_model_call() {
    let log = log();
    let hooks = turn_ends(HooksBuilder::new(), &log)
        .hook(TransformUserInput, 0, |text: &str, _: &HookContext| {
            if text.contains("rm -rf") {
                HookResult::block("I will not help with that.")
            } else {
                HookResult::Pass
            }
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![Reply::Text("ok".into())]);
    let (agent, _, _) = agent(&model, &hooks, "input-block");

    let error = bounded(agent.prompt("rm -rf /")).await.unwrap_err();

    match error {
        PromptError::Cancelled { reason, .. } => assert_eq!(reason, "I will not help with that."),
        other => panic!("expected the run to be stopped, got {other}"),
    }
    assert!(model.requests().is_empty(), "the model was called");
    assert_eq!(*log.lock(), ["turn_end 0 blocked"]);
}

#[tokio::test]
async fn before_llm_call_injections_reach_every_model_call() {
    let log = log();
    let l = log.clone();
    let hooks = HooksBuilder::new()
        .hook(BeforeLlmCall, 0, move |call: &LlmCall, _: &HookContext| {
            let last = call.messages.last().map(|m| m.content.clone());
            l.lock().push(format!("before_llm_call {last:?}"));
            HookResult::Rewrite(Injection::system("Plan first.").and_user("Remember the plan."))
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call("c1", "read_file", json!({"path": "plan.md"}))]),
        Reply::Text("done".into()),
    ]);
    let (agent, _, _) = agent(&model, &hooks, "inject");

    bounded(agent.prompt("do it")).await.unwrap();

    let requests = model.requests();
    // Hooks see the conversation: the prompt, then the tool's result.
    assert_eq!(
        *log.lock(),
        [
            "before_llm_call Some(\"do it\")",
            "before_llm_call Some(\"token sk-123 inside\")"
        ]
    );
    // System text is a context document of every call.
    for request in &requests {
        assert!(
            documents(request)
                .contains(&"<file id: hookchain-system>\nPlan first.\n</file>\n".into()),
            "{:?}",
            documents(request)
        );
    }
    // User text: a message before the user's prompt on the first call...
    assert_eq!(user_texts(&requests[0]), ["Remember the plan.", "do it"]);
    // ...and a document on the call that carries the tool's result, which nothing may precede.
    assert!(
        documents(&requests[1])
            .contains(&"<file id: hookchain-user>\nRemember the plan.\n</file>\n".into()),
        "{:?}",
        documents(&requests[1])
    );
    assert_eq!(user_texts(&requests[1]), ["do it"]);
}

#[tokio::test]
async fn a_blocked_model_call_stops_the_run() {
    let log = log();
    let hooks = turn_ends(HooksBuilder::new(), &log)
        .hook(BeforeLlmCall, 0, |_: &LlmCall, _: &HookContext| {
            HookResult::<Injection>::block("budget exhausted")
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![Reply::Text("ok".into())]);
    let (agent, _, _) = agent(&model, &hooks, "llm-block");

    let error = bounded(agent.prompt("hi")).await.unwrap_err();

    assert!(
        matches!(&error, PromptError::Cancelled { reason, .. } if reason == "budget exhausted"),
        "{error}"
    );
    assert!(model.requests().is_empty());
    assert_eq!(*log.lock(), ["turn_end 0 blocked"]);
}

#[tokio::test]
async fn on_stop_sends_a_tool_free_reply_back_with_the_reason_as_feedback() {
    let log = log();
    let l = log.clone();
    let hooks = turn_ends(HooksBuilder::new(), &log)
        .hook(AfterLlmCall, 0, move |r: &LlmReply, _: &HookContext| {
            l.lock()
                .push(format!("reply {:?} {} calls", r.text, r.tool_calls.len()));
        })
        .hook(OnStop, 0, |e: &StopEvent, _: &HookContext| {
            if e.response.contains("tests pass") {
                HookResult::Pass
            } else {
                HookResult::block("Run the tests before you stop.")
            }
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Text("Done.".into()),
        Reply::Text("Done, tests pass.".into()),
    ]);
    let (agent, _, _) = agent(&model, &hooks, "stop");

    let reply = bounded(agent.prompt("fix it")).await.unwrap();

    assert_eq!(reply.to_string(), "Done, tests pass.");
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        texts(&requests[1])
            .iter()
            .any(|t| t.contains("Run the tests before you stop.")),
        "{:?}",
        texts(&requests[1])
    );
    assert_eq!(
        *log.lock(),
        [
            "reply \"Done.\" 0 calls",
            "reply \"Done, tests pass.\" 0 calls",
            "turn_end 0 normal"
        ]
    );
}

#[tokio::test]
async fn on_stop_redos_are_capped_and_the_turn_ends_as_max_iterations() {
    let log = log();
    let hooks = turn_ends(HooksBuilder::new(), &log)
        .stop_redo_cap(2)
        .hook(OnStop, 0, |_: &StopEvent, _: &HookContext| {
            HookResult::<String>::block("not yet")
        })
        .build()
        .unwrap();
    let model = Responder::new(|_| Reply::Text("Done.".into()));
    let (agent, _, _) = agent(&model, &hooks, "stop-cap");

    let reply = bounded(agent.prompt("fix it")).await.unwrap();

    assert_eq!(reply.to_string(), "Done.");
    // The first reply and two redos.
    assert_eq!(model.requests().len(), 3);
    assert_eq!(*log.lock(), ["turn_end 0 max_iterations"]);
}

/// An `on_stop` hook that awaits tokio's timer before it decides.
fn slow_gate<'a>(e: &'a StopEvent, _: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<String>> {
    Box::pin(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if e.stop_hook_active {
            HookResult::Pass
        } else {
            HookResult::block("Check once more.")
        }
    })
}

#[tokio::test(flavor = "current_thread")]
async fn an_async_on_stop_hook_awaits_tokio_inside_rig_on_a_current_thread_runtime() {
    let hooks = HooksBuilder::new()
        .async_hook(OnStop, HookOptions::new("slow_gate"), slow_gate)
        .build()
        .unwrap();
    let model = Responder::new(|_| Reply::Text("Done.".into()));
    let (agent, _, _) = agent(&model, &hooks, "async-stop");

    let reply = bounded(agent.prompt("fix it")).await.unwrap();

    assert_eq!(reply.to_string(), "Done.");
    // The gate ran (and awaited) twice: once to send the model back, once to let it stop.
    assert_eq!(model.requests().len(), 2);
}

/// An intercept hook that keeps the run's tag in its turn state, with an await in between, so
/// two runs interleave inside it.
fn tag_run<'a>(call: &'a ToolCall, cx: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    Box::pin(async move {
        let tag = call.str_arg("run").unwrap_or_default().to_owned();
        let before = cx.turn_state().get::<String>("run");
        if before.is_none() {
            cx.turn_state().set("run", tag.clone());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        let after = cx.turn_state().get::<String>("run").unwrap_or_default();
        if after == tag {
            HookResult::Pass
        } else {
            HookResult::block(format!("run {tag} saw the state of run {after}"))
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlapping_runs_of_one_agent_keep_separate_turn_state() {
    let log = log();
    let hooks = turn_ends(HooksBuilder::new(), &log)
        .async_hook(InterceptToolCall, HookOptions::new("tag_run"), tag_run)
        .build()
        .unwrap();
    // Each run calls `read_file` three times with its own tag, then stops: the reply depends
    // on the request alone, so it does not matter how the runs interleave.
    let model = Responder::new(|request| {
        let tag = user_texts(request)[0].clone();
        let done = request
            .chat_history
            .iter()
            .filter(|m| matches!(m, rig_agent::core::message::Message::Assistant(_)))
            .count();
        if done < 3 {
            Reply::Tools(vec![call(
                &format!("{tag}-{done}"),
                "read_file",
                json!({"run": tag}),
            )])
        } else {
            Reply::Text(format!("{tag} done"))
        }
    });
    let (agent, _, read) = agent(&model, &hooks, "overlap");

    let (a, b) = tokio::join!(bounded(agent.prompt("A")), bounded(agent.prompt("B")));

    assert_eq!(a.unwrap().to_string(), "A done");
    assert_eq!(b.unwrap().to_string(), "B done");
    // No call was blocked: every hook saw its own run's state.
    assert_eq!(read.0.calls.lock().len(), 6);
    let mut ends = log.lock().clone();
    ends.sort();
    assert_eq!(ends, ["turn_end 0 normal", "turn_end 1 normal"]);
}

#[tokio::test]
async fn a_panicking_guard_under_on_error_block_refuses_the_call() {
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("flaky_guard").on_error(OnError::Block),
            |_: &ToolCall, _: &HookContext| -> HookResult<Value> { panic!("guard bug") },
        )
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call("c1", "write_file", json!({"path": "a"}))]),
        Reply::Text("ok".into()),
    ]);
    let (agent, write, _) = agent(&model, &hooks, "panic-block");

    bounded(agent.prompt("write")).await.unwrap();

    assert!(
        write.0.calls.lock().is_empty(),
        "the tool ran past a failed guard"
    );
    let seen = texts(&model.requests()[1]);
    assert!(
        seen.iter().any(|t| t.contains("flaky_guard")),
        "the model is not told which hook failed: {seen:?}"
    );
}

#[tokio::test]
async fn a_panicking_hook_under_on_error_pass_lets_the_run_go_on() {
    let hooks = HooksBuilder::new()
        .hook(
            InterceptToolCall,
            0,
            |_: &ToolCall, _: &HookContext| -> HookResult<Value> { panic!("observer bug") },
        )
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call("c1", "write_file", json!({"path": "a"}))]),
        Reply::Text("ok".into()),
    ]);
    let (agent, write, _) = agent(&model, &hooks, "panic-pass");

    let reply = bounded(agent.prompt("write")).await.unwrap();

    assert_eq!(reply.to_string(), "ok");
    assert_eq!(write.0.calls.lock().len(), 1);
}

#[test]
fn a_settled_run_maps_to_the_turn_end_it_earned() {
    assert_eq!(
        hookchain_rig::turn_end(&SettledOutcome::Error("reached the max turns limit of 8")),
        TurnEnd::MaxIterations
    );
    assert_eq!(
        hookchain_rig::turn_end(&SettledOutcome::Error("the run was cancelled: user left")),
        TurnEnd::Canceled
    );
    assert_eq!(
        hookchain_rig::turn_end(&SettledOutcome::Error("provider down")),
        TurnEnd::Error("provider down".into())
    );
}

#[tokio::test]
async fn rigs_max_turns_error_ends_the_turn_as_max_iterations() {
    let log = log();
    let hooks = turn_ends(HooksBuilder::new(), &log).build().unwrap();
    // The model calls a tool forever; the agent allows 8 model calls.
    let model = Responder::new(|_| Reply::Tools(vec![call("c", "read_file", json!({}))]));
    let (agent, _, _) = agent(&model, &hooks, "max-turns");

    let error = bounded(agent.prompt("loop")).await.unwrap_err();

    assert!(matches!(error, PromptError::MaxTurns { .. }), "{error}");
    assert_eq!(*log.lock(), ["turn_end 0 max_iterations"]);
}

#[tokio::test]
async fn turn_start_fires_once_per_run_and_its_context_reaches_every_model_call() {
    use hookchain::points::{TurnStart, TurnStartEvent};
    let log = log();
    let l = log.clone();
    let hooks = HooksBuilder::new()
        .hook(TransformUserInput, 0, |_: &str, _: &HookContext| {
            HookResult::Rewrite("do it, carefully".to_owned())
        })
        .hook(TurnStart, 0, move |e: &TurnStartEvent, _: &HookContext| {
            l.lock().push(format!("turn_start {}", e.prompt));
            HookResult::Rewrite("Snapshot taken at turn start.".to_owned())
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call("c1", "read_file", json!({"path": "plan.md"}))]),
        Reply::Text("done".into()),
    ]);
    let (agent, _, _) = agent(&model, &hooks, "turn-start");

    bounded(agent.prompt("do it")).await.unwrap();

    assert_eq!(*log.lock(), ["turn_start do it, carefully"]);
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert!(
            documents(request).contains(
                &"<file id: hookchain-turn-0>\nSnapshot taken at turn start.\n</file>\n".into()
            ),
            "{:?}",
            documents(request)
        );
    }
}

#[tokio::test]
async fn a_blocked_turn_start_stops_the_run_before_any_model_call() {
    use hookchain::points::{TurnStart, TurnStartEvent};
    let log = log();
    let hooks = turn_ends(HooksBuilder::new(), &log)
        .hook(TurnStart, 0, |_: &TurnStartEvent, _: &HookContext| {
            HookResult::<String>::block("the working tree is dirty")
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![Reply::Text("never".into())]);
    let (agent, _, _) = agent(&model, &hooks, "turn-start-block");

    let error = bounded(agent.prompt("go")).await.unwrap_err();

    assert!(
        error.to_string().contains("the working tree is dirty"),
        "{error}"
    );
    assert!(model.requests().is_empty());
    assert_eq!(*log.lock(), ["turn_end 0 blocked"]);
}

#[tokio::test]
async fn after_tool_batch_gets_every_result_of_a_tool_turn_and_injects_into_the_next_call() {
    use hookchain::points::{AfterToolBatch, ToolBatch};
    let log = log();
    let l = log.clone();
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            if call.name == "write_file" {
                HookResult::block("no writes")
            } else {
                HookResult::Pass
            }
        })
        .hook(
            AfterToolBatch,
            0,
            move |batch: &ToolBatch, _: &HookContext| {
                let seen: Vec<String> = batch
                    .results
                    .iter()
                    .map(|r| format!("{}:{}", r.tool_name, r.is_error))
                    .collect();
                l.lock().push(seen.join(" "));
                HookResult::Rewrite("Two tools ran; check the refusal.".to_owned())
            },
        )
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![
            call("c1", "read_file", json!({"path": "a.md"})),
            call("c2", "write_file", json!({"path": "b.md"})),
        ]),
        Reply::Text("done".into()),
    ]);
    let (agent, _, _) = agent(&model, &hooks, "batch");

    bounded(agent.prompt("go")).await.unwrap();

    assert_eq!(*log.lock(), ["read_file:false write_file:true"]);
    let requests = model.requests();
    let batch = "<file id: hookchain-batch-0>\nTwo tools ran; check the refusal.\n</file>\n";
    assert!(!documents(&requests[0]).contains(&batch.into()));
    assert!(
        documents(&requests[1]).contains(&batch.into()),
        "{:?}",
        documents(&requests[1])
    );
}

#[tokio::test]
async fn transform_response_rewrites_the_reply_the_caller_gets() {
    use hookchain::points::TransformResponse;
    let hooks = HooksBuilder::new()
        .hook(TransformResponse, 0, |reply: &str, _: &HookContext| {
            HookResult::Rewrite(reply.replace("sk-123", "sk-***"))
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![
        Reply::Tools(vec![call("c1", "read_file", json!({"path": "a.md"}))]),
        Reply::Text("the key is sk-123".into()),
    ]);
    let (agent, _, _) = agent(&model, &hooks, "mask");

    let reply = bounded(agent.prompt("show the key")).await.unwrap();

    assert_eq!(reply.to_string(), "the key is sk-***");
}

#[tokio::test]
async fn a_hook_on_a_point_rig_never_fires_is_reported_never_silent() {
    use hookchain::points::{
        Notification, Notify, PermissionAsk, PermissionGrant, PermissionRequest,
    };
    let log = log();
    let l = log.clone();
    let hooks = HooksBuilder::new()
        .hook_with(
            PermissionRequest,
            HookOptions::new("approve-reads"),
            |_: &PermissionAsk, _: &HookContext| HookResult::<PermissionGrant>::Pass,
        )
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            l.lock().push(n.message.clone());
        })
        .build()
        .unwrap();
    let model = Responder::script(vec![Reply::Text("one".into()), Reply::Text("two".into())]);
    let (agent, _, _) = agent(&model, &hooks, "never");
    let adapter = HookchainHook::new(hooks.session("describe"));
    let described = adapter.describe();
    assert!(
        described.contains(
            "hook `approve-reads` on `permission_request` never runs under rig: rig asks nobody \
             before a tool runs"
        ),
        "{described}"
    );
    assert!(described.contains("turn_start"), "{described}");

    bounded(agent.prompt("first")).await.unwrap();
    bounded(agent.prompt("second")).await.unwrap();

    // Told once, at the first run.
    let told: Vec<String> = log
        .lock()
        .iter()
        .filter(|m| m.contains("approve-reads"))
        .cloned()
        .collect();
    assert_eq!(told.len(), 1, "{:?}", *log.lock());
}
