//! Fault injection: for the `command` and `process` transports, a table of faulty hooks — each
//! fired through a chain under `on_error: block` and `on_error: pass`. For every one the call
//! returns, the outcome honours the policy (blocked, naming the hook; or gone on with the value
//! untouched and the failure reported), and when the suite is over no process it started is left
//! (every hook carries a marker variable; `/proc/*/environ` is scanned for it) and the threads
//! and descriptors of the test process are back to their count.
//!
//! One test in this file, so that no other test's threads, descriptors or processes are counted.

#![cfg(target_os = "linux")]

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hookchain_core::points::InterceptToolCall;
use hookchain_core::{Flow, ToolCall};
use hookchain_external::{
    ConfigOrigin, Dialect, ExternalHook, ExternalHooksExt, Matcher, OnError, Transport,
};
use hookchain_runtime::HooksBuilder;
use serde_json::json;

use support::{shell, threads_and_fds};

/// The variable every hook of the suite (and whatever it starts) carries.
const MARKER: &str = "HOOKCHAIN_FAULT_SUITE";

/// The time limit of a hook that hangs: short, the suite has many.
const LIMIT: Duration = Duration::from_millis(400);

/// A bound on hanging, not a benchmark: generous for a loaded 2-core CI machine.
const HANG_BOUND: Duration = Duration::from_secs(10);

/// A writer that keeps the pipes it inherited, having left the process group; it ends when a
/// write fails (or after 10 s).
const SETSID_TICKER: &str = "setsid sh -c 'i=0; while [ $i -lt 200 ]; do echo tick || exit 0; \
                             echo tick >&2 || exit 0; sleep 0.05; i=$((i+1)); done' &";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Command,
    Process,
}

/// One faulty hook: its shell line, and a piece of the failure it must be reported with.
struct Fault {
    name: &'static str,
    line: String,
    /// Every firing must fail with a message holding one of these.
    expect: &'static [&'static str],
}

