//! The tools of a registry: the `#[register_tool]` fns collected at link time and the closures
//! added with [`HooksBuilder::tool`] and [`HooksBuilder::async_tool`], each in one extension.
//!
//! - Tools are kept sorted by name, one per name: two tools of one name are an error when the
//!   registry is built ([`BuildError::DuplicateTool`], naming both definitions, file:line); a
//!   lenient build keeps the first in file:line order and logs the other.
//! - A tool a provider would refuse — a name outside `^[a-zA-Z0-9_-]{1,64}$`, parameters that are
//!   not a JSON Schema object — is an error when the registry is built
//!   ([`BuildError::Tool`]); a lenient build leaves it out.
//! - Each tool's parameters schema is made once, when the registry is built (a `#[register_tool]`
//!   fn's once per program), and its spec handed out as it is.
//! - A tool belongs to one extension, which the registry creates if no hook belongs to it; the
//!   extension lists it ([`Extension::tools`](hookchain_core::Extension::tools)), and the tool is
//!   offered and run only while the extension is enabled.

use std::panic::Location;
use std::sync::Arc;

use hookchain_core::__private::{
    AsyncToolClosure, RunningHook, SyncToolClosure, ToolHandler, ToolRegistration,
};
use hookchain_core::{BoxFuture, Extension, HookContext, ToolFailure, ToolSpec};
use serde_json::Value;

use super::builder::HooksBuilder;
use super::error::BuildError;
use super::hooks::Hooks;

/// A tool as the builder collects it.
pub(crate) struct AddedTool {
    spec: Option<ToolSpec>,
    registration: Option<&'static ToolRegistration>,
    handler: Option<ToolHandler>,
    file: Arc<str>,
    line: u32,
}

impl AddedTool {
    /// A `#[register_tool]` fn.
    pub(super) fn registered(registration: &'static ToolRegistration) -> Self {
        AddedTool {
            spec: None,
            registration: Some(registration),
            handler: registration.handler(),
            file: registration.file.into(),
            line: registration.line,
        }
    }
}

/// One tool of a registry.
pub(crate) struct Tool {
    /// What the model is told of it.
    pub(crate) spec: ToolSpec,
    /// How it is run.
    pub(crate) handler: ToolHandler,
    /// Its name and extension, as its context names them.
    pub(crate) running: RunningHook,
}

/// The tools of a registry, sorted by name, one per name.
#[derive(Default)]
pub(crate) struct Tools {
    tools: Vec<Tool>,
}

/// A tool whose spec is known, before its extension is.
pub(super) struct Pending {
    spec: ToolSpec,
    handler: ToolHandler,
    at: String,
}

/// The builder's tools, their specs made, sorted by name, with the errors of the build: two
/// tools of one name (the first in file:line order is kept), a tool a provider would refuse
/// (left out).
pub(super) fn pending(added: Vec<AddedTool>) -> (Vec<Pending>, Vec<BuildError>) {
    let mut errors = Vec::new();
    let mut pending: Vec<Pending> = added
        .into_iter()
        .filter_map(|tool| {
            let spec = match (tool.spec, tool.registration) {
                (Some(spec), _) => spec,
                (None, Some(registration)) => registration.spec(),
                (None, None) => return None,
            };
            let at = format!("{}:{}", tool.file, tool.line);
            let Some(handler) = tool.handler else {
                errors.push(BuildError::Tool {
                    tool: spec.name,
                    at,
                    message: "the record has no handler: rebuild with matching versions of \
                              hookchain and hookchain-macros"
                        .to_owned(),
                });
                return None;
            };
            if let Some(message) = spec.problem() {
                errors.push(BuildError::Tool {
                    tool: spec.name,
                    at,
                    message,
                });
                return None;
            }
            Some(Pending { spec, handler, at })
        })
        .collect();
    pending.sort_by(|a, b| (&a.spec.name, &a.at).cmp(&(&b.spec.name, &b.at)));
    let mut kept: Vec<Pending> = Vec::with_capacity(pending.len());
    for tool in pending {
        match kept.last() {
            Some(first) if first.spec.name == tool.spec.name => {
                errors.push(BuildError::DuplicateTool {
                    name: tool.spec.name,
                    first: first.at.clone(),
                    second: tool.at,
                });
            }
            _ => kept.push(tool),
        }
    }
    (kept, errors)
}

