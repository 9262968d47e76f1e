//! The command line's grammar: the global options and one clap definition per subcommand.
//! Parsing only; what each subcommand does is in its own module.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "hookchain",
    version,
    about = "List, test, check, approve and revoke the hooks of an agent.",
    long_about = None
)]
pub(crate) struct Cli {
    /// A config file: hookchain.yaml, a Claude Code settings .json, a Copilot
    /// .github/hooks/*.json or a docker-agent agent YAML. Repeat to put files over each other, later over earlier. Default:
    /// ./hookchain.yaml over ~/.config/hookchain/hookchain.yaml.
    #[arg(long = "config", value_name = "FILE", global = true)]
    pub(crate) config: Vec<PathBuf>,

    /// The allowlist of approved hooks. Default: ~/.config/hookchain/approved-hooks.json.
    #[arg(long, value_name = "FILE", global = true)]
    pub(crate) consent_file: Option<PathBuf>,

    /// `test`: approve (and record) every configured hook that is not approved yet, and run it.
    #[arg(long, global = true)]
    pub(crate) accept_hooks: bool,

    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// List every hook: compiled-in and configured, with its consent.
    List,
    /// Fire the hooks of one event on a synthetic or given payload and print the outcome.
    Test(TestArgs),
    /// Check every configured hook: program, consent, drift, and one timed firing of each
    /// approved hook.
    Doctor,
    /// Approve configured hooks, pinned to their scripts' current content.
    Approve(Names),
    /// Withdraw the approval of configured hooks.
    Revoke(Names),
    /// List, switch on and off, describe and check the extensions.
    #[command(subcommand)]
    Extensions(ExtensionsCommand),
    /// Every tool extensions give the model, with its JSON Schema.
    Tools(ToolsArgs),
    /// Run one tool call through the chains, as the agent's `Turn::call_tool` runs it.
    Call(CallArgs),
    /// Be another agent's hook: read its payload on stdin, run the chain, answer in its form.
    Hook(HookArgs),
    /// Write the entries that make another agent run `hookchain hook --agent NAME` on every
    /// event hookchain takes; print the change.
    Install(InstallArgs),
    /// Remove exactly the entries `install` wrote; print the change.
    Uninstall(InstallArgs),
}

/// The agents `hookchain hook --agent` answers and `hookchain install --agent` writes the
/// entries of.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Agent {
    /// Claude Code: `hooks` in `.claude/settings.json` / `~/.claude/settings.json`.
    ClaudeCode,
    /// OpenAI Codex: `.codex/hooks.json` / `~/.codex/hooks.json` (`$CODEX_HOME`).
    Codex,
    /// Gemini CLI: `hooks` in `.gemini/settings.json` / `~/.gemini/settings.json`.
    Gemini,
    /// Cursor: `.cursor/hooks.json` / `~/.cursor/hooks.json`.
    Cursor,
    /// GitHub Copilot CLI and cloud agent: `.github/hooks/*.json` / `~/.copilot/hooks/`.
    Copilot,
}

#[derive(Args, Debug)]
pub(crate) struct HookArgs {
    /// The agent whose hook this is: its payload is read and its answer written.
    #[arg(long, value_enum)]
    pub(crate) agent: Agent,
    /// The agent's event (PreToolUse, BeforeTool, preToolUse, …); default: the payload's
    /// `hook_event_name`, else what its fields say.
    pub(crate) event: Option<String>,
}

#[derive(Args, Debug)]
pub(crate) struct InstallArgs {
    /// The agent whose hook file is edited.
    #[arg(long, value_enum, value_name = "NAME")]
    pub(crate) agent: Agent,
    /// The user's file (every project) or the current directory's project file.
    #[arg(long, value_enum, default_value = "user")]
    pub(crate) scope: crate::install::agents::Scope,
    /// Print the change and write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
}

#[derive(Args, Debug)]
pub(crate) struct ToolsArgs {
    /// Print one JSON array: {"name", "description", "parameters", "extension", "state"} per
    /// tool.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args, Debug)]
pub(crate) struct CallArgs {
    /// The tool's name, as `tools` lists it.
    pub(crate) tool: String,
    /// The call's arguments, one JSON object (default: {}).
    #[arg(long, value_name = "JSON")]
    pub(crate) args: Option<String>,
    /// The session the call runs in (default: hookchain-call).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// Print one JSON object: {"tool", "ran", "is_error", "result"} and, when a hook blocked,
    /// "blocked": {"reason", "hook"}.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Subcommand, Debug)]
pub(crate) enum ExtensionsCommand {
    /// Every extension: version, on/off and who switched it, what it contributes, its source.
    List,
    /// Switch an extension on (or, with --all, the master switch), kept in
    /// ~/.config/hookchain/hookchain.yaml.
    Enable(Switch),
    /// Switch an extension off (or, with --all, every extension and configured hook but the
    /// required ones), kept in ~/.config/hookchain/hookchain.yaml.
    Disable(Switch),
    /// Everything about one extension: its hooks, tools with their schemas, config section.
    Info(ExtensionName),
    /// What cannot run: unapproved external extensions, bad files, missing scripts.
    Doctor,
}

#[derive(Args, Debug)]
pub(crate) struct Switch {
    /// The extension, as `hookchain extensions list` names it.
    #[arg(value_name = "NAME", required_unless_present = "all")]
    pub(crate) name: Option<String>,
    /// Every extension and configured hook: the master switch `hooks_enabled`.
    #[arg(long, conflicts_with = "name")]
    pub(crate) all: bool,
}

#[derive(Args, Debug)]
pub(crate) struct ExtensionName {
    /// The extension, as `hookchain extensions list` names it.
    #[arg(value_name = "NAME")]
    pub(crate) name: String,
}

#[derive(Args, Debug)]
pub(crate) struct TestArgs {
    /// The event: a point (intercept_tool_call) or another agent's name for it (PreToolUse).
    pub(crate) event: String,
    /// The tool of the synthetic call on tool points (default: Bash).
    #[arg(long, value_name = "NAME")]
    pub(crate) for_tool: Option<String>,
    /// A JSON file with the point's value; tool points also take
    /// {"tool_name": …, "tool_input": …}.
    #[arg(long, value_name = "F")]
    pub(crate) payload_file: Option<PathBuf>,
    /// Print one JSON object: {"outcome": "continue", "value", "context", "warnings"} or
    /// {"outcome": "blocked", "reason", "hook"}.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also print, per external hook in chain order, the exact JSON it was sent, its exit
    /// code, stdout and stderr (on stderr with --json).
    #[arg(long, short)]
    pub(crate) verbose: bool,
}

#[derive(Args, Debug)]
pub(crate) struct Names {
    /// Hook names, as `list` shows them.
    #[arg(value_name = "NAME", required_unless_present = "all")]
    pub(crate) names: Vec<String>,
    /// Every configured hook.
    #[arg(long, conflicts_with = "names")]
    pub(crate) all: bool,
}
