//! The model against the shells themselves: each line of a corpus, and lines generated from a
//! small grammar, is run under `bash -c` and `dash -c` in a sandbox, and what ran is compared
//! with what the model said would run.
//!
//! The sandbox: a temporary directory as the working directory and `HOME`, an environment of
//! `PATH` and `HOME` alone (`env -i`), `PATH` a directory of stub programs that append their
//! name and arguments to a log (`env`, `nice`, `timeout`, `cat`, `find` and `xargs` log, then do
//! their job), scripts in the directory and in `sub/` that append their own path and arguments,
//! standard input `/dev/null`, and a time limit per line. Nothing reaches the network.
//!
//! The rules checked, per line and shell:
//! - a line the model reads as static: every program or script that ran was predicted, with its
//!   arguments (a predicted argument that is dynamic matches any), and every prediction not
//!   under a condition ran;
//! - a line with a dynamic part: counted as such (it is never pinned), not compared.

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use hookchain_shell::{Context, Line, Shell, Word};

/// Stub programs on `PATH`: they log and do nothing else.
const STUBS: &[&str] = &["jq", "date", "ls", "grep", "tee", "git", "python3", "node"];
/// Stubs that log, then run the real program (which finds the other stubs on `PATH`).
const PASSING: &[&str] = &["env", "nice", "timeout", "nohup", "cat", "find", "xargs"];

/// Set (as `scripts/test.sh` does) to make a missing `bash` or `dash` a failure, not a skip.
const REQUIRED: &str = "HOOKCHAIN_DIFFERENTIAL_REQUIRED";

/// `name` on the test's own `PATH`, as the shell would find it.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// The real shells the lines are run under.
struct Shells {
    bash: PathBuf,
    dash: PathBuf,
}

impl Shells {
    fn find() -> Option<Shells> {
        Some(Shells {
            bash: on_path("bash")?,
            dash: on_path("dash")?,
        })
    }

    /// The shells, or `None` (the test is skipped, saying so) when one is missing and
    /// [`REQUIRED`] is not set; a failure when it is.
    fn required() -> Option<Shells> {
        let shells = Shells::find();
        if shells.is_none() {
            assert!(
                std::env::var_os(REQUIRED).is_none(),
                "bash and dash must both be on PATH for the differential test ({REQUIRED} is \
                 set): install them (Debian: apt-get install bash dash)"
            );
            eprintln!(
                "bash or dash is not on PATH: the differential test is skipped (set {REQUIRED}=1 \
                 to make that a failure, as scripts/test.sh does)"
            );
        }
        shells
    }
}
/// Scripts that exist in the sandbox's directory and in its `sub/`.
const SCRIPTS: &[&str] = &["x.sh", "y.sh", "z.sh", "a.sh"];

