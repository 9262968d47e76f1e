//! Claude Code's `settings.json` hooks, read as Claude Code reads them.
//!
//! ```json
//! {
//!   "hooks": {
//!     "PreToolUse": [
//!       {
//!         "matcher": "Write|Edit",
//!         "hooks": [
//!           { "type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh", "timeout": 30 }
//!         ]
//!       }
//!     ]
//!   }
//! }
//! ```
//!
//! - `hooks` maps Claude Code's event names to lists of matcher groups; each group has an
//!   optional `matcher` (Claude Code's rule: see [`Matcher`](hooks_external::Matcher)) and its `hooks`.
//!   Every other key of the settings file is Claude Code's own and is left alone;
//!   `"disableAllHooks": true` turns every hook of the file off, as it does in Claude Code.
//! - An event is a point of the catalog by Claude Code's name for it (`PreToolUse` is
//!   `intercept_tool_call`, `PermissionRequest` is `permission_request`, `SubagentStart` is
//!   `session_start` for a child session). Claude Code events hookchain has no point for
//!   (`TeammateIdle`, `CwdChanged`, …) are left out with a warning; any other name is an error
//!   with the closest known name.
//! - `"type": "command"` runs its `command` with `sh -c`, as Claude Code does, in the project
//!   directory: the directory holding `.claude/` when the file is `.claude/settings*.json`, else
//!   the current directory. A line that starts with a path (`"$CLAUDE_PROJECT_DIR"/…`, `~/…`,
//!   `./…`) must name an executable file when the file is loaded.
//! - `"type": "http"` POSTs to its `url` with its `headers`; `$VAR` and `${VAR}` in a header
//!   are replaced by the variable's value when the variable is listed in `allowedEnvVars`, and
//!   by nothing otherwise (as Claude Code does).
//! - `"type": "prompt"` and `"type": "agent"` ask a model inside Claude Code; hookchain has
//!   none, so they are left out with a warning.
//! - `timeout` is in seconds (default 60, from 0.001 to 600). A failed hook (exit code other
//!   than 0 and 2, timeout, junk) is [`OnError::Warn`]: Claude Code shows the error and goes on.
//!   `statusMessage` and `once` are Claude Code's display and session options and change
//!   nothing here; `async: true` hooks run in the chain like the others (with a warning).
//!
//! Priority is [`DEFAULT_PRIORITY`] and names are `<file>#<n>`, so hooks keep the file's order.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use hooks_core::{ConfigError, ConfigOrigin, PathSegment};
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::entry::{Entry, Event, FileContext, at, json_kind};
use hooks_external::program::shell_argv;
use hooks_external::{
    CommandSpec, DEFAULT_PRIORITY, DEFAULT_TIMEOUT, ExternalHook, HttpSpec, OnError, Transport,
};

/// Every event name Claude Code has, for "did you mean".
const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Notification",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
];

/// Claude Code events without a hookchain point: left out with a warning.
const UNSUPPORTED: &[&str] = &[
    "PostToolUseFailure",
    "StopFailure",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "ConfigChange",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
];

const GROUP_KEYS: &[&str] = &["matcher", "hooks"];

const HOOK_KEYS: &[&str] = &[
    "type",
    "command",
    "timeout",
    "async",
    "statusMessage",
    "once",
    "url",
    "headers",
    "allowedEnvVars",
    "prompt",
    "model",
];

const TYPES: &[&str] = &["command", "http", "prompt", "agent"];

/// The parts of a settings file hookchain reads; the order of the events is the file's.
#[derive(Deserialize)]
struct Settings {
    #[serde(default)]
    hooks: Option<Events>,
    #[serde(default, rename = "disableAllHooks")]
    disable_all_hooks: Option<Value>,
}

