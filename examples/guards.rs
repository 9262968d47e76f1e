//! The built-in guards at work in a scripted agent: the user's own `hookchain.yaml` enables most
//! of them (it names where they log and keep data, which only the user's file may say),
//! one line of Rust enables `destructive-commands`, and a scripted model's tool calls go through
//! them in a project directory of its own (a temporary one, removed at the end).
//!
//! What happens, in order:
//!
//! - `workflow-guard` rewrites "implement login" into a planning instruction (no plan yet);
//! - `module-router` refuses `rg TODO` at the root until the turn has read `ARCHITECTURE.md`;
//! - `workflow-guard` refuses a write to `src/login.rs` until `plans/active/plan.md` exists;
//! - `git-checkpoint` takes a snapshot before each write (in a shadow repository: the project's
//!   own `.git` is never touched);
//! - `protected-paths` refuses a write to `.git/config`; `destructive-commands` refuses
//!   `sudo rm -rf --no-preserve-root /` and lets `rm -rf ./build` through;
//! - `secrets` masks a key in a tool result;
//! - `stop-verifier` sends "all tests pass" back once, until the tests have run;
//! - `max-iterations` refuses the fifth model call of a turn;
//! - `audit-log` writes a line per tool call and `metrics` counts every dispatch.
//!
//! Run it with `cargo run --example guards`.

use std::path::{Path, PathBuf};

use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::guards::{BuiltinsExt, DestructiveCommands, GitCheckpoint, Metrics};
use hookchain::points::LlmCall;
use hookchain::prelude::*;
use hookchain::{Stop, TurnEnd};

