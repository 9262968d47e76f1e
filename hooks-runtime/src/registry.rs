//! The registry: every hook the agent has, and one sorted chain per point.
//!
//! # What it owns
//!
//! [`Hooks`] holds the hooks collected at link time by `#[register_hook]` and the hooks added
//! through [`HooksBuilder`] (closures), and builds from them one [`Chain`](crate::chain) per
//! point. Chains of the built-in points are built when the registry is; chains of user-defined
//! points are built the first time their point is dispatched. After that a chain is only read:
//! a dispatch takes no lock for built-in points.
//!
//! # The rules it keeps
//!
//! - A chain is sorted by (priority, name, order added); the same hooks give the same chain on
//!   every build and platform, whatever order the linker collected them in.
//! - Two hooks with the same name on the same point are an error ([`BuildError::DuplicateName`])
//!   when building with [`HooksBuilder::build`]. [`Hooks::global`] cannot fail: it logs the error
//!   and keeps both, in file:line order.
//! - Two different point types with the same name are an error when the second is dispatched;
//!   it gets an empty chain and the error is logged.
//! - [`Hooks::describe`] lists every hook, so an empty registry is visible, never silent.
//! - A dispatch straight on the registry runs one chain and nothing else: [`Hooks::dispatch`]
//!   outside any session (session id `""`), [`Hooks::dispatch_in_session`] as a firing of a
//!   session that lives elsewhere (its id and its state given; no `session_start`,
//!   `session_end` or `notification` fires around it).
//! - Every hook belongs to one extension: its `#[register_hook(extension = "..")]` (default: the
//!   name of its package), or its [`HookOptions::extension`] (default: [`BUILDER_EXTENSION`],
//!   `"app"`). The registry keeps one [`Extension`] per name, shared by the chain entries of its
//!   hooks: [`Hooks::disable_extension`] flips one flag that every chain reads, on every thread,
//!   before each hook it reaches; the chains themselves never change. The extension also holds
//!   its config section, loaded and checked as the [`sections`](crate::sections) module says.
//!   An extension is on by default; one declared off by default
//!   ([`HooksBuilder::off_by_default`], `extension_config!(NAME, Type, enabled = false)`) is
//!   built disabled ("disabled by default") and runs once a section or the agent's code enables
//!   it.
//! - Crates layered on the runtime (config files and consent, external hooks) add their hooks
//!   through the same builder: the steps they leave with [`HooksBuilder::on_build`] run first
//!   when the registry is built, and what they want to keep travels with it as an attachment
//!   ([`HooksBuilder::attach`], [`Hooks::attachment`]). The chains never change after that.
//! - [`Hooks::global`] does no I/O and cannot fail: it is the collected hooks, or the registry
//!   the program installed with [`Hooks::set_global`] before first using it.
//! - A wildcard hook ([`HooksBuilder::watch`], `#[register_hook("*")]`) is kept under its
//!   pattern (`HookInfo::point` is `"*"` or `"after_*"`), resolved into the chain of every
//!   point it matches when that chain is built (see [`chain`](crate::chain#wildcard-hooks)).
//!   A pattern that can match no point is an error ([`BuildError::Pattern`]) naming the hook
//!   and where it is defined.
//! - A guard that must not vanish is required ([`HooksBuilder::require_hook`],
//!   [`HooksBuilder::require_extension`], [`HookOptions::required`]). When the registry is built
//!   without it, a stand-in in the extension [`REQUIRED_EXTENSION`] (`"required"`) blocks its
//!   point (for an extension with no hook at all, every `intercept_tool_call` and every
//!   `transform_user_input`), and every session hears of it when it starts. When it is there, its
//!   chain entry is marked required, and the chain blocks instead of going on without it when
//!   its extension is disabled or it cannot run (see [`chain`](crate::chain#required-hooks)).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::panic::Location;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hookchain_core::points;
use hookchain_core::{
    BoxFuture, ConfigError, Extension, HookContext, HookPoint, HookReturn, IntoHookReturn, OnError,
    PointKind, Registration,
};
use parking_lot::{Mutex, RwLock};
use serde::de::DeserializeOwned;

use crate::chain::{AsyncClosure, Chain, Entry, Handler, SyncClosure};
use crate::sections::{self, Declared, Sections};
use hookchain_core::__private::{RunningHook, Wildcard};
use hookchain_core::{SessionState, TurnState};

/// How long an async hook may run, unless the builder says otherwise
/// ([`HooksBuilder::async_timeout`]).
pub const DEFAULT_ASYNC_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an async observer may run, unless the builder says otherwise.
pub const DEFAULT_OBSERVER_TIMEOUT: Duration = Duration::from_secs(10);

/// The time limits of async hooks, fixed when the registry is built.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    async_hooks: Duration,
    observers: Duration,
}

impl Timeouts {
    /// The limit of an async hook on point `P`.
    fn of<P: HookPoint>(self) -> Option<Duration> {
        match P::KIND {
            PointKind::Observe => Some(self.async_hooks.min(self.observers)),
            _ => Some(self.async_hooks),
        }
    }
}

/// How many redos `on_stop` hooks may ask for in one turn, unless the builder says otherwise.
pub const DEFAULT_STOP_REDO_CAP: u32 = 3;

/// The extension of a hook added through [`HooksBuilder`] that names none.
pub const BUILDER_EXTENSION: &str = "app";

/// Where a hook comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookSource {
    /// A `#[register_hook]` fn, collected at link time.
    Registered,
    /// A closure added through [`HooksBuilder`].
    Builder,
    /// An external hook (a script, a worker process, an HTTP endpoint), from a config file or
    /// added in code.
    External,
}

/// One hook, as [`Hooks::describe`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookInfo {
    /// The point's canonical name.
    pub point: &'static str,
    /// The point's kind.
    pub kind: PointKind,
    /// The hook's name.
    pub name: Arc<str>,
    /// Lower runs earlier.
    pub priority: i32,
    /// The extension it belongs to.
    pub extension: Arc<str>,
    /// What its failure means.
    pub on_error: OnError,
    /// `true` for an async hook.
    pub is_async: bool,
    /// The source file that defined it (for an external hook, the config file that names it).
    pub file: Arc<str>,
    /// The line that defined it.
    pub line: u32,
    /// Where it comes from.
    pub source: HookSource,
    /// `true` for a required hook ([`HookOptions::required`], [`HooksBuilder::require_hook`],
    /// [`HooksBuilder::require_extension`], `required: true` in a config file): when it cannot
    /// run — its extension disabled, its script changed since approved, its transport unusable —
    /// its point blocks instead of going on without it.
    pub required: bool,
    /// The order it was added in, for ties.
    order: u64,
    /// For a wildcard hook: `true` when it reads the event's payload.
    payload: bool,
}

impl HookInfo {
    fn sort_key(&self) -> (i32, &str, u64) {
        (self.priority, &self.name, self.order)
    }

    /// `file:line` of its definition.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// What can go wrong building a registry.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two hooks on one point share a name.
    #[error(
        "two hooks on `{point}` are named `{name}` ({first} and {second}): give one of them another `name = \"..\"`"
    )]
    DuplicateName {
        /// The point.
        point: &'static str,
        /// The shared name.
        name: String,
        /// file:line of the first.
        first: String,
        /// file:line of the second.
        second: String,
    },
    /// An extension a built-in claimed ([`HooksBuilder::claim_extension`]) has hooks or a
    /// config type of another owner too: one section would configure both.
    #[error(
        "extension `{extension}` is {owner}, and {other} belongs to an extension of the same \
         name: one `{extension}` section would configure both; give your extension another name"
    )]
    ExtensionClash {
        /// The extension's name.
        extension: String,
        /// Who claimed it ("the built-in guard `workflow-guard`").
        owner: String,
        /// The other: a hook with its name and file:line, or a config type.
        other: String,
    },
    /// The config does not fit the registry: see [`ConfigError`].
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A wildcard hook's pattern can match no point.
    #[error("wildcard hook `{hook}` ({at}): {message}")]
    Pattern {
        /// The hook's name.
        hook: String,
        /// file:line of its definition.
        at: String,
        /// What is wrong with the pattern, and the fix.
        message: String,
    },
    /// A step a layered crate left with [`HooksBuilder::on_build`] failed: the allowlist of
    /// approved hooks cannot be read, a configured hook cannot be added, ...
    #[error("{0}")]
    Step(Arc<dyn std::error::Error + Send + Sync>),
}

/// The message, as `Display` writes it: what `main` prints for an error it returns with `?`.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl BuildError {
    /// A failed [`on_build`](HooksBuilder::on_build) step.
    pub fn step(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        BuildError::Step(Arc::new(error))
    }
}

impl PartialEq for BuildError {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                BuildError::DuplicateName {
                    point,
                    name,
                    first,
                    second,
                },
                BuildError::DuplicateName {
                    point: p,
                    name: n,
                    first: f,
                    second: s,
                },
            ) => (point, name, first, second) == (p, n, f, s),
            (
                BuildError::ExtensionClash {
                    extension,
                    owner,
                    other,
                },
                BuildError::ExtensionClash {
                    extension: e,
                    owner: o,
                    other: x,
                },
            ) => (extension, owner, other) == (e, o, x),
            (
                BuildError::Pattern { hook, at, message },
                BuildError::Pattern {
                    hook: h,
                    at: a,
                    message: m,
                },
            ) => (hook, at, message) == (h, a, m),
            (BuildError::Config(a), BuildError::Config(b)) => a == b,
            (BuildError::Step(a), BuildError::Step(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }
}

