//! Other agents' config files load as their agents load them: what one entry cannot honour
//! costs that entry only, loudly; current events and keys load; variables and `~` are expanded
//! as each agent expands them. Each test keeps its files in a directory of its own under the
//! system's temp directory.

mod support;

use std::path::PathBuf;

use hookchain::config::Config;
use hookchain::consent::Consent;
use hookchain::points::{InterceptToolCall, ToolCall};
use tempfile::TempDir;

use support::{make_executable, registry, temp_dir};

/// A directory of its own for one test, removed when the test ends.
struct Scratch(TempDir);

impl Scratch {
    fn new() -> Scratch {
        Scratch(temp_dir())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    /// Writes a file, making its directory.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Writes an executable script.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.write(name, &format!("#!/bin/sh\n{body}\n"));
        make_executable(&path);
        path
    }
}

fn tool_call(tool: &str, input: serde_json::Value) -> ToolCall {
    ToolCall::new(tool, input)
}

fn blocked(hooks: &hookchain::Hooks, call: ToolCall) -> Option<String> {
    hooks
        .dispatch::<InterceptToolCall>(call)
        .flow
        .blocked()
        .map(|b| b.reason)
}

fn notices(hooks: &hookchain::Hooks) -> Vec<String> {
    hooks.notices().iter().map(|n| n.message.clone()).collect()
}

/// Current Claude Code events hookchain has no point for are warnings naming them, with no
/// "did you mean" toward a different real event (`Setup` is not `Stop`), and an entry with a
/// key hookchain does not know costs that entry only: the file's guard still loads and runs,
/// and every session hears of what was left out.
#[test]
fn claude_code_current_events_and_a_bad_entry_cost_only_themselves() {
    let dir = Scratch::new();
    let file = dir.write(
        "settings.json",
        r#"{
  "hooks": {
    "Setup": [{"hooks": [{"type": "command", "command": "echo setup"}]}],
    "TeammateIdle": [{"hooks": [{"type": "command", "command": "echo idle"}]}],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo x", "frobnicate": true},
        {"type": "command", "command": "echo no rm >&2; exit 2"}
      ]}
    ]
  }
}
"#,
    );
    let name = file.display().to_string();
    let config = Config::load_claude_settings(&file).unwrap();
    assert_eq!(
        config.external_hooks().len(),
        1,
        "{:#?}",
        config.external_hooks()
    );
    let warnings = config.warnings().to_vec();
    assert_eq!(warnings.len(), 3, "{warnings:#?}");
    assert_eq!(
        warnings[0],
        format!(
            "{name} line 3: Claude Code's event `Setup` has no hookchain point; its hooks are left out"
        )
    );
    assert!(!warnings[0].contains("did you mean"), "{}", warnings[0]);
    assert!(warnings[1].contains("`TeammateIdle`"), "{}", warnings[1]);
    assert!(
        warnings[2].starts_with(&format!(
            "key `frobnicate` of hook #1 of matcher #1 of `PreToolUse` in {name} line 7: unknown key"
        )) && warnings[2].ends_with("this hook is left out; the file's other hooks load"),
        "{}",
        warnings[2]
    );
    let hooks = registry(config);
    assert_eq!(
        blocked(
            &hooks,
            tool_call("Bash", serde_json::json!({"command": "rm -rf /"}))
        )
        .as_deref(),
        Some("no rm")
    );
    let heard = notices(&hooks);
    for warning in &warnings {
        assert!(heard.contains(warning), "{warning} not in {heard:#?}");
    }
}

