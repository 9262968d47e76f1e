//! The files a shell line writes, and the table of programs that write them.
//!
//! # What it owns
//!
//! What counts as writing a file, read from each command's arguments as the program itself
//! reads them (options that take a value, `--`, clusters such as `-rf`, long options and their
//! unambiguous abbreviations, `--name=value`):
//!
//! | writes | forms |
//! |---|---|
//! | a redirection's target | `>`, `>>`, `>|`, `&>`, `&>>`, `<>` (a descriptor or a here-document is no file) |
//! | every file operand | `tee [-a]`, `touch`, `truncate`, `shred`, `unlink`, `rmdir`, `rm` (with `-r`: the tree under it), `mkdir` (a directory) |
//! | the files edited in place | `sed -i`/`--in-place` (GNU `-i.bak` and BSD `-i ''` alike), `perl -i`/`-pi -e` |
//! | the destination | `cp`, `mv` (and each source, which it removes), `install` (every operand with `-d`), `ln` (and the file linked to: what is written through a link lands there), a directory destination naming `DIR/SOURCE`, `-t DIR`/`--target-directory` |
//! | the files operated on | `chmod`, `chown`, `chgrp` (with `-R`: the tree) |
//! | the output file | `dd of=`, `curl -o`/`-D`/`-c`, `wget -O`/`-o`/`-a`, `patch` of its file operand or `-o`, `tar -c`/`-r`/`-u` of its `-f` archive, `find -fprint` |
//! | the destination (and with `--delete` the tree under it) | `rsync` (a remote destination is no local file) |
//! | files it does not name, in a known directory | `tar -x` in `-C DIR`, `curl -O`, `wget` without `-O`, `patch`/`git apply`/`git am` from a patch |
//! | what `xargs` gives it | a writer `xargs` runs: the items of a here-string, a here-document or `echo`/`printf` appended to its arguments (or put for `-I`'s string), and for a piped `find`, that `find` running it (`find … \| xargs rm` is `find … -exec rm {} +`); nothing is known of what it reads elsewhere |
//! | the start paths | `find … -delete`, `find … -exec CMD …` where CMD, read with this table, writes the file found (`rm {}`, `cp x {}`, `sed -i … {}`; not `cp {} /tmp`), also behind a wrapper (`sudo`, `env`, `timeout`) or in a shell's `-c` string that is given the file (`sh -c 'rm "$1"' _ {}`) |
//! | what each program of [`tools`] writes | archives and compressors (`unzip -d`, `7z x`, `gzip`), git's commands that name paths (`git checkout -- PATH`, `git restore`, `git rm`, `git mv`), editors (`vim -c wq`, `ed`), `awk -i inplace`, `yq -i`, `sqlite3`, output options and operands (`sort -o`, `uniq IN OUT`, `openssl -out`, `gpg -o`), `ssh-keygen`, `scp`, `split`, `mktemp`, … |
//!
//! A program named with its GNU prefix on macOS (`gsed`, `gtar`, `gcp`) is the program. An
//! argument the line computes is an operand (`cp x $DEST`), never an option.
//!
//! Known limits: an interpreter's code that writes (`python -c "open('x','w')"`, `awk '{print >
//! "x"}'`) and a program's own files (`git commit` writes `.git`), and what a git command that
//! names no path changes (`git reset --hard`, `git clean -fdx`, `git stash -u`), are not read;
//! what a recursive copy brings into a directory (`cp -r template/. .`) is not listed.

use std::path::{Path, PathBuf};

use hookchain_shell::{Context, Line, RedirectKind, Shell, Word};

use super::{Arg, Cmd, Computed, Fed, ShellCall, UNKNOWN, pattern};

mod tools;

/// A file (or files) the line writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Write {
    /// What writes it: `>`, `tee`, `sed -i`, `rm -r`, …
    pub(crate) by: String,
    /// The target as the line names it.
    pub(crate) shown: String,
    /// The files it may be: the path named, from each directory its command may run in; a
    /// glob's matches; each word of a brace expansion.
    pub(crate) paths: Vec<PathBuf>,
    /// When part of the target is only known when the line runs: the directories known to
    /// hold it (none when nothing is known of it, `> "$OUT"`).
    pub(crate) unknown_in: Option<Vec<PathBuf>>,
    /// The whole tree under the target is written too (`rm -r`, `chmod -R`, the source of
    /// `mv`, `rsync --delete`'s destination).
    pub(crate) tree: bool,
    /// It creates a directory (`mkdir`, `install -d`).
    pub(crate) creates_dir: bool,
    /// It removes the target's name rather than writing through it (`rm`, `unlink`, `rmdir`,
    /// the source of `mv`): a symlink there is removed, not followed.
    pub(crate) removes: bool,
    /// For a `find` that deletes or runs a writer: what it selects under the target (a start
    /// path).
    pub(crate) finds: Option<Finds>,
}

/// What a `find` that writes selects under a start path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finds {
    /// The start path as the line writes it (`.`): what the paths `-path` tests begin with.
    pub(crate) start: String,
    /// Its `-name` and `-iname` patterns (with whether case is folded).
    pub(crate) names: Vec<(String, bool)>,
    /// Its `-path`, `-wholename`, `-ipath` and `-iwholename` patterns.
    pub(crate) paths: Vec<(String, bool)>,
    /// It selects everything it finds: it tests no name or path, or tests one under a
    /// negation or an alternative (`!`, `-not`, `-o`, `-or`).
    pub(crate) everything: bool,
}

impl Finds {
    /// Whether it may select `inside` (a path below the start path, relative to it) or, for
    /// a path test, something under it. A name test is matched against `inside`'s own name.
    pub(crate) fn may_select(&self, inside: &Path) -> bool {
        if self.everything {
            return true;
        }
        let name = inside
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let whole = format!(
            "{}/{}",
            self.start.trim_end_matches('/'),
            inside.to_string_lossy()
        );
        self.names
            .iter()
            .any(|(pattern, fold)| pattern::fnmatch(pattern, &name, *fold))
            || self.paths.iter().any(|(pattern, fold)| {
                pattern::fnmatch(pattern, &whole, *fold)
                    || pattern::fnmatch(pattern, &format!("{whole}/{UNKNOWN}"), *fold)
            })
    }
}

/// Every write of the line.
pub(super) fn of(call: &ShellCall) -> Vec<Write> {
    let mut out = Vec::new();
    for redirect in &call.redirects {
        if matches!(
            redirect.kind,
            RedirectKind::Write | RedirectKind::Append | RedirectKind::ReadWrite
        ) {
            out.push(write(
                call,
                &redirect.operator,
                &redirect.target,
                &redirect.dirs,
            ));
        }
    }
    for command in &call.commands {
        command_writes(call, command, &mut out);
    }
    out
}

