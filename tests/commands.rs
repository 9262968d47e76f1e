//! Slash commands through the public names: `#[register_command]` fns collected at link time
//! (with either backend: run with `--features linkme` too), commands added through the builder,
//! the `slash_command` point that sees, rewrites or blocks them, and the built-in `/hooks` and
//! `/extensions`.
//!
//! This file is one test program: the `#[register_command]` fns and the `#[register_hook]` below
//! are in every registry built with `collected()`. Each test builds its own registry, so
//! switching an extension off in one never reaches another.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hookchain::points::{OnSlashCommand, SlashCommand};
use hookchain::registry::{
    BoxFuture, BuildError, CommandOptions, EXTENSIONS_COMMAND_EXTENSION, HOOKS_COMMAND_EXTENSION,
};
use hookchain::{
    CommandReply, HookContext, HookOptions, HookResult, Hooks, HooksBuilder, register_command,
    register_hook,
};

/// Keeps a note in the session's state and lists them.
#[register_command("notes", extension = "notes")]
fn notes(args: &str, cx: &HookContext) -> Result<String, String> {
    let state = cx.session_state();
    let mut all = state.get::<Vec<String>>("notes").unwrap_or_default();
    match args.split_once(' ').unwrap_or((args, "")) {
        ("add", text) if !text.is_empty() => {
            all.push(text.to_owned());
            state.set("notes", all.clone());
            Ok(format!("noted ({} in all)", all.len()))
        }
        ("list", "") | ("", "") => Ok(all.join("\n")),
        _ => Err(format!(
            "no such use of /notes: `{args}`; try `add TEXT` or `list`"
        )),
    }
}

/// Answers after an await.
#[register_command("later", description = "Answers after an await", extension = "notes")]
async fn later(args: &str, cx: &HookContext<'_>) -> String {
    std::future::ready(()).await;
    format!("later: {args} (in {})", cx.session_id())
}

/// Always panics.
#[register_command("boom", extension = "broken", crate = hookchain)]
fn boom(_args: &str) -> String {
    panic!("the command's disk is on fire")
}

