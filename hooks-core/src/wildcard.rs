//! Wildcard subscriptions: hooks that observe every dispatch of the points a pattern matches.
//!
//! # What it owns
//!
//! A wildcard hook (`#[register_hook("*")]`, `#[register_hook("after_*")]`,
//! `HooksBuilder::watch`, a `"*"` key in `hookchain.yaml`'s `hooks:` map) observes
//! **dispatches**, not payload types: it is called once after a point's chain has run, with one
//! uniform [`DispatchEvent`] — the point's canonical name and kind, the session and turn, the
//! payload as JSON, the [`Decision`] with the hook that blocked or rewrote and its reason, the
//! hooks that failed, and how long the chain took.
//!
//! This module owns the event, the [`Pattern`] a wildcard hook subscribes with, and the hidden
//! point type [`Wildcard`] that lets `#[register_hook]` check a wildcard hook's signature as it
//! checks every other hook's.
//!
//! # The rules it keeps
//!
//! - A pattern is `"*"` (every point: built-in and user-defined with `hook_point!`) or
//!   `"PREFIX*"`: every point whose canonical name starts with `PREFIX` (`"after_*"` is
//!   `after_llm_call`, `after_tool_call`, `after_tool_batch`, `after_compaction`). This is how
//!   Hermes' gateway subscribes to `command:*` (the handlers of `command:reset` are those of
//!   `command:reset` plus those of `command:*`): points of your own named `myapp:...` are all
//!   matched by `"myapp:*"`. Aliases are not matched, only canonical names; a `*` anywhere but
//!   at the end is refused.
//! - A pattern must be able to match: a prefix that starts no built-in point's name is refused
//!   (with the closest prefix that does, "did you mean `after_*`?") unless it holds a `:`, the
//!   separator of a namespace of points of your own. `#[register_hook]` checks it at compile
//!   time; the builder and config files when the registry is built, naming the hook and where
//!   it is defined.
//! - Observe-only: a wildcard hook returns `()` (or `Result<(), E>`); it cannot rewrite or block.
//!   It runs after the chain, so it never changes the outcome: a wildcard hook that panics or
//!   fails is caught, logged, listed among the outcome's failures (and so reported through
//!   `notification`), and the flow is the chain's.
//! - Cost: which wildcard hooks watch a point is resolved when its chain is built; a point no
//!   wildcard hook watches dispatches exactly as without them, and builds no event and no JSON.
//!
//! # Config
//!
//! ```yaml
//! # hookchain.yaml: an external hook on every dispatch; it reads the event below on stdin
//! hooks:
//!   "*":
//!     - command: ./audit.sh
//!   "after_*":
//!     - command: ./after.sh
//! ```
//!
//! ```
//! # use hookchain::{DispatchEvent, HookContext, HookOptions, HooksBuilder};
//! let hooks = HooksBuilder::new()
//!     .watch("*", HookOptions::new("log"), |ev: &DispatchEvent, _: &HookContext| {
//!         eprintln!("{} {} in {:?}", ev.point, ev.decision, ev.duration);
//!     })
//!     .build()
//!     .unwrap();
//! # let _ = hooks;
//! ```
//!
//! The event as JSON ([`DispatchEvent::to_json`], what an external wildcard hook reads):
//!
//! ```json
//! {"hook_event_name": "intercept_tool_call", "point": "intercept_tool_call",
//!  "kind": "transform", "session_id": "s1", "turn": 0, "tool": "shell", "decision": "block",
//!  "hook": "guards::no_rm", "reason": "no rm", "failed": false, "failures": [],
//!  "duration_us": 12, "payload": {"name": "shell", "args": {"cmd": "rm -rf /"}, "id": null}}
//! ```

use std::fmt;
use std::time::Duration;

use serde_json::{Value, json};

use crate::point::{HookPoint, Observed, PointKind};

/// What a dispatch decided, as a wildcard hook sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Every hook passed: the value went on unchanged.
    Pass,
    /// A hook rewrote the value (on a transform point).
    Rewrite,
    /// A hook injected context (on an inject point).
    Inject,
    /// A hook blocked: the chain stopped.
    Block,
}

