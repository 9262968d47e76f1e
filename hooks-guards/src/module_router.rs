//! `module-router`: no repository-wide exploration before the routing files are read.
//!
//! # What it owns
//!
//! A model that greps the whole repository to find its way burns its context on matches from
//! every module. This guard makes it read the project's routing artifacts first — the files
//! that say which module holds what ([`ModuleRouter::routing_files`], default
//! `ARCHITECTURE.md`, `docs/modules.md`) — and then search inside the module it needs.
//!
//! - `after_tool_call`: a **successful** read of a routing file marks it read for the rest of
//!   the turn (turn state, `module-router.read`): a read tool's call
//!   ([`ModuleRouter::read_tools`], its file under [`ModuleRouter::path_keys`]) or a shell
//!   command that prints it (`cat`, `head`, `less`, ... [`ModuleRouter::read_commands`]). A
//!   failed read counts for nothing, and the next turn starts with nothing read.
//! - `intercept_tool_call`: until then, exploration of the repository root is blocked:
//!   - in a shell tool's command: `rg`/`ag`/`ack`, `grep -r`, `git grep`, `git ls-files`,
//!     `find`, `fd`, `ls -R`, `tree`, with no path or a path that is the project directory or
//!     above it (`.`, `./`, `*`, `..`, the absolute root), read with the shell model (the
//!     reading protected-paths shares): through `sudo`, `env` and the other wrappers,
//!     `bash -euo pipefail -c '…'`, `sh <<< '…'`, `echo '…' | sh`, chains and `$(…)`, with
//!     `$'…'` decoded, and from the directory a `cd` of the same line leaves it in
//!     (`cd src && rg foo` is inside `src`; after a `cd` whose target is unknown, every
//!     directory the line visits counts, its start included); a here-document's body given
//!     to a program that is no shell is data, not commands. `find -maxdepth 1`, `fd -d 1` and
//!     `tree -L 1` list one level, as `ls` does, and pass; a path the line computes from a
//!     variable the guard does not know (`rg foo "$DIR"`) is no root;
//!   - a search tool's call ([`ModuleRouter::search_tools`]: `Grep`, `Glob`, `search_files`,
//!     ...) with no path, an empty one or the root, under [`ModuleRouter::search_path_keys`]
//!     (for a glob tool, a pattern like `src/**/*.rs` is inside `src`).
//!
//!   Exploration inside a subdirectory (`rg foo src/auth`, `find src -name x`, `Grep` with
//!   `path: src`) and outside the project always passes, as do `ls`, reads and writes.
//!
//! # The rules it keeps
//!
//! - With [`Require::Any`] (the default) reading one routing file opens the root; with
//!   [`Require::All`], every one. Only routing files that exist count: a project without any
//!   of them has nothing to route with, and the guard lets everything through.
//! - Paths are resolved as protected-paths resolves them (relative to
//!   [`ModuleRouter::project_dir`], or the shell tool's working directory arg, `..`,
//!   symlinks followed), so `./docs/../ARCHITECTURE.md` is `ARCHITECTURE.md`.
//! - The block names the routing files to read: "module-router: `rg foo` searches the whole
//!   repository before this turn has read the routing files: read ARCHITECTURE.md or
//!   docs/modules.md first, then search inside the module they point to (`rg PATTERN
//!   src/MODULE`)".
//! - Its hooks block when they fail (`on_error = block`).
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   module-router:
//!     enabled: true
//!     routing_files: [ARCHITECTURE.md, docs/modules.md]   # default
//!     require: any                 # default; all: every routing file
//!     project_dir: /work/repo      # default: the session's project directory
//!     read_tools: [read_file, Read, view_file]           # and more, see below
//!     search_tools: [Grep, Glob, search_files]           # and more, see below
//! ```
//!
//! and in Rust:
//!
//! ```
//! use hookchain::guards::{BuiltinsExt, ModuleRouter};
//! use hookchain::prelude::*;
//!
//! let project = std::env::temp_dir().join(format!("module-router-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&project).unwrap();
//! std::fs::write(project.join("ARCHITECTURE.md"), "src/auth: logins\n").unwrap();
//! let guard = ModuleRouter {
//!     project_dir: Some(project.display().to_string()),
//!     ..ModuleRouter::default()
//! };
//! let hooks = Hooks::builder().builtin(guard).build().unwrap();
//! let turn = hooks.session("doc").begin_turn();
//! let bash = |cmd: &str| ToolCall::new("bash", json!({ "command": cmd }));
//! assert!(turn.intercept_tool_call(bash("rg login")).is_blocked());
//! assert!(!turn.intercept_tool_call(bash("rg login src/auth")).is_blocked());
//! let read = ToolCall::new("read_file", json!({ "path": "ARCHITECTURE.md" }));
//! turn.run_tool(read, |_| Ok(json!("src/auth: logins")));   // after_tool_call marks it read
//! assert!(!turn.intercept_tool_call(bash("rg login")).is_blocked());
//! # std::fs::remove_dir_all(&project).unwrap();
//! ```
//!
//! Known limits: a read and a search in one shell command (`cat ARCHITECTURE.md && rg foo`)
//! is judged before the read has run, so it is blocked; a script that searches (`python
//! find.py`) is not seen.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protected_paths::{collect_paths, project_dir, resolve};
use crate::shell_call::{Arg, Cmd, ShellCall, pattern};
use crate::{BuiltinExtension, DestructiveCommands, ProtectedPaths, hook_options, reason};
use hookchain_core::points::{AfterToolCall, InterceptToolCall, ToolResult};
use hookchain_core::{HookContext, HookResult, ToolCall, project};
use hookchain_runtime::HooksBuilder;

