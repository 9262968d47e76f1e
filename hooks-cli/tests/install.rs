//! `hookchain install|uninstall --agent NAME` and what `hookchain doctor` says about it, run as
//! the `hookchain` binary with its home directory (`HOME`) and its project (the current
//! directory) in temporary directories: the user's real files are never read or written.
//!
//! The fixtures are files as their agents' users write them, other hooks and settings
//! included, written after reading each agent's documentation and public files for it:
//! Claude Code's settings reference (`permissions`, `env`, `hooks` with matcher groups);
//! shanraisshan/codex-cli-hooks `.codex/hooks.json` (Codex); the Gemini CLI hooks reference and
//! public `.gemini/settings.json` files (`general`, `tools`, millisecond timeouts, comments);
//! rohitg00/agentmemory `plugin/cursor/hooks.json` (Cursor: `version`, flat entries with
//! `matcher`); github/docs `content/copilot/reference/hooks-configuration.md` (Copilot: `bash`,
//! `powershell`, `cwd`, `timeoutSec`).
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

const CLAUDE_SETTINGS: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm run lint)", "Bash(git diff:*)"],
    "deny": ["Read(./.env)"]
  },
  "env": {
    "NODE_ENV": "development"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/protect-files.sh"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Write",
        "hooks": [{ "type": "command", "command": "npx prettier --write", "timeout": 20 }]
      }
    ]
  },
  "model": "opus"
}
"#;

const CODEX_HOOKS: &str = r#"{
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup|resume",
                "hooks": [
                    {
                        "type": "command",
                        "command": "python3 .codex/hooks/session_context.py",
                        "statusMessage": "Loading context"
                    }
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "python3 .codex/hooks/check_tests.py",
                        "timeout": 60
                    }
                ]
            }
        ]
    }
}
"#;

const GEMINI_SETTINGS: &str = r#"{
  // Gemini CLI reads its settings with comments.
  "general": {
    "vimMode": true
  },
  "tools": {
    "sandbox": "docker"
  },
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [
          {
            "name": "secret-scan",
            "type": "command",
            "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh",
            "timeout": 5000
          }
        ]
      }
    ]
  },
  "ui": { "theme": "GitHub" } // the light one
}
"#;

const CURSOR_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [
      {
        "command": "./hooks/audit.sh"
      }
    ],
    "preToolUse": [
      {
        "command": "node ./hooks/pre-tool.mjs",
        "matcher": "Shell|Write"
      }
    ],
    "afterFileEdit": [
      {
        "command": "./hooks/format.sh"
      }
    ]
  }
}
"#;

const COPILOT_USER_HOOKS: &str = r#"{
  "version": 1,
  "hooks": {
    "sessionStart": [
      {
        "type": "command",
        "bash": "./scripts/session-start.sh",
        "powershell": "./scripts/session-start.ps1",
        "cwd": "scripts",
        "timeoutSec": 15
      }
    ],
    "preToolUse": [
      {
        "type": "command",
        "bash": "./scripts/deny-rm.sh",
        "env": { "LOG_LEVEL": "info" }
      }
    ]
  }
}
"#;

/// One agent: its `--agent` name, its project file, the events hookchain takes, a file of
/// its own with other hooks and settings, and how a line is read out of one entry.
struct Agent {
    name: &'static str,
    project_file: &'static str,
    events: &'static [&'static str],
    fixture: &'static str,
    /// Where the fixture goes: the project file, except for Copilot (hookchain writes a file of
    /// its own there, so the fixture is another file in the same directory: see
    /// `copilot_leaves_the_other_files_of_its_directory_alone`).
    fixture_file: &'static str,
}

