//! Config: the `hookchain.yaml` files and config set from code — the sections of extensions
//! and the external hooks — and the other agents' config files hookchain reads.
//!
//! # The format
//!
//! ```yaml
//! extensions:
//!   workflow-guard:
//!     enabled: true          # optional; `enabled` is reserved in every section
//!     plan_path: plans/active/plan.md
//!     blocked_tools: [write_file, edit_file, apply_patch]
//!     allowed_paths: [plans/, handoff/]
//!
//! hooks:
//!   intercept_tool_call:     # a point, or another agent's name for it (PreToolUse)
//!     - command: ./hooks/guard.sh
//!       matcher: "Bash|Write"
//!       timeout: 10          # seconds: default 60, at most 600
//!       priority: 20         # default 50
//!       on_error: block      # pass (default) | block | warn
//!       required: true       # when it cannot run, its point blocks (default false)
//!
//! hooks_auto_accept: false   # the user's file only: run new hooks without asking
//! ```
//!
//! `extensions` maps an extension's name (the `extension = ".."` of its hooks) to its section.
//! The section's keys, `enabled` excepted, are what the extension's hooks read with
//! `cx.config::<T>()`; `enabled: false` disables all the extension's hooks.
//!
//! `hooks` maps a point to its external hooks: commands, long-lived worker processes and HTTP
//! endpoints, with the keys of [`native`]:
//! `command` | `process` | `url` (exactly one), `matcher`, `timeout`, `priority`, `on_error`,
//! `env`, `working_dir`, `allow_local`, `headers`, `name`, `required`. Commands are split like a shell
//! would split them and run without one. A point is named by its canonical name or by another
//! agent's name for it (`PreToolUse`); an unknown point or key is an error with file, line and
//! a "did you mean". A `command` or `process` whose program does not exist or is not
//! executable is an error when the file is loaded, never a hook that silently does nothing.
//!
//! `required: true` marks a guard that must not vanish (hookchain's own format only): when it
//! cannot run — not approved, changed since approved, unusable, switched off (its extension
//! `external` disabled by the user's file or the agent's code), or its file left out because it
//! failed to load — its point blocks with a reason naming the hook, its file and line, why, and
//! what to do ("required hook `no-force-push` (./hookchain.yaml:12) did not run: not approved —
//! run `hookchain approve no-force-push`"), and every session hears of it.
//!
//! External hooks join the compiled-in ones in the chains of their points, by priority:
//! [`DEFAULT_PRIORITY`](hookchain_external::DEFAULT_PRIORITY) (50) when they set none, so that the
//! agent's own hooks (priority 0 by default) run first. A hook without a `name` is named
//! `<file>#<n>` (`./hookchain.yaml#03`), `n` counting the file's hooks in file order and
//! zero-padded to one width per file: the registry breaks ties of priority by name, so hooks
//! of one file and one priority run in the order the file lists them. A hook given a `name`
//! sorts by that name among the hooks of its priority.
//!
//! `hooks_auto_accept: true` lets hooks run without being approved first (see
//! [`consent`]). It is honoured in the user's own file (`~/.config/hookchain/hookchain.yaml`,
//! discovered or loaded with [`Config::load`]) and in config set from code
//! ([`Config::accept_hooks`]); anywhere else — a project's `./hookchain.yaml`, any other file,
//! text given to [`Config::from_yaml_str`] — a file cannot approve its own hooks, so there it is
//! left out with a warning.
//!
//! Nothing else may stand at the top level: an unknown key is an error with a "did you mean".
//!
//! # Other agents' config files
//!
//! Hooks written for other agents run unchanged, read from their own files:
//!
//! - [`Config::load_claude_settings`]: Claude Code's `settings.json` (`hooks` by event, matcher
//!   groups, `type: command` shell lines run with `sh -c`, `type: http`); the user's own
//!   `~/.claude/settings.json` runs in the session's project directory.
//! - [`Config::load_claude_plugin`]: a Claude Code plugin's `hooks/hooks.json`, with
//!   `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA` set.
//! - [`Config::load_docker_agent`]: the `hooks:` blocks of every agent of a docker-agent agent
//!   YAML (shell lines run with `$SHELL -c`, matchers anchored as docker-agent anchors them,
//!   `tool_input_transform` and `tool_guard` ahead of `pre_tool_use`).
//! - [`Config::load_hermes`]: the `hooks:` block of a Hermes `config.yaml` (`fail_closed`,
//!   `hooks_auto_accept` in the user's own `~/.hermes/config.yaml` only).
//! - [`Config::load_starchild`]: a Starchild `shell_hooks.yaml` (`hooks:`, a list of entries with
//!   `event:`).
//!
//! [`Config::load`] tells them apart: `hooks/hooks.json` is a plugin's, any other `.json` file
//! is Claude Code settings, a YAML file with a top-level `agents:` is a docker-agent file, one
//! whose `hooks:` is a list is Starchild's, a `config.yaml` with keys of its own is Hermes', and
//! anything else is a `hookchain.yaml`. The rules of each format are in the docs of
//! [`external::claude`](crate::claude), [`external::docker_agent`](crate::docker_agent) and
//! [`external::hermes`](crate::hermes) (Hermes and Starchild), and in the table of what each
//! dialect supports, in the guide of the `hookchain` crate (`hookchain::guide::dialects`).
//! Events of those agents that hookchain has no point for, hook types it cannot run (model
//! prompts, docker-agent built-ins), and any one entry that cannot be honoured are left out
//! with a warning naming the file and line ([`Config::warnings`], also logged with
//! `tracing::warn!`, and heard by every session through `notification` once the config is
//! loaded into a registry): one entry costs that entry only, and the file's other hooks load.
//! An entry that fails closed (docker-agent's `pre_tool_use`) and cannot be loaded blocks its
//! point instead, as a `required: true` hook does.
//!
//! # Where it comes from
//!
//! [`Config::discover`] reads `~/.config/hookchain/hookchain.yaml` (global, under `$HOME`), then
//! `./hookchain.yaml` (the project, in the current directory), and puts the project over the
//! global: for each extension, the project's keys replace the global's, one key at a time (a
//! shallow merge of each section), except what the project's file may not switch off (below).
//! The hooks of both files run: the global file's, then the project's. A file that does not
//! exist is skipped.
//! [`Config::load`] reads one file, [`Config::from_yaml_str`] parses text, and [`Config::new`]
//! with [`Config::extension`] sets sections from code; [`Config::merge`] puts one config over
//! another the same way discovery does.
//!
//! # What a project file cannot switch off
//!
//! A project's file — any `hookchain.yaml` but the user's own
//! `~/.config/hookchain/hookchain.yaml`, and text given to [`Config::from_yaml_str`] — may add
//! hooks and configure extensions, never switch off what the user's file or the agent's code
//! turns on. What it is refused is not applied; a warning names its file and line, what it tried
//! to switch off and how to do it instead (in the user's own file): in [`Config::warnings`] for
//! what the merge refuses, in [`Hooks::refusals`](hookchain_runtime::Hooks::refusals) for what the
//! registry refuses, and, once loaded into a registry, in a `notification` every session hears
//! when it starts (and [`init`]'s report). Every way a file put over another could switch
//! something off, and what happens to it:
//!
//! - `enabled: false` for an extension (`extensions: {guard: {enabled: false}}`, including
//!   `external`, the extension of every configured hook, and `required`, that of
//!   [`require_hook`](hookchain_runtime::HooksBuilder::require_hook)'s stand-ins): **refused**,
//!   unless every hook of the extension was configured by that same file (what it added, it may
//!   switch off) or the user's file or code already switched it off. Decided when the config is
//!   loaded into a registry, which knows whose hooks an extension has.
//! - a key of a section set to nothing, `false`, `0`, `""`, `[]` or `{}` where the user's file or
//!   code set a value (`blocked_tools: []`): **refused**, the user's value stays. A key set to
//!   another value is configuring, and applies (`plan_path: other.md`): an extension whose
//!   settings can weaken it should read them from the user's file.
//! - a key that does not fit the extension's declared type (`blocked_tools: 3`): in a lenient
//!   build the extension runs with the section of the user's file and code, not with no section
//!   at all; a strict build fails, as for any section that does not fit.
//! - `hooks_auto_accept`: a project's file has no say in it, `true` or `false` (left out).
//! - removing or replacing hooks: a file cannot; `hooks:` only adds, and the hooks of every file
//!   run. A hook given the name of another file's hook on the same point is a second hook, not a
//!   replacement (an error of a strict build); it runs only once the user approves it, like any
//!   project hook. An `on_error` applies to the hook of its own entry only.
//! - Claude Code's `disableAllHooks: true`: switches off the hooks of its own file only.
//! - a file that does not parse: left out whole by [`init`], an error of [`Config::discover`];
//!   it never takes the user's file with it.
//!
//! The same rules hold when a registry is reloaded ([`ConfigHooksExt::set_config`]). The agent's
//! code can always switch an extension off ([`Hooks::disable_extension`](hookchain_runtime::Hooks::disable_extension)).
//! Listings say who switched an extension off: `describe()`, `hookchain list` and
//! `hookchain doctor` show `disabled by FILE:LINE` or `disabled by the agent's code`.
//!
//! # When it is checked, and what is an error
//!
//! A file's syntax, its hooks (points, keys, time limits, matchers, programs) and the shape of
//! its sections are checked when it is read. Its sections are checked against the registry
//! when it is loaded into one — by [`ConfigBuilderExt::config`] and `build`, and by
//! [`ConfigHooksExt::set_config`] at runtime — as [`hookchain_runtime::sections`] says: a section
//! for an extension no hook belongs to is an error with a "did you mean", and every type
//! declared with `extension_config!` must deserialize from its section.
//!
//! `build` and `set_config` refuse a config with any of these errors and change nothing.
//! [`init`] installs what can be loaded and returns every error: a file that does not parse
//! (or names a hook that cannot run) is left out whole — but each of its `required: true` hooks
//! that can be made out blocks its point, naming the hook, its file and line, and the error — a
//! section for an unknown extension is
//! ignored, and an extension whose section does not fit its declared type runs enabled with no
//! section. [`Hooks::global`](hookchain_runtime::Hooks::global) never reads a file.
//!
//! External hooks are put in the chains when the registry is built, once they pass
//! [`consent`]; `set_config` reloads sections and flags only, and says so in a warning when the
//! new config has hooks.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookchain_core::suggest::closest;
use hookchain_core::{ConfigError, ConfigOrigin, ConfigSource, PathSegment};
use hookchain_runtime::Sections;
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

