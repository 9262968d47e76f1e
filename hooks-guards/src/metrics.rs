//! `metrics`: counts of dispatches per point, per decision and per tool, readable from Rust.
//!
//! # What it owns
//!
//! One wildcard hook on `"*"` (extension `metrics`, off by default) counts every dispatch of
//! every point — built-in and your own — by point and decision (`pass`, `rewrite`, `inject`,
//! `block`), every tool call (each dispatch of `intercept_tool_call`) by tool and decision,
//! the blocks by the hook that blocked, and the hooks that failed. [`Metrics::snapshot`] reads
//! them from the registry.
//!
//! # The rules it keeps
//!
//! - The counters belong to the registry (kept with it as an attachment), never to the
//!   process: two registries count apart.
//! - The counting hook reads no payload ([`HookOptions::without_payload`]): a dispatch it alone
//!   watches builds no JSON. While the extension is disabled, nothing is counted and no event
//!   is built.
//! - A count is exact: every dispatch that ran while the extension was enabled is counted
//!   once, whatever the number of threads dispatching.
//!
//! # Through the `metrics` facade (feature `metrics`)
//!
//! With the cargo feature `metrics`, every count also goes to the recorder the program installed
//! for the [`metrics`](https://docs.rs/metrics) crate, so its Prometheus or OpenTelemetry
//! exporter shows them with no hookchain code:
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `hookchain_dispatches_total` | counter | `point`, `decision` |
//! | `hookchain_tool_calls_total` | counter | `tool`, `decision` |
//! | `hookchain_blocks_total` | counter | `hook` |
//! | `hookchain_hook_failures_total` | counter | `hook` |
//! | `hookchain_dispatch_duration_seconds` | histogram | `point` |
//!
//! With no recorder installed, the facade drops them at the cost of a load per metric.
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   metrics:
//!     enabled: true
//! ```
//!
//! ```
//! use hookchain::guards::{BuiltinsExt, Metrics};
//! use hookchain::prelude::*;
//!
//! let hooks = Hooks::builder().builtin(Metrics::default()).build().unwrap();
//! let turn = hooks.session("metrics-doc").begin_turn();
//! let _ = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
//! let counts = Metrics::snapshot(&hooks).unwrap();
//! assert_eq!(counts.tools["ls"]["pass"], 1);
//! assert_eq!(counts.points["intercept_tool_call"]["pass"], 1);
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use hookchain_core::points::InterceptToolCall;
use hookchain_core::{DispatchEvent, HookContext, HookPoint, OnError};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::BuiltinExtension;

/// The `metrics` guard (it has no settings but `enabled`; see the [module docs](self)).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Metrics {}

/// The counts at one moment: [`Metrics::snapshot`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MetricsSnapshot {
    /// Every dispatch counted.
    pub dispatches: u64,
    /// Per point (canonical name), per decision (`pass`, `rewrite`, `inject`, `block`).
    pub points: BTreeMap<String, BTreeMap<String, u64>>,
    /// Per decision, over every point.
    pub decisions: BTreeMap<String, u64>,
    /// Per tool, per decision of its `intercept_tool_call`: one count per tool call.
    pub tools: BTreeMap<String, BTreeMap<String, u64>>,
    /// Per hook that blocked, how many times it did.
    pub blocked_by: BTreeMap<String, u64>,
    /// Per hook that failed (panicked or returned `Err`), how many times it did.
    pub failures: BTreeMap<String, u64>,
}

/// The counters of one registry.
#[derive(Default)]
struct Counters(Mutex<MetricsSnapshot>);

/// How the registry keeps its counters.
struct Kept(Arc<Counters>);

impl Counters {
    fn count(&self, event: &DispatchEvent) {
        let decision = event.decision.as_str();
        let mut counts = self.0.lock();
        counts.dispatches += 1;
        *counts
            .points
            .entry(event.point.to_owned())
            .or_default()
            .entry(decision.to_owned())
            .or_default() += 1;
        *counts.decisions.entry(decision.to_owned()).or_default() += 1;
        if event.point == <InterceptToolCall as HookPoint>::NAME
            && let Some(tool) = &event.tool
        {
            *counts
                .tools
                .entry(tool.clone())
                .or_default()
                .entry(decision.to_owned())
                .or_default() += 1;
        }
        if let (hookchain_core::Decision::Block, Some(hook)) = (event.decision, &event.hook) {
            *counts.blocked_by.entry(hook.clone()).or_default() += 1;
        }
        for failure in &event.failures {
            let hook = failure.split(": ").next().unwrap_or(failure);
            *counts.failures.entry(hook.to_owned()).or_default() += 1;
        }
        drop(counts);
        #[cfg(feature = "metrics")]
        report(event, decision);
    }
}