/// A docker-agent `pre_tool_use` hook fails closed: when it cannot even be loaded, its point
/// blocks, naming where it is and why, and the file's other hooks load.
#[test]
fn docker_agent_pre_tool_use_that_cannot_load_blocks_its_point() {
    let dir = Scratch::new();
    let file = dir.write(
        "agent.yaml",
        "agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n      pre_tool_use:\n        \
         - matcher: \"shell\"\n          hooks:\n            - type: command\n              \
         command: \"true\"\n              timeout: forever\n      session_start:\n        \
         - type: command\n          command: \"true\"\n",
    );
    let name = file.display().to_string();
    let config = Config::load_docker_agent(&file).unwrap();
    assert_eq!(config.external_hooks().len(), 1);
    assert_eq!(config.external_hooks()[0].point, "session_start");
    assert!(
        config.warnings()[0].contains("`timeout` of hook #1 of matcher #1 of `pre_tool_use`")
            && config.warnings()[0].contains("`intercept_tool_call` blocks until it is fixed"),
        "{:#?}",
        config.warnings()
    );
    let hooks = registry(config);
    let reason = blocked(&hooks, tool_call("read_file", serde_json::json!({})))
        .expect("a fail-closed hook that cannot load blocks its point");
    assert!(
        reason.starts_with(&format!(
            "fail-closed hook {name}:8 did not run: it cannot be loaded: "
        )),
        "{reason}"
    );
}

/// A script that does not exist yet is, as in Claude Code and docker-agent, a runtime error of
/// that one hook: the file loads, a warning names the file and line, and the hook fails at each
/// firing under its policy — a docker-agent `pre_tool_use` hook blocks, a Claude Code hook
/// warns and the call goes on.
#[test]
fn a_missing_script_is_a_runtime_error_of_that_hook() {
    let dir = Scratch::new();
    let agent = dir.write(
        "agent.yaml",
        "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - matcher: shell\n          \
         hooks:\n            - type: command\n              command: ./scripts/not-yet.sh\n",
    );
    let config = Config::load_docker_agent(&agent).unwrap();
    assert_eq!(config.external_hooks().len(), 1);
    let warning = &config.warnings()[0].clone();
    assert!(
        warning.contains(&format!("{} line 8", agent.display()))
            && warning.contains("not-yet.sh` does not exist")
            && warning.ends_with(
                "fails at each firing (under its failure policy) until the program is there"
            ),
        "{warning}"
    );
    let hooks = registry(config);
    assert!(
        blocked(&hooks, tool_call("shell", serde_json::json!({"cmd": "ls"}))).is_some(),
        "a fail-closed hook whose script is missing blocks"
    );
    assert!(notices(&hooks).contains(warning));

    let settings = dir.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/gone.sh"}]}]}}"#,
    );
    let config = Config::load_claude_settings(&settings).unwrap();
    assert_eq!(config.external_hooks().len(), 1);
    let hooks = registry(config);
    assert_eq!(
        blocked(
            &hooks,
            tool_call("Bash", serde_json::json!({"command": "ls"}))
        ),
        None
    );
}

