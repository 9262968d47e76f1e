use hookchain::prelude::*;

#[register_hook("intercept_tool_call", priority = )]
fn nothing(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = very high)]
fn words(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = fn)]
fn keyword(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
