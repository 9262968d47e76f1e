//! Every dispatch of a hooked point is a `tracing` span named after OpenTelemetry's GenAI
//! conventions, nested under the agent's span, with the hooks' own spans under it: the span
//! tree of one turn, as a subscriber sees it.
//!
//! A program of its own: the subscriber is the test thread's scoped default, and `tracing`
//! caches a callsite's interest from whichever thread first reaches it, so a span first built
//! by another test's thread would be cached as unwanted for this one.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use hookchain_core::points::{BeforeLlmCall, Injection, InterceptToolCall, LlmCall, ToolCall};
use hookchain_core::{HookContext, HookResult, TurnEnd};
use parking_lot::Mutex;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use hookchain_runtime::HooksBuilder;

/// One span as a subscriber saw it: its name, its parent's name, its fields.
#[derive(Debug, Clone, Default)]
struct Seen {
    name: String,
    parent: Option<String>,
    fields: BTreeMap<String, String>,
}

impl Visit for Seen {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.fields
            .insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.fields
            .insert(field.name().to_owned(), value.to_owned());
    }
}

/// Keeps every span, in the order they were created, with the fields recorded later.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<(u64, Seen)>>>);

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, cx: Context<'_, S>) {
        let mut seen = Seen {
            name: attrs.metadata().name().to_owned(),
            parent: cx
                .span(id)
                .and_then(|s| s.parent())
                .map(|p| p.name().to_owned()),
            ..Seen::default()
        };
        attrs.record(&mut seen);
        self.0.lock().push((id.into_u64(), seen));
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.0.lock();
        if let Some((_, seen)) = spans.iter_mut().find(|(i, _)| *i == id.into_u64()) {
            values.record(seen);
        }
    }
}

#[test]
fn a_turn_is_a_tree_of_dispatch_spans_named_after_the_genai_conventions() {
    let hooks = HooksBuilder::new()
        .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            let _own = tracing::info_span!("hook.own_work").entered();
            match call.name.as_str() {
                "rm" => HookResult::block("no rm"),
                _ => HookResult::Pass,
            }
        })
        .hook(BeforeLlmCall, 0, |_: &LlmCall, _: &HookContext| {
            HookResult::Rewrite(Injection::system("be brief"))
        })
        .build()
        .unwrap();
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    tracing::subscriber::with_default(subscriber, || {
        let session = hooks.session("trace-session");
        let turn = session.begin_turn();
        let _turn_span = tracing::info_span!("agent.turn").entered();
        let _ = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
        let _ = turn.intercept_tool_call(ToolCall::new("rm", json!({})));
        let _ = turn.before_llm_call(LlmCall::new("be helpful", Vec::new()));
        turn.end(TurnEnd::Normal);
    });
    let spans: Vec<Seen> = spans.0.lock().iter().map(|(_, s)| s.clone()).collect();
    let dispatch = |otel: &str| {
        spans
            .iter()
            .find(|s| {
                s.name == "hookchain.dispatch"
                    && s.fields.get("otel.name").map(String::as_str) == Some(otel)
            })
            .unwrap_or_else(|| panic!("no span `{otel}` in {spans:#?}"))
    };
    let ls = dispatch("execute_tool ls");
    assert_eq!(ls.parent.as_deref(), Some("agent.turn"));
    assert_eq!(ls.fields["gen_ai.operation.name"], "execute_tool");
    assert_eq!(ls.fields["gen_ai.tool.name"], "ls");
    assert_eq!(ls.fields["gen_ai.conversation.id"], "trace-session");
    assert_eq!(ls.fields["hookchain.point"], "intercept_tool_call");
    assert_eq!(ls.fields["hookchain.decision"], "pass");
    assert!(ls.fields.contains_key("hookchain.turn"));
    let rm = dispatch("execute_tool rm");
    assert_eq!(rm.fields["hookchain.decision"], "block");
    assert_eq!(rm.fields["hookchain.reason"], "no rm");
    assert!(rm.fields.contains_key("hookchain.hook"));
    let chat = dispatch("chat");
    assert_eq!(chat.fields["gen_ai.operation.name"], "chat");
    assert_eq!(chat.fields["hookchain.decision"], "inject");
    // The hook's own span is a child of the dispatch it ran in.
    let own: Vec<&Seen> = spans.iter().filter(|s| s.name == "hook.own_work").collect();
    assert_eq!(own.len(), 2);
    assert!(
        own.iter()
            .all(|s| s.parent.as_deref() == Some("hookchain.dispatch"))
    );
}
