//! Every tool call reaches `after_tool_call`, the ones `intercept_tool_call` refused included,
//! and the run the agent gets for a refused call is the reason as an error.

use std::sync::Arc;

use hookchain_core::points::{AfterToolCall, InterceptToolCall, ToolBlock, TransformToolResult};
use hookchain_core::{HookContext, HookResult, OnError, ToolCall, ToolResult};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder, ToolRun};
use parking_lot::Mutex;
use serde_json::{Value, json};

type Audit = Arc<Mutex<Vec<ToolResult>>>;

/// Blocks `rm` (a decision), fails on `curl` under `on_error = "block"` (a failure), and
/// passes the rest; audits every `after_tool_call`; counts `transform_tool_result`.
fn audited(audit: &Audit, transformed: &Arc<Mutex<usize>>) -> Hooks {
    let (audit, transformed) = (audit.clone(), transformed.clone());
    HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("no-rm").priority(1),
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
            HookOptions::new("net-guard")
                .priority(2)
                .on_error(OnError::Block),
            |c: &ToolCall, _: &HookContext| -> Result<HookResult<Value>, String> {
                if c.name == "curl" {
                    Err("the allowlist is unreadable".to_owned())
                } else {
                    Ok(HookResult::Pass)
                }
            },
        )
        .hook(AfterToolCall, 0, move |r: &ToolResult, _: &HookContext| {
            audit.lock().push(r.clone());
        })
        .hook(
            TransformToolResult,
            0,
            move |_: &ToolResult, _: &HookContext| -> HookResult<Value> {
                *transformed.lock() += 1;
                HookResult::Pass
            },
        )
        .build()
        .unwrap()
}

/// Eight calls, three of them refused: two `rm` (blocked) and one `curl` (a failed guard).
fn calls() -> Vec<ToolCall> {
    ["ls", "rm", "cat", "curl", "echo", "rm", "pwd", "date"]
        .iter()
        .enumerate()
        .map(|(i, name)| ToolCall::new(*name, json!({"n": i})).with_id(format!("c{i}")))
        .collect()
}

fn check_audit(audit: &[ToolResult], runs: &[ToolRun], transformed: usize) {
    assert_eq!(audit.len(), 8, "the audit sees every call: {audit:#?}");
    assert_eq!(
        transformed, 5,
        "transform_tool_result runs for the calls that ran only"
    );
    for (i, (seen, call)) in audit.iter().zip(calls()).enumerate() {
        assert_eq!(seen.tool_name, call.name);
        assert_eq!(seen.tool_use_id, call.id);
        assert_eq!(
            seen.tool_input, call.args,
            "the audit sees the call as asked"
        );
        let expected = match call.name.as_str() {
            "rm" => Some(ToolBlock {
                reason: "rm is not allowed".into(),
                hook: "no-rm".into(),
                failed: false,
            }),
            "curl" => Some(ToolBlock {
                reason: runs[i].blocked.as_ref().unwrap().reason.clone(),
                hook: "net-guard".into(),
                failed: true,
            }),
            _ => None,
        };
        assert_eq!(seen.blocked, expected, "call {i}");
        match &seen.blocked {
            Some(block) => {
                assert!(seen.is_error);
                assert_eq!(seen.tool_response, json!(block.reason));
                assert!(!runs[i].ran);
            }
            None => {
                assert!(!seen.is_error);
                assert_eq!(seen.tool_response, json!(format!("ran {}", call.name)));
                assert!(runs[i].ran);
            }
        }
    }
    assert!(
        audit[3]
            .tool_response
            .as_str()
            .unwrap()
            .contains("the allowlist is unreadable"),
        "the failed guard's reason names its error: {:?}",
        audit[3].tool_response
    );
    // The JSON of a refused call carries the block; that of a call that ran has no key.
    let refused = serde_json::to_value(&audit[1]).unwrap();
    assert_eq!(refused["blocked"]["hook"], "no-rm");
    assert_eq!(refused["blocked"]["failed"], false);
    assert!(
        serde_json::to_value(&audit[0])
            .unwrap()
            .get("blocked")
            .is_none()
    );
}

#[test]
fn an_audit_hook_on_after_tool_call_sees_the_refused_calls_too() {
    let (audit, transformed) = (Audit::default(), Arc::default());
    let hooks = audited(&audit, &transformed);
    let session = hooks.session("audit");
    let turn = session.begin_turn();
    let runs: Vec<ToolRun> = calls()
        .into_iter()
        .map(|call| turn.run_tool(call, |c| Ok(json!(format!("ran {}", c.name)))))
        .collect();
    check_audit(&audit.lock(), &runs, *transformed.lock());
}

#[tokio::test]
async fn an_audit_hook_on_after_tool_call_sees_the_refused_calls_too_async() {
    let (audit, transformed) = (Audit::default(), Arc::default());
    let hooks = audited(&audit, &transformed);
    let session = hooks.session_async("audit-async").await;
    let turn = session.begin_turn();
    let mut runs = Vec::new();
    for call in calls() {
        let tool = async |c: &ToolCall| Ok(json!(format!("ran {}", c.name)));
        runs.push(turn.run_tool_async(call, tool).await);
    }
    check_audit(&audit.lock(), &runs, *transformed.lock());
}

/// What the agent gets for a refused call: the reason as an error, the call's name and id, no
/// args, and no block record in the result (the run's `blocked` carries it).
fn check_refused_run(run: &ToolRun) {
    assert!(!run.ran);
    let blocked = run.blocked.as_ref().unwrap();
    assert_eq!((blocked.hook.as_str(), blocked.failed), ("no-rm", false));
    let expected = ToolResult::new(
        &ToolCall::new("rm", Value::Null).with_id("c1"),
        Err("rm is not allowed".to_owned()),
    );
    assert_eq!(run.result, expected);
}

#[test]
fn the_run_of_a_refused_call_is_the_reason_as_an_error() {
    // The same with an audit hook and without one: the audit changes nothing the agent gets.
    for with_audit in [true, false] {
        let hooks = if with_audit {
            audited(&Audit::default(), &Arc::default())
        } else {
            HooksBuilder::new()
                .hook_with(
                    InterceptToolCall,
                    HookOptions::new("no-rm"),
                    |_: &ToolCall, _: &HookContext| HookResult::block("rm is not allowed"),
                )
                .build()
                .unwrap()
        };
        let session = hooks.session("refused-run");
        let turn = session.begin_turn();
        let call = ToolCall::new("rm", json!({"path": "/"})).with_id("c1");
        check_refused_run(&turn.run_tool(call.clone(), |_| panic!("must not run")));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let run =
            rt.block_on(turn.run_tool_async(call, async |_: &ToolCall| panic!("must not run")));
        check_refused_run(&run);
    }
}