/// The `hooks` object, in file order.
struct Events(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Events {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EventsVisitor;
        impl<'de> Visitor<'de> for EventsVisitor {
            type Value = Events;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`hooks` to be an object from event names to lists of matchers")
            }
            fn visit_unit<E>(self) -> Result<Events, E> {
                Ok(Events(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Events, A::Error> {
                let mut events = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    events.push(entry);
                }
                Ok(Events(events))
            }
        }
        deserializer.deserialize_any(EventsVisitor)
    }
}

/// Reads a settings file's text; `cx.file` is where it was read from.
pub(crate) fn read(
    cx: &FileContext<'_>,
    text: &str,
) -> Result<(Vec<Entry>, Vec<String>), ConfigError> {
    let settings: Settings = serde_json::from_str(text).map_err(|e| syntax(cx.file, &e))?;
    let mut warnings = Vec::new();
    let root = vec![PathSegment::Key("hooks".to_owned())];
    if let Some(disable) = settings.disable_all_hooks {
        let path = vec![PathSegment::Key("disableAllHooks".to_owned())];
        if cx.boolean("`disableAllHooks`", &disable, &path)? {
            warnings.push(format!(
                "{}: `disableAllHooks` is true: none of its hooks runs",
                cx.place(&path)
            ));
            return Ok((Vec::new(), warnings));
        }
    }
    let project_dir = project_dir(cx.file);
    let mut entries = Vec::new();
    for (event, groups) in settings.hooks.map(|e| e.0).unwrap_or_default() {
        let path = at(&root, event.as_str());
        let point = match cx.event(&event, &path, EVENTS, UNSUPPORTED)? {
            Event::Point(point) => point.name,
            Event::Unsupported => {
                warnings.push(format!(
                    "{}: Claude Code's event `{event}` has no hookchain point; its hooks are \
                     left out",
                    cx.place(&path)
                ));
                continue;
            }
        };
        let groups = match groups {
            Value::Null => continue,
            Value::Array(groups) => groups,
            other => {
                return Err(cx.error(
                    format!("`{event}`"),
                    &path,
                    format!(
                        "expected a list of matchers (`[{{\"matcher\": ..., \"hooks\": [...]}}]`), \
                         found {}",
                        json_kind(&other)
                    ),
                ));
            }
        };
        for (g, group) in groups.iter().enumerate() {
            let path = at(&path, g);
            let subject = format!("matcher #{} of `{event}`", g + 1);
            let Value::Object(group) = group else {
                return Err(cx.error(
                    subject,
                    &path,
                    format!(
                        "expected an object with `matcher` and `hooks`, found {}",
                        json_kind(group)
                    ),
                ));
            };
            cx.known_keys(&subject, group, &path, GROUP_KEYS)?;
            let matcher_path = at(&path, "matcher");
            let matcher = cx.matcher(
                &format!("`matcher` of {subject}"),
                group.get("matcher"),
                &matcher_path,
            )?;
            let hooks_path = at(&path, "hooks");
            let hooks = match group.get("hooks") {
                Some(Value::Array(hooks)) => hooks,
                Some(other) => {
                    return Err(cx.error(
                        format!("`hooks` of {subject}"),
                        &hooks_path,
                        format!("expected a list of hooks, found {}", json_kind(other)),
                    ));
                }
                None => {
                    return Err(cx.error(subject, &path, "has no `hooks` list"));
                }
            };
            for (h, hook) in hooks.iter().enumerate() {
                let path = at(&hooks_path, h);
                let subject = format!("hook #{} of {subject}", h + 1);
                let Value::Object(fields) = hook else {
                    return Err(cx.error(
                        subject,
                        &path,
                        format!(
                            "expected an object with `type` and `command`, found {}",
                            json_kind(hook)
                        ),
                    ));
                };
                let read = ReadHook {
                    cx,
                    event: &event,
                    subject: &subject,
                    fields,
                    path: &path,
                    project_dir: &project_dir,
                };
                if let Some(transport) = read.transport(&mut warnings)? {
                    let timeout = match fields.get("timeout").filter(|v| !v.is_null()) {
                        Some(v) => cx.timeout(
                            &format!("`timeout` of {subject}"),
                            v,
                            &at(&path, "timeout"),
                        )?,
                        None => DEFAULT_TIMEOUT,
                    };
                    entries.push(Entry {
                        name: None,
                        hook: ExternalHook {
                            point,
                            event: event.clone(),
                            name: String::new(),
                            transport,
                            matcher: matcher.clone(),
                            timeout,
                            priority: DEFAULT_PRIORITY,
                            on_error: OnError::Warn,
                            flavor: cx.flavor,
                            required: false,
                            origin: cx.hook_origin(&path),
                        },
                    });
                }
            }
        }
    }
    Ok((entries, warnings))
}

/// One hook object of a matcher group.
struct ReadHook<'a> {
    cx: &'a FileContext<'a>,
    event: &'a str,
    subject: &'a str,
    fields: &'a Map<String, Value>,
    path: &'a [PathSegment],
    project_dir: &'a Path,
}

