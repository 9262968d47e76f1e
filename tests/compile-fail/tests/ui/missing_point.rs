use hookchain::prelude::*;

#[register_hook]
fn guard(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook(priority = 10)]
fn prioritised(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
