//! The payload of a slash command a user typed: [`SlashCommand`], what `slash_command` hooks see.

use serde::{Deserialize, Serialize};

/// The payload of `slash_command`: a slash command the user typed, split into its name and its
/// arguments, before the command runs.
///
/// Hooks see it whole; a rewrite replaces the **args** (the name stays, as a tool call's name
/// stays under `intercept_tool_call`), and a block refuses the command, its reason the error
/// reply the user gets.
///
/// ```
/// use hookchain::points::{OnSlashCommand, SlashCommand};
/// use hookchain::HookPoint;
///
/// let mut command = SlashCommand::new("notes", "add  buy milk ");
/// OnSlashCommand::apply(&mut command, "add buy milk".to_owned());
/// assert_eq!(command.args, "add buy milk");
/// assert_eq!(command.name, "notes");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SlashCommand {
    /// The command's name, without the `/` (`notes` for `/notes add x`).
    pub name: String,
    /// Everything after the name and the whitespace that follows it (`add x`), trimmed; empty
    /// when the user gave none.
    #[serde(default)]
    pub args: String,
}

impl SlashCommand {
    /// The command `name` (no `/`) with `args`.
    pub fn new(name: impl Into<String>, args: impl Into<String>) -> Self {
        SlashCommand {
            name: name.into(),
            args: args.into(),
        }
    }
}
