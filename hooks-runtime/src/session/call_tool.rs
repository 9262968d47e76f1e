//! The tools extensions give the model, at the agent's side: which a session offers
//! ([`Session::tools`], [`Session::set_active_tools`], [`Session::active_tools`]) and how a turn
//! calls one ([`Turn::call_tool`], [`Turn::call_tool_async`]).
//!
//! # The rules it keeps
//!
//! - A session offers the tools of its registry whose extension is enabled and that are active
//!   in it: every tool until the agent names the active ones ([`Session::set_active_tools`],
//!   Pi's `setActiveTools`), then those alone, until it names others.
//! - [`Turn::call_tool`] runs a registered tool through the same points as
//!   [`Turn::run_tool`] — it *is* `run_tool`, with the registered tool as the tool:
//!   `intercept_tool_call` may rewrite its args or block it, `after_tool_call` and
//!   `transform_tool_result` see it — so guards apply to extension tools exactly as to the
//!   agent's own.
//! - A call the session cannot run — an unknown tool (with the closest name the session offers),
//!   an inactive one, one whose extension is off (saying who switched it off and how to switch
//!   it on) — fires no `intercept_tool_call`: it comes back at once as a [`ToolRun`] whose result
//!   is an error the model can read, `ran` false, and `after_tool_call` hears of it, as it hears
//!   of every call. Arguments that do not fit the tool's parameters are the tool's own error
//!   result, naming the field (serde's path) and the closest parameter to each argument the
//!   schema does not declare. Nothing here panics, and a panicking tool is an error result, as
//!   in `run_tool`.
//! - The tool gets a [`HookContext`] of the turn: the turn's and the session's state, its own
//!   name as the running hook's, and its extension, whose config it reads with `cx.config()`.
//!   What it attaches there is handed, once it returned, to one function of the turn,
//!   `TurnInner::deliver_tool_attachments`: its context for the model and its warnings are
//!   kept with the turn's ([`Turn::take_context`], [`Turn::take_warnings`]), the notifications
//!   it asked for are fired through `notification`; metadata, which only later hooks of one
//!   dispatch read, is dropped.
//! - An async tool runs under the registry's async time limit
//!   ([`HooksBuilder::async_timeout`](crate::HooksBuilder::async_timeout)) and is stopped at its
//!   next `.await` once it is over: the call gets an error result, never a hang. The sync
//!   [`Turn::call_tool`] drives an async tool as the sync dispatch drives async hooks: on the
//!   calling thread (through the runtime inside a multi-thread tokio runtime); inside a
//!   current-thread tokio runtime, where waiting would block the thread the runtime needs, a
//!   tool that does not finish at its first poll fails at once with an error naming
//!   [`Turn::call_tool_async`]. Telling a tokio runtime apart needs hookchain's `tokio`
//!   feature: without it, a tool waiting on tokio's timers or I/O from a sync call inside a
//!   current-thread runtime is never woken and fails only at its time limit — an agent that
//!   runs on tokio calls `call_tool_async`.

use std::sync::atomic::{AtomicBool, Ordering};

use hookchain_core::__private::ToolHandler;
use hookchain_core::points::{AfterToolCall, Notify};
use hookchain_core::{
    Annotations, Attached, HookContext, ToolCall, ToolFailure, ToolResult, ToolSpec,
};

use super::firing::Mode;
use super::lifecycle::Session;
use super::tools::ToolRun;
use super::turn::{Turn, TurnInner};
use crate::exec::{Driven, drive, with_timeout};
use crate::registry::Tool;

/// What a tool's context names as its point: a tool runs outside any point's chain.
pub(crate) const TOOL_POINT: &str = "tool";

impl Session {
    /// The tools the session offers the model: those of enabled extensions that are active in
    /// the session ([`set_active_tools`](Session::set_active_tools)), sorted by name, each with
    /// the JSON Schema of its parameters. Hand them to the model (converted with
    /// [`ToolSpec::to_openai`], [`ToolSpec::to_anthropic`] or [`ToolSpec::to_mcp`]) and run the
    /// calls it makes with [`Turn::call_tool`].
    pub fn tools(&self) -> Vec<ToolSpec> {
        let active = self.inner.active_tools.read();
        self.inner
            .hooks
            .inner
            .tools
            .iter()
            .filter(|t| t.is_enabled() && is_active(active.as_deref(), &t.spec.name))
            .map(|t| t.spec.clone())
            .collect()
    }

