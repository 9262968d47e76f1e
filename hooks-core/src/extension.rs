//! Extensions: the groups hooks are enabled, disabled and configured by.
//!
//! # What it owns
//!
//! Every hook belongs to one extension: the `extension = ".."` key of `#[register_hook]` (by
//! default the name of the package that defines the hook), or
//! `HookOptions::extension` for a hook added through the builder (by default `"app"`). The runtime
//! keeps one [`Extension`] per name. It holds
//!
//! - the extension's **enabled flag**, shared by the chain entries of all its hooks: a disabled
//!   extension's hooks are skipped by every chain, on every thread, from the next dispatch that
//!   starts (chains are never rebuilt: a dispatch compares one process-wide count of switches
//!   with the count at which its chain last found every extension enabled, and reads the flags
//!   again only when the count moved; a dispatch already under way may finish with the flags it
//!   started with);
//! - the extension's **config section** ([`ConfigSection`], in `config.rs`, which keeps the
//!   rules of reading it).
//!
//! An extension may declare the type of its section once, with [`extension_config!`]: the
//! runtime then deserializes the section into that type whenever a config is loaded, and refuses
//! the config (before any hook runs) when it does not fit. The declarations
//! ([`ConfigDeclaration`]) are collected at link time, like the hooks.
//!
//! An extension is **on by default**: its hooks run unless a config section says
//! `enabled: false` or the agent's code disables it. An extension that ships with a library and
//! should run only when asked for (a built-in guard) is **off by default**
//! (`extension_config!(NAME, Type, enabled = false)`, or `HooksBuilder::off_by_default`): its
//! hooks run only once a section says `enabled: true` or the agent's code enables it, and while
//! off it is "disabled by default" ([`Extension::disabled_by`] says `default`).
//!
//! [`extension_config!`]: crate::extension_config!

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use parking_lot::RwLock;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::{ConfigError, ConfigSection, ConfigSource};
use crate::manifest::Manifest;
use crate::project_rule::DeclaredRules;

/// How many extensions of the process are disabled (see [`Extension::any_disabled`]).
static DISABLED: AtomicUsize = AtomicUsize::new(0);

/// How many times an extension of the process was switched on or off (see
/// [`Extension::switches`]).
static SWITCHES: AtomicU64 = AtomicU64::new(0);

/// One extension of a registry: its name, its hooks' enabled flag, and its config section.
///
/// The runtime creates them; agents get them from `Hooks::extension(name)`, hooks through
/// [`HookContext::extension`](crate::HookContext::extension). A hook's test can make one to read
/// a config from:
///
/// ```
/// use hookchain::HookContext;
/// use hookchain::chain::Annotations;
/// use hookchain::registry::Extension;
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct Guard { blocked_tools: Vec<String> }
///
/// let section = serde_json::json!({"blocked_tools": ["rm"]});
/// let ext = Extension::with_config("workflow-guard", section);
/// let notes = Annotations::new();
/// let cx = HookContext::new("s", 0, "intercept_tool_call", &notes).with_extension(&ext);
/// assert_eq!(cx.config::<Guard>().unwrap().blocked_tools, ["rm"]);
/// ```
pub struct Extension {
    name: Arc<str>,
    enabled: AtomicBool,
    /// What `enabled` is when no section says: `true` unless the extension is off by default.
    enabled_by_default: bool,
    hooks: usize,
    section: RwLock<Arc<ConfigSection>>,
    /// Who disabled it, while it is disabled: a file and line, or the agent's code.
    /// Who last switched it, either way: a file and line, the agent's code, a command; `None`
    /// while it is as its default made it, with nobody's word.
    switched_by: RwLock<Option<Arc<str>>>,
    /// The names of the tools it gives the model, sorted; filled when the registry is built.
    tools: Vec<String>,
    /// The names of its slash commands, sorted.
    commands: Vec<String>,
    /// Its manifest, when it declared one (`extension!`, `HooksBuilder::manifest`).
    manifest: Option<Arc<Manifest>>,
}

