//! Chains: the hooks of one point, in order, and how a value goes through them.
//!
//! # The chain rules
//!
//! Every point has one chain. Hooks run **one after another, in ascending priority** (lower runs
//! first); hooks with the same priority run in the order of their names, and hooks with the same
//! name in the order they were added, so the order is the same on every build and platform.
//!
//! 1. **Pass** — the next hook sees the value unchanged.
//! 2. **Rewrite** — the next hook sees the rewritten value; the agent gets the final value and the
//!    names of the hooks that rewrote it ([`Outcome::rewritten_by`]). On inject points a rewrite is
//!    an injection, and injections accumulate in chain order.
//! 3. **Block** — the chain stops at once; the agent gets the reason and the blocking hook's name
//!    ([`Blocked`]). Hooks after it do not run.
//! 4. **Metadata** — a hook may attach key/values (`cx.set_metadata`) that later hooks of the same
//!    dispatch read (`cx.metadata()`); the agent gets them with the outcome, together with the
//!    agent-facing context (`cx.add_context`), user-facing warnings (`cx.warn`) and the
//!    notifications hooks asked for (`cx.notify`, fired by the session or turn after the dispatch)
//!    of every hook, in chain order.
//! 5. **Failures** — a hook that panics or returns `Err` never takes the agent down, even when the
//!    panic's payload panics again as it is dropped. It is isolated, logged with `tracing`,
//!    recorded in [`Outcome::failures`], and handled by its `on_error` policy: `pass` goes on as
//!    if it had passed, `warn` goes on and adds a user-facing warning naming the hook, `block`
//!    blocks with a reason naming the hook.
//!    The value is never lost: a failed hook's partial work is discarded, and the next hook sees
//!    the value as it was before the failed one ran. A rewrite whose `apply` (the point's, see
//!    [`HookPoint::apply`]) panics is a failure of the hook that returned it, handled the same
//!    way; the value is then what `apply` left — as before that hook when `apply` panics before
//!    writing to it (a point's `apply` cannot be undone, so it should check before it writes).
//! 6. **Determinism** — the same hooks and the same input give the same outcome, whatever the
//!    number of threads dispatching at once.
//!
//! On observe points every hook runs: a rewrite or a block is logged and ignored,
//! and `on_error = "block"` is treated as `pass`.
//!
//! The hooks of a disabled extension are skipped as if they were not in the chain, from the next
//! dispatch that starts after the extension was disabled. A dispatch already under way when an
//! extension is switched — by another thread, or by one of its own hooks — may see the switch
//! from its next hook (a chain that checks its hooks one by one) or not at all (a chain of
//! compiled-in fns that found every extension enabled when it started runs them all, see
//! [Cost](#cost)). Either way a hook whose extension was enabled when the dispatch started is
//! not skipped in silence: it runs, or, when it is required, the chain blocks.
//!
//! # Required hooks
//!
//! A required hook ([`HookOptions::required`](crate::HookOptions::required),
//! [`require_hook`](crate::HooksBuilder::require_hook),
//! [`require_extension`](crate::HooksBuilder::require_extension), `required: true` in a config
//! file) is never skipped in silence. When the dispatch reaches it and its extension is
//! disabled, the chain blocks there, with a reason naming the hook, where it is defined, its
//! extension and who disabled it (`disabled by ./hookchain.yaml:7`, `disabled by the agent's
//! code`). When it fails because it could not run at all
//! ([`HookError::cannot_run`](hookchain_core::HookError::cannot_run): its script changed since it
//! was approved, its transport cannot be built), the chain blocks whatever its `on_error`. Both
//! blocks are failures ([`Blocked::failed`](hookchain_core::Blocked)). Any other failure of a
//! required hook is handled by its `on_error`. On observe points nothing blocks: a disabled
//! required hook is skipped there, as every other.
//!
//! # Cost
//!
//! A chain is built once per point and then only read. The `Turn`'s point methods check first
//! whether the point has any hook (one flag per built-in point in the registry, read through the
//! turn with no lookup of the chain), like a disabled `tracing` callsite: a point nobody hooks
//! builds no context, no outcome, and sets up no unwind guard.
//!
//! A hooked point runs its **pass path** (`Chain::pass`) first: the value stays where the
//! caller has it and hooks get a reference to it; the context is built once on the stack; one
//! unwind guard covers the whole loop. A chain made only of compiled-in sync fns whose extensions
//! are all enabled runs them in a loop that tests nothing but each result: whether every
//! extension is still enabled is one compare per dispatch, of the process-wide count of
//! extension switches with the count at which the chain last found them all enabled (the flags
//! are read again only after a switch). A hook that passes then costs its call, one compare and
//! one pointer written into the context (the running hook, which also tells, after a panic,
//! which hook panicked). Any other chain (closures, async or external hooks, a disabled
//! extension) checks each hook: its kind, and its extension's flag when some extension of the
//! process is disabled. When every hook passes and none annotates, nothing else is
//! built and nothing is allocated: the annotations are made on first use, and the outcome's
//! lists are never assembled. The first hook that does anything else (rewrites, blocks, fails,
//! panics), or an annotation, hands over to `Chain::resume`, off the hot path, which settles
//! it, runs the rest of the chain with the full bookkeeping (one unwind guard, renewed after each
//! panic) and assembles the [`Outcome`]. The `Turn`'s point methods hand back the flow alone,
//! so they do not record which hooks rewrote: a rewrite allocates only its value.
//!
//! The context borrows the turn's and the session's state handles, so `cx.turn_state()` costs no
//! lookup; the dispatch also notes, in one thread-local cell, which registry, session and turn it
//! runs for, which is what lets `get_turn_state(id)` called from a hook find the hook's own
//! session. `benches/dispatch_instructions.rs` counts the instructions of a dispatch against the
//! same fns called through a slice of fn pointers; BENCHMARKS.md has the figures.
//!
//! # Wildcard hooks
//!
//! A chain also holds the wildcard hooks whose pattern matches its point
//! ([`hookchain_core::Pattern`], resolved when the chain is built). They run **after** the chain,
//! in (priority, name) order, each with the one [`DispatchEvent`] of the dispatch: the point,
//! the session and turn, the payload as it came in (as JSON), the decision with the hook that
//! blocked or rewrote, the failures and the chain's duration. They only observe: what they
//! return, the context and warnings they add are ignored, and one that panics or fails is
//! logged and listed in [`Outcome::failures`] (so `notification` reports it) without changing
//! the flow. A disabled extension's wildcard hooks are skipped; a `Drop` runs none that is
//! external.
//!
//! A chain nobody watches pays nothing for this: the `Turn`'s point methods read one more flag
//! per built-in point (set when the registry is built) only once the point is known to be
//! hooked, and a watched point goes through the full dispatch, off the pass path.
//!
//! # Async hooks
//!
//! Async hooks run inside the async dispatch (every `_async` method of
//! [`Turn`](crate::Turn), [`Session`](crate::Session) and [`Hooks`](crate::Hooks)), awaited in
//! chain order with the sync hooks between them. The synchronous dispatch drives them itself:
//!
//! - outside any tokio runtime, on the calling thread (parking between polls), which suits hooks
//!   that need no I/O reactor;
//! - inside a multi-thread tokio runtime (with the `tokio` feature), through the runtime:
//!   `tokio::task::block_in_place` and the runtime handle's `block_on`, so tokio's timers and I/O
//!   work;
//! - inside a current-thread tokio runtime, not at all: the one thread that could drive the
//!   hook's timers and I/O is the one waiting for it, so waiting would hang the runtime. A hook
//!   that finishes at its first poll still runs; one that would wait fails at once, under its
//!   `on_error`, with an error naming the `_async` method to call instead. (The runtime cannot
//!   tell its own thread from its `spawn_blocking` threads, so this holds there too.)
//!
//! Telling the runtimes apart needs the `tokio` feature: without it, the sync API drives async
//! hooks on the calling thread wherever it is called, and inside a tokio runtime only the time
//! limit ends a hook that waits on tokio.
//!
//! Every async hook has a time limit (default [`DEFAULT_ASYNC_TIMEOUT`](crate::DEFAULT_ASYNC_TIMEOUT),
//! [`HooksBuilder::async_timeout`](crate::HooksBuilder::async_timeout); shorter on observe
//! points), in both dispatches: past it the hook is dropped at its next `.await` and fails with
//! "timed out".

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hookchain_core::__private::{RunningHook, TurnScope, Wildcard};
use hookchain_core::{
    Annotations, AsyncHookFn, Blocked, BoxFuture, DispatchEvent, Flow, HookContext, HookError,
    HookOutput, HookPoint, HookResult, HookReturn, Metadata, Notification, OnError, PointKind,
    SessionState, SyncHookFn, SyncReturn, TurnState,
};

