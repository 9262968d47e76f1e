//! The registry the agent would build from the same hooks, config and allowlist, read for what
//! `list`, `test` and `doctor` report: which extensions are switched off and by whom, which hooks
//! are required, and what a project's file tried to switch off and was refused.

use hookchain_config::consent::{Consent, ConsentPolicy};
use hookchain_config::{Config, ConfigBuilderExt};
use hookchain_external::ExternalHook;
use hookchain_runtime::{HookInfo, HookSource, Hooks, HooksBuilder};

/// The state of a hook whose extension is on.
pub(crate) const ON: &str = "on";

/// The registry the agent would build from `hooks` and `config`, with the hooks that are
/// approved: for what is switched off, and by whom. Nothing is approved, and nothing runs.
///
/// With `hooks_enabled: false` in the user's file, every extension that holds no required hook
/// is switched off, as `init()` switches them off.
pub(crate) fn registry(hooks: HooksBuilder, config: &Config, consent: Option<&Consent>) -> Hooks {
    let registry = hooks
        .config(config.clone())
        .consent(
            consent.cloned().unwrap_or_else(Consent::in_memory),
            ConsentPolicy::new(),
        )
        .build_lenient();
    if let (Some(false), Some(at)) = (config.hooks_enabled(), config.hooks_enabled_at()) {
        hookchain_config::switch_off_all(&registry, at);
    }
    registry
}

/// The hooks of `registry` that are compiled in (not configured).
pub(crate) fn compiled_in(registry: &Hooks) -> Vec<&HookInfo> {
    registry
        .hooks()
        .iter()
        .filter(|h| h.source != HookSource::External)
        .collect()
}

/// `on`, or `disabled by FILE:LINE` (`disabled by the agent's code`): the state of the hooks of
/// `extension` in `registry`.
pub(crate) fn state(registry: &Hooks, extension: &str) -> String {
    match registry.extension(extension) {
        Some(e) if !e.is_enabled() => match e.disabled_by() {
            Some(who) => format!("disabled by {who}"),
            None => "disabled".to_owned(),
        },
        _ => ON.to_owned(),
    }
}

/// `state`, with `, required` for a required hook.
pub(crate) fn with_required(state: String, required: bool) -> String {
    if required {
        format!("{state}, required")
    } else {
        state
    }
}

/// `true` when the registry (or the config) has `hook` required: `required: true` in its file,
/// or required by the agent's code.
pub(crate) fn configured_required(registry: &Hooks, hook: &ExternalHook) -> bool {
    hook.required
        || registry
            .hooks()
            .iter()
            .any(|h| h.required && h.point == hook.point && *h.name == hook.name)
}

/// What the registry refused of the config that the config's own warnings do not say already.
pub(crate) fn refusals(registry: &Hooks, config: &Config) -> Vec<String> {
    registry
        .refusals()
        .into_iter()
        .filter(|r| !config.warnings().contains(r))
        .collect()
}

/// The config a lenient build left out, as the registry's error notices say it (a misspelt
/// guard name, a field that does not fit: the guard it meant does not run, or runs without those
/// settings), less what was said already: a section left out is an error notice as well as the
/// config's error or refusal, and `said(error)` tells whether that error was said.
pub(crate) fn left_out(registry: &Hooks, said: impl Fn(&str) -> bool) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for notice in registry.notices() {
        if notice.level != hookchain_core::Level::Error {
            continue;
        }
        let already = notice
            .message
            .strip_suffix("; the section is left out")
            .is_some_and(|error| said(error) || found.iter().any(|f| f.contains(error)));
        if !already {
            found.push(notice.message.clone());
        }
    }
    found
}
