//! The event bus: `HookContext::emit`, `Turn::emit` and `Session::emit` deliver a typed event to
//! its point's chain after the current dispatch and before the agent's call returns, in the
//! same session and turn, never re-entrantly, to a bounded depth. Run with the default backend
//! (inventory) and with `--features linkme`.

use std::sync::Arc;

use hookchain::chain::MAX_EMIT_DEPTH;
use hookchain::points::{InterceptToolCall, Level, Notification, Notify};
use hookchain::registry::HookInfo;
use hookchain::{
    HookContext, HookOptions, HookResult, Hooks, HooksBuilder, hook_point, prelude::*,
};
use parking_lot::Mutex;

hook_point! {
    /// A note was saved: the `bus-notes` extension tells whoever listens.
    pub struct NoteSaved: observe("bus_note_saved") {
        type Value = String;
    }
}

hook_point! {
    /// One side of a ping-pong between two extensions.
    pub struct Ping: observe("bus_ping") {
        type Value = u32;
    }
}

hook_point! {
    /// The other side.
    pub struct Pong: observe("bus_pong") {
        type Value = u32;
    }
}

hook_point! {
    /// An event a hook may veto.
    pub struct Publish: transform("bus_publish") {
        type Value = String;
        type Rewrite = String;
        fn apply(text, new) { *text = new; }
    }
}

/// Appends `entry` to the turn's log (`"log"` in the turn state).
fn log(cx: &HookContext, entry: impl Into<String>) {
    let entry = entry.into();
    cx.turn_state()
        .update("log", |log: &mut Vec<String>| log.push(entry))
        .expect("the log is a list of strings");
}

/// `bus-notes`: a tool call named `save_note` saves a note and emits `NoteSaved`.
#[register_hook("intercept_tool_call", priority = 1, extension = "bus-notes")]
fn save_note(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    if call.name == "save_note" {
        let title = call.args["title"].as_str().unwrap_or("?").to_owned();
        cx.emit::<NoteSaved>(title.clone());
        log(cx, format!("saved {title}"));
    }
    HookResult::Pass
}

/// `bus-notes`, after `save_note` in the same chain: the event must not have run yet.
#[register_hook("intercept_tool_call", priority = 2, extension = "bus-notes")]
fn after_save(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    if call.name == "save_note" {
        log(cx, "chain went on");
    }
    HookResult::Pass
}

/// `bus-journal`, another extension: hears `NoteSaved`, a point only hooks emit.
#[register_hook(NoteSaved, extension = "bus-journal")]
fn journal(title: &String, cx: &HookContext) {
    log(cx, format!("journal heard {title} in turn {}", cx.turn()));
    cx.add_context(format!("note {title} was saved"));
}

/// `bus-notes`, async: emits from inside an async dispatch.
#[register_hook("intercept_tool_call", priority = 3, extension = "bus-notes")]
async fn save_note_async(call: &ToolCall, cx: &HookContext<'_>) -> HookResult<Value> {
    if call.name == "save_note_async" {
        cx.emit::<NoteSaved>("async".to_owned());
        log(cx, "saved async");
    }
    HookResult::Pass
}

/// `bus-ping`: answers every ping with a pong.
#[register_hook(Ping, extension = "bus-ping")]
fn ping(n: &u32, cx: &HookContext) {
    log(cx, format!("ping {n}"));
    cx.emit::<Pong>(n + 1);
}

/// `bus-pong`: answers every pong with a ping; the two never stop by themselves.
#[register_hook(Pong, extension = "bus-pong")]
fn pong(n: &u32, cx: &HookContext) {
    log(cx, format!("pong {n}"));
    cx.emit::<Ping>(n + 1);
}

/// The registry of these tests: their own link-time hooks (extensions `bus-*`) only, and a
/// `notification` hook that records every notification in `notes`.
fn registry(notes: &Arc<Mutex<Vec<Notification>>>) -> Hooks {
    let notes = Arc::clone(notes);
    HooksBuilder::new()
        .collected_where(|info: &HookInfo| info.extension.starts_with("bus-"))
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            notes.lock().push(n.clone());
            HookResult::Pass
        })
        .build()
        .expect("the registry builds")
}

fn logged(turn: &hookchain::Turn) -> Vec<String> {
    turn.state().get::<Vec<String>>("log").unwrap_or_default()
}

#[test]
fn an_event_emitted_by_a_hook_is_delivered_after_the_dispatch_to_another_extension() {
    let notes = Arc::default();
    let hooks = registry(&notes);
    let turn = hooks.session("emit-from-hook").begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("save_note", json!({"title": "plan"})));
    assert!(!flow.is_blocked());
    // Delivered before the point method returned, after every hook of the dispatch, in the
    // same turn.
    assert_eq!(
        logged(&turn),
        [
            "saved plan",
            "chain went on",
            "journal heard plan in turn 0"
        ]
    );
    // What the event's hooks add, the turn keeps.
    assert_eq!(turn.take_context(), ["note plan was saved"]);
    turn.end(TurnEnd::Normal);
    assert!(notes.lock().is_empty(), "{:?}", notes.lock());
}

