//! Plan before implement, enforced by hooks.
//!
//! A scripted agent (a deterministic fake model and fake tools over an in-memory workspace, no
//! network) is asked twice to "implement user login". Four compiled-in hooks keep it honest:
//!
//! - `transform_user_input`: while no plan exists, "implement X" becomes "/start-feature
//!   implement X", so the request enters the planning workflow;
//! - `before_llm_call`: injects "No valid plan exists. Create one before implementing." or, once
//!   a plan exists, the implementation guardrails;
//! - `intercept_tool_call`: blocks write/edit/patch outside `plans/` and `handoff/` until the plan
//!   exists, then lets them through; and blocks an edit of a file the turn has not read;
//! - per-turn state records what the turn has read, and `turn_end` reports it.
//!
//! The guard's settings — the plan's path, the tools that write, the paths open before a plan
//! exists — come from `examples/workflow_guard.yaml`, read into a typed config
//! (`cx.config::<WorkflowGuardConfig>()`) and checked before the agent starts.
//!
//! Every decision in the transcript names the hook that made it and says why.
//!
//! Run it with `cargo run --example workflow_guard`.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::{LazyLock, Mutex};

use hookchain::config::Config;
use hookchain::points::TurnEndEvent;
use hookchain::points::{BeforeLlmCall, InterceptToolCall, TransformUserInput};
use hookchain::{ConfigError, HooksBuilder, Outcome};
use hookchain::{HookContext, points::Message, prelude::*};
use serde::Deserialize;

// ---------------------------------------------------------------------------------------------
// The hooks.
// ---------------------------------------------------------------------------------------------

/// The `workflow-guard` section of the config.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkflowGuardConfig {
    /// Where the plan lives.
    plan_path: String,
    /// The tools that change files.
    blocked_tools: Vec<String>,
    /// Where those tools may write before a plan exists.
    allowed_paths: Vec<String>,
}

hookchain::extension_config!("workflow-guard", WorkflowGuardConfig);

/// A plan is valid when it exists and lists its steps.
fn plan_exists(config: &WorkflowGuardConfig) -> bool {
    workspace::read(&config.plan_path).is_some_and(|text| text.contains("## Steps"))
}

/// While no plan exists, an "implement ..." request enters the planning workflow.
#[register_hook("transform_user_input", priority = 10, extension = "workflow-guard")]
fn route_to_start_feature(text: &str, cx: &HookContext) -> Result<HookResult<String>, ConfigError> {
    let config = cx.config::<WorkflowGuardConfig>()?;
    let asks_to_implement = text.trim_start().to_lowercase().starts_with("implement");
    if asks_to_implement && !plan_exists(&config) {
        return Ok(HookResult::Rewrite(format!("/start-feature {text}")));
    }
    Ok(HookResult::Pass)
}

/// Tells the model where it stands before every model call.
#[register_hook("before_llm_call", priority = 10, extension = "workflow-guard")]
fn plan_guardrails(
    _call: &LlmCall,
    cx: &HookContext,
) -> Result<HookResult<Injection>, ConfigError> {
    let config = cx.config::<WorkflowGuardConfig>()?;
    Ok(if plan_exists(&config) {
        HookResult::inject_system("Guardrails: follow the plan step by step; read before you edit.")
    } else {
        HookResult::inject_system("No valid plan exists. Create one before implementing.")
    })
}

/// Records every file the turn reads, for the hooks after it and for `turn_end`.
#[register_hook("intercept_tool_call", priority = 0, extension = "workflow-guard")]
fn record_reads(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    if call.name == "read_file"
        && let Some(path) = call.str_arg("path")
    {
        let path = path.to_owned();
        let _ = cx
            .turn_state()
            .update("read", |read: &mut Vec<String>| read.push(path));
    }
    HookResult::Pass
}

