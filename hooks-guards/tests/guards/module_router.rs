//! `module-router` in a real temporary project: the root-wide explorations it must block before
//! the turn has read a routing file, the work it must let through (searches inside a module,
//! `ls`, reads, writes), that a successful read opens the root and a failed one does not, that
//! the next turn starts over, `require: all`, a project without routing files, enabling it from
//! `hookchain.yaml` and from Rust, a misspelt field, and `hookchain test`. Prints the corpus sizes
//! and the false positives and negatives.

use hookchain::HooksBuilder;
use hookchain::cli::{EXIT_BLOCKED, EXIT_OK};
use hookchain::prelude::*;
use hookchain_guards::module_router::Require;
use hookchain_guards::{BuiltinsExt, ModuleRouter};

use crate::support::{Project, blocked, corpus, from_yaml, hookchain_test};

/// A temporary project with `ARCHITECTURE.md`, `docs/modules.md`, `src/auth`, `src/billing`.
struct Modules(Project);

impl std::ops::Deref for Modules {
    type Target = Project;

    fn deref(&self) -> &Project {
        &self.0
    }
}

impl Modules {
    fn new() -> Modules {
        let project = Modules(Project::empty());
        let root = &project.root;
        for dir in ["docs", "src/auth", "src/billing", "tests"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(
            root.join("ARCHITECTURE.md"),
            "src/auth: logins\nsrc/billing: invoices\n",
        )
        .unwrap();
        std::fs::write(root.join("docs/modules.md"), "auth, billing\n").unwrap();
        project
    }

    fn guard(&self) -> ModuleRouter {
        ModuleRouter {
            project_dir: Some(self.dir()),
            ..ModuleRouter::default()
        }
    }

    fn hooks(&self, guard: ModuleRouter) -> Hooks {
        HooksBuilder::new().builtin(guard).build().unwrap()
    }
}

fn bash(command: &str) -> ToolCall {
    ToolCall::new("bash", json!({ "command": command }))
}

fn tool(name: &str, args: Value) -> ToolCall {
    ToolCall::new(name, args)
}

/// Root-wide explorations: blocked before a routing file is read.
fn explorations(root: &std::path::Path) -> Vec<ToolCall> {
    let abs = root.display().to_string();
    vec![
        bash("rg login"),
        bash("rg -n 'fn login' ."),
        bash("rg -e login -e logout"),
        bash("rg --files"),
        bash("rg --files | grep auth"),
        bash("rg -t rust -g '!target' login ./"),
        bash(&format!("rg login {abs}")),
        bash("rg login src/.."),
        bash("rg login src/auth ."),
        bash("rg login *"),
        bash("ag login"),
        bash("grep -rn login ."),
        bash("grep -R --include='*.rs' login"),
        bash("grep --recursive login ."),
        bash("egrep -ri 'log(in|out)' ."),
        bash("git grep login"),
        bash("git ls-files"),
        bash("find . -name '*.rs'"),
        bash("find -name login.rs"),
        bash("find . -type f -exec grep -l login {} +"),
        bash("fd login"),
        bash("fd -e rs"),
        bash("fdfind login ."),
        bash("ls -R"),
        bash("ls -laR ."),
        bash("tree"),
        bash("tree -L 3 ."),
        bash("sudo rg login"),
        bash("bash -c 'rg login'"),
        bash("cd src && cd .. && rg login"),
        bash("echo \"$(rg -l login)\""),
        bash("rg login ~/../../.."),
        ToolCall::new("shell", json!({"command": "rg login", "cwd": "src/.."})),
        ToolCall::new("bash", json!({"command": ["rg", "login"]})),
        tool("Grep", json!({"pattern": "login"})),
        tool("Grep", json!({"pattern": "login", "path": ""})),
        tool("Grep", json!({"pattern": "login", "path": "."})),
        tool("Grep", json!({"pattern": "login", "path": abs})),
        tool("Glob", json!({"pattern": "**/*.rs"})),
        tool("Glob", json!({"pattern": "*.md", "path": "./"})),
        tool("search_files", json!({"path": ".", "regex": "login"})),
        tool("grep_search", json!({"query": "login"})),
        tool("file_search", json!({"query": "login.rs"})),
    ]
}

/// Normal work: searches inside a module, shallow listings, reads, writes, other commands.
fn normal_work(root: &std::path::Path) -> Vec<ToolCall> {
    let abs = root.join("src/auth").display().to_string();
    vec![
        bash("rg login src/auth"),
        bash("rg -n 'fn login' src/"),
        bash("rg -e login src/auth tests"),
        bash("rg --files src/billing"),
        bash(&format!("rg login {abs}")),
        bash("cd src/auth && rg login"),
        bash("cd src && grep -rn login auth"),
        bash("grep -rn login src/auth"),
        bash("grep -n login ARCHITECTURE.md"),
        bash("grep login src/auth/mod.rs"),
        bash("git grep login -- src/auth"),
        bash("git ls-files src/"),
        bash("find src -name '*.rs'"),
        bash("find ./src/auth -type f"),
        bash("find . -maxdepth 1 -name '*.md'"),
        bash("fd login src"),
        bash("fd -d 1 md"),
        bash("ls"),
        bash("ls -la"),
        bash("ls -R src/auth"),
        bash("tree src"),
        bash("tree -L 1"),
        bash("cat ARCHITECTURE.md"),
        bash("cat src/auth/mod.rs | head -40"),
        bash("cargo test -p auth"),
        bash("git status && git diff"),
        bash("rg login /usr/share/doc"),
        ToolCall::new("bash", json!({"command": "rg login", "cwd": "src/auth"})),
        tool("Grep", json!({"pattern": "login", "path": "src/auth"})),
        tool("Grep", json!({"pattern": "login", "path": "src"})),
        tool("Glob", json!({"pattern": "src/**/*.rs"})),
        tool("Glob", json!({"pattern": "*.rs", "path": "src/billing"})),
        tool("search_files", json!({"path": "src", "regex": "login"})),
        tool("read_file", json!({"path": "src/auth/mod.rs"})),
        tool("Read", json!({"file_path": "ARCHITECTURE.md"})),
        tool(
            "write_file",
            json!({"path": "src/auth/login.rs", "content": "x"}),
        ),
        tool("list_files", json!({"path": "."})),
    ]
}

#[test]
fn root_wide_exploration_waits_for_the_routing_files_and_normal_work_goes_on() {
    let project = Modules::new();
    let hooks = project.hooks(project.guard());
    let turn = hooks.session("mr-corpus").begin_turn();
    let block = explorations(&project.root);
    let allow = normal_work(&project.root);
    let (false_negatives, false_positives) = corpus("module-router", &turn, &block, &allow);
    assert!(
        false_negatives.is_empty(),
        "let through: {false_negatives:#?}"
    );
    assert!(false_positives.is_empty(), "blocked: {false_positives:#?}");

    // Once a routing file is read, the root is open.
    let read = turn.run_tool(bash("cat ./docs/../ARCHITECTURE.md"), |_| {
        Ok(json!("src/auth: logins"))
    });
    assert!(read.ran);
    let still_blocked = blocked(&turn, block.iter().chain(&allow));
    assert!(still_blocked.is_empty(), "{still_blocked:#?}");
}

/// Shell forms read as the shell reads them: options before `-c`, text fed to a shell on its
/// standard input, `$'…'`, wrappers, a `cd` to a place the line computes, and here-document
/// data that is no command.
#[test]
fn explorations_are_read_as_the_shell_runs_them() {
    let project = Modules::new();
    let hooks = project.hooks(project.guard());
    let turn = hooks.session("mr-shell-forms").begin_turn();
    let block: Vec<ToolCall> = [
        "bash -euo pipefail -c 'rg login'",
        "bash -O extglob -c 'grep -rn login .'",
        "sh <<< 'rg login'",
        "echo 'rg login' | sh",
        "bash -c $'rg login'",
        "rg login $'.'",
        "bash <<'EOF'\nrg login\nEOF",
        "busybox find . -name login.rs",
        "setsid rg login",
        "cd \"$(git rev-parse --show-toplevel)\" && rg login",
    ]
    .iter()
    .map(|c| bash(c))
    .collect();
    let allow: Vec<ToolCall> = [
        "cat <<'EOF' > notes.md\nrg login\nfind . -name x\nEOF",
        "cd src/auth && bash -euo pipefail -c 'rg login'",
        "sh <<< 'rg login src/auth'",
        "rg login $'src/auth'",
        "echo 'rg login'",
        "git commit -m 'find . -name x'",
    ]
    .iter()
    .map(|c| bash(c))
    .collect();
    let (false_negatives, false_positives) =
        corpus("module-router, shell forms", &turn, &block, &allow);
    assert!(
        false_negatives.is_empty(),
        "let through: {false_negatives:#?}"
    );
    assert!(false_positives.is_empty(), "blocked: {false_positives:#?}");
}

#[test]
fn the_block_names_the_routing_files_to_read() {
    let project = Modules::new();
    let hooks = project.hooks(project.guard());
    let turn = hooks.session("mr-reason").begin_turn();
    let Flow::Blocked(blocked) = turn.intercept_tool_call(bash("sudo rg -n login .")) else {
        panic!("root-wide: blocked");
    };
    assert_eq!(&*blocked.hook, "module-router");
    assert_eq!(
        blocked.reason,
        "module-router: `rg -n login .` searches the whole repository before this turn has read \
         the routing files: read ARCHITECTURE.md or docs/modules.md first, then search inside \
         the module they point to (`rg PATTERN src/MODULE`)"
    );
    let reason = turn
        .intercept_tool_call(tool("Glob", json!({"pattern": "**/*.rs"})))
        .blocked()
        .unwrap()
        .reason;
    assert!(
        reason.starts_with("module-router: `Glob` searches the whole repository"),
        "{reason}"
    );
}

#[test]
fn a_failed_read_counts_for_nothing_and_a_read_tool_opens_the_root() {
    let project = Modules::new();
    let hooks = project.hooks(project.guard());
    let turn = hooks.session("mr-reads").begin_turn();
    let read = || tool("read_file", json!({"path": "ARCHITECTURE.md"}));
    let _ = turn.run_tool(read(), |_| Err("permission denied".into()));
    assert!(turn.intercept_tool_call(bash("rg login")).is_blocked());
    // A read of another file, and a search that mentions the routing file, do not count.
    let _ = turn.run_tool(tool("read_file", json!({"path": "README.md"})), |_| {
        Ok(json!("x"))
    });
    let _ = turn.run_tool(bash("grep -n auth ARCHITECTURE.md"), |_| {
        Ok(json!("1:auth"))
    });
    let _ = turn.run_tool(bash("rg login ARCHITECTURE.md"), |_| Ok(json!("")));
    assert!(turn.intercept_tool_call(bash("rg login")).is_blocked());
    let _ = turn.run_tool(read(), |_| Ok(json!("src/auth: logins")));
    assert!(!turn.intercept_tool_call(bash("rg login")).is_blocked());
    assert_eq!(
        turn.state()
            .get::<Vec<String>>("module-router.read")
            .unwrap(),
        ["ARCHITECTURE.md"]
    );
}

#[test]
fn a_read_in_one_turn_does_not_open_the_next() {
    let project = Modules::new();
    let hooks = project.hooks(project.guard());
    let session = hooks.session("mr-turns");
    let first = session.begin_turn();
    let _ = first.run_tool(
        tool("Read", json!({"file_path": "docs/modules.md"})),
        |_| Ok(json!("auth")),
    );
    assert!(!first.intercept_tool_call(bash("rg login")).is_blocked());
    first.end(TurnEnd::Normal);
    let second = session.begin_turn();
    assert!(second.intercept_tool_call(bash("rg login")).is_blocked());
    let _ = second.run_tool(bash("cd docs && head -20 modules.md"), |_| {
        Ok(json!("auth"))
    });
    assert!(!second.intercept_tool_call(bash("rg login")).is_blocked());
}

#[test]
fn require_all_waits_for_every_routing_file_that_exists() {
    let project = Modules::new();
    let guard = ModuleRouter {
        require: Require::All,
        routing_files: vec![
            "ARCHITECTURE.md".into(),
            "docs/modules.md".into(),
            "MISSING.md".into(),
        ],
        ..project.guard()
    };
    let hooks = project.hooks(guard);
    let turn = hooks.session("mr-all").begin_turn();
    let reason = turn
        .intercept_tool_call(bash("rg x"))
        .blocked()
        .unwrap()
        .reason;
    assert!(
        reason.contains("read ARCHITECTURE.md and docs/modules.md first"),
        "{reason}"
    );
    let _ = turn.run_tool(bash("cat ARCHITECTURE.md"), |_| Ok(json!("x")));
    let reason = turn
        .intercept_tool_call(bash("rg x"))
        .blocked()
        .unwrap()
        .reason;
    assert!(reason.contains("read docs/modules.md too"), "{reason}");
    let _ = turn.run_tool(bash("less docs/modules.md"), |_| Ok(json!("x")));
    assert!(!turn.intercept_tool_call(bash("rg x")).is_blocked());
}

#[test]
fn a_project_without_routing_files_is_not_routed() {
    let project = Modules::new();
    let guard = ModuleRouter {
        routing_files: vec!["MODULES.md".into()],
        ..project.guard()
    };
    let hooks = project.hooks(guard);
    let turn = hooks.session("mr-none").begin_turn();
    assert!(!turn.intercept_tool_call(bash("rg login")).is_blocked());
    std::fs::write(project.root.join("MODULES.md"), "auth\n").unwrap();
    assert!(turn.intercept_tool_call(bash("rg login")).is_blocked());
}

#[test]
fn one_config_entry_enables_it_and_a_misspelt_field_names_the_file_and_line() {
    let project = Modules::new();
    let hooks = from_yaml(&format!(
        "extensions:\n  module-router:\n    enabled: true\n    project_dir: {}\n    routing_files: [docs/modules.md]\n    require: all\n",
        project.dir()
    ))
    .unwrap();
    let turn = hooks.session("mr-yaml").begin_turn();
    let reason = turn
        .intercept_tool_call(bash("fd login"))
        .blocked()
        .unwrap()
        .reason;
    assert!(reason.contains("read docs/modules.md first"), "{reason}");
    let _ = turn.run_tool(bash("cat ARCHITECTURE.md"), |_| Ok(json!("x")));
    assert!(turn.intercept_tool_call(bash("fd login")).is_blocked());

    let error = from_yaml(
        "extensions:\n  module-router:\n    enabled: true\n    routing_file: [ARCHITECTURE.md]\n",
    )
    .unwrap_err();
    assert!(
        error.starts_with("extension `module-router` in ./hookchain.yaml line 4"),
        "{error}"
    );
    assert!(error.contains("unknown field `routing_file`"), "{error}");
    let error = from_yaml("extensions:\n  module-router:\n    require: most\n").unwrap_err();
    assert!(
        error.contains("line 3") && error.contains("unknown variant `most`"),
        "{error}"
    );
}

#[test]
fn one_line_of_rust_enables_it_once() {
    let project = Modules::new();
    let hooks = HooksBuilder::new()
        .builtin(project.guard())
        .builtin(project.guard())
        .build()
        .unwrap();
    for point in ["intercept_tool_call", "after_tool_call"] {
        let chain = hooks.chain_of(point);
        assert_eq!(
            chain.iter().filter(|h| &*h.name == "module-router").count(),
            1,
            "{point}"
        );
    }
    let turn = hooks.session("mr-rust").begin_turn();
    assert!(turn.intercept_tool_call(bash("tree")).is_blocked());
    // Off by default when only added (as `hookchain test` adds every guard).
    let all = hookchain_guards::add_all(HooksBuilder::new())
        .build()
        .unwrap();
    assert!(!all.extension("module-router").unwrap().is_enabled());
}

#[test]
fn hookchain_test_tries_it() {
    let project = Modules::new();
    let config = project.root.join("hookchain.yaml");
    // The project is the payload's `cwd`, as Claude Code sends it (a `project_dir` in a file
    // named with `--config` is refused: only the user's own file or code may set it).
    std::fs::write(
        &config,
        "extensions:\n  module-router:\n    enabled: true\n",
    )
    .unwrap();
    let run = |mut payload: Value| {
        payload["cwd"] = json!(project.dir());
        hookchain_test(&project.root, &config, "PreToolUse", payload)
    };
    let bash = |command: &str| json!({"tool_name": "Bash", "tool_input": {"command": command}});
    let (code, output) = run(bash("grep -rn login ."));
    assert_eq!(code, EXIT_BLOCKED, "{output}");
    assert!(
        output.contains(
            "blocked by `module-router`: `grep -rn login .` searches the whole repository"
        ),
        "{output}"
    );
    let (code, output) = run(bash("grep -rn login src/auth"));
    assert_eq!(code, EXIT_OK, "{output}");
    let (code, output) = run(json!({"tool_name": "Grep", "tool_input": {"pattern": "login"}}));
    assert_eq!(code, EXIT_BLOCKED, "{output}");
}
