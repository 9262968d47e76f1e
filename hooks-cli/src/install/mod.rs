//! `hookchain install --agent NAME [--scope user|project] [--dry-run]` and
//! `hookchain uninstall --agent NAME [--scope …] [--dry-run]`: hookchain as the hook of Claude
//! Code, Codex, Gemini CLI, Cursor and Copilot, and what `doctor` says about it.
//!
//! What it owns: the entries in each agent's own hook file that run
//! `PROGRAM hook --agent NAME`, one per event of the agent that maps to a hookchain point
//! ([`agents`] lists them, and where each agent keeps its file).
//!
//! Rules it keeps:
//! - **The command line.** `PROGRAM` is the absolute path of the running binary
//!   (`std::env::current_exe`), quoted for the shell when it must be: the agent runs hooks
//!   with its own `PATH`, and the path says which hookchain runs. Copilot's entry has the
//!   same line under `bash` and a PowerShell form under `powershell`.
//! - **Recognised by the command line.** An entry is hookchain's when its line ends with
//!   `hook --agent NAME` (in Claude Code, Codex and Gemini CLI: a matcher group whose only
//!   handler runs such a line). `uninstall` removes those entries and nothing else; `install`
//!   brings them up to date (a line naming another binary is rewritten in place, a second
//!   entry on one event is removed, an event no longer taken loses its entry).
//! - **Idempotent.** A file that already has the current entry for every event is left alone,
//!   and the command says so.
//! - **Minimal edits.** The file is edited as text ([`json_text`]): entries are appended to an
//!   event's array, an event missing from `hooks` is added as its last key, `hooks` missing
//!   from the file is added as its last key; every other byte — keys, their order, comments,
//!   indentation — stays. Removing the entries gives back the file as it was, byte for byte:
//!   an event key left empty by `uninstall` is removed, and `hooks` too once it is empty
//!   (both are what `install` adds when they are missing; an empty `hooks` object or event
//!   array the file had before `install` is removed with them), and a file that holds nothing
//!   but what `install` creates is deleted.
//! - **Line ends.** New lines end as the file's do (`\r\n` in a file that has any).
//! - **Nothing written on an error.** A file that does not parse, or whose `hooks` (or an
//!   event's value) has the wrong JSON type, is an error naming the file and line.
//! - **Shows the change.** The lines removed (`-`) and added (`+`) are printed under the
//!   file's name; `--dry-run` prints them and writes nothing.
//! - **Written in place.** The file is written where it is (a symlinked settings file keeps
//!   its link and its target is changed), its directory created when missing.
//! - In a program that mounts this command line (`run_with`), PROGRAM is that program's
//!   binary: it must answer `hook --agent NAME` as its first arguments for the entries to run.
//! - `--scope user` (the default) writes the user's file: the binary's path belongs to this
//!   machine, not to a project's repository; `--scope project` writes the current directory's.

pub(crate) mod agents;
mod diff;
pub(crate) mod json_text;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::args::InstallArgs;
use crate::outcome::{EXIT_OK, Failure, Io};
use crate::sources::home_dir;
use agents::{ALL, Command, Scope, Spec};
use json_text::{Node, SyntaxError, append_item, indent_unit, insert_member, parse, remove_child};

/// The most edits one file takes: more means the file changes under the edit loop's feet.
const MAX_EDITS: usize = 512;

/// `hookchain install`.
pub(crate) fn install(args: &InstallArgs, io: &mut Io<'_>) -> Result<i32, Failure> {
    change(args, io, Action::Install)
}

/// `hookchain uninstall`.
pub(crate) fn uninstall(args: &InstallArgs, io: &mut Io<'_>) -> Result<i32, Failure> {
    change(args, io, Action::Uninstall)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Install,
    Uninstall,
}

