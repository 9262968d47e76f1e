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
//!   `intercept_tool_call`, `stop` is `on_stop`, `turn_start` is `turn_start`,
//!   `permission_request` is `permission_request`, `on_user_input` is `notification` when the
//!   agent waits for the user). docker-agent events hookchain has no point for
//!   (`on_agent_switch`, `on_session_resume`, …), and any name it does not know, are left out
//!   with a warning naming them — never a "did you mean" toward a different real event.
//! - One entry that cannot be honoured (an unknown key, a malformed value, a bad matcher) costs
//!   that entry only: it is left out with a warning naming the file, the line and the problem,
//!   and the file's other hooks load. An entry of an event whose hooks fail closed
//!   (`pre_tool_use`) that cannot be loaded blocks its point instead, naming where it is and
//!   why. Every warning reaches every session through `notification`.
//! - An item of an event's list is a matcher group when it has `hooks` (`matcher` is a regular
//!   expression that must match the whole tool name; empty or `*` is every tool), and a hook
//!   for every tool otherwise.
//! - `tool_input_transform` and `tool_guard`, docker-agent's tool-call phases ahead of approval,
//!   are `intercept_tool_call` hooks run in docker-agent's order, before the file's other hooks
//!   of that point: `tool_input_transform` (rewrites the arguments), `tool_guard` (fails closed:
//!   "no safety mode bypasses it"), the `pre_tool_use` groups marked `preempt_yolo: true`, then
//!   the other `pre_tool_use` hooks. hookchain has no permission mode that skips hooks, so every
//!   hook already runs whatever the agent's `--yolo`; `preempt_yolo` orders the group only (and,
//!   as in docker-agent, is valid on `pre_tool_use` alone).
//! - `type: command` runs its `command` with the user's `$SHELL -c` (else `sh -c`), as
//!   docker-agent does, with `env` added, in the agent file's directory, or in its
//!   `working_dir` (`~`, `$VAR` expanded) taken from there. (docker-agent runs hooks in the
//!   directory it was started in, which is the file's directory when it is started next to its
//!   agent file; hookchain does not depend on where the agent was started.) A line that starts
//!   with a path whose file does not exist (yet) or cannot run is, as in docker-agent, a
//!   runtime error of that one hook: it is kept, a warning names the file and line, and it
//!   fails at each firing under its policy. `type: builtin` entries of `session_start` and
//!   `turn_start` whose `command` names one of docker-agent's context builtins (`add_date`,
//!   `add_environment_info`, `add_prompt_files`, `add_git_status`, `add_git_diff`,
//!   `add_directory_listing`, `add_user_info`, `add_recent_commits`) enable hookchain's
//!   injector of that name (`add-date`, ...) on the entry's event, its `args` read into the
//!   injector's config (`[file, ...]`, `["full"]`, `["<N>"]`), when hookchain is built with
//!   its guards (the `guards` feature); args that do not fit cost that entry, with a warning.
//!   `type: builtin` `command: snapshot` entries (docker-agent's shadow-git snapshots) enable
//!   the `git-checkpoint` guard, each entry turning on its
//!   trigger: `session_start` and `turn_start` a checkpoint at the start of each turn,
//!   `pre_tool_use` one before the tools its matcher names (every tool for `*` or a regular
//!   expression), `post_tool_use`, `turn_end` and `session_end` one at the end of each turn
//!   (see `hookchain::guards::GitCheckpoint::docker_agent_section`).
//!   A `type: builtin` entry `max_iterations` of `before_llm_call` (`args: ["50"]`) enables the
//!   `max-iterations` guard with `max: 50` (with the `guards` feature); without a positive
//!   number, or under another event (where docker-agent's builtin does nothing), it is left
//!   out with a warning naming the file and line.
//!   An agent file is a repository's file like a project's `hookchain.yaml`: the sections its
//!   builtins imply are held to the project rule (the guide's config chapter) — each key said
//!   to be written by the entry that implies it —, so they may enable a guard or an injector
//!   and tighten it, never raise the user's `max-iterations`, switch off a checkpoint the
//!   user's file or the default takes, or have `add-prompt-files` read outside the project
//!   (`~/.aws/credentials` is refused, with a warning naming the entry's line). What a builtin
//!   only switches off or leaves as the default is not said at all, and an injector or
//!   checkpoint works in the session's project directory (the agent's, else the current
//!   directory), not one the file names.
//!   Other `type: builtin` entries, `type: model` and
//!   `type: evaluator` run inside docker-agent; hookchain leaves them out with a warning, and a
//!   command hook's `args`, `model`, `prompt`, … are ignored (with a warning), as docker-agent
//!   ignores them.
//! - `strict_output: true` is not applied, with a warning: the answer is read as every
//!   docker-agent answer is.
//! - `env` names are POSIX portable names: letters, digits and `_`, not starting with a digit.
//! - `timeout` is in seconds (default 60, from 0.001 to 600; `.nan` and `.inf` are errors, not
//!   the default). `on_error: warn` (and the default, as in docker-agent) is
//!   [`OnError::Warn`], `ignore` is [`OnError::Pass`], `block` is [`OnError::Block`];
//!   `pre_tool_use` and `tool_guard` hooks always fail closed ([`OnError::Block`]) whatever
//!   `on_error` says, as in docker-agent.
//! - `name` names the hook; without one it is `<file>#<n>`. Priority is [`DEFAULT_PRIORITY`].

