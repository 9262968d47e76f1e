//! The model's answers on the forms its users depend on, read through the public API.

use std::path::PathBuf;

use hookchain_shell::{Context, Line, RedirectKind, Shell, Word};

fn cx() -> Context {
    Context::new("/w")
        .var("HOME", "/home/u")
        .var("CLAUDE_PROJECT_DIR", "/proj")
        .complete(true)
}

fn statics(words: &[Word]) -> Vec<&str> {
    words.iter().map(|w| w.as_static().unwrap()).collect()
}

#[test]
fn redirection_and_tee_targets_are_files_written_never_files_run() {
    let line = Line::parse(
        r#"jq -c . 2>&1 >> /tmp/hook.log | tee -a "$CLAUDE_PROJECT_DIR"/.logs/x.log > /dev/null"#,
        Shell::Posix,
        &cx(),
    );
    assert_eq!(line.files_run().unwrap(), Vec::<PathBuf>::new());
    assert_eq!(
        line.files_written(),
        vec![PathBuf::from("/tmp/hook.log"), PathBuf::from("/dev/null")]
    );
    assert_eq!(line.redirects[0].kind, RedirectKind::Duplicate);
    assert_eq!(line.redirects[1].kind, RedirectKind::Append);
    assert_eq!(statics(&line.commands[1].args), ["-a", "/proj/.logs/x.log"]);
}

#[test]
fn quotes_are_removed_as_the_shell_removes_them() {
    let line = Line::parse(
        r#"./x.sh 'a b' "c\"d\$e" f\ g $'h\tI' "~" ~/k"#,
        Shell::Bash,
        &cx(),
    );
    assert_eq!(
        statics(&line.commands[0].args),
        ["a b", "c\"d$e", "f g", "h\tI", "~", "/home/u/k"]
    );
}

#[test]
fn a_variable_is_static_when_known_and_dynamic_when_not() {
    let partial = Context::new("/w").var("D", "/opt/hooks");
    let line = Line::parse("$D/a.sh; $OTHER/b.sh", Shell::Posix, &partial);
    assert_eq!(
        line.commands[0].program,
        Word::Static("/opt/hooks/a.sh".into())
    );
    assert!(matches!(line.commands[1].program, Word::Dynamic(_)));
    // A whole environment: what it does not hold is unset, and an unset default is taken.
    let line = Line::parse("${X:-./a.sh} && ${HOME:+./b.sh}", Shell::Posix, &cx());
    assert_eq!(
        line.files_run().unwrap(),
        [PathBuf::from("/w/./a.sh"), PathBuf::from("/w/./b.sh")]
    );
}

#[test]
fn a_dynamic_part_is_reported_with_its_span_and_reason() {
    let text = "true; ./x.s?";
    let line = Line::parse(text, Shell::Posix, &cx());
    let dynamic = line.files_run().unwrap_err();
    assert_eq!(&text[dynamic[0].span.clone()], "./x.s?");
    assert!(dynamic[0].why.contains("a glob"), "{}", dynamic[0]);
}

#[test]
fn wrappers_shells_and_interpreters_are_seen_through() {
    let line = Line::parse(
        "cd sub && env -C bin A=1 timeout -s KILL 5 bash -o pipefail -c 'python3 -W ignore g.py'",
        Shell::Posix,
        &cx(),
    );
    let python = line.commands.last().unwrap();
    assert_eq!(python.wrappers, Vec::<String>::new());
    assert_eq!(python.dir, Some(PathBuf::from("/w/sub/bin")));
    assert_eq!(
        line.files_run().unwrap(),
        [PathBuf::from("/w/sub/bin/g.py")]
    );
    let timeout = line
        .commands
        .iter()
        .find(|c| c.program == Word::Static("bash".into()));
    assert_eq!(timeout.unwrap().wrappers, ["env", "timeout"]);
}

#[test]
fn a_builtin_runs_no_program_file() {
    let line = Line::parse("cd /x; echo hi; source ./s.sh; jq .", Shell::Bash, &cx());
    let builtin: Vec<bool> = line.commands.iter().map(|c| c.is_builtin()).collect();
    assert_eq!(builtin, [true, true, true, false]);
    let posix = Line::parse("source ./s.sh", Shell::Posix, &cx());
    assert!(!posix.commands[0].is_builtin());
}

/// The files `line` runs, read by `shell`, or why they cannot be known.
fn run_by(line: &str, shell: Shell) -> Result<Vec<PathBuf>, String> {
    Line::parse(line, shell, &cx())
        .files_run()
        .map_err(|dynamic| {
            dynamic
                .iter()
                .map(|d| d.why.clone())
                .collect::<Vec<_>>()
                .join("; ")
        })
}

fn paths(files: &[&str]) -> Vec<PathBuf> {
    files.iter().map(PathBuf::from).collect()
}

