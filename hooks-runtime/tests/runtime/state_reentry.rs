//! Touching a state from inside its own `update` or `with_ext` never deadlocks: it panics with a
//! message saying what to do instead, and a hook that does it fails like any hook that panics.
//! Each case runs on a thread of its own with a deadline, so a deadlock fails the test instead of
//! hanging it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::time::Duration;

use hookchain_runtime::TurnState;

/// Runs `case` on a thread; the message it panicked with, or `None` when it returned. A case still
/// running after two seconds is a deadlock.
fn outcome_of(name: &str, case: impl FnOnce(&TurnState) + Send + 'static) -> Option<String> {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let state = TurnState::default();
        let result = catch_unwind(AssertUnwindSafe(|| case(&state)));
        let message = result.err().map(|panic| {
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default()
        });
        let _ = done.send(message);
    });
    match finished.recv_timeout(Duration::from_secs(2)) {
        Ok(message) => message,
        Err(_) => panic!("`{name}` deadlocked"),
    }
}

/// One way of touching a state from inside its own closure.
type Case = Box<dyn FnOnce(&TurnState) + Send>;

#[test]
fn reentry_panics_with_a_message_instead_of_deadlocking() {
    let cases: Vec<(&str, Case)> = vec![
        (
            "get inside update",
            Box::new(|s: &TurnState| {
                let inner = s.clone();
                let _ = s.update("n", |n: &mut u32| {
                    *n += inner.get::<u32>("m").unwrap_or(0);
                });
            }),
        ),
        (
            "set inside update",
            Box::new(|s: &TurnState| {
                let inner = s.clone();
                let _ = s.update("n", |n: &mut u32| {
                    *n += 1;
                    inner.set("m", 1);
                });
            }),
        ),
        (
            "update inside update",
            Box::new(|s: &TurnState| {
                let inner = s.clone();
                let _ = s.update("n", |_: &mut u32| {
                    let _ = inner.update("m", |m: &mut u32| *m += 1);
                });
            }),
        ),
        (
            "snapshot inside update",
            Box::new(|s: &TurnState| {
                let inner = s.clone();
                let _ = s.update("n", |_: &mut u32| {
                    let _ = inner.snapshot();
                });
            }),
        ),
        (
            "with_ext inside with_ext",
            Box::new(|s: &TurnState| {
                s.insert_ext(1u8);
                let inner = s.clone();
                s.with_ext(|_: &mut u8| inner.with_ext(|_: &mut u8| ()));
            }),
        ),
        (
            "insert_ext inside with_ext_or_default",
            Box::new(|s: &TurnState| {
                let inner = s.clone();
                s.with_ext_or_default(|_: &mut u16| {
                    inner.insert_ext(2u32);
                });
            }),
        ),
    ];
    for (name, case) in cases {
        let message = outcome_of(name, case).unwrap_or_else(|| panic!("`{name}` did not panic"));
        assert!(
            message.contains("from inside its own") && message.contains("would deadlock"),
            "{name}: {message}"
        );
    }
}

/// The other lock is free: typed slots inside `update`, keys inside `with_ext`.
#[test]
fn the_other_half_of_the_state_may_be_used_inside() {
    let done = outcome_of(
        "keys inside with_ext, slots inside update",
        |s: &TurnState| {
            let inner = s.clone();
            s.update("n", |n: &mut u32| {
                *n = inner.with_ext_or_default(|k: &mut u32| {
                    *k += 1;
                    *k
                });
            })
            .unwrap();
            let inner = s.clone();
            s.with_ext(|_: &mut u32| inner.set("m", 2));
            assert_eq!(s.get::<u32>("n"), Some(1));
            assert_eq!(s.get::<u32>("m"), Some(2));
        },
    );
    assert_eq!(done, None);
}

/// Other threads still wait for an update and see its whole write.
#[test]
fn other_threads_wait_as_before() {
    let state = TurnState::default();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let state = state.clone();
            std::thread::spawn(move || {
                for _ in 0..500 {
                    state.update("n", |n: &mut u32| *n += 1).unwrap();
                    let _ = state.get::<u32>("n");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(state.get::<u32>("n"), Some(2000));
}
