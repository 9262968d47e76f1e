//! Credentials leaving the machine: a command that reads a credential or dumps the environment
//! feeding a network command (through a pipe, a substitution, `<`, or a `/dev/tcp/…`
//! redirect); a network command sending a credential file; a provider's secret variable sent
//! to a host that is not the provider's; and, with `block_pipe_to_shell`, a download run as
//! code.
//!
//! # The rules it keeps
//!
//! - What a network command sends is read per program: `scp` and `rsync` send their operands
//!   but the last, never an option's value (`-i KEY`, `-e 'ssh -i KEY'`, `-F CONFIG`); `sftp`
//!   and `ssh` send what they read on their input; `curl`, `wget`, `http` and the rest send
//!   `@FILE`, `<FILE`, `-T FILE`, `--post-file=FILE`.
//! - What feeds a command is followed back through the pipeline (`cat .env | base64 | curl`),
//!   and what a substitution in its words reads (`curl -d "$(< .env)"`).
//! - A secret variable names its provider by its first word (`OPENAI_API_KEY`, `GH_TOKEN`):
//!   sent to a host that is not the provider's, or to one not known, it is a leak; a local
//!   host (`localhost`, `127.0.0.1`) is fine, and so is a variable that names no provider
//!   (`$API_TOKEN`): where it goes is the user's to mean.

use hookchain_shell::{Command, Input, Part, RedirectKind, Shell, Word};

use super::{Judge, excerpt};

/// The credential and network rules of the command at `index`.
pub(super) fn command(
    judge: &Judge,
    index: usize,
    name: &str,
    command: &Command,
) -> Option<String> {
    if judge.guard.block_pipe_to_shell
        && let Some(why) = download_run(judge, index, name, command)
    {
        return Some(why);
    }
    let to_socket = judge.line.redirects[command.redirects.clone()]
        .iter()
        .any(|r| r.writes() && r.target.as_static().is_some_and(is_socket));
    if !is_sender(name) && !to_socket {
        return None;
    }
    let shown = || judge.shown(command);
    if let Some(file) = sends_file(name, command) {
        return Some(format!(
            "`{}` sends the credential `{file}` over the network",
            shown()
        ));
    }
    if to_socket && let Some(source) = credential_read(judge, command) {
        return Some(format!(
            "`{}` sends {source} to a network socket: that leaks a credential",
            shown()
        ));
    }
    if let Some(source) = reads(judge, index, command, 0) {
        return Some(format!(
            "`{}` sends {source} over the network: that leaks a credential",
            shown()
        ));
    }
    if let Some(source) = substituted(judge, index, command) {
        return Some(format!(
            "`{}` sends {source} over the network: that leaks a credential",
            shown()
        ));
    }
    secret_variable(judge, command)
}

/// A network program.
fn is_sender(name: &str) -> bool {
    matches!(
        name,
        "curl"
            | "wget"
            | "nc"
            | "ncat"
            | "netcat"
            | "socat"
            | "telnet"
            | "ssh"
            | "scp"
            | "sftp"
            | "rsync"
            | "ftp"
            | "http"
            | "https"
            | "xh"
            | "curlie"
            | "mail"
            | "mailx"
            | "sendmail"
            | "mutt"
            | "aria2c"
    )
}

/// A program that downloads.
fn is_downloader(name: &str) -> bool {
    matches!(
        name,
        "curl" | "wget" | "fetch" | "http" | "https" | "xh" | "curlie" | "aria2c"
    )
}

/// bash's network redirections: `/dev/tcp/HOST/PORT`, `/dev/udp/HOST/PORT`.
fn is_socket(path: &str) -> bool {
    path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/")
}

/// A word as a path to compare with credentials: its text, a value not known left out.
fn path_text(word: &Word) -> String {
    match word {
        Word::Static(s) => s.clone(),
        Word::Dynamic(d) => super::written(&d.parts, &|_| String::new()),
    }
}

