//! The built-in points themselves, generated from the table (`points/table.rs`): each point's
//! type and its `HookPoint` impl, the [`catalog`] of every point with its kind and other agents'
//! names for it, and [`BUILTIN_SLOTS`]. Each point has its own slot in the runtime's fixed table,
//! checked at compile time.

use crate::dialect::Dialect;
use crate::point::{HookPoint, OnError, PointKind};

/// A built-in point as the catalog lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointInfo {
    /// The canonical name.
    pub name: &'static str,
    /// What hooks on it can do.
    pub kind: PointKind,
    /// When it fires.
    pub fires: &'static str,
    /// Other agents' names for it, with the agent that uses each (its [`Dialect::name`]; see
    /// [`dialect_of`](Self::dialect_of)).
    pub aliases: &'static [(&'static str, &'static str)],
}

impl PointInfo {
    /// The dialect whose name for this point `event` is (`PreToolUse`: Claude Code), or `None`
    /// when `event` is none of the [`aliases`](Self::aliases) (the canonical name included).
    ///
    /// ```
    /// use hookchain::Dialect;
    ///
    /// let point = hookchain::points::resolve("post_tool_call").unwrap();
    /// assert_eq!(point.dialect_of("post_tool_call"), Some(Dialect::Hermes));
    /// assert_eq!(point.dialect_of("after_tool_call"), None);
    /// ```
    pub fn dialect_of(&self, event: &str) -> Option<Dialect> {
        let (_, agent) = self.aliases.iter().find(|(alias, _)| *alias == event)?;
        Dialect::ALL.into_iter().find(|d| d.name() == *agent)
    }
}

/// Every built-in point, in the order of the agent loop.
pub fn catalog() -> &'static [PointInfo] {
    CATALOG
}

/// Finds a built-in point by its canonical name or by another agent's name for it.
///
/// ```
/// let p = hookchain::points::resolve("PreToolUse").unwrap();
/// assert_eq!(p.name, "intercept_tool_call");
/// ```
pub fn resolve(name: &str) -> Option<&'static PointInfo> {
    CATALOG
        .iter()
        .find(|p| p.name == name || p.aliases.iter().any(|(alias, _)| *alias == name))
}

/// Generates, from the rows of [`__builtin_points!`](crate::__builtin_points): each point's
/// type and its `HookPoint` impl, [`CATALOG`] and [`BUILTIN_SLOTS`].
macro_rules! builtin_points {
    ($(
        $(#[$doc:meta])*
        $point:ident {
            name: $name:literal,
            kind: $kind:ident,
            fires: $fires:literal,
            aliases: [$(($alias:literal, $agent:literal)),* $(,)?],
            slot: $slot:literal,
            on_error: $on_error:ident,
            value: $value:ty,
            input: $input:ty,
            rewrite: $rewrite:ty,
            apply: |$v:ident, $r:ident| $apply:expr,
        }
    )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $point;

            impl HookPoint for $point {
                const NAME: &'static str = $name;
                const KIND: PointKind = PointKind::$kind;
                const DEFAULT_ON_ERROR: OnError = OnError::$on_error;
                type Value = $value;
                type Input = $input;
                type Rewrite = $rewrite;
                #[inline(always)]
                fn input(value: &$value) -> &$input {
                    value
                }
                #[allow(unused_variables, clippy::unused_unit)]
                fn apply($v: &mut $value, $r: $rewrite) {
                    $apply
                }
                const BUILTIN_SLOT: Option<usize> = Some($slot);
                fn payload_json(value: &$value) -> ::serde_json::Value {
                    ::serde_json::to_value(value).unwrap_or(::serde_json::Value::Null)
                }
            }
        )*

        /// The number of built-in points with a slot in the runtime's fixed table.
        #[doc(hidden)]
        pub const BUILTIN_SLOTS: usize = [$($slot),*].len();

        // Each built-in point has its own slot, from 0 to `BUILTIN_SLOTS - 1`.
        const _: () = assert!(
            slots_are_a_permutation(&[$($slot),*]),
            "the built-in points' slots must be 0, 1, 2, ... in some order, each used once"
        );

        const CATALOG: &[PointInfo] = &[$(
            PointInfo {
                name: <$point as HookPoint>::NAME,
                kind: <$point as HookPoint>::KIND,
                fires: $fires,
                aliases: &[$(($alias, $agent)),*],
            },
        )*];
    };
}

