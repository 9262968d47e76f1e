use hookchain::prelude::*;

#[register_hook("intercept_tool_call")]
const fn constant(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call")]
unsafe fn dangerous(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call")]
extern "C" fn foreign(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