impl Drop for Extension {
    fn drop(&mut self) {
        if !*self.enabled.get_mut() {
            DISABLED.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Extension {
    /// An enabled extension with `hooks` hooks and no config section.
    pub fn new(name: impl Into<Arc<str>>, hooks: usize) -> Self {
        Extension {
            name: name.into(),
            enabled: AtomicBool::new(true),
            enabled_by_default: true,
            hooks,
            section: RwLock::new(Arc::new(ConfigSection::empty())),
            switched_by: RwLock::new(None),
            tools: Vec::new(),
            commands: Vec::new(),
            manifest: None,
        }
    }

    /// The extension with `tools` as the names of the tools it gives the model; the registry
    /// sets them when it is built.
    pub fn with_tools(mut self, mut tools: Vec<String>) -> Self {
        tools.sort();
        self.tools = tools;
        self
    }

    /// The names of the tools it gives the model (`#[register_tool]` fns and
    /// `HooksBuilder::tool`), sorted; offered to the model only while it is enabled.
    pub fn tools(&self) -> Vec<String> {
        self.tools.clone()
    }

    /// The extension with `commands` as the names of its slash commands (the runtime gives them
    /// when it builds the registry).
    pub fn with_commands(mut self, mut commands: Vec<String>) -> Self {
        commands.sort();
        self.commands = commands;
        self
    }

    /// The names of its slash commands (without the `/`), sorted; empty when it has none.
    /// Whether they run follows [`is_enabled`](Extension::is_enabled), as for its hooks.
    pub fn commands(&self) -> Vec<String> {
        self.commands.clone()
    }

    /// The extension with `manifest` as its manifest.
    pub fn with_manifest(mut self, manifest: Arc<Manifest>) -> Self {
        self.manifest = Some(manifest);
        self
    }

    /// Its manifest, when it declared one (`extension!`, `HooksBuilder::manifest`).
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_deref()
    }

    /// Its version, as its manifest says; `None` without a manifest or a version in it.
    pub fn version(&self) -> Option<&str> {
        self.manifest.as_ref()?.version.as_deref()
    }

    /// What it does, as its manifest says; `None` without a manifest or a description in it.
    pub fn description(&self) -> Option<&str> {
        self.manifest.as_ref()?.description.as_deref()
    }

    /// The extensions its manifest says it depends on; empty without a manifest.
    pub fn depends_on(&self) -> &[String] {
        self.manifest.as_ref().map_or(&[], |m| &m.depends_on)
    }

    /// The points its manifest lets its hooks use (canonical names, and wildcard patterns);
    /// `None` without a manifest, or with one that does not restrict them.
    pub fn points(&self) -> Option<&[String]> {
        self.manifest.as_ref()?.points.as_deref()
    }

    /// The extension with `enabled` as its default: what it is when no section says
    /// (`false` for an extension that runs only when asked for, which then starts disabled,
    /// [`disabled_by`](Extension::disabled_by) `"default"`).
    pub fn with_default(mut self, enabled: bool) -> Self {
        self.enabled_by_default = enabled;
        if !enabled {
            self.set_enabled_by(false, DISABLED_BY_DEFAULT);
        }
        self
    }

    /// `false` for an extension that is off until a config section or the agent's code enables
    /// it; `true` for every other.
    pub fn enabled_by_default(&self) -> bool {
        self.enabled_by_default
    }

    /// An enabled extension whose section is `section`, set from code; for tests of a single
    /// hook. `enabled` is not read here.
    ///
    /// # Panics
    ///
    /// When `section` is neither a JSON object nor `null`.
    pub fn with_config(name: impl Into<Arc<str>>, section: Value) -> Self {
        let ext = Extension::new(name, 0);
        let values = match section {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => panic!(
                "the config section of extension `{}` must be a JSON object, not `{other}`",
                ext.name
            ),
        };
        ext.replace_section(Arc::new(ConfigSection::new(
            values,
            ConfigSource::code(),
            Vec::new(),
        )));
        ext
    }

    /// The extension's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `true` when its hooks run.
    #[inline(always)]
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Enables or disables its hooks, in every chain and on every thread, from the next dispatch
    /// that starts. Returns the previous state. A disabled extension is said to be disabled
    /// by "the agent's code" ([`set_enabled_by`](Extension::set_enabled_by) names another).
    pub fn set_enabled(&self, enabled: bool) -> bool {
        self.set_enabled_by(enabled, "the agent's code")
    }

    /// [`set_enabled`](Extension::set_enabled), saying who disables it (`./hookchain.yaml:7`,
    /// "the agent's code") or enables it, as listings show it
    /// ([`disabled_by`](Extension::disabled_by), [`enabled_by`](Extension::enabled_by)).
    pub fn set_enabled_by(&self, enabled: bool, who: impl Into<Arc<str>>) -> bool {
        self.switch(enabled, Some(who.into()))
    }

    /// Sets it to `enabled` with nobody's word on it, as its default leaves it: a config
    /// section that does not say `enabled`. Off, it is disabled by [`DISABLED_BY_DEFAULT`]; on,
    /// [`enabled_by`](Extension::enabled_by) is `None`.
    pub fn set_enabled_as_default(&self, enabled: bool) -> bool {
        let who = (!enabled).then(|| Arc::from(DISABLED_BY_DEFAULT));
        self.switch(enabled, who)
    }

    fn switch(&self, enabled: bool, who: Option<Arc<str>>) -> bool {
        // Who first, then the flag: a reader that sees the extension disabled finds who did it.
        *self.switched_by.write() = who;
        // The count goes up before the flag goes down, and down after the flag goes up: whenever
        // this extension reads as disabled, the count says some extension is.
        if !enabled {
            DISABLED.fetch_add(1, Ordering::SeqCst);
        }
        let was = self.enabled.swap(enabled, Ordering::SeqCst);
        if !was {
            // Enabling a disabled one, or disabling it again (whose count was added above).
            DISABLED.fetch_sub(1, Ordering::SeqCst);
        }
        // After the flag: a reader that sees this count sees the flag as it is now.
        SWITCHES.fetch_add(1, Ordering::Release);
        was
    }

    /// Moves [`switches`](Extension::switches) on, so that every chain checks again what lets it
    /// run its hooks with no check of their own: called after something else such a chain
    /// depends on changed (the runtime's tracing interest), never on a dispatch.
    #[doc(hidden)]
    pub fn note_switch() {
        SWITCHES.fetch_add(1, Ordering::Release);
    }

    /// `true` when any extension of the process is disabled. A chain that has to check its hooks
    /// one by one (see [`switches`](Extension::switches)) reads this one flag before each hook,
    /// and the hook's own extension only when it is set.
    #[doc(hidden)]
    #[inline(always)]
    pub fn any_disabled() -> bool {
        DISABLED.load(Ordering::Relaxed) != 0
    }

    /// How many times an extension of the process was enabled or disabled: a chain that saw
    /// every extension of its hooks enabled at this count knows they still are while the count
    /// has not moved, and runs its hooks with no check of their own. Read before the flags
    /// (`Acquire`): the count is moved after the flag.
    #[doc(hidden)]
    #[inline(always)]
    pub fn switches() -> u64 {
        SWITCHES.load(Ordering::Acquire)
    }

    /// Who disabled it (a file and line, "the agent's code", or `"default"` for an extension
    /// off by default that nobody enabled), while it is disabled.
    pub fn disabled_by(&self) -> Option<Arc<str>> {
        if self.is_enabled() {
            return None;
        }
        self.switched_by.read().clone()
    }

    /// Who enabled it (a file and line, "the agent's code", a command), while it is enabled
    /// because someone said so; `None` while it is on by default, with nobody's word.
    pub fn enabled_by(&self) -> Option<Arc<str>> {
        if !self.is_enabled() {
            return None;
        }
        self.switched_by.read().clone()
    }

    /// How many hooks belong to it.
    pub fn hook_count(&self) -> usize {
        self.hooks
    }

    /// Its config section deserialized as `T` (cached per type until the config changes).
    pub fn config<T>(&self) -> Result<Arc<T>, ConfigError>
    where
        T: DeserializeOwned + Send + Sync + 'static,
    {
        let section = Arc::clone(&self.section.read());
        section.get::<T>(&self.name)
    }

    /// Its current config section.
    pub fn section(&self) -> Arc<ConfigSection> {
        Arc::clone(&self.section.read())
    }

    /// Replaces its config section whole (the typed values cached from the old one go with it).
    /// The runtime calls this after validating the section; agents load config through the
    /// registry.
    pub fn replace_section(&self, section: Arc<ConfigSection>) {
        *self.section.write() = section;
    }
}

impl fmt::Debug for Extension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extension")
            .field("name", &self.name)
            .field("enabled", &self.is_enabled())
            .field("hooks", &self.hooks)
            .field("tools", &self.tools)
            .field("version", &self.version())
            .finish_non_exhaustive()
    }
}