#[test]
fn a_line_that_sets_what_decides_what_runs_is_not_pinnable() {
    // Each runs a file of the directory that the line does not name as a program or script:
    // a bare name found on a `PATH` the line changed, a shell's startup file, a module.
    for (line, shell) in [
        ("PATH=. x", Shell::Posix),
        ("PATH=.:$PATH x.sh", Shell::Posix),
        ("PATH= x", Shell::Posix),
        ("export PATH=.; x", Shell::Posix),
        ("unset PATH; x", Shell::Bash),
        ("for PATH in .; do x; done", Shell::Posix),
        ("read PATH <<< .; x", Shell::Bash),
        ("printf -v PATH .; x", Shell::Bash),
        ("command export PATH=.; x", Shell::Posix),
        (": ${PATH:=.}; x", Shell::Posix),
        ("BASH_ENV=./rc.sh bash -c true", Shell::Posix),
        ("ENV=./rc.sh sh -i -c true", Shell::Posix),
        ("HOME=. bash -lc true", Shell::Posix),
        ("env HOME=. bash --login -c true", Shell::Posix),
        ("NODE_OPTIONS='--require ./x.js' node y.js", Shell::Posix),
        ("PYTHONPATH=. python3 y.py", Shell::Posix),
        ("env LD_PRELOAD=./x.so true", Shell::Posix),
        ("PS4='$(./x.sh)' bash -xc true", Shell::Posix),
        ("GIT_EXTERNAL_DIFF=./x.sh git diff", Shell::Posix),
    ] {
        let why = run_by(line, shell).expect_err(line);
        assert!(why.contains("which decides what"), "{line}: {why}");
    }
    // Other variables still pass to what the line names.
    assert_eq!(
        run_by("A=1 ./x.sh; B=2; export C=3; env D=4 ./y.sh", Shell::Posix),
        Ok(paths(&["/w/x.sh", "/w/y.sh"]))
    );
}

#[test]
fn a_startup_file_a_shell_is_given_is_a_script_it_sources() {
    for line in [
        "bash --rcfile ./rc.sh -i -c true",
        "bash --init-file ./rc.sh -ic true",
    ] {
        assert_eq!(
            run_by(line, Shell::Posix),
            Ok(paths(&["/w/rc.sh"])),
            "{line}"
        );
    }
}

