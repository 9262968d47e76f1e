//! docker-agent's agent YAML `hooks:` blocks, read as docker-agent reads them.
//!
//! ```yaml
//! agents:
//!   root:
//!     model: openai/gpt-4o
//!     hooks:
//!       pre_tool_use:                      # tool events: matcher groups
//!         - matcher: "shell|edit_file"
//!           hooks:
//!             - type: command
//!               command: ./scripts/validate-command.sh
//!               timeout: 30
//!       session_start:                     # other events: hooks directly
//!         - type: command
//!           command: ./scripts/setup-env.sh
//!           working_dir: ./hooks
//!           env: {PROFILE: dev}
//!           on_error: warn                 # warn | ignore | block
//! ```
//!
//! - The hooks of every agent of the file are read, agent after agent in file order; every other
//!   key of the file and of each agent is docker-agent's own and is left alone.
//! - An event is a point of the catalog by docker-agent's name for it (`pre_tool_use` is
//!   `intercept_tool_call`, `stop` is `on_stop`, `on_user_input` is `notification` when the
//!   agent waits for the user). docker-agent events hookchain has no point for
//!   (`on_agent_switch`, `on_session_resume`, …) are left out with a warning; any other name is
//!   an error with the closest known name.
//! - An item of an event's list is a matcher group when it has `hooks` (`matcher` is a regular
//!   expression that must match the whole tool name; empty or `*` is every tool), and a hook
//!   for every tool otherwise.
//! - `type: command` runs its `command` with `sh -c`, as docker-agent does, with `env` added,
//!   in the agent file's directory, or in its `working_dir` taken from there. (docker-agent runs
//!   hooks in the directory it was started in, which is the file's directory when it is started
//!   next to its agent file; hookchain does not depend on where the agent was started.) A line
//!   that starts with a path must name an executable file when the file is loaded.
//!   `type: builtin` and `type: model` run inside docker-agent; hookchain leaves them out with
//!   a warning.
//! - `env` names are POSIX portable names: letters, digits and `_`, not starting with a digit.
//! - `timeout` is in seconds (default 60, from 0.001 to 600; `.nan` and `.inf` are errors, not
//!   the default). `on_error: warn` is
//!   [`OnError::Warn`], `ignore` (and the default) is [`OnError::Pass`], `block` is
//!   [`OnError::Block`]; `pre_tool_use` hooks always fail closed
//!   ([`OnError::Block`]) whatever `on_error` says, as in docker-agent.
//! - `name` names the hook; without one it is `<file>#<n>`. Priority is [`DEFAULT_PRIORITY`].

use hooks_core::{ConfigError, PathSegment};
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

use crate::entry::{Entry, Event, FileContext, at, describe_below, json_kind};
use crate::position::{yaml_key, yaml_kind};
use hooks_external::program::shell_argv;
use hooks_external::{
    CommandSpec, DEFAULT_PRIORITY, DEFAULT_TIMEOUT, ExternalHook, Matcher, OnError, Transport,
};

/// Every event name docker-agent has, for "did you mean".
const EVENTS: &[&str] = &[
    "pre_tool_use",
    "tool_response_transform",
    "post_tool_use",
    "session_start",
    "user_prompt_submit",
    "turn_start",
    "turn_end",
    "before_llm_call",
    "after_llm_call",
    "session_end",
    "pre_compact",
    "before_compaction",
    "after_compaction",
    "subagent_stop",
    "stop",
    "notification",
    "on_error",
    "on_max_iterations",
];

/// docker-agent events without a hookchain point: left out with a warning.
const UNSUPPORTED: &[&str] = &[
    "on_agent_switch",
    "on_session_resume",
    "on_tool_approval_decision",
    "user_steering_messages_submit",
    "user_followup_submit",
    "tool_input_transform",
    "tool_guard",
    "worktree_create",
];

const GROUP_KEYS: &[&str] = &["matcher", "hooks"];

const HOOK_KEYS: &[&str] = &[
    "name",
    "type",
    "command",
    "args",
    "timeout",
    "working_dir",
    "env",
    "on_error",
    "model",
    "prompt",
    "schema",
];

const TYPES: &[&str] = &["command", "builtin", "model"];

const ON_ERROR: &[(&str, OnError)] = &[
    ("warn", OnError::Warn),
    ("ignore", OnError::Pass),
    ("block", OnError::Block),
];