    /// Makes `names` the tools active in the session (Pi's `setActiveTools`): from now on the
    /// session offers, and its turns run, those alone (among the tools of enabled extensions).
    /// A name no tool of the registry has is kept, matches nothing, and is logged with the
    /// closest tool's name.
    pub fn set_active_tools<I, S>(&self, names: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        let tools = &self.inner.hooks.inner.tools;
        for name in names.iter().filter(|n| tools.get(n).is_none()) {
            let known: Vec<&str> = tools.iter().map(|t| t.spec.name.as_str()).collect();
            let hint = match hookchain_core::suggest::closest(name, known.iter().copied()) {
                Some(close) => format!(", did you mean `{close}`?"),
                None => String::new(),
            };
            tracing::warn!(
                session_id = &*self.inner.id,
                "Session::set_active_tools: no tool is named `{name}`{hint}"
            );
        }
        *self.inner.active_tools.write() = Some(names);
    }

    /// The names of the tools active in the session, sorted: every tool of the registry until
    /// [`set_active_tools`](Session::set_active_tools) named some, then the named ones the
    /// registry has. Whether their extensions are enabled is [`tools`](Session::tools)' concern.
    pub fn active_tools(&self) -> Vec<String> {
        let active = self.inner.active_tools.read();
        self.inner
            .hooks
            .inner
            .tools
            .iter()
            .filter(|t| is_active(active.as_deref(), &t.spec.name))
            .map(|t| t.spec.name.clone())
            .collect()
    }

    /// The tool `name` when the session may run it; else the error the model reads.
    fn runnable_tool(&self, name: &str) -> Result<&Tool, String> {
        let tools = &self.inner.hooks.inner.tools;
        let active = self.inner.active_tools.read();
        let Some(tool) = tools.get(name) else {
            let offered: Vec<&str> = tools
                .iter()
                .filter(|t| t.is_enabled() && is_active(active.as_deref(), &t.spec.name))
                .map(|t| t.spec.name.as_str())
                .collect();
            return Err(
                match hookchain_core::suggest::closest(name, offered.iter().copied()) {
                    Some(close) => format!("there is no tool `{name}`, did you mean `{close}`?"),
                    None => format!(
                        "there is no tool `{name}`; the tools are {}",
                        crate::registry::quoted(offered.iter().copied())
                    ),
                },
            );
        };
        let extension = &tool.running.extension;
        if !extension.is_enabled() {
            let by = extension
                .disabled_by()
                .map(|who| format!(" (disabled by {who})"))
                .unwrap_or_default();
            let ext = extension.name();
            return Err(format!(
                "the tool `{name}` is off: its extension `{ext}` is disabled{by}; turn it on with \
                 `extensions: {{{ext}: {{enabled: true}}}}` in hookchain.yaml or \
                 `Hooks::enable_extension(\"{ext}\")`"
            ));
        }
        if !is_active(active.as_deref(), name) {
            let active: Vec<&str> = tools
                .iter()
                .filter(|t| is_active(active.as_deref(), &t.spec.name))
                .map(|t| t.spec.name.as_str())
                .collect();
            return Err(format!(
                "the tool `{name}` is not active in this session; the active tools are {}",
                crate::registry::quoted(active.into_iter())
            ));
        }
        Ok(tool)
    }
}

/// `true` when `name` is in the active set (`None`: every tool is active).
fn is_active(active: Option<&[String]>, name: &str) -> bool {
    active.is_none_or(|names| names.iter().any(|n| n == name))
}

