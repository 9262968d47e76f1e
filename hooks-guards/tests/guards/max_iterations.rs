//! `max-iterations`: N model calls per turn pass, the call past N is refused with a reason and a
//! notification of the iteration-cap kind, every turn counts from 0; enabled from Rust, from
//! `hookchain.yaml` and from docker-agent's `type: builtin` entry `max_iterations`.

use crate::support::{from_yaml, listening, temp_dir, yaml_error};
use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::points::{LlmCall, NotificationKind};
use hookchain::prelude::*;
use hookchain::{HooksBuilder, TurnEnd};
use hookchain_guards::{BuiltinsExt, MaxIterations};

/// Fires `before_llm_call` `n` times in `turn`: how many passed before the first block, and
/// that block's reason.
fn calls(turn: &Turn, n: u32) -> (u32, Option<String>) {
    for i in 0..n {
        if let Flow::Blocked(b) = turn.before_llm_call(LlmCall::new("system", vec![])) {
            return (i, Some(b.reason));
        }
    }
    (n, None)
}

#[test]
fn the_call_past_the_cap_is_refused_and_one_notification_fires_per_turn() {
    let (builder, seen) = listening(Hooks::builder().builtin(MaxIterations { max: 3 }));
    let hooks = builder.build().unwrap();
    let session = hooks.session("cap");
    let turn = session.begin_turn();
    let (passed, reason) = calls(&turn, 10);
    assert_eq!(passed, 3);
    let reason = reason.unwrap();
    assert!(
        reason.starts_with("max-iterations: the agent stopped after 3 model call(s)"),
        "{reason}"
    );
    assert!(reason.contains("raise `max`"), "{reason}");
    assert_eq!(
        turn.state().get::<u64>(MaxIterations::COUNT_KEY),
        Some(4),
        "the refused call is counted"
    );
    // Later calls of the same turn stay refused, without another notification.
    assert!(
        turn.before_llm_call(LlmCall::default()).is_blocked(),
        "still refused"
    );
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].kind, NotificationKind::MaxIterations);
        assert_eq!(seen[0].source.as_deref(), Some("max-iterations"));
        assert!(
            seen[0]
                .message
                .contains("limit of 3 model call(s); call 4 was refused"),
            "{}",
            seen[0].message
        );
    }
    turn.end(TurnEnd::MaxIterations);

    // The count is the turn's: the next turn starts from 0, and its cap fires again.
    let turn = session.begin_turn();
    assert_eq!(turn.state().get::<u64>(MaxIterations::COUNT_KEY), None);
    assert_eq!(calls(&turn, 3), (3, None));
    assert!(turn.before_llm_call(LlmCall::default()).is_blocked());
    turn.end(TurnEnd::MaxIterations);
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn two_turns_at_once_count_apart() {
    let hooks = Hooks::builder()
        .builtin(MaxIterations { max: 2 })
        .build()
        .unwrap();
    let session = hooks.session("overlap");
    let (a, b) = (session.begin_turn(), session.begin_turn());
    assert_eq!(calls(&a, 2), (2, None));
    assert_eq!(calls(&b, 2), (2, None));
    assert!(a.before_llm_call(LlmCall::default()).is_blocked());
    assert!(b.before_llm_call(LlmCall::default()).is_blocked());
}

#[test]
fn the_default_is_25_and_an_installed_guard_is_one_extension() {
    assert_eq!(MaxIterations::default().max, 25);
    let hooks = Hooks::builder()
        .builtin(MaxIterations::default())
        .builtin(MaxIterations::default())
        .build()
        .unwrap();
    assert_eq!(hooks.chain_of("before_llm_call").len(), 1);
    let turn = hooks.session("default").begin_turn();
    let (passed, reason) = calls(&turn, 30);
    assert_eq!(passed, 25);
    assert!(reason.unwrap().contains("after 25 model call(s)"));
}

#[test]
fn enabled_from_hookchain_yaml_and_off_without_enabled() {
    let hooks =
        from_yaml("extensions:\n  max-iterations:\n    enabled: true\n    max: 2\n").unwrap();
    let turn = hooks.session("yaml").begin_turn();
    assert_eq!(calls(&turn, 5).0, 2);

    let hooks = from_yaml("extensions:\n  max-iterations:\n    max: 2\n").unwrap();
    assert!(!hooks.extension("max-iterations").unwrap().is_enabled());
    let turn = hooks.session("yaml-off").begin_turn();
    assert_eq!(calls(&turn, 5), (5, None));
}

