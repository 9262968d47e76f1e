//! Messages leaving the agent, on the wire: `outbound_message` and `notification` (with the
//! events that name some notifications: `on_error`, `on_max_iterations`, `on_user_input`).

use hookchain_core::points::{Notify, OutboundMessage};
use hookchain_core::{
    Dialect, HookContext, HookResult, Level, Notification, NotificationKind, Observed, Outbound,
};
use serde_json::{Map, Value};

use super::apply::{Context, apply, observe};
use super::tables::notification_type;
use super::{Subject, WirePoint, fields, json, put_opt};
use crate::answer::Answer;

impl WirePoint for OutboundMessage {
    fn fields(input: &Outbound) -> Map<String, Value> {
        fields([
            ("platform", Value::from(input.platform.as_str())),
            ("recipient", Value::from(input.recipient.as_str())),
            ("message", Value::from(input.text.as_str())),
            ("text", Value::from(input.text.as_str())),
            ("notification", Value::from(input.text.as_str())),
            ("channel", Value::from(input.platform.as_str())),
        ])
    }

    fn apply_answer(_: &Outbound, decision: Answer, cx: &HookContext<'_>) -> HookResult<String> {
        apply(decision, cx, Context::Drop, |d| {
            let text = d.updated_text.take();
            let notification = d.notification.take();
            text.or(notification)
        })
    }
}

impl WirePoint for Notify {
    fn fields(input: &Notification) -> Map<String, Value> {
        let mut map = fields([
            ("message", Value::from(input.message.as_str())),
            ("level", json(&input.level)),
            ("kind", json(&input.kind)),
        ]);
        put_opt(&mut map, "source", input.source.as_deref());
        map
    }

    fn dialect_fields(input: &Notification, dialect: Dialect, map: &mut Map<String, Value>) {
        match dialect {
            Dialect::DockerAgent => {
                map.insert("notification_level".to_owned(), json(&input.level));
                map.insert(
                    "notification_message".to_owned(),
                    Value::from(input.message.as_str()),
                );
            }
            Dialect::ClaudeCode => put_opt(map, "notification_type", notification_type(input.kind)),
            _ => {}
        }
    }

    fn fires_for(input: &Notification, event: &str, _: Dialect) -> bool {
        match event {
            "on_error" => input.level == Level::Error,
            "on_max_iterations" => input.kind == NotificationKind::MaxIterations,
            "on_user_input" => input.kind == NotificationKind::UserInput,
            _ => true,
        }
    }

    fn event_subject(input: &Notification, dialect: Dialect) -> Subject {
        // Claude Code filters on `notification_type` (`permission_prompt`, `idle_prompt`, …);
        // a notification of none of its types passes only a matcher for everything.
        match (dialect, notification_type(input.kind)) {
            (Dialect::ClaudeCode, Some(kind)) => Subject::Value(kind.to_owned()),
            (Dialect::ClaudeCode, None) => Subject::Unknown,
            _ => Subject::Unfiltered,
        }
    }

    fn apply_answer(
        _: &Notification,
        decision: Answer,
        cx: &HookContext<'_>,
    ) -> HookResult<Observed> {
        observe(decision, cx, Context::Add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::testing::dialect_payload;
    use serde_json::json;

    #[test]
    fn notifications_in_claude_codes_and_docker_agents_names() {
        let note = Notification {
            level: Level::Error,
            message: "m".into(),
            source: None,
            kind: NotificationKind::General,
        };
        assert_eq!(
            Notify::event_subject(&note, Dialect::ClaudeCode),
            Subject::Unknown
        );
        let map = dialect_payload::<Notify>(Dialect::DockerAgent, &note);
        assert_eq!(
            (&map["notification_level"], &map["notification_message"]),
            (&json!("error"), &json!("m"))
        );
    }
}
