//! `hookchain approve`: adds the chosen configured hooks to the allowlist, each pinned to its
//! script's current content; a drifted hook is approved again in its new version.
//!
//! `--all` leaves out a hook whose line computes what it runs (not pinnable): its approval is of
//! that exact line, which the user gives by naming the hook after reading it, as the consent
//! prompt asks one by one — a blanket approval is not that.

use hookchain_config::consent::{Consent, ConsentStatus, not_pinnable};
use hookchain_external::ExternalHook;

use crate::args::{Cli, Names};
use crate::outcome::{EXIT_OK, Failure, Io};
use crate::selection::{chosen, described};
use crate::sources::{load_config, load_consent};

/// Approves the hooks `names` chooses, one line each.
pub(crate) fn approve(cli: &Cli, names: &Names, io: &mut Io<'_>) -> Result<i32, Failure> {
    let (config, _) = load_config(cli)?;
    let mut consent = load_consent(cli)?;
    for hook in &chosen(&config, names, "approve")? {
        if names.all
            && consent.status(hook) != ConsentStatus::Approved
            && let Some(why) = not_pinnable(hook)
        {
            writeln!(
                io.out,
                "`{}` is left out: not pinnable: runs what the line computes ({why}); read its \
                 line, then approve it by name: hookchain approve {}",
                hook.name, hook.name
            )?;
            continue;
        }
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
