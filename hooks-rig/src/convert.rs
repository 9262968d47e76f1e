//! Conversions between rig's types and hookchain's payloads.
//!
//! # What it owns
//!
//! Every translation the adapter makes, in both directions, and nothing else: no hook fires
//! here. Each function says what it keeps and what it drops; the README's framework guide
//! lists the same losses.
//!
//! # The rules it keeps
//!
//! - A tool call's arguments reach hooks as the JSON object the model sent. Arguments that are
//!   not a JSON object reach them as a JSON string holding the raw text, so a guard still sees
//!   the call (rig answers such calls itself, before dispatch, in the usual case).
//! - Text is what hooks see of a message: images, audio, video and documents are not shown to
//!   them and are kept untouched by a rewrite.
//! - A tool result is shown as JSON when the tool answered with one JSON value, and as its
//!   rendered text otherwise; a rewrite that is a JSON string becomes text output, any other
//!   JSON value becomes JSON output.

use hookchain_core::points::{LlmReply, Message as HcMessage, ToolCall as HcToolCall};
use rig_agent::core::completion::AssistantContent;
use rig_agent::core::message::{Message, ToolResultContent, UserContent};
use rig_agent::tool::ToolOutput;
use serde_json::Value;

/// The tool call hooks see for a rig dispatch of `name` with `args` (the JSON text the model
/// sent, after earlier hooks' patches) answering the model's call `call_id`.
pub(crate) fn tool_call(name: &str, args: &str, call_id: Option<&str>) -> HcToolCall {
    HcToolCall::from_json_str(name, args, call_id).unwrap_or_else(|_| {
        let call = HcToolCall::new(name, Value::String(args.to_owned()));
        match call_id {
            Some(id) => call.with_id(id),
            None => call,
        }
    })
}

/// The text of a user (or system) message: its text parts, joined by a blank line. Tool
/// results, images and other media are left out.
pub(crate) fn prompt_text(message: &Message) -> String {
    match message {
        Message::System { content } => content.clone(),
        Message::User { content } => join(content.iter().filter_map(|part| match part {
            UserContent::Text(text) => Some(text.text.as_str()),
            _ => None,
        })),
        Message::Assistant(assistant) => assistant_text(&assistant.content),
    }
}

/// `message` with its text replaced by `text`: the first text part becomes `text`, the other
/// text parts go, and every other part (images, documents, tool results) stays where it was. A
/// message without text gets `text` as its first part. A system or assistant message becomes a
/// user message of `text` (a run's prompt is a user message).
pub(crate) fn rewrite_prompt(message: &Message, text: String) -> Message {
    let Message::User { content } = message else {
        return Message::user(text);
    };
    let mut text = Some(text);
    let mut parts = Vec::with_capacity(content.len() + 1);
    for part in content {
        match part {
            UserContent::Text(_) => {
                if let Some(text) = text.take() {
                    parts.push(UserContent::text(text));
                }
            }
            other => parts.push(other.clone()),
        }
    }
    if let Some(text) = text {
        parts.insert(0, UserContent::text(text));
    }
    Message::User { content: parts }
}

/// `true` when `message` is a user message carrying tool results: the answer to the model's
/// tool calls, which nothing may come between.
pub(crate) fn carries_tool_results(message: &Message) -> bool {
    matches!(message, Message::User { content }
        if content.iter().any(|part| matches!(part, UserContent::ToolResult(_))))
}

/// The conversation hooks see for a model call: system messages of the history become the
/// system prompt (paragraphs, in order); user text, tool results and assistant text become
/// messages of their role. The agent's preamble is not part of it (rig adds it later), and
/// neither are media or the assistant's tool calls.
pub(crate) fn llm_messages<'a>(
    messages: impl IntoIterator<Item = &'a Message>,
) -> (String, Vec<HcMessage>) {
    let mut system = Vec::new();
    let mut out = Vec::new();
    for message in messages {
        match message {
            Message::System { content } => system.push(content.clone()),
            Message::User { content } => {
                let text = join(content.iter().filter_map(|part| match part {
                    UserContent::Text(text) => Some(text.text.as_str()),
                    _ => None,
                }));
                for part in content {
                    if let UserContent::ToolResult(result) = part {
                        out.push(HcMessage::tool(join(result.content.iter().filter_map(
                            |content| match content {
                                ToolResultContent::Text(text) => Some(text.text.as_str()),
                                _ => None,
                            },
                        ))));
                    }
                }
                if !text.is_empty() {
                    out.push(HcMessage::user(text));
                }
            }
            Message::Assistant(assistant) => {
                let text = assistant_text(&assistant.content);
                if !text.is_empty() {
                    out.push(HcMessage::assistant(text));
                }
            }
        }
    }
    (system.join("\n\n"), out)
}