/// What [`Extension::disabled_by`] says of an extension that is off by default and that no
/// section and no code enabled: listings read "disabled by default".
pub const DISABLED_BY_DEFAULT: &str = "default";

/// The type an extension's section deserializes into, declared with [`extension_config!`] and
/// collected at link time like the hooks, so a config that does not fit is refused when it is
/// loaded, before any hook runs.
///
/// [`extension_config!`]: crate::extension_config!
#[derive(Debug)]
pub struct ConfigDeclaration {
    /// The extension.
    pub extension: &'static str,
    /// The type, as written in the declaration.
    pub type_name: &'static str,
    /// Deserializes a section as the type (and caches it in the section).
    pub validate: fn(extension: &str, section: &ConfigSection) -> Result<(), ConfigError>,
    /// `false` for an extension off by default (`enabled = false` in the declaration): its hooks
    /// run only once a section says `enabled: true` or the agent's code enables it.
    pub enabled_by_default: bool,
    /// The project rule of each field of the type (`project_rules` in the declaration): what a
    /// project's file may do to each setting. `None`: every field keeps the rule of every
    /// setting.
    pub rules: Option<DeclaredRules>,
    /// The source file of the declaration.
    pub file: &'static str,
    /// Its line.
    pub line: u32,
}

/// Deserializes `section` as `T`; what [`extension_config!`] puts in its record.
///
/// [`extension_config!`]: crate::extension_config!
pub fn validate_config<T>(extension: &str, section: &ConfigSection) -> Result<(), ConfigError>
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    section.get::<T>(extension).map(drop)
}

