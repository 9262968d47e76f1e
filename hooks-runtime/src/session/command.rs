//! A slash command run for the user: [`Session::command`] and its async twin, and
//! [`Session::commands`], what a chat UI completes.
//!
//! The rules it keeps are those of [`Session::command`]'s docs: what a command line is, the
//! order (`slash_command`, the lookup, the command), failures, sync and async, and the context
//! a command runs with.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use hookchain_core::__private::CommandReturn;
use hookchain_core::points::{Notify, OnSlashCommand, SlashCommand};
use hookchain_core::{
    Annotations, CommandReply, Flow, HookContext, HookPoint, Level, Notification, NotificationKind,
};

use super::firing::Mode;
use super::lifecycle::{Session, SessionInner};
use crate::chain::take_panic;
use crate::exec::{self, Driven};
use crate::registry::commands::{AsyncCommand, Command, CommandHandler};
use crate::registry::{CommandInfo, Hooks};

const VIA: &str = "Session::command_async";

/// What is left to run once `slash_command` and the lookup are done.
enum Next<'a> {
    /// The reply is known (blocked, unknown, off).
    Reply(CommandReply),
    /// Run the command with these args.
    Run(&'a Command, String),
}

impl Session {
    /// Runs `line` as a slash command when it is one: `None` when `line` is a message for the
    /// model, else the reply for the user — the command's text, or an error reply when a
    /// `slash_command` hook blocked it, no command has that name (with a "did you mean"), its
    /// extension is off, or it failed.
    ///
    /// - **What is a command.** A line is a slash command when, trimmed, it starts with `/` and
    ///   a valid name ([`parse_command_line`](hookchain_core::parse_command_line) decides):
    ///   `//x` (how a user sends a text that starts with a slash), `/ x`, a lone `/` and a path
    ///   like `/usr/bin/x` are messages, and the agent hands them to the model as any other.
    /// - **Order.** `slash_command` fires first, for every command line — a known command, an
    ///   unknown one, one that is off — so an audit hook sees every command the user typed. A
    ///   block is an error reply with the reason and the hook that blocked; a rewrite replaces
    ///   the args. Then the command is looked up: an unknown name is an error reply with a "did
    ///   you mean" among the commands that are on; a command of a disabled extension is an error
    ///   reply saying it is off and how to switch it on. Then it runs with the args as the hooks
    ///   left them.
    /// - **Failures.** An `Err` is an error reply `/NAME failed: ...`; a panic is caught (never
    ///   the agent's), is an error reply too, and is reported through `notification`. An async
    ///   command that overruns the registry's async time limit is an error reply.
    /// - **Sync and async.** An async command, and async `slash_command` hooks, are driven as
    ///   the sync dispatch drives async hooks: with no runtime or inside a multi-thread tokio
    ///   runtime the call waits for them; inside a current-thread runtime, where waiting would
    ///   hang, it fails at once with an error reply naming
    ///   [`command_async`](Session::command_async).
    /// - **Context.** A command runs at the session's level, outside any turn, as a chat UI runs
    ///   it between two messages: its [`HookContext`] has the session's id and state; its turn
    ///   state is the one of the session's dispatches outside a turn (as for
    ///   [`fire`](Session::fire)); its hook name is `/NAME` and its extension the command's, so
    ///   `cx.config::<T>()` reads the extension's section.
    ///
    /// ```
    /// use hookchain::{HookContext, HooksBuilder};
    ///
    /// let hooks = HooksBuilder::new()
    ///     .command("ping", "Answers pong", |_: &str, _: &HookContext| "pong".to_owned())
    ///     .build()
    ///     .unwrap();
    /// let session = hooks.session("ping-doc");
    /// assert_eq!(session.command("/ping").unwrap().text, "pong");
    /// let typo = session.command("/pnig").unwrap();
    /// assert!(typo.is_error && typo.text.contains("did you mean `/ping`?"));
    /// assert_eq!(session.command("//ping is how you write /ping"), None);
    /// ```
    pub fn command(&self, line: &str) -> Option<CommandReply> {
        let (name, args) = hookchain_core::parse_command_line(line)?;
        let inner = &*self.inner;
        let event = SlashCommand::new(name, args);
        let flow = inner.fire::<OnSlashCommand>(event, Mode::Sync(VIA)).flow;
        let reply = match next(&inner.hooks, name, flow) {
            Next::Reply(reply) => reply,
            Next::Run(command, args) => {
                let returned = run(inner, command, &args, |f, cx, limit| {
                    match exec::drive(f(&args, cx), limit) {
                        Driven::Done(out) => out,
                        Driven::TimedOut => Err(timed_out(limit)),
                        Driven::CannotBlock(why) => Err(format!(
                            "an async command cannot be waited for by the sync API {why}: it \
                             would hang; call `{VIA}` instead"
                        )),
                    }
                });
                finish(inner, command, returned, |n| {
                    let _ = inner.fire::<Notify>(n, Mode::Sync(VIA));
                })
            }
        };
        Some(reply)
    }

