//! `hookchain revoke`: withdraws the approval of the chosen configured hooks.

use crate::args::{Cli, Names};
use crate::outcome::{EXIT_OK, Failure, Io};
use crate::selection::{chosen, described};
use crate::sources::{load_config, load_consent};

/// Revokes the hooks `names` chooses, one line each (`was not approved` for one that was not).
pub(crate) fn revoke(cli: &Cli, names: &Names, io: &mut Io<'_>) -> Result<i32, Failure> {
    let (config, _) = load_config(cli)?;
    let mut consent = load_consent(cli)?;
    for hook in &chosen(&config, names, "revoke")? {
        let what = described(hook);
        if consent.revoke(hook)? {
            writeln!(io.out, "revoked `{}`: {what}", hook.name)?;
        } else {
            writeln!(io.out, "`{}` was not approved: {what}", hook.name)?;
        }
    }
    Ok(EXIT_OK)
}
