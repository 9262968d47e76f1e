//! An external hook as a chain entry: what one firing does, from the matcher to the point's
//! result.
//!
//! # One firing
//!
//! 1. On a point with a tool name, a [`Matcher`] that does not match passes at
//!    once: nothing is spawned, connected to or sent. On another point, a hook in Claude Code's
//!    dialect matches the field Claude Code filters on (SessionStart's `source`, …:
//!    [`WirePoint::event_subject`]). A Starchild matcher is searched in the
//!    payload's content instead, on every point ([`Matcher::matches_content`]). So does a hook written in another agent's
//!    dialect on a firing its agent never sends, and a hook configured under an event that
//!    names only some firings of its point ([`WirePoint::fires_for`]: a refused tool call on
//!    `after_tool_call`, `on_error` on a notification that is not an error).
//! 2. The [payload](super::wire::payload) is built and sent through the hook's transport
//!    ([`Invoke`]), within the hook's time limit, in the session's project directory when the
//!    agent gives one ([`program::firing_dir`]). A session's [`tap`] sees the exact payload and
//!    the raw answer (or the transport's error) of each firing.
//! 3. The answer is read as the hook's agent reads it ([`decide_in`], then
//!    [`adapt`](super::wire::adapt): plain stdout, per-dialect rules) and applied by the point
//!    ([`WirePoint::apply_answer`]).
//!
//! A transport that fails ([`TransportError`]) or an answer that cannot be read
//! ([`ProtocolError`]) is a hook failure: an `Err` naming the hook, its transport and target,
//! where it was configured, and what went wrong. The chain then applies the hook's policy —
//! `block` blocks with that reason; `pass` goes on; `warn` goes on, and the chain adds a warning
//! for the user naming the hook and the failure (`OnError::Warn`). Either way the failure is logged and
//! listed in the dispatch's `Outcome::failures`.
//!
//! A failure where nothing ran ([`TransportError::cannot_run`]: the transport could not be built,
//! the program could not be started, the endpoint was refused, or what the hook runs changed
//! since it was approved) is a `HookError::cannot_run`: for a hook marked
//! [`required`](ExternalHook::required) the chain blocks its point on it, whatever its
//! `on_error`; for any other hook it is a failure like the rest.
//!
//! # In the registry
//!
//! [`ExternalHooksExt::external`] adds an [`ExternalHook`] to the chain of its point on a
//! [`HooksBuilder`], reaching it through the transport [`invoker`] builds
//! ([`ExternalHooksExt::external_with`] takes any [`Invoke`]), named `hook.name`, with
//! `hook.priority`, in the extension
//! [`EXTENSION`] (`"external"`: one switch, `disable_extension("external")`, turns every
//! external hook off, and a config section `extensions: {external: {enabled: false}}` in the
//! user's file does the same; a project's file may switch off only the hooks it added). `describe()` lists it at the file and line it was configured at (hooks built in code
//! are listed at the line that added them).
//!
//! An external hook whose `point` is a wildcard pattern (`"*"`, `"after_*"`) is added as a
//! wildcard hook ([`HooksBuilder::watch`]): it gets the JSON of each
//! [`DispatchEvent`](hookchain_core::DispatchEvent) of the points it matches on stdin, after their
//! chains ran ([`Firing::fire_wildcard`]); its output is not read.

use std::sync::Arc;
use std::time::Duration;

use hookchain_core::points;
use hookchain_core::{Dialect, HookContext, HookError, HookResult, SessionState};
use hookchain_runtime::{HookOptions, HookSource, HooksBuilder};

use super::program;
use super::protocol::{self, ProtocolError, decide_in};
use super::wire::agents;
use super::wire::{Subject, WirePoint};
use super::{ExternalHook, Invoke, MAX_TIMEOUT, Matcher, RawOutput, Transport, TransportError};

/// The extension every external hook belongs to.
pub const EXTENSION: &str = "external";

