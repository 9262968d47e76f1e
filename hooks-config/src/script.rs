//! The script a command hook runs: the file the loader checks exists and is executable, and
//! whose content consent pins.
//!
//! # Which file is the script
//!
//! - For a hook whose argv is split from the config (`./hooks/guard.sh --strict`, `python3 -u
//!   hooks/guard.py`), the same model as for a shell line, reading the words as one simple
//!   command (quoted: nothing in them is expanded): the program when it is named by a path, the
//!   script of a shell or an interpreter behind its options and wrappers (`sh -o errexit x.sh`,
//!   `python3 -W ignore x.py`, `env python3 x.py`, `nice -n 5 sh x.sh`, `timeout 5 sh x.sh`,
//!   `bash -ec "cd sub && ./x.sh"`, `env -C sub ./x.sh`), and the operands of a program it does
//!   not read (`uv run x.py`); a command that runs a module or what a variable leads to
//!   (`python3 -m mod`, `env BASH_ENV=x bash y.sh`) is not pinnable.
//! - A hook whose own `env` sets a variable that decides what runs or loads (`BASH_ENV`,
//!   `ENV`, `PATH`, `PYTHONPATH`, `NODE_OPTIONS`, `LD_PRELOAD`, …: see
//!   [`hookchain_shell::changes_what_runs`]) is not pinnable: what runs is what the value leads
//!   to.
//! - For a shell line run with `sh -c` (Claude Code and docker-agent configs), what the shell
//!   model ([`hookchain_shell`]) says the line runs: each program named by a path and each
//!   script a shell or an interpreter runs or sources, in every form the shell reads (lists,
//!   groups, subshells, pipelines, `cd`, `-c` strings, here-documents), after variables are
//!   expanded as the shell will expand them: every variable is the hook's own `env`
//!   (`CLAUDE_PLUGIN_ROOT` for a plugin's `hooks.json`), else, for `$CLAUDE_PROJECT_DIR` and
//!   `$HOOKCHAIN_PROJECT_DIR`, the directory the hook runs in, else the agent's environment
//!   (`$HOME`, `~`), and a variable in none is unset. Files the line reads or writes are not scripts. A line that computes
//!   what it runs is not pinnable ([`files_of`] errs with why).
//!
//! - With the scripts, the operands that may be code whose use the model cannot know: every
//!   operand of a program it does not read (a runner: `uv run x.py`, `npx tsx x.ts`, `deno run
//!   x.ts`) and an interpreter's operands before its script (`node -r ./pre.js x.js`). The
//!   arguments of a program named by a path or of a script are its data and are not pinned
//!   (`./log.sh /tmp/x.log`, `python3 hook.py --log x.log`), nor are `tee`'s operands, a
//!   wrapper's or a builtin's, nor any file the line's redirections write: a hook that writes a
//!   file keeps running after it wrote it.
//!
//! A relative path is taken from the hook's working directory (the current directory when it
//! sets none); `$HOOKCHAIN_PROJECT_DIR` and `$CLAUDE_PROJECT_DIR` are each the hook's own `env`
//! value when it sets one, else its working directory, as the hook is started with them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookchain_external::CommandSpec;

/// The line of a hook run with `sh -c LINE` (or `$SHELL -c LINE`), if it is one.
pub(crate) fn shell_line(spec: &CommandSpec) -> Option<&str> {
    match spec.argv.as_slice() {
        [sh, c, line] if c == "-c" && is_shell(sh) => Some(line),
        _ => None,
    }
}

/// `true` for a POSIX-style shell, by its name or path (`sh`, `/bin/bash`, `/usr/bin/zsh`): the
/// shells Claude Code (`sh`) and docker-agent (`$SHELL`) run hook lines with.
fn is_shell(program: &str) -> bool {
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    matches!(
        &*name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish"
    )
}