crate::__builtin_points!(builtin_points);

/// `true` when `slots` holds each of `0..slots.len()` once.
const fn slots_are_a_permutation(slots: &[usize]) -> bool {
    let mut i = 0;
    while i < slots.len() {
        if slots[i] >= slots.len() {
            return false;
        }
        let mut j = i + 1;
        while j < slots.len() {
            if slots[i] == slots[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::points::*;
    use serde_json::Value;

    /// Every point of the table, as its type says: (name, kind, slot, default `on_error`).
    macro_rules! point_types {
        ($($(#[$doc:meta])* $point:ident { $($row:tt)* })*) => {
            [$((
                <$point as HookPoint>::NAME,
                <$point as HookPoint>::KIND,
                <$point as HookPoint>::BUILTIN_SLOT,
                <$point as HookPoint>::DEFAULT_ON_ERROR,
            )),*]
        };
    }

    #[test]
    fn the_catalog_lists_every_point_type_in_table_order() {
        let types = crate::__builtin_points!(point_types);
        assert_eq!(types.len(), catalog().len());
        assert_eq!(types.len(), BUILTIN_SLOTS);
        for ((name, kind, _, _), info) in types.iter().zip(catalog()) {
            assert_eq!((*name, *kind), (info.name, info.kind));
        }
        let mut slots: Vec<usize> = types.iter().map(|t| t.2.unwrap()).collect();
        slots.sort_unstable();
        assert_eq!(slots, (0..BUILTIN_SLOTS).collect::<Vec<_>>());
        assert!(types.iter().all(|t| t.3 == OnError::Pass));
    }

    #[test]
    fn the_order_and_slots_of_the_agent_loop() {
        let names: Vec<&str> = catalog().iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            [
                "session_start",
                "session_end",
                "session_reset",
                "transform_user_input",
                "turn_start",
                "before_llm_call",
                "after_llm_call",
                "intercept_tool_call",
                "permission_request",
                "transform_tool_result",
                "after_tool_call",
                "after_tool_batch",
                "transform_response",
                "on_stop",
                "before_compaction",
                "after_compaction",
                "subagent_stop",
                "outbound_message",
                "slash_command",
                "turn_end",
                "notification",
            ]
        );
        assert_eq!(TransformUserInput::BUILTIN_SLOT, Some(0));
        assert_eq!(BeforeLlmCall::BUILTIN_SLOT, Some(1));
        assert_eq!(InterceptToolCall::BUILTIN_SLOT, Some(2));
        assert_eq!(TurnEnded::BUILTIN_SLOT, Some(3));
        assert_eq!(Notify::BUILTIN_SLOT, Some(16));
        assert_eq!(TurnStart::BUILTIN_SLOT, Some(17));
        assert_eq!(PermissionRequest::BUILTIN_SLOT, Some(18));
        assert_eq!(AfterToolBatch::BUILTIN_SLOT, Some(19));
        assert_eq!(OnSlashCommand::BUILTIN_SLOT, Some(20));
    }

    /// Every event of another agent that has a point resolves to it, by the agent's own name.
    #[test]
    fn other_agents_events_resolve_to_their_points() {
        for (event, point) in [
            ("turn_start", "turn_start"),
            ("before_agent_start", "turn_start"),
            ("permission_request", "permission_request"),
            ("PermissionRequest", "permission_request"),
            ("PermissionDenied", "after_tool_call"),
            ("PostToolBatch", "after_tool_batch"),
            ("SubagentStart", "session_start"),
            ("on_user_input", "notification"),
            ("on_error", "notification"),
            ("on_max_iterations", "notification"),
            ("command:*", "slash_command"),
        ] {
            assert_eq!(resolve(event).map(|p| p.name), Some(point), "{event}");
        }
        assert_eq!(resolve("turn_start").unwrap().kind, PointKind::Inject);
        assert_eq!(
            resolve("PermissionRequest").unwrap().kind,
            PointKind::Transform
        );
        assert_eq!(resolve("PostToolBatch").unwrap().kind, PointKind::Inject);
    }

    #[test]
    fn a_grant_allows_and_may_replace_the_args() {
        let call = ToolCall::new("shell", Value::from("ls")).with_id("t");
        let mut ask = PermissionAsk::new(&call);
        PermissionRequest::apply(&mut ask, PermissionGrant::allow());
        assert!(ask.allowed);
        assert_eq!(ask.call(), call);
        PermissionRequest::apply(&mut ask, PermissionGrant::with_args(Value::from("pwd")));
        assert_eq!(ask.tool_input, Value::from("pwd"));
    }

    #[test]
    fn a_rewrite_of_a_slash_command_replaces_its_args() {
        let mut command = SlashCommand::new("notes", "add x");
        OnSlashCommand::apply(&mut command, "list".into());
        assert_eq!(command, SlashCommand::new("notes", "list"));
        assert_eq!(
            resolve("command:*").unwrap().dialect_of("command:*"),
            Some(Dialect::Hermes)
        );
    }

    #[test]
    fn turn_and_batch_context_accumulates() {
        let mut start = TurnStartEvent::new("hi");
        TurnStart::apply(&mut start, "a".into());
        TurnStart::apply(&mut start, "b".into());
        assert_eq!(start.context, ["a", "b"]);
        let mut batch = ToolBatch::new(Vec::new());
        AfterToolBatch::apply(&mut batch, "c".into());
        assert_eq!(batch.context, ["c"]);
    }

    #[test]
    fn resolves_names_and_aliases() {
        assert_eq!(resolve("turn_end").unwrap().name, "turn_end");
        assert_eq!(resolve("PreToolUse").unwrap().name, "intercept_tool_call");
        assert_eq!(resolve("on_error").unwrap().name, "notification");
        assert_eq!(resolve("Stop").unwrap().kind, PointKind::Transform);
        assert!(resolve("intercept_tool_cal").is_none());
        assert!(resolve("turnend").is_none());
    }

    #[test]
    fn no_name_is_used_twice() {
        let mut names: Vec<&str> = catalog()
            .iter()
            .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().map(|(a, _)| *a)))
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a name or an alias is used twice");
    }

    #[test]
    fn rewrites_apply_to_the_value() {
        let mut call = ToolCall::new("ls", Value::Null);
        InterceptToolCall::apply(&mut call, Value::Bool(true));
        assert_eq!(call.args, Value::Bool(true));
        let mut text = String::from("a");
        TransformUserInput::apply(&mut text, "b".to_owned());
        assert_eq!(TransformUserInput::input(&text), "b");
        let mut compaction = Compaction {
            messages: Vec::new(),
            trigger: "auto".into(),
            summary: None,
        };
        BeforeCompaction::apply(&mut compaction, "short".into());
        assert_eq!(compaction.summary.as_deref(), Some("short"));
    }

    /// The table at the top of this module's docs has a row for every point.
    #[test]
    fn the_module_docs_list_every_point() {
        let docs: Vec<&str> = include_str!("mod.rs")
            .lines()
            .take_while(|line| line.starts_with("//!"))
            .collect();
        for point in catalog() {
            let row = format!("//! | `{}` ", point.name);
            assert!(
                docs.iter().any(|line| line.starts_with(&row)),
                "the docs of `points` have no row for `{}`",
                point.name
            );
        }
    }
}
