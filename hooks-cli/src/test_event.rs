//! `hookchain test EVENT`: fires EVENT's chain once — the compiled-in hooks and the configured
//! hooks that are approved; the others are skipped and never run — on a synthetic value or a
//! payload file's, in the payload's session, and prints the outcome (readable, or one JSON
//! object with `--json`).

pub(crate) mod fire;
pub(crate) mod session;
mod verbose;

use std::fmt::Write as _;
use std::path::Path;

use hookchain_config::consent::{AcceptedBy, ConsentPolicy};
use hookchain_config::{Config, ConfigBuilderExt, ConfigHooksExt};
use hookchain_core::points::PointInfo;
use hookchain_external::wire::agents::tool_name_in;
use hookchain_runtime::{Hooks, HooksBuilder};
use serde_json::Value;

use crate::args::{Cli, TestArgs};
use crate::outcome::{Failure, Io};
use crate::payload::{DEFAULT_TOOL, from_file, synthetic};
use crate::point::{TOOL_POINTS, canonical, resolve_event};
use crate::registry::{ON, refusals, state};
use crate::sources::{load_config, load_consent};
use crate::table::table;
use fire::{Fired, TestReport, fire};
use hookchain_core::Dialect;
use hookchain_external::wire::agents::payload_from_agent;
use session::Given;
use verbose::Exchanges;

/// Fires EVENT's chain once and prints the outcome; the exit code says whether it blocked.
pub(crate) fn test(
    cli: &Cli,
    args: &TestArgs,
    hooks: HooksBuilder,
    io: &mut Io<'_>,
) -> Result<i32, Failure> {
    let point = resolve_event(&args.event)?;
    let is_tool_point = TOOL_POINTS.contains(&point.name);
    if args.for_tool.is_some() && !is_tool_point {
        return Err(Failure(format!(
            "--for-tool names the tool of a tool point ({}); `{}` is not one",
            TOOL_POINTS.join(", "),
            point.name
        )));
    }
    let (payload, given) = match &args.payload_file {
        Some(path) => payload_file(path, point, &args.event, args.for_tool.as_deref())?,
        None => (
            synthetic(point.name, args.for_tool.as_deref().unwrap_or(DEFAULT_TOOL)),
            Given::synthetic(),
        ),
    };
    let built = Built::new(cli, hooks, point)?;
    let session_state = given.state();
    let exchanges = args.verbose.then(|| Exchanges::tap(&session_state));
    let fired = with_point!(
        point.name,
        fire(
            &built.registry,
            &payload,
            &built.skipped,
            &given,
            &session_state
        )
    )?;
    let verbose = exchanges.map(|e| e.lines()).unwrap_or_default();

    if args.json {
        for note in &built.notes {
            writeln!(io.err, "note: {note}")?;
        }
        io.err.write_all(verbose.as_bytes())?;
        writeln!(io.out, "{}", fired.json)?;
        return Ok(fired.exit_code());
    }
    let mut text = header(args, point, &payload, &given)?;
    text.push_str(&chain(&built, point, &payload));
    text.push_str(&built.remarks(point));
    text.push_str(&verbose);
    text.push_str(&outcome(&fired));
    io.out.write_all(text.as_bytes())?;
    Ok(fired.exit_code())
}

/// The payload file at `path`, read as a value of `point` (see [`from_file`]), and the session
/// it names. A payload in the form of the agent whose event `event` is (Cursor's
/// `beforeShellExecution`, with `conversation_id`; Codex's `Interrupt`, Gemini CLI's
/// `BeforeTool`) is read as that agent's first ([`payload_from_agent`]).
fn payload_file(
    path: &Path,
    point: &PointInfo,
    event: &str,
    for_tool: Option<&str>,
) -> Result<(Value, Given), Failure> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure(format!("cannot read the payload file {shown}: {e}")))?;
    let json: Value =
        serde_json::from_str(&text).map_err(|e| Failure(format!("{shown}: invalid JSON: {e}")))?;
    let json = match (&json, agent_of_payload(point, event, &json)) {
        (Value::Object(map), Some(dialect)) => {
            Value::Object(payload_from_agent(dialect, event, map))
        }
        _ => json,
    };
    // The session the event fires in is the payload's (the parent's, for a child's start).
    let given = Given::of(&json, &shown.to_string())?;
    let json = child_start(point, event, json);
    // Another agent's payload for a non-tool event (a Claude Code Stop payload has no
    // `response`) gives the fields the point's value has, the rest of the value is the
    // synthetic one's; a tool point's payload that names no tool is an error below.
    let json = with_point!(point.name, from_file(json, for_tool))?;
    with_point!(point.name, canonical(&json)).map_err(|Failure(e)| {
        Failure(format!(
            "{shown}: not a value of {}: {e} (e.g. {})",
            point.name,
            synthetic(point.name, DEFAULT_TOOL)
        ))
    })?;
    Ok((json, given))
}

