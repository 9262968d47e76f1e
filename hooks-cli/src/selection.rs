//! The configured hooks that `approve` and `revoke` act on: the ones named, as `list` names them,
//! or every one with `--all`. An unknown name is an error with a "did you mean", found before
//! anything is changed. The tools of external extensions are approved as hooks are, each named
//! `tool NAME` (as consent names it).

use hookchain_config::Config;
use hookchain_core::suggest::closest;
use hookchain_external::ExternalHook;

use crate::args::Names;
use crate::outcome::Failure;
use crate::target::one_line;

/// The hooks of `config` that `names` chooses, for `verb` (`approve`, `revoke`): an error when
/// there are none to choose from or a name is unknown.
pub(crate) fn chosen(
    config: &Config,
    names: &Names,
    verb: &str,
) -> Result<Vec<ExternalHook>, Failure> {
    let mut configured = config.external_hooks().to_vec();
    configured.extend(config.external_tools().map(|tool| tool.consent_hook()));
    let configured = configured.as_slice();
    if configured.is_empty() {
        return Err(Failure(format!(
            "there are no configured hooks to {verb} (config files read: {}); name a config \
             with --config FILE",
            if config.files().is_empty() {
                "none".to_owned()
            } else {
                config.files().join(", ")
            }
        )));
    }
    if names.all {
        return Ok(configured.to_vec());
    }
    let mut chosen = Vec::new();
    for name in &names.names {
        let matching: Vec<ExternalHook> = configured
            .iter()
            .filter(|h| &h.name == name)
            .cloned()
            .collect();
        if matching.is_empty() {
            return Err(Failure(unknown_hook(name, configured)));
        }
        chosen.extend(matching);
    }
    Ok(chosen)
}

/// What `hook` runs, where and from which file: ``command `./guard.sh` on intercept_tool_call
/// (hookchain.yaml:3)``.
pub(crate) fn described(hook: &ExternalHook) -> String {
    format!(
        "{} `{}` on {} ({})",
        hook.transport.kind(),
        one_line(hook.transport.target()),
        hook.point,
        hook.origin.short()
    )
}

/// The error for a name no configured hook has: the closest name, or all of them.
fn unknown_hook(name: &str, configured: &[ExternalHook]) -> String {
    let known: Vec<&str> = configured.iter().map(|h| h.name.as_str()).collect();
    match closest(name, known.iter().copied()) {
        Some(close) => format!(
            "no configured hook is named `{name}`, did you mean `{close}`? (`hookchain list` \
             shows the names)"
        ),
        None => format!(
            "no configured hook is named `{name}` (the hooks are {}; `hookchain list` shows them)",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
