//! `max-iterations`: at most N model calls per turn; the call past N is refused and a
//! `notification` fires.
//!
//! # What it owns
//!
//! A count of the turn's model calls, in the turn's state under
//! [`COUNT_KEY`](MaxIterations::COUNT_KEY) (`max-iterations.calls`, a number any hook may read),
//! raised by one on every `before_llm_call` of the turn. The turn's state is cleared when the
//! turn ends, so every turn starts again at 0.
//!
//! # The rules it keeps
//!
//! - Calls 1 to `max` pass. Call `max + 1`, and every later one of the same turn, is blocked
//!   with a reason the agent ends the turn with (the model is not called, so the reason is what
//!   the user reads): which guard stopped the turn, after how many calls, and how to go on.
//! - The first refused call of a turn fires one `notification` ([`NotificationKind::MaxIterations`],
//!   level warning, source `max-iterations`), so the hooks and scripts listening on
//!   `on_max_iterations` (docker-agent's and Starchild's name for it) hear that the cap was
//!   reached; the later refused calls of that turn fire none.
//! - Every `before_llm_call` the agent fires counts, whatever the hooks after this guard do with
//!   it (the guard runs first, at [`PRIORITY`](crate::PRIORITY)).
//! - Outside a turn (`Hooks::dispatch`, `hookchain test`) each dispatch has a state of its own,
//!   so each is call 1.
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   max-iterations:
//!     enabled: true
//!     max: 25          # model calls per turn (default 25; at least 1)
//! ```
//!
//! or `Hooks::builder().builtin(MaxIterations { max: 40 })`.
//!
//! docker-agent's `type: builtin` entry `max_iterations` under `before_llm_call`
//! (`args: ["50"]`) loads as this guard with `max: 50`. docker-agent counts the model calls of
//! one run of its loop — one user message, a turn here — and stops the run with a block, as this
//! guard does. Its builtin needs the number (it does nothing without one) and has no default;
//! hookchain's 25 is in the 20–50 its documentation advises for `max_iterations`. Where
//! docker-agent's builtin is quiet (a missing, non-numeric or non-positive limit, another event
//! than `before_llm_call`), hookchain leaves the entry out with a warning naming the file and
//! line. docker-agent reports its builtin's stop as a hook-driven shutdown (an error
//! notification); hookchain fires a notification of the iteration-cap kind, which is what it is.

use serde::{Deserialize, Deserializer, Serialize};

use crate::{BuiltinExtension, hook_options, reason};
use hookchain_core::points::{BeforeLlmCall, Injection, LlmCall};
use hookchain_core::{HookContext, HookResult, Level, Notification, NotificationKind};
use hookchain_runtime::HooksBuilder;

/// The `max-iterations` guard and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{BuiltinsExt, MaxIterations};
/// use hookchain::prelude::*;
/// use hookchain::points::LlmCall;
///
/// let hooks = Hooks::builder().builtin(MaxIterations { max: 2 }).build().unwrap();
/// let turn = hooks.session("doc").begin_turn();
/// assert!(!turn.before_llm_call(LlmCall::default()).is_blocked());
/// assert!(!turn.before_llm_call(LlmCall::default()).is_blocked());
/// let Flow::Blocked(stop) = turn.before_llm_call(LlmCall::default()) else { panic!() };
/// assert!(stop.reason.starts_with("max-iterations: "), "{}", stop.reason);
/// turn.end(TurnEnd::MaxIterations);
/// // A new turn counts from 0 again.
/// let turn = hooks.session("doc").begin_turn();
/// assert!(!turn.before_llm_call(LlmCall::default()).is_blocked());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MaxIterations {
    /// The most model calls one turn may make (default 25; at least 1).
    #[serde(deserialize_with = "at_least_one")]
    pub max: u32,
}

impl Default for MaxIterations {
    fn default() -> Self {
        MaxIterations { max: 25 }
    }
}