/// Reads an agent YAML document.
pub(crate) fn read(
    cx: &FileContext<'_>,
    document: Yaml,
) -> Result<(Vec<Entry>, Vec<String>), ConfigError> {
    let agents_path = vec![PathSegment::Key("agents".to_owned())];
    let agents = match document {
        Yaml::Mapping(mut top) => match top.remove("agents") {
            Some(Yaml::Mapping(agents)) => agents,
            Some(Yaml::Null) => return Ok((Vec::new(), Vec::new())),
            Some(other) => {
                return Err(cx.error(
                    "`agents`",
                    &agents_path,
                    format!(
                        "expected a mapping from agent names to agents, found {}",
                        yaml_kind(&other)
                    ),
                ));
            }
            None => {
                return Err(cx.error(
                    "the file",
                    &[],
                    "has no `agents:`, so it is not a docker-agent agent file",
                ));
            }
        },
        other => {
            return Err(cx.error(
                "the file",
                &[],
                format!(
                    "expected a docker-agent agent file (a mapping with `agents:`), found {}",
                    yaml_kind(&other)
                ),
            ));
        }
    };
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for (agent, config) in agents {
        let agent = yaml_key(&agent);
        let agent_path = at(&agents_path, agent.as_str());
        let hooks = match config {
            Yaml::Mapping(mut config) => config.remove("hooks"),
            Yaml::Null => None,
            other => {
                return Err(cx.error(
                    format!("agent `{agent}`"),
                    &agent_path,
                    format!("expected a mapping, found {}", yaml_kind(&other)),
                ));
            }
        };
        let hooks_path = at(&agent_path, "hooks");
        let events = match hooks {
            None | Some(Yaml::Null) => continue,
            Some(Yaml::Mapping(events)) => events,
            Some(other) => {
                return Err(cx.error(
                    format!("`hooks` of agent `{agent}`"),
                    &hooks_path,
                    format!(
                        "expected a mapping from events to lists of hooks, found {}",
                        yaml_kind(&other)
                    ),
                ));
            }
        };
        for (event, list) in events {
            let event = yaml_key(&event);
            let path = at(&hooks_path, event.as_str());
            let point = match cx.event(&event, &path, EVENTS, UNSUPPORTED)? {
                Event::Point(point) => point.name,
                Event::Unsupported => {
                    warnings.push(format!(
                        "{}: docker-agent's event `{event}` has no hookchain point; its hooks \
                         are left out",
                        cx.place(&path)
                    ));
                    continue;
                }
            };
            let event_subject = format!("`{event}` of agent `{agent}`");
            let list = match cx.yaml_json(&list, &path, |below| {
                hook_subject(&list, below, &event_subject)
            })? {
                Value::Null => continue,
                Value::Array(list) => list,
                other => {
                    return Err(cx.error(
                        event_subject,
                        &path,
                        format!("expected a list of hooks, found {}", json_kind(&other)),
                    ));
                }
            };
            for (i, item) in list.iter().enumerate() {
                let path = at(&path, i);
                let Value::Object(fields) = item else {
                    return Err(cx.error(
                        format!("item #{} of {event_subject}", i + 1),
                        &path,
                        format!(
                            "expected a hook (`type: command`) or a matcher group (`matcher:` \
                             and `hooks:`), found {}",
                            json_kind(item)
                        ),
                    ));
                };
                if fields.contains_key("hooks") {
                    let subject = format!("matcher #{} of {event_subject}", i + 1);
                    cx.known_keys(&subject, fields, &path, GROUP_KEYS)?;
                    let matcher = cx.matcher(
                        &format!("`matcher` of {subject}"),
                        fields.get("matcher"),
                        &at(&path, "matcher"),
                    )?;
                    let hooks_path = at(&path, "hooks");
                    let Value::Array(hooks) = &fields["hooks"] else {
                        return Err(cx.error(
                            format!("`hooks` of {subject}"),
                            &hooks_path,
                            format!(
                                "expected a list of hooks, found {}",
                                json_kind(&fields["hooks"])
                            ),
                        ));
                    };
                    for (h, hook) in hooks.iter().enumerate() {
                        let path = at(&hooks_path, h);
                        let subject = format!("hook #{} of {subject}", h + 1);
                        let Value::Object(hook) = hook else {
                            return Err(cx.error(
                                subject,
                                &path,
                                format!(
                                    "expected a hook (`type: command`), found {}",
                                    json_kind(hook)
                                ),
                            ));
                        };
                        let read = ReadHook {
                            cx,
                            event: &event,
                            point,
                            subject: &subject,
                            fields: hook,
                            path: &path,
                        };
                        if let Some(entry) = read.entry(matcher.clone(), &mut warnings)? {
                            entries.push(entry);
                        }
                    }
                } else {
                    let subject = format!("hook #{} of {event_subject}", i + 1);
                    let read = ReadHook {
                        cx,
                        event: &event,
                        point,
                        subject: &subject,
                        fields,
                        path: &path,
                    };
                    if let Some(entry) = read.entry(Matcher::all(), &mut warnings)? {
                        entries.push(entry);
                    }
                }
            }
        }
    }
    Ok((entries, warnings))
}

