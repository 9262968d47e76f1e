use hookchain::schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "hookchain::schemars")]
struct Search {
    query: String,
}

#[hookchain::register_tool(extension = "notes")]
fn search(args: Search) -> Result<Vec<String>, String> {
    Ok(vec![args.query])
}

fn main() {}
