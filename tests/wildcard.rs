//! Wildcard hooks: `#[register_hook("*")]`, prefix patterns and `HooksBuilder::watch` observe
//! every dispatch of the points they match, with the decision and who made it, and never change
//! a dispatch's outcome. Run with the default backend (inventory) and with `--features linkme`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hookchain::points::{AfterToolCall, InterceptToolCall, Notify, TransformUserInput};
use hookchain::{
    Decision, DispatchEvent, HookContext, HookOptions, HookPoint, HooksBuilder, hook_point,
    prelude::*,
};
use parking_lot::Mutex;

/// (hook, session, point, decision, hook that decided, reason) of every event the registered
/// wildcard hooks saw.
type Seen = (
    &'static str,
    String,
    &'static str,
    Decision,
    Option<String>,
    Option<String>,
);
static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

fn record(hook: &'static str, ev: &DispatchEvent) {
    SEEN.lock().push((
        hook,
        ev.session_id.clone(),
        ev.point,
        ev.decision,
        ev.hook.clone(),
        ev.reason.clone(),
    ));
}

/// What `hook` saw in session `session`: (point, decision, hook that decided, reason).
fn seen(
    hook: &str,
    session: &str,
) -> Vec<(&'static str, Decision, Option<String>, Option<String>)> {
    SEEN.lock()
        .iter()
        .filter(|s| s.0 == hook && s.1 == session)
        .map(|s| (s.2, s.3, s.4.clone(), s.5.clone()))
        .collect()
}

#[register_hook("*", extension = "wildcard-tests")]
fn every_point(ev: &DispatchEvent, _cx: &HookContext) {
    record("every", ev);
}

#[register_hook("after_*", priority = 5, extension = "wildcard-tests")]
fn after_points(ev: &DispatchEvent) -> Result<(), String> {
    record("after", ev);
    Ok(())
}

#[register_hook("myapp:*", extension = "wildcard-tests")]
fn my_points(ev: &DispatchEvent, _cx: &HookContext) {
    record("myapp", ev);
}

#[derive(serde::Serialize)]
pub struct Email {
    to: String,
}

hook_point! {
    /// A point of the agent's own, in the `myapp:` namespace.
    pub struct EmailSent: observe("myapp:email_sent") {
        type Value = Email;
    }
}

/// A point whose value has no JSON form.
pub struct Opaque;

hook_point! {
    pub struct OpaqueSent: observe("myapp:opaque_sent") {
        type Value = Opaque;
    }
}

fn guarded() -> Hooks {
    HooksBuilder::new()
        .collected()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("no-rm"),
            |call: &ToolCall, _: &HookContext| {
                if call.name == "rm" {
                    HookResult::block("rm is not allowed")
                } else {
                    HookResult::<Value>::Pass
                }
            },
        )
        .hook_with(
            TransformUserInput,
            HookOptions::new("shout"),
            |text: &str, _: &HookContext| HookResult::Rewrite(text.to_uppercase()),
        )
        .build()
        .unwrap()
}

#[test]
fn star_sees_every_point_and_a_prefix_only_its_points() {
    let hooks = guarded();
    let session = hooks.session("wild-star");
    let turn = session.begin_turn();
    assert_eq!(
        turn.transform_user_input("hi").continued(),
        Some("HI".to_owned())
    );
    let run = turn.run_tool(ToolCall::new("ls", json!({})), |_| Ok(json!("a b")));
    assert!(run.ran);
    turn.end(TurnEnd::Normal);
    session.end("done");

    let points: Vec<&str> = seen("every", "wild-star").iter().map(|s| s.0).collect();
    assert_eq!(
        points,
        [
            "session_start",
            "transform_user_input",
            "intercept_tool_call",
            "after_tool_call",
            "transform_tool_result",
            "turn_end",
            "session_end",
        ]
    );
    let after: Vec<&str> = seen("after", "wild-star").iter().map(|s| s.0).collect();
    assert_eq!(after, ["after_tool_call"]);
    assert!(seen("myapp", "wild-star").is_empty());
    let input = &seen("every", "wild-star")[1];
    assert_eq!(
        (input.1, input.2.as_deref()),
        (Decision::Rewrite, Some("shout"))
    );
}

