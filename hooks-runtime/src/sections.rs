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
//!   extension whose section does not say is enabled — unless it is off by default
//!   (`extension_config!(NAME, Type, enabled = false)`, `HooksBuilder::off_by_default`), which
//!   stays off until a section says `enabled: true`. A project's file may say it: enabling
//!   adds a guard and switches nothing off.
//! - [`merge`](Sections::merge) puts one over another key by key (a shallow merge of each
//!   section, `enabled` too), remembering where each key was last written.
//! - Sections of a file that may add and configure, never switch off (a project's file,
//!   [`Sections::restricted`]) do not replace a value the other layers set with an empty one
//!   (nothing, `false`, `0`, `""`, `[]`, `{}`), and their `enabled: false` holds only for an
//!   extension whose hooks all come from that file. Each refusal is a sentence naming the file
//!   and line and how to do it instead: [`Sections::refusals`] for the merge's, and, once loaded
//!   into a registry, [`Hooks::refusals`](crate::Hooks::refusals) and a notice every session
//!   hears when it starts.
//! - Loaded into a registry, what a restricted layer wrote is held to the [`ProjectRule`] of
//!   each field, when the extension's config type declares them
//!   ([`HooksBuilder::config_type_with_rules`](crate::HooksBuilder::config_type_with_rules);
//!   every built-in guard does): a list of protected things is joined to the other layers'
//!   (or the type's default), never replaced; a setting only the user may make is refused; a
//!   limit may only go down and a minimum or a switch that tightens only up; a file to read
//!   must be inside the project. A refused key gives way to the other layers' value, or to the
//!   default. The rules are applied here, not when the layers are merged, because only the
//!   registry knows the extension's type; every refusal joins the others (a sentence naming the
//!   file and line, why, and to write it in the user's own file). A field with no rule keeps
//!   the rule above (no emptying what the other layers set).
//! - An extension switched off says who did it ([`Extension::disabled_by`]): the file and line of
//!   its `enabled: false`, or "the agent's code"; one switched on says who did, the file and line
//!   of its `enabled: true` ([`Extension::enabled_by`]); one left as its default says nobody.
//! - Loaded into a registry, every section must belong to an extension the registry knows (one
//!   of its hooks' extensions, or one declared with `extension_config!`): a section for an
//!   unknown extension is an **error**, with a "did you mean", because a misspelt name would
//!   otherwise leave a guard running without its config. Every declared type must deserialize
//!   from its extension's section (a missing section is an empty mapping).
//! - A registry built with [`HooksBuilder::build`](crate::HooksBuilder::build), and
//!   [`Hooks::set_sections`](crate::Hooks::set_sections), refuse sections with any error and
//!   change nothing. A lenient build leaves out what is wrong — an unknown extension's section;
//!   a section that does not fit, whose extension then runs enabled with no section (or, when
//!   only a restricted layer's keys keep it from fitting, with the other layers' section; an
//!   extension off by default runs with no section when the section enabled it, and stays off
//!   otherwise) — and reports it.
//! - Reloading gives every extension its new section, then its flag: dispatches in flight on
//!   other threads see every extension either before or after its switch, and a hook reading
//!   its config gets one whole section, old or new.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use hookchain_core::json_kind;
use hookchain_core::suggest::closest;
use hookchain_core::{
    ConfigError, ConfigOrigin, ConfigSection, ConfigSource, DeclaredRules, Extension, PathSegment,
    ProjectRule,
};

use crate::registry::{HookInfo, HookSource};
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
    /// What a restricted file tried to switch off and was refused, each a sentence for the user.
    refusals: Vec<String>,
}

/// Where a value of a section was written, and whether it may switch off what others set.
#[derive(Clone)]
struct Written {
    source: ConfigSource,
    origin: ConfigOrigin,
    /// Written by a file that may add and configure, never switch off (a project's file).
    restricted: bool,
}

