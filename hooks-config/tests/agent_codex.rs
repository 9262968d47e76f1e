//! Codex's own files and scripts — the fixtures of `tests/fixtures/agents/codex/`, written in
//! Codex's idiom (see the README there) — load and answer in hookchain as they do in Codex:
//! each file loads with the hooks and warnings Codex would give, each fixture payload fired
//! through a registry reaches its script in Codex's form, and what the script answers comes
//! out as Codex reads it (a block with its reason, a rewrite, context, a failed hook that lets
//! the call go on). Every test copies the fixtures into a directory of its own.
#![cfg(unix)]

mod support;

use std::path::PathBuf;

use hookchain::Flow;
use hookchain::config::Config;
use hookchain::points::{
    InterceptToolCall, OnStop, PermissionRequest, SessionStart, ToolCall, TransformToolResult,
    TransformUserInput, TurnEnd, TurnEndEvent, TurnEnded,
};
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
    agent_fixtures("codex")
}

/// The fixtures' project, user home and plugin, copied into a directory of the test's own;
/// the user's `config.toml` names the copy of the project (the fixture names `/work/project`).
struct Codex {
    _dir: TempDir,
    project: PathBuf,
    home: PathBuf,
    plugin: PathBuf,
}

impl Codex {
    fn new() -> Codex {
        let dir = temp_dir();
        let (project, home, plugin) = (
            dir.path().join("project"),
            dir.path().join("home"),
            dir.path().join("plugin"),
        );
        for (name, to) in [("project", &project), ("home", &home), ("plugin", &plugin)] {
            copy_dir(&fixtures().join(name), to);
        }
        let user = home.join(".codex/config.toml");
        let text = std::fs::read_to_string(&user).unwrap();
        let text = text.replace("/work/project", &project.display().to_string());
        std::fs::write(&user, text).unwrap();
        Codex {
            _dir: dir,
            project,
            home,
            plugin,
        }
    }

    /// The project's `hooks.json` and `config.toml`, loaded alone (the user's switches unread).
    fn project_config(&self) -> Config {
        let json = Config::load(self.project.join(".codex/hooks.json")).unwrap();
        let toml = Config::load(self.project.join(".codex/config.toml")).unwrap();
        json.merge(toml)
    }
}

/// The fixture payload `name` (`PreToolUse.npm_install`), as Codex sends it, read as point
/// `P`'s value the way `hookchain test` reads it.
fn payload<P>(name: &str) -> P::Value
where
    P: WirePoint,
    P::Value: DeserializeOwned,
{
    let path = fixtures().join("payloads").join(format!("{name}.json"));
    agent_payload::<P>(Dialect::Codex, &path)
}

fn blocked<T: Clone>(flow: &Flow<T>) -> Option<String> {
    flow.clone().blocked().map(|b| b.reason)
}

/// The end of a turn, for `reason`.
fn turn_end(reason: TurnEnd) -> TurnEndEvent {
    TurnEndEvent {
        session_id: "s".to_owned(),
        turn: 0,
        reason,
    }
}

/// Every hook of a config, as `point event (timeout)`.
fn hooks_of(config: &Config) -> Vec<String> {
    config
        .external_hooks()
        .iter()
        .map(|hook| {
            format!(
                "{} {} ({}s)",
                hook.point,
                hook.event,
                hook.timeout.as_secs_f64()
            )
        })
        .collect()
}

/// The project's two files load every hook they hold, with Codex's time limits (seconds,
/// 600 when unset) and without a warning: `statusMessage`, `command_windows` and
/// `[features]` are Codex's own.
#[test]
fn the_project_files_load_as_codex_loads_them() {
    let codex = Codex::new();
    let json = Config::load(codex.project.join(".codex/hooks.json")).unwrap();
    assert_eq!(
        hooks_of(&json),
        [
            "session_start SessionStart (600s)",
            "transform_user_input UserPromptSubmit (5s)",
            "intercept_tool_call PreToolUse (10s)",
            "intercept_tool_call PreToolUse (10s)",
            "permission_request PermissionRequest (600s)",
            "on_stop Stop (300s)",
        ]
    );
    assert_eq!(json.warnings(), &[] as &[String]);
    let toml = Config::load(codex.project.join(".codex/config.toml")).unwrap();
    assert_eq!(
        hooks_of(&toml),
        [
            "transform_tool_result PostToolUse (10s)",
            "intercept_tool_call PreToolUse (10s)",
            "turn_end Interrupt (2s)",
        ]
    );
    assert_eq!(toml.warnings(), &[] as &[String]);
}

