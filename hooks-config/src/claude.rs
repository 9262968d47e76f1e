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
//!   optional `matcher` (Claude Code's rule: see [`Matcher`]) and its `hooks`.
//!   Every other key of the settings file is Claude Code's own and is left alone;
//!   `"disableAllHooks": true` turns every hook of the file off, as it does in Claude Code.
//! - An event is a point of the catalog by Claude Code's name for it (`PreToolUse` is
//!   `intercept_tool_call`, `PermissionRequest` is `permission_request`, `PostToolBatch` is
//!   `after_tool_batch`, `SubagentStart` is `session_start` for a child session). An event
//!   hookchain has no point for (`Setup`, `TeammateIdle`, …), and any name it does not know (a
//!   newer Claude Code's), is left out with a warning naming it and its line — never a "did you
//!   mean" toward a different real event.
//! - One entry that cannot be honoured (an unknown key, a malformed value, a bad matcher) costs
//!   that entry only: it is left out with a warning naming the file, the line and the problem,
//!   and the file's other hooks load. Only a file that is not JSON, or whose `hooks` is not an
//!   object, is an error. Every warning reaches every session through `notification` once the
//!   file is loaded into a registry.
//! - `"type": "command"` runs its `command` with `sh -c`, as Claude Code does, in the project
//!   directory: the directory holding `.claude/` when the file is a project's
//!   `.claude/settings*.json`; for the user's own `~/.claude/settings.json`, the session's
//!   project — the agent's current directory when the hook fires, with `CLAUDE_PROJECT_DIR` set
//!   to it (not `$HOME`); else the current directory. A line that starts with a path (`"$CLAUDE_PROJECT_DIR"/…`, `~/…`,
//!   `./…`) whose file does not exist (yet) or cannot run is, as in Claude Code, a runtime
//!   error of that one hook: it is kept, a warning names the file and line when the file is
//!   loaded, and it fails at each firing under its policy (a warning, for Claude Code).
//! - `"shell"` picks the shell of the line: `sh` (the default), `bash` or `zsh` (`-c`), or
//!   `powershell` (`pwsh -Command`). `"args"` is the exec form: `command` is the program and
//!   `args` its arguments, run without a shell (`${CLAUDE_PLUGIN_ROOT}` and `~/` expanded in
//!   them as Claude Code expands them).
//! - `"if"` is a permission rule (`Bash(git push*)`, `Edit(*.ts)`): the hook is started only
//!   for the tool calls it matches, and any other call passes without it (see the module
//!   `permission_rule` for the matching rules). A rule that does not parse costs its hook only.
//! - `"type": "http"` POSTs to its `url` with its `headers`; `$VAR` and `${VAR}` in a header
//!   are replaced by the variable's value when the variable is listed in `allowedEnvVars`, and
//!   by nothing otherwise (as Claude Code does).
//! - `"type": "prompt"` and `"type": "agent"` ask a model inside Claude Code; hookchain has
//!   none, so they are left out with a warning.
//! - `timeout` is in seconds (default 60, from 0.001 to 600). A failed hook (exit code other
//!   than 0 and 2, timeout, junk) is [`OnError::Warn`]: Claude Code shows the error and goes on.
//!   `statusMessage` and `once` are Claude Code's display and session options and change
//!   nothing here; `async: true` and `asyncRewake: true` hooks run in the chain like the others
//!   and are waited for (with a warning): an `asyncRewake` hook's exit 2 blocks at once rather
//!   than waking the model later.
//!
//! Priority is [`DEFAULT_PRIORITY`] and names are `<file>#<n>`, so hooks keep the file's order.
//!
//! The agents whose files copy this shape — Codex ([`crate::codex`]) and Gemini CLI — are read by
//! the same code, given their differences as a `Shape`: their events, the keys of a group and a
//! hook, what an unknown key costs (Claude Code: the entry; Codex: nothing, it is ignored with
//! a warning), the hook types hookchain runs, the unit and default of `timeout`, and the events
//! whose `matcher` is read.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_core::{ConfigError, ConfigOrigin, PathSegment};
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::entry::{Entry, FileContext, Loaded, ValuePath, at, json_kind};
use crate::permission_rule::PermissionRule;
use hookchain_external::{
    CommandSpec, DEFAULT_PRIORITY, DEFAULT_TIMEOUT, ExternalHook, HttpSpec, MAX_TIMEOUT, Matcher,
    OnError, Transport,
};