const AGENTS: [Agent; 5] = [
    Agent {
        name: "claude-code",
        project_file: ".claude/settings.json",
        events: &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "SubagentStop",
            "PreCompact",
            "Notification",
            "SessionEnd",
        ],
        fixture: CLAUDE_SETTINGS,
        fixture_file: ".claude/settings.json",
    },
    Agent {
        name: "codex",
        project_file: ".codex/hooks.json",
        events: &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "PreCompact",
        ],
        fixture: CODEX_HOOKS,
        fixture_file: ".codex/hooks.json",
    },
    Agent {
        name: "gemini",
        project_file: ".gemini/settings.json",
        events: &[
            "SessionStart",
            "BeforeAgent",
            "BeforeModel",
            "AfterModel",
            "BeforeTool",
            "AfterTool",
            "AfterAgent",
            "PreCompress",
            "Notification",
            "SessionEnd",
        ],
        fixture: GEMINI_SETTINGS,
        fixture_file: ".gemini/settings.json",
    },
    Agent {
        name: "cursor",
        project_file: ".cursor/hooks.json",
        events: &[
            "sessionStart",
            "beforeSubmitPrompt",
            "preToolUse",
            "postToolUse",
            "afterAgentResponse",
            "stop",
            "subagentStop",
            "preCompact",
            "sessionEnd",
        ],
        fixture: CURSOR_HOOKS,
        fixture_file: ".cursor/hooks.json",
    },
    Agent {
        name: "copilot",
        project_file: ".github/hooks/hookchain.json",
        events: &[
            "sessionStart",
            "userPromptSubmitted",
            "preToolUse",
            "postToolUse",
            "agentStop",
            "subagentStop",
            "preCompact",
            "errorOccurred",
            "sessionEnd",
        ],
        fixture: COPILOT_USER_HOOKS,
        fixture_file: ".github/hooks/hookchain.json",
    },
];

/// A home directory and a project, removed when dropped.
struct Sandbox {
    home: TempDir,
    project: TempDir,
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

impl Sandbox {
    fn new() -> Sandbox {
        let temp = || {
            let base = std::env::temp_dir().canonicalize().unwrap();
            tempfile::Builder::new()
                .prefix("hookchain-")
                .tempdir_in(base)
                .unwrap()
        };
        Sandbox {
            home: temp(),
            project: temp(),
        }
    }

    fn project_file(&self, agent: &Agent) -> PathBuf {
        self.project.path().join(agent.project_file)
    }

    fn write(&self, file: &Path, text: &str) {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }

    fn run(&self, args: &[&str]) -> Run {
        let output = Command::new(env!("CARGO_BIN_EXE_hookchain"))
            .args(args)
            .current_dir(self.project.path())
            .env("HOME", self.home.path())
            .env_remove("CODEX_HOME")
            .env_remove("HOOKCHAIN_ACCEPT_HOOKS")
            .output()
            .unwrap();
        Run {
            code: output.status.code().unwrap_or(-1),
            out: String::from_utf8(output.stdout).unwrap(),
            err: String::from_utf8(output.stderr).unwrap(),
        }
    }

    fn install(&self, agent: &Agent, extra: &[&str]) -> Run {
        let mut args = vec!["install", "--agent", agent.name, "--scope", "project"];
        args.extend(extra);
        self.run(&args)
    }

    fn uninstall(&self, agent: &Agent) -> Run {
        self.run(&["uninstall", "--agent", agent.name, "--scope", "project"])
    }
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()))
}

/// The file's JSON, `//` comments taken out (only the Gemini fixture has them: on a line of
/// their own, and after the last member, where no string of the fixtures has ` // `).
fn json(text: &str) -> Value {
    let plain: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.split(" // ").next().unwrap_or(l))
        .collect();
    serde_json::from_str(&plain.join("\n")).unwrap_or_else(|e| panic!("{e}:\n{text}"))
}

/// The command line of one entry of `agent`'s event array.
fn line_of(agent: &Agent, entry: &Value) -> Option<String> {
    let line = match agent.name {
        "cursor" => entry.get("command"),
        "copilot" => entry.get("bash"),
        _ => entry.get("hooks")?.get(0)?.get("command"),
    };
    line?.as_str().map(str::to_string)
}