/// The file `spec` runs, when it can be told (see the [`consent`](crate::consent) module docs):
/// the first of the files its command names.
pub fn script_of(spec: &CommandSpec) -> Option<PathBuf> {
    files_of(spec).ok()?.into_iter().next()
}

/// Every file `spec`'s command runs, in the order named, as far as it can be told before it
/// runs: what [`hookchain_shell`] says the line runs — the programs named by a path and the
/// scripts a shell or an interpreter runs or sources, after `cd`, in lists, groups, subshells,
/// pipelines, wrappers, `-c` strings and here-documents — then the operands that may be code the
/// model does not know a program's use of ([`operand_files`]: `uv run x.py`, `node -r ./pre.js
/// x.js`); never a file the line only writes (`>> x.log`, `tee x.log`) nor the arguments a
/// script is given (`./log.sh /tmp/x.log`). A command split from the config (no shell) is read
/// by the same rules, as one simple command of quoted words. Only files that exist are listed.
///
/// Errs with why, when the line computes what it runs (a glob or a substitution naming the
/// program, `X=./x.sh; $X`, `eval`, a variable not known, a `cd` that may fail), or runs a file
/// that is not a regular one or whose `#!` line runs another: such a hook is not pinnable.
pub(crate) fn files_of(spec: &CommandSpec) -> Result<Vec<PathBuf>, String> {
    let base = base_dir(spec);
    let (line, shell) = match shell_line(spec) {
        Some(line) => {
            let shell = hookchain_shell::Shell::of_program(&spec.argv[0])
                .ok_or_else(|| format!("`{}` is not a shell hookchain reads", spec.argv[0]))?;
            (line.to_owned(), shell)
        }
        // A command split from the config runs without a shell: its words, each quoted, are
        // one simple command, read by the same model.
        None => (shell_words::join(&spec.argv), hookchain_shell::Shell::Posix),
    };
    let model = hookchain_shell::Line::parse(&line, shell, &line_context(spec, &base));
    let files = model.files_run().map_err(|dynamic| why(&line, &dynamic))?;
    cd_targets(&model, &base)?;
    let mut out: Vec<PathBuf> = Vec::new();
    for file in files {
        let file = base.join(file);
        if regular(&file)? && !out.contains(&file) {
            out.push(file);
        }
    }
    for file in operand_files(&model, &base) {
        let file = base.join(file);
        // An operand that is a directory is a runner's setting (`--project ./dir`), not code
        // it runs; a FIFO or a device is refused as for a script.
        if file.is_dir() || out.contains(&file) {
            continue;
        }
        if regular(&file)? {
            out.push(file);
        }
    }
    Ok(out)
}

