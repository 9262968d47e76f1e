//! The extensions hooks are grouped by, one per name, and switching and configuring them at
//! runtime.
//!
//! - Every hook belongs to one extension, and the registry keeps one [`Extension`] per name:
//!   [`Hooks::disable_extension`] flips one flag that every chain reads, on every thread, before
//!   each hook it reaches; the chains themselves never change. The extension also holds its
//!   config section, loaded and checked as the [`sections`](crate::sections) module says.
//! - An extension is on by default; one declared off by default
//!   ([`HooksBuilder::off_by_default`](crate::HooksBuilder::off_by_default),
//!   `extension_config!(NAME, Type, enabled = false)`) is built disabled ("disabled by default")
//!   and runs once a section or the agent's code enables it.

use std::sync::Arc;

use hookchain_core::{ConfigError, Extension};

use super::commands::Command;
use super::error::ExtensionError;
use super::hooks::Hooks;
use super::info::HookInfo;
use super::manifests::Manifests;
use crate::sections::{self, Declared, Sections};

impl Hooks {
    /// Every extension, sorted by name: its name, whether it is enabled, how many hooks belong
    /// to it, and its config.
    pub fn extensions(&self) -> impl ExactSizeIterator<Item = &Extension> {
        self.inner.extensions.iter().map(|e| &**e)
    }

    /// The extension called `name`.
    pub fn extension(&self, name: &str) -> Option<&Extension> {
        self.inner
            .extensions
            .binary_search_by(|e| e.name().cmp(name))
            .ok()
            .map(|index| &*self.inner.extensions[index])
    }

    /// Enables the hooks of extension `name` in every chain, on every thread, from the next
    /// dispatch that starts (until [`disable_extension`](Hooks::disable_extension) or the next
    /// [`set_sections`](Hooks::set_sections)). A dispatch already under way may see the change
    /// from its next hook or not at all: see [`chain`](crate::chain).
    pub fn enable_extension(&self, name: &str) -> Result<(), ExtensionError> {
        self.set_enabled(name, true)
    }

    /// Disables the hooks of extension `name`: every chain skips them, on every thread, from the
    /// next dispatch that starts (until [`enable_extension`](Hooks::enable_extension) or the
    /// next [`set_sections`](Hooks::set_sections)). A dispatch already under way may still run
    /// the hooks it has not reached yet: see [`chain`](crate::chain).
    pub fn disable_extension(&self, name: &str) -> Result<(), ExtensionError> {
        self.set_enabled(name, false)
    }

    fn set_enabled(&self, name: &str, enabled: bool) -> Result<(), ExtensionError> {
        let Some(extension) = self.extension(name) else {
            let known: Vec<String> = self.extensions().map(|e| e.name().to_owned()).collect();
            return Err(ExtensionError::Unknown {
                name: name.to_owned(),
                suggestion: hookchain_core::suggest::closest(
                    name,
                    known.iter().map(String::as_str),
                )
                .map(str::to_owned),
                known,
            });
        };
        extension.set_enabled(enabled);
        tracing::info!(
            extension = name,
            "extension `{name}` {}",
            if enabled { "enabled" } else { "disabled" }
        );
        Ok(())
    }

    /// Replaces the sections of every extension: checks `sections` whole (as
    /// [`HooksBuilder::build`](crate::HooksBuilder::build) does), then gives each extension its new
    /// section and `enabled` flag (`true` when its section does not say). On an error nothing
    /// changes. Safe while other threads dispatch: see [`sections`](crate::sections).
    pub fn set_sections(&self, sections: Sections) -> Result<(), ConfigError> {
        let _one_at_a_time = self.inner.config_lock.lock();
        let (plan, errors) = sections::plan(
            &sections,
            &self.inner.extensions,
            &self.inner.declared,
            &self.inner.infos,
        );
        if let Some(error) = errors.into_iter().next() {
            return Err(error);
        }
        self.inner
            .refusals
            .lock()
            .extend(plan.refusals.iter().cloned());
        plan.apply(&self.inner.extensions);
        Ok(())
    }
}

/// One extension per name among the hooks, the declared config types, the tools
/// (`(extension, tool)`) and the slash commands, sorted by name; off by default when a
/// declaration says so or it is in `off`.
pub(super) fn extensions(
    infos: &[HookInfo],
    declared: &[Declared],
    off: &[String],
    tools: &[(String, String)],
    commands: &[Command],
    manifests: &Manifests,
) -> Vec<Arc<Extension>> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for info in infos {
        *counts.entry(&info.extension).or_default() += 1;
    }
    for d in declared {
        counts.entry(&d.extension).or_default();
    }
    for (extension, _) in tools {
        counts.entry(extension).or_default();
    }
    for c in commands {
        counts.entry(&c.info.extension).or_default();
    }
    let commands_of = |name: &str| -> Vec<String> {
        commands
            .iter()
            .filter(|c| c.info.extension == name)
            .map(|c| c.info.name.clone())
            .collect()
    };
    for name in manifests.names() {
        counts.entry(name).or_default();
    }
    counts
        .into_iter()
        .map(|(name, hooks)| {
            let on = !off.iter().any(|o| o == name)
                && !declared
                    .iter()
                    .any(|d| d.extension == name && !d.enabled_by_default);
            let tools = tools
                .iter()
                .filter(|(extension, _)| extension == name)
                .map(|(_, tool)| tool.clone())
                .collect();
            let extension = Extension::new(name, hooks)
                .with_tools(tools)
                .with_commands(commands_of(name))
                .with_default(on);
            Arc::new(match manifests.of(name) {
                Some(manifest) => extension.with_manifest(Arc::clone(manifest)),
                None => extension,
            })
        })
        .collect()
}
