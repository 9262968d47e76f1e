//! External hooks read from config files: hookchain's own `hookchain.yaml`, Claude Code's
//! `settings.json` and docker-agent's agent YAML, each read into the hooks it describes, and
//! every mistake an error naming its file and line.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use hookchain::config::Config;
use hookchain::external::{
    CommandSpec, DEFAULT_PRIORITY, DEFAULT_TIMEOUT, Dialect, ExternalHook, HttpSpec, OnError,
    Transport,
};

use crate::support::temp_dir;

fn fixtures() -> PathBuf {
    crate::support::fixture("config")
}

fn fixture(path: &str) -> String {
    fixtures().join(path).display().to_string()
}

/// The error a config text gives, as the user reads it.
fn error(text: &str) -> String {
    Config::from_yaml_str(text, "./hookchain.yaml")
        .unwrap_err()
        .to_string()
}

fn command(hook: &ExternalHook) -> &CommandSpec {
    match &hook.transport {
        Transport::Command(spec) | Transport::Process(spec) => spec,
        Transport::Http(_) => panic!("{} is an HTTP hook", hook.name),
    }
}

fn line(hook: &ExternalHook) -> Option<usize> {
    hook.origin.line()
}

#[test]
fn a_native_config_with_every_key() {
    let file = fixture("hookchain.yaml");
    let config = Config::load(&file).unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let hooks = config.external_hooks();
    assert_eq!(hooks.len(), 5, "{hooks:#?}");
    let dir = fixtures();

    // A command with every key it can have.
    let guard = &hooks[0];
    assert_eq!(guard.point, "intercept_tool_call");
    assert_eq!(guard.event, "intercept_tool_call");
    assert_eq!(guard.name, "block-rm");
    assert!(matches!(guard.transport, Transport::Command(_)));
    assert_eq!(
        command(guard),
        &CommandSpec {
            // Split like a shell would, the program found from the file's directory.
            argv: vec![
                dir.join("hooks/block_rm.sh").display().to_string(),
                "--strict".into(),
                "two words".into(),
            ],
            display: "./hooks/block_rm.sh --strict \"two words\"".into(),
            env: BTreeMap::from([
                ("LEVEL".to_owned(), "3".to_owned()),
                ("MODE".to_owned(), "strict".to_owned()),
            ]),
            working_dir: Some(dir.join("hooks")),
            env_clear: false,
            env_allow: Vec::new(),
        }
    );
    assert_eq!(guard.matcher.as_str(), "Bash|shell");
    assert!(guard.matcher.matches("Bash") && !guard.matcher.matches("BashOutput"));
    assert_eq!(guard.timeout, Duration::from_secs(10));
    assert_eq!(guard.priority, 20);
    assert_eq!(guard.on_error, OnError::Block);
    assert_eq!(guard.dialect, Dialect::Hookchain);
    assert_eq!(guard.origin.path(), Some(file.as_str()));
    assert_eq!(line(guard), Some(4));

    // A worker process given as a list of arguments, with the defaults.
    let worker = &hooks[1];
    assert!(matches!(worker.transport, Transport::Process(_)));
    assert_eq!(
        command(worker).argv,
        [
            dir.join("hooks/audit.sh").display().to_string(),
            "--serve".into()
        ]
    );
    assert_eq!(command(worker).display, "./hooks/audit.sh --serve");
    assert_eq!(command(worker).working_dir, None);
    assert!(worker.matcher.matches("mcp__github__create"));
    assert_eq!(worker.timeout, DEFAULT_TIMEOUT);
    assert_eq!(worker.priority, DEFAULT_PRIORITY);
    assert_eq!(worker.on_error, OnError::Warn);
    assert_eq!(worker.name, format!("{file}#02"));
    assert_eq!(line(worker), Some(14));

    // An HTTP endpoint.
    let http = &hooks[2];
    assert_eq!(
        http.transport,
        Transport::Http(HttpSpec {
            url: "https://hooks.example.com/check".into(),
            headers: BTreeMap::from([("Authorization".to_owned(), "Bearer abc".to_owned())]),
            allow_local: true,
        })
    );
    assert!(http.matcher.is_all());
    assert_eq!(http.timeout, Duration::from_millis(2500));
    assert_eq!(http.on_error, OnError::Pass);
    assert_eq!(line(http), Some(17));

    // Another agent's name for a point: the point is the canonical one, the event as written.
    let alias = &hooks[3];
    assert_eq!(alias.point, "intercept_tool_call");
    assert_eq!(alias.event, "PreToolUse");
    assert_eq!(alias.name, format!("{file}#04"));

    let start = &hooks[4];
    assert_eq!(start.point, "session_start");
    assert_eq!(start.priority, -5);
    assert_eq!(line(start), Some(24));
}