/// A write by `by` of `target`, a word of a command that runs in `dirs`.
fn write(call: &ShellCall, by: &str, target: &Arg, dirs: &[PathBuf]) -> Write {
    let mut paths = Vec::new();
    let mut unknown: Option<Vec<PathBuf>> = None;
    let mut unknown_in = |dir: Option<PathBuf>| {
        let dirs = unknown.get_or_insert_with(Vec::new);
        if let Some(dir) = dir
            && !dirs.contains(&dir)
        {
            dirs.push(dir);
        }
    };
    match target {
        Arg::Known(text) => {
            for dir in dirs {
                let path = dir.join(text);
                match path.to_string_lossy().find(UNKNOWN) {
                    None => paths.push(path),
                    Some(at) => unknown_in(prefix_dir(&path.to_string_lossy()[..at])),
                }
            }
        }
        Arg::Computed(Computed {
            written: Some(raw),
            known,
        }) => {
            let var = |name: &str| call.var(name);
            match pattern::read(raw, &var) {
                Some(alternatives) => {
                    for alternative in &alternatives {
                        for dir in dirs {
                            match alternative.matches(dir) {
                                Some(found) => paths.extend(found),
                                None => unknown_in(known_dir(&alternative.known_prefix(), dir)),
                            }
                        }
                    }
                }
                None => {
                    for dir in dirs {
                        unknown_in(known_dir(known.as_deref().unwrap_or(""), dir));
                    }
                }
            }
        }
        Arg::Computed(Computed {
            written: None,
            known,
        }) => {
            for dir in dirs {
                unknown_in(known_dir(known.as_deref().unwrap_or(""), dir));
            }
        }
    }
    Write {
        by: by.to_owned(),
        shown: target.shown().replace(UNKNOWN, "…"),
        paths,
        unknown_in: unknown,
        tree: false,
        creates_dir: false,
        removes: false,
        finds: None,
    }
}

/// The directory known to hold a word whose value starts with `prefix`, from `dir`: the
/// prefix up to its last `/`; `dir` for a prefix with none; nothing for an empty prefix.
fn known_dir(prefix: &str, dir: &Path) -> Option<PathBuf> {
    if prefix.is_empty() {
        return None;
    }
    let joined = dir.join(prefix);
    let joined = joined.to_string_lossy();
    let cut = joined.find(UNKNOWN).unwrap_or(joined.len());
    // `dir.join("x")` always has the `/` before `x`.
    prefix_dir(&format!("{}x", &joined[..cut]))
}

/// The directory part of the path text `text` (up to its last `/`), when it has one.
fn prefix_dir(text: &str) -> Option<PathBuf> {
    let at = text.rfind('/')?;
    Some(PathBuf::from(if at == 0 { "/" } else { &text[..at] }))
}

/// How a program reads its options: those that take a value, and the long ones it has.
struct Spec {
    /// Short options that take a value (the rest of the word, or the next word).
    short: &'static str,
    /// Long options that take a value (`--name VALUE` or `--name=VALUE`).
    long: &'static [&'static str],
    /// Long options that take none, listed so that an abbreviation is read as getopt reads it.
    flags: &'static [&'static str],
    /// Unambiguous abbreviations of long options are accepted (GNU getopt).
    abbreviations: bool,
}

/// A command's arguments, read with its [`Spec`].
#[derive(Default)]
struct Parsed {
    /// Options as canonical names (`-r`, `--recursive`), with their values.
    options: Vec<(String, Option<Arg>)>,
    operands: Vec<Arg>,
}

impl Parsed {
    fn has(&self, names: &[&str]) -> bool {
        self.options
            .iter()
            .any(|(o, _)| names.contains(&o.as_str()))
    }

    fn values(&self, names: &[&str]) -> Vec<&Arg> {
        self.options
            .iter()
            .filter(|(o, _)| names.contains(&o.as_str()))
            .filter_map(|(_, v)| v.as_ref())
            .collect()
    }
}

/// The text an argument is known to start with.
fn known_start(arg: &Arg) -> Option<&str> {
    match arg {
        Arg::Known(s) => Some(s),
        Arg::Computed(c) => c.known.as_deref(),
    }
}

/// `arg` with its first `n` characters (known ones) taken off: the value of `--name=VALUE`.
fn after(arg: &Arg, n: usize) -> Arg {
    let cut = |s: &str| s.chars().skip(n).collect::<String>();
    match arg {
        Arg::Known(s) => Arg::Known(cut(s)),
        Arg::Computed(c) => Arg::Computed(Computed {
            written: c.written.as_deref().map(cut),
            known: c.known.as_deref().map(cut),
        }),
    }
}

fn parse(args: &[Arg], spec: &Spec) -> Parsed {
    parse_with(args, spec, true)
}

/// [`parse`], with `permute` false for a program that reads no option after its first operand
/// (a wrapper: what follows is the command it runs).
fn parse_with(args: &[Arg], spec: &Spec, permute: bool) -> Parsed {
    let mut options = Vec::new();
    let operands = walk(args, permute, |arg, text, next, _| {
        let whole = matches!(arg, Arg::Known(_));
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, _)) => (name, Some(after(arg, name.len() + 3))),
                None if whole => (long, None),
                // `--$X`: an option computed when the line runs.
                None => return false,
            };
            let name = canonical(name, spec);
            let value = match value {
                Some(v) => Some(v),
                None if spec.long.contains(&name.as_str()) => {
                    *next += 1;
                    args.get(*next - 1).cloned()
                }
                None => None,
            };
            options.push((format!("--{name}"), value));
            return true;
        }
        // A cluster: each flag in turn, one that takes a value taking the rest or the next word.
        for (at, flag) in text.char_indices().skip(1) {
            if spec.short.contains(flag) {
                let rest = at + flag.len_utf8();
                let value = if rest < text.len() || !whole {
                    Some(after(arg, text[..rest].chars().count()))
                } else {
                    *next += 1;
                    args.get(*next - 1).cloned()
                };
                options.push((format!("-{flag}"), value));
                break;
            }
            options.push((format!("-{flag}"), None));
        }
        true
    });
    Parsed { options, operands }
}

/// The long option `name` means: itself, or the one option it abbreviates.
fn canonical(name: &str, spec: &Spec) -> String {
    let all = || spec.long.iter().chain(spec.flags);
    if !spec.abbreviations || all().any(|o| *o == name) {
        return name.to_owned();
    }
    let mut found = all().filter(|o| o.starts_with(name));
    match (found.next(), found.next()) {
        (Some(one), None) => (*one).to_owned(),
        _ => name.to_owned(),
    }
}

/// The name a command is read as: its base name, without the `g` of a GNU tool on macOS.
fn program(command: &Cmd) -> Option<&str> {
    let name = command.name()?;
    if !is_writer(name)
        && let Some(gnu) = name.strip_prefix('g')
        && is_writer(gnu)
    {
        return Some(gnu);
    }
    Some(name)
}

/// The `find -exec` that a command fed the paths a `find` prints amounts to (`find … | xargs
/// rm` is `find … -exec rm {} +`; each path found is `{}` in its arguments).
fn found_run(command: &Cmd, find_args: &[Arg]) -> Option<Cmd> {
    let mut args = find_args.to_vec();
    args.push(Arg::Known("-exec".to_owned()));
    args.push(Arg::Known(command.program.clone()?));
    args.extend(command.args.iter().cloned());
    args.push(Arg::Known("+".to_owned()));
    Some(Cmd {
        program: Some("find".to_owned()),
        args,
        fed: None,
        ..command.clone()
    })
}

