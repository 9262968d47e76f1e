//! `Hooks::global()` does no I/O: a `hookchain.yaml` in the current directory is not read, and
//! its hooks and sections do not apply, until the binary calls `hookchain::init()` — which, once
//! the global registry is in use, refuses to swap it.
//!
//! One test in its own binary: it changes the process's current directory and builds the
//! global registry.

use hookchain::config::InitError;
use hookchain::prelude::*;
use hookchain::registry::HookSource;

mod support;
use support::temp_dir;

#[register_hook("intercept_tool_call", extension = "guard")]
fn guard(_: &ToolCall) -> HookResult<Value> {
    HookResult::Pass
}

#[test]
fn the_global_registry_ignores_hookchain_yaml_until_init() {
    let temp = temp_dir();
    let dir = temp.path().join("global");
    std::fs::create_dir_all(&dir).unwrap();
    let block = support::fixture("external/block.sh");
    std::fs::write(
        dir.join("hookchain.yaml"),
        format!(
            "extensions:\n  guard:\n    enabled: false\nhooks:\n  PreToolUse:\n    - command: {}\n",
            block.display()
        ),
    )
    .unwrap();
    std::env::set_current_dir(&dir).unwrap();
    let hooks = Hooks::global();
    assert!(
        hooks
            .hooks()
            .iter()
            .all(|h| h.source != HookSource::External),
        "{}",
        hooks.describe()
    );
    assert!(hooks.extension("guard").unwrap().is_enabled());
    let turn = hooks.session("global").begin_turn();
    assert!(
        !turn
            .intercept_tool_call(ToolCall::new("Bash", json!({"command": "rm -rf /"})))
            .is_blocked()
    );
    turn.end(TurnEnd::Normal);
    // The global registry is in use: init cannot swap it, and says why.
    let error = hookchain::init().unwrap_err();
    assert!(matches!(error, InitError::AlreadyInstalled), "{error}");
    assert!(
        error
            .to_string()
            .contains("before anything calls Hooks::global()")
    );
    std::env::set_current_dir(std::env::temp_dir()).unwrap();
}
