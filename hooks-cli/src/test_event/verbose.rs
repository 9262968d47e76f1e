//! `test --verbose`: per external hook in chain order, the exact JSON it was sent and its exit
//! code, stdout and stderr, or why nothing came back.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use hookchain_core::SessionState;
use hookchain_external::RawOutput;
use hookchain_external::hook;

/// One exchange of an external hook, as `--verbose` prints it.
struct Seen {
    hook: String,
    payload: String,
    answer: Result<RawOutput, String>,
}

/// The exchanges of the external hooks that run in a session, recorded as they happen.
pub(crate) struct Exchanges(Arc<Mutex<Vec<Seen>>>);

impl Exchanges {
    /// Records every exchange of the external hooks that run in `session`.
    pub(crate) fn tap(session: &SessionState) -> Exchanges {
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let log = seen.clone();
        hook::tap(session, move |exchange| {
            let seen = Seen {
                hook: exchange.hook.to_owned(),
                payload: String::from_utf8_lossy(exchange.payload).into_owned(),
                answer: exchange.answer.cloned().map_err(ToString::to_string),
            };
            log.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(seen);
        });
        Exchanges(seen)
    }

    /// The lines `--verbose` prints for what was recorded, in chain order.
    pub(crate) fn lines(&self) -> String {
        let seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        verbose_lines(&seen)
    }
}

/// The lines `--verbose` prints for `seen`, in chain order.
fn verbose_lines(seen: &[Seen]) -> String {
    let mut text = String::new();
    if seen.is_empty() {
        text.push_str("sent: nothing (no external hook ran)\n");
    }
    for exchange in seen {
        let _ = writeln!(text, "sent to `{}`: {}", exchange.hook, exchange.payload);
        match &exchange.answer {
            Ok(raw) => {
                let code = raw
                    .exit_code
                    .map_or_else(|| "none (not a command)".to_owned(), |c| c.to_string());
                let _ = writeln!(text, "  exit code: {code}");
                for (stream, bytes) in [("stdout", &raw.stdout), ("stderr", &raw.stderr)] {
                    let shown = String::from_utf8_lossy(bytes);
                    if shown.trim().is_empty() {
                        let _ = writeln!(text, "  {stream}: (empty)");
                    }
                    for line in shown.lines() {
                        let _ = writeln!(text, "  {stream}: {line}");
                    }
                }
            }
            Err(error) => {
                let _ = writeln!(text, "  no answer: {error}");
            }
        }
    }
    text
}
