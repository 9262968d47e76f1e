//! A hook's JSON answer read into a [`Answer`]: the fields of every dialect, read from the
//! same object, and the rules that settle an answer that says two things. The exit code and
//! whether stdout is JSON at all are read by [`protocol`](super).
//!
//! # The dialects
//!
//! Every field of every dialect is read from the same object, so a script written for any of
//! these agents works unchanged (and a script may mix them).
//!
//! | dialect | verdict | input | other |
//! |---|---|---|---|
//! | Claude Code | `decision`: `approve`/`block` + `reason`; `hookSpecificOutput.permissionDecision`: `allow`/`deny`/`ask`/`defer` + `permissionDecisionReason`; PermissionRequest's `hookSpecificOutput.decision.behavior`: `allow`/`deny` + `message` | `hookSpecificOutput.updatedInput` (then `hookSpecificOutput.decision.updatedInput`) replaces it | `hookSpecificOutput.additionalContext`, `hookSpecificOutput.updatedMCPToolOutput` (tool result), `continue: false` + `stopReason` (and PermissionRequest's `decision.interrupt: true` + `message`), `systemMessage` (warning), PermissionDenied's `hookSpecificOutput.retry` |
//! | docker-agent | `decision: block` + `reason`; `hook_specific_output.permission_decision`: `allow`/`deny`/`ask` + `permission_decision_reason` | `hook_specific_output.updated_input` replaces it | `hook_specific_output.additional_context`, `.updated_tool_response`, `.summary` (compaction; also read as `hookSpecificOutput.summary`), `continue: false` + `stop_reason`, `system_message` |
//! | Hermes | `action: block` + `message` (or `reason`) | `action: modify` merges `args`, `tool_input` or `input` into it | `modify` may carry `prompt` or `text` (new text); `context` |
//! | Starchild | `decision` | `tool_input` rewrites the keys it names that the input has (others are kept; keys the input lacks are ignored) | `notification` (a new outbound message), `context`, `systemMessage`, `add_warning` |
//!
//! `decision` is shared by Claude Code, docker-agent and Starchild; it takes `approve`/`allow`,
//! `block`/`deny`, `ask`, and Hermes' `modify` (which merges `tool_input` like `action: modify`).
//! `context` and `add_warning` take a string or a list of strings.
//!
//! Strictness follows each field's source: Claude Code and docker-agent reject a `decision` or a
//! permission decision they do not know, so an unknown value there is a [`ProtocolError`] (the
//! hook meant something, and a guessed pass would fail open); Hermes ignores an `action` it does
//! not know, so hookchain passes on it, with a debug log. A field of the wrong type is a
//! [`ProtocolError`]; unknown keys are ignored.
//!
//! # Contradictions
//!
//! When one answer says two things, each rule below is the one its source documents:
//!
//! 1. **`continue: false` wins over everything** — it stops, whatever the verdict, and rewrites
//!    are not applied. Claude Code, hooks reference, "Common JSON fields": "In all cases,
//!    `continue = false` takes precedence over any `decision: block` output". docker-agent
//!    checks `continue` before the verdict (`pkg/hooks/executor.go`, `aggregate`).
//! 2. **`permissionDecision` overrides the top-level `decision`** in Claude Code's own fields:
//!    `{"decision": "block", "hookSpecificOutput": {"permissionDecision": "allow"}}` allows.
//!    Claude Code, hooks reference, "PreToolUse decision control": "The `decision` and `reason`
//!    fields are deprecated for PreToolUse hooks. Use `hookSpecificOutput.permissionDecision` …
//!    The deprecated fields `approve` and `block` map to `allow` and `deny`"; its output parser
//!    reads `decision` first, then overrides it "with more specific permission decision if
//!    provided". `defer` is no decision: the top-level `decision` is not overridden by it, and
//!    on its own it passes.
//! 3. **Otherwise the most restrictive verdict wins: block (deny) over ask over allow** — across
//!    dialects (`{"hookSpecificOutput": {"permissionDecision": "allow"}, "hook_specific_output":
//!    {"permission_decision": "deny"}}` blocks) and within docker-agent's fields (`decision:
//!    block` with `permission_decision: allow` blocks). Claude Code, hooks reference: when hooks
//!    disagree "deny > defer > ask > allow"; docker-agent, `decisionWeight`/`strongerDecision`:
//!    "Deny > Ask > Allow", and `decision: block` sets `Allowed = false` whatever the permission
//!    decision. The reasons of every blocking field are kept, one per line, as docker-agent
//!    joins its messages.
//! 4. **A block wins over a rewrite**: a blocked (or asked, or stopped) answer's `updatedInput`,
//!    `modify` or text is not applied. Hermes checks every `block` before any `modify`
//!    (`agent/shell_hooks.py`, `_parse_pre_tool_call`); docker-agent applies `ModifiedInput` only
//!    when the call is allowed (`pkg/runtime`, `executePreToolHook`); in Claude Code a denied call
//!    never runs.
//! 5. **A replacement comes before a merge**: `updatedInput` (or `updated_input`, or Starchild's
//!    `tool_input`) replaces the input, then Hermes' `modify` merges into the replacement, then
//!    Starchild's `tool_input` rewrites the keys it names that the input has. Between the
//!    replacements, Claude Code's comes first, then docker-agent's.
//! 6. **Exit code 2 blocks whatever stdout says**: Claude Code, hooks reference, "Exit code
//!    output": "If your hook exits with code 2 (blocking error), stderr text is used directly —
//!    any JSON in stdout is ignored." One divergence, on purpose: with nothing on stderr, the
//!    reason of a JSON answer on stdout is the block's reason (Hermes reads it first), rather
//!    than a reason that says nothing. A Hermes hook's JSON reason wins over its stderr, as in
//!    Hermes.
//! 7. **The block reason**: Claude Code's `decision: block` takes `reason` (then Hermes'
//!    `message`); Hermes' `action: block` takes `message` (then `reason`), as Hermes does;
//!    `permissionDecision: deny` takes `permissionDecisionReason`, then `reason`, as Claude Code
//!    does.
//!
//! Context and warnings are never contradictory: every one is kept, in the order of the table.
//!
//! [`ProtocolError`]: super::ProtocolError

