//! The driver: [`Session`] and [`Turn`], the agent's side of hookchain.
//!
//! # What it owns
//!
//! A [`Session`] is one conversation: its id, its [`SessionState`], the context its
//! `session_start` hooks injected, and its turns. A [`Turn`] is one run of the agent for one user
//! message: its own [`TurnState`], and one method per hook point, which runs the point's chain
//! and hands back a [`Flow`] (transform and inject points) or the value itself (observe points).
//! Both are cheap to clone (an `Arc`), `Send` and `Sync`: share them between threads and tasks.
//!
//! # Sync and async, end to end
//!
//! Every firing method has an `_async` twin that awaits async hooks instead of blocking:
//! [`Hooks::session_async`], [`Session::child_async`], [`Session::end_async`],
//! [`Session::reset_async`], [`Session::fire_async`], one per point on [`Turn`]
//! ([`Turn::intercept_tool_call_async`], ...), [`Turn::run_tool_async`],
//! [`Turn::on_stop_async`], [`Turn::fire_async`] and [`Turn::end_async`]. An async agent uses
//! those and never blocks an executor thread. The sync methods drive async hooks themselves, as
//! the [chain docs](crate::chain#async-hooks) say: inside a current-thread tokio runtime an async
//! hook that would wait fails at once, under its `on_error`, with an error naming the `_async`
//! method to call instead — it never hangs.
//!
//! # The rules it keeps
//!
//! - `session_start` fires when the session is created ([`Hooks::session`],
//!   [`Hooks::session_with`], [`Session::child`], [`Session::reset`] and their `_async` twins);
//!   the context it injects is kept for the whole session ([`Session::context`]). It fires
//!   again only when the agent calls [`Session::restart`].
//! - `session_end` fires at most once, from [`Session::end`] or [`Session::end_async`] with the
//!   agent's reason; a second call does nothing. A child session fires `subagent_stop`, carrying
//!   its parent's id, just before its `session_end`. [`Session::reset`] fires `session_reset`
//!   instead and starts a new session under the new id.
//! - Each turn starts with an empty [`TurnState`] of its own. `turn_end` fires exactly once per
//!   turn, from [`Turn::end`] or [`Turn::end_async`] with its reason (a second call does
//!   nothing), and the turn state is cleared right after.
//! - Two turns of one session may run at once (two runs of the agent): each has its own state,
//!   and ending one leaves the other's alone.
//! - **Drop.** A turn whose last clone is dropped without `end`, or a session whose last clone is
//!   dropped without `end`, ends all the same — on an early return, a `?`, a panic — but a `Drop`
//!   cannot await and must not block on a script or an endpoint, so it runs **no async hook and
//!   no external hook**. It warns (`tracing::warn!`) that `end`/`end_async` was not called, runs
//!   the sync hooks compiled into the program (`#[register_hook]` fns and builder closures) of
//!   `turn_end` — with [`TurnEnd::Canceled`], or [`TurnEnd::Error`] when dropped by a panic — or
//!   of `subagent_stop` and `session_end` — with the reason `"dropped"` —, and frees the state.
//! - The agent calls [`Turn::turn_start`] once per turn, after `transform_user_input` and before
//!   the turn's first model call; the context it returns is for that turn's model calls only.
//! - `permission_request`, `after_tool_batch` and the notifications of the iteration cap and of
//!   waiting for the user fire where the agent calls them ([`Turn::permission_request`] where it
//!   would ask the user to confirm a call, [`Turn::after_tool_batch`] once the calls of one model
//!   reply have run, [`Turn::max_iterations_reached`], [`Turn::waiting_for_user`]): hookchain
//!   cannot see those moments of the agent's loop.
//! - [`Hooks::session_with`] starts a session with a source of the agent's choosing (a resumed
//!   conversation); [`Session::restart`] fires `session_start` again on the same session
//!   (after a compaction).
//! - [`Turn::run_tool`] fires the tool points in their order: `intercept_tool_call`, the tool,
//!   `after_tool_call` (on success and on error, a panicking tool included), then
//!   `transform_tool_result`, which sees the call as it actually ran.
//! - **Every call reaches `after_tool_call`, the refused ones too**, so an audit hook sees them
//!   all. When `intercept_tool_call` blocks, the tool does not run and neither does
//!   `transform_tool_result` (there is no result to transform); `after_tool_call` fires with
//!   [`ToolResult::refused`]: the call as the model asked for it, the reason as an error
//!   `tool_response`, and the block in [`ToolResult::blocked`] (the hook, the reason, and whether
//!   it was a failure under `on_error = "block"`). The [`ToolRun`] the agent gets for a refused
//!   call is the reason as an error, with the call's name and id only. External hooks
//!   configured under another agent's event name are not fired for a refused call, as their
//!   agents fire no post-tool event for a denied call (see `hookchain::external::wire`).
//! - [`Turn::on_stop`] lets hooks send the agent back to work at most
//!   [`stop_redo_cap`](crate::HooksBuilder::stop_redo_cap) times per turn (default 3); repeats
//!   carry `stop_hook_active`, and past the cap the turn ends and a `notification` fires.
//! - A hook that fails is reported through `notification`, after the dispatch it failed in; so
//!   is what a hook asked to notify (`cx.notify`), except from inside `notification` itself.
//! - Parallel tool calls of one turn dispatch concurrently, each through the whole chain.
//! - Agent-facing context and user-facing warnings that hooks add are kept by the turn in the
//!   order they were added ([`Turn::take_context`], [`Turn::take_warnings`]).
//! - Observers fired while a panic unwinds run on a thread of their own, so a second panic in a
//!   hook is caught like any other instead of aborting the process.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::task::{Context, Poll};

