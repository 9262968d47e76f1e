//! Hermes' two Python hook systems, run unchanged: **gateway hooks** (a directory with
//! `HOOK.yaml` and `handler.py`) and **plugin hooks** (a Python plugin whose `register(ctx)` calls
//! `ctx.register_hook(...)`). Hermes' third system, the shell hooks of `config.yaml`, is
//! [`hermes`](crate::hermes)'s.
//!
//! ```text
//! ~/.hermes/hooks/my-hook/HOOK.yaml      name, description, events: [agent:start, command:*]
//! ~/.hermes/hooks/my-hook/handler.py     def handle(event_type, context): ...   (or async def)
//! ~/.hermes/plugins/my-plugin/__init__.py  def register(ctx): ctx.register_hook("pre_tool_call", fn)
//! ```
//!
//! # How they run
//!
//! - **One Python interpreter per hook directory or plugin**, started at the first firing and
//!   kept: the user's `python3` runs hookchain's runner (`runner.py`, embedded in this crate and
//!   written to hookchain's cache directory, `$XDG_CACHE_HOME/hookchain` or
//!   `~/.cache/hookchain` — `HOME/.cache/hookchain` when discovery is given another home
//!   directory — never into a project), which imports `handler.py` — or the plugin as
//!   a package, so that its relative imports of sibling modules work — and answers each firing
//!   over the `process` transport's JSON lines (`hookchain::external::process`). Every point a
//!   directory hooks shares that one interpreter. `async def` handlers and callbacks are
//!   awaited, on one event loop kept for the interpreter's life.
//! - **Payloads in Hermes' form.** Each firing goes out as the payload of a Hermes shell hook
//!   ([`Dialect::Hermes`], the tables of [`wire`](hookchain_external::wire)); the runner turns
//!   it into the `(event_type, context)` of a gateway handler or the keyword arguments of a
//!   plugin callback, as Hermes builds them (tables below). Fields the agent knows and hookchain
//!   does not (`platform`, `user_id`, `chat_id`, `session_key`, `model`, `child_role`,
//!   `duration_ms`, …) are taken from the session's payload fields
//!   ([`set_payload_field`](hookchain_external::transcript::set_payload_field)) when the agent
//!   gives them, else `""` (or left out where Hermes leaves them out).
//! - **Answers as Hermes reads them.** A gateway handler's return value is discarded: gateway
//!   hooks never block, rewrite or inject. Plugin callbacks are combined as Hermes combines them
//!   and answered in Hermes' shell-hook form: on `pre_tool_call` any `{"action": "block",
//!   "message": …}` wins, then `approve` (which hookchain cannot ask a person for: it blocks, as
//!   Hermes does when approval is denied), then every `{"action": "modify", "args": …}` merged
//!   in order; on `pre_llm_call` every `{"context": …}` or non-empty string is appended to the
//!   **user message** (a rewrite of `transform_user_input`, joined with blank lines), never the
//!   system prompt.
//! - **Failures.** A handler or callback that raises answers with the file and line Python
//!   reports (the traceback's last frame): the firing fails with that message under the hook's
//!   policy, and the interpreter goes on serving. Other callbacks of the same event still run
//!   (Hermes: "logged and skipped"); a decision one of them made still applies, the error
//!   beside it as a warning. `handler.py` or the plugin failing to import (a syntax error, a
//!   missing module): every firing fails with where. A hung handler: the firing fails at its
//!   time limit (30 s, Hermes' `plugins.hook_callback_timeout` default; a plugin's comes from
//!   `plugins.hook_callback_timeout` in `~/.hermes/config.yaml` when discovered, `0` meaning
//!   hookchain's longest), the interpreter is killed and the next firing starts a new one.
//!   `python3` not on `PATH`: a warning at load naming the file and what to install, and each
//!   firing fails under the policy. The policy: **gateway hooks never block** (a failure is a
//!   warning, [`OnError::Warn`]); plugin callbacks are skipped with a warning, except
//!   `pre_tool_call`, which **fails closed** ([`OnError::Block`]) — Hermes' docs: "Timed-out or
//!   still-running `pre_tool_call` callbacks fail closed (block the tool)", and "the same
//!   applies to a callback that raises".
//! - **Waited for.** A firing waits for its handler, within the time limit: a failure reaches
//!   that firing's notice, and the events of a session reach the handler in order. Hermes'
//!   docs say gateway hooks run "without blocking the main agent pipeline"; its
//!   `HookRegistry.emit` awaits each handler in turn, and so does hookchain, one directory's
//!   handler at a time — put long work in a thread, as the docs' BOOT.md example does.
//! - **Order.** Python plugins run before shell hooks, as in Hermes: their priority is
//!   `DEFAULT_PRIORITY - 1` (49); gateway hooks and shell hooks have the default, 50.
//! - **Consent** pins, beside the command line, the runner's content and the environment that
//!   names the directory, every `*.py` file of the directory (recursively: `handler.py`, the
//!   plugin's `__init__.py` and every sibling module it may import) and its `HOOK.yaml` or
//!   `plugin.yaml`: editing any of them, or adding a module, makes the hook drifted, and it does
//!   not run until approved again (see [`consent`](crate::consent)). Hermes itself trusts the
//!   directory by placement. The runner's file is named by its hash
//!   (`hermes-runner-<hash>.py`), so a hookchain whose runner changed asks for the hooks'
//!   approval again.
//! - **Which events a plugin hooks** is read from its source without running it (nothing runs
//!   before consent): every `register_hook("EVENT", …)` with a literal name. A plugin that names
//!   an event otherwise is hooked on every plugin event hookchain delivers (its runner passes
//!   on those it registered nothing for).
//!
//! # Where they are found
//!
//! [`init`](crate::init) and the CLI's discovery (`hookchain list`, `test`, `doctor`, …) read,
//! under the user's home directory:
//!
//! - every `~/.hermes/hooks/NAME/` holding both `HOOK.yaml` and `handler.py` (Hermes'
//!   `HookRegistry.discover_and_load`), in name order; a `HOOK.yaml` that is not a mapping or
//!   has no `events` is left out with a warning, as Hermes skips it;
//! - every `~/.hermes/plugins/NAME/` holding `__init__.py` whose name (the directory's, or
//!   `plugin.yaml`'s `name`) is in `plugins.enabled` and not in `plugins.disabled` of
//!   `~/.hermes/config.yaml`: Hermes' plugins are opt-in, and so are they here. Project plugins
//!   (`./.hermes/plugins/`, which Hermes loads only with `HERMES_ENABLE_PROJECT_PLUGINS=true`),
//!   pip entry points and bundled plugins are not discovered; name a plugin directory with
//!   `--config` ([`Config::load`]) to load it.
//!
//! `--config DIR/HOOK.yaml` loads that gateway hook, `--config PLUGIN_DIR` (a directory with
//! `__init__.py`) that plugin, whether enabled or not ([`Config::load_hermes_gateway_hook`],
//! [`Config::load_hermes_plugin`]).
//!
//! # Gateway events
//!
//! Events as Hermes' Event Hooks docs list them (`website/docs/user-guide/features/hooks.md`
//! and `gateway/hooks.py` of `NousResearch/hermes-agent`); a `base:*` wildcard matches every
//! `base:` event, as Hermes' `_resolve_handlers` does.
//!
//! | event | point | context keys |
//! |---|---|---|
//! | `session:start` | `session_start` | `platform`, `user_id`, `session_id`, `session_key` (the session id when the agent gives none) |
//! | `session:end` | `session_end` | `platform`, `user_id`, `session_key` |
//! | `session:reset` | `session_reset` | `platform`, `user_id`, `session_key` |
//! | `agent:start` | `transform_user_input` | `platform`, `user_id`, `chat_id`, `thread_id`, `chat_type`, `session_id`, `message` (500 characters at most) |
//! | `agent:step` | `after_llm_call` | `platform`, `user_id`, `session_id`, `iteration` (the model call's number in the turn, from 1), `tool_names` (the tools the reply calls) |
//! | `agent:end` | `transform_response` | `agent:start`'s, and `response` (500 characters at most) |
//! | `command:*`, `command:NAME` | `slash_command` | `platform`, `user_id`, `command`, `args`; the handler gets `command:NAME` |
//! | `gateway:startup`, `session:compress`, `reaction:*`, `message:pre_route` | none | not delivered: hookchain has no gateway process, compaction by session, reactions or routing; left out with a warning |
//!
//! `agent:end`'s `message` is the turn's `agent:start` message: a hook that lists `agent:end`
//! alone is hooked on `transform_user_input` too, and its runner only remembers the message
//! there. Hermes' built-in `boot-md` (the instructions of `~/.hermes/BOOT.md` at startup) is the
//! built-in extension `boot-md` of `hookchain::guards`, off by default (`extensions: {boot-md:
//! {enabled: true}}`), which gives the file to each session as its startup context; current
//! Hermes ships it as a user hook directory instead ("Hermes does not ship a built-in BOOT.md
//! hook"), and such a directory listens to `gateway:startup`, which is not delivered.
//!
//! # Plugin hooks
//!
//! Keyword arguments as Hermes' plugin-hook catalog lists them (same docs, "Plugin Hooks", and
//! `hermes_cli/plugins.py`):
//!
//! | hook | point | keyword arguments | answer read |
//! |---|---|---|---|
//! | `pre_tool_call` | `intercept_tool_call` | `tool_name`, `args`, `task_id`, `session_id`, `tool_call_id` | `block` + `message`; `approve` (blocks); `modify` + `args` (merged) |
//! | `post_tool_call` | `after_tool_call` | `tool_name`, `args`, `result`, `task_id`, `session_id`, `tool_call_id`, `duration_ms` (when the agent gives it) | ignored |
//! | `pre_llm_call` | `transform_user_input` (once per turn) | `session_id`, `task_id`, `user_message`, `conversation_history` (the agent's, else `[]`), `is_first_turn`, `model`, `platform`, `sender_id` | `{"context": …}` or a string, appended to the user message |
//! | `post_llm_call` | `transform_response` (once per turn) | `session_id`, `task_id`, `user_message` (when the plugin also hooks `pre_llm_call`), `assistant_response`, `conversation_history`, `model`, `platform` | ignored |
//! | `on_session_start` | `session_start` | `session_id`, `model`, `platform` | ignored |
//! | `on_session_end` | `session_end` | `session_id`, `task_id`, `reason`, `completed`, `interrupted`, `model`, `platform` | ignored |
//! | `on_session_finalize`, `on_session_reset` | `session_reset` | `session_id`, `platform`, `reason`, `old_session_id`, `new_session_id` | ignored |
//! | `subagent_stop` | `subagent_stop` | `parent_session_id`, `child_session_id`, `child_role`, `child_summary`, `child_status`, `duration_ms` (the three first when the agent gives them) | ignored |
//! | `pre_gateway_dispatch` and the others | none | not delivered (hookchain has no gateway dispatch); left out with a warning naming the file and line | — |
//!
//! A plugin's other registrations (`register_tool`, `register_command`, …) are recorded and
//! ignored: only its hooks are loaded.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_core::{ConfigError, ConfigOrigin, PathSegment};
use hookchain_external::{
    CommandSpec, DEFAULT_PRIORITY, Dialect, ExternalHook, MAX_TIMEOUT, Matcher, OnError, Transport,
};
use sha2::{Digest, Sha256};
use yaml_serde::Value as Yaml;

