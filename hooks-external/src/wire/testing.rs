//! What the tests of the wire modules share: a hook context that records what a decision
//! reports, and a point's payload fields in one dialect.

use hookchain_core::{Annotations, Dialect, HookContext};
use serde_json::{Map, Value};

use super::WirePoint;
use crate::answer::Answer;

/// Runs `f` with the context of hook `guard` on `point`, and gives back its result with the
/// context and the warnings it reported.
pub(super) fn with_cx<T>(
    point: &'static str,
    f: impl FnOnce(&HookContext<'_>) -> T,
) -> (T, Vec<String>, Vec<String>) {
    let notes = Annotations::new();
    let cx = HookContext::new("wire-test", 3, point, &notes).with_hook("guard");
    let result = f(&cx);
    let notes = notes.into_inner();
    (result, notes.context, notes.warnings)
}

/// A decision that blocks with `reason`.
pub(super) fn block(reason: &str) -> Answer {
    Answer::block(reason)
}

/// The fields of point `P` for `input`, with what `dialect` adds.
pub(super) fn dialect_payload<P: WirePoint>(
    dialect: Dialect,
    input: &P::Input,
) -> Map<String, Value> {
    let mut map = P::fields(input);
    P::dialect_fields(input, dialect, &mut map);
    map
}
