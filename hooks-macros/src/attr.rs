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
    /// `priority = EXPR` as written, or `None` for 0.
    pub(crate) priority: Option<Expr>,
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
                "priority" => attr.priority = errors.ok(priority(&value)),
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
                    errors.push(unknown_key(&key, &key_name, KEYS));
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
            priority: None,
            name: None,
            extension: None,
            on_error: None,
            krate: parse_quote!(::hookchain),
        }
    }
}

/// The attribute's syntax: an optional point, then `key = value` pairs, comma-separated.
pub(crate) struct Args {
    pub(crate) point: Option<PointArg>,
    pub(crate) entries: Vec<Entry>,
}

/// How the point is written.
pub(crate) enum PointArg {
    /// `"intercept_tool_call"`.
    Name(LitStr),
    /// `MyPoint`, `crate::points::SendEmail`.
    Type(Path),
}

/// One `key = value`.
pub(crate) struct Entry {
    pub(crate) key: Ident,
    pub(crate) value: Expr,
}

impl Args {
    pub(crate) fn parse(input: ParseStream) -> syn::Result<Args> {
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

        let entries = parse_entries(input, point.is_none())?;
        Ok(Args { point, entries })
    }
}

/// `key =` with nothing after it, reported on the `=`.
/// The `key = value` entries after an attribute's leading argument (`first`: there was none,
/// so no comma comes before the first entry), a trailing comma allowed; shared by
/// `#[register_hook]`, `#[register_tool]` and `#[register_command]`.
pub(crate) fn parse_entries(input: ParseStream, mut first: bool) -> syn::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    while !input.is_empty() {
        if !first {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
        }
        first = false;
        let key = Ident::parse_any(input)?;
        let eq = input.parse::<Token![=]>()?;
        if input.is_empty() || input.peek(Token![,]) {
            return Err(missing_value(&key, eq.span));
        }
        let value = input.parse()?;
        entries.push(Entry { key, value });
    }
    Ok(entries)
}

fn missing_value(key: &Ident, eq: Span) -> syn::Error {
    let key = key.unraw().to_string();
    let example = match key.as_str() {
        "priority" => "10",
        "name" => "\"require_plan\"",
        "extension" => "\"workflow_guards\"",
        "on_error" => "\"block\"",
        "crate" => "hookchain",
        _ => return syn::Error::new(eq, format!("`{key} =` needs a value after it")),
    };
    syn::Error::new(
        eq,
        format!("`{key} =` needs a value after it, as in `{key} = {example}`"),
    )
}

/// `priority = EXPR`: any constant `i32` expression — `10`, `-5`, `GUARD`, `prio::GUARD + 1`,
/// an `$p:expr` from a `macro_rules!`.
///
/// The expression is kept as written: the compiler checks its type, on the user's tokens, when
/// the generated code puts it in a `const` of type `i32` (see [`crate::expand`]). Only what can
/// be told here is checked here: an integer literal that does not fit an `i32`, which the
/// compiler reports only through a lint.
fn priority(value: &Expr) -> syn::Result<Expr> {
    if let Some((negative, lit)) = int_literal(value)
        && matches!(lit.suffix(), "" | "i32")
    {
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
        i32::try_from(priority).map_err(|_| out_of_range())?;
    }
    Ok(value.clone())
}

/// The integer literal `value` is, maybe negated: `(true, 5)` for `-5`.
fn int_literal(value: &Expr) -> Option<(bool, &LitInt)> {
    match ungroup(value) {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => Some((false, lit)),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match ungroup(expr) {
            Expr::Lit(ExprLit {
                lit: Lit::Int(lit), ..
            }) => Some((true, lit)),
            _ => None,
        },
        _ => None,
    }
}

/// The expression inside the invisible groups a `macro_rules!` wraps its `$e:expr` and
/// `$l:literal` fragments in.
pub(crate) fn ungroup(mut expr: &Expr) -> &Expr {
    while let Expr::Group(group) = expr {
        expr = &group.expr;
    }
    expr
}

