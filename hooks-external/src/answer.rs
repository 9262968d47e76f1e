//! What an external hook's answer says — go on, stop, ask, a new input, context, warnings —
//! whatever dialect it said it in: the [`protocol`](super::protocol) module reads it, the
//! [`wire`](super::wire) module applies it to a point.

use std::fmt;

use serde_json::{Map, Value};

/// What an answer says about going on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Verdict {
    /// Nothing: go on (with whatever else the answer says).
    #[default]
    Pass,
    /// Go on, explicitly (`allow`, `approve`). Later hooks still run.
    Allow,
    /// Stop, with this reason (empty when the hook gave none).
    Block(String),
    /// Ask the user first, with this reason (empty when the hook gave none). hookchain has no one
    /// to ask, so this blocks, with a reason saying so.
    Ask(String),
}

impl Verdict {
    fn weight(&self) -> u8 {
        match self {
            Verdict::Pass => 0,
            Verdict::Allow => 1,
            Verdict::Ask(_) => 2,
            Verdict::Block(_) => 3,
        }
    }

    /// The more restrictive of the two; the reasons of equally restrictive ones are joined.
    pub(crate) fn and(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::Block(a), Verdict::Block(b)) => Verdict::Block(join(a, b)),
            (Verdict::Ask(a), Verdict::Ask(b)) => Verdict::Ask(join(a, b)),
            (a, b) if b.weight() > a.weight() => b,
            (a, _) => a,
        }
    }
}

/// Two reasons, one per line; an empty or repeated one adds nothing.
fn join(a: String, b: String) -> String {
    if a.is_empty() || a == b {
        b
    } else if b.is_empty() {
        a
    } else {
        format!("{a}\n{b}")
    }
}

/// Everything an external hook's answer says, whatever dialect it said it in.
///
/// Every part is optional; how a part applies depends on the point (see
/// [`WirePoint::apply_answer`](super::wire::WirePoint::apply_answer)).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    /// Go on, stop or ask.
    pub verdict: Verdict,
    /// A new input, replacing the whole of it (`updatedInput`, `updated_input`).
    pub updated_input: Option<Value>,
    /// Keys to merge into the input (Hermes' `modify`), after any replacement.
    pub merge_input: Option<Map<String, Value>>,
    /// New values for keys the input already has (Starchild's `tool_input`: "rewrite EXISTING
    /// input keys"), after any replacement and merge; keys the input lacks are ignored.
    pub rewrite_keys: Option<Map<String, Value>>,
    /// A new tool result (`updatedMCPToolOutput`, `updated_tool_response`).
    pub updated_output: Option<Value>,
    /// A new text: the user's prompt, the reply, the outbound message (Hermes' `modify` with
    /// `prompt` or `text`).
    pub updated_text: Option<String>,
    /// A compaction summary to use instead of the agent's (docker-agent's `summary`).
    pub summary: Option<String>,
    /// A new outbound message (Starchild's `notification`, on `on_outbound_message`); used by
    /// `outbound_message` only.
    pub notification: Option<String>,
    /// A top-level `message` that no block or ask took as its reason (Hermes' `action: block`
    /// does): Starchild's new user message on `on_user_message`, read as such in Starchild's
    /// dialect only ([`WirePoint::in_dialect`](super::wire::WirePoint::in_dialect)).
    pub message: Option<String>,
    /// A top-level `response`: Starchild's new reply on `on_response_end`, read as such in
    /// Starchild's dialect only.
    pub response: Option<String>,
    /// Context for the model, in order.
    pub context: Vec<String>,
    /// `true` when the answer was plain text on stdout, not JSON: its one [`context`](Self::context)
    /// entry is that text, which reaches the model only on the points where the hook's agent
    /// gives plain stdout to the model (see [`wire::tables`](super::wire::tables), "Plain
    /// stdout"); elsewhere it is logged.
    pub plain_text: bool,
    /// Warnings for the user, in order.
    pub warnings: Vec<String>,
    /// `continue: false`: stop, with this reason (empty when the hook gave none). Wins over
    /// everything else.
    pub stop: Option<String>,
    /// Claude Code's PermissionDenied `retry`: `true` tells the model it may retry the denied
    /// call; used by `after_tool_call` in Claude Code's dialect only.
    pub retry: Option<bool>,
    /// `true` when the [`context`](Self::context) goes to the model in the user's message, not
    /// the system prompt, on `before_llm_call`: Hermes' `pre_llm_call` ("injected into the user
    /// message, never the system prompt"); set by its dialect's reading.
    pub context_as_user: bool,
}

