//! Hook points: the named steps of the agent loop that hooks attach to.
//!
//! A hook point is a type implementing [`HookPoint`]. It fixes four things:
//!
//! - its canonical [`NAME`](HookPoint::NAME) (`"intercept_tool_call"`), the string that
//!   `#[register_hook]`, config files and wire payloads use;
//! - its [`KIND`](HookPoint::KIND): a *transform* point passes a value through rewrites and may be
//!   blocked, an *inject* point accumulates injections and may be blocked, an *observe* point runs
//!   every hook and ignores their results;
//! - the [`Value`](HookPoint::Value) that flows through the chain and that the agent gets back,
//!   the [`Input`](HookPoint::Input) view of it that each hook borrows, and the
//!   [`Rewrite`](HookPoint::Rewrite) a hook returns to change it;
//! - how a rewrite is [applied](HookPoint::apply) to the value.
//!
//! The built-in points live in [`crate::points`]; agents may declare their own points the same
//! way. The traits at the bottom of this module ([`HookArg`], [`ContextArg`], [`IntoHookReturn`])
//! are what `#[register_hook]` uses to check a hook's signature against its point, so that a wrong
//! argument or return type is reported on the user's own tokens.

use std::fmt;

use crate::context::HookContext;
use crate::result::{HookError, HookResult};

/// What a hook point lets its hooks do, and so how its chain runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointKind {
    /// Hooks pass, rewrite the value (the next hook sees the rewrite) or block (the chain stops).
    Transform,
    /// Hooks pass, inject (injections accumulate in chain order) or block (the chain stops).
    Inject,
    /// Every hook runs; results are ignored and nothing can be blocked.
    Observe,
}

impl PointKind {
    /// The lower-case name used in docs and `describe()` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            PointKind::Transform => "transform",
            PointKind::Inject => "inject",
            PointKind::Observe => "observe",
        }
    }
}

impl fmt::Display for PointKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// What a hook's panic or `Err` means for the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OnError {
    /// Fail open: the failed hook is treated as if it had passed.
    #[default]
    Pass,
    /// Fail closed: the failed hook blocks, with a reason naming it.
    Block,
    /// Fail open, loudly: the failed hook is treated as if it had passed, and a warning naming it
    /// goes to the user with the outcome.
    Warn,
}

impl OnError {
    /// `"pass"`, `"block"` or `"warn"`, as written in `#[register_hook(on_error = ..)]`.
    pub const fn as_str(self) -> &'static str {
        match self {
            OnError::Pass => "pass",
            OnError::Block => "block",
            OnError::Warn => "warn",
        }
    }
}

impl fmt::Display for OnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A step of the agent loop that hooks attach to.
///
/// Implement it for a unit struct to declare a point of your own; the runtime gives it the same
/// chain semantics as the built-in ones.
///
/// ```
/// use hookchain::{HookPoint, PointKind};
///
/// /// Fired before the agent sends an e-mail; hooks may rewrite the body or block the send.
/// pub struct SendEmail;
///
/// pub struct Email { pub to: String, pub body: String }
///
/// impl HookPoint for SendEmail {
///     const NAME: &'static str = "send_email";
///     const KIND: PointKind = PointKind::Transform;
///     type Value = Email;
///     type Input = Email;
///     type Rewrite = String;
///     fn input(value: &Email) -> &Email { value }
///     fn apply(value: &mut Email, body: String) { value.body = body; }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hook point",
    label = "not a hook point",
    note = "a hook point is a built-in point's name as a string (\"intercept_tool_call\") or a type implementing `HookPoint`"
)]
pub trait HookPoint: Send + Sync + 'static {
    /// The canonical name (`snake_case`), unique among the points an agent uses.
    const NAME: &'static str;
    /// What hooks on this point can do.
    const KIND: PointKind;
    /// The policy for a failing hook that did not declare `on_error`.
    const DEFAULT_ON_ERROR: OnError = OnError::Pass;
    /// The value that flows through the chain; the agent passes it in and gets it back.
    type Value: Send + Sync + 'static;
    /// What each hook borrows: the value itself or a view of it (`str` for a `String`).
    type Input: ?Sized + Sync + 'static;
    /// What a hook returns in [`HookResult::Rewrite`] to change the value.
    type Rewrite: Send + 'static;
    /// The view of the value that hooks see.
    fn input(value: &Self::Value) -> &Self::Input;
    /// Applies a hook's rewrite to the value, before the next hook sees it.
    fn apply(value: &mut Self::Value, rewrite: Self::Rewrite);
    /// Index of the built-in point in the runtime's fixed table; `None` for user-defined points.
    #[doc(hidden)]
    const BUILTIN_SLOT: Option<usize> = None;
    /// The value as JSON, for wildcard hooks ([`DispatchEvent::payload`](crate::DispatchEvent)):
    /// called only when a wildcard hook watches the point. Every built-in point's value
    /// serializes; `hook_point!` gives the JSON of a value that implements `serde::Serialize`
    /// and `Null` for one that does not; a hand-written impl gives `Null` unless it says more.
    fn payload_json(value: &Self::Value) -> serde_json::Value {
        let _ = value;
        serde_json::Value::Null
    }
}

