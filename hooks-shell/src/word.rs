//! A word's value: quote removal (`'…'`, `"…"`, `$'…'`, backslashes), the expansions known
//! statically (variables of the scope, `~`, `${X:-default}` and its kin), and what makes a word
//! dynamic (globs, brace expansion, substitutions, unknown variables, splitting).

use std::ops::Range;

use tree_sitter::Node;

use crate::model::{Scope, Var, Walker};
use crate::{Dynamic, Part, Shell, Word};

/// A word's value as the walk returns it.
pub(crate) struct Value {
    pub(crate) word: Word,
    /// Unquoted and empty: the shell drops the word.
    pub(crate) vanished: bool,
    /// Part of it comes from a variable the line assigned.
    pub(crate) line_var: bool,
}

/// One character of a word, or what stands in a word for a value not known.
#[derive(Clone)]
enum Atom {
    /// A character; `glob` when the shell would match it against files (unquoted, written
    /// or from an unquoted expansion), `brace` when it takes part in brace expansion
    /// (unquoted and written in the line).
    Ch { c: char, glob: bool, brace: bool },
    /// A value only known when the line runs.
    Gap(Part),
    /// A blank of an unquoted expansion: the shell splits the word there.
    Split,
}

/// The pieces a word is built of, before they are joined.
#[derive(Default)]
struct Pieces {
    atoms: Vec<Atom>,
    dynamic: Option<Dynamic>,
    quoted: bool,
    line_var: bool,
    any: bool,
}

impl Pieces {
    /// Something not computed: the word is dynamic, with `part` standing for it.
    fn fail(&mut self, span: Range<usize>, why: impl Into<String>, part: Part) {
        if self.dynamic.is_none() {
            self.dynamic = Some(Dynamic {
                span,
                why: why.into(),
                parts: Vec::new(),
            });
        }
        self.atoms.push(Atom::Gap(part));
    }

    /// Text that is quoted (or otherwise out of reach of globs and braces).
    fn quoted_text(&mut self, s: &str) {
        self.atoms.extend(s.chars().map(|c| Atom::Ch {
            c,
            glob: false,
            brace: false,
        }));
    }

    fn text(&self) -> String {
        text_of(&self.atoms)
    }
}

/// An unknown value: `name` when it is a variable's, `split` when it is unquoted.
fn unknown(name: Option<&str>, split: bool) -> Part {
    Part::Unknown {
        name: name.map(str::to_owned),
        split,
    }
}

fn text_of(atoms: &[Atom]) -> String {
    atoms
        .iter()
        .filter_map(|a| match a {
            Atom::Ch { c, .. } => Some(*c),
            _ => None,
        })
        .collect()
}

const GLOB: [char; 3] = ['*', '?', '['];

/// How many words one word may expand to through braces before it is dynamic.
const MAX_BRACE_WORDS: usize = 1024;