#[derive(Clone)]
struct Section {
    /// Where the section was last written.
    header: ConfigSource,
    values: Map<String, Value>,
    /// Where each key was last written.
    keys: BTreeMap<String, Written>,
    /// The keys as the unrestricted layers (the user's file, code) wrote them, with where: what
    /// the extension falls back to when the restricted layers' keys do not fit its type.
    trusted: BTreeMap<String, (Value, Written)>,
    /// Every `enabled` written, in the order the layers were put over each other.
    flags: Vec<(bool, Written)>,
}

impl Section {
    /// Puts `over`'s keys over this section's, except a restricted layer's key that would empty
    /// what an unrestricted one set (a refusal, said in `refusals`).
    fn merge(&mut self, name: &str, over: Section, refusals: &mut Vec<String>) {
        for (key, value) in over.values {
            let written = over.keys.get(&key).cloned().unwrap_or_else(|| Written {
                source: over.header.clone(),
                origin: over.header.origin(&[]),
                restricted: false,
            });
            if written.restricted {
                if let Some((old, by)) = self.trusted.get(&key)
                    && is_empty(&value)
                    && !is_empty(old)
                {
                    let refusal = refusal(
                        &written.origin,
                        &format!("`{key}: {value}` of extension `{name}`"),
                        &format!("`{key}` is {old} in {}", by_whom(&by.origin)),
                    );
                    tracing::warn!("{refusal}");
                    refusals.push(refusal);
                    continue;
                }
            } else {
                self.trusted
                    .insert(key.clone(), (value.clone(), written.clone()));
            }
            self.keys.insert(key.clone(), written);
            self.values.insert(key, value);
        }
        self.flags.extend(over.flags);
        self.header = over.header;
    }

    /// The section as the registry's extension gets it.
    fn config_section(&self) -> ConfigSection {
        ConfigSection::new(
            self.values.clone(),
            self.header.clone(),
            self.keys
                .iter()
                .map(|(k, w)| (k.clone(), w.source.clone()))
                .collect(),
        )
    }

    /// The section as the registry's extension gets it, with the [`ProjectRule`] of each field
    /// applied to what a restricted layer wrote: a union joins the other layers' list (or the
    /// default), a refused key gives way to the other layers' value (or the default), and each
    /// refusal is said in `refusals`.
    fn ruled_section(
        &self,
        name: &str,
        rules: &DeclaredRules,
        refusals: &mut Vec<String>,
    ) -> ConfigSection {
        let mut values = self.values.clone();
        let mut sources: BTreeMap<String, ConfigSource> = self
            .keys
            .iter()
            .map(|(k, w)| (k.clone(), w.source.clone()))
            .collect();
        let mut defaults: Option<Map<String, Value>> = None;
        for (key, written) in self.keys.iter().filter(|(_, w)| w.restricted) {
            let Some(rule) = rules.rule(key) else {
                continue;
            };
            let value = &self.values[key];
            let defaults = defaults.get_or_insert_with(rules.defaults);
            let base = match self.trusted.get(key) {
                Some((v, by)) => Some((v, by_whom(&by.origin))),
                None => defaults
                    .get(key)
                    .map(|v| (v, format!("the default of `{name}`"))),
            };
            let refuse = |what: String, because: &str, refusals: &mut Vec<String>| {
                let refused = setting_refusal(&written.origin, &what, because);
                tracing::warn!("{refused}");
                refusals.push(refused);
            };
            match apply_rule(rule, value, base.as_ref().map(|(v, by)| (*v, by.as_str()))) {
                Ruled::Holds => {}
                Ruled::Becomes(joined) => {
                    values.insert(key.clone(), joined);
                }
                Ruled::Refused(because) => {
                    refuse(
                        format!("`{key}: {value}` of extension `{name}`"),
                        &because,
                        refusals,
                    );
                    match self.trusted.get(key) {
                        Some((v, by)) => {
                            values.insert(key.clone(), v.clone());
                            sources.insert(key.clone(), by.source.clone());
                        }
                        None => {
                            values.remove(key);
                            sources.remove(key);
                        }
                    }
                }
                Ruled::Entries { kept, refused } => {
                    for (entry, because) in refused {
                        refuse(
                            format!("`{key}` entry {entry} of extension `{name}`"),
                            &because,
                            refusals,
                        );
                    }
                    values.insert(key.clone(), kept);
                }
            }
        }
        ConfigSection::new(values, self.header.clone(), sources.into_iter().collect())
    }

