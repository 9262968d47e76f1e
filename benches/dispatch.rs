//! The cost of a hook chain: ten pass-through guards on `intercept_tool_call`, dispatched through
//! the public `Turn` API, against the same ten fns called through a slice of fn pointers the
//! compiler cannot see (the limit for any registry) and called directly.
//!
//! Run with `cargo bench --bench dispatch`. After criterion's report the binary prints the ratios
//! Turn / fn-pointer and Turn / direct of this run, and the number of allocations of one
//! all-pass dispatch. See BENCHMARKS.md for the figures and what they mean.
//!
//! Two groups:
//! - `build_and_dispatch`: each iteration builds `ToolCall::new("read_file", {"path": ..})`,
//!   dispatches it and drops the result, the same in all three variants.
//! - `dispatch_only`: the call is built before the timing starts and the result dropped after it
//!   stops (`iter_batched`), so only the chain itself is timed.
//!
//! Criterion times the variants one after another, so load from other processes can fall on one
//! variant and not on the others. The binary therefore also times both groups interleaved
//! (rounds of one batch per variant, medians) and prints those ratios too.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use criterion::{BatchSize, Criterion};
use hookchain::HooksBuilder;
use hookchain::chain::Annotations;
use hookchain::{HookContext, prelude::*};

// ---------------------------------------------------------------------------------------------
// The ten hooks: cheap, realistic guards. The benchmarked call (`read_file` of `src/lib.rs`)
// passes all of them.
// ---------------------------------------------------------------------------------------------

const PATH_LIMIT: usize = 4096;

/// Deleting files is not allowed at all.
#[register_hook("intercept_tool_call", priority = 1)]
fn no_delete_file(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call.name == "delete_file" {
        return HookResult::block("delete_file is disabled in this workspace");
    }
    HookResult::Pass
}

/// `rm -rf` through the shell tool.
#[register_hook("intercept_tool_call", priority = 2)]
fn no_rm_rf(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call.name == "shell" && call.str_arg("cmd").is_some_and(|c| c.contains("rm -rf")) {
        return HookResult::block("rm -rf is not allowed");
    }
    HookResult::Pass
}

/// Network tools are off.
#[register_hook("intercept_tool_call", priority = 3)]
fn no_network(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call.name == "http_request" || call.name == "fetch_url" {
        return HookResult::block("network access is disabled");
    }
    HookResult::Pass
}

/// Force pushes through the git tool.
#[register_hook("intercept_tool_call", priority = 4)]
fn no_force_push(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call.name == "git" && call.str_arg("args").is_some_and(|a| a.contains("--force")) {
        return HookResult::block("force pushes are not allowed");
    }
    HookResult::Pass
}

/// No writes under /etc.
#[register_hook("intercept_tool_call", priority = 5)]
fn no_etc_writes(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call.name == "write_file" && call.str_arg("path").is_some_and(|p| p.starts_with("/etc/")) {
        return HookResult::block("writes under /etc are not allowed");
    }
    HookResult::Pass
}

/// File tools need a string `path`.
#[register_hook("intercept_tool_call", priority = 6)]
fn path_required(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if (call.name == "read_file" || call.name == "write_file") && call.str_arg("path").is_none() {
        return HookResult::block("file tools need a string `path`");
    }
    HookResult::Pass
}

/// No `..` in paths.
#[register_hook("intercept_tool_call", priority = 7)]
fn no_parent_dirs(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call.str_arg("path").is_some_and(|p| p.contains("..")) {
        return HookResult::block("paths may not contain `..`");
    }
    HookResult::Pass
}

/// `.env` files hold secrets.
#[register_hook("intercept_tool_call", priority = 8)]
fn no_env_files(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call.str_arg("path").is_some_and(|p| p.ends_with(".env")) {
        return HookResult::block(".env files are off limits");
    }
    HookResult::Pass
}

/// Nor does `secrets/`.
#[register_hook("intercept_tool_call", priority = 9)]
fn no_secrets_dir(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call
        .str_arg("path")
        .is_some_and(|p| p.starts_with("secrets/"))
    {
        return HookResult::block("secrets/ is off limits");
    }
    HookResult::Pass
}

