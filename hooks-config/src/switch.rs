//! Switches kept in the user's `~/.config/hookchain/hookchain.yaml`: an extension's
//! `extensions: {NAME: {enabled: ..}}` and the master switch `hooks_enabled`, written as
//! `hookchain extensions enable|disable` writes them.
//!
//! # The rules it keeps
//!
//! - **A line-level edit, never a rewrite.** The file keeps every other line, its comments, its
//!   order and its quoting: the edit changes the value of one line, or adds one to three lines
//!   (`extensions:`, `  NAME:`, `    enabled: false`) where they belong — under the existing
//!   `extensions:` and `NAME:`, with their indentation. A file that does not exist is created
//!   with just those lines.
//! - **Checked before it is written.** The edited text is parsed again and must say the new
//!   value and nothing else new (the document with the key set in code must equal the edited
//!   document); otherwise — a flow mapping (`extensions: {a: {}}`), an anchor, a layout the
//!   edit cannot follow — nothing is written, and the error names the file and line and the
//!   line to write by hand.
//! - **Written atomically**: a temporary file beside it, renamed over it.

use std::path::{Path, PathBuf};

use hookchain_core::ConfigError;
use yaml_serde::Value as Yaml;

use crate::file;
use crate::hookchain_file::CONFIG_FILE;

/// The user's own config file under `home`: `home/.config/hookchain/hookchain.yaml`.
pub fn user_config_file(home: &Path) -> PathBuf {
    home.join(".config").join("hookchain").join(CONFIG_FILE)
}

/// What an edit of the user's file did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchEdit {
    /// The file edited.
    pub file: PathBuf,
    /// The line (from 1) that now holds the switch.
    pub line: usize,
    /// `false` when the file already said so, and nothing was written.
    pub changed: bool,
}

/// Sets `extensions: {extension: {enabled: enabled}}` in `file` (the user's own
/// `hookchain.yaml`), keeping the rest of it as it is (see the [module docs](self)).
pub fn persist_extension_switch(
    file: &Path,
    extension: &str,
    enabled: bool,
) -> Result<SwitchEdit, ConfigError> {
    let text = read(file)?;
    let value = if enabled { "true" } else { "false" };
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    let line;
    match top_level(&lines, "extensions") {
        None => {
            if out.last().is_some_and(|l| !l.trim().is_empty()) {
                out.push(String::new());
            }
            out.push("extensions:".to_owned());
            out.push(format!("  {extension}:"));
            out.push(format!("    enabled: {value}"));
            line = out.len();
        }
        Some((at, rest)) => {
            if !is_empty_value(rest) {
                return Err(cannot_edit(file, at + 1, extension, value));
            }
            let end = block_end(&lines, at, 0);
            let indent = child_indent(&lines, at + 1, end).unwrap_or(2);
            match find_key(&lines, at + 1, end, indent, extension) {
                None => {
                    let last = last_content(&lines, at, end);
                    out.insert(last + 1, format!("{}{extension}:", " ".repeat(indent)));
                    out.insert(
                        last + 2,
                        format!("{}enabled: {value}", " ".repeat(indent * 2)),
                    );
                    line = last + 3;
                }
                Some((name_at, rest)) => {
                    if !is_empty_value(rest) {
                        return Err(cannot_edit(file, name_at + 1, extension, value));
                    }
                    let section_end = block_end(&lines, name_at, indent);
                    let inner = child_indent(&lines, name_at + 1, section_end)
                        .unwrap_or(indent + indent.max(2));
                    match find_key(&lines, name_at + 1, section_end, inner, "enabled") {
                        Some((enabled_at, _)) => {
                            let (_, comment) = split_comment(lines[enabled_at]);
                            out[enabled_at] =
                                format!("{}enabled: {value}{comment}", " ".repeat(inner));
                            line = enabled_at + 1;
                        }
                        None => {
                            out.insert(
                                name_at + 1,
                                format!("{}enabled: {value}", " ".repeat(inner)),
                            );
                            line = name_at + 2;
                        }
                    }
                }
            }
        }
    }
    let edited = join(&out, &text);
    let expected = |doc: &mut Yaml| -> Option<()> {
        let top = mapping_or_new(doc)?;
        let extensions = top
            .entry(Yaml::String("extensions".to_owned()))
            .or_insert(Yaml::Null);
        let extensions = mapping_or_new(extensions)?;
        let section = extensions
            .entry(Yaml::String(extension.to_owned()))
            .or_insert(Yaml::Null);
        let section = mapping_or_new(section)?;
        section.insert(Yaml::String("enabled".to_owned()), Yaml::Bool(enabled));
        Some(())
    };
    write_checked(file, &text, &edited, expected, line, || {
        cannot_edit(file, line, extension, value)
    })
}

