//! A `hookchain.yaml`, hookchain's own file: its top level (`extensions`, `hooks`, read by
//! [`native`](crate::native), and `hooks_auto_accept`), and which files are trusted to approve
//! hooks.
//!
//! # The rules it keeps
//!
//! - Nothing but the top-level keys of the format may stand at the top level: an unknown key is
//!   an error with a "did you mean".
//! - Each part of the file — a top-level key, a section, the hooks of a point, one hook entry — is
//!   read on its own; what cannot be loaded is an error of a strict read (the first one, in file
//!   order) and costs that part only in a lenient read, with a warning every session hears.
//!   Only text that is not YAML, or whose top level is not a mapping, fails a lenient read.
//! - `hooks_auto_accept: true` is honoured in the user's own
//!   `~/.config/hookchain/hookchain.yaml` only; any other file (and text given to
//!   [`Config::from_yaml_str`]) is untrusted: its `hooks_auto_accept: true` is left out with a
//!   warning, and its sections are put over other config restricted to what may not switch
//!   anything off.

use std::path::Path;
use std::sync::Arc;

use hookchain_core::suggest::closest;
use hookchain_core::{ConfigError, ConfigOrigin, ConfigSource, PathSegment};
use hookchain_external::Dialect;
use serde_json::Map;
use yaml_serde::Value as Yaml;

use crate::config::{AUTO_ACCEPT, Config, HOOKS_ENABLED, TOP_LEVEL_KEYS};
use crate::entry::FileContext;
use crate::file::{self, home_dir};
use crate::native::{self, LeftOut};
use crate::position::{locate, syntax, yaml_key, yaml_kind};

/// The name of a config file, in the project and in `~/.config/hookchain/`.
pub const CONFIG_FILE: &str = "hookchain.yaml";

impl Config {
    /// Parses the text of a config file; `source_name` names the file in errors (e.g.
    /// `./hookchain.yaml`).
    ///
    /// The text is a project's file: `hooks_auto_accept: true` in it is left out, with a
    /// warning (only the user's own `~/.config/hookchain/hookchain.yaml` may approve hooks), and
    /// put over other config it may add and tighten, never switch off or loosen (see
    /// [What a project file cannot switch off](crate#what-a-project-file-cannot-switch-off)).
    pub fn from_yaml_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        Config::from_yaml_trusted(text, source_name).map(|config| untrusted(config, false))
    }

    /// Parses the text of the user's own `~/.config/hookchain/hookchain.yaml`, read by the
    /// agent's code from wherever it keeps it: nothing in it is restricted (it may set every
    /// setting, and approve hooks with `hooks_auto_accept: true`). Text from anywhere else — a
    /// repository, a download — is a project's: read it with
    /// [`from_yaml_str`](Config::from_yaml_str).
    ///
    /// ```
    /// use hookchain::config::Config;
    ///
    /// let user = Config::from_user_yaml_str(
    ///     "extensions:\n  audit-log:\n    enabled: true\n    path: /var/log/agent/audit.jsonl\n",
    ///     "~/.config/hookchain/hookchain.yaml",
    /// )
    /// .unwrap();
    /// assert_eq!(user.section("audit-log").unwrap()["path"], "/var/log/agent/audit.jsonl");
    /// ```
    pub fn from_user_yaml_str(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        Config::from_yaml_trusted(text, source_name)
    }

    /// [`from_yaml_str`](Config::from_yaml_str), keeping `hooks_auto_accept`: for the user's
    /// own file. Strict: any part of the file that cannot be loaded is an error.
    pub(crate) fn from_yaml_trusted(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let (config, left_out) = read_file(text, source_name)?;
        match left_out.into_iter().next() {
            Some(first) => Err(first.error),
            None => Ok(config),
        }
    }

    /// [`from_yaml_trusted`](Config::from_yaml_trusted), lenient: a part of the file that
    /// cannot be loaded — a hook entry, the hooks of a point, a section, a top-level key — is
    /// left out with a warning naming the file, the line and the fix, which every session hears
    /// through `notification`; a `required: true` hook left out blocks its point. The file's
    /// other hooks and sections load. Only a file that cannot be read as YAML at all is an
    /// error.
    pub(crate) fn from_yaml_lenient(text: &str, source_name: &str) -> Result<Config, ConfigError> {
        let (mut config, left_out) = read_file(text, source_name)?;
        for part in left_out {
            let warning = match &part.required {
                Some(required) => format!(
                    "{}: this required hook cannot be loaded, so `{}` blocks until it is fixed; \
                     the file's other hooks and sections load",
                    part.error, required.point
                ),
                None => format!(
                    "{}: this is left out until it is fixed; the file's other hooks and \
                     sections load",
                    part.error
                ),
            };
            tracing::warn!("{warning}");
            config.warnings.push(warning.clone());
            config.left_out.push(warning.clone());
            config.notices.push(warning);
            config.unloaded_required.extend(part.required);
        }
        Ok(config)
    }
}

