//! A word the line computes, read as the shell will match it: the part of it known before the
//! line runs, and the files a glob in it names.
//!
//! # What it owns
//!
//! The shell model says *that* a word is computed (a glob, a brace expansion, a command
//! substitution) and where it is; this module reads the word's own text for what a guard can
//! still know of it:
//!
//! - its alternatives, one per brace expansion (`.git/{config,HEAD}` is two words), and two
//!   for a default of a variable the caller does not know: `${OUT:-.env}` is the variable's
//!   value (unknown) or `.env` (`${OUT:+.env}` is nothing or `.env`);
//! - each alternative's pattern (`*`, `?`, `[…]` outside quotes), up to its first part that
//!   nothing before the run can tell (a variable the guard does not know, a command
//!   substitution, `~user`): the text before that part is the word's *known prefix*. A
//!   command substitution whose command is `echo` or `printf` of known words is what it
//!   prints (`$(echo .env)` is `.env`), as the shell would have it;
//! - the files a pattern matches now, listed as the shell lists them ([`Pattern::matches`]).
//!
//! # The rules it keeps
//!
//! - Quotes and backslashes are removed as the shell removes them (`'…'`, `"…"`, `$'…'` with
//!   its escapes, `\x`), and a glob character inside quotes is a character, not a pattern.
//! - `~` at the start is the home directory, `$NAME` and `${NAME}` a variable the caller knows
//!   (an unquoted one with a blank in its value is split by the shell: unknown).
//! - `*`, `?` and `[…]` never match a `/`, nor a leading `.` of a name (bash without
//!   `dotglob`); a pattern that matches nothing stays the word it is, as bash leaves it.
//! - Reading is bounded: at most [`MAX_ALTERNATIVES`] alternatives, at most [`MAX_LISTED`]
//!   directory entries listed per pattern; past either, what is known stays the known prefix.

use std::path::{Path, PathBuf};

/// The most alternatives a word's brace expansions are read into.
const MAX_ALTERNATIVES: usize = 64;

/// The most directory entries one pattern lists to find its matches.
const MAX_LISTED: usize = 4096;

/// One piece of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// A character that stands for itself.
    Char(char),
    /// `*`: any run of characters but `/`.
    Any,
    /// `?`: one character but `/`.
    One,
    /// `[…]`: one character of the set (or not of it, `[!…]`).
    Class {
        negated: bool,
        items: Vec<(char, char)>,
    },
}

/// One alternative of a word: its pattern, and whether an unknown part follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    pieces: Vec<Piece>,
    /// The word goes on with a part no one can tell before the line runs.
    unknown_after: bool,
}

/// A token of a word, quotes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Char(char),
    /// An unquoted `*`, `?` or `[`.
    Glob(char),
    /// An unquoted `{`, `,` or `}`.
    Brace(char),
    /// A part only known when the line runs.
    Unknown,
}

/// The alternatives of `word` as the line writes it, with `var` giving the variables the
/// caller knows (`HOME` is also what `~` means). `None` when the text is not one word (an
/// unquoted blank or operator in it) or a quote is left open.
pub(crate) fn read(word: &str, var: &dyn Fn(&str) -> Option<String>) -> Option<Vec<Pattern>> {
    let tokens = tokens(word, var)?;
    let mut alternatives = Vec::new();
    braces(&tokens, &mut alternatives);
    Some(alternatives.iter().map(|t| pattern(t)).collect())
}

/// The value of `word` when it is one word that is known in full, with no pattern in it (a
/// `-c` string: `'echo x > .env'` is `echo x > .env`).
pub(crate) fn literal(word: &str, var: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    match read(word, var)?.as_slice() {
        [one] => one.literal(),
        _ => None,
    }
}