use serde_json::{Map, Value};

use super::error::{ProtocolError, describe, excerpt};
use crate::answer::{Answer, Verdict};

/// The fields of one JSON object, read with their path for messages.
#[derive(Clone, Copy)]
struct Fields<'a> {
    object: &'a Map<String, Value>,
    path: &'static str,
}

impl<'a> Fields<'a> {
    fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn wrong(&self, key: &str, expected: &'static str, found: &Value) -> ProtocolError {
        ProtocolError::WrongType {
            field: self.name(key),
            expected,
            found: describe(found),
        }
    }

    /// A field that is absent or `null` is `None`.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.object.get(key).filter(|v| !v.is_null())
    }

    /// A string; an empty one is `None`.
    fn string(&self, key: &str) -> Result<Option<&'a str>, ProtocolError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    fn boolean(&self, key: &str) -> Result<Option<bool>, ProtocolError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong(key, "true or false", other)),
        }
    }

    fn object(&self, key: &str) -> Result<Option<&'a Map<String, Value>>, ProtocolError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o)),
            Some(other) => Err(self.wrong(key, "an object", other)),
        }
    }

    fn nested(&self, key: &'static str) -> Result<Option<Fields<'a>>, ProtocolError> {
        Ok(self.object(key)?.map(|object| Fields { object, path: key }))
    }

    /// A string or a list of strings; empty ones are dropped.
    fn texts(&self, key: &str) -> Result<Vec<String>, ProtocolError> {
        const EXPECTED: &str = "a string or a list of strings";
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(non_empty(s).into_iter().collect()),
            Some(Value::Array(items)) => items
                .iter()
                .filter(|item| !item.is_null())
                .map(|item| match item {
                    Value::String(s) => Ok(non_empty(s)),
                    other => Err(self.wrong(key, EXPECTED, other)),
                })
                .filter_map(Result::transpose)
                .collect(),
            Some(other) => Err(self.wrong(key, EXPECTED, other)),
        }
    }
}