use serde_json::Value;
use tracing::Instrument;

use crate::exec::{self, Driven};
use crate::state::{self, Frame};
use crate::trace;

/// A closure hook, as added through [`HooksBuilder`](crate::HooksBuilder).
pub(crate) type SyncClosure<P> = Arc<
    dyn for<'a, 'b, 'c> Fn(&'a <P as HookPoint>::Input, &'b HookContext<'c>) -> HookReturn<P>
        + Send
        + Sync,
>;

/// An async closure hook, as added through [`HooksBuilder`](crate::HooksBuilder).
pub(crate) type AsyncClosure<P> = Arc<
    dyn for<'a> Fn(&'a <P as HookPoint>::Input, &'a HookContext<'a>) -> BoxFuture<'a, HookReturn<P>>
        + Send
        + Sync,
>;

/// How a hook is called.
pub(crate) enum Handler<P: HookPoint> {
    Sync(SyncHookFn<P>),
    Async(AsyncHookFn<P>),
    SyncClosure(SyncClosure<P>),
    AsyncClosure(AsyncClosure<P>),
}

impl<P: HookPoint> Handler<P> {
    /// Calls the hook; an async hook is driven to completion as the [module docs](self#async-hooks)
    /// say, for at most `limit`. `via` names the `_async` method of the caller.
    #[inline(always)]
    fn call(
        &self,
        input: &P::Input,
        cx: &HookContext<'_>,
        // By reference, read only by the async arms: a sync hook's call loads nothing more.
        limit: &Option<Duration>,
        via: &'static str,
    ) -> HookReturn<P> {
        // A compiled-in sync hook, the common case, is told apart with one compare.
        if let Handler::Sync(f) = self {
            return f(input, cx).into_return();
        }
        self.call_other(input, cx, limit, via)
    }

    /// [`call`](Self::call) for every handler but a compiled-in sync one.
    #[inline(never)]
    fn call_other(
        &self,
        input: &P::Input,
        cx: &HookContext<'_>,
        limit: &Option<Duration>,
        via: &'static str,
    ) -> HookReturn<P> {
        match self {
            Handler::Sync(f) => f(input, cx).into_return(),
            Handler::SyncClosure(f) => f(input, cx),
            Handler::Async(f) => drive::<P>(f(input, cx), *limit, via),
            Handler::AsyncClosure(f) => drive::<P>(f(input, cx), *limit, via),
        }
    }

    pub(crate) fn is_async(&self) -> bool {
        matches!(self, Handler::Async(_) | Handler::AsyncClosure(_))
    }
}

impl<P: HookPoint> Clone for Handler<P> {
    fn clone(&self) -> Self {
        match self {
            Handler::Sync(f) => Handler::Sync(*f),
            Handler::Async(f) => Handler::Async(*f),
            Handler::SyncClosure(f) => Handler::SyncClosure(Arc::clone(f)),
            Handler::AsyncClosure(f) => Handler::AsyncClosure(Arc::clone(f)),
        }
    }
}

/// One hook in a chain.
pub(crate) struct Entry<P: HookPoint> {
    /// Its name and its extension (shared by every entry of the extension's hooks; a disabled
    /// one's entries are skipped), which the context hands to the hook while it runs.
    pub(crate) hook: RunningHook,
    /// The fn of a compiled-in sync hook, which the pass path of a chain made only of them calls
    /// with no test of the handler's kind; [`not_a_fn`] for every other handler.
    pub(crate) call: SyncHookFn<P>,
    pub(crate) on_error: OnError,
    pub(crate) handler: Handler<P>,
    /// An external hook (a script, a worker, an endpoint), which a `Drop` never runs.
    pub(crate) external: bool,
    /// Where a required hook is defined (`file:line`); `None` for a hook that is not required.
    pub(crate) required: Option<Arc<str>>,
}

