use hookchain::{HookContext, register_command};

#[register_command("count")]
fn count(args: &str, _cx: &HookContext) -> usize {
    args.len()
}

fn main() {}