/// The credential file a network command's own words send.
fn sends_file(name: &str, command: &Command) -> Option<String> {
    let args = &command.args;
    match name {
        "scp" | "rsync" => {
            // Every operand but the last is a source; option values are not.
            let valued: &[&str] = if name == "scp" {
                &["-i", "-P", "-o", "-F", "-c", "-l", "-S", "-J", "-D", "-X"]
            } else {
                &[
                    "-e",
                    "--rsh",
                    "-f",
                    "--filter",
                    "--exclude",
                    "--include",
                    "-T",
                    "--temp-dir",
                    "--password-file",
                    "--exclude-from",
                    "--include-from",
                    "--files-from",
                    "-B",
                    "--rsync-path",
                    "--log-file",
                    "--backup-dir",
                    "--chmod",
                    "--chown",
                ]
            };
            let mut operands = Vec::new();
            let mut i = 0;
            while i < args.len() {
                let text = path_text(&args[i]);
                if text.starts_with('-') {
                    let takes = valued.contains(&text.as_str())
                        || (text.len() == 2 && valued.contains(&&text[..2]) && !text.contains('='));
                    i += if takes { 2 } else { 1 };
                    continue;
                }
                operands.push(text);
                i += 1;
            }
            let last = operands.len().saturating_sub(1);
            operands.into_iter().take(last).find(|t| is_credential(t))
        }
        "sftp" | "ssh" => None,
        _ => {
            for (k, arg) in args.iter().enumerate() {
                let text = path_text(arg);
                if sent_files(&text).any(is_credential) {
                    return Some(text);
                }
                let before = k.checked_sub(1).and_then(|p| args[p].as_static());
                if matches!(
                    before,
                    Some(
                        "-T" | "--upload-file"
                            | "--post-file"
                            | "--body-file"
                            | "-A"
                            | "--attach"
                            | "-a"
                    )
                ) && is_credential(&text)
                {
                    return Some(text);
                }
            }
            None
        }
    }
}

/// The files a network command's argument sends: `@file` (curl `-d`, `--data-binary`,
/// `-F name=@file`, `name=<file`), `--post-file=file`.
fn sent_files(arg: &str) -> impl Iterator<Item = &str> {
    let value = arg
        .strip_prefix("--post-file=")
        .or_else(|| arg.strip_prefix("--body-file="))
        .or_else(|| arg.strip_prefix("--upload-file="));
    let at = arg
        .find(['@', '<'])
        .map(|n| &arg[n + 1..])
        .filter(|f| !f.is_empty() && *f != "-");
    value.into_iter().chain(at)
}

/// What feeds `command` that is a credential: its input file, or what the commands writing
/// into its pipe read (followed back, `depth` steps so far).
fn reads(judge: &Judge, index: usize, command: &Command, depth: usize) -> Option<String> {
    if depth > 16 {
        return None;
    }
    match &command.input {
        Input::File(file) if is_credential(&path_text(file)) => {
            Some(format!("the credential `{}`", path_text(file)))
        }
        Input::Pipe { from, .. } => from.clone().filter(|&j| j < index).find_map(|j| {
            let feeder = &judge.line.commands[j];
            credential_read(judge, feeder).or_else(|| reads(judge, j, feeder, depth + 1))
        }),
        _ => None,
    }
}

