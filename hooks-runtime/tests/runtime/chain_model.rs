//! Model-based tests of the chain rules: random chains — 1 to 8 hooks with random priorities
//! (ties included), names, sync or async, each passing, rewriting, blocking, panicking or
//! returning `Err` under a random `on_error` — dispatched through the sync and the async API,
//! give exactly what a small reference model of the rules in `chain.rs` says: the final value or
//! the block (its hook, and whether it was a failure), which hooks ran and in which order, the
//! rewriters, the failures and the warnings. The same for an inject point (injections accumulate
//! in chain order) and an observe point (every hook runs, blocks are ignored, failures are
//! contained).

use crate::support::chain_rules::{
    Ran, Spec, act, action, model, observed, on_error, quiet_model_panics,
};
use hookchain_core::points::{AfterLlmCall, SessionStart, TransformUserInput};
use hookchain_core::{
    BoxFuture, HookContext, HookPoint, HookResult, LlmReply, Observed, SessionSource,
    SessionStartEvent,
};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder, Outcome, Turn};
use proptest::prelude::*;

/// The cases each property runs: enough to meet every combination of a few hooks, few enough
/// that the suite runs in seconds.
const CASES: u32 = 256;

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
    Result<HookResult<P::Rewrite>, String>: hookchain_core::IntoHookReturn<P::Rewrite>,
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
