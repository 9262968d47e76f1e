//! The table of built-in points: the one place a built-in point is declared.
//!
//! Every list of the built-in points is generated from [`__builtin_points!`]: the point types
//! and their `HookPoint` impls, [`catalog`](crate::points::catalog) and
//! [`resolve`](crate::points::resolve), [`BUILTIN_SLOTS`](crate::points::BUILTIN_SLOTS), the
//! names `#[register_hook]` knows, and the tests that go through every point. Adding a point is
//! one row here, plus its payload type in [`points`](crate::points) and its line in the table of
//! that module's docs (a unit test fails until the line is there).
//!
//! The table is a callback macro: `__builtin_points!(path::to::callback)` expands to
//! `path::to::callback! { ROWS }` (in item or expression position, wherever it is invoked), one
//! row per point, in the order of the agent loop; `__builtin_points!([ARGS] => callback)` expands
//! to `callback! { [ARGS] ROWS }`, for a callback that needs tokens of its caller (a value to
//! match on, the names of its variables):
//!
//! ```text
//! /// Docs of the point type.
//! TypeName {
//!     name: "canonical_name",
//!     kind: Transform | Inject | Observe,              // a `PointKind` variant
//!     fires: "when it fires, for the catalog",
//!     aliases: [("OtherName", "Agent"), ...],          // other agents' names for it
//!     slot: N,                                         // index in the runtime's fixed table
//!     on_error: Pass | Block | Warn,                   // `DEFAULT_ON_ERROR`, an `OnError` variant
//!     value: Type,                                     // `HookPoint::Value`
//!     input: Type,                                     // `HookPoint::Input`
//!     rewrite: Type,                                   // `HookPoint::Rewrite`
//!     apply: |value, rewrite| expression,              // `HookPoint::apply`
//! }
//! ```
//!
//! The fields come in this order, always all of them, so a callback that needs only the first
//! ones matches `$point:ident { name: .., kind: .., fires: .., aliases: [..], $($rest:tt)* }`.
//! Types are written as full paths (`$crate::points::ToolCall`), so a callback expands in any
//! crate; the types of the `apply` closure's arguments are `&mut value` and `rewrite`.

