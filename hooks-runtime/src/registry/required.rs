//! Required hooks and extensions: a guard that must not vanish
//! ([`HooksBuilder::require_hook`](crate::HooksBuilder::require_hook),
//! [`HooksBuilder::require_extension`](crate::HooksBuilder::require_extension),
//! [`HookOptions::required`](crate::HookOptions::required)).
//!
//! When the registry is built without it, a stand-in in the extension [`REQUIRED_EXTENSION`]
//! (`"required"`) blocks its point (for an extension with no hook at all, every
//! `intercept_tool_call` and every `transform_user_input`), and every session hears of it when it
//! starts. When it is there, its chain entry is marked required, and the chain blocks instead of
//! going on without it when its extension is disabled or it cannot run (see
//! [`chain`](crate::chain#required-hooks)).

use std::sync::Arc;

use hookchain_core::{HookPoint, OnError, points};

use super::builder::{HookOptions, HooksBuilder, Required, StandIn};
use crate::chain::{Handler, SyncClosure};

/// A stand-in on point `P`: blocks every value with `reason`, first in the chain, in the
/// extension `required`.
fn stand_in<P: HookPoint>(builder: HooksBuilder, name: String, reason: String) -> HooksBuilder {
    let closure: SyncClosure<P> = Arc::new(move |_, _| {
        Ok(hookchain_core::HookResult::<P::Rewrite>::block(
            reason.clone(),
        ))
    });
    let options = HookOptions::new(format!("required:{name}"))
        .priority(i32::MIN)
        .extension(REQUIRED_EXTENSION)
        .on_error(OnError::Block);
    builder.add::<P>(
        options,
        false,
        Handler::SyncClosure(closure),
        (file!(), line!()),
    )
}

