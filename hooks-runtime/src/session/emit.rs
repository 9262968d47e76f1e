//! The event bus: delivering what hooks, tools and the agent emit.
//!
//! # What it owns
//!
//! A hook emits with [`HookContext::emit`](hookchain_core::HookContext::emit): the event
//! ([`Emitted`]) is queued in the dispatch's annotations and comes back in the dispatch's
//! [`Outcome::events`]. A [`Turn`](crate::Turn) or a [`Session`](crate::Session) delivers
//! them (`deliver`, `deliver_async`) once the dispatch has returned and before the agent's call
//! that started it returns, in the same session and turn; the agent emits with
//! [`Turn::emit`](crate::Turn::emit) and [`Session::emit`](crate::Session::emit), delivered at
//! once. A tool run hands the events of its context to the same `deliver`.
//!
//! # How an event finds the code of its point
//!
//! `hookchain-core`, where events are made, cannot run a chain, and the chain of a user-defined
//! point is built (and its dispatch compiled) only for the point types the program names to the
//! runtime. So an event carries its point's `TypeId`, and the registry keeps a map from `TypeId`
//! to a [`Firer`]: the point's dispatch, compiled for that point and erased to one signature. The
//! map is filled
//!
//! - for every built-in point, when the registry is built;
//! - for every point of a `#[register_hook]` fn on a user-defined point: the macro names
//!   `__private::firer::<P>()` in the hook's link-time record, so a point that only hooks emit
//!   and only link-time hooks hear is delivered;
//! - for every point of a hook added with [`HooksBuilder::hook`](crate::HooksBuilder::hook) and
//!   its siblings;
//! - for every point the agent fires or emits (its chain is then built, and its firer kept).
//!
//! An event of a point found in none of these has no hook anywhere and needs no dispatch: the
//! wildcard hooks whose pattern matches its name (`"*"`, `"myapp:*"`) see it, with the value's
//! JSON (which the event carries, made where the point's type was known) and a pass; when none
//! does, nobody hears it, and it is dropped with a `tracing` debug line.
//! The alternative — a trait object in `hookchain-core` through which a context calls the
//! runtime — would need generic methods on a trait object, which Rust has not, and would put a
//! dispatch inside a dispatch (re-entrancy), which the bus must not do.
//!
//! # The rules it keeps
//!
//! - **After, never inside.** An event is dispatched after the dispatch that emitted it has
//!   returned; never re-entrantly, so a hook never runs inside another hook's call.
//! - **In order, breadth first.** Events are delivered in the order they were emitted; an event
//!   emitted by a hook of an emitted event is queued after the events already waiting, one
//!   level deeper.
//! - **Bounded.** An event at a depth past [`MAX_EMIT_DEPTH`] is not delivered: it is dropped
//!   with an error notification naming the point and the hook that emitted it (two extensions
//!   emitting to each other end there, with no hang and no panic). One call takes at most
//!   [`MAX_EVENTS_PER_CALL`] events from its queue, delivered or not; the rest are dropped with
//!   one error notification. What a `notification` hook emits while an event that was not
//!   delivered is reported is not delivered either, so such a hook cannot keep the loop going.
//! - **The emitter gets nothing back.** What the point's hooks decide is theirs: context and
//!   warnings they add are kept by the turn as for any dispatch, their failures and
//!   notifications go to `notification`, and a block is reported through `notification` as a
//!   notice (level info) naming the point, the emitter and the hook that blocked.
//! - **Pass path unchanged.** Events live in the annotations, made only when a hook annotates or
//!   emits; a dispatch whose hooks all pass looks at none of this.
//! - A `Drop` delivers nothing: an event emitted by a `turn_end` hook run from a drop is logged
//!   and dropped. `Hooks::dispatch` delivers nothing either: the events stay in its outcome.

use std::any::TypeId;
use std::collections::VecDeque;