/// What `command` reads that is a credential: a credential file it names, the environment it
/// prints, secret keys it exports.
fn credential_read(judge: &Judge, command: &Command) -> Option<String> {
    let name = match command.program.as_static() {
        Some(p) => super::program_name(p),
        None => return None,
    };
    let args = &command.args;
    let statics: Vec<&str> = args.iter().filter_map(Word::as_static).collect();
    let dumps_env = match name {
        "printenv" => args.is_empty(),
        "env" => statics.len() == args.len() && statics.iter().all(|w| w.starts_with('-')),
        "set" => args.is_empty(),
        "export" | "declare" | "typeset" => {
            args.is_empty()
                || statics
                    .iter()
                    .all(|w| matches!(*w, "-p" | "-x" | "-px" | "-xp"))
        }
        _ => false,
    };
    if dumps_env {
        return Some(format!("the environment (`{}`)", judge.shown(command)));
    }
    if matches!(name, "gpg" | "gpg2") && statics.iter().any(|w| w.starts_with("--export-secret")) {
        return Some(format!("private keys (`{}`)", judge.shown(command)));
    }
    if name == "printenv" && statics.iter().any(|w| is_secret_name(w)) {
        return Some(format!("a secret variable (`{}`)", judge.shown(command)));
    }
    if let Input::File(file) = &command.input
        && is_credential(&path_text(file))
    {
        return Some(format!("the credential `{}`", path_text(file)));
    }
    args.iter()
        .map(path_text)
        .find(|t| is_credential(t) || t.strip_prefix("if=").is_some_and(is_credential))
        .map(|t| format!("the credential `{t}`"))
}

/// What a substitution in `command`'s words reads that is a credential (`curl -d "$(cat
/// .env)"`, `"$(< .env)"`).
fn substituted(judge: &Judge, index: usize, command: &Command) -> Option<String> {
    let inside = |span: &std::ops::Range<usize>| {
        span.start >= command.span.start && span.end <= command.span.end
    };
    let by_command = judge
        .line
        .commands
        .iter()
        .enumerate()
        .filter(|(j, c)| *j != index && inside(&c.span) && c.span != command.span)
        .find_map(|(_, c)| credential_read(judge, c));
    by_command.or_else(|| {
        judge
            .line
            .redirects
            .iter()
            .filter(|r| r.kind == RedirectKind::Read && inside(&r.span))
            .map(|r| path_text(&r.target))
            .find(|t| is_credential(t))
            .map(|t| format!("the credential `{t}`"))
    })
}

/// The secret variables that name their provider, and the words of the provider's hosts.
const PROVIDERS: &[(&[&str], &[&str])] = &[
    (&["OPENAI"], &["openai"]),
    (&["ANTHROPIC", "CLAUDE"], &["anthropic"]),
    (&["GITHUB", "GH"], &["github", "githubusercontent"]),
    (&["GITLAB", "GL"], &["gitlab"]),
    (&["AWS"], &["amazonaws", "aws"]),
    (&["AZURE"], &["azure", "microsoft", "windows.net"]),
    (
        &["GOOGLE", "GCP", "GCLOUD", "GEMINI"],
        &["googleapis", "google"],
    ),
    (&["HF", "HUGGINGFACE", "HUGGING"], &["huggingface", "hf.co"]),
    (&["SLACK"], &["slack"]),
    (&["STRIPE"], &["stripe"]),
    (&["NPM"], &["npmjs"]),
    (&["PYPI", "TWINE"], &["pypi", "python.org"]),
    (&["DOCKER", "DOCKERHUB"], &["docker"]),
    (&["CLOUDFLARE", "CF"], &["cloudflare"]),
    (&["DIGITALOCEAN"], &["digitalocean"]),
    (&["HEROKU"], &["heroku"]),
    (&["VERCEL"], &["vercel"]),
    (&["NETLIFY"], &["netlify"]),
    (&["SENTRY"], &["sentry"]),
    (&["TWILIO"], &["twilio"]),
    (&["SENDGRID"], &["sendgrid"]),
    (&["MISTRAL"], &["mistral"]),
    (&["GROQ"], &["groq"]),
    (&["COHERE"], &["cohere"]),
    (&["OPENROUTER"], &["openrouter"]),
    (&["XAI", "GROK"], &["x.ai"]),
    (&["DEEPSEEK"], &["deepseek"]),
    (&["REPLICATE"], &["replicate"]),
    (&["PERPLEXITY", "PPLX"], &["perplexity"]),
    (&["DATADOG", "DD"], &["datadog"]),
    (&["SUPABASE"], &["supabase"]),
    (&["DISCORD"], &["discord"]),
    (&["TELEGRAM"], &["telegram"]),
];