/// The programs of this table.
fn is_writer(name: &str) -> bool {
    matches!(
        name,
        "tee"
            | "sed"
            | "perl"
            | "cp"
            | "mv"
            | "install"
            | "ln"
            | "truncate"
            | "dd"
            | "touch"
            | "rm"
            | "unlink"
            | "rmdir"
            | "shred"
            | "mkdir"
            | "chmod"
            | "chown"
            | "chgrp"
            | "rsync"
            | "tar"
            | "bsdtar"
            | "find"
            | "patch"
            | "git"
            | "curl"
            | "wget"
    ) || tools::is_tool(name)
}

const TEE: Spec = Spec {
    short: "",
    long: &[],
    flags: &["append", "ignore-interrupts", "output-error"],
    abbreviations: true,
};
const TOUCH: Spec = Spec {
    short: "drt",
    long: &["date", "reference", "time"],
    flags: &["no-create", "no-dereference"],
    abbreviations: true,
};
const TRUNCATE: Spec = Spec {
    short: "rs",
    long: &["reference", "size"],
    flags: &["no-create", "io-blocks"],
    abbreviations: true,
};
const RM: Spec = Spec {
    short: "",
    long: &[],
    flags: &[
        "force",
        "interactive",
        "one-file-system",
        "no-preserve-root",
        "preserve-root",
        "recursive",
        "dir",
        "verbose",
    ],
    abbreviations: true,
};
const SHRED: Spec = Spec {
    short: "ns",
    long: &["iterations", "size", "random-source"],
    flags: &["exact", "force", "remove", "verbose", "zero"],
    abbreviations: true,
};
const MKDIR: Spec = Spec {
    short: "m",
    long: &["mode"],
    flags: &["parents", "verbose", "context"],
    abbreviations: true,
};
const PLAIN: Spec = Spec {
    short: "",
    long: &[],
    flags: &[],
    abbreviations: true,
};
const COPY: Spec = Spec {
    short: "Stgmo",
    long: &[
        "suffix",
        "target-directory",
        "group",
        "mode",
        "owner",
        "strip-program",
    ],
    flags: &[
        "no-target-directory",
        "recursive",
        "directory",
        "symbolic",
        "force",
        "backup",
        "archive",
    ],
    abbreviations: true,
};
const CHMOD: Spec = Spec {
    short: "",
    long: &["reference", "from"],
    flags: &[
        "recursive",
        "changes",
        "silent",
        "quiet",
        "verbose",
        "no-preserve-root",
        "preserve-root",
        "dereference",
        "no-dereference",
    ],
    abbreviations: true,
};
const RSYNC: Spec = Spec {
    short: "eTBMf@",
    long: &[
        "rsh",
        "exclude",
        "include",
        "filter",
        "files-from",
        "exclude-from",
        "include-from",
        "password-file",
        "log-file",
        "log-file-format",
        "temp-dir",
        "backup-dir",
        "partial-dir",
        "compare-dest",
        "link-dest",
        "copy-dest",
        "block-size",
        "remote-option",
        "rsync-path",
        "chmod",
        "chown",
        "usermap",
        "groupmap",
        "timeout",
        "contimeout",
        "port",
        "address",
        "bwlimit",
        "max-size",
        "min-size",
        "suffix",
        "out-format",
        "iconv",
        "checksum-choice",
        "compress-choice",
        "skip-compress",
        "info",
        "debug",
        "sockopts",
        "protocol",
        "outbuf",
        "read-batch",
        "write-batch",
        "only-write-batch",
        "modify-window",
        "max-delete",
        "compress-level",
    ],
    flags: &[],
    abbreviations: false,
};
const TAR: Spec = Spec {
    short: "fCTXbLNKVgHIF",
    long: &[
        "file",
        "directory",
        "files-from",
        "exclude-from",
        "exclude",
        "transform",
        "owner",
        "group",
        "mode",
        "mtime",
        "newer",
        "after-date",
        "blocking-factor",
        "record-size",
        "tape-length",
        "format",
        "label",
        "use-compress-program",
        "to-command",
        "index-file",
        "suffix",
        "strip-components",
        "listed-incremental",
        "starting-file",
        "newer-mtime",
        "volno-file",
        "info-script",
        "checkpoint-action",
        "sort",
        "warning",
    ],
    flags: &[
        "extract",
        "get",
        "create",
        "append",
        "update",
        "catenate",
        "concatenate",
        "delete",
        "list",
        "diff",
        "compare",
        "to-stdout",
        "gzip",
        "bzip2",
        "xz",
        "zstd",
        "verbose",
        "keep-old-files",
        "overwrite",
    ],
    abbreviations: true,
};
const PATCH: Spec = Spec {
    short: "pdDFiorBVYzg",
    long: &[
        "strip",
        "directory",
        "ifdef",
        "fuzz",
        "input",
        "output",
        "reject-file",
        "prefix",
        "version-control",
        "basename-prefix",
        "suffix",
        "get",
        "quoting-style",
        "read-only",
        "reject-format",
    ],
    flags: &[
        "dry-run", "reverse", "forward", "batch", "force", "silent", "quiet",
    ],
    abbreviations: true,
};
const CURL: Spec = Spec {
    short: "oDcdHuXAebFTwxmKErYyzCPQtU",
    long: &[
        "output",
        "output-dir",
        "dump-header",
        "cookie-jar",
        "data",
        "data-raw",
        "data-binary",
        "data-ascii",
        "data-urlencode",
        "json",
        "header",
        "user",
        "request",
        "user-agent",
        "referer",
        "cookie",
        "form",
        "form-string",
        "upload-file",
        "write-out",
        "proxy",
        "max-time",
        "config",
        "cert",
        "key",
        "cacert",
        "range",
        "connect-timeout",
        "retry",
        "url",
        "oauth2-bearer",
        "stderr",
        "trace",
        "trace-ascii",
        "resolve",
        "interface",
    ],
    flags: &[],
    abbreviations: false,
};
const WGET: Spec = Spec {
    short: "OoaPtTweiBUQlARDXIU",
    long: &[
        "output-document",
        "output-file",
        "append-output",
        "directory-prefix",
        "tries",
        "timeout",
        "wait",
        "execute",
        "input-file",
        "base",
        "user-agent",
        "quota",
        "level",
        "accept",
        "reject",
        "domains",
        "exclude-directories",
        "include-directories",
        "header",
        "post-data",
        "post-file",
        "user",
        "password",
        "load-cookies",
        "save-cookies",
    ],
    flags: &[],
    abbreviations: true,
};