/// Sets the master switch `hooks_enabled: enabled` in `file` (the user's own
/// `hookchain.yaml`), keeping the rest of it as it is (see the [module docs](self)).
pub fn persist_master_switch(file: &Path, enabled: bool) -> Result<SwitchEdit, ConfigError> {
    let text = read(file)?;
    let value = if enabled { "true" } else { "false" };
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    let line = match top_level(&lines, "hooks_enabled") {
        Some((at, _)) => {
            let (_, comment) = split_comment(lines[at]);
            out[at] = format!("hooks_enabled: {value}{comment}");
            at + 1
        }
        None => {
            out.push(format!("hooks_enabled: {value}"));
            out.len()
        }
    };
    let edited = join(&out, &text);
    let expected = |doc: &mut Yaml| -> Option<()> {
        mapping_or_new(doc)?.insert(
            Yaml::String("hooks_enabled".to_owned()),
            Yaml::Bool(enabled),
        );
        Some(())
    };
    write_checked(file, &text, &edited, expected, line, || {
        ConfigError::Malformed {
            subject: "`hooks_enabled`".to_owned(),
            origin: hookchain_core::ConfigOrigin::file(file.display().to_string(), Some(line)),
            problem: format!(
                "cannot be set by a line-level edit of this file; nothing was written: write \
             `hooks_enabled: {value}` at its top level by hand"
            ),
        }
    })
}

/// The text of `file`, empty when it does not exist.
fn read(file: &Path) -> Result<String, ConfigError> {
    Ok(file::read_text(file)?.unwrap_or_default())
}

/// Checks that `edited` says what `expected` does to `text`'s document and nothing else, then
/// writes it atomically.
fn write_checked(
    file: &Path,
    text: &str,
    edited: &str,
    expected: impl Fn(&mut Yaml) -> Option<()>,
    line: usize,
    cannot: impl Fn() -> ConfigError,
) -> Result<SwitchEdit, ConfigError> {
    let name = file.display().to_string();
    let mut before: Yaml =
        yaml_serde::from_str(text).map_err(|e| crate::position::syntax(&name, &e))?;
    let unchanged = {
        let mut again = before.clone();
        expected(&mut again).is_some() && again == before
    };
    if unchanged {
        return Ok(SwitchEdit {
            file: file.to_path_buf(),
            line,
            changed: false,
        });
    }
    expected(&mut before).ok_or_else(&cannot)?;
    let after: Yaml = yaml_serde::from_str(edited).map_err(|_| cannot())?;
    if after != before {
        return Err(cannot());
    }
    let fail = |e: std::io::Error| ConfigError::Read {
        file: name.clone(),
        message: format!("cannot write it: {e}"),
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let temp = dir.join(format!(".{CONFIG_FILE}.{}.tmp", std::process::id()));
    std::fs::write(&temp, edited).map_err(fail)?;
    std::fs::rename(&temp, file).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        fail(e)
    })?;
    Ok(SwitchEdit {
        file: file.to_path_buf(),
        line,
        changed: true,
    })
}

/// Why the switch of `extension` cannot be set by a line-level edit, and the line to write.
fn cannot_edit(file: &Path, line: usize, extension: &str, value: &str) -> ConfigError {
    ConfigError::Malformed {
        subject: format!("extension `{extension}`"),
        origin: hookchain_core::ConfigOrigin::file(file.display().to_string(), Some(line)),
        problem: format!(
            "its switch cannot be set by a line-level edit here (a flow mapping or a layout the \
             edit does not follow), and the file is not rewritten, to keep its comments; \
             nothing was written: set `enabled: {value}` in the section `{extension}:` under \
             `extensions:` by hand"
        ),
    }
}

/// `doc` as a mapping, a null made an empty one; `None` for anything else.
fn mapping_or_new(doc: &mut Yaml) -> Option<&mut yaml_serde::Mapping> {
    if doc.is_null() {
        *doc = Yaml::Mapping(Default::default());
    }
    doc.as_mapping_mut()
}

