//! A complete agent loop that fires every hook point of the catalog, in order, and prints the
//! timeline.
//!
//! The model and the tools are scripted (no network). One hook per point prints what it sees,
//! and a few do real work: `session_start` injects project rules, `intercept_tool_call` keeps the
//! shell in the sandbox, `transform_tool_result` trims long output, `on_stop` sends the agent
//! back once because its reply forgot the tests, `transform_response` adds a footer, and a
//! `before_compaction` hook supplies the summary, after which `session_start` fires again with
//! the source `compact`. `turn_start` gives the turn its own context, `permission_request`
//! allows the test run without asking, `after_tool_batch` sees each reply's calls together, and
//! the agent reports its iteration cap and that it waits for the user. A child agent's tool call
//! goes through the same chains, and a flaky audit hook shows up as a `notification`. Between
//! turns the user types slash commands: `slash_command` sees each one before it runs.
//!
//! Run it with `cargo run --example agent_loop`.

use hookchain::Stop;
use hookchain::points::SlashCommand;
use hookchain::points::{
    Compaction, CompactionDone, LlmReply, Notification, Outbound, PermissionAsk, PermissionGrant,
    SessionEndEvent, SessionResetEvent, SessionSource, SessionStartEvent, StopEvent,
    SubagentStopEvent, ToolBatch, ToolResult, TurnEndEvent, TurnStartEvent,
};
use hookchain::{HookContext, points::Message, prelude::*, register_command};

fn at(cx: &HookContext, what: std::fmt::Arguments<'_>) {
    println!("  [{:<21}] {what}", cx.point());
}

// --- session -----------------------------------------------------------------------------------

#[register_hook("session_start")]
fn project_rules(event: &SessionStartEvent, cx: &HookContext) -> HookResult<String> {
    at(
        cx,
        format_args!("{} starts ({:?})", event.session_id, event.source),
    );
    match event.source {
        // After a compaction, re-inject what the summary may have lost.
        SessionSource::Compact => HookResult::Rewrite("The build fix is in the Makefile.".into()),
        _ => {
            HookResult::Rewrite("Project rules: run the tests before you say you are done.".into())
        }
    }
}

#[register_hook("session_reset")]
fn on_reset(event: &SessionResetEvent, cx: &HookContext) {
    at(
        cx,
        format_args!("{} -> {}", event.old_session_id, event.new_session_id),
    );
}

#[register_hook("session_end")]
fn on_session_end(event: &SessionEndEvent, cx: &HookContext) {
    at(
        cx,
        format_args!("{} ends: {}", event.session_id, event.reason),
    );
}

#[register_hook("subagent_stop")]
fn on_subagent_stop(event: &SubagentStopEvent, cx: &HookContext) {
    at(
        cx,
        format_args!(
            "child {} of {} stopped: {}",
            event.session_id, event.parent_session_id, event.reason
        ),
    );
}

// --- turn --------------------------------------------------------------------------------------

#[register_hook("transform_user_input")]
fn trim_input(text: &str, cx: &HookContext) -> HookResult<String> {
    at(cx, format_args!("{text:?}"));
    if text != text.trim() {
        HookResult::Rewrite(text.trim().to_owned())
    } else {
        HookResult::Pass
    }
}

#[register_hook("turn_start")]
fn today(event: &TurnStartEvent, cx: &HookContext) -> HookResult<String> {
    at(cx, format_args!("{:?}", event.prompt));
    HookResult::Rewrite("Today the CI is slow: prefer `cargo test` over `make check`.".into())
}

#[register_hook("before_llm_call")]
fn count_calls(call: &LlmCall, cx: &HookContext) -> HookResult<Injection> {
    let n = cx.turn_state().update("llm_calls", |n: &mut u32| {
        *n += 1;
        *n
    });
    at(
        cx,
        format_args!(
            "model call #{} with {} message(s)",
            n.unwrap_or(0),
            call.messages.len()
        ),
    );
    HookResult::Pass
}

