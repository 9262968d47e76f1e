//! Tools extensions give the model, through the public names: `#[register_tool]` fns collected
//! at link time (`cargo test --test tools`, and `--features linkme` for the other backend) and
//! `HooksBuilder::tool`, listed by `Session::tools` with their JSON Schema and called by
//! `Turn::call_tool` through the same chains as the agent's own tools.
//!
//! The attribute is written with its path, `#[hookchain::register_tool]`: rustc reserves the
//! bare name `register_tool` for a built-in attribute of its own.
//!
//! Each test builds a registry of its own (`HooksBuilder::new().collected()`, plus the hooks it
//! needs), so the guards of one test never touch another's calls; the tools record their runs
//! per session.

use std::collections::HashMap;
use std::fmt;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hookchain::Hooks;
use hookchain::points::{AfterToolCall, InterceptToolCall, Notify, TransformToolResult};
use hookchain::points::{Notification, ToolCall, ToolResult};
use hookchain::registry::{BoxFuture, BuildError, Sections};
use hookchain::schemars::JsonSchema;
use hookchain::{HookContext, HookOptions, HookResult, HooksBuilder, ToolSpec, TurnEnd};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The runs of the tools, per session: what each tool got.
static RUNS: LazyLock<Mutex<HashMap<String, Vec<Value>>>> = LazyLock::new(Default::default);

fn runs(session: &str) -> Vec<Value> {
    RUNS.lock().get(session).cloned().unwrap_or_default()
}

fn record(cx: &HookContext<'_>, what: Value) {
    RUNS.lock()
        .entry(cx.session_id().to_owned())
        .or_default()
        .push(what);
}

/// A note to keep.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "hookchain::schemars")]
struct AddNote {
    /// The note's text.
    text: String,
    /// Labels to find it by.
    #[serde(default)]
    tags: Vec<String>,
}

/// The `notes` extension's config.
#[derive(Debug, Deserialize)]
struct NotesConfig {
    #[serde(default)]
    prefix: String,
}

/// Keeps a note for later.
///
/// The note is kept for the session.
#[hookchain::register_tool(extension = "notes")]
fn add_note(args: AddNote, cx: &HookContext) -> Result<Value, String> {
    let config = cx.config::<NotesConfig>().map_err(|e| e.to_string())?;
    let text = format!("{}{}", config.prefix, args.text);
    record(cx, json!({"tool": "add_note", "text": text}));
    cx.add_context(format!("noted: {text}"));
    cx.warn("a note was kept");
    cx.notify(Notification::new(
        hookchain::points::Level::Info,
        "note kept",
    ));
    cx.turn_state().set("last_note", text.clone());
    Ok(json!({"kept": text, "tags": args.tags}))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "hookchain::schemars")]
struct NoArgs {}

#[derive(Debug, Serialize)]
struct Count {
    notes: usize,
}

#[derive(Debug)]
struct NoteError(&'static str);

impl fmt::Display for NoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the notes are {}", self.0)
    }
}

#[hookchain::register_tool(
    name = "count_notes",
    description = "Counts the notes kept in this session.",
    extension = "notes"
)]
fn count(_args: NoArgs, cx: &HookContext) -> Result<Count, NoteError> {
    if cx.session_state().get::<bool>("locked") == Some(true) {
        return Err(NoteError("locked"));
    }
    let notes = runs(cx.session_id()).len();
    Ok(Count { notes })
}

/// A question for the oracle.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "hookchain::schemars")]
struct Question {
    /// What to ask.
    ask: String,
    /// Never answer.
    #[serde(default)]
    forever: bool,
}

/// Answers a question, in its own time.
#[hookchain::register_tool(extension = "oracle")]
async fn oracle(args: Question, cx: &HookContext) -> Result<String, String> {
    if args.forever {
        std::future::pending::<()>().await;
    }
    record(cx, json!({"tool": "oracle", "ask": args.ask}));
    Ok(format!("42 is the answer to {}", args.ask))
}

/// A tool that panics.
#[hookchain::register_tool(extension = "broken")]
fn explode(_args: NoArgs) -> Result<u8, String> {
    panic!("the tool blew up")
}

/// The registry of a test: every collected tool, and `build` for the test's own hooks.
fn registry(build: impl FnOnce(HooksBuilder) -> HooksBuilder) -> Hooks {
    build(HooksBuilder::new().collected()).build().unwrap()
}