use hookchain_core::__private::TurnScope;
use hookchain_core::points::{
    AfterCompaction, AfterLlmCall, AfterToolBatch, AfterToolCall, BeforeCompaction, BeforeLlmCall,
    InterceptToolCall, Notify, OnStop, OutboundMessage, PermissionRequest, SessionEnd,
    SessionReset, SessionStart, SubagentStop, TransformResponse, TransformToolResult,
    TransformUserInput, TurnEnded, TurnStart,
};
use hookchain_core::{
    Blocked, Compaction, CompactionDone, Flow, HookPoint, Level, LlmCall, LlmReply, Notification,
    NotificationKind, OnError, Outbound, PermissionAsk, SessionEndEvent, SessionResetEvent,
    SessionSource, SessionStartEvent, StopEvent, SubagentStopEvent, ToolBatch, ToolCall,
    ToolResult, TurnEnd, TurnEndEvent, TurnStartEvent,
};
use parking_lot::Mutex;
use serde_json::Value;

use crate::chain::{Outcome, Scope, Stopped, take_panic};
use crate::registry::Hooks;
use crate::state::{Frame, SessionState, Slot, Store, TurnState};

/// One conversation: its id, its state, its session context and its turns. Cheap to clone,
/// `Send` and `Sync`; every clone is the same session.
///
/// End it with [`end`](Session::end) or [`end_async`](Session::end_async). Dropping its last
/// clone without either ends it too, with the reason `"dropped"`, and frees its state; but a
/// `Drop` cannot await and must not wait on a script or an endpoint, so it runs only the sync
/// hooks compiled into the program (`#[register_hook]` fns and builder closures) of
/// `subagent_stop` and `session_end` — no async hook, no external hook — and warns through
/// `tracing` that `end` was not called.
#[derive(Clone)]
pub struct Session {
    inner: Arc<SessionInner>,
}

struct SessionInner {
    hooks: Hooks,
    id: Arc<str>,
    parent: Option<Arc<str>>,
    slot: Arc<Slot>,
    /// The frame of the session's dispatches outside any turn.
    frame: Frame,
    next_turn: AtomicU64,
    context: Vec<String>,
    start_blocked: Option<Blocked>,
    ended: AtomicBool,
}

/// How a dispatch runs its hooks.
#[derive(Clone, Copy)]
enum Mode {
    /// Every hook; async hooks are driven by the sync dispatch, which names this `_async` method
    /// when it cannot.
    Sync(&'static str),
    /// From a `Drop`: the sync compiled-in hooks only.
    OnDrop,
}

impl SessionInner {
    fn new(hooks: Hooks, id: Arc<str>, parent: Option<Arc<str>>) -> Self {
        let slot = hooks.inner.store.open(&id);
        let frame = Frame::session(hooks.inner.store.id(), slot.key());
        SessionInner {
            hooks,
            id,
            parent,
            slot,
            frame,
            next_turn: AtomicU64::new(0),
            context: Vec::new(),
            start_blocked: None,
            ended: AtomicBool::new(false),
        }
    }

    fn scope(&self, via: &'static str) -> Scope<'_> {
        Scope {
            session_id: &self.id,
            turn: self.next_turn.load(Ordering::Relaxed),
            states: Some((&self.slot.outside, &self.slot.state)),
            turn_scope: None,
            frame: self.frame,
            via,
        }
    }

    fn fire<P: HookPoint>(&self, value: P::Value, mode: Mode) -> Outcome<P::Value> {
        let (chain, notify) = (
            self.hooks.inner.chain::<P>(),
            self.hooks.inner.chain::<Notify>(),
        );
        match mode {
            Mode::Sync(via) => {
                let outcome = chain.dispatch(value, self.scope(via));
                for n in failure_notifications::<P, _>(&outcome) {
                    let _ = notify.dispatch(n, self.scope(via));
                }
                outcome
            }
            Mode::OnDrop => {
                let outcome = chain.dispatch_on_drop(value, self.scope(""));
                for n in failure_notifications::<P, _>(&outcome) {
                    let _ = notify.dispatch_on_drop(n, self.scope(""));
                }
                outcome
            }
        }
    }

    async fn fire_async<P: HookPoint>(
        &self,
        value: P::Value,
        via: &'static str,
    ) -> Outcome<P::Value> {
        let chain = self.hooks.inner.chain::<P>();
        let outcome = chain.dispatch_async(value, self.scope(via)).await;
        for n in failure_notifications::<P, _>(&outcome) {
            let notify = self.hooks.inner.chain::<Notify>();
            let _ = notify.dispatch_async(n, self.scope(via)).await;
        }
        outcome
    }

    fn start_event(&self, source: SessionSource) -> SessionStartEvent {
        SessionStartEvent {
            session_id: self.id.to_string(),
            parent_session_id: self.parent.as_deref().map(str::to_owned),
            source,
            context: Vec::new(),
        }
    }

    /// Keeps what `session_start` decided.
    fn started(mut self, flow: Flow<SessionStartEvent>) -> Session {
        match flow {
            Flow::Continue(event) => self.context = event.context,
            Flow::Blocked(blocked) => {
                tracing::warn!(session_id = &*self.id, "{blocked}");
                self.start_blocked = Some(blocked);
            }
        }
        Session {
            inner: Arc::new(self),
        }
    }

    fn end_events(&self, reason: &str) -> (Option<SubagentStopEvent>, SessionEndEvent) {
        let stop = self.parent.as_ref().map(|parent| SubagentStopEvent {
            session_id: self.id.to_string(),
            parent_session_id: parent.to_string(),
            reason: reason.to_owned(),
        });
        let end = SessionEndEvent {
            session_id: self.id.to_string(),
            reason: reason.to_owned(),
        };
        (stop, end)
    }

    /// Fires `subagent_stop` (for a child) and `session_end`, once, then frees the state.
    fn finish(&self, reason: &str, mode: Mode) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let (stop, end) = self.end_events(reason);
        off_the_unwinding_thread(|| {
            if let Some(stop) = stop {
                let _ = self.fire::<SubagentStop>(stop, mode);
            }
            let _ = self.fire::<SessionEnd>(end, mode);
        });
        self.close();
    }