#[test]
fn wildcard_hooks_see_blocks_with_the_blocking_hook_and_its_reason() {
    let hooks = guarded();
    let turn = hooks.session("wild-block").begin_turn();
    let run = turn.run_tool(ToolCall::new("rm", json!({"path": "/"})), |_| {
        unreachable!("refused")
    });
    assert!(!run.ran);
    let every = seen("every", "wild-block");
    let intercept = every.iter().find(|s| s.0 == "intercept_tool_call").unwrap();
    assert_eq!(
        intercept,
        &(
            "intercept_tool_call",
            Decision::Block,
            Some("no-rm".to_owned()),
            Some("rm is not allowed".to_owned())
        )
    );
    // The refused call still reaches after_tool_call, which passes.
    assert!(
        every
            .iter()
            .any(|s| s.0 == "after_tool_call" && s.1 == Decision::Pass)
    );
}

#[test]
fn a_prefix_with_a_namespace_watches_points_of_your_own_with_their_json() {
    let payloads = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&payloads);
    let hooks = HooksBuilder::new()
        .collected()
        .watch(
            "myapp:*",
            HookOptions::new("payloads"),
            move |ev: &DispatchEvent, _: &HookContext| kept.lock().push(ev.payload.clone()),
        )
        .build()
        .unwrap();
    let turn = hooks.session("wild-mine").begin_turn();
    let _ = turn.fire::<EmailSent>(Email { to: "a@b".into() });
    let _ = turn.fire::<OpaqueSent>(Opaque);
    let mine: Vec<&str> = seen("myapp", "wild-mine").iter().map(|s| s.0).collect();
    assert_eq!(mine, ["myapp:email_sent", "myapp:opaque_sent"]);
    assert_eq!(*payloads.lock(), [json!({"to": "a@b"}), Value::Null]);
    assert_eq!(EmailSent::NAME, "myapp:email_sent");
}

#[test]
fn a_wildcard_hook_that_panics_or_fails_changes_no_outcome() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (c1, c2) = (Arc::clone(&calls), Arc::clone(&calls));
    let notes = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&notes);
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("no-rm"),
            |call: &ToolCall, _: &HookContext| {
                if call.name == "rm" {
                    HookResult::block("no")
                } else {
                    HookResult::<Value>::Pass
                }
            },
        )
        .watch(
            "intercept_*",
            HookOptions::new("panics"),
            move |_: &DispatchEvent, _: &HookContext| {
                c1.fetch_add(1, Ordering::Relaxed);
                if c1.load(Ordering::Relaxed) < usize::MAX {
                    panic!("watcher down");
                }
            },
        )
        .watch(
            "intercept_*",
            HookOptions::new("fails").priority(1),
            move |ev: &DispatchEvent, cx: &HookContext| -> Result<(), String> {
                c2.fetch_add(1, Ordering::Relaxed);
                cx.warn("ignored: a wildcard hook only observes");
                Err(format!("cannot log {}", ev.point))
            },
        )
        .hook(
            Notify,
            0,
            move |n: &hookchain::points::Notification, _: &HookContext| {
                kept.lock().push(n.message.clone());
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("wild-panic").begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("ls", json!({"a": 1})));
    assert_eq!(flow.continued().unwrap().args, json!({"a": 1}));
    assert!(
        turn.intercept_tool_call(ToolCall::new("rm", json!({})))
            .is_blocked()
    );
    assert_eq!(calls.load(Ordering::Relaxed), 4);
    assert!(turn.take_warnings().is_empty());
    let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new("rm", json!({})));
    assert_eq!(outcome.flow.blocked().unwrap().hook, "no-rm");
    let failed: Vec<(&str, bool)> = outcome
        .failures
        .iter()
        .map(|f| (f.hook.as_str(), f.panicked))
        .collect();
    assert_eq!(failed, [("panics", true), ("fails", false)]);
    // Each failure is reported through `notification`, as any observer's.
    let notes = notes.lock();
    assert_eq!(notes.len(), 4, "{notes:?}");
    assert!(notes[0].contains("hook `panics` panicked: watcher down"));
}

