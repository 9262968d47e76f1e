//! A guard that must not vanish: `HooksBuilder::require_hook(point, name)` makes the point block,
//! with a reason saying which guard is missing and what to check, when no hook of that name is in
//! the registry — a hook in a library crate the binary never links, a configured hook consent
//! skipped — and every session hears of it through `notification`.

use std::sync::{Arc, Mutex};

use hookchain_core::points::{InterceptToolCall, Notify, TransformUserInput};
use hookchain_core::{HookContext, HookResult, Notification, ToolCall};
use hookchain_runtime::{HookOptions, HooksBuilder};
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
        hookchain_core::Flow::Blocked(b) => b,
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
    turn.end(hookchain_core::TurnEnd::Normal);
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
    turn.end(hookchain_core::TurnEnd::Normal);
    let _ = TransformUserInput;
}

/// A guard on `intercept_tool_call` named `guard`, in extension `guards`, that passes.
fn guard(builder: HooksBuilder, options: HookOptions) -> HooksBuilder {
    builder.hook_with(
        InterceptToolCall,
        options.extension("guards"),
        |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
    )
}

fn blocked_reason(hooks: &hookchain_runtime::Hooks) -> Option<String> {
    hooks
        .dispatch::<InterceptToolCall>(ToolCall::new("w", json!({})))
        .flow
        .blocked()
        .map(|b| b.reason)
}

/// A required hook that is present but disabled blocks its point instead of being skipped, and
/// the reason says which hook, where it is, and who disabled it.
#[test]
fn a_required_hook_whose_extension_is_disabled_blocks_naming_who_disabled_it() {
    let hooks = guard(HooksBuilder::new(), HookOptions::new("guard"))
        .require_hook(InterceptToolCall, "guard")
        .build()
        .unwrap();
    assert_eq!(blocked_reason(&hooks), None);
    hooks.disable_extension("guards").unwrap();
    let reason = blocked_reason(&hooks).expect("a disabled required hook must block");
    assert!(
        reason.starts_with("required hook `guard` (") && reason.contains("required_hooks.rs:"),
        "{reason}"
    );
    assert!(
        reason.contains("its extension `guards` is disabled by the agent's code"),
        "{reason}"
    );
    // Enabled again, it runs and passes.
    hooks.enable_extension("guards").unwrap();
    assert_eq!(blocked_reason(&hooks), None);

    // Switched off by a config: the reason names it.
    let sections =
        hookchain_runtime::Sections::new().extension("guards", json!({"enabled": false}));
    let hooks = guard(
        HooksBuilder::new(),
        HookOptions::new("guard").required(true),
    )
    .sections(sections)
    .build()
    .unwrap();
    let reason = blocked_reason(&hooks).expect("a disabled required hook must block");
    let who = hooks.extension("guards").unwrap().disabled_by().unwrap();
    assert!(reason.contains(&format!("disabled by {who}")), "{reason}");

    // A hook that is not required is skipped when disabled, as before.
    let hooks = guard(HooksBuilder::new(), HookOptions::new("guard"))
        .build()
        .unwrap();
    hooks.disable_extension("guards").unwrap();
    assert_eq!(blocked_reason(&hooks), None);
}

/// The async dispatch blocks on a disabled required hook too.
#[tokio::test]
async fn the_async_dispatch_blocks_on_a_disabled_required_hook() {
    let hooks = guard(
        HooksBuilder::new(),
        HookOptions::new("guard").required(true),
    )
    .build()
    .unwrap();
    hooks.disable_extension("guards").unwrap();
    let outcome = hooks
        .dispatch_async::<InterceptToolCall>(ToolCall::new("w", json!({})))
        .await;
    let blocked = outcome.flow.blocked().expect("must block");
    assert_eq!(blocked.hook, "guard");
    assert!(blocked.failed);
}

