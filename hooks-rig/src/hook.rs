//! [`HookchainHook`]: the one rig-agent [`AgentHook`] that fires hookchain's points.
//!
//! # What it owns
//!
//! The mapping of a rig run onto one hookchain [`Turn`], and the run's adapter state: the turn,
//! why the adapter ended it, the calls it refused, the context hooks added for the model (the
//! run's, and `turn_start`'s), and the results of the tool calls since the last model call (the
//! batch `after_tool_batch` gets). It also says which hooks never run under rig (the points of
//! [`NOT_FIRED`]).
//! That state lives in the run's own scratchpad, so two runs of one agent never share it, and a
//! run whose future is dropped drops its turn with it.
//!
//! # The rules it keeps
//!
//! - **One rig run is one hookchain turn.** rig calls each model call a "turn"
//!   ([`rig_agent::HookContext::turn`]); hookchain's turn is the whole run for one prompt. The
//!   turn begins at the run's start and ends when the run settles, with the [`TurnEnd`] the
//!   run earned (see [`turn_end`]). A run whose future is dropped before it settles drops its
//!   turn: hookchain's `Drop` ends it as `Canceled` and warns.
//! - **Async all the way.** Every point fires through its `_async` method, inside rig's own
//!   task: an `async fn` hook that awaits tokio works, and nothing blocks an executor thread.
//! - **A guard never fails open through the adapter.** A call whose arguments cannot be read
//!   still goes through `intercept_tool_call` (as a string); a block of any point stops what
//!   it guards; and a run resumed past its start begins its turn at the first event it sees.
//! - Hook warnings (`cx.warn`) are logged with `tracing::warn!` (target `hookchain`); context
//!   hooks add for the model (`cx.add_context`) goes to every later model call of the run.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use hookchain_core::points::{LlmCall, ToolResult as HcToolResult};
use hookchain_core::{Flow, Level, Notification, NotificationKind, TurnEnd};
use hookchain_runtime::{Session, Stop, Turn};
use parking_lot::Mutex;
use rig_agent::HookContext;
use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, DispatchAction, DispatchEvent,
    ModelTurnAction, ModelTurnFinished, OutcomeAction, OutcomeEvent, RequestPatch, RunSettled,
    RunStart, RunStartAction, SettledOutcome, StepEventKind,
};
use rig_agent::core::completion::{AssistantContent, CompletionResponse, Document};
use rig_agent::core::effect::{EffectId, Outcome};
use rig_agent::core::message::Message;
use rig_agent::tool::{ToolExecutionError, ToolResult as RigToolResult};

use crate::convert;