/// No writes outside plans/ and handoff/ until a valid plan exists. Fails closed: if this guard
/// breaks, writes are blocked, not waved through.
#[register_hook(
    "intercept_tool_call",
    priority = 10,
    extension = "workflow-guard",
    on_error = "block"
)]
fn require_plan(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<WorkflowGuardConfig>()?;
    let writes = config.blocked_tools.contains(&call.name);
    let path = call.str_arg("path").unwrap_or_default();
    let exempt = config
        .allowed_paths
        .iter()
        .any(|p| path.starts_with(p.as_str()));
    if writes && !exempt && !plan_exists(&config) {
        return Ok(HookResult::block(format!(
            "No valid plan exists: write {} (with a `## Steps` section) before changing {path}.",
            config.plan_path
        )));
    }
    Ok(HookResult::Pass)
}

/// An edit must follow a read of the same file in the same turn.
#[register_hook("intercept_tool_call", priority = 20, extension = "workflow-guard")]
fn read_before_edit(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    if call.name != "edit_file" {
        return HookResult::Pass;
    }
    let path = call.str_arg("path").unwrap_or_default();
    let read: Vec<String> = cx.turn_state().get("read").unwrap_or_default();
    if read.iter().any(|p| p == path) {
        HookResult::Pass
    } else {
        HookResult::block(format!("Read {path} in this turn before editing it."))
    }
}

/// Reports what the turn read; the turn state is cleared right after.
#[register_hook("turn_end", extension = "workflow-guard")]
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

    static FILES: LazyLock<Mutex<BTreeMap<String, String>>> = LazyLock::new(|| {
        Mutex::new(BTreeMap::from([
            (
                "README.md".to_owned(),
                "# shop\nA small web shop.\n".to_owned(),
            ),
            (
                "src/main.rs".to_owned(),
                "fn main() {\n    shop::serve();\n}\n".to_owned(),
            ),
        ]))
    });

    pub fn read(path: &str) -> Option<String> {
        FILES.lock().unwrap().get(path).cloned()
    }

    /// Runs a tool call the hooks let through.
    pub fn run(call: &ToolCall) -> String {
        let path = call.str_arg("path").unwrap_or_default().to_owned();
        let mut files = FILES.lock().unwrap();
        match call.name.as_str() {
            "read_file" => match files.get(&path) {
                Some(text) => format!("{} bytes", text.len()),
                None => format!("error: {path} does not exist"),
            },
            "write_file" => {
                let content = call.str_arg("content").unwrap_or_default().to_owned();
                let len = content.len();
                files.insert(path.clone(), content);
                format!("wrote {len} bytes to {path}")
            }
            "edit_file" => match files.get_mut(&path) {
                Some(text) => {
                    text.push_str(call.str_arg("append").unwrap_or_default());
                    format!("edited {path}")
                }
                None => format!("error: {path} does not exist"),
            },
            other => format!("error: unknown tool {other}"),
        }
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
        Flow::Blocked(b) => println!("  ✗ blocked by {}: {}", b.hook, b.reason),
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

    let mut messages = vec![Message::user(prompt)];
    for step in script(turn.index()) {
        let call = LlmCall::new("You are a careful coding agent.", messages.clone());
        let llm = turn.fire::<BeforeLlmCall>(call);
        let call = match llm.flow {
            Flow::Continue(call) => call,
            Flow::Blocked(b) => {
                println!("  ✗ model call blocked by {}: {}", b.hook, b.reason);
                return turn.end(TurnEnd::Blocked);
            }
        };
        let injected = call
            .system_prompt
            .split("\n\n")
            .skip(1)
            .collect::<Vec<_>>()
            .join(" / ");
        println!(
            "llm call  › {} injected {injected:?}",
            llm.rewritten_by.join(", ")
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
    // The guard's settings; a mistake in them stops the agent before it starts, naming the file,
    // the line and the field.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/workflow_guard.yaml");
    let hooks = match Config::load(path)
        .map(|config| HooksBuilder::new().collected().config(config).build())
    {
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
    ExitCode::SUCCESS
}

fn fail(error: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::FAILURE
}
