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
