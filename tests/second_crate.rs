//! Hooks of a library crate (`tests/second-crate`) and hooks of this file, collected into one
//! `Hooks::global()` and run in one chain.
//!
//! The library is linked with `use second_crate as _;` alone: nothing else of it is named
//! here, which is how an agent links a crate of hooks it never calls.
//!
//! This test program is itself a crate named `second_crate`, so its hooks' default names start
//! with `second_crate::` too; files and extensions tell the two crates apart.
//!
//! The chains, in order (`*` = the library's):
//!
//! | point | priority | hook | does |
//! |---|---|---|---|
//! | `intercept_tool_call` | 0 | `attach_credentials` | `http_get` without headers: adds an `auth_token` header |
//! | | 5 | `redact_tokens`* | token-like args become `[redacted]` |
//! | | 10 | `audit_args` | blocks when a `ghp_` credential is still in the args |
//! | `transform_user_input` | 0 | `expand_login` | `/login X` becomes `please log in with X` |
//! | | 5 | `redact_user_input`* | token-like words become `[redacted]` |
//! | | 10 | `record_input` | records the text it saw |

use std::collections::HashMap;
use std::sync::LazyLock;

use hookchain::points::{InterceptToolCall, TransformUserInput};
use hookchain::registry::{HookInfo, HookSource};
use hookchain::{HookContext, prelude::*};
use parking_lot::Mutex;
use second_crate as _;

/// What this file's hooks saw, per (session, hook).
static SEEN: LazyLock<Mutex<HashMap<(String, &'static str), Value>>> =
    LazyLock::new(Default::default);

fn saw(cx: &HookContext, hook: &'static str, value: impl Into<Value>) {
    SEEN.lock()
        .insert((cx.session_id().to_owned(), hook), value.into());
}

fn seen(session: &str, hook: &'static str) -> Option<Value> {
    SEEN.lock().get(&(session.to_owned(), hook)).cloned()
}

/// `true` when a `ghp_` credential appears in any string of `value`.
fn leaks(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains("ghp_"),
        Value::Array(items) => items.iter().any(leaks),
        Value::Object(map) => map.values().any(leaks),
        _ => false,
    }
}

#[register_hook("intercept_tool_call")]
fn attach_credentials(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    saw(cx, "attach_credentials", call.args.clone());
    if call.name != "http_get" || call.args.get("headers").is_some() {
        return HookResult::Pass;
    }
    let mut args = call.args.clone();
    args["headers"] = json!({"auth_token": "ghp_from_the_keychain"});
    HookResult::Rewrite(args)
}

#[register_hook("intercept_tool_call", priority = 10, on_error = "block")]
fn audit_args(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    saw(cx, "audit_args", call.args.clone());
    if leaks(&call.args) {
        return HookResult::block("a credential would leak into the tool call");
    }
    HookResult::Pass
}

#[register_hook("transform_user_input")]
fn expand_login(text: &str) -> HookResult<String> {
    match text.strip_prefix("/login ") {
        Some(secret) => HookResult::Rewrite(format!("please log in with {secret}")),
        None => HookResult::Pass,
    }
}

#[register_hook("transform_user_input", priority = 10)]
fn record_input(text: &str, cx: &HookContext) -> HookResult<String> {
    saw(cx, "record_input", text);
    HookResult::Pass
}

const LIB_SOURCE: &str = include_str!("second-crate/src/lib.rs");
const LIB_FILE: &str = "tests/second-crate/src/lib.rs";
const THIS_SOURCE: &str = include_str!("second_crate.rs");

/// The line of `fn {ident}(` in `source`.
fn fn_line(source: &str, ident: &str) -> u32 {
    let needle = format!("fn {ident}(");
    let found: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&needle) && !l.trim_start().starts_with("//"))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(found.len(), 1, "{needle}: {found:?}");
    found[0] as u32
}

fn info(name: &str, point: &str) -> &'static HookInfo {
    let found: Vec<&HookInfo> = Hooks::global()
        .chain_of(point)
        .into_iter()
        .filter(|h| &*h.name == name)
        .collect();
    assert_eq!(found.len(), 1, "{name} on {point}: {found:?}");
    found[0]
}

