//! The `command` transport: one process per firing, the payload on its stdin, its stdout, stderr
//! and exit code brought back as a [`RawOutput`].
//!
//! # The rules it keeps
//!
//! - **Checked at load time.** [`CommandHook::new`] resolves the program (through `PATH` when it
//!   has no `/`, against the working directory when it is a relative path) and checks that it is
//!   an executable file, and that `working_dir` is a directory. A missing or non-executable
//!   command is an error there, never a hook that is mounted and then fails at every firing.
//! - **No shell unless asked.** The argv is run as it is. Native configs split their command line
//!   with [`argv_from_line`] (shell-words quoting, no expansion); configs imported from Claude
//!   Code and docker-agent, whose commands are shell strings, use [`shell_argv`]
//!   (`sh -c LINE`), as those agents do.
//! - **Its environment.** The agent's environment — or with `env_clear`, only the variables of
//!   it that `env_allow` names —, plus `HOOKCHAIN_PROJECT_DIR`, `CLAUDE_PROJECT_DIR` and Gemini
//!   CLI's `GEMINI_PROJECT_DIR` and `GEMINI_CWD` (all the project directory: `working_dir` when set — a relative one taken from the directory of the
//!   firing —, else the directory of the firing: the session's project directory when the agent
//!   gives one, else the agent's current directory, see
//!   [`firing_dir`](super::program::firing_dir)), plus the hook's `env` (applied last, so it may
//!   override any). It runs in the project directory.
//! - **One thread, no blocking read.** A firing runs on its caller's thread only: the payload is
//!   written to the hook's stdin and its stdout and stderr are read through non-blocking pipes
//!   waited on with `poll(2)`, so no thread is started and nothing
//!   can keep the firing waiting past its deadline. When [`Invoke::invoke`] returns, the pipes
//!   are closed: no thread and no descriptor outlives a firing, whatever holds the other ends.
//! - **Its stdin.** The payload is written as the pipe accepts it, then the pipe is closed; a
//!   hook that never reads its stdin neither blocks the firing nor makes it fail (the broken pipe
//!   is ignored), and the write never raises `SIGPIPE` in the agent.
//! - **Its own process group.** Every firing starts a new process group, and on *every* way out
//!   of [`Invoke::invoke`] — success included — the whole group is sent `SIGKILL` before the hook
//!   is reaped. A hook cannot leave a background process behind (one that wants to outlive its
//!   firing has to leave the group itself, with `setsid`; hookchain cannot kill that one, but
//!   closes the pipes it holds, so its next write to them fails). The group is killed while the
//!   hook is still an unreaped zombie, so its id cannot have been reused by an unrelated group.
//! - **Capped output.** stdout and stderr are kept up to [`OUTPUT_CAP`] bytes each. One byte more
//!   on stdout and the firing fails with [`TransportError::OutputTooLarge`] at once (the group is
//!   killed, nothing more is read). Past the cap on stderr, reading goes on and the rest is
//!   thrown away, so that the hook can still exit: an exit code 2 (a block whose reason is on
//!   stderr) comes back with its stderr cut at the cap and a marker saying how many bytes were
//!   cut; any other exit code fails with [`TransportError::OutputTooLarge`]. A hook that throws
//!   away more than 16 times the cap on stderr fails at once.
//! - **Bounded in time.** The time limit is clamped to [`MAX_TIMEOUT`]. Past it the group is
//!   killed and the firing fails with [`TransportError::Timeout`]. Once the hook itself has
//!   exited, its output gets [`EXIT_GRACE`] more to reach end-of-file; a process it left behind
//!   holding the pipe open (`sleep 30 &`) does not make the firing wait for it: when the grace
//!   period is over the group is killed, what is in the pipes is read without waiting, the pipes
//!   are closed, and what was read is returned, with the hook's exit code.
//! - **Exit codes are not judged here.** Any exit code comes back in [`RawOutput::exit_code`];
//!   what 0, 2 or 1 mean is the protocol's business. A hook killed by a signal has no exit code
//!   and fails with [`TransportError::Io`] naming the signal.