/// A Claude Code plugin's `hooks/hooks.json` loads as Claude Code runs it: every plugin writes
/// its commands as `${CLAUDE_PLUGIN_ROOT}/hooks/…`, the script gets `CLAUDE_PLUGIN_ROOT` and
/// `CLAUDE_PLUGIN_DATA`, and consent pins the expanded script, so an edit after approval is
/// noticed.
#[test]
fn a_plugin_hooks_json_runs_its_scripts_from_the_plugin_root() {
    let dir = Scratch::new();
    let guard = dir.script(
        "my-plugin/hooks/guard.sh",
        "input=$(cat)\ncase \"$input\" in *rm\\ -rf*) echo \"denied by $(basename \"$CLAUDE_PLUGIN_ROOT\")\" >&2; exit 2;; esac\nexit 0",
    );
    let file = dir.write(
        "my-plugin/hooks/hooks.json",
        r#"{
  "description": "Blocks rm -rf",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", "timeout": 10}
      ]}
    ]
  }
}
"#,
    );
    let config = Config::load(&file).unwrap();
    assert!(config.warnings().is_empty(), "{:#?}", config.warnings());
    let hook = config.external_hooks()[0].clone();
    let hookchain::external::Transport::Command(spec) = &hook.transport else {
        panic!("a command hook")
    };
    assert_eq!(
        spec.env.get("CLAUDE_PLUGIN_ROOT").map(String::as_str),
        Some(dir.path("my-plugin").to_str().unwrap())
    );
    assert!(spec.env.contains_key("CLAUDE_PLUGIN_DATA"));
    assert_eq!(hookchain::consent::script_of(spec), Some(guard.clone()));

    let hooks = registry(config);
    assert_eq!(
        blocked(
            &hooks,
            tool_call("Bash", serde_json::json!({"command": "rm -rf build/"}))
        )
        .as_deref(),
        Some("denied by my-plugin")
    );

    let mut consent = Consent::in_memory();
    consent.approve(&hook).unwrap();
    assert_eq!(
        consent.status(&hook),
        hookchain::consent::ConsentStatus::Approved
    );
    std::fs::write(&guard, "#!/bin/sh\nexit 0\n").unwrap();
    assert_ne!(
        consent.status(&hook),
        hookchain::consent::ConsentStatus::Approved
    );
}

