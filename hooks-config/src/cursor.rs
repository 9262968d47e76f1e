//! Cursor's `hooks.json`, read as Cursor reads it (<https://cursor.com/docs/agent/hooks>; the
//! rules marked (secondary) come from the third-party references listed in
//! `docs/agents/cursor.md`).
//!
//! ```json
//! {
//!   "version": 1,
//!   "hooks": {
//!     "beforeShellExecution": [
//!       { "command": ".cursor/hooks/shell_guard.sh", "timeout": 10, "failClosed": true }
//!     ],
//!     "stop": [{ "command": ".cursor/hooks/stop_followup.sh", "loop_limit": 2 }]
//!   }
//! }
//! ```
//!
//! # The files
//!
//! | file | scope | commands run in | relative paths of a command | variables |
//! |---|---|---|---|---|
//! | `<project>/.cursor/hooks.json` | project (untrusted: it cannot approve its own hooks) | the project (the directory holding `.cursor/`) | from the project (`.cursor/hooks/x.sh`); one found under `.cursor/` only is `.cursor/`'s (`node hooks/x.js`, as Cursor's 2.0 page and `johnlindquist/cursor-hooks` write them) | `CURSOR_PROJECT_DIR` (secondary) |
//! | `~/.cursor/hooks.json` | user | the session's project | from `~/.cursor/`: the program always (`./hooks/x.sh` is `~/.cursor/hooks/x.sh`), an operand when it is there | — |
//! | `<plugin>/hooks/hooks.json` | a plugin's | the session's project | as written | `CURSOR_PLUGIN_ROOT` (the plugin's directory), `${CURSOR_PLUGIN_ROOT}` in the line |
//! | `/etc/cursor/hooks.json` (Linux), `/Library/Application Support/Cursor/hooks.json` (macOS) | enterprise (highest) | as a user's file | as a user's file | — |
//!
//! A path made absolute is written into the line single-quoted, so the line that runs — and
//! that consent pins — names the script Cursor would run. Words with shell syntax in them
//! (`"$HOME"/x.sh`) are left as written.
//!
//! [`Config::discover_cursor_from`](crate::Config::discover_cursor_from) loads the project's
//! file and then the user's, in Cursor's priority order (enterprise → project → user, every
//! hook runs): hooks of a higher source run first (a lower priority number), so where two
//! rewrite the same call, the higher source's runs first and a block of either stops the call.
//!
//! # The rules it keeps
//!
//! - `version` must be `1` (Cursor's only version). A file whose `version` is another value
//!   is an error (the whole file is refused, as a newer format would be misread); a project or
//!   user file without `version`, which Cursor requires there, loads with a warning. A
//!   plugin's file may leave it out. Any other top-level key is left out with a warning.
//! - `hooks` maps Cursor's event names to flat lists of hooks (no matcher groups). An event is
//!   a point by the table below; one of Cursor's events hookchain has no point for
//!   (`afterAgentThought`, the Tab events), and any name Cursor does not have (Cursor ignores
//!   it silently), is left out with a warning naming it and its line — with the Cursor event
//!   it is closest to, if any (`beforeShellExec` → `beforeShellExecution`).
//! - A hook: `command` (run with `sh -c`, as Cursor runs it through the shell), `type`
//!   (`command`, the default; `prompt` asks a model inside Cursor and is left out with a
//!   warning), `timeout` (seconds, Cursor's unit; default 60; a value above 600, the most
//!   hookchain allows, is read as milliseconds with a warning, as some public files write it),
//!   `matcher` (Claude Code's rule: a `|` list of exact names, else a regular expression; on
//!   `preToolUse`, `postToolUse`, `postToolUseFailure` and `subagentStart` only — elsewhere it
//!   is ignored with a warning, the event being the filter; on `subagentStart` it filters on
//!   the child's type, which hookchain has no value for, so only `*` or an empty one fires, as
//!   for Claude Code's `SubagentStart`), `failClosed` and `loop_limit`.
//! - `failClosed: true` is [`OnError::Block`]: the hook's failure (a crash, a timeout, an
//!   exit code other than 0 and 2, stdout that is not JSON) blocks. Without it a failure is
//!   [`OnError::Warn`]: Cursor lets the action through. A fail-closed entry that cannot be
//!   loaded blocks its point.
//! - `loop_limit` (on `stop` and `subagentStop`: a whole number, or `null` for none) is
//!   Cursor's cap on the follow-ups one hook may cause (5 by default). hookchain bounds
//!   follow-ups by its redo cap per turn ([`HooksBuilder::stop_redo_cap`], 3 by default) for
//!   every hook together; a `loop_limit` below that cap is said in a warning, and the script
//!   reads the payload's `loop_count` (hookchain's redos) to stop sooner, as Cursor's scripts
//!   do.
//! - One entry that cannot be honoured (an unknown key, a value of the wrong type, a bad
//!   matcher, an empty command) costs that entry only: it is left out with a warning naming the
//!   file and line. A command whose script does not exist (yet) is kept with a warning and
//!   fails at each firing under its policy.
//!
//! | event | point | narrowed to |
//! |---|---|---|
//! | `sessionStart` | `session_start` | sessions that are not a child's |
//! | `subagentStart` | `session_start` | a child agent's session |
//! | `sessionEnd` | `session_end` | |
//! | `beforeSubmitPrompt` | `transform_user_input` | |
//! | `preToolUse` | `intercept_tool_call` | |
//! | `beforeShellExecution` | `intercept_tool_call` | shell calls |
//! | `beforeMCPExecution` | `intercept_tool_call` | MCP tools |
//! | `beforeReadFile` | `intercept_tool_call` | file reads |
//! | `postToolUse` | `transform_tool_result` | |
//! | `postToolUseFailure` | `after_tool_call` | calls that failed |
//! | `afterShellExecution`, `afterMCPExecution` | `after_tool_call` | shell calls, MCP calls |
//! | `afterFileEdit` | `after_tool_call` | edits and writes |
//! | `afterAgentResponse` | `transform_response` | (Cursor reads no answer: observe only) |
//! | `stop` | `on_stop` | |
//! | `subagentStop` | `subagent_stop` | |
//! | `preCompact` | `before_compaction` | |
//! | `afterAgentThought`, `beforeTabFileRead`, `afterTabFileEdit` | — | left out: no point for reasoning text, and Tab completions are not the agent loop |
//!
//! How each event's payload and answer are spoken is the Cursor overlay's
//! (`hookchain_external::wire::agents`, Cursor).
//!
//! [`HooksBuilder::stop_redo_cap`]: hookchain_runtime::HooksBuilder::stop_redo_cap

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_core::suggest::closest;
use hookchain_core::{ConfigError, PathSegment};
use serde::Deserialize;
use serde_json::Value;

