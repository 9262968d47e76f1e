//! Running async hooks from the synchronous dispatch, and bounding them in time.
//!
//! - [`drive`] runs an async hook for the synchronous dispatch: inside a multi-thread tokio
//!   runtime (with the `tokio` feature) through the runtime, so tokio's timers and I/O work;
//!   inside a current-thread tokio runtime only as far as its first poll, since waiting would
//!   block the one thread that drives the runtime; elsewhere with [`block_on`].
//! - [`block_on`] polls a future to completion on the calling thread, parking between polls, so
//!   the synchronous dispatch can run `async fn` hooks and synchronous agents need no executor.
//!   Given a deadline it gives up when the deadline passes, and the future is dropped.
//! - [`with_timeout`] bounds a future inside the async dispatch. With the `tokio` feature it uses
//!   tokio's timer (so paused test clocks and the runtime's own timer wheel apply); without it, one
//!   lazily started timer thread wakes the futures whose deadline passed.
//!
//! Either way a hook that overruns its time is dropped at its next `.await`: a hook that blocks
//! its thread without awaiting cannot be interrupted by anyone, and is documented as such.

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// What became of a future [`drive`] was given.
pub(crate) enum Driven<T> {
    /// It finished.
    Done(T),
    /// Its time limit passed first; it was dropped.
    TimedOut,
    /// It would have to be waited for where waiting hangs: this says where.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    CannotBlock(&'static str),
}

/// Runs `fut` to completion for the synchronous dispatch, for at most `limit`, as the
/// [module docs](self) say.
pub(crate) fn drive<F: Future + Unpin>(fut: F, limit: Option<Duration>) -> Driven<F::Output> {
    #[cfg(feature = "tokio")]
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        return tokio_drive(&handle, fut, limit);
    }
    let deadline = limit.and_then(|limit| Instant::now().checked_add(limit));
    match block_on(fut, deadline) {
        Some(out) => Driven::Done(out),
        None => Driven::TimedOut,
    }
}

/// [`drive`] inside a tokio runtime.
#[cfg(feature = "tokio")]
fn tokio_drive<F: Future + Unpin>(
    handle: &tokio::runtime::Handle,
    mut fut: F,
    limit: Option<Duration>,
) -> Driven<F::Output> {
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
    use tokio::runtime::RuntimeFlavor;

    // A future that does not wait needs no driver, whatever the runtime.
    if let Poll::Ready(out) = Pin::new(&mut fut).poll(&mut Context::from_waker(Waker::noop())) {
        return Driven::Done(out);
    }
    if handle.runtime_flavor() != RuntimeFlavor::MultiThread {
        return Driven::CannotBlock("inside a current-thread tokio runtime");
    }
    let wait = || {
        handle.block_on(async move {
            match limit {
                Some(limit) => tokio::time::timeout(limit, fut).await.ok(),
                None => Some(fut.await),
            }
        })
    };
    match catch_unwind(AssertUnwindSafe(|| tokio::task::block_in_place(wait))) {
        Ok(Some(out)) => Driven::Done(out),
        Ok(None) => Driven::TimedOut,
        // tokio refuses to block a thread that drives something else, such as a `LocalSet`.
        Err(panic) if refused_to_block(&*panic) => {
            Driven::CannotBlock("on a thread that must not block (a LocalSet, a nested block_on)")
        }
        Err(panic) => resume_unwind(panic),
    }
}

/// `true` for the panic of `block_in_place` called where it must not block.
#[cfg(feature = "tokio")]
fn refused_to_block(panic: &(dyn std::any::Any + Send)) -> bool {
    let message = match (panic.downcast_ref::<String>(), panic.downcast_ref::<&str>()) {
        (Some(s), _) => s.as_str(),
        (None, Some(s)) => s,
        (None, None) => return false,
    };
    message.contains("can call blocking only when running on the multi-threaded runtime")
}

/// Polls `fut` on this thread, parking between polls until it is woken. `None` when `deadline`
/// passed first.
pub(crate) fn block_on<F: Future>(fut: F, deadline: Option<Instant>) -> Option<F::Output> {
    let mut fut = pin!(fut);
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return Some(out);
        }
        match deadline {
            None => thread::park(),
            Some(deadline) => {
                let now = Instant::now();
                if now >= deadline {
                    return None;
                }
                thread::park_timeout(deadline - now);
            }
        }
    }
}

/// Awaits `fut` for at most `limit`; `None` when it ran out of time.
pub(crate) async fn with_timeout<F: Future>(fut: F, limit: Duration) -> Option<F::Output> {
    #[cfg(feature = "tokio")]
    if tokio::runtime::Handle::try_current().is_ok() {
        return tokio::time::timeout(limit, fut).await.ok();
    }
    match Instant::now().checked_add(limit) {
        Some(deadline) => {
            Timeout {
                fut: Box::pin(fut),
                sleep: timer::Sleep::new(deadline),
            }
            .await
        }
        // A limit past the end of time is no limit.
        None => Some(fut.await),
    }
}

struct Timeout<F: Future> {
    fut: Pin<Box<F>>,
    sleep: timer::Sleep,
}