    async fn finish_async(&self, reason: &str) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let (stop, end) = self.end_events(reason);
        if let Some(stop) = stop {
            let _ = self
                .fire_async::<SubagentStop>(stop, "Session::end_async")
                .await;
        }
        let _ = self
            .fire_async::<SessionEnd>(end, "Session::end_async")
            .await;
        self.close();
    }

    fn close(&self) {
        self.hooks.inner.store.close(&self.id, &self.slot);
    }

    /// Fires `session_reset` unless the session has ended, and ends it.
    fn reset_event(&self, new_id: &str) -> Option<SessionResetEvent> {
        if self.ended.swap(true, Ordering::AcqRel) {
            return None;
        }
        Some(SessionResetEvent {
            old_session_id: self.id.to_string(),
            new_session_id: new_id.to_owned(),
        })
    }
}

impl Drop for SessionInner {
    fn drop(&mut self) {
        if self.ended.load(Ordering::Acquire) {
            // Already ended; an `end_async` whose future was dropped half-way may not have freed
            // the state yet.
            self.close();
            return;
        }
        tracing::warn!(
            session_id = &*self.id,
            "session `{}` dropped without Session::end or Session::end_async: it ends as \
             \"dropped\", and only its sync compiled-in session_end hooks ran (a drop runs no \
             async or external hook)",
            self.id
        );
        self.finish("dropped", Mode::OnDrop);
    }
}

impl Hooks {
    /// Starts a session with this id, dispatching through this registry: fires `session_start`.
    ///
    /// The session's state belongs to this registry: a session of another registry with the same
    /// id has state of its own. Keep one `Session` per id alive at a time in a registry: a second
    /// one gets state of its own and replaces the first for [`get_turn_state`] and
    /// [`get_session_state`].
    ///
    /// [`get_turn_state`]: crate::get_turn_state
    /// [`get_session_state`]: crate::get_session_state
    pub fn session(&self, id: impl Into<String>) -> Session {
        Session::start(
            self.clone(),
            id.into().into(),
            None,
            SessionSource::Startup,
            "Hooks::session_async",
        )
    }

    /// [`session`](Hooks::session), awaiting async `session_start` hooks.
    ///
    /// ```
    /// use hookchain::{HookContext, HookResult, TurnEnd, points::SessionStart};
    /// use hookchain::points::SessionStartEvent;
    /// use hookchain::HooksBuilder;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// # rt.block_on(async {
    /// let hooks = HooksBuilder::new()
    ///     .hook(SessionStart, 0, |_: &SessionStartEvent, _: &HookContext| {
    ///         HookResult::Rewrite("the repository uses tabs".to_owned())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let session = hooks.session_async("async-doc").await;
    /// assert_eq!(session.context(), ["the repository uses tabs"]);
    /// let turn = session.begin_turn();
    /// turn.end_async(TurnEnd::Normal).await;
    /// session.end_async("done").await;
    /// # });
    /// ```
    pub async fn session_async(&self, id: impl Into<String>) -> Session {
        Session::start_async(
            self.clone(),
            id.into().into(),
            None,
            SessionSource::Startup,
            "Hooks::session_async",
        )
        .await
    }
}

impl Hooks {
    /// Starts a session with this id whose `session_start` says `source`: a conversation the
    /// agent resumed ([`SessionSource::Resume`], Claude Code's `--resume`), or any other start
    /// the agent names itself. [`session`](Hooks::session) is `session_with(id,
    /// SessionSource::Startup)`; a child agent's session starts with [`Session::child`], a
    /// reset with [`Session::reset`], and a compaction fires [`Session::restart`] on the same
    /// session.
    ///
    /// External hooks written for Claude Code or docker-agent see the source as their agent
    /// spells it (`startup`, `resume`, `clear`, `compact`), and Claude Code's matchers filter
    /// on it (`matcher: resume`).
    ///
    /// ```
    /// use hookchain::{HookContext, HookResult, HooksBuilder};
    /// use hookchain::points::{SessionSource, SessionStart, SessionStartEvent};
    ///
    /// let hooks = HooksBuilder::new()
    ///     .hook(SessionStart, 0, |start: &SessionStartEvent, _: &HookContext| {
    ///         match start.source {
    ///             SessionSource::Resume => HookResult::Rewrite("welcome back".to_owned()),
    ///             _ => HookResult::Pass,
    ///         }
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let session = hooks.session_with("resumed", SessionSource::Resume);
    /// assert_eq!(session.context(), ["welcome back"]);
    /// session.end("done");
    /// ```
    pub fn session_with(&self, id: impl Into<String>, source: SessionSource) -> Session {
        Session::start(
            self.clone(),
            id.into().into(),
            None,
            source,
            "Hooks::session_with_async",
        )
    }