#[test]
fn a_call_that_emits_nothing_delivers_nothing() {
    let notes = Arc::default();
    let hooks = registry(&notes);
    let turn = hooks.session("emit-nothing").begin_turn();
    let _ = turn.intercept_tool_call(ToolCall::new("read_file", json!({})));
    assert!(logged(&turn).is_empty());
    turn.end(TurnEnd::Normal);
}

#[test]
fn the_agent_emits_from_a_turn_and_from_a_session() {
    let notes = Arc::default();
    let hooks = registry(&notes);
    let session = hooks.session("emit-from-agent");
    let turn = session.begin_turn();
    turn.emit::<NoteSaved>("by the agent".to_owned());
    assert_eq!(logged(&turn), ["journal heard by the agent in turn 0"]);
    turn.end(TurnEnd::Normal);

    let heard = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&heard);
    let hooks = HooksBuilder::new()
        .hook(NoteSaved, 0, move |title: &String, cx: &HookContext| {
            seen.lock().push(format!("{title} in {}", cx.session_id()));
            HookResult::Pass
        })
        .build()
        .unwrap();
    hooks
        .session("outside-a-turn")
        .emit::<NoteSaved>("x".to_owned());
    assert_eq!(*heard.lock(), ["x in outside-a-turn"]);
}

#[test]
fn an_event_emitted_at_session_start_is_delivered_before_the_session_is_handed_over() {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&heard);
    let hooks = HooksBuilder::new()
        .hook(
            hookchain::points::SessionStart,
            0,
            |_: &hookchain::points::SessionStartEvent, cx: &HookContext| {
                cx.emit::<NoteSaved>("welcome".to_owned());
                HookResult::Pass
            },
        )
        .hook(NoteSaved, 0, move |title: &String, cx: &HookContext| {
            seen.lock().push(format!("{title} in {}", cx.session_id()));
            HookResult::Pass
        })
        .build()
        .unwrap();
    let session = hooks.session("session-start-emits");
    assert_eq!(*heard.lock(), ["welcome in session-start-emits"]);
    session.end("done");
}

#[test]
fn two_extensions_emitting_to_each_other_stop_at_the_depth_bound_with_a_notice() {
    let notes = Arc::default();
    let hooks = registry(&notes);
    let turn = hooks.session("ping-pong").begin_turn();
    turn.emit::<Ping>(1);
    let log = logged(&turn);
    // The agent's event is at depth 1, each answer one deeper: MAX_EMIT_DEPTH deliveries.
    assert_eq!(log.len(), MAX_EMIT_DEPTH as usize, "{log:?}");
    assert_eq!(log[0], "ping 1");
    assert_eq!(log[1], "pong 2");
    let notes = notes.lock();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].level, Level::Error);
    assert_eq!(
        notes[0].message,
        format!(
            "event `bus_{}` emitted by hook `event_bus::{}` was not delivered: events emitted by \
             the hooks of emitted events nest at most {MAX_EMIT_DEPTH} deep (do two hooks emit \
             to each other?)",
            if MAX_EMIT_DEPTH.is_multiple_of(2) {
                "ping"
            } else {
                "pong"
            },
            if MAX_EMIT_DEPTH.is_multiple_of(2) {
                "pong"
            } else {
                "ping"
            },
        )
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn hooks_that_fan_out_stop_at_the_per_call_bound_with_one_notice() {
    let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&count);
    let notes: Arc<Mutex<Vec<Notification>>> = Arc::default();
    let notes_hook = Arc::clone(&notes);
    // Three events for every one heard: 3^6 + ... + 1 = 1,093 within the depth bound, more
    // than one call delivers.
    let hooks = HooksBuilder::new()
        .hook(Ping, 0, move |n: &u32, cx: &HookContext| {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            for _ in 0..3 {
                cx.emit::<Ping>(n + 1);
            }
            HookResult::Pass
        })
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            notes_hook.lock().push(n.clone());
            HookResult::Pass
        })
        .build()
        .unwrap();
    let turn = hooks.session("fan-out").begin_turn();
    turn.emit::<Ping>(1);
    assert_eq!(
        count.load(std::sync::atomic::Ordering::Relaxed),
        hookchain::chain::MAX_EVENTS_PER_CALL
    );
    let notes = notes.lock();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].message.ends_with(&format!(
            "and the events after it were not delivered: one call delivers at most {} events \
             (do hooks emit an event for every event they hear?)",
            hookchain::chain::MAX_EVENTS_PER_CALL
        )),
        "{}",
        notes[0].message
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_blocked_event_is_a_notice_and_the_emitter_goes_on() {
    let notes: Arc<Mutex<Vec<Notification>>> = Arc::default();
    let notes_hook = Arc::clone(&notes);
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |_: &ToolCall, cx: &HookContext| {
            cx.emit::<Publish>("draft".to_owned());
            HookResult::Pass
        })
        .hook_with(
            Publish,
            HookOptions::new("censor"),
            |_: &String, _: &HookContext| HookResult::<String>::block("not yet"),
        )
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            notes_hook.lock().push(n.clone());
            HookResult::Pass
        })
        .build()
        .unwrap();
    let turn = hooks.session("blocked-event").begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("shell", json!({})));
    // The emitter's own dispatch is not the event's: it goes on.
    assert!(!flow.is_blocked());
    let notes = notes.lock();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].level, Level::Info);
    assert_eq!(notes[0].source.as_deref(), Some("censor"));
    assert!(
        notes[0]
            .message
            .starts_with("event `bus_publish` emitted by hook `")
            && notes[0]
                .message
                .ends_with("was blocked by hook `censor`: not yet"),
        "{}",
        notes[0].message
    );
    turn.end(TurnEnd::Normal);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_emitted_inside_an_async_dispatch_is_delivered_before_it_returns() {
    let notes = Arc::default();
    let hooks = registry(&notes);
    let turn = hooks.session("emit-async").begin_turn();
    let flow = turn
        .intercept_tool_call_async(ToolCall::new("save_note_async", json!({})))
        .await;
    assert!(!flow.is_blocked());
    assert_eq!(
        logged(&turn),
        ["saved async", "journal heard async in turn 0"]
    );
    turn.emit_async::<NoteSaved>("again".to_owned()).await;
    assert_eq!(logged(&turn)[2], "journal heard again in turn 0");
    turn.end_async(TurnEnd::Normal).await;
}