impl Decision {
    /// `"pass"`, `"rewrite"`, `"inject"` or `"block"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Pass => "pass",
            Decision::Rewrite => "rewrite",
            Decision::Inject => "inject",
            Decision::Block => "block",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One dispatch of a point, after its chain ran: what a wildcard hook gets.
///
/// Built only when some wildcard hook watches the point, once per dispatch, whatever the number
/// of wildcard hooks watching it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DispatchEvent {
    /// The point's canonical name (`"intercept_tool_call"`, or a point of your own).
    pub point: &'static str,
    /// The point's kind.
    pub kind: PointKind,
    /// The session the dispatch ran in (`""` outside any session).
    pub session_id: String,
    /// The index of the turn the dispatch ran in; `None` outside any turn.
    pub turn: Option<u64>,
    /// The tool's name, on the points whose value is a tool call or its result
    /// (`intercept_tool_call`, `permission_request`, `after_tool_call`,
    /// `transform_tool_result`).
    pub tool: Option<String>,
    /// What the chain decided.
    pub decision: Decision,
    /// The hook that blocked; for a rewrite or an injection, the last hook that made one.
    pub hook: Option<String>,
    /// Why the hook blocked.
    pub reason: Option<String>,
    /// `true` when the block is a failure: a hook that failed under `on_error = "block"`, or a
    /// required hook that could not run.
    pub failed: bool,
    /// Every hook that rewrote or injected, in chain order.
    pub rewritten_by: Vec<String>,
    /// The hooks that failed (panicked or returned `Err`), as `hook: error`, in chain order.
    pub failures: Vec<String>,
    /// How long the chain took.
    pub duration: Duration,
    /// The value as it came into the chain, as JSON: `Null` for a point whose value has no JSON
    /// form ([`HookPoint::payload_json`]), and when every wildcard hook that runs on this
    /// dispatch said it does not read it (`HookOptions::without_payload`), so that none is
    /// built.
    pub payload: Value,
}

impl DispatchEvent {
    /// The event of a dispatch of `point` that decided `decision`, outside any session, with
    /// no hook named, no failure and no duration: what a test of a wildcard hook starts from.
    pub fn new(point: &'static str, kind: PointKind, decision: Decision, payload: Value) -> Self {
        DispatchEvent {
            point,
            kind,
            session_id: String::new(),
            turn: None,
            tool: None,
            decision,
            hook: None,
            reason: None,
            failed: false,
            rewritten_by: Vec::new(),
            failures: Vec::new(),
            duration: Duration::ZERO,
            payload,
        }
    }

    /// The event as one JSON object: what an external wildcard hook reads on stdin, and what
    /// `audit-log` writes with `points: ["*"]` (see the [module docs](self)).
    pub fn to_json(&self) -> Value {
        json!({
            "hook_event_name": self.point,
            "point": self.point,
            "kind": self.kind.as_str(),
            "session_id": self.session_id,
            "turn": self.turn,
            "tool": self.tool,
            "decision": self.decision.as_str(),
            "hook": self.hook,
            "reason": self.reason,
            "failed": self.failed,
            "rewritten_by": self.rewritten_by,
            "failures": self.failures,
            "duration_us": u64::try_from(self.duration.as_micros()).unwrap_or(u64::MAX),
            "payload": self.payload,
        })
    }
}

/// The point type behind wildcard hooks: `#[register_hook("*")]` checks a wildcard hook's
/// signature against it (`&DispatchEvent` in, `()` out), and its records carry it. It is never
/// dispatched itself. Not a public API.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Wildcard;

impl HookPoint for Wildcard {
    const NAME: &'static str = "*";
    const KIND: PointKind = PointKind::Observe;
    type Value = DispatchEvent;
    type Input = DispatchEvent;
    type Rewrite = Observed;
    fn input(value: &DispatchEvent) -> &DispatchEvent {
        value
    }
    fn apply(_: &mut DispatchEvent, rewrite: Observed) {
        match rewrite {}
    }
}

/// What a wildcard hook subscribes to: `"*"` or `"PREFIX*"` (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pattern {
    prefix: String,
}

/// Why a pattern is refused: a sentence naming the pattern and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PatternError(String);

impl Pattern {
    /// `true` when `text` is written as a wildcard pattern (it holds a `*`), so that it is read
    /// as one rather than as a point's name.
    pub fn is_wildcard(text: &str) -> bool {
        text.contains('*')
    }

