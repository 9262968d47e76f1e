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
//! `output` field). Ids are unsigned integers, unique per hook. Answers may come in any order:
//! each is routed to its request by id. Blank lines are skipped; a line that is not a JSON object
//! with an unsigned integer `id`, or an answer nobody waits for any more (its request timed out),
//! is logged and dropped. A line longer than [`OUTPUT_CAP`] ends the worker. The payload is
//! written on one line: newlines in it — which valid JSON has only as whitespace — are written as
//! spaces.
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

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read};
use std::net::Shutdown;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use serde_json::Value;

use super::command::{self, Group, describe_status};
use super::pipe;
use super::{CommandSpec, Invoke, MAX_TIMEOUT, OUTPUT_CAP, RawOutput, TransportError};

/// The longest stderr line logged whole; longer ones are cut.
const STDERR_LINE_CAP: usize = 4 * 1024;

/// The longest a firing waits for its answer without looking whether it should take the
/// worker's read side: it is told when the reader lets go, so this is only a bound in case it
/// was told just before it began to wait.
const FOLLOWER_WAIT: Duration = Duration::from_millis(20);

/// How many of the last stderr lines a death message quotes.
const STDERR_TAIL_LINES: usize = 5;

/// How long a worker whose stdout closed may take to become reapable, so that its exit status
/// can be told; and how long its last stderr lines may take to arrive.
const DEATH_GRACE: Duration = Duration::from_millis(100);

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

/// Where one request's answer is left for its caller.
#[derive(Default)]
struct Slot {
    state: Mutex<SlotState>,
    ready: Condvar,
}

#[derive(Default)]
struct SlotState {
    answer: Option<Result<RawOutput, TransportError>>,
    /// The reader let go of the worker's read side: this slot's caller should take it.
    lead: bool,
}

impl Slot {
    fn fill(&self, answer: Result<RawOutput, TransportError>) {
        self.state.lock().answer = Some(answer);
        self.ready.notify_one();
    }

    /// Tells the caller that the read side is free.
    fn offer_lead(&self) {
        self.state.lock().lead = true;
        self.ready.notify_one();
    }

    /// Waits until the answer is in, the read side is offered, or `until`; `Some` with the answer
    /// when it is in.
    fn wait(&self, until: Instant) -> Option<Result<RawOutput, TransportError>> {
        let mut state = self.state.lock();
        if state.answer.is_none() && !state.lead {
            self.ready.wait_until(&mut state, until);
        }
        state.lead = false;
        state.answer.take()
    }

    fn take(&self) -> Option<Result<RawOutput, TransportError>> {
        self.state.lock().answer.take()
    }

    fn is_answered(&self) -> bool {
        self.state.lock().answer.is_some()
    }
}

#[derive(Clone)]
struct Death {
    reason: String,
    at: Instant,
}

/// The requests waiting for an answer, and whether the worker died.
#[derive(Default)]
struct Pending {
    waiting: HashMap<u64, Arc<Slot>>,
    death: Option<Death>,
}

/// The write end of the worker's stdin.
struct Feed {
    stdin: ChildStdin,
    /// What is left of a line whose writer ran out of time halfway: written before anything else,
    /// so that lines never interleave.
    tail: Vec<u8>,
}

/// One running worker: its pipes, its pending requests, its process group.
struct Worker {
    command: String,
    pid: u32,
    started: Instant,
    feed: Mutex<Feed>,
    pending: Mutex<Pending>,
    group: Mutex<Group>,
    stderr_tail: Mutex<VecDeque<String>>,
    /// Set when the hook is dropped: the death that follows is expected.
    stopping: AtomicBool,
    /// Why the worker was replaced while it still ran (a request it did not answer in time, a
    /// stdin it closed): the reason its pending requests fail with.
    retired: Mutex<Option<String>>,
    /// When the worker last answered, in milliseconds since it started.
    last_seen_ms: AtomicU64,
    /// Shut down to wake the reader, so that it stops even while someone else (a process the
    /// worker left behind with `setsid`) holds the worker's pipes open.
    wake: UnixStream,
    /// The read side, held by the firing that reads for everyone (see the module docs).
    reader: Mutex<Reader>,
}

