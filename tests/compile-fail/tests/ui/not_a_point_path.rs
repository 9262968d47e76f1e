use hookchain::prelude::*;

struct NotAPoint;

#[register_hook(NotAPoint, priority = 1)]
fn guard(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