fn fault(name: &'static str, line: &str, expect: &'static [&'static str]) -> Fault {
    Fault {
        name,
        line: line.to_owned(),
        expect,
    }
}

/// The faults of a `command` hook (one process per firing).
fn command_faults() -> Vec<Fault> {
    vec![
        fault(
            "exits nonzero",
            "cat >/dev/null; echo oops >&2; exit 1",
            &["exited with code 1"],
        ),
        fault("killed by a signal", "kill -9 $$", &["SIGKILL"]),
        fault("hangs past its limit", "sleep 30", &["timed out"]),
        fault(
            "closes stdout early and hangs",
            "exec >&-; sleep 30",
            &["timed out"],
        ),
        fault("never reads stdin", "exit 1", &["exited with code 1"]),
        fault(
            "prints garbage",
            "echo '{\"decision\": \"block\", oops'",
            &["JSON"],
        ),
        fault("prints partial JSON", "printf '{\"decision\":'", &["JSON"]),
        fault(
            "prints huge output",
            "head -c 2097152 /dev/zero | tr '\\0' x",
            &["printed more than"],
        ),
        fault(
            "spawns a setsid grandchild holding the pipes",
            &format!("{SETSID_TICKER} exit 1"),
            &["exited with code 1"],
        ),
        fault(
            "forks a child that outlives it",
            "sleep 30 & echo '{\"decision\":' ; exit 0",
            &["JSON"],
        ),
    ]
}

/// The faults of a `process` hook (one long-lived worker).
fn process_faults() -> Vec<Fault> {
    vec![
        fault(
            "exits nonzero",
            "echo oops >&2; exit 1",
            &["exited with code 1"],
        ),
        fault("killed by a signal", "kill -9 $$", &["SIGKILL"]),
        fault("hangs past its limit", "sleep 30", &["timed out"]),
        fault(
            "closes stdout early",
            "exec >&-; sleep 30",
            &["closed its stdout"],
        ),
        fault("never reads stdin", "exec 0<&-; sleep 30", &["stdin"]),
        fault(
            "prints garbage",
            "while read -r line; do echo garbage; done",
            &["timed out"],
        ),
        fault(
            "prints partial JSON",
            "read -r line; printf '{\"id\":'; sleep 30",
            &["timed out"],
        ),
        fault(
            "prints huge output",
            "head -c 2097152 /dev/zero | tr '\\0' x; sleep 30",
            &["longer than"],
        ),
        fault(
            "spawns a setsid grandchild holding the pipes",
            &format!("{SETSID_TICKER} exec sleep 30"),
            &["timed out"],
        ),
        fault(
            "forks a child that outlives it",
            "sleep 30 & exit 0",
            // Its stdin has no reader once it exited (the child's is /dev/null): the write fails
            // or, while it is still there, the request is never answered.
            &["stdin", "timed out"],
        ),
    ]
}

fn hook(kind: Kind, fault: &Fault, on_error: OnError) -> ExternalHook {
    let mut spec = shell(&fault.line);
    spec.env = BTreeMap::from([(MARKER.to_owned(), std::process::id().to_string())]);
    ExternalHook {
        point: "intercept_tool_call",
        event: "PreToolUse".to_owned(),
        name: "faulty".to_owned(),
        transport: match kind {
            Kind::Command => Transport::Command(spec),
            Kind::Process => Transport::Process(spec),
        },
        matcher: Matcher::all(),
        timeout: LIMIT,
        priority: 0,
        on_error,
        dialect: Dialect::ClaudeCode,
        required: false,
        origin: ConfigOrigin::file("fault_injection.yaml", Some(1)),
    }
}

/// A tool call with a payload far larger than a pipe holds, so that a hook that does not read
/// its stdin meets the write.
fn big_call() -> ToolCall {
    ToolCall::new("Bash", json!({"command": "x".repeat(2 * 1024 * 1024)}))
}

/// Fires `fault` once under `on_error` and checks the outcome; returns the failure's message.
fn fire(kind: Kind, fault: &Fault, on_error: OnError) -> String {
    let hooks = HooksBuilder::new()
        .external(hook(kind, fault, on_error))
        .build()
        .unwrap();
    let turn = hooks.session("fault-injection").begin_turn();
    let call = big_call();
    let started = Instant::now();
    let outcome = turn.fire::<InterceptToolCall>(call.clone());
    let elapsed = started.elapsed();
    let what = format!("{kind:?} hook that {} (on_error {on_error:?})", fault.name);
    assert!(elapsed < HANG_BOUND, "{what}: took {elapsed:?}");
    assert_eq!(outcome.failures.len(), 1, "{what}: {:?}", outcome.failures);
    let failure = &outcome.failures[0];
    assert_eq!(failure.hook, "faulty");
    assert!(
        fault.expect.iter().any(|e| failure.error.contains(e)),
        "{what}: none of {:?} is in: {}",
        fault.expect,
        failure.error
    );
    match (&outcome.flow, on_error) {
        (Flow::Blocked(blocked), OnError::Block) => {
            assert_eq!(blocked.hook, "faulty", "{what}");
            assert!(
                blocked.reason.contains("faulty"),
                "{what}: {}",
                blocked.reason
            );
        }
        (Flow::Continue(after), OnError::Pass) => assert_eq!(after.args, call.args, "{what}"),
        (flow, _) => panic!("{what}: {flow:?}"),
    }
    drop(turn);
    drop(hooks);
    failure.error.clone()
}

/// The live processes (not zombies) whose environment holds the suite's marker.
fn marked_processes() -> Vec<(u32, String)> {
    let marker = format!("{MARKER}={}", std::process::id());
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if !environ
            .split(|&b| b == 0)
            .any(|var| var == marker.as_bytes())
        {
            continue;
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
        if state.is_some_and(|s| s.starts_with('Z') || s.starts_with('X')) {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        found.push((pid, cmdline));
    }
    found
}

/// The counts, once they have not changed for 200 ms (waiting at most about 3 s).
fn stable_counts() -> (usize, usize) {
    let mut last = threads_and_fds();
    let mut same = 0;
    for _ in 0..150 {
        std::thread::sleep(Duration::from_millis(20));
        let now = threads_and_fds();
        same = if now == last { same + 1 } else { 0 };
        last = now;
        if same == 10 {
            break;
        }
    }
    last
}

/// Polls (bounded) until `done` holds; returns whether it did.
fn settles(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..150 {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

#[test]
fn faulty_hooks_honour_their_policy_and_leave_nothing_behind() {
    let suite = Instant::now();
    // Warm up both transports with a hook that passes, then count.
    let pass = fault("passes", "cat >/dev/null; exit 0", &[]);
    for kind in [Kind::Command, Kind::Process] {
        let hooks = HooksBuilder::new()
            .external(hook(kind, &pass, OnError::Block))
            .build()
            .unwrap();
        let turn = hooks.session("warm-up").begin_turn();
        let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("Bash", json!({})));
        if kind == Kind::Command {
            assert!(matches!(outcome.flow, Flow::Continue(_)), "{outcome:?}");
        }
    }
    assert!(settles(|| marked_processes().is_empty()));
    // The warm-up worker's I/O thread ends on its own time: count once the counts hold still.
    let before = stable_counts();

    let mut cases = 0;
    let mut faults = 0;
    for (kind, table) in [
        (Kind::Command, command_faults()),
        (Kind::Process, process_faults()),
    ] {
        for fault in &table {
            faults += 1;
            for on_error in [OnError::Block, OnError::Pass] {
                let error = fire(kind, fault, on_error);
                cases += 1;
                if on_error == OnError::Block {
                    println!("{kind:?} hook that {}: {error}", fault.name);
                }
            }
        }
    }

    let left = {
        let mut left = Vec::new();
        settles(|| {
            left = marked_processes();
            left.is_empty()
        });
        left
    };
    assert!(
        left.is_empty(),
        "processes of the suite left running: {left:?}"
    );
    let mut after = threads_and_fds();
    settles(|| {
        after = threads_and_fds();
        after == before
    });
    assert_eq!(
        after, before,
        "(threads, descriptors) before the suite {before:?}, after {after:?}"
    );
    println!(
        "fault injection: {faults} faults, {cases} cases (2 transports, on_error block and pass), \
         in {:.1} s; no process left, threads and descriptors back to {before:?}",
        suite.elapsed().as_secs_f64()
    );
}
