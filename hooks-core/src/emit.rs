//! Events: a value of a hook point that a hook, a tool or the agent emits, for the point's chain
//! to hear after the current dispatch.
//!
//! # What it owns
//!
//! [`HookContext::emit`](crate::HookContext::emit) queues an [`Emitted`] event in the dispatch's
//! [`Annotations`](crate::Annotations): the point's canonical name, its `TypeId`, the boxed value,
//! and a function (made here, where the point's type is known) that gives the value's JSON for
//! wildcard hooks. The runtime takes the queue when the dispatch returns and delivers each event
//! to its point's chain; this crate cannot run a chain (the runtime depends on it, not the other
//! way round), so an event says which point it is for and the runtime finds the code that
//! dispatches that point by its `TypeId`.
//!
//! # The rules it keeps
//!
//! - Emitting never runs a hook: it only queues. Nothing is allocated until a hook emits (the
//!   queue lives with the other annotations, made on first use).
//! - An event is delivered once. Cloning an `Emitted` (as cloning the annotations it is in does)
//!   shares its value: whichever clone is delivered first takes it, and the others are empty.
//! - What the emitter gets back is nothing: an event is a broadcast, and what the point's hooks
//!   decide about it (a rewrite, a block) is theirs, not the emitter's.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;

use crate::point::{HookPoint, PointKind};

/// The value of an event, boxed, until it is delivered.
type Boxed = Box<dyn Any + Send + Sync>;

/// An event of point `P` emitted by a hook, a tool or the agent, waiting to be delivered to
/// `P`'s chain. The runtime makes and delivers them; hooks emit with
/// [`HookContext::emit`](crate::HookContext::emit).
#[derive(Clone)]
pub struct Emitted {
    point: &'static str,
    point_type: TypeId,
    kind: PointKind,
    /// Who emitted it: the hook's name (`""` for the agent or a context made by hand).
    emitter: Arc<str>,
    value: Arc<Mutex<Option<Boxed>>>,
    json: fn(&(dyn Any + Send + Sync)) -> Value,
}

impl Emitted {
    /// An event of `P` carrying `value`, emitted by `emitter` (a hook's name, or `""`).
    pub fn new<P: HookPoint>(value: P::Value, emitter: impl Into<Arc<str>>) -> Self {
        Emitted {
            point: P::NAME,
            point_type: TypeId::of::<P>(),
            kind: P::KIND,
            emitter: emitter.into(),
            value: Arc::new(Mutex::new(Some(Box::new(value)))),
            json: payload_of::<P>,
        }
    }

    /// The canonical name of the event's point.
    pub fn point(&self) -> &'static str {
        self.point
    }

    /// The `TypeId` of the event's point type.
    pub fn point_type(&self) -> TypeId {
        self.point_type
    }

    /// The kind of the event's point.
    pub fn kind(&self) -> PointKind {
        self.kind
    }

    /// The hook that emitted it (`""` when the agent did).
    pub fn emitter(&self) -> &str {
        &self.emitter
    }

    /// The value as JSON ([`HookPoint::payload_json`]), `Null` once it was delivered.
    pub fn payload(&self) -> Value {
        match &*self.value.lock() {
            Some(value) => (self.json)(value.as_ref()),
            None => Value::Null,
        }
    }

    /// Takes the value out to deliver it: `Some` the first time, of the point's `Value` type.
    pub fn take_value(&self) -> Option<Box<dyn Any + Send + Sync>> {
        self.value.lock().take()
    }

    /// Takes the value as `P`'s, when this event is of point `P` and was not delivered yet.
    pub fn take<P: HookPoint>(&self) -> Option<P::Value> {
        if self.point_type != TypeId::of::<P>() {
            return None;
        }
        let value = self.take_value()?;
        value.downcast::<P::Value>().ok().map(|value| *value)
    }
}

/// The JSON of a value of `P` behind `Any`.
fn payload_of<P: HookPoint>(value: &(dyn Any + Send + Sync)) -> Value {
    value
        .downcast_ref::<P::Value>()
        .map_or(Value::Null, P::payload_json)
}

impl fmt::Debug for Emitted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Emitted")
            .field("point", &self.point)
            .field("emitter", &self.emitter)
            .field("delivered", &self.value.lock().is_none())
            .finish_non_exhaustive()
    }
}

impl PartialEq for Emitted {
    /// The same event: one emission, shared by its clones.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.value, &other.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::points::{Notify, TransformUserInput};
    use crate::{Level, Notification};

    #[test]
    fn an_event_is_delivered_once_whichever_clone_takes_it() {
        let event = Emitted::new::<TransformUserInput>("hi".to_owned(), "a-hook");
        let clone = event.clone();
        assert_eq!(event.payload(), Value::String("hi".into()));
        assert_eq!(clone.take::<TransformUserInput>().as_deref(), Some("hi"));
        assert_eq!(event.take::<TransformUserInput>(), None);
        assert_eq!(event.payload(), Value::Null);
        assert_eq!(event, clone);
    }

    #[test]
    fn an_event_is_not_taken_as_another_point() {
        let event = Emitted::new::<Notify>(Notification::new(Level::Info, "x"), "");
        assert_eq!(event.take::<TransformUserInput>(), None);
        assert_eq!(event.point(), "notification");
        assert!(event.take::<Notify>().is_some());
    }
}
