use hookchain::prelude::*;

#[register_hook("intercept_tool_call")]
fn guard<T: Default>(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