/// The worker's read side: its stdout and stderr, the lines read so far, and the wake-up socket.
struct Reader {
    stdout: ChildStdout,
    stderr: ChildStderr,
    woken: UnixStream,
    answers: Lines,
    errors: Lines,
    chunk: Vec<u8>,
    stderr_open: bool,
    /// The worker's death was recorded: nothing more is read.
    done: bool,
}

impl Worker {
    fn spawn(spec: &CommandSpec, program: &Path) -> Result<Arc<Worker>, TransportError> {
        let mut cmd = command::command(spec, program)?;
        let mut group = Group::spawn(&mut cmd, &spec.display)?;
        let child = group.child();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(TransportError::Io(format!(
                "no pipes to the worker `{}`",
                spec.display
            )));
        };
        for fd in [stdin.as_raw_fd(), stdout.as_raw_fd(), stderr.as_raw_fd()] {
            pipe::set_nonblocking(fd).map_err(|e| {
                TransportError::Io(format!(
                    "cannot set up the pipes of `{}`: {e}",
                    spec.display
                ))
            })?;
        }
        let (wake, woken) = UnixStream::pair().map_err(|e| {
            TransportError::Io(format!("cannot set up the worker `{}`: {e}", spec.display))
        })?;
        let worker = Arc::new(Worker {
            command: spec.display.clone(),
            pid: group.pid(),
            started: Instant::now(),
            last_seen_ms: AtomicU64::new(0),
            feed: Mutex::new(Feed {
                stdin,
                tail: Vec::new(),
            }),
            pending: Mutex::default(),
            group: Mutex::new(group),
            stderr_tail: Mutex::default(),
            stopping: AtomicBool::new(false),
            retired: Mutex::new(None),
            wake,
            reader: Mutex::new(Reader {
                stdout,
                stderr,
                woken,
                answers: Lines::new(OUTPUT_CAP),
                errors: Lines::new(STDERR_LINE_CAP),
                chunk: vec![0; 64 * 1024],
                stderr_open: true,
                done: false,
            }),
        });
        tracing::debug!(worker = %worker.command, pid = worker.pid, "process hook worker started");
        Ok(worker)
    }

    fn death(&self) -> Option<Death> {
        self.pending.lock().death.clone()
    }

    /// Whether the worker's process has exited (not reaped yet: its death not recorded yet).
    fn has_exited(&self) -> bool {
        self.group.lock().exited_within(Duration::ZERO)
    }

    /// Records the death of a worker that exited while nobody waited on it: reads its last
    /// answers and words to the end of its output (killing what it left holding its pipes past
    /// [`DEATH_GRACE`]). Its death counts from when it was last seen alive, as it would have
    /// had a firing been waiting.
    fn collect_death(&self) {
        let Some(mut reader) = self.reader.try_lock_for(DEATH_GRACE) else {
            // Someone reads: they will meet its end.
            return;
        };
        let nobody = Slot::default();
        self.read_until(&mut reader, &nobody, Instant::now() + DEATH_GRACE);
        if !reader.done {
            // Its output is held open by something it left behind: end that too.
            self.retire("exited, leaving its pipes open".to_owned());
            self.read_until(&mut reader, &nobody, Instant::now() + DEATH_GRACE);
        }
        let seen = Duration::from_millis(self.last_seen_ms.load(Ordering::Relaxed));
        if let Some(death) = &mut self.pending.lock().death {
            death.at = self.started + seen;
        }
    }

    /// Waits for the answer to `id` in `slot`; fails when the worker is dead already.
    fn register(&self, id: u64, slot: &Arc<Slot>) -> Result<(), TransportError> {
        let mut pending = self.pending.lock();
        if let Some(death) = &pending.death {
            return Err(self.died(death.reason.clone()));
        }
        pending.waiting.insert(id, Arc::clone(slot));
        Ok(())
    }

    fn forget(&self, id: u64) {
        self.pending.lock().waiting.remove(&id);
    }

    fn died(&self, reason: String) -> TransportError {
        TransportError::WorkerDied {
            command: self.command.clone(),
            reason,
        }
    }

    /// Waits until the worker's stdin (`fd`) can be written to; `false` when `deadline` passed.
    /// While it waits it reads for everyone if the read side is free: a worker that stops
    /// reading its stdin may be ending, and its end is seen on its stdout (which fails the
    /// pending requests, this one among them, and closes the stdin: the next write fails).
    fn wait_writable(&self, fd: std::os::fd::RawFd, deadline: Instant) -> bool {
        loop {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            let Some(mut reader) = self.reader.try_lock().filter(|r| !r.done) else {
                return pipe::wait_writable(fd, deadline.min(now + FOLLOWER_WAIT))
                    || Instant::now() < deadline;
            };
            let stdin = pipe::pollfd(fd, libc::POLLOUT);
            match self.read_step(&mut reader, deadline - now, Some(stdin)) {
                Step::Waited { also_ready: true } => return true,
                Step::Waited { also_ready: false } => {}
                Step::Ended(why) => {
                    self.finish(&mut reader, why);
                    return true;
                }
            }
        }
    }

    /// Writes `line` to the worker's stdin, giving up at `deadline`.
    fn send(
        &self,
        line: &[u8],
        deadline: Instant,
        timeout: Duration,
    ) -> Result<(), TransportError> {
        let mut feed = self
            .feed
            .try_lock_until(deadline)
            .ok_or(TransportError::Timeout(timeout))?;
        let feed = &mut *feed;
        let fd = feed.stdin.as_raw_fd();
        let joined;
        let mut rest: &[u8] = if feed.tail.is_empty() {
            line
        } else {
            feed.tail.extend_from_slice(line);
            joined = std::mem::take(&mut feed.tail);
            &joined
        };
        while !rest.is_empty() {
            match pipe::write(&feed.stdin, rest) {
                Ok(0) => return Err(self.died("its stdin accepts nothing".to_owned())),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !self.wait_writable(fd, deadline) {
                        // Keep what must still be written for the line in the pipe to be whole;
                        // a line not begun is dropped (its caller is gone).
                        let unsent = rest.len().saturating_sub(line.len());
                        feed.tail = if rest.len() > line.len() {
                            rest[..unsent].to_vec()
                        } else if rest.len() == line.len() {
                            Vec::new()
                        } else {
                            rest.to_vec()
                        };
                        return Err(TransportError::Timeout(timeout));
                    }
                }
                Err(e) => return Err(self.died(format!("cannot write to its stdin: {e}"))),
            }
        }
        Ok(())
    }

    /// Waits until `slot` holds its answer (`Some`), or `deadline` (`None`), reading for
    /// everyone whenever the read side is free.
    fn await_answer(
        &self,
        slot: &Slot,
        deadline: Instant,
    ) -> Option<Result<RawOutput, TransportError>> {
        loop {
            if let Some(mut reader) = self.reader.try_lock() {
                self.read_until(&mut reader, slot, deadline);
                drop(reader);
                self.pass_lead(slot);
                if let Some(answer) = slot.take() {
                    return Some(answer);
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return slot.take();
            }
            if let Some(answer) = slot.wait(deadline.min(now + FOLLOWER_WAIT)) {
                return Some(answer);
            }
        }
    }

    /// Offers the read side to one firing, other than `own`'s, still waiting for its answer.
    fn pass_lead(&self, own: &Slot) {
        let pending = self.pending.lock();
        let next = pending.waiting.values().find(|s| !std::ptr::eq(&***s, own));
        if let Some(next) = next {
            next.offer_lead();
        }
    }

    /// As the reader: routes every answer line on stdout to its request and logs stderr, until
    /// `slot` is answered, `deadline` passes, or the worker ends (then its death is recorded and
    /// every pending request fails: [`finish`](Worker::finish)).
    fn read_until(&self, reader: &mut Reader, slot: &Slot, deadline: Instant) {
        while !reader.done && !slot.is_answered() {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            if let Step::Ended(why) = self.read_step(reader, deadline - now, None) {
                self.finish(reader, why);
            }
        }
    }

    /// One wait of the reader, of at most `timeout`, on the wake-up socket, stdout, stderr and
    /// `also` (a descriptor someone else waits on); then reads what is ready and routes the
    /// answers. [`Step::Ended`] when the worker ended: stdout closed (`None`), or it printed a
    /// line too long, was stopped or replaced, or cannot be read (`Some(why)`).
    fn read_step(
        &self,
        reader: &mut Reader,
        timeout: Duration,
        also: Option<libc::pollfd>,
    ) -> Step {
        let stderr = if reader.stderr_open {
            reader.stderr.as_raw_fd()
        } else {
            -1
        };
        let mut fds = [
            pipe::pollfd(reader.woken.as_raw_fd(), libc::POLLIN),
            pipe::pollfd(reader.stdout.as_raw_fd(), libc::POLLIN),
            pipe::pollfd(stderr, libc::POLLIN),
            also.unwrap_or(pipe::pollfd(-1, 0)),
        ];
        if let Err(e) = pipe::poll(&mut fds, timeout) {
            return Step::Ended(Some(format!("cannot wait for its output: {e}")));
        }
        if fds[0].revents != 0 {
            return Step::Ended(Some(self.stop_reason()));
        }
        if fds[2].revents != 0 {
            reader.stderr_open = self.read_stderr(reader);
        }
        let also_ready = fds[3].revents != 0;
        if fds[1].revents == 0 {
            return Step::Waited { also_ready };
        }
        let Reader {
            stdout,
            answers,
            chunk,
            ..
        } = reader;
        match read_ready(stdout, chunk) {
            Ok(Ready::Bytes(n)) => {
                answers.feed(&chunk[..n], |line, _| self.route(line));
                if answers.overflowing() {
                    return Step::Ended(Some(format!(
                        "printed a line longer than {OUTPUT_CAP} bytes on its stdout"
                    )));
                }
                Step::Waited { also_ready }
            }
            Ok(Ready::Nothing) => Step::Waited { also_ready },
            Ok(Ready::Eof) => {
                answers.finish(|line, _| self.route(line));
                Step::Ended(None)
            }
            Err(e) => Step::Ended(Some(format!("cannot read its stdout: {e}"))),
        }
    }

    /// The worker ended (`why`, or `None` when its stdout closed): reads its last words from
    /// stderr, then records its death, which fails every pending request.
    fn finish(&self, reader: &mut Reader, why: Option<String>) {
        // Its last words, when it has any: stderr may take a moment more to reach end-of-file.
        let until = Instant::now() + DEATH_GRACE;
        while reader.stderr_open && why.is_none() {
            let now = Instant::now();
            if now >= until {
                break;
            }
            let mut fds = [
                pipe::pollfd(reader.woken.as_raw_fd(), libc::POLLIN),
                pipe::pollfd(reader.stderr.as_raw_fd(), libc::POLLIN),
            ];
            if pipe::poll(&mut fds, until - now).is_err() || fds[0].revents != 0 {
                break;
            }
            reader.stderr_open = self.read_stderr(reader);
        }
        if reader.stderr_open {
            // Nothing more will be read: what is left of a line is logged as it is.
            reader.errors.finish(|line, cut| self.log_stderr(line, cut));
        }
        reader.done = true;
        self.die(why);
    }

    /// Reads what stderr holds now and logs its lines; `false` once it reached end-of-file (or
    /// cannot be read).
    fn read_stderr(&self, reader: &mut Reader) -> bool {
        let Reader {
            stderr,
            errors,
            chunk,
            ..
        } = reader;
        match read_ready(stderr, chunk) {
            Ok(Ready::Bytes(n)) => {
                errors.feed(&chunk[..n], |line, cut| self.log_stderr(line, cut));
                true
            }
            Ok(Ready::Nothing) => true,
            Ok(Ready::Eof) | Err(_) => {
                errors.finish(|line, cut| self.log_stderr(line, cut));
                false
            }
        }
    }

    /// Why the reader was woken: the worker was replaced, or the hook dropped.
    fn stop_reason(&self) -> String {
        self.retired
            .lock()
            .clone()
            .unwrap_or_else(|| "stopped".to_owned())
    }

    /// Hands one answer line to the request it answers.
    fn route(&self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match parse_answer(line) {
            Ok((id, stdout)) => {
                let alive = self.started.elapsed().as_millis().min(u128::from(u64::MAX)) as u64;
                self.last_seen_ms.store(alive, Ordering::Relaxed);
                let slot = self.pending.lock().waiting.remove(&id);
                match slot {
                    Some(slot) => slot.fill(Ok(RawOutput {
                        exit_code: None,
                        stdout,
                        stderr: Vec::new(),
                    })),
                    None => tracing::debug!(
                        worker = %self.command,
                        "dropped the answer to request {id}: nobody waits for it (timed out?)"
                    ),
                }
            }
            Err(why) => tracing::warn!(
                worker = %self.command,
                "dropped a line that is no answer ({why}): {}",
                shorten(&String::from_utf8_lossy(line), 200)
            ),
        }
    }

    /// The worker's stdout closed (`why` says more when it was not end-of-file, or the worker was
    /// stopped or replaced): kill and reap it, and fail every pending request.
    fn die(&self, why: Option<String>) {
        let at = Instant::now();
        let (exited, status) = {
            let mut group = self.group.lock();
            let exited = why.is_none() && group.exited_within(DEATH_GRACE);
            (exited, group.reap())
        };
        let mut reason = match (why, status) {
            (Some(why), _) => why,
            (None, Ok(status)) if exited => describe_status(status),
            (None, _) => "closed its stdout (and was killed)".to_owned(),
        };
        let tail = self.stderr_tail.lock();
        if !tail.is_empty() {
            let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
            reason.push_str("; its stderr ended with: ");
            reason.push_str(&lines.join(" / "));
        }
        drop(tail);
        let waiting = {
            let mut pending = self.pending.lock();
            pending.death = Some(Death {
                reason: reason.clone(),
                at,
            });
            std::mem::take(&mut pending.waiting)
        };
        if self.stopping.load(Ordering::Relaxed) || self.retired.lock().is_some() {
            tracing::debug!(worker = %self.command, pid = self.pid, "process hook worker stopped");
        } else {
            tracing::warn!(
                worker = %self.command,
                pid = self.pid,
                pending = waiting.len(),
                "process hook worker died: {reason}"
            );
        }
        for slot in waiting.into_values() {
            slot.fill(Err(self.died(reason.clone())));
        }
    }

    fn log_stderr(&self, line: &[u8], cut: bool) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end();
        let more = if cut { " …" } else { "" };
        tracing::debug!(worker = %self.command, pid = self.pid, "stderr: {text}{more}");
        let mut tail = self.stderr_tail.lock();
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(shorten(text, 200));
    }

    /// Kills the worker's process group and reaps it (the hook is dropped).
    fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.kill();
    }

    /// Kills the worker's process group and reaps it, failing its pending requests with `why`:
    /// it is replaced while it still runs.
    fn retire(&self, why: String) {
        self.retired.lock().get_or_insert(why);
        self.kill();
    }

    /// Kills and reaps the worker, and wakes its reader, which fails the pending requests.
    fn kill(&self) {
        let _ = self.group.lock().reap();
        let _ = self.wake.shutdown(Shutdown::Both);
    }
}

