//! The runtime's integration tests, one module per behaviour, in one test program. What touches
//! process-wide state stays in a program of its own: `tests/eviction.rs` (idle eviction and the
//! count of live sessions in every registry) and `tests/trace.rs` (a scoped `tracing`
//! subscriber, whose callsites' interest is process-wide).
//!
//! The modules share the process: a session id looked up with `get_turn_state` from outside a
//! hook is unique across all of them.

mod support;

mod agent_points;
mod chain_model;
mod chain_rules;
mod concurrency;
mod lifecycle;
mod off_by_default;
mod panic_payloads;
mod panicking_apply;
mod project_rules;
mod required_hooks;
mod state_reentry;
mod tool_audit;
mod turn_state;
