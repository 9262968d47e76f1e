//! `hookchain approve`: adds the chosen configured hooks to the allowlist, each pinned to its
//! script's current content; a drifted hook is approved again in its new version.

use hookchain_config::consent::{Consent, ConsentStatus};
use hookchain_external::ExternalHook;

use crate::args::{Cli, Names};
use crate::outcome::{EXIT_OK, Failure, Io};
use crate::selection::{chosen, described};
use crate::sources::{load_config, load_consent};

/// Approves the hooks `names` chooses, one line each.
pub(crate) fn approve(cli: &Cli, names: &Names, io: &mut Io<'_>) -> Result<i32, Failure> {
    let (config, _) = load_config(cli)?;
    let mut consent = load_consent(cli)?;
    for hook in chosen(&config, names, "approve")? {
        let line = approve_one(&mut consent, hook)?;
        writeln!(io.out, "{line}")?;
    }
    Ok(EXIT_OK)
}

/// Approves `hook` unless it is approved already; what was done, as a line.
fn approve_one(consent: &mut Consent, hook: &ExternalHook) -> Result<String, Failure> {
    let what = described(hook);
    let status = consent.status(hook);
    Ok(match &status {
        ConsentStatus::Approved => format!("`{}` is already approved: {what}", hook.name),
        ConsentStatus::New => {
            consent.approve(hook)?;
            format!("approved `{}`: {what}", hook.name)
        }
        ConsentStatus::Drifted { .. } => {
            consent.approve(hook)?;
            format!(
                "approved `{}` again: {what}; {status}, and the new version is approved",
                hook.name
            )
        }
    })
}