/// The (extension, tool name) of every pending tool: what the registry's extensions are made
/// with.
pub(super) fn names(pending: &[Pending]) -> Vec<(String, String)> {
    pending
        .iter()
        .map(|p| (p.spec.extension.clone(), p.spec.name.clone()))
        .collect()
}

impl Tools {
    /// The tools, each given its extension (which `extensions` holds: it was made with their
    /// names).
    pub(super) fn bind(pending: Vec<Pending>, extensions: &[Arc<Extension>]) -> Tools {
        let tools = pending
            .into_iter()
            .filter_map(|p| {
                let index = extensions
                    .binary_search_by(|e| e.name().cmp(&p.spec.extension))
                    .ok()?;
                Some(Tool {
                    running: RunningHook {
                        name: p.spec.name.as_str().into(),
                        extension: Arc::clone(&extensions[index]),
                    },
                    spec: p.spec,
                    handler: p.handler,
                })
            })
            .collect();
        Tools { tools }
    }

    /// The tool called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Tool> {
        self.tools
            .binary_search_by(|t| t.spec.name.as_str().cmp(name))
            .ok()
            .map(|index| &self.tools[index])
    }

    /// Every tool, sorted by name.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter()
    }
}

impl Tool {
    /// `true` while its extension is enabled.
    pub(crate) fn is_enabled(&self) -> bool {
        self.running.extension.is_enabled()
    }

    /// The message the model reads for a failure of this tool: for arguments that do not fit,
    /// the tool, the field, what serde said, and the closest parameter to each argument the
    /// schema does not declare.
    pub(crate) fn failure_message(&self, failure: ToolFailure, args: &Value) -> String {
        match failure {
            ToolFailure::Failed(message) => message,
            args_error @ ToolFailure::Args { .. } => {
                let mut message = format!(
                    "the arguments of tool `{}` do not fit its parameters: {args_error}",
                    self.spec.name
                );
                let known = self.spec.parameter_names();
                if let Some(given) = args.as_object() {
                    // Sorted: the same message whatever order serde_json keeps a map in.
                    let mut unknown: Vec<&String> = given
                        .keys()
                        .filter(|k| !known.contains(&k.as_str()))
                        .collect();
                    unknown.sort_unstable();
                    for key in unknown {
                        match hookchain_core::suggest::closest(key, known.iter().copied()) {
                            Some(close) => message.push_str(&format!(
                                "; `{key}` is not one of its parameters, did you mean `{close}`?"
                            )),
                            None => message.push_str(&format!(
                                "; `{key}` is not one of its parameters ({})",
                                quoted(known.iter().copied())
                            )),
                        }
                    }
                }
                message
            }
        }
    }
}

/// `a`, `b`, `c` — or "none".
pub(crate) fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

