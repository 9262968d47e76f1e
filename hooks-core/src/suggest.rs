//! "Did you mean ..?": the closest known name to a misspelt one, the way darling suggests field
//! names.
//!
//! One rule everywhere hookchain suggests a name — point names in `#[register_hook]`, attribute
//! keys, config keys, events in other agents' files: Jaro-Winkler similarity above
//! [`THRESHOLD`], compared case-insensitively, so `Intercept_Tool_Cal` and `pretooluse` find their
//! names as surely as `intercept_tool_cal` does.

/// How alike two names must be (Jaro-Winkler, 0 to 1) for one to be suggested for the other.
pub const THRESHOLD: f64 = 0.8;

/// The candidate most like `name`, if it is alike enough (Jaro-Winkler above [`THRESHOLD`]).
///
/// Names are compared case-insensitively. Between candidates equally alike that way, the one
/// closer in case wins (`Stop` for `Stp`, `stop` for `stp`), and then the later one:
/// `closest("priorty", keys)` is `Some("priority")`, `closest("On_Eror", keys)` is
/// `Some("on_error")` and `closest("colour", keys)` is `None` for the keys of `#[register_hook]`.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .into_iter()
        .map(|candidate| {
            let folded = strsim::jaro_winkler(&lower, &candidate.to_lowercase());
            let exact = strsim::jaro_winkler(name, candidate);
            ((folded, exact), candidate)
        })
        .filter(|((folded, _), _)| *folded > THRESHOLD)
        .max_by(|((a, a_exact), _), ((b, b_exact), _)| {
            a.total_cmp(b).then(a_exact.total_cmp(b_exact))
        })
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_keys() {
        let keys = ["priority", "name", "extension", "on_error", "crate"];
        assert_eq!(closest("priorty", keys), Some("priority"));
        assert_eq!(closest("On_Eror", keys), Some("on_error"));
        assert_eq!(closest("colour", keys), None);
    }

    const KEYS: [&str; 5] = ["priority", "name", "extension", "on_error", "crate"];

    #[test]
    fn suggests_the_closest_name() {
        assert_eq!(closest("priorty", KEYS), Some("priority"));
        assert_eq!(closest("on_eror", KEYS), Some("on_error"));
        assert_eq!(closest("extention", KEYS), Some("extension"));
        assert_eq!(closest("color", KEYS), None);
        assert_eq!(closest("anything", []), None);
    }

    #[test]
    fn compares_case_insensitively() {
        let names = ["intercept_tool_call", "turn_end"];
        assert_eq!(
            closest("Intercept_Tool_Cal", names),
            Some("intercept_tool_call")
        );
        assert_eq!(closest("PRETOOLUSE", ["PreToolUse"]), Some("PreToolUse"));
        assert_eq!(closest("TURN_END", names), Some("turn_end"));
    }

    #[test]
    fn prefers_the_closer_case_between_equals() {
        assert_eq!(closest("Stp", ["stop", "Stop"]), Some("Stop"));
        assert_eq!(closest("stp", ["Stop", "stop"]), Some("stop"));
    }

    #[test]
    fn borrows_from_the_candidates() {
        let owned = ["extensions".to_owned(), "hooks".to_owned()];
        let found = closest("extentions", owned.iter().map(String::as_str));
        assert_eq!(found, Some("extensions"));
    }
}
