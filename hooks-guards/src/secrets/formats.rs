//! The formats the guard knows by name: vendor keys whose kind and kept prefix it says
//! (`sk-ant-…[masked anthropic key]`), keys known by their context (`aws_secret_access_key =
//! …`, an `Authorization:` header, a hex private key after its name) and PEM private keys.
//!
//! # The rules it keeps
//!
//! - A detector is a regex, the group that holds the secret, a check of the secret, and how
//!   many of its first bytes a mask keeps. A key must start at a word boundary and may not be
//!   followed by a letter or a digit (`my_ghp_helper` and a longer word are not keys).
//! - The detectors are listed the more specific first: at the same place, the first one found
//!   wins (the guard then merges what overlaps, see [`super::Secrets::scan`]).
//! - Where a vendor's key is random, the check is that it looks random (a digit and a letter,
//!   or enough entropy): a word or an identifier with the vendor's prefix is not a key.

use std::sync::LazyLock;

use regex::Regex;

use super::catalogue::shannon_entropy;
use super::private_key;

/// One kind of secret: where it is (capture group `group` of `regex`), a check of the match,
/// and how many of its first bytes a mask keeps.
pub(super) struct Detector {
    pub(super) kind: &'static str,
    pub(super) regex: Regex,
    pub(super) group: usize,
    pub(super) check: fn(&str) -> bool,
    pub(super) keep: fn(&str) -> usize,
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

/// A JSON Web Token: its header, base64url of a JSON object (a token-shaped string whose
/// header decodes to something else is not one).
pub(super) fn is_jwt(s: &str) -> bool {
    let header = s.split('.').next().unwrap_or_default();
    base64url_decode(header)
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|v| v.is_object())
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

macro_rules! detector {
    ($kind:expr, $re:expr, $group:expr, $check:expr, $keep:expr) => {
        Detector {
            kind: $kind,
            regex: Regex::new($re).expect("a valid built-in regular expression"),
            group: $group,
            check: $check,
            keep: $keep,
        }
    };
}

/// The detectors, the more specific first (at the same place, the first one found wins).
/// GitLab and Slack tokens are the catalogue's: its rules know each prefix's exact length.
pub(super) static DETECTORS: LazyLock<Vec<Detector>> = LazyLock::new(|| {
    vec![
        detector!(
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
            "anthropic key",
            r"\bsk-ant-[A-Za-z0-9_-]{20,}",
            0,
            mixed,
            |_| 7
        ),
        detector!(
            "openai key",
            r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
            0,
            mixed,
            |s| through_separator(s, 2)
        ),
        detector!("openai key", r"\bsk-[A-Za-z0-9]{32,}", 0, mixed, |_| 3),
        detector!(
            "github token",
            r"\bgh[pousr]_[A-Za-z0-9]{36}",
            0,
            mixed,
            |_| 4
        ),
        detector!(
            "github token",
            r"\bgithub_pat_[A-Za-z0-9_]{22,}",
            0,
            mixed,
            |_| 11
        ),
        detector!(
            "slack webhook",
            r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}",
            0,
            any,
            |_| 33
        ),
        detector!(
            "stripe key",
            r"\b[sr]k_live_[A-Za-z0-9]{20,}",
            0,
            mixed,
            |_| 8
        ),
        detector!("google api key", r"\bAIza[0-9A-Za-z_-]{35}", 0, any, |_| 4),
        detector!("npm token", r"\bnpm_[A-Za-z0-9]{36}", 0, mixed, |_| 4),
        detector!(
            "pypi token",
            r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
            0,
            any,
            |_| 5
        ),
        detector!("twilio key", r"\bSK[0-9a-f]{32}\b", 0, mixed, |_| 2),
        detector!(
            "sendgrid key",
            r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
            0,
            any,
            |_| 3
        ),
        detector!(
            "hugging face token",
            r"\bhf_[A-Za-z0-9]{34}",
            0,
            random,
            |_| 3
        ),
        detector!("groq key", r"\bgsk_[A-Za-z0-9]{48,}", 0, mixed, |_| 4),
        detector!("xai key", r"\bxai-[A-Za-z0-9]{70,}", 0, mixed, |_| 4),
        detector!(
            "digitalocean token",
            r"\bdo[por]_v1_[a-f0-9]{64}",
            0,
            mixed,
            |_| 7
        ),
        detector!(
            "shopify token",
            r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
            0,
            mixed,
            |_| 6
        ),
        detector!(
            "telegram bot token",
            r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}",
            0,
            any,
            |s| s.find(':').map_or(0, |i| i + 1)
        ),
        detector!(
            "aws access key id",
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
            0,
            random,
            |_| 4
        ),
        // After its name, with `=`, `:` or a space (`aws configure set aws_secret_access_key
        // …`, `--aws-secret-access-key …`).
        detector!(
            "aws secret access key",
            r#"(?i)(?:aws[_-]?secret[_-]?access[_-]?key|aws[_-]?secret[_-]?key|secret[_-]?access[_-]?key)["']?(?:\s*[:=]\s*|\s+)["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            1,
            mixed,
            none
        ),
        // Next to its key id: a credentials CSV (`id,secret`), `id secret`, `"id": "secret"`.
        detector!(
            "aws secret access key",
            r#"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}["']?[ \t]*[,;:=|\t ][ \t]*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            1,
            |s| mixed(s) && s.bytes().any(|b| b.is_ascii_lowercase()),
            none
        ),
        detector!(
            "azure storage key",
            r"AccountKey=([A-Za-z0-9+/]{86}==)",
            1,
            mixed,
            none
        ),
        detector!(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
            0,
            is_jwt,
            |_| 3
        ),
        detector!(
            "bearer token",
            r#"(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|token|basic)\s+([A-Za-z0-9._~+/-]{16,}=*)"#,
            1,
            mixed,
            none
        ),
        detector!(
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
    ]
});
