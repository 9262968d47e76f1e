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
//! - Every hook belongs to one extension: its `#[register_hook(extension = "..")]` (default: the
//!   name of its package), or its [`HookOptions::extension`] (default: [`BUILDER_EXTENSION`],
//!   `"app"`). The registry keeps one [`Extension`] per name, shared by the chain entries of its
//!   hooks: [`Hooks::disable_extension`] flips one flag that every chain reads, on every thread,
//!   before each hook it reaches; the chains themselves never change. The extension also holds
//!   its config section, loaded and checked as the [`config`](crate::config) module says.
//! - The config's external hooks join their points' chains when the registry is built, each once
//!   [`consent`](crate::consent) lets it run ([`HooksBuilder::consent`]); the others are skipped
//!   with a warning and listed by [`Hooks::consent_report`]. The chains never change after that.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::panic::Location;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use hooks_core::points;
use hooks_core::{
    BoxFuture, ConfigError, Extension, HookContext, HookPoint, HookReturn, IntoHookReturn, OnError,
    PointKind, Registration,
};
use parking_lot::{Mutex, RwLock};
use serde::de::DeserializeOwned;

use crate::chain::{AsyncClosure, Chain, Entry, Handler, SyncClosure};
use crate::config::{self, Config, Declared};
use crate::consent::{self, Consent, ConsentError, ConsentPolicy, ConsentReport};

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
    /// The source file that defined it.
    pub file: &'static str,
    /// The line that defined it.
    pub line: u32,
    /// Where it comes from.
    pub source: HookSource,
    /// The order it was added in, for ties.
    order: u64,
}

impl HookInfo {
    fn sort_key(&self) -> (i32, &str, u64) {
        (self.priority, &self.name, self.order)
    }
}

/// What can go wrong building a registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
    /// The config does not fit the registry: see [`ConfigError`].
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The allowlist of approved external hooks cannot be read: see [`ConsentError`].
    #[error(transparent)]
    Consent(#[from] ConsentError),
}

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
        }
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
/// use hooks_core::{HookContext, HookResult, ToolCall, points::InterceptToolCall};
/// use hooks_runtime::HooksBuilder;
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
    config: Option<Config>,
    async_timeout: Option<Duration>,
    observer_timeout: Option<Duration>,
    stop_redo_cap: Option<u32>,
    order: u64,
    /// The allowlist and policy for the config's external hooks (default: from the process).
    consent: Option<(Consent, ConsentPolicy)>,
    /// `--accept-hooks`.
    accept_hooks: bool,
    /// What consent did with the config's external hooks.
    consent_report: ConsentReport,
}

impl HooksBuilder {
    /// An empty builder: no hooks at all, not even the `#[register_hook]` ones.
    pub fn new() -> Self {
        HooksBuilder::default()
    }

    /// Adds every `#[register_hook]` fn linked into the program, and every config type declared
    /// with `extension_config!`.
    pub fn collected(mut self) -> Self {
        self.registered.extend(hooks_core::registrations());
        self.declared
            .extend(hooks_core::config_declarations().map(Declared::from));
        self
    }

    /// Adds the `#[register_hook]` fns for which `keep` returns `true`, and the config types
    /// declared with `extension_config!` for their extensions.
    pub fn collected_where(mut self, keep: impl Fn(&Registration) -> bool) -> Self {
        let kept: Vec<&'static Registration> =
            hooks_core::registrations().filter(|r| keep(r)).collect();
        self.declared.extend(
            hooks_core::config_declarations()
                .filter(|d| kept.iter().any(|r| r.extension == d.extension))
                .map(Declared::from),
        );
        self.registered.extend(kept);
        self
    }

