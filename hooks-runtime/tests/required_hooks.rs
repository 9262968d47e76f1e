//! A guard that must not vanish: `HooksBuilder::require_hook(point, name)` makes the point block,
//! with a reason saying which guard is missing and what to check, when no hook of that name is in
//! the registry — a hook in a library crate the binary never links, a configured hook consent
//! skipped — and every session hears of it through `notification`.

use std::sync::{Arc, Mutex};

use hooks_core::points::{InterceptToolCall, Notify, TransformUserInput};
use hooks_core::{HookContext, HookResult, Notification, ToolCall};
use hooks_runtime::{HookOptions, HooksBuilder};
use serde_json::{Value, json};

#[test]
fn a_missing_required_hook_blocks_its_point_and_says_why() {
    let heard: Arc<Mutex<Vec<Notification>>> = Arc::default();
    let seen = Arc::clone(&heard);
    let hooks = HooksBuilder::new()
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            seen.lock().unwrap().push(n.clone());
        })
        .require_hook(InterceptToolCall, "workflow_guard::require_plan")
        .build()
        .unwrap();
    let session = hooks.session("required");
    let turn = session.begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("write_file", json!({})));
    let hookchain_blocked = match flow {
        hooks_core::Flow::Blocked(b) => b,
        other => panic!("a missing guard must block: {other:?}"),
    };
    assert!(
        hookchain_blocked
            .reason
            .contains("required hook `workflow_guard::require_plan` is not in this registry"),
        "{}",
        hookchain_blocked.reason
    );
    assert!(
        hookchain_blocked.reason.contains("use my_hooks as _;"),
        "{}",
        hookchain_blocked.reason
    );
    // Other points are not touched.
    assert_eq!(
        turn.transform_user_input("hi").continued().as_deref(),
        Some("hi")
    );
    turn.end(hooks_core::TurnEnd::Normal);
    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(
        heard[0].source.as_deref(),
        Some("workflow_guard::require_plan")
    );
}

#[test]
fn a_present_required_hook_changes_nothing() {
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .require_hook(InterceptToolCall, "guard")
        .build()
        .unwrap();
    assert_eq!(hooks.chain_of("intercept_tool_call").len(), 1);
    assert!(hooks.notices().is_empty());
    let session = hooks.session("present");
    let turn = session.begin_turn();
    assert!(
        !turn
            .intercept_tool_call(ToolCall::new("w", json!({})))
            .is_blocked()
    );
    turn.end(hooks_core::TurnEnd::Normal);
    let _ = TransformUserInput;
}