#[test]
fn default_names_keep_the_file_order() {
    let mut text = "hooks:\n  PreToolUse:\n".to_owned();
    for _ in 0..11 {
        text.push_str("    - command: \"true\"\n");
    }
    let config = Config::from_yaml_str(&text, "./hookchain.yaml").unwrap();
    let names: Vec<&str> = config
        .external_hooks()
        .iter()
        .map(|h| h.name.as_str())
        .collect();
    assert_eq!(names[0], "./hookchain.yaml#01");
    assert_eq!(names[10], "./hookchain.yaml#11");
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(sorted, names, "names sort in file order");
}

#[test]
fn hooks_and_extensions_live_side_by_side() {
    let config = Config::from_yaml_str(
        "extensions:\n  guard:\n    plan_path: p.md\nhooks:\n  on_stop:\n    - command: \"true\"\n",
        "./hookchain.yaml",
    )
    .unwrap();
    assert_eq!(config.section("guard").unwrap()["plan_path"], "p.md");
    assert_eq!(config.external_hooks()[0].point, "on_stop");
    assert!(!config.is_empty());
    // An empty `hooks:` and an empty list are no hooks.
    let empty = Config::from_yaml_str("hooks:\n  PreToolUse:\n", "./h.yaml").unwrap();
    assert!(empty.external_hooks().is_empty());
}

#[test]
fn an_unknown_event_names_its_line_and_the_closest_point() {
    assert_eq!(
        error("hooks:\n  pre_tool_cal:\n    - command: ls\n"),
        "event `pre_tool_cal` in ./hookchain.yaml line 2: no hook point has this name, did you \
         mean `pre_tool_call`?"
    );
    assert_eq!(
        error("hooks:\n  PreToolUs:\n    - command: ls\n"),
        "event `PreToolUs` in ./hookchain.yaml line 2: no hook point has this name, did you mean \
         `PreToolUse`?"
    );
    let far = error("hooks:\n  xyzzy:\n    - command: ls\n");
    assert!(
        far.starts_with(
            "event `xyzzy` in ./hookchain.yaml line 2: no hook point has this name (the points \
             are `session_start`, "
        ),
        "{far}"
    );
}

#[test]
fn an_unknown_key_names_its_line_and_the_closest_key() {
    assert_eq!(
        error("hooks:\n  intercept_tool_call:\n    - command: ls\n      matchr: Bash\n"),
        "key `matchr` of hook #1 of `intercept_tool_call` in ./hookchain.yaml line 4: unknown \
         key, did you mean `matcher`?"
    );
    assert_eq!(
        error("hooks: {}\nhooks_auto_acept: true\n"),
        "key `hooks_auto_acept` in ./hookchain.yaml line 2: unknown top-level key, did you mean \
         `hooks_auto_accept`?"
    );
}

#[test]
fn a_timeout_over_the_maximum_is_an_error_not_a_clamp() {
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      timeout: 601\n"),
        "`timeout` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: 601 seconds is over the \
         longest time limit a hook may have, 600 seconds"
    );
    let at_max = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: ls\n      timeout: 600\n",
        "./h.yaml",
    )
    .unwrap();
    assert_eq!(at_max.external_hooks()[0].timeout, Duration::from_secs(600));
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      timeout: 0\n"),
        "`timeout` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: a time limit must be \
         more than 0 seconds, found 0"
    );
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      timeout: 1m\n"),
        "`timeout` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: expected a number of \
         seconds, found a string"
    );
}

#[test]
fn a_timeout_that_is_not_a_finite_positive_number_is_an_error_not_the_default() {
    let hook = |timeout: &str| {
        error(&format!(
            "hooks:\n  PreToolUse:\n    - command: ls\n      timeout: {timeout}\n"
        ))
    };
    for (written, found) in [(".nan", ".nan"), (".inf", ".inf"), ("-.inf", "-.inf")] {
        assert_eq!(
            hook(written),
            format!(
                "`timeout` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: expected a \
                 number of seconds above 0 and at most 600, found {found}"
            )
        );
    }
    assert_eq!(
        hook("-1"),
        "`timeout` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: a time limit must be \
         more than 0 seconds, found -1"
    );
    for tiny in ["1e-300", "0.0009"] {
        assert_eq!(
            hook(tiny),
            format!(
                "`timeout` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: a time limit \
                 must be at least 0.001 seconds (1 ms), found {tiny}"
            )
        );
    }
    let one_ms = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: ls\n      timeout: 0.001\n",
        "./h.yaml",
    )
    .unwrap();
    assert_eq!(one_ms.external_hooks()[0].timeout, Duration::from_millis(1));
}

