//! A session's life: its start (and restart), its children, its reset and its end, fired by
//! [`Session`] and the registry's `session` methods, and its end on drop.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use hookchain_core::points::{Notify, SessionEnd, SessionReset, SessionStart, SubagentStop};
use hookchain_core::{
    Blocked, Emitted, Flow, HookPoint, SessionEndEvent, SessionResetEvent, SessionSource,
    SessionStartEvent, SubagentStopEvent,
};

use super::emit::{deliver, deliver_async};
use super::firing::{Mode, failure_notifications, off_the_unwinding_thread};
use super::turn::dropped;
use crate::chain::{Outcome, Scope};
use crate::registry::Hooks;
use crate::state::{Frame, SessionState, Slot};

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
    pub(super) inner: Arc<SessionInner>,
}

pub(super) struct SessionInner {
    pub(super) hooks: Hooks,
    pub(super) id: Arc<str>,
    pub(super) parent: Option<Arc<str>>,
    pub(super) slot: Arc<Slot>,
    /// The frame of the session's dispatches outside any turn.
    pub(super) frame: Frame,
    pub(super) next_turn: AtomicU64,
    pub(super) context: Vec<String>,
    pub(super) start_blocked: Option<Blocked>,
    pub(super) ended: AtomicBool,
    /// The tools active in the session ([`Session::set_active_tools`]); `None`: all of them.
    pub(super) active_tools: parking_lot::RwLock<Option<Vec<String>>>,
}

impl SessionInner {
    pub(super) fn new(hooks: Hooks, id: Arc<str>, parent: Option<Arc<str>>) -> Self {
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
            active_tools: parking_lot::RwLock::new(None),
        }
    }

    pub(super) fn scope(&self, via: &'static str) -> Scope<'_> {
        Scope {
            session_id: &self.id,
            turn: self.next_turn.load(Ordering::Relaxed),
            states: Some((&self.slot.outside, &self.slot.state)),
            turn_scope: None,
            frame: self.frame,
            via,
        }
    }

    pub(super) fn fire<P: HookPoint>(&self, value: P::Value, mode: Mode) -> Outcome<P::Value> {
        let (chain, notify) = (
            self.hooks.inner.chain::<P>(),
            self.hooks.inner.chain::<Notify>(),
        );
        match mode {
            Mode::Sync(via) => {
                let outcome = chain.dispatch(value, self.scope(via));
                let mut events = outcome.events.clone();
                for n in failure_notifications::<P, _>(&outcome) {
                    events.extend(notify.dispatch(n, self.scope(via)).events);
                }
                self.deliver(events, via);
                outcome
            }
            Mode::OnDrop => {
                let outcome = chain.dispatch_on_drop(value, self.scope(""));
                let mut events = outcome.events.clone();
                for n in failure_notifications::<P, _>(&outcome) {
                    events.extend(notify.dispatch_on_drop(n, self.scope("")).events);
                }
                dropped(&events);
                outcome
            }
        }
    }

    pub(super) async fn fire_async<P: HookPoint>(
        &self,
        value: P::Value,
        via: &'static str,
    ) -> Outcome<P::Value> {
        let chain = self.hooks.inner.chain::<P>();
        let outcome = chain.dispatch_async(value, self.scope(via)).await;
        let mut events = outcome.events.clone();
        for n in failure_notifications::<P, _>(&outcome) {
            let notify = self.hooks.inner.chain::<Notify>();
            events.extend(notify.dispatch_async(n, self.scope(via)).await.events);
        }
        self.deliver_async(events, via).await;
        outcome
    }

    /// Delivers `events` in the session, outside any turn (the event bus, `session::emit`).
    /// The context and warnings their hooks add go nowhere, as those of `session_end`'s.
    pub(super) fn deliver(&self, events: Vec<Emitted>, via: &'static str) {
        deliver(&self.hooks.inner, events, self.scope(via), &|_, _| {});
    }

    /// [`deliver`](Self::deliver), awaiting async hooks.
    pub(super) async fn deliver_async(&self, events: Vec<Emitted>, via: &'static str) {
        deliver_async(&self.hooks.inner, events, self.scope(via), &|_, _| {}).await;
    }

    pub(super) fn start_event(&self, source: SessionSource) -> SessionStartEvent {
        SessionStartEvent {
            session_id: self.id.to_string(),
            parent_session_id: self.parent.as_deref().map(str::to_owned),
            source,
            context: Vec::new(),
        }
    }

    /// Keeps what `session_start` decided.
    pub(super) fn started(mut self, flow: Flow<SessionStartEvent>) -> Session {
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

    pub(super) fn end_events(&self, reason: &str) -> (Option<SubagentStopEvent>, SessionEndEvent) {
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
    pub(super) fn finish(&self, reason: &str, mode: Mode) {
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

    pub(super) async fn finish_async(&self, reason: &str) {
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

    pub(super) fn close(&self) {
        self.hooks.inner.store.close(&self.id, &self.slot);
    }

    /// Fires `session_reset` unless the session has ended, and ends it.
    pub(super) fn reset_event(&self, new_id: &str) -> Option<SessionResetEvent> {
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

    /// Emits an event of point `P` from the agent, outside any turn: dispatches `value` to
    /// `P`'s chain now, in this session, then delivers what its hooks emit (the event bus, as
    /// [`Turn::emit`](crate::Turn::emit) says). The emitter gets nothing back; the context and
    /// warnings the hooks add go nowhere outside a turn (emit from a [`Turn`](crate::Turn) to
    /// keep them).
    pub fn emit<P: HookPoint>(&self, value: P::Value) {
        // Names `P` to the registry, so events of `P` its hooks emit find its chain too.
        let _ = self.inner.hooks.inner.chain::<P>();
        self.inner
            .deliver(vec![Emitted::new::<P>(value, "")], "Session::emit_async");
    }

    /// [`emit`](Session::emit), awaiting async hooks.
    pub async fn emit_async<P: HookPoint>(&self, value: P::Value) {
        let _ = self.inner.hooks.inner.chain::<P>();
        self.inner
            .deliver_async(vec![Emitted::new::<P>(value, "")], "Session::emit_async")
            .await;
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
