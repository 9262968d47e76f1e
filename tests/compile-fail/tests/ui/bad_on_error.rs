use hookchain::prelude::*;

#[register_hook("intercept_tool_call", on_error = "blok")]
fn guard(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", on_error = "ignore")]
fn lenient(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
