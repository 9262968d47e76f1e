//! A hook as a chain keeps it: its handler (a compiled-in fn or a closure, sync or async), its
//! `on_error`, whether it is external or required; and how the sync dispatch drives an async
//! hook (see [async hooks](crate::chain#async-hooks)).

use std::sync::Arc;
use std::time::Duration;

use hookchain_core::__private::RunningHook;
use hookchain_core::__private::{AsyncHookFn, HookOutput, SyncHookFn, SyncReturn};
use hookchain_core::{
    Blocked, BoxFuture, HookContext, HookError, HookPoint, HookReturn, OnError, PointKind,
};

use crate::exec::{self, Driven};

/// A closure hook, as added through [`HooksBuilder`](crate::HooksBuilder).
pub(crate) type SyncClosure<P> = Arc<
    dyn for<'a, 'b, 'c> Fn(&'a <P as HookPoint>::Input, &'b HookContext<'c>) -> HookReturn<P>
        + Send
        + Sync,
>;

/// An async closure hook, as added through [`HooksBuilder`](crate::HooksBuilder).
pub(crate) type AsyncClosure<P> = Arc<
    dyn for<'a> Fn(&'a <P as HookPoint>::Input, &'a HookContext<'a>) -> BoxFuture<'a, HookReturn<P>>
        + Send
        + Sync,
>;

/// How a hook is called.
pub(crate) enum Handler<P: HookPoint> {
    Sync(SyncHookFn<P>),
    Async(AsyncHookFn<P>),
    SyncClosure(SyncClosure<P>),
    AsyncClosure(AsyncClosure<P>),
}

impl<P: HookPoint> Handler<P> {
    /// Calls the hook; an async hook is driven to completion as the [module docs](self#async-hooks)
    /// say, for at most `limit`. `via` names the `_async` method of the caller.
    #[inline(always)]
    pub(super) fn call(
        &self,
        input: &P::Input,
        cx: &HookContext<'_>,
        // By reference, read only by the async arms: a sync hook's call loads nothing more.
        limit: &Option<Duration>,
        via: &'static str,
    ) -> HookReturn<P> {
        // A compiled-in sync hook, the common case, is told apart with one compare.
        if let Handler::Sync(f) = self {
            return f(input, cx).into_return();
        }
        self.call_other(input, cx, limit, via)
    }

    /// [`call`](Self::call) for every handler but a compiled-in sync one.
    #[inline(never)]
    pub(super) fn call_other(
        &self,
        input: &P::Input,
        cx: &HookContext<'_>,
        limit: &Option<Duration>,
        via: &'static str,
    ) -> HookReturn<P> {
        match self {
            Handler::Sync(f) => f(input, cx).into_return(),
            Handler::SyncClosure(f) => f(input, cx),
            Handler::Async(f) => drive::<P>(f(input, cx), *limit, via),
            Handler::AsyncClosure(f) => drive::<P>(f(input, cx), *limit, via),
        }
    }

    pub(crate) fn is_async(&self) -> bool {
        matches!(self, Handler::Async(_) | Handler::AsyncClosure(_))
    }
}

impl<P: HookPoint> Clone for Handler<P> {
    fn clone(&self) -> Self {
        match self {
            Handler::Sync(f) => Handler::Sync(*f),
            Handler::Async(f) => Handler::Async(*f),
            Handler::SyncClosure(f) => Handler::SyncClosure(Arc::clone(f)),
            Handler::AsyncClosure(f) => Handler::AsyncClosure(Arc::clone(f)),
        }
    }
}