    /// [`command`](Session::command) for an async agent: awaits async `slash_command` hooks and
    /// async commands (within the registry's async time limit) instead of blocking the thread.
    pub async fn command_async(&self, line: &str) -> Option<CommandReply> {
        let (name, args) = hookchain_core::parse_command_line(line)?;
        let inner = &*self.inner;
        let event = SlashCommand::new(name, args);
        let flow = inner.fire_async::<OnSlashCommand>(event, VIA).await.flow;
        let (command, args) = match next(&inner.hooks, name, flow) {
            Next::Reply(reply) => return Some(reply),
            Next::Run(command, args) => (command, args),
        };
        let returned = match &command.handler {
            CommandHandler::Async(f) => {
                let notes = Annotations::new();
                let extension = inner.hooks.extension(&command.info.extension);
                let hook = format!("/{}", command.info.name);
                let cx = context(inner, &notes, &hook, extension);
                let limit = inner.hooks.command_time_limit();
                // A closure may panic before it hands its future over, or in a poll.
                let out = match catch_unwind(AssertUnwindSafe(|| f(&args, &cx))) {
                    Err(panic) => Returned::Panicked(panic),
                    Ok(fut) => match exec::with_timeout(catch_unwind_future(fut), limit).await {
                        Some(Ok(out)) => Returned::Done(out),
                        Some(Err(panic)) => Returned::Panicked(panic),
                        None => Returned::Done(Err(timed_out(Some(limit)))),
                    },
                };
                let notifications = notes.into_attached().map(|a| a.notifications);
                for n in notifications.into_iter().flatten() {
                    let _ = inner.fire_async::<Notify>(n, VIA).await;
                }
                out
            }
            // Sync and built-in commands run here, as from `command`: `drive` is for async
            // ones, which the arm above awaits.
            _ => run(inner, command, &args, |_, _, _| {
                unreachable!("an async command is awaited by `command_async`, never driven")
            }),
        };
        let mut notes = Vec::new();
        let reply = finish(inner, command, returned, |n| notes.push(n));
        for n in notes {
            let _ = inner.fire_async::<Notify>(n, VIA).await;
        }
        Some(reply)
    }

    /// The commands the user can run in this session — those of enabled extensions — sorted
    /// by name, with their descriptions: what a chat UI offers for completion.
    ///
    /// ```
    /// use hookchain::{HookContext, HooksBuilder};
    ///
    /// let hooks = HooksBuilder::new()
    ///     .command("ping", "Answers pong", |_: &str, _: &HookContext| "pong".to_owned())
    ///     .builtin_commands()
    ///     .build()
    ///     .unwrap();
    /// let names: Vec<String> = hooks.session("list-doc").commands().into_iter().map(|c| c.name).collect();
    /// assert_eq!(names, ["extensions", "hooks", "ping"]);
    /// ```
    pub fn commands(&self) -> Vec<CommandInfo> {
        let mut commands = self.inner.hooks.commands();
        commands.retain(|c| c.enabled);
        commands
    }
}

/// What follows `slash_command`'s flow: a reply, or the command to run and its args.
fn next<'a>(hooks: &'a Hooks, name: &str, flow: Flow<SlashCommand>) -> Next<'a> {
    let event = match flow {
        Flow::Continue(event) => event,
        Flow::Blocked(blocked) => {
            return Next::Reply(CommandReply::error(format!(
                "/{name} is blocked by `{}`: {}",
                blocked.hook, blocked.reason
            )));
        }
    };
    let Some(command) = hooks.command_named(name) else {
        return Next::Reply(CommandReply::error(unknown(hooks, name)));
    };
    let extension = hooks.extension(&command.info.extension);
    if let Some(extension) = extension.filter(|e| !e.is_enabled()) {
        let who = match extension.disabled_by() {
            Some(who) if &*who == hookchain_core::DISABLED_BY_DEFAULT => {
                " (it is off by default)".to_owned()
            }
            Some(who) => format!(" (disabled by {who})"),
            None => String::new(),
        };
        return Next::Reply(CommandReply::error(format!(
            "/{name} is off: its extension `{ext}` is disabled{who}; enable it with \
             `/extensions enable {ext}`, or `extensions: {{{ext}: {{enabled: true}}}}` in \
             hookchain.yaml",
            ext = extension.name()
        )));
    }
    Next::Run(command, event.args)
}