use crate::config::Config;
use crate::entry::FileContext;
use crate::position::{yaml_key, yaml_kind};

mod files;

pub(crate) use files::pinned_files;

/// A gateway hook's manifest.
pub const HOOK_FILE: &str = "HOOK.yaml";

/// A gateway hook's code.
pub const HANDLER_FILE: &str = "handler.py";

/// A plugin's package file, which defines `register(ctx)`.
pub const PLUGIN_INIT: &str = "__init__.py";

/// The time limit of a Python hook: Hermes' `plugins.hook_callback_timeout` default.
pub const DEFAULT_PYTHON_TIMEOUT: Duration = Duration::from_secs(30);

/// The environment variable naming the directory the runner loads; consent pins the files of
/// the directory it names.
pub(crate) const DIR_ENV: &str = "HOOKCHAIN_PYTHON_DIR";

/// The runner, embedded.
const RUNNER: &str = include_str!("runner.py");

/// The gateway events hookchain delivers, with their points.
const GATEWAY_EVENTS: &[(&str, &str)] = &[
    ("session:start", "session_start"),
    ("session:end", "session_end"),
    ("session:reset", "session_reset"),
    ("agent:start", "transform_user_input"),
    ("agent:step", "after_llm_call"),
    ("agent:end", "transform_response"),
    ("command:*", "slash_command"),
];

