//! `hookchain hook --agent AGENT [EVENT]`: hookchain as another agent's hook. The agent runs
//! the command with its payload on stdin; hookchain runs the chain it is configured with and
//! answers on stdout and with the exit code in the form that makes *that* agent block, allow,
//! rewrite or add context.
//!
//! # What it owns
//!
//! The guest side of the five agents' hook protocols — one file per agent (`claude_code`,
//! `codex`, `gemini`, `cursor`, `copilot`), each with that agent's event names, the fields its
//! payload carries, its tool vocabulary and its answer rules. The chain itself is `test`'s:
//! the registry is built as [`Built::new`] builds it (compiled-in hooks of the builder given to
//! `run_with`, the built-in guards and the configured hooks that are approved) and one value is
//! dispatched as `test` dispatches it ([`fire`]), in the payload's session.
//!
//! # The rules it keeps
//!
//! 1. **The event.** EVENT when given; else the payload's `hook_event_name` (Claude Code,
//!    Codex, Gemini, Cursor); else, for Copilot, which names none, its fields: `toolName` with
//!    `toolResult` is `postToolUse`, with `error` `postToolUseFailure`, alone `preToolUse`
//!    (`permissionRequest` carries the same fields: only EVENT names it); `errorContext`
//!    `errorOccurred`, `notification_type` `notification`, `agentName` with `stopReason`
//!    `subagentStop`, alone `subagentStart`, `stopReason` `agentStop`, `trigger` with
//!    `customInstructions` `preCompact`, `prompt` `userPromptSubmitted`, `error`
//!    `errorOccurred`, `source` or `initialPrompt` `sessionStart`, `reason` `sessionEnd`
//!    (`hook/copilot.rs`). The event is mapped to a point by
//!    the agent's table; an event with no point is an unknown event (rule 5).
//! 2. **The working directory.** The payload's `cwd` (Cursor: the first of `workspace_roots`)
//!    becomes the process's current directory before the config is read, so the project's
//!    `hookchain.yaml` is found as the agent's own hooks find their files; the session is the
//!    payload's `session_id` (Cursor: `conversation_id`; Copilot sends none: `copilot`).
//! 3. **Tool names.** Each agent's tool is given to the chain under the name hookchain's
//!    guards judge (the shell tool is `Bash`, a file write `Write`, an edit `Edit`, a read
//!    `Read`), with the arguments under the keys the guards read (`command` for a shell
//!    command): the same command gets the same decision whatever agent sent it. A rewrite goes
//!    back as the new arguments of the agent's own tool.
//! 4. **The answer.** A pass answers what the agent reads as "go on, hookchain has nothing to
//!    say" — never an approval that skips the agent's own permission checks; a block, a
//!    rewrite and context are answered in the agent's documented form for the event, with no
//!    field the agent does not document for it (Codex counts a hook that answers an unknown
//!    field as failed, and runs the tool). A rewrite approves the rewritten call where the
//!    agent applies new arguments only beside an approval (Claude Code's and Codex's
//!    `updatedInput` with `allow`, Cursor's `updated_input` with `permission: "allow"`): else
//!    the agent would drop the rewrite and run the original. Where the agent has no form for
//!    a part of the outcome (a rewrite of a prompt, context on a tool event of Copilot), the
//!    part is said on stderr and left out.
//! 5. **Failures.** Stdin that is not a JSON object, an event with no point and hookchain's
//!    own failure (a config that cannot be read, a `cwd` that is not a directory) answer the
//!    agent's convention for a failed hook — go on, with the message on stderr (exit 1) —
//!    unless the registry holds a `required` hook on the point (on any point when the point
//!    is not known): then the agent's block form, with the message as the reason.
//! 6. **The step's other side.** An event is one point, and two of them are also the start of
//!    the next step, which no agent has an event for: a prompt that goes on starts the turn
//!    (`transform_user_input`, then `turn_start` with the prompt as rewritten), and a tool's
//!    transformed result is the finished call (`transform_tool_result`, then `after_tool_call`
//!    with the result as transformed). The second chain runs when the first did not block;
//!    its context joins the first's, and a block of the turn's start blocks the prompt. So a
//!    context hook on `turn_start` or an audit log on `after_tool_call` runs under every
//!    agent, as in a Rust agent's loop.
//! 7. **One redo per stop.** When the agent says it is already going on because a stop hook
//!    sent it back (`stop_hook_active: true`; Cursor's `loop_count` above 0), a block of
//!    `on_stop` goes out as a warning on stderr and the agent stops: a hook process cannot
//!    count a turn's redos as a Rust agent's runtime does (stop-verifier's cap lives in the
//!    turn's state), and the agent sends it back for as long as its stop hook blocks.
//!
//! [`Built::new`]: crate::test_event::Built::new
//! [`fire`]: crate::test_event::fire::fire