/// Claude Code's event names, current and past, for the hint when a name differs from one in
/// case alone. An event hookchain has no point for (`Setup`, `TeammateIdle`, …) and any
/// name not known here are left out with a warning naming them: a newer Claude Code may have
/// events this list lacks, and a "did you mean" toward a different real event would mislead.
pub(crate) const EVENTS: &[&str] = &[
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
    "Setup",
    "UserPromptExpansion",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUseFailure",
    "PostToolBatch",
    "SubagentStart",
    "StopFailure",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "ConfigChange",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
];

const GROUP_KEYS: &[&str] = &["matcher", "hooks"];

const HOOK_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "shell",
    "if",
    "asyncRewake",
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

/// The `hooks` object, in file order (Cursor's `hooks.json` and Copilot's files have one too).
pub(crate) struct Events(pub(crate) Vec<(String, Value)>);

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

/// Reads a settings file's text; `cx.file` is where it was read from. Only a file that is not
/// JSON, or whose `hooks` is not an object, is an error: an entry that cannot be honoured costs
/// that entry only, with a warning.
///
/// `plugin_env` is what a plugin's hooks get on top of the agent's environment
/// (`CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`), empty for a settings file.
pub(crate) fn read(
    cx: &FileContext<'_>,
    text: &str,
    plugin_env: &BTreeMap<String, String>,
) -> Result<Loaded, ConfigError> {
    let settings: Settings = serde_json::from_str(text).map_err(|e| syntax(cx.file, &e))?;
    let mut loaded = Loaded::default();
    if all_hooks_disabled(cx, settings.disable_all_hooks.as_ref(), &mut loaded)? {
        return Ok(loaded);
    }
    let place = Place::of(cx.file, ".claude", plugin_env.clone());
    let events = settings.hooks.map(|e| e.0).unwrap_or_default();
    read_events(&CLAUDE, cx, events, &place, &mut loaded);
    Ok(loaded)
}

/// What differs between the agents whose files copy Claude Code's settings shape — Claude
/// Code, Codex and Gemini CLI: their events, keys, hook types, time unit and matcher rules.
/// Each agent's module holds its own; [`CLAUDE`] is Claude Code's.
pub(crate) struct Shape {
    /// The agent's event names, current and past (see [`EVENTS`]).
    pub(crate) events: &'static [&'static str],
    /// The keys of a matcher group.
    pub(crate) group_keys: &'static [&'static str],
    /// The keys of a hook object.
    pub(crate) hook_keys: &'static [&'static str],
    /// What an unknown key of a group or a hook costs.
    pub(crate) unknown_keys: UnknownKeys,
    /// Every hook `type` the agent knows, for the "did you mean" of an unknown one.
    pub(crate) types: &'static [&'static str],
    /// The types hookchain runs (`command`, and `http` for Claude Code); the agent's other
    /// types are left out with a warning.
    pub(crate) runs: &'static [&'static str],
    /// The unit of `timeout`.
    pub(crate) unit: TimeUnit,
    /// The time limit of a hook that sets none.
    pub(crate) default_timeout: Duration,
    /// The shortest time limit the agent gives a hook (a shorter one is raised to it).
    pub(crate) min_timeout: Duration,
    /// The events whose `matcher` the agent reads; on the others it is ignored, unread (`None`:
    /// read on every event, and checked).
    pub(crate) matcher_events: Option<&'static [&'static str]>,
}

/// What an unknown key of a group or a hook costs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnknownKeys {
    /// The entry is left out, with a warning (Claude Code).
    LeaveOut,
    /// The key is ignored, as the agent ignores it, with a warning (Codex).
    Ignore,
}

