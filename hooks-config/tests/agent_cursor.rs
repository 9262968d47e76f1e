//! Cursor's `hooks.json` files and scripts (`tests/fixtures/agents/cursor/`, whose README says
//! what each script answers to each payload) run inside hookchain as Cursor runs them: the
//! files load with the warnings Cursor's rules call for, each script gets Cursor's payload for
//! its event, and its answer comes out as Cursor reads it — a deny is a block with the model's
//! message, `continue: false` blocks a prompt, a `followup_message` sends the agent back to
//! work, `failClosed` makes a failure block. Each test works on a copy of the fixtures in a
//! directory of its own.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hookchain::config::Config;
use hookchain::consent::{Consent, ConsentStatus};
use hookchain::external::OnError;
use hookchain::points::ToolCall;
use hookchain::{Hooks, Session, Stop};
use serde_json::{Map, Value, json};
use support::{agent_fixtures, copy_dir, make_executable, registry, temp_dir};
use tempfile::TempDir;

/// The fixtures, as checked in.
fn fixtures() -> PathBuf {
    agent_fixtures("cursor")
}

/// A copy of the fixtures: `project/`, `home/`, `plugin/`, `invalid/`, `payloads/`.
struct Fixtures(TempDir);

impl Fixtures {
    fn new() -> Fixtures {
        let dir = temp_dir();
        copy_dir(&fixtures(), dir.path());
        Fixtures(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    fn project(&self) -> PathBuf {
        self.path("project")
    }
}

/// What the hooks of a session were sent, as (hook's event, payload), in order.
type Sent = Arc<Mutex<Vec<(String, Map<String, Value>)>>>;

/// A session of `hooks` in `project`, whose exchanges land in the returned list.
fn session(hooks: &Hooks, project: &Path, id: &str) -> (Session, Sent) {
    let session = hooks.session(id);
    session.set_project_dir(project);
    let sent: Sent = Arc::default();
    let log = Arc::clone(&sent);
    hookchain::external::hook::tap(&session.state(), move |exchange| {
        let payload: Map<String, Value> = serde_json::from_slice(exchange.payload).unwrap();
        log.lock()
            .unwrap()
            .push((exchange.event.to_owned(), payload));
    });
    (session, sent)
}

fn events(sent: &Sent) -> Vec<String> {
    sent.lock()
        .unwrap()
        .iter()
        .map(|(e, _)| e.clone())
        .collect()
}

/// The project's file: every event loads with its point and Cursor's options, and the one
/// thing hookchain does differently (`loop_limit` below its redo cap) is said.
#[test]
fn the_project_file_loads_as_cursor_reads_it() {
    let fx = Fixtures::new();
    let file = fx.project().join(".cursor/hooks.json");
    let config = Config::load(&file).unwrap();
    let hooks: Vec<(&str, &str, OnError, u64)> = config
        .external_hooks()
        .iter()
        .map(|h| (h.event.as_str(), h.point, h.on_error, h.timeout.as_secs()))
        .collect();
    assert_eq!(
        hooks,
        [
            ("sessionStart", "session_start", OnError::Warn, 5),
            (
                "beforeSubmitPrompt",
                "transform_user_input",
                OnError::Warn,
                5
            ),
            (
                "beforeShellExecution",
                "intercept_tool_call",
                OnError::Block,
                10
            ),
            (
                "beforeShellExecution",
                "intercept_tool_call",
                OnError::Warn,
                10
            ),
            (
                "beforeMCPExecution",
                "intercept_tool_call",
                OnError::Block,
                10
            ),
            ("beforeReadFile", "intercept_tool_call", OnError::Warn, 5),
            ("afterFileEdit", "after_tool_call", OnError::Warn, 60),
            ("stop", "on_stop", OnError::Warn, 60),
        ]
    );
    let warnings = config.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("hooks.json line 48") && warnings[0].contains("`loop_limit: 2`"),
        "{warnings:?}"
    );
}

/// Cursor's priority order: the project's hooks run before the user's, and the user's file
/// runs its `./hooks/` commands from `~/.cursor/`, with its matcher in Cursor's tool names. The
/// user's scripts in the 1.7-era form are read as Cursor reads them: a deny printed before
/// `exit 1` denies, `permission` on a prompt is not read.
#[test]
fn discovery_loads_the_project_then_the_user() {
    let fx = Fixtures::new();
    let config = Config::discover_cursor_from(&fx.project(), Some(&fx.path("home"))).unwrap();
    let files: Vec<&str> = config
        .external_hooks()
        .iter()
        .map(|h| h.origin.path().unwrap_or_default())
        .collect();
    assert_eq!(files.len(), 15);
    assert!(
        files[..8].iter().all(|f| f.contains("project")),
        "{files:?}"
    );
    assert!(files[8..].iter().all(|f| f.contains("home")), "{files:?}");
    let project = &config.external_hooks()[0];
    let user = &config.external_hooks()[8];
    assert!(project.priority < user.priority);
    assert_eq!(user.event, "preToolUse");
    assert!(user.matcher.matches("Shell") && !user.matcher.matches("Read"));

    let hooks = registry(config);
    let (session, sent) = session(&hooks, &fx.project(), "cursor-discovery");
    let turn = session.begin_turn();
    sent.lock().unwrap().clear();
    let ls = turn.intercept_tool_call(ToolCall::new("Bash", json!({"command": "ls"})));
    assert!(!ls.is_blocked());
    // The user's hooks (`preToolUse` for `Shell|…`, then its own shell guard) ran after the
    // project's two shell hooks.
    assert_eq!(
        events(&sent),
        [
            "beforeShellExecution",
            "beforeShellExecution",
            "preToolUse",
            "beforeShellExecution"
        ]
    );
    sent.lock().unwrap().clear();
    let read = turn.intercept_tool_call(ToolCall::new("Read", json!({"file_path": "README"})));
    assert!(!read.is_blocked());
    assert_eq!(
        events(&sent),
        ["beforeReadFile"],
        "the matcher keeps `Read` out"
    );

    let reset = turn.intercept_tool_call(ToolCall::new(
        "Bash",
        json!({"command": "git reset --hard HEAD~1"}),
    ));
    assert_eq!(
        reset.blocked().map(|b| b.reason).unwrap_or_default(),
        "git reset --hard discards work; stash or make a branch first."
    );
    let prompt = turn.transform_user_input("commit the fix");
    assert!(!prompt.is_blocked());
}

/// A session in the home directory reads `~/.cursor/hooks.json` once, as the user's file.
#[test]
fn the_home_directory_as_the_project_reads_the_file_once() {
    let fx = Fixtures::new();
    let home = fx.path("home");
    let config = Config::discover_cursor_from(&home, Some(&home)).unwrap();
    assert_eq!(config.external_hooks().len(), 7);
    let Some(hookchain::external::Transport::Command(spec)) =
        config.external_hooks().first().map(|hook| &hook.transport)
    else {
        panic!("a command hook")
    };
    // The user's file: `./hooks/audit.sh` is `~/.cursor/hooks/audit.sh`, run in the session's
    // project.
    assert_eq!(spec.working_dir, None);
    let audit = home.join(".cursor/hooks/audit.sh").display().to_string();
    assert_eq!(spec.argv[2], format!("'{audit}'"));
    assert!(
        !spec.env.contains_key("CURSOR_PROJECT_DIR"),
        "{:?}",
        spec.env
    );
}

/// The invalid files load with the warning Cursor's rules call for, naming file and line.
#[test]
fn invalid_files_say_what_is_wrong() {
    let fx = Fixtures::new();
    let misspelled = Config::load(fx.path("invalid/misspelled_event/.cursor/hooks.json")).unwrap();
    assert!(misspelled.external_hooks().is_empty());
    let warning = &misspelled.warnings()[0];
    assert!(
        warning.contains("hooks.json line 4")
            && warning.contains("`beforeShellExec` is not one of Cursor's events")
            && warning.contains("did you mean `beforeShellExecution`?"),
        "{warning}"
    );
    let no_version = Config::load(fx.path("invalid/no_version/.cursor/hooks.json")).unwrap();
    assert_eq!(no_version.external_hooks().len(), 1);
    assert!(
        no_version.warnings()[0].contains("no `version`"),
        "{:?}",
        no_version.warnings()
    );
    // A version Cursor does not have is refused whole; a bad entry costs that entry.
    let v2 = Config::from_cursor_str(
        r#"{"version": 2, "hooks": {}}"#,
        &fx.project()
            .join(".cursor/hooks.json")
            .display()
            .to_string(),
    )
    .unwrap_err();
    assert!(v2.to_string().contains("version 1 only"), "{v2}");
    let bad = Config::from_cursor_str(
        r#"{"version": 1, "hooks": {"stop": [{"command": "true", "loopLimit": 2}, {"command": "true"}],
            "afterAgentThought": [{"command": "true"}]}}"#,
        &fx.project().join(".cursor/hooks.json").display().to_string(),
    )
    .unwrap();
    assert_eq!(bad.external_hooks().len(), 1);
    let warnings = bad.warnings().join("\n");
    assert!(
        warnings.contains("did you mean `loop_limit`?"),
        "{warnings}"
    );
    assert!(
        warnings.contains("Cursor's event `afterAgentThought` has no hookchain point"),
        "{warnings}"
    );
}