use hookchain_core::__private::Wildcard;
use hookchain_core::points::Notify;
use hookchain_core::{
    BoxFuture, Decision, DispatchEvent, Emitted, Flow, HookPoint, Level, Notification,
};

use super::firing::notifications_of;
use crate::chain::{Entry, Outcome, Scope, report_unheard};
use crate::registry::Registry;

/// How deep events emitted by the hooks of emitted events nest: an event emitted from a point
/// method's dispatch is at depth 1, one emitted by a hook of that event at depth 2, and so on.
/// An event past this depth is dropped with an error notification.
pub const MAX_EMIT_DEPTH: u32 = 8;

/// How many events one call of the agent delivers at most (whatever their depth); the rest are
/// dropped with an error notification.
pub const MAX_EVENTS_PER_CALL: usize = 1024;

/// The synchronous dispatch of an event of one point, erased.
type SyncFire = for<'a> fn(&'a Registry, &'a Emitted, Scope<'a>) -> Outcome<()>;

/// The async dispatch of an event of one point, erased.
type AsyncFire = for<'a> fn(&'a Registry, &'a Emitted, Scope<'a>) -> BoxFuture<'a, Outcome<()>>;

/// The dispatch of one point's events, compiled for that point: what the registry keeps per
/// point type, and what `#[register_hook]` on a user-defined point puts in its record. Not a
/// public API.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Firer {
    pub(crate) point: fn() -> TypeId,
    pub(crate) sync: SyncFire,
    pub(crate) run_async: AsyncFire,
}

impl std::fmt::Debug for Firer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Firer").finish_non_exhaustive()
    }
}

/// The firer of point `P`. Not a public API: `#[register_hook]` names it through the facade's
/// `__private`.
#[doc(hidden)]
pub const fn firer<P: HookPoint>() -> Firer {
    Firer {
        point: TypeId::of::<P>,
        sync: fire_sync::<P>,
        run_async: fire_async::<P>,
    }
}

fn fire_sync<'a, P: HookPoint>(
    registry: &'a Registry,
    event: &'a Emitted,
    scope: Scope<'a>,
) -> Outcome<()> {
    match event.take::<P>() {
        Some(value) => registry.chain::<P>().dispatch(value, scope).erased(),
        None => Outcome::passed(()),
    }
}

fn fire_async<'a, P: HookPoint>(
    registry: &'a Registry,
    event: &'a Emitted,
    scope: Scope<'a>,
) -> BoxFuture<'a, Outcome<()>> {
    Box::pin(async move {
        match event.take::<P>() {
            Some(value) => registry
                .chain::<P>()
                .dispatch_async(value, scope)
                .await
                .erased(),
            None => Outcome::passed(()),
        }
    })
}

/// The events waiting to be delivered by one call, with their depth.
struct Queue {
    waiting: VecDeque<(Emitted, u32)>,
    delivered: usize,
    /// Set once the per-call bound was reported.
    spent: bool,
}

/// What delivering one event left to do: the notifications to fire and the events its hooks
/// emitted (one level deeper).
enum Next {
    Deliver(Firer, Emitted, u32),
    /// An event of a point with no chain, for the wildcard hooks watching it.
    Watch(Emitted, Box<[Entry<Wildcard>]>),
    Report(Notification),
    Done,
}

impl Queue {
    fn new(events: Vec<Emitted>) -> Self {
        Queue {
            waiting: events.into_iter().map(|e| (e, 1)).collect(),
            delivered: 0,
            spent: false,
        }
    }

