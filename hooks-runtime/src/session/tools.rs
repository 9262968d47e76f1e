//! A tool call run through its points, [`Turn::run_tool`] and its async twin.
//!
//! - [`Turn::run_tool`] fires the tool points in their order: `intercept_tool_call`, the tool,
//!   `after_tool_call` (on success and on error, a panicking tool included), then
//!   `transform_tool_result`, which sees the call as it actually ran.
//! - **Every call reaches `after_tool_call`, the refused ones too**, so an audit hook sees them
//!   all. When `intercept_tool_call` blocks, the tool does not run and neither does
//!   `transform_tool_result` (there is no result to transform); `after_tool_call` fires with
//!   [`ToolResult::refused`]: the call as the model asked for it, the reason as an error
//!   `tool_response`, and the block in [`ToolResult::blocked`] (the hook, the reason, and whether
//!   it was a failure under `on_error = "block"`). The [`ToolRun`] the agent gets for a refused
//!   call is the reason as an error, with the call's name and id only. External hooks
//!   configured under another agent's event name are not fired for a refused call, as their
//!   agents fire no post-tool event for a denied call (see `hookchain::external::wire`).

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use hookchain_core::points::{AfterToolCall, InterceptToolCall, Notify, TransformToolResult};
use hookchain_core::{Blocked, Flow, Level, Notification, NotificationKind, ToolCall, ToolResult};
use serde_json::Value;

use super::firing::Mode;
use super::turn::{Turn, TurnInner, observed};
use crate::chain::take_panic;

/// A tool call run through [`Turn::run_tool`]: the result the model should see, and how it came
/// about.
#[must_use = "a tool run holds the result the model must see, or why the call was blocked"]
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolRun {
    /// What the model sees: the (possibly transformed) result, or an error with the reason when a
    /// hook blocked.
    pub result: ToolResult,
    /// `true` when the tool actually ran.
    pub ran: bool,
    /// The block, when `intercept_tool_call` or `transform_tool_result` blocked.
    pub blocked: Option<Blocked>,
}

impl Turn {
    /// Runs one tool call with every tool point in order: `intercept_tool_call`; then, unless it
    /// blocked, the tool (a panic in it becomes an error result); `after_tool_call`, on success
    /// and on error; and `transform_tool_result`, which sees the call as it actually ran.
    ///
    /// The tool gets the call with its args as the hooks left them. When `intercept_tool_call`
    /// blocks, the tool and `transform_tool_result` do not run, but `after_tool_call` still
    /// fires, with [`ToolResult::refused`] (the block recorded in [`ToolResult::blocked`]), so
    /// an audit hook sees every call.
    pub fn run_tool<F>(&self, call: ToolCall, tool: F) -> ToolRun
    where
        F: FnOnce(&ToolCall) -> Result<Value, String>,
    {
        const VIA: Mode = Mode::Sync("Turn::run_tool_async");
        let t = &*self.inner;
        let asked = t.asked(&call);
        let call = match t.fire::<InterceptToolCall>(call, VIA).flow {
            Flow::Continue(call) => call,
            Flow::Blocked(blocked) => {
                let _ =
                    t.fire::<AfterToolCall>(ToolResult::refused(&asked, (&blocked).into()), VIA);
                return refused(asked, blocked);
            }
        };
        let output = match catch_unwind(AssertUnwindSafe(|| tool(&call))) {
            Ok(output) => output,
            Err(panic) => {
                let (message, note) = tool_panicked(&call, panic);
                let _ = t.fire::<Notify>(note, VIA);
                Err(message)
            }
        };
        let result = observed(t.fire::<AfterToolCall>(ToolResult::new(&call, output), VIA));
        ran(&call, t.fire::<TransformToolResult>(result, VIA).flow)
    }