impl Answer {
    /// A decision that says nothing: pass.
    pub fn pass() -> Self {
        Answer::default()
    }

    /// `true` when the decision says nothing at all.
    pub fn is_pass(&self) -> bool {
        *self == Answer::default()
    }

    /// A block with `reason`.
    pub fn block(reason: impl Into<String>) -> Self {
        Answer {
            verdict: Verdict::Block(reason.into()),
            ..Answer::default()
        }
    }

    /// The reason this decision refuses with — its `continue: false` reason, else the reason of
    /// its block or ask — or `None` when it refuses nothing or gives no reason.
    pub fn refusal_reason(&self) -> Option<String> {
        let reason = match (&self.stop, &self.verdict) {
            (Some(reason), _) if !reason.is_empty() => reason,
            (_, Verdict::Block(reason) | Verdict::Ask(reason)) => reason,
            _ => return None,
        };
        (!reason.is_empty()).then(|| reason.clone())
    }

    /// The input after this decision's replacement, merge and key rewrites, or `None` when it
    /// changes nothing.
    ///
    /// A merge into an input that is not an object starts from an empty object; key rewrites
    /// change only keys the input has.
    pub fn new_input(&self, current: &Value) -> Option<Value> {
        if self.updated_input.is_none() && self.merge_input.is_none() && self.rewrite_keys.is_none()
        {
            return None;
        }
        let mut input = self
            .updated_input
            .clone()
            .unwrap_or_else(|| current.clone());
        if let Some(merge) = &self.merge_input {
            if !input.is_object() {
                input = Value::Object(Map::new());
            }
            if let Value::Object(object) = &mut input {
                object.extend(merge.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        if let (Some(rewrite), Value::Object(object)) = (&self.rewrite_keys, &mut input) {
            for (key, value) in rewrite {
                match object.get_mut(key) {
                    Some(slot) => *slot = value.clone(),
                    None => tracing::debug!(
                        key = key.as_str(),
                        "ignoring `tool_input.{key}`: the input has no such key to rewrite"
                    ),
                }
            }
        }
        (input != *current || self.updated_input.is_some() || self.merge_input.is_some())
            .then_some(input)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Pass => f.write_str("pass"),
            Verdict::Allow => f.write_str("allow"),
            Verdict::Block(reason) if reason.is_empty() => f.write_str("block"),
            Verdict::Block(reason) => write!(f, "block: {reason}"),
            Verdict::Ask(reason) if reason.is_empty() => f.write_str("ask"),
            Verdict::Ask(reason) => write!(f, "ask: {reason}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verdicts_combine_most_restrictive_first() {
        let block = || Verdict::Block("b".into());
        let ask = || Verdict::Ask("a".into());
        assert_eq!(Verdict::Allow.and(block()), block());
        assert_eq!(block().and(Verdict::Allow), block());
        assert_eq!(ask().and(Verdict::Allow), ask());
        assert_eq!(ask().and(block()), block());
        assert_eq!(Verdict::Pass.and(Verdict::Allow), Verdict::Allow);
        assert_eq!(
            Verdict::Block("x".into()).and(Verdict::Block("y".into())),
            Verdict::Block("x\ny".into())
        );
        assert_eq!(
            Verdict::Block("x".into()).and(Verdict::Block("x".into())),
            Verdict::Block("x".into())
        );
        assert_eq!(
            Verdict::Block(String::new()).and(Verdict::Block("y".into())),
            Verdict::Block("y".into())
        );
    }

    #[test]
    fn new_input_replaces_then_merges() {
        let current = json!({"a": 1, "b": 2});
        assert_eq!(Answer::pass().new_input(&current), None);
        let merge = Answer {
            merge_input: json!({"b": 3}).as_object().cloned(),
            ..Answer::default()
        };
        assert_eq!(merge.new_input(&current), Some(json!({"a": 1, "b": 3})));
        let both = Answer {
            updated_input: Some(json!({"c": 1})),
            ..merge.clone()
        };
        assert_eq!(both.new_input(&current), Some(json!({"c": 1, "b": 3})));
        assert_eq!(merge.new_input(&json!("text")), Some(json!({"b": 3})));
    }
}
