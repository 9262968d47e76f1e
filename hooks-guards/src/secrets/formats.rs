//! The formats the guard knows by name: vendor keys whose kind and kept prefix it says
//! (`sk-ant-…[masked anthropic key]`), keys known by their context (`aws_secret_access_key =
//! …`, an `Authorization:` header, a hex private key after its name, a URL's password, a
//! quoted value assigned to a password's name) and PEM private keys.
//!
//! # The rules it keeps
//!
//! - A detector is a regex, the group that holds the secret, a check of the secret, and how
//!   many of its first bytes a mask keeps. A key must start at a word boundary and may not be
//!   followed by a letter or a digit (`my_ghp_helper` and a longer word are not keys).
//! - The detectors are listed the more specific first: at the same place, the first one found
//!   wins (the guard then merges what overlaps, see [`super::Secrets::scan`]).
//! - A detector's regex is compiled the first time a text holds one of the words the detector
//!   names, words every match of it holds (checked by a test against the prefixes read from
//!   its pattern); all detectors' words are looked for in one search ([`candidates`]). A
//!   detector that names none runs on every text. What the guard finds is the same as with
//!   every regex compiled up front.
//! - Where a vendor's key is random, the check is that it looks random (a digit and a letter,
//!   or enough entropy): a word or an identifier with the vendor's prefix is not a key.

use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::Regex;

use super::catalogue::shannon_entropy;
use super::private_key;

/// The kind of a quoted value assigned to a password's or a key's name.
pub(super) const PASSWORD: &str = "password";

/// A detector's `group` that says: the first group that took part in the match (a regex with
/// one alternative per kind of quote).
pub(super) const FIRST_GROUP: usize = usize::MAX;

/// Words a value assigned to a password's name holds when it stands for one or names one.
const NOT_A_PASSWORD: &[&str] = &[
    "test",
    "fake",
    "example",
    "dummy",
    "sample",
    "changeme",
    "password",
    "passwd",
    "secret",
    "xxx",
    "***",
    "your",
    "placeholder",
    "redacted",
    "todo",
    "none",
    "null",
    "undefined",
    "true",
    "false",
    "default",
    "mock",
    "foo",
    "bar",
];

/// A value assigned to a password's or a key's name that is a password: it has a letter or a
/// digit, is no placeholder, test value or template, and no name — an identifier (`real_key`,
/// `OPENAI_API_KEY`, `apiKeyHeader`, `x-api-key`), a path, a URL or a format string.
fn is_password(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if !s.bytes().any(|b| b.is_ascii_alphanumeric())
        || NOT_A_PASSWORD.iter().any(|w| lower.contains(w))
        || s.contains("://")
        || s.contains("...")
        || s.contains('…')
        || s.starts_with(['/', '.', '~', '%', '{', '$', '<', '#'])
        || s.contains(['(', ')']) && s.ends_with(')')
    {
        return false;
    }
    // An identifier: one word of one case, words of one case (digits allowed) joined by `_`,
    // `-` or `.`, or camelCase.
    let one_case = |w: &str, digits: bool| {
        let ok = |b: u8, lower: bool| {
            (digits && b.is_ascii_digit())
                || if lower {
                    b.is_ascii_lowercase()
                } else {
                    b.is_ascii_uppercase()
                }
        };
        !w.is_empty() && (w.bytes().all(|b| ok(b, true)) || w.bytes().all(|b| ok(b, false)))
    };
    let words: Vec<&str> = s.split(['_', '-', '.']).collect();
    let words_of_one_case = if words.len() == 1 {
        one_case(s, false)
    } else {
        words.iter().all(|w| one_case(w, true))
    };
    let camel = s.bytes().all(|b| b.is_ascii_alphabetic())
        && s.split(|c: char| c.is_ascii_uppercase())
            .skip(1)
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()));
    !(words_of_one_case || camel)
}

/// One kind of secret: where it is (capture group `group` of `regex`), a check of the match,
/// and how many of its first bytes a mask keeps.
pub(super) struct Detector {
    pub(super) kind: &'static str,
    regex: LazyDetectorRegex,
    pub(super) group: usize,
    pub(super) check: fn(&str) -> bool,
    pub(super) keep: fn(&str) -> usize,
}