/// The writes of one command.
fn command_writes(call: &ShellCall, command: &Cmd, out: &mut Vec<Write>) {
    let Some(name) = program(command) else {
        return;
    };
    if let Some(Fed::Found(find_args)) = &command.fed {
        if let Some(run) = found_run(command, find_args) {
            command_writes(call, &run, out);
        }
        return;
    }
    if !is_writer(name) {
        return;
    }
    if tools::writes(call, name, command, out) {
        return;
    }
    let dirs = &command.dirs;
    let args = &command.args;
    let made = |by: &str, target: &Arg, tree: bool, creates_dir: bool| {
        let mut w = write(call, by, target, dirs);
        w.tree = tree;
        w.creates_dir = creates_dir;
        w
    };
    let unnamed = |by: &str, dirs: Vec<PathBuf>| Write {
        by: by.to_owned(),
        shown: command.shown(),
        paths: Vec::new(),
        unknown_in: Some(dirs),
        tree: false,
        creates_dir: false,
        removes: false,
        finds: None,
    };
    let fed = command.fed == Some(Fed::Unknown);
    match name {
        "tee" | "touch" | "truncate" | "unlink" | "rmdir" | "shred" | "rm" | "mkdir" => {
            let spec = match name {
                "tee" => &TEE,
                "touch" => &TOUCH,
                "truncate" => &TRUNCATE,
                "shred" => &SHRED,
                "rm" => &RM,
                "mkdir" => &MKDIR,
                _ => &PLAIN,
            };
            let parsed = parse(args, spec);
            let tree = name == "rm" && parsed.has(&["-r", "-R", "--recursive"]);
            let by = if tree { "rm -r" } else { name };
            for operand in &parsed.operands {
                let mut w = made(by, operand, tree, name == "mkdir");
                w.removes = matches!(name, "rm" | "unlink" | "rmdir");
                out.push(w);
            }
        }
        "sed" => {
            for file in sed_files(args) {
                out.push(made("sed -i", &file, false, false));
            }
        }
        "perl" => {
            for file in perl_files(args) {
                out.push(made("perl -i", &file, false, false));
            }
        }
        "cp" | "mv" | "install" | "ln" => copy(call, name, command, out),
        "dd" => {
            for arg in args {
                if known_start(arg).is_some_and(|s| s.starts_with("of=")) {
                    out.push(made("dd", &after(arg, 3), false, false));
                }
            }
        }
        "chmod" | "chown" | "chgrp" => {
            let parsed = if name == "chmod" {
                chmod_args(args)
            } else {
                parse(args, &CHMOD)
            };
            let tree = parsed.has(&["-R", "--recursive"]);
            let skip = usize::from(!parsed.has(&["--reference"]));
            for operand in parsed.operands.iter().skip(skip) {
                out.push(made(name, operand, tree, false));
            }
        }
        "rsync" => {
            let parsed = parse(args, &RSYNC);
            if let [sources @ .., dest] = parsed.operands.as_slice()
                && !sources.is_empty()
            {
                let tree = parsed.options.iter().any(|(o, _)| o.starts_with("--del"));
                if !is_remote(dest) {
                    out.push(made("rsync", dest, tree, false));
                }
                if parsed.has(&["--remove-source-files"]) {
                    for source in sources.iter().filter(|s| !is_remote(s)) {
                        out.push(made("rsync --remove-source-files", source, false, false));
                    }
                }
            }
        }
        "tar" | "bsdtar" => tar(call, command, out),
        "find" => {
            // `-fprint FILE` and its kin write the list to a file.
            for (k, arg) in args.iter().enumerate() {
                if matches!(
                    arg.known(),
                    Some("-fprint" | "-fprint0" | "-fprintf" | "-fls")
                ) && let Some(file) = args.get(k + 1)
                {
                    out.push(made("find -fprint", file, false, false));
                }
            }
            if let Some((starts, finds)) = find_writes(call, args) {
                for start in &starts {
                    let mut w = made("find", start, false, false);
                    w.finds = Some(Finds {
                        start: start.shown(),
                        ..finds.clone()
                    });
                    out.push(w);
                }
            }
        }
        "patch" => {
            let parsed = parse(args, &PATCH);
            let outputs = parsed.values(&["-o", "--output"]);
            let file = parsed.operands.first();
            for target in outputs.iter().copied().chain(file) {
                out.push(made("patch", target, false, false));
            }
            if outputs.is_empty() && file.is_none() && !parsed.has(&["--dry-run"]) {
                let dir = parsed.values(&["-d", "--directory"]).into_iter().next();
                out.push(unnamed("patch", directories(call, dir, dirs)));
            }
        }
        "git" => {
            // Git's own options come before its subcommand.
            let mut k = 0;
            let mut dir = None;
            while let Some(text) = args.get(k).and_then(Arg::known) {
                match text {
                    "-C" => dir = args.get(k + 1),
                    "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" => {}
                    t if t.starts_with('-') => {
                        k += 1;
                        continue;
                    }
                    _ => break,
                }
                k += 2;
            }
            let rest = args.get(k + 1..).unwrap_or_default();
            let applies = match args.get(k).and_then(Arg::known) {
                Some("am") => true,
                Some("apply") => {
                    let rest = parse(rest, &PLAIN);
                    rest.has(&["--apply"])
                        || !rest.has(&["--check", "--stat", "--numstat", "--summary"])
                }
                _ => false,
            };
            if applies {
                out.push(unnamed("git apply", directories(call, dir, dirs)));
            }
            if let Some(sub) = args.get(k).and_then(Arg::known) {
                tools::git(call, sub, rest, &directories(call, dir, dirs), out);
            }
        }
        "curl" => {
            let parsed = parse(args, &CURL);
            for file in parsed.values(&[
                "-o",
                "--output",
                "-D",
                "--dump-header",
                "-c",
                "--cookie-jar",
            ]) {
                if file.known() != Some("-") {
                    out.push(made("curl", file, false, false));
                }
            }
            if parsed.has(&["-O", "--remote-name", "--remote-name-all", "-J"]) {
                let dir = parsed.values(&["--output-dir"]).into_iter().next();
                out.push(unnamed("curl -O", directories(call, dir, dirs)));
            }
        }
        "wget" => {
            let parsed = parse(args, &WGET);
            let documents = parsed.values(&["-O", "--output-document"]);
            for file in parsed
                .values(&[
                    "-o",
                    "--output-file",
                    "-a",
                    "--append-output",
                    "--save-cookies",
                ])
                .into_iter()
                .chain(documents.iter().copied())
            {
                if file.known() != Some("-") {
                    out.push(made("wget", file, false, false));
                }
            }
            if documents.is_empty() && !parsed.operands.is_empty() {
                let dir = parsed
                    .values(&["-P", "--directory-prefix"])
                    .into_iter()
                    .next();
                out.push(unnamed("wget", directories(call, dir, dirs)));
            }
        }
        _ => {}
    }
    if fed && !matches!(name, "git" | "curl" | "wget" | "find" | "tar" | "bsdtar") {
        // `… | xargs rm`: the operands come from the input.
        out.push(unnamed(&format!("xargs {name}"), Vec::new()));
    }
}

