//! Points as the command line names them: an EVENT resolved to its point (any agent's name for
//! it, or a "did you mean"), a JSON value read as a point's value, and [`with_point!`], which
//! calls a generic fn with the point type of a name known only at run time.

use hookchain_core::HookPoint;
use hookchain_core::points::{self, PointInfo};
use hookchain_core::suggest::closest;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::outcome::Failure;

/// The points whose value is about a tool.
pub(crate) const TOOL_POINTS: [&str; 4] = [
    "intercept_tool_call",
    "permission_request",
    "transform_tool_result",
    "after_tool_call",
];

/// Calls `$f::<P>($args)` with `P` the point type of the canonical name `$point`; a name that is
/// not a built-in point is a [`Failure`].
macro_rules! with_point {
    ($point:expr, $f:ident($($arg:expr),* $(,)?)) => {
        hookchain_core::__private::builtin_points!([$point, $f, ($($arg),*)] => with_point_rows)
    };
}

/// The arms of [`with_point!`], one per built-in point, from hooks-core's table of points.
macro_rules! with_point_rows {
    ([$point:expr, $f:ident, $args:tt]
     $($(#[$doc:meta])* $ty:ident { name: $name:literal, $($rest:tt)* })*) => {
        match $point {
            $($name => with_point_rows!(@call $f, hookchain_core::points::$ty, $args),)*
            other => Err($crate::outcome::Failure(format!("`{other}` is not a built-in point"))),
        }
    };
    (@call $f:ident, $ty:ty, ($($arg:expr),*)) => {
        $f::<$ty>($($arg),*)
    };
}

/// The point EVENT names, or an error with a "did you mean".
pub(crate) fn resolve_event(event: &str) -> Result<&'static PointInfo, Failure> {
    if let Some(point) = points::resolve(event) {
        return Ok(point);
    }
    let names: Vec<&str> = points::catalog()
        .iter()
        .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().map(|(alias, _)| *alias)))
        .collect();
    let hint = match closest(event, names.iter().copied()) {
        Some(close) => format!(", did you mean `{close}`?"),
        None => format!(
            " (the points are {})",
            points::catalog()
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Err(Failure(format!("unknown event `{event}`{hint}")))
}

/// The value of point `P` read from `json`, or why not.
pub(crate) fn read_value<P>(json: &Value) -> Result<P::Value, Failure>
where
    P: HookPoint,
    P::Value: DeserializeOwned,
{
    serde_json::from_value(json.clone()).map_err(|e| Failure(e.to_string()))
}

/// The value of point `P` read from `json`, as its type writes it (compact JSON, fields in the
/// type's order), or why it cannot be read.
pub(crate) fn canonical<P>(json: &Value) -> Result<String, Failure>
where
    P: HookPoint,
    P::Value: Serialize + DeserializeOwned,
{
    Ok(serde_json::to_string(&read_value::<P>(json)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_events_suggest_the_closest_name() {
        let Err(Failure(message)) = resolve_event("pre_tool_cal") else {
            panic!("resolved")
        };
        assert_eq!(
            message,
            "unknown event `pre_tool_cal`, did you mean `pre_tool_call`?"
        );
        assert_eq!(
            resolve_event("PreToolUse").ok().map(|p| p.name),
            Some("intercept_tool_call")
        );
    }
}
