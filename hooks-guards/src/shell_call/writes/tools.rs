//! The programs of the [table](super) read apart, each by its own rules: archives and
//! compressors, git's commands that name files, editors and in-place editors, and programs
//! with an output file among their options or operands.
//!
//! | writes | forms |
//! |---|---|
//! | files it does not name, in a known directory (and the members it names) | `unzip` in `-d DIR`, `7z x`/`e` in `-oDIR` |
//! | the archive | `7z a`/`u`/`d`/`rn` |
//! | the input it replaces (removes) and the output | `gzip`, `gunzip`, `bzip2`, `xz`, `zstd --rm`, `lz4`, `brotli`, … (none with `-c`, `-t`, `-l`; the input kept with `-k`) |
//! | the paths it names | `git checkout [TREE] [--] PATH`, `git restore PATH` (not `--staged` alone), `git rm` (not `--cached`), `git mv`, `git clean -f PATH` |
//! | the files it opens | `ed`, `ex`, `vi`, `vim`, `nvim`, `nano`, `emacs` (not `vim -R`) |
//! | the files edited in place | `awk -i inplace`, `yq -i` |
//! | the database (unless its SQL only reads) and the files its dot-commands write | `sqlite3` |
//! | the output file | `sort -o`, `uniq IN OUT`, `iconv -o`, `openssl -out`/`-keyout`, `gpg -o`, `xxd IN OUT`, `sponge`, `strace -o`, `ltrace -o`, `time -o`, `script FILE` |
//! | files it names, in a known directory | `split`'s and `csplit`'s prefix, `mktemp`'s template |
//! | the key files and `known_hosts` | `ssh-keygen` (`-f FILE` and `FILE.pub`, else `~/.ssh/id_*`; `-R` and `-H` `known_hosts`) |
//! | the local destination | `scp` |
//! | the paths it names | `mkfifo`, `mknod`, `rename`, `setfacl`, `chattr`, `rimraf` (the tree) |
//! | what the program it runs writes | `npx`, `bunx`, `pnpx` |

use std::path::PathBuf;

use super::{
    Arg, Cmd, Computed, PLAIN, ShellCall, Spec, Write, command_writes, copy, directories,
    is_remote, known_start, parse, parse_with, walk, write,
};
use crate::protected_paths::resolve;

/// The programs of this module.
pub(super) fn is_tool(name: &str) -> bool {
    compressor(name).is_some()
        || matches!(
            name,
            "unzip"
                | "7z"
                | "7za"
                | "7zr"
                | "7zz"
                | "sqlite3"
                | "ed"
                | "red"
                | "ex"
                | "vi"
                | "vim"
                | "nvim"
                | "nano"
                | "emacs"
                | "awk"
                | "gawk"
                | "split"
                | "csplit"
                | "sort"
                | "uniq"
                | "mkfifo"
                | "mknod"
                | "rename"
                | "prename"
                | "file-rename"
                | "perl-rename"
                | "iconv"
                | "openssl"
                | "gpg"
                | "gpg2"
                | "ssh-keygen"
                | "scp"
                | "sponge"
                | "xxd"
                | "mktemp"
                | "setfacl"
                | "chattr"
                | "yq"
                | "strace"
                | "ltrace"
                | "time"
                | "script"
                | "npx"
                | "bunx"
                | "pnpx"
                | "rimraf"
        )
}