use crate::claude::{Events, syntax};
use crate::config::Config;
use crate::entry::{Entry, FileContext, Loaded, at, json_kind};
use crate::hookchain_file::untrusted;
use crate::load::read_agent_json;
use hookchain_external::Dialect;
use hookchain_external::{
    CommandSpec, DEFAULT_PRIORITY, DEFAULT_TIMEOUT, ExternalHook, Matcher, OnError, Transport,
};

/// Cursor's events, with hookchain's point for each (`None`: no point): the table of the
/// [module docs](self), which `hookchain hook --agent cursor` reads too.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("sessionStart", Some("session_start")),
    ("sessionEnd", Some("session_end")),
    ("beforeSubmitPrompt", Some("transform_user_input")),
    ("preToolUse", Some("intercept_tool_call")),
    ("beforeShellExecution", Some("intercept_tool_call")),
    ("beforeMCPExecution", Some("intercept_tool_call")),
    ("beforeReadFile", Some("intercept_tool_call")),
    ("postToolUse", Some("transform_tool_result")),
    ("postToolUseFailure", Some("after_tool_call")),
    ("afterShellExecution", Some("after_tool_call")),
    ("afterMCPExecution", Some("after_tool_call")),
    ("afterFileEdit", Some("after_tool_call")),
    ("afterAgentResponse", Some("transform_response")),
    ("stop", Some("on_stop")),
    ("subagentStart", Some("session_start")),
    ("subagentStop", Some("subagent_stop")),
    ("preCompact", Some("before_compaction")),
    ("afterAgentThought", None),
    ("beforeTabFileRead", None),
    ("afterTabFileEdit", None),
];