/// `name = ".."` or `extension = ".."`: a non-empty string literal.
pub(crate) fn label(key: &str, example: &str, value: &Expr) -> syn::Result<LitStr> {
    match ungroup(value) {
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
    }) = ungroup(value)
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
pub(crate) fn crate_path(value: &Expr) -> syn::Result<Path> {
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

/// An unknown key of an attribute whose keys are `keys`, with the closest one or the list of
/// them; shared by `#[register_hook]`, `#[register_tool]` and `#[register_command]`.
pub(crate) fn unknown_key(key: &Ident, key_name: &str, keys: &[&str]) -> syn::Error {
    let message = match closest(key_name, keys.iter().copied()) {
        Some(suggestion) => format!("unknown key `{key_name}` — did you mean `{suggestion}`?"),
        None => format!(
            "unknown key `{key_name}`; the keys are {}",
            quoted_list(keys.iter().copied())
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
        assert_eq!(priority_of(&attr).as_deref(), Some("- 10"));
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
        assert!(attr.priority.is_none());
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

    /// The priority expression as tokens, when the attribute has one.
    fn priority_of(attr: &HookAttr) -> Option<String> {
        attr.priority.as_ref().map(|e| quote!(#e).to_string())
    }

    #[test]
    fn priority_bounds() {
        let (attr, errors) = parse(quote!("turn_end", priority = -2147483648));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(priority_of(&attr).as_deref(), Some("- 2147483648"));
        let (_, errors) = parse(quote!("turn_end", priority = 2147483647i32));
        assert!(errors.is_empty(), "{errors:?}");
        let out_of_range = ["`priority` must fit in an `i32` (from -2147483648 to 2147483647)"];
        assert_eq!(
            parse(quote!("turn_end", priority = 2147483648)).1,
            out_of_range
        );
        assert_eq!(
            parse(quote!("turn_end", priority = -2147483649i32)).1,
            out_of_range
        );
        assert_eq!(
            parse(quote!("turn_end", priority = 99999999999999999999999)).1,
            out_of_range
        );
    }

    /// Any expression is a priority; its type is the compiler's to check.
    #[test]
    fn priority_expressions() {
        for tokens in [
            quote!("turn_end", priority = GUARD),
            quote!("turn_end", priority = consts::prio::GUARD + 1),
            quote!("turn_end", priority = -(A * 2)),
            quote!("turn_end", priority = 1u64),
            quote!("turn_end", priority = "high"),
            quote!("turn_end", priority = 99999999999999999999999u64),
        ] {
            let (attr, errors) = parse(tokens);
            assert!(errors.is_empty(), "{errors:?}");
            assert!(attr.priority.is_some());
        }
    }

    /// A `macro_rules!` hands an `$e:expr` over in an invisible group; a literal in one is
    /// checked all the same.
    #[test]
    fn priority_in_an_invisible_group() {
        let group = |tokens: TokenStream| {
            proc_macro2::TokenTree::Group(proc_macro2::Group::new(
                proc_macro2::Delimiter::None,
                tokens,
            ))
        };
        let sum = group(quote!(GUARD + 1));
        let (attr, errors) = parse(quote!("turn_end", priority = #sum));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(&attr.priority, Some(Expr::Group(_))));
        let too_low = group(quote!(-3000000000));
        let (_, errors) = parse(quote!("turn_end", priority = #too_low));
        assert_eq!(errors.len(), 1);
        let negated = group(quote!(3000000000));
        let (_, errors) = parse(quote!("turn_end", priority = - #negated));
        assert_eq!(errors.len(), 1);
    }

    #[test]
    fn reports_every_mistake() {
        let (_, errors) = parse(quote!(
            "intercept_tool_cal",
            priorty = 1,
            priority = 3000000000,
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
                "`priority` must fit in an `i32` (from -2147483648 to 2147483647)",
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
        assert_eq!(priority_of(&attr).as_deref(), Some("1"));
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
        assert_eq!(
            parse(quote!("turn_end", priority =)).1,
            ["`priority =` needs a value after it, as in `priority = 10`"]
        );
        assert_eq!(
            parse(quote!("turn_end", name = , priority = 1)).1,
            ["`name =` needs a value after it, as in `name = \"require_plan\"`"]
        );
        assert_eq!(
            parse(quote!("turn_end", colour =)).1,
            ["`colour =` needs a value after it"]
        );
        assert_eq!(parse(quote!(10, priority = 1)).1.len(), 1);
    }
}
