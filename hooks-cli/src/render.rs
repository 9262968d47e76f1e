//! The words and figures the commands print for a hook: its consent (`approved`, `new`,
//! `drifted`), what its matcher applies to (`tool:Bash`), its time limit and how long it took.

use std::time::Duration;

use hookchain_config::consent::ConsentStatus;
use hookchain_external::ExternalHook;
use hookchain_external::hook;

use crate::point::TOOL_POINTS;

/// `approved`, `new` or `drifted`.
pub(crate) fn consent_word(status: &ConsentStatus) -> &'static str {
    match status {
        ConsentStatus::Approved => "approved",
        ConsentStatus::New => "new",
        ConsentStatus::Drifted { .. } => "drifted",
    }
}

/// The matcher and what it applies to, one word: `tool:Bash`, `source:compact`,
/// `content:rm -rf`; `*` when it lets everything through, `-` when it is not consulted.
pub(crate) fn matcher_text(hook: &ExternalHook) -> String {
    let applies_to = if hook.matcher.reads_content() {
        Some("content")
    } else if TOOL_POINTS.contains(&hook.point) {
        Some("tool")
    } else {
        hookchain_external::wire::subject_field(hook::dialect(hook), hook.point, &hook.event)
    };
    match applies_to {
        None => "-".to_owned(),
        Some(_) if hook.matcher.is_all() => "*".to_owned(),
        Some(what) => format!("{what}:{}", hook.matcher.as_str().trim()),
    }
}

/// A time limit: `60s`, `0.5s`.
pub(crate) fn seconds(duration: Duration) -> String {
    format!("{}s", duration.as_secs_f64())
}

/// How long something took: `12.3 ms`.
pub(crate) fn millis(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matcher_column_says_what_the_matcher_applies_to() {
        use hookchain_external::{
            CommandSpec, ConfigOrigin, Dialect, ExternalHook, Matcher, OnError, Transport,
        };
        let hook = |point: &'static str, event: &str, dialect, matcher: &str| ExternalHook {
            point,
            event: event.to_owned(),
            name: "h".to_owned(),
            transport: Transport::Command(CommandSpec {
                argv: vec!["true".to_owned()],
                display: "true".to_owned(),
                env: Default::default(),
                working_dir: None,
                env_clear: false,
                env_allow: Vec::new(),
            }),
            matcher: Matcher::parse(dialect, matcher).unwrap(),
            timeout: Duration::from_secs(1),
            priority: 0,
            on_error: OnError::Pass,
            dialect,
            origin: ConfigOrigin::Code,
            required: false,
        };
        let text = |h: ExternalHook| matcher_text(&h);
        assert_eq!(
            text(hook(
                "intercept_tool_call",
                "PreToolUse",
                Dialect::ClaudeCode,
                "Bash"
            )),
            "tool:Bash"
        );
        assert_eq!(
            text(hook(
                "session_start",
                "SessionStart",
                Dialect::ClaudeCode,
                "compact"
            )),
            "source:compact"
        );
        assert_eq!(
            text(hook(
                "session_start",
                "SubagentStart",
                Dialect::ClaudeCode,
                "Explore"
            )),
            "agent_type:Explore"
        );
        // Codex and Gemini CLI filter a session start on its source, as Claude Code does.
        assert_eq!(
            text(hook(
                "session_start",
                "SessionStart",
                Dialect::Codex,
                "startup|resume"
            )),
            "source:startup|resume"
        );
        assert_eq!(
            text(hook(
                "session_start",
                "SessionStart",
                Dialect::Gemini,
                "startup"
            )),
            "source:startup"
        );
        assert_eq!(
            text(hook(
                "permission_request",
                "PermissionRequest",
                Dialect::ClaudeCode,
                "Bash"
            )),
            "tool:Bash"
        );
        assert_eq!(
            text(hook(
                "session_start",
                "on_session_start",
                Dialect::Hermes,
                "x"
            )),
            "-"
        );
        assert_eq!(
            text(hook("on_stop", "on_stop", Dialect::Starchild, "publish")),
            "content:publish"
        );
        assert_eq!(
            text(hook(
                "intercept_tool_call",
                "PreToolUse",
                Dialect::ClaudeCode,
                "*"
            )),
            "*"
        );
    }
}
