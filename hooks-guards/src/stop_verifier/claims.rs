//! Reading a reply for claims: the prose (code blocks, block quotes and quoted spans left
//! out), its sentences and clauses, and the clauses a rule's expressions match.
//!
//! # The rules it keeps
//!
//! - A question makes no claim, and neither does a clause with a cue before the claim
//!   (negation, future, intention, modality, condition, the user as the subject); a clause
//!   joined to a cued one that starts with a verb inherits its cue.
//! - One claim per rule at most, in the order of the rules.

use std::sync::LazyLock;

use regex::Regex;

use super::rules::Compiled;

/// Words that, before a claim in its clause, make it no claim: negation, future, intention,
/// modality, condition, the user as the subject.
pub(super) const CUES: &str = r"(?i)(?:n't\b|\b(?:not|no|never|nothing|none|neither|nor|without|unable|cannot|yet to|failed to|fail to|will|shall|would|should|could|can|may|might|must|going to|gonna|about to|plan to|planning to|intend to|want to|wants to|need to|needs to|have to|has to|had to|let me|let's|ready to|try to|trying to|attempt to|remember to|forgot to|if|unless|whether|once|until|in order to|so that|make sure|ensure|please|you|hopefully|hope|supposed to|pending|todo|instead of|according to|logs?\s+(?:show|shows|showed|say|says|said|indicate|indicates))\b|\B'(?:ll|d)\b)";

/// The claims of `reply`: (rule index, the clause that makes it), one per rule, in rule order.
pub(super) fn find_claims(reply: &str, rules: &[Compiled]) -> Vec<(usize, String)> {
    static CUE: LazyLock<Regex> = LazyLock::new(|| Regex::new(CUES).expect("a valid expression"));
    let text = prose(reply);
    let quoted = quoted_spans(&text);
    let mut found: Vec<(usize, String)> = Vec::new();
    for (start, end, question) in sentences(&text) {
        if question {
            continue;
        }
        let mut previous_cued = false;
        for (clause_start, clause_end, joined) in clauses(&text, start, end) {
            let clause = &text[clause_start..clause_end];
            // "I can confirm" and "as you can see" report, they do not hedge.
            let checked = clause
                .replace("can confirm", "confirm")
                .replace("can see", "see");
            let cued_here = CUE.is_match(&checked);
            let inherits = joined && previous_cued && starts_with_verb(clause);
            for (i, rule) in rules.iter().enumerate() {
                if found.iter().any(|(r, _)| *r == i) {
                    continue;
                }
                let claim = rule.claims.iter().find_map(|re| {
                    re.find_iter(clause).find(|m| {
                        let (a, b) = (clause_start + m.start(), clause_start + m.end());
                        let inside = quoted.iter().any(|&(qa, qb)| qa <= a && b <= qb);
                        let before = clause[..m.end()]
                            .replace("can confirm", "confirm")
                            .replace("can see", "see");
                        !inside && !inherits && !CUE.is_match(&before)
                    })
                });
                if claim.is_some() {
                    found.push((i, clause.trim().to_owned()));
                }
            }
            previous_cued = cued_here || inherits;
        }
    }
    found.sort_by_key(|(i, _)| *i);
    found
}

/// `reply` with fenced code blocks and block quotes blanked (their lines kept empty, so they
/// still end sentences) and curly apostrophes and quotes made straight.
fn prose(reply: &str) -> String {
    let mut out = String::with_capacity(reply.len());
    let mut fence: Option<&str> = None;
    for line in reply.lines() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) if !trimmed.starts_with('>') => {
                out.push_str(
                    &line
                        .replace(['\u{2019}', '\u{2018}'], "'")
                        .replace(['\u{201c}', '\u{201d}'], "\""),
                );
            }
            _ => {}
        }
        out.push('\n');
    }
    out
}

/// The byte ranges of inline code (`` `…` ``) and double-quoted text (`"…"`), each within a
/// line.
fn quoted_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        for delimiter in ['`', '"'] {
            let mut open: Option<usize> = None;
            for (i, c) in line.char_indices() {
                if c == delimiter {
                    match open.take() {
                        None => open = Some(i),
                        Some(a) => spans.push((offset + a, offset + i + 1)),
                    }
                }
            }
        }
        offset += line.len();
    }
    spans
}

/// The sentences of `text` as byte ranges, each with whether it is a question: a sentence ends
/// at `.`, `!` or `?` followed by a space or the end, and at every line break.
fn sentences(text: &str) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end_here = match c {
            '\n' => true,
            '.' | '!' | '?' => bytes
                .get(i + 1)
                .is_none_or(|next| next.is_ascii_whitespace()),
            _ => false,
        };
        if end_here {
            if text[start..i].trim().chars().any(char::is_alphanumeric) {
                out.push((start, i, c == '?'));
            }
            start = i + 1;
        }
    }
    if text[start..].trim().chars().any(char::is_alphanumeric) {
        out.push((start, text.len(), false));
    }
    out
}

/// The clauses of the sentence `text[start..end]`, as byte ranges, each with whether it was
/// joined to the previous one by `and`, `or` or `then`.
fn clauses(text: &str, start: usize, end: usize) -> Vec<(usize, usize, bool)> {
    static SPLIT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)[,;:()\[\]]|\s[-\u{2013}\u{2014}]+\s|\u{2014}|\s(?:but|although|though|while|whereas|however)\s|\s(and|or|then)\s",
        )
        .expect("a valid expression")
    });
    let sentence = &text[start..end];
    let mut out = Vec::new();
    let mut from = 0;
    let mut joined = false;
    for caps in SPLIT.captures_iter(sentence) {
        let whole = caps.get(0).expect("the whole match");
        if from < whole.start() {
            out.push((start + from, start + whole.start(), joined));
        }
        joined = caps.get(1).is_some();
        from = whole.end();
    }
    if from < sentence.len() {
        out.push((start + from, end, joined));
    }
    out
}

/// `true` when the clause's first word is a verb in the past (`pushed`, `wrote`), not a
/// subject: then it shares the subject, and the negation, of the clause before it.
fn starts_with_verb(clause: &str) -> bool {
    let first = clause
        .trim_start()
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    first.ends_with("ed")
        || matches!(
            first.as_str(),
            "wrote" | "written" | "ran" | "run" | "sent" | "made" | "built" | "put" | "set"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_and_clauses_split_where_they_should() {
        let text = "I wrote a.rs, but not b.rs. Should I push?\nDone";
        let s = sentences(text);
        assert_eq!(s.len(), 3);
        assert!(s[1].2);
        let c = clauses(text, s[0].0, s[0].1);
        assert_eq!(&text[c[0].0..c[0].1], "I wrote a.rs");
        assert_eq!(&text[c[1].0..c[1].1], "not b.rs");
    }
}