/// Reads a `hookchain.yaml`: what loads, and every part that cannot be loaded (see
/// [`LeftOut`]). An error when the file cannot be read as YAML at all (too deeply nested, not
/// YAML, a `<<` merge key that does not apply, a top level that is not a mapping).
fn read_file(text: &str, source_name: &str) -> Result<(Config, Vec<LeftOut>), ConfigError> {
    file::check_nesting(text, source_name)?;
    let text: Arc<str> = text.into();
    let located = Arc::clone(&text);
    let source = ConfigSource::file(source_name, move |path: &[PathSegment]| {
        locate(&located, path)
    });
    let origin = |path: &[&str]| {
        let path: Vec<PathSegment> = path
            .iter()
            .map(|k| PathSegment::Key((*k).to_owned()))
            .collect();
        source.origin(&path)
    };
    let mut document: Yaml = yaml_serde::from_str(&text).map_err(|e| syntax(source_name, &e))?;
    document.apply_merge().map_err(|e| ConfigError::Malformed {
        subject: "a `<<` merge key".to_owned(),
        origin: origin(&[]),
        problem: e.to_string(),
    })?;
    let mut config = Config {
        files: vec![source_name.to_owned()],
        ..Config::default()
    };
    let mut left_out: Vec<LeftOut> = Vec::new();
    let top = match document {
        Yaml::Null => return Ok((config, left_out)),
        Yaml::Mapping(top) => top,
        other => {
            return Err(ConfigError::Malformed {
                subject: "the config".to_owned(),
                origin: origin(&[]),
                problem: format!(
                    "expected a mapping with the key `extensions`, found {}",
                    yaml_kind(&other)
                ),
            });
        }
    };
    for (key, value) in top {
        let key = yaml_key(&key);
        match key.as_str() {
            "extensions" => {}
            "hooks" => {
                let cx = FileContext {
                    file: source_name,
                    source: &source,
                    dialect: Dialect::Hookchain,
                };
                let mut hooks = native::read(&cx, value);
                left_out.append(&mut hooks.left_out);
                config.hooks = hooks.named(source_name);
                continue;
            }
            AUTO_ACCEPT | HOOKS_ENABLED => {
                match value {
                    Yaml::Bool(on) if key == HOOKS_ENABLED => {
                        let at = match origin(&[HOOKS_ENABLED]) {
                            ConfigOrigin::File {
                                path,
                                line: Some(line),
                            } => format!("{path} line {line}"),
                            _ => source_name.to_owned(),
                        };
                        config.hooks_enabled = Some((on, at));
                    }
                    Yaml::Bool(accept) => {
                        let at = match origin(&[AUTO_ACCEPT]) {
                            ConfigOrigin::File {
                                path,
                                line: Some(line),
                            } => format!("{path} line {line}"),
                            _ => source_name.to_owned(),
                        };
                        config.auto_accept = Some((accept, at));
                    }
                    Yaml::Null => {}
                    other => left_out.push(
                        ConfigError::Malformed {
                            subject: format!("`{key}`"),
                            origin: origin(&[&key]),
                            problem: format!(
                                "expected `true` or `false`, found {}",
                                yaml_kind(&other)
                            ),
                        }
                        .into(),
                    ),
                }
                continue;
            }
            _ => {
                left_out.push(
                    ConfigError::UnknownKey {
                        suggestion: closest(&key, TOP_LEVEL_KEYS.iter().copied())
                            .map(str::to_owned),
                        origin: origin(&[&key]),
                        key,
                    }
                    .into(),
                );
                continue;
            }
        }
        let extensions = match value {
            Yaml::Null => continue,
            Yaml::Mapping(extensions) => extensions,
            other => {
                left_out.push(
                    ConfigError::Malformed {
                        subject: "`extensions`".to_owned(),
                        origin: origin(&["extensions"]),
                        problem: format!(
                            "expected a mapping from extension names to their sections, found {}",
                            yaml_kind(&other)
                        ),
                    }
                    .into(),
                );
                continue;
            }
        };
        for (name, section) in extensions {
            let name = yaml_key(&name);
            if let Err(error) = section_of(&mut config, &source, &origin, &name, section) {
                left_out.push(error.into());
            }
        }
    }
    Ok((config, left_out))
}