    /// [`session_with`](Hooks::session_with), awaiting async `session_start` hooks.
    pub async fn session_with_async(
        &self,
        id: impl Into<String>,
        source: SessionSource,
    ) -> Session {
        Session::start_async(
            self.clone(),
            id.into().into(),
            None,
            source,
            "Hooks::session_with_async",
        )
        .await
    }
}

impl Session {
    fn start(
        hooks: Hooks,
        id: Arc<str>,
        parent: Option<Arc<str>>,
        source: SessionSource,
        via: &'static str,
    ) -> Self {
        let inner = SessionInner::new(hooks, id, parent);
        let event = inner.start_event(source);
        let flow = inner.fire::<SessionStart>(event, Mode::Sync(via)).flow;
        for notice in &inner.hooks.inner.notices {
            let _ = inner.fire::<Notify>(notice.clone(), Mode::Sync(via));
        }
        inner.started(flow)
    }

    async fn start_async(
        hooks: Hooks,
        id: Arc<str>,
        parent: Option<Arc<str>>,
        source: SessionSource,
        via: &'static str,
    ) -> Self {
        let inner = SessionInner::new(hooks, id, parent);
        let event = inner.start_event(source);
        let flow = inner.fire_async::<SessionStart>(event, via).await.flow;
        for notice in &inner.hooks.inner.notices {
            let _ = inner.fire_async::<Notify>(notice.clone(), via).await;
        }
        inner.started(flow)
    }

    /// The session id hooks see (`cx.session_id()`).
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The parent's session id, for a child agent's session.
    pub fn parent_id(&self) -> Option<&str> {
        self.inner.parent.as_deref()
    }

    /// The context `session_start` hooks injected, in chain order; it persists for the whole
    /// session, so add it to every model call.
    pub fn context(&self) -> &[String] {
        &self.inner.context
    }

    /// The block, when a `session_start` hook blocked the session. What a blocked session means
    /// is the agent's call; its hooks still run.
    pub fn start_blocked(&self) -> Option<&Blocked> {
        self.inner.start_blocked.as_ref()
    }

    /// The registry this session dispatches through.
    pub fn hooks(&self) -> &Hooks {
        &self.inner.hooks
    }

    /// The session's state, living until the session ends (what its hooks get from
    /// `cx.session_state()`).
    pub fn state(&self) -> SessionState {
        self.inner.slot.state.clone()
    }

    /// Gives the session its project directory: the agent's workspace, where the session's
    /// relative paths point. Its hooks read it with `cx.project_dir()` — external hooks run in
    /// it, guards resolve paths against it — and without one it is the process's current
    /// directory ([`hookchain_core::project`]). A relative `dir` is taken from the current
    /// directory now.
    pub fn set_project_dir(&self, dir: impl Into<std::path::PathBuf>) {
        self.inner.slot.state.set_project_dir(dir);
    }

    /// The session's project directory ([`set_project_dir`](Self::set_project_dir), else the
    /// process's current directory).
    pub fn project_dir(&self) -> std::path::PathBuf {
        self.inner.slot.state.project_dir()
    }

    /// `true` once the session has ended (or been reset).
    pub fn is_ended(&self) -> bool {
        self.inner.ended.load(Ordering::Acquire)
    }

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

    /// Starts a child agent's session under `id`: it shares this session's hooks (its tool calls
    /// go through the same chains), fires `session_start` with the parent's id, and, when it
    /// ends, `subagent_stop`.
    pub fn child(&self, id: impl Into<String>) -> Session {
        Session::start(
            self.inner.hooks.clone(),
            id.into().into(),
            Some(self.inner.id.clone()),
            SessionSource::Subagent,
            "Session::child_async",
        )
    }

    /// [`child`](Session::child), awaiting async `session_start` hooks.
    pub async fn child_async(&self, id: impl Into<String>) -> Session {
        Session::start_async(
            self.inner.hooks.clone(),
            id.into().into(),
            Some(self.inner.id.clone()),
            SessionSource::Subagent,
            "Session::child_async",
        )
        .await
    }

    /// Dispatches `value` through the chain of any point `P`, at the session's level (outside
    /// any turn). Use it for points of your own that belong to the session.
    pub fn fire<P: HookPoint>(&self, value: P::Value) -> Outcome<P::Value> {
        self.inner
            .fire::<P>(value, Mode::Sync("Session::fire_async"))
    }

    /// [`fire`](Session::fire), awaiting async hooks.
    pub async fn fire_async<P: HookPoint>(&self, value: P::Value) -> Outcome<P::Value> {
        self.inner
            .fire_async::<P>(value, "Session::fire_async")
            .await
    }

