//! The rules of the commands that destroy data: recursive deletes and recursive `chmod`,
//! `chown`, `chgrp` of a protected directory; formatting and wiping disks; writing onto a
//! device; fork bombs; and the git rules ([`super::branches`]).
//!
//! Options are read as GNU getopt reads them: short flags in clusters and in any order, long
//! options by any unique prefix (`rm --rec` is `--recursive`), `--` ending them.

use hookchain_shell::{Command, Dynamic, Part, Redirect, Word};

use super::paths::{self, Danger};
use super::{Judge, branches, excerpt};

/// The rules of `command`, whose program is `name`.
pub(super) fn command(judge: &Judge, name: &str, command: &Command) -> Option<String> {
    match name {
        "rm" => rm(judge, command, &command.args),
        "chmod" | "chown" | "chgrp" => owner_or_mode(judge, name, command),
        "find" => find(judge, command),
        "rsync" => rsync(judge, command),
        "dd" => dd(judge, command),
        "tee" | "cp" => onto_device(judge, name, command),
        "shred" | "wipefs" | "mkswap" | "mke2fs" | "blkdiscard" | "newfs" => {
            format_disk(judge, command)
        }
        mkfs if mkfs == "mkfs" || mkfs.starts_with("mkfs.") || mkfs.starts_with("newfs_") => {
            format_disk(judge, command)
        }
        "git" => branches::judge(judge, command),
        _ => None,
    }
}

/// A program computed when the line runs: blocked under `strict`; under `block`, judged as if
/// it were `rm` (`$(which rm) -rf /`).
pub(super) fn dynamic_program(judge: &Judge, command: &Command, d: &Dynamic) -> Option<String> {
    if judge.guard.on_unknown == super::OnUnknown::Strict {
        return judge.guard.unknown(|| {
            format!(
                "`{}` runs a program computed when the line runs ({})",
                judge.shown(command),
                d.why
            )
        });
    }
    let why = rm(judge, command, &command.args)?;
    judge.guard.unknown(|| {
        format!(
            "`{}` runs a program computed when the line runs, which may be `rm`: {why}",
            judge.shown(command)
        )
    })
}

/// What a recursive delete (or change) of `target` by `command` means: a reason to block.
pub(super) fn target(
    judge: &Judge,
    command: &Command,
    target: &Word,
    does: &str,
) -> Option<String> {
    part_of_target(judge, command, target, does, true, true)
}

/// What deleting the file `target` by `command` means: a reason to block.
pub(super) fn file_target(
    judge: &Judge,
    command: &Command,
    target: &Word,
    does: &str,
) -> Option<String> {
    part_of_target(judge, command, target, does, true, false)
}

/// As [`target`]; `whole`: the command takes all of what the path names (`false`: a part of
/// what is under it, `find . -name x -delete`); `tree`: recursively (`false`: a file).
fn part_of_target(
    judge: &Judge,
    command: &Command,
    target: &Word,
    does: &str,
    whole: bool,
    tree: bool,
) -> Option<String> {
    let scope = paths::Scope {
        dir: command.dir.as_deref(),
        project: judge.place.project.as_deref(),
        outside_temp: judge.guard.delete_outside_temp && does.starts_with("deletes"),
        whole,
        tree,
    };
    let said = |what: &str| {
        format!(
            "`{}` {does} {what}: that cannot be undone; name what you mean by its own path \
             (e.g. ./build)",
            judge.shown(command)
        )
    };
    match paths::judge(target, &scope)? {
        Danger::Known(what) => Some(said(&what)),
        Danger::Unknown(what) => judge
            .guard
            .unknown(|| said(&format!("what may be {what}, computed when the line runs"))),
    }
}

/// `rm` recursive: each operand.
fn rm(judge: &Judge, command: &Command, args: &[Word]) -> Option<String> {
    const LONG: &[&str] = &[
        "force",
        "interactive",
        "one-file-system",
        "no-preserve-root",
        "preserve-root",
        "recursive",
        "dir",
        "verbose",
        "help",
        "version",
    ];
    let read = read_options(args, LONG, &[]);
    let recursive =
        read.short.iter().any(|c| matches!(c, 'r' | 'R')) || read.long.contains(&"recursive");
    read.operands.iter().find_map(|t| {
        if let Some(start) = found_under(command, t) {
            // `find START … -exec rm {} +`: every file `find` selects, throughout START, as
            // `find START … -delete` deletes them.
            return part_of_target(
                judge,
                command,
                &start,
                "deletes files throughout",
                false,
                true,
            );
        }
        if recursive {
            target(judge, command, t, "deletes")
        } else {
            file_target(judge, command, t, "deletes")
        }
    })
}

