//! `hookchain tools [--json]` and `hookchain call TOOL --args JSON [--session ID] [--json]`: the
//! tools extensions give the model, and one call of one, through the chains.
//!
//! # The rules it keeps
//!
//! - The registry is the one the agent would build (compiled-in `#[register_tool]` fns and
//!   builder tools, the tools of external extensions that consent lets run), built as `test`
//!   builds it: `--accept-hooks` approves what is not approved yet, nothing else does.
//! - `tools` lists every tool with its extension, its state (`on`, or who switched its extension
//!   off), its description and the JSON Schema of its parameters; then the tools of external
//!   extensions that do not run for want of consent, each with the command that approves it.
//! - `call` runs one call as the agent's `Turn::call_tool` runs it, in a session of its own
//!   (`hookchain-call`, or `--session ID`): `intercept_tool_call` may rewrite or block it,
//!   `after_tool_call` and `transform_tool_result` see it. It prints what the model would see.
//!   Exit code: 0 when the tool ran and its result is not an error, 2 when a hook blocked the
//!   call, 1 otherwise (an unknown tool, args that do not fit, a tool that failed).

use std::fmt::Write as _;

use hookchain_config::consent::{ConsentPolicy, ConsentStatus};
use hookchain_config::{Config, ConfigBuilderExt, ConfigHooksExt};
use hookchain_core::{ToolCall, TurnEnd};
use hookchain_runtime::{Hooks, HooksBuilder};
use serde_json::{Value, json};

use crate::args::{CallArgs, Cli, ToolsArgs};
use crate::outcome::{EXIT_BLOCKED, EXIT_ERROR, EXIT_OK, Failure, Io};
use crate::registry::state;
use crate::render::consent_word;
use crate::sources::{load_config, load_consent};

/// The points a tool call goes through.
const TOOL_POINTS: [&str; 3] = [
    "intercept_tool_call",
    "after_tool_call",
    "transform_tool_result",
];

/// The session `call` runs its call in, unless `--session` names one.
const CALL_SESSION: &str = "hookchain-call";

/// The registry the agent would build, with consent as `test` asks it.
fn built(cli: &Cli, hooks: HooksBuilder) -> Result<(Hooks, Config, Vec<String>), Failure> {
    let (config, mut notes) = load_config(cli)?;
    let consent = load_consent(cli)?;
    let policy = ConsentPolicy::from_lookup(|name| std::env::var(name).ok());
    let (registry, errors) = hooks
        .config(config.clone())
        .consent(consent, policy)
        .accept_hooks(cli.accept_hooks)
        .build_reporting();
    notes.extend(errors.iter().map(|error| format!("{error} (left out)")));
    notes.extend(config.warnings().iter().cloned());
    if let (Some(false), Some(at)) = (config.hooks_enabled(), config.hooks_enabled_at()) {
        hookchain_config::switch_off_all(&registry, at);
    }
    Ok((registry, config, notes))
}

/// `hookchain tools`.
pub(crate) fn tools(
    cli: &Cli,
    args: &ToolsArgs,
    hooks: HooksBuilder,
    io: &mut Io<'_>,
) -> Result<i32, Failure> {
    let (registry, config, notes) = built(cli, hooks)?;
    let consent = load_consent(cli)?;
    let specs = registry.tools();
    // The tools of external extensions that the registry does not have: not approved.
    let waiting: Vec<_> = config
        .external_tools()
        .filter(|tool| !specs.iter().any(|s| s.name == tool.name))
        .collect();
    if args.json {
        let mut listed: Vec<Value> = specs
            .iter()
            .map(|spec| {
                json!({
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": spec.parameters,
                    "extension": spec.extension,
                    "state": state(&registry, &spec.extension),
                })
            })
            .collect();
        for tool in &waiting {
            listed.push(json!({
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
                "extension": tool.extension,
                "state": format!("not approved ({})", consent_word(&tool.consent_status(&consent))),
            }));
        }
        writeln!(io.out, "{}", Value::Array(listed))?;
        return Ok(EXIT_OK);
    }
    let mut text = String::new();
    if specs.is_empty() && waiting.is_empty() {
        text.push_str(
            "no tools: none is compiled in (`#[hookchain::register_tool]`, \
             `HooksBuilder::tool`) and no external extension gives one \
             (`tools:` in an EXTENSION.yaml)\n",
        );
    }
    for spec in &specs {
        let _ = writeln!(
            text,
            "{}  ({}, {})\n  {}\n  parameters: {}",
            spec.name,
            spec.extension,
            state(&registry, &spec.extension),
            one_line(&spec.description),
            indent(&pretty(&spec.parameters)),
        );
    }
    for tool in &waiting {
        let status = tool.consent_status(&consent);
        let why = match status {
            ConsentStatus::Drifted { .. } => "changed since it was approved",
            _ => "not approved",
        };
        let _ = writeln!(
            text,
            "{}  ({}, {} ({}): does not run; `hookchain approve \"tool {}\"`)\n  {}\n  \
             parameters: {}",
            tool.name,
            tool.extension,
            why,
            consent_word(&status),
            tool.name,
            one_line(&tool.description),
            indent(&pretty(&tool.parameters)),
        );
    }
    for note in &notes {
        let _ = writeln!(text, "note: {note}");
    }
    write!(io.out, "{text}")?;
    Ok(EXIT_OK)
}