/// The operands of the line's commands that may be code the model does not know how a program
/// runs: for a program the model does not read (a runner such as `uv run x.py`, `npx tsx x.ts`,
/// `deno run x.ts`, `make -f x.mk`), each operand; for an interpreter, the operands before its
/// script (`node -r ./pre.js x.js`, `--require=./pre.js`), or all of them when what it took for
/// its script is no file. Not: a builtin's operands (`echo`,
/// `printf`), the operands of a program named by a path or of a script (its own data:
/// `./log.sh /tmp/x.log`, `python3 hook.py --log x.log`), `tee`'s (written), a wrapper's (the
/// program it wraps is a command of its own), and no file the line's redirections write.
fn operand_files(line: &hookchain_shell::Line, base: &Path) -> Vec<PathBuf> {
    let written = line.files_written();
    let mut out = Vec::new();
    for command in &line.commands {
        let Some(program) = command.program.as_static() else {
            continue;
        };
        let name = program.rsplit('/').next().unwrap_or(program);
        if command.is_builtin() || is_path(program) || name == "tee" || wraps(line, command) {
            continue;
        }
        // After an interpreter's script come the script's own arguments: its data. A script
        // operand that is no file is a subcommand the model took for one (`deno run x.ts`):
        // every operand may be code then.
        let dir = command.dir.as_deref().unwrap_or(Path::new(""));
        let end = command
            .scripts
            .iter()
            .filter(|script| {
                script
                    .path
                    .as_static()
                    .is_some_and(|path| base.join(dir).join(path).is_file())
            })
            .filter_map(|script| command.args.iter().position(|arg| *arg == script.path))
            .min()
            .unwrap_or(command.args.len());
        for arg in &command.args[..end] {
            let Some(word) = arg.as_static() else {
                continue;
            };
            // `--require=./pre.js`: the option's value.
            let word = match word.split_once('=') {
                Some((option, value)) if option.starts_with('-') => value,
                _ => word,
            };
            let path = dir.join(word);
            if !word.is_empty() && !written.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

/// `true` when `command` is a wrapper (`env`, `timeout`, `find -exec`, …) of another command of
/// the line, which the model reports as a command of its own.
fn wraps(line: &hookchain_shell::Line, command: &hookchain_shell::Command) -> bool {
    let Some(program) = command.program.as_static() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    line.commands.iter().any(|inner| {
        !std::ptr::eq(inner, command)
            && inner.span.start >= command.span.start
            && inner.span.end <= command.span.end
            && inner
                .wrappers
                .iter()
                .any(|w| w.rsplit('/').next().unwrap_or(w) == name)
    })
}

/// Errs when `file` starts with a `#!` line that runs something the line does not name and
/// the system does not hold: a relative interpreter (`#!./run.sh`, run from the hook's
/// directory, whatever the file's), or a word after an absolute one that is a path of the
/// project or a setting (`#!/usr/bin/env ./run.sh`, `#!/usr/bin/env -S PATH=. x`). Bare names
/// (`#!/usr/bin/env python3`) and options are the system's.
fn shebang(file: &Path) -> Result<(), String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let read = std::fs::File::open(file)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let Some(line) = head[..read].strip_prefix(b"#!") else {
        return Ok(());
    };
    let line = line.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let Some(interpreter) = words.next() else {
        return Ok(());
    };
    let foreign = !interpreter.starts_with('/')
        || words.any(|w| !w.starts_with('-') && (w.contains('/') || w.contains('=')));
    if foreign {
        return Err(format!(
            "`{}` starts with `#!{}`, which runs a file the line does not name",
            file.display(),
            line.trim()
        ));
    }
    Ok(())
}

/// Whether `file`, which the command runs, is a regular file (pinned) or missing (nothing to
/// pin); errs for anything else: a directory, whose files an interpreter runs (`python3 ./tool`
/// runs `tool/__main__.py`, `node ./tool` its `index.js` or its package's `main`), or a FIFO, a
/// device, a socket, a link to `/dev/stdin`, whose content is whatever is written to it when
/// the hook runs.
fn regular(file: &Path) -> Result<bool, String> {
    match std::fs::metadata(file) {
        Ok(meta) if meta.is_file() => shebang(file).map(|()| true),
        Ok(meta) if meta.is_dir() => Err(format!(
            "`{}` is a directory: what runs is a file in it the command picks",
            file.display()
        )),
        Ok(_) => Err(format!(
            "`{}` is not a regular file: what it runs is what is written to it when the hook \
             runs",
            file.display()
        )),
        Err(_) => Ok(false),
    }
}

/// Why `spec` is not pinnable for its own `env`, when it is not: a variable there decides what
/// runs or loads (`BASH_ENV`, `PATH`, `NODE_OPTIONS`: see
/// [`hookchain_shell::changes_what_runs`]), so what runs is what its value leads to, not the
/// files the command names (which are pinned all the same).
pub(crate) fn env_not_pinnable(spec: &CommandSpec) -> Option<String> {
    let name = spec
        .env
        .keys()
        .find(|name| hookchain_shell::changes_what_runs(name))?;
    Some(format!(
        "its `env` sets `{name}`, which decides what the command runs or loads"
    ))
}

/// Errs when the line runs a relative program or script from a directory that is not one: a
/// `cd` there fails, and the shell runs it from the directory it was in (`cd missing; ./x.sh`
/// runs `./x.sh`, which the model looked for in `missing`).
fn cd_targets(model: &hookchain_shell::Line, base: &Path) -> Result<(), String> {
    for command in &model.commands {
        let relative = |p: &str| !p.starts_with('/');
        let runs_relative = command
            .program
            .as_static()
            .is_some_and(|p| p.contains('/') && relative(p))
            || command
                .scripts
                .iter()
                .any(|s| s.path.as_static().is_some_and(relative));
        if let Some(dir) = &command.dir
            && runs_relative
            && !base.join(dir).is_dir()
        {
            return Err(format!(
                "runs a relative path from `{}`, which is not a directory: `cd` fails there and \
                 the line runs it from where it was",
                dir.display()
            ));
        }
    }
    Ok(())
}

/// Why `line` is not pinnable: each part of it that is computed when it runs, and why.
fn why(line: &str, dynamic: &[hookchain_shell::Dynamic]) -> String {
    let parts: Vec<String> = dynamic
        .iter()
        .map(|d| format!("`{}`: {}", line.get(d.span.clone()).unwrap_or(line), d.why))
        .collect();
    parts.join("; ")
}

/// What the shell line knows before it runs, as the hook is started: the directory it starts
/// in, the agent's environment, `CLAUDE_PROJECT_DIR`, `HOOKCHAIN_PROJECT_DIR` and Gemini CLI's
/// `GEMINI_PROJECT_DIR` and `GEMINI_CWD` (all the directory it starts in), and the hook's `env`
/// over them, which may set any alone.
fn line_context(spec: &CommandSpec, base: &Path) -> hookchain_shell::Context {
    let inherited: Vec<(String, String)> = if spec.env_clear {
        spec.env_allow
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| (name.clone(), v)))
            .collect()
    } else {
        std::env::vars().collect()
    };
    let dir = base.display().to_string();
    hookchain_shell::Context::new(base)
        .vars(inherited)
        // The shell starts with `PWD` its directory, whatever the agent's `PWD` was.
        .var("PWD", dir.clone())
        .var("CLAUDE_PROJECT_DIR", dir.clone())
        .var("GEMINI_PROJECT_DIR", dir.clone())
        .var("GEMINI_CWD", dir.clone())
        .var("HOOKCHAIN_PROJECT_DIR", dir)
        .vars(spec.env.clone())
        .complete(true)
}

