//! Spans of generated tokens: what the macro writes in the user's name carries the span of the
//! user's own token, so that an error in it points there. Shared by the reading of the point
//! and the expansion; it names nothing else of the crate.

use proc_macro2::{Group, Span, TokenStream, TokenTree};

/// `tokens`, every one of them (delimiters too) set to `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), span));
                respanned.set_span(span);
                TokenTree::Group(respanned)
            }
            mut token => {
                token.set_span(span);
                token
            }
        })
        .collect()
}
