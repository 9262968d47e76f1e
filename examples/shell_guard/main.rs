//! Shell guard: hooks written for Claude Code, run unchanged by a Rust agent, in one chain with
//! its compiled-in hooks.
//!
//! A scripted agent (a deterministic fake model and fake tools, no network) works in a scratch
//! project in a temporary directory. Its hooks come from two places:
//!
//! - `examples/shell_guard/hookchain.yaml` configures two bash scripts, both written in Claude
//!   Code's JSON dialect (not the exit-2 style):
//!   - `block_rm_rf.sh` on `PreToolUse` (hookchain's `intercept_tool_call`) for `shell` calls,
//!     priority 10, `on_error: block`: it answers `permissionDecision: "deny"` with a reason when
//!     the command is an `rm -rf`;
//!   - `auto_format.sh` on `PostToolUse` (`transform_tool_result`) for `write_file`, priority
//!     10, `on_error: warn`: it formats the file just written (tabs, trailing whitespace, final
//!     newline) and tells the model so with `additionalContext`.
//! - A compiled-in `#[register_hook]` audit hook at priority 5 on `intercept_tool_call` — in the
//!   same chain as the script, and before it — logs every tool call to the turn state (which the
//!   scripts receive in their payload), and a `turn_end` hook prints the log.
//!
//! The agent runs `ls`, then `rm -rf /` (blocked by the script, whose reason the model gets as
//! the tool's error), then writes a badly indented file that the format hook fixes on disk.
//! The fake `shell` tool never runs anything: it only knows `ls`.
//!
//! Consent: hooks from a config file run only once approved. This example approves its own two
//! scripts in code, with [`HooksBuilder::accept_hooks`] (what `--accept-hooks` does), and keeps
//! the approvals in memory (`Consent::in_memory()`), so it runs without a prompt on a fresh
//! machine and writes nothing under `~/.config/hookchain/`. An agent of yours should let its
//! user approve hooks instead (`hookchain approve`, `HOOKCHAIN_ACCEPT_HOOKS=1`, or the prompt).
//!
//! Run it with `cargo run --example shell_guard`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hookchain::config::Config;
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::points::{InterceptToolCall, TransformToolResult};
use hookchain::points::{ToolResult, TurnEndEvent};
use hookchain::{HookContext, prelude::*};
use hookchain::{HooksBuilder, Outcome};

// ---------------------------------------------------------------------------------------------
// The compiled-in hooks.
// ---------------------------------------------------------------------------------------------

/// Logs every tool call the model asks for, before any guard sees it.
#[register_hook(
    "intercept_tool_call",
    priority = 5,
    name = "audit",
    extension = "shell-guard"
)]
fn audit(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    let entry = format!("{} {}", call.name, call.args);
    let count = cx
        .turn_state()
        .update("audit", |log: &mut Vec<String>| {
            log.push(entry);
            log.len()
        })
        .unwrap_or_default();
    println!("  · audit (priority 5, Rust) logged call #{count}");
    HookResult::Pass
}

/// Prints the audit log when the turn ends; the turn state is cleared right after.
#[register_hook("turn_end", name = "audit-report", extension = "shell-guard")]
fn audit_report(event: &TurnEndEvent, cx: &HookContext) {
    let log: Vec<String> = cx.turn_state().get("audit").unwrap_or_default();
    println!(
        "  turn_end  turn {} ended ({}); audit-report: {} tool call(s) asked for:",
        event.turn + 1,
        event.reason,
        log.len()
    );
    for (i, entry) in log.iter().enumerate() {
        println!("            {}. {entry}", i + 1);
    }
}

// ---------------------------------------------------------------------------------------------
// The agent: a fake model that follows a script, fake tools over a scratch project.
// ---------------------------------------------------------------------------------------------

/// A scratch project in a temporary directory, the agent's current directory while it lives
/// (so hooks run in it and get it as `HOOKCHAIN_PROJECT_DIR`). Dropping it goes back to the
/// directory the example started in and removes the project.
struct Project {
    dir: PathBuf,
    started_in: PathBuf,
}

