//! GitHub Copilot's hook files (Copilot CLI and Copilot's cloud agent), read as Copilot reads
//! them.
//!
//! ```json
//! {
//!   "version": 1,
//!   "hooks": {
//!     "preToolUse": [
//!       {
//!         "type": "command",
//!         "matcher": "bash",
//!         "bash": "./.github/hooks/scripts/guard.sh",
//!         "powershell": "& ./.github/hooks/scripts/guard.ps1",
//!         "cwd": ".",
//!         "env": { "LOG_DIR": "${HOME}/.copilot-logs" },
//!         "timeoutSec": 10
//!       }
//!     ]
//!   }
//! }
//! ```
//!
//! Sources: `github/docs`, `content/copilot/reference/hooks-configuration.md` and
//! `content/copilot/reference/copilot-cli-reference/cli-hooks-reference.md` (the reference);
//! rules marked (summary) come from a third-party summary of that reference. The research, with
//! every event, is in `docs/agents/copilot.md`; how a hook is fired and read is in
//! `hookchain_external::wire::agents` (the Copilot overlay).
//!
//! # Where Copilot reads them
//!
//! [`Config::discover_copilot_from`](crate::Config::discover_copilot_from) loads, in this
//! order: every `*.json` of the user's `~/.copilot/hooks/`, then every `*.json` of the
//! project's `.github/hooks/`, each directory in file-name order; the project's files are
//! untrusted (their hooks run once approved, and they cannot approve them).
//! [`Config::load`](crate::Config::load) reads any `.json` file of a `.github/hooks/` or
//! `.copilot/hooks/` directory as a Copilot file. Copilot combines every source and runs every
//! matching entry, in order: hookchain runs a file's hooks in the file's order, and the files
//! of one directory in name order (hooks of one priority run by name, `<file>#<n>`). Not read:
//! `$COPILOT_HOME` (the user directory is always `HOME/.copilot`), hooks inside Copilot's
//! `settings.json`, plugins and machine policy (summary).
//!
//! # The rules it keeps
//!
//! | key | read as | source |
//! |---|---|---|
//! | `version` | `1`; missing or another value is a warning, and the file loads | reference: `version: 1` |
//! | `disableAllHooks: true` | none of the file's hooks runs (a warning says so) | (summary) |
//! | `hooks` | event → list of entries, run in order | reference |
//! | camelCase event (`preToolUse`) | Copilot's protocol ([`Dialect::Copilot`]): camelCase payload, `permissionDecision`/`modifiedArgs` answers | reference, "two payload formats" |
//! | PascalCase event (`PreToolUse`) | the VS Code compatible form: Claude Code's protocol and matchers ([`Dialect::ClaudeCode`]) | reference |
//! | `type` | `command` runs; `prompt` (auto-submitted text) and `http` (summary) are left out with a warning | reference |
//! | `exec` + `args` | the no-shell form (summary): left out with a warning | (summary) |
//! | `bash` | the Unix command: run with `bash -c` | reference |
//! | `command` | the cross-platform command (summary; the VS Code form's only one), used when there is no `bash`: `bash -c` | (summary) |
//! | `linux`, `osx`, `windows` | the VS Code form's per-platform overrides of `command`: this platform's wins over `command`; `windows` is never run here | VS Code's hooks docs, as public files use them |
//! | `powershell` | the Windows command, used only when there is neither `bash` nor `command`: run with `pwsh -Command`; without `pwsh` on `PATH` it fails at each firing under its policy (a warning says so when the file loads) | reference |
//! | `cwd` | where it runs: relative to the repository root (the directory holding `.github/`), or absolute; default the repository root (a user file: the session's project directory) | reference |
//! | `env` | added to the environment; `$VAR`, `${VAR}` and `~/` in values expanded when the file loads | reference ("values expanded") |
//! | `timeoutSec` | seconds, default 30; `timeout` is an alias (the VS Code form's key) | reference; (summary) |
//! | `matcher` | camelCase events: a regex anchored as `^(?:PATTERN)$` on the tool name (`preToolUse`, `postToolUse`, `postToolUseFailure`, `permissionRequest`), `agentName` (`subagentStart`), `trigger` (`preCompact`), `notification_type` (`notification`); on any other event it is ignored, with a warning; PascalCase: Claude Code's rule | reference |
//! | `comment`, any other key | ignored, as Copilot ignores it; a key Copilot does not document gets a warning naming it, and the entry loads | reference (GitHub's example has `comment`) |
//!
//! - Failure policy: [`OnError::Warn`] — a hook that fails (exit code other than 0 and 2,
//!   timeout, an answer that does not read) is logged and skipped: "they never block agent
//!   execution" (reference).
//! - Every event of the reference has a point (see the overlay's table); an event hookchain
//!   does not know is left out with a warning naming it and its line.
//! - An entry that runs `hookchain hook …` (what `hookchain install --agent copilot` writes) is
//!   left out with a warning: inside hookchain, the chain it would call already runs.
//! - Copilot sets no project-directory variable for its hooks (the reference documents none);
//!   hooks run in the repository root and read `cwd` from the payload.
//! - One entry that cannot be honoured (a malformed value, no command, a bad matcher) costs
//!   that entry only: it is left out with a warning naming the file, the line and the problem.
//!   Only a file that is not JSON, or whose `hooks` is not an object, is an error.
//! - A line that starts with a path (`./.github/hooks/scripts/x.sh`) whose file does not exist
//!   or cannot run is kept, with a warning: it fails at each firing under its policy, as in
//!   Copilot. Consent pins the script such a line runs by its content.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_core::{ConfigError, Dialect, PathSegment};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::claude::{self, Events};
use crate::entry::{Entry, FileContext, Loaded, at, json_kind};
use hookchain_external::{
    CommandSpec, DEFAULT_PRIORITY, ExternalHook, Matcher, OnError, Transport,
};

