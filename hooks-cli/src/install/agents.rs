//! The agents hookchain installs itself into: where each keeps its hooks, which of its events
//! hookchain takes and at which point, and the shape of one entry in its file.
//!
//! Each table was read from the agent's own documentation and from public files written for
//! it (Claude Code's hooks reference; OpenAI's Codex hooks page; Gemini CLI's hooks reference;
//! Cursor's hooks documentation and public `hooks.json` files such as
//! rohitg00/agentmemory `plugin/cursor/hooks.json`; GitHub's Copilot CLI hooks reference and
//! public `.github/hooks/*.json` files). An event is listed when it maps to a hookchain point;
//! the events left out are named with the reason next to each table.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

/// The agents `hookchain install` writes their entries for: the agents `hookchain hook
/// --agent` answers, one enum for both commands.
pub(crate) use crate::args::Agent;

/// Whose file: the user's (every project) or the current project's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Scope {
    /// The user's file under the home directory: every project gets the guards.
    User,
    /// The current directory's project file.
    Project,
}

impl Scope {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// How one entry is written in the agent's event arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Claude Code's matcher group, copied by Codex and Gemini CLI:
    /// `{"hooks": [{"type": "command", "command": …, "timeout": …}]}`; no `matcher`, which
    /// each of the three reads as every tool (and every source of a non-tool event).
    Group,
    /// Cursor: `{"command": …, "timeout": …}`.
    Flat,
    /// Copilot: `{"type": "command", "bash": …, "powershell": …, "timeoutSec": …}`.
    Copilot,
}