/// Picks, for `hook_point!`, the JSON of a value that implements `Serialize` and `Null` for one
/// that does not (method resolution prefers the impl on `Payload<T>`, reached first from `&Payload<T>`, when it applies). Not a
/// public API.
#[doc(hidden)]
#[allow(missing_debug_implementations)]
pub struct Payload<'a, T>(pub &'a T);

/// The JSON of a value that implements `Serialize`. Not a public API.
#[doc(hidden)]
pub trait SerializePayload {
    /// The value as JSON.
    fn payload_json(&self) -> serde_json::Value;
}

impl<T: serde::Serialize> SerializePayload for Payload<'_, T> {
    fn payload_json(&self) -> serde_json::Value {
        serde_json::to_value(self.0).unwrap_or(serde_json::Value::Null)
    }
}

/// `Null` for a value that does not implement `Serialize`. Not a public API.
#[doc(hidden)]
pub trait NoPayload {
    /// `Null`.
    fn payload_json(&self) -> serde_json::Value;
}

impl<T> NoPayload for &Payload<'_, T> {
    fn payload_json(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// Checks a hook's first argument against its point: implemented for `&P::Input` only.
///
/// `#[register_hook]` routes the argument through this trait, so a wrong type is reported on the
/// type the user wrote.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the input this hook point passes to its hooks",
    label = "a hook on this point must take `&{Expected}` here",
    note = "a hook's arguments are `(input: &Input)` or `(input: &Input, cx: &HookContext)`; the point's `Input` type is in its docs (`hookchain::points`)"
)]
pub trait HookArg<'a, Expected: ?Sized + 'a>: Sized {
    /// Turns the point's input into the argument the hook declared.
    fn from_input(input: &'a Expected) -> Self;
}

impl<'a, T: ?Sized + 'a> HookArg<'a, T> for &'a T {
    #[inline(always)]
    fn from_input(input: &'a T) -> Self {
        input
    }
}

/// Checks a hook's second argument: implemented for `&HookContext` only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a hook's second argument",
    label = "the second argument of a hook must be `&HookContext`",
    note = "a hook's arguments are `(input: &Input)` or `(input: &Input, cx: &HookContext)`"
)]
pub trait ContextArg<'a, 'c>: Sized {
    /// Passes the context through.
    fn from_context(cx: &'a HookContext<'c>) -> Self;
}

impl<'a, 'c> ContextArg<'a, 'c> for &'a HookContext<'c> {
    #[inline(always)]
    fn from_context(cx: &'a HookContext<'c>) -> Self {
        cx
    }
}

/// Checks a hook's return type and normalises it for the chain.
///
/// Implemented for `HookResult<R>`, `Result<HookResult<R>, E: Display>` and — for observe points,
/// whose `Rewrite` is [`Observed`] — for `()` and `Result<(), E: Display>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a return type a hook on this point can have",
    label = "a hook on this point returns `HookResult<{R}>` or `Result<HookResult<{R}>, E: Display>`",
    note = "see the point's `Rewrite` type in its docs (`hookchain::points`); observe-only points take `()` or `Result<(), E: Display>`"
)]
pub trait IntoHookReturn<R> {
    /// Converts the hook's return value into the chain's form.
    fn into_hook_return(self) -> Result<HookResult<R>, HookError>;