/// docker-agent's hooks in the shape of its hooks example, in full: `tool_input_transform`
/// rewrites the arguments before `tool_guard` sees them, `tool_guard` fails closed even when it
/// says `on_error: warn`, `preempt_yolo` orders its group ahead of the other `pre_tool_use`
/// hooks, `strict_output` loads with a warning, `on_error` defaults to `warn`, and lines run
/// with `$SHELL -c`.
#[test]
fn docker_agent_tool_phases_run_in_docker_agents_order() {
    let dir = Scratch::new();
    dir.script(
        "scripts/redact.sh",
        r#"printf '%s' '{"hook_specific_output": {"updated_input": {"cmd": "rm -rf build/", "note": "redacted"}}}'"#,
    );
    dir.script(
        "scripts/guard.sh",
        "input=$(cat)\ncase \"$input\" in *redacted*) echo \"guard saw the rewrite\" >&2; exit 2;; esac\nexit 0",
    );
    dir.script("scripts/broken.sh", "echo not json; exit 1");
    dir.script("scripts/log.sh", "cat > /dev/null");
    let file = dir.write(
        "agent.yaml",
        r#"agents:
  root:
    model: openai/gpt-4o
    description: An agent with hooks
    instruction: You are careful.
    toolsets:
      - type: shell
    hooks:
      tool_input_transform:
        - matcher: "shell"
          hooks:
            - type: command
              command: ./scripts/redact.sh
      tool_guard:
        - matcher: "shell"
          hooks:
            - type: command
              command: ./scripts/guard.sh
              on_error: warn
      pre_tool_use:
        - matcher: "*"
          preempt_yolo: true
          hooks:
            - type: command
              command: ./scripts/log.sh
              strict_output: true
        - matcher: "shell|edit_file"
          hooks:
            - type: command
              command: ./scripts/log.sh
              timeout: 30
      post_tool_use:
        - matcher: "shell"
          hooks:
            - type: command
              command: ./scripts/log.sh
      session_start:
        - type: command
          command: ./scripts/log.sh
      stop:
        - type: command
          command: ./scripts/log.sh
"#,
    );
    let config = Config::load_docker_agent(&file).unwrap();
    let hooks = config.external_hooks();
    let summary: Vec<(&str, &str, i32, hookchain::OnError)> = hooks
        .iter()
        .map(|h| (h.event.as_str(), h.point, h.priority, h.on_error))
        .collect();
    use hookchain::OnError::{Block, Warn};
    assert_eq!(
        summary,
        [
            ("tool_input_transform", "intercept_tool_call", 47, Warn),
            ("tool_guard", "intercept_tool_call", 48, Block),
            ("pre_tool_use", "intercept_tool_call", 49, Block),
            ("pre_tool_use", "intercept_tool_call", 50, Block),
            ("post_tool_use", "transform_tool_result", 50, Warn),
            ("session_start", "session_start", 50, Warn),
            ("stop", "on_stop", 50, Warn),
        ]
    );
    let shell = std::env::var("SHELL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "sh".to_owned());
    let hookchain::external::Transport::Command(spec) = &hooks[0].transport else {
        panic!("a command hook")
    };
    assert_eq!(spec.argv, [shell.as_str(), "-c", "./scripts/redact.sh"]);
    assert_eq!(config.warnings().len(), 1, "{:#?}", config.warnings());
    assert!(
        config.warnings()[0].contains("line 26: `strict_output: true` is not applied"),
        "{:#?}",
        config.warnings()
    );

    let registry_of = |config: Config| registry(config);
    let hooks = registry_of(config.clone());
    assert_eq!(
        blocked(&hooks, tool_call("shell", serde_json::json!({"cmd": "ls"}))).as_deref(),
        Some("guard saw the rewrite")
    );

    // A tool_guard that fails blocks, whatever its on_error says.
    let broken = std::fs::read_to_string(&file)
        .unwrap()
        .replace("./scripts/guard.sh", "./scripts/broken.sh")
        .replace("./scripts/redact.sh", "./scripts/log.sh");
    let file = dir.write("broken.yaml", &broken);
    let hooks = registry(Config::load_docker_agent(&file).unwrap());
    assert!(blocked(&hooks, tool_call("shell", serde_json::json!({"cmd": "ls"}))).is_some());
}

/// The first example of Claude Code's hooks reference, with `if`: the hook is started only for
/// the calls its permission rule matches (`Bash(rm *)`), and denies those; every other call
/// passes without it. The exec form (`args`) and `shell` load and run.
#[test]
fn claude_code_if_args_and_shell_are_honoured() {
    let dir = Scratch::new();
    let log = dir.path("started.log");
    dir.script(
        ".claude/hooks/block-rm.sh",
        &format!(
            "echo started >> '{}'\nprintf '%s' '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"Destructive command blocked by hook\"}}}}'",
            log.display()
        ),
    );
    dir.script(".claude/hooks/echo-args.sh", "echo \"$1 $2\" >&2; exit 2");
    let file = dir.write(
        ".claude/settings.json",
        r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "if": "Bash(rm *)",
            "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh"
          }
        ]
      },
      {
        "matcher": "Write",
        "hooks": [
          {"type": "command", "command": "./.claude/hooks/echo-args.sh", "args": ["exec", "form"]}
        ]
      },
      {
        "matcher": "Edit",
        "hooks": [
          {"type": "command", "shell": "bash", "command": "[[ -n x ]] && echo bash >&2; exit 2", "asyncRewake": true}
        ]
      }
    ]
  }
}
"#,
    );
    let config = Config::load_claude_settings(&file).unwrap();
    assert_eq!(config.external_hooks().len(), 3, "{:#?}", config.warnings());
    assert_eq!(config.warnings().len(), 1, "{:#?}", config.warnings());
    assert!(config.warnings()[0].contains("`asyncRewake: true`"));
    let hooks = registry(config);
    assert_eq!(
        blocked(
            &hooks,
            tool_call("Bash", serde_json::json!({"command": "ls -la"}))
        ),
        None
    );
    assert!(
        !log.exists(),
        "the hook must not start for a call its `if` does not match"
    );
    assert_eq!(
        blocked(
            &hooks,
            tool_call("Bash", serde_json::json!({"command": "rm -rf build/"}))
        )
        .as_deref(),
        Some("Destructive command blocked by hook")
    );
    assert!(log.exists());
    assert_eq!(
        blocked(
            &hooks,
            tool_call("Write", serde_json::json!({"file_path": "a"}))
        )
        .as_deref(),
        Some("exec form")
    );
    if std::path::Path::new("/bin/bash").exists() {
        assert_eq!(
            blocked(
                &hooks,
                tool_call("Edit", serde_json::json!({"file_path": "a"}))
            )
            .as_deref(),
            Some("bash")
        );
    }
}