/// Why one firing of an external hook failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FiringError {
    /// The transport brought nothing back.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The hook's answer cannot be read.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
}

/// What a chain entry needs of an [`ExternalHook`], fixed when the hook is added.
#[derive(Debug, Clone)]
pub struct Firing {
    name: Arc<str>,
    event: String,
    /// The dialect the hook speaks (its file's, or its event name's: [`dialect`]).
    dialect: Dialect,
    matcher: Matcher,
    timeout: Duration,
    /// `command `./guard.sh` (hookchain.yaml:12)`, for messages.
    described: String,
}

impl Firing {
    /// The firing of `hook` (its time limit capped at [`MAX_TIMEOUT`]).
    pub fn new(hook: &ExternalHook) -> Firing {
        Firing {
            name: hook.name.as_str().into(),
            event: hook.event.clone(),
            dialect: dialect(hook),
            matcher: hook.matcher.clone(),
            timeout: hook.timeout.min(MAX_TIMEOUT),
            described: format!(
                "{} `{}`, configured at {}",
                hook.transport.kind(),
                hook.transport.target(),
                hook.origin.short()
            ),
        }
    }

    /// Fires the hook once on point `P` through `invoker` (steps 1–3 of the
    /// [module docs](self)). A failure is an `Err`, for the chain to handle by the hook's policy.
    pub fn fire<P: WirePoint>(
        &self,
        invoker: &dyn Invoke,
        input: &P::Input,
        cx: &HookContext<'_>,
    ) -> Result<HookResult<P::Rewrite>, HookError> {
        if !self.matches::<P>(input) {
            return Ok(HookResult::Pass);
        }
        if !P::fires_for(input, &self.event, self.dialect.base()) {
            return Ok(HookResult::Pass);
        }
        if let Some(overlay) = agents::overlay(self.dialect)
            && (!(overlay.fires_for)(P::NAME, &self.event, P::tool_name(input))
                || !agents::fires_for_fields(overlay, &self.event, || P::fields(input)))
        {
            return Ok(HookResult::Pass);
        }
        match self.answer::<P>(invoker, input, cx) {
            Ok(mut decision) => {
                super::wire::adapt_as::<P>(input, &mut decision, self.dialect, &self.event, cx);
                Ok(P::apply_answer(input, decision, cx))
            }
            Err(FiringError::Transport(error)) if error.cannot_run() => {
                Err(HookError::cannot_run(format!(
                    "external hook `{}` ({}) failed: {error}",
                    self.name, self.described
                )))
            }
            Err(error) => {
                let message = format!(
                    "external hook `{}` ({}) failed: {error}",
                    self.name, self.described
                );
                Err(HookError::new(message))
            }
        }
    }

    /// `true` when the hook's matcher lets this firing through (step 1 of the
    /// [module docs](self)).
    fn matches<P: WirePoint>(&self, input: &P::Input) -> bool {
        if self.matcher.reads_content() {
            return self.matcher.is_all() || self.matcher.matches_content(&P::fields(input));
        }
        if let Some(tool) = P::tool_name(input) {
            // An agent's scripts know the tool by the agent's name for it; the session's own
            // name is matched too, so a matcher written either way fires.
            return self.matcher.matches(tool)
                || self
                    .matcher
                    .matches(&agents::tool_name_in(self.dialect, tool));
        }
        match P::event_subject(input, self.dialect.base()) {
            Subject::Unfiltered => true,
            Subject::Value(value) => {
                // The agent's name for the value, when it has its own.
                let theirs = agents::overlay(self.dialect)
                    .and_then(|overlay| (overlay.subject)(P::NAME, &value));
                self.matcher.matches(theirs.unwrap_or(&value))
            }
            Subject::Unknown => self.matcher.is_all(),
        }
    }

