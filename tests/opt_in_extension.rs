//! `extension_config!(NAME, Type, enabled = false)`: a `#[register_hook]` extension that runs
//! only once a section (or the agent's code) enables it.

use hookchain::registry::Sections;
use hookchain::{HookContext, HooksBuilder, points::InterceptToolCall, prelude::*};
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct OptIn {
    tool: String,
}

hookchain::extension_config!("opt-in", OptIn, enabled = false);

#[register_hook("intercept_tool_call", extension = "opt-in")]
fn opt_in(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<OptIn>()?;
    Ok(if call.name == config.tool {
        HookResult::block("opted in")
    } else {
        HookResult::Pass
    })
}

#[test]
fn an_extension_declared_off_by_default_runs_only_once_enabled() {
    let call = || ToolCall::new("deploy", json!({}));
    let hooks = HooksBuilder::new().collected().build().unwrap();
    let ext = hooks.extension("opt-in").unwrap();
    assert!(!ext.is_enabled());
    assert_eq!(ext.disabled_by().as_deref(), Some("default"));
    assert!(!hooks.dispatch::<InterceptToolCall>(call()).is_blocked());

    let on = Sections::new().extension("opt-in", json!({"enabled": true, "tool": "deploy"}));
    let hooks = HooksBuilder::new()
        .collected()
        .sections(on)
        .build()
        .unwrap();
    assert!(hooks.dispatch::<InterceptToolCall>(call()).is_blocked());
}
