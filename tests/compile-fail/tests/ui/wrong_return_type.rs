use hookchain::prelude::*;

#[register_hook("intercept_tool_call")]
fn guard(call: &ToolCall) -> HookResult<String> {
    HookResult::Rewrite(call.name.clone())
}

fn main() {}
