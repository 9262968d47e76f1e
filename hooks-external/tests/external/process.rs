//! The `process` transport against the fixture workers in `tests/fixtures/external/`: round trips
//! in both answer forms, many threads at once, answers out of order, per-request time limits, a
//! hung or deaf worker replaced, a worker crashing mid-request and its restart with backoff, and
//! no worker left behind.

use std::path::Path;
use std::time::{Duration, Instant};

use hookchain_external::process::{Backoff, ProcessHook};
use hookchain_external::{CommandSpec, Invoke, TransportError};
use serde_json::{Value, json};

use crate::support::{self, assert_gone, fixture_str, gone};

/// A bound on hanging, not a benchmark: generous for a loaded 2-core CI machine.
const HANG_BOUND: Duration = Duration::from_secs(5);

/// Long enough for a Python worker to start on a loaded machine.
const LONG: Duration = Duration::from_secs(30);

fn spec(name: &str) -> CommandSpec {
    support::spec(&[&fixture_str(name)])
}

fn worker(name: &str) -> ProcessHook {
    ProcessHook::new(spec(name)).unwrap()
}

fn call(hook: &ProcessHook, payload: Value, timeout: Duration) -> Result<Value, TransportError> {
    let out = hook.invoke(&serde_json::to_vec(&payload).unwrap(), timeout)?;
    assert_eq!(out.exit_code, None);
    assert!(out.stderr.is_empty());
    Ok(if out.stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&out.stdout).unwrap()
    })
}

fn died_reason(result: Result<Value, TransportError>) -> String {
    match result {
        Err(TransportError::WorkerDied { reason, .. }) => reason,
        other => panic!("expected WorkerDied, got {other:?}"),
    }
}

#[test]
fn a_round_trip_in_the_envelope_form() {
    let hook = worker("echo_worker.py");
    let payload = json!({"hook_event_name": "intercept_tool_call", "tool_name": "shell"});
    assert_eq!(
        call(&hook, payload.clone(), LONG).unwrap(),
        json!({"echo": payload})
    );
    // The same worker serves the next request.
    let pid = hook.pid().unwrap();
    assert_eq!(
        call(&hook, json!({"n": 2}), LONG).unwrap(),
        json!({"echo": {"n": 2}})
    );
    assert_eq!(hook.pid(), Some(pid));
}

#[test]
fn flat_answers_pass_and_junk_lines() {
    let hook = worker("echo_worker.py");
    let decision = json!({"decision": "block", "reason": "no rm -rf"});
    assert_eq!(
        call(&hook, json!({"flat": decision}), LONG).unwrap(),
        decision
    );
    let out = hook.invoke(br#"{"pass": true}"#, LONG).unwrap();
    assert!(out.stdout.is_empty());
    // A line that is no answer is dropped; the answer after it still arrives.
    assert_eq!(
        call(&hook, json!({"noise": true}), LONG).unwrap(),
        json!({"echo": {"noise": true}})
    );
}

#[test]
fn an_error_answer_fails_the_firing_with_its_message_and_the_worker_serves_on() {
    let hook = worker("echo_worker.py");
    let pid = {
        call(&hook, json!({"a": 1}), LONG).unwrap();
        hook.pid().unwrap()
    };
    let error = hook
        .invoke(
            br#"{"flat": {"error": "guard.py line 3: KeyError: 'path'"}}"#,
            LONG,
        )
        .unwrap_err();
    assert_eq!(
        error,
        TransportError::Failed("guard.py line 3: KeyError: 'path'".to_owned())
    );
    assert!(!error.cannot_run());
    // Not a death: the same worker answers the next request.
    assert_eq!(
        call(&hook, json!({"b": 2}), LONG).unwrap(),
        json!({"echo": {"b": 2}})
    );
    assert_eq!(hook.pid(), Some(pid));
}

#[test]
fn a_pretty_printed_payload_travels_on_one_line() {
    let hook = worker("echo_worker.py");
    let payload = json!({"prompt": "two\nlines", "n": [1, 2]});
    let pretty = serde_json::to_vec_pretty(&payload).unwrap();
    let out = hook.invoke(&pretty, LONG).unwrap();
    let echoed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(echoed, json!({"echo": payload}));
}

#[test]
fn many_threads_at_once_each_get_their_own_answer() {
    let hook = worker("echo_worker.py");
    hook.start().unwrap();
    std::thread::scope(|s| {
        for t in 0..8 {
            let hook = &hook;
            s.spawn(move || {
                for i in 0..50 {
                    let payload = json!({"thread": t, "i": i});
                    let answer = call(hook, payload.clone(), LONG).unwrap();
                    assert_eq!(answer, json!({"echo": payload}));
                }
            });
        }
    });
}

#[test]
fn answers_out_of_order_reach_their_callers() {
    let hook = worker("out_of_order_worker.py");
    hook.start().unwrap();
    // The worker answers requests by pairs, the newer first: in each round all four threads have
    // one request in flight, so every request has a partner.
    let round = std::sync::Barrier::new(4);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (hook, round) = (&hook, &round);
            s.spawn(move || {
                for i in 0..25 {
                    round.wait();
                    let payload = json!({"thread": t, "i": i});
                    let answer = call(hook, payload.clone(), LONG).unwrap();
                    assert_eq!(answer, json!({"echo": payload}));
                }
            });
        }
    });
}