/// The [`Entry::call`] of a hook that is not a compiled-in sync fn. The pass path calls `call`
/// only in a chain whose every hook is one ([`Chain::sync_fns`]), so this is never called; if it
/// were, the hook fails instead of being skipped.
fn not_a_fn<P: HookPoint>(_: &P::Input, _: &HookContext<'_>) -> SyncReturn<P> {
    HookOutput::Failed(HookError::new(
        "hookchain called a hook that is not a compiled-in fn as one; this is a bug of hookchain",
    ))
}

impl<P: HookPoint> Entry<P> {
    /// The entry of `handler`, named and placed by `hook`.
    pub(crate) fn new(
        hook: RunningHook,
        handler: Handler<P>,
        on_error: OnError,
        external: bool,
        required: Option<Arc<str>>,
    ) -> Self {
        let call = match handler {
            Handler::Sync(f) => f,
            _ => not_a_fn::<P>,
        };
        Entry {
            hook,
            call,
            on_error,
            handler,
            external,
            required,
        }
    }

    /// `true` when a `Drop` may run it: a sync hook compiled into the program.
    fn runs_on_drop(&self) -> bool {
        !self.external && !self.handler.is_async()
    }

    /// `true` for a required hook, on a point that can block, whose extension is disabled: the
    /// dispatch blocks there instead of skipping it.
    #[cold]
    #[inline(never)]
    fn blocks_when_disabled(&self) -> bool {
        self.required.is_some()
            && P::KIND != PointKind::Observe
            && !self.hook.extension.is_enabled()
    }

    /// The block of a required hook whose extension is disabled; `None` when the hook is not
    /// required, or its point cannot block.
    #[cold]
    #[inline(never)]
    fn disabled_block(&self) -> Option<Blocked> {
        let at = self.required.as_ref()?;
        if P::KIND == PointKind::Observe {
            return None;
        }
        let who = match self.hook.extension.disabled_by() {
            Some(who) => format!("disabled by {who}"),
            None => "disabled".to_owned(),
        };
        let reason = format!(
            "required hook `{}` ({at}) did not run: its extension `{}` is {who}; `{}` is blocked \
             until the extension is enabled again",
            self.hook.name,
            self.hook.extension.name(),
            P::NAME
        );
        tracing::error!(point = P::NAME, hook = &*self.hook.name, "{reason}");
        Some(Blocked::failure(reason, &*self.hook.name))
    }
}

/// The hooks of point `P`, sorted.
pub(crate) struct Chain<P: HookPoint> {
    pub(crate) entries: Box<[Entry<P>]>,
    /// How long an async hook of this chain may run.
    pub(crate) async_limit: Option<Duration>,
    /// `true` when no hook of the chain is async: the async dispatch then runs it as the sync
    /// one does, with nothing to await.
    pub(crate) all_sync: bool,
    /// The wildcard hooks watching this point, sorted: they run after the chain (see the
    /// [module docs](self#wildcard-hooks)).
    pub(crate) watchers: Box<[Entry<Wildcard>]>,
    /// Per wildcard hook, `true` when it reads the event's payload.
    pub(crate) reads_payload: Box<[bool]>,
    /// `true` when every hook of the chain is a compiled-in sync fn ([`Entry::call`]).
    pub(crate) sync_fns: bool,
    /// Whether every hook is a compiled-in fn whose extension is enabled, as last checked, and
    /// at which [`Extension::switches`](hookchain_core::Extension::switches) count: twice the count,
    /// plus one for `true`. While the count has not moved the answer holds; while it is `true`,
    /// the pass path runs the hooks with no check of their extensions.
    pub(crate) enabled_at: AtomicU64,
}

/// Where a dispatch happens: the session and turn its hooks see.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub(crate) session_id: &'a str,
    pub(crate) turn: u64,
    /// The states hooks get from `cx.turn_state()` and `cx.session_state()`; `None` outside any
    /// session.
    pub(crate) states: Option<(&'a TurnState, &'a SessionState)>,
    /// The turn's own record of all the above, in a dispatch of a turn: the context then points
    /// at it instead of copying each part.
    pub(crate) turn_scope: Option<&'a TurnScope>,
    /// What `get_turn_state` on the dispatch's thread needs to find the dispatch's session.
    pub(crate) frame: Frame,
    /// The `_async` method to name when an async hook cannot be driven by the sync dispatch.
    pub(crate) via: &'static str,
}

impl<'a> Scope<'a> {
    /// The context of a dispatch of `P` in this scope.
    #[inline(always)]
    fn context<P: HookPoint>(&self, notes: &'a Annotations) -> HookContext<'a> {
        if let Some(scope) = self.turn_scope {
            return HookContext::for_turn(scope, P::NAME, notes);
        }
        let cx = HookContext::new(self.session_id, self.turn, P::NAME, notes);
        match self.states {
            Some((turn, session)) => cx.with_state(turn, session),
            None => cx,
        }
    }
}

/// A hook that failed during a dispatch and how its failure was handled.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookFailure {
    /// The hook's name.
    pub hook: String,
    /// What went wrong: the `Err`'s message, or the panic's.
    pub error: String,
    /// `true` when the hook panicked, `false` when it returned `Err`.
    pub panicked: bool,
    /// The policy applied.
    pub on_error: OnError,
}

impl fmt::Display for HookFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.panicked { "panicked" } else { "failed" };
        write!(
            f,
            "hook `{}` {how}: {} (on_error = {})",
            self.hook, self.error, self.on_error
        )
    }
}

/// Everything a dispatch produced: the flow, and what the hooks attached on the way.
///
/// When every hook passes, the lists are empty and nothing was allocated.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Outcome<T> {
    /// Go on with the (possibly rewritten) value, or stop.
    pub flow: Flow<T>,
    /// The hooks that rewrote (or injected into) the value, in chain order.
    pub rewritten_by: Vec<String>,
    /// Metadata attached by the hooks.
    pub metadata: Metadata,
    /// Agent-facing context added by the hooks, in chain order.
    pub context: Vec<String>,
    /// User-facing warnings added by the hooks, in chain order.
    pub warnings: Vec<String>,
    /// Notifications the hooks asked for (`cx.notify`), in chain order: a `Session` or a
    /// `Turn` fires them through `notification` after the dispatch; `Hooks::dispatch` leaves
    /// them here.
    pub notifications: Vec<Notification>,
    /// Hooks that panicked or returned `Err`, in chain order.
    pub failures: Vec<HookFailure>,
}

