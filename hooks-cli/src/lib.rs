//! The `hookchain` command line: list, test, check, approve and revoke the hooks of an agent.
//!
//! ```text
//! hookchain [--config FILE]... [--consent-file FILE] [--accept-hooks] <COMMAND>
//!
//!   list                      every hook: compiled-in and configured, with consent
//!   test EVENT [--for-tool NAME] [--payload-file F] [--json] [--verbose]
//!                             fire EVENT's chain once and print the outcome
//!   doctor                    check every configured hook; exit 1 on any problem
//!   approve [NAME... | --all] let configured hooks run
//!   revoke [NAME... | --all]  withdraw approvals
//! ```
//!
//! # What it reads
//!
//! - **Config.** Each `--config FILE` is read with [`Config::load`] — a `.json` file as Claude
//!   Code settings, a YAML file with a top-level `agents:` as a docker-agent agent file, any
//!   other file as a `hookchain.yaml` — and the files are put over each other in the order given
//!   ([`Config::merge`]). Without `--config`, [`Config::discover`]: `./hookchain.yaml` over
//!   `~/.config/hookchain/hookchain.yaml`.
//! - **Approvals.** The allowlist of [`consent`](hookchain_config::consent): `--consent-file FILE`, else
//!   `~/.config/hookchain/approved-hooks.json`.
//! - **Compiled-in hooks.** The hooks of the [`HooksBuilder`] given to [`run_with`]: an agent
//!   that mounts this command line as its own `hooks` subcommand passes the builder of its own
//!   hooks (`HooksBuilder::new().collected()`), so `list` and `test` show and fire them too.
//!   [`run`] uses the `#[register_hook]` fns linked into the running binary.
//!
//! # The commands
//!
//! - `list` prints two tables: the compiled-in hooks (point, priority, name, extension,
//!   `file:line`, state) and the configured ones (point, priority, name, matcher and what it applies to — `tool:Bash`, `source:compact` —, timeout,
//!   transport and target, `file:line`, state, consent: `approved`, `new` or `drifted`). The
//!   state is `on`, or `disabled by FILE:LINE` / `disabled by the agent's code`, as the registry
//!   the agent would build from the same config has it, followed by `, required` for a required
//!   hook (`required: true` in its file, or required by the agent's code); a required hook that
//!   is missing shows as its stand-in, `required:NAME`, which blocks its point. What a project's
//!   file tried to switch off and was refused is a note. An empty table says why it may be empty.
//! - `test EVENT` resolves EVENT (a point's canonical name or any other agent's name for it; an
//!   unknown one is an error with a "did you mean"), builds the registry — compiled-in hooks and
//!   the configured hooks that are approved; the others are reported as skipped and **never
//!   run**; hooks of a disabled extension are listed with who disabled them, and not run — and
//!   dispatches one value through EVENT's chain: the JSON of `--payload-file` (the
//!   point's value as serde reads it; tool points also take the wire form
//!   `{"tool_name": …, "tool_input": …}`; on other points, another agent's payload in its own
//!   field names — a Claude Code `Stop` payload, docker-agent's `stop_response`, Hermes' fields
//!   under `extra` — gives the fields the value has, the rest synthetic), or a synthetic value
//!   (for tool points, a call of `--for-tool`, default `Bash`, with `{}` args). The payload
//!   file's session is kept: EVENT's chain alone fires
//!   ([`Hooks::dispatch_in_session`]: no `session_start`, `session_end` or `notification`
//!   around it) in the session its `session_id` names (else `hookchain-test`), its external
//!   hooks running in its `cwd` (which must be a directory) and sent its `transcript_path` and
//!   `permission_mode` (through [`transcript`]). `--verbose` prints, per external hook in chain
//!   order, the exact JSON it was sent and its exit code, stdout and stderr, or why nothing came
//!   back ([`hook::tap`]) — on stderr with `--json`. With `--json` it prints exactly one JSON
//!   object on stdout: `{"outcome":"continue","value":…,"context":[…],"warnings":[…]}` or
//!   `{"outcome":"blocked","reason":"…","hook":"…"}`; the warnings include the config left out
//!   (a section that does not fit, a misspelt guard name: the guard it meant does not run), the
//!   hooks skipped for want of consent and the hooks that failed (a hook that failed and went
//!   on is said once). Without `--json` it shows the payload, the chain
//!   in order (configured hooks whose matcher does not match the tool are marked as not run),
//!   what was skipped or failed, and the outcome.
//! - `doctor` checks each configured hook: its program exists and is executable, its consent
//!   and whether its script drifted since it was approved, then — for approved hooks only —
//!   fires it once on a synthetic payload, whatever its matcher (on tool points the tool is the
//!   first name its matcher lists, else `Bash`), checks that its answer can be read and times it
//!   (within the hook's own time limit). For a `sh -c` line it also names the script the line
//!   runs. A config file that cannot be loaded (a syntax error, a missing program)
//!   is reported as a problem and the other files are still checked. Each disabled extension is
//!   named with who disabled it, and a configured hook that is disabled says so (`off`, not a
//!   problem: someone chose it); what a project's file tried to switch off and was refused is a
//!   problem (the line does not do what it says). A required hook that does not run is a
//!   problem, since its point blocks: missing from the registry (not linked, not approved,
//!   changed since approved) or switched off, naming who switched it off.
//! - `approve` and `revoke` change the allowlist for the hooks named as `list` names them, or
//!   for every configured hook with `--all`. An unknown name is an error with a "did you mean",
//!   and nothing is changed.
//!
//! Consent in `test`: a hook that is not approved runs only when `--accept-hooks`,
//! `HOOKCHAIN_ACCEPT_HOOKS=1` or `hooks_auto_accept: true` approves it (and the approval is
//! recorded, as the agent would record it); the command line never prompts. `doctor`, `list`
//! and `approve` ignore `--accept-hooks`: they never approve a hook by themselves.
//!
//! # Exit codes
//!
//! [`EXIT_OK`] (0) for success and for a chain that went on, [`EXIT_BLOCKED`] (2) for a chain
//! that blocked, [`EXIT_ERROR`] (1) for errors (bad arguments, a config or allowlist that cannot
//! be read, `doctor` finding a problem). Errors are one line on stderr, naming the file, line or
//! hook and the fix.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use hookchain_core::points::{self, PointInfo};
use hookchain_core::{Annotations, Flow, HookContext, HookPoint};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use hookchain_config::consent::{Consent, ConsentPolicy, ConsentStatus};
use hookchain_config::{CONFIG_FILE, Config, ConfigBuilderExt, ConfigHooksExt};
use hookchain_core::SessionState;
use hookchain_core::suggest::closest;
use hookchain_external::hook::{self, invoker};
use hookchain_external::protocol::{self, Decision, Verdict};
use hookchain_external::wire::WirePoint;
use hookchain_external::{ExternalHook, Transport};
use hookchain_external::{RawOutput, transcript};
use hookchain_runtime::{Hooks, HooksBuilder};

/// The exit code of a command that succeeded, and of a `test` whose chain went on.
pub const EXIT_OK: i32 = 0;
/// The exit code of an error: bad arguments, a file that cannot be read, a problem `doctor`
/// found.
pub const EXIT_ERROR: i32 = 1;
/// The exit code of a `test` whose chain blocked.
pub const EXIT_BLOCKED: i32 = 2;

/// The tool of the synthetic payload on tool points, when `--for-tool` names none.
pub const DEFAULT_TOOL: &str = "Bash";

/// The session id of synthetic payloads.
const SESSION: &str = "hookchain-test";

/// The points whose value is about a tool.
const TOOL_POINTS: [&str; 4] = [
    "intercept_tool_call",
    "permission_request",
    "transform_tool_result",
    "after_tool_call",
];

