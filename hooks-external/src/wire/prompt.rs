//! A turn's prompt, model calls and reply on the wire: `transform_user_input`, `turn_start`,
//! `before_llm_call`, `after_llm_call`, `transform_response` and `turn_end`; and the slash
//! commands a user types between them, `slash_command`.

use hookchain_core::points::{
    AfterLlmCall, BeforeLlmCall, Injection, OnSlashCommand, SlashCommand, TransformResponse,
    TransformUserInput, TurnEnded, TurnStart,
};
use hookchain_core::{
    Dialect, HookContext, HookResult, LlmCall, LlmReply, Observed, Role, TurnEnd, TurnEndEvent,
    TurnStartEvent,
};
use serde_json::{Map, Value};

use super::apply::{Context, apply, joined, observe};
use super::tables::hermes_extra;
use super::{Subject, WirePoint, assistant_text, fields, json, tool_use};
use crate::answer::Answer;
use crate::transcript;

impl WirePoint for TransformUserInput {
    fn fields(input: &str) -> Map<String, Value> {
        fields([("prompt", Value::from(input))])
    }

    fn dialect_fields(input: &str, dialect: Dialect, map: &mut Map<String, Value>) {
        if dialect == Dialect::Starchild {
            // Starchild's `on_user_message` gives the script `message` (and `channel`, which
            // `payload_in` adds after the session's own fields).
            map.insert("message".to_owned(), Value::from(input));
        }
    }

    fn in_dialect(_: &str, answer: &mut Answer, dialect: Dialect, _: &HookContext<'_>) {
        // Starchild: `{"message": "..."}` is the new user message.
        if dialect == Dialect::Starchild
            && answer.updated_text.is_none()
            && let Some(message) = answer.message.take()
        {
            answer.updated_text = Some(message);
        }
    }

    fn transcript_entry(input: &str) -> Option<Value> {
        Some(transcript::user(Value::from(input)))
    }

    fn apply_answer(_: &str, decision: Answer, cx: &HookContext<'_>) -> HookResult<String> {
        apply(decision, cx, Context::Add, |d| d.updated_text.take())
    }
}

impl WirePoint for TurnStart {
    fn fields(input: &TurnStartEvent) -> Map<String, Value> {
        fields([
            ("prompt", Value::from(input.prompt.as_str())),
            ("context", json(&input.context)),
        ])
    }

    fn apply_answer(
        _: &TurnStartEvent,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        apply(decision, cx, Context::Inject, |d| joined(&mut d.context))
    }
}

impl WirePoint for BeforeLlmCall {
    fn fields(input: &LlmCall) -> Map<String, Value> {
        fields([
            ("system_prompt", Value::from(input.system_prompt.as_str())),
            ("messages", json(&input.messages)),
        ])
    }

    fn dialect_fields(input: &LlmCall, dialect: Dialect, map: &mut Map<String, Value>) {
        let last_user = input
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map_or("", |m| m.content.as_str());
        match dialect {
            Dialect::Hermes => hermes_extra(
                map,
                [
                    ("user_message", Value::from(last_user)),
                    ("conversation_history", json(&input.messages)),
                ],
            ),
            Dialect::Starchild => {
                map.insert(
                    "system".to_owned(),
                    Value::from(input.system_prompt.as_str()),
                );
                map.insert("last_user_message".to_owned(), Value::from(last_user));
            }
            _ => {}
        }
    }

    /// Hermes fires `pre_llm_call` once per turn, before its first model call: the call whose
    /// last message is the user's (later calls of the turn end with the model's tool calls and
    /// their results).
    fn fires_for(input: &LlmCall, event: &str, dialect: Dialect) -> bool {
        if dialect == Dialect::Hermes && event == "pre_llm_call" {
            return input.messages.last().is_none_or(|m| m.role == Role::User);
        }
        true
    }

    /// Hermes puts `pre_llm_call`'s context in the user's message, never the system prompt.
    fn in_dialect(_: &LlmCall, answer: &mut Answer, dialect: Dialect, _: &HookContext<'_>) {
        if dialect == Dialect::Hermes {
            answer.context_as_user = true;
        }
    }

    fn apply_answer(_: &LlmCall, decision: Answer, cx: &HookContext<'_>) -> HookResult<Injection> {
        let as_user = decision.context_as_user;
        apply(decision, cx, Context::Inject, |d| {
            joined(&mut d.context).map(|text| {
                if as_user {
                    Injection::user(text)
                } else {
                    Injection::system(text)
                }
            })
        })
    }
}

