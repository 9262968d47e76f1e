//! Building the chain of a point from the hooks on it: the chain of every built-in point, a
//! field the compiler resolves, and that of a user-defined point, built on first dispatch.
//!
//! - A chain is sorted by (priority, name, order added); the same hooks give the same chain on
//!   every build and platform, whatever order the linker collected them in.
//! - A wildcard hook ([`HooksBuilder::watch`](crate::HooksBuilder::watch),
//!   `#[register_hook("*")]`) is kept under its pattern (`HookInfo::point` is `"*"` or
//!   `"after_*"`), resolved into the chain of every point it matches when that chain is built
//!   (see [`chain`](crate::chain#wildcard-hooks)).
//! - The registry keeps one [`Extension`] per name, shared by the chain entries of its hooks:
//!   disabling it flips one flag that every chain reads, on every thread, before each hook it
//!   reaches; the chains themselves never change.
//! - The entry of a required hook is marked required (see `required`).

use std::any::{Any, TypeId};
use std::sync::Arc;
use std::time::Duration;

use hookchain_core::__private::Registration;
use hookchain_core::__private::{RunningHook, Wildcard};
use hookchain_core::{Extension, HookPoint, PointKind, points};

use super::info::{HookInfo, is_external, registered_info};
use crate::chain::{Chain, Entry, Handler};

/// The time limits of async hooks, fixed when the registry is built.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    pub(super) async_hooks: Duration,
    pub(super) observers: Duration,
}

impl Timeouts {
    /// The limit of an async hook on point `P`.
    fn of<P: HookPoint>(self) -> Option<Duration> {
        match P::KIND {
            PointKind::Observe => Some(self.async_hooks.min(self.observers)),
            _ => Some(self.async_hooks),
        }
    }
}

/// A hook added at runtime, with its handler behind `Any` until its point's chain is built.
pub(super) struct Added {
    pub(super) info: HookInfo,
    pub(super) point_type: TypeId,
    pub(super) handler: Box<dyn Any + Send + Sync>,
    /// The dispatch of the point's events (see the event bus, `session::emit`).
    pub(super) firer: crate::session::Firer,
}

/// The hooks and extensions required of a registry, which its chains mark required.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequiredSet {
    pub(super) hooks: Vec<(&'static str, String)>,
    pub(super) extensions: Vec<String>,
}

impl RequiredSet {
    pub(super) fn contains(&self, info: &HookInfo) -> bool {
        info.required
            || self.extensions.iter().any(|e| **e == *info.extension)
            || self
                .hooks
                .iter()
                .any(|(point, name)| *point == info.point && **name == *info.name)
    }
}

/// The extension called `name`; every hook's extension is in the list.
fn extension_of(extensions: &[Arc<Extension>], name: &str) -> Arc<Extension> {
    match extensions.binary_search_by(|e| e.name().cmp(name)) {
        Ok(index) => Arc::clone(&extensions[index]),
        Err(_) => unreachable!("the registry makes an extension for every hook's"),
    }
}