impl<T> Outcome<T> {
    /// `value` unchanged, as a chain with no hooks gives it back: nothing to build, nothing
    /// allocated.
    #[inline(always)]
    pub(crate) fn passed(value: T) -> Self {
        Outcome {
            flow: Flow::Continue(value),
            rewritten_by: Vec::new(),
            metadata: Metadata::new(),
            context: Vec::new(),
            warnings: Vec::new(),
            notifications: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// The flow alone.
    #[inline]
    pub fn into_flow(self) -> Flow<T> {
        self.flow
    }

    /// `true` when a hook blocked.
    pub fn is_blocked(&self) -> bool {
        self.flow.is_blocked()
    }
}

/// Where the pass path of a dispatch stopped (`Chain::pass`), for [`Chain::resume`]; or, for a
/// point a wildcard hook watches, that it did not start ([`Stopped::watched`]).
pub(crate) struct Stopped<P: HookPoint> {
    /// The result of the hook at `at` (`Ok(None)`: every hook passed, and one annotated), or
    /// its panic.
    stopped: std::thread::Result<Option<HookReturn<P>>>,
    at: usize,
    notes: Annotations,
}

/// The bookkeeping of one dispatch. The value itself is kept apart, in a local of the dispatch,
/// so that it is moved only into and out of the dispatch, not with the bookkeeping.
struct Run<P: HookPoint> {
    /// The next hook to run; during a call, the hook being called.
    next: usize,
    rewritten_by: Vec<String>,
    failures: Vec<HookFailure>,
    point: PhantomData<fn() -> P>,
}

impl<P: HookPoint> Stopped<P> {
    /// The mark of a watched point: no hook ran, the full dispatch is still to run.
    #[cold]
    pub(crate) fn watched() -> Self {
        Stopped {
            stopped: Ok(None),
            at: usize::MAX,
            notes: Annotations::new(),
        }
    }

    /// `true` for [`Stopped::watched`].
    pub(crate) fn is_watched(&self) -> bool {
        self.at == usize::MAX
    }
}

impl<P: HookPoint> Run<P> {
    #[inline(always)]
    fn new() -> Self {
        Run {
            next: 0,
            rewritten_by: Vec::new(),
            failures: Vec::new(),
            point: PhantomData,
        }
    }

    /// Applies one hook's result to `value`. `Some` when the chain must stop. `NAMES`: record
    /// the names of the hooks that rewrite (the lean dispatch, whose caller gets only the flow,
    /// does not, so a rewrite allocates nothing but its value).
    #[inline(always)]
    fn settle<const NAMES: bool>(
        &mut self,
        value: &mut P::Value,
        entry: &Entry<P>,
        result: HookReturn<P>,
        cx: &HookContext<'_>,
    ) -> Option<Blocked> {
        match result {
            Ok(HookResult::Pass) => None,
            Ok(HookResult::Rewrite(rewrite)) => {
                if P::KIND == PointKind::Observe {
                    tracing::warn!(
                        point = P::NAME,
                        hook = &*entry.hook.name,
                        "an observe hook cannot rewrite; ignored"
                    );
                    return None;
                }
                // Both dispatches settle a hook's result with `next` past it; while the point
                // applies the rewrite, `next` names the hook that returned it, so that a panic in
                // `apply` is that hook's failure (the sync dispatch's unwind guard reads it).
                self.next -= 1;
                P::apply(value, rewrite);
                self.next += 1;
                if NAMES {
                    self.rewritten_by.push(entry.hook.name.to_string());
                }
                None
            }
            Ok(HookResult::Block(reason)) => {
                if P::KIND == PointKind::Observe {
                    tracing::warn!(
                        point = P::NAME,
                        hook = &*entry.hook.name,
                        reason = reason.as_str(),
                        "an observe hook cannot block; ignored"
                    );
                    None
                } else {
                    tracing::debug!(
                        point = P::NAME,
                        hook = &*entry.hook.name,
                        reason = reason.as_str(),
                        "blocked"
                    );
                    Some(Blocked::new(reason.into_string(), &*entry.hook.name))
                }
            }
            Err(error) => self.fail(entry, error, false, cx),
        }
    }

    #[cold]
    fn fail(
        &mut self,
        entry: &Entry<P>,
        error: HookError,
        panicked: bool,
        cx: &HookContext<'_>,
    ) -> Option<Blocked> {
        let cannot_run = error.is_cannot_run() && entry.required.is_some();
        let on_error = match (P::KIND, entry.on_error) {
            (PointKind::Observe, _) if cannot_run => OnError::Pass,
            (PointKind::Observe, OnError::Block) => OnError::Pass,
            // A required hook that could not run blocks, whatever its policy.
            (_, _) if cannot_run => OnError::Block,
            (_, policy) => policy,
        };
        let failure = HookFailure {
            hook: entry.hook.name.to_string(),
            error: error.message().to_owned(),
            panicked,
            on_error,
        };
        tracing::error!(point = P::NAME, "{failure}");
        let blocked = match on_error {
            OnError::Pass => None,
            OnError::Warn => {
                cx.warn(format!("{failure}; the chain went on without it"));
                None
            }
            OnError::Block if cannot_run => Some(Blocked::failure(
                format!(
                    "required hook `{}` ({}) did not run: {}",
                    entry.hook.name,
                    entry.required.as_deref().unwrap_or("-"),
                    error.message()
                ),
                &*entry.hook.name,
            )),
            OnError::Block => Some(Blocked::failure(
                format!(
                    "hook `{}` {} and its policy is to block: {}",
                    entry.hook.name,
                    if panicked { "panicked" } else { "failed" },
                    error.message()
                ),
                &*entry.hook.name,
            )),
        };
        self.failures.push(failure);
        blocked
    }

    #[inline(always)]
    fn finish(
        self,
        value: P::Value,
        blocked: Option<Blocked>,
        notes: Annotations,
    ) -> Outcome<P::Value> {
        let notes = notes.into_attached().unwrap_or_default();
        Outcome {
            flow: match blocked {
                Some(b) => Flow::Blocked(b),
                None => Flow::Continue(value),
            },
            rewritten_by: self.rewritten_by,
            metadata: notes.metadata,
            context: notes.context,
            warnings: notes.warnings,
            notifications: notes.notifications,
            failures: self.failures,
        }
    }
}

impl<P: HookPoint> Chain<P> {
    /// The chain of `entries`, sorted, watched by `watchers` (sorted, with whether each reads
    /// the payload); async hooks run for at most `async_limit`.
    pub(crate) fn new(
        entries: Box<[Entry<P>]>,
        watchers: Box<[Entry<Wildcard>]>,
        reads_payload: Box<[bool]>,
        async_limit: Option<Duration>,
    ) -> Self {
        Chain {
            all_sync: entries.iter().all(|e| !e.handler.is_async()),
            sync_fns: entries
                .iter()
                .all(|e| matches!(e.handler, Handler::Sync(_))),
            // Matches no count (twice a count is even, and `MAX - 1` is beyond any count): the
            // first dispatch checks.
            enabled_at: AtomicU64::new(u64::MAX),
            entries,
            async_limit,
            watchers,
            reads_payload,
        }
    }

    /// `true` when no hook is on this point, and no wildcard hook watches it.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.watchers.is_empty()
    }

    /// `true` when a wildcard hook watches this point.
    #[inline(always)]
    pub(crate) fn is_watched(&self) -> bool {
        !self.watchers.is_empty()
    }

    /// Runs the chain synchronously; async hooks are driven as the
    /// [module docs](self#async-hooks) say.
    #[inline]
    pub(crate) fn dispatch(&self, value: P::Value, scope: Scope<'_>) -> Outcome<P::Value> {
        if self.is_watched() {
            return self.dispatch_watched::<false>(value, scope);
        }
        if self.entries.is_empty() {
            return Outcome::passed(value);
        }
        if trace::wanted() {
            return self.dispatch_watched::<false>(value, scope);
        }
        self.dispatch_sync::<false, true>(value, scope)
    }

    /// [`dispatch`](Self::dispatch) of a watched or traced point: the chain, timed and in its
    /// span ([`trace`]), then its wildcard hooks with the event of the dispatch.
    #[cold]
    #[inline(never)]
    fn dispatch_watched<const ON_DROP: bool>(
        &self,
        value: P::Value,
        scope: Scope<'_>,
    ) -> Outcome<P::Value> {
        let plan = self.watch_plan::<ON_DROP>(&value);
        let span = self.span(&value, &scope);
        if plan.is_none() && span.is_disabled() {
            return self.dispatch_sync::<ON_DROP, true>(value, scope);
        }
        let started = Instant::now();
        let mut outcome = span.in_scope(|| {
            if self.entries.is_empty() {
                Outcome::passed(value)
            } else {
                self.dispatch_sync::<ON_DROP, true>(value, scope)
            }
        });
        trace::record::<P, _>(&span, &outcome);
        if let Some(payload) = plan {
            self.report::<ON_DROP>(&mut outcome, payload, started.elapsed(), scope);
        }
        outcome
    }

    /// The span of a dispatch of `value` ([`trace`]): none when the chain has no hook or no
    /// subscriber wants it.
    fn span(&self, value: &P::Value, scope: &Scope<'_>) -> tracing::Span {
        match !self.entries.is_empty() && trace::wanted() {
            true => trace::dispatch_span::<P>(tool_name(value).as_deref(), scope),
            false => tracing::Span::none(),
        }
    }

    /// What the wildcard hooks of a dispatch of `value` need before the chain runs: `None` when
    /// none of them runs (their extensions are disabled), else the payload and the tool's name
    /// — the payload `Null` when none that runs reads it.
    fn watch_plan<const ON_DROP: bool>(&self, value: &P::Value) -> Option<(Value, Option<String>)> {
        let mut runs = false;
        let mut reads = false;
        for (watcher, payload) in self.watchers.iter().zip(self.reads_payload.iter()) {
            if !skipped::<Wildcard, ON_DROP>(watcher) {
                runs = true;
                reads |= *payload;
            }
        }
        if !runs {
            return None;
        }
        let payload = if reads {
            P::payload_json(value)
        } else {
            Value::Null
        };
        Some((payload, tool_name(value)))
    }

    /// Runs the wildcard hooks with the event of a dispatch whose outcome is `outcome`: each
    /// under an unwind guard of its own; a failure is logged and added to the outcome's
    /// failures, and nothing else of the outcome changes.
    #[cold]
    #[inline(never)]
    fn report<const ON_DROP: bool>(
        &self,
        outcome: &mut Outcome<P::Value>,
        (payload, tool): (Value, Option<String>),
        duration: Duration,
        scope: Scope<'_>,
    ) {
        let mut event = dispatch_event::<P, _>(outcome, payload, duration, scope);
        event.tool = tool;
        let _frame = state::enter(scope.frame);
        // What wildcard hooks attach (context, warnings, metadata) is ignored: they only observe.
        let notes = Annotations::new();
        let cx = scope.context::<P>(&notes);
        for watcher in self.watchers.iter() {
            if skipped::<Wildcard, ON_DROP>(watcher) {
                continue;
            }
            let cx = cx.running(&watcher.hook);
            let result = catch_unwind(AssertUnwindSafe(|| {
                watcher.handler.call(&event, &cx, &None, scope.via)
            }));
            let (error, panicked) = match result {
                Ok(Ok(_)) => continue,
                Ok(Err(error)) => (error.message().to_owned(), false),
                Err(panic) => (take_panic(panic), true),
            };
            let failure = HookFailure {
                hook: watcher.hook.name.to_string(),
                error,
                panicked,
                on_error: OnError::Pass,
            };
            tracing::error!(point = P::NAME, "wildcard {failure}");
            outcome.failures.push(failure);
        }
    }

    /// The pass path of the synchronous dispatch: runs the hooks while they pass, with `value`
    /// left where it is (hooks get a reference to it). `None` when every hook passed and none
    /// attached anything: the value is unchanged and nothing was built. Otherwise what
    /// [`resume`](Self::resume) needs to finish the dispatch.
    ///
    /// One unwind guard covers the whole pass path. The context lives outside it, and the
    /// running hook it names is written before each call (the hook reads it), so that after a
    /// panic it names the hook that panicked: no index is kept in the loop.
    #[inline(always)]
    pub(crate) fn pass<const ON_DROP: bool>(
        &self,
        value: &P::Value,
        scope: Scope<'_>,
    ) -> Option<Stopped<P>> {
        let _frame = state::enter(scope.frame);
        let mut notes = Annotations::new();
        let mut cx = scope.context::<P>(&notes);
        let stopped = catch_unwind(AssertUnwindSafe(|| {
            self.run_passing::<ON_DROP>(value, &mut cx, scope.via)
        }));
        // Only compared, never read through.
        let running = cx.running_hook().map(std::ptr::from_ref);
        match stopped {
            Ok(None) if notes.is_untouched() => None,
            stopped => self.stopped(stopped, running, notes),
        }
    }

    /// What [`resume`](Self::resume) needs after the pass path stopped at the hook at
    /// `running`.
    #[cold]
    #[inline(never)]
    fn stopped(
        &self,
        stopped: std::thread::Result<Option<SyncReturn<P>>>,
        running: Option<*const RunningHook>,
        notes: Annotations,
    ) -> Option<Stopped<P>> {
        let stopped = stopped.map(|output| output.map(HookOutput::into_return));
        let at = self.index_of(running);
        Some(Stopped { stopped, at, notes })
    }

    /// The index of the entry whose hook is at `running` (0 when none is).
    #[cold]
    #[inline(never)]
    fn index_of(&self, running: Option<*const RunningHook>) -> usize {
        running
            .and_then(|running| {
                self.entries
                    .iter()
                    .position(|entry| std::ptr::eq(&entry.hook, running))
            })
            .unwrap_or(0)
    }

    /// Finishes a dispatch whose pass path stopped: settles the result (or the panic) of the
    /// hook it stopped at, runs the rest of the chain with the bookkeeping a rewrite, a block or
    /// a failure needs, and assembles the outcome. `NAMES`: record the names of the hooks that
    /// rewrote.
    #[cold]
    #[inline(never)]
    pub(crate) fn resume<const ON_DROP: bool, const NAMES: bool>(
        &self,
        stop: Stopped<P>,
        value: P::Value,
        scope: Scope<'_>,
    ) -> Outcome<P::Value> {
        let _frame = state::enter(scope.frame);
        let Stopped { stopped, at, notes } = stop;
        self.settle_rest::<ON_DROP, NAMES>(stopped, at, value, notes, scope)
    }

    /// Runs the chain synchronously and hands back the whole outcome.
    #[inline(always)]
    fn dispatch_sync<const ON_DROP: bool, const NAMES: bool>(
        &self,
        value: P::Value,
        scope: Scope<'_>,
    ) -> Outcome<P::Value> {
        match self.pass::<ON_DROP>(&value, scope) {
            None => Outcome::passed(value),
            Some(stop) => self.resume::<ON_DROP, NAMES>(stop, value, scope),
        }
    }

    /// Runs only the hooks a `Drop` may run: the sync hooks compiled into the program. Async
    /// and external hooks are skipped as if they were not in the chain.
    pub(crate) fn dispatch_on_drop(&self, value: P::Value, scope: Scope<'_>) -> Outcome<P::Value> {
        if self.is_watched() || trace::wanted() {
            return self.dispatch_watched::<true>(value, scope);
        }
        self.dispatch_sync::<true, true>(value, scope)
    }

    /// The pass path's loop: runs the hooks while they pass. `Some` with the result of the
    /// first hook that did anything else, which the context then names as the running hook.
    ///
    /// In a chain made only of compiled-in sync fns whose extensions are all enabled (checked
    /// once per dispatch: one load of the process-wide switch count, one compare), a hook that
    /// passes costs its call, one compare, and one pointer written into the context (the running
    /// hook). Any other chain takes [`run_checked`](Self::run_checked).
    #[inline(always)]
    fn run_passing<'a, const ON_DROP: bool>(
        &'a self,
        value: &'a P::Value,
        cx: &mut HookContext<'a>,
        via: &'static str,
    ) -> Option<SyncReturn<P>> {
        let input = P::input(value);
        if ON_DROP || !self.all_enabled_fns() {
            return self
                .run_checked::<ON_DROP>(input, cx, via)
                .map(HookOutput::from);
        }
        for entry in self.entries.iter() {
            cx.set_running(&entry.hook);
            let output = (entry.call)(input, cx);
            if !output.is_pass() {
                return Some(output);
            }
        }
        None
    }