/// A `hooks.json` with any top-level key but `description` and `hooks` is refused whole by
/// Codex (its `$schema` included): none of its hooks loads, and the warning names the key and
/// its line.
#[test]
fn a_hooks_json_with_another_top_level_key_is_refused_whole() {
    let path = fixtures().join("invalid/schema_key/.codex/hooks.json");
    let config = Config::load_codex(&path).unwrap();
    assert!(config.external_hooks().is_empty());
    let warnings = config.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!("{} line 2: key `$schema`", path.display())),
        "{}",
        warnings[0]
    );
}

/// An unknown key of a hook is ignored, as Codex ignores it, with a warning naming it; a
/// handler type hookchain cannot run (`prompt`, `mcp_tool`) and an event with no point
/// (`StopFailure`) are left out, each with a warning; the time limit is never under a second.
#[test]
fn what_codex_ignores_or_hookchain_cannot_run_is_said() {
    let dir = temp_dir();
    let file = dir.path().join(".codex/hooks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "true", "timout": 5, "timeout": 0.2},
            {"type": "prompt", "prompt": "is this safe?"},
            {"type": "mcp_tool", "server": "s", "tool": "t"}
        ]}],
        "StopFailure": [{"hooks": [{"type": "command", "command": "true"}]}],
        "UserPromptSubmit": [{"matcher": "[unclosed", "hooks": [{"type": "command", "command": "true"}]}]
    }});
    std::fs::write(&file, serde_json::to_string_pretty(&text).unwrap()).unwrap();
    let config = Config::load(&file).unwrap();
    assert_eq!(
        hooks_of(&config),
        [
            "intercept_tool_call PreToolUse (1s)",
            "transform_user_input UserPromptSubmit (600s)"
        ]
    );
    let warnings = config.warnings().join("\n");
    for said in [
        "unknown key `timout` of hook #1 of matcher #1 of `PreToolUse` is ignored, as Codex \
         ignores it (did you mean `timeout`?)",
        "a `prompt` hook of `PreToolUse` asks a model inside Codex; hookchain runs `command` \
         hooks only",
        "a `mcp_tool` hook of `PreToolUse` calls a tool of an MCP server inside Codex",
        "Codex's event `StopFailure` has no hookchain point",
    ] {
        assert!(warnings.contains(said), "{said}\n--- in ---\n{warnings}");
    }
}

/// Discovery loads the user's files, then the project's, both of the project's files (with
/// Codex's warning about a layer holding both), and leaves out the hook the user switched off
/// in `[hooks.state."<key>"]`, saying so.
#[test]
fn discovery_loads_every_layer_and_what_the_user_switched_off() {
    let codex = Codex::new();
    let config = Config::discover_codex_from(&codex.project, Some(&codex.home)).unwrap();
    let events: Vec<String> = config
        .external_hooks()
        .iter()
        .map(|h| h.event.clone())
        .collect();
    assert!(!events.contains(&"Stop".to_owned()), "{events:?}");
    assert_eq!(events.len(), 8, "{events:?}");
    let warnings = config.warnings().join("\n");
    let key = format!("{}/.codex/hooks.json:stop:0:0", codex.project.display());
    assert!(
        warnings.contains(&format!("the hook `{key}` is switched off")),
        "{warnings}"
    );
    assert!(warnings.contains("both load, as in Codex"), "{warnings}");

    // `[features] hooks = false` in the user's file: no Codex hook runs at all.
    let user = codex.home.join(".codex/config.toml");
    let text = std::fs::read_to_string(&user).unwrap();
    std::fs::write(&user, format!("[features]\nhooks = false\n\n{text}")).unwrap();
    let off = Config::discover_codex_from(&codex.project, Some(&codex.home)).unwrap();
    assert!(off.external_hooks().is_empty());
    assert!(
        off.warnings()[0].starts_with(&format!(
            "{} line 2: hooks are switched off",
            user.display()
        )),
        "{:?}",
        off.warnings()
    );
}

