//! [`tools`]: the tools a hookchain [`Session`] offers, as rig-agent tools, in one call.
//!
//! # What it owns
//!
//! The mapping of each [`ToolSpec`] the session offers ([`Session::tools`]) onto one rig
//! [`DynamicTool`] of the same name, description and parameters schema, whose callback runs the
//! call through [`Turn::call_tool_async`](hookchain_runtime::Turn::call_tool_async).
//!
//! # The rules it keeps
//!
//! - **Guards apply.** Every call goes through `intercept_tool_call` (which may rewrite its
//!   args or block it), the tool, `after_tool_call` and `transform_tool_result`, as
//!   `Turn::call_tool_async` runs them; a refused, unknown, inactive or off tool, or arguments
//!   that do not fit, come back to the model as the call's error, with the reason (a refusal
//!   for a block). The model reads a result as text: a string as it is, any other value as its
//!   JSON.
//! - **One turn per call.** A rig tool's callback gets the call's arguments and a
//!   [`ToolContext`], not the run it belongs to, so it cannot reach the turn a
//!   [`HookchainHook`](crate::HookchainHook) keeps for the run: each call runs in a turn of its
//!   own of the session, begun for the call and ended (`turn_end` with [`TurnEnd::Normal`]) when
//!   it returns. Hooks of that call see the session's state, and a turn state of the call alone.
//! - **With [`HookchainHook`](crate::HookchainHook) on the same agent**, the hook already fires
//!   the tool points on the run's turn for every call rig dispatches, these tools included; the
//!   call then goes through the tool points a second time, in its own turn. A guard blocks it
//!   either way; a hook that counts calls sees these twice.
//! - The set is the one the session offers **when `tools` is called**: a tool activated,
//!   deactivated, enabled or disabled later is still checked at every call (an inactive or off
//!   tool's call is an error the model reads), but the model is told of the new set only by a
//!   new call of `tools` for a new agent.

use hookchain_core::{ToolCall, ToolSpec, TurnEnd};
use hookchain_runtime::Session;
use rig_agent::core::message::ToolName;
use rig_agent::tool::{DynamicTool, ToolContext, ToolExecutionError, ToolOutput};
use serde_json::Value;

/// The tools `session` offers ([`Session::tools`]), as rig-agent tools for the agent builder
/// (`AgentBuilder::dynamic_tools`), each call run through the session's hooks.
///
/// ```no_run
/// # fn agent(model: rig_agent::core::DynModel<rig_agent::core::operation::Completion>) {
/// use hookchain::Hooks;
/// use hookchain::adapters::rig::tools;
/// use rig_agent::AgentBuilder;
///
/// let session = Hooks::global().session("sess-1");
/// let agent = AgentBuilder::new(model)
///     .preamble("You keep notes.")
///     .dynamic_tools(tools(&session))
///     .build();
/// # }
/// ```
///
/// A tool whose name rig refuses (an empty one, which the registry never builds) is left out
/// and logged.
pub fn tools(session: &Session) -> Vec<DynamicTool> {
    session
        .tools()
        .into_iter()
        .filter_map(|spec| dynamic_tool(session, spec))
        .collect()
}

/// One rig tool for `spec`.
fn dynamic_tool(session: &Session, spec: ToolSpec) -> Option<DynamicTool> {
    let name = match ToolName::new(spec.name.clone()) {
        Ok(name) => name,
        Err(error) => {
            tracing::error!(
                target: "hookchain",
                "the tool `{}` is left out of the rig agent: {error}",
                spec.name
            );
            return None;
        }
    };
    let session = session.clone();
    let tool = spec.name.clone();
    Some(DynamicTool::new_with_context(
        name,
        spec.description,
        spec.parameters,
        move |_context: &mut ToolContext, args: Value| {
            let session = session.clone();
            let call = ToolCall::new(tool.clone(), args);
            Box::pin(async move { call_in_a_turn(&session, call).await })
        },
    ))
}

/// Runs `call` in a turn of its own of `session`.
async fn call_in_a_turn(
    session: &Session,
    call: ToolCall,
) -> Result<ToolOutput, ToolExecutionError> {
    let turn = session.begin_turn();
    let run = turn.call_tool_async(call).await;
    turn.end_async(TurnEnd::Normal).await;
    // The model reads text: a string result as it is, any other as its JSON.
    let text = match run.result.tool_response {
        Value::String(text) => text,
        other => other.to_string(),
    };
    if !run.result.is_error {
        return Ok(ToolOutput::text(text));
    }
    let message = text;
    Err(match run.blocked {
        Some(_) if !run.ran => ToolExecutionError::refused(message),
        _ => ToolExecutionError::other(message),
    })
}