    /// Converts the hook's return value into the form a compiled-in sync hook hands the chain,
    /// whose `Pass` is one compare.
    #[doc(hidden)]
    #[inline(always)]
    fn into_hook_output(self) -> HookOutput<R>
    where
        Self: Sized,
    {
        HookOutput::from(self.into_hook_return())
    }
}

impl<R> IntoHookReturn<R> for HookResult<R> {
    #[inline(always)]
    fn into_hook_return(self) -> Result<HookResult<R>, HookError> {
        Ok(self)
    }

    #[inline(always)]
    fn into_hook_output(self) -> HookOutput<R> {
        // Variant by variant: the hook's own branch is kept, so that its pass path writes only
        // the tag (a copy of the whole value lets the optimizer write the other variants'
        // fields on every path).
        match self {
            HookResult::Pass => HookOutput::Pass,
            HookResult::Rewrite(value) => HookOutput::Rewrite(value),
            HookResult::Block(reason) => HookOutput::Block(reason),
        }
    }
}

impl<R, E: fmt::Display> IntoHookReturn<R> for Result<HookResult<R>, E> {
    #[inline]
    fn into_hook_return(self) -> Result<HookResult<R>, HookError> {
        self.map_err(HookError::new)
    }

    #[inline]
    fn into_hook_output(self) -> HookOutput<R> {
        match self {
            Ok(result) => result.into_hook_output(),
            Err(error) => HookOutput::Failed(HookError::new(error)),
        }
    }
}

impl IntoHookReturn<Observed> for () {
    #[inline(always)]
    fn into_hook_return(self) -> Result<HookResult<Observed>, HookError> {
        Ok(HookResult::Pass)
    }

    #[inline(always)]
    fn into_hook_output(self) -> HookOutput<Observed> {
        HookOutput::Pass
    }
}

impl<E: fmt::Display> IntoHookReturn<Observed> for Result<(), E> {
    #[inline]
    fn into_hook_return(self) -> Result<HookResult<Observed>, HookError> {
        self.map(|()| HookResult::Pass).map_err(HookError::new)
    }
}

/// What a compiled-in sync hook hands the chain: its decision, or the error it failed with, in
/// one enum, so that the chain tells a `Pass` apart with one compare (a
/// `Result<HookResult<R>, HookError>` takes two). Other hooks return
/// [`HookReturn`](crate::HookReturn); the chain converts this one into it once a hook did
/// anything but pass.
#[doc(hidden)]
#[derive(Debug)]
pub enum HookOutput<R> {
    Pass,
    Rewrite(R),
    Block(crate::result::Reason),
    Failed(HookError),
}

impl<R> HookOutput<R> {
    /// `true` for [`HookOutput::Pass`].
    #[inline(always)]
    pub fn is_pass(&self) -> bool {
        matches!(self, HookOutput::Pass)
    }

    /// The chain's general form.
    #[inline]
    pub fn into_return(self) -> Result<HookResult<R>, HookError> {
        match self {
            HookOutput::Pass => Ok(HookResult::Pass),
            HookOutput::Rewrite(value) => Ok(HookResult::Rewrite(value)),
            HookOutput::Block(reason) => Ok(HookResult::Block(reason)),
            HookOutput::Failed(error) => Err(error),
        }
    }
}

impl<R> From<Result<HookResult<R>, HookError>> for HookOutput<R> {
    #[inline]
    fn from(result: Result<HookResult<R>, HookError>) -> Self {
        match result {
            Ok(HookResult::Pass) => HookOutput::Pass,
            Ok(HookResult::Rewrite(value)) => HookOutput::Rewrite(value),
            Ok(HookResult::Block(reason)) => HookOutput::Block(reason),
            Err(error) => HookOutput::Failed(error),
        }
    }
}

/// The `Rewrite` type of observe points: there is nothing to rewrite, so it has no values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observed {}

/// The kinds `hook_point!` accepts, by the names it is written with.
#[doc(hidden)]
#[allow(non_upper_case_globals)]
pub mod point_kinds {
    use super::PointKind;
    /// `transform`
    pub const transform: PointKind = PointKind::Transform;
    /// `inject`
    pub const inject: PointKind = PointKind::Inject;
}

