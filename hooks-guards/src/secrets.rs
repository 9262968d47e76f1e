//! `secrets`: keeps credentials out of what the model sees and says and out of what leaves for
//! a chat platform — blocks them in user input and outbound messages, masks them in tool results
//! and final replies.
//!
//! # What it detects
//!
//! - vendor API keys and tokens, by their formats: AWS access key ids (`AKIA…`, `ASIA…`),
//!   Anthropic (`sk-ant-…`), OpenAI (`sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`, `sk-…`),
//!   GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`, ...),
//!   Slack (`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, and incoming-webhook URLs), Stripe
//!   (`sk_live_`, `rk_live_`), Google (`AIza…`), npm (`npm_`), PyPI (`pypi-AgEIcHlwaS5vcmc…`),
//!   Twilio (`SK` + 32 hex), SendGrid (`SG.….…`), Hugging Face (`hf_`), Groq (`gsk_`), xAI
//!   (`xai-`), DigitalOcean (`dop_v1_`, ...), Shopify (`shpat_`, ...), Telegram bot tokens,
//!   JSON Web Tokens, Azure storage account keys (`AccountKey=…`);
//! - keys known by their context: AWS secret access keys (`aws_secret_access_key = …`), bearer
//!   and basic credentials in an `Authorization:` header (`Authorization: Bearer …`), 64-digit
//!   hex private keys after a name that says so (`private_key = 0x…`, `PRIVATE_KEY=…`,
//!   `secret_key: …`);
//! - PEM private key blocks (`-----BEGIN [RSA|EC|OPENSSH|ENCRYPTED|PGP] PRIVATE KEY-----` with a
//!   key body; a truncated block is masked to the end of the text);
//! - BIP-39 seed phrases: a run of 12 or more words (numbered or not, separated by spaces,
//!   newlines or commas), every one from the BIP-39 English word list.
//!
//! # What it lets through
//!
//! Commit hashes, sha256 sums, UUIDs, transaction hashes and other bare hex (hex counts as a
//! private key only after a name that says so), `data:` URLs of base64 images, public keys and
//! certificates, code identifiers (`sk_learn_model`, `my_ghp_helper`: a key must start at a word
//! boundary and have its vendor's length), environment references (`Bearer $TOKEN`,
//! `${OPENAI_API_KEY}`), documentation placeholders (`AKIAIOSFODNN7EXAMPLE`, `sk-...`,
//! `ghp_xxxxxxxx…`, `YOUR_API_KEY`), and prose. Strings listed in `allow` (test fixtures) pass
//! too.
//!
//! Known limits: a key of a format not listed, or a bare password (`hunter2`), is not
//! recognised; a seed phrase's checksum is not verified, so twelve list words in a row are one
//! even when the checksum would refuse them.
//!
//! # The BIP-39 word list
//!
//! `data/bip39-english.txt` is the English word list of BIP-39, copied unchanged from
//! `bip-0039/english.txt` of the bitcoin/bips repository (MIT License; 2048 words, sorted,
//! sha256 `2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda`). It is embedded
//! with `include_str!` and looked up by binary search.
//!
//! # What it does, per point
//!
//! | point | default | on `block` | on `mask` |
//! |---|---|---|---|
//! | `transform_user_input` | `block` | the message does not reach the model; the user is told what was found and why | the secret is masked before the model sees it |
//! | `outbound_message` | `block` | the message does not leave | the secret is masked in the message |
//! | `transform_tool_result` | `mask` | the result is replaced by the reason, as an error | the secret is masked in every string of the result |
//! | `transform_response` | `mask` | the reply is replaced by the reason | the secret is masked in the reply |
//!
//! A masked secret keeps a short prefix and says what it was: `sk-ant-…[masked anthropic key]`,
//! `AKIA…[masked aws access key id]`, `-----BEGIN RSA PRIVATE KEY-----…[masked private key]`,
//! `…[masked seed phrase]`. A block's reason names the kinds and prefixes found, never the
//! secret.
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   secrets:
//!     enabled: true
//!     transform_user_input: block     # block | mask | off
//!     outbound_message: block
//!     transform_tool_result: mask
//!     transform_response: mask
//!     allow: ["AKIAZZZZTESTFIXTURE1"] # exact strings that are not secrets (test fixtures)
//! ```
//!
//! # The rules it keeps
//!
//! Every regular expression is compiled once, on first use. Scanning never panics and does no
//! I/O; the hooks run with `on_error = block`, so a hook that fails blocks.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{BuiltinExtension, hook_options, reason};
use hookchain_core::points::{
    Outbound, OutboundMessage, ToolResult, TransformResponse, TransformToolResult,
    TransformUserInput,
};
use hookchain_core::{ConfigError, HookContext, HookResult};
use hookchain_runtime::HooksBuilder;