/// The start point of the paths `find` feeds `command` (through `-exec … {}`, or through
/// `xargs` reading what `find` prints) when `word` is one of them: the word's known beginning,
/// before the path found under it.
fn found_under(command: &Command, word: &Word) -> Option<Word> {
    if !command
        .wrappers
        .iter()
        .any(|w| matches!(w.rsplit('/').next(), Some("find" | "xargs")))
    {
        return None;
    }
    let Word::Dynamic(fed) = word else {
        return None;
    };
    let (Part::Unknown { name: None, .. }, start) = fed.parts.split_last()? else {
        return None;
    };
    match start {
        [] => None,
        [Part::Text(text)] => Some(Word::Static(text.clone())),
        _ => Some(Word::Dynamic(Dynamic {
            parts: start.to_vec(),
            ..fed.clone()
        })),
    }
}

/// `chmod -R`, `chown -R`, `chgrp -R`: each operand after the mode or owner.
fn owner_or_mode(judge: &Judge, name: &str, command: &Command) -> Option<String> {
    const LONG: &[&str] = &[
        "changes",
        "silent",
        "quiet",
        "verbose",
        "no-preserve-root",
        "preserve-root",
        "reference",
        "recursive",
        "dereference",
        "no-dereference",
        "from",
        "help",
        "version",
    ];
    let read = read_options(&command.args, LONG, &["from"]);
    let recursive = read.short.contains(&'R') || read.long.contains(&"recursive");
    if !recursive {
        return None;
    }
    let skip = usize::from(!read.long.contains(&"reference"));
    let does = match name {
        "chmod" => "changes the permissions of",
        _ => "changes the owner of",
    };
    read.operands
        .iter()
        .skip(skip)
        .find_map(|t| target(judge, command, t, does))
}

/// `find START… -delete`: each start point. (`-exec rm -rf {}` is an `rm` of its own.)
fn find(judge: &Judge, command: &Command) -> Option<String> {
    if !command
        .args
        .iter()
        .any(|w| w.as_static() == Some("-delete"))
    {
        return None;
    }
    let mut args = command.args.iter().peekable();
    while args
        .next_if(|w| matches!(w.as_static(), Some("-H" | "-L" | "-P")))
        .is_some()
    {}
    let starts: Vec<&Word> = args
        .take_while(|w| {
            !w.as_static()
                .is_some_and(|t| t.starts_with('-') || matches!(t, "(" | "!" | ")"))
        })
        .collect();
    let dot = Word::Static(".".into());
    // A test before `-delete` (`-name`, `-type`, `-mtime`, …) deletes a part of each tree.
    let whole = !command.args.iter().any(|w| {
        w.as_static().is_some_and(|t| {
            t.starts_with('-')
                && !matches!(
                    t,
                    "-delete"
                        | "-depth"
                        | "-d"
                        | "-xdev"
                        | "-mount"
                        | "-H"
                        | "-L"
                        | "-P"
                        | "-mindepth"
                        | "-maxdepth"
                        | "-print"
                        | "-print0"
                        | "-ignore_readdir_race"
                )
        })
    });
    let starts = if starts.is_empty() {
        vec![&dot]
    } else {
        starts
    };
    starts
        .into_iter()
        .find_map(|t| part_of_target(judge, command, t, "deletes files throughout", whole, true))
}

