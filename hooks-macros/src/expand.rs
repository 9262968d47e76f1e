//! The generated code: an adapter that normalises the hook fn to the chain's signature, and the
//! registration record that points at it.
//!
//! Everything is emitted inside `const _: () = { ... };`, after the user's fn, so no name leaks
//! into the user's module. The priority, when the attribute gives one, is a `const` of type `i32`
//! there, which the record is initialised from: any constant expression the compiler accepts as
//! an `i32` is a priority, and one it does not accept is an error on the expression.
//!
//! The adapter is where the hook's signature meets its point: each argument and the return value
//! go through a trait of `hooks-core` (`HookArg`, `ContextArg`, `IntoHookReturn`), in a path
//! spanned on the user's own type. A type that does not fit is then one trait error on that
//! type, worded by the trait's `#[diagnostic::on_unimplemented]`; the rest of the adapter still
//! type-checks (each converted value keeps the declared type), so the error does not cascade.
//!
//! Every other token — the glue — is spanned on the point as the user wrote it. For a path that
//! does not name a hook point, every use of it is then the same unsatisfied `Path: HookPoint` at
//! the same span, which the compiler reports once: one error, on the path, worded by
//! `HookPoint`'s `on_unimplemented`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote_spanned};
use syn::LitStr;
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use crate::attr::{HookAttr, OnErrorPolicy, ungroup};
use crate::point::Point;
use crate::signature::HookFn;
use crate::spans::respan;

/// The tokens emitted after the user's fn.
pub(crate) fn registration(attr: &HookAttr, point: &Point, hook: &HookFn) -> TokenStream {
    let generator = Generator::new(attr, point, hook);
    let span = generator.span;
    let krate = &generator.krate;
    let priority = generator.priority();
    let adapter = generator.adapter();
    let record = generator.record();
    let body = quote_spanned! {span=>
        #priority
        #adapter
        #krate::__private::submit! { #record }
    };
    // The wrapper is spanned on the attribute (mixed-site), not on a token the user wrote: an
    // error that names the constant it happens in (a local variable used as the priority) then
    // points at the attribute, not at the point's name.
    quote_spanned! {Span::mixed_site()=>
        const _: () = { #body };
    }
}

/// What the generated code is made from.
struct Generator<'a> {
    attr: &'a HookAttr,
    hook: &'a HookFn<'a>,
    /// The span of the point as written: the span of the glue.
    span: Span,
    /// The facade's path, spanned on the point.
    krate: TokenStream,
    /// The point's type.
    point: TokenStream,
    /// The adapter fn's name.
    adapter_ident: syn::Ident,
    /// The pattern of a wildcard hook, which its record carries as its point.
    pattern: Option<String>,
    /// `true` for a user-defined point: its record carries the runtime's firer of the point.
    custom: bool,
}

impl<'a> Generator<'a> {
    fn new(attr: &'a HookAttr, point: &Point, hook: &'a HookFn<'a>) -> Self {
        let span = point.span();
        let krate = respan(attr.krate.to_token_stream(), span);
        Generator {
            attr,
            hook,
            span,
            point: point.ty(&krate),
            krate,
            adapter_ident: format_ident!("__hookchain_adapter", span = span),
            pattern: point.pattern().map(str::to_owned),
            custom: matches!(point, Point::Path(_)),
        }
    }