/// The events whose hooks take a `matcher`.
const MATCHED: &[&str] = &[
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "subagentStart",
];

const TOP_KEYS: &[&str] = &["version", "hooks"];

const HOOK_KEYS: &[&str] = &[
    "command",
    "type",
    "timeout",
    "matcher",
    "failClosed",
    "loop_limit",
    "prompt",
];

/// hookchain's redo cap per turn when the agent sets none (`hookchain_runtime`'s default).
const REDO_CAP: u64 = hookchain_runtime::DEFAULT_STOP_REDO_CAP as u64;

/// Which of Cursor's files a `hooks.json` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `<project>/.cursor/hooks.json`.
    Project,
    /// `~/.cursor/hooks.json`, or the enterprise file: commands run in its own directory.
    User,
    /// `<plugin>/hooks/hooks.json`.
    Plugin,
}

impl Scope {
    /// The scope of the file at `file`, by its path: `hooks/hooks.json` is a plugin's, a
    /// `.cursor/hooks.json` outside the home directory a project's, anything else a user's.
    pub(crate) fn of(file: &str) -> Scope {
        let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
        let parent = path.parent();
        let dir_is = |name: &str| parent.and_then(Path::file_name).is_some_and(|n| n == name);
        if dir_is("hooks") {
            return Scope::Plugin;
        }
        let home_cursor = crate::file::home_dir().map(|home| home.join(".cursor"));
        let in_home = match (parent, home_cursor) {
            (Some(dir), Some(home)) => same_dir(dir, &home),
            _ => false,
        };
        if dir_is(".cursor") && !in_home {
            Scope::Project
        } else {
            Scope::User
        }
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The parts of a `hooks.json` hookchain reads; the order of the events is the file's.
#[derive(Deserialize)]
struct HooksFile {
    #[serde(default)]
    version: Option<Value>,
    #[serde(default)]
    hooks: Option<Events>,
    #[serde(flatten)]
    other: BTreeMap<String, Value>,
}

/// Reads a `hooks.json`'s text of `scope`; `cx.file` is where it was read from; `priority` is
/// its hooks' (lower runs earlier: the higher sources' hooks first). Only a file that is not
/// JSON, whose `hooks` is not an object, or whose `version` is not 1, is an error.
pub(crate) fn read(
    cx: &FileContext<'_>,
    text: &str,
    scope: Scope,
    priority: i32,
) -> Result<Loaded, ConfigError> {
    let file: HooksFile = serde_json::from_str(text).map_err(|e| syntax(cx.file, &e))?;
    let mut loaded = Loaded::default();
    let version_path = vec![PathSegment::Key("version".to_owned())];
    match &file.version {
        Some(Value::Number(n)) if n.as_f64() == Some(1.0) => {}
        None | Some(Value::Null) if scope == Scope::Plugin => {}
        None | Some(Value::Null) => loaded.warnings.push(format!(
            "{}: no `version`: Cursor requires `\"version\": 1` in this file; hookchain reads it \
             as version 1 (add the key)",
            cx.place(&[])
        )),
        Some(other) => {
            return Err(cx.error(
                "`version`",
                &version_path,
                format!("Cursor's hooks.json has version 1 only, found {other}"),
            ));
        }
    }
    for key in file.other.keys() {
        let hint = closest(key, TOP_KEYS.iter().copied())
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        loaded.warnings.push(format!(
            "{}: key `{key}` is not one of Cursor's (`version`, `hooks`); it is left out{hint}",
            cx.place(&[PathSegment::Key(key.clone())])
        ));
    }
    let project_dir = project_dir(cx.file, scope);
    let env = env(cx.file, scope, &project_dir);
    let root = vec![PathSegment::Key("hooks".to_owned())];
    for (event, hooks) in file.hooks.map(|e| e.0).unwrap_or_default() {
        let path = at(&root, event.as_str());
        let Some(point) = point_of(cx, &event, &path, &mut loaded.warnings) else {
            continue;
        };
        let expected = r#"hooks (`[{"command": ...}]`)"#;
        let Some(hooks) = cx.event_list(&event, &path, point, hooks, expected, &mut loaded) else {
            continue;
        };
        for (h, hook) in hooks.iter().enumerate() {
            let path = at(&path, h);
            let read = ReadHook {
                cx,
                event: &event,
                point,
                subject: format!("hook #{} of `{event}`", h + 1),
                path: &path,
                scope,
                project_dir: &project_dir,
                env: &env,
                priority,
            };
            let fails_closed = hook
                .get("failClosed")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let entry = read.entry(hook, &mut loaded.warnings);
            loaded.take(entry, point, fails_closed, &cx.hook_origin(&path));
        }
    }
    Ok(loaded)
}

/// The point of one of Cursor's events, or `None` with a warning (see the module docs).
fn point_of(
    cx: &FileContext<'_>,
    event: &str,
    path: &[PathSegment],
    warnings: &mut Vec<String>,
) -> Option<&'static str> {
    match EVENTS.iter().find(|(name, _)| *name == event) {
        Some((_, Some(point))) => {
            return hookchain_core::points::resolve(point).map(|p| p.name);
        }
        Some((_, None)) => warnings.push(format!(
            "{}: Cursor's event `{event}` has no hookchain point; its hooks are left out",
            cx.place(path)
        )),
        None => {
            let hint = closest(event, EVENTS.iter().map(|(name, _)| *name))
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            warnings.push(format!(
                "{}: `{event}` is not one of Cursor's events (Cursor ignores it); its hooks are \
                 left out{hint}",
                cx.place(path)
            ));
        }
    }
    None
}

/// The project directory of a file: the directory holding `.cursor/` for a project's file,
/// else the project directory of a session given none.
fn project_dir(file: &str, scope: Scope) -> PathBuf {
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    match (scope, path.parent().and_then(Path::parent)) {
        (Scope::Project, Some(project)) => project.to_path_buf(),
        _ => hookchain_core::project::decide(None),
    }
}

/// What a file's hooks get on top of the agent's environment: `CURSOR_PROJECT_DIR` for a
/// project's, `CURSOR_PLUGIN_ROOT` (the directory holding `hooks/`) for a plugin's.
fn env(file: &str, scope: Scope, project_dir: &Path) -> BTreeMap<String, String> {
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    match scope {
        Scope::Project => BTreeMap::from([(
            "CURSOR_PROJECT_DIR".to_owned(),
            project_dir.display().to_string(),
        )]),
        Scope::Plugin => {
            let root = path
                .parent()
                .and_then(Path::parent)
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."));
            BTreeMap::from([("CURSOR_PLUGIN_ROOT".to_owned(), root.display().to_string())])
        }
        Scope::User => BTreeMap::new(),
    }
}

/// One hook object of an event's list.
struct ReadHook<'a> {
    cx: &'a FileContext<'a>,
    event: &'a str,
    point: &'static str,
    subject: String,
    path: &'a [PathSegment],
    scope: Scope,
    project_dir: &'a Path,
    env: &'a BTreeMap<String, String>,
    priority: i32,
}