/// Refuses `/notes add` of anything secret, and trims the args of every other command line.
#[register_hook("slash_command", extension = "command-guard")]
fn command_guard(command: &SlashCommand) -> HookResult<String> {
    if command.name == "notes" && command.args.contains("password") {
        return HookResult::block("notes must not hold passwords");
    }
    if command.args.contains("  ") {
        return HookResult::Rewrite(
            command
                .args
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    HookResult::Pass
}

fn hooks() -> Hooks {
    HooksBuilder::new()
        .collected()
        .builtin_commands()
        .build()
        .unwrap()
}

fn error(reply: Option<CommandReply>) -> String {
    let reply = reply.expect("a command line");
    assert!(reply.is_error, "not an error: {}", reply.text);
    reply.text
}

fn ok(reply: Option<CommandReply>) -> String {
    let reply = reply.expect("a command line");
    assert!(!reply.is_error, "an error: {}", reply.text);
    reply.text
}

#[test]
fn a_registered_command_runs_with_its_args_and_the_session_s_state() {
    let hooks = hooks();
    let session = hooks.session("notes-run");
    assert_eq!(
        ok(session.command("/notes add buy milk")),
        "noted (1 in all)"
    );
    assert_eq!(
        ok(session.command("  /notes add call Bob \n")),
        "noted (2 in all)"
    );
    assert_eq!(ok(session.command("/notes list")), "buy milk\ncall Bob");
    assert_eq!(ok(session.command("/notes")), "buy milk\ncall Bob");
    // Another session has notes of its own.
    assert_eq!(ok(hooks.session("notes-other").command("/notes")), "");
}

#[test]
fn a_line_that_is_not_a_command_is_none() {
    let hooks = hooks();
    let session = hooks.session("not-commands");
    for line in [
        "hello",
        "//notes",
        "/ notes",
        "/usr/bin/env",
        "",
        "/",
        "see /notes",
    ] {
        assert_eq!(session.command(line), None, "{line:?}");
    }
}

#[test]
fn a_hook_rewrites_the_args_and_a_block_is_an_error_reply_naming_the_hook() {
    let hooks = hooks();
    let session = hooks.session("guarded");
    assert_eq!(
        ok(session.command("/notes add  spaced   out")),
        "noted (1 in all)"
    );
    assert_eq!(ok(session.command("/notes list")), "spaced out");
    let blocked = error(session.command("/notes add my password is hunter2"));
    assert!(
        blocked.contains("notes must not hold passwords"),
        "{blocked}"
    );
    assert!(blocked.contains("command_guard"), "{blocked}");
    assert_eq!(ok(session.command("/notes list")), "spaced out");
}

#[test]
fn a_builder_hook_on_the_point_sees_every_command_line() {
    let seen = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&seen);
    let hooks = HooksBuilder::new()
        .command("ping", "Answers pong", |_: &str, _: &HookContext| {
            "pong".to_owned()
        })
        .hook_with(
            OnSlashCommand,
            HookOptions::new("audit"),
            move |_: &SlashCommand, _: &HookContext| {
                count.fetch_add(1, Ordering::Relaxed);
                HookResult::<String>::Pass
            },
        )
        .build()
        .unwrap();
    let session = hooks.session("audited");
    assert_eq!(ok(session.command("/ping")), "pong");
    let _ = error(session.command("/pong"));
    assert_eq!(session.command("a message"), None);
    assert_eq!(seen.load(Ordering::Relaxed), 2);
}

#[test]
fn an_unknown_command_gets_a_did_you_mean() {
    let hooks = hooks();
    let session = hooks.session("typos");
    assert_eq!(
        error(session.command("/ntoes add x")),
        "no command is named `/ntoes`, did you mean `/notes`?"
    );
    let far = error(session.command("/zzz"));
    assert!(
        far.starts_with("no command is named `/zzz` (the commands are "),
        "{far}"
    );
    assert!(
        far.contains("/extensions") && far.contains("/notes"),
        "{far}"
    );
}

#[test]
fn a_command_of_a_disabled_extension_is_off_and_not_listed() {
    let hooks = hooks();
    let session = hooks.session("switched");
    hooks.disable_extension("notes").unwrap();
    let off = error(session.command("/notes add x"));
    assert!(off.contains("/notes is off"), "{off}");
    assert!(off.contains("disabled by the agent's code"), "{off}");
    assert!(off.contains("/extensions enable notes"), "{off}");
    let listed: Vec<String> = session.commands().into_iter().map(|c| c.name).collect();
    assert!(!listed.contains(&"notes".to_owned()), "{listed:?}");
    assert!(!listed.contains(&"later".to_owned()), "{listed:?}");
    // No did-you-mean toward a command that is off.
    assert!(!error(session.command("/note")).contains("did you mean `/notes`"));
    hooks.enable_extension("notes").unwrap();
    assert_eq!(ok(session.command("/notes add x")), "noted (1 in all)");
}

#[test]
fn a_panicking_or_failing_command_is_an_error_reply() {
    let hooks = hooks();
    let session = hooks.session("failures");
    let panicked = error(session.command("/boom"));
    assert_eq!(
        panicked,
        "/boom failed: it panicked: the command's disk is on fire"
    );
    let failed = error(session.command("/notes frobnicate"));
    assert_eq!(
        failed,
        "/notes failed: no such use of /notes: `frobnicate`; try `add TEXT` or `list`"
    );
    // The session goes on.
    assert_eq!(ok(session.command("/notes add y")), "noted (1 in all)");
}

#[test]
fn an_async_command_runs_from_the_sync_and_the_async_api() {
    let hooks = hooks();
    let session = hooks.session("async-cmd");
    assert_eq!(
        ok(session.command("/later a b")),
        "later: a b (in async-cmd)"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let reply = runtime.block_on(session.command_async("/later c"));
    assert_eq!(ok(reply), "later: c (in async-cmd)");
    let reply = runtime.block_on(session.command_async("/notes add z"));
    assert_eq!(ok(reply), "noted (1 in all)");
    assert_eq!(runtime.block_on(session.command_async("text")), None);
    let reply = runtime.block_on(session.command_async("/boom"));
    assert!(error(reply).contains("it panicked"));
}

#[test]
fn an_async_command_that_must_wait_in_a_current_thread_runtime_names_the_async_method() {
    fn slow<'a>(_: &'a str, _: &'a HookContext<'a>) -> BoxFuture<'a, String> {
        Box::pin(async {
            tokio::task::yield_now().await;
            "done".to_owned()
        })
    }
    let hooks = HooksBuilder::new()
        .async_command(CommandOptions::new("slow"), slow)
        .build()
        .unwrap();
    let session = hooks.session("slow");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let reply = runtime.block_on(async { session.command("/slow") });
    let text = error(reply);
    assert!(
        text.contains("call `Session::command_async` instead"),
        "{text}"
    );
    let reply = runtime.block_on(session.command_async("/slow"));
    assert_eq!(ok(reply), "done");
}