/// The plugin hooks hookchain delivers, with their points.
const PLUGIN_HOOKS: &[(&str, &str)] = &[
    ("pre_tool_call", "intercept_tool_call"),
    ("post_tool_call", "after_tool_call"),
    ("pre_llm_call", "transform_user_input"),
    ("post_llm_call", "transform_response"),
    ("on_session_start", "session_start"),
    ("on_session_end", "session_end"),
    ("on_session_finalize", "session_reset"),
    ("on_session_reset", "session_reset"),
    ("subagent_stop", "subagent_stop"),
];

/// What kind of Python hook a directory holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Gateway,
    Plugin,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Gateway => "gateway",
            Kind::Plugin => "plugin",
        }
    }
}

impl Config {
    /// Reads a Hermes gateway hook: `path` is its `HOOK.yaml`, with `handler.py` beside it (see
    /// the [module docs](crate::hermes_python) for the events and how the handler runs).
    /// A manifest that does not parse, is not a mapping or lists no events is an error; an
    /// event hookchain does not deliver is left out with a warning naming its line.
    pub fn load_hermes_gateway_hook(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        gateway_hook(path.as_ref(), &cache_dir())
    }

    /// Reads a Hermes Python plugin: `dir` holds its `__init__.py` (and, optionally, its
    /// `plugin.yaml`), whose `register(ctx)` registers its hooks (see the
    /// [module docs](crate::hermes_python)). Its hooks run with Hermes' default time limit.
    pub fn load_hermes_plugin(dir: impl AsRef<Path>) -> Result<Config, ConfigError> {
        plugin(dir.as_ref(), DEFAULT_PYTHON_TIMEOUT, &cache_dir())
    }

