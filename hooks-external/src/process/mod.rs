//! The `process` transport: one long-lived worker per hook, JSON lines over its stdin and stdout,
//! so that a firing costs a round trip through two pipes instead of a spawn.
//!
//! # The line protocol
//!
//! hookchain writes one request per line on the worker's stdin:
//!
//! ```text
//! {"id":7,"payload":{"hook_event_name":"intercept_tool_call","tool_name":"shell",…}}
//! ```
//!
//! The worker answers each request with one line on its stdout, in either form:
//!
//! - **the envelope**: `{"id":7,"output":{"decision":"block","reason":"…"}}` — `output` is the
//!   decision object, in any dialect a command hook may print on its stdout; `null` (or no
//!   `output` at all: `{"id":7}`) is a pass, and a string is plain-text output, as a command hook's
//!   non-JSON stdout;
//! - **flat**: `{"id":7,"decision":"block","reason":"…"}` — the decision object itself, with `id`
//!   beside the dialect's fields.
//!
//! A line with an `output` key is an envelope; any other is flat (no dialect has a top-level
//! `output` field). A worker that could not decide — the code it runs raised — answers
//! `{"id":7,"error":"guard.py line 12: KeyError: 'path'"}` (those two keys only, `error` a
//! string): the firing fails with that message ([`TransportError::Failed`]), under the hook's
//! `on_error`, and the worker goes on serving. Ids are unsigned integers, unique per hook. Answers may come in any order:
//! each is routed to its request by id. Blank lines are skipped; a line that is not a JSON object
//! with an unsigned integer `id`, or an answer nobody waits for any more (its request timed out),
//! is logged and dropped. A line longer than [`OUTPUT_CAP`](crate::OUTPUT_CAP) ends the worker.
//! The payload is written on one line: newlines in it — which valid JSON has only as whitespace —
//! are written as spaces.
//!
//! What a firing brings back is a [`RawOutput`] with `exit_code: None`, the decision's JSON in
//! `stdout` (empty for a pass) and an empty `stderr`: the protocol layer reads it like a command
//! hook's stdout.
//!
//! # The life of a worker
//!
//! - **Started lazily** by the first firing ([`ProcessHook::start`] starts it at once), with the
//!   environment, directory and own process group of a [`command`] hook;
//!   [`ProcessHook::new`] checks the program at load time, as [`CommandHook::new`] does.
//! - **Multiplexed.** Any number of threads may fire at once. Each writes its request line (the
//!   pipe is non-blocking: a worker that stops reading cannot hold a firing past its time limit;
//!   the write never raises `SIGPIPE` in the agent, a worker that closed its stdin is an `EPIPE`)
//!   and waits for its answer. No process and no thread is started per request, and the worker
//!   has no thread of its own either: see "Who reads" below.
//! - **A time limit per request; a hung worker is replaced.** A request not answered in time
//!   fails with [`TransportError::Timeout`], and the worker is taken for hung: its process group
//!   is killed, it is reaped, its other pending requests fail with [`TransportError::WorkerDied`]
//!   saying why, and the next firing starts a new worker at once (no backoff: the worker did not
//!   die, it was replaced; each replacement costs a firing its whole time limit). The same
//!   happens to a worker that does not take a request: its stdin is closed, or it stops reading
//!   and the request cannot be written in time. Each replacement is logged as a warning; the
//!   firing's failure goes the way of every hook failure (the hook's `on_error`, the dispatch's
//!   failures).
//! - **Death.** End-of-file on the worker's stdout (it exited, or closed it) or a line past the
//!   cap: the worker's process group is killed and the worker reaped, and every pending request
//!   fails with [`TransportError::WorkerDied`], saying how it ended (exit code or signal) and the
//!   last lines of its stderr.
//! - **Restart with backoff.** The next firing starts a new worker — but after the n-th death in a
//!   row not before [`Backoff::delay`]`(n)` has passed since that death (100 ms doubling up to
//!   30 s by default). Until then firings fail at once with [`TransportError::WorkerDied`],
//!   saying when the restart will be tried. A worker that stayed up for
//!   [`Backoff::healthy_after`] resets the count.
//! - **Who reads: the callers, one at a time.** A firing that waits for its answer takes the
//!   worker's read side if nobody holds it (the *reader*), and waits with `poll(2)` on the
//!   worker's non-blocking stdout and stderr and on a wake-up socket, routing every answer line
//!   to its request by id, until its own answer is in (or its time is up). It then hands the read
//!   side to another waiting firing, if any; the others wait on their own answer meanwhile. So a
//!   round trip wakes only the firing's own thread — no hand-off from an I/O thread — and a
//!   worker costs no thread while it idles. stderr is drained while someone reads, so a chatty
//!   worker never blocks on it for long: each line (cut at 4 KiB) is logged with `tracing` at
//!   debug level under the target `hookchain::external::process`, and the last few are kept for
//!   the death message. Killing a worker (replaced, dropped) wakes the reader, which fails the
//!   pending requests — even when a process the worker left behind with `setsid` holds the pipes
//!   open. A worker that dies while nobody waits on it is found dead by the next firing before
//!   it sends anything (one `waitid` per firing): its end and last words are read then, its
//!   death counts from its last answer, and the firing goes to a new worker. No thread outlives a firing, and no descriptor its
//!   worker.
//! - **Drop** kills the worker's process group and reaps it; its pipes close with it.
//!
//! [`CommandHook::new`]: super::command::CommandHook::new