impl Turn {
    /// Runs the registered tool `call` names (a `#[register_tool]` fn or a
    /// [`HooksBuilder::tool`](crate::HooksBuilder::tool)) through the tool points, exactly as
    /// [`run_tool`](Turn::run_tool) runs the agent's own: `intercept_tool_call` (which may
    /// rewrite the args the tool gets, or block the call), the tool, `after_tool_call` and
    /// `transform_tool_result`.
    ///
    /// - A call the session cannot run — an unknown tool (with the closest name the session
    ///   offers), an inactive one, one whose extension is off (saying who switched it off and
    ///   how to switch it on) — fires no `intercept_tool_call`: it comes back at once as a
    ///   [`ToolRun`] whose result is an error the model can read, `ran` false; `after_tool_call`
    ///   hears of it, as it hears of every call.
    /// - Arguments that do not fit the tool's parameters are an error result and the tool's
    ///   body does not run (`ran` is false): every tool's arguments are checked against the
    ///   outline of its schema first ([`ToolSpec::check_args`]: an object, the required
    ///   parameters, their JSON types), then a `#[register_tool]` fn's are read by serde. The
    ///   message names the field and the closest parameter to each argument the schema does not
    ///   declare. A tool that panics or fails is an error result too (`ran` true).
    /// - The tool gets a [`HookContext`] of the turn: the turn's and the session's state, its
    ///   own name as the running hook's, and its extension, whose config it reads with
    ///   `cx.config()`. Once it returned, the context and warnings it added join the turn's
    ///   ([`take_context`](Turn::take_context), [`take_warnings`](Turn::take_warnings)) and the
    ///   notifications it asked for fire through `notification`.
    /// - An async tool runs under the registry's async time limit
    ///   ([`HooksBuilder::async_timeout`](crate::HooksBuilder::async_timeout)): one that
    ///   overruns it is stopped at its next `.await` and the call gets an error result. This sync
    ///   call drives it as the sync dispatch drives async hooks: on this thread (through the
    ///   runtime inside a multi-thread tokio runtime); inside a current-thread tokio runtime a
    ///   tool that does not finish at its first poll fails at once, with an error naming
    ///   [`call_tool_async`](Turn::call_tool_async), which such an agent calls instead. Telling
    ///   the runtimes apart takes hookchain's `tokio` feature: without it, such a tool waits for
    ///   its time limit.
    pub fn call_tool(&self, call: ToolCall) -> ToolRun {
        const VIA: &str = "Turn::call_tool_async";
        let t = &*self.inner;
        let tool = match t.session.runnable_tool(&call.name) {
            Ok(tool) => tool,
            Err(message) => {
                let result = ToolResult::new(&call, Err(message));
                let _ = t.fire::<AfterToolCall>(result.clone(), Mode::Sync(VIA));
                return unavailable(result);
            }
        };
        let annotations = Annotations::new();
        let limit = t.hooks.inner.tool_timeout();
        let refused = AtomicBool::new(false);
        let mut run = self.run_tool(call, |call| {
            if let Err(failure) = tool.spec.check_args(&call.args) {
                refused.store(true, Ordering::Relaxed);
                return Err(tool.failure_message(failure, &call.args));
            }
            let cx =
                HookContext::for_turn(&t.scope, TOOL_POINT, &annotations).running(&tool.running);
            let args = call.args.clone();
            let name = &tool.spec.name;
            let output = match &tool.handler {
                ToolHandler::SyncFn(f) => f(args, &cx),
                ToolHandler::Sync(f) => f(args, &cx),
                ToolHandler::AsyncFn(f) => driven(name, drive(f(args, &cx), limit), limit),
                ToolHandler::Async(f) => driven(name, drive(f(args, &cx), limit), limit),
            };
            refused.store(
                matches!(output, Err(ToolFailure::Args { .. })),
                Ordering::Relaxed,
            );
            output.map_err(|failure| tool.failure_message(failure, &call.args))
        });
        // Arguments that did not fit: the tool's body never ran.
        if refused.load(Ordering::Relaxed) {
            run.ran = false;
        }
        if let Some(attached) = annotations.into_attached() {
            t.deliver_tool_attachments(attached, Mode::Sync(VIA));
        }
        run
    }