/// What the guard does at a point when it finds a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Refuse the value: the message, result or reply is stopped, with a reason saying what
    /// was found.
    Block,
    /// Replace each secret by a short prefix and its kind (`sk-ant-…[masked anthropic key]`).
    Mask,
    /// Do nothing at this point.
    Off,
}

/// The `secrets` guard and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{BuiltinsExt, Secrets};
/// use hookchain::prelude::*;
///
/// let hooks = Hooks::builder().builtin(Secrets::default()).build().unwrap();
/// let turn = hooks.session("doc").begin_turn();
/// let key = "sk-ant-api03-Xk3v9QpL2mZr8TnW4yHc7JdF1sGb6VaE0uKiOoPq";
/// assert!(turn.transform_user_input(format!("use {key}")).is_blocked());
/// let reply = turn.transform_response(format!("the key is {key}")).continued().unwrap();
/// assert_eq!(reply, "the key is sk-ant-…[masked anthropic key]");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Secrets {
    /// What to do with a secret in a user message (default: `block`).
    pub transform_user_input: Action,
    /// What to do with a secret in a message leaving for a chat platform (default: `block`).
    pub outbound_message: Action,
    /// What to do with a secret in a tool's result (default: `mask`).
    pub transform_tool_result: Action,
    /// What to do with a secret in the final reply (default: `mask`).
    pub transform_response: Action,
    /// Strings that are not secrets even though they look like one (test fixtures): a match
    /// equal to one of them passes.
    pub allow: Vec<String>,
}

impl Default for Secrets {
    fn default() -> Self {
        Secrets {
            transform_user_input: Action::Block,
            outbound_message: Action::Block,
            transform_tool_result: Action::Mask,
            transform_response: Action::Mask,
            allow: Vec::new(),
        }
    }
}

impl BuiltinExtension for Secrets {
    const NAME: &'static str = "secrets";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        builder
            .hook_with(
                TransformUserInput,
                hook_options(Self::NAME),
                user_input_hook,
            )
            .hook_with(OutboundMessage, hook_options(Self::NAME), outbound_hook)
            .hook_with(
                TransformToolResult,
                hook_options(Self::NAME),
                tool_result_hook,
            )
            .hook_with(TransformResponse, hook_options(Self::NAME), response_hook)
            .config_type::<Secrets>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

fn user_input_hook(text: &str, cx: &HookContext) -> Result<HookResult<String>, ConfigError> {
    let config = cx.config::<Secrets>()?;
    Ok(config.act_on_text(
        config.transform_user_input,
        text,
        "the user's message",
        "it was not sent to the model: send it again without the secret, and rotate the secret \
         if it was real",
    ))
}

fn outbound_hook(message: &Outbound, cx: &HookContext) -> Result<HookResult<String>, ConfigError> {
    let config = cx.config::<Secrets>()?;
    let place = format!(
        "the message to {} `{}`",
        message.platform, message.recipient
    );
    Ok(config.act_on_text(
        config.outbound_message,
        &message.text,
        &place,
        "it was not sent: send it without the secret",
    ))
}

fn tool_result_hook(
    result: &ToolResult,
    cx: &HookContext,
) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<Secrets>()?;
    Ok(match config.transform_tool_result {
        Action::Off => HookResult::Pass,
        Action::Mask => match config.mask_value(&result.tool_response) {
            Some(masked) => HookResult::Rewrite(masked),
            None => HookResult::Pass,
        },
        Action::Block => {
            let mut found = Vec::new();
            config.scan_value(&result.tool_response, &mut found);
            if found.is_empty() {
                HookResult::Pass
            } else {
                let place = format!("the result of tool `{}`", result.tool_name);
                HookResult::block(block_reason(&place, &found, "the result was withheld"))
            }
        }
    })
}

fn response_hook(text: &str, cx: &HookContext) -> Result<HookResult<String>, ConfigError> {
    let config = cx.config::<Secrets>()?;
    Ok(config.act_on_text(
        config.transform_response,
        text,
        "the reply",
        "the reply was withheld",
    ))
}

/// A secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it is: `anthropic key`, `aws access key id`, `private key`, `seed phrase`, ...
    pub kind: &'static str,
    /// Where it is in the text (bytes). For a key found by its context (`private_key = …`),
    /// the key alone, not its name.
    pub range: Range<usize>,
    /// The secret's first bytes that a mask keeps (its vendor prefix, `sk-ant-`), or an empty
    /// string.
    pub prefix: String,
}

impl Finding {
    /// What replaces the secret when it is masked: `sk-ant-…[masked anthropic key]`.
    pub fn mask(&self) -> String {
        format!("{}…[masked {}]", self.prefix, self.kind)
    }
}

