//! A shell tool's call as the guards read it: the command line its args hold, read once with
//! the shell model ([`hookchain_shell`]), and what the guards ask of it — the simple commands
//! that would run, with their arguments as far as they are known, and the files the line
//! writes.
//!
//! # What it owns
//!
//! - The command line of a call ([`command_line`]): the first of the guard's `command_keys` in
//!   its args (or the args themselves), a string as it is, an argv list quoted back into one
//!   line as the shell would read it.
//! - The surroundings the line is read in ([`ShellCall::read`]): the directory it starts in
//!   (the call's working-directory arg under the guard's `workdir_keys`, relative to the
//!   project directory; else the project directory), `HOME` and `CDPATH` as the guard's own
//!   environment has them (`CDPATH` empty when unset, so `cd src && …` is known to stay in the
//!   project), and `PWD`.
//! - [`ShellCall::commands`]: every simple command the line may run — through wrappers
//!   (`sudo`, `env`, `timeout`, `busybox`, `xargs`, …), `bash -c` strings (options before `-c`
//!   included), here-strings and here-documents fed to a shell, substitutions, function bodies,
//!   conditional ones — each with its arguments ([`Arg`]) and the directories it may run in.
//!   A here-document's body given to a program that is no shell (`cat <<EOF`) is data, never
//!   commands.
//! - [`ShellCall::writes`]: the files the line writes (the table is in [`writes`]).
//!
//! # The rules it keeps
//!
//! - The line is parsed once per call, with `bash`'s grammar (`$'…'`, brace expansion); what the
//!   model reads — quote removal, known expansions, wrappers, nested lines — is the model's.
//! - A variable the guard does not know is an unknown part of the word it stands in:
//!   `"$HOME/.ssh/$F"` is known as far as `~/.ssh/`, `"$OUT"` not at all ([`Computed`]). It is
//!   never guessed and never dropped. One the line expands with a default (`${OUT:-.env}`) is
//!   left to the word's text, which says what the default makes it.
//! - A word the line computes is read from what the model knows of it ([`Part`]s: its text,
//!   its glob patterns, the variables not known), and, where the model does not know a value
//!   the line's text tells — a command substitution printing known words (`$(echo .env)`), a
//!   variable's default (`${OUT:-.env}`) — from the line's own text ([`pattern`]), from the
//!   blank before the computed part to the blank after it. In a `-c` string that text is read
//!   from the string, re-parsed on its own; where the text of a word cannot be found (a
//!   here-document given to a shell), nothing of it is known.
//! - A command whose directory the line leaves unknown (after `cd "$(…)"`, `cd ..`, a `cd`
//!   under a condition) may run in any directory the line is known to visit: where it starts,
//!   and every directory a `cd`, `pushd` or `env -C` of the line names.
//! - The lines other programs give a shell are the model's: text piped or fed into a shell
//!   (`echo 'rm x' | sh`, `cat <<EOF | bash`, `sh <<< …`), the lines of `eval`, `su -c`,
//!   `runuser -c`, `script -c`, `flock -c` and `env -S`. Where the model leaves code unread but
//!   the code is known, it is read here as a line of its own, in its command's directory: the
//!   script a shell or `source` reads from a process substitution of `echo` or `printf`
//!   (`bash <(echo 'rm x')`) or from its own input as `/dev/stdin`, `fish -c`, and the `-c`
//!   string of a shell `xargs` runs (with what `xargs` is fed: `-I`'s string replaced by each
//!   item, and fed by a `find`, read as that `find -exec`). So is what follows a
//!   here-document's delimiter on its line (`cat <<EOF > .env; rm x`), which the grammar gives
//!   to the here-document; and `3<> f` opens `f` to write.
//! - What `xargs` reads is the model's (the words it adds to its command); a command fed the
//!   paths a piped `find` prints is read as that `find -exec` ([`Fed`]): `find . -name .env |
//!   xargs rm` is `find . -name .env -exec rm {} +`. What it reads from a file or another
//!   program is unknown.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use hookchain_shell::{Command, Context, Input, Line, Part, RedirectKind, Shell, Word};
use serde_json::Value;

use crate::destructive_commands::excerpt;
use crate::protected_paths::resolve;

pub(crate) mod pattern;
pub(crate) mod writes;

pub(crate) use writes::Write;

/// The value an unknown variable is read with: a character no path or option holds, so that a
/// word holding it is known exactly up to it. The model keeps what is known of a word with an
/// unknown variable ([`Part`]s), but a line given to a shell with one in it (`sh -c "echo $X >
/// .env"`) it leaves unread: read with this value, the line is read, the variable's place
/// known.
const UNKNOWN: char = '\u{E000}';

/// How many variables of a line are read as unknown parts (the rest stay unknown words).
const MAX_UNKNOWN_VARS: usize = 64;

/// How deep a word in nested `-c` strings, or a line given to a shell the model leaves
/// unread, is looked for.
const MAX_REREAD: usize = 4;

/// How many lines the model leaves unread are read at most.
const MAX_GIVEN: usize = 32;

