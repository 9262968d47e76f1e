//! The session's tools in a rig-agent agent, in one call (`tools(&session)`), on rig's scripted
//! wire: the model calls an extension tool, which runs; a guard on `intercept_tool_call` blocks
//! a bad call, which never runs, and the model sees the reason. Every run is bounded by
//! `tokio::time::timeout`.

mod support;

use std::sync::Arc;
use std::time::Duration;

use hookchain::points::{InterceptToolCall, ToolCall};
use hookchain::{HookContext, HookResult, HooksBuilder, ToolSpec};
use hookchain_rig::rig_agent::AgentBuilder;
use hookchain_rig::tools;
use parking_lot::Mutex;
use serde_json::{Value, json};
use support::{Reply, Responder, texts};

#[tokio::test]
async fn the_agent_calls_an_extension_tool_and_a_guard_blocks_a_bad_call() {
    let kept = Arc::new(Mutex::new(Vec::<Value>::new()));
    let notes = Arc::clone(&kept);
    let params = json!({"type": "object", "properties": {"text": {"type": "string"}},
                        "required": ["text"]});
    let hooks = HooksBuilder::new()
        .tool(
            ToolSpec::new("add_note", "Keeps a note.", params.clone()).in_extension("notes"),
            move |args: Value, _cx: &HookContext<'_>| {
                notes.lock().push(args.clone());
                Ok(json!({"kept": args["text"]}))
            },
        )
        .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            let text = call.args["text"].as_str().unwrap_or_default();
            if text.contains("password") {
                return HookResult::<Value>::block("notes must not hold passwords");
            }
            HookResult::Pass
        })
        .build()
        .unwrap();
    let session = hooks.session("rig-tools");
    let offered = tools(&session);
    assert_eq!(offered.len(), 1);
    let definition = offered[0].definition();
    assert_eq!(definition.name.to_string(), "add_note");
    assert_eq!(definition.description, "Keeps a note.");
    assert_eq!(definition.parameters, params);

    let model = Responder::script(vec![
        Reply::Tools(vec![(
            "c1".to_owned(),
            "add_note".to_owned(),
            json!({"text": "buy milk"}),
        )]),
        Reply::Tools(vec![(
            "c2".to_owned(),
            "add_note".to_owned(),
            json!({"text": "password: hunter2"}),
        )]),
        Reply::Text("Done.".into()),
    ]);
    let agent = AgentBuilder::new(model.model())
        .preamble("You keep notes.")
        .default_max_turns(8)
        .dynamic_tools(offered)
        .build();

    let reply = tokio::time::timeout(Duration::from_secs(30), agent.prompt("take notes"))
        .await
        .expect("the run finished")
        .unwrap();

    assert_eq!(reply.to_string(), "Done.");
    assert_eq!(
        *kept.lock(),
        [json!({"text": "buy milk"})],
        "only the good call ran"
    );
    let requests = model.requests();
    assert!(
        texts(&requests[1]).iter().any(|t| t.contains("buy milk")),
        "the model sees the tool's result: {:?}",
        texts(&requests[1])
    );
    assert!(
        texts(&requests[2])
            .iter()
            .any(|t| t.contains("notes must not hold passwords")),
        "the model sees the reason: {:?}",
        texts(&requests[2])
    );
}
