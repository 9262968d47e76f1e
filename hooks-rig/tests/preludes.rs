//! Both preludes under a glob import: hookchain's exports nothing rig-agent's does, so `Message`
//! and `HookContext` here are rig's, and hookchain's hook context is imported by name.

use hookchain::prelude::*;
use hookchain_rig::rig_agent::prelude::*;

/// A hookchain hook, with hookchain's context named by its path.
#[register_hook("intercept_tool_call")]
fn no_deploys(call: &ToolCall, _cx: &hookchain::HookContext) -> HookResult<Value> {
    if call.name == "deploy" {
        return HookResult::block("deploys are frozen");
    }
    HookResult::Pass
}

/// A rig hook, with rig's names from rig's prelude.
struct CountRuns;

impl AgentHook for CountRuns {
    fn name(&self) -> Option<String> {
        let _: fn(&HookContext) -> usize = HookContext::turn;
        Some("count-runs".into())
    }
}

#[test]
fn both_preludes_glob_import_without_ambiguity() {
    let message: Message = Message::user("hello");
    assert!(matches!(message, Message::User { .. }));
    assert_eq!(CountRuns.name().as_deref(), Some("count-runs"));
    let hooks = Hooks::global();
    let turn = hooks.session("preludes").begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("deploy", json!({})));
    assert!(matches!(flow, Flow::Blocked(_)));
    turn.end(TurnEnd::Normal);
}