    /// Reads `"*"` or `"PREFIX*"`, checked against `builtin` (the canonical names of the
    /// built-in points): the prefix must start one of them, or hold a `:` (a namespace of points
    /// of your own).
    pub fn parse<'a>(
        text: &str,
        builtin: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Result<Pattern, PatternError> {
        if !text.ends_with('*') && text.contains('*') {
            return Err(PatternError(format!(
                "wildcard pattern `{text}`: `*` goes only at the end (`*`, `after_*`, `myapp:*`)"
            )));
        }
        let Some(prefix) = text.strip_suffix('*') else {
            return Err(PatternError(format!(
                "`{text}` is not a wildcard pattern: write `*` (every point) or `PREFIX*` \
                 (every point whose name starts with PREFIX)"
            )));
        };
        if prefix.contains('*') {
            return Err(PatternError(format!(
                "wildcard pattern `{text}`: `*` goes only at the end (`*`, `after_*`, `myapp:*`)"
            )));
        }
        let pattern = Pattern {
            prefix: prefix.to_owned(),
        };
        if prefix.is_empty()
            || prefix.contains(':')
            || builtin
                .clone()
                .into_iter()
                .any(|name| pattern.matches(name))
        {
            return Ok(pattern);
        }
        let prefixes = prefixes(builtin);
        let hint = match crate::suggest::closest(prefix, prefixes.iter().map(String::as_str)) {
            Some(close) => format!("did you mean `{close}*`?"),
            None => format!(
                "the prefixes of the built-in points are {}",
                prefixes
                    .iter()
                    .map(|p| format!("`{p}*`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Err(PatternError(format!(
            "wildcard pattern `{text}` matches no built-in point — {hint} (points of your own \
             are matched by a namespace ending in `:`, as in `myapp:*`)"
        )))
    }

    /// `text` kept for the life of the program, once per distinct text however many registries
    /// name it: the `&'static str` a wildcard hook's pattern is listed under, like a point's
    /// name.
    pub fn intern(text: &str) -> &'static str {
        static KEPT: parking_lot::Mutex<Vec<&'static str>> = parking_lot::Mutex::new(Vec::new());
        let mut kept = KEPT.lock();
        if let Some(known) = kept.iter().find(|k| **k == text) {
            return known;
        }
        let new: &'static str = Box::leak(text.to_owned().into_boxed_str());
        kept.push(new);
        new
    }

    /// `true` when the point named `point` (its canonical name) is watched.
    pub fn matches(&self, point: &str) -> bool {
        point.starts_with(&self.prefix)
    }

    /// The pattern as written: `*`, `after_*`.
    pub fn as_str(&self) -> String {
        format!("{}*", self.prefix)
    }
}

/// Every prefix of `names` that ends at a `_` (`after_`, `session_`, `transform_tool_`), for the
/// did-you-mean of a pattern.
fn prefixes<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut prefixes: Vec<String> = names
        .into_iter()
        .flat_map(|name| {
            name.match_indices('_')
                .map(move |(at, _)| name[..=at].to_owned())
        })
        .collect();
    prefixes.sort();
    prefixes.dedup();
    prefixes
}

#[cfg(test)]
mod tests {
    use super::*;

    const POINTS: [&str; 4] = [
        "after_llm_call",
        "after_tool_call",
        "intercept_tool_call",
        "session_start",
    ];

    fn parse(text: &str) -> Result<Pattern, String> {
        Pattern::parse(text, POINTS).map_err(|e| e.to_string())
    }

    #[test]
    fn star_matches_everything_and_a_prefix_its_points() {
        let all = parse("*").unwrap();
        assert!(POINTS.iter().all(|p| all.matches(p)) && all.matches("myapp:sent"));
        let after = parse("after_*").unwrap();
        let matched: Vec<_> = POINTS.into_iter().filter(|p| after.matches(p)).collect();
        assert_eq!(matched, ["after_llm_call", "after_tool_call"]);
        let mine = parse("myapp:*").unwrap();
        assert!(mine.matches("myapp:sent") && !mine.matches("after_llm_call"));
        assert_eq!(mine.as_str(), "myapp:*");
    }

    #[test]
    fn a_pattern_that_cannot_match_is_refused_with_the_closest_prefix() {
        assert_eq!(
            parse("atfer_*").unwrap_err(),
            "wildcard pattern `atfer_*` matches no built-in point — did you mean `after_*`? \
             (points of your own are matched by a namespace ending in `:`, as in `myapp:*`)"
        );
        assert!(
            parse("a*b")
                .unwrap_err()
                .contains("`*` goes only at the end")
        );
        assert!(
            parse("after")
                .unwrap_err()
                .contains("is not a wildcard pattern")
        );
        assert!(Pattern::is_wildcard("*") && !Pattern::is_wildcard("after_tool_call"));
    }
}
