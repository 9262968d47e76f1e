use hookchain::prelude::*;

#[register_hook("intercept_tool_call", priority = 10, name = "guard", priority = 20)]
fn guard(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