#[test]
fn a_misspelt_field_or_a_cap_of_zero_names_the_file_and_line() {
    let error = yaml_error("extensions:\n  max-iterations:\n    enabled: true\n    maxx: 2\n");
    assert!(
        error.starts_with("extension `max-iterations` in ./hookchain.yaml line 4"),
        "{error}"
    );
    assert!(error.contains("unknown field `maxx`"), "{error}");
    let error = yaml_error("extensions:\n  max-iterations:\n    enabled: true\n    max: 0\n");
    assert!(error.contains("./hookchain.yaml line 4"), "{error}");
    assert!(
        error.contains("`max` is 0, which would refuse every model call"),
        "{error}"
    );
    let error = yaml_error("extensions:\n  max-iteration:\n    enabled: true\n");
    assert!(error.contains("did you mean `max-iterations`?"), "{error}");
    // From Rust, the same check: the build refuses it.
    assert!(
        Hooks::builder()
            .builtin(MaxIterations { max: 0 })
            .build()
            .is_err()
    );
}

/// docker-agent's own idiom: the builtin under `before_llm_call` with its limit as a string
/// arg, next to an `on_max_iterations` command hook that hears the cap.
const AGENT_YAML: &str = r#"#!/usr/bin/env docker agent run
version: "5"

agents:
  root:
    model: openai/gpt-5-mini
    description: A coding agent with a hard cap on model calls
    instruction: |
      You are a careful coding assistant.
    toolsets:
      - type: shell
      - type: filesystem
    hooks:
      turn_start:
        - type: builtin
          command: add_date
      before_llm_call:
        - type: builtin
          command: max_iterations
          args: ["3"]
      on_max_iterations:
        - type: command
          command: echo "$(cat)" >> capped.log
          timeout: 10
"#;

#[test]
fn docker_agents_max_iterations_builtin_loads_as_the_guard() {
    let dir = temp_dir();
    let file = dir.path().join("agent.yaml");
    std::fs::write(&file, AGENT_YAML).unwrap();
    let config = Config::load_docker_agent(&file).unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    assert_eq!(
        json!(config.section("max-iterations").unwrap()),
        json!({"max": 3})
    );
    let hooks = Hooks::builder()
        .config(config)
        .consent(Consent::in_memory(), ConsentPolicy::new())
        .accept_hooks(true)
        .build()
        .unwrap();
    assert!(hooks.extension("max-iterations").unwrap().is_enabled());
    let session = hooks.session("docker-agent");
    let turn = session.begin_turn();
    let (passed, reason) = calls(&turn, 5);
    assert_eq!(passed, 3);
    assert!(reason.unwrap().starts_with("max-iterations: "));
    turn.end(TurnEnd::MaxIterations);
    // The on_max_iterations script heard it, in docker-agent's payload.
    let log = std::fs::read_to_string(dir.path().join("capped.log")).unwrap();
    assert!(log.contains("on_max_iterations"), "{log}");
    assert!(log.contains("limit of 3 model call(s)"), "{log}");
    assert_eq!(log.lines().count(), 1, "{log}");
}

#[test]
fn docker_agent_entries_that_do_not_fit_are_left_out_with_the_line() {
    let text = "agents:\n  root:\n    hooks:\n      before_llm_call:\n        - type: builtin\n          command: max_iterations\n        - type: builtin\n          command: max_iterations\n          args: [\"-4\"]\n      turn_start:\n        - type: builtin\n          command: max_iterations\n          args: [\"10\"]\n";
    let config = Config::from_docker_agent_str(text, "agent.yaml").unwrap();
    assert!(config.section("max-iterations").is_none());
    let warnings = config.warnings();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[0].contains("takes one positive number of model calls"),
        "{warnings:?}"
    );
    assert!(warnings[1].contains("found [\"-4\"]"), "{warnings:?}");
    assert!(warnings[2].contains("agent.yaml line 13"), "{warnings:?}");
    assert!(
        warnings[2].contains("under `turn_start` it counts nothing"),
        "{warnings:?}"
    );
}

#[test]
fn every_guard_added_at_once_leaves_it_off_until_enabled() {
    let hooks = hookchain_guards::add_all(HooksBuilder::new())
        .build()
        .unwrap();
    for name in ["max-iterations", "stop-verifier"] {
        assert!(!hooks.extension(name).unwrap().is_enabled(), "{name}");
    }
    let turn = hooks.session("all-off").begin_turn();
    assert_eq!(calls(&turn, 40), (40, None));
    assert!(matches!(
        turn.on_stop("Pushed to main and all tests pass."),
        Stop::Finish(_)
    ));
}
