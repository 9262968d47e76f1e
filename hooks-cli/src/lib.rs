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
//!   extensions list           every extension: version, on/off, what it adds, its source
//!   extensions enable|disable NAME | --all
//!                             switch one extension (or all: `hooks_enabled`), kept in
//!                             ~/.config/hookchain/hookchain.yaml
//!   extensions info NAME      its hooks, tools with their schemas, its config section
//!   extensions doctor         what cannot run; exit 1 on any problem
//!   tools [--json]            every tool extensions give the model, with its JSON Schema
//!   call TOOL [--args JSON] [--session ID] [--json]
//!                             run one tool call through the chains; exit 2 when blocked
//!   hook --agent AGENT [EVENT] be AGENT's hook (claude-code, codex, gemini, cursor, copilot):
//!                             its payload on stdin, the answer in its own form (see `hook`)
//!   install --agent NAME [--scope user|project] [--dry-run]
//!                             make hookchain the hook of claude-code, codex, gemini,
//!                             cursor or copilot; print the change
//!   uninstall --agent NAME [--scope user|project] [--dry-run]
//!                             remove exactly what install wrote; print the change
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
//!   `file:line`, state) and the configured ones (point, priority, name, matcher and what it
//!   applies to — `tool:Bash`, `source:compact` —, timeout, transport and target, `file:line`,
//!   state, consent: `approved`, `new` or `drifted`). A target is one line: a long one has its
//!   paths shortened from their start, never at their end (`…/hooks/check.sh`). The
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
//!   field names gives the fields the value has, the rest synthetic: see
//!   [`value_from_payload`]), or a synthetic value
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
//!   and nothing is changed. `approve --all` leaves out a hook that is not pinnable (its line
//!   computes what it runs), saying so: it is approved by name, once its line is read.
//!
//! - `extensions list` prints each extension of the registry the agent would build and each
//!   external extension (`NAME/EXTENSION.yaml`): name, version, hooks, tools and commands
//!   counted, its source (`compiled-in`, `built-in guard`, `configured hooks`, `user external`,
//!   `project external`) and its state (`on`, or `disabled by WHO`), then where the switches
//!   are kept. `extensions enable|disable NAME` writes `enabled: true|false` in the extension's
//!   section of the user's own `~/.config/hookchain/hookchain.yaml`, and `--all` the master
//!   switch `hooks_enabled`, editing the file line by line (its comments stay; what cannot be
//!   edited that way is an error, and nothing is written). `extensions info NAME` shows one
//!   extension: its hooks with points and priorities, its tools with their schemas and
//!   consent, its config section. An unknown NAME is an error with a "did you mean".
//!   `extensions doctor` reports what cannot run — hooks and tools of external extensions not
//!   approved or changed since, parts of their files left out — and exits 1 on any problem.
//!   The tools of external extensions are approved and revoked as `tool NAME`.
//! - `tools` lists every tool of the registry the agent would build — `#[register_tool]` fns,
//!   builder tools, the approved tools of external extensions — with its extension, its state,
//!   its description and the JSON Schema of its parameters, then the external tools that do
//!   not run for want of consent and the command that approves each. `call TOOL --args JSON`
//!   runs one call as `Turn::call_tool` runs it, through `intercept_tool_call`,
//!   `after_tool_call` and `transform_tool_result`, in a session of its own, and prints what the
//!   model would see: the result, the error (an unknown tool, args that do not fit, with a "did
//!   you mean"), or the block and the hook that made it (exit 2).
//! - `hook --agent AGENT [EVENT]` is the command another agent runs as its hook: the agent's
//!   payload on stdin, the chain `test` would fire run in the payload's session and directory
//!   (the process's current directory becomes the payload's `cwd`), and the answer on stdout
//!   and in the exit code in that agent's own form; see the `hook` module for each agent's
//!   events, tool names, answers and failure convention.
//!
//! - `install --agent NAME` writes, in the agent's own hook file (the user's with `--scope
//!   user`, the default: the entry names this machine's binary; the current directory's with
//!   `--scope project`), one entry per event of the agent that maps to a hookchain point, each
//!   running `PROGRAM hook --agent NAME` with PROGRAM the absolute path of the running binary.
//!   The file is edited as text: every byte but the entries' stays, and the lines removed and
//!   added are printed (`--dry-run`: printed, nothing written). A second install changes
//!   nothing and says so; entries that run another binary are rewritten in place. `uninstall
//!   --agent NAME` removes the entries whose line ends with `hook --agent NAME`, and nothing
//!   else, so the file comes back byte for byte (or is removed, when install created it). A
//!   file that does not parse is an error naming its line, and nothing is written. `doctor`
//!   ends with one line per agent: installed and current (`ok`), installed by another binary
//!   (a note), missing events or extra entries (a problem), or not installed.
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
//!
//! [`Config::load`]: hookchain_config::Config::load
//! [`Config::merge`]: hookchain_config::Config::merge
//! [`Config::discover`]: hookchain_config::Config::discover
//! [`Hooks::dispatch_in_session`]: hookchain_runtime::Hooks::dispatch_in_session
//! [`transcript`]: hookchain_external::transcript
//! [`hook::tap`]: hookchain_external::hook::tap
//! [`value_from_payload`]: hookchain_external::wire::value_from_payload

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

// `with_point!` first: the commands below call it.
#[macro_use]
mod point;

mod approve;
mod args;
mod doctor;
mod extensions;
mod hook;
mod install;
mod list;
mod outcome;
mod payload;
mod registry;
mod render;
mod revoke;
mod selection;
mod sources;
mod table;
mod target;
mod test_event;
mod tools;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use hookchain_runtime::HooksBuilder;

use args::{Cli, Command};
use outcome::{Failure, Io};

pub use outcome::{EXIT_BLOCKED, EXIT_ERROR, EXIT_OK};
pub use payload::DEFAULT_TOOL;

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
        Command::List => list::list(&cli, hooks, &mut io),
        Command::Test(args) => test_event::test(&cli, args, hooks, &mut io),
        Command::Doctor => doctor::doctor(&cli, hooks, &mut io),
        Command::Approve(names) => approve::approve(&cli, names, &mut io),
        Command::Revoke(names) => revoke::revoke(&cli, names, &mut io),
        Command::Extensions(command) => extensions::extensions(&cli, command, hooks, &mut io),
        Command::Tools(args) => tools::tools(&cli, args, hooks, &mut io),
        Command::Call(args) => tools::call(&cli, args, hooks, &mut io),
        Command::Hook(args) => hook::hook(&cli, args, hooks, &mut std::io::stdin().lock(), &mut io),
        Command::Install(args) => install::install(args, &mut io),
        Command::Uninstall(args) => install::uninstall(args, &mut io),
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
