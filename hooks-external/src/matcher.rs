//! Matchers: which tool names — or, for Starchild, which payloads — an external hook fires for.
//!
//! A matcher is read once, when the hook is configured ([`Matcher::parse`]), and then only
//! asked [`Matcher::matches`]. On tool points a miss means the hook is not run at all: nothing
//! is spawned, connected to or sent. On other points it is not consulted, except for a hook in
//! Claude Code's dialect, whose matcher filters on the field Claude Code documents for the
//! event (SessionStart's `source`, SessionEnd's `reason`, PreCompact's `trigger`, Notification's
//! `notification_type`; see [`wire::tables`](super::wire::tables), "Matchers on other
//! events"), by the same rule as tool names.
//!
//! # The rules
//!
//! The text is trimmed first (YAML folding leaves spaces that no tool name has).
//!
//! Claude Code's rule, for hookchain's own config ([`Dialect::Hookchain`]) and Claude Code's
//! `settings.json` ([`Dialect::ClaudeCode`]):
//!
//! - empty or `*`: every tool;
//! - only letters, digits, `_`, `-`, `|` and `,`: a list of exact names, split on `|` and `,`
//!   (`Write|Edit` fires for `Write` and `Edit`, never for `WriteFile`);
//! - anything else: a regular expression searched anywhere in the name (`mcp__.*` also fires for
//!   `x_mcp__y`; write `^mcp__` to anchor it).
//!
//! docker-agent's rule, for its agent YAML ([`Dialect::DockerAgent`]): empty or `*` is every
//! tool, and anything else is a regular expression that must match the whole name (docker-agent
//! compiles `^(?:pattern)$`), so `shell` fires for `shell` only and `read_.*` for every
//! `read_…` tool. Hermes' rule ([`Dialect::Hermes`]) is the same: it calls `re.fullmatch` on the
//! tool name (`agent/shell_hooks.py`, `matches_tool`). Copilot's rule ([`Dialect::Copilot`],
//! its `.github/hooks/*.json` with camelCase events) is the same: the CLI hooks reference
//! anchors a `matcher` as `^(?:PATTERN)$` against `toolName` (and `agentName`, `trigger`,
//! `notification_type` on the events that have them).
//!
//! Gemini CLI's rule ([`Dialect::Gemini`], `packages/core/src/hooks/hookPlanner.ts`): empty or
//! `*` is every tool, and anything else a regular expression searched anywhere in the name,
//! names-only text included (`read_` fires for `read_file` and `read_many_files`); one that does
//! not compile is compared as an exact name, as Gemini CLI compares it.
//!
//! Starchild's rule, for its `shell_hooks.yaml` ([`Dialect::Starchild`]): the matcher is a regular
//! expression searched in the payload's *content*, on every event — `"rm -rf|dd if=|mkfs"` on
//! `pre_tool_call` fires for a shell call whose command holds `rm -rf`, a pattern on `on_stop`
//! fires for a reply that holds it ("optional regex; script only spawns on a match (perf gate)").
//! The content is every string of the point's payload fields ([`WirePoint::fields`]: the tool
//! name, each string inside the tool's input, the prompt, the reply, …) and those fields as one
//! compact JSON object, so a pattern over a value (`rm -rf`) and one over a key and its value
//! (`"command":\s*"rm`) both fire. [`Matcher::reads_content`] says a matcher is of this kind.
//!
//! [`WirePoint::fields`]: super::wire::WirePoint::fields
//!
//! A regular expression that does not compile is a [`MatcherError`] naming the pattern and what
//! is wrong with it; the config loader adds the file and line.

use std::fmt;

use regex::Regex;

use hookchain_core::Dialect;

/// Which tool names an external hook fires for.
///
/// ```
/// use hookchain::external::{Dialect, Matcher};
///
/// let exact = Matcher::parse(Dialect::ClaudeCode, "Write|Edit").unwrap();
/// assert!(exact.matches("Edit"));
/// assert!(!exact.matches("EditFile"));
///
/// let regex = Matcher::parse(Dialect::ClaudeCode, "mcp__.*__write").unwrap();
/// assert!(regex.matches("mcp__github__write"));
///
/// let anchored = Matcher::parse(Dialect::DockerAgent, "read_.*").unwrap();
/// assert!(anchored.matches("read_file"));
/// assert!(!anchored.matches("thread_file"));
///
/// assert!(Matcher::all().matches("anything"));
/// ```
#[derive(Clone)]
pub struct Matcher {
    /// The pattern as written (untrimmed), for messages and `Display`.
    text: String,
    rule: Rule,
}

