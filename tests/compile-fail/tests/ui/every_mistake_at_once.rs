use hookchain::{HookContext, prelude::*};

// One compilation reports every mistake of the attribute and of the signature.
#[register_hook(
    "intercept_tool_cal",
    priorty = 10,
    on_error = "blok",
    name = "a",
    name = "b"
)]
fn guard<T>(_call: &ToolCall, _cx: &HookContext, _extra: T) -> HookResult<Value> {
    HookResult::Pass
}

fn main() {}
