//! Gemini CLI's own files and scripts — the fixtures of `tests/fixtures/agents/gemini/`, written
//! in Gemini CLI's idiom (see the README there) — load and answer in hookchain as they do in
//! Gemini CLI: each file loads with the hooks and warnings Gemini CLI would give (timeouts in
//! milliseconds, `hooksConfig` switches, events with no point said), each fixture payload fired
//! through a registry reaches its script in Gemini CLI's form (its tool names,
//! `GEMINI_PROJECT_DIR` set), and what the script answers comes out as Gemini CLI reads it (a
//! `deny` blocks, a `tool_input` is merged over the arguments, an `AfterTool` `deny` replaces the
//! result, context is context). Every test copies the fixtures into a directory of its own.
#![cfg(unix)]

mod support;

use std::path::PathBuf;

use hookchain::config::Config;
use hookchain::points::{
    BeforeCompaction, InterceptToolCall, Level, Notification, NotificationKind, Notify, OnStop,
    SessionStart, ToolCall, TransformToolResult, TransformUserInput,
};
use hookchain::{Flow, Hooks};
use hookchain_external::Dialect;
use hookchain_external::wire::WirePoint;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tempfile::TempDir;

use support::{
    agent_fixtures, agent_payload, assert_consent_pins_script, copy_dir, make_executable, registry,
    temp_dir,
};

/// The fixtures, in the repository.
fn fixtures() -> PathBuf {
    agent_fixtures("gemini")
}

/// The fixtures' project, user home and extension, copied into a directory of the test's own.
struct Gemini {
    _dir: TempDir,
    project: PathBuf,
    home: PathBuf,
    extension: PathBuf,
}

impl Gemini {
    fn new() -> Gemini {
        let dir = temp_dir();
        let (project, home, extension) = (
            dir.path().join("project"),
            dir.path().join("home"),
            dir.path().join("extension"),
        );
        for (name, to) in [
            ("project", &project),
            ("home", &home),
            ("extension", &extension),
        ] {
            copy_dir(&fixtures().join(name), to);
        }
        Gemini {
            _dir: dir,
            project,
            home,
            extension,
        }
    }

    fn settings(&self) -> PathBuf {
        self.project.join(".gemini/settings.json")
    }
}

/// The fixture payload `name` (`BeforeTool.npm_install`), as Gemini CLI sends it, read as point
/// `P`'s value the way `hookchain test` reads it.
fn payload<P>(name: &str) -> P::Value
where
    P: WirePoint,
    P::Value: DeserializeOwned,
{
    let path = fixtures().join("payloads").join(format!("{name}.json"));
    agent_payload::<P>(Dialect::Gemini, &path)
}

fn blocked<T: Clone>(flow: &Flow<T>) -> Option<String> {
    flow.clone().blocked().map(|b| b.reason)
}

/// Every hook of a config, as `point event (timeout in ms)`.
fn hooks_of(config: &Config) -> Vec<String> {
    config
        .external_hooks()
        .iter()
        .map(|hook| {
            format!(
                "{} {} ({}ms)",
                hook.point,
                hook.event,
                hook.timeout.as_millis()
            )
        })
        .collect()
}

/// The project's settings load every hook, timeouts read as milliseconds, its other keys and
/// `hooksConfig` left to Gemini CLI; `BeforeToolSelection` has no point, and says so.
#[test]
fn the_project_settings_load_as_gemini_loads_them() {
    let gemini = Gemini::new();
    let config = Config::load(gemini.settings()).unwrap();
    assert_eq!(
        hooks_of(&config),
        [
            "session_start SessionStart (5000ms)",
            "transform_user_input BeforeAgent (5000ms)",
            "intercept_tool_call BeforeTool (5000ms)",
            "intercept_tool_call BeforeTool (5000ms)",
            "intercept_tool_call BeforeTool (5000ms)",
            "transform_tool_result AfterTool (5000ms)",
            "on_stop AfterAgent (10000ms)",
        ]
    );
    let warnings = config.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "{} line 88: Gemini CLI's event `BeforeToolSelection` has no hookchain point",
            gemini.settings().display()
        )),
        "{warnings:?}"
    );
}

