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
        // bash's `builtin NAME`: runs the builtin (`builtin source x.sh`).
        "builtin" => w(&[], false, 0, &[]),
        // bash's `coproc CMD` runs CMD beside the shell.
        "coproc" => w(&[], false, 0, &[]),
        "ionice" => w(
            &["-c", "--class", "-n", "--classdata"],
            false,
            0,
            &["-p", "--pid", "-P", "--pgid", "-u", "--uid"],
        ),
        "taskset" => w(&[], false, 1, &["-p", "--pid"]),
        "chrt" => w(
            &[
                "-T",
                "--sched-runtime",
                "-P",
                "--sched-period",
                "-D",
                "--sched-deadline",
            ],
            false,
            1,
            &["-p", "--pid", "-m", "--max"],
        ),
        // `flock FILE CMD…` (`flock FD` runs nothing; `-c` is read apart).
        "flock" => w(
            &["-w", "--timeout", "-E", "--conflict-exit-code"],
            false,
            1,
            &[],
        ),
        "busybox" | "toybox" => w(&[], false, 0, &["--list", "--help", "--install"]),
        "sudo" => w(
            &[
                "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R",
            ],
            true,
            0,
            &[
                "-l",
                "--list",
                "-v",
                "--validate",
                "-k",
                "-K",
                "-V",
                "-e",
                "--edit",
            ],
        ),
        "doas" => w(&["-u", "-C"], false, 0, &[]),
        // `screen -dm [-S NAME] COMMAND…` runs the command in a new window.
        "screen" => w(
            &["-S", "-c", "-e", "-h", "-p", "-T", "-t", "-s", "-Logfile"],
            false,
            0,
            &["-ls", "-list", "-r", "-R", "-x", "-X", "-v", "-wipe", "-Q"],
        ),
        // `pkexec [--user USER] PROGRAM…` (from the user's home, unless `--keep-cwd`).
        "pkexec" => w(&["--user"], false, 0, &["--version", "--help"]),
        // `ssh-agent [OPTIONS] COMMAND…` runs the command with the agent set up.
        "ssh-agent" => w(
            &["-a", "-E", "-O", "-P", "-t"],
            false,
            0,
            &["-k", "-l", "-D", "-d"],
        ),
        "strace" => w(
            &[
                "-o", "-e", "-p", "-s", "-E", "-P", "-a", "-b", "-I", "-O", "-S", "-U", "-X",
            ],
            false,
            0,
            &[],
        ),
        "ltrace" => w(
            &["-o", "-e", "-p", "-s", "-n", "-a", "-u", "-x"],
            false,
            0,
            &[],
        ),
        "unshare" | "nsenter" | "setpriv" | "prlimit" | "firejail" | "unbuffer"
        | "dbus-run-session" | "catchsegv" => w(&["-S", "-G", "-t"], false, 0, &[]),
        "numactl" => w(
            &["-C", "-N", "-m", "-p", "-i", "-P"],
            false,
            0,
            &["-H", "-s"],
        ),
        "fakeroot" => w(&["-l", "-s", "-i", "-b"], false, 0, &[]),
        "xvfb-run" => w(&["-n", "-s", "-f", "-e", "-p", "-w"], false, 0, &[]),
        "caffeinate" => w(&["-t", "-w"], false, 0, &[]),
        "arch" => w(&[], false, 0, &[]),
        "systemd-run" => w(&["-p", "-u", "-M", "-H", "-E"], false, 0, &[]),
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
    /// Options that run code found elsewhere than the line (`python3 -m mod`, `node -r mod`,
    /// `perl -Mmod`, `php -d auto_prepend_file=…`): what runs is not a file of the line's.
    pub(crate) elsewhere: &'static [&'static str],
    /// Options are still read after inline code (`perl -e CODE -Mmod`, `node -e CODE -r
    /// mod`); Python's end at `-c`.
    pub(crate) options_after_inline: bool,
    /// A leading subcommand that runs a script (`deno run x.ts`, `bun run x.ts`).
    pub(crate) run_subcommand: bool,
    /// Options whose value, if any, is the rest of their word only (`perl -i.bak`, `-0777`,
    /// `-l`): `perl -pie x.pl` is `-p -ie` and a script.
    pub(crate) attached: &'static [&'static str],
    /// Options whose value is a script file (`awk -f x.awk`, `sed -f x.sed`).
    pub(crate) script_options: &'static [&'static str],
    /// The first operand is program text, never a script (`awk '{…}' file`, `sed 's/a/b/'`):
    /// a script comes from an option only.
    pub(crate) code_operand: bool,
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
            options_after_inline: true,
            run_subcommand: false,
            attached: &[],
            script_options: &[],
            code_operand: false,
        })
    };
    let python = name == "python"
        || name
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    if python {
        return Some(Interpreter {
            valued: &["-W", "-X", "--check-hash-based-pycs"],
            inline: &["-c"],
            elsewhere: &["-m"],
            options_after_inline: false,
            run_subcommand: false,
            attached: &[],
            script_options: &[],
            code_operand: false,
        });
    }
    match name {
        "node" | "nodejs" => i(
            &["--env-file"],
            &["-e", "--eval", "-p", "--print"],
            &[
                "-r",
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
                "--env-file",
                "--env-file-if-exists",
            ],
        ),
        "deno" | "bun" => Some(Interpreter {
            valued: &[],
            inline: &["-e", "--eval"],
            elsewhere: &["-r", "--preload", "--require", "--import", "--env-file"],
            options_after_inline: true,
            run_subcommand: true,
            attached: &[],
            script_options: &[],
            code_operand: false,
        }),
        "tsx" | "ts-node" => i(&[], &["-e", "--eval"], &["-r", "--require", "--import"]),
        "ruby" => i(&["-I", "-C"], &["-e"], &["-r"]),
        "perl" => Some(Interpreter {
            valued: &["-I"],
            inline: &["-e", "-E"],
            elsewhere: &["-M", "-m", "-d"],
            options_after_inline: true,
            run_subcommand: false,
            attached: &["-i", "-0", "-l", "-x", "-C", "-D", "-V"],
            script_options: &[],
            code_operand: false,
        }),
        "php" => i(&[], &["-r"], &["-c", "-d"]),
        "Rscript" => i(&[], &["-e"], &[]),
        "lua" | "luajit" => i(&[], &["-e"], &["-l"]),
        "osascript" => i(&[], &["-e"], &[]),
        "tclsh" | "wish" | "expect" => i(&[], &["-c"], &[]),
        // awk's program is its first operand, or the files of `-f` (which may `system()`);
        // sed's is its first operand, or `-e` and the files of `-f` (GNU sed's `e` runs a
        // command).
        "awk" | "gawk" | "mawk" | "nawk" => Some(Interpreter {
            valued: &["-v", "-F"],
            inline: &["-e", "--source"],
            elsewhere: &["-l", "--load"],
            options_after_inline: true,
            run_subcommand: false,
            attached: &[],
            script_options: &["-f", "--file", "-i", "--include"],
            code_operand: true,
        }),
        "sed" | "gsed" => Some(Interpreter {
            valued: &["-l", "--line-length"],
            inline: &["-e", "--expression"],
            elsewhere: &[],
            options_after_inline: true,
            run_subcommand: false,
            attached: &["-i"],
            script_options: &["-f", "--file"],
            code_operand: true,
        }),
        _ => None,
    }
}

