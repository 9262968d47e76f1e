//! The values `test` and `doctor` fire a chain with: an example value of each point, and a
//! payload file's JSON read as the point's value, both from the wire code
//! ([`example_value`], [`value_from_payload`]).

use hookchain_core::Dialect;
use hookchain_external::wire::{self, WirePoint, example_value};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::outcome::Failure;

/// The tool of the synthetic payload on tool points, when `--for-tool` names none.
pub const DEFAULT_TOOL: &str = wire::EXAMPLE_TOOL;

/// The session id of synthetic payloads.
pub(crate) const SESSION: &str = wire::EXAMPLE_SESSION_ID;

/// A synthetic value of `point`, as JSON its value type reads.
pub(crate) fn synthetic(point: &str, tool: &str) -> Value {
    example_value(point, tool)
}

/// The fields only Copilot's camelCase payloads carry (its `notification` excepted, which
/// has `hook_event_name`).
const COPILOT_FIELDS: &[&str] = &[
    "sessionId",
    "toolName",
    "toolArgs",
    "toolResult",
    "transcriptPath",
    "stopReason",
    "agentName",
    "errorContext",
    "customInstructions",
    "initialPrompt",
];

/// `true` when `json`, given for `event`, is a Copilot payload: a camelCase event
/// (`preToolUse`) and a field only Copilot sends (`toolName`, `sessionId`, …).
pub(crate) fn is_copilot_payload(event: &str, json: &Value) -> bool {
    event.starts_with(|c: char| c.is_ascii_lowercase())
        && COPILOT_FIELDS.iter().any(|key| json.get(*key).is_some())
}

/// A payload file's JSON read as point `P`'s value, the file from any agent (see
/// [`value_from_payload`]); `tool` (from `--for-tool`) renames the tool. For [`with_point!`].
///
/// [`value_from_payload`]: hookchain_external::wire::value_from_payload
pub(crate) fn from_file<P>(json: Value, tool: Option<&str>) -> Result<Value, Failure>
where
    P: WirePoint,
    P::Value: DeserializeOwned,
{
    Ok(wire::value_from_payload::<P>(&Dialect::ALL, json, tool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::canonical;
    use hookchain_core::points;

    fn check(point: &str) -> Result<(), Failure> {
        with_point!(point, canonical(&synthetic(point, DEFAULT_TOOL))).map(drop)
    }

    #[test]
    fn every_point_has_a_synthetic_value() {
        for point in points::catalog() {
            if let Err(Failure(e)) = check(point.name) {
                panic!("{}: {e}", point.name);
            }
        }
    }
}