#[derive(Parser, Debug)]
#[command(
    name = "hookchain",
    version,
    about = "List, test, check, approve and revoke the hooks of an agent.",
    long_about = None
)]
struct Cli {
    /// A config file: hookchain.yaml, a Claude Code settings .json or a docker-agent agent
    /// YAML. Repeat to put files over each other, later over earlier. Default:
    /// ./hookchain.yaml over ~/.config/hookchain/hookchain.yaml.
    #[arg(long = "config", value_name = "FILE", global = true)]
    config: Vec<PathBuf>,

    /// The allowlist of approved hooks. Default: ~/.config/hookchain/approved-hooks.json.
    #[arg(long, value_name = "FILE", global = true)]
    consent_file: Option<PathBuf>,

    /// `test`: approve (and record) every configured hook that is not approved yet, and run it.
    #[arg(long, global = true)]
    accept_hooks: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List every hook: compiled-in and configured, with its consent.
    List,
    /// Fire the hooks of one event on a synthetic or given payload and print the outcome.
    Test(TestArgs),
    /// Check every configured hook: program, consent, drift, and one timed firing of each
    /// approved hook.
    Doctor,
    /// Approve configured hooks, pinned to their scripts' current content.
    Approve(Names),
    /// Withdraw the approval of configured hooks.
    Revoke(Names),
}

#[derive(Args, Debug)]
struct TestArgs {
    /// The event: a point (intercept_tool_call) or another agent's name for it (PreToolUse).
    event: String,
    /// The tool of the synthetic call on tool points (default: Bash).
    #[arg(long, value_name = "NAME")]
    for_tool: Option<String>,
    /// A JSON file with the point's value; tool points also take
    /// {"tool_name": …, "tool_input": …}.
    #[arg(long, value_name = "F")]
    payload_file: Option<PathBuf>,
    /// Print one JSON object: {"outcome": "continue", "value", "context", "warnings"} or
    /// {"outcome": "blocked", "reason", "hook"}.
    #[arg(long)]
    json: bool,
    /// Also print, per external hook in chain order, the exact JSON it was sent, its exit
    /// code, stdout and stderr (on stderr with --json).
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Args, Debug)]
struct Names {
    /// Hook names, as `list` shows them.
    #[arg(value_name = "NAME", required_unless_present = "all")]
    names: Vec<String>,
    /// Every configured hook.
    #[arg(long, conflicts_with = "names")]
    all: bool,
}

/// A command that could not be carried out: one line for stderr.
struct Failure(String);

impl<T: std::fmt::Display> From<T> for Failure {
    fn from(error: T) -> Self {
        Failure(error.to_string())
    }
}

/// Where a command writes.
struct Io<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
}

/// Runs the command line `args` (the program's name first, as `std::env::args_os()` gives it)
/// with the `#[register_hook]` fns linked into the program, on stdout and stderr.
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     hookchain::cli::run(std::env::args_os())
/// }
/// ```
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = run_with(
        args,
        HooksBuilder::new().collected(),
        &mut stdout.lock(),
        &mut stderr.lock(),
    );
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Runs the command line `args` (the program's name first) with the compiled-in hooks of
/// `hooks`, writing to `out` and `err`; returns the exit code ([`EXIT_OK`], [`EXIT_BLOCKED`] or
/// [`EXIT_ERROR`]).
///
/// An agent mounts it as its own subcommand by passing the rest of its arguments and the
/// builder of its own hooks (without a config: the command line adds the config it reads):
///
/// ```
/// use hookchain::{HooksBuilder, cli};
///
/// // `my-agent hooks list`
/// let args = ["my-agent hooks", "--config", "/nonexistent/hookchain.yaml", "list"];
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// let code = cli::run_with(args, HooksBuilder::new().collected(), &mut out, &mut err);
/// assert_eq!(code, cli::EXIT_ERROR);
/// assert!(String::from_utf8(err)?.contains("/nonexistent/hookchain.yaml"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_with<I, T>(args: I, hooks: HooksBuilder, out: &mut dyn Write, err: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let text = error.render().to_string();
            return if error.use_stderr() {
                let _ = write!(err, "{text}");
                EXIT_ERROR
            } else {
                let _ = write!(out, "{text}");
                EXIT_OK
            };
        }
    };
    let mut io = Io { out, err };
    let result = match &cli.command {
        Command::List => list(&cli, hooks, &mut io),
        Command::Test(args) => test(&cli, args, hooks, &mut io),
        Command::Doctor => doctor(&cli, hooks, &mut io),
        Command::Approve(names) => change_consent(&cli, names, true, &mut io),
        Command::Revoke(names) => change_consent(&cli, names, false, &mut io),
    };
    let code = match result {
        Ok(code) => code,
        Err(Failure(message)) => {
            let _ = writeln!(io.err, "hookchain: {message}");
            EXIT_ERROR
        }
    };
    let _ = io.out.flush();
    let _ = io.err.flush();
    code
}

// ---------------------------------------------------------------------------------------------
// What every command reads.
// ---------------------------------------------------------------------------------------------

/// The config of `--config` (in order, later over earlier) or of discovery.
///
/// `hooks_auto_accept: true` is honoured only in the user's own file
/// (`~/.config/hookchain/hookchain.yaml`), whether it is discovered or named with `--config`:
/// pointing the command line at a project's file to see what it would do must not let that
/// file approve its own hooks. `Config::load` keeps that rule; what it leaves out is among the
/// config's warnings, which the commands print as notes.
fn load_config(cli: &Cli) -> Result<(Config, Vec<String>), Failure> {
    if cli.config.is_empty() {
        return Ok((Config::discover()?, Vec::new()));
    }
    let mut config = Config::new();
    for path in &cli.config {
        config = config.merge(Config::load(path)?);
    }
    Ok((config, Vec::new()))
}

/// The files discovery reads, whether or not they exist.
fn discovery_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        files.push(
            PathBuf::from(home)
                .join(".config")
                .join("hookchain")
                .join(CONFIG_FILE),
        );
    }
    files.push(Path::new(".").join(CONFIG_FILE));
    files
}

fn load_consent(cli: &Cli) -> Result<Consent, Failure> {
    match &cli.consent_file {
        Some(path) => Consent::load(path).map_err(Failure::from),
        None => Consent::load_default().map_err(|e| {
            Failure(format!(
                "{e}; or name the allowlist with --consent-file FILE"
            ))
        }),
    }
}

/// `approved`, `new` or `drifted`.
fn consent_word(status: &ConsentStatus) -> &'static str {
    match status {
        ConsentStatus::Approved => "approved",
        ConsentStatus::New => "new",
        ConsentStatus::Drifted { .. } => "drifted",
    }
}

/// The matcher and what it applies to, one word: `tool:Bash`, `source:compact`,
/// `content:rm -rf`; `*` when it lets everything through, `-` when it is not consulted.
fn matcher_text(hook: &ExternalHook) -> String {
    let applies_to = if hook.matcher.reads_content() {
        Some("content")
    } else if TOOL_POINTS.contains(&hook.point) {
        Some("tool")
    } else {
        hookchain_external::wire::subject_field(hook::dialect(hook), hook.point, &hook.event)
    };
    match applies_to {
        None => "-".to_owned(),
        Some(_) if hook.matcher.is_all() => "*".to_owned(),
        Some(what) => format!("{what}:{}", hook.matcher.as_str().trim()),
    }
}

/// A hook's target on one line, for tables and messages: a multi-line shell script (docker-agent
/// and Claude Code configs hold whole scripts) is shown by its first line that is not blank or a
/// comment, cut at 60 characters, with `…` when anything was left out.
fn one_line(target: &str) -> String {
    const MAX: usize = 60;
    let mut lines = target.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines
        .clone()
        .find(|l| !l.starts_with('#'))
        .or_else(|| lines.next())
        .unwrap_or("");
    let cut = first.chars().count() > MAX;
    let mut shown: String = first.chars().take(MAX).collect();
    if cut || target.trim() != first {
        shown.push_str(" …");
    }
    shown
}

