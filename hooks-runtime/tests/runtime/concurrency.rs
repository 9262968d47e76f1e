//! Threads × sessions × overlapping turns × hooks that panic at random: no key written in one
//! session is visible in another, every turn's state is empty once its turn has ended (by
//! `end`, by a drop, by a panic through it), and nothing deadlocks — a watchdog fails the test
//! instead of letting it hang.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use hookchain_core::points::{AfterToolCall, InterceptToolCall, TransformUserInput};
use hookchain_core::{HookContext, HookResult, OnError, ToolCall, ToolResult, TurnEnd};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder, Session, get_turn_state};
use serde_json::{Value, json};

const THREADS: usize = 8;
const TURNS_PER_THREAD: usize = 200;
/// Fewer sessions than turns in flight: turns of one session overlap across threads.
const SESSIONS: usize = 6;
/// Far more than the test needs (well under a second on a busy machine): past it, a deadlock.
const WATCHDOG: Duration = Duration::from_secs(120);

#[derive(Default)]
struct Counts {
    turns: AtomicUsize,
    hook_panics: AtomicUsize,
    tool_panics: AtomicUsize,
    turn_panics: AtomicUsize,
    dropped: AtomicUsize,
    /// A hook saw a key of another session or another turn: must stay 0.
    leaks: AtomicUsize,
}

/// A tiny deterministic generator, one per thread.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

/// Checks, from inside a hook, that the turn and session states hold only this session's and
/// this turn's keys; counts a leak otherwise.
fn check_isolation(cx: &HookContext<'_>, counts: &Counts) {
    let session = cx.session_id();
    let own_turn = cx.turn_state().get::<String>("turn");
    for key in cx.session_state().keys() {
        if key != format!("seen-{session}") {
            counts.leaks.fetch_add(1, Ordering::Relaxed);
        }
    }
    let turn_keys = cx.turn_state().snapshot();
    for (key, value) in &turn_keys {
        let ours = match key.as_str() {
            "session" => value == session,
            "turn" => Some(value.as_str().unwrap_or_default()) == own_turn.as_deref(),
            _ => key.starts_with(&format!("{session}/")),
        };
        if !ours {
            counts.leaks.fetch_add(1, Ordering::Relaxed);
        }
    }
    // By id from inside a hook: the hook's own turn, even while other turns of the session run.
    if !get_turn_state(session).same_as(cx.turn_state()) {
        counts.leaks.fetch_add(1, Ordering::Relaxed);
    }
}

fn registry(counts: &Arc<Counts>) -> Hooks {
    let (c1, c2, c3) = (counts.clone(), counts.clone(), counts.clone());
    HooksBuilder::new()
        .hook_with(
            TransformUserInput,
            HookOptions::new("isolation").on_error(OnError::Pass),
            move |text: &str, cx: &HookContext| {
                check_isolation(cx, &c1);
                cx.session_state()
                    .set(format!("seen-{}", cx.session_id()), true);
                cx.turn_state()
                    .set(format!("{}/{text}", cx.session_id()), true);
                if text.contains("panic") {
                    c1.hook_panics.fetch_add(1, Ordering::Relaxed);
                    panic!("planned hook panic");
                }
                HookResult::Rewrite(format!("{text}."))
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard").on_error(OnError::Block),
            move |call: &ToolCall, cx: &HookContext| -> HookResult<Value> {
                check_isolation(cx, &c2);
                if call.args["panic"] == true {
                    c2.hook_panics.fetch_add(1, Ordering::Relaxed);
                    panic!("planned guard panic");
                }
                HookResult::Pass
            },
        )
        .hook(AfterToolCall, 0, move |_: &ToolResult, cx: &HookContext| {
            check_isolation(cx, &c3);
        })
        .build()
        .unwrap()
}

/// One turn of `session`, ended one of four ways; returns the turn's state handle, which must
/// be empty afterwards.
fn one_turn(session: &Session, rng: &mut Rng, counts: &Counts) -> hookchain_core::TurnState {
    let turn = session.begin_turn();
    let state = turn.state().clone();
    let marker = format!("{}#{}", session.id(), turn.index());
    state.set("session", session.id());
    state.set("turn", marker.clone());
    let text = if rng.one_in(5) {
        "please panic"
    } else {
        "hello"
    };
    let _ = turn.transform_user_input(text);
    let panicking_guard = rng.one_in(6);
    let run = turn.run_tool(
        ToolCall::new("tool", json!({"panic": panicking_guard})),
        |_| {
            if rng.one_in(7) {
                counts.tool_panics.fetch_add(1, Ordering::Relaxed);
                panic!("planned tool panic");
            }
            Ok(json!("ok"))
        },
    );
    assert_eq!(
        run.ran, !panicking_guard,
        "a failed guard under block blocks"
    );
    counts.turns.fetch_add(1, Ordering::Relaxed);
    match rng.next() % 4 {
        0 => {
            counts.dropped.fetch_add(1, Ordering::Relaxed);
            drop(turn);
        }
        1 => {
            // A panic unwinds through the turn.
            counts.turn_panics.fetch_add(1, Ordering::Relaxed);
            let _ = catch_unwind(AssertUnwindSafe(move || {
                let _turn = turn;
                panic!("planned turn panic");
            }));
        }
        _ => turn.end(TurnEnd::Normal),
    }
    state
}

fn quiet_planned_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let planned = info
            .payload()
            .downcast_ref::<&str>()
            .is_some_and(|m| m.starts_with("planned"));
        if !planned {
            default(info);
        }
    }));
}

