//! Tests of what every point's payload carries, in every dialect.

use super::*;
use crate::wire::testing::{dialect_payload, with_cx};
use hookchain_core::points::catalog;
use hookchain_core::points::{
    AfterCompaction, AfterLlmCall, AfterToolBatch, AfterToolCall, BeforeCompaction, BeforeLlmCall,
    InterceptToolCall, Notify, OnSlashCommand, OnStop, OutboundMessage, PermissionRequest,
    SessionEnd, SessionReset, SessionStart, SubagentStop, TransformResponse, TransformToolResult,
    TransformUserInput, TurnEnded, TurnStart,
};
use hookchain_core::{
    Compaction, Level, LlmCall, Message, Notification, NotificationKind, Outbound, SessionSource,
    SessionStartEvent, StopEvent, ToolResult, TurnEnd, TurnEndEvent,
};
use serde_json::json;

#[test]
fn every_builtin_point_is_a_wire_point() {
    // One name per impl below, checked against the catalog so none is left out.
    let names = [
        SessionStart::NAME,
        SessionEnd::NAME,
        SessionReset::NAME,
        TransformUserInput::NAME,
        TurnStart::NAME,
        BeforeLlmCall::NAME,
        AfterLlmCall::NAME,
        InterceptToolCall::NAME,
        PermissionRequest::NAME,
        TransformToolResult::NAME,
        AfterToolCall::NAME,
        AfterToolBatch::NAME,
        TransformResponse::NAME,
        OnStop::NAME,
        BeforeCompaction::NAME,
        AfterCompaction::NAME,
        SubagentStop::NAME,
        OutboundMessage::NAME,
        OnSlashCommand::NAME,
        TurnEnded::NAME,
        Notify::NAME,
    ];
    let mut catalog: Vec<&str> = catalog().iter().map(|p| p.name).collect();
    let mut names = names.to_vec();
    catalog.sort_unstable();
    names.sort_unstable();
    assert_eq!(names, catalog);
}

#[test]
fn tool_points_name_their_tool_and_others_do_not() {
    let call = ToolCall::new("shell", json!({"cmd": "ls"})).with_id("t1");
    assert_eq!(InterceptToolCall::tool_name(&call), Some("shell"));
    let result = ToolResult::new(&call, Ok(json!("ok")));
    assert_eq!(TransformToolResult::tool_name(&result), Some("shell"));
    assert_eq!(AfterToolCall::tool_name(&result), Some("shell"));
    assert_eq!(TransformUserInput::tool_name("hi"), None);
}

#[test]
fn fields_use_the_other_agents_names() {
    let call = ToolCall::new("shell", json!({"cmd": "ls"})).with_id("t1");
    assert_eq!(
        Value::Object(InterceptToolCall::fields(&call)),
        json!({"tool_name": "shell", "tool_input": {"cmd": "ls"}, "tool_use_id": "t1"})
    );
    let result = ToolResult::new(&ToolCall::new("shell", json!({})), Err("boom".into()));
    assert_eq!(
        Value::Object(TransformToolResult::fields(&result)),
        json!({"tool_name": "shell", "tool_input": {}, "tool_response": "boom",
               "is_error": true, "tool_error": true})
    );
    assert_eq!(
        Value::Object(TransformUserInput::fields("hello")),
        json!({"prompt": "hello"})
    );
    let stop = StopEvent {
        response: "done".into(),
        stop_hook_active: true,
        redos: 1,
    };
    assert_eq!(
        Value::Object(OnStop::fields(&stop)),
        json!({"response": "done", "last_assistant_message": "done", "stop_response": "done",
               "stop_hook_active": true, "redos": 1})
    );
    let start = SessionStartEvent {
        session_id: "c".into(),
        parent_session_id: Some("p".into()),
        source: SessionSource::Subagent,
        context: vec!["x".into()],
    };
    assert_eq!(
        Value::Object(SessionStart::fields(&start)),
        json!({"source": "subagent", "parent_session_id": "p", "context": ["x"]})
    );
    let ended = TurnEndEvent {
        session_id: "s".into(),
        turn: 2,
        reason: TurnEnd::Error("oops".into()),
    };
    assert_eq!(
        Value::Object(TurnEnded::fields(&ended)),
        json!({"reason": "error", "detail": "oops"})
    );
    let normal = TurnEndEvent {
        reason: TurnEnd::Normal,
        ..ended
    };
    assert_eq!(
        Value::Object(TurnEnded::fields(&normal)),
        json!({"reason": "normal"})
    );
    let note = Notification {
        level: Level::Warning,
        message: "m".into(),
        source: None,
        kind: NotificationKind::General,
    };
    assert_eq!(
        Value::Object(Notify::fields(&note)),
        json!({"message": "m", "level": "warning", "kind": "general"})
    );
    let compaction = Compaction {
        messages: vec![Message::user("hi")],
        trigger: "auto".into(),
        summary: None,
    };
    assert_eq!(
        Value::Object(BeforeCompaction::fields(&compaction)),
        json!({"trigger": "auto", "source": "auto",
               "messages": [{"role": "user", "content": "hi"}]})
    );
    let out = Outbound {
        platform: "slack".into(),
        recipient: "#ops".into(),
        text: "hi".into(),
    };
    assert_eq!(
        Value::Object(OutboundMessage::fields(&out)),
        json!({"platform": "slack", "recipient": "#ops", "message": "hi", "text": "hi",
               "notification": "hi", "channel": "slack"})
    );
}

#[test]
fn hermes_and_starchild_fields() {
    let call = ToolCall::new("terminal", json!({"command": "ls"})).with_id("c1");
    let (payload, _, _) = with_cx("intercept_tool_call", |cx| {
        payload_in::<InterceptToolCall>("pre_tool_call", Dialect::Hermes, &call, cx)
    });
    assert_eq!(payload["profile"], "default");
    assert_eq!(
        payload["extra"],
        json!({"tool_use_id": "c1", "tool_call_id": "c1", "task_id": "wire-test"})
    );
    let (payload, _, _) = with_cx("transform_user_input", |cx| {
        payload_in::<TransformUserInput>("on_user_message", Dialect::Hermes, "hi", cx)
    });
    assert_eq!(
        (&payload["tool_name"], &payload["tool_input"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(payload["extra"]["prompt"], "hi");
    let result = ToolResult::new(&call, Ok(json!({"out": 1})));
    let map = dialect_payload::<AfterToolCall>(Dialect::Hermes, &result);
    assert_eq!(map["extra"]["result"], r#"{"out":1}"#);
    let map = dialect_payload::<TransformToolResult>(Dialect::Starchild, &result);
    assert_eq!(map["tool_result"], json!({"out": 1}));
    let llm = LlmCall {
        system_prompt: "sys".into(),
        messages: vec![Message::user("first"), Message::user("last")],
    };
    let map = dialect_payload::<BeforeLlmCall>(Dialect::Starchild, &llm);
    assert_eq!(
        (&map["system"], &map["last_user_message"]),
        (&json!("sys"), &json!("last"))
    );
    let compaction = Compaction {
        messages: Vec::new(),
        trigger: "auto".into(),
        summary: None,
    };
    let map = dialect_payload::<BeforeCompaction>(Dialect::DockerAgent, &compaction);
    assert_eq!(map["compaction_reason"], "threshold");
    let map = dialect_payload::<BeforeCompaction>(Dialect::ClaudeCode, &compaction);
    assert_eq!(map["custom_instructions"], "");
}