/// A `SubagentStart` payload (Claude Code's and Codex's; Cursor's and Copilot's
/// `subagentStart`) as the start of a child session, which is what those events fire for: the
/// value's `source` is `subagent`, its session the child's (`agent_id`, else the payload's
/// session) and `parent_session_id` the payload's `session_id`. Without this the payload was
/// read as a parent's session start: the event's own hooks never fired, the `SessionStart`
/// hooks did.
fn child_start(point: &PointInfo, event: &str, json: Value) -> Value {
    let Value::Object(mut map) = json else {
        return json;
    };
    if point.name != "session_start" || !event.eq_ignore_ascii_case("SubagentStart") {
        return Value::Object(map);
    }
    let parent = map.get("session_id").cloned();
    if let Some(child) = map.get("agent_id").filter(|v| v.is_string()).cloned() {
        map.insert("session_id".to_owned(), child);
    }
    if let Some(parent) = parent.filter(Value::is_string) {
        map.entry("parent_session_id").or_insert(parent);
    }
    map.insert("source".to_owned(), Value::from("subagent"));
    Value::Object(map)
}

/// The agent whose payload `json` is, for `event` of `point`: Cursor for one of its events
/// when the payload has Cursor's `conversation_id` or `workspace_roots` (its `stop` is also
/// docker-agent's name), or when the event is Cursor's alone (`beforeShellExecution`); but
/// first Copilot, for a camelCase event and a field only Copilot sends (`toolName`,
/// `sessionId`, …); Codex or Gemini CLI when the event is theirs (`Interrupt`, `BeforeTool`).
fn agent_of_payload(point: &PointInfo, event: &str, json: &Value) -> Option<Dialect> {
    let cursor_event = hookchain_config::cursor::EVENTS
        .iter()
        .any(|(name, point)| *name == event && point.is_some());
    let cursor_fields =
        json.get("conversation_id").is_some() || json.get("workspace_roots").is_some();
    // Copilot's fields first: Copilot shares Cursor's camelCase event names, never its fields.
    if crate::payload::is_copilot_payload(event, json) {
        return Some(Dialect::Copilot);
    }
    if cursor_event && (cursor_fields || point.dialect_of(event) == Some(Dialect::Cursor)) {
        return Some(Dialect::Cursor);
    }
    point
        .dialect_of(event)
        .filter(|d| matches!(d, Dialect::Codex | Dialect::Gemini))
}

/// The registry `test` fires, built as the agent builds it (consent as the agent asks it, with
/// `--accept-hooks`), and what the build said.
pub(crate) struct Built {
    pub(crate) registry: Hooks,
    config: Config,
    /// Config left out, consent errors, the config's warnings and what was refused.
    pub(crate) notes: Vec<String>,
    /// Config left out and the hooks of the point skipped for want of consent: the first
    /// warnings of the JSON.
    pub(crate) skipped: Vec<String>,
}

impl Built {
    pub(crate) fn new(cli: &Cli, hooks: HooksBuilder, point: &PointInfo) -> Result<Built, Failure> {
        let (config, mut notes) = load_config(cli)?;
        let consent = load_consent(cli)?;
        let policy = ConsentPolicy::from_lookup(|name| std::env::var(name).ok());
        let (registry, errors) = hooks
            .config(config.clone())
            .consent(consent, policy)
            .accept_hooks(cli.accept_hooks)
            .build_reporting();
        // A lenient build leaves out what does not fit; say what that was, in the notes and in
        // the JSON's warnings (a guard its section cannot enable does not run: a tool must see
        // that).
        let left_out: Vec<String> = errors
            .iter()
            .map(|error| format!("{error} (left out)"))
            .collect();
        notes.extend(left_out.iter().cloned());
        for error in &registry.consent_report().errors {
            notes.push(error.to_string());
        }
        notes.extend(config.warnings().iter().cloned());
        notes.extend(refusals(&registry, &config));
        let skipped: Vec<String> = left_out
            .into_iter()
            .chain(
                registry
                    .consent_report()
                    .skipped
                    .iter()
                    .filter(|s| s.point == point.name)
                    .map(ToString::to_string),
            )
            .collect();
        Ok(Built {
            registry,
            config,
            notes,
            skipped,
        })
    }