/// Each key of a hook as Cursor reads it: a timeout that can only be milliseconds is read so,
/// a matcher on an event that takes none is ignored, a `prompt` hook is left out — each with
/// a warning naming the line.
#[test]
fn hook_keys_are_read_as_cursor_reads_them() {
    let fx = Fixtures::new();
    let text = r#"{
  "version": 1,
  "hooks": {
    "beforeSubmitPrompt": [
      { "command": "true", "timeout": 5000 },
      { "type": "prompt", "prompt": "Is this prompt safe?" }
    ],
    "afterFileEdit": [{ "command": "true", "matcher": "Write" }],
    "preToolUse": [{ "command": "true", "matcher": "Shell|Write", "timeout": 2 }]
  }
}"#;
    let file = fx
        .project()
        .join(".cursor/hooks.json")
        .display()
        .to_string();
    let config = Config::from_cursor_str(text, &file).unwrap();
    let hooks = config.external_hooks();
    assert_eq!(hooks.len(), 3);
    assert_eq!(hooks[0].timeout.as_millis(), 5000);
    assert!(hooks[1].matcher.is_all());
    assert!(hooks[2].matcher.matches("Write") && !hooks[2].matcher.matches("Read"));
    assert_eq!(hooks[2].timeout.as_secs(), 2);
    let warnings = config.warnings();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[0].contains("line 5") && warnings[0].contains("read as milliseconds"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("line 6") && warnings[1].contains("`prompt` hook"),
        "{warnings:?}"
    );
    assert!(
        warnings[2].contains("line 8") && warnings[2].contains("takes no `matcher`"),
        "{warnings:?}"
    );
}

