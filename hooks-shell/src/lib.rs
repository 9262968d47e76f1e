//! What a shell command line would run, read without running it.
//!
//! [`Line::parse`] reads a command line as `sh -c LINE` or `bash -c LINE` would and says what it
//! would execute: every simple command (after its wrappers: `env`, `nice`, `timeout`, `nohup`,
//! `command`, `exec`, `time`, `stdbuf`, `setsid`, `sudo`, `doas`, `pkexec`, `ssh-agent`, `busybox`,
//! `flock`, `runuser -u`, `chroot`, `screen`, `xargs`, `find -exec`), the directory each is looked
//! up from (`cd` moves it for the commands after it), the scripts a shell or an interpreter runs or
//! sources (`bash -euo pipefail x.sh`, `python3 -u x.py`, `source x.sh`), the code an interpreter
//! is given inline ([`Command::code`]), the lines a shell runs from `-c STRING`, from a
//! here-document or a here-string, or from a pipe whose text the line writes (`echo …`, `printf …`,
//! `cat <<EOF`), the lines `eval`, `su -c`, `runuser -c`, `script -c`, `flock -c`, `watch`, `tmux`
//! (a new session's, window's or pane's command) and `env -S` run (each read again with the same
//! rules), and the files the line reads and writes through redirections. Redirection targets are
//! files *written* or *read*, never scripts; a here-document given to a program that is not a shell
//! is data. The words `xargs` adds to its command are the words it reads when the line gives them,
//! and the paths `find -exec` and `xargs` are fed by `find` are words starting with `find`'s start
//! point. What would run and cannot be read is listed in [`Line::unread`].
//!
//! What the line computes when it runs — a glob, a command substitution, a variable the caller
//! does not know, a variable the line itself sets naming a program — is never guessed: it is a
//! [`Dynamic`] with the byte span in the line, the reason and, for a word, what is known of it
//! ([`Part`]s: `"$X/out"` is a value not known then `/out`), so that a guard can judge what the
//! word may be.
//! Consent pins the files a hook runs with it, and refuses to pin a line whose program or
//! script is dynamic; the guards read tool calls' shell commands with it.
//!
//! ```
//! use hookchain_shell::{Context, Line, Shell, Word};
//!
//! let cx = Context::new("/work").var("CLAUDE_PROJECT_DIR", "/proj");
//! let line = Line::parse(
//!     r#"(cd "$CLAUDE_PROJECT_DIR" && ./hooks/check.sh --fast) >> /tmp/hook.log 2>&1"#,
//!     Shell::Posix,
//!     &cx,
//! );
//! let check = &line.commands[1];
//! assert_eq!(check.program, Word::Static("./hooks/check.sh".into()));
//! assert_eq!(check.dir.as_deref(), Some(std::path::Path::new("/proj")));
//! // The log is written, never run.
//! assert_eq!(line.files_run().unwrap(), vec![std::path::PathBuf::from("/proj/hooks/check.sh")]);
//! assert_eq!(line.redirects[0].target, Word::Static("/tmp/hook.log".into()));
//!
//! // A program the line computes cannot be known before it runs.
//! let line = Line::parse("X=./x.sh; $X", Shell::Posix, &cx);
//! assert!(line.files_run().is_err());
//! ```
//!
//! # The grammar, and why this one
//!
//! The line is parsed with [tree-sitter-bash], the bash grammar of the tree-sitter project (as
//! Codex does to judge commands): it is maintained, it reads bash's whole syntax, and it is
//! error-tolerant — a part it cannot read is an `ERROR` or `MISSING` node, which is reported as
//! dynamic rather than failing the whole line. Its parser is C compiled with `cc` (five small
//! crates). brush-parser (pure Rust) pulls some 76 crates, test snapshot crates among its normal
//! dependencies; yash-syntax's current release needs a newer Rust than this workspace's. The
//! meaning given to the tree — which words are programs, what `cd`, wrappers and shells'
//! options do, which expansions are known — is this crate's, and is held to bash's and dash's
//! own behaviour by a differential test (`tests/differential.rs`): lines of a corpus and lines
//! generated from a small grammar are run under `bash` and `dash` in a sandbox whose `PATH` is
//! stub programs that log their argv, and what ran is compared with what the model predicted.
//!
//! # The rules it keeps
//!
//! - Static means the same on every run given the caller's [`Context`]: the variables it knows
//!   (the project directory, the hook's `env`), and whether every other variable is unset
//!   ([`Context::complete`]) or unknown. `~` is `HOME` from the context; under bash `~+` is
//!   `PWD` and `~-` is `OLDPWD`.
//! - Under [`Shell::Bash`] a brace expansion is the words it makes (`/{etc,usr}` is `/etc`
//!   and `/usr`, `{1..3}` is `1 2 3`); under [`Shell::Posix`] it is dynamic (dash leaves it as
//!   written, bash as `sh` expands it). An unquoted expansion of a known value is split at its
//!   blanks into words (the line cannot have changed `IFS`: that is dynamic); one that is empty
//!   disappears, as in the shell. A word holding an unquoted glob character is dynamic, its
//!   pattern kept in its [`Part`]s.
//! - A variable the line assigns is known to the words after it (arguments, redirection
//!   targets), but a program or a script named through it is dynamic: an assignment the line
//!   makes can depend on what ran before it, and a program that is not written in the line
//!   itself is not what a reader approves (the command is read all the same, for a guard). An
//!   assignment or a `cd` made under a condition (`&&`, `||`, `if`, loops) leaves the variable
//!   or the directory unknown after it, but for the rest of a run of `&&`, which runs only
//!   where it went (`mkdir x && cd x && rm -rf ./*` runs `rm` in `x`). `PWD` is the directory
//!   the line starts in, and `$(pwd)` is `$PWD` (unless the line defines a function `pwd`).
//! - A redirection on a function's definition is the line's (it applies at each call), and so
//!   is one written after a here-document's delimiter (`cat <<EOF > f`), which the grammar
//!   hangs inside the here-document; text there the grammar cannot parse (`cat <<EOF > f; rm
//!   x`) is listed as unread.
//! - A `for` loop over known words runs its body with each of them in turn (up to 16; past
//!   that, or over a glob or a substitution, its variable is not known), and leaves its
//!   variable unknown after it.
//! - A `-c` string's operands are its `$0`, `$1`, … (`sh -c 'rm "$1"' _ x` runs `rm x`), until
//!   `shift` or `set` moves them; `"$@"` and `$*` are known when there is one. A program named
//!   through one is dynamic, as for a variable the line sets. A function's are not known.
//! - `cd DIR` moves the directory of the commands after it in the same shell (not past a
//!   subshell, a pipeline or `&`). A `cd` through `..` leaves the directory unknown: where it
//!   leads depends on links (the shell's `cd link/..` is where `link` is; `cd -P`, and a shell
//!   started in a linked directory, go to the parent of its target). A `cd` that would fail at
//!   run time is not foreseen: the commands after `cd missing;` are looked up from `missing`.
//! - A line that sets a variable deciding what runs or what a program loads — `PATH`,
//!   `BASH_ENV`, `ENV`, `HOME`, `IFS`, `PS4`, `PYTHONPATH`, `NODE_OPTIONS`, `PERL5OPT`,
//!   `LD_PRELOAD`, git's program variables, in an assignment, `export`, `env`, `read`, a `for`
//!   loop or `unset` — is dynamic: what runs after it is not what the line names. So is a
//!   line that changes what a later word means (`alias`, `hash -p`, `enable -f`), an
//!   interpreter's option that loads a module (`node -r`, `perl -M`, `python3 -m`), a script
//!   read from a descriptor (`bash /dev/stdin`), and text bash would evaluate as arithmetic
//!   with a command substitution in an array subscript (`let 'x=a[$(…)]'`).
//! - A bare program name is looked up on `PATH` by the shell and is not a file of the line's;
//!   a program named by a path (holding a `/`) is, and so is every script operand.
//! - A line that another program gives a shell of its choosing or runs elsewhere — `eval`,
//!   `su -c`, `runuser -c`, `script -c`, `flock -c`, `watch`, `tmux`, `chroot`, `pkexec`,
//!   `env -S` — is read as commands of its own (a guard judges them) and stays dynamic: it is
//!   not a line a reader approves as written.
//! - The words `xargs` adds are the words it reads, when its input is text the line writes;
//!   when `find` writes it, or for `find -exec`'s `{}`, a path starting with `find`'s start
//!   point ([`Part::Unknown`] after it); otherwise a value not known.
//! - A part nested deeper than the walk follows (some hundred levels of `$(…)`, `( … )`,
//!   `{ …; }` and nested lines together) is dynamic: reading a line never overflows the stack.
//! - A command under a condition is still reported, with [`Command::conditional`] set: the
//!   model says what *may* run.
//!
//! [tree-sitter-bash]: https://github.com/tree-sitter/tree-sitter-bash

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