    /// The hooks of `point` approved by something other than the allowlist, what was skipped,
    /// and the notes.
    fn remarks(&self, point: &PointInfo) -> String {
        let mut text = String::new();
        for admitted in &self.registry.consent_report().admitted {
            if admitted.point == point.name && admitted.accepted_by != AcceptedBy::Allowlist {
                let _ = writeln!(
                    text,
                    "approved `{}` (by {})",
                    admitted.name, admitted.accepted_by
                );
            }
        }
        for skip in &self.skipped {
            let _ = writeln!(text, "skipped: {skip}");
        }
        for note in &self.notes {
            let _ = writeln!(text, "note: {note}");
        }
        text
    }
}

/// The event (and the name it was given as), the payload and the session.
fn header(
    args: &TestArgs,
    point: &PointInfo,
    payload: &Value,
    given: &Given,
) -> Result<String, Failure> {
    let mut text = String::new();
    let alias = if point.name == args.event {
        String::new()
    } else {
        format!(" (as `{}`)", args.event)
    };
    let _ = writeln!(text, "event: {}{alias}", point.name);
    let shown = with_point!(point.name, canonical(payload))?;
    let _ = writeln!(text, "payload: {shown}");
    let _ = writeln!(
        text,
        "session: {} (cwd: {}; transcript: {})",
        given.session_id,
        given.cwd.as_ref().map_or_else(
            || "the current directory".to_owned(),
            |d| d.display().to_string()
        ),
        given
            .transcript_path
            .as_deref()
            .unwrap_or("one hookchain keeps for the test")
    );
    Ok(text)
}

/// The chain of `point` in order, each hook that will not run marked with why: its extension
/// is switched off, or its matcher does not match the payload's tool.
fn chain(built: &Built, point: &PointInfo, payload: &Value) -> String {
    let registry = &built.registry;
    let chain = registry.chain_of(point.name);
    if chain.is_empty() {
        return "chain: no hooks\n".to_owned();
    }
    let mut text = format!("chain: {} hook(s), in order\n", chain.len());
    let tool = match point.name {
        "intercept_tool_call" => payload.get("name"),
        _ => payload.get("tool_name"),
    }
    .and_then(Value::as_str);
    let rows: Vec<Vec<String>> = chain
        .iter()
        .map(|h| {
            let configured = built
                .config
                .external_hooks()
                .iter()
                .find(|e| e.point == h.point && *e.name == *h.name);
            let gate = match (configured, tool) {
                _ if state(registry, &h.extension) != ON => {
                    format!("  ({}: not run)", state(registry, &h.extension))
                }
                // A matcher is matched against the session's name and the agent's own, as a
                // firing matches it.
                (Some(hook), Some(tool))
                    if !hook.matcher.matches(tool)
                        && !hook.matcher.matches(&tool_name_in(hook.dialect, tool)) =>
                {
                    format!(
                        "  (its matcher `{}` does not match `{tool}`: not run)",
                        hook.matcher
                    )
                }
                _ => String::new(),
            };
            vec![
                h.priority.to_string(),
                h.name.to_string(),
                h.extension.to_string(),
                format!("{}:{}{gate}", h.file, h.line),
            ]
        })
        .collect();
    let listed = table(&["priority", "name", "extension", "location"], &rows, &[0]);
    for line in listed.lines() {
        let _ = writeln!(text, "  {line}");
    }
    text
}

/// The hooks that failed, then the outcome: the value the chain went on with (and who rewrote
/// it, the context and warnings the hooks added), or the hook that blocked and why.
fn outcome(fired: &Fired) -> String {
    let mut text = String::new();
    for failure in &fired.failures {
        let _ = writeln!(text, "failed: {failure}");
    }
    match &fired.report {
        TestReport::Continue {
            value,
            context,
            warnings,
        } => {
            if !fired.rewritten_by.is_empty() {
                let _ = writeln!(text, "rewritten by: {}", fired.rewritten_by.join(", "));
            }
            for line in context {
                let _ = writeln!(text, "context: {line}");
            }
            for line in warnings {
                let _ = writeln!(text, "warning: {line}");
            }
            let _ = writeln!(text, "outcome: continue with {value}");
        }
        TestReport::Blocked { reason, hook } => {
            let how = if fired.failed {
                " (the hook failed, and its on_error is block)"
            } else {
                ""
            };
            // A built-in guard's reason begins with its name, for the model: said once here.
            let reason = reason
                .strip_prefix(hook.as_str())
                .and_then(|rest| rest.strip_prefix(": "))
                .unwrap_or(reason);
            let _ = writeln!(text, "outcome: blocked by `{hook}`{how}: {reason}");
        }
    }
    text
}