/// The directories named by `dir` (an option's value) from each of `dirs`, or `dirs`: each a
/// computed value may be (`-C ${D:-.git}`), or the directory known to hold it.
fn directories(call: &ShellCall, dir: Option<&Arg>, dirs: &[PathBuf]) -> Vec<PathBuf> {
    match dir {
        None => dirs.to_vec(),
        Some(Arg::Known(d)) => dirs.iter().map(|base| base.join(d)).collect(),
        Some(Arg::Computed(c)) => {
            let var = |name: &str| call.var(name);
            let alternatives = c
                .written
                .as_deref()
                .and_then(|raw| pattern::read(raw, &var));
            let mut out = Vec::new();
            for base in dirs {
                match &alternatives {
                    Some(alternatives) => {
                        for alternative in alternatives {
                            out.extend(match alternative.literal() {
                                Some(text) => Some(base.join(text)),
                                None => known_dir(&alternative.known_prefix(), base),
                            });
                        }
                    }
                    None => out.extend(known_dir(c.known.as_deref().unwrap_or(""), base)),
                }
            }
            out
        }
    }
}

/// `host:path`, `user@host:path`, `rsync://…`: not a local file.
fn is_remote(arg: &Arg) -> bool {
    let Some(text) = known_start(arg) else {
        return false;
    };
    text.starts_with("rsync://")
        || text
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'))
}

/// The destination and sources of `cp`, `mv`, `install`, `ln`, and their writes.
fn copy(call: &ShellCall, name: &str, command: &Cmd, out: &mut Vec<Write>) {
    let parsed = parse(&command.args, &COPY);
    let dirs = &command.dirs;
    let push = |out: &mut Vec<Write>,
                by: &str,
                target: &Arg,
                dirs: &[PathBuf],
                tree: bool,
                creates_dir: bool| {
        let mut w = write(call, by, target, dirs);
        w.tree = tree;
        w.creates_dir = creates_dir;
        out.push(w);
    };
    if name == "install" && parsed.has(&["-d", "--directory"]) {
        for operand in &parsed.operands {
            push(out, "install -d", operand, dirs, false, true);
        }
        return;
    }
    let target_dir = parsed
        .values(&["-t", "--target-directory"])
        .into_iter()
        .last();
    let (sources, dest, into_dir): (&[Arg], Option<&Arg>, bool) = match target_dir {
        Some(dir) => (&parsed.operands, Some(dir), true),
        None => match parsed.operands.as_slice() {
            [source] if name == "ln" => (std::slice::from_ref(source), None, true),
            [sources @ .., dest] if !sources.is_empty() => {
                let no_dir = parsed.has(&["-T", "--no-target-directory"]);
                let is_dir = !no_dir
                    && (sources.len() > 1
                        || dest.known().is_some_and(|d| {
                            d.ends_with('/')
                                || dirs
                                    .iter()
                                    .any(|base| crate::protected_paths::resolve(d, base).is_dir())
                        }));
                (sources, Some(dest), is_dir)
            }
            _ => return,
        },
    };
    // Where the new files go: the destination, or `DIR/NAME` of each source.
    let dest_dirs: Vec<PathBuf> = match dest {
        None => dirs.clone(),
        Some(Arg::Known(d)) => dirs.iter().map(|base| base.join(d)).collect(),
        Some(other) => {
            if !into_dir {
                push(out, name, other, dirs, false, false);
            } else {
                let mut w = write(call, name, other, dirs);
                if w.unknown_in.is_none() {
                    w.unknown_in = Some(std::mem::take(&mut w.paths));
                }
                out.push(w);
            }
            Vec::new()
        }
    };
    if !dest_dirs.is_empty() {
        if into_dir {
            for source in sources {
                let entry = match source {
                    Arg::Known(s) => {
                        let base = Path::new(s.trim_end_matches('/'))
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned());
                        match base {
                            Some(base) => Arg::Known(base),
                            None => continue,
                        }
                    }
                    computed => {
                        // Its name is unknown: it lands in the destination.
                        let _ = computed;
                        Arg::Computed(Computed {
                            written: None,
                            known: Some(String::new()),
                        })
                    }
                };
                let mut w = write(call, name, &entry, &dest_dirs);
                if matches!(entry, Arg::Computed(_)) {
                    w.unknown_in = Some(dest_dirs.clone());
                }
                w.shown = match dest {
                    Some(d) => format!("{}/{}", d.shown().trim_end_matches('/'), entry.shown()),
                    None => entry.shown(),
                };
                out.push(w);
            }
        } else if let Some(dest) = dest {
            push(out, name, dest, dirs, false, false);
        }
    }
    match name {
        "mv" => {
            for source in sources {
                push(out, "mv", source, dirs, true, false);
                if let Some(last) = out.last_mut() {
                    last.removes = true;
                }
            }
        }
        "ln" => {
            // A symbolic link's target is read from the link's directory; a hard link's from
            // the command's.
            let symbolic = parsed.has(&["-s", "--symbolic"]);
            let link_dirs: Vec<PathBuf> = match (symbolic, dest, into_dir) {
                (true, Some(Arg::Known(d)), true) => dirs.iter().map(|b| b.join(d)).collect(),
                (true, Some(Arg::Known(d)), false) => dirs
                    .iter()
                    .map(|b| {
                        b.join(d)
                            .parent()
                            .map_or_else(|| b.clone(), Path::to_path_buf)
                    })
                    .collect(),
                _ => dirs.clone(),
            };
            for source in sources {
                push(out, "ln", source, &link_dirs, false, false);
            }
        }
        _ => {}
    }
}

/// `chmod`'s arguments: a mode written like an option (`-w`, `-rwx`) is its mode operand.
fn chmod_args(args: &[Arg]) -> Parsed {
    let is_mode = |a: &Arg| {
        a.known().is_some_and(|s| {
            s.len() > 1
                && s.starts_with('-')
                && !s.starts_with("--")
                && s[1..].chars().all(|c| "rwxXstugoa+-=,01234567".contains(c))
                && !s[1..].chars().all(|c| "cfvR".contains(c))
        })
    };
    let mut modes = Vec::new();
    let rest: Vec<Arg> = args
        .iter()
        .filter(|a| {
            let mode = is_mode(a) && modes.is_empty();
            if mode {
                modes.push((*a).clone());
            }
            !mode
        })
        .cloned()
        .collect();
    let mut parsed = parse(&rest, &CHMOD);
    parsed.operands.splice(0..0, modes);
    parsed
}

