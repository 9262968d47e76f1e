use hookchain::prelude::*;

#[register_hook("intercept_tool_call")]
fn guard(call: &String) -> HookResult<Value> {
    if call.is_empty() {
        return HookResult::block("empty");
    }
    HookResult::Pass
}

fn main() {}
