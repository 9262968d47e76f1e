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
//! disabled, its entry left out because it cannot be loaded, or its file left out because it does
//! not parse — its point blocks with a reason naming the hook, where it is configured and why,
//! instead of going on without it.
//!
//! Each entry is read on its own (reading `hooks:` never fails): what cannot be loaded is set
//! aside with its error, and the reader of the file decides what it costs — the first is the error of a strict read;
//! a lenient read (`init()`) leaves out that entry only, with a warning every session hears. An
//! entry keeps its number among the file's entries whether or not the others load.

use std::path::Path;

use hookchain_core::{ConfigError, PathSegment};
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

use crate::entry::{
    Entry, Event, FileContext, UnloadedRequired, at, command_transport, describe_below, json_kind,
};
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

/// What the `hooks:` section of one `hookchain.yaml` gave: its hooks, each with its number among
/// the file's entries, and every entry that cannot be loaded.
#[derive(Default)]
pub(crate) struct FileHooks {
    /// The hooks that load, in file order, each with its place among all the file's entries
    /// (from 0, the entries that cannot be loaded counted too).
    pub(crate) entries: Vec<(usize, Entry)>,
    /// How many entries the file has, loaded or not.
    pub(crate) count: usize,
    /// What cannot be loaded, in file order.
    pub(crate) left_out: Vec<LeftOut>,
}

/// A part of a `hookchain.yaml` that cannot be loaded — one hook entry, the hooks of one point,
/// a section, a top-level key: its error, and, for a `required: true` hook, what stands in for
/// it (its point blocks).
pub(crate) struct LeftOut {
    /// What is wrong, naming the file and line.
    pub(crate) error: ConfigError,
    /// The stand-in of a `required: true` hook that cannot be loaded.
    pub(crate) required: Option<UnloadedRequired>,
}

impl From<ConfigError> for LeftOut {
    fn from(error: ConfigError) -> Self {
        LeftOut {
            error,
            required: None,
        }
    }
}

impl FileHooks {
    /// The hooks, each named: by the name the file gives it, or `<file>#<n>`, `n` its place
    /// among all the file's entries — an entry left out keeps its number, so the names of the
    /// others (and their approvals) do not move when one entry breaks.
    pub(crate) fn named(self, file: &str) -> Vec<ExternalHook> {
        let width = self.count.to_string().len().max(2);
        self.entries
            .into_iter()
            .map(|(number, entry)| {
                let mut hook = entry.hook;
                hook.name = entry
                    .name
                    .unwrap_or_else(|| default_name(file, number, width));
                hook
            })
            .collect()
    }
}

/// The name of the entry at place `number` (from 0) of a file, for a file whose entries need
/// `width` digits.
fn default_name(file: &str, number: usize, width: usize) -> String {
    format!("{file}#{:0width$}", number + 1)
}