/// `{"id":7,"payload":…}` and a newline.
fn request_line(id: u64, payload: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(payload.len() + 32);
    line.extend_from_slice(b"{\"id\":");
    line.extend_from_slice(id.to_string().as_bytes());
    line.extend_from_slice(b",\"payload\":");
    if payload.iter().all(u8::is_ascii_whitespace) {
        line.extend_from_slice(b"null");
    } else {
        line.extend(payload.iter().map(|&b| match b {
            b'\n' | b'\r' => b' ',
            b => b,
        }));
    }
    line.extend_from_slice(b"}\n");
    line
}

/// The id an answer line is for, and the decision's JSON (empty for a pass).
fn parse_answer(line: &[u8]) -> Result<(u64, Vec<u8>), String> {
    let value: Value = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(mut fields) = value else {
        return Err("not a JSON object".to_owned());
    };
    let id = fields
        .remove("id")
        .and_then(|id| id.as_u64())
        .ok_or_else(|| "no unsigned integer `id`".to_owned())?;
    let output = match fields.remove("output") {
        Some(Value::Null) => return Ok((id, Vec::new())),
        Some(Value::String(text)) => return Ok((id, text.into_bytes())),
        Some(output) => output,
        None if fields.is_empty() => return Ok((id, Vec::new())),
        None => Value::Object(fields),
    };
    let json = serde_json::to_vec(&output).map_err(|e| format!("cannot re-serialize: {e}"))?;
    Ok((id, json))
}