    /// `true` when every hook of the chain is a compiled-in sync fn and every hook's extension
    /// is enabled: two loads and a compare while no extension was switched since the chain last
    /// found so (a cold call when it found otherwise).
    #[inline(always)]
    fn all_enabled_fns(&self) -> bool {
        // The answer at a count is cached as twice the count, plus one when it is `true`.
        let checked = hookchain_core::Extension::switches().wrapping_mul(2);
        self.enabled_at.load(Ordering::Relaxed) == checked | 1 || self.check_enabled(checked)
    }

    /// [`all_enabled_fns`](Self::all_enabled_fns) when its answer is not a cached `true`: a
    /// cached `false` at this count, `checked` (twice the count), or else every hook's extension
    /// read (none, in a chain that is not made only of compiled-in fns) and the answer cached.
    #[cold]
    #[inline(never)]
    fn check_enabled(&self, checked: u64) -> bool {
        if self.enabled_at.load(Ordering::Relaxed) == checked {
            return false;
        }
        let enabled = self.sync_fns && self.entries.iter().all(|e| e.hook.extension.is_enabled());
        self.enabled_at
            .store(checked | u64::from(enabled), Ordering::Relaxed);
        enabled
    }

    /// The pass path's loop for every other chain: each hook's extension is checked before it
    /// runs (its own flag read only when some extension of the process is disabled), and its
    /// handler's kind tested.
    #[inline(never)]
    fn run_checked<'a, const ON_DROP: bool>(
        &'a self,
        input: &'a P::Input,
        cx: &mut HookContext<'a>,
        via: &'static str,
    ) -> Option<HookReturn<P>> {
        for entry in self.entries.iter() {
            if skipped::<P, ON_DROP>(entry) {
                if entry.blocks_when_disabled() {
                    // Hand over to the slow path, which blocks there: `Pass` is never what a
                    // hook's result stops this loop with, so it marks this case.
                    cx.set_running(&entry.hook);
                    return Some(Ok(HookResult::Pass));
                }
                continue;
            }
            cx.set_running(&entry.hook);
            let result = entry.handler.call(input, cx, &self.async_limit, via);
            if !matches!(result, Ok(HookResult::Pass)) {
                return Some(result);
            }
        }
        None
    }

    /// Everything after the pass path: settles the result (or the panic) of hook `at`, runs the
    /// rest of the chain, and assembles the outcome.
    fn settle_rest<const ON_DROP: bool, const NAMES: bool>(
        &self,
        stopped: std::thread::Result<Option<HookReturn<P>>>,
        at: usize,
        value: P::Value,
        notes: Annotations,
        scope: Scope<'_>,
    ) -> Outcome<P::Value> {
        let mut value = value;
        let mut run = Run::<P>::new();
        let blocked = {
            let cx = scope.context::<P>(&notes);
            let entry = &self.entries[at];
            let cx_at = cx.running(&entry.hook);
            run.next = at + 1;
            let first = match stopped {
                // Every hook passed; one attached something.
                Ok(None) => {
                    run.next = self.entries.len();
                    None
                }
                // The pass path stopped at a required hook whose extension is disabled.
                Ok(Some(Ok(HookResult::Pass))) => entry.disabled_block(),
                Ok(Some(result)) => {
                    // Guarded: the point's `apply` may panic, which is this hook's failure.
                    let settled = catch_unwind(AssertUnwindSafe(|| {
                        run.settle::<NAMES>(&mut value, entry, result, &cx_at)
                    }));
                    run.next = at + 1;
                    match settled {
                        Ok(blocked) => blocked,
                        Err(panic) => {
                            run.fail(entry, HookError::new(take_panic(panic)), true, &cx_at)
                        }
                    }
                }
                Err(panic) => run.fail(entry, HookError::new(take_panic(panic)), true, &cx_at),
            };
            match first {
                Some(blocked) => Some(blocked),
                None => self.run_guarded::<ON_DROP, NAMES>(&mut run, &mut value, cx, scope.via),
            }
        };
        run.finish(value, blocked, notes)
    }

    /// Runs the hooks from `run.next` on under one unwind guard, a new one after each panic.
    fn run_guarded<const ON_DROP: bool, const NAMES: bool>(
        &self,
        run: &mut Run<P>,
        value: &mut P::Value,
        cx: HookContext<'_>,
        via: &'static str,
    ) -> Option<Blocked> {
        loop {
            // One unwind guard for the rest of the chain; a panic costs a new guard, not every hook.
            match catch_unwind(AssertUnwindSafe(|| {
                self.run_from::<ON_DROP, NAMES>(run, value, cx, via)
            })) {
                Ok(blocked) => return blocked,
                Err(panic) => {
                    let entry = &self.entries[run.next];
                    let error = HookError::new(take_panic(panic));
                    run.next += 1;
                    if let Some(blocked) = run.fail(entry, error, true, &cx) {
                        return Some(blocked);
                    }
                }
            }
        }
    }

    /// Runs the hooks from `run.next` on, until one blocks or the chain ends.
    ///
    /// `run.next` is written before each call, so that after a panic — in the hook, or in the
    /// point's `apply` of its rewrite — it names the hook that failed, but never read back inside
    /// the loop; the context is built once and only its hook name changes; a `Pass` costs one
    /// compare, and anything else goes through [`Run::settle`].
    #[inline(always)]
    fn run_from<const ON_DROP: bool, const NAMES: bool>(
        &self,
        run: &mut Run<P>,
        value: &mut P::Value,
        cx: HookContext<'_>,
        via: &'static str,
    ) -> Option<Blocked> {
        let mut cx = cx;
        let mut next = run.next;
        while let Some(entry) = self.entries.get(next) {
            if skipped::<P, ON_DROP>(entry) {
                next += 1;
                if !entry.hook.extension.is_enabled()
                    && let Some(blocked) = entry.disabled_block()
                {
                    run.next = next;
                    return Some(blocked);
                }
                continue;
            }
            run.next = next;
            cx = cx.running(&entry.hook);
            let result = entry
                .handler
                .call(P::input(value), &cx, &self.async_limit, via);
            next += 1;
            if let Ok(HookResult::Pass) = result {
                continue;
            }
            run.next = next;
            if let Some(blocked) = run.settle::<NAMES>(value, entry, result, &cx) {
                return Some(blocked);
            }
        }
        run.next = next;
        None
    }

    /// Runs the chain, awaiting async hooks; sync hooks run inline. Then, on a watched point,
    /// its wildcard hooks.
    pub(crate) async fn dispatch_async(
        &self,
        value: P::Value,
        scope: Scope<'_>,
    ) -> Outcome<P::Value> {
        let plan = match self.is_watched() {
            true => self.watch_plan::<false>(&value),
            false => None,
        };
        let span = self.span(&value, &scope);
        if plan.is_none() && span.is_disabled() {
            return self.run_async(value, scope).await;
        }
        let started = Instant::now();
        let mut outcome = self.run_async(value, scope).instrument(span.clone()).await;
        trace::record::<P, _>(&span, &outcome);
        if let Some(payload) = plan {
            self.report::<false>(&mut outcome, payload, started.elapsed(), scope);
        }
        outcome
    }

    /// The chain of [`dispatch_async`](Self::dispatch_async).
    async fn run_async(&self, value: P::Value, scope: Scope<'_>) -> Outcome<P::Value> {
        if self.entries.is_empty() {
            return Outcome::passed(value);
        }
        if self.all_sync {
            // Nothing to await: the sync dispatch, with no future per hook.
            return self.dispatch_sync::<false, true>(value, scope);
        }
        let timeout = self.async_limit;
        let frame = scope.frame;
        let notes = Annotations::new();
        let cx = scope.context::<P>(&notes);
        let mut value = value;
        let mut run = Run::<P>::new();
        let mut blocked = None;
        for entry in self.entries.iter() {
            if skipped::<P, false>(entry) {
                run.next += 1;
                if let Some(stop) = entry.disabled_block() {
                    blocked = Some(stop);
                    break;
                }
                continue;
            }
            let cx = cx.running(&entry.hook);
            let input = P::input(&value);
            // The frame is set while a hook runs: around a sync hook's call and each poll of an
            // async hook's future, on whatever thread polls it.
            let result = match &entry.handler {
                Handler::Sync(f) => guard(frame, || f(input, &cx).into_return()),
                Handler::SyncClosure(f) => guard(frame, || f(input, &cx)),
                Handler::Async(f) => match guard(frame, || f(input, &cx)) {
                    Ok(fut) => await_guarded::<P>(fut, timeout, frame).await,
                    Err(p) => Err(p),
                },
                Handler::AsyncClosure(f) => match guard(frame, || f(input, &cx)) {
                    Ok(fut) => await_guarded::<P>(fut, timeout, frame).await,
                    Err(p) => Err(p),
                },
            };
            // As in the sync dispatch, `next` is past this hook while its result is settled.
            run.next += 1;
            let stop = match result {
                Ok(Ok(HookResult::Pass)) => None,
                // Guarded: the point's `apply` may panic, which is this hook's failure.
                Ok(result) => {
                    match guard(frame, || run.settle::<true>(&mut value, entry, result, &cx)) {
                        Ok(stop) => stop,
                        Err(panic) => run.fail(entry, panic, true, &cx),
                    }
                }
                Err(panic) => run.fail(entry, panic, true, &cx),
            };
            if stop.is_some() {
                blocked = stop;
                break;
            }
        }
        run.finish(value, blocked, notes)
    }
}