/// `true` for a variable named as a secret (`…_KEY`, `…TOKEN…`, `…SECRET…`, `…PASSWORD…`).
fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "_PAT",
    ]
    .iter()
    .any(|w| upper.contains(w))
}

/// A provider's secret variable sent to a host that is not the provider's.
fn secret_variable(judge: &Judge, command: &Command) -> Option<String> {
    let input = match &command.input {
        Input::Text(word) => Some(word),
        _ => None,
    };
    let words: Vec<&Word> = command.args.iter().chain(input).collect();
    let variables = words.iter().filter_map(|w| match w {
        Word::Dynamic(d) => Some(d.parts.iter()),
        Word::Static(_) => None,
    });
    let mut secret = None;
    for parts in variables {
        for part in parts {
            if let Part::Unknown {
                name: Some(name), ..
            } = part
                && is_secret_name(name)
                && let Some(hosts) = provider(name)
            {
                secret = Some((name.clone(), hosts));
            }
        }
        if secret.is_some() {
            break;
        }
    }
    let (variable, provider_hosts) = secret?;
    let hosts = destinations(&command.args);
    let local = |h: &str| matches!(h, "localhost" | "127.0.0.1" | "[::1]" | "0.0.0.0");
    let theirs = |h: &str| provider_hosts.iter().any(|p| h.contains(p));
    if !hosts.is_empty() && hosts.iter().all(|h| local(h) || theirs(h)) {
        return None;
    }
    let shown = judge.shown(command);
    if hosts.is_empty() {
        return judge.guard.unknown(|| {
            format!(
                "`{shown}` sends `${variable}` to a host not known before the line runs, which \
                 may not be its provider's"
            )
        });
    }
    Some(format!(
        "`{shown}` sends `${variable}` to `{}`, which is not its provider's host: that leaks a \
         credential",
        hosts
            .iter()
            .find(|h| !local(h) && !theirs(h))
            .map_or("", String::as_str)
    ))
}

/// The provider a secret variable names: the words of its hosts.
fn provider(name: &str) -> Option<&'static [&'static str]> {
    let upper = name.to_ascii_uppercase();
    let first = upper.split('_').find(|w| !w.is_empty())?;
    PROVIDERS
        .iter()
        .find(|(names, _)| names.contains(&first))
        .map(|(_, hosts)| *hosts)
}

/// The hosts a network command's words name: `scheme://HOST…`, or a bare `HOST/…` with a dot.
fn destinations(args: &[Word]) -> Vec<String> {
    let mut hosts = Vec::new();
    for arg in args {
        let text = match arg {
            Word::Static(s) => s.clone(),
            Word::Dynamic(d) => match d.parts.first() {
                Some(Part::Text(t)) => t.clone(),
                _ => continue,
            },
        };
        let rest = match text.split_once("://") {
            Some((scheme, rest)) if scheme.chars().all(|c| c.is_ascii_alphanumeric()) => rest,
            _ if !text.starts_with('-') && !text.contains(' ') && text.contains('.') => &text,
            _ => continue,
        };
        let host = rest
            .split(['/', '?', '#'])
            .next()
            .unwrap_or("")
            .rsplit('@')
            .next()
            .unwrap_or("");
        let host = if host.starts_with('[') {
            host.split_inclusive(']').next().unwrap_or(host)
        } else {
            host.split(':').next().unwrap_or(host)
        };
        let plausible = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'));
        if plausible && (text.contains("://") || host.contains('.')) {
            hosts.push(host.to_ascii_lowercase());
        }
    }
    hosts
}