/// One hook in a chain.
pub(crate) struct Entry<P: HookPoint> {
    /// Its name and its extension (shared by every entry of the extension's hooks; a disabled
    /// one's entries are skipped), which the context hands to the hook while it runs.
    pub(crate) hook: RunningHook,
    /// The fn of a compiled-in sync hook, which the pass path of a chain made only of them calls
    /// with no test of the handler's kind; [`not_a_fn`] for every other handler.
    pub(crate) call: SyncHookFn<P>,
    pub(crate) on_error: OnError,
    pub(crate) handler: Handler<P>,
    /// An external hook (a script, a worker, an endpoint), which a `Drop` never runs.
    pub(crate) external: bool,
    /// Where a required hook is defined (`file:line`); `None` for a hook that is not required.
    pub(crate) required: Option<Arc<str>>,
}

/// The [`Entry::call`] of a hook that is not a compiled-in sync fn. The pass path calls `call`
/// only in a chain whose every hook is one ([`Chain::sync_fns`]), so this is never called; if it
/// were, the hook fails instead of being skipped.
fn not_a_fn<P: HookPoint>(_: &P::Input, _: &HookContext<'_>) -> SyncReturn<P> {
    HookOutput::Failed(HookError::new(
        "hookchain called a hook that is not a compiled-in fn as one; this is a bug of hookchain",
    ))
}

impl<P: HookPoint> Entry<P> {
    /// The entry of `handler`, named and placed by `hook`.
    pub(crate) fn new(
        hook: RunningHook,
        handler: Handler<P>,
        on_error: OnError,
        external: bool,
        required: Option<Arc<str>>,
    ) -> Self {
        let call = match handler {
            Handler::Sync(f) => f,
            _ => not_a_fn::<P>,
        };
        Entry {
            hook,
            call,
            on_error,
            handler,
            external,
            required,
        }
    }

    /// `true` when a `Drop` may run it: a sync hook compiled into the program.
    pub(super) fn runs_on_drop(&self) -> bool {
        !self.external && !self.handler.is_async()
    }

    /// `true` for a required hook, on a point that can block, whose extension is disabled: the
    /// dispatch blocks there instead of skipping it.
    #[cold]
    #[inline(never)]
    pub(super) fn blocks_when_disabled(&self) -> bool {
        self.required.is_some()
            && P::KIND != PointKind::Observe
            && !self.hook.extension.is_enabled()
    }

    /// The block of a required hook whose extension is disabled; `None` when the hook is not
    /// required, or its point cannot block.
    #[cold]
    #[inline(never)]
    pub(super) fn disabled_block(&self) -> Option<Blocked> {
        let at = self.required.as_ref()?;
        if P::KIND == PointKind::Observe {
            return None;
        }
        let who = match self.hook.extension.disabled_by() {
            Some(who) => format!("disabled by {who}"),
            None => "disabled".to_owned(),
        };
        let reason = format!(
            "required hook `{}` ({at}) did not run: its extension `{}` is {who}; `{}` is blocked \
             until the extension is enabled again",
            self.hook.name,
            self.hook.extension.name(),
            P::NAME
        );
        tracing::error!(point = P::NAME, hook = &*self.hook.name, "{reason}");
        Some(Blocked::failure(reason, &*self.hook.name))
    }
}

/// Drives an async hook for the sync dispatch (see the [module docs](self#async-hooks)); past
/// `limit` it fails as timed out, and where it cannot be driven it fails naming `via`.
#[cold]
fn drive<P: HookPoint>(
    fut: BoxFuture<'_, HookReturn<P>>,
    limit: Option<Duration>,
    via: &'static str,
) -> HookReturn<P> {
    match exec::drive(fut, limit) {
        Driven::Done(out) => out,
        Driven::TimedOut => Err(timed_out(limit)),
        Driven::CannotBlock(why) => Err(HookError::new(format!(
            "an async hook cannot be waited for by the sync API {why}: it would hang; \
             call `{via}` instead"
        ))),
    }
}

/// The error of an async hook that ran out of time.
fn timed_out(limit: Option<Duration>) -> HookError {
    match limit {
        Some(limit) => HookError::new(format!("timed out after {limit:?}")),
        None => HookError::new("timed out"),
    }
}