impl Project {
    fn create() -> std::io::Result<Project> {
        let dir =
            std::env::temp_dir().join(format!("hookchain-shell-guard-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src"))?;
        std::fs::write(dir.join("README.md"), "# greeter\n")?;
        let started_in = std::env::current_dir()?;
        std::env::set_current_dir(&dir)?;
        Ok(Project { dir, started_in })
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.join(path)).unwrap_or_default()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::env::set_current_dir(&self.started_in);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs a tool call the hooks let through. `shell` is fake: it answers `ls` and runs nothing.
fn run_tool(project: &Path, call: &ToolCall) -> Result<Value, String> {
    match call.name.as_str() {
        "shell" => match call.str_arg("cmd") {
            Some("ls") => {
                let mut names: Vec<String> = std::fs::read_dir(project)
                    .map_err(|e| e.to_string())?
                    .filter_map(|entry| entry.ok())
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .collect();
                names.sort();
                Ok(Value::from(names.join(" ")))
            }
            other => Err(format!(
                "this example's shell only runs `ls`, not {other:?}"
            )),
        },
        "write_file" => {
            let path = call.str_arg("path").unwrap_or_default();
            let content = call.str_arg("content").unwrap_or_default();
            std::fs::write(project.join(path), content).map_err(|e| e.to_string())?;
            Ok(Value::from(format!(
                "wrote {} bytes to {path}",
                content.len()
            )))
        }
        other => Err(format!("unknown tool {other}")),
    }
}

/// One scripted model step: a tool call, or the final reply.
enum Step {
    Tool(&'static str, Value),
    Reply(&'static str),
}

/// The fake model's script.
fn script() -> Vec<Step> {
    vec![
        Step::Tool("shell", json!({"cmd": "ls"})),
        Step::Tool("shell", json!({"cmd": "rm -rf /"})),
        Step::Tool(
            "write_file",
            json!({
                "path": "src/greet.rs",
                "content": "pub fn greet(name: &str) -> String {  \n\tformat!(\"Hello, {name}!\")\n}",
            }),
        ),
        Step::Reply("Cleaned nothing (rm -rf is not allowed here) and added src/greet.rs."),
    ]
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
    for warning in &outcome.warnings {
        println!("  ! warning: {warning}");
    }
}

fn run_turn(session: &Session, project: &Project, user_text: &str) {
    let turn = session.begin_turn();
    println!("\n── turn {} {}", turn.index() + 1, "─".repeat(60));
    println!("user      › {user_text}");
    for step in script() {
        let (name, args) = match step {
            Step::Reply(text) => {
                println!("model     › {text}");
                break;
            }
            Step::Tool(name, args) => (name, args),
        };
        println!("model     › {name} {args}");
        let intercepted = turn.fire::<InterceptToolCall>(ToolCall::new(name, args));
        show_decision(&intercepted);
        let call = match intercepted.flow {
            Flow::Continue(call) => call,
            Flow::Blocked(b) => {
                // The model gets the reason as the tool's error and can correct course.
                println!("tool      › error: {}", b.reason);
                continue;
            }
        };
        let result = ToolResult::new(&call, run_tool(&project.dir, &call));
        match &result.tool_response {
            Value::String(text) if result.is_error => println!("tool      › error: {text}"),
            Value::String(text) => println!("tool      › {text}"),
            other => println!("tool      › {other}"),
        }
        let transformed = turn.fire::<TransformToolResult>(result);
        if !transformed.context.is_empty() || !transformed.rewritten_by.is_empty() {
            let chain: Vec<&str> = session
                .hooks()
                .chain_of("transform_tool_result")
                .iter()
                .map(|hook| &*hook.name)
                .collect();
            println!("  transform_tool_result (chain: {}):", chain.join(", "));
        }
        // The model gets the result with this context after it.
        for text in &transformed.context {
            println!("  + context for the model: {text}");
        }
        if let Flow::Blocked(b) = &transformed.flow {
            println!("  ✗ result blocked by {}: {}", b.hook, b.reason);
        }
    }
    turn.end(TurnEnd::Normal);
}

fn main() -> ExitCode {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/shell_guard/hookchain.yaml"
    );
    // A mistake in the file (an unknown point or key, a script that is missing or not
    // executable) stops the agent before it starts, naming the file and the line.
    let config = match Config::load(path) {
        Ok(config) => config,
        Err(e) => return fail(&e),
    };
    println!(
        "consent: this example approves its own scripts (HooksBuilder::accept_hooks, what \
         --accept-hooks does) and keeps the approval in memory, so it runs without a prompt and \
         writes nothing to ~/.config/hookchain; your agent should let its user approve hooks."
    );
    let hooks = match HooksBuilder::new()
        .collected()
        .config(config)
        .consent(Consent::in_memory(), ConsentPolicy::new())
        .accept_hooks(true)
        .build()
    {
        Ok(hooks) => hooks,
        Err(e) => return fail(&e),
    };
    for admitted in &hooks.consent_report().admitted {
        println!(
            "  approved {} on {} (by {})",
            admitted.name, admitted.point, admitted.accepted_by
        );
    }
    println!("\n{}", hooks.describe());

    let project = match Project::create() {
        Ok(project) => project,
        Err(e) => return fail(&format!("cannot create the scratch project: {e}")),
    };
    let session = hooks.session("shell-guard-demo");
    run_turn(
        &session,
        &project,
        "clean up the project, then add a greeting function",
    );
    println!(
        "\nsrc/greet.rs on disk after the turn:\n{}",
        project.read("src/greet.rs")
    );
    ExitCode::SUCCESS
}

fn fail(error: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::FAILURE
}