/// The writes of `command` (the program `name`) into `out` when it is a program of this
/// module; `false` when it is not.
pub(super) fn writes(call: &ShellCall, name: &str, command: &Cmd, out: &mut Vec<Write>) -> bool {
    let dirs = &command.dirs;
    let args = &command.args;
    let made = |by: &str, target: &Arg| write(call, by, target, dirs);
    match name {
        "unzip" => unzip(call, command, out),
        "7z" | "7za" | "7zr" | "7zz" => seven_zip(call, command, out),
        n if compressor(n).is_some() => compress(call, n, command, out),
        "sqlite3" => sqlite(call, command, out),
        "ed" | "red" | "ex" | "vi" | "vim" | "nvim" | "nano" | "emacs" => {
            let spec = match name {
                "emacs" => &EMACS,
                "nano" => &NANO,
                "ed" | "red" => &ED,
                _ => &VIM,
            };
            let parsed = parse(args, spec);
            if parsed.has(&["-R", "--version", "-h", "--help"]) {
                return true;
            }
            for file in &parsed.operands {
                if !known_start(file).is_some_and(|t| t.starts_with('+')) {
                    out.push(made(name, file));
                }
            }
        }
        "awk" | "gawk" => {
            for file in awk_in_place(args) {
                out.push(made("awk -i inplace", &file));
            }
        }
        "split" | "csplit" => {
            let prefix = if name == "split" {
                parse(args, &SPLIT).operands.get(1).cloned()
            } else {
                parse(args, &CSPLIT)
                    .values(&["-f", "--prefix"])
                    .last()
                    .map(|a| (*a).clone())
            };
            let prefix = prefix
                .unwrap_or_else(|| Arg::Known(if name == "split" { "x" } else { "xx" }.to_owned()));
            // The files are named `PREFIXaa`, `PREFIXab`, …: known up to the prefix.
            let known = known_start(&prefix).map(str::to_owned);
            let mut w = made(
                name,
                &Arg::Computed(Computed {
                    written: None,
                    known: known.or(Some(String::new())),
                }),
            );
            w.shown = format!("{}…", prefix.shown());
            out.push(w);
        }
        "sort" => {
            for file in parse(args, &SORT).values(&["-o", "--output"]) {
                out.push(made("sort -o", file));
            }
        }
        "uniq" => {
            if let Some(output) = parse(args, &UNIQ).operands.get(1) {
                out.push(made("uniq", output));
            }
        }
        "xxd" => {
            if let Some(output) = parse(args, &XXD).operands.get(1) {
                out.push(made("xxd", output));
            }
        }
        "mkfifo" | "mknod" => {
            let operands = parse(args, &MKFIFO).operands;
            let take = if name == "mknod" { 1 } else { operands.len() };
            for file in operands.iter().take(take) {
                out.push(made(name, file));
            }
        }
        "rename" | "prename" | "file-rename" | "perl-rename" => {
            let parsed = parse(args, &RENAME);
            if parsed.has(&["-n", "--no-act", "--nono", "--dry-run"]) {
                return true;
            }
            // Perl's `rename EXPR FILE…` and util-linux's `rename FROM TO FILE…` alike: what
            // follows the expression (or `FROM`) may be renamed.
            let skip = usize::from(!parsed.has(&["-e"]));
            for file in parsed.operands.iter().skip(skip) {
                let mut w = made(name, file);
                w.removes = true;
                out.push(w);
            }
        }
        "iconv" => {
            for file in parse(args, &ICONV).values(&["-o", "--output"]) {
                out.push(made("iconv -o", file));
            }
        }
        "openssl" | "gpg" | "gpg2" => {
            let options: &[&str] = if name == "openssl" {
                &["-out", "-keyout", "-writerand", "-sess_out"]
            } else {
                &["-o", "--output"]
            };
            for (k, arg) in args.iter().enumerate() {
                let Some(text) = arg.known() else { continue };
                if options.contains(&text)
                    && let Some(file) = args.get(k + 1)
                {
                    out.push(made(name, file));
                } else if let Some(file) = text.strip_prefix("--output=")
                    && name != "openssl"
                {
                    out.push(made(name, &Arg::Known(file.to_owned())));
                }
            }
        }
        "ssh-keygen" => ssh_keygen(call, command, out),
        "scp" => scp(call, command, out),
        "sponge" => {
            for file in &parse(args, &PLAIN).operands {
                out.push(made("sponge", file));
            }
        }
        "mktemp" => mktemp(call, command, out),
        "setfacl" | "chattr" => {
            let (operands, tree) = if name == "setfacl" {
                let parsed = parse(args, &SETFACL);
                if parsed.has(&["--test"]) {
                    return true;
                }
                let tree = parsed.has(&["-R", "--recursive"]);
                (parsed.operands, tree)
            } else {
                chattr_files(args)
            };
            for file in &operands {
                let mut w = made(name, file);
                w.tree = tree;
                out.push(w);
            }
        }
        "yq" => {
            let parsed = parse(args, &YQ);
            if !parsed.has(&["-i", "--inplace"]) {
                return true;
            }
            let mut operands = parsed.operands.iter().peekable();
            if operands
                .peek()
                .and_then(|a| a.known())
                .is_some_and(|s| matches!(s, "e" | "eval" | "ea" | "eval-all"))
            {
                operands.next();
            }
            if !parsed.has(&["--from-file"]) {
                operands.next();
            }
            for file in operands {
                out.push(made("yq -i", file));
            }
        }
        "strace" | "ltrace" | "time" => {
            let spec = match name {
                "strace" => &STRACE,
                "ltrace" => &LTRACE,
                _ => &TIME,
            };
            for file in parse_with(args, spec, false).values(&["-o", "--output"]) {
                out.push(made(&format!("{name} -o"), file));
            }
        }
        "script" => {
            let parsed = parse(args, &SCRIPT);
            let logs = parsed.values(&[
                "-O",
                "-I",
                "-B",
                "-T",
                "--log-out",
                "--log-in",
                "--log-io",
                "--log-timing",
            ]);
            for file in &logs {
                out.push(made("script", file));
            }
            match parsed.operands.first() {
                Some(file) => out.push(made("script", file)),
                None if logs.is_empty() => {
                    out.push(made("script", &Arg::Known("typescript".to_owned())));
                }
                None => {}
            }
        }
        "npx" | "bunx" | "pnpx" => {
            if let Some(run) = package_runner(command) {
                command_writes(call, &run, out);
            }
        }
        "rimraf" => {
            for file in &parse(args, &PLAIN).operands {
                let mut w = made("rimraf", file);
                w.tree = true;
                w.removes = true;
                out.push(w);
            }
        }
        _ => return false,
    }
    true
}