mod model;
mod table;
mod word;

pub use table::{changes_what_runs, is_builtin};

/// Which shell reads the line: what `$'…'` and brace expansion mean, and which names are
/// builtins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shell {
    /// `bash` (and `sh` where it is bash): `$'…'` ANSI-C quoting, `{a,b}` brace expansion,
    /// `source`.
    Bash,
    /// A POSIX `sh` such as `dash`, or bash as `sh` (macOS's `/bin/sh`): `$'…'` is not a quote
    /// it is sure to read, a brace expansion may expand or not (dynamic), `source` may source.
    Posix,
}

impl Shell {
    /// The shell a program name runs, when it is a shell this model reads: `bash` is
    /// [`Shell::Bash`]; `sh`, `dash`, `ash`, `ksh`, `mksh` and `zsh` are read as [`Shell::Posix`]
    /// (what they share; where they differ the model reports the part as dynamic).
    ///
    /// ```
    /// use hookchain_shell::Shell;
    /// assert_eq!(Shell::of_program("/usr/bin/bash"), Some(Shell::Bash));
    /// assert_eq!(Shell::of_program("sh"), Some(Shell::Posix));
    /// assert_eq!(Shell::of_program("python3"), None);
    /// ```
    pub fn of_program(program: &str) -> Option<Shell> {
        match base_name(program) {
            "bash" => Some(Shell::Bash),
            "sh" | "dash" | "ash" | "ksh" | "mksh" | "zsh" => Some(Shell::Posix),
            _ => None,
        }
    }
}