use hookchain_core::{ConfigError, PathSegment};
use serde_json::{Map, Value};
use yaml_serde::Value as Yaml;

use crate::entry::{Entry, FileContext, Loaded, ValuePath, at, describe_below, json_kind};
use crate::position::{yaml_key, yaml_kind};
use hookchain_external::{
    CommandSpec, DEFAULT_PRIORITY, DEFAULT_TIMEOUT, ExternalHook, Matcher, OnError, Transport,
};

/// docker-agent's event names, for the hint when a name differs from one in case alone. An
/// event hookchain has no point for, and any name not known here, is left out with a warning
/// naming it.
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
    "permission_request",
    "on_user_input",
    "on_agent_switch",
    "on_session_resume",
    "on_tool_approval_decision",
    "user_steering_messages_submit",
    "user_followup_submit",
    "tool_input_transform",
    "tool_guard",
    "worktree_create",
];

const GROUP_KEYS: &[&str] = &["matcher", "hooks", "preempt_yolo"];

const HOOK_KEYS: &[&str] = &[
    "name",
    "type",
    "command",
    "args",
    "timeout",
    "working_dir",
    "env",
    "on_error",
    "strict_output",
    "model",
    "prompt",
    "schema",
    "system_prompt",
    "evaluator",
    "evaluator_policy",
    "routing_policy",
];

const TYPES: &[&str] = &["command", "builtin", "model", "evaluator"];

/// Where the tool-call phases of docker-agent run in `intercept_tool_call`'s chain, in
/// docker-agent's order: `tool_input_transform`, `tool_guard`, `pre_tool_use` entries marked
/// `preempt_yolo: true`, then the other `pre_tool_use` entries (at [`DEFAULT_PRIORITY`]).
fn phase_priority(event: &str, preempt_yolo: bool) -> i32 {
    match event {
        "tool_input_transform" => DEFAULT_PRIORITY - 3,
        "tool_guard" => DEFAULT_PRIORITY - 2,
        "pre_tool_use" if preempt_yolo => DEFAULT_PRIORITY - 1,
        _ => DEFAULT_PRIORITY,
    }
}

const ON_ERROR: &[(&str, OnError)] = &[
    ("warn", OnError::Warn),
    ("ignore", OnError::Pass),
    ("block", OnError::Block),
];

