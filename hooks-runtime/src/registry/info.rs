//! What a hook is, as the registry lists it: [`HookInfo`] and where the hook comes from
//! ([`HookSource`]). It names nothing else of the registry.
//!
//! - Every hook belongs to one extension: its `#[register_hook(extension = "..")]` (default: the
//!   name of its package), or its [`HookOptions::extension`](crate::HookOptions::extension)
//!   (default: [`BUILDER_EXTENSION`](crate::BUILDER_EXTENSION), `"app"`).
//! - A hook sorts by (priority, name, order added): the same hooks give the same chain on every
//!   build and platform, whatever order the linker collected them in.

use std::sync::Arc;

use hookchain_core::__private::Registration;
use hookchain_core::{OnError, PointKind};

/// Where a hook comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookSource {
    /// A `#[register_hook]` fn, collected at link time.
    Registered,
    /// A closure added through [`HooksBuilder`](crate::HooksBuilder).
    Builder,
    /// An external hook (a script, a worker process, an HTTP endpoint), from a config file or
    /// added in code.
    External,
}

/// One hook, as [`Hooks::describe`](crate::Hooks::describe) lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookInfo {
    /// The point's canonical name.
    pub point: &'static str,
    /// The point's kind.
    pub kind: PointKind,
    /// The hook's name.
    pub name: Arc<str>,
    /// Lower runs earlier.
    pub priority: i32,
    /// The extension it belongs to.
    pub extension: Arc<str>,
    /// What its failure means.
    pub on_error: OnError,
    /// `true` for an async hook.
    pub is_async: bool,
    /// The source file that defined it (for an external hook, the config file that names it).
    pub file: Arc<str>,
    /// The line that defined it.
    pub line: u32,
    /// Where it comes from.
    pub source: HookSource,
    /// `true` for a required hook ([`HookOptions::required`](crate::HookOptions::required),
    /// [`HooksBuilder::require_hook`](crate::HooksBuilder::require_hook),
    /// [`HooksBuilder::require_extension`](crate::HooksBuilder::require_extension), `required:
    /// true` in a config file): when it cannot run — its extension disabled, its script changed
    /// since approved, its transport unusable — its point blocks instead of going on without it.
    pub required: bool,
    /// The order it was added in, for ties.
    pub(super) order: u64,
    /// For a wildcard hook: `true` when it reads the event's payload.
    pub(super) payload: bool,
}

impl HookInfo {
    pub(super) fn sort_key(&self) -> (i32, &str, u64) {
        (self.priority, &self.name, self.order)
    }

    /// `file:line` of its definition.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// `true` for an external hook: a script, a worker or an endpoint, added by
/// with [`HookSource::External`].
pub(super) fn is_external(info: &HookInfo) -> bool {
    info.source == HookSource::External
}

pub(super) fn registered_info(r: &Registration) -> HookInfo {
    HookInfo {
        point: r.point,
        kind: r.kind,
        name: r.name.into(),
        priority: r.priority,
        extension: r.extension.into(),
        on_error: r.effective_on_error(),
        is_async: r.is_async,
        file: r.file.into(),
        line: r.line,
        source: HookSource::Registered,
        required: false,
        order: 0,
        payload: true,
    }
}