impl WirePoint for AfterLlmCall {
    fn fields(input: &LlmReply) -> Map<String, Value> {
        fields([
            ("response", Value::from(input.text.as_str())),
            ("tool_calls", json(&input.tool_calls)),
        ])
    }

    fn dialect_fields(input: &LlmReply, dialect: Dialect, map: &mut Map<String, Value>) {
        match dialect {
            Dialect::Hermes => hermes_extra(
                map,
                [("assistant_response", Value::from(input.text.as_str()))],
            ),
            Dialect::DockerAgent => {
                map.insert("stop_response".to_owned(), Value::from(input.text.as_str()));
            }
            Dialect::Starchild => {
                let names: Vec<&str> = input.tool_calls.iter().map(|c| c.name.as_str()).collect();
                map.insert("tool_names".to_owned(), json(&names));
            }
            _ => {}
        }
    }

    /// Hermes fires `post_llm_call` once per turn, after the final reply: the one that calls no
    /// tool.
    fn fires_for(input: &LlmReply, event: &str, dialect: Dialect) -> bool {
        if dialect == Dialect::Hermes && event == "post_llm_call" {
            return input.tool_calls.is_empty();
        }
        true
    }

    fn transcript_entry(input: &LlmReply) -> Option<Value> {
        let mut content = Vec::new();
        if !input.text.is_empty() {
            content.push(serde_json::json!({"type": "text", "text": input.text}));
        }
        content.extend(input.tool_calls.iter().map(tool_use));
        Some(transcript::assistant(Value::Array(content)))
    }

    fn apply_answer(_: &LlmReply, decision: Answer, cx: &HookContext<'_>) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

impl WirePoint for TransformResponse {
    fn fields(input: &str) -> Map<String, Value> {
        fields([("response", Value::from(input))])
    }

    fn in_dialect(_: &str, answer: &mut Answer, dialect: Dialect, _: &HookContext<'_>) {
        // Starchild: `{"response": "..."}` on `on_response_end` is the new reply.
        if dialect == Dialect::Starchild
            && answer.updated_text.is_none()
            && let Some(response) = answer.response.take()
        {
            answer.updated_text = Some(response);
        }
    }

    fn transcript_entry(input: &str) -> Option<Value> {
        Some(assistant_text(input))
    }

    fn apply_answer(_: &str, decision: Answer, cx: &HookContext<'_>) -> HookResult<String> {
        apply(decision, cx, Context::Drop, |d| d.updated_text.take())
    }
}

impl WirePoint for TurnEnded {
    fn fields(input: &TurnEndEvent) -> Map<String, Value> {
        // `TurnEnd` serializes as `{"reason": "error", "detail": "..."}`.
        match json(&input.reason) {
            Value::Object(map) => map,
            other => fields([("reason", other)]),
        }
    }

    /// Codex's `Interrupt` is the end of a turn the user interrupted: it fires for a canceled
    /// turn only.
    fn fires_for(input: &TurnEndEvent, event: &str, _: Dialect) -> bool {
        event != "Interrupt" || input.reason == TurnEnd::Canceled
    }

    fn dialect_fields(input: &TurnEndEvent, dialect: Dialect, map: &mut Map<String, Value>) {
        if dialect == Dialect::DockerAgent && input.reason == TurnEnd::Blocked {
            map.insert("reason".to_owned(), Value::from("hook_blocked"));
        }
    }

    fn apply_answer(
        _: &TurnEndEvent,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Drop)
    }
}

impl WirePoint for OnSlashCommand {
    fn fields(input: &SlashCommand) -> Map<String, Value> {
        fields([
            ("command", Value::from(input.name.as_str())),
            ("args", Value::from(input.args.as_str())),
        ])
    }

    /// A matcher filters on the command's name, as Hermes' `command:NAME` names one command.
    fn event_subject(input: &SlashCommand, _: Dialect) -> Subject {
        Subject::Value(input.name.clone())
    }

    /// The new args: `updated_text` (or a rewritten `args` in the updated input).
    fn apply_answer(
        _: &SlashCommand,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<String> {
        apply(decision, cx, Context::Drop, |d| {
            let text = d.updated_text.take();
            let input = d.updated_input.take();
            text.or_else(|| {
                input.and_then(|v| v.get("args").and_then(Value::as_str).map(str::to_owned))
            })
        })
    }
}
