//! Per-turn and per-session state shared between hooks.
//!
//! # What it owns
//!
//! One process-wide store maps a session id to two [`State`]s: the session's, which lives until
//! the session ends, and the current turn's, which is replaced by a fresh one when a turn begins
//! and cleared when it ends. [`get_turn_state`] and [`get_session_state`] hand out cheap handles
//! (an `Arc` clone), never lock guards, so a hook may hold one across an `.await`.
//!
//! # The rules it keeps
//!
//! - A turn's state is cleared when the turn ends, on every exit path: [`Turn::end`], an early
//!   return or `?` that drops the [`Turn`], and a panic that unwinds through it. After the clear,
//!   `get_turn_state` for the session returns an empty state. Clearing empties the old handle
//!   too, so a hook that kept one sees nothing of the ended turn.
//! - Sessions are isolated: each has its own states, and no lock is shared between the values of
//!   two sessions.
//! - One session's parallel tool calls may read and write its state from several threads at once;
//!   [`State::update`] is a read-modify-write under one lock.
//! - Memory is bounded: an ended session frees its state, and a session nobody touched for the
//!   idle timeout (default one hour, [`set_idle_timeout`]) is evicted with a warning.
//!
//! [`Turn`]: crate::Turn
//! [`Turn::end`]: crate::Turn::end

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

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
        self.inner.values.write().insert(key.into(), value.into());
    }

    /// Sets `key` to any serializable value.
    pub fn put<T: Serialize + ?Sized>(&self, key: &str, value: &T) -> Result<(), StateError> {
        let value = serde_json::to_value(value).map_err(|source| StateError {
            key: key.to_owned(),
            source,
        })?;
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
        let mut values = self.inner.values.write();
        let mut current = match values.get(key) {
            Some(v) => T::deserialize(v).map_err(err)?,
            None => T::default(),
        };
        let out = f(&mut current);
        let value = serde_json::to_value(&current).map_err(err)?;
        values.insert(key.to_owned(), value);
        Ok(out)
    }

    /// Removes `key`, returning its value.
    pub fn remove(&self, key: &str) -> Option<Value> {
        self.inner.values.write().remove(key)
    }

    /// `true` when `key` is set.
    pub fn contains(&self, key: &str) -> bool {
        self.inner.values.read().contains_key(key)
    }

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.inner.values.read().keys().cloned().collect();
        keys.sort();
        keys
    }

    /// A copy of every key/value (typed slots are Rust-only and not included).
    pub fn snapshot(&self) -> serde_json::Map<String, Value> {
        self.inner
            .values
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Stores a typed value, one per type; returns the one it replaced.
    pub fn insert_ext<T: Any + Send + Sync>(&self, value: T) -> Option<T> {
        self.inner
            .exts
            .lock()
            .insert(TypeId::of::<T>(), Box::new(value))
            .and_then(|old| old.downcast::<T>().ok().map(|b| *b))
    }

    /// Runs `f` on the typed value of type `T`, if there is one.
    pub fn with_ext<T: Any + Send + Sync, R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        let mut exts = self.inner.exts.lock();
        exts.get_mut(&TypeId::of::<T>())
            .and_then(|b| b.downcast_mut::<T>())
            .map(f)
    }

    /// Runs `f` on the typed value of type `T`, inserting `T::default()` first if there is none.
    pub fn with_ext_or_default<T: Any + Send + Sync + Default, R>(
        &self,
        f: impl FnOnce(&mut T) -> R,
    ) -> R {
        let mut exts = self.inner.exts.lock();
        let slot = exts
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()));
        match slot.downcast_mut::<T>() {
            Some(value) => f(value),
            None => unreachable!("typed slots are keyed by their own TypeId"),
        }
    }

    /// Removes the typed value of type `T`.
    pub fn remove_ext<T: Any + Send + Sync>(&self) -> Option<T> {
        self.inner
            .exts
            .lock()
            .remove(&TypeId::of::<T>())
            .and_then(|old| old.downcast::<T>().ok().map(|b| *b))
    }

    /// `true` when nothing is stored, neither keys nor typed values.
    pub fn is_empty(&self) -> bool {
        self.inner.values.read().is_empty() && self.inner.exts.lock().is_empty()
    }

    /// Removes everything. Values are dropped outside the locks.
    pub fn clear(&self) {
        let values = std::mem::take(&mut *self.inner.values.write());
        let exts = std::mem::take(&mut *self.inner.exts.lock());
        drop((values, exts));
    }

    /// `true` when both handles point at the same state.
    pub fn same_as(&self, other: &State) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("values", &*self.inner.values.read())
            .field("typed_slots", &self.inner.exts.lock().len())
            .finish()
    }
}

/// The state of the current turn of a session. Derefs to [`State`].
#[derive(Clone, Debug, Default)]
pub struct TurnState(State);

/// The state of a session, living until the session ends. Derefs to [`State`].
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

