//! The hook fn's signature, checked for the shapes a hook can have.
//!
//! Only the *shape* is checked here: a free, non-generic, safe Rust `fn` or `async fn` with one
//! or two arguments. Whether the argument and return *types* fit the point is left to the type
//! system: the generated adapter routes each of them through a trait of `hooks-core`, spanned on
//! the user's type (see [`crate::expand`]).

use proc_macro2::Span;
use syn::{FnArg, Ident, ReturnType, Signature, Type};

use crate::errors::Errors;

/// The accepted shapes, quoted in the messages about arguments.
const SHAPES: &str = "a hook takes `(input: &Input)` or `(input: &Input, cx: &HookContext)`";

/// A hook fn whose shape is right.
pub(crate) struct HookFn<'a> {
    /// The fn's name.
    pub(crate) ident: &'a Ident,
    /// The `async` keyword, for an `async fn`.
    pub(crate) asyncness: Option<Span>,
    /// The type of the first argument (the point's input).
    pub(crate) input: &'a Type,
    /// The type of the second argument (the context), if the fn takes one.
    pub(crate) context: Option<&'a Type>,
    /// The declared return type (of the future's output, for an `async fn`); `None` for `()`.
    pub(crate) output: Option<&'a Type>,
}

/// Checks the shape of the signature `sig`. Every mistake goes to `errors`; `None` when there was
/// at least one.
pub(crate) fn check<'a>(sig: &'a Signature, errors: &mut Errors) -> Option<HookFn<'a>> {
    let mut ok = true;
    let mut fail = |error: syn::Error| {
        errors.push(error);
        ok = false;
    };

    check_qualifiers(sig, &mut fail);

    let mut types = Vec::new();
    let mut has_receiver = false;
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(receiver) => {
                has_receiver = true;
                fail(syn::Error::new_spanned(
                    receiver,
                    "a hook cannot take `self`: #[register_hook] goes on a free fn, outside any \
                     `impl` block",
                ));
            }
            FnArg::Typed(arg) => {
                if let Some(impl_trait) = impl_trait(&arg.ty) {
                    fail(syn::Error::new_spanned(
                        impl_trait,
                        "a hook's argument cannot be `impl Trait`; write the type: \
                         `&ToolCall`, `&str`, `&HookContext`, ...",
                    ));
                }
                types.push(&*arg.ty);
            }
        }
    }
    match types.len() {
        1 | 2 => {}
        0 if has_receiver => {}
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
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => {
            if let Some(impl_trait) = impl_trait(ty) {
                fail(syn::Error::new_spanned(
                    impl_trait,
                    returns_impl_trait_message(sig),
                ));
            }
            Some(&**ty)
        }
    };

    if !ok || types.is_empty() {
        return None;
    }
    Some(HookFn {
        ident: &sig.ident,
        asyncness: sig.asyncness.map(|token| token.span),
        input: types[0],
        context: types.get(1).copied(),
        output,
    })
}

/// The shape of a wildcard hook: a sync fn taking `&DispatchEvent` (and `&HookContext`) and
/// returning `()` or `Result<(), E>`. Each mistake is an error of its own, on the user's token,
/// saying what a wildcard hook is; the types are checked again by the compiler.
pub(crate) fn check_wildcard(pattern: &str, hook: &HookFn<'_>, errors: &mut Errors) {
    if let Some(span) = hook.asyncness {
        errors.push(syn::Error::new(
            span,
            format!(
                "a wildcard hook (`\"{pattern}\"`) is a sync fn: it runs after each chain, with \
                 the event of the dispatch; remove `async`"
            ),
        ));
    }
    if !names_type(hook.input, "DispatchEvent") {
        errors.push(syn::Error::new_spanned(
            hook.input,
            format!(
                "a wildcard hook (`\"{pattern}\"`) observes dispatches, not one point's payload: \
                 it takes `&DispatchEvent` (its `payload` is the point's value as JSON), and \
                 optionally `&HookContext`"
            ),
        ));
    }
    if let Some(output) = hook.output
        && !returns_unit(output)
    {
        errors.push(syn::Error::new_spanned(
            output,
            format!(
                "a wildcard hook (`\"{pattern}\"`) only observes: it returns `()` or \
                 `Result<(), E>`; it cannot rewrite or block"
            ),
        ));
    }
}

/// `true` for `&Name` or `&path::to::Name`.
fn names_type(ty: &Type, name: &str) -> bool {
    let Type::Reference(reference) = ty else {
        return false;
    };
    let Type::Path(path) = &*reference.elem else {
        return false;
    };
    path.path.segments.last().is_some_and(|s| s.ident == name)
}

/// `true` for `()` and `Result<(), ..>`.
fn returns_unit(ty: &Type) -> bool {
    match ty {
        Type::Tuple(tuple) => tuple.elems.is_empty(),
        Type::Path(path) => path.path.segments.last().is_some_and(|s| {
            s.ident == "Result"
                && match &s.arguments {
                    syn::PathArguments::AngleBracketed(args) => matches!(
                        args.args.first(),
                        Some(syn::GenericArgument::Type(Type::Tuple(t))) if t.elems.is_empty()
                    ),
                    _ => false,
                }
        }),
        _ => false,
    }
}