impl ReadHook<'_> {
    /// The hook, or `None` when it is left out (with a warning).
    fn entry(
        &self,
        hook: &Value,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Entry>, ConfigError> {
        let cx = self.cx;
        let subject = self.subject.as_str();
        let Value::Object(fields) = hook else {
            return Err(cx.error(
                subject,
                self.path,
                format!(
                    "expected an object with `command`, found {}",
                    json_kind(hook)
                ),
            ));
        };
        cx.known_keys(subject, fields, self.path, HOOK_KEYS)?;
        let field = |key: &str| fields.get(key).filter(|v| !v.is_null());
        let key_subject = |key: &str| format!("`{key}` of {subject}");
        if let Some(kind) = field("type") {
            match cx.string(&key_subject("type"), kind, &at(self.path, "type"))? {
                "command" => {}
                "prompt" => {
                    warnings.push(format!(
                        "{}: a `prompt` hook of `{}` asks a model inside Cursor; hookchain runs \
                         `command` hooks only, so it is left out",
                        cx.place(self.path),
                        self.event
                    ));
                    return Ok(None);
                }
                other => {
                    return Err(cx.error(
                        key_subject("type"),
                        &at(self.path, "type"),
                        format!("unknown hook type `{other}` (`command` or `prompt`)"),
                    ));
                }
            }
        }
        let on_error = match field("failClosed") {
            Some(v) => {
                if cx.boolean(&key_subject("failClosed"), v, &at(self.path, "failClosed"))? {
                    OnError::Block
                } else {
                    OnError::Warn
                }
            }
            None => OnError::Warn,
        };
        let timeout = match field("timeout") {
            Some(v) => self.timeout(v, warnings)?,
            None => DEFAULT_TIMEOUT,
        };
        let matcher = self.matcher(field("matcher"), warnings)?;
        if let Some(limit) = fields.get("loop_limit") {
            self.loop_limit(limit, warnings)?;
        }
        let command_path = at(self.path, "command");
        let Some(line) = field("command") else {
            return Err(cx.error(subject, self.path, "has no `command`"));
        };
        let line = cx.string(&key_subject("command"), line, &command_path)?;
        let (line, working_dir) = self.placed(line);
        let line = line.as_str();
        let check_dir = working_dir
            .clone()
            .unwrap_or_else(|| self.project_dir.to_path_buf());
        if let Some(warning) = cx.shell_line_warning(
            &key_subject("command"),
            line,
            &check_dir,
            self.project_dir,
            self.env,
            &command_path,
        )? {
            warnings.push(warning);
        }
        let transport = Transport::Command(CommandSpec {
            argv: vec!["sh".to_owned(), "-c".to_owned(), line.to_owned()],
            display: line.to_owned(),
            env: self.env.clone(),
            working_dir,
            env_clear: false,
            env_allow: Vec::new(),
        });
        Ok(Some(Entry {
            name: None,
            condition: None,
            hook: ExternalHook {
                point: self.point,
                event: self.event.to_owned(),
                name: String::new(),
                transport,
                matcher,
                timeout,
                priority: self.priority,
                on_error,
                dialect: cx.dialect,
                required: false,
                origin: cx.hook_origin(self.path),
            },
        }))
    }

    /// `timeout`: seconds; above the longest time limit, milliseconds (with a warning).
    fn timeout(&self, value: &Value, warnings: &mut Vec<String>) -> Result<Duration, ConfigError> {
        let cx = self.cx;
        let subject = format!("`timeout` of {}", self.subject);
        let path = at(self.path, "timeout");
        let max = hookchain_external::MAX_TIMEOUT.as_secs_f64();
        if let Some(n) = value.as_f64()
            && n > max
            && n / 1000.0 <= max
        {
            warnings.push(format!(
                "{}: `timeout: {value}` is more than {max} seconds, the longest a hook may have: \
                 read as milliseconds ({} s); Cursor's unit is seconds",
                cx.place(&path),
                n / 1000.0
            ));
            return cx.timeout(&subject, &Value::from(n / 1000.0), &path);
        }
        cx.timeout(&subject, value, &path)
    }

    /// `matcher`, on the events that take one; elsewhere ignored with a warning.
    fn matcher(
        &self,
        value: Option<&Value>,
        warnings: &mut Vec<String>,
    ) -> Result<Matcher, ConfigError> {
        let path = at(self.path, "matcher");
        let Some(value) = value else {
            return Ok(Matcher::all());
        };
        if !MATCHED.contains(&self.event) {
            warnings.push(format!(
                "{}: `{}` takes no `matcher` (the event is its filter); the matcher is ignored",
                self.cx.place(&path),
                self.event
            ));
            return Ok(Matcher::all());
        }
        self.cx.matcher(
            &format!("`matcher` of {}", self.subject),
            Some(value),
            &path,
        )
    }

    /// `loop_limit`: a whole number or `null`, on `stop` and `subagentStop`.
    fn loop_limit(&self, value: &Value, warnings: &mut Vec<String>) -> Result<(), ConfigError> {
        let cx = self.cx;
        let path = at(self.path, "loop_limit");
        if !matches!(self.event, "stop" | "subagentStop") {
            warnings.push(format!(
                "{}: `loop_limit` bounds the follow-ups of `stop` hooks; on `{}` it is ignored",
                cx.place(&path),
                self.event
            ));
            return Ok(());
        }
        match value {
            Value::Null => Ok(()),
            Value::Number(n) if n.as_u64().is_some() => {
                let limit = n.as_u64().unwrap_or(0);
                if limit < REDO_CAP {
                    warnings.push(format!(
                        "{}: `loop_limit: {limit}`: hookchain bounds the follow-ups of a turn by \
                         its redo cap for every hook together ({REDO_CAP} unless the agent sets \
                         another), not per hook; the script gets `loop_count` to stop sooner",
                        cx.place(&path)
                    ));
                }
                Ok(())
            }
            other => Err(cx.error(
                format!("`loop_limit` of {}", self.subject),
                &path,
                format!(
                    "expected a whole number or null, found {}",
                    json_kind(other)
                ),
            )),
        }
    }

    /// The line that runs and where it runs (see the module docs): relative paths of the line
    /// that Cursor resolves from the `hooks.json` file made absolute, and the directory — the
    /// project for a project's file, the session's (`None`) for the others.
    fn placed(&self, line: &str) -> (String, Option<PathBuf>) {
        let dir = self.cx.dir();
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        match self.scope {
            Scope::Plugin => (line.to_owned(), None),
            // `./hooks/x.sh` of `~/.cursor/hooks.json` is `~/.cursor/hooks/x.sh`, run in the
            // session's project (its scripts read the project's git state).
            Scope::User => (anchor_relative(line, &dir, None), None),
            // Cursor's 2.0 page resolves a relative path from the hooks.json; later files write
            // it from the project root: a path found under `.cursor/` only is `.cursor/`'s.
            Scope::Project => (
                anchor_relative(line, &dir, Some(self.project_dir)),
                Some(self.project_dir.to_path_buf()),
            ),
        }
    }
}

