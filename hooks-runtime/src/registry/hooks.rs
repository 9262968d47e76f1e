//! The registry a [`Hooks`] handle shares: its hooks, extensions, chains, notices and the state
//! of its sessions, and the lookup of a point's chain.
//!
//! - After it is built a chain is only read: the chain of a built-in point is a field access,
//!   with no lock and no lookup; that of a user-defined point is built the first time its point
//!   is dispatched.
//! - Two different point types with the same name are an error when the second is dispatched;
//!   it gets an empty chain and the error is logged.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use hookchain_core::__private::Registration;
use hookchain_core::{Extension, HookPoint, points};
use parking_lot::{Mutex, RwLock};

use super::attachments::Attachments;
use super::builder::HooksBuilder;
use super::chains::{Added, BuiltinChains, RequiredSet, Timeouts, build_chain, watchers_of};
use super::error::BuildError;
use super::info::HookInfo;
use crate::chain::{Chain, Entry};
use crate::sections::Declared;
use crate::session::{Firer, firer};
use hookchain_core::__private::Wildcard;

/// A registry of hooks: one sorted chain per point. Cheap to clone.
///
/// Most agents use [`Hooks::global`]; tests and agents that want several registries build their
/// own with [`HooksBuilder`].
#[derive(Clone)]
pub struct Hooks {
    pub(crate) inner: Arc<Registry>,
}

pub(crate) struct Registry {
    pub(super) infos: Vec<HookInfo>,
    pub(super) registered: Vec<&'static Registration>,
    pub(super) added: Vec<Added>,
    /// One per extension name, sorted by name.
    pub(super) extensions: Vec<Arc<Extension>>,
    pub(super) declared: Vec<Declared>,
    /// Held while a config is loaded, so two loads do not interleave.
    pub(super) config_lock: Mutex<()>,
    pub(super) builtin: BuiltinChains,
    pub(super) custom: RwLock<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    pub(super) custom_names: RwLock<HashMap<&'static str, TypeId>>,
    /// The dispatch of each point's events, by point type (see the event bus, `session::emit`).
    pub(super) firers: RwLock<HashMap<TypeId, Firer>>,
    /// Duplicate hook names, and hooks or config types in an extension another owner claimed.
    pub(super) duplicates: Vec<BuildError>,
    /// The hooks and extensions required, which chains built later mark too.
    pub(super) required: RequiredSet,
    pub(super) timeouts: Timeouts,
    pub(crate) stop_redo_cap: u32,
    pub(super) attachments: Attachments,
    /// What every session hears through `notification` when it starts.
    pub(crate) notices: Vec<hookchain_core::Notification>,
    /// What a project's file tried to switch off and was refused.
    pub(super) refusals: Mutex<Vec<String>>,
    /// The state of this registry's sessions and turns.
    pub(crate) store: Arc<crate::state::Store>,
    /// The tools extensions give the model.
    pub(crate) tools: super::tools::Tools,
    /// The slash commands, sorted by name.
    pub(crate) commands: Vec<super::commands::Command>,
}

impl Drop for Registry {
    fn drop(&mut self) {
        // The lookups by id forget its store.
        self.store.retire();
    }
}

impl Registry {
    /// Keeps what the config was refused, and says it to every session when it starts.
    pub(super) fn refused(&mut self, refusals: &[String]) {
        for refusal in refusals {
            self.notices.push(hookchain_core::Notification {
                level: hookchain_core::Level::Warning,
                message: refusal.clone(),
                source: Some("config".to_owned()),
                kind: hookchain_core::NotificationKind::General,
            });
        }
        self.refusals.get_mut().extend(refusals.iter().cloned());
    }
}

impl Registry {
    /// `true` when no hook is on point `P`: for a built-in point, one load and no lookup.
    #[inline(always)]
    pub(crate) fn is_unhooked<P: HookPoint>(&self) -> bool {
        match P::BUILTIN_SLOT {
            Some(slot) => !self.builtin.hooked[slot],
            None => self.custom_chain::<P>().is_empty(),
        }
    }

    /// Per built-in slot, `true` when its chain has a hook.
    pub(crate) fn hooked(&self) -> [bool; points::BUILTIN_SLOTS] {
        self.builtin.hooked
    }

    /// Per built-in slot, `true` when a wildcard hook watches its point.
    pub(crate) fn watched(&self) -> [bool; points::BUILTIN_SLOTS] {
        self.builtin.watched
    }

    /// The chain of `P` when it is a built-in point: no lookup, no reference count.
    #[inline(always)]
    pub(crate) fn builtin_chain<P: HookPoint>(&self) -> Option<&Chain<P>> {
        self.builtin.get::<P>()
    }

