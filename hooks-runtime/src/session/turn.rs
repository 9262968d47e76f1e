//! A turn: its state, one method per hook point, the firing of its points (the lean path of a
//! point nobody hooks, the pass path of a hooked one), the context and warnings it keeps, and
//! its end (and its end on drop).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use hookchain_core::__private::TurnScope;
use hookchain_core::points::{
    AfterCompaction, AfterLlmCall, AfterToolBatch, AfterToolCall, BeforeCompaction, BeforeLlmCall,
    InterceptToolCall, Notify, OutboundMessage, PermissionRequest, TransformResponse,
    TransformToolResult, TransformUserInput, TurnEnded, TurnStart,
};
use hookchain_core::{
    Compaction, CompactionDone, Emitted, Flow, HookPoint, Level, LlmCall, LlmReply, Notification,
    NotificationKind, Outbound, PermissionAsk, ToolBatch, ToolCall, ToolResult, TurnEnd,
    TurnEndEvent, TurnStartEvent,
};
use parking_lot::Mutex;

use super::emit::{deliver, deliver_async};
use super::firing::{Mode, failure_notifications, off_the_unwinding_thread};
use super::lifecycle::Session;
use crate::chain::{Outcome, Scope, Stopped};
use crate::registry::Hooks;
use crate::state::{Frame, Store, TurnState};

impl Session {
    /// Begins a turn with a fresh, empty turn state of its own. Turns of one session may
    /// overlap: each keeps its own state until it ends.
    pub fn begin_turn(&self) -> Turn {
        let index = self.inner.next_turn.fetch_add(1, Ordering::Relaxed);
        let (token, state) = Store::begin_turn(&self.inner.slot);
        Turn {
            inner: Arc::new(TurnInner {
                hooks: self.inner.hooks.clone(),
                hooked: self.inner.hooks.inner.hooked(),
                watched: self.inner.hooks.inner.watched(),
                session: self.clone(),
                scope: TurnScope {
                    session_id: self.inner.id.clone(),
                    turn: index,
                    turn_state: state,
                    session_state: self.inner.slot.state.clone(),
                },
                token,
                frame: self.inner.frame.turn(token),
                collected: Mutex::new(Collected::default()),
                redos: AtomicU32::new(0),
                ended: AtomicBool::new(false),
            }),
        }
    }
}

#[derive(Default)]
pub(super) struct Collected {
    pub(super) context: Vec<String>,
    pub(super) warnings: Vec<String>,
}

/// One turn of a session: one run of the agent for a user message, with a state of its own.
///
/// Cheap to clone (an `Arc`), `Send` and `Sync`: hand clones to the threads and tasks that run
/// its tool calls; every clone is the same turn. Fire hook points with its methods; end it with
/// [`end`](Turn::end) or [`end_async`](Turn::end_async) — the first call fires `turn_end` and
/// clears the state, later ones do nothing. Dropping the last clone without either (an early
/// return, a `?`, a panic) ends it too, as [`TurnEnd::Canceled`] (or [`TurnEnd::Error`] during a
/// panic), and clears its state; but a `Drop` cannot await and must not wait on a script or an
/// endpoint, so it runs only the sync `turn_end` hooks compiled into the program
/// (`#[register_hook]` fns and builder closures) — no async hook, no external hook — and warns
/// through `tracing` that `end` was not called.
#[derive(Clone)]
pub struct Turn {
    pub(super) inner: Arc<TurnInner>,
}

pub(super) struct TurnInner {
    /// The session's registry, one load closer than through the session.
    pub(super) hooks: Hooks,
    /// The registry's flags of the built-in points that have a hook, copied into the turn: a
    /// point nobody hooks is told apart with one load from the turn.
    pub(super) hooked: [bool; hookchain_core::points::BUILTIN_SLOTS],
    /// The registry's flags of the built-in points a wildcard hook watches, read only once a
    /// point is known to be hooked.
    pub(super) watched: [bool; hookchain_core::points::BUILTIN_SLOTS],
    pub(super) session: Session,
    /// The turn's index, its state and its session's: what every dispatch's context points at.
    pub(super) scope: TurnScope,
    pub(super) token: u64,
    pub(super) frame: Frame,
    pub(super) collected: Mutex<Collected>,
    pub(super) redos: AtomicU32,
    pub(super) ended: AtomicBool,
}