/// The lines joined, ending with a newline as the original did (or with one, when it was
/// empty).
fn join(lines: &[String], original: &str) -> String {
    let mut text = lines.join("\n");
    if original.is_empty() || original.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The indentation of `line` (spaces).
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// `true` for a line that holds nothing: blank, or a comment.
fn is_blank(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// `(value, comment)` of a `key: value  # comment` line: the comment with the spaces before it.
fn split_comment(line: &str) -> (&str, &str) {
    match line.find(" #") {
        Some(at) => {
            let start = line[..at].trim_end().len();
            (&line[..start], &line[start..])
        }
        None => (line, ""),
    }
}

/// `true` when what follows `key:` is nothing (or a comment): a block follows.
fn is_empty_value(rest: &str) -> bool {
    let rest = rest.trim();
    rest.is_empty() || rest.starts_with('#')
}

/// The line of the top-level `key:`, and what follows the colon.
fn top_level<'a>(lines: &[&'a str], key: &str) -> Option<(usize, &'a str)> {
    find_key(lines, 0, lines.len(), 0, key)
}

/// The line in `from..to` of `key:` at indentation `at_indent`, and what follows the colon.
fn find_key<'a>(
    lines: &[&'a str],
    from: usize,
    to: usize,
    at_indent: usize,
    key: &str,
) -> Option<(usize, &'a str)> {
    (from..to).find_map(|i| {
        let line = lines[i];
        if is_blank(line) || indent(line) != at_indent {
            return None;
        }
        let body = &line[at_indent..];
        [key.to_owned(), format!("\"{key}\""), format!("'{key}'")]
            .iter()
            .find_map(|k| body.strip_prefix(k.as_str())?.strip_prefix(':'))
            .filter(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
            .map(|rest| (i, rest))
    })
}

/// The end (exclusive) of the block of the key at line `at`, indented `at_indent`: the first
/// later line with content indented no deeper.
fn block_end(lines: &[&str], at: usize, at_indent: usize) -> usize {
    (at + 1..lines.len())
        .find(|&i| !is_blank(lines[i]) && indent(lines[i]) <= at_indent)
        .unwrap_or(lines.len())
}

/// The indentation of the first line with content in `from..to`.
fn child_indent(lines: &[&str], from: usize, to: usize) -> Option<usize> {
    (from..to)
        .find(|&i| !is_blank(lines[i]))
        .map(|i| indent(lines[i]))
}

/// The last line with content in the block that starts at `at` and ends before `end` (`at`
/// itself when the block is empty).
fn last_content(lines: &[&str], at: usize, end: usize) -> usize {
    (at + 1..end)
        .rev()
        .find(|&i| !is_blank(lines[i]))
        .unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, extension: &str, enabled: bool) -> Result<String, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(CONFIG_FILE);
        std::fs::write(&file, text).unwrap();
        persist_extension_switch(&file, extension, enabled)?;
        Ok(std::fs::read_to_string(&file).unwrap())
    }

    #[test]
    fn a_new_section_goes_under_extensions_keeping_comments() {
        let text = "# mine\nextensions:\n    # a guard\n    guard:\n        plan: a.md  # keep\n\nhooks_auto_accept: false\n";
        assert_eq!(
            edit(text, "notes", false).unwrap(),
            "# mine\nextensions:\n    # a guard\n    guard:\n        plan: a.md  # keep\n    notes:\n        enabled: false\n\nhooks_auto_accept: false\n"
        );
    }

    #[test]
    fn an_existing_switch_changes_in_place() {
        let text = "extensions:\n  notes:\n    enabled: true   # on for now\n    x: 1\n";
        assert_eq!(
            edit(text, "notes", false).unwrap(),
            "extensions:\n  notes:\n    enabled: false   # on for now\n    x: 1\n"
        );
        let text = "extensions:\n  notes:\n    x: 1\n";
        assert_eq!(
            edit(text, "notes", false).unwrap(),
            "extensions:\n  notes:\n    enabled: false\n    x: 1\n"
        );
    }

    #[test]
    fn a_file_without_extensions_gets_them_at_its_end() {
        assert_eq!(
            edit("hooks_auto_accept: true\n", "notes", false).unwrap(),
            "hooks_auto_accept: true\n\nextensions:\n  notes:\n    enabled: false\n"
        );
        assert_eq!(
            edit("", "notes", true).unwrap(),
            "extensions:\n  notes:\n    enabled: true\n"
        );
    }

    #[test]
    fn a_flow_mapping_is_not_rewritten() {
        let error = edit("extensions: {notes: {x: 1}}\n", "notes", false).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("line 1"), "{message}");
        assert!(message.contains("by hand"), "{message}");
    }

    #[test]
    fn the_master_switch_is_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(CONFIG_FILE);
        std::fs::write(
            &file,
            "# top\nhooks_enabled: true # was on\nextensions: {}\n",
        )
        .unwrap();
        let edit = persist_master_switch(&file, false).unwrap();
        assert_eq!(edit.line, 2);
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "# top\nhooks_enabled: false # was on\nextensions: {}\n"
        );
        assert!(!persist_master_switch(&file, false).unwrap().changed);
    }
}
