//! `hookchain hook --agent AGENT`: per agent, a conformance table — the same guard decision
//! (`rm -rf /`, `git push --force origin main` with `protected_branches: [main, master]`)
//! comes out as that agent's own block answer, an allowed command as its allow answer, a
//! configured hook's rewrite as its rewrite form and a configured hook's context on the prompt
//! event as its context form, field by field against the agent's documentation (cited per
//! table). Runs the `hookchain` binary with its home directory (`HOME`) and the project in
//! temporary directories; the payloads name the project as their `cwd`.
//!
//! Payload shapes are written after each agent's reference and public hook scripts for it:
//! Claude Code (`anthropics/claude-code`, `examples/hooks/bash_command_validator_example.py`),
//! Codex (`openai/codex`, `codex-rs/hooks/schema/generated/pre-tool-use.command.input.schema.json`),
//! Gemini CLI (`google-gemini/gemini-cli`, `docs/hooks/reference.md`), Cursor
//! (cursor.com/docs/agent/hooks, "beforeShellExecution"), Copilot
//! (docs.github.com/en/copilot/reference/hooks-configuration, "preToolUse").
#![cfg(unix)]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;

use support::{GUARD, Run, hookchain, temp};

/// A configured hook that rewrites a command naming `rewrite-me`, and one that adds context
/// to every prompt; both in Claude Code's answer form, which hookchain reads as a host.
const HOOKS: &str = "hooks:\n  PreToolUse:\n    - command: ./rewrite.sh\n      name: rewrite-me\n  UserPromptSubmit:\n    - command: ./context.sh\n      name: style-context\n";

/// The rewrite hook's script.
const REWRITE: &str = "#!/bin/sh\nif grep -q rewrite-me; then\n  printf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"command\":\"echo rewritten\"}}}'\nfi\n";

/// The context hook's script.
const CONTEXT: &str = "#!/bin/sh\ncat >/dev/null\nprintf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"follow the style guide\"}}'\n";

/// A turn's context hook: plain text, which hookchain's own protocol takes as context.
const TURN: &str = "#!/bin/sh\ncat >/dev/null\necho 'the turn has started'\n";

/// An audit hook: appends the tool's name to `audit.log`.
const AUDIT: &str =
    "#!/bin/sh\nsed -n 's/.*\"tool_name\": *\"\\([^\"]*\\)\".*/\\1/p' >> audit.log\n";

/// The required hook's file: a pass-through hook marked `required`.
const REQUIRED: &str = "hooks:\n  PreToolUse:\n    - command: ./pass.sh\n      name: must-judge\n      required: true\n";

/// A home directory and a project, removed when dropped.
struct Sandbox {
    home: TempDir,
    project: TempDir,
}

fn script(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

impl Sandbox {
    /// The guard, the rewrite and context hooks, approved.
    fn new() -> Sandbox {
        Sandbox::with(&format!("{GUARD}{HOOKS}"))
    }

    fn with(config: &str) -> Sandbox {
        let sandbox = Sandbox {
            home: temp(),
            project: temp(),
        };
        std::fs::create_dir_all(sandbox.home.path().join(".config/hookchain")).unwrap();
        let dir = sandbox.project.path();
        std::fs::write(dir.join("hookchain.yaml"), config).unwrap();
        script(dir, "rewrite.sh", REWRITE);
        script(dir, "context.sh", CONTEXT);
        script(dir, "pass.sh", "#!/bin/sh\ncat >/dev/null\n");
        script(
            dir,
            "branch.sh",
            "#!/bin/sh\ncat >/dev/null\necho 'branch: dev'\n",
        );
        script(dir, "turn.sh", TURN);
        script(dir, "audit.sh", AUDIT);
        if config.contains("hooks:") {
            let approve = hookchain(dir, sandbox.home.path(), &["approve", "--all"], "");
            assert_eq!(approve.code, 0, "{approve:?}");
        }
        sandbox
    }

    fn dir(&self) -> String {
        self.project.path().display().to_string()
    }

    /// `hookchain hook --agent AGENT [EVENT]` with `stdin`, run from the home directory (the
    /// agent may run its hooks from anywhere: the payload's directory is the project).
    fn hook(&self, agent: &str, event: Option<&str>, stdin: &str) -> Run {
        self.hook_in(self.home.path(), agent, event, stdin)
    }

    /// [`hook`](Self::hook), run from `dir`.
    fn hook_in(&self, dir: &Path, agent: &str, event: Option<&str>, stdin: &str) -> Run {
        let mut args = vec!["hook", "--agent", agent];
        args.extend(event);
        hookchain(dir, self.home.path(), &args, stdin)
    }
}

const RM_ROOT: &str = "rm -rf /";
const FORCE_PUSH: &str = "git push --force origin main";
const ALLOWED: &str = "echo hello > allowed.txt";
const REWRITTEN: &str = "echo rewrite-me";

/// The guard's reasons begin with its name.
fn is_guard_reason(reason: &Value) -> bool {
    reason
        .as_str()
        .is_some_and(|r| r.starts_with("destructive-commands: "))
}

/// A Claude Code / Codex PreToolUse payload for a shell command.
fn claude_pre_tool(dir: &str, command: &str) -> String {
    json!({
        "session_id": "s-1",
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": dir,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run it"},
        "tool_use_id": "toolu_1",
    })
    .to_string()
}