/// A rig-agent [`AgentHook`] that runs a hookchain [`Session`]'s hooks at every step of every
/// run of the agent it is added to.
///
/// ```no_run
/// # fn agent(model: rig_agent::core::DynModel<rig_agent::core::operation::Completion>) {
/// use hookchain::Hooks;
/// use hookchain::adapters::rig::HookchainHook;
/// use rig_agent::AgentBuilder;
///
/// let agent = AgentBuilder::new(model)
///     .preamble("You are a careful assistant.")
///     .default_max_turns(8)
///     .add_hook(HookchainHook::new(Hooks::global().session("sess-1")))
///     .build();
/// # }
/// ```
///
/// | rig event | hookchain point | what a hook's answer does |
/// |---|---|---|
/// | run start | `transform_user_input` (the prompt's text) | a rewrite replaces the prompt's text; a block stops the run before any model call |
/// | run start, after it | `turn_start` (the prompt as rewritten) | injections are sent as context documents with every model call of the run; a block stops the run before any model call |
/// | a completion call that follows tool calls | `after_tool_batch` (every result of the model's last tool calls, the refused ones included, in the order the model asked for them) | injections are sent as context documents with that call only; a block stops the run |
/// | each completion call | `before_llm_call` | system injections are sent as context documents; user injections as a user message (see below); a block stops the run |
/// | tool dispatch | `intercept_tool_call` | a rewrite patches the call's arguments; a block skips the call, and the model sees the reason as the call's result |
/// | tool outcome | `after_tool_call`, then `transform_tool_result` | a rewrite replaces what the model sees; a block replaces it with the reason, as an error |
/// | a completion's outcome without tool calls (a candidate final reply, before rig accepts it) | `transform_response` | a rewrite replaces the reply's text (what the caller gets and the history keeps); a block stops the run with the reason |
/// | each model turn | `after_llm_call` | — |
/// | a model turn without tool calls | `on_stop` | a block sends the model back to work with the reason as feedback, at most the registry's redo cap per run |
/// | run settled | `turn_end` | — |
///
/// The points no rig run fires, and why ([`NOT_FIRED`]); a hook installed on one of them never
/// runs under rig, and the adapter says so — logged when it is made, and told to the hooks of
/// `notification` at the first run of each `HookchainHook` ([`describe`](HookchainHook::describe)
/// gives the same text):
///
/// | point | why rig has no moment for it |
/// |---|---|
/// | `permission_request` | rig asks nobody before a tool runs: every call `intercept_tool_call` lets through runs, so guard calls there |
/// | `before_compaction`, `after_compaction` | rig does not compact a run's history |
/// | `outbound_message` | rig sends nothing to a chat platform: the reply goes back to the caller |
///
/// `session_start`, `session_end`, `session_reset` and `subagent_stop` belong to the session,
/// not to a run: they fire when the agent's code makes, ends, resets or makes a child of the
/// [`Session`] it gives the adapter. So does `slash_command`: it fires when the agent's code
/// hands a line of its user to `Session::command` before prompting rig with it. `notification` fires for failures of hooks and for the
/// adapter's own notices.
///
/// What is lossy, because rig has no place for it:
/// - hooks see a message's text only (see the conversions in [`crate`]'s docs), and not the
///   agent's preamble;
/// - a user injection is sent as a user message just before the prompt on a call whose prompt
///   is the user's (or a redo's feedback), and as a context document on a call that carries
///   tool results, since nothing may come between a tool call and its result; it replaces the
///   request's history for that call, so another rig hook patching the history wins over it
///   or loses to it by registration order;
/// - `on_stop` cannot rewrite the final reply (rig's model-turn hook accepts, retries or stops
///   a turn but does not edit it): `transform_response`, which fires before it, is where a
///   reply is rewritten; a reply `on_stop` sends back is transformed again when the model
///   answers anew;
/// - each redo is one more model call of rig's budget (`max_turns`, 1 by default): give the
///   agent room for the redos, or the run ends with rig's max-turns error;
/// - a block's hook name is not shown to the model, only the reason.
///
/// The session is the caller's: end it (`session.end_async(..)`) when the conversation ends.
/// Add one `HookchainHook` per agent; each keeps the state of its own runs.
pub struct HookchainHook {
    session: Session,
    id: u64,
    /// Whether the hooks of `notification` heard which hooks never run under rig.
    told: AtomicBool,
}

/// The points a rig run fires through the adapter, in the order of a run.
pub const FIRED: &[&str] = &[
    "transform_user_input",
    "turn_start",
    "after_tool_batch",
    "before_llm_call",
    "intercept_tool_call",
    "after_tool_call",
    "transform_tool_result",
    "transform_response",
    "after_llm_call",
    "on_stop",
    "turn_end",
];

/// The points no rig run fires, each with why rig has no moment for it.
pub const NOT_FIRED: &[(&str, &str)] = &[
    (
        "permission_request",
        "rig asks nobody before a tool runs: every call `intercept_tool_call` lets through runs, \
         so guard calls there",
    ),
    ("before_compaction", "rig does not compact a run's history"),
    ("after_compaction", "rig does not compact a run's history"),
    (
        "outbound_message",
        "rig sends nothing to a chat platform: the reply goes back to the caller",
    ),
];

impl HookchainHook {
    /// A hook that fires `session`'s hooks in every run of the agent it is added to. A hook of
    /// the session's registry on a point no rig run fires ([`NOT_FIRED`]) is logged as never
    /// running, here, and told to the hooks of `notification` at the first run.
    pub fn new(session: Session) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let hook = HookchainHook {
            session,
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            told: AtomicBool::new(false),
        };
        for warning in hook.never_run() {
            tracing::warn!(target: "hookchain", session = hook.session.id(), "{warning}");
        }
        hook
    }

    /// What the adapter fires and what it cannot, and each hook of the session's registry that
    /// never runs under rig, with why: a few lines for the user.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "hookchain under rig fires: {}