    /// `<P as HookPoint>::ITEM`.
    fn point_item(&self, item: &str) -> TokenStream {
        let Generator {
            span, krate, point, ..
        } = self;
        let item = format_ident!("{}", item, span = *span);
        quote_spanned!(*span=> <#point as #krate::HookPoint>::#item)
    }

    /// `priority = EXPR` as a typed constant: `const __HOOKCHAIN_PRIORITY: i32 = EXPR;`, every
    /// token of it but the expression spanned on the expression, so that an expression that is
    /// not a constant `i32` is reported there, by the compiler ("expected `i32`, found `u64`").
    /// Nothing without the key: the record's priority is then 0.
    fn priority(&self) -> TokenStream {
        let Some(expr) = &self.attr.priority else {
            return TokenStream::new();
        };
        let at = ungroup(expr).span();
        let ident = priority_ident(at);
        quote_spanned! {at=>
            const #ident: ::core::primitive::i32 = #expr;
        }
    }

    /// The adapter fn: converts the point's input and the context into the hook's arguments,
    /// calls the hook and normalises what it returns.
    fn adapter(&self) -> TokenStream {
        let Generator {
            hook,
            span,
            krate,
            point,
            adapter_ident,
            ..
        } = self;
        let span = *span;
        let ident = hook.ident;
        let is_async = hook.asyncness.is_some();
        let point_input = self.point_item("Input");
        let point_rewrite = self.point_item("Rewrite");
        let (input_lifetime, cx_lifetime, cx_inner_lifetime) = if is_async {
            (
                quote_spanned!(span=> 'a),
                quote_spanned!(span=> 'a),
                quote_spanned!(span=> 'a),
            )
        } else {
            (
                quote_spanned!(span=> 'a),
                quote_spanned!(span=> 'b),
                quote_spanned!(span=> 'c),
            )
        };

        // The adapter's parameters, spanned on the glue where they are used as where they are
        // declared: a local variable resolves only from the same context, and the user's types may
        // come from another one (a `macro_rules!` that writes the hook).
        let input_var = quote_spanned!(span=> __input);
        let cx_var = quote_spanned!(span=> __cx);

        let input_ty = hook.input;
        let input_arg = quote_spanned! {input_ty.span()=>
            <#input_ty as #krate::__private::HookArg<#input_lifetime, #point_input>>::from_input(#input_var)
        };
        let mut lets = quote_spanned!(span=> let __arg0 = #input_arg;);
        let mut args = quote_spanned!(span=> __arg0);
        if let Some(cx_ty) = hook.context {
            let cx_arg = quote_spanned! {cx_ty.span()=>
                <#cx_ty as #krate::__private::ContextArg<#cx_lifetime, #cx_inner_lifetime>>::from_context(#cx_var)
            };
            lets.extend(quote_spanned!(span=> let __arg1 = #cx_arg;));
            args.extend(quote_spanned!(span=> , __arg1));
        }

        // Without `->`, the return type is `()`; a wrong `()` is reported on the fn's name.
        let (output_ty, output_span) = match hook.output {
            Some(ty) => (ty.to_token_stream(), ty.span()),
            None => (quote_spanned!(ident.span()=> ()), ident.span()),
        };
        let into_return = quote_spanned! {output_span=>
            <#output_ty as #krate::__private::IntoHookReturn<#point_rewrite>>::into_hook_return
        };
        let into_output = quote_spanned! {output_span=>
            <#output_ty as #krate::__private::IntoHookReturn<#point_rewrite>>::into_hook_output
        };

        let allow = quote_spanned! {span=>
            #[allow(
                clippy::unit_arg,
                clippy::used_underscore_binding,
                clippy::needless_lifetimes,
                clippy::extra_unused_lifetimes,
                unused_qualifications
            )]
        };
        let hook_return = quote_spanned!(span=> #krate::__private::HookReturn<#point>);
        let sync_return = quote_spanned!(span=> #krate::__private::SyncReturn<#point>);
        match hook.asyncness {
            None => quote_spanned! {span=>
                #allow
                fn #adapter_ident<'a, 'b, 'c>(
                    #input_var: &'a #point_input,
                    #cx_var: &'b #krate::HookContext<'c>,
                ) -> #sync_return {
                    #lets
                    #into_output(#ident(#args))
                }
            },
            Some(async_span) => {
                // A future that is not `Send` is reported on `async`.
                let boxed = quote_spanned! {async_span=>
                    ::std::boxed::Box::pin(async move { #into_return(#ident(#args).await) })
                };
                quote_spanned! {span=>
                    #allow
                    fn #adapter_ident<'a>(
                        #input_var: &'a #point_input,
                        #cx_var: &'a #krate::HookContext<'a>,
                    ) -> #krate::__private::BoxFuture<'a, #hook_return> {
                        #lets
                        #boxed
                    }
                }
            }
        }
    }

    /// The `Registration` literal.
    fn record(&self) -> TokenStream {
        let Generator {
            attr,
            hook,
            span,
            krate,
            point,
            adapter_ident,
            pattern,
            custom,
        } = self;
        let span = *span;
        let ident = hook.ident;
        let point_name = match pattern {
            Some(pattern) => LitStr::new(pattern, span).to_token_stream(),
            None => self.point_item("NAME"),
        };
        let name = attr.name.as_ref().map_or_else(
            || {
                let fn_name = LitStr::new(&ident.unraw().to_string(), ident.span());
                quote_spanned!(span=> ::core::concat!(::core::module_path!(), "::", #fn_name))
            },
            ToTokens::to_token_stream,
        );
        let extension = attr.extension.as_ref().map_or_else(
            || quote_spanned!(span=> ::core::env!("CARGO_PKG_NAME")),
            ToTokens::to_token_stream,
        );
        let priority = match &attr.priority {
            Some(expr) => priority_ident(ungroup(expr).span()).to_token_stream(),
            None => quote_spanned!(span=> 0),
        };
        let on_error = match attr.on_error {
            None => quote_spanned!(span=> ::core::option::Option::None),
            Some(OnErrorPolicy::Pass(span)) => {
                quote_spanned!(span=> ::core::option::Option::Some(#krate::OnError::Pass))
            }
            Some(OnErrorPolicy::Block(span)) => {
                quote_spanned!(span=> ::core::option::Option::Some(#krate::OnError::Block))
            }
            Some(OnErrorPolicy::Warn(span)) => {
                quote_spanned!(span=> ::core::option::Option::Some(#krate::OnError::Warn))
            }
        };
        // Spanned on the fn's name, so they give the fn's file and line, not the attribute's.
        let file = quote_spanned!(ident.span()=> ::core::file!());
        let line = quote_spanned!(ident.span()=> ::core::line!());
        let (is_async, handler) = match hook.asyncness {
            None => (
                false,
                quote_spanned!(span=> #krate::__private::SyncHandler::<#point>),
            ),
            Some(_) => (
                true,
                quote_spanned!(span=> #krate::__private::AsyncHandler::<#point>),
            ),
        };
        // The code that delivers an event of a user-defined point, so that one only hooks emit
        // finds its chain (built-in points' is in the runtime).
        let firer = if *custom {
            quote_spanned!(span=> ::core::option::Option::Some(&#krate::__private::firer::<#point>()))
        } else {
            quote_spanned!(span=> ::core::option::Option::None)
        };
        quote_spanned! {span=>
            #krate::__private::Registration {
                point: #point_name,
                name: #name,
                priority: #priority,
                extension: #extension,
                kind: <#point as #krate::HookPoint>::KIND,
                on_error: #on_error,
                default_on_error: <#point as #krate::HookPoint>::DEFAULT_ON_ERROR,
                file: #file,
                line: #line,
                is_async: #is_async,
                handler: &#handler(#adapter_ident),
                firer: #firer,
            }
        }
    }
}

/// The name of the priority's constant, spanned on the priority's expression.
fn priority_ident(span: Span) -> syn::Ident {
    format_ident!("__HOOKCHAIN_PRIORITY", span = span)
}
