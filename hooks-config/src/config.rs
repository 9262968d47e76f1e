//! [`Config`]: what a config holds — each extension's section and `enabled` flag, the external
//! hooks, `hooks_auto_accept`, and what was left out of the files read — and how one config is
//! put over another.
//!
//! # The rules it keeps
//!
//! - [`Config::merge`] puts one config over another as discovery does: for each extension, the
//!   keys of the config on top replace the others one at a time, its hooks are added after the
//!   others', and what a file is refused is kept as a warning (see the crate's docs, "What a
//!   project file cannot switch off").
//! - It does no I/O: files are read by `hookchain_file.rs`, `load.rs` and `discovery.rs`.

use std::fmt;

use hookchain_external::ExternalHook;
use hookchain_runtime::Sections;
use serde_json::{Map, Value};

use crate::entry::UnloadedRequired;
use crate::external_extension::ExternalExtension;
use crate::permission_rule;

/// The top-level keys of a config file.
pub(crate) const TOP_LEVEL_KEYS: [&str; 4] =
    ["extensions", "hooks", "hooks_auto_accept", "hooks_enabled"];

/// The top-level key that lets hooks run without being approved.
pub(crate) const AUTO_ACCEPT: &str = "hooks_auto_accept";

/// The top-level key of the master switch.
pub(crate) const HOOKS_ENABLED: &str = "hooks_enabled";

