//! Config: the `hookchain.yaml` files and config set from code — the sections of extensions
//! and the external hooks — and the other agents' config files hookchain reads.
//!
//! # The format
//!
//! ```yaml
//! extensions:
//!   workflow-guard:
//!     enabled: true          # optional; `enabled` is reserved in every section
//!     plan_path: plans/active/plan.md
//!     blocked_tools: [write_file, edit_file, apply_patch]
//!     allowed_paths: [plans/, handoff/]
//!
//! hooks:
//!   intercept_tool_call:     # a point, or another agent's name for it (PreToolUse)
//!     - command: ./hooks/guard.sh
//!       matcher: "Bash|Write"
//!       timeout: 10          # seconds: default 60, at most 600
//!       priority: 20         # default 50
//!       on_error: block      # pass (default) | block | warn
//!       required: true       # when it cannot run, its point blocks (default false)
//!
//! hooks_auto_accept: false   # the user's file only: run new hooks without asking
//! hooks_enabled: true        # the user's file only: `false` switches every extension and
//!                            # configured hook off but the `required` ones
//! ```
//!
//! `extensions` maps an extension's name (the `extension = ".."` of its hooks) to its section.
//! The section's keys, `enabled` excepted, are what the extension's hooks read with
//! `cx.config::<T>()`; `enabled: false` disables all the extension's hooks.
//!
//! `hooks` maps a point to its external hooks: commands, long-lived worker processes and HTTP
//! endpoints, with the keys of [`native`]:
//! `command` | `process` | `url` (exactly one), `matcher`, `timeout`, `priority`, `on_error`,
//! `env`, `working_dir`, `allow_local`, `headers`, `name`, `required`. Commands are split like a shell
//! would split them and run without one. A point is named by its canonical name or by another
//! agent's name for it (`PreToolUse`); an unknown point or key is an error with file, line and
//! a "did you mean". A `command` or `process` whose program does not exist or is not
//! executable is an error when the file is loaded, never a hook that silently does nothing.
//! Such an error costs its own entry only when the file is read as [`init`] reads it (see
//! "When it is checked, and what is an error" below).
//!
//! `required: true` marks a guard that must not vanish (hookchain's own format only): when it
//! cannot run — not approved, changed since approved, unusable, switched off (its extension
//! `external` disabled by the user's file or the agent's code), its entry left out because it
//! cannot be loaded, or its file left out because it does not parse — its point blocks with a reason naming the hook, its file and line, why, and
//! what to do ("required hook `no-force-push` (./hookchain.yaml:12) did not run: not approved —
//! run `hookchain approve no-force-push`"), and every session hears of it.
//!
//! External hooks join the compiled-in ones in the chains of their points, by priority:
//! [`DEFAULT_PRIORITY`](hookchain_external::DEFAULT_PRIORITY) (50) when they set none, so that the
//! agent's own hooks (priority 0 by default) run first. A hook without a `name` is named
//! `<file>#<n>` (`./hookchain.yaml#03`), `n` counting the file's hooks in file order and
//! zero-padded to one width per file: the registry breaks ties of priority by name, so hooks
//! of one file and one priority run in the order the file lists them. A hook given a `name`
//! sorts by that name among the hooks of its priority.
//!
//! `hooks_auto_accept: true` lets hooks run without being approved first (see
//! [`consent`]). It is honoured in the user's own file (`~/.config/hookchain/hookchain.yaml`,
//! discovered or loaded with [`Config::load`]) and in config set from code
//! ([`Config::accept_hooks`]); anywhere else — a project's `./hookchain.yaml`, any other file,
//! text given to [`Config::from_yaml_str`] — a file cannot approve its own hooks, so there it is
//! left out with a warning.
//!
//! `hooks_enabled: false` is the master switch (`hookchain extensions disable --all` writes it):
//! in the user's own file, it turns every extension and configured hook off except the
//! `required` ones — the configured hooks and external extensions' hooks that are not
//! `required: true` are left out, the tools of external extensions too, and [`init`] switches
//! off every extension that holds no required hook ([`switch_off_all`]) — and every session
//! hears so when it starts. Anywhere else it is left out with a warning: a project cannot
//! switch off the user's hooks.
//!
//! Nothing else may stand at the top level: an unknown key is an error with a "did you mean".
//!
//! # External extensions
//!
//! A directory `NAME/EXTENSION.yaml` under `~/.config/hookchain/extensions/` (the user's) or
//! `./.hookchain/extensions/` (the project's) is an extension with no code: a `name`,
//! `version` and `description`, `hooks:` as in a `hookchain.yaml`, and `tools:`, each an
//! external command that gets the call's JSON arguments on stdin and prints its result, with a
//! JSON Schema of its parameters. Discovery and [`init`] load them, under [`consent`] like
//! configured hooks; see [`external_extension`] for the format and its rules, and
//! [`switch`] for how `hookchain extensions enable|disable` keeps their switches in the user's
//! file.
//!
//! # Other agents' config files
//!
//! Hooks written for other agents run unchanged, read from their own files:
//!
//! - [`Config::load_claude_settings`]: Claude Code's `settings.json` (`hooks` by event, matcher
//!   groups, `type: command` shell lines run with `sh -c`, `type: http`); the user's own
//!   `~/.claude/settings.json` runs in the session's project directory.
//! - [`Config::load_claude_plugin`]: a Claude Code plugin's `hooks/hooks.json`, with
//!   `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA` set.
//! - [`Config::load_codex`]: OpenAI Codex's `.codex/hooks.json`, the `[hooks]` of
//!   `.codex/config.toml` and a plugin's `hooks/hooks.json` (`PLUGIN_ROOT` set);
//!   [`Config::discover_codex_from`] loads every one Codex loads. Answers are read as strictly
//!   as Codex reads them.
//! - [`Config::load_gemini`]: Gemini CLI's `.gemini/settings.json` (its `hooks` and
//!   `hooksConfig`) and an extension's `hooks/hooks.json` (`extensionPath` set), timeouts in
//!   milliseconds; [`Config::discover_gemini_from`] loads the project's, the user's and the
//!   system's.
//! - [`Config::load_docker_agent`]: the `hooks:` blocks of every agent of a docker-agent agent
//!   YAML (shell lines run with `$SHELL -c`, matchers anchored as docker-agent anchors them,
//!   `tool_input_transform` and `tool_guard` ahead of `pre_tool_use`).
//! - [`Config::load_hermes`]: the `hooks:` block of a Hermes `config.yaml` (`fail_closed`,
//!   `hooks_auto_accept` in the user's own `~/.hermes/config.yaml` only).
//! - [`Config::load_starchild`]: a Starchild `shell_hooks.yaml` (`hooks:`, a list of entries with
//!   `event:`).
//! - [`Config::load_cursor`]: a Cursor `hooks.json` — a project's `.cursor/hooks.json`, the
//!   user's `~/.cursor/hooks.json` or a plugin's `hooks/hooks.json` (`version: 1`, `failClosed`,
//!   `loop_limit`; see [`cursor`]); [`Config::discover_cursor_from`] loads every
//!   one Cursor loads for a project, in its order.
//! - [`Config::load_copilot`]: a GitHub Copilot hooks file (`.github/hooks/NAME.json`,
//!   `~/.copilot/hooks/NAME.json`: `bash` run with `bash -c` from the repository root or `cwd`,
//!   `timeoutSec`, `env`, camelCase events in Copilot's protocol, PascalCase ones in Claude
//!   Code's); [`Config::discover_copilot_from`] loads every file Copilot loads, in its order.
//!
//! [`Config::load`] tells them apart: a `.json` file of a `.github/hooks/` or `.copilot/hooks/`
//! directory is Copilot's, a `.codex/hooks.json`, a `.codex/config.toml` and a
//! `hooks/hooks.json` whose plugin holds `.codex-plugin/` are Codex's, a `.gemini/settings.json`
//! and a `hooks/hooks.json` beside a `gemini-extension.json` are Gemini CLI's,
//! `.cursor/hooks.json` (and a `hooks/hooks.json` in Cursor's form) is Cursor's, any other
//! `hooks/hooks.json` is a Claude Code plugin's, any other `.json` file is Claude Code
//! settings, a YAML file with a top-level `agents:` is a docker-agent file, one
//! whose `hooks:` is a list is Starchild's, a `config.yaml` with keys of its own is Hermes', and
//! anything else is a `hookchain.yaml`. The rules of each format are in the docs of
//! [`external::claude`](crate::claude), [`external::codex`](crate::codex),
//! [`external::gemini`](crate::gemini), [`external::docker_agent`](crate::docker_agent),
//! [`external::copilot`](crate::copilot) and
//! [`external::hermes`](crate::hermes) (Hermes and Starchild), and in the table of what each
//! dialect supports, in the guide of the `hookchain` crate (`hookchain::guide::dialects`).
//! Events of those agents that hookchain has no point for, hook types it cannot run (model
//! prompts, docker-agent built-ins), and any one entry that cannot be honoured are left out
//! with a warning naming the file and line ([`Config::warnings`], also logged with
//! `tracing::warn!`, and heard by every session through `notification` once the config is
//! loaded into a registry): one entry costs that entry only, and the file's other hooks load.
//! An entry that fails closed (docker-agent's `pre_tool_use`) and cannot be loaded blocks its
//! point instead, as a `required: true` hook does.
//!
//! # Where it comes from
//!
//! [`Config::discover`] reads `~/.config/hookchain/hookchain.yaml` (global, under `$HOME`), then
//! `./hookchain.yaml` (the project, in the current directory), and puts the project over the
//! global: for each extension, the project's keys replace the global's, one key at a time (a
//! shallow merge of each section), except what the project's file may not switch off (below).
//! The hooks of both files run: the global file's, then the project's. A file that does not
//! exist is skipped. Discovery also adds the user's external extensions
//! ([`external_extension`]) and Hermes gateway hooks and enabled Python plugins under
//! `~/.hermes/` ([`hermes_python`]).
//! [`Config::load`] reads one file, [`Config::from_yaml_str`] parses text, and [`Config::new`]
//! with [`Config::extension`] sets sections from code; [`Config::merge`] puts one config over
//! another the same way discovery does.
//!
//! # What a project file cannot switch off
//!
//! A project's file — any `hookchain.yaml` but the user's own
//! `~/.config/hookchain/hookchain.yaml`, and text given to [`Config::from_yaml_str`] — may add
//! hooks and guards and tighten their settings, never switch off or loosen what the user's file,
//! the agent's code or a guard's defaults set. What it is refused is not applied; a warning
//! names its file and line, what it tried and how to do it instead (in the user's own file): in
//! [`Config::warnings`] for what the merge refuses, in
//! [`Hooks::refusals`](hookchain_runtime::Hooks::refusals) for what the registry refuses, and,
//! once loaded into a registry, in a `notification` every session hears when it starts (and
//! [`init`]'s report). Every way a file put over another could switch something off, and what
//! happens to it:
//!
//! - `enabled: false` for an extension (`extensions: {guard: {enabled: false}}`, including
//!   `external`, the extension of every configured hook, and `required`, that of
//!   [`require_hook`](hookchain_runtime::HooksBuilder::require_hook)'s stand-ins): **refused**,
//!   unless every hook of the extension was configured by that same file (what it added, it may
//!   switch off) or the user's file or code already switched it off. Decided when the config is
//!   loaded into a registry, which knows whose hooks an extension has.
//! - a setting of a built-in guard or injector, or of an extension that declares the
//!   [project rule](hookchain_core::ProjectRule) of its fields
//!   ([`ProjectRules`](hookchain_core::ProjectRules)): held to its field's rule — a list of
//!   protected things is **joined** to the user's (or the guard's default), never replaced
//!   (`paths: [secrets]` adds `secrets`; `paths: []` is refused); what scopes a guard, where it
//!   logs or keeps data and what could loosen it is **refused** (`write_tools`, `path_keys`,
//!   `shell_tools`, audit-log's `path`, git-checkpoint's `dir`, every `project_dir`); a limit
//!   may only go **down** (`max-iterations`' `max`), a minimum or a switch that tightens only
//!   **up** (git-checkpoint's `turn_start: false` is refused); a file an injector reads must be
//!   **inside the project** (`add-prompt-files`' `files: ["~/.aws/credentials"]`, `["../x"]`
//!   and `["/etc/passwd"]` are refused, and not read). Decided when the config is loaded into a
//!   registry, which knows the extension's type. The rule, and the table of every built-in's
//!   fields, are written once, in the guide of the `hookchain` crate (`hookchain::guide::config`,
//!   "The project rule").
//! - a key of a section with no rule (an extension that declares none), set to nothing,
//!   `false`, `0`, `""`, `[]` or `{}` where the user's file or code set a value
//!   (`blocked_tools: []`): **refused**, the user's value stays. A key set to another value is
//!   configuring, and applies (`plan_path: other.md`): an extension whose settings can weaken it
//!   should declare the rule of its fields.
//! - a key that does not fit the extension's declared type (`blocked_tools: 3`): in a lenient
//!   build the extension runs with the section of the user's file and code, not with no section
//!   at all; a strict build fails, as for any section that does not fit.
//! - `hooks_auto_accept`: a project's file has no say in it, `true` or `false` (left out).
//! - removing or replacing hooks: a file cannot; `hooks:` only adds, and the hooks of every file
//!   run. A hook given the name of another file's hook on the same point is a second hook, not a
//!   replacement (an error of a strict build); it runs only once the user approves it, like any
//!   project hook. An `on_error` applies to the hook of its own entry only.
//! - Claude Code's `disableAllHooks: true`: switches off the hooks of its own file only.
//! - a file that does not parse: left out whole by [`init`], an error of [`Config::discover`];
//!   it never takes the user's file with it.
//!
//! The same rules hold when a registry is reloaded ([`ConfigHooksExt::set_config`]). The agent's
//! code can always switch an extension off ([`Hooks::disable_extension`](hookchain_runtime::Hooks::disable_extension)).
//! Listings say who switched an extension off: `describe()`, `hookchain list` and
//! `hookchain doctor` show `disabled by FILE:LINE` or `disabled by the agent's code`.
//!
//! # When it is checked, and what is an error
//!
//! A file's syntax, its hooks (points, keys, time limits, matchers, programs) and the shape of
//! its sections are checked when it is read. Its sections are checked against the registry
//! when it is loaded into one — by [`ConfigBuilderExt::config`] and `build`, and by
//! [`ConfigHooksExt::set_config`] at runtime — as [`hookchain_runtime::sections`] says: a section
//! for an extension no hook belongs to is an error with a "did you mean", and every type
//! declared with `extension_config!` must deserialize from its section.
//!
//! What an error costs depends on who reads the file:
//!
//! - **Strict** — [`Config::load`], [`Config::from_yaml_str`], [`Config::discover`]: any part
//!   of a `hookchain.yaml` that cannot be loaded is an error (the first one met, in file order),
//!   and nothing of the file is returned. `build` and `set_config` refuse a config with a
//!   section error and change nothing.
//! - **Lenient** — [`init`], [`Config::load_lenient`], [`Config::discover_lenient`], and the
//!   `hookchain` commands: one part of a `hookchain.yaml` that cannot be loaded costs that part
//!   only, exactly as a bad entry of another agent's file does. A hook entry (an unknown key, a
//!   program that does not exist, a bad matcher, time limit or `on_error`…), the hooks of a point
//!   whose name is unknown, a section that is not a mapping, an unknown top-level key: each is
//!   left out with a warning naming the file, the line and the fix —
//!   in [`Config::warnings`] and [`Config::left_out`], logged, in [`init`]'s report, in a
//!   `notification` every session hears when it starts, and in `hookchain list` (a note) and
//!   `hookchain doctor` (a problem). The file's other hooks and sections load. A
//!   `required: true` entry that cannot be loaded blocks its point, naming the hook, its file
//!   and line, and the error. A hook left out keeps its place in the file's numbering, so the
//!   default names (`<file>#<n>`), and the approvals, of the others do not move.
//! - A file that does not read, or does not parse as YAML at all, is an error in both: [`init`]
//!   leaves it out whole and returns the error — the report names it as left out (never "no
//!   config file"), every session hears of it, and each of its `required: true` hooks that can
//!   be made out blocks its point.
//!
//! Against the registry, [`init`] is lenient too: a section for an unknown extension is
//! ignored, and an extension whose section does not fit its declared type runs enabled with no
//! section. [`Hooks::global`](hookchain_runtime::Hooks::global) never reads a file.
//!
//! External hooks are put in the chains when the registry is built, once they pass
//! [`consent`]; `set_config` reloads sections and flags only, and says so in a warning when the
//! new config has hooks.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod claude;
pub mod codex;
mod config;
pub mod consent;
pub mod copilot;
pub mod cursor;
mod discovery;
pub mod docker_agent;
mod entry;
pub mod external_extension;
mod file;
pub mod gemini;
pub mod hermes;
pub mod hermes_python;
mod hookchain_file;
mod init;
mod load;
pub mod native;
mod permission_rule;
mod position;
mod registry;
mod script;
pub mod switch;

pub use config::Config;
pub use external_extension::{ExtensionScope, ExternalExtension, ExternalTool};
pub use hookchain_file::CONFIG_FILE;
pub use init::{Init, InitError, InitReport, init};
pub use registry::{ConfigBuilderExt, ConfigHooksExt, is_builtin_guard, switch_off_all};