#[test]
fn an_environment_variable_name_that_is_not_portable_is_an_error() {
    let hook = |name: &str| {
        error(&format!(
            "hooks:\n  PreToolUse:\n    - command: ls\n      env:\n        {name}: x\n"
        ))
    };
    for (written, shown) in [
        ("\"\"", ""),
        ("\"A=B\"", "A=B"),
        ("\"A\\0B\"", "A\\0B"),
        ("1ST", "1ST"),
        ("MY-VAR", "MY-VAR"),
        ("\"MY VAR\"", "MY VAR"),
        ("ÉTÉ", "ÉTÉ"),
    ] {
        assert_eq!(
            hook(written),
            format!(
                "`env` of hook #1 of `PreToolUse` in ./hookchain.yaml line 5: `{shown}` is not a \
                 portable environment variable name (letters, digits and `_`, not starting with \
                 a digit)"
            ),
            "{written}"
        );
    }
    let fine = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: ls\n      env: {_A1: x, path: y, Z: z}\n",
        "./h.yaml",
    )
    .unwrap();
    assert_eq!(command(&fine.external_hooks()[0]).env.len(), 3);
}

#[test]
fn an_invalid_matcher_regex_names_its_file_and_line() {
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      matcher: \"mcp__(.*\"\n"),
        "`matcher` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: the matcher `mcp__(.*` \
         is not a valid regular expression: unclosed group"
    );
    let claude = problem(Config::from_claude_settings_str(
        "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Edit(\",\n       \
         \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}\n    ]\n  }\n}\n",
        "settings.json",
    ));
    assert_eq!(
        claude,
        "`matcher` of matcher #1 of `PreToolUse` in settings.json line 4: the matcher `Edit(` is \
         not a valid regular expression: unclosed group"
    );
}

#[test]
fn a_program_that_cannot_run_is_an_error_when_loading() {
    let missing = error("hooks:\n  PreToolUse:\n    - command: ./hooks/missing.sh\n");
    let expected_path = std::path::absolute("./hooks/missing.sh").unwrap();
    assert_eq!(
        missing,
        format!(
            "`command` of hook #1 of `PreToolUse` in ./hookchain.yaml line 3: `{}` does not exist",
            expected_path.display()
        )
    );
    let not_on_path = error("hooks:\n  PreToolUse:\n    - process: no-such-program-hookchain\n");
    assert_eq!(
        not_on_path,
        "`process` of hook #1 of `PreToolUse` in ./hookchain.yaml line 3: \
         `no-such-program-hookchain` is not found in PATH"
    );
    let file = fixture("hookchain.yaml");
    let not_executable = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: ./hooks/not_executable.sh\n",
        &file,
    )
    .unwrap_err()
    .to_string();
    assert!(
        not_executable.starts_with(&format!(
            "`command` of hook #1 of `PreToolUse` in {file} line 3: `{}` is not executable",
            fixtures().join("hooks/not_executable.sh").display()
        )),
        "{not_executable}"
    );
}

#[test]
fn an_entry_has_exactly_one_transport_and_only_its_keys() {
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      url: https://x.example\n"),
        "hook #1 of `PreToolUse` in ./hookchain.yaml line 4: has both `command` and `url`: give \
         exactly one"
    );
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - matcher: Bash\n"),
        "hook #1 of `PreToolUse` in ./hookchain.yaml line 3: says neither `command`, `process` \
         nor `url`: give exactly one"
    );
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      headers: {A: b}\n"),
        "`headers` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: applies to `url` hooks \
         only, and this is a `command` hook"
    );
    let ftp = error("hooks:\n  PreToolUse:\n    - url: ftp://x.example/\n");
    assert!(
        ftp.starts_with("`url` of hook #1 of `PreToolUse` in ./hookchain.yaml line 3: ")
            && ftp.contains("ftp://x.example/"),
        "{ftp}"
    );
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      on_error: fail\n"),
        "`on_error` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: expected one of \
         `pass`, `block`, `warn`, found `fail`"
    );
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: \"ls 'open\"\n"),
        "`command` of hook #1 of `PreToolUse` in ./hookchain.yaml line 3: cannot split `ls \
         'open` into arguments: a quote is not closed or a `\\` ends the line"
    );
    assert_eq!(
        error("hooks:\n  - command: ls\n"),
        "`hooks` in ./hookchain.yaml line 1: expected a mapping from hook points (or other \
         agents' names for them) to lists of hooks, found a sequence"
    );
}

