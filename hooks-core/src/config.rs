//! Extensions' config: one extension's section ([`ConfigSection`]), where each of its values
//! was written ([`ConfigSource`], [`ConfigOrigin`]), and what can be wrong with it
//! ([`ConfigError`]).
//!
//! # What it owns
//!
//! Each extension of a registry ([`Extension`](crate::Extension)) holds one config section,
//! which its hooks read as a type of their own with
//! [`HookContext::config`](crate::HookContext::config); a section is replaced whole when the
//! config changes, and each section caches the value it deserialized for each type, so reading
//! the config in a hook costs a lock and a clone of an `Arc`.
//!
//! # The rules it keeps
//!
//! - A missing section is an empty mapping, so a type whose fields all have `#[serde(default)]`
//!   reads fine without any config, and a type with a required field names that field.
//! - The key `enabled` is reserved in every section: it is the extension's flag, never part of
//!   the typed config.
//! - A [`ConfigError`] says which extension, which field (`blocked_tools[1]`), which file and line,
//!   and what is wrong, in a sentence the user can act on. This module does no I/O: the runtime
//!   reads and parses files, and tells a section where each of its keys came from
//!   ([`ConfigSource`]).

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

use parking_lot::RwLock;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// One step of the path to a value in a config file: a mapping key or a sequence index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// A key of a mapping.
    Key(String),
    /// An index in a sequence, from 0.
    Index(usize),
}

/// Finds the line (from 1) of the value at a path from the root of a config file.
type LocateLine = dyn Fn(&[PathSegment]) -> Option<usize> + Send + Sync;

/// Where a piece of config came from: a file (which can tell the line of any value in it) or
/// code. Cheap to clone.
#[derive(Clone)]
pub struct ConfigSource {
    file: Option<Arc<str>>,
    locate: Option<Arc<LocateLine>>,
}

impl ConfigSource {
    /// Config set from code.
    pub fn code() -> Self {
        ConfigSource {
            file: None,
            locate: None,
        }
    }

    /// A file called `name` (as the user should read it, e.g. `./hookchain.yaml`); `locate`
    /// gives the line of the value at a path from the file's root, when it is in the file.
    pub fn file(
        name: impl Into<Arc<str>>,
        locate: impl Fn(&[PathSegment]) -> Option<usize> + Send + Sync + 'static,
    ) -> Self {
        ConfigSource {
            file: Some(name.into()),
            locate: Some(Arc::new(locate)),
        }
    }

    /// The file's name, or `None` for config set from code.
    pub fn file_name(&self) -> Option<&str> {
        self.file.as_deref()
    }

    /// Where the value at `path` (from the file's root) is: the file and the line of the value,
    /// or of its closest ancestor found in the file.
    pub fn origin(&self, path: &[PathSegment]) -> ConfigOrigin {
        let Some(file) = &self.file else {
            return ConfigOrigin::Code;
        };
        let line = self
            .locate
            .as_ref()
            .and_then(|locate| (0..=path.len()).rev().find_map(|n| locate(&path[..n])));
        ConfigOrigin::File {
            path: file.to_string(),
            line,
        }
    }
}

impl fmt::Debug for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "ConfigSource({file})"),
            None => f.write_str("ConfigSource(code)"),
        }
    }
}

/// How config errors name the kind of a JSON value: `nothing` (null), `a boolean`, `a number`,
/// `a string`, `a sequence`, `a mapping` — the words of YAML, which most config files are in.
pub fn json_kind(value: &Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

/// Where an error in a config is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigOrigin {
    /// In a file, at a line when it is known.
    File {
        /// The file, as the user should read it (`./hookchain.yaml`).
        path: String,
        /// The line, from 1.
        line: Option<usize>,
    },
    /// In config set from code.
    Code,
    /// Nowhere: the extension has no section, so it was read as an empty mapping.
    Absent,
}

impl ConfigOrigin {
    /// In `path`, at `line` when it is known.
    pub fn file(path: impl Into<String>, line: Option<usize>) -> Self {
        ConfigOrigin::File {
            path: path.into(),
            line,
        }
    }

    /// The file, for an origin in a file.
    pub fn path(&self) -> Option<&str> {
        match self {
            ConfigOrigin::File { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The line, when it is known.
    pub fn line(&self) -> Option<usize> {
        match self {
            ConfigOrigin::File { line, .. } => *line,
            _ => None,
        }
    }

    /// `path:line` (or `path`, `code`, `nowhere`), as listings show where a hook was defined;
    /// `Display` gives the phrase errors use (`in path line 12`).
    pub fn short(&self) -> ShortOrigin<'_> {
        ShortOrigin(self)
    }
}

/// [`ConfigOrigin::short`]: `path:line`.
#[derive(Debug, Clone, Copy)]
pub struct ShortOrigin<'a>(&'a ConfigOrigin);

impl fmt::Display for ShortOrigin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ConfigOrigin::File {
                path,
                line: Some(line),
            } => write!(f, "{path}:{line}"),
            ConfigOrigin::File { path, line: None } => f.write_str(path),
            ConfigOrigin::Code => f.write_str("code"),
            ConfigOrigin::Absent => f.write_str("nowhere"),
        }
    }
}

