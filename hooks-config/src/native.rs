//! The `hooks:` section of hookchain's own `hookchain.yaml`.
//!
//! ```yaml
//! hooks:
//!   intercept_tool_call:            # a point, or another agent's name for it (PreToolUse)
//!     - command: ./hooks/guard.sh --strict   # split like a shell would, run without one
//!       matcher: "Bash|Write"
//!       timeout: 10                 # seconds; default 60, from 0.001 to 600
//!       priority: 20                # default 50 (DEFAULT_PRIORITY)
//!       on_error: block             # pass (default) | block | warn
//!       env: {MODE: strict}         # names: letters, digits, `_`, no digit first
//!       env_clear: true             # inherit none of the agent's variables (default false)…
//!       env_allow: [PATH, HOME]     # …but these (only with env_clear: true)
//!       working_dir: hooks          # relative to this file's directory
//!       name: guard                 # default: <file>#<n>
//!       required: true              # when it cannot run, its point blocks (default false)
//!     - process: [python3, hooks/worker.py]   # argv as a list: no splitting
//!     - url: https://hooks.example.com/pre-tool
//!       headers: {Authorization: Bearer abc}
//!       allow_local: false
//! ```
//!
//! A key may also be a wildcard pattern — `"*"` (every point) or `"PREFIX*"` (`"after_*"`,
//! `"myapp:*"`), checked as `#[register_hook("*")]` checks it: its hooks observe every dispatch
//! of the points it matches, after their chains ran, and get on stdin the JSON of the dispatch's
//! event (`hookchain::DispatchEvent::to_json`: `hook_event_name` and `point` the point's
//! canonical name, `kind`, `session_id`, `turn`, `decision` — `pass`, `rewrite`, `inject` or
//! `block` —, `hook` and `reason` of a block or a rewrite, `failed`, `rewritten_by`, `failures`,
//! `duration_us`, and `payload`, the point's value as it came in). Their output is not read; an
//! exit code other than 0 is reported as a failure of the hook and changes nothing. They take
//! no `matcher` and cannot be `required`.
//!
//! ```yaml
//! hooks:
//!   "*":
//!     - command: ./hooks/audit.sh
//! ```
//!
//! Each entry has exactly one of `command`, `process` and `url`. A command is a string split
//! with shell-words (quotes and backslashes as in a shell, no variables, globs or pipes) or a
//! list of arguments; a word that starts with `~/`, `$HOME/` or `${HOME}/` starts at the home
//! directory (`~/.hermes/agent-hooks/guard.py`, as Hermes' docs write commands). A program named by a relative path (`./hooks/guard.sh`) is found from the
//! directory of the file that names it; a bare name (`python3`) on `PATH`. It must exist and be
//! executable when the file is loaded.
//!
//! A hook gets the agent's environment unless it says `env_clear: true`: it then gets only the
//! variables `env_allow` names (those the agent has), the project directory variables and its
//! `env`. `env`, `env_clear`, `env_allow` and `working_dir` are for `command` and `process`
//! hooks; an HTTP hook that names one is an error.
//!
//! `required: true` marks a guard that must not vanish (this file's format only: Claude Code and
//! docker-agent files have no such key). When it cannot run — not approved, its script changed
//! since it was approved, its transport unusable, its program gone, its extension (`external`)
//! disabled, or its file left out because an entry of it failed to load — its point blocks with
//! a reason naming the hook, where it is configured and why, instead of going on without it.

use std::path::Path;

use hookchain_core::{ConfigError, PathSegment};
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

use crate::entry::{Entry, Event, FileContext, at, command_transport, describe_below, json_kind};
use crate::position::{yaml_key, yaml_kind};
use hookchain_external::program::argv_from_line;
use hookchain_external::{
    CommandSpec, DEFAULT_PRIORITY, DEFAULT_TIMEOUT, ExternalHook, HttpSpec, OnError, Transport,
};

/// The keys of an entry.
const KEYS: &[&str] = &[
    "command",
    "process",
    "url",
    "matcher",
    "timeout",
    "priority",
    "on_error",
    "env",
    "env_clear",
    "env_allow",
    "working_dir",
    "allow_local",
    "headers",
    "name",
    "required",
];

/// The words of `on_error`.
const ON_ERROR: &[(&str, OnError)] = &[
    ("pass", OnError::Pass),
    ("block", OnError::Block),
    ("warn", OnError::Warn),
];

