//! Google Gemini CLI's hooks, read as Gemini CLI reads them: the `hooks` of a `settings.json`
//! (the project's `.gemini/settings.json`, the user's `~/.gemini/settings.json`, the system's
//! `/etc/gemini-cli/settings.json`) and an extension's `hooks/hooks.json`.
//!
//! ```json
//! {
//!   "hooksConfig": { "disabled": ["npm-ci"] },
//!   "hooks": {
//!     "BeforeTool": [
//!       {
//!         "matcher": "run_shell_command",
//!         "sequential": true,
//!         "hooks": [
//!           { "name": "shell-guard", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/shell_guard.sh", "timeout": 5000 }
//!         ]
//!       }
//!     ]
//!   }
//! }
//! ```
//!
//! The shape is Claude Code's, read by the same machinery ([`crate::claude`]) with Gemini CLI's
//! differences. Sources: Gemini CLI's documentation (<https://geminicli.com/docs/hooks/>,
//! `reference/`, `writing-hooks/`) and its source, `google-gemini/gemini-cli`
//! `packages/core/src/hooks/hookRunner.ts`, `hookPlanner.ts`, `hookRegistry.ts`,
//! `packages/cli/src/config/settingsSchema.ts`; the whole reference is `docs/agents/gemini.md`.
//!
//! | what | Gemini CLI | hookchain |
//! |---|---|---|
//! | files | project `.gemini/settings.json`, user `~/.gemini/settings.json`, system `/etc/gemini-cli/settings.json` (or `GEMINI_CLI_SYSTEM_SETTINGS_PATH`), an extension's `hooks/hooks.json` | the same ([`Config::discover_gemini_from`](crate::Config::discover_gemini_from): the project's, the user's, the system's, in Gemini CLI's order; an extension by [`Config::load_gemini`](crate::Config::load_gemini)); every hook of every file runs |
//! | other keys of `settings.json` | Gemini CLI's own | left alone |
//! | `hooksConfig.enabled: false` | every hook off | the file's hooks off; in the user's or the system's file, every Gemini CLI hook |
//! | `hooksConfig.disabled` | hooks switched off by `name` (else by `command`) | the same, with a warning for each; the user's and the system's list apply to every file, a project's to its own hooks only |
//! | `hooksConfig.notifications`, legacy `hooks.enabled`/`hooks.disabled`/`hooks.notifications` | display, older switches | not events: skipped |
//! | events | `SessionStart`, `SessionEnd`, `BeforeAgent`, `AfterAgent`, `BeforeModel`, `AfterModel`, `BeforeToolSelection`, `BeforeTool`, `AfterTool`, `PreCompress`, `Notification` | each a point (the table of the module `hookchain_external::wire::agents::gemini`) but `BeforeToolSelection`, which has none: its hooks are left out with a warning |
//! | group keys | `matcher`, `sequential`, `hooks` | the same; hookchain's hooks always run one after the other, each seeing the previous rewrite — `sequential: true` as Gemini CLI runs it, and for every group |
//! | handler keys | `type` (`command`), `command`, `name`, `description`, `timeout`, `env` | the same; an unknown key is ignored with a warning naming it; `name` is matched by `hooksConfig.disabled` (hookchain names the hook `<file>#<n>`, keeping the file's order) |
//! | `timeout` | **milliseconds**, default 60000 | the same, at least 1 ms, at most 600000; under 1000 ms with a warning (`gemini hooks migrate --from-claude` copies Claude Code's seconds unchanged) |
//! | shell | `bash -c COMMAND` in the session's directory | `sh -c COMMAND`, in the project of a project's file (the directory holding `.gemini/`), in the session's project for the user's, the system's and an extension's |
//! | variables | `GEMINI_PROJECT_DIR`, `GEMINI_CWD`, `CLAUDE_PROJECT_DIR` (the session's directory), `GEMINI_SESSION_ID`, `GEMINI_PLANS_DIR`; an extension's `${extensionPath}` | `GEMINI_PROJECT_DIR`, `GEMINI_CWD`, `CLAUDE_PROJECT_DIR` (the directory the hook runs in), `extensionPath` in an extension's hooks' environment (the shell expands `${extensionPath}`); `GEMINI_SESSION_ID` and `GEMINI_PLANS_DIR` are not set (the payload has `session_id`) |
//! | `matcher` | tool events: a regex searched in the name (an invalid one compared literally); lifecycle events: the source or trigger | the same rule ([`Matcher`](hookchain_external::Matcher)), on the tool name and on the source, reason, trigger or notification type |
//! | a failed hook (exit 1, a timeout) | a warning; the action goes on | [`OnError::Warn`](hookchain_external::OnError::Warn) |
//! | trust | project hooks run once the folder is trusted, and warned of when their fingerprint changes | hookchain's [consent](crate::consent), pinned to the command line and the script's content |
//!
//! One bad entry costs that entry only, with a warning naming the file and line; only a file
//! that is not JSON, or whose `hooks` is not an object, is an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_core::{ConfigError, PathSegment};
use serde::Deserialize;
use serde_json::Value;