/// Reads the value of `hooks:`. Each entry is read on its own: one that cannot be loaded (an
/// unknown point or key, a program that does not exist, a bad matcher or time limit…) is in
/// [`FileHooks::left_out`], and the others load. The caller decides what that costs: a strict
/// read fails on the first, a lenient one leaves out that entry only.
pub(crate) fn read(cx: &FileContext<'_>, hooks: Yaml) -> FileHooks {
    let mut read = FileHooks::default();
    let root = vec![PathSegment::Key("hooks".to_owned())];
    let events = match hooks {
        Yaml::Null => return read,
        Yaml::Mapping(events) => events,
        other => {
            read.left_out.push(
                cx.error(
                    "`hooks`",
                    &root,
                    format!(
                        "expected a mapping from hook points (or other agents' names for them) \
                         to lists of hooks, found {}",
                        yaml_kind(&other)
                    ),
                )
                .into(),
            );
            return read;
        }
    };
    // Every item of every list is an entry, numbered in file order, whether it loads or not.
    let lists: Vec<(String, Yaml)> = events
        .into_iter()
        .map(|(event, list)| (yaml_key(&event), list))
        .collect();
    read.count = lists
        .iter()
        .map(|(_, list)| match list {
            Yaml::Sequence(items) => items.len(),
            _ => 0,
        })
        .sum();
    let width = read.count.to_string().len().max(2);
    let mut number = 0;
    for (event, list) in lists {
        let path = at(&root, event.as_str());
        let first = number;
        if let Yaml::Sequence(items) = &list {
            number += items.len();
        }
        let point = if hookchain_core::Pattern::is_wildcard(&event) {
            wildcard(cx, &event, &path)
        } else {
            cx.event(&event, &path, &[], &[]).map(|event| match event {
                Event::Point(point) => point.name,
                Event::Unsupported => unreachable!("hookchain.yaml names no unsupported events"),
            })
        };
        let point = match point {
            Ok(point) => point,
            Err(error) => {
                // The point's hooks cannot run; a required one among them is named, so that
                // the warning says which guard is missing (it has no point to block).
                let required: Vec<String> = match &list {
                    Yaml::Sequence(items) => items
                        .iter()
                        .enumerate()
                        .filter(|(_, item)| item.get("required") == Some(&Yaml::Bool(true)))
                        .map(
                            |(index, item)| match item.get("name").and_then(Yaml::as_str) {
                                Some(name) => format!("`{name}`"),
                                None => {
                                    format!("`{}`", default_name(cx.file, first + index, width))
                                }
                            },
                        )
                        .collect(),
                    _ => Vec::new(),
                };
                let error = if required.is_empty() {
                    error
                } else {
                    with_problem(
                        error,
                        &format!("; its required hook(s) {} cannot run", required.join(", ")),
                    )
                };
                read.left_out.push(error.into());
                continue;
            }
        };
        let items = match list {
            Yaml::Sequence(items) => items,
            Yaml::Null => continue,
            other => {
                read.left_out.push(
                    cx.error(
                        format!("`{event}`"),
                        &path,
                        format!(
                            "expected a list of hooks (`- command: ...`), found {}",
                            yaml_kind(&other)
                        ),
                    )
                    .into(),
                );
                continue;
            }
        };
        for (index, item) in items.into_iter().enumerate() {
            let path = at(&path, index);
            let number = first + index;
            let subject = format!("hook #{} of `{event}`", index + 1);
            let required = item.get("required") == Some(&Yaml::Bool(true));
            let given_name = item.get("name").and_then(Yaml::as_str).map(str::to_owned);
            match one(cx, point, &event, &subject, item, &path) {
                Ok(entry) => read.entries.push((number, entry)),
                Err(error) => {
                    let required =
                        (required && !hookchain_core::Pattern::is_wildcard(point)).then(|| {
                            let name =
                                given_name.unwrap_or_else(|| default_name(cx.file, number, width));
                            UnloadedRequired {
                                point,
                                reason: format!(
                                    "required hook `{name}` ({}) did not run: it cannot be \
                                     loaded: {error}",
                                    cx.hook_origin(&path).short()
                                ),
                                name,
                            }
                        });
                    read.left_out.push(LeftOut { error, required });
                }
            }
        }
    }
    read
}

/// One item of a point's list.
fn one(
    cx: &FileContext<'_>,
    point: &'static str,
    event: &str,
    subject: &str,
    item: Yaml,
    path: &[PathSegment],
) -> Result<Entry, ConfigError> {
    let fields = match item {
        Yaml::Mapping(fields) => {
            let mut map = Map::new();
            for (key, value) in fields {
                let key = yaml_key(&key);
                let value = cx.yaml_json(&value, &at(path, key.as_str()), |below| {
                    describe_below(below, &format!("`{key}` of {subject}"))
                })?;
                map.insert(key, value);
            }
            map
        }
        other => {
            return Err(cx.error(
                subject,
                path,
                format!(
                    "expected a mapping with `command`, `process` or `url`, found {}",
                    yaml_kind(&other)
                ),
            ));
        }
    };
    entry(cx, point, event, subject, &fields, path)
}

/// `error` with `more` added to its problem.
fn with_problem(error: ConfigError, more: &str) -> ConfigError {
    match error {
        ConfigError::Malformed {
            subject,
            origin,
            problem,
        } => ConfigError::Malformed {
            subject,
            origin,
            problem: format!("{problem}{more}"),
        },
        other => other,
    }
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
pub(crate) fn argv(
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
pub(crate) fn resolve_program(dir: &Path, mut argv: Vec<String>) -> Vec<String> {
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
