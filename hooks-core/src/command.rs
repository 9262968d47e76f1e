//! Slash commands: what a command line is, what a command's name may be, the reply a command
//! gives, and the link-time record of a `#[register_command]` fn.
//!
//! # What it owns
//!
//! - [`parse_line`]: the one rule deciding whether a line a user typed is a slash command, and
//!   its name and args. The runtime's `Session::command` and everything that lists commands use
//!   it, so a chat UI and hookchain never disagree.
//! - [`check_name`]: the one rule for a command's name, checked by `#[register_command]` at
//!   compile time and by `HooksBuilder::command` when the registry is built.
//! - [`CommandReply`]: what the user gets back, plain text, and whether it is an error.
//! - [`CommandRegistration`]: one per `#[register_command]` fn, collected at link time like the
//!   hooks' records (`inventory` by default, `linkme` with the `linkme` feature), read with
//!   [`command_registrations`].
//!
//! # The rules it keeps
//!
//! - A **command line** is, once the whitespace around it is trimmed, a `/` followed at once
//!   by a valid name, then either the end of the line or whitespace and the args. Everything
//!   else is not a command, and the agent treats it as a message: `//x` (the usual way to send
//!   a text that starts with a slash), `/ x`, a lone `/`, a path such as `/usr/bin/x` (its first
//!   word holds another `/`), `/x.y` or `/?`. A first word that is a valid name but no command
//!   (`/hepl`) *is* a command line: the user gets an error with a "did you mean".
//! - A **name** starts with an ASCII letter or digit and goes on with ASCII letters, digits, `-`
//!   and `_` (`notes`, `git-log`, `plan_v2`); names are compared as written (`/Notes` is not
//!   `/notes`, and gets a "did you mean" for it).
//! - The **args** are the rest of the line after the name and the whitespace after it, trimmed;
//!   they may span several lines.

use std::fmt;

use crate::context::HookContext;
use crate::registration::BoxFuture;

/// What a slash command answers: plain text for the user, and whether it is an error (an unknown
/// command, a command that is off, blocked, or failed).
///
/// ```
/// use hookchain::CommandReply;
///
/// let reply = CommandReply::error("no command is named `/hepl`, did you mean `/help`?");
/// assert!(reply.is_error);
/// assert_eq!(CommandReply::text("done").to_string(), "done");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandReply {
    /// What the user reads.
    pub text: String,
    /// `true` when the command did not run, or ran and failed.
    pub is_error: bool,
}

impl CommandReply {
    /// A reply of a command that ran.
    pub fn text(text: impl Into<String>) -> Self {
        CommandReply {
            text: text.into(),
            is_error: false,
        }
    }

    /// An error reply.
    pub fn error(text: impl Into<String>) -> Self {
        CommandReply {
            text: text.into(),
            is_error: true,
        }
    }
}

impl fmt::Display for CommandReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Splits a line the user typed into a command's name and args, when it is a slash command;
/// `None` when it is a message.
///
/// A **command line** is, once the whitespace around it is trimmed, a `/` followed at once by a
/// valid name ([`check_command_name`](crate::check_command_name)), then either the end of the
/// line or whitespace and the args (the rest, trimmed; it may span several lines). Everything
/// else is a message: `//x` (the usual way to send a text that starts with a slash), `/ x`, a
/// lone `/`, a path such as `/usr/bin/x` (its first word holds another `/`), `/x.y` or `/?`. A
/// first word that is a valid name but no command (`/hepl`) *is* a command line: the user gets
/// an error with a "did you mean".
///
/// ```
/// use hookchain::registry::parse_command_line;
///
/// assert_eq!(parse_command_line("/notes add milk"), Some(("notes", "add milk")));
/// assert_eq!(parse_command_line("  /hooks  "), Some(("hooks", "")));
/// assert_eq!(parse_command_line("/hepl"), Some(("hepl", "")));
/// assert_eq!(parse_command_line("//notes"), None);
/// assert_eq!(parse_command_line("/ notes"), None);
/// assert_eq!(parse_command_line("/usr/bin/env"), None);
/// assert_eq!(parse_command_line("hello /notes"), None);
/// ```
pub fn parse_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim().strip_prefix('/')?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (name, args) = rest.split_at(end);
    check_name(name).ok()?;
    Some((name, args.trim()))
}

/// `Ok` when `name` is a valid command name, else what is wrong with it and the fix, as a
/// sentence. A name starts with an ASCII letter or digit and goes on with ASCII letters,
/// digits, `-` and `_` (`notes`, `git-log`, `plan_v2`), written without its `/`; names are
/// compared as written (`/Notes` is not `/notes`, and gets a "did you mean" for it).
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(
            "a command's name cannot be empty: name it as the user types it after \
                    the `/`, e.g. \"notes\""
                .to_owned(),
        );
    }
    if let Some(bare) = name.strip_prefix('/') {
        return Err(format!(
            "a command's name is written without its `/`: write \"{bare}\""
        ));
    }
    if name.chars().any(char::is_whitespace) {
        let word = name.split_whitespace().next().unwrap_or_default();
        return Err(format!(
            "a command's name is one word, with no spaces: name it \"{word}\" and read the rest \
             from its args"
        ));
    }
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if let Some(bad) = name.chars().find(|c| !valid(*c)) {
        return Err(format!(
            "a command's name may hold ASCII letters, digits, `-` and `_` only, not `{bad}`: \
             a line like \"/{name}\" would not read as a command"
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(format!(
            "a command's name starts with a letter or a digit, not `{}`",
            &name[..1]
        ));
    }
    Ok(())
}

/// What a command returns once normalised: its text, or its error as a message.
pub type CommandReturn = Result<String, String>;

/// A synchronous `#[register_command]` fn, normalised.
pub type SyncCommandFn = for<'a, 'b, 'c> fn(&'a str, &'b HookContext<'c>) -> CommandReturn;