/// What the caller knows of the line's surroundings: the directory it starts in and the values
/// of variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    dir: PathBuf,
    vars: BTreeMap<String, String>,
    complete: bool,
}

impl Context {
    /// A context starting in `dir`, knowing no variable: every expansion of a variable is
    /// dynamic until [`var`](Self::var) gives it or [`complete`](Self::complete) says the
    /// others are unset.
    pub fn new(dir: impl Into<PathBuf>) -> Context {
        Context {
            dir: dir.into(),
            vars: BTreeMap::new(),
            complete: false,
        }
    }

    /// Sets a variable's value (`HOME` is also what `~` means).
    pub fn var(mut self, name: impl Into<String>, value: impl Into<String>) -> Context {
        self.vars.insert(name.into(), value.into());
        self
    }

    /// Sets several variables' values.
    pub fn vars<K: Into<String>, V: Into<String>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Context {
        for (k, v) in vars {
            self.vars.insert(k.into(), v.into());
        }
        self
    }

    /// Says whether the variables given are the whole environment (`true`: any other is unset,
    /// as under `env -i`) or only part of it (`false`, the default: any other is dynamic).
    pub fn complete(mut self, complete: bool) -> Context {
        self.complete = complete;
        self
    }

    /// The directory the line starts in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// A word of the line after expansion and quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// The same text on every run.
    Static(String),
    /// Computed when the line runs.
    Dynamic(Dynamic),
}

impl Word {
    /// The text, when it is static.
    pub fn as_static(&self) -> Option<&str> {
        match self {
            Word::Static(s) => Some(s),
            Word::Dynamic(_) => None,
        }
    }
}

/// A part of the line whose meaning is only known when it runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Dynamic {
    /// Its byte span in the line given to [`Line::parse`] (for a part of a nested line — a `-c`
    /// string, a here-document — the span of the word that holds it).
    pub span: Range<usize>,
    /// Why it cannot be known, as a sentence fragment ("a glob, matched against files when the
    /// line runs").
    pub why: String,
    /// For a word: what is known of it, in order (`"$X/out"` is a value not known, then
    /// `/out`; `/?*` is `/` then two glob patterns). Empty for a part of the line that is not
    /// a word.
    pub parts: Vec<Part>,
}