    /// The next thing to do: an event to deliver, a notification of one that is not, or
    /// nothing left. Each call takes one event from the queue, so the loop is bounded by the
    /// events emitted, and those by the bounds.
    fn next(&mut self, registry: &Registry) -> Next {
        loop {
            let Some((event, depth)) = self.waiting.pop_front() else {
                return Next::Done;
            };
            // Every event taken counts, delivered or not: the loop ends within the bound whatever
            // the hooks emit.
            self.delivered += 1;
            if self.delivered > MAX_EVENTS_PER_CALL {
                if self.spent {
                    continue;
                }
                self.spent = true;
                return Next::Report(Notification::new(
                    Level::Error,
                    format!(
                        "event `{}` emitted by {} and the events after it were not delivered: \
                         one call delivers at most {MAX_EVENTS_PER_CALL} events (do hooks emit \
                         an event for every event they hear?)",
                        event.point(),
                        emitter(&event)
                    ),
                ));
            }
            if depth > MAX_EMIT_DEPTH {
                return Next::Report(
                    Notification::new(
                        Level::Error,
                        format!(
                            "event `{}` emitted by {} was not delivered: events emitted by the \
                             hooks of emitted events nest at most {MAX_EMIT_DEPTH} deep (do two \
                             hooks emit to each other?)",
                            event.point(),
                            emitter(&event)
                        ),
                    )
                    .source_hook(event.emitter()),
                );
            }
            match registry.firer(event.point_type()) {
                Some(firer) => return Next::Deliver(firer, event, depth),
                None => {
                    let watchers = registry.unheard_watchers(event.point());
                    if !watchers.is_empty() {
                        return Next::Watch(event, watchers);
                    }
                    tracing::debug!(
                        point = event.point(),
                        "event `{}` emitted by {}: no hook is on its point, nobody hears it",
                        event.point(),
                        emitter(&event)
                    );
                }
            }
        }
    }

    /// Queues what the hooks of an event at `depth` emitted, and gives the notifications its
    /// dispatch asks for, the notice of its block first.
    fn settle(
        &mut self,
        event: &Emitted,
        depth: u32,
        outcome: &mut Outcome<()>,
    ) -> Vec<Notification> {
        for emitted in outcome.events.drain(..) {
            self.waiting.push_back((emitted, depth + 1));
        }
        let mut notes = Vec::new();
        if let Flow::Blocked(blocked) = &outcome.flow {
            notes.push(
                Notification::new(
                    Level::Info,
                    format!(
                        "event `{}` emitted by {} was blocked by hook `{}`: {}",
                        event.point(),
                        emitter(event),
                        blocked.hook,
                        blocked.reason
                    ),
                )
                .source_hook(&blocked.hook),
            );
        }
        notes.extend(notifications_of(event.point(), outcome));
        notes
    }

    /// Queues the events of a `notification` dispatch that reported on an event at `depth`;
    /// `None`, on an event that was not delivered: those are dropped, so that a `notification`
    /// hook that emits cannot keep the loop going.
    fn also(&mut self, depth: Option<u32>, outcome: &mut Outcome<Notification>) {
        for emitted in outcome.events.drain(..) {
            match depth {
                Some(depth) => self.waiting.push_back((emitted, depth + 1)),
                None => tracing::warn!(
                    point = emitted.point(),
                    "event `{}` emitted by hook `{}` while a dropped event was reported is not \
                     delivered",
                    emitted.point(),
                    emitted.emitter()
                ),
            }
        }
    }
}

/// Runs the wildcard hooks `watchers` with the event of `event`, whose point has no chain:
/// nobody else hears it, so the decision is a pass. The outcome holds their failures.
fn watch_unheard(event: &Emitted, watchers: &[Entry<Wildcard>], scope: Scope<'_>) -> Outcome<()> {
    let mut seen = DispatchEvent::new(event.point(), event.kind(), Decision::Pass, event.payload());
    seen.session_id = scope.session_id.to_owned();
    seen.turn = scope.frame.in_turn().then_some(scope.turn);
    // Delivered: taken, as an event of a point with a chain is.
    drop(event.take_value());
    let mut outcome = Outcome::passed(());
    outcome.failures = report_unheard(watchers, &seen, scope);
    outcome
}

/// Who emitted `event`, as messages name it.
fn emitter(event: &Emitted) -> String {
    match event.emitter() {
        "" => "the agent".to_owned(),
        hook => format!("hook `{hook}`"),
    }
}