/// With `block_pipe_to_shell`: a shell or an interpreter running what a download gives it.
fn download_run(judge: &Judge, index: usize, name: &str, command: &Command) -> Option<String> {
    let runs_code = Shell::of_program(name).is_some()
        || matches!(
            name,
            "python" | "python3" | "perl" | "ruby" | "node" | "php"
        );
    if !runs_code {
        return None;
    }
    let downloads = |c: &Command| {
        c.program
            .as_static()
            .is_some_and(|p| is_downloader(super::program_name(p)))
    };
    let piped = match &command.input {
        Input::Pipe { from, text: None } => {
            let mut stack: Vec<usize> = from.clone().collect();
            let mut seen = 0;
            let mut found = false;
            while let Some(j) = stack.pop() {
                seen += 1;
                if seen > 64 || j >= index {
                    continue;
                }
                let feeder = &judge.line.commands[j];
                if downloads(feeder) {
                    found = true;
                    break;
                }
                if let Input::Pipe { from, .. } = &feeder.input {
                    stack.extend(from.clone());
                }
            }
            found
        }
        _ => false,
    };
    // `bash <(curl …)`, `sh -c "$(wget -O- …)"`: a word computed by a download.
    let substituted = command.args.iter().any(|w| match w {
        Word::Dynamic(d) => judge
            .line
            .commands
            .iter()
            .any(|c| downloads(c) && c.span.start >= d.span.start && c.span.end <= d.span.end),
        Word::Static(_) => false,
    });
    (piped || substituted).then(|| {
        format!(
            "`{}` runs a download as code (block_pipe_to_shell is on)",
            excerpt(judge.source(&command.span))
        )
    })
}

/// A path that holds a credential: `.env` files (not `.env.example` and the like), SSH private
/// keys and `~/.ssh`, cloud and registry credentials, `.netrc`, private key files, a process's
/// environment.
pub(crate) fn is_credential(path: &str) -> bool {
    let path = path.trim_matches(|c| c == '"' || c == '\'');
    // The environment of a process: `/proc/self/environ`, `/proc/1/environ`, `/proc/*/environ`.
    if path.starts_with("/proc/") && path.ends_with("/environ") {
        return true;
    }
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let Some(&base) = parts.last() else {
        return false;
    };
    let parent = parts.len().checked_sub(2).map(|n| parts[n]);
    let grand = parts.len().checked_sub(3).map(|n| parts[n]);
    if base == ".env" {
        return true;
    }
    if let Some(suffix) = base.strip_prefix(".env.") {
        return !matches!(
            suffix,
            "example" | "sample" | "template" | "dist" | "defaults" | "schema" | "test.example"
        );
    }
    if base.ends_with(".pub") {
        return false;
    }
    // `secrets.yaml`, `secret.json`, `credentials.toml`, `.secrets` (not an example of one).
    let (stem, ext) = base.split_once('.').unwrap_or((base, ""));
    if matches!(stem, "secrets" | "secret" | "credentials" | "")
        && matches!(
            ext,
            "json" | "yaml" | "yml" | "toml" | "env" | "txt" | "ini" | "secrets" | "properties"
        )
    {
        return true;
    }
    if base.starts_with("id_") && (parent == Some(".ssh") || parent.is_none()) {
        return true;
    }
    if base == ".ssh" || base == ".gnupg" || base == ".aws" {
        return true;
    }
    if parent == Some(".ssh") {
        return !matches!(
            base,
            "known_hosts" | "known_hosts.old" | "config" | "authorized_keys"
        );
    }
    if parent == Some(".gnupg") {
        return true;
    }
    if parent == Some(".aws") && matches!(base, "credentials" | "config") {
        return true;
    }
    if (parent, base) == (Some(".docker"), "config.json")
        || (parent, base) == (Some(".kube"), "config")
        || (grand, parent, base) == (Some(".config"), Some("gh"), "hosts.yml")
        || (parent, base) == (Some("gcloud"), "credentials.db")
        || (parent, base) == (Some("gcloud"), "application_default_credentials.json")
        || path == "/etc/shadow"
    {
        return true;
    }
    matches!(
        base,
        ".netrc" | ".git-credentials" | ".npmrc" | ".pypirc" | ".vault-token" | "credentials.json"
    ) || [".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"]
        .iter()
        .any(|ext| base.ends_with(ext) && base.len() > ext.len())
}