#[test]
fn an_async_command_that_never_answers_is_stopped_at_the_time_limit() {
    fn stuck<'a>(_: &'a str, _: &'a HookContext<'a>) -> BoxFuture<'a, String> {
        Box::pin(std::future::pending())
    }
    let hooks = HooksBuilder::new()
        .async_command(CommandOptions::new("stuck").extension("slow"), stuck)
        .async_timeout(std::time::Duration::from_millis(20))
        .build()
        .unwrap();
    let session = hooks.session("stuck");
    assert_eq!(
        error(session.command("/stuck")),
        "/stuck failed: timed out after 20ms"
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let reply = runtime.block_on(session.command_async("/stuck"));
    assert_eq!(error(reply), "/stuck failed: timed out after 20ms");
}

#[test]
fn commands_are_listed_with_their_descriptions_and_extensions() {
    let hooks = hooks();
    let session = hooks.session("listing");
    let commands = session.commands();
    let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["boom", "extensions", "hooks", "later", "notes"]);
    let notes = commands.iter().find(|c| c.name == "notes").unwrap();
    assert_eq!(
        notes.description,
        "Keeps a note in the session's state and lists them."
    );
    assert_eq!(notes.extension, "notes");
    assert!(notes.file.ends_with("commands.rs"), "{}", notes.file);
    let later = commands.iter().find(|c| c.name == "later").unwrap();
    assert!(later.is_async);
    assert_eq!(later.to_string(), "/later — Answers after an await");
    let mut of_notes = hooks.extension("notes").unwrap().commands();
    of_notes.sort();
    assert_eq!(of_notes, ["later", "notes"]);
    assert_eq!(
        hooks.extension(HOOKS_COMMAND_EXTENSION).unwrap().commands(),
        ["hooks"]
    );
}

#[test]
fn two_commands_of_one_name_fail_the_build_naming_both() {
    let error = HooksBuilder::new()
        .collected()
        .command_with(
            CommandOptions::new("notes").defined_at("src/other.rs", 7),
            |_: &str, _: &HookContext| String::new(),
        )
        .build()
        .unwrap_err();
    let BuildError::DuplicateCommand {
        name,
        first,
        second,
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(name, "notes");
    let both = [first.as_str(), second.as_str()];
    assert!(both.contains(&"src/other.rs:7"), "{error}");
    assert!(both.iter().any(|at| at.contains("commands.rs:")), "{error}");
    assert!(
        error
            .to_string()
            .starts_with("two slash commands are named `/notes`")
    );
}

#[test]
fn a_builder_command_with_a_bad_name_fails_the_build_with_the_fix() {
    let error = HooksBuilder::new()
        .command("/ping", "", |_: &str, _: &HookContext| String::new())
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("a command's name is written without its `/`: write \"ping\""),
        "{error}"
    );
}

#[test]
fn extensions_list_info_enable_and_disable() {
    let hooks = hooks();
    let session = hooks.session("extensions");
    let list = ok(session.command("/extensions"));
    assert_eq!(list, ok(session.command("/extensions list")));
    assert!(
        list.contains("notes - on: 0 hooks, 0 tools, commands /later /notes"),
        "{list}"
    );
    assert!(
        list.contains("command-guard - on: 1 hook, 0 tools, no commands"),
        "{list}"
    );
    assert!(
        list.contains("hookchain-extensions - on: 0 hooks, 0 tools, command /extensions"),
        "{list}"
    );

    let disabled = ok(session.command("/extensions disable notes"));
    assert!(
        disabled.starts_with("extension `notes` disabled"),
        "{disabled}"
    );
    assert!(!hooks.extension("notes").unwrap().is_enabled());
    assert!(
        ok(session.command("/extensions list"))
            .contains("notes - off (disabled by the agent's code): ")
    );
    assert!(error(session.command("/notes")).contains("is off"));
    let info = ok(session.command("/extensions info notes"));
    assert!(
        info.starts_with("extension `notes`: off (disabled by the agent's code)\n"),
        "{info}"
    );
    assert!(
        info.contains("commands: 2\n  /later — Answers after an await\n"),
        "{info}"
    );
    assert_eq!(
        ok(session.command("/extensions enable notes")),
        "extension `notes` enabled (0 hooks, 0 tools, commands /later /notes)"
    );
    assert!(hooks.extension("notes").unwrap().is_enabled());

    let guard = ok(session.command("/extensions info command-guard"));
    assert!(guard.contains("hooks: 1\n  "), "{guard}");
    assert!(guard.contains("on `slash_command`"), "{guard}");

    let typo = error(session.command("/extensions info nots"));
    assert!(typo.contains("did you mean `notes`?"), "{typo}");
    let sub = error(session.command("/extensions lst"));
    assert!(
        sub.starts_with("no subcommand `lst`, did you mean `list`?"),
        "{sub}"
    );
    let bare = error(session.command("/extensions enable"));
    assert!(bare.contains("needs the extension's name"), "{bare}");
}

