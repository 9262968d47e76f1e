//! `#[register_command("name", description = "..", extension = "..", crate = path)]`: parse,
//! check, expand — as `#[register_hook]` does, every mistake reported at once on the user's own
//! token.
//!
//! - The name comes first, a string literal, checked by hooks-core's one rule for command names
//!   (`hookchain_core::check_command_name`): an empty name, one with a space or a leading `/` is
//!   an error on the literal that says what to write.
//! - `description` defaults to the fn's doc comment (its lines joined), `extension` to the
//!   crate's name, `crate` to `::hookchain`.
//! - The fn is a free `fn` or `async fn` taking `(args: &str)` or `(args: &str, cx:
//!   &HookContext)` and returning `String` or `Result<String, E>` with `E: Display`. A wrong
//!   argument type is a type error on that argument's type; a wrong return type is one error on
//!   the return type, worded by `IntoCommandReturn`'s `on_unimplemented`.
//! - The expansion is an adapter to the runtime's normalised signature and a
//!   `CommandRegistration` submitted to the link-time collection, inside `const _: () = { .. };`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Path, parse_quote};

use crate::attr::{crate_path, label};
use crate::errors::Errors;

/// The keys after the name.
const KEYS: &[&str] = &["description", "extension", "crate"];

/// The attribute as written: the name, then `key = value` pairs.
type RawArgs = (Option<LitStr>, Vec<(Ident, Expr)>);

/// The attribute, checked.
struct CommandAttr {
    name: Option<LitStr>,
    description: Option<LitStr>,
    extension: Option<LitStr>,
    krate: Path,
}

pub(crate) fn register_command(args: TokenStream, item: &TokenStream) -> syn::Result<TokenStream> {
    let mut errors = Errors::new();
    let attr = parse_attr(args, &mut errors);
    let item_fn = errors.ok(crate::parse_fn_for(item.clone(), "#[register_command]"));
    if let Some(item_fn) = &item_fn {
        check_signature(&item_fn.sig, &mut errors);
    }
    errors.finish()?;
    let (Some(name), Some(mut item_fn)) = (attr.name.clone(), item_fn) else {
        return Err(syn::Error::new(
            Span::call_site(),
            "#[register_command] could not read its name or its fn",
        ));
    };
    if item_fn.sig.asyncness.is_some() {
        crate::elide_context_lifetime(&mut item_fn.sig);
    }
    let description = attr
        .description
        .clone()
        .unwrap_or_else(|| LitStr::new(&doc_comment(&item_fn.attrs), name.span()));
    let expansion = expand(&attr, &name, &description, &item_fn.sig);
    Ok(quote!(#item_fn #expansion))
}

fn parse_attr(tokens: TokenStream, errors: &mut Errors) -> CommandAttr {
    let mut attr = CommandAttr {
        name: None,
        description: None,
        extension: None,
        krate: parse_quote!(::hookchain),
    };
    let parsed = Parser::parse2(
        |input: ParseStream| -> syn::Result<RawArgs> {
            let name = if input.peek(LitStr) {
                Some(input.parse::<LitStr>()?)
            } else {
                None
            };
            let entries = crate::attr::parse_entries(input, name.is_none())?
                .into_iter()
                .map(|entry| (entry.key, entry.value))
                .collect();
            Ok((name, entries))
        },
        tokens,
    );
    let (name, entries) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            errors.push(error);
            return attr;
        }
    };
    match &name {
        Some(lit) => {
            if let Err(problem) = hookchain_core::check_command_name(&lit.value()) {
                errors.push(syn::Error::new(lit.span(), problem));
            } else {
                attr.name = Some(lit.clone());
            }
        }
        None => errors.push(syn::Error::new(
            entries
                .first()
                .map_or_else(Span::call_site, |(key, _)| key.span()),
            "missing command name: name it first, without the `/`, as in \
             #[register_command(\"notes\", description = \"Keep notes\")]",
        )),
    }
    let mut seen: Vec<String> = Vec::new();
    for (key, value) in entries {
        let key_name = key.unraw().to_string();
        if seen.contains(&key_name) {
            errors.push(syn::Error::new(
                key.span(),
                format!("duplicate key `{key_name}`"),
            ));
            continue;
        }
        match key_name.as_str() {
            "description" => {
                attr.description = errors.ok(label("description", "List the notes", &value));
            }
            "extension" => attr.extension = errors.ok(label("extension", "notes", &value)),
            "crate" => {
                if let Some(krate) = errors.ok(crate_path(&value)) {
                    attr.krate = krate;
                }
            }
            _ => {
                errors.push(crate::attr::unknown_key(&key, &key_name, KEYS));
                continue;
            }
        }
        seen.push(key_name);
    }
    attr
}

