//! `workflow-guard`: plan before implement — no writes until a valid plan exists.
//!
//! # What it owns
//!
//! Three hooks, one rule: until the plan file ([`WorkflowGuard::plan_path`]) is valid, the
//! model writes the plan, not the code.
//!
//! - `intercept_tool_call`: a write tool's call ([`WorkflowGuard::blocked_tools`]; its files
//!   found as protected-paths finds them: under [`WorkflowGuard::path_keys`] at any depth of
//!   its args, and in patch texts) is blocked while the plan is not valid, unless every file it
//!   writes is the plan file itself or under one of [`WorkflowGuard::allowed_paths`]. A write
//!   tool's call that names no file it writes is blocked (it may write anything). With
//!   [`WorkflowGuard::shell_writes`] on, a shell tool's command that writes files is held to the
//!   same rule: the files it writes are read as protected-paths reads them, with the shell
//!   model (`>`, `>>`, `tee`, `touch`, `mkdir`, `cp`, `mv`, `rm`, `sed -i`, `chmod`, `curl -o`,
//!   ..., through `sudo` and other wrappers, `bash -euo pipefail -c '…'`, `sh <<< '…'`,
//!   `echo '…' | sh`, substitutions, chains and `cd`); a here-document's body given to a
//!   program that is no shell is data (`cat <<EOF > plans/active/plan.md` writes the plan
//!   only). Files it does not name (`patch`, `git apply`, `tar -x`, `> "$OUT"`) are open only
//!   where the directory known to hold them is under an allowed path; writes to devices
//!   (`/dev/null`) are none.
//! - `transform_user_input`: while the plan is not valid, a message that reads as an
//!   implementation request (it starts, after "please", "can you", "let's", ..., with one of
//!   [`WorkflowGuard::request_patterns`]: "implement", "add", "fix", ...) is rewritten into
//!   [`WorkflowGuard::planning_instruction`], so the request enters the planning workflow
//!   ([`WorkflowGuard::route_requests`] switches it off). Questions and slash commands pass.
//! - `turn_start`: tells the model where it stands, every turn: [`WorkflowGuard::no_plan_context`]
//!   (naming the plan path and what is wrong with the plan) or [`WorkflowGuard::plan_context`];
//!   an empty text injects nothing.
//!
//! # The rules it keeps
//!
//! - Paths are resolved as protected-paths resolves them (relative to
//!   [`WorkflowGuard::project_dir`], `~`, `..`, symlinks followed), so `plans/../src/x.rs` is
//!   not under `plans/`, and a symlink under `plans/` that points at `src/` does not open `src/`.
//!   An allowed path is a path (the file or directory and all under it) or a glob, as in
//!   protected-paths.
//! - A plan is valid when its file exists and holds more than white space, at least
//!   [`WorkflowGuard::min_plan_chars`] characters, and a line for each of
//!   [`WorkflowGuard::required_headings`] (the heading, alone or followed by a space). The plan
//!   file is read when a decision needs it (at most 1 MiB of it), so a plan written in this turn
//!   opens the gate at once.
//! - Every block names the guard, the tool, the file, what is wrong with the plan and what to
//!   do: "workflow-guard: `write_file` would write `src/login.rs` before a valid plan exists
//!   (plans/active/plan.md does not exist): write the plan to plans/active/plan.md first".
//! - Its hooks block when they fail (`on_error = block`); the `turn_start` one does not block
//!   anything on its own.
//!
//! Texts may name `{plan_path}`, `{why}` (what is wrong with the plan), `{headings}` and, in
//! the planning instruction, `{request}` (the user's message).
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   workflow-guard:
//!     enabled: true
//!     plan_path: plans/active/plan.md         # default
//!     project_dir: /work/repo                 # default: the session's project directory
//!     required_headings: ["## Steps"]         # default: none
//!     min_plan_chars: 0                       # default
//!     blocked_tools: [write_file, edit_file, Write, Edit, MultiEdit, apply_patch]  # default: protected-paths' write tools
//!     allowed_paths: [plans/, handoff/, "*.md"]   # default: none (the plan file always is)
//!     shell_writes: false                     # default; true: shell commands that write files too
//!     route_requests: true                    # default
//!     request_patterns: [implement, add, build, fix, refactor, write the code]   # and more, see below
//!     planning_instruction: "/plan {request}"
//! ```
//!
//! and in Rust:
//!
//! ```
//! use hookchain::guards::{BuiltinsExt, WorkflowGuard};
//! use hookchain::prelude::*;
//!
//! let project = std::env::temp_dir().join(format!("workflow-guard-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&project).unwrap();
//! let guard = WorkflowGuard {
//!     project_dir: Some(project.display().to_string()),
//!     allowed_paths: vec!["docs/".into()],
//!     ..WorkflowGuard::default()
//! };
//! let hooks = Hooks::builder().builtin(guard).build().unwrap();
//! let turn = hooks.session("doc").begin_turn();
//! let write = |path: &str| ToolCall::new("write_file", json!({ "path": path, "content": "x" }));
//! assert!(turn.intercept_tool_call(write("src/login.rs")).is_blocked());
//! assert!(!turn.intercept_tool_call(write("plans/active/plan.md")).is_blocked());
//! assert!(!turn.intercept_tool_call(write("docs/notes.md")).is_blocked());
//! let input = turn.transform_user_input("implement user login");
//! assert!(input.continued().unwrap().starts_with("First write a plan to plans/active/plan.md"));
//! # std::fs::remove_dir_all(&project).unwrap();
//! ```
//!
//! Known limits: a shell command's writes are read from the command line (an interpreter's
//! script that writes, `python x.py`, is not seen), and only with `shell_writes: true`; its
//! relative paths are taken from the project directory (a shell tool's working-directory arg
//! is not read). A
//! request is told by its first words only: "build fails with E0308, why?" starts with
//! `build` and is routed to planning too (the plan it asks for is the cost of that mistake).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::project_file::{FileError, Links, read_capped};
use crate::protected_paths::{collect_paths, covers, project_dir, resolve};
use crate::shell_call::ShellCall;
use crate::{BuiltinExtension, DestructiveCommands, ProtectedPaths, hook_options, reason};
use hookchain_core::points::{InterceptToolCall, TransformUserInput, TurnStart, TurnStartEvent};
use hookchain_core::{HookContext, HookResult, ToolCall, project};
use hookchain_runtime::HooksBuilder;