// `framing`: the JSON lines; `worker`: one running worker and the reading of its output; this
// file: the hook, which starts, restarts and retires its workers.
mod framing;
mod worker;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::command;
use crate::{CommandSpec, Invoke, MAX_TIMEOUT, RawOutput, TransportError};
use framing::request_line;
use worker::{DEATH_GRACE, Slot, Worker};

/// When a dead worker is started again.
///
/// After the n-th death in a row the restart waits [`delay`](Backoff::delay)`(n)`: `initial`,
/// doubling at each death, at most `max`. A worker that stayed up for `healthy_after` before it
/// died starts the count again.
///
/// ```
/// use std::time::Duration;
/// use hookchain::external::process::Backoff;
///
/// let backoff = Backoff::default();
/// assert_eq!(backoff.delay(1), Duration::from_millis(100));
/// assert_eq!(backoff.delay(3), Duration::from_millis(400));
/// assert_eq!(backoff.delay(40), Duration::from_secs(30));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The wait after the first death (100 ms by default; zero restarts at once).
    pub initial: Duration,
    /// The longest wait (30 s by default).
    pub max: Duration,
    /// How long a worker must have stayed up for its death to count as the first in a row
    /// (60 s by default).
    pub healthy_after: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_secs(30),
            healthy_after: Duration::from_secs(60),
        }
    }
}

impl Backoff {
    /// The wait before restarting after the `deaths`-th death in a row (1 for the first).
    pub fn delay(&self, deaths: u32) -> Duration {
        let doublings = deaths.saturating_sub(1).min(31);
        self.initial.saturating_mul(1 << doublings).min(self.max)
    }
}

/// A hook served by one long-lived worker process (see the [module docs](self) for the line
/// protocol and the worker's life).
///
/// ```no_run
/// use std::time::Duration;
/// use hookchain::external::process::ProcessHook;
/// use hookchain::external::{CommandSpec, Invoke};
///
/// let hook = ProcessHook::new(CommandSpec {
///     argv: vec!["python3".into(), "hooks/worker.py".into()],
///     display: "python3 hooks/worker.py".into(),
///     env: Default::default(),
///     working_dir: None,
///     env_clear: false,
///     env_allow: Vec::new(),
/// })?;
/// hook.start()?; // optional: the first firing starts the worker otherwise
/// let out = hook.invoke(br#"{"hook_event_name":"intercept_tool_call"}"#, Duration::from_secs(5))?;
/// println!("decision: {}", String::from_utf8_lossy(&out.stdout));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ProcessHook {
    spec: CommandSpec,
    program: PathBuf,
    backoff: Backoff,
    next_id: AtomicU64,
    supervisor: Mutex<Supervisor>,
}

