//! Turn and session state: cleared on every exit path, isolated between sessions, safe for
//! parallel tool calls.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use hookchain_core::points::{InterceptToolCall, TurnEnded};
use hookchain_core::{HookContext, HookResult, ToolCall, TurnEnd, TurnEndEvent};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder, get_session_state, get_turn_state};
use parking_lot::Mutex;
use serde_json::{Value, json};

/// A registry whose `turn_end` observer records every event, and whose tool hook counts reads in
/// the turn state.
fn recording() -> (Hooks, Arc<Mutex<Vec<TurnEndEvent>>>) {
    let ends = Arc::new(Mutex::new(Vec::new()));
    let ends2 = ends.clone();
    let hooks = HooksBuilder::new()
        .hook_with(
            TurnEnded,
            HookOptions::new("record-end"),
            move |e: &TurnEndEvent, cx: &HookContext| {
                // The state is still readable while turn_end runs; it is cleared right after.
                let reads = get_turn_state(cx.session_id()).get::<u32>("reads");
                let mut e = e.clone();
                if let Some(reads) = reads {
                    e.session_id = format!("{}#{reads}", e.session_id);
                }
                ends2.lock().push(e);
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("count-reads"),
            |c: &ToolCall, cx: &HookContext| {
                if c.name == "read_file" {
                    get_turn_state(cx.session_id())
                        .update("reads", |n: &mut u32| *n += 1)
                        .unwrap();
                }
                HookResult::<Value>::Pass
            },
        )
        .build()
        .unwrap();
    (hooks, ends)
}

fn read() -> ToolCall {
    ToolCall::new("read_file", json!({"path": "README.md"}))
}

#[test]
fn end_fires_turn_end_once_then_clears_and_the_next_turn_starts_empty() {
    let (hooks, ends) = recording();
    let session = hooks.session("end-normal");
    let turn = session.begin_turn();
    assert!(get_turn_state("end-normal").is_empty());
    let _ = turn.intercept_tool_call(read());
    let _ = turn.intercept_tool_call(read());
    assert_eq!(get_turn_state("end-normal").get::<u32>("reads"), Some(2));
    assert!(turn.state().same_as(&get_turn_state("end-normal")));
    let kept = get_turn_state("end-normal");
    turn.end(TurnEnd::Normal);
    assert_eq!(ends.lock().len(), 1);
    assert_eq!(ends.lock()[0].session_id, "end-normal#2");
    assert_eq!(ends.lock()[0].reason, TurnEnd::Normal);
    assert!(get_turn_state("end-normal").is_empty());
    assert!(
        kept.is_empty(),
        "a handle kept past the turn sees it cleared"
    );
    let next = session.begin_turn();
    assert_eq!(next.index(), 1);
    assert!(next.state().is_empty());
    next.end(TurnEnd::MaxIterations);
    assert_eq!(ends.lock()[1].reason, TurnEnd::MaxIterations);
    assert_eq!(ends.lock()[1].turn, 1);
}

fn agent_step(session: &hookchain_runtime::Session, fail: bool) -> Result<(), String> {
    let turn = session.begin_turn();
    let _ = turn.intercept_tool_call(read());
    if fail {
        Err("tool crashed".to_owned())?;
    }
    turn.end(TurnEnd::Normal);
    Ok(())
}

#[test]
fn an_early_return_drops_the_turn_fires_turn_end_canceled_and_clears() {
    let (hooks, ends) = recording();
    let session = hooks.session("end-early");
    assert!(agent_step(&session, true).is_err());
    assert_eq!(ends.lock().len(), 1);
    assert_eq!(ends.lock()[0].reason, TurnEnd::Canceled);
    assert_eq!(ends.lock()[0].session_id, "end-early#1");
    assert!(get_turn_state("end-early").is_empty());
    assert!(agent_step(&session, false).is_ok());
    assert_eq!(ends.lock().len(), 2);
    assert_eq!(ends.lock()[1].reason, TurnEnd::Normal);
}

#[test]
fn a_panic_through_the_turn_fires_turn_end_error_once_and_clears() {
    let (hooks, ends) = recording();
    let session = hooks.session("end-panic");
    let result = catch_unwind(AssertUnwindSafe(|| {
        let turn = session.begin_turn();
        let _ = turn.intercept_tool_call(read());
        panic!("the tool panicked");
    }));
    assert!(result.is_err());
    assert_eq!(ends.lock().len(), 1);
    assert!(matches!(ends.lock()[0].reason, TurnEnd::Error(_)));
    assert!(get_turn_state("end-panic").is_empty());
}

#[test]
fn a_turn_end_hook_that_panics_while_the_turn_unwinds_does_not_abort() {
    let hooks = HooksBuilder::new()
        .hook_with(
            TurnEnded,
            HookOptions::new("bad-observer"),
            |_: &TurnEndEvent, _: &HookContext| -> () { panic!("observer bug") },
        )
        .build()
        .unwrap();
    let session = hooks.session("end-panic-twice");
    let result = catch_unwind(AssertUnwindSafe(|| {
        let turn = session.begin_turn();
        turn.state().set("x", 1);
        panic!("the tool panicked");
    }));
    assert!(result.is_err());
    assert!(get_turn_state("end-panic-twice").is_empty());
}

#[test]
fn state_written_outside_a_turn_does_not_leak_into_the_next_turn() {
    let hooks = HooksBuilder::new().build().unwrap();
    let session = hooks.session("outside");
    get_turn_state("outside").set("stale", true);
    let turn = session.begin_turn();
    assert!(!turn.state().contains("stale"));
}

#[test]
fn session_state_lives_across_turns_and_dies_with_the_session() {
    let hooks = HooksBuilder::new().build().unwrap();
    let session = hooks.session("session-state");
    for i in 0..3u32 {
        let turn = session.begin_turn();
        get_session_state("session-state")
            .update("turns", |n: &mut u32| *n += 1)
            .unwrap();
        turn.state().set("i", i);
        turn.end(TurnEnd::Normal);
    }
    assert_eq!(session.state().get::<u32>("turns"), Some(3));
    let kept = session.state();
    drop(session);
    assert!(kept.is_empty(), "dropping the session frees its state");
    assert!(get_session_state("session-state").is_empty());
}

#[test]
fn typed_slots_and_serde_values_live_side_by_side() {
    #[derive(Default, Debug, PartialEq)]
    struct Reads(Vec<String>);
    let hooks = HooksBuilder::new().build().unwrap();
    let session = hooks.session("typed");
    let turn = session.begin_turn();
    let state = get_turn_state("typed");
    state.with_ext_or_default(|r: &mut Reads| r.0.push("a.rs".into()));
    state.with_ext_or_default(|r: &mut Reads| r.0.push("b.rs".into()));
    assert_eq!(state.with_ext(|r: &mut Reads| r.0.len()), Some(2));
    assert_eq!(state.insert_ext(7u8), None);
    assert_eq!(state.insert_ext(8u8), Some(7));
    state.set("plan_ok", true);
    assert_eq!(state.get::<bool>("plan_ok"), Some(true));
    assert_eq!(state.get::<String>("plan_ok"), None);
    let err = state.try_get::<String>("plan_ok").unwrap_err();
    assert!(err.to_string().contains("state key `plan_ok`"), "{err}");
    assert_eq!(state.keys(), ["plan_ok"]);
    assert_eq!(state.snapshot().get("plan_ok"), Some(&json!(true)));
    turn.end(TurnEnd::Normal);
    assert_eq!(
        state.with_ext(|r: &mut Reads| r.0.len()),
        None,
        "typed slots are cleared too"
    );
    assert_eq!(state.remove_ext::<u8>(), None);
}

#[test]
fn eight_threads_times_many_sessions_stay_isolated() {
    let (hooks, ends) = recording();
    std::thread::scope(|s| {
        for t in 0..8 {
            let hooks = &hooks;
            s.spawn(move || {
                for i in 0..50u32 {
                    let id = format!("iso-{t}-{i}");
                    let session = hooks.session(id.clone());
                    let turn = session.begin_turn();
                    for _ in 0..(i % 5 + 1) {
                        let _ = turn.intercept_tool_call(read());
                    }
                    turn.state().set("owner", id.clone());
                    assert_eq!(get_turn_state(&id).get::<u32>("reads"), Some(i % 5 + 1));
                    assert_eq!(get_turn_state(&id).get::<String>("owner"), Some(id.clone()));
                    turn.end(TurnEnd::Normal);
                    assert!(get_turn_state(&id).is_empty());
                }
            });
        }
    });
    let ends = ends.lock();
    assert_eq!(ends.len(), 8 * 50);
    for e in ends.iter() {
        // "iso-T-I#READS": every session saw exactly its own reads.
        let (id, reads) = e.session_id.split_once('#').unwrap();
        let i: u32 = id.rsplit('-').next().unwrap().parse().unwrap();
        assert_eq!(reads.parse::<u32>().unwrap(), i % 5 + 1, "{}", e.session_id);
    }
}

#[test]
fn parallel_tool_calls_of_one_turn_never_lose_an_update() {
    let (hooks, _ends) = recording();
    let session = hooks.session("parallel-calls");
    let turn = session.begin_turn();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..250 {
                    let _ = turn.intercept_tool_call(read());
                }
            });
        }
    });
    assert_eq!(turn.state().get::<u32>("reads"), Some(2000));
}

