//! The builder: what [`HooksBuilder`] collects before it builds a registry — the hooks collected
//! at link time and the closures added with their [`HookOptions`], config types and sections,
//! extensions off by default or claimed by one owner, notices, attachments, and the steps
//! crates layered on the runtime leave with [`HooksBuilder::on_build`], which run first when the
//! registry is built. Adding to a builder never fails: what is wrong is found when it is built.

use std::any::{Any, TypeId};
use std::fmt;
use std::panic::Location;
use std::sync::Arc;
use std::time::Duration;

use hookchain_core::__private::Registration;
use hookchain_core::__private::Wildcard;
use hookchain_core::{BoxFuture, HookContext, HookPoint, HookReturn, IntoHookReturn, OnError};
use hookchain_core::{DeclaredRules, ProjectRules};
use serde::de::DeserializeOwned;

use super::attachments::Attachments;
use super::chains::{Added, RequiredSet};
use super::error::BuildError;
use super::info::{HookInfo, HookSource, registered_info};
use crate::chain::{AsyncClosure, Handler, SyncClosure};
use crate::sections::{Declared, Sections};

/// How long an async hook may run, unless the builder says otherwise
/// ([`HooksBuilder::async_timeout`]).
pub const DEFAULT_ASYNC_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an async observer may run, unless the builder says otherwise.
pub const DEFAULT_OBSERVER_TIMEOUT: Duration = Duration::from_secs(10);

/// How many redos `on_stop` hooks may ask for in one turn, unless the builder says otherwise.
pub const DEFAULT_STOP_REDO_CAP: u32 = 3;

/// The extension of a hook added through [`HooksBuilder`] that names none.
pub const BUILDER_EXTENSION: &str = "app";

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

    /// Where the hook is defined, as [`Hooks::describe`](crate::Hooks::describe) lists it (default:
    /// the file and line of the call that adds it). A config loader gives the file and line that
    /// name the hook.
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

/// Builds a [`Hooks`](crate::Hooks) registry from link-time hooks and closures.
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
#[must_use = "a builder does nothing until `build` is called"]
#[derive(Default)]
pub struct HooksBuilder {
    pub(super) registered: Vec<&'static Registration>,
    pub(super) added: Vec<Added>,
    pub(super) declared: Vec<Declared>,
    pub(super) sections: Option<Sections>,
    pub(super) async_timeout: Option<Duration>,
    pub(super) observer_timeout: Option<Duration>,
    pub(super) stop_redo_cap: Option<u32>,
    pub(super) order: u64,
    /// What layered crates left for `build`, in the order they were left.
    pub(super) steps: Vec<BuildStep>,
    /// What layered crates keep with the registry, one value per type.
    pub(super) attachments: Attachments,
    /// What every session hears through `notification` when it starts.
    pub(super) notices: Vec<hookchain_core::Notification>,
    /// Hooks that must be in the registry: (point, name, what stands in when one is not).
    pub(super) required: Vec<Required>,
    /// Extensions that must be in the registry, enabled.
    pub(super) required_extensions: Vec<String>,
    /// What is required once the stand-ins are in: every hook these name is marked required.
    pub(super) required_set: RequiredSet,
    /// Extensions off until a section or the agent's code enables them.
    pub(super) off_by_default: Vec<String>,
    /// Extensions that belong to one owner (a built-in guard) alone.
    pub(super) claims: Vec<Claim>,
    /// The tools: `#[register_tool]` fns collected and closures added.
    pub(super) tools: Vec<super::tools::AddedTool>,
    /// Slash commands: `#[register_command]` fns and those added through the builder.
    pub(super) commands: Vec<super::commands::Command>,
    /// The manifests of extensions (`extension!`, [`manifest`](HooksBuilder::manifest)).
    pub(super) manifests: Vec<hookchain_core::Manifest>,
}

/// An extension [`HooksBuilder::claim_extension`] reserved, and its owner.
pub(super) struct Claim {
    pub(super) extension: String,
    pub(super) owner: String,
    /// The owner's config type is the first declared for the extension from this index on.
    pub(super) declared_from: usize,
}

/// A hook [`HooksBuilder::require_hook`] asked for, and how to block its point without it.
pub(super) struct Required {
    pub(super) point: &'static str,
    pub(super) name: String,
    pub(super) stand_in: StandIn,
    /// Why it is not there, when the caller knows (a configured hook consent skipped).
    pub(super) why: Option<String>,
}

