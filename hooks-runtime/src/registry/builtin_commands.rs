//! The built-in slash commands, `/hooks` and `/extensions`: what a chat user sees of the
//! registry, in plain text, with no model involved.
//!
//! # What it owns
//!
//! - `/hooks` (extension `hookchain-hooks`): `list` (the default: every hook, as
//!   [`Hooks::describe`] lists them), `status` (counts, what is off, what is wrong), `enable
//!   NAME`, `disable NAME` (NAME is an extension, or a hook whose extension is meant: hooks are
//!   switched by extension), `doctor` (what does not run, and why).
//! - `/extensions` (extension `hookchain-extensions`): `list` (the default: each extension's
//!   name, version, on or off, and what it contributes: hooks, tools, commands), `enable NAME`,
//!   `disable NAME`, `info NAME`.
//!
//! # The rules it keeps
//!
//! - The wording is that of `hookchain list` and `hookchain doctor`: "extension `x` (N hook(s))
//!   is disabled by WHO: its hooks do not run", "disabled by default", "required".
//! - `disable` refuses an extension that is required (`HooksBuilder::require_extension`) or has
//!   a required hook, with the reason: switching it off would block its points, not skip them.
//! - A switch is [`Hooks::enable_extension`] / [`Hooks::disable_extension`]: every session of
//!   the registry sees it from its next dispatch, and listings say "disabled by the agent's
//!   code". It lasts as long as the registry; a config file says what the next start does.
//! - A wrong subcommand or name is an error reply with a "did you mean" and the usage.
//! - Each command is an extension of its own: switching `hookchain-extensions` off hides
//!   `/extensions`; `/hooks enable hookchain-extensions` (or the agent's code) switches it back.

use std::fmt::Write as _;

use hookchain_core::__private::CommandReturn;
use hookchain_core::Extension;

use super::commands::{BuiltinCommand, EXTENSIONS_COMMAND_EXTENSION, HOOKS_COMMAND_EXTENSION};
use super::error::ExtensionError;
use super::hooks::Hooks;

/// A built-in command.
pub(super) struct Builtin {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) extension: &'static str,
    pub(super) file: &'static str,
    pub(super) line: u32,
    pub(super) run: BuiltinCommand,
}

/// The built-in commands.
pub(super) const BUILTIN: &[Builtin] = &[
    Builtin {
        name: "hooks",
        description: "The agent's hooks: list, status, enable NAME, disable NAME, doctor",
        extension: HOOKS_COMMAND_EXTENSION,
        file: file!(),
        line: line!(),
        run: hooks_command,
    },
    Builtin {
        name: "extensions",
        description: "The agent's extensions: list, enable NAME, disable NAME, info NAME",
        extension: EXTENSIONS_COMMAND_EXTENSION,
        file: file!(),
        line: line!(),
        run: extensions_command,
    },
];

const HOOKS_USAGE: &str = "usage: /hooks [list | status | enable NAME | disable NAME | doctor]";
const EXTENSIONS_USAGE: &str = "usage: /extensions [list | enable NAME | disable NAME | info NAME]";

/// What an extension declares beyond its name, switch, hooks and commands: its version, its
/// description and its tools, as `/extensions` shows them; this is the one function that reads
/// them for the built-in commands.
fn declared(extension: &Extension) -> Declared {
    Declared {
        version: extension.version().map(str::to_owned),
        description: extension.description().map(str::to_owned),
        tools: extension.tools(),
    }
}

/// See [`declared`].
struct Declared {
    version: Option<String>,
    description: Option<String>,
    tools: Vec<String>,
}