/// The unit a file writes `timeout` in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeUnit {
    /// Seconds (Claude Code, Codex).
    Seconds,
    /// Milliseconds (Gemini CLI).
    Millis,
}

/// Claude Code's shape.
pub(crate) const CLAUDE: Shape = Shape {
    events: EVENTS,
    group_keys: GROUP_KEYS,
    hook_keys: HOOK_KEYS,
    unknown_keys: UnknownKeys::LeaveOut,
    types: TYPES,
    runs: &["command", "http"],
    unit: TimeUnit::Seconds,
    default_timeout: DEFAULT_TIMEOUT,
    min_timeout: Duration::ZERO,
    matcher_events: None,
};

/// Where the hooks of one file run, and what they get.
pub(crate) struct Place {
    /// The project of the file: what `$CLAUDE_PROJECT_DIR` and a relative script are read
    /// against when the file is loaded.
    pub(crate) project_dir: PathBuf,
    /// Where its hooks run: the project of a project's file; `None` (the session's project
    /// directory, the agent's current directory when they fire) for the user's own file.
    pub(crate) working_dir: Option<PathBuf>,
    /// What its hooks get on top of the agent's environment (a plugin's variables).
    pub(crate) env: BTreeMap<String, String>,
}

impl Place {
    /// The place of `file`, an agent's settings file under `config_dir` (`.claude`, `.codex`,
    /// `.gemini`): a project's `<project>/<config_dir>/…` runs in its project; the user's own
    /// `~/<config_dir>/…` in the session's project; any other file in the current directory.
    pub(crate) fn of(file: &str, config_dir: &str, env: BTreeMap<String, String>) -> Place {
        let project_dir = settings_project_dir(file, config_dir);
        // The user's own settings (`~/.claude/settings.json`) belong to no project: their hooks
        // run in the session's project directory, the agent's current directory when they fire.
        let working_dir = (!is_user_settings(file, config_dir)).then(|| project_dir.clone());
        Place {
            project_dir,
            working_dir,
            env,
        }
    }
}

/// Reads the `hooks` object of a file in `shape`, event by event in file order, into `loaded`.
pub(crate) fn read_events(
    shape: &Shape,
    cx: &FileContext<'_>,
    events: Vec<(String, Value)>,
    place: &Place,
    loaded: &mut Loaded,
) {
    read_events_with(shape, cx, events, place, loaded, &mut |_, _| None);
}

/// What becomes of one hook of a file: `None` to load it; `Some(warning)` to leave it out
/// (switched off by the agent's own state), saying why. Given the hook's event, its group's index
/// and its own index in the group, and the name the hook gives itself (Gemini CLI's `name`).
pub(crate) type Skip<'a> = dyn FnMut(&HookAt<'_>, &Map<String, Value>) -> Option<String> + 'a;

/// Where a hook is in its file.
pub(crate) struct HookAt<'a> {
    /// The event, as the file names it.
    pub(crate) event: &'a str,
    /// The index of its matcher group in the event's list.
    pub(crate) group: usize,
    /// Its index in its group's `hooks`.
    pub(crate) index: usize,
}

