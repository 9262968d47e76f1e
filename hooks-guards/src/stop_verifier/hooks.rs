//! The guard's hooks: `after_tool_call` keeps each successful call of the turn as evidence,
//! and `on_stop` sends back a reply that claims what no call did.
//!
//! # The rules it keeps
//!
//! - A turn keeps its calls up to a count; past it the verifier cannot tell, and lets every
//!   claim pass.
//! - At most `max_redos` redos a turn; past them the reply goes out, with a warning and a
//!   notification.

use hookchain_core::points::{AfterToolCall, OnStop, StopEvent, ToolResult};
use hookchain_core::{HookContext, HookResult, Level, Notification};
use hookchain_runtime::HooksBuilder;

use super::config::StopVerifier;
use super::rules::Call;
use crate::{BuiltinExtension, hook_options, reason};

impl BuiltinExtension for StopVerifier {
    const NAME: &'static str = "stop-verifier";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        builder
            .hook_with(AfterToolCall, hook_options(Self::NAME), record_hook)
            .hook_with(OnStop, hook_options(Self::NAME), stop_hook)
            .config_type::<StopVerifier>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

/// The turn's successful tool calls, in order, up to [`MAX_CALLS`].
#[derive(Debug, Default)]
struct Calls {
    calls: Vec<Call>,
    /// More calls succeeded than were kept.
    overflow: bool,
}

/// How many calls one turn keeps; past it the verifier cannot tell and lets every claim pass.
const MAX_CALLS: usize = 4096;

/// The turn-state key of this guard's redo count.
const REDOS_KEY: &str = "stop-verifier.redos";

/// `after_tool_call`: keeps a successful call as evidence.
fn record_hook(result: &ToolResult, cx: &HookContext) -> Result<(), String> {
    if result.is_error || result.blocked.is_some() {
        return Ok(());
    }
    let config = cx.config::<StopVerifier>().map_err(|e| e.to_string())?;
    let call = Call {
        tool: result.tool_name.clone(),
        command: config.command_of(&result.tool_name, &result.tool_input),
    };
    cx.turn_state().with_ext_or_default::<Calls, _>(|kept| {
        if kept.calls.len() < MAX_CALLS {
            kept.calls.push(call);
        } else {
            kept.overflow = true;
        }
    });
    Ok(())
}

/// `on_stop`: sends the reply back when it claims what no call of the turn did.
fn stop_hook(stop: &StopEvent, cx: &HookContext) -> Result<HookResult<String>, String> {
    let config = cx.config::<StopVerifier>().map_err(|e| e.to_string())?;
    let (calls, overflow) = cx
        .turn_state()
        .with_ext(|kept: &mut Calls| (kept.calls.clone(), kept.overflow))
        .unwrap_or_default();
    if overflow {
        return Ok(HookResult::Pass);
    }
    let unverified = config.unverified(&stop.response, &calls)?;
    if unverified.is_empty() {
        return Ok(HookResult::Pass);
    }
    let redos: u32 = cx.turn_state().get(REDOS_KEY).unwrap_or(0);
    let listed = unverified
        .iter()
        .map(|u| format!("{} (\"{}\"): {} in this turn", u.claim, u.quote, u.missing))
        .collect::<Vec<_>>()
        .join("; ");
    if redos >= config.max_redos {
        let note = reason(
            StopVerifier::NAME,
            format!(
                "the reply still claims what this turn shows no evidence of after {redos} \
                 redo(s), and goes out as it is: {listed}"
            ),
        );
        cx.warn(note.clone());
        cx.notify(Notification::new(Level::Warning, note).source(StopVerifier::NAME));
        return Ok(HookResult::Pass);
    }
    cx.turn_state().set(REDOS_KEY, redos + 1);
    Ok(HookResult::block(reason(
        StopVerifier::NAME,
        format!(
            "the reply claims what no successful tool call of this turn did — {listed}. Do it \
             now and check that it worked, or correct the reply to say it was not done."
        ),
    )))
}