impl MaxIterations {
    /// The turn-state key of the turn's count of model calls so far.
    pub const COUNT_KEY: &'static str = "max-iterations.calls";

    /// docker-agent's name for it, as a `type: builtin` entry's `command`.
    pub const DOCKER_AGENT: &'static str = "max_iterations";

    /// The config section a docker-agent `type: builtin` entry `max_iterations` of `event`
    /// (hookchain's point name: docker-agent's `before_llm_call` is `before_llm_call`) with
    /// `args` stands for, or why it is left out.
    ///
    /// ```
    /// use hookchain::guards::MaxIterations;
    ///
    /// let section = MaxIterations::docker_agent_section(&["50".into()], "before_llm_call").unwrap();
    /// assert_eq!(section, serde_json::json!({"enabled": true, "max": 50}));
    /// assert!(MaxIterations::docker_agent_section(&[], "before_llm_call").is_err());
    /// assert!(MaxIterations::docker_agent_section(&["50".into()], "turn_start").is_err());
    /// ```
    pub fn docker_agent_section(args: &[String], event: &str) -> Result<serde_json::Value, String> {
        if event != "before_llm_call" {
            return Err(format!(
                "`max_iterations` counts model calls on `before_llm_call`; under `{event}` it \
                 counts nothing (docker-agent's does nothing there either)"
            ));
        }
        let max = match args {
            [n] => n.trim().parse::<u32>().ok().filter(|n| *n > 0),
            _ => None,
        };
        let Some(max) = max else {
            return Err(format!(
                "`max_iterations` takes one positive number of model calls (`args: [\"50\"]`), \
                 found {args:?}"
            ));
        };
        Ok(serde_json::json!({ "enabled": true, "max": max }))
    }

    /// Counts one more model call in `cx`'s turn: `None` while the count is within `max`, and
    /// for a call past it, the reason to block with (the first refused call of the turn also
    /// asks for the notification).
    fn count_call(&self, cx: &HookContext) -> Result<Option<String>, String> {
        let calls = cx
            .turn_state()
            .update::<u64, _>(Self::COUNT_KEY, |n| {
                *n = n.saturating_add(1);
                *n
            })
            .map_err(|e| e.to_string())?;
        let max = u64::from(self.max);
        if calls <= max {
            return Ok(None);
        }
        if calls == max + 1 {
            cx.notify(
                Notification::new(
                    Level::Warning,
                    reason(
                        Self::NAME,
                        format!(
                            "the turn reached its limit of {max} model call(s); call {calls} \
                             was refused and the turn ends"
                        ),
                    ),
                )
                .source(Self::NAME)
                .kind(NotificationKind::MaxIterations),
            );
        }
        Ok(Some(reason(
            Self::NAME,
            format!(
                "the agent stopped after {max} model call(s), the most one turn may make; the \
                 work is not finished: send a new message to go on, or raise `max` in the \
                 `max-iterations` config"
            ),
        )))
    }
}

impl BuiltinExtension for MaxIterations {
    const NAME: &'static str = "max-iterations";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        builder
            .hook_with(BeforeLlmCall, hook_options(Self::NAME), guard_hook)
            .config_type::<MaxIterations>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

/// The hook: counts the call and blocks the one past the cap.
fn guard_hook(_: &LlmCall, cx: &HookContext) -> Result<HookResult<Injection>, String> {
    let config = cx.config::<MaxIterations>().map_err(|e| e.to_string())?;
    Ok(match config.count_call(cx)? {
        Some(why) => HookResult::block(why),
        None => HookResult::Pass,
    })
}

/// `max` is a positive number: a cap of 0 would refuse every model call.
fn at_least_one<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let max = u32::deserialize(deserializer)?;
    if max == 0 {
        return Err(serde::de::Error::custom(
            "`max` is 0, which would refuse every model call: set at least 1, or leave the \
             guard disabled",
        ));
    }
    Ok(max)
}