/// A notification's source, set to a hook's name when there is one.
trait SourceHook {
    fn source_hook(self, hook: &str) -> Self;
}

impl SourceHook for Notification {
    fn source_hook(mut self, hook: &str) -> Self {
        if !hook.is_empty() {
            self.source = Some(hook.to_owned());
        }
        self
    }
}

/// Delivers `events` in `scope`, then what their hooks emit, as the [module docs](self) say;
/// `keep` gets the context and the warnings of every dispatch (the events' and the
/// notifications').
///
/// What a tool run calls with the events of its context (`Annotations::take().events`), as the
/// turn does with those of its point methods' dispatches.
pub(crate) fn deliver(
    registry: &Registry,
    events: Vec<Emitted>,
    scope: Scope<'_>,
    keep: &dyn Fn(&[String], &[String]),
) {
    if events.is_empty() {
        return;
    }
    let mut queue = Queue::new(events);
    let notify = registry.chain::<Notify>();
    loop {
        let (notes, depth) = match queue.next(registry) {
            Next::Done => return,
            Next::Report(n) => (vec![n], None),
            Next::Watch(event, watchers) => {
                let outcome = watch_unheard(&event, &watchers, scope);
                (notifications_of(event.point(), &outcome), None)
            }
            Next::Deliver(firer, event, depth) => {
                let mut outcome = (firer.sync)(registry, &event, scope);
                keep(&outcome.context, &outcome.warnings);
                (queue.settle(&event, depth, &mut outcome), Some(depth))
            }
        };
        for n in notes {
            let mut reported = notify.dispatch(n, scope);
            keep(&reported.context, &reported.warnings);
            queue.also(depth, &mut reported);
        }
    }
}

/// [`deliver`], awaiting async hooks.
pub(crate) async fn deliver_async(
    registry: &Registry,
    events: Vec<Emitted>,
    scope: Scope<'_>,
    keep: &(dyn Fn(&[String], &[String]) + Sync),
) {
    if events.is_empty() {
        return;
    }
    let mut queue = Queue::new(events);
    loop {
        let (notes, depth) = match queue.next(registry) {
            Next::Done => return,
            Next::Report(n) => (vec![n], None),
            Next::Watch(event, watchers) => {
                let outcome = watch_unheard(&event, &watchers, scope);
                (notifications_of(event.point(), &outcome), None)
            }
            Next::Deliver(firer, event, depth) => {
                let mut outcome = (firer.run_async)(registry, &event, scope).await;
                keep(&outcome.context, &outcome.warnings);
                (queue.settle(&event, depth, &mut outcome), Some(depth))
            }
        };
        for n in notes {
            let notify = registry.chain::<Notify>();
            let mut reported = notify.dispatch_async(n, scope).await;
            keep(&reported.context, &reported.warnings);
            queue.also(depth, &mut reported);
        }
    }
}

#[cfg(test)]
mod tests {
    use hookchain_core::points::TransformUserInput;
    use hookchain_core::{Annotations, HookContext, HookResult};

    use crate::HooksBuilder;

    /// What a tool run does with the context it gave its tool: the events the tool emitted
    /// are delivered in the turn, by the function a tool run calls.
    #[test]
    fn the_events_of_a_context_outside_any_dispatch_are_delivered_by_the_turn() {
        let hooks = HooksBuilder::new()
            .hook(TransformUserInput, 0, |text: &str, cx: &HookContext| {
                cx.warn(format!("heard {text}"));
                HookResult::<String>::Pass
            })
            .build()
            .unwrap();
        let turn = hooks.session("tool-emits").begin_turn();
        let notes = Annotations::new();
        let cx = HookContext::for_turn(&turn.inner.scope, "tool", &notes);
        cx.emit::<TransformUserInput>("from a tool".to_owned());
        turn.inner
            .deliver(notes.take().events, "Turn::call_tool_async");
        assert_eq!(turn.take_warnings(), ["heard from a tool"]);
        turn.end(hookchain_core::TurnEnd::Normal);
    }
}
