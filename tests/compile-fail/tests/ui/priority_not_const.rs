use hookchain::prelude::*;

fn computed() -> i32 {
    10
}

#[register_hook("intercept_tool_call", priority = computed())]
fn from_a_call(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = UNKNOWN)]
fn from_nowhere(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {
    let local = 1;

    #[register_hook("intercept_tool_call", priority = local)]
    fn from_a_local(_call: &ToolCall) -> HookResult<Value> {
        HookResult::Pass
    }
}