impl Eq for BuildError {}

/// What [`Hooks::set_global`] returns when the global registry is already in use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the global registry is already in use: install it (hookchain::init() or Hooks::set_global) \
     before anything calls Hooks::global()"
)]
#[non_exhaustive]
pub struct SetGlobalError;

/// Whether [`HooksBuilder::build`] refuses what is wrong or leaves it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildMode {
    /// [`build`](HooksBuilder::build): any error fails the build.
    Strict,
    /// [`build_lenient`](HooksBuilder::build_lenient): what is wrong is left out and reported.
    Lenient,
}

/// A step a crate layered on the runtime leaves for [`HooksBuilder::build`]: see
/// [`HooksBuilder::on_build`].
pub type BuildStep =
    Box<dyn FnOnce(&mut HooksBuilder, BuildMode) -> Result<(), BuildError> + Send + Sync>;

/// What can go wrong enabling or disabling an extension.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExtensionError {
    /// No hook of the registry belongs to an extension of that name.
    #[error("no extension is named `{name}`{}", unknown_hint(.suggestion, .known))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The closest extension's name, when one is close.
        suggestion: Option<String>,
        /// Every extension of the registry, sorted.
        known: Vec<String>,
    },
}

fn unknown_hint(suggestion: &Option<String>, known: &[String]) -> String {
    match suggestion {
        Some(s) => format!(", did you mean `{s}`?"),
        None if known.is_empty() => " (the registry has no extensions)".to_owned(),
        None => format!(
            " (the extensions are {})",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Options of a hook added through [`HooksBuilder::hook_with`].
#[derive(Debug, Clone)]
pub struct HookOptions {
    name: String,
    priority: i32,
    extension: String,
    on_error: Option<OnError>,
    at: Option<(Arc<str>, u32)>,
    source: Option<HookSource>,
    required: bool,
    payload: bool,
}

impl HookOptions {
    /// A hook called `name`, priority 0, in extension [`BUILDER_EXTENSION`] (`"app"`), with the
    /// point's default `on_error`.
    pub fn new(name: impl Into<String>) -> Self {
        HookOptions {
            name: name.into(),
            priority: 0,
            extension: BUILDER_EXTENSION.to_owned(),
            on_error: None,
            at: None,
            source: None,
            required: false,
            payload: true,
        }
    }

    /// For a wildcard hook ([`HooksBuilder::watch`]): it does not read
    /// [`DispatchEvent::payload`](hookchain_core::DispatchEvent), so a dispatch whose wildcard hooks
    /// all say so builds no JSON of its value (the payload is then `Null`). Counters use it.
    pub fn without_payload(mut self) -> Self {
        self.payload = false;
        self
    }

    /// Lower runs earlier.
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// The extension the hook belongs to: enabled, disabled and configured with the others of
    /// that name (default [`BUILDER_EXTENSION`], `"app"`).
    pub fn extension(mut self, extension: impl Into<String>) -> Self {
        self.extension = extension.into();
        self
    }

    /// What a panic or `Err` of the hook means.
    pub fn on_error(mut self, on_error: OnError) -> Self {
        self.on_error = Some(on_error);
        self
    }

    /// Where the hook is defined, as [`Hooks::describe`] lists it (default: the file and line
    /// of the call that adds it). A config loader gives the file and line that name the hook.
    pub fn defined_at(mut self, file: impl Into<Arc<str>>, line: u32) -> Self {
        self.at = Some((file.into(), line));
        self
    }

    /// Where the hook comes from (default [`HookSource::Builder`]); external hooks say
    /// [`HookSource::External`].
    pub fn source(mut self, source: HookSource) -> Self {
        self.source = Some(source);
        self
    }

    /// A required hook (default `false`): when it cannot run, its point blocks instead of going
    /// on without it. It cannot run when its extension is disabled — by the agent's code or a
    /// config file; the reason names who disabled it — or when it fails with
    /// [`HookError::cannot_run`](hookchain_core::HookError::cannot_run) (an external hook whose
    /// script changed since it was approved, or whose transport cannot be built), whatever its
    /// `on_error`. Any other failure is handled by its `on_error`, as for every hook. On observe
    /// points nothing blocks, required or not.
    pub fn required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }
}

/// A hook added at runtime, with its handler behind `Any` until its point's chain is built.
struct Added {
    info: HookInfo,
    point_type: TypeId,
    handler: Box<dyn Any + Send + Sync>,
}

/// Builds a [`Hooks`] registry from link-time hooks and closures.
///
/// ```
/// use hookchain::{HookContext, HookResult, points::InterceptToolCall};
/// use hookchain::points::ToolCall;
/// use hookchain::HooksBuilder;
/// use serde_json::json;
///
/// let hooks = HooksBuilder::new()
///     .hook(InterceptToolCall, 10, |call: &ToolCall, _cx: &HookContext| {
///         if call.name == "rm" { HookResult::block("no rm") } else { HookResult::Pass }
///     })
///     .build()
///     .unwrap();
/// let turn = hooks.session("builder-doc").begin_turn();
/// assert!(turn.intercept_tool_call(ToolCall::new("rm", json!({}))).is_blocked());
/// ```
#[derive(Default)]
pub struct HooksBuilder {
    registered: Vec<&'static Registration>,
    added: Vec<Added>,
    declared: Vec<Declared>,
    sections: Option<Sections>,
    async_timeout: Option<Duration>,
    observer_timeout: Option<Duration>,
    stop_redo_cap: Option<u32>,
    order: u64,
    /// What layered crates left for `build`, in the order they were left.
    steps: Vec<BuildStep>,
    /// What layered crates keep with the registry, one value per type.
    attachments: Attachments,
    /// What every session hears through `notification` when it starts.
    notices: Vec<hookchain_core::Notification>,
    /// Hooks that must be in the registry: (point, name, what stands in when one is not).
    required: Vec<Required>,
    /// Extensions that must be in the registry, enabled.
    required_extensions: Vec<String>,
    /// What is required once the stand-ins are in: every hook these name is marked required.
    required_set: RequiredSet,
    /// Extensions off until a section or the agent's code enables them.
    off_by_default: Vec<String>,
    /// Extensions that belong to one owner (a built-in guard) alone.
    claims: Vec<Claim>,
}

/// An extension [`HooksBuilder::claim_extension`] reserved, and its owner.
struct Claim {
    extension: String,
    owner: String,
    /// The owner's config type is the first declared for the extension from this index on.
    declared_from: usize,
}

/// A hook [`HooksBuilder::require_hook`] asked for, and how to block its point without it.
struct Required {
    point: &'static str,
    name: String,
    stand_in: StandIn,
    /// Why it is not there, when the caller knows (a configured hook consent skipped).
    why: Option<String>,
}

/// Adds a hook that blocks its point with a reason: (builder, hook name, reason).
type StandIn = fn(HooksBuilder, String, String) -> HooksBuilder;

/// The hooks and extensions required of a registry, which its chains mark required.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequiredSet {
    hooks: Vec<(&'static str, String)>,
    extensions: Vec<String>,
}

impl RequiredSet {
    fn contains(&self, info: &HookInfo) -> bool {
        info.required
            || self.extensions.iter().any(|e| **e == *info.extension)
            || self
                .hooks
                .iter()
                .any(|(point, name)| *point == info.point && **name == *info.name)
    }
}

/// A stand-in on point `P`: blocks every value with `reason`, first in the chain, in the
/// extension `required`.
fn stand_in<P: HookPoint>(builder: HooksBuilder, name: String, reason: String) -> HooksBuilder {
    let closure: SyncClosure<P> = Arc::new(move |_, _| {
        Ok(hookchain_core::HookResult::<P::Rewrite>::block(
            reason.clone(),
        ))
    });
    let options = HookOptions::new(format!("required:{name}"))
        .priority(i32::MIN)
        .extension(REQUIRED_EXTENSION)
        .on_error(OnError::Block);
    builder.add::<P>(
        options,
        false,
        Handler::SyncClosure(closure),
        (file!(), line!()),
    )
}

/// The stand-in of the built-in point named `point` (its canonical name).
fn stand_in_by_name(point: &str) -> Option<(&'static str, StandIn)> {
    macro_rules! by_name {
        ([$point:ident] $($(#[$doc:meta])* $ty:ident { name: $name:literal, $($rest:tt)* })*) => {
            match $point {
                $($name => Some(($name, stand_in::<points::$ty> as StandIn)),)*
                _ => None,
            }
        };
    }
    hookchain_core::__private::builtin_points!([point] => by_name)
}

/// The extension of the stand-ins of required hooks and extensions that are not there.
pub(crate) const REQUIRED_EXTENSION: &str = "required";

/// Values of any type, one per type.
#[derive(Default)]
struct Attachments(Vec<(TypeId, Box<dyn Any + Send + Sync>)>);

impl Attachments {
    fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        let key = TypeId::of::<T>();
        self.0.retain(|(k, _)| *k != key);
        self.0.push((key, Box::new(value)));
    }

    fn get<T: Any>(&self) -> Option<&T> {
        let key = TypeId::of::<T>();
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.downcast_ref())
    }

    fn get_mut<T: Any>(&mut self) -> Option<&mut T> {
        let key = TypeId::of::<T>();
        self.0
            .iter_mut()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.downcast_mut())
    }

    fn take<T: Any>(&mut self) -> Option<T> {
        let key = TypeId::of::<T>();
        let index = self.0.iter().position(|(k, _)| *k == key)?;
        self.0.remove(index).1.downcast().ok().map(|boxed| *boxed)
    }
}

impl fmt::Debug for HooksBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HooksBuilder")
            .field("registered", &self.registered.len())
            .field("added", &self.added.len())
            .field("required_extensions", &self.required_extensions)
            .field("off_by_default", &self.off_by_default)
            .finish_non_exhaustive()
    }
}