#[test]
fn a_turn_that_ends_after_a_newer_one_began_clears_only_its_own_state() {
    let hooks = HooksBuilder::new().build().unwrap();
    let session = hooks.session("overlap");
    let old = session.begin_turn();
    let new = session.begin_turn();
    new.state().set("mine", true);
    old.end(TurnEnd::Canceled);
    assert_eq!(get_turn_state("overlap").get::<bool>("mine"), Some(true));
    new.end(TurnEnd::Normal);
    assert!(get_turn_state("overlap").is_empty());
}

/// `Turn` and `Session` are handles: clone them and send them to other threads and tasks.
#[test]
fn turn_and_session_are_clone_send_sync() {
    fn handle<T: Clone + Send + Sync + 'static>() {}
    handle::<hookchain_runtime::Turn>();
    handle::<hookchain_runtime::Session>();
    handle::<hookchain_runtime::TurnState>();
    handle::<hookchain_runtime::SessionState>();
}

/// For each tool call: its name, then "who" in `cx.turn_state()` (or in `cx.session_state()`),
/// then in `get_turn_state(cx.session_id())`.
type Seen = Arc<Mutex<Vec<(String, Option<String>, Option<String>)>>>;

/// A registry whose tool hook records what each call sees (see [`Seen`]).
fn who_sees_what() -> (Hooks, Seen) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("who"),
            move |c: &ToolCall, cx: &HookContext| {
                let by_cx = cx.turn_state().get::<String>("who");
                let by_id = get_turn_state(cx.session_id()).get::<String>("who");
                let session = cx.session_state().get::<String>("who");
                assert_eq!(
                    cx.session_state().get_value("who"),
                    get_session_state(cx.session_id()).get_value("who"),
                    "the session state by id is the hook's own session's"
                );
                seen2
                    .lock()
                    .push((c.name.clone(), by_cx.or(session), by_id));
                HookResult::<Value>::Pass
            },
        )
        .build()
        .unwrap();
    (hooks, seen)
}