/// Adds a hook that blocks its point with a reason: (builder, hook name, reason).
pub(super) type StandIn = fn(HooksBuilder, String, String) -> HooksBuilder;

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

    /// Adds every `#[register_hook]` fn, every `#[register_tool]` fn and every
    /// `#[register_command]` fn linked into the program, and every config type declared with
    /// `extension_config!`.
    pub fn collected(mut self) -> Self {
        self.collect_commands();
        self.registered
            .extend(hookchain_core::__private::registrations());
        self.tools.extend(
            hookchain_core::__private::tool_registrations()
                .map(super::tools::AddedTool::registered),
        );
        self.declared
            .extend(hookchain_core::config_declarations().map(Declared::from));
        self.manifests
            .extend(hookchain_core::manifest_declarations().map(hookchain_core::Manifest::from));
        self
    }

    /// Adds the manifest of an extension, as `hookchain::extension!` declares one at link time:
    /// its version, description and dependencies, and the points its hooks may use. When the
    /// registry is built, a hook of the extension on a point outside `points`, a `depends_on`
    /// the registry does not have, and two manifests of one extension are errors
    /// ([`BuildError::PointNotAllowed`](crate::BuildError::PointNotAllowed),
    /// [`MissingDependency`](crate::BuildError::MissingDependency),
    /// [`DuplicateManifest`](crate::BuildError::DuplicateManifest)).
    ///
    /// ```
    /// use hookchain::points::{TurnEndEvent, TurnEnded};
    /// use hookchain::registry::{BuildError, Manifest};
    /// use hookchain::{HookContext, HookOptions, HooksBuilder};
    ///
    /// let manifest = Manifest::new("notes").version("0.2.0").points(["intercept_tool_call"]);
    /// let error = HooksBuilder::new()
    ///     .manifest(manifest)
    ///     .hook_with(
    ///         TurnEnded,
    ///         HookOptions::new("notes-end").extension("notes"),
    ///         |_: &TurnEndEvent, _: &HookContext| {},
    ///     )
    ///     .build()
    ///     .unwrap_err();
    /// assert!(matches!(error, BuildError::PointNotAllowed { .. }), "{error}");
    /// ```
    pub fn manifest(mut self, manifest: hookchain_core::Manifest) -> Self {
        self.manifests.push(manifest);
        self
    }

    /// Adds the `#[register_hook]` fns for which `keep` returns `true` (given each one's
    /// [`HookInfo`]), and the `#[register_tool]` fns, the config types declared with
    /// `extension_config!` and the manifests declared with `extension!` of their extensions.
    pub fn collected_where(mut self, keep: impl Fn(&HookInfo) -> bool) -> Self {
        let kept: Vec<&'static Registration> = hookchain_core::__private::registrations()
            .filter(|r| keep(&registered_info(r)))
            .collect();
        self.declared.extend(
            hookchain_core::config_declarations()
                .filter(|d| kept.iter().any(|r| r.extension == d.extension))
                .map(Declared::from),
        );
        self.tools.extend(
            hookchain_core::__private::tool_registrations()
                .filter(|t| kept.iter().any(|r| r.extension == t.extension))
                .map(super::tools::AddedTool::registered),
        );
        self.manifests.extend(
            hookchain_core::manifest_declarations()
                .filter(|m| kept.iter().any(|r| r.extension == m.name))
                .map(hookchain_core::Manifest::from),
        );
        self.registered.extend(kept);
        self
    }

    /// Makes extension `name` off by default, as `extension_config!(NAME, Type, enabled = false)`
    /// does for `#[register_hook]` fns: its hooks run only once a section says `enabled: true` (a
    /// project's file may: that adds a guard) or the agent's code enables it
    /// ([`Hooks::enable_extension`](crate::Hooks::enable_extension)); until then listings say
    /// "disabled by default".
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

    /// Keeps `value` with the builder and then with the registry
    /// ([`Hooks::attachment`](crate::Hooks::attachment)), one value per type (a second value of a
    /// type replaces the first). For crates layered on the runtime, e.g. what consent did with the
    /// configured hooks.
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
            rules: None,
        });
        self
    }

    /// [`config_type`](HooksBuilder::config_type), with the [`ProjectRule`] of each field of `T`
    /// ([`ProjectRules`]): what a project's file may do to each setting — add to a list,
    /// only lower a limit, nothing at all — applied whenever a config is loaded. See
    /// [`sections`](crate::sections) for how.
    ///
    /// [`ProjectRule`]: hookchain_core::ProjectRule
    pub fn config_type_with_rules<T>(mut self, extension: impl Into<String>) -> Self
    where
        T: DeserializeOwned + ProjectRules + Send + Sync + 'static,
    {
        self.declared.push(Declared {
            extension: extension.into(),
            type_name: std::any::type_name::<T>(),
            validate: hookchain_core::validate_config::<T>,
            enabled_by_default: true,
            rules: Some(DeclaredRules::of::<T>()),
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

    pub(super) fn add<P: HookPoint>(
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
            firer: crate::session::firer::<P>(),
        });
        self
    }
}
