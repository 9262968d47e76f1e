use hookchain::HookContext;

/// Adds two numbers.
#[hookchain::register_tool]
fn add(a: u8, b: u8, cx: &HookContext) -> Result<u8, String> {
    Ok(a + b)
}

/// Says hello.
#[hookchain::register_tool(nmae = "hello")]
fn hello(&self) {}

fn main() {}
