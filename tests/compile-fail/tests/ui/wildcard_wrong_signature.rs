use hookchain::prelude::*;
use hookchain::{DispatchEvent, HookContext};

#[register_hook("*")]
fn takes_a_call(_call: &ToolCall, _cx: &HookContext) {}

#[register_hook("after_*")]
fn rewrites(_ev: &DispatchEvent) -> HookResult<Value> {
    HookResult::Pass
}

#[register_hook("*")]
async fn waits(_ev: &DispatchEvent) {}

#[register_hook("*")]
fn fine(_ev: &DispatchEvent, _cx: &HookContext) -> Result<(), String> {
    Ok(())
}

fn main() {}
