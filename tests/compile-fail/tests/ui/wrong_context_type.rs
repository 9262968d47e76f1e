use hookchain::prelude::*;

#[register_hook("intercept_tool_call")]
fn guard(_call: &ToolCall, session_id: &str) -> HookResult<Value> {
    if session_id.is_empty() {
        return HookResult::block("no session");
    }
    HookResult::Pass
}

fn main() {}