#[test]
fn tools_are_listed_with_their_json_schema() {
    let hooks = registry(|b| b);
    let session = hooks.session("tools-listed");
    let tools = session.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add_note", "count_notes", "explode", "oracle"]);

    let add = &tools[0];
    assert_eq!(
        add.description,
        "Keeps a note for later.\n\nThe note is kept for the session."
    );
    assert_eq!(add.extension, "notes");
    assert_eq!(add.parameters["type"], "object");
    assert_eq!(add.parameters["required"], json!(["text"]));
    assert_eq!(
        add.parameters["properties"]["text"],
        json!({"type": "string", "description": "The note's text."})
    );
    assert!(add.parameters.get("$schema").is_none());
    assert_eq!(add.to_openai()["function"]["parameters"], add.parameters);
    assert_eq!(add.to_anthropic()["input_schema"], add.parameters);
    assert_eq!(add.to_mcp()["inputSchema"], add.parameters);
    assert_eq!(
        tools[1].description,
        "Counts the notes kept in this session."
    );
    assert_eq!(tools[1].parameters["properties"], json!({}));

    // Each extension lists its tools; an extension with tools and no hook exists all the same.
    let notes = hooks.extension("notes").unwrap();
    assert_eq!(notes.tools(), ["add_note", "count_notes"]);
    assert_eq!(notes.hook_count(), 0);
    assert_eq!(hooks.extension("oracle").unwrap().tools(), ["oracle"]);
    assert_eq!(hooks.tools(), tools);

    let backend = if cfg!(feature = "linkme") {
        "linkme"
    } else {
        "inventory"
    };
    assert_eq!(hookchain::__private::backend(), backend);
}

#[test]
fn a_call_runs_through_the_chains_and_a_rewrite_reaches_the_tool() {
    let seen = std::sync::Arc::new(Mutex::new(Vec::<ToolResult>::new()));
    let after = std::sync::Arc::clone(&seen);
    let hooks = registry(|b| {
        b.hook(InterceptToolCall, 0, |call: &ToolCall, _: &HookContext| {
            if call.name == "add_note" {
                let mut args = call.args.clone();
                args["tags"] = json!(["checked"]);
                return HookResult::Rewrite(args);
            }
            HookResult::Pass
        })
        .hook(
            AfterToolCall,
            0,
            move |result: &ToolResult, _: &HookContext| {
                after.lock().push(result.clone());
            },
        )
        .hook(
            TransformToolResult,
            0,
            |result: &ToolResult, _: &HookContext| {
                let mut response = result.tool_response.clone();
                response["seen_by"] = json!("transform_tool_result");
                HookResult::Rewrite(response)
            },
        )
        .hook(Notify, 0, |n: &Notification, cx: &HookContext| {
            record(cx, json!({"notification": n.message}));
        })
        .sections(Sections::new().extension("notes", json!({"prefix": "> "})))
    });
    let session = hooks.session("tools-chain");
    let turn = session.begin_turn();
    let run = turn.call_tool(ToolCall::new("add_note", json!({"text": "buy milk"})).with_id("c1"));
    assert!(run.ran);
    assert!(run.blocked.is_none());
    assert!(!run.result.is_error, "{:?}", run.result);
    assert_eq!(
        run.result.tool_response,
        json!({"kept": "> buy milk", "tags": ["checked"], "seen_by": "transform_tool_result"})
    );
    assert_eq!(run.result.tool_use_id.as_deref(), Some("c1"));
    // The extension's config reached the tool; what it attached reached the turn.
    assert_eq!(
        runs("tools-chain"),
        [
            json!({"tool": "add_note", "text": "> buy milk"}),
            json!({"notification": "note kept"}),
        ]
    );
    assert_eq!(turn.take_context(), ["noted: > buy milk"]);
    assert_eq!(turn.take_warnings(), ["a note was kept"]);
    assert_eq!(
        turn.state().get::<String>("last_note").unwrap(),
        "> buy milk"
    );
    // `after_tool_call` saw the call as it ran.
    let seen = seen.lock();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].tool_input,
        json!({"text": "buy milk", "tags": ["checked"]})
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_block_stops_the_tool() {
    static AUDITED: AtomicUsize = AtomicUsize::new(0);
    let hooks = registry(|b| {
        b.hook_with(
            InterceptToolCall,
            HookOptions::new("no-secrets").extension("guard"),
            |call: &ToolCall, _: &HookContext| {
                let text = call.args["text"].as_str().unwrap_or_default();
                if text.contains("password") {
                    return HookResult::<Value>::block("notes must not hold passwords");
                }
                HookResult::Pass
            },
        )
        .hook(AfterToolCall, 0, |r: &ToolResult, _: &HookContext| {
            if r.blocked.is_some() {
                AUDITED.fetch_add(1, Ordering::SeqCst);
            }
        })
    });
    let turn = hooks.session("tools-block").begin_turn();
    let run = turn.call_tool(ToolCall::new(
        "add_note",
        json!({"text": "password: hunter2"}),
    ));
    assert!(!run.ran);
    assert_eq!(run.blocked.as_ref().unwrap().hook, "no-secrets");
    assert!(run.result.is_error);
    assert_eq!(
        run.result.tool_response,
        json!("notes must not hold passwords")
    );
    assert!(runs("tools-block").is_empty(), "the tool did not run");
    assert_eq!(AUDITED.load(Ordering::SeqCst), 1);
    turn.end(TurnEnd::Normal);
}