/// [`read_events`], asking `skip` about each hook before it is read.
pub(crate) fn read_events_with(
    shape: &Shape,
    cx: &FileContext<'_>,
    events: Vec<(String, Value)>,
    place: &Place,
    loaded: &mut Loaded,
    skip: &mut Skip<'_>,
) {
    let root = vec![PathSegment::Key("hooks".to_owned())];
    for (event, groups) in events {
        let path = at(&root, event.as_str());
        let Some(point) = cx.agent_event(&event, &path, shape.events, &mut loaded.warnings) else {
            continue;
        };
        let point = point.name;
        let expected = r#"matchers (`[{"matcher": ..., "hooks": [...]}]`)"#;
        let Some(groups) = cx.event_list(&event, &path, point, groups, expected, loaded) else {
            continue;
        };
        let reads_matcher = shape
            .matcher_events
            .is_none_or(|events| events.contains(&event.as_str()));
        for (g, group) in groups.iter().enumerate() {
            let path = at(&path, g);
            let subject = format!("matcher #{} of `{event}`", g + 1);
            if shape.unknown_keys == UnknownKeys::Ignore
                && let Value::Object(group) = group
            {
                for key in group.keys() {
                    if !shape.group_keys.contains(&key.as_str()) {
                        loaded.warnings.push(format!(
                            "{}: unknown key `{key}` of {subject} is ignored, as {} ignores it",
                            cx.place(&at(&path, key.as_str())),
                            cx.dialect.name()
                        ));
                    }
                }
            }
            let hooks = match read_group(shape, cx, &subject, group, &path, reads_matcher) {
                Ok(found) => found,
                Err(error) => {
                    loaded.left_out(&error, point, false, &cx.hook_origin(&path));
                    continue;
                }
            };
            let (matcher, hooks_path, hooks) = hooks;
            for (h, hook) in hooks.iter().enumerate() {
                let path = at(&hooks_path, h);
                if let Value::Object(fields) = hook {
                    let here = HookAt {
                        event: &event,
                        group: g,
                        index: h,
                    };
                    if let Some(why) = skip(&here, fields) {
                        loaded.warnings.push(format!("{}: {why}", cx.place(&path)));
                        continue;
                    }
                }
                let subject = format!("hook #{} of {subject}", h + 1);
                let read = ReadHook {
                    shape,
                    cx,
                    event: &event,
                    point,
                    subject: &subject,
                    path: &path,
                    project_dir: &place.project_dir,
                    working_dir: place.working_dir.as_deref(),
                    env: &place.env,
                };
                let entry = read.entry(hook, &matcher, &mut loaded.warnings);
                loaded.take(entry, point, false, &cx.hook_origin(&path));
            }
        }
    }
}

/// A matcher group's matcher and its list of hooks (with the list's path).
fn read_group<'v>(
    shape: &Shape,
    cx: &FileContext<'_>,
    subject: &str,
    group: &'v Value,
    path: &[PathSegment],
    reads_matcher: bool,
) -> Result<(Matcher, ValuePath, &'v Vec<Value>), ConfigError> {
    let Value::Object(group) = group else {
        return Err(cx.error(
            subject,
            path,
            format!(
                "expected an object with `matcher` and `hooks`, found {}",
                json_kind(group)
            ),
        ));
    };
    if shape.unknown_keys == UnknownKeys::LeaveOut {
        cx.known_keys(subject, group, path, shape.group_keys)?;
    }
    // An event whose matcher the agent does not read fires for everything, whatever it says.
    let matcher = if reads_matcher {
        cx.matcher(
            &format!("`matcher` of {subject}"),
            group.get("matcher"),
            &at(path, "matcher"),
        )?
    } else {
        Matcher::all()
    };
    let hooks_path = at(path, "hooks");
    match group.get("hooks") {
        Some(Value::Array(hooks)) => Ok((matcher, hooks_path, hooks)),
        Some(other) => Err(cx.error(
            format!("`hooks` of {subject}"),
            &hooks_path,
            format!("expected a list of hooks, found {}", json_kind(other)),
        )),
        None => Err(cx.error(subject, path, "has no `hooks` list")),
    }
}

/// One hook object of a matcher group.
#[derive(Clone, Copy)]
struct ReadHook<'a> {
    shape: &'a Shape,
    cx: &'a FileContext<'a>,
    event: &'a str,
    point: &'static str,
    subject: &'a str,
    path: &'a [PathSegment],
    project_dir: &'a Path,
    /// Where it runs: the project of its settings file, or, for the user's own settings and a
    /// plugin, `None` (the agent's current directory when it fires).
    working_dir: Option<&'a Path>,
    /// What the hook gets on top of the agent's environment (a plugin's variables).
    env: &'a BTreeMap<String, String>,
}