impl Pattern {
    /// The text before the first pattern or unknown part.
    pub(crate) fn known_prefix(&self) -> String {
        self.pieces
            .iter()
            .map_while(|p| match p {
                Piece::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// The whole word, when nothing in it is a pattern or unknown.
    pub(crate) fn literal(&self) -> Option<String> {
        let text = self.known_prefix();
        (!self.unknown_after && text.chars().count() == self.pieces.len()).then_some(text)
    }

    /// `true` when a part of the word is only known when the line runs.
    pub(crate) fn has_unknown(&self) -> bool {
        self.unknown_after
    }

    /// The files the pattern matches now, from `dir` for a relative one, as the shell lists
    /// them; `None` when the pattern has an unknown part or lists more than the bound allows.
    /// A pattern that matches nothing names itself (bash leaves it as written).
    pub(crate) fn matches(&self, dir: &Path) -> Option<Vec<PathBuf>> {
        if self.unknown_after {
            return None;
        }
        if let Some(text) = self.literal() {
            return Some(vec![dir.join(text)]);
        }
        let mut parts: Vec<&[Piece]> = self.pieces.split(|p| *p == Piece::Char('/')).collect();
        let mut found = vec![if self.pieces.first() == Some(&Piece::Char('/')) {
            parts.remove(0);
            PathBuf::from("/")
        } else {
            dir.to_path_buf()
        }];
        let mut listed = 0;
        for part in parts {
            if part.is_empty() {
                continue;
            }
            let literal = Pattern {
                pieces: part.to_vec(),
                unknown_after: false,
            }
            .literal();
            let mut next = Vec::new();
            for base in &found {
                if let Some(name) = &literal {
                    next.push(base.join(name));
                    continue;
                }
                let Ok(entries) = std::fs::read_dir(base) else {
                    continue;
                };
                for entry in entries.flatten() {
                    listed += 1;
                    if listed > MAX_LISTED {
                        return None;
                    }
                    let name = entry.file_name();
                    if let Some(name) = name.to_str()
                        && matches_name(part, name)
                    {
                        next.push(base.join(name));
                    }
                }
            }
            found = next;
            if found.is_empty() {
                break;
            }
        }
        if found.is_empty() {
            let text: String = self.pieces.iter().map(shown).collect();
            return Some(vec![dir.join(text)]);
        }
        found.sort();
        Some(found)
    }
}

/// How a piece is written (a pattern that matched nothing names a file written this way).
fn shown(piece: &Piece) -> String {
    match piece {
        Piece::Char(c) => c.to_string(),
        Piece::Any => "*".into(),
        Piece::One => "?".into(),
        Piece::Class { negated, items } => {
            let mut text = String::from(if *negated { "[!" } else { "[" });
            for (a, b) in items {
                text.push(*a);
                if a != b {
                    text.push('-');
                    text.push(*b);
                }
            }
            text.push(']');
            text
        }
    }
}

/// Whether the pattern of one path component matches `name` (no leading `.` matched by a
/// pattern piece).
fn matches_name(pieces: &[Piece], name: &str) -> bool {
    let chars: Vec<char> = name.chars().collect();
    if chars.first() == Some(&'.') && !matches!(pieces.first(), Some(Piece::Char('.'))) {
        return false;
    }
    matches_chars(pieces, &chars)
}

/// Whether `text` matches the pattern `pattern` as `find`'s `-name` and `-path` match (fnmatch
/// without flags: `*` and `?` match any character, `/` and a leading `.` included; `\x` is
/// `x`), case-insensitively for `-iname` and `-ipath` (`fold`).
pub(crate) fn fnmatch(pattern: &str, text: &str, fold: bool) -> bool {
    let (pattern, text) = if fold {
        (pattern.to_lowercase(), text.to_lowercase())
    } else {
        (pattern.to_owned(), text.to_owned())
    };
    let chars: Vec<char> = pattern.chars().collect();
    let mut tokens = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        match chars[k] {
            '\\' if k + 1 < chars.len() => {
                tokens.push(Token::Char(chars[k + 1]));
                k += 1;
            }
            c @ ('*' | '?' | '[') => tokens.push(Token::Glob(c)),
            c => tokens.push(Token::Char(c)),
        }
        k += 1;
    }
    let pattern = self::pattern(&tokens);
    let text: Vec<char> = text.chars().collect();
    matches_chars(&pattern.pieces, &text)
}

/// Whether `pieces` match all of `chars` (`*` and `?` matching any character).
fn matches_chars(pieces: &[Piece], chars: &[char]) -> bool {
    // Iterative matching with one backtrack point for the last `*`, as glob(3) does.
    let (mut p, mut c) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while c < chars.len() {
        match pieces.get(p) {
            Some(Piece::Any) => {
                star = Some((p, c));
                p += 1;
            }
            Some(piece) if one_matches(piece, chars[c]) => {
                p += 1;
                c += 1;
            }
            _ => match star {
                Some((sp, sc)) => {
                    p = sp + 1;
                    c = sc + 1;
                    star = Some((sp, sc + 1));
                }
                None => return false,
            },
        }
    }
    pieces[p..].iter().all(|piece| *piece == Piece::Any)
}

fn one_matches(piece: &Piece, c: char) -> bool {
    match piece {
        Piece::Char(x) => *x == c,
        Piece::One => true,
        Piece::Any => false,
        Piece::Class { negated, items } => {
            items.iter().any(|(a, b)| (*a..=*b).contains(&c)) != *negated
        }
    }
}

/// The tokens of `word`, quotes removed; `None` when it is not one word or a quote is open.
fn tokens(word: &str, var: &dyn Fn(&str) -> Option<String>) -> Option<Vec<Token>> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    if chars.first() == Some(&'~') {
        let end = chars.iter().position(|c| *c == '/').unwrap_or(chars.len());
        match (end, var("HOME")) {
            (1, Some(home)) => out.extend(home.chars().map(Token::Char)),
            _ => return Some(vec![Token::Unknown]),
        }
        i = 1;
    }
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => return None,
            '\\' => {
                out.push(Token::Char(*chars.get(i + 1)?));
                i += 2;
            }
            '\'' => {
                let end = i + 1 + chars[i + 1..].iter().position(|c| *c == '\'')?;
                out.extend(chars[i + 1..end].iter().map(|c| Token::Char(*c)));
                i = end + 1;
            }
            '"' => i = double_quoted(&chars, i + 1, var, &mut out)?,
            '$' if chars.get(i + 1) == Some(&'\'') => i = ansi_c(&chars, i + 2, &mut out)?,
            '$' if chars.get(i + 1) == Some(&'"') => {
                i = double_quoted(&chars, i + 2, var, &mut out)?;
            }
            '$' | '`' if substitution(&chars, i, var).is_some() => {
                let (printed, next) = substitution(&chars, i, var)?;
                // Unquoted: split on blanks and globbed.
                if printed.contains([' ', '\t', '\n']) {
                    out.push(Token::Unknown);
                    return Some(out);
                }
                out.extend(printed.chars().map(|c| match c {
                    '*' | '?' | '[' => Token::Glob(c),
                    _ => Token::Char(c),
                }));
                i = next;
            }
            '$' if parameter(&chars, i, var, false).is_some() => {
                let (either, next) = parameter(&chars, i, var, false)?;
                out.extend(either);
                i = next;
            }
            '$' => {
                let (value, next) = variable(&chars, i, var);
                match value {
                    // Unquoted: split on blanks and globbed.
                    Some(v) if !v.contains([' ', '\t', '\n']) => {
                        out.extend(v.chars().map(|c| match c {
                            '*' | '?' | '[' => Token::Glob(c),
                            _ => Token::Char(c),
                        }));
                    }
                    _ => {
                        out.push(Token::Unknown);
                        return Some(out);
                    }
                }
                i = next;
            }
            '`' => {
                out.push(Token::Unknown);
                return Some(out);
            }
            '*' | '?' | '[' => {
                out.push(Token::Glob(c));
                i += 1;
            }
            '{' | ',' | '}' => {
                out.push(Token::Brace(c));
                i += 1;
            }
            _ => {
                out.push(Token::Char(c));
                i += 1;
            }
        }
    }
    Some(out)
}

