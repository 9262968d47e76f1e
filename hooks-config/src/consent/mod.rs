//! Consent: an external hook from a config file runs only once it is approved, and only as long
//! as its script is the one that was approved.
//!
//! # What is approved
//!
//! An approval is for one hook — its point (the canonical name, so `PreToolUse` and
//! `intercept_tool_call` share it), its transport (`command`, `process` or `http`), its command
//! line or URL as configured, and its script — and pins a SHA-256 of the command line followed by
//! the content of the script. The script is the file the command runs: its program when it is
//! named by a path (`./hooks/guard.sh`), or the first operand that is a file when the program is
//! a bare name found on `PATH` (`python3 hooks/guard.py`). For the `sh -c` lines of Claude Code
//! and docker-agent configs, the files are what the shell model ([`hookchain_shell`]) says the
//! line runs, with variables expanded as the shell will expand them (`$CLAUDE_PROJECT_DIR` and
//! `$HOOKCHAIN_PROJECT_DIR` the project, `${CLAUDE_PLUGIN_ROOT}` a plugin's directory, `$HOME`
//! and `~/` the home directory): each program named by a path and each script a shell or an
//! interpreter runs or sources, after `cd`, in lists, groups, subshells, pipelines, `-c` strings
//! (`sh -c "true;./x.sh"`, `bash -euo pipefail -c '…'`) and here-documents. A file the line only
//! reads or writes (`>> /tmp/hook.log`, `tee -a x.log`) is never pinned, so a logging hook does
//! not change by running. The shell a line runs under is pinned when it is not `sh` (Claude
//! Code's `"shell": "bash"`). A command split from the config is read by the same model as one
//! simple command, so a wrapper or an option cannot hide the script it runs (`sh -o errexit
//! x.sh`, `python3 -W ignore x.py`, `env python3 x.py`, `nice -n 5 sh x.sh`, `timeout 5 sh
//! x.sh`). With the scripts, the operands that may be code whose use the model cannot know are
//! pinned: every operand of a program it does not read (`uv run x.py`, `npx tsx x.ts`) and an
//! interpreter's operands before its script (`node -r ./pre.js x.js`). The arguments a script is
//! given are its data and are not (`./log.sh /tmp/hook.log`).
//!
//! A line that computes what it runs — a glob or a substitution naming the program
//! (`./x.s?`, `$(echo ./x.sh)`), a program named by a variable the line sets (`X=./x.sh; $X`),
//! `eval`, a variable not known — is *not pinnable* ([`not_pinnable`]): its approval pins the
//! exact line and settings, and only the user gives it (yes at the prompt, or `hookchain approve
//! NAME`): `--accept-hooks`, `HOOKCHAIN_ACCEPT_HOOKS` and `hooks_auto_accept` approve every
//! other hook but not such a line: what it runs is decided when it runs, so only a person who
//! read the line may accept it. `hookchain doctor` and
//! `list` say `not pinnable: runs what the line computes`.
//!
//! A Hermes gateway hook or Python plugin ([`hermes_python`](crate::hermes_python)) runs
//! hookchain's Python runner, which loads the directory it is given: its approval pins the
//! runner and every `*.py` file of that directory (its subdirectories too, `__pycache__` and
//! hidden ones excepted) with its `HOOK.yaml` or `plugin.yaml`, so an edited `handler.py`, an
//! edited sibling module a plugin imports, or a module added beside them makes it drifted.
//!
//! The hash covers the hook's `env`, `working_dir`, `env_clear` and `env_allow` too, so adding `BASH_ENV`, `LD_PRELOAD` or a `PATH`
//! to an approved hook, moving it to another directory, or letting it inherit more of the agent's
//! environment (`env_clear` switched off, a name added to `env_allow`) makes it drifted. A hook
//! whose command runs no file is pinned
//! by its command line, `env` and `working_dir`; an HTTP hook by its URL, and its headers as
//! written (a header added later, which could carry a secret, makes it drifted).
//!
//! Relative paths are taken from the hook's `working_dir`, else from the directory it runs in:
//! the current directory, or during a firing the session's project directory when the agent
//! gives one (`hookchain::external::program::firing_dir`). So the check at each firing hashes
//! the files that firing would run: a line approved as `./guard.sh` where there was none does
//! not run another directory's `guard.sh`.
//!
//! A hook's [`ConsentStatus`] is `Approved`, `New` (never approved), or `Drifted` (approved, but
//! its script has changed since: edited, replaced, or swapped for another file). Only an
//! approved hook runs. This is stricter than a check of the script's modification time: a
//! script edited back and forth, or copied over with its old mtime, is still caught.
//!
//! # Where approvals are kept
//!
//! In a JSON allowlist, by default `~/.config/hookchain/approved-hooks.json`
//! ([`Consent::default_path`]), any other file with [`Consent::load`]. It is rewritten whole on
//! every change, atomically: the new list is written to a temporary file in the same directory,
//! flushed, then renamed over the old one, so a reader (or a crash) never sees half a file. Each
//! change reads, edits and writes the list under an exclusive lock on `.NAME.lock` beside it, so
//! approvals made at the same time by several threads or processes are all kept. An allowlist
//! that does not parse is an error, never an empty list.
//!
//! # How a hook gets approved
//!
//! When the registry is built, each configured hook that is not approved is approved and run
//! when
//!
//! - the agent says so: `--accept-hooks` on the CLI, [`ConsentPolicy::accept_hooks`] in code;
//! - the environment says so: `HOOKCHAIN_ACCEPT_HOOKS=1` (or `true`, `yes`) — unless a
//!   project's agent settings set it (the `env` of a JSON settings file the hooks come from, or
//!   of `.claude/settings.json` or `.claude/settings.local.json` beside them or in the current
//!   directory, the user's own `~/.claude/settings.json` excepted): an agent applies those
//!   variables to what it starts, so the variable is the repository's word, and approves
//!   nothing (a warning in [`ConsentReport::warnings`] says so);
//! - the user's config says so: `hooks_auto_accept: true` in
//!   `~/.config/hookchain/hookchain.yaml` (a project's file cannot approve its own hooks);
//! - or the user says yes when asked: on an interactive terminal (stdin is a TTY), each new or
//!   changed hook is shown with its point, command, file and line, and runs only on `y`.
//!
//! Each of these records the approval, so the next run does not ask again. Otherwise — a
//! non-interactive run with none of them — the hook is **skipped**: it does not run, a warning
//! naming it, its file and line and why is logged with `tracing::warn!`, and the
//! [`ConsentReport`] lists it. Hooks added in code ([`HooksBuilder::external`]) are the agent's
//! own and need no consent.
//!
//! ```
//! use hookchain::consent::{Consent, ConsentPolicy, ConsentStatus, admit};
//! use hookchain::config::Config;
//!
//! let config = Config::from_yaml_str(
//!     "hooks:\n  intercept_tool_call:\n    - url: https://hooks.example.com/check\n",
//!     "./hookchain.yaml",
//! )?;
//! let mut consent = Consent::in_memory();
//! let hook = &config.external_hooks()[0];
//! assert_eq!(consent.status(hook), ConsentStatus::New);
//!
//! // Non-interactive and not accepted: skipped, with a warning naming it.
//! let hooks = config.external_hooks().to_vec();
//! let (admitted, report) = admit(hooks.clone(), &mut consent, &mut ConsentPolicy::new());
//! assert!(admitted.is_empty());
//! assert!(report.skipped[0].to_string().contains("./hookchain.yaml#01"));
//!
//! // Approved: it runs.
//! consent.approve(hook)?;
//! let (admitted, _) = admit(hooks, &mut consent, &mut ConsentPolicy::new());
//! assert_eq!(admitted.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`HooksBuilder::external`]: hookchain_external::ExternalHooksExt::external

mod admission;
mod allowlist;
mod pin;
mod prompt;

pub use crate::script::script_of;
pub use admission::{
    ACCEPT_HOOKS_ENV, AcceptedBy, AdmittedHook, ConsentPolicy, ConsentReport, SkippedHook, admit,
};
pub use allowlist::{APPROVALS_FILE, Approval, Consent, ConsentError, ConsentStatus};
pub use pin::not_pinnable;
pub(crate) use pin::{Verified, pin_hash};
pub use prompt::{Prompt, TerminalPrompt};