/// The lines hookchain installed, per event, sorted by event.
fn installed_lines(agent: &Agent, file: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    if let Some(hooks) = file.get("hooks").and_then(Value::as_object) {
        for (event, entries) in hooks {
            for entry in entries.as_array().into_iter().flatten() {
                if let Some(line) = line_of(agent, entry)
                    && line.ends_with(&format!(" hook --agent {}", agent.name))
                {
                    found.push((event.clone(), line));
                }
            }
        }
    }
    found.sort();
    found
}

/// The events `agent` takes, sorted.
fn sorted_events(agent: &Agent) -> Vec<String> {
    let mut events: Vec<String> = agent.events.iter().map(|e| e.to_string()).collect();
    events.sort();
    events
}

/// Whether the lines of `small` appear in `big` in the same order.
fn keeps_every_line(small: &str, big: &str) -> bool {
    let mut big = big.lines();
    small.lines().all(|line| big.any(|b| b == line))
}

#[test]
fn install_into_an_empty_project_writes_one_entry_per_event() {
    for agent in &AGENTS {
        let sandbox = Sandbox::new();
        let run = sandbox.install(agent, &[]);
        assert_eq!(run.code, 0, "{}: {}{}", agent.name, run.out, run.err);
        let file = json(&read(&sandbox.project_file(agent)));
        let lines = installed_lines(agent, &file);
        let events: Vec<String> = lines.iter().map(|(e, _)| e.clone()).collect();
        assert_eq!(events, sorted_events(agent), "{}: {file}", agent.name);
        let program = Path::new(env!("CARGO_BIN_EXE_hookchain"))
            .canonicalize()
            .unwrap();
        for (event, line) in &lines {
            let named = line.strip_suffix(&format!(" hook --agent {}", agent.name));
            let named = Path::new(named.unwrap()).canonicalize().unwrap();
            assert_eq!(named, program, "{} {event}: {line}", agent.name);
        }
        if matches!(agent.name, "cursor" | "copilot") {
            assert_eq!(file["version"], 1, "{}: {file}", agent.name);
        }
        assert!(
            run.out.contains(&format!(
                "--- /dev/null\n+++ {}\n",
                sandbox.project_file(agent).display()
            )),
            "{}: {}",
            agent.name,
            run.out
        );
        let added = run
            .out
            .lines()
            .filter(|l| l.starts_with("+ ") || l.starts_with("+{") || l.starts_with("+}"))
            .count();
        assert!(
            run.out
                .contains(&format!("created: {added} line(s) added, 0 removed")),
            "{}: {}",
            agent.name,
            run.out
        );
    }
}

#[test]
fn gemini_timeouts_are_milliseconds_and_copilot_has_both_shells() {
    let sandbox = Sandbox::new();
    let gemini = &AGENTS[2];
    assert_eq!(sandbox.install(gemini, &[]).code, 0);
    let file = json(&read(&sandbox.project_file(gemini)));
    assert_eq!(
        file["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"],
        30_000
    );

    let copilot = &AGENTS[4];
    assert_eq!(sandbox.install(copilot, &[]).code, 0);
    let file = json(&read(&sandbox.project_file(copilot)));
    let entry = &file["hooks"]["preToolUse"][0];
    assert_eq!(entry["type"], "command");
    assert_eq!(entry["timeoutSec"], 30);
    let powershell = entry["powershell"].as_str().unwrap();
    assert!(
        powershell.starts_with("& '") && powershell.ends_with("' hook --agent copilot"),
        "{powershell}"
    );
}