/// A byte stream cut into lines, each kept up to a cap.
struct Lines {
    line: Vec<u8>,
    cap: usize,
    /// The line being read went past the cap: the rest of it is thrown away.
    cut: bool,
}

impl Lines {
    fn new(cap: usize) -> Lines {
        Lines {
            line: Vec::new(),
            cap,
            cut: false,
        }
    }

    /// Feeds `bytes`; `each(line, cut)` gets every line they complete (without its newline; `cut`
    /// when it went past the cap and holds its first `cap` bytes only).
    fn feed(&mut self, mut bytes: &[u8], mut each: impl FnMut(&[u8], bool)) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|&b| b == b'\n');
            let text = &bytes[..newline.unwrap_or(bytes.len())];
            let room = self.cap.saturating_sub(self.line.len());
            self.line.extend_from_slice(&text[..text.len().min(room)]);
            self.cut |= text.len() > room;
            match newline {
                Some(i) => {
                    each(&self.line, self.cut);
                    self.line.clear();
                    self.cut = false;
                    bytes = &bytes[i + 1..];
                }
                None => bytes = &[],
            }
        }
    }

    /// The stream ended: `each` gets what is left of a last line without a newline.
    fn finish(&mut self, mut each: impl FnMut(&[u8], bool)) {
        if !self.line.is_empty() || self.cut {
            each(&self.line, self.cut);
        }
        self.line.clear();
        self.cut = false;
    }

    /// Whether the line being read went past the cap.
    fn overflowing(&self) -> bool {
        self.cut
    }
}