impl HooksBuilder {
    /// An empty builder: no hooks at all, not even the `#[register_hook]` ones.
    pub fn new() -> Self {
        HooksBuilder::default()
    }

    /// Adds every `#[register_hook]` fn linked into the program, and every config type declared
    /// with `extension_config!`.
    pub fn collected(mut self) -> Self {
        self.registered.extend(hookchain_core::registrations());
        self.declared
            .extend(hookchain_core::config_declarations().map(Declared::from));
        self
    }

    /// Adds the `#[register_hook]` fns for which `keep` returns `true` (given each one's
    /// [`HookInfo`]), and the config types declared with `extension_config!` for their
    /// extensions.
    pub fn collected_where(mut self, keep: impl Fn(&HookInfo) -> bool) -> Self {
        let kept: Vec<&'static Registration> = hookchain_core::registrations()
            .filter(|r| keep(&registered_info(r)))
            .collect();
        self.declared.extend(
            hookchain_core::config_declarations()
                .filter(|d| kept.iter().any(|r| r.extension == d.extension))
                .map(Declared::from),
        );
        self.registered.extend(kept);
        self
    }

    /// Makes extension `name` off by default, as `extension_config!(NAME, Type, enabled =
    /// false)` does for `#[register_hook]` fns: its hooks run only once a section says
    /// `enabled: true` (a project's file may: that adds a guard) or the agent's code enables it
    /// ([`Hooks::enable_extension`]); until then listings say "disabled by default".
    pub fn off_by_default(mut self, name: impl Into<String>) -> Self {
        self.off_by_default.push(name.into());
        self
    }

    /// Reserves extension `extension` for `owner` (a built-in guard: "the built-in guard
    /// `workflow-guard`"), whose hooks are named `extension` (or `extension:part`, for an owner
    /// with several hooks on one point) and whose config type is the next
    /// one declared for it ([`config_type`](HooksBuilder::config_type)). A hook of another name
    /// in that extension (a `#[register_hook]` fn, a closure, an external hook) or another
    /// config type declared for it makes [`build`](HooksBuilder::build) fail with
    /// [`BuildError::ExtensionClash`] naming both — never a silent merge of two owners under
    /// one section and one `enabled` flag. A lenient build reports it, to every session too,
    /// and keeps both.
    pub fn claim_extension(
        mut self,
        extension: impl Into<String>,
        owner: impl Into<String>,
    ) -> Self {
        let extension = extension.into();
        if !self.claims.iter().any(|c| c.extension == extension) {
            self.claims.push(Claim {
                extension,
                owner: owner.into(),
                declared_from: self.declared.len(),
            });
        }
        self
    }

    /// The sections the registry's extensions start with (their config and `enabled` flags),
    /// checked by [`build`](HooksBuilder::build); without them, every extension is enabled and
    /// has no section. See [`sections`](crate::sections) for the rules. Given twice, the second
    /// is put over the first.
    pub fn sections(mut self, sections: Sections) -> Self {
        self.sections = Some(match self.sections.take() {
            Some(base) => base.merge(sections),
            None => sections,
        });
        self
    }

    /// The sections given so far ([`sections`](HooksBuilder::sections)), merged: for a guard
    /// whose hooks depend on its config when it is added (which points `audit-log` watches).
    pub fn sections_so_far(&self) -> Option<&Sections> {
        self.sections.as_ref()
    }

    /// Leaves `step` for [`build`](HooksBuilder::build), which runs the steps first, in the
    /// order they were left, before it builds the chains. For crates layered on the runtime:
    /// config files and consent decide which configured hooks to add only once the whole
    /// builder is known. In a [`BuildMode::Lenient`] build a step reports what it left out
    /// instead of failing; an error it returns all the same is logged and the build goes on.
    pub fn on_build(
        mut self,
        step: impl FnOnce(&mut HooksBuilder, BuildMode) -> Result<(), BuildError>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.steps.push(Box::new(step));
        self
    }

