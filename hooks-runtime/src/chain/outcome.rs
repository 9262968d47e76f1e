//! What a dispatch gives back: the [`Outcome`] (the flow, who rewrote the value, the context and
//! warnings hooks added) and each [`HookFailure`].

use std::fmt;

use hookchain_core::{Emitted, Flow, Metadata, Notification, OnError};

/// A hook that failed during a dispatch and how its failure was handled.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookFailure {
    /// The hook's name.
    pub hook: String,
    /// What went wrong: the `Err`'s message, or the panic's.
    pub error: String,
    /// `true` when the hook panicked, `false` when it returned `Err`.
    pub panicked: bool,
    /// The policy applied.
    pub on_error: OnError,
}

impl fmt::Display for HookFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.panicked { "panicked" } else { "failed" };
        write!(
            f,
            "hook `{}` {how}: {} (on_error = {})",
            self.hook, self.error, self.on_error
        )
    }
}

/// Everything a dispatch produced: the flow, and what the hooks attached on the way.
///
/// When every hook passes, the lists are empty and nothing was allocated.
#[must_use = "an outcome may be a block whose reason is meant for the model or the user"]
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Outcome<T> {
    /// Go on with the (possibly rewritten) value, or stop.
    pub flow: Flow<T>,
    /// The hooks that rewrote (or injected into) the value, in chain order.
    pub rewritten_by: Vec<String>,
    /// Metadata attached by the hooks.
    pub metadata: Metadata,
    /// Agent-facing context added by the hooks, in chain order.
    pub context: Vec<String>,
    /// User-facing warnings added by the hooks, in chain order.
    pub warnings: Vec<String>,
    /// Notifications the hooks asked for (`cx.notify`), in chain order: a `Session` or a
    /// `Turn` fires them through `notification` after the dispatch; `Hooks::dispatch` leaves
    /// them here.
    pub notifications: Vec<Notification>,
    /// Hooks that panicked or returned `Err`, in chain order.
    pub failures: Vec<HookFailure>,
    /// Events the hooks emitted (`cx.emit`), in chain order. A `Session` or a `Turn` delivers
    /// them to their points' chains before its method returns (what is left here has been
    /// delivered: its value is taken); `Hooks::dispatch` leaves them here, undelivered.
    pub events: Vec<Emitted>,
}

impl<T> Outcome<T> {
    /// `value` unchanged, as a chain with no hooks gives it back: nothing to build, nothing
    /// allocated.
    #[inline(always)]
    pub(crate) fn passed(value: T) -> Self {
        Outcome {
            flow: Flow::Continue(value),
            rewritten_by: Vec::new(),
            metadata: Metadata::new(),
            context: Vec::new(),
            warnings: Vec::new(),
            notifications: Vec::new(),
            failures: Vec::new(),
            events: Vec::new(),
        }
    }

    /// The same outcome without its value: what delivering an event of any point gives back.
    pub(crate) fn erased(self) -> Outcome<()> {
        Outcome {
            flow: match self.flow {
                Flow::Continue(_) => Flow::Continue(()),
                Flow::Blocked(blocked) => Flow::Blocked(blocked),
            },
            rewritten_by: self.rewritten_by,
            metadata: self.metadata,
            context: self.context,
            warnings: self.warnings,
            notifications: self.notifications,
            failures: self.failures,
            events: self.events,
        }
    }

    /// The flow alone.
    #[inline]
    pub fn into_flow(self) -> Flow<T> {
        self.flow
    }

    /// `true` when a hook blocked.
    pub fn is_blocked(&self) -> bool {
        self.flow.is_blocked()
    }
}