",
            FIRED.join(", ")
        );
        for (point, why) in NOT_FIRED {
            text.push_str(&format!("never fires `{point}`: {why}\n"));
        }
        for warning in self.never_run() {
            text.push_str(&warning);
            text.push('\n');
        }
        text
    }

    /// One sentence per hook of the session's registry on a point no rig run fires.
    fn never_run(&self) -> Vec<String> {
        NOT_FIRED
            .iter()
            .flat_map(|(point, why)| {
                self.session
                    .hooks()
                    .chain_of(point)
                    .into_iter()
                    .map(move |hook| {
                        format!(
                            "hook `{}` on `{point}` never runs under rig: {why}",
                            hook.name
                        )
                    })
            })
            .collect()
    }

    /// The session whose hooks run.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The adapter state of the run `ctx` belongs to, beginning the turn when the run has none
    /// yet (its start, or the first event of a run resumed past its start).
    fn run(&self, ctx: &HookContext) -> Arc<Run> {
        // One lock for every hook and run: getting the scratchpad's map and inserting it must
        // not race with a parallel tool call of the same run.
        static INIT: Mutex<()> = Mutex::new(());
        let _init = INIT.lock();
        let runs = match ctx.scratchpad().get::<Runs>() {
            Some(runs) => runs,
            None => {
                let runs = Runs::default();
                ctx.scratchpad().insert(runs.clone());
                runs
            }
        };
        let mut runs = runs.0.lock();
        runs.entry(self.id)
            .or_insert_with(|| {
                Arc::new(Run {
                    turn: self.session.begin_turn(),
                    end: Mutex::new(None),
                    refused: Mutex::new(HashSet::new()),
                    context: Mutex::new(Vec::new()),
                    turn_context: Mutex::new(Vec::new()),
                    batch: Mutex::new(Vec::new()),
                    asked: Mutex::new(Vec::new()),
                })
            })
            .clone()
    }

    /// `transform_response` at a completion's outcome that calls no tool: a candidate final
    /// reply, before rig accepts it as the model's turn.
    async fn completion_outcome(
        &self,
        ctx: &HookContext,
        response: &CompletionResponse,
    ) -> OutcomeAction {
        let calls_tools = response
            .choice
            .iter()
            .any(|block| matches!(block, AssistantContent::ToolCall(_)));
        if calls_tools || response.error.is_some() || response.aborted.is_some() {
            return OutcomeAction::Proceed;
        }
        let run = self.run(ctx);
        let text = convert::llm_reply(&response.choice).text;
        let flow = run.turn.transform_response_async(text.clone()).await;
        run.collect();
        match flow {
            Flow::Continue(reply) if reply == text => OutcomeAction::Proceed,
            Flow::Continue(reply) => {
                let mut rewritten = response.clone();
                rewritten.choice = convert::with_text(&response.choice, reply);
                OutcomeAction::replace(Ok(Outcome::Completion(rewritten)))
            }
            Flow::Blocked(blocked) => {
                run.end_with(TurnEnd::Blocked);
                OutcomeAction::stop(blocked.reason)
            }
        }
    }

    /// Takes the run's state out of its scratchpad, if it has any.
    fn take_run(&self, ctx: &HookContext) -> Option<Arc<Run>> {
        ctx.scratchpad()
            .get::<Runs>()
            .and_then(|runs| runs.0.lock().remove(&self.id))
    }
}

impl std::fmt::Debug for HookchainHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookchainHook")
            .field("session", &self.session.id())
            .finish()
    }
}

/// The adapter state of every run's `HookchainHook`s, keyed by hook: one value of the run's
/// scratchpad.
#[derive(Clone, Default)]
struct Runs(Arc<Mutex<HashMap<u64, Arc<Run>>>>);

