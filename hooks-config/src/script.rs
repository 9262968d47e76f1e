//! The script a command hook runs: the file the loader checks exists and is executable, and
//! whose content consent pins.
//!
//! # Which file is the script
//!
//! - For a hook whose argv is split from the config (`./hooks/guard.sh --strict`, `python3 -u
//!   hooks/guard.py`), the same model as for a shell line, reading the words as one simple
//!   command (nothing expanded): the program when it is named by a path, the script of a shell
//!   or an interpreter behind its options and wrappers (`sh -o errexit x.sh`, `python3 -W ignore
//!   x.py`, `env python3 x.py`, `nice -n 5 sh x.sh`, `timeout 5 sh x.sh`), and the operands of a
//!   program it does not read (`uv run x.py`).
//! - For a shell line run with `sh -c` (Claude Code and docker-agent configs), what the shell
//!   model ([`hookchain_shell`]) says the line runs: each program named by a path and each
//!   script a shell or an interpreter runs or sources, in every form the shell reads (lists,
//!   groups, subshells, pipelines, `cd`, `-c` strings, here-documents), after variables are
//!   expanded as the shell will expand them: `$CLAUDE_PROJECT_DIR` and `$HOOKCHAIN_PROJECT_DIR`
//!   are the project directory, every other variable is the hook's own `env` (`CLAUDE_PLUGIN_ROOT`
//!   for a plugin's `hooks.json`) or else the agent's environment (`$HOME`, `~`), and a variable
//!   in neither is unset. Files the line reads or writes are not scripts. A line that computes
//!   what it runs is not pinnable ([`files_of`] errs with why).
//! - With the scripts, the operands that may be code whose use the model cannot know: every
//!   operand of a program it does not read (a runner: `uv run x.py`, `npx tsx x.ts`, `deno run
//!   x.ts`) and an interpreter's operands before its script (`node -r ./pre.js x.js`). The
//!   arguments of a program named by a path or of a script are its data and are not pinned
//!   (`./log.sh /tmp/x.log`, `python3 hook.py --log x.log`), nor are `tee`'s operands, a
//!   wrapper's or a builtin's, nor any file the line's redirections write: a hook that writes a
//!   file keeps running after it wrote it.
//!
//! A relative path is taken from the hook's working directory (the current directory when it
//! sets none); the project directory is the hook's `HOOKCHAIN_PROJECT_DIR` or
//! `CLAUDE_PROJECT_DIR` variable when it sets one, else its working directory.

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
/// by the same rules, as one simple command. Only files that exist are listed.
///
/// Errs with why, when the line computes what it runs (a glob or a substitution naming the
/// program, `X=./x.sh; $X`, `eval`, a variable not known): such a hook is not pinnable.
pub(crate) fn files_of(spec: &CommandSpec) -> Result<Vec<PathBuf>, String> {
    let base = base_dir(spec);
    let (line, shell, cx) = match shell_line(spec) {
        Some(line) => {
            let project = project_dir_variable(spec, &base);
            let shell = hookchain_shell::Shell::of_program(&spec.argv[0])
                .ok_or_else(|| format!("`{}` is not a shell hookchain reads", spec.argv[0]))?;
            (line.to_owned(), shell, line_context(spec, &base, &project))
        }
        // A command split from the config runs without a shell: its words, each quoted, are
        // one simple command, read by the same model (no word of it is expanded).
        None => (
            shell_words::join(&spec.argv),
            hookchain_shell::Shell::Posix,
            hookchain_shell::Context::new(&base).complete(true),
        ),
    };
    let model = hookchain_shell::Line::parse(&line, shell, &cx);
    let files = model.files_run().map_err(|dynamic| {
        let parts: Vec<String> = dynamic
            .iter()
            .map(|d| format!("`{}`: {}", line.get(d.span.clone()).unwrap_or(&line), d.why))
            .collect();
        parts.join("; ")
    })?;
    let mut out: Vec<PathBuf> = Vec::new();
    for file in files.into_iter().chain(operand_files(&model, &base)) {
        let file = base.join(file);
        if file.is_file() && !out.contains(&file) {
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

/// What the shell line knows before it runs: the directory it starts in, the agent's
/// environment with the hook's `env` over it, and the project directory as
/// `CLAUDE_PROJECT_DIR` and `HOOKCHAIN_PROJECT_DIR`.
fn line_context(spec: &CommandSpec, base: &Path, project: &Path) -> hookchain_shell::Context {
    let inherited: Vec<(String, String)> = if spec.env_clear {
        spec.env_allow
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| (name.clone(), v)))
            .collect()
    } else {
        std::env::vars().collect()
    };
    let project = project.display().to_string();
    hookchain_shell::Context::new(base)
        .vars(inherited)
        .vars(spec.env.clone())
        .var("CLAUDE_PROJECT_DIR", project.clone())
        .var("HOOKCHAIN_PROJECT_DIR", project)
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

/// What `$CLAUDE_PROJECT_DIR` and `$HOOKCHAIN_PROJECT_DIR` hold in the hook's command line: the
/// hook's own `env` when it sets them, else `base`, the directory it runs in (the firing's
/// project directory: see [`current_dir`]).
fn project_dir_variable(spec: &CommandSpec, base: &Path) -> PathBuf {
    spec.env
        .get("HOOKCHAIN_PROJECT_DIR")
        .or_else(|| spec.env.get("CLAUDE_PROJECT_DIR"))
        .map(PathBuf::from)
        .unwrap_or_else(|| base.to_path_buf())
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
            "CLAUDE_PROJECT_DIR" | "HOOKCHAIN_PROJECT_DIR" => project_dir.display().to_string(),
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