/// A hook is a plain, safe, non-generic Rust fn: no `const`, `unsafe`, ABI, generics, `where`
/// clause or variadic.
fn check_qualifiers(sig: &Signature, fail: &mut impl FnMut(syn::Error)) {
    if let Some(constness) = &sig.constness {
        fail(syn::Error::new(
            constness.span,
            "a hook cannot be a `const fn`; remove `const`",
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        fail(syn::Error::new(
            unsafety.span,
            "a hook cannot be an `unsafe fn`: the chain calls it with no safety contract to \
             uphold; remove `unsafe`",
        ));
    }
    if let Some(abi) = &sig.abi {
        fail(syn::Error::new_spanned(
            abi,
            "a hook cannot be an `extern` fn: the chain calls it as a Rust fn; remove the ABI",
        ));
    }
    if !sig.generics.params.is_empty() {
        fail(syn::Error::new_spanned(
            &sig.generics,
            "a hook cannot be generic: the chain calls one concrete fn with the point's input; \
             remove the generic parameters",
        ));
    } else if let Some(where_clause) = &sig.generics.where_clause {
        fail(syn::Error::new_spanned(
            where_clause,
            "a hook cannot have a `where` clause; remove it",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        fail(syn::Error::new_spanned(
            variadic,
            "a hook cannot be variadic",
        ));
    }
}

fn returns_impl_trait_message(sig: &Signature) -> &'static str {
    if sig.asyncness.is_some() {
        "a hook cannot return `impl Trait`; write the type: `HookResult<..>`, \
         `Result<HookResult<..>, E>` or `()`"
    } else {
        "a hook cannot return `impl Trait`; write the type: `HookResult<..>`, \
         `Result<HookResult<..>, E>` or `()`, and make it an `async fn` to await in it"
    }
}

/// The `impl Trait` in `ty`, at its top or behind references and parentheses.
fn impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Reference(reference) => impl_trait(&reference.elem),
        Type::Paren(paren) => impl_trait(&paren.elem),
        Type::Group(group) => impl_trait(&group.elem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn errors_of(item: proc_macro2::TokenStream) -> Vec<String> {
        let item: syn::ItemFn = syn::parse2(item).unwrap();
        let mut errors = Errors::new();
        let hook = check(&item.sig, &mut errors);
        match errors.finish() {
            Ok(()) => {
                assert!(hook.is_some());
                Vec::new()
            }
            Err(e) => {
                assert!(hook.is_none());
                e.into_iter().map(|e| e.to_string()).collect()
            }
        }
    }

    #[test]
    fn accepts_the_hook_shapes() {
        assert!(
            errors_of(quote!(
                fn a(_: &ToolCall) {}
            ))
            .is_empty()
        );
        assert!(
            errors_of(quote!(
                fn b(c: &ToolCall, cx: &HookContext) -> HookResult<Value> {}
            ))
            .is_empty()
        );
        assert!(
            errors_of(quote!(
                pub async fn c((a, b): &(u8, u8)) {}
            ))
            .is_empty()
        );
    }

    #[test]
    fn reads_the_signature() {
        let item: syn::ItemFn = syn::parse_quote!(
            async fn guard(c: &ToolCall, cx: &HookContext) -> HookResult<Value> {}
        );
        let mut errors = Errors::new();
        let hook = check(&item.sig, &mut errors).unwrap();
        assert_eq!(hook.ident, "guard");
        assert!(hook.asyncness.is_some());
        let input = hook.input;
        assert_eq!(quote!(#input).to_string(), "& ToolCall");
        assert!(hook.context.is_some());
        assert!(hook.output.is_some());
    }

    #[test]
    fn reports_every_wrong_shape() {
        let errors = errors_of(quote!(
            const unsafe extern "C" fn f<T>(&self, a: T, b: impl Sized, c: u8) -> impl Sized {}
        ));
        assert_eq!(
            errors,
            [
                "a hook cannot be a `const fn`; remove `const`",
                "a hook cannot be an `unsafe fn`: the chain calls it with no safety contract to \
                 uphold; remove `unsafe`",
                "a hook cannot be an `extern` fn: the chain calls it as a Rust fn; remove the ABI",
                "a hook cannot be generic: the chain calls one concrete fn with the point's \
                 input; remove the generic parameters",
                "a hook cannot take `self`: #[register_hook] goes on a free fn, outside any \
                 `impl` block",
                "a hook's argument cannot be `impl Trait`; write the type: `&ToolCall`, `&str`, \
                 `&HookContext`, ...",
                "a hook takes `(input: &Input)` or `(input: &Input, cx: &HookContext)`; this one \
                 takes 3",
                "a hook cannot return `impl Trait`; write the type: `HookResult<..>`, \
                 `Result<HookResult<..>, E>` or `()`, and make it an `async fn` to await in it",
            ]
        );
    }

    #[test]
    fn no_arguments() {
        assert_eq!(
            errors_of(quote!(
                fn f() {}
            )),
            [
                "a hook takes `(input: &Input)` or `(input: &Input, cx: &HookContext)`; this one \
              takes none"
            ]
        );
        assert_eq!(
            errors_of(quote!(
                fn f(&self) {}
            ))
            .len(),
            1
        );
    }

    #[test]
    fn where_clause() {
        assert_eq!(
            errors_of(quote!(
                fn f(a: &str)
                where
                    String: Clone,
                {
                }
            )),
            ["a hook cannot have a `where` clause; remove it"]
        );
    }
}