pub mod claude;
pub mod consent;
pub mod docker_agent;
mod entry;
mod file;
pub mod hermes;
mod init;
pub mod native;
mod permission_rule;
mod position;
mod registry;
mod script;

pub use init::{Init, InitError, InitReport, init};
pub use registry::{ConfigBuilderExt, ConfigHooksExt};

use crate::entry::{FileContext, name_entries};
use crate::position::{locate, locate_json, syntax, yaml_key, yaml_kind};
use hookchain_external::{Dialect, ExternalHook};

/// The name of a config file, in the project and in `~/.config/hookchain/`.
pub const CONFIG_FILE: &str = "hookchain.yaml";

/// The top-level keys of a config file.
const TOP_LEVEL_KEYS: [&str; 3] = ["extensions", "hooks", "hooks_auto_accept"];

/// The top-level key that lets hooks run without being approved.
const AUTO_ACCEPT: &str = "hooks_auto_accept";

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
    sections: Sections,
    files: Vec<String>,
    /// External hooks, in file order (files in the order they were put over each other).
    hooks: Vec<ExternalHook>,
    /// `hooks_auto_accept`, and where it was written.
    auto_accept: Option<(bool, String)>,
    /// What was left out of the files read, and why.
    warnings: Vec<String>,
    /// What was left out of other agents' files, or is not honoured as written: every session
    /// hears of each through `notification` once the config is loaded into a registry.
    notices: Vec<String>,
    /// The `required: true` hooks of files left out because they failed to load: each blocks
    /// its point.
    unloaded_required: Vec<UnloadedRequired>,
    /// Claude Code's `if` rules, by the point and name of their hooks: such a hook runs only
    /// for the tool calls its rule matches.
    conditions: Vec<(&'static str, String, permission_rule::PermissionRule)>,
}