/// A write of files `by` does not name, in `dirs`.
fn unnamed(by: &str, command: &Cmd, dirs: Vec<PathBuf>) -> Write {
    Write {
        by: by.to_owned(),
        shown: command.shown(),
        paths: Vec::new(),
        unknown_in: Some(dirs),
        tree: false,
        creates_dir: false,
        removes: false,
        finds: None,
    }
}

/// `unzip`: what it extracts into its `-d` directory (or where it runs), and the members it
/// names there; nothing when it lists, tests or prints.
fn unzip(call: &ShellCall, command: &Cmd, out: &mut Vec<Write>) {
    // `-x` excludes the names after it, up to the next option.
    let mut kept = Vec::new();
    let mut excluding = false;
    for arg in &command.args {
        match known_start(arg) {
            Some("-x") => {
                excluding = true;
                continue;
            }
            Some(t) if t.starts_with('-') => excluding = false,
            _ if excluding => continue,
            _ => {}
        }
        kept.push(arg.clone());
    }
    let parsed = parse(&kept, &UNZIP);
    if parsed.has(&["-l", "-t", "-p", "-v", "-z", "-Z", "-c"]) {
        return;
    }
    let dir = parsed.values(&["-d"]).into_iter().last();
    let into = directories(call, dir, &command.dirs);
    out.push(unnamed("unzip", command, into.clone()));
    for member in parsed.operands.iter().skip(1) {
        out.push(write(call, "unzip", member, &into));
    }
}

/// `7z x`/`e` extract into `-oDIR` (or where it runs); `7z a`/`u`/`d`/`rn` write the archive.
fn seven_zip(call: &ShellCall, command: &Cmd, out: &mut Vec<Write>) {
    let mut dir = None;
    let mut operands = Vec::new();
    for arg in &command.args {
        match known_start(arg) {
            Some(t) if t.starts_with("-o") => dir = Some(super::after(arg, 2)),
            Some(t) if t.starts_with('-') => {}
            _ => operands.push(arg),
        }
    }
    match operands.first().and_then(|a| a.known()) {
        Some("x" | "e") => {
            let into = directories(call, dir.as_ref(), &command.dirs);
            out.push(unnamed("7z x", command, into.clone()));
            for member in operands.iter().skip(2) {
                out.push(write(call, "7z x", member, &into));
            }
        }
        Some("a" | "u" | "d" | "rn") => {
            if let Some(archive) = operands.get(1) {
                out.push(write(call, "7z", archive, &command.dirs));
            }
        }
        _ => {}
    }
}

/// How a compressor works: whether it decompresses, whether it keeps its input, the suffix
/// it adds, and the options that take a value.
fn compressor(name: &str) -> Option<(bool, bool, &'static str, &'static str)> {
    Some(match name {
        "gzip" | "pigz" => (false, false, ".gz", "Sbp"),
        "gunzip" | "unpigz" => (true, false, ".gz", "S"),
        "bzip2" => (false, false, ".bz2", ""),
        "bunzip2" => (true, false, ".bz2", ""),
        "xz" | "lzma" => (false, false, ".xz", "STMFC"),
        "unxz" | "unlzma" => (true, false, ".xz", "STMFC"),
        "zstd" => (false, true, ".zst", "oD"),
        "unzstd" => (true, true, ".zst", "oD"),
        "lz4" => (false, true, ".lz4", ""),
        "lzip" => (false, false, ".lz", "obmsS"),
        "brotli" => (false, true, ".br", "oqwS"),
        _ => return None,
    })
}