impl HooksBuilder {
    /// Adds a tool the model can call: `spec` says what the model is told of it (its name,
    /// description, parameters schema and extension), `handler` runs it with the call's
    /// arguments (as `intercept_tool_call` left them) and the tool's [`HookContext`], whose
    /// [`config`](HookContext::config) reads the extension's section. An `Err` is the error
    /// result the model reads. `Turn::call_tool` runs it through the tool points, as
    /// [`Turn::run_tool`](crate::Turn::run_tool) runs the agent's own tools.
    ///
    /// ```
    /// use hookchain::points::ToolCall;
    /// use hookchain::{HookContext, HooksBuilder, ToolSpec, TurnEnd};
    /// use serde_json::{Value, json};
    ///
    /// let params = json!({"type": "object", "properties": {"text": {"type": "string"}},
    ///                     "required": ["text"]});
    /// let hooks = HooksBuilder::new()
    ///     .tool(
    ///         ToolSpec::new("shout", "Says it louder.", params).in_extension("voice"),
    ///         |args: Value, _cx: &HookContext<'_>| {
    ///             let text = args["text"].as_str().ok_or("`text` must be a string")?;
    ///             Ok(json!(text.to_uppercase()))
    ///         },
    ///     )
    ///     .build()
    ///     .unwrap();
    /// let session = hooks.session("tool-doc");
    /// assert_eq!(session.tools()[0].name, "shout");
    /// let turn = session.begin_turn();
    /// let run = turn.call_tool(ToolCall::new("shout", json!({"text": "hi"})));
    /// assert_eq!(run.result.tool_response, json!("HI"));
    /// turn.end(TurnEnd::Normal);
    /// ```
    #[track_caller]
    pub fn tool<F>(self, spec: ToolSpec, handler: F) -> Self
    where
        F: Fn(Value, &HookContext<'_>) -> Result<Value, String> + Send + Sync + 'static,
    {
        let closure: SyncToolClosure =
            Arc::new(move |args, cx| handler(args, cx).map_err(ToolFailure::Failed));
        self.add_tool(spec, ToolHandler::Sync(closure), Location::caller())
    }

    /// [`tool`](HooksBuilder::tool) for an async handler: a fn (or closure) returning a boxed
    /// future. It runs under the registry's async time limit
    /// ([`async_timeout`](HooksBuilder::async_timeout)); one that overruns it is stopped at its
    /// next `.await` and its call gets an error result.
    ///
    /// ```
    /// use hookchain::registry::BoxFuture;
    /// use hookchain::{HookContext, HooksBuilder, ToolSpec};
    /// use serde_json::{Value, json};
    ///
    /// fn lookup<'a>(args: Value, _cx: &'a HookContext<'a>) -> BoxFuture<'a, Result<Value, String>> {
    ///     Box::pin(async move { Ok(json!({"found": args["key"]})) })
    /// }
    /// let params = json!({"type": "object", "properties": {"key": {"type": "string"}}});
    /// let hooks = HooksBuilder::new()
    ///     .async_tool(ToolSpec::new("lookup", "Looks a key up.", params), lookup)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(hooks.tools()[0].name, "lookup");
    /// ```
    #[track_caller]
    pub fn async_tool<F>(self, spec: ToolSpec, handler: F) -> Self
    where
        F: for<'a> Fn(Value, &'a HookContext<'a>) -> BoxFuture<'a, Result<Value, String>>
            + Send
            + Sync
            + 'static,
    {
        let closure: AsyncToolClosure = Arc::new(move |args, cx| {
            let fut = handler(args, cx);
            Box::pin(async move { fut.await.map_err(ToolFailure::Failed) })
                as BoxFuture<'_, Result<Value, ToolFailure>>
        });
        self.add_tool(spec, ToolHandler::Async(closure), Location::caller())
    }

    fn add_tool(
        mut self,
        spec: ToolSpec,
        handler: ToolHandler,
        at: &'static Location<'static>,
    ) -> Self {
        self.tools.push(AddedTool {
            spec: Some(spec),
            registration: None,
            handler: Some(handler),
            file: at.file().into(),
            line: at.line(),
        });
        self
    }
}

impl Hooks {
    /// Every tool of the registry, sorted by name, whatever its extension's state: the
    /// `#[register_tool]` fns collected and the tools added with
    /// [`HooksBuilder::tool`]. What a session offers the model is
    /// [`Session::tools`](crate::Session::tools).
    pub fn tools(&self) -> Vec<ToolSpec> {
        self.inner.tools.iter().map(|t| t.spec.clone()).collect()
    }
}

impl super::hooks::Registry {
    /// The time limit of an async tool: the registry's async time limit; `None` for no limit.
    pub(crate) fn tool_timeout(&self) -> Option<std::time::Duration> {
        let limit = self.timeouts.async_hooks;
        (limit != std::time::Duration::MAX).then_some(limit)
    }
}
