//! `metrics`: exact counts per point, decision and tool, per registry, from one thread or four;
//! nothing counted while the extension is disabled.

use std::collections::BTreeMap;

use hookchain_core::points::{InterceptToolCall, TransformUserInput};
use hookchain_core::{HookContext, HookResult, ToolCall, TurnEnd};
use hookchain_guards::{BuiltinsExt, Metrics};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder};
use serde_json::{Value, json};

fn registry() -> Hooks {
    HooksBuilder::new()
        .builtin(Metrics::default())
        .hook_with(
            InterceptToolCall,
            HookOptions::new("no-rm"),
            |call: &ToolCall, _: &HookContext| {
                if call.name == "rm" {
                    HookResult::block("no rm")
                } else {
                    HookResult::<Value>::Pass
                }
            },
        )
        .hook_with(
            TransformUserInput,
            HookOptions::new("trim"),
            |text: &str, _: &HookContext| {
                if text.trim() == text {
                    HookResult::Pass
                } else {
                    HookResult::Rewrite(text.trim().to_owned())
                }
            },
        )
        .build()
        .unwrap()
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[test]
fn counts_are_exact_per_point_decision_and_tool() {
    let hooks = registry();
    let session = hooks.session("metrics-exact");
    let turn = session.begin_turn();
    let _ = turn.transform_user_input(" hi ");
    let _ = turn.transform_user_input("hi");
    for name in ["ls", "rm", "ls", "cat", "rm"] {
        let _ = turn.run_tool(ToolCall::new(name, json!({})), |_| Ok(json!(1)));
    }
    turn.end(TurnEnd::Normal);
    session.end("done");

    let m = Metrics::snapshot(&hooks).unwrap();
    assert_eq!(m.tools["ls"], counts(&[("pass", 2)]));
    assert_eq!(m.tools["rm"], counts(&[("block", 2)]));
    assert_eq!(m.tools["cat"], counts(&[("pass", 1)]));
    assert_eq!(
        m.points["intercept_tool_call"],
        counts(&[("block", 2), ("pass", 3)])
    );
    assert_eq!(
        m.points["transform_user_input"],
        counts(&[("pass", 1), ("rewrite", 1)])
    );
    // Every call reaches after_tool_call; only those that ran reach transform_tool_result.
    assert_eq!(m.points["after_tool_call"], counts(&[("pass", 5)]));
    assert_eq!(m.points["transform_tool_result"], counts(&[("pass", 3)]));
    assert_eq!(m.points["session_start"], counts(&[("pass", 1)]));
    assert_eq!(m.points["turn_end"], counts(&[("pass", 1)]));
    assert_eq!(m.points["session_end"], counts(&[("pass", 1)]));
    assert_eq!(m.dispatches, 2 + 5 + 5 + 3 + 3);
    assert_eq!(
        m.decisions,
        counts(&[("block", 2), ("pass", 15), ("rewrite", 1)])
    );
    assert_eq!(m.blocked_by, counts(&[("no-rm", 2)]));
    assert!(m.failures.is_empty());
}

#[test]
fn registries_count_apart_and_a_disabled_metrics_counts_nothing() {
    let (a, b) = (registry(), registry());
    let _ = a
        .session("metrics-a")
        .begin_turn()
        .intercept_tool_call(ToolCall::new("ls", json!({})));
    assert_eq!(Metrics::snapshot(&a).unwrap().tools["ls"]["pass"], 1);
    assert!(!Metrics::snapshot(&b).unwrap().tools.contains_key("ls"));

    a.disable_extension("metrics").unwrap();
    Metrics::reset(&a);
    let turn = a.session("metrics-off").begin_turn();
    let _ = turn.intercept_tool_call(ToolCall::new("rm", json!({})));
    assert_eq!(Metrics::snapshot(&a).unwrap().dispatches, 0);
    // A registry without the guard has no metrics.
    assert!(Metrics::snapshot(&HooksBuilder::new().build().unwrap()).is_none());
}

#[test]
fn four_threads_are_counted_exactly() {
    let hooks = registry();
    std::thread::scope(|s| {
        for t in 0..4 {
            let hooks = &hooks;
            s.spawn(move || {
                let turn = hooks.session(format!("metrics-thread-{t}")).begin_turn();
                for i in 0..100 {
                    let name = if i % 4 == 0 { "rm" } else { "ls" };
                    let _ = turn.intercept_tool_call(ToolCall::new(name, json!({})));
                }
                turn.end(TurnEnd::Normal);
            });
        }
    });
    let m = Metrics::snapshot(&hooks).unwrap();
    assert_eq!(m.tools["ls"]["pass"], 300);
    assert_eq!(m.tools["rm"]["block"], 100);
    assert_eq!(m.points["session_start"]["pass"], 4);
    assert_eq!(m.points["turn_end"]["pass"], 4);
}