fn seconds(duration: Duration) -> String {
    format!("{}s", duration.as_secs_f64())
}

fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// Rows under headers, columns padded to their widest cell (the last one is not padded); the
/// columns in `right` (numbers) are aligned right.
fn table(headers: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    let header: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            if right.contains(&i) {
                let _ = write!(line, "{cell:>width$}");
            } else if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}");
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

// ---------------------------------------------------------------------------------------------
// list
// ---------------------------------------------------------------------------------------------

/// The registry the agent would build from `hooks` and `config`, with the hooks that are
/// approved: for what is switched off, and by whom. Nothing is approved, and nothing runs.
fn registry(hooks: HooksBuilder, config: &Config, consent: Option<&Consent>) -> Hooks {
    hooks
        .config(config.clone())
        .consent(
            consent.cloned().unwrap_or_else(Consent::in_memory),
            ConsentPolicy::new(),
        )
        .build_lenient()
}

/// `on`, or `disabled by FILE:LINE` (`disabled by the agent's code`): the state of the hooks of
/// `extension` in `registry`.
fn state(registry: &Hooks, extension: &str) -> String {
    match registry.extension(extension) {
        Some(e) if !e.is_enabled() => match e.disabled_by() {
            Some(who) => format!("disabled by {who}"),
            None => "disabled".to_owned(),
        },
        _ => "on".to_owned(),
    }
}

/// `state`, with `, required` for a required hook.
fn with_required(state: String, required: bool) -> String {
    if required {
        format!("{state}, required")
    } else {
        state
    }
}

/// `true` when the registry (or the config) has `hook` required: `required: true` in its file,
/// or required by the agent's code.
fn configured_required(registry: &Hooks, hook: &ExternalHook) -> bool {
    hook.required
        || registry
            .hooks()
            .iter()
            .any(|h| h.required && h.point == hook.point && *h.name == hook.name)
}

/// What the registry refused of the config that the config's own warnings do not say already.
fn refusals(registry: &Hooks, config: &Config) -> Vec<String> {
    registry
        .refusals()
        .into_iter()
        .filter(|r| !config.warnings().contains(r))
        .collect()
}

fn list(cli: &Cli, hooks: HooksBuilder, io: &mut Io<'_>) -> Result<i32, Failure> {
    let (config, mut notes) = load_config(cli)?;
    let consent = load_consent(cli)?;
    let registry = registry(hooks, &config, Some(&consent));
    let compiled: Vec<&hookchain_runtime::HookInfo> = registry
        .hooks()
        .iter()
        .filter(|h| h.source != hookchain_runtime::HookSource::External)
        .collect();
    let mut text = String::new();

    if compiled.is_empty() {
        text.push_str(
            "compiled-in hooks: none (this program links no #[register_hook] fn; an agent lists \
             its own by mounting hookchain::cli::run_with with its HooksBuilder)\n",
        );
    } else {
        let _ = writeln!(text, "compiled-in hooks: {}", compiled.len());
        let rows: Vec<Vec<String>> = compiled
            .iter()
            .map(|h| {
                vec![
                    h.point.to_owned(),
                    h.priority.to_string(),
                    h.name.to_string(),
                    h.extension.to_string(),
                    format!("{}:{}", h.file, h.line),
                    with_required(state(&registry, &h.extension), h.required),
                ]
            })
            .collect();
        text.push_str(&table(
            &[
                "point",
                "priority",
                "name",
                "extension",
                "location",
                "state",
            ],
            &rows,
            &[1],
        ));
    }
    text.push('\n');

    let configured = config.external_hooks();
    if configured.is_empty() {
        if config.files().is_empty() {
            let looked: Vec<String> = if cli.config.is_empty() {
                discovery_files()
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect()
            } else {
                cli.config.iter().map(|p| p.display().to_string()).collect()
            };
            let _ = writeln!(
                text,
                "configured hooks: none (no config file: looked for {}; name one with --config FILE)",
                looked.join(" and ")
            );
        } else {
            let _ = writeln!(
                text,
                "configured hooks: none ({} runs no script, worker or endpoint; those go in a \
                 `hooks:` section)",
                config.files().join(", ")
            );
        }
    } else {
        let _ = writeln!(
            text,
            "configured hooks: {} (from {})",
            configured.len(),
            config.files().join(", ")
        );
        let mut notes = Vec::new();
        let rows: Vec<Vec<String>> = configured
            .iter()
            .map(|h| {
                let status = consent.status(h);
                if let ConsentStatus::Drifted { .. } = status {
                    notes.push(format!("`{}`: {status}", h.name));
                }
                vec![
                    h.point.to_owned(),
                    h.priority.to_string(),
                    h.name.clone(),
                    matcher_text(h),
                    seconds(h.timeout),
                    h.transport.kind().to_owned(),
                    one_line(h.transport.target()),
                    h.origin.short().to_string(),
                    with_required(
                        state(&registry, hook::EXTENSION),
                        configured_required(&registry, h),
                    ),
                    consent_word(&status).to_owned(),
                ]
            })
            .collect();
        text.push_str(&table(
            &[
                "point",
                "priority",
                "name",
                "matcher",
                "timeout",
                "transport",
                "target",
                "origin",
                "state",
                "consent",
            ],
            &rows,
            &[1],
        ));
        for note in notes {
            let _ = writeln!(text, "note: {note}");
        }
        if configured
            .iter()
            .any(|h| consent.status(h) != ConsentStatus::Approved)
        {
            text.push_str(
                "hooks that are not approved do not run: approve them with `hookchain approve \
                 NAME...` (or --all)\n",
            );
        }
    }
    notes.extend(config.warnings().iter().cloned());
    notes.extend(refusals(&registry, &config));
    // Config a lenient build left out (a misspelt guard name, a field that does not fit): the
    // guard it meant does not run, or runs without those settings.
    for notice in registry.notices() {
        let said = notice
            .message
            .strip_suffix("; the section is left out")
            .is_some_and(|error| notes.iter().any(|n| n.contains(error)));
        if notice.level == hookchain_core::Level::Error && !said {
            notes.push(notice.message.clone());
        }
    }
    for note in notes {
        let _ = writeln!(text, "note: {note}");
    }
    io.out.write_all(text.as_bytes())?;
    Ok(EXIT_OK)
}

// ---------------------------------------------------------------------------------------------
// approve, revoke
// ---------------------------------------------------------------------------------------------

fn change_consent(
    cli: &Cli,
    names: &Names,
    approve: bool,
    io: &mut Io<'_>,
) -> Result<i32, Failure> {
    let (config, _) = load_config(cli)?;
    let mut consent = load_consent(cli)?;
    let configured = config.external_hooks();
    let verb = if approve { "approve" } else { "revoke" };
    if configured.is_empty() {
        return Err(Failure(format!(
            "there are no configured hooks to {verb} (config files read: {}); name a config \
             with --config FILE",
            if config.files().is_empty() {
                "none".to_owned()
            } else {
                config.files().join(", ")
            }
        )));
    }
    let chosen: Vec<&ExternalHook> = if names.all {
        configured.iter().collect()
    } else {
        let mut chosen = Vec::new();
        for name in &names.names {
            let matching: Vec<&ExternalHook> =
                configured.iter().filter(|h| &h.name == name).collect();
            if matching.is_empty() {
                return Err(Failure(unknown_hook(name, configured)));
            }
            chosen.extend(matching);
        }
        chosen
    };
    for hook in chosen {
        let status = consent.status(hook);
        let what = format!(
            "{} `{}` on {} ({})",
            hook.transport.kind(),
            one_line(hook.transport.target()),
            hook.point,
            hook.origin.short()
        );
        if approve {
            let line = match &status {
                ConsentStatus::Approved => format!("`{}` is already approved: {what}", hook.name),
                ConsentStatus::New => {
                    consent.approve(hook)?;
                    format!("approved `{}`: {what}", hook.name)
                }
                ConsentStatus::Drifted { .. } => {
                    consent.approve(hook)?;
                    format!(
                        "approved `{}` again: {what}; {status}, and the new version is approved",
                        hook.name
                    )
                }
            };
            writeln!(io.out, "{line}")?;
        } else if consent.revoke(hook)? {
            writeln!(io.out, "revoked `{}`: {what}", hook.name)?;
        } else {
            writeln!(io.out, "`{}` was not approved: {what}", hook.name)?;
        }
    }
    Ok(EXIT_OK)
}