    /// The section of the unrestricted layers alone, when a restricted layer wrote any key.
    fn trusted_section(&self) -> Option<ConfigSection> {
        if !self.keys.values().any(|w| w.restricted) {
            return None;
        }
        let values = self
            .trusted
            .iter()
            .map(|(k, (v, _))| (k.clone(), v.clone()))
            .collect();
        let keys = self
            .trusted
            .iter()
            .map(|(k, (_, w))| (k.clone(), w.source.clone()))
            .collect();
        let header = self
            .trusted
            .values()
            .next()
            .map_or_else(ConfigSource::code, |(_, w)| w.source.clone());
        Some(ConfigSection::new(values, header, keys))
    }

    /// The files of the restricted layers that wrote keys, for messages.
    fn restricted_files(&self) -> Vec<String> {
        let mut files: Vec<String> = self
            .keys
            .values()
            .filter(|w| w.restricted)
            .map(|w| w.source.file_name().unwrap_or("code").to_owned())
            .collect();
        files.dedup();
        files
    }
}

/// `true` for a value that switches a setting off when it replaces another: nothing, `false`,
/// `0`, an empty string, sequence or mapping.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => true,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(true) => false,
    }
}

/// What a field's [`ProjectRule`] makes of a restricted layer's value.
enum Ruled {
    /// It holds as written.
    Holds,
    /// It is joined to the other layers' list (or the default): the joined list.
    Becomes(Value),
    /// It is refused, for the reason given.
    Refused(String),
    /// Some entries of the list hold (joined to the other layers' list), the others are
    /// refused, each for its reason.
    Entries {
        kept: Value,
        refused: Vec<(Value, String)>,
    },
}