/// The `module-router` guard and its config (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModuleRouter {
    /// The files that say which module holds what, relative to the project directory
    /// (default: `ARCHITECTURE.md`, `docs/modules.md`).
    pub routing_files: Vec<String>,
    /// How many of them a turn reads before it may explore the root (default: any one).
    pub require: Require,
    /// What relative paths are relative to (default: the session's project directory,
    /// `cx.project_dir()`, when the hook runs; a relative one is taken from it).
    pub project_dir: Option<String>,
    /// The tools that read a file (default: `read_file`, `Read`, `view_file`, `open_file`,
    /// `read`, `view`, `cat`, `read_text_file`, `get_file_contents`).
    pub read_tools: Vec<String>,
    /// The args that name the file a read tool reads (default: protected-paths' `path_keys`).
    pub path_keys: Vec<String>,
    /// Shell commands that print a file, which count as reading it (default: `cat`, `head`,
    /// `tail`, `less`, `more`, `bat`, `batcat`, `nl`, `view`).
    pub read_commands: Vec<String>,
    /// The tools that search files or list a tree (default: `Grep`, `Glob`, `grep`, `glob`,
    /// `search_files`, `grep_search`, `file_search`, `find_files`, `find_by_name`,
    /// `codebase_search`, `search`).
    pub search_tools: Vec<String>,
    /// The args that hold where a search tool searches (default: `path`, `paths`,
    /// `directory`, `dir`, `dir_path`, `target_directory`, `root`, `cwd`, `search_path`).
    pub search_path_keys: Vec<String>,
    /// The tools whose calls are shell commands (default: destructive-commands'
    /// `shell_tools`).
    pub shell_tools: Vec<String>,
    /// The args that hold a shell command (default: `command`, `cmd`).
    pub command_keys: Vec<String>,
    /// The args of a shell tool that hold its working directory (default: `cwd`, `workdir`,
    /// `working_directory`, `dir`).
    pub workdir_keys: Vec<String>,
}

/// How many routing files a turn reads before it may explore the repository root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Require {
    /// One of them (the default).
    #[default]
    Any,
    /// Every one of them that exists.
    All,
}

