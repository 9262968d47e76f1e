use hookchain::{HookContext, prelude::*};

#[register_hook("intercept_tool_call")]
fn no_input() -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call")]
fn too_many(_call: &ToolCall, _cx: &HookContext, _extra: u32) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
