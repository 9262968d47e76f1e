//! A lookup by an id no live session has stores nothing; a session with a live `Session` or
//! `Turn` handle is never evicted, however idle. In a file of its own, its tests one at a time:
//! eviction and the session count are process-wide and would race with the sessions of other
//! tests.

use std::time::Duration;

use hookchain_runtime::{
    HooksBuilder, evict_idle_sessions, get_session_state, get_turn_state, live_sessions,
    set_idle_timeout,
};
use parking_lot::Mutex;

/// The tests of this file touch process-wide counts: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn lookups_of_unknown_ids_store_nothing() {
    let _serial = SERIAL.lock();
    let before = live_sessions();
    for i in 0..50_000 {
        let id = format!("unknown-{i}");
        get_turn_state(&id).set("x", i);
        get_session_state(&id).set("y", i);
    }
    assert_eq!(
        live_sessions(),
        before,
        "50,000 lookups of unknown ids keep no slot"
    );
    // The state handed back belongs to no session: writes to it stay with that handle.
    let detached = get_turn_state("unknown-7");
    assert!(detached.is_empty(), "a fresh state for every lookup");
    detached.set("plan_ok", true);
    assert_eq!(detached.get::<bool>("plan_ok"), Some(true));
    assert!(
        get_turn_state("unknown-7").is_empty(),
        "nothing is kept for the id"
    );
    assert!(get_session_state("unknown-7").is_empty());
    // A session that starts under the id starts empty, and is found from then on.
    let hooks = HooksBuilder::new().build().unwrap();
    let session = hooks.session("unknown-7");
    let turn = session.begin_turn();
    assert!(turn.state().is_empty() && session.state().is_empty());
    get_turn_state("unknown-7").set("seen", 1);
    assert_eq!(turn.state().get::<i32>("seen"), Some(1));
    assert_eq!(live_sessions(), before + 1);
    drop(turn);
    session.end("done");
    assert_eq!(live_sessions(), before);
}

#[test]
fn live_sessions_and_turns_are_never_evicted() {
    let _serial = SERIAL.lock();
    set_idle_timeout(Duration::from_millis(50));
    let hooks = HooksBuilder::new().build().unwrap();
    let live = hooks.session("live");
    live.state().set("z", 3);
    // A turn whose session handle is gone: the turn keeps its session alive.
    let orphaned = hooks.session("turn-only");
    let turn = orphaned.begin_turn();
    orphaned.state().set("s", 1);
    drop(orphaned);
    turn.state().set("t", 2);
    let before = live_sessions();
    // Idle past the timeout, on every check there is.
    std::thread::sleep(Duration::from_millis(150));
    evict_idle_sessions();
    assert_eq!(live_sessions(), before, "nothing live is evicted");
    assert_eq!(
        live.state().get::<i32>("z"),
        Some(3),
        "a session with a live handle is never evicted, however idle"
    );
    assert_eq!(get_session_state("live").get::<i32>("z"), Some(3));
    assert_eq!(turn.state().get::<i32>("t"), Some(2));
    assert_eq!(get_turn_state("turn-only").get::<i32>("t"), Some(2));
    assert_eq!(
        turn.session().state().get::<i32>("s"),
        Some(1),
        "a live turn keeps its session's state"
    );
    assert_eq!(get_session_state("turn-only").get::<i32>("s"), Some(1));
    // Ending them frees them.
    live.end("done");
    drop(turn);
    assert_eq!(live_sessions(), before - 2);
    assert!(get_session_state("turn-only").is_empty());
    set_idle_timeout(Duration::from_secs(3600));
}
