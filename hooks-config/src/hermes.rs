//! Hermes' `config.yaml` (its `hooks:` block) and Starchild's `shell_hooks.yaml`, read as those
//! agents read them.
//!
//! ```yaml
//! # ~/.hermes/config.yaml                    # workspace/config/shell_hooks.yaml (Starchild)
//! hooks:                                      hooks:
//!   pre_tool_call:                              - event: pre_tool_call
//!     - command: ~/.hermes/agent-hooks/guard.py   command: /data/workspace/hooks/guard.py
//!       matcher: "terminal|write_file"            matcher: "rm -rf|dd if=|mkfs"
//!       timeout: 10                               timeout: 10
//!       fail_closed: true
//! hooks_auto_accept: true
//! ```
//!
//! # The rules it keeps
//!
//! - Hermes: `hooks:` maps Hermes' event names to lists of entries; every other top-level key
//!   of the file is Hermes' own and is left alone. Starchild: `hooks:` is a list of entries,
//!   each naming its `event:`.
//! - An event is a point of the catalog by the agent's name for it (`pre_tool_call` is
//!   `intercept_tool_call`, `on_response_end` is `on_stop`). An event hookchain has no point for,
//!   and any name it does not know, is left out with a warning naming it and its line.
//! - `command` is split like a shell would split it (`shlex.split`) and run without a shell,
//!   after a leading `~/` is expanded (`os.path.expanduser`), as both agents run it. A relative
//!   program is taken from the agent's current directory, as theirs is: it is made absolute
//!   when the file is loaded, so the file that runs and the file consent hashes at every firing
//!   are one, whatever project directory a session gives (its relative operands, such as
//!   `python3 hooks/guard.py`'s script, are taken from the firing's directory by both). A program that does not
//!   exist (yet) or cannot run is a runtime error of that one hook: it is kept, a warning names
//!   the file and line, and it fails at each firing under its policy.
//! - `matcher`: Hermes' is a regular expression that must match the whole tool name
//!   (`re.fullmatch`), on `pre_tool_call`/`post_tool_call` only (elsewhere Hermes ignores it,
//!   and so does hookchain, with a warning); Starchild's is searched in the payload's content.
//! - `timeout` is in seconds: default 60; Hermes clamps it to 300 and Starchild's is taken as
//!   written (at most 600).
//! - A failed hook is a warning (both agents go on without it); Hermes' `fail_closed: true`
//!   (or `failClosed`) makes it block ([`OnError::Block`]), and a `fail_closed` entry that
//!   cannot be loaded blocks its point. `async: true` runs in the chain and is waited for (with
//!   a warning).
//! - `hooks_auto_accept: true` is honoured in the user's own `~/.hermes/config.yaml` only, as
//!   `hookchain.yaml`'s is in the user's own file; anywhere else it is left out with a warning.
//! - One entry that cannot be honoured (an unknown key, a malformed value) costs that entry
//!   only, with a warning naming the file and line; the file's other hooks load.

use std::collections::BTreeMap;
use std::time::Duration;

use hookchain_core::{ConfigError, PathSegment};
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

use crate::entry::{Entry, FileContext, Loaded, at, describe_below};
use crate::position::{yaml_key, yaml_kind};
use hookchain_external::program::argv_from_line;
use hookchain_external::{
    CommandSpec, DEFAULT_PRIORITY, ExternalHook, Matcher, OnError, Transport,
};

/// The keys of a Hermes entry.
const HERMES_KEYS: &[&str] = &[
    "command",
    "matcher",
    "timeout",
    "async",
    "fail_closed",
    "failClosed",
];

/// The keys of a Starchild entry.
const STARCHILD_KEYS: &[&str] = &["event", "command", "matcher", "timeout"];

/// Hermes' longest time limit.
const HERMES_MAX_TIMEOUT: f64 = 300.0;