/// Absurdly long paths.
#[register_hook("intercept_tool_call", priority = 10)]
fn path_length(call: &ToolCall, _cx: &HookContext<'_>) -> HookResult<Value> {
    if call.str_arg("path").is_some_and(|p| p.len() > PATH_LIMIT) {
        return HookResult::block("path too long");
    }
    HookResult::Pass
}

type Guard = fn(&ToolCall, &HookContext<'_>) -> HookResult<Value>;

/// The ten hooks in chain order (priority 1 to 10).
const GUARDS: [Guard; 10] = [
    no_delete_file,
    no_rm_rf,
    no_network,
    no_force_push,
    no_etc_writes,
    path_required,
    no_parent_dirs,
    no_env_files,
    no_secrets_dir,
    path_length,
];

/// The registry of the Turn variant: the ten `#[register_hook]` fns of this file.
fn registry() -> Hooks {
    let hooks = HooksBuilder::new()
        .collected_where(|r| r.point == "intercept_tool_call" && r.file.ends_with("dispatch.rs"))
        .build()
        .expect("ten distinct hooks");
    let chain: Vec<i32> = hooks
        .chain_of("intercept_tool_call")
        .iter()
        .map(|h| h.priority)
        .collect();
    assert_eq!(
        chain,
        (1..=10).collect::<Vec<_>>(),
        "the ten hooks, in order"
    );
    hooks
}

fn tool_call() -> ToolCall {
    ToolCall::new("read_file", json!({"path": "src/lib.rs"}))
}

// ---------------------------------------------------------------------------------------------
// The baselines. Both consume each result the way a chain does: stop at a block, apply a
// rewrite (a rewrite carries new args), and hand back a `Flow<ToolCall>`.
// ---------------------------------------------------------------------------------------------

/// Folds one hook's result into the call; `Some` when the chain stops.
#[inline(always)]
fn consume(call: &mut ToolCall, result: HookResult<Value>, hook: &'static str) -> Option<Blocked> {
    match result {
        HookResult::Pass => None,
        HookResult::Rewrite(args) => {
            call.args = args;
            None
        }
        HookResult::Block(reason) => Some(Blocked::new(reason.into_string(), hook)),
    }
}

/// The ten fns through a slice of fn pointers the optimizer cannot see through.
#[inline(never)]
fn fn_pointers(hooks: &[Guard], mut call: ToolCall) -> Flow<ToolCall> {
    let notes = Annotations::new();
    let cx = HookContext::new("bench", 0, "intercept_tool_call", &notes);
    for hook in hooks {
        let result = hook(&call, &cx);
        if let Some(blocked) = consume(&mut call, result, "guard") {
            return Flow::Blocked(blocked);
        }
    }
    Flow::Continue(call)
}

/// The ten fns called by name.
#[inline(never)]
fn direct(mut call: ToolCall) -> Flow<ToolCall> {
    let notes = Annotations::new();
    let cx = HookContext::new("bench", 0, "intercept_tool_call", &notes);
    macro_rules! run {
        ($($hook:ident),*) => {$(
            let result = $hook(&call, &cx);
            if let Some(blocked) = consume(&mut call, result, stringify!($hook)) {
                return Flow::Blocked(blocked);
            }
        )*};
    }
    run!(
        no_delete_file,
        no_rm_rf,
        no_network,
        no_force_push,
        no_etc_writes,
        path_required,
        no_parent_dirs,
        no_env_files,
        no_secrets_dir,
        path_length
    );
    Flow::Continue(call)
}

#[path = "../tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

// ---------------------------------------------------------------------------------------------

const GROUPS: [&str; 2] = ["build_and_dispatch", "dispatch_only"];
const TURN: &str = "turn_10_hooks";
const FN_POINTERS: &str = "fn_pointers_10";
const DIRECT: &str = "direct_10";

fn benches(c: &mut Criterion, turn: &Turn) {
    let guards: &[Guard] = &GUARDS;

    let mut group = c.benchmark_group(GROUPS[0]);
    group.bench_function(TURN, |b| {
        b.iter(|| turn.intercept_tool_call(black_box(tool_call())))
    });
    group.bench_function(FN_POINTERS, |b| {
        b.iter(|| fn_pointers(black_box(guards), black_box(tool_call())))
    });
    group.bench_function(DIRECT, |b| b.iter(|| direct(black_box(tool_call()))));
    group.finish();

    let mut group = c.benchmark_group(GROUPS[1]);
    group.bench_function(TURN, |b| {
        b.iter_batched(
            tool_call,
            |call| turn.intercept_tool_call(call),
            BatchSize::SmallInput,
        )
    });
    group.bench_function(FN_POINTERS, |b| {
        b.iter_batched(
            tool_call,
            |call| fn_pointers(black_box(guards), call),
            BatchSize::SmallInput,
        )
    });
    group.bench_function(DIRECT, |b| {
        b.iter_batched(tool_call, direct, BatchSize::SmallInput)
    });
    group.finish();
}

/// Times `batch` runs of `f` and returns ns per run.
#[inline(never)]
fn time_batch<R>(batch: usize, mut f: impl FnMut() -> R) -> f64 {
    let start = Instant::now();
    for _ in 0..batch {
        drop(black_box(f()));
    }
    start.elapsed().as_nanos() as f64 / batch as f64
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Times the dispatch of `batch` prebuilt calls with `f`; building the calls and dropping the
/// results stay outside the timing. Returns ns per call.
#[inline(never)]
fn time_dispatch_only<R>(batch: usize, mut f: impl FnMut(ToolCall) -> R) -> f64 {
    let mut calls: Vec<ToolCall> = (0..batch).map(|_| tool_call()).collect();
    let mut results = Vec::with_capacity(batch);
    let start = Instant::now();
    for call in calls.drain(..) {
        results.push(f(black_box(call)));
    }
    let ns = start.elapsed().as_nanos() as f64 / batch as f64;
    drop(black_box(results));
    ns
}

/// What [`interleaved`] measured: median ns per call.
struct Interleaved {
    /// Turn, fn pointers, direct, for `build_and_dispatch` and `dispatch_only`.
    groups: [[f64; 3]; 2],
    /// `dispatch_only` through a Turn whose chain is empty, and through an empty slice.
    empty: [f64; 2],
}

/// A second measurement of both groups, robust to load from other processes: `rounds` rounds,
/// each timing a batch of every variant in turn (the order rotating), so a busy moment falls on
/// all of them alike. Also times an empty chain, to split the Turn's cost into a part per
/// dispatch and a part per hook.
fn interleaved(turn: &Turn, empty_turn: &Turn, rounds: usize, batch: usize) -> Interleaved {
    const SLOTS: usize = 8;
    let guards: &[Guard] = &GUARDS;
    let no_guards: &[Guard] = &[];
    let mut samples: [Vec<f64>; SLOTS] = Default::default();
    for round in 0..rounds {
        for k in 0..SLOTS {
            let slot = (round + k) % SLOTS;
            samples[slot].push(match slot {
                0 => time_batch(batch, || turn.intercept_tool_call(black_box(tool_call()))),
                1 => time_batch(batch, || {
                    fn_pointers(black_box(guards), black_box(tool_call()))
                }),
                2 => time_batch(batch, || direct(black_box(tool_call()))),
                3 => time_dispatch_only(batch, |call| turn.intercept_tool_call(call)),
                4 => time_dispatch_only(batch, |call| fn_pointers(black_box(guards), call)),
                5 => time_dispatch_only(batch, direct),
                6 => time_dispatch_only(batch, |call| empty_turn.intercept_tool_call(call)),
                _ => time_dispatch_only(batch, |call| fn_pointers(black_box(no_guards), call)),
            });
        }
    }
    let [b0, b1, b2, d0, d1, d2, e0, e1] = samples.map(median);
    Interleaved {
        groups: [[b0, b1, b2], [d0, d1, d2]],
        empty: [e0, e1],
    }
}

/// Where criterion writes its estimates (the same rules criterion uses, minus `cargo metadata`).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        PathBuf::from(home)
    } else if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        PathBuf::from(target).join("criterion")
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/criterion")
    }
}