impl<F: Future> Future for Timeout<F> {
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(out) = self.fut.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        match Pin::new(&mut self.sleep).poll(cx) {
            Poll::Ready(()) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

mod timer {
    //! One thread that wakes sleeping futures when their deadline passes.

    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::LazyLock;
    use std::task::{Context, Poll, Waker};
    use std::time::Instant;

    use parking_lot::{Condvar, Mutex};

    struct Entry {
        deadline: Instant,
        waker: Waker,
    }

    impl PartialEq for Entry {
        fn eq(&self, other: &Self) -> bool {
            self.deadline == other.deadline
        }
    }
    impl Eq for Entry {}
    impl PartialOrd for Entry {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Entry {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.deadline.cmp(&other.deadline)
        }
    }

    struct Timer {
        queue: Mutex<BinaryHeap<Reverse<Entry>>>,
        changed: Condvar,
    }

    static TIMER: LazyLock<&'static Timer> = LazyLock::new(|| {
        let timer: &'static Timer = Box::leak(Box::new(Timer {
            queue: Mutex::new(BinaryHeap::new()),
            changed: Condvar::new(),
        }));
        let spawned = std::thread::Builder::new()
            .name("hookchain-timer".into())
            .spawn(move || timer.run());
        if let Err(e) = spawned {
            tracing::error!(
                "cannot start the hook timer thread ({e}); async hook timeouts will not fire"
            );
        }
        timer
    });

    impl Timer {
        fn run(&self) {
            let mut queue = self.queue.lock();
            loop {
                let now = Instant::now();
                while queue.peek().is_some_and(|Reverse(e)| e.deadline <= now) {
                    if let Some(Reverse(entry)) = queue.pop() {
                        entry.waker.wake();
                    }
                }
                match queue.peek() {
                    Some(Reverse(next)) => {
                        let next = next.deadline;
                        let _ = self.changed.wait_until(&mut queue, next);
                    }
                    None => self.changed.wait(&mut queue),
                }
            }
        }

        fn register(&self, deadline: Instant, waker: Waker) {
            self.queue.lock().push(Reverse(Entry { deadline, waker }));
            self.changed.notify_one();
        }
    }

    /// Completes at `deadline`.
    pub(super) struct Sleep {
        deadline: Instant,
        registered: bool,
    }

    impl Sleep {
        pub(super) fn new(deadline: Instant) -> Self {
            Sleep {
                deadline,
                registered: false,
            }
        }
    }

    impl Future for Sleep {
        type Output = ();

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if Instant::now() >= self.deadline {
                return Poll::Ready(());
            }
            if !self.registered {
                // One registration is enough: the timer wakes the task at the deadline, and the
                // task polls this future again then.
                self.registered = true;
                TIMER.register(self.deadline, cx.waker().clone());
            }
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ready once `flag` is set by another thread, which wakes the waker it was given.
    struct SetLater {
        after: Duration,
        started: bool,
        done: Arc<std::sync::atomic::AtomicBool>,
    }

    impl Future for SetLater {
        type Output = u32;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            if self.done.load(std::sync::atomic::Ordering::Acquire) {
                return Poll::Ready(7);
            }
            if !self.started {
                self.started = true;
                let (waker, done, after) = (cx.waker().clone(), self.done.clone(), self.after);
                thread::spawn(move || {
                    thread::sleep(after);
                    done.store(true, std::sync::atomic::Ordering::Release);
                    waker.wake();
                });
            }
            Poll::Pending
        }
    }

    fn set_later(after: Duration) -> SetLater {
        SetLater {
            after,
            started: false,
            done: Arc::default(),
        }
    }

    #[test]
    fn block_on_runs_a_future_woken_from_another_thread() {
        assert_eq!(
            block_on(set_later(Duration::from_millis(20)), None),
            Some(7)
        );
    }

    #[test]
    fn block_on_gives_up_at_the_deadline() {
        let started = Instant::now();
        let deadline = started + Duration::from_millis(50);
        assert_eq!(
            block_on(set_later(Duration::from_secs(5)), Some(deadline)),
            None
        );
        assert!(started.elapsed() < Duration::from_secs(4));
    }

    #[test]
    fn a_limit_past_the_end_of_time_is_no_limit() {
        let on_time = block_on(
            with_timeout(set_later(Duration::from_millis(10)), Duration::MAX),
            None,
        );
        assert_eq!(on_time, Some(Some(7)));
        assert!(matches!(
            drive(
                Box::pin(set_later(Duration::from_millis(10))),
                Some(Duration::MAX)
            ),
            Driven::Done(7)
        ));
    }

    #[test]
    fn with_timeout_without_a_runtime_fires_from_the_timer_thread() {
        let late = block_on(
            with_timeout(set_later(Duration::from_secs(5)), Duration::from_millis(50)),
            None,
        );
        assert_eq!(late, Some(None));
        let on_time = block_on(
            with_timeout(set_later(Duration::from_millis(10)), Duration::from_secs(5)),
            None,
        );
        assert_eq!(on_time, Some(Some(7)));
    }
}