macro_rules! transform_methods {
    ($(
        $(#[$doc:meta])*
        $name:ident / $name_async:ident : $point:ty, $arg:ident : $arg_ty:ty => $value:ty, $into:expr;
    )*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name(&self, $arg: $arg_ty) -> Flow<$value> {
            self.inner
                .fire_flow::<$point>($into, concat!("Turn::", stringify!($name_async)))
        }

        #[doc = concat!("[`", stringify!($name), "`](Turn::", stringify!($name), "), awaiting async hooks.")]
        ///
        /// The future is the dispatch's own (no wrapper around it); a point nobody hooks is
        /// ready at its first poll, after one check.
        #[inline]
        pub fn $name_async(&self, $arg: $arg_ty) -> impl Future<Output = Flow<$value>> + '_ {
            self.inner
                .fire_flow_async::<$point>($into, concat!("Turn::", stringify!($name_async)))
        }
    )*};
}

macro_rules! observe_methods {
    ($(
        $(#[$doc:meta])*
        $name:ident / $name_async:ident : $point:ty, $arg:ident : $value:ty;
    )*) => {$(
        $(#[$doc])*
        ///
        /// Every hook runs; the value comes back unchanged.
        #[inline]
        pub fn $name(&self, $arg: $value) -> $value {
            observed_flow(
                self.inner
                    .fire_flow::<$point>($arg, concat!("Turn::", stringify!($name_async))),
            )
        }

        #[doc = concat!("[`", stringify!($name), "`](Turn::", stringify!($name), "), awaiting async hooks.")]
        pub async fn $name_async(&self, $arg: $value) -> $value {
            observed_flow(
                self.inner
                    .fire_flow_async::<$point>($arg, concat!("Turn::", stringify!($name_async)))
                    .await,
            )
        }
    )*};
}

/// The value of an observe point's outcome: observe chains never block.
pub(super) fn observed<T>(outcome: Outcome<T>) -> T {
    observed_flow(outcome.flow)
}

/// The value of an observe point's flow: observe chains never block.
#[inline(always)]
fn observed_flow<T>(flow: Flow<T>) -> T {
    match flow {
        Flow::Continue(value) => value,
        Flow::Blocked(_) => unreachable!("observe chains never block"),
    }
}

impl Turn {
    transform_methods! {
        /// `transform_user_input`: runs the user's message through the hooks before the model sees
        /// it. `Continue` carries the (possibly rewritten) text; `Blocked` carries a reply for the
        /// user.
        transform_user_input / transform_user_input_async: TransformUserInput,
            text: impl Into<String> => String, text.into();
        /// `turn_start`: the turn starts. Call it once per turn, with the user's message as
        /// `transform_user_input` left it, before the turn's first model call. `Continue`
        /// carries the context hooks injected for **this turn only**: add it to every model call
        /// of the turn (as a system message the conversation does not keep), and drop it when
        /// the turn ends. `Blocked`: end the turn without calling the model, the reason the
        /// reply.
        turn_start / turn_start_async: TurnStart,
            prompt: impl Into<String> => TurnStartEvent, TurnStartEvent::new(prompt);
        /// `before_llm_call`: lets hooks inject system and user text into a model call, or block
        /// it. `Continue` carries the call with every injection applied, in chain order.
        before_llm_call / before_llm_call_async: BeforeLlmCall, call: LlmCall => LlmCall, call;
        /// `intercept_tool_call`: runs a tool call through the hooks before the tool runs.
        /// `Continue` carries the call with its (possibly rewritten) args; `Blocked` carries an
        /// error for the model. [`run_tool`](Turn::run_tool) fires the whole tool sequence.
        intercept_tool_call / intercept_tool_call_async: InterceptToolCall,
            call: ToolCall => ToolCall, call;
        /// `permission_request`: call it where the agent would ask the user to confirm a tool
        /// call (after `intercept_tool_call` let it through and no rule of the agent allowed
        /// it). `Continue` with [`PermissionAsk::allowed`]: run [`PermissionAsk::call`] without
        /// asking (its args may have been replaced); `Continue` without: ask the user as usual;
        /// `Blocked`: the call is denied, the reason an error for the model.
        permission_request / permission_request_async: PermissionRequest,
            ask: PermissionAsk => PermissionAsk, ask;
        /// `transform_tool_result`: lets hooks rewrite a tool's result before the model sees it.
        transform_tool_result / transform_tool_result_async: TransformToolResult,
            result: ToolResult => ToolResult, result;
        /// `after_tool_batch`: every call of a batch the model asked for at once has run (each
        /// through [`run_tool`](Turn::run_tool), the refused ones included), before the next
        /// model call; `results` in the order the model asked for them. `Continue` carries the
        /// context hooks injected for that next call; `Blocked`: do not make it, end the turn
        /// with the reason.
        after_tool_batch / after_tool_batch_async: AfterToolBatch,
            results: Vec<ToolResult> => ToolBatch, ToolBatch::new(results);
        /// `transform_response`: lets hooks rewrite (mask, add a footer to) the final reply.
        transform_response / transform_response_async: TransformResponse,
            reply: impl Into<String> => String, reply.into();
        /// `before_compaction`: `Blocked` vetoes the compaction; `Continue` carries the
        /// compaction, with `summary` set when a hook supplied one.
        before_compaction / before_compaction_async: BeforeCompaction,
            compaction: Compaction => Compaction, compaction;
        /// `outbound_message`: lets hooks rewrite or block a message before it leaves for a chat
        /// platform.
        outbound_message / outbound_message_async: OutboundMessage,
            message: Outbound => Outbound, message;
    }

    observe_methods! {
        /// `after_llm_call`: tells the hooks what the model replied.
        after_llm_call / after_llm_call_async: AfterLlmCall, reply: LlmReply;
        /// `after_tool_call`: tells the hooks a tool ran, on success and on error, or was refused
        /// (a [`ToolResult::refused`]: [`run_tool`](Turn::run_tool) fires it for a call
        /// `intercept_tool_call` blocked; an agent that fires the tool points itself should too).
        after_tool_call / after_tool_call_async: AfterToolCall, result: ToolResult;
        /// `after_compaction`: tells the hooks the context was compacted.
        after_compaction / after_compaction_async: AfterCompaction, done: CompactionDone;
        /// `notification`: reports a warning or an error to the hooks.
        notify / notify_async: Notify, notification: Notification;
    }

    /// Reports that the agent reached its cap of `limit` model calls for this run: fires
    /// `notification` with [`NotificationKind::MaxIterations`] (level warning), which
    /// external hooks configured as `on_max_iterations` wait for. The turn goes on or ends as
    /// the agent decides (for example [`end`](Turn::end) with [`TurnEnd::MaxIterations`]).
    pub fn max_iterations_reached(&self, limit: u32) {
        self.notify(max_iterations(limit));
    }

    /// [`max_iterations_reached`](Turn::max_iterations_reached), awaiting async hooks.
    pub async fn max_iterations_reached_async(&self, limit: u32) {
        self.notify_async(max_iterations(limit)).await;
    }

    /// Reports that the agent waits for the user's input (`message` says for what): fires
    /// `notification` with [`NotificationKind::UserInput`] (level info), which external hooks
    /// configured as docker-agent's `on_user_input` wait for, and Claude Code's `Notification`
    /// hooks see as `notification_type: idle_prompt`.
    pub fn waiting_for_user(&self, message: impl Into<String>) {
        self.notify(waiting(message.into()));
    }

    /// [`waiting_for_user`](Turn::waiting_for_user), awaiting async hooks.
    pub async fn waiting_for_user_async(&self, message: impl Into<String>) {
        self.notify_async(waiting(message.into())).await;
    }

    /// Dispatches `value` through the chain of any point `P` (built-in or user-defined) and
    /// returns everything the dispatch produced. Async hooks are driven as the
    /// [chain docs](crate::chain#async-hooks) say.
    #[inline]
    pub fn fire<P: HookPoint>(&self, value: P::Value) -> Outcome<P::Value> {
        self.inner.fire::<P>(value, Mode::Sync("Turn::fire_async"))
    }

    /// [`fire`](Turn::fire), awaiting async hooks, each under the registry's time limit
    /// ([`HooksBuilder::async_timeout`](crate::HooksBuilder::async_timeout)).
    pub async fn fire_async<P: HookPoint>(&self, value: P::Value) -> Outcome<P::Value> {
        self.inner.fire_async::<P>(value, "Turn::fire_async").await
    }

    /// Emits an event of point `P` from the agent: dispatches `value` to `P`'s chain now, in this
    /// turn, then delivers what its hooks emit (the event bus: see
    /// [`HookContext::emit`](hookchain_core::HookContext::emit) for the rules, and
    /// [`MAX_EMIT_DEPTH`](crate::MAX_EMIT_DEPTH)). The emitter gets nothing back: the turn keeps
    /// the context and warnings the hooks add, their failures and a block of the event are
    /// reported through `notification`. To get the outcome of a point, use
    /// [`fire`](Turn::fire).
    ///
    /// ```
    /// use hookchain::{HookContext, HookResult, HooksBuilder, TurnEnd};
    ///
    /// hookchain::hook_point! {
    ///     /// A note was saved.
    ///     pub struct NoteSaved: observe("note_saved") {
    ///         type Value = String;
    ///     }
    /// }
    ///
    /// let hooks = HooksBuilder::new()
    ///     .hook(NoteSaved, 0, |note: &String, cx: &HookContext| {
    ///         cx.warn(format!("saved: {note}"));
    ///         HookResult::Pass
    ///     })
    ///     .build()?;
    /// let turn = hooks.session("s").begin_turn();
    /// turn.emit::<NoteSaved>("plan.md".to_owned());
    /// assert_eq!(turn.take_warnings(), ["saved: plan.md"]);
    /// turn.end(TurnEnd::Normal);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn emit<P: HookPoint>(&self, value: P::Value) {
        // Names `P` to the registry, so events of `P` its hooks emit find its chain too.
        let _ = self.inner.hooks.inner.chain::<P>();
        self.inner
            .deliver(vec![Emitted::new::<P>(value, "")], "Turn::emit_async");
    }

    /// [`emit`](Turn::emit), awaiting async hooks.
    pub async fn emit_async<P: HookPoint>(&self, value: P::Value) {
        let _ = self.inner.hooks.inner.chain::<P>();
        self.inner
            .deliver_async(vec![Emitted::new::<P>(value, "")], "Turn::emit_async")
            .await;
    }

    /// The agent-facing context hooks added during this turn so far, in order; empties the list.
    pub fn take_context(&self) -> Vec<String> {
        std::mem::take(&mut self.inner.collected.lock().context)
    }

    /// The user-facing warnings hooks added during this turn so far, in order; empties the list.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.inner.collected.lock().warnings)
    }

    /// This turn's own state: what its hooks get from `cx.turn_state()`. Cleared when the turn
    /// ends.
    pub fn state(&self) -> &TurnState {
        &self.inner.scope.turn_state
    }

    /// The turn's index in its session, from 0.
    pub fn index(&self) -> u64 {
        self.inner.scope.turn
    }

    /// How many times `on_stop` hooks sent the agent back to work in this turn.
    pub fn redos(&self) -> u32 {
        self.inner.redos.load(Ordering::Acquire)
    }

    /// The session this turn belongs to.
    pub fn session(&self) -> &Session {
        &self.inner.session
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.inner.session.inner.id
    }

    /// `true` once the turn has ended.
    pub fn is_ended(&self) -> bool {
        self.inner.ended.load(Ordering::Acquire)
    }

    /// Ends the turn: fires `turn_end` with `reason`, then clears the turn's state, for every
    /// clone of the turn. A second call (from any clone) does nothing.
    pub fn end(&self, reason: TurnEnd) {
        self.inner.finish(reason, Mode::Sync("Turn::end_async"));
    }

    /// [`end`](Turn::end), awaiting async `turn_end` hooks.
    pub async fn end_async(&self, reason: TurnEnd) {
        let t = &*self.inner;
        if t.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let _ = t
            .fire_async::<TurnEnded>(t.end_event(reason), "Turn::end_async")
            .await;
        t.close();
    }
}

