use hookchain::{HookContext, register_command};

#[register_command("/notes", description = "Keep notes")]
fn with_slash(args: &str, _cx: &HookContext) -> String {
    args.to_owned()
}

#[register_command("add note")]
fn with_space(args: &str, _cx: &HookContext) -> String {
    args.to_owned()
}

#[register_command("")]
fn empty(args: &str, _cx: &HookContext) -> String {
    args.to_owned()
}

#[register_command(description = "no name")]
fn unnamed(args: &str, _cx: &HookContext) -> String {
    args.to_owned()
}

fn main() {}
