//! Extensions: the groups hooks are enabled, disabled and configured by.
//!
//! # What it owns
//!
//! Every hook belongs to one extension: the `extension = ".."` key of `#[register_hook]` (by
//! default the name of the package that defines the hook), or
//! `HookOptions::extension` for a hook added through the builder (by default `"app"`). The runtime
//! keeps one [`Extension`] per name. It holds
//!
//! - the extension's **enabled flag**, shared by the chain entries of all its hooks: a disabled
//!   extension's hooks are skipped by every chain, on every thread, from the next dispatch that
//!   starts (chains are never rebuilt: a dispatch compares one process-wide count of switches
//!   with the count at which its chain last found every extension enabled, and reads the flags
//!   again only when the count moved; a dispatch already under way may finish with the flags it
//!   started with);
//! - the extension's **config section** ([`ConfigSection`]), which its hooks read as a type of
//!   their own with [`HookContext::config`](crate::HookContext::config); a section is replaced
//!   whole when the config changes, and each section caches the value it deserialized for each
//!   type, so reading the config in a hook costs a lock and a clone of an `Arc`.
//!
//! An extension may declare the type of its section once, with [`extension_config!`]: the
//! runtime then deserializes the section into that type whenever a config is loaded, and refuses
//! the config (before any hook runs) when it does not fit.
//!
//! An extension is **on by default**: its hooks run unless a config section says
//! `enabled: false` or the agent's code disables it. An extension that ships with a library and
//! should run only when asked for (a built-in guard) is **off by default**
//! (`extension_config!(NAME, Type, enabled = false)`, or `HooksBuilder::off_by_default`): its
//! hooks run only once a section says `enabled: true` or the agent's code enables it, and while
//! off it is "disabled by default" ([`Extension::disabled_by`] says `default`).
//!
//! [`extension_config!`]: crate::extension_config!
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
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

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

/// How many extensions of the process are disabled (see [`Extension::any_disabled`]).
static DISABLED: AtomicUsize = AtomicUsize::new(0);

/// How many times an extension of the process was switched on or off (see
/// [`Extension::switches`]).
static SWITCHES: AtomicU64 = AtomicU64::new(0);

/// One extension of a registry: its name, its hooks' enabled flag, and its config section.
///
/// The runtime creates them; agents get them from `Hooks::extension(name)`, hooks through
/// [`HookContext::extension`](crate::HookContext::extension). A hook's test can make one to read
/// a config from:
///
/// ```
/// use hookchain::HookContext;
/// use hookchain::chain::Annotations;
/// use hookchain::registry::Extension;
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct Guard { blocked_tools: Vec<String> }
///
/// let section = serde_json::json!({"blocked_tools": ["rm"]});
/// let ext = Extension::with_config("workflow-guard", section);
/// let notes = Annotations::new();
/// let cx = HookContext::new("s", 0, "intercept_tool_call", &notes).with_extension(&ext);
/// assert_eq!(cx.config::<Guard>().unwrap().blocked_tools, ["rm"]);
/// ```
pub struct Extension {
    name: Arc<str>,
    enabled: AtomicBool,
    /// What `enabled` is when no section says: `true` unless the extension is off by default.
    enabled_by_default: bool,
    hooks: usize,
    section: RwLock<Arc<ConfigSection>>,
    /// Who disabled it, while it is disabled: a file and line, or the agent's code.
    disabled_by: RwLock<Option<Arc<str>>>,
}