    /// [`run_tool`](Turn::run_tool) with an async tool, awaiting async hooks.
    ///
    /// ```
    /// use hookchain::TurnEnd;
    /// use hookchain::points::ToolCall;
    /// use hookchain::HooksBuilder;
    /// use serde_json::json;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// # rt.block_on(async {
    /// let hooks = HooksBuilder::new().build().unwrap();
    /// let session = hooks.session_async("run-tool-doc").await;
    /// let turn = session.begin_turn();
    /// let call = ToolCall::new("echo", json!({"text": "hi"}));
    /// let run = turn
    ///     .run_tool_async(call, async |call: &ToolCall| Ok(call.args["text"].clone()))
    ///     .await;
    /// assert_eq!(run.result.tool_response, json!("hi"));
    /// turn.end_async(TurnEnd::Normal).await;
    /// # });
    /// ```
    pub async fn run_tool_async<F>(&self, call: ToolCall, tool: F) -> ToolRun
    where
        F: AsyncFnOnce(&ToolCall) -> Result<Value, String>,
    {
        const VIA: &str = "Turn::run_tool_async";
        let t = &*self.inner;
        let asked = t.asked(&call);
        let call = match t.fire_async::<InterceptToolCall>(call, VIA).await.flow {
            Flow::Continue(call) => call,
            Flow::Blocked(blocked) => {
                let result = ToolResult::refused(&asked, (&blocked).into());
                let _ = t.fire_async::<AfterToolCall>(result, VIA).await;
                return refused(asked, blocked);
            }
        };
        let output = match CatchPanic(Box::pin(tool(&call))).await {
            Ok(output) => output,
            Err(panic) => {
                let (message, note) = tool_panicked(&call, panic);
                let _ = t.fire_async::<Notify>(note, VIA).await;
                Err(message)
            }
        };
        let result = ToolResult::new(&call, output);
        let result = observed(t.fire_async::<AfterToolCall>(result, VIA).await);
        ran(
            &call,
            t.fire_async::<TransformToolResult>(result, VIA).await.flow,
        )
    }
}

impl TurnInner {
    /// What `run_tool` keeps of a call before `intercept_tool_call` may consume it: its name and
    /// id, and its args when an `after_tool_call` hook would see them should the call be refused.
    #[inline]
    fn asked(&self, call: &ToolCall) -> ToolCall {
        let audited = !self
            .session
            .inner
            .hooks
            .inner
            .chain::<AfterToolCall>()
            .is_empty();
        ToolCall {
            name: call.name.clone(),
            args: if audited {
                call.args.clone()
            } else {
                Value::Null
            },
            id: call.id.clone(),
        }
    }
}

/// The run of a tool call `intercept_tool_call` blocked: the model gets the reason (and the
/// call's name and id, not its args).
fn refused(asked: ToolCall, blocked: Blocked) -> ToolRun {
    let mut refused = ToolCall::new(asked.name, Value::Null);
    refused.id = asked.id;
    ToolRun {
        result: ToolResult::new(&refused, Err(blocked.reason.clone())),
        ran: false,
        blocked: Some(blocked),
    }
}

/// The run of a tool that ran, once `transform_tool_result` has had its say.
fn ran(call: &ToolCall, flow: Flow<ToolResult>) -> ToolRun {
    match flow {
        Flow::Continue(result) => ToolRun {
            result,
            ran: true,
            blocked: None,
        },
        Flow::Blocked(blocked) => ToolRun {
            result: ToolResult::new(call, Err(blocked.reason.clone())),
            ran: true,
            blocked: Some(blocked),
        },
    }
}

/// The error result of a tool that panicked, and the notification that says so. The panic's
/// payload is dropped under a guard (see [`take_panic`]).
fn tool_panicked(call: &ToolCall, panic: Box<dyn std::any::Any + Send>) -> (String, Notification) {
    let message = format!("the tool `{}` panicked: {}", call.name, take_panic(panic));
    let note = Notification {
        level: Level::Error,
        message: message.clone(),
        source: Some(call.name.clone()),
        kind: NotificationKind::General,
    };
    (message, note)
}

/// A future that turns a panic during `poll` into the panic's payload.
struct CatchPanic<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchPanic<F> {
    type Output = Result<F::Output, Box<dyn std::any::Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(out)) => Poll::Ready(Ok(out)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}
