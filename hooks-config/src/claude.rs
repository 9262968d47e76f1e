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

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use hookchain_core::{ConfigError, ConfigOrigin, PathSegment};
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::entry::{Entry, FileContext, Loaded, ValuePath, at, json_kind};
use crate::permission_rule::PermissionRule;
use hookchain_external::{
    CommandSpec, DEFAULT_PRIORITY, DEFAULT_TIMEOUT, ExternalHook, HttpSpec, Matcher, OnError,
    Transport,
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
    let root = vec![PathSegment::Key("hooks".to_owned())];
    if let Some(disable) = settings.disable_all_hooks {
        let path = vec![PathSegment::Key("disableAllHooks".to_owned())];
        if cx.boolean("`disableAllHooks`", &disable, &path)? {
            loaded.warnings.push(format!(
                "{}: `disableAllHooks` is true: none of its hooks runs",
                cx.place(&path)
            ));
            return Ok(loaded);
        }
    }
    let project_dir = settings_project_dir(cx.file);
    // The user's own settings (`~/.claude/settings.json`) belong to no project: their hooks run
    // in the session's project directory, the agent's current directory when they fire.
    let fixed_dir = (!is_user_settings(cx.file)).then(|| project_dir.clone());
    for (event, groups) in settings.hooks.map(|e| e.0).unwrap_or_default() {
        let path = at(&root, event.as_str());
        let Some(point) = cx.agent_event(&event, &path, EVENTS, &mut loaded.warnings) else {
            continue;
        };
        let point = point.name;
        let groups = match groups {
            Value::Null => continue,
            Value::Array(groups) => groups,
            other => {
                let error = cx.error(
                    format!("`{event}`"),
                    &path,
                    format!(
                        "expected a list of matchers (`[{{\"matcher\": ..., \"hooks\": [...]}}]`), \
                         found {}",
                        json_kind(&other)
                    ),
                );
                loaded.left_out(&error, point, false, &cx.hook_origin(&path));
                continue;
            }
        };
        for (g, group) in groups.iter().enumerate() {
            let path = at(&path, g);
            let subject = format!("matcher #{} of `{event}`", g + 1);
            let hooks = match read_group(cx, &subject, group, &path) {
                Ok(found) => found,
                Err(error) => {
                    loaded.left_out(&error, point, false, &cx.hook_origin(&path));
                    continue;
                }
            };
            let (matcher, hooks_path, hooks) = hooks;
            for (h, hook) in hooks.iter().enumerate() {
                let path = at(&hooks_path, h);
                let subject = format!("hook #{} of {subject}", h + 1);
                let read = ReadHook {
                    cx,
                    event: &event,
                    point,
                    subject: &subject,
                    path: &path,
                    project_dir: &project_dir,
                    working_dir: fixed_dir.as_deref(),
                    env: plugin_env,
                };
                let entry = read.entry(hook, &matcher, &mut loaded.warnings);
                loaded.take(entry, point, false, &cx.hook_origin(&path));
            }
        }
    }
    Ok(loaded)
}

/// A matcher group's matcher and its list of hooks (with the list's path).
fn read_group<'v>(
    cx: &FileContext<'_>,
    subject: &str,
    group: &'v Value,
    path: &[PathSegment],
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
    cx.known_keys(subject, group, path, GROUP_KEYS)?;
    let matcher = cx.matcher(
        &format!("`matcher` of {subject}"),
        group.get("matcher"),
        &at(path, "matcher"),
    )?;
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
struct ReadHook<'a> {
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
        let Some(transport) = self.transport(fields, warnings)? else {
            return Ok(None);
        };
        let timeout = match fields.get("timeout").filter(|v| !v.is_null()) {
            Some(v) => cx.timeout(
                &format!("`timeout` of {}", self.subject),
                v,
                &at(self.path, "timeout"),
            )?,
            None => DEFAULT_TIMEOUT,
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
        cx.known_keys(self.subject, fields, self.path, HOOK_KEYS)?;
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
                let hint = hookchain_core::suggest::closest(other, TYPES.iter().copied())
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
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    let root = path
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plugin".to_owned());
    let data = match crate::file::home_dir() {
        Some(home) => home.join(".claude").join("plugins").join("data").join(name),
        None => root.join(".data"),
    };
    BTreeMap::from([
        ("CLAUDE_PLUGIN_ROOT".to_owned(), root.display().to_string()),
        ("CLAUDE_PLUGIN_DATA".to_owned(), data.display().to_string()),
    ])
}

/// `true` for the user's own settings, `~/.claude/settings*.json`.
fn is_user_settings(file: &str) -> bool {
    let Some(home) = crate::file::home_dir() else {
        return false;
    };
    let claude = home.join(".claude");
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    same(&dir, &claude)
}

/// The project directory of a settings file: the directory holding `.claude/` for a project's
/// `.claude/settings*.json`, else (the user's own `~/.claude/settings.json` included) the
/// project directory of a session given none ([`hookchain_core::project::decide`]).
fn settings_project_dir(file: &str) -> PathBuf {
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    match path.parent() {
        Some(dir) if dir.file_name().is_some_and(|n| n == ".claude") && !is_user_settings(file) => {
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
