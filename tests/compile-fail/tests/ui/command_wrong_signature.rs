use hookchain::{HookContext, register_command};

#[register_command("owned")]
fn owned_args(args: String, _cx: &HookContext) -> String {
    args
}

#[register_command("silent", descripton = "Says nothing")]
fn no_reply(_args: &str) {}

fn main() {}