/// The files `sed` edits in place. A bare `-i` before any operand and followed by an empty
/// word or a suffix (`-i ''`, `-i .bak`) is BSD `sed`'s, which takes that word as the backup
/// suffix; any other `-i` is GNU `sed`'s, whose suffix is attached (`-i.bak`) and which may
/// come after the script (`sed s/a/b/ -i f`).
fn sed_files(args: &[Arg]) -> Vec<Arg> {
    let spec = Spec {
        short: "",
        long: &["expression", "file", "line-length"],
        flags: &[
            "in-place",
            "quiet",
            "silent",
            "debug",
            "follow-symlinks",
            "null-data",
            "zero-terminated",
            "posix",
            "regexp-extended",
            "sandbox",
            "separate",
            "unbuffered",
        ],
        abbreviations: true,
    };
    let suffix = |arg: Option<&Arg>| {
        arg.and_then(Arg::known).is_some_and(|w| {
            w.is_empty() || (w.starts_with('.') && !w.contains(['/', ' ']) && w.len() <= 16)
        })
    };
    let mut in_place = false;
    let mut script = false;
    let operands = walk(args, true, |_, text, next, operands| {
        if let Some(long) = text.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            match canonical(name, &spec).as_str() {
                "in-place" => in_place = true,
                "expression" | "file" => {
                    script = true;
                    *next += usize::from(!inline);
                }
                "line-length" => *next += usize::from(!inline),
                _ => {}
            }
            return true;
        }
        for (at, flag) in text.char_indices().skip(1) {
            let rest_empty = at + 1 == text.len();
            match flag {
                'e' | 'f' => {
                    script = true;
                    *next += usize::from(rest_empty);
                    break;
                }
                'l' => {
                    *next += usize::from(rest_empty);
                    break;
                }
                'i' => {
                    in_place = true;
                    *next += usize::from(rest_empty && operands == 0 && suffix(args.get(*next)));
                    break;
                }
                _ => {}
            }
        }
        true
    });
    if !in_place {
        return Vec::new();
    }
    operands.into_iter().skip(usize::from(!script)).collect()
}

/// Walks `args` as a program reads them and returns its operands: a word nothing of which
/// is known, a word that is no option (`-` included), every word after `--`, with `permute`
/// false every word after the first operand, and a word `option` refuses. Each other word
/// goes to `option` with the text known of it, the index of the next word (which it moves
/// past the words the option takes) and the number of operands before it.
fn walk(
    args: &[Arg],
    permute: bool,
    mut option: impl FnMut(&Arg, &str, &mut usize, usize) -> bool,
) -> Vec<Arg> {
    let mut operands = Vec::new();
    let mut next = 0;
    while next < args.len() {
        let arg = &args[next];
        next += 1;
        let Some(text) = known_start(arg) else {
            operands.push(arg.clone());
            continue;
        };
        if text == "--" && matches!(arg, Arg::Known(_)) {
            operands.extend(args[next..].iter().cloned());
            break;
        }
        let is_option = text.len() > 1 && text.starts_with('-') && (permute || operands.is_empty());
        if !is_option || !option(arg, text, &mut next, operands.len()) {
            operands.push(arg.clone());
        }
    }
    operands
}

/// The files `perl -i` edits in place (none without `-i`).
fn perl_files(args: &[Arg]) -> Vec<Arg> {
    let mut in_place = false;
    let mut code = false;
    // Perl reads no option after its script or first file.
    let operands = walk(args, false, |_, text, next, _| {
        let chars: Vec<char> = text.chars().skip(1).collect();
        let mut c = 0;
        while c < chars.len() {
            let rest_empty = c + 1 == chars.len();
            match chars[c] {
                'e' | 'E' => {
                    code = true;
                    *next += usize::from(rest_empty);
                    break;
                }
                'i' => {
                    in_place = true;
                    break;
                }
                'I' => {
                    *next += usize::from(rest_empty);
                    break;
                }
                'M' | 'm' | 'x' | 'd' | 'D' | 'F' => break,
                '0' | 'l' | 'C' => {
                    c += 1;
                    while c < chars.len() && chars[c].is_ascii_hexdigit() {
                        c += 1;
                    }
                    continue;
                }
                _ => {}
            }
            c += 1;
        }
        true
    });
    if !in_place {
        return Vec::new();
    }
    operands.into_iter().skip(usize::from(!code)).collect()
}

/// `tar`'s writes: the archive it creates or changes, or the files it extracts (unnamed, in
/// its `-C` directory).
fn tar(call: &ShellCall, command: &Cmd, out: &mut Vec<Write>) {
    let mut args = command.args.clone();
    // Old style: `tar xzf a.tar -C dir`, the letters' values in order after them.
    if let Some(Arg::Known(first)) = args.first()
        && !first.starts_with('-')
        && !first.is_empty()
        && first.chars().all(|c| c.is_ascii_alphabetic())
    {
        let letters = first.clone();
        let mut values = args.split_off(1).into_iter();
        let mut leading = Vec::new();
        for letter in letters.chars() {
            leading.push(Arg::Known(format!("-{letter}")));
            if TAR.short.contains(letter)
                && let Some(value) = values.next()
            {
                leading.push(value);
            }
        }
        args = leading;
        args.extend(values);
    }
    let parsed = parse(&args, &TAR);
    let has = |names: &[&str]| parsed.has(names);
    let archives: Vec<&Arg> = parsed.values(&["-f", "--file"]);
    if has(&[
        "-c",
        "--create",
        "-r",
        "--append",
        "-u",
        "--update",
        "-A",
        "--catenate",
        "--concatenate",
        "--delete",
    ]) {
        for archive in archives {
            if archive.known() != Some("-") {
                let mut w = write(call, "tar", archive, &command.dirs);
                w.by = "tar -f".to_owned();
                out.push(w);
            }
        }
    } else if has(&["-x", "--extract", "--get"]) && !has(&["-O", "--to-stdout"]) {
        let dir = parsed.values(&["-C", "--directory"]).into_iter().last();
        out.push(Write {
            by: "tar -x".to_owned(),
            shown: command.shown(),
            paths: Vec::new(),
            unknown_in: Some(directories(call, dir, &command.dirs)),
            tree: false,
            creates_dir: false,
            removes: false,
            finds: None,
        });
    }
}

/// The start paths of a `find` that deletes or runs a writer on what it finds (`-delete`,
/// `-exec rm {} +`), and what it selects: `None` for a `find` that writes nothing.
fn find_writes(call: &ShellCall, args: &[Arg]) -> Option<(Vec<Arg>, Finds)> {
    let mut k = 0;
    // `-H`, `-L`, `-P`, `-D opts`, `-O3`.
    while let Some(text) = args.get(k).and_then(Arg::known) {
        match text {
            "-H" | "-L" | "-P" => k += 1,
            "-D" => k += 2,
            t if t.starts_with("-O") => k += 1,
            _ => break,
        }
    }
    let mut starts = Vec::new();
    while let Some(arg) = args.get(k) {
        if known_start(arg).is_some_and(|t| t.starts_with('-') || matches!(t, "(" | "!" | ",")) {
            break;
        }
        starts.push(arg.clone());
        k += 1;
    }
    let expression = &args[k..];
    let mut writes = false;
    let mut finds = Finds {
        start: String::new(),
        names: Vec::new(),
        paths: Vec::new(),
        everything: false,
    };
    let mut branches = false;
    for (i, arg) in expression.iter().enumerate() {
        let value = || {
            expression
                .get(i + 1)
                .map(|v| v.known().unwrap_or("*").to_owned())
        };
        match arg.known() {
            Some("-delete") => writes = true,
            Some("-exec" | "-execdir" | "-ok" | "-okdir") => {
                let run = &expression[i + 1..];
                let end = run
                    .iter()
                    .position(|a| matches!(a.known(), Some(";" | "+")))
                    .unwrap_or(run.len());
                writes |= exec_writes(call, &run[..end], 0);
            }
            Some(test @ ("-name" | "-iname")) => {
                finds.names.extend(value().map(|v| (v, test == "-iname")))
            }
            Some(test @ ("-path" | "-wholename" | "-ipath" | "-iwholename")) => {
                finds
                    .paths
                    .extend(value().map(|v| (v, test.starts_with("-i"))));
            }
            Some("!" | "-not" | "-o" | "-or" | ",") => branches = true,
            _ => {}
        }
    }
    if !writes {
        return None;
    }
    finds.everything = branches || (finds.names.is_empty() && finds.paths.is_empty());
    if starts.is_empty() {
        starts.push(Arg::Known(".".to_owned()));
    }
    Some((starts, finds))
}