/// A compressor's writes: each input it replaces (removed unless kept) and the file it writes
/// next to it (`x` → `x.gz`, `x.gz` → `x`), or its `-o` file.
fn compress(call: &ShellCall, name: &str, command: &Cmd, out: &mut Vec<Write>) {
    let Some((decompresses, keeps, suffix, valued)) = compressor(name) else {
        return;
    };
    let spec = Spec {
        short: valued,
        long: &["suffix", "output", "threads", "memlimit", "format", "check"],
        flags: &[
            "stdout",
            "to-stdout",
            "decompress",
            "uncompress",
            "keep",
            "force",
            "test",
            "list",
            "recursive",
            "rm",
            "quiet",
            "verbose",
        ],
        abbreviations: true,
    };
    let parsed = parse(&command.args, &spec);
    if parsed.has(&[
        "-c",
        "--stdout",
        "--to-stdout",
        "-t",
        "--test",
        "-l",
        "--list",
    ]) {
        return;
    }
    let decompresses = decompresses || parsed.has(&["-d", "--decompress", "--uncompress"]);
    let keeps = (keeps && !parsed.has(&["--rm", "-j"])) || parsed.has(&["-k", "--keep"]);
    let tree = parsed.has(&["-r", "--recursive"]);
    let outputs = parsed.values(&["-o", "--output"]);
    let by = if decompresses {
        format!("{name} -d")
    } else {
        name.to_owned()
    };
    let inputs: Vec<&Arg> = parsed
        .operands
        .iter()
        .filter(|a| a.known() != Some("-"))
        .collect();
    // `lz4 IN OUT`.
    if name == "lz4"
        && let [_, output] = inputs.as_slice()
    {
        out.push(write(call, &by, output, &command.dirs));
        return;
    }
    for output in &outputs {
        out.push(write(call, &by, output, &command.dirs));
    }
    for input in inputs {
        if !keeps {
            let mut w = write(call, &by, input, &command.dirs);
            w.removes = true;
            w.tree = tree;
            out.push(w);
        }
        if !outputs.is_empty() {
            continue;
        }
        let Some(text) = input.known() else { continue };
        let next = if decompresses {
            const SUFFIXES: [&str; 10] = [
                ".gz", ".z", ".tgz", ".bz2", ".xz", ".lzma", ".zst", ".lz4", ".lz", ".br",
            ];
            match SUFFIXES
                .iter()
                .find_map(|s| Some((text.strip_suffix(s)?, *s)))
            {
                Some((stem, ".tgz")) if !stem.is_empty() => format!("{stem}.tar"),
                Some((stem, _)) if !stem.is_empty() && !stem.ends_with('/') => stem.to_owned(),
                _ => continue,
            }
        } else {
            format!("{text}{suffix}")
        };
        out.push(write(call, &by, &Arg::Known(next), &command.dirs));
    }
}

/// `sqlite3 DB [SQL…]`: the database, unless `-readonly` or every SQL text it is given only
/// reads, and the files its dot-commands write (`.output F`, `.once F`, `.save F`,
/// `.backup F`).
fn sqlite(call: &ShellCall, command: &Cmd, out: &mut Vec<Write>) {
    const VALUED: [&str; 12] = [
        "cmd",
        "init",
        "separator",
        "newline",
        "nullvalue",
        "vfs",
        "mmap",
        "lookaside",
        "pagecache",
        "heap",
        "maxsize",
        "escape",
    ];
    let args = &command.args;
    let mut readonly = false;
    let mut sql: Vec<&Arg> = Vec::new();
    let mut operands: Vec<&Arg> = Vec::new();
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        k += 1;
        match arg.known() {
            Some(text) if text.starts_with('-') && text.len() > 1 && operands.is_empty() => {
                let option = text.trim_start_matches('-');
                if option == "readonly" {
                    readonly = true;
                } else if option == "cmd" {
                    sql.extend(args.get(k));
                    k += 1;
                } else if VALUED.contains(&option) {
                    k += 1;
                }
            }
            _ => operands.push(arg),
        }
    }
    let Some(db) = operands.first() else { return };
    sql.extend(&operands[1..]);
    for text in sql.iter().filter_map(|a| a.known()) {
        for line in text.lines().map(str::trim) {
            let mut words = line.split_whitespace();
            if matches!(
                words.next(),
                Some(".output" | ".once" | ".save" | ".backup" | ".log")
            ) && let Some(file) = words.rfind(|w| !w.starts_with('-'))
            {
                let file = file.trim_matches(['\'', '"']);
                if !matches!(file, "stdout" | "stderr" | "off") {
                    out.push(write(
                        call,
                        "sqlite3",
                        &Arg::Known(file.to_owned()),
                        &command.dirs,
                    ));
                }
            }
        }
    }
    if readonly || db.known() == Some(":memory:") {
        return;
    }
    let reads = !sql.is_empty() && sql.iter().all(|a| a.known().is_some_and(reads_only));
    if !reads {
        out.push(write(call, "sqlite3", db, &command.dirs));
    }
}