/// Applies `rule` to `value`, a restricted layer's, over `base`: the value of the other layers
/// (or the default) and who set it. A value of the wrong kind holds here: the extension's type
/// refuses it when the section is checked.
fn apply_rule(rule: ProjectRule, value: &Value, base: Option<(&Value, &str)>) -> Ruled {
    let base = base.filter(|(v, _)| !v.is_null());
    match rule {
        ProjectRule::Free => Ruled::Holds,
        ProjectRule::UserOnly => Ruled::Refused(
            "it decides what the guard watches, what it exempts, where it reads or writes, \
             which only the user's own file or the agent's code may set"
                .to_owned(),
        ),
        ProjectRule::Union => {
            let (Value::Array(added), Some((Value::Array(list), by))) = (value, base) else {
                return Ruled::Holds;
            };
            if added.is_empty() {
                return Ruled::Refused(format!(
                    "a project's entries are added to the list set by {by}, never replace it, and \
                     an empty list adds nothing"
                ));
            }
            Ruled::Becomes(Value::Array(union(list, added)))
        }
        ProjectRule::Lower | ProjectRule::Raise => {
            let Some((old, by)) = base else {
                return Ruled::Holds;
            };
            let (Some(new_rank), Some(old_rank)) = (rank(value), rank(old)) else {
                return Ruled::Holds;
            };
            match rule {
                ProjectRule::Lower if new_rank > old_rank => Ruled::Refused(format!(
                    "it is more than {old}, set by {by}: a project's file may only lower it"
                )),
                ProjectRule::Raise if new_rank < old_rank => Ruled::Refused(match value {
                    Value::Bool(_) => {
                        format!("it is {old}, set by {by}: a project's file may only turn it on")
                    }
                    _ => format!(
                        "it is less than {old}, set by {by}: a project's file may only raise it"
                    ),
                }),
                _ => Ruled::Holds,
            }
        }
        ProjectRule::Stronger(levels) => {
            let level = |v: &Value| v.as_str().and_then(|s| levels.iter().position(|l| *l == s));
            if !value.is_string() {
                // Only a level written plainly is compared: any other form the extension's
                // type may still read as a level (serde reads `{off: ~}` as `off`) is refused.
                // (A word that is no level is the type's to refuse, naming the levels.)
                return Ruled::Refused(format!(
                    "a project's file may write one of {} here, as a plain word",
                    levels.join(", ")
                ));
            }
            let Some((old, by)) = base else {
                return Ruled::Holds;
            };
            match (level(value), level(old)) {
                (Some(new_level), Some(old_level)) if new_level < old_level => {
                    Ruled::Refused(format!(
                        "it is weaker than {old}, set by {by}: a project's file may only choose \
                         {}",
                        levels[old_level..].join(" or ")
                    ))
                }
                _ => Ruled::Holds,
            }
        }
        ProjectRule::InsideProject => {
            let Value::Array(entries) = value else {
                return Ruled::Holds;
            };
            let mut inside = Vec::new();
            let mut refused = Vec::new();
            for entry in entries {
                let outside = match entry {
                    Value::String(path) => ProjectRule::outside_project(path),
                    _ => None,
                };
                match outside {
                    Some(why) => refused.push((
                        entry.clone(),
                        format!(
                            "{why}: a project's file may name files inside the project only, \
                             as relative paths"
                        ),
                    )),
                    None => inside.push(entry.clone()),
                }
            }
            let kept = match base {
                Some((Value::Array(list), _)) => union(list, &inside),
                _ => inside,
            };
            Ruled::Entries {
                kept: Value::Array(kept),
                refused,
            }
        }
    }
}

/// `list`, then each entry of `added` it does not hold.
fn union(list: &[Value], added: &[Value]) -> Vec<Value> {
    let mut joined = list.to_vec();
    for entry in added {
        if !joined.contains(entry) {
            joined.push(entry.clone());
        }
    }
    joined
}

