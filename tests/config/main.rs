//! Config files, consent, extensions, external hooks from config, the built-in guards and the
//! command line, through the facade: one test program, built with the `config` feature; the
//! modules that need more features are compiled only with them.
//!
//! No module defines a `#[register_hook]` fn or installs the global registry: each builds the
//! registries it tests (`Init::build`, never `install`), so that the modules cannot see each
//! other's hooks.

#[path = "../support/mod.rs"]
mod support;

mod config_files;
mod consent;
#[cfg(feature = "command")]
mod consent_bypasses;
#[cfg(any(feature = "command", feature = "guards"))]
mod dirs;
mod extensions;
#[cfg(all(feature = "command", feature = "http"))]
mod external_config;
mod fuzz_regressions;
#[cfg(all(feature = "guards", feature = "cli"))]
mod guards;
#[cfg(all(feature = "command", feature = "http"))]
mod hook_environment;
#[cfg(feature = "guards")]
mod project_rule;
#[cfg(all(feature = "command", feature = "cli"))]
mod wildcard_config;