use crate::claude::{self, Events, Place, Shape, TimeUnit, UnknownKeys};
use crate::entry::{FileContext, Loaded, at};

/// Gemini CLI's events.
const EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "Notification",
];

/// Keys of an older `hooks` object that are switches, not events.
const LEGACY_SWITCHES: &[&str] = &["enabled", "disabled", "notifications"];

/// Gemini CLI's shape of the settings format.
pub(crate) const SHAPE: Shape = Shape {
    events: EVENTS,
    group_keys: &["matcher", "sequential", "hooks"],
    hook_keys: &["type", "command", "name", "description", "timeout", "env"],
    unknown_keys: UnknownKeys::Ignore,
    types: &["command"],
    runs: &["command"],
    unit: TimeUnit::Millis,
    default_timeout: Duration::from_secs(60),
    min_timeout: Duration::from_millis(1),
    matcher_events: None,
};

/// What Gemini CLI's switches say about the hooks of other files: the names the user's and the
/// system's `hooksConfig.disabled` list, and whether they turn every hook off.
#[derive(Debug, Default, Clone)]
pub(crate) struct Switches {
    /// Hook names (or commands) switched off.
    pub(crate) disabled: Vec<String>,
    /// `Some(place)` when a file turns every hook off.
    pub(crate) hooks_off: Option<String>,
}

/// The parts of a settings file (or an extension's `hooks.json`) hookchain reads.
#[derive(Deserialize)]
struct Settings {
    #[serde(default)]
    hooks: Option<Events>,
    #[serde(default, rename = "hooksConfig")]
    hooks_config: Option<Value>,
}

/// Reads a `settings.json` or an extension's `hooks/hooks.json`; `switches` are the user's and
/// the system's, applied to this file's hooks beside its own.
pub(crate) fn read(
    cx: &FileContext<'_>,
    text: &str,
    place: &Place,
    switches: &Switches,
) -> Result<Loaded, ConfigError> {
    let settings: Settings = serde_json::from_str(text).map_err(|e| claude::syntax(cx.file, &e))?;
    let mut loaded = Loaded::default();
    let own = own_switches(cx, settings.hooks_config.as_ref(), &mut loaded.warnings)?;
    if let Some(off) = &own.hooks_off {
        loaded.warnings.push(format!(
            "{off}: `hooksConfig.enabled` is false, so none of this file's hooks runs"
        ));
        return Ok(loaded);
    }
    let events: Vec<(String, Value)> = settings
        .hooks
        .map(|e| e.0)
        .unwrap_or_default()
        .into_iter()
        .filter(|(event, _)| !LEGACY_SWITCHES.contains(&event.as_str()))
        .collect();
    let hooks_root = [PathSegment::Key("hooks".to_owned())];
    for (event, g, value) in bad_sequential(&events) {
        let path = at(&at(&at(&hooks_root, event.as_str()), g), "sequential");
        loaded.warnings.push(format!(
            "{}: `sequential` must be true or false, found {value}: ignored (hookchain runs the \
             hooks of an event one after the other)",
            cx.place(&path)
        ));
    }
    let disabled: Vec<&String> = switches.disabled.iter().chain(&own.disabled).collect();
    claude::read_events_with(&SHAPE, cx, events, place, &mut loaded, &mut |_, fields| {
        let name = fields.get("name").and_then(Value::as_str);
        let command = fields.get("command").and_then(Value::as_str);
        let key = name.or(command)?;
        disabled.iter().any(|d| d.as_str() == key).then(|| {
            format!("the hook `{key}` is switched off (`hooksConfig.disabled`), so it is left out")
        })
    });
    Ok(loaded)
}