impl Walker<'_> {
    /// The value of a word that stays one word (a redirection's target, a `case` value): a
    /// brace expansion or a split in it is dynamic.
    pub(crate) fn word(&mut self, node: Node, scope: &mut Scope) -> Value {
        self.word_in(node, scope, false)
    }

    /// The value of a word; in an assignment (`assignment`) it is neither split nor globbed.
    pub(crate) fn word_in(&mut self, node: Node, scope: &mut Scope, assignment: bool) -> Value {
        let mut p = Pieces::default();
        self.piece(node, scope, false, assignment, true, &mut p);
        let mut values = self.finish(node, p, assignment, false);
        values.pop().unwrap_or(Value {
            word: Word::Static(String::new()),
            vanished: true,
            line_var: false,
        })
    }

    /// The words a command's word becomes: under bash a brace expansion is several words
    /// (`/{etc,usr}`), an unquoted expansion of a known value with blanks is split; words
    /// that expand to nothing are left out.
    pub(crate) fn words(&mut self, node: Node, scope: &mut Scope) -> Vec<Value> {
        let mut p = Pieces::default();
        self.piece(node, scope, false, false, true, &mut p);
        self.finish(node, p, false, true)
            .into_iter()
            .filter(|v| !v.vanished)
            .collect()
    }

    /// Joins the pieces into the word or words they make.
    fn finish(&mut self, node: Node, p: Pieces, assignment: bool, many: bool) -> Vec<Value> {
        let span = self.span(node);
        let text = p.text();
        if p.dynamic.is_none() && text.contains('[') && (text.contains("$(") || text.contains('`'))
        {
            // `let 'x=a[$(./x.sh)]'`, `[[ $v -eq 0 ]]`, `declare -i`: bash runs a command
            // substitution written in an array subscript of text it evaluates as arithmetic.
            self.dynamic(
                span.clone(),
                "text with a command substitution in an array subscript, which bash runs when \
                 it evaluates the text as arithmetic",
            );
        }
        let whole = |why: &str, p: &Pieces| Value {
            word: Word::Dynamic(Dynamic {
                span: span.clone(),
                why: why.to_owned(),
                parts: vec![unknown(None, true)],
            }),
            vanished: false,
            line_var: p.line_var,
        };
        if assignment {
            let atoms = p.atoms.clone();
            return vec![self.field(&span, atoms, &p, None)];
        }
        let braced = braces(&p.atoms);
        let expanded = match braced {
            false => vec![p.atoms.clone()],
            // Under `sh` too: macOS's `/bin/sh` is bash, which expands braces.
            true if self.shell == Shell::Posix || !many => {
                return vec![whole(
                    "a brace expansion, several words when the line runs",
                    &p,
                )];
            }
            true => {
                let mut budget = MAX_BRACE_WORDS;
                match brace_expand(&p.atoms, &mut budget) {
                    Some(words) => words,
                    None => {
                        return vec![whole(
                            "a brace expansion of more words than this model follows",
                            &p,
                        )];
                    }
                }
            }
        };
        let splits = p.atoms.iter().any(|a| matches!(a, Atom::Split));
        if splits && !many {
            let why = match &p.dynamic {
                Some(d) => d.why.clone(),
                None => "an unquoted expansion split into words when the line runs".to_owned(),
            };
            return vec![whole(&why, &p)];
        }
        let mut out = Vec::new();
        for atoms in expanded {
            if !splits {
                let vanish = !p.quoted && atoms.is_empty() && p.dynamic.is_none() && p.any;
                if braced && atoms.is_empty() && !p.quoted {
                    continue;
                }
                out.push(self.field(&span, atoms, &p, Some(vanish)));
                continue;
            }
            for field in atoms.split(|a| matches!(a, Atom::Split)) {
                if !field.is_empty() {
                    out.push(self.field(&span, field.to_vec(), &p, Some(false)));
                }
            }
        }
        out
    }

    /// One word of the result: static, or dynamic with what is known of it.
    fn field(
        &mut self,
        span: &Range<usize>,
        atoms: Vec<Atom>,
        p: &Pieces,
        vanished: Option<bool>,
    ) -> Value {
        let globs = vanished.is_some()
            && atoms
                .iter()
                .any(|a| matches!(a, Atom::Ch { c, glob: true, .. } if GLOB.contains(c)));
        let gaps = atoms.iter().any(|a| matches!(a, Atom::Gap(_)));
        let word = if gaps || globs {
            let why = match (&p.dynamic, gaps) {
                (Some(d), true) => d.why.clone(),
                _ => "a glob, matched against files when the line runs".to_owned(),
            };
            let span = match (&p.dynamic, gaps) {
                (Some(d), true) => d.span.clone(),
                _ => span.clone(),
            };
            Word::Dynamic(Dynamic {
                span,
                why,
                parts: parts_of(&atoms, vanished.is_some()),
            })
        } else {
            Word::Static(text_of(&atoms))
        };
        Value {
            word,
            vanished: vanished.unwrap_or(false),
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
            p.fail(
                self.span(node),
                "parts nested too deeply to follow",
                unknown(None, !quoted),
            );
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
        let computed = unknown(None, !quoted && !assignment);
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
                    p.quoted_text(&raw);
                    return;
                }
                if first && (raw == "~" || raw.starts_with("~/")) {
                    p.any = true;
                    match scope.vars.get("HOME") {
                        Some(Var::Known { value, .. }) => p.quoted_text(value),
                        _ => p.fail(
                            span,
                            "`~`, the home directory, which is not known",
                            unknown(Some("HOME"), false),
                        ),
                    }
                    self.bare(&raw[1..], p);
                    return;
                }
                // `~+` is `$PWD` and `~-` is `$OLDPWD` under bash; dash leaves them as written.
                if let Some((name, rest)) = [("PWD", "~+"), ("OLDPWD", "~-")]
                    .into_iter()
                    .find_map(|(name, t)| Some((name, raw.strip_prefix(t)?)))
                    .filter(|(_, rest)| first && (rest.is_empty() || rest.starts_with('/')))
                {
                    p.any = true;
                    match scope.vars.get(name) {
                        Some(Var::Known { value, .. }) if self.shell == Shell::Bash => {
                            p.quoted_text(value)
                        }
                        _ => p.fail(
                            span,
                            format!(
                                "`{}`, which bash reads as `${name}` and dash leaves",
                                &raw[..2]
                            ),
                            unknown(Some(name), false),
                        ),
                    }
                    self.bare(rest, p);
                    return;
                }
                if first && raw.starts_with('~') {
                    p.fail(
                        span,
                        "`~user`, a home directory looked up when the line runs",
                        unknown(None, false),
                    );
                    return;
                }
                self.bare(&raw, p);
            }
            "brace_expression" => {
                // `{1..3}`: the grammar's node for a sequence, read as the text it is.
                let raw = self.text(node).to_owned();
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
                    p.quoted_text(&dq_unescape(literal));
                    self.piece(child, scope, true, assignment, false, p);
                    pos = child.end_byte();
                }
                let literal = self.src.get(pos..end).unwrap_or("");
                p.quoted_text(&dq_unescape(literal));
            }
            "raw_string" => {
                p.quoted = true;
                let raw = self.text(node).to_owned();
                p.quoted_text(raw.get(1..raw.len().saturating_sub(1)).unwrap_or(""));
            }
            "ansi_c_string" => {
                p.quoted = true;
                if self.shell == Shell::Posix {
                    p.fail(
                        span,
                        "`$'…'` quoting, which a POSIX sh may not read",
                        unknown(None, false),
                    );
                    return;
                }
                let raw = self.text(node);
                match ansi_c(raw.get(2..raw.len().saturating_sub(1)).unwrap_or("")) {
                    Some(s) => p.quoted_text(&s),
                    None => p.fail(
                        span,
                        "a `$'…'` escape this model does not decode",
                        unknown(None, false),
                    ),
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
                // `$(pwd)` is `$PWD` (unless the line defines a function `pwd`).
                let raw = self.text(node);
                let inner = raw
                    .strip_prefix("$(")
                    .and_then(|r| r.strip_suffix(')'))
                    .or_else(|| raw.strip_prefix('`').and_then(|r| r.strip_suffix('`')));
                if node.kind() == "command_substitution"
                    && inner.is_some_and(|i| matches!(i.trim(), "pwd" | "pwd -L"))
                    && !scope.functions.iter().any(|f| f == "pwd")
                {
                    self.variable("PWD", span, scope, quoted, assignment, p);
                    return;
                }
                let why = if node.kind() == "command_substitution" {
                    "the output of a command substitution"
                } else {
                    "a process substitution's file"
                };
                p.any = true;
                p.fail(span, why, computed);
            }
            "arithmetic_expansion" => {
                let mut copy = scope.clone();
                self.statement_seq(node, &mut copy);
                p.any = true;
                p.fail(span, "an arithmetic expansion", computed);
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
                            p.quoted_text(&raw);
                        } else {
                            self.bare(&raw, p);
                        }
                    }
                }
            }
            kind => p.fail(
                span,
                format!("`{kind}` is not read by this model"),
                computed,
            ),
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
                    Some(e) => p.atoms.push(Atom::Ch {
                        c: e,
                        glob: false,
                        brace: false,
                    }),
                }
            } else {
                p.atoms.push(Atom::Ch {
                    c,
                    glob: true,
                    brace: true,
                });
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
        let split = !quoted && !assignment;
        // A `-c` string's operands: known, but a program named through one is not a program
        // the line names (`line`), as for a variable the line sets.
        let positional = scope.positional.as_deref().and_then(|params| match name {
            // `"$@"` and `$*` are the one parameter there is, as `$1` would be.
            "@" | "*" if params.len() == 2 => Some(Var::Known {
                value: params[1].clone(),
                line: true,
                exported: false,
            }),
            "#" => Some(Var::Known {
                value: (params.len() - 1).to_string(),
                line: true,
                exported: false,
            }),
            _ if name.chars().all(|c| c.is_ascii_digit()) => Some(
                match name.parse::<usize>().ok().and_then(|k| params.get(k)) {
                    Some(value) => Var::Known {
                        value: value.clone(),
                        line: true,
                        exported: false,
                    },
                    None => Var::Unset,
                },
            ),
            _ => None,
        });
        if !valid && positional.is_none() {
            p.fail(
                span,
                format!("`${name}`, a special parameter"),
                unknown(None, split),
            );
            return;
        }
        match positional.unwrap_or_else(|| self.lookup(name, scope)) {
            Var::Known { value, line, .. } => {
                p.line_var |= line;
                if !split {
                    p.quoted_text(&value);
                    return;
                }
                // Unquoted, the value is split at blanks (the line cannot have set `IFS`:
                // that makes it dynamic) and its glob characters match files.
                for c in value.chars() {
                    if matches!(c, ' ' | '\t' | '\n') {
                        p.atoms.push(Atom::Split);
                    } else {
                        p.atoms.push(Atom::Ch {
                            c,
                            glob: true,
                            brace: false,
                        });
                    }
                }
            }
            Var::Unset => {}
            Var::Unknown { .. } => p.fail(
                span,
                format!("`${name}`, a variable not known before the line runs"),
                unknown(Some(name), split),
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

    /// `${NAME}`, `${NAME:-word}` and kin, `${NAME:?message}`; any other operation is
    /// dynamic.
    fn expansion(
        &mut self,
        node: Node,
        scope: &mut Scope,
        quoted: bool,
        assignment: bool,
        p: &mut Pieces,
    ) {
        let span = self.span(node);
        let split = !quoted && !assignment;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        // `${`, NAME, then either `}` or an operator, its word parts, `}`.
        let inner: Vec<Node> = children
            .iter()
            .copied()
            .filter(|n| !matches!(self.text(*n), "${" | "}"))
            .collect();
        p.any = true;
        let Some((name, rest)) = inner.split_first() else {
            p.fail(span, "an empty `${}`", unknown(None, split));
            return;
        };
        if name.kind() != "variable_name" {
            // What it cannot compute may still run commands (`${x/a/$(./x.sh)}`).
            let mut copy = scope.clone();
            self.substitutions(node, &mut copy);
            p.fail(
                span,
                "a `${…}` operation this model does not compute",
                unknown(None, split),
            );
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
        let var = self.lookup(&name, scope);
        if matches!(op.as_str(), ":?" | "?") {
            // The value, or the shell stops with the message: the message's substitutions
            // may run.
            let mut copy = scope.clone();
            self.substitutions(node, &mut copy);
            match var {
                Var::Known { ref value, .. } if !(op == ":?" && value.is_empty()) => {
                    self.variable(&name, span, scope, quoted, assignment, p);
                }
                Var::Unknown { .. } => {
                    self.variable(&name, span, scope, quoted, assignment, p);
                }
                _ => p.fail(
                    span,
                    format!("`${{{name}{op}}}` of a variable unset, which stops the shell"),
                    unknown(None, split),
                ),
            }
            return;
        }
        if !matches!(op.as_str(), ":-" | "-" | ":=" | "=" | ":+" | "+") {
            // What it cannot compute may still run commands (`${x/a/$(./x.sh)}`).
            let mut copy = scope.clone();
            self.substitutions(node, &mut copy);
            p.fail(
                span,
                "a `${…}` operation this model does not compute",
                unknown(None, split),
            );
            return;
        }
        let colon = op.starts_with(':');
        let set = match &var {
            Var::Known { value, .. } => !(colon && value.is_empty()),
            Var::Unset => false,
            Var::Unknown { .. } => {
                let mut copy = scope.clone();
                self.substitutions(node, &mut copy);
                p.fail(
                    span,
                    format!("`${name}`, a variable not known before the line runs"),
                    unknown(None, split),
                );
                return;
            }
        };
        let alternative = op.ends_with('+');
        let use_word = if alternative { set } else { !set };
        if !use_word {
            if !alternative {
                self.variable(&name, span, scope, quoted, assignment, p);
            }
            return;
        }
        // The word: evaluated in place, with the quoting of the expansion; the shell neither
        // expands its braces nor, when it is written unquoted, leaves its blanks unsplit.
        let mut word = Pieces::default();
        for part in value {
            self.piece(*part, scope, quoted, assignment, false, &mut word);
        }
        if word.dynamic.is_none() && split {
            let text = word.text();
            if word
                .atoms
                .iter()
                .any(|a| matches!(a, Atom::Ch { c, glob: true, .. } if GLOB.contains(c)))
            {
                word.fail(
                    span.clone(),
                    "a glob, matched against files when the line runs",
                    unknown(None, true),
                );
            } else if text.contains([' ', '\t', '\n']) {
                word.fail(
                    span.clone(),
                    "a default split into words when the line runs",
                    unknown(None, true),
                );
            }
        }
        if let Some(d) = word.dynamic {
            p.dynamic.get_or_insert(d);
            p.atoms.push(Atom::Gap(unknown(None, split)));
            return;
        }
        if op.ends_with('=') {
            self.setting(&name, span.clone());
            scope.assign(&name, Some(word.text()), true);
        }
        p.quoted |= word.quoted;
        p.line_var |= word.line_var;
        // A default's characters never start a brace expansion.
        p.atoms.extend(word.atoms.into_iter().map(|a| match a {
            Atom::Ch { c, glob, .. } => Atom::Ch {
                c,
                glob,
                brace: false,
            },
            other => other,
        }));
    }
}

/// What is known of a dynamic word's atoms: text, glob patterns (when `globs`: the word is
/// matched against files), unknown values.
fn parts_of(atoms: &[Atom], globs: bool) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let mut i = 0;
    while i < atoms.len() {
        match &atoms[i] {
            Atom::Ch { c, glob, .. } if globs && *glob && GLOB.contains(c) => {
                let mut pattern = c.to_string();
                if *c == '[' {
                    // A class runs to the next `]` that is not its first character.
                    let close =
                        (i + 2..atoms.len()).find(|&k| matches!(atoms[k], Atom::Ch { c: ']', .. }));
                    if let Some(close) = close {
                        pattern = text_of(&atoms[i..=close]);
                        i = close;
                    }
                }
                parts.push(Part::Glob(pattern));
            }
            Atom::Ch { c, .. } => match parts.last_mut() {
                Some(Part::Text(t)) => t.push(*c),
                _ => parts.push(Part::Text(c.to_string())),
            },
            Atom::Gap(part) => parts.push(part.clone()),
            Atom::Split => {}
        }
        i += 1;
    }
    parts
}

/// `true` when the atoms hold a brace expansion: a `{` and a `}` that take part in one, with a
/// `,` or `..` between.
fn braces(atoms: &[Atom]) -> bool {
    let active = |a: &Atom, ch: char| matches!(a, Atom::Ch { c, brace: true, .. } if *c == ch);
    let Some(open) = atoms.iter().position(|a| active(a, '{')) else {
        return false;
    };
    let Some(close) = atoms[open..].iter().rposition(|a| active(a, '}')) else {
        return false;
    };
    let inside = &atoms[open + 1..open + close];
    inside.iter().any(|a| active(a, ',')) || text_of(inside).contains("..")
}

/// Bash's brace expansion of `atoms`: the words it becomes, in order; `None` past `budget`
/// words. A `{…}` with no `,` at its level and no sequence is left as it is, and the search
/// goes on after its `{` (`{a}{b,c}` is `{a}b {a}c`).
fn brace_expand(atoms: &[Atom], budget: &mut usize) -> Option<Vec<Vec<Atom>>> {
    let active = |a: &Atom, ch: char| matches!(a, Atom::Ch { c, brace: true, .. } if *c == ch);
    let mut from = 0;
    while let Some(offset) = atoms[from..].iter().position(|a| active(a, '{')) {
        let open = from + offset;
        // The matching `}`, and the `,` at this level.
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut close = None;
        for (k, a) in atoms.iter().enumerate().skip(open + 1) {
            if active(a, '{') {
                depth += 1;
            } else if active(a, '}') {
                if depth == 0 {
                    close = Some(k);
                    break;
                }
                depth -= 1;
            } else if depth == 0 && active(a, ',') {
                commas.push(k);
            }
        }
        let Some(close) = close else {
            return Some(vec![atoms.to_vec()]);
        };
        let alternatives: Vec<Vec<Atom>> = if commas.is_empty() {
            match sequence(&atoms[open + 1..close]) {
                Some(items) => items
                    .into_iter()
                    .map(|s| {
                        s.chars()
                            .map(|c| Atom::Ch {
                                c,
                                glob: false,
                                brace: false,
                            })
                            .collect()
                    })
                    .collect(),
                None => {
                    from = open + 1;
                    continue;
                }
            }
        } else {
            let mut bounds = vec![open];
            bounds.extend(&commas);
            bounds.push(close);
            bounds
                .windows(2)
                .map(|w| atoms[w[0] + 1..w[1]].to_vec())
                .collect()
        };
        let preamble = &atoms[..open];
        let tails = brace_expand(&atoms[close + 1..], budget)?;
        let mut out = Vec::new();
        for alternative in alternatives {
            for middle in brace_expand(&alternative, budget)? {
                for tail in &tails {
                    *budget = budget.checked_sub(1)?;
                    let mut word = preamble.to_vec();
                    word.extend(middle.iter().cloned());
                    word.extend(tail.iter().cloned());
                    out.push(word);
                }
            }
        }
        return Some(out);
    }
    Some(vec![atoms.to_vec()])
}

/// A sequence expression's words: `1..3`, `01..10..3`, `a..e`; `None` when the text is not
/// one.
fn sequence(inside: &[Atom]) -> Option<Vec<String>> {
    if inside.iter().any(|a| !matches!(a, Atom::Ch { .. })) {
        return None;
    }
    let text = text_of(inside);
    let parts: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [a, b] => (*a, *b, None),
        [a, b, c] => (*a, *b, Some(*c)),
        _ => return None,
    };
    let step: i64 = match step {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let letter = |s: &str| {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => Some(c),
            _ => None,
        }
    };
    if let (Some(a), Some(b)) = (letter(from), letter(to)) {
        let (a, b) = (a as i64, b as i64);
        let items = stepped(a, b, step)?;
        return Some(
            items
                .into_iter()
                .filter_map(|n| char::from_u32(n as u32).map(String::from))
                .collect(),
        );
    }
    let a: i64 = from.parse().ok()?;
    let b: i64 = to.parse().ok()?;
    let padded =
        |s: &str| s.trim_start_matches('-').len() > 1 && s.trim_start_matches('-').starts_with('0');
    let width = if padded(from) || padded(to) {
        from.len().max(to.len())
    } else {
        0
    };
    Some(
        stepped(a, b, step)?
            .into_iter()
            .map(|n| {
                if n < 0 {
                    format!("-{:0>w$}", -n, w = width.saturating_sub(1))
                } else {
                    format!("{n:0>width$}")
                }
            })
            .collect(),
    )
}

/// `a`, `a ± step`, … up to `b`; `None` past [`MAX_BRACE_WORDS`].
fn stepped(a: i64, b: i64, step: i64) -> Option<Vec<i64>> {
    let count = (a.abs_diff(b) / step.unsigned_abs()) as usize + 1;
    if count > MAX_BRACE_WORDS {
        return None;
    }
    let dir = if b >= a { step } else { -step };
    Some((0..count as i64).map(|k| a + k * dir).collect())
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