/// The error reply of an unknown command: the closest command that is on, or the list.
fn unknown(hooks: &Hooks, name: &str) -> String {
    let on: Vec<CommandInfo> = hooks.commands().into_iter().filter(|c| c.enabled).collect();
    let names = on.iter().map(|c| c.name.as_str());
    match hookchain_core::suggest::closest(name, names.clone()) {
        Some(s) => format!("no command is named `/{name}`, did you mean `/{s}`?"),
        None if on.is_empty() => format!("no command is named `/{name}` (there are no commands)"),
        None => format!(
            "no command is named `/{name}` (the commands are {})",
            names
                .map(|n| format!("/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// How a command ended.
enum Returned {
    Done(CommandReturn),
    Panicked(Box<dyn std::any::Any + Send>),
}

/// Runs a sync or built-in command here, and an async one through `drive`, catching a panic.
fn run(
    inner: &SessionInner,
    command: &Command,
    args: &str,
    drive: impl FnOnce(&AsyncCommand, &HookContext<'_>, Option<Duration>) -> CommandReturn,
) -> Returned {
    let notes = Annotations::new();
    let extension = inner.hooks.extension(&command.info.extension);
    let hook = format!("/{}", command.info.name);
    let cx = context(inner, &notes, &hook, extension);
    let limit = Some(inner.hooks.command_time_limit());
    let _frame = crate::state::enter(inner.frame);
    let out = catch_unwind(AssertUnwindSafe(|| match &command.handler {
        CommandHandler::Sync(f) => f(args, &cx),
        CommandHandler::Builtin(f) => f(&inner.hooks, args),
        CommandHandler::Async(f) => drive(f, &cx, limit),
    }));
    let notifications = notes.into_attached().map(|a| a.notifications);
    for n in notifications.into_iter().flatten() {
        let _ = inner.fire::<Notify>(n, Mode::Sync(VIA));
    }
    match out {
        Ok(out) => Returned::Done(out),
        Err(panic) => Returned::Panicked(panic),
    }
}

/// The context a command runs with (see the [module docs](self)).
fn context<'a>(
    inner: &'a SessionInner,
    notes: &'a Annotations,
    hook: &'a str,
    extension: Option<&'a hookchain_core::Extension>,
) -> HookContext<'a> {
    let turn = inner.next_turn.load(std::sync::atomic::Ordering::Relaxed);
    let cx = HookContext::new(&inner.id, turn, OnSlashCommand::NAME, notes)
        .with_state(&inner.slot.outside, &inner.slot.state)
        .with_hook(hook);
    match extension {
        Some(extension) => cx.with_extension(extension),
        None => cx,
    }
}

/// The reply for what the command returned; a panic is also reported through `notify`.
fn finish(
    inner: &SessionInner,
    command: &Command,
    returned: Returned,
    mut notify: impl FnMut(Notification),
) -> CommandReply {
    let name = &command.info.name;
    match returned {
        Returned::Done(Ok(text)) => CommandReply::text(text),
        // A built-in command's error is its answer (a usage error, a refusal), worded whole.
        Returned::Done(Err(error)) if matches!(command.handler, CommandHandler::Builtin(_)) => {
            CommandReply::error(error)
        }
        Returned::Done(Err(error)) => CommandReply::error(format!("/{name} failed: {error}")),
        Returned::Panicked(panic) => {
            let message = take_panic(panic);
            tracing::error!(
                session_id = &*inner.id,
                command = name.as_str(),
                "slash command `/{name}` ({}) panicked: {message}",
                command.info.location()
            );
            notify(Notification {
                level: Level::Error,
                message: format!(
                    "slash command `/{name}` ({}) panicked: {message}",
                    command.info.location()
                ),
                source: Some(format!("/{name}")),
                kind: NotificationKind::General,
            });
            CommandReply::error(format!("/{name} failed: it panicked: {message}"))
        }
    }
}

fn timed_out(limit: Option<Duration>) -> String {
    match limit {
        Some(limit) => format!("timed out after {limit:?}"),
        None => "timed out".to_owned(),
    }
}

/// Polls `fut`, turning a panic in a poll into `Err` with its payload, as a hook's is caught.
async fn catch_unwind_future<F: Future + Unpin>(
    mut fut: F,
) -> Result<F::Output, Box<dyn std::any::Any + Send>> {
    std::future::poll_fn(move |cx| {
        match catch_unwind(AssertUnwindSafe(|| std::pin::Pin::new(&mut fut).poll(cx))) {
            Ok(std::task::Poll::Ready(out)) => std::task::Poll::Ready(Ok(out)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(panic) => std::task::Poll::Ready(Err(panic)),
        }
    })
    .await
}