use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::pipe;
use super::program::run_dir;
pub use super::program::{ArgvError, argv_from_line, resolve_program, shell_argv};
use super::{CommandSpec, Invoke, MAX_TIMEOUT, OUTPUT_CAP, RawOutput, TransportError};

/// How long the output of a hook that has exited may take to reach end-of-file before its process
/// group is killed and what was read is returned.
///
/// Output the hook wrote before exiting is in the pipe already and is never lost; the grace period
/// only bounds the wait for processes the hook left behind with the pipe still open.
pub const EXIT_GRACE: Duration = Duration::from_millis(50);

/// The bytes read from a pipe at a time.
const CHUNK: usize = 16 * 1024;

/// The most chunks read from one pipe before the others get their turn.
const READS_PER_WAKE: usize = 16;

/// How much stderr past [`OUTPUT_CAP`] is read and thrown away before the firing fails: a hook
/// that keeps printing that much is not going to exit with a reason.
const STDERR_DISCARD_LIMIT: usize = 16 * OUTPUT_CAP;

/// How often, at first, the wait for a running hook looks whether it has exited; the interval
/// doubles while nothing happens, up to [`MAX_TICK`].
const FIRST_TICK: Duration = Duration::from_micros(200);

/// The longest interval between two looks at whether a running hook has exited.
const MAX_TICK: Duration = Duration::from_millis(10);