const CORPUS: &[&str] = &[
    // The forms consent must see through.
    r#"(cd "$HOME" && ./x.sh)"#,
    "./x.sh;",
    "{ ./x.sh; }",
    "./x.sh||true",
    "./x.sh</dev/null",
    "./x.s?",
    "${X:-./x.sh}",
    "X=./x.sh; $X",
    "$(echo ./x.sh)",
    "$'./x.sh' q",
    r#"sh -c "true;./x.sh""#,
    "bash -euo pipefail -c './y.sh a b'",
    "bash -o pipefail -O extglob -c './z.sh'",
    "sh -e -c './x.sh \"two words\"'",
    "python3 -u x.py arg",
    "source ./y.sh s1",
    ". ./y.sh s2",
    "bash ./z.sh one two",
    "sh x.sh three",
    "cd sub && ./a.sh in-sub",
    "cd sub; cd ..; ./a.sh top",
    "(cd sub; ./a.sh) ; ./a.sh",
    "cd sub | ./a.sh",
    // A run of `&&` goes on in the directory its `cd` went to.
    "true && cd sub && ./a.sh chained",
    "true && cd sub && ./a.sh && ./x.sh also-in-sub || ./y.sh",
    "env A=1 nice -n 5 timeout 5 python3 -W ignore x.py",
    "env ./x.sh e",
    "env -C sub bash -c './a.sh from-env-c'",
    "cat f | sh < ./y.sh",
    "cat f | ./x.sh > out.txt",
    "nohup ./y.sh 2>/dev/null",
    "command ./x.sh c",
    "exec ./z.sh ex",
    "command -v ./x.sh",
    "bash <<< './x.sh here'",
    "bash <<'EOF'\n./y.sh doc\nEOF",
    "cat <<EOF\n./x.sh\nEOF",
    "echo ./x.sh | bash",
    // Text a shell reads on its standard input, when the line gives it.
    "echo './x.sh e1' | sh",
    "echo -n './x.sh e2' | bash",
    "printf '%s\\n' './x.sh p1' './y.sh p2' | sh",
    "printf './z.sh p3\\n' | bash -s",
    "cat <<'EOF' | sh\n./x.sh piped-doc\nEOF",
    "bash -s <<< './y.sh s'",
    // A word the grammar skips before a here-document, and the `PWD` the shell starts with.
    "./x.sh - <<'EOF'\ndata\nEOF",
    // A redirection after a here-document's delimiter is the command's.
    "cat <<EOF > out.txt && ./x.sh h\nKEY=x\nEOF",
    // `$(pwd)` is `$PWD`, wherever `cd` went.
    "./x.sh \"$(pwd)/a\" `pwd`",
    "cd sub && ./a.sh \"$(pwd)\" $(pwd)/b",
    "./x.sh >out.txt after the redirection",
    "\"$PWD\"/y.sh pwd",
    // What xargs and find -exec run, with the words they add.
    "echo a b | xargs ./x.sh",
    "printf 'a\\nb c\\n' | xargs ./x.sh x",
    "echo a b | xargs -n1 ./x.sh one",
    "printf 'a\\nb\\n' | xargs -I{} ./x.sh pre-{}",
    "echo \"'q r'\" s | xargs ./y.sh",
    "find sub -name a.sh -exec ./x.sh {} \\;",
    "find . -maxdepth 0 -exec ./y.sh found {} +",
    "find sub -name a.sh | xargs ./z.sh",
    "./x.sh \"a b\" 'c d' e\\ f",
    r#"./x.sh "$HOME/q" ~/r"#,
    "./x.sh {a,b}",
    // Brace expansion, known under bash (dash leaves the braces as they are).
    "./x.sh /{etc,usr} x{,y} {a}{b,c} a{b,c{d,e}}f",
    "./x.sh {1..3} {01..3} {c..a} {1..7..3} {-2..1}",
    "./x.sh '{a,b}' \\{a,b} {a\\,b} \"{\"a,b} {a,b",
    // A known value, unquoted, is split at its blanks.
    "X='a  b'; ./x.sh $X \"$X\" x$X",
    "X=' lead trail '; ./x.sh [$X]",
    "./x.sh $(date)",
    "./x.sh `date`",
    "cat <(./y.sh p)",
    "D=sub; cd $D; ./a.sh",
    "U=; ${U:-./x.sh} u",
    "${NOPE-./y.sh} n",
    "${HOME:+./z.sh} h",
    "if ./x.sh; then ./y.sh; else ./z.sh; fi",
    "for f in 1 2; do ./x.sh $f; done",
    "f() { ./y.sh fn; }; f",
    "eval ./x.sh",
    "! ./x.sh neg",
    "true && ./x.sh t || ./y.sh u",
    "trap './z.sh trap' EXIT; ./x.sh",
    // docker-agent and Claude Code logging hooks.
    "jq -c . >> /tmp/hookchain-never-written.log 2>&1 </dev/null; echo ok >> log.txt",
    r#"echo "$(date) start" >> "$HOME"/x.log"#,
    "cat | tee -a hook.log | jq -r .tool_name > last.txt",
    "git status --porcelain &> status.txt",
];

