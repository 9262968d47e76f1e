use hookchain::prelude::*;

#[register_hook("pre_tool_call", priority = 10)]
fn guard(_call: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("UserPromptSubmit")]
fn on_prompt(_text: &str) -> HookResult<String> {
    HookResult::Pass
}

fn main() {}
