//! One hook entry of a config file, whatever its format: the checks the formats share (event
//! names, keys, time limits, failure policies, programs) and what an entry becomes, an
//! [`ExternalHook`] with a name that keeps its place in the file.
//!
//! Every problem is a [`ConfigError`] naming the file and the line of the offending value, with
//! a "did you mean" when a name is close to a known one (Jaro-Winkler above 0.8).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_core::points::{self, PointInfo};
use hookchain_core::{ConfigError, ConfigOrigin, ConfigSource, PathSegment};
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

use crate::position::yaml_key;
use crate::script;
pub(crate) use hookchain_core::json_kind;
use hookchain_core::suggest::closest;
use hookchain_external::program::resolve_program;
use hookchain_external::{
    CommandSpec, Dialect, ExternalHook, HttpSpec, MAX_TIMEOUT, Matcher, OnError, Transport,
    TransportError,
};

/// The file an entry is read from.
pub(crate) struct FileContext<'a> {
    /// The file as the user should read it (`./hookchain.yaml`).
    pub(crate) file: &'a str,
    /// Finds the line of any value of the file.
    pub(crate) source: &'a ConfigSource,
    /// Whose conventions the file follows.
    pub(crate) dialect: Dialect,
}

/// A path from a file's root to one of its values.
pub(crate) type ValuePath = Vec<PathSegment>;

/// `path` with `segment` after it.
pub(crate) fn at(path: &[PathSegment], segment: impl Into<Segment>) -> ValuePath {
    let mut path = path.to_vec();
    path.push(segment.into().0);
    path
}

/// A key or an index, for [`at`].
pub(crate) struct Segment(PathSegment);

impl From<&str> for Segment {
    fn from(key: &str) -> Self {
        Segment(PathSegment::Key(key.to_owned()))
    }
}

impl From<usize> for Segment {
    fn from(index: usize) -> Self {
        Segment(PathSegment::Index(index))
    }
}

/// What an event name of a config file is to hookchain.
pub(crate) enum Event {
    /// A point of the catalog (by its canonical name or another agent's name).
    Point(&'static PointInfo),
    /// An event the file's own agent has and hookchain has no point for.
    Unsupported,
}

impl FileContext<'_> {
    /// Where the value at `path` is.
    pub(crate) fn origin(&self, path: &[PathSegment]) -> ConfigOrigin {
        self.source.origin(path)
    }

    /// The line of the value at `path` (or of its closest ancestor in the file).
    pub(crate) fn line(&self, path: &[PathSegment]) -> Option<usize> {
        match self.origin(path) {
            ConfigOrigin::File { line, .. } => line,
            _ => None,
        }
    }

    /// An error about the value at `path`.
    pub(crate) fn error(
        &self,
        subject: impl Into<String>,
        path: &[PathSegment],
        problem: impl Into<String>,
    ) -> ConfigError {
        ConfigError::Malformed {
            subject: subject.into(),
            origin: self.origin(path),
            problem: problem.into(),
        }
    }

    /// `file line N` of the value at `path`, for warnings.
    pub(crate) fn place(&self, path: &[PathSegment]) -> String {
        match self.line(path) {
            Some(line) => format!("{} line {line}", self.file),
            None => self.file.to_owned(),
        }
    }

    /// The file and line of the value at `path`, as a hook records it.
    pub(crate) fn hook_origin(&self, path: &[PathSegment]) -> ConfigOrigin {
        ConfigOrigin::file(self.file, self.line(path))
    }

    /// The value of JSON `event` (at `path`, on `point`) as its list of entries: `None` for
    /// `null` (nothing to load), and for anything else that is not a list, whose error — `the
    /// list of EXPECTED`, e.g. ``hooks (`[{"command": ...}]`)`` — is left out in `loaded`.
    pub(crate) fn event_list(
        &self,
        event: &str,
        path: &[PathSegment],
        point: &'static str,
        value: Value,
        expected: &str,
        loaded: &mut Loaded,
    ) -> Option<Vec<Value>> {
        match value {
            Value::Null => None,
            Value::Array(list) => Some(list),
            other => {
                let error = self.error(
                    format!("`{event}`"),
                    path,
                    format!("expected a list of {expected}, found {}", json_kind(&other)),
                );
                loaded.left_out(&error, point, false, &self.hook_origin(path));
                None
            }
        }
    }

