//! The attribute's arguments: `#[register_hook(POINT, key = value, ...)]`.
//!
//! Parsing happens in two steps. [`Args`] reads the syntax — a point, then `key = value` pairs —
//! and fails only on tokens it cannot read at all. [`HookAttr::from_args`] then checks every
//! key and value, records each mistake on the user's own token, and goes on to the next one, so
//! that one compilation reports them all.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Expr, ExprLit, ExprUnary, Ident, Lit, LitInt, LitStr, Path, Token, UnOp, parse_quote};

use crate::errors::Errors;
use crate::point::Point;
use crate::suggest::{closest, quoted_list};

/// The keys the attribute takes after the point.
const KEYS: &[&str] = &["priority", "name", "extension", "on_error", "crate"];

/// The values `on_error` takes.
const ON_ERROR_POLICIES: &[&str] = &["pass", "block", "warn"];

/// The attribute, checked: what the generated registration records.
pub(crate) struct HookAttr {
    /// The point; `None` when it is missing or wrong (the error is recorded).
    pub(crate) point: Option<Point>,
    /// `priority = N`, or 0.
    pub(crate) priority: i32,
    /// `name = ".."`, or `None` for the fn's module path and name.
    pub(crate) name: Option<LitStr>,
    /// `extension = ".."`, or `None` for the crate's name.
    pub(crate) extension: Option<LitStr>,
    /// `on_error = ".."`, or `None` for the point's default.
    pub(crate) on_error: Option<OnErrorPolicy>,
    /// `crate = path`: where the facade is, `::hookchain` by default.
    pub(crate) krate: Path,
}

/// The value of `on_error`, with the span of the literal that said it.
#[derive(Clone, Copy)]
pub(crate) enum OnErrorPolicy {
    /// `"pass"`: a failed hook counts as passed.
    Pass(Span),
    /// `"block"`: a failed hook blocks.
    Block(Span),
    /// `"warn"`: a failed hook counts as passed, and the user is warned.
    Warn(Span),
}

impl HookAttr {
    /// Parses and checks the attribute's tokens. Syntax errors and mistakes alike go to
    /// `errors`; what could be read is returned, with defaults in place of what could not.
    pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> HookAttr {
        match Parser::parse2(Args::parse, tokens) {
            Ok(args) => HookAttr::from_args(args, errors),
            Err(error) => {
                errors.push(error);
                HookAttr::default()
            }
        }
    }

    fn from_args(args: Args, errors: &mut Errors) -> HookAttr {
        let point = match args.point {
            Some(PointArg::Name(lit)) => errors.ok(Point::from_literal(&lit)),
            Some(PointArg::Type(path)) => Some(Point::Path(path)),
            None => {
                let span = args
                    .entries
                    .first()
                    .map_or_else(Span::call_site, |e| e.key.span());
                errors.push(syn::Error::new(
                    span,
                    "missing hook point: name it first, as in \
                     #[register_hook(\"intercept_tool_call\", priority = 10)]",
                ));
                None
            }
        };
        let mut attr = HookAttr {
            point,
            ..HookAttr::default()
        };

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
                "priority" => {
                    if let Some(priority) = errors.ok(priority(&value)) {
                        attr.priority = priority;
                    }
                }
                "name" => attr.name = errors.ok(label("name", "require_plan", &value)),
                "extension" => {
                    attr.extension = errors.ok(label("extension", "workflow_guards", &value));
                }
                "on_error" => attr.on_error = errors.ok(on_error(&value)),
                "crate" => {
                    if let Some(krate) = errors.ok(crate_path(&value)) {
                        attr.krate = krate;
                    }
                }
                _ => {
                    errors.push(unknown_key(&key, &key_name));
                    continue;
                }
            }
            seen.push(key_name);
        }
        attr
    }
}

impl Default for HookAttr {
    fn default() -> Self {
        HookAttr {
            point: None,
            priority: 0,
            name: None,
            extension: None,
            on_error: None,
            krate: parse_quote!(::hookchain),
        }
    }
}

/// The attribute's syntax: an optional point, then `key = value` pairs, comma-separated.
struct Args {
    point: Option<PointArg>,
    entries: Vec<Entry>,
}

/// How the point is written.
enum PointArg {
    /// `"intercept_tool_call"`.
    Name(LitStr),
    /// `MyPoint`, `crate::points::SendEmail`.
    Type(Path),
}

/// One `key = value`.
struct Entry {
    key: Ident,
    value: Expr,
}

