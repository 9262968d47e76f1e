use hookchain::prelude::*;

#[register_hook("intercept_tool_cal", priority = 10)]
fn guard(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("after_everything")]
fn far_off(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
