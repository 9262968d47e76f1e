//! A small library of hooks, defined in a crate of its own.
//!
//! Hooks written with `#[register_hook]` in a library are collected into the agent's
//! [`Hooks::global()`](hookchain::Hooks::global) registry when the library is linked into the
//! agent's binary. A binary that calls nothing of the library links it with
//!
//! ```
//! use second_crate as _;
//! ```
//!
//! This crate has two hooks:
//!
//! - [`redact_tokens`] (`intercept_tool_call`, priority 5, extension `redaction`) replaces the
//!   value of every token-like argument of a tool call with [`REDACTED`];
//! - [`redact_user_input`] (`transform_user_input`, priority 5, the default extension, which is
//!   this crate's name) replaces token-like words of the user's message with [`REDACTED`].
//!
//! Both pass, without allocating, when there is nothing to redact.
//!
//! And one tool, collected the same way: [`word_count`] (in the default extension), which
//! counts the words of each of its arguments.

#![warn(missing_docs)]

use hookchain::{HookContext, prelude::*};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// The priority of both hooks: after hooks at 0, before hooks at 10.
pub const PRIORITY: i32 = 5;

/// The extension [`redact_tokens`] belongs to.
pub const REDACTION_EXTENSION: &str = "redaction";

/// `true` for an argument name that holds a credential: it contains `token`, `secret` or
/// `password`, in any case (`token`, `api_token`, `GITHUB_TOKEN`, `client_secret`).
pub fn is_secret_key(key: &str) -> bool {
    ["token", "secret", "password"].iter().any(|word| {
        key.as_bytes()
            .windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
    })
}

/// `true` for a word that looks like a credential on its own: an OpenAI-style `sk-…` key or a
/// GitHub `ghp_…` token.
pub fn is_secret_word(word: &str) -> bool {
    ["sk-", "ghp_"]
        .iter()
        .any(|prefix| word.len() > prefix.len() && word.starts_with(prefix))
}

/// `true` when `value` holds, at any depth, an object key that [`is_secret_key`] and whose value
/// is not redacted yet.
fn has_secret(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| (is_secret_key(k) && v != REDACTED) || has_secret(v)),
        Value::Array(items) => items.iter().any(has_secret),
        _ => false,
    }
}

/// Replaces, at any depth, the value of every secret key with [`REDACTED`].
fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if is_secret_key(k) {
                    *v = Value::from(REDACTED);
                } else {
                    redact(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

/// Redacts token-like arguments of a tool call before the tool runs.
///
/// Every object key, at any depth of the args, that contains `token`, `secret` or `password`
/// gets the value [`REDACTED`]; the rest of the args stay as they are. When there is nothing to
/// redact the hook passes.
#[register_hook("intercept_tool_call", priority = 5, extension = "redaction")]
pub fn redact_tokens(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    if !has_secret(&call.args) {
        return HookResult::Pass;
    }
    let mut args = call.args.clone();
    redact(&mut args);
    cx.set_metadata("redacted_by", cx.hook_name());
    HookResult::Rewrite(args)
}

/// Redacts token-like words ([`is_secret_word`]) of the user's message before the model sees it.
///
/// Words are separated by single spaces in the rewritten text. When no word looks like a
/// credential the hook passes.
#[register_hook("transform_user_input", priority = 5)]
pub fn redact_user_input(text: &str) -> HookResult<String> {
    if !text.split_whitespace().any(is_secret_word) {
        return HookResult::Pass;
    }
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|word| if is_secret_word(word) { REDACTED } else { word })
        .collect();
    HookResult::Rewrite(words.join(" "))
}

/// Counts the words of each argument: `{"title": "two words"}` gives `{"title": 2}`.
#[hookchain::register_tool]
pub fn word_count(
    args: std::collections::BTreeMap<String, String>,
) -> Result<std::collections::BTreeMap<String, usize>, std::convert::Infallible> {
    Ok(args
        .into_iter()
        .map(|(key, text)| (key, text.split_whitespace().count()))
        .collect())
}

/// The names of the hooks this crate registers, as `describe()` lists them.
pub fn hook_names() -> [&'static str; 2] {
    [
        "second_crate::redact_tokens",
        "second_crate::redact_user_input",
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_keys_and_words() {
        assert!(is_secret_key("GITHUB_TOKEN"));
        assert!(is_secret_key("client_secret"));
        assert!(!is_secret_key("path"));
        assert!(is_secret_word("sk-abc123"));
        assert!(!is_secret_word("sk-"));
        assert!(!is_secret_word("skip"));
    }

    #[test]
    fn redact_reaches_nested_keys_and_keeps_the_rest() {
        let mut args = json!({"url": "u", "headers": [{"api_token": "t"}], "password": 1});
        assert!(has_secret(&args));
        redact(&mut args);
        assert_eq!(
            args,
            json!({"url": "u", "headers": [{"api_token": REDACTED}], "password": REDACTED})
        );
        assert!(!has_secret(&args), "redacted args are not redacted again");
    }

    #[test]
    fn user_input_words() {
        assert_eq!(
            redact_user_input("use  sk-live123 now"),
            HookResult::Rewrite("use [redacted] now".to_owned())
        );
        assert!(redact_user_input("nothing secret").is_pass());
    }
}
