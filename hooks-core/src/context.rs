//! [`HookContext`]: what a hook knows about the dispatch it runs in, and how it talks to the
//! hooks after it and to the agent.
//!
//! One context lives for one dispatch of one chain. It names the session, the turn, the point and
//! the hook currently running, and the [`Extension`] that hook belongs to (whose config the hook
//! reads with [`HookContext::config`]); it hands out the state of the turn and of the session the
//! dispatch belongs to ([`HookContext::turn_state`], [`HookContext::session_state`]); and it
//! carries the dispatch's [`Annotations`]: metadata
//! that later hooks read, agent-facing context, user-facing warnings and notifications for the
//! runtime to fire. Annotations are kept in chain order and returned to the agent with the
//! outcome. Nothing is allocated until a hook
//! annotates or reads its config for the first time, and annotations nobody made cost nothing to
//! drop.
//!
//! The runtime builds one context per dispatch and, per hook, only points it at the running
//! hook's name and extension ([`RunningHook`], kept in the chain): one pointer written per hook.

use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::ConfigError;
use crate::emit::Emitted;
use crate::extension::Extension;
use crate::point::HookPoint;
use crate::points::Notification;
use crate::state::{SessionState, TurnState};

/// Key/values a hook attaches for the hooks after it in the same dispatch.
pub type Metadata = serde_json::Map<String, Value>;

/// What the hooks of one dispatch attached: metadata, context for the model, warnings for the
/// user, notifications to fire. The runtime creates one per dispatch; tests of a single hook can create their own.
///
/// Nothing is allocated, and nothing needs dropping, until a hook attaches something: the lists
/// live behind one box made on the first annotation.
#[derive(Debug, Default)]
pub struct Annotations {
    inner: Mutex<Option<Box<Attached>>>,
}

/// The states of a context made by hand that was given none ([`HookContext::with_state`]).
static DETACHED: LazyLock<(TurnState, SessionState)> = LazyLock::new(Default::default);

/// What the hooks of a dispatch attached: the plain data of [`Annotations`], taken out when the
/// dispatch ends ([`Annotations::take`]), and what a test of a single hook reads.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Attached {
    /// Metadata, by key; a later hook's value replaces an earlier one's.
    pub metadata: Metadata,
    /// Agent-facing context, in chain order.
    pub context: Vec<String>,
    /// User-facing warnings, in chain order.
    pub warnings: Vec<String>,
    /// Notifications for the runtime to fire through `notification` once the dispatch is over,
    /// in chain order.
    pub notifications: Vec<Notification>,
    /// Events hooks emitted ([`HookContext::emit`]), in chain order, for the runtime to deliver
    /// once the dispatch is over.
    pub events: Vec<Emitted>,
}

impl Annotations {
    /// Empty annotations.
    #[inline]
    pub const fn new() -> Self {
        Annotations {
            inner: Mutex::new(None),
        }
    }

    /// Takes everything attached so far, leaving the annotations empty.
    pub fn take(&self) -> Attached {
        self.inner.lock().take().map(|b| *b).unwrap_or_default()
    }

    /// Everything attached, consuming the annotations.
    pub fn into_inner(self) -> Attached {
        self.inner.into_inner().map(|b| *b).unwrap_or_default()
    }

    /// Everything attached, consuming the annotations; `None` when no hook ever attached
    /// anything (then nothing was allocated).
    #[inline]
    pub fn into_attached(self) -> Option<Attached> {
        self.inner.into_inner().map(|b| *b)
    }

    /// `true` when no hook ever attached anything (nothing was allocated); no lock is taken.
    #[inline]
    pub fn is_untouched(&mut self) -> bool {
        self.inner.get_mut().is_none()
    }

    /// `true` when nothing was attached.
    pub fn is_empty(&self) -> bool {
        match &*self.inner.lock() {
            None => true,
            Some(inner) => {
                inner.metadata.is_empty()
                    && inner.context.is_empty()
                    && inner.warnings.is_empty()
                    && inner.notifications.is_empty()
                    && inner.events.is_empty()
            }
        }
    }

    /// Runs `f` on the lists, made on first use.
    fn with<R>(&self, f: impl FnOnce(&mut Attached) -> R) -> R {
        let mut inner = self.inner.lock();
        f(inner.get_or_insert_with(Box::default))
    }
}

/// The hook a dispatch is running, as the runtime keeps it in its chains: the context points at
/// it (one pointer written per hook) rather than copying its name and extension.
#[doc(hidden)]
#[derive(Debug)]
pub struct RunningHook {
    /// The hook's name.
    pub name: Arc<str>,
    /// The extension it belongs to.
    pub extension: Arc<Extension>,
}