#[test]
fn install_keeps_the_other_hooks_and_settings_of_the_file() {
    for agent in AGENTS.iter().filter(|a| a.name != "copilot") {
        let sandbox = Sandbox::new();
        let path = sandbox.project.path().join(agent.fixture_file);
        sandbox.write(&path, agent.fixture);
        let run = sandbox.install(agent, &[]);
        assert_eq!(run.code, 0, "{}: {}{}", agent.name, run.out, run.err);
        let after = read(&path);
        assert!(
            keeps_every_line(agent.fixture, &after),
            "{}: a line of the file was changed or lost:\n{after}",
            agent.name
        );
        // What is left once hookchain's entries are taken out is the file as it was.
        let mut left = json(&after);
        let before = json(agent.fixture);
        let hooks = left["hooks"].as_object_mut().unwrap();
        for entries in hooks.values_mut() {
            entries
                .as_array_mut()
                .unwrap()
                .retain(|e| line_of(agent, e).is_none_or(|l| !l.contains(" hook --agent ")));
        }
        hooks.retain(|event, entries| {
            before["hooks"].get(event).is_some() || !entries.as_array().unwrap().is_empty()
        });
        assert_eq!(left, before, "{}", agent.name);
        let events: Vec<String> = installed_lines(agent, &json(&after))
            .into_iter()
            .map(|(e, _)| e)
            .collect();
        assert_eq!(events, sorted_events(agent), "{}", agent.name);
        assert!(run.out.contains("changed"), "{}: {}", agent.name, run.out);
    }
}

#[test]
fn a_new_entry_takes_the_indentation_of_the_file() {
    let sandbox = Sandbox::new();
    let codex = &AGENTS[1];
    let path = sandbox.project_file(codex);
    sandbox.write(&path, codex.fixture);
    assert_eq!(sandbox.install(codex, &[]).code, 0);
    let after = read(&path);
    assert!(
        after
            .contains("\n        \"PreToolUse\": [\n            {\n                \"hooks\": [\n"),
        "four-space file:\n{after}"
    );
}

#[test]
fn a_second_install_changes_nothing_and_says_so() {
    for agent in &AGENTS {
        let sandbox = Sandbox::new();
        let path = sandbox.project.path().join(agent.fixture_file);
        sandbox.write(&path, agent.fixture);
        assert_eq!(sandbox.install(agent, &[]).code, 0, "{}", agent.name);
        let once = read(&sandbox.project_file(agent));
        let run = sandbox.install(agent, &[]);
        assert_eq!(run.code, 0, "{}: {}{}", agent.name, run.out, run.err);
        assert_eq!(read(&sandbox.project_file(agent)), once, "{}", agent.name);
        assert!(
            run.out
                .contains("already installed, current; nothing to change"),
            "{}: {}",
            agent.name,
            run.out
        );
        assert!(!run.out.contains("+++"), "{}: {}", agent.name, run.out);
    }
}

#[test]
fn dry_run_prints_the_change_and_writes_nothing() {
    for agent in &AGENTS {
        let sandbox = Sandbox::new();
        let run = sandbox.install(agent, &["--dry-run"]);
        assert_eq!(run.code, 0, "{}: {}{}", agent.name, run.out, run.err);
        assert!(!sandbox.project_file(agent).exists(), "{}", agent.name);
        assert!(
            run.out
                .contains(&format!("+    \"{}\": [", agent.events[0])),
            "{}: {}",
            agent.name,
            run.out
        );
        assert!(
            run.out.contains("--dry-run: nothing written"),
            "{}",
            run.out
        );

        let path = sandbox.project.path().join(agent.fixture_file);
        sandbox.write(&path, agent.fixture);
        let run = sandbox.install(agent, &["--dry-run"]);
        assert_eq!(run.code, 0, "{}: {}{}", agent.name, run.out, run.err);
        assert_eq!(read(&path), agent.fixture, "{}", agent.name);
        assert!(
            run.out.contains(" hook --agent "),
            "{}: {}",
            agent.name,
            run.out
        );

        assert_eq!(sandbox.install(agent, &[]).code, 0);
        let installed = read(&path);
        let run = sandbox.run(&[
            "uninstall",
            "--agent",
            agent.name,
            "--scope",
            "project",
            "--dry-run",
        ]);
        assert_eq!(run.code, 0, "{}: {}{}", agent.name, run.out, run.err);
        assert_eq!(read(&path), installed, "{}", agent.name);
        assert!(
            run.out
                .lines()
                .any(|l| l.starts_with("-") && l.contains(" hook --agent ")),
            "{}",
            run.out
        );
    }
}

