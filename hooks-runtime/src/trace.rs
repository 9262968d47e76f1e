//! Every dispatch as a [`tracing`] span, named and attributed after OpenTelemetry's semantic
//! conventions for generative AI, so that `tracing-opentelemetry` ships hookchain's decisions to
//! any OpenTelemetry backend with no hookchain code.
//!
//! # What it owns
//!
//! The span of one dispatch: target `hookchain`, level `INFO`, name `hookchain.dispatch`, its
//! fields recorded as the facade's guide lists them (`hookchain::guide::observability`: the
//! GenAI fields `otel.name`, `gen_ai.operation.name`, `gen_ai.tool.name`,
//! `gen_ai.conversation.id`, and hookchain's `hookchain.point`, `.turn`, `.decision`, `.hook`,
//! `.reason`, `.failures`, with `error.type` and `otel.status_code` when a hook failed). The
//! span's duration is the chain's.
//!
//! # The rules it keeps
//!
//! - **Nothing on the lean path.** Whether a subscriber may want the span is kept in one flag
//!   ([`wanted`]) that `tracing` sets through the spans' callsite whenever a subscriber is
//!   installed or changes its filter, moving the process-wide switch count on as an
//!   extension's switch does. A chain that may run its hooks with no check of their own (every
//!   hook a compiled-in fn, every extension enabled) is never so while the flag is set, so the
//!   turn's point methods read the flag only off that path, and then take the full dispatch,
//!   which times the chain and builds the span. With no subscriber, or one whose filter leaves
//!   `hookchain` at `INFO` out, nothing is read that was not read before.
//! - **Where the agent is.** A span's parent is the span the agent has entered (its turn, its
//!   request); the dispatch span is entered while the hooks run (or instruments the future of
//!   an async dispatch), so a hook's own spans and events nest under it.
//! - **A point nobody hooks is not dispatched**, so it has no span.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use tracing::Span;
use tracing::field::{Empty, FieldSet};
use tracing_core::callsite::Callsite;
use tracing_core::metadata::{Kind, Metadata};
use tracing_core::subscriber::Interest;

use hookchain_core::{Blocked, Decision, Flow, HookPoint, PointKind};

use crate::chain::{Outcome, Scope};

/// The target of the spans: `RUST_LOG=hookchain=info` keeps them.
pub(crate) const TARGET: &str = "hookchain";

/// Whether some subscriber may want the dispatch spans: what `tracing` last told [`CALLSITE`].
static WANTED: AtomicBool = AtomicBool::new(false);

/// The callsite of the dispatch spans as the fast paths see it: `tracing` tells it, whenever a
/// subscriber is installed or its filter changes, whether any subscriber could want a span of
/// [`TARGET`] at `INFO`, and it keeps the answer in [`WANTED`].
struct DispatchCallsite;

static CALLSITE: DispatchCallsite = DispatchCallsite;

static META: Metadata<'static> = Metadata::new(
    "hookchain.dispatch",
    TARGET,
    tracing::Level::INFO,
    Some(file!()),
    Some(line!()),
    Some(module_path!()),
    FieldSet::new(&[], tracing_core::identify_callsite!(&CALLSITE)),
    Kind::HINT,
);

impl Callsite for DispatchCallsite {
    fn set_interest(&self, interest: Interest) {
        WANTED.store(!interest.is_never(), Ordering::Relaxed);
        // After the flag: a chain that sees the new count sees the flag (Release / Acquire),
        // and checks again whether it may stay lean.
        hookchain_core::Extension::note_switch();
    }

    fn metadata(&self) -> &Metadata<'_> {
        &META
    }
}

/// Registers the callsite with `tracing` (once per process; a registry's build calls it), which
/// asks every subscriber at once and again whenever one is installed.
pub(crate) fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| tracing_core::callsite::register(&CALLSITE));
}

/// `true` unless no subscriber can want the dispatch spans: one relaxed load. `true` may still
/// mean no span (a subscriber that decides span by span): the full dispatch then asks again,
/// and builds nothing.
#[inline(always)]
pub(crate) fn wanted() -> bool {
    WANTED.load(Ordering::Relaxed)
}

/// The GenAI operation a dispatch of `point` hooks into, where the conventions name one.
fn operation(point: &str) -> Option<&'static str> {
    match point {
        "intercept_tool_call"
        | "permission_request"
        | "transform_tool_result"
        | "after_tool_call" => Some("execute_tool"),
        "before_llm_call" | "after_llm_call" => Some("chat"),
        _ => None,
    }
}

/// The span of a dispatch of `P` in `scope` whose value names the tool `tool`, not entered;
/// [`Span::none`] when no subscriber wants it.
#[cold]
pub(crate) fn dispatch_span<P: HookPoint>(tool: Option<&str>, scope: &Scope<'_>) -> Span {
    let operation = operation(P::NAME);
    let span = tracing::info_span!(
        target: TARGET,
        "hookchain.dispatch",
        otel.name = Empty,
        otel.status_code = Empty,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.conversation.id = scope.session_id,
        hookchain.point = P::NAME,
        hookchain.turn = Empty,
        hookchain.decision = Empty,
        hookchain.hook = Empty,
        hookchain.reason = Empty,
        hookchain.failures = Empty,
        error.type = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let name = match (operation, tool) {
        (Some(operation), Some(tool)) => format!("{operation} {tool}"),
        (Some(operation), None) => operation.to_owned(),
        (None, _) => format!("hookchain {}", P::NAME),
    };
    span.record("otel.name", name);
    if let Some(operation) = operation {
        span.record("gen_ai.operation.name", operation);
    }
    if let Some(tool) = tool {
        span.record("gen_ai.tool.name", tool);
    }
    if scope.frame.in_turn() {
        span.record("hookchain.turn", scope.turn);
    }
    span
}

/// What a dispatch of `P` that gave `outcome` decided: the decision, the deciding hook, the
/// reason of a block, and whether the block is a failure.
pub(crate) fn decided<P: HookPoint, T>(
    outcome: &Outcome<T>,
) -> (Decision, Option<&str>, Option<&str>, bool) {
    match &outcome.flow {
        Flow::Blocked(Blocked {
            hook,
            reason,
            failed,
            ..
        }) => (Decision::Block, Some(hook), Some(reason), *failed),
        Flow::Continue(_) => match outcome.rewritten_by.last() {
            None => (Decision::Pass, None, None, false),
            Some(last) if P::KIND == PointKind::Inject => {
                (Decision::Inject, Some(last), None, false)
            }
            Some(last) => (Decision::Rewrite, Some(last), None, false),
        },
    }
}

/// Records on `span` what the dispatch decided.
#[cold]
pub(crate) fn record<P: HookPoint, T>(span: &Span, outcome: &Outcome<T>) {
    if span.is_disabled() {
        return;
    }
    let (decision, hook, reason, failed) = decided::<P, T>(outcome);
    span.record("hookchain.decision", decision.as_str());
    if let Some(hook) = hook {
        span.record("hookchain.hook", hook);
    }
    if let Some(reason) = reason {
        span.record("hookchain.reason", reason);
    }
    if !outcome.failures.is_empty() || failed {
        span.record("hookchain.failures", outcome.failures.len().max(1));
        span.record(
            "error.type",
            if failed {
                "hook_failed_closed"
            } else {
                "hook_failed"
            },
        );
        span.record("otel.status_code", "ERROR");
    }
}

#[cfg(test)]
mod tests {
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

    use crate::HooksBuilder;

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
}