mod claude_code;
mod codex;
mod copilot;
mod cursor;
mod gemini;

use std::io::Read;
use std::path::PathBuf;

use hookchain_core::points::{self, PointInfo};
use hookchain_runtime::{Hooks, HooksBuilder};
use serde_json::{Map, Value, json};

use crate::args::{Agent, Cli, HookArgs};
use crate::outcome::{Failure, Io};
use crate::payload::from_file;
use crate::test_event::Built;
use crate::test_event::fire::{Fired, TestReport, fire};
use crate::test_event::session::Given;

/// The largest payload read from stdin (8 MiB); more is a malformed payload.
const MAX_PAYLOAD: u64 = 8 << 20;

/// What the chain decided, before it is put in an agent's form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Go on unchanged, with the context the hooks added for the model (maybe none).
    Pass { context: Vec<String> },
    /// Go on with a new value: the tool's new arguments, or the prompt's new text.
    Rewrite { value: Value, context: Vec<String> },
    /// Do not go on: the reason, for the model.
    Block { reason: String },
}

/// What the hook process answers: stdout, stderr and the exit code.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Answer {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) code: i32,
}

impl Answer {
    /// Exit 0, `json` on stdout (one line).
    pub(crate) fn json(json: &Value) -> Answer {
        Answer {
            stdout: format!("{json}\n"),
            ..Answer::default()
        }
    }

    /// Exit 0, nothing on stdout.
    pub(crate) fn silent() -> Answer {
        Answer::default()
    }

    /// The agent's convention for a hook that failed and does not block: exit 1, `message`
    /// on stderr.
    pub(crate) fn failed_open(message: &str) -> Answer {
        Answer {
            stderr: format!("hookchain: {message}\n"),
            code: 1,
            ..Answer::default()
        }
    }

    /// Adds `line` to stderr.
    pub(crate) fn say(mut self, line: &str) -> Answer {
        self.stderr.push_str("hookchain: ");
        self.stderr.push_str(line);
        self.stderr.push('\n');
        self
    }
}

/// One agent's side of the protocol.
pub(crate) struct Protocol {
    /// The point of one of the agent's events; `None` for an event hookchain has no point for.
    pub(crate) point_of: fn(&str) -> Option<&'static str>,
    /// The event the payload is for, when EVENT is not given.
    pub(crate) event_of: fn(&Map<String, Value>) -> Option<String>,
    /// The payload in hookchain's wire form (`tool_name`, `tool_input`, `prompt`, `response`,
    /// `session_id`, `cwd`, …), the tool renamed to hookchain's vocabulary.
    pub(crate) normalize: fn(&str, &Map<String, Value>) -> Map<String, Value>,
    /// The answer to `verdict` on the event (the agent's name) of the point.
    pub(crate) answer: fn(&str, &str, Verdict) -> Answer,
}

impl Agent {
    /// The agent's side of the protocol.
    fn protocol(self) -> Protocol {
        match self {
            Agent::ClaudeCode => claude_code::PROTOCOL,
            Agent::Codex => codex::PROTOCOL,
            Agent::Gemini => gemini::PROTOCOL,
            Agent::Cursor => cursor::PROTOCOL,
            Agent::Copilot => copilot::PROTOCOL,
        }
    }
}

/// Runs the chain for the agent's payload on `stdin` and writes the agent's answer; returns
/// the exit code the agent reads.
pub(crate) fn hook(
    cli: &Cli,
    args: &HookArgs,
    hooks: HooksBuilder,
    stdin: &mut dyn Read,
    io: &mut Io<'_>,
) -> Result<i32, Failure> {
    let answer = answer(cli, args, hooks, stdin);
    io.out.write_all(answer.stdout.as_bytes())?;
    io.err.write_all(answer.stderr.as_bytes())?;
    Ok(answer.code)
}

