//! OpenAI Codex's hooks, read as Codex reads them: `.codex/hooks.json`, the `[hooks]` table of
//! `.codex/config.toml` (the user's under `~/.codex/`, and the project's), and a plugin's
//! `hooks/hooks.json`.
//!
//! ```json
//! {
//!   "description": "Repository guards",
//!   "hooks": {
//!     "PreToolUse": [
//!       { "matcher": "Bash", "hooks": [{ "type": "command", "command": ".codex/hooks/deny_rm.sh", "timeout": 10 }] }
//!     ]
//!   }
//! }
//! ```
//!
//! ```toml
//! [[hooks.PreToolUse]]
//! matcher = "^Bash$"
//!
//! [[hooks.PreToolUse.hooks]]
//! type = "command"
//! command = ".codex/hooks/block_force_push.sh"
//! timeout = 10
//! ```
//!
//! The shape is Claude Code's (`hooks` by event, matcher groups, hook objects), read by the
//! same machinery ([`crate::claude`]) with Codex's differences. Sources: Codex's documentation
//! (<https://developers.openai.com/codex/hooks>) and its source, `openai/codex`
//! `codex-rs/hooks/src/engine/discovery.rs`, `command_runner.rs`, `events/common.rs`; the
//! whole reference is `docs/agents/codex.md`.
//!
//! | what | Codex | hookchain |
//! |---|---|---|
//! | files | `~/.codex/hooks.json`, `~/.codex/config.toml`, `<project>/.codex/hooks.json`, `<project>/.codex/config.toml`, a plugin's `hooks/hooks.json` | the same ([`Config::discover_codex_from`](crate::Config::discover_codex_from): user's, then the project's; a plugin by [`Config::load_codex`](crate::Config::load_codex)); every hook of every file runs, as in Codex |
//! | root of `hooks.json` | `description` and `hooks` only: any other key (even `$schema`) and Codex refuses the file | the file is left out, with a warning naming the key and its line |
//! | `config.toml` | `[[hooks.EVENT]]`, `[[hooks.EVENT.hooks]]`; `[hooks.state."<key>"]` is Codex's own state; `[features] hooks = false` (or `codex_hooks`) turns hooks off | the same; `features.hooks = false` turns off the file's own hooks, and in the user's file every Codex hook |
//! | events | `SessionStart`, `SessionEnd`, `UserPromptSubmit`, `PreToolUse`, `PermissionRequest`, `PostToolUse`, `PreCompact`, `PostCompact`, `SubagentStart`, `SubagentStop`, `Stop`, `Interrupt` | each a point (the table of the module `hookchain_external::wire::agents::codex`); `StopFailure` (newer source only) has none: its hooks are left out with a warning |
//! | handler keys | `type`, `command`, `commandWindows` (`command_windows`), `timeout`, `async`, `statusMessage`, `additionalContextLimit`; an unknown key is ignored | the same; an unknown key is ignored with a warning naming it; `commandWindows` is Windows' line (not run here); `statusMessage` and `additionalContextLimit` change nothing |
//! | `type` | `command`; `mcp_tool`, `prompt`, `agent` | `command`; the others are left out with a warning |
//! | shell | `$SHELL -lc COMMAND`, in the session's directory | `sh -c COMMAND` (no login profile is read), in the project of a project's file (the directory holding `.codex/`), in the session's project for the user's and a plugin's |
//! | `timeout` | seconds, default 600, at least 1 | the same |
//! | `matcher` | read on `PreToolUse`, `PermissionRequest`, `PostToolUse` (tool name) and `SessionStart` (source): exact names when it has only letters, digits, `_` and `|`, else an unanchored regex; ignored on other events | the same (an invalid regex on an event that ignores it is not reported, as in Codex) |
//! | plugin variables | `PLUGIN_ROOT`, `PLUGIN_DATA`, `CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`, in the environment and as `${NAME}` | the same, and `CODEX_PLUGIN_ROOT` (the name some plugins use) |
//! | a failed hook (exit other than 0 and 2, timeout, an answer Codex rejects) | logged; the action goes on | [`OnError::Warn`](hookchain_external::OnError::Warn) |
//! | per-hook switch | `[hooks.state."<file>:<event_snake>:<group>:<handler>"] enabled = false` in the user's `config.toml` | the hook is left out, with a warning |
//! | trust | a project's hooks run once its path is trusted, and each hook once its `trusted_hash` matches | hookchain's [consent](crate::consent), pinned to the command line and the script's content; `trusted_hash` is not read |
//!
//! One bad entry costs that entry only, with a warning naming the file and line; only a file
//! that is not JSON (or TOML), or whose `hooks` is not an object (a table), is an error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_core::{ConfigError, ConfigOrigin, PathSegment};
use serde_json::{Map, Value};