/// Atoms the generated lines are built of.
const ATOMS: &[&str] = &[
    "./x.sh g",
    "./y.sh",
    "jq -c .",
    "cat f",
    "cd sub",
    "cd ..",
    "true",
    "false",
    "date",
    "echo hi >> out.log",
    "\"$HOME\"/z.sh h",
    "${U:-./a.sh} q",
    "sh -c './x.sh s'",
    // A redirection on a function's definition applies at each call.
    "f() { ./x.sh f; } > out.txt; f",
    // A `for` loop over known words runs its body with each.
    r#"for f in a 'b c'; do ./x.sh "$f" $f; done"#,
    "for f in a b; do ./x.sh; done; ./y.sh \"$f\"",
    // A `-c` string's operands are its positional parameters.
    r#"sh -c './x.sh "$1" $2 "$0"' zero 'o ne' 't wo'"#,
    r#"bash -c './x.sh "$@" $# $*' _ one"#,
    r#"sh -c 'set -e; ./x.sh "$1"' _ one"#,
    "bash -c 'cd sub && ./a.sh b'",
    "python3 -u x.py",
    ". ./y.sh dot",
    "(cd sub; ./a.sh p)",
    "{ ./y.sh br; }",
    "env nice ./x.sh w",
    "./a.sh < /dev/null",
];
const JOINS: &[&str] = &["; ", " && ", " || ", " | "];

/// The lines of the small grammar: one to four atoms joined, chosen by a fixed generator.
fn generated(count: usize) -> Vec<String> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    (0..count)
        .map(|_| {
            let atoms = 1 + next(4);
            let mut line = ATOMS[next(ATOMS.len())].to_owned();
            for _ in 1..atoms {
                line.push_str(JOINS[next(JOINS.len())]);
                line.push_str(ATOMS[next(ATOMS.len())]);
            }
            line
        })
        .collect()
}

struct Sandbox {
    _temp: tempfile::TempDir,
    shells: Shells,
    dir: PathBuf,
    bin: PathBuf,
    log: PathBuf,
    /// The bare names whose runs the log holds.
    logged: std::collections::HashSet<String>,
}

fn logger(name: &str, log: &Path, then: Option<&str>) -> String {
    let log = log.display();
    // One write per line, so that the stubs of a pipeline do not interleave.
    let mut s = format!(
        "#!/bin/sh\nl='{name}'\nfor a in \"$@\"; do l=\"$l$(printf '\\037')$a\"; done\n\
         printf '%s\\n' \"$l\" >> '{log}'\n"
    );
    if let Some(real) = then {
        s.push_str(&format!("exec {real} \"$@\"\n"));
    }
    s
}