#[test]
fn uninstall_gives_back_the_file_byte_for_byte() {
    for agent in &AGENTS {
        let sandbox = Sandbox::new();
        let path = sandbox.project.path().join(agent.fixture_file);
        sandbox.write(&path, agent.fixture);
        assert_eq!(sandbox.install(agent, &[]).code, 0, "{}", agent.name);
        assert_ne!(read(&path), agent.fixture, "{}", agent.name);
        let run = sandbox.uninstall(agent);
        assert_eq!(run.code, 0, "{}: {}{}", agent.name, run.out, run.err);
        assert_eq!(read(&path), agent.fixture, "{}", agent.name);
        let run = sandbox.uninstall(agent);
        assert!(
            run.out.contains("no entry of hookchain; nothing to change"),
            "{}",
            run.out
        );
    }
}

#[test]
fn uninstall_after_install_into_nothing_leaves_nothing() {
    for agent in &AGENTS {
        let sandbox = Sandbox::new();
        assert_eq!(sandbox.install(agent, &[]).code, 0, "{}", agent.name);
        let run = sandbox.uninstall(agent);
        assert_eq!(run.code, 0, "{}: {}{}", agent.name, run.out, run.err);
        assert!(
            !sandbox.project_file(agent).exists(),
            "{}: {}",
            agent.name,
            run.out
        );
        assert!(
            run.out.contains("removed (nothing else was in it)"),
            "{}",
            run.out
        );
    }
}

#[test]
fn uninstall_removes_only_entries_with_its_command_line() {
    // A hand-written entry that runs another program with the same words before them stays.
    let sandbox = Sandbox::new();
    let cursor = &AGENTS[3];
    let path = sandbox.project_file(cursor);
    let other = "{\n  \"version\": 1,\n  \"hooks\": {\n    \"stop\": [\n      {\n        \"command\": \"./hook --agent cursor-audit\"\n      }\n    ]\n  }\n}\n";
    sandbox.write(&path, other);
    assert_eq!(sandbox.install(cursor, &[]).code, 0);
    assert_eq!(sandbox.uninstall(cursor).code, 0);
    assert_eq!(read(&path), other);
}

#[test]
fn copilot_leaves_the_other_files_of_its_directory_alone() {
    let sandbox = Sandbox::new();
    let copilot = &AGENTS[4];
    let theirs = sandbox.project.path().join(".github/hooks/team.json");
    sandbox.write(&theirs, copilot.fixture);
    assert_eq!(sandbox.install(copilot, &[]).code, 0);
    assert_eq!(read(&theirs), copilot.fixture);
    assert!(sandbox.project_file(copilot).exists());
    assert_eq!(sandbox.uninstall(copilot).code, 0);
    assert!(!sandbox.project_file(copilot).exists());
    assert_eq!(read(&theirs), copilot.fixture);
}

#[test]
fn a_file_that_does_not_parse_is_an_error_and_nothing_is_written() {
    for agent in &AGENTS {
        let sandbox = Sandbox::new();
        let path = sandbox.project_file(agent);
        let broken = "{\n  \"hooks\": {\n    \"Stop\": [\n  }\n}\n";
        sandbox.write(&path, broken);
        for run in [sandbox.install(agent, &[]), sandbox.uninstall(agent)] {
            assert_eq!(run.code, 1, "{}: {}{}", agent.name, run.out, run.err);
            assert!(
                run.err.contains(&format!("{} line 4", path.display())),
                "{}: {}",
                agent.name,
                run.err
            );
            assert!(run.err.contains("nothing was written"), "{}", run.err);
            assert_eq!(read(&path), broken, "{}", agent.name);
        }
    }
}