/// The tool's name when `value` is a tool call, its result, or a permission request for one.
fn tool_name<T: Any>(value: &T) -> Option<String> {
    let value = value as &dyn Any;
    if let Some(call) = value.downcast_ref::<hookchain_core::ToolCall>() {
        return Some(call.name.clone());
    }
    if let Some(result) = value.downcast_ref::<hookchain_core::ToolResult>() {
        return Some(result.tool_name.clone());
    }
    value
        .downcast_ref::<hookchain_core::PermissionAsk>()
        .map(|ask| ask.tool_name.clone())
}

/// The event wildcard hooks get for a dispatch of `P` that gave `outcome`.
fn dispatch_event<P: HookPoint, T>(
    outcome: &Outcome<T>,
    payload: Value,
    duration: Duration,
    scope: Scope<'_>,
) -> DispatchEvent {
    let (decision, hook, reason, failed) = trace::decided::<P, T>(outcome);
    let mut event = DispatchEvent::new(P::NAME, P::KIND, decision, payload);
    event.session_id = scope.session_id.to_owned();
    // A turn's frame has a turn token; a session's or a registry's dispatch has none.
    event.turn = scope.frame.in_turn().then_some(scope.turn);
    event.hook = hook.map(str::to_owned);
    event.reason = reason.map(str::to_owned);
    event.failed = failed;
    event.rewritten_by = outcome.rewritten_by.clone();
    event.failures = outcome
        .failures
        .iter()
        .map(|f| format!("{}: {}", f.hook, f.error))
        .collect();
    event.duration = duration;
    event
}

