use hookchain::prelude::*;

struct Guard;

impl Guard {
    #[register_hook("intercept_tool_call")]
    fn check(&self, _call: &ToolCall) -> HookResult<Value> {
        HookResult::Pass
    }
}

fn main() {}