#[test]
fn an_unknown_tool_is_an_error_result_with_a_suggestion() {
    let hooks = registry(|b| b);
    let turn = hooks.session("tools-unknown").begin_turn();
    let run = turn.call_tool(ToolCall::new("add_nots", json!({"text": "x"})));
    assert!(!run.ran);
    assert!(run.result.is_error);
    assert_eq!(
        run.result.tool_response,
        json!("there is no tool `add_nots`, did you mean `add_note`?")
    );
    let run = turn.call_tool(ToolCall::new("weather", json!({})));
    assert_eq!(
        run.result.tool_response,
        json!(
            "there is no tool `weather`; the tools are `add_note`, `count_notes`, `explode`, \
             `oracle`"
        )
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn only_active_tools_are_offered_and_run() {
    let hooks = registry(|b| b);
    let session = hooks.session("tools-active");
    assert_eq!(
        session.active_tools(),
        ["add_note", "count_notes", "explode", "oracle"]
    );
    session.set_active_tools(["count_notes", "oracle", "no_such_tool"]);
    assert_eq!(session.active_tools(), ["count_notes", "oracle"]);
    let offered: Vec<String> = session.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(offered, ["count_notes", "oracle"]);
    let turn = session.begin_turn();
    let run = turn.call_tool(ToolCall::new("add_note", json!({"text": "x"})));
    assert!(!run.ran);
    assert_eq!(
        run.result.tool_response,
        json!(
            "the tool `add_note` is not active in this session; the active tools are \
             `count_notes`, `oracle`"
        )
    );
    // A name from a `Vec<String>` works as well as a `&str`.
    session.set_active_tools(vec![String::from("add_note")]);
    assert_eq!(session.active_tools(), ["add_note"]);
    // Another session of the registry offers every tool still.
    assert_eq!(hooks.session("tools-active-other").tools().len(), 4);
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_disabled_extension_s_tools_are_neither_offered_nor_run() {
    let hooks = registry(|b| b);
    hooks.disable_extension("notes").unwrap();
    let session = hooks.session("tools-disabled");
    let offered: Vec<String> = session.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(offered, ["explode", "oracle"]);
    let turn = session.begin_turn();
    let run = turn.call_tool(ToolCall::new("add_note", json!({"text": "x"})));
    assert!(!run.ran);
    assert_eq!(
        run.result.tool_response,
        json!(
            "the tool `add_note` is off: its extension `notes` is disabled (disabled by the \
             agent's code); turn it on with `extensions: {notes: {enabled: true}}` in \
             hookchain.yaml or `Hooks::enable_extension(\"notes\")`"
        )
    );
    assert!(runs("tools-disabled").is_empty());
    hooks.enable_extension("notes").unwrap();
    assert!(
        turn.call_tool(ToolCall::new("add_note", json!({"text": "x"})))
            .ran
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn args_that_do_not_fit_name_the_field_and_the_closest_parameter() {
    let hooks = registry(|b| b);
    let turn = hooks.session("tools-bad-args").begin_turn();
    let run = turn.call_tool(ToolCall::new("add_note", json!({"txt": "milk"})));
    assert!(run.result.is_error);
    assert_eq!(
        run.result.tool_response,
        json!(
            "the arguments of tool `add_note` do not fit its parameters: missing field `text`; \
             `txt` is not one of its parameters, did you mean `text`?"
        )
    );
    let run = turn.call_tool(ToolCall::new("add_note", json!({"text": "a", "tags": [1]})));
    assert_eq!(
        run.result.tool_response,
        json!(
            "the arguments of tool `add_note` do not fit its parameters: at `tags[0]`: invalid \
             type: integer `1`, expected a string"
        )
    );
    assert!(!run.ran, "args that do not fit leave the tool unrun");
    // An array is no object, though serde would read a struct from it.
    let run = turn.call_tool(ToolCall::new("add_note", json!(["milk", []])));
    assert!(run.result.is_error && !run.ran);
    assert_eq!(
        run.result.tool_response,
        json!(
            "the arguments of tool `add_note` do not fit its parameters: the arguments are a \
             JSON object of the parameters `tags`, `text`, not an array"
        )
    );
    assert!(runs("tools-bad-args").is_empty(), "the tool body never ran");
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_builder_tool_s_args_are_checked_against_its_schema_before_it_runs() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let schema = json!({
        "type": "object",
        "properties": {"n": {"type": "integer"}, "label": {"type": ["string", "null"]}},
        "required": ["n"],
        "additionalProperties": false,
    });
    let hooks = HooksBuilder::new()
        .tool(
            ToolSpec::new("double", "Doubles n.", schema),
            |args: Value, _cx: &HookContext<'_>| {
                CALLS.fetch_add(1, Ordering::SeqCst);
                Ok(json!(args["n"].as_i64().unwrap_or(0) * 2))
            },
        )
        .build()
        .unwrap();
    let turn = hooks.session("tools-builder-schema").begin_turn();
    let refused = |args: Value, said: &str| {
        let run = turn.call_tool(ToolCall::new("double", args));
        assert!(run.result.is_error && !run.ran, "{run:?}");
        assert_eq!(
            run.result.tool_response,
            json!(format!(
                "the arguments of tool `double` do not fit its parameters: {said}"
            ))
        );
    };
    refused(
        json!({"count": 2}),
        "missing field `n`; `count` is not one of its parameters (`label`, `n`)",
    );
    refused(
        json!({"n": "2"}),
        "at `n`: invalid type: a string, expected integer",
    );
    refused(
        json!({"n": 2, "extra": 1}),
        "unknown field `extra`; `extra` is not one of its parameters (`label`, `n`)",
    );
    refused(
        json!(2),
        "the arguments are a JSON object of the parameters `label`, `n`, not an integer",
    );
    assert_eq!(CALLS.load(Ordering::SeqCst), 0, "the handler never ran");
    let run = turn.call_tool(ToolCall::new("double", json!({"n": 21, "label": null})));
    assert!(run.ran && !run.result.is_error);
    assert_eq!(run.result.tool_response, json!(42));
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_tool_s_error_and_panic_are_error_results() {
    let hooks = registry(|b| b);
    let session = hooks.session("tools-errors");
    session.state().set("locked", true);
    let turn = session.begin_turn();
    let run = turn.call_tool(ToolCall::new("count_notes", json!({})));
    assert!(run.ran);
    assert_eq!(run.result.tool_response, json!("the notes are locked"));
    let run = turn.call_tool(ToolCall::new("explode", json!({})));
    assert!(run.result.is_error);
    assert_eq!(
        run.result.tool_response,
        json!("the tool `explode` panicked: the tool blew up")
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn the_sync_call_drives_an_async_tool() {
    let hooks = registry(|b| b);
    let turn = hooks.session("tools-sync-async").begin_turn();
    let run = turn.call_tool(ToolCall::new("oracle", json!({"ask": "life"})));
    assert_eq!(run.result.tool_response, json!("42 is the answer to life"));
    turn.end(TurnEnd::Normal);
}

#[tokio::test]
async fn an_async_call_awaits_the_tool() {
    let hooks = registry(|b| b);
    let turn = hooks.session("tools-async").begin_turn();
    let run = turn
        .call_tool_async(ToolCall::new("oracle", json!({"ask": "everything"})))
        .await;
    assert_eq!(
        run.result.tool_response,
        json!("42 is the answer to everything")
    );
    let run = turn
        .call_tool_async(ToolCall::new("add_note", json!({"text": "async"})))
        .await;
    assert!(run.ran && !run.result.is_error, "{:?}", run.result);
    turn.end_async(TurnEnd::Normal).await;
}

#[tokio::test(start_paused = true)]
async fn an_async_tool_that_never_answers_is_stopped_at_the_time_limit() {
    let hooks = registry(|b| b.async_timeout(Duration::from_secs(5)));
    let turn = hooks.session("tools-timeout").begin_turn();
    let run = turn
        .call_tool_async(ToolCall::new(
            "oracle",
            json!({"ask": "x", "forever": true}),
        ))
        .await;
    assert!(run.ran);
    assert_eq!(
        run.result.tool_response,
        json!("the tool `oracle` did not finish within its time limit of 5s, and was stopped")
    );
    turn.end_async(TurnEnd::Normal).await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_sync_call_of_a_waiting_async_tool_in_a_current_thread_runtime_names_the_async_call() {
    let hooks = registry(|b| b);
    let turn = hooks.session("tools-current-thread").begin_turn();
    let run = turn.call_tool(ToolCall::new(
        "oracle",
        json!({"ask": "x", "forever": true}),
    ));
    assert_eq!(
        run.result.tool_response,
        json!(
            "the async tool `oracle` cannot be waited for inside a current-thread tokio \
             runtime: the agent must call it with Turn::call_tool_async"
        )
    );
    turn.end_async(TurnEnd::Normal).await;
}

fn echo(args: Value, _cx: &HookContext<'_>) -> Result<Value, String> {
    Ok(args)
}

fn later<'a>(args: Value, _cx: &'a HookContext<'a>) -> BoxFuture<'a, Result<Value, String>> {
    Box::pin(async move { Ok(json!({"later": args})) })
}

fn object() -> Value {
    json!({"type": "object", "properties": {"x": {"type": "integer"}}})
}

#[test]
fn builder_tools_run_like_registered_ones() {
    let hooks = HooksBuilder::new()
        .tool(
            ToolSpec::new("echo", "Echoes.", object()).in_extension("echoes"),
            echo,
        )
        .async_tool(ToolSpec::new("later", "Echoes later.", object()), later)
        .build()
        .unwrap();
    assert_eq!(hooks.extension("echoes").unwrap().tools(), ["echo"]);
    assert_eq!(hooks.extension("app").unwrap().tools(), ["later"]);
    let turn = hooks.session("tools-builder").begin_turn();
    assert_eq!(
        turn.call_tool(ToolCall::new("echo", json!({"x": 1})))
            .result
            .tool_response,
        json!({"x": 1})
    );
    assert_eq!(
        turn.call_tool(ToolCall::new("later", json!({"x": 2})))
            .result
            .tool_response,
        json!({"later": {"x": 2}})
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn two_tools_of_one_name_fail_the_build_naming_both() {
    let line = line!() + 3;
    let error = HooksBuilder::new()
        .collected()
        .tool(ToolSpec::new("add_note", "Another.", object()), echo)
        .build()
        .unwrap_err();
    let BuildError::DuplicateTool {
        name,
        first,
        second,
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(name, "add_note");
    let here = format!("tests/tools.rs:{line}");
    let both = [first.as_str(), second.as_str()];
    assert!(both.contains(&here.as_str()), "{error}");
    assert!(
        both.iter()
            .any(|at| at.starts_with("tests/tools.rs:") && *at != here),
        "the #[register_tool] fn is named too: {error}"
    );
    assert!(
        error
            .to_string()
            .starts_with("two tools are named `add_note` (")
    );
    // A lenient build keeps one of them.
    let (hooks, errors) = HooksBuilder::new()
        .collected()
        .tool(ToolSpec::new("add_note", "Another.", object()), echo)
        .build_reporting();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        hooks
            .tools()
            .iter()
            .filter(|t| t.name == "add_note")
            .count(),
        1
    );
}

#[test]
fn a_tool_a_provider_would_refuse_fails_the_build() {
    let error = HooksBuilder::new()
        .tool(ToolSpec::new("read file", "Reads.", object()), echo)
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains(
            "the tool name `read file` is not one providers accept: use 1 to 64 ASCII letters, \
             digits, `_` or `-`"
        ),
        "{error}"
    );
    let error = HooksBuilder::new()
        .tool(
            ToolSpec::new("echo", "Echoes.", json!({"type": "string"})),
            echo,
        )
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the parameters of tool `echo` are not a JSON Schema object"),
        "{error}"
    );
}