#[test]
fn a_slow_request_times_out_while_fast_ones_are_answered() {
    let hook = worker("slow_worker.py");
    hook.start().unwrap();
    // Warm up: the worker is up and answering.
    call(&hook, json!({"warm": true}), LONG).unwrap();
    let first = hook.pid().unwrap();
    let timeout = Duration::from_millis(300);
    std::thread::scope(|s| {
        let slow = s.spawn(|| {
            let started = Instant::now();
            let result = call(&hook, json!({"sleep_ms": 1500}), timeout);
            (result, started.elapsed())
        });
        for i in 0..5 {
            let payload = json!({"fast": i});
            assert_eq!(
                call(&hook, payload.clone(), LONG).unwrap(),
                json!({"echo": payload})
            );
        }
        let (result, elapsed) = slow.join().unwrap();
        assert_eq!(result, Err(TransportError::Timeout(timeout)));
        assert!(elapsed >= timeout && elapsed < HANG_BOUND, "{elapsed:?}");
    });
    // The worker that did not answer in time was replaced: later requests go to a new one.
    assert_ne!(hook.pid(), Some(first));
    for i in 0..3 {
        let payload = json!({"after": i});
        assert_eq!(
            call(&hook, payload.clone(), LONG).unwrap(),
            json!({"echo": payload})
        );
    }
}

/// The pid a `hang_worker.py` answer names.
fn answered_by(answer: &Value) -> u64 {
    answer["pid"].as_u64().unwrap()
}

#[test]
fn a_worker_that_stops_answering_is_replaced_after_the_timeout() {
    let hook = worker("hang_worker.py");
    let first = call(&hook, json!({"n": 1}), LONG).unwrap();
    let first_pid = answered_by(&first);
    assert_eq!(hook.pid(), Some(first_pid as u32));

    let limit = Duration::from_millis(500);
    assert_eq!(
        call(&hook, json!({"hang": true}), limit),
        Err(TransportError::Timeout(limit))
    );
    // The hung worker is gone; the next firing gets a new one, which answers.
    assert_gone(first_pid as u32);
    let second = call(&hook, json!({"n": 2}), Duration::from_secs(20)).unwrap();
    assert_eq!(second["echo"], json!({"n": 2}));
    assert_ne!(answered_by(&second), first_pid);
    assert_eq!(hook.pid(), Some(answered_by(&second) as u32));
}

#[test]
fn a_worker_that_closed_its_stdin_is_replaced() {
    let hook = worker("hang_worker.py");
    let first = call(&hook, json!({"close_stdin": true}), LONG).unwrap();
    let first_pid = answered_by(&first);
    // Wait (bounded) until it has closed its stdin, so that the next request meets a closed pipe
    // rather than sitting unread in it.
    let stdin = format!("/proc/{first_pid}/fd/0");
    for _ in 0..250 {
        if !Path::new(&stdin).exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!Path::new(&stdin).exists(), "the worker kept its stdin");
    // A firing fails, saying so, and the worker is replaced.
    let mut failures = 0;
    let answer = loop {
        assert!(failures < 50, "the worker was never replaced");
        match call(&hook, json!({"n": 2}), Duration::from_secs(20)) {
            Ok(answer) if answered_by(&answer) == first_pid => {
                panic!("a worker that closed its stdin answered: {answer}")
            }
            Ok(answer) => break answer,
            Err(TransportError::WorkerDied { reason, .. }) => {
                assert!(reason.contains("stdin"), "{reason}");
                failures += 1;
            }
            Err(other) => panic!("{other:?}"),
        }
    };
    assert_eq!(failures, 1);
    assert_eq!(answer["echo"], json!({"n": 2}));
    assert_gone(first_pid as u32);
}

