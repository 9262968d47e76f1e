//! Interpreters' one-liners (`python -c`, `perl -e`, `ruby -e`, `node -e`, `php -r`, an
//! `awk` program, and code an interpreter reads from text the line gives it): the calls that delete a directory tree
//! and the calls that run a shell line or a program.
//!
//! # The rules it keeps
//!
//! - The code is read as text, not parsed: a call is its name followed by `(` (or, for Perl and
//!   Ruby, by a blank and a string), its arguments running to the matching `)` or the end of
//!   the statement.
//! - A call that deletes a tree (`shutil.rmtree`, `File::Path::rmtree`/`remove_tree`,
//!   `FileUtils.rm_rf`/`rm_r`/`remove_dir`, `fs.rmSync`/`fs.rm`/`Deno.remove` with
//!   `recursive`) has its first string literal judged as a recursive delete of that path (a
//!   home when the call names it: `os.path.expanduser("~")`, `Path.home()`, `os.homedir()`,
//!   `$ENV{HOME}`); with no literal, its path is not known.
//! - A call that runs a shell line (`os.system`, `subprocess.run("…", shell=True)`, `system`,
//!   backticks, `qx`, `%x`, `execSync`, `shell_exec`) has its first string literal read as a
//!   line of `sh`; one that runs a program with a list (`subprocess.run([...])`, `spawnSync`,
//!   `execFileSync`, `system LIST`) has its string literals read as that command's words.
//!   A line built when the code runs is not known, and passes unless it is a delete.
//! - Python's `exec("…")` and `eval("…")` read their literal as Python code again.
//! - Fork bombs: `fork while fork`, `while(1){fork}`, `while True: os.fork()`.

use hookchain_shell::{Command, Dynamic, Part, Shell, Word};

use super::rules::{file_target, target};
use super::{Judge, MAX_DEPTH, single_quoted};

/// What an interpreter's code is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    Python,
    Perl,
    Ruby,
    JavaScript,
    Php,
    /// `awk`'s program text, whose `system("…")` runs a shell line.
    Awk,
}

fn language(name: &str) -> Option<Language> {
    let python = ["python", "pypy"].iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    });
    if python {
        return Some(Language::Python);
    }
    match name {
        "perl" => Some(Language::Perl),
        "ruby" | "jruby" => Some(Language::Ruby),
        "node" | "nodejs" | "deno" | "bun" => Some(Language::JavaScript),
        "php" => Some(Language::Php),
        "awk" | "gawk" | "mawk" | "nawk" => Some(Language::Awk),
        _ => None,
    }
}

/// The rules of an interpreter's code, when `command` runs code the line holds.
pub(super) fn command(judge: &Judge, name: &str, command: &Command) -> Option<String> {
    let language = language(name)?;
    if language == Language::Awk {
        let code = awk_program(&command.args)?;
        return judge_code(judge, command, language, code, judge.depth);
    }
    let code = match command.code.as_ref()? {
        Word::Static(code) => code.clone(),
        // What is known of it: a value not known is an empty-handed placeholder.
        Word::Dynamic(d) => super::written(&d.parts, &|_| UNKNOWN.to_owned()),
    };
    judge_code(judge, command, language, &code, judge.depth)
}

/// The program text of an `awk` command: its first operand after the options (`-F SEP`,
/// `-v NAME=VALUE`, `--`); none when it reads its program from a file (`-f FILE`) or the
/// program is not known.
fn awk_program(args: &[Word]) -> Option<&str> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let text = arg.as_static()?;
        match text {
            "--" => return args.next()?.as_static(),
            "-f" | "--file" => return None,
            "-F" | "-v" | "--field-separator" | "--assign" => {
                args.next()?;
            }
            _ if text.starts_with("-f") => return None,
            _ if text.starts_with('-') && text.len() > 1 => {}
            program => return Some(program),
        }
    }
    None
}

/// Stands in code for a value only known when the line runs.
const UNKNOWN: &str = "\u{1}";

