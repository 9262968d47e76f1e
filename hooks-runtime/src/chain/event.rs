//! What a wildcard hook sees of a dispatch: the [`DispatchEvent`](hookchain_core::DispatchEvent),
//! with the tool's name when the value is a tool call.

use std::any::Any;
use std::time::Duration;

use hookchain_core::{DispatchEvent, HookPoint};

use serde_json::Value;

use super::outcome::Outcome;
use super::scope::Scope;

/// The tool's name when `value` is a tool call, its result, or a permission request for one.
pub(super) fn tool_name<T: Any>(value: &T) -> Option<String> {
    let value = value as &dyn Any;
    if let Some(call) = value.downcast_ref::<hookchain_core::ToolCall>() {
        return Some(call.name.clone());
    }
    if let Some(result) = value.downcast_ref::<hookchain_core::ToolResult>() {
        return Some(result.tool_name.clone());
    }
    value
        .downcast_ref::<hookchain_core::PermissionAsk>()
        .map(|ask| ask.tool_name.clone())
}

/// The event wildcard hooks get for a dispatch of `P` that gave `outcome`.
pub(super) fn dispatch_event<P: HookPoint, T>(
    outcome: &Outcome<T>,
    payload: Value,
    duration: Duration,
    scope: Scope<'_>,
) -> DispatchEvent {
    let (decision, hook, reason, failed) = crate::trace::decided::<P, T>(outcome);
    let mut event = DispatchEvent::new(P::NAME, P::KIND, decision, payload);
    event.session_id = scope.session_id.to_owned();
    // A turn's frame has a turn token; a session's or a registry's dispatch has none.
    event.turn = scope.frame.in_turn().then_some(scope.turn);
    event.hook = hook.map(str::to_owned);
    event.reason = reason.map(str::to_owned);
    event.failed = failed;
    event.rewritten_by = outcome.rewritten_by.clone();
    event.failures = outcome
        .failures
        .iter()
        .map(|f| format!("{}: {}", f.hook, f.error))
        .collect();
    event.duration = duration;
    event
}
