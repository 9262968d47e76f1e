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
//! - **Its environment.** The agent's environment, plus `HOOKCHAIN_PROJECT_DIR` and
//!   `CLAUDE_PROJECT_DIR` (both the project directory: `working_dir` when set, else the agent's
//!   current directory), plus the hook's `env` (applied last, so it may override either). It runs
//!   in the project directory.
//! - **Its stdin.** The payload is written by a thread of its own and the pipe closed; a hook that
//!   never reads its stdin neither blocks the firing nor makes it fail (the broken pipe is
//!   ignored).
//! - **Its own process group.** Every firing starts a new process group, and on *every* way out
//!   of [`Invoke::invoke`] — success included — the whole group is sent `SIGKILL` before the hook
//!   is reaped. A hook cannot leave a background process behind (one that wants to outlive its
//!   firing has to leave the group itself, with `setsid`). The group is killed while the hook is
//!   still an unreaped zombie, so its id cannot have been reused by an unrelated group.
//! - **Capped output.** stdout and stderr are read concurrently, by a thread each, up to
//!   [`OUTPUT_CAP`] bytes each; one byte more and the firing fails with
//!   [`TransportError::OutputTooLarge`] at once (the group is killed, nothing more is read).
//! - **Bounded in time.** The time limit is clamped to [`MAX_TIMEOUT`]. Past it the group is
//!   killed and the firing fails with [`TransportError::Timeout`]. Once the hook itself has
//!   exited, its output gets [`EXIT_GRACE`] more to reach end-of-file; a process it left behind
//!   holding the pipe open (`sleep 30 &`) does not make the firing wait for it: when the grace
//!   period is over the group is killed, what was read is returned, with the hook's exit code.
//! - **Exit codes are not judged here.** Any exit code comes back in [`RawOutput::exit_code`];
//!   what 0, 2 or 1 mean is the protocol's business. A hook killed by a signal has no exit code
//!   and fails with [`TransportError::Io`] naming the signal.

use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::program::project_dir;
pub use super::program::{ArgvError, argv_from_line, resolve_program, shell_argv};
use super::{CommandSpec, Invoke, MAX_TIMEOUT, OUTPUT_CAP, RawOutput, TransportError};

/// How long the output of a hook that has exited may take to reach end-of-file before its process
/// group is killed and what was read is returned.
///
/// Output the hook wrote before exiting is in the pipe already and is never lost; the grace period
/// only bounds the wait for processes the hook left behind with the pipe still open.
pub const EXIT_GRACE: Duration = Duration::from_millis(50);

/// How long the readers may take to drain the pipes once the group is killed.
const DRAIN: Duration = Duration::from_millis(250);

/// The bytes read from a pipe at a time.
const CHUNK: usize = 16 * 1024;