impl ReadHook<'_> {
    /// The hook, or `None` when it is left out (with a warning).
    fn entry(
        &self,
        hook: &Value,
        matcher: &Matcher,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Entry>, ConfigError> {
        let cx = self.cx;
        let Value::Object(fields) = hook else {
            return Err(cx.error(
                self.subject,
                self.path,
                format!(
                    "expected an object with `type` and `command`, found {}",
                    json_kind(hook)
                ),
            ));
        };
        let fields = &self.known(fields, warnings)?;
        if let Some(value) = fields.get("env").filter(|v| !v.is_null()) {
            // Gemini CLI's handler `env`, over what the file's hooks get.
            let subject = format!("`env` of {}", self.subject);
            let mut env = self.env.clone();
            env.extend(cx.env_map(&subject, value, &at(self.path, "env"))?);
            let read = ReadHook { env: &env, ..*self };
            return read.entry_of(fields, matcher, warnings);
        }
        self.entry_of(fields, matcher, warnings)
    }

    /// [`entry`](Self::entry) of a hook object whose keys are known.
    fn entry_of(
        &self,
        fields: &Map<String, Value>,
        matcher: &Matcher,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Entry>, ConfigError> {
        let cx = self.cx;
        let Some(transport) = self.transport(fields, warnings)? else {
            return Ok(None);
        };
        let timeout = match fields.get("timeout").filter(|v| !v.is_null()) {
            Some(v) => self.timeout(v, warnings)?,
            None => self.shape.default_timeout,
        };
        let condition = match fields.get("if").filter(|v| !v.is_null()) {
            Some(v) => {
                let subject = format!("`if` of {}", self.subject);
                let if_path = at(self.path, "if");
                let text = cx.string(&subject, v, &if_path)?;
                let rule =
                    PermissionRule::parse(text).map_err(|e| cx.error(&subject, &if_path, e))?;
                Some(rule)
            }
            None => None,
        };
        Ok(Some(Entry {
            name: None,
            condition,
            hook: ExternalHook {
                point: self.point,
                event: self.event.to_owned(),
                name: String::new(),
                transport,
                matcher: matcher.clone(),
                timeout,
                priority: DEFAULT_PRIORITY,
                on_error: OnError::Warn,
                dialect: cx.dialect,
                required: false,
                origin: cx.hook_origin(self.path),
            },
        }))
    }

    /// The hook's transport, or `None` when it is left out (with a warning).
    fn transport(
        &self,
        fields: &Map<String, Value>,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Transport>, ConfigError> {
        let cx = self.cx;
        let field = |key: &str| fields.get(key).filter(|v| !v.is_null());
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
        for key in ["async", "asyncRewake"]
            .into_iter()
            .filter(|key| field(key).and_then(Value::as_bool) == Some(true))
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
                if let Some(args) = field("args") {
                    return self.exec_form(line, args, warnings).map(Some);
                }
                let shell = match field("shell") {
                    Some(v) => {
                        let shell_path = at(self.path, "shell");
                        match cx.string(&key_subject("shell"), v, &shell_path)? {
                            "sh" | "bash" | "zsh" => v.as_str().unwrap_or("sh").to_owned(),
                            "powershell" | "pwsh" => {
                                warnings.push(format!(
                                    "{}: a `shell: powershell` hook runs with `pwsh -Command`, \
                                     which must be on PATH",
                                    cx.place(&shell_path)
                                ));
                                "pwsh".to_owned()
                            }
                            other => {
                                return Err(cx.error(
                                    key_subject("shell"),
                                    &shell_path,
                                    format!(
                                        "unknown shell `{other}` (`bash`, `sh`, `zsh` or \
                                         `powershell`)"
                                    ),
                                ));
                            }
                        }
                    }
                    None => "sh".to_owned(),
                };
                if shell == "pwsh" {
                    return Ok(Some(Transport::Command(CommandSpec {
                        argv: vec!["pwsh".to_owned(), "-Command".to_owned(), line.to_owned()],
                        display: line.to_owned(),
                        env: self.env.clone(),
                        working_dir: self.working_dir.map(Path::to_path_buf),
                        env_clear: false,
                        env_allow: Vec::new(),
                    })));
                }
                if let Some(warning) = cx.shell_line_warning(
                    &key_subject("command"),
                    line,
                    self.project_dir,
                    self.project_dir,
                    self.env,
                    &command_path,
                )? {
                    warnings.push(warning);
                }
                Ok(Some(Transport::Command(CommandSpec {
                    argv: vec![shell, "-c".to_owned(), line.to_owned()],
                    display: line.to_owned(),
                    env: self.env.clone(),
                    working_dir: self.working_dir.map(Path::to_path_buf),
                    env_clear: false,
                    env_allow: Vec::new(),
                })))
            }
            "http" if self.shape.runs.contains(&"http") => self.http(fields).map(Some),
            kind if self.shape.types.contains(&kind) => {
                let agent = cx.dialect.name();
                let does = match kind {
                    "prompt" | "agent" => format!("asks a model inside {agent}"),
                    "mcp_tool" => format!("calls a tool of an MCP server inside {agent}"),
                    _ => format!("is run by {agent} itself"),
                };
                let runs = match self.shape.runs {
                    [one] => format!("`{one}` hooks"),
                    [first, second] => format!("`{first}` and `{second}` hooks"),
                    _ => "its own hooks".to_owned(),
                };
                warnings.push(format!(
                    "{}: a `{kind}` hook of `{}` {does}; hookchain runs {runs} only, so it is \
                     left out",
                    cx.place(self.path),
                    self.event
                ));
                Ok(None)
            }
            other => {
                let types = self.shape.types;
                let hint = hookchain_core::suggest::closest(other, types.iter().copied())
                    .map(|s| format!(", did you mean `{s}`?"))
                    .unwrap_or_else(|| {
                        let names: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
                        let listed = match names.split_last() {
                            Some((last, rest)) if !rest.is_empty() => {
                                format!("{} or {last}", rest.join(", "))
                            }
                            _ => names.join(""),
                        };
                        format!(" ({listed})")
                    });
                Err(cx.error(
                    key_subject("type"),
                    &type_path,
                    format!("unknown hook type `{other}`{hint}"),
                ))
            }
        }
    }

    /// An `http` hook: a POST to its `url` with its `headers`.
    fn http(&self, fields: &Map<String, Value>) -> Result<Transport, ConfigError> {
        let cx = self.cx;
        let field = |key: &str| fields.get(key).filter(|v| !v.is_null());
        let key_subject = |key: &str| format!("`{key}` of {}", self.subject);
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
        Ok(Transport::Http(spec))
    }

    /// The hook's fields the agent knows. An unknown key costs the hook (Claude Code's
    /// [`UnknownKeys::LeaveOut`]), or is ignored as the agent ignores it, with a warning naming
    /// it ([`UnknownKeys::Ignore`]).
    fn known(
        &self,
        fields: &Map<String, Value>,
        warnings: &mut Vec<String>,
    ) -> Result<Map<String, Value>, ConfigError> {
        let cx = self.cx;
        let known = self.shape.hook_keys;
        if self.shape.unknown_keys == UnknownKeys::LeaveOut {
            cx.known_keys(self.subject, fields, self.path, known)?;
            return Ok(fields.clone());
        }
        let mut kept = Map::new();
        for (key, value) in fields {
            if known.contains(&key.as_str()) {
                kept.insert(key.clone(), value.clone());
                continue;
            }
            let hint = hookchain_core::suggest::closest(key, known.iter().copied())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            warnings.push(format!(
                "{}: unknown key `{key}` of {} is ignored, as {} ignores it{hint}",
                cx.place(&at(self.path, key.as_str())),
                self.subject,
                cx.dialect.name()
            ));
        }
        Ok(kept)
    }

    /// The hook's time limit, in the shape's unit, raised to the agent's shortest. A limit in
    /// milliseconds under a second is said: `gemini hooks migrate --from-claude` copies Claude
    /// Code's seconds unchanged, so a migrated `30` gives the hook 30 ms.
    fn timeout(&self, value: &Value, warnings: &mut Vec<String>) -> Result<Duration, ConfigError> {
        let cx = self.cx;
        let subject = format!("`timeout` of {}", self.subject);
        let path = at(self.path, "timeout");
        let limit = match self.shape.unit {
            TimeUnit::Seconds => cx.timeout(&subject, value, &path)?,
            TimeUnit::Millis => {
                let millis = value.as_f64().ok_or_else(|| {
                    cx.error(
                        &subject,
                        &path,
                        format!(
                            "expected a number of milliseconds, found {}",
                            json_kind(value)
                        ),
                    )
                })?;
                if !(millis.is_finite() && millis >= 1.0) {
                    return Err(cx.error(
                        &subject,
                        &path,
                        format!("a time limit must be at least 1 millisecond, found {value}"),
                    ));
                }
                let seconds = millis / 1000.0;
                if seconds > MAX_TIMEOUT.as_secs_f64() {
                    return Err(cx.error(
                        &subject,
                        &path,
                        format!(
                            "{value} milliseconds is over the longest time limit a hook may \
                             have, {} ms",
                            MAX_TIMEOUT.as_millis()
                        ),
                    ));
                }
                if millis < 1000.0 {
                    warnings.push(format!(
                        "{}: `timeout` {value} is {value} milliseconds, as {} reads it (a file \
                         migrated from Claude Code keeps its seconds unchanged: write {} for \
                         {value} seconds)",
                        cx.place(&path),
                        cx.dialect.name(),
                        millis * 1000.0
                    ));
                }
                Duration::from_secs_f64(seconds)
            }
        };
        Ok(limit.max(self.shape.min_timeout))
    }
}