/// `describe()` lists the library's hooks next to this file's, with the library's file and
/// extensions: an explicit one, and the default (the library's crate name, not this package's).
#[test]
fn describe_shows_the_hooks_of_both_crates() {
    let hooks = Hooks::global();
    let text = hooks.describe().to_string();
    assert_eq!(hooks.len(), 6, "{text}");
    assert!(
        text.starts_with(&format!(
            "6 hook(s): 6 collected by #[register_hook] ({}), 0 added by the builder\n",
            hookchain::__private::backend()
        )),
        "{text}"
    );
    // (name, point, priority, extension, on_error, location)
    let lib = |ident: &str| format!("{LIB_FILE}:{}", fn_line(LIB_SOURCE, ident));
    let this = |ident: &str| format!("{}:{}", file!(), fn_line(THIS_SOURCE, ident));
    let expected = [
        (
            "second_crate::redact_tokens",
            "intercept_tool_call",
            "5",
            "redaction",
            "pass",
            lib("redact_tokens"),
        ),
        (
            "second_crate::redact_user_input",
            "transform_user_input",
            "5",
            "second-crate",
            "pass",
            lib("redact_user_input"),
        ),
        (
            "second_crate::attach_credentials",
            "intercept_tool_call",
            "0",
            "hookchain",
            "pass",
            this("attach_credentials"),
        ),
        (
            "second_crate::audit_args",
            "intercept_tool_call",
            "10",
            "hookchain",
            "block",
            this("audit_args"),
        ),
        (
            "second_crate::expand_login",
            "transform_user_input",
            "0",
            "hookchain",
            "pass",
            this("expand_login"),
        ),
        (
            "second_crate::record_input",
            "transform_user_input",
            "10",
            "hookchain",
            "pass",
            this("record_input"),
        ),
    ];
    for (name, point, priority, extension, on_error, location) in &expected {
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.split_whitespace().nth(2) == Some(name))
            .collect();
        assert_eq!(rows.len(), 1, "{name}: {text}");
        let columns: Vec<&str> = rows[0].split_whitespace().collect();
        assert_eq!(
            columns,
            [
                point,
                priority,
                name,
                extension,
                on_error,
                "no",
                location.as_str()
            ],
            "{}",
            rows[0]
        );
        let info = info(name, point);
        assert_eq!(&*info.extension, *extension);
        assert_eq!(info.source, HookSource::Registered);
    }
}

/// The library's hook runs between this file's hooks, by priority, in one chain per point.
#[test]
fn hooks_of_both_crates_run_in_one_chain_in_priority_order() {
    let chain = |point: &str| -> Vec<(String, i32, String)> {
        Hooks::global()
            .chain_of(point)
            .iter()
            .map(|h| (h.name.to_string(), h.priority, h.file.to_string()))
            .collect()
    };
    let this = file!();
    assert_eq!(
        chain("intercept_tool_call"),
        [
            (
                "second_crate::attach_credentials".to_owned(),
                0,
                this.to_owned()
            ),
            (
                "second_crate::redact_tokens".to_owned(),
                5,
                LIB_FILE.to_owned()
            ),
            ("second_crate::audit_args".to_owned(), 10, this.to_owned()),
        ]
    );
    assert_eq!(
        chain("transform_user_input"),
        [
            ("second_crate::expand_login".to_owned(), 0, this.to_owned()),
            (
                "second_crate::redact_user_input".to_owned(),
                5,
                LIB_FILE.to_owned()
            ),
            ("second_crate::record_input".to_owned(), 10, this.to_owned()),
        ]
    );

    // Each hook ran, in that order: the first saw the call as sent, the last saw it redacted.
    let session = Hooks::global().session("order");
    let turn = session.begin_turn();
    let call = ToolCall::new("git_push", json!({"remote": "origin", "token": "ghp_abc"}));
    let outcome = turn.fire::<InterceptToolCall>(call.clone());
    assert_eq!(
        seen("order", "attach_credentials"),
        Some(call.args.clone()),
        "runs before the library's hook"
    );
    assert_eq!(
        seen("order", "audit_args"),
        Some(json!({"remote": "origin", "token": "[redacted]"})),
        "runs after the library's hook"
    );
    assert_eq!(outcome.rewritten_by, ["second_crate::redact_tokens"]);
    assert_eq!(
        outcome.metadata.get("redacted_by"),
        Some(&json!("second_crate::redact_tokens"))
    );
    turn.end(TurnEnd::Normal);
}