/// Claude Code and Codex share the PreToolUse answer forms:
/// https://code.claude.com/docs/en/hooks ("PreToolUse decision control") and
/// https://developers.openai.com/codex/hooks ("PreToolUse").
fn check_claude_like_pre_tool(agent: &str) {
    let sandbox = Sandbox::new();
    let dir = sandbox.dir();
    for command in [RM_ROOT, FORCE_PUSH] {
        let run = sandbox.hook(agent, None, &claude_pre_tool(&dir, command));
        assert_eq!(run.code, 0, "{run:?}");
        let answer = run.json();
        let specific = &answer["hookSpecificOutput"];
        assert_eq!(specific["hookEventName"], "PreToolUse", "{run:?}");
        assert_eq!(specific["permissionDecision"], "deny", "{run:?}");
        assert!(
            is_guard_reason(&specific["permissionDecisionReason"]),
            "{run:?}"
        );
        // Nothing beyond the documented fields (Codex fails a hook on an unknown one).
        let mut keys: Vec<&String> = specific.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "hookEventName",
                "permissionDecision",
                "permissionDecisionReason"
            ]
        );
        assert_eq!(answer.as_object().unwrap().len(), 1, "{run:?}");
    }
    // Allowed: exit 0 and no output, which leaves the agent's own permission rules in charge.
    let run = sandbox.hook(agent, None, &claude_pre_tool(&dir, ALLOWED));
    assert_eq!((run.code, run.out.as_str()), (0, ""), "{run:?}");
    // Rewritten: `updatedInput` with the new arguments, beside the `allow` both agents need
    // to apply it.
    let run = sandbox.hook(agent, None, &claude_pre_tool(&dir, REWRITTEN));
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.json(),
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "echo rewritten"},
        }})
    );
}

/// UserPromptSubmit's context: `hookSpecificOutput.additionalContext` (Claude Code, Codex).
fn check_claude_like_prompt(agent: &str) {
    let sandbox = Sandbox::new();
    let payload = json!({
        "session_id": "s-1",
        "cwd": sandbox.dir(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "tidy the module",
    });
    let run = sandbox.hook(agent, None, &payload.to_string());
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.json(),
        json!({"hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "follow the style guide",
        }})
    );
}

#[test]
fn claude_code_pre_tool_use() {
    check_claude_like_pre_tool("claude-code");
}

#[test]
fn claude_code_user_prompt_submit_adds_context() {
    check_claude_like_prompt("claude-code");
}

#[test]
fn codex_pre_tool_use() {
    check_claude_like_pre_tool("codex");
}

#[test]
fn codex_user_prompt_submit_adds_context() {
    check_claude_like_prompt("codex");
}

/// Codex reports its shell tool to hooks as `Bash`, but a payload naming `exec_command`
/// (the tool's own name) gets the same decision.
#[test]
fn codex_shell_tool_names_get_the_same_decision() {
    let sandbox = Sandbox::new();
    let payload = json!({
        "session_id": "s-1",
        "cwd": sandbox.dir(),
        "hook_event_name": "PreToolUse",
        "tool_name": "exec_command",
        "tool_input": {"command": FORCE_PUSH},
    });
    let run = sandbox.hook("codex", None, &payload.to_string());
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{run:?}"
    );
}