/// The `workflow-guard` guard and its config (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorkflowGuard {
    /// The plan file, relative to the project directory (default `plans/active/plan.md`).
    pub plan_path: String,
    /// What relative paths are relative to (default: the session's project directory,
    /// `cx.project_dir()`, when the hook runs; a relative one is taken from it).
    pub project_dir: Option<String>,
    /// Lines a valid plan holds, e.g. `"## Steps"` (default: none).
    pub required_headings: Vec<String>,
    /// The fewest characters a valid plan has (default 0: any text but white space).
    pub min_plan_chars: usize,
    /// The tools that write or edit files, blocked until the plan is valid (default:
    /// protected-paths' `write_tools`).
    pub blocked_tools: Vec<String>,
    /// Paths and globs always open to writes (default: none; the plan file always is).
    pub allowed_paths: Vec<String>,
    /// The args that name a file a write tool writes (default: protected-paths' `path_keys`).
    pub path_keys: Vec<String>,
    /// The args of a patch tool that hold the patch text (default: `input`, `patch`, `diff`).
    pub patch_keys: Vec<String>,
    /// Holds shell commands that write files to the same rule (default `false`).
    pub shell_writes: bool,
    /// The tools whose calls are shell commands (default: destructive-commands' `shell_tools`).
    pub shell_tools: Vec<String>,
    /// The args that hold a shell command (default: `command`, `cmd`).
    pub command_keys: Vec<String>,
    /// Rewrites implementation requests into the planning instruction while the plan is not
    /// valid (default `true`).
    pub route_requests: bool,
    /// The words or phrases an implementation request starts with, matched whole and case
    /// insensitively (default: `implement`, `add`, `build`, `create`, `fix`, `refactor`,
    /// `write the code`, `change`, `update`, `rewrite`, `migrate`, `port`).
    pub request_patterns: Vec<String>,
    /// What an implementation request becomes (default: "First write a plan to {plan_path}
    /// ..., then stop. The request: {request}").
    pub planning_instruction: String,
    /// Injected on `turn_start` while the plan is not valid ("" for nothing).
    pub no_plan_context: String,
    /// Injected on `turn_start` once the plan is valid ("" for nothing).
    pub plan_context: String,
}