/// Copilot's events (the reference's 13), for the hint when a name differs in case alone.
pub(crate) const EVENTS: &[&str] = &[
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "preToolUse",
    "permissionRequest",
    "postToolUse",
    "postToolUseFailure",
    "agentStop",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "errorOccurred",
    "notification",
];

/// The events whose `matcher` Copilot reads (on `toolName`, `agentName`, `trigger` or
/// `notification_type`); on any other its matcher is ignored.
const MATCHED_EVENTS: &[&str] = &[
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "permissionRequest",
    "subagentStart",
    "preCompact",
    "notification",
];

/// The keys of an entry Copilot documents.
const ENTRY_KEYS: &[&str] = &[
    "type",
    "bash",
    "powershell",
    "command",
    "cwd",
    "env",
    "timeoutSec",
    "timeout",
    "matcher",
    "comment",
    "prompt",
    "url",
    "headers",
    "exec",
    "args",
    "linux",
    "osx",
    "windows",
];

/// The VS Code form's override of `command` for this platform (`windows` is never used here).
const PLATFORM_KEY: &str = if cfg!(target_os = "macos") {
    "osx"
} else {
    "linux"
};

/// Copilot's default time limit: 30 seconds (reference).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The parts of a hooks file hookchain reads; the order of the events is the file's.
#[derive(Deserialize)]
struct File {
    #[serde(default)]
    version: Option<Value>,
    #[serde(default)]
    hooks: Option<Events>,
    #[serde(default, rename = "disableAllHooks")]
    disable_all_hooks: Option<Value>,
}

/// Reads a Copilot hooks file's text; `cx.file` is where it was read from (its dialect is
/// Copilot's). Only a file that is not JSON, or whose `hooks` is not an object, is an error.
pub(crate) fn read(cx: &FileContext<'_>, text: &str) -> Result<Loaded, ConfigError> {
    let file: File = serde_json::from_str(text).map_err(|e| claude::syntax(cx.file, &e))?;
    let mut loaded = Loaded::default();
    if claude::all_hooks_disabled(cx, file.disable_all_hooks.as_ref(), &mut loaded)? {
        return Ok(loaded);
    }
    match &file.version {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        Some(other) => {
            let path = vec![PathSegment::Key("version".to_owned())];
            loaded.warnings.push(format!(
                "{}: `version` is {other}; Copilot reads version 1, and so does hookchain",
                cx.place(&path)
            ));
        }
        None => loaded.warnings.push(format!(
            "{}: no `version` (Copilot's files say `\"version\": 1`); read as version 1",
            cx.file
        )),
    }
    let (root_dir, fixed_dir) = directories(cx.file);
    let pascal = FileContext {
        file: cx.file,
        source: cx.source,
        dialect: Dialect::ClaudeCode,
    };
    let root = vec![PathSegment::Key("hooks".to_owned())];
    for (event, entries) in file.hooks.map(|e| e.0).unwrap_or_default() {
        let path = at(&root, event.as_str());
        // A PascalCase key is the VS Code compatible form: Claude Code's protocol.
        let (ecx, known) = if event.starts_with(|c: char| c.is_ascii_uppercase()) {
            (&pascal, claude::EVENTS)
        } else {
            (cx, EVENTS)
        };
        let Some(point) = ecx.agent_event(&event, &path, known, &mut loaded.warnings) else {
            continue;
        };
        let point = point.name;
        let expected = r#"hooks (`[{"type": "command", "bash": ...}]`)"#;
        let Some(entries) = ecx.event_list(&event, &path, point, entries, expected, &mut loaded)
        else {
            continue;
        };
        for (n, entry) in entries.iter().enumerate() {
            let path = at(&path, n);
            let read = ReadEntry {
                cx: ecx,
                event: &event,
                point,
                subject: format!("hook #{} of `{event}`", n + 1),
                path: &path,
                root_dir: &root_dir,
                fixed_dir: fixed_dir.as_deref(),
            };
            let entry = read.entry(entry, &mut loaded.warnings);
            loaded.take(entry, point, false, &ecx.hook_origin(&path));
        }
    }
    Ok(loaded)
}