use crate::claude::{self, Place, Shape, TimeUnit, UnknownKeys};
use crate::entry::{FileContext, Loaded};

/// Codex's events, current and past.
const EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "Interrupt",
    "StopFailure",
];

/// The events whose `matcher` Codex reads.
const MATCHER_EVENTS: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "SessionStart",
];

/// Codex's shape of the settings format.
pub(crate) const SHAPE: Shape = Shape {
    events: EVENTS,
    group_keys: &["matcher", "hooks"],
    hook_keys: &[
        "type",
        "command",
        "commandWindows",
        "command_windows",
        "timeout",
        "async",
        "statusMessage",
        "additionalContextLimit",
        "server",
        "tool",
        "input",
    ],
    unknown_keys: UnknownKeys::Ignore,
    types: &["command", "mcp_tool", "prompt", "agent"],
    runs: &["command"],
    unit: TimeUnit::Seconds,
    default_timeout: Duration::from_secs(600),
    min_timeout: Duration::from_secs(1),
    matcher_events: Some(MATCHER_EVENTS),
};

/// What the user's `~/.codex/config.toml` says about every Codex hook: the hooks it switched
/// off (`[hooks.state."<key>"] enabled = false`), and whether hooks are off altogether
/// (`[features] hooks = false`, with where it says so).
#[derive(Debug, Default, Clone)]
pub(crate) struct UserState {
    /// Codex's keys of the hooks switched off: `<source file>:<event_snake>:<group>:<handler>`.
    pub(crate) disabled: BTreeSet<String>,
    /// `Some(place)` when the user's file turns every hook off.
    pub(crate) hooks_off: Option<String>,
}

/// Reads a `hooks.json` (a layer's, or a plugin's with `place.env` its variables).
pub(crate) fn read_json(
    cx: &FileContext<'_>,
    text: &str,
    place: &Place,
    state: &UserState,
) -> Result<Loaded, ConfigError> {
    let root: Value = serde_json::from_str(text).map_err(|e| claude::syntax(cx.file, &e))?;
    let mut loaded = Loaded::default();
    let Value::Object(root) = root else {
        return Err(cx.error(
            "the hooks file",
            &[],
            "expected an object with `hooks` (and an optional `description`)",
        ));
    };
    if let Some(key) = root
        .keys()
        .find(|key| !matches!(key.as_str(), "hooks" | "description"))
    {
        let path = [PathSegment::Key(key.clone())];
        loaded.warnings.push(format!(
            "{}: key `{key}` at the top of a Codex hooks.json: Codex refuses a file with any key \
             but `description` and `hooks`, so none of its hooks runs (remove `{key}`)",
            cx.place(&path)
        ));
        return Ok(loaded);
    }
    if let Some(other) = root.get("hooks").filter(|v| !v.is_null() && !v.is_object()) {
        return Err(cx.error(
            "`hooks`",
            &[PathSegment::Key("hooks".to_owned())],
            format!(
                "expected an object from event names to lists of matchers, found {}",
                hookchain_core::json_kind(other)
            ),
        ));
    }
    // Read again for the events in file order.
    #[derive(serde::Deserialize)]
    struct Root {
        #[serde(default)]
        hooks: Option<claude::Events>,
    }
    let root: Root = serde_json::from_str(text).map_err(|e| claude::syntax(cx.file, &e))?;
    let events = root.hooks.map(|e| e.0).unwrap_or_default();
    read_layer(cx, events, place, state, &mut loaded);
    Ok(loaded)
}

