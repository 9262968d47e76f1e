//! The walk over tree-sitter-bash's tree that builds a [`Line`]: statements, lists, pipelines,
//! subshells, branches and loops; simple commands with their wrappers, shells and
//! interpreters; `cd`, assignments, `source`, `eval` and `trap`.
//!
//! # The rules it keeps
//!
//! - A subshell, each part of a pipeline, a command substitution and a command run with `&`
//!   get a copy of the scope (directory and variables): a `cd` or an assignment inside does not
//!   reach the commands after it.
//! - A branch (the right of `&&`/`||`, the arms of `if` and `case`, loop and function bodies) is
//!   walked in a copy too, and afterwards a directory or a variable it changed is unknown.
//! - A nested line (a shell's `-c` string, a here-document or here-string fed to a shell,
//!   `trap`'s action) is parsed again, with the same rules, in a child scope that keeps only the
//!   exported variables.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

use tree_sitter::{Node, Parser};

use crate::table::{self, is_builtin};
use crate::{Command, Context, Dynamic, Line, Redirect, RedirectKind, Script, Shell, Word};

/// How deep lines may nest in each other (`sh -c "sh -c '…'"`) before the rest is dynamic.
const MAX_DEPTH: usize = 8;

/// How deep the walk may go into the tree of a line and the lines nested in it (`$( $( … ) )`,
/// `( ( … ) )`, `{ { …; }; }`) before the rest is dynamic: the walk recurses, and a line nested
/// a few thousand times would overflow the stack of the process reading it.
const MAX_LEVEL: usize = 128;

pub(crate) fn parse(line: &str, shell: Shell, cx: &Context) -> Line {
    let mut out = Line {
        commands: Vec::new(),
        redirects: Vec::new(),
        dynamic: Vec::new(),
    };
    let vars = cx
        .vars
        .iter()
        .map(|(k, v)| {
            let var = Var::Known {
                value: v.clone(),
                line: false,
                exported: true,
            };
            (k.clone(), var)
        })
        .collect();
    let mut vars: BTreeMap<String, Var> = vars;
    // The shell's `OLDPWD` at start is not the caller's to know (bash drops one that names no
    // directory); the line's own `cd` sets it.
    vars.insert("OLDPWD".to_owned(), Var::Unknown { exported: true });
    let mut scope = Scope {
        dir: Some(cx.dir.clone()),
        vars,
        conditional: false,
        functions: Vec::new(),
    };
    let mut seen = HashSet::new();
    let mut walker = Walker {
        src: line,
        shell,
        complete: cx.complete,
        out: &mut out,
        span_fix: None,
        depth: 0,
        level: 0,
        seen: &mut seen,
    };
    walker.source(&mut scope);
    out
}

/// A variable as the model knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Var {
    /// Its value; `line` when the line assigned it, `exported` when a child process sees it.
    Known {
        value: String,
        line: bool,
        exported: bool,
    },
    /// Set to something only known when the line runs.
    Unknown { exported: bool },
    /// Unset.
    Unset,
}

/// What the shell knows at a point of the line.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub(crate) dir: Option<PathBuf>,
    pub(crate) vars: BTreeMap<String, Var>,
    pub(crate) conditional: bool,
    functions: Vec<String>,
}

impl Scope {
    /// A copy for a branch: what runs in it is conditional.
    fn branch(&self) -> Scope {
        Scope {
            conditional: true,
            ..self.clone()
        }
    }

    /// After a branch walked in `other`: what it changed is unknown from here.
    fn merge(&mut self, other: Scope) {
        if other.dir != self.dir {
            self.dir = None;
        }
        for (name, var) in other.vars {
            if self.vars.get(&name) != Some(&var) {
                self.vars.insert(name, Var::Unknown { exported: true });
            }
        }
        for f in other.functions {
            if !self.functions.contains(&f) {
                self.functions.push(f);
            }
        }
    }

    /// The scope of a child process: the exported variables only.
    fn child(&self) -> Scope {
        let vars = self
            .vars
            .iter()
            .filter(|(_, v)| match v {
                Var::Known { exported, .. } | Var::Unknown { exported } => *exported,
                Var::Unset => true,
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Scope {
            dir: self.dir.clone(),
            vars,
            conditional: self.conditional,
            functions: Vec::new(),
        }
    }

    pub(crate) fn assign(&mut self, name: &str, value: Option<String>, line: bool) {
        let exported = match self.vars.get(name) {
            Some(Var::Known { exported, .. } | Var::Unknown { exported }) => *exported,
            _ => false,
        };
        let var = match value {
            Some(value) => Var::Known {
                value,
                line,
                exported,
            },
            None => Var::Unknown { exported },
        };
        self.vars.insert(name.to_owned(), var);
    }
}

/// Where a command's standard input comes from, for a shell or interpreter that would read its
/// program from it.
#[derive(Debug, Clone)]
pub(crate) enum Stdin {
    Inherited,
    Pipe,
    Text(Word),
    File(Word),
}

pub(crate) struct Walker<'a> {
    pub(crate) src: &'a str,
    pub(crate) shell: Shell,
    pub(crate) complete: bool,
    pub(crate) out: &'a mut Line,
    /// For a nested line: the span, in the outer line, of the word that holds it.
    pub(crate) span_fix: Option<Range<usize>>,
    depth: usize,
    /// How deep the walk is now, nested lines included (see [`MAX_LEVEL`]).
    level: usize,
    /// The dynamic parts said so far (a line may hold tens of thousands).
    seen: &'a mut HashSet<Dynamic>,
}

impl Walker<'_> {
    pub(crate) fn span(&self, node: Node) -> Range<usize> {
        self.span_fix.clone().unwrap_or(node.byte_range())
    }

    pub(crate) fn text(&self, node: Node) -> &str {
        &self.src[node.byte_range()]
    }

    pub(crate) fn dynamic(&mut self, span: Range<usize>, why: impl Into<String>) -> Dynamic {
        let d = Dynamic {
            span,
            why: why.into(),
        };
        if self.seen.insert(d.clone()) {
            self.out.dynamic.push(d.clone());
        }
        d
    }

    /// Notes that the line sets the variable `name` at `span`: when it is one whose value
    /// decides what runs or what a program loads (`PATH`, `BASH_ENV`, `NODE_OPTIONS`, …), what
    /// runs after it is not what the line names.
    pub(crate) fn setting(&mut self, name: &str, span: Range<usize>) {
        if table::changes_what_runs(name) {
            self.dynamic(
                span,
                format!("sets `{name}`, which decides what the commands after it run or load"),
            );
        }
    }

