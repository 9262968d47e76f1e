//! The shapes of hook `#[register_hook]` accepts compile, and each one's record says what its
//! attribute said.

use std::fmt;

use hookchain::__private::{HookArg, Registration, registrations};
use hookchain::points::TurnEndEvent;
use hookchain::{HookContext, points::Message, prelude::*};

#[register_hook("intercept_tool_call")]
fn one_arg(call: &ToolCall) -> HookResult<Value> {
    if call.name == "rm" {
        return HookResult::block("no rm");
    }
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = 10)]
fn two_args(_: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    cx.set_metadata("seen", true);
    HookResult::Pass
}

#[register_hook("intercept_tool_call", priority = -5, on_error = "pass")]
fn fallible(call: &ToolCall) -> Result<HookResult<Value>, String> {
    match call.str_arg("path") {
        Some(_) => Ok(HookResult::Pass),
        None => Err(format!("`{}` has no path", call.name)),
    }
}

#[register_hook("transform_user_input")]
fn rewrites_text(text: &str) -> HookResult<String> {
    HookResult::Rewrite(text.trim().to_owned())
}

#[register_hook("before_llm_call", name = "inject_plan_rule")]
async fn async_hook(call: &LlmCall, _cx: &HookContext<'_>) -> HookResult<Injection> {
    if call.messages.is_empty() {
        HookResult::Pass
    } else {
        HookResult::inject_system("Plan first.")
    }
}

/// An `async fn` writes `&HookContext` as any hook does; the macro adds the `<'_>` that rustc
/// would otherwise ask for (E0726).
#[register_hook("transform_response", name = "async_elided_context")]
async fn async_elided_context(reply: &str, cx: &HookContext) -> HookResult<String> {
    HookResult::Rewrite(format!("{reply} [{}]", cx.hook_name()))
}

#[register_hook("turn_end")]
fn observe(_: &TurnEndEvent) {}

#[register_hook("turn_end", crate = hookchain)]
fn fallible_observe(event: &TurnEndEvent) -> Result<(), fmt::Error> {
    match event.reason {
        TurnEnd::Error(_) => Err(fmt::Error),
        _ => Ok(()),
    }
}

/// The hook whose record the test below reads, field by field.
#[register_hook(
    "intercept_tool_call",
    name = "shapes::named_guard",
    extension = "shape_tests",
    priority = -2147483648,
    on_error = "block",
    crate = "::hookchain"
)]
fn named_guard(call: &ToolCall, _: &HookContext) -> HookResult<Value> {
    HookResult::Rewrite(call.args.clone())
}

#[register_hook("intercept_tool_call", crate = ::hookchain, priority = 3)]
async fn async_without_context(_call: &ToolCall) -> Result<HookResult<Value>, std::io::Error> {
    Ok(HookResult::Pass)
}

/// A point of the test's own: fired before the agent sends an e-mail.
struct SendEmail;

struct Email {
    body: String,
}

impl HookPoint for SendEmail {
    const NAME: &'static str = "send_email";
    const KIND: PointKind = PointKind::Transform;
    type Value = Email;
    type Input = Email;
    type Rewrite = String;
    fn input(value: &Email) -> &Email {
        value
    }
    fn apply(value: &mut Email, body: String) {
        value.body = body;
    }
}

#[register_hook(SendEmail, priority = 1)]
fn sign_email(email: &Email) -> HookResult<String> {
    HookResult::Rewrite(format!("{}\n-- sent by an agent", email.body))
}

mod nested {
    use hookchain::prelude::*;

    #[register_hook(super::SendEmail, extension = "mail")]
    pub(crate) fn no_empty_email(email: &super::Email) -> HookResult<String> {
        if email.body.is_empty() {
            HookResult::block("empty e-mail")
        } else {
            HookResult::Pass
        }
    }
}

/// One hook on every built-in point, named by its canonical name, generated from hooks-core's
/// table of built-in points with the input and rewrite types the table gives.
macro_rules! hook_on_every_builtin_point {
    ($(
        $(#[$doc:meta])*
        $point:ident {
            name: $name:literal,
            kind: $kind:ident,
            fires: $fires:literal,
            aliases: [$(($alias:literal, $agent:literal)),* $(,)?],
            slot: $slot:literal,
            on_error: $on_error:ident,
            value: $value:ty,
            input: $input:ty,
            rewrite: $rewrite:ty,
            apply: $($apply:tt)*
        }
    )*) => {
        mod every_point {
            use hookchain::{HookContext, prelude::*};
            $(
                #[register_hook($name)]
                #[allow(non_snake_case)]
                pub(crate) fn $point(_: &$input, _: &HookContext) -> HookResult<$rewrite> {
                    HookResult::Pass
                }
            )*
        }

        /// Every built-in point, in the table's order: (name, type, kind, default `on_error`).
        const EVERY_POINT: &[(&str, &str, PointKind, OnError)] =
            &[$(($name, stringify!($point), PointKind::$kind, OnError::$on_error)),*];
    };
}

hookchain::__private::builtin_points!(hook_on_every_builtin_point);

fn record(name: &str) -> &'static Registration {
    let found: Vec<_> = registrations().filter(|r| r.name == name).collect();
    assert_eq!(found.len(), 1, "records named `{name}`: {found:?}");
    found[0]
}