fn change(args: &InstallArgs, io: &mut Io<'_>, action: Action) -> Result<i32, Failure> {
    let spec = args.agent.spec();
    let file = file_of(spec, args.scope)?;
    let command = current_command(spec)?;
    let before = read(&file)?;
    let after = match action {
        Action::Install => installed(spec, &file, before.as_deref(), &command)?,
        Action::Uninstall => uninstalled(spec, &file, before.as_deref())?,
    };
    let mut text = String::new();
    let display = file.display();
    match (&before, &after) {
        (old, new) if old == new => {
            let _ = writeln!(
                text,
                "{display}: {}; nothing to change",
                match action {
                    Action::Install => "hookchain is already installed, current",
                    Action::Uninstall => "no entry of hookchain",
                }
            );
        }
        _ => {
            let old = before.as_deref().unwrap_or_default();
            let new = after.as_deref().unwrap_or_default();
            let lines = diff::lines(old, new);
            // As diff names a file that is not there on one side.
            let side = |exists: bool| {
                if exists {
                    display.to_string()
                } else {
                    "/dev/null".to_string()
                }
            };
            let _ = writeln!(text, "--- {}", side(before.is_some()));
            let _ = writeln!(text, "+++ {}", side(after.is_some()));
            text.push_str(&lines);
            let added = lines.lines().filter(|l| l.starts_with('+')).count();
            let removed = lines.lines().filter(|l| l.starts_with('-')).count();
            let what = match (&before, &after) {
                (None, _) => "created",
                (_, None) => "removed (nothing else was in it)",
                _ => "changed",
            };
            let what = format!("{what}: {added} line(s) added, {removed} removed");
            if args.dry_run {
                let _ = writeln!(
                    text,
                    "{display}: would be {what}; --dry-run: nothing written"
                );
            } else {
                write(&file, after.as_deref())?;
                let _ = writeln!(text, "{display}: {what}");
            }
            if action == Action::Install
                && let Some(note) = spec.note
            {
                let _ = writeln!(text, "note: {note}");
            }
        }
    }
    io.out.write_all(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// The agent's file of `scope`.
fn file_of(spec: &Spec, scope: Scope) -> Result<PathBuf, Failure> {
    let project = std::env::current_dir()
        .map_err(|e| Failure(format!("cannot read the current directory: {e}")))?;
    let home = home_dir().ok_or_else(|| {
        Failure("HOME is not set: set it, or use --scope project for this project's file".into())
    })?;
    Ok(spec.file(scope, &project, &home))
}

/// The command line this binary installs for `spec`'s agent.
fn current_command(spec: &Spec) -> Result<Command, Failure> {
    let program = std::env::current_exe().map_err(|e| {
        Failure(format!(
            "cannot find the path of the running hookchain: {e}"
        ))
    })?;
    Ok(Command::new(&program, spec.name))
}

/// The file's text, `None` when it does not exist.
fn read(file: &Path) -> Result<Option<String>, Failure> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Failure(format!("cannot read {}: {e}", file.display()))),
    }
}

/// Writes `text` to `file` (creating its directory), or removes the file when `None`.
fn write(file: &Path, text: Option<&str>) -> Result<(), Failure> {
    let result = match text {
        Some(text) => file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(file, text)),
        None => std::fs::remove_file(file),
    };
    result.map_err(|e| Failure(format!("cannot write {}: {e}", file.display())))
}

/// `text` parsed, or the error naming `file` and the line.
fn parse_file(file: &Path, text: &str) -> Result<Node, Failure> {
    parse(text).map_err(
        |SyntaxError {
             line,
             column,
             message,
         }| {
            Failure(format!(
                "{} line {line} column {column}: {message}; fix the file (nothing was written)",
                file.display()
            ))
        },
    )
}

/// The line of byte `pos`.
fn line_of(text: &str, pos: usize) -> usize {
    text[..pos].matches('\n').count() + 1
}