/// The inside of `"…"` from `i`; the index after the closing quote.
fn double_quoted(
    chars: &[char],
    mut i: usize,
    var: &dyn Fn(&str) -> Option<String>,
    out: &mut Vec<Token>,
) -> Option<usize> {
    loop {
        match *chars.get(i)? {
            '"' => return Some(i + 1),
            '\\' if matches!(chars.get(i + 1), Some('$' | '`' | '"' | '\\')) => {
                out.push(Token::Char(chars[i + 1]));
                i += 2;
            }
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '$' | '`' if substitution(chars, i, var).is_some() => {
                let (printed, next) = substitution(chars, i, var)?;
                out.extend(printed.chars().map(Token::Char));
                i = next;
            }
            '`' => {
                out.push(Token::Unknown);
                return Some(chars.len());
            }
            '$' if parameter(chars, i, var, true).is_some() => {
                let (either, next) = parameter(chars, i, var, true)?;
                out.extend(either);
                i = next;
            }
            '$' => {
                let (value, next) = variable(chars, i, var);
                match value {
                    Some(v) => out.extend(v.chars().map(Token::Char)),
                    None => {
                        out.push(Token::Unknown);
                        return Some(chars.len());
                    }
                }
                i = next;
            }
            c => {
                out.push(Token::Char(c));
                i += 1;
            }
        }
    }
}