#[test]
fn a_disabled_extension_silences_its_wildcard_hooks_and_the_event_says_the_turn() {
    let count = Arc::new(AtomicUsize::new(0));
    let turns = Arc::new(Mutex::new(Vec::new()));
    let (c, t) = (Arc::clone(&count), Arc::clone(&turns));
    let hooks = HooksBuilder::new()
        .watch(
            "*",
            HookOptions::new("count").extension("audit"),
            move |ev: &DispatchEvent, _: &HookContext| {
                c.fetch_add(1, Ordering::Relaxed);
                t.lock().push((ev.point, ev.turn));
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("wild-off");
    let turn = session.begin_turn();
    turn.after_tool_call(ToolResult::new(
        &ToolCall::new("ls", json!({})),
        Ok(json!(1)),
    ));
    hooks.disable_extension("audit").unwrap();
    turn.after_tool_call(ToolResult::new(
        &ToolCall::new("ls", json!({})),
        Ok(json!(1)),
    ));
    assert_eq!(count.load(Ordering::Relaxed), 2);
    assert_eq!(
        *turns.lock(),
        [("session_start", None), ("after_tool_call", Some(0))]
    );
    assert!(matches!(
        turn.intercept_tool_call(ToolCall::new("ls", json!({}))),
        Flow::Continue(_)
    ));
}

#[test]
fn a_pattern_that_matches_no_point_fails_the_build_naming_the_hook() {
    let error = HooksBuilder::new()
        .watch(
            "atfer_*",
            HookOptions::new("typo"),
            |_: &DispatchEvent, _: &HookContext| {},
        )
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("wildcard hook `typo` (tests/wildcard.rs:"),
        "{error}"
    );
    assert!(error.contains("did you mean `after_*`?"), "{error}");
}

#[test]
fn describe_lists_wildcard_hooks_under_their_pattern() {
    let hooks = guarded();
    let patterns: Vec<&str> = hooks
        .hooks()
        .iter()
        .filter(|h| h.extension.as_ref() == "wildcard-tests")
        .map(|h| h.point)
        .collect();
    assert_eq!(patterns, ["*", "after_*", "myapp:*"]);
    assert!(hooks.describe().to_string().contains("after_*"));
}

#[test]
fn a_wildcard_hook_without_payload_gets_the_tool_and_no_json() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    let hooks = HooksBuilder::new()
        .watch(
            "intercept_*",
            HookOptions::new("counter").without_payload(),
            move |ev: &DispatchEvent, _: &HookContext| {
                kept.lock().push((ev.tool.clone(), ev.payload.clone()));
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("wild-no-payload").begin_turn();
    let _ = turn.intercept_tool_call(ToolCall::new("ls", json!({"big": "args"})));
    assert_eq!(*seen.lock(), [(Some("ls".to_owned()), Value::Null)]);
}

/// The (point, decision) of every event a watcher saw, in order.
type Points = Arc<Mutex<Vec<(&'static str, Decision)>>>;

/// A registry whose `no-rm` blocks `rm`, and what its builder watcher on `*` saw.
fn watching() -> (Hooks, Points) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            if call.name == "rm" {
                HookResult::block("no")
            } else {
                HookResult::<Value>::Pass
            }
        })
        .watch(
            "*",
            HookOptions::new("all"),
            move |ev: &DispatchEvent, _: &HookContext| kept.lock().push((ev.point, ev.decision)),
        )
        .build()
        .unwrap();
    (hooks, seen)
}

#[tokio::test]
async fn the_async_dispatch_reports_to_wildcard_hooks_too() {
    let (hooks, seen) = watching();
    let session = hooks.session_async("wild-async").await;
    let turn = session.begin_turn();
    let flow = turn
        .intercept_tool_call_async(ToolCall::new("rm", json!({})))
        .await;
    assert!(flow.is_blocked());
    let _ = turn
        .fire_async::<AfterToolCall>(ToolResult::new(
            &ToolCall::new("ls", json!({})),
            Ok(json!(1)),
        ))
        .await;
    turn.end_async(TurnEnd::Normal).await;
    assert_eq!(
        *seen.lock(),
        [
            ("session_start", Decision::Pass),
            ("intercept_tool_call", Decision::Block),
            ("after_tool_call", Decision::Pass),
            ("turn_end", Decision::Pass),
        ]
    );
}

#[test]
fn a_turn_dropped_without_end_reports_its_turn_end() {
    let (hooks, seen) = watching();
    let session = hooks.session("wild-drop");
    drop(session.begin_turn());
    assert_eq!(
        *seen.lock(),
        [
            ("session_start", Decision::Pass),
            ("turn_end", Decision::Pass)
        ]
    );
}
