//! `add-date`: today's date, so the model knows it (`Today's date: 2026-11-24 (UTC)`).
//!
//! ```yaml
//! extensions:
//!   add-date:
//!     enabled: true
//!     point: turn_start      # default; or session_start
//! ```
//!
//! The date is the UTC date of the system clock (no time zone database is read).

use std::path::Path;

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{InjectAt, Injector, add_injector, no_args};
use crate::BuiltinExtension;
use hookchain_runtime::HooksBuilder;

/// The `add-date` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{AddDate, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let hooks = Hooks::builder().builtin(AddDate::default()).build().unwrap();
/// let turn = hooks.session("doc").begin_turn();
/// let start = turn.turn_start("hello").continued().unwrap();
/// assert!(start.context[0].starts_with("Today's date: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AddDate {
    /// Where the date is added (default `turn_start`).
    pub point: InjectAt,
}

impl Default for AddDate {
    fn default() -> Self {
        AddDate {
            point: InjectAt::TurnStart,
        }
    }
}

impl BuiltinExtension for AddDate {
    const NAME: &'static str = "add-date";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

impl Injector for AddDate {
    const DOCKER_AGENT: &'static str = "add_date";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, _project: &Path) -> Option<String> {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let (y, m, d) = civil_from_days((secs / 86_400) as i64);
        Some(format!("Today's date: {y:04}-{m:02}-{d:02} (UTC)"))
    }

    fn from_docker_agent_args(args: &[String]) -> Result<Self, String> {
        no_args("add_date", args).map(|()| AddDate::default())
    }
}

/// The proleptic Gregorian date `days` days after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn days_are_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(20_780), (2026, 11, 23));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
