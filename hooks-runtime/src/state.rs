//! Per-turn and per-session state shared between hooks.
//!
//! # What it owns
//!
//! Every registry ([`Hooks`]) owns one store, which maps the id of each live session of that
//! registry to its state: the session's [`SessionState`], which lives until the session ends;
//! one [`TurnState`] per live turn, made when the turn begins and cleared when it ends; and a
//! turn state for work outside any turn, cleared when a turn begins. Two registries never share
//! a store, so two sessions with the same id in two registries never share state.
//!
//! A hook reaches the state of the dispatch it runs in through its context:
//! `cx.turn_state()` and `cx.session_state()` borrow the handles the [`Turn`] and the
//! [`Session`] hold, with no lookup at all. [`get_turn_state`] and [`get_session_state`] are for
//! code that has only a session id; they look the id up, as [`get_turn_state`] describes.
//!
//! # The rules it keeps
//!
//! - A turn's state is cleared when the turn ends, on every exit path: [`Turn::end`] or
//!   [`Turn::end_async`], an early return or `?` that drops the last clone of the [`Turn`], and
//!   a panic that unwinds through it. Clearing empties every handle of it, so a hook that kept
//!   one sees nothing of the ended turn.
//! - Turns are isolated: two turns of one session that run at once (two runs of the agent) each
//!   have their own state, and ending one leaves the other's alone.
//! - Sessions are isolated: each has its own states, and no lock is shared between the values of
//!   two sessions.
//! - Lookups by id of different sessions from different threads share no lock and write no
//!   shared memory: a store's sessions are split over 32 locks by id (each on a cache
//!   line of its own), and each thread keeps its own list of the live stores, checked against a
//!   process-wide generation (one load) and rebuilt only when a registry was built or dropped.
//! - One session's parallel tool calls may read and write its state from several threads at once;
//!   [`State::update`](hookchain_core::State::update) is a read-modify-write under one lock.
//! - Memory is bounded: an ended session frees its state, and a lookup by an id no live session
//!   has ([`get_turn_state`], [`get_session_state`]) stores nothing: it hands back a fresh state
//!   attached to no session, and warns. So 50,000 lookups of unknown ids cost 50,000 short-lived
//!   handles, not 50,000 slots. Only a session whose handles all leaked (`mem::forget`) outlives
//!   its use; [`evict_idle_sessions`] frees such a session once nobody touched it for the idle
//!   timeout (default one hour, [`set_idle_timeout`]). A session with a live [`Session`] or
//!   [`Turn`] handle is never evicted, however idle — a `Turn` keeps its session alive even when
//!   every `Session` handle is gone.
//!
//! [`Hooks`]: crate::Hooks
//! [`Turn`]: crate::Turn
//! [`Turn::end`]: crate::Turn::end
//! [`Turn::end_async`]: crate::Turn::end_async
//! [`Session`]: crate::Session

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

pub use hookchain_core::{SessionState, State, StateError, TurnState};