/// The agent's answer to the payload on `stdin` (see the [module docs](self)).
fn answer(cli: &Cli, args: &HookArgs, hooks: HooksBuilder, stdin: &mut dyn Read) -> Answer {
    let protocol = args.agent.protocol();
    let payload = read_payload(stdin);
    // Rule 1: EVENT over what the payload says.
    let event = args
        .event
        .clone()
        .or_else(|| payload.as_ref().ok().and_then(protocol.event_of));
    let point = event
        .as_deref()
        .and_then(protocol.point_of)
        .and_then(points::resolve);
    if let Ok(payload) = &payload
        && let Some(dir) = working_dir(payload)
        && dir.is_dir()
    {
        // Rule 2: the project's files are found from the agent's working directory.
        let _ = std::env::set_current_dir(&dir);
    }
    let shown_event = event.clone().unwrap_or_default();
    let point_name = point.map(|p| p.name);
    let Some(build_point) = point.or_else(|| points::resolve("intercept_tool_call")) else {
        return Answer::failed_open("the point intercept_tool_call is missing from the catalog");
    };
    let built = match Built::new(cli, hooks, build_point) {
        Ok(built) => built,
        Err(Failure(message)) => {
            return Answer::failed_open(&format!("{message}; the hook lets the agent go on"));
        }
    };
    let fail = |message: String| {
        failure(
            &protocol,
            &built.registry,
            &shown_event,
            point_name,
            message,
        )
    };
    let payload = match payload {
        Ok(payload) => payload,
        Err(message) => return fail(message),
    };
    let (Some(event), Some(point)) = (event, point) else {
        return fail(if shown_event.is_empty() {
            format!(
                "the payload names no event (no `hook_event_name`): give the event as \
                 `hookchain hook --agent {} EVENT`",
                agent_flag(args.agent)
            )
        } else {
            format!(
                "`{shown_event}` is not an event of {} that hookchain has a point for",
                agent_name(args.agent)
            )
        });
    };
    let wire = (protocol.normalize)(&event, &payload);
    match run(&built, point, wire.clone())
        .and_then(|ran| follow_up(&built, point, &wire, ran))
        .map(|ran| once_per_stop(point, &wire, ran))
    {
        Ok((verdict, warnings)) => {
            let mut answer = (protocol.answer)(&event, point.name, verdict);
            for warning in warnings {
                answer = answer.say(&warning);
            }
            answer
        }
        Err(Failure(message)) => fail(message),
    }
}

/// The answer to hookchain's own failure (rule 5): the agent's block form when a required
/// hook is on the point (any point, when it is not known), else fail open.
fn failure(
    protocol: &Protocol,
    registry: &Hooks,
    event: &str,
    point: Option<&'static str>,
    message: String,
) -> Answer {
    let required = registry
        .hooks()
        .iter()
        .find(|h| h.required && point.is_none_or(|p| h.point == p));
    match (required, point) {
        (Some(hook), Some(point)) => {
            let reason = format!(
                "hookchain: {message}; the required hook `{}` could not judge, so the call is \
                 refused",
                hook.name
            );
            (protocol.answer)(event, point, Verdict::Block { reason })
        }
        (Some(hook), None) => Answer {
            stderr: format!(
                "hookchain: {message}; the required hook `{}` could not judge, so this is \
                 refused\n",
                hook.name
            ),
            code: 2,
            ..Answer::default()
        },
        (None, _) => Answer::failed_open(&format!("{message}; the hook lets the agent go on")),
    }
}

/// Stdin as a JSON object, or why not.
fn read_payload(stdin: &mut dyn Read) -> Result<Map<String, Value>, String> {
    let mut text = String::new();
    stdin
        .take(MAX_PAYLOAD + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read the payload on stdin: {e}"))?;
    if text.len() as u64 > MAX_PAYLOAD {
        return Err(format!(
            "the payload on stdin is larger than {MAX_PAYLOAD} bytes"
        ));
    }
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "the payload on stdin must be a JSON object, not {}",
            kind(&other)
        )),
        Err(e) => Err(format!("the payload on stdin is not JSON: {e}")),
    }
}

