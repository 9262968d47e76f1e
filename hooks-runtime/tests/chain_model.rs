//! Model-based tests of the chain rules: random chains — 1 to 8 hooks with random priorities
//! (ties included), names, sync or async, each passing, rewriting, blocking, panicking or
//! returning `Err` under a random `on_error` — dispatched through the sync and the async API,
//! give exactly what a small reference model of the rules in `chain.rs` says: the final value or
//! the block (its hook, and whether it was a failure), which hooks ran and in which order, the
//! rewriters, the failures and the warnings. The same for an inject point (injections accumulate
//! in chain order) and an observe point (every hook runs, blocks are ignored, failures are
//! contained).

use std::sync::Arc;

use hooks_core::points::{AfterLlmCall, SessionStart, TransformUserInput};
use hooks_core::{
    BoxFuture, Flow, HookContext, HookPoint, HookResult, LlmReply, Observed, OnError,
    SessionSource, SessionStartEvent,
};
use hooks_runtime::{HookOptions, Hooks, HooksBuilder, Outcome, Turn};
use parking_lot::Mutex;
use proptest::prelude::*;

/// The cases each property runs: enough to meet every combination of a few hooks, few enough
/// that the suite runs in seconds.
const CASES: u32 = 256;

/// What a hook does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Pass,
    Rewrite,
    Block,
    Panic,
    Err,
}

#[derive(Debug, Clone)]
struct Spec {
    name: String,
    priority: i32,
    action: Action,
    on_error: OnError,
    is_async: bool,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        Just(Action::Pass),
        Just(Action::Rewrite),
        Just(Action::Block),
        Just(Action::Panic),
        Just(Action::Err),
    ]
}

fn on_error() -> impl Strategy<Value = OnError> {
    prop_oneof![
        Just(OnError::Pass),
        Just(OnError::Warn),
        Just(OnError::Block)
    ]
}

/// 1..=8 hooks; priorities in -2..=2 so that ties are common; names from a short random prefix
/// and the hook's index (unique, as a chain requires, and not in index order).
fn chain() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(
        ("[a-c]{0,2}", -2i32..=2, action(), on_error(), any::<bool>()),
        1..=8,
    )
    .prop_map(|hooks| {
        hooks
            .into_iter()
            .enumerate()
            .map(|(i, (prefix, priority, action, on_error, is_async))| Spec {
                name: format!("{prefix}{i}"),
                priority,
                action,
                on_error,
                is_async,
            })
            .collect()
    })
}

/// What the model says a dispatch gives.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expected {
    /// The final value, or the blocking hook and whether it failed.
    flow: Result<Vec<String>, (String, bool)>,
    ran: Vec<String>,
    rewritten_by: Vec<String>,
    /// (hook, panicked, policy applied).
    failures: Vec<(String, bool, OnError)>,
    /// The hooks a warning names.
    warned: Vec<String>,
}

