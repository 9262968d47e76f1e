use hookchain::register_command;

#[register_command("notes")]
struct Notes;

#[register_command("count")]
fn count<T>(args: &str) -> String {
    args.len().to_string()
}

fn main() {}
