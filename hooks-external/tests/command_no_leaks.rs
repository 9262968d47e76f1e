//! A `command` firing leaves nothing behind in the agent: no thread, no file descriptor, even
//! when the hook starts a process that leaves its group (`setsid`) and keeps the hook's stdout
//! and stderr open; and a `process` worker costs no thread, only its descriptors, which close
//! with it. One test in this file, so that no other test's threads or descriptors are counted.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_external::command::{CommandHook, shell_argv};
use hookchain_external::process::ProcessHook;
use hookchain_external::{CommandSpec, Invoke};

/// How many entries `dir` (`/proc/self/task` or `/proc/self/fd`) has.
fn entries(dir: &str) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

/// Threads and descriptors of this process.
fn counts() -> (usize, usize) {
    (entries("/proc/self/task"), entries("/proc/self/fd"))
}

/// Waits (bounded) until the counts are back to `before`; returns the last counts seen.
fn settle(before: (usize, usize)) -> (usize, usize) {
    let mut now = counts();
    for _ in 0..100 {
        if now == before {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        now = counts();
    }
    now
}

/// Whether `pid` is gone: no such process, or a zombie.
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| state == 'Z' || state == 'X'),
    }
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hookchain-no-leaks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read_pid(file: &Path) -> i32 {
    for _ in 0..250 {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no pid in {}", file.display());
}

#[test]
fn a_setsid_grandchild_holding_the_pipes_leaks_no_thread_and_no_fd() {
    let dir = temp_dir();
    // The grandchild leaves the hook's process group, so the group kill cannot reach it; it keeps
    // writing to the hook's stdout and stderr for up to 10 s, and ends when a write fails.
    let hook_for = |n: usize| {
        let pid_file = dir.join(format!("grandchild-{n}.pid"));
        let line = format!(
            "echo '{{}}'; setsid sh -c 'i=0; while [ $i -lt 100 ]; do echo tick || exit 0; \
             echo tick >&2 || exit 0; sleep 0.1; i=$((i+1)); done' & echo $! > {}",
            pid_file.display()
        );
        let hook = CommandHook::new(CommandSpec {
            argv: shell_argv(&line),
            display: line,
            env: BTreeMap::new(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        })
        .unwrap();
        (hook, pid_file)
    };

    // Warm up (lazy statics, the first thread-local allocations), then count.
    let (warm, warm_pid) = hook_for(0);
    warm.invoke(b"{}", Duration::from_secs(10)).unwrap();
    let before = settle(counts());
    let _ = read_pid(&warm_pid);

    const FIRINGS: usize = 5;
    let mut grandchildren = Vec::new();
    for n in 1..=FIRINGS {
        let (hook, pid_file) = hook_for(n);
        let out = hook.invoke(b"{}", Duration::from_secs(10)).unwrap();
        assert_eq!(out.exit_code, Some(0));
        assert!(out.stdout.starts_with(b"{}\n"), "{:?}", out.stdout);
        grandchildren.push(read_pid(&pid_file));
    }
    let after = settle(before);
    assert_eq!(
        after, before,
        "(threads, fds) before {FIRINGS} firings {before:?}, after {after:?}"
    );
    // Its pipes closed, each grandchild's next write fails and it ends.
    for pid in grandchildren {
        let mut ended = false;
        for _ in 0..150 {
            if gone(pid) {
                ended = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            ended,
            "grandchild {pid} still writes to a pipe nobody reads"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);

    // A process worker: its firings are read by the firing threads themselves, so a running
    // worker holds its pipes and a wake-up socket, and no thread.
    let worker = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/external/echo_worker.py")
        .display()
        .to_string();
    let hook = ProcessHook::new(CommandSpec {
        argv: vec![worker.clone()],
        display: worker,
        env: BTreeMap::new(),
        working_dir: None,
        env_clear: false,
        env_allow: Vec::new(),
    })
    .unwrap();
    let before = settle(counts());
    for n in 0..5 {
        let payload = format!("{{\"n\":{n}}}");
        let out = hook
            .invoke(payload.as_bytes(), Duration::from_secs(30))
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&payload),
            "{:?}",
            out.stdout
        );
    }
    let running = counts();
    assert_eq!(
        running.0, before.0,
        "threads before a worker started {}, while it runs {}",
        before.0, running.0
    );
    // stdin, stdout, stderr and the two ends of the wake-up socket.
    assert_eq!(
        running.1,
        before.1 + 5,
        "descriptors {before:?} -> {running:?}"
    );
    drop(hook);
    let after = settle(before);
    assert_eq!(
        after, before,
        "(threads, fds) after the worker's hook was dropped"
    );
}
