//! One timed firing of a configured hook on a synthetic payload, whatever its matcher, and what
//! its answer says in a few words.

use std::time::{Duration, Instant};

use hookchain_core::points;
use hookchain_core::{Annotations, HookContext, HookPoint};
use hookchain_external::ExternalHook;
use hookchain_external::hook::{self, invoker};
use hookchain_external::protocol::{self, Answer, Verdict};
use hookchain_external::wire::WirePoint;
use serde::de::DeserializeOwned;

use crate::outcome::Failure;
use crate::payload::{DEFAULT_TOOL, SESSION, synthetic};
use crate::point::read_value;

/// The tool of `hook`'s synthetic payload: the first name its matcher lists that it matches
/// (`write_file` for `write_file|edit_file`), else [`DEFAULT_TOOL`].
fn tool_for(hook: &ExternalHook) -> &str {
    hook.matcher
        .as_str()
        .split(['|', ','])
        .map(str::trim)
        .find(|name| !name.is_empty() && hook.matcher.matches(name))
        .unwrap_or(DEFAULT_TOOL)
}

/// One timed firing of `hook` on a synthetic payload of `P`, whatever its matcher: the time it
/// took and its answer, or why it failed.
pub(crate) fn fire_once<P>(
    hook: &ExternalHook,
) -> Result<(Duration, Result<Answer, String>), Failure>
where
    P: WirePoint,
    P::Value: DeserializeOwned,
{
    let value = read_value::<P>(&synthetic(P::NAME, tool_for(hook)))?;
    let invoke = invoker(&hook.transport)?;
    let notes = Annotations::new();
    let cx = HookContext::new(SESSION, 0, P::NAME, &notes).with_hook(&hook.name);
    let dialect = hook::dialect(hook);
    let payload =
        hookchain_external::wire::payload_in::<P>(&hook.event, dialect, P::input(&value), &cx);
    let bytes = serde_json::to_vec(&payload)?;
    let started = Instant::now();
    let raw = invoke.invoke(&bytes, hook.timeout);
    let took = started.elapsed();
    let answer = match raw {
        Ok(raw) => protocol::decide_in(&raw, dialect).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    Ok((took, answer))
}

/// Fires a wildcard hook once with the event of a synthetic `intercept_tool_call` dispatch
/// that passed; how long it took and whether it ended well.
pub(crate) fn fire_wildcard_once(
    hook: &ExternalHook,
) -> Result<(Duration, Result<(), String>), Failure> {
    let point = <points::InterceptToolCall as HookPoint>::NAME;
    let value = read_value::<points::InterceptToolCall>(&synthetic(point, tool_for(hook)))?;
    let mut event = hookchain_core::DispatchEvent::new(
        point,
        hookchain_core::PointKind::Transform,
        hookchain_core::Decision::Pass,
        serde_json::to_value(&value)?,
    );
    event.session_id = SESSION.to_owned();
    event.tool = Some(value.name.clone());
    let invoke = invoker(&hook.transport)?;
    let notes = Annotations::new();
    let cx = HookContext::new(SESSION, 0, point, &notes).with_hook(&hook.name);
    let started = Instant::now();
    let fired = hook::Firing::new(hook).fire_wildcard(&*invoke, &event, &cx);
    Ok((started.elapsed(), fired.map_err(|e| e.message().to_owned())))
}

/// What an answer says, in a few words.
pub(crate) fn describe_answer(answer: &Answer) -> String {
    let mut parts = Vec::new();
    match &answer.verdict {
        Verdict::Pass => {}
        Verdict::Allow => parts.push("allows".to_owned()),
        Verdict::Block(reason) => parts.push(format!("blocks: {}", first_line(reason))),
        Verdict::Ask(reason) => parts.push(format!("asks (blocks): {}", first_line(reason))),
    }
    if let Some(reason) = &answer.stop {
        parts.push(format!("stops: {}", first_line(reason)));
    }
    if answer.updated_input.is_some() || answer.merge_input.is_some() {
        parts.push("rewrites the input".to_owned());
    }
    if answer.updated_output.is_some() || answer.updated_text.is_some() {
        parts.push("rewrites the value".to_owned());
    }
    if !answer.context.is_empty() {
        parts.push(format!("adds {} context line(s)", answer.context.len()));
    }
    if !answer.warnings.is_empty() {
        parts.push(format!("adds {} warning(s)", answer.warnings.len()));
    }
    if parts.is_empty() {
        "passes".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The first line of `text`: a reason, in a few words.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
