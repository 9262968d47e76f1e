//! `#[register_tool]`: a fn the model can call, collected at link time like the hooks.
//!
//! The same three phases as `#[register_hook]`: read the attribute's keys (`name`,
//! `description`, `extension`, `crate`), check the fn's shape, then generate an adapter and the
//! record. Every mistake is recorded on the user's own token and all are reported at once.
//!
//! The adapter is where the tool's signature meets the runtime: the argument type goes through
//! `ToolArgs` (`Deserialize` + `JsonSchema`), the context through `ContextArg`, and the return
//! type — when it is written `Result<R, E>` — `R` through `ToolOutput` (`Serialize`) and `E`
//! through `ToolErrorMessage` (`Display`), each in a path spanned on the user's own type, so a
//! type that does not fit is one error on that type, worded by the trait's
//! `#[diagnostic::on_unimplemented]`. A return type written otherwise (an alias such as
//! `anyhow::Result<T>`) goes through `IntoToolReturn` whole.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{FnArg, LitStr, Path, ReturnType, Type, parse_quote};

use crate::attr::{Args, Entry, crate_path, label};
use crate::errors::Errors;

/// The keys the attribute takes.
const KEYS: &[&str] = &["name", "description", "extension", "crate"];

/// The accepted shapes, quoted in the messages about arguments.
const SHAPES: &str = "a tool takes `(args: A)` or `(args: A, cx: &HookContext)`, where `A` \
                      derives `Deserialize` and `JsonSchema`";

/// The attribute, checked.
struct ToolAttr {
    name: Option<LitStr>,
    description: Option<LitStr>,
    extension: Option<LitStr>,
    krate: Path,
}