/// The `Command` that starts `spec` (already resolved to `program`): its argv, environment and
/// directory, all three standard streams piped, in a new process group.
pub(crate) fn command(spec: &CommandSpec, program: &Path) -> Result<Command, TransportError> {
    let dir = project_dir(spec).map_err(|e| TransportError::Spawn {
        command: spec.display.clone(),
        reason: format!("no current directory: {e}"),
    })?;
    let mut cmd = Command::new(program);
    if let Some(arg0) = spec.argv.first() {
        cmd.arg0(arg0);
    }
    cmd.args(spec.argv.iter().skip(1))
        .current_dir(&dir)
        .env("HOOKCHAIN_PROJECT_DIR", &dir)
        .env("CLAUDE_PROJECT_DIR", &dir)
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

#[derive(Clone, Copy, Debug)]
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

enum Event {
    /// The hook exited (it is not reaped yet).
    Exited,
    /// A stream reached end-of-file.
    Eof,
    /// A stream went past the cap.
    TooLarge(Stream),
    /// Reading a stream failed.
    ReadFailed(Stream, String),
}

/// How the wait for a firing ended.
enum End {
    /// The hook exited and both streams reached end-of-file.
    Done,
    /// The hook exited, a stream stayed open past the grace period.
    GraceOver,
    Failed(TransportError),
}

fn spawn_thread(name: &str, f: impl FnOnce() + Send + 'static) -> Result<(), TransportError> {
    thread::Builder::new()
        .name(name.to_owned())
        .spawn(f)
        .map(drop)
        .map_err(|e| TransportError::Io(format!("cannot start a thread for the hook: {e}")))
}

/// Reads `from` into `into` up to the cap, then reports how it ended.
fn read_capped(
    mut from: impl Read,
    into: &Mutex<Vec<u8>>,
    stream: Stream,
    events: &mpsc::Sender<Event>,
) {
    let mut chunk = vec![0; CHUNK];
    let event = loop {
        match from.read(&mut chunk) {
            Ok(0) => break Event::Eof,
            Ok(n) => {
                let mut buf = into.lock();
                if buf.len() + n > OUTPUT_CAP {
                    break Event::TooLarge(stream);
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Event::ReadFailed(stream, e.to_string()),
        }
    };
    let _ = events.send(event);
}

/// Starts a thread reading `pipe` with [`read_capped`] (or reports end-of-file at once when there
/// is no pipe).
fn spawn_reader(
    pipe: Option<impl Read + Send + 'static>,
    into: &Arc<Mutex<Vec<u8>>>,
    stream: Stream,
    events: &mpsc::Sender<Event>,
) -> Result<(), TransportError> {
    let (into, events) = (Arc::clone(into), events.clone());
    match pipe {
        Some(pipe) => spawn_thread(&format!("hookchain-hook-{}", stream.name()), move || {
            read_capped(pipe, &into, stream, &events)
        }),
        None => {
            let _ = events.send(Event::Eof);
            Ok(())
        }
    }
}

impl Invoke for CommandHook {
    fn invoke(&self, payload: &[u8], timeout: Duration) -> Result<RawOutput, TransportError> {
        let timeout = timeout.min(MAX_TIMEOUT);
        let started = Instant::now();
        let deadline = started + timeout;
        let line = &self.spec.display;

        let mut cmd = command(&self.spec, &self.program)?;
        // From here on, every return reaps the hook after killing its group (`Group`'s drop).
        let mut group = Group::spawn(&mut cmd, line)?;
        let (events, rx) = mpsc::channel();
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));

        if let Some(mut stdin) = group.child().stdin.take() {
            let payload = payload.to_vec();
            // A broken pipe means the hook does not read its stdin: not an error.
            spawn_thread("hookchain-hook-stdin", move || {
                let _ = stdin.write_all(&payload);
            })?;
        }
        let out_pipe = group.child().stdout.take();
        let err_pipe = group.child().stderr.take();
        spawn_reader(out_pipe, &stdout, Stream::Stdout, &events)?;
        spawn_reader(err_pipe, &stderr, Stream::Stderr, &events)?;
        let pid = group.pid();
        spawn_thread("hookchain-hook-wait", move || {
            probe_exit(pid, true);
            let _ = events.send(Event::Exited);
        })?;

        let (mut exited, mut open_streams) = (None::<Instant>, 2);
        let end = loop {
            if exited.is_some() && open_streams == 0 {
                break End::Done;
            }
            // Once the hook has exited, the grace period replaces the time limit: the hook made it
            // in time, only what it left behind is waited for.
            let until = exited.map_or(deadline, |at| at + EXIT_GRACE);
            match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(Event::Exited) => exited = Some(Instant::now()),
                Ok(Event::Eof) => open_streams -= 1,
                Ok(Event::TooLarge(stream)) => {
                    break End::Failed(TransportError::OutputTooLarge {
                        stream: stream.name(),
                        limit: OUTPUT_CAP,
                    });
                }
                Ok(Event::ReadFailed(stream, e)) => {
                    break End::Failed(TransportError::Io(format!(
                        "cannot read the {} of `{line}`: {e}",
                        stream.name()
                    )));
                }
                Err(mpsc::RecvTimeoutError::Timeout) if exited.is_some() => break End::GraceOver,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    break End::Failed(TransportError::Timeout(timeout));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break End::Failed(TransportError::Io(format!("lost track of `{line}`")));
                }
            }
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
                    "the hook exited but left a process holding its output open; its process group was killed"
                );
                // Everyone holding the pipes is dead now: let the readers reach end-of-file.
                let drain_until = Instant::now() + DRAIN;
                while open_streams > 0 {
                    match rx.recv_timeout(drain_until.saturating_duration_since(Instant::now())) {
                        Ok(Event::Eof) => open_streams -= 1,
                        Ok(Event::TooLarge(stream)) => {
                            return Err(TransportError::OutputTooLarge {
                                stream: stream.name(),
                                limit: OUTPUT_CAP,
                            });
                        }
                        Ok(_) => {}
                        Err(_) => break,
                    }
                }
            }
            End::Done => {}
        }
        let Some(code) = status.code() else {
            return Err(TransportError::Io(format!(
                "`{line}` {}",
                describe_status(status)
            )));
        };
        tracing::debug!(hook = %line, elapsed = ?started.elapsed(), code, "command hook ran");
        let take = |buf: &Mutex<Vec<u8>>| std::mem::take(&mut *buf.lock());
        Ok(RawOutput {
            exit_code: Some(code),
            stdout: take(&stdout),
            stderr: take(&stderr),
        })
    }
}