/// Where a limit or a switch stands, to compare a restricted layer's value with another's:
/// numbers by value, `false` below `true`.
fn rank(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// The sentence that says which setting of a restricted file is refused, why, and where to
/// write it instead.
fn setting_refusal(at: &ConfigOrigin, what: &str, because: &str) -> String {
    format!(
        "{}: {what} is refused ({because}): a project's file may add to a guard and tighten it, \
         never loosen it; to set it, write it in ~/.config/hookchain/hookchain.yaml",
        by_whom(at)
    )
}

/// "`./hookchain.yaml:7`" or "the agent's code": who wrote a value, as listings show it.
pub(crate) fn by_whom(origin: &ConfigOrigin) -> String {
    match origin {
        ConfigOrigin::Code | ConfigOrigin::Absent => "the agent's code".to_owned(),
        file => file.short().to_string(),
    }
}

/// The sentence that says what a restricted file tried to switch off, and how to do it instead.
fn refusal(at: &ConfigOrigin, what: &str, because: &str) -> String {
    format!(
        "{}: {what} is refused ({because}): a project's file may add hooks and settings, never \
         switch off what the user's own file or the agent's code turns on; to switch it off, \
         write it in ~/.config/hookchain/hookchain.yaml",
        by_whom(at)
    )
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
        values: Map<String, Value>,
        source: &ConfigSource,
        at: &[&str],
    ) -> Result<(), ConfigError> {
        let at: Vec<PathSegment> = at
            .iter()
            .map(|k| PathSegment::Key((*k).to_owned()))
            .collect();
        self.insert_keys(name, values, source, &at, true)
    }

    /// Puts a section a file implies rather than writes over the keys it has: every key is
    /// said to be written at `at`, the value that implies it (a docker-agent `type: builtin`
    /// entry that enables a guard). Otherwise as [`insert`](Sections::insert).
    pub fn insert_implied(
        &mut self,
        name: String,
        values: Map<String, Value>,
        source: &ConfigSource,
        at: &[PathSegment],
    ) -> Result<(), ConfigError> {
        self.insert_keys(name, values, source, at, false)
    }

    fn insert_keys(
        &mut self,
        name: String,
        mut values: Map<String, Value>,
        source: &ConfigSource,
        at: &[PathSegment],
        written_keys: bool,
    ) -> Result<(), ConfigError> {
        let path_to = |key: &str| -> Vec<PathSegment> {
            let mut path = at.to_vec();
            if written_keys {
                path.push(PathSegment::Key(key.to_owned()));
            }
            path
        };
        let written = |key: &str| Written {
            source: source.clone(),
            origin: source.origin(&path_to(key)),
            restricted: false,
        };
        let mut flags = Vec::new();
        if let Some(enabled) = values.remove(ENABLED) {
            match enabled {
                Value::Bool(enabled) => flags.push((enabled, written(ENABLED))),
                other => {
                    return Err(ConfigError::Malformed {
                        subject: format!("`enabled` of extension `{name}`"),
                        origin: source.origin(&path_to(ENABLED)),
                        problem: format!("expected `true` or `false`, found {}", json_kind(&other)),
                    });
                }
            }
        }
        let keys: BTreeMap<String, Written> = values
            .keys()
            .map(|key| (key.clone(), written(key)))
            .collect();
        let section = Section {
            header: source.clone(),
            trusted: values
                .iter()
                .map(|(k, v)| (k.clone(), (v.clone(), keys[k].clone())))
                .collect(),
            keys,
            values,
            flags,
        };
        match self.map.get_mut(&name) {
            Some(base) => base.merge(&name, section, &mut self.refusals),
            None => {
                self.map.insert(name, section);
            }
        }
        Ok(())
    }

    /// These sections as a file that may add and configure, never switch off, writes them (a
    /// project's `hookchain.yaml`): put over sections of the user's file or of code, its
    /// `enabled: false` turns off only what its own file added, and a key it sets to nothing,
    /// `false`, `0` or an empty string, list or mapping does not replace a value they set. Each
    /// refusal is said in a warning ([`refusals`](Sections::refusals)), and when loaded into a
    /// registry, to every session through `notification`.
    pub fn restricted(mut self) -> Self {
        for section in self.map.values_mut() {
            for written in section.keys.values_mut() {
                written.restricted = true;
            }
            for (_, written) in &mut section.flags {
                written.restricted = true;
            }
            section.trusted.clear();
        }
        self
    }

    /// `over` put over these sections: for each extension, `over`'s keys (and `enabled`)
    /// replace these, one key at a time — except what a [`restricted`](Sections::restricted)
    /// layer may not switch off.
    pub fn merge(mut self, over: Sections) -> Sections {
        for (name, section) in over.map {
            match self.map.get_mut(&name) {
                Some(base) => base.merge(&name, section, &mut self.refusals),
                None => {
                    self.map.insert(name, section);
                }
            }
        }
        self.errors.extend(over.errors);
        self.refusals.extend(over.refusals);
        self
    }

    /// What a restricted layer tried to switch off, refused when the layers were merged: one
    /// sentence each, naming the file and line, what was refused and how to do it instead.
    /// (An `enabled: false` is decided when the sections are loaded into a registry, which knows
    /// whose hooks the extension has: see [`Hooks::refusals`](crate::Hooks::refusals).)
    pub fn refusals(&self) -> &[String] {
        &self.refusals
    }

    /// The names of the extensions with a section, sorted.
    pub fn extensions(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }

    /// The keys of an extension's section, `enabled` excepted.
    pub fn section(&self, extension: &str) -> Option<&Map<String, Value>> {
        self.map.get(extension).map(|s| &s.values)
    }

    /// What the sections say of an extension's `enabled`, if anything: the last layer's word,
    /// before a registry decides whether a restricted layer may switch it off.
    pub fn enabled(&self, extension: &str) -> Option<bool> {
        self.map
            .get(extension)
            .and_then(|s| s.flags.last())
            .map(|(enabled, _)| *enabled)
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
                &format_args!(
                    "enabled: {:?}, {:?}",
                    section.flags.last().map(|(e, _)| e),
                    section.values
                ),
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
    pub(crate) enabled_by_default: bool,
    /// What a project's file may do to each field, when the type says.
    pub(crate) rules: Option<DeclaredRules>,
}

impl From<&'static hookchain_core::ConfigDeclaration> for Declared {
    fn from(d: &'static hookchain_core::ConfigDeclaration) -> Self {
        Declared {
            extension: d.extension.to_owned(),
            type_name: d.type_name,
            validate: d.validate,
            enabled_by_default: d.enabled_by_default,
            rules: d.rules,
        }
    }
}

