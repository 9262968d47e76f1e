//! Sections: the config of a registry's extensions, as data — each extension's keys, its
//! `enabled` flag, and where every key was written — and how a registry takes it.
//!
//! # What it owns
//!
//! [`Sections`] is what a registry's extensions are configured with. It knows nothing of files:
//! the `config` feature (`hookchain::config`) reads `hookchain.yaml` and other agents' files into
//! one; code sets keys with [`Sections::extension`]. A registry takes it through
//! [`HooksBuilder::sections`](crate::HooksBuilder::sections) when it is built and
//! [`Hooks::set_sections`](crate::Hooks::set_sections) at runtime.
//!
//! # The rules it keeps
//!
//! - `enabled` is reserved in every section: `true` or `false`, anything else is an error; an
//!   extension whose section does not say is enabled.
//! - [`merge`](Sections::merge) puts one over another key by key (a shallow merge of each
//!   section, `enabled` too), remembering where each key was last written.
//! - Loaded into a registry, every section must belong to an extension the registry knows (one
//!   of its hooks' extensions, or one declared with `extension_config!`): a section for an
//!   unknown extension is an **error**, with a "did you mean", because a misspelt name would
//!   otherwise leave a guard running without its config. Every declared type must deserialize
//!   from its extension's section (a missing section is an empty mapping).
//! - A registry built with [`HooksBuilder::build`](crate::HooksBuilder::build), and
//!   [`Hooks::set_sections`](crate::Hooks::set_sections), refuse sections with any error and
//!   change nothing. A lenient build leaves out what is wrong — an unknown extension's section;
//!   a section that does not fit, whose extension then runs enabled with no section — and
//!   reports it.
//! - Reloading gives every extension its new section, then its flag: dispatches in flight on
//!   other threads see every extension either before or after its switch, and a hook reading
//!   its config gets one whole section, old or new.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use hooks_core::json_kind;
use hooks_core::suggest::closest;
use hooks_core::{ConfigError, ConfigOrigin, ConfigSection, ConfigSource, Extension, PathSegment};
use serde_json::{Map, Value};

/// The key reserved in every section for the extension's enabled flag.
const ENABLED: &str = "enabled";

/// The config of a registry's extensions: each extension's section and `enabled` flag, and
/// where every key was written. Cheap to clone.
///
/// ```
/// use hookchain::registry::Sections;
/// use hookchain::prelude::*;
///
/// let sections = Sections::new()
///     .extension("workflow-guard", json!({"plan_path": "plans/plan.md"}))
///     .merge(Sections::new().extension("workflow-guard", json!({"enabled": false})));
/// assert_eq!(sections.enabled("workflow-guard"), Some(false));
/// assert_eq!(sections.section("workflow-guard").unwrap()["plan_path"], "plans/plan.md");
/// ```
#[derive(Clone, Default)]
pub struct Sections {
    map: BTreeMap<String, Section>,
    /// Mistakes in sections set from code, reported when they are loaded into a registry.
    errors: Vec<ConfigError>,
}

#[derive(Clone)]
struct Section {
    /// Where the section was last written.
    header: ConfigSource,
    values: Map<String, Value>,
    /// Where each key was last written.
    keys: BTreeMap<String, ConfigSource>,
    enabled: Option<bool>,
}

impl Section {
    /// Puts `over`'s keys over this section's.
    fn merge(&mut self, over: Section) {
        for (key, value) in over.values {
            let source = over
                .keys
                .get(&key)
                .cloned()
                .unwrap_or_else(|| over.header.clone());
            self.keys.insert(key.clone(), source);
            self.values.insert(key, value);
        }
        if over.enabled.is_some() {
            self.enabled = over.enabled;
        }
        self.header = over.header;
    }
}

impl Sections {
    /// No section: every extension enabled, every section absent.
    pub fn new() -> Self {
        Sections::default()
    }