    fn source(&mut self, scope: &mut Scope) {
        let mut parser = Parser::new();
        if parser
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .is_err()
        {
            let span = 0..self.src.len();
            self.dynamic(span, "the bash grammar could not be loaded");
            return;
        }
        if let Some(at) = continued_word(self.src) {
            // bash joins `./x\<newline>.sh` into one word; the grammar splits it in two.
            let span = self.span_fix.clone().unwrap_or(at..at + 2);
            self.dynamic(
                span,
                "a word continued on the next line, which the grammar splits and the shell \
                 joins",
            );
        }
        if let Some(at) = self.src.find('\r') {
            // bash reads a carriage return as a character of a word; the grammar reads it as
            // a blank, and `\` before CR LF as a line continued.
            let span = self.span_fix.clone().unwrap_or(at..at + 1);
            self.dynamic(
                span,
                "a carriage return, which the shell reads as part of a word and the grammar as \
                 a blank",
            );
        }
        let Some(tree) = parser.parse(self.src, None) else {
            let span = 0..self.src.len();
            self.dynamic(span, "the line could not be parsed");
            return;
        };
        self.statement(tree.root_node(), scope, &Stdin::Inherited);
    }

    /// Parses `text` as a line of its own, run by `shell` in `scope`.
    fn nested(&mut self, text: &str, shell: Shell, scope: &mut Scope, span: Range<usize>) {
        if self.depth >= MAX_DEPTH {
            self.dynamic(span, "lines nested too deeply to follow");
            return;
        }
        let mut inner = Walker {
            src: text,
            shell,
            complete: self.complete,
            out: &mut *self.out,
            span_fix: Some(span),
            depth: self.depth + 1,
            level: self.level,
            seen: &mut *self.seen,
        };
        inner.source(scope);
    }