/// A piece of a dynamic word.
///
/// A guard judges a word it cannot know by these: `"$TMPDIR/x"` can only name an entry `x`,
/// while `"$X/.."` or `$X/*` can name any directory.
///
/// ```
/// use hookchain_shell::{Context, Line, Part, Shell, Word};
///
/// let line = Line::parse(r#"rm -rf "$X/out" /?*"#, Shell::Bash, &Context::new("/w"));
/// let Word::Dynamic(out) = &line.commands[0].args[1] else { panic!() };
/// assert_eq!(
///     out.parts,
///     [
///         Part::Unknown { name: Some("X".into()), split: false },
///         Part::Text("/out".into()),
///     ]
/// );
/// let Word::Dynamic(root) = &line.commands[0].args[2] else { panic!() };
/// assert_eq!(
///     root.parts,
///     [Part::Text("/".into()), Part::Glob("?".into()), Part::Glob("*".into())]
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Part {
    /// Text that is the same on every run, after quote removal.
    Text(String),
    /// A pattern character the shell matches against file names when the line runs, as
    /// written: `*`, `?`, or a class `[…]`.
    Glob(String),
    /// A value known only when the line runs: `name` is the variable it is the value of (`$X`,
    /// `${X}`, `${X:?}`; `HOME` for a `~` whose home is not known), `None` for anything else
    /// (a command substitution, a `${…}` operation, a word a program feeds, such as the paths
    /// `find` hands to `-exec` or the words `xargs` reads). `split` when it is unquoted: the
    /// shell may split it into several words, or none, and match its glob characters.
    Unknown {
        /// The variable, when it is one's value.
        name: Option<String>,
        /// Unquoted: split and globbed.
        split: bool,
    },
}

impl std::fmt::Display for Dynamic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "bytes {}..{}: {}",
            self.span.start, self.span.end, self.why
        )
    }
}

/// A simple command the line may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The program: a builtin, a name looked up on `PATH`, or a path.
    pub program: Word,
    /// Its arguments after expansion; an argument that expands to nothing is left out, as the
    /// shell leaves it out.
    pub args: Vec<Word>,
    /// The directory it runs in and relative paths are looked up from (`None` when an earlier
    /// `cd` went somewhere unknown).
    pub dir: Option<PathBuf>,
    /// The shell that runs it (which names are builtins).
    pub shell: Shell,
    /// The wrappers it runs through, outermost first (`env`, `nice`, `timeout`, `exec`, …);
    /// each wrapper is also a command of its own in [`Line::commands`].
    pub wrappers: Vec<String>,
    /// The scripts this command runs or sources: a shell's or an interpreter's script operand
    /// (`bash x.sh`, `python3 -u x.py`), `source x.sh`.
    pub scripts: Vec<Script>,
    /// `true` when it runs only if something before it succeeds or fails, or in a branch, loop
    /// or function body.
    pub conditional: bool,
    /// Where its standard input comes from.
    pub input: Input,
    /// Its redirections, as indices in [`Line::redirects`] (a wrapped command shares its
    /// wrapper's).
    pub redirects: Range<usize>,
    /// The program text an interpreter runs that the line holds: its inline code
    /// (`python3 -c CODE`, `perl -e CODE`, `node -e CODE`, `ruby -e CODE`), or what its
    /// standard input holds when the line gives it (`echo 'print(1)' | python3`). A shell's
    /// line is read instead, as commands of its own.
    pub code: Option<Word>,
    /// Its byte span in the line (see [`Dynamic::span`] for nested lines).
    pub span: Range<usize>,
}

impl Command {
    /// The program's path when it is named by one (holds a `/`), from the command's directory.
    pub fn program_path(&self) -> Option<PathBuf> {
        let program = self.program.as_static()?;
        if !program.contains('/') {
            return None;
        }
        Some(self.dir.as_deref().unwrap_or(Path::new("")).join(program))
    }

    /// `true` when the program is a builtin of the shell that runs it (`cd`, `echo`, `source`):
    /// it runs inside the shell, no program file is executed.
    pub fn is_builtin(&self) -> bool {
        self.program
            .as_static()
            .is_some_and(|p| is_builtin(self.shell, p))
    }
}

/// Where a command's standard input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// The line's own standard input (the agent's, or nothing).
    Inherited,
    /// A pipe from the part of a pipeline before it: `from` are the indices, in
    /// [`Line::commands`], of the commands of that part; `text` is what they write, when the
    /// model knows it (`echo TEXT`, `printf FORMAT ARGS` with static words, `cat` of a
    /// here-document).
    Pipe {
        /// The commands writing into the pipe.
        from: Range<usize>,
        /// What they write, when it is known.
        text: Option<String>,
    },
    /// A here-document's body or a here-string.
    Text(Word),
    /// A file read with `<`.
    File(Word),
}

/// A script a command runs or sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The script operand as the line names it.
    pub path: Word,
    /// Its arguments (for a shell script: `$1`, `$2`, …).
    pub args: Vec<Word>,
    /// `true` for `source`/`.`: it runs inside the current shell.
    pub sourced: bool,
}