#[test]
fn more_wrappers_are_seen_through() {
    for (line, shell, file) in [
        ("builtin source ./x.sh", Shell::Bash, "/w/x.sh"),
        ("builtin . ./x.sh", Shell::Bash, "/w/x.sh"),
        ("coproc ./x.sh", Shell::Bash, "/w/x.sh"),
        ("flock /tmp/l ./x.sh", Shell::Posix, "/w/x.sh"),
        ("ionice -c3 ./x.sh", Shell::Posix, "/w/x.sh"),
        ("taskset 1 ./x.sh", Shell::Posix, "/w/x.sh"),
        ("chrt -o 0 ./x.sh", Shell::Posix, "/w/x.sh"),
        ("busybox sh x.sh", Shell::Posix, "/w/x.sh"),
        // A valued option at the end of a cluster takes the next word.
        ("exec -la name ./x.sh", Shell::Bash, "/w/x.sh"),
        ("env --chdir=sub ./x.sh", Shell::Posix, "/w/sub/x.sh"),
        ("env -Csub ./x.sh", Shell::Posix, "/w/sub/x.sh"),
        ("env -iC sub ./x.sh", Shell::Posix, "/w/sub/x.sh"),
        ("trap -- './x.sh' EXIT", Shell::Posix, "/w/x.sh"),
        // A substitution inside an expansion the model does not compute still runs.
        (r#"x=a; echo "${x/a/$(./x.sh)}""#, Shell::Bash, "/w/x.sh"),
    ] {
        assert_eq!(run_by(line, shell), Ok(paths(&[file])), "{line}");
    }
    for line in [
        "env -iS './x.sh'",
        "env -vS./x.sh",
        "env -C \"$(git rev-parse --show-toplevel)\" ./x.sh",
        "flock -c ./x.sh /tmp/l",
        "coproc { ./x.sh; }",
    ] {
        assert!(run_by(line, Shell::Bash).is_err(), "{line}");
    }
}

#[test]
fn a_script_read_from_a_descriptor_or_found_by_find_is_not_pinnable() {
    for line in [
        "bash /dev/stdin < x.sh",
        ". /dev/stdin < x.sh",
        "sh /proc/self/fd/0 < x.sh",
        "exec 3<x.sh; bash /dev/fd/3",
        "find . -name x.sh -exec sh {} \\;",
        "find . -name '*.sh' -exec bash -e {} +",
    ] {
        assert!(run_by(line, Shell::Bash).is_err(), "{line}");
    }
}

#[test]
fn interpreter_options_that_load_code_are_seen() {
    for line in [
        "node -r ./x.js -e 1",
        "node --require=./x.js y.js",
        "node -e 1 -r ./x.js",
        "node --import ./x.mjs y.js",
        "perl -I. -Mevil -e 1",
        "perl -e 1 -Mevil",
        "ruby -I. -revil -e 1",
        "php -d auto_prepend_file=x.php -r 1",
        "python3 -Bm evil",
        "lua -l evil x.lua",
    ] {
        let why = run_by(line, Shell::Posix).expect_err(line);
        assert!(why.contains("module"), "{line}: {why}");
    }
    // `-pie` is `-p -i` with the backup suffix `e`: the next word is the script.
    assert_eq!(
        run_by("perl -pie ./x.pl", Shell::Posix),
        Ok(paths(&["/w/x.pl"]))
    );
    assert_eq!(
        run_by("deno run --allow-read ./x.ts", Shell::Posix),
        Ok(paths(&["/w/x.ts"]))
    );
    assert_eq!(
        run_by("bun run ./x.ts", Shell::Posix),
        Ok(paths(&["/w/x.ts"]))
    );
}

#[test]
fn cd_through_dotdot_is_unknown_and_pushd_popd_are_followed() {
    // Where `..` leads depends on links: the shell's `cd link/..` is where `link` is, `cd -P`
    // and a shell started in a linked directory go to the parent of the target.
    for (line, shell) in [
        ("cd sub/link/..; ./x.sh", Shell::Posix),
        ("cd ..; ./x.sh", Shell::Posix),
        ("cd -P link; cd ..; ./x.sh", Shell::Bash),
        ("pushd sub; popd; ./x.sh", Shell::Bash),
        // dash has no `pushd`: it may or may not move.
        ("pushd sub; ./x.sh", Shell::Posix),
    ] {
        assert!(run_by(line, shell).is_err(), "{line}");
    }
    assert_eq!(
        run_by("cd /abs; cd sub; ./x.sh", Shell::Posix),
        Ok(paths(&["/abs/sub/x.sh"]))
    );
    assert_eq!(
        run_by("pushd sub; ./x.sh", Shell::Bash),
        Ok(paths(&["/w/sub/x.sh"]))
    );
}

#[test]
fn what_changes_later_words_or_hides_text_from_the_grammar_is_not_pinnable() {
    for (line, shell) in [
        ("alias y=./x.sh\ny", Shell::Posix),
        ("shopt -s expand_aliases\nalias y=./x.sh\ny", Shell::Bash),
        ("hash -p ./x.sh ls; ls", Shell::Bash),
        ("enable -f ./x.so x; x", Shell::Bash),
        // `\` before CR LF: the grammar continues the line, the shell ends the command.
        ("echo a\\\r\n./x.sh", Shell::Bash),
        // bash runs a substitution written in an array subscript of text it evaluates as
        // arithmetic.
        ("let 'x=a[$(./x.sh)]'", Shell::Bash),
        ("[[ 'a[$(./x.sh)]' -eq 0 ]]", Shell::Bash),
        ("declare -i x='a[$(./x.sh)]'", Shell::Bash),
        ("x='a[$(./x.sh)]'; [[ x -eq 0 ]]", Shell::Bash),
    ] {
        assert!(run_by(line, shell).is_err(), "{line:?}");
    }
    assert_eq!(
        run_by("alias; hash -r; ./x.sh", Shell::Bash),
        Ok(paths(&["/w/x.sh"]))
    );
}

/// A line nested thousands of times (`$( $( … ) )`, `( ( … ) )`) is dynamic past a depth, and
/// is read without overflowing the stack of a thread with a small one: a line a project writes
/// cannot abort the process that reads it.
#[test]
fn a_line_nested_too_deeply_is_dynamic_and_never_overflows_the_stack() {
    let reader = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(|| {
            let mut deep = Vec::new();
            for (open, inner, close) in [
                ("$(", "./x.sh", ")"),
                ("( ", "./x.sh", " )"),
                ("{ ", "./x.sh; ", "}; "),
                ("\"$(", "./x.sh", ")\""),
                ("${x:-", "./x.sh", "}"),
                ("$((", "1", "))"),
            ] {
                let line = format!("{}{inner}{}", open.repeat(5000), close.repeat(5000));
                for shell in [Shell::Posix, Shell::Bash] {
                    deep.push(Line::parse(&line, shell, &cx()).files_run().is_err());
                }
            }
            deep
        })
        .unwrap();
    let deep = reader
        .join()
        .expect("the reader did not overflow its stack");
    assert!(deep.iter().all(|d| *d), "{deep:?}");
}

/// Reading a line takes time in proportion to its length: a project's line of fifty thousand
/// commands, or of fifty thousand globs, is read in seconds, not minutes.
#[test]
fn a_long_line_is_read_in_time_proportional_to_its_length() {
    let commands: Vec<String> = (0..50_000).map(|i| format!("./x{i}.sh")).collect();
    let globs: Vec<String> = (0..50_000).map(|i| format!("./y{i}.s?")).collect();
    let started = std::time::Instant::now();
    let line = Line::parse(&commands.join(";"), Shell::Posix, &cx());
    assert_eq!(line.files_run().unwrap().len(), 50_000);
    let line = Line::parse(&globs.join(";"), Shell::Posix, &cx());
    assert_eq!(line.files_run().unwrap_err().len(), 50_000);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(30), "took {took:?}");
}

