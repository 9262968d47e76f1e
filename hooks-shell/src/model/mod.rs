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
//!   walked in a copy too, and afterwards a directory or a variable it changed is unknown. The
//!   parts of a run of `&&` share one copy: each sees what the parts before it did.
//! - A nested line (a shell's `-c` string, a here-document or here-string fed to a shell,
//!   `trap`'s action) is parsed again, with the same rules, in a child scope that keeps only the
//!   exported variables.

mod command;
mod programs;
mod statement;

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

use tree_sitter::{Node, Parser};

use crate::table::{self, is_builtin};
use crate::{Command, Context, Dynamic, Input, Line, Redirect, RedirectKind, Script, Shell, Word};

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
        unread: Vec::new(),
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
    // The shell sets `PWD` to the directory it starts in, whatever the caller says of the rest.
    if !vars.contains_key("PWD") {
        let pwd = match cx.dir.is_absolute() {
            true => Var::Known {
                value: cx.dir.display().to_string(),
                line: false,
                exported: true,
            },
            false => Var::Unknown { exported: true },
        };
        vars.insert("PWD".to_owned(), pwd);
    }
    let mut scope = Scope {
        dir: Some(cx.dir.clone()),
        vars,
        conditional: false,
        functions: Vec::new(),
        positional: None,
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
        redirecting: 0..0,
        dropped: Vec::new(),
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
    pub(crate) functions: Vec<String>,
    /// `$0`, `$1`, … when the line says what they are (a `-c` string's operands); `None` when
    /// they are not known.
    pub(crate) positional: Option<Vec<String>>,
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
        if other.positional != self.positional {
            self.positional = None;
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
            positional: None,
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

/// Where a command's standard input comes from (for a shell or an interpreter, what would
/// give it its program).
pub(crate) type Stdin = Input;

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
    /// The redirections of the simple command being read (indices in [`Line::redirects`]).
    pub(crate) redirecting: Range<usize>,
    /// Words the grammar skipped after the simple command about to be read (`python3 - <<EOF`
    /// loses its `-`), to be added to it.
    pub(crate) dropped: Vec<String>,
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
            parts: Vec::new(),
        };
        if self.seen.insert(d.clone()) {
            self.out.dynamic.push(d.clone());
        }
        d
    }

    /// Notes a part whose commands the model cannot read: dynamic, and unread.
    pub(crate) fn unread(&mut self, span: Range<usize>, why: impl Into<String>) -> Dynamic {
        let d = self.dynamic(span, why);
        if !self.out.unread.contains(&d) {
            self.out.unread.push(d.clone());
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
        if let Some(at) = continued_word(self.src) {
            // bash joins `./x\<newline>.sh` into one word; the grammar splits it in two.
            let span = self.span_fix.clone().unwrap_or(at..at + 2);
            let why = "a word continued on the next line, which the grammar splits and the shell \
                 joins";
            self.dynamic(span, why);
            // What runs is not read: the whole line is, for a guard, as written.
            let whole = self.span_fix.clone().unwrap_or(0..self.src.len());
            let d = Dynamic {
                span: whole,
                why: why.to_owned(),
                parts: Vec::new(),
            };
            if !self.out.unread.contains(&d) {
                self.out.unread.push(d);
            }
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
        let Some(tree) = parse_tree(self.src) else {
            let span = self.span_fix.clone().unwrap_or(0..self.src.len());
            self.unread(span, "the line could not be parsed");
            return;
        };
        self.statement(tree.root_node(), scope, &Stdin::Inherited);
    }

    /// Parses `text` as a line of its own, run by `shell` in `scope`.
    fn nested(&mut self, text: &str, shell: Shell, scope: &mut Scope, span: Range<usize>) {
        if self.depth >= MAX_DEPTH {
            self.unread(span, "lines nested too deeply to follow");
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
            redirecting: 0..0,
            dropped: Vec::new(),
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
            self.unread(span, "parts nested too deeply to follow");
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
}

thread_local! {
    /// One parser per thread: made once, it parses every line the thread reads (a nested line
    /// is parsed after its outer line's tree is built, so the parser is never used twice at
    /// once).
    static PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
}

/// How many of the last lines a thread parsed keep their trees.
const RECENT_TREES: usize = 4;

/// The longest line whose tree is kept.
const RECENT_MAX_LEN: usize = 16 * 1024;

thread_local! {
    /// The trees of the last lines this thread parsed. The guards of one tool call read the
    /// same command line, each in its own context, and the grammar's parse is most of what
    /// reading a line costs (a ten-stage pipeline takes tens of microseconds); a tree is the
    /// same whatever the context, and cloning one only counts a reference.
    static RECENT: std::cell::RefCell<std::collections::VecDeque<(String, tree_sitter::Tree)>> =
        const { std::cell::RefCell::new(std::collections::VecDeque::new()) };
}

/// The tree of `src`, or `None` when the grammar cannot be loaded or the parse is given up.
fn parse_tree(src: &str) -> Option<tree_sitter::Tree> {
    let recent = RECENT.with(|cell| {
        let cache = cell.try_borrow().ok()?;
        cache
            .iter()
            .find(|(line, _)| line == src)
            .map(|(_, tree)| tree.clone())
    });
    if recent.is_some() {
        return recent;
    }
    let tree = PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(src, None)
    })?;
    if src.len() <= RECENT_MAX_LEN {
        RECENT.with(|cell| {
            if let Ok(mut cache) = cell.try_borrow_mut() {
                if cache.len() == RECENT_TREES {
                    cache.pop_front();
                }
                cache.push_back((src.to_owned(), tree.clone()));
            }
        });
    }
    Some(tree)
}

/// The named children of `node`, each with the field it fills (`condition`, `value`, …).
fn fields<'t>(node: Node<'t>) -> Vec<(Option<&'t str>, Node<'t>)> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .enumerate()
        .map(|(i, n)| (node.field_name_for_child(i as u32), n))
        .filter(|(_, n)| n.is_named())
        .collect()
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