/// Reads an agent YAML document.
pub(crate) fn read(cx: &FileContext<'_>, document: Yaml) -> Result<Loaded, ConfigError> {
    let agents_path = vec![PathSegment::Key("agents".to_owned())];
    let agents = match document {
        Yaml::Mapping(mut top) => match top.remove("agents") {
            Some(Yaml::Mapping(agents)) => agents,
            Some(Yaml::Null) => return Ok(Loaded::default()),
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
    let mut loaded = Loaded {
        source: Some(cx.source.clone()),
        ..Loaded::default()
    };
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
            // docker-agent's tool-call phases that run ahead of `pre_tool_use` are
            // `intercept_tool_call` hooks too, earlier in its chain.
            let point = match event.as_str() {
                "tool_guard" | "tool_input_transform" => "intercept_tool_call",
                _ => match cx.agent_event(&event, &path, EVENTS, &mut loaded.warnings) {
                    Some(point) => point.name,
                    None => continue,
                },
            };
            let fails_closed = fails_closed(&event);
            let event_subject = format!("`{event}` of agent `{agent}`");
            let list = match cx.yaml_json(&list, &path, |below| {
                hook_subject(&list, below, &event_subject)
            }) {
                Ok(Value::Null) => continue,
                Ok(Value::Array(list)) => list,
                Ok(other) => {
                    let error = cx.error(
                        event_subject,
                        &path,
                        format!("expected a list of hooks, found {}", json_kind(&other)),
                    );
                    loaded.left_out(&error, point, fails_closed, &cx.hook_origin(&path));
                    continue;
                }
                Err(error) => {
                    loaded.left_out(&error, point, fails_closed, &cx.hook_origin(&path));
                    continue;
                }
            };
            for (i, item) in list.iter().enumerate() {
                let path = at(&path, i);
                let Value::Object(fields) = item else {
                    let error = cx.error(
                        format!("item #{} of {event_subject}", i + 1),
                        &path,
                        format!(
                            "expected a hook (`type: command`) or a matcher group (`matcher:` \
                             and `hooks:`), found {}",
                            json_kind(item)
                        ),
                    );
                    loaded.left_out(&error, point, fails_closed, &cx.hook_origin(&path));
                    continue;
                };
                if fields.contains_key("hooks") {
                    let subject = format!("matcher #{} of {event_subject}", i + 1);
                    let group = match read_group(cx, &event, &subject, fields, &path) {
                        Ok(group) => group,
                        Err(error) => {
                            loaded.left_out(&error, point, fails_closed, &cx.hook_origin(&path));
                            continue;
                        }
                    };
                    let (matcher, preempt_yolo, hooks_path, hooks) = group;
                    for (h, hook) in hooks.iter().enumerate() {
                        let path = at(&hooks_path, h);
                        let subject = format!("hook #{} of {subject}", h + 1);
                        let read = ReadHook {
                            cx,
                            event: &event,
                            point,
                            subject: &subject,
                            path: &path,
                            priority: phase_priority(&event, preempt_yolo),
                        };
                        let entry = read.entry(
                            hook,
                            matcher.clone(),
                            &mut loaded.warnings,
                            &mut loaded.sections,
                        );
                        loaded.take(entry, point, fails_closed, &cx.hook_origin(&path));
                    }
                } else {
                    let subject = format!("hook #{} of {event_subject}", i + 1);
                    let read = ReadHook {
                        cx,
                        event: &event,
                        point,
                        subject: &subject,
                        path: &path,
                        priority: phase_priority(&event, false),
                    };
                    let entry = read.entry(
                        item,
                        Matcher::all(),
                        &mut loaded.warnings,
                        &mut loaded.sections,
                    );
                    loaded.take(entry, point, fails_closed, &cx.hook_origin(&path));
                }
            }
        }
    }
    Ok(loaded)
}

/// The shell docker-agent runs its command hooks with: the user's `$SHELL`, else `sh`. (With
/// dash as `sh`, the examples' `echo "$INPUT" | jq` breaks on a payload holding `\n`.)
fn shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|shell| !shell.trim().is_empty())
        .unwrap_or_else(|| "sh".to_owned())
}

/// `true` for the events whose hooks fail closed whatever their `on_error` says, as in
/// docker-agent: a hook of theirs that cannot be loaded blocks its point.
fn fails_closed(event: &str) -> bool {
    matches!(event, "pre_tool_use" | "tool_guard")
}

/// A matcher group's matcher and its list of hooks (with the list's path).
/// `preempt_yolo: true` (only on `pre_tool_use`, as docker-agent checks) puts the group's hooks
/// ahead of the other `pre_tool_use` hooks; hookchain has no permission mode that skips hooks,
/// so every hook "preempts --yolo" already.
fn read_group<'v>(
    cx: &FileContext<'_>,
    event: &str,
    subject: &str,
    fields: &'v Map<String, Value>,
    path: &[PathSegment],
) -> Result<(Matcher, bool, ValuePath, &'v Vec<Value>), ConfigError> {
    cx.known_keys(subject, fields, path, GROUP_KEYS)?;
    let preempt_yolo = match fields.get("preempt_yolo").filter(|v| !v.is_null()) {
        Some(v) => {
            let preempt_path = at(path, "preempt_yolo");
            let preempt = cx.boolean(&format!("`preempt_yolo` of {subject}"), v, &preempt_path)?;
            if event != "pre_tool_use" {
                return Err(cx.error(
                    format!("`preempt_yolo` of {subject}"),
                    &preempt_path,
                    "is only valid on `pre_tool_use`",
                ));
            }
            preempt
        }
        None => false,
    };
    let matcher = cx.matcher(
        &format!("`matcher` of {subject}"),
        fields.get("matcher"),
        &at(path, "matcher"),
    )?;
    let hooks_path = at(path, "hooks");
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
    Ok((matcher, preempt_yolo, hooks_path, hooks))
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
    path: &'a [PathSegment],
    /// Its place in the point's chain ([`phase_priority`]).
    priority: i32,
}