    /// The config the registry starts with (sections and `enabled` flags of its extensions),
    /// checked by [`build`](HooksBuilder::build); without one, every extension is enabled and
    /// has no section. See [`config`](crate::config) for the format and the rules.
    ///
    /// The config's external hooks join their points' chains when the registry is built, each
    /// once [`consent`](crate::consent) lets it run: approved in the allowlist and unchanged
    /// since, or approved then (see [`consent`](HooksBuilder::consent) and
    /// [`accept_hooks`](HooksBuilder::accept_hooks)). The others are skipped with a warning and
    /// listed by [`Hooks::consent_report`].
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// The allowlist of approved hooks and how hooks that are not in it get approved, for the
    /// config's external hooks. Without it, the registry uses
    /// [`Consent::load_default`] (`~/.config/hookchain/approved-hooks.json`) and
    /// [`ConsentPolicy::from_env`] (`HOOKCHAIN_ACCEPT_HOOKS`, and a prompt when stdin is a
    /// terminal). `hooks_auto_accept: true` in the config approves them too.
    ///
    /// ```
    /// use hooks_runtime::consent::{Consent, ConsentPolicy};
    /// use hooks_runtime::{Config, HooksBuilder};
    ///
    /// let config = Config::from_yaml_str(
    ///     "hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/check\n",
    ///     "./hookchain.yaml",
    /// )?;
    /// let hooks = HooksBuilder::new()
    ///     .config(config)
    ///     .consent(Consent::in_memory(), ConsentPolicy::new())
    ///     .build()?;
    /// // Not approved, in a run that asks nobody: skipped, and said so.
    /// assert!(hooks.chain_of("intercept_tool_call").is_empty());
    /// assert_eq!(hooks.consent_report().skipped[0].name, "./hookchain.yaml#01");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn consent(mut self, consent: Consent, policy: ConsentPolicy) -> Self {
        self.consent = Some((consent, policy));
        self
    }

    /// Approves every external hook of the config that is not approved yet (or changed since),
    /// and records the approvals, as `--accept-hooks` does.
    pub fn accept_hooks(mut self, accept: bool) -> Self {
        self.accept_hooks = accept;
        self
    }

    /// Puts the config's external hooks that consent lets run in their chains. With `strict`,
    /// an allowlist that cannot be read is an error; otherwise it is logged and reported, and
    /// only hooks approved now (flag, environment, config or prompt) run.
    fn with_config_hooks(mut self, config: &Config, strict: bool) -> Result<Self, ConsentError> {
        if config.external_hooks().is_empty() {
            return Ok(self);
        }
        let mut report = ConsentReport::default();
        let (mut allowlist, mut policy) = match self.consent.take() {
            Some(given) => given,
            None => {
                let allowlist = match Consent::load_default() {
                    Ok(allowlist) => allowlist,
                    Err(error) if strict => return Err(error),
                    Err(error) => {
                        tracing::error!("{error}");
                        report.errors.push(error);
                        Consent::in_memory()
                    }
                };
                (allowlist, ConsentPolicy::from_env())
            }
        };
        if self.accept_hooks {
            policy = policy.accept_hooks(true);
        }
        if config.accepts_hooks() {
            policy = policy.auto_accept(true);
        }
        let (admitted, admission) = consent::admit(
            config.external_hooks().to_vec(),
            &mut allowlist,
            &mut policy,
        );
        report.admitted = admission.admitted;
        report.skipped = admission.skipped;
        report.errors.extend(admission.errors);
        for hook in admitted {
            self = self.external(hook);
        }
        self.consent_report = report;
        Ok(self)
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
            validate: hooks_core::validate_config::<T>,
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

    /// Adds an async hook on `point`: a fn (or closure) returning a boxed future.
    ///
    /// ```
    /// use hooks_core::{BoxFuture, HookContext, HookResult, ToolCall, points::InterceptToolCall};
    /// use hooks_runtime::{HookOptions, HooksBuilder};
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

    /// Adds an external hook — a script, a long-lived worker or an HTTP endpoint — to the chain
    /// of its point, reached through the transport `hook.transport` names.
    ///
    /// The hook runs in priority order with every other hook of the point; see
    /// [`external::hook`](crate::external::hook) for what one firing does and
    /// [`external_with`](HooksBuilder::external_with) for where it is listed.
    ///
    /// A transport that cannot be built (a missing or non-executable program, a malformed URL)
    /// is logged as an error and the hook is added all the same: every firing fails with that
    /// error, so the hook's `on_error` applies — a guard with `on_error: block` blocks instead of
    /// vanishing. Config loaders report the problem at load time with
    /// [`external::hook::invoker`](crate::external::hook::invoker).
    #[track_caller]
    pub fn external(self, hook: crate::external::ExternalHook) -> Self {
        use crate::external::hook::{Unusable, invoker};
        let invoker = invoker(&hook.transport).unwrap_or_else(|error| {
            tracing::error!(
                hook = hook.name,
                "external hook `{}` ({}) cannot be used, every firing will fail: {error}",
                hook.name,
                hook.origin
            );
            Arc::new(Unusable(error))
        });
        self.external_with(hook, invoker)
    }

    /// Adds an external hook that reaches its script, worker or endpoint through `invoker`
    /// instead of the transport of `hook.transport`: for tests (a fake [`Invoke`]) and for
    /// transports of your own.
    ///
    /// The hook joins the chain of `hook.point` as [`external`](crate::external::hook)
    /// describes: named `hook.name`, at `hook.priority`, in the extension `"external"`, listed by
    /// `describe()` at the file and line it was configured at. A point that is not one of the
    /// built-in points is logged as an error and the hook is left out.
    ///
    /// [`Invoke`]: crate::external::Invoke
    #[track_caller]
    pub fn external_with(
        self,
        hook: crate::external::ExternalHook,
        invoker: Arc<dyn crate::external::Invoke>,
    ) -> Self {
        use crate::external::hook::{EXTENSION, Firing};
        let at = Location::caller();
        let site = match &hook.origin.file {
            // Leaked once per configured hook, as `HookInfo` holds `&'static str`s.
            Some(file) => (
                &*Box::leak(file.display().to_string().into_boxed_str()),
                hook.origin
                    .line
                    .map_or(0, |l| u32::try_from(l).unwrap_or(u32::MAX)),
            ),
            None => (at.file(), at.line()),
        };
        let options = HookOptions::new(hook.name.clone())
            .priority(hook.priority)
            .extension(EXTENSION)
            .on_error(match hook.on_error {
                crate::external::FailurePolicy::Block => OnError::Block,
                crate::external::FailurePolicy::Pass => OnError::Pass,
                crate::external::FailurePolicy::Warn => OnError::Warn,
            });
        let firing = Firing::new(&hook);
        macro_rules! by_point {
            ($($name:literal => $point:ident),* $(,)?) => {
                match hook.point {
                    $($name => {
                        let closure: SyncClosure<points::$point> = Arc::new(move |input, cx| {
                            firing.fire::<points::$point>(&*invoker, input, cx)
                        });
                        self.add::<points::$point>(options, false, Handler::SyncClosure(closure), site)
                    })*
                    other => {
                        tracing::error!(
                            hook = hook.name,
                            "external hook `{}` ({}) is for `{other}`, which is not a built-in point; it is left out",
                            hook.name,
                            hook.origin
                        );
                        self
                    }
                }
            };
        }
        by_point!(
            "session_start" => SessionStart,
            "session_end" => SessionEnd,
            "session_reset" => SessionReset,
            "transform_user_input" => TransformUserInput,
            "before_llm_call" => BeforeLlmCall,
            "after_llm_call" => AfterLlmCall,
            "intercept_tool_call" => InterceptToolCall,
            "transform_tool_result" => TransformToolResult,
            "after_tool_call" => AfterToolCall,
            "transform_response" => TransformResponse,
            "on_stop" => OnStop,
            "before_compaction" => BeforeCompaction,
            "after_compaction" => AfterCompaction,
            "subagent_stop" => SubagentStop,
            "outbound_message" => OutboundMessage,
            "turn_end" => TurnEnded,
            "notification" => Notify,
        )
    }

    fn add<P: HookPoint>(
        mut self,
        options: HookOptions,
        is_async: bool,
        handler: Handler<P>,
        (file, line): (&'static str, u32),
    ) -> Self {
        self.order += 1;
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
            source: HookSource::Builder,
            order: self.order,
        };
        self.added.push(Added {
            info,
            point_type: TypeId::of::<P>(),
            handler: Box::new(handler),
        });
        self
    }

    /// Builds the registry; fails when two hooks on one point share a name, or when the config
    /// does not fit (a section for an unknown extension, a section that does not deserialize
    /// into its declared type, ...).
    pub fn build(mut self) -> Result<Hooks, BuildError> {
        let config = self.config.take().unwrap_or_default();
        let registry = Registry::new(self.with_config_hooks(&config, true)?);
        if let Some(error) = registry.duplicates.first() {
            return Err(error.clone());
        }
        let (plan, errors) = config::plan(&config, &registry.extensions, &registry.declared);
        if let Some(error) = errors.into_iter().next() {
            return Err(error.into());
        }
        plan.apply(&registry.extensions);
        Ok(Hooks {
            inner: Arc::new(registry),
        })
    }

    /// Builds the registry, logging (not failing on) duplicate names and config errors: what is
    /// wrong in the config is left out, as [`Hooks::global`] does.
    pub fn build_lenient(self) -> Hooks {
        self.build_reporting().0
    }

    /// [`build_lenient`](HooksBuilder::build_lenient), with the config errors it logged.
    fn build_reporting(mut self) -> (Hooks, Vec<ConfigError>) {
        let config = self.config.take().unwrap_or_default();
        let builder = match self.with_config_hooks(&config, false) {
            Ok(builder) => builder,
            Err(_) => unreachable!("a lenient build reports consent errors, it does not fail"),
        };
        let registry = Registry::new(builder);
        for error in &registry.duplicates {
            tracing::error!("{error}");
        }
        let (plan, errors) = config::plan(&config, &registry.extensions, &registry.declared);
        for error in &errors {
            tracing::error!("{error}");
        }
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
    builtin: [Box<dyn Any + Send + Sync>; points::BUILTIN_SLOTS],
    custom: RwLock<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    custom_names: RwLock<HashMap<&'static str, TypeId>>,
    duplicates: Vec<BuildError>,
    timeouts: Timeouts,
    pub(crate) stop_redo_cap: u32,
    consent: ConsentReport,
    /// The state of this registry's sessions and turns.
    pub(crate) store: Arc<crate::state::Store>,
}

impl Registry {
    fn new(builder: HooksBuilder) -> Self {
        let mut infos: Vec<HookInfo> = builder
            .registered
            .iter()
            .map(|r| registered_info(r))
            .chain(builder.added.iter().map(|a| a.info.clone()))
            .collect();
        infos.sort_by(|a, b| {
            (a.point, a.sort_key(), a.file, a.line).cmp(&(b.point, b.sort_key(), b.file, b.line))
        });
        let duplicates = find_duplicates(&infos);
        let extensions = extensions(&infos, &builder.declared);
        let (registered, added) = (builder.registered, builder.added);
        let timeouts = Timeouts {
            async_hooks: builder.async_timeout.unwrap_or(DEFAULT_ASYNC_TIMEOUT),
            observers: builder.observer_timeout.unwrap_or(DEFAULT_OBSERVER_TIMEOUT),
        };
        let builtin = builtin_chains(&registered, &added, &extensions, timeouts);
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
            stop_redo_cap: builder.stop_redo_cap.unwrap_or(DEFAULT_STOP_REDO_CAP),
            consent: builder.consent_report,
            store: crate::state::Store::new(),
        }
    }
}

