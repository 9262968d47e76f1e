//! The chain rules of `hooks-runtime/src/chain.rs` as a small reference model, shared by the
//! model-based tests of chains of closures (`hooks-runtime/tests/runtime/chain_model.rs`) and of chains of
//! `#[register_hook]` fns (`tests/fn_chain_model.rs`): what a hook does, what a dispatch of a
//! chain of them must give, and the runtime's outcome read in the model's terms.

#![allow(dead_code)]

use std::sync::Arc;

use hookchain_core::{Flow, HookResult, OnError};
use hookchain_runtime::Outcome;
use parking_lot::Mutex;
use proptest::prelude::*;

/// What a hook does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Pass,
    Rewrite,
    Block,
    Panic,
    Err,
}

#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub name: String,
    pub priority: i32,
    pub action: Action,
    pub on_error: OnError,
    pub is_async: bool,
}

pub(crate) fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        Just(Action::Pass),
        Just(Action::Rewrite),
        Just(Action::Block),
        Just(Action::Panic),
        Just(Action::Err),
    ]
}

pub(crate) fn on_error() -> impl Strategy<Value = OnError> {
    prop_oneof![
        Just(OnError::Pass),
        Just(OnError::Warn),
        Just(OnError::Block)
    ]
}

/// What the model says a dispatch gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expected {
    /// The final value, or the blocking hook and whether it failed.
    pub flow: Result<Vec<String>, (String, bool)>,
    pub ran: Vec<String>,
    pub rewritten_by: Vec<String>,
    /// (hook, panicked, policy applied).
    pub failures: Vec<(String, bool, OnError)>,
    /// The hooks a warning names.
    pub warned: Vec<String>,
}

/// The chain rules of `chain.rs`, written out plainly. `observe`: every hook runs, rewrites and
/// blocks are ignored, and `on_error = "block"` is treated as `pass`.
pub(crate) fn model(specs: &[Spec], observe: bool) -> Expected {
    let mut order: Vec<&Spec> = specs.iter().collect();
    // Ascending priority, ties by name (names are unique here).
    order.sort_by(|a, b| (a.priority, &a.name).cmp(&(b.priority, &b.name)));
    let mut expected = Expected {
        flow: Ok(Vec::new()),
        ran: Vec::new(),
        rewritten_by: Vec::new(),
        failures: Vec::new(),
        warned: Vec::new(),
    };
    let mut value = Vec::new();
    for spec in order {
        expected.ran.push(spec.name.clone());
        match spec.action {
            Action::Pass => {}
            Action::Rewrite if observe => {}
            Action::Rewrite => {
                value.push(spec.name.clone());
                expected.rewritten_by.push(spec.name.clone());
            }
            Action::Block if observe => {}
            Action::Block => {
                expected.flow = Err((spec.name.clone(), false));
                return expected;
            }
            Action::Panic | Action::Err => {
                let policy = match (observe, spec.on_error) {
                    (true, OnError::Block) => OnError::Pass,
                    (_, policy) => policy,
                };
                expected
                    .failures
                    .push((spec.name.clone(), spec.action == Action::Panic, policy));
                match policy {
                    OnError::Pass => {}
                    OnError::Warn => expected.warned.push(spec.name.clone()),
                    OnError::Block => {
                        expected.flow = Err((spec.name.clone(), true));
                        return expected;
                    }
                }
            }
        }
    }
    expected.flow = Ok(value);
    expected
}

pub(crate) type Ran = Arc<Mutex<Vec<String>>>;

/// What a hook returns for its action; `rewrite` makes its rewrite of `input`.
pub(crate) fn act<I: ?Sized, R>(
    spec: &Spec,
    ran: &Ran,
    input: &I,
    rewrite: fn(&I, &str) -> Option<R>,
) -> Result<HookResult<R>, String> {
    ran.lock().push(spec.name.clone());
    match spec.action {
        Action::Pass => Ok(HookResult::Pass),
        Action::Rewrite => {
            Ok(rewrite(input, &spec.name).map_or(HookResult::Pass, HookResult::Rewrite))
        }
        Action::Block => Ok(HookResult::block(format!("blocked by {}", spec.name))),
        Action::Panic => panic!("model panic in {}", spec.name),
        Action::Err => Err(format!("model error in {}", spec.name)),
    }
}

/// What the runtime gave, in the model's terms; `value` reads the final value.
pub(crate) fn observed<T>(
    outcome: Outcome<T>,
    ran: &Ran,
    value: impl FnOnce(T) -> Vec<String>,
) -> Expected {
    Expected {
        flow: match outcome.flow {
            Flow::Continue(v) => Ok(value(v)),
            Flow::Blocked(b) => {
                let expected_reason = if b.failed {
                    format!("hook `{}`", b.hook)
                } else {
                    format!("blocked by {}", b.hook)
                };
                assert!(
                    b.reason.contains(&expected_reason),
                    "the reason names the hook: {b:?}"
                );
                Err((b.hook, b.failed))
            }
        },
        ran: std::mem::take(&mut *ran.lock()),
        rewritten_by: outcome.rewritten_by,
        failures: outcome
            .failures
            .iter()
            .map(|f| (f.hook.clone(), f.panicked, f.on_error))
            .collect(),
        warned: outcome
            .warnings
            .iter()
            .map(|w| {
                // A warning names the hook: `hook `NAME` …`.
                w.split('`').nth(1).unwrap_or_default().to_owned()
            })
            .collect(),
    }
}

/// Keeps the panics the hooks of this file raise on purpose out of the test output.
pub(crate) fn quiet_model_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let planned = info
                .payload()
                .downcast_ref::<String>()
                .is_some_and(|m| m.starts_with("model panic"));
            if !planned {
                default(info);
            }
        }));
    });
}
