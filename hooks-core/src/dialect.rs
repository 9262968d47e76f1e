//! The agents whose hook dialects hookchain speaks: one [`Dialect`] per agent, the key of every
//! per-agent table (event names, payload fields, how an answer is read, how a matcher is read).
//!
//! A dialect has three spellings, and each has one job:
//!
//! - [`Dialect::name`] (and `Display`): the agent's own name, for messages and for the
//!   [catalog](crate::points::catalog) of other agents' event names (`"Claude Code"`);
//! - [`Dialect::key`] (and serde): the kebab-case key configs and command lines write
//!   (`claude-code`);
//! - [`FromStr`] reads either, ignoring case, and suggests the closest key for a misspelt one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// An agent whose hooks hookchain runs in that agent's dialect: the payload its scripts read, the
/// answers it understands, the rule its matchers follow.
///
/// ```
/// use hookchain::Dialect;
///
/// let dialect: Dialect = "claude-code".parse().unwrap();
/// assert_eq!(dialect, Dialect::ClaudeCode);
/// assert_eq!(dialect.to_string(), "Claude Code");
/// assert_eq!("Claude Code".parse::<Dialect>().unwrap(), Dialect::ClaudeCode);
///
/// let error = "claude-cod".parse::<Dialect>().unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "unknown agent dialect `claude-cod`, did you mean `claude-code`?"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Dialect {
    /// hookchain's own protocol: a `hookchain.yaml`, its events the canonical point names.
    #[default]
    Hookchain,
    /// Claude Code: its `settings.json` and plugin `hooks.json`, `PreToolUse`, `Stop`, ….
    ClaudeCode,
    /// docker-agent: its agent YAML, `pre_tool_use`, `stop`, ….
    DockerAgent,
    /// Hermes: its `config.yaml` (`hooks:`), `pre_tool_call`, `on_session_start`, ….
    Hermes,
    /// Starchild: its `shell_hooks.yaml`, the event in `event`.
    Starchild,
    /// Pi: its extension events (`tool_call`, `before_agent_start`, …), which a `hookchain.yaml`
    /// may name; a hook under one speaks hookchain's own protocol.
    Pi,
    /// OpenAI Codex: its `hooks.json` and `config.toml` `[hooks]`, Claude Code's event names
    /// (`PreToolUse`, `Stop`, …) with answers read strictly.
    Codex,
    /// Google Gemini CLI: its `settings.json` `hooks`, `BeforeTool`, `AfterAgent`, …, its own tool
    /// names (`run_shell_command`), timeouts in milliseconds.
    Gemini,
    /// Cursor: its `hooks.json` (`version: 1`), `beforeShellExecution`, `preToolUse`, …, answers
    /// with `permission: allow|deny|ask`.
    Cursor,
    /// GitHub Copilot (the CLI and the cloud agent): its `.github/hooks/*.json`, camelCase
    /// payloads (`toolName`, `toolArgs`), `preToolUse`, ….
    Copilot,
}

impl Dialect {
    /// Every dialect, hookchain's own first.
    pub const ALL: [Dialect; 10] = [
        Dialect::Hookchain,
        Dialect::ClaudeCode,
        Dialect::DockerAgent,
        Dialect::Hermes,
        Dialect::Starchild,
        Dialect::Pi,
        Dialect::Codex,
        Dialect::Gemini,
        Dialect::Cursor,
        Dialect::Copilot,
    ];

