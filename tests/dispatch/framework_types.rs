//! An agent framework hands over its own tool calls — a name, the arguments as a JSON string, an
//! id — and gets its tools' text back: `ToolCall::from_json_str` and `ToolResult::from_text`
//! build hookchain's payloads from those, and the chain works on them as on any other.

use hookchain::HooksBuilder;
use hookchain::points::{InterceptToolCall, TransformToolResult};
use hookchain::points::{ToolArgsError, ToolResult};
use hookchain::{HookContext, prelude::*};

/// What a framework's tool call looks like: the arguments still a string.
struct FrameworkCall {
    id: String,
    name: String,
    arguments: String,
}

#[test]
fn a_frameworks_tool_call_goes_through_the_chain_and_its_text_result_back() {
    let hooks = HooksBuilder::new()
        .hook(
            InterceptToolCall,
            0,
            |call: &ToolCall, _: &HookContext| match call.str_arg("path") {
                Some(path) if path.starts_with("/etc") => HookResult::block("not under /etc"),
                Some(path) => HookResult::Rewrite(json!({"path": format!("/sandbox/{path}")})),
                None => HookResult::Pass,
            },
        )
        .hook(TransformToolResult, 0, |r: &ToolResult, _: &HookContext| {
            let text = r.tool_response.as_str().unwrap_or_default();
            HookResult::Rewrite(json!(text.replace("sk-123", "[secret]")))
        })
        .build()
        .unwrap();
    let session = hooks.session("framework");
    let turn = session.begin_turn();

    let from_model = FrameworkCall {
        id: "call_1".into(),
        name: "read_file".into(),
        arguments: r#"{"path": "notes.txt"}"#.into(),
    };
    let call = ToolCall::from_json_str(
        &from_model.name,
        &from_model.arguments,
        Some(from_model.id.as_str()),
    )
    .unwrap();
    let Flow::Continue(call) = turn.intercept_tool_call(call) else {
        panic!("allowed")
    };
    assert_eq!(call.args, json!({"path": "/sandbox/notes.txt"}));
    let output = "the key is sk-123"; // what the framework's tool printed
    let result = turn
        .transform_tool_result(ToolResult::from_text(&call, output, false))
        .continued()
        .unwrap();
    assert_eq!(result.tool_response, json!("the key is [secret]"));
    assert_eq!(result.tool_use_id.as_deref(), Some("call_1"));

    // Arguments the model got wrong are the framework's to report, with the tool named.
    let err = ToolCall::from_json_str("read_file", r#"{"path": "#, Some("call_2")).unwrap_err();
    assert!(matches!(err, ToolArgsError::Syntax { .. }));
    assert_eq!(err.tool(), "read_file");
    turn.end(TurnEnd::Normal);
}