/// `true` for a variable whose value decides which file a command runs or which code a
/// program loads besides its script: `PATH` (where a bare name is found), the startup files of
/// shells (`BASH_ENV`, `ENV`, `HOME`'s dotfiles, `ZDOTDIR`), the options and prompts a shell
/// runs code from (`SHELLOPTS`, `PS4`, `PROMPT_COMMAND`), how words split (`IFS`), the module
/// paths and option variables of interpreters (`PYTHONPATH`, `NODE_OPTIONS`, `PERL5OPT`,
/// `RUBYOPT`), the dynamic loader's (`LD_PRELOAD`), and the programs git and other tools run
/// (`GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`, `PAGER`, `EDITOR`). A line that sets one runs what
/// its value leads to, which is not a file of the line's.
///
/// ```
/// use hookchain_shell::changes_what_runs;
/// assert!(changes_what_runs("BASH_ENV"));
/// assert!(changes_what_runs("NODE_OPTIONS"));
/// assert!(!changes_what_runs("TZ"));
/// ```
pub fn changes_what_runs(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "PATH",
        "BASH_ENV",
        "ENV",
        "HOME",
        "ZDOTDIR",
        "IFS",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PROMPT_COMMAND",
        "BASH_LOADABLES_PATH",
        "EXECIGNORE",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "PYTHONUSERBASE",
        "PYTHONSAFEPATH",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PERL5LIB",
        "PERLLIB",
        "PERL5OPT",
        "RUBYLIB",
        "RUBYOPT",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "DYLD_INSERT_LIBRARIES",
        "DYLD_LIBRARY_PATH",
        "DYLD_FRAMEWORK_PATH",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "GIT_DIR",
        "GIT_CONFIG",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_EXEC_PATH",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_EXTERNAL_DIFF",
        "GIT_PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_ASKPASS",
        "GIT_TEMPLATE_DIR",
        "SSH_ASKPASS",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
    ];
    NAMES.contains(&name)
        || name.starts_with("GIT_CONFIG_KEY_")
        || name.starts_with("GIT_CONFIG_VALUE_")
}
