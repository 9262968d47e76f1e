//! Whether a PEM private key block (`-----BEGIN … PRIVATE KEY-----` to its `-----END …`, or to
//! the end of a text cut short) holds a key, or only a placeholder.
//!
//! # The rule it keeps
//!
//! A block holds a key when its body has an unbroken run of at least 40 base64 characters
//! (prose after a marker has none) and its base64 is random enough (more than 3.5 bits of
//! entropy per character; a key's body has about 6). Nothing
//! else is asked of it: no placeholder word is looked for in a body, and no run of one
//! character is held against it. A real body is base64 of binary data, and binary data has
//! both: every unencrypted OpenSSH key starts `b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAA`
//! (the magic `openssh-key-v1\0`, then the lengths of `none`, `none`, an empty string and the
//! key count, whose zero bytes are a run of `A`), and a key of a few thousand random base64
//! characters holds `your` or `dummy` somewhere often enough. What a placeholder is —
//! `AAAA…`, `xxxx…`, `<your key here>`, `[REDACTED]`, `anything` — is too short or too
//! regular for the rule.

use super::catalogue::shannon_entropy;

/// The kind of a private key's finding (the named format's and the catalogue's `private-key`).
pub(super) const KIND: &str = "private key";

/// The shortest run of base64 characters a body that holds a key has.
const MIN_BODY: usize = 40;

/// The entropy (bits per character) a body must exceed.
const MIN_ENTROPY: f64 = 3.5;

/// Does `block`, from its `-----BEGIN` line, hold a key rather than a placeholder?
pub(super) fn has_key_body(block: &str) -> bool {
    // The body: after the marker's closing dashes, up to the end marker.
    let body = block
        .find("PRIVATE KEY")
        .and_then(|i| block[i..].find("-----").map(|j| i + j + 5))
        .map_or("", |start| &block[start..]);
    let body = body.find("-----END").map_or(body, |i| &body[..i]);
    let is_base64 = |b: &u8| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/';
    let longest_run = body
        .as_bytes()
        .split(|b| !is_base64(b))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    let base64: Vec<u8> = body.bytes().filter(is_base64).collect();
    longest_run >= MIN_BODY && shannon_entropy(&base64) > MIN_ENTROPY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_of_random_base64_is_a_key_whatever_runs_and_words_it_holds() {
        for block in [
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACA1CKD1+5+SzjpxcEWenKzEjpvCbalJAMqzZFyalHgQ9wAAAIjHlJg/x5SY\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANyourBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDdummyAC4AWkdwKY\n-----END PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\\nMIIEpQIBAAKCAQEAn6/O8li+SX4m98LLYt/PKSzEmQ++ZBD7Loh9P13f4yQ92EF3\\n-----END RSA PRIVATE KEY-----\\n",
            "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIDtruncatedByTheToolThatPrintedItL9xW2mN7bVcQ",
        ] {
            assert!(has_key_body(block), "{block}");
        }
    }

    #[test]
    fn a_placeholder_body_is_not_a_key() {
        for block in [
            "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\n<your key here>\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n-----END PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY----- and you should never commit it.",
            "The file starts with -----BEGIN RSA PRIVATE KEY----- and you should never commit it, since anyone who reads it can log in to every server that trusts the key.",
        ] {
            assert!(!has_key_body(block), "{block}");
        }
    }
}