/// The root object and its `hooks` object (if any), or an error naming the wrong type.
fn hooks_of<'n>(file: &Path, text: &str, root: &'n Node) -> Result<Option<&'n Node>, Failure> {
    if root.members().is_none() {
        return Err(Failure(format!(
            "{}: the file is not a JSON object; fix the file (nothing was written)",
            file.display()
        )));
    }
    match root.get("hooks") {
        None => Ok(None),
        Some(member) if member.value.members().is_some() => Ok(Some(&member.value)),
        Some(member) => Err(Failure(format!(
            "{} line {}: `hooks` is not an object; fix the file (nothing was written)",
            file.display(),
            line_of(text, member.start)
        ))),
    }
}

/// The array of the event `member`, or an error naming the wrong type.
fn event_items<'n>(
    file: &Path,
    text: &str,
    member: &'n json_text::Member,
) -> Result<&'n [Node], Failure> {
    member.value.items().ok_or_else(|| {
        Failure(format!(
            "{} line {}: the event `{}` is not an array; fix the file (nothing was written)",
            file.display(),
            line_of(text, member.start),
            member.key
        ))
    })
}

/// The text with hookchain's entries current for every event of `spec`.
fn installed(
    spec: &Spec,
    file: &Path,
    before: Option<&str>,
    command: &Command,
) -> Result<Option<String>, Failure> {
    let mut text = before.unwrap_or(spec.new_file).to_string();
    for _ in 0..MAX_EDITS {
        let root = parse_file(file, &text)?;
        match next_install_edit(spec, file, &text, &root, command)? {
            Some(mut edit) => {
                // A file with Windows line ends gets them in the new lines too.
                if text.contains("\r\n") {
                    edit.text = edit.text.replace('\n', "\r\n");
                }
                text = edit.apply(&text);
            }
            None => return Ok(Some(text)),
        }
    }
    Err(Failure(format!(
        "{}: more than {MAX_EDITS} edits needed; nothing was written",
        file.display()
    )))
}

fn next_install_edit(
    spec: &Spec,
    file: &Path,
    text: &str,
    root: &Node,
    command: &Command,
) -> Result<Option<json_text::Edit>, Failure> {
    let unit = indent_unit(text, root);
    let entry = spec.entry(command, &unit);
    let Some(hooks) = hooks_of(file, text, root)? else {
        let mut all = String::from("{");
        for (i, (event, _)) in spec.events.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            let array = format!("[\n{unit}{}\n]", entry.replace('\n', &format!("\n{unit}")));
            let value = array.replace('\n', &format!("\n{unit}"));
            let _ = write!(all, "{sep}\n{unit}\"{event}\": {value}");
        }
        all.push_str("\n}");
        return Ok(Some(insert_member(text, root, "hooks", &all, &unit)));
    };
    for (event, _) in spec.events {
        let Some(member) = hooks.get(event) else {
            let array = format!("[\n{unit}{}\n]", entry.replace('\n', &format!("\n{unit}")));
            return Ok(Some(insert_member(text, hooks, event, &array, &unit)));
        };
        let items = event_items(file, text, member)?;
        let ours: Vec<(usize, agents::Recognised)> = items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| spec.recognise(item).map(|r| (i, r)))
            .collect();
        match ours.as_slice() {
            [] => return Ok(Some(append_item(text, &member.value, &entry, &unit))),
            [(i, found), ..] if !found.is(command) => {
                // Another binary's line: the entry is written anew in its place.
                let item = &items[*i];
                return Ok(Some(json_text::Edit {
                    range: item.span.clone(),
                    text: entry.replace('\n', &format!("\n{}", item_indent(text, item.span.start))),
                }));
            }
            [_, (second, _), ..] => return Ok(Some(remove_child(text, &member.value, *second))),
            [_] => {}
        }
    }
    stale_entry_edit(spec, text, hooks)
}