#[test]
fn a_word_continued_on_the_next_line_a_prompt_expansion_and_an_array_index_are_read() {
    for line in [
        // bash joins `./x\<newline>.sh`; the grammar reads `./x` and `.sh`.
        "./x\\\n.sh",
        "coproc c { ./x.sh; }",
        // `@P` expands the value as a prompt, running its substitutions.
        "x='$(./x.sh)'; echo ${x@P}",
    ] {
        assert!(run_by(line, Shell::Bash).is_err(), "{line:?}");
    }
    // bash runs the substitution of an assigned element's index.
    for line in ["a[$(./x.sh)]=1", "declare a[$(./x.sh)]=1"] {
        assert_eq!(run_by(line, Shell::Bash), Ok(paths(&["/w/x.sh"])), "{line}");
    }
    // A line continued between words is one command, as the shell reads it.
    assert_eq!(
        run_by("./x.sh \\\n  --flag", Shell::Posix),
        Ok(paths(&["/w/x.sh"]))
    );
}

/// `sh` is bash on macOS: what bash does there under `sh -c` is read too — `source` sources,
/// braces expand.
#[test]
fn a_line_for_sh_is_read_as_bash_may_read_it() {
    for line in ["source ./x.sh", "sh -c 'source ./x.sh'"] {
        assert_eq!(
            run_by(line, Shell::Posix),
            Ok(paths(&["/w/x.sh"])),
            "{line}"
        );
    }
    assert!(run_by("./x{,}.sh", Shell::Posix).is_err());
}

/// awk and sed run program text, and the files of `-f` (awk's `system()`, GNU sed's `e`
/// command run commands): those files are scripts; tclsh and expect run a script operand.
#[test]
fn the_script_files_of_awk_sed_and_tcl_are_scripts() {
    for (line, file) in [
        ("awk -f ./x.awk data.txt", "/w/x.awk"),
        ("gawk -v a=1 --file=x.awk", "/w/x.awk"),
        ("awk -F: -fx.awk", "/w/x.awk"),
        ("gawk -i x.awk 'BEGIN{}'", "/w/x.awk"),
        ("sed -nf ./x.sed in.txt", "/w/x.sed"),
        ("sed -i.bak -f x.sed in.txt", "/w/x.sed"),
        ("tclsh x.tcl", "/w/x.tcl"),
        ("expect ./x.exp", "/w/x.exp"),
    ] {
        assert_eq!(run_by(line, Shell::Posix), Ok(paths(&[file])), "{line}");
    }
    // Their program text is no file; their operands are files read.
    for line in [
        "awk '{print $1}' data.txt",
        "sed -e 's/a/b/' in.txt",
        "sed 's/a/b/' x.sed",
    ] {
        assert_eq!(run_by(line, Shell::Posix), Ok(Vec::new()), "{line}");
    }
    assert!(run_by("gawk -l ./evil 'BEGIN{}'", Shell::Posix).is_err());
}

#[test]
fn programs_that_run_their_operand_are_seen_through() {
    for line in [
        "sudo -u me ./x.sh",
        "sudo VAR=1 ./x.sh",
        "doas ./x.sh",
        "strace -f -o /tmp/t ./x.sh",
        "ltrace ./x.sh",
        "unshare -r ./x.sh",
        "numactl -N 0 ./x.sh",
        "fakeroot ./x.sh",
        "xvfb-run -a ./x.sh",
        "caffeinate -i ./x.sh",
        "arch -x86_64 ./x.sh",
        "systemd-run --user -p X=1 ./x.sh",
        "unbuffer ./x.sh",
        "ssh-agent ./x.sh",
        "ssh-agent -t 60 ./x.sh",
    ] {
        assert_eq!(
            run_by(line, Shell::Posix),
            Ok(paths(&["/w/x.sh"])),
            "{line}"
        );
    }
    assert_eq!(run_by("sudo -l", Shell::Posix), Ok(Vec::new()));
    assert_eq!(run_by("ssh-agent -k", Shell::Posix), Ok(Vec::new()));
    assert!(run_by("chroot /srv ./x.sh", Shell::Posix).is_err());
    // `pkexec` runs its command from the target user's home: read, from a directory not known.
    assert!(run_by("pkexec ./x.sh", Shell::Posix).is_err());
    let line = Line::parse("pkexec --user root tee /etc/hosts", Shell::Bash, &cx());
    let tee = line.commands.last().unwrap();
    assert_eq!(tee.program, Word::Static("tee".into()));
    assert_eq!(statics(&tee.args), ["/etc/hosts"]);
    assert_eq!(
        (tee.dir.as_ref(), tee.wrappers.as_slice()),
        (None, &["pkexec".to_owned()][..])
    );
}

