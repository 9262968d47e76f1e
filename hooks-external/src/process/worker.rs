//! One running worker: its process group, the requests waiting for their answers, and the
//! reading of its stdout and stderr — by whichever firing holds the read side, so no thread is
//! spent on a worker — up to the worker's death and what is known of it.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read};
use std::net::Shutdown;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::framing::{Lines, parse_answer};
use crate::command::{self, Group, describe_status};
use crate::pipe;
use crate::{CommandSpec, OUTPUT_CAP, RawOutput, TransportError};

/// The longest stderr line logged whole; longer ones are cut.
pub(super) const STDERR_LINE_CAP: usize = 4 * 1024;

/// The longest a firing waits for its answer without looking whether it should take the
/// worker's read side: it is told when the reader lets go, so this is only a bound in case it
/// was told just before it began to wait.
pub(super) const FOLLOWER_WAIT: Duration = Duration::from_millis(20);

/// How many of the last stderr lines a death message quotes.
pub(super) const STDERR_TAIL_LINES: usize = 5;

/// How long a worker whose stdout closed may take to become reapable, so that its exit status
/// can be told; and how long its last stderr lines may take to arrive.
pub(super) const DEATH_GRACE: Duration = Duration::from_millis(100);

/// Where one request's answer is left for its caller.
#[derive(Default)]
pub(super) struct Slot {
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

    pub(super) fn take(&self) -> Option<Result<RawOutput, TransportError>> {
        self.state.lock().answer.take()
    }

    fn is_answered(&self) -> bool {
        self.state.lock().answer.is_some()
    }
}

#[derive(Clone)]
pub(super) struct Death {
    pub(super) reason: String,
    pub(super) at: Instant,
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
pub(super) struct Worker {
    command: String,
    pub(super) pid: u32,
    pub(super) started: Instant,
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
    pub(super) fn spawn(spec: &CommandSpec, program: &Path) -> Result<Arc<Worker>, TransportError> {
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

    pub(super) fn death(&self) -> Option<Death> {
        self.pending.lock().death.clone()
    }

    /// Whether the worker's process has exited (not reaped yet: its death not recorded yet).
    pub(super) fn has_exited(&self) -> bool {
        self.group.lock().exited_within(Duration::ZERO)
    }

    /// Records the death of a worker that exited while nobody waited on it: reads its last
    /// answers and words to the end of its output (killing what it left holding its pipes past
    /// [`DEATH_GRACE`]). Its death counts from when it was last seen alive, as it would have
    /// had a firing been waiting.
    pub(super) fn collect_death(&self) {
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
    pub(super) fn register(&self, id: u64, slot: &Arc<Slot>) -> Result<(), TransportError> {
        let mut pending = self.pending.lock();
        if let Some(death) = &pending.death {
            return Err(self.died(death.reason.clone()));
        }
        pending.waiting.insert(id, Arc::clone(slot));
        Ok(())
    }

    pub(super) fn forget(&self, id: u64) {
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
    pub(super) fn send(
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
    pub(super) fn await_answer(
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
            Ok((id, answer)) => {
                let alive = self.started.elapsed().as_millis().min(u128::from(u64::MAX)) as u64;
                self.last_seen_ms.store(alive, Ordering::Relaxed);
                let slot = self.pending.lock().waiting.remove(&id);
                match slot {
                    Some(slot) => slot.fill(
                        answer
                            .map(|stdout| RawOutput {
                                exit_code: None,
                                stdout,
                                stderr: Vec::new(),
                            })
                            .map_err(TransportError::Failed),
                    ),
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
    pub(super) fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.kill();
    }

    /// Kills the worker's process group and reaps it, failing its pending requests with `why`:
    /// it is replaced while it still runs.
    pub(super) fn retire(&self, why: String) {
        self.retired.lock().get_or_insert(why);
        self.kill();
    }

    /// Kills and reaps the worker, and wakes its reader, which fails the pending requests.
    fn kill(&self) {
        let _ = self.group.lock().reap();
        let _ = self.wake.shutdown(Shutdown::Both);
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
