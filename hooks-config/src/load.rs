//! Reading one config file of any format hookchain reads: which format a file is in (see the
//! crate's docs, "Other agents' config files"), and the readers of other agents' files — Claude
//! Code settings and plugins, docker-agent, Hermes, Starchild and GitHub Copilot — each made a
//! [`Config`].
//!
//! # The rules it keeps
//!
//! - A file is told apart by its name and top level: a `.json` file of a `.github/hooks/` or
//!   `.copilot/hooks/` directory is GitHub Copilot's (`.github/hooks/hooks.json` included, though
//!   it has Cursor's `version`); `.codex/hooks.json`, `.codex/config.toml` and a
//!   `hooks/hooks.json` whose plugin directory holds `.codex-plugin/` are Codex's;
//!   `.gemini/settings.json`, `gemini-cli/settings.json` and a `hooks/hooks.json` beside a
//!   `gemini-extension.json` are Gemini CLI's; `.cursor/hooks.json`, and another
//!   `hooks/hooks.json` with Cursor's `version` or event names, are Cursor's
//!   ([`cursor`](crate::cursor)); another
//!   `hooks/hooks.json` is a Claude Code plugin's, any other
//!   `.json` is Claude Code settings, YAML with a top-level `agents:` (and neither of
//!   hookchain's own keys) is docker-agent's, YAML whose `hooks:` is a list is Starchild's, a
//!   `config.yaml` with keys of its own is Hermes', and anything else is a `hookchain.yaml`.
//! - What another agent's file holds that cannot be honoured is left out with a warning that
//!   every session hears of; a fail-closed entry that cannot be loaded blocks its point.
//! - Hermes' `hooks_auto_accept: true` is honoured in the user's own `~/.hermes/config.yaml`
//!   only.

use std::path::Path;
use std::sync::Arc;

use hookchain_core::{ConfigError, ConfigSource, PathSegment};
use hookchain_external::Dialect;
use hookchain_runtime::Sections;
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

use crate::config::{AUTO_ACCEPT, Config, TOP_LEVEL_KEYS};
use crate::entry::{self, FileContext, name_entries};
use crate::file::{self, home_dir};
use crate::hookchain_file::{is_user_file, untrusted};
use crate::position::{locate, locate_json, syntax, yaml_key};
use crate::{claude, codex, copilot, docker_agent, gemini, hermes};