/// A `config.yaml` in a `.hermes` directory is Hermes' whatever keys it holds: the docs' own
/// snippet, `hooks:` alone with `fail_closed: true`, loads as Hermes' (read as a
/// `hookchain.yaml`, `fail_closed` would be an unknown key and the file would fail). The same
/// file elsewhere is a `hookchain.yaml`.
#[test]
fn a_config_yaml_in_a_hermes_directory_is_hermes_whatever_its_keys() {
    let dir = Scratch::new();
    let guard = dir.script("agent-hooks/guard.sh", "cat >/dev/null");
    let text = format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n      fail_closed: true\n",
        guard.display()
    );
    let file = dir.write(".hermes/config.yaml", &text);
    let config = Config::load(&file).unwrap();
    let [hook] = config.external_hooks() else {
        panic!("{:#?}", config.warnings());
    };
    assert_eq!(
        (hook.event.as_str(), hook.on_error, hook.dialect),
        (
            "pre_tool_call",
            hookchain::OnError::Block,
            hookchain::external::Dialect::Hermes
        )
    );
    let elsewhere = dir.write("project/config.yaml", &text);
    let error = Config::load(&elsewhere).unwrap_err().to_string();
    assert!(error.contains("fail_closed"), "{error}");
}

/// A Hermes `config.yaml` in the shape its docs give loads as it is: its other keys are
/// Hermes' own, `fail_closed: true` blocks when the hook fails, a `fail_closed` entry that
/// cannot load blocks its point, the matcher is a full match, and a `hooks_auto_accept` in a
/// file that is not the user's own is left out.
#[test]
fn a_hermes_config_yaml_loads_as_it_is() {
    let dir = Scratch::new();
    let guard = dir.script(
        "agent-hooks/block-rm.sh",
        "input=$(cat)\ncase \"$input\" in *rm\\ -rf*) printf '%s' '{\"action\": \"block\", \"message\": \"rm -rf is not allowed\"}';; esac",
    );
    let broken = dir.script("agent-hooks/broken.sh", "exit 1");
    let file = dir.write(
        "hermes/config.yaml",
        &format!(
            "model:\n  default: anthropic/claude-sonnet-4\n  provider: openrouter\ntoolsets:\n  - file\n  - terminal\n\
             hooks:\n  pre_tool_call:\n    - command: {guard}\n      matcher: \"terminal\"\n      timeout: 10\n      fail_closed: true\n\
             \x20 post_tool_call:\n    - command: {broken}\n      failClosed: true\n      matcher: \"(\"\n\
             \x20 on_gateway_tick:\n    - command: {guard}\n\
             hooks_auto_accept: true\n",
            guard = guard.display(),
            broken = broken.display()
        ),
    );
    let config = Config::load(&file).unwrap();
    assert_eq!(config.external_hooks().len(), 1, "{:#?}", config.warnings());
    let hook = &config.external_hooks()[0];
    assert_eq!(
        (hook.point, hook.event.as_str(), hook.on_error, hook.dialect),
        (
            "intercept_tool_call",
            "pre_tool_call",
            hookchain::OnError::Block,
            hookchain::external::Dialect::Hermes
        )
    );
    assert!(hook.matcher.matches("terminal") && !hook.matcher.matches("terminal2"));
    assert!(!config.accepts_hooks());
    let warnings = config.warnings().join("\n");
    assert!(
        warnings.contains("Hermes' event `on_gateway_tick` has no hookchain point"),
        "{warnings}"
    );
    assert!(
        warnings.contains("`hooks_auto_accept: true` is left out"),
        "{warnings}"
    );
    assert!(
        warnings.contains("this fail-closed hook cannot be loaded, so `after_tool_call` blocks"),
        "{warnings}"
    );
    let hooks = registry(config);
    assert_eq!(
        blocked(
            &hooks,
            tool_call("terminal", serde_json::json!({"command": "rm -rf /"}))
        )
        .as_deref(),
        Some("rm -rf is not allowed")
    );
    assert_eq!(
        blocked(
            &hooks,
            tool_call("terminal", serde_json::json!({"command": "ls"}))
        ),
        None
    );
}

