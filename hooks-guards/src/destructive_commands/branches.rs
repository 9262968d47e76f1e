//! git: pushes that rewrite or delete a protected branch, a hard reset onto one, and, with
//! `git_discards`, the commands that throw away work git cannot give back.
//!
//! git's own options come before its subcommand (`git --git-dir X -C Y -c k=v push`), each
//! with its value; a push's options are read as git reads them (clusters, unique prefixes of
//! long options). A refspec's destination is the part after `:` (the source when there is
//! none), without `refs/heads/`; `+` forces it, an empty source (`:main`) deletes it, a `*`
//! in it matches any branch.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hookchain_shell::{Command, Word};

use super::rules::{long_option, read_options};
use super::{Judge, glob};
use crate::project_file::{self, Links};

/// git's options that take the next word as their value.
const GIT_VALUED: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--config-env",
    "--list-cmds",
];

/// The rules of a `git` command.
pub(super) fn judge(judge: &Judge, command: &Command) -> Option<String> {
    let args = &command.args;
    let mut i = 0;
    // `-C DIR`: the repository the subcommand works in, from the command's directory.
    let mut dir: Option<PathBuf> = command.dir.clone();
    let mut elsewhere = false;
    while let Some(word) = args.get(i) {
        let text = word.as_static()?;
        if !text.starts_with('-') {
            break;
        }
        if GIT_VALUED.contains(&text) {
            match (text, args.get(i + 1).and_then(Word::as_static)) {
                ("-C", Some(d)) => dir = dir.map(|x| x.join(d)),
                ("-C", None) => dir = None,
                ("--git-dir" | "--work-tree", _) => elsewhere = true,
                _ => {}
            }
            i += 2;
        } else {
            if text.starts_with("--git-dir=") || text.starts_with("--work-tree=") {
                elsewhere = true;
            }
            i += 1;
        }
    }
    let sub = args.get(i)?.as_static()?;
    let rest = &args[i + 1..];
    let repository = if elsewhere { None } else { dir };
    match sub {
        "push" => push(judge, command, rest, repository.as_deref()),
        "reset" => reset(judge, command, rest),
        "clean" | "checkout" | "restore" | "stash" | "branch" | "worktree"
            if judge.guard.git_discards =>
        {
            discards(judge, command, sub, rest)
        }
        _ => None,
    }
}

/// The protected branch pattern `branch` (which may hold `*`) matches.
fn protected<'a>(judge: &'a Judge, branch: &str) -> Option<&'a str> {
    let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
    judge
        .guard
        .protected_branches
        .iter()
        .find(|p| glob(p, branch) || (branch.contains('*') && glob(branch, &p.replace('*', "x"))))
        .map(String::as_str)
}

/// `git push`.
fn push(judge: &Judge, command: &Command, args: &[Word], repo: Option<&Path>) -> Option<String> {
    if judge.guard.protected_branches.is_empty() {
        return None;
    }
    const LONG: &[&str] = &[
        "force",
        "force-with-lease",
        "force-if-includes",
        "no-force-with-lease",
        "no-force-if-includes",
        "mirror",
        "all",
        "branches",
        "delete",
        "prune",
        "dry-run",
        "tags",
        "follow-tags",
        "repo",
        "receive-pack",
        "exec",
        "push-option",
        "set-upstream",
        "quiet",
        "verbose",
        "progress",
        "no-verify",
        "verify",
        "atomic",
        "signed",
        "porcelain",
        "recurse-submodules",
        "thin",
        "no-thin",
        "ipv4",
        "ipv6",
    ];
    const VALUED: &[&str] = &["repo", "receive-pack", "exec", "push-option"];
    let read = read_options(args, LONG, VALUED);
    // `-o VALUE`: a short option with a value; its value is no operand.
    let mut operands: Vec<&Word> = read.operands.clone();
    if let Some(k) = args.iter().position(|w| w.as_static() == Some("-o"))
        && let Some(value) = args.get(k + 1)
    {
        operands.retain(|w| !std::ptr::eq(*w, value));
    }
    let long = |name: &str| read.long.contains(&long_option(name, LONG).unwrap_or(""));
    if read.short.contains(&'n') || long("dry-run") {
        return None;
    }
    let force = read.short.contains(&'f')
        || long("force")
        || long("force-with-lease")
        || long("force-if-includes");
    let delete = read.short.contains(&'d') || long("delete");
    let prune = long("prune");
    let shown = || judge.shown(command);
    if long("mirror") {
        return Some(format!(
            "`{}` makes the remote a mirror, overwriting and deleting every branch, protected \
             ones ({}) included",
            shown(),
            judge.guard.protected_branches.join(", ")
        ));
    }
    if (long("all") || long("branches")) && (force || prune) {
        return Some(format!(
            "`{}` force-pushes every branch, protected ones ({}) included",
            shown(),
            judge.guard.protected_branches.join(", ")
        ));
    }
    let refspecs = operands.get(1..).unwrap_or(&[]);
    for refspec in refspecs {
        let Some(spec) = refspec.as_static() else {
            let written = match refspec {
                Word::Dynamic(d) => match d.parts.first() {
                    Some(hookchain_shell::Part::Text(t)) => t.as_str(),
                    _ => "",
                },
                Word::Static(_) => "",
            };
            if force || delete || prune || written.starts_with(['+', ':']) {
                return judge.guard.unknown(|| {
                    format!(
                        "`{}` force-pushes or deletes a branch computed when the line runs, \
                         which may be protected",
                        shown()
                    )
                });
            }
            continue;
        };
        let plus = spec.starts_with('+');
        let spec = spec.trim_start_matches('+');
        let (source, dest) = match spec.split_once(':') {
            Some((s, d)) => (s, if d.is_empty() { s } else { d }),
            None => (spec, spec),
        };
        let removes = delete || source.is_empty() || (prune && dest.contains('*'));
        let rewrites = force || plus;
        if !(removes || rewrites) {
            continue;
        }
        // `HEAD` is the current branch, when the repository says it.
        let current;
        let dest = match dest {
            "HEAD" | "@" => match repo.and_then(current_branch) {
                Some(Head::Branch(b)) => {
                    current = b;
                    current.as_str()
                }
                Some(Head::Detached) => continue,
                None => {
                    return judge.guard.unknown(|| {
                        format!(
                            "`{}` force-pushes or deletes the current branch, which the guard \
                             cannot read and may be protected ({})",
                            shown(),
                            judge.guard.protected_branches.join(", ")
                        )
                    });
                }
            },
            dest => dest,
        };
        if let Some(branch) = protected(judge, dest) {
            let does = if removes {
                "deletes the protected branch"
            } else {
                "force-pushes onto the protected branch"
            };
            return Some(format!(
                "`{}` {does} `{branch}`: that rewrites its history for everyone; push to a \
                 branch of your own",
                shown()
            ));
        }
    }
    if refspecs.is_empty() && force {
        // The current branch (or what `push.default` says), when the repository says it.
        return match repo.and_then(current_branch) {
            Some(Head::Branch(b)) => protected(judge, &b).map(|p| {
                format!(
                    "`{}` force-pushes the current branch `{b}`, which is protected (`{p}`)",
                    shown()
                )
            }),
            Some(Head::Detached) => None,
            None => judge.guard.unknown(|| {
                format!(
                    "`{}` force-pushes the current branch, which the guard cannot read and may \
                     be protected ({}); name the branch (`git push -f origin my-branch`)",
                    shown(),
                    judge.guard.protected_branches.join(", ")
                )
            }),
        };
    }
    None
}