/// The `Command` that starts `spec` (already resolved to `program`): its argv, environment and
/// directory, all three standard streams piped, in a new process group.
pub(crate) fn command(spec: &CommandSpec, program: &Path) -> Result<Command, TransportError> {
    let dir = run_dir(spec).map_err(|e| TransportError::Spawn {
        command: spec.display.clone(),
        reason: format!("no current directory: {e}"),
    })?;
    let mut cmd = Command::new(program);
    if let Some(arg0) = spec.argv.first() {
        cmd.arg0(arg0);
    }
    if spec.env_clear {
        cmd.env_clear();
        for name in &spec.env_allow {
            if let Some(value) = std::env::var_os(name) {
                cmd.env(name, value);
            }
        }
    }
    cmd.args(spec.argv.iter().skip(1))
        .current_dir(&dir)
        .env("HOOKCHAIN_PROJECT_DIR", &dir)
        .env("CLAUDE_PROJECT_DIR", &dir)
        // Gemini CLI's names for the same directory, which its hooks are written with.
        .env("GEMINI_PROJECT_DIR", &dir)
        .env("GEMINI_CWD", &dir)
        .envs(&spec.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    Ok(cmd)
}

/// A started hook and its process group, which is killed before the hook is reaped — by
/// [`Group::reap`], or on drop.
pub(crate) struct Group {
    child: Child,
    status: Option<ExitStatus>,
}

impl Group {
    /// Starts `cmd` (built by [`command`], so in a process group of its own).
    pub(crate) fn spawn(cmd: &mut Command, display: &str) -> Result<Group, TransportError> {
        let child = cmd.spawn().map_err(|e| TransportError::Spawn {
            command: display.to_owned(),
            reason: e.to_string(),
        })?;
        Ok(Group {
            child,
            status: None,
        })
    }

    pub(crate) fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `SIGKILL` to every process of the group, unless the hook was reaped already (its
    /// group id could then belong to someone else).
    pub(crate) fn kill(&mut self) {
        if self.status.is_none() {
            // SAFETY: killpg has no memory-safety preconditions. The leader is not reaped yet, so
            // the id still names this group. ESRCH (nobody left) is fine.
            unsafe {
                libc::killpg(self.child.id() as libc::pid_t, libc::SIGKILL);
            }
        }
    }

    /// Whether the hook has exited (without reaping it), waiting at most `within`.
    #[cfg_attr(not(feature = "process"), allow(dead_code))]
    pub(crate) fn exited_within(&self, within: Duration) -> bool {
        let until = Instant::now() + within;
        let mut pause = Duration::from_micros(200);
        loop {
            if self.status.is_some() || probe_exit(self.child.id(), false) {
                return true;
            }
            let now = Instant::now();
            if now >= until {
                return false;
            }
            thread::sleep(pause.min(until - now));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    /// Kills the group, then reaps the hook. Returns its status (the same one on every call).
    pub(crate) fn reap(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        self.kill();
        let status = self.child.wait()?;
        self.status = Some(status);
        Ok(status)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let _ = self.reap();
    }
}

/// Whether the child `pid` has exited, without reaping it; `block` waits until it has.
fn probe_exit(pid: u32, block: bool) -> bool {
    let flags = libc::WEXITED | libc::WNOWAIT | if block { 0 } else { libc::WNOHANG };
    loop {
        // SAFETY: an all-zero siginfo_t is a valid value; waitid only writes into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid, writable siginfo_t for the duration of the call.
        let rc = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
        if rc == 0 {
            // With WNOHANG and no state change, waitid returns 0 and leaves si_pid zero.
            // SAFETY: si_pid is valid to read after a successful waitid.
            return block || unsafe { info.si_pid() } != 0;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // ECHILD: reaped already, so it has exited.
            return true;
        }
    }
}

/// `"SIGKILL (signal 9)"`.
pub(crate) fn describe_signal(signal: i32) -> String {
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return format!("signal {signal}"),
    };
    format!("{name} (signal {signal})")
}

/// `"exited with code 3"`, `"was killed by SIGKILL (signal 9)"`.
pub(crate) fn describe_status(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was killed by {}", describe_signal(signal)),
        (None, None) => format!("ended with {status}"),
    }
}

/// A hook run by spawning its command once per firing.
///
/// ```no_run
/// use std::time::Duration;
/// use hookchain::external::command::{CommandHook, argv_from_line};
/// use hookchain::external::{CommandSpec, Invoke};
///
/// let line = "./hooks/guard.sh --strict";
/// let hook = CommandHook::new(CommandSpec {
///     argv: argv_from_line(line)?,
///     display: line.to_owned(),
///     env: Default::default(),
///     working_dir: None,
///     env_clear: false,
///     env_allow: Vec::new(),
/// })?; // fails here when ./hooks/guard.sh is missing or not executable
/// let out = hook.invoke(br#"{"hook_event_name":"intercept_tool_call"}"#, Duration::from_secs(5))?;
/// println!("exit {:?}: {}", out.exit_code, String::from_utf8_lossy(&out.stdout));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct CommandHook {
    spec: CommandSpec,
    program: PathBuf,
}

impl CommandHook {
    /// Checks the command (see [`resolve_program`]) and returns the hook; a missing or
    /// non-executable program is an error here, at load time.
    pub fn new(spec: CommandSpec) -> Result<CommandHook, TransportError> {
        let program = resolve_program(&spec)?;
        Ok(CommandHook { spec, program })
    }

    /// The command as configured.
    pub fn spec(&self) -> &CommandSpec {
        &self.spec
    }

    /// The file that runs: the program resolved when the hook was loaded.
    pub fn program(&self) -> &Path {
        &self.program
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// One output pipe of the hook, read without blocking, and what was read from it.
struct Output<R> {
    /// `None` once it reached end-of-file.
    pipe: Option<R>,
    stream: Stream,
    bytes: Vec<u8>,
    /// Bytes read past [`OUTPUT_CAP`] and thrown away (stderr only: past the cap, stdout fails).
    cut: usize,
}

impl<R: Read + AsRawFd> Output<R> {
    fn new(pipe: Option<R>, stream: Stream) -> Output<R> {
        Output {
            pipe,
            stream,
            bytes: Vec::new(),
            cut: 0,
        }
    }

    fn open(&self) -> bool {
        self.pipe.is_some()
    }

    /// Reads what the pipe holds now (a bounded number of chunks, so that a fast writer cannot
    /// keep the firing here); past the cap, stdout fails and stderr is counted and thrown away.
    fn read_ready(&mut self, chunk: &mut [u8], line: &str) -> Result<(), TransportError> {
        for _ in 0..READS_PER_WAKE {
            let Some(pipe) = &mut self.pipe else {
                return Ok(());
            };
            match pipe.read(chunk) {
                Ok(0) => {
                    self.pipe = None;
                    return Ok(());
                }
                Ok(n) => self.keep(&chunk[..n])?,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(TransportError::Io(format!(
                        "cannot read the {} of `{line}`: {e}",
                        self.stream.name()
                    )));
                }
            }
        }
        Ok(())
    }

    fn keep(&mut self, read: &[u8]) -> Result<(), TransportError> {
        let room = OUTPUT_CAP - self.bytes.len();
        let kept = read.len().min(room);
        self.bytes.extend_from_slice(&read[..kept]);
        self.cut += read.len() - kept;
        let too_large = match self.stream {
            Stream::Stdout => self.cut > 0,
            Stream::Stderr => self.cut > STDERR_DISCARD_LIMIT,
        };
        if too_large {
            return Err(TransportError::OutputTooLarge {
                stream: self.stream.name(),
                limit: OUTPUT_CAP,
            });
        }
        Ok(())
    }

    /// The pollfd waiting for this pipe to have something to read, if it is open.
    fn pollfd(&self) -> Option<libc::pollfd> {
        self.pipe
            .as_ref()
            .map(|p| pipe::pollfd(p.as_raw_fd(), libc::POLLIN))
    }
}

/// The payload on its way to the hook's stdin, written as the pipe accepts it.
struct Feed<'a> {
    /// `None` once the payload is written (the pipe is then closed) or the hook closed its end.
    pipe: Option<ChildStdin>,
    rest: &'a [u8],
}

impl Feed<'_> {
    /// Writes what the pipe accepts now. A hook that closed its stdin is not an error: it does
    /// not read its payload.
    fn write_ready(&mut self) {
        while let Some(stdin) = &self.pipe {
            if self.rest.is_empty() {
                self.pipe = None;
                return;
            }
            match pipe::write(stdin, self.rest) {
                Ok(n) => self.rest = &self.rest[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => self.pipe = None,
            }
        }
    }
}

/// How the wait for a firing ended.
enum End {
    /// The hook exited and both streams reached end-of-file.
    Done,
    /// The hook exited, a stream stayed open past the grace period.
    GraceOver,
    Failed(TransportError),
}

/// The marker put after stderr that was cut at the cap.
fn cut_marker(cut: usize) -> String {
    format!("\n[hookchain: {cut} more bytes of stderr were cut at the {OUTPUT_CAP}-byte cap]")
}

impl Invoke for CommandHook {
    fn invoke(&self, payload: &[u8], timeout: Duration) -> Result<RawOutput, TransportError> {
        let timeout = timeout.min(MAX_TIMEOUT);
        let started = Instant::now();
        let deadline = started + timeout;
        let line = &self.spec.display;

        let mut cmd = command(&self.spec, &self.program)?;
        // From here on, every return reaps the hook after killing its group (`Group`'s drop), and
        // drops the pipes: nothing of the firing outlives it.
        let mut group = Group::spawn(&mut cmd, line)?;
        let child = group.child();
        let mut feed = Feed {
            pipe: child.stdin.take(),
            rest: payload,
        };
        let mut out = Output::new(child.stdout.take(), Stream::Stdout);
        let mut err = Output::new(child.stderr.take(), Stream::Stderr);
        let fds = [
            feed.pipe.as_ref().map(AsRawFd::as_raw_fd),
            out.pipe.as_ref().map(AsRawFd::as_raw_fd),
            err.pipe.as_ref().map(AsRawFd::as_raw_fd),
        ];
        for fd in fds.into_iter().flatten() {
            pipe::set_nonblocking(fd).map_err(|e| {
                TransportError::Io(format!("cannot set up a pipe to `{line}`: {e}"))
            })?;
        }

        let pid = group.pid();
        let mut chunk = vec![0; CHUNK];
        let mut exited = None::<Instant>;
        let mut tick = FIRST_TICK;
        let end = loop {
            feed.write_ready();
            if let Err(e) = out
                .read_ready(&mut chunk, line)
                .and_then(|()| err.read_ready(&mut chunk, line))
            {
                break End::Failed(e);
            }
            if exited.is_none() && probe_exit(pid, false) {
                exited = Some(Instant::now());
                // What it wrote before exiting is in the pipes: read it before judging.
                continue;
            }
            if exited.is_some() && !out.open() && !err.open() {
                break End::Done;
            }
            // Once the hook has exited, the grace period replaces the time limit: the hook made it
            // in time, only what it left behind is waited for.
            let until = exited.map_or(deadline, |at| at + EXIT_GRACE);
            let now = Instant::now();
            if now >= until {
                break match exited {
                    Some(_) => End::GraceOver,
                    None => End::Failed(TransportError::Timeout(timeout)),
                };
            }
            let mut polled = Vec::with_capacity(3);
            if let Some(stdin) = &feed.pipe {
                polled.push(pipe::pollfd(stdin.as_raw_fd(), libc::POLLOUT));
            }
            polled.extend(out.pollfd());
            polled.extend(err.pollfd());
            // Whether the hook has exited is looked at every `tick`, which grows while nothing
            // happens (exit wakes no poll while a pipe is held open by someone else).
            let wait = if exited.is_some() {
                until - now
            } else {
                (until - now).min(tick)
            };
            let events = if polled.is_empty() {
                thread::sleep(wait);
                0
            } else {
                match pipe::poll(&mut polled, wait) {
                    Ok(n) => n,
                    Err(e) => {
                        break End::Failed(TransportError::Io(format!(
                            "cannot wait for `{line}`: {e}"
                        )));
                    }
                }
            };
            tick = if events > 0 {
                FIRST_TICK
            } else {
                (tick * 2).min(MAX_TICK)
            };
        };

        // Kill whatever is left of the group (on success too: stray background processes), then
        // reap the hook.
        let status = group
            .reap()
            .map_err(|e| TransportError::Io(format!("cannot reap `{line}`: {e}")))?;
        match end {
            End::Failed(e) => {
                tracing::debug!(hook = %line, elapsed = ?started.elapsed(), "command hook failed: {e}");
                return Err(e);
            }
            End::GraceOver => {
                tracing::warn!(
                    hook = %line,
                    "the hook exited but left a process holding its output open; its process group was killed and its pipes closed"
                );
                // The group is dead: what it wrote is in the pipes. Take it without waiting; a
                // process that left the group (`setsid`) may hold the pipes open for ever.
                out.read_ready(&mut chunk, line)?;
                err.read_ready(&mut chunk, line)?;
            }
            End::Done => {}
        }
        // Close the pipes now: a process still holding them meets a closed pipe at its next
        // write.
        drop((feed, out.pipe.take(), err.pipe.take()));
        let Some(code) = status.code() else {
            return Err(TransportError::Io(format!(
                "`{line}` {}",
                describe_status(status)
            )));
        };
        let mut stderr = err.bytes;
        if err.cut > 0 {
            if code != 2 {
                return Err(TransportError::OutputTooLarge {
                    stream: Stream::Stderr.name(),
                    limit: OUTPUT_CAP,
                });
            }
            // Exit code 2 blocks with stderr as the reason: keep the block, cut the reason.
            tracing::debug!(hook = %line, cut = err.cut, "stderr of an exit-2 block cut at the cap");
            stderr.extend_from_slice(cut_marker(err.cut).as_bytes());
        }
        tracing::debug!(hook = %line, elapsed = ?started.elapsed(), code, "command hook ran");
        Ok(RawOutput {
            exit_code: Some(code),
            stdout: out.bytes,
            stderr,
        })
    }
}