/// A plugin's file (no `version`) is told from a Claude Code plugin's by its events, and its
/// commands get `CURSOR_PLUGIN_ROOT`.
#[test]
fn a_plugin_file_runs_with_its_root() {
    let fx = Fixtures::new();
    let config = Config::load(fx.path("plugin/hooks/hooks.json")).unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    assert_eq!(config.external_hooks().len(), 2);
    let hooks = registry(config);
    let session = hooks.session("cursor-plugin");
    assert_eq!(session.context(), ["The memory plugin is loaded."]);
    let turn = session.begin_turn();
    let call = turn.intercept_tool_call(ToolCall::new("Grep", json!({"pattern": "x"})));
    assert!(!call.is_blocked());
}

/// Each guard of the project file blocks what its README says, with the message Cursor gives
/// the model, and gets its payload in Cursor's form.
#[test]
fn the_guards_block_as_in_cursor() {
    let fx = Fixtures::new();
    let hooks = registry(Config::load(fx.project().join(".cursor/hooks.json")).unwrap());
    let (session, sent) = session(&hooks, &fx.project(), "cursor-guards");
    assert_eq!(
        session.context(),
        ["This repository builds with pnpm; run pnpm test before claiming a fix."]
    );
    let turn = session.begin_turn();
    let reason = |call: ToolCall| {
        turn.intercept_tool_call(call)
            .blocked()
            .map(|b| b.reason)
            .unwrap_or_default()
    };
    let shell = |command: &str| ToolCall::new("Bash", json!({ "command": command }));

    sent.lock().unwrap().clear();
    assert_eq!(
        reason(shell("rm -rf node_modules/.cache")),
        "rm -rf is not allowed in this repository; delete specific files instead."
    );
    let (event, payload) = sent.lock().unwrap()[0].clone();
    assert_eq!(event, "beforeShellExecution");
    assert_eq!(payload["command"], "rm -rf node_modules/.cache");
    assert_eq!(payload["conversation_id"], "cursor-guards");
    assert_eq!(
        payload["workspace_roots"],
        json!([fx.project().display().to_string()])
    );
    assert!(!payload.contains_key("tool_input"));

    // `ask`: hookchain has no one to ask, so the call is refused, the hook's message kept.
    let ask = reason(shell("git push origin main"));
    assert!(ask.contains("Pushing needs the user's approval."), "{ask}");
    // Exit 2: the second hook denies with its stderr.
    assert_eq!(
        reason(shell("git -c core.pager=cat push --force")),
        "force-pushing rewrites shared history"
    );
    assert_eq!(reason(shell("pnpm test")), "");

    sent.lock().unwrap().clear();
    let sql = ToolCall::new(
        "mcp__postgres__query",
        json!({"sql": "DELETE FROM sessions WHERE expires_at < now()"}),
    );
    assert_eq!(
        reason(sql),
        "Destructive SQL through MCP is not allowed; use a read-only query."
    );
    let (event, payload) = sent.lock().unwrap()[0].clone();
    assert_eq!(event, "beforeMCPExecution");
    assert_eq!(payload["tool_name"], "query");
    assert!(payload["tool_input"].is_string(), "{payload:?}");

    std::fs::write(fx.project().join(".env"), "KEY=fixture\n").unwrap();
    sent.lock().unwrap().clear();
    let env = fx.project().join(".env").display().to_string();
    let read = reason(ToolCall::new("Read", json!({ "file_path": env })));
    assert!(!read.is_empty(), "a deny without a message still blocks");
    let (_, payload) = sent.lock().unwrap()[0].clone();
    assert_eq!(payload["content"], "KEY=fixture\n");

    // No before-event of the file is about a write.
    sent.lock().unwrap().clear();
    let write = ToolCall::new("Write", json!({"file_path": "a.ts", "content": "x"}));
    assert_eq!(reason(write), "");
    assert!(events(&sent).is_empty(), "{:?}", events(&sent));
}