/// Reads a Hermes `config.yaml`. The second value is `hooks_auto_accept` and its line, when
/// the file says it.
pub(crate) fn read_hermes(
    cx: &FileContext<'_>,
    document: Yaml,
) -> Result<(Loaded, Option<(bool, String)>), ConfigError> {
    let mut loaded = Loaded::default();
    let Yaml::Mapping(mut top) = document else {
        return Err(cx.error(
            "the file",
            &[],
            format!(
                "expected a Hermes config (a mapping with `hooks:`), found {}",
                yaml_kind(&document)
            ),
        ));
    };
    let accept = match top.get(crate::config::AUTO_ACCEPT) {
        Some(Yaml::Bool(accept)) => {
            let path = [PathSegment::Key(crate::config::AUTO_ACCEPT.to_owned())];
            Some((*accept, cx.place(&path)))
        }
        _ => None,
    };
    let root = vec![PathSegment::Key("hooks".to_owned())];
    let events = match top.remove("hooks") {
        None | Some(Yaml::Null) => return Ok((loaded, accept)),
        Some(Yaml::Mapping(events)) => events,
        Some(other) => {
            return Err(cx.error(
                "`hooks`",
                &root,
                format!(
                    "expected a mapping from Hermes events to lists of hooks, found {}",
                    yaml_kind(&other)
                ),
            ));
        }
    };
    for (event, list) in events {
        let event = yaml_key(&event);
        let path = at(&root, event.as_str());
        let Some(point) = cx.agent_event(&event, &path, &[], &mut loaded.warnings) else {
            continue;
        };
        let point = point.name;
        let list = match list {
            Yaml::Null => continue,
            Yaml::Sequence(list) => list,
            other => {
                let error = cx.error(
                    format!("`{event}`"),
                    &path,
                    format!(
                        "expected a list of hooks (`- command: ...`), found {}",
                        yaml_kind(&other)
                    ),
                );
                loaded.left_out(&error, point, false, &cx.hook_origin(&path));
                continue;
            }
        };
        for (index, item) in list.into_iter().enumerate() {
            let path = at(&path, index);
            let subject = format!("hook #{} of `{event}`", index + 1);
            let fields = match fields_of(cx, item, &path, &subject) {
                Ok(fields) => fields,
                Err(error) => {
                    loaded.left_out(&error, point, false, &cx.hook_origin(&path));
                    continue;
                }
            };
            let fails_closed = ["fail_closed", "failClosed"]
                .iter()
                .any(|key| fields.get(*key) == Some(&Value::Bool(true)));
            let read = Read {
                cx,
                event: &event,
                point,
                subject: &subject,
                path: &path,
                fields: &fields,
            };
            let entry = read.hermes(&mut loaded.warnings);
            loaded.take(entry, point, fails_closed, &cx.hook_origin(&path));
        }
    }
    Ok((loaded, accept))
}

/// Reads a Starchild `shell_hooks.yaml`.
pub(crate) fn read_starchild(cx: &FileContext<'_>, document: Yaml) -> Result<Loaded, ConfigError> {
    let mut loaded = Loaded::default();
    let root = vec![PathSegment::Key("hooks".to_owned())];
    let list = match document {
        Yaml::Mapping(mut top) => match top.remove("hooks") {
            None | Some(Yaml::Null) => return Ok(loaded),
            Some(Yaml::Sequence(list)) => list,
            Some(other) => {
                return Err(cx.error(
                    "`hooks`",
                    &root,
                    format!(
                        "expected a list of hooks (`- event: ...`), found {}",
                        yaml_kind(&other)
                    ),
                ));
            }
        },
        other => {
            return Err(cx.error(
                "the file",
                &[],
                format!(
                    "expected a Starchild shell_hooks.yaml (a mapping with `hooks:`), found {}",
                    yaml_kind(&other)
                ),
            ));
        }
    };
    for (index, item) in list.into_iter().enumerate() {
        let path = at(&root, index);
        let subject = format!("hook #{} of `hooks`", index + 1);
        let fields = match fields_of(cx, item, &path, &subject) {
            Ok(fields) => fields,
            Err(error) => {
                loaded.warnings.push(format!(
                    "{error}: this hook is left out; the file's other hooks load"
                ));
                continue;
            }
        };
        let Some(event) = fields
            .get("event")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            let error = cx.error(
                &subject,
                &path,
                "has no `event` (the event it runs on: `pre_tool_call`, `on_stop`, …)",
            );
            loaded.warnings.push(format!(
                "{error}: this hook is left out; the file's other hooks load"
            ));
            continue;
        };
        let event_path = at(&path, "event");
        let Some(point) = cx.agent_event(&event, &event_path, &[], &mut loaded.warnings) else {
            continue;
        };
        let read = Read {
            cx,
            event: &event,
            point: point.name,
            subject: &subject,
            path: &path,
            fields: &fields,
        };
        let entry = read.starchild(&mut loaded.warnings);
        loaded.take(entry, point.name, false, &cx.hook_origin(&path));
    }
    Ok(loaded)
}

/// An entry's keys, as JSON.
fn fields_of(
    cx: &FileContext<'_>,
    item: Yaml,
    path: &[PathSegment],
    subject: &str,
) -> Result<Map<String, Value>, ConfigError> {
    let Yaml::Mapping(entries) = item else {
        return Err(cx.error(
            subject,
            path,
            format!(
                "expected a mapping with `command`, found {}",
                yaml_kind(&item)
            ),
        ));
    };
    let mut map = Map::new();
    for (key, value) in entries {
        let key = yaml_key(&key);
        let value = cx.yaml_json(&value, &at(path, key.as_str()), |below| {
            describe_below(below, &format!("`{key}` of {subject}"))
        })?;
        map.insert(key, value);
    }
    Ok(map)
}

/// One entry.
struct Read<'a> {
    cx: &'a FileContext<'a>,
    event: &'a str,
    point: &'static str,
    subject: &'a str,
    path: &'a [PathSegment],
    fields: &'a Map<String, Value>,
}