    /// Sends the payload and reads the answer.
    fn answer<P: WirePoint>(
        &self,
        invoker: &dyn Invoke,
        input: &P::Input,
        cx: &HookContext<'_>,
    ) -> Result<protocol::Answer, FiringError> {
        let payload = super::wire::payload_in::<P>(&self.event, self.dialect, input, cx);
        let bytes = serde_json::to_vec(&payload)
            .map_err(|e| TransportError::Io(format!("cannot serialize the payload: {e}")))?;
        let dir = cx.session_state().given_project_dir();
        let raw = program::with_firing_dir(dir, || invoker.invoke(&bytes, self.timeout));
        let tap = cx
            .session_state()
            .with_ext(|tap: &mut Tap| tap.0.clone())
            .flatten();
        if let Some(tap) = tap {
            tap(&Exchange {
                hook: &self.name,
                event: &self.event,
                payload: &bytes,
                answer: raw.as_ref(),
            });
        }
        let raw = raw?;
        Ok(match agents::overlay(self.dialect) {
            Some(overlay) => (overlay.decide)(P::NAME, &self.event, &raw)?,
            None => decide_in(&raw, self.dialect)?,
        })
    }

    /// Fires a wildcard hook once with the event of a dispatch: sends
    /// [`DispatchEvent::to_json`](hookchain_core::DispatchEvent::to_json) through `invoker` and
    /// waits for it to end. The hook only observes: its output is not read; a transport that
    /// fails or an exit code other than 0 is a failure, which the dispatch reports and never
    /// acts on.
    pub fn fire_wildcard(
        &self,
        invoker: &dyn Invoke,
        event: &hookchain_core::DispatchEvent,
        cx: &HookContext<'_>,
    ) -> Result<(), HookError> {
        let failed = |error: String| {
            HookError::new(format!(
                "external hook `{}` ({}) failed: {error}",
                self.name, self.described
            ))
        };
        let bytes = serde_json::to_vec(&event.to_json())
            .map_err(|e| failed(format!("cannot serialize the event: {e}")))?;
        let dir = cx.session_state().given_project_dir();
        let raw = program::with_firing_dir(dir, || invoker.invoke(&bytes, self.timeout))
            .map_err(|e| failed(e.to_string()))?;
        // `process` and `http` have no exit code: their answer arriving is success.
        match raw.exit_code {
            None | Some(0) => Ok(()),
            Some(code) => Err(failed(format!(
                "it exited with code {code}: {}",
                String::from_utf8_lossy(&raw.stderr)
                    .chars()
                    .take(80)
                    .collect::<String>()
            ))),
        }
    }

    /// The hook's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
/// One exchange of an external hook with its transport, as a [`tap`] sees it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Exchange<'a> {
    /// The hook's name.
    pub hook: &'a str,
    /// The event as the hook was configured (`Stop`, `pre_tool_use`, `on_stop`).
    pub event: &'a str,
    /// The exact bytes sent: the payload's JSON.
    pub payload: &'a [u8],
    /// What came back — the exit code, stdout and stderr, before any dialect is read — or why
    /// nothing did.
    pub answer: Result<&'a RawOutput, &'a TransportError>,
}

