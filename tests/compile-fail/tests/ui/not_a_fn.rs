use hookchain::prelude::*;

/// Hooks are fns, not types.
#[register_hook("intercept_tool_call")]
pub struct Guard;

fn main() {}
