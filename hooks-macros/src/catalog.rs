//! The built-in hook points the macro knows by name.
//!
//! The list is generated, when this crate is compiled, from hooks-core's table of built-in
//! points (`hookchain_core::__private::builtin_points!`), the table every other list of them comes
//! from: the canonical name, the type in `hookchain::points` that implements `HookPoint` for it,
//! and the names other agents use for it. hooks-core is a normal dependency of this crate for
//! that.

/// A built-in point: its canonical name, its type and its aliases.
#[derive(Debug)]
pub(crate) struct BuiltinPoint {
    /// The canonical name, as `#[register_hook("...")]` takes it.
    pub(crate) name: &'static str,
    /// The type in `points` that implements `HookPoint`.
    pub(crate) type_name: &'static str,
    /// Other agents' names for this point, with the agent that uses each.
    pub(crate) aliases: &'static [(&'static str, &'static str)],
}

/// Generates [`BUILTIN_POINTS`] from the rows of hooks-core's table.
macro_rules! builtin_points {
    ($(
        $(#[$doc:meta])*
        $point:ident {
            name: $name:literal,
            kind: $kind:ident,
            fires: $fires:literal,
            aliases: [$(($alias:literal, $agent:literal)),* $(,)?],
            $($rest:tt)*
        }
    )*) => {
        /// Every built-in point, in the order of the agent loop.
        pub(crate) const BUILTIN_POINTS: &[BuiltinPoint] = &[$(
            BuiltinPoint {
                name: $name,
                type_name: stringify!($point),
                aliases: &[$(($alias, $agent)),*],
            },
        )*];
    };
}

hookchain_core::__private::builtin_points!(builtin_points);

/// What a point name written in the attribute refers to.
#[derive(Debug)]
pub(crate) enum Lookup {
    /// A canonical name.
    Canonical(&'static BuiltinPoint),
    /// Another agent's name for a built-in point.
    Alias {
        point: &'static BuiltinPoint,
        agent: &'static str,
    },
    /// No built-in point has this name.
    Unknown,
}

/// Looks a point name up among the canonical names and the aliases.
pub(crate) fn lookup(name: &str) -> Lookup {
    for point in BUILTIN_POINTS {
        if point.name == name {
            return Lookup::Canonical(point);
        }
        if let Some((_, agent)) = point.aliases.iter().find(|(alias, _)| *alias == name) {
            return Lookup::Alias { point, agent };
        }
    }
    Lookup::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The macro's list and hooks-core's catalog, both generated from the table, agree: the same
    /// points, in the same order, with the same aliases.
    #[test]
    fn the_list_matches_the_hooks_core_catalog() {
        let ours: Vec<_> = BUILTIN_POINTS
            .iter()
            .map(|p| (p.name, p.aliases.to_vec()))
            .collect();
        let core: Vec<_> = hookchain_core::points::catalog()
            .iter()
            .map(|p| (p.name, p.aliases.to_vec()))
            .collect();
        assert_eq!(ours, core);
    }

    /// Every type name is that of a type in `hookchain_core::points` whose `NAME` is the point's
    /// canonical name, which is what the macro relies on when it writes `points::TypeName`.
    #[test]
    fn type_names_name_the_point_types() {
        macro_rules! point_types {
            ($($(#[$doc:meta])* $point:ident { $($row:tt)* })*) => {
                [$((
                    stringify!($point),
                    <hookchain_core::points::$point as hookchain_core::HookPoint>::NAME,
                )),*]
            };
        }
        let types = hookchain_core::__private::builtin_points!(point_types);
        assert_eq!(BUILTIN_POINTS.len(), types.len());
        for (point, (type_name, name)) in BUILTIN_POINTS.iter().zip(types) {
            assert_eq!((point.type_name, point.name), (type_name, name));
        }
    }

    #[test]
    fn looks_up_names_and_aliases() {
        assert!(matches!(lookup("turn_end"), Lookup::Canonical(p) if p.type_name == "TurnEnded"));
        assert!(matches!(
            lookup("PreToolUse"),
            Lookup::Alias { point, agent: "Claude Code" } if point.name == "intercept_tool_call"
        ));
        assert!(matches!(lookup("intercept_tool_cal"), Lookup::Unknown));
    }
}