impl TurnInner {
    #[inline]
    pub(super) fn scope(&self, via: &'static str) -> Scope<'_> {
        Scope {
            session_id: &self.scope.session_id,
            turn: self.scope.turn,
            states: Some((&self.scope.turn_state, &self.scope.session_state)),
            turn_scope: Some(&self.scope),
            frame: self.frame,
            via,
        }
    }

    #[inline]
    pub(super) fn fire<P: HookPoint>(&self, value: P::Value, mode: Mode) -> Outcome<P::Value> {
        let chain = self.session.inner.hooks.inner.chain::<P>();
        let outcome = match mode {
            Mode::Sync(via) => chain.dispatch(value, self.scope(via)),
            Mode::OnDrop => chain.dispatch_on_drop(value, self.scope("")),
        };
        if !quiet(&outcome) {
            self.collect::<P>(&outcome, mode);
        }
        outcome
    }

    /// `true` when no hook is on point `P`: for a built-in point, one load from the turn.
    #[inline(always)]
    pub(super) fn unhooked<P: HookPoint>(&self) -> bool {
        match P::BUILTIN_SLOT {
            Some(slot) => !self.hooked[slot],
            None => self.hooks.inner.is_unhooked::<P>(),
        }
    }

    /// The lean dispatch of the point methods, which hand back the flow alone: a point nobody
    /// hooks costs one check, like a disabled `tracing` callsite; a hooked one assembles no
    /// outcome unless a hook did more than pass.
    #[inline(always)]
    pub(super) fn fire_flow<P: HookPoint>(
        &self,
        value: P::Value,
        via: &'static str,
    ) -> Flow<P::Value> {
        // The value stays in the caller's frame; the hooks get a reference to it. Both ways to
        // an unchanged value end at the same `Flow::Continue`, which the compiler then builds in
        // place.
        if !self.unhooked::<P>()
            && let Some(stop) = self.pass::<P>(&value, via)
        {
            return self.resume::<P>(stop, value, via);
        }
        Flow::Continue(value)
    }

    /// `true` when a wildcard hook watches point `P`: for a built-in point, one load from the
    /// turn.
    #[inline(always)]
    pub(super) fn watched<P: HookPoint>(&self) -> bool {
        match P::BUILTIN_SLOT {
            Some(slot) => self.watched[slot],
            None => self.hooks.inner.chain::<P>().is_watched(),
        }
    }

    /// The pass path of a hooked point (see [`Chain::pass`](crate::chain::Chain)). A point a
    /// wildcard hook watches runs nothing here: it stops at once, and [`resume`](Self::resume)
    /// runs the full dispatch, whose wildcard hooks get the event. (Checked here rather than in
    /// `fire_flow`, whose value the compiler then keeps in place.)
    #[inline(never)]
    pub(super) fn pass<P: HookPoint>(
        &self,
        value: &P::Value,
        via: &'static str,
    ) -> Option<Stopped<P>> {
        if self.watched::<P>() {
            return Some(Stopped::watched());
        }
        match self.hooks.inner.builtin_chain::<P>() {
            Some(chain) => chain.pass_traced(value, self.scope(via)),
            None => self.pass_custom::<P>(value, via),
        }
    }

    /// [`pass`](Self::pass) on a point defined outside hookchain.
    #[cold]
    #[inline(never)]
    pub(super) fn pass_custom<P: HookPoint>(
        &self,
        value: &P::Value,
        via: &'static str,
    ) -> Option<Stopped<P>> {
        self.hooks
            .inner
            .chain::<P>()
            .pass_traced(value, self.scope(via))
    }

    /// The rest of a dispatch whose pass path stopped; the turn keeps what the hooks added.
    #[cold]
    #[inline(never)]
    pub(super) fn resume<P: HookPoint>(
        &self,
        stop: Stopped<P>,
        value: P::Value,
        via: &'static str,
    ) -> Flow<P::Value> {
        if stop.is_watched() {
            return self.fire::<P>(value, Mode::Sync(via)).into_flow();
        }
        let chain = self.hooks.inner.chain::<P>();
        let outcome = chain.resume::<false, false>(stop, value, self.scope(via));
        if !quiet(&outcome) {
            self.collect::<P>(&outcome, Mode::Sync(via));
        }
        outcome.into_flow()
    }

    /// Both paths of [`fire_flow`](Self::fire_flow), not inlined.
    #[inline(never)]
    pub(super) fn fire_hooked<P: HookPoint>(
        &self,
        value: P::Value,
        via: &'static str,
    ) -> Flow<P::Value> {
        match self.pass::<P>(&value, via) {
            None => Flow::Continue(value),
            Some(stop) => self.resume::<P>(stop, value, via),
        }
    }

    /// [`fire_flow`](Self::fire_flow) for the `_async` methods: a chain with no async hook runs
    /// as the sync one does, with nothing to await.
    #[inline(always)]
    pub(super) async fn fire_flow_async<P: HookPoint>(
        &self,
        value: P::Value,
        via: &'static str,
    ) -> Flow<P::Value> {
        if self.unhooked::<P>() {
            return Flow::Continue(value);
        }
        if self.watched::<P>() {
            return self.fire_async::<P>(value, via).await.into_flow();
        }
        if self.hooks.inner.chain::<P>().all_sync {
            return self.fire_hooked::<P>(value, via);
        }
        self.fire_async::<P>(value, via).await.into_flow()
    }

    pub(super) async fn fire_async<P: HookPoint>(
        &self,
        value: P::Value,
        via: &'static str,
    ) -> Outcome<P::Value> {
        let chain = self.session.inner.hooks.inner.chain::<P>();
        let outcome = chain.dispatch_async(value, self.scope(via)).await;
        if !quiet(&outcome) {
            self.keep(&outcome);
            let mut events = outcome.events.clone();
            for n in failure_notifications::<P, _>(&outcome) {
                let notify = self.session.inner.hooks.inner.chain::<Notify>();
                let reported = notify.dispatch_async(n, self.scope(via)).await;
                self.keep(&reported);
                events.extend(reported.events);
            }
            self.deliver_async(events, via).await;
        }
        outcome
    }

    #[cold]
    pub(super) fn collect<P: HookPoint>(&self, outcome: &Outcome<P::Value>, mode: Mode) {
        self.keep(outcome);
        let mut events = outcome.events.clone();
        for n in failure_notifications::<P, _>(outcome) {
            let notify = self.session.inner.hooks.inner.chain::<Notify>();
            let reported = match mode {
                Mode::Sync(via) => notify.dispatch(n, self.scope(via)),
                Mode::OnDrop => notify.dispatch_on_drop(n, self.scope("")),
            };
            self.keep(&reported);
            events.extend(reported.events);
        }
        match mode {
            Mode::Sync(via) => self.deliver(events, via),
            Mode::OnDrop => dropped(&events),
        }
    }

    /// Delivers `events` (emitted by the hooks of a dispatch of this turn, or by a tool it
    /// ran) to their points' chains, in this turn, and what their hooks emit in turn: the
    /// event bus (`session::emit`). The turn keeps the context and warnings their hooks add.
    pub(crate) fn deliver(&self, events: Vec<Emitted>, via: &'static str) {
        deliver(
            &self.hooks.inner,
            events,
            self.scope(via),
            &|context, warnings| {
                self.keep_parts(context, warnings);
            },
        );
    }

    /// [`deliver`](Self::deliver), awaiting async hooks.
    pub(crate) async fn deliver_async(&self, events: Vec<Emitted>, via: &'static str) {
        let keep = |context: &[String], warnings: &[String]| self.keep_parts(context, warnings);
        deliver_async(&self.hooks.inner, events, self.scope(via), &keep).await;
    }

    /// Keeps the context and warnings the hooks of a dispatch added.
    fn keep_parts(&self, context: &[String], warnings: &[String]) {
        if context.is_empty() && warnings.is_empty() {
            return;
        }
        let mut collected = self.collected.lock();
        collected.context.extend(context.iter().cloned());
        collected.warnings.extend(warnings.iter().cloned());
    }

    /// Keeps the context and warnings hooks added.
    pub(super) fn keep<T>(&self, outcome: &Outcome<T>) {
        if outcome.context.is_empty() && outcome.warnings.is_empty() {
            return;
        }
        let mut collected = self.collected.lock();
        collected.context.extend(outcome.context.iter().cloned());
        collected.warnings.extend(outcome.warnings.iter().cloned());
    }

    pub(super) fn end_event(&self, reason: TurnEnd) -> TurnEndEvent {
        TurnEndEvent {
            session_id: self.session.inner.id.to_string(),
            turn: self.scope.turn,
            reason,
        }
    }

    /// Fires `turn_end` once, then clears the state.
    pub(super) fn finish(&self, reason: TurnEnd, mode: Mode) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let event = self.end_event(reason);
        off_the_unwinding_thread(|| {
            let _ = self.fire::<TurnEnded>(event, mode);
        });
        self.close();
    }