impl Detector {
    /// The detector's regex, compiled on first use.
    pub(super) fn regex(&self) -> &Regex {
        self.regex.compiled()
    }
}

/// The detectors that could find something in `text` (by their order in [`DETECTORS`]):
/// those that name no word, and those whose words `text` holds (see [`LazyDetectorRegex`]).
pub(super) fn candidates(text: &str) -> Vec<bool> {
    static WORDS: LazyLock<WordSearch> =
        LazyLock::new(|| WordSearch::new(DETECTORS.iter().map(|d| d.regex.needles.as_ref())));
    WORDS.candidates(text)
}

/// One search for the words of every detector: one automaton for the words compared as
/// written, one for those compared in any ASCII case.
struct WordSearch {
    detectors: usize,
    /// Detectors that name no word: every text is theirs.
    unconditional: Vec<usize>,
    exact: Option<(AhoCorasick, Vec<usize>)>,
    any_case: Option<(AhoCorasick, Vec<usize>)>,
    /// The detectors of `any_case`: every text beyond ASCII is theirs.
    any_case_detectors: Vec<usize>,
}

impl WordSearch {
    fn new<'a>(needles: impl Iterator<Item = Option<&'a Needles>>) -> WordSearch {
        let mut unconditional = Vec::new();
        let (mut exact, mut any_case) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
        let mut any_case_detectors = Vec::new();
        let mut detectors = 0;
        for (index, needles) in needles.enumerate() {
            detectors += 1;
            let Some(needles) = needles else {
                unconditional.push(index);
                continue;
            };
            let (words, owners) = if needles.any_case {
                any_case_detectors.push(index);
                &mut any_case
            } else {
                &mut exact
            };
            for word in &needles.words {
                words.push(word.clone());
                owners.push(index);
            }
        }
        // An automaton that cannot be built leaves its detectors to run on every text.
        let build = |(words, owners): (Vec<String>, Vec<usize>),
                     any_case: bool,
                     unconditional: &mut Vec<usize>| {
            if words.is_empty() {
                return None;
            }
            // The automaton quickest to build: a process may scan one short text.
            match AhoCorasick::builder()
                .ascii_case_insensitive(any_case)
                .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                .build(&words)
            {
                Ok(automaton) => Some((automaton, owners)),
                Err(_) => {
                    unconditional.extend(owners);
                    None
                }
            }
        };
        let exact = build(exact, false, &mut unconditional);
        let any_case = build(any_case, true, &mut unconditional);
        WordSearch {
            detectors,
            unconditional,
            exact,
            any_case,
            any_case_detectors,
        }
    }

    fn candidates(&self, text: &str) -> Vec<bool> {
        let mut run = vec![false; self.detectors];
        for index in &self.unconditional {
            run[*index] = true;
        }
        if !text.is_ascii() {
            for index in &self.any_case_detectors {
                run[*index] = true;
            }
        }
        for (automaton, owners) in [&self.exact, &self.any_case].into_iter().flatten() {
            for m in automaton.find_overlapping_iter(text) {
                run[owners[m.pattern().as_usize()]] = true;
            }
        }
        run
    }
}

/// A detector's regex, compiled the first time a text could hold a match. Compiling every
/// detector costs milliseconds, most of a `hookchain` process's start, and a `git status`
/// call holds none of their words.
///
/// A detector names words one of which every match of it holds (`needs`, as written;
/// `needs_any_case`, in any ASCII case — and then a text with a byte beyond ASCII is always
/// searched, since a case-insensitive pattern's `k` also matches the Kelvin sign and its `s`
/// the long s). A detector that names none is run on every text. So a text the regex is not
/// run on is one it would find nothing in: what the guard finds is the same as with every
/// regex compiled up front. The words of all detectors are looked for in one search
/// ([`candidates`]), as the catalogue looks for its keywords. The words are checked by a test
/// against the literals every match starts with, read from the pattern's syntax tree
/// (`regex-syntax`'s prefix extraction): each such literal must hold one of them.
struct LazyDetectorRegex {
    pattern: String,
    needles: Option<Needles>,
    compiled: OnceLock<Regex>,
}

/// Words one of which a text must hold for a regex to find anything in it.
#[derive(Debug, PartialEq)]
struct Needles {
    words: Vec<String>,
    /// Compared in any ASCII case (and texts beyond ASCII always searched).
    any_case: bool,
}

