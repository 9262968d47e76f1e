//! hookchain-external's integration tests, one module per subject, in one test program;
//! `support` holds what they share.
//!
//! Two programs stay apart, in `tests/`: `command_no_leaks` and `fault_injection` count the
//! threads, descriptors and processes of their own process, which other tests running beside
//! them would change. `sigpipe` and `command`'s `env_clear` test run their bodies in a child
//! process of their own (one test alone, with its signal disposition or environment), so they
//! share this program.

#[path = "../support/mod.rs"]
mod support;

mod command;
mod dialect_scripts;
mod firing_dir_and_tap;
mod http;
mod process;
mod protocol;
mod sigpipe;
