//! What the built-in guards cost an agent: one `intercept_tool_call` dispatch of a typical Bash
//! command through a chain with `destructive-commands`, and through one with `protected-paths`,
//! `destructive-commands` and `secrets`, against the same dispatch through a registry with no
//! guard; and `secrets` on a 4 KB and a 64 KB tool result through `transform_tool_result`,
//! against the same with no guard. The guards are enabled as a user enables them in Rust
//! (`builtin(…)`, documented defaults).
//!
//! Run with `cargo bench --bench guards` (release, a minute or so). Criterion reports each
//! variant; then the binary times them again interleaved (rounds of one batch per variant, in
//! a rotating order, medians), so that load from other processes falls on all of them alike,
//! and prints each figure with its ratio to the baseline of the same run. BENCHMARKS.md keeps
//! the figures.
//!
//! The call is built before the timing starts and the result dropped after it stops: only the
//! dispatch is timed, the guards' work included. Each call's command ends in a comment of its
//! own (`# 17`), as each call of an agent is a new line: the shell model keeps the trees of the
//! last lines a thread parsed, so the first guard of a chain parses the line and the guards
//! after it reuse the tree, and a command repeated word for word would time the reuse alone.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use hookchain::HooksBuilder;
use hookchain::guards::{BuiltinsExt, DestructiveCommands, ProtectedPaths, Secrets};
use hookchain::points::ToolResult;
use hookchain::prelude::*;