/// Whether SQL text (with `sqlite3`'s dot-commands) only reads.
fn reads_only(sql: &str) -> bool {
    const READING: [&str; 12] = [
        ".schema",
        ".tables",
        ".indexes",
        ".indices",
        ".dump",
        ".mode",
        ".headers",
        ".help",
        ".show",
        ".databases",
        ".fullschema",
        ".dbinfo",
    ];
    let lower = sql.to_ascii_lowercase();
    let dots_read = lower.lines().map(str::trim).all(|line| {
        !line.starts_with('.')
            || READING
                .iter()
                .any(|r| line.split_whitespace().next() == Some(r))
    });
    let writes = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|w| {
            matches!(
                w,
                "insert"
                    | "update"
                    | "delete"
                    | "replace"
                    | "create"
                    | "drop"
                    | "alter"
                    | "vacuum"
                    | "attach"
                    | "reindex"
                    | "analyze"
                    | "begin"
                    | "commit"
            )
        });
    dots_read && !writes && !(lower.contains("pragma") && lower.contains('='))
}

/// The files `awk -i inplace` (gawk) edits: its file operands, after the program text unless
/// the program comes from `-f` or `-e` (`var=value` operands are assignments).
fn awk_in_place(args: &[Arg]) -> Vec<Arg> {
    let mut in_place = false;
    let mut program_given = false;
    let operands = walk(args, false, |arg, text, next, _| {
        let (option, attached) = match text.strip_prefix("--") {
            Some(long) => match long.split_once('=') {
                Some((name, _)) => (format!("--{name}"), Some(after_eq(arg, name.len() + 3))),
                None => (text.to_owned(), None),
            },
            None => {
                let option: String = text.chars().take(2).collect();
                let rest = text.chars().count() > 2;
                (option, rest.then(|| super::after(arg, 2)))
            }
        };
        let valued = matches!(
            option.as_str(),
            "-i" | "--include"
                | "-f"
                | "--file"
                | "-e"
                | "--source"
                | "-E"
                | "--exec"
                | "-v"
                | "--assign"
                | "-F"
                | "--field-separator"
                | "-l"
                | "--load"
                | "-W"
        );
        if !valued {
            return true;
        }
        let value = match attached {
            Some(value) => value,
            None => {
                *next += 1;
                match args.get(*next - 1) {
                    Some(value) => value.clone(),
                    None => return true,
                }
            }
        };
        match option.as_str() {
            "-i" | "--include" => {
                in_place |= matches!(value.known(), Some("inplace" | "inplace.awk"));
            }
            "-f" | "--file" | "-e" | "--source" | "-E" | "--exec" => program_given = true,
            _ => {}
        }
        true
    });
    if !in_place {
        return Vec::new();
    }
    operands
        .into_iter()
        .skip(usize::from(!program_given))
        .filter(|a| !known_start(a).is_some_and(|t| t.contains('=')))
        .collect()
}

/// `arg` after its first `n` characters (the value of `--name=value`).
fn after_eq(arg: &Arg, n: usize) -> Arg {
    super::after(arg, n)
}

/// `ssh-keygen`'s writes: the key it makes or changes (`-f FILE` and `FILE.pub`, else a new
/// `~/.ssh/id_*`), the `known_hosts` that `-R` and `-H` rewrite, the host keys of `-A`;
/// nothing when it only reads or prints (`-l`, `-y`, `-F`, `-e`, …).
fn ssh_keygen(call: &ShellCall, command: &Cmd, out: &mut Vec<Write>) {
    let parsed = parse(&command.args, &SSH_KEYGEN);
    let home = call.var("HOME");
    let file = parsed.values(&["-f"]).into_iter().last().cloned();
    let mut targets: Vec<Arg> = Vec::new();
    if parsed.has(&["-R", "-H"]) {
        targets.extend(file.or_else(|| {
            home.as_ref()
                .map(|h| Arg::Known(format!("{h}/.ssh/known_hosts")))
        }));
    } else if parsed.has(&["-A"]) {
        targets.push(Arg::Computed(Computed {
            written: None,
            known: Some("/etc/ssh/ssh_host_".to_owned()),
        }));
    } else if !parsed.has(&[
        "-l", "-y", "-F", "-B", "-L", "-e", "-i", "-Q", "-D", "-Y", "-k", "-r", "-G", "-T", "-M",
    ]) {
        match file {
            Some(Arg::Known(f)) => {
                targets.push(Arg::Known(format!("{f}.pub")));
                targets.push(Arg::Known(f));
            }
            Some(other) => targets.push(other),
            None => targets.extend(home.map(|h| {
                Arg::Computed(Computed {
                    written: None,
                    known: Some(format!("{h}/.ssh/id_")),
                })
            })),
        }
    }
    for target in &targets {
        out.push(write(call, "ssh-keygen", target, &command.dirs));
    }
}