impl Secrets {
    /// The secrets in `text`, in order, none overlapping another.
    ///
    /// ```
    /// use hookchain::guards::Secrets;
    ///
    /// let found = Secrets::default().scan("export GITHUB_TOKEN=ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H");
    /// assert_eq!(found.len(), 1);
    /// assert_eq!(found[0].kind, "github token");
    /// assert!(Secrets::default().scan("commit 9fceb02d0ae598e95dc970b74767f19372d61af8").is_empty());
    /// ```
    pub fn scan(&self, text: &str) -> Vec<Finding> {
        let mut found: Vec<(usize, Finding)> = Vec::new();
        for (priority, detector) in DETECTORS.iter().enumerate() {
            for captures in detector.regex.captures_iter(text) {
                let Some(m) = captures.get(detector.group) else {
                    continue;
                };
                let secret = m.as_str();
                let next = text[m.end()..].chars().next();
                if next.is_some_and(|c| c.is_ascii_alphanumeric())
                    || !(detector.check)(secret)
                    || is_placeholder(secret)
                    || self.allow.iter().any(|a| a == secret)
                {
                    continue;
                }
                let keep = (detector.keep)(secret).min(secret.len());
                found.push((
                    priority,
                    Finding {
                        kind: detector.kind,
                        range: m.range(),
                        prefix: secret.get(..keep).unwrap_or_default().to_owned(),
                    },
                ));
            }
        }
        for range in seed_phrases(text) {
            if !self.allow.iter().any(|a| a == &text[range.clone()]) {
                let finding = Finding {
                    kind: "seed phrase",
                    range,
                    prefix: String::new(),
                };
                found.push((DETECTORS.len(), finding));
            }
        }
        // The earliest first; at the same start the more specific detector (listed first).
        found.sort_by_key(|(priority, f)| (f.range.start, *priority));
        let mut kept: Vec<Finding> = Vec::new();
        for (_, finding) in found {
            if kept
                .last()
                .is_none_or(|last| finding.range.start >= last.range.end)
            {
                kept.push(finding);
            }
        }
        kept
    }