/// The state of the current turn of `session_id`: the latest turn of that session begun and not
/// yet ended, or, when none is, the session's state for work outside any turn (cleared when the
/// next turn begins).
///
/// Inside a hook, prefer `cx.turn_state()`: it is the state of the very turn the hook runs in,
/// with no lookup.
///
/// # Which session
///
/// Each registry keeps its own sessions, so the id is looked up in this order:
///
/// 1. Called from a hook (on the thread of a dispatch, sync or async) of a registry that has a
///    session `session_id`: that registry's session. When the hook's own turn belongs to that
///    session, the result is the hook's own turn, as `cx.turn_state()` — even while a newer turn
///    of the session runs at the same time.
/// 2. Otherwise, among the live sessions of every registry (the global one and those built with
///    [`HooksBuilder`](crate::HooksBuilder)), the one named `session_id` that started last.
/// 3. No live session has that id: a fresh, empty state attached to no session, and a
///    `tracing` warning (at most one every ten seconds, counting the lookups in between). Nothing
///    is stored for the id: what is written to that state is seen only through that handle and
///    its clones, and the next lookup of the id gets another fresh state.
///
/// Why a detached state rather than one kept for the id: state only means something as part
/// of a session or a turn, and no session will ever see it — a session that starts later under
/// the id starts empty. Keeping it would only make a mistyped id or a lookup after
/// `Session::end` look as if it worked, and cost memory for every id ever looked up. A hook
/// never meets this case: its own session is live while it runs (use `cx.turn_state()`).
///
/// ```
/// use hookchain::TurnEnd;
/// use hookchain::{Hooks, get_turn_state};
///
/// let session = Hooks::global().session("state-doc");
/// let turn = session.begin_turn();
/// get_turn_state("state-doc").set("plan_ok", true);
/// assert_eq!(turn.state().get::<bool>("plan_ok"), Some(true));
/// turn.end(TurnEnd::Normal);
/// assert!(get_turn_state("state-doc").is_empty());
/// ```
pub fn get_turn_state(session_id: &str) -> TurnState {
    match find(session_id) {
        Some((slot, frame)) => slot.turn_state(frame),
        None => {
            detached(session_id, "get_turn_state");
            TurnState::default()
        }
    }
}

/// The state of `session_id`, living until the session ends. The session is found as
/// [`get_turn_state`] finds it; inside a hook, prefer `cx.session_state()`. For an id no live
/// session has, a fresh state attached to no session, with a warning, as [`get_turn_state`]
/// says: nothing written to it is kept for the id.
pub fn get_session_state(session_id: &str) -> SessionState {
    match find(session_id) {
        Some((slot, _)) => slot.state.clone(),
        None => {
            detached(session_id, "get_session_state");
            SessionState::default()
        }
    }
}

/// Warns that a lookup found no live session: at most once every [`DETACHED_WARN_EVERY_MS`],
/// with the number of such lookups since the last warning. Keeps nothing per id.
#[cold]
fn detached(session_id: &str, via: &str) {
    let missed = DETACHED.fetch_add(1, Ordering::Relaxed) + 1;
    let now = now_ms();
    let last = DETACHED_WARNED_MS.load(Ordering::Relaxed);
    let due = last == 0 || now.saturating_sub(last) >= DETACHED_WARN_EVERY_MS;
    if due
        && DETACHED_WARNED_MS
            .compare_exchange(last, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        let since = missed - DETACHED_AT_WARNING.swap(missed, Ordering::Relaxed);
        tracing::warn!(
            session_id,
            "{via}(\"{session_id}\"): no live session has this id, so the state returned \
             belongs to no session and nothing written to it is kept ({since} such lookup(s) \
             since the last warning); look the id up while its Session or Turn is alive, or use \
             cx.turn_state() in a hook"
        );
    }
}

/// Sets how long the state of a session nobody holds any more — every `Session` and `Turn`
/// handle of it leaked, never dropped — is kept once nobody touches it (default: one hour).
/// Eviction is checked when new sessions appear, and by [`evict_idle_sessions`].
pub fn set_idle_timeout(timeout: Duration) {
    IDLE_TIMEOUT_MS.store(
        timeout.as_millis().min(u64::MAX as u128) as u64,
        Ordering::Relaxed,
    );
}

/// The number of sessions holding state, in every registry. A lookup of an id no live session
/// has adds none.
pub fn live_sessions() -> usize {
    stores().iter().map(|store| store.len()).sum::<usize>()
}

/// Evicts, now, the state of the sessions that no `Session` or `Turn` handle holds and nobody
/// touched for the idle timeout. A session with a live handle is never evicted.
pub fn evict_idle_sessions() {
    let now = now_ms();
    for store in stores() {
        store.evict_idle(now);
    }
}

static IDLE_TIMEOUT_MS: AtomicU64 = AtomicU64::new(60 * 60 * 1000);
static NEXT_STORE: AtomicU64 = AtomicU64::new(1);
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);
static NEXT_START: AtomicU64 = AtomicU64::new(1);
static CREATED: AtomicU64 = AtomicU64::new(0);
static EPOCH: LazyLock<Instant> = LazyLock::new(Instant::now);