/// The config, as the user's own `~/.config/hookchain/hookchain.yaml` would hold it (`{project}`
/// and `{state}` are the temporary directories). A project's `hookchain.yaml` could enable the
/// guards and tighten them, but not set `project_dir`, `routing_files`, a log path or a
/// checkpoint directory: the project rule (the guide's config chapter) keeps those the user's.
const CONFIG: &str = "\
extensions:
  workflow-guard:
    enabled: true
    project_dir: {project}
    plan_path: plans/active/plan.md
    required_headings: [\"## Steps\"]
  module-router:
    enabled: true
    project_dir: {project}
    routing_files: [ARCHITECTURE.md]
  protected-paths:
    enabled: true
    project_dir: {project}
    paths: [.git, hookchain.yaml]
  secrets:
    enabled: true
  git-checkpoint:
    enabled: true
    project_dir: {project}
    dir: {state}/checkpoints
  stop-verifier:
    enabled: true
  max-iterations:
    enabled: true
    max: 4
  audit-log:
    enabled: true
    path: {state}/audit.jsonl
  metrics:
    enabled: true
";

/// The scripted tools: they read and write the project directory.
fn tool(project: &Path, call: &ToolCall) -> Result<Value, String> {
    let path = |key: &str| project.join(call.str_arg(key).unwrap_or_default());
    match call.name.as_str() {
        "read_file" => std::fs::read_to_string(path("path"))
            .map(Value::String)
            .map_err(|e| e.to_string()),
        "write_file" => {
            let file = path("path");
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            let content = call.str_arg("content").unwrap_or_default();
            std::fs::write(&file, content).map_err(|e| e.to_string())?;
            Ok(json!(format!(
                "wrote {}",
                call.str_arg("path").unwrap_or_default()
            )))
        }
        "bash" => Ok(json!(format!(
            "$ {}\n(ran in the scripted shell: ok)",
            call.str_arg("command").unwrap_or_default()
        ))),
        other => Err(format!("no tool `{other}`")),
    }
}

/// Runs one scripted tool call through the guards and prints what came of it; an error when
/// it was not `expected` to be blocked and was, or the other way round.
fn run(turn: &Turn, project: &Path, name: &str, args: Value, blocked: bool) -> Result<(), String> {
    let call = ToolCall::new(name, args);
    let shown = match call.str_arg("command").or(call.str_arg("path")) {
        Some(what) => format!("{name} {what}"),
        None => name.to_owned(),
    };
    let run = turn.run_tool(call, |call| tool(project, call));
    match &run.blocked {
        Some(b) => println!("  {shown:<44} BLOCKED by {}", b.reason),
        None => println!("  {shown:<44} ran: {}", one_line(&run.result.tool_response)),
    }
    if run.blocked.is_some() != blocked {
        return Err(format!(
            "`{shown}` was expected to be {}",
            if blocked { "blocked" } else { "let through" }
        ));
    }
    Ok(())
}

/// Blocked, or let through.
const BLOCKED: bool = true;
const RUNS: bool = false;

fn one_line(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(70) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// A project directory with a git repository and the routing file.
fn project(root: &Path) -> PathBuf {
    let project = root.join("project");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("ARCHITECTURE.md"),
        "# Modules\n- src/auth: login and sessions\n",
    )
    .unwrap();
    std::fs::write(
        project.join(".env"),
        "AWS_ACCESS_KEY_ID=AKIAZ7Q3K2LMN4PQR5ST\n",
    )
    .unwrap();
    // A repository of its own, when git is here (git-checkpoint works without one too).
    let _ = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .status();
    project
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::temp_dir().join(format!("hookchain-guards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let project = project(&root);
    let state = root.join("state");
    let yaml = CONFIG
        .replace("{project}", &project.display().to_string())
        .replace("{state}", &state.display().to_string());
    let config = Config::from_user_yaml_str(&yaml, "~/.config/hookchain/hookchain.yaml")?;
    let hooks = Hooks::builder()
        .config(config)
        // One line of Rust enables a guard too.
        .builtin(DestructiveCommands::default())
        .build()?;

    let session = hooks.session("guards-demo");
    let turn = session.begin_turn();

    println!("> implement login with OAuth");
    let prompt = match turn.transform_user_input("implement login with OAuth") {
        Flow::Continue(text) => text,
        Flow::Blocked(blocked) => return Err(blocked.reason.into()),
    };
    println!("  the model is asked: {}", one_line(&json!(prompt)));
    if let Flow::Continue(event) = turn.turn_start(prompt.as_str()) {
        for context in &event.context {
            println!("  context for this turn: {}", one_line(&json!(context)));
        }
    }

    let model_call = || turn.before_llm_call(LlmCall::new("You implement features.", vec![]));
    let _ = model_call();
    // The model's tool calls, and whether the guards should block each.
    let steps = [
        ("bash", json!({"command": "rg TODO"}), BLOCKED),
        ("read_file", json!({"path": "ARCHITECTURE.md"}), RUNS),
        ("bash", json!({"command": "rg TODO"}), RUNS),
        (
            "write_file",
            json!({"path": "src/login.rs", "content": "pub fn login() {}\n"}),
            BLOCKED,
        ),
        (
            "write_file",
            json!({"path": "plans/active/plan.md", "content": "# Login\n## Steps\n1. OAuth\n"}),
            RUNS,
        ),
        (
            "write_file",
            json!({"path": "src/login.rs", "content": "pub fn login() {}\n"}),
            RUNS,
        ),
        (
            "write_file",
            json!({"path": ".git/config", "content": "[core]\n"}),
            BLOCKED,
        ),
        (
            "bash",
            json!({"command": "sudo rm -rf --no-preserve-root /"}),
            BLOCKED,
        ),
        ("bash", json!({"command": "rm -rf ./build"}), RUNS),
        ("read_file", json!({"path": ".env"}), RUNS),
    ];
    for (i, (name, args, blocked)) in steps.into_iter().enumerate() {
        if i == 4 {
            let _ = model_call();
        }
        run(&turn, &project, name, args, blocked)?;
    }

    let _ = model_call();
    let reply = "I wrote src/login.rs and all tests pass.";
    println!("  the model says: {reply}");
    match turn.on_stop(reply) {
        Stop::Redo { instruction, hook } => println!("  sent back by {hook}: {instruction}"),
        other => {
            return Err(format!("stop-verifier let an unverified claim through: {other:?}").into());
        }
    }
    run(
        &turn,
        &project,
        "bash",
        json!({"command": "cargo test"}),
        RUNS,
    )?;
    let _ = model_call();
    match turn.on_stop(reply) {
        Stop::Finish(reply) => println!("  the turn ends with: {reply}"),
        other => return Err(format!("stop-verifier sent a verified claim back: {other:?}").into()),
    }
    match model_call() {
        Flow::Blocked(blocked) => println!("  a fifth model call: BLOCKED by {}", blocked.reason),
        Flow::Continue(_) => return Err("max-iterations let a fifth model call through".into()),
    }
    turn.end(TurnEnd::Normal);

    let audit = std::fs::read_to_string(state.join("audit.jsonl")).unwrap_or_default();
    println!(
        "\naudit-log: {} lines in {}",
        audit.lines().count(),
        state.join("audit.jsonl").display()
    );
    if let Some(counts) = Metrics::snapshot(&hooks) {
        println!(
            "metrics: {} dispatches; tools {:?}",
            counts.dispatches, counts.tools
        );
    }
    let checkpoints = GitCheckpoint {
        project_dir: Some(project.display().to_string()),
        dir: Some(state.join("checkpoints").display().to_string()),
        ..GitCheckpoint::default()
    }
    .list(&project)
    .unwrap_or_default();
    println!(
        "git-checkpoint: {} checkpoints of the project",
        checkpoints.len()
    );
    for c in checkpoints.iter().take(3) {
        println!("  {} {}", c.id.get(..8).unwrap_or(&c.id), c.summary);
    }
    session.end("done");
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}