/// What hookchain knows about one agent's hook file.
pub(crate) struct Spec {
    pub(crate) agent: Agent,
    /// The name `--agent` takes and `hookchain hook --agent` is given.
    pub(crate) name: &'static str,
    /// `(agent's event, hookchain point)`, in the order the entries are written.
    pub(crate) events: &'static [(&'static str, &'static str)],
    pub(crate) shape: Shape,
    /// The file, relative to the project directory.
    pub(crate) project_file: &'static str,
    /// The timeout key and value of an entry, in the agent's unit.
    pub(crate) timeout: (&'static str, u64),
    /// Root members a new file starts with (`"version": 1` where the agent wants it).
    pub(crate) new_file: &'static str,
    /// What the user must also know for the entry to run.
    pub(crate) note: Option<&'static str>,
}

/// Claude Code. Left out: `PermissionRequest` (a point hookchain does not have),
/// `PostToolUseFailure` (`after_tool_call` already sees failures through `PostToolUse`'s
/// chain), `PostCompact` (observe-only, nothing a guard acts on).
const CLAUDE_CODE: Spec = Spec {
    agent: Agent::ClaudeCode,
    name: "claude-code",
    events: &[
        ("SessionStart", "session_start"),
        ("UserPromptSubmit", "transform_user_input"),
        ("PreToolUse", "intercept_tool_call"),
        ("PostToolUse", "transform_tool_result"),
        ("Stop", "on_stop"),
        ("SubagentStop", "subagent_stop"),
        ("PreCompact", "before_compaction"),
        ("Notification", "notification"),
        ("SessionEnd", "session_end"),
    ],
    shape: Shape::Group,
    project_file: ".claude/settings.json",
    timeout: ("timeout", 30),
    new_file: "{}\n",
    note: None,
};

/// Codex. The JSON file, not `[hooks]` in `config.toml`: it has the same shape as Claude
/// Code's, holds nothing but hooks, and editing it cannot disturb the rest of the user's
/// config. Left out: `PermissionRequest` (no such point), `PostCompact` (observe-only).
const CODEX: Spec = Spec {
    agent: Agent::Codex,
    name: "codex",
    events: &[
        ("SessionStart", "session_start"),
        ("UserPromptSubmit", "transform_user_input"),
        ("PreToolUse", "intercept_tool_call"),
        ("PostToolUse", "transform_tool_result"),
        ("Stop", "on_stop"),
        ("PreCompact", "before_compaction"),
    ],
    shape: Shape::Group,
    project_file: ".codex/hooks.json",
    timeout: ("timeout", 30),
    new_file: "{}\n",
    note: Some(
        "Codex runs hooks only when its config.toml has `codex_hooks = true` under `[features]`",
    ),
};

/// Gemini CLI; its timeouts are milliseconds. Left out: `BeforeToolSelection` (hookchain has
/// no point that narrows the tool list).
const GEMINI: Spec = Spec {
    agent: Agent::Gemini,
    name: "gemini",
    events: &[
        ("SessionStart", "session_start"),
        ("BeforeAgent", "transform_user_input"),
        ("BeforeModel", "before_llm_call"),
        ("AfterModel", "after_llm_call"),
        ("BeforeTool", "intercept_tool_call"),
        ("AfterTool", "transform_tool_result"),
        ("AfterAgent", "on_stop"),
        ("PreCompress", "before_compaction"),
        ("Notification", "notification"),
        ("SessionEnd", "session_end"),
    ],
    shape: Shape::Group,
    project_file: ".gemini/settings.json",
    timeout: ("timeout", 30_000),
    new_file: "{}\n",
    note: Some(
        "Gemini CLI skips every hook when `hooksConfig.enabled` is false in its settings; \
         releases that predate hooks by default also want `\"tools\": {\"enableHooks\": true}`",
    ),
};

/// Cursor. `preToolUse` sees every tool, so the per-kind events (`beforeShellExecution`,
/// `beforeMCPExecution`, `beforeReadFile`) are left out: taking them too would run the guards
/// twice on one call. Also left out: `afterFileEdit`, `afterShellExecution`,
/// `afterMCPExecution` (covered by `postToolUse`), the Tab events (not the agent's loop),
/// `afterAgentThought` and `subagentStart` (no such point).
const CURSOR: Spec = Spec {
    agent: Agent::Cursor,
    name: "cursor",
    events: &[
        ("sessionStart", "session_start"),
        ("beforeSubmitPrompt", "transform_user_input"),
        ("preToolUse", "intercept_tool_call"),
        ("postToolUse", "transform_tool_result"),
        ("afterAgentResponse", "after_llm_call"),
        ("stop", "on_stop"),
        ("subagentStop", "subagent_stop"),
        ("preCompact", "before_compaction"),
        ("sessionEnd", "session_end"),
    ],
    shape: Shape::Flat,
    project_file: ".cursor/hooks.json",
    timeout: ("timeout", 30),
    new_file: "{\n  \"version\": 1\n}\n",
    note: None,
};

/// Copilot: a file of hookchain's own among the agent's `*.json` hook files. Its six events of
/// the hooks reference all map, and so do `agentStop`, `subagentStop` and `preCompact`, which
/// Copilot CLI fires and which newer versions of the reference describe.
const COPILOT: Spec = Spec {
    agent: Agent::Copilot,
    name: "copilot",
    events: &[
        ("sessionStart", "session_start"),
        ("userPromptSubmitted", "transform_user_input"),
        ("preToolUse", "intercept_tool_call"),
        ("postToolUse", "transform_tool_result"),
        ("agentStop", "on_stop"),
        ("subagentStop", "subagent_stop"),
        ("preCompact", "before_compaction"),
        ("errorOccurred", "notification"),
        ("sessionEnd", "session_end"),
    ],
    shape: Shape::Copilot,
    project_file: ".github/hooks/hookchain.json",
    timeout: ("timeoutSec", 30),
    new_file: "{\n  \"version\": 1\n}\n",
    note: None,
};

/// Every agent, in the order `doctor` lists them.
pub(crate) const ALL: [&Spec; 5] = [&CLAUDE_CODE, &CODEX, &GEMINI, &CURSOR, &COPILOT];

impl Agent {
    pub(crate) fn spec(self) -> &'static Spec {
        match self {
            Agent::ClaudeCode => &CLAUDE_CODE,
            Agent::Codex => &CODEX,
            Agent::Gemini => &GEMINI,
            Agent::Cursor => &CURSOR,
            Agent::Copilot => &COPILOT,
        }
    }
}

impl Spec {
    /// The file of `scope`: under `project` or the user's `home` (`CODEX_HOME` for Codex's
    /// user file when it is set, as Codex reads it).
    pub(crate) fn file(&self, scope: Scope, project: &Path, home: &Path) -> PathBuf {
        match scope {
            Scope::Project => project.join(self.project_file),
            Scope::User => match self.agent {
                Agent::ClaudeCode => home.join(".claude/settings.json"),
                Agent::Codex => std::env::var_os("CODEX_HOME")
                    .filter(|h| !h.is_empty())
                    .map_or_else(|| home.join(".codex"), PathBuf::from)
                    .join("hooks.json"),
                Agent::Gemini => home.join(".gemini/settings.json"),
                Agent::Cursor => home.join(".cursor/hooks.json"),
                Agent::Copilot => home.join(".copilot/hooks/hookchain.json"),
            },
        }
    }

    /// One entry that runs `command`, rendered with `unit` at indentation zero.
    pub(crate) fn entry(&self, command: &Command, unit: &str) -> String {
        let (timeout_key, timeout) = self.timeout;
        let line = json_string(&command.shell);
        match self.shape {
            Shape::Group => format!(
                "{{\n{unit}\"hooks\": [\n{unit}{unit}{{\n{unit}{unit}{unit}\"type\": \"command\",\n\
                 {unit}{unit}{unit}\"command\": {line},\n{unit}{unit}{unit}\"{timeout_key}\": \
                 {timeout}\n{unit}{unit}}}\n{unit}]\n}}"
            ),
            Shape::Flat => {
                format!("{{\n{unit}\"command\": {line},\n{unit}\"{timeout_key}\": {timeout}\n}}")
            }
            Shape::Copilot => format!(
                "{{\n{unit}\"type\": \"command\",\n{unit}\"bash\": {line},\n{unit}\"powershell\": \
                 {},\n{unit}\"{timeout_key}\": {timeout}\n}}",
                json_string(&command.powershell)
            ),
        }
    }