    /// The user's Hermes gateway hooks (`home_dir/.hermes/hooks/*/`) and enabled Python plugins
    /// (`home_dir/.hermes/plugins/*/`, enabled in `home_dir/.hermes/config.yaml`), as a config
    /// to put over the files'. What cannot be loaded is left out with a warning every session
    /// hears (see the [module docs](crate::hermes_python)). The runner is written to the cache
    /// of that home: hookchain's cache directory for the user's own home, else
    /// `home_dir/.cache/hookchain`.
    pub fn discover_hermes_python(home_dir: Option<&Path>) -> Config {
        let mut config = Config::new();
        let Some(home) = home_dir else {
            return config;
        };
        // The runner goes to the cache of the home given: the user's own cache directory
        // (`$XDG_CACHE_HOME` honoured) for the user's home, else `home/.cache/hookchain`.
        let cache = if crate::file::home_dir().is_some_and(|own| own == home) {
            cache_dir()
        } else {
            home.join(".cache").join("hookchain")
        };
        let hermes = home.join(".hermes");
        for dir in subdirectories(&hermes.join("hooks"), &mut config) {
            let manifest = dir.join(HOOK_FILE);
            if !manifest.is_file() || !dir.join(HANDLER_FILE).is_file() {
                continue;
            }
            match gateway_hook(&manifest, &cache) {
                Ok(hook) => config = config.merge(hook),
                Err(error) => config.warn_left_out(format!(
                    "{error}: this Hermes gateway hook is left out until it is fixed"
                )),
            }
        }
        let settings = PluginSettings::read(&hermes.join("config.yaml"), &mut config);
        for dir in subdirectories(&hermes.join("plugins"), &mut config) {
            if !dir.join(PLUGIN_INIT).is_file() {
                continue;
            }
            let names = plugin_names(&dir);
            let enabled = names.iter().any(|n| settings.enabled.contains(n))
                && !names.iter().any(|n| settings.disabled.contains(n));
            if !enabled {
                tracing::debug!(
                    plugin = %dir.display(),
                    "Hermes plugin not in `plugins.enabled` of ~/.hermes/config.yaml: not loaded"
                );
                continue;
            }
            match plugin(&dir, settings.timeout, &cache) {
                Ok(hooks) => config = config.merge(hooks),
                Err(error) => config.warn_left_out(format!(
                    "{error}: this Hermes plugin is left out until it is fixed"
                )),
            }
        }
        config
    }