impl Default for ModuleRouter {
    fn default() -> Self {
        let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect();
        let shells = DestructiveCommands::default();
        ModuleRouter {
            routing_files: strings(&["ARCHITECTURE.md", "docs/modules.md"]),
            require: Require::Any,
            project_dir: None,
            read_tools: strings(&[
                "read_file",
                "Read",
                "view_file",
                "open_file",
                "read",
                "view",
                "cat",
                "read_text_file",
                "get_file_contents",
            ]),
            path_keys: ProtectedPaths::default().path_keys,
            read_commands: strings(&[
                "cat", "head", "tail", "less", "more", "bat", "batcat", "nl", "view",
            ]),
            search_tools: strings(&[
                "Grep",
                "Glob",
                "grep",
                "glob",
                "search_files",
                "grep_search",
                "file_search",
                "find_files",
                "find_by_name",
                "codebase_search",
                "search",
            ]),
            search_path_keys: strings(&[
                "path",
                "paths",
                "directory",
                "dir",
                "dir_path",
                "target_directory",
                "root",
                "cwd",
                "search_path",
            ]),
            shell_tools: shells.shell_tools,
            command_keys: shells.command_keys,
            workdir_keys: strings(&["cwd", "workdir", "working_directory", "dir"]),
        }
    }
}