/// Gemini CLI: https://geminicli.com/docs/hooks/reference/ ("BeforeTool": `decision: "deny"`
/// and `reason`; `hookSpecificOutput.tool_input` rewrites; "BeforeAgent":
/// `hookSpecificOutput.additionalContext`).
#[test]
fn gemini_before_tool_and_before_agent() {
    let sandbox = Sandbox::new();
    let dir = sandbox.dir();
    let before_tool = |command: &str| {
        json!({
            "session_id": "g-1",
            "transcript_path": "/nonexistent/g.json",
            "cwd": dir,
            "hook_event_name": "BeforeTool",
            "timestamp": "2026-01-01T00:00:00Z",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command, "description": "run it"},
        })
        .to_string()
    };
    for command in [RM_ROOT, FORCE_PUSH] {
        let run = sandbox.hook("gemini", None, &before_tool(command));
        assert_eq!(run.code, 0, "{run:?}");
        let answer = run.json();
        assert_eq!(answer["decision"], "deny", "{run:?}");
        assert!(is_guard_reason(&answer["reason"]), "{run:?}");
        assert_eq!(answer.as_object().unwrap().len(), 2, "{run:?}");
    }
    let run = sandbox.hook("gemini", None, &before_tool(ALLOWED));
    assert_eq!((run.code, run.json()), (0, json!({})), "{run:?}");
    let run = sandbox.hook("gemini", None, &before_tool(REWRITTEN));
    assert_eq!(
        run.json(),
        json!({"hookSpecificOutput": {
            "hookEventName": "BeforeTool",
            "tool_input": {"command": "echo rewritten"},
        }})
    );
    let prompt = json!({
        "session_id": "g-1",
        "cwd": dir,
        "hook_event_name": "BeforeAgent",
        "prompt": "tidy the module",
    });
    let run = sandbox.hook("gemini", None, &prompt.to_string());
    assert_eq!(
        run.json(),
        json!({"hookSpecificOutput": {
            "hookEventName": "BeforeAgent",
            "additionalContext": "follow the style guide",
        }})
    );
}

