//! External hooks: scripts, long-lived workers and HTTP endpoints that join the same chains as
//! compiled-in hooks and speak the JSON protocols of Claude Code, Hermes, docker-agent and
//! Starchild.
//!
//! # What it owns
//!
//! - [`ExternalHook`]: one configured hook — its point, its [`Transport`], its [`Matcher`], its
//!   time limit, priority and [`OnError`], and where it was configured.
//! - [`Invoke`]: what every transport does — send one JSON payload, bring back the [`RawOutput`]
//!   (exit code, stdout, stderr) or a [`TransportError`]. `command` spawns per firing
//!   ([`command`]), `process` talks to one long-lived worker ([`process`]), `http` POSTs
//!   ([`http`]).
//! - The wire protocol ([`protocol`]): the payload a hook receives, and the [`Answer`] read from
//!   whatever dialect it answers in.
//! - [`Answer`] ([`answer`]): what a hook answered — go on, stop, ask, a new input, context,
//!   warnings — whatever dialect it answered in.
//! - [`WirePoint`] ([`wire`]): how each point's input becomes payload fields and how an
//!   [`Answer`] becomes the point's `HookResult`.
//! - The session's transcript, permission mode and project directory as hooks read them
//!   ([`transcript`]): what the agent gives, or a private JSONL transcript hookchain keeps and
//!   removes when the session ends, and the directory hooks run in.
//! - A session's tap ([`hook::tap`]): each hook's exact payload and raw answer, for
//!   `hookchain test --verbose`.
//!
//! # The rules it keeps
//!
//! - An external hook is a hook like any other: it runs in its point's chain, in priority order,
//!   sees the value as the hooks before it left it, and its rewrite is what the hooks after it
//!   see.
//! - A matcher that does not match never spawns, connects or sends anything.
//! - A hook that cannot start, runs past its time limit, exits with a code other than 0 or 2
//!   (without a JSON answer its dialect reads there: [`protocol`]), prints more than the output
//!   cap or prints junk has *failed*; what that means is its
//!   [`OnError`] — `pass`, `block` or `warn` — never a silent pass.
//! - A failed or slow hook never loses the agent's value and never takes the agent down; every
//!   process it started, grandchildren included, is gone when the firing ends (save one that
//!   left the process group with `setsid`, which no group kill reaches: the pipes it holds are
//!   closed, so its next write to them fails), and so is every thread and descriptor the firing
//!   used. Writing to a hook never raises `SIGPIPE` in the agent.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod answer;
#[cfg(all(unix, any(feature = "command", feature = "process")))]
pub mod command;
pub mod hook;
#[cfg(feature = "http")]
pub mod http;
pub mod matcher;
#[cfg(all(unix, any(feature = "command", feature = "process")))]
mod pipe;
#[cfg(all(unix, feature = "process"))]
pub mod process;
pub mod program;
pub mod protocol;
pub mod transcript;
pub mod wire;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

pub use answer::{Answer, Verdict};
pub use hook::ExternalHooksExt;
pub use hookchain_core::{ConfigOrigin, Dialect, OnError};
pub use matcher::{Matcher, MatcherError};
pub use protocol::ProtocolError;
pub use wire::WirePoint;

/// The time limit of an external hook that does not set one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest time limit an external hook may set.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// The most a hook may print on stdout, and on stderr; past it the hook fails.
pub const OUTPUT_CAP: usize = 1024 * 1024;

/// The priority of an external hook that does not set one.
///
/// Compiled-in hooks default to 0; external ones to 50, so that without explicit priorities the
/// agent's own guards run first and scripts see their rewrites.
pub const DEFAULT_PRIORITY: i32 = 50;

/// How a command is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    /// The program and its arguments (for `shell`, `["sh", "-c", line]`).
    pub argv: Vec<String>,
    /// The command as written in the config, for messages and consent.
    pub display: String,
    /// Extra environment variables, set on top of whatever the hook inherits.
    pub env: BTreeMap<String, String>,
    /// The directory it runs in (default: the project directory).
    pub working_dir: Option<PathBuf>,
    /// Start from an empty environment instead of the agent's, so that the hook inherits none
    /// of the agent's variables (API keys, tokens) but those named in
    /// [`env_allow`](Self::env_allow). The project directory variables and [`env`](Self::env)
    /// are set all the same. Without `PATH` in `env_allow` (or `env`), the hook's own commands
    /// are not found on `PATH`; the program itself was resolved when the hook was loaded.
    pub env_clear: bool,
    /// With [`env_clear`](Self::env_clear), the names of the agent's variables the hook still
    /// gets (those the agent has); without it, nothing to do (config files refuse it).
    pub env_allow: Vec<String>,
}

/// How an HTTP hook is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSpec {
    /// The URL the payload is POSTed to.
    pub url: String,
    /// Extra request headers.
    pub headers: BTreeMap<String, String>,
    /// Allow loopback, private, link-local and metadata addresses (refused by default).
    pub allow_local: bool,
}

/// How an external hook is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Spawned once per firing; the payload on stdin, the decision on stdout.
    Command(CommandSpec),
    /// One long-lived worker; JSON lines with request ids over stdin and stdout.
    Process(CommandSpec),
    /// POSTed; the decision in the response body.
    Http(HttpSpec),
}