/// What loading sections gives each extension, in the registry's order of extensions.
pub(crate) struct Plan {
    /// Each extension's section, flag, and who disabled it.
    updates: Vec<Update>,
    /// What a restricted layer tried to switch off, refused.
    pub(crate) refusals: Vec<String>,
}

struct Update {
    section: Arc<ConfigSection>,
    enabled: bool,
    /// Who said `enabled`, either way; `None`: nobody, the extension's default decides.
    switched_by: Option<String>,
}

impl Update {
    /// `extension` with `section` and no word on `enabled`: as it is by default.
    fn by_default(extension: &Extension, section: Arc<ConfigSection>) -> Self {
        Update {
            section,
            enabled: extension.enabled_by_default(),
            switched_by: None,
        }
    }
}

impl Plan {
    /// Gives every extension its section, then its flag and who set it.
    pub(crate) fn apply(self, extensions: &[Arc<Extension>]) {
        for (extension, update) in extensions.iter().zip(self.updates) {
            extension.replace_section(update.section);
            match update.switched_by {
                Some(who) => extension.set_enabled_by(update.enabled, who),
                None => extension.set_enabled_as_default(update.enabled),
            };
        }
    }
}

/// Whether the extension is enabled, who said so (`None`: its default), and what was refused:
/// the last layer's
/// `enabled` decides (no layer's word: the extension's default), except a restricted layer's
/// `false`, which holds only when the extension's hooks all come from that layer's own file
/// (what it added, it may switch off). A restricted layer's `true` holds: it adds.
fn decide_flag(
    extension: &Extension,
    section: &Section,
    infos: &[HookInfo],
    refusals: &mut Vec<String>,
) -> (bool, Option<String>) {
    let name = extension.name();
    let by_default = || (extension.enabled_by_default(), None);
    let Some((last, written)) = section.flags.last() else {
        return by_default();
    };
    if !written.restricted || *last {
        return (*last, Some(by_whom(&written.origin)));
    }
    let trusted = section.flags.iter().rev().find(|(_, w)| !w.restricted);
    if let Some((false, by)) = trusted {
        return (false, Some(by_whom(&by.origin)));
    }
    if trusted.is_none() && !extension.enabled_by_default() {
        // Off by default and enabled by no other layer: the `false` switches nothing off.
        return by_default();
    }
    let file = written.source.file_name();
    let hooks: Vec<&HookInfo> = infos.iter().filter(|h| &*h.extension == name).collect();
    let own = !hooks.is_empty()
        && hooks
            .iter()
            .all(|h| h.source == HookSource::External && Some(&*h.file) == file);
    if own {
        return (false, Some(by_whom(&written.origin)));
    }
    let because = match trusted {
        Some((_, by)) => format!("`enabled` is true in {}", by_whom(&by.origin)),
        None if hooks.is_empty() => "the extension comes with the agent".to_owned(),
        None => {
            let others: Vec<String> = hooks
                .iter()
                .filter(|h| h.source != HookSource::External || Some(&*h.file) != file)
                .take(3)
                .map(|h| format!("`{}` ({}:{})", h.name, h.file, h.line))
                .collect();
            format!("its hooks include {}", others.join(", "))
        }
    };
    let refused = refusal(
        &written.origin,
        &format!("`enabled: false` of extension `{name}`"),
        &because,
    );
    tracing::warn!("{refused}");
    refusals.push(refused);
    (true, trusted.map(|(_, by)| by_whom(&by.origin)))
}