/// `true` when `entry` does not run: its extension is disabled, or (`ON_DROP`) a `Drop` may not
/// run it. The hook's own extension is read only when some extension of the process is
/// disabled.
#[inline(always)]
fn skipped<P: HookPoint, const ON_DROP: bool>(entry: &Entry<P>) -> bool {
    (hookchain_core::Extension::any_disabled() && !entry.hook.extension.is_enabled())
        || (ON_DROP && !entry.runs_on_drop())
}

/// Calls `f` in `frame`, turning a panic into the error it carried.
fn guard<T>(frame: Frame, f: impl FnOnce() -> T) -> Result<T, HookError> {
    let _frame = state::enter(frame);
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| HookError::new(take_panic(p)))
}

/// Awaits a hook's future, polled in `frame`, turning a panic in any poll into an error, and a
/// timeout into a failure when one is configured.
async fn await_guarded<'a, T>(
    fut: BoxFuture<'a, HookReturn<T>>,
    timeout: Option<Duration>,
    frame: Frame,
) -> Result<HookReturn<T>, HookError>
where
    T: HookPoint,
{
    let guarded = CatchUnwind(fut, frame);
    match timeout {
        None => guarded.await,
        Some(limit) => exec::with_timeout(guarded, limit)
            .await
            .unwrap_or_else(|| Ok(Err(HookError::new(format!("timed out after {limit:?}"))))),
    }
}