/// The value at `below` in an event's `list` of hooks, named as the rest of this file names it:
/// `hook #2 of matcher #1 of …` inside a matcher group, `hook #1 of …` outside one.
fn hook_subject(list: &Yaml, below: &[PathSegment], event_subject: &str) -> String {
    let [PathSegment::Index(i), rest @ ..] = below else {
        return describe_below(below, event_subject);
    };
    if list.get(*i).and_then(|item| item.get("hooks")).is_none() {
        return describe_below(rest, &format!("hook #{} of {event_subject}", i + 1));
    }
    let group = format!("matcher #{} of {event_subject}", i + 1);
    match rest {
        [PathSegment::Key(hooks), PathSegment::Index(h), rest @ ..] if hooks == "hooks" => {
            describe_below(rest, &format!("hook #{} of {group}", h + 1))
        }
        _ => describe_below(rest, &group),
    }
}

/// One hook definition.
struct ReadHook<'a> {
    cx: &'a FileContext<'a>,
    event: &'a str,
    point: &'static str,
    subject: &'a str,
    fields: &'a Map<String, Value>,
    path: &'a [PathSegment],
}

impl ReadHook<'_> {
    /// The hook, or `None` when it is left out (with a warning).
    fn entry(
        &self,
        matcher: Matcher,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Entry>, ConfigError> {
        let cx = self.cx;
        cx.known_keys(self.subject, self.fields, self.path, HOOK_KEYS)?;
        let field = |key: &str| self.fields.get(key).filter(|v| !v.is_null());
        let key_subject = |key: &str| format!("`{key}` of {}", self.subject);
        let key_path = |key: &str| at(self.path, key);
        let Some(kind) = field("type") else {
            return Err(cx.error(self.subject, self.path, "has no `type` (`command`)"));
        };
        match cx.string(&key_subject("type"), kind, &key_path("type"))? {
            "command" => {}
            kind @ ("builtin" | "model") => {
                warnings.push(format!(
                    "{}: a `{kind}` hook of `{}` runs inside docker-agent; hookchain runs \
                     `command` hooks only, so it is left out",
                    cx.place(self.path),
                    self.event
                ));
                return Ok(None);
            }
            other => {
                let hint = hooks_core::suggest::closest(other, TYPES.iter().copied())
                    .map(|s| format!(", did you mean `{s}`?"))
                    .unwrap_or_else(|| " (`command`, `builtin` or `model`)".to_owned());
                return Err(cx.error(
                    key_subject("type"),
                    &key_path("type"),
                    format!("unknown hook type `{other}`{hint}"),
                ));
            }
        }
        if let Some(key) = ["args", "model", "prompt", "schema"]
            .into_iter()
            .find(|k| field(k).is_some())
        {
            return Err(cx.error(
                key_subject(key),
                &key_path(key),
                "applies to `builtin` and `model` hooks, and this is a `command` hook",
            ));
        }
        let Some(line) = field("command") else {
            return Err(cx.error(self.subject, self.path, "has no `command`"));
        };
        let line = cx.string(&key_subject("command"), line, &key_path("command"))?;
        let dir = std::path::absolute(cx.dir()).unwrap_or_else(|_| cx.dir());
        let working_dir = match field("working_dir") {
            Some(v) => {
                let relative =
                    cx.string(&key_subject("working_dir"), v, &key_path("working_dir"))?;
                std::path::absolute(dir.join(relative)).unwrap_or_else(|_| dir.join(relative))
            }
            None => dir.clone(),
        };
        cx.check_shell_line(
            &key_subject("command"),
            line,
            &working_dir,
            &dir,
            &key_path("command"),
        )?;
        let spec = CommandSpec {
            argv: shell_argv(line),
            display: line.to_owned(),
            env: match field("env") {
                Some(v) => cx.env_map(&key_subject("env"), v, &key_path("env"))?,
                None => Default::default(),
            },
            working_dir: Some(working_dir),
            env_clear: false,
            env_allow: Vec::new(),
        };
        let mut on_error = match field("on_error") {
            Some(v) => {
                cx.failure_policy(&key_subject("on_error"), v, &key_path("on_error"), ON_ERROR)?
            }
            None => OnError::Pass,
        };
        if self.event == "pre_tool_use" {
            on_error = OnError::Block;
        }
        let name = match field("name") {
            Some(v) => Some(
                cx.string(&key_subject("name"), v, &key_path("name"))?
                    .to_owned(),
            ),
            None => None,
        }
        .filter(|n| !n.trim().is_empty());
        Ok(Some(Entry {
            name,
            hook: ExternalHook {
                point: self.point,
                event: self.event.to_owned(),
                name: String::new(),
                transport: Transport::Command(spec),
                matcher,
                timeout: match field("timeout") {
                    Some(v) => cx.timeout(&key_subject("timeout"), v, &key_path("timeout"))?,
                    None => DEFAULT_TIMEOUT,
                },
                priority: DEFAULT_PRIORITY,
                on_error,
                flavor: cx.flavor,
                required: false,
                origin: cx.hook_origin(self.path),
            },
        }))
    }
}
