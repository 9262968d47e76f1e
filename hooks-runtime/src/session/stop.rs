//! `on_stop`: what it decided ([`Stop`]) and the redos hooks ask for.
//!
//! - [`Turn::on_stop`] lets hooks send the agent back to work at most
//!   [`stop_redo_cap`](crate::HooksBuilder::stop_redo_cap) times per turn (default 3); repeats
//!   carry `stop_hook_active`, and past the cap the turn ends and a `notification` fires.

use std::sync::atomic::Ordering;

use hookchain_core::points::{Notify, OnStop};
use hookchain_core::{Blocked, Flow, Level, Notification, NotificationKind, StopEvent};

use super::firing::Mode;
use super::turn::{Turn, TurnInner};

/// What `on_stop` decided.
#[must_use = "a stop hook may ask the agent to redo its turn: act on the answer"]
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
    /// [`TurnEnd::MaxIterations`](hookchain_core::TurnEnd::MaxIterations)).
    /// A `notification` has fired.
    Capped {
        /// The reply the agent had.
        response: String,
        /// The hook that blocked once too often, and its reason.
        blocked: Blocked,
    },
}

impl Turn {
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
}

impl TurnInner {
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
}