/// On an observe point nothing blocks: a disabled required hook is skipped there.
#[test]
fn a_disabled_required_observer_is_skipped() {
    let hooks = HooksBuilder::new()
        .hook_with(
            Notify,
            HookOptions::new("audit").extension("guards").required(true),
            |_: &Notification, _: &HookContext| {},
        )
        .build()
        .unwrap();
    hooks.disable_extension("guards").unwrap();
    let outcome = hooks.dispatch::<Notify>(Notification {
        level: hookchain_core::Level::Info,
        message: "m".to_owned(),
        source: None,
        kind: hookchain_core::NotificationKind::General,
    });
    assert!(!outcome.is_blocked());
}

/// A required hook that could not run at all blocks whatever its `on_error`; any other failure
/// follows its `on_error`.
#[test]
fn a_required_hook_that_cannot_run_blocks_even_with_on_error_pass() {
    let failing = |required: bool, error: fn() -> hookchain_core::HookError| {
        HooksBuilder::new()
            .hook_with_errors(
                InterceptToolCall,
                HookOptions::new("guard")
                    .on_error(hookchain_core::OnError::Pass)
                    .required(required),
                move |_: &ToolCall, _: &HookContext| Err(error()),
            )
            .build()
            .unwrap()
    };
    let cannot_run = || hookchain_core::HookError::cannot_run("its script changed since approved");
    let failed = || hookchain_core::HookError::new("exit code 1");
    let reason = blocked_reason(&failing(true, cannot_run)).expect("must block");
    assert!(
        reason.starts_with("required hook `guard` (")
            && reason.ends_with("did not run: its script changed since approved"),
        "{reason}"
    );
    assert_eq!(blocked_reason(&failing(false, cannot_run)), None);
    assert_eq!(blocked_reason(&failing(true, failed)), None);
}

/// A required extension with no hook at all blocks every tool call and every user message, and
/// every session hears of it; other points go on.
#[test]
fn a_missing_required_extension_blocks_tool_calls_and_user_input() {
    let heard: Arc<Mutex<Vec<Notification>>> = Arc::default();
    let seen = Arc::clone(&heard);
    let hooks = HooksBuilder::new()
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            seen.lock().unwrap().push(n.clone());
        })
        .require_extension("guards")
        .build()
        .unwrap();
    let session = hooks.session("missing-extension");
    let turn = session.begin_turn();
    let blocked = turn
        .intercept_tool_call(ToolCall::new("w", json!({})))
        .blocked()
        .expect("tool calls must block");
    assert!(
        blocked
            .reason
            .contains("required extension `guards` has no hook in this registry"),
        "{}",
        blocked.reason
    );
    assert!(turn.transform_user_input("hi").is_blocked());
    assert!(
        !turn
            .before_llm_call(hookchain_core::LlmCall::default())
            .is_blocked()
    );
    turn.end(hookchain_core::TurnEnd::Normal);
    session.end("done");
    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].source.as_deref(), Some("guards"));
    assert!(heard[0].message.contains("required extension `guards`"));
}

/// A required extension that is present: its hooks are required, run as usual, and block when
/// the extension is disabled; other extensions' hooks are not required.
#[test]
fn a_present_required_extension_marks_its_hooks_required() {
    let hooks = guard(HooksBuilder::new(), HookOptions::new("guard"))
        .hook_with(
            InterceptToolCall,
            HookOptions::new("audit"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .require_extension("guards")
        .build()
        .unwrap();
    assert!(hooks.notices().is_empty());
    assert_eq!(blocked_reason(&hooks), None);
    let required: Vec<(&str, bool)> = hooks
        .hooks()
        .iter()
        .map(|h| (&*h.name, h.required))
        .collect();
    assert_eq!(required, [("audit", false), ("guard", true)]);
    let listing = hooks.describe().to_string();
    let line = listing.lines().find(|l| l.contains(" guard ")).unwrap();
    assert!(line.contains("  required"), "{listing}");
    hooks.disable_extension("app").unwrap();
    assert_eq!(blocked_reason(&hooks), None);
    hooks.disable_extension("guards").unwrap();
    assert!(
        blocked_reason(&hooks)
            .unwrap()
            .contains("extension `guards`")
    );
}