/// One extension per name among the hooks and the declared config types, sorted by name.
fn extensions(infos: &[HookInfo], declared: &[Declared]) -> Vec<Arc<Extension>> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for info in infos {
        *counts.entry(&info.extension).or_default() += 1;
    }
    for d in declared {
        counts.entry(&d.extension).or_default();
    }
    counts
        .into_iter()
        .map(|(name, hooks)| Arc::new(Extension::new(name, hooks)))
        .collect()
}

/// The extension called `name`; every hook's extension is in the list.
fn extension_of(extensions: &[Arc<Extension>], name: &str) -> Arc<Extension> {
    match extensions.binary_search_by(|e| e.name().cmp(name)) {
        Ok(index) => Arc::clone(&extensions[index]),
        Err(_) => unreachable!("the registry makes an extension for every hook's"),
    }
}

/// Builds the chain of every built-in point, each at its point's slot.
fn builtin_chains(
    registered: &[&'static Registration],
    added: &[Added],
    extensions: &[Arc<Extension>],
    timeouts: Timeouts,
) -> [Box<dyn Any + Send + Sync>; points::BUILTIN_SLOTS] {
    fn put<P: HookPoint>(
        slots: &mut [Box<dyn Any + Send + Sync>],
        registered: &[&'static Registration],
        added: &[Added],
        extensions: &[Arc<Extension>],
        timeouts: Timeouts,
    ) {
        if let Some(slot) = P::BUILTIN_SLOT {
            slots[slot] = Box::new(build_chain::<P>(registered, added, extensions, timeouts));
        }
    }
    let mut slots: [Box<dyn Any + Send + Sync>; points::BUILTIN_SLOTS] =
        std::array::from_fn(|_| Box::new(()) as Box<dyn Any + Send + Sync>);
    macro_rules! put_all {
        ($($point:ident),* $(,)?) => {$( put::<points::$point>(&mut slots, registered, added, extensions, timeouts); )*};
    }
    put_all!(
        SessionStart,
        SessionEnd,
        SessionReset,
        TransformUserInput,
        BeforeLlmCall,
        AfterLlmCall,
        InterceptToolCall,
        TransformToolResult,
        AfterToolCall,
        TransformResponse,
        OnStop,
        BeforeCompaction,
        AfterCompaction,
        SubagentStop,
        OutboundMessage,
        TurnEnded,
        Notify,
    );
    slots
}

/// Builds the chain of `P` from every hook registered for it.
fn build_chain<P: HookPoint>(
    registered: &[&'static Registration],
    added: &[Added],
    extensions: &[Arc<Extension>],
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
    hooks.sort_by(|(a, _), (b, _)| {
        (a.sort_key(), a.file, a.line).cmp(&(b.sort_key(), b.file, b.line))
    });
    Chain {
        async_limit: timeouts.of::<P>(),
        entries: hooks
            .into_iter()
            .map(|(info, handler)| Entry {
                extension: extension_of(extensions, &info.extension),
                external: is_external(&info),
                name: info.name,
                on_error: info.on_error,
                handler,
            })
            .collect(),
    }
}

impl Registry {
    /// The chain of `P`, building it on first use for user-defined points.
    #[inline]
    pub(crate) fn chain<P: HookPoint>(&self) -> ChainRef<'_, P> {
        if let Some(slot) = P::BUILTIN_SLOT
            && let Some(chain) = self.builtin[slot].downcast_ref::<Chain<P>>()
        {
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
                    self.timeouts,
                )
            } else {
                tracing::error!(
                    point = P::NAME,
                    "two different point types are named `{}`; hooks of the second one never run: rename one of them",
                    P::NAME
                );
                Chain {
                    entries: Box::new([]),
                    async_limit: None,
                }
            }
        };
        let chain: Arc<dyn Any + Send + Sync> = Arc::new(chain);
        let chain = self.custom.write().entry(key).or_insert(chain).clone();
        downcast_chain(chain)
    }
}