/// `line` with its relative paths anchored at `base` (made absolute, single-quoted): the first
/// word always when `root` is `None`, and every word that names a file under `base` — but, when
/// `root` is given, not one that names a file under `root` too. Words with shell syntax in them
/// (quotes inside, `$`, `;`, `|`, `&`, `<`, `>`, `(`, `)`, backquotes, `=`) are left as they are.
fn anchor_relative(line: &str, base: &Path, root: Option<&Path>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    let mut first = true;
    while !rest.is_empty() {
        let start = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        if rest.is_empty() {
            break;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..end];
        rest = &rest[end..];
        let word = token
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .or_else(|| token.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
            .unwrap_or(token);
        let plain = !word.is_empty()
            && word.contains('/')
            && !word.starts_with(['/', '~'])
            && !word.contains(|c: char| "\"'$;|&<>()`=\\*?[]{}".contains(c));
        let anchor = plain
            && match root {
                None => first || base.join(word).exists(),
                Some(root) => base.join(word).exists() && !root.join(word).exists(),
            };
        if anchor {
            let path = base.join(word.strip_prefix("./").unwrap_or(word));
            out.push('\'');
            out.push_str(&path.display().to_string().replace('\'', "'\\''"));
            out.push('\'');
        } else {
            out.push_str(token);
        }
        first = false;
    }
    out
}

impl Config {
    /// Reads a Cursor `hooks.json` (see [`cursor`](crate::cursor) for how each key is read):
    /// a project's `.cursor/hooks.json`, the user's `~/.cursor/hooks.json`, or a plugin's
    /// `hooks/hooks.json`, told apart by the path. A project's file cannot approve its own
    /// hooks.
    pub fn load_cursor(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let (name, text) = crate::load::read(path.as_ref())?;
        Config::from_cursor_str(&text, &name)
    }

    /// Parses the text of a Cursor `hooks.json`; `source_name` is its path, which says whose
    /// file it is (a project's, the user's, a plugin's) and where its commands run.
    pub fn from_cursor_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let scope = Scope::of(source_name);
        Config::cursor(text, source_name, scope, priority(false, scope))
    }

    /// Every `hooks.json` Cursor loads for a session in `project_dir`, in its order: the
    /// project's `.cursor/hooks.json` (untrusted: it cannot approve its own hooks), then
    /// `home_dir/.cursor/hooks.json` (none when `home_dir` is `None`). A file that does not
    /// exist is skipped; one that does not read or parse is an error; an entry that cannot be
    /// honoured is left out with a warning. The enterprise file is read by
    /// [`discover_cursor`](Config::discover_cursor) only.
    pub fn discover_cursor_from(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        let mut files = vec![(
            project_dir.join(".cursor").join("hooks.json"),
            Scope::Project,
            false,
        )];
        if let Some(home) = home_dir {
            files.push((home.join(".cursor").join("hooks.json"), Scope::User, false));
        }
        Config::discover_cursor_files(&files)
    }

    /// [`discover_cursor_from`](Config::discover_cursor_from) for the current directory and the
    /// home directory, after the enterprise file (`/etc/cursor/hooks.json` on Linux,
    /// `/Library/Application Support/Cursor/hooks.json` on macOS), whose hooks run first.
    pub fn discover_cursor() -> Result<Config, ConfigError> {
        let mut files = Vec::new();
        if let Some(enterprise) = enterprise_file() {
            files.push((enterprise, Scope::User, true));
        }
        let project =
            Config::discover_cursor_from(Path::new("."), crate::file::home_dir().as_deref());
        Ok(Config::discover_cursor_files(&files)?.merge(project?))
    }

    /// The files that exist of `files` (each with its scope, and `true` for the enterprise
    /// file), in order.
    fn discover_cursor_files(files: &[(PathBuf, Scope, bool)]) -> Result<Config, ConfigError> {
        let mut config = Config::new();
        let canonical: Vec<PathBuf> = files
            .iter()
            .map(|(path, _, _)| std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()))
            .collect();
        for (index, (path, scope, enterprise)) in files.iter().enumerate() {
            // A session in the home directory: its project's file is the user's, read once,
            // as the user's.
            if canonical[index + 1..].contains(&canonical[index]) {
                continue;
            }
            let Some(text) = crate::file::read_text(path)? else {
                continue;
            };
            let name = path.display().to_string();
            crate::file::check_nesting(&text, &name)?;
            let file = Config::cursor(&text, &name, *scope, priority(*enterprise, *scope))?;
            config = config.merge(file);
        }
        Ok(config)
    }

    fn cursor(
        text: &str,
        source_name: &str,
        scope: Scope,
        priority: i32,
    ) -> Result<Config, ConfigError> {
        let loaded = read_agent_json(text, source_name, Dialect::Cursor, |cx, text| {
            read(cx, text, scope, priority)
        })?;
        let config = Config::of_hooks(source_name, loaded);
        Ok(if scope == Scope::Project {
            untrusted(config, true)
        } else {
            config
        })
    }
}

