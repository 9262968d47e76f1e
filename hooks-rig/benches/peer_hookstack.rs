//! rig-agent's own hook chain next to hookchain's, in one binary: ten trivial pass-through
//! hooks on a tool call's dispatch, both ways.
//!
//! - `rig`: a `HookStack` of ten `AgentHook`s whose `on_dispatch` makes a compare the optimizer
//!   cannot fold and proceeds, awaited as rig's engine awaits it. rig builds its `HookContext`
//!   only inside a run, so the loop runs inside one: a scripted agent (rig's own
//!   `test_utils` model) makes one tool call, and a probe hook on that dispatch runs the
//!   measured loop with the run's context and the dispatch's event.
//! - `hookchain`: the same compare in ten `#[register_hook]` fns, through
//!   `turn.intercept_tool_call(call)`, the call handed back by each dispatch sent to the next
//!   (as the `rig` loop sends its event by copy: neither allocates).
//!
//! `peer_hookstack VARIANT N` runs N dispatches of one variant (for callgrind: the difference
//! between two counts of N is N dispatches, the set-up cancelled out);
//! `peer_hookstack wall` prints nanoseconds per dispatch of both, interleaved, medians of
//! rounds. `scripts/peers/run.sh` runs it with the other peers.

use std::future::IntoFuture;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use hookchain::points::ToolCall;
use hookchain::prelude::*;
use parking_lot::Mutex;
use rig_agent::AgentBuilder;
use rig_agent::agent::{AgentHook, DispatchAction, DispatchEvent, HookContext, HookStack};
use rig_agent::test_utils::{MockCompletionModel, MockTurn};
use rig_agent::tool::{Tool, ToolContext, ToolExecutionError};

/// What every hook does, both ways: a compare the optimizer cannot fold, that passes.
#[inline(always)]
fn three(len: usize) -> bool {
    black_box(len) == 3
}

macro_rules! hookchain_hooks {
    ($($name:ident)*) => {$(
        #[register_hook("intercept_tool_call")]
        fn $name(call: &ToolCall) -> HookResult<Value> {
            if three(call.name.len()) {
                return HookResult::block("three");
            }
            HookResult::Pass
        }
    )*};
}
hookchain_hooks!(h01 h02 h03 h04 h05 h06 h07 h08 h09 h10);

/// One of rig's ten.
struct Trivial(usize);

impl AgentHook for Trivial {
    async fn on_dispatch(&self, _: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if three(self.0) {
            return DispatchAction::Patch(event.kind.clone());
        }
        DispatchAction::Proceed
    }
}

/// What the probe measures inside the run.
#[derive(Clone, Copy)]
enum Measure {
    /// N dispatches through the stack.
    Count(usize),
    /// Nanoseconds per dispatch of `batch` dispatches.
    Time { batch: usize },
}

/// The probe: on the run's first dispatch, runs the measured loop through `stack`.
struct Probe {
    stack: HookStack,
    measure: Measure,
    out: Arc<Mutex<Option<f64>>>,
}

impl AgentHook for Probe {
    async fn on_dispatch(&self, cx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if self.out.lock().is_some() {
            return DispatchAction::Proceed;
        }
        let n = match self.measure {
            Measure::Count(n) => n,
            Measure::Time { batch } => batch,
        };
        let started = Instant::now();
        for _ in 0..n {
            let action = self.stack.on_dispatch(cx, black_box(event)).await;
            assert!(matches!(action, DispatchAction::Proceed));
        }
        let ns = started.elapsed().as_nanos() as f64 / n as f64;
        *self.out.lock() = Some(ns);
        DispatchAction::Proceed
    }
}

/// The tool the scripted model calls once.
struct Shell;

impl Tool for Shell {
    const NAME: &'static str = "shell";
    type Args = Value;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Runs a shell command".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"cmd": {"type": "string"}}})
    }

    async fn call(&self, _: &mut ToolContext, _: Value) -> Result<String, ToolExecutionError> {
        Ok("ok".into())
    }
}

/// Runs one scripted rig run whose first dispatch runs `measure` through ten trivial hooks;
/// returns nanoseconds per dispatch.
fn rig(runtime: &tokio::runtime::Runtime, measure: Measure) -> f64 {
    let mut stack = HookStack::new();
    for i in 0..10 {
        stack.push(Trivial(i + 10));
    }
    let out = Arc::new(Mutex::new(None));
    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call("c1", "shell", json!({"cmd": "ls"})),
        MockTurn::text("Done."),
    ]);
    let agent = AgentBuilder::new(model)
        .default_max_turns(4)
        .tool(Shell)
        .add_hook(Probe {
            stack,
            measure,
            out: Arc::clone(&out),
        })
        .build();
    runtime
        .block_on(agent.prompt("list the files").into_future())
        .expect("the scripted run finishes");
    let ns = out.lock().take();
    ns.expect("the probe saw a dispatch")
}

/// `n` dispatches through hookchain's ten; nanoseconds per dispatch. The call goes in by value
/// and comes back in the flow, which the next dispatch takes: nothing is cloned or allocated.
fn hookchain(turn: &Turn, call: &mut Option<ToolCall>, n: usize) -> f64 {
    let started = Instant::now();
    for _ in 0..n {
        let sent = black_box(call.take().expect("the call came back"));
        match turn.intercept_tool_call(sent) {
            Flow::Continue(back) => *call = Some(back),
            Flow::Blocked(blocked) => panic!("a trivial hook blocked: {}", blocked.reason),
        }
    }
    started.elapsed().as_nanos() as f64 / n as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let variant = args.next().unwrap_or_else(|| "wall".to_owned());
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
    let hooks = Hooks::builder().collected().build().expect("the ten hooks");
    let session = hooks.session("peer");
    let turn = session.begin_turn();
    let mut call = Some(ToolCall::new("shell", json!({"cmd": "ls"})));
    // The ten are linked: a three-letter tool is refused.
    assert!(
        turn.intercept_tool_call(ToolCall::new("abc", json!({})))
            .is_blocked()
    );
    match variant.as_str() {
        "rig" => {
            black_box(rig(&runtime, Measure::Count(n)));
        }
        "hookchain" => {
            black_box(hookchain(&turn, &mut call, n));
        }
        "wall" => {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..31 {
                a.push(rig(&runtime, Measure::Time { batch: 2000 }));
                b.push(hookchain(&turn, &mut call, 2000));
            }
            let (rig, ours) = (median(a), median(b));
            println!(
                "ten trivial hooks on a tool call's dispatch, medians of 31 interleaved rounds:"
            );
            println!("  rig-agent HookStack::on_dispatch, awaited  {rig:>9.1} ns");
            println!("  hookchain turn.intercept_tool_call         {ours:>9.1} ns");
            println!(
                "  rig / hookchain                            {:>9.1}",
                rig / ours
            );
        }
        other => panic!("unknown variant `{other}` (rig, hookchain, wall)"),
    }
    turn.end(TurnEnd::Normal);
    session.end("done");
}