impl Args {
    fn parse(input: ParseStream) -> syn::Result<Args> {
        let point = if input.is_empty() || (input.peek(Ident::peek_any) && input.peek2(Token![=])) {
            None
        } else if input.peek(LitStr) {
            Some(PointArg::Name(input.parse()?))
        } else if input.peek(Lit) {
            return Err(input.error(
                "expected a hook point: a built-in point's name as a string \
                 (\"intercept_tool_call\") or the path of a type implementing `HookPoint`",
            ));
        } else {
            Some(PointArg::Type(input.parse()?))
        };

        let mut entries = Vec::new();
        let mut first = point.is_none();
        while !input.is_empty() {
            if !first {
                input.parse::<Token![,]>()?;
                if input.is_empty() {
                    break;
                }
            }
            first = false;
            let key = Ident::parse_any(input)?;
            input.parse::<Token![=]>()?;
            let value = input.parse()?;
            entries.push(Entry { key, value });
        }
        Ok(Args { point, entries })
    }
}

/// `priority = N`: an integer literal, maybe negative, that fits an `i32`.
fn priority(value: &Expr) -> syn::Result<i32> {
    let not_an_integer = || {
        syn::Error::new_spanned(
            value,
            "`priority` must be an integer literal like `priority = 10`",
        )
    };
    let (negative, lit) = match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => (false, lit),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(lit), ..
            }) => (true, lit),
            _ => return Err(not_an_integer()),
        },
        _ => return Err(not_an_integer()),
    };
    check_suffix(lit)?;
    let out_of_range = || {
        syn::Error::new_spanned(
            value,
            format!(
                "`priority` must fit in an `i32` (from {} to {})",
                i32::MIN,
                i32::MAX
            ),
        )
    };
    let magnitude = lit.base10_parse::<i64>().map_err(|_| out_of_range())?;
    let priority = if negative { -magnitude } else { magnitude };
    i32::try_from(priority).map_err(|_| out_of_range())
}

/// A priority is an `i32`: no suffix, or `i32`.
fn check_suffix(lit: &LitInt) -> syn::Result<()> {
    match lit.suffix() {
        "" | "i32" => Ok(()),
        suffix => Err(syn::Error::new(
            lit.span(),
            format!("`priority` is an `i32`; drop the `{suffix}` suffix"),
        )),
    }
}

/// `name = ".."` or `extension = ".."`: a non-empty string literal.
fn label(key: &str, example: &str, value: &Expr) -> syn::Result<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => {
            if lit.value().is_empty() {
                Err(syn::Error::new(
                    lit.span(),
                    format!("`{key}` must not be empty"),
                ))
            } else {
                Ok(lit.clone())
            }
        }
        _ => Err(syn::Error::new_spanned(
            value,
            format!("`{key}` must be a string literal like `{key} = \"{example}\"`"),
        )),
    }
}

/// `on_error = "pass" | "block" | "warn"`.
fn on_error(value: &Expr) -> syn::Result<OnErrorPolicy> {
    let Expr::Lit(ExprLit {
        lit: Lit::Str(lit), ..
    }) = value
    else {
        return Err(syn::Error::new_spanned(
            value,
            "`on_error` must be a string: `on_error = \"pass\"` (fail open), \
             `on_error = \"warn\"` (fail open and warn the user) or `on_error = \"block\"` (fail closed)",
        ));
    };
    match lit.value().as_str() {
        "pass" => Ok(OnErrorPolicy::Pass(lit.span())),
        "block" => Ok(OnErrorPolicy::Block(lit.span())),
        "warn" => Ok(OnErrorPolicy::Warn(lit.span())),
        other => {
            let message = match closest(other, ON_ERROR_POLICIES.iter().copied()) {
                Some(suggestion) => {
                    format!("unknown `on_error` policy `{other}` — did you mean `{suggestion}`?")
                }
                None => format!(
                    "unknown `on_error` policy `{other}`; write `on_error = \"pass\"` \
                     (fail open), `on_error = \"warn\"` (fail open and warn the user) or \
                     `on_error = \"block\"` (fail closed)"
                ),
            };
            Err(syn::Error::new(lit.span(), message))
        }
    }
}

/// `crate = path` or `crate = "path"`.
fn crate_path(value: &Expr) -> syn::Result<Path> {
    match value {
        Expr::Path(expr) if expr.qself.is_none() && expr.attrs.is_empty() => Ok(expr.path.clone()),
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => lit.parse(),
        _ => Err(syn::Error::new_spanned(
            value,
            "`crate` must be a path like `crate = hookchain` or `crate = \"hookchain\"`",
        )),
    }
}

