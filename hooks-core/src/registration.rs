//! The registration record: one per `#[register_hook]` function, collected at link time.
//!
//! `#[register_hook]` emits a [`Registration`] into a link-time collection: `inventory` by
//! default, `linkme` with the `linkme` cargo feature. Both backends collect the same records and
//! [`registrations`] iterates them; neither gives an order, so the runtime sorts each chain by
//! (priority, name). Users never name `inventory` or `linkme`: the macro goes through
//! [`__private`](crate::__private).
//!
//! A record is plain `'static` data, so the collection costs nothing at startup. Its handler is a
//! [`SyncHandler<P>`] or [`AsyncHandler<P>`] behind `&dyn Any`; the runtime downcasts it once,
//! when it builds the chain of point `P`.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;

use crate::context::HookContext;
use crate::point::{HookOutput, HookPoint, OnError, PointKind};
use crate::result::{HookError, HookResult};

/// A boxed, sendable future, as async hooks return it.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What every hook returns once normalised: its decision, or the error it failed with.
pub type HookReturn<P> = Result<HookResult<<P as HookPoint>::Rewrite>, HookError>;

/// What a synchronous hook of point `P` hands the chain once normalised.
pub type SyncReturn<P> = HookOutput<<P as HookPoint>::Rewrite>;

/// A synchronous hook of point `P`, normalised to the chain's signature.
pub type SyncHookFn<P> =
    for<'a, 'b, 'c> fn(&'a <P as HookPoint>::Input, &'b HookContext<'c>) -> SyncReturn<P>;

/// An `async fn` hook of point `P`, normalised to the chain's signature.
pub type AsyncHookFn<P> =
    for<'a> fn(&'a <P as HookPoint>::Input, &'a HookContext<'a>) -> BoxFuture<'a, HookReturn<P>>;

/// The handler of a synchronous `#[register_hook]` function.
#[allow(missing_debug_implementations)] // a bare fn pointer: its address says nothing
pub struct SyncHandler<P: HookPoint>(pub SyncHookFn<P>);

/// The handler of an `async fn` `#[register_hook]` function.
#[allow(missing_debug_implementations)] // a bare fn pointer: its address says nothing
pub struct AsyncHandler<P: HookPoint>(pub AsyncHookFn<P>);

/// One `#[register_hook]` function, as collected at link time.
#[derive(Debug)]
pub struct Registration {
    /// The canonical name of the point (`<P as HookPoint>::NAME`).
    pub point: &'static str,
    /// The hook's name: the `name = ..` key, or the fn's module path and name.
    pub name: &'static str,
    /// Lower runs earlier.
    pub priority: i32,
    /// The extension the hook belongs to: the `extension = ..` key, or the crate's name.
    pub extension: &'static str,
    /// The point's kind (`<P as HookPoint>::KIND`).
    pub kind: PointKind,
    /// The declared `on_error`, or `None` for the point's default.
    pub on_error: Option<OnError>,
    /// The point's default `on_error` (`<P as HookPoint>::DEFAULT_ON_ERROR`).
    pub default_on_error: OnError,
    /// The source file of the hook fn.
    pub file: &'static str,
    /// The line of the hook fn.
    pub line: u32,
    /// `true` for an `async fn` hook.
    pub is_async: bool,
    /// A `&SyncHandler<P>` or `&AsyncHandler<P>`.
    pub handler: &'static (dyn Any + Send + Sync),
    /// For a hook on a user-defined point, the runtime's code that dispatches an event of that
    /// point (what the facade's `__private::firer::<P>()` makes; the runtime downcasts it), so
    /// that an event of a point only hooks emit finds its chain; `None` for built-in points,
    /// whose code the runtime has.
    pub firer: Option<&'static (dyn Any + Send + Sync)>,
}

impl Registration {
    /// The synchronous handler, when this record belongs to point `P` and is sync.
    pub fn sync_handler<P: HookPoint>(&self) -> Option<SyncHookFn<P>> {
        self.handler.downcast_ref::<SyncHandler<P>>().map(|h| h.0)
    }

    /// The async handler, when this record belongs to point `P` and is async.
    pub fn async_handler<P: HookPoint>(&self) -> Option<AsyncHookFn<P>> {
        self.handler.downcast_ref::<AsyncHandler<P>>().map(|h| h.0)
    }

    /// The policy the hook runs under: the declared one, else the point's default.
    pub fn effective_on_error(&self) -> OnError {
        self.on_error.unwrap_or(self.default_on_error)
    }

    /// `file:line` of the hook fn.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

#[cfg(not(feature = "linkme"))]
inventory::collect!(Registration);

/// Every registration linked into the program, in no particular order.
#[cfg(not(feature = "linkme"))]
pub fn registrations() -> impl Iterator<Item = &'static Registration> {
    inventory::iter::<Registration>.into_iter()
}

/// Every registration linked into the program, in no particular order.
#[cfg(feature = "linkme")]
pub fn registrations() -> impl Iterator<Item = &'static Registration> {
    REGISTRATIONS.iter()
}

/// The linkme slice that collects registrations (`__private::REGISTRATIONS` to the macros).
#[cfg(feature = "linkme")]
#[linkme::distributed_slice]
#[linkme(crate = linkme)]
pub static REGISTRATIONS: [Registration];

/// The name of the collection backend compiled in: `"inventory"` or `"linkme"`.
pub const fn backend() -> &'static str {
    if cfg!(feature = "linkme") {
        "linkme"
    } else {
        "inventory"
    }
}