/// Reads the `[hooks]` table of a `config.toml`; `state` is the user's (for the hooks it
/// switched off). A file whose `[features] hooks` is `false` loads none of its hooks.
pub(crate) fn read_toml(
    cx: &FileContext<'_>,
    text: &str,
    place: &Place,
    state: &UserState,
) -> Result<Loaded, ConfigError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| toml_syntax(cx.file, text, &e))?;
    let mut loaded = Loaded::default();
    if let Some(off) = hooks_off(cx, &table) {
        loaded.warnings.push(format!(
            "{off}: hooks are switched off in this file, so none of its hooks runs"
        ));
        return Ok(loaded);
    }
    let events = match table.get("hooks") {
        None => Vec::new(),
        Some(toml::Value::Table(hooks)) => hooks
            .iter()
            // `[hooks.state]` is Codex's record of each hook's switch and trust, not an event.
            .filter(|(event, _)| event.as_str() != "state")
            .map(|(event, value)| (event.clone(), toml_json(value)))
            .collect(),
        Some(other) => {
            return Err(cx.error(
                "`hooks`",
                &[PathSegment::Key("hooks".to_owned())],
                format!(
                    "expected a table of events (`[[hooks.PreToolUse]]`), found {}",
                    other.type_str()
                ),
            ));
        }
    };
    read_layer(cx, events, place, state, &mut loaded);
    Ok(loaded)
}

/// The events of one file, each hook the user switched off left out with a warning.
fn read_layer(
    cx: &FileContext<'_>,
    events: Vec<(String, Value)>,
    place: &Place,
    state: &UserState,
    loaded: &mut Loaded,
) {
    let file = std::path::absolute(cx.file)
        .unwrap_or_else(|_| PathBuf::from(cx.file))
        .display()
        .to_string();
    claude::read_events_with(&SHAPE, cx, events, place, loaded, &mut |at, _| {
        let key = format!("{file}:{}:{}:{}", snake(at.event), at.group, at.index);
        state.disabled.contains(&key).then(|| {
            format!(
                "the hook `{key}` is switched off in the user's ~/.codex/config.toml \
                 (`[hooks.state.\"{key}\"] enabled = false`), so it is left out"
            )
        })
    });
}

/// What the user's `config.toml` (`text`) says about every hook (see [`UserState`]); a file
/// that does not parse says nothing here (it is read, and its error given, as a layer).
pub(crate) fn user_state(file: &str, text: &str) -> UserState {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return UserState::default();
    };
    let mut state = UserState::default();
    if let Some(toml::Value::Table(hooks)) = table.get("hooks")
        && let Some(toml::Value::Table(each)) = hooks.get("state")
    {
        for (key, value) in each {
            if value.get("enabled").and_then(toml::Value::as_bool) == Some(false) {
                state.disabled.insert(key.clone());
            }
        }
    }
    let off = features_off(&table);
    state.hooks_off = off.map(|key| {
        let line = locate_toml(text, &[key_of("features"), key_of(key)]);
        match line {
            Some(line) => format!("{file} line {line}"),
            None => file.to_owned(),
        }
    });
    state
}

/// `Some(place)` when the file's `[features]` switch hooks off.
fn hooks_off(cx: &FileContext<'_>, table: &toml::Table) -> Option<String> {
    features_off(table).map(|key| cx.place(&[key_of("features"), key_of(key)]))
}

