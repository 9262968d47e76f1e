//! A `command` firing leaves nothing behind in the agent: no thread, no file descriptor, even
//! when the hook starts a process that leaves its group (`setsid`) and keeps the hook's stdout
//! and stderr open; and a `process` worker costs no thread, only its descriptors, which close
//! with it. One test in this file, so that no other test's threads or descriptors are counted.

#![cfg(unix)]

mod support;

use std::time::Duration;

use hookchain_external::Invoke;
use hookchain_external::command::CommandHook;
use hookchain_external::process::ProcessHook;

use support::{gone, read_pid, shell, spec, temp_dir, threads_and_fds};

/// Waits (bounded) until the counts are back to `before`; returns the last counts seen.
fn settle(before: (usize, usize)) -> (usize, usize) {
    let mut now = threads_and_fds();
    for _ in 0..100 {
        if now == before {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        now = threads_and_fds();
    }
    now
}

#[test]
fn a_setsid_grandchild_holding_the_pipes_leaks_no_thread_and_no_fd() {
    let dir = temp_dir();
    // The grandchild leaves the hook's process group, so the group kill cannot reach it; it keeps
    // writing to the hook's stdout and stderr for up to 10 s, and ends when a write fails.
    let hook_for = |n: usize| {
        let pid_file = dir.path().join(format!("grandchild-{n}.pid"));
        let line = format!(
            "echo '{{}}'; setsid sh -c 'i=0; while [ $i -lt 100 ]; do echo tick || exit 0; \
             echo tick >&2 || exit 0; sleep 0.1; i=$((i+1)); done' & echo $! > {}",
            pid_file.display()
        );
        let hook = CommandHook::new(shell(&line)).unwrap();
        (hook, pid_file)
    };

    // Warm up (lazy statics, the first thread-local allocations), then count.
    let (warm, warm_pid) = hook_for(0);
    warm.invoke(b"{}", Duration::from_secs(10)).unwrap();
    let before = settle(threads_and_fds());
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
    drop(dir);

    // A process worker: its firings are read by the firing threads themselves, so a running
    // worker holds its pipes and a wake-up socket, and no thread.
    let worker = support::fixture_str("echo_worker.py");
    let hook = ProcessHook::new(spec(&[&worker])).unwrap();
    let before = settle(threads_and_fds());
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
    let running = threads_and_fds();
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