/// Where a file `find` finds stands in the command it runs, to tell whether that command
/// writes it: a path no file system has.
const FOUND: &str = "/\u{E001}";

/// Whether the command a `find` runs on what it finds (`words`, its program first, `{}` the
/// file found) writes that file, as this table reads the command: `rm {}`, `cp x {}`,
/// `gzip {}` do, `cp {} /tmp` and `grep x {}` do not. Through wrappers (`sudo`, `env`,
/// `timeout`, …), and into a shell's `-c` string, where the file is its `$1` or `$@` (`sh -c
/// 'rm "$1"' _ {}`).
fn exec_writes(call: &ShellCall, words: &[Arg], depth: usize) -> bool {
    let mut k = 0;
    loop {
        let Some(program) = words.get(k).and_then(Arg::known) else {
            return false;
        };
        let name = program.rsplit('/').next().unwrap_or(program);
        let (valued, operands): (&[&str], usize) = match name {
            "sudo" => (
                &[
                    "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R",
                ],
                0,
            ),
            "doas" => (&["-u", "-C"], 0),
            "env" => (&["-u", "--unset", "-C", "--chdir"], 0),
            "nice" => (&["-n", "--adjustment"], 0),
            "timeout" => (&["-s", "--signal", "-k", "--kill-after"], 1),
            "ionice" => (&["-c", "--class", "-n", "--classdata"], 0),
            "stdbuf" => (&["-i", "-o", "-e"], 0),
            "chrt" | "taskset" => (&[], 1),
            "nohup" | "setsid" | "command" | "exec" | "time" | "busybox" | "toybox"
            | "fakeroot" => (&[], 0),
            _ if Shell::of_program(name).is_some() => {
                return depth < 2 && shell_string_writes(call, &words[k + 1..], depth);
            }
            _ => {
                let run = Cmd {
                    program: Some(program.to_owned()),
                    args: words[k + 1..]
                        .iter()
                        .map(|a| match a {
                            Arg::Known(s) => Arg::Known(s.replace("{}", FOUND)),
                            other => other.clone(),
                        })
                        .collect(),
                    dirs: vec![PathBuf::from("/")],
                    fed: None,
                };
                let mut writes = Vec::new();
                command_writes(call, &run, &mut writes);
                return writes
                    .iter()
                    .any(|w| w.paths.iter().any(|p| p.starts_with(FOUND)));
            }
        };
        k += 1;
        while let Some(text) = words.get(k).and_then(Arg::known) {
            if valued.contains(&text) {
                k += 2;
            } else if (text.starts_with('-') && text.len() > 1)
                || (matches!(name, "env" | "sudo") && text.contains('='))
            {
                k += 1;
            } else {
                break;
            }
        }
        k += operands;
    }
}