#[register_hook("after_llm_call")]
fn log_reply(reply: &LlmReply, cx: &HookContext) {
    let tools: Vec<&str> = reply.tool_calls.iter().map(|c| c.name.as_str()).collect();
    at(cx, format_args!("{:?} tool calls {tools:?}", reply.text));
}

#[register_hook("intercept_tool_call", priority = 10)]
fn sandbox_shell(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    at(cx, format_args!("{} {}", call.name, call.args));
    match (call.name.as_str(), call.str_arg("cwd")) {
        ("shell", Some(cwd)) if !cwd.starts_with("/sandbox") => {
            HookResult::Rewrite(json!({"cmd": call.args["cmd"], "cwd": format!("/sandbox{cwd}")}))
        }
        _ => HookResult::Pass,
    }
}

#[register_hook("permission_request")]
fn tests_need_no_asking(ask: &PermissionAsk, cx: &HookContext) -> HookResult<PermissionGrant> {
    at(cx, format_args!("{} {}", ask.tool_name, ask.tool_input));
    if ask.tool_input["cmd"] == "cargo test" {
        return HookResult::allow();
    }
    HookResult::Pass
}

#[register_hook("after_tool_call", priority = 0)]
fn flaky_audit(result: &ToolResult) {
    if result.tool_name == "shell" && result.is_error {
        panic!("the audit log is read-only");
    }
}

#[register_hook("after_tool_call", priority = 1)]
fn log_tool(result: &ToolResult, cx: &HookContext) {
    at(
        cx,
        format_args!(
            "{} ran in {} (error: {})",
            result.tool_name, result.tool_input, result.is_error
        ),
    );
}

#[register_hook("after_tool_batch")]
fn batch(batch: &ToolBatch, cx: &HookContext) -> HookResult<String> {
    let failed = batch.results.iter().filter(|r| r.is_error).count();
    at(
        cx,
        format_args!("{} call(s), {failed} failed", batch.results.len()),
    );
    if failed > 0 {
        return HookResult::Rewrite(format!("{failed} call(s) failed: read the errors first."));
    }
    HookResult::Pass
}

#[register_hook("transform_tool_result")]
fn trim_output(result: &ToolResult, cx: &HookContext) -> HookResult<Value> {
    let text = result.tool_response.as_str().unwrap_or_default();
    at(cx, format_args!("{} bytes of output", text.len()));
    if text.len() > 40 {
        cx.add_context("the tool's output was trimmed to 40 bytes");
        return HookResult::Rewrite(json!(format!("{}…", &text[..40])));
    }
    HookResult::Pass
}

#[register_hook("on_stop")]
fn tests_before_done(event: &StopEvent, cx: &HookContext) -> HookResult<String> {
    at(
        cx,
        format_args!(
            "{:?} (stop_hook_active: {})",
            event.response, event.stop_hook_active
        ),
    );
    if !event.response.contains("tests") {
        return HookResult::block(
            "You did not say whether the tests pass. Run them, then answer again.",
        );
    }
    HookResult::Pass
}

#[register_hook("transform_response")]
fn footer(reply: &str, cx: &HookContext) -> HookResult<String> {
    at(cx, format_args!("{reply:?}"));
    HookResult::Rewrite(format!("{reply}\n— checked by hookchain"))
}

#[register_hook("outbound_message")]
fn no_mentions(message: &Outbound, cx: &HookContext) -> HookResult<String> {
    at(
        cx,
        format_args!("to {} on {}", message.recipient, message.platform),
    );
    HookResult::Rewrite(message.text.replace("@channel", "channel"))
}

#[register_hook("slash_command")]
fn audit_command(command: &SlashCommand, cx: &HookContext) -> HookResult<String> {
    at(cx, format_args!("/{} {:?}", command.name, command.args));
    HookResult::Pass
}