/// One run, as the adapter sees it.
struct Run {
    turn: Turn,
    /// Why the adapter stopped or ended the run, when it did: this wins over what rig reports.
    end: Mutex<Option<TurnEnd>>,
    /// The dispatches `intercept_tool_call` refused: their outcome is the adapter's own skip.
    refused: Mutex<HashSet<EffectId>>,
    /// The context hooks added for the model, in order, sent with every later model call.
    context: Mutex<Vec<String>>,
    /// What `turn_start` injected: sent with every model call of the run.
    turn_context: Mutex<Vec<String>>,
    /// The results of the tool calls since the last model call, refused ones included: the
    /// batch `after_tool_batch` gets.
    batch: Mutex<Vec<HcToolResult>>,
    /// The ids of the tool calls of the last model turn, in the order the model asked for them.
    asked: Mutex<Vec<String>>,
}

impl Run {
    /// Moves the context and warnings hooks added in the last dispatch where they go.
    fn collect(&self) {
        let context = self.turn.take_context();
        if !context.is_empty() {
            self.context.lock().extend(context);
        }
        for warning in self.turn.take_warnings() {
            tracing::warn!(target: "hookchain", session = self.turn.session_id(), "{warning}");
        }
    }

    fn end_with(&self, reason: TurnEnd) {
        *self.end.lock() = Some(reason);
    }
}

/// The [`TurnEnd`] of a settled run: the adapter's own reason when it stopped the run (a block,
/// or `on_stop`'s redo cap), else `Normal` for a reply, `MaxIterations` for rig's max-turns
/// error, `Canceled` for a run another hook or the caller cancelled, and `Error` with rig's
/// message for any other error.
pub fn turn_end(outcome: &SettledOutcome<'_>) -> TurnEnd {
    match outcome {
        SettledOutcome::Response(_) => TurnEnd::Normal,
        SettledOutcome::Error(message) if message.starts_with("reached the max turns limit") => {
            TurnEnd::MaxIterations
        }
        SettledOutcome::Error(message) if message.starts_with("the run was cancelled") => {
            TurnEnd::Canceled
        }
        SettledOutcome::Error(message) => TurnEnd::Error((*message).to_owned()),
    }
}

/// The documents a model call carries for hookchain: the session's context, the turn's
/// (`turn_start`), the run's, what `after_tool_batch` injected for this call, and this call's
/// system injection.
fn documents(
    session: &Session,
    run: &Run,
    batch: &[String],
    system: Option<String>,
) -> Vec<Document> {
    let document = |id: String, text: String| Document {
        id,
        text,
        additional_props: HashMap::new(),
    };
    let mut documents = Vec::new();
    for (i, text) in session.context().iter().enumerate() {
        documents.push(document(format!("hookchain-session-{i}"), text.clone()));
    }
    for (i, text) in run.turn_context.lock().iter().enumerate() {
        documents.push(document(format!("hookchain-turn-{i}"), text.clone()));
    }
    for (i, text) in batch.iter().enumerate() {
        documents.push(document(format!("hookchain-batch-{i}"), text.clone()));
    }
    for (i, text) in run.context.lock().iter().enumerate() {
        documents.push(document(format!("hookchain-context-{i}"), text.clone()));
    }
    if let Some(system) = system {
        documents.push(document("hookchain-system".into(), system));
    }
    documents
}

impl AgentHook for HookchainHook {
    fn name(&self) -> Option<String> {
        Some("hookchain".to_owned())
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        matches!(
            kind,
            StepEventKind::RunStart
                | StepEventKind::RunSettled
                | StepEventKind::CompletionCall
                | StepEventKind::ModelTurnFinished
                | StepEventKind::ToolDispatch
                | StepEventKind::CompletionDispatch
        )
    }