/// A rewrite made in this file reaches the library's hook, whose rewrite reaches this file's
/// next hook and the caller.
#[test]
fn a_tool_call_rewrite_flows_across_crates() {
    let session = Hooks::global().session("tool-call");
    let turn = session.begin_turn();
    let call = ToolCall::new("http_get", json!({"url": "https://example.com"})).with_id("c1");
    let outcome = turn.fire::<InterceptToolCall>(call);
    assert_eq!(
        outcome.rewritten_by,
        [
            "second_crate::attach_credentials",
            "second_crate::redact_tokens"
        ]
    );
    let redacted = json!({"url": "https://example.com", "headers": {"auth_token": "[redacted]"}});
    assert_eq!(seen("tool-call", "audit_args"), Some(redacted.clone()));
    let Flow::Continue(call) = outcome.flow else {
        panic!("not blocked: {:?}", outcome.flow)
    };
    assert_eq!(call.args, redacted);
    assert_eq!(
        (call.name.as_str(), call.id.as_deref()),
        ("http_get", Some("c1"))
    );

    // Nothing to redact: the library's hook passes and nothing is rewritten.
    let plain = ToolCall::new("read_file", json!({"path": "README.md"}));
    let outcome = turn.fire::<InterceptToolCall>(plain.clone());
    assert_eq!(outcome.flow, Flow::Continue(plain));
    assert!(outcome.rewritten_by.is_empty());
    assert!(outcome.metadata.is_empty());

    // A credential the library does not recognise (not under a token-like key) is caught by
    // this file's hook after it.
    let blocked = turn
        .intercept_tool_call(ToolCall::new("note", json!({"text": "ghp_abc"})))
        .blocked()
        .unwrap();
    assert_eq!(blocked.hook, "second_crate::audit_args");
    assert_eq!(blocked.reason, "a credential would leak into the tool call");
    turn.end(TurnEnd::Normal);
}

/// The same across crates for `transform_user_input`.
#[test]
fn a_user_input_rewrite_flows_across_crates() {
    let session = Hooks::global().session("user-input");
    let turn = session.begin_turn();
    let outcome = turn.fire::<TransformUserInput>("/login ghp_abc123".to_owned());
    assert_eq!(
        outcome.rewritten_by,
        [
            "second_crate::expand_login",
            "second_crate::redact_user_input"
        ]
    );
    assert_eq!(
        outcome.flow,
        Flow::Continue("please log in with [redacted]".to_owned())
    );
    assert_eq!(
        seen("user-input", "record_input"),
        Some(json!("please log in with [redacted]"))
    );
    assert_eq!(
        turn.transform_user_input("my key is sk-live42"),
        Flow::Continue("my key is [redacted]".to_owned()),
        "the library's hook alone"
    );
    assert_eq!(
        turn.transform_user_input("hello"),
        Flow::Continue("hello".to_owned())
    );
    turn.end(TurnEnd::Normal);
}

/// A library's `#[register_tool]` fn is collected like its hooks, in its crate's extension by
/// default, and runs through this program's chains.
#[test]
fn a_library_s_tool_is_collected_in_its_crate_s_extension() {
    let hooks = Hooks::global();
    assert_eq!(
        hooks.extension("second-crate").unwrap().tools(),
        ["word_count"]
    );
    let session = hooks.session("second-crate-tool");
    let spec = session
        .tools()
        .into_iter()
        .find(|t| t.name == "word_count")
        .expect("the library's tool is offered");
    assert_eq!(spec.extension, "second-crate");
    assert_eq!(
        spec.description,
        "Counts the words of each argument: `{\"title\": \"two words\"}` gives `{\"title\": 2}`."
    );
    assert_eq!(spec.parameters["type"], "object");
    let turn = session.begin_turn();
    let run = turn.call_tool(ToolCall::new("word_count", json!({"title": "two words"})));
    assert_eq!(run.result.tool_response, json!({"title": 2}));
    turn.end(TurnEnd::Normal);
}