/// What a redirection does with its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RedirectKind {
    /// `<`: the target is read.
    Read,
    /// `>`, `>|`, `&>`, `>& FILE`: the target is written (truncated).
    Write,
    /// `>>`, `&>>`: the target is appended to.
    Append,
    /// `<>`: the target is opened to read and write.
    ReadWrite,
    /// `2>&1`, `<&0`, `>&-`: a descriptor is copied or closed; the target is a descriptor.
    Duplicate,
    /// `<<`, `<<-`: a here-document; the target is its body.
    HereDocument,
    /// `<<<`: a here-string; the target is the string.
    HereString,
}

/// A redirection and its target: a file read or written, never a file run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// What it does.
    pub kind: RedirectKind,
    /// The file (for [`RedirectKind::Read`], [`Write`](RedirectKind::Write),
    /// [`Append`](RedirectKind::Append), [`ReadWrite`](RedirectKind::ReadWrite)), the descriptor
    /// or the body.
    pub target: Word,
    /// The directory a relative target is taken from (`None` when unknown).
    pub dir: Option<PathBuf>,
    /// Its byte span in the line.
    pub span: Range<usize>,
}

impl Redirect {
    /// `true` when the target is a file written ([`Write`](RedirectKind::Write),
    /// [`Append`](RedirectKind::Append), [`ReadWrite`](RedirectKind::ReadWrite)).
    pub fn writes(&self) -> bool {
        matches!(
            self.kind,
            RedirectKind::Write | RedirectKind::Append | RedirectKind::ReadWrite
        )
    }
}

/// What a command line would run: its commands in the order they would start, its
/// redirections, and what of it cannot be known before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Every simple command, nested ones included (a `-c` string's, a substitution's, a
    /// wrapped program), in the order the shell would start them.
    pub commands: Vec<Command>,
    /// Every redirection, nested ones included.
    pub redirects: Vec<Redirect>,
    /// What decides *what runs* and cannot be known before the line runs: a program, a script
    /// operand, a directory of `cd`, a line given to a shell, `eval`. (A dynamic argument of a
    /// command that runs no script of its own, such as `echo "$(date)"`, is a
    /// [`Word::Dynamic`] in its command and is not listed here; the commands of its
    /// substitution are.)
    pub dynamic: Vec<Dynamic>,
    /// What would run that the model could not read as commands, each also in
    /// [`dynamic`](Self::dynamic): code computed when the line runs (`bash -c "$X"`, `eval
    /// "$X"`, `curl … | sh`, `xargs sh -c`), text the grammar does not parse, parts nested
    /// too deeply. A guard that judges commands decides these by its policy for what it cannot
    /// read. (A program named by a dynamic word is a command of [`commands`](Self::commands)
    /// with a dynamic [`program`](Command::program); a script's content is not the line's.)
    pub unread: Vec<Dynamic>,
}

impl Line {
    /// Reads `line` as `shell` would run it with `-c`, in the surroundings `cx` gives.
    pub fn parse(line: &str, shell: Shell, cx: &Context) -> Line {
        model::parse(line, shell, cx)
    }

    /// The files the line runs, in the order named: each program named by a path, each script
    /// a shell or an interpreter runs or sources, each from the directory of its command.
    /// Errs with what is dynamic when the line's programs or scripts cannot all be known.
    pub fn files_run(&self) -> Result<Vec<PathBuf>, Vec<Dynamic>> {
        if !self.dynamic.is_empty() {
            return Err(self.dynamic.clone());
        }
        let mut files = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for command in &self.commands {
            let paths = command.program_path().into_iter().chain(
                command
                    .scripts
                    .iter()
                    .filter_map(|s| s.path.as_static())
                    .map(|p| command.dir.as_deref().unwrap_or(Path::new("")).join(p)),
            );
            for path in paths {
                if seen.insert(path.clone()) {
                    files.push(path);
                }
            }
        }
        Ok(files)
    }

    /// The files the line's redirections write (`>`, `>>`, `&>`, `<>`), static ones from the
    /// directory they are opened in.
    pub fn files_written(&self) -> Vec<PathBuf> {
        self.redirects
            .iter()
            .filter(|r| r.writes())
            .filter_map(|r| {
                let target = r.target.as_static()?;
                Some(r.dir.as_deref().unwrap_or(Path::new("")).join(target))
            })
            .collect()
    }
}

/// The last component of a program's path (`/usr/bin/bash` → `bash`), without a `.exe`
/// (`python3.exe`, as Git Bash and WSL lines name programs, is `python3`).
pub(crate) fn base_name(program: &str) -> &str {
    let base = program.rsplit('/').next().unwrap_or(program);
    base.strip_suffix(".exe").unwrap_or(base)
}