/// The stand-in of the built-in point named `point` (its canonical name).
fn stand_in_by_name(point: &str) -> Option<(&'static str, StandIn)> {
    macro_rules! by_name {
        ([$point:ident] $($(#[$doc:meta])* $ty:ident { name: $name:literal, $($rest:tt)* })*) => {
            match $point {
                $($name => Some(($name, stand_in::<points::$ty> as StandIn)),)*
                _ => None,
            }
        };
    }
    hookchain_core::__private::builtin_points!([point] => by_name)
}

/// The extension of the stand-ins of required hooks and extensions that are not there.
pub(crate) const REQUIRED_EXTENSION: &str = "required";

impl HooksBuilder {
    /// Requires a hook named `name` on `point` — a guard that must not vanish. When the registry
    /// is built without one (a `#[register_hook]` fn in a crate the binary does not link, a
    /// configured hook consent skipped or that failed to load, a typo in the name), the point
    /// blocks every value, first in its chain, with a reason naming the missing hook and what to
    /// check, and every session hears of it through `notification`. A required hook that is
    /// present runs as usual, but it is marked required ([`HookOptions::required`]): when its
    /// extension is disabled (by the agent's code or a config file), the point blocks with a
    /// reason naming the hook and who disabled it, instead of going on without it.
    pub fn require_hook<P: HookPoint>(mut self, _point: P, name: impl Into<String>) -> Self {
        self.required.push(Required {
            point: P::NAME,
            name: name.into(),
            stand_in: stand_in::<P>,
            why: None,
        });
        self
    }

    /// [`require_hook`](HooksBuilder::require_hook) for a point named at runtime (a built-in
    /// point's canonical name), with the reason its point blocks with when the hook is not
    /// there: for crates layered on the runtime, which know why (a configured hook marked
    /// `required: true` that consent skipped: "required hook `guard` (hookchain.yaml:12) did not
    /// run: not approved — run `hookchain approve guard`"). A point that is not a built-in one
    /// is logged as an error and nothing is required.
    pub fn require_hook_because(
        mut self,
        point: &str,
        name: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        let name = name.into();
        match stand_in_by_name(point) {
            Some((point, stand_in)) => self.required.push(Required {
                point,
                name,
                stand_in,
                why: Some(reason.into()),
            }),
            None => tracing::error!(
                hook = name,
                "required hook `{name}` is for `{point}`, which is not a built-in point: it is not required"
            ),
        }
        self
    }

    /// Requires the extension `name`: every hook of it is required
    /// ([`HookOptions::required`]), and the extension must have at least one hook.
    ///
    /// - **Disabled** (by anyone:
    ///   [`Hooks::disable_extension`](crate::Hooks::disable_extension) in the agent's code, or
    ///   `enabled: false` in the user's config file): each point one of its hooks is on blocks,
    ///   when the dispatch reaches that hook, with a reason naming the hook, the extension and
    ///   who disabled it.
    /// - **Cannot run** (a configured hook of it whose script changed since it was approved, or
    ///   whose transport cannot be built): its point blocks, whatever the hook's `on_error`.
    /// - **Missing** (no hook of it in the registry: its crate not linked, a typo, its
    ///   configured hooks all skipped by consent): nobody knows which points its hooks would be
    ///   on, so the points through which an agent acts block — every `transform_user_input`
    ///   (the user's message is answered with the reason) and every `intercept_tool_call` (no
    ///   tool runs) — and every session hears of it through `notification` when it starts.
    ///   The other points go on: the agent can still start, end and report.
    ///
    /// ```
    /// use hookchain::points::{InterceptToolCall, ToolCall};
    /// use hookchain::{HookContext, HookOptions, HookResult, HooksBuilder};
    /// use serde_json::{Value, json};
    ///
    /// let hooks = HooksBuilder::new()
    ///     .hook_with(
    ///         InterceptToolCall,
    ///         HookOptions::new("no-rm").extension("guards"),
    ///         |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
    ///     )
    ///     .require_extension("guards")
    ///     .build()
    ///     .unwrap();
    /// hooks.disable_extension("guards").unwrap();
    /// let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new("rm", json!({})));
    /// let blocked = outcome.flow.blocked().unwrap();
    /// assert!(blocked.reason.contains("disabled by the agent's code"));
    /// ```
    pub fn require_extension(mut self, name: impl Into<String>) -> Self {
        self.required_extensions.push(name.into());
        self
    }

    /// Puts a blocking stand-in, and a notice, for every required hook and extension that is not
    /// there, and marks required every hook that is.
    pub(super) fn stand_in_for_missing(&mut self) {
        let present: Vec<(&'static str, String, String)> = self
            .registered
            .iter()
            .map(|r| (r.point, r.name.to_owned(), r.extension.to_owned()))
            .chain(self.added.iter().map(|a| {
                (
                    a.info.point,
                    a.info.name.to_string(),
                    a.info.extension.to_string(),
                )
            }))
            .collect();
        for required in std::mem::take(&mut self.required) {
            self.required_set
                .hooks
                .push((required.point, required.name.clone()));
            if present
                .iter()
                .any(|(point, name, _)| *point == required.point && *name == required.name)
            {
                continue;
            }
            let (point, name) = (required.point, required.name);
            tracing::error!(
                point,
                hook = name,
                "required hook `{name}` on `{point}` is not in the registry: the point blocks",
            );
            let (message, reason) = match required.why {
                Some(why) => (format!("{why}; `{point}` blocks until it runs"), why),
                None => (
                    format!(
                        "required hook `{name}` on `{point}` is not in this registry: `{point}`                          blocks until it is"
                    ),
                    format!(
                        "required hook `{name}` is not in this registry, so `{point}` is blocked: a                          #[register_hook] fn in a library crate is collected only if the crate is                          linked (add `use my_hooks as _;`); a configured hook runs only once                          approved and loaded"
                    ),
                ),
            };
            let builder = std::mem::take(self).notice(hookchain_core::Notification {
                level: hookchain_core::Level::Error,
                message,
                source: Some(name.clone()),
                kind: hookchain_core::NotificationKind::General,
            });
            *self = (required.stand_in)(builder, name, reason);
        }
        for extension in std::mem::take(&mut self.required_extensions) {
            self.required_set.extensions.push(extension.clone());
            if present.iter().any(|(_, _, e)| *e == extension) {
                continue;
            }
            tracing::error!(
                extension,
                "required extension `{extension}` has no hook in the registry: tool calls and user                  input block"
            );
            let reason = format!(
                "required extension `{extension}` has no hook in this registry, so nothing goes                  through until it does: a #[register_hook] fn in a library crate is collected                  only if the crate is linked (add `use my_hooks as _;`); a configured hook runs                  only once approved and loaded"
            );
            let builder = std::mem::take(self).notice(hookchain_core::Notification {
                level: hookchain_core::Level::Error,
                message: format!(
                    "required extension `{extension}` has no hook in this registry: every tool                      call and every user message is blocked until it does"
                ),
                source: Some(extension.clone()),
                kind: hookchain_core::NotificationKind::General,
            });
            let name = format!("extension:{extension}");
            let builder =
                stand_in::<points::InterceptToolCall>(builder, name.clone(), reason.clone());
            *self = stand_in::<points::TransformUserInput>(builder, name, reason);
        }
    }
}