#[test]
fn named_hook_record() {
    let r = record("shapes::named_guard");
    assert_eq!(r.point, "intercept_tool_call");
    assert_eq!(r.priority, i32::MIN);
    assert_eq!(r.extension, "shape_tests");
    assert_eq!(r.on_error, Some(OnError::Block));
    assert!(!r.is_async);
    assert!(r.file.ends_with("macro_shapes.rs"), "{}", r.file);
    // The line of the fn's name, not of the attribute above it.
    let source = include_str!("macro_shapes.rs");
    let fn_line = source
        .lines()
        .position(|line| line.starts_with("fn named_guard("))
        .unwrap()
        + 1;
    assert_eq!(r.line as usize, fn_line);
    assert!(
        r.sync_handler::<hookchain::points::InterceptToolCall>()
            .is_some()
    );
    assert!(
        r.async_handler::<hookchain::points::InterceptToolCall>()
            .is_none()
    );
}

#[test]
fn defaults() {
    let r = record("macro_shapes::one_arg");
    assert_eq!(r.point, "intercept_tool_call");
    assert_eq!(r.priority, 0);
    assert_eq!(r.extension, "hookchain");
    assert_eq!(r.on_error, None);
    assert!(!r.is_async);
}

#[test]
fn keys() {
    assert_eq!(record("macro_shapes::two_args").priority, 10);
    let fallible = record("macro_shapes::fallible");
    assert_eq!(fallible.priority, -5);
    assert_eq!(fallible.on_error, Some(OnError::Pass));
    assert_eq!(record("macro_shapes::async_without_context").priority, 3);
}

#[test]
fn points() {
    assert_eq!(
        record("macro_shapes::rewrites_text").point,
        "transform_user_input"
    );
    assert_eq!(record("inject_plan_rule").point, "before_llm_call");
    assert_eq!(record("macro_shapes::observe").point, "turn_end");
    assert_eq!(record("macro_shapes::fallible_observe").point, "turn_end");
    assert_eq!(record("macro_shapes::sign_email").point, "send_email");
    let nested = record("macro_shapes::nested::no_empty_email");
    assert_eq!(nested.point, "send_email");
    assert_eq!(nested.extension, "mail");
}

/// The macro knows every built-in point by its canonical name, and each one's record is of the
/// point the table says.
#[test]
fn every_builtin_point_by_its_name() {
    let catalog = hookchain::points::catalog();
    assert_eq!(EVERY_POINT.len(), catalog.len());
    for ((name, type_name, kind, on_error), info) in EVERY_POINT.iter().zip(catalog) {
        assert_eq!(*name, info.name);
        let r = record(&format!("macro_shapes::every_point::{type_name}"));
        assert_eq!(r.point, *name);
        assert_eq!(r.kind, *kind);
        assert_eq!(r.default_on_error, *on_error);
        assert_eq!(r.on_error, None);
    }
}

#[test]
fn async_hooks() {
    let r = record("inject_plan_rule");
    assert!(r.is_async);
    assert!(
        r.async_handler::<hookchain::points::BeforeLlmCall>()
            .is_some()
    );
    assert!(
        r.sync_handler::<hookchain::points::BeforeLlmCall>()
            .is_none()
    );
    assert!(record("macro_shapes::async_without_context").is_async);
    assert!(record("async_elided_context").is_async);
    // It runs, and its context is the dispatch's.
    let hooks = Hooks::builder()
        .collected_where(|h| h.name.as_ref() == "async_elided_context")
        .build()
        .unwrap();
    let session = hooks.session("async-elided");
    let turn = session.begin_turn();
    let reply = turn.transform_response("done").continued();
    assert_eq!(reply.as_deref(), Some("done [async_elided_context]"));
    turn.end(TurnEnd::Normal);
}

/// The user's fns are still there, callable as written.
#[test]
fn functions_stay_callable() {
    let call = ToolCall::new("rm", json!({}));
    assert!(one_arg(&call).is_block());
    assert_eq!(fallible(&call).unwrap_err(), "`rm` has no path".to_owned());
    assert_eq!(rewrites_text("  hi "), HookResult::Rewrite("hi".to_owned()));
    observe(&TurnEndEvent {
        session_id: "s".into(),
        turn: 0,
        reason: TurnEnd::Normal,
    });
    let email = Email {
        body: String::new(),
    };
    assert!(nested::no_empty_email(&email).is_block());
    assert!(sign_email(&email).is_rewrite());
}