fn write_exec(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

impl Sandbox {
    /// A sandbox whose `PATH` holds `stubs` (they log) and `passing` (they log, then run the
    /// real program).
    fn new(shells: Shells, stubs: &[String], passing: &[&str]) -> Sandbox {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().canonicalize().unwrap();
        let dir = root.join("work");
        let bin = root.join("bin");
        let log = root.join("ran.log");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        for name in stubs {
            write_exec(&bin.join(name), &logger(name, &log, None));
        }
        for name in passing {
            let real = on_path(name).unwrap_or_else(|| panic!("`{name}` is not on PATH"));
            write_exec(
                &bin.join(name),
                &logger(name, &log, Some(&real.display().to_string())),
            );
        }
        for (name, real) in [
            ("bash", &shells.bash),
            ("sh", &shells.dash),
            ("dash", &shells.dash),
        ] {
            std::os::unix::fs::symlink(real, bin.join(name)).unwrap();
        }
        for d in [root.clone(), dir.clone(), dir.join("sub")] {
            for name in SCRIPTS {
                let path = d.join(name);
                write_exec(&path, &logger(&path.display().to_string(), &log, None));
            }
        }
        std::fs::write(dir.join("x.py"), "print()\n").unwrap();
        let logged = stubs
            .iter()
            .cloned()
            .chain(passing.iter().map(|p| (*p).to_owned()))
            .collect();
        Sandbox {
            _temp: temp,
            shells,
            dir,
            bin,
            log,
            logged,
        }
    }

    fn context(&self) -> Context {
        Context::new(&self.dir)
            .var("PATH", self.bin.display().to_string())
            .var("HOME", self.dir.display().to_string())
            .complete(true)
    }

    /// Runs `line` under `shell`, and returns what ran: name (or script path) and arguments.
    fn run(&self, shell: Shell, line: &str) -> Vec<Vec<String>> {
        let _ = std::fs::remove_file(&self.log);
        let program = match shell {
            Shell::Bash => &self.shells.bash,
            Shell::Posix => &self.shells.dash,
        };
        let mut child = Process::new(program)
            .arg("-c")
            .arg(line)
            .env_clear()
            .env("PATH", &self.bin)
            .env("HOME", &self.dir)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("`{line}` under {shell:?} could not start: {e}"));
        let start = Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if start.elapsed() > Duration::from_secs(5) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`{line}` under {shell:?} ran past 5 s");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        // What runs in the background or in a process substitution may log after the shell
        // exits: wait until the log has not grown for 60 ms (2 s at most).
        let background = line.contains('&') || line.contains("<(") || line.contains(">(");
        let (mut size, mut still, quiet) = (u64::MAX, 0, Instant::now());
        while background && still < 3 && quiet.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(20));
            let now = std::fs::metadata(&self.log).map_or(0, |m| m.len());
            still = if now == size { still + 1 } else { 0 };
            size = now;
        }
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        log.lines()
            .map(|l| l.split('\x1f').map(str::to_owned).collect())
            .collect()
    }
}

/// What the model says would be logged: (name or script path, arguments or `None` where
/// dynamic), and whether it is certain to run.
fn predicted(sandbox: &Sandbox, line: &Line) -> Vec<(Vec<Option<String>>, bool)> {
    let mut out = Vec::new();
    let logged = |program: &str| -> bool { sandbox.logged.contains(program) };
    for command in &line.commands {
        let args = |words: &[Word]| -> Vec<Option<String>> {
            words
                .iter()
                .map(|w| w.as_static().map(str::to_owned))
                .collect()
        };
        let certain = !command.conditional;
        let Some(program) = command.program.as_static() else {
            continue;
        };
        if command.is_builtin() {
            // Sourced scripts log from inside the shell.
        } else if program.contains('/') {
            let path = normal(&command.program_path().unwrap());
            let mut entry = vec![Some(path.display().to_string())];
            entry.extend(args(&command.args));
            out.push((entry, certain));
        } else if logged(program) {
            let mut entry = vec![Some(program.to_owned())];
            entry.extend(args(&command.args));
            out.push((entry, certain));
        }
        let runs_scripts =
            Shell::of_program(program).is_some() || matches!(program, "source" | ".");
        if runs_scripts {
            for script in &command.scripts {
                let Some(path) = script.path.as_static() else {
                    continue;
                };
                let dir = command.dir.clone().unwrap_or_else(|| sandbox.dir.clone());
                let path = normal(&dir.join(path));
                let mut entry = vec![Some(path.display().to_string())];
                entry.extend(args(&script.args));
                out.push((entry, certain));
            }
        }
    }
    out
}

/// `a/./b/../c` as `a/c`, without reading the file system.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out
}

/// `true` when `ran` is what `predicted` says; a dynamic argument (`None`) stands for any
/// number of words (a substitution may expand to none, a brace expansion to several).
fn matches(predicted: &[Option<String>], ran: &[String]) -> bool {
    match predicted.split_first() {
        None => ran.is_empty(),
        Some((None, rest)) => (0..=ran.len()).any(|n| matches(rest, &ran[n..])),
        Some((Some(p), rest)) => ran.first() == Some(p) && matches(rest, &ran[1..]),
    }
}

#[derive(Default)]
struct Figures {
    run: usize,
    agreed: usize,
    dynamic: usize,
    failures: Vec<String>,
}