#[test]
fn claude_code_settings_read_as_claude_code_reads_them() {
    let file = fixture("claude/.claude/settings.json");
    let config = Config::load_claude_settings(&file).unwrap();
    let project = fixtures().join("claude");
    let hooks = config.external_hooks();
    assert_eq!(hooks.len(), 4, "{hooks:#?}");

    let check = &hooks[0];
    assert_eq!(check.point, "intercept_tool_call");
    assert_eq!(check.event, "PreToolUse");
    assert_eq!(check.name, format!("{file}#01"));
    let line = "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh";
    assert_eq!(
        check.transport,
        Transport::Command(CommandSpec {
            argv: vec!["sh".into(), "-c".into(), line.into()],
            display: line.into(),
            env: BTreeMap::new(),
            working_dir: Some(project.clone()),
            env_clear: false,
            env_allow: Vec::new(),
        })
    );
    assert!(check.matcher.matches("Edit") && !check.matcher.matches("MultiEdit"));
    assert_eq!(check.timeout, Duration::from_secs(30));
    assert_eq!(check.priority, DEFAULT_PRIORITY);
    assert_eq!(check.on_error, OnError::Warn);
    assert_eq!(check.dialect, Dialect::ClaudeCode);
    assert_eq!(check.origin.line(), Some(11));

    // An HTTP hook; a header variable not set is replaced by nothing, as Claude Code does.
    assert_eq!(
        hooks[1].transport,
        Transport::Http(HttpSpec {
            url: "https://hooks.example.com/pre-tool".into(),
            headers: BTreeMap::from([("Authorization".to_owned(), "Bearer ".to_owned())]),
            allow_local: false,
        })
    );
    assert_eq!(hooks[1].timeout, DEFAULT_TIMEOUT);

    // No matcher: every tool; a prompt's event by Claude Code's name.
    assert_eq!(hooks[2].point, "transform_user_input");
    assert!(hooks[2].matcher.is_all());
    assert_eq!(hooks[3].point, "on_stop");
    assert_eq!(hooks[3].timeout, Duration::from_secs(600));

    // What hookchain cannot run is left out, and said so with its line.
    assert_eq!(
        config.warnings(),
        [
            format!(
                "{file} line 26: a `prompt` hook of `PreToolUse` asks a model inside Claude \
                 Code; hookchain runs `command` and `http` hooks only, so it is left out"
            ),
            format!(
                "{file} line 37: Claude Code's event `TeammateIdle` has no hookchain \
                 point; its hooks are left out"
            ),
        ]
    );

    // `Config::load` tells a settings file by its extension.
    let loaded = Config::load(&file).unwrap();
    assert_eq!(loaded.external_hooks().len(), 4);
}

#[test]
fn claude_code_mistakes_name_their_line() {
    // A file that is not a settings file is an error; an entry that cannot be honoured costs
    // that entry only, with a warning.
    let settings = |text: &str| problem(Config::from_claude_settings_str(text, "settings.json"));
    assert_eq!(
        settings("{\n  \"hooks\": {\n    \"PreToolUs\": []\n  }\n}"),
        "settings.json line 3: Claude Code's event `PreToolUs` has no hookchain point; its hooks \
         are left out"
    );
    assert_eq!(
        settings(
            "{\"hooks\": {\"Stop\": [{\"hooks\": [\n  {\"type\": \"command\", \"comand\": \"x\"}]}]}}"
        ),
        "key `comand` of hook #1 of matcher #1 of `Stop` in settings.json line 2: unknown key, \
         did you mean `command`?"
    );
    assert_eq!(
        settings("{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"script\"}]}]}}"),
        "`type` of hook #1 of matcher #1 of `Stop` in settings.json line 1: unknown hook type \
         `script` (`command`, `http`, `prompt` or `agent`)"
    );
    assert_eq!(
        settings(
            "{\"hooks\": {\"Stop\": [{\"hooks\": [\n{\"type\": \"command\", \"command\": \"x\", \"timeout\": 3600}]}]}}"
        ),
        "`timeout` of hook #1 of matcher #1 of `Stop` in settings.json line 2: 3600 seconds is \
         over the longest time limit a hook may have, 600 seconds"
    );
    for (written, problem) in [
        ("-1", "a time limit must be more than 0 seconds, found -1"),
        (
            "1e-300",
            "a time limit must be at least 0.001 seconds (1 ms), found 1e-300",
        ),
    ] {
        assert_eq!(
            settings(&format!(
                "{{\"hooks\": {{\"Stop\": [{{\"hooks\": [\n{{\"type\": \"command\", \"command\": \"x\", \"timeout\": {written}}}]}}]}}}}"
            )),
            format!(
                "`timeout` of hook #1 of matcher #1 of `Stop` in settings.json line 2: {problem}"
            )
        );
    }
    assert_eq!(
        settings("{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}"),
        "the settings in settings.json line 3: invalid JSON at column 14: expected value"
    );
    assert_eq!(
        settings("{\"hooks\": [1]}"),
        "the settings in settings.json line 1: column 11: invalid type: sequence, expected \
         `hooks` to be an object from event names to lists of matchers"
    );
    // A line that starts with a path names a file that is not there: the hook is kept (a
    // runtime error of that hook, as in Claude Code), and a warning says so.
    let missing = settings(
        "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \
         \"$CLAUDE_PROJECT_DIR/.claude/hooks/gone.sh\"}]}]}}",
    );
    assert!(
        missing
            .starts_with("`command` of hook #1 of matcher #1 of `Stop` in settings.json line 1: `")
            && missing.ends_with(
                "/.claude/hooks/gone.sh` does not exist: the hook is kept, and fails at each \
                 firing (under its failure policy) until the program is there"
            ),
        "{missing}"
    );
}