/// Cursor's enterprise `hooks.json` on this system, if the system has one.
fn enterprise_file() -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        Some(PathBuf::from(
            "/Library/Application Support/Cursor/hooks.json",
        ))
    } else if cfg!(windows) {
        Some(PathBuf::from(r"C:\ProgramData\Cursor\hooks.json"))
    } else if cfg!(unix) {
        Some(PathBuf::from("/etc/cursor/hooks.json"))
    } else {
        None
    }
}

/// `true` when the file at `path` with `text` is Cursor's: a `.cursor/hooks.json`, or a
/// `hooks/hooks.json` in Cursor's form ([`is_cursor_file`]).
pub(crate) fn is_cursor_path(path: &Path, text: &str) -> bool {
    if path.file_name().is_none_or(|n| n != "hooks.json") {
        return false;
    }
    let dir = path.parent().and_then(Path::file_name);
    match dir {
        Some(d) if d == ".cursor" => true,
        Some(d) if d == "hooks" => is_cursor_file(text),
        _ => false,
    }
}

/// `true` when `text` is a Cursor `hooks.json`: a top-level `version`, or a `hooks` object
/// naming one of Cursor's events (camelCase, which no Claude Code event is).
pub(crate) fn is_cursor_file(text: &str) -> bool {
    let Ok(Value::Object(top)) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    if top.contains_key("version") {
        return true;
    }
    match top.get("hooks") {
        Some(Value::Object(events)) => events
            .keys()
            .any(|event| EVENTS.iter().any(|(name, _)| name == event)),
        _ => false,
    }
}

