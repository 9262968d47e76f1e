//! Where a dispatch happens: the session and turn its hooks see, and the context it gives them.

use hookchain_core::__private::TurnScope;
use hookchain_core::{Annotations, HookContext, HookPoint, SessionState, TurnState};

use crate::state::Frame;

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
    pub(super) fn context<P: HookPoint>(&self, notes: &'a Annotations) -> HookContext<'a> {
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
