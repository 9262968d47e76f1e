//! The `hookchain` command line, run in-process through `cli::run_with` on configs written to
//! temporary directories, with the fixture scripts of `tests/fixtures/external/`. Every run
//! names its config and its allowlist: the user's home is never read or written.

mod support;

use std::path::PathBuf;

use hookchain::HooksBuilder;
use hookchain::cli::{self, EXIT_BLOCKED, EXIT_ERROR, EXIT_OK};
use hookchain::consent::ACCEPT_HOOKS_ENV;
use hookchain_core::points::InterceptToolCall;
use hookchain_core::{HookContext, HookResult, ToolCall};
use serde_json::{Value, json};
use tempfile::TempDir;

/// A fixture script of the workspace's `tests/fixtures/external/`.
fn fixture(name: &str) -> String {
    let path = support::fixture("external").join(name);
    std::fs::canonicalize(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .display()
        .to_string()
}

/// A temporary directory with a config and an allowlist, removed when dropped.
struct Sandbox {
    dir: PathBuf,
    config: PathBuf,
    consent: PathBuf,
    _temp: TempDir,
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

impl Sandbox {
    fn new(config: &str) -> Sandbox {
        let temp = support::temp_dir();
        let dir = temp.path().to_owned();
        let sandbox = Sandbox {
            config: dir.join("hookchain.yaml"),
            consent: dir.join("approved-hooks.json"),
            dir,
            _temp: temp,
        };
        sandbox.write_config(config);
        sandbox
    }

    fn write_config(&self, text: &str) {
        std::fs::write(&self.config, text).unwrap();
    }

    /// Writes an executable bash script into the sandbox and returns its path.
    fn script(&self, name: &str, body: &str) -> String {
        let path = self.dir.join(name);
        std::fs::write(&path, format!("#!/usr/bin/env bash\n{body}\n")).unwrap();
        support::make_executable(&path);
        path.display().to_string()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, HooksBuilder::new())
    }

    fn run_with(&self, args: &[&str], hooks: HooksBuilder) -> Run {
        let mut argv: Vec<String> = vec![
            "hookchain".into(),
            "--config".into(),
            self.config.display().to_string(),
            "--consent-file".into(),
            self.consent.display().to_string(),
        ];
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = cli::run_with(argv, hooks, &mut out, &mut err);
        Run {
            code,
            out: String::from_utf8(out).unwrap(),
            err: String::from_utf8(err).unwrap(),
        }
    }
}

/// `block.sh` (matcher `Bash|shell`, named `block-rm`) and `pass.sh` on `PreToolUse`.
fn block_and_pass() -> String {
    format!(
        "hooks:\n  PreToolUse:\n    - command: {}\n      matcher: \"Bash|shell\"\n      \
         priority: 20\n      name: block-rm\n    - command: {}\n      name: pass\n",
        fixture("block.sh"),
        fixture("pass.sh"),
    )
}

/// The one JSON object `test --json` printed.
fn json_of(run: &Run) -> Value {
    assert_eq!(run.out.lines().count(), 1, "one line: {:?}", run.out);
    serde_json::from_str(&run.out).unwrap_or_else(|e| panic!("{e}: {:?}", run.out))
}

/// The row of `name` in `list`'s output.
fn row<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|line| line.split_whitespace().nth(2) == Some(name))
        .unwrap_or_else(|| panic!("no row for `{name}` in:\n{out}"))
}

/// The cell of `column` in the row of `name` in `list`'s output: the text under the column's
/// header, up to the next column's. For the columns after `name`, which are aligned left (the
/// first three hold no spaces: `row(..).split_whitespace()` reads them).
fn cell(out: &str, name: &str, column: &str) -> String {
    let mut header = None;
    for line in out.lines() {
        if line.starts_with("point ") {
            header = Some(line);
        } else if line.split_whitespace().nth(2) == Some(name) {
            let header: Vec<char> = header
                .unwrap_or_else(|| panic!("no header above `{name}` in:\n{out}"))
                .chars()
                .collect();
            let starts: Vec<usize> = (0..header.len())
                .filter(|&i| header[i] != ' ' && (i == 0 || header[i - 1] == ' '))
                .collect();
            let word =
                |i: usize| -> String { header[i..].iter().take_while(|c| **c != ' ').collect() };
            let at = starts
                .iter()
                .position(|&i| word(i) == column)
                .unwrap_or_else(|| panic!("no column `{column}` in:\n{out}"));
            let row: Vec<char> = line.chars().collect();
            let end = starts
                .get(at + 1)
                .map_or(row.len(), |&next| next.min(row.len()));
            let start = starts[at].min(row.len());
            return row[start..end].iter().collect::<String>().trim().to_owned();
        }
    }
    panic!("no row for `{name}` in:\n{out}")
}

fn accept_env_is_set() -> bool {
    std::env::var_os(ACCEPT_HOOKS_ENV).is_some()
}