    /// The chain of `P`, building it on first use for user-defined points.
    #[inline]
    pub(crate) fn chain<P: HookPoint>(&self) -> ChainRef<'_, P> {
        if let Some(chain) = self.builtin.get::<P>() {
            return ChainRef::Builtin(chain);
        }
        ChainRef::Custom(self.custom_chain::<P>())
    }

    /// The dispatch of events of the point type `point`, when some hook, chain or emission of
    /// the program named that point to the registry.
    pub(crate) fn firer(&self, point: TypeId) -> Option<Firer> {
        self.firers.read().get(&point).copied()
    }

    /// The wildcard hooks watching the point named `point`, for an event of a point with no
    /// chain and no hook (see the event bus, `session::emit`); built on each call.
    #[cold]
    pub(crate) fn unheard_watchers(&self, point: &str) -> Box<[Entry<Wildcard>]> {
        watchers_of(
            point,
            &self.registered,
            &self.added,
            &self.extensions,
            &self.required,
        )
        .0
    }

    #[cold]
    fn custom_chain<P: HookPoint>(&self) -> Arc<Chain<P>> {
        let key = TypeId::of::<P>();
        if let Some(chain) = self.custom.read().get(&key) {
            return downcast_chain(chain.clone());
        }
        // The agent fires or emits `P`: events of `P` that hooks emit find its chain too.
        self.firers.write().entry(key).or_insert(firer::<P>());
        let chain = {
            let mut names = self.custom_names.write();
            let owner = *names.entry(P::NAME).or_insert(key);
            if owner == key {
                build_chain::<P>(
                    &self.registered,
                    &self.added,
                    &self.extensions,
                    &self.required,
                    self.timeouts,
                )
            } else {
                tracing::error!(
                    point = P::NAME,
                    "two different point types are named `{}`; hooks of the second one never run: rename one of them",
                    P::NAME
                );
                Chain::new(Box::new([]), Box::new([]), Box::new([]), None)
            }
        };
        let chain: Arc<dyn Any + Send + Sync> = Arc::new(chain);
        let chain = self.custom.write().entry(key).or_insert(chain).clone();
        downcast_chain(chain)
    }
}

fn downcast_chain<P: HookPoint>(chain: Arc<dyn Any + Send + Sync>) -> Arc<Chain<P>> {
    match chain.downcast::<Chain<P>>() {
        Ok(chain) => chain,
        Err(_) => unreachable!("custom chains are keyed by their point's TypeId"),
    }
}

/// A borrowed built-in chain or a shared user-defined one.
pub(crate) enum ChainRef<'a, P: HookPoint> {
    Builtin(&'a Chain<P>),
    Custom(Arc<Chain<P>>),
}

impl<P: HookPoint> std::ops::Deref for ChainRef<'_, P> {
    type Target = Chain<P>;
    #[inline(always)]
    fn deref(&self) -> &Chain<P> {
        match self {
            ChainRef::Builtin(c) => c,
            ChainRef::Custom(c) => c,
        }
    }
}

impl Hooks {
    /// The notices every session hears when it starts ([`HooksBuilder::notice`]).
    pub fn notices(&self) -> &[hookchain_core::Notification] {
        &self.inner.notices
    }

    /// What a project's file tried to switch off in the config the registry was built with (and
    /// in every [`set_sections`](Hooks::set_sections) since), and was refused: one sentence each,
    /// naming the file and line, what was refused, and how to do it instead. Those of the build
    /// are also among the [`notices`](Hooks::notices) every session hears when it starts; those of
    /// a reload are logged.
    pub fn refusals(&self) -> Vec<String> {
        self.inner.refusals.lock().clone()
    }

    /// The value of type `T` a layered crate attached when the registry was built
    /// ([`HooksBuilder::attach`]).
    pub fn attachment<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.inner.attachments.get()
    }

    /// A builder for a registry of your own.
    pub fn builder() -> HooksBuilder {
        HooksBuilder::new()
    }

    /// Every hook, sorted by point and then in chain order.
    pub fn hooks(&self) -> &[HookInfo] {
        &self.inner.infos
    }

    /// The hooks of one point (canonical name), in chain order.
    pub fn chain_of(&self, point: &str) -> Vec<&HookInfo> {
        self.inner
            .infos
            .iter()
            .filter(|h| h.point == point)
            .collect()
    }

    /// The number of hooks.
    pub fn len(&self) -> usize {
        self.inner.infos.len()
    }

    /// `true` when there are no hooks at all.
    pub fn is_empty(&self) -> bool {
        self.inner.infos.is_empty()
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("hooks", &self.inner.infos)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_point_has_its_chain_in_its_slot() {
        let hooks = HooksBuilder::new().build().unwrap();
        fn check<P: HookPoint>(hooks: &Hooks) -> bool {
            matches!(hooks.inner.chain::<P>(), ChainRef::Builtin(_))
        }
        macro_rules! check_all {
            ([$hooks:ident] $($(#[$doc:meta])* $point:ident { $($rest:tt)* })*) => {
                [$((stringify!($point), check::<points::$point>(&$hooks))),*]
            };
        }
        let all = hookchain_core::__private::builtin_points!([hooks] => check_all);
        assert_eq!(all.len(), points::BUILTIN_SLOTS);
        assert_eq!(points::catalog().len(), points::BUILTIN_SLOTS);
        assert!(all.iter().all(|(_, ok)| *ok), "{all:?}");
    }
}