impl Drop for Extension {
    fn drop(&mut self) {
        if !*self.enabled.get_mut() {
            DISABLED.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Extension {
    /// An enabled extension with `hooks` hooks and no config section.
    pub fn new(name: impl Into<Arc<str>>, hooks: usize) -> Self {
        Extension {
            name: name.into(),
            enabled: AtomicBool::new(true),
            enabled_by_default: true,
            hooks,
            section: RwLock::new(Arc::new(ConfigSection::empty())),
            disabled_by: RwLock::new(None),
        }
    }

    /// The extension with `enabled` as its default: what it is when no section says
    /// (`false` for an extension that runs only when asked for, which then starts disabled,
    /// [`disabled_by`](Extension::disabled_by) `"default"`).
    pub fn with_default(mut self, enabled: bool) -> Self {
        self.enabled_by_default = enabled;
        if !enabled {
            self.set_enabled_by(false, DISABLED_BY_DEFAULT);
        }
        self
    }

    /// `false` for an extension that is off until a config section or the agent's code enables
    /// it; `true` for every other.
    pub fn enabled_by_default(&self) -> bool {
        self.enabled_by_default
    }

    /// An enabled extension whose section is `section`, set from code; for tests of a single
    /// hook. `enabled` is not read here.
    ///
    /// # Panics
    ///
    /// When `section` is neither a JSON object nor `null`.
    pub fn with_config(name: impl Into<Arc<str>>, section: Value) -> Self {
        let ext = Extension::new(name, 0);
        let values = match section {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => panic!(
                "the config section of extension `{}` must be a JSON object, not `{other}`",
                ext.name
            ),
        };
        ext.replace_section(Arc::new(ConfigSection::new(
            values,
            ConfigSource::code(),
            Vec::new(),
        )));
        ext
    }

    /// The extension's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `true` when its hooks run.
    #[inline(always)]
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Enables or disables its hooks, in every chain and on every thread, from the next dispatch
    /// that starts. Returns the previous state. A disabled extension is said to be disabled
    /// by "the agent's code" ([`set_enabled_by`](Extension::set_enabled_by) names another).
    pub fn set_enabled(&self, enabled: bool) -> bool {
        self.set_enabled_by(enabled, "the agent's code")
    }

    /// [`set_enabled`](Extension::set_enabled), saying who disables it (`./hookchain.yaml:7`,
    /// "the agent's code"), as listings show it ([`disabled_by`](Extension::disabled_by)).
    /// Enabling forgets who had disabled it.
    pub fn set_enabled_by(&self, enabled: bool, who: impl Into<Arc<str>>) -> bool {
        // Who first, then the flag: a reader that sees the extension disabled finds who did it.
        *self.disabled_by.write() = (!enabled).then(|| who.into());
        // The count goes up before the flag goes down, and down after the flag goes up: whenever
        // this extension reads as disabled, the count says some extension is.
        if !enabled {
            DISABLED.fetch_add(1, Ordering::SeqCst);
        }
        let was = self.enabled.swap(enabled, Ordering::SeqCst);
        if !was {
            // Enabling a disabled one, or disabling it again (whose count was added above).
            DISABLED.fetch_sub(1, Ordering::SeqCst);
        }
        // After the flag: a reader that sees this count sees the flag as it is now.
        SWITCHES.fetch_add(1, Ordering::Release);
        was
    }

    /// Moves [`switches`](Extension::switches) on, so that every chain checks again what lets it
    /// run its hooks with no check of their own: called after something else such a chain
    /// depends on changed (the runtime's tracing interest), never on a dispatch.
    #[doc(hidden)]
    pub fn note_switch() {
        SWITCHES.fetch_add(1, Ordering::Release);
    }

    /// `true` when any extension of the process is disabled. A chain that has to check its hooks
    /// one by one (see [`switches`](Extension::switches)) reads this one flag before each hook,
    /// and the hook's own extension only when it is set.
    #[doc(hidden)]
    #[inline(always)]
    pub fn any_disabled() -> bool {
        DISABLED.load(Ordering::Relaxed) != 0
    }

    /// How many times an extension of the process was enabled or disabled: a chain that saw
    /// every extension of its hooks enabled at this count knows they still are while the count
    /// has not moved, and runs its hooks with no check of their own. Read before the flags
    /// (`Acquire`): the count is moved after the flag.
    #[doc(hidden)]
    #[inline(always)]
    pub fn switches() -> u64 {
        SWITCHES.load(Ordering::Acquire)
    }

    /// Who disabled it (a file and line, "the agent's code", or `"default"` for an extension
    /// off by default that nobody enabled), while it is disabled.
    pub fn disabled_by(&self) -> Option<Arc<str>> {
        if self.is_enabled() {
            return None;
        }
        self.disabled_by.read().clone()
    }

    /// How many hooks belong to it.
    pub fn hook_count(&self) -> usize {
        self.hooks
    }

    /// Its config section deserialized as `T` (cached per type until the config changes).
    pub fn config<T>(&self) -> Result<Arc<T>, ConfigError>
    where
        T: DeserializeOwned + Send + Sync + 'static,
    {
        let section = Arc::clone(&self.section.read());
        section.get::<T>(&self.name)
    }

    /// Its current config section.
    pub fn section(&self) -> Arc<ConfigSection> {
        Arc::clone(&self.section.read())
    }

    /// Replaces its config section whole (the typed values cached from the old one go with it).
    /// The runtime calls this after validating the section; agents load config through the
    /// registry.
    pub fn replace_section(&self, section: Arc<ConfigSection>) {
        *self.section.write() = section;
    }
}

impl fmt::Debug for Extension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extension")
            .field("name", &self.name)
            .field("enabled", &self.is_enabled())
            .field("hooks", &self.hooks)
            .finish_non_exhaustive()
    }
}

/// What [`Extension::disabled_by`] says of an extension that is off by default and that no
/// section and no code enabled: listings read "disabled by default".
pub const DISABLED_BY_DEFAULT: &str = "default";

/// The type an extension's section deserializes into, declared with [`extension_config!`] and
/// collected at link time like the hooks, so a config that does not fit is refused when it is
/// loaded, before any hook runs.
///
/// [`extension_config!`]: crate::extension_config!
#[derive(Debug)]
pub struct ConfigDeclaration {
    /// The extension.
    pub extension: &'static str,
    /// The type, as written in the declaration.
    pub type_name: &'static str,
    /// Deserializes a section as the type (and caches it in the section).
    pub validate: fn(extension: &str, section: &ConfigSection) -> Result<(), ConfigError>,
    /// `false` for an extension off by default (`enabled = false` in the declaration): its hooks
    /// run only once a section says `enabled: true` or the agent's code enables it.
    pub enabled_by_default: bool,
    /// The source file of the declaration.
    pub file: &'static str,
    /// Its line.
    pub line: u32,
}

/// Deserializes `section` as `T`; what [`extension_config!`] puts in its record.
///
/// [`extension_config!`]: crate::extension_config!
pub fn validate_config<T>(extension: &str, section: &ConfigSection) -> Result<(), ConfigError>
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    section.get::<T>(extension).map(drop)
}