    /// The directory of the file (`.` for a bare file name).
    pub(crate) fn dir(&self) -> PathBuf {
        match Path::new(self.file).parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// Reads an event name: a point of the catalog, or one of `unsupported` (the file's agent
    /// has it, hookchain has no point for it). Anything else is an error with the closest known
    /// name.
    pub(crate) fn event(
        &self,
        name: &str,
        path: &[PathSegment],
        own: &[&'static str],
        unsupported: &[&'static str],
    ) -> Result<Event, ConfigError> {
        if let Some(point) = points::resolve(name) {
            return Ok(Event::Point(point));
        }
        if unsupported.contains(&name) {
            return Ok(Event::Unsupported);
        }
        let known = points::catalog()
            .iter()
            .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().map(|(a, _)| *a)))
            .chain(own.iter().copied())
            .chain(unsupported.iter().copied());
        let hint = match closest(name, known) {
            Some(suggestion) => format!(", did you mean `{suggestion}`?"),
            None => format!(
                " (the points are {}; `hookchain list` shows other agents' names for them)",
                points::catalog()
                    .iter()
                    .map(|p| format!("`{}`", p.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Err(self.error(
            format!("event `{name}`"),
            path,
            format!("no hook point has this name{hint}"),
        ))
    }

    /// Reads an event name of another agent's file (the file's [`dialect`](Self::dialect)
    /// names the agent): a point of the catalog, or `None` — an event hookchain has no point for, current or
    /// unknown, is a warning naming it (never a "did you mean" toward a different real event)
    /// and costs that event's hooks only. Only a name that differs from a known one in case
    /// alone gets a hint.
    pub(crate) fn agent_event(
        &self,
        name: &str,
        path: &[PathSegment],
        own: &[&'static str],
        warnings: &mut Vec<String>,
    ) -> Option<&'static PointInfo> {
        if let Some(point) = points::resolve(name) {
            return Some(point);
        }
        let same_but_case = points::catalog()
            .iter()
            .flat_map(|p| p.aliases.iter().map(|(a, _)| *a))
            .chain(own.iter().copied())
            .find(|known| *known != name && known.eq_ignore_ascii_case(name));
        let hint = match same_but_case {
            Some(known) => format!(" (if you meant `{known}`, write it so)"),
            None => String::new(),
        };
        let agent = self.dialect.name();
        let whose = if agent.ends_with('s') { "'" } else { "'s" };
        warnings.push(format!(
            "{}: {agent}{whose} event `{name}` has no hookchain point; its hooks are left \
             out{hint}",
            self.place(path)
        ));
        None
    }

    /// Checks that every key of `entry` is one of `known`.
    pub(crate) fn known_keys(
        &self,
        subject: &str,
        entry: &Map<String, Value>,
        path: &[PathSegment],
        known: &[&str],
    ) -> Result<(), ConfigError> {
        for key in entry.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let hint = match closest(key, known.iter().copied()) {
                Some(suggestion) => format!(", did you mean `{suggestion}`?"),
                None => format!(
                    " (the keys are {})",
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            return Err(self.error(
                format!("key `{key}` of {subject}"),
                &at(path, key.as_str()),
                format!("unknown key{hint}"),
            ));
        }
        Ok(())
    }

    /// A string value.
    pub(crate) fn string<'v>(
        &self,
        subject: &str,
        value: &'v Value,
        path: &[PathSegment],
    ) -> Result<&'v str, ConfigError> {
        value.as_str().ok_or_else(|| {
            self.error(
                subject,
                path,
                format!("expected a string, found {}", json_kind(value)),
            )
        })
    }

    /// A time limit in seconds: a finite number from [`MIN_TIMEOUT`] to [`MAX_TIMEOUT`]. Below a
    /// millisecond it would round to no time at all.
    pub(crate) fn timeout(
        &self,
        subject: &str,
        value: &Value,
        path: &[PathSegment],
    ) -> Result<Duration, ConfigError> {
        let seconds = value.as_f64().ok_or_else(|| {
            self.error(
                subject,
                path,
                format!("expected a number of seconds, found {}", json_kind(value)),
            )
        })?;
        if !seconds.is_finite() {
            return Err(self.error(subject, path, timeout_range(&yaml_float(seconds))));
        }
        if seconds <= 0.0 {
            return Err(self.error(
                subject,
                path,
                format!("a time limit must be more than 0 seconds, found {value}"),
            ));
        }
        if seconds < MIN_TIMEOUT.as_secs_f64() {
            return Err(self.error(
                subject,
                path,
                format!("a time limit must be at least 0.001 seconds (1 ms), found {value}"),
            ));
        }
        if seconds > MAX_TIMEOUT.as_secs_f64() {
            return Err(self.error(
                subject,
                path,
                format!(
                    "{value} seconds is over the longest time limit a hook may have, {} seconds",
                    MAX_TIMEOUT.as_secs()
                ),
            ));
        }
        Ok(Duration::from_secs_f64(seconds))
    }

    /// A priority: an integer that fits an `i32`.
    pub(crate) fn priority(
        &self,
        subject: &str,
        value: &Value,
        path: &[PathSegment],
    ) -> Result<i32, ConfigError> {
        value
            .as_i64()
            .and_then(|p| i32::try_from(p).ok())
            .ok_or_else(|| {
                self.error(
                    subject,
                    path,
                    format!("expected an integer (lower runs earlier), found {value}"),
                )
            })
    }

    /// A failure policy, one of `words`.
    pub(crate) fn failure_policy(
        &self,
        subject: &str,
        value: &Value,
        path: &[PathSegment],
        words: &[(&str, OnError)],
    ) -> Result<OnError, ConfigError> {
        let word = self.string(subject, value, path)?;
        if let Some((_, policy)) = words.iter().find(|(w, _)| *w == word) {
            return Ok(*policy);
        }
        let names: Vec<String> = words.iter().map(|(w, _)| format!("`{w}`")).collect();
        let hint = closest(word, words.iter().map(|(w, _)| *w))
            .map(|s| format!(", did you mean `{s}`?"))
            .unwrap_or_default();
        Err(self.error(
            subject,
            path,
            format!("expected one of {}, found `{word}`{hint}", names.join(", ")),
        ))
    }

    /// A boolean.
    pub(crate) fn boolean(
        &self,
        subject: &str,
        value: &Value,
        path: &[PathSegment],
    ) -> Result<bool, ConfigError> {
        value.as_bool().ok_or_else(|| {
            self.error(
                subject,
                path,
                format!("expected `true` or `false`, found {}", json_kind(value)),
            )
        })
    }

    /// A mapping of names to strings (numbers and booleans are written out as strings).
    pub(crate) fn string_map(
        &self,
        subject: &str,
        value: &Value,
        path: &[PathSegment],
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        let Value::Object(map) = value else {
            return Err(self.error(
                subject,
                path,
                format!(
                    "expected a mapping of names to strings, found {}",
                    json_kind(value)
                ),
            ));
        };
        map.iter()
            .map(|(name, value)| {
                let value = match value {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    other => {
                        return Err(self.error(
                            format!("`{name}` of {subject}"),
                            &at(path, name.as_str()),
                            format!("expected a string, found {}", json_kind(other)),
                        ));
                    }
                };
                Ok((name.clone(), value))
            })
            .collect()
    }

    /// A hook's `env`: a [`string_map`](Self::string_map) whose names are portable environment
    /// variable names.
    pub(crate) fn env_map(
        &self,
        subject: &str,
        value: &Value,
        path: &[PathSegment],
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        let env = self.string_map(subject, value, path)?;
        if let Some(name) = env.keys().find(|name| !portable_env_name(name)) {
            return Err(self.error(
                subject,
                &at(path, name.as_str()),
                format!(
                    "`{}` is not a portable environment variable name (letters, digits and `_`, \
                     not starting with a digit)",
                    name.escape_debug()
                ),
            ));
        }
        Ok(env)
    }

    /// A list of environment variable names (a hook's `env_allow`), each a portable name.
    pub(crate) fn env_names(
        &self,
        subject: &str,
        value: &Value,
        path: &[PathSegment],
    ) -> Result<Vec<String>, ConfigError> {
        let Value::Array(items) = value else {
            return Err(self.error(
                subject,
                path,
                format!(
                    "expected a list of environment variable names, found {}",
                    json_kind(value)
                ),
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let item_subject = format!("item #{} of {subject}", index + 1);
                let name = self.string(&item_subject, item, &at(path, index))?;
                if !portable_env_name(name) {
                    return Err(self.error(
                        item_subject,
                        &at(path, index),
                        format!(
                            "`{}` is not a portable environment variable name (letters, digits \
                             and `_`, not starting with a digit)",
                            name.escape_debug()
                        ),
                    ));
                }
                Ok(name.to_owned())
            })
            .collect()
    }

    /// `value`, read from YAML, as JSON. JSON has no NaN or infinity, and serde_json writes
    /// them as `null`, which reads as an absent key: a `timeout: .nan` would be the default
    /// time limit. They are an error instead, at the value where they are. `describe` names
    /// that value for the error from its path below `path` and the value itself.
    pub(crate) fn yaml_json(
        &self,
        value: &Yaml,
        path: &[PathSegment],
        describe: impl FnOnce(&[PathSegment]) -> String,
    ) -> Result<Value, ConfigError> {
        let mut below = Vec::new();
        if let Some(number) = non_finite(value, &mut below) {
            let key = match below.last().or(path.last()) {
                Some(PathSegment::Key(key)) => key.as_str(),
                _ => "",
            };
            let found = yaml_float(number);
            let problem = match key {
                "timeout" => timeout_range(&found),
                _ => format!("expected a finite number, found {found}"),
            };
            let mut full = path.to_vec();
            full.extend(below.iter().cloned());
            return Err(self.error(describe(&below), &full, problem));
        }
        serde_json::to_value(value).map_err(|e| self.error(describe(&[]), path, e.to_string()))
    }

    /// A matcher, read by the file's dialect.
    pub(crate) fn matcher(
        &self,
        subject: &str,
        value: Option<&Value>,
        path: &[PathSegment],
    ) -> Result<Matcher, ConfigError> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(Matcher::all());
        };
        let text = self.string(subject, value, path)?;
        Matcher::parse(self.dialect, text).map_err(|e| self.error(subject, path, e.to_string()))
    }

    /// Checks a command whose argv was read from the config: its program must exist and be
    /// executable (a bare name is looked up on `PATH`).
    pub(crate) fn check_argv(
        &self,
        subject: &str,
        spec: &CommandSpec,
        path: &[PathSegment],
    ) -> Result<(), ConfigError> {
        resolve_program(spec)
            .map(drop)
            .map_err(|e| self.error(subject, path, transport_reason(e)))
    }

    /// Checks a shell line: when it starts with a program named by a path, that program must
    /// exist and be executable (bare names are the shell's business).
    pub(crate) fn check_shell_line(
        &self,
        subject: &str,
        line: &str,
        working_dir: &Path,
        project_dir: &Path,
        env: &BTreeMap<String, String>,
        path: &[PathSegment],
    ) -> Result<(), ConfigError> {
        if line.trim().is_empty() {
            return Err(self.error(subject, path, "the command is empty"));
        }
        if let Some(program) = script::shell_program(line, working_dir, project_dir, env) {
            let spec = CommandSpec {
                argv: vec![program.display().to_string()],
                display: line.to_owned(),
                env: BTreeMap::new(),
                working_dir: Some(working_dir.to_path_buf()),
                env_clear: false,
                env_allow: Vec::new(),
            };
            return self.check_argv(subject, &spec, path);
        }
        Ok(())
    }

    /// [`check_shell_line`](Self::check_shell_line) as Claude Code and docker-agent take it: a
    /// program that does not exist (yet) or cannot run is not an error of the file but of that
    /// one hook at each firing, so the hook is kept and the returned warning says, naming the
    /// file and line, that it will fail until the program is there. An empty line is an error.
    pub(crate) fn shell_line_warning(
        &self,
        subject: &str,
        line: &str,
        working_dir: &Path,
        project_dir: &Path,
        env: &BTreeMap<String, String>,
        path: &[PathSegment],
    ) -> Result<Option<String>, ConfigError> {
        if line.trim().is_empty() {
            return Err(self.error(subject, path, "the command is empty"));
        }
        Ok(self
            .check_shell_line(subject, line, working_dir, project_dir, env, path)
            .err()
            .map(|error| {
                format!(
                    "{error}: the hook is kept, and fails at each firing (under its failure \
                     policy) until the program is there"
                )
            }))
    }

    /// Checks an HTTP hook's URL and headers.
    pub(crate) fn check_http(
        &self,
        subject: &str,
        spec: &HttpSpec,
        path: &[PathSegment],
    ) -> Result<(), ConfigError> {
        hookchain_external::hook::invoker(&Transport::Http(spec.clone()))
            .map(drop)
            .map_err(|e| self.error(subject, path, transport_reason(e)))
    }
}

/// A `required: true` hook of a file that was left out because it failed to load.
#[derive(Debug, Clone)]
pub(crate) struct UnloadedRequired {
    pub(crate) point: &'static str,
    pub(crate) name: String,
    /// Why it does not run, naming the hook, its file and line, and the file's error.
    pub(crate) reason: String,
}

/// What one file of another agent gave: its hooks, what was left out of it (one sentence each,
/// naming the file and line), and the fail-closed hooks that could not be loaded, each of which
/// blocks its point.
#[derive(Default)]
pub(crate) struct Loaded {
    /// The hooks, in file order.
    pub(crate) entries: Vec<Entry>,
    /// What was left out or is not honoured as written, and why.
    pub(crate) warnings: Vec<String>,
    /// Fail-closed hooks that cannot be loaded: their points block.
    pub(crate) blocked: Vec<UnloadedRequired>,
    /// Extension sections the file implies (docker-agent's builtins that are built-in guards
    /// and injectors): the extension's name, the section that enables it, and where in the
    /// file the entry that implies it is.
    pub(crate) sections: Vec<(String, Value, ValuePath)>,
    /// Where the file's values are, for the sections' origins.
    pub(crate) source: Option<ConfigSource>,
}

impl Loaded {
    /// Takes the result of reading one entry of another agent's file: a hook, nothing (left out
    /// with a warning already), or an error that costs that entry only — it becomes a warning,
    /// and when the entry is fail-closed (`fails_closed`, on `point`), its point blocks.
    pub(crate) fn take(
        &mut self,
        read: Result<Option<Entry>, ConfigError>,
        point: &'static str,
        fails_closed: bool,
        at: &ConfigOrigin,
    ) {
        match read {
            Ok(Some(entry)) => self.entries.push(entry),
            Ok(None) => {}
            Err(error) => self.left_out(&error, point, fails_closed, at),
        }
    }

    /// An entry that cannot be honoured: a warning naming it, and, when it fails closed, a
    /// stand-in that blocks its point. `at` is where the entry is.
    pub(crate) fn left_out(
        &mut self,
        error: &ConfigError,
        point: &'static str,
        fails_closed: bool,
        at: &ConfigOrigin,
    ) {
        if fails_closed {
            let at = at.short().to_string();
            self.warnings.push(format!(
                "{error}: this fail-closed hook cannot be loaded, so `{point}` blocks until it is \
                 fixed; the file's other hooks load"
            ));
            self.blocked.push(UnloadedRequired {
                point,
                name: format!("{at} ({point})"),
                reason: format!("fail-closed hook {at} did not run: it cannot be loaded: {error}"),
            });
        } else {
            self.warnings.push(format!(
                "{error}: this hook is left out; the file's other hooks load"
            ));
        }
    }
}

/// A hook read from a file, before its default name is given.
pub(crate) struct Entry {
    /// The name the file gives it, if any.
    pub(crate) name: Option<String>,
    /// Claude Code's `if`: the hook runs only for the calls this rule matches.
    pub(crate) condition: Option<crate::permission_rule::PermissionRule>,
    /// The hook, named `""` until [`name_entries`] names it.
    pub(crate) hook: ExternalHook,
}

/// The shortest time limit a hook may have.
pub(crate) const MIN_TIMEOUT: Duration = Duration::from_millis(1);

/// The problem with a time limit that is no number of seconds at all (`found` is how the file
/// wrote it).
fn timeout_range(found: &str) -> String {
    format!(
        "expected a number of seconds above 0 and at most {}, found {found}",
        MAX_TIMEOUT.as_secs()
    )
}

/// A float as YAML writes it: `.nan`, `.inf` and `-.inf` for the ones JSON cannot carry.
fn yaml_float(number: f64) -> String {
    match number {
        n if n.is_nan() => ".nan".to_owned(),
        f64::INFINITY => ".inf".to_owned(),
        f64::NEG_INFINITY => "-.inf".to_owned(),
        n => n.to_string(),
    }
}

/// The first NaN or infinity in `value`, with its path below `value` left in `below`.
fn non_finite(value: &Yaml, below: &mut ValuePath) -> Option<f64> {
    match value {
        Yaml::Number(n) => n.as_f64().filter(|n| !n.is_finite()),
        Yaml::Sequence(items) => items.iter().enumerate().find_map(|(i, item)| {
            below.push(PathSegment::Index(i));
            let found = non_finite(item, below);
            if found.is_none() {
                below.pop();
            }
            found
        }),
        Yaml::Mapping(entries) => entries.iter().find_map(|(key, item)| {
            below.push(PathSegment::Key(yaml_key(key)));
            let found = non_finite(item, below);
            if found.is_none() {
                below.pop();
            }
            found
        }),
        Yaml::Tagged(tagged) => non_finite(&tagged.value, below),
        Yaml::Null | Yaml::Bool(_) | Yaml::String(_) => None,
    }
}

/// `subject`, or the value at `below` of it (`` `A` of `env` of hook #1 of `Stop` ``).
pub(crate) fn describe_below(below: &[PathSegment], subject: &str) -> String {
    below
        .iter()
        .fold(subject.to_owned(), |subject, segment| match segment {
            PathSegment::Key(key) => format!("`{key}` of {subject}"),
            PathSegment::Index(i) => format!("item #{} of {subject}", i + 1),
        })
}

/// A portable environment variable name (POSIX's portable character set for them): ASCII
/// letters, digits and `_`, not starting with a digit. Nothing else can be set reliably: `=`
/// ends the name, NUL ends the string, and shells cannot name the rest.
fn portable_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Gives every entry of one file without a name of its own the name `<file>#<n>`, `n` counting
/// the file's hooks from 1 in file order, zero-padded to one width per file, so that names sort
/// in file order: hooks of one priority run in the order the file lists them.
pub(crate) fn name_entries(file: &str, entries: Vec<Entry>) -> Vec<ExternalHook> {
    let width = entries.len().to_string().len().max(2);
    entries
        .into_iter()
        .enumerate()
        .map(|(index, entry)| {
            let mut hook = entry.hook;
            hook.name = entry
                .name
                .unwrap_or_else(|| format!("{file}#{:0width$}", index + 1));
            hook
        })
        .collect()
}

/// What is wrong with a hook that cannot be reached, without the transport's own framing.
fn transport_reason(error: TransportError) -> String {
    match error {
        TransportError::Spawn { reason, .. } => reason,
        TransportError::Http(reason) => reason,
        other => other.to_string(),
    }
}

/// A command's transport.
pub(crate) fn command_transport(kind: &str, spec: CommandSpec) -> Transport {
    match kind {
        "process" => Transport::Process(spec),
        _ => Transport::Command(spec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook() -> ExternalHook {
        ExternalHook {
            point: "intercept_tool_call",
            event: "PreToolUse".to_owned(),
            name: String::new(),
            transport: Transport::Http(HttpSpec {
                url: "https://example.com".to_owned(),
                headers: BTreeMap::new(),
                allow_local: false,
            }),
            matcher: Matcher::all(),
            timeout: hookchain_external::DEFAULT_TIMEOUT,
            priority: 50,
            on_error: OnError::Pass,
            dialect: Dialect::Hookchain,
            required: false,
            origin: ConfigOrigin::Code,
        }
    }

    #[test]
    fn default_names_sort_in_file_order() {
        let entries = (0..12)
            .map(|i| Entry {
                name: (i == 3).then(|| "mine".to_owned()),
                condition: None,
                hook: hook(),
            })
            .collect();
        let names: Vec<String> = name_entries("./h.yaml", entries)
            .into_iter()
            .map(|h| h.name)
            .collect();
        assert_eq!(names[0], "./h.yaml#01");
        assert_eq!(names[3], "mine");
        assert_eq!(names[11], "./h.yaml#12");
        let mut unnamed: Vec<&String> = names.iter().filter(|n| *n != "mine").collect();
        let in_file_order = unnamed.clone();
        unnamed.sort();
        assert_eq!(unnamed, in_file_order);
    }
}
