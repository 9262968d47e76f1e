//! The built-in hook points and their payloads.
//!
//! | point | kind | value (what the agent passes; hooks borrow it) | a rewrite carries |
//! |---|---|---|---|
//! | `session_start` | inject | [`SessionStartEvent`] | context for the session (`String`) |
//! | `session_end` | observe | [`SessionEndEvent`] | — |
//! | `session_reset` | observe | [`SessionResetEvent`] | — |
//! | `transform_user_input` | transform | `String` (hooks see `&str`) | the new text |
//! | `turn_start` | inject | [`TurnStartEvent`] | context for this turn only (`String`) |
//! | `before_llm_call` | inject | [`LlmCall`] | an [`Injection`] |
//! | `after_llm_call` | observe | [`LlmReply`] | — |
//! | `intercept_tool_call` | transform | [`ToolCall`] | the new **args** (`Value`) |
//! | `permission_request` | transform | [`PermissionAsk`] | a [`PermissionGrant`]: allowed without asking; a block denies |
//! | `transform_tool_result` | transform | [`ToolResult`] | the new `tool_response` (`Value`) |
//! | `after_tool_call` | observe | [`ToolResult`] | — |
//! | `after_tool_batch` | inject | [`ToolBatch`] | context for the next model call (`String`); a block stops the turn |
//! | `transform_response` | transform | `String` (hooks see `&str`) | the new reply |
//! | `on_stop` | transform | [`StopEvent`] | the new final reply; a block makes the agent redo |
//! | `before_compaction` | transform | [`Compaction`] | the summary to use; a block vetoes |
//! | `after_compaction` | observe | [`CompactionDone`] | — |
//! | `subagent_stop` | observe | [`SubagentStopEvent`] | — |
//! | `outbound_message` | transform | [`Outbound`] | the new text |
//! | `slash_command` ([`OnSlashCommand`]) | transform | [`SlashCommand`] | the new **args** (`String`); a block refuses the command |
//! | `turn_end` ([`TurnEnded`]) | observe | [`TurnEndEvent`] | — |
//! | `notification` ([`Notify`]) | observe | [`Notification`] (its [`NotificationKind`]) | — |
//!
//! On observe points the rewrite type is [`Observed`](crate::Observed), which has no values:
//! hooks return `()`.
//!
//! [`catalog`] lists every built-in point with its kind and the names other agents use for it.
//!
//! Every built-in point is declared once, as a row of one table (`points/table.rs`), and every
//! list of them — the types and their `HookPoint` impls, the catalog, the names
//! `#[register_hook]` knows — is generated from it.
//!
//! The payloads are grouped by the part of the agent loop they belong to: the session, the
//! turn, the model call, the tool calls, compaction, and notifications.

mod builtin;
mod command;
mod compaction;
mod llm;
mod notification;
mod session;
mod table;
mod tools;
mod turn;

pub use builtin::*;
pub use command::SlashCommand;
pub use compaction::{Compaction, CompactionDone};
pub use llm::{Injection, LlmCall, LlmReply, Message, Role};
pub use notification::{Level, Notification, NotificationKind};
pub use session::{
    SessionEndEvent, SessionResetEvent, SessionSource, SessionStartEvent, SubagentStopEvent,
};
pub use tools::{PermissionAsk, PermissionGrant, ToolBatch, ToolBlock, ToolCall, ToolResult};
pub use turn::{Outbound, StopEvent, TurnEnd, TurnEndEvent, TurnStartEvent};
