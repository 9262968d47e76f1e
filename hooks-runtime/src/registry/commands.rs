//! Slash commands in the registry: the `#[register_command]` fns and the commands added through
//! [`HooksBuilder`], one table sorted by name, built with the registry.
//!
//! # What it owns
//!
//! - How a command is added ([`HooksBuilder::command`], [`HooksBuilder::command_with`],
//!   [`HooksBuilder::async_command`], [`HooksBuilder::builtin_commands`]; `collected` adds the
//!   `#[register_command]` fns) and what a listing shows of it ([`CommandInfo`]).
//! - The table the session looks commands up in (`Session::command`, in the `session`
//!   module, runs them).
//!
//! # The rules it keeps
//!
//! - Every command belongs to one extension, enabled and disabled with its hooks: a command of a
//!   disabled extension is neither listed ([`Hooks::commands`] says it is off,
//!   `Session::commands` leaves it out) nor run (its reply is an error saying it is off, and how
//!   to switch it on). An extension with commands and no hook is an extension all the same, in
//!   [`Hooks::extensions`], switched and configured like any other;
//!   [`Extension::commands`](hookchain_core::Extension::commands) names its commands.
//! - Names follow hooks-core's one rule (`hookchain::registry::check_command_name`). A builder
//!   command with an invalid name fails the build ([`BuildError::CommandName`]); two commands of
//!   one name fail it too ([`BuildError::DuplicateCommand`], naming both definitions). A
//!   lenient build (and so [`Hooks::global`]) logs them, keeps the first of two commands of one
//!   name (in file:line order) and leaves out an invalid one.

use std::fmt;
use std::panic::Location;
use std::sync::Arc;

use hookchain_core::__private::{CommandFn, CommandRegistration, CommandReturn, IntoCommandReturn};
use hookchain_core::{BoxFuture, HookContext};

use super::builder::{BUILDER_EXTENSION, HooksBuilder};
use super::error::BuildError;
use super::hooks::Hooks;

/// A sync command as the table keeps it.
pub(crate) type SyncCommand = Arc<dyn Fn(&str, &HookContext<'_>) -> CommandReturn + Send + Sync>;

/// An async command as the table keeps it.
pub(crate) type AsyncCommand =
    Arc<dyn for<'a> Fn(&'a str, &'a HookContext<'a>) -> BoxFuture<'a, CommandReturn> + Send + Sync>;

/// A built-in command: it answers from the registry the session belongs to.
pub(crate) type BuiltinCommand = fn(&Hooks, &str) -> CommandReturn;

/// What runs when a command is typed.
#[derive(Clone)]
pub(crate) enum CommandHandler {
    Sync(SyncCommand),
    Async(AsyncCommand),
    Builtin(BuiltinCommand),
}

/// A command of the registry.
#[derive(Clone)]
pub(crate) struct Command {
    pub(crate) info: CommandInfo,
    pub(crate) handler: CommandHandler,
}

/// A slash command, as listings show it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandInfo {
    /// The name, without the `/`.
    pub name: String,
    /// What it does (for a chat UI's completion).
    pub description: String,
    /// The extension it belongs to.
    pub extension: String,
    /// Where it is defined (`file:line`).
    pub file: String,
    /// The line.
    pub line: u32,
    /// `true` for an `async fn` command.
    pub is_async: bool,
    /// `false` when its extension is disabled: it does not run.
    pub enabled: bool,
}

impl CommandInfo {
    /// `file:line` of the definition.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

impl fmt::Display for CommandInfo {
    /// `/name — description`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.description.as_str() {
            "" => write!(f, "/{}", self.name),
            description => write!(f, "/{} — {description}", self.name),
        }
    }
}

/// How a command added through [`HooksBuilder::command_with`] or
/// [`HooksBuilder::async_command`] is named, described and grouped.
#[derive(Debug, Clone)]
pub struct CommandOptions {
    name: String,
    description: String,
    extension: String,
    at: Option<(String, u32)>,
}

impl CommandOptions {
    /// A command typed as `/name`, with no description, in extension [`BUILDER_EXTENSION`]
    /// (`"app"`).
    pub fn new(name: impl Into<String>) -> Self {
        CommandOptions {
            name: name.into(),
            description: String::new(),
            extension: BUILDER_EXTENSION.to_owned(),
            at: None,
        }
    }

