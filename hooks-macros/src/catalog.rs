//! The built-in hook points the macro knows by name.
//!
//! This table mirrors `hookchain::points::catalog()`: the canonical name, the type in
//! `hookchain::points` that implements `HookPoint` for it, and the names other agents use for
//! it. A proc-macro crate cannot call into `hooks-core` at expansion time, so the table is
//! repeated here; a unit test compares the two, so they cannot drift apart.

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

/// Every built-in point, in the order of the agent loop.
pub(crate) const BUILTIN_POINTS: &[BuiltinPoint] = &[
    BuiltinPoint {
        name: "session_start",
        type_name: "SessionStart",
        aliases: &[
            ("on_session_start", "Hermes"),
            ("SessionStart", "Claude Code"),
        ],
    },
    BuiltinPoint {
        name: "session_end",
        type_name: "SessionEnd",
        aliases: &[
            ("on_session_end", "Hermes"),
            ("SessionEnd", "Claude Code"),
            ("session_shutdown", "Pi"),
        ],
    },
    BuiltinPoint {
        name: "session_reset",
        type_name: "SessionReset",
        aliases: &[
            ("on_session_reset", "Hermes"),
            ("on_session_finalize", "Hermes"),
        ],
    },
    BuiltinPoint {
        name: "transform_user_input",
        type_name: "TransformUserInput",
        aliases: &[
            ("on_user_message", "Hermes"),
            ("UserPromptSubmit", "Claude Code"),
            ("user_prompt_submit", "docker-agent"),
            ("input", "Pi"),
        ],
    },
    BuiltinPoint {
        name: "before_llm_call",
        type_name: "BeforeLlmCall",
        aliases: &[
            ("pre_llm_call", "Hermes"),
            ("before_agent_start", "Pi"),
            ("context", "Pi"),
            ("turn_start", "docker-agent"),
        ],
    },
    BuiltinPoint {
        name: "after_llm_call",
        type_name: "AfterLlmCall",
        aliases: &[("post_llm_call", "Hermes")],
    },
    BuiltinPoint {
        name: "intercept_tool_call",
        type_name: "InterceptToolCall",
        aliases: &[
            ("pre_tool_call", "Hermes"),
            ("PreToolUse", "Claude Code"),
            ("pre_tool_use", "docker-agent"),
            ("tool_call", "Pi"),
        ],
    },
    BuiltinPoint {
        name: "transform_tool_result",
        type_name: "TransformToolResult",
        aliases: &[
            ("tool_result", "Pi"),
            ("tool_response_transform", "Starchild"),
            ("PostToolUse", "Claude Code"),
            ("post_tool_use", "docker-agent"),
        ],
    },
    BuiltinPoint {
        name: "after_tool_call",
        type_name: "AfterToolCall",
        aliases: &[("post_tool_call", "Hermes"), ("tool_execution_end", "Pi")],
    },
    BuiltinPoint {
        name: "transform_response",
        type_name: "TransformResponse",
        aliases: &[("on_response_end", "Starchild")],
    },
    BuiltinPoint {
        name: "on_stop",
        type_name: "OnStop",
        aliases: &[
            ("Stop", "Claude Code"),
            ("stop", "docker-agent"),
            ("on_completion_claim", "Starchild"),
        ],
    },
    BuiltinPoint {
        name: "before_compaction",
        type_name: "BeforeCompaction",
        aliases: &[
            ("PreCompact", "Claude Code"),
            ("pre_compact", "docker-agent"),
            ("session_before_compact", "Pi"),
        ],
    },
    BuiltinPoint {
        name: "after_compaction",
        type_name: "AfterCompaction",
        aliases: &[("PostCompact", "Claude Code")],
    },
    BuiltinPoint {
        name: "subagent_stop",
        type_name: "SubagentStop",
        aliases: &[("SubagentStop", "Claude Code")],
    },
    BuiltinPoint {
        name: "outbound_message",
        type_name: "OutboundMessage",
        aliases: &[("on_outbound_message", "Hermes")],
    },
    BuiltinPoint {
        name: "turn_end",
        type_name: "TurnEnded",
        aliases: &[],
    },
    BuiltinPoint {
        name: "notification",
        type_name: "Notify",
        aliases: &[
            ("Notification", "Claude Code"),
            ("on_error", "Starchild"),
            ("on_max_iterations", "Starchild"),
        ],
    },
];

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

    /// The macro's table and hooks-core's catalog list the same points, in the same order, with
    /// the same aliases.
    #[test]
    fn table_matches_the_hooks_core_catalog() {
        let ours: Vec<_> = BUILTIN_POINTS
            .iter()
            .map(|p| (p.name, p.aliases.to_vec()))
            .collect();
        let core: Vec<_> = hooks_core::points::catalog()
            .iter()
            .map(|p| (p.name, p.aliases.to_vec()))
            .collect();
        assert_eq!(ours, core);
    }

    /// Each type name is the point type whose `NAME` is the canonical name.
    #[test]
    fn type_names_match_the_point_types() {
        use hooks_core::HookPoint;
        use hooks_core::points::*;

        let types = [
            ("SessionStart", SessionStart::NAME),
            ("SessionEnd", SessionEnd::NAME),
            ("SessionReset", SessionReset::NAME),
            ("TransformUserInput", TransformUserInput::NAME),
            ("BeforeLlmCall", BeforeLlmCall::NAME),
            ("AfterLlmCall", AfterLlmCall::NAME),
            ("InterceptToolCall", InterceptToolCall::NAME),
            ("TransformToolResult", TransformToolResult::NAME),
            ("AfterToolCall", AfterToolCall::NAME),
            ("TransformResponse", TransformResponse::NAME),
            ("OnStop", OnStop::NAME),
            ("BeforeCompaction", BeforeCompaction::NAME),
            ("AfterCompaction", AfterCompaction::NAME),
            ("SubagentStop", SubagentStop::NAME),
            ("OutboundMessage", OutboundMessage::NAME),
            ("TurnEnded", TurnEnded::NAME),
            ("Notify", Notify::NAME),
        ];
        for point in BUILTIN_POINTS {
            let (_, name) = types
                .iter()
                .find(|(type_name, _)| *type_name == point.type_name)
                .unwrap_or_else(|| panic!("no point type `{}` in hooks-core", point.type_name));
            assert_eq!(*name, point.name, "`points::{}::NAME`", point.type_name);
        }
        assert_eq!(BUILTIN_POINTS.len(), types.len());
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