/// The program a shell line starts with, when it is named by a path (after the project
/// directory and `~` are expanded), from `working_dir`: what the loader checks exists. Bare
/// names (`jq`, `cd`, `python3`) are left to the shell.
pub(crate) fn shell_program(
    line: &str,
    working_dir: &Path,
    project_dir: &Path,
    env: &BTreeMap<String, String>,
) -> Option<PathBuf> {
    let words = shell_words::split(line).ok()?;
    let program = expand(words.first()?, project_dir, env);
    is_path(&program).then(|| working_dir.join(program))
}

/// `true` when a word names a file by a path rather than a name looked up on `PATH`.
pub(crate) fn is_path(word: &str) -> bool {
    word.contains('/')
}

fn base_dir(spec: &CommandSpec) -> PathBuf {
    match &spec.working_dir {
        Some(dir) if dir.is_absolute() => dir.clone(),
        Some(dir) => current_dir().join(dir),
        None => current_dir(),
    }
}

/// The directory of the firing (the session's project directory during one, so consent checks
/// the script the firing would run), else the current directory: `program::firing_dir`, which
/// asks [`hookchain_core::project`].
fn current_dir() -> PathBuf {
    hookchain_external::program::firing_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// Expands, as the shell will, `$NAME` and `${NAME}` anywhere in `word` — the project directory
/// for `CLAUDE_PROJECT_DIR` and `HOOKCHAIN_PROJECT_DIR`, else the hook's own `env`, else the
/// agent's environment, else nothing — and a leading `~/` (the home directory).
pub(crate) fn expand(word: &str, project_dir: &Path, env: &BTreeMap<String, String>) -> String {
    let value = |name: &str| -> String {
        match name {
            "CLAUDE_PROJECT_DIR"
            | "HOOKCHAIN_PROJECT_DIR"
            | "GEMINI_PROJECT_DIR"
            | "GEMINI_CWD" => project_dir.display().to_string(),
            _ => env
                .get(name)
                .cloned()
                .or_else(|| std::env::var(name).ok())
                .unwrap_or_default(),
        }
    };
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let (name, consumed) = match after.strip_prefix('{') {
            Some(braced) => match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            out.push('$');
            rest = after;
            continue;
        }
        out.push_str(&value(name));
        rest = &after[consumed..];
    }
    out.push_str(rest);
    if let Some(rest) = out.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty())
    {
        out = Path::new(&home).join(rest).display().to_string();
    }
    out
}