impl ReadHook<'_> {
    /// The exec form: `command` is the program and `args` its arguments, run without a shell;
    /// `$VAR`/`${VAR}` in them (`${CLAUDE_PLUGIN_ROOT}`) and a leading `~/` are expanded as
    /// Claude Code expands them. A program that does not exist (yet) is a warning, and the hook
    /// fails at each firing.
    fn exec_form(
        &self,
        program: &str,
        args: &Value,
        warnings: &mut Vec<String>,
    ) -> Result<Transport, ConfigError> {
        let cx = self.cx;
        let args_path = at(self.path, "args");
        let subject = format!("`args` of {}", self.subject);
        let Value::Array(items) = args else {
            return Err(cx.error(
                subject,
                &args_path,
                format!("expected a list of arguments, found {}", json_kind(args)),
            ));
        };
        let expand = |word: &str| crate::script::expand(word, self.project_dir, self.env);
        let mut argv = vec![expand(program)];
        for (i, item) in items.iter().enumerate() {
            argv.push(expand(cx.string(&subject, item, &at(&args_path, i))?));
        }
        if argv[0].trim().is_empty() {
            return Err(cx.error(self.subject, self.path, "the command is empty"));
        }
        let display = shell_words::join(
            std::iter::once(program).chain(items.iter().filter_map(Value::as_str)),
        );
        let spec = CommandSpec {
            argv,
            display,
            env: self.env.clone(),
            working_dir: self.working_dir.map(Path::to_path_buf),
            env_clear: false,
            env_allow: Vec::new(),
        };
        let check = CommandSpec {
            working_dir: Some(self.project_dir.to_path_buf()),
            ..spec.clone()
        };
        if let Err(error) = cx.check_argv(
            &format!("`command` of {}", self.subject),
            &check,
            &at(self.path, "command"),
        ) {
            warnings.push(format!(
                "{error}: the hook is kept, and fails at each firing (under its failure policy) \
                 until the program is there"
            ));
        }
        Ok(Transport::Command(spec))
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

/// The variables a plugin's hooks get, as Claude Code sets them: `CLAUDE_PLUGIN_ROOT`, the
/// plugin's directory (the one holding `hooks/hooks.json`), and `CLAUDE_PLUGIN_DATA`, its
/// persistent data directory, `~/.claude/plugins/data/<plugin>` (not created here).
pub(crate) fn plugin_env(file: &str) -> BTreeMap<String, String> {
    let root = plugin_root(file);
    let data = plugin_data(&root, ".claude");
    BTreeMap::from([
        ("CLAUDE_PLUGIN_ROOT".to_owned(), root.display().to_string()),
        ("CLAUDE_PLUGIN_DATA".to_owned(), data.display().to_string()),
    ])
}

/// `true` when a file's `disableAllHooks` (Claude Code's key, which Copilot reads too) is
/// `true`: none of the file's hooks runs, and `loaded` gets a warning saying so. A value that is
/// not a boolean is an error.
pub(crate) fn all_hooks_disabled(
    cx: &FileContext<'_>,
    disable: Option<&Value>,
    loaded: &mut Loaded,
) -> Result<bool, ConfigError> {
    let Some(disable) = disable else {
        return Ok(false);
    };
    let path = vec![PathSegment::Key("disableAllHooks".to_owned())];
    let disabled = cx.boolean("`disableAllHooks`", disable, &path)?;
    if disabled {
        loaded.warnings.push(format!(
            "{}: `disableAllHooks` is true: none of its hooks runs",
            cx.place(&path)
        ));
    }
    Ok(disabled)
}

/// The directory of the plugin (or extension) whose hooks file is `file`, the one holding
/// `hooks/hooks.json`, made absolute (`.` when the path has no such parent). Claude Code's
/// plugins, Codex's plugins and Gemini CLI's extensions lay their hooks out alike.
pub(crate) fn plugin_root(file: &str) -> PathBuf {
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    path.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The persistent data directory of the plugin in `root`: `~/<agent_dir>/plugins/data/<plugin>`
/// (`agent_dir` `.claude` or `.codex`), `<plugin>` the name of `root` (`plugin` when it has
/// none); `root/.data` with no home directory. Not created here.
pub(crate) fn plugin_data(root: &Path, agent_dir: &str) -> PathBuf {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plugin".to_owned());
    match crate::file::home_dir() {
        Some(home) => home.join(agent_dir).join("plugins").join("data").join(name),
        None => root.join(".data"),
    }
}

/// The plugin directory of a `hooks/hooks.json`: for `<root>/hooks/hooks.json`, `<root>`
/// (empty for a relative `hooks/hooks.json`); `None` for any other path.
pub(crate) fn plugin_hooks_root(path: &Path) -> Option<&Path> {
    if path.file_name().is_none_or(|n| n != "hooks.json") {
        return None;
    }
    path.parent()
        .filter(|dir| dir.file_name().is_some_and(|d| d == "hooks"))
        .and_then(Path::parent)
}

/// `true` for the user's own settings, `~/<config_dir>/settings*.json` (`~/.claude/…`).
fn is_user_settings(file: &str, config_dir: &str) -> bool {
    let Some(home) = crate::file::home_dir() else {
        return false;
    };
    let own = home.join(config_dir);
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    same(&dir, &own)
}

/// The project directory of a settings file: the directory holding `<config_dir>/` for a
/// project's `<config_dir>/settings*.json` (`.claude/`), else (the user's own
/// `~/.claude/settings.json` included) the project directory of a session given none
/// ([`hookchain_core::project::decide`]).
fn settings_project_dir(file: &str, config_dir: &str) -> PathBuf {
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    match path.parent() {
        Some(dir)
            if dir.file_name().is_some_and(|n| n == config_dir)
                && !is_user_settings(file, config_dir) =>
        {
            dir.parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| dir.to_path_buf())
        }
        _ => hookchain_core::project::decide(None),
    }
}

/// A settings file (or another agent's JSON file) that is not valid JSON, or whose `hooks` is
/// not an object.
pub(crate) fn syntax(file: &str, error: &serde_json::Error) -> ConfigError {
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
