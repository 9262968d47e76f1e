use hookchain::prelude::*;

#[register_hook("intercept_tool_call", priority = 3000000000)]
fn too_late(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = -2147483649)]
fn too_early(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
