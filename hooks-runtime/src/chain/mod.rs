//! Chains: the hooks of one point, in order, and how a value goes through them.
//!
//! # The chain rules
//!
//! Every point has one chain. Hooks run **one after another, in ascending priority** (lower runs
//! first); hooks with the same priority run in the order of their names, and hooks with the same
//! name in the order they were added, so the order is the same on every build and platform.
//!
//! 1. **Pass** — the next hook sees the value unchanged.
//! 2. **Rewrite** — the next hook sees the rewritten value; the agent gets the final value and the
//!    names of the hooks that rewrote it ([`Outcome::rewritten_by`]). On inject points a rewrite is
//!    an injection, and injections accumulate in chain order.
//! 3. **Block** — the chain stops at once; the agent gets the reason and the blocking hook's name
//!    ([`Blocked`](hookchain_core::Blocked)). Hooks after it do not run.
//! 4. **Metadata** — a hook may attach key/values (`cx.set_metadata`) that later hooks of the same
//!    dispatch read (`cx.metadata()`); the agent gets them with the outcome, together with the
//!    agent-facing context (`cx.add_context`), user-facing warnings (`cx.warn`) and the
//!    notifications hooks asked for (`cx.notify`, fired by the session or turn after the dispatch)
//!    of every hook, in chain order.
//! 5. **Failures** — a hook that panics or returns `Err` never takes the agent down, even when the
//!    panic's payload panics again as it is dropped. It is isolated, logged with `tracing`,
//!    recorded in [`Outcome::failures`], and handled by its `on_error` policy: `pass` goes on as if
//!    it had passed, `warn` goes on and adds a user-facing warning naming the hook, `block` blocks
//!    with a reason naming the hook. The value is never lost: a failed hook's partial work is
//!    discarded, and the next hook sees the value as it was before the failed one ran. A rewrite
//!    whose `apply` (the point's, see [`HookPoint::apply`](hookchain_core::HookPoint::apply))
//!    panics is a failure of the hook that returned it, handled the same way; the value is then
//!    what `apply` left — as before that hook when `apply` panics before writing to it (a point's
//!    `apply` cannot be undone, so it should check before it writes).
//! 6. **Determinism** — the same hooks and the same input give the same outcome, whatever the
//!    number of threads dispatching at once.
//!
//! On observe points every hook runs: a rewrite or a block is logged and ignored,
//! and `on_error = "block"` is treated as `pass`.
//!
//! The hooks of a disabled extension are skipped as if they were not in the chain, from the next
//! dispatch that starts after the extension was disabled. A dispatch already under way when an
//! extension is switched — by another thread, or by one of its own hooks — may see the switch
//! from its next hook (a chain that checks its hooks one by one) or not at all (a chain of
//! compiled-in fns that found every extension enabled when it started runs them all, see
//! [Cost](#cost)). Either way a hook whose extension was enabled when the dispatch started is
//! not skipped in silence: it runs, or, when it is required, the chain blocks.
//!
//! # Required hooks
//!
//! A required hook ([`HookOptions::required`](crate::HookOptions::required),
//! [`require_hook`](crate::HooksBuilder::require_hook),
//! [`require_extension`](crate::HooksBuilder::require_extension), `required: true` in a config
//! file) is never skipped in silence. When the dispatch reaches it and its extension is
//! disabled, the chain blocks there, with a reason naming the hook, where it is defined, its
//! extension and who disabled it (`disabled by ./hookchain.yaml:7`, `disabled by the agent's
//! code`). When it fails because it could not run at all
//! ([`HookError::cannot_run`](hookchain_core::HookError::cannot_run): its script changed since it
//! was approved, its transport cannot be built), the chain blocks whatever its `on_error`. Both
//! blocks are failures ([`Blocked::failed`](hookchain_core::Blocked)). Any other failure of a
//! required hook is handled by its `on_error`. On observe points nothing blocks: a disabled
//! required hook is skipped there, as every other.
//!
//! # Cost
//!
//! A chain is built once per point and then only read. The `Turn`'s point methods check first
//! whether the point has any hook (one flag per built-in point in the registry, read through the
//! turn with no lookup of the chain), like a disabled `tracing` callsite: a point nobody hooks
//! builds no context, no outcome, and sets up no unwind guard.
//!
//! A hooked point runs its **pass path** (`Chain::pass`) first: the value stays where the
//! caller has it and hooks get a reference to it; the context is built once on the stack; one
//! unwind guard covers the whole loop. A chain made only of compiled-in sync fns whose extensions
//! are all enabled runs them in a loop that tests nothing but each result: whether every
//! extension is still enabled is one compare per dispatch, of the process-wide count of
//! extension switches with the count at which the chain last found them all enabled (the flags
//! are read again only after a switch). A hook that passes then costs its call, one compare and
//! one pointer written into the context (the running hook, which also tells, after a panic,
//! which hook panicked). Any other chain (closures, async or external hooks, a disabled
//! extension) checks each hook: its kind, and its extension's flag when some extension of the
//! process is disabled. When every hook passes and none annotates, nothing else is
//! built and nothing is allocated: the annotations are made on first use, and the outcome's
//! lists are never assembled. The first hook that does anything else (rewrites, blocks, fails,
//! panics), or an annotation, hands over to `Chain::resume`, off the hot path, which settles
//! it, runs the rest of the chain with the full bookkeeping (one unwind guard, renewed after each
//! panic) and assembles the [`Outcome`]. The `Turn`'s point methods hand back the flow alone,
//! so they do not record which hooks rewrote: a rewrite allocates only its value.
//!
//! The context borrows the turn's and the session's state handles, so `cx.turn_state()` costs no
//! lookup; the dispatch also notes, in one thread-local cell, which registry, session and turn it
//! runs for, which is what lets `get_turn_state(id)` called from a hook find the hook's own
//! session. `benches/dispatch_instructions.rs` counts the instructions of a dispatch against the
//! same fns called through a slice of fn pointers; BENCHMARKS.md has the figures.
//!
//! # Wildcard hooks
//!
//! A chain also holds the wildcard hooks whose pattern matches its point
//! ([`hookchain_core::Pattern`], resolved when the chain is built). They run **after** the chain,
//! in (priority, name) order, each with the one [`DispatchEvent`](hookchain_core::DispatchEvent) of
//! the dispatch: the point, the session and turn, the payload as it came in (as JSON), the decision
//! with the hook that blocked or rewrote, the failures and the chain's duration. They only observe:
//! what they return, the context and warnings they add are ignored, and one that panics or fails is
//! logged and listed in [`Outcome::failures`] (so `notification` reports it) without changing the
//! flow. A disabled extension's wildcard hooks are skipped; a `Drop` runs none that is external.
//!
//! A chain nobody watches pays nothing for this: the `Turn`'s point methods read one more flag
//! per built-in point (set when the registry is built) only once the point is known to be
//! hooked, and a watched point goes through the full dispatch, off the pass path.
//!
//! # Async hooks
//!
//! Async hooks run inside the async dispatch (every `_async` method of
//! [`Turn`](crate::Turn), [`Session`](crate::Session) and [`Hooks`](crate::Hooks)), awaited in
//! chain order with the sync hooks between them. The synchronous dispatch drives them itself:
//!
//! - outside any tokio runtime, on the calling thread (parking between polls), which suits hooks
//!   that need no I/O reactor;
//! - inside a multi-thread tokio runtime (with the `tokio` feature), through the runtime:
//!   `tokio::task::block_in_place` and the runtime handle's `block_on`, so tokio's timers and I/O
//!   work;
//! - inside a current-thread tokio runtime, not at all: the one thread that could drive the
//!   hook's timers and I/O is the one waiting for it, so waiting would hang the runtime. A hook
//!   that finishes at its first poll still runs; one that would wait fails at once, under its
//!   `on_error`, with an error naming the `_async` method to call instead. (The runtime cannot
//!   tell its own thread from its `spawn_blocking` threads, so this holds there too.)
//!
//! Telling the runtimes apart needs the `tokio` feature: without it, the sync API drives async
//! hooks on the calling thread wherever it is called, and inside a tokio runtime only the time
//! limit ends a hook that waits on tokio.
//!
//! Every async hook has a time limit (default
//! [`DEFAULT_ASYNC_TIMEOUT`](crate::DEFAULT_ASYNC_TIMEOUT),
//! [`HooksBuilder::async_timeout`](crate::HooksBuilder::async_timeout); shorter on observe points),
//! in both dispatches: past it the hook is dropped at its next `.await` and fails with "timed out".
//!
//! # Where each part lives
//!
//! `entry` (a hook as a chain keeps it), `scope` (where a dispatch happens), `outcome` (what a
//! dispatch gives back), `dispatch` (the chain and its sync dispatch), `dispatch_async` (the
//! async dispatch), `event` (what wildcard hooks see) and `guard` (hooks run guarded).

mod dispatch;
mod dispatch_async;
mod entry;
mod event;
mod guard;
mod outcome;
mod scope;

pub(crate) use dispatch::{Chain, Stopped, report_unheard};
pub(crate) use entry::{AsyncClosure, Entry, Handler, SyncClosure};
pub(crate) use guard::take_panic;
pub use outcome::{HookFailure, Outcome};
pub(crate) use scope::Scope;