/// What `gemini hooks migrate --from-claude` writes keeps Claude Code's `30` as 30
/// milliseconds, as Gemini CLI reads it, and says so; its matcher is a regex searched in the tool name, so
/// the migrated `grep` still fires for `grep_search`, and `ls` for no tool of Gemini CLI's.
#[test]
fn a_migrated_file_keeps_its_milliseconds_and_its_unanchored_matcher() {
    let dir = temp_dir();
    copy_dir(&fixtures().join("migrated"), dir.path());
    let file = dir.path().join(".gemini/settings.json");
    let config = Config::load(&file).unwrap();
    assert_eq!(
        hooks_of(&config),
        [
            "intercept_tool_call BeforeTool (30ms)",
            "on_stop AfterAgent (60000ms)"
        ]
    );
    let warnings = config.warnings().join("\n");
    assert!(
        warnings.contains(
            "`timeout` 30 is 30 milliseconds, as Gemini CLI reads it (a file migrated from \
             Claude Code keeps its seconds unchanged: write 30000 for 30 seconds)"
        ),
        "{warnings}"
    );
    let matcher = &config.external_hooks()[0].matcher;
    assert!(matcher.matches("grep_search") && matcher.matches("run_shell_command"));
    assert!(!matcher.matches("list_directory"));
}

/// Discovery loads the project's settings, then the user's; the user's
/// `hooksConfig.disabled` switches off the project's hook it names, and says so; the user's
/// `hooksConfig.enabled: false` switches off every hook.
#[test]
fn discovery_honours_the_users_switches() {
    let gemini = Gemini::new();
    let config = Config::discover_gemini_in(&gemini.project, Some(&gemini.home), None).unwrap();
    let events: Vec<String> = config
        .external_hooks()
        .iter()
        .map(|h| h.event.clone())
        .collect();
    assert_eq!(
        events,
        [
            "SessionStart",
            "BeforeAgent",
            "BeforeTool",
            "BeforeTool",
            "BeforeTool",
            "AfterTool",
            "Notification",
            "SessionEnd"
        ]
    );
    let warnings = config.warnings().join("\n");
    assert!(
        warnings.contains(
            "the hook `answer-mentions-tests` is switched off (`hooksConfig.disabled`), so it is \
             left out"
        ),
        "{warnings}"
    );

    let user = gemini.home.join(".gemini/settings.json");
    let text = std::fs::read_to_string(&user)
        .unwrap()
        .replace("\"enabled\": true", "\"enabled\": false");
    std::fs::write(&user, text).unwrap();
    let off = Config::discover_gemini_in(&gemini.project, Some(&gemini.home), None).unwrap();
    assert!(off.external_hooks().is_empty());
    assert!(off.warnings()[0].contains("none of Gemini CLI's hooks runs"));
}

/// The `BeforeTool` scripts, fired with the fixture payloads: `shell_guard.sh` denies `rm -rf`
/// with its reason, `block_force_push.sh` blocks by exit 2, `rewrite_install.sh`'s
/// `tool_input` is merged over the arguments (the `description` stays), and `replace` is not a
/// shell tool, so no script sees it.
#[test]
fn before_tool_scripts_answer_as_in_gemini() {
    let gemini = Gemini::new();
    let hooks = registry(Config::load(gemini.settings()).unwrap());

    let rm = hooks.dispatch::<InterceptToolCall>(payload::<InterceptToolCall>("BeforeTool"));
    assert_eq!(
        blocked(&rm.flow).as_deref(),
        Some("recursive forced delete is not allowed in this repository")
    );

    let install =
        hooks.dispatch::<InterceptToolCall>(payload::<InterceptToolCall>("BeforeTool.npm_install"));
    let Flow::Continue(call) = &install.flow else {
        panic!("npm install was blocked: {:?}", install.flow)
    };
    assert_eq!(
        call.args,
        json!({"command": "npm ci", "description": "Install dependencies"})
    );
    assert_eq!(install.warnings, ["npm install replaced by npm ci"]);

    let push = hooks.dispatch::<InterceptToolCall>(ToolCall::new(
        "run_shell_command",
        json!({"command": "git push --force origin main"}),
    ));
    assert_eq!(
        blocked(&push.flow).as_deref(),
        Some("force-pushing rewrites shared history; push without --force")
    );

    let edit =
        hooks.dispatch::<InterceptToolCall>(payload::<InterceptToolCall>("BeforeTool.replace"));
    assert!(blocked(&edit.flow).is_none());
    assert!(edit.rewritten_by.is_empty() && edit.failures.is_empty());
}