/// The indentation of the line an item starts on.
fn item_indent(text: &str, pos: usize) -> String {
    let line_start = text[..pos].rfind('\n').map_or(0, |n| n + 1);
    text[line_start..pos]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The removal of one of hookchain's entries on an event `spec` no longer takes.
fn stale_entry_edit(
    spec: &Spec,
    text: &str,
    hooks: &Node,
) -> Result<Option<json_text::Edit>, Failure> {
    for member in hooks.members().unwrap_or_default() {
        if spec.events.iter().any(|(event, _)| *event == member.key) {
            continue;
        }
        if let Some(edit) = removal_in_event(spec, text, hooks, member) {
            return Ok(Some(edit));
        }
    }
    Ok(None)
}

/// The removal of one of hookchain's entries in the event `member` of `hooks`: the whole
/// event when nothing else is in it.
fn removal_in_event(
    spec: &Spec,
    text: &str,
    hooks: &Node,
    member: &json_text::Member,
) -> Option<json_text::Edit> {
    // Not an array: not an event hookchain could have written; left as it is.
    let items = member.value.items()?;
    let ours: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| spec.recognise(item).is_some())
        .map(|(i, _)| i)
        .collect();
    if ours.is_empty() {
        return None;
    }
    if ours.len() == items.len() {
        let index = hooks
            .members()
            .unwrap_or_default()
            .iter()
            .position(|m| std::ptr::eq(m, member))
            .unwrap_or_default();
        return Some(remove_child(text, hooks, index));
    }
    Some(remove_child(text, &member.value, ours[0]))
}

/// The text without hookchain's entries; `None` when nothing else would be left in the file.
fn uninstalled(spec: &Spec, file: &Path, before: Option<&str>) -> Result<Option<String>, Failure> {
    let Some(before) = before else {
        return Ok(None);
    };
    let mut text = before.to_string();
    let mut removed = false;
    for _ in 0..MAX_EDITS {
        let root = parse_file(file, &text)?;
        let Some(hooks) = hooks_of(file, &text, &root)? else {
            break;
        };
        let mut edit = None;
        for member in hooks.members().unwrap_or_default() {
            if let Some(found) = removal_in_event(spec, &text, hooks, member) {
                edit = Some(found);
                break;
            }
        }
        if edit.is_none() && removed && hooks.members().is_some_and(<[_]>::is_empty) {
            let index = root
                .members()
                .unwrap_or_default()
                .iter()
                .position(|m| m.key == "hooks")
                .unwrap_or_default();
            edit = Some(remove_child(&text, &root, index));
        }
        match edit {
            Some(edit) => {
                text = edit.apply(&text);
                removed = true;
            }
            None => break,
        }
    }
    if removed && text == spec.new_file {
        return Ok(None);
    }
    Ok(Some(text))
}

/// Whether hookchain is installed in one agent's file, as `doctor` reports it.
pub(crate) enum Status {
    /// The file does not exist or has no entry of hookchain.
    Absent,
    /// Every event has exactly the current entry.
    Current { events: usize },
    /// Every event has one entry, and they run another hookchain binary (a release
    /// installed by the user while a build of the sources runs `doctor`, or the binary moved):
    /// a note, not a problem.
    Elsewhere { line: String, events: usize },
    /// Some entry is missing or extra, or an event no longer taken has one.
    Outdated { why: String },
    /// The file cannot be read as the agent's hook file.
    Unreadable { error: String },
}

/// The state of hookchain's entries in `spec`'s file of `scope`.
pub(crate) fn status(spec: &Spec, scope: Scope) -> (PathBuf, Status) {
    let file = match file_of(spec, scope) {
        Ok(file) => file,
        Err(Failure(error)) => return (PathBuf::new(), Status::Unreadable { error }),
    };
    let status = match (read(&file), current_command(spec)) {
        (Err(Failure(error)), _) | (_, Err(Failure(error))) => Status::Unreadable { error },
        (Ok(None), _) => Status::Absent,
        (Ok(Some(text)), Ok(command)) => status_of(spec, &file, &text, &command),
    };
    (file, status)
}

