//! What looks like a key but stands for one: documentation placeholders, templates and the
//! example values vendors publish.
//!
//! # The rules it keeps
//!
//! - A placeholder says so: `example`, `your`, `xxxxxx`, `redacted`, `dummy`, `changeme`, ...,
//!   six or more characters counting up (`123456`, `abcdef`, `klmnop`: a random key has such
//!   a run about once in a million), or runs of eight or more of one character with little
//!   else (`ghp_********`, `sk-ant-aaaaaaaa…`; a Twitter bearer token's 22 leading `A` are
//!   followed by its random part).
//! - A template stands for its value: `$VAR`, `${VAR}`, `${{ secrets.X }}`, `{{ x }}`,
//!   `<token>`, `%VAR%`.
//! - A few values are published by their vendors as examples and used in their documentation
//!   and test suites everywhere; they are listed exactly.
//! - These rules are for keys whose body is short or text-like. A PEM body is judged by its
//!   own rule ([`super::private_key`]): base64 of binary data holds runs and words by chance.

/// Values vendors publish in their documentation, which match their formats.
const PUBLISHED_EXAMPLES: &[&str] = &[
    // Stripe's documentation test key.
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    // jwt.io's example token.
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
];

/// Words that mark a placeholder, lower case.
const WORDS: &[&str] = &[
    "example",
    "xxxxxx",
    "your",
    "placeholder",
    "redacted",
    "dummy",
    "sample",
    "changeme",
];

/// Is `secret` a placeholder, a template or a published example rather than a key?
pub(super) fn is_placeholder(secret: &str) -> bool {
    if PUBLISHED_EXAMPLES.contains(&secret) || is_template(secret) {
        return true;
    }
    let lower = secret.to_ascii_lowercase();
    if WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    // Filler, or six or more counting up (`klmnop`, `456789`).
    let bytes = lower.as_bytes();
    filled(bytes)
        || bytes.windows(6).any(|w| {
            w.iter().all(u8::is_ascii_alphanumeric) && w.windows(2).all(|p| p[1] == p[0] + 1)
        })
}

/// Is `bytes` mostly filler: runs of eight or more of one character, with fewer than 16
/// other characters? (`ghp_xxxx…`, `AKIAZZZZ…`. A key whose format has such a run keeps its
/// random part: a Twitter bearer token starts with 22 `A`.)
fn filled(bytes: &[u8]) -> bool {
    let mut rest = 0;
    let mut runs = false;
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..].iter().take_while(|b| **b == bytes[i]).count();
        if run >= 8 {
            runs = true;
        } else {
            rest += run;
        }
        i += run;
    }
    runs && rest < 16
}

/// `$VAR`, `${VAR}`, `${{ … }}`, `{{ … }}`, `<…>`, `%VAR%`, the whole value: a reference to
/// it. (A value that only holds `${` among other characters is no template.)
fn is_template(secret: &str) -> bool {
    let name = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    secret
        .strip_prefix('$')
        .is_some_and(|rest| name(rest) || (rest.starts_with('{') && rest.ends_with('}')))
        || (secret.starts_with("{{") && secret.ends_with("}}"))
        || (secret.starts_with('<') && secret.ends_with('>'))
        || (secret.len() > 2 && secret.starts_with('%') && secret.ends_with('%'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_templates_and_published_examples_are_not_keys() {
        for s in [
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "YOUR_API_KEY",
            "sk-ant-aaaaaaaaaaaaaaaaaaaaaaaa",
            "$OPENAI_API_KEY",
            "{{ api_key }}",
            "${DB_PASSWORD}",
            "${{ secrets.DEPLOY_KEY }}",
            "<access-token>",
            "%API_TOKEN%",
            "sk-ant-api03-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        ] {
            assert!(is_placeholder(s), "{s}");
        }
        for s in [
            "AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0gT7lTb9xWq3cVr8pYzKd2NfHs6JmQa1EuRiOo5LkPbCw4DnXg",
            "ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H",
            "sk_test_jikXYEm9F9jZjsmQmncOnG4Q6JJl3NteJ8U5PQNIpUnsV8pzkmtu",
            "wlgQAumUOAHFrZKszseH28rHEzcpszEV3ZtFotr5",
            "m{{h}o)p${e]nob(ody[finds>-_$#thisone}}",
        ] {
            assert!(!is_placeholder(s), "{s}");
        }
    }
}
