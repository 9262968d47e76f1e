use hookchain::prelude::*;

#[register_hook("transform_user_input")]
fn log_input(text: &str) {
    println!("{text}");
}

fn main() {}