/// The key of `[features]` that switches hooks off (`hooks`, or the older `codex_hooks`).
fn features_off(table: &toml::Table) -> Option<&'static str> {
    let features = table.get("features")?;
    ["hooks", "codex_hooks"]
        .into_iter()
        .find(|key| features.get(*key).and_then(toml::Value::as_bool) == Some(false))
}

fn key_of(key: &str) -> PathSegment {
    PathSegment::Key(key.to_owned())
}

/// `PreToolUse` → `pre_tool_use`, as Codex names an event in a hook's key.
fn snake(event: &str) -> String {
    let mut out = String::with_capacity(event.len() + 4);
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A TOML value as JSON (a date as its text).
fn toml_json(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::from(s.as_str()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => Value::from(*f),
        toml::Value::Boolean(b) => Value::from(*b),
        toml::Value::Datetime(d) => Value::from(d.to_string()),
        toml::Value::Array(items) => Value::Array(items.iter().map(toml_json).collect()),
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(k, v)| (k.clone(), toml_json(v)))
                .collect::<Map<String, Value>>(),
        ),
    }
}

/// A `config.toml` that does not parse, with the line of the error.
fn toml_syntax(file: &str, text: &str, error: &toml::de::Error) -> ConfigError {
    let line = error
        .span()
        .map(|span| text[..span.start.min(text.len())].lines().count().max(1));
    ConfigError::Malformed {
        subject: "the config".to_owned(),
        origin: ConfigOrigin::File {
            path: file.to_owned(),
            line,
        },
        problem: format!("invalid TOML: {}", error.message()),
    }
}

/// The line of the value at `path` in a `config.toml`, for messages: the `[[hooks.EVENT]]`
/// header of a matcher group, the `[[hooks.EVENT.hooks]]` header of a hook, the `key =` line of
/// a key under either, or of a key of a plain table (`[features]`). `None` when the file writes
/// it in a form this does not follow (inline tables): the message then names the closest
/// ancestor found, or the file.
pub(crate) fn locate_toml(text: &str, path: &[PathSegment]) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let header = |line: &str| -> Option<String> {
        let line = line.trim();
        let inner = line
            .strip_prefix("[[")
            .and_then(|l| l.strip_suffix("]]"))
            .or_else(|| line.strip_prefix('[').and_then(|l| l.strip_suffix(']')))?;
        Some(
            inner
                .split('.')
                .map(|p| p.trim().trim_matches('"'))
                .collect::<Vec<_>>()
                .join("."),
        )
    };
    let key_line = |from: usize, key: &str| -> Option<usize> {
        lines
            .iter()
            .enumerate()
            .skip(from + 1)
            .find_map(|(i, line)| {
                let line = line.trim();
                if line.starts_with('[') {
                    return Some(None);
                }
                let (name, _) = line.split_once('=')?;
                (name.trim().trim_matches('"') == key).then_some(Some(i))
            })?
    };
    // The n-th header named `name` at or after `from` (and before a header of `stop`, if any).
    let nth = |name: &str, n: usize, from: usize, stop: Option<&str>| -> Option<usize> {
        let mut seen = 0;
        for (i, line) in lines.iter().enumerate().skip(from) {
            let Some(found) = header(line) else { continue };
            if i > from && stop.is_some_and(|stop| found == stop) {
                return None;
            }
            if found == name {
                if seen == n {
                    return Some(i);
                }
                seen += 1;
            }
        }
        None
    };
    let keys: Vec<String> = path
        .iter()
        .map(|segment| match segment {
            PathSegment::Key(key) => key.clone(),
            PathSegment::Index(i) => format!("#{i}"),
        })
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let mut best = None;
    match keys.as_slice() {
        [table, key, ..] if *table != "hooks" => {
            let at = lines
                .iter()
                .position(|l| header(l).as_deref() == Some(*table))?;
            return key_line(at, key).map(|i| i + 1).or(Some(at + 1));
        }
        ["hooks", event, rest @ ..] => {
            let group_name = format!("hooks.{event}");
            let first = nth(&group_name, 0, 0, None)?;
            best = Some(first);
            let Some(g) = rest.first().and_then(|g| g.strip_prefix('#')) else {
                return best.map(|i| i + 1);
            };
            let group = nth(&group_name, g.parse().ok()?, 0, None)?;
            best = Some(group);
            match &rest[1..] {
                [hooks, h, tail @ ..] if *hooks == "hooks" => {
                    let Some(h) = h.strip_prefix('#').and_then(|h| h.parse().ok()) else {
                        return best.map(|i| i + 1);
                    };
                    let hook_name = format!("hooks.{event}.hooks");
                    if let Some(hook) = nth(&hook_name, h, group, Some(&group_name)) {
                        best = Some(hook);
                        if let [key, ..] = tail {
                            best = key_line(hook, key).or(best);
                        }
                    }
                }
                [key, ..] => best = key_line(group, key).or(best),
                [] => {}
            }
        }
        _ => {}
    }
    best.map(|i| i + 1)
}

