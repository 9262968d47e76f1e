use hookchain::prelude::*;

const WIDE: u64 = 10;

#[register_hook("intercept_tool_call", priority = "ten")]
fn words(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 1u64)]
fn suffixed(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = WIDE + 1)]
fn wide(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

macro_rules! guard {
    ($name:ident, $priority:expr) => {
        #[register_hook("intercept_tool_call", priority = $priority)]
        fn $name(_call: &ToolCall) -> HookResult<Value> {
            HookResult::Pass
        }
    };
}

guard!(from_a_macro, 2.5);

fn main() {}