/// Reads the value of `hooks:`.
pub(crate) fn read(cx: &FileContext<'_>, hooks: Yaml) -> Result<Vec<Entry>, ConfigError> {
    let root = vec![PathSegment::Key("hooks".to_owned())];
    let events = match hooks {
        Yaml::Null => return Ok(Vec::new()),
        Yaml::Mapping(events) => events,
        other => {
            return Err(cx.error(
                "`hooks`",
                &root,
                format!(
                    "expected a mapping from hook points (or other agents' names for them) to \
                     lists of hooks, found {}",
                    yaml_kind(&other)
                ),
            ));
        }
    };
    let mut entries = Vec::new();
    for (event, list) in events {
        let event = yaml_key(&event);
        let path = at(&root, event.as_str());
        let point = if hookchain_core::Pattern::is_wildcard(&event) {
            wildcard(cx, &event, &path)?
        } else {
            let Event::Point(point) = cx.event(&event, &path, &[], &[])? else {
                unreachable!("hookchain.yaml names no unsupported events")
            };
            point.name
        };
        let list = match list {
            Yaml::Null => continue,
            Yaml::Sequence(list) => list,
            other => {
                return Err(cx.error(
                    format!("`{event}`"),
                    &path,
                    format!(
                        "expected a list of hooks (`- command: ...`), found {}",
                        yaml_kind(&other)
                    ),
                ));
            }
        };
        for (index, item) in list.into_iter().enumerate() {
            let path = at(&path, index);
            let subject = format!("hook #{} of `{event}`", index + 1);
            let fields = match item {
                Yaml::Mapping(fields) => {
                    let mut map = Map::new();
                    for (key, value) in fields {
                        let key = yaml_key(&key);
                        let value = cx.yaml_json(&value, &at(&path, key.as_str()), |below| {
                            describe_below(below, &format!("`{key}` of {subject}"))
                        })?;
                        map.insert(key, value);
                    }
                    map
                }
                other => {
                    return Err(cx.error(
                        subject,
                        &path,
                        format!(
                            "expected a mapping with `command`, `process` or `url`, found {}",
                            yaml_kind(&other)
                        ),
                    ));
                }
            };
            entries.push(entry(cx, point, &event, &subject, &fields, &path)?);
        }
    }
    Ok(entries)
}

/// A wildcard key (`"*"`, `"after_*"`): its pattern, checked as `#[register_hook]` checks it.
fn wildcard(
    cx: &FileContext<'_>,
    event: &str,
    path: &[PathSegment],
) -> Result<&'static str, ConfigError> {
    let names = hookchain_core::points::catalog().iter().map(|p| p.name);
    match hookchain_core::Pattern::parse(event, names) {
        Ok(_) => Ok(hookchain_core::Pattern::intern(event)),
        Err(error) => Err(cx.error(format!("event `{event}`"), path, error.to_string())),
    }
}

