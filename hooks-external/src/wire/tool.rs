//! Tool calls on the wire: `intercept_tool_call`, `permission_request`,
//! `transform_tool_result`, `after_tool_call` and `after_tool_batch` (with Claude Code's
//! `PermissionDenied`); refused calls are in "Refused tool calls" of [`tables`](super::tables).

use hookchain_core::points::{
    AfterToolBatch, AfterToolCall, InterceptToolCall, PermissionRequest, TransformToolResult,
};
use hookchain_core::{
    Dialect, HookContext, HookResult, Observed, PermissionAsk, PermissionGrant, ToolBatch,
    ToolCall, ToolResult,
};
use serde_json::{Map, Value};

use super::apply::{Context, apply, joined, observe};
use super::tables::{hermes_extra, no_post_tool_event_when_denied};
use super::{WirePoint, fields, json, put_opt, tool_use};
use crate::answer::{Answer, Verdict};
use crate::transcript;

impl WirePoint for InterceptToolCall {
    fn fields(input: &ToolCall) -> Map<String, Value> {
        let mut map = fields([
            ("tool_name", Value::from(input.name.as_str())),
            ("tool_input", input.args.clone()),
        ]);
        put_opt(&mut map, "tool_use_id", input.id.as_deref());
        map
    }

    fn tool_name(input: &ToolCall) -> Option<&str> {
        Some(&input.name)
    }

    fn dialect_fields(input: &ToolCall, dialect: Dialect, map: &mut Map<String, Value>) {
        if dialect == Dialect::Hermes {
            let mut more = Vec::new();
            if let Some(id) = &input.id {
                more.push(("tool_call_id", Value::from(id.as_str())));
            }
            hermes_extra(map, more);
        }
    }

    fn transcript_entry(input: &ToolCall) -> Option<Value> {
        Some(transcript::assistant(Value::Array(vec![tool_use(input)])))
    }

    fn apply_answer(input: &ToolCall, decision: Answer, cx: &HookContext<'_>) -> HookResult<Value> {
        apply(decision, cx, Context::Add, |d| {
            let args = d.new_input(&input.args);
            d.updated_input = None;
            d.merge_input = None;
            d.rewrite_keys = None;
            args
        })
    }
}

/// The fields of a tool result, shared by `transform_tool_result` and `after_tool_call`.
fn tool_result_fields(input: &ToolResult) -> Map<String, Value> {
    let mut map = fields([
        ("tool_name", Value::from(input.tool_name.as_str())),
        ("tool_input", input.tool_input.clone()),
        ("tool_response", input.tool_response.clone()),
        ("is_error", Value::from(input.is_error)),
        ("tool_error", Value::from(input.is_error)),
    ]);
    put_opt(&mut map, "tool_use_id", input.tool_use_id.as_deref());
    if let Some(block) = &input.blocked {
        map.insert("blocked".to_owned(), json(block));
        // Claude Code's PermissionDenied `reason`.
        map.insert("reason".to_owned(), Value::from(block.reason.as_str()));
    }
    map
}

