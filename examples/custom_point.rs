//! A hook point of your own: declared with `hook_point!`, hooked with `#[register_hook]`, fired
//! through `Turn::fire`, with the same chain rules as the built-in points.
//!
//! Run it with `cargo run --example custom_point`.

use hookchain::{HookContext, prelude::*};
use hookchain::{Outcome, hook_point};

/// An e-mail the agent is about to send.
#[derive(Debug, Clone)]
pub struct Email {
    /// The recipient.
    pub to: String,
    /// The body.
    pub body: String,
}

hook_point! {
    /// `send_email`: fired before the agent sends an e-mail; hooks may rewrite the body or block
    /// the send.
    pub struct SendEmail: transform("send_email") {
        type Value = Email;
        type Rewrite = String;
        fn apply(email, body) { email.body = body; }
    }
}

hook_point! {
    /// `email_sent`: fired after an e-mail went out; observers only.
    pub struct EmailSent: observe("email_sent") {
        type Value = Email;
    }
}

/// Only colleagues get mail from the agent. Fails closed.
#[register_hook(SendEmail, priority = 0, on_error = "block")]
fn internal_only(email: &Email) -> HookResult<String> {
    if !email.to.ends_with("@example.com") {
        return HookResult::block(format!("{} is outside the company", email.to));
    }
    HookResult::Pass
}

/// Every mail says who wrote it.
#[register_hook(SendEmail, priority = 10)]
fn signature(email: &Email, cx: &HookContext) -> HookResult<String> {
    cx.set_metadata("signed", true);
    HookResult::Rewrite(format!("{}\n\n-- sent by the build agent", email.body))
}

/// Counts what went out, in the session state.
#[register_hook(EmailSent)]
fn count_sent(email: &Email, cx: &HookContext) {
    let sent = get_session_state(cx.session_id()).update("sent", |n: &mut u32| {
        *n += 1;
        *n
    });
    println!("  email_sent: mail #{} to {}", sent.unwrap_or(0), email.to);
}

fn send(turn: &Turn, to: &str, body: &str) {
    println!("send to {to}: {body:?}");
    let email = Email {
        to: to.into(),
        body: body.into(),
    };
    let outcome: Outcome<Email> = turn.fire::<SendEmail>(email);
    match outcome.flow {
        Flow::Continue(email) => {
            println!(
                "  rewritten by {:?}; metadata {:?}",
                outcome.rewritten_by, outcome.metadata
            );
            println!("  body now: {:?}", email.body);
            let _ = turn.fire::<EmailSent>(email);
        }
        Flow::Blocked(b) => println!("  blocked by {}: {}", b.hook, b.reason),
    }
}

fn main() {
    println!("{}", Hooks::global().describe());
    let session = Hooks::global().session("custom-point-demo");
    let turn = session.begin_turn();
    send(&turn, "dev@example.com", "The build is green again.");
    send(&turn, "someone@elsewhere.org", "Here is our source code.");
    turn.end(TurnEnd::Normal);
}