impl fmt::Display for ConfigOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigOrigin::File {
                path,
                line: Some(line),
            } => write!(f, "in {path} line {line}"),
            ConfigOrigin::File { path, line: None } => write!(f, "in {path}"),
            ConfigOrigin::Code => f.write_str("in the config set from code"),
            ConfigOrigin::Absent => f.write_str("with no config section"),
        }
    }
}

/// What can be wrong with a config: where it is and what to do about it.
///
/// Every message starts with what is wrong where — the extension, key or file, then the file and
/// line — and ends with the problem, e.g. "extension `workflow-guard` in ./hookchain.yaml line 7:
/// field `blocked_tools[1]`: invalid type: integer `3`, expected a string".
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// An extension's section does not deserialize into the type its hooks read it as.
    #[error("extension `{extension}` {origin}: {}{message}", field_prefix(.field))]
    Invalid {
        /// The extension.
        extension: String,
        /// Where the offending value is.
        origin: ConfigOrigin,
        /// The path of the offending field in the section (`blocked_tools[1]`), empty for the
        /// section itself (a missing field, for instance).
        field: String,
        /// What is wrong, as serde says it.
        message: String,
    },
    /// A file is not valid YAML.
    #[error("{file}{}: invalid YAML: {message}", line_column(.line, .column))]
    Syntax {
        /// The file.
        file: String,
        /// The line, from 1, when the parser knows it.
        line: Option<usize>,
        /// The column, from 1, when the parser knows it.
        column: Option<usize>,
        /// What the parser says.
        message: String,
    },
    /// A top-level key the config format does not have.
    #[error("key `{key}` {origin}: unknown top-level key{}", top_level_hint(.suggestion))]
    UnknownKey {
        /// The key.
        key: String,
        /// Where it is.
        origin: ConfigOrigin,
        /// The closest known key, when one is close.
        suggestion: Option<String>,
    },
    /// A section for an extension that no hook belongs to (a typo would silently leave a guard
    /// unconfigured, so it is an error).
    #[error(
        "extension `{extension}` {origin}: no hook belongs to this extension{}",
        extension_hint(.suggestion, .known)
    )]
    UnknownExtension {
        /// The section's name.
        extension: String,
        /// Where the section is.
        origin: ConfigOrigin,
        /// The closest known extension, when one is close.
        suggestion: Option<String>,
        /// Every extension of the registry, sorted.
        known: Vec<String>,
    },
    /// A value of the wrong shape where the config format fixes one (`extensions` is a mapping,
    /// `enabled` is `true` or `false`, ...).
    #[error("{subject} {origin}: {problem}")]
    Malformed {
        /// What is malformed (`` `enabled` of extension `workflow-guard` ``).
        subject: String,
        /// Where it is.
        origin: ConfigOrigin,
        /// What is wrong and what is expected.
        problem: String,
    },
    /// A config file that exists could not be read.
    #[error("cannot read {file}: {message}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// `cx.config()` in a hook that belongs to no extension: a context made by hand, outside a
    /// registry's dispatch.
    #[error(
        "hook `{hook}` has no extension, so it has no config: `cx.config()` reads the config of \
         hooks dispatched by a registry"
    )]
    NoExtension {
        /// The hook's name (empty when the context names none).
        hook: String,
    },
}

/// The message, as `Display` writes it: what `main` prints for an error it returns with `?`.
impl fmt::Debug for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn field_prefix(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!("field `{field}`: ")
    }
}

fn line_column(line: &Option<usize>, column: &Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(" line {line} column {column}"),
        (Some(line), None) => format!(" line {line}"),
        _ => String::new(),
    }
}

fn top_level_hint(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(s) => format!(", did you mean `{s}`?"),
        None => "; the config's top-level keys are `extensions`, `hooks` and `hooks_auto_accept`"
            .to_owned(),
    }
}

fn extension_hint(suggestion: &Option<String>, known: &[String]) -> String {
    match suggestion {
        Some(s) => format!(", did you mean `{s}`?"),
        None if known.is_empty() => {
            " (the registry has no extensions: is the crate with the hooks linked?)".to_owned()
        }
        None => format!(" (the extensions are {})", list(known)),
    }
}

/// `` `a`, `b`, `c` ``
pub(crate) fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

type Typed = Result<Arc<dyn Any + Send + Sync>, ConfigError>;

/// One extension's config: the keys of its section (without `enabled`), where each came from,
/// and the values already deserialized from it, by type.
///
/// The runtime builds one per extension whenever a config is loaded and replaces the old one
/// whole, so the typed values cached here never outlive the config they came from.
pub struct ConfigSection {
    value: Value,
    /// Where the section itself was written (the `extensions: NAME:` key), when it was.
    header: Option<ConfigSource>,
    /// Where each top-level key of the section was written (project over global: keys of one
    /// section may come from different files).
    keys: Vec<(String, ConfigSource)>,
    typed: RwLock<Vec<(TypeId, Typed)>>,
}

