use hookchain::hook_point;
use hookchain::prelude::*;

pub struct Email {
    pub body: String,
}

hook_point! {
    pub struct SendEmail: transform("send_email") {
        type Value = Email;
        type Rewrite = String;
        fn apply(email, body) { email.body = body; }
    }
}

#[register_hook(SendEmail, priority = 5)]
fn sign(call: &ToolCall) -> HookResult<String> {
    HookResult::Rewrite(call.name.clone())
}

fn main() {}