    /// A warning that is also said to every session.
    fn warn_left_out(&mut self, warning: String) {
        tracing::warn!("{warning}");
        self.warnings.push(warning.clone());
        self.left_out.push(warning.clone());
        self.notices.push(warning);
    }
}

/// Reads the gateway hook whose `HOOK.yaml` is `path`, the runner written under `cache`.
fn gateway_hook(path: &Path, cache: &Path) -> Result<Config, ConfigError> {
    let (source_name, text) = read(path)?;
    let dir = absolute(path.parent().unwrap_or(Path::new(".")));
    let handler = dir.join(HANDLER_FILE);
    if !handler.is_file() {
        return Err(ConfigError::Read {
            file: source_name,
            message: format!(
                "no {HANDLER_FILE} beside it: a Hermes gateway hook is a directory with \
                 {HOOK_FILE} and {HANDLER_FILE} (its `handle(event_type, context)`)"
            ),
        });
    }
    crate::load::read_agent_yaml(&text, &source_name, Dialect::Hermes, |cx, document| {
        gateway(cx, document, &dir, cache)
    })
}

/// `true` for a directory holding a Hermes plugin's `__init__.py`.
pub(crate) fn is_plugin_dir(path: &Path) -> bool {
    path.is_dir() && path.join(PLUGIN_INIT).is_file()
}

/// `true` for a Hermes gateway hook's `HOOK.yaml`.
pub(crate) fn is_gateway_manifest(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == HOOK_FILE)
}

/// Reads a gateway hook's parsed `HOOK.yaml`.
fn gateway(
    cx: &FileContext<'_>,
    document: Yaml,
    dir: &Path,
    cache: &Path,
) -> Result<Config, ConfigError> {
    let Yaml::Mapping(top) = document else {
        return Err(cx.error(
            "the file",
            &[],
            format!(
                "expected a Hermes HOOK.yaml (a mapping with `name`, `description` and \
                 `events`), found {}",
                yaml_kind(&document)
            ),
        ));
    };
    let dir_name = dir
        .file_name()
        .map_or_else(|| "hook".to_owned(), |n| n.to_string_lossy().into_owned());
    let name = match top.get("name") {
        Some(Yaml::String(name)) if !name.is_empty() => name.clone(),
        _ => dir_name,
    };
    let root = vec![PathSegment::Key("events".to_owned())];
    let events: Vec<(String, Vec<PathSegment>)> = match top.get("events") {
        Some(Yaml::Sequence(items)) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, item)| (yaml_key(item), crate::entry::at(&root, i)))
            .collect(),
        _ => {
            return Err(cx.error(
                format!("gateway hook `{name}`"),
                &root,
                "declares no `events` (a list such as `[agent:start, command:*]`); Hermes \
                 skips it, and so does hookchain",
            ));
        }
    };
    let mut config = Config {
        files: vec![cx.file.to_owned()],
        ..Config::default()
    };
    let listed: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    let events_json = serde_json::to_string(&listed).unwrap_or_else(|_| "[]".to_owned());
    let spec = match runner_spec(dir, Kind::Gateway, &name, Some(events_json), cache) {
        Ok(spec) => spec,
        Err(error) => return Err(cx.error(format!("gateway hook `{name}`"), &[], error)),
    };
    // Each delivered event once, at the line of the first event of the manifest that names it.
    let mut hooked: Vec<(&'static str, &'static str, Vec<PathSegment>)> = Vec::new();
    for (event, path) in &events {
        let matched: Vec<_> = GATEWAY_EVENTS
            .iter()
            .filter(|(delivered, _)| gateway_matches(event, delivered))
            .collect();
        if matched.is_empty() {
            config.warn_notice(format!(
                "{}: Hermes' gateway event `{event}` has no hookchain point (hookchain has no \
                 gateway process, compaction by session, reactions or message routing); \
                 `{name}` is not called for it",
                cx.place(path)
            ));
            continue;
        }
        for (delivered, point) in matched {
            if !hooked.iter().any(|(e, _, _)| e == delivered) {
                hooked.push((delivered, point, path.clone()));
            }
        }
    }
    // `agent:end` carries the turn's message, which the runner learns at `agent:start`.
    if let Some((_, _, path)) = hooked.iter().find(|(e, _, _)| *e == "agent:end")
        && !hooked.iter().any(|(e, _, _)| *e == "agent:start")
    {
        let path = path.clone();
        hooked.push(("agent:start", "transform_user_input", path));
    }
    for (event, point, path) in hooked {
        config.hooks.push(ExternalHook {
            point,
            event: event.to_owned(),
            name: format!("{}#{event}", cx.file),
            transport: Transport::Process(spec.clone()),
            matcher: Matcher::all(),
            timeout: DEFAULT_PYTHON_TIMEOUT,
            priority: DEFAULT_PRIORITY,
            on_error: OnError::Warn,
            dialect: Dialect::Hermes,
            origin: cx.hook_origin(&path),
            required: false,
        });
    }
    config.python_notice(&cx.dir().join(HANDLER_FILE));
    Ok(config)
}