impl Transport {
    /// `"command"`, `"process"` or `"http"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Command(_) => "command",
            Transport::Process(_) => "process",
            Transport::Http(_) => "http",
        }
    }

    /// The command line or URL, as written in the config.
    pub fn target(&self) -> &str {
        match self {
            Transport::Command(c) | Transport::Process(c) => &c.display,
            Transport::Http(h) => &h.url,
        }
    }
}

/// One external hook, as configured.
#[derive(Debug, Clone)]
pub struct ExternalHook {
    /// The canonical point (`"intercept_tool_call"`).
    pub point: &'static str,
    /// The event name as configured (`"PreToolUse"`); sent as `event` in the payload.
    pub event: String,
    /// The hook's name in chains, blocks and logs.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// Which tool names it fires for (tool points only; other points ignore it), or, read by
    /// Starchild's rule, which payloads (every point): see [`matcher`].
    pub matcher: Matcher,
    /// Its time limit.
    pub timeout: Duration,
    /// Lower runs earlier.
    pub priority: i32,
    /// What its failure means.
    pub on_error: OnError,
    /// The dialect of the file it was configured in ([`Dialect::Hookchain`] for a
    /// `hookchain.yaml` and for code). It decides how a command string is run (Claude Code and
    /// docker-agent run shell strings with `sh -c`), how the matcher is read ([`matcher`]), and
    /// — with the event's name, see [`hook::dialect`] — the dialect of the payload and of the
    /// answer.
    pub dialect: Dialect,
    /// Where it was configured: a file and line, or code.
    pub origin: ConfigOrigin,
    /// A required hook (`required: true` in a `hookchain.yaml`): when it cannot run — its script
    /// changed since it was approved, its transport cannot be built, its program cannot be
    /// started ([`TransportError::cannot_run`]) — its point blocks, whatever its `on_error`
    /// (see `HookOptions::required`).
    pub required: bool,
}

/// What a transport brought back from one firing, before any dialect is read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawOutput {
    /// The exit code (`None` for `process` and `http`, which have none: 0 is assumed).
    pub exit_code: Option<i32>,
    /// What the hook printed (the response body, for `http`).
    pub stdout: Vec<u8>,
    /// What the hook printed on stderr (empty for `process` and `http`).
    pub stderr: Vec<u8>,
}

/// Why a firing brought nothing back. Every variant is a hook failure, handled by the hook's
/// [`OnError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The program could not be started.
    #[error("cannot start `{command}`: {reason}")]
    Spawn {
        /// The command.
        command: String,
        /// Why.
        reason: String,
    },
    /// The hook ran past its time limit (and was killed, with its process group).
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The hook printed more than the cap on one stream.
    #[error("printed more than {limit} bytes on {stream}")]
    OutputTooLarge {
        /// `"stdout"` or `"stderr"`.
        stream: &'static str,
        /// The cap.
        limit: usize,
    },
    /// The worker of a `process` hook died or closed its stdout.
    #[error("the worker `{command}` stopped: {reason}")]
    WorkerDied {
        /// The command.
        command: String,
        /// What is known of why.
        reason: String,
    },
    /// The HTTP request failed or the status was not 2xx.
    #[error("HTTP {0}")]
    Http(String),
    /// The target address is loopback, private, link-local or a metadata address, and the hook
    /// does not say `allow_local: true`.
    #[error(
        "refused to call {url}: it resolves to {addr}, a {kind} address (set `allow_local: true` on the hook to allow it)"
    )]
    Refused {
        /// The URL.
        url: String,
        /// The address it resolved to.
        addr: String,
        /// `"loopback"`, `"private"`, `"link-local"`, `"metadata"`, …
        kind: &'static str,
    },
    /// Any other I/O failure.
    #[error("{0}")]
    Io(String),
    /// The worker of a `process` hook answered that the hook failed (`{"id":7,"error":"…"}`,
    /// see [`process`]): the message it gave, such as the file and line of an exception.
    #[error("{0}")]
    Failed(String),
    /// The hook's transport is not part of this build (a cargo feature is off, or the platform
    /// has no such transport).
    #[error("the `{transport}` transport is not part of this build: {fix}")]
    NotBuilt {
        /// `"command"`, `"process"` or `"http"`.
        transport: &'static str,
        /// What would make it part of the build.
        fix: &'static str,
    },
    /// The hook cannot run at all, and nothing was started: its transport could not be built
    /// (a missing program, a malformed URL), or what it runs changed since it was approved.
    #[error("{0}")]
    CannotRun(String),
}

impl TransportError {
    /// `true` when nothing ran: the hook cannot run at all ([`CannotRun`](Self::CannotRun),
    /// [`NotBuilt`](Self::NotBuilt)), its program could not be started
    /// ([`Spawn`](Self::Spawn)), or its endpoint was refused before anything was sent
    /// ([`Refused`](Self::Refused)). A required hook blocks its point on these, whatever its
    /// `on_error`; every other error is a hook that ran and failed.
    pub fn cannot_run(&self) -> bool {
        matches!(
            self,
            TransportError::CannotRun(_)
                | TransportError::NotBuilt { .. }
                | TransportError::Spawn { .. }
                | TransportError::Refused { .. }
        )
    }
}

/// What every transport does: one firing, one payload, one raw output.
pub trait Invoke: Send + Sync {
    /// Sends `payload` (one JSON object, serialized) and waits at most `timeout` for the answer.
    fn invoke(&self, payload: &[u8], timeout: Duration) -> Result<RawOutput, TransportError>;
}