    /// Fires `session_start` again for this session, with `source`: most often
    /// [`SessionSource::Compact`], right after the agent compacted the context, so hooks
    /// re-inject what the summary lost (Claude Code's `SessionStart` with `source: compact`,
    /// which `matcher: compact` hooks wait for). The session, its id and its state stay.
    ///
    /// `Continue` carries the context the hooks injected now; [`context`](Session::context)
    /// keeps what they injected when the session started. Add both to the model calls that
    /// follow.
    ///
    /// ```
    /// use hookchain::{Flow, HookContext, HookResult, HooksBuilder};
    /// use hookchain::points::{SessionSource, SessionStart, SessionStartEvent};
    ///
    /// let hooks = HooksBuilder::new()
    ///     .hook(SessionStart, 0, |start: &SessionStartEvent, _: &HookContext| {
    ///         match start.source {
    ///             SessionSource::Compact => HookResult::Rewrite("the plan is in PLAN.md".to_owned()),
    ///             _ => HookResult::Pass,
    ///         }
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let session = hooks.session("compacting");
    /// assert!(session.context().is_empty());
    /// // ... the agent compacts its context ...
    /// let Flow::Continue(start) = session.restart(SessionSource::Compact) else { panic!() };
    /// assert_eq!(start.context, ["the plan is in PLAN.md"]);
    /// session.end("done");
    /// ```
    pub fn restart(&self, source: SessionSource) -> Flow<SessionStartEvent> {
        let event = self.inner.start_event(source);
        self.inner
            .fire::<SessionStart>(event, Mode::Sync("Session::restart_async"))
            .into_flow()
    }

    /// [`restart`](Session::restart), awaiting async hooks.
    pub async fn restart_async(&self, source: SessionSource) -> Flow<SessionStartEvent> {
        let event = self.inner.start_event(source);
        self.inner
            .fire_async::<SessionStart>(event, "Session::restart_async")
            .await
            .into_flow()
    }

    /// Ends the session: fires `subagent_stop` (for a child) and `session_end` with `reason`,
    /// then frees its state, for every clone of it. A second call does nothing.
    pub fn end(&self, reason: impl Into<String>) {
        self.inner
            .finish(&reason.into(), Mode::Sync("Session::end_async"));
    }

    /// [`end`](Session::end), awaiting async hooks.
    pub async fn end_async(&self, reason: impl Into<String>) {
        self.inner.finish_async(&reason.into()).await;
    }

    /// Starts over under `new_id` (`/new`): fires `session_reset` with both ids, frees this
    /// session's state, and returns the new session, for which `session_start` has fired.
    /// `session_end` does not fire for the old id. On a session that has already ended, only
    /// the new session starts.
    pub fn reset(&self, new_id: impl Into<String>) -> Session {
        const VIA: &str = "Session::reset_async";
        let new_id: Arc<str> = new_id.into().into();
        if let Some(event) = self.inner.reset_event(&new_id) {
            let _ = self.inner.fire::<SessionReset>(event, Mode::Sync(VIA));
            self.inner.close();
        }
        Session::start(
            self.inner.hooks.clone(),
            new_id,
            self.inner.parent.clone(),
            SessionSource::Reset,
            VIA,
        )
    }

    /// [`reset`](Session::reset), awaiting async hooks.
    pub async fn reset_async(&self, new_id: impl Into<String>) -> Session {
        const VIA: &str = "Session::reset_async";
        let new_id: Arc<str> = new_id.into().into();
        if let Some(event) = self.inner.reset_event(&new_id) {
            let _ = self.inner.fire_async::<SessionReset>(event, VIA).await;
            self.inner.close();
        }
        Session::start_async(
            self.inner.hooks.clone(),
            new_id,
            self.inner.parent.clone(),
            SessionSource::Reset,
            VIA,
        )
        .await
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.inner.id)
            .field("parent", &self.inner.parent)
            .field("context", &self.inner.context)
            .field("ended", &self.is_ended())
            .finish()
    }
}

#[derive(Default)]
struct Collected {
    context: Vec<String>,
    warnings: Vec<String>,
}

/// What `on_stop` decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// End the turn with this reply (possibly rewritten by a hook).
    Finish(String),
    /// Do not end the turn: a hook blocked, and its reason is the agent's next instruction.
    Redo {
        /// The instruction.
        instruction: String,
        /// The hook that asked for the redo.
        hook: String,
    },
    /// A hook blocked again, but the turn has used up its redos: end the turn (for example with
    /// [`TurnEnd::MaxIterations`]). A `notification` has fired.
    Capped {
        /// The reply the agent had.
        response: String,
        /// The hook that blocked once too often, and its reason.
        blocked: Blocked,
    },
}

/// A tool call run through [`Turn::run_tool`]: the result the model should see, and how it came
/// about.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolRun {
    /// What the model sees: the (possibly transformed) result, or an error with the reason when a
    /// hook blocked.
    pub result: ToolResult,
    /// `true` when the tool actually ran.
    pub ran: bool,
    /// The block, when `intercept_tool_call` or `transform_tool_result` blocked.
    pub blocked: Option<Blocked>,
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
    inner: Arc<TurnInner>,
}