/// An unknown key, with the closest known key or the list of keys.
fn unknown_key(key: &Ident, key_name: &str) -> syn::Error {
    let message = match closest(key_name, KEYS.iter().copied()) {
        Some(suggestion) => format!("unknown key `{key_name}` — did you mean `{suggestion}`?"),
        None => format!(
            "unknown key `{key_name}`; the keys are {}",
            quoted_list(KEYS.iter().copied())
        ),
    };
    syn::Error::new(key.span(), message)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn parse(tokens: TokenStream) -> (HookAttr, Vec<String>) {
        let mut errors = Errors::new();
        let attr = HookAttr::parse(tokens, &mut errors);
        let messages = match errors.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (attr, messages)
    }

    #[test]
    fn reads_every_key() {
        let (attr, errors) = parse(quote!(
            "intercept_tool_call",
            priority = -10,
            name = "guard",
            extension = "guards",
            on_error = "block",
            crate = my::facade,
        ));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(attr.point, Some(Point::Builtin { .. })));
        assert_eq!(attr.priority, -10);
        assert_eq!(attr.name.unwrap().value(), "guard");
        assert_eq!(attr.extension.unwrap().value(), "guards");
        assert!(matches!(attr.on_error, Some(OnErrorPolicy::Block(_))));
        let krate = &attr.krate;
        assert_eq!(quote!(#krate).to_string(), quote!(my::facade).to_string());
    }

    #[test]
    fn defaults() {
        let (attr, errors) = parse(quote!(MyPoint));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(attr.point, Some(Point::Path(_))));
        assert_eq!(attr.priority, 0);
        assert!(attr.name.is_none() && attr.extension.is_none() && attr.on_error.is_none());
        let krate = &attr.krate;
        assert_eq!(quote!(#krate).to_string(), quote!(::hookchain).to_string());
    }

    #[test]
    fn takes_the_crate_as_a_string() {
        let (attr, errors) = parse(quote!("turn_end", crate = "::my::facade"));
        assert!(errors.is_empty(), "{errors:?}");
        let krate = &attr.krate;
        assert_eq!(quote!(#krate).to_string(), quote!(::my::facade).to_string());
    }

    #[test]
    fn priority_bounds() {
        assert_eq!(
            parse(quote!("turn_end", priority = -2147483648)).0.priority,
            i32::MIN
        );
        assert_eq!(
            parse(quote!("turn_end", priority = 2147483647i32))
                .0
                .priority,
            i32::MAX
        );
        let (_, errors) = parse(quote!("turn_end", priority = 2147483648));
        assert_eq!(
            errors,
            ["`priority` must fit in an `i32` (from -2147483648 to 2147483647)"]
        );
        let (_, errors) = parse(quote!("turn_end", priority = 99999999999999999999999));
        assert_eq!(errors.len(), 1);
        let (_, errors) = parse(quote!("turn_end", priority = 1u8));
        assert_eq!(errors, ["`priority` is an `i32`; drop the `u8` suffix"]);
    }

    #[test]
    fn reports_every_mistake() {
        let (_, errors) = parse(quote!(
            "intercept_tool_cal",
            priorty = 1,
            priority = "high",
            on_error = "blok",
            name = "",
            extension = 3,
            crate = 1 + 1,
            colour = 1,
        ));
        assert_eq!(
            errors,
            [
                "unknown hook point `intercept_tool_cal` — did you mean `intercept_tool_call`?",
                "unknown key `priorty` — did you mean `priority`?",
                "`priority` must be an integer literal like `priority = 10`",
                "unknown `on_error` policy `blok` — did you mean `block`?",
                "`name` must not be empty",
                "`extension` must be a string literal like `extension = \"workflow_guards\"`",
                "`crate` must be a path like `crate = hookchain` or `crate = \"hookchain\"`",
                "unknown key `colour`; the keys are `priority`, `name`, `extension`, \
                 `on_error`, `crate`",
            ]
        );
    }

    #[test]
    fn duplicate_keys() {
        let (attr, errors) = parse(quote!("turn_end", priority = 1, priority = 2));
        assert_eq!(errors, ["duplicate key `priority`"]);
        assert_eq!(attr.priority, 1);
    }

    #[test]
    fn missing_point() {
        assert_eq!(
            parse(quote!()).1,
            ["missing hook point: name it first, as in \
              #[register_hook(\"intercept_tool_call\", priority = 10)]"]
        );
        assert_eq!(parse(quote!(priority = 1)).1.len(), 1);
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(parse(quote!("turn_end" priority = 1)).1, ["expected `,`"]);
        assert_eq!(parse(quote!(10, priority = 1)).1.len(), 1);
    }
}