#[cfg(not(feature = "linkme"))]
inventory::collect!(ConfigDeclaration);

/// Every [`extension_config!`] declaration linked into the program, in no particular order.
///
/// [`extension_config!`]: crate::extension_config!
#[cfg(not(feature = "linkme"))]
pub fn config_declarations() -> impl Iterator<Item = &'static ConfigDeclaration> {
    inventory::iter::<ConfigDeclaration>.into_iter()
}

/// Every [`extension_config!`] declaration linked into the program, in no particular order.
///
/// [`extension_config!`]: crate::extension_config!
#[cfg(feature = "linkme")]
pub fn config_declarations() -> impl Iterator<Item = &'static ConfigDeclaration> {
    CONFIG_DECLARATIONS.iter()
}

/// The linkme slice that collects `extension_config!` declarations
/// (`__private::CONFIG_DECLARATIONS` to the macros).
#[cfg(feature = "linkme")]
#[linkme::distributed_slice]
#[linkme(crate = linkme)]
pub static CONFIG_DECLARATIONS: [ConfigDeclaration];

/// Declares the type an extension's config section deserializes into.
///
/// When a config is loaded into a registry (`HooksBuilder::build`, `Hooks::set_config`,
/// `Hooks::global`), the extension's section is deserialized into the type, and a section that
/// does not fit is refused before any hook runs. Hooks read it with `cx.config::<T>()`.
///
/// With `enabled = false` the extension is **off by default**: its hooks run only once a
/// section says `enabled: true` (`extensions: {NAME: {enabled: true}}` in `hookchain.yaml`) or
/// the agent's code enables it (`Hooks::enable_extension`). A project's file may enable it — that
/// adds a guard, it switches nothing off. Built-in guards are declared this way.
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Default)]
/// #[serde(default)]
/// struct NoForcePush { branches: Vec<String> }
///
/// hookchain::extension_config!("no-force-push", NoForcePush, enabled = false);
/// ```
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct PlanCheckConfig {
///     plan_path: String,
///     #[serde(default)]
///     blocked_tools: Vec<String>,
/// }
///
/// // Not `workflow-guard`: a built-in guard's name is the guard's alone.
/// hookchain::extension_config!("plan-check", PlanCheckConfig);
/// ```
///
/// With `project_rules`, the type's [`ProjectRules`](crate::ProjectRules) say what a project's
/// file may do to each of its fields (add to a list, only lower a limit, nothing at all);
/// without, a project's file may set any field but not empty what the user's file or code set.
///
/// ```
/// use hookchain::registry::{ProjectRule, ProjectRules};
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Default)]
/// #[serde(default)]
/// struct NoForcePush { branches: Vec<String> }
///
/// impl ProjectRules for NoForcePush {
///     const PROJECT_RULES: &'static [(&'static str, ProjectRule)] =
///         &[("branches", ProjectRule::Union)];
/// }
///
/// hookchain::extension_config!("no-force-push", NoForcePush, enabled = false, project_rules);
/// ```
#[macro_export]
macro_rules! extension_config {
    (@declare $extension:literal, $ty:ty, $enabled:literal, $rules:expr) => {
        const _: () = {
            $crate::__private::submit_config! {
                $crate::ConfigDeclaration {
                    extension: $extension,
                    type_name: ::core::stringify!($ty),
                    validate: $crate::validate_config::<$ty>,
                    enabled_by_default: $enabled,
                    rules: $rules,
                    file: ::core::file!(),
                    line: ::core::line!(),
                }
            }
        };
    };
    (@rules $ty:ty) => {
        ::core::option::Option::Some($crate::DeclaredRules {
            fields: <$ty as $crate::ProjectRules>::PROJECT_RULES,
            defaults: <$ty as $crate::ProjectRules>::project_defaults,
        })
    };
    ($extension:literal, $ty:ty, enabled = $enabled:literal, project_rules $(,)?) => {
        $crate::extension_config!(@declare $extension, $ty, $enabled,
            $crate::extension_config!(@rules $ty));
    };
    ($extension:literal, $ty:ty, project_rules $(,)?) => {
        $crate::extension_config!(@declare $extension, $ty, true,
            $crate::extension_config!(@rules $ty));
    };
    ($extension:literal, $ty:ty, enabled = $enabled:literal $(,)?) => {
        $crate::extension_config!(@declare $extension, $ty, $enabled, ::core::option::Option::None);
    };
    ($extension:literal, $ty:ty $(,)?) => {
        $crate::extension_config!(@declare $extension, $ty, true, ::core::option::Option::None);
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Guard {
        plan_path: String,
        #[serde(default)]
        blocked_tools: Vec<String>,
    }

    #[test]
    fn a_section_is_deserialized_once_per_type() {
        let ext = Extension::with_config("g", json!({"plan_path": "p.md"}));
        let a = ext.config::<Guard>().unwrap();
        let b = ext.config::<Guard>().unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.plan_path, "p.md");
    }

    #[test]
    fn replacing_the_section_drops_the_cached_values() {
        let ext = Extension::with_config("g", json!({"plan_path": "a"}));
        assert_eq!(ext.config::<Guard>().unwrap().plan_path, "a");
        ext.replace_section(Arc::new(ConfigSection::new(
            [("plan_path".to_owned(), json!("b"))].into_iter().collect(),
            ConfigSource::code(),
            Vec::new(),
        )));
        assert_eq!(ext.config::<Guard>().unwrap().plan_path, "b");
    }

    #[test]
    fn an_extension_with_no_section_reads_an_empty_mapping() {
        assert_eq!(
            Extension::new("workflow-guard", 1)
                .config::<Guard>()
                .unwrap_err()
                .to_string(),
            "extension `workflow-guard` with no config section: missing field `plan_path`"
        );
    }
}
