//! Bounds a test in time even when the code under test blocks the thread it runs on (where
//! `tokio::time::timeout` cannot fire): a watchdog thread ends the whole test process, with a
//! message, if the guard is still alive at the deadline.

use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// Ends the process with exit code 101 unless dropped within `limit`.
#[must_use = "the deadline holds while the guard lives"]
pub struct Deadline {
    _done: mpsc::Sender<()>,
}

/// Starts a watchdog for `what`.
pub fn deadline(what: &'static str, limit: Duration) -> Deadline {
    let (done, rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(limit) {
            // Straight to the process's stderr: the test harness captures `eprintln!`, and the
            // capture would be lost with the process.
            let _ = writeln!(
                std::io::stderr(),
                "`{what}` still running after {limit:?}: it hangs"
            );
            std::process::exit(101);
        }
    });
    Deadline { _done: done }
}