/// Config for a registry's extensions: each extension's section and `enabled` flag, and where
/// every key was written. Cheap to clone.
///
/// ```
/// use hookchain::config::Config;
/// use serde_json::json;
///
/// let file = Config::from_yaml_str(
///     "extensions:\n  workflow-guard:\n    plan_path: plans/plan.md\n",
///     "./hookchain.yaml",
/// )
/// .unwrap();
/// let code = Config::new().extension("workflow-guard", json!({"enabled": false}));
/// let config = file.merge(code);
/// assert_eq!(config.enabled("workflow-guard"), Some(false));
/// assert_eq!(config.section("workflow-guard").unwrap()["plan_path"], "plans/plan.md");
/// ```
#[derive(Clone, Default)]
pub struct Config {
    pub(crate) sections: Sections,
    pub(crate) files: Vec<String>,
    /// External hooks, in file order (files in the order they were put over each other).
    pub(crate) hooks: Vec<ExternalHook>,
    /// `hooks_auto_accept`, and where it was written.
    pub(crate) auto_accept: Option<(bool, String)>,
    /// What was left out of the files read, and why.
    pub(crate) warnings: Vec<String>,
    /// What was left out of other agents' files, or is not honoured as written: every session
    /// hears of each through `notification` once the config is loaded into a registry.
    pub(crate) notices: Vec<String>,
    /// The `required: true` hooks of files left out because they failed to load, and of
    /// entries that cannot be loaded: each blocks its point.
    pub(crate) unloaded_required: Vec<UnloadedRequired>,
    /// The files left out whole because they do not read or parse.
    pub(crate) left_out_files: Vec<String>,
    /// The parts of `hookchain.yaml` files a lenient read left out because they cannot be
    /// loaded (also among the warnings).
    pub(crate) left_out: Vec<String>,
    /// Claude Code's `if` rules, by the point and name of their hooks: such a hook runs only
    /// for the tool calls its rule matches.
    pub(crate) conditions: Vec<(&'static str, String, permission_rule::PermissionRule)>,
    /// The external extensions found (`NAME/EXTENSION.yaml`).
    pub(crate) external_extensions: Vec<ExternalExtension>,
    /// The extension of each hook of an external extension, by the hook's point and name
    /// (every other external hook is in the extension `external`).
    pub(crate) hook_extensions: Vec<(&'static str, String, String)>,
    /// `hooks_enabled`, and where it was written: `false` turns every extension and
    /// configured hook off but the `required` ones (the user's file only).
    pub(crate) hooks_enabled: Option<(bool, String)>,
}

impl Config {
    /// An empty config: every extension enabled, every section absent.
    pub fn new() -> Self {
        Config::default()
    }

    /// Sets keys of `extension`'s section from code, over the keys it has (`enabled`, if
    /// present, must be `true` or `false`). `section` is a JSON object, or `null` for an empty
    /// section; anything else is reported when the config is loaded into a registry.
    pub fn extension(mut self, extension: impl Into<String>, section: Value) -> Self {
        self.sections = self.sections.extension(extension, section);
        self
    }

    /// `over` put over this config: for each extension, `over`'s keys (and `enabled`) replace
    /// this config's, one key at a time.
    ///
    /// A project's file (any file but the user's own, and text given to
    /// [`from_yaml_str`](Config::from_yaml_str)) may add and configure, never switch off what
    /// the user's file or the agent's code turns on: see [the module docs](crate#what-a-project-file-cannot-switch-off).
    /// What it is refused is left out, with a warning ([`warnings`](Config::warnings)) naming its
    /// file and line and how to do it instead.
    pub fn merge(mut self, over: Config) -> Config {
        let refused = self.sections.refusals().len() + over.sections.refusals().len();
        self.sections = self.sections.merge(over.sections);
        self.files.extend(over.files);
        self.hooks.extend(over.hooks);
        self.warnings.extend(over.warnings);
        self.notices.extend(over.notices);
        self.conditions.extend(over.conditions);
        self.unloaded_required.extend(over.unloaded_required);
        self.left_out_files.extend(over.left_out_files);
        self.left_out.extend(over.left_out);
        self.external_extensions.extend(over.external_extensions);
        self.hook_extensions.extend(over.hook_extensions);
        if over.hooks_enabled.is_some() {
            self.hooks_enabled = over.hooks_enabled;
        }
        self.warnings
            .extend(self.sections.refusals()[refused..].iter().cloned());
        if over.auto_accept.is_some() {
            self.auto_accept = over.auto_accept;
        }
        self
    }

    /// The names of the extensions the config has a section for, sorted.
    pub fn extensions(&self) -> impl Iterator<Item = &str> {
        self.sections.extensions()
    }

    /// The keys of an extension's section, `enabled` excepted.
    pub fn section(&self, extension: &str) -> Option<&Map<String, Value>> {
        self.sections.section(extension)
    }

    /// What the config says of an extension's `enabled`, if anything.
    pub fn enabled(&self, extension: &str) -> Option<bool> {
        self.sections.enabled(extension)
    }

    /// The files the config was read from, in the order they were put over each other.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// The sections of the extensions, as a registry takes them
    /// ([`HooksBuilder::sections`](hookchain_runtime::HooksBuilder::sections)).
    pub fn sections(&self) -> &Sections {
        &self.sections
    }

    /// `true` when the config has no section, no external hook and no external extension.
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
            && self.hooks.is_empty()
            && self.unloaded_required.is_empty()
            && self.external_extensions.is_empty()
    }

    /// The external hooks of the config, in file order (the files in the order they were put
    /// over each other). They run once the registry's [`consent`](crate::consent) lets them.
    pub fn external_hooks(&self) -> &[ExternalHook] {
        &self.hooks
    }

    /// Adds an external hook, as if a file had configured it.
    pub fn external_hook(mut self, hook: ExternalHook) -> Self {
        self.hooks.push(hook);
        self
    }

    /// Lets (or, with `false`, stops letting) external hooks run without being approved, as
    /// `hooks_auto_accept: true` does in the user's `hookchain.yaml`.
    pub fn accept_hooks(mut self, accept: bool) -> Self {
        self.auto_accept = Some((accept, "the config set from code".to_owned()));
        self
    }

    /// `true` when the config says `hooks_auto_accept: true` (or [`accept_hooks`] was set).
    ///
    /// [`accept_hooks`]: Config::accept_hooks
    pub fn accepts_hooks(&self) -> bool {
        self.auto_accept.as_ref().is_some_and(|(accept, _)| *accept)
    }

    /// The master switch: `Some(false)` when the user's file says `hooks_enabled: false` —
    /// every extension and configured hook is off but the `required` ones, and every session
    /// hears so when it starts. A project's file has no say in it.
    pub fn hooks_enabled(&self) -> Option<bool> {
        self.hooks_enabled.as_ref().map(|(on, _)| *on)
    }

    /// Where the master switch was set (`FILE line N`), when it was.
    pub fn hooks_enabled_at(&self) -> Option<&str> {
        self.hooks_enabled.as_ref().map(|(_, at)| at.as_str())
    }

    /// What was left out of the files read (events and hook types hookchain has no use for, a
    /// project's `hooks_auto_accept`), each naming its file and line. Each was also logged
    /// with `tracing::warn!`.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The parts of `hookchain.yaml` files that [`load_lenient`](Config::load_lenient) and
    /// [`discover_lenient`](Config::discover_lenient) left out because they cannot be loaded
    /// (a hook entry, the hooks of a point, a section, a top-level key), each naming its file
    /// and line and what is wrong. They are among the [`warnings`](Config::warnings) too;
    /// `hookchain doctor` counts each as a problem.
    pub fn left_out(&self) -> &[String] {
        &self.left_out
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for name in self.sections.extensions() {
            map.entry(
                &name,
                &format_args!(
                    "enabled: {:?}, {:?}",
                    self.sections.enabled(name),
                    self.sections.section(name)
                ),
            );
        }
        for hook in &self.hooks {
            map.entry(
                &hook.name,
                &format_args!(
                    "{} {} `{}`",
                    hook.point,
                    hook.transport.kind(),
                    hook.transport.target()
                ),
            );
        }
        if let Some((accept, _)) = &self.auto_accept {
            map.entry(&AUTO_ACCEPT, accept);
        }
        map.finish()
    }
}