#[test]
fn two_overlapping_turns_of_one_session_each_keep_their_own_state() {
    let (hooks, seen) = who_sees_what();
    let session = hooks.session("overlap-own");
    let first = session.begin_turn();
    let second = session.begin_turn();
    first.state().set("who", "first");
    second.state().set("who", "second");
    let _ = first.intercept_tool_call(ToolCall::new("a", json!({})));
    let _ = second.intercept_tool_call(ToolCall::new("b", json!({})));
    // Outside any hook, the id means the latest turn begun and not ended.
    assert!(get_turn_state("overlap-own").same_as(second.state()));
    assert_eq!(
        *seen.lock(),
        [
            ("a".into(), Some("first".into()), Some("first".into())),
            ("b".into(), Some("second".into()), Some("second".into())),
        ],
        "every hook sees its own turn's state, through cx and through the id"
    );
    // Ending the newer turn leaves the older one's state alone, and the other way round.
    second.end(TurnEnd::Normal);
    assert!(second.state().is_empty());
    assert_eq!(first.state().get::<String>("who").as_deref(), Some("first"));
    assert!(get_turn_state("overlap-own").same_as(first.state()));
    let third = session.begin_turn();
    third.state().set("who", "third");
    first.end(TurnEnd::Normal);
    assert!(first.state().is_empty());
    assert_eq!(third.state().get::<String>("who").as_deref(), Some("third"));
    third.end(TurnEnd::Normal);
    assert!(get_turn_state("overlap-own").is_empty());
}