impl Config {
    /// Reads one config file, of any format hookchain reads: a `.json` file of a
    /// `.github/hooks/` or `.copilot/hooks/` directory is GitHub Copilot's
    /// ([`load_copilot`](Config::load_copilot)), a `.codex/hooks.json`, `.codex/config.toml` or
    /// Codex plugin's `hooks/hooks.json` is Codex's ([`load_codex`](Config::load_codex)), a
    /// `.gemini/settings.json` or Gemini CLI extension's `hooks/hooks.json` is Gemini CLI's
    /// ([`load_gemini`](Config::load_gemini)), any other `hooks/hooks.json` is a Claude Code
    /// plugin's hooks ([`load_claude_plugin`](Config::load_claude_plugin)), any other `.json`
    /// file is Claude Code settings
    /// ([`load_claude_settings`](Config::load_claude_settings)), a YAML file with a
    /// top-level `agents:` is a docker-agent agent file
    /// ([`load_docker_agent`](Config::load_docker_agent)), a `.cursor/hooks.json` (or a
    /// `hooks/hooks.json` in Cursor's form) is Cursor's ([`load_cursor`](Config::load_cursor)),
    /// a `HOOK.yaml` is a Hermes gateway
    /// hook ([`load_hermes_gateway_hook`](Config::load_hermes_gateway_hook)), a directory with
    /// `__init__.py` a Hermes Python plugin ([`load_hermes_plugin`](Config::load_hermes_plugin)),
    /// and anything else is a `hookchain.yaml`. A file that does not exist is an error.
    ///
    /// A `hookchain.yaml` is read strictly: any part of it that cannot be loaded is an error
    /// (see [`load_lenient`](Config::load_lenient)). Other agents' files are read as their
    /// agents read them: a bad entry is left out with a warning.
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        Config::load_as(path.as_ref(), Config::from_yaml_trusted)
    }

    /// [`load`](Config::load), lenient as [`init`](crate::init) is: a part of a
    /// `hookchain.yaml` that cannot be loaded costs that part only, as a bad entry of another
    /// agent's file does — left out with a warning naming the file, the line and the fix
    /// ([`warnings`](Config::warnings), heard by every session through `notification`), a
    /// `required: true` hook left out blocking its point. A file that does not read, or does
    /// not parse as YAML, is an error.
    pub fn load_lenient(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        Config::load_as(path.as_ref(), Config::from_yaml_lenient)
    }

    /// Reads one file, a `hookchain.yaml` with `native`.
    fn load_as(
        path: &Path,
        native: fn(&str, &str) -> Result<Config, ConfigError>,
    ) -> Result<Config, ConfigError> {
        if crate::hermes_python::is_plugin_dir(path) {
            return Config::load_hermes_plugin(path);
        }
        if crate::hermes_python::is_gateway_manifest(path) {
            return Config::load_hermes_gateway_hook(path);
        }
        let (name, text) = read(path)?;
        // Copilot's directories first: a `.github/hooks/hooks.json` has Cursor's `version: 1`
        // and camelCase events, and is Copilot's.
        if is_copilot_hooks(path) {
            return Config::from_copilot_str(&text, &name);
        }
        // Codex's and Gemini CLI's files by their paths, before Cursor's guess from the content.
        if codex::is_codex_file(path) || codex::is_plugin_hooks(path) {
            return Config::from_codex_str(&text, &name);
        }
        if gemini::is_settings(path) || gemini::is_extension_hooks(path) {
            return Config::from_gemini_str(&text, &name);
        }
        if crate::cursor::is_cursor_path(path, &text) {
            return Config::from_cursor_str(&text, &name);
        }
        if is_plugin_hooks(path) {
            return Config::from_claude_plugin_str(&text, &name);
        }
        if path.extension().is_some_and(|e| e == "json") {
            return Config::from_claude_settings_str(&text, &name);
        }
        if is_docker_agent(&text) {
            return Config::from_docker_agent_str(&text, &name);
        }
        match agent_yaml(path, &text) {
            Some(AgentYaml::Starchild) => return Config::load_starchild(path),
            Some(AgentYaml::Hermes) => return Config::load_hermes(path),
            None => {}
        }
        let config = native(&text, &name)?;
        Ok(if is_user_file(path) {
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
        let loaded = read_agent_json(text, source_name, Dialect::ClaudeCode, |cx, text| {
            claude::read(cx, text, &Default::default())
        })?;
        Ok(Config::of_hooks(source_name, loaded))
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
        let env = claude::plugin_env(source_name);
        let loaded = read_agent_json(text, source_name, Dialect::ClaudeCode, |cx, text| {
            claude::read(cx, text, &env)
        })?;
        Ok(Config::of_hooks(source_name, loaded))
    }

    /// Reads the hooks of one of Codex's files, as Codex reads it (see
    /// [`external::codex`](crate::codex)): a `.codex/hooks.json`, the `[hooks]` of a
    /// `config.toml` (told apart by the `.toml` extension), or a plugin's `hooks/hooks.json`
    /// (its directory holds `.codex-plugin/`; its hooks get `PLUGIN_ROOT` and the other plugin
    /// variables). Codex's hooks fail open: a hook that fails, or whose answer Codex would
    /// reject, is a warning and the action goes on.
    pub fn load_codex(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        Config::from_codex_str(&text, &name)
    }

    /// Parses the text of one of Codex's files; `source_name` is its path, which says which
    /// file it is (`.toml`: a `config.toml`; a plugin's `hooks/hooks.json`; else a layer's
    /// `hooks.json`) and decides where its hooks run.
    pub fn from_codex_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        Config::codex(text, source_name, None, &codex::UserState::default())
    }

    /// [`from_codex_str`](Config::from_codex_str) with what the user's `config.toml` switched
    /// off; `user` says whether the file is the user's own layer (`None`: as its path says).
    pub(crate) fn codex(
        text: &str,
        source_name: &str,
        user: Option<bool>,
        state: &codex::UserState,
    ) -> Result<Config, ConfigError> {
        let path = Path::new(source_name);
        let toml = path.extension().is_some_and(|e| e == "toml");
        let text: Arc<str> = text.into();
        let located = Arc::clone(&text);
        let source = if toml {
            ConfigSource::file(source_name, move |at: &[PathSegment]| {
                codex::locate_toml(&located, at)
            })
        } else {
            ConfigSource::file(source_name, move |at: &[PathSegment]| {
                locate_json(&located, at)
            })
        };
        let cx = FileContext {
            file: source_name,
            source: &source,
            dialect: Dialect::Codex,
        };
        let plugin = codex::is_plugin_hooks(path);
        let env = if plugin {
            codex::plugin_env(source_name)
        } else {
            Default::default()
        };
        let mut place = claude::Place::of(source_name, ".codex", env);
        if plugin || user == Some(true) {
            // The user's own hooks and a plugin's run in the session's project.
            place.working_dir = None;
            place.project_dir = hookchain_core::project::decide(None);
        }
        let loaded = if toml {
            codex::read_toml(&cx, &text, &place, state)?
        } else {
            codex::read_json(&cx, &text, &place, state)?
        };
        Ok(Config::of_hooks(source_name, loaded))
    }

    /// Reads the hooks of one of Gemini CLI's files, as Gemini CLI reads it (see
    /// [`external::gemini`](crate::gemini)): a `settings.json` (`.gemini/settings.json`, the
    /// user's or the system's: its `hooks` and `hooksConfig`, every other key left alone) or an
    /// extension's `hooks/hooks.json` (its directory holds `gemini-extension.json`; its hooks
    /// get `extensionPath`). Timeouts are milliseconds. Gemini CLI's hooks fail open: a hook
    /// that fails is a warning and the action goes on.
    pub fn load_gemini(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        Config::from_gemini_str(&text, &name)
    }

    /// Parses the text of one of Gemini CLI's files; `source_name` is its path, which says
    /// whether it is an extension's `hooks/hooks.json` and decides where its hooks run.
    pub fn from_gemini_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        Config::gemini(text, source_name, None, &gemini::Switches::default())
    }

    /// [`from_gemini_str`](Config::from_gemini_str) with the user's and the system's switches;
    /// `user` says whether the file is the user's or the system's (`None`: as its path says).
    pub(crate) fn gemini(
        text: &str,
        source_name: &str,
        user: Option<bool>,
        switches: &gemini::Switches,
    ) -> Result<Config, ConfigError> {
        let path = Path::new(source_name);
        let extension = gemini::is_extension_hooks(path);
        let env = if extension {
            gemini::extension_env(source_name)
        } else {
            Default::default()
        };
        let mut place = claude::Place::of(source_name, ".gemini", env);
        if extension || user == Some(true) {
            // The user's, the system's and an extension's hooks run in the session's project.
            place.working_dir = None;
            place.project_dir = hookchain_core::project::decide(None);
        }
        let loaded = read_agent_json(text, source_name, Dialect::Gemini, |cx, text| {
            gemini::read(cx, text, &place, switches)
        })?;
        Ok(Config::of_hooks(source_name, loaded))
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
    pub(crate) fn of_hooks(source_name: &str, mut loaded: entry::Loaded) -> Config {
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
        config.with_implied_sections(loaded.sections, loaded.source.as_ref())
    }

    /// `self` with the sections a file implies (docker-agent's `type: builtin` entries that
    /// enable a built-in guard or injector), each key said to be written by the entry that
    /// implies it, and held to the project rule as a project's file is: an agent file in a
    /// repository may enable a guard and tighten it, never loosen what the user's file, the
    /// agent's code or the guard's defaults set, nor have an injector read outside the project.
    /// A section that cannot be put in is left out with a warning.
    fn with_implied_sections(
        mut self,
        sections: Vec<(String, Value, Vec<PathSegment>)>,
        source: Option<&ConfigSource>,
    ) -> Config {
        let Some(source) = source else {
            return sections
                .into_iter()
                .fold(self, |config, (name, section, _)| {
                    config.extension(name, section)
                });
        };
        let mut implied = Sections::new();
        for (name, section, at) in sections {
            let mut values = match section {
                Value::Object(values) => values,
                _ => Map::new(),
            };
            // An entry asks to turn a guard on: what its reader fills in to switch a part off or
            // leave it as the default (`turn_start: false`, `tools: []`, a `project_dir` of
            // none) is not the file's to say, and is left to the user's file and the defaults.
            values.retain(|key, value| {
                key != "project_dir"
                    && !matches!(value, Value::Null | Value::Bool(false))
                    && !matches!(value, Value::Array(items) if items.is_empty())
            });
            if let Err(error) = implied.insert_implied(name, values, source, &at) {
                let warning = format!("{error}: the builtin is left out");
                tracing::warn!("{warning}");
                self.notices.push(warning.clone());
                self.warnings.push(warning);
            }
        }
        self.sections = std::mem::take(&mut self.sections).merge(implied.restricted());
        self
    }
}