/// The command line of a shell tool's `args`: the first of `keys` it has (or the args
/// themselves), a string as it is, an argv (a list of strings) quoted back into one line.
pub(crate) fn command_line(args: &Value, keys: &[String]) -> Option<String> {
    match keys.iter().find_map(|k| args.get(k)).unwrap_or(args) {
        Value::String(line) => Some(line.clone()),
        Value::Array(argv) => Some(
            argv.iter()
                .filter_map(Value::as_str)
                .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

/// An argument of a command, as far as it is known before the line runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    /// Known in full: quotes removed, `~` and known variables expanded.
    Known(String),
    /// Computed when the line runs.
    Computed(Computed),
}

/// A word computed when the line runs, and what of it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Computed {
    /// The word as the line writes it, when its text can be found (a glob, a brace expansion,
    /// a substitution).
    pub(crate) written: Option<String>,
    /// Its value up to its first unknown part, when that is all that is unknown (`/home/u/.ssh/`
    /// of `"$HOME/.ssh/$F"`).
    pub(crate) known: Option<String>,
}

impl Arg {
    /// The text when known in full.
    pub(crate) fn known(&self) -> Option<&str> {
        match self {
            Arg::Known(s) => Some(s),
            Arg::Computed(_) => None,
        }
    }

    /// How the argument reads in a message: its text, or the word as written.
    pub(crate) fn shown(&self) -> String {
        match self {
            Arg::Known(s) => s.clone(),
            Arg::Computed(c) => match (&c.written, &c.known) {
                (Some(w), _) => w.clone(),
                (None, Some(k)) => format!("{k}…"),
                (None, None) => "…".to_owned(),
            },
        }
    }
}

/// A simple command the line may run.
#[derive(Debug, Clone)]
pub(crate) struct Cmd {
    /// The program as named (`/bin/rm`, `rm`), when known.
    pub(crate) program: Option<String>,
    /// Its arguments.
    pub(crate) args: Vec<Arg>,
    /// The directories it may run in: one when the line says, every directory the line is
    /// known to visit when a `cd` before it makes it unknown.
    pub(crate) dirs: Vec<PathBuf>,
    /// What `xargs` gives it to work on, when `xargs` runs it.
    pub(crate) fed: Option<Fed>,
}

/// What `xargs` gives the command it runs. The words it reads are the model's: known items
/// are among the command's arguments (`echo .env | xargs rm` is `rm .env`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fed {
    /// Words the line gives it (a here-string, a here-document, `echo` or `printf` of known
    /// words), among the arguments.
    Known,
    /// The paths a `find` prints: that `find`'s arguments (its start paths and expression);
    /// each path found stands as `{}` in the arguments, so that the command is read as that
    /// `find -exec` (`find . -name .env | xargs rm` is `find . -name .env -exec rm {} +`).
    Found(Vec<Arg>),
    /// What it reads from a file or another program: not known.
    Unknown,
}

impl Cmd {
    /// The program's name without its directory (`rm` of `/bin/rm`).
    pub(crate) fn name(&self) -> Option<&str> {
        let program = self.program.as_deref()?;
        Some(program.rsplit('/').next().unwrap_or(program))
    }

    /// The command as a message shows it.
    pub(crate) fn shown(&self) -> String {
        let mut words = vec![self.program.clone().unwrap_or_else(|| "…".to_owned())];
        words.extend(self.args.iter().map(Arg::shown));
        excerpt(&words.join(" ").replace(UNKNOWN, "…"))
    }
}

/// A redirection to or from a file.
#[derive(Debug, Clone)]
pub(crate) struct Redir {
    /// What it does.
    pub(crate) kind: RedirectKind,
    /// The file.
    pub(crate) target: Arg,
    /// The directories a relative target may be taken from (see [`Cmd::dirs`]).
    pub(crate) dirs: Vec<PathBuf>,
    /// How it is written in the line (`>`, `>>`, `&>`), for messages.
    pub(crate) operator: String,
}

/// A shell tool's call, read (see the [module docs](self)).
#[derive(Debug, Clone)]
pub(crate) struct ShellCall {
    /// Every simple command it may run, in the order the shell would start them.
    pub(crate) commands: Vec<Cmd>,
    /// Every redirection to or from a file, nested ones included.
    pub(crate) redirects: Vec<Redir>,
    /// The variables known before the line runs (`HOME`, `PWD`, `CDPATH`).
    vars: Vec<(String, String)>,
}

/// A line and its text: the call's own, or one a shell reads from a pipe.
struct Level {
    text: String,
    line: Line,
}

/// A line nested in a word (a `-c` string), parsed on its own: its text and the line.
type Nested = Option<(String, Line)>;

/// What reading a level needs to know: the variables, and the nested texts re-read so far.
struct Reader<'a> {
    /// The variables known before the line runs.
    vars: &'a [(String, String)],
    /// Those and the unknown ones, as the context gives them to the model.
    context_vars: Vec<(String, String)>,
    cx: &'a Context,
    reread: HashMap<(String, Range<usize>), Nested>,
}

impl ShellCall {
    /// Reads the shell tool call `args`: its command line under the first of `command_keys`,
    /// run in its working directory under the first of `workdir_keys` (relative to `project`)
    /// or in `project`. `None` when the args hold no command line.
    pub(crate) fn read(
        args: &Value,
        command_keys: &[String],
        workdir_keys: &[String],
        project: &Path,
    ) -> Option<ShellCall> {
        let line = command_line(args, command_keys)?;
        let start = match workdir_keys
            .iter()
            .find_map(|k| args.get(k).and_then(Value::as_str))
        {
            Some(dir) => {
                let dir = crate::protected_paths::expand_home(dir).unwrap_or_else(|| dir.into());
                project.join(dir)
            }
            None => project.to_path_buf(),
        };
        Some(ShellCall::read_line(&line, &start))
    }