/// The priorities of Cursor's sources: enterprise hooks run before the project's, which run
/// before the user's (see the module docs).
pub(crate) fn priority(enterprise: bool, scope: Scope) -> i32 {
    match (enterprise, scope) {
        (true, _) => DEFAULT_PRIORITY - 2,
        (false, Scope::Project) => DEFAULT_PRIORITY - 1,
        _ => DEFAULT_PRIORITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_files_are_told_from_claude_codes() {
        assert!(is_cursor_file(r#"{"version": 1, "hooks": {}}"#));
        assert!(is_cursor_file(r#"{"hooks": {"preToolUse": []}}"#));
        assert!(!is_cursor_file(r#"{"hooks": {"PreToolUse": []}}"#));
        assert!(!is_cursor_file("not json"));
    }

    #[test]
    fn relative_paths_are_anchored_where_cursor_resolves_them() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join(".cursor");
        std::fs::create_dir_all(base.join("hooks")).unwrap();
        std::fs::write(base.join("hooks/x.js"), "").unwrap();
        let b = base.display().to_string();
        // A user's file: the program always, an operand found there.
        assert_eq!(
            anchor_relative("./hooks/a.sh --fast", &base, None),
            format!("'{b}/hooks/a.sh' --fast")
        );
        assert_eq!(
            anchor_relative("node  hooks/x.js && echo src/y", &base, None),
            format!("node  '{b}/hooks/x.js' && echo src/y")
        );
        // A project's file: only what is under `.cursor/` and not under the project.
        let root = dir.path();
        assert_eq!(
            anchor_relative("node hooks/x.js", &base, Some(root)),
            format!("node '{b}/hooks/x.js'")
        );
        assert_eq!(
            anchor_relative(".cursor/hooks/x.js", &base, Some(root)),
            ".cursor/hooks/x.js"
        );
        // Shell syntax is left alone.
        assert_eq!(
            anchor_relative("\"$HOME\"/hooks/x.js", &base, None),
            "\"$HOME\"/hooks/x.js"
        );
    }

    #[test]
    fn every_event_with_a_point_names_a_point_of_the_catalog() {
        for (event, point) in EVENTS {
            if let Some(point) = point {
                assert!(hookchain_core::points::resolve(point).is_some(), "{event}");
            }
        }
    }
}