impl BuiltinExtension for ModuleRouter {
    const NAME: &'static str = "module-router";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        builder
            .hook_with(InterceptToolCall, hook_options(Self::NAME), guard_hook)
            .hook_with(AfterToolCall, hook_options(Self::NAME), read_hook)
            .config_type::<ModuleRouter>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

/// The turn-state key of the routing files this turn has read.
const READ_KEY: &str = "module-router.read";

fn guard_hook(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, String> {
    let config = cx.config::<ModuleRouter>().map_err(|e| e.to_string())?;
    let read: Vec<String> = cx.turn_state().get(READ_KEY).unwrap_or_default();
    Ok(
        match config.check_call_in(call, &read, &cx.project_dir())? {
            Some(why) => HookResult::block(reason(ModuleRouter::NAME, why)),
            None => HookResult::Pass,
        },
    )
}

fn read_hook(result: &ToolResult, cx: &HookContext) -> Result<(), String> {
    let config = cx.config::<ModuleRouter>().map_err(|e| e.to_string())?;
    let newly = config.routing_files_read(result, &cx.project_dir())?;
    if newly.is_empty() {
        return Ok(());
    }
    cx.turn_state()
        .update(READ_KEY, |read: &mut Vec<String>| {
            for file in newly {
                if !read.contains(&file) {
                    read.push(file);
                }
            }
        })
        .map_err(|e| e.to_string())
}

/// What a command or call explores: its name as shown, and where.
struct Exploration {
    shown: String,
    paths: Vec<PathBuf>,
}

impl ModuleRouter {
    /// Why `call` must not run yet, given the routing files this turn has `read`, or `None`.
    /// An error when the project directory is not configured and the current directory cannot
    /// be read.
    pub fn check_call(&self, call: &ToolCall, read: &[String]) -> Result<Option<String>, String> {
        self.check_call_in(call, read, &project::decide(None))
    }

    /// [`check_call`](Self::check_call) in a session whose project directory is `session`.
    fn check_call_in(
        &self,
        call: &ToolCall,
        read: &[String],
        session: &Path,
    ) -> Result<Option<String>, String> {
        let is_shell = self.shell_tools.contains(&call.name);
        if !is_shell && !self.search_tools.contains(&call.name) {
            return Ok(None);
        }
        let project = self.project(session)?;
        let missing = self.unread(read, &project);
        if missing.is_empty() {
            return Ok(None);
        }
        let explorations = if is_shell {
            match ShellCall::read(&call.args, &self.command_keys, &self.workdir_keys, &project) {
                Some(shell) => shell_explorations(&shell),
                None => Vec::new(),
            }
        } else {
            vec![self.search_exploration(call, &project)]
        };
        let root = resolve(".", &project);
        let Some(wide) = explorations
            .iter()
            .find(|e| e.paths.iter().any(|p| root.starts_with(p)))
        else {
            return Ok(None);
        };
        let files = match self.require {
            Require::Any => format!("read {} first", missing.join(" or ")),
            Require::All if missing.len() == self.existing(&project).len() => {
                format!("read {} first", missing.join(" and "))
            }
            Require::All => format!("read {} too", missing.join(" and ")),
        };
        Ok(Some(format!(
            "`{}` searches the whole repository before this turn has read the routing files: \
             {files}, then search inside the module they point to (`rg PATTERN src/MODULE`)",
            wide.shown
        )))
    }

    /// The routing files `result` read, when it is a successful read.
    fn routing_files_read(
        &self,
        result: &ToolResult,
        session: &Path,
    ) -> Result<Vec<String>, String> {
        if result.is_error || result.blocked.is_some() {
            return Ok(Vec::new());
        }
        let project = self.project(session)?;
        let mut reads: Vec<PathBuf> = Vec::new();
        if self.read_tools.contains(&result.tool_name) {
            let mut paths = Vec::new();
            collect_paths(&result.tool_input, &self.path_keys, &[], &mut paths);
            reads.extend(paths.iter().map(|p| resolve(p, &project)));
        } else if self.shell_tools.contains(&result.tool_name)
            && let Some(shell) = ShellCall::read(
                &result.tool_input,
                &self.command_keys,
                &self.workdir_keys,
                &project,
            )
        {
            for command in &shell.commands {
                // A read counts only from a directory the line is sure of.
                let ([dir], Some(name)) = (command.dirs.as_slice(), command.name()) else {
                    continue;
                };
                if self.read_commands.iter().any(|c| c == name) {
                    let operands = command.args.iter().filter_map(Arg::known);
                    reads.extend(
                        operands
                            .filter(|a| !a.starts_with('-'))
                            .map(|p| resolve(p, dir)),
                    );
                }
            }
        }
        Ok(self
            .routing_files
            .iter()
            .filter(|f| reads.contains(&resolve(f, &project)))
            .cloned()
            .collect())
    }

    /// The routing files that exist and are not read yet, as the config names them.
    fn unread(&self, read: &[String], project: &Path) -> Vec<String> {
        let existing = self.existing(project);
        let any_read = existing.iter().any(|f| read.contains(f));
        match self.require {
            Require::Any if any_read => Vec::new(),
            _ => existing.into_iter().filter(|f| !read.contains(f)).collect(),
        }
    }

    fn existing(&self, project: &Path) -> Vec<String> {
        self.routing_files
            .iter()
            .filter(|f| resolve(f, project).is_file())
            .cloned()
            .collect()
    }

    /// Where a search tool's call searches: its path args, its glob's directory, or the root.
    fn search_exploration(&self, call: &ToolCall, project: &Path) -> Exploration {
        let mut paths: Vec<String> = Vec::new();
        collect_paths(&call.args, &self.search_path_keys, &[], &mut paths);
        paths.retain(|p| !p.trim().is_empty());
        if paths.is_empty() {
            // A glob's own directory: `src/**/*.rs` searches `src`.
            let glob = ["pattern", "glob", "glob_pattern", "include"]
                .iter()
                .find_map(|k| call.str_arg(k))
                .filter(|_| call.name.to_lowercase().contains("glob"));
            paths.push(glob.map(literal_dir).unwrap_or_default());
        }
        Exploration {
            shown: call.name.clone(),
            paths: paths
                .iter()
                .map(|p| resolve(&literal_dir(p), project))
                .collect(),
        }
    }

    fn project(&self, session: &Path) -> Result<PathBuf, String> {
        project_dir(self.project_dir.as_deref(), session, Self::NAME)
    }
}

/// The explorations of a line's commands, each from the directories it may run in.
fn shell_explorations(shell: &ShellCall) -> Vec<Exploration> {
    let mut out = Vec::new();
    for command in &shell.commands {
        let Some(name) = command.name() else {
            continue;
        };
        let Some(paths) = explored(name, &words(command)) else {
            continue;
        };
        let paths = command
            .dirs
            .iter()
            .flat_map(|dir| -> Vec<PathBuf> {
                if paths.is_empty() {
                    vec![resolve(".", dir)]
                } else {
                    paths
                        .iter()
                        .map(|p| resolve(&literal_dir(p), dir))
                        .collect()
                }
            })
            .collect();
        out.push(Exploration {
            shown: command.shown(),
            paths,
        });
    }
    out
}

/// A command's arguments as [`explored`] reads them: a known one as it is; a glob or a brace
/// expansion as its known prefix followed by `*` (`src/*` searches `src`); one holding a
/// part nobody can tell before the run (a variable, a substitution) as a path that is no
/// root.
fn words(command: &Cmd) -> Vec<String> {
    command
        .args
        .iter()
        .map(|arg| match arg {
            Arg::Known(s) => s.clone(),
            Arg::Computed(c) => {
                let pattern_only = c
                    .written
                    .as_deref()
                    .and_then(|w| pattern::read(w, &|_| None))
                    .is_some_and(|alternatives| alternatives.iter().all(|a| !a.has_unknown()));
                match (&c.known, pattern_only) {
                    (Some(known), true) => format!("{known}*"),
                    _ => UNREAD.to_owned(),
                }
            }
        })
        .collect()
}

/// What an argument nobody can tell before the run stands for: a name no path has.
const UNREAD: &str = "\u{E000}";

/// The paths a command explores recursively (empty: its working directory), or `None` when it
/// is no recursive exploration.
fn explored(name: &str, args: &[String]) -> Option<Vec<String>> {
    match name {
        "rg" | "ag" | "ack" | "pt" => {
            let parsed = Args::parse(args, RG_VALUES);
            if parsed.has(&["--files"]) {
                return Some(parsed.positional);
            }
            Some(parsed.paths_after_pattern())
        }
        "grep" | "egrep" | "fgrep" | "rgrep" => {
            let parsed = Args::parse(args, GREP_VALUES);
            let recursive = name == "rgrep"
                || parsed.has_short('r')
                || parsed.has_short('R')
                || parsed.has(&[
                    "--recursive",
                    "--dereference-recursive",
                    "--directories=recurse",
                ]);
            recursive.then(|| parsed.paths_after_pattern())
        }
        "git" => {
            let sub = args.first()?.as_str();
            let parsed = Args::parse(&args[1..], GREP_VALUES);
            match sub {
                "grep" => Some(parsed.paths_after_pattern()),
                "ls-files" => Some(parsed.positional),
                _ => None,
            }
        }
        "find" => {
            let paths: Vec<String> = args
                .iter()
                .map(String::as_str)
                .skip_while(|a| matches!(*a, "-H" | "-L" | "-P"))
                .take_while(|a| !a.starts_with('-') && !matches!(*a, "(" | "!" | ","))
                .map(str::to_owned)
                .collect();
            let depth = args
                .iter()
                .position(|w| w == "-maxdepth")
                .and_then(|i| args.get(i + 1))
                .and_then(|w| w.parse::<u32>().ok());
            (depth.is_none_or(|d| d > 1)).then_some(paths)
        }
        "fd" | "fdfind" => {
            let parsed = Args::parse(args, FD_VALUES);
            if parsed
                .value_of(&["-d", "--max-depth", "--exact-depth"])
                .is_some_and(|d| d <= 1)
            {
                return None;
            }
            let mut paths = parsed.values_of(&["--search-path"]);
            paths.extend(parsed.positional.iter().skip(1).cloned());
            Some(paths)
        }
        "ls" => {
            let parsed = Args::parse(args, &[]);
            (parsed.has_short('R') || parsed.has(&["--recursive"])).then_some(parsed.positional)
        }
        "tree" => {
            let parsed = Args::parse(args, TREE_VALUES);
            if parsed.value_of(&["-L"]).is_some_and(|d| d <= 1) {
                return None;
            }
            Some(parsed.positional)
        }
        _ => None,
    }
}

/// Options of `rg`, `ag`, `ack` that take the next word as their value.
const RG_VALUES: &[&str] = &[
    "-e",
    "-f",
    "-g",
    "-t",
    "-T",
    "-A",
    "-B",
    "-C",
    "-m",
    "-j",
    "-M",
    "-E",
    "-r",
    "-d",
    "--regexp",
    "--file",
    "--glob",
    "--iglob",
    "--type",
    "--type-not",
    "--after-context",
    "--before-context",
    "--context",
    "--max-count",
    "--threads",
    "--max-columns",
    "--encoding",
    "--replace",
    "--max-depth",
    "--max-filesize",
    "--sort",
    "--sortr",
    "--color",
    "--colors",
    "--type-add",
    "--pre",
    "--pre-glob",
    "--engine",
    "--ignore-file",
    "--path-separator",
];

/// Options of `grep` and `git grep` that take the next word as their value.
const GREP_VALUES: &[&str] = &[
    "-e",
    "-f",
    "-m",
    "-A",
    "-B",
    "-C",
    "-d",
    "-D",
    "--regexp",
    "--file",
    "--max-count",
    "--after-context",
    "--before-context",
    "--context",
    "--directories",
    "--devices",
    "--max-depth",
    "--color",
    "--colour",
    "--label",
    "--binary-files",
];

/// Options of `fd` that take the next word as their value.
const FD_VALUES: &[&str] = &[
    "-e",
    "-t",
    "-E",
    "-d",
    "-x",
    "-X",
    "-c",
    "-j",
    "-S",
    "-o",
    "--extension",
    "--type",
    "--exclude",
    "--max-depth",
    "--min-depth",
    "--exact-depth",
    "--exec",
    "--exec-batch",
    "--color",
    "--threads",
    "--size",
    "--owner",
    "--search-path",
    "--base-directory",
    "--changed-within",
    "--changed-before",
    "--max-results",
    "--ignore-file",
];

/// Options of `tree` that take the next word as their value.
const TREE_VALUES: &[&str] = &[
    "-L",
    "-P",
    "-I",
    "-o",
    "-H",
    "-T",
    "--filelimit",
    "--charset",
];

/// A command's args, read with the options that take a value.
struct Args {
    /// Options as written, with their values (`-e`, `foo`) as (`-e`, Some(`foo`)).
    options: Vec<(String, Option<String>)>,
    positional: Vec<String>,
}

impl Args {
    fn parse(words: &[String], with_value: &[&str]) -> Args {
        let mut options = Vec::new();
        let mut positional = Vec::new();
        let mut words = words.iter().map(String::as_str);
        while let Some(word) = words.next() {
            if word == "--" {
                positional.extend(words.by_ref().map(str::to_owned));
                break;
            }
            if word.starts_with('-') && word.len() > 1 {
                if let Some((option, value)) = word.split_once('=') {
                    options.push((option.to_owned(), Some(value.to_owned())));
                } else if with_value.contains(&word) {
                    options.push((word.to_owned(), words.next().map(str::to_owned)));
                } else {
                    options.push((word.to_owned(), None));
                }
            } else {
                positional.push(word.to_owned());
            }
        }
        Args {
            options,
            positional,
        }
    }

    /// Whether one of `names` is given (`--directories=recurse` matches option and value).
    fn has(&self, names: &[&str]) -> bool {
        self.options.iter().any(|(option, value)| {
            names.iter().any(|n| match n.split_once('=') {
                Some((o, v)) => option == o && value.as_deref() == Some(v),
                None => option == n,
            })
        })
    }

    /// Whether the short flag `flag` is given, alone or in a cluster (`-rn`).
    fn has_short(&self, flag: char) -> bool {
        self.options
            .iter()
            .any(|(o, _)| !o.starts_with("--") && o[1..].contains(flag))
    }

    /// The value of the first of `names` given, as a number.
    fn value_of(&self, names: &[&str]) -> Option<u32> {
        self.options
            .iter()
            .find(|(o, _)| names.contains(&o.as_str()))
            .and_then(|(_, v)| v.as_deref()?.parse().ok())
    }

    fn values_of(&self, names: &[&str]) -> Vec<String> {
        self.options
            .iter()
            .filter(|(o, _)| names.contains(&o.as_str()))
            .filter_map(|(_, v)| v.clone())
            .collect()
    }

    /// The paths of a search: every positional when the pattern came with `-e`/`-f`, else all
    /// but the first.
    fn paths_after_pattern(&self) -> Vec<String> {
        let given = self.has(&["-e", "-f", "--regexp", "--file"]);
        self.positional
            .iter()
            .skip(usize::from(!given))
            .cloned()
            .collect()
    }
}

/// The directory a glob path names before its first wildcard: `src/**/*.rs` → `src`, `*` and
/// `**/*.rs` → `` (the directory itself).
fn literal_dir(path: &str) -> String {
    if !path.contains(['*', '?', '[', '{']) {
        return path.to_owned();
    }
    let parts: Vec<&str> = path
        .split('/')
        .take_while(|part| !part.contains(['*', '?', '[', '{']))
        .collect();
    parts.join("/")
}