#[test]
fn a_crash_mid_request_fails_the_pending_requests_then_the_worker_restarts() {
    let backoff = Backoff {
        initial: Duration::from_secs(1),
        max: Duration::from_secs(2),
        healthy_after: Duration::from_secs(60),
    };
    let hook = ProcessHook::new(spec("crash_worker.py"))
        .unwrap()
        .with_backoff(backoff);
    assert_eq!(
        call(&hook, json!({"n": 1}), LONG).unwrap(),
        json!({"echo": {"n": 1}})
    );
    let first = hook.pid().unwrap();

    std::thread::scope(|s| {
        let held = s.spawn(|| {
            let started = Instant::now();
            (call(&hook, json!({"hold": true}), LONG), started.elapsed())
        });
        // Let the held request reach the worker before it crashes.
        std::thread::sleep(Duration::from_millis(100));
        let started = Instant::now();
        let reason = died_reason(call(&hook, json!({"crash": true}), LONG));
        assert!(started.elapsed() < HANG_BOUND);
        assert!(reason.starts_with("exited with code 3"), "{reason}");
        assert!(reason.contains("worker: giving up on request"), "{reason}");
        let (held, elapsed) = held.join().unwrap();
        assert_eq!(died_reason(held), reason);
        assert!(elapsed < HANG_BOUND, "{elapsed:?}");
    });
    assert_gone(first);

    // Backing off: fails at once, saying when it retries.
    let started = Instant::now();
    let reason = died_reason(call(&hook, json!({"n": 2}), LONG));
    assert!(started.elapsed() < Duration::from_millis(900));
    assert!(reason.contains("; restarting in "), "{reason}");
    assert_eq!(hook.pid(), None);

    std::thread::sleep(backoff.initial);
    assert_eq!(
        call(&hook, json!({"n": 3}), LONG).unwrap(),
        json!({"echo": {"n": 3}})
    );
    assert_ne!(hook.pid(), Some(first));
}

#[test]
fn a_worker_that_cannot_stay_up_is_not_restarted_in_a_loop() {
    // fail.sh exits 1 at once: a worker that dies before answering.
    let hook = ProcessHook::new(spec("fail.sh"))
        .unwrap()
        .with_backoff(Backoff {
            initial: Duration::from_secs(10),
            ..Backoff::default()
        });
    let started = Instant::now();
    let reason = died_reason(call(&hook, json!({}), LONG));
    assert!(started.elapsed() < HANG_BOUND);
    assert!(reason.contains("exited with code 1"), "{reason}");
    assert!(reason.contains("something went wrong"), "{reason}");

    let started = Instant::now();
    let reason = died_reason(call(&hook, json!({}), LONG));
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(reason.contains("exited with code 1"), "{reason}");
    assert!(reason.contains("; restarting in "), "{reason}");
    assert!(reason.ends_with(" s"), "{reason}");
}

#[test]
fn the_worker_starts_lazily_and_dies_with_the_hook() {
    let hook = worker("echo_worker.py");
    assert_eq!(hook.pid(), None);
    hook.start().unwrap();
    let pid = hook.pid().unwrap();
    assert!(!gone(pid));
    drop(hook);
    assert_gone(pid);
}

#[test]
fn a_missing_worker_is_an_error_at_load_time() {
    let mut spec = spec("echo_worker.py");
    spec.argv[0] = "./no/such/worker.py".into();
    match ProcessHook::new(spec) {
        Err(TransportError::Spawn { reason, .. }) => {
            assert!(
                reason.ends_with("no/such/worker.py` does not exist"),
                "{reason}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_worker_that_exits_while_idle_is_replaced_by_the_next_firing_which_it_serves() {
    let backoff = Backoff {
        initial: Duration::from_millis(100),
        max: Duration::from_millis(100),
        healthy_after: Duration::from_secs(60),
    };
    let hook = ProcessHook::new(spec("crash_worker.py"))
        .unwrap()
        .with_backoff(backoff);
    assert_eq!(
        call(&hook, json!({"n": 1}), LONG).unwrap(),
        json!({"echo": {"n": 1}})
    );
    let first = hook.pid().unwrap();
    // Answered, then it exits: a moment later, or already.
    assert_eq!(
        call(&hook, json!({"exit_after": true}), LONG).unwrap(),
        json!({"echo": {"exit_after": true}})
    );
    // Wait (bounded) until it has exited, answered and idle; then past the backoff's wait.
    for _ in 0..250 {
        if gone(first) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(gone(first), "the worker did not exit");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        hook.pid(),
        None,
        "a worker that exited is not reported as running"
    );
    // The backoff counts from when it was last seen alive, not from when its death was found:
    // the next firing starts a new worker, which answers it.
    assert_eq!(
        call(&hook, json!({"n": 2}), LONG).unwrap(),
        json!({"echo": {"n": 2}})
    );
    assert_ne!(hook.pid(), Some(first));
}