fn non_empty(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_owned())
}

fn owned(s: Option<&str>) -> String {
    s.map(str::to_owned).unwrap_or_default()
}

/// What the top-level `decision` says.
enum TopDecision {
    Verdict(Verdict),
    /// Hermes' `decision: modify`.
    Modify,
}

/// Reads one JSON answer, applying the contradiction rules of the module docs.
pub(super) fn from_object(object: &Map<String, Value>) -> Result<Answer, ProtocolError> {
    let top = Fields { object, path: "" };
    let claude = top.nested("hookSpecificOutput")?;
    let docker = top.nested("hook_specific_output")?;
    let reason = top.string("reason")?;
    let message = top.string("message")?;
    let mut decision = Answer::default();

    // The verdict. Rule 2: Claude Code's permission decision overrides the top-level `decision`;
    // rule 3: everything else combines, the most restrictive winning.
    let top_decision = match top.string("decision")? {
        None => None,
        Some(value) => Some(match value.to_ascii_lowercase().as_str() {
            "approve" | "allow" => TopDecision::Verdict(Verdict::Allow),
            "block" | "deny" => TopDecision::Verdict(Verdict::Block(owned(reason.or(message)))),
            "ask" => TopDecision::Verdict(Verdict::Ask(owned(reason.or(message)))),
            "modify" => TopDecision::Modify,
            _ => {
                return Err(ProtocolError::UnknownValue {
                    field: "decision".to_owned(),
                    value: excerpt(value),
                    expected: "`approve`, `allow`, `block`, `deny`, `ask` or `modify`",
                });
            }
        }),
    };
    let claude_permission = match claude {
        None => None,
        Some(fields) => permission(
            &fields,
            "permissionDecision",
            "permissionDecisionReason",
            reason,
            "`allow`, `deny`, `ask` or `defer`",
        )?,
    };
    let docker_permission = match docker {
        None => None,
        Some(fields) => permission(
            &fields,
            "permission_decision",
            "permission_decision_reason",
            reason,
            "`allow`, `deny` or `ask`",
        )?,
    };
    let mut verdict = Verdict::Pass;
    match (claude_permission, &top_decision) {
        // `defer` is no decision: it neither overrides `decision` nor says anything itself.
        (Some(Permission::Defer) | None, Some(TopDecision::Verdict(v))) => {
            verdict = verdict.and(v.clone());
        }
        (Some(Permission::Verdict(v)), _) => verdict = verdict.and(v),
        _ => {}
    }
    if let Some(Permission::Verdict(v)) = docker_permission {
        verdict = verdict.and(v);
    }
    // Claude Code's PermissionRequest: `hookSpecificOutput.decision.behavior`, with its
    // `message`, `updatedInput` and `interrupt`.
    let request = match claude.map(|fields| fields.object("decision")).transpose()? {
        Some(Some(object)) => Some(Fields {
            object,
            path: "hookSpecificOutput.decision",
        }),
        _ => None,
    };
    let mut interrupt = None;
    if let Some(request) = request {
        let message = request.string("message")?;
        match request.string("behavior")? {
            None => {}
            Some(behavior) => match behavior.to_ascii_lowercase().as_str() {
                "allow" => verdict = verdict.and(Verdict::Allow),
                "deny" => verdict = verdict.and(Verdict::Block(owned(message.or(reason)))),
                _ => {
                    return Err(ProtocolError::UnknownValue {
                        field: request.name("behavior"),
                        value: excerpt(behavior),
                        expected: "`allow` or `deny`",
                    });
                }
            },
        }
        if request.boolean("interrupt")? == Some(true) {
            interrupt = Some(owned(message.or(reason)));
        }
    }

    // Hermes: `action: block | modify`; any other action passes, as in Hermes.
    let mut modify = matches!(top_decision, Some(TopDecision::Modify));
    match top.string("action")? {
        None => {}
        Some(action) => match action.to_ascii_lowercase().as_str() {
            "block" | "deny" => verdict = verdict.and(Verdict::Block(owned(message.or(reason)))),
            "modify" => modify = true,
            other => tracing::debug!(action = other, "ignoring an unknown Hermes `action`"),
        },
    }
    decision.verdict = verdict;

    // Rule 5: replacements, Claude Code's first, then docker-agent's; Starchild's `tool_input`
    // (Hermes' merge payload under `modify`) rewrites existing keys.
    let mut replacements = Vec::new();
    if let Some(fields) = claude {
        replacements.push(fields.object("updatedInput")?);
    }
    if let Some(request) = request {
        replacements.push(request.object("updatedInput")?);
    }
    if let Some(fields) = docker {
        replacements.push(fields.object("updated_input")?);
    }
    if !modify {
        decision.rewrite_keys = top.object("tool_input")?.cloned();
    }
    // Starchild: `{"notification": "..."}` rewrites an outbound message; `{"message": "..."}`
    // a user's message and `{"response": "..."}` the reply, which only Starchild's dialect reads
    // so (a `message` is a block's reason in Hermes').
    decision.notification = top.string("notification")?.map(str::to_owned);
    if matches!(decision.verdict, Verdict::Pass | Verdict::Allow) {
        decision.message = message.map(str::to_owned);
    }
    decision.response = top.string("response")?.map(str::to_owned);
    decision.updated_input = replacements
        .into_iter()
        .flatten()
        .next()
        .map(|o| Value::Object(o.clone()));
    if modify {
        for key in ["args", "tool_input", "input"] {
            if let Some(merge) = top.object(key)? {
                decision.merge_input = Some(merge.clone());
                break;
            }
        }
        decision.updated_text = top
            .string("prompt")?
            .or(top.string("text")?)
            .map(str::to_owned);
    }

    // Tool results, summaries.
    if let Some(fields) = claude {
        decision.updated_output = fields.get("updatedMCPToolOutput").cloned();
    }
    if let Some(fields) = docker {
        if decision.updated_output.is_none() {
            decision.updated_output = fields
                .get("updated_tool_response")
                .map(|v| match v {
                    Value::String(_) => Ok(v.clone()),
                    other => Err(fields.wrong("updated_tool_response", "a string", other)),
                })
                .transpose()?;
        }
        decision.summary = fields.string("summary")?.map(str::to_owned);
    }
    if decision.summary.is_none()
        && let Some(fields) = claude
    {
        // docker-agent's summary, written in Claude Code's camelCase object.
        decision.summary = fields.string("summary")?.map(str::to_owned);
    }

    // Context and warnings: every one, in the order of the dialect table.
    if let Some(fields) = claude {
        decision.context.extend(fields.texts("additionalContext")?);
    }
    if let Some(fields) = docker {
        decision.context.extend(fields.texts("additional_context")?);
    }
    decision.context.extend(top.texts("context")?);
    decision.warnings.extend(top.texts("systemMessage")?);
    decision.warnings.extend(top.texts("system_message")?);
    decision.warnings.extend(top.texts("add_warning")?);

    // Claude Code's PermissionDenied: `retry: true` lets the model retry the denied call.
    if let Some(fields) = claude {
        decision.retry = fields.boolean("retry")?;
    }

    // Rule 1: `continue: false` stops, whatever else was said; so does a PermissionRequest's
    // `interrupt: true`.
    if top.boolean("continue")? == Some(false) {
        decision.stop = Some(owned(
            top.string("stopReason")?.or(top.string("stop_reason")?),
        ));
    } else if let Some(reason) = interrupt {
        decision.stop = Some(reason);
    }
    Ok(decision)
}

