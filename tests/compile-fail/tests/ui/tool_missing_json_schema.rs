use serde::Deserialize;

#[derive(Deserialize)]
struct Search {
    query: String,
}

/// Searches the notes.
#[hookchain::register_tool]
fn search(args: Search) -> Result<Vec<String>, String> {
    Ok(vec![args.query])
}

fn main() {}