/// `$NAME`, `${NAME}` at `i`: its value when known, and the index after it. Any other
/// expansion (`$(…)`, `${X:-y}`, `$1`) is unknown.
fn variable(
    chars: &[char],
    i: usize,
    var: &dyn Fn(&str) -> Option<String>,
) -> (Option<String>, usize) {
    let name_at = |from: usize| {
        let len = chars[from..]
            .iter()
            .enumerate()
            .take_while(|(k, c)| {
                c.is_ascii_alphabetic() || **c == '_' || (*k > 0 && c.is_ascii_digit())
            })
            .count();
        (
            chars[from..from + len].iter().collect::<String>(),
            from + len,
        )
    };
    match chars.get(i + 1) {
        Some('{') => {
            let (name, end) = name_at(i + 2);
            if !name.is_empty() && chars.get(end) == Some(&'}') {
                (var(&name), end + 1)
            } else {
                (None, chars.len())
            }
        }
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let (name, end) = name_at(i + 1);
            (var(&name), end)
        }
        // A lone `$` is a character.
        None => (Some("$".into()), i + 1),
        Some(_) => (None, chars.len()),
    }
}

/// A command substitution at `i` (`$(…)` or `` `…` ``) whose command is `echo` or `printf` of
/// known words: what it prints, trailing newlines removed, and the index after it (`$(echo
/// .env)` is `.env`). `None` for any other substitution.
fn substitution(
    chars: &[char],
    i: usize,
    var: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, usize)> {
    let (from, close) = match chars.get(i)? {
        '`' => {
            let from = i + 1;
            (from, from + chars[from..].iter().position(|c| *c == '`')?)
        }
        _ if chars.get(i + 1) == Some(&'(') && chars.get(i + 2) != Some(&'(') => {
            let from = i + 2;
            (from, closing_paren(chars, from)?)
        }
        _ => return None,
    };
    let inner: String = chars[from..close].iter().collect();
    let words = command_words(inner.trim(), var)?;
    let (program, words) = words.split_first()?;
    let printed = match program.as_str() {
        "echo" => {
            let words = match words.first().map(String::as_str) {
                Some("-n") => &words[1..],
                _ => words,
            };
            let text = words.join(" ");
            if words.first().is_some_and(|w| w.starts_with('-')) || text.contains('\\') {
                return None;
            }
            text
        }
        "printf" => match words {
            [format] if !format.contains(['%', '\\']) => format.clone(),
            _ => return None,
        },
        _ => return None,
    };
    Some((printed.trim_end_matches('\n').to_owned(), close + 1))
}

/// The words of a simple command's text, each known in full; `None` when a word is not (or
/// the text holds an operator).
fn command_words(text: &str, var: &dyn Fn(&str) -> Option<String>) -> Option<Vec<String>> {
    let chars: Vec<char> = text.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        match (quote, c) {
            (None, ' ' | '\t') => {
                if !word.is_empty() {
                    words.push(literal(&word, var)?);
                    word.clear();
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                word.push(c);
            }
            (Some(q), _) if c == q => {
                quote = None;
                word.push(c);
            }
            (None | Some('"'), '\\') => {
                word.push(c);
                k += 1;
                word.push(*chars.get(k)?);
            }
            _ => word.push(c),
        }
        k += 1;
    }
    if quote.is_some() {
        return None;
    }
    if !word.is_empty() {
        words.push(literal(&word, var)?);
    }
    Some(words)
}

