//! Plan before implement, enforced by hooks.
//!
//! A scripted agent (a deterministic fake model and fake tools over a temporary workspace, no
//! network) is asked twice to "implement user login". Two extensions keep it honest:
//!
//! - `workflow-guard`, hookchain's built-in guard, enabled and configured by
//!   `examples/workflow_guard.yaml` (no Rust code of its own):
//!   - `transform_user_input`: while no valid plan exists, "implement X" becomes
//!     "/start-feature implement X", so the request enters the planning workflow;
//!   - `turn_start`: tells the model whether a valid plan exists;
//!   - `intercept_tool_call`: blocks write/edit/patch outside `plans/` and `handoff/` until the
//!     plan exists (with a `## Steps` section), then lets them through;
//! - `read-before-edit`, the agent's own `#[register_hook]` hooks next to it, with a typed
//!   config of their own (`cx.config::<ReadBeforeEditConfig>()`, from the same file):
//!   - `intercept_tool_call`: records every file the turn reads (per-turn state), and blocks an
//!     edit of a file the turn has not read;
//!   - `turn_end` reports what the turn read; the turn state is cleared right after.
//!
//! Both sections of the config file are checked before the agent starts: a misspelt field
//! stops it with the file, the line and the field.
//!
//! Every decision in the transcript names the hook that made it and says why.
//!
//! Run it with `cargo run --example workflow_guard`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use hookchain::config::Config;
use hookchain::points::TurnEndEvent;
use hookchain::points::{InterceptToolCall, TransformUserInput};
use hookchain::{ConfigError, HooksBuilder, Outcome};
use hookchain::{HookContext, points::Message, prelude::*};
use serde::Deserialize;

// ---------------------------------------------------------------------------------------------
// The agent's own hooks, beside the built-in guard.
// ---------------------------------------------------------------------------------------------

/// The `read-before-edit` section of the config.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadBeforeEditConfig {
    /// The tools that read a file.
    read_tools: Vec<String>,
    /// The tools that edit a file, which must read it first.
    edit_tools: Vec<String>,
}

hookchain::extension_config!("read-before-edit", ReadBeforeEditConfig);

/// Records every file the turn reads, for the hooks after it and for `turn_end`.
#[register_hook("intercept_tool_call", priority = 0, extension = "read-before-edit")]
fn record_reads(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<ReadBeforeEditConfig>()?;
    if config.read_tools.contains(&call.name)
        && let Some(path) = call.str_arg("path")
    {
        let path = path.to_owned();
        let _ = cx
            .turn_state()
            .update("read", |read: &mut Vec<String>| read.push(path));
    }
    Ok(HookResult::Pass)
}

/// An edit must follow a read of the same file in the same turn. Fails closed: if this hook
/// breaks, edits are blocked, not waved through.
#[register_hook(
    "intercept_tool_call",
    priority = 20,
    extension = "read-before-edit",
    on_error = "block"
)]
fn read_before_edit(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<ReadBeforeEditConfig>()?;
    if !config.edit_tools.contains(&call.name) {
        return Ok(HookResult::Pass);
    }
    let path = call.str_arg("path").unwrap_or_default();
    let read: Vec<String> = cx.turn_state().get("read").unwrap_or_default();
    Ok(if read.iter().any(|p| p == path) {
        HookResult::Pass
    } else {
        HookResult::block(format!("Read {path} in this turn before editing it."))
    })
}

/// Reports what the turn read; the turn state is cleared right after.
#[register_hook("turn_end", extension = "read-before-edit")]
fn report_reads(event: &TurnEndEvent, cx: &HookContext) {
    let read: Vec<String> = cx.turn_state().get("read").unwrap_or_default();
    println!(
        "  turn_end  turn {} ended ({}); it read: {}",
        event.turn + 1,
        event.reason,
        if read.is_empty() {
            "nothing".to_owned()
        } else {
            read.join(", ")
        }
    );
}

// ---------------------------------------------------------------------------------------------
// The agent: a fake model that follows a script, fake tools over an in-memory workspace.
// ---------------------------------------------------------------------------------------------

mod workspace {
    use super::*;

    static ROOT: OnceLock<PathBuf> = OnceLock::new();

