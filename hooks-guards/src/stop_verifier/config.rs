//! The guard's config: [`StopVerifier`] (the `stop-verifier` section) and its [`ClaimRule`]s.
//!
//! # The rules it keeps
//!
//! - Unknown keys are refused, and so is a regular expression that does not compile, when the
//!   config is loaded.
//! - A field left out of a rule named for a built-in rule is the built-in rule's (its defaults
//!   are in `rules.rs`).

use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize};

/// The `stop-verifier` guard and its config (see the [module docs](crate::stop_verifier)).
///
/// ```
/// use hookchain::guards::{BuiltinsExt, StopVerifier};
/// use hookchain::prelude::*;
/// use hookchain::Stop;
///
/// let hooks = Hooks::builder().builtin(StopVerifier::default()).build().unwrap();
/// let turn = hooks.session("doc").begin_turn();
/// // No test ran in this turn: the claim is sent back.
/// let Stop::Redo { instruction, .. } = turn.on_stop("Done: all tests pass.") else { panic!() };
/// assert!(instruction.contains("tests pass"), "{instruction}");
/// // A test run that succeeded is the evidence.
/// let call = ToolCall::new("bash", json!({"command": "cargo test --workspace"}));
/// turn.run_tool(call, |_| Ok(json!("test result: ok. 42 passed")));
/// assert!(matches!(turn.on_stop("Done: all tests pass."), Stop::Finish(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StopVerifier {
    /// How many redos this guard asks for in one turn (default 1); past it the reply goes out,
    /// with a warning and a notification.
    pub max_redos: u32,
    /// The tools whose calls are shell commands (default: those of
    /// [`DestructiveCommands`](crate::DestructiveCommands): `shell`, `bash`, `Bash`, `terminal`, `run_shell_command`,
    /// `exec_command`, `execute_command`, `run_terminal_cmd`).
    pub shell_tools: Vec<String>,
    /// The args of a shell tool that hold the command (default: `command`, `cmd`).
    pub command_keys: Vec<String>,
    /// The claims and their evidence (default: the built-in `files`, `tests` and `publish`).
    pub rules: Vec<ClaimRule>,
}

/// One kind of claim and the tool calls that substantiate it.
///
/// A field left out (`None`) of a rule named `files`, `tests` or `publish` is the built-in
/// rule's; of another rule, empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimRule {
    /// The rule's name (`files`, `tests`, `publish`, or one of your own).
    pub name: String,
    /// Regular expressions over the reply (case-insensitive) that make a claim.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "patterns"
    )]
    pub claims: Option<Vec<String>>,
    /// Regular expressions matching the whole name of a tool whose successful call is evidence
    /// (case-insensitive).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "patterns"
    )]
    pub tools: Option<Vec<String>>,
    /// Regular expressions searched in a shell tool's command line (case-insensitive) whose
    /// successful run is evidence.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "patterns"
    )]
    pub commands: Option<Vec<String>>,
    /// What the claim says, in words, for the redo reason (`tests pass`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// What counts as evidence, in words, for the redo reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

impl ClaimRule {
    /// A rule named `name` with every other field left out: a built-in rule's name keeps the
    /// built-in rule.
    pub fn named(name: impl Into<String>) -> Self {
        ClaimRule {
            name: name.into(),
            claims: None,
            tools: None,
            commands: None,
            claim: None,
            evidence: None,
        }
    }
}

/// Deserializes a list of regular expressions, refusing one that does not compile.
fn patterns<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    let list = Option::<Vec<String>>::deserialize(deserializer)?;
    if let Some(list) = &list {
        for pattern in list {
            if let Err(e) = Regex::new(pattern) {
                return Err(serde::de::Error::custom(format!(
                    "invalid regular expression `{pattern}`: {e}"
                )));
            }
        }
    }
    Ok(list)
}
