//! Attachments: what crates layered on the runtime (config files and consent, external hooks)
//! keep with the builder ([`HooksBuilder::attach`](crate::HooksBuilder::attach)) and then with
//! the registry ([`Hooks::attachment`](crate::Hooks::attachment)), one value per type. The
//! chains never change for them.

use std::any::{Any, TypeId};

/// Values of any type, one per type.
#[derive(Default)]
pub(super) struct Attachments(Vec<(TypeId, Box<dyn Any + Send + Sync>)>);

impl Attachments {
    pub(super) fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        let key = TypeId::of::<T>();
        self.0.retain(|(k, _)| *k != key);
        self.0.push((key, Box::new(value)));
    }

    pub(super) fn get<T: Any>(&self) -> Option<&T> {
        let key = TypeId::of::<T>();
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.downcast_ref())
    }

    pub(super) fn get_mut<T: Any>(&mut self) -> Option<&mut T> {
        let key = TypeId::of::<T>();
        self.0
            .iter_mut()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.downcast_mut())
    }

    pub(super) fn take<T: Any>(&mut self) -> Option<T> {
        let key = TypeId::of::<T>();
        let index = self.0.iter().position(|(k, _)| *k == key)?;
        self.0.remove(index).1.downcast().ok().map(|boxed| *boxed)
    }
}