/// `/hooks ...`.
fn hooks_command(hooks: &Hooks, args: &str) -> CommandReturn {
    let (sub, name) = split(args);
    match sub {
        "" | "list" => no_name(sub, name, HOOKS_USAGE).map(|()| hooks.describe().to_string()),
        "status" => no_name(sub, name, HOOKS_USAGE).map(|()| status(hooks)),
        "doctor" => no_name(sub, name, HOOKS_USAGE).map(|()| doctor(hooks)),
        "enable" | "disable" => {
            let name = needs_name(sub, name, "/hooks", HOOKS_USAGE)?;
            let (extension, note) = match hooks.extension(name) {
                Some(_) => (name.to_owned(), String::new()),
                None => match hooks.hooks().iter().find(|h| *h.name == *name) {
                    Some(hook) => (
                        hook.extension.to_string(),
                        format!(
                            "hook `{name}` belongs to extension `{}`, and hooks are switched by \
                             extension: ",
                            hook.extension
                        ),
                    ),
                    None => (name.to_owned(), String::new()),
                },
            };
            switch(hooks, &extension, sub == "enable").map(|text| format!("{note}{text}"))
        }
        other => Err(unknown_sub(
            other,
            &["list", "status", "enable", "disable", "doctor"],
            HOOKS_USAGE,
        )),
    }
}

/// `/extensions ...`.
fn extensions_command(hooks: &Hooks, args: &str) -> CommandReturn {
    let (sub, name) = split(args);
    match sub {
        "" | "list" => no_name(sub, name, EXTENSIONS_USAGE).map(|()| list_extensions(hooks)),
        "enable" | "disable" => {
            let name = needs_name(sub, name, "/extensions", EXTENSIONS_USAGE)?;
            switch(hooks, name, sub == "enable")
        }
        "info" => {
            let name = needs_name(sub, name, "/extensions", EXTENSIONS_USAGE)?;
            info(hooks, name)
        }
        other => Err(unknown_sub(
            other,
            &["list", "enable", "disable", "info"],
            EXTENSIONS_USAGE,
        )),
    }
}

/// The subcommand and the rest.
fn split(args: &str) -> (&str, &str) {
    let args = args.trim();
    match args.split_once(char::is_whitespace) {
        Some((sub, rest)) => (sub, rest.trim()),
        None => (args, ""),
    }
}

fn no_name(sub: &str, extra: &str, usage: &str) -> Result<(), String> {
    if extra.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "`{}` takes no name (got `{extra}`); {usage}",
            if sub.is_empty() { "list" } else { sub }
        ))
    }
}

fn needs_name<'a>(sub: &str, name: &'a str, command: &str, usage: &str) -> Result<&'a str, String> {
    if name.is_empty() {
        Err(format!(
            "`{command} {sub}` needs the extension's name, as in `{command} {sub} \
             workflow-guard`; {usage}"
        ))
    } else if name.contains(char::is_whitespace) {
        Err(format!(
            "`{command} {sub}` takes one name, not `{name}`; {usage}"
        ))
    } else {
        Ok(name)
    }
}

fn unknown_sub(sub: &str, known: &[&str], usage: &str) -> String {
    match hookchain_core::suggest::closest(sub, known.iter().copied()) {
        Some(s) => format!("no subcommand `{sub}`, did you mean `{s}`? {usage}"),
        None => format!("no subcommand `{sub}`; {usage}"),
    }
}

/// Enables or disables extension `name`, unless it must stay on.
fn switch(hooks: &Hooks, name: &str, enable: bool) -> CommandReturn {
    let extension = hooks
        .extension(name)
        .ok_or_else(|| unknown_extension(hooks, name))?;
    let was = extension.is_enabled();
    if !enable && let Some(why) = required(hooks, name) {
        return Err(format!(
            "extension `{name}` cannot be disabled: {why}; a required hook that does not run \
             blocks its point instead of being skipped"
        ));
    }
    let result = if enable {
        hooks.enable_extension(name)
    } else {
        hooks.disable_extension(name)
    };
    result.map_err(|e| e.to_string())?;
    let contributes = contributions(extension);
    Ok(match (was, enable) {
        (true, true) => format!("extension `{name}` is already enabled ({contributes})"),
        (false, false) => format!("extension `{name}` is already disabled ({contributes})"),
        (false, true) => format!("extension `{name}` enabled ({contributes})"),
        (true, false) => format!(
            "extension `{name}` disabled ({contributes}): its hooks do not run and its commands \
             are off until it is enabled again"
        ),
    })
}

