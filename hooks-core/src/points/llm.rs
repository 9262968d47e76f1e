//! The payloads of a model call: the conversation ([`Message`], [`Role`]), the call about to be
//! made ([`LlmCall`]) and what hooks inject into it ([`Injection`]), and the model's reply
//! ([`LlmReply`]).

use serde::{Deserialize, Serialize};

use super::tools::ToolCall;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A model message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }

    /// A tool result.
    pub fn tool(content: impl Into<String>) -> Self {
        Message {
            role: Role::Tool,
            content: content.into(),
        }
    }
}

/// A model call about to be made: the system prompt and the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LlmCall {
    /// The system prompt.
    pub system_prompt: String,
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
}

impl LlmCall {
    /// A call with a system prompt and messages.
    pub fn new(system_prompt: impl Into<String>, messages: Vec<Message>) -> Self {
        LlmCall {
            system_prompt: system_prompt.into(),
            messages,
        }
    }

    /// Applies an injection: system text is appended to the system prompt as a new paragraph,
    /// user text is appended to the conversation as a user message.
    pub fn inject(&mut self, injection: Injection) {
        if let Some(system) = injection.system {
            if !self.system_prompt.is_empty() {
                self.system_prompt.push_str("\n\n");
            }
            self.system_prompt.push_str(&system);
        }
        if let Some(user) = injection.user {
            self.messages.push(Message::user(user));
        }
    }
}

/// What a `before_llm_call` hook adds to the model call.
///
/// ```
/// use hookchain::{HookResult, points::Injection};
/// let r: HookResult<Injection> = HookResult::Rewrite(Injection::system("Plan first."));
/// # assert!(r.is_rewrite());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Injection {
    /// Text appended to the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Text appended to the conversation as a user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

impl Injection {
    /// Injects system text.
    pub fn system(text: impl Into<String>) -> Self {
        Injection {
            system: Some(text.into()),
            user: None,
        }
    }

    /// Injects user text.
    pub fn user(text: impl Into<String>) -> Self {
        Injection {
            system: None,
            user: Some(text.into()),
        }
    }

    /// Adds user text to this injection.
    pub fn and_user(mut self, text: impl Into<String>) -> Self {
        self.user = Some(text.into());
        self
    }
}

impl crate::HookResult<Injection> {
    /// Shorthand for `HookResult::Rewrite(Injection::system(text))`.
    pub fn inject_system(text: impl Into<String>) -> Self {
        crate::HookResult::Rewrite(Injection::system(text))
    }

    /// Shorthand for `HookResult::Rewrite(Injection::user(text))`.
    pub fn inject_user(text: impl Into<String>) -> Self {
        crate::HookResult::Rewrite(Injection::user(text))
    }
}

/// The payload of `after_llm_call`: what the model replied.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LlmReply {
    /// The reply's text.
    pub text: String,
    /// The tool calls the model asked for.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
}

impl LlmReply {
    /// A reply with text and no tool calls.
    pub fn text(text: impl Into<String>) -> Self {
        LlmReply {
            text: text.into(),
            tool_calls: Vec::new(),
        }
    }
}