#[derive(Clone)]
enum Rule {
    All,
    Names(Box<[String]>),
    /// The regex, and whether it is anchored (docker-agent) or searched (Claude Code).
    Regex(Regex, bool),
    /// Starchild: searched in the payload's content.
    Content(Regex),
}

/// A matcher that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MatcherError {
    /// The pattern is read as a regular expression and does not compile.
    #[error("the matcher `{pattern}` is not a valid regular expression: {reason}")]
    InvalidRegex {
        /// The pattern as written.
        pattern: String,
        /// What the regex engine says is wrong.
        reason: String,
    },
}

impl Matcher {
    /// A matcher that fires for every tool.
    pub fn all() -> Matcher {
        Matcher {
            text: "*".to_owned(),
            rule: Rule::All,
        }
    }

    /// Reads `text` by the rule of `dialect` (see the [module docs](self)).
    pub fn parse(dialect: Dialect, text: &str) -> Result<Matcher, MatcherError> {
        let pattern = text.trim();
        let rule = if pattern.is_empty() || pattern == "*" {
            Rule::All
        } else if dialect == Dialect::Starchild {
            Rule::Content(compile(text, pattern)?)
        } else if dialect == Dialect::Gemini {
            match compile(text, pattern) {
                Ok(regex) => Rule::Regex(regex, false),
                Err(_) => Rule::Names(Box::new([pattern.to_owned()])),
            }
        } else if matches!(
            dialect,
            Dialect::DockerAgent | Dialect::Hermes | Dialect::Copilot
        ) {
            Rule::Regex(compile(text, &format!("^(?:{pattern})$"))?, true)
        } else if pattern.chars().all(is_name_char) {
            Rule::Names(
                pattern
                    .split(['|', ','])
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect(),
            )
        } else {
            Rule::Regex(compile(text, pattern)?, false)
        };
        Ok(Matcher {
            text: text.to_owned(),
            rule,
        })
    }

    /// `true` when the hook fires for the tool `tool_name`. A Starchild matcher
    /// ([`reads_content`](Self::reads_content)) is searched in `tool_name` as its content.
    pub fn matches(&self, tool_name: &str) -> bool {
        match &self.rule {
            Rule::All => true,
            Rule::Names(names) => names.iter().any(|name| name == tool_name),
            Rule::Regex(regex, _) | Rule::Content(regex) => regex.is_match(tool_name),
        }
    }

    /// `true` when the matcher is searched in a payload's content (Starchild's rule, see the
    /// [module docs](self)) rather than matched against a tool name.
    pub fn reads_content(&self) -> bool {
        matches!(self.rule, Rule::Content(_))
    }

    /// `true` when the hook fires for a payload whose point fields are `fields`: every matcher
    /// fires when it [is all](Self::is_all); a Starchild matcher when its regex is found in a
    /// string of `fields` or in `fields` as compact JSON; any other matcher reads the tool name
    /// (`tool_name`) and fires when there is none.
    ///
    /// ```
    /// use hookchain::external::{Dialect, Matcher};
    /// use serde_json::json;
    ///
    /// let guard = Matcher::parse(Dialect::Starchild, "rm -rf|dd if=|mkfs").unwrap();
    /// let call = json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /tmp/x"}});
    /// assert!(guard.matches_content(call.as_object().unwrap()));
    /// let safe = json!({"tool_name": "bash", "tool_input": {"command": "ls"}});
    /// assert!(!guard.matches_content(safe.as_object().unwrap()));
    /// ```
    pub fn matches_content(&self, fields: &serde_json::Map<String, serde_json::Value>) -> bool {
        match &self.rule {
            Rule::All => true,
            Rule::Content(regex) => {
                any_string(fields.values(), &|s| regex.is_match(s))
                    || serde_json::to_string(fields).is_ok_and(|json| regex.is_match(&json))
            }
            _ => fields
                .get("tool_name")
                .and_then(serde_json::Value::as_str)
                .is_none_or(|tool| self.matches(tool)),
        }
    }

    /// `true` when the matcher fires for every tool.
    pub fn is_all(&self) -> bool {
        matches!(self.rule, Rule::All)
    }

    /// The pattern as it was written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl Default for Matcher {
    /// [`Matcher::all`].
    fn default() -> Self {
        Matcher::all()
    }
}