/// `true` for an external hook: a script, a worker or an endpoint, added by
/// [`HooksBuilder::external_with`] to its own extension.
fn is_external(info: &HookInfo) -> bool {
    info.source == HookSource::Builder && &*info.extension == crate::external::hook::EXTENSION
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
        file: r.file,
        line: r.line,
        source: HookSource::Registered,
        order: 0,
    }
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

/// The global registry, and the errors of the config it was built with.
static GLOBAL: LazyLock<(Hooks, Vec<ConfigError>)> = LazyLock::new(|| {
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(std::path::PathBuf::from);
    let (config, errors) = Config::discover_lenient(std::path::Path::new("."), home.as_deref());
    global_from(HooksBuilder::new().collected(), config, errors)
});

/// Builds a registry as [`Hooks::global`] does: leniently, with `config` and the errors met
/// discovering it (each logged), and every error kept.
fn global_from(
    builder: HooksBuilder,
    config: Config,
    discovery_errors: Vec<ConfigError>,
) -> (Hooks, Vec<ConfigError>) {
    for error in &discovery_errors {
        tracing::error!("{error}");
    }
    let (hooks, errors) = builder.config(config).build_reporting();
    let mut all = discovery_errors;
    all.extend(errors);
    (hooks, all)
}

impl Hooks {
    /// The registry of every `#[register_hook]` fn linked into the program, with the config
    /// [`Config::discover`] finds (`./hookchain.yaml` over `~/.config/hookchain/hookchain.yaml`),
    /// built on first use.
    ///
    /// A hook in a library crate is collected only if that crate is linked: when nothing else
    /// of the crate is used, add `use my_hooks as _;`. [`describe`](Hooks::describe) shows what
    /// was collected.
    ///
    /// This cannot fail, so a config error does not stop the agent: what is wrong is left out (a
    /// file that does not parse, a section for an unknown extension, a section that does not fit
    /// its declared type), each error is logged with `tracing::error!`, and the first is kept
    /// for [`global_config_error`](Hooks::global_config_error). Agents that would rather stop
    /// call [`try_global`](Hooks::try_global).
    pub fn global() -> &'static Hooks {
        &GLOBAL.0
    }

    /// The global registry, or the first error of the config it was built with.
    pub fn try_global() -> Result<&'static Hooks, &'static ConfigError> {
        match GLOBAL.1.first() {
            Some(error) => Err(error),
            None => Ok(&GLOBAL.0),
        }
    }

    /// The first error of the config the global registry was built with (all were logged).
    pub fn global_config_error() -> Option<&'static ConfigError> {
        GLOBAL.1.first()
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

    /// Enables the hooks of extension `name` in every chain, on every thread, from the next hook
    /// a dispatch reaches (until [`disable_extension`](Hooks::disable_extension) or the next
    /// [`set_config`](Hooks::set_config)).
    pub fn enable_extension(&self, name: &str) -> Result<(), ExtensionError> {
        self.set_enabled(name, true)
    }

    /// Disables the hooks of extension `name`: every chain skips them, on every thread, from the
    /// next hook a dispatch reaches (until [`enable_extension`](Hooks::enable_extension) or the
    /// next [`set_config`](Hooks::set_config)).
    pub fn disable_extension(&self, name: &str) -> Result<(), ExtensionError> {
        self.set_enabled(name, false)
    }

    fn set_enabled(&self, name: &str, enabled: bool) -> Result<(), ExtensionError> {
        let Some(extension) = self.extension(name) else {
            let known: Vec<String> = self.extensions().map(|e| e.name().to_owned()).collect();
            return Err(ExtensionError::Unknown {
                name: name.to_owned(),
                suggestion: config::closest(name, known.iter().map(String::as_str))
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

    /// Replaces the config of every extension: checks `config` whole (as
    /// [`HooksBuilder::build`] does), then gives each extension its new section and `enabled`
    /// flag (`true` when its section does not say). On an error nothing changes. Safe while
    /// other threads dispatch: see [`config`](crate::config#reloading).
    pub fn set_config(&self, config: Config) -> Result<(), ConfigError> {
        if !config.external_hooks().is_empty() {
            tracing::warn!(
                "set_config reloads extension sections only: the registry's external hooks were \
                 fixed when it was built, and the {} hook(s) of the new config are not added",
                config.external_hooks().len()
            );
        }
        let _one_at_a_time = self.inner.config_lock.lock();
        let (plan, errors) = config::plan(&config, &self.inner.extensions, &self.inner.declared);
        if let Some(error) = errors.into_iter().next() {
            return Err(error);
        }
        plan.apply(&self.inner.extensions);
        Ok(())
    }

    /// What consent did with the external hooks of the config the registry was built with:
    /// which run and why, which were skipped (new, or changed since approved) and the
    /// allowlist's errors. Empty when the config had no external hooks.
    pub fn consent_report(&self) -> &ConsentReport {
        &self.inner.consent
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
        let scope = self.outside_sessions("Hooks::dispatch_async");
        self.inner.chain::<P>().dispatch(value, scope)
    }

    /// [`dispatch`](Hooks::dispatch), awaiting async hooks.
    pub async fn dispatch_async<P: HookPoint>(&self, value: P::Value) -> crate::Outcome<P::Value> {
        let scope = self.outside_sessions("Hooks::dispatch_async");
        self.inner.chain::<P>().dispatch_async(value, scope).await
    }

    fn outside_sessions(&self, via: &'static str) -> crate::chain::Scope<'static> {
        crate::chain::Scope {
            session_id: "",
            turn: 0,
            states: None,
            frame: crate::state::Frame {
                store: self.inner.store.id(),
                session: 0,
                turn: 0,
            },
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
        let collected = infos
            .iter()
            .filter(|h| h.source == HookSource::Registered)
            .count();
        writeln!(
            f,
            "{} hook(s): {} collected by #[register_hook] ({}), {} added by the builder",
            infos.len(),
            collected,
            hooks_core::backend(),
            infos.len() - collected
        )?;
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
            let enabled = self
                .hooks
                .extension(&h.extension)
                .is_none_or(Extension::is_enabled);
            writeln!(
                f,
                "{:<22} {:>8} {:<name_width$} {:<16} {:<8} {:<5} {}:{}{}",
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
                if enabled { "" } else { "  disabled" }
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
                let state = if e.is_enabled() { "" } else { ", disabled" };
                format!("{} ({hooks}{state})", e.name())
            })
            .collect();
        writeln!(f, "extensions: {}", extensions.join(", "))
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
    use hooks_core::points::InterceptToolCall;
    use hooks_core::{HookResult, ToolCall};
    use serde_json::{Value, json};

    /// What `Hooks::global()` does with a config that does not fit: builds anyway, leaves out
    /// what is wrong, keeps every error (discovery's first).
    #[test]
    fn the_global_registry_runs_without_what_is_wrong_and_keeps_the_errors() {
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
        let broken_file = ConfigError::Read {
            file: "./hookchain.yaml".into(),
            message: "denied".into(),
        };
        let config = Config::new()
            .extension("guard", json!({"plan_path": 3, "enabled": false}))
            .extension("app", json!({"enabled": false}))
            .extension("gaurd", json!({}));
        let (hooks, errors) = global_from(builder(), config, vec![broken_file.clone()]);
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "cannot read ./hookchain.yaml: denied",
                "extension `gaurd` in the config set from code: no hook belongs to this \
                 extension, did you mean `guard`?",
                "extension `guard` in the config set from code: field `plan_path`: invalid \
                 type: integer `3`, expected a string",
            ]
        );
        assert_eq!(errors[0], broken_file);
        // The section that does not fit is left out whole (`enabled: false` with it); the rest
        // of the config applies.
        let guard = hooks.extension("guard").unwrap();
        assert!(guard.is_enabled());
        assert!(guard.section().is_absent());
        assert!(!hooks.extension("app").unwrap().is_enabled());
        assert!(
            hooks
                .dispatch::<InterceptToolCall>(ToolCall::new("x", json!({})))
                .is_blocked()
        );
        // A config that fits gives no error.
        let fine = Config::new().extension("guard", json!({"plan_path": "p"}));
        let (hooks, errors) = global_from(builder(), fine, Vec::new());
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!hooks.extension("guard").unwrap().section().is_absent());
    }

    #[test]
    fn every_builtin_point_has_its_chain_in_its_slot() {
        let hooks = HooksBuilder::new().build().unwrap();
        fn check<P: HookPoint>(hooks: &Hooks) -> bool {
            matches!(hooks.inner.chain::<P>(), ChainRef::Builtin(_))
        }
        use points::*;
        let all = [
            check::<SessionStart>(&hooks),
            check::<SessionEnd>(&hooks),
            check::<SessionReset>(&hooks),
            check::<TransformUserInput>(&hooks),
            check::<BeforeLlmCall>(&hooks),
            check::<AfterLlmCall>(&hooks),
            check::<InterceptToolCall>(&hooks),
            check::<TransformToolResult>(&hooks),
            check::<AfterToolCall>(&hooks),
            check::<TransformResponse>(&hooks),
            check::<OnStop>(&hooks),
            check::<BeforeCompaction>(&hooks),
            check::<AfterCompaction>(&hooks),
            check::<SubagentStop>(&hooks),
            check::<OutboundMessage>(&hooks),
            check::<TurnEnded>(&hooks),
            check::<Notify>(&hooks),
        ];
        assert_eq!(all.len(), points::BUILTIN_SLOTS);
        assert_eq!(points::catalog().len(), points::BUILTIN_SLOTS);
        assert!(all.iter().all(|ok| *ok), "{all:?}");
    }
}
