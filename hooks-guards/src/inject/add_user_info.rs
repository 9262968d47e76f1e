//! `add-user-info`: the user's login name, full name (when the system has one) and the host
//! name.
//!
//! ```yaml
//! extensions:
//!   add-user-info:
//!     enabled: true
//!     point: session_start   # default; or turn_start
//! ```
//!
//! The login name is `$USER` (else `$LOGNAME`, else `$USERNAME`); the full name is the first
//! field of the user's comment in `/etc/passwd`; the host name is read from
//! `/proc/sys/kernel/hostname`, `/etc/hostname`, `$HOSTNAME` or `$COMPUTERNAME`. What cannot be
//! found is said to be unknown.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{InjectAt, Injector, add_injector, no_args};
use crate::BuiltinExtension;
use hookchain_runtime::HooksBuilder;

/// The `add-user-info` injector and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{AddUserInfo, BuiltinsExt};
/// use hookchain::prelude::*;
///
/// let hooks = Hooks::builder().builtin(AddUserInfo::default()).build().unwrap();
/// assert!(hooks.session("doc").context()[0].starts_with("User:"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AddUserInfo {
    /// Where the information is added (default `session_start`).
    pub point: InjectAt,
}

impl Default for AddUserInfo {
    fn default() -> Self {
        AddUserInfo {
            point: InjectAt::SessionStart,
        }
    }
}

impl BuiltinExtension for AddUserInfo {
    const NAME: &'static str = "add-user-info";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        add_injector::<Self>(builder)
    }
}

impl Injector for AddUserInfo {
    const DOCKER_AGENT: &'static str = "add_user_info";

    fn point(&self) -> InjectAt {
        self.point
    }

    fn context_in(&self, _project: &Path) -> Option<String> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let login = var("USER")
            .or_else(|| var("LOGNAME"))
            .or_else(|| var("USERNAME"));
        let full = login.as_deref().and_then(full_name);
        let host = ["/proc/sys/kernel/hostname", "/etc/hostname"]
            .iter()
            .find_map(|f| {
                std::fs::read_to_string(f)
                    .ok()
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
            })
            .or_else(|| var("HOSTNAME"))
            .or_else(|| var("COMPUTERNAME"));
        let user = match (login, full) {
            (Some(login), Some(full)) => format!("{login} ({full})"),
            (Some(login), None) => login,
            (None, _) => "unknown".to_owned(),
        };
        Some(format!(
            "User: {user}\nHost: {}",
            host.as_deref().unwrap_or("unknown")
        ))
    }

    fn from_docker_agent_args(args: &[String]) -> Result<Self, String> {
        no_args("add_user_info", args).map(|()| AddUserInfo::default())
    }
}

/// The full name `/etc/passwd` gives `login`: the first comma-separated field of its comment.
fn full_name(login: &str) -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd_full_name(&passwd, login)
}

fn passwd_full_name(passwd: &str, login: &str) -> Option<String> {
    passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.first() == Some(&login))
        .and_then(|fields| {
            fields
                .get(4)
                .map(|gecos| gecos.split(',').next().unwrap_or(""))
        })
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::passwd_full_name;

    #[test]
    fn the_full_name_is_the_first_field_of_the_comment() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\nada:x:1000:1000:Ada Lovelace,,,:/home/ada:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/sh\n";
        assert_eq!(
            passwd_full_name(passwd, "ada").as_deref(),
            Some("Ada Lovelace")
        );
        assert_eq!(passwd_full_name(passwd, "bob"), None);
        assert_eq!(passwd_full_name(passwd, "carol"), None);
    }
}