/// How many turns the session has run.
#[register_command("turns")]
fn turns(_args: &str, cx: &HookContext) -> String {
    format!("{} turn(s) so far", cx.turn())
}

#[register_hook("before_compaction")]
fn summary(compaction: &Compaction, cx: &HookContext) -> HookResult<String> {
    at(
        cx,
        format_args!(
            "{} messages ({})",
            compaction.messages.len(),
            compaction.trigger
        ),
    );
    HookResult::Rewrite(format!(
        "{} messages about fixing the build",
        compaction.messages.len()
    ))
}

#[register_hook("after_compaction")]
fn compacted(done: &CompactionDone, cx: &HookContext) {
    at(
        cx,
        format_args!(
            "{} -> {} messages: {:?}",
            done.messages_before, done.messages_after, done.summary
        ),
    );
}

#[register_hook("turn_end")]
fn on_turn_end(event: &TurnEndEvent, cx: &HookContext) {
    let calls: u32 = cx.turn_state().get("llm_calls").unwrap_or(0);
    at(
        cx,
        format_args!(
            "turn {} of {}: {} after {calls} model call(s)",
            event.turn, event.session_id, event.reason
        ),
    );
}

#[register_hook("notification")]
fn print_notification(n: &Notification, cx: &HookContext) {
    at(
        cx,
        format_args!("{:?} {:?}: {}", n.kind, n.level, n.message),
    );
}

// --- the agent ---------------------------------------------------------------------------------

/// The scripted model: what it replies to the n-th call of a turn.
fn model(script: &[LlmReply], n: usize) -> LlmReply {
    script
        .get(n)
        .cloned()
        .unwrap_or_else(|| LlmReply::text("Done. The tests pass."))
}

fn shell(call: &ToolCall) -> Result<Value, String> {
    match call.str_arg("cmd") {
        Some("cargo test") => Ok(json!(
            "running 12 tests ............ test result: ok. 12 passed; 0 failed"
        )),
        Some("make") => Err("make: *** No rule to make target".into()),
        _ => Ok(json!("")),
    }
}