/// The Bash commands dispatched: (name, command line).
fn commands() -> [(&'static str, String); 4] {
    let pipeline = "git log --since=\"2 weeks ago\" --pretty=format:\"%h %an %s\" -- src/ tests/ \
                    | grep -v \"Merge pull request\" | awk '{print $2}' | sort | uniq -c \
                    | sort -rn | head -20 | while read n a; do echo \"$a: $n commits\"; done \
                    | tee target/authors.txt | sed -e 's/^/  /' | wc -l && echo \"authors in target/authors.txt\""
        .to_owned();
    assert!(
        (280..=320).contains(&pipeline.len()),
        "the pipeline is meant to be about 300 characters, not {}",
        pipeline.len()
    );
    [
        ("git status", "git status".to_owned()),
        (
            "cargo test | tail",
            "cargo test --workspace 2>&1 | tail -20".to_owned(),
        ),
        ("rm -rf ./build", "rm -rf ./build".to_owned()),
        ("300-char pipeline", pipeline),
    ]
}

/// A tool result of `len` bytes that holds no secret: source lines, a log, hashes and ids, as
/// a `Read` or a test run returns them.
fn tool_output(len: usize) -> String {
    const LINES: [&str; 8] = [
        "src/session/turn.rs:214:    pub fn intercept_tool_call(&self, call: ToolCall) -> Flow<ToolCall> {",
        "test chain::tests::rewrite_reaches_the_next_hook ... ok",
        "commit 3f9c2a7e41d8b0c5a6e9f1d2c3b4a5968778695a (HEAD -> main, origin/main)",
        "2024-05-14T09:21:07Z INFO request_id=6f1c2b9e-4d3a-4b8e-9c7d-2e1f0a9b8c7d status=200 took=12ms",
        "    let config = Config::from_user_yaml_str(&yaml, \"./hookchain.yaml\")?;",
        "warning: unused variable: `session` --> benches/guards.rs:88:9",
        "sha256  e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  target/release/app",
        "The guard reads what the shell would run and blocks irreversible loss of files.",
    ];
    let mut text = String::with_capacity(len + 128);
    let mut i = 0;
    while text.len() < len {
        text.push_str(LINES[i % LINES.len()]);
        text.push('\n');
        i += 1;
    }
    text.truncate(len);
    text
}

fn registry(builder: HooksBuilder) -> Hooks {
    builder.build().expect("the guards' defaults build")
}

/// The chains measured, each with a turn of its own.
struct Chains {
    baseline: Hooks,
    destructive: Hooks,
    three: Hooks,
    secrets: Hooks,
}

impl Chains {
    fn new() -> Chains {
        Chains {
            baseline: registry(Hooks::builder()),
            destructive: registry(Hooks::builder().builtin(DestructiveCommands::default())),
            three: registry(
                Hooks::builder()
                    .builtin(ProtectedPaths::default())
                    .builtin(DestructiveCommands::default())
                    .builtin(Secrets::default()),
            ),
            secrets: registry(Hooks::builder().builtin(Secrets::default())),
        }
    }
}

fn bash(command: &str) -> ToolCall {
    ToolCall::new("Bash", json!({ "command": command }))
}

/// `command` as a line no call has had before: a comment of its own at its end.
fn fresh(command: &str) -> ToolCall {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    bash(&format!("{command}  # {n}"))
}

fn read_result(text: &str) -> ToolResult {
    let call = ToolCall::new("Read", json!({ "file_path": "target/test.log" }));
    ToolResult::new(&call, Ok(Value::String(text.to_owned())))
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// ns per dispatch of `batch` prebuilt inputs through `f`; building them and dropping the
/// results stay outside the timing.
#[inline(never)]
fn time_batch<I, R>(batch: usize, make: impl Fn() -> I, mut f: impl FnMut(I) -> R) -> f64 {
    let mut inputs: Vec<I> = (0..batch).map(|_| make()).collect();
    let mut results = Vec::with_capacity(batch);
    let start = Instant::now();
    for input in inputs.drain(..) {
        results.push(f(black_box(input)));
    }
    let ns = start.elapsed().as_nanos() as f64 / batch as f64;
    drop(black_box(results));
    ns
}

fn main() {
    let chains = Chains::new();
    let sessions = [
        chains.baseline.session("bench"),
        chains.destructive.session("bench"),
        chains.three.session("bench"),
        chains.secrets.session("bench"),
    ];
    let [baseline, destructive, three, secrets] = [0, 1, 2, 3].map(|i| sessions[i].begin_turn());
    let commands = commands();
    let outputs = [
        ("4 KB", tool_output(4 * 1024)),
        ("64 KB", tool_output(64 * 1024)),
    ];

    // Every command is normal work: each chain lets it through, and secrets leaves the tool
    // results alone, so the figures are the cost of a pass.
    for (name, command) in &commands {
        for turn in [&baseline, &destructive, &three] {
            assert!(
                !turn.intercept_tool_call(bash(command)).is_blocked(),
                "`{name}` is blocked"
            );
        }
    }
    for (name, text) in &outputs {
        let flow = secrets.transform_tool_result(read_result(text));
        assert_eq!(
            flow.continued().map(|r| r.tool_response),
            Some(Value::String(text.clone())),
            "secrets changed the {name} tool result"
        );
    }
    assert!(
        destructive
            .intercept_tool_call(bash("rm -rf ~"))
            .is_blocked()
    );

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .configure_from_args();
    {
        let mut group = c.benchmark_group("intercept_tool_call");
        let (_, first) = &commands[0];
        group.bench_function("no guard", |b| {
            b.iter_batched(
                || bash(first),
                |call| baseline.intercept_tool_call(call),
                BatchSize::SmallInput,
            )
        });
        for (name, command) in &commands {
            for (chain, turn) in [
                ("destructive-commands", &destructive),
                ("three guards", &three),
            ] {
                group.bench_function(format!("{chain}: {name}"), |b| {
                    b.iter_batched(
                        || fresh(command),
                        |call| turn.intercept_tool_call(call),
                        BatchSize::SmallInput,
                    )
                });
            }
        }
        group.finish();
    }
    {
        let mut group = c.benchmark_group("transform_tool_result");
        for (name, text) in &outputs {
            for (chain, turn) in [("no guard", &baseline), ("secrets", &secrets)] {
                group.bench_function(format!("{chain}: {name}"), |b| {
                    b.iter_batched(
                        || read_result(text),
                        |result| turn.transform_tool_result(result),
                        BatchSize::SmallInput,
                    )
                });
            }
        }
        group.finish();
    }
    c.final_summary();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`, `--list`) criterion only
    // checks that each benchmark runs, and so does this binary.
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list" || a == "--test") {
        return;
    }

    // The same dispatches, interleaved: rounds of one batch per variant, the order rotating.
    let (rounds, batch) = (60, 200);
    let mut intercept: Vec<(String, Vec<f64>)> = vec![("no guard".to_owned(), Vec::new())];
    for (name, _) in &commands {
        intercept.push((format!("destructive-commands: {name}"), Vec::new()));
        intercept.push((format!("three guards: {name}"), Vec::new()));
    }
    let slots = intercept.len();
    for round in 0..rounds {
        for k in 0..slots {
            let slot = (round + k) % slots;
            let ns = if slot == 0 {
                time_batch(
                    batch,
                    || bash(&commands[0].1),
                    |call| baseline.intercept_tool_call(call),
                )
            } else {
                let command = &commands[(slot - 1) / 2].1;
                let turn = if slot % 2 == 1 { &destructive } else { &three };
                time_batch(
                    batch,
                    || fresh(command),
                    |call| turn.intercept_tool_call(call),
                )
            };
            intercept[slot].1.push(ns);
        }
    }
    let mut results: Vec<(String, Vec<f64>)> = Vec::new();
    for (name, _) in &outputs {
        results.push((format!("no guard: {name}"), Vec::new()));
        results.push((format!("secrets: {name}"), Vec::new()));
    }
    let (rounds, batch) = (30, 20);
    for round in 0..rounds {
        for k in 0..results.len() {
            let slot = (round + k) % results.len();
            let text = &outputs[slot / 2].1;
            let turn = if slot.is_multiple_of(2) {
                &baseline
            } else {
                &secrets
            };
            let ns = time_batch(
                batch,
                || read_result(text),
                |result| turn.transform_tool_result(result),
            );
            results[slot].1.push(ns);
        }
    }

    println!();
    println!("interleaved medians (ns per dispatch; ratio to the dispatch with no guard):");
    let base = median(intercept[0].1.clone());
    for (name, samples) in intercept {
        let ns = median(samples);
        println!(
            "  intercept_tool_call, {name}: {ns:.0} ns ({:.0}x)",
            ns / base
        );
    }
    let medians: Vec<(String, f64)> = results
        .into_iter()
        .map(|(name, samples)| (name, median(samples)))
        .collect();
    for pair in medians.chunks(2) {
        let [(base_name, base_ns), (name, ns)] = pair else {
            continue;
        };
        println!(
            "  transform_tool_result, {base_name}: {base_ns:.0} ns; {name}: {ns:.0} ns ({:.0}x)",
            ns / base_ns
        );
    }
}
