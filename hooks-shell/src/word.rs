//! A word's value: quote removal (`'…'`, `"…"`, `$'…'`, backslashes), the expansions known
//! statically (variables of the scope, `~`, `${X:-default}` and its kin), and what makes a word
//! dynamic (globs, brace expansion, substitutions, unknown variables, splitting).

use std::ops::Range;

use tree_sitter::Node;

use crate::model::{Scope, Var, Walker};
use crate::{Dynamic, Shell, Word};

/// A word's value as the walk returns it.
pub(crate) struct Value {
    pub(crate) word: Word,
    /// Unquoted and empty: the shell drops the word.
    pub(crate) vanished: bool,
    /// Part of it comes from a variable the line assigned.
    pub(crate) line_var: bool,
}

/// The pieces a word is built of, before they are joined.
#[derive(Default)]
struct Pieces {
    text: String,
    dynamic: Option<Dynamic>,
    quoted: bool,
    /// Unquoted literal text, escaped characters blanked: where globs and braces are looked for.
    bare: String,
    line_var: bool,
    any: bool,
}

impl Pieces {
    fn fail(&mut self, span: Range<usize>, why: impl Into<String>) {
        if self.dynamic.is_none() {
            self.dynamic = Some(Dynamic {
                span,
                why: why.into(),
            });
        }
    }
}

const GLOB: [char; 3] = ['*', '?', '['];