/// A word of a `hookchain.yaml` command with a leading `~/`, `$HOME/` or `${HOME}/` made the
/// home directory, as Hermes expands its commands (`os.path.expanduser`) and as its docs write
/// them (`~/.hermes/agent-hooks/guard.py`). Nothing else of the word is touched: hookchain's own
/// commands run without a shell.
pub(crate) fn expand_home(word: String) -> String {
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        return word;
    };
    for prefix in ["~/", "$HOME/", "${HOME}/"] {
        if let Some(rest) = word.strip_prefix(prefix) {
            return Path::new(&home).join(rest).display().to_string();
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(argv: &[&str], working_dir: &Path) -> CommandSpec {
        CommandSpec {
            argv: argv.iter().map(|s| (*s).to_owned()).collect(),
            display: argv.join(" "),
            env: BTreeMap::new(),
            working_dir: Some(working_dir.to_path_buf()),
            env_clear: false,
            env_allow: Vec::new(),
        }
    }

    #[test]
    fn the_script_is_the_program_or_the_interpreters_operand() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().to_path_buf();
        std::fs::create_dir_all(dir.join(".claude/hooks")).unwrap();
        std::fs::write(dir.join("guard.py"), "print()").unwrap();
        std::fs::write(dir.join(".claude/hooks/x.sh"), "exit 0").unwrap();

        let found = |argv: &[&str]| script_of(&spec(argv, &dir));
        assert_eq!(found(&["./guard.py"]), Some(dir.join("./guard.py")));
        assert_eq!(
            found(&["python3", "-u", "guard.py"]),
            Some(dir.join("guard.py"))
        );
        assert_eq!(found(&["python3", "missing.py"]), None);
        assert_eq!(found(&["./missing.sh"]), None);
        let line = "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh --fast";
        assert_eq!(
            found(&["sh", "-c", line]),
            Some(dir.join(format!("{}/.claude/hooks/x.sh", dir.display())))
        );
        assert_eq!(found(&["sh", "-c", "jq -r .tool_name"]), None);
        assert_eq!(
            shell_program(
                "${CLAUDE_PROJECT_DIR}/a.sh x",
                &dir,
                Path::new("/p"),
                &BTreeMap::new()
            ),
            Some(PathBuf::from("/p/a.sh"))
        );
        assert_eq!(
            shell_program("jq .", &dir, Path::new("/p"), &BTreeMap::new()),
            None
        );
        let plugin = BTreeMap::from([("CLAUDE_PLUGIN_ROOT".to_owned(), "/plug".to_owned())]);
        assert_eq!(
            shell_program(
                "\"${CLAUDE_PLUGIN_ROOT}\"/hooks/x.sh",
                &dir,
                Path::new("/p"),
                &plugin
            ),
            Some(PathBuf::from("/plug/hooks/x.sh"))
        );
        assert_eq!(
            expand("$NO_SUCH_VAR_HOOKCHAIN/x $5 ${", Path::new("/p"), &plugin),
            "/x $5 ${"
        );
    }
}