/// The current worker, and what is known of the deaths of the previous ones.
#[derive(Default)]
struct Supervisor {
    worker: Option<Arc<Worker>>,
    /// Deaths in a row (reset by a worker that stayed up long enough).
    deaths: u32,
    /// No restart before this.
    retry_at: Option<Instant>,
    /// How the last worker ended.
    last_death: String,
}

impl Supervisor {
    fn record_death(&mut self, reason: &str, lived: Duration, at: Instant, backoff: &Backoff) {
        if lived >= backoff.healthy_after {
            self.deaths = 0;
        }
        self.deaths = self.deaths.saturating_add(1);
        self.retry_at = Some(at + backoff.delay(self.deaths));
        self.last_death = reason.to_owned();
    }
}

impl std::fmt::Debug for ProcessHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessHook")
            .field("command", &self.spec.display)
            .field("program", &self.program)
            .field("backoff", &self.backoff)
            .field("pid", &self.pid())
            .finish()
    }
}

impl ProcessHook {
    /// Checks the command (as [`command::resolve_program`] does: a missing or non-executable
    /// program is an error here, at load time) and returns the hook. The worker is not started
    /// yet: the first firing, or [`start`](ProcessHook::start), starts it.
    pub fn new(spec: CommandSpec) -> Result<ProcessHook, TransportError> {
        let program = command::resolve_program(&spec)?;
        Ok(ProcessHook {
            spec,
            program,
            backoff: Backoff::default(),
            next_id: AtomicU64::new(1),
            supervisor: Mutex::new(Supervisor::default()),
        })
    }

    /// Restarts dead workers with `backoff` instead of [`Backoff::default`].
    pub fn with_backoff(mut self, backoff: Backoff) -> ProcessHook {
        self.backoff = backoff;
        self
    }

    /// The command as configured.
    pub fn spec(&self) -> &CommandSpec {
        &self.spec
    }

    /// The file that runs: the program resolved when the hook was loaded.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// Starts the worker now if none is running (subject to the backoff after a death).
    pub fn start(&self) -> Result<(), TransportError> {
        self.worker(Instant::now() + MAX_TIMEOUT, MAX_TIMEOUT)
            .map(drop)
    }

    /// The pid of the running worker (also its process group id), if one is running.
    pub fn pid(&self) -> Option<u32> {
        let supervisor = self.supervisor.lock();
        let worker = supervisor.worker.as_ref()?;
        (worker.death().is_none() && !worker.has_exited()).then_some(worker.pid)
    }

    /// The running worker, started (again) if need be.
    fn worker(&self, deadline: Instant, timeout: Duration) -> Result<Arc<Worker>, TransportError> {
        let mut supervisor = self
            .supervisor
            .try_lock_until(deadline)
            .ok_or(TransportError::Timeout(timeout))?;
        if let Some(worker) = &supervisor.worker {
            // A worker that exited while nobody waited on it: read its end now, so that this
            // firing goes to a new one.
            if worker.death().is_none() && worker.has_exited() {
                worker.collect_death();
            }
            match worker.death() {
                None => return Ok(Arc::clone(worker)),
                Some(death) => {
                    let lived = death.at.saturating_duration_since(worker.started);
                    supervisor.worker = None;
                    supervisor.record_death(&death.reason, lived, death.at, &self.backoff);
                }
            }
        }
        let now = Instant::now();
        if let Some(retry_at) = supervisor.retry_at
            && now < retry_at
        {
            return Err(TransportError::WorkerDied {
                command: self.spec.display.clone(),
                reason: format!(
                    "{}; restarting in {}",
                    supervisor.last_death,
                    human(retry_at - now)
                ),
            });
        }
        match Worker::spawn(&self.spec, &self.program) {
            Ok(worker) => {
                if supervisor.deaths > 0 {
                    tracing::info!(
                        worker = %self.spec.display,
                        pid = worker.pid,
                        "process hook worker restarted after {} death(s) in a row",
                        supervisor.deaths
                    );
                }
                supervisor.worker = Some(Arc::clone(&worker));
                Ok(worker)
            }
            Err(e) => {
                let reason = e.to_string();
                supervisor.record_death(&reason, Duration::ZERO, Instant::now(), &self.backoff);
                Err(e)
            }
        }
    }
}