impl Figures {
    /// Counts a line run under `shell`: agreed when there are no `problems`.
    fn note(&mut self, shell: Shell, line: &str, problems: &[String]) {
        if problems.is_empty() {
            self.agreed += 1;
        } else {
            self.failures
                .push(format!("{shell:?} `{line}`: {}", problems.join("; ")));
        }
    }
}

fn check(sandbox: &Sandbox, shell: Shell, line: &str, figures: &mut Figures) {
    let model = Line::parse(line, shell, &sandbox.context());
    let ran = sandbox.run(shell, line);
    figures.run += 1;
    if !model.dynamic.is_empty() {
        figures.dynamic += 1;
        return;
    }
    let mut expected = predicted(sandbox, &model);
    let mut problems = Vec::new();
    for entry in &ran {
        // A certain prediction is used up by what ran; a conditional one may repeat (a loop).
        let certain = expected.iter().position(|(p, c)| *c && matches(p, entry));
        let conditional = expected.iter().any(|(p, c)| !*c && matches(p, entry));
        match (certain, conditional) {
            (Some(i), _) => {
                expected.remove(i);
            }
            (None, true) => {}
            (None, false) => problems.push(format!("ran {entry:?}, not predicted")),
        }
    }
    for (entry, certain) in expected {
        if certain {
            problems.push(format!("predicted {entry:?}, did not run"));
        }
    }
    figures.note(shell, line, &problems);
}

#[test]
fn the_model_predicts_what_bash_and_dash_run() {
    let Some(shells) = Shells::required() else {
        return;
    };
    let stubs: Vec<String> = STUBS.iter().map(|s| (*s).to_owned()).collect();
    let sandbox = Sandbox::new(shells, &stubs, PASSING);
    let mut figures = Figures::default();
    let lines: Vec<String> = CORPUS
        .iter()
        .map(|s| (*s).to_owned())
        .chain(generated(150))
        .collect();
    for line in &lines {
        for shell in [Shell::Bash, Shell::Posix] {
            check(&sandbox, shell, line, &mut figures);
        }
    }
    eprintln!(
        "differential: {} runs ({} lines x bash, dash), {} agreed, {} dynamic (not compared), {} disagreed",
        figures.run,
        lines.len(),
        figures.agreed,
        figures.dynamic,
        figures.failures.len()
    );
    assert!(
        figures.failures.is_empty(),
        "the model and the shell disagree:\n{}",
        figures.failures.join("\n")
    );
    // The comparison must compare: most lines are static.
    assert!(figures.agreed * 2 > figures.run, "too few lines compared");
}

/// Where the guards' corpus is, in the workspace (not in a package of this crate alone).
const GUARD_CORPUS: &str = "../hooks-guards/tests/guards/destructive_commands.corpus";

/// The commands of the guards' corpus (see its head for its format).
fn guard_corpus(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(more) = trimmed.strip_prefix('|') {
            if let Some(last) = lines.last_mut() {
                last.push('\n');
                last.push_str(more.strip_prefix(' ').unwrap_or(more));
            }
        } else if !trimmed.is_empty()
            && !trimmed.starts_with('#')
            && let Some((_, command)) = line.split_once(": ")
        {
            lines.push(command.to_owned());
        }
    }
    lines
}

/// Text that is never run, whatever the model says of it: paths of the system, changes of
/// `PATH` or of the directory, descriptors and devices, loops, functions (fork bombs), jobs
/// in the background, signals, decoding tricks. A corpus of destructive commands is run only
/// where none of its programs can be the real one and nothing it writes leaves the sandbox.
const NEVER_RUN: &[&str] = &[
    "/bin",
    "/usr",
    "/sbin",
    "/lib",
    "/dev",
    "/proc",
    "/sys",
    "/etc",
    "/boot",
    "/opt",
    "/var",
    "/home",
    "/Users",
    "/root",
    "/mnt",
    "PATH",
    "kill",
    "exec",
    "trap",
    "ulimit",
    "enable",
    "source",
    "function",
    "while",
    "until",
    "for ",
    "()",
    "\\x",
    "\\0",
    "base64",
    "mkfifo",
    "cd ",
    "pushd",
    "popd",
    "chroot",
    "coproc",
    "$((",
    "<>",
    "command",
    "hash",
    "ENV",
    // A login or interactive shell reads the system's startup files, which set their own
    // `PATH`: what it runs then is the real program.
    "-l",
    "--login",
    "-i",
    "--rcfile",
    "--init-file",
];

