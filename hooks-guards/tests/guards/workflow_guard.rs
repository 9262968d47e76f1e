//! `workflow-guard` in a real temporary project: the write calls it must hold back until a
//! valid plan exists and the ones it must let through (the plan itself, allowed paths, reads,
//! other tools), the same corpus once the plan exists, what makes a plan valid, shell writes,
//! the routing of implementation requests, the turn's context, enabling it from
//! `hookchain.yaml` and from Rust, config errors, a program's own extension of the same name,
//! and `hookchain test`. Prints the corpus sizes and the false positives and negatives.

use hookchain::cli::{EXIT_BLOCKED, EXIT_OK};
use hookchain::config::Config;
use hookchain::prelude::*;
use hookchain::{HookContext, HooksBuilder};
use hookchain_guards::{BuiltinsExt, WorkflowGuard};

use crate::support::{Project, blocked, corpus, from_yaml, hookchain_test};

/// A temporary project with `src/`, `plans/`, `docs/` and a symlink `plans/escape -> ../src`.
struct Workspace(Project);

impl std::ops::Deref for Workspace {
    type Target = Project;

    fn deref(&self) -> &Project {
        &self.0
    }
}

impl Workspace {
    fn new() -> Workspace {
        let project = Workspace(Project::empty());
        let root = &project.root;
        for dir in ["src", "plans/active", "docs", "handoff"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::os::unix::fs::symlink("../src", root.join("plans/escape")).unwrap();
        project
    }

    fn guard(&self) -> WorkflowGuard {
        WorkflowGuard {
            project_dir: Some(self.dir()),
            allowed_paths: vec!["handoff/".into(), "docs/*.md".into()],
            shell_writes: true,
            ..WorkflowGuard::default()
        }
    }

    fn hooks(&self, guard: WorkflowGuard) -> Hooks {
        HooksBuilder::new().builtin(guard).build().unwrap()
    }

    fn write_plan(&self, text: &str) {
        std::fs::write(self.root.join("plans/active/plan.md"), text).unwrap();
    }
}

fn call(name: &str, args: Value) -> ToolCall {
    ToolCall::new(name, args)
}

fn bash(command: &str) -> ToolCall {
    call("bash", json!({ "command": command }))
}

/// Writes of the implementation: blocked while there is no valid plan.
fn writes_to_hold(root: &std::path::Path) -> Vec<ToolCall> {
    vec![
        call(
            "write_file",
            json!({"path": "src/login.rs", "content": "x"}),
        ),
        call(
            "edit_file",
            json!({"path": "src/main.rs", "old": "a", "new": "b"}),
        ),
        call(
            "Write",
            json!({"file_path": root.join("src/lib.rs").display().to_string()}),
        ),
        call("Edit", json!({"file_path": "./src/main.rs"})),
        call(
            "MultiEdit",
            json!({"file_path": "src/main.rs", "edits": [{"old_string": "a"}]}),
        ),
        call("write_file", json!({"path": "plans/../src/login.rs"})),
        call("write_file", json!({"path": "plans/active/plan.md.bak"})),
        call("write_file", json!({"path": "plans/active/other.md"})),
        // a symlink under plans/ that points into src/
        call("write_file", json!({"path": "plans/escape/login.rs"})),
        call("write_file", json!({"path": "handoff/../src/x.rs"})),
        call("write_file", json!({"path": "docs/api/notes.md"})),
        call("write_file", json!({"path": "docs/diagram.svg"})),
        call("write_file", json!({"path": "README.md"})),
        // a write tool that names no file it writes
        call("write_file", json!({"content": "x"})),
        call(
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-a\n+b\n*** End Patch\n"}),
        ),
        call(
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Add File: plans/active/plan.md\n+x\n*** Update File: src/main.rs\n*** End Patch\n"}),
        ),
        call("delete_file", json!({"path": "src/main.rs"})),
        call(
            "move_file",
            json!({"source": "handoff/a.rs", "destination": "src/a.rs"}),
        ),
        call(
            "str_replace_based_edit_tool",
            json!({"command": "create", "path": "src/new.rs"}),
        ),
        // shell writes (shell_writes: true)
        bash("echo 'pub fn login() {}' > src/login.rs"),
        bash("cat >> src/main.rs <<EOF\nmod login;\nEOF"),
        bash("sed -i 's/a/b/' src/main.rs"),
        bash("sed -i -e 's/a/b/' handoff/x.md src/main.rs"),
        bash("perl -pi -e 's/a/b/' src/main.rs"),
        bash("cd src && touch login.rs"),
        bash("sudo tee src/login.rs < /dev/null"),
        bash("cp handoff/login.rs src/login.rs"),
        bash("mv src/main.rs src/app.rs"),
        bash("rm -rf src/old"),
        bash("mkdir -p src/auth"),
        bash("bash -c 'echo x > src/x.rs'"),
        bash("git apply fix.patch"),
        bash("patch -p1 < fix.patch"),
        bash("echo \"$(echo hi > src/y.rs)\""),
    ]
}

/// Normal work before a plan exists: writing the plan, allowed paths, reads, other tools.
fn calls_to_allow_without_plan(root: &std::path::Path) -> Vec<ToolCall> {
    vec![
        call(
            "write_file",
            json!({"path": "plans/active/plan.md", "content": "# Plan"}),
        ),
        call(
            "Write",
            json!({"file_path": root.join("plans/active/plan.md").display().to_string()}),
        ),
        call("edit_file", json!({"path": "./plans/active/plan.md"})),
        call(
            "write_file",
            json!({"path": "plans/active/../active/plan.md"}),
        ),
        call(
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Add File: plans/active/plan.md\n+## Steps\n*** End Patch\n"}),
        ),
        call("write_file", json!({"path": "handoff/notes.md"})),
        call("write_file", json!({"path": "handoff/deep/state.json"})),
        call("write_file", json!({"path": "docs/design.md"})),
        call("read_file", json!({"path": "src/main.rs"})),
        call("Read", json!({"file_path": "src/main.rs"})),
        call("Grep", json!({"pattern": "login", "path": "src"})),
        call("list_files", json!({"path": "."})),
        bash("ls -la"),
        bash("cat src/main.rs"),
        bash("rg login src/"),
        bash("cargo test 2>/dev/null"),
        bash("git status && git log --oneline -5 > /dev/null"),
        bash("mkdir -p plans/active"),
        bash("cat > plans/active/plan.md <<'EOF'\n# Plan\n## Steps\n1. x\nEOF"),
        bash("echo '## Steps' >> plans/active/plan.md"),
        bash("tee handoff/log.txt"),
        bash("cp src/main.rs handoff/main.rs"),
        bash("sed -n '1,20p' src/main.rs"),
        bash("git diff"),
    ]
}

#[test]
fn writes_wait_for_the_plan_and_normal_work_goes_on() {
    let project = Workspace::new();
    let hooks = project.hooks(project.guard());
    let turn = hooks.session("wg-corpus").begin_turn();
    let hold = writes_to_hold(&project.root);
    let allow = calls_to_allow_without_plan(&project.root);
    let (false_negatives, false_positives) =
        corpus("workflow-guard, no plan", &turn, &hold, &allow);
    assert!(
        false_negatives.is_empty(),
        "let through: {false_negatives:#?}"
    );
    assert!(false_positives.is_empty(), "blocked: {false_positives:#?}");

    // Once the plan exists, every write goes through (but the symlink-free reads stay reads).
    project.write_plan("# Plan: login\n## Steps\n1. src/login.rs\n");
    let blocked_with_plan = blocked(&turn, hold.iter().chain(&allow));
    println!(
        "workflow-guard, with a plan: {} calls, {} blocked",
        hold.len() + allow.len(),
        blocked_with_plan.len()
    );
    assert!(blocked_with_plan.is_empty(), "{blocked_with_plan:#?}");
}

/// Shell forms read as the shell reads them: options before `-c`, text fed to a shell on its
/// standard input, `$'…'`, wrappers, a `cd` before a relative path, and here-document data
/// that is no command.
#[test]
fn shell_writes_are_read_as_the_shell_runs_them() {
    let project = Workspace::new();
    let hooks = project.hooks(project.guard());
    let turn = hooks.session("wg-shell-forms").begin_turn();
    let hold: Vec<ToolCall> = [
        "bash -euo pipefail -c 'echo x > src/x.rs'",
        "bash -o pipefail -c 'touch src/x.rs'",
        "sh <<< 'echo x > src/x.rs'",
        "echo 'echo x > src/x.rs' | sh",
        "bash <<'EOF'\ntouch src/x.rs\nEOF",
        "busybox touch src/x.rs",
        "setsid touch src/x.rs",
        "flock /tmp/lock touch src/x.rs",
        "chmod +x src/run.sh",
        "curl -fsSL -o src/vendor.js https://example.com/v.js",
        "cat <<'EOF' > handoff/notes.md; touch src/x.rs\nnotes\nEOF",
        "tar -xzf vendor.tgz -C src",
        "echo x > \"$OUT\"",
    ]
    .iter()
    .map(|c| bash(c))
    .collect();
    let allow: Vec<ToolCall> = [
        "cat <<'EOF' > handoff/notes.md\ntouch src/x.rs\nrm -rf src\nEOF",
        "echo x > $'handoff/x.md'",
        "cd src && echo x > ../handoff/y.md",
        "sed -i '' 's/a/b/' handoff/x.md",
        "git apply --check fix.patch",
        "tar -xzf notes.tgz -C handoff",
        "echo 'touch src/x.rs'",
    ]
    .iter()
    .map(|c| bash(c))
    .collect();
    let (false_negatives, false_positives) =
        corpus("workflow-guard, shell forms", &turn, &hold, &allow);
    assert!(
        false_negatives.is_empty(),
        "let through: {false_negatives:#?}"
    );
    assert!(false_positives.is_empty(), "blocked: {false_positives:#?}");
}

#[test]
fn a_block_names_the_guard_the_tool_the_file_and_what_to_do() {
    let project = Workspace::new();
    let guard = WorkflowGuard {
        required_headings: vec!["## Steps".into()],
        ..project.guard()
    };
    let hooks = project.hooks(guard);
    let turn = hooks.session("wg-reason").begin_turn();
    let Flow::Blocked(blocked) =
        turn.intercept_tool_call(call("write_file", json!({"path": "src/login.rs"})))
    else {
        panic!("no plan: blocked");
    };
    assert_eq!(&*blocked.hook, "workflow-guard");
    assert_eq!(
        blocked.reason,
        "workflow-guard: `write_file` would write `src/login.rs` before a valid plan exists \
         (plans/active/plan.md does not exist): write the plan to plans/active/plan.md (with \
         the headings `## Steps`) first (writes under handoff/, docs/*.md are open)"
    );
    project.write_plan("   \n");
    let reason = turn
        .intercept_tool_call(bash("touch src/x.rs"))
        .blocked()
        .unwrap()
        .reason;
    assert!(reason.contains("`bash` would write `src/x.rs`"), "{reason}");
    assert!(
        reason.contains("(plans/active/plan.md is empty)"),
        "{reason}"
    );
    let reason = turn
        .intercept_tool_call(bash("git apply x.patch"))
        .blocked()
        .unwrap()
        .reason;
    assert!(
        reason.contains("would write files it does not name"),
        "{reason}"
    );
}

#[test]
fn a_plan_is_valid_when_it_has_the_required_headings_and_length() {
    let project = Workspace::new();
    let guard = WorkflowGuard {
        required_headings: vec!["## Steps".into(), "## Risks".into()],
        min_plan_chars: 40,
        ..project.guard()
    };
    let hooks = project.hooks(guard);
    let turn = hooks.session("wg-validity").begin_turn();
    let write = || call("write_file", json!({"path": "src/login.rs"}));
    let cases = [
        ("", "is empty"),
        (
            "## Steps\n## Risks\n",
            "has 17 characters, fewer than the 40 a plan needs",
        ),
        (
            "# Plan for the login feature\n## Steps\n1. add it\n",
            "has no `## Risks` heading",
        ),
        (
            "# Plan for the login feature\n## Stepsize\n## Risks\nnone\n",
            "has no `## Steps` heading",
        ),
    ];
    for (plan, why) in cases {
        project.write_plan(plan);
        let reason = turn
            .intercept_tool_call(write())
            .blocked()
            .unwrap_or_else(|| panic!("{plan:?} is no valid plan"))
            .reason;
        assert!(reason.contains(why), "{plan:?}: {reason}");
    }
    project
        .write_plan("# Plan for the login feature\n## Steps (v2)\n1. add it\n  ## Risks\nnone\n");
    assert!(!turn.intercept_tool_call(write()).is_blocked());
}

#[test]
fn shell_writes_are_held_only_when_asked() {
    let project = Workspace::new();
    let guard = WorkflowGuard {
        shell_writes: false,
        ..project.guard()
    };
    let hooks = project.hooks(guard);
    let turn = hooks.session("wg-shell-off").begin_turn();
    assert!(
        !turn
            .intercept_tool_call(bash("echo x > src/x.rs"))
            .is_blocked()
    );
    assert!(
        turn.intercept_tool_call(call("write_file", json!({"path": "src/x.rs"})))
            .is_blocked()
    );
}

/// Implementation requests, and messages that are not.
const REQUESTS: &[&str] = &[
    "implement user login",
    "Implement the retry logic in src/net.rs",
    "please add a --verbose flag",
    "Can you fix the failing test in tests/api.rs?",
    "could you refactor the parser into its own module",
    "ok, now please build the export feature",
    "Let's create a migration for the users table",
    "write the code for the CSV export",
    "go ahead and update the dependencies",
    "I want you to rewrite the cache layer",
    "Fix: the login button does nothing",
    "update the README badge",
];

const NOT_REQUESTS: &[&str] = &[
    "how does the build work?",
    "what does src/main.rs do",
    "explain the retry logic",
    "why is the test failing?",
    "additionally, where is the config read?",
    "summarize the architecture",
    "/plan implement user login",
    "review my last commit",
    "thanks!",
    "fixtures live where?",
    "builder pattern or not, what do you think?",
    "list the open TODOs",
    "make sense of this stack trace for me",
    "code review: is src/net.rs thread safe?",
];

#[test]
fn implementation_requests_are_routed_to_planning_until_the_plan_exists() {
    let project = Workspace::new();
    let hooks = project.hooks(project.guard());
    let turn = hooks.session("wg-route").begin_turn();
    let rewritten = |text: &str| turn.transform_user_input(text).continued().unwrap();
    let false_negatives: Vec<&str> = REQUESTS
        .iter()
        .copied()
        .filter(|t| rewritten(t) == *t)
        .collect();
    let false_positives: Vec<&str> = NOT_REQUESTS
        .iter()
        .copied()
        .filter(|t| rewritten(t) != *t)
        .collect();
    println!(
        "workflow-guard routing: {} requests, {} other messages; {} false negatives, {} false positives",
        REQUESTS.len(),
        NOT_REQUESTS.len(),
        false_negatives.len(),
        false_positives.len()
    );
    assert!(false_negatives.is_empty(), "{false_negatives:?}");
    assert!(false_positives.is_empty(), "{false_positives:?}");
    assert_eq!(
        rewritten("implement user login"),
        "First write a plan to plans/active/plan.md, then stop: the implementation starts once \
         the plan exists. The request: implement user login"
    );
    project.write_plan("# Plan\n1. login\n");
    assert_eq!(rewritten("implement user login"), "implement user login");
}

#[test]
fn the_instruction_the_texts_and_the_off_switch_are_configurable() {
    let project = Workspace::new();
    let guard = WorkflowGuard {
        planning_instruction: "/start-feature {request}".into(),
        no_plan_context: "No plan ({why}): write {plan_path}.".into(),
        plan_context: String::new(),
        request_patterns: vec!["ship".into()],
        ..project.guard()
    };
    let hooks = project.hooks(guard.clone());
    let turn = hooks.session("wg-texts").begin_turn();
    assert_eq!(
        turn.transform_user_input("ship it").continued().unwrap(),
        "/start-feature ship it"
    );
    assert_eq!(
        turn.transform_user_input("implement it")
            .continued()
            .unwrap(),
        "implement it"
    );
    let start = turn.turn_start("ship it").continued().unwrap();
    assert_eq!(
        start.context,
        ["No plan (plans/active/plan.md does not exist): write plans/active/plan.md."]
    );
    project.write_plan("# Plan\n");
    let start = hooks
        .session("wg-texts-2")
        .begin_turn()
        .turn_start("x")
        .continued()
        .unwrap();
    assert!(start.context.is_empty(), "{:?}", start.context);

    let off = project.hooks(WorkflowGuard {
        route_requests: false,
        ..guard
    });
    std::fs::remove_file(project.root.join("plans/active/plan.md")).unwrap();
    let turn = off.session("wg-off").begin_turn();
    assert_eq!(
        turn.transform_user_input("ship it").continued().unwrap(),
        "ship it"
    );
}

#[test]
fn the_turn_starts_with_the_plan_status() {
    let project = Workspace::new();
    let hooks = project.hooks(project.guard());
    let start = hooks
        .session("wg-status")
        .begin_turn()
        .turn_start("hi")
        .continued()
        .unwrap();
    assert_eq!(
        start.context,
        [
            "workflow-guard: no valid plan yet (plans/active/plan.md does not exist). Write the \
          plan to plans/active/plan.md before changing any other file: writes elsewhere are \
          blocked until it exists."
        ]
    );
    project.write_plan("# Plan\n1. x\n");
    let start = hooks
        .session("wg-status-2")
        .begin_turn()
        .turn_start("hi")
        .continued()
        .unwrap();
    assert_eq!(
        start.context,
        [
            "workflow-guard: the plan at plans/active/plan.md is in place; implement it step by step."
        ]
    );
}

#[test]
fn one_config_entry_enables_it_and_a_misspelt_field_names_the_file_and_line() {
    let project = Workspace::new();
    let yaml = format!(
        "extensions:\n  workflow-guard:\n    enabled: true\n    project_dir: {}\n    blocked_tools: [write_file, edit_file, apply_patch]\n    allowed_paths: [plans/, handoff/]\n",
        project.dir()
    );
    let hooks = from_yaml(&yaml).unwrap();
    let turn = hooks.session("wg-yaml").begin_turn();
    assert!(
        turn.intercept_tool_call(call("write_file", json!({"path": "src/a.rs"})))
            .is_blocked()
    );
    assert!(
        !turn
            .intercept_tool_call(call("write_file", json!({"path": "plans/notes.md"})))
            .is_blocked()
    );
    // Write, not in blocked_tools here, goes through.
    assert!(
        !turn
            .intercept_tool_call(call("Write", json!({"file_path": "src/a.rs"})))
            .is_blocked()
    );

    let off = from_yaml(&format!(
        "extensions:\n  workflow-guard:\n    project_dir: {}\n",
        project.dir()
    ))
    .unwrap();
    assert!(!off.extension("workflow-guard").unwrap().is_enabled());

    let error = from_yaml(
        "extensions:\n  workflow-guard:\n    enabled: true\n    plan_path: plans/plan.md\n    blocked_tool: [write_file]\n",
    )
    .unwrap_err();
    assert!(
        error.starts_with("extension `workflow-guard` in ./hookchain.yaml line 5"),
        "{error}"
    );
    assert!(error.contains("unknown field `blocked_tool`"), "{error}");
    assert!(error.contains("blocked_tools"), "{error}");
}

#[test]
fn one_line_of_rust_enables_it_once() {
    let project = Workspace::new();
    let hooks = HooksBuilder::new()
        .builtin(project.guard())
        .builtin(project.guard())
        .build()
        .unwrap();
    for point in ["intercept_tool_call", "transform_user_input", "turn_start"] {
        let chain = hooks.chain_of(point);
        assert_eq!(
            chain
                .iter()
                .filter(|h| &*h.name == "workflow-guard")
                .count(),
            1,
            "{point}"
        );
    }
    assert!(hooks.extension("workflow-guard").unwrap().is_enabled());
}

// A program's own extension named like the built-in guard.
#[register_hook("intercept_tool_call", extension = "workflow-guard")]
fn my_own_plan_check(_call: &ToolCall, _cx: &HookContext) -> HookResult<Value> {
    HookResult::Pass
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct MyWorkflowConfig {
    plan: String,
}

#[test]
fn a_program_extension_of_the_same_name_is_an_error_naming_both() {
    let config = Config::from_yaml_str(
        "extensions:\n  workflow-guard:\n    enabled: true\n",
        "./hookchain.yaml",
    )
    .unwrap();
    let error = HooksBuilder::new()
        .collected_where(|h| h.name.ends_with("my_own_plan_check"))
        .config(config.clone())
        .build()
        .err()
        .unwrap_or_else(|| panic!("two owners of one extension"))
        .to_string();
    assert!(
        error.starts_with("extension `workflow-guard` is the built-in guard `workflow-guard`, and the hook `guards::workflow_guard::my_own_plan_check`"),
        "{error}"
    );
    assert!(error.contains("tests/guards/workflow_guard.rs:"), "{error}");
    assert!(
        error.contains("give your extension another name"),
        "{error}"
    );

    // A lenient build (as `hookchain::init()` does) reports it, to every session too.
    let (hooks, errors) = HooksBuilder::new()
        .collected_where(|h| h.name.ends_with("my_own_plan_check"))
        .config(config)
        .build_reporting();
    assert!(errors.iter().any(|e| e.to_string() == error), "{errors:?}");
    assert!(hooks.notices().iter().any(|n| n.message == error));

    // A config type of its own for the guard's name, from code: the same error.
    let error = HooksBuilder::new()
        .config_type::<MyWorkflowConfig>("workflow-guard")
        .builtin(WorkflowGuard::default())
        .build()
        .err()
        .unwrap_or_else(|| panic!("two config types for one extension"))
        .to_string();
    assert!(
        error.contains("the config type `guards::workflow_guard::MyWorkflowConfig`"),
        "{error}"
    );
    // A closure hook in the guard's extension under another name.
    let error = HooksBuilder::new()
        .builtin(WorkflowGuard::default())
        .hook_with(
            hookchain::points::InterceptToolCall,
            hookchain::HookOptions::new("mine").extension("workflow-guard"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .build()
        .err()
        .unwrap_or_else(|| panic!("a closure in the guard's extension"))
        .to_string();
    assert!(error.contains("the hook `mine`"), "{error}");
}

#[test]
fn hookchain_test_tries_it() {
    let project = Workspace::new();
    let config = project.root.join("hookchain.yaml");
    std::fs::write(
        &config,
        format!(
            "extensions:\n  workflow-guard:\n    enabled: true\n    project_dir: {}\n",
            project.dir()
        ),
    )
    .unwrap();
    let run = |event: &str, payload| hookchain_test(&project.root, &config, event, payload);
    let write = |path: &str| json!({"tool_name": "Write", "tool_input": {"file_path": path, "content": "x"}});
    let (code, output) = run("PreToolUse", write("src/login.rs"));
    assert_eq!(code, EXIT_BLOCKED, "{output}");
    assert!(
        output.contains("blocked by `workflow-guard`: `Write` would write `src/login.rs`"),
        "{output}"
    );
    let (code, output) = run("PreToolUse", write("plans/active/plan.md"));
    assert_eq!(code, EXIT_OK, "{output}");
    let (code, output) = run(
        "UserPromptSubmit",
        json!({"prompt": "implement user login"}),
    );
    assert_eq!(code, EXIT_OK, "{output}");
    assert!(
        output.contains("First write a plan to plans/active/plan.md"),
        "{output}"
    );
}

#[test]
fn a_fifo_at_the_plans_path_holds_writes_without_hanging_the_turn() {
    let project = Workspace::new();
    let plan = project.root.join("plans/active/plan.md");
    let made = std::process::Command::new("mkfifo").arg(&plan).status();
    if !made.is_ok_and(|s| s.success()) {
        println!("a_fifo_at_the_plans_path: skipped, no mkfifo");
        return;
    }
    let hooks = project.hooks(project.guard());
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let turn = hooks.session("wg-fifo").begin_turn();
        let blocked = turn
            .intercept_tool_call(call("write_file", json!({"path": "src/login.rs"})))
            .blocked()
            .map(|b| b.reason);
        let _ = send.send(blocked);
    });
    let reason = receive
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the tool call did not finish within 20 s")
        .expect("the write went through");
    assert!(
        reason.contains("it is a FIFO, not a regular file"),
        "{reason}"
    );
}