impl Walker<'_> {
    /// The value of an argument word.
    pub(crate) fn word(&mut self, node: Node, scope: &mut Scope) -> Value {
        self.word_in(node, scope, false)
    }

    /// The value of a word; in an assignment (`assignment`) it is neither split nor globbed.
    pub(crate) fn word_in(&mut self, node: Node, scope: &mut Scope, assignment: bool) -> Value {
        let mut p = Pieces::default();
        self.piece(node, scope, false, assignment, true, &mut p);
        if !assignment && p.dynamic.is_none() {
            if p.bare.contains(GLOB) {
                p.fail(
                    self.span(node),
                    "a glob, matched against files when the line runs",
                );
            } else if braces(&p.bare) {
                // Under `sh` too: macOS's `/bin/sh` is bash, which expands braces.
                p.fail(
                    self.span(node),
                    "a brace expansion, several words when the line runs",
                );
            }
        }
        if p.dynamic.is_none()
            && p.text.contains('[')
            && (p.text.contains("$(") || p.text.contains('`'))
        {
            // `let 'x=a[$(./x.sh)]'`, `[[ $v -eq 0 ]]`, `declare -i`: bash runs a command
            // substitution written in an array subscript of text it evaluates as arithmetic.
            let span = self.span(node);
            self.dynamic(
                span,
                "text with a command substitution in an array subscript, which bash runs when \
                 it evaluates the text as arithmetic",
            );
        }
        let vanished = !p.quoted && p.text.is_empty() && p.dynamic.is_none() && p.any;
        Value {
            word: match p.dynamic {
                Some(d) => Word::Dynamic(d),
                None => Word::Static(p.text),
            },
            vanished,
            line_var: p.line_var,
        }
    }

    fn piece(
        &mut self,
        node: Node,
        scope: &mut Scope,
        quoted: bool,
        assignment: bool,
        first: bool,
        p: &mut Pieces,
    ) {
        if !self.enter(node) {
            p.fail(self.span(node), "parts nested too deeply to follow");
            return;
        }
        self.piece_in(node, scope, quoted, assignment, first, p);
        self.leave();
    }

    #[allow(clippy::too_many_arguments)]
    fn piece_in(
        &mut self,
        node: Node,
        scope: &mut Scope,
        quoted: bool,
        assignment: bool,
        first: bool,
        p: &mut Pieces,
    ) {
        let span = self.span(node);
        match node.kind() {
            "word"
            | "number"
            | "variable_name"
            | "test_operator"
            | "regex"
            | "extglob_pattern"
            | "special_variable_name" => {
                let raw = self.text(node).to_owned();
                if quoted {
                    p.text.push_str(&raw);
                    return;
                }
                if first && (raw == "~" || raw.starts_with("~/")) {
                    match scope.vars.get("HOME") {
                        Some(Var::Known { value, .. }) => {
                            p.text.push_str(value);
                            p.any = true;
                            self.bare(&raw[1..], p);
                        }
                        _ => p.fail(span, "`~`, the home directory, which is not known"),
                    }
                    return;
                }
                if first && raw.starts_with('~') {
                    p.fail(
                        span,
                        "`~user`, a home directory looked up when the line runs",
                    );
                    return;
                }
                self.bare(&raw, p);
            }
            "string" | "translated_string" => {
                p.quoted = true;
                let start = node.start_byte() + self.text(node).find('"').map_or(1, |i| i + 1);
                let end = node.end_byte().saturating_sub(1).max(start);
                let mut pos = start;
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    if child.kind() == "string_content" {
                        continue;
                    }
                    let literal = self.src.get(pos..child.start_byte()).unwrap_or("");
                    p.text.push_str(&dq_unescape(literal));
                    self.piece(child, scope, true, assignment, false, p);
                    pos = child.end_byte();
                }
                let literal = self.src.get(pos..end).unwrap_or("");
                p.text.push_str(&dq_unescape(literal));
            }
            "raw_string" => {
                p.quoted = true;
                let raw = self.text(node);
                p.text
                    .push_str(raw.get(1..raw.len().saturating_sub(1)).unwrap_or(""));
            }
            "ansi_c_string" => {
                p.quoted = true;
                if self.shell == Shell::Posix {
                    p.fail(span, "`$'…'` quoting, which a POSIX sh may not read");
                    return;
                }
                let raw = self.text(node);
                match ansi_c(raw.get(2..raw.len().saturating_sub(1)).unwrap_or("")) {
                    Some(s) => p.text.push_str(&s),
                    None => p.fail(span, "a `$'…'` escape this model does not decode"),
                }
            }
            "simple_expansion" => {
                let name = node
                    .named_child(0)
                    .map(|n| self.text(n).to_owned())
                    .unwrap_or_default();
                self.variable(&name, span, scope, quoted, assignment, p);
            }
            "expansion" => self.expansion(node, scope, quoted, assignment, p),
            "command_substitution" | "process_substitution" => {
                if node.kind() == "process_substitution" && self.shell == Shell::Posix {
                    self.dynamic(span.clone(), "`<(…)`, which a POSIX sh does not read");
                }
                let mut copy = scope.clone();
                self.statement_seq(node, &mut copy);
                let why = if node.kind() == "command_substitution" {
                    "the output of a command substitution"
                } else {
                    "a process substitution's file"
                };
                p.fail(span, why);
            }
            "arithmetic_expansion" => {
                let mut copy = scope.clone();
                self.statement_seq(node, &mut copy);
                p.fail(span, "an arithmetic expansion");
            }
            "brace_expression" => {
                p.fail(span, "a brace expansion, several words when the line runs")
            }
            "concatenation" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.children(&mut cursor).collect();
                for (i, child) in children.into_iter().enumerate() {
                    if child.is_named() {
                        self.piece(child, scope, quoted, assignment, first && i == 0, p);
                    } else {
                        let raw = self.text(child).to_owned();
                        if quoted {
                            p.text.push_str(&raw);
                        } else {
                            self.bare(&raw, p);
                        }
                    }
                }
            }
            kind => p.fail(span, format!("`{kind}` is not read by this model")),
        }
    }

    /// Walks the commands of a substitution.
    pub(crate) fn statement_seq(&mut self, node: Node, scope: &mut Scope) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.statement(child, scope, &crate::model::Stdin::Inherited);
        }
    }

    /// Unquoted literal text: backslashes removed, globs and braces noted.
    fn bare(&self, raw: &str, p: &mut Pieces) {
        p.any = true;
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('\n') | None => {}
                    Some(e) => {
                        p.text.push(e);
                        p.bare.push(' ');
                    }
                }
            } else {
                p.text.push(c);
                p.bare.push(c);
            }
        }
    }

    fn variable(
        &mut self,
        name: &str,
        span: Range<usize>,
        scope: &Scope,
        quoted: bool,
        assignment: bool,
        p: &mut Pieces,
    ) {
        p.any = true;
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if !valid {
            p.fail(span, format!("`${name}`, a special parameter"));
            return;
        }
        match self.lookup(name, scope) {
            Var::Known { value, line, .. } => {
                if !quoted && !assignment {
                    if value.contains([' ', '\t', '\n']) {
                        p.fail(
                            span,
                            format!("`${name}` unquoted, split into words when the line runs"),
                        );
                        return;
                    }
                    if value.contains(GLOB) {
                        p.fail(
                            span,
                            format!("`${name}` unquoted, matched against files when the line runs"),
                        );
                        return;
                    }
                }
                p.line_var |= line;
                p.text.push_str(&value);
            }
            Var::Unset => {}
            Var::Unknown { .. } => p.fail(
                span,
                format!("`${name}`, a variable not known before the line runs"),
            ),
        }
    }

    pub(crate) fn lookup(&self, name: &str, scope: &Scope) -> Var {
        match scope.vars.get(name) {
            Some(v) => v.clone(),
            None if self.complete => Var::Unset,
            None => Var::Unknown { exported: true },
        }
    }

    /// `${NAME}`, `${NAME:-word}` and kin; any other operation is dynamic.
    fn expansion(
        &mut self,
        node: Node,
        scope: &mut Scope,
        quoted: bool,
        assignment: bool,
        p: &mut Pieces,
    ) {
        let span = self.span(node);
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        // `${`, NAME, then either `}` or an operator, its word parts, `}`.
        let inner: Vec<Node> = children
            .iter()
            .copied()
            .filter(|n| !matches!(self.text(*n), "${" | "}"))
            .collect();
        let Some((name, rest)) = inner.split_first() else {
            p.fail(span, "an empty `${}`");
            return;
        };
        if name.kind() != "variable_name" {
            // What it cannot compute may still run commands (`${x/a/$(./x.sh)}`).
            let mut copy = scope.clone();
            self.substitutions(node, &mut copy);
            p.fail(span, "a `${…}` operation this model does not compute");
            return;
        }
        let name = self.text(*name).to_owned();
        let Some((op, value)) = rest.split_first() else {
            self.variable(&name, span, scope, quoted, assignment, p);
            return;
        };
        let op = self.text(*op).to_owned();
        if op.starts_with('@') && self.text(node).ends_with("P}") {
            // `${x@P}` expands the value as a prompt, running the substitutions it holds.
            self.dynamic(
                span.clone(),
                "`${…@P}`, which runs the command substitutions of the value",
            );
        }
        if !matches!(op.as_str(), ":-" | "-" | ":=" | "=" | ":+" | "+") {
            // What it cannot compute may still run commands (`${x/a/$(./x.sh)}`).
            let mut copy = scope.clone();
            self.substitutions(node, &mut copy);
            p.fail(span, "a `${…}` operation this model does not compute");
            return;
        }
        let var = self.lookup(&name, scope);
        let colon = op.starts_with(':');
        let set = match &var {
            Var::Known { value, .. } => !(colon && value.is_empty()),
            Var::Unset => false,
            Var::Unknown { .. } => {
                p.fail(
                    span,
                    format!("`${name}`, a variable not known before the line runs"),
                );
                return;
            }
        };
        let alternative = op.ends_with('+');
        let use_word = if alternative { set } else { !set };
        if !use_word {
            if !alternative {
                self.variable(&name, span, scope, quoted, assignment, p);
            } else {
                p.any = true;
            }
            return;
        }
        // The word: evaluated in place, with the quoting of the expansion.
        let mut word = Pieces::default();
        for part in value {
            self.piece(*part, scope, quoted, assignment, false, &mut word);
        }
        if word.dynamic.is_none() && !quoted && !assignment {
            if word.bare.contains(GLOB) {
                word.fail(
                    span.clone(),
                    "a glob, matched against files when the line runs",
                );
            } else if word.text.contains([' ', '\t', '\n']) {
                word.fail(
                    span.clone(),
                    "a default split into words when the line runs",
                );
            }
        }
        if let Some(d) = word.dynamic {
            p.dynamic.get_or_insert(d);
            return;
        }
        if op.ends_with('=') {
            self.setting(&name, span.clone());
            scope.assign(&name, Some(word.text.clone()), true);
        }
        p.any = true;
        p.quoted |= word.quoted;
        p.line_var |= word.line_var;
        p.text.push_str(&word.text);
    }
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline.
fn dq_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    out.extend(chars.next());
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `true` when unquoted text holds a brace expansion: `{`, then `,` or `..`, then `}`.
fn braces(bare: &str) -> bool {
    let Some(open) = bare.find('{') else {
        return false;
    };
    let rest = &bare[open + 1..];
    let Some(close) = rest.find('}') else {
        return false;
    };
    let inside = &rest[..close];
    inside.contains(',') || inside.contains("..")
}

/// The text of a bash `$'…'` string's inside, escapes decoded; `None` for an escape it does not
/// know (a control character `\c`, a `\u` beyond what it reads).
fn ansi_c(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        let simple = match e {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            continue;
        }
        let (radix, max) = match e {
            '0'..='7' => (8, 3),
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            _ => return None,
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(e);
        }
        while digits.len() < max && chars.peek().is_some_and(|d| d.is_digit(radix)) {
            digits.extend(chars.next());
        }
        if digits.is_empty() {
            return None;
        }
        let n = u32::from_str_radix(&digits, radix).ok()?;
        if n == 0 {
            // Bash ends the string at a NUL.
            break;
        }
        if n > 0x7f && (radix != 16 || e == 'x') {
            // A raw byte above ASCII: not UTF-8 text this model follows.
            return None;
        }
        out.push(char::from_u32(n)?);
    }
    Some(out)
}