/// What a hook knows about the dispatch it runs in.
///
/// ```
/// use hookchain::HookContext;
/// use hookchain::chain::Annotations;
///
/// let notes = Annotations::new();
/// let cx = HookContext::new("sess-1", 0, "intercept_tool_call", &notes);
/// cx.set_metadata("risk", "low");
/// assert_eq!(cx.get_metadata("risk"), Some(serde_json::json!("low")));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct HookContext<'a> {
    /// The session, the turn and their states.
    scope: Scope<'a>,
    point: &'static str,
    /// The running hook, when the runtime set it; it takes precedence over the scope's hook
    /// name and extension.
    running: Option<&'a RunningHook>,
    annotations: &'a Annotations,
}

/// Where a dispatch runs, as a context knows it.
#[derive(Debug, Clone, Copy)]
enum Scope<'a> {
    /// A dispatch of a turn: the turn's own record, made once when the turn began, so that a
    /// dispatch writes one pointer for all of it.
    Turn(&'a TurnScope),
    /// A context made by hand, or a dispatch outside a turn: each part on its own.
    Parts(Parts<'a>),
}

/// The parts of a [`Scope`], each on its own.
#[derive(Debug, Clone, Copy)]
struct Parts<'a> {
    session_id: &'a str,
    turn: u64,
    hook: &'a str,
    extension: Option<&'a Extension>,
    turn_state: Option<&'a TurnState>,
    session_state: Option<&'a SessionState>,
}

/// What every dispatch of one turn hands its hooks: the session's id, the turn's index and the
/// two states. The runtime makes it when the turn begins.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct TurnScope {
    pub session_id: Arc<str>,
    pub turn: u64,
    pub turn_state: TurnState,
    pub session_state: SessionState,
}

impl<'a> HookContext<'a> {
    /// A context for a dispatch of `point` in turn `turn` of `session_id`.
    pub fn new(
        session_id: &'a str,
        turn: u64,
        point: &'static str,
        annotations: &'a Annotations,
    ) -> Self {
        HookContext {
            scope: Scope::Parts(Parts {
                session_id,
                turn,
                hook: "",
                extension: None,
                turn_state: None,
                session_state: None,
            }),
            point,
            running: None,
            annotations,
        }
    }

    /// A context for a dispatch of `point` in the turn `scope` describes.
    #[doc(hidden)]
    #[inline(always)]
    pub fn for_turn(
        scope: &'a TurnScope,
        point: &'static str,
        annotations: &'a Annotations,
    ) -> Self {
        HookContext {
            scope: Scope::Turn(scope),
            point,
            running: None,
            annotations,
        }
    }

