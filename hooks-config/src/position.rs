//! Positions: where a value is in a config file's text — the line of the value at a path of keys
//! and indexes, in YAML and in JSON — and how YAML keys, kinds and syntax errors are named in
//! messages. A leaf: it knows nothing of the config formats that use it.

use hookchain_core::{ConfigError, PathSegment};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use yaml_serde::Value as Yaml;

pub(crate) fn syntax(file: &str, error: &yaml_serde::Error) -> ConfigError {
    let mut message = error.to_string();
    let (line, column) = match error.location() {
        Some(at) => {
            let suffix = format!(" at line {} column {}", at.line(), at.column());
            message = message.replacen(&suffix, "", 1);
            (Some(at.line()), Some(at.column()))
        }
        None => (None, None),
    };
    ConfigError::Syntax {
        file: file.to_owned(),
        line,
        column,
        message,
    }
}

pub(crate) fn yaml_key(key: &Yaml) -> String {
    match key {
        Yaml::String(s) => s.clone(),
        other => yaml_serde::to_string(other)
            .map(|s| s.trim_end().to_owned())
            .unwrap_or_else(|_| format!("{other:?}")),
    }
}

pub(crate) fn yaml_kind(value: &Yaml) -> &'static str {
    match value {
        Yaml::Null => "nothing",
        Yaml::Bool(_) => "a boolean",
        Yaml::Number(_) => "a number",
        Yaml::String(_) => "a string",
        Yaml::Sequence(_) => "a sequence",
        Yaml::Mapping(_) => "a mapping",
        Yaml::Tagged(_) => "a tagged value",
    }
}

// ---------------------------------------------------------------------------------------------
// Lines: where a value is in a file's text.
// ---------------------------------------------------------------------------------------------

/// The message of the error a walk raises where its path ends; the YAML deserializer attaches the
/// position of the node being read to it.
const FOUND: &str = "hookchain: found the node";

/// The line (from 1) of the value at `path` in `text`: of the key, for a path ending in a key.
pub(crate) fn locate(text: &str, path: &[PathSegment]) -> Option<usize> {
    let deserializer = yaml_serde::Deserializer::from_str(text);
    match (Walk { path }).deserialize(deserializer) {
        Ok(()) => None,
        Err(error) if error.to_string().contains(FOUND) => error.location().map(|l| l.line()),
        Err(_) => None,
    }
}

/// The line (from 1) of the value at `path` in JSON `text`: of the key, for a path ending in a
/// key.
pub(crate) fn locate_json(text: &str, path: &[PathSegment]) -> Option<usize> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    match (Walk { path }).deserialize(&mut deserializer) {
        Ok(()) => None,
        Err(error) if error.to_string().contains(FOUND) && error.line() > 0 => Some(error.line()),
        Err(_) => None,
    }
}

/// Walks down `path`, ignoring everything else; fails with [`FOUND`] where the path ends.
struct Walk<'p> {
    path: &'p [PathSegment],
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.path.is_empty() {
            deserializer.deserialize_any(Here)
        } else {
            deserializer.deserialize_any(self)
        }
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (PathSegment::Key(want), rest) = (&self.path[0], &self.path[1..]) else {
            return Ok(());
        };
        while let Some(matched) = map.next_key_seed(Key {
            want,
            last: rest.is_empty(),
        })? {
            if matched {
                return map.next_value_seed(Walk { path: rest });
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let (PathSegment::Index(index), rest) = (&self.path[0], &self.path[1..]) else {
            return Ok(());
        };
        for _ in 0..*index {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Walk { path: rest }).map(drop)
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        use de::VariantAccess;
        let (IgnoredAny, variant) = data.variant::<IgnoredAny>()?;
        variant.newtype_variant::<IgnoredAny>().map(drop)
    }
}

/// Reads a mapping key: `true` when it is the one wanted; fails with [`FOUND`] on it when it
/// ends the path, so the position is the key's.
struct Key<'w> {
    want: &'w str,
    last: bool,
}

impl Key<'_> {
    fn check<E: de::Error>(self, key: &str) -> Result<bool, E> {
        match key == self.want {
            true if self.last => Err(E::custom(FOUND)),
            matched => Ok(matched),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = bool;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        self.check(key)
    }
    fn visit_bool<E: de::Error>(self, key: bool) -> Result<bool, E> {
        self.check(&key.to_string())
    }
    fn visit_i64<E: de::Error>(self, key: i64) -> Result<bool, E> {
        self.check(&key.to_string())
    }
    fn visit_u64<E: de::Error>(self, key: u64) -> Result<bool, E> {
        self.check(&key.to_string())
    }
    fn visit_f64<E: de::Error>(self, key: f64) -> Result<bool, E> {
        self.check(&key.to_string())
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        self.check("null")
    }
}

/// Fails with [`FOUND`] on whatever node it is given.
struct Here;

impl<'de> DeserializeSeed<'de> for Here {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Here {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> PathSegment {
        PathSegment::Key(k.to_owned())
    }

    const TEXT: &str = "\
# a comment
extensions:
  workflow-guard:
    plan_path: plans/active/plan.md
    blocked_tools: [write_file, 3]
    allowed_paths:
      - plans/
      - handoff/
    nested: {a: {b: 1}}
";

    #[test]
    fn locate_finds_keys_and_elements() {
        assert_eq!(locate(TEXT, &[key("extensions")]), Some(2));
        assert_eq!(
            locate(TEXT, &[key("extensions"), key("workflow-guard")]),
            Some(3)
        );
        let guard = [key("extensions"), key("workflow-guard")];
        let at = |rest: &[PathSegment]| {
            let mut path = guard.to_vec();
            path.extend_from_slice(rest);
            locate(TEXT, &path)
        };
        assert_eq!(at(&[key("plan_path")]), Some(4));
        assert_eq!(at(&[key("blocked_tools"), PathSegment::Index(1)]), Some(5));
        assert_eq!(at(&[key("allowed_paths"), PathSegment::Index(1)]), Some(8));
        assert_eq!(at(&[key("nested"), key("a"), key("b")]), Some(9));
        assert_eq!(at(&[key("missing")]), None);
        assert_eq!(at(&[key("allowed_paths"), PathSegment::Index(5)]), None);
        assert_eq!(at(&[key("plan_path"), key("deeper")]), None);
    }
}