impl ConfigSection {
    /// An absent section: read as an empty mapping.
    pub fn empty() -> Self {
        ConfigSection {
            value: Value::Object(Map::new()),
            header: None,
            keys: Vec::new(),
            typed: RwLock::new(Vec::new()),
        }
    }

    /// A section with these keys (`enabled` excluded), written at `header`, each key written at
    /// its source in `keys` (a key missing there is taken to come from `header`).
    pub fn new(
        values: Map<String, Value>,
        header: ConfigSource,
        keys: Vec<(String, ConfigSource)>,
    ) -> Self {
        ConfigSection {
            value: Value::Object(values),
            header: Some(header),
            keys,
            typed: RwLock::new(Vec::new()),
        }
    }

    /// The section's keys, as JSON.
    pub fn values(&self) -> &Map<String, Value> {
        match &self.value {
            Value::Object(map) => map,
            _ => unreachable!("a section is built from a mapping"),
        }
    }

    /// `true` when no section was given for the extension.
    pub fn is_absent(&self) -> bool {
        self.header.is_none()
    }

    /// The section deserialized as `T`, cached per type; `extension` names the extension in the
    /// error.
    pub fn get<T>(&self, extension: &str) -> Result<Arc<T>, ConfigError>
    where
        T: DeserializeOwned + Send + Sync + 'static,
    {
        let key = TypeId::of::<T>();
        let cached = self
            .typed
            .read()
            .iter()
            .find(|(id, _)| *id == key)
            .map(|(_, typed)| typed.clone());
        let typed = match cached {
            Some(typed) => typed,
            None => {
                let typed = self
                    .deserialize::<T>(extension)
                    .map(|v| v as Arc<dyn Any + Send + Sync>);
                let mut cache = self.typed.write();
                match cache.iter().find(|(id, _)| *id == key) {
                    Some((_, first)) => first.clone(),
                    None => {
                        cache.push((key, typed.clone()));
                        typed
                    }
                }
            }
        };
        typed.map(|any| match any.downcast::<T>() {
            Ok(value) => value,
            Err(_) => unreachable!("the cache is keyed by the value's TypeId"),
        })
    }

    #[cold]
    fn deserialize<T: DeserializeOwned>(&self, extension: &str) -> Result<Arc<T>, ConfigError> {
        serde_path_to_error::deserialize::<_, T>(&self.value)
            .map(Arc::new)
            .map_err(|error| {
                let path = segments(error.path());
                let field = if path.is_empty() {
                    String::new()
                } else {
                    error.path().to_string()
                };
                ConfigError::Invalid {
                    extension: extension.to_owned(),
                    origin: self.origin_of(extension, &path),
                    field,
                    message: error.into_inner().to_string(),
                }
            })
    }

    /// Where the value at `path` (in the section) was written.
    fn origin_of(&self, extension: &str, path: &[PathSegment]) -> ConfigOrigin {
        let Some(header) = &self.header else {
            return ConfigOrigin::Absent;
        };
        let source = match path.first() {
            Some(PathSegment::Key(first)) => self
                .keys
                .iter()
                .find(|(key, _)| key == first)
                .map_or(header, |(_, source)| source),
            _ => header,
        };
        let mut full = vec![
            PathSegment::Key("extensions".to_owned()),
            PathSegment::Key(extension.to_owned()),
        ];
        full.extend_from_slice(path);
        source.origin(&full)
    }
}

impl fmt::Debug for ConfigSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConfigSection")
            .field("values", &self.value)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

/// serde_path_to_error's path as segments.
fn segments(path: &serde_path_to_error::Path) -> Vec<PathSegment> {
    use serde_path_to_error::Segment;
    let mut out = Vec::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push(PathSegment::Index(*index)),
            Segment::Map { key } => out.push(PathSegment::Key(key.clone())),
            Segment::Enum { variant } => out.push(PathSegment::Key(variant.clone())),
            Segment::Unknown => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Guard {
        plan_path: String,
        #[serde(default)]
        blocked_tools: Vec<String>,
    }

    #[test]
    fn errors_name_the_extension_the_field_and_the_line() {
        let file = ConfigSource::file("./hookchain.yaml", |path| match path {
            [_, _] => Some(2),
            [_, _, PathSegment::Key(k)] if k == "blocked_tools" => Some(4),
            [_, _, PathSegment::Key(k), PathSegment::Index(1)] if k == "blocked_tools" => Some(6),
            _ => None,
        });
        let section = ConfigSection::new(
            [
                ("plan_path".to_owned(), json!("p")),
                ("blocked_tools".to_owned(), json!(["a", 3])),
            ]
            .into_iter()
            .collect(),
            file.clone(),
            vec![("blocked_tools".to_owned(), file)],
        );
        let error = section.get::<Guard>("workflow-guard").unwrap_err();
        assert_eq!(
            error.to_string(),
            "extension `workflow-guard` in ./hookchain.yaml line 6: field `blocked_tools[1]`: \
             invalid type: integer `3`, expected a string"
        );
    }
}