/// One turn: input, model calls with tool calls until the model replies, on_stop, the reply.
fn turn(session: &Session, user: &str, script: &[LlmReply]) {
    println!("\nturn: {user:?}");
    let turn = session.begin_turn();
    let Flow::Continue(prompt) = turn.transform_user_input(user) else {
        return turn.end(TurnEnd::Blocked);
    };
    // Once per turn, before its first model call: context for this turn only.
    let Flow::Continue(start) = turn.turn_start(prompt.clone()) else {
        return turn.end(TurnEnd::Blocked);
    };
    let mut messages = vec![Message::user(prompt)];
    let mut n = 0;
    let reply = loop {
        if n == MAX_ITERATIONS {
            turn.max_iterations_reached(MAX_ITERATIONS as u32);
            return turn.end(TurnEnd::MaxIterations);
        }
        let mut system = session.context().join("\n");
        for text in &start.context {
            system.push('\n');
            system.push_str(text);
        }
        // A real agent sends the call, with every injection applied, to its model.
        let Flow::Continue(_call) = turn.before_llm_call(LlmCall::new(system, messages.clone()))
        else {
            return turn.end(TurnEnd::Blocked);
        };
        let reply = turn.after_llm_call(model(script, n));
        n += 1;
        messages.push(Message::assistant(reply.text.clone()));
        let mut results = Vec::new();
        for tool_call in reply.tool_calls.clone() {
            let run = turn.run_tool(tool_call, |call| {
                // The agent would ask the user before running a shell command; a hook may
                // answer for them (`allowed`), and here the user says yes to the rest.
                match turn.permission_request(PermissionAsk::new(call)) {
                    Flow::Continue(ask) => shell(&ask.call()),
                    Flow::Blocked(b) => Err(b.reason),
                }
            });
            messages.push(Message::tool(run.result.tool_response.to_string()));
            results.push(run.result);
        }
        if !reply.tool_calls.is_empty() {
            // Every call of this reply has run: one firing for the batch.
            match turn.after_tool_batch(results) {
                Flow::Continue(batch) => {
                    messages.extend(batch.context.into_iter().map(Message::user));
                }
                Flow::Blocked(_) => return turn.end(TurnEnd::Blocked),
            }
            continue;
        }
        match turn.on_stop(reply.text) {
            Stop::Finish(text) => break text,
            Stop::Redo { instruction, .. } => messages.push(Message::user(instruction)),
            Stop::Capped { response, .. } => break response,
        }
    };
    let Flow::Continue(reply) = turn.transform_response(reply) else {
        return turn.end(TurnEnd::Blocked);
    };
    let out = Outbound {
        platform: "slack".into(),
        recipient: "#builds".into(),
        text: format!("@channel {reply}"),
    };
    if let Flow::Continue(out) = turn.outbound_message(out) {
        println!("  => {}: {}", out.recipient, out.text.replace('\n', " "));
    }
    if messages.len() > 4 {
        let compaction = Compaction {
            messages: messages.clone(),
            trigger: "auto".into(),
            summary: None,
        };
        if let Flow::Continue(c) = turn.before_compaction(compaction) {
            let summary = c
                .summary
                .unwrap_or_else(|| "the agent's own summary".into());
            turn.after_compaction(CompactionDone {
                summary,
                messages_before: messages.len(),
                messages_after: 1,
            });
            // Same session, context compacted: start hooks re-inject what the summary lost.
            if let Flow::Continue(again) = session.restart(SessionSource::Compact) {
                println!("  => after the compaction: {:?}", again.context);
            }
        }
    }
    turn.waiting_for_user("the build is fixed: anything else?");
    turn.end(TurnEnd::Normal);
}

/// The most model calls one turn may make.
const MAX_ITERATIONS: usize = 4;

fn main() {
    // A hook's panic is caught and reported as a notification; keep std's report to one line.
    std::panic::set_hook(Box::new(|info| eprintln!("  (a hook panicked: {info})")));
    println!("{}", Hooks::global().describe());
    let session = Hooks::global().session("build-fixer");

    let shell_call = |cmd: &str| ToolCall::new("shell", json!({"cmd": cmd, "cwd": "/repo"}));
    turn(
        &session,
        "  fix the build  ",
        &[
            LlmReply {
                text: "Let me look.".into(),
                tool_calls: vec![shell_call("make")],
            },
            LlmReply::text("I fixed the Makefile."),
            LlmReply {
                text: "Running them.".into(),
                tool_calls: vec![shell_call("cargo test")],
            },
            LlmReply::text("Fixed the Makefile; the tests pass."),
        ],
    );

    // A model that never stops calling tools runs into the agent's cap.
    let ls = LlmReply {
        text: "Checking again.".into(),
        tool_calls: vec![ToolCall::new(
            "shell",
            json!({"cmd": "ls", "cwd": "/sandbox"}),
        )],
    };
    turn(&session, "make sure", &vec![ls; MAX_ITERATIONS]);

    println!("\nthe user types commands between turns");
    for line in ["/turns", "/hooks status"] {
        if let Some(reply) = session.command(line) {
            println!(
                "  => {line}: {}",
                reply.text.lines().next().unwrap_or_default()
            );
        }
    }

    println!("\na child agent reviews the fix");
    let child = session.child("build-fixer/reviewer");
    let review = child.begin_turn();
    let run = review.run_tool(shell_call("cargo test"), shell);
    println!(
        "  => the reviewer's tool result: {}",
        run.result.tool_response
    );
    review.end(TurnEnd::Normal);
    child.end("review done");

    println!("\n/new");
    let session = session.reset("build-fixer-2");
    session.end("user quit");
}