impl Invoke for ProcessHook {
    fn invoke(&self, payload: &[u8], timeout: Duration) -> Result<RawOutput, TransportError> {
        let timeout = timeout.min(MAX_TIMEOUT);
        let deadline = Instant::now() + timeout;
        let worker = self.worker(deadline, timeout)?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot::default());
        worker.register(id, &slot)?;
        if let Err(e) = worker.send(&request_line(id, payload), deadline, timeout) {
            if matches!(e, TransportError::WorkerDied { .. }) {
                // Its stdin is closed: the worker is going. Reading it to its end fails this
                // request with how it ended (exit code, last words) — better than "broken pipe".
                let wait = deadline.min(Instant::now() + 3 * DEATH_GRACE);
                if let Some(answer) = worker.await_answer(&slot, wait) {
                    return answer;
                }
            }
            worker.forget(id);
            if let Some(answer) = slot.take() {
                return answer;
            }
            // Still up, but it does not take requests: it closed its stdin, or stopped reading.
            let why = match &e {
                TransportError::Timeout(_) => {
                    format!("did not read request {id} within {}", human(timeout))
                }
                _ => format!("did not take request {id} ({e})"),
            };
            self.replace(&worker, why);
            return Err(e);
        }
        if let Some(answer) = worker.await_answer(&slot, deadline) {
            return answer;
        }
        // Out of time. Once forgotten, nobody can answer any more: look one last time.
        worker.forget(id);
        if let Some(answer) = slot.take() {
            return answer;
        }
        self.replace(
            &worker,
            format!("did not answer request {id} within {}", human(timeout)),
        );
        Err(TransportError::Timeout(timeout))
    }
}

impl ProcessHook {
    /// Kills `worker` (still running, but hung or deaf) and lets the next firing start a new one
    /// at once; its other pending requests fail with `why`.
    fn replace(&self, worker: &Arc<Worker>, why: String) {
        if worker.death().is_some() {
            return;
        }
        {
            let mut supervisor = self.supervisor.lock();
            if supervisor
                .worker
                .as_ref()
                .is_some_and(|current| Arc::ptr_eq(current, worker))
            {
                supervisor.worker = None;
            }
        }
        tracing::warn!(
            worker = %self.spec.display,
            pid = worker.pid,
            "process hook worker {why}: killed, the next firing starts a new one"
        );
        worker.retire(format!("{why}; it was killed and is replaced"));
    }
}

impl Drop for ProcessHook {
    fn drop(&mut self) {
        if let Some(worker) = self.supervisor.get_mut().worker.take() {
            worker.stop();
        }
    }
}

/// `"250 ms"`, `"1.5 s"`.
fn human(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis().max(1))
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_max() {
        let backoff = Backoff {
            initial: Duration::from_millis(10),
            max: Duration::from_millis(50),
            healthy_after: Duration::from_secs(1),
        };
        let delays: Vec<u128> = (1..=5).map(|n| backoff.delay(n).as_millis()).collect();
        assert_eq!(delays, [10, 20, 40, 50, 50]);
        assert_eq!(backoff.delay(u32::MAX), Duration::from_millis(50));
    }
}