/// The file's own `hooksConfig`: its `disabled` names and whether it is switched off.
fn own_switches(
    cx: &FileContext<'_>,
    config: Option<&Value>,
    warnings: &mut Vec<String>,
) -> Result<Switches, ConfigError> {
    let mut switches = Switches::default();
    let Some(config) = config.filter(|v| !v.is_null()) else {
        return Ok(switches);
    };
    let root = [PathSegment::Key("hooksConfig".to_owned())];
    let Value::Object(config) = config else {
        warnings.push(format!(
            "{}: `hooksConfig` must be an object, found {}: ignored",
            cx.place(&root),
            hookchain_core::json_kind(config)
        ));
        return Ok(switches);
    };
    if let Some(enabled) = config.get("enabled").filter(|v| !v.is_null()) {
        let path = at(&root, "enabled");
        if !cx.boolean("`hooksConfig.enabled`", enabled, &path)? {
            switches.hooks_off = Some(cx.place(&path));
        }
    }
    match config.get("disabled") {
        None | Some(Value::Null) => {}
        Some(Value::Array(names)) => {
            for (i, name) in names.iter().enumerate() {
                match name.as_str() {
                    Some(name) => switches.disabled.push(name.to_owned()),
                    None => warnings.push(format!(
                        "{}: an entry of `hooksConfig.disabled` must be a hook's name, found {}: \
                         ignored",
                        cx.place(&at(&at(&root, "disabled"), i)),
                        hookchain_core::json_kind(name)
                    )),
                }
            }
        }
        Some(other) => warnings.push(format!(
            "{}: `hooksConfig.disabled` must be a list of hook names, found {}: ignored",
            cx.place(&at(&root, "disabled")),
            hookchain_core::json_kind(other)
        )),
    }
    Ok(switches)
}

/// What a user's or system's `settings.json` (`text`) switches for every file (see
/// [`Switches`]); a file that does not parse switches nothing here (it is read, and its error
/// given, as a file of hooks).
pub(crate) fn switches(file: &str, text: &str) -> Switches {
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(text) else {
        return Switches::default();
    };
    let Some(Value::Object(config)) = root.get("hooksConfig") else {
        return Switches::default();
    };
    Switches {
        disabled: config
            .get("disabled")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(|n| n.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        hooks_off: (config.get("enabled") == Some(&Value::Bool(false))).then(|| file.to_owned()),
    }
}

/// The variable an extension's hooks get: `extensionPath`, the extension's directory (the one
/// holding `hooks/hooks.json`), which the shell expands in `${extensionPath}`.
pub(crate) fn extension_env(file: &str) -> BTreeMap<String, String> {
    let root = claude::plugin_root(file);
    BTreeMap::from([("extensionPath".to_owned(), root.display().to_string())])
}

/// `true` for an extension's `hooks/hooks.json`: its directory holds `gemini-extension.json`.
pub(crate) fn is_extension_hooks(path: &Path) -> bool {
    claude::plugin_hooks_root(path).is_some_and(|root| root.join("gemini-extension.json").is_file())
}

/// `true` for a `settings.json` under a `.gemini/` directory, or the system's under
/// `gemini-cli/`.
pub(crate) fn is_settings(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "settings.json")
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == ".gemini" || d == "gemini-cli")
}

/// The system's settings file: `GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else
/// `/etc/gemini-cli/settings.json` (on Unix; Gemini CLI's other systems' paths are not read).
pub(crate) fn system_settings() -> PathBuf {
    std::env::var_os("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/etc/gemini-cli/settings.json"))
}

/// The matcher groups of `hooks` whose `sequential` is something other than a boolean: the
/// event, the group's index and the value.
fn bad_sequential(events: &[(String, Value)]) -> Vec<(String, usize, Value)> {
    let mut found = Vec::new();
    for (event, groups) in events {
        let Value::Array(groups) = groups else {
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            if let Some(value) = group
                .get("sequential")
                .filter(|v| !v.is_boolean() && !v.is_null())
            {
                found.push((event.clone(), g, value.clone()));
            }
        }
    }
    found
}