/// Declares a hook point of your own: a unit struct implementing [`HookPoint`].
///
/// ```
/// use hookchain::{hook_point, HookPoint, PointKind};
///
/// pub struct Email { pub to: String, pub body: String }
///
/// hook_point! {
///     /// Fired before the agent sends an e-mail: hooks may rewrite the body or block the send.
///     pub struct SendEmail: transform("send_email") {
///         type Value = Email;
///         type Rewrite = String;
///         fn apply(email, body) { email.body = body; }
///     }
/// }
///
/// hook_point! {
///     /// Fired after an e-mail was sent; observers only.
///     pub struct EmailSent: observe("email_sent") {
///         type Value = Email;
///     }
/// }
///
/// assert_eq!(SendEmail::NAME, "send_email");
/// assert_eq!(EmailSent::KIND, PointKind::Observe);
/// ```
///
/// The kinds are `transform` and `inject` (both with `Rewrite` and `apply`) and `observe`
/// (without). Hooks borrow the whole value; implement [`HookPoint`] by hand to give them a view of
/// it instead (`&str` for a `String`).
#[macro_export]
macro_rules! hook_point {
    (
        $(#[$meta:meta])*
        $vis:vis struct $point:ident : observe ( $name:literal ) {
            type Value = $value:ty;
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy)]
        $vis struct $point;

        impl $crate::HookPoint for $point {
            const NAME: &'static str = $name;
            const KIND: $crate::PointKind = $crate::PointKind::Observe;
            type Value = $value;
            type Input = $value;
            type Rewrite = $crate::Observed;
            // Named lifetimes: `$value` may hold references itself (`Vec<&'static str>`).
            #[inline(always)]
            #[allow(clippy::needless_lifetimes)]
            fn input<'a>(value: &'a $value) -> &'a $value {
                value
            }
            fn apply(_: &mut $value, rewrite: $crate::Observed) {
                match rewrite {}
            }
            fn payload_json(value: &$value) -> $crate::__private::serde_json::Value {
                #[allow(unused_imports)]
                use $crate::__private::{NoPayload as _, SerializePayload as _};
                (&$crate::__private::Payload(value)).payload_json()
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $point:ident : $kind:ident ( $name:literal ) {
            type Value = $value:ty;
            type Rewrite = $rewrite:ty;
            fn apply($v:ident, $r:ident) $body:block
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy)]
        $vis struct $point;

        impl $crate::HookPoint for $point {
            const NAME: &'static str = $name;
            const KIND: $crate::PointKind = $crate::hook_point!(@kind $kind);
            type Value = $value;
            type Input = $value;
            type Rewrite = $rewrite;
            // Named lifetimes: `$value` may hold references itself (`Vec<&'static str>`).
            #[inline(always)]
            #[allow(clippy::needless_lifetimes)]
            fn input<'a>(value: &'a $value) -> &'a $value {
                value
            }
            fn apply($v: &mut $value, $r: $rewrite) $body
            fn payload_json(value: &$value) -> $crate::__private::serde_json::Value {
                #[allow(unused_imports)]
                use $crate::__private::{NoPayload as _, SerializePayload as _};
                (&$crate::__private::Payload(value)).payload_json()
            }
        }
    };
    (@kind observe) => {
        ::core::compile_error!("an observe point has no `Rewrite` and no `apply`: write only `type Value = ...;`")
    };
    // Resolved as a path, so an unknown kind is reported on the user's token, with rustc's
    // suggestion of the closest kind.
    (@kind $kind:ident) => { $crate::__private::point_kinds::$kind };
    ($($other:tt)*) => {
        ::core::compile_error!(
            "expected `pub struct Name: transform(\"name\") { type Value = T; type Rewrite = R; fn apply(value, rewrite) { ... } }` \
             or `pub struct Name: observe(\"name\") { type Value = T; }`"
        );
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    hook_point! {
        /// A point whose value holds references.
        struct Names: transform("names") {
            type Value = Vec<&'static str>;
            type Rewrite = &'static str;
            fn apply(names, name) { names.push(name); }
        }
    }

    hook_point! {
        struct NamesSeen: observe("names_seen") {
            type Value = Vec<&'static str>;
        }
    }

    #[test]
    fn hook_point_takes_a_value_with_references() {
        let mut names = vec!["a"];
        Names::apply(&mut names, "b");
        assert_eq!(Names::input(&names), &["a", "b"]);
        assert_eq!(NamesSeen::input(&names).len(), 2);
        assert_eq!(NamesSeen::KIND, PointKind::Observe);
    }
}