/// The variables a Codex plugin's hooks get: `PLUGIN_ROOT` (the plugin's directory, the one
/// holding `hooks/hooks.json`) and `PLUGIN_DATA` (its data directory,
/// `~/.codex/plugins/data/<plugin>`, not created here), the same under Claude Code's names
/// (`CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`) as Codex sets them, and `CODEX_PLUGIN_ROOT`.
pub(crate) fn plugin_env(file: &str) -> BTreeMap<String, String> {
    let root = claude::plugin_root(file);
    let data = claude::plugin_data(&root, ".codex");
    let (root, data) = (root.display().to_string(), data.display().to_string());
    BTreeMap::from([
        ("PLUGIN_ROOT".to_owned(), root.clone()),
        ("PLUGIN_DATA".to_owned(), data.clone()),
        ("CLAUDE_PLUGIN_ROOT".to_owned(), root.clone()),
        ("CLAUDE_PLUGIN_DATA".to_owned(), data),
        ("CODEX_PLUGIN_ROOT".to_owned(), root),
    ])
}

/// `true` for a Codex plugin's `hooks/hooks.json`: its plugin directory holds
/// `.codex-plugin/`.
pub(crate) fn is_plugin_hooks(path: &Path) -> bool {
    claude::plugin_hooks_root(path).is_some_and(|root| root.join(".codex-plugin").is_dir())
}

/// `true` for a file under a `.codex/` directory.
pub(crate) fn is_codex_file(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == ".codex")
        && path
            .file_name()
            .is_some_and(|n| n == "hooks.json" || n == "config.toml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_named_in_snake_case_in_hook_keys() {
        assert_eq!(snake("PreToolUse"), "pre_tool_use");
        assert_eq!(snake("Stop"), "stop");
        assert_eq!(snake("SessionStart"), "session_start");
    }

    #[test]
    fn toml_values_are_located_by_their_headers() {
        let text = "model = \"x\"\n\n[features]\nhooks = false\n\n[[hooks.Stop]]\n\n\
                    [[hooks.Stop.hooks]]\ntype = \"command\"\n\n[[hooks.Stop]]\nmatcher = \"x\"\n\n\
                    [[hooks.Stop.hooks]]\ncommand = \"b\"\ntimeout = 3\n";
        let key = |k: &str| PathSegment::Key(k.to_owned());
        let path = [key("hooks"), key("Stop"), PathSegment::Index(1)];
        assert_eq!(locate_toml(text, &path), Some(11));
        let mut hook = path.to_vec();
        hook.extend([key("hooks"), PathSegment::Index(0), key("timeout")]);
        assert_eq!(locate_toml(text, &hook), Some(16));
        let mut first = vec![key("hooks"), key("Stop"), PathSegment::Index(0)];
        first.extend([key("hooks"), PathSegment::Index(0), key("type")]);
        assert_eq!(locate_toml(text, &first), Some(9));
        assert_eq!(locate_toml(text, &[key("features"), key("hooks")]), Some(4));
    }
}