/// The JSON type of `value`, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The directory the agent runs the hook for: `cwd`, else Cursor's first `workspace_roots`.
fn working_dir(payload: &Map<String, Value>) -> Option<PathBuf> {
    named(payload.get("cwd"))
        .or_else(|| {
            named(
                payload
                    .get("workspace_roots")
                    .and_then(Value::as_array)
                    .and_then(|roots| roots.first()),
            )
        })
        .map(PathBuf::from)
}

/// `value` as a directory name, when it is a non-empty string.
fn named(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|dir| !dir.is_empty())
}

/// The point an agent's event runs after its own, for the hooks that see the same step from
/// the other side: a prompt that goes on starts the turn (`turn_start`: workflow and context
/// hooks), and a tool's result, once transformed, is the finished call (`after_tool_call`:
/// audit logs, the module router's reads). Every agent's loop has these steps; none has an
/// event of its own for both.
fn next_point(point: &str) -> Option<&'static PointInfo> {
    match point {
        "transform_user_input" => points::resolve("turn_start"),
        "transform_tool_result" => points::resolve("after_tool_call"),
        _ => None,
    }
}

/// Runs [`next_point`] of `point` when the first chain did not block: its payload is the
/// first one with the first chain's outcome (the rewritten prompt, the transformed result),
/// its context joins the first chain's, and a block of the turn's start blocks the prompt.
fn follow_up(
    built: &Built,
    point: &'static PointInfo,
    wire: &Map<String, Value>,
    (verdict, mut warnings): (Verdict, Vec<String>),
) -> Result<(Verdict, Vec<String>), Failure> {
    let Some(next) = next_point(point.name) else {
        return Ok((verdict, warnings));
    };
    let mut next_wire = wire.clone();
    match (&verdict, point.name) {
        (Verdict::Block { .. }, _) => return Ok((verdict, warnings)),
        (Verdict::Rewrite { value, .. }, "transform_user_input") => {
            next_wire.insert("prompt".to_owned(), value.clone());
        }
        (Verdict::Rewrite { value, .. }, _) => {
            if let Some(response) = value.get("tool_response") {
                next_wire.insert("tool_response".to_owned(), response.clone());
            }
        }
        (Verdict::Pass { .. }, _) => {}
    }
    next_wire.remove("context");
    let (next_verdict, next_warnings) = run(built, next, next_wire)?;
    for warning in next_warnings {
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
    let more = match next_verdict {
        Verdict::Block { reason } => return Ok((Verdict::Block { reason }, warnings)),
        Verdict::Pass { context } | Verdict::Rewrite { context, .. } => context,
    };
    let verdict = match verdict {
        Verdict::Pass { mut context } => {
            context.extend(more);
            Verdict::Pass { context }
        }
        Verdict::Rewrite { value, mut context } => {
            context.extend(more);
            Verdict::Rewrite { value, context }
        }
        block @ Verdict::Block { .. } => block,
    };
    Ok((verdict, warnings))
}

/// Rule 7: an agent that is already going on because a stop hook sent it back (Claude Code's,
/// Codex's, Gemini's and Copilot's `stop_hook_active`, Cursor's `loop_count`) is let stop: the
/// second block of one stop goes out as a warning on stderr. A hook process cannot count the
/// redos of a turn as a Rust agent's runtime does, and an agent keeps sending it back for as
/// long as its stop hook blocks.
fn once_per_stop(
    point: &PointInfo,
    wire: &Map<String, Value>,
    (verdict, mut warnings): (Verdict, Vec<String>),
) -> (Verdict, Vec<String>) {
    let again = wire.get("stop_hook_active") == Some(&Value::Bool(true))
        || wire
            .get("loop_count")
            .and_then(Value::as_u64)
            .is_some_and(|count| count > 0);
    match verdict {
        Verdict::Block { reason } if again && matches!(point.name, "on_stop" | "subagent_stop") => {
            warnings.push(format!(
                "a hook would send the agent back again ({reason}); it already went back once                  for this stop, so it stops here"
            ));
            (
                Verdict::Pass {
                    context: Vec::new(),
                },
                warnings,
            )
        }
        verdict => (verdict, warnings),
    }
}

/// Dispatches the wire payload through `point`'s chain in its session; the verdict and the
/// warnings to say on stderr (config left out, hooks skipped, hooks that failed).
fn run(
    built: &Built,
    point: &'static PointInfo,
    wire: Map<String, Value>,
) -> Result<(Verdict, Vec<String>), Failure> {
    let wire = Value::Object(wire);
    let given = Given::of(&wire, "the payload")?;
    let state = given.state();
    let before = context_lines(&wire);
    let value = with_point!(point.name, from_file(wire, None))?;
    let fired: Fired = with_point!(
        point.name,
        fire(&built.registry, &value, &built.skipped, &given, &state)
    )?;
    let mut warnings: Vec<String> = built.notes.clone();
    warnings.extend(fired.failures.iter().map(|f| format!("{f} (went on)")));
    let verdict = match fired.report {
        TestReport::Blocked { reason, .. } => Verdict::Block { reason },
        TestReport::Continue {
            value: final_value,
            context,
            warnings: hook_warnings,
        } => {
            warnings.extend(built.skipped.iter().cloned());
            warnings.extend(hook_warnings);
            let final_value: Value = serde_json::from_str(&final_value)?;
            if fired.rewritten_by.is_empty() {
                Verdict::Pass { context }
            } else if matches!(point.name, "session_start" | "turn_start") {
                // An inject point: the hooks' injections are the new lines of the value's
                // `context`, which every agent takes as context for the model.
                let mut injected: Vec<String> = context_lines(&final_value)
                    .into_iter()
                    .skip(before.len())
                    .collect();
                injected.extend(context);
                Verdict::Pass { context: injected }
            } else {
                let value = match point.name {
                    "intercept_tool_call" => final_value.get("args").cloned().unwrap_or(json!({})),
                    _ => final_value,
                };
                Verdict::Rewrite { value, context }
            }
        }
    };
    Ok((verdict, warnings))
}

/// The lines of a session start's `context`.
fn context_lines(value: &Value) -> Vec<String> {
    value
        .get("context")
        .and_then(Value::as_array)
        .map(|lines| {
            lines
                .iter()
                .filter_map(|line| line.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The agent's name, for messages.
fn agent_name(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode => "Claude Code",
        Agent::Codex => "Codex",
        Agent::Gemini => "Gemini CLI",
        Agent::Cursor => "Cursor",
        Agent::Copilot => "Copilot",
    }
}

/// The agent as `--agent` spells it.
fn agent_flag(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode => "claude-code",
        Agent::Codex => "codex",
        Agent::Gemini => "gemini",
        Agent::Cursor => "cursor",
        Agent::Copilot => "copilot",
    }
}

/// `hook_event_name` as a string: the event of the agents that name it in the payload.
pub(crate) fn hook_event_name(payload: &Map<String, Value>) -> Option<String> {
    payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Copies `keys` that `from` has into `to`, under the same names.
pub(crate) fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key) {
            to.insert((*key).to_owned(), value.clone());
        }
    }
}

/// The context lines as one text, for the agents that take one string.
pub(crate) fn joined(context: &[String]) -> Option<String> {
    (!context.is_empty()).then(|| context.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_must_be_a_json_object() {
        let read = |text: &str| read_payload(&mut text.as_bytes());
        assert_eq!(
            read("[1]"),
            Err("the payload on stdin must be a JSON object, not an array".to_owned())
        );
        assert!(
            read("{")
                .unwrap_err()
                .starts_with("the payload on stdin is not JSON")
        );
        assert_eq!(read(r#"{"a": 1}"#).unwrap().get("a"), Some(&Value::from(1)));
    }

    #[test]
    fn cursor_names_its_directory_in_workspace_roots() {
        let payload = json!({"cwd": "", "workspace_roots": ["/w/one", "/w/two"]});
        let Value::Object(map) = payload else {
            unreachable!()
        };
        assert_eq!(working_dir(&map), Some(PathBuf::from("/w/one")));
    }
}