    /// [`call_tool`](Turn::call_tool), awaiting async hooks and async tools (each under the
    /// registry's async time limit).
    pub async fn call_tool_async(&self, call: ToolCall) -> ToolRun {
        const VIA: &str = "Turn::call_tool_async";
        let t = &*self.inner;
        let tool = match t.session.runnable_tool(&call.name) {
            Ok(tool) => tool,
            Err(message) => {
                let result = ToolResult::new(&call, Err(message));
                let _ = t.fire_async::<AfterToolCall>(result.clone(), VIA).await;
                return unavailable(result);
            }
        };
        let annotations = Annotations::new();
        let limit = t.hooks.inner.tool_timeout();
        let refused = AtomicBool::new(false);
        let mut run = self
            .run_tool_async(call, async |call: &ToolCall| {
                if let Err(failure) = tool.spec.check_args(&call.args) {
                    refused.store(true, Ordering::Relaxed);
                    return Err(tool.failure_message(failure, &call.args));
                }
                let cx = HookContext::for_turn(&t.scope, TOOL_POINT, &annotations)
                    .running(&tool.running);
                let args = call.args.clone();
                let name = &tool.spec.name;
                let output = match &tool.handler {
                    ToolHandler::SyncFn(f) => f(args, &cx),
                    ToolHandler::Sync(f) => f(args, &cx),
                    ToolHandler::AsyncFn(f) => timed(name, f(args, &cx), limit).await,
                    ToolHandler::Async(f) => timed(name, f(args, &cx), limit).await,
                };
                refused.store(
                    matches!(output, Err(ToolFailure::Args { .. })),
                    Ordering::Relaxed,
                );
                output.map_err(|failure| tool.failure_message(failure, &call.args))
            })
            .await;
        // Arguments that did not fit: the tool's body never ran.
        if refused.load(Ordering::Relaxed) {
            run.ran = false;
        }
        if let Some(attached) = annotations.into_attached() {
            t.deliver_tool_attachments_async(attached, VIA).await;
        }
        run
    }
}

impl TurnInner {
    /// Takes what a tool attached to its context, once it returned: its context for the model
    /// and its warnings join the turn's, the notifications it asked for are fired through
    /// `notification`, and the events it emitted are delivered to their points' chains before
    /// the call returns. Every tool's attachments come here, from [`Turn::call_tool`].
    pub(super) fn deliver_tool_attachments(&self, attached: Attached, mode: Mode) {
        self.keep_attached(&attached);
        for note in attached.notifications {
            let _ = self.fire::<Notify>(note, mode);
        }
        if let Mode::Sync(via) = mode
            && !attached.events.is_empty()
        {
            self.deliver(attached.events, via);
        }
    }

    /// [`deliver_tool_attachments`](Self::deliver_tool_attachments) for
    /// [`Turn::call_tool_async`], awaiting async `notification` hooks.
    pub(super) async fn deliver_tool_attachments_async(
        &self,
        attached: Attached,
        via: &'static str,
    ) {
        self.keep_attached(&attached);
        for note in attached.notifications {
            let _ = self.fire_async::<Notify>(note, via).await;
        }
        if !attached.events.is_empty() {
            self.deliver_async(attached.events, via).await;
        }
    }

    /// Keeps a tool's context and warnings with the turn's.
    fn keep_attached(&self, attached: &Attached) {
        if attached.context.is_empty() && attached.warnings.is_empty() {
            return;
        }
        let mut collected = self.collected.lock();
        collected.context.extend(attached.context.iter().cloned());
        collected.warnings.extend(attached.warnings.iter().cloned());
    }
}

/// The run of a call the session cannot run: its error result, the tool not run.
fn unavailable(result: ToolResult) -> ToolRun {
    ToolRun {
        result,
        ran: false,
        blocked: None,
    }
}

/// What became of an async tool the sync call drove.
fn driven(
    name: &str,
    driven: Driven<hookchain_core::__private::ToolReturn>,
    limit: Option<std::time::Duration>,
) -> hookchain_core::__private::ToolReturn {
    match driven {
        Driven::Done(output) => output,
        Driven::TimedOut => Err(overran(name, limit)),
        Driven::CannotBlock(place) => Err(ToolFailure::Failed(format!(
            "the async tool `{name}` cannot be waited for {place}: the agent must call it with \
             Turn::call_tool_async"
        ))),
    }
}

/// An async tool awaited for at most `limit`.
async fn timed(
    name: &str,
    fut: hookchain_core::BoxFuture<'_, hookchain_core::__private::ToolReturn>,
    limit: Option<std::time::Duration>,
) -> hookchain_core::__private::ToolReturn {
    match limit {
        None => fut.await,
        Some(limit) => match with_timeout(fut, limit).await {
            Some(output) => output,
            None => Err(overran(name, Some(limit))),
        },
    }
}

/// The error of an async tool that ran out of time.
fn overran(name: &str, limit: Option<std::time::Duration>) -> ToolFailure {
    ToolFailure::Failed(format!(
        "the tool `{name}` did not finish within its time limit of {:?}, and was stopped",
        limit.unwrap_or_default()
    ))
}