/// Reads another agent's YAML file with `read`, that agent's reader of the parsed document: the
/// nesting checked before the parser sees the text, syntax errors with their line, and every
/// value of the document locatable by its path for the reader's messages.
pub(crate) fn read_agent_yaml<T>(
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

/// Reads an agent's JSON hooks file with `read`, that agent's reader of the text: every value of
/// the file locatable by its path for the reader's messages.
pub(crate) fn read_agent_json<T>(
    text: &str,
    source_name: &str,
    dialect: Dialect,
    read: impl FnOnce(&FileContext<'_>, &str) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    let text: Arc<str> = text.into();
    let located = Arc::clone(&text);
    let source = ConfigSource::file(source_name, move |path: &[PathSegment]| {
        locate_json(&located, path)
    });
    let cx = FileContext {
        file: source_name,
        source: &source,
        dialect,
    };
    read(&cx, &text)
}

/// Reads a file's text, with the name it has in messages.
pub(crate) fn read(path: &Path) -> Result<(String, String), ConfigError> {
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
/// Hermes' when the file is named `config.yaml` or `cli-config.yaml` and either sits in a
/// `.hermes` directory (Hermes' home, whatever keys the file holds: the docs' own snippet has
/// `hooks:` alone) or has a top-level key that is not hookchain's; `None` for a
/// `hookchain.yaml`.
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
    let in_hermes_home = absolute(path)
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == ".hermes");
    let foreign = top
        .keys()
        .any(|key| !TOP_LEVEL_KEYS.contains(&yaml_key(key).as_str()));
    (named && (in_hermes_home || foreign)).then_some(AgentYaml::Hermes)
}

/// `path` made absolute (as it is when it cannot be).
fn absolute(path: &Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `true` when `a` and `b` are the same file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// `true` for a Copilot hooks file: a `.json` file in `.github/hooks/` or `.copilot/hooks/`.
fn is_copilot_hooks(path: &Path) -> bool {
    let dir = path.parent();
    path.extension().is_some_and(|e| e == "json")
        && dir.and_then(Path::file_name).is_some_and(|d| d == "hooks")
        && dir
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .is_some_and(|d| d == ".github" || d == ".copilot")
}

/// `true` for a Claude Code plugin's `hooks/hooks.json`.
fn is_plugin_hooks(path: &Path) -> bool {
    claude::plugin_hooks_root(path).is_some()
}

/// `true` for YAML whose top level has `agents:` and neither of hookchain's own keys.
pub(crate) fn is_docker_agent(text: &str) -> bool {
    match yaml_serde::from_str::<Yaml>(text) {
        Ok(Yaml::Mapping(top)) => {
            top.contains_key("agents") && !TOP_LEVEL_KEYS.iter().any(|key| top.contains_key(*key))
        }
        _ => false,
    }
}

/// GitHub Copilot's hook files (see [`external::copilot`](crate::copilot) for how each key is
/// read).
impl Config {
    /// Reads a Copilot hooks file (`.github/hooks/NAME.json`, `~/.copilot/hooks/NAME.json`):
    /// `bash` commands run with `bash -c` in the repository root (the directory holding
    /// `.github/`) or their `cwd`, `timeoutSec` in seconds (default 30), camelCase events in
    /// Copilot's protocol and PascalCase ones (the VS Code compatible form) in Claude Code's.
    pub fn load_copilot(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = read(path.as_ref())?;
        Config::from_copilot_str(&text, &name)
    }

    /// Parses the text of a Copilot hooks file; `source_name` is its path, which decides the
    /// repository root its hooks run in.
    pub fn from_copilot_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let loaded = read_agent_json(text, source_name, Dialect::Copilot, copilot::read)?;
        Ok(Config::of_hooks(source_name, loaded))
    }

    /// Every hooks file Copilot loads, in its order: the `*.json` files of
    /// `home_dir/.copilot/hooks/` (none when `home_dir` is `None`), then those of
    /// `project_dir/.github/hooks/`, each directory in file-name order. The project's files are
    /// untrusted, as a project's `hookchain.yaml` is. A directory that does not exist is
    /// skipped; a file that does not read or parse is an error.
    pub fn discover_copilot_from(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        let mut config = Config::new();
        let mut dirs = Vec::new();
        if let Some(home) = home_dir {
            dirs.push((home.join(".copilot").join("hooks"), false));
        }
        dirs.push((project_dir.join(".github").join("hooks"), true));
        for (dir, is_project) in dirs {
            for path in json_files(&dir)? {
                let file = Config::load_copilot(&path)?;
                config = config.merge(if is_project {
                    untrusted(file, true)
                } else {
                    file
                });
            }
        }
        Ok(config)
    }
}

/// The `*.json` files of `dir`, in name order; none when `dir` does not exist.
fn json_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, ConfigError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(ConfigError::Read {
                file: dir.display().to_string(),
                message: e.to_string(),
            });
        }
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json") && path.is_file())
        .collect();
    files.sort();
    Ok(files)
}