fn status_of(spec: &Spec, file: &Path, text: &str, command: &Command) -> Status {
    let root = match parse_file(file, text) {
        Ok(root) => root,
        Err(Failure(error)) => return Status::Unreadable { error },
    };
    let hooks = match hooks_of(file, text, &root) {
        Ok(Some(hooks)) => hooks,
        Ok(None) => return Status::Absent,
        Err(Failure(error)) => return Status::Unreadable { error },
    };
    let mut found = 0usize;
    let mut missing = Vec::new();
    let mut other = Vec::new();
    let mut elsewhere: Option<String> = None;
    for member in hooks.members().unwrap_or_default() {
        let Some(items) = member.value.items() else {
            continue;
        };
        let ours: Vec<agents::Recognised> =
            items.iter().filter_map(|i| spec.recognise(i)).collect();
        found += ours.len();
        let taken = spec.events.iter().any(|(e, _)| *e == member.key);
        match ours.as_slice() {
            [] => {}
            [one] if taken && one.is(command) => {}
            [one] if taken => {
                elsewhere.get_or_insert_with(|| one.line.clone());
            }
            _ => other.push(member.key.clone()),
        }
    }
    if found == 0 {
        return Status::Absent;
    }
    for (event, _) in spec.events {
        let present = hooks
            .get(event)
            .and_then(|m| m.value.items())
            .is_some_and(|items| items.iter().any(|i| spec.recognise(i).is_some()));
        if !present {
            missing.push(*event);
        }
    }
    if missing.is_empty() && other.is_empty() {
        let events = spec.events.len();
        return match elsewhere {
            None => Status::Current { events },
            Some(line) => Status::Elsewhere { line, events },
        };
    }
    if let Some(line) = elsewhere {
        other.push(format!("(entries that run `{line}`)"));
    }
    let mut why = Vec::new();
    if !missing.is_empty() {
        why.push(format!("no entry on {}", missing.join(", ")));
    }
    if !other.is_empty() {
        why.push(format!(
            "a second entry, an event no longer taken or another command line on {}",
            other.join(", ")
        ));
    }
    Status::Outdated {
        why: why.join("; "),
    }
}

/// `doctor`'s lines about every agent: one line per agent and scope where something is
/// installed or wrong, one line per agent where nothing is. Returns the text and how many
/// problems it holds: an entry missing or extra is one; entries that run another hookchain
/// binary and a file that cannot be read are notes (the user's agents are not this build's
/// to judge, and a file of theirs that does not parse is the agent's to report).
pub(crate) fn doctor_lines() -> (String, usize) {
    let mut text = String::from("hookchain as the hook of other agents:\n");
    let mut problems = 0;
    for spec in ALL {
        let mut quiet = Vec::new();
        for scope in [Scope::User, Scope::Project] {
            let (file, status) = status(spec, scope);
            let where_ = format!("{} {} ({})", spec.name, scope.name(), file.display());
            match status {
                Status::Absent => quiet.push(scope.name()),
                Status::Current { events } => {
                    let _ = writeln!(
                        text,
                        "  ok      {where_}: installed, current ({events} events)"
                    );
                }
                Status::Elsewhere { line, events } => {
                    let _ = writeln!(
                        text,
                        "  note    {where_}: installed ({events} events), runs `{line}`, not this \
                         binary: `hookchain install --agent {} --scope {}` points it here",
                        spec.name,
                        scope.name()
                    );
                }
                Status::Outdated { why } => {
                    problems += 1;
                    let _ = writeln!(
                        text,
                        "  problem {where_}: installed, not current ({why}): `hookchain install \
                         --agent {} --scope {}` brings it up to date",
                        spec.name,
                        scope.name()
                    );
                }
                Status::Unreadable { error } => {
                    let _ = writeln!(text, "  note    {where_}: cannot tell: {error}");
                }
            }
        }
        if !quiet.is_empty() {
            let _ = writeln!(
                text,
                "  -       {}: not installed ({}): `hookchain install --agent {}` installs it",
                spec.name,
                quiet.join(", "),
                spec.name
            );
        }
    }
    (text, problems)
}