/// The tap of a session, if one is set.
type TapFn = Arc<dyn Fn(&Exchange<'_>) + Send + Sync>;

/// A typed slot of the session state holding its tap.
#[derive(Default)]
struct Tap(Option<TapFn>);

/// Lets `tap` see every exchange of the session's external hooks with their transports: the
/// exact payload sent and the raw answer (stdout, stderr and exit code, also of a hook that
/// passes), or the transport's error — after the hook's matcher let the firing through, before
/// its answer is read, in chain order, on the firing's thread. A hook whose matcher does not
/// match is not seen: nothing was sent. Setting a tap again replaces it. `hookchain test
/// --verbose` prints what its tap sees; the tap must not block, it holds up the chain.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use hookchain::SessionState;
/// use hookchain::external::hook::tap;
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let state = SessionState::default();
/// let log = seen.clone();
/// tap(&state, move |exchange| {
///     let stderr = match exchange.answer {
///         Ok(raw) => String::from_utf8_lossy(&raw.stderr).into_owned(),
///         Err(error) => error.to_string(),
///     };
///     log.lock().unwrap().push((exchange.hook.to_owned(), stderr));
/// });
/// // hooks.dispatch_in_session::<P>("s-1", &state, value) now reports each external hook.
/// ```
pub fn tap(state: &SessionState, tap: impl Fn(&Exchange<'_>) + Send + Sync + 'static) {
    let tap: TapFn = Arc::new(tap);
    state.with_ext_or_default(|slot: &mut Tap| slot.0 = Some(tap));
}

/// The dialect `hook` speaks: its file's ([`ExternalHook::dialect`]: Claude Code, docker-agent,
/// Hermes, Starchild), else the dialect whose name for the point its event is (`post_tool_call`:
/// Hermes); [`Dialect::Hookchain`] when the event is the point's canonical name in a
/// `hookchain.yaml`.
pub fn dialect(hook: &ExternalHook) -> Dialect {
    if hook.dialect != Dialect::Hookchain {
        return hook.dialect;
    }
    points::resolve(hook.point)
        .and_then(|point| point.dialect_of(&hook.event))
        .unwrap_or(Dialect::Hookchain)
}

/// The transport of `transport`: a [`CommandHook`](super::command::CommandHook), a
/// [`ProcessHook`](super::process::ProcessHook) or an [`HttpHook`](super::http::HttpHook).
/// Fails when the hook cannot be used at all (a missing or non-executable program, a malformed
/// URL): config loaders call it to report that at load time.
#[allow(unreachable_code, unreachable_patterns)]
pub fn invoker(transport: &Transport) -> Result<Arc<dyn Invoke>, TransportError> {
    Ok(match transport {
        #[cfg(all(unix, feature = "command"))]
        Transport::Command(spec) => Arc::new(super::command::CommandHook::new(spec.clone())?),
        #[cfg(all(unix, feature = "process"))]
        Transport::Process(spec) => Arc::new(super::process::ProcessHook::new(spec.clone())?),
        #[cfg(feature = "http")]
        Transport::Http(spec) => Arc::new(super::http::HttpHook::new(spec.clone())?),
        other => return Err(not_built(other.kind())),
    })
}

/// Why a transport is not part of this build, and what would make it one.
fn not_built(transport: &'static str) -> TransportError {
    let fix = match transport {
        "command" if cfg!(not(unix)) => "external commands run on Unix only",
        "process" if cfg!(not(unix)) => "worker processes run on Unix only",
        "command" => "enable hookchain's `command` feature",
        "process" => "enable hookchain's `process` feature",
        _ => "enable hookchain's `http` feature",
    };
    TransportError::NotBuilt { transport, fix }
}

/// A transport that could not be built: every firing fails with the error it met, as
/// [`TransportError::CannotRun`], so the hook's policy applies — and a required hook blocks —
/// and the problem is never a silent pass.
#[derive(Debug)]
pub struct Unusable(pub TransportError);

impl Invoke for Unusable {
    fn invoke(&self, _payload: &[u8], _timeout: Duration) -> Result<RawOutput, TransportError> {
        Err(TransportError::CannotRun(self.0.to_string()))
    }
}

/// Adds external hooks to a [`HooksBuilder`]: `use hookchain::{HookContext, prelude::*};` brings it in.
pub trait ExternalHooksExt: Sized {
    /// Adds an external hook — a script, a long-lived worker or an HTTP endpoint — to the chain
    /// of its point, reached through the transport `hook.transport` names.
    ///
    /// The hook runs in priority order with every other hook of the point; see the
    /// [module docs](self) for what one firing does and
    /// [`external_with`](ExternalHooksExt::external_with) for where it is listed.
    ///
    /// A transport that cannot be built (a missing or non-executable program, a malformed URL, a
    /// transport not part of this build) is logged as an error and the hook is added all the
    /// same: every firing fails with that error, so the hook's `on_error` applies — a guard with
    /// `on_error: block` blocks instead of vanishing. Config loaders report the problem at load
    /// time with [`invoker`].
    fn external(self, hook: ExternalHook) -> Self;

    /// Adds an external hook that reaches its script, worker or endpoint through `invoker`
    /// instead of the transport of `hook.transport`: for tests (a fake [`Invoke`]) and for
    /// transports of your own.
    ///
    /// The hook joins the chain of `hook.point` named `hook.name`, at `hook.priority`, in the
    /// extension [`EXTENSION`], listed by `describe()` at the file and line it was configured at.
    /// A point that is not one of the built-in points is logged as an error and the hook is left
    /// out.
    fn external_with(self, hook: ExternalHook, invoker: Arc<dyn Invoke>) -> Self;

    /// [`external_with`](ExternalHooksExt::external_with), in the extension `extension` instead
    /// of [`EXTENSION`]: for the hooks of an external extension (an `EXTENSION.yaml`), which
    /// are switched on and off with the rest of their extension.
    fn external_in(self, hook: ExternalHook, invoker: Arc<dyn Invoke>, extension: &str) -> Self;
}

impl ExternalHooksExt for HooksBuilder {
    #[track_caller]
    fn external(self, hook: ExternalHook) -> Self {
        let invoker = invoker(&hook.transport).unwrap_or_else(|error| {
            tracing::error!(
                hook = hook.name,
                "external hook `{}` ({}) cannot be used, every firing will fail: {error}",
                hook.name,
                hook.origin.short()
            );
            Arc::new(Unusable(error))
        });
        self.external_with(hook, invoker)
    }

    #[track_caller]
    fn external_with(self, hook: ExternalHook, invoker: Arc<dyn Invoke>) -> Self {
        self.external_in(hook, invoker, EXTENSION)
    }

    #[track_caller]
    fn external_in(self, hook: ExternalHook, invoker: Arc<dyn Invoke>, extension: &str) -> Self {
        let mut options = HookOptions::new(hook.name.clone())
            .priority(hook.priority)
            .extension(extension)
            .on_error(hook.on_error)
            .required(hook.required)
            .source(HookSource::External);
        if let Some(file) = hook.origin.path() {
            let line = hook
                .origin
                .line()
                .map_or(0, |l| u32::try_from(l).unwrap_or(u32::MAX));
            options = options.defined_at(file, line);
        }
        let firing = Firing::new(&hook);
        if hookchain_core::Pattern::is_wildcard(hook.point) {
            return self.watch(
                hook.point,
                options,
                move |event: &hookchain_core::DispatchEvent, cx: &HookContext<'_>| {
                    firing.fire_wildcard(&*invoker, event, cx)
                },
            );
        }
        // One arm per built-in point, from hooks-core's table of points.
        macro_rules! by_point {
            ([$builder:ident, $hook:ident, $options:ident, $firing:ident, $invoker:ident]
             $($(#[$doc:meta])* $point:ident { name: $name:literal, $($rest:tt)* })*) => {
                match $hook.point {
                    $($name => $builder.hook_with_errors(
                        points::$point,
                        $options,
                        move |input: &<points::$point as hookchain_core::HookPoint>::Input, cx: &HookContext<'_>| {
                            $firing.fire::<points::$point>(&*$invoker, input, cx)
                        },
                    ),)*
                    other => {
                        tracing::error!(
                            hook = $hook.name,
                            "external hook `{}` ({}) is for `{other}`, which is not a built-in point; it is left out",
                            $hook.name,
                            $hook.origin.short()
                        );
                        $builder
                    }
                }
            };
        }
        hookchain_core::__private::builtin_points!([self, hook, options, firing, invoker] => by_point)
    }
}