/// What one wait of the reader came to.
enum Step {
    /// It waited and read what was ready; `also_ready`: the descriptor it was given is ready.
    Waited { also_ready: bool },
    /// The worker ended.
    Ended(Option<String>),
}

/// What a non-blocking read found.
enum Ready {
    Bytes(usize),
    Nothing,
    Eof,
}

/// One non-blocking read of `from` into `chunk`.
fn read_ready(from: &mut impl Read, chunk: &mut [u8]) -> io::Result<Ready> {
    loop {
        return match from.read(chunk) {
            Ok(0) => Ok(Ready::Eof),
            Ok(n) => Ok(Ready::Bytes(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(Ready::Nothing),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => Err(e),
        };
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

/// `text` cut at about `max` bytes (on a char boundary), with `…` when cut.
fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_one_line() {
        assert_eq!(
            request_line(7, b"{\n  \"a\": \"x\\ny\"\r\n}\n"),
            b"{\"id\":7,\"payload\":{   \"a\": \"x\\ny\"  } }\n"
        );
        assert_eq!(request_line(1, b""), b"{\"id\":1,\"payload\":null}\n");
    }

    #[test]
    fn answers_in_both_forms() {
        let json = |bytes: Vec<u8>| serde_json::from_slice::<Value>(&bytes).unwrap();
        let (id, out) =
            parse_answer(br#"{"id":3,"output":{"decision":"block","reason":"r"}}"#).unwrap();
        assert_eq!(id, 3);
        assert_eq!(
            json(out),
            serde_json::json!({"decision":"block","reason":"r"})
        );
        let (id, out) = parse_answer(br#"{"decision":"block","id":4,"reason":"r"}"#).unwrap();
        assert_eq!(id, 4);
        assert_eq!(
            json(out),
            serde_json::json!({"decision":"block","reason":"r"})
        );
        assert_eq!(parse_answer(br#"{"id":5}"#).unwrap(), (5, vec![]));
        assert_eq!(
            parse_answer(br#"{"id":5,"output":null}"#).unwrap(),
            (5, vec![])
        );
        assert_eq!(
            parse_answer(br#"{"id":6,"output":"plain text"}"#).unwrap(),
            (6, b"plain text".to_vec())
        );
        assert!(parse_answer(b"hello").is_err());
        assert!(parse_answer(br#"{"id":-1}"#).is_err());
        assert!(parse_answer(br#"[1]"#).is_err());
    }

    #[test]
    fn lines_are_capped() {
        let mut lines = Lines::new(5);
        let mut seen = Vec::new();
        let mut collect = |line: &[u8], cut: bool| seen.push((line.to_vec(), cut));
        lines.feed(b"ab\ncd", &mut collect);
        assert!(!lines.overflowing());
        lines.feed(b"efgh", &mut collect);
        assert!(lines.overflowing());
        lines.feed(b"\nij", &mut collect);
        assert!(!lines.overflowing());
        lines.finish(&mut collect);
        lines.finish(&mut collect);
        assert_eq!(
            seen,
            [
                (b"ab".to_vec(), false),
                (b"cdefg".to_vec(), true),
                (b"ij".to_vec(), false)
            ]
        );
    }

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
