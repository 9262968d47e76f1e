//! What the adapter's tests share: two tools that record their calls, a model that answers
//! from a function of the request (rig's scripted wire, no network), and a log of hook firings.

#![allow(dead_code)]

use std::sync::Arc;

use hookchain_rig::rig_agent::core::completion::CompletionRequest;
use hookchain_rig::rig_agent::core::driver::{Exchange, Model, Opened, Opening, Transport};
use hookchain_rig::rig_agent::core::message::{
    DocumentSourceKind, Message, ToolResultContent, UserContent,
};
use hookchain_rig::rig_agent::test_utils::{MockFrame, MockScript, MockStreamEvent};
use hookchain_rig::rig_agent::tool::{Tool, ToolContext, ToolExecutionError};
use parking_lot::Mutex;
use serde_json::Value;

/// What happened, in order.
pub(crate) type Log = Arc<Mutex<Vec<String>>>;

pub(crate) fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

/// A tool named `name` that records the arguments of every call and answers `answer`.
#[derive(Clone)]
pub(crate) struct Recorder {
    pub calls: Arc<Mutex<Vec<Value>>>,
    answer: &'static str,
}

impl Recorder {
    pub(crate) fn new(answer: &'static str) -> Self {
        Recorder {
            calls: Arc::default(),
            answer,
        }
    }
}

/// `write_file`: records its args.
#[derive(Clone)]
pub(crate) struct WriteFile(pub Recorder);

/// `read_file`: records its args.
#[derive(Clone)]
pub(crate) struct ReadFile(pub Recorder);

macro_rules! recording_tool {
    ($ty:ident, $name:literal) => {
        impl Tool for $ty {
            const NAME: &'static str = $name;
            type Args = Value;
            type Output = String;
            type Error = ToolExecutionError;

            fn description(&self) -> String {
                concat!("the ", $name, " tool").to_owned()
            }

            fn parameters(&self) -> Value {
                serde_json::json!({"type": "object", "properties": {}})
            }

            async fn call(
                &self,
                _context: &mut ToolContext,
                args: Value,
            ) -> Result<String, ToolExecutionError> {
                self.0.calls.lock().push(args);
                Ok(self.0.answer.to_owned())
            }
        }
    };
}

recording_tool!(WriteFile, "write_file");
recording_tool!(ReadFile, "read_file");

/// A model that answers each request with what `answer` makes of it: rig's scripted wire, on a
/// transport that computes the reply instead of reading it from a queue, so runs that overlap
/// get the answers meant for them. Records every request.
#[derive(Clone)]
pub(crate) struct Responder {
    answer: Arc<dyn Fn(&CompletionRequest) -> Reply + Send + Sync>,
    pub requests: Arc<Mutex<Vec<CompletionRequest>>>,
}

/// One model turn.
pub(crate) enum Reply {
    Text(String),
    /// Tool calls: (call id, tool name, args).
    Tools(Vec<(String, String, Value)>),
}

impl Responder {
    pub(crate) fn new(
        answer: impl Fn(&CompletionRequest) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Responder {
            answer: Arc::new(answer),
            requests: Arc::default(),
        }
    }

    /// Answers the `n`-th model call of a run (from 0, counted by the assistant turns already
    /// in the request) with `script[n]`, and with an empty text past its end.
    pub(crate) fn script(script: Vec<Reply>) -> Self {
        let script = Arc::new(script);
        Responder::new(move |request| {
            let n = request
                .chat_history
                .iter()
                .filter(|m| matches!(m, Message::Assistant(_)))
                .count();
            match script.get(n) {
                Some(Reply::Text(text)) => Reply::Text(text.clone()),
                Some(Reply::Tools(calls)) => Reply::Tools(calls.clone()),
                None => Reply::Text(String::new()),
            }
        })
    }

    pub(crate) fn model(&self) -> Model<MockScript, Responder> {
        Model::new(MockScript::new("scripted"), self.clone())
    }

    /// The requests the model got, in order.
    pub(crate) fn requests(&self) -> Vec<CompletionRequest> {
        self.requests.lock().clone()
    }
}

// rig's transport contract fixes the error type; its size is rig's choice.
#[allow(clippy::result_large_err)]
impl Transport<MockScript> for Responder {
    fn send(&self, request: CompletionRequest, _exchange: Exchange) -> Opening<MockFrame> {
        let reply = (self.answer)(&request);
        self.requests.lock().push(request);
        let mut events = match reply {
            Reply::Text(text) => vec![MockStreamEvent::text(text)],
            Reply::Tools(calls) => calls
                .into_iter()
                .map(|(id, name, args)| MockStreamEvent::tool_call(id, name, args))
                .collect(),
        };
        events.push(MockStreamEvent::final_response_with_default_usage());
        Opening::ready(Opened::new(futures::stream::iter(
            events.into_iter().map(|event| Ok(MockFrame::Event(event))),
        )))
    }
}

/// Every text a request shows the model: its messages' text and tool results, and its
/// documents.
pub(crate) fn texts(request: &CompletionRequest) -> Vec<String> {
    let mut out = Vec::new();
    for message in &request.chat_history {
        match message {
            Message::System { content } => out.push(content.clone()),
            Message::User { content } => {
                for part in content {
                    match part {
                        UserContent::Text(text) => out.push(text.text.clone()),
                        UserContent::ToolResult(result) => {
                            for content in &result.content {
                                if let ToolResultContent::Text(text) = content {
                                    out.push(text.text.clone());
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            Message::Assistant(_) => {}
        }
    }
    out.extend(documents(request));
    out
}

/// The context documents a request carries, as rig renders them into its messages
/// (`<file id: ID>\nTEXT\n</file>\n`).
pub(crate) fn documents(request: &CompletionRequest) -> Vec<String> {
    let rendered = request
        .chat_history
        .iter()
        .flat_map(|message| match message {
            Message::User { content } => content
                .iter()
                .filter_map(|part| match part {
                    UserContent::Document(document) => match &document.data {
                        DocumentSourceKind::String(text) => Some(text.clone()),
                        _ => None,
                    },
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        });
    let documents = request.documents.iter().map(ToString::to_string);
    rendered.chain(documents).collect()
}

/// The user texts of a request's messages, in order.
pub(crate) fn user_texts(request: &CompletionRequest) -> Vec<String> {
    request
        .chat_history
        .iter()
        .filter_map(|message| match message {
            Message::User { content } => Some(content.iter().filter_map(|part| match part {
                UserContent::Text(text) => Some(text.text.clone()),
                _ => None,
            })),
            _ => None,
        })
        .flatten()
        .collect()
}