    /// The command lines of an entry in an event's array, when it is one of hookchain's for
    /// this agent (recognised by its command line: see [`is_hook_line`]): `(line, powershell)`.
    pub(crate) fn recognise(&self, item: &super::json_text::Node) -> Option<Recognised> {
        match self.shape {
            Shape::Group => {
                let handlers = item.get("hooks")?.value.items()?;
                let [handler] = handlers else {
                    return None;
                };
                let member = handler.get("command")?;
                let line = member.value.as_str()?;
                is_hook_line(line, self.name).then(|| Recognised {
                    line: line.to_string(),
                    powershell: None,
                })
            }
            Shape::Flat => {
                let line = item.get("command")?.value.as_str()?;
                is_hook_line(line, self.name).then(|| Recognised {
                    line: line.to_string(),
                    powershell: None,
                })
            }
            Shape::Copilot => {
                let bash = item.get("bash").and_then(|m| m.value.as_str());
                let powershell = item.get("powershell").and_then(|m| m.value.as_str());
                let ours = bash.is_some_and(|l| is_hook_line(l, self.name))
                    || powershell.is_some_and(|l| is_hook_line(l, self.name));
                ours.then(|| Recognised {
                    line: bash.unwrap_or_default().to_string(),
                    powershell: Some(powershell.unwrap_or_default().to_string()),
                })
            }
        }
    }
}

/// The command lines of an installed entry.
pub(crate) struct Recognised {
    pub(crate) line: String,
    /// Copilot's `powershell` line.
    pub(crate) powershell: Option<String>,
}

impl Recognised {
    /// Whether the entry runs exactly `command`.
    pub(crate) fn is(&self, command: &Command) -> bool {
        self.line == command.shell
            && self
                .powershell
                .as_ref()
                .is_none_or(|p| *p == command.powershell)
    }
}

/// The command line an entry runs: `PROGRAM hook --agent NAME`, for a POSIX shell and for
/// PowerShell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Command {
    pub(crate) shell: String,
    pub(crate) powershell: String,
}

impl Command {
    /// The line that runs `program` as the hook of `agent`. The program is named by its
    /// absolute path: an agent runs its hooks with its own `PATH` (an editor started from a
    /// desktop has none of the user's shell setup), and the path says which hookchain runs.
    pub(crate) fn new(program: &Path, agent: &str) -> Command {
        let program = program.to_string_lossy();
        Command {
            shell: format!("{} hook --agent {agent}", sh_quote(&program)),
            powershell: format!("& '{}' hook --agent {agent}", program.replace('\'', "''")),
        }
    }
}

/// Whether `line` is one of hookchain's: its last three words are `hook --agent NAME`. The
/// program before them may be any path (hookchain moved, or was installed from another
/// build), so `uninstall` finds an entry whatever binary wrote it.
pub(crate) fn is_hook_line(line: &str, agent: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.len() >= 4 && words[words.len() - 3..] == ["hook", "--agent", agent]
}

/// `text` for a POSIX shell: as it is when every character is plain, else in single quotes.
fn sh_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_with_a_space_is_quoted_for_each_shell() {
        let command = Command::new(Path::new("/opt/my tools/hookchain"), "codex");
        assert_eq!(
            command.shell,
            "'/opt/my tools/hookchain' hook --agent codex"
        );
        assert_eq!(
            command.powershell,
            "& '/opt/my tools/hookchain' hook --agent codex"
        );
        assert!(is_hook_line(&command.shell, "codex"));
        assert!(!is_hook_line(&command.shell, "cursor"));
        assert!(!is_hook_line("hook --agent codex", "codex"));
    }

    #[test]
    fn every_entry_is_json_of_the_agent_shape() {
        let command = Command::new(Path::new("/bin/hookchain"), "x");
        for spec in ALL {
            let entry = spec.entry(&command, "  ");
            let value: serde_json::Value = serde_json::from_str(&entry).unwrap();
            let node = super::super::json_text::parse(&entry).unwrap();
            assert!(
                spec.recognise(&node).is_none(),
                "{} takes x's line",
                spec.name
            );
            let mine = spec.entry(&Command::new(Path::new("/bin/hookchain"), spec.name), "  ");
            let node = super::super::json_text::parse(&mine).unwrap();
            assert!(spec.recognise(&node).is_some(), "{}: {value}", spec.name);
        }
    }
}
