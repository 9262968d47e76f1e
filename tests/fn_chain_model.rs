//! The model-based test of the chain rules (`hooks-runtime/tests/runtime/chain_model.rs`) for chains made
//! only of `#[register_hook]` fns, which take the pass path that checks nothing per hook: random
//! chains of 1 to 8 of the 18 fns below (three priorities, three `on_error` policies, two fns
//! of each), each told per case to pass, rewrite, block, panic or return `Err`, dispatched
//! through `Turn::fire` (the whole outcome), its `_async` twin and the lean
//! `Turn::transform_user_input` (the flow alone), give what the reference model says.
//!
//! The fns read what to do from a table this file's one test fills before each case, and log
//! that they ran; a test of its own per binary, so that no other test shares the table.

#[path = "../hooks-runtime/tests/runtime/support/chain_rules.rs"]
mod chain_rules;

use std::collections::HashMap;
use std::sync::LazyLock;

use chain_rules::{Ran, Spec, act, action, model, observed, quiet_model_panics};
use hookchain::prelude::*;
use hookchain::{Hooks, OnError, points::TransformUserInput};
use parking_lot::Mutex;
use proptest::prelude::*;

/// What each fn does in the current case, by its name.
static PLAN: LazyLock<Mutex<HashMap<String, Spec>>> = LazyLock::new(Default::default);
/// The fns that ran, in order.
static RAN: LazyLock<Ran> = LazyLock::new(Default::default);

/// Does what the plan says for the fn `name`, as the closures of the closure model do.
fn planned(name: &str, text: &str) -> Result<HookResult<String>, String> {
    let spec = PLAN
        .lock()
        .get(name)
        .cloned()
        .expect("a fn outside the plan ran");
    act(&spec, &RAN, text, |text: &str, name| {
        Some(format!("{text}+{name}"))
    })
}

macro_rules! pool {
    ($($name:ident: $priority:literal, $on_error:literal;)*) => {
        $(
            #[register_hook("transform_user_input", priority = $priority, on_error = $on_error)]
            fn $name(text: &str) -> Result<HookResult<String>, String> {
                planned(concat!("fn_chain_model::", stringify!($name)), text)
            }
        )*
        /// Every fn of the pool: (name, priority, policy).
        const POOL: &[(&str, i32, &str)] = &[
            $((concat!("fn_chain_model::", stringify!($name)), $priority, $on_error)),*
        ];
    };
}

pool! {
    m1_pass_a: -1, "pass"; m1_pass_b: -1, "pass";
    m1_warn_a: -1, "warn"; m1_warn_b: -1, "warn";
    m1_block_a: -1, "block"; m1_block_b: -1, "block";
    z_pass_a: 0, "pass"; z_pass_b: 0, "pass";
    z_warn_a: 0, "warn"; z_warn_b: 0, "warn";
    z_block_a: 0, "block"; z_block_b: 0, "block";
    p1_pass_a: 1, "pass"; p1_pass_b: 1, "pass";
    p1_warn_a: 1, "warn"; p1_warn_b: 1, "warn";
    p1_block_a: 1, "block"; p1_block_b: 1, "block";
}

fn policy(name: &str) -> OnError {
    match name {
        "pass" => OnError::Pass,
        "warn" => OnError::Warn,
        _ => OnError::Block,
    }
}

/// 1..=8 distinct fns of the pool, each with an action.
fn chain() -> impl Strategy<Value = Vec<Spec>> {
    prop::sample::subsequence((0..POOL.len()).collect::<Vec<_>>(), 1..=8)
        .prop_flat_map(|picked| {
            let actions = prop::collection::vec(action(), picked.len());
            (Just(picked), actions)
        })
        .prop_map(|(picked, actions)| {
            picked
                .into_iter()
                .zip(actions)
                .map(|(i, action)| {
                    let (name, priority, on_error) = POOL[i];
                    Spec {
                        name: name.to_owned(),
                        priority,
                        action,
                        on_error: policy(on_error),
                        is_async: false,
                    }
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_chain_of_fns_does_what_the_model_says(specs in chain()) {
        quiet_model_panics();
        *PLAN.lock() = specs.iter().map(|s| (s.name.clone(), s.clone())).collect();
        let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
        let hooks = Hooks::builder()
            .collected_where(move |r| r.file.ends_with("fn_chain_model.rs") && names.contains(&r.name.to_string()))
            .build()
            .expect("distinct fns");
        prop_assert_eq!(hooks.chain_of("transform_user_input").len(), specs.len());
        let expected = model(&specs, false);
        let words = |text: String| text.split('+').skip(1).map(str::to_owned).collect();

        let session = hooks.session("fn-model");
        RAN.lock().clear();
        let turn = session.begin_turn();
        let got = observed(turn.fire::<TransformUserInput>("in".to_owned()), &RAN, words);
        prop_assert_eq!(&got, &expected, "Turn::fire, chain {:#?}", specs);

        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let got = observed(
            rt.block_on(turn.fire_async::<TransformUserInput>("in".to_owned())),
            &RAN,
            words,
        );
        prop_assert_eq!(&got, &expected, "Turn::fire_async, chain {:#?}", specs);

        // The lean method hands back the flow alone.
        let flow = match turn.transform_user_input("in".to_owned()) {
            Flow::Continue(text) => Ok(words(text)),
            Flow::Blocked(b) => Err((b.hook, b.failed)),
        };
        prop_assert_eq!(&flow, &expected.flow, "Turn::transform_user_input, chain {:#?}", specs);
        prop_assert_eq!(&*RAN.lock(), &expected.ran, "Turn::transform_user_input, chain {:#?}", specs);
        RAN.lock().clear();
        turn.end(TurnEnd::Normal);
    }
}