#[test]
fn hooks_of_the_wrong_type_is_an_error_naming_the_line() {
    let sandbox = Sandbox::new();
    let claude = &AGENTS[0];
    let path = sandbox.project_file(claude);
    let text = "{\n  \"model\": \"opus\",\n  \"hooks\": [\"x\"]\n}\n";
    sandbox.write(&path, text);
    let run = sandbox.install(claude, &[]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    assert!(
        run.err.contains("line 3: `hooks` is not an object"),
        "{}",
        run.err
    );
    assert_eq!(read(&path), text);
}

#[test]
fn the_user_scope_is_the_default_and_writes_under_home() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["install", "--agent", "codex"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(sandbox.home.path().join(".codex/hooks.json").exists());
    assert!(!sandbox.project_file(&AGENTS[1]).exists());
    assert!(run.out.contains("codex_hooks = true"), "{}", run.out);
    let run = sandbox.run(&["install", "--agent", "copilot"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        sandbox
            .home
            .path()
            .join(".copilot/hooks/hookchain.json")
            .exists()
    );
}

#[test]
fn an_unknown_agent_is_an_error_listing_the_agents() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["install", "--agent", "codx"]);
    assert_eq!(run.code, 1);
    for name in ["claude-code", "codex", "gemini", "cursor", "copilot"] {
        assert!(run.err.contains(name), "{}", run.err);
    }
}

#[test]
fn doctor_reports_each_agent_installed_current_or_not() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    for agent in &AGENTS {
        assert!(
            run.out.contains(&format!(
                "-       {}: not installed (user, project)",
                agent.name
            )),
            "{}",
            run.out
        );
    }

    let gemini = &AGENTS[2];
    assert_eq!(sandbox.install(gemini, &[]).code, 0);
    assert_eq!(sandbox.run(&["install", "--agent", "cursor"]).code, 0);
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    let project = sandbox.project_file(gemini).display().to_string();
    assert!(
        run.out.contains(&format!(
            "ok      gemini project ({project}): installed, current (10 events)"
        )),
        "{}",
        run.out
    );
    assert!(
        run.out.contains("-       gemini: not installed (user)"),
        "{}",
        run.out
    );
    let user = sandbox
        .home
        .path()
        .join(".cursor/hooks.json")
        .display()
        .to_string();
    assert!(
        run.out.contains(&format!(
            "ok      cursor user ({user}): installed, current (9 events)"
        )),
        "{}",
        run.out
    );

    // Another binary's line and a missing event: not current, a problem, and a second install
    // brings it up to date.
    let path = sandbox.project_file(gemini);
    let text = read(&path);
    let program = text
        .lines()
        .find_map(|l| l.split("\"command\": \"").nth(1))
        .and_then(|rest| rest.strip_suffix(" hook --agent gemini\","))
        .unwrap()
        .to_string();
    let mut edited = text.replace(&program, "/old/bin/hookchain");
    // Another binary alone is a note: the user's release, seen from another build.
    sandbox.write(&path, &edited);
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        run.out.contains(&format!(
            "note    gemini project ({project}): installed (10 events), runs \
             `/old/bin/hookchain hook --agent gemini`, not this binary"
        )),
        "{}",
        run.out
    );
    let mut file = json(&edited);
    file["hooks"].as_object_mut().unwrap().remove("AfterModel");
    edited = serde_json::to_string_pretty(&file).unwrap();
    sandbox.write(&path, &edited);
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    let line = run
        .out
        .lines()
        .find(|l| l.contains("problem gemini project"))
        .unwrap_or_else(|| panic!("{}", run.out));
    assert!(line.contains("not current"), "{line}");
    assert!(line.contains("no entry on AfterModel"), "{line}");
    assert!(line.contains("another command line"), "{line}");
    assert!(
        line.contains("`hookchain install --agent gemini --scope project`"),
        "{line}"
    );

    let run = sandbox.install(gemini, &[]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        run.out.contains("-") && run.out.contains("/old/bin/hookchain"),
        "{}",
        run.out
    );
    let file = json(&read(&path));
    let lines = installed_lines(gemini, &file);
    assert_eq!(lines.len(), gemini.events.len(), "{file}");
    assert!(
        lines.iter().all(|(_, l)| !l.starts_with("/old/")),
        "{lines:?}"
    );
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(run.out.contains("ok      gemini project"), "{}", run.out);
}