/// How often, at most, a lookup of an id no live session has is logged.
const DETACHED_WARN_EVERY_MS: u64 = 10_000;
/// Lookups of ids no live session has, since the process started.
static DETACHED: AtomicU64 = AtomicU64::new(0);
/// The value of [`DETACHED`] at the last warning.
static DETACHED_AT_WARNING: AtomicU64 = AtomicU64::new(0);
/// When the last warning was logged (0: never).
static DETACHED_WARNED_MS: AtomicU64 = AtomicU64::new(0);

/// Every registry's store, for the lookups by id.
static STORES: LazyLock<RwLock<Vec<Weak<Store>>>> = LazyLock::new(RwLock::default);

/// Bumped whenever a store is made or its registry dropped: a thread's list of the live stores
/// ([`LOCAL_STORES`]) is good while the generation it was made in is the current one.
static GENERATION: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's list of the live stores and the generation it was made in, so that a lookup
    /// by id takes no shared lock and bumps no shared count.
    static LOCAL_STORES: RefCell<(u64, Vec<Arc<Store>>)> = const { RefCell::new((0, Vec::new())) };
}

/// Calls `f` with the live stores, from this thread's list (made again when the generation
/// moved on).
#[inline]
fn with_stores<R>(f: impl FnOnce(&[Arc<Store>]) -> R) -> R {
    let generation = GENERATION.load(Ordering::Acquire);
    LOCAL_STORES.with(|local| {
        // A lookup from inside `f` (a `Drop` that looks an id up) finds the list borrowed: it
        // gets a list of its own.
        let Ok(mut local) = local.try_borrow_mut() else {
            return f(&stores());
        };
        if local.0 != generation {
            *local = (generation, stores());
        }
        f(&local.1)
    })
}

/// Which of a store's [`SHARDS`] holds `session_id` (FNV-1a).
fn shard_of(session_id: &str) -> usize {
    let hash = session_id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash % SHARDS as u64) as usize
}

/// How many locks a store's sessions are split over.
const SHARDS: usize = 32;

/// One lock of a store's sessions, on a cache line of its own.
#[repr(align(64))]
#[derive(Default)]
struct Shard(RwLock<HashMap<Arc<str>, Arc<Slot>>>);

fn now_ms() -> u64 {
    EPOCH.elapsed().as_millis() as u64
}

/// The live stores.
fn stores() -> Vec<Arc<Store>> {
    STORES.read().iter().filter_map(Weak::upgrade).collect()
}

/// The slot `get_turn_state` means by `session_id` (see there); with it, when the dispatch
/// running on this thread belongs to that very session, the token of its turn (0 outside any
/// turn). `None` when no live session has the id.
fn find(session_id: &str) -> Option<(Arc<Slot>, Option<u64>)> {
    let frame = FRAME.get();
    let shard = shard_of(session_id);
    with_stores(|stores| {
        let mut latest: Option<Arc<Slot>> = None;
        for store in stores {
            let Some(slot) = store.get(session_id, shard) else {
                continue;
            };
            if frame.store == store.id {
                let own = frame.own(&slot);
                return Some((slot, own));
            }
            if latest.as_ref().is_none_or(|l| slot.started > l.started) {
                latest = Some(slot);
            }
        }
        latest.map(|slot| (slot, None))
    })
}

/// The store of one registry: the state of its live sessions, by id.
pub(crate) struct Store {
    /// Never 0 (0 is "no store" in a [`Frame`]).
    id: u64,
    /// The sessions, by id, split over [`SHARDS`] locks ([`shard_of`]).
    sessions: Box<[Shard]>,
}

