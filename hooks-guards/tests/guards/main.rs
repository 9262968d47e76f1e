//! The guards' integration tests, one module per guard, in one test program; `support` holds
//! what they share.
//!
//! `workflow_guard` collects its own `#[register_hook]` fn with `collected_where`, naming it: no
//! other module builds a registry from the collected hooks.

mod support;

mod audit_log;
mod destructive_commands;
mod git_checkpoint;
mod inject;
mod max_iterations;
mod metrics;
mod module_router;
mod protected_paths;
mod secrets;
mod secrets_keys;
mod stop_verifier;
mod untrusted_repository;
mod workflow_guard;