    /// Reads the command line `line` run in `start`.
    pub(crate) fn read_line(line: &str, start: &Path) -> ShellCall {
        let mut vars: Vec<(String, String)> = vec![("PWD".into(), start.display().to_string())];
        if let Some(home) = std::env::var_os("HOME") {
            vars.push(("HOME".into(), home.to_string_lossy().into_owned()));
        }
        let cdpath = std::env::var("CDPATH").unwrap_or_default();
        vars.push(("CDPATH".into(), cdpath));
        let known: Vec<String> = vars.iter().map(|(k, _)| k.clone()).collect();
        // A variable with a default (`${F:-.env}`) is left unknown to the model, so that the
        // word is read from its text, default included ([`pattern`]).
        let defaulted = defaulted(line);
        let unknown: Vec<(String, String)> = variables(line)
            .into_iter()
            .filter(|name| !known.contains(name) && name != "OLDPWD" && !defaulted.contains(name))
            .take(MAX_UNKNOWN_VARS)
            .map(|name| (name, UNKNOWN.to_string()))
            .collect();
        let cx = Context::new(start)
            .vars(vars.iter().cloned())
            .vars(unknown.iter().cloned());
        let text = line.to_owned();
        let parsed = Line::parse(&text, Shell::Bash, &cx);
        let mut levels = vec![Level { text, line: parsed }];
        let context_vars: Vec<(String, String)> = vars.iter().chain(&unknown).cloned().collect();
        let given = given_lines(&levels[0], start, &context_vars);
        levels.extend(given);
        let mut reader = Reader {
            vars: &vars,
            context_vars,
            cx: &cx,
            reread: HashMap::new(),
        };
        let mut rests = Vec::new();
        for level in &levels {
            heredoc_rests(&level.text, &level.line, &mut reader, 0, &mut rests);
        }
        levels.extend(rests);
        let visited = visited_dirs(&levels, start, &vars);
        let mut call = ShellCall {
            commands: Vec::new(),
            redirects: Vec::new(),
            vars: vars.clone(),
        };
        for level in &levels {
            let dirs = |dir: &Option<PathBuf>| match dir {
                Some(d) => vec![d.clone()],
                None => visited.clone(),
            };
            let first = call.commands.len();
            for (at, command) in level.line.commands.iter().enumerate() {
                let args = command
                    .args
                    .iter()
                    .enumerate()
                    .map(|(k, word)| reader.arg(&level.text, &level.line, at, k, word, 0))
                    .collect();
                call.commands.push(Cmd {
                    program: command.program.as_static().map(str::to_owned),
                    args,
                    dirs: dirs(&command.dir),
                    fed: None,
                });
            }
            for (at, command) in level.line.commands.iter().enumerate() {
                let fed = xargs_fed(&level.line, at, &call.commands[first..]);
                if let Some((Fed::Found(_), find)) = &fed {
                    let find = &level.line.commands[*find];
                    for (k, word) in command.args.iter().enumerate() {
                        if found_word(word, find) {
                            call.commands[first + at].args[k] = Arg::Known("{}".to_owned());
                        }
                    }
                }
                call.commands[first + at].fed = fed.map(|(fed, _)| fed);
            }
            for (at, redirect) in level.line.redirects.iter().enumerate() {
                if !matches!(
                    redirect.kind,
                    RedirectKind::Read
                        | RedirectKind::Write
                        | RedirectKind::Append
                        | RedirectKind::ReadWrite
                ) {
                    continue;
                }
                let target = reader.redirect_target(&level.text, &level.line, at, 0);
                let operator = operator(&level.text, &redirect.span);
                // `3<> f` opens `f` to write as well.
                let kind = match redirect.kind {
                    RedirectKind::Read if operator.ends_with("<>") => RedirectKind::ReadWrite,
                    kind => kind,
                };
                let redir = Redir {
                    kind,
                    target,
                    dirs: dirs(&redirect.dir),
                    operator,
                };
                // Read by the model and again from a here-document's rest: once.
                if !call.redirects.iter().any(|r| {
                    (r.kind, &r.target, &r.dirs, &r.operator)
                        == (redir.kind, &redir.target, &redir.dirs, &redir.operator)
                }) {
                    call.redirects.push(redir);
                }
            }
        }
        call
    }

    /// The files the line writes (see [`writes`]).
    pub(crate) fn writes(&self) -> Vec<Write> {
        writes::of(self)
    }

    /// The value of a variable known before the line runs.
    pub(crate) fn var(&self, name: &str) -> Option<String> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

impl Reader<'_> {
    fn var(&self, name: &str) -> Option<String> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    /// The argument `k` of the command `at` of `line` (whose text is `text`).
    fn arg(
        &mut self,
        text: &str,
        line: &Line,
        at: usize,
        k: usize,
        word: &Word,
        depth: usize,
    ) -> Arg {
        match word {
            Word::Static(s) => static_arg(s),
            Word::Dynamic(d) => {
                if let Some(arg) = from_parts(&d.parts) {
                    return arg;
                }
                let command = &line.commands[at];
                if d.span != command.span && d.span.end <= text.len() {
                    return self.written(word_around(text, &d.span, command.span.start));
                }
                // A word of a nested line: the span is the word that holds the line.
                if let Some((inner_text, inner)) = self.nested(text, &d.span, depth)
                    && let Some(found) = same_command(line, at, &inner)
                    && let Some(inner_word) = inner.commands[found].args.get(k)
                {
                    return self.arg(&inner_text, &inner, found, k, inner_word, depth + 1);
                }
                Arg::Computed(Computed {
                    written: None,
                    known: None,
                })
            }
        }
    }

    /// The target of the redirection `at` of `line`.
    fn redirect_target(&mut self, text: &str, line: &Line, at: usize, depth: usize) -> Arg {
        let redirect = &line.redirects[at];
        match &redirect.target {
            Word::Static(s) => static_arg(s),
            Word::Dynamic(d) => {
                if let Some(arg) = from_parts(&d.parts) {
                    return arg;
                }
                if d.span != redirect.span && redirect.span.end <= text.len() {
                    let raw = &text[redirect.span.clone()];
                    return self.written(strip_operator(raw).unwrap_or(raw));
                }
                if let Some((inner_text, inner)) = self.nested(text, &d.span, depth)
                    && let Some(found) = same_redirect(line, at, &inner)
                {
                    return self.redirect_target(&inner_text, &inner, found, depth + 1);
                }
                Arg::Computed(Computed {
                    written: None,
                    known: None,
                })
            }
        }
    }

    /// A computed word as the line writes it.
    fn written(&self, raw: &str) -> Arg {
        let raw = raw.trim();
        let var = |name: &str| self.var(name);
        let alternatives = pattern::read(raw, &var);
        // Known in full after all (`$(echo .git)`, `"${HOME:-/h}"`).
        if let Some([one]) = alternatives.as_deref()
            && let Some(text) = one.literal()
        {
            return Arg::Known(text);
        }
        let known = alternatives.and_then(|alternatives| match alternatives.as_slice() {
            [one] => Some(one.known_prefix()),
            _ => None,
        });
        Arg::Computed(Computed {
            written: Some(raw.to_owned()),
            known,
        })
    }

    /// The line held by the word at `span` of `text`, parsed on its own.
    fn nested(&mut self, text: &str, span: &Range<usize>, depth: usize) -> Nested {
        if depth >= MAX_REREAD || span.end > text.len() {
            return None;
        }
        let key = (text.to_owned(), span.clone());
        if let Some(found) = self.reread.get(&key) {
            return found.clone();
        }
        let var = |name: &str| self.var(name);
        let found = pattern::literal(&text[span.clone()], &var).map(|inner| {
            let line = Line::parse(&inner, Shell::Bash, self.cx);
            (inner, line)
        });
        self.reread.insert(key, found.clone());
        found
    }
}