    /// Sets keys of `extension`'s section from code, over the keys it has (`enabled`, if
    /// present, must be `true` or `false`). `section` is a JSON object, or `null` for an empty
    /// section; anything else is reported when the sections are loaded into a registry.
    pub fn extension(mut self, extension: impl Into<String>, section: Value) -> Self {
        let name = extension.into();
        let values = match section {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                self.errors.push(ConfigError::Malformed {
                    subject: format!("extension `{name}`"),
                    origin: ConfigOrigin::Code,
                    problem: format!(
                        "expected a JSON object of its settings, found {}",
                        json_kind(&other)
                    ),
                });
                return self;
            }
        };
        if let Err(error) = self.insert(name, values, &ConfigSource::code(), &[]) {
            self.errors.push(error);
        }
        self
    }

    /// Puts the keys of one extension's section, read from `source` at the path `at` (the keys
    /// leading to the section in its file, e.g. `["extensions", "workflow-guard"]`), over the
    /// keys it has. `enabled` is taken out and must be `true` or `false`.
    pub fn insert(
        &mut self,
        name: String,
        mut values: Map<String, Value>,
        source: &ConfigSource,
        at: &[&str],
    ) -> Result<(), ConfigError> {
        let mut enabled_flag = None;
        if let Some(enabled) = values.remove(ENABLED) {
            match enabled {
                Value::Bool(enabled) => enabled_flag = Some(enabled),
                other => {
                    let mut path: Vec<PathSegment> = at
                        .iter()
                        .map(|k| PathSegment::Key((*k).to_owned()))
                        .collect();
                    path.push(PathSegment::Key(ENABLED.to_owned()));
                    return Err(ConfigError::Malformed {
                        subject: format!("`enabled` of extension `{name}`"),
                        origin: source.origin(&path),
                        problem: format!("expected `true` or `false`, found {}", json_kind(&other)),
                    });
                }
            }
        }
        let section = Section {
            header: source.clone(),
            keys: values
                .keys()
                .map(|key| (key.clone(), source.clone()))
                .collect(),
            values,
            enabled: enabled_flag,
        };
        match self.map.get_mut(&name) {
            Some(base) => base.merge(section),
            None => {
                self.map.insert(name, section);
            }
        }
        Ok(())
    }

    /// `over` put over these sections: for each extension, `over`'s keys (and `enabled`)
    /// replace these, one key at a time.
    pub fn merge(mut self, over: Sections) -> Sections {
        for (name, section) in over.map {
            match self.map.get_mut(&name) {
                Some(base) => base.merge(section),
                None => {
                    self.map.insert(name, section);
                }
            }
        }
        self.errors.extend(over.errors);
        self
    }

    /// The names of the extensions with a section, sorted.
    pub fn extensions(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }

    /// The keys of an extension's section, `enabled` excepted.
    pub fn section(&self, extension: &str) -> Option<&Map<String, Value>> {
        self.map.get(extension).map(|s| &s.values)
    }

    /// What the sections say of an extension's `enabled`, if anything.
    pub fn enabled(&self, extension: &str) -> Option<bool> {
        self.map.get(extension).and_then(|s| s.enabled)
    }

    /// `true` when there is no section.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl fmt::Debug for Sections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (name, section) in &self.map {
            map.entry(
                name,
                &format_args!("enabled: {:?}, {:?}", section.enabled, section.values),
            );
        }
        map.finish()
    }
}

// ---------------------------------------------------------------------------------------------
// Loading sections into a registry's extensions.
// ---------------------------------------------------------------------------------------------

/// The type an extension's section must deserialize into, as the registry keeps it.
#[derive(Clone)]
pub(crate) struct Declared {
    pub(crate) extension: String,
    pub(crate) type_name: &'static str,
    pub(crate) validate: fn(&str, &ConfigSection) -> Result<(), ConfigError>,
}

impl From<&'static hooks_core::ConfigDeclaration> for Declared {
    fn from(d: &'static hooks_core::ConfigDeclaration) -> Self {
        Declared {
            extension: d.extension.to_owned(),
            type_name: d.type_name,
            validate: d.validate,
        }
    }
}

/// What loading sections gives each extension, in the registry's order of extensions.
pub(crate) struct Plan {
    updates: Vec<(Arc<ConfigSection>, bool)>,
}

impl Plan {
    /// Gives every extension its section, then its flag.
    pub(crate) fn apply(self, extensions: &[Arc<Extension>]) {
        for (extension, (section, enabled)) in extensions.iter().zip(self.updates) {
            extension.replace_section(section);
            extension.set_enabled(enabled);
        }
    }
}

/// Checks `sections` against a registry's extensions and declared types. The plan leaves out
/// what is wrong (an unknown extension's section; a section that does not fit its declared type,
/// whose extension then runs enabled with no section); the errors say what that was, in the
/// order: from code, unknown extensions, sections that do not fit.
pub(crate) fn plan(
    sections: &Sections,
    extensions: &[Arc<Extension>],
    declared: &[Declared],
) -> (Plan, Vec<ConfigError>) {
    let mut errors = sections.errors.clone();
    let known: Vec<String> = extensions.iter().map(|e| e.name().to_owned()).collect();
    for (name, section) in &sections.map {
        if known.iter().any(|k| k == name) {
            continue;
        }
        errors.push(ConfigError::UnknownExtension {
            extension: name.clone(),
            origin: section.header.origin(&[
                PathSegment::Key("extensions".to_owned()),
                PathSegment::Key(name.clone()),
            ]),
            suggestion: closest(name, known.iter().map(String::as_str)).map(str::to_owned),
            known: known.clone(),
        });
    }
    let mut updates: Vec<(Arc<ConfigSection>, bool)> = extensions
        .iter()
        .map(|extension| match sections.map.get(extension.name()) {
            Some(section) => (
                Arc::new(ConfigSection::new(
                    section.values.clone(),
                    section.header.clone(),
                    section
                        .keys
                        .iter()
                        .map(|(k, s)| (k.clone(), s.clone()))
                        .collect(),
                )),
                section.enabled.unwrap_or(true),
            ),
            None => (Arc::new(ConfigSection::empty()), true),
        })
        .collect();
    let mut declared: Vec<&Declared> = declared.iter().collect();
    declared.sort_by(|a, b| (&a.extension, a.type_name).cmp(&(&b.extension, b.type_name)));
    for d in declared {
        let Some(index) = known.iter().position(|k| *k == d.extension) else {
            continue;
        };
        if let Err(error) = (d.validate)(&d.extension, &updates[index].0) {
            errors.push(error);
            updates[index] = (Arc::new(ConfigSection::empty()), true);
        }
    }
    (Plan { updates }, errors)
}
