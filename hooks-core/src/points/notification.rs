//! The payload of `notification`: what the runtime and the agent tell the user and the hooks
//! ([`Notification`]), how serious it is ([`Level`]) and what it is about
//! ([`NotificationKind`]). It names nothing else of the crate, so every part of it can report
//! through it.

use serde::{Deserialize, Serialize};

/// How serious a notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// For information.
    Info,
    /// Something went wrong but the agent goes on.
    Warning,
    /// Something failed.
    Error,
}

/// What a notification is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationKind {
    /// A warning or an error of the runtime or the agent (a hook failed, a redo cap was
    /// reached, a turn failed).
    #[default]
    General,
    /// The agent reached its cap of model calls for one run (`Turn::max_iterations_reached`);
    /// docker-agent's and Starchild's `on_max_iterations`.
    MaxIterations,
    /// The agent waits for the user's input (`Turn::waiting_for_user`); docker-agent's
    /// `on_user_input`, Claude Code's `idle_prompt` notification.
    UserInput,
    /// The agent asks the user to confirm a tool call; Claude Code's `permission_prompt`
    /// notification.
    PermissionPrompt,
}

/// The payload of `notification`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    /// How serious it is.
    pub level: Level,
    /// What happened.
    pub message: String,
    /// What it is about: a hook's name, a point, a session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// What kind of notification it is ([`NotificationKind::General`] unless the agent says).
    #[serde(default)]
    pub kind: NotificationKind,
}

impl Notification {
    /// A general notification of `level` saying `message`, with no source.
    ///
    /// ```
    /// use hookchain::points::{Level, Notification, NotificationKind};
    ///
    /// let n = Notification::new(Level::Error, "the model call failed").source("llm");
    /// assert_eq!(n.kind, NotificationKind::General);
    /// assert_eq!(n.source.as_deref(), Some("llm"));
    /// ```
    pub fn new(level: Level, message: impl Into<String>) -> Self {
        Notification {
            level,
            message: message.into(),
            source: None,
            kind: NotificationKind::General,
        }
    }

    /// An error (what `on_error` hooks fire for).
    pub fn error(message: impl Into<String>) -> Self {
        Notification::new(Level::Error, message)
    }

    /// The same notification, about `source`.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The same notification, of `kind`.
    pub fn kind(mut self, kind: NotificationKind) -> Self {
        self.kind = kind;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A notification written without a kind (an older agent, a test payload) is a general one.
    #[test]
    fn a_notification_without_a_kind_is_general() {
        let n: Notification =
            serde_json::from_value(serde_json::json!({"level": "error", "message": "m"})).unwrap();
        assert_eq!(n, Notification::error("m"));
        let json = serde_json::to_value(
            Notification::new(Level::Info, "w").kind(NotificationKind::UserInput),
        )
        .unwrap();
        assert_eq!(json["kind"], "user_input");
    }
}