/// The chain rules of `chain.rs`, written out plainly. `observe`: every hook runs, rewrites and
/// blocks are ignored, and `on_error = "block"` is treated as `pass`.
fn model(specs: &[Spec], observe: bool) -> Expected {
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

type Ran = Arc<Mutex<Vec<String>>>;

/// What a hook returns for its action; `rewrite` makes its rewrite of `input`.
fn act<I: ?Sized, R>(
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

/// A registry with `specs` on point `P`, each hook logging its name to `ran` when it runs.
fn registry<P>(
    point: P,
    specs: &[Spec],
    ran: &Ran,
    rewrite: fn(&P::Input, &str) -> Option<P::Rewrite>,
) -> Hooks
where
    P: HookPoint + Copy,
    P::Rewrite: Send + 'static,
    Result<HookResult<P::Rewrite>, String>: hooks_core::IntoHookReturn<P::Rewrite>,
{
    let mut builder = HooksBuilder::new();
    for spec in specs {
        let options = HookOptions::new(spec.name.clone())
            .priority(spec.priority)
            .on_error(spec.on_error);
        let (spec, ran) = (spec.clone(), ran.clone());
        builder = if spec.is_async {
            builder.async_hook(
                point,
                options,
                move |input: &P::Input,
                      _: &HookContext<'_>|
                      -> BoxFuture<'_, Result<HookResult<P::Rewrite>, String>> {
                    let (spec, ran) = (spec.clone(), ran.clone());
                    Box::pin(async move { act(&spec, &ran, input, rewrite) })
                },
            )
        } else {
            builder.hook_with(
                point,
                options,
                move |input: &P::Input, _: &HookContext<'_>| act(&spec, &ran, input, rewrite),
            )
        };
    }
    builder.build().expect("a chain of unique names builds")
}

/// What the runtime gave, in the model's terms; `value` reads the final value.
fn observed<T>(outcome: Outcome<T>, ran: &Ran, value: impl FnOnce(T) -> Vec<String>) -> Expected {
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

/// Dispatches through the sync API, then through the async one, each on a fresh turn, and
/// hands each outcome to `check` together with the hooks that ran in that dispatch.
fn both<P: HookPoint>(
    hooks: &Hooks,
    ran: &Ran,
    value: impl Fn() -> P::Value,
    mut check: impl FnMut(Outcome<P::Value>) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let session = hooks.session("model");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    // Starting the session fires `session_start`: not the dispatch under test.
    ran.lock().clear();
    let turn: Turn = session.begin_turn();
    check(turn.fire::<P>(value()))?;
    let turn = session.begin_turn();
    check(rt.block_on(turn.fire_async::<P>(value())))
}

/// Keeps the panics the hooks of this file raise on purpose out of the test output.
fn quiet_model_panics() {
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

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    /// A transform point: the value is the text with every rewriter's name appended.
    #[test]
    fn a_transform_chain_does_what_the_model_says(specs in chain()) {
        quiet_model_panics();
        let ran = Ran::default();
        let hooks = registry(TransformUserInput, &specs, &ran, |text: &str, name| {
            Some(format!("{text}+{name}"))
        });
        let expected = model(&specs, false);
        both::<TransformUserInput>(&hooks, &ran, || "in".to_owned(), |outcome| {
            let got = observed(outcome, &ran, |text: String| {
                text.split('+').skip(1).map(str::to_owned).collect()
            });
            prop_assert_eq!(&got, &expected, "chain {:#?}", specs);
            Ok(())
        })?;
    }

    /// An inject point: each rewrite is an injection, and they accumulate in chain order.
    #[test]
    fn an_inject_chain_accumulates_what_the_model_says(specs in chain()) {
        quiet_model_panics();
        let ran = Ran::default();
        let hooks = registry(SessionStart, &specs, &ran, |_: &SessionStartEvent, name| {
            Some(name.to_owned())
        });
        let expected = model(&specs, false);
        let event = || SessionStartEvent {
            session_id: "model".to_owned(),
            parent_session_id: None,
            source: SessionSource::Startup,
            context: Vec::new(),
        };
        both::<SessionStart>(&hooks, &ran, event, |outcome| {
            let got = observed(outcome, &ran, |e: SessionStartEvent| e.context);
            prop_assert_eq!(&got, &expected, "chain {:#?}", specs);
            Ok(())
        })?;
    }

    /// An observe point: every hook runs; blocks are ignored; failures are contained.
    #[test]
    fn an_observe_chain_runs_every_hook(specs in chain()) {
        quiet_model_panics();
        let ran = Ran::default();
        let hooks = registry(AfterLlmCall, &specs, &ran, |_: &LlmReply, _| None::<Observed>);
        let expected = model(&specs, true);
        both::<AfterLlmCall>(&hooks, &ran, || LlmReply::text("hi"), |outcome| {
            let got = observed(outcome, &ran, |reply: LlmReply| {
                assert_eq!(reply, LlmReply::text("hi"), "observers leave the value alone");
                Vec::new()
            });
            prop_assert_eq!(got.ran.len(), specs.len(), "every observer runs");
            prop_assert_eq!(&got, &expected, "chain {:#?}", specs);
            Ok(())
        })?;
    }
}
