use hookchain::hook_point;

pub struct Email {
    pub body: String,
}

hook_point! {
    pub struct EmailSent: observe("email_sent") {
        type Value = Email;
        type Rewrite = String;
        fn apply(email, body) { email.body = body; }
    }
}

fn main() {}