#[cfg(not(feature = "linkme"))]
inventory::collect!(ConfigDeclaration);

/// Every [`extension_config!`] declaration linked into the program, in no particular order.
///
/// [`extension_config!`]: crate::extension_config!
#[cfg(not(feature = "linkme"))]
pub fn config_declarations() -> impl Iterator<Item = &'static ConfigDeclaration> {
    inventory::iter::<ConfigDeclaration>.into_iter()
}

/// Every [`extension_config!`] declaration linked into the program, in no particular order.
///
/// [`extension_config!`]: crate::extension_config!
#[cfg(feature = "linkme")]
pub fn config_declarations() -> impl Iterator<Item = &'static ConfigDeclaration> {
    crate::__private::CONFIG_DECLARATIONS.iter()
}

/// Declares the type an extension's config section deserializes into.
///
/// When a config is loaded into a registry (`HooksBuilder::build`, `Hooks::set_config`,
/// `Hooks::global`), the extension's section is deserialized into the type, and a section that
/// does not fit is refused before any hook runs. Hooks read it with `cx.config::<T>()`.
///
/// With `enabled = false` the extension is **off by default**: its hooks run only once a
/// section says `enabled: true` (`extensions: {NAME: {enabled: true}}` in `hookchain.yaml`) or
/// the agent's code enables it (`Hooks::enable_extension`). A project's file may enable it — that
/// adds a guard, it switches nothing off. Built-in guards are declared this way.
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Default)]
/// #[serde(default)]
/// struct NoForcePush { branches: Vec<String> }
///
/// hookchain::extension_config!("no-force-push", NoForcePush, enabled = false);
/// ```
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct PlanCheckConfig {
///     plan_path: String,
///     #[serde(default)]
///     blocked_tools: Vec<String>,
/// }
///
/// // Not `workflow-guard`: a built-in guard's name is the guard's alone.
/// hookchain::extension_config!("plan-check", PlanCheckConfig);
/// ```
#[macro_export]
macro_rules! extension_config {
    ($extension:literal, $ty:ty, enabled = $enabled:literal $(,)?) => {
        const _: () = {
            $crate::__private::submit_config! {
                $crate::ConfigDeclaration {
                    extension: $extension,
                    type_name: ::core::stringify!($ty),
                    validate: $crate::validate_config::<$ty>,
                    enabled_by_default: $enabled,
                    file: ::core::file!(),
                    line: ::core::line!(),
                }
            }
        };
    };
    ($extension:literal, $ty:ty $(,)?) => {
        $crate::extension_config!($extension, $ty, enabled = true);
    };
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
    fn a_section_is_deserialized_once_per_type() {
        let ext = Extension::with_config("g", json!({"plan_path": "p.md"}));
        let a = ext.config::<Guard>().unwrap();
        let b = ext.config::<Guard>().unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.plan_path, "p.md");
    }

    #[test]
    fn replacing_the_section_drops_the_cached_values() {
        let ext = Extension::with_config("g", json!({"plan_path": "a"}));
        assert_eq!(ext.config::<Guard>().unwrap().plan_path, "a");
        ext.replace_section(Arc::new(ConfigSection::new(
            [("plan_path".to_owned(), json!("b"))].into_iter().collect(),
            ConfigSource::code(),
            Vec::new(),
        )));
        assert_eq!(ext.config::<Guard>().unwrap().plan_path, "b");
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
        assert_eq!(
            Extension::new("workflow-guard", 1)
                .config::<Guard>()
                .unwrap_err()
                .to_string(),
            "extension `workflow-guard` with no config section: missing field `plan_path`"
        );
    }
}