/// A Starchild `shell_hooks.yaml` (`hooks:` a list, `event:` per entry) loads as it is, and its
/// matcher is a regular expression searched in the payload's content, as Starchild's guards are
/// written (`rm -rf|dd if=|mkfs`).
#[test]
fn a_starchild_shell_hooks_yaml_loads_as_it_is() {
    let dir = Scratch::new();
    let guard = dir.script(
        "hooks/destructive_guard.sh",
        "cat > /dev/null\nprintf '%s' '{\"decision\": \"block\", \"reason\": \"destructive command\"}'",
    );
    let file = dir.write(
        "workspace/config/shell_hooks.yaml",
        &format!(
            "hooks:\n  - event: pre_tool_call\n    matcher: \"rm -rf|dd if=|mkfs\"\n    command: {guard}\n    timeout: 10\n\
             \x20 - event: on_response_end\n    command: {guard}\n\
             \x20 - event: on_heartbeat\n    command: {guard}\n",
            guard = guard.display()
        ),
    );
    let config = Config::load(&file).unwrap();
    let points: Vec<(&str, &str)> = config
        .external_hooks()
        .iter()
        .map(|h| (h.event.as_str(), h.point))
        .collect();
    assert_eq!(
        points,
        [
            ("pre_tool_call", "intercept_tool_call"),
            ("on_response_end", "transform_response")
        ]
    );
    assert_eq!(config.warnings().len(), 1, "{:#?}", config.warnings());
    assert!(config.warnings()[0].contains("Starchild's event `on_heartbeat`"));
    let hooks = registry(Config::load_starchild(&file).unwrap());
    assert_eq!(
        blocked(
            &hooks,
            tool_call("bash", serde_json::json!({"command": "rm -rf /tmp/x"}))
        )
        .as_deref(),
        Some("destructive command")
    );
    assert_eq!(
        blocked(
            &hooks,
            tool_call("bash", serde_json::json!({"command": "ls"}))
        ),
        None
    );
}

/// Starchild's `on_user_message` gives the script `message` and `channel` (its agent-hooks
/// skill: "stdin gives the script `message`, `channel`"; its security guard reads
/// `ev.get("message")`), so a guard that blocks a pasted key reads the message, not an empty
/// string. The guard here is written in the shape of that skill's guard, in sh: it takes the
/// value of `message` out of the payload and blocks when it holds something key-like.
#[test]
fn a_starchild_on_user_message_guard_reads_the_message_and_blocks_a_pasted_key() {
    use hookchain::points::TransformUserInput;

    let dir = Scratch::new();
    let guard = dir.script(
        "hooks/paste_guard.sh",
        "payload=$(cat)\n\
         message=$(printf '%s' \"$payload\" | sed -n 's/.*[{,]\"message\":\"\\([^\"]*\\)\".*/\\1/p')\n\
         case \"$message\" in\n\
         \x20 *sk-live-*) printf '%s' '{\"decision\": \"block\", \"reason\": \"that message holds a key\"}' ;;\n\
         \x20 *) printf '{}' ;;\n\
         esac",
    );
    let file = dir.write(
        "workspace/config/shell_hooks.yaml",
        &format!(
            "hooks:\n  - event: on_user_message\n    command: {}\n",
            guard.display()
        ),
    );
    let hooks = registry(Config::load(&file).unwrap());
    let session = hooks.session("starchild-paste");
    let turn = session.begin_turn();
    let pasted = turn.transform_user_input("here it is: sk-live-0123456789abcdef".to_owned());
    assert_eq!(
        pasted.blocked().map(|b| b.reason).as_deref(),
        Some("that message holds a key")
    );
    let plain = turn.transform_user_input("write me a function".to_owned());
    assert!(!plain.is_blocked());
    turn.end(hookchain::TurnEnd::Normal);
    session.end("exit");
    let _ = TransformUserInput;
}