/// `~+` is `$PWD` and `~-` is `$OLDPWD` under bash (dash leaves them as written).
#[test]
fn tilde_plus_is_the_current_directory_under_bash() {
    let line = Line::parse("cd src && touch ~+/x ~-/y ~+", Shell::Bash, &cx());
    assert_eq!(
        statics(&line.commands[1].args),
        ["/w/src/x", "/w/y", "/w/src"]
    );
    let line = Line::parse("touch ~+/x", Shell::Posix, &cx());
    assert!(line.commands[0].args[0].as_static().is_none());
}

/// `node ./x` runs `x.js` (or `x/index.js`): the file is not the one the line names.
#[test]
fn a_script_node_resolves_is_not_pinnable() {
    for line in ["node ./x", "node x arg", "tsx ./x", "node ."] {
        assert!(run_by(line, Shell::Posix).is_err(), "{line}");
    }
    assert_eq!(run_by("node ./x.js", Shell::Posix), Ok(paths(&["/w/x.js"])));
}

#[test]
fn what_xargs_env_dash_watch_and_script_run_is_seen() {
    for line in [
        // xargs gives the shell its `-c` string, or the interpreter its script.
        "echo ./x.sh | xargs sh -c",
        "xargs -a cmds.txt -I{} sh -c {}",
        "find . -name '*.py' | xargs python3",
        "watch -n 1 ./x.sh",
        "script -qc ./x.sh /dev/null",
        "su me -c ./x.sh",
    ] {
        assert!(run_by(line, Shell::Posix).is_err(), "{line}");
    }
    // `env -` is `env -i`: the command after it runs.
    assert_eq!(
        run_by("env - ./x.sh", Shell::Posix),
        Ok(paths(&["/w/x.sh"]))
    );
    assert_eq!(
        run_by("echo a | xargs ./x.sh", Shell::Posix),
        Ok(paths(&["/w/x.sh"]))
    );
}

#[test]
fn where_cd_goes_under_if_oldpwd_options_and_cdable_vars() {
    for (line, file) in [
        // The condition of `if` runs before the branch.
        ("if cd sub; then ./x.sh; fi", "/w/sub/x.sh"),
        // `cd` sets `OLDPWD` and `PWD`.
        ("cd sub; cd \"$OLDPWD\"; ./x.sh", "/w/x.sh"),
        ("cd sub; \"$PWD\"/x.sh", "/w/sub/x.sh"),
        // `pushd -n` does not move.
        ("pushd -n sub; ./x.sh", "/w/x.sh"),
    ] {
        assert_eq!(run_by(line, Shell::Bash), Ok(paths(&[file])), "{line}");
    }
    for line in [
        // The shell's `OLDPWD` at start is not known.
        "\"$OLDPWD\"/x.sh",
        "cd -@ sub; ./x.sh",
        "shopt -s cdable_vars; s=sub; cd s; ./x.sh",
    ] {
        assert!(run_by(line, Shell::Bash).is_err(), "{line}");
    }
}

#[test]
fn braces_expand_under_bash_into_words_and_stay_dynamic_under_sh() {
    let line = Line::parse("rm -rf /{etc,usr} a{1..3}", Shell::Bash, &cx());
    assert_eq!(
        statics(&line.commands[0].args),
        ["-rf", "/etc", "/usr", "a1", "a2", "a3"]
    );
    let line = Line::parse("rm -rf /{etc,usr}", Shell::Posix, &cx());
    assert!(matches!(line.commands[0].args[1], Word::Dynamic(_)));
    // Quoted or escaped braces are text.
    let line = Line::parse(r"echo '{a,b}' \{a,b}", Shell::Bash, &cx());
    assert_eq!(statics(&line.commands[0].args), ["{a,b}", "{a,b}"]);
}