/// Reads the section of extension `name` into `config`; nothing of it when it cannot be read.
fn section_of(
    config: &mut Config,
    source: &ConfigSource,
    origin: &dyn Fn(&[&str]) -> ConfigOrigin,
    name: &str,
    section: Yaml,
) -> Result<(), ConfigError> {
    let values = match section {
        Yaml::Null => Map::new(),
        Yaml::Mapping(section) => {
            let mut values = Map::new();
            for (key, value) in section {
                let key = yaml_key(&key);
                let value = serde_json::to_value(&value).map_err(|e| ConfigError::Malformed {
                    subject: format!("`{key}` of extension `{name}`"),
                    origin: origin(&["extensions", name, &key]),
                    problem: e.to_string(),
                })?;
                values.insert(key, value);
            }
            values
        }
        other => {
            return Err(ConfigError::Malformed {
                subject: format!("extension `{name}`"),
                origin: origin(&["extensions", name]),
                problem: format!(
                    "expected a mapping of its settings, found {}",
                    yaml_kind(&other)
                ),
            });
        }
    };
    config
        .sections
        .insert(name.to_owned(), values, source, &["extensions", name])
}

/// A file that is not the user's own: its `hooks_auto_accept: true` is left out, with a warning,
/// and put over other config it may add and configure, never switch off.
pub(crate) fn untrusted(mut file: Config, is_project: bool) -> Config {
    file.sections = std::mem::take(&mut file.sections).restricted();
    if let Some((on, at)) = file.hooks_enabled.take() {
        let warning = format!(
            "{at}: `{HOOKS_ENABLED}: {on}` is left out: only the user's own \
             ~/.config/hookchain/hookchain.yaml may switch every hook on or off (set it there, \
             or run `hookchain extensions disable --all`)"
        );
        tracing::warn!("{warning}");
        file.warnings.push(warning.clone());
        file.notices.push(warning);
    }
    if let Some((true, at)) = file.auto_accept.take() {
        let warning = if is_project {
            format!(
                "{at}: `{AUTO_ACCEPT}: true` is left out: a project's hookchain.yaml cannot \
                 approve its own hooks (set it in ~/.config/hookchain/hookchain.yaml, or pass \
                 --accept-hooks)"
            )
        } else {
            format!(
                "{at}: `{AUTO_ACCEPT}: true` is left out: only the user's own \
                 ~/.config/hookchain/hookchain.yaml may approve hooks (set it there, pass \
                 --accept-hooks, or call `Config::accept_hooks(true)` in code)"
            )
        };
        tracing::warn!("{warning}");
        file.warnings.push(warning);
    }
    file
}

/// `true` when `path` is the user's own `~/.config/hookchain/hookchain.yaml`.
pub(crate) fn is_user_file(path: &Path) -> bool {
    let Some(home) = home_dir() else {
        return false;
    };
    let user = home.join(".config").join("hookchain").join(CONFIG_FILE);
    match (std::fs::canonicalize(path), std::fs::canonicalize(user)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_needs_a_close_name() {
        assert_eq!(
            closest("extentions", TOP_LEVEL_KEYS.iter().copied()),
            Some("extensions")
        );
        assert_eq!(closest("zzz", TOP_LEVEL_KEYS.iter().copied()), None);
    }
}