/// Criterion's headline estimate (slope, else mean) and median in ns, when `id` ran in this
/// process (its estimates file is newer than `started`).
fn estimate(group: &str, id: &str, started: SystemTime) -> Option<(f64, f64)> {
    let path = criterion_dir()
        .join(group)
        .join(id)
        .join("new/estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < started {
        return None;
    }
    let json: Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    let point = |key: &str| json.get(key)?.get("point_estimate")?.as_f64();
    let headline = point("slope").or_else(|| point("mean"))?;
    Some((headline, point("median")?))
}

fn main() {
    let started = SystemTime::now();
    let hooks = registry();
    let session = hooks.session("bench");
    let turn = session.begin_turn();

    // The three variants agree before anything is timed.
    let expected = Flow::Continue(tool_call());
    assert_eq!(turn.intercept_tool_call(tool_call()), expected);
    assert_eq!(fn_pointers(&GUARDS, tool_call()), expected);
    assert_eq!(direct(tool_call()), expected);
    let blocked = turn.intercept_tool_call(ToolCall::new("read_file", json!({"path": "a/.env"})));
    assert!(blocked.is_blocked());

    // Allocations of one all-pass dispatch: the call is built before counting, the result dropped
    // after.
    let call = tool_call();
    let (turn_allocs, flow) = allocations(|| turn.intercept_tool_call(call));
    drop(flow);
    let call = tool_call();
    let (pointer_allocs, flow) = allocations(|| fn_pointers(&GUARDS, call));
    drop(flow);
    let (build_allocs, call) = allocations(tool_call);
    drop(call);

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
        .configure_from_args();
    benches(&mut c, &turn);
    c.final_summary();
    // `cargo bench` passes `--bench`; without it (`cargo test --benches`, `--list`) criterion only
    // checks that each benchmark runs, and so does this binary.
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list" || a == "--test") {
        return;
    }

    println!();
    println!(
        "allocations per all-pass dispatch: Turn {turn_allocs}, fn pointers {pointer_allocs} \
         (building the ToolCall: {build_allocs})"
    );
    let empty = HooksBuilder::new().build().expect("no hooks");
    let empty_session = empty.session("bench-empty");
    let empty_turn = empty_session.begin_turn();
    let (rounds, batch) = (500, 400);
    let measured = interleaved(&turn, &empty_turn, rounds, batch);
    for (group, [turn_ns, pointers_ns, direct_ns]) in GROUPS.iter().zip(measured.groups) {
        println!(
            "{group}, interleaved ({rounds} rounds x {batch} calls, medians): Turn {turn_ns:.1} ns, \
             fn pointers {pointers_ns:.1} ns, direct {direct_ns:.1} ns | Turn/fn-pointer {:.3}, \
             Turn/direct {:.3}",
            turn_ns / pointers_ns,
            turn_ns / direct_ns,
        );
    }
    let [_, [turn_10, pointers_10, _]] = measured.groups;
    let [turn_0, pointers_0] = measured.empty;
    println!(
        "dispatch_only, split: per dispatch (empty chain) Turn {turn_0:.1} ns, fn pointers \
         {pointers_0:.1} ns | per hook Turn {:.2} ns, fn pointers {:.2} ns",
        (turn_10 - turn_0) / 10.0,
        (pointers_10 - pointers_0) / 10.0,
    );
    for group in GROUPS {
        let (Some(turn), Some(pointers), Some(direct)) = (
            estimate(group, TURN, started),
            estimate(group, FN_POINTERS, started),
            estimate(group, DIRECT, started),
        ) else {
            continue;
        };
        println!(
            "{group}: Turn {:.1} ns, fn pointers {:.1} ns, direct {:.1} ns | \
             Turn/fn-pointer {:.3} (median {:.3}), Turn/direct {:.3} (median {:.3})",
            turn.0,
            pointers.0,
            direct.0,
            turn.0 / pointers.0,
            turn.1 / pointers.1,
            turn.0 / direct.0,
            turn.1 / direct.1,
        );
    }
    drop(turn);
}
