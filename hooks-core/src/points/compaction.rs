//! The payloads of compaction: the messages about to be compacted ([`Compaction`]) and what
//! replaced them ([`CompactionDone`]).

use serde::{Deserialize, Serialize};

use super::llm::Message;

/// The payload of `before_compaction`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compaction {
    /// The messages about to be compacted.
    pub messages: Vec<Message>,
    /// `"auto"` (the context is full) or `"manual"` (the user asked).
    pub trigger: String,
    /// A summary supplied by a hook, to use instead of the agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// The payload of `after_compaction`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionDone {
    /// The summary that replaced the messages.
    pub summary: String,
    /// How many messages there were before.
    pub messages_before: usize,
    /// How many there are after.
    pub messages_after: usize,
}
