//! Throughput of the state lookups with one thread and with two, over 10,000 live sessions of
//! one registry: is there a lock every lookup takes?
//!
//! Two workloads, each an operation on one session (each session has a live turn):
//!
//! - `lookup`: `get_turn_state(id)` from outside any hook, then a read of the state;
//! - `dispatch`: `turn.intercept_tool_call(call)` through one hook that counts the session's
//!   calls in `cx.turn_state()` (a read-modify-write of the turn's own state).
//!
//! One thread runs the operation over all 10,000 sessions; two threads each run it over half of
//! them, at the same time. Rounds alternate between one and two threads; the bench prints the
//! median throughput of each and their ratio (wall clock, so the machine's load matters: run it
//! on an idle machine with at least two cores). `cargo bench --bench state_threads`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use hookchain::points::InterceptToolCall;
use hookchain::prelude::*;
use hookchain::{HookContext, HooksBuilder};

const SESSIONS: usize = 10_000;
const ROUNDS: usize = 15;
/// Passes over the sessions per round, so a round outlasts starting its threads.
const PASSES: usize = 10;

/// Operations per second of `op` over `sessions`, split between `threads` threads.
fn throughput(threads: usize, sessions: &[(Session, Turn)], op: &(dyn Fn(&Turn) + Sync)) -> f64 {
    let chunk = sessions.len().div_ceil(threads);
    let started = Instant::now();
    std::thread::scope(|s| {
        for part in sessions.chunks(chunk) {
            s.spawn(move || {
                for _ in 0..PASSES {
                    for (_, turn) in part {
                        op(turn);
                    }
                }
            });
        }
    });
    (sessions.len() * PASSES) as f64 / started.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |_: &ToolCall, cx: &HookContext| {
            let _ = cx.turn_state().update("calls", |n: &mut u64| *n += 1);
            HookResult::<Value>::Pass
        })
        .build()
        .expect("one hook");
    let sessions: Vec<(Session, Turn)> = (0..SESSIONS)
        .map(|i| {
            let session = hooks.session(format!("state-threads-{i}"));
            let turn = session.begin_turn();
            turn.state().set("i", i as u64);
            (session, turn)
        })
        .collect();
    let lookup = |turn: &Turn| {
        black_box(get_turn_state(turn.session_id()).get::<u64>("i"));
    };
    let dispatch = |turn: &Turn| {
        let call = ToolCall::new("read_file", Value::Null);
        let _ = black_box(turn.intercept_tool_call(call));
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{SESSIONS} sessions, {ROUNDS} rounds per thread count, {cores} cores");
    for (name, op) in [
        ("lookup", &lookup as &(dyn Fn(&Turn) + Sync)),
        ("dispatch", &dispatch),
    ] {
        // Warm up.
        throughput(2, &sessions, op);
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            one.push(throughput(1, &sessions, op));
            two.push(throughput(2, &sessions, op));
            std::thread::sleep(Duration::from_millis(5));
        }
        let (one, two) = (median(one), median(two));
        println!(
            "{name:<8} one thread {:>10.0} ops/s, two threads {:>10.0} ops/s, ratio {:.2}",
            one,
            two,
            two / one
        );
    }
    for (session, turn) in sessions {
        turn.end(TurnEnd::Normal);
        session.end("done");
    }
}
