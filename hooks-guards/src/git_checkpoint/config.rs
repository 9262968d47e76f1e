//! The guard's config ([`GitCheckpoint`], the `git-checkpoint` section) and how docker-agent's
//! `snapshot` builtin reads as it.
//!
//! # The rules it keeps
//!
//! - Unknown keys are refused; every key has a default (snapshots at `turn_start` and before
//!   the write, edit and shell tools the other guards know, 2 MiB per file, 256 MiB per
//!   snapshot, 10 s per snapshot, not required).
//! - A docker-agent `snapshot` entry enables the guard with every trigger off, then turns on
//!   its own trigger; entries of one file add up.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// docker-agent's name for its shadow-git snapshots builtin, which loads as this guard
/// ([`GitCheckpoint::docker_agent_section`]).
pub const DOCKER_AGENT: &str = "snapshot";

/// The `git-checkpoint` guard and its config (see the [module docs](crate::git_checkpoint)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GitCheckpoint {
    /// A snapshot at the start of every turn (default `true`).
    pub turn_start: bool,
    /// A snapshot before these tools run; `"*"` is every tool, `[]` none (default: the write
    /// and edit tools `protected-paths` knows and the shell tools `destructive-commands`
    /// knows).
    pub tools: Vec<String>,
    /// A snapshot when the turn ends, whatever the reason (default `false`).
    pub turn_end: bool,
    /// The project whose files are snapshotted (default: the session's project directory).
    pub project_dir: Option<String>,
    /// Where the shadow repositories live (default: `$XDG_STATE_HOME/hookchain/checkpoints`,
    /// else `~/.local/state/hookchain/checkpoints`).
    pub dir: Option<String>,
    /// Files larger than this many bytes are left out (default 2 MiB).
    pub max_file_bytes: u64,
    /// The files of one snapshot add up to at most this many bytes; those that do not fit are
    /// left out, with a warning (default 256 MiB).
    pub max_total_bytes: u64,
    /// The time limit of one snapshot, all its git commands together, in milliseconds
    /// (default 10000).
    pub timeout_ms: u64,
    /// A snapshot that fails blocks the turn or the tool call it was for, instead of warning
    /// (default `false`).
    pub required: bool,
}

impl Default for GitCheckpoint {
    fn default() -> Self {
        let mut tools = crate::ProtectedPaths::default().write_tools;
        tools.extend(crate::DestructiveCommands::default().shell_tools);
        GitCheckpoint {
            turn_start: true,
            tools,
            turn_end: false,
            project_dir: None,
            dir: None,
            max_file_bytes: 2 * 1024 * 1024,
            max_total_bytes: 256 * 1024 * 1024,
            timeout_ms: 10_000,
            required: false,
        }
    }
}

impl GitCheckpoint {
    /// The section a docker-agent `{type: builtin, command: snapshot}` entry of the event whose
    /// point is `point` (and, on tool events, whose group has `matcher`) makes, put over the
    /// section earlier `snapshot` entries of the same file made (`existing`): the first one
    /// enables the guard with every trigger off, and each entry turns on its own —
    /// `session_start` and `turn_start` a snapshot at the turn's start (the first turn starts
    /// where the session does), `pre_tool_use` (and docker-agent's other tool-call phases)
    /// before the tools its matcher names (a matcher that is not a plain list of names, `*`
    /// or none: every tool), `turn_end`, `session_end` and `post_tool_use` at the turn's end
    /// (the files after a tool are those before the next write or at the turn's end).
    /// `snapshot` takes no `args`. Unlike docker-agent, which does nothing outside a git
    /// repository, the guard snapshots a plain directory too.
    ///
    /// ```
    /// use hookchain::guards::GitCheckpoint;
    ///
    /// let first = GitCheckpoint::docker_agent_section(None, "turn_start", None, &[]).unwrap();
    /// let both =
    ///     GitCheckpoint::docker_agent_section(Some(&first), "intercept_tool_call", Some("shell|edit_file"), &[])
    ///         .unwrap();
    /// assert_eq!(both["turn_start"], true);
    /// assert_eq!(both["tools"], serde_json::json!(["shell", "edit_file"]));
    /// assert_eq!(both["turn_end"], false);
    /// ```
    pub fn docker_agent_section(
        existing: Option<&Value>,
        point: &str,
        matcher: Option<&str>,
        args: &[String],
    ) -> Result<Value, String> {
        if !args.is_empty() {
            return Err(format!("`snapshot` takes no `args`, found {args:?}"));
        }
        let mut section = existing.cloned().unwrap_or_else(|| {
            serde_json::json!({
                "enabled": true,
                "turn_start": false,
                "tools": [],
                "turn_end": false,
                "project_dir": null,
            })
        });
        let Some(map) = section.as_object_mut() else {
            return Err("the `git-checkpoint` section is not a mapping".to_owned());
        };
        match point {
            "session_start" | "turn_start" => {
                map.insert("turn_start".to_owned(), true.into());
            }
            "intercept_tool_call" => {
                let mut tools: Vec<String> = map
                    .get("tools")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                let names = matcher.filter(|m| !m.is_empty() && *m != "*").filter(|m| {
                    m.split('|').all(|name| {
                        !name.is_empty()
                            && name
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || "_-:".contains(c))
                    })
                });
                match names {
                    Some(names) => {
                        for name in names.split('|') {
                            if !tools.iter().any(|t| t == name) {
                                tools.push(name.to_owned());
                            }
                        }
                    }
                    None => tools = vec!["*".to_owned()],
                }
                if tools.iter().any(|t| t == "*") {
                    tools = vec!["*".to_owned()];
                }
                map.insert("tools".to_owned(), tools.into());
            }
            "turn_end" | "session_end" | "transform_tool_result" | "after_tool_call" => {
                map.insert("turn_end".to_owned(), true.into());
            }
            other => {
                return Err(format!(
                    "`snapshot` runs on session_start, turn_start, pre_tool_use, post_tool_use, \
                     turn_end or session_end, not on `{other}`"
                ));
            }
        }
        Ok(section)
    }
}