/// A future polled in a [`Frame`], which turns a panic during `poll` into an error.
struct CatchUnwind<F>(F, Frame);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, HookError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let _frame = state::enter(self.1);
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(p) => Poll::Ready(Err(HookError::new(take_panic(p)))),
        }
    }
}

/// Drives an async hook for the sync dispatch (see the [module docs](self#async-hooks)); past
/// `limit` it fails as timed out, and where it cannot be driven it fails naming `via`.
#[cold]
fn drive<P: HookPoint>(
    fut: BoxFuture<'_, HookReturn<P>>,
    limit: Option<Duration>,
    via: &'static str,
) -> HookReturn<P> {
    match exec::drive(fut, limit) {
        Driven::Done(out) => out,
        Driven::TimedOut => Err(timed_out(limit)),
        Driven::CannotBlock(why) => Err(HookError::new(format!(
            "an async hook cannot be waited for by the sync API {why}: it would hang; \
             call `{via}` instead"
        ))),
    }
}

/// The error of an async hook that ran out of time.
fn timed_out(limit: Option<Duration>) -> HookError {
    match limit {
        Some(limit) => HookError::new(format!("timed out after {limit:?}")),
        None => HookError::new("timed out"),
    }
}

/// The message a caught panic carried, with its payload dropped.
///
/// The payload is dropped under a guard of its own: a payload whose `Drop` panics again must
/// not unwind into the agent, out of the guard that caught the first panic. The second panic's
/// payload is leaked rather than dropped, since its `Drop` could panic in turn.
#[cold]
#[inline(never)]
pub(crate) fn take_panic(payload: Box<dyn Any + Send>) -> String {
    let message = panic_message(&*payload);
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        tracing::error!("a panic's payload panicked when dropped; its second payload is leaked");
        std::mem::forget(again);
    }
    message
}

/// The message a panic carried, when it is a string.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