/// `hookchain call TOOL --args JSON`.
pub(crate) fn call(
    cli: &Cli,
    args: &CallArgs,
    hooks: HooksBuilder,
    io: &mut Io<'_>,
) -> Result<i32, Failure> {
    let call_args: Value = match &args.args {
        Some(text) => serde_json::from_str(text).map_err(|error| {
            Failure(format!(
                "--args is not JSON ({error}); give the tool's arguments as one JSON object, \
                 e.g. --args '{{\"path\": \"notes.md\"}}'"
            ))
        })?,
        None => json!({}),
    };
    let (registry, config, notes) = built(cli, hooks)?;
    for note in &notes {
        writeln!(io.err, "note: {note}")?;
    }
    // The hooks of the tool points that do not run for want of consent: the call goes ahead
    // without them, and the user hears so.
    for skipped in &registry.consent_report().skipped {
        if TOOL_POINTS.contains(&skipped.point) {
            writeln!(io.err, "note: skipped: {skipped}")?;
        }
    }
    // An external extension's tool that is not approved is not in the registry: say so, rather
    // than that there is no such tool.
    let registered = registry.tools().iter().any(|t| t.name == args.tool);
    if !registered && let Some(tool) = config.external_tools().find(|t| t.name == args.tool) {
        let consent = load_consent(cli)?;
        return Err(Failure(format!(
            "tool `{}` of extension `{}` does not run: it is not approved ({}); approve it with \
             `hookchain approve \"tool {}\"`, or run this once with `--accept-hooks`",
            tool.name,
            tool.extension,
            consent_word(&tool.consent_status(&consent)),
            tool.name
        )));
    }
    let session = registry.session(args.session.as_deref().unwrap_or(CALL_SESSION));
    let turn = session.begin_turn();
    let run = turn.call_tool(ToolCall::new(args.tool.clone(), call_args));
    turn.end(TurnEnd::Normal);
    session.end("hookchain call");
    let code = match (&run.blocked, run.result.is_error) {
        (Some(_), _) => EXIT_BLOCKED,
        (None, true) => EXIT_ERROR,
        (None, false) => EXIT_OK,
    };
    if args.json {
        let mut answer = json!({
            "tool": run.result.tool_name,
            "ran": run.ran,
            "is_error": run.result.is_error,
            "result": run.result.tool_response,
        });
        if let Some(blocked) = &run.blocked {
            answer["blocked"] = json!({"reason": blocked.reason, "hook": blocked.hook});
        }
        writeln!(io.out, "{answer}")?;
        return Ok(code);
    }
    let response = match &run.result.tool_response {
        Value::String(text) => text.clone(),
        other => pretty(other),
    };
    match &run.blocked {
        Some(blocked) => writeln!(io.out, "blocked by {}: {}", blocked.hook, blocked.reason)?,
        None if run.result.is_error => writeln!(io.out, "error: {response}")?,
        None => writeln!(io.out, "{response}")?,
    }
    Ok(code)
}

/// `value` as indented JSON.
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// `text` with its later lines indented under a two-space item.
fn indent(text: &str) -> String {
    text.replace('\n', "\n  ")
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