/// The state of one session.
pub(crate) struct Slot {
    /// The session's state.
    pub(crate) state: SessionState,
    /// The turn state outside any turn, cleared when a turn begins.
    pub(crate) outside: TurnState,
    /// The live turns, in the order they began: (token, state).
    turns: Mutex<Vec<(u64, TurnState)>>,
    last_used_ms: AtomicU64,
    /// When the session started, in the process-wide order of session starts.
    started: u64,
}

impl Slot {
    fn new() -> Self {
        Slot {
            state: SessionState::default(),
            outside: TurnState::default(),
            turns: Mutex::new(Vec::new()),
            last_used_ms: AtomicU64::new(now_ms()),
            started: NEXT_START.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The session's key in a [`Frame`].
    pub(crate) fn key(&self) -> u64 {
        self.started
    }

    /// For a dispatch of this session, the state of its own turn `token` (the state outside any
    /// turn for 0); for anyone else, the latest live turn's, else the state outside any turn.
    fn turn_state(&self, own: Option<u64>) -> TurnState {
        self.last_used_ms.store(now_ms(), Ordering::Relaxed);
        if own == Some(0) {
            return self.outside.clone();
        }
        let turns = self.turns.lock();
        own.and_then(|token| turns.iter().find(|(t, _)| *t == token))
            .or_else(|| turns.last())
            .map_or_else(|| self.outside.clone(), |(_, state)| state.clone())
    }

    /// Frees everything: the session's state, every live turn's, and the state outside a turn.
    fn clear(&self) {
        let turns = std::mem::take(&mut *self.turns.lock());
        for (_, state) in turns {
            state.clear();
        }
        self.outside.clear();
        self.state.clear();
    }
}

impl Store {
    /// A new store, known to the lookups by id for as long as it lives.
    pub(crate) fn new() -> Arc<Store> {
        let store = Arc::new(Store {
            id: NEXT_STORE.fetch_add(1, Ordering::Relaxed),
            sessions: (0..SHARDS).map(|_| Shard::default()).collect(),
        });
        let mut all = STORES.write();
        all.retain(|s| s.strong_count() > 0);
        all.push(Arc::downgrade(&store));
        GENERATION.fetch_add(1, Ordering::Release);
        store
    }

    /// Its registry is dropped: the threads' lists of live stores are made again at their next
    /// lookup, which lets the store go.
    pub(crate) fn retire(&self) {
        STORES
            .write()
            .retain(|s| s.strong_count() > 0 && !std::ptr::eq(s.as_ptr(), self));
        GENERATION.fetch_add(1, Ordering::Release);
    }

    /// The number of sessions holding state.
    fn len(&self) -> usize {
        self.sessions.iter().map(|shard| shard.0.read().len()).sum()
    }

    /// The store's id, for the [`Frame`] of its dispatches.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    #[inline]
    fn get(&self, session_id: &str, shard: usize) -> Option<Arc<Slot>> {
        let slot = self.sessions[shard].0.read().get(session_id).cloned()?;
        slot.last_used_ms.store(now_ms(), Ordering::Relaxed);
        Some(slot)
    }

    /// A new session under `session_id`, with empty state. It replaces, for the lookups by id,
    /// a live session of the same id (which keeps its own state until it ends).
    pub(crate) fn open(&self, session_id: &Arc<str>) -> Arc<Slot> {
        evict_idle_sometimes();
        let slot = Arc::new(Slot::new());
        self.sessions[shard_of(session_id)]
            .0
            .write()
            .insert(session_id.clone(), slot.clone());
        slot
    }

    /// Ends the session of `slot`: frees its state and forgets it.
    pub(crate) fn close(&self, session_id: &str, slot: &Arc<Slot>) {
        {
            let mut sessions = self.sessions[shard_of(session_id)].0.write();
            if sessions
                .get(session_id)
                .is_some_and(|s| Arc::ptr_eq(s, slot))
            {
                sessions.remove(session_id);
            }
        }
        slot.clear();
    }

    /// Begins a turn of the session of `slot`: a fresh state, owned by a new token.
    pub(crate) fn begin_turn(slot: &Slot) -> (u64, TurnState) {
        let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        let state = TurnState::default();
        slot.last_used_ms.store(now_ms(), Ordering::Relaxed);
        slot.turns.lock().push((token, state.clone()));
        // State written outside any turn does not leak into the new one.
        slot.outside.clear();
        (token, state)
    }

    /// Ends the turn `token` of the session of `slot`: forgets it and clears its state.
    pub(crate) fn end_turn(slot: &Slot, token: u64, state: &TurnState) {
        slot.turns.lock().retain(|(t, _)| *t != token);
        state.clear();
    }

    fn evict_idle(&self, now: u64) {
        let limit = IDLE_TIMEOUT_MS.load(Ordering::Relaxed);
        let mut evicted = Vec::new();
        for shard in &self.sessions {
            shard.0.write().retain(|id, slot| {
                let idle = now.saturating_sub(slot.last_used_ms.load(Ordering::Relaxed));
                // Only the store holds it: no `Session` handle is alive, and no `Turn` (which
                // holds a `Session`).
                let keep = idle < limit || Arc::strong_count(slot) > 1;
                if !keep {
                    evicted.push((id.clone(), slot.clone()));
                }
                keep
            });
        }
        for (id, slot) in evicted {
            slot.clear();
            tracing::warn!(
                session_id = &*id,
                "session state evicted after {} ms idle: end sessions with Session::end to free them",
                limit
            );
        }
    }
}

fn evict_idle_sometimes() {
    // Every 64th new session pays for a sweep, so memory stays bounded without a thread.
    if CREATED.fetch_add(1, Ordering::Relaxed) % 64 == 63 {
        evict_idle_sessions();
    }
}

/// The dispatch running on this thread: the store of its registry, and who it runs for — its
/// turn's token, or its session's key outside any turn. [`get_turn_state`] reads it to find the
/// session and the turn a hook belongs to. Two words, so that a dispatch saves, writes and puts
/// back the thread's frame with one move each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) store: u64,
    /// `token << 1 | 1` for a turn (tokens are unique in the process), `key << 1` for a session
    /// outside any turn (keys too), 0 for a dispatch outside any session.
    who: u64,
}

impl Frame {
    pub(crate) const NONE: Frame = Frame { store: 0, who: 0 };