impl Default for WorkflowGuard {
    fn default() -> Self {
        let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect();
        let paths = ProtectedPaths::default();
        let shells = DestructiveCommands::default();
        WorkflowGuard {
            plan_path: "plans/active/plan.md".to_owned(),
            project_dir: None,
            required_headings: Vec::new(),
            min_plan_chars: 0,
            blocked_tools: paths.write_tools,
            allowed_paths: Vec::new(),
            path_keys: paths.path_keys,
            patch_keys: paths.patch_keys,
            shell_writes: false,
            shell_tools: shells.shell_tools,
            command_keys: shells.command_keys,
            route_requests: true,
            request_patterns: strings(&[
                "implement",
                "add",
                "build",
                "create",
                "fix",
                "refactor",
                "write the code",
                "change",
                "update",
                "rewrite",
                "migrate",
                "port",
            ]),
            planning_instruction: "First write a plan to {plan_path}{headings}, then stop: the \
                                   implementation starts once the plan exists. The request: \
                                   {request}"
                .to_owned(),
            no_plan_context: "workflow-guard: no valid plan yet ({why}). Write the plan to \
                              {plan_path}{headings} before changing any other file: writes \
                              elsewhere are blocked until it exists."
                .to_owned(),
            plan_context: "workflow-guard: the plan at {plan_path} is in place; implement it \
                           step by step."
                .to_owned(),
        }
    }
}