impl ToolAttr {
    fn parse(tokens: TokenStream, errors: &mut Errors) -> ToolAttr {
        let mut attr = ToolAttr {
            name: None,
            description: None,
            extension: None,
            krate: parse_quote!(::hookchain),
        };
        let args = match Parser::parse2(Args::parse, tokens) {
            Ok(args) => args,
            Err(error) => {
                errors.push(error);
                return attr;
            }
        };
        if args.point.is_some() {
            errors.push(syn::Error::new(
                Span::call_site(),
                "#[register_tool] takes keys only: `name = \"..\"`, `description = \"..\"`, \
                 `extension = \"..\"`, `crate = path`",
            ));
        }
        let mut seen: Vec<String> = Vec::new();
        for Entry { key, value } in args.entries {
            let key_name = key.unraw().to_string();
            if seen.contains(&key_name) {
                errors.push(syn::Error::new(
                    key.span(),
                    format!("duplicate key `{key_name}`"),
                ));
                continue;
            }
            match key_name.as_str() {
                "name" => attr.name = errors.ok(label("name", "read_file", &value)),
                "description" => {
                    attr.description =
                        errors.ok(label("description", "Reads a file of the project.", &value));
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
}

/// A tool fn whose shape is right.
struct ToolFn<'a> {
    ident: &'a syn::Ident,
    asyncness: Option<Span>,
    args: &'a Type,
    context: Option<&'a Type>,
    output: &'a Type,
}

/// Checks the shape of the tool fn.
fn check<'a>(sig: &'a syn::Signature, errors: &mut Errors) -> Option<ToolFn<'a>> {
    let mut ok = true;
    let mut fail = |error: syn::Error| {
        errors.push(error);
        ok = false;
    };
    if let Some(constness) = &sig.constness {
        fail(syn::Error::new(
            constness.span,
            "a tool cannot be a `const fn`; remove `const`",
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        fail(syn::Error::new(
            unsafety.span,
            "a tool cannot be an `unsafe fn`; remove `unsafe`",
        ));
    }
    if let Some(abi) = &sig.abi {
        fail(syn::Error::new_spanned(
            abi,
            "a tool cannot be an `extern` fn; remove the ABI",
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        fail(syn::Error::new_spanned(
            &sig.generics,
            "a tool cannot be generic: its parameters schema is made from one concrete argument \
             type; remove the generic parameters",
        ));
    }
    let mut types = Vec::new();
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(receiver) => fail(syn::Error::new_spanned(
                receiver,
                "a tool cannot take `self`: #[register_tool] goes on a free fn, outside any \
                 `impl` block",
            )),
            FnArg::Typed(arg) => types.push(&*arg.ty),
        }
    }
    match types.len() {
        1 | 2 => {}
        0 => fail(syn::Error::new(
            sig.paren_token.span.join(),
            format!("{SHAPES}; this one takes none"),
        )),
        n => fail(syn::Error::new_spanned(
            &sig.inputs,
            format!("{SHAPES}; this one takes {n}"),
        )),
    }
    let output = match &sig.output {
        ReturnType::Type(_, ty) => Some(&**ty),
        ReturnType::Default => {
            fail(syn::Error::new(
                sig.ident.span(),
                "a tool returns `Result<R, E>` (`R: Serialize`, the result the model reads; \
                 `E: Display`, its error): add the return type",
            ));
            None
        }
    };
    if !ok || types.is_empty() {
        return None;
    }
    Some(ToolFn {
        ident: &sig.ident,
        asyncness: sig.asyncness.map(|a| a.span),
        args: types[0],
        context: types.get(1).copied(),
        output: output?,
    })
}

/// The fn's doc comment, its lines joined, or `None` when it has none.
fn doc_comment(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// `Result<R, E>` as written: `(R, E)`.
fn result_parts(ty: &Type) -> Option<(&Type, &Type)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    match (types.next(), types.next(), types.next()) {
        (Some(r), Some(e), None) => Some((r, e)),
        _ => None,
    }
}

/// Parses, checks and expands `#[register_tool]`.
pub(crate) fn register_tool_impl(
    args: TokenStream,
    item: &TokenStream,
) -> syn::Result<TokenStream> {
    let mut errors = Errors::new();
    let attr = ToolAttr::parse(args, &mut errors);
    let item_fn = match syn::parse2::<crate::HookItem>(item.clone()) {
        Ok(item_fn) => Some(item_fn),
        Err(error) => {
            let error = match syn::parse2::<syn::Item>(item.clone()) {
                Ok(syn::Item::Fn(_)) | Err(_) => error,
                Ok(other) => syn::Error::new(
                    crate::first_token_span(&other),
                    "#[register_tool] goes on a free `fn` or `async fn`",
                ),
            };
            errors.push(error);
            None
        }
    };
    let tool = item_fn.as_ref().and_then(|f| check(&f.sig, &mut errors));
    let description = match (&attr.description, &item_fn) {
        (Some(lit), _) => Some(lit.to_token_stream()),
        (None, Some(item_fn)) => match doc_comment(&item_fn.attrs) {
            Some(text) => Some(LitStr::new(&text, item_fn.sig.ident.span()).to_token_stream()),
            None => {
                errors.push(syn::Error::new(
                    item_fn.sig.ident.span(),
                    "a tool needs a description, which the model reads to decide when to call \
                     it: write a doc comment on the fn, or `description = \"..\"`",
                ));
                None
            }
        },
        (None, None) => None,
    };
    errors.finish()?;
    let (Some(tool), Some(description)) = (&tool, &description) else {
        return Err(syn::Error::new(
            Span::call_site(),
            "#[register_tool] could not read its fn",
        ));
    };
    let record = expand(&attr, tool, description);
    let Some(mut item_fn) = item_fn else {
        return Err(syn::Error::new(
            Span::call_site(),
            "#[register_tool] could not read its fn",
        ));
    };
    if item_fn.sig.asyncness.is_some() {
        crate::elide_context_lifetime(&mut item_fn.sig);
    }
    Ok(quote!(#item_fn #record))
}

/// The adapter and the record, emitted after the user's fn.
fn expand(attr: &ToolAttr, tool: &ToolFn<'_>, description: &TokenStream) -> TokenStream {
    let span = Span::call_site();
    let krate = &attr.krate;
    let ident = tool.ident;
    let args_ty = tool.args;
    let p = quote_spanned!(span=> #krate::__private);
    let (cx_outer, cx_inner) = if tool.asyncness.is_some() {
        (quote!('a), quote!('a))
    } else {
        (quote!('a), quote!('b))
    };

    let from_args = quote_spanned! {args_ty.span()=>
        <#args_ty as #p::ToolArgs>::from_args(__args)
    };
    // Spanned on the argument type like `from_args`: a type that is not a tool's arguments is
    // then the same unsatisfied bound at the same span, which the compiler reports once.
    let parameters = quote_spanned! {args_ty.span()=>
        <#args_ty as #p::ToolArgs>::parameters()
    };
    let mut lets = quote! {
        let __arg0 = match #from_args {
            ::core::result::Result::Ok(args) => args,
            ::core::result::Result::Err(failure) => return ::core::result::Result::Err(failure),
        };
    };
    let mut call_args = quote!(__arg0);
    if let Some(cx_ty) = tool.context {
        let from_cx = quote_spanned! {cx_ty.span()=>
            <#cx_ty as #p::ContextArg<#cx_outer, #cx_inner>>::from_context(__cx)
        };
        lets.extend(quote!(let __arg1 = #from_cx;));
        call_args.extend(quote!(, __arg1));
    }
    let called = match tool.asyncness {
        Some(_) => quote!(#ident(#call_args).await),
        None => quote!(#ident(#call_args)),
    };
    let output = tool.output;
    let normalise = match result_parts(output) {
        Some((ok, err)) => {
            let into_result = quote_spanned!(ok.span()=> <#ok as #p::ToolOutput>::into_result);
            let into_failure =
                quote_spanned!(err.span()=> <#err as #p::ToolErrorMessage>::into_failure);
            quote! {
                match #called {
                    ::core::result::Result::Ok(value) => #into_result(value),
                    ::core::result::Result::Err(error) => {
                        ::core::result::Result::Err(#into_failure(error))
                    }
                }
            }
        }
        None => {
            let into =
                quote_spanned!(output.span()=> <#output as #p::IntoToolReturn>::into_tool_return);
            quote!(#into(#called))
        }
    };
    let allow = quote! {
        #[allow(
            clippy::needless_lifetimes,
            clippy::extra_unused_lifetimes,
            clippy::used_underscore_binding,
            unused_qualifications
        )]
    };
    let (adapter, sync, run_async, is_async) = match tool.asyncness {
        None => (
            quote! {
                #allow
                fn __hookchain_tool<'a, 'b>(
                    __args: #p::serde_json::Value,
                    __cx: &'a #krate::HookContext<'b>,
                ) -> #p::ToolReturn {
                    #lets
                    #normalise
                }
            },
            quote!(::core::option::Option::Some(__hookchain_tool)),
            quote!(::core::option::Option::None),
            false,
        ),
        Some(async_span) => {
            // A future that is not `Send` is reported on `async`.
            let boxed = quote_spanned! {async_span=>
                ::std::boxed::Box::pin(async move {
                    #lets
                    #normalise
                })
            };
            (
                quote! {
                    #allow
                    fn __hookchain_tool<'a>(
                        __args: #p::serde_json::Value,
                        __cx: &'a #krate::HookContext<'a>,
                    ) -> #p::BoxFuture<'a, #p::ToolReturn> {
                        #boxed
                    }
                },
                quote!(::core::option::Option::None),
                quote!(::core::option::Option::Some(__hookchain_tool)),
                true,
            )
        }
    };
    let name = match &attr.name {
        Some(name) => name.to_token_stream(),
        None => LitStr::new(&ident.unraw().to_string(), ident.span()).to_token_stream(),
    };
    let extension = match &attr.extension {
        Some(extension) => extension.to_token_stream(),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    // Spanned on the fn's name, so they give the fn's file and line.
    let file = quote_spanned!(ident.span()=> ::core::file!());
    let line = quote_spanned!(ident.span()=> ::core::line!());
    quote! {
        const _: () = {
            #adapter

            /// The parameters schema, made once per program.
            fn __hookchain_parameters() -> #p::serde_json::Value {
                static SCHEMA: ::std::sync::OnceLock<#p::serde_json::Value> =
                    ::std::sync::OnceLock::new();
                ::core::clone::Clone::clone(SCHEMA.get_or_init(|| #parameters))
            }

            #p::submit_tool! {
                #p::ToolRegistration {
                    name: #name,
                    description: #description,
                    extension: #extension,
                    parameters: __hookchain_parameters,
                    file: #file,
                    line: #line,
                    is_async: #is_async,
                    sync: #sync,
                    run_async: #run_async,
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_of(attr: TokenStream, item: TokenStream) -> Vec<String> {
        match register_tool_impl(attr, &item) {
            Ok(_) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn reads_the_description_from_the_doc_comment() {
        let attrs: Vec<syn::Attribute> = vec![
            parse_quote!(#[doc = " Reads a file."]),
            parse_quote!(#[doc = ""]),
            parse_quote!(#[doc = " Relative paths only."]),
        ];
        assert_eq!(
            doc_comment(&attrs).as_deref(),
            Some("Reads a file.\n\nRelative paths only.")
        );
        assert_eq!(doc_comment(&[]), None);
    }

    #[test]
    fn a_tool_needs_a_description() {
        assert_eq!(
            errors_of(
                quote!(),
                quote!(
                    fn f(a: A) -> Result<u8, String> {
                        g()
                    }
                )
            ),
            [
                "a tool needs a description, which the model reads to decide when to call it: \
              write a doc comment on the fn, or `description = \"..\"`"
            ]
        );
        assert!(
            errors_of(
                quote!(description = "Does it."),
                quote!(
                    fn f(a: A) -> Result<u8, String> {
                        g()
                    }
                )
            )
            .is_empty()
        );
    }

    #[test]
    fn reports_every_wrong_shape_and_key() {
        let errors = errors_of(
            quote!("point", nmae = "x"),
            quote!(
                /// Doc.
                unsafe fn f<T>(&self, a: T, b: u8, c: u8) {}
            ),
        );
        assert_eq!(
            errors,
            [
                "#[register_tool] takes keys only: `name = \"..\"`, `description = \"..\"`, \
                 `extension = \"..\"`, `crate = path`",
                "unknown key `nmae` — did you mean `name`?",
                "a tool cannot be an `unsafe fn`; remove `unsafe`",
                "a tool cannot be generic: its parameters schema is made from one concrete \
                 argument type; remove the generic parameters",
                "a tool cannot take `self`: #[register_tool] goes on a free fn, outside any \
                 `impl` block",
                "a tool takes `(args: A)` or `(args: A, cx: &HookContext)`, where `A` derives \
                 `Deserialize` and `JsonSchema`; this one takes 3",
                "a tool returns `Result<R, E>` (`R: Serialize`, the result the model reads; \
                 `E: Display`, its error): add the return type",
            ]
        );
    }

    #[test]
    fn splits_a_written_result() {
        let ty: Type = parse_quote!(Result<Note, NoteError>);
        let (ok, err) = result_parts(&ty).unwrap();
        assert_eq!(quote!(#ok).to_string(), "Note");
        assert_eq!(quote!(#err).to_string(), "NoteError");
        assert!(result_parts(&parse_quote!(anyhow::Result<Note>)).is_none());
    }
}
