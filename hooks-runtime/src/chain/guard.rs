//! Hooks run guarded: in the dispatch's frame, a panic (in a call or in any poll of an async
//! hook's future) turned into the hook's failure, its payload dropped under a guard of its own.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hookchain_core::{BoxFuture, HookError, HookPoint, HookReturn};

use crate::exec::{self};
use crate::state::{self, Frame};

/// Calls `f` in `frame`, turning a panic into the error it carried.
pub(super) fn guard<T>(frame: Frame, f: impl FnOnce() -> T) -> Result<T, HookError> {
    let _frame = state::enter(frame);
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| HookError::new(take_panic(p)))
}

/// Awaits a hook's future, polled in `frame`, turning a panic in any poll into an error, and a
/// timeout into a failure when one is configured.
pub(super) async fn await_guarded<'a, T>(
    fut: BoxFuture<'a, HookReturn<T>>,
    timeout: Option<Duration>,
    frame: Frame,
) -> Result<HookReturn<T>, HookError>
where
    T: HookPoint,
{
    let guarded = CatchUnwind(fut, frame);
    match timeout {
        None => guarded.await,
        Some(limit) => exec::with_timeout(guarded, limit)
            .await
            .unwrap_or_else(|| Ok(Err(HookError::new(format!("timed out after {limit:?}"))))),
    }
}

/// A future polled in a [`Frame`], which turns a panic during `poll` into an error.
struct CatchUnwind<F>(F, Frame);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, HookError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let _frame = state::enter(self.1);
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(p) => Poll::Ready(Err(HookError::new(take_panic(p)))),
        }
    }
}

/// The message a caught panic carried, with its payload dropped.
///
/// The payload is dropped under a guard of its own: a payload whose `Drop` panics again must
/// not unwind into the agent, out of the guard that caught the first panic. The second panic's
/// payload is leaked rather than dropped, since its `Drop` could panic in turn.
#[cold]
#[inline(never)]
pub(crate) fn take_panic(payload: Box<dyn Any + Send>) -> String {
    let message = panic_message(&*payload);
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        tracing::error!("a panic's payload panicked when dropped; its second payload is leaked");
        std::mem::forget(again);
    }
    message
}

/// The message a panic carried, when it is a string.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