/// `true` when the manifest's `event` names the delivered event `delivered`: the same, or its
/// `base:*`; a `command:NAME` names the slash commands (the runner picks the one).
fn gateway_matches(event: &str, delivered: &str) -> bool {
    if event == delivered {
        return true;
    }
    let base = |e: &str| e.split(':').next().unwrap_or("").to_owned();
    match event.strip_suffix(":*") {
        Some(prefix) => delivered.starts_with(&format!("{prefix}:")),
        None => delivered == "command:*" && base(event) == "command" && event.contains(':'),
    }
}

/// Reads a plugin directory.
fn plugin(dir: &Path, timeout: Duration, cache: &Path) -> Result<Config, ConfigError> {
    let dir = absolute(dir);
    let init = dir.join(PLUGIN_INIT);
    let source_name = init.display().to_string();
    if !init.is_file() {
        return Err(ConfigError::Read {
            file: dir.display().to_string(),
            message: format!(
                "no {PLUGIN_INIT}: a Hermes plugin is a directory with {PLUGIN_INIT} (its \
                 `register(ctx)`) and, optionally, plugin.yaml"
            ),
        });
    }
    let name = plugin_names(&dir)
        .into_iter()
        .next()
        .unwrap_or_else(|| "plugin".to_owned());
    let spec = runner_spec(&dir, Kind::Plugin, &name, None, cache).map_err(|message| {
        ConfigError::Read {
            file: source_name.clone(),
            message,
        }
    })?;
    let mut config = Config {
        files: vec![source_name.clone()],
        ..Config::default()
    };
    let scan = files::registrations(&dir);
    let mut hooked: Vec<(&'static str, &'static str, ConfigOrigin)> = Vec::new();
    let mut hook = |event: &'static str, point: &'static str, origin: ConfigOrigin| {
        if !hooked.iter().any(|(e, _, _)| *e == event) {
            hooked.push((event, point, origin));
        }
    };
    for found in &scan.literal {
        let origin = ConfigOrigin::file(found.file.display().to_string(), Some(found.line));
        match PLUGIN_HOOKS.iter().find(|(e, _)| *e == found.event) {
            Some((event, point)) => hook(event, point, origin),
            None => config.warn_notice(format!(
                "{} line {}: plugin `{name}` registers `{}`, which hookchain does not deliver \
                 (it has no gateway dispatch, kanban, streaming or API-request events); that \
                 callback never runs",
                found.file.display(),
                found.line,
                found.event
            )),
        }
    }
    if let Some(found) = &scan.computed {
        let origin = ConfigOrigin::file(found.file.display().to_string(), Some(found.line));
        for (event, point) in PLUGIN_HOOKS {
            hook(event, point, origin.clone());
        }
    }
    // `post_llm_call` carries the turn's message, which the runner learns at `pre_llm_call`.
    if let Some((_, _, origin)) = hooked.iter().find(|(e, _, _)| *e == "post_llm_call")
        && !hooked.iter().any(|(e, _, _)| *e == "pre_llm_call")
    {
        let origin = origin.clone();
        hooked.push(("pre_llm_call", "transform_user_input", origin));
    }
    for (event, point, origin) in hooked {
        config.hooks.push(ExternalHook {
            point,
            event: event.to_owned(),
            name: format!("{source_name}#{event}"),
            transport: Transport::Process(spec.clone()),
            matcher: Matcher::all(),
            timeout,
            priority: DEFAULT_PRIORITY - 1,
            on_error: if event == "pre_tool_call" {
                OnError::Block
            } else {
                OnError::Warn
            },
            dialect: Dialect::Hermes,
            origin,
            required: false,
        });
    }
    if config.hooks.is_empty() && scan.literal.is_empty() {
        config.warn_notice(format!(
            "{source_name}: plugin `{name}` registers no hook (no `register_hook(...)` in its \
             files): hookchain loads only a plugin's hooks"
        ));
    }
    config.python_notice(&init);
    Ok(config)
}