/// The word of `text` the computed part at `span` stands in, from the blank before it (not
/// before `floor`) to the blank after it: all of `~/.ssh/$(…)/x` where the model names
/// `$(…)`. Only the part itself (and what follows it) when the text before it holds a quote
/// but for leading `"`s (a blank inside quotes would make the word start earlier than the
/// blank found).
fn word_around<'t>(text: &'t str, span: &Range<usize>, floor: usize) -> &'t str {
    let before = &text[floor.min(span.start)..span.start];
    let start = before
        .rfind(|c: char| c.is_whitespace() || ";&|<>()".contains(c))
        .map_or(0, |at| at + 1);
    let lead = &before[start..];
    let quotes = lead.len() - lead.trim_start_matches('"').len();
    let plain = lead
        .trim_start_matches('"')
        .chars()
        .all(|c| !"'\\\"`".contains(c));
    let (from, in_double) = if plain {
        (span.start - lead.len(), quotes % 2 == 1)
    } else {
        (span.start, false)
    };
    &text[from..word_end(text, span.end, in_double)]
}

/// Where the word going on at `at` of `text` ends (inside `"…"` when `in_double`): at the
/// first blank or operator outside quotes, or where a quote is left open.
fn word_end(text: &str, at: usize, mut in_double: bool) -> usize {
    let mut chars = text[at..].char_indices().peekable();
    while let Some((k, c)) = chars.next() {
        match c {
            '\\' if !in_double || chars.peek().is_some_and(|(_, n)| "$`\"\\".contains(*n)) => {
                chars.next();
            }
            '"' => in_double = !in_double,
            '\'' if !in_double => {
                let closed = chars.by_ref().any(|(_, q)| q == '\'');
                if !closed {
                    return at;
                }
            }
            c if !in_double && (c.is_whitespace() || ";&|<>()".contains(c)) => return at + k,
            _ => {}
        }
    }
    if in_double { at } else { text.len() }
}

/// A dynamic word as the model knows it ([`Part`]s): its text when every part is text (a
/// word `xargs` reads, run in batches it decides), else the word written with its glob
/// patterns and the variables not known, and its text up to the first of them. `None` when a
/// part is a value the model does not know but the line's text may tell — a command
/// substitution that prints known words (`$(echo .env)`), a variable's default
/// (`${OUT:-.env}`) — or when nothing is known of it: those are read from the text
/// ([`pattern`]).
fn from_parts(parts: &[Part]) -> Option<Arg> {
    if parts.is_empty() {
        return None;
    }
    let mut written = String::new();
    let mut known: Option<String> = None;
    for part in parts {
        match part {
            Part::Text(text) => {
                if text
                    .chars()
                    .all(|c| c.is_alphanumeric() || "._/-+@%:,=".contains(c))
                {
                    written.push_str(text);
                } else {
                    written.push_str(&format!("'{}'", text.replace('\'', "'\\''")));
                }
            }
            Part::Glob(glob) => {
                known.get_or_insert_with(|| known_text(parts));
                written.push_str(glob);
            }
            Part::Unknown {
                name: Some(name),
                split,
            } => {
                known.get_or_insert_with(|| known_text(parts));
                written.push_str(&match split {
                    true => format!("${{{name}}}"),
                    false => format!("\"${{{name}}}\""),
                });
            }
            Part::Unknown { name: None, .. } => return None,
        }
    }
    Some(match known {
        None => static_arg(&known_text(parts)),
        Some(known) => Arg::Computed(Computed {
            written: Some(written),
            known: Some(known),
        }),
    })
}