/// A `required: true` hook of a file that was left out because it failed to load.
#[derive(Debug, Clone)]
pub(crate) struct UnloadedRequired {
    pub(crate) point: &'static str,
    pub(crate) name: String,
    /// Why it does not run, naming the hook, its file and line, and the file's error.
    pub(crate) reason: String,
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

    /// Parses the text of a config file; `source_name` names the file in errors (e.g.
    /// `./hookchain.yaml`).
    ///
    /// `hooks_auto_accept: true` in such text is left out, with a warning: only the user's own
    /// `~/.config/hookchain/hookchain.yaml` may approve hooks.
    pub fn from_yaml_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        Config::from_yaml_trusted(text, source_name).map(|config| untrusted(config, false))
    }

    /// [`from_yaml_str`](Config::from_yaml_str), keeping `hooks_auto_accept`: for the user's
    /// own file.
    fn from_yaml_trusted(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        file::check_nesting(text, source_name)?;
        let text: Arc<str> = text.into();
        let located = Arc::clone(&text);
        let source = ConfigSource::file(source_name, move |path: &[PathSegment]| {
            locate(&located, path)
        });
        let origin = |path: &[&str]| {
            let path: Vec<PathSegment> = path
                .iter()
                .map(|k| PathSegment::Key((*k).to_owned()))
                .collect();
            source.origin(&path)
        };
        let mut document: Yaml =
            yaml_serde::from_str(&text).map_err(|e| syntax(source_name, &e))?;
        document.apply_merge().map_err(|e| ConfigError::Malformed {
            subject: "a `<<` merge key".to_owned(),
            origin: origin(&[]),
            problem: e.to_string(),
        })?;
        let mut config = Config {
            files: vec![source_name.to_owned()],
            ..Config::default()
        };
        let top = match document {
            Yaml::Null => return Ok(config),
            Yaml::Mapping(top) => top,
            other => {
                return Err(ConfigError::Malformed {
                    subject: "the config".to_owned(),
                    origin: origin(&[]),
                    problem: format!(
                        "expected a mapping with the key `extensions`, found {}",
                        yaml_kind(&other)
                    ),
                });
            }
        };
        for (key, value) in top {
            let key = yaml_key(&key);
            match key.as_str() {
                "extensions" => {}
                "hooks" => {
                    let cx = FileContext {
                        file: source_name,
                        source: &source,
                        dialect: Dialect::Hookchain,
                    };
                    let entries = native::read(&cx, value)?;
                    config.hooks = name_entries(source_name, entries);
                    continue;
                }
                AUTO_ACCEPT => {
                    match value {
                        Yaml::Bool(accept) => {
                            let at = match origin(&[AUTO_ACCEPT]) {
                                ConfigOrigin::File {
                                    path,
                                    line: Some(line),
                                } => format!("{path} line {line}"),
                                _ => source_name.to_owned(),
                            };
                            config.auto_accept = Some((accept, at));
                        }
                        Yaml::Null => {}
                        other => {
                            return Err(ConfigError::Malformed {
                                subject: format!("`{AUTO_ACCEPT}`"),
                                origin: origin(&[AUTO_ACCEPT]),
                                problem: format!(
                                    "expected `true` or `false`, found {}",
                                    yaml_kind(&other)
                                ),
                            });
                        }
                    }
                    continue;
                }
                _ => {
                    return Err(ConfigError::UnknownKey {
                        suggestion: closest(&key, TOP_LEVEL_KEYS.iter().copied())
                            .map(str::to_owned),
                        origin: origin(&[&key]),
                        key,
                    });
                }
            }
            let extensions = match value {
                Yaml::Null => continue,
                Yaml::Mapping(extensions) => extensions,
                other => {
                    return Err(ConfigError::Malformed {
                        subject: "`extensions`".to_owned(),
                        origin: origin(&["extensions"]),
                        problem: format!(
                            "expected a mapping from extension names to their sections, found {}",
                            yaml_kind(&other)
                        ),
                    });
                }
            };
            for (name, section) in extensions {
                let name = yaml_key(&name);
                let values = match section {
                    Yaml::Null => Map::new(),
                    Yaml::Mapping(section) => {
                        let mut values = Map::new();
                        for (key, value) in section {
                            let key = yaml_key(&key);
                            let value = serde_json::to_value(&value).map_err(|e| {
                                ConfigError::Malformed {
                                    subject: format!("`{key}` of extension `{name}`"),
                                    origin: origin(&["extensions", &name, &key]),
                                    problem: e.to_string(),
                                }
                            })?;
                            values.insert(key, value);
                        }
                        values
                    }
                    other => {
                        return Err(ConfigError::Malformed {
                            subject: format!("extension `{name}`"),
                            origin: origin(&["extensions", &name]),
                            problem: format!(
                                "expected a mapping of its settings, found {}",
                                yaml_kind(&other)
                            ),
                        });
                    }
                };
                config
                    .sections
                    .insert(name.clone(), values, &source, &["extensions", &name])?;
            }
        }
        Ok(config)
    }

    /// Reads one config file, of any format hookchain reads: `hooks/hooks.json` is a Claude Code
    /// plugin's hooks ([`load_claude_plugin`](Config::load_claude_plugin)), any other `.json`
    /// file is Claude Code settings
    /// ([`load_claude_settings`](Config::load_claude_settings)), a YAML file with a
    /// top-level `agents:` is a docker-agent agent file
    /// ([`load_docker_agent`](Config::load_docker_agent)), and anything else is a
    /// `hookchain.yaml`. A file that does not exist is an error.
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        if is_plugin_hooks(path.as_ref()) {
            return Config::from_claude_plugin_str(&text, &name);
        }
        if path.as_ref().extension().is_some_and(|e| e == "json") {
            return Config::from_claude_settings_str(&text, &name);
        }
        if is_docker_agent(&text) {
            return Config::from_docker_agent_str(&text, &name);
        }
        match agent_yaml(path.as_ref(), &text) {
            Some(AgentYaml::Starchild) => return Config::load_starchild(path),
            Some(AgentYaml::Hermes) => return Config::load_hermes(path),
            None => {}
        }
        let config = Config::from_yaml_trusted(&text, &name)?;
        Ok(if is_user_file(path.as_ref()) {
            config
        } else {
            untrusted(config, false)
        })
    }

    /// Reads the hooks of a Claude Code `settings.json` (see
    /// [`external::claude`](crate::claude) for how each key is read). Commands run with `sh -c` in the project
    /// directory: the directory holding `.claude/` when the file is `.claude/settings*.json`,
    /// else the current directory.
    pub fn load_claude_settings(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        Config::from_claude_settings_str(&text, &name)
    }

    /// Parses the text of a Claude Code `settings.json`; `source_name` names the file in
    /// errors and decides the project directory.
    pub fn from_claude_settings_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let text: Arc<str> = text.into();
        let located = Arc::clone(&text);
        let source = ConfigSource::file(source_name, move |path: &[PathSegment]| {
            locate_json(&located, path)
        });
        let cx = FileContext {
            file: source_name,
            source: &source,
            dialect: Dialect::ClaudeCode,
        };
        Ok(Config::of_hooks(
            source_name,
            claude::read(&cx, &text, &Default::default())?,
        ))
    }

    /// Reads the hooks of a Claude Code plugin's `hooks/hooks.json` (the format of a settings
    /// file's `hooks`, with an optional `description`), as Claude Code runs them: with
    /// `CLAUDE_PLUGIN_ROOT` set to the plugin's directory (the one holding `hooks/`) and
    /// `CLAUDE_PLUGIN_DATA` to its data directory (`~/.claude/plugins/data/<plugin>`), in the
    /// project directory (the current directory). `${CLAUDE_PLUGIN_ROOT}/hooks/x.sh` names the
    /// plugin's script, and that is the file consent pins.
    pub fn load_claude_plugin(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        Config::from_claude_plugin_str(&text, &name)
    }

    /// Parses the text of a Claude Code plugin's `hooks/hooks.json`; `source_name` is its path,
    /// which decides the plugin's directory.
    pub fn from_claude_plugin_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let text: Arc<str> = text.into();
        let located = Arc::clone(&text);
        let source = ConfigSource::file(source_name, move |path: &[PathSegment]| {
            locate_json(&located, path)
        });
        let cx = FileContext {
            file: source_name,
            source: &source,
            dialect: Dialect::ClaudeCode,
        };
        let env = claude::plugin_env(source_name);
        Ok(Config::of_hooks(
            source_name,
            claude::read(&cx, &text, &env)?,
        ))
    }

    /// Reads the `hooks:` block of a Hermes `config.yaml` (see the table of
    /// `hookchain::guide::dialects` for how each key is read): commands split like a shell would and run without one, a leading `~/`
    /// expanded, matchers a full match on the tool name, `fail_closed: true` blocking.
    /// `hooks_auto_accept: true` is honoured in the user's own `~/.hermes/config.yaml` only.
    pub fn load_hermes(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        let user = home_dir().is_some_and(|home| {
            same_file(path.as_ref(), &home.join(".hermes").join("config.yaml"))
        });
        Config::hermes(&text, &name, user)
    }

    /// Parses the text of a Hermes `config.yaml`; `source_name` names the file in errors. Its
    /// `hooks_auto_accept: true` is left out, with a warning: only the user's own file may
    /// approve hooks.
    pub fn from_hermes_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        Config::hermes(text, source_name, false)
    }

    fn hermes(text: &str, source_name: &str, user: bool) -> Result<Config, ConfigError> {
        let (loaded, accept) =
            read_agent_yaml(text, source_name, Dialect::Hermes, hermes::read_hermes)?;
        let mut config = Config::of_hooks(source_name, loaded);
        if let Some((accept, at)) = accept {
            if user || !accept {
                config.auto_accept = Some((accept, at));
            } else {
                let warning = format!(
                    "{at}: `{AUTO_ACCEPT}: true` is left out: only the user's own \
                     ~/.hermes/config.yaml (or ~/.config/hookchain/hookchain.yaml) may approve \
                     hooks (set it there, or pass --accept-hooks)"
                );
                tracing::warn!("{warning}");
                config.warnings.push(warning.clone());
                config.notices.push(warning);
            }
        }
        Ok(config)
    }

    /// Reads a Starchild `shell_hooks.yaml` (`hooks:`, a list of entries each naming its
    /// `event:`): commands split like a shell would and run without one, matchers regular
    /// expressions searched in the payload's content.
    pub fn load_starchild(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        Config::from_starchild_str(&text, &name)
    }

    /// Parses the text of a Starchild `shell_hooks.yaml`; `source_name` names the file in
    /// errors.
    pub fn from_starchild_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let loaded = read_agent_yaml(
            text,
            source_name,
            Dialect::Starchild,
            hermes::read_starchild,
        )?;
        Ok(Config::of_hooks(source_name, loaded))
    }

    /// Reads the `hooks:` blocks of every agent of a docker-agent agent YAML (see
    /// [`external::docker_agent`](crate::docker_agent)). Commands run with `sh -c`.
    pub fn load_docker_agent(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        Config::from_docker_agent_str(&text, &name)
    }

    /// Parses the text of a docker-agent agent YAML; `source_name` names the file in errors.
    pub fn from_docker_agent_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let loaded = read_agent_yaml(text, source_name, Dialect::DockerAgent, docker_agent::read)?;
        Ok(Config::of_hooks(source_name, loaded))
    }

    /// A config of the hooks of one file of another agent, with what was left out of it
    /// (logged here) and the fail-closed hooks that could not be loaded (their points block).
    fn of_hooks(source_name: &str, mut loaded: entry::Loaded) -> Config {
        for warning in &loaded.warnings {
            tracing::warn!("{warning}");
        }
        let conditions: Vec<_> = loaded
            .entries
            .iter_mut()
            .map(|entry| entry.condition.take())
            .collect();
        let hooks = name_entries(source_name, loaded.entries);
        let conditions = hooks
            .iter()
            .zip(conditions)
            .filter_map(|(hook, rule)| rule.map(|rule| (hook.point, hook.name.clone(), rule)))
            .collect();
        let config = Config {
            files: vec![source_name.to_owned()],
            hooks,
            conditions,
            notices: loaded.warnings.clone(),
            warnings: loaded.warnings,
            unloaded_required: loaded.blocked,
            ..Config::default()
        };
        loaded
            .sections
            .into_iter()
            .fold(config, |config, (name, section)| {
                config.extension(name, section)
            })
    }

    /// The config of the current directory's project over the user's: `./hookchain.yaml` over
    /// `~/.config/hookchain/hookchain.yaml` (`$HOME`). Files that do not exist are skipped; a
    /// file that does not read or parse is an error.
    pub fn discover() -> Result<Config, ConfigError> {
        Config::discover_from(Path::new("."), home_dir().as_deref())
    }

    /// [`discover`](Config::discover) with the directories given: `project_dir/hookchain.yaml`
    /// over `home_dir/.config/hookchain/hookchain.yaml` (no global file when `home_dir` is
    /// `None`).
    pub fn discover_from(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        let mut config = Config::new();
        let files = discovered_files(project_dir, home_dir);
        let project = files.len() - 1;
        for (index, path) in files.iter().enumerate() {
            if let Some(file) = load_if_present(path)? {
                config = config.merge(discovered(file, index == project));
            }
        }
        Ok(config)
    }

    /// [`discover_from`](Config::discover_from), leaving out each file that does not read or
    /// parse, with the errors.
    pub(crate) fn discover_lenient(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> (Config, Vec<ConfigError>) {
        let mut config = Config::new();
        let mut errors = Vec::new();
        let files = discovered_files(project_dir, home_dir);
        let project = files.len() - 1;
        for (index, path) in files.iter().enumerate() {
            match load_if_present(path) {
                Ok(Some(file)) => config = config.merge(discovered(file, index == project)),
                Ok(None) => {}
                Err(error) => {
                    config = config.merge(Config::left_out(path, &error));
                    errors.push(error);
                }
            }
        }
        (config, errors)
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
        self.warnings
            .extend(self.sections.refusals()[refused..].iter().cloned());
        if over.auto_accept.is_some() {
            self.auto_accept = over.auto_accept;
        }
        self
    }

    /// What is left of a `hookchain.yaml` that failed to load with `error` and is left out
    /// whole: nothing but its `required: true` hooks, each of which blocks its point with a
    /// reason naming the hook, its file and line, and the error — a guard never vanishes with
    /// its file. Found as well as the file can be read: a file that is not YAML at all, or not
    /// a `hookchain.yaml`, has none.
    pub(crate) fn left_out(path: &Path, error: &ConfigError) -> Config {
        let name = path.display().to_string();
        let Ok(Some(text)) = file::read_text(path) else {
            return Config::new();
        };
        if path.extension().is_some_and(|e| e == "json") || is_docker_agent(&text) {
            return Config::new();
        }
        let Ok(Yaml::Mapping(top)) = yaml_serde::from_str::<Yaml>(&text) else {
            return Config::new();
        };
        let Some(Yaml::Mapping(events)) = top.get("hooks") else {
            return Config::new();
        };
        // Every item of every list is an entry, numbered in file order as `name_entries` does.
        let items: Vec<(String, usize, &Yaml)> = events
            .iter()
            .flat_map(|(event, list)| {
                let event = yaml_key(event);
                let items = match list {
                    Yaml::Sequence(items) => items.iter().collect(),
                    _ => Vec::new(),
                };
                items
                    .into_iter()
                    .enumerate()
                    .map(move |(index, item)| (event.clone(), index, item))
            })
            .collect();
        let width = items.len().to_string().len().max(2);
        let mut config = Config::new();
        for (number, (event, index, item)) in items.iter().enumerate() {
            if item.get("required") != Some(&Yaml::Bool(true)) {
                continue;
            }
            let Some(point) = hookchain_core::points::resolve(event) else {
                continue;
            };
            let hook = match item.get("name").and_then(Yaml::as_str) {
                Some(hook) => hook.to_owned(),
                None => format!("{name}#{:0width$}", number + 1),
            };
            let at = [
                PathSegment::Key("hooks".to_owned()),
                PathSegment::Key(event.clone()),
                PathSegment::Index(*index),
            ];
            let at = match locate(&text, &at) {
                Some(line) => format!("{name}:{line}"),
                None => name.clone(),
            };
            config.unloaded_required.push(UnloadedRequired {
                point: point.name,
                reason: format!(
                    "required hook `{hook}` ({at}) did not run: its file was left out because \
                     it failed to load: {error}"
                ),
                name: hook,
            });
        }
        config
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

    /// `true` when the config has no section and no external hook.
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty() && self.hooks.is_empty() && self.unloaded_required.is_empty()
    }

    /// The external hooks of the config, in file order (the files in the order they were put
    /// over each other). They run once the registry's [`consent`] lets them.
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

    /// What was left out of the files read (events and hook types hookchain has no use for, a
    /// project's `hooks_auto_accept`), each naming its file and line. Each was also logged
    /// with `tracing::warn!`.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
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

/// The global file, then the project's.
fn discovered_files(project_dir: &Path, home_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(home) = home_dir {
        files.push(home.join(".config").join("hookchain").join(CONFIG_FILE));
    }
    files.push(project_dir.join(CONFIG_FILE));
    files
}

/// A discovered file: a project's file cannot let its own hooks run unapproved.
fn discovered(file: Config, is_project: bool) -> Config {
    if is_project {
        untrusted(file, true)
    } else {
        file
    }
}

/// A file that is not the user's own: its `hooks_auto_accept: true` is left out, with a warning,
/// and put over other config it may add and configure, never switch off.
fn untrusted(mut file: Config, is_project: bool) -> Config {
    file.sections = std::mem::take(&mut file.sections).restricted();
    if let Some((true, at)) = file.auto_accept.take() {
        let warning = if is_project {
            format!(
                "{at}: `{AUTO_ACCEPT}: true` is left out: a project's hookchain.yaml cannot \
                 approve its own hooks (set it in ~/.config/hookchain/hookchain.yaml, or pass \
                 --accept-hooks)"
            )
        } else {
            format!(
                "{at}: `{AUTO_ACCEPT}: true` is left out: only the user's own \
                 ~/.config/hookchain/hookchain.yaml may approve hooks (set it there, pass \
                 --accept-hooks, or call `Config::accept_hooks(true)` in code)"
            )
        };
        tracing::warn!("{warning}");
        file.warnings.push(warning);
    }
    file
}

/// `true` when `path` is the user's own `~/.config/hookchain/hookchain.yaml`.
fn is_user_file(path: &Path) -> bool {
    let Some(home) = home_dir() else {
        return false;
    };
    let user = home.join(".config").join("hookchain").join(CONFIG_FILE);
    match (std::fs::canonicalize(path), std::fs::canonicalize(user)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Reads a file's text, with the name it has in messages.
/// Reads another agent's YAML file with `read`, that agent's reader of the parsed document: the
/// nesting checked before the parser sees the text, syntax errors with their line, and every
/// value of the document locatable by its path for the reader's messages.
fn read_agent_yaml<T>(
    text: &str,
    source_name: &str,
    dialect: Dialect,
    read: impl FnOnce(&FileContext<'_>, Yaml) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    file::check_nesting(text, source_name)?;
    let text: Arc<str> = text.into();
    let located = Arc::clone(&text);
    let source = ConfigSource::file(source_name, move |path: &[PathSegment]| {
        locate(&located, path)
    });
    let document: Yaml = yaml_serde::from_str(&text).map_err(|e| syntax(source_name, &e))?;
    let cx = FileContext {
        file: source_name,
        source: &source,
        dialect,
    };
    read(&cx, document)
}

fn read(path: &Path) -> Result<(String, String), ConfigError> {
    let name = path.display().to_string();
    let text = file::read_text(path)?.ok_or_else(|| ConfigError::Read {
        file: name.clone(),
        message: "no such file".to_owned(),
    })?;
    file::check_nesting(&text, &name)?;
    Ok((name, text))
}

/// Another agent's YAML that is not a docker-agent file.
enum AgentYaml {
    Hermes,
    Starchild,
}

/// Which agent's YAML `text` is: Starchild's when its `hooks:` is a list (`- event: ...`),
/// Hermes' when the file is named `config.yaml` or `cli-config.yaml` and has a top-level key
/// that is not hookchain's; `None` for a `hookchain.yaml`.
fn agent_yaml(path: &Path, text: &str) -> Option<AgentYaml> {
    let Ok(Yaml::Mapping(top)) = yaml_serde::from_str::<Yaml>(text) else {
        return None;
    };
    if matches!(top.get("hooks"), Some(Yaml::Sequence(_))) {
        return Some(AgentYaml::Starchild);
    }
    let named = path
        .file_name()
        .is_some_and(|n| n == "config.yaml" || n == "cli-config.yaml");
    let foreign = top
        .keys()
        .any(|key| !TOP_LEVEL_KEYS.contains(&yaml_key(key).as_str()));
    (named && foreign).then_some(AgentYaml::Hermes)
}

/// `true` when `a` and `b` are the same file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// `true` for a Claude Code plugin's `hooks/hooks.json`.
fn is_plugin_hooks(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "hooks.json")
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == "hooks")
}

/// `true` for YAML whose top level has `agents:` and neither of hookchain's own keys.
fn is_docker_agent(text: &str) -> bool {
    match yaml_serde::from_str::<Yaml>(text) {
        Ok(Yaml::Mapping(top)) => {
            top.contains_key("agents") && !TOP_LEVEL_KEYS.iter().any(|key| top.contains_key(*key))
        }
        _ => false,
    }
}

fn load_if_present(path: &Path) -> Result<Option<Config>, ConfigError> {
    match file::read_text(path)? {
        Some(text) => Config::from_yaml_trusted(&text, &path.display().to_string()).map(Some),
        None => Ok(None),
    }
}

pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `init()` discovers: a file that does not parse is left out whole, with its
    /// error; the other file still applies.
    #[test]
    fn lenient_discovery_leaves_out_a_broken_file() {
        let root = tempfile::tempdir().unwrap();
        let (project, home) = (root.path().join("project"), root.path().join("home"));
        let global_dir = home.join(".config").join("hookchain");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&global_dir).unwrap();
        std::fs::write(
            global_dir.join(CONFIG_FILE),
            "extensions:\n  guard:\n    plan_path: global.md\n",
        )
        .unwrap();
        std::fs::write(project.join(CONFIG_FILE), "extensions:\n  guard: [\n").unwrap();
        let (config, errors) = Config::discover_lenient(&project, Some(&home));
        assert_eq!(config.section("guard").unwrap()["plan_path"], "global.md");
        assert_eq!(errors.len(), 1, "{errors:?}");
        let message = errors[0].to_string();
        let project_file = project.join(CONFIG_FILE).display().to_string();
        assert!(
            message.starts_with(&format!("{project_file} line 3 column 1: invalid YAML: ")),
            "{message}"
        );
    }

    #[test]
    fn closest_needs_a_close_name() {
        assert_eq!(
            closest("extentions", TOP_LEVEL_KEYS.iter().copied()),
            Some("extensions")
        );
        assert_eq!(closest("zzz", TOP_LEVEL_KEYS.iter().copied()), None);
    }
}