#[test]
fn doctor_notes_a_file_it_cannot_read_without_failing() {
    let sandbox = Sandbox::new();
    let path = sandbox.home.path().join(".claude/settings.json");
    sandbox.write(&path, "{ \"hooks\": ");
    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        run.out.contains(&format!(
            "note    claude-code user ({}): cannot tell: {} line 1",
            path.display(),
            path.display()
        )),
        "{}",
        run.out
    );
}

#[test]
fn install_drops_a_second_entry_and_one_on_an_event_it_no_longer_takes() {
    let sandbox = Sandbox::new();
    let claude = &AGENTS[0];
    assert_eq!(sandbox.install(claude, &[]).code, 0);
    let path = sandbox.project_file(claude);
    let mut file = json(&read(&path));
    let entry = file["hooks"]["PreToolUse"][0].clone();
    file["hooks"]["PreToolUse"]
        .as_array_mut()
        .unwrap()
        .push(entry.clone());
    file["hooks"]["PermissionRequest"] = Value::Array(vec![entry]);
    sandbox.write(&path, &serde_json::to_string_pretty(&file).unwrap());

    let run = sandbox.run(&["doctor"]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    let line = run
        .out
        .lines()
        .find(|l| l.contains("problem claude-code project"))
        .unwrap_or_else(|| panic!("{}", run.out));
    assert!(
        line.contains("PreToolUse") && line.contains("PermissionRequest"),
        "{line}"
    );

    let run = sandbox.install(claude, &[]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    let file = json(&read(&path));
    assert!(file["hooks"].get("PermissionRequest").is_none(), "{file}");
    assert_eq!(
        file["hooks"]["PreToolUse"].as_array().unwrap().len(),
        1,
        "{file}"
    );
    let events: Vec<String> = installed_lines(claude, &file)
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(events, sorted_events(claude));
    assert!(
        sandbox
            .run(&["doctor"])
            .out
            .contains("ok      claude-code project")
    );
}

#[test]
fn a_file_with_windows_line_ends_keeps_them_and_round_trips() {
    let sandbox = Sandbox::new();
    let claude = &AGENTS[0];
    let path = sandbox.project_file(claude);
    let crlf = CLAUDE_SETTINGS.replace('\n', "\r\n");
    sandbox.write(&path, &crlf);
    assert_eq!(sandbox.install(claude, &[]).code, 0);
    let after = read(&path);
    assert_eq!(
        after.matches('\n').count(),
        after.matches("\r\n").count(),
        "{after:?}"
    );
    assert_eq!(
        installed_lines(claude, &json(&after)).len(),
        claude.events.len()
    );
    assert_eq!(sandbox.uninstall(claude).code, 0);
    assert_eq!(read(&path), crlf);
}

#[test]
fn a_comment_after_the_last_setting_stays_on_its_line() {
    let sandbox = Sandbox::new();
    let gemini = &AGENTS[2];
    let path = sandbox.project_file(gemini);
    let text =
        "{\n  // Project settings.\n  \"ui\": { \"theme\": \"GitHub\" } // the light one\n}\n";
    sandbox.write(&path, text);
    assert_eq!(sandbox.install(gemini, &[]).code, 0);
    let after = read(&path);
    assert!(
        after.contains("\n  \"ui\": { \"theme\": \"GitHub\" }, // the light one\n  \"hooks\": {"),
        "{after}"
    );
    assert_eq!(
        installed_lines(gemini, &json(&after)).len(),
        gemini.events.len()
    );
    assert_eq!(sandbox.uninstall(gemini).code, 0);
    assert_eq!(read(&path), text);
}