    /// The agent's own name, as messages and the [catalog](crate::points::catalog) spell it:
    /// `"Claude Code"`, `"docker-agent"`, `"Hermes"`, `"Starchild"`, `"Pi"`, `"Codex"`,
    /// `"Gemini CLI"`, `"Cursor"`, `"Copilot"`, `"hookchain"`.
    pub const fn name(self) -> &'static str {
        match self {
            Dialect::Hookchain => "hookchain",
            Dialect::ClaudeCode => "Claude Code",
            Dialect::DockerAgent => "docker-agent",
            Dialect::Hermes => "Hermes",
            Dialect::Starchild => "Starchild",
            Dialect::Pi => "Pi",
            Dialect::Codex => "Codex",
            Dialect::Gemini => "Gemini CLI",
            Dialect::Cursor => "Cursor",
            Dialect::Copilot => "Copilot",
        }
    }

    /// The key configs and command lines write, as serde reads it: `"claude-code"`, ….
    pub const fn key(self) -> &'static str {
        match self {
            Dialect::Hookchain => "hookchain",
            Dialect::ClaudeCode => "claude-code",
            Dialect::DockerAgent => "docker-agent",
            Dialect::Hermes => "hermes",
            Dialect::Starchild => "starchild",
            Dialect::Pi => "pi",
            Dialect::Codex => "codex",
            Dialect::Gemini => "gemini",
            Dialect::Cursor => "cursor",
            Dialect::Copilot => "copilot",
        }
    }

    /// The dialect whose per-point tables this one shares before its own differences: Claude
    /// Code's for Codex, Gemini CLI, Cursor and Copilot (their hook protocols copy Claude Code's,
    /// and each agent's differences are its own table), the dialect itself for the others.
    ///
    /// ```
    /// use hookchain::Dialect;
    ///
    /// assert_eq!(Dialect::Gemini.base(), Dialect::ClaudeCode);
    /// assert_eq!(Dialect::Hermes.base(), Dialect::Hermes);
    /// ```
    pub const fn base(self) -> Dialect {
        match self {
            Dialect::Codex | Dialect::Gemini | Dialect::Cursor | Dialect::Copilot => {
                Dialect::ClaudeCode
            }
            other => other,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`Dialect`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent dialect `{name}`{}", hint(self.suggestion))]
pub struct UnknownDialect {
    /// The name as written.
    pub name: String,
    /// The closest dialect's key, when one is alike enough.
    pub suggestion: Option<&'static str>,
}

/// `, did you mean `x`?`, or the list of the keys.
fn hint(suggestion: Option<&'static str>) -> String {
    match suggestion {
        Some(key) => format!(", did you mean `{key}`?"),
        None => format!(
            " (the dialects are {})",
            Dialect::ALL
                .iter()
                .map(|d| format!("`{}`", d.key()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    /// Reads a dialect's [`key`](Dialect::key) or its agent's [`name`](Dialect::name), ignoring
    /// case.
    fn from_str(name: &str) -> Result<Dialect, UnknownDialect> {
        let found = Dialect::ALL
            .into_iter()
            .find(|d| d.key().eq_ignore_ascii_case(name) || d.name().eq_ignore_ascii_case(name));
        found.ok_or_else(|| UnknownDialect {
            name: name.to_owned(),
            suggestion: crate::suggest::closest(name, Dialect::ALL.map(Dialect::key)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_reads_back() {
        for dialect in Dialect::ALL {
            assert_eq!(dialect.key().parse::<Dialect>(), Ok(dialect));
            assert_eq!(dialect.name().parse::<Dialect>(), Ok(dialect));
            assert_eq!(dialect.to_string().parse::<Dialect>(), Ok(dialect));
            let json = serde_json::to_value(dialect).unwrap();
            assert_eq!(json, dialect.key());
            assert_eq!(serde_json::from_value::<Dialect>(json).unwrap(), dialect);
        }
        assert_eq!("HERMES".parse::<Dialect>(), Ok(Dialect::Hermes));
    }

    #[test]
    fn a_misspelt_name_gets_a_suggestion() {
        let error = "dockeragent".parse::<Dialect>().unwrap_err();
        assert_eq!(error.suggestion, Some("docker-agent"));
        let error = "codx".parse::<Dialect>().unwrap_err();
        assert_eq!(error.suggestion, Some("codex"));
        let error = "windsurf".parse::<Dialect>().unwrap_err();
        assert_eq!(error.suggestion, None);
        assert!(error.to_string().contains("`claude-code`"), "{error}");
    }

    /// Every agent the catalog names for another agent's event is a dialect.
    #[test]
    fn the_catalogs_agents_are_dialects() {
        for point in crate::points::catalog() {
            for (alias, agent) in point.aliases {
                let dialect: Dialect = agent.parse().unwrap();
                assert_eq!(dialect.name(), *agent, "{alias}");
                assert_eq!(point.dialect_of(alias), Some(dialect));
            }
            assert_eq!(point.dialect_of(point.name), None);
        }
    }
}
