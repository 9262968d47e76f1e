use hookchain::prelude::*;

#[register_hook("intercept_tool_call", priorty = 10)]
fn guard(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", colour = "red")]
fn painted(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