/// The text of `parts` up to the first that is not text.
fn known_text(parts: &[Part]) -> String {
    parts
        .iter()
        .map_while(|p| match p {
            Part::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// A static word: known, or known up to an unknown variable in it.
fn static_arg(s: &str) -> Arg {
    match s.find(UNKNOWN) {
        None => Arg::Known(s.to_owned()),
        Some(at) => Arg::Computed(Computed {
            written: None,
            known: Some(s[..at].to_owned()),
        }),
    }
}

/// The command of `inner` (a nested line re-parsed) that is the command `at` of `outer`: the
/// same program and the same known arguments, the same in the order of those alike.
fn same_command(outer: &Line, at: usize, inner: &Line) -> Option<usize> {
    let command = &outer.commands[at];
    let alike = |a: &Command, b: &Command| {
        a.program == b.program
            && a.args.len() == b.args.len()
            && a.args
                .iter()
                .zip(&b.args)
                .all(|(x, y)| x.as_static().is_none() || x.as_static() == y.as_static())
    };
    let nth = outer.commands[..at]
        .iter()
        .filter(|c| c.span == command.span && alike(command, c))
        .count();
    inner
        .commands
        .iter()
        .enumerate()
        .filter(|(_, c)| alike(command, c))
        .map(|(k, _)| k)
        .nth(nth)
}

/// The redirection of `inner` that is the redirection `at` of `outer` (see [`same_command`]).
fn same_redirect(outer: &Line, at: usize, inner: &Line) -> Option<usize> {
    let redirect = &outer.redirects[at];
    let nth = outer.redirects[..at]
        .iter()
        .filter(|r| r.span == redirect.span && r.kind == redirect.kind)
        .count();
    inner
        .redirects
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == redirect.kind)
        .map(|(k, _)| k)
        .nth(nth)
}

/// What follows the delimiter of each here-document of `line` on its first line (`> .env; rm
/// x` of `cat <<EOF > .env; rm x`), read as lines of their own into `out`: the grammar gives
/// them to the here-document, and the model reads only what the grammar parses there (a
/// redirection, `&& CMD`); after a `;`, `&` or `|` it lists the rest as unread, or drops it
/// (`cat <<EOF; rm x`). A here-document of a nested line is looked for in the nested line's
/// own text.
fn heredoc_rests(
    text: &str,
    line: &Line,
    reader: &mut Reader<'_>,
    depth: usize,
    out: &mut Vec<Level>,
) {
    for redirect in &line.redirects {
        if redirect.kind != RedirectKind::HereDocument {
            continue;
        }
        let Some(raw) = text.get(redirect.span.clone()) else {
            continue;
        };
        if !raw.starts_with("<<") {
            if let Some((inner_text, inner)) = reader.nested(text, &redirect.span, depth) {
                heredoc_rests(&inner_text, &inner, reader, depth + 1, out);
            }
            continue;
        }
        let first = raw.lines().next().unwrap_or_default();
        let after = first
            .trim_start_matches("<<")
            .trim_start_matches('-')
            .trim_start();
        // The delimiter: a quoted word, or a word up to a blank or an operator.
        let end = match after.chars().next() {
            Some(q @ ('\'' | '"')) => after[1..].find(q).map_or(after.len(), |k| k + 2),
            _ => after
                .find(|c: char| c.is_whitespace() || "<>|;&()".contains(c))
                .unwrap_or(after.len()),
        };
        let rest = after[end..].trim();
        if rest.is_empty() {
            continue;
        }
        let dir = redirect
            .dir
            .clone()
            .unwrap_or_else(|| reader.cx.dir().to_path_buf());
        let cx = Context::new(dir).vars(reader.context_vars.iter().cloned());
        let text = format!(": {rest}");
        let line = Line::parse(&text, Shell::Bash, &cx);
        out.push(Level { text, line });
    }
}

/// The redirection's word after its descriptor and operator (`2>> "$LOG"` → `"$LOG"`).
fn strip_operator(raw: &str) -> Option<&str> {
    let rest = raw.trim_start();
    let rest = match rest.strip_prefix('{') {
        Some(named) => &named[named.find('}')? + 1..],
        None => rest.trim_start_matches(|c: char| c.is_ascii_digit()),
    };
    ["&>>", "&>", ">>", ">|", ">&", "<>", ">", "<"]
        .iter()
        .find_map(|op| rest.strip_prefix(op))
}

/// How the redirection at `span` of `text` is written, its operator only (`>>` of `2>> x`).
fn operator(text: &str, span: &Range<usize>) -> String {
    let Some(raw) = text.get(span.clone()) else {
        return ">".to_owned();
    };
    let word_start = strip_operator(raw).map_or(raw.len(), |rest| raw.len() - rest.len());
    let op = raw[..word_start].trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    if op.is_empty() {
        ">".to_owned()
    } else {
        op.trim().to_owned()
    }
}

/// The names of the variables `line` expands (`$NAME`, `${NAME…`), in order, once each.
fn variables(line: &str) -> Vec<String> {
    let bytes = line.as_bytes();
    let mut names: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let from = if bytes.get(i + 1) == Some(&b'{') {
            i + 2
        } else {
            i + 1
        };
        let len = bytes[from.min(bytes.len())..]
            .iter()
            .enumerate()
            .take_while(|(k, b)| {
                b.is_ascii_alphabetic() || **b == b'_' || (*k > 0 && b.is_ascii_digit())
            })
            .count();
        if len > 0 {
            let name = line[from..from + len].to_owned();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        i = from + len.max(1);
    }
    names
}

/// The names of the variables `line` expands with a default (`${NAME:-…}`, `${NAME-…}`,
/// `${NAME:=…}`, `${NAME=…}`), in order, once each.
fn defaulted(line: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (at, _) in line.match_indices("${") {
        let rest = &line[at + 2..];
        let len = rest
            .char_indices()
            .take_while(|(k, c)| {
                c.is_ascii_alphabetic() || *c == '_' || (*k > 0 && c.is_ascii_digit())
            })
            .count();
        let (name, after) = rest.split_at(len);
        let after = after.strip_prefix(':').unwrap_or(after);
        if len > 0 && after.starts_with(['-', '=']) && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// The directories the line is known to visit: where it starts, and every directory a `cd`,
/// `pushd` or `env -C` of it names (from the directory it runs in, or from `start` where that
/// is unknown) — each a computed word may be (`cd ${D:-.git}`, `cd $(echo src)`).
fn visited_dirs(levels: &[Level], start: &Path, vars: &[(String, String)]) -> Vec<PathBuf> {
    let var = |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let mut dirs = vec![start.to_path_buf()];
    for level in levels {
        for command in &level.line.commands {
            let base = command.dir.clone().unwrap_or_else(|| start.to_path_buf());
            let named = match command.program.as_static() {
                Some("cd" | "pushd") => command.args.iter().find(|a| {
                    a.as_static()
                        .is_none_or(|a| !a.starts_with('-') || a == "-")
                }),
                Some(p) if p.rsplit('/').next() == Some("env") => command
                    .args
                    .iter()
                    .position(|a| matches!(a.as_static(), Some("-C" | "--chdir")))
                    .and_then(|k| command.args.get(k + 1)),
                _ => None,
            };
            let named: Vec<String> = match named {
                Some(Word::Static(dir)) => vec![dir.clone()],
                Some(Word::Dynamic(d))
                    if d.span != command.span && d.span.end <= level.text.len() =>
                {
                    let text = word_around(&level.text, &d.span, command.span.start);
                    pattern::read(text.trim(), &var)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(pattern::Pattern::literal)
                        .collect()
                }
                _ => Vec::new(),
            };
            for dir in named.iter().filter(|d| *d != "-") {
                let dir = resolve(dir, &base);
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
    }
    dirs
}

/// The lines of `level` (and of the lines found in it, to a bounded depth) that a command runs
/// and the model leaves unread: text a shell reads from a pipe whose writer prints it (`echo
/// 'rm x' | sh`, `printf 'rm x\n' | bash -s`), the known words `eval` runs, and the string a
/// program gives a shell with `-c` (`su`, `runuser`, `script`, `flock`, a shell run by
/// `xargs`).
fn given_lines(top: &Level, start: &Path, vars: &[(String, String)]) -> Vec<Level> {
    let given_in = |level: &Level| given_in(level, start, vars);
    let mut out: Vec<(Level, usize)> = given_in(top).into_iter().map(|l| (l, 1)).collect();
    let mut k = 0;
    while k < out.len() && out.len() < MAX_GIVEN {
        let depth = out[k].1;
        if depth < MAX_REREAD {
            let more = given_in(&out[k].0);
            out.extend(more.into_iter().map(|l| (l, depth + 1)));
        }
        k += 1;
    }
    out.into_iter().map(|(level, _)| level).collect()
}

/// The lines [`given_lines`] finds in `level` itself, each run in its command's directory
/// (`start` where that is unknown).
fn given_in(level: &Level, start: &Path, vars: &[(String, String)]) -> Vec<Level> {
    let commands = &level.line.commands;
    let mut out = Vec::new();
    for (at, command) in commands.iter().enumerate() {
        let Some(program) = command.program.as_static() else {
            continue;
        };
        let name = program.rsplit('/').next().unwrap_or(program);
        let words: Option<Vec<&str>> = command.args.iter().map(Word::as_static).collect();
        let text = match (name, Shell::of_program(program)) {
            (_, Some(_)) => {
                // `bash /dev/stdin <<< '…'`: a script read from a descriptor, which the model
                // leaves dynamic and does not read (a pipe or a here-document given to a
                // shell that reads its standard input, it reads).
                let stdin = |w: &Word| matches!(w.as_static(), Some("/dev/stdin" | "/dev/fd/0"));
                match &command.input {
                    Input::Text(Word::Static(text))
                    | Input::Pipe {
                        text: Some(text), ..
                    } if command.args.iter().any(stdin) => Some(text.clone()),
                    _ => substituted_script(level, at),
                }
            }
            ("source" | ".", _) => substituted_script(level, at),
            // The model reads the `-c` string of `su`, `runuser`, `script` and `flock`, not
            // fish's.
            ("fish", _) => words.and_then(|w| dash_c(&w)),
            // The model leaves a shell `xargs` runs unread: its line depends on what `xargs`
            // reads.
            ("xargs", _) => words.and_then(|w| xargs_shell_line(level, at, &w)),
            _ => None,
        };
        if let Some(text) = text {
            let dir = command.dir.as_deref().unwrap_or(start);
            let cx = Context::new(dir).vars(vars.iter().cloned());
            let line = Line::parse(&text, Shell::Bash, &cx);
            out.push(Level { text, line });
        }
    }
    out
}

/// The string after a `-c` (alone, or ending a cluster such as `-qc`) or `--command`.
fn dash_c(words: &[&str]) -> Option<String> {
    let at = words.iter().position(|w| {
        *w == "--command" || (w.starts_with('-') && !w.starts_with("--") && w.ends_with('c'))
    });
    match at {
        Some(at) => words.get(at + 1).map(|s| (*s).to_owned()),
        None => words
            .iter()
            .find_map(|w| w.strip_prefix("--command="))
            .map(str::to_owned),
    }
}

/// What `echo` or `printf` prints, when its words are known and hold no escape or format it
/// would read.
fn printed(command: &Command) -> Option<String> {
    let words: Option<Vec<&str>> = command.args.iter().map(Word::as_static).collect();
    let words = words?;
    match command.program.as_static()?.rsplit('/').next()? {
        "echo" => {
            let (newline, words) = match words.first() {
                Some(&"-n") => (false, &words[1..]),
                _ => (true, &words[..]),
            };
            let text = words.join(" ");
            if words.first().is_some_and(|w| w.starts_with('-')) || text.contains('\\') {
                return None;
            }
            Some(if newline { text + "\n" } else { text })
        }
        "printf" => match words.as_slice() {
            [format] if !format.contains('%') => {
                let text = format.replace("\\n", "\n").replace("\\t", "\t");
                (!text.contains('\\')).then_some(text)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The script a shell or `source` reads from a process substitution whose command prints a
/// known text (`bash <(echo 'rm x')`, `source <(printf …)`).
fn substituted_script(level: &Level, at: usize) -> Option<String> {
    let command = &level.line.commands[at];
    let Some(Word::Dynamic(d)) = command.args.iter().find(|w| match w {
        Word::Static(s) => !s.starts_with('-'),
        Word::Dynamic(_) => true,
    }) else {
        return None;
    };
    if !level.text.get(d.span.clone())?.starts_with("<(") {
        return None;
    }
    let inside: Vec<&Command> = level
        .line
        .commands
        .iter()
        .filter(|c| c.span.start > d.span.start && c.span.end < d.span.end)
        .collect();
    match inside.as_slice() {
        [one] => printed(one),
        _ => None,
    }
}

/// How `xargs` feeds the command `at` of `line` (whose commands, read, are `cmds`), with the
/// index of the `find` that feeds it: `None` for a command `xargs` does not run.
fn xargs_fed(line: &Line, at: usize, cmds: &[Cmd]) -> Option<(Fed, usize)> {
    let command = &line.commands[at];
    if !command
        .wrappers
        .iter()
        .any(|w| w.rsplit('/').next() == Some("xargs"))
    {
        return None;
    }
    Some(match &command.input {
        Input::Pipe { from, text } => match finder(line, from) {
            Some(find) => (Fed::Found(cmds.get(find)?.args.clone()), find),
            None if text.is_some() => (Fed::Known, at),
            None => (Fed::Unknown, at),
        },
        Input::Text(Word::Static(_)) => (Fed::Known, at),
        _ => (Fed::Unknown, at),
    })
}

/// The `find` among the commands `from` of `line` (the writers of a pipe).
fn finder(line: &Line, from: &Range<usize>) -> Option<usize> {
    (from.start..from.end.min(line.commands.len())).find(|&k| {
        line.commands[k]
            .program
            .as_static()
            .is_some_and(|p| p.rsplit('/').next() == Some("find"))
    })
}

/// Whether `word` is a path the model says `find` hands over: one of `find`'s start points
/// and what is found under it (its known parts, then a part not known).
fn found_word(word: &Word, find: &Command) -> bool {
    let Word::Dynamic(d) = word else {
        return false;
    };
    let Some((
        Part::Unknown {
            name: None,
            split: false,
        },
        root,
    )) = d.parts.split_last()
    else {
        return false;
    };
    find.args.iter().any(|arg| match arg {
        Word::Static(s) => matches!(root, [Part::Text(t)] if t == s),
        Word::Dynamic(r) => r.parts == root,
    })
}

/// The string `-I` makes `xargs` (the command `x` of `level`) replace, and what it reads, when
/// the line says: the items of known text, split as `xargs` splits them, or what a `find`
/// prints.
fn xargs_reads(level: &Level, x: usize) -> Option<(Option<String>, XargsInput)> {
    let xargs = &level.line.commands[x];
    let words: Vec<&str> = xargs
        .args
        .iter()
        .map(Word::as_static)
        .collect::<Option<_>>()?;
    let mut replace = None;
    // `None`: blanks and newlines, with quotes; else the one delimiter.
    let mut delimiter: Option<char> = None;
    let mut k = 0;
    while let Some(word) = words.get(k) {
        match *word {
            "-0" | "--null" => delimiter = Some('\0'),
            "-I" => {
                replace = Some((*words.get(k + 1)?).to_owned());
                k += 1;
            }
            "-i" | "--replace" => replace = Some("{}".to_owned()),
            "-d" | "--delimiter" => {
                delimiter = escaped_char(words.get(k + 1)?);
                delimiter?;
                k += 1;
            }
            "-a" | "--arg-file" => return None,
            "-E" | "-L" | "-n" | "-P" | "-s" | "--max-args" | "--max-procs" | "--max-lines"
            | "--max-chars" | "--eof" | "--process-slot-var" => k += 1,
            w if w.starts_with("--replace=") => replace = Some(w[10..].to_owned()),
            w if w.starts_with("--delimiter=") => {
                delimiter = escaped_char(&w[12..]);
                delimiter?;
            }
            w if w.starts_with("--arg-file") || w.starts_with("-a") => return None,
            w if w.starts_with("-I") => replace = Some(w[2..].to_owned()),
            w if w.starts_with("-i") => replace = Some(w[2..].to_owned()),
            w if w.starts_with("-d") => {
                delimiter = escaped_char(&w[2..]);
                delimiter?;
            }
            w if w.starts_with('-') && w.len() > 1 => {}
            _ => break,
        }
        k += 1;
    }
    let text = match &xargs.input {
        Input::Text(Word::Static(text)) => text.clone(),
        Input::Pipe { from, text } => match finder(&level.line, from) {
            Some(find) => return Some((replace, XargsInput::Find(find))),
            None => text.clone()?,
        },
        _ => return None,
    };
    let items: Vec<String> = match (&replace, delimiter) {
        (_, Some(d)) => text
            .split(d)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        // With `-I`, an item is a line, leading blanks removed.
        (Some(_), None) => text
            .lines()
            .map(str::trim_start)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        (None, None) => xargs_words(&text)?,
    };
    Some((replace, XargsInput::Items(items)))
}

/// What `xargs` reads, when the line says.
enum XargsInput {
    /// Known items, split as `xargs` splits them.
    Items(Vec<String>),
    /// What this `find` (its index in the line's commands) prints.
    Find(usize),
}

/// The line a shell run by `xargs` (the command `at` of `level`, its words `words`) runs, with
/// what `xargs` feeds it when the line says: the `-c` string with `-I`'s string replaced by
/// each item, or, fed by a `find`, that `find` running the shell (`find … | xargs -I{} sh -c
/// 'rm {}'` is `find … -exec sh -c 'rm {}' \;`).
fn xargs_shell_line(level: &Level, at: usize, words: &[&str]) -> Option<String> {
    let shell = words.iter().position(|a| Shell::of_program(a).is_some())?;
    let script = dash_c(&words[shell + 1..])?;
    let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    Some(match xargs_reads(level, at) {
        Some((Some(replace), XargsInput::Items(items))) if !replace.is_empty() => items
            .iter()
            .map(|item| script.replace(&replace, item))
            .collect::<Vec<_>>()
            .join("\n"),
        Some((replace, XargsInput::Find(find))) => {
            let find = level.text.get(level.line.commands[find].span.clone())?;
            match replace.filter(|r| !r.is_empty()) {
                Some(r) => format!(
                    "{find} -exec {} -c {} \\;",
                    words[shell],
                    quote(&script.replace(&r, "{}"))
                ),
                None => format!(
                    "{find} -exec {} -c {} _ {{}} +",
                    words[shell],
                    quote(&script)
                ),
            }
        }
        _ => script,
    })
}

/// A delimiter as `xargs -d` reads it: one character, or an escape (`\n`, `\t`, `\0`).
fn escaped_char(text: &str) -> Option<char> {
    match text {
        "\\n" => Some('\n'),
        "\\t" => Some('\t'),
        "\\0" => Some('\0'),
        "\\\\" => Some('\\'),
        _ => {
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Some(c),
                _ => None,
            }
        }
    }
}

/// The items `xargs` reads from `text` by default: words split at blanks and newlines, with
/// `'…'`, `"…"` and `\x` quoting; `None` when a quote is left open.
fn xargs_words(text: &str) -> Option<Vec<String>> {
    let mut items = Vec::new();
    let mut item: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => items.extend(item.take()),
            '\'' | '"' => {
                let current = item.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        q if q == c => break,
                        '\n' => return None,
                        other => current.push(other),
                    }
                }
            }
            '\\' => item.get_or_insert_with(String::new).push(chars.next()?),
            other => item.get_or_insert_with(String::new).push(other),
        }
    }
    items.extend(item);
    Some(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> ShellCall {
        ShellCall::read_line(line, Path::new("/nonexistent-proj"))
    }

    fn programs(call: &ShellCall) -> Vec<String> {
        call.commands.iter().map(Cmd::shown).collect()
    }

    #[test]
    fn an_argv_is_quoted_back_into_one_line() {
        let args = serde_json::json!({"command": ["bash", "-c", "echo 'x' > .env"]});
        let line = command_line(&args, &["command".to_owned()]).unwrap();
        assert_eq!(line, r#"'bash' '-c' 'echo '\''x'\'' > .env'"#);
        let call = read(&line);
        assert_eq!(call.redirects[0].target, Arg::Known(".env".into()));
    }

    #[test]
    fn unknown_variables_are_known_up_to_where_they_stand() {
        // A line given to a shell with an unknown variable in it is read.
        let call = read(r#"sh -c "echo $X > .env""#);
        assert_eq!(call.redirects[0].target, Arg::Known(".env".into()));
        let call = read(r#"cp x "$HOME_DIR/.ssh/$F" "$OUT""#);
        let cp = &call.commands[0];
        assert_eq!(
            cp.args[1],
            Arg::Computed(Computed {
                written: None,
                known: Some(String::new())
            })
        );
        let call = read(r#"cp x /home/u/.ssh/"$F""#);
        assert_eq!(
            call.commands[0].args[1],
            Arg::Computed(Computed {
                written: None,
                known: Some("/home/u/.ssh/".into())
            })
        );
    }

    #[test]
    fn a_glob_is_read_from_the_line_and_from_a_nested_string() {
        for line in [
            "cp x /etc/ss*/k",
            "bash -c 'cp x /etc/ss*/k'",
            "sudo sh -c \"bash -c 'cp x /etc/ss*/k'\"",
        ] {
            let call = read(line);
            let cp = call
                .commands
                .iter()
                .find(|c| c.name() == Some("cp"))
                .unwrap();
            assert_eq!(
                cp.args[1],
                Arg::Computed(Computed {
                    written: Some("/etc/ss*/k".into()),
                    known: Some("/etc/ss".into())
                }),
                "{line}"
            );
        }
        let call = read("echo x > .gi*/config");
        assert_eq!(
            call.redirects[0].target,
            Arg::Computed(Computed {
                written: Some(".gi*/config".into()),
                known: Some(".gi".into())
            })
        );
        assert_eq!(call.redirects[0].operator, ">");
    }

    #[test]
    fn text_piped_into_a_shell_is_read_as_a_line() {
        let call = read("echo 'rg login > out.txt' | sh");
        assert!(
            programs(&call).contains(&"rg login".to_owned()),
            "{:?}",
            programs(&call)
        );
        assert_eq!(call.redirects[0].target, Arg::Known("out.txt".into()));
        // Not a shell, or a shell given its own line: nothing more to read.
        assert_eq!(read("echo 'rg x' | cat").commands.len(), 2);
        assert_eq!(read("echo 'rg x' | sh -c 'ls'").commands.len(), 3);
    }

    #[test]
    fn lines_given_to_a_shell_by_eval_su_script_flock_and_xargs_are_read() {
        for line in [
            "eval 'rg x > out'",
            "eval rg x '>' out",
            "su -c 'rg x > out' root",
            "runuser -u bob -c 'rg x > out'",
            "script -qc 'rg x > out' /dev/null",
            "flock /tmp/l -c 'rg x > out'",
            "ls | xargs -I{} sh -c 'rg x > out'",
            "eval \"eval 'rg x > out'\"",
        ] {
            let call = read(line);
            assert!(
                programs(&call).contains(&"rg x".to_owned()),
                "{line}: {:?}",
                programs(&call)
            );
            assert!(
                call.redirects
                    .iter()
                    .any(|r| r.target == Arg::Known("out".into())),
                "{line}"
            );
        }
        let call = read("cd sub && eval 'touch x'");
        let touch = call
            .commands
            .iter()
            .find(|c| c.name() == Some("touch"))
            .unwrap();
        assert_eq!(touch.dirs, [PathBuf::from("/nonexistent-proj/sub")]);
        // `$(pwd)` is where the line is.
        let call = read("cd sub && cp x \"$(pwd)/y\"");
        let cp = call
            .commands
            .iter()
            .find(|c| c.name() == Some("cp"))
            .unwrap();
        assert_eq!(cp.args[1], Arg::Known("/nonexistent-proj/sub/y".into()));
    }

    #[test]
    fn a_find_feeding_xargs_is_read_as_that_find_exec() {
        for line in [
            "find . -name .env | xargs rm",
            "find . -name .env | sudo xargs -I% mv % /tmp/",
        ] {
            let call = read(line);
            let fed = call
                .commands
                .iter()
                .find(|c| matches!(c.fed, Some(Fed::Found(_))))
                .unwrap();
            assert!(fed.args.contains(&Arg::Known("{}".into())), "{line}");
            let writes = call.writes();
            assert!(
                writes.iter().any(|w| w
                    .finds
                    .as_ref()
                    .is_some_and(|f| f.names.iter().any(|(n, _)| n == ".env"))),
                "{line}: {writes:?}"
            );
        }
        // Known words are the model's, among the arguments once.
        let rm = |line: &str| {
            read(line)
                .commands
                .into_iter()
                .find(|c| c.name() == Some("rm"))
                .unwrap()
        };
        let known = rm("echo .env | xargs rm");
        assert_eq!(known.args, [Arg::Known(".env".into())]);
        assert_eq!(known.fed, Some(Fed::Known));
        assert_eq!(rm("ls | xargs rm").fed, Some(Fed::Unknown));
    }

    #[test]
    fn what_follows_a_here_documents_delimiter_is_read() {
        let call = read("cat <<'EOF' > .env; rm x\nKEY=x\nEOF");
        assert!(
            programs(&call).contains(&"rm x".to_owned()),
            "{:?}",
            programs(&call)
        );
        let written: Vec<&Arg> = call.redirects.iter().map(|r| &r.target).collect();
        assert_eq!(written, [&Arg::Known(".env".into())]);
        let call = read("bash -c 'cat <<EOF >> .env\nx\nEOF'");
        assert_eq!(call.redirects[0].kind, RedirectKind::Append);
        // The body is data.
        let call = read("cat <<EOF\nrm -rf /\nEOF");
        assert_eq!(programs(&call), ["cat"]);
    }

    #[test]
    fn a_descriptor_opened_to_read_and_write_writes() {
        let call = read("exec 3<> .env");
        assert_eq!(call.redirects[0].kind, RedirectKind::ReadWrite);
        assert_eq!(read("wc -l < .env").redirects[0].kind, RedirectKind::Read);
    }

    #[test]
    fn a_command_after_an_unknown_cd_may_run_in_every_directory_the_line_visits() {
        let call = read("cd \"$(git rev-parse --show-toplevel)\" && cd .git && touch x");
        let touch = call
            .commands
            .iter()
            .find(|c| c.name() == Some("touch"))
            .unwrap();
        assert!(
            touch.dirs.contains(&PathBuf::from("/nonexistent-proj")),
            "{:?}",
            touch.dirs
        );
        assert!(
            touch
                .dirs
                .contains(&PathBuf::from("/nonexistent-proj/.git")),
            "{:?}",
            touch.dirs
        );
        let call = read("cd src && touch x");
        let touch = call
            .commands
            .iter()
            .find(|c| c.name() == Some("touch"))
            .unwrap();
        assert_eq!(touch.dirs, [PathBuf::from("/nonexistent-proj/src")]);
    }
}