/// The state of the current turn of `session_id`.
///
/// Inside a turn begun with [`Session::begin_turn`](crate::Session::begin_turn) this is that
/// turn's state; it is empty again once the turn ends. Outside any turn it is a state that lives
/// until a turn begins or the session ends.
///
/// ```
/// use hookchain::TurnEnd;
/// use hookchain::{Hooks, get_turn_state};
///
/// let session = Hooks::global().session("state-doc");
/// let turn = session.begin_turn();
/// get_turn_state("state-doc").set("plan_ok", true);
/// assert_eq!(get_turn_state("state-doc").get::<bool>("plan_ok"), Some(true));
/// turn.end(TurnEnd::Normal);
/// assert!(get_turn_state("state-doc").is_empty());
/// ```
pub fn get_turn_state(session_id: &str) -> TurnState {
    STORE.with_slot(session_id, |slot| slot.turn.clone())
}

/// The state of `session_id`, living until the session ends.
pub fn get_session_state(session_id: &str) -> SessionState {
    STORE.with_slot(session_id, |slot| slot.session.clone())
}

/// Sets how long a session nobody touches keeps its state before it is evicted (default: one
/// hour). Eviction is checked when new sessions appear.
pub fn set_idle_timeout(timeout: Duration) {
    STORE.idle_timeout_ms.store(
        timeout.as_millis().min(u64::MAX as u128) as u64,
        Ordering::Relaxed,
    );
}

/// The number of sessions holding state in the store.
pub fn live_sessions() -> usize {
    STORE.sessions.read().len()
}

pub(crate) static STORE: LazyLock<Store> = LazyLock::new(Store::new);

pub(crate) struct Store {
    sessions: RwLock<HashMap<Arc<str>, Slot>>,
    epoch: Instant,
    idle_timeout_ms: AtomicU64,
    created: AtomicU64,
}

struct Slot {
    turn: TurnState,
    session: SessionState,
    /// Which turn owns `turn`: 0 for none, else the turn's token.
    turn_token: u64,
    last_used_ms: AtomicU64,
}

impl Slot {
    fn new(now: u64) -> Self {
        Slot {
            turn: TurnState::default(),
            session: SessionState::default(),
            turn_token: 0,
            last_used_ms: AtomicU64::new(now),
        }
    }
}

static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

impl Store {
    fn new() -> Self {
        Store {
            sessions: RwLock::new(HashMap::new()),
            epoch: Instant::now(),
            idle_timeout_ms: AtomicU64::new(60 * 60 * 1000),
            created: AtomicU64::new(0),
        }
    }

    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn with_slot<R>(&self, session_id: &str, f: impl FnOnce(&Slot) -> R) -> R {
        let now = self.now_ms();
        {
            let sessions = self.sessions.read();
            if let Some(slot) = sessions.get(session_id) {
                slot.last_used_ms.store(now, Ordering::Relaxed);
                return f(slot);
            }
        }
        self.evict_idle_sometimes(now);
        let mut sessions = self.sessions.write();
        let slot = sessions
            .entry(Arc::from(session_id))
            .or_insert_with(|| Slot::new(now));
        f(slot)
    }

    /// Gives `session_id` a fresh turn state owned by a new token; returns the token.
    pub(crate) fn begin_turn(&self, session_id: &str) -> (u64, TurnState) {
        let now = self.now_ms();
        let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        let fresh = TurnState::default();
        let old = {
            let mut sessions = self.sessions.write();
            let slot = sessions
                .entry(Arc::from(session_id))
                .or_insert_with(|| Slot::new(now));
            slot.last_used_ms.store(now, Ordering::Relaxed);
            slot.turn_token = token;
            std::mem::replace(&mut slot.turn, fresh.clone())
        };
        // State written outside any turn does not leak into the new one.
        old.clear();
        (token, fresh)
    }

    /// Ends the turn owned by `token`: its state is cleared and, if it is still the session's
    /// current turn, replaced by an empty one.
    pub(crate) fn end_turn(&self, session_id: &str, token: u64, state: &TurnState) {
        {
            let mut sessions = self.sessions.write();
            if let Some(slot) = sessions.get_mut(session_id)
                && slot.turn_token == token
            {
                slot.turn_token = 0;
                slot.turn = TurnState::default();
            }
        }
        state.clear();
    }

    /// Frees everything `session_id` holds.
    pub(crate) fn end_session(&self, session_id: &str) {
        let slot = self.sessions.write().remove(session_id);
        if let Some(slot) = slot {
            slot.turn.clear();
            slot.session.clear();
        }
    }

    fn evict_idle_sometimes(&self, now: u64) {
        // Every 64th new session pays for a sweep, so the store stays bounded without a thread.
        if self.created.fetch_add(1, Ordering::Relaxed) % 64 != 63 {
            return;
        }
        self.evict_idle(now);
    }

    pub(crate) fn evict_idle(&self, now: u64) {
        let limit = self.idle_timeout_ms.load(Ordering::Relaxed);
        let mut evicted = Vec::new();
        self.sessions.write().retain(|id, slot| {
            let idle = now.saturating_sub(slot.last_used_ms.load(Ordering::Relaxed));
            let keep = idle < limit;
            if !keep {
                evicted.push(id.clone());
            }
            keep
        });
        for id in evicted {
            tracing::warn!(
                session_id = &*id,
                "session state evicted after {} ms idle: end sessions with Session::end to free them",
                limit
            );
        }
    }
}

/// Evicts every session idle for longer than the idle timeout, now.
pub fn evict_idle_sessions() {
    STORE.evict_idle(STORE.now_ms());
}