/// "no extension is named `x`", with the closest name or the list, as
/// [`Hooks::enable_extension`] says it.
fn unknown_extension(hooks: &Hooks, name: &str) -> String {
    let known: Vec<String> = hooks.extensions().map(|e| e.name().to_owned()).collect();
    ExtensionError::Unknown {
        name: name.to_owned(),
        suggestion: hookchain_core::suggest::closest(name, known.iter().map(String::as_str))
            .map(str::to_owned),
        known,
    }
    .to_string()
}

/// Why extension `name` must stay on, if it must.
fn required(hooks: &Hooks, name: &str) -> Option<String> {
    if hooks.inner.required.extensions.iter().any(|e| e == name) {
        return Some("the agent requires it".to_owned());
    }
    let hook = hooks
        .hooks()
        .iter()
        .find(|h| *h.extension == *name && h.required)?;
    Some(format!(
        "its hook `{}` on `{}` is required",
        hook.name, hook.point
    ))
}

/// `2 hooks, 1 tool, commands /notes`.
fn contributions(extension: &Extension) -> String {
    let plural = |n: usize, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let tools = declared(extension).tools;
    let commands = extension.commands();
    let mut parts = vec![
        plural(extension.hook_count(), "hook", "hooks"),
        plural(tools.len(), "tool", "tools"),
    ];
    if !tools.is_empty() {
        parts[1] = format!("{} ({})", parts[1], tools.join(", "));
    }
    parts.push(match commands.len() {
        0 => "no commands".to_owned(),
        _ => format!(
            "{} {}",
            if commands.len() == 1 {
                "command"
            } else {
                "commands"
            },
            commands
                .iter()
                .map(|c| format!("/{c}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    });
    parts.join(", ")
}

/// `on`, `on (enabled by ./hookchain.yaml:3)`, `off (disabled by the agent's code)`, `off
/// (disabled by default)`.
fn state(extension: &Extension) -> String {
    if extension.is_enabled() {
        match extension.enabled_by() {
            Some(who) => format!("on (enabled by {who})"),
            None => "on".to_owned(),
        }
    } else {
        format!("off ({})", off(extension))
    }
}

/// `disabled by the agent's code`, `disabled by default`, as `hookchain list` words it.
fn off(extension: &Extension) -> String {
    match extension.disabled_by() {
        Some(who) if &*who == hookchain_core::DISABLED_BY_DEFAULT => {
            "disabled by default".to_owned()
        }
        Some(who) => format!("disabled by {who}"),
        None => "disabled".to_owned(),
    }
}

fn list_extensions(hooks: &Hooks) -> String {
    let mut out = String::new();
    let count = hooks.extensions().len();
    let _ = writeln!(
        out,
        "{count} extension(s); `/extensions info NAME` for one, `/extensions enable|disable \
         NAME` to switch one (until the agent restarts; a config file's `extensions:` section \
         decides at start)"
    );
    for extension in hooks.extensions() {
        let version = declared(extension)
            .version
            .map_or_else(|| "-".to_owned(), |v| format!("v{v}"));
        let _ = writeln!(
            out,
            "{} {version} {}: {}",
            extension.name(),
            state(extension),
            contributions(extension)
        );
    }
    out
}

fn info(hooks: &Hooks, name: &str) -> CommandReturn {
    let Some(extension) = hooks.extension(name) else {
        return Err(unknown_extension(hooks, name));
    };
    let declared = declared(extension);
    let mut out = String::new();
    let _ = writeln!(out, "extension `{name}`: {}", state(extension));
    if let Some(version) = &declared.version {
        let _ = writeln!(out, "version: {version}");
    }
    if let Some(description) = &declared.description {
        let _ = writeln!(out, "description: {description}");
    }
    if let Some(why) = required(hooks, name) {
        let _ = writeln!(out, "required: {why}");
    }
    let own: Vec<_> = hooks
        .hooks()
        .iter()
        .filter(|h| *h.extension == *name)
        .collect();
    let _ = writeln!(out, "hooks: {}", own.len());
    for hook in own {
        let _ = writeln!(
            out,
            "  {} on `{}` (priority {}, {})",
            hook.name,
            hook.point,
            hook.priority,
            hook.location()
        );
    }
    let _ = writeln!(out, "tools: {}", declared.tools.len());
    for tool in &declared.tools {
        let _ = writeln!(out, "  {tool}");
    }
    let commands: Vec<_> = hooks
        .commands()
        .into_iter()
        .filter(|c| c.extension == name)
        .collect();
    let _ = writeln!(out, "commands: {}", commands.len());
    for command in commands {
        let _ = writeln!(out, "  {command}");
    }
    let section = extension.section();
    let _ = writeln!(
        out,
        "config: {}",
        if section.is_absent() {
            "no section".to_owned()
        } else {
            let keys: Vec<&str> = section.values().keys().map(String::as_str).collect();
            format!(
                "a section with {}",
                if keys.is_empty() {
                    "no keys".to_owned()
                } else {
                    keys.join(", ")
                }
            )
        }
    );
    Ok(out)
}

fn status(hooks: &Hooks) -> String {
    let mut out = String::new();
    let description = hooks.describe().to_string();
    let _ = writeln!(out, "{}", description.lines().next().unwrap_or_default());
    let (on, off): (Vec<&Extension>, Vec<&Extension>) =
        hooks.extensions().partition(|e| e.is_enabled());
    let _ = write!(out, "extensions: {} on, {} off", on.len(), off.len());
    if !off.is_empty() {
        let names: Vec<String> = off
            .iter()
            .map(|e| format!("{} ({})", e.name(), state(e)))
            .collect();
        let _ = write!(out, ": {}", names.join(", "));
    }
    let _ = writeln!(out);
    let required = hooks.hooks().iter().filter(|h| h.required).count();
    let _ = writeln!(out, "required hooks: {required}");
    let enabled_commands = hooks.commands().iter().filter(|c| c.enabled).count();
    let _ = writeln!(out, "commands: {enabled_commands} on");
    let problems = problems(hooks);
    match problems.len() {
        0 => {
            let _ = writeln!(out, "no problems found");
        }
        n => {
            let _ = writeln!(out, "{n} problem(s): `/hooks doctor` says which");
        }
    }
    out
}

/// What does not run or is wrong: required hooks of a disabled extension (their points
/// block), the registry's warnings and errors (hooks that could not be loaded or approved,
/// config left out), and what a project's file was refused.
fn problems(hooks: &Hooks) -> Vec<String> {
    let mut problems = Vec::new();
    for hook in hooks.hooks().iter().filter(|h| h.required) {
        if let Some(extension) = hooks.extension(&hook.extension)
            && !extension.is_enabled()
        {
            problems.push(format!(
                "required hook `{}` ({}) does not run: its extension `{}` is {}; `{}` is \
                 blocked until the extension is enabled again",
                hook.name,
                hook.location(),
                hook.extension,
                off(extension),
                hook.point
            ));
        }
    }
    for notice in hooks.notices() {
        if notice.level != hookchain_core::Level::Info {
            problems.push(notice.message.clone());
        }
    }
    for refusal in hooks.refusals() {
        if !problems.contains(&refusal) {
            problems.push(refusal);
        }
    }
    problems
}

fn doctor(hooks: &Hooks) -> String {
    let mut out = String::new();
    if hooks.is_empty() {
        let _ = writeln!(
            out,
            "no hooks: a #[register_hook] fn in a library crate is collected only if that crate \
             is linked (add `use my_hooks as _;` to the binary)"
        );
    }
    for extension in hooks.extensions().filter(|e| !e.is_enabled()) {
        let _ = writeln!(
            out,
            "extension `{}` ({} hook(s)) is {}: its hooks do not run",
            extension.name(),
            extension.hook_count(),
            off(extension)
        );
    }
    let problems = problems(hooks);
    for problem in &problems {
        let _ = writeln!(out, "problem: {problem}");
    }
    match problems.len() {
        0 => {
            let _ = writeln!(out, "no problems found");
        }
        n => {
            let _ = writeln!(out, "{n} problem(s)");
        }
    }
    out
}