/// The dialect fields of a tool result, shared by `transform_tool_result` and `after_tool_call`.
fn tool_result_dialect_fields(input: &ToolResult, dialect: Dialect, map: &mut Map<String, Value>) {
    match dialect {
        Dialect::Hermes => {
            // Hermes' `result` is a string (a JSON string for structured results).
            let result = match &input.tool_response {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let mut more = vec![("result", Value::from(result))];
            if let Some(id) = &input.tool_use_id {
                more.push(("tool_call_id", Value::from(id.as_str())));
            }
            hermes_extra(map, more);
        }
        Dialect::Starchild => {
            map.insert("tool_result".to_owned(), input.tool_response.clone());
        }
        _ => {}
    }
}

impl WirePoint for PermissionRequest {
    fn fields(input: &PermissionAsk) -> Map<String, Value> {
        let mut map = fields([
            ("tool_name", Value::from(input.tool_name.as_str())),
            ("tool_input", input.tool_input.clone()),
        ]);
        put_opt(&mut map, "tool_use_id", input.tool_use_id.as_deref());
        if !input.permission_suggestions.is_empty() {
            map.insert(
                "permission_suggestions".to_owned(),
                json(&input.permission_suggestions),
            );
        }
        map
    }

    fn tool_name(input: &PermissionAsk) -> Option<&str> {
        Some(&input.tool_name)
    }

    fn apply_answer(
        input: &PermissionAsk,
        mut decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<PermissionGrant> {
        // `ask` is what the agent does when no hook decides: the user is asked.
        if matches!(decision.verdict, Verdict::Ask(_)) {
            decision.verdict = Verdict::Pass;
        }
        let allowed = decision.verdict == Verdict::Allow;
        apply(decision, cx, Context::Add, |d| {
            let args = d.new_input(&input.tool_input);
            d.updated_input = None;
            d.merge_input = None;
            d.rewrite_keys = None;
            allowed.then_some(PermissionGrant { args })
        })
    }
}

impl WirePoint for TransformToolResult {
    fn fields(input: &ToolResult) -> Map<String, Value> {
        tool_result_fields(input)
    }

    fn dialect_fields(input: &ToolResult, dialect: Dialect, map: &mut Map<String, Value>) {
        tool_result_dialect_fields(input, dialect, map);
    }

    fn in_dialect(_: &ToolResult, decision: &mut Answer, dialect: Dialect, cx: &HookContext<'_>) {
        // Claude Code's PostToolUse `decision: block` (and exit 2) keeps the tool's output and
        // gives the reason to the model beside it: the tool already ran.
        if dialect == Dialect::ClaudeCode
            && decision.stop.is_none()
            && let Verdict::Block(reason) = &decision.verdict
        {
            let reason = if reason.is_empty() {
                format!("hook `{}` flagged the tool's result", cx.hook_name())
            } else {
                reason.clone()
            };
            decision.context.insert(0, reason);
            decision.verdict = Verdict::Pass;
        }
    }

    fn transcript_entry(input: &ToolResult) -> Option<Value> {
        Some(transcript::user(serde_json::json!([{
            "type": "tool_result",
            "tool_use_id": input.tool_use_id,
            "content": input.tool_response,
            "is_error": input.is_error,
        }])))
    }

    fn tool_name(input: &ToolResult) -> Option<&str> {
        Some(&input.tool_name)
    }

    fn apply_answer(_: &ToolResult, decision: Answer, cx: &HookContext<'_>) -> HookResult<Value> {
        apply(decision, cx, Context::Add, |d| d.updated_output.take())
    }
}

impl WirePoint for AfterToolCall {
    fn fields(input: &ToolResult) -> Map<String, Value> {
        tool_result_fields(input)
    }

    fn dialect_fields(input: &ToolResult, dialect: Dialect, map: &mut Map<String, Value>) {
        tool_result_dialect_fields(input, dialect, map);
    }

    fn fires_for(input: &ToolResult, event: &str, dialect: Dialect) -> bool {
        match event {
            // Claude Code's PermissionDenied: a refused call only.
            "PermissionDenied" => input.blocked.is_some(),
            // Cursor's postToolUseFailure: a call that ran and failed.
            "postToolUseFailure" => input.is_error && input.blocked.is_none(),
            _ => input.blocked.is_none() || !no_post_tool_event_when_denied(dialect),
        }
    }

    fn in_dialect(
        input: &ToolResult,
        decision: &mut Answer,
        dialect: Dialect,
        _: &HookContext<'_>,
    ) {
        // Claude Code's PermissionDenied: `retry: true` tells the model it may retry the call.
        if dialect == Dialect::ClaudeCode && input.blocked.is_some() && decision.retry == Some(true)
        {
            decision.context.push(format!(
                "The call of `{}` was denied, but you may retry it.",
                input.tool_name
            ));
        }
    }

    fn tool_name(input: &ToolResult) -> Option<&str> {
        Some(&input.tool_name)
    }

    fn apply_answer(
        _: &ToolResult,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

impl WirePoint for AfterToolBatch {
    fn fields(input: &ToolBatch) -> Map<String, Value> {
        let calls: Vec<Value> = input
            .results
            .iter()
            .map(|result| Value::Object(tool_result_fields(result)))
            .collect();
        fields([
            ("tool_calls", Value::Array(calls)),
            ("context", json(&input.context)),
        ])
    }

    fn apply_answer(_: &ToolBatch, decision: Answer, cx: &HookContext<'_>) -> HookResult<String> {
        apply(decision, cx, Context::Inject, |d| joined(&mut d.context))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::adapt;
    use crate::wire::testing::{block, with_cx};
    use serde_json::json;

    #[test]
    fn a_claude_code_post_tool_use_block_is_feedback_and_a_stop_still_stops() {
        let result = ToolResult::new(&ToolCall::new("Write", json!({})), Ok(json!("ok")));
        let (r, context, _) = with_cx("transform_tool_result", |cx| {
            let mut d = block("");
            adapt::<TransformToolResult>(&result, &mut d, Dialect::ClaudeCode, cx);
            TransformToolResult::apply_answer(&result, d, cx)
        });
        assert_eq!(r, HookResult::Pass);
        assert_eq!(context, ["hook `guard` flagged the tool's result"]);
        let stop = Answer {
            stop: Some("halt".into()),
            ..Answer::default()
        };
        let (r, _, _) = with_cx("transform_tool_result", |cx| {
            let mut d = stop.clone();
            adapt::<TransformToolResult>(&result, &mut d, Dialect::ClaudeCode, cx);
            TransformToolResult::apply_answer(&result, d, cx)
        });
        assert_eq!(r, HookResult::block("halt"));
    }
}
