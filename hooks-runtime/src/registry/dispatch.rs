//! A dispatch straight on the registry runs one chain and nothing else: [`Hooks::dispatch`]
//! outside any session (session id `""`), [`Hooks::dispatch_in_session`] as a firing of a
//! session that lives elsewhere (its id and its state given; no `session_start`, `session_end`
//! or `notification` fires around it).

use hookchain_core::{HookPoint, SessionState, TurnState};

use super::hooks::Hooks;

impl Hooks {
    /// Dispatches `value` through the chain of `P` outside any session (session id `""`,
    /// turn 0; `cx.turn_state()` and `cx.session_state()` are states of this dispatch alone).
    /// Agents use [`Session`](crate::Session) and [`Turn`](crate::Turn) instead.
    pub fn dispatch<P: HookPoint>(&self, value: P::Value) -> crate::Outcome<P::Value> {
        let states = (TurnState::default(), SessionState::default());
        let scope = self.outside_sessions(&states, "Hooks::dispatch_async");
        self.inner.chain::<P>().dispatch(value, scope)
    }

    /// [`dispatch`](Hooks::dispatch), awaiting async hooks.
    pub async fn dispatch_async<P: HookPoint>(&self, value: P::Value) -> crate::Outcome<P::Value> {
        let states = (TurnState::default(), SessionState::default());
        let scope = self.outside_sessions(&states, "Hooks::dispatch_async");
        self.inner.chain::<P>().dispatch_async(value, scope).await
    }

    /// Dispatches `value` through the chain of `P` as one firing in a session that lives
    /// elsewhere — one event of an agent's session replayed from its payload, as `hookchain
    /// test` does: hooks see `session_id` (`cx.session_id()`) and `state` (`cx.session_state()`,
    /// where what the agent tells external hooks about the session is kept: its transcript, its
    /// project directory), turn 0 and a turn state of this dispatch alone.
    ///
    /// Only `P`'s chain runs: no `session_start` before it (dispatch
    /// [`SessionStart`](hookchain_core::points::SessionStart) itself to test it), no `session_end`
    /// after, and a hook that fails is in the outcome's failures, not reported through
    /// `notification`. [`get_session_state`](crate::get_session_state) does not find the
    /// session: its hooks read `state` through `cx`. An agent running its own sessions uses
    /// [`Hooks::session`] instead.
    ///
    /// ```
    /// use hookchain::{HookContext, HookResult, HooksBuilder, SessionState};
    /// use hookchain::points::{OnStop, StopEvent};
    ///
    /// let hooks = HooksBuilder::new()
    ///     .hook(OnStop, 0, |_: &StopEvent, cx: &HookContext| {
    ///         let mode: Option<String> = cx.session_state().get("mode");
    ///         cx.warn(format!("{} {}", cx.session_id(), mode.unwrap_or_default()));
    ///         HookResult::Pass
    ///     })
    ///     .build()?;
    /// let state = SessionState::default();
    /// state.set("mode", "plan");
    /// let stop = StopEvent { response: "Done.".into(), stop_hook_active: false, redos: 0 };
    /// let outcome = hooks.dispatch_in_session::<OnStop>("abc-123", &state, stop);
    /// assert_eq!(outcome.warnings, ["abc-123 plan"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dispatch_in_session<P: HookPoint>(
        &self,
        session_id: &str,
        state: &SessionState,
        value: P::Value,
    ) -> crate::Outcome<P::Value> {
        let turn = TurnState::default();
        let scope = self.in_session(session_id, &turn, state, "Hooks::dispatch_in_session_async");
        self.inner.chain::<P>().dispatch(value, scope)
    }

    /// [`dispatch_in_session`](Hooks::dispatch_in_session), awaiting async hooks.
    pub async fn dispatch_in_session_async<P: HookPoint>(
        &self,
        session_id: &str,
        state: &SessionState,
        value: P::Value,
    ) -> crate::Outcome<P::Value> {
        let turn = TurnState::default();
        let scope = self.in_session(session_id, &turn, state, "Hooks::dispatch_in_session_async");
        self.inner.chain::<P>().dispatch_async(value, scope).await
    }

    fn outside_sessions<'a>(
        &self,
        (turn, session): &'a (TurnState, SessionState),
        via: &'static str,
    ) -> crate::chain::Scope<'a> {
        self.in_session("", turn, session, via)
    }

    fn in_session<'a>(
        &self,
        session_id: &'a str,
        turn: &'a TurnState,
        session: &'a SessionState,
        via: &'static str,
    ) -> crate::chain::Scope<'a> {
        crate::chain::Scope {
            session_id,
            turn: 0,
            states: Some((turn, session)),
            turn_scope: None,
            frame: crate::state::Frame::registry(self.inner.store.id()),
            via,
        }
    }
}
