//! What a `Drop` of a `Turn` or a `Session` does when nobody called `end`: a `Drop` cannot await
//! and must not wait on a script or an endpoint, so it runs no async hook and no external hook.
//! It warns that `end` was not called, runs the sync hooks compiled into the program
//! (`#[register_hook]` fns and builder closures) of `turn_end` — or of `subagent_stop` and
//! `session_end` —, and frees the state. `end` runs every hook.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hookchain::external::{
    CommandSpec, ConfigOrigin, Dialect, ExternalHook, Invoke, Matcher, OnError, RawOutput,
    Transport, TransportError,
};
use hookchain::points::{SessionEnd, TurnEnded};
use hookchain::points::{SessionEndEvent, TurnEndEvent};
use hookchain::registry::BoxFuture;
use hookchain::{HookContext, prelude::*};
use hookchain::{HookOptions, HooksBuilder};
use parking_lot::Mutex;

/// What the hooks of this file saw, as "hook session-id reason".
static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn log(line: String) {
    LOG.lock().push(line);
}

/// The lines of `session_id`.
fn logged(session_id: &str) -> Vec<String> {
    LOG.lock()
        .iter()
        .filter(|l| l.split(' ').nth(1) == Some(session_id))
        .cloned()
        .collect()
}

#[register_hook("turn_end")]
fn registered_turn_end(e: &TurnEndEvent, cx: &HookContext) {
    // The state is still there while turn_end runs.
    let k: Option<u32> = cx.turn_state().get("k");
    log(format!("registered {} {} k={k:?}", e.session_id, e.reason));
}

#[register_hook("session_end")]
fn registered_session_end(e: &SessionEndEvent) {
    log(format!("registered {} {}", e.session_id, e.reason));
}

fn async_turn_end<'a>(e: &'a TurnEndEvent, _: &'a HookContext<'a>) -> BoxFuture<'a, ()> {
    Box::pin(async move { log(format!("async {} {}", e.session_id, e.reason)) })
}

fn async_session_end<'a>(e: &'a SessionEndEvent, _: &'a HookContext<'a>) -> BoxFuture<'a, ()> {
    Box::pin(async move { log(format!("async {} {}", e.session_id, e.reason)) })
}

/// A transport that counts its firings and answers "pass".
#[derive(Default)]
struct Counting(AtomicUsize);

impl Invoke for Counting {
    fn invoke(&self, _: &[u8], _: Duration) -> Result<RawOutput, TransportError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(RawOutput {
            exit_code: Some(0),
            ..RawOutput::default()
        })
    }
}

fn external(point: &'static str) -> ExternalHook {
    ExternalHook {
        point,
        event: point.to_owned(),
        name: format!("script-{point}"),
        transport: Transport::Command(CommandSpec {
            argv: vec!["./audit.sh".to_owned()],
            display: "./audit.sh".to_owned(),
            env: BTreeMap::new(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        }),
        matcher: Matcher::all(),
        timeout: Duration::from_secs(5),
        priority: 0,
        on_error: OnError::Pass,
        dialect: Dialect::Hookchain,
        required: false,
        origin: ConfigOrigin::Code,
    }
}

/// Every kind of hook on `turn_end` and `session_end`: the registered fns of this file, a
/// closure, an async hook and an external one (whose firings `Counting` counts).
fn registry() -> (Hooks, Arc<Counting>) {
    let scripts = Arc::new(Counting::default());
    let hooks = HooksBuilder::new()
        .collected_where(|r| r.file.ends_with("drop_semantics.rs"))
        .hook_with(
            TurnEnded,
            HookOptions::new("closure"),
            |e: &TurnEndEvent, _: &HookContext| {
                log(format!("closure {} {}", e.session_id, e.reason))
            },
        )
        .hook_with(
            SessionEnd,
            HookOptions::new("closure"),
            |e: &SessionEndEvent, _: &HookContext| {
                log(format!("closure {} {}", e.session_id, e.reason))
            },
        )
        .async_hook(TurnEnded, HookOptions::new("async"), async_turn_end)
        .async_hook(SessionEnd, HookOptions::new("async"), async_session_end)
        .external_with(external("turn_end"), scripts.clone())
        .external_with(external("session_end"), scripts.clone())
        .build()
        .unwrap();
    (hooks, scripts)
}

/// The warnings `f` logged through `tracing`.
fn warnings(f: impl FnOnce()) -> Vec<String> {
    let capture = Capture::default();
    let seen = capture.0.clone();
    tracing::subscriber::with_default(capture, f);
    std::mem::take(&mut *seen.lock())
}

#[test]
fn a_dropped_turn_runs_only_its_sync_compiled_in_turn_end_hooks_and_warns() {
    let (hooks, scripts) = registry();
    let session = hooks.session("drop-turn");
    let turn = session.begin_turn();
    let state = turn.state().clone();
    state.set("k", 7);
    let clone = turn.clone();
    let warned = warnings(|| {
        drop(turn);
        assert!(logged("drop-turn").is_empty(), "a clone keeps the turn");
        drop(clone);
    });
    assert_eq!(
        logged("drop-turn"),
        [
            "closure drop-turn canceled",
            "registered drop-turn canceled k=Some(7)"
        ],
        "no async hook ran"
    );
    assert_eq!(scripts.0.load(Ordering::SeqCst), 0, "no external hook ran");
    assert!(state.is_empty(), "the state is cleared");
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0]
            .contains("turn 0 of session `drop-turn` dropped without Turn::end or Turn::end_async"),
        "{warned:?}"
    );
    session.end("done");
}