#[test]
fn claude_code_disable_all_hooks_turns_the_file_off() {
    let config = Config::from_claude_settings_str(
        "{\"disableAllHooks\": true, \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \
         \"command\": \"true\"}]}]}}",
        "settings.json",
    )
    .unwrap();
    assert!(config.external_hooks().is_empty());
    assert_eq!(
        config.warnings(),
        ["settings.json line 1: `disableAllHooks` is true: none of its hooks runs"]
    );
    let none = Config::from_claude_settings_str("{\"model\": \"opus\"}", "s.json").unwrap();
    assert!(none.external_hooks().is_empty() && none.warnings().is_empty());
}

#[test]
fn docker_agent_hooks_read_as_docker_agent_reads_them() {
    let file = fixture("docker-agent/agent.yaml");
    let config = Config::load_docker_agent(&file).unwrap();
    let dir = fixtures().join("docker-agent");
    let hooks = config.external_hooks();
    assert_eq!(hooks.len(), 3, "{hooks:#?}");

    let validate = &hooks[0];
    assert_eq!(validate.point, "intercept_tool_call");
    assert_eq!(validate.event, "pre_tool_use");
    assert_eq!(validate.name, format!("{file}#01"));
    assert_eq!(
        validate.transport,
        Transport::Command(CommandSpec {
            // docker-agent runs its lines with the user's $SHELL.
            argv: vec![
                std::env::var("SHELL")
                    .ok()
                    .filter(|s| !s.trim().is_empty())
                    .unwrap_or_else(|| "sh".to_owned()),
                "-c".into(),
                "./scripts/validate.sh".into(),
            ],
            display: "./scripts/validate.sh".into(),
            env: BTreeMap::new(),
            working_dir: Some(dir.clone()),
            env_clear: false,
            env_allow: Vec::new(),
        })
    );
    // docker-agent's matchers are anchored: `shell` is not `shellcheck`.
    assert!(validate.matcher.matches("shell"));
    assert!(validate.matcher.matches("edit_file"));
    assert!(!validate.matcher.matches("shellcheck"));
    assert_eq!(validate.timeout, Duration::from_secs(30));
    // pre_tool_use fails closed whatever `on_error` says, as in docker-agent.
    assert_eq!(validate.on_error, OnError::Block);
    assert_eq!(validate.dialect, Dialect::DockerAgent);
    assert_eq!(validate.origin.line(), Some(11));

    let session = &hooks[1];
    assert_eq!(session.point, "session_start");
    assert_eq!(session.name, "session-log");
    assert_eq!(
        command(session).env,
        BTreeMap::from([("PROFILE".to_owned(), "dev".to_owned())])
    );
    assert_eq!(command(session).working_dir, Some(dir.join("scripts")));
    // `on_error: ignore`.
    assert_eq!(session.on_error, OnError::Pass);
    assert!(session.matcher.is_all());

    // The second agent's hooks follow the first's.
    let helper = &hooks[2];
    assert_eq!(helper.point, "transform_tool_result");
    assert_eq!(helper.on_error, OnError::Block);
    assert_eq!(helper.origin.line(), Some(35));

    let switch = format!(
        "{file} line 26: docker-agent's event `on_agent_switch` has no hookchain point; \
         its hooks are left out"
    );
    // `type: builtin`, `command: add_date` is hookchain's `add-date` injector, with the guards.
    #[cfg(feature = "guards")]
    {
        assert_eq!(config.warnings(), [switch]);
        let section = config.section("add-date").unwrap();
        assert_eq!(config.enabled("add-date"), Some(true));
        assert_eq!(section["point"], "turn_start");
    }
    #[cfg(not(feature = "guards"))]
    assert_eq!(
        config.warnings(),
        [
            format!(
                "{file} line 24: a `builtin` hook of `turn_start` runs inside docker-agent; \
                 hookchain runs `command` hooks only, so it is left out"
            ),
            switch,
        ]
    );

    // `Config::load` tells an agent file by its `agents:`.
    assert_eq!(Config::load(&file).unwrap().external_hooks().len(), 3);
}