#[test]
fn a_required_extension_is_not_disabled() {
    let hooks = HooksBuilder::new()
        .collected()
        .builtin_commands()
        .require_extension("command-guard")
        .build()
        .unwrap();
    let session = hooks.session("required");
    let refused = error(session.command("/extensions disable command-guard"));
    assert!(
        refused.starts_with("extension `command-guard` cannot be disabled: the agent requires it"),
        "{refused}"
    );
    assert!(hooks.extension("command-guard").unwrap().is_enabled());
    let refused = error(session.command("/hooks disable command-guard"));
    assert!(refused.contains("cannot be disabled"), "{refused}");
}

#[test]
fn the_built_in_commands_are_extensions_that_can_be_switched_off() {
    let hooks = hooks();
    let session = hooks.session("builtins-off");
    assert_eq!(
        ok(session.command("/hooks disable hookchain-extensions")),
        "extension `hookchain-extensions` disabled (0 hooks, 0 tools, command /extensions): \
         its hooks do not run and its commands are off until it is enabled again"
    );
    assert!(error(session.command("/extensions")).contains("/extensions is off"));
    let names: Vec<String> = session.commands().into_iter().map(|c| c.name).collect();
    assert!(!names.contains(&"extensions".to_owned()), "{names:?}");
    let _ = ok(session.command("/hooks enable hookchain-extensions"));
    assert!(
        hooks
            .extension(EXTENSIONS_COMMAND_EXTENSION)
            .unwrap()
            .is_enabled()
    );
    assert!(!ok(session.command("/extensions")).is_empty());
}

#[test]
fn hooks_list_status_switch_and_doctor() {
    let hooks = hooks();
    let session = hooks.session("hooks-cmd");
    let list = ok(session.command("/hooks"));
    assert_eq!(list, hooks.describe().to_string());
    assert!(list.contains("command_guard"), "{list}");

    let status = ok(session.command("/hooks status"));
    assert!(status.contains("extensions: 5 on, 0 off"), "{status}");
    assert!(status.contains("no problems found"), "{status}");

    // A hook's name switches its extension, and says so.
    let switched = ok(session.command("/hooks disable commands::command_guard"));
    assert!(
        switched.starts_with(
            "hook `commands::command_guard` belongs to extension `command-guard`, and hooks are \
             switched by extension: extension `command-guard` disabled"
        ),
        "{switched}"
    );
    // The guard is off: a password goes through.
    assert_eq!(
        ok(session.command("/notes add password")),
        "noted (1 in all)"
    );
    let status = ok(session.command("/hooks status"));
    assert!(
        status.contains("1 off: command-guard (off (disabled by the agent's code))"),
        "{status}"
    );
    let doctor = ok(session.command("/hooks doctor"));
    assert!(
        doctor.contains(
            "extension `command-guard` (1 hook(s)) is disabled by the agent's code: its hooks do \
             not run"
        ),
        "{doctor}"
    );
    let _ = ok(session.command("/hooks enable command-guard"));
    assert!(error(session.command("/notes add password")).contains("blocked"));
    let unknown = error(session.command("/hooks disable nothing-here"));
    assert!(
        unknown.starts_with("no extension is named `nothing-here`"),
        "{unknown}"
    );
    let sub = error(session.command("/hooks stauts"));
    assert!(sub.contains("did you mean `status`?"), "{sub}");
}

#[test]
fn the_global_registry_has_the_built_in_commands_and_the_collected_ones() {
    let names: Vec<String> = Hooks::global()
        .commands()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["boom", "extensions", "hooks", "later", "notes"]);
}