/// `true` when `line` may be run in the guard sandbox: it holds none of [`NEVER_RUN`], no job
/// in the background, and the model finds in it nothing it cannot read, no program named by a
/// path, and no write outside the sandbox's directory.
fn safe_to_run(line: &str, model: &Line) -> bool {
    let background = line.char_indices().any(|(i, c)| {
        c == '&'
            && !line[i..].starts_with("&&")
            && !line[..i].ends_with('&')
            && !line[..i].ends_with('>')
    });
    if background || NEVER_RUN.iter().any(|n| line.contains(n)) {
        return false;
    }
    if !model.dynamic.is_empty() || !model.unread.is_empty() {
        return false;
    }
    let programs_bare = model
        .commands
        .iter()
        .all(|c| c.program.as_static().is_some_and(|p| !p.contains('/')));
    let writes_inside = model.redirects.iter().filter(|r| r.writes()).all(|r| {
        r.target.as_static().is_some_and(|t| {
            t == "/dev/null"
                || (!t.is_empty()
                    && t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        })
    });
    programs_bare && writes_inside
}

/// The names a line may run as a program: its words of letters, digits, `.`, `_`, `+`, `-`.
fn names(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// Runs `line` in the guard sandbox and checks that whatever ran was a command the model
/// found, with its arguments (every prediction may or may not run: a wrapper is a stub there).
fn check_guard_line(sandbox: &Sandbox, shell: Shell, line: &str, figures: &mut Figures) {
    let model = Line::parse(line, shell, &sandbox.context());
    if !safe_to_run(line, &model) {
        figures.dynamic += 1;
        return;
    }
    let ran = sandbox.run(shell, line);
    figures.run += 1;
    let expected = predicted(sandbox, &model);
    let problems: Vec<String> = ran
        .iter()
        .filter(|entry| !expected.iter().any(|(p, _)| matches(p, entry)))
        .map(|entry| format!("ran {entry:?}, not predicted"))
        .collect();
    figures.note(shell, line, &problems);
}

#[test]
fn whatever_the_guard_corpus_runs_under_bash_and_dash_the_model_found() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GUARD_CORPUS);
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(
            std::env::var_os(REQUIRED).is_none(),
            "the guards' corpus `{}` is not there ({REQUIRED} is set): run the test from the \
             hookchain workspace",
            path.display()
        );
        eprintln!("the guards' corpus is not in this checkout: its differential test is skipped");
        return;
    };
    let Some(shells) = Shells::required() else {
        return;
    };
    let lines = guard_corpus(&text);
    // Every name of the corpus is a stub that only logs: no real program runs but the shells.
    let mut stubs: Vec<String> = lines
        .iter()
        .flat_map(|l| names(l))
        .filter(|n| !matches!(*n, "bash" | "sh" | "dash"))
        .map(str::to_owned)
        .collect();
    stubs.sort();
    stubs.dedup();
    let sandbox = Sandbox::new(shells, &stubs, &[]);
    let mut figures = Figures::default();
    for line in &lines {
        for shell in [Shell::Bash, Shell::Posix] {
            check_guard_line(&sandbox, shell, line, &mut figures);
        }
    }
    eprintln!(
        "differential, guards' corpus: {} lines x bash, dash: {} run, {} agreed, {} not run \
         (see NEVER_RUN and safe_to_run), {} disagreed",
        lines.len(),
        figures.run,
        figures.agreed,
        figures.dynamic,
        figures.failures.len()
    );
    assert!(
        figures.failures.is_empty(),
        "the model missed what the shell ran:\n{}",
        figures.failures.join("\n")
    );
    assert!(
        figures.run * 4 > lines.len(),
        "too few lines of the corpus run"
    );
}