#[test]
fn docker_agent_mistakes_name_their_line() {
    let agent = |text: &str| problem(Config::from_docker_agent_str(text, "agent.yaml"));
    assert_eq!(
        agent(
            "agents:\n  root:\n    hooks:\n      pre_tool_us:\n        - type: command\n          command: \"true\"\n"
        ),
        "agent.yaml line 4: docker-agent's event `pre_tool_us` has no hookchain point; its hooks \
         are left out"
    );
    assert_eq!(
        agent(
            "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          command: \"true\"\n          on_error: warnn\n"
        ),
        "`on_error` of hook #1 of `stop` of agent `root` in agent.yaml line 7: expected one of \
         `warn`, `ignore`, `block`, found `warnn`, did you mean `warn`?"
    );
    assert_eq!(
        agent(
            "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - matcher: \"sh(\"\n          hooks:\n            - type: command\n              command: \"true\"\n"
        ),
        "`matcher` of matcher #1 of `pre_tool_use` of agent `root` in agent.yaml line 5: the \
         matcher `sh(` is not a valid regular expression: unclosed group"
    );
    let hook = |extra: &str| {
        agent(&format!(
            "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          command: \"true\"\n{extra}"
        ))
    };
    for (written, problem) in [
        (
            ".nan",
            "expected a number of seconds above 0 and at most 600, found .nan",
        ),
        (
            ".inf",
            "expected a number of seconds above 0 and at most 600, found .inf",
        ),
        ("-2", "a time limit must be more than 0 seconds, found -2"),
        (
            "1e-300",
            "a time limit must be at least 0.001 seconds (1 ms), found 1e-300",
        ),
    ] {
        assert_eq!(
            hook(&format!("          timeout: {written}\n")),
            format!(
                "`timeout` of hook #1 of `stop` of agent `root` in agent.yaml line 7: {problem}"
            )
        );
    }
    for (written, shown) in [("\"\"", ""), ("\"A=B\"", "A=B"), ("9LIVES", "9LIVES")] {
        assert_eq!(
            hook(&format!("          env:\n            {written}: x\n")),
            format!(
                "`env` of hook #1 of `stop` of agent `root` in agent.yaml line 8: `{shown}` is \
                 not a portable environment variable name (letters, digits and `_`, not \
                 starting with a digit)"
            ),
            "{written}"
        );
    }
    assert_eq!(
        agent("name: not an agent file\n"),
        "the file in agent.yaml line 1: has no `agents:`, so it is not a docker-agent agent file"
    );
}

#[test]
fn a_project_file_cannot_approve_its_own_hooks() {
    let temp = temp_dir();
    let root = temp.path().join("auto-accept");
    let (project, home) = (root.join("project"), root.join("home"));
    let global = home.join(".config/hookchain");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&global).unwrap();

    std::fs::write(project.join("hookchain.yaml"), "hooks_auto_accept: true\n").unwrap();
    let config = Config::discover_from(&project, Some(&home)).unwrap();
    assert!(!config.accepts_hooks());
    assert_eq!(config.warnings().len(), 1);
    assert!(
        config.warnings()[0].starts_with(&format!(
            "{} line 1: `hooks_auto_accept: true` is left out: a project's hookchain.yaml cannot \
             approve its own hooks",
            project.join("hookchain.yaml").display()
        )),
        "{:?}",
        config.warnings()
    );

    // The user's own file can.
    std::fs::write(global.join("hookchain.yaml"), "hooks_auto_accept: true\n").unwrap();
    std::fs::write(project.join("hookchain.yaml"), "hooks: {}\n").unwrap();
    let config = Config::discover_from(&project, Some(&home)).unwrap();
    assert!(config.accepts_hooks());
    assert!(config.warnings().is_empty());
    // Loaded by hand — `Config::load("hookchain.yaml")`, the way an agent builds a registry of its
    // own — the project's file still cannot approve its own hooks.
    std::fs::write(project.join("hookchain.yaml"), "hooks_auto_accept: true\n").unwrap();
    let loaded = Config::load(project.join("hookchain.yaml")).unwrap();
    assert!(!loaded.accepts_hooks());
    assert_eq!(loaded.warnings().len(), 1, "{:?}", loaded.warnings());
    let _ = std::fs::remove_dir_all(&root);

    // Code can; a file the agent loads itself cannot (it may be the project's, under another
    // name), nor text handed over: each is left out with a warning.
    assert!(Config::new().accept_hooks(true).accepts_hooks());
    let text = Config::from_yaml_str("hooks_auto_accept: true\n", "a.yaml").unwrap();
    assert!(!text.accepts_hooks());
    assert!(
        text.warnings()[0].contains("only the user's own ~/.config/hookchain/hookchain.yaml"),
        "{:?}",
        text.warnings()
    );
    assert_eq!(
        error("hooks_auto_accept: yes please\n"),
        "`hooks_auto_accept` in ./hookchain.yaml line 1: expected `true` or `false`, found a \
         string"
    );
}