/// Hands the counts of one dispatch to the `metrics` facade's recorder (see the module docs).
#[cfg(feature = "metrics")]
fn report(event: &DispatchEvent, decision: &'static str) {
    metrics::counter!("hookchain_dispatches_total", "point" => event.point, "decision" => decision)
        .increment(1);
    metrics::histogram!("hookchain_dispatch_duration_seconds", "point" => event.point)
        .record(event.duration.as_secs_f64());
    if event.point == <InterceptToolCall as HookPoint>::NAME
        && let Some(tool) = &event.tool
    {
        metrics::counter!("hookchain_tool_calls_total", "tool" => tool.clone(), "decision" => decision)
            .increment(1);
    }
    if let (hookchain_core::Decision::Block, Some(hook)) = (event.decision, &event.hook) {
        metrics::counter!("hookchain_blocks_total", "hook" => hook.clone()).increment(1);
    }
    for failure in &event.failures {
        let hook = failure.split(": ").next().unwrap_or(failure);
        metrics::counter!("hookchain_hook_failures_total", "hook" => hook.to_owned()).increment(1);
    }
}

impl Metrics {
    /// The counts of `hooks` so far; `None` when the registry has no `metrics` (not added by
    /// a config entry or [`BuiltinExtension::install`]). A registry whose `metrics` is disabled has the
    /// counts of the time it was enabled.
    pub fn snapshot(hooks: &Hooks) -> Option<MetricsSnapshot> {
        hooks
            .attachment::<Kept>()
            .map(|kept| kept.0.0.lock().clone())
    }

    /// Sets every count of `hooks` back to zero.
    pub fn reset(hooks: &Hooks) {
        if let Some(kept) = hooks.attachment::<Kept>() {
            *kept.0.0.lock() = MetricsSnapshot::default();
        }
    }
}

impl BuiltinExtension for Metrics {
    const NAME: &'static str = "metrics";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        let counters = Arc::new(Counters::default());
        let counting = Arc::clone(&counters);
        builder
            .watch(
                "*",
                HookOptions::new(Self::NAME)
                    .extension(Self::NAME)
                    .priority(i32::MIN)
                    .on_error(OnError::Pass)
                    .without_payload(),
                move |event: &DispatchEvent, _: &HookContext| counting.count(event),
            )
            .attach(Kept(counters))
            .config_type::<Metrics>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

#[cfg(all(test, feature = "metrics"))]
mod facade_tests {
    use hookchain_core::HookResult;
    use hookchain_core::points::ToolCall;
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};
    use serde_json::json;

    use super::*;
    use crate::BuiltinsExt;

    /// The value of the counter `name` whose labels are exactly `labels`.
    fn counter(
        snapshot: &[(
            metrics_util::CompositeKey,
            Option<metrics::Unit>,
            Option<metrics::SharedString>,
            DebugValue,
        )],
        name: &str,
        labels: &[(&str, &str)],
    ) -> Option<u64> {
        snapshot.iter().find_map(|(key, _, _, value)| {
            let key = key.key();
            let same = key.name() == name
                && key.labels().count() == labels.len()
                && labels
                    .iter()
                    .all(|(k, v)| key.labels().any(|l| l.key() == *k && l.value() == *v));
            match (same, value) {
                (true, DebugValue::Counter(n)) => Some(*n),
                _ => None,
            }
        })
    }

    #[test]
    fn every_count_reaches_the_installed_recorder() {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        metrics::with_local_recorder(&recorder, || {
            let hooks = HooksBuilder::new()
                .builtin(Metrics::default())
                .hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
                    if call.name == "rm" {
                        HookResult::block("no rm")
                    } else {
                        HookResult::Pass
                    }
                })
                .build()
                .unwrap();
            let turn = hooks.session("metrics-facade").begin_turn();
            let _ = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
            let _ = turn.intercept_tool_call(ToolCall::new("ls", json!({})));
            let _ = turn.intercept_tool_call(ToolCall::new("rm", json!({})));
            turn.end(hookchain_core::TurnEnd::Normal);
        });
        let snapshot = snapshotter.snapshot().into_vec();
        let point = ("point", "intercept_tool_call");
        assert_eq!(
            counter(
                &snapshot,
                "hookchain_dispatches_total",
                &[point, ("decision", "pass")]
            ),
            Some(2)
        );
        assert_eq!(
            counter(
                &snapshot,
                "hookchain_dispatches_total",
                &[point, ("decision", "block")]
            ),
            Some(1)
        );
        assert_eq!(
            counter(
                &snapshot,
                "hookchain_tool_calls_total",
                &[("tool", "ls"), ("decision", "pass")]
            ),
            Some(2)
        );
        assert_eq!(
            counter(
                &snapshot,
                "hookchain_tool_calls_total",
                &[("tool", "rm"), ("decision", "block")]
            ),
            Some(1)
        );
        let blocked_by = snapshot.iter().any(|(key, _, _, value)| {
            key.key().name() == "hookchain_blocks_total" && matches!(value, DebugValue::Counter(1))
        });
        assert!(blocked_by, "the block is counted by the hook that blocked");
        let durations = snapshot.iter().any(|(key, _, _, value)| {
            key.key().name() == "hookchain_dispatch_duration_seconds"
                && matches!(value, DebugValue::Histogram(v) if v.len() >= 3)
        });
        assert!(durations, "every dispatch records its duration");
    }
}
