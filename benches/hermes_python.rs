//! One firing of a Hermes Python plugin through hookchain's runner, next to one firing of a
//! trivial `process` worker, in one run.
//!
//! - `process_worker`: `tests/fixtures/external/echo_worker.py`, a python worker that answers
//!   every request at once (the payload says `"pass": true`), through the `process` transport;
//! - `hermes_plugin`: the `tool-guard` plugin of `hooks-config/tests/hermes/plugins/`, loaded by
//!   [`Config::load`] and run by hookchain's Python runner through the same transport: the
//!   payload read into Hermes' keyword arguments, the plugin's `pre_tool_call` callback called
//!   (it passes on `ls`), its answer combined and written back;
//! - `hermes_plugin_turn`: the same plugin's hook admitted into a registry, fired by
//!   `Turn::intercept_tool_call` (payload built in Hermes' form, answer read as Hermes', and
//!   consent's check at every firing: the runner and every file of the plugin hashed again);
//! - `hermes_plugin_turn_unpinned`: the same, the hook added in code
//!   (`HooksBuilder::external`: the agent's own, no consent check): what that check costs.
//!
//! The first two send the same bytes. Each variant is timed in interleaved rounds (the order
//! rotating, so the machine's load falls on all alike) and the medians are printed, with the
//! ratio of the runner to the trivial worker. Run with `cargo bench --bench hermes_python`
//! (needs `python3`); the figures are in BENCHMARKS.md.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use hookchain::HooksBuilder;
use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::external::process::ProcessHook;
use hookchain::external::{CommandSpec, ExternalHooksExt, Invoke, Transport};
use hookchain::prelude::*;

const ROUNDS: usize = 60;
const CALLS_PER_ROUND: usize = 20;
const TIMEOUT: Duration = Duration::from_secs(10);

const PAYLOAD: &[u8] = br#"{"hook_event_name":"pre_tool_call","event":"pre_tool_call","tool_name":"terminal","tool_input":{"command":"ls"},"session_id":"bench","cwd":"/tmp","turn":1,"extra":{"task_id":"bench","tool_call_id":"c1"},"profile":"default","pass":true}"#;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("hermes_python bench: python3 is not on PATH; nothing measured");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let worker = root.join("tests/fixtures/external/echo_worker.py");
    let argv = vec!["python3".to_owned(), worker.display().to_string()];
    let trivial = ProcessHook::new(CommandSpec {
        display: argv.join(" "),
        argv,
        env: BTreeMap::new(),
        working_dir: None,
        env_clear: false,
        env_allow: Vec::new(),
    })
    .expect("the trivial worker");

    let config = Config::load(root.join("hooks-config/tests/hermes/plugins/tool-guard"))
        .expect("the tool-guard plugin");
    let hook = config
        .external_hooks()
        .iter()
        .find(|h| h.event == "pre_tool_call")
        .expect("its pre_tool_call hook")
        .clone();
    let Transport::Process(spec) = &hook.transport else {
        panic!("{:?}", hook.transport);
    };
    let runner = ProcessHook::new(spec.clone()).expect("the runner");
    let hooks = HooksBuilder::new()
        .config(config)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build()
        .expect("the registry");
    let session = hooks.session("bench");
    let turn = session.begin_turn();
    let unpinned_hooks = HooksBuilder::new()
        .external(hook.clone())
        .build()
        .expect("the registry");
    let unpinned_session = unpinned_hooks.session("bench-2");
    let unpinned = unpinned_session.begin_turn();
    let call = ToolCall::new("terminal", json!({"command": "ls"}));

    // Warm up: every worker started and past its first answers.
    for _ in 0..50 {
        assert!(trivial.invoke(PAYLOAD, TIMEOUT).unwrap().stdout.is_empty());
        runner.invoke(PAYLOAD, TIMEOUT).unwrap();
        for turn in [&turn, &unpinned] {
            assert!(matches!(
                turn.intercept_tool_call(call.clone()),
                Flow::Continue(_)
            ));
        }
    }
    let out = runner.invoke(PAYLOAD, TIMEOUT).unwrap();
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let mut times: [Vec<Duration>; 4] = Default::default();
    for round in 0..ROUNDS {
        for k in 0..4 {
            let variant = (round + k) % 4;
            for _ in 0..CALLS_PER_ROUND {
                let started = Instant::now();
                match variant {
                    0 => {
                        trivial.invoke(PAYLOAD, TIMEOUT).unwrap();
                    }
                    1 => {
                        runner.invoke(PAYLOAD, TIMEOUT).unwrap();
                    }
                    2 => {
                        let _ = turn.intercept_tool_call(call.clone());
                    }
                    _ => {
                        let _ = unpinned.intercept_tool_call(call.clone());
                    }
                }
                times[variant].push(started.elapsed());
            }
        }
    }
    turn.end(TurnEnd::Normal);
    session.end("exit");
    unpinned.end(TurnEnd::Normal);
    unpinned_session.end("exit");
    let [worker, plugin, through_turn, unpinned] = times.map(median);
    println!("hermes_python: interleaved medians of {ROUNDS} x {CALLS_PER_ROUND} calls each");
    println!("  process_worker              {:>8.1} µs", micros(worker));
    println!(
        "  hermes_plugin               {:>8.1} µs  ({:.2}x the trivial worker)",
        micros(plugin),
        micros(plugin) / micros(worker)
    );
    println!(
        "  hermes_plugin_turn          {:>8.1} µs  ({:.2}x the trivial worker)",
        micros(through_turn),
        micros(through_turn) / micros(worker)
    );
    println!(
        "  hermes_plugin_turn_unpinned {:>8.1} µs  ({:.2}x the trivial worker)",
        micros(unpinned),
        micros(unpinned) / micros(worker)
    );
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
