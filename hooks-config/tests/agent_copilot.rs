//! GitHub Copilot's hook files and scripts run inside hookchain as Copilot runs them: the
//! fixtures of `tests/fixtures/agents/copilot/` (see their README for what each script answers
//! to each payload), copied into a directory of their own, loaded as Copilot loads them and
//! fired through a registry: each script gets Copilot's payload, and its answer comes out as
//! Copilot reads it.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};

use hookchain::config::Config;
use hookchain::consent::{Consent, ConsentStatus};
use hookchain::points::{
    AfterToolCall, InterceptToolCall, Level, Notification, Notify, OnStop, PermissionAsk,
    PermissionRequest, SessionEnd, SessionEndEvent, SessionSource, SessionStart, SessionStartEvent,
    StopEvent, ToolCall, ToolResult, TransformToolResult, TransformUserInput,
};
use hookchain::{Dialect, Flow};
use serde_json::{Value, json};
use support::{agent_fixtures, copy_dir, make_executable, registry, temp_dir};
use tempfile::TempDir;

/// The fixtures of Copilot, in the source tree.
fn fixtures() -> PathBuf {
    agent_fixtures("copilot")
}

/// The fixtures' repository and home, copied into a fresh directory; the audit entries' log
/// directory (`${HOME}/.copilot-audit`) is made one of that directory, so nothing is written
/// outside it.
struct Copied {
    dir: TempDir,
}

impl Copied {
    fn new() -> Copied {
        let dir = temp_dir();
        copy_dir(&fixtures().join("repo"), &dir.path().join("repo"));
        copy_dir(&fixtures().join("home"), &dir.path().join("home"));
        let audit = dir.path().join("repo/.github/hooks/audit.json");
        let text = std::fs::read_to_string(&audit).unwrap();
        let log_dir = dir.path().join("audit");
        std::fs::create_dir_all(&log_dir).unwrap();
        let text = text.replace("${HOME}/.copilot-audit", &log_dir.display().to_string());
        std::fs::write(&audit, text).unwrap();
        Copied { dir }
    }

    fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn hooks_file(&self, name: &str) -> PathBuf {
        self.repo().join(".github/hooks").join(name)
    }