/// The other events' scripts answer as in Gemini CLI: `AfterTool`'s `deny` replaces a result
/// holding a private key with the reason, and adds a note to shell output; `BeforeAgent`'s
/// context, and its `deny` of a prompt with a key; `AfterAgent` sends the agent back once;
/// `SessionStart` reads `GEMINI_PROJECT_DIR`, the project.
#[test]
fn the_other_events_answer_as_in_gemini() {
    let gemini = Gemini::new();
    let hooks = registry(Config::load(gemini.settings()).unwrap());

    let key = hooks.dispatch::<TransformToolResult>(payload::<TransformToolResult>("AfterTool"));
    let Flow::Continue(result) = &key.flow else {
        panic!("{:?}", key.flow)
    };
    assert_eq!(
        result.tool_response,
        json!("[output withheld: it contained a private key]")
    );
    let mut shell = payload::<TransformToolResult>("AfterTool");
    shell.tool_name = "Bash".to_owned();
    shell.tool_response = json!("ok");
    let note = hooks.dispatch::<TransformToolResult>(shell);
    assert_eq!(note.context, ["Shell output above is complete."]);

    let prompt = hooks.dispatch::<TransformUserInput>(payload::<TransformUserInput>("BeforeAgent"));
    assert_eq!(
        prompt.context,
        ["Current branch: main. Run npm test before claiming a fix."]
    );
    let pasted =
        hooks.dispatch::<TransformUserInput>("deploy with AIzaSyA1234567890 now".to_owned());
    assert_eq!(
        blocked(&pasted.flow).as_deref(),
        Some("The prompt looks like it contains an API key; remove it and send again.")
    );

    let stop = hooks.dispatch::<OnStop>(payload::<OnStop>("AfterAgent"));
    assert_eq!(
        blocked(&stop.flow).as_deref(),
        Some("Run npm test and include its result in your answer.")
    );
    let mut again = payload::<OnStop>("AfterAgent");
    again.stop_hook_active = true;
    assert!(blocked(&hooks.dispatch::<OnStop>(again).flow).is_none());

    let context = |hooks: &Hooks| {
        let start = hooks.dispatch::<SessionStart>(payload::<SessionStart>("SessionStart"));
        start
            .flow
            .continued()
            .map(|s| s.context.join("\n"))
            .unwrap_or_default()
    };
    assert_eq!(context(&hooks), "No package.json at the project root.");
    std::fs::write(gemini.project.join("package.json"), "{}").unwrap();
    assert_eq!(
        context(&hooks),
        "This is a Node project; package.json is at the root."
    );
}

/// An extension's `hooks/hooks.json` runs its scripts from `${extensionPath}`; `PreCompress` is
/// advisory (its `systemMessage` a warning, matched on the trigger).
#[test]
fn an_extension_runs_its_scripts_from_its_path() {
    let gemini = Gemini::new();
    let config = Config::load(gemini.extension.join("hooks/hooks.json")).unwrap();
    assert_eq!(config.warnings(), &[] as &[String]);
    assert_eq!(
        hooks_of(&config),
        [
            "session_start SessionStart (60000ms)",
            "before_compaction PreCompress (2000ms)"
        ]
    );
    let hooks = registry(config);
    let start = hooks.dispatch::<SessionStart>(payload::<SessionStart>("SessionStart"));
    let context = start
        .flow
        .continued()
        .map(|s| s.context)
        .unwrap_or_default();
    assert_eq!(
        context,
        ["Repository notes: releases are cut from main every Tuesday."]
    );
    let compress = hooks.dispatch::<BeforeCompaction>(payload::<BeforeCompaction>("PreCompress"));
    assert!(blocked(&compress.flow).is_none());
    assert_eq!(
        compress.warnings,
        ["Compressing history; repository notes will be added again at the next session."]
    );
}

/// A `Notification` hook matched on Gemini CLI's `ToolPermission` fires for a permission
/// prompt, and for nothing else; its `systemMessage` is a warning.
#[test]
fn a_notification_matcher_names_gemini_clis_type() {
    let dir = temp_dir();
    let script = dir.path().join("notify.sh");
    std::fs::copy(fixtures().join("home/.gemini/hooks/notify.sh"), &script).unwrap();
    make_executable(&script);
    let file = dir.path().join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let settings = json!({"hooks": {"Notification": [{"matcher": "ToolPermission", "hooks": [
        {"name": "bell", "type": "command", "command": "$GEMINI_PROJECT_DIR/notify.sh", "timeout": 2000}
    ]}]}});
    std::fs::write(&file, settings.to_string()).unwrap();
    let hooks = registry(Config::load(&file).unwrap());
    let mut ask = Notification::new(Level::Info, "run_shell_command wants to run: git push");
    ask.kind = NotificationKind::PermissionPrompt;
    let asked = hooks.dispatch::<Notify>(ask);
    assert_eq!(asked.warnings, ["A tool is waiting for your approval."]);
    let other = hooks.dispatch::<Notify>(Notification::new(Level::Warning, "slow"));
    assert!(other.warnings.is_empty(), "{:?}", other.warnings);
}