impl Config {
    /// A warning every session hears, the rest of the file loaded.
    fn warn_notice(&mut self, warning: String) {
        tracing::warn!("{warning}");
        self.warnings.push(warning.clone());
        self.notices.push(warning);
    }

    /// When `python3` is not on `PATH`: a warning naming `file` and what to install.
    fn python_notice(&mut self, file: &Path) {
        if self.hooks.is_empty() || python_on_path() {
            return;
        }
        self.warn_notice(format!(
            "{}: Hermes' Python hooks need `python3`, which is not on PATH: install Python 3 \
             (e.g. `apt install python3`, `brew install python`); until then each of its \
             firings fails under its policy",
            file.display()
        ));
    }
}

/// `true` when `python3` is an executable file of a `PATH` directory.
fn python_on_path() -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join("python3"))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// The command that runs the runner for `dir`.
fn runner_spec(
    dir: &Path,
    kind: Kind,
    name: &str,
    events: Option<String>,
    cache: &Path,
) -> Result<CommandSpec, String> {
    let runner = runner_file(cache)?;
    let mut env = BTreeMap::new();
    env.insert(DIR_ENV.to_owned(), dir.display().to_string());
    env.insert("HOOKCHAIN_PYTHON_KIND".to_owned(), kind.name().to_owned());
    env.insert("HOOKCHAIN_HERMES_NAME".to_owned(), name.to_owned());
    // Nothing is written into the user's hook directory.
    env.insert("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned());
    if let Some(events) = events {
        env.insert("HOOKCHAIN_HERMES_EVENTS".to_owned(), events);
    }
    let argv = vec![
        "python3".to_owned(),
        runner.display().to_string(),
        dir.display().to_string(),
    ];
    Ok(CommandSpec {
        display: argv.join(" "),
        argv,
        env,
        working_dir: None,
        env_clear: false,
        env_allow: Vec::new(),
    })
}

/// The runner's file in hookchain's cache directory `dir`, written there (atomically) when it
/// is missing or not the embedded one. Its name carries its hash, so that two versions of
/// hookchain never share one.
fn runner_file(dir: &Path) -> Result<PathBuf, String> {
    let digest = Sha256::digest(RUNNER.as_bytes());
    let short: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let path = dir.join(format!("hermes-runner-{short}.py"));
    if std::fs::read(&path).is_ok_and(|content| content == RUNNER.as_bytes()) {
        return Ok(path);
    }
    let fail = |e: std::io::Error| {
        format!(
            "cannot write hookchain's Python runner to {}: {e}",
            path.display()
        )
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    // One temporary file per writer, threads of one process included.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let temporary = dir.join(format!(
        ".hermes-runner-{short}.{}.{}",
        std::process::id(),
        WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::write(&temporary, RUNNER).map_err(fail)?;
    std::fs::rename(&temporary, &path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        fail(e)
    })?;
    Ok(path)
}

/// hookchain's cache directory: `$XDG_CACHE_HOME/hookchain`, else `~/.cache/hookchain`, else
/// one in the temporary directory.
fn cache_dir() -> PathBuf {
    if let Some(xdg) = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from)
        && xdg.is_absolute()
    {
        return xdg.join("hookchain");
    }
    match crate::file::home_dir() {
        Some(home) => home.join(".cache").join("hookchain"),
        None => std::env::temp_dir().join("hookchain-cache"),
    }
}