    pub(super) fn close(&self) {
        Store::end_turn(&self.session.inner.slot, self.token, &self.scope.turn_state);
    }
}

impl Drop for TurnInner {
    fn drop(&mut self) {
        if self.ended.load(Ordering::Acquire) {
            // Already ended; an `end_async` whose future was dropped half-way may not have
            // cleared the state yet.
            self.close();
            return;
        }
        let reason = if std::thread::panicking() {
            TurnEnd::Error("the turn panicked".to_owned())
        } else {
            TurnEnd::Canceled
        };
        tracing::warn!(
            session_id = &*self.session.inner.id,
            turn = self.scope.turn,
            "turn {} of session `{}` dropped without Turn::end or Turn::end_async: it ends as \
             {reason}, and only its sync compiled-in turn_end hooks ran (a drop runs no async or \
             external hook)",
            self.scope.turn,
            self.session.inner.id
        );
        self.finish(reason, Mode::OnDrop);
    }
}

impl fmt::Debug for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Turn")
            .field("session", &self.inner.session.inner.id)
            .field("index", &self.inner.scope.turn)
            .field("redos", &self.redos())
            .field("ended", &self.is_ended())
            .finish()
    }
}

/// `true` when the dispatch left nothing for the turn to keep or report: the pass path.
#[inline(always)]
fn quiet<T>(outcome: &Outcome<T>) -> bool {
    outcome.context.is_empty()
        && outcome.warnings.is_empty()
        && outcome.failures.is_empty()
        && outcome.notifications.is_empty()
        && outcome.events.is_empty()
}

/// What a `Drop` does with the events its dispatch's hooks emitted: it delivers none.
#[cold]
pub(super) fn dropped(events: &[Emitted]) {
    for event in events {
        tracing::warn!(
            point = event.point(),
            "event `{}` emitted by hook `{}` while a turn or session was dropped is not \
             delivered: a drop runs no further chain (call `end` or `end_async`)",
            event.point(),
            event.emitter()
        );
    }
}

/// The notification of [`Turn::max_iterations_reached`].
fn max_iterations(limit: u32) -> Notification {
    Notification::new(
        Level::Warning,
        format!("the agent reached its limit of {limit} model call(s) for this run"),
    )
    .kind(NotificationKind::MaxIterations)
}

/// The notification of [`Turn::waiting_for_user`].
fn waiting(message: String) -> Notification {
    Notification::new(Level::Info, message).kind(NotificationKind::UserInput)
}