    /// What it does, for listings and completion.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The extension it belongs to: switched on and off with the others of that name.
    pub fn extension(mut self, extension: impl Into<String>) -> Self {
        self.extension = extension.into();
        self
    }

    /// Where it is defined, as listings and errors name it (default: the call that adds it).
    pub fn defined_at(mut self, file: impl Into<String>, line: u32) -> Self {
        self.at = Some((file.into(), line));
        self
    }
}

/// The extension of the built-in `/hooks` command.
pub const HOOKS_COMMAND_EXTENSION: &str = "hookchain-hooks";

/// The extension of the built-in `/extensions` command.
pub const EXTENSIONS_COMMAND_EXTENSION: &str = "hookchain-extensions";

impl HooksBuilder {
    /// Adds a slash command `/name`, in extension [`BUILDER_EXTENSION`] (`"app"`): `handler`
    /// gets the args (the rest of the line, trimmed, as `slash_command` hooks left them) and the
    /// context of the session, and returns the reply, `String` or `Result<String, E: Display>`
    /// (an `Err` is an error reply). See `Session::command` for how it runs.
    ///
    /// ```
    /// use hookchain::{HookContext, HooksBuilder};
    ///
    /// let hooks = HooksBuilder::new()
    ///     .command("echo", "Says its args back", |args: &str, _: &HookContext| args.to_owned())
    ///     .build()
    ///     .unwrap();
    /// let reply = hooks.session("echo-doc").command("/echo hi there").unwrap();
    /// assert_eq!((reply.text.as_str(), reply.is_error), ("hi there", false));
    /// ```
    #[track_caller]
    pub fn command<F, R>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        F: Fn(&str, &HookContext<'_>) -> R + Send + Sync + 'static,
        R: IntoCommandReturn,
    {
        let options = CommandOptions::new(name).description(description);
        self.command_with(options, handler)
    }

    /// [`command`](HooksBuilder::command) with its [`CommandOptions`]: its extension, and where
    /// it is defined.
    #[track_caller]
    pub fn command_with<F, R>(self, options: CommandOptions, handler: F) -> Self
    where
        F: Fn(&str, &HookContext<'_>) -> R + Send + Sync + 'static,
        R: IntoCommandReturn,
    {
        let handler: SyncCommand =
            Arc::new(move |args, cx| handler(args, cx).into_command_return());
        self.add_command(options, CommandHandler::Sync(handler), Location::caller())
    }

    /// Adds an async slash command: `handler` returns a boxed future of the reply. The sync
    /// `Session::command` drives it as the sync dispatch drives async hooks (inside a
    /// current-thread tokio runtime it fails at once, naming `Session::command_async`); both
    /// give it the registry's async time limit.
    ///
    /// ```
    /// use hookchain::registry::{BoxFuture, CommandOptions};
    /// use hookchain::{HookContext, HooksBuilder};
    ///
    /// fn shout<'a>(args: &'a str, _: &'a HookContext<'a>) -> BoxFuture<'a, String> {
    ///     Box::pin(async move { args.to_uppercase() })
    /// }
    /// let hooks = HooksBuilder::new()
    ///     .async_command(CommandOptions::new("shout").extension("fun"), shout)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(hooks.session("shout-doc").command("/shout hey").unwrap().text, "HEY");
    /// ```
    #[track_caller]
    pub fn async_command<F, R>(self, options: CommandOptions, handler: F) -> Self
    where
        F: for<'a> Fn(&'a str, &'a HookContext<'a>) -> BoxFuture<'a, R> + Send + Sync + 'static,
        R: IntoCommandReturn + 'static,
    {
        let handler: AsyncCommand = Arc::new(move |args, cx| {
            let fut = handler(args, cx);
            Box::pin(async move { fut.await.into_command_return() })
        });
        self.add_command(options, CommandHandler::Async(handler), Location::caller())
    }

    /// Adds the built-in commands, each in an extension of its own that can be switched off
    /// like any other: `/hooks` (extension [`HOOKS_COMMAND_EXTENSION`]: `list`, `status`,
    /// `enable NAME`, `disable NAME`, `doctor`) and `/extensions` (extension
    /// [`EXTENSIONS_COMMAND_EXTENSION`]: `list`, `enable NAME`, `disable NAME`, `info NAME`).
    /// They answer in plain text from the registry, with no model involved.
    /// [`Hooks::global`] has them.
    pub fn builtin_commands(mut self) -> Self {
        for command in super::builtin_commands::BUILTIN {
            let options = CommandOptions::new(command.name)
                .description(command.description)
                .extension(command.extension)
                .defined_at(command.file, command.line);
            self = self.add_command(
                options,
                CommandHandler::Builtin(command.run),
                Location::caller(),
            );
        }
        self
    }

    fn add_command(
        mut self,
        options: CommandOptions,
        handler: CommandHandler,
        at: &Location<'_>,
    ) -> Self {
        let (file, line) = options
            .at
            .unwrap_or_else(|| (at.file().to_owned(), at.line()));
        self.commands.push(Command {
            info: CommandInfo {
                name: options.name,
                description: options.description,
                extension: options.extension,
                file,
                line,
                is_async: matches!(handler, CommandHandler::Async(_)),
                enabled: true,
            },
            handler,
        });
        self
    }

    /// The `#[register_command]` fns linked into the program.
    pub(super) fn collect_commands(&mut self) {
        self.commands
            .extend(hookchain_core::__private::command_registrations().map(registered));
    }
}

fn registered(r: &'static CommandRegistration) -> Command {
    let handler = match r.handler {
        CommandFn::Sync(f) => CommandHandler::Sync(Arc::new(f)),
        CommandFn::Async(f) => CommandHandler::Async(Arc::new(f)),
    };
    Command {
        info: CommandInfo {
            name: r.name.to_owned(),
            description: r.description.to_owned(),
            extension: r.extension.to_owned(),
            file: r.file.to_owned(),
            line: r.line,
            is_async: matches!(r.handler, CommandFn::Async(_)),
            enabled: true,
        },
        handler,
    }
}

/// The table of commands, sorted by name, and what is wrong with the ones left out: invalid
/// names, and the second of two commands of one name (the first in file:line order is kept).
pub(super) fn table(mut commands: Vec<Command>) -> (Vec<Command>, Vec<BuildError>) {
    let mut errors = Vec::new();
    commands.retain(|c| match hookchain_core::check_command_name(&c.info.name) {
        Ok(()) => true,
        Err(message) => {
            errors.push(BuildError::CommandName {
                name: c.info.name.clone(),
                at: c.info.location(),
                message,
            });
            false
        }
    });
    commands.sort_by(|a, b| {
        (&a.info.name, &a.info.file, a.info.line).cmp(&(&b.info.name, &b.info.file, b.info.line))
    });
    let mut kept: Vec<Command> = Vec::with_capacity(commands.len());
    for command in commands {
        match kept.last() {
            Some(first) if first.info.name == command.info.name => {
                errors.push(BuildError::DuplicateCommand {
                    name: command.info.name.clone(),
                    first: first.info.location(),
                    second: command.info.location(),
                });
            }
            _ => kept.push(command),
        }
    }
    (kept, errors)
}

impl Hooks {
    /// Every slash command of the registry, sorted by name, each with
    /// [`enabled`](CommandInfo::enabled) saying whether its extension is on. A chat UI's
    /// completion lists `Session::commands`, the enabled ones.
    pub fn commands(&self) -> Vec<CommandInfo> {
        self.inner
            .commands
            .iter()
            .map(|c| CommandInfo {
                enabled: self
                    .extension(&c.info.extension)
                    .is_some_and(|e| e.is_enabled()),
                ..c.info.clone()
            })
            .collect()
    }

    /// How long an async command may run: the registry's async time limit.
    pub(crate) fn command_time_limit(&self) -> std::time::Duration {
        self.inner.timeouts.async_hooks
    }

    /// The command typed as `/name`.
    pub(crate) fn command_named(&self, name: &str) -> Option<&Command> {
        let commands = &self.inner.commands;
        commands
            .binary_search_by(|c| c.info.name.as_str().cmp(name))
            .ok()
            .map(|index| &commands[index])
    }
}
