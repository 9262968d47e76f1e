//! `extension! { .. }`: an extension's manifest, read, checked and expanded into a link-time
//! record, in the phases `#[register_hook]` has.
//!
//! - Keys: `name` (required), `version`, `description` (string literals), `depends_on` (a list
//!   of string literals), `points` (a list of built-in points' canonical names as string
//!   literals, wildcard patterns, and paths to point types of your own), `crate` (where the
//!   facade is; `::hookchain` by default). An unknown key is an error with the closest one.
//! - A built-in point's name is checked as `#[register_hook]` checks it: a misspelt one is an
//!   error on the literal with "did you mean", another agent's name for a point an error that
//!   names the canonical one. A path must name a `HookPoint`: the compiler says so on the path.
//! - Every mistake is reported, each on its own token.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Path, Token, bracketed};

use crate::catalog::{Lookup, lookup};
use crate::errors::Errors;
use crate::point::Point;
use crate::suggest::closest;

/// The keys a manifest takes.
const KEYS: &[&str] = &[
    "name",
    "version",
    "description",
    "depends_on",
    "points",
    "crate",
];

/// One `key: value` of the manifest, as written.
struct Field {
    key: Ident,
    value: Value,
}

/// A value as written: a string, a list, or a path (`crate`).
enum Value {
    Str(LitStr),
    List(Punctuated<Item, Token![,]>),
    Path(Path),
}

/// An item of a list: a string or a path.
enum Item {
    Str(LitStr),
    Path(Path),
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr) {
            Ok(Item::Str(input.parse()?))
        } else {
            Ok(Item::Path(input.parse()?))
        }
    }
}

impl Parse for Field {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = if input.peek(Token![crate]) {
            let token: Token![crate] = input.parse()?;
            Ident::new("crate", token.span)
        } else {
            input.parse()?
        };
        input.parse::<Token![:]>()?;
        let value = if input.peek(LitStr) {
            Value::Str(input.parse()?)
        } else if input.peek(syn::token::Bracket) {
            let content;
            bracketed!(content in input);
            Value::List(content.parse_terminated(Item::parse, Token![,])?)
        } else {
            Value::Path(input.parse()?)
        };
        Ok(Field { key, value })
    }
}

/// The manifest, read and checked.
#[derive(Default)]
struct Manifest {
    name: Option<LitStr>,
    version: Option<LitStr>,
    description: Option<LitStr>,
    depends_on: Vec<LitStr>,
    /// `None`: no `points` key (any point).
    points: Option<Vec<TokenStream>>,
    krate: Option<Path>,
}

/// Expands `extension! { .. }`; `Err` with every mistake found.
pub(crate) fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let fields =
        syn::parse::Parser::parse2(Punctuated::<Field, Token![,]>::parse_terminated, input)?;
    let mut errors = Errors::new();
    let mut manifest = Manifest::default();
    let mut seen: Vec<String> = Vec::new();
    let mut point_names: Vec<(Item, Span)> = Vec::new();
    for Field { key, value } in fields {
        let name = key.to_string();
        if seen.contains(&name) {
            errors.push(syn::Error::new(
                key.span(),
                format!("`{name}` is given twice"),
            ));
            continue;
        }
        seen.push(name.clone());
        match (name.as_str(), value) {
            ("name", Value::Str(s)) => manifest.name = Some(s),
            ("version", Value::Str(s)) => manifest.version = Some(s),
            ("description", Value::Str(s)) => manifest.description = Some(s),
            ("crate", Value::Path(p)) => manifest.krate = Some(p),
            ("crate", Value::Str(s)) => manifest.krate = errors.ok(s.parse()),
            ("depends_on", Value::List(items)) => {
                for item in items {
                    match item {
                        Item::Str(s) => manifest.depends_on.push(s),
                        Item::Path(p) => errors.push(syn::Error::new(
                            p.span(),
                            "`depends_on` lists extensions by name, as strings: \
                             depends_on: [\"workflow-guard\"]",
                        )),
                    }
                }
            }
            ("points", Value::List(items)) => {
                manifest.points = Some(Vec::new());
                point_names.extend(items.into_iter().map(|item| {
                    let span = match &item {
                        Item::Str(s) => s.span(),
                        Item::Path(p) => p.span(),
                    };
                    (item, span)
                }));
            }
            ("name" | "version" | "description", _) => errors.push(syn::Error::new(
                key.span(),
                format!("`{name}` is a string: {name}: \"..\""),
            )),
            ("depends_on" | "points", _) => errors.push(syn::Error::new(
                key.span(),
                format!("`{name}` is a list: {name}: [..]"),
            )),
            ("crate", _) => errors.push(syn::Error::new(
                key.span(),
                "`crate` is a path: crate: ::my_facade::hookchain",
            )),
            _ => errors.push(syn::Error::new(key.span(), unknown_key(&name))),
        }
    }
    if manifest.name.is_none() && !seen.iter().any(|k| k == "name") {
        errors.push(syn::Error::new(
            Span::call_site(),
            "a manifest needs the extension's `name`: extension! { name: \"notes\", .. }",
        ));
    }
    let krate = manifest
        .krate
        .as_ref()
        .map_or_else(|| quote!(::hookchain), ToTokens::to_token_stream);
    let mut points = Vec::new();
    for (item, span) in point_names {
        match item {
            Item::Str(lit) => {
                if let Some(name) = errors.ok(point_name(&lit)) {
                    points.push(LitStr::new(&name, span).to_token_stream());
                }
            }
            Item::Path(path) => {
                points.push(quote_spanned!(span=> <#path as #krate::HookPoint>::NAME));
            }
        }
    }
    if manifest.points.is_some() {
        manifest.points = Some(points);
    }
    errors.finish()?;
    Ok(record(&manifest, &krate))
}

/// The canonical name a manifest's string names: a built-in point's, or a wildcard pattern.
fn point_name(lit: &LitStr) -> syn::Result<String> {
    let name = lit.value();
    if let Lookup::Alias { point, .. } = lookup(&name) {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`{name}` is another agent's name for `{}`; write \"{}\" in `points`",
                point.name, point.name
            ),
        ));
    }
    match Point::from_literal(lit)? {
        Point::Builtin { point, .. } => Ok(point.name.to_owned()),
        Point::Wildcard { pattern, .. } => Ok(pattern),
        Point::Path(_) => Ok(name),
    }
}

/// The message of an unknown key.
fn unknown_key(key: &str) -> String {
    match closest(key, KEYS.iter().copied()) {
        Some(close) => format!("unknown key `{key}` — did you mean `{close}`?"),
        None => format!(
            "unknown key `{key}`; a manifest takes {}",
            crate::suggest::quoted_list(KEYS.iter().copied())
        ),
    }
}

/// The link-time record.
fn record(manifest: &Manifest, krate: &TokenStream) -> TokenStream {
    let name = &manifest.name;
    let or_empty = |s: &Option<LitStr>| match s {
        Some(s) => s.to_token_stream(),
        None => quote!(""),
    };
    let version = or_empty(&manifest.version);
    let description = or_empty(&manifest.description);
    let depends_on = &manifest.depends_on;
    let points = match &manifest.points {
        Some(points) => quote!(::core::option::Option::Some(&[#(#points),*])),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        const _: () = {
            #krate::__private::submit_manifest! {
                #krate::__private::ManifestDeclaration {
                    name: #name,
                    version: #version,
                    description: #description,
                    depends_on: &[#(#depends_on),*],
                    points: #points,
                    file: ::core::file!(),
                    line: ::core::line!(),
                }
            }
        };
    }
}