/// The fixture's `PreToolUse` scripts, fired with the fixture payloads: `deny_rm.sh` denies
/// with its reason, `rewrite_install.sh` rewrites `npm install` to `npm ci` (and adds its
/// context), `block_force_push.sh` blocks by exit 2 with stderr as the reason, and
/// `apply_patch` is not `Bash`, so no script sees it.
#[test]
fn pre_tool_use_scripts_answer_as_in_codex() {
    let codex = Codex::new();
    let hooks = registry(codex.project_config());

    let rm = hooks.dispatch::<InterceptToolCall>(payload::<InterceptToolCall>("PreToolUse"));
    assert_eq!(
        blocked(&rm.flow).as_deref(),
        Some("recursive forced delete is not allowed in this repository")
    );

    let install =
        hooks.dispatch::<InterceptToolCall>(payload::<InterceptToolCall>("PreToolUse.npm_install"));
    let Flow::Continue(call) = &install.flow else {
        panic!("npm install was blocked: {:?}", install.flow)
    };
    assert_eq!(call.args, json!({"command": "npm ci"}));
    assert_eq!(
        install.context,
        ["npm install was replaced by npm ci to keep the lockfile"]
    );

    let push = hooks.dispatch::<InterceptToolCall>(ToolCall::new(
        "exec_command",
        json!({"command": "git push --force origin main"}),
    ));
    assert_eq!(
        blocked(&push.flow).as_deref(),
        Some("force-pushing rewrites shared history; push without --force")
    );

    let patch =
        hooks.dispatch::<InterceptToolCall>(payload::<InterceptToolCall>("PreToolUse.apply_patch"));
    assert!(blocked(&patch.flow).is_none());
    assert!(patch.rewritten_by.is_empty() && patch.failures.is_empty());
}

/// The other events' scripts, fired with the fixture payloads, answer as in Codex: a prompt's
/// context, a prompt carrying a key blocked, a push refused at the permission request, a note
/// after failing tests, the stop gate sending the agent back once, the session's context, and
/// `Interrupt` — a turn the user canceled, and only that — saying its `systemMessage`.
#[test]
fn the_other_events_answer_as_in_codex() {
    let codex = Codex::new();
    let hooks = registry(codex.project_config());

    let prompt =
        hooks.dispatch::<TransformUserInput>(payload::<TransformUserInput>("UserPromptSubmit"));
    assert!(blocked(&prompt.flow).is_none());
    assert_eq!(prompt.context, ["Answer in English."]);
    let key = hooks.dispatch::<TransformUserInput>("use sk-abcd1234 for the API".to_owned());
    assert_eq!(
        blocked(&key.flow).as_deref(),
        Some("The prompt looks like it contains an API key; remove it and send again.")
    );

    let push =
        hooks.dispatch::<PermissionRequest>(payload::<PermissionRequest>("PermissionRequest"));
    assert_eq!(
        blocked(&push.flow).as_deref(),
        Some("Pushing is done by a person, not by the agent.")
    );

    let result =
        hooks.dispatch::<TransformToolResult>(payload::<TransformToolResult>("PostToolUse"));
    assert_eq!(
        result.context,
        ["Tests failed: read the first failure before changing code."]
    );

    let stop = hooks.dispatch::<OnStop>(payload::<OnStop>("Stop"));
    assert_eq!(
        blocked(&stop.flow).as_deref(),
        Some("Run the test suite and report its result before ending the turn.")
    );
    let mut again = payload::<OnStop>("Stop");
    again.stop_hook_active = true;
    assert!(blocked(&hooks.dispatch::<OnStop>(again).flow).is_none());

    let start = hooks.dispatch::<SessionStart>(payload::<SessionStart>("SessionStart"));
    let context = start
        .flow
        .continued()
        .map(|s| s.context)
        .unwrap_or_default();
    assert!(
        context.join("\n").contains("builds with cargo"),
        "{context:?}"
    );

    let canceled = hooks.dispatch::<TurnEnded>(turn_end(TurnEnd::Canceled));
    assert_eq!(
        canceled.warnings,
        ["Turn interrupted; partial edits may be on disk."]
    );
    let normal = hooks.dispatch::<TurnEnded>(turn_end(TurnEnd::Normal));
    assert!(normal.warnings.is_empty(), "{:?}", normal.warnings);
}