enum Permission {
    Verdict(Verdict),
    Defer,
}

/// A permission decision (`allow`/`deny`/`ask`, and for Claude Code `defer`) with its reason;
/// rule 7: the specific reason first, then the top-level `reason`.
fn permission(
    fields: &Fields<'_>,
    key: &str,
    reason_key: &str,
    top_reason: Option<&str>,
    expected: &'static str,
) -> Result<Option<Permission>, ProtocolError> {
    let Some(value) = fields.string(key)? else {
        return Ok(None);
    };
    let reason = || -> Result<String, ProtocolError> {
        Ok(owned(fields.string(reason_key)?.or(top_reason)))
    };
    let defer_allowed = expected.contains("defer");
    Ok(Some(match value.to_ascii_lowercase().as_str() {
        "allow" | "approve" => Permission::Verdict(Verdict::Allow),
        "deny" | "block" => Permission::Verdict(Verdict::Block(reason()?)),
        "ask" => Permission::Verdict(Verdict::Ask(reason()?)),
        "defer" if defer_allowed => Permission::Defer,
        _ => {
            return Err(ProtocolError::UnknownValue {
                field: fields.name(key),
                value: excerpt(value),
                expected,
            });
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The answer `value` (a JSON object) says.
    fn read(value: Value) -> Result<Answer, ProtocolError> {
        from_object(value.as_object().expect("an object"))
    }

    fn json(value: Value) -> Answer {
        read(value).unwrap()
    }

    #[test]
    fn fields_of_the_wrong_type_are_named() {
        let err = read(
            serde_json::from_str(r#"{"hookSpecificOutput": {"updatedInput": "rm"}}"#).unwrap(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the hook printed `hookSpecificOutput.updatedInput` as a string (\"rm\"), but it must be an object"
        );
        let err = read(serde_json::from_str(r#"{"continue": "no"}"#).unwrap()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the hook printed `continue` as a string (\"no\"), but it must be true or false"
        );
        let err = read(serde_json::from_str(r#"{"context": [1]}"#).unwrap()).unwrap_err();
        assert!(
            err.to_string().contains(
                "`context` as a number (1), but it must be a string or a list of strings"
            ),
            "{err}"
        );
    }

    #[test]
    fn nulls_and_empty_strings_say_nothing() {
        let d = json(json!({
            "decision": null, "reason": "", "hookSpecificOutput": null, "context": ["", null],
            "systemMessage": "  ", "continue": null
        }));
        assert!(d.is_pass(), "{d:?}");
    }

    /// Found by fuzzing: a verdict field holding a huge string made a message as long as the
    /// output, which then went into logs and notifications whole.
    #[test]
    fn an_unknown_verdict_is_quoted_as_an_excerpt() {
        let huge = "}".repeat(100_000);
        for stdout in [
            json!({ "decision": huge }),
            json!({ "hookSpecificOutput": { "permissionDecision": huge } }),
        ] {
            let error = read(stdout).unwrap_err();
            assert!(
                matches!(error, ProtocolError::UnknownValue { .. }),
                "{error}"
            );
            assert!(error.to_string().len() < 500, "{error:.300}");
        }
    }

    /// docker-agent's summary written in Claude Code's camelCase object is read.
    #[test]
    fn a_camel_case_summary_is_read() {
        let d = json(json!({"hookSpecificOutput": {"summary": "short"}}));
        assert_eq!(d.summary.as_deref(), Some("short"));
        let both = json(json!({"hookSpecificOutput": {"summary": "b"},
                               "hook_specific_output": {"summary": "a"}}));
        assert_eq!(both.summary.as_deref(), Some("a"));
    }
}