/// `beforeSubmitPrompt`'s `continue: false`, `stop`'s `followup_message` (bounded by the
/// payload's `loop_count`), and `afterFileEdit` for edits only.
#[test]
fn prompts_stops_and_edits_behave_as_in_cursor() {
    let fx = Fixtures::new();
    let hooks = registry(Config::load(fx.project().join(".cursor/hooks.json")).unwrap());
    let (session, sent) = session(&hooks, &fx.project(), "cursor-turn");
    let turn = session.begin_turn();
    let blocked = turn
        .transform_user_input("deploy with ghp_abcd1234efgh")
        .blocked()
        .unwrap();
    assert_eq!(
        blocked.reason,
        "The prompt looks like it contains a GitHub token; remove it and send again."
    );
    assert!(
        !turn
            .transform_user_input("fix the date parser")
            .is_blocked()
    );

    sent.lock().unwrap().clear();
    let edit = ToolCall::new(
        "Edit",
        json!({"file_path": "src/date.ts", "old_string": "a", "new_string": "b"}),
    );
    turn.after_tool_call(hookchain::points::ToolResult::new(&edit, Ok(json!("ok"))));
    let shell = ToolCall::new("Bash", json!({"command": "ls"}));
    turn.after_tool_call(hookchain::points::ToolResult::new(&shell, Ok(json!("a"))));
    let sent_now = sent.lock().unwrap().clone();
    assert_eq!(sent_now.len(), 1, "afterFileEdit fires for the edit only");
    assert_eq!(
        sent_now[0].1["edits"],
        json!([{"old_string": "a", "new_string": "b"}])
    );

    match turn.on_stop("done") {
        Stop::Redo { instruction, .. } => {
            assert_eq!(instruction, "Run the test suite and report its result.")
        }
        other => panic!("expected a follow-up, got {other:?}"),
    }
    assert!(matches!(turn.on_stop("tests pass"), Stop::Finish(_)));
    let loop_counts: Vec<Value> = sent
        .lock()
        .unwrap()
        .iter()
        .filter(|(event, _)| event == "stop")
        .map(|(_, payload)| payload["loop_count"].clone())
        .collect();
    assert_eq!(loop_counts, [json!(0), json!(1)]);
}

/// `failClosed: true` turns a hook's failure into a block; without it Cursor goes on.
#[test]
fn fail_closed_blocks_on_failure() {
    let dir = temp_dir();
    let project = dir.path();
    let script = project.join(".cursor/hooks/crash.sh");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, "#!/bin/sh\necho crashed >&2\nexit 1\n").unwrap();
    make_executable(&script);
    let file = project.join(".cursor/hooks.json");
    for (closed, blocks) in [(true, true), (false, false)] {
        std::fs::write(
            &file,
            format!(
                r#"{{"version": 1, "hooks": {{"beforeShellExecution": [
                    {{"command": ".cursor/hooks/crash.sh", "failClosed": {closed}}}]}}}}"#
            ),
        )
        .unwrap();
        let hooks = registry(Config::load(&file).unwrap());
        let turn = hooks.session("cursor-fail").begin_turn();
        let flow = turn.intercept_tool_call(ToolCall::new("Bash", json!({"command": "ls"})));
        assert_eq!(flow.is_blocked(), blocks, "failClosed: {closed}");
    }
}

/// A project's script named by its path is pinned by its content: edited after approval, it
/// no longer runs as approved.
#[test]
fn consent_pins_a_project_script() {
    let fx = Fixtures::new();
    let config = Config::load(fx.project().join(".cursor/hooks.json")).unwrap();
    let guard = config
        .external_hooks()
        .iter()
        .find(|h| h.event == "beforeShellExecution")
        .unwrap()
        .clone();
    let mut consent = Consent::in_memory();
    consent.approve(&guard).unwrap();
    assert_eq!(consent.status(&guard), ConsentStatus::Approved);
    let script = fx.project().join(".cursor/hooks/shell_guard.sh");
    std::fs::write(&script, "#!/bin/sh\necho '{\"permission\":\"allow\"}'\n").unwrap();
    assert!(
        matches!(consent.status(&guard), ConsentStatus::Drifted { .. }),
        "{:?}",
        consent.status(&guard)
    );
}