/// Checks `sections` against a registry's extensions, hooks and declared types. The plan leaves
/// out what is wrong (an unknown extension's section; a section that does not fit its declared
/// type, whose extension then runs enabled with no section — or, when a restricted layer's keys
/// are what does not fit, with the section of the other layers) and what a restricted layer may
/// not switch off; the errors say what was wrong, in the order: from code, unknown extensions,
/// sections that do not fit.
pub(crate) fn plan(
    sections: &Sections,
    extensions: &[Arc<Extension>],
    declared: &[Declared],
    infos: &[HookInfo],
) -> (Plan, Vec<ConfigError>) {
    let mut errors = sections.errors.clone();
    let mut refusals = sections.refusals.clone();
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
    let mut updates: Vec<Update> = extensions
        .iter()
        .map(|extension| match sections.map.get(extension.name()) {
            Some(section) => {
                let (enabled, switched_by) = decide_flag(extension, section, infos, &mut refusals);
                let rules = declared
                    .iter()
                    .filter(|d| d.extension == extension.name())
                    .find_map(|d| d.rules);
                let section = match rules {
                    Some(rules) => section.ruled_section(extension.name(), &rules, &mut refusals),
                    None => section.config_section(),
                };
                Update {
                    section: Arc::new(section),
                    enabled,
                    switched_by,
                }
            }
            None => Update::by_default(extension, Arc::new(ConfigSection::empty())),
        })
        .collect();
    let mut declared: Vec<&Declared> = declared.iter().collect();
    declared.sort_by(|a, b| (&a.extension, a.type_name).cmp(&(&b.extension, b.type_name)));
    for d in declared {
        let Some(index) = known.iter().position(|k| *k == d.extension) else {
            continue;
        };
        if let Err(error) = (d.validate)(&d.extension, &updates[index].section) {
            // Keys a restricted layer added that do not fit must not cost the extension the
            // settings of the user's file or of code.
            let section = sections.map.get(&d.extension);
            let fallback = section
                .and_then(Section::trusted_section)
                .filter(|trusted| (d.validate)(&d.extension, trusted).is_ok());
            match (fallback, section) {
                (Some(trusted), Some(section)) => {
                    let refused = format!(
                        "{error}: the settings {} wrote for extension `{}` are left out, and it \
                         runs with the settings of the user's file and the agent's code",
                        section.restricted_files().join(", "),
                        d.extension
                    );
                    tracing::warn!("{refused}");
                    refusals.push(refused);
                    updates[index].section = Arc::new(trusted);
                }
                // An extension on by default runs (its `enabled: false` left out with the
                // section); one off by default runs when the section enabled it: a guard asked
                // for runs with its defaults rather than not at all.
                _ if !extensions[index].enabled_by_default() => {
                    updates[index].section = Arc::new(ConfigSection::empty());
                }
                _ => {
                    updates[index] =
                        Update::by_default(&extensions[index], Arc::new(ConfigSection::empty()))
                }
            }
            errors.push(error);
        }
    }
    (Plan { updates, refusals }, errors)
}