/// Tool vocabularies are mapped to the names the guards judge: Gemini's `replace` and
/// Copilot's `create` are not in protected-paths' own list of write tools, yet are judged as
/// the writes they are (as `Edit` and `Write`).
#[test]
fn tool_names_are_mapped_for_the_guards() {
    let sandbox = Sandbox::with(
        "extensions:\n  protected-paths:\n    enabled: true\n    paths: [\".env\"]\n",
    );
    let gemini = json!({
        "session_id": "g-1",
        "cwd": sandbox.dir(),
        "hook_event_name": "BeforeTool",
        "tool_name": "replace",
        "tool_input": {"file_path": ".env", "old_string": "A=1", "new_string": "A=2"},
    });
    let run = sandbox.hook("gemini", None, &gemini.to_string());
    assert_eq!(run.json()["decision"], "deny", "{run:?}");
    assert!(
        run.json()["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("protected-paths")),
        "{run:?}"
    );
    let copilot = json!({
        "timestamp": 1,
        "cwd": sandbox.dir(),
        "toolName": "create",
        "toolArgs": json!({"path": ".env", "file_text": "A=1"}).to_string(),
    });
    let run = sandbox.hook("copilot", None, &copilot.to_string());
    assert_eq!(run.json()["permissionDecision"], "deny", "{run:?}");
    // The same file under another name is not protected: the guard really judged the path.
    let other = json!({
        "session_id": "g-1",
        "cwd": sandbox.dir(),
        "hook_event_name": "BeforeTool",
        "tool_name": "replace",
        "tool_input": {"file_path": "notes.txt", "old_string": "A=1", "new_string": "A=2"},
    });
    let run = sandbox.hook("gemini", None, &other.to_string());
    assert_eq!((run.code, run.json()), (0, json!({})), "{run:?}");
}

/// Cursor: https://cursor.com/docs/agent/hooks ("beforeShellExecution": `permission`
/// allow/deny with `user_message` and `agent_message`; "beforeSubmitPrompt": `continue`).
#[test]
fn cursor_before_shell_execution() {
    let sandbox = Sandbox::new();
    let dir = sandbox.dir();
    let shell = |command: &str| {
        json!({
            "conversation_id": "c-1",
            "generation_id": "gen-1",
            "hook_event_name": "beforeShellExecution",
            "workspace_roots": [dir],
            "command": command,
            "cwd": "",
        })
        .to_string()
    };
    for command in [RM_ROOT, FORCE_PUSH] {
        let run = sandbox.hook("cursor", None, &shell(command));
        assert_eq!(run.code, 0, "{run:?}");
        let answer = run.json();
        assert_eq!(answer["permission"], "deny", "{run:?}");
        assert!(is_guard_reason(&answer["user_message"]), "{run:?}");
        assert_eq!(answer["agent_message"], answer["user_message"]);
    }
    let run = sandbox.hook("cursor", None, &shell(ALLOWED));
    assert_eq!(run.json(), json!({"permission": "allow"}), "{run:?}");
    // No rewrite on beforeShellExecution: refused rather than run unchanged.
    let run = sandbox.hook("cursor", None, &shell(REWRITTEN));
    assert_eq!(run.json()["permission"], "deny", "{run:?}");
    let prompt = json!({
        "conversation_id": "c-1",
        "hook_event_name": "beforeSubmitPrompt",
        "workspace_roots": [dir],
        "prompt": "tidy the module",
    });
    let run = sandbox.hook("cursor", None, &prompt.to_string());
    assert_eq!(run.json(), json!({"continue": true}), "{run:?}");
}

/// Copilot: https://docs.github.com/en/copilot/reference/hooks-configuration ("preToolUse":
/// `permissionDecision: "deny"` + `permissionDecisionReason`; `modifiedArgs`). No event name in
/// the payload: it is read from `toolName` + `toolArgs`.
#[test]
fn copilot_pre_tool_use_from_its_fields() {
    let sandbox = Sandbox::new();
    let dir = sandbox.dir();
    let pre = |command: &str| {
        json!({
            "timestamp": 1_767_225_600_000_u64,
            "cwd": dir,
            "toolName": "bash",
            "toolArgs": json!({"command": command, "description": "run it"}).to_string(),
        })
        .to_string()
    };
    for command in [RM_ROOT, FORCE_PUSH] {
        let run = sandbox.hook("copilot", None, &pre(command));
        assert_eq!(run.code, 0, "{run:?}");
        let answer = run.json();
        assert_eq!(answer["permissionDecision"], "deny", "{run:?}");
        assert!(
            is_guard_reason(&answer["permissionDecisionReason"]),
            "{run:?}"
        );
        assert_eq!(answer.as_object().unwrap().len(), 2, "{run:?}");
    }
    let run = sandbox.hook("copilot", None, &pre(ALLOWED));
    assert_eq!((run.code, run.out.as_str()), (0, ""), "{run:?}");
    let run = sandbox.hook("copilot", None, &pre(REWRITTEN));
    assert_eq!(
        run.json(),
        json!({"modifiedArgs": {"command": "echo rewritten"}})
    );
}

/// The EVENT argument overrides the payload's event.
#[test]
fn the_event_argument_overrides_the_payload() {
    let sandbox = Sandbox::new();
    let payload = json!({
        "cwd": sandbox.dir(),
        "hook_event_name": "SomethingElse",
        "tool_name": "Bash",
        "tool_input": {"command": RM_ROOT},
    });
    let run = sandbox.hook("claude-code", Some("PreToolUse"), &payload.to_string());
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{run:?}"
    );
}

/// Malformed stdin and an unknown event fail open (exit 1, the message on stderr), the
/// agents' convention for a hook that failed without blocking.
#[test]
fn bad_input_fails_open_with_a_message() {
    let sandbox = Sandbox::new();
    for agent in ["claude-code", "codex", "gemini", "cursor", "copilot"] {
        let run = sandbox.hook(agent, None, "{not json");
        assert_eq!((run.code, run.out.as_str()), (1, ""), "{agent}: {run:?}");
        assert!(run.err.contains("not JSON"), "{agent}: {run:?}");
        assert!(run.err.contains("lets the agent go on"), "{agent}: {run:?}");
    }
    // hookchain's own failure: the payload's directory does not exist.
    let nowhere = claude_pre_tool("/nonexistent/project", RM_ROOT);
    let run = sandbox.hook("claude-code", None, &nowhere);
    assert_eq!((run.code, run.out.as_str()), (1, ""), "{run:?}");
    assert!(
        run.err.contains("`cwd` is `/nonexistent/project`"),
        "{run:?}"
    );
    let unknown = json!({"cwd": sandbox.dir(), "hook_event_name": "BeforeToolSelection"});
    let run = sandbox.hook("gemini", None, &unknown.to_string());
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.err
            .contains("`BeforeToolSelection` is not an event of Gemini CLI"),
        "{run:?}"
    );
}

