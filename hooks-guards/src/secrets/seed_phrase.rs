//! BIP-39 seed phrases: 12, 15, 18, 21 or 24 words of the BIP-39 English list, written the
//! way a phrase is written down — not any twelve list words that happen to follow each other.
//!
//! # What counts as a phrase
//!
//! - **a line that ends with the phrase**: the last 12 to 24 words of a line, separated by
//!   spaces, all list words (`restore with: legal winner … yellow.`, `mnemonic: "gain … phrase"`);
//!   what comes before them on the line is free, nothing but closing punctuation after;
//! - **a numbered list**: `1. word`, `1) word` or `1: word`, numbered from 1 without a gap, on
//!   one line or one a line;
//! - **a block that is only the phrase**: a text or a paragraph (between blank lines) whose
//!   every token is a list word, separated by spaces, newlines, `,` or `|` (quotes and a pair
//!   of brackets around it allowed).
//!
//! A phrase is as many words as BIP-39 allows (12, 15, 18, 21 or 24): of a longer run, the
//! longest such count at its end. So list words inside prose (a sentence that goes on after
//! them), a word list in code (`["apple", "banana", …];`), a bullet list (`- build`) or a YAML
//! list under its key are not phrases. The checksum is not verified: a phrase typed with a
//! wrong word is still a phrase to protect.
//!
//! # The word list
//!
//! `data/bip39-english.txt`: see the [module docs](super).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// The BIP-39 English word list, sorted.
static BIP39: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    include_str!("../../data/bip39-english.txt")
        .lines()
        .collect()
});

/// The word counts BIP-39 allows.
const COUNTS: [usize; 5] = [24, 21, 18, 15, 12];

/// Is `word` a BIP-39 English word (lower case, upper case or capitalised)?
fn is_word(word: &str) -> bool {
    let mut lower = [0u8; 8];
    if !(3..=8).contains(&word.len()) || !word.bytes().all(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    for (to, from) in lower.iter_mut().zip(word.bytes()) {
        *to = from.to_ascii_lowercase();
    }
    let lower = &lower[..word.len()];
    BIP39.binary_search_by(|w| w.as_bytes().cmp(lower)).is_ok()
}

/// The largest count BIP-39 allows that is at most `n`.
fn phrase_len(n: usize) -> Option<usize> {
    COUNTS.into_iter().find(|c| *c <= n)
}

/// What may open a word: quotes and brackets.
const OPEN: [char; 5] = ['"', '\'', '`', '(', '['];

/// What may close a word: quotes, brackets and the end of a sentence.
const CLOSE: [char; 9] = ['"', '\'', '`', ')', ']', '.', ',', ';', '!'];

/// A token of a text: its place and its text.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    start: usize,
    text: &'a str,
}

impl Token<'_> {
    /// The word inside quotes and brackets (`"gain` → `gain`), with its place.
    fn word(&self) -> (Range<usize>, &str) {
        let inner = self.text.trim_start_matches(OPEN);
        let start = self.start + self.text.len() - inner.len();
        let inner = inner.trim_end_matches(CLOSE);
        (start..start + inner.len(), inner)
    }
}

/// The tokens of `text[range]` split at any of `separators`, in order.
fn tokens<'a>(
    text: &'a str,
    range: Range<usize>,
    separators: &'a [char],
) -> impl DoubleEndedIterator<Item = Token<'a>> + 'a {
    let start = range.start;
    let part = &text[range];
    part.split(separators)
        .filter(|piece| !piece.is_empty())
        .map(move |piece| Token {
            // `piece` is a slice of `part`: its place is its distance from `part`'s start.
            start: start + (piece.as_ptr() as usize - part.as_ptr() as usize),
            text: piece,
        })
}

/// `1.`, `12)`, `3:`: the number of a numbered item.
fn number_label(token: &str) -> Option<usize> {
    let digits = token.strip_suffix(['.', ')', ':'])?;
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The seed phrases in `text`, in order; they may overlap (the guard merges what overlaps).
pub(super) fn seed_phrases(text: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    for block in blocks(text) {
        if let Some(range) = whole_block(text, block.clone()) {
            found.push(range);
            continue;
        }
        // A numbered list has a number closed by `.`, `)` or `:`.
        let labelled = text[block.clone()]
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_digit() && matches!(w[1], b'.' | b')' | b':'));
        if labelled {
            found.extend(numbered(text, block.clone()));
        }
        found.extend(line_ends(text, block));
    }
    found.sort_by_key(|r| r.start);
    found
}

