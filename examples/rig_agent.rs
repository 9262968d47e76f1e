//! hookchain inside a rig agent: the whole integration is one `.add_hook(...)` line.
//!
//! A rig-agent agent with two tools (`shell` and `write_file`) runs on rig's scripted
//! completion wire — a deterministic model, no network — and the program's ordinary
//! `#[register_hook]` fns guard it:
//!
//! - `no_rm_rf` (`intercept_tool_call`) **blocks** `rm -rf`: the tool never runs, and the
//!   model reads the reason as the call's result;
//! - `sandbox_writes` (`intercept_tool_call`) **rewrites** every write into `sandbox/`;
//! - `require_plan` and `note_plan` keep **turn state** across the tool calls of one run: no
//!   write outside `plans/` until this run has written a plan;
//! - `tests_before_stop` is an **async stop gate** (`on_stop`): it awaits tokio, then sends the
//!   model back to work until its reply says the tests pass.
//!
//! Run it with `cargo run --example rig_agent --features rig`.

use std::time::Duration;

use hookchain::adapters::rig::HookchainHook;
use hookchain::adapters::rig::rig_agent::AgentBuilder;
use hookchain::adapters::rig::rig_agent::test_utils::{MockCompletionModel, MockTurn};
use hookchain::adapters::rig::rig_agent::tool::{Tool, ToolContext, ToolExecutionError};
use hookchain::points::{StopEvent, ToolResult, TurnEndEvent};
use hookchain::prelude::*;
use hookchain::{HookContext, Hooks};

// ---------------------------------------------------------------------------------------------
// The hooks: plain #[register_hook] fns, the same as for any other agent.
// ---------------------------------------------------------------------------------------------

/// Nothing deletes a tree.
#[register_hook("intercept_tool_call", priority = 0, on_error = "block")]
fn no_rm_rf(call: &ToolCall) -> HookResult<Value> {
    match call.str_arg("cmd") {
        Some(cmd) if cmd.contains("rm -rf") => {
            println!("  hook no_rm_rf: blocks `{cmd}`");
            HookResult::block("`rm -rf` is not allowed here; delete single files instead")
        }
        _ => HookResult::Pass,
    }
}

/// No write outside `plans/` until this run has written a plan.
#[register_hook("intercept_tool_call", priority = 10, on_error = "block")]
fn require_plan(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    let path = call.str_arg("path").unwrap_or_default();
    let planned = cx.turn_state().get::<bool>("plan_ok").unwrap_or(false);
    if call.name == "write_file" && !path.starts_with("plans/") && !planned {
        println!("  hook require_plan: blocks a write of {path}: no plan yet in this run");
        return HookResult::block("No plan yet: write plans/plan.md first");
    }
    HookResult::Pass
}

/// Every write goes into `sandbox/`.
#[register_hook("intercept_tool_call", priority = 20)]
fn sandbox_writes(call: &ToolCall) -> HookResult<Value> {
    match call.str_arg("path") {
        Some(path) if call.name == "write_file" && !path.starts_with("sandbox/") => {
            let mut args = call.args.clone();
            args["path"] = json!(format!("sandbox/{path}"));
            println!("  hook sandbox_writes: rewrites {path} to sandbox/{path}");
            HookResult::Rewrite(args)
        }
        _ => HookResult::Pass,
    }
}

/// Remembers, for the rest of the run, that a plan was written.
#[register_hook("after_tool_call")]
fn note_plan(result: &ToolResult, cx: &HookContext) {
    let path = result.tool_input["path"].as_str().unwrap_or_default();
    if result.tool_name == "write_file" && !result.is_error && path.contains("plans/") {
        println!("  hook note_plan: a plan exists in this run's state");
        cx.turn_state().set("plan_ok", true);
    }
}

/// The model may stop only once its reply says the tests pass. Async: it awaits tokio (as a
/// hook asking a CI server would) inside rig's own task.
#[register_hook("on_stop")]
async fn tests_before_stop(stop: &StopEvent) -> HookResult<String> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    if stop.response.contains("tests pass") {
        println!("  hook tests_before_stop: lets the model stop");
        HookResult::Pass
    } else {
        println!("  hook tests_before_stop: sends the model back: run the tests first");
        HookResult::block("Run the tests before you stop.")
    }
}

/// Reports how the run ended.
#[register_hook("turn_end")]
fn report(end: &TurnEndEvent) {
    println!(
        "  hook report: turn {} of {} ended: {}",
        end.turn, end.session_id, end.reason
    );
}

// ---------------------------------------------------------------------------------------------
// The agent: rig tools, rig's scripted model, and the one line that adds the hooks.
// ---------------------------------------------------------------------------------------------

/// `shell`: pretends to run a command.
struct Shell;

impl Tool for Shell {
    const NAME: &'static str = "shell";
    type Args = Value;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Runs a shell command".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]})
    }

    async fn call(&self, _: &mut ToolContext, args: Value) -> Result<String, ToolExecutionError> {
        println!("  tool shell runs {}", args["cmd"]);
        Ok("test result: ok. 12 passed".into())
    }
}

/// `write_file`: pretends to write a file.
struct WriteFile;

impl Tool for WriteFile {
    const NAME: &'static str = "write_file";
    type Args = Value;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Writes a file".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    }

    async fn call(&self, _: &mut ToolContext, args: Value) -> Result<String, ToolExecutionError> {
        println!("  tool write_file writes {}", args["path"]);
        Ok(format!("wrote {}", args["path"]))
    }
}

/// What the scripted model does, one model call after the other.
fn script() -> MockCompletionModel {
    MockCompletionModel::from_turns([
        MockTurn::tool_call("c1", "shell", json!({"cmd": "rm -rf target"})),
        MockTurn::tool_call("c2", "write_file", json!({"path": "src/login.rs"})),
        MockTurn::tool_call("c3", "write_file", json!({"path": "plans/plan.md"})),
        MockTurn::tool_call("c4", "write_file", json!({"path": "src/login.rs"})),
        MockTurn::text("Done."),
        MockTurn::tool_call("c5", "shell", json!({"cmd": "cargo test"})),
        MockTurn::text("Done, and the tests pass."),
    ])
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hooks = Hooks::global();
    let session = hooks.session_async("rig-demo").await;
    let model = script();

    let agent = AgentBuilder::new(model.clone())
        .preamble("You implement features.")
        .default_max_turns(10)
        .tool(Shell)
        .tool(WriteFile)
        .add_hook(HookchainHook::new(session.clone())) // the whole integration
        .build();

    println!("> implement login");
    let reply = agent.prompt("implement login").await?;

    println!("\nwhat the model read back from each call:");
    for request in model.requests().iter().skip(1) {
        if let Some(last) = request.chat_history.last() {
            println!("  {}", serde_json::to_string(last)?);
        }
    }
    println!("\n< {reply}");
    session.end_async("demo over").await;
    Ok(())
}
