use hookchain::schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "hookchain::schemars")]
struct Search {
    query: String,
}

#[derive(Debug)]
struct SearchError;

/// Searches the notes.
#[hookchain::register_tool]
fn search(args: Search) -> Result<Vec<String>, SearchError> {
    Err(SearchError)
}

fn main() {}
