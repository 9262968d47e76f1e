//! Instructions per dispatch, for callgrind: `scripts/callgrind_dispatch.sh` runs this binary
//! under `valgrind --tool=callgrind` twice per variant, with two iteration counts, and divides
//! the difference in instructions by the difference in iterations — so the set-up (building the
//! registry, starting the session) cancels out and the figure is the same on every run, however
//! busy the machine.
//!
//! `dispatch_instructions VARIANT N` dispatches N tool calls:
//!
//! - `turn`: through `turn.intercept_tool_call(call)`, a chain of ten trivial pass-through
//!   `#[register_hook]` fns;
//! - `pointers`: the same ten fns through a `black_box`ed slice of fn pointers — the limit for
//!   any registry;
//! - `empty`: through `turn.transform_response(String::new())`, a point with no hooks;
//! - `baseline`: only the loop and the call it builds, which `turn` and `pointers` include;
//! - `baseline_empty`: only the loop and the empty string `empty` passes.

use std::hint::black_box;

use hookchain::points::ToolCall;
use hookchain::prelude::*;

macro_rules! trivial_hooks {
    ($($name:ident = $priority:literal),*) => {
        $(
            #[register_hook("intercept_tool_call", priority = $priority)]
            fn $name(call: &ToolCall) -> HookResult<Value> {
                if black_box(call.name.len()) == 3 {
                    return HookResult::block("three");
                }
                HookResult::Pass
            }
        )*
        const HOOKS: [fn(&ToolCall) -> HookResult<Value>; 10] = [$($name),*];
    };
}

trivial_hooks!(
    h01 = 1,
    h02 = 2,
    h03 = 3,
    h04 = 4,
    h05 = 5,
    h06 = 6,
    h07 = 7,
    h08 = 8,
    h09 = 9,
    h10 = 10
);

/// The ten fns through a slice the optimizer cannot see through, consuming each result as a
/// chain does.
#[inline(never)]
fn pointers(hooks: &[fn(&ToolCall) -> HookResult<Value>], call: ToolCall) -> Flow<ToolCall> {
    for hook in hooks {
        if let HookResult::Block(reason) = hook(&call) {
            return Flow::Blocked(Blocked::new(reason.into_string(), "hook"));
        }
    }
    Flow::Continue(call)
}

fn call() -> ToolCall {
    ToolCall::new("read_file", Value::Null)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let variant = args.next().unwrap_or_default();
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let hooks = Hooks::builder()
        .collected_where(|r| {
            r.point == "intercept_tool_call" && r.file.ends_with("instructions.rs")
        })
        .build()
        .expect("ten distinct hooks");
    assert_eq!(hooks.chain_of("intercept_tool_call").len(), 10);
    let session = hooks.session("instructions");
    let turn = session.begin_turn();
    let hooks_slice: &[fn(&ToolCall) -> HookResult<Value>] = black_box(&HOOKS);
    match variant.as_str() {
        "turn" => {
            for _ in 0..n {
                let _ = black_box(turn.intercept_tool_call(black_box(call())));
            }
        }
        "pointers" => {
            for _ in 0..n {
                let _ = black_box(pointers(hooks_slice, black_box(call())));
            }
        }
        "empty" => {
            for _ in 0..n {
                let _ = black_box(turn.transform_response(black_box(String::new())));
            }
        }
        "baseline" => {
            for _ in 0..n {
                black_box(black_box(call()));
            }
        }
        "baseline_empty" => {
            for _ in 0..n {
                black_box(black_box(String::new()));
            }
        }
        other => {
            eprintln!(
                "unknown variant `{other}`: turn, pointers, empty, baseline or baseline_empty"
            );
            std::process::exit(2);
        }
    }
    turn.end(TurnEnd::Normal);
}
