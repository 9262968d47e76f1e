//! What the model could not read as commands (`eval "$X"`, `bash -c "$CMD"`, `curl … | sh`,
//! text the grammar does not parse), judged by `on_unknown`.
//!
//! # The rules it keeps
//!
//! - `strict`: any such part is blocked.
//! - `block`: the part is read word by word as written — blanks, `;`, `|`, `&`, parentheses,
//!   braces and commas end words, quotes are dropped, `$…` is a value not known — and each run
//!   of words starting with a program this guard judges (`rm`, `chmod`, `find`, `dd`, `mkfs`,
//!   `git`, …) is judged as that command from the directory the line starts in. A part showing
//!   no destructive form passes: most such parts are installers (`curl … | sh`) or set-ups
//!   (`eval "$(ssh-agent -s)"`).
//! - `allow`: passes.

use hookchain_shell::{Command, Dynamic, Input, Part, Shell, Word};

use super::{Judge, OnUnknown, excerpt, rules};

/// The programs whose forms a part read as written is judged for.
const JUDGED: &[&str] = &[
    "rm",
    "chmod",
    "chown",
    "chgrp",
    "find",
    "rsync",
    "dd",
    "shred",
    "wipefs",
    "mkswap",
    "mke2fs",
    "blkdiscard",
    "git",
];

/// The verdict on a part the model could not read.
pub(super) fn judge(judge: &Judge, part: &Dynamic) -> Option<String> {
    let text = judge.source(&part.span);
    match judge.guard.on_unknown {
        OnUnknown::Allow => None,
        OnUnknown::Strict => judge.guard.unknown(|| {
            format!(
                "`{}` runs what cannot be read before it runs ({})",
                excerpt(text),
                part.why
            )
        }),
        OnUnknown::Block => {
            let why = as_written(judge, text)?;
            judge.guard.unknown(|| {
                format!(
                    "`{}` cannot be read as the shell would run it ({}); read as written, {why}",
                    excerpt(text),
                    part.why
                )
            })
        }
    }
}

/// A word, or where a command ends.
enum Token {
    Word(String),
    End,
}

/// The first destructive form in `text` read word by word.
fn as_written(judge: &Judge, text: &str) -> Option<String> {
    let tokens = tokens(text);
    for (i, token) in tokens.iter().enumerate() {
        let Token::Word(first) = token else {
            continue;
        };
        let name = super::program_name(first);
        let mkfs = name.starts_with("mkfs");
        if !(JUDGED.contains(&name) || mkfs) {
            continue;
        }
        let args: Vec<Word> = tokens[i + 1..]
            .iter()
            .map_while(|t| match t {
                Token::Word(w) => Some(word(w)),
                Token::End => None,
            })
            .take(64)
            .collect();
        let command = Command {
            program: Word::Static(name.to_owned()),
            args,
            dir: Some(judge.place.project.clone().unwrap_or_default()),
            shell: Shell::Bash,
            wrappers: Vec::new(),
            scripts: Vec::new(),
            conditional: true,
            input: Input::Inherited,
            redirects: 0..0,
            code: None,
            span: 0..text.len(),
        };
        if let Some(why) = rules::command(judge, name, &command) {
            return Some(why);
        }
    }
    None
}

/// The words of `text` as written (a backslash before a newline joins the lines, as the
/// shell joins them).
fn tokens(text: &str) -> Vec<Token> {
    let text = text.replace("\\\n", "");
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Token>| {
        if !word.is_empty() {
            out.push(Token::Word(std::mem::take(word)));
        }
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' | '\\' => {}
            '$' if chars.peek() == Some(&'(') => {
                flush(&mut word, &mut out);
                out.push(Token::End);
            }
            ';' | '|' | '&' | '(' | ')' | '`' | '\n' => {
                flush(&mut word, &mut out);
                out.push(Token::End);
            }
            ' ' | '\t' | '{' | '}' | ',' | '<' | '>' => flush(&mut word, &mut out),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A word as written: `$NAME` and `${…}` are values not known, `*`, `?` and `[` patterns,
/// a leading `~` the home directory.
fn word(text: &str) -> Word {
    if !text.contains(['$', '*', '?', '[', '~']) {
        return Word::Static(text.to_owned());
    }
    let mut parts: Vec<Part> = Vec::new();
    let push_text = |parts: &mut Vec<Part>, c: char| match parts.last_mut() {
        Some(Part::Text(t)) => t.push(c),
        _ => parts.push(Part::Text(c.to_string())),
    };
    let mut chars = text.chars().peekable();
    if text.starts_with('~') {
        chars.next();
        parts.push(Part::Unknown {
            name: Some("HOME".into()),
            split: false,
        });
    }
    while let Some(c) = chars.next() {
        match c {
            '$' => {
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                parts.push(Part::Unknown {
                    name: (!name.is_empty()).then_some(name),
                    split: true,
                });
            }
            '*' | '?' => parts.push(Part::Glob(c.to_string())),
            '[' => parts.push(Part::Glob("[".into())),
            c => push_text(&mut parts, c),
        }
    }
    Word::Dynamic(Dynamic {
        span: 0..0,
        why: "a word as written".into(),
        parts,
    })
}
