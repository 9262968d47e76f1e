//! `#[register_hook]`, the attribute that turns a fn into a hookchain hook, and
//! `#[register_tool]`, which turns one into a tool the model can call (module `tool`).
//!
//! Use it through the facade, `hookchain::register_hook`; the facade's docs show it at work.
//! The macro runs in three phases, the way `serde_derive` does:
//!
//! 1. `attr` reads the attribute — the point (`point`, `catalog`) and the keys;
//! 2. `signature` checks the shape of the fn;
//! 3. `expand` generates the adapter and the registration record.
//!
//! The first two record every mistake, each on the user's own token, into one `errors::Errors`,
//! so a single compilation shows them all. When there is any, the user's fn is emitted unchanged
//! next to the errors, so nothing else fails for want of it.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod attr;
mod catalog;
mod command;
mod errors;
mod expand;
mod manifest;
mod point;
mod signature;
mod spans;
mod suggest;
mod tool;

use proc_macro::TokenStream;
use proc_macro2::{TokenStream as TokenStream2, TokenTree};
use quote::quote;
use syn::spanned::Spanned;

use crate::attr::HookAttr;
use crate::errors::Errors;

/// Registers a fn as a hook on a point of the agent loop; the hook is collected at link time.
///
/// Written `#[register_hook(POINT, key = value, ...)]` on a free `fn` or `async fn`:
///
/// - `POINT` comes first. It is a built-in point's canonical name as a string literal
///   (`"intercept_tool_call"`, `"before_llm_call"`, `"turn_end"`, …; the catalog is in
///   `hookchain::points`), checked at compile time — a misspelt name is an error that suggests the closest one, and
///   another agent's name for a point (`"PreToolUse"`) is an error that names the canonical
///   one — or the path of a type of your own implementing `HookPoint`.
/// - `priority = EXPR`: any constant `i32` expression — `10`, `-5`, a `const` (`GUARD`,
///   `crate::prio::GUARD`), arithmetic on them (`GUARD + 1`), an `$p:expr` handed over by a
///   `macro_rules!` — default 0. Lower runs earlier; ties are broken by name. The compiler checks
///   the expression's type, so one that is not an `i32` (`"high"`, `1u64`) or not constant is an
///   error on the expression.
/// - `name = "..."`: the hook's name in logs, blocks and config; by default the fn's module
///   path and name (`my_agent::guards::require_plan`).
/// - `extension = "..."`: the group the hook is enabled, disabled and configured with; by
///   default the name of the crate that defines it.
/// - `on_error = "pass" | "warn" | "block"`: what a panic or an `Err` from the hook means.
///   `"pass"` fails open, `"warn"` fails open and warns the user, `"block"` fails closed; by default the point decides (`"pass"` for the
///   built-in points).
/// - `POINT` may also be a wildcard pattern: `"*"` (every point, built-in and your own) or
///   `"PREFIX*"` (`"after_*"`, `"myapp:*"`: every point whose canonical name starts with
///   PREFIX). Such a hook observes every dispatch of those points, after their chains ran:
///   `fn audit(ev: &DispatchEvent, cx: &HookContext)`, sync, returning `()` or
///   `Result<(), E>`. A pattern that matches no built-in point and names no namespace of your
///   own (a prefix with a `:`) is a compile error with the closest prefix.
/// - `crate = path` (or `crate = "path"`): where the `hookchain` facade is, for crates that
///   re-export it under another name; `::hookchain` by default.
///
/// The fn takes the point's input, `(input: &Input)`, or the input and the dispatch's context,
/// `(input: &Input, cx: &HookContext)`; argument patterns are free (`_`, tuples, ...). It returns
/// `HookResult<R>` or `Result<HookResult<R>, E>` with `E: Display`, where `R` is the point's
/// `Rewrite` type; a hook on an observe-only point (`"turn_end"`) may also return `()` or
/// `Result<(), E>`. These types are checked at compile time, and a wrong one is reported on the
/// type you wrote. An `async fn` hook returns the same types from its future, which must be
/// `Send`.
///
/// A hook in a library crate is collected only if that crate is linked into the agent: a crate
/// that nothing else uses needs `use my_hooks as _;`.
///
/// See the `hookchain` crate's docs for a complete example and for the points' input and rewrite
/// types (`hookchain::points`).
#[proc_macro_attribute]
pub fn register_hook(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = TokenStream2::from(item);
    register_hook_impl(args.into(), &item)
        .unwrap_or_else(|error| {
            let error = error.into_compile_error();
            quote!(#item #error)
        })
        .into()
}

/// Registers a fn as a tool the model can call; the tool is collected at link time, like the
/// hooks, and run by `Turn::call_tool` through the tool points (`intercept_tool_call`,
/// `after_tool_call`, `transform_tool_result`), so guards apply to it as to the agent's own
/// tools.
///
/// Written `#[hookchain::register_tool]` or `#[hookchain::register_tool(key = value, ...)]` on a
/// free `fn` or `async fn` — with its path: rustc reserves the bare name `register_tool` for a
/// built-in attribute of its own (the unstable `register_tool` feature, rust-lang/rust#66079), so
/// an imported `register_tool` is ambiguous wherever it is used. A renamed import works too
/// (`use hookchain::register_tool as tool;`, then `#[tool(...)]`).
///
/// - `name = "..."`: the name the model calls it by; by default the fn's name. Providers take
///   1 to 64 ASCII letters, digits, `_` or `-`; another name fails the registry's build.
/// - `description = "..."`: what the model reads to decide when to call it; by default the fn's
///   doc comment. A tool with neither is a compile error.
/// - `extension = "..."`: the extension it belongs to, enabled and disabled with its hooks; by
///   default the name of the crate that defines it.
/// - `crate = path`: where the `hookchain` facade is; `::hookchain` by default.
///
/// The fn takes `(args: A)` or `(args: A, cx: &HookContext)` and returns `Result<R, E>`, where
/// `A: Deserialize + JsonSchema` (its JSON Schema is the tool's parameters, made once), `R:
/// Serialize` (the result the model reads) and `E: Display` (the error the model reads). A type
/// that does not fit is a compile error on that type. Arguments the model sends that do not fit
/// `A` are an error result naming the field, and the tool does not run. Two tools of one name
/// fail the registry's build, naming both definitions.
///
/// ```
/// use hookchain::points::ToolCall;
/// use hookchain::schemars::JsonSchema;
/// use hookchain::{HookContext, HooksBuilder, TurnEnd};
/// use serde::Deserialize;
/// use serde_json::json;
///
/// /// A note to keep.
/// #[derive(Deserialize, JsonSchema)]
/// #[schemars(crate = "hookchain::schemars")]
/// struct AddNote {
///     /// The note's text.
///     text: String,
/// }
///
/// /// Keeps a note for later in this session.
/// #[hookchain::register_tool(extension = "notes")]
/// fn add_note(args: AddNote, cx: &HookContext) -> Result<String, String> {
///     if args.text.is_empty() {
///         return Err("a note needs some text".to_owned());
///     }
///     cx.session_state().set("last_note", args.text.clone());
///     Ok(format!("kept: {}", args.text))
/// }
///
/// let hooks = HooksBuilder::new().collected().build().unwrap();
/// let session = hooks.session("register-tool-doc");
/// let spec = session.tools().into_iter().find(|t| t.name == "add_note").unwrap();
/// assert_eq!(spec.description, "Keeps a note for later in this session.");
/// assert_eq!(spec.parameters["required"], json!(["text"]));
///
/// let turn = session.begin_turn();
/// let run = turn.call_tool(ToolCall::new("add_note", json!({"text": "buy milk"})));
/// assert_eq!(run.result.tool_response, json!("kept: buy milk"));
/// let run = turn.call_tool(ToolCall::new("add_note", json!({"txt": "buy milk"})));
/// assert!(run.result.is_error); // "... missing field `text`; `txt` is not one of its parameters, did you mean `text`?"
/// turn.end(TurnEnd::Normal);
/// ```
#[proc_macro_attribute]
pub fn register_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = TokenStream2::from(item);
    tool::register_tool_impl(args.into(), &item)
        .unwrap_or_else(|error| {
            let error = error.into_compile_error();
            quote!(#item #error)
        })
        .into()
}

/// Declares an extension's manifest once: its name, version, description, the extensions it
/// depends on and the points its hooks may use; collected at link time, like the hooks.
///
/// ```
/// hookchain::hook_point! {
///     /// A note was saved.
///     pub struct NoteSaved: observe("note_saved") {
///         type Value = String;
///     }
/// }
///
/// hookchain::extension! {
///     name: "notes",
///     version: "0.2.0",
///     description: "Saves notes and tells whoever listens",
///     depends_on: [],
///     points: ["intercept_tool_call", "turn_end", NoteSaved],
/// }
/// ```
///
/// Only `name` is required. `points` lists built-in points by their canonical names (checked at
/// compile time: a misspelt one is an error with the closest name), wildcard patterns, and the
/// paths of point types of your own; without `points` the extension's hooks may use any point.
/// When the registry is built, a hook of the extension on a point outside `points`, a
/// `depends_on` the registry does not have, and two manifests of one extension are errors
/// naming the hook, the point and the manifest's file and line (`Hooks::global()` logs them,
/// tells every session, and leaves such a hook out). `crate: path` says where the facade is,
/// for crates that re-export it.
#[proc_macro]
pub fn extension(input: TokenStream) -> TokenStream {
    manifest::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Parses, checks and expands; `Err` with every mistake found.
/// Registers a slash command: a free `fn` or `async fn` the user runs by typing `/NAME args` in
/// the agent's chat, collected at link time like `#[register_hook]` fns (inventory by default,
/// linkme with the `linkme` feature).
///
/// ```text
/// #[register_command("NAME", description = "..", extension = "..", crate = path)]
/// ```
///
/// - `NAME` comes first: the command's name without its `/` (ASCII letters, digits, `-`, `_`;
///   it starts with a letter or a digit). An empty name, one with a space or a leading `/` is a
///   compile error on the literal that says what to write.
/// - `description`: what the command does, for listings and completion; default: the fn's doc
///   comment (its first paragraph).
/// - `extension`: the extension the command belongs to, switched on and off with the others of
///   that name; default: the crate's name.
/// - `crate`: where the facade is re-exported (default `::hookchain`).
///
/// The fn takes `(args: &str)` or `(args: &str, cx: &HookContext)` — the args are the rest of the
/// line after the name, trimmed, after `slash_command` hooks had their say — and returns the
/// reply as `String`, or `Result<String, E>` with `E: Display` (an `Err` is an error reply with
/// its message). The agent runs it with `Session::command(line)`. Two commands of one name are
/// an error when the registry is built, naming both.
///
/// ```
/// use hookchain::{HookContext, register_command};
///
/// /// Counts the words of its args.
/// #[register_command("wc", extension = "text-tools")]
/// fn word_count(args: &str, _cx: &HookContext) -> String {
///     format!("{} words", args.split_whitespace().count())
/// }
///
/// let hooks = hookchain::HooksBuilder::new().collected().build().unwrap();
/// let session = hooks.session("wc-doc");
/// assert_eq!(session.command("/wc one two three").unwrap().text, "3 words");
/// assert_eq!(session.command("just a message"), None);
/// ```
#[proc_macro_attribute]
pub fn register_command(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = TokenStream2::from(item);
    command::register_command(args.into(), &item)
        .unwrap_or_else(|error| {
            let error = error.into_compile_error();
            quote!(#item #error)
        })
        .into()
}

fn register_hook_impl(args: TokenStream2, item: &TokenStream2) -> syn::Result<TokenStream2> {
    let mut errors = Errors::new();
    let attr = HookAttr::parse(args, &mut errors);
    let item_fn = errors.ok(parse_fn(item.clone()));
    let hook = item_fn
        .as_ref()
        .and_then(|item_fn| signature::check(&item_fn.sig, &mut errors));
    if let (Some(point::Point::Wildcard { pattern, .. }), Some(hook)) = (&attr.point, &hook) {
        signature::check_wildcard(pattern, hook, &mut errors);
    }
    errors.finish()?;

    // Without errors, the point and the hook were both read.
    let (Some(point), Some(hook)) = (&attr.point, &hook) else {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[register_hook] could not read its point or its fn",
        ));
    };
    let registration = expand::registration(&attr, point, hook);
    match item_fn {
        // An `async fn` may not elide the lifetime of `HookContext<'_>` (rustc's E0726), which
        // every other hook may: the macro writes it for the user.
        Some(mut item_fn) if item_fn.sig.asyncness.is_some() => {
            elide_context_lifetime(&mut item_fn.sig);
            Ok(quote!(#item_fn #registration))
        }
        _ => Ok(quote!(#item #registration)),
    }
}

/// `&HookContext` → `&HookContext<'_>` in the arguments of `sig`.
pub(crate) fn elide_context_lifetime(sig: &mut syn::Signature) {
    for input in &mut sig.inputs {
        let syn::FnArg::Typed(arg) = input else {
            continue;
        };
        let syn::Type::Reference(reference) = &mut *arg.ty else {
            continue;
        };
        let syn::Type::Path(path) = &mut *reference.elem else {
            continue;
        };
        if let Some(last) = path.path.segments.last_mut()
            && last.ident == "HookContext"
            && last.arguments.is_none()
        {
            let span = last.ident.span();
            last.arguments =
                syn::PathArguments::AngleBracketed(syn::parse_quote_spanned!(span=> <'_>));
        }
    }
}

/// The item, which must be a fn.
fn parse_fn(item: TokenStream2) -> syn::Result<HookItem> {
    parse_fn_for(item, "#[register_hook]")
}

/// The fn `macro_name` is put on; anything else is an error on its first token.
pub(crate) fn parse_fn_for(item: TokenStream2, macro_name: &str) -> syn::Result<HookItem> {
    match syn::parse2::<HookItem>(item.clone()) {
        Ok(hook) => Ok(hook),
        // Not a fn (or not one syn reads): parsed whole, for the error to point at.
        Err(fn_error) => match syn::parse2::<syn::Item>(item) {
            Ok(syn::Item::Fn(_)) => Err(fn_error),
            Ok(other) => Err(syn::Error::new(
                first_token_span(&other),
                format!("{macro_name} goes on a free `fn` or `async fn`"),
            )),
            Err(error) => Err(error),
        },
    }
}

/// A fn as the attribute reads it: its attributes, visibility and signature parsed, its body
/// kept as tokens. The body is the compiler's to parse: reading it here would only cost time,
/// once per hook, in a macro that is built without optimizations.
pub(crate) struct HookItem {
    pub(crate) attrs: Vec<syn::Attribute>,
    vis: syn::Visibility,
    pub(crate) sig: syn::Signature,
    body: proc_macro2::Group,
}

impl syn::parse::Parse for HookItem {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis = input.parse()?;
        let sig = input.parse()?;
        let token = input.parse::<TokenTree>()?;
        let Some(body) = braced(&token) else {
            return Err(syn::Error::new(token.span(), "expected the fn's body"));
        };
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the fn"));
        }
        Ok(HookItem {
            attrs,
            vis,
            sig,
            body,
        })
    }
}

/// `token` when it is a `{ .. }` group, looking through the invisible groups a `macro_rules!`
/// wraps its fragments in (a body handed over as `$body:block`).
fn braced(token: &TokenTree) -> Option<proc_macro2::Group> {
    let TokenTree::Group(group) = token else {
        return None;
    };
    match group.delimiter() {
        proc_macro2::Delimiter::Brace => Some(group.clone()),
        proc_macro2::Delimiter::None => {
            let mut inner = group.stream().into_iter();
            match (inner.next(), inner.next()) {
                (Some(only), None) => braced(&only),
                _ => None,
            }
        }
        _ => None,
    }
}

impl quote::ToTokens for HookItem {
    fn to_tokens(&self, tokens: &mut TokenStream2) {
        let HookItem {
            attrs,
            vis,
            sig,
            body,
        } = self;
        tokens.extend(quote!(#(#attrs)* #vis #sig #body));
    }
}

/// The span of an item's first token after its attributes (`pub`, `struct`, `impl`, ...), where
/// "this is not a fn" is best pointed at.
fn first_token_span(item: &syn::Item) -> proc_macro2::Span {
    let mut tokens = quote!(#item).into_iter();
    loop {
        match tokens.next() {
            Some(TokenTree::Punct(punct)) if punct.as_char() == '#' => {
                tokens.next();
            }
            Some(token) => return token.span(),
            None => return item.span(),
        }
    }
}
