//! The point a hook attaches to: a built-in point named by a string literal, or a user-defined
//! point named by the path of its type.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{LitStr, Path};

use crate::catalog::{BUILTIN_POINTS, BuiltinPoint, Lookup, lookup};
use crate::spans::respan;
use crate::suggest::{closest, quoted_list};

/// The point of a hook, once resolved.
pub(crate) enum Point {
    /// A built-in point, written as its canonical name.
    Builtin {
        point: &'static BuiltinPoint,
        /// The span of the string literal.
        span: Span,
    },
    /// A type implementing `HookPoint`, written as its path.
    Path(Path),
    /// A wildcard pattern (`"*"`, `"after_*"`, `"myapp:*"`): the hook observes every dispatch of
    /// the points it matches.
    Wildcard {
        /// The pattern as written.
        pattern: String,
        /// The span of the string literal.
        span: Span,
    },
}

impl Point {
    /// Resolves a string literal to a built-in point. An alias or an unknown name is an error on
    /// the literal, which says which name to write instead.
    pub(crate) fn from_literal(lit: &LitStr) -> syn::Result<Point> {
        let name = lit.value();
        if hookchain_core::Pattern::is_wildcard(&name) {
            return match hookchain_core::Pattern::parse(
                &name,
                BUILTIN_POINTS.iter().map(|p| p.name),
            ) {
                Ok(_) => Ok(Point::Wildcard {
                    pattern: name,
                    span: lit.span(),
                }),
                Err(error) => Err(syn::Error::new(lit.span(), error.to_string())),
            };
        }
        match lookup(&name) {
            Lookup::Canonical(point) => Ok(Point::Builtin {
                point,
                span: lit.span(),
            }),
            Lookup::Alias { point, agent } => Err(syn::Error::new(
                lit.span(),
                format!(
                    "`{name}` is {} name for `{}`; write #[register_hook(\"{}\", ...)]",
                    possessive(agent),
                    point.name,
                    point.name,
                ),
            )),
            Lookup::Unknown => Err(syn::Error::new(lit.span(), unknown_point(&name))),
        }
    }

    /// The point's type, under the facade `krate` for a built-in point.
    ///
    /// Every token carries [`span`](Point::span), so that a type that is not a hook point is
    /// reported once, where the user named it (see [`crate::expand`]).
    pub(crate) fn ty(&self, krate: &TokenStream) -> TokenStream {
        match self {
            Point::Builtin { point, span } => {
                let ident = format_ident!("{}", point.type_name, span = *span);
                quote_spanned!(*span=> #krate::points::#ident)
            }
            Point::Path(path) => respan(quote!(#path), self.span()),
            Point::Wildcard { span, .. } => {
                quote_spanned!(*span=> #krate::__private::Wildcard)
            }
        }
    }

    /// The pattern of a wildcard hook.
    pub(crate) fn pattern(&self) -> Option<&str> {
        match self {
            Point::Wildcard { pattern, .. } => Some(pattern),
            _ => None,
        }
    }

    /// Where the point is written: the literal, or the last segment of the path (the type's
    /// name).
    pub(crate) fn span(&self) -> Span {
        match self {
            Point::Builtin { span, .. } | Point::Wildcard { span, .. } => *span,
            Point::Path(path) => path
                .segments
                .last()
                .map_or_else(|| path.span(), |segment| segment.ident.span()),
        }
    }
}

/// The message for a point name that is neither canonical nor an alias.
///
/// The suggestion is the closest name among the canonical names and the aliases; an alias is
/// suggested as its point's canonical name, the one the attribute takes.
fn unknown_point(name: &str) -> String {
    let names = BUILTIN_POINTS.iter().flat_map(|point| {
        std::iter::once(point.name).chain(point.aliases.iter().map(|(alias, _)| *alias))
    });
    let suggestion = closest(name, names).and_then(|close| match lookup(close) {
        Lookup::Canonical(point) | Lookup::Alias { point, .. } => Some(point.name),
        Lookup::Unknown => None,
    });
    match suggestion {
        Some(suggestion) => {
            format!("unknown hook point `{name}` — did you mean `{suggestion}`?")
        }
        None => format!(
            "unknown hook point `{name}`; the built-in points are {}, and a point of your own \
             is the path of its type, without quotes: #[register_hook(MyPoint)]",
            quoted_list(BUILTIN_POINTS.iter().map(|point| point.name)),
        ),
    }
}

/// `Hermes'`, `Pi's`.
fn possessive(agent: &str) -> String {
    if agent.ends_with('s') {
        format!("{agent}'")
    } else {
        format!("{agent}'s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(name: &str) -> String {
        let lit = LitStr::new(name, Span::call_site());
        match Point::from_literal(&lit) {
            Ok(_) => panic!("`{name}` resolved"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn resolves_canonical_names() {
        let lit = LitStr::new("intercept_tool_call", Span::call_site());
        let point = Point::from_literal(&lit).unwrap();
        let krate = quote!(::hookchain);
        assert_eq!(
            point.ty(&krate).to_string(),
            ":: hookchain :: points :: InterceptToolCall"
        );
    }

    #[test]
    fn reads_wildcard_patterns_and_refuses_one_that_cannot_match() {
        let lit = LitStr::new("after_*", Span::call_site());
        assert_eq!(
            Point::from_literal(&lit).unwrap().pattern(),
            Some("after_*")
        );
        assert!(error("atfer_*").contains("did you mean `after_*`?"));
    }

    #[test]
    fn suggests_a_close_name() {
        assert_eq!(
            error("intercept_tool_cal"),
            "unknown hook point `intercept_tool_cal` — did you mean `intercept_tool_call`?"
        );
    }

    #[test]
    fn suggests_the_point_of_a_close_alias() {
        assert_eq!(
            error("PreToolUs"),
            "unknown hook point `PreToolUs` — did you mean `intercept_tool_call`?"
        );
        assert_eq!(
            error("Intercept_Tool_Cal"),
            "unknown hook point `Intercept_Tool_Cal` — did you mean `intercept_tool_call`?"
        );
    }

    #[test]
    fn lists_the_points_when_nothing_is_close() {
        let message = error("zzz");
        assert!(message.starts_with("unknown hook point `zzz`; the built-in points are "));
        assert!(message.contains("`transform_user_input`, `turn_start`, `before_llm_call`"));
    }

    #[test]
    fn names_the_canonical_point_of_an_alias() {
        assert_eq!(
            error("pre_tool_call"),
            "`pre_tool_call` is Hermes' name for `intercept_tool_call`; \
             write #[register_hook(\"intercept_tool_call\", ...)]"
        );
        assert_eq!(
            error("PreToolUse"),
            "`PreToolUse` is Claude Code's name for `intercept_tool_call`; \
             write #[register_hook(\"intercept_tool_call\", ...)]"
        );
    }
}