impl BuiltinExtension for WorkflowGuard {
    const NAME: &'static str = "workflow-guard";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        builder
            .hook_with(InterceptToolCall, hook_options(Self::NAME), tool_hook)
            .hook_with(TransformUserInput, hook_options(Self::NAME), input_hook)
            .hook_with(TurnStart, hook_options(Self::NAME), turn_start_hook)
            .config_type::<WorkflowGuard>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

fn tool_hook(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, String> {
    let config = cx.config::<WorkflowGuard>().map_err(|e| e.to_string())?;
    Ok(match config.check_call_in(call, &cx.project_dir())? {
        Some(why) => HookResult::block(reason(WorkflowGuard::NAME, why)),
        None => HookResult::Pass,
    })
}

fn input_hook(text: &str, cx: &HookContext) -> Result<HookResult<String>, String> {
    let config = cx.config::<WorkflowGuard>().map_err(|e| e.to_string())?;
    Ok(match config.route_in(text, &cx.project_dir())? {
        Some(routed) => HookResult::Rewrite(routed),
        None => HookResult::Pass,
    })
}

fn turn_start_hook(_: &TurnStartEvent, cx: &HookContext) -> Result<HookResult<String>, String> {
    let config = cx.config::<WorkflowGuard>().map_err(|e| e.to_string())?;
    let project = config.project(&cx.project_dir())?;
    let text = match config.plan_problem(&project) {
        Some(why) => config.fill(&config.no_plan_context, &why, ""),
        None => config.fill(&config.plan_context, "", ""),
    };
    Ok(if text.is_empty() {
        HookResult::Pass
    } else {
        HookResult::Rewrite(text)
    })
}

/// How much of the plan file is read.
const MAX_PLAN_BYTES: u64 = 1 << 20;

/// How long reading the plan may take.
const PLAN_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Words a request may start with before its verb ("please fix ...", "can you add ...").
const POLITE: &[&str] = &[
    "please",
    "can you",
    "could you",
    "would you",
    "will you",
    "pls",
    "now",
    "ok",
    "okay",
    "then",
    "go ahead and",
    "let's",
    "lets",
    "let us",
    "i want you to",
    "i'd like you to",
    "i need you to",
    "help me",
    "we need to",
    "you should",
];

impl WorkflowGuard {
    /// Why `call` must not run yet, or `None`. An error when the project directory is not
    /// configured and the current directory cannot be read.
    pub fn check_call(&self, call: &ToolCall) -> Result<Option<String>, String> {
        self.check_call_in(call, &project::decide(None))
    }

    /// [`check_call`](Self::check_call) in a session whose project directory is `session`.
    fn check_call_in(&self, call: &ToolCall, session: &Path) -> Result<Option<String>, String> {
        let is_shell = self.shell_writes && self.shell_tools.contains(&call.name);
        if !is_shell && !self.blocked_tools.contains(&call.name) {
            return Ok(None);
        }
        let project = self.project(session)?;
        let writes: Vec<Write> = if self.blocked_tools.contains(&call.name) {
            let mut paths = Vec::new();
            collect_paths(&call.args, &self.path_keys, &self.patch_keys, &mut paths);
            if paths.is_empty() {
                // A write tool whose files cannot be told may write anything.
                vec![Write::Unnamed(Vec::new())]
            } else {
                paths
                    .into_iter()
                    .map(|path| Write::File {
                        raw: path.clone(),
                        shown: path,
                        dir: false,
                    })
                    .collect()
            }
        } else {
            match ShellCall::read(&call.args, &self.command_keys, &[], &project) {
                Some(shell) => shell_writes(&shell),
                None => return Ok(None),
            }
        };
        if writes.is_empty() {
            return Ok(None);
        }
        let Some(write) = writes.iter().find(|w| !self.open(w, &project)) else {
            return Ok(None);
        };
        let Some(why) = self.plan_problem(&project) else {
            return Ok(None);
        };
        let what = match write {
            Write::File { shown, .. } => format!("would write `{shown}`"),
            Write::Unnamed(_) => "would write files it does not name".to_owned(),
        };
        let open = if self.allowed_paths.is_empty() {
            String::new()
        } else {
            format!(" (writes under {} are open)", self.allowed_paths.join(", "))
        };
        Ok(Some(format!(
            "`{}` {what} before a valid plan exists ({why}): write the plan to {}{} first{open}",
            call.name,
            self.plan_path,
            self.headings()
        )))
    }

    /// What the user's message `text` becomes: the planning instruction when it reads as an
    /// implementation request and the plan is not valid, else `None`.
    pub fn route(&self, text: &str) -> Result<Option<String>, String> {
        self.route_in(text, &project::decide(None))
    }

    /// [`route`](Self::route) in a session whose project directory is `session`.
    fn route_in(&self, text: &str, session: &Path) -> Result<Option<String>, String> {
        if !self.route_requests || !self.is_request(text) {
            return Ok(None);
        }
        let project = self.project(session)?;
        Ok(self
            .plan_problem(&project)
            .map(|why| self.fill(&self.planning_instruction, &why, text)))
    }

    /// Whether `text` reads as an implementation request: it starts, after polite words, with
    /// one of [`request_patterns`](WorkflowGuard::request_patterns), and is no question about
    /// it and no slash command.
    ///
    /// ```
    /// use hookchain::guards::WorkflowGuard;
    ///
    /// let guard = WorkflowGuard::default();
    /// assert!(guard.is_request("Please implement user login"));
    /// assert!(guard.is_request("can you fix the failing test?"));
    /// assert!(!guard.is_request("how does the build work?"));
    /// assert!(!guard.is_request("additionally, what is in src/?"));
    /// ```
    pub fn is_request(&self, text: &str) -> bool {
        let text = text.trim_start();
        if text.starts_with('/') {
            return false;
        }
        let lower = text.to_lowercase();
        let mut rest = lower.as_str();
        // Polite words, in any number ("ok, now please add ...").
        for _ in 0..POLITE.len() {
            rest = rest.trim_start_matches(|c: char| c.is_whitespace() || ",:;!".contains(c));
            match POLITE.iter().find_map(|p| starts_with_word(rest, p)) {
                Some(after) => rest = after,
                None => break,
            }
        }
        self.request_patterns
            .iter()
            .any(|p| starts_with_word(rest, &p.to_lowercase()).is_some())
    }

    /// What is wrong with the plan, or `None` when it is valid.
    fn plan_problem(&self, project: &Path) -> Option<String> {
        let path = resolve(&self.plan_path, project);
        // Never a FIFO or a device (one planted at the plan's path would hang every turn),
        // at most MAX_PLAN_BYTES, within PLAN_READ_TIMEOUT.
        let bytes = match read_capped(&path, Links::Follow, MAX_PLAN_BYTES, PLAN_READ_TIMEOUT) {
            Ok(read) => read.bytes,
            Err(FileError::NotFound) => {
                return Some(format!("{} does not exist", self.plan_path));
            }
            Err(e) => return Some(format!("{} cannot be read: {e}", self.plan_path)),
        };
        let text = String::from_utf8_lossy(&bytes);
        if text.trim().is_empty() {
            return Some(format!("{} is empty", self.plan_path));
        }
        let chars = text.trim().chars().count();
        if chars < self.min_plan_chars {
            return Some(format!(
                "{} has {chars} characters, fewer than the {} a plan needs",
                self.plan_path, self.min_plan_chars
            ));
        }
        let missing: Vec<&str> = self
            .required_headings
            .iter()
            .map(|h| h.trim())
            .filter(|h| {
                !text.lines().any(|line| {
                    let line = line.trim();
                    line == *h || line.strip_prefix(h).is_some_and(|r| r.starts_with(' '))
                })
            })
            .collect();
        if !missing.is_empty() {
            return Some(format!(
                "{} has no {} heading",
                self.plan_path,
                missing
                    .iter()
                    .map(|h| format!("`{h}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        None
    }

    /// Whether `write` is open before a plan exists: the plan file, a directory on the way to
    /// it (inside the project), or under an allowed path. Files it does not name are open only
    /// where every directory known to hold them is under an allowed path.
    fn open(&self, write: &Write, project: &Path) -> bool {
        let allowed = |target: &Path| {
            self.allowed_paths
                .iter()
                .any(|pattern| covers(pattern, target, project))
        };
        let (raw, dir) = match write {
            Write::File { raw, dir, .. } => (raw, *dir),
            Write::Unnamed(dirs) => {
                return !dirs.is_empty()
                    && dirs
                        .iter()
                        .all(|d| allowed(&resolve(&d.to_string_lossy(), project)));
            }
        };
        let target = resolve(raw, project);
        let plan = resolve(&self.plan_path, project);
        target == plan
            || (dir
                && plan.starts_with(&target)
                && target.starts_with(resolve(".", project))
                && target != resolve(".", project))
            || allowed(&target)
    }

    fn project(&self, session: &Path) -> Result<PathBuf, String> {
        project_dir(self.project_dir.as_deref(), session, Self::NAME)
    }

    /// " (with the headings `## Steps`)", or "".
    fn headings(&self) -> String {
        if self.required_headings.is_empty() {
            return String::new();
        }
        let list: Vec<String> = self
            .required_headings
            .iter()
            .map(|h| format!("`{}`", h.trim()))
            .collect();
        format!(" (with the headings {})", list.join(", "))
    }

    /// `template` with `{plan_path}`, `{why}`, `{headings}` and `{request}` filled in.
    fn fill(&self, template: &str, why: &str, request: &str) -> String {
        template
            .replace("{plan_path}", &self.plan_path)
            .replace("{why}", why)
            .replace("{headings}", &self.headings())
            .replace("{request}", request)
    }
}

/// The rest of `text` after the word or phrase `word`, when `text` starts with it whole.
fn starts_with_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(word)?;
    match rest.chars().next() {
        None => Some(rest),
        Some(c) if c.is_alphanumeric() || c == '_' || c == '-' => None,
        Some(_) => Some(rest),
    }
}

/// What a call writes: a file or a directory it creates (`raw`, resolved from the project
/// directory; `shown` as the call names it), or files it does not name, in directories known
/// to hold them (none: anywhere).
enum Write {
    File {
        raw: String,
        shown: String,
        dir: bool,
    },
    Unnamed(Vec<PathBuf>),
}

/// What a shell command writes, devices left out.
fn shell_writes(shell: &ShellCall) -> Vec<Write> {
    let mut out = Vec::new();
    for write in shell.writes() {
        for path in &write.paths {
            if path.starts_with("/dev") {
                continue;
            }
            out.push(Write::File {
                raw: path.to_string_lossy().into_owned(),
                shown: write.shown.clone(),
                dir: write.creates_dir,
            });
        }
        if let Some(dirs) = write.unknown_in {
            out.push(Write::Unnamed(dirs));
        }
    }
    out
}