/// The names a plugin goes by: its directory's, and its `plugin.yaml`'s `name`.
fn plugin_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .into_iter()
        .collect();
    if let Ok(Some(text)) = crate::file::read_text(&dir.join("plugin.yaml"))
        && let Ok(Yaml::Mapping(top)) = yaml_serde::from_str::<Yaml>(&text)
        && let Some(Yaml::String(name)) = top.get("name")
        && !names.contains(name)
    {
        names.push(name.clone());
    }
    names
}

/// `plugins:` of `~/.hermes/config.yaml`.
struct PluginSettings {
    enabled: Vec<String>,
    disabled: Vec<String>,
    timeout: Duration,
}

impl PluginSettings {
    fn read(path: &Path, config: &mut Config) -> PluginSettings {
        let mut settings = PluginSettings {
            enabled: Vec::new(),
            disabled: Vec::new(),
            timeout: DEFAULT_PYTHON_TIMEOUT,
        };
        let top = match crate::file::read_text(path) {
            Ok(Some(text)) => match yaml_serde::from_str::<Yaml>(&text) {
                Ok(Yaml::Mapping(top)) => top,
                _ => return settings,
            },
            Ok(None) => return settings,
            Err(error) => {
                config.warn_notice(format!(
                    "{error}: Hermes' plugins (`plugins.enabled`) are not loaded"
                ));
                return settings;
            }
        };
        let Some(Yaml::Mapping(plugins)) = top.get("plugins") else {
            return settings;
        };
        let names = |key: &str| -> Vec<String> {
            match plugins.get(key) {
                Some(Yaml::Sequence(items)) => items.iter().map(yaml_key).collect(),
                _ => Vec::new(),
            }
        };
        settings.enabled = names("enabled");
        settings.disabled = names("disabled");
        if let Some(seconds) = plugins
            .get("hook_callback_timeout")
            .and_then(|v| v.as_f64())
            .filter(|s| s.is_finite() && *s >= 0.0)
        {
            settings.timeout = if seconds == 0.0 {
                MAX_TIMEOUT
            } else {
                Duration::from_secs_f64(seconds).min(MAX_TIMEOUT)
            };
        }
        settings
    }
}

/// The subdirectories of `dir`, sorted; none when it does not exist.
fn subdirectories(dir: &Path, config: &mut Config) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            config.warn_notice(format!("{}: cannot read the directory: {e}", dir.display()));
            return Vec::new();
        }
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Reads a file's text, with the name it has in messages.
fn read(path: &Path) -> Result<(String, String), ConfigError> {
    let name = path.display().to_string();
    let text = crate::file::read_text(path)?.ok_or_else(|| ConfigError::Read {
        file: name.clone(),
        message: "no such file".to_owned(),
    })?;
    Ok((name, text))
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gateway_events_match_as_hermes_resolves_them() {
        assert!(gateway_matches("agent:start", "agent:start"));
        assert!(gateway_matches("agent:*", "agent:end"));
        assert!(!gateway_matches("agent:*", "session:start"));
        assert!(gateway_matches("command:*", "command:*"));
        assert!(gateway_matches("command:model", "command:*"));
        assert!(!gateway_matches("agent", "agent:start"));
        assert!(!gateway_matches("gateway:startup", "session:start"));
    }

    #[test]
    fn every_mapped_point_is_a_point_of_the_catalog() {
        for (event, point) in GATEWAY_EVENTS.iter().chain(PLUGIN_HOOKS) {
            assert!(
                hookchain_core::points::resolve(point).is_some(),
                "{event} -> {point}"
            );
        }
    }
}
