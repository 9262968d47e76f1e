//! What a session and a turn both fire with: how a dispatch runs its hooks ([`Mode`]), the
//! notifications a dispatch leaves for `notification`, and observers fired off a thread that
//! unwinds.
//!
//! - A hook that fails is reported through `notification`, after the dispatch it failed in; so
//!   is what a hook asked to notify (`cx.notify`), except from inside `notification` itself.
//! - Observers fired while a panic unwinds run on a thread of their own, so a second panic in a
//!   hook is caught like any other instead of aborting the process.

use hookchain_core::points::Notify;
use hookchain_core::{HookPoint, Level, Notification, NotificationKind, OnError};

use crate::chain::Outcome;

/// How a dispatch runs its hooks.
#[derive(Clone, Copy)]
pub(super) enum Mode {
    /// Every hook; async hooks are driven by the sync dispatch, which names this `_async` method
    /// when it cannot.
    Sync(&'static str),
    /// From a `Drop`: the sync compiled-in hooks only.
    OnDrop,
}

/// Runs `f` here, or — while this thread unwinds from a panic, when a second panic would abort
/// the process — on a thread of its own, where a hook's panic is caught like any other.
pub(super) fn off_the_unwinding_thread<F: FnOnce() + Send>(f: F) {
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
pub(super) fn failure_notifications<P: HookPoint, T>(outcome: &Outcome<T>) -> Vec<Notification> {
    notifications_of(P::NAME, outcome)
}

/// [`failure_notifications`] of a dispatch of the point named `point`.
pub(super) fn notifications_of<T>(point: &str, outcome: &Outcome<T>) -> Vec<Notification> {
    if point == Notify::NAME {
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
            message: format!("{} on `{}`", failure, point),
            source: Some(failure.hook.clone()),
            kind: NotificationKind::General,
        })
        .chain(outcome.notifications.iter().cloned())
        .collect()
}