/// The repository root of a hooks file (the directory holding `.github/` for a project's
/// `.github/hooks/NAME.json`, else the session's project directory as hookchain decides it),
/// and where its hooks run by default: the root for a project's file, `None` (the session's
/// project directory when they fire) for a user's `~/.copilot/hooks/NAME.json` or a file
/// elsewhere.
fn directories(file: &str) -> (PathBuf, Option<PathBuf>) {
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    let hooks = path.parent();
    let github = hooks.and_then(Path::parent);
    let in_github = hooks.is_some_and(|d| d.file_name().is_some_and(|n| n == "hooks"))
        && github.is_some_and(|d| d.file_name().is_some_and(|n| n == ".github"));
    match github.and_then(Path::parent) {
        Some(root) if in_github => (root.to_path_buf(), Some(root.to_path_buf())),
        _ => (hookchain_core::project::decide(None), None),
    }
}

/// One entry of an event's list.
struct ReadEntry<'a> {
    cx: &'a FileContext<'a>,
    event: &'a str,
    point: &'static str,
    subject: String,
    path: &'a [PathSegment],
    /// The repository root: what `cwd` and a leading `./` are relative to.
    root_dir: &'a Path,
    /// Where it runs when it gives no `cwd`: the root for a project's file, else `None`.
    fixed_dir: Option<&'a Path>,
}