/// What hooks see of a model turn: its text blocks, joined by a blank line, and its tool calls.
/// Reasoning, images and provider items are left out.
pub(crate) fn llm_reply(content: &[AssistantContent]) -> LlmReply {
    let tool_calls = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::ToolCall(call) => Some(
                HcToolCall::new(
                    call.function.name.as_str(),
                    Value::Object(call.function.arguments.clone()),
                )
                .with_id(call.id.wire()),
            ),
            _ => None,
        })
        .collect();
    LlmReply {
        text: assistant_text(content),
        tool_calls,
    }
}

/// An assistant turn's blocks with its text replaced by `text`: one text block where the first
/// was (at the end when there was none); reasoning, images and provider items are kept.
pub(crate) fn with_text(content: &[AssistantContent], text: String) -> Vec<AssistantContent> {
    let mut out = Vec::with_capacity(content.len() + 1);
    let mut text = Some(text);
    for block in content {
        match block {
            AssistantContent::Text(_) => {
                if let Some(text) = text.take() {
                    out.push(AssistantContent::text(text));
                }
            }
            other => out.push(other.clone()),
        }
    }
    if let Some(text) = text {
        out.push(AssistantContent::text(text));
    }
    out
}

/// The text blocks of an assistant turn, joined by a blank line.
fn assistant_text(content: &[AssistantContent]) -> String {
    join(content.iter().filter_map(|block| match block {
        AssistantContent::Text(text) => Some(text.text.as_str()),
        _ => None,
    }))
}

/// A tool's model-visible output as hooks see it: the JSON value when the output is exactly
/// one JSON value, its rendered text otherwise.
pub(crate) fn output_value(output: &ToolOutput) -> Value {
    match output.as_json() {
        Some(value) => value.clone(),
        None => Value::String(output.render()),
    }
}

/// The output a hook's rewrite stands for: text for a JSON string, JSON for anything else.
pub(crate) fn output_of(value: &Value) -> ToolOutput {
    match value {
        Value::String(text) => ToolOutput::text(text.clone()),
        other => ToolOutput::json(other.clone()),
    }
}

fn join<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    parts.collect::<Vec<_>>().join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rig_agent::core::message::Image;

    #[test]
    fn tool_call_args_that_are_not_an_object_reach_hooks_as_raw_text() {
        let call = tool_call("shell", "[1, 2]", Some("c1"));
        assert_eq!(call.args, Value::String("[1, 2]".into()));
        assert_eq!(call.id.as_deref(), Some("c1"));
        let call = tool_call("shell", r#"{"cmd": "ls"}"#, None);
        assert_eq!(call.args, serde_json::json!({"cmd": "ls"}));
    }

    #[test]
    fn a_prompt_rewrite_replaces_the_text_and_keeps_the_media() {
        let image = UserContent::Image(Image::default());
        let prompt = Message::User {
            content: vec![
                UserContent::text("look at"),
                image.clone(),
                UserContent::text("this"),
            ],
        };
        assert_eq!(prompt_text(&prompt), "look at\n\nthis");
        let rewritten = rewrite_prompt(&prompt, "LOOK".into());
        let Message::User { content } = rewritten else {
            panic!("a prompt stays a user message")
        };
        assert_eq!(content, vec![UserContent::text("LOOK"), image]);
    }

    #[test]
    fn output_round_trips_text_and_json() {
        assert_eq!(
            output_value(&ToolOutput::text("hi")),
            Value::String("hi".into())
        );
        let json = serde_json::json!({"n": 1});
        assert_eq!(output_value(&output_of(&json)), json);
        assert_eq!(output_of(&Value::String("x".into())).as_text(), Some("x"));
    }
}