    /// A dispatch of registry `store` outside any session.
    pub(crate) fn registry(store: u64) -> Frame {
        Frame { store, who: 0 }
    }

    /// A dispatch of the session whose key is `key` ([`Slot::key`]), outside any turn.
    pub(crate) fn session(store: u64, key: u64) -> Frame {
        Frame {
            store,
            who: key << 1,
        }
    }

    /// A dispatch of the turn whose token is `token`, in the same store.
    pub(crate) fn turn(self, token: u64) -> Frame {
        Frame {
            store: self.store,
            who: token << 1 | 1,
        }
    }

    /// `true` for a dispatch of a turn.
    pub(crate) fn in_turn(self) -> bool {
        self.who & 1 == 1
    }

    /// For a lookup of `slot`'s session in this frame's store: the token of the frame's turn (the
    /// slot's state finds it among its own turns, or falls back to its latest), 0 when the frame
    /// is this very session outside any turn, `None` otherwise.
    fn own(self, slot: &Slot) -> Option<u64> {
        if self.in_turn() {
            Some(self.who >> 1)
        } else {
            (self.who != 0 && self.who >> 1 == slot.started).then_some(0)
        }
    }
}

thread_local! {
    static FRAME: Cell<Frame> = const { Cell::new(Frame::NONE) };
}

/// Marks this thread as running a dispatch in `frame` until the guard drops.
#[inline]
pub(crate) fn enter(frame: Frame) -> FrameGuard {
    FrameGuard(FRAME.replace(frame))
}

/// Puts back the frame that was current before [`enter`].
pub(crate) struct FrameGuard(Frame);

impl Drop for FrameGuard {
    #[inline]
    fn drop(&mut self) {
        FRAME.set(self.0);
    }
}
