//! The programs whose arguments decide what else runs: wrappers (which run their operand as a
//! command), shells and interpreters (which run a script operand or a string), and the shells'
//! builtins.
//!
//! Each table is written from the program's own usage (`env --help`, `timeout --help`, bash(1),
//! python3(1)); an option that takes a value is listed so that its value is never taken for the
//! program or the script.

use crate::{Shell, base_name};

/// `true` when `name` is a builtin (or a keyword run like one) of `shell`: it runs inside the
/// shell and executes no program file.
///
/// ```
/// use hookchain_shell::{Shell, is_builtin};
/// assert!(is_builtin(Shell::Bash, "source"));
/// assert!(!is_builtin(Shell::Posix, "source"));
/// assert!(!is_builtin(Shell::Bash, "jq"));
/// ```
pub fn is_builtin(shell: Shell, name: &str) -> bool {
    const COMMON: &[&str] = &[
        ":", ".", "alias", "bg", "break", "cd", "command", "continue", "echo", "eval", "exec",
        "exit", "export", "false", "fg", "getopts", "hash", "jobs", "kill", "local", "printf",
        "pwd", "read", "readonly", "return", "set", "shift", "test", "[", "times", "trap", "true",
        "type", "ulimit", "umask", "unalias", "unset", "wait",
    ];
    const BASH: &[&str] = &[
        "source",
        "builtin",
        "caller",
        "compgen",
        "complete",
        "declare",
        "dirs",
        "disown",
        "enable",
        "fc",
        "help",
        "history",
        "let",
        "logout",
        "mapfile",
        "popd",
        "pushd",
        "readarray",
        "shopt",
        "suspend",
        "typeset",
        "time",
    ];
    COMMON.contains(&name) || (shell == Shell::Bash && BASH.contains(&name))
}

/// How a wrapper reads its arguments before the command it runs.
pub(crate) struct Wrapper {
    /// Options that take the next word as their value.
    pub(crate) valued: &'static [&'static str],
    /// Leading `NAME=VALUE` words are settings, not the program (`env`).
    pub(crate) assignments: bool,
    /// Operands before the command (`timeout`'s duration).
    pub(crate) operands: usize,
    /// Options after which the wrapper runs nothing (`command -v`).
    pub(crate) runs_nothing: &'static [&'static str],
}

/// The wrapper `program` is, if it is one.
pub(crate) fn wrapper(program: &str) -> Option<Wrapper> {
    let w = |valued, assignments, operands, runs_nothing| {
        Some(Wrapper {
            valued,
            assignments,
            operands,
            runs_nothing,
        })
    };
    match base_name(program) {
        "env" => w(
            &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
            true,
            0,
            &[],
        ),
        "nice" => w(&["-n", "--adjustment"], false, 0, &[]),
        "timeout" => w(&["-s", "--signal", "-k", "--kill-after"], false, 1, &[]),
        "nohup" | "setsid" => w(&[], false, 0, &[]),
        "stdbuf" => w(
            &["-i", "-o", "-e", "--input", "--output", "--error"],
            false,
            0,
            &[],
        ),
        "command" => w(&[], false, 0, &["-v", "-V"]),
        "exec" => w(&["-a"], false, 0, &[]),
        "time" => w(&["-f", "--format", "-o", "--output"], false, 0, &[]),
        "xargs" => w(
            &[
                "-a",
                "-d",
                "-E",
                "-e",
                "-I",
                "-i",
                "-L",
                "-l",
                "-n",
                "-P",
                "-s",
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-lines",
                "--replace",
                "--max-chars",
                "--eof",
            ],
            false,
            0,
            &[],
        ),
        _ => None,
    }
}

/// How an interpreter reads its arguments before its script.
pub(crate) struct Interpreter {
    /// Options that take the next word as their value.
    pub(crate) valued: &'static [&'static str],
    /// Options whose value is the program text itself (`-c`, `-e`): no script file.
    pub(crate) inline: &'static [&'static str],
    /// Options whose value names code found elsewhere (`python3 -m mod`): what runs is not
    /// a file of the line's.
    pub(crate) elsewhere: &'static [&'static str],
}

/// The interpreter `program` is, if it is one this model knows (shells are read apart, by
/// [`crate::model`]).
pub(crate) fn interpreter(program: &str) -> Option<Interpreter> {
    let name = base_name(program);
    let i = |valued, inline, elsewhere| {
        Some(Interpreter {
            valued,
            inline,
            elsewhere,
        })
    };
    let python = name == "python"
        || name
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    if python {
        return i(&["-W", "-X", "--check-hash-based-pycs"], &["-c"], &["-m"]);
    }
    match name {
        "node" | "nodejs" => i(
            &["-r", "--require", "--import", "--loader", "--env-file"],
            &["-e", "--eval", "-p", "--print"],
            &[],
        ),
        "deno" | "bun" | "tsx" | "ts-node" => i(&[], &["-e", "--eval"], &[]),
        "ruby" => i(&["-I", "-r", "-C"], &["-e"], &[]),
        "perl" => i(&["-I", "-M", "-m"], &["-e", "-E"], &[]),
        "php" => i(&["-c", "-d"], &["-r"], &[]),
        "Rscript" => i(&[], &["-e"], &[]),
        "lua" | "luajit" => i(&["-l"], &["-e"], &[]),
        "osascript" => i(&[], &["-e"], &[]),
        _ => None,
    }
}
