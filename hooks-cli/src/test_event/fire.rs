//! One dispatch of the value through the point's chain, and its outcome: the JSON `test --json`
//! prints and what the readable output shows.

use hookchain_core::{Flow, HookPoint, SessionState};
use hookchain_runtime::Hooks;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::session::Given;
use crate::outcome::{EXIT_BLOCKED, EXIT_OK, Failure};
use crate::point::read_value;

/// The JSON `test --json` prints (`V`: the point's value), and what the readable output shows
/// (`V`: the value as compact JSON).
#[derive(Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub(crate) enum TestReport<V> {
    Continue {
        value: V,
        context: Vec<String>,
        warnings: Vec<String>,
    },
    Blocked {
        reason: String,
        hook: String,
    },
}

/// What one dispatch of `test` gave.
pub(crate) struct Fired {
    /// The line `--json` prints.
    pub(crate) json: String,
    /// The outcome, its warnings those of the hooks only.
    pub(crate) report: TestReport<String>,
    pub(crate) rewritten_by: Vec<String>,
    pub(crate) failures: Vec<String>,
    /// Whether the block was a hook failing under `on_error = "block"`.
    pub(crate) failed: bool,
}

impl Fired {
    /// [`EXIT_OK`] for a chain that went on, [`EXIT_BLOCKED`] for one that blocked.
    pub(crate) fn exit_code(&self) -> i32 {
        match self.report {
            TestReport::Continue { .. } => EXIT_OK,
            TestReport::Blocked { .. } => EXIT_BLOCKED,
        }
    }
}

/// Dispatches the value in `json` through the chain of `P`. `notices` (config left out, hooks
/// skipped for want of consent) come first in the JSON's warnings, then the hooks that failed,
/// then the warnings the hooks added.
pub(crate) fn fire<P>(
    hooks: &Hooks,
    json: &Value,
    notices: &[String],
    session: &Given,
    state: &SessionState,
) -> Result<Fired, Failure>
where
    P: HookPoint,
    P::Value: Serialize + DeserializeOwned,
{
    let value = read_value::<P>(json)?;
    let mut outcome = hooks.dispatch_in_session::<P>(&session.session_id, state, value);
    let failures: Vec<String> = outcome.failures.iter().map(ToString::to_string).collect();
    // A hook that failed and went on is a failure and also a warning of the chain: said once.
    outcome
        .warnings
        .retain(|warning| !failures.iter().any(|f| warning.starts_with(f.as_str())));
    let fired = match outcome.flow {
        Flow::Continue(value) => {
            let mut warnings = notices.to_vec();
            warnings.extend(failures.iter().map(|f| format!("{f} (went on)")));
            warnings.extend(outcome.warnings.iter().cloned());
            let json = serde_json::to_string(&TestReport::Continue {
                value: &value,
                context: outcome.context.clone(),
                warnings,
            })?;
            Fired {
                json,
                report: TestReport::Continue {
                    value: serde_json::to_string(&value)?,
                    context: outcome.context,
                    warnings: outcome.warnings,
                },
                rewritten_by: outcome.rewritten_by,
                failures,
                failed: false,
            }
        }
        Flow::Blocked(blocked) => {
            let report = TestReport::<String>::Blocked {
                reason: blocked.reason,
                hook: blocked.hook,
            };
            Fired {
                json: serde_json::to_string(&report)?,
                report,
                rewritten_by: outcome.rewritten_by,
                failures,
                failed: blocked.failed,
            }
        }
    };
    Ok(fired)
}
