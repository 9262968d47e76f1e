//! The files of a Python hook directory: the ones consent pins, and the `register_hook` calls
//! read from a plugin's source without running it.

use std::path::{Path, PathBuf};

/// How deep below the directory its files are looked for.
const MAX_DEPTH: usize = 4;

/// How many files of a directory are pinned at most (the first in path order), so that a
/// directory of thousands of files cannot make each firing read them all.
const MAX_FILES: usize = 256;

/// The files of `dir` consent pins, sorted: every `*.py` file (below it too, but not in
/// `__pycache__` or hidden directories), and its `HOOK.yaml` and `plugin.yaml`.
pub(crate) fn pinned_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk(dir, 0, &mut found);
    found.sort();
    found.truncate(MAX_FILES);
    found
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if found.len() > MAX_FILES {
            return;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if depth < MAX_DEPTH && name != "__pycache__" && !name.starts_with('.') {
                walk(&path, depth + 1, found);
            }
        } else if name.ends_with(".py")
            || (depth == 0 && matches!(name.as_str(), "HOOK.yaml" | "plugin.yaml"))
        {
            found.push(path);
        }
    }
}

/// A `register_hook("EVENT", …)` call found in a plugin's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Registration {
    pub(super) event: String,
    pub(super) file: PathBuf,
    pub(super) line: usize,
}

/// The `register_hook` calls of a plugin's files.
#[derive(Debug, Default)]
pub(super) struct Registrations {
    /// The calls naming their event with a string literal, in file order.
    pub(super) literal: Vec<Registration>,
    /// The first call naming its event otherwise (a variable, a loop): where it is.
    pub(super) computed: Option<Registration>,
}

/// Reads the `register_hook(` calls of every Python file of `dir`.
pub(super) fn registrations(dir: &Path) -> Registrations {
    let mut found = Registrations::default();
    for file in pinned_files(dir) {
        if file.extension().is_none_or(|e| e != "py") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        scan(&text, &file, &mut found);
    }
    found
}

/// Adds the `register_hook(` calls of `text` to `found`.
fn scan(text: &str, file: &Path, found: &mut Registrations) {
    const CALL: &str = "register_hook(";
    for (at, _) in text.match_indices(CALL) {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        if text[line_start..at].trim_start().starts_with('#') || is_definition(text, at) {
            continue;
        }
        let line = text[..at].matches('\n').count() + 1;
        let rest = text[at + CALL.len()..].trim_start();
        let rest = rest
            .strip_prefix("hook_name")
            .map(|r| r.trim_start().trim_start_matches('=').trim_start())
            .unwrap_or(rest);
        let quote = rest.chars().next();
        let literal = match quote {
            Some(q @ ('"' | '\'')) => rest[1..].split(q).next().filter(|name| {
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '*'))
            }),
            _ => None,
        };
        let registration = |event: &str| Registration {
            event: event.to_owned(),
            file: file.to_path_buf(),
            line,
        };
        match literal {
            Some(event) => found.literal.push(registration(event)),
            None if found.computed.is_none() => found.computed = Some(registration("")),
            None => {}
        }
    }
}

/// `true` when the `register_hook(` at `at` is a definition (`def register_hook(`).
fn is_definition(text: &str, at: usize) -> bool {
    text[..at].trim_end_matches('.').ends_with("def ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_names_are_read_and_others_noted() {
        let text = "def register(ctx):\n    ctx.register_hook(\"pre_tool_call\", guard)\n    \
                    # ctx.register_hook('commented_out', x)\n    ctx.register_hook( 'post_tool_call', log)\n    \
                    for name in NAMES:\n        ctx.register_hook(name, log)\n";
        let mut found = Registrations::default();
        scan(text, Path::new("p/__init__.py"), &mut found);
        let events: Vec<(&str, usize)> = found
            .literal
            .iter()
            .map(|r| (r.event.as_str(), r.line))
            .collect();
        assert_eq!(events, [("pre_tool_call", 2), ("post_tool_call", 4)]);
        assert_eq!(found.computed.map(|r| r.line), Some(6));
    }

    #[test]
    fn a_keyword_name_is_a_literal_and_a_definition_is_no_call() {
        let text = "class Ctx:\n    def register_hook(self, hook_name, fn): pass\n\
                    ctx.register_hook(hook_name=\"on_session_start\", fn)\n";
        let mut found = Registrations::default();
        scan(text, Path::new("x.py"), &mut found);
        assert_eq!(found.literal.len(), 1);
        assert_eq!(found.literal[0].event, "on_session_start");
        assert!(found.computed.is_none());
    }
}