/// The paragraphs of `text`: runs of lines between blank lines.
fn blocks(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        match (blank, start) {
            (false, None) => start = Some(at),
            (true, Some(s)) => {
                out.push(s..at);
                start = None;
            }
            _ => {}
        }
        at += line.len();
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// The block, when it is only a phrase: every token a list word (or the number of a numbered
/// list), separated by whitespace, `,` or `|`, in brackets or not.
fn whole_block(text: &str, block: Range<usize>) -> Option<Range<usize>> {
    let whole = &text[block.clone()];
    let inner = whole.trim();
    let offset = block.start + whole.len() - whole.trim_start().len();
    let (inner, offset) = match inner.strip_prefix('[').and_then(|i| i.strip_suffix(']')) {
        Some(i) => (i, offset + 1),
        None => (inner, offset),
    };
    let separators = [' ', '\t', '\r', '\n', ',', '|'];
    let mut words: Vec<Range<usize>> = Vec::new();
    for token in tokens(text, offset..offset + inner.len(), &separators) {
        if words.len() > COUNTS[0] {
            return None;
        }
        if number_label(token.text).is_some() {
            continue;
        }
        let (range, word) = token.word();
        if !is_word(word) {
            return None;
        }
        words.push(range);
    }
    if !COUNTS.contains(&words.len()) {
        return None;
    }
    Some(words.first()?.start..words.last()?.end)
}

/// A numbered item: its number and its word.
static ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)([0-9]{1,2})[.):][ \t]*([A-Za-z]{3,8})(?-u:\b)")
        .expect("a valid regular expression")
});

/// The numbered lists of list words in `block`: `1. word 2. word …` or one item a line, items
/// separated by whitespace alone.
fn numbered(text: &str, block: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut run: Vec<Range<usize>> = Vec::new();
    let mut close = |run: &mut Vec<Range<usize>>| {
        if let Some(n) = phrase_len(run.len()) {
            out.push(run[0].start..run[n - 1].end);
        }
        run.clear();
    };
    let part = &text[block.clone()];
    let mut last_end = 0;
    for item in ITEM.captures_iter(part) {
        let (Some(whole), Some(number), Some(word)) = (item.get(0), item.get(1), item.get(2))
        else {
            continue;
        };
        let n: usize = number.as_str().parse().unwrap_or(0);
        let adjacent = part[last_end..whole.start()].trim().is_empty();
        if !(adjacent && n == run.len() + 1) {
            close(&mut run);
        }
        if is_word(word.as_str()) && n == run.len() + 1 {
            run.push(block.start + word.start()..block.start + word.end());
        } else {
            close(&mut run);
        }
        last_end = whole.end();
    }
    close(&mut run);
    out
}

/// The phrases that end the lines of `block`: the last 12 to 24 space-separated words of a
/// line, all list words.
fn line_ends(text: &str, block: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = block.start;
    for line in text[block].split_inclusive('\n') {
        let mut toks = tokens(text, at..at + line.len(), &[' ', '\t', '\r', '\n']).rev();
        at += line.len();
        // The words at the end of the line, the last one first: only the last may carry
        // closing punctuation, and one with an opening quote or bracket starts the run.
        let mut words: Vec<Range<usize>> = Vec::new();
        let mut last = true;
        for token in toks.by_ref() {
            let unopened = token.text.trim_start_matches(OPEN);
            let opened = unopened.len() != token.text.len();
            let word = if std::mem::take(&mut last) {
                unopened.trim_end_matches(CLOSE)
            } else {
                unopened
            };
            if !is_word(word) {
                break;
            }
            let start = token.start + token.text.len() - unopened.len();
            words.push(start..start + word.len());
            if opened {
                break;
            }
        }
        if let Some(n) = phrase_len(words.len()) {
            out.push(words[n - 1].start..words[0].end);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_list_is_the_sorted_2048_words_of_bip_39() {
        assert_eq!(BIP39.len(), 2048);
        assert!(BIP39.windows(2).all(|w| w[0] < w[1]));
        assert_eq!((BIP39[0], BIP39[2047]), ("abandon", "zoo"));
    }

    const PHRASE: &str =
        "legal winner thank year wave sausage worth useful legal winner thank yellow";

    fn phrases(text: &str) -> Vec<&str> {
        seed_phrases(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn a_phrase_ending_a_line_is_found_without_what_comes_before_it() {
        assert_eq!(phrases(&format!("seed: {PHRASE}.")), vec![PHRASE]);
        assert_eq!(
            phrases(&format!("mnemonic: \"{PHRASE}\"\nnext line")),
            vec![PHRASE]
        );
        // Thirteen list words: the last twelve are the phrase.
        assert_eq!(phrases(&format!("phrase {PHRASE}")), vec![PHRASE]);
    }

    #[test]
    fn list_words_inside_a_sentence_or_a_code_list_are_not_a_phrase() {
        assert!(phrases(&format!("{PHRASE} and then some more words")).is_empty());
        assert!(phrases("let w = [\"legal\", \"winner\", \"thank\", \"year\", \"wave\", \"sausage\", \"worth\", \"useful\", \"legal\", \"winner\", \"thank\", \"yellow\"];").is_empty());
        // Eleven words are too few.
        assert!(
            phrases("winner thank year wave sausage worth useful legal winner thank yellow")
                .is_empty()
        );
    }

    #[test]
    fn numbered_lists_count_from_one_without_a_gap() {
        let listed: String = PHRASE
            .split(' ')
            .enumerate()
            .map(|(i, w)| format!("{}) {w}\n", i + 1))
            .collect();
        assert_eq!(phrases(&listed).len(), 1);
        let gap = format!("Items to buy:\n{}", listed.replace("7) ", "8) "));
        assert!(phrases(&gap).is_empty(), "{gap}");
    }
}