    /// `text` with every secret masked, or `None` when it holds none.
    ///
    /// ```
    /// use hookchain::guards::Secrets;
    ///
    /// let masked = Secrets::default().mask("AWS_ACCESS_KEY_ID=AKIA4HK7Q2XN5BTYZR3M").unwrap();
    /// assert_eq!(masked, "AWS_ACCESS_KEY_ID=AKIA…[masked aws access key id]");
    /// ```
    pub fn mask(&self, text: &str) -> Option<String> {
        let found = self.scan(text);
        if found.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for finding in &found {
            out.push_str(&text[at..finding.range.start]);
            out.push_str(&finding.mask());
            at = finding.range.end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }

    /// `value` with every secret in its strings masked, or `None` when it holds none.
    pub fn mask_value(&self, value: &Value) -> Option<Value> {
        match value {
            Value::String(text) => self.mask(text).map(Value::String),
            Value::Array(items) => {
                let masked: Vec<Option<Value>> = items.iter().map(|v| self.mask_value(v)).collect();
                if masked.iter().all(Option::is_none) {
                    return None;
                }
                Some(Value::Array(
                    masked
                        .into_iter()
                        .zip(items)
                        .map(|(m, v)| m.unwrap_or_else(|| v.clone()))
                        .collect(),
                ))
            }
            Value::Object(map) => {
                let mut changed = false;
                let out = map
                    .iter()
                    .map(|(k, v)| {
                        let v = match self.mask_value(v) {
                            Some(m) => {
                                changed = true;
                                m
                            }
                            None => v.clone(),
                        };
                        (k.clone(), v)
                    })
                    .collect();
                changed.then_some(Value::Object(out))
            }
            _ => None,
        }
    }

    fn scan_value(&self, value: &Value, found: &mut Vec<Finding>) {
        match value {
            Value::String(text) => found.extend(self.scan(text)),
            Value::Array(items) => items.iter().for_each(|v| self.scan_value(v, found)),
            Value::Object(map) => map.values().for_each(|v| self.scan_value(v, found)),
            _ => {}
        }
    }

    fn act_on_text(
        &self,
        action: Action,
        text: &str,
        place: &str,
        fix: &str,
    ) -> HookResult<String> {
        match action {
            Action::Off => HookResult::Pass,
            Action::Mask => match self.mask(text) {
                Some(masked) => HookResult::Rewrite(masked),
                None => HookResult::Pass,
            },
            Action::Block => {
                let found = self.scan(text);
                if found.is_empty() {
                    HookResult::Pass
                } else {
                    HookResult::block(block_reason(place, &found, fix))
                }
            }
        }
    }
}

/// `secrets: the reply holds an anthropic key (`sk-ant-…`): the reply was withheld`.
fn block_reason(place: &str, found: &[Finding], fix: &str) -> String {
    let mut shown: Vec<String> = found
        .iter()
        .map(|f| {
            let article = if f.kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            if f.prefix.is_empty() {
                format!("{article} {}", f.kind)
            } else {
                format!("{article} {} (`{}…`)", f.kind, f.prefix)
            }
        })
        .collect();
    shown.dedup();
    reason(
        Secrets::NAME,
        format!("{place} holds {}: {fix}", shown.join(", ")),
    )
}

/// One kind of secret: where it is (capture group `group` of `regex`), a check of the match,
/// and how many of its first bytes a mask keeps.
struct Detector {
    kind: &'static str,
    regex: Regex,
    group: usize,
    check: fn(&str) -> bool,
    keep: fn(&str) -> usize,
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

/// Up to and including the first `-` or `_` after the start (`glpat-`, `sk-proj-`: the last
/// of the first `n` separators).
fn through_separator(s: &str, n: usize) -> usize {
    s.match_indices(['-', '_'])
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1)
}

/// A documentation placeholder or a run of one character, not a key.
fn is_placeholder(secret: &str) -> bool {
    let lower = secret.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "example",
        "xxxxxx",
        "your",
        "placeholder",
        "redacted",
        "dummy",
        "sample",
        "changeme",
        "1234567890",
        "abcdefghij",
        "000000000000",
    ];
    if WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    // `sk-ant-aaaaaaaa…`, `ghp_****`: eight or more of one character.
    let bytes = lower.as_bytes();
    bytes.windows(8).any(|w| w.iter().all(|b| *b == w[0]))
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
static DETECTORS: LazyLock<Vec<Detector>> = LazyLock::new(|| {
    vec![
        detector!(
            "private key",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
            0,
            |s| PEM_BODY.is_match(s),
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
            "gitlab token",
            r"\bgl(?:pat|ptt|dt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}",
            0,
            mixed,
            |s| through_separator(s, 1)
        ),
        detector!(
            "slack token",
            r"\bxox[bpars]-[A-Za-z0-9-]{10,}",
            0,
            mixed,
            |_| 5
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
            r"\bhf_[A-Za-z0-9]{34,}",
            0,
            mixed,
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
            r"\b(?:AKIA|ASIA)[A-Z2-7]{16}\b",
            0,
            mixed,
            |_| 4
        ),
        detector!(
            "aws secret access key",
            r#"(?i)(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})"#,
            1,
            mixed,
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
            any,
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

/// A PEM body: a run of base64 that prose does not have.
static PEM_BODY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/]{40,}").expect("a valid regular expression"));

/// A token between spaces, newlines and commas.
static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[^\s,]+").expect("a valid regular expression"));

/// The BIP-39 English word list (see the module docs), sorted.
static BIP39: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| include_str!("../data/bip39-english.txt").lines().collect());

/// Is `word` (any case) a BIP-39 English word?
fn is_bip39(word: &str) -> bool {
    word.len() >= 3
        && word.len() <= 8
        && word.bytes().all(|b| b.is_ascii_alphabetic())
        && BIP39
            .binary_search(&word.to_ascii_lowercase().as_str())
            .is_ok()
}

/// `12.`, `3)`, `07:`: the numbers of a numbered seed phrase.
fn is_number_label(token: &str) -> bool {
    let digits = token.trim_end_matches(['.', ')', ':']);
    !digits.is_empty() && digits.len() <= 2 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The fewest words of a seed phrase.
const SEED_WORDS: usize = 12;

/// The runs of 12 or more BIP-39 words in `text`.
fn seed_phrases(text: &str) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut run: Option<(usize, usize, usize)> = None; // (start, end, words)
    let mut close = |run: &mut Option<(usize, usize, usize)>| {
        if let Some((start, end, words)) = run.take()
            && words >= SEED_WORDS
        {
            runs.push(start..end);
        }
    };
    for m in TOKEN.find_iter(text) {
        let raw = m.as_str();
        if is_number_label(raw) {
            continue;
        }
        let trimmed_start = raw.trim_start_matches(['"', '\'', '`', '(', '[', '{']);
        let word = trimmed_start.trim_end_matches(['"', '\'', '`', ')', ']', '}', '.']);
        if is_bip39(word) {
            let start = m.start() + (raw.len() - trimmed_start.len());
            let end = start + word.len();
            match &mut run {
                Some((_, e, n)) => {
                    *e = end;
                    *n += 1;
                }
                None => run = Some((start, end, 1)),
            }
        } else {
            close(&mut run);
        }
    }
    close(&mut run);
    runs
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
}
