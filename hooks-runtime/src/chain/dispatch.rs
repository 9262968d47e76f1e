//! The chain of a point and its sync dispatch: the pass path (every hook passes, nothing is kept),
//! the full dispatch that settles rewrites, blocks and failures, the dispatch from a `Drop`, and
//! the report to wildcard hooks.

use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hookchain_core::__private::{HookOutput, SyncReturn};
use hookchain_core::__private::{RunningHook, Wildcard};
use hookchain_core::{
    Annotations, Blocked, Flow, HookContext, HookError, HookPoint, HookResult, HookReturn, OnError,
    PointKind,
};

use serde_json::Value;

use super::entry::{Entry, Handler};
use super::event::{dispatch_event, tool_name};
use super::guard::take_panic;
use super::outcome::{HookFailure, Outcome};
use super::scope::Scope;
use crate::state::{self};
use crate::trace;

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
pub(super) struct Run<P: HookPoint> {
    /// The next hook to run; during a call, the hook being called.
    pub(super) next: usize,
    pub(super) rewritten_by: Vec<String>,
    pub(super) failures: Vec<HookFailure>,
    pub(super) point: PhantomData<fn() -> P>,
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
    pub(super) fn new() -> Self {
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
    pub(super) fn settle<const NAMES: bool>(
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
    pub(super) fn fail(
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
    pub(super) fn finish(
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
            events: notes.events,
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

    /// [`dispatch`](Self::dispatch) of a watched point: the chain, timed, then its wildcard
    /// hooks with the event of the dispatch.
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
    pub(super) fn span(&self, value: &P::Value, scope: &Scope<'_>) -> tracing::Span {
        match !self.entries.is_empty() && trace::wanted() {
            true => trace::dispatch_span::<P>(tool_name(value).as_deref(), scope),
            false => tracing::Span::none(),
        }
    }

    /// What the wildcard hooks of a dispatch of `value` need before the chain runs: `None` when
    /// none of them runs (their extensions are disabled), else the payload and the tool's name
    /// — the payload `Null` when none that runs reads it.
    pub(super) fn watch_plan<const ON_DROP: bool>(
        &self,
        value: &P::Value,
    ) -> Option<(Value, Option<String>)> {
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
    pub(super) fn report<const ON_DROP: bool>(
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
        self.pass_as::<ON_DROP, false>(value, scope)
    }

    /// [`pass`](Self::pass) for the point methods of a turn, which hand a traced dispatch to
    /// the full path: a chain that is not lean ([`all_enabled_fns`](Self::all_enabled_fns),
    /// never so while a subscriber may want the spans) stops before its first hook with
    /// [`Stopped::watched`] when a subscriber may, and the full dispatch builds the span. A lean
    /// chain pays nothing more.
    #[inline(always)]
    pub(crate) fn pass_traced(&self, value: &P::Value, scope: Scope<'_>) -> Option<Stopped<P>> {
        self.pass_as::<false, true>(value, scope)
    }

    /// The pass path; `TRACED`: stop for the full dispatch when a subscriber may want a span.
    #[inline(always)]
    fn pass_as<const ON_DROP: bool, const TRACED: bool>(
        &self,
        value: &P::Value,
        scope: Scope<'_>,
    ) -> Option<Stopped<P>> {
        let _frame = state::enter(scope.frame);
        let mut notes = Annotations::new();
        let mut cx = scope.context::<P>(&notes);
        let stopped = catch_unwind(AssertUnwindSafe(|| {
            self.run_passing::<ON_DROP, TRACED>(value, &mut cx, scope.via)
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
        // `Pass` with no hook running is the loop's mark of a traced dispatch (`run_passing`).
        if running.is_none() && matches!(stopped, Ok(Some(HookOutput::Pass))) {
            return Some(Stopped::watched());
        }
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
    pub(super) fn dispatch_sync<const ON_DROP: bool, const NAMES: bool>(
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
    fn run_passing<'a, const ON_DROP: bool, const TRACED: bool>(
        &'a self,
        value: &'a P::Value,
        cx: &mut HookContext<'a>,
        via: &'static str,
    ) -> Option<SyncReturn<P>> {
        let input = P::input(value);
        if ON_DROP || !self.all_enabled_fns() {
            if TRACED && trace::wanted() {
                // No hook has run, none is named: `stopped` reads this as the mark of a traced
                // dispatch (a hook's `Pass` never stops this loop).
                return Some(HookOutput::Pass);
            }
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
        // While a subscriber may want the dispatch spans, no chain is lean: the turn's point
        // methods then take the full dispatch (`pass_traced`), which builds them.
        let enabled = !trace::wanted()
            && self.sync_fns
            && self.entries.iter().all(|e| e.hook.extension.is_enabled());
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
}

/// Runs the wildcard hooks `watchers` with `event`, the event of a point that has no chain (an
/// emitted event nobody else hears), each under an unwind guard of its own, as
/// [`Chain::report`] does; the failures of those that failed.
#[cold]
pub(crate) fn report_unheard(
    watchers: &[Entry<Wildcard>],
    event: &hookchain_core::DispatchEvent,
    scope: Scope<'_>,
) -> Vec<HookFailure> {
    let _frame = state::enter(scope.frame);
    let notes = Annotations::new();
    let cx = scope.context::<Wildcard>(&notes);
    let mut failures = Vec::new();
    for watcher in watchers {
        if skipped::<Wildcard, false>(watcher) {
            continue;
        }
        let cx = cx.running(&watcher.hook);
        let result = catch_unwind(AssertUnwindSafe(|| {
            watcher.handler.call(event, &cx, &None, scope.via)
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
        tracing::error!(point = event.point, "wildcard {failure}");
        failures.push(failure);
    }
    failures
}

/// `true` when `entry` does not run: its extension is disabled, or (`ON_DROP`) a `Drop` may not
/// run it. The hook's own extension is read only when some extension of the process is
/// disabled.
#[inline(always)]
pub(super) fn skipped<P: HookPoint, const ON_DROP: bool>(entry: &Entry<P>) -> bool {
    (hookchain_core::Extension::any_disabled() && !entry.hook.extension.is_enabled())
        || (ON_DROP && !entry.runs_on_drop())
}