/// `rsync --delete SRC… DEST`: what is in DEST and not in SRC is deleted.
fn rsync(judge: &Judge, command: &Command) -> Option<String> {
    let deletes = command.args.iter().any(|w| {
        w.as_static()
            .is_some_and(|t| t == "--del" || t.starts_with("--delete"))
    });
    if !deletes {
        return None;
    }
    const VALUED: &[char] = &['e', 'f', 'T', 'B', 'M'];
    const LONG_VALUED: &[&str] = &[
        "rsh",
        "exclude",
        "include",
        "filter",
        "exclude-from",
        "include-from",
        "files-from",
        "partial-dir",
        "temp-dir",
        "log-file",
        "chmod",
        "chown",
        "block-size",
        "max-size",
        "min-size",
        "timeout",
        "port",
        "password-file",
        "backup-dir",
        "suffix",
        "compare-dest",
        "copy-dest",
        "link-dest",
        "rsync-path",
        "out-format",
        "info",
        "debug",
        "bwlimit",
        "iconv",
        "remote-option",
    ];
    let mut operands = Vec::new();
    let mut args = command.args.iter();
    while let Some(w) = args.next() {
        match w.as_static() {
            Some(t) if t.starts_with("--") => {
                if !t.contains('=') && LONG_VALUED.contains(&&t[2..]) {
                    args.next();
                }
            }
            Some(t) if t.starts_with('-') && t.len() > 1 => {
                let flags = &t[1..];
                if let Some(k) = flags.find(VALUED)
                    && k + 1 == flags.len()
                {
                    args.next();
                }
            }
            _ => operands.push(w),
        }
    }
    let dest = operands.last().filter(|_| operands.len() > 1)?;
    // `host:path` is a path on the host (its home when empty).
    let dest = match dest.as_static() {
        Some(t) if remote(t).is_some() => {
            let path = remote(t).unwrap_or("");
            Word::Static(if path.is_empty() {
                "~".into()
            } else {
                path.into()
            })
        }
        _ => (*dest).clone(),
    };
    let dest = match &dest {
        Word::Static(s) if s == "~" || s.starts_with("~/") => home_word(&s[1..]),
        _ => dest,
    };
    target(
        judge,
        command,
        &dest,
        "deletes what its source does not hold from",
    )
}

/// The path of `host:path` (not `./a:b`).
fn remote(text: &str) -> Option<&str> {
    let (host, path) = text.split_once(':')?;
    (!host.is_empty() && !host.contains('/')).then_some(path)
}

/// `~` followed by `rest`, as the model gives a home not known.
fn home_word(rest: &str) -> Word {
    let mut parts = vec![Part::Unknown {
        name: Some("HOME".into()),
        split: false,
    }];
    if !rest.is_empty() {
        parts.push(Part::Text(rest.to_owned()));
    }
    Word::Dynamic(Dynamic {
        span: 0..0,
        why: "the home directory".into(),
        parts,
    })
}

/// `dd of=DEVICE`.
fn dd(judge: &Judge, command: &Command) -> Option<String> {
    command.args.iter().find_map(|arg| {
        let out = after_prefix(arg, "of=")?;
        device_verdict(judge, command, &out, true, "writes onto the device")
    })
}

/// `tee DEVICE`, `cp … DEVICE`.
fn onto_device(judge: &Judge, name: &str, command: &Command) -> Option<String> {
    let operands: Vec<&Word> = command
        .args
        .iter()
        .filter(|w| !w.as_static().is_some_and(|t| t.starts_with('-')))
        .collect();
    let written: Vec<&Word> = match name {
        "cp" => operands.last().copied().into_iter().collect(),
        _ => operands,
    };
    written
        .into_iter()
        .find_map(|w| device_verdict(judge, command, w, false, "writes onto the device"))
}

/// `mkfs`, `mkswap`, `wipefs`, `shred`, …: an operand that is a device. A regular file
/// (`rootfs.img`, `./swapfile`) is not a disk.
fn format_disk(judge: &Judge, command: &Command) -> Option<String> {
    command
        .args
        .iter()
        .filter(|w| !w.as_static().is_some_and(|t| t.starts_with('-')))
        .find_map(|w| {
            device_verdict(
                judge,
                command,
                w,
                true,
                "formats or wipes the device, erasing what is on it:",
            )
        })
}

/// A reason when `word` may be a device that holds data; `any_base`: a word that is wholly a
/// value not known may be one too.
fn device_verdict(
    judge: &Judge,
    command: &Command,
    word: &Word,
    any_base: bool,
    does: &str,
) -> Option<String> {
    let said = |what: &str| {
        format!(
            "`{}` {does} `{what}`: that destroys the data on it; a regular file is fine",
            judge.shown(command)
        )
    };
    match paths::device(word, any_base)? {
        Danger::Known(what) => Some(said(&what)),
        Danger::Unknown(what) => judge
            .guard
            .unknown(|| format!("{} (computed when the line runs)", said(&what))),
    }
}