#[test]
fn list_shows_each_configured_hook_and_its_consent() {
    let sandbox = Sandbox::new(&block_and_pass());
    let run = sandbox.run(&["list"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(run.out.contains("compiled-in hooks: none"), "{}", run.out);
    assert!(run.out.contains("configured hooks: 2"), "{}", run.out);
    let header = run
        .out
        .lines()
        .find(|l| l.starts_with("point"))
        .unwrap_or_else(|| panic!("{}", run.out));
    for column in [
        "priority",
        "name",
        "matcher",
        "timeout",
        "transport",
        "target",
        "origin",
        "state",
        "consent",
    ] {
        assert!(header.contains(column), "{header}");
    }
    // What the user reads a row for: the event, the hook, its script and its consent. The
    // script's directory is where the checkout is, so the path is checked by its end: a long
    // one is shown shortened from its start, never cut at its end.
    let block = row(&run.out, "block-rm");
    let cells: Vec<&str> = block.split_whitespace().take(3).collect();
    assert_eq!(cells, ["intercept_tool_call", "20", "block-rm"], "{block}");
    let column = |column| cell(&run.out, "block-rm", column);
    assert_eq!(column("matcher"), "tool:Bash|shell", "{block}");
    assert_eq!(column("timeout"), "60s", "{block}");
    assert_eq!(column("transport"), "command", "{block}");
    let target = column("target");
    assert!(target.ends_with("/external/block.sh"), "{block}");
    assert!(
        fixture("block.sh").ends_with(target.trim_start_matches('…')),
        "{block}"
    );
    assert_eq!(
        column("origin"),
        format!("{}:3", sandbox.config.display()),
        "{block}"
    );
    assert_eq!(column("state"), "on", "{block}");
    assert_eq!(column("consent"), "new", "{block}");
    let pass = row(&run.out, "pass");
    assert!(pass.contains(" 50 ") && pass.contains(" * "), "{pass}");
    assert!(pass.ends_with("new"), "{pass}");
    assert!(run.out.contains("hookchain approve"), "{}", run.out);

    let approved = sandbox.run(&["approve", "block-rm"]);
    assert_eq!(approved.code, EXIT_OK, "{}", approved.err);
    assert!(
        approved.out.starts_with("approved `block-rm`: command `"),
        "{}",
        approved.out
    );
    let run = sandbox.run(&["list"]);
    assert!(
        row(&run.out, "block-rm").ends_with("approved"),
        "{}",
        run.out
    );
    assert!(row(&run.out, "pass").ends_with("new"), "{}", run.out);
    assert!(sandbox.consent.exists());
}

/// A script deep in the file system is listed by the end of its path — its file name and the
/// directories just above it — with its consent, however long the path.
#[test]
fn list_shows_a_deep_script_by_the_end_of_its_path() {
    let sandbox = Sandbox::new("");
    let dir = (0..8).fold(sandbox.path("project"), |dir, i| {
        dir.join(format!("a-directory-with-a-long-name-{i}"))
    });
    let hooks = dir.join(".claude").join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let deep = hooks.join("check.sh");
    std::fs::rename(sandbox.script("check.sh", "cat >/dev/null"), &deep).unwrap();
    let deep = deep.display().to_string();
    sandbox.write_config(&format!(
        "hooks:\n  PreToolUse:\n    - command: {deep} --strict\n      name: check\n"
    ));

    let run = sandbox.run(&["list"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    let target = cell(&run.out, "check", "target");
    let (path, args) = target.split_once(' ').unwrap_or((&target, ""));
    assert!(path.starts_with('…'), "{target}");
    assert!(path.ends_with("/.claude/hooks/check.sh"), "{target}");
    assert!(deep.ends_with(path.trim_start_matches('…')), "{target}");
    assert_eq!(args, "--strict", "{target}");
    assert_eq!(cell(&run.out, "check", "consent"), "new", "{}", run.out);

    let approved = sandbox.run(&["approve", "check"]);
    assert!(
        approved
            .out
            .contains("/.claude/hooks/check.sh --strict` on intercept_tool_call"),
        "{}",
        approved.out
    );
    let run = sandbox.run(&["list"]);
    assert_eq!(
        cell(&run.out, "check", "consent"),
        "approved",
        "{}",
        run.out
    );
}

#[test]
fn an_empty_list_says_why() {
    let sandbox = Sandbox::new("extensions: {}\n");
    let run = sandbox.run(&["list"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(run.out.contains("compiled-in hooks: none ("), "{}", run.out);
    assert!(
        run.out.contains("configured hooks: none (")
            && run.out.contains("go in a `hooks:` section"),
        "{}",
        run.out
    );
}

#[test]
fn list_shows_the_compiled_in_hooks_of_the_builder_it_is_given() {
    let sandbox = Sandbox::new(&block_and_pass());
    let hooks = HooksBuilder::new().hook(InterceptToolCall, 5, |_: &ToolCall, _: &HookContext| {
        HookResult::<Value>::Pass
    });
    let run = sandbox.run_with(&["list"], hooks);
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(run.out.contains("compiled-in hooks: 1"), "{}", run.out);
    let line = run
        .out
        .lines()
        .find(|l| l.starts_with("intercept_tool_call") && l.contains("tests/cli.rs"))
        .unwrap_or_else(|| panic!("{}", run.out));
    let cells: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(cells[1], "5", "{line}");
    assert_eq!(cells[3], "app", "{line}");
}

#[test]
fn test_json_is_blocked_by_an_approved_block_script() {
    let sandbox = Sandbox::new(&block_and_pass());
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let run = sandbox.run(&["test", "PreToolUse", "--json"]);
    assert_eq!(run.code, EXIT_BLOCKED, "{}{}", run.out, run.err);
    assert_eq!(
        run.out,
        "{\"outcome\":\"blocked\",\"reason\":\"rm -rf is not allowed here\",\"hook\":\"block-rm\"}\n"
    );
    assert_eq!(
        json_of(&run),
        json!({"outcome": "blocked", "reason": "rm -rf is not allowed here", "hook": "block-rm"})
    );

    // The readable form says the same, with the chain.
    let run = sandbox.run(&["test", "pre_tool_call"]);
    assert_eq!(run.code, EXIT_BLOCKED);
    assert!(
        run.out
            .contains("event: intercept_tool_call (as `pre_tool_call`)"),
        "{}",
        run.out
    );
    assert!(
        run.out.contains("chain: 2 hook(s), in order"),
        "{}",
        run.out
    );
    assert!(
        run.out
            .ends_with("outcome: blocked by `block-rm`: rm -rf is not allowed here\n"),
        "{}",
        run.out
    );
}

#[test]
fn test_json_continues_when_no_hook_blocks() {
    let sandbox = Sandbox::new(&block_and_pass());
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    // block-rm's matcher is `Bash|shell`: a `Read` call passes it by.
    let run = sandbox.run(&[
        "test",
        "intercept_tool_call",
        "--for-tool",
        "Read",
        "--json",
    ]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert_eq!(
        json_of(&run),
        json!({
            "outcome": "continue",
            "value": {"name": "Read", "args": {}},
            "context": [],
            "warnings": [],
        })
    );
    assert!(
        run.out.starts_with("{\"outcome\":\"continue\","),
        "{}",
        run.out
    );
    let run = sandbox.run(&["test", "intercept_tool_call", "--for-tool", "Read"]);
    assert!(
        run.out
            .contains(":3  (its matcher `Bash|shell` does not match `Read`: not run)\n"),
        "{}",
        run.out
    );
    assert!(
        run.out
            .ends_with("outcome: continue with {\"name\":\"Read\",\"args\":{}}\n"),
        "{}",
        run.out
    );
}

#[test]
fn a_payload_file_is_read_in_the_points_form_or_the_wire_form() {
    let sandbox = Sandbox::new(&block_and_pass());
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let wire = sandbox.path("wire.json");
    std::fs::write(
        &wire,
        r#"{"tool_name": "shell", "tool_input": {"cmd": "rm -rf /"}}"#,
    )
    .unwrap();
    let run = sandbox.run(&[
        "test",
        "PreToolUse",
        "--payload-file",
        wire.to_str().unwrap(),
    ]);
    assert_eq!(run.code, EXIT_BLOCKED, "{}{}", run.out, run.err);

    let native = sandbox.path("native.json");
    std::fs::write(&native, r#"{"name": "Write", "args": {"path": "a.txt"}}"#).unwrap();
    let run = sandbox.run(&[
        "test",
        "PreToolUse",
        "--json",
        "--payload-file",
        native.to_str().unwrap(),
    ]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert_eq!(
        json_of(&run)["value"],
        json!({"name": "Write", "args": {"path": "a.txt"}})
    );

    let wrong = sandbox.path("wrong.json");
    std::fs::write(&wrong, r#"{"args": {}}"#).unwrap();
    let run = sandbox.run(&[
        "test",
        "PreToolUse",
        "--payload-file",
        wrong.to_str().unwrap(),
    ]);
    assert_eq!(run.code, EXIT_ERROR);
    assert!(
        run.err.starts_with(&format!(
            "hookchain: {}: not a value of intercept_tool_call: missing field `name`",
            wrong.display()
        )),
        "{}",
        run.err
    );
}

#[test]
fn hooks_that_are_not_approved_are_skipped_and_never_run() {
    if accept_env_is_set() {
        eprintln!("{ACCEPT_HOOKS_ENV} is set: every hook is approved, nothing to test");
        return;
    }
    let sandbox = Sandbox::new("");
    let marker = sandbox.path("marker");
    let script = sandbox.script(
        "touch.sh",
        &format!("cat >/dev/null\ntouch '{}'", marker.display()),
    );
    sandbox.write_config(&format!(
        "hooks:\n  PreToolUse:\n    - command: {script}\n      name: toucher\n"
    ));

    let run = sandbox.run(&["test", "PreToolUse", "--json"]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    let report = json_of(&run);
    assert_eq!(report["outcome"], "continue");
    let warnings = report["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = warnings[0].as_str().unwrap();
    assert!(
        warning.starts_with("hook `toucher` (command `") && warning.contains("is skipped: new"),
        "{warning}"
    );
    assert!(!marker.exists(), "an unapproved script ran");

    let run = sandbox.run(&["test", "PreToolUse"]);
    assert!(run.out.contains("chain: no hooks"), "{}", run.out);
    assert!(run.out.contains("skipped: hook `toucher`"), "{}", run.out);
    assert!(!marker.exists(), "an unapproved script ran");

    // doctor does not run it either.
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    assert!(!marker.exists(), "doctor ran an unapproved script");

    // Approved, it runs.
    assert_eq!(sandbox.run(&["approve", "toucher"]).code, EXIT_OK);
    let run = sandbox.run(&["test", "PreToolUse", "--json"]);
    assert_eq!(json_of(&run)["warnings"], json!([]));
    assert!(marker.exists(), "the approved script did not run");
}

#[test]
fn a_named_config_cannot_approve_its_own_hooks() {
    if accept_env_is_set() {
        return;
    }
    let sandbox = Sandbox::new("");
    let marker = sandbox.path("marker");
    let script = sandbox.script(
        "touch.sh",
        &format!("cat >/dev/null\ntouch '{}'", marker.display()),
    );
    sandbox.write_config(&format!(
        "hooks_auto_accept: true\nhooks:\n  PreToolUse:\n    - command: {script}\n"
    ));
    let run = sandbox.run(&["test", "PreToolUse", "--json"]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(!marker.exists(), "a project's file approved its own hook");
    assert_eq!(
        run.err,
        format!(
            "note: {} line 1: `hooks_auto_accept: true` is left out: only the user's own \
             ~/.config/hookchain/hookchain.yaml may approve hooks (set it there, pass \
             --accept-hooks, or call `Config::accept_hooks(true)` in code)\n",
            sandbox.config.display()
        )
    );
    assert!(!sandbox.consent.exists());
}

#[test]
fn accept_hooks_approves_runs_and_records() {
    let sandbox = Sandbox::new(&block_and_pass());
    let run = sandbox.run(&["--accept-hooks", "test", "PreToolUse", "--json"]);
    assert_eq!(run.code, EXIT_BLOCKED, "{}{}", run.out, run.err);
    let run = sandbox.run(&["list"]);
    assert!(
        row(&run.out, "block-rm").ends_with("approved"),
        "{}",
        run.out
    );
    assert!(row(&run.out, "pass").ends_with("approved"), "{}", run.out);
}

#[test]
fn an_edited_script_is_drifted_skipped_and_reported() {
    if accept_env_is_set() {
        return;
    }
    let sandbox = Sandbox::new("");
    let script = sandbox.script("guard.sh", "cat >/dev/null\necho 'no' >&2\nexit 2");
    sandbox.write_config(&format!(
        "hooks:\n  PreToolUse:\n    - command: {script}\n      name: guard\n"
    ));
    assert_eq!(sandbox.run(&["approve", "guard"]).code, EXIT_OK);
    assert_eq!(sandbox.run(&["test", "PreToolUse"]).code, EXIT_BLOCKED);

    sandbox.script("guard.sh", "cat >/dev/null\nexit 0");
    let run = sandbox.run(&["list"]);
    assert!(row(&run.out, "guard").ends_with("drifted"), "{}", run.out);
    assert!(
        run.out
            .contains("note: `guard`: its script changed since it was approved (sha256 "),
        "{}",
        run.out
    );
    let run = sandbox.run(&["test", "PreToolUse", "--json"]);
    assert_eq!(run.code, EXIT_OK);
    assert!(
        json_of(&run)["warnings"][0]
            .as_str()
            .unwrap()
            .contains("is skipped: its script changed"),
        "{}",
        run.out
    );
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_ERROR);
    assert!(
        run.out
            .contains("problem its script changed since it was approved"),
        "{}",
        run.out
    );
    let run = sandbox.run(&["approve", "guard"]);
    assert!(run.out.starts_with("approved `guard` again"), "{}", run.out);
    assert_eq!(sandbox.run(&["doctor"]).code, EXIT_OK);
}

/// A line that computes what it runs is not pinnable: `--accept-hooks` does not approve it, and
/// `list` and `doctor` say why; `hookchain approve NAME` does.
#[test]
fn a_line_that_computes_what_it_runs_is_not_pinnable_and_list_and_doctor_say_so() {
    if accept_env_is_set() {
        return;
    }
    let sandbox = Sandbox::new("");
    sandbox.script("x.sh", "cat >/dev/null\nexit 0");
    sandbox.write_config(&format!(
        "hooks:\n  PreToolUse:\n    - command: [sh, -c, \"X=./x.sh; $X\"]\n      name: computed\n      \
         working_dir: {}\n",
        sandbox.dir.display()
    ));
    let run = sandbox.run(&["--accept-hooks", "test", "PreToolUse", "--json"]);
    assert!(
        json_of(&run)["warnings"][0]
            .as_str()
            .unwrap()
            .contains("not pinnable: runs what the line computes"),
        "{}",
        run.out
    );
    let run = sandbox.run(&["list"]);
    assert!(
        run.out.contains(
            "`computed`: not pinnable: runs what the line computes (`$X`: the program is named \
             by a variable the line sets)"
        ),
        "{}",
        run.out
    );
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    assert!(
        run.out
            .contains("not pinnable: runs what the line computes"),
        "{}",
        run.out
    );
    let run = sandbox.run(&["approve", "--all"]);
    assert!(
        run.out.contains(
            "`computed` is left out: not pinnable: runs what the line computes (`$X`: the \
             program is named by a variable the line sets); read its line, then approve it by \
             name: hookchain approve computed"
        ),
        "{}",
        run.out
    );
    assert!(sandbox.run(&["list"]).out.contains("not pinnable"));
    assert!(!sandbox.run(&["doctor"]).out.contains("approved as written"));
    assert_eq!(sandbox.run(&["approve", "computed"]).code, EXIT_OK);
    let run = sandbox.run(&["doctor"]);
    assert!(
        run.out
            .contains("ok      approved as written; not pinnable: runs what the line computes"),
        "{}",
        run.out
    );
}

#[test]
fn doctor_passes_a_good_config() {
    let sandbox = Sandbox::new(&block_and_pass());
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.out);
    assert!(!run.out.contains("  problem "), "{}", run.out);
    assert!(
        run.out.contains(&format!(
            "  ok      program {} is executable",
            fixture("block.sh")
        )),
        "{}",
        run.out
    );
    assert!(
        run.out
            .contains("valid answer (blocks: rm -rf is not allowed here)"),
        "{}",
        run.out
    );
    assert!(run.out.contains("valid answer (passes)"), "{}", run.out);
    assert!(
        run.out
            .lines()
            .filter(|l| l.contains("fired on a synthetic payload in ") && l.contains(" ms"))
            .count()
            == 2,
        "{}",
        run.out
    );
    assert!(
        run.out
            .ends_with("2 configured hook(s): 2 ok, 0 with problems; 0 config file(s) not loaded; 0 compiled-in hook(s) (not checked)\n"),
        "{}",
        run.out
    );
}

#[test]
fn doctor_fires_a_process_worker_once() {
    let sandbox = Sandbox::new("");
    sandbox.write_config(&format!(
        "hooks:\n  session_start:\n    - process: [{}]\n      name: worker\n",
        fixture("echo_worker.py")
    ));
    assert_eq!(sandbox.run(&["approve", "worker"]).code, EXIT_OK);
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.out);
    assert!(
        run.out.contains("worker (session_start process `"),
        "{}",
        run.out
    );
    assert!(run.out.contains("valid answer (passes)"), "{}", run.out);
}

#[test]
fn doctor_reports_a_hook_that_answers_junk() {
    let sandbox = Sandbox::new("");
    sandbox.write_config(&format!(
        "hooks:\n  Stop:\n    - command: {}\n      name: junk\n",
        fixture("junk.sh")
    ));
    assert_eq!(sandbox.run(&["approve", "junk"]).code, EXIT_OK);
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    assert!(
        run.out
            .contains("  problem fired on a synthetic payload in "),
        "{}",
        run.out
    );
    assert!(run.out.contains("1 with problems"), "{}", run.out);
}

/// A hook whose program does not exist costs that hook only: doctor reports it as a problem
/// naming its file and line and checks every other hook; list shows the rest with a note.
#[test]
fn doctor_reports_a_missing_program_and_checks_the_other_hooks() {
    let sandbox = Sandbox::new(&block_and_pass());
    let missing = sandbox.path("missing.yaml");
    std::fs::write(
        &missing,
        format!(
            "hooks:\n  PreToolUse:\n    - command: /nonexistent/hookchain/guard.sh\n    \
             - command: {}\n      name: also-here\n",
            fixture("pass.sh")
        ),
    )
    .unwrap();
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let run = sandbox.run(&["--config", missing.to_str().unwrap(), "doctor"]);
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    let problem = run
        .out
        .lines()
        .find(|l| l.starts_with("problem: "))
        .unwrap_or_else(|| panic!("{}", run.out));
    assert!(
        problem.contains(&format!("{} line 3", missing.display())),
        "{problem}"
    );
    assert!(
        problem.contains("/nonexistent/hookchain/guard.sh"),
        "{problem}"
    );
    // The good file and the good hook of the bad file are still checked.
    assert!(run.out.contains("3 configured hook(s): "), "{}", run.out);
    assert!(run.out.contains("also-here"), "{}", run.out);

    // list shows the rest, and says what was left out.
    let run = sandbox.run(&["--config", missing.to_str().unwrap(), "list"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(run.out.contains("also-here"), "{}", run.out);
    let note = run
        .out
        .lines()
        .find(|l| l.starts_with("note: ") && l.contains("/nonexistent/hookchain/guard.sh"))
        .unwrap_or_else(|| panic!("{}", run.out));
    assert!(
        note.contains(&format!("{} line 3", missing.display())),
        "{note}"
    );
}

#[test]
fn revoke_withdraws_an_approval() {
    let sandbox = Sandbox::new(&block_and_pass());
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let run = sandbox.run(&["revoke", "block-rm"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(run.out.starts_with("revoked `block-rm`: "), "{}", run.out);
    let run = sandbox.run(&["list"]);
    assert!(row(&run.out, "block-rm").ends_with("new"), "{}", run.out);
    assert!(row(&run.out, "pass").ends_with("approved"), "{}", run.out);
    if !accept_env_is_set() {
        assert_eq!(sandbox.run(&["test", "PreToolUse", "--json"]).code, EXIT_OK);
    }
    let run = sandbox.run(&["revoke", "block-rm"]);
    assert!(
        run.out.starts_with("`block-rm` was not approved"),
        "{}",
        run.out
    );
    let run = sandbox.run(&["revoke", "--all"]);
    assert_eq!(run.code, EXIT_OK);
    assert!(sandbox.run(&["list"]).out.contains("  new\n"));
}

#[test]
fn unknown_names_are_errors_with_a_suggestion_and_change_nothing() {
    let sandbox = Sandbox::new(&block_and_pass());
    let run = sandbox.run(&["approve", "pass", "block-rn"]);
    assert_eq!(run.code, EXIT_ERROR);
    assert_eq!(
        run.err,
        "hookchain: no configured hook is named `block-rn`, did you mean `block-rm`? \
         (`hookchain list` shows the names)\n"
    );
    assert!(!sandbox.consent.exists(), "nothing may be approved");
    let run = sandbox.run(&["approve", "zzz"]);
    assert!(
        run.err.contains("(the hooks are `block-rm`, `pass`;"),
        "{}",
        run.err
    );
    // Names or --all, not neither and not both.
    assert_eq!(sandbox.run(&["approve"]).code, EXIT_ERROR);
    assert_eq!(sandbox.run(&["approve", "--all", "pass"]).code, EXIT_ERROR);
}

#[test]
fn an_unknown_event_is_an_error_with_a_suggestion() {
    let sandbox = Sandbox::new(&block_and_pass());
    let run = sandbox.run(&["test", "pre_tool_cal"]);
    assert_eq!(run.code, EXIT_ERROR);
    assert_eq!(
        run.err,
        "hookchain: unknown event `pre_tool_cal`, did you mean `pre_tool_call`?\n"
    );
    assert!(run.out.is_empty());
    let run = sandbox.run(&["test", "PreToolUze", "--json"]);
    assert!(
        run.err.contains("did you mean `PreToolUse`?"),
        "{}",
        run.err
    );
    let run = sandbox.run(&["test", "session_start", "--for-tool", "Bash"]);
    assert_eq!(run.code, EXIT_ERROR);
    assert!(run.err.contains("--for-tool"), "{}", run.err);
}

#[test]
fn every_point_can_be_tested_on_a_synthetic_payload() {
    let sandbox = Sandbox::new("");
    for point in hookchain_core::points::catalog() {
        let run = sandbox.run(&["test", point.name, "--json"]);
        assert_eq!(run.code, EXIT_OK, "{}: {}{}", point.name, run.out, run.err);
        assert_eq!(json_of(&run)["outcome"], "continue", "{}", point.name);
    }
}

#[test]
fn compiled_in_and_configured_hooks_fire_in_one_chain() {
    let sandbox = Sandbox::new(&block_and_pass());
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    // Priority 5 runs before block-rm (20): it rewrites the args and blocks nothing.
    let hooks =
        HooksBuilder::new().hook(InterceptToolCall, 5, |call: &ToolCall, _: &HookContext| {
            let mut args = call.args.clone();
            args["checked"] = json!(true);
            HookResult::Rewrite(args)
        });
    let run = sandbox.run_with(
        &["test", "PreToolUse", "--for-tool", "Read", "--json"],
        hooks,
    );
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert_eq!(
        json_of(&run)["value"],
        json!({"name": "Read", "args": {"checked": true}})
    );
}

#[test]
fn exit_codes_of_usage_help_and_version() {
    let sandbox = Sandbox::new("");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        cli::run_with(["hookchain"], HooksBuilder::new(), &mut out, &mut err),
        EXIT_ERROR
    );
    assert!(String::from_utf8_lossy(&err).contains("Usage: hookchain"));
    let run = sandbox.run(&["frobnicate"]);
    assert_eq!(run.code, EXIT_ERROR);
    assert!(
        run.err.contains("unrecognized subcommand 'frobnicate'"),
        "{}",
        run.err
    );
    let run = sandbox.run(&["--help"]);
    assert_eq!(run.code, EXIT_OK);
    for command in ["list", "test", "doctor", "approve", "revoke"] {
        assert!(run.out.contains(command), "{}", run.out);
    }
    let run = sandbox.run(&["--version"]);
    assert_eq!(run.code, EXIT_OK);
    assert!(run.out.starts_with("hookchain "), "{}", run.out);
}

#[test]
fn a_missing_config_file_is_an_error_naming_it() {
    let sandbox = Sandbox::new("");
    let missing = sandbox.path("nope.yaml");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let args = [
        "hookchain",
        "--config",
        missing.to_str().unwrap(),
        "--consent-file",
        sandbox.consent.to_str().unwrap(),
        "list",
    ];
    assert_eq!(
        cli::run_with(args, HooksBuilder::new(), &mut out, &mut err),
        EXIT_ERROR
    );
    let err = String::from_utf8(err).unwrap();
    assert!(
        err.starts_with(&format!("hookchain: cannot read {}: ", missing.display())),
        "{err}"
    );
}

#[test]
fn claude_code_settings_are_read_as_such() {
    let sandbox = Sandbox::new("");
    let settings = sandbox.path("settings.json");
    std::fs::write(
        &settings,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": fixture("block.sh")}
        ]}]}})
        .to_string(),
    )
    .unwrap();
    let run = sandbox.run(&["--config", settings.to_str().unwrap(), "list"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(run.out.contains("configured hooks: 1"), "{}", run.out);
    let line = run
        .out
        .lines()
        .find(|l| l.contains("settings.json#"))
        .unwrap_or_else(|| panic!("{}", run.out));
    assert!(
        line.contains(" tool:Bash ") && line.ends_with("new"),
        "{line}"
    );
    // Its shell line runs with `sh -c`; doctor names the script the line runs.
    assert_eq!(
        sandbox
            .run(&["--config", settings.to_str().unwrap(), "approve", "--all"])
            .code,
        EXIT_OK
    );
    let run = sandbox.run(&["--config", settings.to_str().unwrap(), "doctor"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.out);
    assert!(
        run.out
            .contains(&format!("; it runs the script {}\n", fixture("block.sh"))),
        "{}",
        run.out
    );
    assert!(
        run.out
            .contains("valid answer (blocks: rm -rf is not allowed here)"),
        "{}",
        run.out
    );
}

/// A compiled-in guard in extension `guard` that blocks every `Bash` call.
fn bash_guard() -> HooksBuilder {
    HooksBuilder::new().hook_with(
        InterceptToolCall,
        hookchain::HookOptions::new("no-bash").extension("guard"),
        |call: &ToolCall, _: &HookContext| {
            if call.name == "Bash" {
                HookResult::<Value>::block("no Bash here")
            } else {
                HookResult::Pass
            }
        },
    )
}

/// A project's `enabled: false` for a compiled-in guard is refused: `test` still blocks, `list`
/// shows the guard on and says what was refused, `doctor` calls it a problem.
#[test]
fn a_project_file_cannot_switch_off_a_guard_in_the_cli() {
    let sandbox = Sandbox::new("extensions:\n  guard:\n    enabled: false\n");
    let refused = format!(
        "{}:3: `enabled: false` of extension `guard` is refused (its hooks include `no-bash` (",
        sandbox.config.display()
    );

    let run = sandbox.run_with(&["test", "PreToolUse"], bash_guard());
    assert_eq!(run.code, EXIT_BLOCKED, "{}{}", run.out, run.err);
    assert!(
        run.out
            .contains("outcome: blocked by `no-bash`: no Bash here"),
        "{}",
        run.out
    );
    assert!(run.out.contains(&format!("note: {refused}")), "{}", run.out);

    let run = sandbox.run_with(&["list"], bash_guard());
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(row(&run.out, "no-bash").ends_with("  on"), "{}", run.out);
    assert!(run.out.contains(&format!("note: {refused}")), "{}", run.out);

    let run = sandbox.run_with(&["doctor"], bash_guard());
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    assert!(
        run.out.contains(&format!("problem: {refused}")),
        "{}",
        run.out
    );
}

/// Hooks that are switched off are listed as such, with who switched them off: the agent's code,
/// or the file and line that added them and switched them off.
#[test]
fn disabled_hooks_are_shown_with_who_disabled_them() {
    let sandbox = Sandbox::new(&format!(
        "hooks:\n  PreToolUse:\n    - command: {}\n      name: block-rm\nextensions:\n  \
             external:\n    enabled: false\n",
        fixture("block.sh")
    ));
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let off_in_code = || {
        bash_guard().sections(
            hookchain::registry::Sections::new().extension("guard", json!({"enabled": false})),
        )
    };
    let by_file = format!("disabled by {}:7", sandbox.config.display());

    let run = sandbox.run_with(&["list"], off_in_code());
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(
        row(&run.out, "no-bash").ends_with("  disabled by the agent's code"),
        "{}",
        run.out
    );
    assert!(
        row(&run.out, "block-rm").ends_with(&format!("  {by_file}  approved")),
        "{}",
        run.out
    );

    let run = sandbox.run_with(&["doctor"], off_in_code());
    assert!(
        run.out.contains(
            "extension `guard` (1 hook(s)) is disabled by the agent's code: its hooks do not run"
        ),
        "{}",
        run.out
    );
    assert!(
        run.out
            .contains(&format!("  off     {by_file}: it does not run")),
        "{}",
        run.out
    );

    // Neither runs, and the chain says why.
    let run = sandbox.run_with(&["test", "PreToolUse"], off_in_code());
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(
        run.out
            .contains("  (disabled by the agent's code: not run)"),
        "{}",
        run.out
    );
    assert!(
        run.out.contains(&format!(":3  ({by_file}: not run)")),
        "{}",
        run.out
    );
}

/// Required hooks are listed as required, and `doctor` calls a required hook that does not run
/// a problem (exit 1): not approved, switched off, or missing from the agent's registry.
#[test]
fn required_hooks_are_listed_and_doctor_reports_one_that_does_not_run() {
    let hook = format!(
        "hooks:\n  PreToolUse:\n    - command: {}\n      name: no-force-push\n      required: true\n",
        fixture("pass.sh")
    );
    let sandbox = Sandbox::new(&hook);
    let at = format!("{}:3", sandbox.config.display());

    // Not approved: listed as required; a problem, and its point blocks.
    let run = sandbox.run(&["list"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.err);
    assert!(
        row(&run.out, "no-force-push").ends_with("  on, required  new"),
        "{}",
        run.out
    );
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    assert!(
        run.out.contains(&format!(
            "problem: required hook `no-force-push` ({at}) did not run: not approved"
        )),
        "{}",
        run.out
    );
    assert!(
        run.out
            .contains(", required: its point blocks when it does not run"),
        "{}",
        run.out
    );

    // Approved and on: no problem.
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_OK, "{}", run.out);

    // Switched off by the file that added it: a problem, naming who switched it off.
    sandbox.write_config(&format!(
        "{hook}extensions:\n  external:\n    enabled: false\n"
    ));
    let by_file = format!("disabled by {}:8", sandbox.config.display());
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    assert!(
        run.out.contains(&format!(
            "problem: required hook `no-force-push` ({at}) is {by_file}: `intercept_tool_call` \
             blocks until it is enabled again"
        )),
        "{}",
        run.out
    );
    assert!(
        run.out.contains(&format!(
            "  problem {by_file}: it does not run, and `intercept_tool_call` blocks"
        )),
        "{}",
        run.out
    );

    // A compiled-in guard the agent requires: listed as required; switched off or missing, a
    // problem.
    sandbox.write_config("");
    let off = || {
        bash_guard()
            .require_hook(InterceptToolCall, "no-bash")
            .sections(
                hookchain::registry::Sections::new().extension("guard", json!({"enabled": false})),
            )
    };
    let run = sandbox.run_with(&["list"], off());
    assert!(
        row(&run.out, "no-bash").ends_with("  disabled by the agent's code, required"),
        "{}",
        run.out
    );
    let run = sandbox.run_with(&["doctor"], off());
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    assert!(
        run.out.contains("problem: required hook `no-bash` ("),
        "{}",
        run.out
    );
    let missing = HooksBuilder::new().require_hook(InterceptToolCall, "my_guards::no_bash");
    let run = sandbox.run_with(&["doctor"], missing);
    assert_eq!(run.code, EXIT_ERROR, "{}", run.out);
    assert!(
        run.out.contains(
            "problem: required hook `my_guards::no_bash` on `intercept_tool_call` is not in this \
             registry"
        ),
        "{}",
        run.out
    );
}

/// `test` takes another agent's payload for a non-tool event in its own field names (a Claude
/// Code Stop payload has no `response`: its `last_assistant_message` is read as it), and a hook
/// that fails and goes on is said once, not as a failure and again as a warning.
#[test]
fn test_takes_another_agents_payload_and_warns_once() {
    let sandbox = Sandbox::new("");
    let failing = sandbox.script("fails.sh", "cat > /dev/null; echo oops >&2; exit 1");
    sandbox.write_config(&format!(
        "hooks:\n  Stop:\n    - command: {failing}\n      on_error: warn\n"
    ));
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let stop = sandbox.path("stop.json");
    std::fs::write(
        &stop,
        r#"{"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
            "hook_event_name": "Stop", "stop_hook_active": true,
            "last_assistant_message": "All done."}"#,
    )
    .unwrap();
    let run = sandbox.run(&["test", "Stop", "--payload-file", stop.to_str().unwrap()]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(
        run.out
            .contains(r#"payload: {"response":"All done.","stop_hook_active":true"#),
        "{}",
        run.out
    );
    assert_eq!(run.out.matches("oops").count(), 1, "{}", run.out);
    let run = sandbox.run(&[
        "test",
        "Stop",
        "--json",
        "--payload-file",
        stop.to_str().unwrap(),
    ]);
    let warnings = json_of(&run)["warnings"].as_array().unwrap().clone();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
}

/// The JSON `test --verbose` printed as sent to `hook`.
fn sent_to(out: &str, hook: &str) -> Value {
    let prefix = format!("sent to `{hook}`: ");
    let line = out
        .lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("nothing sent to `{hook}` in:\n{out}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// A script that echoes what it got, and where it runs, to stderr.
const ECHO_TO_STDERR: &str =
    "input=$(cat); echo \"got $input\" >&2; echo \"pwd $(pwd -P)\" >&2; exit 0";

/// A Claude Code Stop payload keeps its session: the hook is sent its `session_id`, `cwd` and
/// `transcript_path`, runs in that `cwd`, and `--verbose` prints the exact JSON it was sent and
/// its stderr, though it passes.
#[test]
fn test_verbose_shows_what_a_claude_code_stop_hook_receives_in_the_payloads_session() {
    let sandbox = Sandbox::new("");
    let echo = sandbox.script("echo.sh", ECHO_TO_STDERR);
    sandbox.write_config(&format!(
        "hooks:\n  Stop:\n    - command: {echo}\n      name: echo\n"
    ));
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let project = sandbox.path("project");
    std::fs::create_dir_all(&project).unwrap();
    let project = std::fs::canonicalize(&project).unwrap();
    let transcript = sandbox.path("transcript.jsonl");
    std::fs::write(&transcript, "").unwrap();
    let stop = sandbox.path("stop.json");
    std::fs::write(
        &stop,
        json!({
            "session_id": "abc123",
            "transcript_path": transcript,
            "cwd": project,
            "permission_mode": "plan",
            "hook_event_name": "Stop",
            "stop_hook_active": false,
            "last_assistant_message": "All done.",
        })
        .to_string(),
    )
    .unwrap();
    let file = stop.to_str().unwrap();

    let run = sandbox.run(&["test", "Stop", "--verbose", "--payload-file", file]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    let sent = sent_to(&run.out, "echo");
    assert_eq!(sent["hook_event_name"], "Stop", "{sent}");
    assert_eq!(sent["session_id"], "abc123", "{sent}");
    assert_eq!(sent["cwd"], project.display().to_string(), "{sent}");
    assert_eq!(
        sent["transcript_path"],
        transcript.display().to_string(),
        "{sent}"
    );
    assert_eq!(sent["permission_mode"], "plan", "{sent}");
    assert_eq!(sent["last_assistant_message"], "All done.", "{sent}");
    // Its stderr, line by line: what it got is what was printed as sent, and it ran in `cwd`.
    let got = run
        .out
        .lines()
        .find_map(|line| line.strip_prefix("  stderr: got "))
        .unwrap_or_else(|| panic!("no stderr in:\n{}", run.out));
    assert_eq!(serde_json::from_str::<Value>(got).unwrap(), sent);
    assert!(
        run.out
            .contains(&format!("  stderr: pwd {}\n", project.display())),
        "{}",
        run.out
    );
    assert!(run.out.contains("  exit code: 0\n"), "{}", run.out);
    assert!(run.out.contains("session: abc123 (cwd: "), "{}", run.out);

    // With --json, stdout is the one JSON object and the exchanges go to stderr.
    let run = sandbox.run(&["test", "Stop", "--json", "-v", "--payload-file", file]);
    assert_eq!(json_of(&run)["outcome"], "continue");
    assert_eq!(sent_to(&run.err, "echo")["session_id"], "abc123");
}

/// Without --verbose nothing of the exchange is printed, and a payload without a session id
/// fires in the synthetic session, not an empty one.
#[test]
fn test_without_a_session_id_fires_in_the_synthetic_session() {
    let sandbox = Sandbox::new("");
    let echo = sandbox.script("echo.sh", ECHO_TO_STDERR);
    sandbox.write_config(&format!(
        "hooks:\n  Stop:\n    - command: {echo}\n      name: echo\n"
    ));
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let run = sandbox.run(&["test", "Stop"]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(!run.out.contains("sent to"), "{}", run.out);
    let run = sandbox.run(&["test", "Stop", "-v"]);
    assert_eq!(sent_to(&run.out, "echo")["session_id"], "hookchain-test");
}

/// A hook that fails and goes on is said once with --verbose too: its stderr is shown as its
/// answer, and the failure once.
#[test]
fn test_verbose_says_a_failure_once() {
    let sandbox = Sandbox::new("");
    let failing = sandbox.script("fails.sh", "cat > /dev/null; echo oops >&2; exit 1");
    sandbox.write_config(&format!(
        "hooks:\n  Stop:\n    - command: {failing}\n      name: fails\n      on_error: warn\n"
    ));
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let run = sandbox.run(&["test", "Stop", "--verbose"]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(run.out.contains("  stderr: oops\n"), "{}", run.out);
    assert!(run.out.contains("  exit code: 1\n"), "{}", run.out);
    let said = run
        .out
        .lines()
        .filter(|line| !line.starts_with("  ") && line.contains("oops"))
        .count();
    assert_eq!(said, 1, "{}", run.out);
}

/// A `cwd` that is not a directory is an error naming the payload file.
#[test]
fn test_refuses_a_payload_cwd_that_is_not_a_directory() {
    let sandbox = Sandbox::new("");
    let stop = sandbox.path("stop.json");
    std::fs::write(
        &stop,
        r#"{"session_id": "s", "cwd": "/nonexistent/project"}"#,
    )
    .unwrap();
    let run = sandbox.run(&["test", "Stop", "--payload-file", stop.to_str().unwrap()]);
    assert_eq!(run.code, EXIT_ERROR, "{}{}", run.out, run.err);
    assert!(run.err.contains("stop.json"), "{}", run.err);
    assert!(run.err.contains("`cwd`"), "{}", run.err);
}

/// docker-agent payloads for non-tool events, in docker-agent's field names: a `stop` payload's
/// `stop_response` is the reply the hook is asked about, and a `notification` payload's level
/// and message are the notification's.
#[test]
fn test_takes_docker_agent_payloads_for_non_tool_events() {
    let sandbox = Sandbox::new("");
    let echo = sandbox.script("echo.sh", ECHO_TO_STDERR);
    sandbox.write_config(&format!(
        "hooks:\n  stop:\n    - command: {echo}\n      name: on-stop\n  \
         notification:\n    - command: {echo}\n      name: on-note\n"
    ));
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let project = std::fs::canonicalize(&sandbox.dir).unwrap();
    let stop = sandbox.path("stop.json");
    std::fs::write(
        &stop,
        json!({
            "session_id": "dk-7",
            "cwd": project,
            "hook_event_name": "stop",
            "agent_name": "root",
            "stop_response": "The build passes.",
        })
        .to_string(),
    )
    .unwrap();
    let run = sandbox.run(&[
        "test",
        "stop",
        "-v",
        "--payload-file",
        stop.to_str().unwrap(),
    ]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(
        run.out
            .contains(r#"payload: {"response":"The build passes.""#),
        "{}",
        run.out
    );
    let sent = sent_to(&run.out, "on-stop");
    assert_eq!(sent["hook_event_name"], "stop", "{sent}");
    assert_eq!(sent["stop_response"], "The build passes.", "{sent}");
    assert_eq!(sent["session_id"], "dk-7", "{sent}");
    assert_eq!(sent["cwd"], project.display().to_string(), "{sent}");

    let note = sandbox.path("note.json");
    std::fs::write(
        &note,
        json!({
            "session_id": "dk-7",
            "hook_event_name": "notification",
            "notification_level": "error",
            "notification_message": "the model is unreachable",
        })
        .to_string(),
    )
    .unwrap();
    let run = sandbox.run(&[
        "test",
        "notification",
        "--payload-file",
        note.to_str().unwrap(),
    ]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(
        run.out
            .contains(r#"payload: {"level":"error","message":"the model is unreachable""#),
        "{}",
        run.out
    );
}

/// A Hermes payload for a non-tool event: `post_llm_call` keeps the event's fields under
/// `extra` (`assistant_response`), and its `tool_name`/`tool_input` are `null`.
#[test]
fn test_takes_a_hermes_payload_for_a_non_tool_event() {
    let sandbox = Sandbox::new("");
    let echo = sandbox.script("echo.sh", ECHO_TO_STDERR);
    sandbox.write_config(&format!(
        "hooks:\n  post_llm_call:\n    - command: {echo}\n      name: after-reply\n"
    ));
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let reply = sandbox.path("reply.json");
    std::fs::write(
        &reply,
        json!({
            "hook_event_name": "post_llm_call",
            "tool_name": null,
            "tool_input": null,
            "session_id": "hermes-42",
            "cwd": std::fs::canonicalize(&sandbox.dir).unwrap(),
            "extra": {"assistant_response": "Paris.", "task_id": "hermes-42"},
        })
        .to_string(),
    )
    .unwrap();
    let run = sandbox.run(&[
        "test",
        "post_llm_call",
        "--verbose",
        "--payload-file",
        reply.to_str().unwrap(),
    ]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(
        run.out.contains(r#"payload: {"text":"Paris.""#),
        "{}",
        run.out
    );
    let sent = sent_to(&run.out, "after-reply");
    assert_eq!(sent["hook_event_name"], "post_llm_call", "{sent}");
    assert_eq!(sent["session_id"], "hermes-42", "{sent}");
    assert_eq!(sent["extra"]["assistant_response"], "Paris.", "{sent}");
    assert_eq!(sent["extra"]["task_id"], "hermes-42", "{sent}");
}

/// Consent holds in the payload's `cwd`: a shell line naming `./guard.sh` was approved where
/// no such script was; fired in a project directory that has one, that script is not the one
/// approved, so the hook does not run it (it fails as changed since approved).
#[test]
fn test_in_a_payload_cwd_does_not_run_a_script_consent_did_not_see() {
    let sandbox = Sandbox::new("");
    sandbox.write_config(
        "hooks:\n  Stop:\n    - command: \"sh -c ./guard.sh\"\n      name: guard\n      \
         on_error: warn\n",
    );
    assert_eq!(sandbox.run(&["approve", "--all"]).code, EXIT_OK);
    let project = sandbox.path("project");
    std::fs::create_dir_all(&project).unwrap();
    let marker = sandbox.path("ran");
    let guard = project.join("guard.sh");
    std::fs::write(
        &guard,
        format!("#!/bin/sh\ncat >/dev/null\ntouch {}\n", marker.display()),
    )
    .unwrap();
    support::make_executable(&guard);
    let stop = sandbox.path("stop.json");
    std::fs::write(
        &stop,
        json!({"session_id": "s", "cwd": project}).to_string(),
    )
    .unwrap();
    let run = sandbox.run(&[
        "test",
        "Stop",
        "-v",
        "--payload-file",
        stop.to_str().unwrap(),
    ]);
    assert_eq!(run.code, EXIT_OK, "{}{}", run.out, run.err);
    assert!(!marker.exists(), "an unapproved script ran:\n{}", run.out);
    assert!(
        run.out.contains("changed since it was approved"),
        "{}",
        run.out
    );
}
