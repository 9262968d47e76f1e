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