impl ReadEntry<'_> {
    /// The hook, or `None` when it is left out (with a warning).
    fn entry(
        &self,
        entry: &Value,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Entry>, ConfigError> {
        let cx = self.cx;
        let Value::Object(fields) = entry else {
            return Err(cx.error(
                &self.subject,
                self.path,
                format!(
                    "expected an object with `type` and `bash`, found {}",
                    json_kind(entry)
                ),
            ));
        };
        for key in fields.keys().filter(|k| !ENTRY_KEYS.contains(&k.as_str())) {
            warnings.push(format!(
                "{}: `{key}` of {} is not a key Copilot documents; it is ignored, as Copilot \
                 ignores it",
                cx.place(&at(self.path, key.as_str())),
                self.subject
            ));
        }
        let field = |key: &str| fields.get(key).filter(|v| !v.is_null());
        let key_subject = |key: &str| format!("`{key}` of {}", self.subject);
        let kind = match field("type") {
            Some(v) => cx.string(&key_subject("type"), v, &at(self.path, "type"))?,
            None => "command",
        };
        match kind {
            "command" => {}
            "prompt" | "http" => {
                warnings.push(format!(
                    "{}: a `{kind}` hook of `{}` is left out: hookchain runs Copilot's `command` \
                     hooks only",
                    cx.place(self.path),
                    self.event
                ));
                return Ok(None);
            }
            other => {
                return Err(cx.error(
                    key_subject("type"),
                    &at(self.path, "type"),
                    format!("unknown hook type `{other}` (`command`)"),
                ));
            }
        }
        let env = match field("env") {
            Some(v) => {
                let env = cx.env_map(&key_subject("env"), v, &at(self.path, "env"))?;
                env.into_iter()
                    .map(|(name, value)| {
                        let value = crate::script::expand(&value, self.root_dir, &BTreeMap::new());
                        (name, value)
                    })
                    .collect()
            }
            None => BTreeMap::new(),
        };
        let working_dir = match field("cwd") {
            Some(v) => {
                let cwd = cx.string(&key_subject("cwd"), v, &at(self.path, "cwd"))?;
                Some(self.root_dir.join(cwd))
            }
            None => self.fixed_dir.map(Path::to_path_buf),
        };
        let timeout = match ["timeoutSec", "timeout"]
            .into_iter()
            .find_map(|k| Some((k, field(k)?)))
        {
            Some((key, v)) => cx.timeout(&key_subject(key), v, &at(self.path, key))?,
            None => DEFAULT_TIMEOUT,
        };
        let matcher = cx.matcher(
            &key_subject("matcher"),
            fields.get("matcher"),
            &at(self.path, "matcher"),
        )?;
        let matcher = if cx.dialect == Dialect::Copilot
            && !matcher.is_all()
            && !MATCHED_EVENTS.contains(&self.event)
        {
            warnings.push(format!(
                "{}: Copilot filters `{}` by no matcher, so its `matcher` is ignored and the \
                 hook fires for every `{}`",
                cx.place(&at(self.path, "matcher")),
                self.event,
                self.event
            ));
            Matcher::all()
        } else {
            matcher
        };
        let Some(transport) = self.command(fields, env, working_dir, warnings)? else {
            return Ok(None);
        };
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
                priority: DEFAULT_PRIORITY,
                on_error: OnError::Warn,
                dialect: cx.dialect,
                required: false,
                origin: cx.hook_origin(self.path),
            },
        }))
    }

    /// The command of the entry: `bash`, else the platform's override (`linux`, `osx`), else
    /// `command`, run with `bash -c`; else `powershell`, run with `pwsh -Command`.
    fn command(
        &self,
        fields: &Map<String, Value>,
        env: BTreeMap<String, String>,
        working_dir: Option<PathBuf>,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Transport>, ConfigError> {
        let cx = self.cx;
        let field = |key: &str| fields.get(key).filter(|v| !v.is_null());
        let Some((key, line)) = ["bash", PLATFORM_KEY, "command", "powershell"]
            .into_iter()
            .find_map(|key| Some((key, field(key)?)))
        else {
            if field("exec").is_some() {
                warnings.push(format!(
                    "{}: {} is an `exec` hook (a program and `args`, no shell), which hookchain \
                     does not run for Copilot; it is left out",
                    cx.place(self.path),
                    self.subject
                ));
                return Ok(None);
            }
            return Err(cx.error(
                &self.subject,
                self.path,
                "has no `bash` (nor `command` or `powershell`)",
            ));
        };
        let subject = format!("`{key}` of {}", self.subject);
        let line_path = at(self.path, key);
        let line = cx.string(&subject, line, &line_path)?;
        if line.trim().is_empty() {
            return Err(cx.error(&subject, &line_path, "the command is empty"));
        }
        if is_hookchain_guest(line) {
            warnings.push(format!(
                "{}: {} runs `hookchain hook`, hookchain's own entry for Copilot (written by \
                 `hookchain install --agent copilot`): inside hookchain its chain already runs, \
                 so the entry is left out",
                cx.place(&line_path),
                self.subject
            ));
            return Ok(None);
        }
        let argv = if key == "powershell" {
            let pwsh = CommandSpec {
                argv: vec!["pwsh".to_owned()],
                display: "pwsh".to_owned(),
                env: env.clone(),
                working_dir: None,
                env_clear: false,
                env_allow: Vec::new(),
            };
            if hookchain_external::program::resolve_program(&pwsh).is_err() {
                warnings.push(format!(
                    "{}: {} has only a `powershell` command, which Copilot runs on Windows; \
                     hookchain runs it with `pwsh -Command`, and `pwsh` is not on PATH here, so \
                     it fails at each firing under its policy (warn)",
                    cx.place(&line_path),
                    self.subject
                ));
            }
            vec!["pwsh".to_owned(), "-Command".to_owned(), line.to_owned()]
        } else {
            let dir = working_dir.as_deref().unwrap_or(self.root_dir);
            if let Some(warning) =
                cx.shell_line_warning(&subject, line, dir, self.root_dir, &env, &line_path)?
            {
                warnings.push(warning);
            }
            vec!["bash".to_owned(), "-c".to_owned(), line.to_owned()]
        };
        Ok(Some(Transport::Command(CommandSpec {
            argv,
            display: line.to_owned(),
            env,
            working_dir,
            env_clear: false,
            env_allow: Vec::new(),
        })))
    }
}

/// `true` for a line that runs `hookchain hook …` (any path to the program, quoted or not):
/// the entry `hookchain install --agent copilot` writes.
fn is_hookchain_guest(line: &str) -> bool {
    let words = shell_words::split(line).unwrap_or_default();
    let program = words.first().map(|w| Path::new(w).file_name());
    matches!(program, Some(Some(name)) if name == "hookchain" || name == "hookchain.exe")
        && words.get(1).is_some_and(|w| w == "hook")
}