    /// Keeps `value` with the builder and then with the registry ([`Hooks::attachment`]), one
    /// value per type (a second value of a type replaces the first). For crates layered on the
    /// runtime, e.g. what consent did with the configured hooks.
    pub fn attach<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.attachments.insert(value);
        self
    }

    /// Adds a notice every session of the registry hears through `notification` when it starts,
    /// after `session_start`: for what the agent and its user must not miss however long the
    /// agent runs — a configured hook that does not run (unapproved, changed since approved, that
    /// failed to load), a guard that is off.
    pub fn notice(mut self, notice: hookchain_core::Notification) -> Self {
        self.notices.push(notice);
        self
    }

    /// Requires a hook named `name` on `point` — a guard that must not vanish. When the registry
    /// is built without one (a `#[register_hook]` fn in a crate the binary does not link, a
    /// configured hook consent skipped or that failed to load, a typo in the name), the point
    /// blocks every value, first in its chain, with a reason naming the missing hook and what to
    /// check, and every session hears of it through `notification`. A required hook that is
    /// present runs as usual, but it is marked required ([`HookOptions::required`]): when its
    /// extension is disabled (by the agent's code or a config file), the point blocks with a
    /// reason naming the hook and who disabled it, instead of going on without it.
    pub fn require_hook<P: HookPoint>(mut self, _point: P, name: impl Into<String>) -> Self {
        self.required.push(Required {
            point: P::NAME,
            name: name.into(),
            stand_in: stand_in::<P>,
            why: None,
        });
        self
    }

    /// [`require_hook`](HooksBuilder::require_hook) for a point named at runtime (a built-in
    /// point's canonical name), with the reason its point blocks with when the hook is not
    /// there: for crates layered on the runtime, which know why (a configured hook marked
    /// `required: true` that consent skipped: "required hook `guard` (hookchain.yaml:12) did not
    /// run: not approved — run `hookchain approve guard`"). A point that is not a built-in one
    /// is logged as an error and nothing is required.
    pub fn require_hook_because(
        mut self,
        point: &str,
        name: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        let name = name.into();
        match stand_in_by_name(point) {
            Some((point, stand_in)) => self.required.push(Required {
                point,
                name,
                stand_in,
                why: Some(reason.into()),
            }),
            None => tracing::error!(
                hook = name,
                "required hook `{name}` is for `{point}`, which is not a built-in point: it is not required"
            ),
        }
        self
    }

    /// Requires the extension `name`: every hook of it is required
    /// ([`HookOptions::required`]), and the extension must have at least one hook.
    ///
    /// - **Disabled** (by anyone: [`Hooks::disable_extension`] in the agent's code, or
    ///   `enabled: false` in the user's config file): each point one of its hooks is on blocks,
    ///   when the dispatch reaches that hook, with a reason naming the hook, the extension and
    ///   who disabled it.
    /// - **Cannot run** (a configured hook of it whose script changed since it was approved, or
    ///   whose transport cannot be built): its point blocks, whatever the hook's `on_error`.
    /// - **Missing** (no hook of it in the registry: its crate not linked, a typo, its
    ///   configured hooks all skipped by consent): nobody knows which points its hooks would be
    ///   on, so the points through which an agent acts block — every `transform_user_input`
    ///   (the user's message is answered with the reason) and every `intercept_tool_call` (no
    ///   tool runs) — and every session hears of it through `notification` when it starts.
    ///   The other points go on: the agent can still start, end and report.
    ///
    /// ```
    /// use hookchain::points::{InterceptToolCall, ToolCall};
    /// use hookchain::{HookContext, HookOptions, HookResult, HooksBuilder};
    /// use serde_json::{Value, json};
    ///
    /// let hooks = HooksBuilder::new()
    ///     .hook_with(
    ///         InterceptToolCall,
    ///         HookOptions::new("no-rm").extension("guards"),
    ///         |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
    ///     )
    ///     .require_extension("guards")
    ///     .build()
    ///     .unwrap();
    /// hooks.disable_extension("guards").unwrap();
    /// let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new("rm", json!({})));
    /// let blocked = outcome.flow.blocked().unwrap();
    /// assert!(blocked.reason.contains("disabled by the agent's code"));
    /// ```
    pub fn require_extension(mut self, name: impl Into<String>) -> Self {
        self.required_extensions.push(name.into());
        self
    }

    /// Puts a blocking stand-in, and a notice, for every required hook and extension that is not
    /// there, and marks required every hook that is.
    fn stand_in_for_missing(&mut self) {
        let present: Vec<(&'static str, String, String)> = self
            .registered
            .iter()
            .map(|r| (r.point, r.name.to_owned(), r.extension.to_owned()))
            .chain(self.added.iter().map(|a| {
                (
                    a.info.point,
                    a.info.name.to_string(),
                    a.info.extension.to_string(),
                )
            }))
            .collect();
        for required in std::mem::take(&mut self.required) {
            self.required_set
                .hooks
                .push((required.point, required.name.clone()));
            if present
                .iter()
                .any(|(point, name, _)| *point == required.point && *name == required.name)
            {
                continue;
            }
            let (point, name) = (required.point, required.name);
            tracing::error!(
                point,
                hook = name,
                "required hook `{name}` on `{point}` is not in the registry: the point blocks",
            );
            let (message, reason) = match required.why {
                Some(why) => (format!("{why}; `{point}` blocks until it runs"), why),
                None => (
                    format!(
                        "required hook `{name}` on `{point}` is not in this registry: `{point}`                          blocks until it is"
                    ),
                    format!(
                        "required hook `{name}` is not in this registry, so `{point}` is blocked: a                          #[register_hook] fn in a library crate is collected only if the crate is                          linked (add `use my_hooks as _;`); a configured hook runs only once                          approved and loaded"
                    ),
                ),
            };
            let builder = std::mem::take(self).notice(hookchain_core::Notification {
                level: hookchain_core::Level::Error,
                message,
                source: Some(name.clone()),
                kind: hookchain_core::NotificationKind::General,
            });
            *self = (required.stand_in)(builder, name, reason);
        }
        for extension in std::mem::take(&mut self.required_extensions) {
            self.required_set.extensions.push(extension.clone());
            if present.iter().any(|(_, _, e)| *e == extension) {
                continue;
            }
            tracing::error!(
                extension,
                "required extension `{extension}` has no hook in the registry: tool calls and user                  input block"
            );
            let reason = format!(
                "required extension `{extension}` has no hook in this registry, so nothing goes                  through until it does: a #[register_hook] fn in a library crate is collected                  only if the crate is linked (add `use my_hooks as _;`); a configured hook runs                  only once approved and loaded"
            );
            let builder = std::mem::take(self).notice(hookchain_core::Notification {
                level: hookchain_core::Level::Error,
                message: format!(
                    "required extension `{extension}` has no hook in this registry: every tool                      call and every user message is blocked until it does"
                ),
                source: Some(extension.clone()),
                kind: hookchain_core::NotificationKind::General,
            });
            let name = format!("extension:{extension}");
            let builder =
                stand_in::<points::InterceptToolCall>(builder, name.clone(), reason.clone());
            *self = stand_in::<points::TransformUserInput>(builder, name, reason);
        }
    }

    /// The value of type `T` attached to the builder, to change it.
    pub fn attachment_mut<T: Any + Send + Sync>(&mut self) -> Option<&mut T> {
        self.attachments.get_mut()
    }

    /// Takes the value of type `T` attached to the builder.
    pub fn take_attachment<T: Any + Send + Sync>(&mut self) -> Option<T> {
        self.attachments.take()
    }

    /// Declares the type `extension`'s section deserializes into, as `extension_config!` does
    /// for `#[register_hook]` fns: a config whose section does not fit is refused when it is
    /// loaded.
    pub fn config_type<T>(mut self, extension: impl Into<String>) -> Self
    where
        T: DeserializeOwned + Send + Sync + 'static,
    {
        self.declared.push(Declared {
            extension: extension.into(),
            type_name: std::any::type_name::<T>(),
            validate: hookchain_core::validate_config::<T>,
            enabled_by_default: true,
        });
        self
    }

    /// Adds a closure hook on `point` with `priority`, named after the caller's file and line.
    #[track_caller]
    pub fn hook<P, F, R>(self, point: P, priority: i32, hook: F) -> Self
    where
        P: HookPoint,
        F: for<'a, 'b, 'c> Fn(&'a P::Input, &'b HookContext<'c>) -> R + Send + Sync + 'static,
        R: IntoHookReturn<P::Rewrite>,
    {
        let at = Location::caller();
        let name = format!("{}:{}", at.file(), at.line());
        self.hook_with(point, HookOptions::new(name).priority(priority), hook)
    }

    /// Adds a closure hook on `point` with a name, priority, extension and `on_error`.
    #[track_caller]
    pub fn hook_with<P, F, R>(self, _point: P, options: HookOptions, hook: F) -> Self
    where
        P: HookPoint,
        F: for<'a, 'b, 'c> Fn(&'a P::Input, &'b HookContext<'c>) -> R + Send + Sync + 'static,
        R: IntoHookReturn<P::Rewrite>,
    {
        let closure: SyncClosure<P> = Arc::new(move |input, cx| hook(input, cx).into_hook_return());
        let at = Location::caller();
        self.add::<P>(
            options,
            false,
            Handler::SyncClosure(closure),
            (at.file(), at.line()),
        )
    }

    /// [`hook_with`](HooksBuilder::hook_with) for a closure that returns the chain's own form,
    /// `Result<HookResult<_>, HookError>`, kept as it is: an error made with
    /// [`HookError::cannot_run`](hookchain_core::HookError::cannot_run) stays one, so a required
    /// hook that could not run blocks its point (through `hook_with`, an `Err` of any type is
    /// turned into a plain error by its message). For crates layered on the runtime, such as
    /// external hooks.
    #[track_caller]
    pub fn hook_with_errors<P, F>(self, _point: P, options: HookOptions, hook: F) -> Self
    where
        P: HookPoint,
        F: for<'a, 'b, 'c> Fn(&'a P::Input, &'b HookContext<'c>) -> HookReturn<P>
            + Send
            + Sync
            + 'static,
    {
        let closure: SyncClosure<P> = Arc::new(hook);
        let at = Location::caller();
        self.add::<P>(
            options,
            false,
            Handler::SyncClosure(closure),
            (at.file(), at.line()),
        )
    }

    /// Adds a wildcard hook: it observes every dispatch of the points `pattern` matches —
    /// `"*"` (every point, built-in and user-defined) or `"PREFIX*"` (`"after_*"`, `"myapp:*"`)
    /// — after their chains ran, with the [`DispatchEvent`](hookchain_core::DispatchEvent) of each
    /// (see [`chain`](crate::chain#wildcard-hooks)). It only observes: it returns `()` or
    /// `Result<(), E>`, and its failures never change a dispatch's flow. A pattern that can match
    /// no point fails the build ([`BuildError::Pattern`]).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// use hookchain::points::ToolCall;
    /// use hookchain::{Decision, DispatchEvent, HookContext, HookOptions, HookResult, HooksBuilder};
    /// use hookchain::points::InterceptToolCall;
    /// use serde_json::{Value, json};
    ///
    /// let blocks = Arc::new(AtomicUsize::new(0));
    /// let seen = Arc::clone(&blocks);
    /// let hooks = HooksBuilder::new()
    ///     .hook(InterceptToolCall, 0, |_: &ToolCall, _: &HookContext| HookResult::<Value>::block("no"))
    ///     .watch("*", HookOptions::new("blocks"), move |ev: &DispatchEvent, _: &HookContext| {
    ///         if ev.decision == Decision::Block {
    ///             seen.fetch_add(1, Ordering::Relaxed);
    ///         }
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let turn = hooks.session("watch-doc").begin_turn();
    /// assert!(turn.intercept_tool_call(ToolCall::new("rm", json!({}))).is_blocked());
    /// assert_eq!(blocks.load(Ordering::Relaxed), 1);
    /// ```
    #[track_caller]
    pub fn watch<F, R>(self, pattern: &str, options: HookOptions, hook: F) -> Self
    where
        F: for<'a, 'b, 'c> Fn(&'a hookchain_core::DispatchEvent, &'b HookContext<'c>) -> R
            + Send
            + Sync
            + 'static,
        R: IntoHookReturn<hookchain_core::Observed>,
    {
        let closure: SyncClosure<Wildcard> =
            Arc::new(move |event, cx| hook(event, cx).into_hook_return());
        let at = Location::caller();
        self.watch_with_errors(pattern, options, closure, (at.file(), at.line()))
    }

    /// [`watch`](HooksBuilder::watch) for a closure that returns the chain's own form, for
    /// crates layered on the runtime (external wildcard hooks).
    #[track_caller]
    pub fn watch_returning<F>(self, pattern: &str, options: HookOptions, hook: F) -> Self
    where
        F: for<'a, 'b, 'c> Fn(
                &'a hookchain_core::DispatchEvent,
                &'b HookContext<'c>,
            ) -> HookReturn<Wildcard>
            + Send
            + Sync
            + 'static,
    {
        let at = Location::caller();
        self.watch_with_errors(pattern, options, Arc::new(hook), (at.file(), at.line()))
    }

    fn watch_with_errors(
        mut self,
        pattern: &str,
        options: HookOptions,
        closure: SyncClosure<Wildcard>,
        at: (&'static str, u32),
    ) -> Self {
        self = self.add::<Wildcard>(options, false, Handler::SyncClosure(closure), at);
        if let Some(added) = self.added.last_mut() {
            added.info.point = hookchain_core::Pattern::intern(pattern);
        }
        self
    }

    /// Adds an async hook on `point`: a fn (or closure) returning a boxed future.
    ///
    /// ```
    /// use hookchain::{HookContext, HookResult, points::InterceptToolCall};
    /// use hookchain::points::ToolCall;
    /// use hookchain::registry::BoxFuture;
    /// use hookchain::{HookOptions, HooksBuilder};
    /// use serde_json::Value;
    ///
    /// fn audit<'a>(call: &'a ToolCall, _cx: &'a HookContext<'a>) -> BoxFuture<'a, HookResult<Value>> {
    ///     Box::pin(async move {
    ///         if call.name == "deploy" { HookResult::block("deploys are frozen") } else { HookResult::Pass }
    ///     })
    /// }
    /// let hooks = HooksBuilder::new()
    ///     .async_hook(InterceptToolCall, HookOptions::new("audit"), audit)
    ///     .build()
    ///     .unwrap();
    /// # let _ = hooks;
    /// ```
    #[track_caller]
    pub fn async_hook<P, F, R>(self, _point: P, options: HookOptions, hook: F) -> Self
    where
        P: HookPoint,
        F: for<'a> Fn(&'a P::Input, &'a HookContext<'a>) -> BoxFuture<'a, R>
            + Send
            + Sync
            + 'static,
        R: IntoHookReturn<P::Rewrite> + 'static,
    {
        let closure: AsyncClosure<P> = Arc::new(move |input, cx| {
            let fut = hook(input, cx);
            Box::pin(async move { fut.await.into_hook_return() }) as BoxFuture<'_, HookReturn<P>>
        });
        let at = Location::caller();
        self.add::<P>(
            options,
            true,
            Handler::AsyncClosure(closure),
            (at.file(), at.line()),
        )
    }

    /// Async hooks that run longer than `limit` fail, and their `on_error` applies (default
    /// [`DEFAULT_ASYNC_TIMEOUT`], 30 s; observe points have a shorter one, see
    /// [`observer_timeout`](HooksBuilder::observer_timeout)). The limit holds in the sync and the
    /// async dispatch; a hook is stopped at its next `.await`. `Duration::MAX` means no limit.
    pub fn async_timeout(mut self, limit: Duration) -> Self {
        self.async_timeout = Some(limit);
        self
    }

    /// Async hooks on observe points that run longer than `limit` fail, so an observer cannot
    /// hold the turn (default [`DEFAULT_OBSERVER_TIMEOUT`]; a shorter `async_timeout` wins).
    pub fn observer_timeout(mut self, limit: Duration) -> Self {
        self.observer_timeout = Some(limit);
        self
    }

    /// How many times `on_stop` hooks may send the agent back to work in one turn (default 3).
    pub fn stop_redo_cap(mut self, cap: u32) -> Self {
        self.stop_redo_cap = Some(cap);
        self
    }

    fn add<P: HookPoint>(
        mut self,
        options: HookOptions,
        is_async: bool,
        handler: Handler<P>,
        (file, line): (&'static str, u32),
    ) -> Self {
        self.order += 1;
        let (file, line) = options.at.unwrap_or_else(|| (file.into(), line));
        let info = HookInfo {
            point: P::NAME,
            kind: P::KIND,
            name: options.name.into(),
            priority: options.priority,
            extension: options.extension.into(),
            on_error: options.on_error.unwrap_or(P::DEFAULT_ON_ERROR),
            is_async,
            file,
            line,
            source: options.source.unwrap_or(HookSource::Builder),
            required: options.required,
            order: self.order,
            payload: options.payload,
        };
        self.added.push(Added {
            info,
            point_type: TypeId::of::<P>(),
            handler: Box::new(handler),
        });
        self
    }

    /// Runs the steps left with [`on_build`](HooksBuilder::on_build), in order, and those they
    /// leave in turn.
    fn run_steps(
        &mut self,
        mode: BuildMode,
        errors: &mut Vec<BuildError>,
    ) -> Result<(), BuildError> {
        while !self.steps.is_empty() {
            let steps = std::mem::take(&mut self.steps);
            for step in steps {
                if let Err(error) = step(self, mode) {
                    match mode {
                        BuildMode::Strict => return Err(error),
                        BuildMode::Lenient => {
                            tracing::error!("{error}");
                            errors.push(error);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Builds the registry; fails when two hooks on one point share a name, when the sections
    /// do not fit (a section for an unknown extension, a section that does not deserialize into
    /// its declared type, ...), or when a step left by a layered crate fails.
    pub fn build(mut self) -> Result<Hooks, BuildError> {
        self.run_steps(BuildMode::Strict, &mut Vec::new())?;
        self.stand_in_for_missing();
        let sections = self.sections.take().unwrap_or_default();
        let registry = Registry::new(self);
        if let Some(error) = registry.duplicates.first() {
            return Err(error.clone());
        }
        let mut registry = registry;
        let (plan, errors) = sections::plan(
            &sections,
            &registry.extensions,
            &registry.declared,
            &registry.infos,
        );
        if let Some(error) = errors.into_iter().next() {
            return Err(error.into());
        }
        registry.refused(&plan.refusals);
        plan.apply(&registry.extensions);
        Ok(Hooks {
            inner: Arc::new(registry),
        })
    }

    /// Builds the registry, logging (not failing on) duplicate names, sections that do not fit
    /// and failed steps: what is wrong is left out.
    pub fn build_lenient(self) -> Hooks {
        self.build_reporting().0
    }

    /// [`build_lenient`](HooksBuilder::build_lenient), with every error it logged: failed
    /// steps, duplicate names, then sections that do not fit.
    pub fn build_reporting(mut self) -> (Hooks, Vec<BuildError>) {
        let mut errors = Vec::new();
        // A lenient run of the steps logs and keeps their errors; it never returns one.
        let _ = self.run_steps(BuildMode::Lenient, &mut errors);
        self.stand_in_for_missing();
        let sections = self.sections.take().unwrap_or_default();
        let mut registry = Registry::new(self);
        for error in registry.duplicates.clone() {
            tracing::error!("{error}");
            // Two owners under one extension: every session hears of it.
            if let BuildError::ExtensionClash { .. } = error {
                registry.notices.push(hookchain_core::Notification {
                    level: hookchain_core::Level::Error,
                    message: error.to_string(),
                    source: Some("config".to_owned()),
                    kind: hookchain_core::NotificationKind::General,
                });
            }
            errors.push(error);
        }
        let (plan, config_errors) = sections::plan(
            &sections,
            &registry.extensions,
            &registry.declared,
            &registry.infos,
        );
        for error in config_errors {
            tracing::error!("{error}");
            // A section left out may leave a guard off, or on without its settings: every
            // session hears of it.
            registry.notices.push(hookchain_core::Notification {
                level: hookchain_core::Level::Error,
                message: format!("{error}; the section is left out"),
                source: Some("config".to_owned()),
                kind: hookchain_core::NotificationKind::General,
            });
            errors.push(error.into());
        }
        registry.refused(&plan.refusals);
        plan.apply(&registry.extensions);
        let hooks = Hooks {
            inner: Arc::new(registry),
        };
        (hooks, errors)
    }
}

/// A registry of hooks: one sorted chain per point. Cheap to clone.
///
/// Most agents use [`Hooks::global`]; tests and agents that want several registries build their
/// own with [`HooksBuilder`].
#[derive(Clone)]
pub struct Hooks {
    pub(crate) inner: Arc<Registry>,
}

pub(crate) struct Registry {
    infos: Vec<HookInfo>,
    registered: Vec<&'static Registration>,
    added: Vec<Added>,
    /// One per extension name, sorted by name.
    extensions: Vec<Arc<Extension>>,
    declared: Vec<Declared>,
    /// Held while a config is loaded, so two loads do not interleave.
    config_lock: Mutex<()>,
    builtin: BuiltinChains,
    custom: RwLock<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    custom_names: RwLock<HashMap<&'static str, TypeId>>,
    /// Duplicate hook names, and hooks or config types in an extension another owner claimed.
    duplicates: Vec<BuildError>,
    /// The hooks and extensions required, which chains built later mark too.
    required: RequiredSet,
    timeouts: Timeouts,
    pub(crate) stop_redo_cap: u32,
    attachments: Attachments,
    /// What every session hears through `notification` when it starts.
    pub(crate) notices: Vec<hookchain_core::Notification>,
    /// What a project's file tried to switch off and was refused.
    refusals: Mutex<Vec<String>>,
    /// The state of this registry's sessions and turns.
    pub(crate) store: Arc<crate::state::Store>,
}

impl Drop for Registry {
    fn drop(&mut self) {
        // The lookups by id forget its store.
        self.store.retire();
    }
}

impl Registry {
    /// Keeps what the config was refused, and says it to every session when it starts.
    fn refused(&mut self, refusals: &[String]) {
        for refusal in refusals {
            self.notices.push(hookchain_core::Notification {
                level: hookchain_core::Level::Warning,
                message: refusal.clone(),
                source: Some("config".to_owned()),
                kind: hookchain_core::NotificationKind::General,
            });
        }
        self.refusals.get_mut().extend(refusals.iter().cloned());
    }

    fn new(builder: HooksBuilder) -> Self {
        let mut infos: Vec<HookInfo> = builder
            .registered
            .iter()
            .map(|r| registered_info(r))
            .chain(builder.added.iter().map(|a| a.info.clone()))
            .collect();
        for info in &mut infos {
            info.required = builder.required_set.contains(info);
        }
        infos.sort_by(|a, b| {
            (a.point, a.sort_key(), &a.file, a.line).cmp(&(b.point, b.sort_key(), &b.file, b.line))
        });
        let mut duplicates = find_duplicates(&infos);
        duplicates.extend(find_clashes(&infos, &builder.declared, &builder.claims));
        duplicates.extend(pattern_errors(&infos));
        let extensions = extensions(&infos, &builder.declared, &builder.off_by_default);
        let (registered, added) = (builder.registered, builder.added);
        let timeouts = Timeouts {
            async_hooks: builder.async_timeout.unwrap_or(DEFAULT_ASYNC_TIMEOUT),
            observers: builder.observer_timeout.unwrap_or(DEFAULT_OBSERVER_TIMEOUT),
        };
        let required = builder.required_set;
        let builtin = BuiltinChains::build(&registered, &added, &extensions, &required, timeouts);
        Registry {
            infos,
            registered,
            added,
            extensions,
            declared: builder.declared,
            config_lock: Mutex::new(()),
            builtin,
            custom: RwLock::new(HashMap::new()),
            custom_names: RwLock::new(HashMap::new()),
            duplicates,
            timeouts,
            required,
            stop_redo_cap: builder.stop_redo_cap.unwrap_or(DEFAULT_STOP_REDO_CAP),
            attachments: builder.attachments,
            notices: builder.notices,
            refusals: Mutex::new(Vec::new()),
            store: crate::state::Store::new(),
        }
    }
}

/// One extension per name among the hooks and the declared config types, sorted by name; off
/// by default when a declaration says so or it is in `off`.
fn extensions(infos: &[HookInfo], declared: &[Declared], off: &[String]) -> Vec<Arc<Extension>> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for info in infos {
        *counts.entry(&info.extension).or_default() += 1;
    }
    for d in declared {
        counts.entry(&d.extension).or_default();
    }
    counts
        .into_iter()
        .map(|(name, hooks)| {
            let on = !off.iter().any(|o| o == name)
                && !declared
                    .iter()
                    .any(|d| d.extension == name && !d.enabled_by_default);
            Arc::new(Extension::new(name, hooks).with_default(on))
        })
        .collect()
}

/// The extension called `name`; every hook's extension is in the list.
fn extension_of(extensions: &[Arc<Extension>], name: &str) -> Arc<Extension> {
    match extensions.binary_search_by(|e| e.name().cmp(name)) {
        Ok(index) => Arc::clone(&extensions[index]),
        Err(_) => unreachable!("the registry makes an extension for every hook's"),
    }
}

// The built-in chains: one field per built-in point, from hooks-core's table of points, so that
// the chain of a built-in point is a field access the compiler resolves (no lookup, no virtual
// call); and, per slot, whether the chain has a hook.
macro_rules! builtin_chains {
    ([] $($(#[$doc:meta])* $point:ident { $($rest:tt)* })*) => {
        /// The chain of every built-in point.
        #[allow(non_snake_case)]
        struct BuiltinChains {
            $($point: Chain<points::$point>,)*
            /// Per built-in slot, `true` when its chain has a hook: what a point nobody hooks
            /// checks first, with no lookup of its chain.
            hooked: [bool; points::BUILTIN_SLOTS],
            /// Per built-in slot, `true` when a wildcard hook watches its point.
            watched: [bool; points::BUILTIN_SLOTS],
        }

        impl BuiltinChains {
            /// Builds the chain of every built-in point.
            fn build(
                registered: &[&'static Registration],
                added: &[Added],
                extensions: &[Arc<Extension>],
                required: &RequiredSet,
                timeouts: Timeouts,
            ) -> Self {
                let mut hooked = [false; points::BUILTIN_SLOTS];
                let mut watched = [false; points::BUILTIN_SLOTS];
                $(
                    let $point = build_chain::<points::$point>(registered, added, extensions, required, timeouts);
                    if let Some(slot) = <points::$point as HookPoint>::BUILTIN_SLOT {
                        hooked[slot] = !$point.is_empty();
                        watched[slot] = $point.is_watched();
                    }
                )*
                BuiltinChains { $($point,)* hooked, watched }
            }

            /// The chain of `P` when it is a built-in point. The type comparisons are constants,
            /// so for a given `P` this is one field access or `None`.
            #[inline(always)]
            fn get<P: HookPoint>(&self) -> Option<&Chain<P>> {
                $(
                    if TypeId::of::<P>() == TypeId::of::<points::$point>() {
                        return (&self.$point as &dyn Any).downcast_ref::<Chain<P>>();
                    }
                )*
                None
            }
        }
    };
}
hookchain_core::__private::builtin_points!([] => builtin_chains);

/// Builds the chain of `P` from every hook registered for it.
fn build_chain<P: HookPoint>(
    registered: &[&'static Registration],
    added: &[Added],
    extensions: &[Arc<Extension>],
    required: &RequiredSet,
    timeouts: Timeouts,
) -> Chain<P> {
    let mut hooks: Vec<(HookInfo, Handler<P>)> = Vec::new();
    for r in registered {
        if r.point != P::NAME {
            continue;
        }
        let handler = if let Some(f) = r.sync_handler::<P>() {
            Handler::Sync(f)
        } else if let Some(f) = r.async_handler::<P>() {
            Handler::Async(f)
        } else {
            tracing::error!(
                point = P::NAME,
                hook = r.name,
                "hook `{}` ({}) was registered for another type also named `{}`; it is left out of this chain",
                r.name,
                r.location(),
                P::NAME
            );
            continue;
        };
        hooks.push((registered_info(r), handler));
    }
    for a in added {
        if a.point_type != TypeId::of::<P>() {
            continue;
        }
        if let Some(handler) = a.handler.downcast_ref::<Handler<P>>() {
            hooks.push((a.info.clone(), handler.clone()));
        }
    }
    let mut watchers: Vec<(HookInfo, Handler<Wildcard>)> = Vec::new();
    for r in registered {
        if !watches(r.point, P::NAME) {
            continue;
        }
        if let Some(f) = r.sync_handler::<Wildcard>() {
            watchers.push((registered_info(r), Handler::Sync(f)));
        }
    }
    for a in added {
        if a.point_type != TypeId::of::<Wildcard>() || !watches(a.info.point, P::NAME) {
            continue;
        }
        if let Some(handler) = a.handler.downcast_ref::<Handler<Wildcard>>() {
            watchers.push((a.info.clone(), handler.clone()));
        }
    }
    watchers.sort_by(|(a, _), (b, _)| {
        (a.sort_key(), &a.file, a.line).cmp(&(b.sort_key(), &b.file, b.line))
    });
    let reads_payload: Box<[bool]> = watchers.iter().map(|(info, _)| info.payload).collect();
    Chain::new(
        entries(hooks, extensions, required),
        entries(watchers, extensions, required),
        reads_payload,
        timeouts.of::<P>(),
    )
}

/// The chain entries of `hooks`, sorted.
fn entries<P: HookPoint>(
    mut hooks: Vec<(HookInfo, Handler<P>)>,
    extensions: &[Arc<Extension>],
    required: &RequiredSet,
) -> Box<[Entry<P>]> {
    hooks.sort_by(|(a, _), (b, _)| {
        (a.sort_key(), &a.file, a.line).cmp(&(b.sort_key(), &b.file, b.line))
    });
    hooks
        .into_iter()
        .map(|(info, handler)| {
            Entry::new(
                RunningHook {
                    extension: extension_of(extensions, &info.extension),
                    name: info.name.clone(),
                },
                handler,
                info.on_error,
                is_external(&info),
                required.contains(&info).then(|| Arc::from(info.location())),
            )
        })
        .collect()
}

impl Registry {
    /// `true` when no hook is on point `P`: for a built-in point, one load and no lookup.
    #[inline(always)]
    pub(crate) fn is_unhooked<P: HookPoint>(&self) -> bool {
        match P::BUILTIN_SLOT {
            Some(slot) => !self.builtin.hooked[slot],
            None => self.custom_chain::<P>().is_empty(),
        }
    }

    /// Per built-in slot, `true` when its chain has a hook.
    pub(crate) fn hooked(&self) -> [bool; points::BUILTIN_SLOTS] {
        self.builtin.hooked
    }

    /// Per built-in slot, `true` when a wildcard hook watches its point.
    pub(crate) fn watched(&self) -> [bool; points::BUILTIN_SLOTS] {
        self.builtin.watched
    }

    /// The chain of `P` when it is a built-in point: no lookup, no reference count.
    #[inline(always)]
    pub(crate) fn builtin_chain<P: HookPoint>(&self) -> Option<&Chain<P>> {
        self.builtin.get::<P>()
    }

    /// The chain of `P`, building it on first use for user-defined points.
    #[inline]
    pub(crate) fn chain<P: HookPoint>(&self) -> ChainRef<'_, P> {
        if let Some(chain) = self.builtin.get::<P>() {
            return ChainRef::Builtin(chain);
        }
        ChainRef::Custom(self.custom_chain::<P>())
    }

    #[cold]
    fn custom_chain<P: HookPoint>(&self) -> Arc<Chain<P>> {
        let key = TypeId::of::<P>();
        if let Some(chain) = self.custom.read().get(&key) {
            return downcast_chain(chain.clone());
        }
        let chain = {
            let mut names = self.custom_names.write();
            let owner = *names.entry(P::NAME).or_insert(key);
            if owner == key {
                build_chain::<P>(
                    &self.registered,
                    &self.added,
                    &self.extensions,
                    &self.required,
                    self.timeouts,
                )
            } else {
                tracing::error!(
                    point = P::NAME,
                    "two different point types are named `{}`; hooks of the second one never run: rename one of them",
                    P::NAME
                );
                Chain::new(Box::new([]), Box::new([]), Box::new([]), None)
            }
        };
        let chain: Arc<dyn Any + Send + Sync> = Arc::new(chain);
        let chain = self.custom.write().entry(key).or_insert(chain).clone();
        downcast_chain(chain)
    }
}

/// `true` for an external hook: a script, a worker or an endpoint, added by
/// with [`HookSource::External`].
fn is_external(info: &HookInfo) -> bool {
    info.source == HookSource::External
}

fn downcast_chain<P: HookPoint>(chain: Arc<dyn Any + Send + Sync>) -> Arc<Chain<P>> {
    match chain.downcast::<Chain<P>>() {
        Ok(chain) => chain,
        Err(_) => unreachable!("custom chains are keyed by their point's TypeId"),
    }
}

/// A borrowed built-in chain or a shared user-defined one.
pub(crate) enum ChainRef<'a, P: HookPoint> {
    Builtin(&'a Chain<P>),
    Custom(Arc<Chain<P>>),
}

impl<P: HookPoint> std::ops::Deref for ChainRef<'_, P> {
    type Target = Chain<P>;
    #[inline(always)]
    fn deref(&self) -> &Chain<P> {
        match self {
            ChainRef::Builtin(c) => c,
            ChainRef::Custom(c) => c,
        }
    }
}

fn registered_info(r: &Registration) -> HookInfo {
    HookInfo {
        point: r.point,
        kind: r.kind,
        name: r.name.into(),
        priority: r.priority,
        extension: r.extension.into(),
        on_error: r.effective_on_error(),
        is_async: r.is_async,
        file: r.file.into(),
        line: r.line,
        source: HookSource::Registered,
        required: false,
        order: 0,
        payload: true,
    }
}

/// The wildcard hooks whose pattern can match no point.
fn pattern_errors(infos: &[HookInfo]) -> Vec<BuildError> {
    let builtin = points::catalog().iter().map(|p| p.name);
    infos
        .iter()
        .filter(|info| hookchain_core::Pattern::is_wildcard(info.point))
        .filter_map(|info| {
            let error = hookchain_core::Pattern::parse(info.point, builtin.clone()).err()?;
            Some(BuildError::Pattern {
                hook: info.name.to_string(),
                at: info.location(),
                message: error.to_string(),
            })
        })
        .collect()
}

/// `true` when the wildcard `pattern` (`"*"`, `"after_*"`) watches the point named `point`.
fn watches(pattern: &str, point: &str) -> bool {
    pattern
        .strip_suffix('*')
        .is_some_and(|prefix| point.starts_with(prefix))
}

fn find_duplicates(sorted: &[HookInfo]) -> Vec<BuildError> {
    let mut seen: HashMap<(&str, &str), &HookInfo> = HashMap::new();
    let mut errors = Vec::new();
    for info in sorted {
        if let Some(first) = seen.insert((info.point, &info.name), info) {
            errors.push(BuildError::DuplicateName {
                point: info.point,
                name: info.name.to_string(),
                first: format!("{}:{}", first.file, first.line),
                second: format!("{}:{}", info.file, info.line),
            });
        }
    }
    errors
}

/// The hooks and config types in an extension a built-in claimed that are not the owner's.
/// `true` when a hook named `name` is one of the claimed extension's own: named after it,
/// `extension` or `extension:part` (a guard with several hooks on one point).
fn owned_by(name: &str, extension: &str) -> bool {
    name.strip_prefix(extension)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
}

fn find_clashes(infos: &[HookInfo], declared: &[Declared], claims: &[Claim]) -> Vec<BuildError> {
    let mut errors = Vec::new();
    for claim in claims {
        let clash = |other: String| BuildError::ExtensionClash {
            extension: claim.extension.clone(),
            owner: claim.owner.clone(),
            other,
        };
        let hooks = infos
            .iter()
            .filter(|i| *i.extension == *claim.extension && !owned_by(&i.name, &claim.extension));
        errors.extend(hooks.map(|info| {
            clash(format!(
                "the hook `{}` ({}) on `{}`",
                info.name,
                info.location(),
                info.point
            ))
        }));
        let owners = declared
            .iter()
            .skip(claim.declared_from)
            .find(|d| d.extension == claim.extension)
            .map(|d| d.type_name);
        let types = declared
            .iter()
            .filter(|d| d.extension == claim.extension && Some(d.type_name) != owners);
        errors.extend(types.map(|d| clash(format!("the config type `{}`", d.type_name))));
    }
    errors
}

/// The global registry, once built or installed.
static GLOBAL: OnceLock<Hooks> = OnceLock::new();

impl Hooks {
    /// The program's registry: every `#[register_hook]` fn linked into the program, or the
    /// registry the program installed with [`set_global`](Hooks::set_global) (which
    /// `hookchain::init()` does, with the config files it found) before first calling this.
    ///
    /// It never reads a file, never prompts and cannot fail: two collected hooks with the same
    /// name on one point are both kept (and logged). A hook in a library crate is collected only
    /// if that crate is linked: when nothing else of the crate is used, add
    /// `use my_hooks as _;`. [`describe`](Hooks::describe) shows what was collected.
    pub fn global() -> &'static Hooks {
        GLOBAL.get_or_init(|| HooksBuilder::new().collected().build_lenient())
    }

    /// Installs `hooks` as the program's registry, which [`global`](Hooks::global) returns from
    /// then on. Like `tracing::subscriber::set_global_default`, it is the binary's choice, made
    /// once, before anything uses the global registry: it fails when the global registry was
    /// already built or installed. A library never calls it.
    pub fn set_global(hooks: Hooks) -> Result<&'static Hooks, SetGlobalError> {
        let mut hooks = Some(hooks);
        let installed = GLOBAL.get_or_init(|| hooks.take().expect("taken once"));
        match hooks {
            None => Ok(installed),
            Some(_) => Err(SetGlobalError),
        }
    }

    /// The notices every session hears when it starts ([`HooksBuilder::notice`]).
    pub fn notices(&self) -> &[hookchain_core::Notification] {
        &self.inner.notices
    }

    /// What a project's file tried to switch off in the config the registry was built with (and
    /// in every [`set_sections`](Hooks::set_sections) since), and was refused: one sentence each,
    /// naming the file and line, what was refused, and how to do it instead. Those of the build
    /// are also among the [`notices`](Hooks::notices) every session hears when it starts; those of
    /// a reload are logged.
    pub fn refusals(&self) -> Vec<String> {
        self.inner.refusals.lock().clone()
    }

    /// The value of type `T` a layered crate attached when the registry was built
    /// ([`HooksBuilder::attach`]).
    pub fn attachment<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.inner.attachments.get()
    }

    /// Every extension, sorted by name: its name, whether it is enabled, how many hooks belong
    /// to it, and its config.
    pub fn extensions(&self) -> impl ExactSizeIterator<Item = &Extension> {
        self.inner.extensions.iter().map(|e| &**e)
    }

    /// The extension called `name`.
    pub fn extension(&self, name: &str) -> Option<&Extension> {
        self.inner
            .extensions
            .binary_search_by(|e| e.name().cmp(name))
            .ok()
            .map(|index| &*self.inner.extensions[index])
    }

    /// Enables the hooks of extension `name` in every chain, on every thread, from the next
    /// dispatch that starts (until [`disable_extension`](Hooks::disable_extension) or the next
    /// [`set_sections`](Hooks::set_sections)). A dispatch already under way may see the change
    /// from its next hook or not at all: see [`chain`](crate::chain).
    pub fn enable_extension(&self, name: &str) -> Result<(), ExtensionError> {
        self.set_enabled(name, true)
    }

    /// Disables the hooks of extension `name`: every chain skips them, on every thread, from the
    /// next dispatch that starts (until [`enable_extension`](Hooks::enable_extension) or the
    /// next [`set_sections`](Hooks::set_sections)). A dispatch already under way may still run
    /// the hooks it has not reached yet: see [`chain`](crate::chain).
    pub fn disable_extension(&self, name: &str) -> Result<(), ExtensionError> {
        self.set_enabled(name, false)
    }

    fn set_enabled(&self, name: &str, enabled: bool) -> Result<(), ExtensionError> {
        let Some(extension) = self.extension(name) else {
            let known: Vec<String> = self.extensions().map(|e| e.name().to_owned()).collect();
            return Err(ExtensionError::Unknown {
                name: name.to_owned(),
                suggestion: hookchain_core::suggest::closest(
                    name,
                    known.iter().map(String::as_str),
                )
                .map(str::to_owned),
                known,
            });
        };
        extension.set_enabled(enabled);
        tracing::info!(
            extension = name,
            "extension `{name}` {}",
            if enabled { "enabled" } else { "disabled" }
        );
        Ok(())
    }

    /// Replaces the sections of every extension: checks `sections` whole (as
    /// [`HooksBuilder::build`] does), then gives each extension its new section and `enabled`
    /// flag (`true` when its section does not say). On an error nothing changes. Safe while
    /// other threads dispatch: see [`sections`](crate::sections).
    pub fn set_sections(&self, sections: Sections) -> Result<(), ConfigError> {
        let _one_at_a_time = self.inner.config_lock.lock();
        let (plan, errors) = sections::plan(
            &sections,
            &self.inner.extensions,
            &self.inner.declared,
            &self.inner.infos,
        );
        if let Some(error) = errors.into_iter().next() {
            return Err(error);
        }
        self.inner
            .refusals
            .lock()
            .extend(plan.refusals.iter().cloned());
        plan.apply(&self.inner.extensions);
        Ok(())
    }

    /// A builder for a registry of your own.
    pub fn builder() -> HooksBuilder {
        HooksBuilder::new()
    }

    /// Every hook, sorted by point and then in chain order.
    pub fn hooks(&self) -> &[HookInfo] {
        &self.inner.infos
    }

    /// The hooks of one point (canonical name), in chain order.
    pub fn chain_of(&self, point: &str) -> Vec<&HookInfo> {
        self.inner
            .infos
            .iter()
            .filter(|h| h.point == point)
            .collect()
    }

    /// The number of hooks.
    pub fn len(&self) -> usize {
        self.inner.infos.len()
    }

    /// `true` when there are no hooks at all.
    pub fn is_empty(&self) -> bool {
        self.inner.infos.is_empty()
    }

    /// A listing of every hook (point, priority, name, extension, file:line) that prints as a
    /// table; an empty registry says so and says why it may be empty.
    pub fn describe(&self) -> Description<'_> {
        Description { hooks: self }
    }

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

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("hooks", &self.inner.infos)
            .finish()
    }
}

/// The listing [`Hooks::describe`] returns; `Display` prints it as a table.
pub struct Description<'a> {
    hooks: &'a Hooks,
}

impl fmt::Display for Description<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let infos = &self.hooks.inner.infos;
        let count = |source: HookSource| infos.iter().filter(|h| h.source == source).count();
        let external = count(HookSource::External);
        write!(
            f,
            "{} hook(s): {} collected by #[register_hook] ({}), {} added by the builder",
            infos.len(),
            count(HookSource::Registered),
            hookchain_core::backend(),
            count(HookSource::Builder)
        )?;
        match external {
            0 => writeln!(f)?,
            n => writeln!(f, ", {n} external (scripts, workers, endpoints)")?,
        }
        if infos.is_empty() {
            return writeln!(
                f,
                "no hooks: a #[register_hook] fn in a library crate is collected only if that crate is linked \
                 (add `use my_hooks as _;` to the binary)"
            );
        }
        let name_width = infos.iter().map(|h| h.name.len()).max().unwrap_or(4).max(4);
        writeln!(
            f,
            "{:<22} {:>8} {:<name_width$} {:<16} {:<8} {:<5} location",
            "point", "priority", "name", "extension", "on_error", "async"
        )?;
        for h in infos {
            let disabled = match self.hooks.extension(&h.extension) {
                Some(e) if !e.is_enabled() => format!("  {}", disabled_text(e)),
                _ => String::new(),
            };
            let required = if h.required { "  required" } else { "" };
            writeln!(
                f,
                "{:<22} {:>8} {:<name_width$} {:<16} {:<8} {:<5} {}:{}{required}{}",
                h.point,
                h.priority,
                h.name,
                if h.extension.is_empty() {
                    "-"
                } else {
                    &h.extension
                },
                h.on_error,
                if h.is_async { "yes" } else { "no" },
                h.file,
                h.line,
                disabled
            )?;
        }
        let extensions: Vec<String> = self
            .hooks
            .extensions()
            .map(|e| {
                let hooks = match e.hook_count() {
                    1 => "1 hook".to_owned(),
                    n => format!("{n} hooks"),
                };
                let state = if e.is_enabled() {
                    String::new()
                } else {
                    format!(", {}", disabled_text(e))
                };
                format!("{} ({hooks}{state})", e.name())
            })
            .collect();
        writeln!(f, "extensions: {}", extensions.join(", "))
    }
}