    async fn on_run_start(&self, ctx: &HookContext, event: RunStart<'_>) -> RunStartAction {
        let run = self.run(ctx);
        if !self.told.swap(true, Ordering::AcqRel) {
            for warning in self.never_run() {
                run.turn
                    .notify_async(Notification {
                        level: Level::Warning,
                        message: warning,
                        source: Some("hookchain-rig".to_owned()),
                        kind: NotificationKind::General,
                    })
                    .await;
            }
        }
        let text = convert::prompt_text(event.prompt);
        let flow = run.turn.transform_user_input_async(text.clone()).await;
        run.collect();
        let (prompt, action) = match flow {
            Flow::Continue(rewritten) if rewritten == text => (text, RunStartAction::Continue),
            Flow::Continue(rewritten) => (
                rewritten.clone(),
                RunStartAction::rewrite(convert::rewrite_prompt(event.prompt, rewritten)),
            ),
            Flow::Blocked(blocked) => {
                run.end_with(TurnEnd::Blocked);
                return RunStartAction::stop(blocked.reason);
            }
        };
        let start = run.turn.turn_start_async(prompt).await;
        run.collect();
        match start {
            Flow::Continue(start) => {
                *run.turn_context.lock() = start.context;
                action
            }
            Flow::Blocked(blocked) => {
                run.end_with(TurnEnd::Blocked);
                RunStartAction::stop(blocked.reason)
            }
        }
    }

    async fn on_completion_call(
        &self,
        ctx: &HookContext,
        event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        let run = self.run(ctx);
        // The call after the model's tool calls: their batch is complete.
        let mut batch_context = Vec::new();
        if convert::carries_tool_results(event.prompt) {
            let mut results = std::mem::take(&mut *run.batch.lock());
            let asked = std::mem::take(&mut *run.asked.lock());
            results.sort_by_key(|result| {
                asked
                    .iter()
                    .position(|id| Some(id) == result.tool_use_id.as_ref())
                    .unwrap_or(usize::MAX)
            });
            let flow = run.turn.after_tool_batch_async(results).await;
            run.collect();
            match flow {
                Flow::Continue(batch) => batch_context = batch.context,
                Flow::Blocked(blocked) => {
                    run.end_with(TurnEnd::Blocked);
                    return CompletionCallAction::stop(blocked.reason);
                }
            }
        }
        let (system_prompt, messages) =
            convert::llm_messages(event.history.iter().chain([event.prompt]));
        let before = LlmCall::new(system_prompt, messages);
        let flow = run.turn.before_llm_call_async(before.clone()).await;
        run.collect();
        let after = match flow {
            Flow::Continue(after) => after,
            Flow::Blocked(blocked) => {
                run.end_with(TurnEnd::Blocked);
                return CompletionCallAction::stop(blocked.reason);
            }
        };
        // An inject chain only appends: what it added is what follows the call it was given.
        let system = after
            .system_prompt
            .strip_prefix(before.system_prompt.as_str())
            .map(|added| added.trim_start_matches("\n\n").to_owned())
            .filter(|added| !added.is_empty());
        let user: Vec<String> = after
            .messages
            .get(before.messages.len()..)
            .unwrap_or_default()
            .iter()
            .map(|message| message.content.clone())
            .collect();
        let mut patch = RequestPatch::new();
        let mut documents = documents(&self.session, &run, &batch_context, system);
        if !user.is_empty() {
            if convert::carries_tool_results(event.prompt) {
                documents.push(Document {
                    id: "hookchain-user".into(),
                    text: user.join("\n\n"),
                    additional_props: HashMap::new(),
                });
            } else {
                let history = event.history.iter().cloned();
                patch = patch.history(history.chain(user.into_iter().map(Message::user)));
            }
        }
        let patch = patch.extra_context(documents);
        if patch.is_empty() {
            CompletionCallAction::Continue
        } else {
            CompletionCallAction::patch(patch)
        }
    }