    /// The lines the audit script wrote, each a payload.
    fn audit_lines(&self) -> Vec<Value> {
        let log = self.dir.path().join("audit/copilot-audit.jsonl");
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// A fixture payload, read as Copilot sends it.
fn payload(name: &str) -> serde_json::Map<String, Value> {
    let text = std::fs::read_to_string(fixtures().join("payloads").join(name)).unwrap();
    match serde_json::from_str(&text).unwrap() {
        Value::Object(map) => map,
        other => panic!("{name} is not an object: {other}"),
    }
}

/// The tool call of a Copilot tool payload, in the names hookchain's guards know (the table of
/// both directions: `bash` is `Bash`, `toolArgs` as text or object is the call's arguments).
fn tool_call(name: &str, event: &str) -> ToolCall {
    let claude = hookchain::external::wire::agents::payload_from_agent(
        Dialect::Copilot,
        event,
        &payload(name),
    );
    ToolCall::new(
        claude["tool_name"].as_str().unwrap(),
        claude["tool_input"].clone(),
    )
}

fn warnings_of(config: &Config) -> String {
    config.warnings().join("\n")
}

/// Every file Copilot loads, in its order — the user's `~/.copilot/hooks/` then the
/// repository's `.github/hooks/`, each in name order — with Copilot's keys: `timeoutSec` (and
/// the VS Code form's `timeout`) in seconds, default 30; `cwd` from the repository root;
/// `bash` run with `bash -c`; PascalCase events in Claude Code's protocol. A file with
/// `disableAllHooks` and a `prompt` hook are left out, loudly.
#[test]
fn the_fixture_files_load_as_copilot_loads_them() {
    let copied = Copied::new();
    let config = Config::discover_copilot_from(&copied.repo(), Some(&copied.home())).unwrap();
    let hooks = config.external_hooks();
    let seen: Vec<(&str, &str, Dialect, u64)> = hooks
        .iter()
        .map(|h| (h.event.as_str(), h.point, h.dialect, h.timeout.as_secs()))
        .collect();
    let copilot = Dialect::Copilot;
    assert_eq!(
        seen,
        [
            ("notification", "notification", copilot, 5),
            ("agentStop", "on_stop", copilot, 30),
            ("subagentStart", "session_start", copilot, 30),
            ("postToolUseFailure", "after_tool_call", copilot, 5),
            ("sessionStart", "session_start", copilot, 5),
            ("userPromptSubmitted", "transform_user_input", copilot, 30),
            ("postToolUse", "transform_tool_result", copilot, 30),
            ("errorOccurred", "notification", copilot, 30),
            ("sessionEnd", "session_end", copilot, 5),
            ("preToolUse", "intercept_tool_call", copilot, 10),
            ("preToolUse", "intercept_tool_call", copilot, 10),
            ("permissionRequest", "permission_request", copilot, 5),
            ("preToolUse", "intercept_tool_call", copilot, 5),
            ("PreToolUse", "intercept_tool_call", Dialect::ClaudeCode, 15),
        ]
    );
    let rewrite = &hooks[10];
    let hookchain::external::Transport::Command(spec) = &rewrite.transport else {
        panic!("a command: {rewrite:?}");
    };
    assert_eq!(spec.argv, ["bash", "-c", "./scripts/pre_tool_rewrite.sh"]);
    assert_eq!(
        spec.working_dir.as_deref(),
        Some(copied.repo().join(".github/hooks").as_path())
    );
    let guard = &hooks[9];
    let hookchain::external::Transport::Command(spec) = &guard.transport else {
        panic!("a command: {guard:?}");
    };
    assert_eq!(spec.working_dir.as_deref(), Some(copied.repo().as_path()));
    let warnings = warnings_of(&config);
    assert!(
        warnings.contains("disabled.json") && warnings.contains("`disableAllHooks` is true"),
        "{warnings}"
    );
    assert!(
        warnings.contains("notify.json line")
            && warnings.contains("a `prompt` hook of `sessionStart` is left out"),
        "{warnings}"
    );
    // `cwd: "."` is the repository root, and a path with no `./` is taken from it.
    let policy = &hooks[12];
    let hookchain::external::Transport::Command(spec) = &policy.transport else {
        panic!("a command: {policy:?}");
    };
    assert_eq!(
        spec.working_dir.as_deref(),
        Some(copied.repo().join(".").as_path())
    );
    assert!(!warnings.contains("commit_guard"), "{warnings}");
    // `comment` is a key of Copilot's own examples: no warning.
    assert!(!warnings.contains("`comment`"), "{warnings}");
    // `Config::load` knows the file by its directory.
    let one = Config::load(copied.hooks_file("guard.json")).unwrap();
    assert_eq!(one.external_hooks().len(), 3);
    assert!(one.external_hooks().iter().all(|h| h.dialect == copilot));
    // …even named `hooks.json`, the name most public repositories give it, with the
    // `version: 1` and camelCase events a Cursor `hooks/hooks.json` also has.
    let named = copied.hooks_file("hooks.json");
    std::fs::copy(copied.hooks_file("guard.json"), &named).unwrap();
    let named = Config::load(&named).unwrap();
    assert_eq!(named.external_hooks().len(), 3);
    assert!(named.external_hooks().iter().all(|h| h.dialect == copilot));
}

/// One entry that cannot be honoured costs that entry only, with a warning naming the file, the
/// line and the problem; an event hookchain does not know is left out with a warning; a key
/// Copilot does not document is ignored, as Copilot ignores it, and said.
#[test]
fn a_bad_entry_costs_that_entry_only() {
    let dir = temp_dir();
    let file = dir.path().join("repo/.github/hooks/mixed.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text = r#"{
  "version": 1,
  "hooks": {
    "preToolUse": [
      { "type": "command", "matcher": "(", "bash": "true" },
      { "type": "command", "timeoutSec": 5 },
      { "type": "command", "bash": "true", "timeoutSec": "ten" },
      { "type": "command", "bash": "true", "onFailure": "deny" }
    ],
    "sessionStart": [
      { "type": "command", "matcher": "startup", "bash": "true" },
      { "type": "command", "bash": "'/opt/bin/hookchain' hook --agent copilot", "powershell": "hookchain.exe hook --agent copilot" },
      { "type": "command", "exec": "node", "args": ["hooks/start.js"] }
    ],
    "PostToolUse": [
      { "type": "command", "command": "false", "linux": "true", "osx": "true", "windows": "exit 1" }
    ],
    "preToolUsed": [
      { "type": "command", "bash": "true" }
    ]
  }
}
"#;
    std::fs::write(&file, text).unwrap();
    let config = Config::load(&file).unwrap();
    assert_eq!(config.external_hooks().len(), 3, "{:?}", config.warnings());
    // Copilot reads no matcher on `sessionStart`: the hook fires for every start.
    let start = &config.external_hooks()[1];
    assert!(start.matcher.is_all(), "{start:?}");
    // The VS Code form's override for this platform wins over `command`.
    let vscode = &config.external_hooks()[2];
    assert_eq!(vscode.dialect, Dialect::ClaudeCode);
    let hookchain::external::Transport::Command(spec) = &vscode.transport else {
        panic!("a command: {vscode:?}");
    };
    assert_eq!(spec.argv, ["bash", "-c", "true"]);
    let name = file.display().to_string();
    let warnings = config.warnings();
    let about = |needle: &str| {
        warnings
            .iter()
            .find(|w| w.contains(needle))
            .unwrap_or_else(|| panic!("no warning about {needle}: {warnings:?}"))
            .clone()
    };
    assert!(about("`matcher` of hook #1").contains(&format!("{name} line 5")));
    assert!(about("has no `bash`").contains(&format!("{name} line 6")));
    assert!(about("`timeoutSec` of hook #3").contains(&format!("{name} line 7")));
    let guest = about("runs `hookchain hook`");
    assert!(guest.contains(&format!("{name} line 12")), "{guest}");
    assert!(about("filters `sessionStart` by no matcher").contains(&format!("{name} line 11")));
    assert!(about("an `exec` hook").contains(&format!("{name} line 13")));
    let unknown_key = about("`onFailure`");
    assert!(
        unknown_key.contains(&format!("{name} line 8")) && unknown_key.contains("ignored"),
        "{unknown_key}"
    );
    let event = about("`preToolUsed`");
    assert!(
        event.contains(&format!("{name} line 18"))
            && event.contains("Copilot's event `preToolUsed` has no hookchain point"),
        "{event}"
    );
    let bad_json = Config::from_copilot_str("{\"hooks\": [", &name).unwrap_err();
    assert!(bad_json.to_string().contains(&name), "{bad_json}");
}

/// `preToolUse`: the blocker's `permissionDecision: "deny"` blocks with its reason, whether the
/// call's arguments reach it as JSON text or an object; the rewrite's `modifiedArgs` (second in
/// the file, run from its `cwd`) are the call's new arguments; the VS Code form's
/// `hookSpecificOutput` deny blocks too.
#[test]
fn pre_tool_use_scripts_block_and_rewrite_as_copilot_reads_them() {
    let copied = Copied::new();
    let hooks = registry(Config::load(copied.hooks_file("guard.json")).unwrap());
    let reason = "recursive forced delete is not allowed in this repository";
    let outcome = hooks.dispatch::<InterceptToolCall>(tool_call("preToolUse.json", "preToolUse"));
    assert_eq!(
        outcome.flow.blocked().map(|b| b.reason).as_deref(),
        Some(reason)
    );
    // The session's own name for the shell, `shell`, is `bash` to Copilot's matcher.
    let call = ToolCall::new("shell", json!({"command": "rm -rf /tmp/x"}));
    assert!(
        hooks
            .dispatch::<InterceptToolCall>(call)
            .flow
            .blocked()
            .is_some()
    );
    let outcome = hooks
        .dispatch::<InterceptToolCall>(tool_call("preToolUse.cli_object_args.json", "preToolUse"));
    let Flow::Continue(call) = outcome.flow else {
        panic!("rewritten, not blocked: {:?}", outcome.failures);
    };
    assert_eq!(call.args["command"], "npm ci");
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    // The edit tool is not the matchers' `bash`: nothing fires.
    let edit = hooks.dispatch::<InterceptToolCall>(tool_call("preToolUse.edit.json", "preToolUse"));
    assert!(edit.rewritten_by.is_empty() && edit.flow.blocked().is_none());

    // Most public scripts read `toolArgs` as JSON text (`jq '.toolArgs | fromjson'`): it is
    // sent as text.
    let policy = registry(Config::load(copied.hooks_file("policy.json")).unwrap());
    let outcome =
        policy.dispatch::<InterceptToolCall>(tool_call("preToolUse.commit.json", "preToolUse"));
    assert_eq!(
        outcome.flow.blocked().map(|b| b.reason).as_deref(),
        Some("Commit with the release script (./release.sh commit), not a bare git commit.")
    );
    let outcome = policy
        .dispatch::<InterceptToolCall>(tool_call("preToolUse.cli_object_args.json", "preToolUse"));
    assert!(outcome.flow.blocked().is_none() && outcome.failures.is_empty());

    let vscode = registry(Config::load(copied.hooks_file("vscode.json")).unwrap());
    let outcome = vscode.dispatch::<InterceptToolCall>(tool_call("preToolUse.json", "preToolUse"));
    assert_eq!(
        outcome.flow.blocked().map(|b| b.reason).as_deref(),
        Some(reason)
    );
}

/// `permissionRequest`: `behavior: "deny"` refuses with its `message`; `behavior: "allow"`
/// grants.
#[test]
fn permission_request_script_refuses_and_grants() {
    let copied = Copied::new();
    let hooks = registry(Config::load(copied.hooks_file("guard.json")).unwrap());
    let push = tool_call("permissionRequest.json", "permissionRequest");
    let outcome = hooks.dispatch::<PermissionRequest>(PermissionAsk::new(&push));
    assert_eq!(
        outcome.flow.blocked().map(|b| b.reason).as_deref(),
        Some("Pushing is done by a person, not by the agent.")
    );
    let status = ToolCall::new("Bash", json!({"command": "git status"}));
    let outcome = hooks.dispatch::<PermissionRequest>(PermissionAsk::new(&status));
    assert!(outcome.flow.blocked().is_none());
    assert!(!outcome.rewritten_by.is_empty(), "the grant is a decision");
}

/// `agentStop`: `decision: "block"` sends the agent back with the reason; once
/// `stop_hook_active` is true the turn may end. `postToolUseFailure`: exit 2 hands stderr back
/// as context, for failed calls only.
#[test]
fn agent_stop_and_tool_failure_scripts() {
    let copied = Copied::new();
    let hooks = registry(Config::load(copied.hooks_file("agent-loop.json")).unwrap());
    let stop = |active: bool| StopEvent {
        response: "Done.".to_owned(),
        stop_hook_active: active,
        redos: u32::from(active),
    };
    let outcome = hooks.dispatch::<OnStop>(stop(false));
    assert_eq!(
        outcome.flow.blocked().map(|b| b.reason).as_deref(),
        Some("Run the test suite and report its result before finishing.")
    );
    assert!(
        hooks
            .dispatch::<OnStop>(stop(true))
            .flow
            .blocked()
            .is_none()
    );

    let failed = ToolResult {
        tool_name: "Read".to_owned(),
        tool_input: json!({"path": "/work/project/src/dates.ts"}),
        tool_use_id: None,
        tool_response: json!("ENOENT: no such file or directory"),
        is_error: true,
        blocked: None,
    };
    let outcome = hooks.dispatch::<AfterToolCall>(failed.clone());
    assert_eq!(
        outcome.context,
        ["The path does not exist; list the directory with glob before retrying."]
    );
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    let succeeded = ToolResult {
        is_error: false,
        tool_response: json!("ENOENT is mentioned, but the call succeeded"),
        ..failed
    };
    assert!(
        hooks
            .dispatch::<AfterToolCall>(succeeded)
            .context
            .is_empty()
    );
}

/// `subagentStart` fires for a child agent's session only, and its `additionalContext` is the
/// child's context. Its fixture's matcher (`explore.*`, on the child's `agentName`) matches a
/// name hookchain is not given, so it does not fire: only a matcher for everything does.
#[test]
fn subagent_start_gives_a_child_its_context() {
    let copied = Copied::new();
    let script = copied
        .repo()
        .join(".github/hooks/scripts/subagent_context.sh");
    make_executable(&script);
    let text = format!(
        r#"{{"version": 1, "hooks": {{"subagentStart": [{{"type": "command", "bash": "{}"}}]}}}}"#,
        script.display()
    );
    let name = copied.hooks_file("child.json").display().to_string();
    let hooks = registry(Config::from_copilot_str(&text, &name).unwrap());
    let start = |source| SessionStartEvent {
        session_id: "child-1".to_owned(),
        parent_session_id: Some("parent-1".to_owned()),
        source,
        context: Vec::new(),
    };
    let Flow::Continue(context) = hooks
        .dispatch::<SessionStart>(start(SessionSource::Subagent))
        .flow
    else {
        panic!("not blocked");
    };
    assert_eq!(
        context.context,
        ["Work read-only: report findings, do not edit files."]
    );
    let Flow::Continue(context) = hooks
        .dispatch::<SessionStart>(start(SessionSource::Startup))
        .flow
    else {
        panic!("not blocked");
    };
    assert!(
        context.context.is_empty(),
        "a top-level session is not a child's"
    );

    let fixture = registry(Config::load(copied.hooks_file("agent-loop.json")).unwrap());
    let Flow::Continue(context) = fixture
        .dispatch::<SessionStart>(start(SessionSource::Subagent))
        .flow
    else {
        panic!("not blocked");
    };
    assert!(context.context.is_empty());
}

/// The audit entries get Copilot's payloads — camelCase, no event name, `toolArgs` as JSON
/// text, `timestamp` in milliseconds — with their `env`; `errorOccurred` fires for errors
/// only, `postToolUse` for calls that succeeded; and Copilot ignores what these events answer.
#[test]
fn audit_scripts_get_copilots_payloads() {
    let copied = Copied::new();
    let hooks = registry(Config::load(copied.hooks_file("audit.json")).unwrap());
    let _ = hooks.dispatch::<SessionStart>(SessionStartEvent {
        session_id: "s-1".to_owned(),
        parent_session_id: None,
        source: SessionSource::Startup,
        context: Vec::new(),
    });
    let _ = hooks.dispatch::<TransformUserInput>("Make parseDate accept ISO weeks".to_owned());
    let result = |is_error| ToolResult {
        tool_name: "Bash".to_owned(),
        tool_input: json!({"command": "npm test"}),
        tool_use_id: None,
        tool_response: json!("Tests: 41 passed, 41 total"),
        is_error,
        blocked: None,
    };
    let _ = hooks.dispatch::<TransformToolResult>(result(false));
    let _ = hooks.dispatch::<TransformToolResult>(result(true));
    for level in [Level::Warning, Level::Error] {
        let _ = hooks.dispatch::<Notify>(Notification {
            level,
            message: "Network timeout".to_owned(),
            source: None,
            kind: Default::default(),
        });
    }
    let _ = hooks.dispatch::<SessionEnd>(SessionEndEvent {
        session_id: "s-1".to_owned(),
        reason: "complete".to_owned(),
    });
    let lines = copied.audit_lines();
    let keys: Vec<Vec<&str>> = lines
        .iter()
        .map(|line| {
            let mut keys: Vec<&str> = line
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .filter(|k| !matches!(*k, "turn" | "turn_state"))
                .collect();
            keys.sort_unstable();
            keys
        })
        .collect();
    assert_eq!(
        keys,
        [
            vec!["cwd", "sessionId", "source", "timestamp"],
            vec!["cwd", "prompt", "sessionId", "timestamp"],
            vec![
                "cwd",
                "sessionId",
                "timestamp",
                "toolArgs",
                "toolName",
                "toolResult"
            ],
            vec![
                "cwd",
                "error",
                "errorContext",
                "recoverable",
                "sessionId",
                "timestamp"
            ],
            vec!["cwd", "reason", "sessionId", "timestamp"],
        ]
    );
    let post = &lines[2];
    assert_eq!(post["toolName"], "bash");
    let args: Value = serde_json::from_str(post["toolArgs"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"command": "npm test"}));
    assert_eq!(post["toolResult"]["resultType"], "success");
    assert_eq!(
        post["toolResult"]["textResultForLlm"],
        "Tests: 41 passed, 41 total"
    );
    assert!(post["timestamp"].as_u64().unwrap() > 1_600_000_000_000);
    assert_eq!(lines[3]["error"]["message"], "Network timeout");
    assert_eq!(lines[4]["reason"], "complete");

    // Copilot ignores what `userPromptSubmitted` answers: a block there is not applied.
    let dir = temp_dir();
    let blocker = dir.path().join("block.sh");
    std::fs::write(
        &blocker,
        "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"no\"}'\nexit 0\n",
    )
    .unwrap();
    make_executable(&blocker);
    let text = format!(
        r#"{{"version": 1, "hooks": {{"userPromptSubmitted": [{{"bash": "{}"}}], "preToolUse": [{{"bash": "{}"}}]}}}}"#,
        blocker.display(),
        blocker.display()
    );
    let name = dir
        .path()
        .join(".github/hooks/x.json")
        .display()
        .to_string();
    let hooks = registry(Config::from_copilot_str(&text, &name).unwrap());
    let prompt = hooks.dispatch::<TransformUserInput>("hello".to_owned());
    assert!(prompt.flow.blocked().is_none());
    // `decision: block` on `preToolUse` is Claude Code's older form, which Copilot's reader
    // shares: it blocks.
    let call = ToolCall::new("Bash", json!({"command": "ls"}));
    assert!(
        hooks
            .dispatch::<InterceptToolCall>(call)
            .flow
            .blocked()
            .is_some()
    );
}

/// Copilot's exit codes: 2 on `preToolUse` denies with stderr as the reason; any other
/// non-zero code (and a timeout) is a failure that never blocks — the call goes on, and the
/// failure is reported.
#[test]
fn exit_codes_are_read_as_copilot_reads_them() {
    let dir = temp_dir();
    let script = |name: &str, body: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\ncat >/dev/null\n{body}\n")).unwrap();
        make_executable(&path);
        path
    };
    let deny = script("deny.sh", "echo 'not here' >&2\nexit 2");
    let broken = script(
        "broken.sh",
        "echo '{\"permissionDecision\":\"deny\"}'\necho oops >&2\nexit 1",
    );
    let name = dir
        .path()
        .join(".github/hooks/x.json")
        .display()
        .to_string();
    let load = |script: &Path| {
        let text = format!(
            r#"{{"version": 1, "hooks": {{"preToolUse": [{{"type": "command", "bash": "{}"}}]}}}}"#,
            script.display()
        );
        registry(Config::from_copilot_str(&text, &name).unwrap())
    };
    let call = || ToolCall::new("Bash", json!({"command": "ls"}));
    let outcome = load(&deny).dispatch::<InterceptToolCall>(call());
    assert_eq!(
        outcome.flow.blocked().map(|b| b.reason).as_deref(),
        Some("not here")
    );
    let outcome = load(&broken).dispatch::<InterceptToolCall>(call());
    assert!(outcome.flow.blocked().is_none());
    assert_eq!(outcome.failures.len(), 1, "{:?}", outcome.failures);
    assert!(
        outcome.failures[0].error.contains("exited with code 1"),
        "{}",
        outcome.failures[0].error
    );
}

/// Consent pins what a Copilot entry runs: the script its `bash` line names, by content — from
/// the repository root or from the entry's `cwd` — so an edited script is drifted.
#[test]
fn consent_pins_the_scripts_copilot_entries_run() {
    let copied = Copied::new();
    let config = Config::load(copied.hooks_file("guard.json")).unwrap();
    let hooks = config.external_hooks();
    let mut consent = Consent::in_memory();
    for hook in hooks {
        consent.approve(hook).unwrap();
    }
    for hook in hooks {
        assert_eq!(consent.status(hook), ConsentStatus::Approved);
    }
    let scripts = copied.repo().join(".github/hooks/scripts");
    for (index, script) in [(0, "pre_tool_guard.sh"), (1, "pre_tool_rewrite.sh")] {
        let path = scripts.join(script);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}# edited\n")).unwrap();
        assert!(
            matches!(consent.status(&hooks[index]), ConsentStatus::Drifted { .. }),
            "{script}"
        );
    }
    assert_eq!(consent.status(&hooks[2]), ConsentStatus::Approved);
}