#[test]
fn hooks_of_merged_files_follow_each_other() {
    let global = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: \"true\"\n",
        "global.yaml",
    )
    .unwrap();
    let project = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: \"false\"\n",
        "project.yaml",
    )
    .unwrap();
    let merged = global.merge(project);
    let names: Vec<&str> = merged
        .external_hooks()
        .iter()
        .map(|h| h.name.as_str())
        .collect();
    assert_eq!(names, ["global.yaml#01", "project.yaml#01"]);
}

/// The end to end path: a `hookchain.yaml` naming a bash script, through
/// `HooksBuilder::config`, consent and a turn of the agent.
mod end_to_end {
    use super::*;
    use hookchain::HooksBuilder;
    use hookchain::consent::{AcceptedBy, Consent, ConsentPolicy};
    use hookchain::prelude::*;
    use hookchain_core::{Flow, ToolCall};
    use serde_json::json;

    const GUARD: &str = "hooks:\n  PreToolUse:\n    - command: ./hooks/block_rm.sh\n      matcher: \"Bash|shell\"\n      timeout: 10\n";

    /// The guard config, as if read from a file next to the fixture scripts.
    fn guard_config() -> Config {
        Config::from_yaml_str(GUARD, &fixture("guard.yaml")).unwrap()
    }

    fn shell(cmd: &str) -> ToolCall {
        ToolCall::new("shell", json!({ "cmd": cmd }))
    }

    #[test]
    fn a_configured_script_blocks_rm_rf_with_its_reason() {
        let hooks = HooksBuilder::new()
            .config(guard_config())
            .consent(
                Consent::in_memory(),
                ConsentPolicy::new().accept_hooks(true),
            )
            .build()
            .unwrap();
        let report = hooks.consent_report();
        assert_eq!(report.admitted.len(), 1);
        assert_eq!(report.admitted[0].accepted_by, AcceptedBy::AcceptFlag);
        let chain = hooks.chain_of("intercept_tool_call");
        assert_eq!(chain.len(), 1);
        assert_eq!(chain[0].priority, DEFAULT_PRIORITY);

        let session = hooks.session("e2e-block-rm");
        let turn = session.begin_turn();
        let Flow::Blocked(blocked) = turn.intercept_tool_call(shell("rm -rf /tmp/x")) else {
            panic!("rm -rf was not blocked")
        };
        assert!(
            blocked
                .reason
                .to_string()
                .contains("refusing to run rm -rf: delete files one by one"),
            "{}",
            blocked.reason
        );
        assert_eq!(blocked.hook, format!("{}#01", fixture("guard.yaml")));
        // Another command passes, unchanged.
        let Flow::Continue(call) = turn.intercept_tool_call(shell("ls -l")) else {
            panic!("ls was blocked")
        };
        assert_eq!(call.args, json!({"cmd": "ls -l"}));
        // A tool the matcher does not name never reaches the script.
        assert!(matches!(
            turn.intercept_tool_call(ToolCall::new("write_file", json!({"text": "rm -rf /"}))),
            Flow::Continue(_)
        ));
    }

    #[test]
    fn an_unapproved_script_is_skipped_and_blocks_nothing() {
        let hooks = HooksBuilder::new()
            .config(guard_config())
            .consent(Consent::in_memory(), ConsentPolicy::new())
            .build()
            .unwrap();
        assert!(hooks.chain_of("intercept_tool_call").is_empty());
        let skipped = &hooks.consent_report().skipped;
        assert_eq!(skipped.len(), 1);
        assert!(
            skipped[0].to_string().starts_with(&format!(
                "hook `{}#01` (command `./hooks/block_rm.sh`",
                fixture("guard.yaml")
            )),
            "{}",
            skipped[0]
        );
        let turn = hooks.session("e2e-skipped").begin_turn();
        assert!(matches!(
            turn.intercept_tool_call(shell("rm -rf /tmp/x")),
            Flow::Continue(_)
        ));
    }

    #[test]
    fn hooks_auto_accept_in_the_config_approves_them() {
        let config = guard_config().accept_hooks(true);
        let hooks = HooksBuilder::new()
            .config(config)
            .consent(Consent::in_memory(), ConsentPolicy::new())
            .build()
            .unwrap();
        assert_eq!(
            hooks.consent_report().admitted[0].accepted_by,
            AcceptedBy::Config
        );
        let turn = hooks.session("e2e-auto-accept").begin_turn();
        assert!(turn.intercept_tool_call(shell("rm -rf /")).is_blocked());
    }

