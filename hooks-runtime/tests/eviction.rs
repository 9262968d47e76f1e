//! State that no live session holds is evicted after the idle timeout; a session with a live
//! handle never is. In a file of its own: eviction is process-wide and would race with the
//! sessions of other tests.

use std::time::Duration;

use hooks_runtime::{
    HooksBuilder, evict_idle_sessions, get_session_state, get_turn_state, live_sessions,
    set_idle_timeout,
};

#[test]
fn idle_state_is_evicted_and_busy_or_live_sessions_are_kept() {
    set_idle_timeout(Duration::from_millis(200));
    let hooks = HooksBuilder::new().build().unwrap();
    let live = hooks.session("live");
    live.state().set("z", 3);
    // State for ids no session holds.
    get_turn_state("idle").set("x", 1);
    get_session_state("idle").set("y", 2);
    std::thread::sleep(Duration::from_millis(300));
    get_turn_state("busy").set("x", 1);
    assert_eq!(live_sessions(), 3);
    evict_idle_sessions();
    assert_eq!(live_sessions(), 2);
    assert!(
        get_session_state("idle").is_empty(),
        "an evicted id starts over empty"
    );
    assert_eq!(get_turn_state("busy").get::<i32>("x"), Some(1));
    assert_eq!(
        live.state().get::<i32>("z"),
        Some(3),
        "a session with a live handle is never evicted, however idle"
    );
    assert_eq!(get_session_state("live").get::<i32>("z"), Some(3));
    live.end("done");
    assert_eq!(live_sessions(), 2, "idle and busy");
}