#[test]
fn a_turn_dropped_by_a_panic_ends_as_an_error_with_the_same_hooks() {
    let (hooks, scripts) = registry();
    let session = hooks.session("drop-turn-panic");
    let result = catch_unwind(AssertUnwindSafe(|| {
        let turn = session.begin_turn();
        turn.state().set("k", 1);
        panic!("the agent panicked on purpose");
    }));
    assert!(result.is_err());
    assert_eq!(
        logged("drop-turn-panic"),
        [
            "closure drop-turn-panic error: the turn panicked",
            "registered drop-turn-panic error: the turn panicked k=Some(1)"
        ]
    );
    assert_eq!(scripts.0.load(Ordering::SeqCst), 0);
    session.end("done");
}

#[test]
fn end_runs_every_turn_end_hook_and_warns_nothing() {
    let (hooks, scripts) = registry();
    let session = hooks.session("end-turn");
    let turn = session.begin_turn();
    turn.state().set("k", 1);
    let warned = warnings(|| {
        turn.end(TurnEnd::Normal);
        drop(turn);
    });
    assert!(warned.is_empty(), "{warned:?}");
    let mut lines = logged("end-turn");
    lines.sort();
    assert_eq!(
        lines,
        [
            "async end-turn normal",
            "closure end-turn normal",
            "registered end-turn normal k=Some(1)"
        ]
    );
    assert_eq!(scripts.0.load(Ordering::SeqCst), 1, "the external hook ran");
    session.end("done");
}

#[test]
fn a_dropped_session_runs_only_its_sync_compiled_in_session_end_hooks_and_warns() {
    let (hooks, scripts) = registry();
    let session = hooks.session("drop-session");
    let state = session.state();
    state.set("k", 1);
    let warned = warnings(|| drop(session));
    assert_eq!(
        logged("drop-session"),
        [
            "closure drop-session dropped",
            "registered drop-session dropped"
        ]
    );
    assert_eq!(scripts.0.load(Ordering::SeqCst), 0);
    assert!(state.is_empty());
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].contains("session `drop-session` dropped without Session::end"),
        "{warned:?}"
    );

    let session = hooks.session("end-session");
    let warned = warnings(|| session.end("bye"));
    assert!(warned.is_empty(), "{warned:?}");
    let mut lines = logged("end-session");
    lines.sort();
    assert_eq!(
        lines,
        [
            "async end-session bye",
            "closure end-session bye",
            "registered end-session bye"
        ]
    );
    assert_eq!(scripts.0.load(Ordering::SeqCst), 1);
}

/// A `tracing` subscriber that keeps the message of every warning.
#[derive(Default)]
struct Capture(Arc<Mutex<Vec<String>>>);

struct Message<'a>(&'a mut String);

impl tracing::field::Visit for Message<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            *self.0 = format!("{value:?}");
        }
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if *event.metadata().level() == tracing::Level::WARN {
            let mut message = String::new();
            event.record(&mut Message(&mut message));
            self.0.lock().push(message);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