fn judge_code(
    judge: &Judge,
    command: &Command,
    language: Language,
    code: &str,
    depth: usize,
) -> Option<String> {
    let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if squeezed.contains("forkwhilefork")
        || squeezed.contains("while(1){fork")
        || squeezed.contains("while1{fork")
        || squeezed.contains("whileTrue:os.fork()")
        || squeezed.contains("while1:os.fork()")
    {
        return Some(format!(
            "`{}` is a fork bomb: it exhausts the machine's processes",
            judge.shown(command)
        ));
    }
    for call in calls(code, language) {
        let why = match call.kind {
            Kind::DeleteTree => match delete_tree(judge, command, &call) {
                Some(why) => return Some(why),
                None => None,
            },
            Kind::DeleteFile => match delete_files(judge, command, &call) {
                Some(why) => return Some(why),
                None => None,
            },
            Kind::Shell => match literals(call.args).first() {
                Some(line) if depth < MAX_DEPTH && !line.contains(UNKNOWN) => judge
                    .guard
                    .judge_line(line, Shell::Posix, judge.place, depth + 1),
                _ => None,
            },
            // A string with `shell=True` is a shell line (Python's subprocess).
            Kind::Program
                if !call.args.trim_start().starts_with('[') && call.args.contains("shell=True") =>
            {
                match literals(call.args).first() {
                    Some(line) if depth < MAX_DEPTH && !line.contains(UNKNOWN) => judge
                        .guard
                        .judge_line(line, Shell::Posix, judge.place, depth + 1),
                    _ => None,
                }
            }
            Kind::Program => {
                let words = literals(call.args);
                if words.is_empty()
                    || depth >= MAX_DEPTH
                    || words.iter().any(|w| w.contains(UNKNOWN))
                {
                    None
                } else {
                    let line: Vec<String> = words.iter().map(|w| single_quoted(w)).collect();
                    judge
                        .guard
                        .judge_line(&line.join(" "), Shell::Posix, judge.place, depth + 1)
                }
            }
            Kind::Code => match literals(call.args).first() {
                Some(inner) if depth < MAX_DEPTH => {
                    judge_code(judge, command, language, inner, depth + 1)
                }
                _ => None,
            },
        };
        if let Some(why) = why {
            return Some(format!(
                "`{}` runs, from its code with `{}`: {why}",
                judge.shown(command),
                call.name
            ));
        }
    }
    None
}

/// A tree deletion: its path, judged.
fn delete_tree(judge: &Judge, command: &Command, call: &Call) -> Option<String> {
    let args = call.args;
    let literal = literals(args).into_iter().next();
    let home = [
        "expanduser",
        "Path.home()",
        "homedir()",
        "ENV{HOME}",
        "ENV['HOME']",
        "ENV[\"HOME\"]",
        "environ['HOME']",
        "environ[\"HOME\"]",
        "env.HOME",
        "getenv('HOME')",
        "getenv(\"HOME\")",
        "Dir.home",
    ]
    .iter()
    .any(|h| args.contains(h));
    let unknown = |name: Option<&str>| Part::Unknown {
        name: name.map(str::to_owned),
        split: false,
    };
    let word = match (literal, home) {
        (Some(path), true) => {
            let rest = path.trim_start_matches('~');
            let mut parts = vec![unknown(Some("HOME"))];
            if !rest.is_empty() {
                parts.push(Part::Text(rest.to_owned()));
            }
            dynamic(parts)
        }
        (None, true) => dynamic(vec![unknown(Some("HOME"))]),
        (Some(path), false) if !path.contains(UNKNOWN) => Word::Static(path),
        (Some(path), false) => {
            let mut parts = Vec::new();
            for (i, piece) in path.split(UNKNOWN).enumerate() {
                if i > 0 {
                    parts.push(unknown(None));
                }
                if !piece.is_empty() {
                    parts.push(Part::Text(piece.to_owned()));
                }
            }
            dynamic(parts)
        }
        (None, false) => dynamic(vec![unknown(None)]),
    };
    target(
        judge,
        command,
        &word,
        &format!("deletes (with `{}`)", call.name),
    )
}

/// File deletions: each literal path, judged (a pattern when the call globs it: `unlink
/// glob("/etc/*")`).
fn delete_files(judge: &Judge, command: &Command, call: &Call) -> Option<String> {
    let globbed = call.args.contains("glob");
    literals(call.args).into_iter().find_map(|path| {
        if path.contains(UNKNOWN) {
            return None;
        }
        let word = if globbed && path.contains(['*', '?', '[']) {
            let mut parts: Vec<Part> = Vec::new();
            for c in path.chars() {
                match c {
                    '*' | '?' | '[' => parts.push(Part::Glob(c.to_string())),
                    c => match parts.last_mut() {
                        Some(Part::Text(t)) => t.push(c),
                        _ => parts.push(Part::Text(c.to_string())),
                    },
                }
            }
            dynamic(parts)
        } else {
            Word::Static(path)
        };
        file_target(
            judge,
            command,
            &word,
            &format!("deletes (with `{}`)", call.name),
        )
    })
}

fn dynamic(parts: Vec<Part>) -> Word {
    Word::Dynamic(Dynamic {
        span: 0..0,
        why: "a path the code computes".into(),
        parts,
    })
}

/// What a call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Deletes a directory tree.
    DeleteTree,
    /// Deletes files.
    DeleteFile,
    /// Runs a shell line.
    Shell,
    /// Runs a program with a list of words.
    Program,
    /// Runs code of the same language.
    Code,
}

/// A call found in code.
struct Call<'c> {
    name: &'c str,
    kind: Kind,
    /// Its arguments' text.
    args: &'c str,
}

