//! The async dispatch: sync hooks run inline, async hooks are awaited, each under the chain's
//! time limit; a chain with no async hook runs as the sync dispatch does.

use std::time::Instant;

use hookchain_core::{Annotations, HookPoint, HookResult};

use super::dispatch::{Chain, Run, skipped};
use super::entry::Handler;
use super::guard::{await_guarded, guard};
use super::outcome::Outcome;
use super::scope::Scope;
use crate::trace;
use tracing::Instrument;

impl<P: HookPoint> Chain<P> {
    /// Runs the chain, awaiting async hooks; sync hooks run inline. Then, on a watched point,
    /// its wildcard hooks.
    pub(crate) async fn dispatch_async(
        &self,
        value: P::Value,
        scope: Scope<'_>,
    ) -> Outcome<P::Value> {
        let plan = match self.is_watched() {
            true => self.watch_plan::<false>(&value),
            false => None,
        };
        let span = self.span(&value, &scope);
        if plan.is_none() && span.is_disabled() {
            return self.run_async(value, scope).await;
        }
        let started = Instant::now();
        let mut outcome = self.run_async(value, scope).instrument(span.clone()).await;
        trace::record::<P, _>(&span, &outcome);
        if let Some(payload) = plan {
            self.report::<false>(&mut outcome, payload, started.elapsed(), scope);
        }
        outcome
    }

    /// The chain of [`dispatch_async`](Self::dispatch_async).
    async fn run_async(&self, value: P::Value, scope: Scope<'_>) -> Outcome<P::Value> {
        if self.entries.is_empty() {
            return Outcome::passed(value);
        }
        if self.all_sync {
            // Nothing to await: the sync dispatch, with no future per hook.
            return self.dispatch_sync::<false, true>(value, scope);
        }
        let timeout = self.async_limit;
        let frame = scope.frame;
        let notes = Annotations::new();
        let cx = scope.context::<P>(&notes);
        let mut value = value;
        let mut run = Run::<P>::new();
        let mut blocked = None;
        for entry in self.entries.iter() {
            if skipped::<P, false>(entry) {
                run.next += 1;
                if let Some(stop) = entry.disabled_block() {
                    blocked = Some(stop);
                    break;
                }
                continue;
            }
            let cx = cx.running(&entry.hook);
            let input = P::input(&value);
            // The frame is set while a hook runs: around a sync hook's call and each poll of an
            // async hook's future, on whatever thread polls it.
            let result = match &entry.handler {
                Handler::Sync(f) => guard(frame, || f(input, &cx).into_return()),
                Handler::SyncClosure(f) => guard(frame, || f(input, &cx)),
                Handler::Async(f) => match guard(frame, || f(input, &cx)) {
                    Ok(fut) => await_guarded::<P>(fut, timeout, frame).await,
                    Err(p) => Err(p),
                },
                Handler::AsyncClosure(f) => match guard(frame, || f(input, &cx)) {
                    Ok(fut) => await_guarded::<P>(fut, timeout, frame).await,
                    Err(p) => Err(p),
                },
            };
            // As in the sync dispatch, `next` is past this hook while its result is settled.
            run.next += 1;
            let stop = match result {
                Ok(Ok(HookResult::Pass)) => None,
                // Guarded: the point's `apply` may panic, which is this hook's failure.
                Ok(result) => {
                    match guard(frame, || run.settle::<true>(&mut value, entry, result, &cx)) {
                        Ok(stop) => stop,
                        Err(panic) => run.fail(entry, panic, true, &cx),
                    }
                }
                Err(panic) => run.fail(entry, panic, true, &cx),
            };
            if stop.is_some() {
                blocked = stop;
                break;
            }
        }
        run.finish(value, blocked, notes)
    }
}