impl Read<'_> {
    fn field(&self, key: &str) -> Option<&Value> {
        self.fields.get(key).filter(|v| !v.is_null())
    }

    fn key_subject(&self, key: &str) -> String {
        format!("`{key}` of {}", self.subject)
    }

    fn hermes(&self, warnings: &mut Vec<String>) -> Result<Option<Entry>, ConfigError> {
        let cx = self.cx;
        cx.known_keys(self.subject, self.fields, self.path, HERMES_KEYS)?;
        let mut fail_closed = false;
        for key in ["fail_closed", "failClosed"] {
            if let Some(v) = self.field(key) {
                fail_closed |= cx.boolean(&self.key_subject(key), v, &at(self.path, key))?;
            }
        }
        if let Some(v) = self.field("async")
            && cx.boolean(&self.key_subject("async"), v, &at(self.path, "async"))?
        {
            warnings.push(format!(
                "{}: `async: true` hook of `{}` runs in the chain and is waited for, like every \
                 hookchain hook",
                cx.place(self.path),
                self.event
            ));
        }
        let matcher = match self.field("matcher") {
            Some(_) if !matches!(self.event, "pre_tool_call" | "post_tool_call") => {
                warnings.push(format!(
                    "{}: a matcher applies to `pre_tool_call` and `post_tool_call` only; Hermes \
                     ignores it on `{}`, and so does hookchain: the hook runs on every `{}`",
                    cx.place(&at(self.path, "matcher")),
                    self.event,
                    self.event
                ));
                Matcher::all()
            }
            other => cx.matcher(
                &self.key_subject("matcher"),
                other,
                &at(self.path, "matcher"),
            )?,
        };
        let timeout = match self.field("timeout") {
            Some(v) => {
                let seconds = v.as_f64().filter(|s| *s > HERMES_MAX_TIMEOUT);
                if seconds.is_some() {
                    warnings.push(format!(
                        "{}: a time limit of {v} seconds is over Hermes' longest, 300: clamped, \
                         as Hermes clamps it",
                        cx.place(&at(self.path, "timeout"))
                    ));
                    Duration::from_secs_f64(HERMES_MAX_TIMEOUT)
                } else {
                    cx.timeout(&self.key_subject("timeout"), v, &at(self.path, "timeout"))?
                }
            }
            None => hookchain_external::DEFAULT_TIMEOUT,
        };
        let on_error = if fail_closed {
            OnError::Block
        } else {
            OnError::Warn
        };
        self.entry(matcher, timeout, on_error, warnings).map(Some)
    }

    fn starchild(&self, warnings: &mut Vec<String>) -> Result<Option<Entry>, ConfigError> {
        let cx = self.cx;
        cx.known_keys(self.subject, self.fields, self.path, STARCHILD_KEYS)?;
        let matcher = cx.matcher(
            &self.key_subject("matcher"),
            self.field("matcher"),
            &at(self.path, "matcher"),
        )?;
        let timeout = match self.field("timeout") {
            Some(v) => cx.timeout(&self.key_subject("timeout"), v, &at(self.path, "timeout"))?,
            None => hookchain_external::DEFAULT_TIMEOUT,
        };
        self.entry(matcher, timeout, OnError::Warn, warnings)
            .map(Some)
    }

    /// The hook: its command split and run without a shell, a leading `~/` expanded.
    fn entry(
        &self,
        matcher: Matcher,
        timeout: Duration,
        on_error: OnError,
        warnings: &mut Vec<String>,
    ) -> Result<Entry, ConfigError> {
        let cx = self.cx;
        let command_path = at(self.path, "command");
        let Some(line) = self.field("command") else {
            return Err(cx.error(self.subject, self.path, "has no `command`"));
        };
        let line = cx.string(&self.key_subject("command"), line, &command_path)?;
        let argv = argv_from_line(line.trim())
            .map_err(|e| cx.error(self.key_subject("command"), &command_path, e.to_string()))?;
        let mut argv: Vec<String> = argv.into_iter().map(crate::script::expand_home).collect();
        // A relative program is the agent's, taken from its current directory when the file is
        // loaded — by the transport, which resolves it once, and by consent, which hashes it at
        // every firing: both the same file, whatever project directory a later session gives.
        if let Some(program) = argv.first_mut()
            && crate::script::is_path(program)
            && !std::path::Path::new(program.as_str()).is_absolute()
            && let Ok(dir) = hookchain_external::program::firing_dir()
        {
            *program = dir.join(&*program).display().to_string();
        }
        let spec = CommandSpec {
            argv,
            display: line.to_owned(),
            env: BTreeMap::new(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        };
        if let Err(error) = cx.check_argv(&self.key_subject("command"), &spec, &command_path) {
            warnings.push(format!(
                "{error}: the hook is kept, and fails at each firing (under its failure policy) \
                 until the program is there"
            ));
        }
        Ok(Entry {
            name: None,
            condition: None,
            hook: ExternalHook {
                point: self.point,
                event: self.event.to_owned(),
                name: String::new(),
                transport: Transport::Command(spec),
                matcher,
                timeout,
                priority: DEFAULT_PRIORITY,
                on_error,
                dialect: cx.dialect,
                required: false,
                origin: cx.hook_origin(self.path),
            },
        })
    }
}