/// Keys Gemini CLI does not know are ignored with a warning naming them; a `sequential` that is
/// not a boolean is said; a timeout under a millisecond is an error of its hook only.
#[test]
fn what_gemini_ignores_is_said() {
    let dir = temp_dir();
    let file = dir.path().join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let settings = json!({"ui": {"theme": "dark"}, "hooks": {
        "enabled": true,
        "BeforeTool": [{"matcher": "run_shell_command", "sequential": "yes", "hooks": [
            {"type": "command", "command": "true", "timeot": 5000},
            {"type": "command", "command": "true", "timeout": 0}
        ]}]
    }});
    std::fs::write(&file, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    let config = Config::load(&file).unwrap();
    assert_eq!(
        hooks_of(&config),
        ["intercept_tool_call BeforeTool (60000ms)"]
    );
    let warnings = config.warnings().join("\n");
    for said in [
        "`sequential` must be true or false, found \"yes\"",
        "unknown key `timeot` of hook #1 of matcher #1 of `BeforeTool` is ignored, as Gemini \
         CLI ignores it (did you mean `timeout`?)",
        "`timeout` of hook #2 of matcher #1 of `BeforeTool`",
        "a time limit must be at least 1 millisecond, found 0",
    ] {
        assert!(warnings.contains(said), "{said}\n--- in ---\n{warnings}");
    }
}

/// Consent pins a Gemini CLI hook named through `$GEMINI_PROJECT_DIR` to its script's
/// content: approved, it runs; its script edited, it has drifted.
#[test]
fn consent_pins_a_gemini_script_by_content() {
    let gemini = Gemini::new();
    let config = Config::load(gemini.settings()).unwrap();
    assert_consent_pins_script(
        &config,
        &gemini.project.join(".gemini/hooks/shell_guard.sh"),
    );
}

/// Forms of public Gemini CLI files (`forms/.gemini/settings.json`, see the README): Gemini
/// CLI's other settings and the older `tools.enableHooks` are left alone, an empty matcher
/// fires for every tool, bare commands load; a hook written flat in its group, with no `hooks`
/// list, is left out with a warning naming the file and line.
#[test]
fn forms_of_public_gemini_files_load() {
    let dir = temp_dir();
    copy_dir(&fixtures().join("forms"), dir.path());
    let file = dir.path().join(".gemini/settings.json");
    let config = Config::load(&file).unwrap();
    assert_eq!(
        hooks_of(&config),
        [
            "intercept_tool_call BeforeTool (5000ms)",
            "intercept_tool_call BeforeTool (60000ms)",
            "session_end SessionEnd (5000ms)",
        ]
    );
    assert!(config.external_hooks()[1].matcher.is_all());
    let warnings = config.warnings().join("\n");
    assert!(
        warnings.contains(&format!(
            "matcher #1 of `BeforeTool` in {} line 13: has no `hooks` list",
            file.display()
        )),
        "{warnings}"
    );
}

/// Gemini CLI's exit codes: exit 1 is a failed hook — reported, and the call goes on (Gemini
/// CLI fails open); plain text on exit 0 is a message for the user, never context for the
/// model; another exit code with text is a `deny` with that text.
#[test]
fn a_failing_gemini_hook_lets_the_call_go_on() {
    let dir = temp_dir();
    let script = |name: &str, body: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\ncat >/dev/null\n{body}\n")).unwrap();
        make_executable(&path);
        format!("$GEMINI_PROJECT_DIR/{name}")
    };
    let hooks = [
        script("fails.sh", "echo 'lint crashed' >&2\nexit 1"),
        script("says.sh", "echo 'checked by the linter'"),
        script("odd.sh", "echo 'not on Fridays'\nexit 3"),
    ];
    let file = dir.path().join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let entries: Vec<Value> = hooks
        .iter()
        .map(|c| json!({"type": "command", "command": c}))
        .collect();
    let settings =
        json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": entries}]}});
    std::fs::write(&file, settings.to_string()).unwrap();
    let hooks = registry(Config::load(&file).unwrap());
    let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new(
        "run_shell_command",
        json!({"command": "ls"}),
    ));
    assert_eq!(blocked(&outcome.flow).as_deref(), Some("not on Fridays"));
    assert_eq!(outcome.failures.len(), 1, "{:?}", outcome.failures);
    assert!(
        outcome.failures[0].error.contains("lint crashed"),
        "{:?}",
        outcome.failures
    );
    assert!(outcome.context.is_empty(), "{:?}", outcome.context);
    assert!(
        outcome
            .warnings
            .contains(&"checked by the linter".to_owned()),
        "{:?}",
        outcome.warnings
    );
}
