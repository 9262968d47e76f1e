//! The payloads of a session's life: where it comes from ([`SessionSource`]), its start, reset
//! and end, and the stop of a child session ([`SubagentStopEvent`]).

use serde::{Deserialize, Serialize};

/// Where a session comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionSource {
    /// A new conversation.
    Startup,
    /// A conversation started over by `Session::reset` (read from Claude Code's spelling,
    /// `clear`, too: its `/clear`).
    #[serde(alias = "clear")]
    Reset,
    /// A child agent's session, started by `Session::child`.
    Subagent,
    /// A conversation the agent resumed (Claude Code's `--resume`): the agent starts its
    /// session with `Hooks::session_with(id, SessionSource::Resume)`.
    Resume,
    /// The same conversation, its context just compacted: the agent fires `session_start` with
    /// this source after a compaction (`Session::restart(SessionSource::Compact)`), so hooks
    /// re-inject what the summary lost (Claude Code's `SessionStart` with `source: compact`).
    Compact,
}

/// The payload of `session_start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionStartEvent {
    /// The new session.
    pub session_id: String,
    /// The parent's session id, for a child agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    /// Why the session starts.
    pub source: SessionSource,
    /// The context injected so far by earlier hooks, in chain order.
    #[serde(default)]
    pub context: Vec<String>,
}

/// The payload of `session_end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEndEvent {
    /// The session.
    pub session_id: String,
    /// Why it ended, as the agent said (`"exit"`, `"logout"`, …; `"dropped"` when its last
    /// handle was dropped without `end`).
    pub reason: String,
}

/// The payload of `session_reset`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionResetEvent {
    /// The id before the reset; its state is gone.
    pub old_session_id: String,
    /// The id after the reset.
    pub new_session_id: String,
}

/// The payload of `subagent_stop`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubagentStopEvent {
    /// The child's session.
    pub session_id: String,
    /// The parent's session.
    pub parent_session_id: String,
    /// Why the child stopped.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::SessionSource;

    /// Claude Code's `clear` (its `/clear`) is a reset; hookchain writes `reset`.
    #[test]
    fn claude_codes_clear_reads_as_a_reset() {
        let read: SessionSource = serde_json::from_str("\"clear\"").unwrap();
        assert_eq!(read, SessionSource::Reset);
        assert_eq!(serde_json::to_string(&read).unwrap(), "\"reset\"");
    }
}
