//! The state handles hooks share: [`State`], and its two roles, [`TurnState`] and
//! [`SessionState`].
//!
//! A handle is cheap to clone (an `Arc`) and never a lock guard, so a hook may hold one across an
//! `.await`. Every method takes its lock for the length of the call only — except `update`,
//! `with_ext` and `with_ext_or_default`, which hold theirs while their closure runs, so that a
//! read-modify-write is one step. Touching the same half of the state (the keys, or the typed
//! slots) from inside such a closure, on the same thread, would wait for itself forever: it
//! panics instead, with a message saying what to do (a hook that does it fails like any hook that
//! panics). The other half is free to use inside. The runtime owns the
//! stores that hand these out, one per turn and one per session, and clears them when the turn or
//! the session ends; see `HookContext::turn_state`.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Mutex, RwLock};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A key/value state: serde values under string keys, plus typed slots keyed by type.
///
/// Handles are cheap to clone and all clones see the same data.
#[derive(Clone, Default)]
pub struct State {
    inner: Arc<StateInner>,
}

#[derive(Default)]
struct StateInner {
    values: RwLock<HashMap<String, Value>>,
    exts: Mutex<HashMap<TypeId, Box<dyn Any + Send + Sync>>>,
    /// The thread running an `update` closure, while it runs (0: none).
    values_busy: AtomicU64,
    /// The thread running a `with_ext` closure, while it runs (0: none).
    exts_busy: AtomicU64,
}

/// This thread's number, never 0.
fn this_thread() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static THIS: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    THIS.with(|n| *n)
}

/// Marks a closure of `update` or `with_ext` running on this thread, until dropped.
struct Busy<'a>(&'a AtomicU64);

impl<'a> Busy<'a> {
    fn mark(flag: &'a AtomicU64) -> Self {
        flag.store(this_thread(), Ordering::Release);
        Busy(flag)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.store(0, Ordering::Release);
    }
}

/// Panics when this thread is inside a closure holding `flag`'s lock: taking it again would wait
/// forever. Another thread's closure only makes the caller wait, as any lock does.
#[inline]
fn not_from_inside(flag: &AtomicU64, what: &str, holder: &str) {
    let busy = flag.load(Ordering::Acquire);
    if busy != 0 && busy == this_thread() {
        reentered(what, holder);
    }
}

#[cold]
#[inline(never)]
fn reentered(what: &str, holder: &str) -> ! {
    panic!(
        "{what} of a state from inside its own `{holder}` would deadlock: read what you need \
         before `{holder}`, or change it after; the other half of the state (keys inside \
         `with_ext`, typed slots inside `update`) may be used inside"
    )
}

/// A state value that did not (de)serialize as the caller asked.
#[derive(Debug, thiserror::Error)]
#[error("state key `{key}`: {source}")]
pub struct StateError {
    key: String,
    #[source]
    source: serde_json::Error,
}

impl State {
    /// A new, empty state (not attached to any session).
    pub fn new() -> Self {
        State::default()
    }

    /// Sets `key` to a JSON value (`true`, `3`, `"text"`, `json!({..})`).
    pub fn set(&self, key: impl Into<String>, value: impl Into<Value>) {
        self.values_check("writing a key");
        self.inner.values.write().insert(key.into(), value.into());
    }

    /// Sets `key` to any serializable value.
    pub fn put<T: Serialize + ?Sized>(&self, key: &str, value: &T) -> Result<(), StateError> {
        let value = serde_json::to_value(value).map_err(|source| StateError {
            key: key.to_owned(),
            source,
        })?;
        self.values_check("writing a key");
        self.inner.values.write().insert(key.to_owned(), value);
        Ok(())
    }