fn entry(
    cx: &FileContext<'_>,
    point: &'static str,
    event: &str,
    subject: &str,
    fields: &Map<String, Value>,
    path: &[PathSegment],
) -> Result<Entry, ConfigError> {
    cx.known_keys(subject, fields, path, KEYS)?;
    let field = |key: &str| fields.get(key).filter(|v| !v.is_null());
    let key_subject = |key: &str| format!("`{key}` of {subject}");
    let key_path = |key: &str| at(path, key);
    if hookchain_core::Pattern::is_wildcard(point)
        && let Some(key) = ["matcher", "required"]
            .into_iter()
            .find(|k| field(k).is_some())
    {
        return Err(cx.error(
            key_subject(key),
            &key_path(key),
            "a wildcard hook only observes every dispatch of its points (it gets the dispatch's \
             event, after the chain ran): it has no `matcher` and cannot block, so it cannot be \
             `required`; remove the key",
        ));
    }

    let kinds: Vec<&str> = ["command", "process", "url"]
        .into_iter()
        .filter(|k| field(k).is_some())
        .collect();
    let kind = match kinds.as_slice() {
        [kind] => *kind,
        [] => {
            return Err(cx.error(
                subject,
                path,
                "says neither `command`, `process` nor `url`: give exactly one",
            ));
        }
        [first, second, ..] => {
            return Err(cx.error(
                subject,
                &key_path(second),
                format!("has both `{first}` and `{second}`: give exactly one"),
            ));
        }
    };
    let only_for = |keys: &[&str], kinds: &str| -> Result<(), ConfigError> {
        match keys.iter().find(|k| field(k).is_some()) {
            Some(key) => Err(cx.error(
                key_subject(key),
                &key_path(key),
                format!("applies to {kinds} hooks only, and this is a `{kind}` hook"),
            )),
            None => Ok(()),
        }
    };

    let transport = if kind == "url" {
        only_for(
            &["env", "env_clear", "env_allow", "working_dir"],
            "`command` and `process`",
        )?;
        let url = cx.string(&key_subject("url"), &fields["url"], &key_path("url"))?;
        let spec = HttpSpec {
            url: url.to_owned(),
            headers: match field("headers") {
                Some(v) => cx.string_map(&key_subject("headers"), v, &key_path("headers"))?,
                None => Default::default(),
            },
            allow_local: match field("allow_local") {
                Some(v) => cx.boolean(&key_subject("allow_local"), v, &key_path("allow_local"))?,
                None => false,
            },
        };
        cx.check_http(&key_subject("url"), &spec, &key_path("url"))?;
        Transport::Http(spec)
    } else {
        only_for(&["headers", "allow_local"], "`url`")?;
        let (argv, display) = argv(cx, &key_subject(kind), &fields[kind], &key_path(kind))?;
        let env_clear = match field("env_clear") {
            Some(v) => cx.boolean(&key_subject("env_clear"), v, &key_path("env_clear"))?,
            None => false,
        };
        let env_allow = match field("env_allow") {
            Some(_) if !env_clear => {
                return Err(cx.error(
                    key_subject("env_allow"),
                    &key_path("env_allow"),
                    "names the variables kept when `env_clear: true` empties the environment; \
                     without `env_clear: true` the hook gets the whole environment: add \
                     `env_clear: true` or remove `env_allow`",
                ));
            }
            Some(v) => cx.env_names(&key_subject("env_allow"), v, &key_path("env_allow"))?,
            None => Vec::new(),
        };
        let spec = CommandSpec {
            argv: resolve_program(&cx.dir(), argv),
            display,
            env: match field("env") {
                Some(v) => cx.env_map(&key_subject("env"), v, &key_path("env"))?,
                None => Default::default(),
            },
            working_dir: match field("working_dir") {
                Some(v) => {
                    let dir =
                        cx.string(&key_subject("working_dir"), v, &key_path("working_dir"))?;
                    Some(absolute(&cx.dir().join(dir)))
                }
                None => None,
            },
            env_clear,
            env_allow,
        };
        cx.check_argv(&key_subject(kind), &spec, &key_path(kind))?;
        command_transport(kind, spec)
    };

    let hook = ExternalHook {
        point,
        event: event.to_owned(),
        name: String::new(),
        transport,
        matcher: cx.matcher(
            &key_subject("matcher"),
            field("matcher"),
            &key_path("matcher"),
        )?,
        timeout: match field("timeout") {
            Some(v) => cx.timeout(&key_subject("timeout"), v, &key_path("timeout"))?,
            None => DEFAULT_TIMEOUT,
        },
        priority: match field("priority") {
            Some(v) => cx.priority(&key_subject("priority"), v, &key_path("priority"))?,
            None => DEFAULT_PRIORITY,
        },
        on_error: match field("on_error") {
            Some(v) => {
                cx.failure_policy(&key_subject("on_error"), v, &key_path("on_error"), ON_ERROR)?
            }
            None => OnError::Pass,
        },
        dialect: cx.dialect,
        required: match field("required") {
            Some(v) => cx.boolean(&key_subject("required"), v, &key_path("required"))?,
            None => false,
        },
        origin: cx.hook_origin(path),
    };
    let name = match field("name") {
        Some(v) => {
            let name = cx.string(&key_subject("name"), v, &key_path("name"))?;
            if name.trim().is_empty() {
                return Err(cx.error(key_subject("name"), &key_path("name"), "is empty"));
            }
            Some(name.to_owned())
        }
        None => None,
    };
    Ok(Entry {
        name,
        condition: None,
        hook,
    })
}

/// A command's argv and how it is shown: a string split with shell-words, or a list.
fn argv(
    cx: &FileContext<'_>,
    subject: &str,
    value: &Value,
    path: &[PathSegment],
) -> Result<(Vec<String>, String), ConfigError> {
    let (argv, display) = match value {
        Value::String(line) => {
            let argv = argv_from_line(line).map_err(|e| cx.error(subject, path, e.to_string()))?;
            let argv = argv.into_iter().map(crate::script::expand_home).collect();
            (argv, line.clone())
        }
        Value::Array(items) => {
            let argv = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    cx.string(subject, item, &at(path, i))
                        .map(|word| crate::script::expand_home(word.to_owned()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let display = shell_words::join(&argv);
            (argv, display)
        }
        other => {
            return Err(cx.error(
                subject,
                path,
                format!(
                    "expected a command line or a list of arguments, found {}",
                    json_kind(other)
                ),
            ));
        }
    };
    if argv.is_empty() {
        return Err(cx.error(subject, path, "the command is empty"));
    }
    Ok((argv, display))
}

/// Makes a program named by a relative path absolute, from the config file's directory.
fn resolve_program(dir: &Path, mut argv: Vec<String>) -> Vec<String> {
    if let Some(program) = argv.first_mut()
        && program.contains('/')
        && Path::new(program.as_str()).is_relative()
    {
        *program = absolute(&dir.join(program.as_str())).display().to_string();
    }
    argv
}

fn absolute(path: &Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