#[test]
fn overlapping_turns_on_two_threads_never_see_each_others_state() {
    let (hooks, seen) = who_sees_what();
    let session = hooks.session("overlap-threads");
    let turns: Vec<_> = (0..4).map(|_| session.begin_turn()).collect();
    std::thread::scope(|s| {
        for (i, turn) in turns.iter().enumerate() {
            let turn = turn.clone();
            s.spawn(move || {
                turn.state().set("who", format!("turn-{i}"));
                for _ in 0..100 {
                    let _ = turn.intercept_tool_call(ToolCall::new(format!("turn-{i}"), json!({})));
                }
            });
        }
    });
    let seen = seen.lock();
    assert_eq!(seen.len(), 400);
    for (name, by_cx, by_id) in seen.iter() {
        assert_eq!(by_cx.as_ref(), Some(name));
        assert_eq!(by_id.as_ref(), Some(name));
    }
}

#[test]
fn two_registries_with_the_same_session_id_never_share_state() {
    let (a, seen_a) = who_sees_what();
    let (b, seen_b) = who_sees_what();
    let in_a = a.session("shared-id");
    let in_b = b.session("shared-id");
    in_a.state().set("who", "session a");
    assert!(in_b.state().is_empty(), "session states are per registry");
    let turn_a = in_a.begin_turn();
    let turn_b = in_b.begin_turn();
    turn_a.state().set("who", "a");
    turn_b.state().set("who", "b");
    let _ = turn_b.intercept_tool_call(ToolCall::new("x", json!({})));
    let _ = turn_a.intercept_tool_call(ToolCall::new("x", json!({})));
    assert_eq!(seen_a.lock()[0].1.as_deref(), Some("a"));
    assert_eq!(seen_a.lock()[0].2.as_deref(), Some("a"), "by id: a's own");
    assert_eq!(seen_b.lock()[0].1.as_deref(), Some("b"));
    assert_eq!(seen_b.lock()[0].2.as_deref(), Some("b"), "by id: b's own");
    // Ending one registry's session frees its state only.
    turn_a.end(TurnEnd::Normal);
    in_a.end("done");
    assert_eq!(turn_b.state().get::<String>("who").as_deref(), Some("b"));
    assert!(get_turn_state("shared-id").same_as(turn_b.state()));
    turn_b.end(TurnEnd::Normal);
    in_b.end("done");
}

#[test]
fn outside_any_hook_the_id_means_the_session_that_started_last() {
    let older = HooksBuilder::new().build().unwrap();
    let newer = HooksBuilder::new().build().unwrap();
    let first = older.session("started-last");
    let second = newer.session("started-last");
    first.state().set("n", 1);
    second.state().set("n", 2);
    assert_eq!(get_session_state("started-last").get::<u32>("n"), Some(2));
    second.end("done");
    assert_eq!(get_session_state("started-last").get::<u32>("n"), Some(1));
    first.end("done");
}

