//! The dispatch through the facade, with no config file and no `#[register_hook]` fn: async
//! hooks end to end, async timeouts, a framework's own types. One test program; it runs with
//! every set of features.

#[path = "../support/mod.rs"]
mod support;

mod async_end_to_end;
mod async_timeout;
mod framework_types;