/// A redirection writing onto a device (`> /dev/sda`).
pub(super) fn redirect(judge: &Judge, redirect: &Redirect) -> Option<String> {
    if !redirect.writes() {
        return None;
    }
    let said = |what: &str| {
        format!(
            "`{}` writes over the device `{what}`: that destroys what is on it",
            excerpt(judge.source(&redirect.span))
        )
    };
    match paths::device(&redirect.target, false)? {
        Danger::Known(what) => Some(said(&what)),
        Danger::Unknown(what) => judge.guard.unknown(|| said(&what)),
    }
}

/// `word` without `prefix` (`of=/dev/sda` → `/dev/sda`), when it starts with it.
pub(super) fn after_prefix(word: &Word, prefix: &str) -> Option<Word> {
    match word {
        Word::Static(s) => s.strip_prefix(prefix).map(|r| Word::Static(r.to_owned())),
        Word::Dynamic(d) => {
            let Some(Part::Text(first)) = d.parts.first() else {
                return None;
            };
            let rest = first.strip_prefix(prefix)?;
            let mut parts = d.parts.clone();
            if rest.is_empty() {
                parts.remove(0);
            } else {
                parts[0] = Part::Text(rest.to_owned());
            }
            Some(Word::Dynamic(Dynamic { parts, ..d.clone() }))
        }
    }
}

/// What GNU getopt reads of a command's arguments.
pub(super) struct Options<'w> {
    /// The short flags, each once per use.
    pub(super) short: Vec<char>,
    /// The long options, by their full name (a unique prefix taken for it).
    pub(super) long: Vec<&'static str>,
    /// The operands, in order.
    pub(super) operands: Vec<&'w Word>,
}

/// Reads `args` with the long options `long` (those of `valued` take the next word when no
/// `=` gives their value); short flags take no value. A word not known is an operand.
pub(super) fn read_options<'w>(
    args: &'w [Word],
    long: &[&'static str],
    valued: &[&str],
) -> Options<'w> {
    let mut read = Options {
        short: Vec::new(),
        long: Vec::new(),
        operands: Vec::new(),
    };
    let mut done = false;
    let mut skip = false;
    for arg in args {
        if skip {
            skip = false;
            continue;
        }
        let Some(text) = arg.as_static().filter(|_| !done) else {
            read.operands.push(arg);
            continue;
        };
        if text == "--" {
            done = true;
        } else if let Some(name) = text.strip_prefix("--") {
            let (name, has_value) = match name.split_once('=') {
                Some((n, _)) => (n, true),
                None => (name, false),
            };
            if let Some(full) = long_option(name, long) {
                read.long.push(full);
                skip = !has_value && valued.contains(&full);
            }
        } else if text.len() > 1 && text.starts_with('-') {
            read.short.extend(text[1..].chars());
        } else {
            read.operands.push(arg);
        }
    }
    read
}

/// The long option `name` stands for: itself, or the one option it is a prefix of.
pub(super) fn long_option(name: &str, long: &[&'static str]) -> Option<&'static str> {
    if let Some(exact) = long.iter().find(|l| **l == name) {
        return Some(exact);
    }
    let mut found = long
        .iter()
        .filter(|l| !name.is_empty() && l.starts_with(name));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// A fork bomb: a function that pipes itself into itself in the background (`:(){ :|:& };:`,
/// `bomb(){ bomb|bomb& };bomb`), read with the spaces taken out.
pub(super) fn fork_bomb(line: &str) -> Option<String> {
    let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let mut from = 0;
    while let Some(found) = squeezed[from..].find("(){") {
        let at = from + found;
        let name_start = squeezed[..at]
            .rfind([';', '&', '|', '\n', '(', ')', '{', '}'])
            .map_or(0, |n| n + 1);
        let name = squeezed[name_start..at].trim_start_matches("function");
        if !name.is_empty() {
            let body = &squeezed[at + 3..];
            let piped = format!("{name}|{name}&");
            if body.contains(&piped) {
                return Some(format!(
                    "`{}` is a fork bomb: it exhausts the machine's processes",
                    excerpt(line)
                ));
            }
        }
        from = at + 3;
    }
    None
}