/// An `async fn` `#[register_command]` fn, normalised.
pub type AsyncCommandFn = for<'a> fn(&'a str, &'a HookContext<'a>) -> BoxFuture<'a, CommandReturn>;

/// The handler of a `#[register_command]` fn.
#[derive(Clone, Copy)]
pub enum CommandFn {
    /// A `fn`.
    Sync(SyncCommandFn),
    /// An `async fn`.
    Async(AsyncCommandFn),
}

impl fmt::Debug for CommandFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CommandFn::Sync(_) => "CommandFn::Sync",
            CommandFn::Async(_) => "CommandFn::Async",
        })
    }
}

/// One `#[register_command]` fn, as collected at link time.
#[derive(Debug)]
pub struct CommandRegistration {
    /// The command's name, without the `/`.
    pub name: &'static str,
    /// What it does, for listings and completion.
    pub description: &'static str,
    /// The extension it belongs to: the `extension = ..` key, or the crate's name.
    pub extension: &'static str,
    /// The source file of the fn.
    pub file: &'static str,
    /// The line of the fn.
    pub line: u32,
    /// The fn.
    pub handler: CommandFn,
}

/// What a command fn's first argument may be: `&str`, the args the user typed.
#[diagnostic::on_unimplemented(
    message = "the first argument of a slash command must be `&str`, not `{Self}`",
    label = "the args the user typed after the command's name, borrowed",
    note = "a command is `fn(args: &str, cx: &HookContext) -> String`"
)]
pub trait CommandArgs<'a>: Sized {
    /// Passes the args through.
    fn from_args(args: &'a str) -> Self;
}

impl<'a> CommandArgs<'a> for &'a str {
    fn from_args(args: &'a str) -> Self {
        args
    }
}

/// What a command fn may return: `String`, or `Result<String, E>` with `E: Display`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not what a slash command returns",
    label = "a command returns `String` or `Result<String, E>` with `E: Display`",
    note = "the text is the reply the user reads; an `Err` is an error reply with its message"
)]
pub trait IntoCommandReturn {
    /// Converts the fn's return value.
    fn into_command_return(self) -> CommandReturn;
}

impl IntoCommandReturn for String {
    fn into_command_return(self) -> CommandReturn {
        Ok(self)
    }
}

impl<E: fmt::Display> IntoCommandReturn for Result<String, E> {
    fn into_command_return(self) -> CommandReturn {
        self.map_err(|e| e.to_string())
    }
}

#[cfg(not(feature = "linkme"))]
inventory::collect!(CommandRegistration);

/// Every `#[register_command]` fn linked into the program, in no particular order.
#[cfg(not(feature = "linkme"))]
pub fn command_registrations() -> impl Iterator<Item = &'static CommandRegistration> {
    inventory::iter::<CommandRegistration>.into_iter()
}

/// Every `#[register_command]` fn linked into the program, in no particular order.
#[cfg(feature = "linkme")]
pub fn command_registrations() -> impl Iterator<Item = &'static CommandRegistration> {
    COMMAND_REGISTRATIONS.iter()
}

/// The linkme slice that collects command registrations (`__private::COMMAND_REGISTRATIONS` to
/// the macros).
#[cfg(feature = "linkme")]
#[linkme::distributed_slice]
#[linkme(crate = linkme)]
pub static COMMAND_REGISTRATIONS: [CommandRegistration];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_chat_ui_sends_reads_as_a_command_or_a_message() {
        assert_eq!(parse_line("/notes"), Some(("notes", "")));
        assert_eq!(
            parse_line("/notes add  milk \n"),
            Some(("notes", "add  milk"))
        );
        assert_eq!(parse_line("\t/git-log -3"), Some(("git-log", "-3")));
        assert_eq!(parse_line("/notes\nline two"), Some(("notes", "line two")));
        for message in [
            "",
            "/",
            "//notes",
            "/ notes",
            "/usr/bin/x",
            "/x.y",
            "/?",
            "notes",
            "a /notes",
            "/-x",
            "/_x",
        ] {
            assert_eq!(parse_line(message), None, "{message:?}");
        }
    }

    #[test]
    fn a_bad_name_says_what_to_write() {
        assert!(check_name("notes").is_ok());
        assert!(check_name("plan_v2").is_ok());
        assert_eq!(
            check_name("/notes").unwrap_err(),
            "a command's name is written without its `/`: write \"notes\""
        );
        assert!(check_name("").unwrap_err().contains("cannot be empty"));
        assert!(
            check_name("add note")
                .unwrap_err()
                .contains("name it \"add\"")
        );
        assert!(check_name("a.b").unwrap_err().contains("not `.`"));
        assert!(check_name("-x").unwrap_err().contains("not `-`"));
    }

    #[test]
    fn returns_are_normalised() {
        assert_eq!("x".to_owned().into_command_return(), Ok("x".to_owned()));
        let failed: Result<String, std::io::Error> = Err(std::io::Error::other("disk full"));
        assert_eq!(failed.into_command_return(), Err("disk full".to_owned()));
    }
}