    #[test]
    fn an_approved_script_runs_until_it_is_edited() {
        let temp = temp_dir();
        let dir = temp.path().join("e2e-drift");
        std::fs::create_dir_all(dir.join("hooks")).unwrap();
        let script = dir.join("hooks/block_rm.sh");
        std::fs::copy(fixtures().join("hooks/block_rm.sh"), &script).unwrap();
        let file = dir.join("hookchain.yaml").display().to_string();
        let config = Config::from_yaml_str(GUARD, &file).unwrap();
        let allowlist = dir.join("approved-hooks.json");
        let build = || {
            HooksBuilder::new()
                .config(config.clone())
                .consent(Consent::load(&allowlist).unwrap(), ConsentPolicy::new())
                .build()
                .unwrap()
        };

        Consent::load(&allowlist)
            .unwrap()
            .approve(&config.external_hooks()[0])
            .unwrap();
        let hooks = build();
        assert_eq!(
            hooks.consent_report().admitted[0].accepted_by,
            AcceptedBy::Allowlist
        );
        let turn = hooks.session("e2e-drift-1").begin_turn();
        assert!(turn.intercept_tool_call(shell("rm -rf /")).is_blocked());

        // Edited after its approval: skipped, and the drift is the reason given.
        let edited = std::fs::read_to_string(&script)
            .unwrap()
            .replace("one by one", "carefully");
        std::fs::write(&script, edited).unwrap();
        let hooks = build();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(hooks.chain_of("intercept_tool_call").is_empty());
        let skipped = hooks.consent_report().skipped[0].to_string();
        assert!(
            skipped.contains("its script changed since it was approved"),
            "{skipped}"
        );
        let turn = hooks.session("e2e-drift-2").begin_turn();
        assert!(!turn.intercept_tool_call(shell("rm -rf /")).is_blocked());
    }
}

/// The error of a file that does not load, or the first warning of one that does (an entry of
/// another agent's file that cannot be honoured costs that entry only), without the sentence
/// that says what became of the entry.
fn problem(result: Result<Config, hookchain::ConfigError>) -> String {
    match result {
        Err(error) => error.to_string(),
        Ok(config) => {
            let warning = config.warnings().first().expect("a warning").clone();
            for suffix in [
                ": this hook is left out; the file's other hooks load",
                ": this fail-closed hook cannot be loaded, so `intercept_tool_call` blocks until \
                 it is fixed; the file's other hooks load",
            ] {
                if let Some(problem) = warning.strip_suffix(suffix) {
                    return problem.to_owned();
                }
            }
            warning
        }
    }
}

/// Claude Code's `PermissionRequest`, `PermissionDenied`, `PostToolBatch` and `SubagentStart`,
/// and docker-agent's `permission_request`, `on_user_input`, `turn_start`, `on_error` and
/// `on_max_iterations` load, each on its point, under its own name: they were left out with a
/// warning (or, for `turn_start`, fired on every model call).
#[test]
fn the_events_that_had_no_point_load_on_their_points() {
    let hook = "[{\"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]";
    let text = format!(
        "{{\"hooks\": {{\"PermissionRequest\": {hook}, \"PermissionDenied\": {hook}, \
         \"PostToolBatch\": {hook}, \"SubagentStart\": {hook}}}}}"
    );
    let config = Config::from_claude_settings_str(&text, "settings.json").unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let loaded: Vec<(&str, &str)> = config
        .external_hooks()
        .iter()
        .map(|h| (h.event.as_str(), h.point))
        .collect();
    assert_eq!(
        loaded,
        [
            ("PermissionRequest", "permission_request"),
            ("PermissionDenied", "after_tool_call"),
            ("PostToolBatch", "after_tool_batch"),
            ("SubagentStart", "session_start"),
        ]
    );

    let events = [
        "permission_request",
        "on_user_input",
        "turn_start",
        "on_error",
        "on_max_iterations",
    ];
    let mut text = String::from("agents:\n  root:\n    hooks:\n");
    for event in events {
        text.push_str(&format!(
            "      {event}:\n        - type: command\n          command: \"true\"\n"
        ));
    }
    let config = Config::from_docker_agent_str(&text, "agent.yaml").unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let loaded: Vec<(&str, &str)> = config
        .external_hooks()
        .iter()
        .map(|h| (h.event.as_str(), h.point))
        .collect();
    assert_eq!(
        loaded,
        [
            ("permission_request", "permission_request"),
            ("on_user_input", "notification"),
            ("turn_start", "turn_start"),
            ("on_error", "notification"),
            ("on_max_iterations", "notification"),
        ]
    );
}
