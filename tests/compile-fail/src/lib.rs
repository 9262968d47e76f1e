//! The compile errors of `#[register_hook]` (`tests/ui/*.rs` and their `.stderr` snapshots),
//! in a package of their own so that the crates other workspace members bring into the build
//! cannot change how rustc spells a type in them.