/// The shape of the fn: free, not generic, one or two arguments, a return type.
fn check_signature(sig: &syn::Signature, errors: &mut Errors) {
    const SHAPE: &str = "a command is `fn(args: &str, cx: &HookContext) -> String` (or `-> \
                         Result<String, E>` with `E: Display`), sync or `async`";
    if !sig.generics.params.is_empty() {
        errors.push(syn::Error::new(
            sig.generics.span(),
            format!("a command cannot be generic: {SHAPE}"),
        ));
    }
    for input in &sig.inputs {
        if let syn::FnArg::Receiver(receiver) = input {
            errors.push(syn::Error::new(
                receiver.span(),
                format!("#[register_command] goes on a free fn, not a method: {SHAPE}"),
            ));
        }
    }
    match sig.inputs.len() {
        1 | 2 => {}
        0 => errors.push(syn::Error::new(
            sig.paren_token.span.join(),
            format!("a command takes the args the user typed: {SHAPE}"),
        )),
        _ => errors.push(syn::Error::new(
            sig.inputs
                .iter()
                .nth(2)
                .map_or_else(|| sig.span(), Spanned::span),
            format!("a command takes at most two arguments: {SHAPE}"),
        )),
    }
    if let syn::ReturnType::Default = sig.output {
        errors.push(syn::Error::new(
            sig.ident.span(),
            format!("a command returns the reply the user reads: {SHAPE}"),
        ));
    }
}

/// The fn's doc comment, its lines trimmed and joined with spaces: the default description.
fn doc_comment(attrs: &[syn::Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }),
                ..
            }) => Some(s.value().trim().to_owned()),
            _ => None,
        })
        .collect();
    let first_paragraph = lines.split(String::is_empty).next().unwrap_or(&[]);
    first_paragraph.join(" ")
}

fn expand(
    attr: &CommandAttr,
    name: &LitStr,
    description: &LitStr,
    sig: &syn::Signature,
) -> TokenStream {
    let span = name.span();
    let krate = crate::spans::respan(attr.krate.to_token_stream(), span);
    let ident = &sig.ident;
    let is_async = sig.asyncness.is_some();
    // Each argument is bound with the user's own type, spanned on it: a wrong type is a type
    // error there.
    let types: Vec<&syn::Type> = sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(arg) => Some(&*arg.ty),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let sources = [
        (quote!(CommandArgs), quote!(from_args(__args))),
        (quote!(ContextArg), quote!(from_context(__cx))),
    ];
    let bindings: Vec<TokenStream> = types
        .iter()
        .zip(&sources)
        .enumerate()
        .map(|(i, (ty, (arg_trait, call)))| {
            let var = quote::format_ident!("__arg{}", i);
            let at = ty.span();
            let call = crate::spans::respan(call.clone(), at);
            let arg_trait = crate::spans::respan(quote!(#krate::__private::#arg_trait), at);
            quote_spanned!(at=> let #var: #ty = <#ty as #arg_trait>::#call;)
        })
        .collect();
    let vars: Vec<Ident> = (0..types.len())
        .map(|i| quote::format_ident!("__arg{}", i))
        .collect();
    let output = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let out_span = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.span(),
        syn::ReturnType::Default => ident.span(),
    };
    let normalise = quote_spanned! {out_span=>
        <#output as #krate::__private::IntoCommandReturn>::into_command_return
    };
    let (adapter, handler) = if is_async {
        (
            quote! {
                fn __hookchain_command<'a>(
                    __args: &'a ::core::primitive::str,
                    __cx: &'a #krate::HookContext<'a>,
                ) -> #krate::__private::BoxFuture<'a, #krate::__private::CommandReturn> {
                    ::std::boxed::Box::pin(async move {
                        #(#bindings)*
                        #normalise(#ident(#(#vars),*).await)
                    })
                }
            },
            quote!(#krate::__private::CommandFn::Async(__hookchain_command)),
        )
    } else {
        (
            quote! {
                fn __hookchain_command(
                    __args: &::core::primitive::str,
                    __cx: &#krate::HookContext<'_>,
                ) -> #krate::__private::CommandReturn {
                    #(#bindings)*
                    #normalise(#ident(#(#vars),*))
                }
            },
            quote!(#krate::__private::CommandFn::Sync(__hookchain_command)),
        )
    };
    let extension = attr.extension.as_ref().map_or_else(
        || quote_spanned!(span=> ::core::env!("CARGO_PKG_NAME")),
        ToTokens::to_token_stream,
    );
    let file = quote_spanned!(ident.span()=> ::core::file!());
    let line = quote_spanned!(ident.span()=> ::core::line!());
    quote_spanned! {Span::mixed_site()=>
        const _: () = {
            #adapter
            #krate::__private::submit_command! {
                #krate::__private::CommandRegistration {
                    name: #name,
                    description: #description,
                    extension: #extension,
                    file: #file,
                    line: #line,
                    handler: #handler,
                }
            }
        };
    }
}
