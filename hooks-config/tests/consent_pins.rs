//! Consent pins what a shell line runs — under every form the shell reads — and never a file it
//! only writes; a line that computes what it runs is approved by the user alone.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};

use hookchain::HooksBuilder;
use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::consent::{Consent, ConsentPolicy, ConsentStatus, admit, not_pinnable};
use hookchain::external::ExternalHook;
use hookchain::points::{InterceptToolCall, ToolCall};
use serde_json::json;
use support::{make_executable, temp_dir};

/// A hook of `hookchain.yaml` in `dir` running `shell -c line` from `dir`.
fn hook(dir: &Path, shell: &str, line: &str) -> ExternalHook {
    let yaml = format!(
        "hooks:\n  intercept_tool_call:\n    - command: [{shell}, -c, {}]\n      name: h\n      \
         working_dir: .\n",
        serde_json::to_string(line).unwrap()
    );
    let config = dir.join("hookchain.yaml");
    Config::from_yaml_str(&yaml, &config.display().to_string())
        .unwrap()
        .external_hooks()[0]
        .clone()
}

/// A config holding `hook` alone, as loaded: consent applies to it.
fn config_of(hook: ExternalHook) -> Config {
    Config::new().external_hook(hook)
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    make_executable(&path);
    path
}

/// What `log` holds once `hook`, approved in `consent`, has fired twice (each firing let
/// through).
fn fired_twice(hook: ExternalHook, consent: Consent, log: &Path) -> String {
    let hooks = HooksBuilder::new()
        .config(config_of(hook))
        .consent(consent, ConsentPolicy::new())
        .build()
        .unwrap();
    for _ in 0..2 {
        let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new("Bash", json!({})));
        assert!(outcome.flow.blocked().is_none());
    }
    std::fs::read_to_string(log).unwrap()
}

fn drifted(status: ConsentStatus) -> bool {
    matches!(status, ConsentStatus::Drifted { .. })
}