    /// The value of `key` as `T`; `None` when it is missing or is not a `T`
    /// (see [`try_get`](State::try_get) to tell the two apart).
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.try_get(key).ok().flatten()
    }

    /// The value of `key` as `T`: `Ok(None)` when missing, `Err` when it is not a `T`.
    pub fn try_get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, StateError> {
        self.values_check("reading a key");
        let values = self.inner.values.read();
        match values.get(key) {
            None => Ok(None),
            Some(v) => T::deserialize(v).map(Some).map_err(|source| StateError {
                key: key.to_owned(),
                source,
            }),
        }
    }

    /// The raw JSON value of `key`.
    pub fn get_value(&self, key: &str) -> Option<Value> {
        self.values_check("reading a key");
        self.inner.values.read().get(key).cloned()
    }

    /// Reads `key` as `T` (or `T::default()` when missing), lets `f` change it and stores it back,
    /// all under one lock, so parallel updates never lose each other's writes.
    pub fn update<T, R>(&self, key: &str, f: impl FnOnce(&mut T) -> R) -> Result<R, StateError>
    where
        T: Serialize + DeserializeOwned + Default,
    {
        let err = |source| StateError {
            key: key.to_owned(),
            source,
        };
        self.values_check("updating a key");
        let mut values = self.inner.values.write();
        let mut current = match values.get(key) {
            Some(v) => T::deserialize(v).map_err(err)?,
            None => T::default(),
        };
        let out = {
            let _busy = Busy::mark(&self.inner.values_busy);
            f(&mut current)
        };
        let value = serde_json::to_value(&current).map_err(err)?;
        values.insert(key.to_owned(), value);
        Ok(out)
    }

    /// Removes `key`, returning its value.
    pub fn remove(&self, key: &str) -> Option<Value> {
        self.values_check("removing a key");
        self.inner.values.write().remove(key)
    }

    /// `true` when `key` is set.
    pub fn contains(&self, key: &str) -> bool {
        self.values_check("reading a key");
        self.inner.values.read().contains_key(key)
    }

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        self.values_check("reading the keys");
        let mut keys: Vec<String> = self.inner.values.read().keys().cloned().collect();
        keys.sort();
        keys
    }

    /// A copy of every key/value (typed slots are Rust-only and not included).
    pub fn snapshot(&self) -> serde_json::Map<String, Value> {
        self.values_check("reading the keys");
        self.inner
            .values
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Stores a typed value, one per type; returns the one it replaced.
    pub fn insert_ext<T: Any + Send + Sync>(&self, value: T) -> Option<T> {
        self.exts_check("writing a typed slot");
        self.inner
            .exts
            .lock()
            .insert(TypeId::of::<T>(), Box::new(value))
            .and_then(|old| old.downcast::<T>().ok().map(|b| *b))
    }

    /// Runs `f` on the typed value of type `T`, if there is one.
    pub fn with_ext<T: Any + Send + Sync, R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        self.exts_check("using a typed slot");
        let mut exts = self.inner.exts.lock();
        let value = exts
            .get_mut(&TypeId::of::<T>())
            .and_then(|b| b.downcast_mut::<T>())?;
        let _busy = Busy::mark(&self.inner.exts_busy);
        Some(f(value))
    }

    /// Runs `f` on the typed value of type `T`, inserting `T::default()` first if there is none.
    pub fn with_ext_or_default<T: Any + Send + Sync + Default, R>(
        &self,
        f: impl FnOnce(&mut T) -> R,
    ) -> R {
        self.exts_check("using a typed slot");
        let mut exts = self.inner.exts.lock();
        let slot = exts
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()));
        let _busy = Busy::mark(&self.inner.exts_busy);
        match slot.downcast_mut::<T>() {
            Some(value) => f(value),
            None => unreachable!("typed slots are keyed by their own TypeId"),
        }
    }

    /// Removes the typed value of type `T`.
    pub fn remove_ext<T: Any + Send + Sync>(&self) -> Option<T> {
        self.exts_check("removing a typed slot");
        self.inner
            .exts
            .lock()
            .remove(&TypeId::of::<T>())
            .and_then(|old| old.downcast::<T>().ok().map(|b| *b))
    }

    /// `true` when nothing is stored, neither keys nor typed values.
    pub fn is_empty(&self) -> bool {
        self.values_check("reading the keys");
        self.exts_check("reading the typed slots");
        self.inner.values.read().is_empty() && self.inner.exts.lock().is_empty()
    }

    /// Removes everything. Values are dropped outside the locks.
    pub fn clear(&self) {
        self.values_check("clearing the keys");
        self.exts_check("clearing the typed slots");
        let values = std::mem::take(&mut *self.inner.values.write());
        let exts = std::mem::take(&mut *self.inner.exts.lock());
        drop((values, exts));
    }

    /// Panics when this thread is inside this state's `update` closure.
    #[inline]
    fn values_check(&self, what: &str) {
        not_from_inside(&self.inner.values_busy, what, "update");
    }

    /// Panics when this thread is inside this state's `with_ext` closure.
    #[inline]
    fn exts_check(&self, what: &str) {
        not_from_inside(&self.inner.exts_busy, what, "with_ext");
    }

    /// `true` when both handles point at the same state.
    pub fn same_as(&self, other: &State) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never waits: printing a state from inside its own `update` shows it as locked.
        let mut out = f.debug_struct("State");
        match self.inner.values.try_read() {
            Some(values) => out.field("values", &*values),
            None => out.field("values", &format_args!("<locked>")),
        };
        match self.inner.exts.try_lock() {
            Some(exts) => out.field("typed_slots", &exts.len()),
            None => out.field("typed_slots", &format_args!("<locked>")),
        };
        out.finish()
    }
}

/// The state of one turn, cleared when the turn ends. Derefs to [`State`].
///
/// `TurnState::default()` is a state of its own, attached to no turn.
#[derive(Clone, Debug, Default)]
pub struct TurnState(State);

/// The state of a session, living until the session ends. Derefs to [`State`].
///
/// `SessionState::default()` is a state of its own, attached to no session.
#[derive(Clone, Debug, Default)]
pub struct SessionState(State);

impl Deref for TurnState {
    type Target = State;
    fn deref(&self) -> &State {
        &self.0
    }
}

impl Deref for SessionState {
    type Target = State;
    fn deref(&self) -> &State {
        &self.0
    }
}