#[test]
fn a_session_dispatch_outside_any_turn_gets_the_state_outside_a_turn() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let hooks = HooksBuilder::new()
        .hook(
            hookchain_core::points::SessionStart,
            0,
            move |_: &hookchain_core::SessionStartEvent, cx: &HookContext| {
                cx.session_state().set("started", true);
                cx.turn_state().set("before any turn", true);
                seen2.lock().push(
                    get_turn_state(cx.session_id()).same_as(cx.turn_state())
                        && get_session_state(cx.session_id()).same_as(cx.session_state()),
                );
                HookResult::<String>::Pass
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("outside-turn");
    assert_eq!(*seen.lock(), [true]);
    assert_eq!(session.state().get::<bool>("started"), Some(true));
    assert_eq!(
        get_turn_state("outside-turn").get::<bool>("before any turn"),
        Some(true)
    );
    let turn = session.begin_turn();
    assert!(turn.state().is_empty(), "a turn starts empty");
    assert!(
        !get_turn_state("outside-turn").contains("before any turn"),
        "the state outside a turn is cleared when a turn begins"
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_context_outside_any_session_has_states_of_its_own() {
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |_: &ToolCall, cx: &HookContext| {
            cx.turn_state().update("n", |n: &mut u32| *n += 1).unwrap();
            cx.turn_state().update("n", |n: &mut u32| *n += 1).unwrap();
            let n = cx.turn_state().get::<u32>("n");
            assert!(cx.session_state().is_empty());
            HookResult::Rewrite(json!({ "n": n }))
        })
        .build()
        .unwrap();
    for _ in 0..2 {
        let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new("x", json!({})));
        assert_eq!(
            outcome.flow.continued().unwrap().args,
            json!({"n": 2}),
            "each dispatch starts empty"
        );
    }
}

#[test]
fn end_is_idempotent_across_clones_and_turn_end_fires_once() {
    let (hooks, ends) = recording();
    let session = hooks.session("end-twice");
    let turn = session.begin_turn();
    let clone = turn.clone();
    let _ = clone.intercept_tool_call(read());
    turn.end(TurnEnd::Normal);
    assert!(clone.is_ended());
    clone.end(TurnEnd::Blocked);
    turn.end(TurnEnd::Canceled);
    drop((turn, clone));
    assert_eq!(ends.lock().len(), 1);
    assert_eq!(ends.lock()[0].reason, TurnEnd::Normal);
    assert_eq!(ends.lock()[0].session_id, "end-twice#1");
}

#[test]
fn only_the_last_clone_dropped_ends_the_turn() {
    let (hooks, ends) = recording();
    let session = hooks.session("last-clone");
    let turn = session.begin_turn();
    let state = turn.state().clone();
    state.set("k", 1);
    let clones: Vec<_> = (0..3).map(|_| turn.clone()).collect();
    drop(turn);
    assert!(ends.lock().is_empty(), "clones keep the turn alive");
    assert_eq!(state.get::<u32>("k"), Some(1));
    std::thread::scope(|s| {
        for clone in clones {
            s.spawn(move || {
                let _ = clone.intercept_tool_call(read());
            });
        }
    });
    assert_eq!(ends.lock().len(), 1);
    assert_eq!(ends.lock()[0].reason, TurnEnd::Canceled);
    assert!(state.is_empty());
}

#[test]
fn session_end_is_idempotent_across_clones() {
    let ended = Arc::new(Mutex::new(Vec::new()));
    let ended2 = ended.clone();
    let hooks = HooksBuilder::new()
        .hook(
            hookchain_core::points::SessionEnd,
            0,
            move |e: &hookchain_core::SessionEndEvent, _: &HookContext| {
                ended2.lock().push(e.reason.clone());
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("session-end-twice");
    let clone = session.clone();
    session.state().set("k", 1);
    clone.end("first");
    assert!(session.is_ended());
    assert!(session.state().is_empty());
    session.end("second");
    drop((session, clone));
    assert_eq!(*ended.lock(), ["first"]);
}

/// A hook in a dispatch of the session outside any turn (`Session::fire`), while a turn of that
/// session is live: `get_turn_state(id)` is the state the dispatch runs in — the session's state
/// outside a turn, as `cx.turn_state()` — not the live turn's.
#[test]
fn get_turn_state_in_a_session_dispatch_is_the_state_outside_the_turn() {
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("writes-by-id"),
            |_: &ToolCall, cx: &HookContext<'_>| {
                get_turn_state(cx.session_id()).set("written_by_id", true);
                let seen = cx.turn_state().get::<bool>("written_by_id") == Some(true);
                cx.set_metadata("same_state", seen);
                HookResult::<Value>::Pass
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("outside-while-a-turn-lives");
    let turn = session.begin_turn();
    let outcome = session.fire::<InterceptToolCall>(read());
    assert_eq!(outcome.metadata.get("same_state"), Some(&Value::Bool(true)));
    assert!(
        turn.state().get::<bool>("written_by_id").is_none(),
        "the live turn's state was written"
    );
    turn.end(TurnEnd::Normal);
}