/// `true` when `found` holds for a string anywhere in `values` (nested arrays and objects
/// included).
fn any_string<'a>(
    values: impl IntoIterator<Item = &'a serde_json::Value>,
    found: &dyn Fn(&str) -> bool,
) -> bool {
    values.into_iter().any(|value| match value {
        serde_json::Value::String(s) => found(s),
        serde_json::Value::Array(items) => any_string(items, found),
        serde_json::Value::Object(map) => any_string(map.values(), found),
        _ => false,
    })
}

/// The characters of Claude Code's exact-name lists.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|' | ',')
}

fn compile(pattern: &str, regex: &str) -> Result<Regex, MatcherError> {
    Regex::new(regex).map_err(|e| MatcherError::InvalidRegex {
        pattern: pattern.to_owned(),
        reason: match e {
            // The engine's syntax errors span several lines (the pattern, a caret, the message);
            // keep the message, which is what the user acts on.
            regex::Error::Syntax(text) => text
                .lines()
                .rev()
                .find(|line| line.starts_with("error:"))
                .map(|line| line.trim_start_matches("error:").trim().to_owned())
                .unwrap_or(text),
            other => other.to_string(),
        },
    })
}

impl fmt::Display for Matcher {
    /// The pattern as it was written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.text)
    }
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = match &self.rule {
            Rule::All => "all",
            Rule::Names(_) => "names",
            Rule::Regex(_, true) => "anchored regex",
            Rule::Regex(_, false) => "regex",
            Rule::Content(_) => "content regex",
        };
        f.debug_struct("Matcher")
            .field("text", &self.text)
            .field("rule", &rule)
            .finish()
    }
}

impl PartialEq for Matcher {
    /// Two matchers are equal when they were written alike and read by the same rule.
    fn eq(&self, other: &Self) -> bool {
        let same_rule = match (&self.rule, &other.rule) {
            (Rule::All, Rule::All) => true,
            (Rule::Names(a), Rule::Names(b)) => a == b,
            (Rule::Regex(_, a), Rule::Regex(_, b)) => a == b,
            (Rule::Content(_), Rule::Content(_)) => true,
            _ => false,
        };
        same_rule && self.text == other.text
    }
}

