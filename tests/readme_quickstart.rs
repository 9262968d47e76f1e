//! The README's quickstart, compiled and run: its Rust blocks stand in this file as they
//! stand in the README (a test checks they are still the same), with the few fns they call.

use hookchain::{HookContext, prelude::*};

/// Plan before implement: no writes outside plans/ until a plan exists.
#[rustfmt::skip]
#[register_hook("intercept_tool_call", priority = 10, on_error = "block")]
fn require_plan(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    let plan_ok = get_turn_state(cx.session_id()).get::<bool>("plan_ok").unwrap_or(false);
    if call.name == "write_file" && !plan_ok {
        return HookResult::block("No valid plan yet: write plans/active/plan.md first");
    }
    HookResult::Pass
}

fn reply(reason: String) -> String {
    reason
}

fn run(call: ToolCall) {
    assert_eq!(call.name, "shell");
}

fn tool_error(reason: String) {
    panic!("`ls` is not blocked: {reason}");
}

#[rustfmt::skip]
#[allow(unused_variables)]
fn agent_loop(user_text: String) -> String {
    let hooks = Hooks::global();            // every #[register_hook] of the program
    let session = hooks.session("sess-1");
    let turn = session.begin_turn();        // a fresh, empty turn state
    let text = match turn.transform_user_input(user_text) {
        Flow::Continue(text) => text,       // possibly rewritten
        Flow::Blocked(b) => return reply(b.reason),
    };
    match turn.intercept_tool_call(ToolCall::new("shell", json!({"cmd": "ls"}))) {
        Flow::Continue(call) => run(call),  // possibly rewritten args
        Flow::Blocked(b) => tool_error(b.reason), // the model sees the reason and the hook's name
    }
    turn.end(TurnEnd::Normal);              // fires turn_end, clears the turn state, on every clone
    "done".to_owned()
}

/// The README's wildcard hooks, collected with the others: `the_quickstart_runs` dispatches
/// through them.
#[rustfmt::skip]
#[allow(unused_variables)]
mod wildcard_example {
use hookchain::{DispatchEvent, HookContext, register_hook};

#[register_hook("*")]
fn audit(ev: &DispatchEvent, _cx: &HookContext) {
    tracing::info!(point = ev.point, decision = %ev.decision, hook = ?ev.hook, "dispatched");
}

#[register_hook("after_*", priority = 5)]
fn after(ev: &DispatchEvent) -> Result<(), String> { Ok(()) }
}

/// The README's `hookchain::init()` example, compiled (a test cannot install the global registry
/// of the other tests).
#[rustfmt::skip]
#[allow(dead_code)]
mod init_example {
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let report = hookchain::init()?;   // ./hookchain.yaml over ~/.config/hookchain/hookchain.yaml
    eprint!("{report}");              // the files read, the hooks that run, the ones skipped and why
    // ... Hooks::global() now has the configured hooks too
    Ok(())
}
}

#[test]
fn the_quickstart_runs() {
    assert_eq!(agent_loop("hello".to_owned()), "done");
    let session = Hooks::global().session("sess-2");
    let turn = session.begin_turn();
    let blocked = turn.intercept_tool_call(ToolCall::new("write_file", json!({"path": "a.rs"})));
    assert!(blocked.is_blocked());
    turn.end(TurnEnd::Normal);
    let patterns: Vec<&str> = Hooks::global()
        .chain_of("*")
        .iter()
        .map(|h| h.point)
        .collect();
    assert_eq!(patterns, ["*"]);
}

/// Every line of the README's quickstart blocks is in this file, in order, indented or not.
#[test]
fn the_quickstart_is_the_readmes() {
    let readme = include_str!("../README.md");
    let start = readme
        .find("## Quickstart")
        .expect("the README has a quickstart");
    let end = start
        + readme[start..]
            .find("\n## ")
            .unwrap_or(readme.len() - start);
    let quickstart = &readme[start..end];
    let this: Vec<&str> = include_str!("readme_quickstart.rs")
        .lines()
        .map(str::trim)
        .filter(|line| *line != "#[rustfmt::skip]")
        .collect();
    let mut blocks = 0;
    for block in quickstart.split("```rust\n").skip(1) {
        let code = block.split("```").next().unwrap();
        let lines: Vec<&str> = code.lines().map(str::trim).collect();
        let found = this
            .windows(lines.len())
            .any(|window| window == lines.as_slice());
        assert!(
            found,
            "the README's block is not in this file as it is:\n{code}"
        );
        blocks += 1;
    }
    assert_eq!(blocks, 4);
}