/// The index of the `)` that closes a `$(` whose text starts at `from`: nested parentheses,
/// quotes and backslashes skipped.
fn closing_paren(chars: &[char], from: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '\'' => i += chars[i + 1..].iter().position(|c| *c == '\'')? + 1,
            '"' => {
                i += 1;
                while *chars.get(i)? != '"' {
                    i += 1 + usize::from(chars[i] == '\\');
                }
            }
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// `${NAME<op>WORD}` at `i`, `op` one of `:-`, `-`, `:=`, `=`, `:+`, `+`: the tokens of what it
/// expands to, and the index after its `}`. Of a variable the caller does not know, it may be
/// the value (unknown) or the word, and it is read as the two alternatives of a brace
/// expansion: `> ${F:-.env}` may write `.env`. `None` for any other form, and when its `}` is
/// not found or its word is not one word.
fn parameter(
    chars: &[char],
    i: usize,
    var: &dyn Fn(&str) -> Option<String>,
    quoted: bool,
) -> Option<(Vec<Token>, usize)> {
    if chars.get(i + 1) != Some(&'{') {
        return None;
    }
    let from = i + 2;
    let len = chars[from..]
        .iter()
        .enumerate()
        .take_while(|(k, c)| {
            c.is_ascii_alphabetic() || **c == '_' || (*k > 0 && c.is_ascii_digit())
        })
        .count();
    if len == 0 {
        return None;
    }
    let name: String = chars[from..from + len].iter().collect();
    let mut at = from + len;
    let colon = chars.get(at) == Some(&':');
    at += usize::from(colon);
    let op = *chars.get(at).filter(|c| matches!(c, '-' | '=' | '+'))?;
    let word_from = at + 1;
    let close = closing_brace(chars, word_from)?;
    let raw: Vec<char> = chars[word_from..close].to_vec();
    let mut word = Vec::new();
    if quoted {
        let mut inside = raw.clone();
        inside.push('"');
        double_quoted(&inside, 0, var, &mut word)?;
    } else {
        word = tokens(&raw.iter().collect::<String>(), var)?;
    }
    let value = var(&name);
    let set = value.as_ref().map(|v| !(colon && v.is_empty()));
    let alternative = op == '+';
    let tokens = match (set, alternative) {
        (Some(true), false) => value.unwrap_or_default().chars().map(Token::Char).collect(),
        (Some(false), false) | (Some(true), true) => word,
        (Some(false), true) => Vec::new(),
        // Unknown: the value or the word; for `+`, nothing or the word.
        (None, _) => {
            let mut either = vec![Token::Brace('{')];
            if !alternative {
                either.push(Token::Unknown);
            }
            either.push(Token::Brace(','));
            either.extend(word);
            either.push(Token::Brace('}'));
            either
        }
    };
    Some((tokens, close + 1))
}

/// The index of the `}` that closes a `${` whose word starts at `from`: nested `${…}`, quotes
/// and backslashes skipped.
fn closing_brace(chars: &[char], from: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '\'' => i += chars[i + 1..].iter().position(|c| *c == '\'')? + 1,
            '"' => {
                i += 1;
                while *chars.get(i)? != '"' {
                    i += 1 + usize::from(chars[i] == '\\');
                }
            }
            '$' if chars.get(i + 1) == Some(&'{') => {
                depth += 1;
                i += 1;
            }
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The inside of `$'…'` from `i`, its escapes decoded; the index after the closing quote.
fn ansi_c(chars: &[char], mut i: usize, out: &mut Vec<Token>) -> Option<usize> {
    loop {
        match *chars.get(i)? {
            '\'' => return Some(i + 1),
            '\\' => {
                let e = *chars.get(i + 1)?;
                i += 2;
                let simple = match e {
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    'a' => Some('\x07'),
                    'b' => Some('\x08'),
                    'e' | 'E' => Some('\x1b'),
                    'f' => Some('\x0c'),
                    'v' => Some('\x0b'),
                    '\\' | '\'' | '"' | '?' => Some(e),
                    _ => None,
                };
                if let Some(c) = simple {
                    out.push(Token::Char(c));
                    continue;
                }
                let (radix, max) = match e {
                    'x' => (16, 2),
                    'u' => (16, 4),
                    'U' => (16, 8),
                    '0'..='7' => {
                        i -= 1;
                        (8, 3)
                    }
                    // An escape bash keeps as written.
                    _ => {
                        out.push(Token::Char('\\'));
                        out.push(Token::Char(e));
                        continue;
                    }
                };
                let digits: String = chars[i..]
                    .iter()
                    .take(max)
                    .take_while(|c| c.is_digit(radix))
                    .collect();
                i += digits.chars().count();
                let c = u32::from_str_radix(&digits, radix)
                    .ok()
                    .and_then(char::from_u32)?;
                out.push(Token::Char(c));
            }
            c => {
                out.push(Token::Char(c));
                i += 1;
            }
        }
    }
}

/// Expands the first brace expression of `tokens` (`{a,b}` or `{1..3}`), recursively, into
/// `out`; text with none is one alternative.
fn braces(tokens: &[Token], out: &mut Vec<Vec<Token>>) {
    if out.len() >= MAX_ALTERNATIVES {
        return;
    }
    let Some((open, close, items)) = first_brace(tokens) else {
        out.push(tokens.to_vec());
        return;
    };
    for item in items {
        let mut next = tokens[..open].to_vec();
        next.extend(item);
        next.extend_from_slice(&tokens[close + 1..]);
        braces(&next, out);
    }
}

/// The first `{…}` that expands: its bounds and the alternatives it stands for.
fn first_brace(tokens: &[Token]) -> Option<(usize, usize, Vec<Vec<Token>>)> {
    for open in (0..tokens.len()).filter(|&k| tokens[k] == Token::Brace('{')) {
        let mut depth = 0;
        let mut commas = Vec::new();
        for (k, t) in tokens.iter().enumerate().skip(open) {
            match t {
                Token::Brace('{') => depth += 1,
                Token::Brace(',') if depth == 1 => commas.push(k),
                Token::Brace('}') => {
                    depth -= 1;
                    if depth > 0 {
                        continue;
                    }
                    if !commas.is_empty() {
                        let mut items = Vec::new();
                        let mut from = open + 1;
                        for at in commas.iter().copied().chain([k]) {
                            items.push(tokens[from..at].to_vec());
                            from = at + 1;
                        }
                        return Some((open, k, items));
                    }
                    if let Some(items) = sequence(&tokens[open + 1..k]) {
                        return Some((open, k, items));
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    None
}

/// `1..3`, `a..c`, `1..10..2`: the words of a sequence expression, when it is one.
fn sequence(inner: &[Token]) -> Option<Vec<Vec<Token>>> {
    let text: Option<String> = inner
        .iter()
        .map(|t| match t {
            Token::Char(c) => Some(*c),
            _ => None,
        })
        .collect();
    let text = text?;
    let parts: Vec<&str> = text.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.abs().max(1),
        None => 1,
    };
    let word = |s: String| s.chars().map(Token::Char).collect::<Vec<_>>();
    let range = |a: i64, b: i64| -> Vec<i64> {
        let n = ((a - b).unsigned_abs() / step as u64) as usize + 1;
        let dir = if b >= a { step } else { -step };
        (0..n.min(MAX_ALTERNATIVES))
            .map(|k| a + dir * k as i64)
            .collect()
    };
    if let (Ok(a), Ok(b)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        return Some(
            range(a, b)
                .into_iter()
                .map(|n| word(n.to_string()))
                .collect(),
        );
    }
    let one = |s: &str| {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => Some(c as i64),
            _ => None,
        }
    };
    let (a, b) = (one(parts[0])?, one(parts[1])?);
    Some(
        range(a, b)
            .into_iter()
            .filter_map(|n| char::from_u32(n as u32))
            .map(|c| word(c.to_string()))
            .collect(),
    )
}

/// The pattern of one alternative's tokens.
fn pattern(tokens: &[Token]) -> Pattern {
    let mut pieces = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        match &tokens[k] {
            Token::Char(c) | Token::Brace(c) => pieces.push(Piece::Char(*c)),
            Token::Glob('*') => pieces.push(Piece::Any),
            Token::Glob('?') => pieces.push(Piece::One),
            Token::Glob(_) => match class(&tokens[k + 1..]) {
                Some((piece, used)) => {
                    pieces.push(piece);
                    k += used;
                }
                None => pieces.push(Piece::Char('[')),
            },
            Token::Unknown => {
                return Pattern {
                    pieces,
                    unknown_after: true,
                };
            }
        }
        k += 1;
    }
    Pattern {
        pieces,
        unknown_after: false,
    }
}

/// A bracket expression after its `[`: the piece and how many tokens it took (to its `]`).
fn class(tokens: &[Token]) -> Option<(Piece, usize)> {
    let chars: Vec<char> = tokens
        .iter()
        .map_while(|t| match t {
            Token::Char(c) | Token::Brace(c) | Token::Glob(c) => Some(*c),
            Token::Unknown => None,
        })
        .collect();
    let mut k = 0;
    let negated = matches!(chars.first(), Some('!' | '^'));
    if negated {
        k += 1;
    }
    let mut items = Vec::new();
    let start = k;
    while k < chars.len() {
        let c = chars[k];
        if c == ']' && k > start {
            return Some((Piece::Class { negated, items }, k + 1));
        }
        if c == '/' {
            return None;
        }
        if chars.get(k + 1) == Some(&'-') && chars.get(k + 2).is_some_and(|e| *e != ']') {
            items.push((c, chars[k + 2]));
            k += 3;
        } else {
            items.push((c, c));
            k += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "SPACED" => Some("a b".into()),
            _ => None,
        }
    }

    fn prefixes(word: &str) -> Vec<(String, bool)> {
        read(word, &vars)
            .unwrap()
            .iter()
            .map(|p| (p.known_prefix(), p.unknown_after))
            .collect()
    }

    #[test]
    fn quotes_are_removed_and_quoted_globs_are_characters() {
        assert_eq!(
            literal(r#"'a b'"c\"d"\ e"#, &vars).as_deref(),
            Some("a bc\"d e")
        );
        assert_eq!(literal(r#""*.rs""#, &vars).as_deref(), Some("*.rs"));
        assert_eq!(literal(r"$'\x2e\145nv'", &vars).as_deref(), Some(".env"));
        assert_eq!(literal("~/.ssh", &vars).as_deref(), Some("/home/u/.ssh"));
        assert_eq!(literal(r#""$HOME"/x"#, &vars).as_deref(), Some("/home/u/x"));
        assert_eq!(literal("*.rs", &vars), None);
        assert_eq!(read("a b", &vars), None);
        assert_eq!(read("'open", &vars), None);
    }

    #[test]
    fn the_known_prefix_ends_at_the_first_pattern_or_unknown_part() {
        assert_eq!(prefixes("~/.ssh/*"), [("/home/u/.ssh/".into(), false)]);
        assert_eq!(prefixes(".git/hooks/$NAME"), [(".git/hooks/".into(), true)]);
        assert_eq!(prefixes(r#""$OUT""#), [(String::new(), true)]);
        assert_eq!(prefixes("x/$(date)"), [("x/".into(), true)]);
        assert_eq!(prefixes("~user/x"), [(String::new(), true)]);
        // An unquoted value with a blank is split by the shell.
        assert_eq!(prefixes("d/$SPACED"), [("d/".into(), true)]);
    }

    #[test]
    fn braces_expand_into_alternatives() {
        let words = |word: &str| -> Vec<String> {
            read(word, &vars)
                .unwrap()
                .iter()
                .map(|p| p.literal().unwrap())
                .collect()
        };
        assert_eq!(
            words(".git/{config,hooks/{a,b}}"),
            [".git/config", ".git/hooks/a", ".git/hooks/b"]
        );
        assert_eq!(words("f{1..3}"), ["f1", "f2", "f3"]);
        // Quoted or without a comma: characters.
        assert_eq!(literal("'{a,b}'", &vars).as_deref(), Some("{a,b}"));
        assert_eq!(literal("{a}", &vars).as_deref(), Some("{a}"));
    }

    #[test]
    fn find_patterns_match_dots_and_slashes() {
        assert!(fnmatch(".env", ".env", false));
        assert!(fnmatch("*", ".env", false));
        assert!(fnmatch("./.git/*", "./.git/hooks/pre-commit", false));
        assert!(fnmatch("*.ENV", "prod.env", true));
        assert!(!fnmatch("*.pyc", ".git", false));
        assert!(!fnmatch("\\*", "x", false));
    }

    #[test]
    fn a_pattern_matches_as_bash_lists_files() {
        let dir = tempfile::tempdir().unwrap();
        for name in [".env", ".envrc", "env.txt", "a.rs", "b.rs"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/config"), "").unwrap();
        let matches = |word: &str| -> Vec<String> {
            read(word, &vars).unwrap()[0]
                .matches(dir.path())
                .unwrap()
                .iter()
                .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(matches(".en*"), [".env", ".envrc"]);
        assert_eq!(matches("*"), ["a.rs", "b.rs", "env.txt"]);
        assert_eq!(matches(".gi?/conf[a-z]g"), [".git/config"]);
        assert_eq!(matches("[!a]*.rs"), ["b.rs"]);
        // Nothing matches: the word names itself.
        assert_eq!(matches("*.md"), ["*.md"]);
        assert_eq!(read("x$Y", &vars).unwrap()[0].matches(dir.path()), None);
    }
}