#[test]
fn sessions_and_turns_stay_isolated_under_concurrent_panicking_hooks() {
    quiet_planned_panics();
    let counts = Arc::new(Counts::default());
    let hooks = registry(&counts);
    let sessions: Arc<Vec<Session>> = Arc::new(
        (0..SESSIONS)
            .map(|i| hooks.session(format!("stress-{i}")))
            .collect(),
    );
    let (done, finished) = mpsc::channel();
    for t in 0..THREADS {
        let (sessions, counts, done) = (sessions.clone(), counts.clone(), done.clone());
        std::thread::spawn(move || {
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (t as u64 + 1));
            let mut not_cleared = 0;
            for i in 0..TURNS_PER_THREAD {
                let session = &sessions[(t + i) % SESSIONS];
                let state = one_turn(session, &mut rng, &counts);
                if !state.is_empty() {
                    not_cleared += 1;
                }
            }
            let _ = done.send(not_cleared);
        });
    }
    drop(done);
    let mut not_cleared = 0;
    for _ in 0..THREADS {
        not_cleared += finished
            .recv_timeout(WATCHDOG)
            .expect("a worker finished in time: a deadlock otherwise");
    }
    let turns = counts.turns.load(Ordering::Relaxed);
    eprintln!(
        "concurrency: {THREADS} threads x {TURNS_PER_THREAD} turns over {SESSIONS} sessions: \
         {turns} turns, {} hook panics, {} tool panics, {} turns unwound by a panic, {} dropped \
         without end, {} leaks, {not_cleared} turn states not cleared",
        counts.hook_panics.load(Ordering::Relaxed),
        counts.tool_panics.load(Ordering::Relaxed),
        counts.turn_panics.load(Ordering::Relaxed),
        counts.dropped.load(Ordering::Relaxed),
        counts.leaks.load(Ordering::Relaxed),
    );
    assert_eq!(turns, THREADS * TURNS_PER_THREAD);
    assert!(
        counts.hook_panics.load(Ordering::Relaxed) > 0,
        "hooks did panic"
    );
    assert_eq!(
        counts.leaks.load(Ordering::Relaxed),
        0,
        "no state crossed sessions or turns"
    );
    assert_eq!(not_cleared, 0, "every turn's state is empty once it ended");
    for session in sessions.iter() {
        // Only this session's own key, and no turn left behind.
        assert_eq!(session.state().keys(), [format!("seen-{}", session.id())]);
        assert!(get_turn_state(session.id()).is_empty());
        session.end("done");
    }
}
