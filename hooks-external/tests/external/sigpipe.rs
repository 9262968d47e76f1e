//! Writing a payload to a hook that does not read it never raises `SIGPIPE` in the agent.
//!
//! Rust programs ignore `SIGPIPE`; C and C++ hosts (and programs embedding hookchain through FFI)
//! keep its default action, which kills the process. Each test re-runs itself alone in a child
//! process that puts the default action back, so that neither the test harness nor the tests
//! beside it are ever at risk: the child is killed by `SIGPIPE` when a write raises it.

#![cfg(unix)]

use std::time::Duration;

use hookchain_external::command::CommandHook;
use hookchain_external::process::ProcessHook;
use hookchain_external::{Invoke, TransportError};

use crate::support::{self, shell};

/// Set in the child process: it runs the firings instead of spawning a child.
const CHILD: &str = "HOOKCHAIN_TEST_SIGPIPE_CHILD";

/// Runs `test` (the path of a test of this file) alone in a child process with `SIGPIPE`'s
/// default action and asserts that it exits well.
fn in_child_with_default_sigpipe(test: &str) {
    let out = support::run_alone(test, &[(CHILD, "1")]);
    use std::os::unix::process::ExitStatusExt;
    assert!(
        out.status.success(),
        "the child {}: {}{}",
        match out.status.signal() {
            Some(libc::SIGPIPE) => "was killed by SIGPIPE".to_owned(),
            _ => format!("ended with {}", out.status),
        },
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn default_sigpipe() {
    // SAFETY: signal() with SIG_DFL installs no handler; this child process exists for it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Far more than a pipe holds, so the write meets the closed pipe.
fn big_payload() -> Vec<u8> {
    let mut payload = b"{\"prompt\":\"".to_vec();
    payload.resize(4 * 1024 * 1024, b'x');
    payload.extend_from_slice(b"\"}");
    payload
}

#[test]
fn a_command_hook_that_exits_without_reading_raises_no_sigpipe() {
    if std::env::var_os(CHILD).is_none() {
        return in_child_with_default_sigpipe(concat!(
            module_path!(),
            "::a_command_hook_that_exits_without_reading_raises_no_sigpipe"
        ));
    }
    default_sigpipe();
    let hook = CommandHook::new(shell("exit 0")).unwrap();
    let payload = big_payload();
    for _ in 0..5 {
        let out = hook.invoke(&payload, Duration::from_secs(10)).unwrap();
        assert_eq!(out.exit_code, Some(0));
    }
    // The signal mask is as it was: SIGPIPE is not left blocked.
    assert!(!sigpipe_blocked());
}

#[test]
fn a_worker_that_closed_its_stdin_raises_no_sigpipe() {
    if std::env::var_os(CHILD).is_none() {
        return in_child_with_default_sigpipe(concat!(
            module_path!(),
            "::a_worker_that_closed_its_stdin_raises_no_sigpipe"
        ));
    }
    default_sigpipe();
    // The worker closes its stdin at once and stays up.
    let hook = ProcessHook::new(shell("exec 0<&-; sleep 5")).unwrap();
    hook.start().unwrap();
    let payload = big_payload();
    for _ in 0..3 {
        match hook.invoke(&payload, Duration::from_secs(2)) {
            Err(TransportError::WorkerDied { .. }) | Err(TransportError::Timeout(_)) => {}
            other => panic!("{other:?}"),
        }
    }
    assert!(!sigpipe_blocked());
}

fn sigpipe_blocked() -> bool {
    // SAFETY: all-zero sigset_t values are valid; pthread_sigmask with a null new set only reads
    // this thread's mask into `mask`.
    unsafe {
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask);
        libc::sigismember(&mask, libc::SIGPIPE) == 1
    }
}