    /// The scope's parts, each on its own, to change one of them and put them back.
    fn parts(&self) -> Parts<'a> {
        match self.scope {
            Scope::Turn(scope) => Parts {
                session_id: &scope.session_id,
                turn: scope.turn,
                hook: "",
                extension: None,
                turn_state: Some(&scope.turn_state),
                session_state: Some(&scope.session_state),
            },
            Scope::Parts(parts) => parts,
        }
    }

    /// The same context with `change` made to its parts.
    fn with_parts(mut self, change: impl FnOnce(&mut Parts<'a>)) -> Self {
        let mut parts = self.parts();
        change(&mut parts);
        self.scope = Scope::Parts(parts);
        self
    }

    /// The same context, handing out `turn` and `session` as the states of the turn and the
    /// session the dispatch belongs to; the runtime sets them for every dispatch of a
    /// `Session` or a `Turn`.
    #[inline]
    pub fn with_state(self, turn: &'a TurnState, session: &'a SessionState) -> Self {
        self.with_parts(|parts| {
            parts.turn_state = Some(turn);
            parts.session_state = Some(session);
        })
    }

    /// The same context, naming `hook` as the one running.
    #[inline]
    pub fn with_hook(self, hook: &'a str) -> Self {
        self.settled().with_parts(|parts| parts.hook = hook)
    }

    /// The same context, naming `extension` as the running hook's; the runtime sets it per hook.
    #[inline]
    pub fn with_extension(self, extension: &'a Extension) -> Self {
        self.settled()
            .with_parts(|parts| parts.extension = Some(extension))
    }

    /// The same context, running `hook`: its name and its extension. What the runtime sets per
    /// hook, with one pointer.
    #[doc(hidden)]
    #[inline(always)]
    pub fn running(mut self, hook: &'a RunningHook) -> Self {
        self.running = Some(hook);
        self
    }

    /// Names `hook` as the running one, in place: one pointer written.
    #[doc(hidden)]
    #[inline(always)]
    pub fn set_running(&mut self, hook: &'a RunningHook) {
        self.running = Some(hook);
    }

    /// The running hook the runtime set, if any.
    #[doc(hidden)]
    #[inline]
    pub fn running_hook(&self) -> Option<&'a RunningHook> {
        self.running
    }

    /// The same context, the running hook's name and extension copied into its own parts.
    fn settled(mut self) -> Self {
        match self.running.take() {
            Some(running) => self.with_parts(|parts| {
                parts.hook = &running.name;
                parts.extension = Some(&running.extension);
            }),
            None => self,
        }
    }

    /// The extension the running hook belongs to (`None` in a context made by hand).
    pub fn extension(&self) -> Option<&'a Extension> {
        match (self.running, self.scope) {
            (Some(running), _) => Some(&running.extension),
            (None, Scope::Parts(parts)) => parts.extension,
            (None, Scope::Turn(_)) => None,
        }
    }

    /// The running hook's extension config, deserialized as `T` from the extension's section.
    ///
    /// The value is deserialized once per type and shared until the config changes; a missing
    /// section reads as an empty mapping, so `#[serde(default)]` fields work without any config.
    /// The error names the extension, the field, and the file and line it was written at.
    ///
    /// ```
    /// use hookchain::HookContext;
    /// use hookchain::chain::Annotations;
    /// use hookchain::registry::Extension;
    /// use serde::Deserialize;
    ///
    /// #[derive(Deserialize)]
    /// struct WorkflowGuardConfig { plan_path: String }
    ///
    /// let section = serde_json::json!({"plan_path": "plan.md"});
    /// let ext = Extension::with_config("workflow-guard", section);
    /// let notes = Annotations::new();
    /// let cx = HookContext::new("s", 0, "intercept_tool_call", &notes).with_extension(&ext);
    /// assert_eq!(cx.config::<WorkflowGuardConfig>().unwrap().plan_path, "plan.md");
    /// ```
    pub fn config<T>(&self) -> Result<Arc<T>, ConfigError>
    where
        T: DeserializeOwned + Send + Sync + 'static,
    {
        match self.extension() {
            Some(extension) => extension.config::<T>(),
            None => Err(ConfigError::NoExtension {
                hook: self.hook_name().to_owned(),
            }),
        }
    }

    /// The session the dispatch belongs to.
    pub fn session_id(&self) -> &'a str {
        match self.scope {
            Scope::Turn(scope) => &scope.session_id,
            Scope::Parts(parts) => parts.session_id,
        }
    }

    /// The state of the turn this hook runs in: a borrow of the turn's own handle (clone it to
    /// keep it), cleared when that turn ends.
    ///
    /// Each turn has its own state, even when two turns of one session run at once, and a hook
    /// always gets the state of the turn that fired it. In a dispatch of the session outside any
    /// turn (`session_start`, `session_end`, `Session::fire`) it is the session's state for work
    /// outside a turn, which is cleared when the next turn begins. In a dispatch outside any
    /// session (`Hooks::dispatch`) it is a state of that dispatch alone; in a context made by hand
    /// and given no state ([`with_state`](HookContext::with_state)), one detached state shared by
    /// every such context.
    ///
    /// ```
    /// use hookchain::{HookContext, SessionState, TurnState};
    /// use hookchain::chain::Annotations;
    ///
    /// let (turn, session) = (TurnState::default(), SessionState::default());
    /// let notes = Annotations::new();
    /// let cx = HookContext::new("sess-1", 0, "intercept_tool_call", &notes).with_state(&turn, &session);
    /// cx.turn_state().set("plan_ok", true);
    /// assert_eq!(turn.get::<bool>("plan_ok"), Some(true));
    /// ```
    #[inline]
    pub fn turn_state(&self) -> &'a TurnState {
        match self.scope {
            Scope::Turn(scope) => &scope.turn_state,
            Scope::Parts(parts) => match parts.turn_state {
                Some(state) => state,
                None => &DETACHED.0,
            },
        }
    }

    /// The state of the session this hook runs in, living until the session ends: a borrow of
    /// the session's own handle (clone it to keep it). Outside any session, as
    /// [`turn_state`](HookContext::turn_state) says.
    #[inline]
    pub fn session_state(&self) -> &'a SessionState {
        match self.scope {
            Scope::Turn(scope) => &scope.session_state,
            Scope::Parts(parts) => match parts.session_state {
                Some(state) => state,
                None => &DETACHED.1,
            },
        }
    }

    /// The index of the turn in its session, from 0.
    pub fn turn(&self) -> u64 {
        match self.scope {
            Scope::Turn(scope) => scope.turn,
            Scope::Parts(parts) => parts.turn,
        }
    }

    /// The canonical name of the point being dispatched.
    pub fn point(&self) -> &'static str {
        self.point
    }

    /// The name of the hook that is running.
    pub fn hook_name(&self) -> &'a str {
        match (self.running, self.scope) {
            (Some(running), _) => &running.name,
            (None, Scope::Parts(parts)) => parts.hook,
            (None, Scope::Turn(_)) => "",
        }
    }

    /// A snapshot of the metadata earlier hooks of this dispatch attached.
    pub fn metadata(&self) -> Metadata {
        match &*self.annotations.inner.lock() {
            Some(inner) => inner.metadata.clone(),
            None => Metadata::new(),
        }
    }

    /// One metadata value attached by an earlier hook of this dispatch.
    pub fn get_metadata(&self, key: &str) -> Option<Value> {
        self.annotations
            .inner
            .lock()
            .as_ref()
            .and_then(|inner| inner.metadata.get(key).cloned())
    }

    /// Attaches a key/value for the hooks after this one; returned to the agent with the outcome.
    ///
    /// A value that does not serialize is stored as its error message, so a hook never fails
    /// here.
    pub fn set_metadata(&self, key: impl Into<String>, value: impl Serialize) {
        let value = serde_json::to_value(value)
            .unwrap_or_else(|e| Value::String(format!("unserializable metadata: {e}")));
        self.annotations
            .with(|inner| inner.metadata.insert(key.into(), value));
    }

    /// Adds context for the model (the agent decides where it goes, usually the next prompt).
    pub fn add_context(&self, text: impl Into<String>) {
        let text = text.into();
        self.annotations.with(|inner| inner.context.push(text));
    }

    /// Adds a warning for the user.
    pub fn warn(&self, text: impl Into<String>) {
        let text = text.into();
        self.annotations.with(|inner| inner.warnings.push(text));
    }

    /// Asks the runtime to fire `notification` once this dispatch is over: a `Session` or a
    /// `Turn` fires it through the `notification` point (after the dispatch, as it fires the
    /// notifications of hooks that failed), so the hooks and external scripts that listen there
    /// hear it. A dispatch of `notification` itself fires none (a notification hook cannot start
    /// a loop), and `Hooks::dispatch` leaves them in the outcome for its caller.
    ///
    /// ```
    /// use hookchain::HookContext;
    /// use hookchain::chain::Annotations;
    /// use hookchain::points::{Level, Notification};
    ///
    /// let notes = Annotations::new();
    /// let cx = HookContext::new("sess-1", 0, "before_llm_call", &notes);
    /// cx.notify(Notification::new(Level::Warning, "the turn's budget is spent"));
    /// assert_eq!(notes.take().notifications[0].message, "the turn's budget is spent");
    /// ```
    pub fn notify(&self, notification: Notification) {
        self.annotations
            .with(|inner| inner.notifications.push(notification));
    }

    /// Emits an event of point `P`: once this dispatch (or tool call) returns, and before the
    /// agent's call that started it returns, the runtime dispatches `value` to `P`'s chain, in
    /// the same session and turn. Typed events between extensions (Pi's `pi.events`): declare
    /// the point with `hook_point!`, emit it here, hook it with `#[register_hook(MyEvent)]`.
    ///
    /// The event is only queued: no hook runs inside `emit`, and never re-entrantly. The emitter
    /// gets nothing back: what `P`'s hooks decide is theirs (a block of an event is reported
    /// through `notification` as a notice). An event emitted by a hook of an emitted event is
    /// delivered after it, up to a bounded depth (the runtime's `MAX_EMIT_DEPTH`); past it the
    /// event is dropped with an error notification, so two extensions cannot ping-pong forever.
    /// Outside a session (`Hooks::dispatch`) the events stay in the outcome's `events`.
    ///
    /// ```
    /// use hookchain::HookContext;
    /// use hookchain::chain::Annotations;
    /// use hookchain::points::TransformUserInput;
    ///
    /// let notes = Annotations::new();
    /// let cx = HookContext::new("sess-1", 0, "after_tool_call", &notes);
    /// cx.emit::<TransformUserInput>("hello".to_owned());
    /// let events = notes.take().events;
    /// assert_eq!(events[0].point(), "transform_user_input");
    /// ```
    pub fn emit<P: HookPoint>(&self, value: P::Value) {
        let event = Emitted::new::<P>(value, self.hook_name());
        self.annotations.with(|inner| inner.events.push(event));
    }
}