impl ReadHook<'_> {
    /// A `type: builtin` entry whose `command` is one of the built-in context injectors
    /// (`add_date`, ...) on `session_start` or `turn_start`, `max_iterations`, or `snapshot` on
    /// any of its events: `true` when it is, and its section (enabled, `args` read into its
    /// config, for an injector the entry's event as its point or, for `snapshot`, its trigger,
    /// put over the section of the file's earlier `snapshot` entries) is in `sections`. `false`
    /// for any other builtin, which is left out with a warning; an error when its `args` (or,
    /// for `max_iterations`, its event) do not fit.
    #[cfg(feature = "guards")]
    fn injector(
        &self,
        fields: &Map<String, Value>,
        matcher: &Matcher,
        sections: &mut Vec<(String, Value, ValuePath)>,
    ) -> Result<bool, ConfigError> {
        use hookchain_guards::BuiltinExtension;
        let cx = self.cx;
        let Some(Value::String(name)) = fields.get("command") else {
            return Ok(false);
        };
        let args_path = at(self.path, "args");
        let args: Vec<String> = match fields.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
            Some(other) => {
                return Err(cx.error(
                    format!("`args` of {}", self.subject),
                    &args_path,
                    format!("expected a list of strings, found {}", json_kind(other)),
                ));
            }
        };
        if name == hookchain_guards::git_checkpoint::DOCKER_AGENT {
            use hookchain_guards::GitCheckpoint;
            let earlier = sections
                .iter()
                .position(|(n, _, _)| n == GitCheckpoint::NAME);
            let matcher = (!matcher.is_all()).then(|| matcher.as_str());
            return match GitCheckpoint::docker_agent_section(
                earlier.map(|i| &sections[i].1),
                self.point,
                matcher,
                &args,
            ) {
                Ok(section) => {
                    match earlier {
                        Some(i) => {
                            sections[i].1 = section;
                            sections[i].2 = self.path.to_vec();
                        }
                        None => sections.push((
                            GitCheckpoint::NAME.to_owned(),
                            section,
                            self.path.to_vec(),
                        )),
                    }
                    Ok(true)
                }
                Err(why) => Err(cx.error(
                    format!("`snapshot` of {}", self.subject),
                    self.path,
                    format!("{why}; the builtin is left out"),
                )),
            };
        }
        let found = if name == hookchain_guards::MaxIterations::DOCKER_AGENT {
            Some(
                hookchain_guards::MaxIterations::docker_agent_section(&args, self.event).map(
                    |section| {
                        (
                            <hookchain_guards::MaxIterations as BuiltinExtension>::NAME,
                            section,
                        )
                    },
                ),
            )
        } else {
            let Some(point) = hookchain_guards::InjectAt::from_name(self.point) else {
                return Ok(false);
            };
            hookchain_guards::inject::docker_agent_builtin(name, &args, point)
        };
        match found {
            None => Ok(false),
            Some(Ok((extension, section))) => {
                sections.push((extension.to_owned(), section, self.path.to_vec()));
                Ok(true)
            }
            Some(Err(why)) => Err(cx.error(
                format!("`args` of {}", self.subject),
                &args_path,
                format!("{why}; the builtin is left out"),
            )),
        }
    }

    /// The hook, or `None` when it is left out (with a warning). A builtin that is one of the
    /// guards' context injectors (with the `guards` feature) becomes a config section in
    /// `sections` instead.
    #[cfg_attr(not(feature = "guards"), allow(unused_variables, clippy::ptr_arg))]
    fn entry(
        &self,
        hook: &Value,
        matcher: Matcher,
        warnings: &mut Vec<String>,
        sections: &mut Vec<(String, Value, ValuePath)>,
    ) -> Result<Option<Entry>, ConfigError> {
        let cx = self.cx;
        let Value::Object(fields) = hook else {
            return Err(cx.error(
                self.subject,
                self.path,
                format!(
                    "expected a hook (`type: command`), found {}",
                    json_kind(hook)
                ),
            ));
        };
        cx.known_keys(self.subject, fields, self.path, HOOK_KEYS)?;
        let field = |key: &str| fields.get(key).filter(|v| !v.is_null());
        let key_subject = |key: &str| format!("`{key}` of {}", self.subject);
        let key_path = |key: &str| at(self.path, key);
        let Some(kind) = field("type") else {
            return Err(cx.error(self.subject, self.path, "has no `type` (`command`)"));
        };
        match cx.string(&key_subject("type"), kind, &key_path("type"))? {
            "command" => {}
            #[cfg(feature = "guards")]
            "builtin" if self.injector(fields, &matcher, sections)? => return Ok(None),
            kind @ ("builtin" | "model" | "evaluator") => {
                warnings.push(format!(
                    "{}: a `{kind}` hook of `{}` runs inside docker-agent; hookchain runs \
                     `command` hooks only, so it is left out",
                    cx.place(self.path),
                    self.event
                ));
                return Ok(None);
            }
            other => {
                let hint = hookchain_core::suggest::closest(other, TYPES.iter().copied())
                    .map(|s| format!(", did you mean `{s}`?"))
                    .unwrap_or_else(|| {
                        " (`command`, `builtin`, `model` or `evaluator`)".to_owned()
                    });
                return Err(cx.error(
                    key_subject("type"),
                    &key_path("type"),
                    format!("unknown hook type `{other}`{hint}"),
                ));
            }
        }
        // What docker-agent's command hooks do not read, hookchain does not either: said once.
        for key in [
            "args",
            "model",
            "prompt",
            "schema",
            "system_prompt",
            "evaluator",
            "evaluator_policy",
            "routing_policy",
        ] {
            if field(key).is_some() {
                warnings.push(format!(
                    "{}: `{key}` applies to `builtin`, `model` and `evaluator` hooks; a \
                     `command` hook ignores it, in docker-agent as here",
                    cx.place(&key_path(key))
                ));
            }
        }
        if let Some(v) = field("strict_output")
            && cx.boolean(&key_subject("strict_output"), v, &key_path("strict_output"))?
        {
            warnings.push(format!(
                "{}: `strict_output: true` is not applied: hookchain reads the hook's answer as \
                 it reads every docker-agent answer (unknown fields ignored, plain text kept as \
                 context) rather than failing it",
                cx.place(&key_path("strict_output"))
            ));
        }
        let Some(line) = field("command") else {
            return Err(cx.error(self.subject, self.path, "has no `command`"));
        };
        let line = cx.string(&key_subject("command"), line, &key_path("command"))?;
        let dir = std::path::absolute(cx.dir()).unwrap_or_else(|_| cx.dir());
        let env = match field("env") {
            Some(v) => cx.env_map(&key_subject("env"), v, &key_path("env"))?,
            None => Default::default(),
        };
        // `working_dir` takes `~`, `$VAR` and `${VAR}`, as docker-agent expands it.
        let working_dir = match field("working_dir") {
            Some(v) => {
                let written =
                    cx.string(&key_subject("working_dir"), v, &key_path("working_dir"))?;
                let relative = crate::script::expand(written, &dir, &env);
                std::path::absolute(dir.join(&relative)).unwrap_or_else(|_| dir.join(&relative))
            }
            None => dir.clone(),
        };
        if let Some(warning) = cx.shell_line_warning(
            &key_subject("command"),
            line,
            &working_dir,
            &dir,
            &env,
            &key_path("command"),
        )? {
            warnings.push(warning);
        }
        let spec = CommandSpec {
            argv: vec![shell(), "-c".to_owned(), line.to_owned()],
            display: line.to_owned(),
            env,
            working_dir: Some(working_dir),
            env_clear: false,
            env_allow: Vec::new(),
        };
        let mut on_error = match field("on_error") {
            Some(v) => {
                cx.failure_policy(&key_subject("on_error"), v, &key_path("on_error"), ON_ERROR)?
            }
            None => OnError::Warn,
        };
        if fails_closed(self.event) {
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
            condition: None,
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
                priority: self.priority,
                on_error,
                dialect: cx.dialect,
                required: false,
                origin: cx.hook_origin(self.path),
            },
        }))
    }
}