/// The adapters the records hold call the hooks and normalise what they return.
#[test]
fn handlers_call_the_hooks() {
    let notes = hookchain::chain::Annotations::new();
    let cx = HookContext::new("s", 0, "intercept_tool_call", &notes);
    let handler = record("macro_shapes::fallible")
        .sync_handler::<hookchain::points::InterceptToolCall>()
        .unwrap();
    let failed = handler(&ToolCall::new("rm", json!({})), &cx)
        .into_return()
        .unwrap_err();
    assert_eq!(failed.message(), "`rm` has no path");
    let passed = handler(&ToolCall::new("edit", json!({"path": "a"})), &cx);
    assert!(passed.is_pass());

    let handler = record("macro_shapes::two_args")
        .sync_handler::<hookchain::points::InterceptToolCall>()
        .unwrap();
    assert!(handler(&ToolCall::new("ls", json!({})), &cx).is_pass());
    assert_eq!(cx.get_metadata("seen"), Some(json!(true)));

    let handler = record("macro_shapes::observe")
        .sync_handler::<hookchain::points::TurnEnded>()
        .unwrap();
    let event = TurnEndEvent {
        session_id: "s".into(),
        turn: 0,
        reason: TurnEnd::Normal,
    };
    assert!(handler(&event, &cx).is_pass());
}

/// An async hook's adapter returns a future of the normalised result.
#[test]
fn async_handlers_call_the_hooks() {
    let notes = hookchain::chain::Annotations::new();
    let cx = HookContext::new("s", 0, "before_llm_call", &notes);
    let handler = record("inject_plan_rule")
        .async_handler::<hookchain::points::BeforeLlmCall>()
        .unwrap();
    let call = LlmCall::new("You are helpful.", vec![Message::user("hi")]);
    let mut future = handler(&call, &cx);
    let mut poll_cx = std::task::Context::from_waker(std::task::Waker::noop());
    let std::task::Poll::Ready(result) = future.as_mut().poll(&mut poll_cx) else {
        panic!("the hook does not await anything, so it is ready at once");
    };
    assert_eq!(
        result.unwrap(),
        HookResult::Rewrite(Injection::system("Plan first."))
    );
}

/// `HookArg` is the trait that checks the first argument; it passes the input through.
#[test]
fn hook_arg_passes_the_input_through() {
    let call = ToolCall::new("ls", json!({}));
    let arg: &ToolCall = HookArg::from_input(&call);
    assert!(std::ptr::eq(arg, &call));
}

/// A hook written by a `macro_rules!` that hands over its argument's type as `$ty:ty` and its
/// body as `$body:block`: the compiler wraps each fragment in an invisible group, which the
/// attribute looks through.
macro_rules! hook_from_fragments {
    ($name:ident, $arg:ident: $input:ty, $body:block) => {
        #[register_hook("intercept_tool_call")]
        fn $name($arg: &$input) -> HookResult<Value> $body
    };
}

hook_from_fragments!(from_fragments, call: ToolCall, {
    if call.name == "rm" {
        return HookResult::block("no rm");
    }
    HookResult::Pass
});

#[test]
fn a_hook_whose_body_is_a_macro_fragment_is_registered_and_runs() {
    let notes = hookchain::chain::Annotations::new();
    let cx = HookContext::new("s", 0, "intercept_tool_call", &notes);
    let handler = record("macro_shapes::from_fragments")
        .sync_handler::<hookchain::points::InterceptToolCall>()
        .unwrap();
    assert!(handler(&ToolCall::new("ls", json!({})), &cx).is_pass());
    let blocked = handler(&ToolCall::new("rm", json!({})), &cx).into_return();
    assert!(matches!(blocked, Ok(HookResult::Block(reason)) if reason.as_str() == "no rm"));
}

/// A hook whose `name`, `extension` and `on_error` a `macro_rules!` hands over as `$l:literal`
/// fragments.
macro_rules! hook_with_literals {
    ($name:ident, $label:literal, $ext:literal, $policy:literal) => {
        #[register_hook("intercept_tool_call", name = $label, extension = $ext, on_error = $policy)]
        fn $name(_: &ToolCall) -> HookResult<Value> {
            HookResult::Pass
        }
    };
}

hook_with_literals!(from_literals, "literal-hook", "literal-ext", "block");

#[test]
fn name_extension_and_on_error_may_be_macro_fragments() {
    let record = record("literal-hook");
    assert_eq!(record.extension, "literal-ext");
    assert_eq!(record.on_error, Some(hookchain::OnError::Block));
}