/// The table of built-in points: `__builtin_points!(callback)` expands to `callback! { ROWS }`,
/// one row per point (the row format is in `hooks-core/src/points/table.rs`).
///
/// Not a public API: reach it as `hookchain_core::__private::builtin_points`.
#[doc(hidden)]
#[macro_export]
macro_rules! __builtin_points {
    // `builtin_points!([ARGS] => callback)`: `callback! { [ARGS] ROWS }`, for a callback that needs
    // values of its caller (names of its variables, an expression to match on).
    ([$($args:tt)*] => $($callback:tt)+) => {
        $crate::__builtin_points! { @rows [[$($args)*]] $($callback)+ }
    };
    (@rows [$($prefix:tt)*] $($callback:tt)+) => {
        $($callback)+! {
            $($prefix)*
            /// `session_start`: a new session starts (and again after a reset). Inject.
            ///
            /// Hooks return context (`HookResult::Rewrite(text)`) that persists for the whole session: the
            /// agent gets it back from `Session::context()` and adds it to its model calls. Injections
            /// accumulate in chain order.
            ///
            /// [`SessionStartEvent::source`](crate::SessionStartEvent::source) says why: a new
            /// conversation, a reset, a child agent's session (Claude Code's `SubagentStart`: its
            /// context goes into the child's session), a resumed conversation, or the same one
            /// after a compaction. External hooks configured as `SubagentStart` fire for child
            /// sessions only, and hooks configured as Claude Code's `SessionStart` for the others.
            SessionStart {
                name: "session_start",
                kind: Inject,
                fires: "a session starts: new, reset, a child agent's (SubagentStart), resumed, or after a compaction",
                aliases: [
                    ("on_session_start", "Hermes"),
                    ("SessionStart", "Claude Code"),
                    ("SubagentStart", "Claude Code"),
                    ("sessionStart", "Cursor"),
                    ("subagentStart", "Cursor"),
                ],
                slot: 4,
                on_error: Pass,
                value: $crate::points::SessionStartEvent,
                input: $crate::points::SessionStartEvent,
                rewrite: ::std::string::String,
                apply: |v, r| v.context.push(r),
            }

            /// `session_end`: the session ends. Observe.
            SessionEnd {
                name: "session_end",
                kind: Observe,
                fires: "the session ends, with its reason",
                aliases: [
                    ("on_session_end", "Hermes"),
                    ("SessionEnd", "Claude Code"),
                    ("session_shutdown", "Pi"),
                    ("sessionEnd", "Cursor"),
                ],
                slot: 5,
                on_error: Pass,
                value: $crate::points::SessionEndEvent,
                input: $crate::points::SessionEndEvent,
                rewrite: $crate::Observed,
                apply: |v, r| match r {},
            }

            /// `session_reset`: the session id was rotated (`/new`). Observe.
            SessionReset {
                name: "session_reset",
                kind: Observe,
                fires: "the session id is rotated (/new)",
                aliases: [
                    ("on_session_reset", "Hermes"),
                    ("on_session_finalize", "Hermes"),
                ],
                slot: 6,
                on_error: Pass,
                value: $crate::points::SessionResetEvent,
                input: $crate::points::SessionResetEvent,
                rewrite: $crate::Observed,
                apply: |v, r| match r {},
            }

            /// `transform_user_input`: a user message arrives, before the model sees it. Transform.
            ///
            /// Hooks see the text (`&str`), rewrite it with a `String`, or block with a reply for the user.
            TransformUserInput {
                name: "transform_user_input",
                kind: Transform,
                fires: "a user message arrives, before the model sees it",
                aliases: [
                    ("on_user_message", "Hermes"),
                    ("UserPromptSubmit", "Claude Code"),
                    ("user_prompt_submit", "docker-agent"),
                    ("input", "Pi"),
                    ("BeforeAgent", "Gemini CLI"),
                    ("beforeSubmitPrompt", "Cursor"),
                    ("userPromptSubmitted", "Copilot"),
                ],
                slot: 0,
                on_error: Pass,
                value: ::std::string::String,
                input: ::core::primitive::str,
                rewrite: ::std::string::String,
                apply: |v, r| *v = r,
            }

            /// `turn_start`: the turn starts, once per run of the agent, after `transform_user_input`
            /// and before the turn's first model call. Inject.
            ///
            /// Hooks see the user's message as the model will get it
            /// ([`TurnStartEvent::prompt`](crate::TurnStartEvent::prompt)) and return context
            /// (`HookResult::Rewrite(text)`) for **this turn only**: the agent adds it to every
            /// model call of the turn and keeps it out of the conversation, so the next turn starts
            /// without it (docker-agent's `turn_start`, Pi's `before_agent_start`). Injections
            /// accumulate in chain order; a block ends the turn before any model call, its reason
            /// the reply.
            TurnStart {
                name: "turn_start",
                kind: Inject,
                fires: "the turn starts (once per run), before its first model call",
                aliases: [
                    ("before_agent_start", "Pi"),
                ],
                slot: 17,
                on_error: Pass,
                value: $crate::points::TurnStartEvent,
                input: $crate::points::TurnStartEvent,
                rewrite: ::std::string::String,
                apply: |v, r| v.context.push(r),
            }

            /// `before_llm_call`: before every model call. Inject.
            ///
            /// Hooks see the whole [`LlmCall`](crate::LlmCall) and return an
            /// [`Injection`](crate::Injection) of system text and/or user text, or block the call.
            /// Injections accumulate in chain order: each later hook sees the call with the earlier
            /// injections applied.
            BeforeLlmCall {
                name: "before_llm_call",
                kind: Inject,
                fires: "before every model call",
                aliases: [
                    ("pre_llm_call", "Hermes"),
                    ("context", "Pi"),
                    ("BeforeModel", "Gemini CLI"),
                ],
                slot: 1,
                on_error: Pass,
                value: $crate::points::LlmCall,
                input: $crate::points::LlmCall,
                rewrite: $crate::points::Injection,
                apply: |v, r| v.inject(r),
            }

            /// `after_llm_call`: the model replied. Observe.
            AfterLlmCall {
                name: "after_llm_call",
                kind: Observe,
                fires: "after a model reply",
                aliases: [
                    ("post_llm_call", "Hermes"),
                    ("AfterModel", "Gemini CLI"),
                ],
                slot: 7,
                on_error: Pass,
                value: $crate::points::LlmReply,
                input: $crate::points::LlmReply,
                rewrite: $crate::Observed,
                apply: |v, r| match r {},
            }

            /// `intercept_tool_call`: before a tool runs. Transform.
            ///
            /// Hooks see the [`ToolCall`](crate::ToolCall), rewrite its **args** (the name and id
            /// stay), or block it with an error the model sees.
            InterceptToolCall {
                name: "intercept_tool_call",
                kind: Transform,
                fires: "before a tool runs",
                aliases: [
                    ("pre_tool_call", "Hermes"),
                    ("PreToolUse", "Claude Code"),
                    ("pre_tool_use", "docker-agent"),
                    ("tool_call", "Pi"),
                    ("BeforeTool", "Gemini CLI"),
                    ("preToolUse", "Cursor"),
                    ("beforeShellExecution", "Cursor"),
                    ("beforeMCPExecution", "Cursor"),
                    ("beforeReadFile", "Cursor"),
                ],
                slot: 2,
                on_error: Pass,
                value: $crate::points::ToolCall,
                input: $crate::points::ToolCall,
                rewrite: $crate::__private::serde_json::Value,
                apply: |v, r| v.args = r,
            }

            /// `permission_request`: the agent is about to ask the user to confirm a tool call. Transform.
            ///
            /// The agent fires it where it would prompt for a permission (a call that no rule
            /// allowed), after `intercept_tool_call`. A rewrite
            /// ([`PermissionGrant`](crate::PermissionGrant)) allows the call without asking, with
            /// new args when the grant carries them; a block denies it, the reason an error for the
            /// model; a pass leaves the choice to the user. A later hook's block wins over an
            /// earlier hook's grant: the chain stops at the block.
            PermissionRequest {
                name: "permission_request",
                kind: Transform,
                fires: "the agent is about to ask the user to confirm a tool call",
                aliases: [
                    ("PermissionRequest", "Claude Code"),
                    ("permissionRequest", "Copilot"),
                ],
                slot: 18,
                on_error: Pass,
                value: $crate::points::PermissionAsk,
                input: $crate::points::PermissionAsk,
                rewrite: $crate::points::PermissionGrant,
                apply: |v, r| v.grant(r),
            }

            /// `transform_tool_result`: a tool returned, before the model sees the result. Transform.
            ///
            /// Hooks see the call as it actually ran (after every rewrite) and its result; they rewrite the
            /// result's `tool_response`, add context for the model (`cx.add_context`), or block, which
            /// replaces the result with the reason as an error.
            TransformToolResult {
                name: "transform_tool_result",
                kind: Transform,
                fires: "a tool returned, before the model sees the result",
                aliases: [
                    ("tool_result", "Pi"),
                    ("tool_response_transform", "Starchild"),
                    ("PostToolUse", "Claude Code"),
                    ("post_tool_use", "docker-agent"),
                    ("AfterTool", "Gemini CLI"),
                    ("postToolUse", "Cursor"),
                ],
                slot: 8,
                on_error: Pass,
                value: $crate::points::ToolResult,
                input: $crate::points::ToolResult,
                rewrite: $crate::__private::serde_json::Value,
                apply: |v, r| v.tool_response = r,
            }

            /// `after_tool_call`: a tool ran, whether it succeeded or failed, or a hook blocked the
            /// call. Observe.
            ///
            /// Hooks see every call of `Turn::run_tool`, the refused ones included, so an audit
            /// hook misses none: for a call `intercept_tool_call` blocked, the tool did not run,
            /// the [`ToolResult`](crate::ToolResult) carries the call as the model asked for it,
            /// the reason as an error `tool_response`, and the block in `blocked` (who blocked,
            /// why, and whether it was a failure under `on_error = "block"`). External hooks
            /// configured under another agent's event name (Hermes' `post_tool_call`, or in a
            /// Claude Code or docker-agent file) are not fired for a refused call, as their agents
            /// fire no post-tool event for a denied call; hookchain's own protocol sends them the
            /// `blocked` record. External hooks configured as Claude Code's `PermissionDenied` fire
            /// for the refused calls only.
            AfterToolCall {
                name: "after_tool_call",
                kind: Observe,
                fires: "after a tool ran (success or error), or a hook blocked it (PermissionDenied)",
                aliases: [
                    ("post_tool_call", "Hermes"),
                    ("tool_execution_end", "Pi"),
                    ("PermissionDenied", "Claude Code"),
                    ("postToolUseFailure", "Cursor"),
                    ("afterShellExecution", "Cursor"),
                    ("afterMCPExecution", "Cursor"),
                    ("afterFileEdit", "Cursor"),
                ],
                slot: 9,
                on_error: Pass,
                value: $crate::points::ToolResult,
                input: $crate::points::ToolResult,
                rewrite: $crate::Observed,
                apply: |v, r| match r {},
            }

            /// `after_tool_batch`: every call of a batch the model asked for at once has run (or was
            /// refused), before the next model call. Inject.
            ///
            /// Hooks see every result of the batch together
            /// ([`ToolBatch::results`](crate::ToolBatch::results)) and return context
            /// (`HookResult::Rewrite(text)`) for the next model call; a block stops the turn before
            /// that call, its reason the reply (Claude Code's `PostToolBatch`).
            AfterToolBatch {
                name: "after_tool_batch",
                kind: Inject,
                fires: "every call of a batch of tool calls has run, before the next model call",
                aliases: [
                    ("PostToolBatch", "Claude Code"),
                ],
                slot: 19,
                on_error: Pass,
                value: $crate::points::ToolBatch,
                input: $crate::points::ToolBatch,
                rewrite: ::std::string::String,
                apply: |v, r| v.context.push(r),
            }

            /// `transform_response`: the final reply is assembled. Transform.
            ///
            /// Hooks see the reply (`&str`) and rewrite it (mask secrets, add a footer) or block it.
            TransformResponse {
                name: "transform_response",
                kind: Transform,
                fires: "the final reply is assembled",
                aliases: [
                    ("on_response_end", "Starchild"),
                    ("afterAgentResponse", "Cursor"),
                ],
                slot: 10,
                on_error: Pass,
                value: ::std::string::String,
                input: ::core::primitive::str,
                rewrite: ::std::string::String,
                apply: |v, r| *v = r,
            }

            /// `on_stop`: the agent is about to end its turn. Transform.
            ///
            /// A block tells the agent to go on: the reason becomes its next instruction. The
            /// number of such redos is capped per turn; on a repeat,
            /// [`StopEvent::stop_hook_active`](crate::StopEvent::stop_hook_active) is `true`. A
            /// rewrite replaces the final reply.
            OnStop {
                name: "on_stop",
                kind: Transform,
                fires: "the agent is about to end its turn",
                aliases: [
                    ("Stop", "Claude Code"),
                    ("stop", "docker-agent"),
                    ("on_completion_claim", "Starchild"),
                    ("AfterAgent", "Gemini CLI"),
                    ("agentStop", "Copilot"),
                ],
                slot: 11,
                on_error: Pass,
                value: $crate::points::StopEvent,
                input: $crate::points::StopEvent,
                rewrite: ::std::string::String,
                apply: |v, r| v.response = r,
            }

            /// `before_compaction`: the context is about to be compacted. Transform.
            ///
            /// A block vetoes the compaction; a rewrite supplies the summary to use instead of the agent's.
            BeforeCompaction {
                name: "before_compaction",
                kind: Transform,
                fires: "before the context is compacted",
                aliases: [
                    ("PreCompact", "Claude Code"),
                    ("pre_compact", "docker-agent"),
                    ("session_before_compact", "Pi"),
                    ("PreCompress", "Gemini CLI"),
                    ("preCompact", "Cursor"),
                ],
                slot: 12,
                on_error: Pass,
                value: $crate::points::Compaction,
                input: $crate::points::Compaction,
                rewrite: ::std::string::String,
                apply: |v, r| v.summary = ::core::option::Option::Some(r),
            }

            /// `after_compaction`: the context was compacted. Observe.
            AfterCompaction {
                name: "after_compaction",
                kind: Observe,
                fires: "after the context was compacted",
                aliases: [
                    ("PostCompact", "Claude Code"),
                ],
                slot: 13,
                on_error: Pass,
                value: $crate::points::CompactionDone,
                input: $crate::points::CompactionDone,
                rewrite: $crate::Observed,
                apply: |v, r| match r {},
            }

            /// `subagent_stop`: a child agent finished. Observe.
            SubagentStop {
                name: "subagent_stop",
                kind: Observe,
                fires: "a child agent finished",
                aliases: [
                    ("SubagentStop", "Claude Code"),
                    ("subagentStop", "Cursor"),
                ],
                slot: 14,
                on_error: Pass,
                value: $crate::points::SubagentStopEvent,
                input: $crate::points::SubagentStopEvent,
                rewrite: $crate::Observed,
                apply: |v, r| match r {},
            }

            /// `outbound_message`: a message is about to leave for a chat platform. Transform.
            OutboundMessage {
                name: "outbound_message",
                kind: Transform,
                fires: "before a message leaves for a chat platform",
                aliases: [
                    ("on_outbound_message", "Hermes"),
                ],
                slot: 15,
                on_error: Pass,
                value: $crate::points::Outbound,
                input: $crate::points::Outbound,
                rewrite: ::std::string::String,
                apply: |v, r| v.text = r,
            }

            /// `slash_command`: the user typed a slash command (`/notes add x`), before it runs.
            /// Transform.
            ///
            /// Hooks see the [`SlashCommand`](crate::points::SlashCommand) (its name and args),
            /// rewrite its **args** with a `String`, or block it: the command does not run and the
            /// user gets the reason as an error reply. Hermes' gateway hooks on `command:*` fire
            /// here.
            OnSlashCommand {
                name: "slash_command",
                kind: Transform,
                fires: "the user typed a slash command, before it runs",
                aliases: [
                    ("command:*", "Hermes"),
                ],
                slot: 20,
                on_error: Pass,
                value: $crate::points::SlashCommand,
                input: $crate::points::SlashCommand,
                rewrite: ::std::string::String,
                apply: |v, r| v.args = r,
            }

            /// `turn_end`: the turn ended, whatever the reason. Observe: every hook runs.
            TurnEnded {
                name: "turn_end",
                kind: Observe,
                fires: "the turn ended, whatever the reason",
                aliases: [
                    ("Interrupt", "Codex"),
                ],
                slot: 3,
                on_error: Pass,
                value: $crate::points::TurnEndEvent,
                input: $crate::points::TurnEndEvent,
                rewrite: $crate::Observed,
                apply: |v, r| match r {},
            }

            /// `notification`: the runtime or the agent reports something (a hook failed, a redo cap
            /// was reached, the agent hit its iteration cap or waits for the user). Observe.
            ///
            /// [`Notification::kind`](crate::Notification::kind) says what. External hooks
            /// configured under a name that stands for one kind fire for that kind only: `on_error`
            /// for notifications of [`Level::Error`](crate::Level::Error), `on_max_iterations` for
            /// [`NotificationKind::MaxIterations`](crate::NotificationKind::MaxIterations),
            /// `on_user_input` for
            /// [`NotificationKind::UserInput`](crate::NotificationKind::UserInput). Hooks
            /// registered in Rust under any of its names see every notification.
            Notify {
                name: "notification",
                kind: Observe,
                fires: "the runtime or the agent reports a warning, an error, its iteration cap, or that it waits for the user",
                aliases: [
                    ("Notification", "Claude Code"),
                    ("on_error", "Starchild"),
                    ("on_max_iterations", "Starchild"),
                    ("on_user_input", "docker-agent"),
                    ("errorOccurred", "Copilot"),
                ],
                slot: 16,
                on_error: Pass,
                value: $crate::points::Notification,
                input: $crate::points::Notification,
                rewrite: $crate::Observed,
                apply: |v, r| match r {},
            }
        }
    };
    ($($callback:tt)+) => {
        $crate::__builtin_points! { @rows [] $($callback)+ }
    };
}