    async fn on_model_turn_finished(
        &self,
        ctx: &HookContext,
        event: ModelTurnFinished<'_>,
    ) -> ModelTurnAction {
        let run = self.run(ctx);
        let reply = convert::llm_reply(event.content);
        let calls_tools = !reply.tool_calls.is_empty();
        *run.asked.lock() = reply
            .tool_calls
            .iter()
            .filter_map(|call| call.id.clone())
            .collect();
        let text = reply.text.clone();
        run.turn.after_llm_call_async(reply).await;
        run.collect();
        if calls_tools {
            return ModelTurnAction::Continue;
        }
        let stop = run.turn.on_stop_async(text).await;
        run.collect();
        match stop {
            Stop::Finish(_) => ModelTurnAction::Continue,
            Stop::Redo { instruction, .. } => ModelTurnAction::retry_with_feedback(instruction),
            Stop::Capped { .. } => {
                run.end_with(TurnEnd::MaxIterations);
                ModelTurnAction::Continue
            }
        }
    }

    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let (Some(name), Some(args)) = (event.tool_name(), event.tool_args()) else {
            return DispatchAction::Proceed;
        };
        let run = self.run(ctx);
        let call_id = event.call_id.map(|id| id.wire().into_owned());
        let asked = convert::tool_call(name, args, call_id.as_deref());
        let flow = run.turn.intercept_tool_call_async(asked.clone()).await;
        run.collect();
        match flow {
            Flow::Continue(call) if call.args == asked.args => DispatchAction::Proceed,
            Flow::Continue(call) => DispatchAction::rewrite_tool_args(event.kind, call.args),
            Flow::Blocked(blocked) => {
                run.refused.lock().insert(event.id);
                let refused = HcToolResult::refused(&asked, (&blocked).into());
                let refused = run.turn.after_tool_call_async(refused).await;
                run.collect();
                run.batch.lock().push(refused);
                DispatchAction::skip(blocked.reason)
            }
        }
    }

    async fn on_outcome(&self, ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        if let Ok(Outcome::Completion(response)) = event.outcome {
            return self.completion_outcome(ctx, response).await;
        }
        let (Some(name), Some(args)) = (event.tool_name(), event.tool_args()) else {
            return OutcomeAction::Proceed;
        };
        let run = self.run(ctx);
        if run.refused.lock().remove(&event.id) {
            // The adapter's own skip: `after_tool_call` has seen the refused call already.
            return OutcomeAction::Proceed;
        }
        let call_id = event.call_id.map(|id| id.wire().into_owned());
        let call = convert::tool_call(name, args, call_id.as_deref());
        let (output, is_error, ran) = match event.outcome {
            Ok(Outcome::ToolResult { result }) => (
                convert::output_value(result.output()),
                result.is_error() || result.is_refused() || result.is_skipped(),
                !result.is_skipped(),
            ),
            Ok(_) => return OutcomeAction::Proceed,
            Err(report) => (
                serde_json::Value::String(report.message.clone()),
                true,
                true,
            ),
        };
        let result = HcToolResult::new(
            &call,
            if is_error {
                Err(match output {
                    serde_json::Value::String(text) => text,
                    other => other.to_string(),
                })
            } else {
                Ok(output)
            },
        );
        let result = run.turn.after_tool_call_async(result).await;
        run.collect();
        if !ran {
            // Skipped by another hook or a layer of the bus: there is no result to transform.
            run.batch.lock().push(result);
            return OutcomeAction::Proceed;
        }
        let before = result.tool_response.clone();
        let flow = run.turn.transform_tool_result_async(result.clone()).await;
        run.collect();
        // What the model sees is what the batch holds.
        run.batch.lock().push(match &flow {
            Flow::Continue(transformed) => transformed.clone(),
            Flow::Blocked(blocked) => {
                let mut refused = result;
                refused.tool_response = serde_json::Value::String(blocked.reason.clone());
                refused.is_error = true;
                refused
            }
        });
        match (flow, event.outcome) {
            (Flow::Continue(result), _) if result.tool_response == before => OutcomeAction::Proceed,
            (Flow::Continue(result), Ok(_)) => OutcomeAction::rewrite_tool_output(
                &event,
                convert::output_of(&result.tool_response),
            ),
            (Flow::Continue(result), Err(report)) => {
                OutcomeAction::replace(Ok(Outcome::ToolResult {
                    result: RigToolResult::failed(ToolExecutionError::from(report.clone()))
                        .with_output(convert::output_of(&result.tool_response)),
                }))
            }
            (Flow::Blocked(blocked), _) => OutcomeAction::replace(Ok(Outcome::ToolResult {
                result: RigToolResult::failed(ToolExecutionError::other(blocked.reason)),
            })),
        }
    }

    async fn on_run_settled(&self, ctx: &HookContext, event: RunSettled<'_>) {
        let Some(run) = self.take_run(ctx) else {
            return;
        };
        let reason = run
            .end
            .lock()
            .take()
            .unwrap_or_else(|| turn_end(&event.outcome));
        run.turn.end_async(reason).await;
        run.collect();
    }
}