struct TurnInner {
    /// The session's registry, one load closer than through the session.
    hooks: Hooks,
    /// The registry's flags of the built-in points that have a hook, copied into the turn: a
    /// point nobody hooks is told apart with one load from the turn.
    hooked: [bool; hookchain_core::points::BUILTIN_SLOTS],
    /// The registry's flags of the built-in points a wildcard hook watches, read only once a
    /// point is known to be hooked.
    watched: [bool; hookchain_core::points::BUILTIN_SLOTS],
    session: Session,
    /// The turn's index, its state and its session's: what every dispatch's context points at.
    scope: TurnScope,
    token: u64,
    frame: Frame,
    collected: Mutex<Collected>,
    redos: AtomicU32,
    ended: AtomicBool,
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
fn observed<T>(outcome: Outcome<T>) -> T {
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

    /// Runs one tool call with every tool point in order: `intercept_tool_call`; then, unless it
    /// blocked, the tool (a panic in it becomes an error result); `after_tool_call`, on success
    /// and on error; and `transform_tool_result`, which sees the call as it actually ran.
    ///
    /// The tool gets the call with its args as the hooks left them. When `intercept_tool_call`
    /// blocks, the tool and `transform_tool_result` do not run, but `after_tool_call` still
    /// fires, with [`ToolResult::refused`] (the block recorded in [`ToolResult::blocked`]), so
    /// an audit hook sees every call.
    pub fn run_tool<F>(&self, call: ToolCall, tool: F) -> ToolRun
    where
        F: FnOnce(&ToolCall) -> Result<Value, String>,
    {
        const VIA: Mode = Mode::Sync("Turn::run_tool_async");
        let t = &*self.inner;
        let asked = t.asked(&call);
        let call = match t.fire::<InterceptToolCall>(call, VIA).flow {
            Flow::Continue(call) => call,
            Flow::Blocked(blocked) => {
                let _ =
                    t.fire::<AfterToolCall>(ToolResult::refused(&asked, (&blocked).into()), VIA);
                return refused(asked, blocked);
            }
        };
        let output = match catch_unwind(AssertUnwindSafe(|| tool(&call))) {
            Ok(output) => output,
            Err(panic) => {
                let (message, note) = tool_panicked(&call, panic);
                let _ = t.fire::<Notify>(note, VIA);
                Err(message)
            }
        };
        let result = observed(t.fire::<AfterToolCall>(ToolResult::new(&call, output), VIA));
        ran(&call, t.fire::<TransformToolResult>(result, VIA).flow)
    }

    /// [`run_tool`](Turn::run_tool) with an async tool, awaiting async hooks.
    ///
    /// ```
    /// use hookchain::TurnEnd;
    /// use hookchain::points::ToolCall;
    /// use hookchain::HooksBuilder;
    /// use serde_json::json;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// # rt.block_on(async {
    /// let hooks = HooksBuilder::new().build().unwrap();
    /// let session = hooks.session_async("run-tool-doc").await;
    /// let turn = session.begin_turn();
    /// let call = ToolCall::new("echo", json!({"text": "hi"}));
    /// let run = turn
    ///     .run_tool_async(call, async |call: &ToolCall| Ok(call.args["text"].clone()))
    ///     .await;
    /// assert_eq!(run.result.tool_response, json!("hi"));
    /// turn.end_async(TurnEnd::Normal).await;
    /// # });
    /// ```
    pub async fn run_tool_async<F>(&self, call: ToolCall, tool: F) -> ToolRun
    where
        F: AsyncFnOnce(&ToolCall) -> Result<Value, String>,
    {
        const VIA: &str = "Turn::run_tool_async";
        let t = &*self.inner;
        let asked = t.asked(&call);
        let call = match t.fire_async::<InterceptToolCall>(call, VIA).await.flow {
            Flow::Continue(call) => call,
            Flow::Blocked(blocked) => {
                let result = ToolResult::refused(&asked, (&blocked).into());
                let _ = t.fire_async::<AfterToolCall>(result, VIA).await;
                return refused(asked, blocked);
            }
        };
        let output = match CatchPanic(Box::pin(tool(&call))).await {
            Ok(output) => output,
            Err(panic) => {
                let (message, note) = tool_panicked(&call, panic);
                let _ = t.fire_async::<Notify>(note, VIA).await;
                Err(message)
            }
        };
        let result = ToolResult::new(&call, output);
        let result = observed(t.fire_async::<AfterToolCall>(result, VIA).await);
        ran(
            &call,
            t.fire_async::<TransformToolResult>(result, VIA).await.flow,
        )
    }

    /// `on_stop`: the agent is about to end the turn with `response`. See [`Stop`].
    pub fn on_stop(&self, response: impl Into<String>) -> Stop {
        const VIA: Mode = Mode::Sync("Turn::on_stop_async");
        let (event, kept) = self.inner.stop_event(response.into());
        let flow = self.inner.fire::<OnStop>(event, VIA).flow;
        let (stop, note) = self.inner.settle_stop(flow, kept);
        if let Some(note) = note {
            let _ = self.inner.fire::<Notify>(note, VIA);
        }
        stop
    }

    /// [`on_stop`](Turn::on_stop), awaiting async hooks.
    pub async fn on_stop_async(&self, response: impl Into<String>) -> Stop {
        const VIA: &str = "Turn::on_stop_async";
        let (event, kept) = self.inner.stop_event(response.into());
        let flow = self.inner.fire_async::<OnStop>(event, VIA).await.flow;
        let (stop, note) = self.inner.settle_stop(flow, kept);
        if let Some(note) = note {
            let _ = self.inner.fire_async::<Notify>(note, VIA).await;
        }
        stop
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
    /// What `run_tool` keeps of a call before `intercept_tool_call` may consume it: its name and
    /// id, and its args when an `after_tool_call` hook would see them should the call be refused.
    #[inline]
    fn asked(&self, call: &ToolCall) -> ToolCall {
        let audited = !self
            .session
            .inner
            .hooks
            .inner
            .chain::<AfterToolCall>()
            .is_empty();
        ToolCall {
            name: call.name.clone(),
            args: if audited {
                call.args.clone()
            } else {
                Value::Null
            },
            id: call.id.clone(),
        }
    }

    #[inline]
    fn scope(&self, via: &'static str) -> Scope<'_> {
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
    fn fire<P: HookPoint>(&self, value: P::Value, mode: Mode) -> Outcome<P::Value> {
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
    fn unhooked<P: HookPoint>(&self) -> bool {
        match P::BUILTIN_SLOT {
            Some(slot) => !self.hooked[slot],
            None => self.hooks.inner.is_unhooked::<P>(),
        }
    }

    /// The lean dispatch of the point methods, which hand back the flow alone: a point nobody
    /// hooks costs one check, like a disabled `tracing` callsite; a hooked one assembles no
    /// outcome unless a hook did more than pass.
    #[inline(always)]
    fn fire_flow<P: HookPoint>(&self, value: P::Value, via: &'static str) -> Flow<P::Value> {
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
    fn watched<P: HookPoint>(&self) -> bool {
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
    fn pass<P: HookPoint>(&self, value: &P::Value, via: &'static str) -> Option<Stopped<P>> {
        if self.watched::<P>() || crate::trace::wanted() {
            return Some(Stopped::watched());
        }
        match self.hooks.inner.builtin_chain::<P>() {
            Some(chain) => chain.pass::<false>(value, self.scope(via)),
            None => self.pass_custom::<P>(value, via),
        }
    }

    /// [`pass`](Self::pass) on a point defined outside hookchain.
    #[cold]
    #[inline(never)]
    fn pass_custom<P: HookPoint>(&self, value: &P::Value, via: &'static str) -> Option<Stopped<P>> {
        self.hooks
            .inner
            .chain::<P>()
            .pass::<false>(value, self.scope(via))
    }

    /// The rest of a dispatch whose pass path stopped; the turn keeps what the hooks added.
    #[cold]
    #[inline(never)]
    fn resume<P: HookPoint>(
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
    fn fire_hooked<P: HookPoint>(&self, value: P::Value, via: &'static str) -> Flow<P::Value> {
        match self.pass::<P>(&value, via) {
            None => Flow::Continue(value),
            Some(stop) => self.resume::<P>(stop, value, via),
        }
    }

    /// [`fire_flow`](Self::fire_flow) for the `_async` methods: a chain with no async hook runs
    /// as the sync one does, with nothing to await.
    #[inline(always)]
    async fn fire_flow_async<P: HookPoint>(
        &self,
        value: P::Value,
        via: &'static str,
    ) -> Flow<P::Value> {
        if self.unhooked::<P>() {
            return Flow::Continue(value);
        }
        if self.watched::<P>() || crate::trace::wanted() {
            return self.fire_async::<P>(value, via).await.into_flow();
        }
        if self.hooks.inner.chain::<P>().all_sync {
            return self.fire_hooked::<P>(value, via);
        }
        self.fire_async::<P>(value, via).await.into_flow()
    }

    async fn fire_async<P: HookPoint>(
        &self,
        value: P::Value,
        via: &'static str,
    ) -> Outcome<P::Value> {
        let chain = self.session.inner.hooks.inner.chain::<P>();
        let outcome = chain.dispatch_async(value, self.scope(via)).await;
        if !quiet(&outcome) {
            self.keep(&outcome);
            for n in failure_notifications::<P, _>(&outcome) {
                let notify = self.session.inner.hooks.inner.chain::<Notify>();
                let reported = notify.dispatch_async(n, self.scope(via)).await;
                self.keep(&reported);
            }
        }
        outcome
    }

    #[cold]
    fn collect<P: HookPoint>(&self, outcome: &Outcome<P::Value>, mode: Mode) {
        self.keep(outcome);
        for n in failure_notifications::<P, _>(outcome) {
            let notify = self.session.inner.hooks.inner.chain::<Notify>();
            let reported = match mode {
                Mode::Sync(via) => notify.dispatch(n, self.scope(via)),
                Mode::OnDrop => notify.dispatch_on_drop(n, self.scope("")),
            };
            self.keep(&reported);
        }
    }

    /// Keeps the context and warnings hooks added.
    fn keep<T>(&self, outcome: &Outcome<T>) {
        if outcome.context.is_empty() && outcome.warnings.is_empty() {
            return;
        }
        let mut collected = self.collected.lock();
        collected.context.extend(outcome.context.iter().cloned());
        collected.warnings.extend(outcome.warnings.iter().cloned());
    }

    fn stop_event(&self, response: String) -> (StopEvent, String) {
        let redos = self.redos.load(Ordering::Acquire);
        let kept = response.clone();
        let event = StopEvent {
            response,
            stop_hook_active: redos > 0,
            redos,
        };
        (event, kept)
    }

    /// What `on_stop`'s flow means, and the notification to fire when the cap was reached.
    fn settle_stop(&self, flow: Flow<StopEvent>, kept: String) -> (Stop, Option<Notification>) {
        let blocked = match flow {
            Flow::Continue(event) => return (Stop::Finish(event.response), None),
            Flow::Blocked(blocked) => blocked,
        };
        let cap = self.session.inner.hooks.inner.stop_redo_cap;
        let redos = self.redos.load(Ordering::Acquire);
        if redos < cap {
            self.redos.store(redos + 1, Ordering::Release);
            let stop = Stop::Redo {
                instruction: blocked.reason,
                hook: blocked.hook,
            };
            return (stop, None);
        }
        let note = Notification {
            level: Level::Warning,
            message: format!(
                "on_stop hook `{}` blocked after {cap} redo(s), the most a turn allows; the turn ends: {}",
                blocked.hook, blocked.reason
            ),
            source: Some(blocked.hook.clone()),
            kind: NotificationKind::General,
        };
        let stop = Stop::Capped {
            response: kept,
            blocked,
        };
        (stop, Some(note))
    }

    fn end_event(&self, reason: TurnEnd) -> TurnEndEvent {
        TurnEndEvent {
            session_id: self.session.inner.id.to_string(),
            turn: self.scope.turn,
            reason,
        }
    }

    /// Fires `turn_end` once, then clears the state.
    fn finish(&self, reason: TurnEnd, mode: Mode) {
        if self.ended.swap(true, Ordering::AcqRel) {
            return;
        }
        let event = self.end_event(reason);
        off_the_unwinding_thread(|| {
            let _ = self.fire::<TurnEnded>(event, mode);
        });
        self.close();
    }

    fn close(&self) {
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

/// The run of a tool call `intercept_tool_call` blocked: the model gets the reason (and the
/// call's name and id, not its args).
fn refused(asked: ToolCall, blocked: Blocked) -> ToolRun {
    let mut refused = ToolCall::new(asked.name, Value::Null);
    refused.id = asked.id;
    ToolRun {
        result: ToolResult::new(&refused, Err(blocked.reason.clone())),
        ran: false,
        blocked: Some(blocked),
    }
}

/// The run of a tool that ran, once `transform_tool_result` has had its say.
fn ran(call: &ToolCall, flow: Flow<ToolResult>) -> ToolRun {
    match flow {
        Flow::Continue(result) => ToolRun {
            result,
            ran: true,
            blocked: None,
        },
        Flow::Blocked(blocked) => ToolRun {
            result: ToolResult::new(call, Err(blocked.reason.clone())),
            ran: true,
            blocked: Some(blocked),
        },
    }
}

/// The error result of a tool that panicked, and the notification that says so. The panic's
/// payload is dropped under a guard (see [`take_panic`]).
fn tool_panicked(call: &ToolCall, panic: Box<dyn std::any::Any + Send>) -> (String, Notification) {
    let message = format!("the tool `{}` panicked: {}", call.name, take_panic(panic));
    let note = Notification {
        level: Level::Error,
        message: message.clone(),
        source: Some(call.name.clone()),
        kind: NotificationKind::General,
    };
    (message, note)
}

/// A future that turns a panic during `poll` into the panic's payload.
struct CatchPanic<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchPanic<F> {
    type Output = Result<F::Output, Box<dyn std::any::Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(out)) => Poll::Ready(Ok(out)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// Runs `f` here, or — while this thread unwinds from a panic, when a second panic would abort
/// the process — on a thread of its own, where a hook's panic is caught like any other.
fn off_the_unwinding_thread<F: FnOnce() + Send>(f: F) {
    if std::thread::panicking() {
        std::thread::scope(|s| {
            let _ = s.spawn(f).join();
        });
    } else {
        f();
    }
}

/// What a dispatch of `P` has the runtime fire through `notification`: one per failed hook of
/// `outcome`, then the notifications its hooks asked for (`cx.notify`). None for a dispatch of
/// `notification` itself, so a notification hook cannot start a loop: what such a hook asked
/// for is logged instead.
fn failure_notifications<P: HookPoint, T>(outcome: &Outcome<T>) -> Vec<Notification> {
    if P::NAME == Notify::NAME {
        for n in &outcome.notifications {
            tracing::warn!(
                "a `notification` hook asked for a notification, which is not fired from \
                 inside `notification`: {}",
                n.message
            );
        }
        return Vec::new();
    }
    if outcome.failures.is_empty() && outcome.notifications.is_empty() {
        return Vec::new();
    }
    outcome
        .failures
        .iter()
        .map(|failure| Notification {
            level: match failure.on_error {
                OnError::Pass | OnError::Warn => Level::Warning,
                OnError::Block => Level::Error,
            },
            message: format!("{} on `{}`", failure, P::NAME),
            source: Some(failure.hook.clone()),
            kind: NotificationKind::General,
        })
        .chain(outcome.notifications.iter().cloned())
        .collect()
}
