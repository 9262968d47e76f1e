//! A program that does only `hookchain::init()` and `Hooks::global()`, with a `hookchain.yaml`
//! that enables a guard, gets the guard: the config loader adds its hooks by name, so nothing
//! depends on which object files the linker pulls in.

use hookchain::config::Init;
use hookchain::prelude::*;

mod support;
use support::temp_dir;

#[test]
fn init_with_a_hookchain_yaml_that_enables_a_guard_puts_it_in_the_global_registry() {
    let temp = temp_dir();
    let dir = temp.path().join("guards-global");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("hookchain.yaml"),
        "extensions:\n  destructive-commands:\n    enabled: true\n",
    )
    .unwrap();
    Init::new()
        .project_dir(&dir)
        .home_dir(None)
        .install()
        .unwrap();
    let turn = Hooks::global().session("global-guard").begin_turn();
    let call = ToolCall::new("shell", json!({"cmd": "dd if=/dev/zero of=/dev/sda"}));
    assert!(turn.intercept_tool_call(call).is_blocked());
}