/// Whether the `-c` string of a shell's `args` writes the file `find` gives it (its `$1`,
/// `$@`, or a `{}` in the string): a command of it that writes an argument the string
/// computes, or a redirection into a computed file.
fn shell_string_writes(call: &ShellCall, args: &[Arg], depth: usize) -> bool {
    let words: Vec<&str> = args.iter().map_while(Arg::known).collect();
    let Some(at) = words
        .iter()
        .position(|w| w.starts_with('-') && !w.starts_with("--") && w.ends_with('c'))
    else {
        return false;
    };
    let Some(script) = words.get(at + 1) else {
        return false;
    };
    let line = Line::parse(script, Shell::Bash, &Context::new("/"));
    line.redirects
        .iter()
        .any(|r| r.writes() && matches!(r.target, Word::Dynamic(_)))
        || line.commands.iter().any(|c| {
            let Some(program) = c.program.as_static() else {
                return false;
            };
            let mut run = vec![Arg::Known(program.to_owned())];
            run.extend(c.args.iter().map(|w| match w {
                Word::Static(s) => Arg::Known(s.clone()),
                Word::Dynamic(_) => Arg::Known("{}".to_owned()),
            }));
            c.wrappers.is_empty() && exec_writes(call, &run, depth + 1)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write as the tests compare it: by, paths and unknown directories (relative to
    /// `/p`), tree.
    #[derive(Debug, PartialEq)]
    struct Seen(String, Vec<String>, Option<Vec<String>>, bool);

    fn writes(line: &str) -> Vec<Seen> {
        let call = ShellCall::read_line(line, Path::new("/p"));
        let rel = |p: &PathBuf| {
            p.strip_prefix("/p")
                .map_or_else(|_| p.display().to_string(), |r| r.display().to_string())
        };
        call.writes()
            .into_iter()
            .map(|w| {
                Seen(
                    w.by,
                    w.paths.iter().map(rel).collect(),
                    w.unknown_in.map(|d| d.iter().map(rel).collect()),
                    w.tree,
                )
            })
            .collect()
    }

    fn paths(line: &str) -> Vec<String> {
        writes(line).into_iter().flat_map(|w| w.1).collect()
    }

    #[test]
    fn redirections_and_file_operands_are_written() {
        assert_eq!(
            paths("echo x > a 2>/dev/null >> b <c &> d"),
            ["a", "/dev/null", "b", "d"]
        );
        assert_eq!(paths("tee -a x --output-error=warn y"), ["x", "y"]);
        assert_eq!(paths("touch -d yesterday -r ref f"), ["f"]);
        assert_eq!(paths("truncate -s0 a"), ["a"]);
        assert_eq!(paths("dd if=/dev/zero of=disk.img bs=1M"), ["disk.img"]);
        assert_eq!(paths("mkdir -m 700 -p d"), ["d"]);
        assert!(paths("cat a; grep x b; ls c").is_empty());
    }

    #[test]
    fn rm_recursive_in_every_spelling_writes_the_tree() {
        for line in [
            "rm -rf x",
            "rm -fR x",
            "rm -r -f x",
            "rm --recursive x",
            "rm --rec x",
            "rm --r x",
        ] {
            assert!(writes(line)[0].3, "{line}");
        }
        assert!(!writes("rm -f x")[0].3);
        assert_eq!(paths("rm -- -r"), ["-r"]);
    }

    #[test]
    fn sed_and_perl_write_only_in_place() {
        assert_eq!(paths("sed -i s/a/b/ f"), ["f"]);
        assert_eq!(paths("sed -i.bak -e s/a/b/ -e s/c/d/ f g"), ["f", "g"]);
        assert_eq!(paths("sed -i '' s/a/b/ f"), ["f"]);
        assert_eq!(paths("sed -i .orig s/a/b/ f"), ["f"]);
        assert_eq!(paths("sed s/a/b/ -i .env"), [".env"]);
        assert_eq!(paths("sed --in-place=.orig s/a/b/ f"), ["f"]);
        assert_eq!(paths("sed --in s/a/b/ f"), ["f"]);
        assert_eq!(paths("sed -ni 's/a/b/p' f"), ["f"]);
        assert!(paths("sed -n 1,5p f").is_empty());
        assert!(paths("sed s/a/b/ f > g").ends_with(&["g".to_owned()]));
        assert_eq!(paths("perl -pi -e s/a/b/ f g"), ["f", "g"]);
        assert_eq!(paths("perl -i.bak -lpe 1 f"), ["f"]);
        assert!(paths("perl -ne 'print' f").is_empty());
    }

    #[test]
    fn copies_write_their_destination_and_moves_their_sources() {
        assert_eq!(paths("cp a b"), ["b"]);
        assert_eq!(paths("cp -r a b c/"), ["c/a", "c/b"]);
        assert_eq!(paths("cp -t d a b"), ["d/a", "d/b"]);
        assert_eq!(paths("cp --target-directory=d x/a"), ["d/a"]);
        assert_eq!(
            paths("install -m 755 x h/post-checkout"),
            ["h/post-checkout"]
        );
        assert_eq!(paths("install -d a b"), ["a", "b"]);
        assert_eq!(
            writes("mv a b"),
            [
                Seen("mv".to_owned(), vec!["b".to_owned()], None, false),
                Seen("mv".to_owned(), vec!["a".to_owned()], None, true),
            ]
        );
        // A link, and what it links to.
        assert_eq!(paths("ln -sf /tmp/x .env"), [".env", "/tmp/x"]);
        assert_eq!(paths("ln -s ../t d/l"), ["d/l", "d/../t"]);
        assert_eq!(paths("ln -s /etc/hosts"), ["hosts", "/etc/hosts"]);
    }

    #[test]
    fn modes_owners_and_archives() {
        assert_eq!(paths("chmod 600 a b"), ["a", "b"]);
        assert_eq!(paths("chmod -w a"), ["a"]);
        assert!(writes("chmod -R u+w d")[0].3);
        assert_eq!(paths("chown --reference=r a"), ["a"]);
        assert_eq!(paths("chgrp -R staff d"), ["d"]);
        assert_eq!(paths("rsync -av -e 'ssh -i k' src/ dest/"), ["dest"]);
        assert!(paths("rsync -av src/ host:dest/").is_empty());
        assert!(writes("rsync -a --delete s/ d/")[0].3);
        assert_eq!(paths("tar czf out.tgz src"), ["out.tgz"]);
        assert_eq!(
            writes("tar -xzf a.tgz -C x")[0].2,
            Some(vec!["x".to_owned()])
        );
        assert_eq!(writes("tar xf a.tar")[0].2, Some(vec![String::new()]));
        assert!(writes("tar tf a.tar").is_empty());
        assert!(writes("tar -xOf a.tar").is_empty());
    }

    #[test]
    fn downloads_patches_and_finds() {
        assert_eq!(paths("curl -fsSL -o out https://x"), ["out"]);
        assert_eq!(paths("curl https://x --output=o2"), ["o2"]);
        assert_eq!(
            writes("curl -O https://x/a")[0].2,
            Some(vec![String::new()])
        );
        assert!(writes("curl -d @f https://x").is_empty());
        assert_eq!(paths("wget -qO f https://x"), ["f"]);
        assert_eq!(writes("wget https://x")[0].2, Some(vec![String::new()]));
        assert_eq!(paths("patch -p1 f < d.patch"), ["f"]);
        assert_eq!(
            writes("patch -p1 < d.patch")[0].2,
            Some(vec![String::new()])
        );
        assert_eq!(
            writes("git -C sub apply x.patch")[0].2,
            Some(vec!["sub".to_owned()])
        );
        assert!(writes("git apply --check x.patch").is_empty());
        assert!(writes("git status").is_empty());
        assert_eq!(paths("find .git -name '*.sample' -delete"), [".git"]);
        assert_eq!(paths("find a b -type f -exec rm {} +"), ["a", "b"]);
        assert!(paths("find . -name '*.rs' -exec grep -l x {} +").is_empty());
    }

    #[test]
    fn a_find_that_writes_says_what_it_selects() {
        let finds = |line: &str| {
            ShellCall::read_line(line, Path::new("/p")).writes()[0]
                .finds
                .clone()
                .unwrap()
        };
        let by_name = finds("find . -name '*.pyc' -delete");
        assert!(by_name.may_select(Path::new("a/b.pyc")));
        assert!(!by_name.may_select(Path::new(".git")));
        let by_path = finds("find . -path './.git/*' -exec rm {} +");
        assert!(by_path.may_select(Path::new(".git")));
        assert!(!by_path.may_select(Path::new("src")));
        assert!(finds("find . -type f -delete").may_select(Path::new(".git")));
        assert!(finds("find . -not -name x -delete").may_select(Path::new(".git")));
    }

    #[test]
    fn computed_targets_keep_what_is_known() {
        let home = std::env::var("HOME").unwrap_or_default();
        assert_eq!(writes(r#"echo > "$OUT""#)[0].2, Some(vec![]));
        assert_eq!(
            writes("echo > .git/hooks/$N")[0].2,
            Some(vec![".git/hooks".to_owned()])
        );
        assert_eq!(writes("echo > out$N.log")[0].2, Some(vec![String::new()]));
        assert_eq!(
            writes("cp x ~/.ssh/$(cat k)")[0].2,
            Some(vec![format!("{home}/.ssh")])
        );
        // What `echo` prints is known, and so is a default.
        assert_eq!(paths("cp x ~/.ssh/$(echo k)"), [format!("{home}/.ssh/k")]);
        assert_eq!(paths("cp x \"$(echo .git)/hooks/p\""), [".git/hooks/p"]);
        assert_eq!(paths("echo > ${OUT:-.env}"), [".env"]);
        assert_eq!(writes("echo > ${OUT:-.env}")[0].2, Some(vec![]));
        assert_eq!(paths("rm -rf \"${D:-build}/x\""), ["build/x"]);
        assert_eq!(paths("echo > ${OUT:+.env}"), [".env"]);
        // A glob in a directory that does not exist names itself.
        assert_eq!(
            paths("touch /nonexistent-dir/*.rs"),
            ["/nonexistent-dir/*.rs"]
        );
        assert_eq!(
            paths("tee .git/{config,HEAD}"),
            [".git/config", ".git/HEAD"]
        );
        // The operands `xargs` feeds are not known: a write in no known place.
        assert!(
            writes("ls | xargs rm")
                .iter()
                .any(|w| w.0 == "xargs rm" && w.2 == Some(vec![]))
        );
    }
}
