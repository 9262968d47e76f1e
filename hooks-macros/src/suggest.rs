//! "Did you mean ..?": the closest known name to a misspelt one, by hooks-core's one rule
//! ([`hookchain_core::suggest::closest`]: Jaro-Winkler above 0.8, case-insensitive), and the list of
//! names a message quotes when nothing is close.

pub(crate) use hookchain_core::suggest::closest;

/// `` `a`, `b`, `c` `` — names quoted for a message.
pub(crate) fn quoted_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names
        .into_iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_a_list() {
        assert_eq!(quoted_list(["a", "b"]), "`a`, `b`");
    }
}