impl Eq for Matcher {}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude(text: &str) -> Matcher {
        Matcher::parse(Dialect::ClaudeCode, text).unwrap()
    }

    fn docker(text: &str) -> Matcher {
        Matcher::parse(Dialect::DockerAgent, text).unwrap()
    }

    #[test]
    fn empty_and_star_match_every_tool_in_every_flavor() {
        for dialect in [
            Dialect::Hookchain,
            Dialect::ClaudeCode,
            Dialect::DockerAgent,
            Dialect::Hermes,
            Dialect::Starchild,
        ] {
            for text in ["", "*", "  ", " * "] {
                let m = Matcher::parse(dialect, text).unwrap();
                assert!(m.is_all(), "{dialect:?} {text:?}");
                assert!(m.matches("Bash") && m.matches("") && m.matches("mcp__x__y"));
            }
        }
        assert!(Matcher::all().is_all());
        assert_eq!(Matcher::all().to_string(), "*");
        assert_eq!(Matcher::default(), Matcher::all());
    }

    #[test]
    fn plain_names_are_an_exact_list_split_on_bars_and_commas() {
        let m = claude("Write|Edit,multi-edit");
        for name in ["Write", "Edit", "multi-edit"] {
            assert!(m.matches(name), "{name}");
        }
        for name in ["write", "WriteFile", "Edi", "xEdit", "Write|Edit", "multi"] {
            assert!(!m.matches(name), "{name}");
        }
        let single = claude("Bash");
        assert!(single.matches("Bash"));
        assert!(!single.matches("Bash2") && !single.matches("MyBash"));
        // Native configs follow Claude Code's rule.
        assert_eq!(
            Matcher::parse(Dialect::Hookchain, "Bash").unwrap(),
            Matcher::parse(Dialect::ClaudeCode, "Bash").unwrap()
        );
        // Empty items of a list are ignored.
        let sloppy = claude("Write||Edit,");
        assert!(sloppy.matches("Write") && sloppy.matches("Edit") && !sloppy.matches(""));
    }

    #[test]
    fn anything_else_is_an_unanchored_regex() {
        let m = claude("mcp__.*");
        assert!(m.matches("mcp__github__create_issue"));
        assert!(m.matches("x_mcp__y"), "unanchored: found anywhere");
        assert!(!m.matches("Bash"));
        let anchored_by_hand = claude("^Notebook.*$");
        assert!(anchored_by_hand.matches("NotebookEdit"));
        assert!(!anchored_by_hand.matches("MyNotebookEdit"));
        // A dot is enough to make it a regex.
        let dotted = claude("Web.etch");
        assert!(dotted.matches("WebFetch") && dotted.matches("xWebFetchy"));
    }

    #[test]
    fn docker_agent_patterns_are_anchored_regexes() {
        let m = docker("read_.*|write_file");
        assert!(m.matches("read_file") && m.matches("write_file"));
        assert!(!m.matches("thread_file"), "anchored at the start");
        assert!(!m.matches("write_file2"), "anchored at the end");
        let plain = docker("shell");
        assert!(plain.matches("shell") && !plain.matches("shell_exec"));
        // The same text reads differently under Claude Code's rule.
        assert!(claude("read_.*").matches("thread_file"));
    }

    #[test]
    fn hermes_patterns_are_full_matches_like_re_fullmatch() {
        let m = Matcher::parse(Dialect::Hermes, "terminal|write_.*").unwrap();
        assert!(m.matches("terminal") && m.matches("write_file"));
        assert!(!m.matches("terminal2") && !m.matches("rewrite_file"));
        assert!(!m.reads_content());
    }

    #[test]
    fn starchild_patterns_are_searched_in_the_content() {
        let m = Matcher::parse(Dialect::Starchild, "rm -rf|dd if=|mkfs").unwrap();
        assert!(m.reads_content());
        let fields = |v: serde_json::Value| v.as_object().unwrap().clone();
        assert!(m.matches_content(&fields(
            serde_json::json!({"tool_name": "bash", "tool_input": {"command": "sudo mkfs.ext4 /dev/sda"}})
        )));
        // Nested strings are content too.
        assert!(m.matches_content(&fields(
            serde_json::json!({"tool_input": {"steps": [{"run": "rm -rf /"}]}})
        )));
        assert!(!m.matches_content(&fields(
            serde_json::json!({"tool_name": "bash", "tool_input": {"command": "ls"}})
        )));
        // A pattern over a key and its value reads the fields as JSON.
        let keyed = Matcher::parse(Dialect::Starchild, r#""command":"rm"#).unwrap();
        assert!(keyed.matches_content(&fields(
            serde_json::json!({"tool_input": {"command": "rm x"}})
        )));
        // A text with a newline is searched as it is, not escaped.
        let reply = Matcher::parse(Dialect::Starchild, "(?m)^Published!").unwrap();
        assert!(reply.matches_content(&fields(
            serde_json::json!({"response": "Done.\nPublished! at /post/1"})
        )));
        // Other rules read the tool name, and fire when there is none.
        let names = claude("Bash");
        assert!(names.matches_content(&fields(serde_json::json!({"tool_name": "Bash"}))));
        assert!(!names.matches_content(&fields(serde_json::json!({"tool_name": "Edit"}))));
        assert!(names.matches_content(&fields(serde_json::json!({"prompt": "hi"}))));
    }

    #[test]
    fn an_invalid_regex_names_the_pattern_and_the_error() {
        let err = Matcher::parse(Dialect::ClaudeCode, "Bash(").unwrap_err();
        let MatcherError::InvalidRegex { pattern, reason } = &err;
        assert_eq!(pattern, "Bash(");
        assert_eq!(reason, "unclosed group");
        assert_eq!(
            err.to_string(),
            "the matcher `Bash(` is not a valid regular expression: unclosed group"
        );
        let err = Matcher::parse(Dialect::DockerAgent, "[a-").unwrap_err();
        assert!(
            err.to_string().starts_with("the matcher `[a-` is not"),
            "{err}"
        );
    }

    #[test]
    fn display_is_the_pattern_as_written() {
        assert_eq!(claude("Write|Edit").to_string(), "Write|Edit");
        assert_eq!(docker(" read_.* ").to_string(), " read_.* ");
        assert_eq!(claude("mcp__.*").as_str(), "mcp__.*");
        assert_eq!(format!("{:>8}", claude("Bash")), "    Bash");
    }

    #[test]
    fn equality_compares_the_text_and_the_rule() {
        assert_eq!(claude("a.*"), claude("a.*"));
        assert_ne!(claude("a.*"), docker("a.*"));
        assert_ne!(claude("Bash"), claude("Edit"));
    }
}