fn unknown_hook(name: &str, configured: &[ExternalHook]) -> String {
    let known: Vec<&str> = configured.iter().map(|h| h.name.as_str()).collect();
    match closest(name, known.iter().copied()) {
        Some(close) => format!(
            "no configured hook is named `{name}`, did you mean `{close}`? (`hookchain list` \
             shows the names)"
        ),
        None => format!(
            "no configured hook is named `{name}` (the hooks are {}; `hookchain list` shows them)",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Points: names, payloads, and calling a generic fn with a point's type.
// ---------------------------------------------------------------------------------------------

/// Calls `$f::<P>($args)` with `P` the point type of the canonical name `$point`.
macro_rules! with_point {
    ($point:expr, $f:ident($($arg:expr),* $(,)?)) => {
        hookchain_core::__private::builtin_points!([$point, $f, ($($arg),*)] => with_point_rows)
    };
}

/// The arms of [`with_point!`], one per built-in point, from hooks-core's table of points.
macro_rules! with_point_rows {
    ([$point:expr, $f:ident, $args:tt]
     $($(#[$doc:meta])* $ty:ident { name: $name:literal, $($rest:tt)* })*) => {
        match $point {
            $($name => with_point_rows!(@call $f, points::$ty, $args),)*
            other => Err(Failure(format!("`{other}` is not a built-in point"))),
        }
    };
    (@call $f:ident, $ty:ty, ($($arg:expr),*)) => {
        $f::<$ty>($($arg),*)
    };
}

/// The point EVENT names, or an error with a "did you mean".
fn resolve_event(event: &str) -> Result<&'static PointInfo, Failure> {
    if let Some(point) = points::resolve(event) {
        return Ok(point);
    }
    let names: Vec<&str> = points::catalog()
        .iter()
        .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().map(|(alias, _)| *alias)))
        .collect();
    let hint = match closest(event, names.iter().copied()) {
        Some(close) => format!(", did you mean `{close}`?"),
        None => format!(
            " (the points are {})",
            points::catalog()
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Err(Failure(format!("unknown event `{event}`{hint}")))
}

/// A synthetic value of `point`, as JSON its value type reads.
fn synthetic(point: &str, tool: &str) -> Value {
    let conversation = json!([
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hello! How can I help?"},
    ]);
    match point {
        "session_start" => json!({"session_id": SESSION, "source": "startup", "context": []}),
        "session_end" => json!({"session_id": SESSION, "reason": "exit"}),
        "session_reset" => {
            json!({"old_session_id": SESSION, "new_session_id": format!("{SESSION}-2")})
        }
        "transform_user_input" => json!("Hello"),
        "turn_start" => json!({"prompt": "Hello", "context": []}),
        "before_llm_call" => json!({
            "system_prompt": "You are a helpful assistant.",
            "messages": [{"role": "user", "content": "Hello"}],
        }),
        "after_llm_call" => json!({"text": "Hello! How can I help?", "tool_calls": []}),
        "intercept_tool_call" => json!({"name": tool, "args": {}}),
        "permission_request" => json!({"tool_name": tool, "tool_input": {}}),
        "after_tool_batch" => json!({"results": [{
            "tool_name": tool,
            "tool_input": {},
            "tool_response": "",
            "is_error": false,
        }]}),
        "transform_tool_result" | "after_tool_call" => json!({
            "tool_name": tool,
            "tool_input": {},
            "tool_response": "",
            "is_error": false,
        }),
        "transform_response" => json!("Hello! How can I help?"),
        "on_stop" => json!({"response": "Done.", "stop_hook_active": false, "redos": 0}),
        "before_compaction" => json!({"messages": conversation, "trigger": "manual"}),
        "after_compaction" => json!({
            "summary": "The user said hello.",
            "messages_before": 2,
            "messages_after": 1,
        }),
        "subagent_stop" => json!({
            "session_id": format!("{SESSION}-child"),
            "parent_session_id": SESSION,
            "reason": "done",
        }),
        "outbound_message" => {
            json!({"platform": "slack", "recipient": "#general", "text": "Hello!"})
        }
        "turn_end" => json!({"session_id": SESSION, "turn": 0, "reason": {"reason": "normal"}}),
        _ => json!({"level": "warning", "message": "a test notification from hookchain"}),
    }
}

/// The payload file's JSON as `point`'s value type reads it: the wire form of tool points
/// (`tool_name`, `tool_input`, `tool_use_id`) and `{"prompt": …}` for user input are put in the
/// value's shape; `tool` (from `--for-tool`) renames the tool.
fn from_file(point: &str, mut value: Value, tool: Option<&str>) -> Value {
    match point {
        "intercept_tool_call" => {
            if let Value::Object(object) = &mut value
                && object.contains_key("tool_name")
                && !object.contains_key("name")
            {
                let mut call = Map::new();
                call.insert(
                    "name".to_owned(),
                    object.remove("tool_name").unwrap_or_default(),
                );
                call.insert(
                    "args".to_owned(),
                    object.remove("tool_input").unwrap_or_else(|| json!({})),
                );
                if let Some(id) = object.remove("tool_use_id") {
                    call.insert("id".to_owned(), id);
                }
                value = Value::Object(call);
            }
            if let (Some(tool), Value::Object(object)) = (tool, &mut value) {
                object.insert("name".to_owned(), Value::from(tool));
            }
        }
        "transform_tool_result" | "after_tool_call" | "permission_request" => {
            if let Value::Object(object) = &mut value {
                if object.contains_key("tool_name") {
                    object.entry("tool_input").or_insert_with(|| json!({}));
                    object
                        .entry("tool_response")
                        .or_insert_with(|| Value::from(""));
                }
                if let Some(tool) = tool {
                    object.insert("tool_name".to_owned(), Value::from(tool));
                }
            }
        }
        "transform_user_input" => {
            if let Value::Object(object) = &value
                && let Some(Value::String(prompt)) = object.get("prompt")
            {
                value = Value::from(prompt.as_str());
            }
        }
        _ => {}
    }
    value
}

/// `file`'s fields over `value` (a synthetic value of `point`): each key of `value` that `file`
/// has — at its top level, else in Hermes' `extra` — is taken from `file`, the others kept,
/// and `file`'s keys the value has no place for are left out; other agents' names are read as
/// the value's (`last_assistant_message`, docker-agent's `stop_response`: the Stop `response`;
/// Hermes' `assistant_response`: the reply's `text`; docker-agent's `notification_level` and
/// `notification_message`). Anything but two objects is `value` unchanged.
fn overlay(point: &str, mut value: Value, file: &Value) -> Value {
    let (Value::Object(value_fields), Value::Object(file_fields)) = (&mut value, file) else {
        return value;
    };
    let aliases: &[(&str, &str)] = match point {
        "on_stop" => &[
            ("response", "last_assistant_message"),
            ("response", "stop_response"),
        ],
        "after_llm_call" => &[("text", "assistant_response"), ("text", "stop_response")],
        "before_compaction" => &[("trigger", "compaction_reason")],
        "notification" => &[
            ("level", "notification_level"),
            ("message", "notification_message"),
        ],
        _ => &[],
    };
    let extra = file_fields.get("extra").and_then(Value::as_object);
    let get = |key: &str| {
        file_fields
            .get(key)
            .filter(|v| !v.is_null())
            .or_else(|| extra.and_then(|extra| extra.get(key)))
    };
    for (key, slot) in value_fields.iter_mut() {
        let found = get(key).or_else(|| {
            aliases
                .iter()
                .filter(|(ours, _)| ours == key)
                .find_map(|(_, theirs)| get(theirs))
        });
        if let Some(found) = found {
            *slot = found.clone();
        }
    }
    value
}

/// The value of point `P` read from `json`, or why not.
fn read_value<P>(json: &Value) -> Result<P::Value, Failure>
where
    P: HookPoint,
    P::Value: DeserializeOwned,
{
    serde_json::from_value(json.clone()).map_err(|e| Failure(e.to_string()))
}

/// The value of point `P` read from `json`, as its type writes it (compact JSON, fields in the
/// type's order), or why it cannot be read.
fn canonical<P>(json: &Value) -> Result<String, Failure>
where
    P: HookPoint,
    P::Value: Serialize + DeserializeOwned,
{
    Ok(serde_json::to_string(&read_value::<P>(json)?)?)
}

// ---------------------------------------------------------------------------------------------
// test
// ---------------------------------------------------------------------------------------------

/// The JSON `test --json` prints (`V`: the point's value), and what the readable output shows
/// (`V`: the value as compact JSON).
#[derive(Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
enum TestReport<V> {
    Continue {
        value: V,
        context: Vec<String>,
        warnings: Vec<String>,
    },
    Blocked {
        reason: String,
        hook: String,
    },
}

/// What one dispatch of `test` gave.
struct Fired {
    /// The line `--json` prints.
    json: String,
    /// The outcome, its warnings those of the hooks only.
    report: TestReport<String>,
    rewritten_by: Vec<String>,
    failures: Vec<String>,
    /// Whether the block was a hook failing under `on_error = "block"`.
    failed: bool,
}

/// Dispatches the value in `json` through the chain of `P`. `notices` (config left out, hooks
/// skipped for want of consent) come first in the JSON's warnings, then the hooks that failed,
/// then the warnings the hooks added.
fn fire<P>(
    hooks: &Hooks,
    json: &Value,
    notices: &[String],
    session: &Given,
    state: &SessionState,
) -> Result<Fired, Failure>
where
    P: HookPoint,
    P::Value: Serialize + DeserializeOwned,
{
    let value = read_value::<P>(json)?;
    let mut outcome = hooks.dispatch_in_session::<P>(&session.session_id, state, value);
    let failures: Vec<String> = outcome.failures.iter().map(ToString::to_string).collect();
    // A hook that failed and went on is a failure and also a warning of the chain: said once.
    outcome
        .warnings
        .retain(|warning| !failures.iter().any(|f| warning.starts_with(f.as_str())));
    let fired = match outcome.flow {
        Flow::Continue(value) => {
            let mut warnings = notices.to_vec();
            warnings.extend(failures.iter().map(|f| format!("{f} (went on)")));
            warnings.extend(outcome.warnings.iter().cloned());
            let json = serde_json::to_string(&TestReport::Continue {
                value: &value,
                context: outcome.context.clone(),
                warnings,
            })?;
            Fired {
                json,
                report: TestReport::Continue {
                    value: serde_json::to_string(&value)?,
                    context: outcome.context,
                    warnings: outcome.warnings,
                },
                rewritten_by: outcome.rewritten_by,
                failures,
                failed: false,
            }
        }
        Flow::Blocked(blocked) => {
            let report = TestReport::<String>::Blocked {
                reason: blocked.reason,
                hook: blocked.hook,
            };
            Fired {
                json: serde_json::to_string(&report)?,
                report,
                rewritten_by: outcome.rewritten_by,
                failures,
                failed: blocked.failed,
            }
        }
    };
    Ok(fired)
}

/// What a payload file says about the session it was sent in: what `test` fires the chain in.
struct Given {
    /// `session_id`, else [`SESSION`].
    session_id: String,
    /// `cwd`: the project directory the hooks run in.
    cwd: Option<PathBuf>,
    /// `transcript_path`: the agent's transcript.
    transcript_path: Option<String>,
    /// `permission_mode`.
    permission_mode: Option<String>,
}

impl Given {
    /// The synthetic session: [`SESSION`], in the current directory, with a transcript
    /// hookchain keeps.
    fn synthetic() -> Given {
        Given {
            session_id: SESSION.to_owned(),
            cwd: None,
            transcript_path: None,
            permission_mode: None,
        }
    }

    /// What the payload file `shown` holds in `json`; a key of the wrong type, or a `cwd` that
    /// is not a directory, is an error naming the file and the key.
    fn of(json: &Value, shown: &str) -> Result<Given, Failure> {
        let text = |key: &str| -> Result<Option<String>, Failure> {
            match json.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) => Ok(Some(text.clone())),
                Some(other) => Err(Failure(format!(
                    "{shown}: `{key}` must be a string, not {other}"
                ))),
            }
        };
        let cwd = text("cwd")?.map(PathBuf::from);
        if let Some(dir) = &cwd
            && !dir.is_dir()
        {
            return Err(Failure(format!(
                "{shown}: `cwd` is `{}`, which is not a directory here (the hooks run in it): \
                 give a directory that exists, or leave `cwd` out",
                dir.display()
            )));
        }
        Ok(Given {
            session_id: text("session_id")?.unwrap_or_else(|| SESSION.to_owned()),
            cwd,
            transcript_path: text("transcript_path")?,
            permission_mode: text("permission_mode")?,
        })
    }

    /// A session state holding what external hooks are told about the session.
    fn state(&self) -> SessionState {
        let state = SessionState::default();
        if let Some(dir) = &self.cwd {
            transcript::set_project_dir(&state, dir);
        }
        if let Some(path) = &self.transcript_path {
            transcript::set_transcript_path(&state, path);
        }
        if let Some(mode) = &self.permission_mode {
            transcript::set_permission_mode(&state, mode);
        }
        state
    }
}

/// One exchange of an external hook, as `--verbose` prints it.
struct Seen {
    hook: String,
    payload: String,
    answer: Result<RawOutput, String>,
}

/// The lines `--verbose` prints for `seen`, in chain order.
fn verbose_lines(seen: &[Seen]) -> String {
    let mut text = String::new();
    if seen.is_empty() {
        text.push_str("sent: nothing (no external hook ran)\n");
    }
    for exchange in seen {
        let _ = writeln!(text, "sent to `{}`: {}", exchange.hook, exchange.payload);
        match &exchange.answer {
            Ok(raw) => {
                let code = raw
                    .exit_code
                    .map_or_else(|| "none (not a command)".to_owned(), |c| c.to_string());
                let _ = writeln!(text, "  exit code: {code}");
                for (stream, bytes) in [("stdout", &raw.stdout), ("stderr", &raw.stderr)] {
                    let shown = String::from_utf8_lossy(bytes);
                    if shown.trim().is_empty() {
                        let _ = writeln!(text, "  {stream}: (empty)");
                    }
                    for line in shown.lines() {
                        let _ = writeln!(text, "  {stream}: {line}");
                    }
                }
            }
            Err(error) => {
                let _ = writeln!(text, "  no answer: {error}");
            }
        }
    }
    text
}

fn test(cli: &Cli, args: &TestArgs, hooks: HooksBuilder, io: &mut Io<'_>) -> Result<i32, Failure> {
    let point = resolve_event(&args.event)?;
    let is_tool_point = TOOL_POINTS.contains(&point.name);
    if args.for_tool.is_some() && !is_tool_point {
        return Err(Failure(format!(
            "--for-tool names the tool of a tool point ({}); `{}` is not one",
            TOOL_POINTS.join(", "),
            point.name
        )));
    }
    let mut given = Given::synthetic();
    let payload = match &args.payload_file {
        Some(path) => {
            let shown = path.display();
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure(format!("cannot read the payload file {shown}: {e}")))?;
            let json: Value = serde_json::from_str(&text)
                .map_err(|e| Failure(format!("{shown}: invalid JSON: {e}")))?;
            given = Given::of(&json, &shown.to_string())?;
            let json = from_file(point.name, json, args.for_tool.as_deref());
            // Another agent's payload for a non-tool event (a Claude Code Stop payload has no
            // `response`): its fields that the point's value has are taken, the rest of the
            // value is the synthetic one's.
            let json = match with_point!(point.name, canonical(&json)) {
                Ok(_) => json,
                // A tool point's payload names its tool: one that does not is an error.
                Err(_) if is_tool_point => json,
                Err(_) => overlay(
                    point.name,
                    synthetic(point.name, args.for_tool.as_deref().unwrap_or(DEFAULT_TOOL)),
                    &json,
                ),
            };
            with_point!(point.name, canonical(&json)).map_err(|Failure(e)| {
                Failure(format!(
                    "{shown}: not a value of {}: {e} (e.g. {})",
                    point.name,
                    synthetic(point.name, DEFAULT_TOOL)
                ))
            })?;
            json
        }
        None => synthetic(point.name, args.for_tool.as_deref().unwrap_or(DEFAULT_TOOL)),
    };
    let (config, mut notes) = load_config(cli)?;
    let consent = load_consent(cli)?;
    let policy = ConsentPolicy::from_lookup(|name| std::env::var(name).ok());
    let (registry, errors) = hooks
        .config(config.clone())
        .consent(consent, policy)
        .accept_hooks(cli.accept_hooks)
        .build_reporting();
    // A lenient build leaves out what does not fit; say what that was, in the notes and in the
    // JSON's warnings (a guard its section cannot enable does not run: a tool must see that).
    let left_out: Vec<String> = errors
        .iter()
        .map(|error| format!("{error} (left out)"))
        .collect();
    notes.extend(left_out.iter().cloned());
    for error in &registry.consent_report().errors {
        notes.push(error.to_string());
    }
    notes.extend(config.warnings().iter().cloned());
    notes.extend(refusals(&registry, &config));
    let skipped: Vec<String> = left_out
        .into_iter()
        .chain(
            registry
                .consent_report()
                .skipped
                .iter()
                .filter(|s| s.point == point.name)
                .map(ToString::to_string),
        )
        .collect();
    let session_state = given.state();
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    if args.verbose {
        let log = seen.clone();
        hook::tap(&session_state, move |exchange| {
            let seen = Seen {
                hook: exchange.hook.to_owned(),
                payload: String::from_utf8_lossy(exchange.payload).into_owned(),
                answer: exchange.answer.cloned().map_err(ToString::to_string),
            };
            log.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(seen);
        });
    }
    let fired = with_point!(
        point.name,
        fire(&registry, &payload, &skipped, &given, &session_state)
    )?;
    let code = match fired.report {
        TestReport::Continue { .. } => EXIT_OK,
        TestReport::Blocked { .. } => EXIT_BLOCKED,
    };
    let verbose = if args.verbose {
        let seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
        verbose_lines(&seen)
    } else {
        String::new()
    };

    if args.json {
        for note in &notes {
            writeln!(io.err, "note: {note}")?;
        }
        io.err.write_all(verbose.as_bytes())?;
        writeln!(io.out, "{}", fired.json)?;
        return Ok(code);
    }

    let mut text = String::new();
    let alias = if point.name == args.event {
        String::new()
    } else {
        format!(" (as `{}`)", args.event)
    };
    let _ = writeln!(text, "event: {}{alias}", point.name);
    let shown = with_point!(point.name, canonical(&payload))?;
    let _ = writeln!(text, "payload: {shown}");
    let _ = writeln!(
        text,
        "session: {} (cwd: {}; transcript: {})",
        given.session_id,
        given.cwd.as_ref().map_or_else(
            || "the current directory".to_owned(),
            |d| d.display().to_string()
        ),
        given
            .transcript_path
            .as_deref()
            .unwrap_or("one hookchain keeps for the test")
    );
    let chain = registry.chain_of(point.name);
    if chain.is_empty() {
        text.push_str("chain: no hooks\n");
    } else {
        let _ = writeln!(text, "chain: {} hook(s), in order", chain.len());
        let tool = match point.name {
            "intercept_tool_call" => payload.get("name"),
            _ => payload.get("tool_name"),
        }
        .and_then(Value::as_str);
        let rows: Vec<Vec<String>> = chain
            .iter()
            .map(|h| {
                let configured = config
                    .external_hooks()
                    .iter()
                    .find(|e| e.point == h.point && *e.name == *h.name);
                let gate = match (configured, tool) {
                    _ if state(&registry, &h.extension) != "on" => {
                        format!("  ({}: not run)", state(&registry, &h.extension))
                    }
                    (Some(hook), Some(tool)) if !hook.matcher.matches(tool) => format!(
                        "  (its matcher `{}` does not match `{tool}`: not run)",
                        hook.matcher
                    ),
                    _ => String::new(),
                };
                vec![
                    h.priority.to_string(),
                    h.name.to_string(),
                    h.extension.to_string(),
                    format!("{}:{}{gate}", h.file, h.line),
                ]
            })
            .collect();
        let listed = table(&["priority", "name", "extension", "location"], &rows, &[0]);
        for line in listed.lines() {
            let _ = writeln!(text, "  {line}");
        }
    }
    for admitted in &registry.consent_report().admitted {
        if admitted.point == point.name
            && admitted.accepted_by != hookchain_config::consent::AcceptedBy::Allowlist
        {
            let _ = writeln!(
                text,
                "approved `{}` (by {})",
                admitted.name, admitted.accepted_by
            );
        }
    }
    for skip in &skipped {
        let _ = writeln!(text, "skipped: {skip}");
    }
    for note in &notes {
        let _ = writeln!(text, "note: {note}");
    }
    text.push_str(&verbose);
    for failure in &fired.failures {
        let _ = writeln!(text, "failed: {failure}");
    }
    match &fired.report {
        TestReport::Continue {
            value,
            context,
            warnings,
        } => {
            if !fired.rewritten_by.is_empty() {
                let _ = writeln!(text, "rewritten by: {}", fired.rewritten_by.join(", "));
            }
            for line in context {
                let _ = writeln!(text, "context: {line}");
            }
            for line in warnings {
                let _ = writeln!(text, "warning: {line}");
            }
            let _ = writeln!(text, "outcome: continue with {value}");
        }
        TestReport::Blocked { reason, hook } => {
            let how = if fired.failed {
                " (the hook failed, and its on_error is block)"
            } else {
                ""
            };
            // A built-in guard's reason begins with its name, for the model: said once here.
            let reason = reason
                .strip_prefix(hook.as_str())
                .and_then(|rest| rest.strip_prefix(": "))
                .unwrap_or(reason);
            let _ = writeln!(text, "outcome: blocked by `{hook}`{how}: {reason}");
        }
    }
    io.out.write_all(text.as_bytes())?;
    Ok(code)
}

// ---------------------------------------------------------------------------------------------
// doctor
// ---------------------------------------------------------------------------------------------

/// The tool of `hook`'s synthetic payload: the first name its matcher lists that it matches
/// (`write_file` for `write_file|edit_file`), else [`DEFAULT_TOOL`].
fn tool_for(hook: &ExternalHook) -> &str {
    hook.matcher
        .as_str()
        .split(['|', ','])
        .map(str::trim)
        .find(|name| !name.is_empty() && hook.matcher.matches(name))
        .unwrap_or(DEFAULT_TOOL)
}

/// One timed firing of `hook` on a synthetic payload of `P`, whatever its matcher: the time it
/// took and its answer, or why it failed.
fn fire_once<P>(hook: &ExternalHook) -> Result<(Duration, Result<Decision, String>), Failure>
where
    P: WirePoint,
    P::Value: DeserializeOwned,
{
    let value = read_value::<P>(&synthetic(P::NAME, tool_for(hook)))?;
    let invoke = invoker(&hook.transport)?;
    let notes = Annotations::new();
    let cx = HookContext::new(SESSION, 0, P::NAME, &notes).with_hook(&hook.name);
    let dialect = hook::dialect(hook);
    let payload =
        hookchain_external::wire::payload_in::<P>(&hook.event, dialect, P::input(&value), &cx);
    let bytes = serde_json::to_vec(&payload)?;
    let started = Instant::now();
    let raw = invoke.invoke(&bytes, hook.timeout);
    let took = started.elapsed();
    let answer = match raw {
        Ok(raw) => protocol::decide_in(&raw, dialect).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    Ok((took, answer))
}

/// Fires a wildcard hook once with the event of a synthetic `intercept_tool_call` dispatch
/// that passed; how long it took and whether it ended well.
fn fire_wildcard_once(hook: &ExternalHook) -> Result<(Duration, Result<(), String>), Failure> {
    let point = <points::InterceptToolCall as HookPoint>::NAME;
    let value = read_value::<points::InterceptToolCall>(&synthetic(point, tool_for(hook)))?;
    let mut event = hookchain_core::DispatchEvent::new(
        point,
        hookchain_core::PointKind::Transform,
        hookchain_core::Decision::Pass,
        serde_json::to_value(&value)?,
    );
    event.session_id = SESSION.to_owned();
    event.tool = Some(value.name.clone());
    let invoke = invoker(&hook.transport)?;
    let notes = Annotations::new();
    let cx = HookContext::new(SESSION, 0, point, &notes).with_hook(&hook.name);
    let started = Instant::now();
    let fired = hook::Firing::new(hook).fire_wildcard(&*invoke, &event, &cx);
    Ok((started.elapsed(), fired.map_err(|e| e.message().to_owned())))
}

/// What an answer says, in a few words.
fn describe_decision(decision: &Decision) -> String {
    let mut parts = Vec::new();
    match &decision.verdict {
        Verdict::Pass => {}
        Verdict::Allow => parts.push("allows".to_owned()),
        Verdict::Block(reason) => parts.push(format!("blocks: {}", first_line(reason))),
        Verdict::Ask(reason) => parts.push(format!("asks (blocks): {}", first_line(reason))),
    }
    if let Some(reason) = &decision.stop {
        parts.push(format!("stops: {}", first_line(reason)));
    }
    if decision.updated_input.is_some() || decision.merge_input.is_some() {
        parts.push("rewrites the input".to_owned());
    }
    if decision.updated_output.is_some() || decision.updated_text.is_some() {
        parts.push("rewrites the value".to_owned());
    }
    if !decision.context.is_empty() {
        parts.push(format!("adds {} context line(s)", decision.context.len()));
    }
    if !decision.warnings.is_empty() {
        parts.push(format!("adds {} warning(s)", decision.warnings.len()));
    }
    if parts.is_empty() {
        "passes".to_owned()
    } else {
        parts.join(", ")
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn doctor(cli: &Cli, hooks: HooksBuilder, io: &mut Io<'_>) -> Result<i32, Failure> {
    let mut text = String::new();
    let mut problems = 0usize;
    let mut load_errors = 0usize;

    // Each file on its own, so that one that cannot be loaded does not hide the others.
    let files: Vec<PathBuf> = if cli.config.is_empty() {
        discovery_files()
            .into_iter()
            .filter(|p| p.exists())
            .collect()
    } else {
        cli.config.clone()
    };
    let mut config = Config::new();
    for file in &files {
        match Config::load(file) {
            Ok(loaded) => config = config.merge(loaded),
            Err(error) => {
                load_errors += 1;
                let _ = writeln!(text, "problem: {error}");
            }
        }
    }
    if files.is_empty() {
        let looked: Vec<String> = discovery_files()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let _ = writeln!(
            text,
            "no config file: looked for {}; name one with --config FILE",
            looked.join(" and ")
        );
    }
    let consent = match load_consent(cli) {
        Ok(consent) => Some(consent),
        Err(Failure(error)) => {
            problems += 1;
            let _ = writeln!(text, "problem: {error}");
            None
        }
    };
    let registry = registry(hooks, &config, consent.as_ref());
    let compiled = registry
        .hooks()
        .iter()
        .filter(|h| h.source != hookchain_runtime::HookSource::External)
        .count();
    for extension in registry.extensions() {
        if !extension.is_enabled() && extension.name() != hook::EXTENSION {
            let _ = writeln!(
                text,
                "extension `{}` ({} hook(s)) is {}: its hooks do not run",
                extension.name(),
                extension.hook_count(),
                state(&registry, extension.name())
            );
        }
    }
    // What a project's file tried to switch off is a problem: the line does not do what it
    // says (the user's own file is where a guard is switched off).
    let refused = registry.refusals();
    for warning in config.warnings() {
        if !refused.contains(warning) {
            let _ = writeln!(text, "note: {warning}");
        }
    }
    for refusal in &refused {
        problems += 1;
        let _ = writeln!(text, "problem: {refusal}");
    }
    // A required hook that does not run is a problem: its point blocks. Missing (not linked,
    // not approved, changed since approved): the registry's error notices say which.
    // A config section left out is an error notice as well as the error or refusal said above:
    // said once.
    for notice in registry.notices() {
        let said = notice
            .message
            .strip_suffix("; the section is left out")
            .is_some_and(|error| text.contains(error));
        if notice.level == hookchain_core::Level::Error && !said {
            problems += 1;
            let _ = writeln!(text, "problem: {}", notice.message);
        }
    }
    // Present, and switched off.
    for h in registry.hooks() {
        if h.required && state(&registry, &h.extension) != "on" {
            problems += 1;
            let _ = writeln!(
                text,
                "problem: required hook `{}` ({}) is {}: `{}` blocks until it is enabled again",
                h.name,
                h.location(),
                state(&registry, &h.extension),
                h.point
            );
        }
    }
    let external_state = state(&registry, hook::EXTENSION);

    let configured = config.external_hooks();
    let mut ok = 0usize;
    for hook in configured {
        let mut hook_problems = 0usize;
        let required = configured_required(&registry, hook);
        let _ = writeln!(
            text,
            "{} ({} {} `{}`, {}){}",
            hook.name,
            hook.point,
            hook.transport.kind(),
            one_line(hook.transport.target()),
            hook.origin.short(),
            if required {
                ", required: its point blocks when it does not run"
            } else {
                ""
            }
        );
        let mut line = |text: &mut String, good: bool, message: String| {
            if !good {
                hook_problems += 1;
            }
            let mark = if good { "ok     " } else { "problem" };
            let _ = writeln!(text, "  {mark} {message}");
        };
        // The program.
        let usable = match &hook.transport {
            Transport::Command(spec) | Transport::Process(spec) => {
                match hookchain_external::program::resolve_program(spec) {
                    Ok(program) => {
                        let mut found = format!("program {} is executable", program.display());
                        if let Some(script) = hookchain_config::consent::script_of(spec)
                            && std::fs::canonicalize(&script).ok()
                                != std::fs::canonicalize(&program).ok()
                        {
                            let _ = write!(found, "; it runs the script {}", script.display());
                        }
                        line(&mut text, true, found);
                        true
                    }
                    Err(error) => {
                        line(
                            &mut text,
                            false,
                            format!(
                                "{error}; fix the path in {} or the file's mode",
                                hook.origin.short()
                            ),
                        );
                        false
                    }
                }
            }
            Transport::Http(_) => match invoker(&hook.transport) {
                Ok(_) => {
                    line(&mut text, true, "URL is valid".to_owned());
                    true
                }
                Err(error) => {
                    line(&mut text, false, error.to_string());
                    false
                }
            },
        };
        // Consent and drift.
        let status = consent.as_ref().map(|c| c.status(hook));
        let approved = match &status {
            Some(ConsentStatus::Approved) => {
                line(&mut text, true, "approved, unchanged since".to_owned());
                true
            }
            Some(ConsentStatus::New) => {
                line(
                    &mut text,
                    false,
                    format!(
                        "not approved, so it does not run: approve it with `hookchain approve {}`",
                        hook.name
                    ),
                );
                false
            }
            Some(drifted @ ConsentStatus::Drifted { .. }) => {
                line(
                    &mut text,
                    false,
                    format!(
                        "{drifted}, so it does not run: review it, then `hookchain approve {}`",
                        hook.name
                    ),
                );
                false
            }
            None => false,
        };
        if external_state != "on" && required {
            line(
                &mut text,
                false,
                format!(
                    "{external_state}: it does not run, and `{}` blocks",
                    hook.point
                ),
            );
        } else if external_state != "on" {
            let _ = writeln!(text, "  off     {external_state}: it does not run");
        }
        // One firing, of approved hooks only.
        if !approved {
            let _ = writeln!(
                text,
                "  -       not fired: doctor runs only hooks that are approved and unchanged"
            );
        } else if usable && hookchain_core::Pattern::is_wildcard(hook.point) {
            match fire_wildcard_once(hook) {
                Ok((took, Ok(()))) => line(
                    &mut text,
                    true,
                    format!(
                        "fired on a synthetic dispatch event in {}: it ended well (a wildcard \
                         hook's output is not read)",
                        millis(took)
                    ),
                ),
                Ok((took, Err(error))) => line(
                    &mut text,
                    false,
                    format!(
                        "fired on a synthetic dispatch event in {}: {error}",
                        millis(took)
                    ),
                ),
                Err(Failure(error)) => line(&mut text, false, error),
            }
        } else if usable {
            match with_point!(hook.point, fire_once(hook)) {
                Ok((took, Ok(decision))) => line(
                    &mut text,
                    true,
                    format!(
                        "fired on a synthetic payload in {}: valid answer ({})",
                        millis(took),
                        describe_decision(&decision)
                    ),
                ),
                Ok((took, Err(error))) => line(
                    &mut text,
                    false,
                    format!(
                        "fired on a synthetic payload in {}: {error} (on_error: {})",
                        millis(took),
                        hook.on_error
                    ),
                ),
                Err(Failure(error)) => line(&mut text, false, error),
            }
        }
        if hook_problems == 0 {
            ok += 1;
        } else {
            problems += 1;
        }
    }
    let _ = write!(
        text,
        "{} configured hook(s): {ok} ok, {} with problems; {} config file(s) not loaded; {compiled} \
         compiled-in hook(s) (not checked)",
        configured.len(),
        configured.len() - ok,
        load_errors
    );
    if problems > 0 {
        let _ = write!(text, "; {problems} problem(s) in all");
    }
    text.push('\n');
    io.out.write_all(text.as_bytes())?;
    Ok(if problems + load_errors == 0 {
        EXIT_OK
    } else {
        EXIT_ERROR
    })
}

#[cfg(test)]
mod tests {
    /// docker-agent's and Claude Code's configs hold whole scripts as commands: a listing shows
    /// one line of each, never the script (which broke the table into dozens of lines).
    #[test]
    fn a_multi_line_script_is_shown_on_one_line() {
        use super::one_line;
        assert_eq!(
            one_line("./hooks/guard.sh --strict"),
            "./hooks/guard.sh --strict"
        );
        assert_eq!(
            one_line("# Read the input\nINPUT=$(cat)\necho \"$INPUT\" | jq .\n"),
            "INPUT=$(cat) …"
        );
        assert_eq!(one_line("# only a comment"), "# only a comment");
        let long = "x".repeat(100);
        assert_eq!(one_line(&long), format!("{} …", "x".repeat(60)));
    }

    #[test]
    fn the_matcher_column_says_what_the_matcher_applies_to() {
        use hookchain_external::{
            CommandSpec, ConfigOrigin, Dialect, ExternalHook, Matcher, OnError, Transport,
        };
        let hook = |point: &'static str, event: &str, dialect, matcher: &str| ExternalHook {
            point,
            event: event.to_owned(),
            name: "h".to_owned(),
            transport: Transport::Command(CommandSpec {
                argv: vec!["true".to_owned()],
                display: "true".to_owned(),
                env: Default::default(),
                working_dir: None,
                env_clear: false,
                env_allow: Vec::new(),
            }),
            matcher: Matcher::parse(dialect, matcher).unwrap(),
            timeout: Duration::from_secs(1),
            priority: 0,
            on_error: OnError::Pass,
            dialect,
            origin: ConfigOrigin::Code,
            required: false,
        };
        let text = |h: ExternalHook| matcher_text(&h);
        assert_eq!(
            text(hook(
                "intercept_tool_call",
                "PreToolUse",
                Dialect::ClaudeCode,
                "Bash"
            )),
            "tool:Bash"
        );
        assert_eq!(
            text(hook(
                "session_start",
                "SessionStart",
                Dialect::ClaudeCode,
                "compact"
            )),
            "source:compact"
        );
        assert_eq!(
            text(hook(
                "session_start",
                "SubagentStart",
                Dialect::ClaudeCode,
                "Explore"
            )),
            "agent_type:Explore"
        );
        assert_eq!(
            text(hook(
                "permission_request",
                "PermissionRequest",
                Dialect::ClaudeCode,
                "Bash"
            )),
            "tool:Bash"
        );
        assert_eq!(
            text(hook(
                "session_start",
                "on_session_start",
                Dialect::Hermes,
                "x"
            )),
            "-"
        );
        assert_eq!(
            text(hook("on_stop", "on_stop", Dialect::Starchild, "publish")),
            "content:publish"
        );
        assert_eq!(
            text(hook(
                "intercept_tool_call",
                "PreToolUse",
                Dialect::ClaudeCode,
                "*"
            )),
            "*"
        );
    }

    use super::*;

    fn check(point: &str) -> Result<(), Failure> {
        with_point!(point, canonical(&synthetic(point, DEFAULT_TOOL))).map(drop)
    }

    #[test]
    fn every_point_has_a_synthetic_value() {
        for point in points::catalog() {
            if let Err(Failure(e)) = check(point.name) {
                panic!("{}: {e}", point.name);
            }
        }
    }

    #[test]
    fn tool_points_take_the_wire_form() {
        let call = from_file(
            "intercept_tool_call",
            json!({"tool_name": "Write", "tool_input": {"path": "a"}, "tool_use_id": "t1"}),
            None,
        );
        assert_eq!(
            call,
            json!({"name": "Write", "args": {"path": "a"}, "id": "t1"})
        );
        let result = from_file(
            "transform_tool_result",
            json!({"tool_name": "Write"}),
            Some("Edit"),
        );
        assert_eq!(
            result,
            json!({"tool_name": "Edit", "tool_input": {}, "tool_response": ""})
        );
        assert_eq!(
            from_file("transform_user_input", json!({"prompt": "hi"}), None),
            json!("hi")
        );
    }

    #[test]
    fn unknown_events_suggest_the_closest_name() {
        let Err(Failure(message)) = resolve_event("pre_tool_cal") else {
            panic!("resolved")
        };
        assert_eq!(
            message,
            "unknown event `pre_tool_cal`, did you mean `pre_tool_call`?"
        );
        assert_eq!(
            resolve_event("PreToolUse").ok().map(|p| p.name),
            Some("intercept_tool_call")
        );
    }

    #[test]
    fn tables_pad_all_but_the_last_column() {
        let text = table(
            &["a", "bb", "c"],
            &[vec!["xxx".into(), "y".into(), "z".into()]],
            &[1],
        );
        assert_eq!(text, "a    bb  c\nxxx   y  z\n");
    }
}