    /// The workspace: a fresh temporary directory with a small web shop in it.
    pub fn root() -> &'static Path {
        ROOT.get_or_init(|| {
            let root = std::env::temp_dir()
                .join(format!("hookchain-workflow-demo-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            std::fs::create_dir_all(root.join("src")).expect("a temporary directory");
            std::fs::write(root.join("README.md"), "# shop\nA small web shop.\n").unwrap();
            std::fs::write(
                root.join("src/main.rs"),
                "fn main() {\n    shop::serve();\n}\n",
            )
            .unwrap();
            root
        })
    }

    pub fn read(path: &str) -> Option<String> {
        std::fs::read_to_string(root().join(path)).ok()
    }

    /// Runs a tool call the hooks let through.
    pub fn run(call: &ToolCall) -> String {
        let path = call.str_arg("path").unwrap_or_default().to_owned();
        let file = root().join(&path);
        match call.name.as_str() {
            "read_file" => match read(&path) {
                Some(text) => format!("{} bytes", text.len()),
                None => format!("error: {path} does not exist"),
            },
            "write_file" => {
                let content = call.str_arg("content").unwrap_or_default();
                if let Some(dir) = file.parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                match std::fs::write(&file, content) {
                    Ok(()) => format!("wrote {} bytes to {path}", content.len()),
                    Err(e) => format!("error: {e}"),
                }
            }
            "edit_file" => match read(&path) {
                Some(text) => {
                    let text = text + call.str_arg("append").unwrap_or_default();
                    match std::fs::write(&file, text) {
                        Ok(()) => format!("edited {path}"),
                        Err(e) => format!("error: {e}"),
                    }
                }
                None => format!("error: {path} does not exist"),
            },
            other => format!("error: unknown tool {other}"),
        }
    }

    /// Removes the workspace.
    pub fn remove() {
        let _ = std::fs::remove_dir_all(root());
    }
}

/// One scripted model step: a tool call, or the final reply.
enum Step {
    Tool(&'static str, Value),
    Reply(&'static str),
}

/// The fake model's script, one list of steps per turn.
fn script(turn: u64) -> Vec<Step> {
    use Step::*;
    match turn {
        0 => vec![
            Tool(
                "write_file",
                json!({"path": "src/login.rs", "content": "pub fn login() {}\n"}),
            ),
            Tool("read_file", json!({"path": "README.md"})),
            Tool(
                "write_file",
                json!({"path": "plans/active/plan.md", "content": "# Plan: user login\n## Steps\n1. src/login.rs\n2. wire it into src/main.rs\n"}),
            ),
            Reply("I wrote a plan in plans/active/plan.md; ask me again to implement it."),
        ],
        _ => vec![
            Tool(
                "write_file",
                json!({"path": "src/login.rs", "content": "pub fn login() {}\n"}),
            ),
            Tool(
                "edit_file",
                json!({"path": "src/main.rs", "append": "mod login;\n"}),
            ),
            Tool("read_file", json!({"path": "src/main.rs"})),
            Tool(
                "edit_file",
                json!({"path": "src/main.rs", "append": "mod login;\n"}),
            ),
            Reply("Login is implemented: src/login.rs, wired into src/main.rs."),
        ],
    }
}

/// Prints which hook decided what about a dispatch.
fn show_decision<T>(outcome: &Outcome<T>) {
    match &outcome.flow {
        Flow::Blocked(b) => println!("  ✗ blocked by {}: {}", b.hook, reason(b)),
        Flow::Continue(_) if outcome.rewritten_by.is_empty() => {
            println!("  ✓ allowed: every hook passed")
        }
        Flow::Continue(_) => println!("  ↻ rewritten by {}", outcome.rewritten_by.join(", ")),
    }
}

fn run_turn(session: &Session, user_text: &str) {
    let turn = session.begin_turn();
    println!("\n── turn {} {}", turn.index() + 1, "─".repeat(60));
    println!("user      › {user_text}");

    let input = turn.fire::<TransformUserInput>(user_text.to_owned());
    show_decision(&input);
    let prompt = match input.flow {
        Flow::Continue(prompt) => prompt,
        Flow::Blocked(b) => {
            println!("agent     › {}", b.reason);
            return turn.end(TurnEnd::Blocked);
        }
    };
    if prompt != user_text {
        println!("            now reads: {prompt:?}");
    }

    // The turn's context: what the hooks tell the model for this turn.
    let start = turn.turn_start(prompt.as_str());
    let context = match start {
        Flow::Continue(start) => start.context,
        Flow::Blocked(b) => {
            println!("  ✗ turn blocked by {}: {}", b.hook, reason(&b));
            return turn.end(TurnEnd::Blocked);
        }
    };
    for line in &context {
        println!("context   › {line}");
    }

    let mut messages = vec![Message::user(prompt)];
    for step in script(turn.index()) {
        // The fake model reads the context with every call; it follows its script regardless.
        let _call = LlmCall::new(
            format!("You are a careful coding agent.\n\n{}", context.join("\n")),
            messages.clone(),
        );
        match step {
            Step::Reply(text) => {
                println!("model     › {text}");
                break;
            }
            Step::Tool(name, args) => {
                println!("model     › {name} {args}");
                let outcome = turn.fire::<InterceptToolCall>(ToolCall::new(name, args));
                show_decision(&outcome);
                let result = match outcome.flow {
                    Flow::Continue(call) => workspace::run(&call),
                    // The model sees the reason as the tool's error and can correct course.
                    Flow::Blocked(b) => format!("error: {}", b.reason),
                };
                println!("tool      › {result}");
                messages.push(Message::tool(result));
            }
        }
    }
    turn.end(TurnEnd::Normal);
}

fn main() -> ExitCode {
    // The guards' settings; a mistake in them stops the agent before it starts, naming the file,
    // the line and the field. The workspace's directory is set from code, over the file.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/workflow_guard.yaml");
    let project = workspace::root().display().to_string();
    let here = Config::new().extension("workflow-guard", json!({ "project_dir": project }));
    let hooks = match Config::load(path).map(|config| {
        HooksBuilder::new()
            .collected()
            .config(config.merge(here))
            .build()
    }) {
        Ok(Ok(hooks)) => hooks,
        Ok(Err(e)) => return fail(&e),
        Err(e) => return fail(&e),
    };
    println!("{}", hooks.describe());

    let session = hooks.session("workflow-guard-demo");
    run_turn(&session, "implement user login");
    run_turn(&session, "implement user login");
    println!(
        "\nplans/active/plan.md: {} bytes; src/main.rs now:\n{}",
        workspace::read("plans/active/plan.md").map_or(0, |p| p.len()),
        workspace::read("src/main.rs").unwrap_or_default()
    );
    workspace::remove();
    ExitCode::SUCCESS
}

fn fail(error: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::FAILURE
}

/// The reason of a block without the hook's name in front: a built-in guard's reason begins with
/// its name, for the model, which sees only the reason.
fn reason(blocked: &hookchain::Blocked) -> &str {
    blocked
        .reason
        .strip_prefix(blocked.hook.as_str())
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(&blocked.reason)
}