/// Codex's strictness: an answer with a field Codex does not support for the event — a bare
/// `permissionDecision: "allow"`, a `deny` with one unknown field beside it — makes the hook
/// count as failed, and the call goes on; the failure is reported. Two hooks rewriting one call
/// run in file order, and the last one's input wins.
#[test]
fn an_answer_codex_rejects_is_a_failed_hook_and_the_call_goes_on() {
    let dir = temp_dir();
    let write_script = |name: &str, answer: &str| {
        let path = dir.path().join(".codex/hooks").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            format!("#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '{answer}'\n"),
        )
        .unwrap();
        make_executable(&path);
        format!(".codex/hooks/{name}")
    };
    let specific = |fields: &str| {
        format!("{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",{fields}}}}}")
    };
    let strict = [
        write_script("allow.sh", &specific("\"permissionDecision\":\"allow\"")),
        write_script(
            "deny_extra.sh",
            &specific(
                "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\",\"note\":1",
            ),
        ),
    ];
    let rewrites = [
        write_script(
            "first.sh",
            &specific("\"permissionDecision\":\"allow\",\"updatedInput\":{\"command\":\"one\"}"),
        ),
        write_script(
            "second.sh",
            &specific("\"permissionDecision\":\"allow\",\"updatedInput\":{\"command\":\"two\"}"),
        ),
    ];
    let file = dir.path().join(".codex/hooks.json");
    let hooks_json = |commands: &[String]| {
        let hooks: Vec<Value> = commands
            .iter()
            .map(|c| json!({"type": "command", "command": c}))
            .collect();
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}).to_string()
    };

    std::fs::write(&file, hooks_json(&strict)).unwrap();
    let hooks = registry(Config::load(&file).unwrap());
    let outcome =
        hooks.dispatch::<InterceptToolCall>(ToolCall::new("Bash", json!({"command": "rm -rf /"})));
    assert!(blocked(&outcome.flow).is_none(), "{:?}", outcome.flow);
    assert_eq!(outcome.failures.len(), 2, "{:?}", outcome.failures);
    let messages: Vec<String> = outcome.failures.iter().map(|f| f.error.clone()).collect();
    assert!(
        messages[0].contains("Codex rejects this answer")
            && messages[0].contains("supported only beside `updatedInput`"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("`hookSpecificOutput.note`"),
        "{messages:?}"
    );

    std::fs::write(&file, hooks_json(&rewrites)).unwrap();
    let hooks = registry(Config::load(&file).unwrap());
    let outcome =
        hooks.dispatch::<InterceptToolCall>(ToolCall::new("Bash", json!({"command": "x"})));
    let Flow::Continue(call) = &outcome.flow else {
        panic!("{:?}", outcome.flow)
    };
    assert_eq!(call.args, json!({"command": "two"}));
    assert_eq!(outcome.rewritten_by.len(), 2);
}

/// A plugin's `hooks/hooks.json` (its directory holds `.codex-plugin/`) runs its scripts from
/// `${PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_ROOT}`, and each script gets `PLUGIN_ROOT`.
#[test]
fn a_plugin_runs_its_scripts_from_its_root() {
    let codex = Codex::new();
    let config = Config::load(codex.plugin.join("hooks/hooks.json")).unwrap();
    assert_eq!(config.warnings(), &[] as &[String]);
    let hooks = registry(config);
    let start = hooks.dispatch::<SessionStart>(payload::<SessionStart>("SessionStart"));
    let context = start
        .flow
        .continued()
        .map(|s| s.context)
        .unwrap_or_default();
    assert_eq!(
        context.join("\n"),
        format!(
            "The audit plugin is active (root: {}).",
            codex.plugin.display()
        )
    );
    let write = hooks.dispatch::<InterceptToolCall>(ToolCall::new(
        "mcp__notes__write_note",
        json!({"text": "x"}),
    ));
    assert!(blocked(&write.flow).is_none() && write.failures.is_empty());
}

/// Consent pins a Codex hook to its script's content: approved, it runs; its script edited, it
/// has drifted and needs approving again.
#[test]
fn consent_pins_a_codex_script_by_content() {
    let codex = Codex::new();
    let config = Config::load(codex.project.join(".codex/hooks.json")).unwrap();
    assert_consent_pins_script(&config, &codex.project.join(".codex/hooks/deny_rm.sh"));
}

/// Forms of public Codex files (`forms/.codex/hooks.json`, see the README): a dispatcher found
/// with `$(git rev-parse --show-toplevel)`, a `*` matcher, regex matchers over `apply_patch` and
/// MCP tools, and a `${CODEX_PLUGIN_ROOT}` a project file takes from the environment, all load;
/// a script named by an absolute path that is not there is kept, with a warning naming the file
/// and line, and fails at each firing as in Codex (a warning, the call goes on).
#[test]
fn forms_of_public_codex_files_load() {
    let dir = temp_dir();
    copy_dir(&fixtures().join("forms"), dir.path());
    let file = dir.path().join(".codex/hooks.json");
    let config = Config::load(&file).unwrap();
    assert_eq!(
        hooks_of(&config),
        [
            "intercept_tool_call PreToolUse (10s)",
            "intercept_tool_call PreToolUse (10s)",
            "intercept_tool_call PreToolUse (10s)",
            "permission_request PermissionRequest (10s)",
            "transform_user_input UserPromptSubmit (60s)",
        ]
    );
    let warnings = config.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(&format!("{} line 21: `/opt/team-hooks/check-adr.sh` does not exist", file.display()))
            && warnings[0].ends_with("the hook is kept, and fails at each firing (under its failure policy) until the program is there"),
        "{warnings:?}"
    );
}