// The built-in chains: one field per built-in point, from hooks-core's table of points, so that
// the chain of a built-in point is a field access the compiler resolves (no lookup, no virtual
// call); and, per slot, whether the chain has a hook.
macro_rules! builtin_chains {
    ([] $($(#[$doc:meta])* $point:ident { $($rest:tt)* })*) => {
        /// The chain of every built-in point.
        #[allow(non_snake_case)]
        pub(super) struct BuiltinChains {
            $($point: Chain<points::$point>,)*
            /// Per built-in slot, `true` when its chain has a hook: what a point nobody hooks
            /// checks first, with no lookup of its chain.
            pub(super) hooked: [bool; points::BUILTIN_SLOTS],
            /// Per built-in slot, `true` when a wildcard hook watches its point.
            pub(super) watched: [bool; points::BUILTIN_SLOTS],
        }

        impl BuiltinChains {
            /// Builds the chain of every built-in point.
            pub(super) fn build(
                registered: &[&'static Registration],
                added: &[Added],
                extensions: &[Arc<Extension>],
                required: &RequiredSet,
                timeouts: Timeouts,
            ) -> Self {
                let mut hooked = [false; points::BUILTIN_SLOTS];
                let mut watched = [false; points::BUILTIN_SLOTS];
                $(
                    let $point = build_chain::<points::$point>(registered, added, extensions, required, timeouts);
                    if let Some(slot) = <points::$point as HookPoint>::BUILTIN_SLOT {
                        hooked[slot] = !$point.is_empty();
                        watched[slot] = $point.is_watched();
                    }
                )*
                BuiltinChains { $($point,)* hooked, watched }
            }

            /// The dispatch of every built-in point's events, by point type.
            pub(super) fn firers() -> Vec<(TypeId, crate::session::Firer)> {
                vec![$((TypeId::of::<points::$point>(), crate::session::firer::<points::$point>()),)*]
            }

            /// The chain of `P` when it is a built-in point. The type comparisons are constants,
            /// so for a given `P` this is one field access or `None`.
            #[inline(always)]
            pub(super) fn get<P: HookPoint>(&self) -> Option<&Chain<P>> {
                $(
                    if TypeId::of::<P>() == TypeId::of::<points::$point>() {
                        return (&self.$point as &dyn Any).downcast_ref::<Chain<P>>();
                    }
                )*
                None
            }
        }
    };
}
hookchain_core::__private::builtin_points!([] => builtin_chains);

/// Builds the chain of `P` from every hook registered for it.
pub(super) fn build_chain<P: HookPoint>(
    registered: &[&'static Registration],
    added: &[Added],
    extensions: &[Arc<Extension>],
    required: &RequiredSet,
    timeouts: Timeouts,
) -> Chain<P> {
    let mut hooks: Vec<(HookInfo, Handler<P>)> = Vec::new();
    for r in registered {
        if r.point != P::NAME {
            continue;
        }
        let handler = if let Some(f) = r.sync_handler::<P>() {
            Handler::Sync(f)
        } else if let Some(f) = r.async_handler::<P>() {
            Handler::Async(f)
        } else {
            tracing::error!(
                point = P::NAME,
                hook = r.name,
                "hook `{}` ({}) was registered for another type also named `{}`; it is left out of this chain",
                r.name,
                r.location(),
                P::NAME
            );
            continue;
        };
        hooks.push((registered_info(r), handler));
    }
    for a in added {
        if a.point_type != TypeId::of::<P>() {
            continue;
        }
        if let Some(handler) = a.handler.downcast_ref::<Handler<P>>() {
            hooks.push((a.info.clone(), handler.clone()));
        }
    }
    let (watchers, reads_payload) = watchers_of(P::NAME, registered, added, extensions, required);
    Chain::new(
        entries(hooks, extensions, required),
        watchers,
        reads_payload,
        timeouts.of::<P>(),
    )
}

/// The wildcard hooks watching the point named `point`, sorted, with whether each reads the
/// payload: those of its chain, or those an event of a point with no chain goes to.
pub(super) fn watchers_of(
    point: &str,
    registered: &[&'static Registration],
    added: &[Added],
    extensions: &[Arc<Extension>],
    required: &RequiredSet,
) -> (Box<[Entry<Wildcard>]>, Box<[bool]>) {
    let mut watchers: Vec<(HookInfo, Handler<Wildcard>)> = Vec::new();
    for r in registered {
        if !watches(r.point, point) {
            continue;
        }
        if let Some(f) = r.sync_handler::<Wildcard>() {
            watchers.push((registered_info(r), Handler::Sync(f)));
        }
    }
    for a in added {
        if a.point_type != TypeId::of::<Wildcard>() || !watches(a.info.point, point) {
            continue;
        }
        if let Some(handler) = a.handler.downcast_ref::<Handler<Wildcard>>() {
            watchers.push((a.info.clone(), handler.clone()));
        }
    }
    watchers.sort_by(|(a, _), (b, _)| {
        (a.sort_key(), &a.file, a.line).cmp(&(b.sort_key(), &b.file, b.line))
    });
    let reads_payload: Box<[bool]> = watchers.iter().map(|(info, _)| info.payload).collect();
    (entries(watchers, extensions, required), reads_payload)
}

/// The chain entries of `hooks`, sorted.
fn entries<P: HookPoint>(
    mut hooks: Vec<(HookInfo, Handler<P>)>,
    extensions: &[Arc<Extension>],
    required: &RequiredSet,
) -> Box<[Entry<P>]> {
    hooks.sort_by(|(a, _), (b, _)| {
        (a.sort_key(), &a.file, a.line).cmp(&(b.sort_key(), &b.file, b.line))
    });
    hooks
        .into_iter()
        .map(|(info, handler)| {
            Entry::new(
                RunningHook {
                    extension: extension_of(extensions, &info.extension),
                    name: info.name.clone(),
                },
                handler,
                info.on_error,
                is_external(&info),
                required.contains(&info).then(|| Arc::from(info.location())),
            )
        })
        .collect()
}

/// `true` when the wildcard `pattern` (`"*"`, `"after_*"`) watches the point named `point`.
fn watches(pattern: &str, point: &str) -> bool {
    pattern
        .strip_suffix('*')
        .is_some_and(|prefix| point.starts_with(prefix))
}