/// `scp`'s local destination: the file, or `DIR/NAME` of each source.
fn scp(call: &ShellCall, command: &Cmd, out: &mut Vec<Write>) {
    let parsed = parse(&command.args, &SCP);
    let [sources @ .., dest] = parsed.operands.as_slice() else {
        return;
    };
    if sources.is_empty() || is_remote(dest) {
        return;
    }
    let into_dir = sources.len() > 1
        || dest.known().is_some_and(|d| {
            d.ends_with('/') || command.dirs.iter().any(|base| resolve(d, base).is_dir())
        });
    let Some(dest_text) = dest.known() else {
        out.push(write(call, "scp", dest, &command.dirs));
        return;
    };
    if !into_dir {
        out.push(write(call, "scp", dest, &command.dirs));
        return;
    }
    for source in sources {
        let name = source.known().and_then(|s| {
            let path = if is_remote(source) {
                s.split_once(':').map_or(s, |(_, p)| p)
            } else {
                s
            };
            path.trim_end_matches('/')
                .rsplit('/')
                .next()
                .filter(|n| !n.is_empty())
        });
        let target = match name {
            Some(name) => Arg::Known(format!("{}/{name}", dest_text.trim_end_matches('/'))),
            None => Arg::Computed(Computed {
                written: None,
                known: Some(format!("{}/", dest_text.trim_end_matches('/'))),
            }),
        };
        out.push(write(call, "scp", &target, &command.dirs));
    }
}

/// `mktemp`'s new file, named by its template in its `-p`/`--tmpdir` directory or where it
/// runs; nothing for one in `$TMPDIR` or with `-u`.
fn mktemp(call: &ShellCall, command: &Cmd, out: &mut Vec<Write>) {
    let parsed = parse(&command.args, &MKTEMP);
    if parsed.has(&["-u", "--dry-run"]) {
        return;
    }
    let dir = parsed.values(&["-p", "--tmpdir"]).into_iter().last();
    let template = parsed.operands.first();
    let in_tmp = parsed.has(&["-t"]) || (parsed.has(&["--tmpdir"]) && dir.is_none());
    if in_tmp && dir.is_none() {
        return;
    }
    let base = match dir.and_then(known_start) {
        Some(d) => format!("{}/", d.trim_end_matches('/')),
        None if dir.is_some() => return,
        None => String::new(),
    };
    let known = match template.map(known_start) {
        Some(Some(t)) => format!("{base}{}", t.split("XXX").next().unwrap_or(t)),
        Some(None) => base,
        None if dir.is_some() => base,
        None => return,
    };
    out.push(write(
        call,
        "mktemp",
        &Arg::Computed(Computed {
            written: None,
            known: Some(known),
        }),
        &command.dirs,
    ));
}

/// `chattr`'s files (after its mode, `+i`, `-a`, `=e`) and whether `-R` is given.
fn chattr_files(args: &[Arg]) -> (Vec<Arg>, bool) {
    let mut files = Vec::new();
    let mut tree = false;
    let mut mode_seen = false;
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        k += 1;
        match arg.known() {
            Some("-R") => tree = true,
            Some("-V" | "-f") => {}
            Some("-v" | "-p") => k += 1,
            Some("--") => {
                files.extend(args[k..].iter().cloned());
                break;
            }
            Some(t) if !mode_seen && files.is_empty() && t.starts_with(['+', '-', '=']) => {
                mode_seen = true;
            }
            _ => files.push(arg.clone()),
        }
    }
    (files, tree)
}

/// The command `npx`, `bunx` or `pnpx` runs (`npx rimraf dist` runs `rimraf dist`).
fn package_runner(command: &Cmd) -> Option<Cmd> {
    let args = &command.args;
    let mut k = 0;
    while let Some(text) = args.get(k).and_then(Arg::known) {
        match text {
            "-p" | "--package" => k += 2,
            // A shell string: not read.
            "-c" | "--call" => return None,
            t if t.starts_with('-') => k += 1,
            _ => break,
        }
    }
    let program = args.get(k)?.known()?;
    // `rimraf@5` is `rimraf`.
    let program = match program.rfind('@') {
        Some(at) if at > 0 => &program[..at],
        _ => program,
    };
    Some(Cmd {
        program: Some(program.to_owned()),
        args: args[k + 1..].to_vec(),
        dirs: command.dirs.clone(),
        fed: None,
    })
}

