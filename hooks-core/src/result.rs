//! What a hook returns ([`HookResult`]) and what the agent gets back ([`Flow`]).

use std::borrow::Cow;
use std::fmt;

/// A hook's decision.
///
/// - [`Pass`](HookResult::Pass): the next hook sees the value unchanged.
/// - [`Rewrite`](HookResult::Rewrite): the next hook (and in the end the agent) sees the rewrite.
///   On inject points the rewrite is an injection that accumulates.
/// - [`Block`](HookResult::Block): the chain stops; the agent gets the reason and this hook's name.
///
/// Metadata for later hooks, agent-facing context and user-facing warnings are attached through
/// the [`HookContext`](crate::HookContext) (`cx.set_metadata(..)`, `cx.add_context(..)`,
/// `cx.warn(..)`), so a plain `HookResult::Pass` stays free of allocation.
#[must_use = "a hook result does nothing unless it is returned to the chain"]
#[derive(Debug, Clone, PartialEq)]
pub enum HookResult<T> {
    /// Leave the value as it is.
    Pass,
    /// Replace the value (or, on inject points, add an injection) for the hooks downstream.
    Rewrite(T),
    /// Stop the chain; the reason is shown to the model or the user.
    Block(Reason),
}

impl<T> HookResult<T> {
    /// Stops the chain with a reason the model (or, on user input, the user) sees.
    ///
    /// ```
    /// # use hookchain::HookResult;
    /// let r: HookResult<()> = HookResult::block("No valid plan yet: write plans/active/plan.md first");
    /// assert!(r.is_block());
    /// ```
    pub fn block(reason: impl Into<Reason>) -> Self {
        HookResult::Block(reason.into())
    }

    /// Replaces the value for the hooks downstream.
    pub fn rewrite(value: impl Into<T>) -> Self {
        HookResult::Rewrite(value.into())
    }

    /// `true` for [`HookResult::Pass`].
    pub fn is_pass(&self) -> bool {
        matches!(self, HookResult::Pass)
    }

    /// `true` for [`HookResult::Rewrite`].
    pub fn is_rewrite(&self) -> bool {
        matches!(self, HookResult::Rewrite(_))
    }

    /// `true` for [`HookResult::Block`].
    pub fn is_block(&self) -> bool {
        matches!(self, HookResult::Block(_))
    }

    /// Maps the rewrite, keeping `Pass` and `Block` as they are.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> HookResult<U> {
        match self {
            HookResult::Pass => HookResult::Pass,
            HookResult::Rewrite(v) => HookResult::Rewrite(f(v)),
            HookResult::Block(r) => HookResult::Block(r),
        }
    }
}

/// Why a hook blocked: a message for the model or the user.
///
/// Built from a `&'static str` without allocating, or from a `String`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Reason(Cow<'static, str>);

impl Reason {
    /// The message.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The message as an owned string.
    pub fn into_string(self) -> String {
        self.0.into_owned()
    }
}

impl fmt::Debug for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&'static str> for Reason {
    fn from(s: &'static str) -> Self {
        Reason(Cow::Borrowed(s))
    }
}

impl From<String> for Reason {
    fn from(s: String) -> Self {
        Reason(Cow::Owned(s))
    }
}

impl From<Cow<'static, str>> for Reason {
    fn from(s: Cow<'static, str>) -> Self {
        Reason(s)
    }
}

/// A hook failed: it returned `Err` or panicked. Handled by the hook's `on_error` policy.
///
/// One pointer wide, so that a hook's `Result<HookResult<_>, HookError>` is no larger than its
/// `HookResult` and a passing hook is told apart with one compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError(Box<ErrorInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct ErrorInner {
    message: String,
    cannot_run: bool,
}

impl HookError {
    /// An error with the given message.
    pub fn new(message: impl fmt::Display) -> Self {
        HookError(Box::new(ErrorInner {
            message: message.to_string(),
            cannot_run: false,
        }))
    }

    /// The hook could not run at all — nothing was started: its script changed since it was
    /// approved, its transport could not be built, its program cannot be started. A hook that
    /// is not required fails under its `on_error` as for any error; a required one blocks its
    /// point, whatever its `on_error`.
    pub fn cannot_run(message: impl fmt::Display) -> Self {
        let mut error = HookError::new(message);
        error.0.cannot_run = true;
        error
    }

    /// `true` for an error made with [`cannot_run`](HookError::cannot_run).
    pub fn is_cannot_run(&self) -> bool {
        self.0.cannot_run
    }

    /// The error message.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for HookError {}

/// What the agent gets back from a chain: go on with the (possibly rewritten) value, or stop.
#[must_use = "a blocked flow must be handled: its reason is meant for the model or the user"]
#[derive(Debug, Clone, PartialEq)]
pub enum Flow<T> {
    /// Every hook passed or rewrote: go on with this value.
    Continue(T),
    /// A hook blocked: do not go on; show the reason.
    Blocked(Blocked),
}

impl<T> Flow<T> {
    /// `true` when a hook blocked.
    pub fn is_blocked(&self) -> bool {
        matches!(self, Flow::Blocked(_))
    }

    /// The value, when the chain did not block.
    pub fn continued(self) -> Option<T> {
        match self {
            Flow::Continue(v) => Some(v),
            Flow::Blocked(_) => None,
        }
    }

    /// The block, when the chain blocked.
    pub fn blocked(self) -> Option<Blocked> {
        match self {
            Flow::Continue(_) => None,
            Flow::Blocked(b) => Some(b),
        }
    }

    /// The value as a `Result`, the block as its error.
    pub fn into_result(self) -> Result<T, Blocked> {
        match self {
            Flow::Continue(v) => Ok(v),
            Flow::Blocked(b) => Err(b),
        }
    }

    /// Maps the continued value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Flow<U> {
        match self {
            Flow::Continue(v) => Flow::Continue(f(v)),
            Flow::Blocked(b) => Flow::Blocked(b),
        }
    }
}

/// A chain stopped: which hook stopped it and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Blocked {
    /// The reason, meant for the model (tool calls, model calls) or the user (user input).
    pub reason: String,
    /// The name of the hook that blocked.
    pub hook: String,
    /// `true` when the hook did not decide to block but failed under `on_error = "block"`.
    pub failed: bool,
}

impl Blocked {
    /// A block decided by `hook`.
    pub fn new(reason: impl Into<String>, hook: impl Into<String>) -> Self {
        Blocked {
            reason: reason.into(),
            hook: hook.into(),
            failed: false,
        }
    }

    /// A block caused by `hook` failing under `on_error = "block"`.
    pub fn failure(reason: impl Into<String>, hook: impl Into<String>) -> Self {
        Blocked {
            failed: true,
            ..Blocked::new(reason, hook)
        }
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "blocked by `{}`: {}", self.hook, self.reason)
    }
}

impl std::error::Error for Blocked {}
