//! Config files on disk: where the user's files are (the home directory) and what a file must be
//! before any parser sees it.
//!
//! # The rules it keeps
//!
//! - A config file is a **regular file**, its links followed: a FIFO would hang start-up waiting
//!   for a writer, and a device such as `/dev/zero` would be read until memory runs out. Anything
//!   else is an error naming the file, before it is opened.
//! - It is at most [`MAX_SIZE`] (1 MiB), checked before reading and again while reading (a file
//!   that grows as it is read is cut at the cap and refused).
//! - Its text is nested at most [`MAX_DEPTH`] (64) levels deep — flow brackets (`[`, `{`) and
//!   block indentation counted together — checked by a scan of the text before a YAML parser sees
//!   it: a parser takes seconds to refuse forty kilobytes of brackets, and no real config nests
//!   past a dozen.

use std::io::Read;
use std::path::{Path, PathBuf};

use hookchain_core::ConfigError;

/// The largest config file read.
pub(crate) const MAX_SIZE: u64 = 1024 * 1024;

/// The deepest nesting a config file may have.
pub(crate) const MAX_DEPTH: usize = 64;

/// The text of the config file at `path`, or `None` when there is none (the rules above).
pub(crate) fn read_text(path: &Path) -> Result<Option<String>, ConfigError> {
    let file = path.display().to_string();
    let fail = |message: String| ConfigError::Read {
        file: file.clone(),
        message,
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(fail(e.to_string())),
    };
    if !meta.is_file() {
        return Err(fail(
            "it is not a regular file (a directory, a FIFO or a device): a config must be a \
             plain file"
                .to_owned(),
        ));
    }
    let too_big = || {
        fail(format!(
            "it is {} bytes: a config file may be at most 1 MiB",
            meta.len().max(MAX_SIZE + 1)
        ))
    };
    if meta.len() > MAX_SIZE {
        return Err(too_big());
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_SIZE + 1).read_to_string(&mut text))
        .map_err(|e| fail(e.to_string()))?;
    if text.len() as u64 > MAX_SIZE {
        return Err(too_big());
    }
    Ok(Some(text))
}

/// Refuses `text` when it nests deeper than [`MAX_DEPTH`]; `file` names it in the error.
///
/// The scan is deliberately simple and errs on the side of counting: brackets inside quoted
/// strings and comments are skipped, every open flow bracket counts one level, and every line
/// indented deeper than the line above it counts one more (a block sequence's `- ` too).
pub(crate) fn check_nesting(text: &str, file: &str) -> Result<(), ConfigError> {
    let mut indents: Vec<usize> = Vec::new();
    let mut brackets = 0usize;
    for (index, line) in text.lines().enumerate() {
        let content = line.trim_start_matches(' ');
        if brackets == 0 && !(content.is_empty() || content.starts_with('#')) {
            let indent = line.len() - content.len();
            while indents.last().is_some_and(|&top| top >= indent) {
                indents.pop();
            }
            indents.push(indent);
            let dashes = content.split(' ').take_while(|word| *word == "-").count();
            if indents.len() + dashes > MAX_DEPTH {
                return Err(too_deep(file, index + 1));
            }
        }
        let mut quote: Option<char> = None;
        for c in line.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '#') => break,
                (None, '[' | '{') => {
                    brackets += 1;
                    if indents.len() + brackets > MAX_DEPTH {
                        return Err(too_deep(file, index + 1));
                    }
                }
                (None, ']' | '}') => brackets = brackets.saturating_sub(1),
                _ => {}
            }
        }
    }
    Ok(())
}

fn too_deep(file: &str, line: usize) -> ConfigError {
    ConfigError::Syntax {
        file: file.to_owned(),
        line: Some(line),
        column: None,
        message: format!(
            "the text is nested more than {MAX_DEPTH} levels deep; a config file nests a few \
             levels (a section, its keys, their values)"
        ),
    }
}

/// The user's home directory: `$HOME`, else `%USERPROFILE%`, when it is set and not
/// empty.
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_brackets_and_indentation_together() {
        let ok = "a:\n  b:\n    - {c: [1, 2]}\n";
        assert!(check_nesting(ok, "f").is_ok());
        let deep = format!("a: {}{}\n", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(check_nesting(&deep, "f").is_err());
        let quoted = format!("a: \"{}\"\n", "[".repeat(200));
        assert!(check_nesting(&quoted, "f").is_ok());
        let commented = format!("a: 1 # {}\n", "{".repeat(200));
        assert!(check_nesting(&commented, "f").is_ok());
    }
}