/// The calls of `code` this module judges, in order.
fn calls(code: &str, language: Language) -> Vec<Call<'_>> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() && found.len() < 64 {
        let c = bytes[i];
        // Backticks and `qx`/`%x` run a shell line (Perl, Ruby, PHP).
        if c == b'`'
            && language != Language::Python
            && language != Language::JavaScript
            && let Some(end) = code[i + 1..].find('`')
        {
            found.push(Call {
                name: "`…`",
                kind: Kind::Shell,
                args: &code[i..i + end + 2],
            });
            i += end + 2;
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == b'_') || (i > 0 && is_ident(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let name = &code[start..i];
        let qualified = start > 0 && matches!(bytes[start - 1], b'.' | b':' | b'>');
        let Some(kind) = kind_of(name, qualified, language) else {
            continue;
        };
        let Some(args) = arguments(code, i, language) else {
            continue;
        };
        let recursive_only = matches!(name, "rmSync" | "rm" | "rmdirSync" | "rmdir" | "remove");
        let kind = match kind {
            Kind::DeleteTree if recursive_only && !args.contains("recursive") => {
                if name.starts_with("rmdir") {
                    continue;
                }
                Kind::DeleteFile
            }
            kind => kind,
        };
        found.push(Call { name, kind, args });
    }
    found
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// What a call of `name` does in `language`; `qualified`: it follows `.`, `::` or `->`.
fn kind_of(name: &str, qualified: bool, language: Language) -> Option<Kind> {
    let kind = match name {
        "rmtree"
        | "remove_tree"
        | "rm_rf"
        | "rm_r"
        | "remove_dir"
        | "remove_entry"
        | "remove_entry_secure" => Kind::DeleteTree,
        "rmSync" | "rmdirSync" if language == Language::JavaScript => Kind::DeleteTree,
        "rm" | "rmdir" | "remove" if language == Language::JavaScript && qualified => {
            Kind::DeleteTree
        }
        "unlink" | "unlinkSync" | "rm_f" => Kind::DeleteFile,
        "remove" | "rm" | "delete" if qualified => Kind::DeleteFile,
        "system" | "popen" | "shell_exec" | "passthru" | "execSync" | "getoutput"
        | "getstatusoutput" | "qx" => Kind::Shell,
        "exec" if language == Language::JavaScript => Kind::Shell,
        "exec" if language == Language::Python => Kind::Code,
        "eval" if language == Language::Python => Kind::Code,
        "exec" | "spawn" => Kind::Program,
        "run" | "call" | "check_call" | "check_output" | "Popen" | "capture2" | "capture3"
        | "popen3"
            if qualified =>
        {
            Kind::Program
        }
        "spawnSync" | "execFileSync" | "execFile" => Kind::Program,
        _ => return None,
    };
    Some(kind)
}

/// The arguments of a call whose name ends at `at`: to the matching `)` after a `(`, or, for
/// Perl and Ruby, a string after a blank, to the end of the statement.
fn arguments(code: &str, at: usize, language: Language) -> Option<&str> {
    let rest = &code[at..];
    let trimmed = rest.trim_start();
    let offset = at + rest.len() - trimmed.len();
    if let Some(open) = trimmed.strip_prefix(['(', '{']) {
        let close = matching(open)?;
        return Some(&code[offset + 1..offset + 1 + close]);
    }
    let bare = matches!(language, Language::Perl | Language::Ruby)
        && rest.starts_with([' ', '\t'])
        && trimmed
            .starts_with(|c: char| matches!(c, '\'' | '"' | '[' | '$') || c.is_ascii_alphabetic());
    bare.then(|| {
        let end = trimmed.find([';', '\n']).unwrap_or(trimmed.len());
        &code[offset..offset + end]
    })
}

/// The length of `text` up to the `)` (or `}`) closing an open one, quotes skipped.
fn matching(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' if depth == 0 => return Some(i),
            ')' | '}' | ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The string literals of `text`, in order, escapes decoded (`'…'`, `"…"`, `` `…` ``).
fn literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let mut literal = String::new();
        let mut closed = false;
        while let Some(d) = chars.next() {
            match d {
                '\\' => match chars.next() {
                    Some('n') => literal.push('\n'),
                    Some('t') => literal.push('\t'),
                    Some(e) => literal.push(e),
                    None => break,
                },
                d if d == c => {
                    closed = true;
                    break;
                }
                d => literal.push(d),
            }
        }
        if closed {
            out.push(literal);
        }
        if out.len() >= 64 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_found_with_their_arguments() {
        let code = r#"import shutil, os; shutil.rmtree("/"); os.system('rm -rf ~')"#;
        let found = calls(code, Language::Python);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].kind, found[0].args), (Kind::DeleteTree, r#""/""#));
        assert_eq!(literals(found[1].args), ["rm -rf ~"]);
        let found = calls(
            "fs.rmSync('/x'); fs.rmSync('/', {recursive: true})",
            Language::JavaScript,
        );
        let kinds: Vec<Kind> = found.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [Kind::DeleteFile, Kind::DeleteTree]);
        let found = calls("use File::Path; rmtree '/etc';", Language::Perl);
        assert_eq!(literals(found[0].args), ["/etc"]);
        let found = calls("unlink glob(\"/etc/*\");", Language::Perl);
        assert_eq!(
            (found[0].kind, literals(found[0].args).as_slice()),
            (Kind::DeleteFile, &["/etc/*".to_owned()][..])
        );
        let found = calls("print `rm -rf /`", Language::Perl);
        assert_eq!(literals(found[0].args), ["rm -rf /"]);
    }
}