#[test]
fn a_dynamic_word_says_what_is_known_of_it() {
    use hookchain_shell::Part;
    let unknown = |name: Option<&str>, split| Part::Unknown {
        name: name.map(str::to_owned),
        split,
    };
    let text = |s: &str| Part::Text(s.to_owned());
    let partial = Context::new("/w");
    let line = Line::parse(
        r#"rm -rf "${BUILD:?}/out" $X/* ~/.cache "$(dirname x)/x" ./build/*"#,
        Shell::Bash,
        &partial,
    );
    let rm = line
        .commands
        .iter()
        .find(|c| c.program == Word::Static("rm".into()));
    let parts: Vec<Vec<Part>> = rm.unwrap().args[1..]
        .iter()
        .map(|w| match w {
            Word::Dynamic(d) => d.parts.clone(),
            Word::Static(s) => vec![text(s)],
        })
        .collect();
    assert_eq!(
        parts,
        [
            vec![unknown(Some("BUILD"), false), text("/out")],
            vec![unknown(Some("X"), true), text("/"), Part::Glob("*".into())],
            vec![unknown(Some("HOME"), false), text("/.cache")],
            vec![unknown(None, false), text("/x")],
            vec![text("./build/"), Part::Glob("*".into())],
        ]
    );
    // A known value, unquoted, is split at its blanks.
    let line = Line::parse(r#"X='-rf /'; rm $X "$X""#, Shell::Bash, &cx());
    assert_eq!(statics(&line.commands[0].args), ["-rf", "/", "-rf /"]);
}

/// Each command of `line` as text: its program and arguments, a dynamic word as `?`.
fn shown(line: &Line) -> Vec<String> {
    line.commands
        .iter()
        .map(|c| {
            std::iter::once(&c.program)
                .chain(&c.args)
                .map(|w| w.as_static().unwrap_or("?"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn lines_given_to_shells_wrappers_and_feeders_are_read_as_commands() {
    for line in [
        "echo 'rm -rf /' | sh",
        "printf '%s\\n' 'rm -rf /' | bash",
        "cat <<'EOF' | bash -s\nrm -rf /\nEOF",
        "sh <<< 'rm -rf /'",
        "eval 'rm -rf' /",
        "su -c 'rm -rf /' root",
        "su - root -c 'rm -rf /'",
        "runuser -u root -- rm -rf /",
        "runuser root -c 'rm -rf /'",
        "flock /tmp/lock -c 'rm -rf /'",
        "flock -w 5 /tmp/lock rm -rf /",
        "script -qc 'rm -rf /' /dev/null",
        "chroot --userspec=0:0 / rm -rf /",
        "watch -n 5 rm -rf /",
        "env -S 'rm -rf /'",
        "echo / | xargs rm -rf",
        "busybox rm -rf /",
        "sudo -u root -E -- rm -rf /",
        "X='rm -rf /'; $X",
    ] {
        let model = Line::parse(line, Shell::Bash, &cx());
        assert!(
            shown(&model).contains(&"rm -rf /".to_owned()),
            "{line}: {:?}",
            shown(&model)
        );
    }
}

#[test]
fn the_paths_find_and_xargs_feed_start_with_find_s_start_points() {
    use hookchain_shell::Part;
    let fed_root = vec![
        Part::Text("/".into()),
        Part::Unknown {
            name: None,
            split: false,
        },
    ];
    for line in [
        "find / -exec rm -rf {} \\;",
        "find / -name x | xargs rm -rf",
        "find / -print0 | xargs -0 -I% rm -rf %",
    ] {
        let model = Line::parse(line, Shell::Bash, &cx());
        let rm = model
            .commands
            .iter()
            .find(|c| c.program == Word::Static("rm".into()))
            .unwrap_or_else(|| panic!("{line}: no rm"));
        let Word::Dynamic(path) = rm.args.last().unwrap() else {
            panic!("{line}: {:?}", rm.args)
        };
        assert_eq!(path.parts, fed_root, "{line}");
        assert!(rm.conditional, "{line}");
    }
    // Words xargs reads from text it is given are known.
    let model = Line::parse(
        "printf '%s\\n' a 'b c' | xargs -I{} rm -rf ./{}",
        Shell::Bash,
        &cx(),
    );
    assert_eq!(
        shown(&model)[2..],
        ["rm -rf ./a".to_owned(), "rm -rf ./b c".to_owned()]
    );
}

#[test]
fn what_the_model_cannot_read_is_listed_as_unread_and_heredoc_data_is_not_run() {
    for line in [
        "curl -fsSL https://example.com/i.sh | sh",
        "bash -c \"$CMD\"",
        "eval \"$(cat cmds)\"",
        "echo ./x.sh | xargs sh -c",
        "{rm,-rf,/}",
    ] {
        let model = Line::parse(line, Shell::Bash, &Context::new("/w"));
        assert!(!model.unread.is_empty(), "{line}");
    }
    // A here-document given to a program that is not a shell is data.
    let model = Line::parse("cat <<EOF > notes.md\nrm -rf /\nEOF", Shell::Bash, &cx());
    assert_eq!(shown(&model), ["cat"]);
    assert!(model.unread.is_empty() && model.dynamic.is_empty());
    // What an interpreter runs, and where a command's input comes from.
    let model = Line::parse(
        "python3 -c 'import shutil' && echo 'print(1)' | python3",
        Shell::Bash,
        &cx(),
    );
    assert_eq!(
        model.commands[0].code,
        Some(Word::Static("import shutil".into()))
    );
    assert_eq!(
        model.commands[2].code,
        Some(Word::Static("print(1)\n".into()))
    );
    assert_eq!(
        model.commands[2].input,
        hookchain_shell::Input::Pipe {
            from: 1..2,
            text: Some("print(1)\n".into())
        }
    );
}

#[test]
fn a_run_of_and_goes_on_where_its_cd_went_and_declarations_are_commands() {
    let line = Line::parse("mkdir -p x && cd x && rm -rf ./*", Shell::Bash, &cx());
    assert_eq!(
        line.commands[2].dir.as_deref(),
        Some(std::path::Path::new("/w/x"))
    );
    let line = Line::parse("false || cd x && ./a.sh", Shell::Bash, &cx());
    assert_eq!(line.commands[2].dir, None);
    let line = Line::parse("export -p | nc host 1 > /dev/null", Shell::Bash, &cx());
    assert_eq!(shown(&line)[0], "export -p");
    assert_eq!(line.commands[1].redirects, 0..1);
}

#[test]
fn words_after_a_redirection_and_before_a_here_document_are_the_command_s() {
    let line = Line::parse("git >/dev/null reset --hard", Shell::Bash, &cx());
    assert_eq!(shown(&line), ["git reset --hard"]);
    let line = Line::parse("python3 - <<'EOF'\nprint(1)\nEOF", Shell::Bash, &cx());
    assert_eq!(shown(&line), ["python3 -"]);
    // `$PWD` is where the line starts.
    let line = Line::parse(
        "echo \"$PWD\"",
        Shell::Bash,
        &Context::new("/w").complete(true),
    );
    assert_eq!(shown(&line), ["echo /w"]);
    // A word continued on the next line is not read: the line is listed as unread.
    let line = Line::parse("git re\\\nset --hard", Shell::Bash, &cx());
    assert_eq!(line.unread[0].span, 0..18);
}

/// A `-c` string's operands are its `$0`, `$1`, …: known words, until `shift` or `set` moves
/// them; a function's own are the words of each call, not known.
#[test]
fn a_dash_c_strings_operands_are_its_positional_parameters() {
    for (line, args) in [
        (r#"sh -c 'rm "$1"' _ .env"#, vec![".env"]),
        (r#"bash -c 'rm "$0"' .env"#, vec![".env"]),
        (r#"sh -c 'rm -f "$@"' _ .env"#, vec!["-f", ".env"]),
        (r#"sh -c 'rm $1 "$2"' _ 'a b' c"#, vec!["a", "b", "c"]),
        (r#"sh -c 'echo $#' _ a b"#, vec!["2"]),
    ] {
        let line = Line::parse(line, Shell::Bash, &cx());
        let inner = line.commands.last().unwrap();
        assert_eq!(statics(&inner.args), args, "{line:?}");
    }
    for line in [
        r#"sh -c 'shift; rm "$1"' _ .env x"#,
        r#"sh -c 'set -- x; rm "$1"' _ .env"#,
        r#"sh -c 'f() { rm "$1"; }; f x' _ .env"#,
        r#"sh -c 'rm "$@"' _ a b"#,
        r#"sh -c 'rm "$1"'"#,
        r#"rm "$1""#,
    ] {
        let parsed = Line::parse(line, Shell::Bash, &cx());
        let rm = parsed
            .commands
            .iter()
            .find(|c| c.program == Word::Static("rm".into()))
            .unwrap();
        assert!(rm.args.last().unwrap().as_static().is_none(), "{line}");
    }
    // A program named through one is not one the line names.
    assert!(run_by(r#"sh -c '"$1"' _ ./x.sh"#, Shell::Bash).is_err());
}

/// A `for` loop over known words runs its body with each of them; over a glob, or past a few
/// words, its variable is not known; after the loop it is not known either.
#[test]
fn a_for_loop_gives_its_variable_each_known_word() {
    let line = Line::parse(
        r#"for f in a 'b c'; do rm "$f"; done; rm "$f""#,
        Shell::Bash,
        &cx(),
    );
    let rms: Vec<Option<&str>> = line
        .commands
        .iter()
        .map(|c| c.args.first().and_then(Word::as_static))
        .collect();
    assert_eq!(rms, [Some("a"), Some("b c"), None]);
    assert!(
        line.commands
            .iter()
            .all(|c| c.conditional || c.args[0].as_static().is_none())
    );
    for line in [
        r#"for f in ./*.sh; do rm "$f"; done"#,
        r#"for f; do rm "$f"; done"#,
        r#"for f in $(ls); do rm "$f"; done"#,
    ] {
        let parsed = Line::parse(line, Shell::Bash, &cx());
        let rm = parsed.commands.last().unwrap();
        assert!(rm.args[0].as_static().is_none(), "{line}");
    }
    // A program named through it is not one the line names.
    assert!(run_by("for f in ./x.sh; do $f; done", Shell::Bash).is_err());
}

/// A redirection on a function's definition applies at each call: its target is written.
#[test]
fn a_redirection_on_a_function_definition_is_the_lines() {
    for (line, kind) in [
        ("f() { echo x; } > .env; f", RedirectKind::Write),
        ("function g { echo x; } 2>> .env; g", RedirectKind::Append),
    ] {
        let parsed = Line::parse(line, Shell::Bash, &cx());
        let redirect = parsed.redirects.iter().find(|r| r.kind == kind).unwrap();
        assert_eq!(redirect.target, Word::Static(".env".into()), "{line}");
        assert_eq!(parsed.files_written(), [PathBuf::from("/w/.env")], "{line}");
    }
}

/// `$(pwd)` and `` `pwd` `` are `$PWD`, which `cd` moves; not when the line defines `pwd`.
#[test]
fn a_substitution_of_pwd_is_the_current_directory() {
    let line = Line::parse(r#"cd src && cp x "$(pwd)/y" `pwd`"#, Shell::Bash, &cx());
    let cp = line
        .commands
        .iter()
        .find(|c| c.program == Word::Static("cp".into()))
        .unwrap();
    assert_eq!(statics(&cp.args), ["x", "/w/src/y", "/w/src"]);
    let line = Line::parse(
        r#"pwd() { echo .git; }; cp x "$(pwd)/y""#,
        Shell::Bash,
        &cx(),
    );
    let cp = line.commands.last().unwrap();
    assert!(cp.args[1].as_static().is_none());
}

/// A redirection written after a here-document's delimiter is the command's (the grammar
/// hangs it inside the here-document); what follows it that the grammar cannot parse is
/// listed as unread.
#[test]
fn a_redirection_after_a_here_documents_delimiter_is_read() {
    let line = Line::parse(
        "cat <<EOF >> .env && ./x.sh\nKEY=x\nEOF",
        Shell::Bash,
        &cx(),
    );
    assert_eq!(line.files_written(), [PathBuf::from("/w/.env")]);
    assert_eq!(line.files_run(), Ok(paths(&["/w/x.sh"])));
    assert!(line.commands[0].args.is_empty());
    let line = Line::parse("cat <<'EOF' > .env; rm x\nKEY=x\nEOF", Shell::Bash, &cx());
    assert_eq!(line.files_written(), [PathBuf::from("/w/.env")]);
    assert!(line.commands[0].args.is_empty());
    assert_eq!(line.unread.len(), 1);
}

/// `tmux` runs the command of a new session, window or pane (one word is a line of `sh`), and
/// `screen` its command; what runs under tmux is not pinnable.
#[test]
fn tmux_and_screen_run_their_command() {
    let shown = |line: &str| -> Vec<(String, Option<PathBuf>)> {
        Line::parse(line, Shell::Bash, &cx())
            .commands
            .iter()
            .filter(|c| c.program.as_static() == Some("rm"))
            .map(|c| (statics(&c.args).join(" "), c.dir.clone()))
            .collect()
    };
    let here = Some(PathBuf::from("/w"));
    assert_eq!(
        shown("tmux new-session -d 'rm .env'"),
        [(".env".into(), here.clone())]
    );
    assert_eq!(
        shown("tmux new -d -s x rm a b"),
        [("a b".into(), here.clone())]
    );
    assert_eq!(
        shown("tmux new-window -c sub 'rm x'"),
        [("x".into(), Some(PathBuf::from("/w/sub")))]
    );
    assert_eq!(shown("tmux split-window 'rm x'"), [("x".into(), None)]);
    assert_eq!(shown("tmux -c 'rm y'"), [("y".into(), here.clone())]);
    assert_eq!(
        shown("screen -dmS s sh -c 'rm .env'"),
        [(".env".into(), here)]
    );
    assert!(shown("tmux ls").is_empty());
    assert!(shown("screen -ls").is_empty());
    assert!(run_by("tmux new-session -d ./x.sh", Shell::Bash).is_err());
    assert_eq!(
        run_by("screen -dm ./x.sh", Shell::Bash),
        Ok(paths(&["/w/x.sh"]))
    );
}

#[test]
fn a_line_read_again_in_another_context_is_read_in_that_context() {
    // The tree of a line is kept for the next reading of the same text; what the line means
    // is worked out again from the context each time.
    let line = r#"cd "$D" && ./x.sh"#;
    let a = Line::parse(line, Shell::Bash, &Context::new("/w").var("D", "/a"));
    let b = Line::parse(line, Shell::Bash, &Context::new("/w").var("D", "/b"));
    assert_eq!(a.files_run().unwrap(), vec![PathBuf::from("/a/x.sh")]);
    assert_eq!(b.files_run().unwrap(), vec![PathBuf::from("/b/x.sh")]);
    let unknown = Line::parse(line, Shell::Bash, &Context::new("/w"));
    assert!(unknown.files_run().is_err());
}
