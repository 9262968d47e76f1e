//! The payloads of a turn's edges: its start with the user's message ([`TurnStartEvent`]), the
//! agent's stop ([`StopEvent`]), the reply going out to a platform ([`Outbound`]), and its end
//! ([`TurnEnd`], [`TurnEndEvent`]).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The payload of `turn_start`: the user's message as the model will get it, and the context
/// hooks injected for this turn.
///
/// ```
/// use hookchain::points::{TurnStart, TurnStartEvent};
/// use hookchain::HookPoint;
///
/// let mut event = TurnStartEvent::new("fix the build");
/// TurnStart::apply(&mut event, "the CI runs `make check`".to_owned());
/// assert_eq!(event.context, ["the CI runs `make check`"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnStartEvent {
    /// The user's message, after `transform_user_input`.
    pub prompt: String,
    /// The context injected so far by earlier hooks, in chain order: for this turn's model calls
    /// only.
    #[serde(default)]
    pub context: Vec<String>,
}

impl TurnStartEvent {
    /// A turn start for the user's message `prompt`, with no context yet.
    pub fn new(prompt: impl Into<String>) -> Self {
        TurnStartEvent {
            prompt: prompt.into(),
            context: Vec::new(),
        }
    }
}

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason", content = "detail")]
pub enum TurnEnd {
    /// The agent replied and the turn is over.
    Normal,
    /// The turn failed; the message says how.
    Error(String),
    /// The turn was canceled (also: a `Turn` dropped without `end()`).
    Canceled,
    /// A hook blocked the turn.
    Blocked,
    /// The agent hit its iteration limit.
    MaxIterations,
}

impl fmt::Display for TurnEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnEnd::Normal => f.write_str("normal"),
            TurnEnd::Error(e) => write!(f, "error: {e}"),
            TurnEnd::Canceled => f.write_str("canceled"),
            TurnEnd::Blocked => f.write_str("blocked"),
            TurnEnd::MaxIterations => f.write_str("max_iterations"),
        }
    }
}

/// The payload of `turn_end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnEndEvent {
    /// The session.
    pub session_id: String,
    /// The turn's index in its session, from 0.
    pub turn: u64,
    /// Why it ended.
    pub reason: TurnEnd,
}

/// The payload of `on_stop`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopEvent {
    /// The reply the agent is about to end the turn with.
    pub response: String,
    /// `true` when the agent is already redoing because an `on_stop` hook blocked before.
    pub stop_hook_active: bool,
    /// How many times `on_stop` hooks made the agent redo in this turn so far.
    pub redos: u32,
}

/// The payload of `outbound_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outbound {
    /// The platform (`"slack"`, `"telegram"`, …).
    pub platform: String,
    /// The chat, channel or user the message goes to.
    pub recipient: String,
    /// The message.
    pub text: String,
}