impl LazyDetectorRegex {
    /// Searches every text.
    fn new(pattern: String) -> Self {
        LazyDetectorRegex {
            pattern,
            needles: None,
            compiled: OnceLock::new(),
        }
    }

    /// Searches the texts holding one of `words` (in any ASCII case with `any_case`).
    fn needing(pattern: String, words: &[&str], any_case: bool) -> Self {
        LazyDetectorRegex {
            pattern,
            needles: Some(Needles {
                words: words.iter().map(|w| (*w).to_owned()).collect(),
                any_case,
            }),
            compiled: OnceLock::new(),
        }
    }

    fn compiled(&self) -> &Regex {
        self.compiled
            .get_or_init(|| Regex::new(&self.pattern).expect("a valid built-in regular expression"))
    }
}

fn any(_: &str) -> bool {
    true
}

fn none(_: &str) -> usize {
    0
}

/// Has a digit and a letter: random keys do, words and identifiers mostly do not.
fn mixed(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit()) && s.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Looks random: more than 3 bits of entropy per character (gitleaks' floor for AWS key ids).
/// For keys of letters alone (Hugging Face) or of a narrow alphabet (AWS key ids, whose 16
/// characters are base32 and hold no digit one time in thirty), where [`mixed`] would refuse
/// real ones.
fn random(s: &str) -> bool {
    shannon_entropy(s.as_bytes()) > 3.0
}

/// A JSON Web Token: its header (and, unsigned, its claims too) base64url of a JSON object (a
/// token-shaped string whose parts decode to something else is not one).
pub(super) fn is_jwt(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    let json = |part: &str| {
        base64url_decode(part)
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .is_some_and(|v| v.is_object())
    };
    match parts.as_slice() {
        [header, claims] => json(header) && json(claims),
        [header, ..] => json(header),
        [] => false,
    }
}

/// A password in a URL's user info that is not a stand-in for one (`password`, `pass`,
/// `****`, `<password>`, `$PASSWORD`, `${DB_PASSWORD}`).
fn url_password(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let stand_in = [
        "password", "passwd", "pass", "pwd", "secret", "changeme", "pw",
    ]
    .contains(&lower.as_str())
        || s.starts_with(['$', '<', '{', '%'])
        || s.bytes().all(|b| b == b'*' || b == b'x' || b == b'X');
    !stand_in
}

/// `text` decoded as base64url (or base64), padding optional; `None` on a character of
/// neither or a length no encoding has.
fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for b in text.bytes() {
        let value = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Up to and including the first `-` or `_` after the start (`glpat-`, `sk-proj-`: the last
/// of the first `n` separators).
fn through_separator(s: &str, n: usize) -> usize {
    s.match_indices(['-', '_'])
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1)
}

/// `pattern` with each `\b` an ASCII word boundary: a Unicode one stops the regex engine's
/// fast automaton on any text that is not all ASCII, and the keys it bounds are ASCII.
fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

macro_rules! detector {
    ($kind:expr, $re:expr, $group:expr, $check:expr, $keep:expr) => {
        Detector {
            kind: $kind,
            regex: LazyDetectorRegex::new(ascii_boundaries($re)),
            group: $group,
            check: $check,
            keep: $keep,
        }
    };
    // `needs`: words one of which every match holds (see `LazyDetectorRegex`).
    (needs: $needs:expr, $kind:expr, $re:expr, $group:expr, $check:expr, $keep:expr) => {
        Detector {
            kind: $kind,
            regex: LazyDetectorRegex::needing(ascii_boundaries($re), $needs, false),
            group: $group,
            check: $check,
            keep: $keep,
        }
    };
    (needs_any_case: $needs:expr, $kind:expr, $re:expr, $group:expr, $check:expr, $keep:expr) => {
        Detector {
            kind: $kind,
            regex: LazyDetectorRegex::needing(ascii_boundaries($re), $needs, true),
            group: $group,
            check: $check,
            keep: $keep,
        }
    };
}

/// The detectors, the more specific first (at the same place, the first one found wins).
/// GitLab and Slack tokens are mostly the catalogue's: its rules know each prefix's length.
pub(super) static DETECTORS: LazyLock<Vec<Detector>> = LazyLock::new(|| {
    vec![
        detector!(
            needs: &["-----BEGIN"],
            private_key::KIND,
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
            0,
            private_key::has_key_body,
            |s| s
                .find("-----")
                .and_then(|i| s[i + 5..].find("-----").map(|j| i + j + 10))
                .unwrap_or(0)
        ),
        detector!(
            needs: &["sk-ant-"],
            "anthropic key",
            r"\bsk-ant-[A-Za-z0-9_-]{20,}",
            0,
            mixed,
            |_| 7
        ),
        detector!(
            needs: &["sk-proj-", "sk-svcacct-", "sk-admin-"],
            "openai key",
            r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
            0,
            mixed,
            |s| through_separator(s, 2)
        ),
        detector!(
            needs: &["sk-"],
            "openai key",
            r"\bsk-[A-Za-z0-9]{32,}",
            0,
            mixed,
            |_| 3
        ),
        detector!(
            needs: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
            "github token",
            r"\bgh[pousr]_[A-Za-z0-9]{36}",
            0,
            mixed,
            |_| 4
        ),
        detector!(
            needs: &["github_pat_"],
            "github token",
            r"\bgithub_pat_[A-Za-z0-9_]{22,}",
            0,
            mixed,
            |_| 11
        ),
        // The catalogue knows each Slack prefix's usual length; this takes the legacy tokens
        // its rules leave out, with shorter number groups (six digits or more, after a
        // one-digit version or not).
        detector!(
            needs: &["xox"],
            "slack token",
            r"\bxox[abposr]-(?:[0-9]-)?(?:[0-9]{6,}-){1,3}[A-Za-z0-9]{12,}",
            0,
            |s| s.rsplit('-').next().is_some_and(mixed),
            |s| through_separator(s, 1)
        ),
        // GitLab's tokens as its documentation gives their lengths (detect-secrets' reading):
        // a token goes on to a character that is not a word's.
        detector!(
            needs: &[
                    "glpat-",
                    "gldt-",
                    "glft-",
                    "glsoat-",
                    "glrt-",
                    "GR1348941",
                    "glcbt-",
                    "glimt-",
                    "glptt-",
                    "glagent-",
                    "gloas-"
                ],
            "gitlab token",
            concat!(
                r"\b((?:gl(?:pat|dt|ft|soat|rt)-|GR1348941)[A-Za-z0-9_-]{20,50}",
                r"|glcbt-(?:[0-9a-fA-F]{2}_)?[A-Za-z0-9_-]{20,50}|glimt-[A-Za-z0-9_-]{25}",
                r"|glptt-[A-Za-z0-9_-]{40}|glagent-[A-Za-z0-9_-]{50,1024}|gloas-[A-Za-z0-9_-]{64})",
                r"(?:[^A-Za-z0-9_]|$)",
            ),
            1,
            random,
            |s| if s.starts_with("GR1348941") {
                9
            } else {
                through_separator(s, 1)
            }
        ),
        detector!(
            needs: &["hooks.slack.com"],
            "slack webhook",
            r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}",
            0,
            any,
            |_| 33
        ),
        detector!(
            needs: &["k_live_"],
            "stripe key",
            r"\b[sr]k_live_[A-Za-z0-9]{20,}",
            0,
            mixed,
            |_| 8
        ),
        detector!(
            needs: &["AIza"],
            "google api key",
            r"\bAIza[0-9A-Za-z_-]{35}",
            0,
            any,
            |_| 4
        ),
        detector!(
            needs: &["npm_"],
            "npm token",
            r"\bnpm_[A-Za-z0-9]{36}",
            0,
            mixed,
            |_| 4
        ),
        detector!(
            needs: &["pypi-AgE"],
            "pypi token",
            r"\bpypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}",
            0,
            any,
            |_| 5
        ),
        detector!(
            needs: &["SK"],
            "twilio key",
            r"\bSK[0-9a-f]{32}\b",
            0,
            mixed,
            |_| 2
        ),
        detector!(
            needs: &["SG."],
            "sendgrid key",
            r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
            0,
            any,
            |_| 3
        ),
        detector!(
            needs: &["hf_"],
            "hugging face token",
            r"\bhf_[A-Za-z0-9]{34}",
            0,
            random,
            |_| 3
        ),
        detector!(
            needs: &["gsk_"],
            "groq key",
            r"\bgsk_[A-Za-z0-9]{48,}",
            0,
            mixed,
            |_| 4
        ),
        detector!(
            needs: &["xai-"],
            "xai key",
            r"\bxai-[A-Za-z0-9]{70,}",
            0,
            mixed,
            |_| 4
        ),
        detector!(
            needs: &["_v1_"],
            "digitalocean token",
            r"\bdo[por]_v1_[a-f0-9]{64}",
            0,
            mixed,
            |_| 7
        ),
        detector!(
            needs: &["shp"],
            "shopify token",
            r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
            0,
            mixed,
            |_| 6
        ),
        detector!(
            "discord bot token",
            r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}",
            0,
            mixed,
            none
        ),
        detector!(
            needs: &["-us"],
            "mailchimp key",
            r"\b[0-9a-f]{32}-us[0-9]{1,2}\b",
            0,
            mixed,
            none
        ),
        // A legacy npm token is a UUID; a registry's `//host/:_authToken=` in `.npmrc` says it
        // is one.
        detector!(
            needs: &[":_authToken"],
            "npm token",
            r#"//[^\s/:]+(?:/[^\s:]*)?/:_authToken\s*=\s*["']?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\b"#,
            1,
            any,
            none
        ),
        detector!(
            needs: &[":AA"],
            "telegram bot token",
            r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}",
            0,
            any,
            |s| s.find(':').map_or(0, |i| i + 1)
        ),
        detector!(
            needs: &["A3T", "AKIA", "ASIA", "ABIA", "ACCA"],
            "aws access key id",
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
            0,
            random,
            |_| 4
        ),
        // After its name, with `=`, `:` or a space (`aws configure set aws_secret_access_key
        // …`, `--aws-secret-access-key …`).
        // Each of the three names holds `secret`.
        detector!(
            needs_any_case: &["secret"],
            "aws secret access key",
            r#"(?i)(?:aws[_-]?secret[_-]?access[_-]?key|aws[_-]?secret[_-]?key|secret[_-]?access[_-]?key)["']?(?:\s*[:=]\s*|\s+)["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            1,
            mixed,
            none
        ),
        // Next to its key id: a credentials CSV (`id,secret`), `id secret`, `"id": "secret"`.
        detector!(
            needs: &["A3T", "AKIA", "ASIA", "ABIA", "ACCA"],
            "aws secret access key",
            r#"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}["']?[ \t]*[,;:=|\t ][ \t]*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            1,
            |s| mixed(s) && s.bytes().any(|b| b.is_ascii_lowercase()),
            none
        ),
        detector!(
            needs: &["AccountKey="],
            "azure storage key",
            r"AccountKey=([A-Za-z0-9+/]{86}==)",
            1,
            mixed,
            none
        ),
        // Signed or not (`alg: none` carries its claims all the same).
        detector!(
            needs: &["eyJ"],
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]{10,})?",
            0,
            is_jwt,
            |_| 3
        ),
        detector!(
            needs_any_case: &["author"],
            "bearer token",
            r#"(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|token|basic)\s+([A-Za-z0-9._~+/-]{16,}=*)"#,
            1,
            mixed,
            none
        ),
        // `scheme://user:password@host`: a connection string with its password.
        detector!(
            needs: &["://"],
            "url password",
            r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/:@'"<>]{1,64}:([^\s/@'"<>]{3,128})@[A-Za-z0-9.-]+"#,
            1,
            url_password,
            none
        ),
        detector!(
            needs_any_case: &["priv", "secr", "sign", "wallet"],
            "hex private key",
            r#"(?i)(?:private[_ -]?key|priv[_-]?key|secret[_ -]?key|signing[_ -]?key|wallet[_ -]?key)["']?\s*[:=]\s*["']?((?:0x)?[0-9a-f]{64})\b"#,
            1,
            mixed,
            |s| if s.starts_with("0x") || s.starts_with("0X") {
                2
            } else {
                0
            }
        ),
        // A quoted value assigned to (or compared with) a name that says it is a password or
        // a key: `password = "…"`, `"db_pass": "…"`, `if (api_key == "…")`, `"…" == passwd`.
        // Each name it knows holds `pass` (`passwd`, `password`, `passphrase`, `db_pass`),
        // `pwd`, `secret` or `key` (`api_key`, `apikey`, `private_key`).
        detector!(
            needs_any_case: &["pass", "pwd", "secret", "key"],
            PASSWORD,
            concat!(
                r#"(?i)\b[A-Za-z0-9_.-]*(?:passw(?:or)?d|passphrase|pwd|secrete?|api_?key|private_?key|db_?pass)[A-Za-z0-9_]*"#,
                r#"["']?(?:\[[0-9]*\])?\s*(?:=|:|:=|::=|=>|\?=|[!=]==?)\s*@?"#,
                r#"(?:"([^"\s]{6,128})"|'([^'\s]{6,128})'|`([^`\s]{6,128})`)"#,
            ),
            FIRST_GROUP,
            is_password,
            none
        ),
        // Each name it knows holds `pass` (`passwd`, `password`, `passphrase`, `db_pass`),
        // `pwd`, `secret` or `key` (`api_key`, `apikey`, `private_key`).
        detector!(
            needs_any_case: &["pass", "pwd", "secret", "key"],
            PASSWORD,
            concat!(
                r#"(?:"([^"\s]{6,128})"|'([^'\s]{6,128})')\s*[!=]==?\s*"#,
                r#"(?i)[A-Za-z0-9_.]*(?:passw(?:or)?d|pwd|secrete?|api_?key|private_?key|db_?pass)[A-Za-z0-9_]*\b"#,
            ),
            FIRST_GROUP,
            is_password,
            none
        ),
    ]
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortest prefix literal a test holds words against: one or two bytes cannot hold
    /// a word worth a search.
    const MIN_NEEDLE: usize = 3;

    /// The literals every match of `pattern` starts with, when there is a finite set of them,
    /// all of valid UTF-8 and at least [`MIN_NEEDLE`] bytes long.
    fn needles_of(pattern: &str) -> Option<Vec<String>> {
        use regex_syntax::hir::literal::{ExtractKind, Extractor};
        let hir = regex_syntax::parse(pattern).ok()?;
        let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
        let literals = seq.literals()?;
        if literals.is_empty() {
            return None;
        }
        literals
            .iter()
            .map(|l| {
                std::str::from_utf8(l.as_bytes())
                    .ok()
                    .filter(|s| s.len() >= MIN_NEEDLE)
                    .map(str::to_owned)
            })
            .collect()
    }

    #[test]
    fn every_detectors_pattern_compiles() {
        for detector in DETECTORS.iter() {
            let pattern = &detector.regex.pattern;
            assert!(
                Regex::new(pattern).is_ok(),
                "{}: {pattern} does not compile",
                detector.kind
            );
        }
    }

    #[test]
    fn a_text_without_the_word_is_not_searched_and_one_with_it_is() {
        let lazy = LazyDetectorRegex::needing(
            ascii_boundaries(r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
            &["sk-ant-"],
            false,
        );
        assert!(!searched_alone(&lazy, "git status"));
        assert!(!searched_alone(&lazy, "SK-ANT-"), "compared as written");
        let key = "export KEY=sk-ant-api03-Zq7xW2vB9kL4mN8pR1sT6uY3";
        assert!(searched_alone(&lazy, key), "the text holds the word");
        let regex = lazy.compiled();
        assert_eq!(
            regex.find(key).map(|m| m.as_str()),
            Some("sk-ant-api03-Zq7xW2vB9kL4mN8pR1sT6uY3")
        );
    }

    /// Every literal a match can start with holds one of the detector's words (as written, or
    /// in any ASCII case for `needs_any_case`; a literal beyond ASCII needs none, since a text
    /// holding it is always searched). The detectors whose prefixes cannot be listed are
    /// named, each with why its words hold.
    #[test]
    fn each_detectors_words_are_in_every_prefix_its_matches_start_with() {
        let unlisted = [
            // `[MNO]`: no word, every text searched.
            "discord bot token",
            // `[0-9a-f]{32}-us`, `\d{8,10}:AA`, `SK` + hex: the literal after the class.
            "mailchimp key",
            "telegram bot token",
            "twilio key",
            // `//host/:_authToken=`, `scheme://user:password@`: the fixed part after the host
            // or scheme.
            "npm token",
            "url password",
            // Each name alternative holds the word (see the comments on the detectors).
            "aws secret access key",
            PASSWORD,
        ];
        for detector in DETECTORS.iter() {
            let lazy = &detector.regex;
            let Some(prefixes) = needles_of(&lazy.pattern) else {
                assert!(
                    unlisted.contains(&detector.kind),
                    "{}: its prefixes cannot be listed; say why its words hold",
                    detector.kind
                );
                continue;
            };
            let needles = lazy.needles.as_ref().expect("words for a listed prefix");
            for prefix in &prefixes {
                let held = !prefix.is_ascii()
                    || needles.words.iter().any(|w| {
                        if needles.any_case {
                            prefix
                                .to_ascii_lowercase()
                                .contains(&w.to_ascii_lowercase())
                        } else {
                            prefix.contains(w.as_str())
                        }
                    });
                assert!(
                    held,
                    "{}: the prefix `{prefix}` holds none of {:?}",
                    detector.kind, needles.words
                );
            }
        }
    }

    #[test]
    fn each_alternative_prefix_is_a_needle() {
        let needles = needles_of(r"\bgh[pousr]_[A-Za-z0-9]{36}").expect("five prefixes");
        let mut needles = needles;
        needles.sort();
        assert_eq!(needles, ["gho_", "ghp_", "ghr_", "ghs_", "ghu_"]);
    }

    #[test]
    fn a_pattern_without_a_long_enough_prefix_lists_none_and_a_detector_without_words_searches_all()
    {
        // One byte of three: too short to hold a word.
        assert_eq!(
            needles_of(r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}"),
            None
        );
        // Any word may come first.
        assert_eq!(needles_of(r"(?i)\b[A-Za-z0-9_.-]*passw(?:or)?d"), None);
        let lazy = LazyDetectorRegex::new(r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}".to_owned());
        assert!(searched_alone(&lazy, "git status"));
    }

    /// Is `text` searched by `lazy`'s regex, as the only detector?
    fn searched_alone(lazy: &LazyDetectorRegex, text: &str) -> bool {
        WordSearch::new(std::iter::once(lazy.needles.as_ref())).candidates(text)[0]
    }

    /// `detector`'s regex when the guard would run it on `text`.
    fn regex_for<'a>(detector: &'a Detector, text: &str) -> Option<&'a Regex> {
        let index = DETECTORS
            .iter()
            .position(|d| std::ptr::eq(d, detector))
            .expect("one of the detectors");
        candidates(text)[index].then(|| detector.regex())
    }

    fn password_detector() -> &'static Detector {
        DETECTORS
            .iter()
            .find(|d| d.kind == PASSWORD)
            .expect("a password detector")
    }

    #[test]
    fn named_words_are_found_in_any_case_and_a_text_without_them_is_not_searched() {
        let detector = password_detector();
        assert!(regex_for(detector, r#"{"command":"ls -la"}"#).is_none());
        for text in [
            r#"DB_PASSWORD="Xk29fjQ1""#,
            r#"ApiKey: "Xk29fjQ1""#,
            r#"mysql --Pwd="Xk29fjQ1""#,
        ] {
            let regex = regex_for(detector, text).expect("the text names a password");
            assert!(regex.is_match(text), "{text}");
        }
    }

    #[test]
    fn a_text_beyond_ascii_is_searched_since_case_folding_reaches_past_it() {
        // U+212A KELVIN SIGN folds to `k`: the case-insensitive pattern reads `api_Key`.
        let text = "api_\u{212A}ey = \"Xk29fjQ1\"";
        let regex = regex_for(password_detector(), text)
            .expect("searched, though no ASCII spelling of the words is in it");
        assert!(regex.is_match(text));
    }

    #[test]
    fn a_git_status_call_searches_only_with_the_detectors_without_a_prefix() {
        let text = r#"{"command":"git status","description":"Show the working tree"}"#;
        let candidates = candidates(text);
        let mut searched: Vec<&str> = DETECTORS
            .iter()
            .zip(candidates)
            .filter(|(_, run)| *run)
            .map(|(d, _)| d.kind)
            .collect();
        searched.sort_unstable();
        searched.dedup();
        // Its first character is one of three: too short a prefix, and no word to name.
        assert_eq!(searched, ["discord bot token"]);
    }
}