#[test]
fn a_dispatch_outside_any_session_leaves_its_events_in_the_outcome() {
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |_: &ToolCall, cx: &HookContext| {
            cx.emit::<NoteSaved>("kept".to_owned());
            HookResult::Pass
        })
        .build()
        .unwrap();
    let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new("shell", json!({})));
    assert_eq!(outcome.events.len(), 1);
    assert_eq!(outcome.events[0].point(), "bus_note_saved");
    assert_eq!(outcome.events[0].payload(), json!("kept"));
}

#[test]
fn an_event_of_a_point_nobody_hooks_is_heard_by_nobody() {
    let notes: Arc<Mutex<Vec<Notification>>> = Arc::default();
    let notes_hook = Arc::clone(&notes);
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |_: &ToolCall, cx: &HookContext| {
            cx.emit::<Publish>("to nobody".to_owned());
            HookResult::Pass
        })
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            notes_hook.lock().push(n.clone());
            HookResult::Pass
        })
        .build()
        .unwrap();
    let turn = hooks.session("nobody").begin_turn();
    assert!(
        !turn
            .intercept_tool_call(ToolCall::new("shell", json!({})))
            .is_blocked()
    );
    assert!(notes.lock().is_empty());
    turn.end(TurnEnd::Normal);
}

#[test]
fn wildcard_hooks_see_an_event_of_a_point_with_no_hook() {
    type Seen = (&'static str, Value, Option<u64>, String);
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let record = Arc::clone(&seen);
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |_: &ToolCall, cx: &HookContext| {
            cx.emit::<Publish>("heard by the wildcard".to_owned());
            HookResult::Pass
        })
        .watch(
            "*",
            HookOptions::new("audit"),
            move |ev: &hookchain::DispatchEvent, _: &HookContext| {
                if ev.point == "bus_publish" {
                    record.lock().push((
                        ev.point,
                        ev.payload.clone(),
                        ev.turn,
                        ev.session_id.clone(),
                    ));
                }
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("wildcard-unheard").begin_turn();
    let _ = turn.intercept_tool_call(ToolCall::new("shell", json!({})));
    assert_eq!(
        *seen.lock(),
        [(
            "bus_publish",
            json!("heard by the wildcard"),
            Some(0),
            "wildcard-unheard".to_owned()
        )]
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_notification_hook_that_emits_cannot_keep_the_bus_going() {
    let hooks = HooksBuilder::new()
        .collected_where(|info: &HookInfo| info.extension.starts_with("bus-p"))
        // Every notification, the depth bound's included, starts the ping-pong again.
        .hook(Notify, 0, |_: &Notification, cx: &HookContext| {
            cx.emit::<Ping>(100);
            HookResult::Pass
        })
        .build()
        .unwrap();
    let turn = hooks.session("notify-emits").begin_turn();
    turn.emit::<Ping>(1);
    // The agent's ping-pong to the bound; the notification of the bound emits a ping that is
    // not delivered (it reports a dropped event), so the call returns.
    assert_eq!(logged(&turn).len(), MAX_EMIT_DEPTH as usize);
    turn.end(TurnEnd::Normal);
}