    /// The statements of a sequence, in order; one followed by `&` runs in a copy of the scope.
    fn sequence(&mut self, node: Node, scope: &mut Scope) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            let background = child.next_sibling().is_some_and(|s| s.kind() == "&");
            if background {
                let mut copy = scope.clone();
                self.statement(child, &mut copy, &Stdin::Inherited);
            } else {
                self.statement(child, scope, &Stdin::Inherited);
            }
        }
    }

    /// Enters a level of the walk at `node`, or, past [`MAX_LEVEL`], says it is too deep and
    /// refuses (the caller walks no further).
    pub(crate) fn enter(&mut self, node: Node) -> bool {
        if self.level >= MAX_LEVEL {
            let span = self.span(node);
            self.dynamic(span, "parts nested too deeply to follow");
            return false;
        }
        self.level += 1;
        true
    }

    pub(crate) fn leave(&mut self) {
        self.level -= 1;
    }

    pub(crate) fn statement(&mut self, node: Node, scope: &mut Scope, stdin: &Stdin) {
        if self.enter(node) {
            self.statement_in(node, scope, stdin);
            self.leave();
        }
    }

    fn statement_in(&mut self, node: Node, scope: &mut Scope, stdin: &Stdin) {
        match node.kind() {
            "program" | "compound_statement" => self.sequence(node, scope),
            "comment" | "heredoc_body" | "heredoc_start" | "heredoc_end" => {}
            "subshell" => {
                let mut copy = scope.clone();
                self.sequence(node, &mut copy);
            }
            "list" => self.list(node, scope, stdin, Vec::new()),
            "pipeline" => self.pipeline(node, scope, stdin, Vec::new()),
            "negated_command" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    self.statement(part, scope, stdin);
                }
            }
            "redirected_statement" => self.redirected(node, scope, stdin),
            "command" => self.command(node, scope, stdin, Vec::new()),
            "variable_assignment" => self.assignment(node, scope, false),
            "variable_assignments" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    self.assignment(part, scope, false);
                }
            }
            "declaration_command" => self.declaration(node, scope),
            "unset_command" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    if matches!(part.kind(), "variable_name" | "word") {
                        let name = self.text(part).to_owned();
                        if !name.starts_with('-') {
                            let span = self.span(part);
                            self.setting(&name, span);
                            scope.vars.insert(name, Var::Unset);
                        }
                    }
                }
            }
            "if_statement" | "while_statement" | "until_statement" => {
                let mut cursor = node.walk();
                let parts: Vec<(Option<&str>, Node)> = node
                    .children(&mut cursor)
                    .enumerate()
                    .map(|(i, n)| (node.field_name_for_child(i as u32), n))
                    .filter(|(_, n)| n.is_named())
                    .collect();
                let mut arm = scope.branch();
                for (field, part) in parts {
                    if field == Some("condition") && node.kind() == "if_statement" {
                        // The condition runs first: the branch starts where it left off
                        // (`if cd sub; then ./x.sh; fi` runs `sub/x.sh`).
                        self.statement(part, scope, stdin);
                        arm = scope.branch();
                    } else if field == Some("condition") {
                        // A loop's condition runs at least once.
                        self.statement(part, scope, stdin);
                        arm = scope.branch();
                    } else if matches!(part.kind(), "elif_clause" | "else_clause") {
                        let mut other = scope.branch();
                        self.sequence(part, &mut other);
                        scope.merge(other);
                    } else if part.kind() == "do_group" {
                        self.sequence(part, &mut arm);
                    } else {
                        self.statement(part, &mut arm, stdin);
                    }
                }
                scope.merge(arm);
            }
            "for_statement" | "select_statement" => {
                let mut cursor = node.walk();
                let parts: Vec<(Option<&str>, Node)> = node
                    .children(&mut cursor)
                    .enumerate()
                    .map(|(i, n)| (node.field_name_for_child(i as u32), n))
                    .filter(|(_, n)| n.is_named())
                    .collect();
                let mut body = scope.branch();
                for (field, part) in parts {
                    match field {
                        Some("variable") => {
                            let name = self.text(part).to_owned();
                            let span = self.span(part);
                            self.setting(&name, span);
                            body.assign(&name, None, true);
                            scope.assign(&name, None, true);
                        }
                        Some("value") => {
                            self.word(part, scope);
                        }
                        _ if part.kind() == "do_group" => self.sequence(part, &mut body),
                        _ => self.statement(part, &mut body, stdin),
                    }
                }
                scope.merge(body);
            }
            "case_statement" => {
                let mut cursor = node.walk();
                let parts: Vec<(Option<&str>, Node)> = node
                    .children(&mut cursor)
                    .enumerate()
                    .map(|(i, n)| (node.field_name_for_child(i as u32), n))
                    .filter(|(_, n)| n.is_named())
                    .collect();
                for (field, part) in parts {
                    if field == Some("value") {
                        self.word(part, scope);
                    } else if part.kind() == "case_item" {
                        let mut arm = scope.branch();
                        let mut c = part.walk();
                        let items: Vec<(Option<&str>, Node)> = part
                            .children(&mut c)
                            .enumerate()
                            .map(|(i, n)| (part.field_name_for_child(i as u32), n))
                            .filter(|(_, n)| n.is_named())
                            .collect();
                        for (f, item) in items {
                            if f != Some("value") {
                                self.statement(item, &mut arm, stdin);
                            }
                        }
                        scope.merge(arm);
                    }
                }
            }
            "function_definition" => {
                if let Some(name) = node.child_by_field_name("name") {
                    let name = self.text(name).to_owned();
                    scope.functions.push(name);
                }
                if let Some(body) = node.child_by_field_name("body") {
                    let mut copy = scope.branch();
                    self.statement(body, &mut copy, stdin);
                    scope.merge(copy);
                }
            }
            "do_group" => {
                let mut copy = scope.branch();
                self.sequence(node, &mut copy);
                scope.merge(copy);
            }
            "test_command" => {
                let mut copy = scope.branch();
                self.test_words(node, &mut copy);
                scope.merge(copy);
            }
            "c_style_for_statement" | "arithmetic_expansion" => {
                let mut copy = scope.branch();
                self.substitutions(node, &mut copy);
                if node.kind() == "c_style_for_statement"
                    && let Some(body) = node.child_by_field_name("body")
                {
                    self.statement(body, &mut copy, stdin);
                }
                scope.merge(copy);
            }
            "ERROR" => {
                let span = self.span(node);
                self.dynamic(span, "the line does not parse here");
                let mut copy = scope.branch();
                self.sequence(node, &mut copy);
                scope.merge(copy);
            }
            kind if !node.is_named() => {
                let _ = kind;
            }
            kind => {
                let span = self.span(node);
                self.dynamic(span, format!("`{kind}` is not read by this model"));
                let mut copy = scope.branch();
                self.substitutions(node, &mut copy);
                scope.merge(copy);
            }
        }
        if node.is_missing() {
            let span = self.span(node);
            self.dynamic(span, "the line is incomplete here");
        }
    }

    /// The words of a `[[ … ]]` or `(( … ))`, read as words (`[[ 'a[$(x)]' -eq 0 ]]` runs
    /// `x` when bash evaluates the operand as arithmetic), with their substitutions.
    fn test_words(&mut self, node: Node, scope: &mut Scope) {
        if !self.enter(node) {
            return;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "word"
                | "string"
                | "raw_string"
                | "ansi_c_string"
                | "translated_string"
                | "concatenation"
                | "simple_expansion"
                | "expansion"
                | "command_substitution"
                | "process_substitution"
                | "number" => {
                    self.word(child, scope);
                }
                "regex" | "extglob_pattern" | "test_operator" | "variable_name" => {}
                "ERROR" => {
                    let span = self.span(child);
                    self.dynamic(span, "the line does not parse here");
                }
                _ => self.test_words(child, scope),
            }
        }
        self.leave();
    }

    /// Walks the command substitutions found anywhere under `node`.
    pub(crate) fn substitutions(&mut self, node: Node, scope: &mut Scope) {
        if self.enter(node) {
            self.substitutions_in(node, scope);
            self.leave();
        }
    }

    fn substitutions_in(&mut self, node: Node, scope: &mut Scope) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "command_substitution" | "process_substitution" => {
                    if child.kind() == "process_substitution" && self.shell == Shell::Posix {
                        let span = self.span(child);
                        self.dynamic(span, "`<(…)`, which a POSIX sh does not read");
                    }
                    let mut copy = scope.clone();
                    self.sequence(child, &mut copy);
                }
                "ERROR" => {
                    let span = self.span(child);
                    self.dynamic(span, "the line does not parse here");
                }
                _ => self.substitutions(child, scope),
            }
        }
    }

    fn redirected(&mut self, node: Node, scope: &mut Scope, stdin: &Stdin) {
        let body = node.child_by_field_name("body");
        let mut redirects = Vec::new();
        let mut after = Vec::new();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            if Some(child) == body {
                continue;
            }
            if child.kind().ends_with("redirect") {
                redirects.push(child);
                // What a here-document's line continues with (`cat <<EOF | sh`) sits inside it.
                let mut c = child.walk();
                for part in child.named_children(&mut c) {
                    if child.kind() == "heredoc_redirect"
                        && matches!(
                            part.kind(),
                            "pipeline"
                                | "list"
                                | "command"
                                | "redirected_statement"
                                | "subshell"
                                | "compound_statement"
                        )
                    {
                        after.push(part);
                    }
                }
            }
        }
        let mut copy;
        let scope_for_body: &mut Scope = if after.is_empty() {
            scope
        } else {
            copy = scope.clone();
            &mut copy
        };
        match body {
            Some(b) if b.kind() == "pipeline" && !redirects.is_empty() => {
                // `a | b > f`: the redirection is `b`'s, wherever the grammar hangs it.
                self.pipeline(b, scope_for_body, stdin, redirects);
            }
            Some(b) if b.kind() == "list" => {
                // The grammar hangs `a && b > f`'s redirection on the list; the shell on `b`.
                self.list(b, scope_for_body, stdin, redirects);
            }
            Some(b) if b.kind() == "command" => {
                self.command(b, scope_for_body, stdin, redirects);
            }
            Some(b) => {
                let input = self.redirections(&redirects, scope_for_body, stdin);
                self.statement(b, scope_for_body, &input);
            }
            None => {
                self.redirections(&redirects, scope_for_body, stdin);
            }
        }
        for part in after {
            if part.kind() == "pipeline" {
                let mut c = part.walk();
                let cmds: Vec<Node> = part.named_children(&mut c).collect();
                for cmd in cmds {
                    let mut copy = scope.clone();
                    self.statement(cmd, &mut copy, &Stdin::Pipe);
                }
            } else {
                let mut branch = scope.branch();
                self.statement(part, &mut branch, &Stdin::Inherited);
                scope.merge(branch);
            }
        }
    }

    /// `a | b | c`: each part in a copy of the scope, each after the first reading a pipe;
    /// `tail` are redirections of the last part.
    fn pipeline<'t>(
        &mut self,
        node: Node<'t>,
        scope: &mut Scope,
        stdin: &Stdin,
        tail: Vec<Node<'t>>,
    ) {
        let mut cursor = node.walk();
        let parts: Vec<Node> = node.named_children(&mut cursor).collect();
        // The grammar reads `a && b > f | c` as `(a && b > f) | c`; the shell reads
        // `a && (b > f | c)`. A list is never a bare part of a pipeline in the shell's grammar,
        // so its presence here is that misreading.
        let misread = parts.iter().any(|p| {
            p.kind() == "list"
                || (p.kind() == "redirected_statement"
                    && p.child_by_field_name("body")
                        .is_some_and(|b| b.kind() == "list"))
        });
        if misread {
            let span = self.span(node);
            self.dynamic(
                span,
                "a pipeline after `&&` or `||` with a redirection inside, which the grammar \
                 groups differently from the shell",
            );
        }
        let last = parts.len().saturating_sub(1);
        let mut tail = Some(tail);
        for (i, part) in parts.iter().enumerate() {
            let mut copy = scope.clone();
            let input = if i == 0 { stdin.clone() } else { Stdin::Pipe };
            let redirects = if i == last {
                tail.take().unwrap_or_default()
            } else {
                Vec::new()
            };
            match part.kind() {
                _ if redirects.is_empty() => self.statement(*part, &mut copy, &input),
                "command" => self.command(*part, &mut copy, &input, redirects),
                _ => {
                    let input = self.redirections(&redirects, &mut copy, &input);
                    self.statement(*part, &mut copy, &input);
                }
            }
        }
    }

    /// `a && b`, `a || b` (nested to the left: `(a && b) || c`): the first part runs, the
    /// others are branches. `tail` are redirections of the last command.
    fn list<'t>(&mut self, node: Node<'t>, scope: &mut Scope, stdin: &Stdin, tail: Vec<Node<'t>>) {
        let mut cursor = node.walk();
        let parts: Vec<Node> = node.named_children(&mut cursor).collect();
        let Some((last, rest)) = parts.split_last() else {
            return;
        };
        for (i, part) in rest.iter().enumerate() {
            if i == 0 {
                self.statement(*part, scope, stdin);
            } else {
                let mut branch = scope.branch();
                self.statement(*part, &mut branch, stdin);
                scope.merge(branch);
            }
        }
        let mut branch = if rest.is_empty() {
            scope.clone()
        } else {
            scope.branch()
        };
        match last.kind() {
            _ if tail.is_empty() => self.statement(*last, &mut branch, stdin),
            "command" => self.command(*last, &mut branch, stdin, tail),
            "list" => self.list(*last, &mut branch, stdin, tail),
            _ => {
                let input = self.redirections(&tail, &mut branch, stdin);
                self.statement(*last, &mut branch, &input);
            }
        }
        if rest.is_empty() {
            *scope = branch;
        } else {
            scope.merge(branch);
        }
    }

    /// Records `redirects`, and says where standard input then comes from.
    fn redirections(&mut self, redirects: &[Node], scope: &mut Scope, stdin: &Stdin) -> Stdin {
        let mut input = stdin.clone();
        for node in redirects {
            let span = self.span(*node);
            let (kind, target) = match node.kind() {
                "file_redirect" => {
                    let op = {
                        let mut c = node.walk();
                        node.children(&mut c)
                            .find(|n| !n.is_named())
                            .map(|n| self.text(n).to_owned())
                            .unwrap_or_default()
                    };
                    let dest = node.child_by_field_name("destination");
                    let target = match dest {
                        Some(d) => self.word(d, scope).word,
                        None => Word::Static(String::new()),
                    };
                    let duplicate = matches!(op.as_str(), ">&" | "<&" | ">&-" | "<&-")
                        && target
                            .as_static()
                            .is_some_and(|t| t == "-" || t.chars().all(|c| c.is_ascii_digit()));
                    let kind = match op.as_str() {
                        _ if duplicate => RedirectKind::Duplicate,
                        ">&-" | "<&-" => RedirectKind::Duplicate,
                        "<" => RedirectKind::Read,
                        "<&" => RedirectKind::Read,
                        ">>" | "&>>" => RedirectKind::Append,
                        "<>" => RedirectKind::ReadWrite,
                        _ => RedirectKind::Write,
                    };
                    if self.shell == Shell::Posix && op.starts_with("&>") {
                        self.dynamic(
                            span.clone(),
                            "`&>`, which a POSIX sh reads as `&` (run in the background) then `>`",
                        );
                    }
                    let fd = node
                        .child_by_field_name("descriptor")
                        .map(|d| self.text(d).to_owned());
                    if kind == RedirectKind::Read && fd.as_deref().is_none_or(|fd| fd == "0") {
                        input = Stdin::File(target.clone());
                    }
                    (kind, target)
                }
                "heredoc_redirect" => {
                    let target = self.heredoc(*node, scope);
                    input = Stdin::Text(target.clone());
                    (RedirectKind::HereDocument, target)
                }
                "herestring_redirect" if self.shell == Shell::Posix => {
                    let d = self.dynamic(span.clone(), "`<<<`, which a POSIX sh does not read");
                    input = Stdin::Text(Word::Dynamic(d.clone()));
                    (RedirectKind::HereString, Word::Dynamic(d))
                }
                "herestring_redirect" => {
                    let mut c = node.walk();
                    let value = node.named_children(&mut c).last();
                    let target = match value {
                        Some(v) => self.word(v, scope).word,
                        None => Word::Static(String::new()),
                    };
                    let target = match target {
                        Word::Static(s) => Word::Static(format!("{s}\n")),
                        d => d,
                    };
                    input = Stdin::Text(target.clone());
                    (RedirectKind::HereString, target)
                }
                other => {
                    let d =
                        self.dynamic(span.clone(), format!("`{other}` is not read by this model"));
                    (RedirectKind::Write, Word::Dynamic(d))
                }
            };
            self.out.redirects.push(Redirect {
                kind,
                target,
                dir: scope.dir.clone(),
                span,
            });
        }
        input
    }

    /// A here-document's body: static when its delimiter is quoted or it holds no expansion.
    fn heredoc(&mut self, node: Node, scope: &mut Scope) -> Word {
        let mut c = node.walk();
        let parts: Vec<Node> = node.named_children(&mut c).collect();
        let quoted = parts
            .iter()
            .find(|p| p.kind() == "heredoc_start")
            .is_some_and(|s| self.text(*s).contains(['\'', '"', '\\']));
        let Some(body) = parts.iter().find(|p| p.kind() == "heredoc_body") else {
            return Word::Static(String::new());
        };
        let text = self.text(*body).to_owned();
        if quoted || !text.contains(['$', '`', '\\']) {
            return Word::Static(text);
        }
        let mut copy = scope.clone();
        self.substitutions(*body, &mut copy);
        let span = self.span(*body);
        Word::Dynamic(Dynamic {
            span,
            why: "a here-document with expansions, expanded when the line runs".into(),
        })
    }

    fn assignment(&mut self, node: Node, scope: &mut Scope, export: bool) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        self.subscript(name, scope);
        let name = self.text(name).to_owned();
        let span = self.span(node);
        self.setting(&name, span);
        let value = match node.child_by_field_name("value") {
            Some(v) => self.assignment_value(v, scope),
            None => Some(String::new()),
        };
        scope.assign(&name, value, true);
        if export
            && let Some(Var::Known { exported, .. } | Var::Unknown { exported }) =
                scope.vars.get_mut(&name)
        {
            *exported = true;
        }
    }

    /// The index of an assigned array element (`a[$(x)]=1`), when `name` is one: expanded
    /// like a word, its substitutions walked (bash runs them, then evaluates the index as
    /// arithmetic).
    fn subscript(&mut self, name: Node, scope: &mut Scope) {
        if name.kind() == "subscript"
            && let Some(index) = name.child_by_field_name("index")
        {
            self.word(index, scope);
        }
    }

    /// An assignment's value: expanded like a word, but never split nor globbed.
    fn assignment_value(&mut self, node: Node, scope: &mut Scope) -> Option<String> {
        let value = self.word_in(node, scope, true);
        match value.word {
            Word::Static(s) => Some(s),
            Word::Dynamic(_) => None,
        }
    }

    fn declaration(&mut self, node: Node, scope: &mut Scope) {
        let export = node.child(0).is_some_and(|k| self.text(k) == "export");
        let mut cursor = node.walk();
        let parts: Vec<Node> = node.named_children(&mut cursor).collect();
        for part in parts {
            match part.kind() {
                "variable_assignment" => self.assignment(part, scope, export),
                "variable_name" if !export => {
                    // `declare PATH`, `local PATH`: declared, and unset in a function.
                    let name = self.text(part).to_owned();
                    let span = self.span(part);
                    self.setting(&name, span);
                }
                "variable_name" => {
                    let name = self.text(part).to_owned();
                    if let Some(Var::Known { exported, .. } | Var::Unknown { exported }) =
                        scope.vars.get_mut(&name)
                    {
                        *exported = true;
                    }
                }
                _ => {
                    self.word(part, scope);
                }
            }
        }
    }

    fn command<'t>(
        &mut self,
        node: Node<'t>,
        scope: &mut Scope,
        stdin: &Stdin,
        mut redirects: Vec<Node<'t>>,
    ) {
        let span = self.span(node);
        let mut env: Vec<(String, Option<String>)> = Vec::new();
        let mut words: Vec<(Word, Range<usize>, bool)> = Vec::new();
        let mut cursor = node.walk();
        let children: Vec<(Option<&str>, Node)> = node
            .children(&mut cursor)
            .enumerate()
            .map(|(i, n)| (node.field_name_for_child(i as u32), n))
            .filter(|(_, n)| n.is_named())
            .collect();
        for (field, child) in children {
            match (field, child.kind()) {
                (_, "variable_assignment") => {
                    if let Some(name) = child.child_by_field_name("name") {
                        self.subscript(name, scope);
                        let name = self.text(name).to_owned();
                        let span = self.span(child);
                        self.setting(&name, span);
                        let value = match child.child_by_field_name("value") {
                            Some(v) => self.assignment_value(v, scope),
                            None => Some(String::new()),
                        };
                        env.push((name, value));
                    }
                }
                (_, kind) if kind.ends_with("redirect") => redirects.push(child),
                (Some("name"), _) => {
                    let inner = child.named_child(0).unwrap_or(child);
                    let w = self.word(inner, scope);
                    if !w.vanished {
                        words.push((w.word, self.span(child), w.line_var));
                    }
                }
                _ => {
                    let w = self.word(child, scope);
                    if !w.vanished {
                        words.push((w.word, self.span(child), w.line_var));
                    }
                }
            }
        }
        let input = self.redirections(&redirects, scope, stdin);
        if words.is_empty() {
            // Assignments alone set shell variables.
            for (name, value) in env {
                scope.assign(&name, value, true);
            }
            return;
        }
        let mut child = scope.child();
        for (name, value) in env {
            child.assign(&name, value, true);
            if let Some(Var::Known { exported, .. } | Var::Unknown { exported }) =
                child.vars.get_mut(&name)
            {
                *exported = true;
            }
        }
        self.run(&words, span, scope, &mut child, &input, Vec::new());
    }

    /// A simple command of `words` (the program first): records it and what it runs.
    fn run(
        &mut self,
        words: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
        wrappers: Vec<String>,
    ) {
        let Some(((program, program_span, program_line_var), rest)) = words.split_first() else {
            return;
        };
        let args: Vec<Word> = rest.iter().map(|(w, _, _)| w.clone()).collect();
        let mut command = Command {
            program: program.clone(),
            args: args.clone(),
            dir: scope.dir.clone(),
            shell: self.shell,
            wrappers: wrappers.clone(),
            scripts: Vec::new(),
            conditional: scope.conditional,
            span: span.clone(),
        };
        let name = match program {
            Word::Dynamic(d) => {
                let why = format!("the program is computed when the line runs ({})", d.why);
                self.dynamic(d.span.clone(), why);
                self.out.commands.push(command);
                return;
            }
            Word::Static(name) => name.clone(),
        };
        if *program_line_var {
            self.dynamic(
                program_span.clone(),
                "the program is named by a variable the line sets",
            );
            self.out.commands.push(command);
            return;
        }
        if name.contains('/') && !name.starts_with('/') && scope.dir.is_none() {
            self.dynamic(
                program_span.clone(),
                "a relative program, from a directory an earlier `cd` makes unknown",
            );
        }
        if name.contains('/') && is_device(scope.dir.as_deref(), &name) {
            self.dynamic(
                program_span.clone(),
                "a program run from a descriptor or a device, which holds what the line puts \
                 there",
            );
        }
        let at = self.out.commands.len();
        self.out.commands.push(command.clone());
        if scope.functions.contains(&name) {
            return;
        }
        let statics: Vec<Option<&str>> = rest.iter().map(|(w, _, _)| w.as_static()).collect();
        let base = crate::base_name(&name).to_owned();

        if let Some(wrapper) = table::wrapper(&name)
            && (!is_builtin(self.shell, &name)
                || matches!(name.as_str(), "command" | "exec" | "time" | "builtin"))
        {
            if base == "coproc"
                && statics
                    .iter()
                    .take(2)
                    .any(|w| w.is_none_or(|w| w == "{" || w.starts_with('(')))
            {
                self.dynamic(
                    span,
                    "`coproc` of a compound command, which the grammar does not read",
                );
                return;
            }
            if base == "flock"
                && statics.iter().any(|w| {
                    w.is_none_or(|w| matches!(w, "-c" | "--command") || w.starts_with("--command="))
                })
            {
                self.dynamic(span, "`flock -c` runs a string given to a shell");
                return;
            }
            let mut i = 0;
            // `env -C DIR`: `Some(None)` when the directory is computed when the line runs.
            let mut chdir: Option<Option<String>> = None;
            while i < rest.len() {
                let Some(word) = statics[i] else { break };
                if word == "--" {
                    i += 1;
                    break;
                }
                if wrapper.runs_nothing.contains(&word) {
                    return;
                }
                if wrapper.assignments && !word.starts_with('-') && word.contains('=') {
                    let (k, v) = word.split_once('=').unwrap_or((word, ""));
                    self.setting(k, rest[i].1.clone());
                    child.assign(k, Some(v.to_owned()), true);
                    if let Some(Var::Known { exported, .. }) = child.vars.get_mut(k) {
                        *exported = true;
                    }
                    i += 1;
                    continue;
                }
                if base == "env" && word == "-" {
                    // `env -` is `env -i`.
                    child.vars.clear();
                    i += 1;
                    continue;
                }
                if !word.starts_with('-') || word == "-" {
                    break;
                }
                if base == "env" && word.starts_with("--split-string") {
                    self.dynamic(rest[i].1.clone(), "`env -S` splits a string into a command");
                    return;
                }
                if base == "env" && word == "--ignore-environment" {
                    child.vars.clear();
                }
                if base == "env" && word.starts_with("--chdir=") {
                    chdir = Some(word.strip_prefix("--chdir=").map(str::to_owned));
                    i += 1;
                    continue;
                }
                if word.starts_with("--") {
                    i += if wrapper.valued.contains(&word) { 2 } else { 1 };
                    if base == "env" && word == "--chdir" {
                        chdir = Some(statics.get(i - 1).copied().flatten().map(str::to_owned));
                    }
                    continue;
                }
                // Short options, alone or clustered (`-n5`, `-la NAME`, `-iCsub`): a valued
                // one takes the rest of the word, or the next word when it ends the word.
                let flags = &word[1..];
                let mut step = 1;
                for (k, flag) in flags.char_indices() {
                    let attached = &flags[k + flag.len_utf8()..];
                    if base == "env" && flag == 'S' {
                        self.dynamic(rest[i].1.clone(), "`env -S` splits a string into a command");
                        return;
                    }
                    if base == "env" && flag == 'i' {
                        child.vars.clear();
                    }
                    if wrapper.valued.contains(&format!("-{flag}").as_str()) {
                        let value = if attached.is_empty() {
                            step = 2;
                            statics.get(i + 1).copied().flatten().map(str::to_owned)
                        } else {
                            Some(attached.to_owned())
                        };
                        if base == "env" && flag == 'C' {
                            chdir = Some(value);
                        }
                        break;
                    }
                }
                i += step;
            }
            i += wrapper.operands;
            if i >= rest.len() {
                return;
            }
            let mut inner_scope = scope.clone();
            match chdir {
                Some(Some(d)) => inner_scope.dir = inner_scope.dir.map(|x| x.join(d)),
                Some(None) => inner_scope.dir = None,
                None => {}
            }
            if base == "xargs" {
                inner_scope.conditional = true;
                // xargs adds the words it reads to the command: a shell's `-c` string or
                // script, an interpreter's script, come from its input.
                let next = statics.get(i).copied().flatten().unwrap_or("");
                if Shell::of_program(next).is_some() || table::interpreter(next).is_some() {
                    self.dynamic(
                        span,
                        format!(
                            "`xargs {next}` runs code or a script xargs reads when the line runs"
                        ),
                    );
                    return;
                }
            }
            let mut wrapped = wrappers;
            wrapped.push(base);
            self.run(&rest[i..], span, &mut inner_scope, child, stdin, wrapped);
            return;
        }

        match name.as_str() {
            "popd" => scope.dir = None,
            "pushd" if self.shell == Shell::Posix => {
                // A builtin of bash only: `sh` may or may not move.
                scope.dir = None;
            }
            "cd" | "pushd" => {
                let options: Vec<&str> = rest
                    .iter()
                    .map_while(|(w, _, _)| {
                        w.as_static().filter(|s| s.starts_with('-') && *s != "-")
                    })
                    .collect();
                let operands: Vec<&(Word, Range<usize>, bool)> =
                    rest.iter().skip(options.len()).collect();
                let before = scope.dir.clone();
                // `-L`, `-P` and `-e` only: `cd -@` enters a file's attributes, `pushd -n`
                // does not move.
                let known = options
                    .iter()
                    .all(|o| o == &"--" || o[1..].chars().all(|c| matches!(c, 'L' | 'P' | 'e')));
                let stays = name == "pushd" && options.iter().any(|o| o[1..].contains('n'));
                scope.dir = match operands.first() {
                    _ if stays => scope.dir.clone(),
                    _ if !known => None,
                    None if name == "pushd" => None,
                    None => match scope.vars.get("HOME") {
                        Some(Var::Known { value, .. }) => Some(PathBuf::from(value)),
                        _ => None,
                    },
                    Some((Word::Static(d), _, _)) if d == "-" => None,
                    Some((Word::Static(d), _, _))
                        if name == "pushd" && (d.starts_with('+') || d.starts_with('-')) =>
                    {
                        None
                    }
                    Some((Word::Static(d), _, _)) => {
                        let plain = d.starts_with('/')
                            || d.starts_with("./")
                            || d.starts_with("../")
                            || d == "."
                            || d == "..";
                        let cdpath = match scope.vars.get("CDPATH") {
                            Some(Var::Known { value, .. }) => !value.is_empty(),
                            Some(Var::Unset) => false,
                            Some(Var::Unknown { .. }) => true,
                            None => !self.complete,
                        };
                        if !plain && cdpath {
                            None
                        } else {
                            // Through `..` the shell's directory depends on links: its `cd`
                            // is logical (`cd link/..` is where `link` is), `cd -P` and a
                            // hook started in a linked directory are physical.
                            let climbs = std::path::Path::new(d)
                                .components()
                                .any(|c| c == std::path::Component::ParentDir);
                            if climbs {
                                None
                            } else {
                                scope.dir.as_ref().map(|dir| dir.join(d))
                            }
                        }
                    }
                    Some((Word::Dynamic(_), _, _)) => None,
                };
                // `cd` sets `OLDPWD` and `PWD`, which `cd "$OLDPWD"` and `"$PWD"/x.sh` read.
                if scope.dir != before {
                    let text = |d: &Option<PathBuf>| d.as_ref().map(|d| d.display().to_string());
                    scope.assign("OLDPWD", text(&before), false);
                    scope.assign("PWD", text(&scope.dir), false);
                }
            }
            // `source` under `sh` too: macOS's `/bin/sh` is bash, where it sources; dash has
            // no `source`, so there it only may run.
            "source" | "." => {
                if !is_builtin(self.shell, &name) {
                    self.out.commands[at].conditional = true;
                }
                if let Some((path, path_span, line_var)) = rest.first() {
                    // dash's `.` takes one operand: the script sees the shell's own `$@`.
                    let args = if self.shell == Shell::Posix {
                        &[][..]
                    } else {
                        &rest[1..]
                    };
                    self.script(at, path, path_span, *line_var, args, true, scope);
                }
            }
            "read" | "mapfile" | "readarray" | "getopts" | "let" | "export" | "declare"
            | "typeset" | "local" | "readonly" => {
                // Builtins that set the variables they name (here when a wrapper runs them:
                // `command export PATH=.`; written plainly they are declarations).
                for (word, s, _) in rest {
                    if let Some(word) = word.as_static() {
                        let var = word.split_once('=').map_or(word, |(n, _)| n);
                        self.setting(var, s.clone());
                    }
                }
            }
            "printf" => {
                let named = rest.windows(2).find_map(|pair| {
                    (pair[0].0.as_static() == Some("-v")).then(|| pair[1].clone())
                });
                if let Some((Word::Static(var), s, _)) = named {
                    self.setting(&var, s);
                }
            }
            "alias"
                if rest
                    .iter()
                    .any(|(w, _, _)| w.as_static().is_none_or(|w| w.contains('='))) =>
            {
                self.dynamic(
                    span,
                    "`alias`, which changes what a later word of the line runs",
                );
            }
            "hash" if rest.iter().any(|(w, _, _)| w.as_static() != Some("-r")) => {
                self.dynamic(span, "`hash`, which can tie a name to any file");
            }
            "enable"
                if rest
                    .iter()
                    .any(|(w, _, _)| w.as_static().is_none_or(|w| w.starts_with("-f"))) =>
            {
                self.dynamic(
                    span,
                    "`enable -f`, which loads a builtin from a shared object",
                );
            }
            "eval" => {
                if !rest.is_empty() {
                    self.dynamic(span, "`eval` runs its arguments as a new line");
                }
            }
            "trap" => {
                // `trap [--] ACTION SIGNAL…`: the action runs at the signal (or on exit).
                let operands: Vec<&(Word, Range<usize>, bool)> = rest
                    .iter()
                    .skip_while(|(w, _, _)| w.as_static() == Some("--"))
                    .collect();
                match operands.first() {
                    Some((Word::Static(action), s, _)) if operands.len() > 1 && action != "-" => {
                        let mut copy = scope.branch();
                        self.nested(&action.clone(), self.shell, &mut copy, s.clone());
                    }
                    Some((Word::Dynamic(_), s, _)) if operands.len() > 1 => {
                        self.dynamic(s.clone(), "`trap`'s action is computed when the line runs");
                    }
                    _ => {}
                }
            }
            "shopt"
                if rest
                    .iter()
                    .any(|(w, _, _)| w.as_static().is_none_or(|w| w == "cdable_vars")) =>
            {
                self.dynamic(
                    span,
                    "`cdable_vars`, which makes `cd NAME` go where a variable says",
                );
            }
            "watch" if !rest.is_empty() => {
                self.dynamic(span, "`watch` runs its arguments as a line of `sh`");
            }
            "script" | "su" | "runuser"
                if rest.iter().any(|(w, _, _)| {
                    w.as_static().is_none_or(|w| {
                        w == "-c"
                            || w.starts_with("--command")
                            || (w.starts_with('-') && !w.starts_with("--") && w.contains('c'))
                    })
                }) =>
            {
                self.dynamic(span, format!("`{base} -c` runs a string given to a shell"));
            }
            "chroot" if !rest.is_empty() => {
                self.dynamic(span, "`chroot` runs its command inside another root");
            }
            "fish" | "csh" | "tcsh" | "nu" | "pwsh" | "xonsh" | "elvish" => {
                self.dynamic(span, format!("`{base}` is not a shell this model reads"));
            }
            "find" => self.find(rest, span, scope, child, stdin, &wrappers),
            _ if Shell::of_program(&name).is_some() => {
                let shell = Shell::of_program(&name).unwrap_or(Shell::Posix);
                self.shell_run(at, shell, rest, span, scope, child, stdin);
            }
            _ => {
                if let Some(interp) = table::interpreter(&name) {
                    self.interpret(at, &interp, rest, span.clone(), scope, stdin);
                    // node and its kin resolve a script named without its extension (`node ./x`
                    // runs `x.js`, or `x/index.js`): the file is not the one named.
                    let resolves =
                        matches!(base.as_str(), "node" | "nodejs" | "tsx" | "ts-node" | "bun");
                    let bare = self.out.commands[at].scripts.iter().any(|s| {
                        s.path.as_static().is_some_and(|p| {
                            !std::path::Path::new(p)
                                .file_name()
                                .is_some_and(|f| f.to_string_lossy().contains('.'))
                        })
                    });
                    if resolves && bare {
                        self.dynamic(
                            span,
                            format!("`{base}` resolves a script named without its extension"),
                        );
                    }
                }
            }
        }
        let _ = &mut command;
    }

    /// `find … -exec CMD … ;`: the command runs, with arguments found at run time.
    fn find(
        &mut self,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
        wrappers: &[String],
    ) {
        let mut i = 0;
        while i < rest.len() {
            let exec = rest[i]
                .0
                .as_static()
                .is_some_and(|w| matches!(w, "-exec" | "-execdir" | "-ok" | "-okdir"));
            if !exec {
                i += 1;
                continue;
            }
            let start = i + 1;
            let mut end = start;
            while end < rest.len()
                && !rest[end]
                    .0
                    .as_static()
                    .is_some_and(|w| w == ";" || w == "+")
            {
                end += 1;
            }
            if rest[start..end]
                .iter()
                .any(|(w, _, _)| w.as_static().is_none_or(|w| w.contains("{}")))
            {
                self.dynamic(
                    rest[start].1.clone(),
                    "`find -exec` runs the files it finds",
                );
            } else if start < end {
                let mut branch = scope.branch();
                let mut wrapped = wrappers.to_vec();
                wrapped.push("find".into());
                self.run(
                    &rest[start..end],
                    span.clone(),
                    &mut branch,
                    child,
                    stdin,
                    wrapped,
                );
            }
            i = end + 1;
        }
    }

    /// A script operand of the command at `at`.
    #[allow(clippy::too_many_arguments)]
    fn script(
        &mut self,
        at: usize,
        path: &Word,
        span: &Range<usize>,
        line_var: bool,
        args: &[(Word, Range<usize>, bool)],
        sourced: bool,
        scope: &Scope,
    ) {
        match path {
            Word::Dynamic(d) => {
                let why = format!("the script is computed when the line runs ({})", d.why);
                self.dynamic(d.span.clone(), why);
            }
            Word::Static(p) if line_var => {
                let _ = p;
                self.dynamic(
                    span.clone(),
                    "the script is named by a variable the line sets",
                );
            }
            Word::Static(p) if !p.starts_with('/') && scope.dir.is_none() => {
                self.dynamic(
                    span.clone(),
                    "a relative script, from a directory an earlier `cd` makes unknown",
                );
            }
            Word::Static(p) if is_device(scope.dir.as_deref(), p) => {
                self.dynamic(
                    span.clone(),
                    "a script read from a descriptor or a device, which holds what the line \
                     puts there",
                );
            }
            Word::Static(_) => {}
        }
        self.out.commands[at].scripts.push(Script {
            path: path.clone(),
            args: args.iter().map(|(w, _, _)| w.clone()).collect(),
            sourced,
        });
    }

    /// A shell run as a program: its options, then `-c STRING`, a script, or standard input.
    #[allow(clippy::too_many_arguments)]
    fn shell_run(
        &mut self,
        at: usize,
        shell: Shell,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
    ) {
        let mut i = 0;
        let mut command_mode = false;
        let mut stdin_mode = false;
        while i < rest.len() {
            let Some(word) = rest[i].0.as_static() else {
                self.dynamic(
                    rest[i].1.clone(),
                    "a shell's option computed when the line runs",
                );
                return;
            };
            if word == "--" || word == "-" {
                i += 1;
                break;
            }
            if let Some(long) = word.strip_prefix("--") {
                if matches!(long, "rcfile" | "init-file") {
                    // Sourced when the shell is interactive (`-i`).
                    if let Some((path, s, line_var)) = rest.get(i + 1) {
                        self.script(at, path, s, *line_var, &[], true, scope);
                    }
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            let Some(flags) = word.strip_prefix('-').or_else(|| word.strip_prefix('+')) else {
                break;
            };
            i += 1;
            for flag in flags.chars() {
                match flag {
                    'c' => command_mode = true,
                    's' => stdin_mode = true,
                    'o' | 'O' => i += 1,
                    _ => {}
                }
            }
        }
        if command_mode {
            match rest.get(i) {
                Some((Word::Static(text), s, line_var)) => {
                    if *line_var {
                        self.dynamic(
                            s.clone(),
                            "the line given to the shell is a variable the line sets",
                        );
                    }
                    let text = text.clone();
                    let s = s.clone();
                    // `$0`, `$1`, … of the nested line are the operands after it.
                    let mut inner = child.clone();
                    // Where the shell starts: after the wrappers' `cd` (`env -C DIR`).
                    inner.dir = scope.dir.clone();
                    self.nested(&text, shell, &mut inner, s);
                }
                Some((Word::Dynamic(d), _, _)) => {
                    let why = format!(
                        "the line given to the shell is computed when it runs ({})",
                        d.why
                    );
                    self.dynamic(d.span.clone(), why);
                }
                None => {}
            }
            return;
        }
        if !stdin_mode && let Some((path, s, line_var)) = rest.get(i) {
            self.script(at, path, s, *line_var, &rest[i + 1..], false, scope);
            return;
        }
        self.stdin_program(at, Some(shell), stdin, span, scope);
    }

    /// A shell or interpreter with no script operand: it runs what its standard input holds.
    fn stdin_program(
        &mut self,
        at: usize,
        shell: Option<Shell>,
        stdin: &Stdin,
        span: Range<usize>,
        scope: &mut Scope,
    ) {
        match stdin {
            Stdin::Text(Word::Static(text)) => {
                if let Some(shell) = shell {
                    let mut inner = scope.child();
                    self.nested(&text.clone(), shell, &mut inner, span);
                }
            }
            Stdin::Text(Word::Dynamic(d)) => {
                let why = format!("runs code computed when the line runs ({})", d.why);
                self.dynamic(d.span.clone(), why);
            }
            Stdin::File(file) => {
                let file = file.clone();
                self.script(at, &file, &span, false, &[], false, scope);
            }
            Stdin::Pipe => {
                self.dynamic(span, "runs the code it reads from a pipe");
            }
            Stdin::Inherited => {
                self.dynamic(span, "runs the code it reads from its standard input");
            }
        }
    }

    /// An interpreter: its options, then its script operand, inline code, or standard input.
    fn interpret(
        &mut self,
        at: usize,
        interp: &table::Interpreter,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        stdin: &Stdin,
    ) {
        let mut i = 0;
        let mut inline = false;
        let mut subcommand = interp.run_subcommand;
        while i < rest.len() {
            let Some(word) = rest[i].0.as_static() else {
                break;
            };
            if word == "--" {
                i += 1;
                break;
            }
            if word == "-" && !inline {
                self.stdin_program(at, None, stdin, span, scope);
                return;
            }
            if subcommand && word == "run" {
                subcommand = false;
                i += 1;
                continue;
            }
            if !word.starts_with('-') {
                break;
            }
            subcommand = false;
            let long = word.starts_with("--");
            // `--opt=value`, or a short option with its cluster (`-Bm mod`, `-Mmod`, `-le CODE`):
            // each flag of a cluster in turn, a valued one taking the rest of the word or the
            // next word.
            let flags: Vec<(String, &str)> = if long {
                let option = word.split_once('=').map_or(word, |(o, _)| o);
                vec![(option.to_owned(), "")]
            } else {
                word[1..]
                    .char_indices()
                    .map(|(k, c)| (format!("-{c}"), &word[1 + k + c.len_utf8()..]))
                    .collect()
            };
            let mut step = 1;
            for (option, attached) in flags {
                if interp.script_options.contains(&option.as_str()) {
                    let inline_value = long && word.contains('=');
                    let value = if inline_value {
                        word.split_once('=').map(|(_, v)| v).unwrap_or("")
                    } else {
                        attached
                    };
                    let script = if value.is_empty() && !inline_value {
                        step = 2;
                        rest.get(i + 1).cloned()
                    } else {
                        Some((Word::Static(value.to_owned()), rest[i].1.clone(), rest[i].2))
                    };
                    if let Some((path, s, line_var)) = script {
                        self.script(at, &path, &s, line_var, &[], false, scope);
                    }
                    inline = true;
                    break;
                }
                if interp.attached.contains(&option.as_str()) {
                    break;
                }
                if interp.elsewhere.contains(&option.as_str()) {
                    self.dynamic(
                        rest[i].1.clone(),
                        "runs code found outside the line (a module)",
                    );
                    return;
                }
                if interp.inline.contains(&option.as_str()) {
                    if !interp.options_after_inline {
                        return;
                    }
                    inline = true;
                    if attached.is_empty() {
                        step = 2;
                    }
                    break;
                }
                if interp.valued.contains(&option.as_str()) {
                    if attached.is_empty() && !(long && word.contains('=')) {
                        step = 2;
                    }
                    break;
                }
            }
            i += step;
        }
        if inline || interp.code_operand {
            return;
        }
        match rest.get(i) {
            Some((path, s, line_var)) => {
                self.script(at, path, s, *line_var, &rest[i + 1..], false, scope);
            }
            None => self.stdin_program(at, None, stdin, span, scope),
        }
    }
}

/// `path` with `.` and `..` taken off its name (`/dev/../dev/stdin` is `/dev/stdin`).
fn lexical(path: &std::path::Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `true` when `path`, from `dir`, names a descriptor or a device (`/dev/stdin`, `/dev/fd/3`,
/// `/proc/self/fd/0`): a file whose content is what the line feeds it, not a file on disk.
fn is_device(dir: Option<&std::path::Path>, path: &str) -> bool {
    let full = match dir {
        Some(dir) => dir.join(path),
        None => PathBuf::from(path),
    };
    let full = lexical(&full);
    full.starts_with("/dev") || full.starts_with("/proc")
}

/// Where `src` continues a word on the next line (a backslash, not itself escaped, then a
/// newline, between two characters that are not blanks): `./x\<newline>.sh`.
fn continued_word(src: &str) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes[i + 1] == b'\n' {
                let before = i.checked_sub(1).map(|b| bytes[b]);
                let after = bytes.get(i + 2).copied();
                let blank = |c: Option<u8>| c.is_none_or(|c| matches!(c, b' ' | b'\t' | b'\n'));
                if !blank(before) && !blank(after) {
                    return Some(i);
                }
            }
            // An escaped character, the newline included: skip it.
            i += 2;
            continue;
        }
        i += 1;
    }
    None
}