/// The writes of git's commands that name the files they write (`git -C DIR` gives `dirs`):
/// `checkout [TREE] [--] PATH…`, `restore PATH…` (not the index alone), `rm` (not
/// `--cached`), `mv`, `clean -f PATH…` (the trees under them). A git command's own files and
/// what a command without paths changes (`git reset --hard`, `git clean -fdx`) are git's.
pub(super) fn git(
    call: &ShellCall,
    sub: &str,
    rest: &[Arg],
    dirs: &[PathBuf],
    out: &mut Vec<Write>,
) {
    let dashes = rest.iter().position(|a| a.known() == Some("--"));
    let (before, after) = match dashes {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let made = |by: &str, target: &Arg| write(call, by, target, dirs);
    match sub {
        "checkout" => {
            let parsed = parse(before, &GIT_CHECKOUT);
            let mut paths: Vec<&Arg> = after.iter().collect();
            if dashes.is_none() && !parsed.has(&["-b", "-B", "--orphan"]) {
                // Without `--`, the first operand is what to check out, unless it is a file
                // (as git itself tells them apart).
                for (k, operand) in parsed.operands.iter().enumerate() {
                    let is_file = operand.known().is_some_and(|p| {
                        dirs.iter()
                            .any(|d| std::fs::symlink_metadata(resolve(p, d)).is_ok())
                    });
                    if k > 0 || is_file {
                        paths.push(operand);
                    }
                }
            } else if dashes.is_some() {
                paths.extend(parsed.operands.iter().skip(1));
            }
            for path in paths {
                out.push(made("git checkout", path));
            }
        }
        "restore" => {
            let parsed = parse(before, &GIT_RESTORE);
            if parsed.has(&["-S", "--staged"]) && !parsed.has(&["-W", "--worktree"]) {
                return;
            }
            for path in parsed.operands.iter().chain(after) {
                out.push(made("git restore", path));
            }
        }
        "rm" => {
            let parsed = parse(before, &PLAIN);
            if parsed.has(&["--cached", "-n", "--dry-run"]) {
                return;
            }
            let tree = parsed.has(&["-r"]);
            for path in parsed.operands.iter().chain(after) {
                let mut w = made("git rm", path);
                w.removes = true;
                w.tree = tree;
                out.push(w);
            }
        }
        "mv" => {
            let run = Cmd {
                program: Some("mv".to_owned()),
                args: rest.to_vec(),
                dirs: dirs.to_vec(),
                fed: None,
            };
            copy(call, "mv", &run, out);
        }
        "clean" => {
            let parsed = parse(before, &GIT_CLEAN);
            if !parsed.has(&["-f", "--force"]) || parsed.has(&["-n", "--dry-run"]) {
                return;
            }
            for path in parsed.operands.iter().chain(after) {
                let mut w = made("git clean", path);
                w.tree = true;
                w.removes = true;
                out.push(w);
            }
        }
        _ => {}
    }
}

const UNZIP: Spec = Spec {
    short: "dP",
    long: &[],
    flags: &[],
    abbreviations: false,
};
const VIM: Spec = Spec {
    short: "cSuUiTt",
    long: &[
        "cmd",
        "startuptime",
        "servername",
        "remote",
        "remote-silent",
    ],
    flags: &["headless", "clean", "noplugin", "version", "help"],
    abbreviations: false,
};
const EMACS: Spec = Spec {
    short: "lLftd",
    long: &[
        "load",
        "directory",
        "funcall",
        "eval",
        "execute",
        "chdir",
        "display",
        "script",
        "user",
    ],
    flags: &["batch", "quick", "no-init-file", "version", "help"],
    abbreviations: false,
};
const NANO: Spec = Spec {
    short: "TYroQsC",
    long: &[
        "tabsize",
        "syntax",
        "fill",
        "operatingdir",
        "quotestr",
        "speller",
        "backupdir",
    ],
    flags: &[],
    abbreviations: false,
};
const ED: Spec = Spec {
    short: "p",
    long: &["prompt"],
    flags: &[],
    abbreviations: true,
};
const SPLIT: Spec = Spec {
    short: "abClnt",
    long: &[
        "suffix-length",
        "bytes",
        "line-bytes",
        "lines",
        "number",
        "separator",
        "additional-suffix",
        "filter",
    ],
    flags: &["elide-empty-files", "unbuffered", "verbose"],
    abbreviations: true,
};
const CSPLIT: Spec = Spec {
    short: "bfn",
    long: &["suffix-format", "prefix", "digits"],
    flags: &[
        "keep-files",
        "suppress-matched",
        "quiet",
        "silent",
        "elide-empty-files",
    ],
    abbreviations: true,
};
const SORT: Spec = Spec {
    short: "kotTS",
    long: &[
        "key",
        "output",
        "field-separator",
        "temporary-directory",
        "buffer-size",
        "parallel",
        "batch-size",
        "files0-from",
        "compress-program",
        "random-source",
        "sort",
    ],
    flags: &[
        "unique",
        "reverse",
        "numeric-sort",
        "general-numeric-sort",
        "human-numeric-sort",
        "ignore-case",
        "merge",
        "check",
        "stable",
        "zero-terminated",
    ],
    abbreviations: true,
};
const UNIQ: Spec = Spec {
    short: "fsw",
    long: &["skip-fields", "skip-chars", "check-chars"],
    flags: &[
        "count",
        "repeated",
        "unique",
        "ignore-case",
        "zero-terminated",
    ],
    abbreviations: true,
};
const XXD: Spec = Spec {
    short: "cglson",
    long: &[],
    flags: &[],
    abbreviations: false,
};
const MKFIFO: Spec = Spec {
    short: "m",
    long: &["mode", "context"],
    flags: &[],
    abbreviations: true,
};
const RENAME: Spec = Spec {
    short: "",
    long: &[],
    flags: &[
        "verbose",
        "no-act",
        "nono",
        "force",
        "symlink",
        "no-overwrite",
        "interactive",
    ],
    abbreviations: true,
};
const ICONV: Spec = Spec {
    short: "fto",
    long: &["from-code", "to-code", "output"],
    flags: &["list", "silent", "verbose"],
    abbreviations: true,
};
const SSH_KEYGEN: Spec = Spec {
    short: "abCDEfFIJjKmNnOPRrSstVwYZz",
    long: &[],
    flags: &[],
    abbreviations: false,
};
const SCP: Spec = Spec {
    short: "cDFiJloPSX",
    long: &[],
    flags: &[],
    abbreviations: false,
};
const MKTEMP: Spec = Spec {
    short: "p",
    long: &["suffix"],
    flags: &["directory", "dry-run", "quiet", "tmpdir"],
    abbreviations: true,
};
const SETFACL: Spec = Spec {
    short: "mMxX",
    long: &[
        "modify",
        "modify-file",
        "remove",
        "remove-file",
        "set",
        "set-file",
    ],
    flags: &[
        "recursive",
        "test",
        "remove-all",
        "remove-default",
        "physical",
        "logical",
    ],
    abbreviations: true,
};
const YQ: Spec = Spec {
    short: "opIs",
    long: &[
        "output-format",
        "input-format",
        "indent",
        "split-exp",
        "arg",
    ],
    flags: &["inplace", "from-file", "null-input", "exit-status"],
    abbreviations: false,
};
const STRACE: Spec = Spec {
    short: "oepsEPabIOSUXu",
    long: &[
        "output",
        "trace",
        "signal",
        "attach",
        "string-limit",
        "env",
        "user",
    ],
    flags: &["follow-forks", "output-separately", "summary-only"],
    abbreviations: true,
};
const LTRACE: Spec = Spec {
    short: "oepsnaux",
    long: &["output", "library"],
    flags: &[],
    abbreviations: true,
};
const TIME: Spec = Spec {
    short: "fo",
    long: &["format", "output"],
    flags: &["append", "portability", "verbose", "quiet"],
    abbreviations: true,
};
const SCRIPT: Spec = Spec {
    short: "cEoOIBTm",
    long: &[
        "command",
        "echo",
        "output-limit",
        "log-out",
        "log-in",
        "log-io",
        "log-timing",
        "logging-format",
    ],
    flags: &["append", "flush", "force", "quiet", "return"],
    abbreviations: true,
};
const GIT_CHECKOUT: Spec = Spec {
    short: "bB",
    long: &["orphan", "conflict", "pathspec-from-file"],
    flags: &[],
    abbreviations: false,
};
const GIT_RESTORE: Spec = Spec {
    short: "s",
    long: &["source", "pathspec-from-file", "conflict"],
    flags: &["staged", "worktree"],
    abbreviations: true,
};
const GIT_CLEAN: Spec = Spec {
    short: "e",
    long: &["exclude"],
    flags: &["force", "dry-run", "interactive", "quiet"],
    abbreviations: true,
};