/// With a `required` hook on the point, hookchain's failure blocks in the agent's form. The
/// payload names no directory, so the project is the one the agent runs the hook in.
#[test]
fn a_required_hook_makes_failures_block() {
    let sandbox = Sandbox::with(REQUIRED);
    let project = sandbox.project.path();
    let run = sandbox.hook_in(project, "codex", Some("PreToolUse"), "{not json");
    assert_eq!(run.code, 0, "{run:?}");
    let answer = run.json();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(reason.contains("`must-judge`"), "{reason}");
    let run = sandbox.hook_in(project, "gemini", Some("BeforeTool"), "[]");
    assert_eq!(run.json()["decision"], "deny", "{run:?}");
}

/// A session start's injected context reaches each agent that takes context there: the hooks'
/// injections are the new value of `session_start`, not a rewrite the agent has no answer for.
#[test]
fn a_session_start_injection_reaches_the_agent() {
    let config =
        "hooks:\n  SessionStart:\n    - command: ./branch.sh\n      name: branch-context\n";
    let sandbox = Sandbox::with(config);
    let cases = [
        (
            "claude-code",
            "SessionStart",
            "/hookSpecificOutput/additionalContext",
        ),
        (
            "codex",
            "SessionStart",
            "/hookSpecificOutput/additionalContext",
        ),
        (
            "gemini",
            "SessionStart",
            "/hookSpecificOutput/additionalContext",
        ),
        ("cursor", "sessionStart", "/additional_context"),
    ];
    for (agent, event, pointer) in cases {
        let payload = json!({
            "session_id": "s-1",
            "conversation_id": "s-1",
            "cwd": sandbox.dir(),
            "workspace_roots": [sandbox.dir()],
            "hook_event_name": event,
            "source": "startup",
        });
        let run = sandbox.hook(agent, None, &payload.to_string());
        assert_eq!(run.code, 0, "{agent}: {run:?}");
        assert_eq!(
            run.json().pointer(pointer),
            Some(&json!("branch: dev")),
            "{agent}: {run:?}"
        );
    }
}

/// An agent's prompt event also starts the turn, and its post-tool event also finishes the
/// call: hooks on `turn_start` (context, workflow) and on `after_tool_call` (audit logs) run
/// under every agent, as they run in a Rust agent's loop.
#[test]
fn the_turns_start_and_the_finished_call_run_under_the_agent() {
    let config = "hooks:\n  turn_start:\n    - command: ./turn.sh\n      name: turn-context\n  after_tool_call:\n    - command: ./audit.sh\n      name: audit\n";
    let sandbox = Sandbox::with(config);
    let dir = sandbox.project.path();

    let prompt = json!({
        "session_id": "s-1",
        "cwd": sandbox.dir(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "tidy the module",
    });
    let run = sandbox.hook("claude-code", None, &prompt.to_string());
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.json().pointer("/hookSpecificOutput/additionalContext"),
        Some(&json!("the turn has started")),
        "{run:?}"
    );

    let result = json!({
        "session_id": "s-1",
        "cwd": sandbox.dir(),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_response": {"stdout": "src\n"},
    });
    let run = sandbox.hook("claude-code", None, &result.to_string());
    assert_eq!(run.code, 0, "{run:?}");
    let log = std::fs::read_to_string(dir.join("audit.log")).unwrap_or_default();
    assert_eq!(log.trim(), "Bash", "{run:?}");
}

/// An agent sends its stop hook back to work once per stop: a hook process cannot count a
/// turn's redos, so when the agent says it is already going on because of a stop hook
/// (`stop_hook_active`), a second block is a warning and the agent stops.
#[test]
fn a_stop_sends_the_agent_back_once() {
    let sandbox = Sandbox::with("extensions:\n  stop-verifier:\n    enabled: true\n");
    let stop = |again: bool| {
        json!({
            "session_id": "s-1",
            "cwd": sandbox.dir(),
            "hook_event_name": "Stop",
            "stop_hook_active": again,
            "last_assistant_message": "I updated README.md and ran the tests.",
        })
    };
    let first = sandbox.hook("claude-code", None, &stop(false).to_string());
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(first.json()["decision"], "block", "{first:?}");
    let again = sandbox.hook("claude-code", None, &stop(true).to_string());
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        again.out.trim().is_empty() || again.json().get("decision").is_none(),
        "{again:?}"
    );
    assert!(again.err.contains("already went back once"), "{again:?}");
}