/// `disabled by ./hookchain.yaml:7` (or `disabled by the agent's code`).
fn disabled_text(extension: &Extension) -> String {
    match extension.disabled_by() {
        Some(who) => format!("disabled by {who}"),
        None => "disabled".to_owned(),
    }
}

impl fmt::Debug for Description<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookchain_core::points::InterceptToolCall;
    use hookchain_core::{HookResult, ToolCall};
    use serde_json::{Value, json};

    /// A lenient build with sections that do not fit: builds anyway, leaves out what is wrong,
    /// reports every error.
    #[test]
    fn a_lenient_build_runs_without_what_is_wrong_and_reports_the_errors() {
        #[derive(serde::Deserialize)]
        struct Guard {
            #[allow(dead_code)]
            plan_path: String,
        }
        let builder = || {
            HooksBuilder::new()
                .hook_with(
                    InterceptToolCall,
                    HookOptions::new("guard").extension("guard"),
                    |_: &ToolCall, _: &HookContext| HookResult::<Value>::block("no"),
                )
                .hook_with(
                    InterceptToolCall,
                    HookOptions::new("audit").priority(-1),
                    |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
                )
                .config_type::<Guard>("guard")
        };
        let sections = Sections::new()
            .extension("guard", json!({"plan_path": 3, "enabled": false}))
            .extension("app", json!({"enabled": false}))
            .extension("gaurd", json!({}));
        let (hooks, errors) = builder()
            .sections(sections)
            .on_build(|_, _| {
                Err(BuildError::step(std::io::Error::other(
                    "cannot read approved-hooks.json",
                )))
            })
            .build_reporting();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "cannot read approved-hooks.json",
                "extension `gaurd` in the config set from code: no hook belongs to this \
                 extension, did you mean `guard`?",
                "extension `guard` in the config set from code: field `plan_path`: invalid \
                 type: integer `3`, expected a string",
            ]
        );
        // Every session hears of the sections left out.
        let notices: Vec<&str> = hooks.notices().iter().map(|n| n.message.as_str()).collect();
        assert_eq!(
            notices,
            [
                "extension `gaurd` in the config set from code: no hook belongs to this \
                 extension, did you mean `guard`?; the section is left out",
                "extension `guard` in the config set from code: field `plan_path`: invalid \
                 type: integer `3`, expected a string; the section is left out",
            ]
        );
        // The section that does not fit is left out whole (`enabled: false` with it); the rest
        // of the sections apply.
        let guard = hooks.extension("guard").unwrap();
        assert!(guard.is_enabled());
        assert!(guard.section().is_absent());
        assert!(!hooks.extension("app").unwrap().is_enabled());
        assert!(
            hooks
                .dispatch::<InterceptToolCall>(ToolCall::new("x", json!({})))
                .is_blocked()
        );
        // Sections that fit give no error; a strict build refuses the failed step.
        let fine = Sections::new().extension("guard", json!({"plan_path": "p"}));
        let (hooks, errors) = builder().sections(fine.clone()).build_reporting();
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!hooks.extension("guard").unwrap().section().is_absent());
        let refused = builder()
            .sections(fine)
            .on_build(|_, mode| {
                assert_eq!(mode, BuildMode::Strict);
                Err(BuildError::step(std::io::Error::other("no")))
            })
            .build();
        assert_eq!(refused.unwrap_err().to_string(), "no");
    }

    #[test]
    fn attachments_travel_from_the_builder_to_the_registry() {
        #[derive(Debug, PartialEq)]
        struct Report(u32);
        let hooks = HooksBuilder::new()
            .attach(Report(1))
            .on_build(|builder, _| {
                builder.attachment_mut::<Report>().unwrap().0 += 1;
                Ok(())
            })
            .build()
            .unwrap();
        assert_eq!(hooks.attachment::<Report>(), Some(&Report(2)));
        assert_eq!(hooks.attachment::<String>(), None);
    }

    #[test]
    fn every_builtin_point_has_its_chain_in_its_slot() {
        let hooks = HooksBuilder::new().build().unwrap();
        fn check<P: HookPoint>(hooks: &Hooks) -> bool {
            matches!(hooks.inner.chain::<P>(), ChainRef::Builtin(_))
        }
        macro_rules! check_all {
            ([$hooks:ident] $($(#[$doc:meta])* $point:ident { $($rest:tt)* })*) => {
                [$((stringify!($point), check::<points::$point>(&$hooks))),*]
            };
        }
        let all = hookchain_core::__private::builtin_points!([hooks] => check_all);
        assert_eq!(all.len(), points::BUILTIN_SLOTS);
        assert_eq!(points::catalog().len(), points::BUILTIN_SLOTS);
        assert!(all.iter().all(|(_, ok)| *ok), "{all:?}");
    }
}