/// `git reset --hard REMOTE/PROTECTED`, and any `--hard` with `git_discards`.
fn reset(judge: &Judge, command: &Command, args: &[Word]) -> Option<String> {
    if !args.iter().any(|w| w.as_static() == Some("--hard")) {
        return None;
    }
    for target in args.iter().filter_map(Word::as_static) {
        if target.starts_with('-') {
            continue;
        }
        if let Some((_, branch)) = target.split_once('/')
            && protected(judge, branch).is_some()
        {
            return Some(format!(
                "`{}` throws away the local commits and changes on top of the protected branch \
                 `{branch}`",
                judge.shown(command)
            ));
        }
    }
    judge.guard.git_discards.then(|| {
        format!(
            "`{}` throws away uncommitted changes, which git cannot give back (git_discards)",
            judge.shown(command)
        )
    })
}

/// With `git_discards`: `clean -f`, `checkout -- PATHS`/`checkout .`/`checkout -f`,
/// `restore` of the working tree, `stash drop`/`clear`, `branch -D`.
fn discards(judge: &Judge, command: &Command, sub: &str, args: &[Word]) -> Option<String> {
    let statics: Vec<&str> = args.iter().filter_map(Word::as_static).collect();
    let short = |c: char| {
        statics
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
    };
    let long = |l: &str| statics.contains(&l);
    let what = match sub {
        "clean" if (short('f') || long("--force")) && !(short('n') || long("--dry-run")) => {
            "deletes untracked files"
        }
        "checkout"
            if statics.contains(&"--")
                || statics.contains(&".")
                || short('f')
                || long("--force")
                || long("--ours")
                || long("--theirs") =>
        {
            "throws away changes to the working tree"
        }
        "worktree" if statics.first() == Some(&"remove") => "deletes a worktree and its files",
        "restore" if !(short('S') || long("--staged")) || short('W') || long("--worktree") => {
            "throws away changes to the working tree"
        }
        "stash" if matches!(statics.first(), Some(&("drop" | "clear"))) => {
            "throws away stashed changes"
        }
        "branch" if short('D') || (long("--delete") && long("--force")) => {
            "deletes a branch whether or not it is merged"
        }
        _ => return None,
    };
    Some(format!(
        "`{}` {what}, which git cannot give back (git_discards)",
        judge.shown(command)
    ))
}

/// What a repository's `HEAD` names.
enum Head {
    Branch(String),
    Detached,
}

/// The branch checked out in the repository holding `dir`, read from its `HEAD` (through a
/// `.git` file's `gitdir:` for a worktree); `None` when it cannot be read.
fn current_branch(dir: &Path) -> Option<Head> {
    const MAX: u64 = 4096;
    let timeout = Duration::from_millis(200);
    let read = |path: &Path| -> Option<String> {
        let capped = project_file::read_capped(path, Links::Follow, MAX, timeout).ok()?;
        String::from_utf8(capped.bytes).ok()
    };
    let root = dir.ancestors().take(64).find(|d| d.join(".git").exists())?;
    let dot_git = root.join(".git");
    let git_dir = if dot_git.is_dir() {
        dot_git
    } else {
        let text = read(&dot_git)?;
        let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
        root.join(target)
    };
    let head = read(&git_dir.join("HEAD"))?;
    let head = head.trim();
    Some(match head.strip_prefix("ref:") {
        Some(r) => Head::Branch(r.trim().strip_prefix("refs/heads/")?.to_owned()),
        None => Head::Detached,
    })
}
