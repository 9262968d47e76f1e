//! The driver: [`Session`] and [`Turn`], the agent's side of hookchain.
//!
//! # What it owns
//!
//! A [`Session`] is one conversation: its id, its [`SessionState`], the context its
//! `session_start` hooks injected, and its turns. A [`Turn`] is one run of the agent for one user
//! message: its own [`TurnState`], and one method per hook point, which runs the point's chain
//! and hands back a [`Flow`] (transform and inject points) or the value itself (observe points).
//! Both are cheap to clone (an `Arc`), `Send` and `Sync`: share them between threads and tasks.
//!
//! # Sync and async, end to end
//!
//! Every firing method has an `_async` twin that awaits async hooks instead of blocking:
//! [`Hooks::session_async`], [`Session::child_async`], [`Session::end_async`],
//! [`Session::reset_async`], [`Session::fire_async`], one per point on [`Turn`]
//! ([`Turn::intercept_tool_call_async`], ...), [`Turn::run_tool_async`],
//! [`Turn::on_stop_async`], [`Turn::fire_async`] and [`Turn::end_async`]. An async agent uses
//! those and never blocks an executor thread. The sync methods drive async hooks themselves, as
//! the [chain docs](crate::chain#async-hooks) say: inside a current-thread tokio runtime an async
//! hook that would wait fails at once, under its `on_error`, with an error naming the `_async`
//! method to call instead — it never hangs.
//!
//! # The rules it keeps
//!
//! - `session_start` fires when the session is created ([`Hooks::session`],
//!   [`Hooks::session_with`], [`Session::child`], [`Session::reset`] and their `_async` twins);
//!   the context it injects is kept for the whole session ([`Session::context`]). It fires
//!   again only when the agent calls [`Session::restart`].
//! - `session_end` fires at most once, from [`Session::end`] or [`Session::end_async`] with the
//!   agent's reason; a second call does nothing. A child session fires `subagent_stop`, carrying
//!   its parent's id, just before its `session_end`. [`Session::reset`] fires `session_reset`
//!   instead and starts a new session under the new id.
//! - Each turn starts with an empty [`TurnState`] of its own. `turn_end` fires exactly once per
//!   turn, from [`Turn::end`] or [`Turn::end_async`] with its reason (a second call does
//!   nothing), and the turn state is cleared right after.
//! - Two turns of one session may run at once (two runs of the agent): each has its own state,
//!   and ending one leaves the other's alone.
//! - **Drop.** A turn whose last clone is dropped without `end`, or a session whose last clone is
//!   dropped without `end`, ends all the same — on an early return, a `?`, a panic — but a `Drop`
//!   cannot await and must not block on a script or an endpoint, so it runs **no async hook and
//!   no external hook**. It warns (`tracing::warn!`) that `end`/`end_async` was not called, runs
//!   the sync hooks compiled into the program (`#[register_hook]` fns and builder closures) of
//!   `turn_end` — with [`TurnEnd::Canceled`], or [`TurnEnd::Error`] when dropped by a panic — or
//!   of `subagent_stop` and `session_end` — with the reason `"dropped"` —, and frees the state.
//! - The agent calls [`Turn::turn_start`] once per turn, after `transform_user_input` and before
//!   the turn's first model call; the context it returns is for that turn's model calls only.
//! - `permission_request`, `after_tool_batch` and the notifications of the iteration cap and of
//!   waiting for the user fire where the agent calls them ([`Turn::permission_request`] where it
//!   would ask the user to confirm a call, [`Turn::after_tool_batch`] once the calls of one model
//!   reply have run, [`Turn::max_iterations_reached`], [`Turn::waiting_for_user`]): hookchain
//!   cannot see those moments of the agent's loop.
//! - [`Hooks::session_with`] starts a session with a source of the agent's choosing (a resumed
//!   conversation); [`Session::restart`] fires `session_start` again on the same session
//!   (after a compaction).
//! - Parallel tool calls of one turn dispatch concurrently, each through the whole chain.
//! - Agent-facing context and user-facing warnings that hooks add are kept by the turn in the
//!   order they were added ([`Turn::take_context`], [`Turn::take_warnings`]).
//!
//! One file per job: `lifecycle` (a session: its start, children, restart, reset and end),
//! `turn` (a turn and the firing of its points), `command` (a slash command run for the user),
//! `tools` (a tool call run through its points), `call_tool` (the tools extensions give the
//! model: offered, activated, and called), `emit` (the event bus: events delivered after the
//! dispatch that emitted them), `stop` (`on_stop` and its redos), and `firing` (what both fire
//! with).

mod call_tool;
mod command;
mod emit;
mod firing;
mod lifecycle;
mod stop;
mod tools;
mod turn;

pub use emit::{Firer, firer};
pub use emit::{MAX_EMIT_DEPTH, MAX_EVENTS_PER_CALL};
pub use lifecycle::Session;
pub use stop::Stop;
pub use tools::ToolRun;
pub use turn::Turn;