impl ReadHook<'_> {
    /// The hook's transport, or `None` when it is left out (with a warning).
    fn transport(&self, warnings: &mut Vec<String>) -> Result<Option<Transport>, ConfigError> {
        let cx = self.cx;
        cx.known_keys(self.subject, self.fields, self.path, HOOK_KEYS)?;
        let field = |key: &str| self.fields.get(key).filter(|v| !v.is_null());
        let key_subject = |key: &str| format!("`{key}` of {}", self.subject);
        let type_path = at(self.path, "type");
        let Some(kind) = field("type") else {
            return Err(cx.error(
                self.subject,
                self.path,
                "has no `type` (`command` or `http`)",
            ));
        };
        let kind = cx.string(&key_subject("type"), kind, &type_path)?;
        if let Some(key) = field("async")
            .and_then(Value::as_bool)
            .filter(|a| *a)
            .map(|_| "async")
        {
            warnings.push(format!(
                "{}: `{key}: true` hook of `{}` runs in the chain and is waited for, like every \
                 hookchain hook",
                cx.place(self.path),
                self.event
            ));
        }
        match kind {
            "command" => {
                let command_path = at(self.path, "command");
                let Some(line) = field("command") else {
                    return Err(cx.error(self.subject, self.path, "has no `command`"));
                };
                let line = cx.string(&key_subject("command"), line, &command_path)?;
                cx.check_shell_line(
                    &key_subject("command"),
                    line,
                    self.project_dir,
                    self.project_dir,
                    &command_path,
                )?;
                Ok(Some(Transport::Command(CommandSpec {
                    argv: shell_argv(line),
                    display: line.to_owned(),
                    env: BTreeMap::new(),
                    working_dir: Some(self.project_dir.to_path_buf()),
                    env_clear: false,
                    env_allow: Vec::new(),
                })))
            }
            "http" => {
                let url_path = at(self.path, "url");
                let Some(url) = field("url") else {
                    return Err(cx.error(self.subject, self.path, "has no `url`"));
                };
                let url = cx.string(&key_subject("url"), url, &url_path)?;
                let allowed: Vec<String> = match field("allowedEnvVars") {
                    Some(Value::Array(names)) => names
                        .iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect(),
                    Some(other) => {
                        return Err(cx.error(
                            key_subject("allowedEnvVars"),
                            &at(self.path, "allowedEnvVars"),
                            format!(
                                "expected a list of variable names, found {}",
                                json_kind(other)
                            ),
                        ));
                    }
                    None => Vec::new(),
                };
                let headers = match field("headers") {
                    Some(v) => cx
                        .string_map(&key_subject("headers"), v, &at(self.path, "headers"))?
                        .into_iter()
                        .map(|(name, value)| (name, interpolate(&value, &allowed)))
                        .collect(),
                    None => BTreeMap::new(),
                };
                let spec = HttpSpec {
                    url: url.to_owned(),
                    headers,
                    allow_local: false,
                };
                cx.check_http(&key_subject("url"), &spec, &url_path)?;
                Ok(Some(Transport::Http(spec)))
            }
            "prompt" | "agent" => {
                warnings.push(format!(
                    "{}: a `{kind}` hook of `{}` asks a model inside Claude Code; hookchain runs \
                     `command` and `http` hooks only, so it is left out",
                    cx.place(self.path),
                    self.event
                ));
                Ok(None)
            }
            other => {
                let hint = hooks_core::suggest::closest(other, TYPES.iter().copied())
                    .map(|s| format!(", did you mean `{s}`?"))
                    .unwrap_or_else(|| " (`command`, `http`, `prompt` or `agent`)".to_owned());
                Err(cx.error(
                    key_subject("type"),
                    &type_path,
                    format!("unknown hook type `{other}`{hint}"),
                ))
            }
        }
    }
}

/// Replaces `$NAME` and `${NAME}` in a header: by the variable's value when `NAME` is allowed,
/// by nothing otherwise.
fn interpolate(value: &str, allowed: &[String]) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let (name, consumed) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        if allowed.iter().any(|a| a == name) {
            out.push_str(&std::env::var(name).unwrap_or_default());
        }
        rest = &after[consumed..];
    }
    out.push_str(rest);
    out
}

/// The project directory of a settings file: the directory holding `.claude/` for
/// `.claude/settings*.json`, else the current directory.
fn project_dir(file: &str) -> PathBuf {
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    match path.parent() {
        Some(dir) if dir.file_name().is_some_and(|n| n == ".claude") => dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dir.to_path_buf()),
        _ => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    }
}

/// A settings file that is not valid JSON, or whose `hooks` is not an object.
fn syntax(file: &str, error: &serde_json::Error) -> ConfigError {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&suffix).unwrap_or(&message).to_owned();
    let what = match error.classify() {
        serde_json::error::Category::Data => "",
        _ => "invalid JSON at ",
    };
    let (line, problem) = if error.line() == 0 {
        (None, format!("{what}{message}"))
    } else {
        (
            Some(error.line()),
            format!("{what}column {}: {message}", error.column()),
        )
    };
    ConfigError::Malformed {
        subject: "the settings".to_owned(),
        origin: ConfigOrigin::File {
            path: file.to_owned(),
            line,
        },
        problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_take_allowed_variables_only() {
        let path = std::env::var("PATH").unwrap();
        let allowed = vec!["PATH".to_owned()];
        assert_eq!(interpolate("a $PATH b", &allowed), format!("a {path} b"));
        assert_eq!(interpolate("${PATH}!", &allowed), format!("{path}!"));
        assert_eq!(interpolate("Bearer $HOME", &allowed), "Bearer ");
        assert_eq!(interpolate("cost: 5$", &allowed), "cost: 5$");
        assert_eq!(interpolate("${unclosed", &allowed), "${unclosed");
    }
}