/// What a Starchild script answers comes back the way Starchild reads it: `{"message": ...}`
/// on `on_user_message` is the new message, `{"response": ...}` on `on_response_end` the new
/// reply (the skill's security guard masks a leaked key that way); the payload has `channel`.
#[test]
fn starchild_rewrites_of_the_message_and_the_reply_apply() {
    let dir = Scratch::new();
    let seen = dir.path("payload.json");
    let rewrite = dir.script(
        "hooks/rewrite.sh",
        &format!(
            "payload=$(cat)\n\
             case \"$payload\" in\n\
             \x20 *'\"event\":\"on_user_message\"'*) printf '%s' \"$payload\" > {seen}; \
             printf '%s' '{{\"message\": \"[masked]\"}}' ;;\n\
             \x20 *) printf '%s' '{{\"response\": \"[masked reply]\"}}' ;;\n\
             esac",
            seen = seen.display()
        ),
    );
    let file = dir.write(
        "shell_hooks.yaml",
        &format!(
            "hooks:\n  - event: on_user_message\n    command: {rewrite}\n\
             \x20 - event: on_response_end\n    command: {rewrite}\n",
            rewrite = rewrite.display()
        ),
    );
    let hooks = registry(Config::load(&file).unwrap());
    let session = hooks.session("starchild-rewrite");
    let turn = session.begin_turn();
    let message = turn.transform_user_input("sk-live-secret".to_owned());
    assert_eq!(message.continued().as_deref(), Some("[masked]"));
    let reply = turn.transform_response("the key is sk-live-secret".to_owned());
    assert_eq!(reply.continued().as_deref(), Some("[masked reply]"));
    turn.end(hookchain::TurnEnd::Normal);
    session.end("exit");
    let payload: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(payload["message"], "sk-live-secret");
    assert_eq!(payload["channel"], "");
    assert_eq!(payload["event"], "on_user_message");
}

/// Hermes' `subagent_stop` fires in the parent's session: its docs' `log-orchestration.sh`
/// logs `.session_id` as the parent; the child's fields are under `extra` with Hermes' names
/// (`parent_session_id`, `child_status`, `child_role`, `child_summary`), and the child's own
/// session is `extra.child_session_id`.
#[test]
fn hermes_subagent_stop_names_the_parent_session_and_the_childs_fields() {
    let dir = Scratch::new();
    let log = dir.path("orchestration.json");
    let logger = dir.script(
        "agent-hooks/log-orchestration.sh",
        &format!("cat > {}\nprintf '{{}}'", log.display()),
    );
    let file = dir.write(
        "config.yaml",
        &format!(
            "model: some-model\nhooks:\n  subagent_stop:\n    - command: {}\n",
            logger.display()
        ),
    );
    let hooks = registry(Config::load(&file).unwrap());
    let parent = hooks.session("parent-1");
    let child = parent.child("child-7");
    child.end("completed");
    parent.end("exit");
    let payload: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(payload["hook_event_name"], "subagent_stop");
    assert_eq!(payload["session_id"], "parent-1");
    let extra = &payload["extra"];
    assert_eq!(extra["parent_session_id"], "parent-1");
    assert_eq!(extra["child_session_id"], "child-7");
    assert_eq!(extra["child_status"], "completed");
    assert!(extra["child_role"].is_null() && extra["child_summary"].is_null());
}