#[test]
fn the_script_is_pinned_under_every_form_of_a_shell_line() {
    let forms: &[(&str, &str, &str)] = &[
        ("sh", r#"(cd "$CLAUDE_PROJECT_DIR" && ./x.sh)"#, "x.sh"),
        ("sh", "./x.sh;", "x.sh"),
        ("sh", "{ ./x.sh; }", "x.sh"),
        ("sh", "./x.sh||true", "x.sh"),
        ("sh", "./x.sh</dev/null", "x.sh"),
        ("sh", r#"sh -c "true;./x.sh""#, "x.sh"),
        ("sh", "bash -euo pipefail -c './x.sh --fast'", "x.sh"),
        ("bash", "$'./x.sh'", "x.sh"),
        ("sh", "${HOOKCHAIN_TEST_NEVER_SET:-./x.sh}", "x.sh"),
        ("sh", "python3 -u x.py", "x.py"),
        ("bash", "source x.sh", "x.sh"),
        ("sh", ". ./x.sh", "x.sh"),
        ("sh", "jq -c . | ./x.sh 2>&1 >> hook.log", "x.sh"),
    ];
    for (shell, line, file) in forms {
        let temp = temp_dir();
        let dir = temp.path();
        let path = script(dir, file, "exit 0");
        let hook = hook(dir, shell, line);
        assert_eq!(not_pinnable(&hook), None, "`{line}` is pinnable");
        let mut consent = Consent::in_memory();
        consent.approve(&hook).unwrap();
        assert_eq!(
            consent.approvals()[0].script.as_deref(),
            Some(path.as_path()),
            "`{line}` pins {file}"
        );
        std::fs::write(&path, "#!/bin/sh\necho edited\n").unwrap();
        assert!(
            drifted(consent.status(&hook)),
            "`{line}`: {file} edited after approval is drifted"
        );
    }
}

#[test]
fn a_script_edited_after_approval_does_not_run() {
    let temp = temp_dir();
    let dir = temp.path();
    let ran = dir.join("ran");
    let path = script(
        dir,
        "x.sh",
        &format!("echo approved >> '{}'", ran.display()),
    );
    let hook = hook(dir, "sh", "{ ./x.sh; } </dev/null");
    let mut consent = Consent::in_memory();
    consent.approve(&hook).unwrap();
    let hooks = HooksBuilder::new()
        .config(config_of(hook))
        .consent(consent, ConsentPolicy::new())
        .build()
        .unwrap();
    let first = hooks.dispatch::<InterceptToolCall>(ToolCall::new("Bash", json!({})));
    assert!(first.flow.blocked().is_none());
    std::fs::write(
        &path,
        format!("#!/bin/sh\necho edited >> '{}'\n", ran.display()),
    )
    .unwrap();
    // The firing fails before anything runs; the hook's `on_error` (pass) applies.
    let _edited = hooks.dispatch::<InterceptToolCall>(ToolCall::new("Bash", json!({})));
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "approved\n");
}

/// docker-agent's and Claude Code's logging hooks write the file their line names: it is never
/// pinned, so the hook keeps running once the log has grown.
#[test]
fn a_logging_hook_runs_at_every_firing() {
    for line in [
        "cat >/dev/null; echo fired >> hook.log",
        r#"echo "$(date) start" >> "$CLAUDE_PROJECT_DIR"/hook.log"#,
        "printf 'fired\\n' | tee -a hook.log >/dev/null",
    ] {
        let temp = temp_dir();
        let dir = temp.path();
        std::fs::write(dir.join("hook.log"), "").unwrap();
        let hook = hook(dir, "sh", line);
        let mut consent = Consent::in_memory();
        consent.approve(&hook).unwrap();
        assert_eq!(consent.approvals()[0].script, None, "`{line}` pins no file");
        let log = fired_twice(hook, consent, &dir.join("hook.log"));
        assert_eq!(
            log.lines().count(),
            2,
            "`{line}` ran at both firings: {log:?}"
        );
    }
}

#[test]
fn a_line_that_computes_what_it_runs_is_approved_by_the_user_alone() {
    let forms: &[(&str, &str)] = &[
        ("sh", "./x.s?"),
        ("sh", "X=./x.sh; $X"),
        ("sh", "$(echo ./x.sh)"),
        ("sh", "eval ./x.sh"),
        ("sh", "$'./x.sh'"),
        ("sh", r#"./x.sh $(cat args) && "$1"/y.sh"#),
        ("sh", "cat | sh"),
    ];
    for (shell, line) in forms {
        let temp = temp_dir();
        let dir = temp.path();
        script(dir, "x.sh", "exit 0");
        let hook = hook(dir, shell, line);
        assert!(not_pinnable(&hook).is_some(), "`{line}` is not pinnable");

        // Blanket approvals do not approve it.
        let mut consent = Consent::in_memory();
        let policy = ConsentPolicy::new().accept_hooks(true).auto_accept(true);
        let (admitted, report) = admit(vec![hook.clone()], &mut consent, &mut { policy });
        assert!(
            admitted.is_empty(),
            "`{line}` is not admitted by --accept-hooks"
        );
        let said = report.skipped[0].to_string();
        assert!(
            said.contains("not pinnable: runs what the line computes")
                && said.contains("hookchain approve h"),
            "{said}"
        );

        // The user's approval of the exact line does.
        consent.approve(&hook).unwrap();
        let (admitted, _) = admit(vec![hook.clone()], &mut consent, &mut ConsentPolicy::new());
        assert_eq!(admitted.len(), 1, "`{line}` approved by the user runs");
        let edited = self::hook(dir, shell, &format!("{line} "));
        assert_ne!(consent.status(&edited), ConsentStatus::Approved);
    }
}

#[test]
fn claude_codes_shell_key_is_pinned() {
    let temp = temp_dir();
    let dir = temp.path();
    script(dir, "x.sh", "exit 0");
    let settings = dir.join(".claude/settings.json");
    let load = |shell: Option<&str>| {
        let shell = shell.map_or(String::new(), |s| format!(", \"shell\": \"{s}\""));
        let json = format!(
            "{{\"hooks\": {{\"PreToolUse\": [{{\"hooks\": [{{\"type\": \"command\", \
             \"command\": \"\\\"$CLAUDE_PROJECT_DIR\\\"/x.sh\"{shell}}}]}}]}}}}"
        );
        Config::from_claude_settings_str(&json, &settings.display().to_string())
            .unwrap()
            .external_hooks()[0]
            .clone()
    };
    let under_sh = load(None);
    let mut consent = Consent::in_memory();
    consent.approve(&under_sh).unwrap();
    assert_eq!(consent.status(&load(Some("sh"))), ConsentStatus::Approved);
    assert!(drifted(consent.status(&load(Some("bash")))));
}

/// A hook of `hookchain.yaml` in `dir` running `argv` (split by the config, no shell) from
/// `dir`, with `env`.
fn argv_hook(dir: &Path, argv: &[&str], env: &[(&str, &str)]) -> ExternalHook {
    let words: Vec<String> = argv
        .iter()
        .map(|w| serde_json::to_string(w).unwrap())
        .collect();
    let mut yaml = format!(
        "hooks:\n  intercept_tool_call:\n    - command: [{}]\n      name: h\n      \
         working_dir: .\n",
        words.join(", ")
    );
    if !env.is_empty() {
        yaml.push_str("      env:\n");
        for (name, value) in env {
            yaml.push_str(&format!("        {name}: {value}\n"));
        }
    }
    let config = dir.join("hookchain.yaml");
    Config::from_yaml_str(&yaml, &config.display().to_string())
        .unwrap()
        .external_hooks()[0]
        .clone()
}

/// A runner the shell model does not read (`uv run`, `npx`, `deno run`) runs its operand: the
/// file is pinned, in a shell line and in a command split from the config alike. An
/// interpreter's option that loads code (`node -r`) makes the line not pinnable: never a file
/// that runs unpinned.
#[test]
fn the_operands_a_runner_names_are_pinned_and_a_module_an_option_loads_is_not_pinnable() {
    const PINNED: bool = true;
    const NOT_PINNABLE: bool = false;
    let forms: &[(Option<&str>, &str, &str, bool)] = &[
        (Some("sh"), "uv run x.py", "x.py", PINNED),
        (Some("sh"), "npx tsx x.ts", "x.ts", PINNED),
        (Some("sh"), "deno run --allow-read x.ts", "x.ts", PINNED),
        (Some("sh"), "node -r ./pre.js x.js", "pre.js", NOT_PINNABLE),
        (
            Some("sh"),
            "node --require=./pre.js x.js",
            "pre.js",
            NOT_PINNABLE,
        ),
        // Split from the config (the loader checks `env` is on `PATH`, not the runner).
        (None, "env uv run x.py", "x.py", PINNED),
        (None, "env node -r ./pre.js x.js", "pre.js", NOT_PINNABLE),
        (None, "env python3 -W ignore x.py", "x.py", PINNED),
    ];
    for (shell, line, file, pinned) in forms {
        let temp = temp_dir();
        let dir = temp.path();
        for name in ["x.py", "x.ts", "x.js", "pre.js"] {
            std::fs::write(dir.join(name), "// approved\n").unwrap();
        }
        let hook = match shell {
            Some(shell) => hook(dir, shell, line),
            None => argv_hook(dir, &line.split(" ").collect::<Vec<_>>(), &[]),
        };
        if !pinned {
            assert!(
                not_pinnable(&hook).is_some(),
                "`{line}` ({shell:?}) is not pinnable"
            );
            continue;
        }
        assert_eq!(
            not_pinnable(&hook),
            None,
            "`{line}` ({shell:?}) is pinnable"
        );
        let mut consent = Consent::in_memory();
        consent.approve(&hook).unwrap();
        std::fs::write(dir.join(file), "// edited\n").unwrap();
        assert!(
            drifted(consent.status(&hook)),
            "`{line}` ({shell:?}): {file} edited after approval is drifted"
        );
    }
}

/// The arguments a script is given are its data: a hook that is told where to write its log
/// keeps running once the log has grown, whether its line goes through a shell or not.
#[test]
fn the_file_a_script_is_told_to_write_is_not_pinned() {
    let cases: &[(Option<&str>, &str)] = &[
        (None, "./log.sh hook.log"),
        (Some("sh"), "./log.sh hook.log"),
        (Some("sh"), "sh ./log.sh hook.log"),
        (Some("sh"), "timeout 5 ./log.sh hook.log"),
    ];
    for (shell, line) in cases {
        let temp = temp_dir();
        let dir = temp.path();
        script(dir, "log.sh", "cat >/dev/null; echo fired >> \"$1\"");
        std::fs::write(dir.join("hook.log"), "").unwrap();
        let hook = match shell {
            Some(shell) => hook(dir, shell, line),
            None => argv_hook(dir, &line.split(" ").collect::<Vec<_>>(), &[]),
        };
        let mut consent = Consent::in_memory();
        consent.approve(&hook).unwrap();
        let log = fired_twice(hook, consent, &dir.join("hook.log"));
        assert_eq!(
            log.lines().count(),
            2,
            "`{line}` ({shell:?}) ran at both firings: {log:?}"
        );
    }
}

#[test]
fn a_command_split_from_the_config_pins_what_its_words_run() {
    let forms: &[&[&str]] = &[
        &["bash", "-ec", "cd sub && ./x.sh"],
        &["sh", "-c", "cd sub; ./x.sh", "hook"],
        &["env", "-C", "sub", "./x.sh"],
        &["nice", "-n", "5", "sh", "-e", "-c", "cd sub && ./x.sh"],
    ];
    for argv in forms {
        let temp = temp_dir();
        let dir = temp.path();
        std::fs::create_dir(dir.join("sub")).unwrap();
        let path = script(&dir.join("sub"), "x.sh", "exit 0");
        let hook = argv_hook(dir, argv, &[]);
        assert_eq!(not_pinnable(&hook), None, "{argv:?} is pinnable");
        let mut consent = Consent::in_memory();
        consent.approve(&hook).unwrap();
        std::fs::write(&path, "#!/bin/sh\necho edited\n").unwrap();
        assert!(
            drifted(consent.status(&hook)),
            "{argv:?}: sub/x.sh edited after approval is drifted"
        );
    }
}

#[test]
fn a_command_that_runs_what_a_variable_or_a_module_leads_to_is_not_pinnable() {
    type Form<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let forms: &[Form] = &[
        (&["python3", "-m", "evil"], &[]),
        (&["node", "--require=./x.js", "y.js"], &[]),
        (&["env", "BASH_ENV=./x.sh", "bash", "y.sh"], &[]),
        (&["bash", "y.sh"], &[("BASH_ENV", "./x.sh")]),
        (&["sh", "-c", "true"], &[("BASH_ENV", "./x.sh")]),
        (&["python3", "y.py"], &[("PYTHONPATH", ".")]),
    ];
    for (argv, env) in forms {
        let temp = temp_dir();
        let dir = temp.path();
        script(dir, "x.sh", "exit 0");
        script(dir, "y.sh", "exit 0");
        std::fs::write(dir.join("y.py"), "").unwrap();
        std::fs::write(dir.join("y.js"), "").unwrap();
        let hook = argv_hook(dir, argv, env);
        assert!(
            not_pinnable(&hook).is_some(),
            "{argv:?} with {env:?} is not pinnable"
        );
    }
}

/// The hook's `env` may set `CLAUDE_PROJECT_DIR` without `HOOKCHAIN_PROJECT_DIR` (or the other
/// way round): each variable of the line is what the hook gets, so the script pinned is the
/// one that runs.
#[test]
fn each_project_directory_variable_is_what_the_hook_gets() {
    for (line, set) in [
        (r#""$HOOKCHAIN_PROJECT_DIR"/x.sh"#, "CLAUDE_PROJECT_DIR"),
        (r#""$CLAUDE_PROJECT_DIR"/x.sh"#, "HOOKCHAIN_PROJECT_DIR"),
    ] {
        let temp = temp_dir();
        let dir = temp.path();
        let decoy = dir.join("decoy");
        std::fs::create_dir(&decoy).unwrap();
        script(&decoy, "x.sh", "exit 0");
        let path = script(dir, "x.sh", "exit 0");
        let yaml = format!(
            "hooks:\n  intercept_tool_call:\n    - command: [sh, -c, {}]\n      name: h\n      \
             working_dir: .\n      env:\n        {set}: {}\n",
            serde_json::to_string(line).unwrap(),
            decoy.display()
        );
        let config = dir.join("hookchain.yaml");
        let hook = Config::from_yaml_str(&yaml, &config.display().to_string())
            .unwrap()
            .external_hooks()[0]
            .clone();
        let mut consent = Consent::in_memory();
        consent.approve(&hook).unwrap();
        std::fs::write(&path, "#!/bin/sh\necho edited\n").unwrap();
        assert!(
            drifted(consent.status(&hook)),
            "`{line}` with `{set}` set: x.sh edited after approval is drifted"
        );
    }
}

/// A script that is not a regular file — a link to `/dev/stdin`, a FIFO — holds what is written
/// to it when the hook runs (`sh x.sh` with `x.sh -> /dev/stdin` runs the hook's payload): there
/// is nothing to pin, and the hook is not pinnable.
#[test]
fn a_script_that_is_not_a_regular_file_is_not_pinnable() {
    for line in ["sh x.sh", "./x.sh", ". ./x.sh"] {
        let temp = temp_dir();
        let dir = temp.path();
        // A device, as `/dev/stdin` is whatever the hook's input is.
        std::os::unix::fs::symlink("/dev/null", dir.join("x.sh")).unwrap();
        let hook = hook(dir, "sh", line);
        assert!(not_pinnable(&hook).is_some(), "`{line}` is not pinnable");
    }
}

/// An interpreter given a directory runs a file in it (`python3 ./tool` runs
/// `tool/__main__.py`, `node ./tool` its `index.js`): not pinnable.
#[test]
fn a_directory_an_interpreter_runs_is_not_pinnable() {
    for line in ["python3 ./tool", "node tool", "cd tool && python3 ."] {
        let temp = temp_dir();
        let dir = temp.path();
        std::fs::create_dir(dir.join("tool")).unwrap();
        std::fs::write(dir.join("tool/__main__.py"), "print('edited later')").unwrap();
        std::fs::write(dir.join("tool/index.js"), "console.log('edited later')").unwrap();
        let hook = hook(dir, "sh", line);
        assert!(not_pinnable(&hook).is_some(), "`{line}` is not pinnable");
    }
}

/// A script whose `#!` line runs another file of the project (`#!./run.sh`,
/// `#!/usr/bin/env ./run.sh`, `#!/usr/bin/env -S sh ./run.sh`) runs that file, which the line
/// does not name: not pinnable. `#!/bin/sh` and `#!/usr/bin/env python3` are the system's.
#[test]
fn a_script_whose_shebang_runs_a_project_file_is_not_pinnable() {
    for first in [
        "#!./run.sh",
        "#!run.sh",
        "#!/usr/bin/env ./run.sh",
        "#!/usr/bin/env -S sh ./run.sh",
        "#!/usr/bin/env -S PATH=. run.sh",
    ] {
        let temp = temp_dir();
        let dir = temp.path();
        script(dir, "run.sh", "echo run");
        std::fs::write(dir.join("x.sh"), format!("{first}\necho body\n")).unwrap();
        make_executable(&dir.join("x.sh"));
        let hook = hook(dir, "sh", "./x.sh");
        assert!(not_pinnable(&hook).is_some(), "`{first}` is not pinnable");
    }
    for first in [
        "#!/bin/sh -e",
        "#!/usr/bin/env python3",
        "#!/usr/bin/env -S deno run -A",
    ] {
        let temp = temp_dir();
        let dir = temp.path();
        std::fs::write(dir.join("x.sh"), format!("{first}\necho body\n")).unwrap();
        make_executable(&dir.join("x.sh"));
        let hook = hook(dir, "sh", "./x.sh");
        assert_eq!(not_pinnable(&hook), None, "`{first}` is pinnable");
    }
}

/// `cd missing; ./x.sh` runs `./x.sh` where the line was (the `cd` fails), not
/// `missing/x.sh`: a relative path run from a directory that is not one is not pinnable.
#[test]
fn a_relative_path_run_after_a_cd_that_fails_is_not_pinnable() {
    for line in ["cd missing; ./x.sh", "cd x.sh; sh x.sh"] {
        let temp = temp_dir();
        let dir = temp.path();
        script(dir, "x.sh", "exit 0");
        let hook = hook(dir, "sh", line);
        assert!(not_pinnable(&hook).is_some(), "`{line}` is not pinnable");
    }
}
