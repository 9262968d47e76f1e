//! `secrets`: keeps credentials out of what the model sees and says, out of what it writes and
//! runs, and out of what leaves for a chat platform — blocks them in user input, outbound
//! messages and tool calls, masks them in tool results and final replies.
//!
//! # What it detects
//!
//! - vendor API keys and tokens, by their formats. Named, with the prefix a mask keeps: AWS
//!   access key ids (`AKIA…`, `ASIA…`, `ABIA…`, `ACCA…`), Anthropic (`sk-ant-…`), OpenAI
//!   (`sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`, `sk-…`), GitHub (`ghp_`, `gho_`, `ghu_`,
//!   `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`, `gldt-`, `glrt-`, `glptt-`, `glsoat-`,
//!   `glcbt-`, `glimt-`, `glffct-`, `glft-`, `glagent-`, `gloas-`, `GR1348941…`), Slack
//!   (`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xoxe-`, `xoxe.xoxp-`, `xapp-`, and
//!   incoming-webhook URLs), Stripe (`sk_live_`, `rk_live_`), Google (`AIza…`), npm (`npm_`),
//!   PyPI (`pypi-AgEIcHlwaS5vcmc…`, and TestPyPI's), Twilio (`SK` + 32 hex), SendGrid
//!   (`SG.….…`), Hugging Face (`hf_`), Groq (`gsk_`), xAI (`xai-`), DigitalOcean (`dop_v1_`,
//!   ...), Shopify (`shpat_`, ...), Telegram and Discord bot tokens, Mailchimp keys (`…-us21`),
//!   JSON Web Tokens (signed or not, the header JSON), Azure storage account keys
//!   (`AccountKey=…`).
//!   And every other format of **gitleaks' rule set**, read as data (the catalogue below): some
//!   two hundred vendors, from 1Password and Adafruit to Yandex and Zendesk, and its generic
//!   rule for a long random value assigned to a name that says it is a key, a token, a secret
//!   or a password (`api_key = "…"`, `"password": "…"`);
//! - keys known by their context: AWS secret access keys after their name
//!   (`aws_secret_access_key = …`, `aws configure set aws_secret_access_key …`) or next to
//!   their key id (a credentials CSV), bearer and basic credentials in an `Authorization:`
//!   header (`Authorization: Bearer …`), 64-digit hex private keys after a name that says so
//!   (`private_key = 0x…`, `PRIVATE_KEY=…`, `secret_key: …`), an npm token after
//!   `_authToken=`, the password of a URL (`postgres://app:…@db/app`), and a quoted value
//!   assigned to or compared with a password's or a key's name (`password = "…"`, `"db_pass":
//!   "…"`, `if (api_key == "…")`) when it is no placeholder, test value, template or name
//!   (`"OPENAI_API_KEY"`, `"x-api-key"`, `"apiKeyHeader"`);
//! - private keys in PEM blocks (`-----BEGIN [RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP] PRIVATE
//!   KEY-----`): every key `ssh-keygen`, `openssl` and `gpg` write, encrypted or not, as they
//!   write it or JSON-encoded in a string; a truncated block is masked to the end of the text.
//!   A block is a key when its body is base64 random enough (see `private_key.rs`): a run of
//!   `A` or a word inside a body is no sign of a placeholder — every OpenSSH key starts with
//!   one;
//! - BIP-39 seed phrases, as a phrase is written down: 12 to 24 list words ending a line,
//!   numbered from 1 (`1. word`, `1) word`), or a block that is only the phrase, separated by
//!   spaces, newlines, `,` or `|` (see `seed_phrase.rs`).
//!
//! # What it lets through
//!
//! Commit hashes, sha256 sums, UUIDs (a UUID is a key only after a name that says so:
//! `api_token = "…"`, `//host/:_authToken=…`), transaction hashes and other bare hex (hex
//! counts as a
//! private key only after a name that says so), `data:` URLs of base64 images, public keys and
//! certificates, code identifiers (`sk_learn_model`, `my_ghp_helper`: a key must start at a word
//! boundary and have its vendor's length), environment references and templates (`Bearer
//! $TOKEN`, `${OPENAI_API_KEY}`, `${{ secrets.X }}`, `os.environ["…"]`), documentation
//! placeholders (`AKIAIOSFODNN7EXAMPLE`, `sk-...`, `ghp_xxxxxxxx…`, `YOUR_API_KEY`), the
//! example values vendors publish (Stripe's documentation test key, jwt.io's token), list words
//! that are not written as a phrase (a word list in code, a bullet list, a sentence), and prose.
//! Strings listed in `allow` (test fixtures) pass too.
//!
//! Known limits: a key of a format neither named nor in the catalogue, a bare password
//! (`hunter2` in prose), an unquoted one (`password = hunter2`: in a `.conf` it is one, in code
//! a name) or one with spaces (`password = "correct horse battery"`) is not recognised; a seed
//! phrase's checksum is not verified (a phrase typed with a wrong word is still one to
//! protect); the catalogue's rules for file names (a `.tf` file's password, a Kubernetes
//! `Secret`, a `nuget.config`, a `.php` file's Freemius key) run only on a tool's result whose
//! input names the file (`file_path`, `path`) or through [`Secrets::scan_file`]; gitleaks'
//! decoding of encoded segments is not done.
//!
//! # The catalogue: gitleaks' rules, as data
//!
//! `data/gitleaks.toml` is gitleaks' default rule set, `config/gitleaks.toml` of the
//! gitleaks/gitleaks repository (commit `09242ce9`), copied unchanged; gitleaks is MIT licensed,
//! Copyright (c) 2019 Zachary Rice, and its licence is `data/gitleaks-LICENSE` beside it. The
//! file is embedded with `include_str!` and read once, on first use, by a reader of the part of
//! TOML it is written in (`rule_file.rs`). Its rules run as gitleaks runs them
//! (`catalogue.rs`): a rule runs only on a text that holds one of its keywords — one
//! case-insensitive search for all keywords at once — its regex is compiled the first time it
//! runs, and a finding goes through the rule's entropy floor and allowlists and the global
//! allowlist. The `regex` crate compiles every one of its regexes (a test holds it).
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
//! | `intercept_tool_call` | `block` | the call does not run; the model is told which argument holds what, and to use the key's name (an environment variable, a secret store) instead | the secret is masked in every string of the arguments, names included, and the call runs so |
//! | `transform_tool_result` | `mask` | the result is replaced by the reason, as an error | the secret is masked in every string of the result, object keys included |
//! | `transform_response` | `mask` | the reply is replaced by the reason | the secret is masked in the reply |
//!
//! A tool call's arguments are blocked rather than masked by default: a key the model is about
//! to write into a file (a `Write`'s `content`, an `Edit`'s `new_string`) or to send in a
//! command (a `Bash` `command`) is one it was given or found, and a masked call would write
//! `…[masked …]` into the file or send it; the model, told why, can write the key's name
//! instead. A quoted `password = "…"`, found by its name alone whatever the value looks like,
//! does not stop a call: the model writes such values into test fixtures and examples all the
//! time, and a real one it could only have from a message or a result, where the guard blocked
//! or masked it. (A long random value assigned to a key's or a token's name, gitleaks' generic
//! rule, does.)
//!
//! A masked secret keeps a short prefix and says what it was: `sk-ant-…[masked anthropic key]`,
//! `AKIA…[masked aws access key id]`, `-----BEGIN RSA PRIVATE KEY-----…[masked private key]`,
//! `glpat-…[masked gitlab token]`, `…[masked generic api key]`, `…[masked seed phrase]`. A
//! block's reason names the kinds and prefixes found, never the secret.
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   secrets:
//!     enabled: true
//!     transform_user_input: block     # block | mask | off
//!     outbound_message: block
//!     intercept_tool_call: block
//!     transform_tool_result: mask
//!     transform_response: mask
//!     allow: ["AKIAZZZZTESTFIXTURE1"] # exact strings that are not secrets (test fixtures)
//! ```
//!
//! # The rules it keeps
//!
//! - Every regular expression is compiled once, on first use; a text runs the catalogue's
//!   rules only for the keywords it holds, and a named format's detector only when it holds a
//!   literal every match of it needs (`formats.rs`): a process that scans one `git status`
//!   call compiles one detector, not all of them.
//! - Where findings overlap, they are masked as one, under the kind of the one that starts
//!   first (at the same place, the named format before the catalogue's vendor rules, these in
//!   their file's order, then what is known by a name alone: gitleaks' generic rule, a quoted
//!   password): no part of either is left.
//! - Scanning never panics and does no I/O; the hooks run with `on_error = block`, so a hook
//!   that fails blocks.

mod catalogue;
mod formats;
mod placeholder;
mod private_key;
mod rule_file;
mod seed_phrase;

use std::ops::Range;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{BuiltinExtension, hook_options, reason};
use hookchain_core::points::{
    InterceptToolCall, Outbound, OutboundMessage, ToolResult, TransformResponse,
    TransformToolResult, TransformUserInput,
};
use hookchain_core::{ConfigError, HookContext, HookResult, ToolCall};
use hookchain_runtime::HooksBuilder;

use catalogue::CATALOGUE;
use formats::DETECTORS;
use placeholder::is_placeholder;

/// What the guard does at a point when it finds a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Refuse the value: the message, call, result or reply is stopped, with a reason saying
    /// what was found.
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
/// let write = ToolCall::new("Write", json!({"file_path": "app.py", "content": format!("KEY = '{key}'")}));
/// assert!(turn.intercept_tool_call(write).is_blocked());
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
    /// What to do with a secret in a tool call's arguments — a file's content, an edit, a
    /// command (default: `block`).
    pub intercept_tool_call: Action,
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
            intercept_tool_call: Action::Block,
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
            .hook_with(InterceptToolCall, hook_options(Self::NAME), tool_call_hook)
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

fn tool_call_hook(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<Secrets>()?;
    // The file a call writes, when it names one: the catalogue's rules for such files run.
    let scope = Scope {
        call: true,
        file: file_read(&call.args),
    };
    Ok(config.act_on_value(
        config.intercept_tool_call,
        &call.args,
        scope,
        &format!("the call of tool `{}`", call.name),
        "it was not run: write the secret's name (an environment variable, a secret store) \
         rather than its value, and tell the user if a real secret was about to leave",
    ))
}

fn tool_result_hook(
    result: &ToolResult,
    cx: &HookContext,
) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<Secrets>()?;
    let scope = Scope {
        call: false,
        file: file_read(&result.tool_input),
    };
    Ok(config.act_on_value(
        config.transform_tool_result,
        &result.tool_response,
        scope,
        &format!("the result of tool `{}`", result.tool_name),
        "the result was withheld",
    ))
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
    /// What it is: `anthropic key`, `aws access key id`, `private key`, `seed phrase`, or a
    /// catalogue rule's id in words (`sendinblue api token`, `generic api key`).
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

/// What a scan looks for, and where the text comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scope<'a> {
    /// A tool call's arguments: every kind but those found by a name alone ([`GENERIC`]).
    call: bool,
    /// The file the text was read from, when known: the catalogue's rules for such files run.
    file: Option<&'a str>,
}

impl Scope<'_> {
    /// Every kind, in a text from no known file.
    const ALL: Scope<'static> = Scope {
        call: false,
        file: None,
    };
}

/// The file a tool reads or writes, named in its input (`file_path`, `path`, `filename`,
/// `notebook_path`): the catalogue's rules for such files (a `.tf` file's password, a
/// Kubernetes `Secret` manifest, a `nuget.config`) run on what it returned or is given.
fn file_read(input: &Value) -> Option<&str> {
    ["file_path", "path", "filename", "notebook_path"]
        .iter()
        .find_map(|key| input.get(key)?.as_str())
}

/// The kinds found by a name alone whatever the value looks like: a quoted value assigned to a
/// password's name. They do not stop a tool call: the model writes such values into test
/// fixtures and examples all the time, and a real one it could only have from a message or a
/// result, where the guard blocked or masked it. (gitleaks' generic rule, which also wants a
/// long random value, does stop one.)
const GENERIC: &[&str] = &[formats::PASSWORD];

/// Where a finding comes from, the earlier the more specific: the named formats in their
/// order, then the catalogue's vendor rules in theirs, its generic rule and the guard's
/// password assignments, then seed phrases.
type Rank = (u8, usize);

impl Secrets {
    /// The secrets in `text`, in order, none overlapping another (findings that overlap are
    /// one, spanning both).
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
        self.scan_in(text, Scope::ALL)
    }

    /// The secrets in `text` read from the file `path`: [`scan`](Self::scan)'s, and those of
    /// the catalogue's rules for such files (a password in a `.tf` or `.hcl` file, the data of
    /// a Kubernetes `Secret` in YAML, a password in a `nuget.config`). The guard scans a tool's
    /// result so when the tool's input names the file (`file_path`, `path`).
    ///
    /// ```
    /// use hookchain::guards::Secrets;
    ///
    /// let manifest = "apiVersion: v1\nkind: Secret\ndata:\n  dsn: aG9zdD1kYi5pbnRlcm5hbCBwb3J0PTU0MzI=\n";
    /// assert!(Secrets::default().scan(manifest).is_empty());
    /// assert_eq!(Secrets::default().scan_file(manifest, "k8s/secret.yaml").len(), 1);
    /// ```
    pub fn scan_file(&self, text: &str, path: &str) -> Vec<Finding> {
        self.scan_in(
            text,
            Scope {
                call: false,
                file: Some(path),
            },
        )
    }

    fn scan_in(&self, text: &str, scope: Scope<'_>) -> Vec<Finding> {
        let mut found: Vec<(Rank, Finding)> = Vec::new();
        let mut add = |rank: Rank,
                       kind: &'static str,
                       range: Range<usize>,
                       whole: Range<usize>,
                       keep: usize| {
            if scope.call && GENERIC.contains(&kind) {
                return;
            }
            let secret = &text[range.clone()];
            // A private key is judged by its body, a token by its header; anything else by
            // what placeholders say.
            let stand_in = match kind {
                private_key::KIND => !private_key::has_key_body(secret),
                "jwt" => !formats::is_jwt(secret) || is_placeholder(secret),
                _ => is_placeholder(secret),
            };
            if stand_in || self.allow.iter().any(|a| a == secret) {
                return;
            }
            // What a named format finds is held to gitleaks' allowlists for its vendor; a
            // password, when it is a value gitleaks' generic rule could match (`[\w.=-]`), to
            // those of that rule (its stopwords are words of identifiers, not of passwords).
            if rank.0 == 0 || kind == formats::PASSWORD {
                let line = catalogue::line_of(text.as_bytes(), whole.clone());
                let generic_value = secret
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'=' | b'-'));
                let vendor = match kind {
                    formats::PASSWORD if generic_value => "generic api key",
                    _ => kind,
                };
                if CATALOGUE.allows(vendor, secret, &text[whole], &String::from_utf8_lossy(line)) {
                    return;
                }
            }
            let prefix = secret.get(..keep.min(secret.len())).unwrap_or_default();
            found.push((
                rank,
                Finding {
                    kind,
                    range,
                    prefix: prefix.to_owned(),
                },
            ));
        };
        let candidates = formats::candidates(text);
        for (order, detector) in DETECTORS.iter().enumerate() {
            if !candidates[order] {
                continue;
            }
            for captures in detector.regex().captures_iter(text) {
                let group = if detector.group == formats::FIRST_GROUP {
                    captures.iter().skip(1).flatten().next()
                } else {
                    captures.get(detector.group)
                };
                let Some(m) = group else {
                    continue;
                };
                let secret = m.as_str();
                let next = text[m.end()..].chars().next();
                if next.is_some_and(|c| c.is_ascii_alphanumeric()) || !(detector.check)(secret) {
                    continue;
                }
                let whole = captures.get(0).map_or(m.range(), |w| w.range());
                // A password is known by its name alone: any vendor's format found at the
                // same place says better what it is.
                let tier = if detector.kind == formats::PASSWORD {
                    2
                } else {
                    0
                };
                add(
                    (tier, order),
                    detector.kind,
                    m.range(),
                    whole,
                    (detector.keep)(secret),
                );
            }
        }
        let mut hits = Vec::new();
        CATALOGUE.find(text, scope.file, &mut hits);
        for hit in hits {
            let generic = u8::from(hit.kind.starts_with("generic"));
            add(
                (1 + generic, hit.order),
                hit.kind,
                hit.range.clone(),
                hit.range,
                hit.keep,
            );
        }
        for range in seed_phrase::seed_phrases(text) {
            add((3, 0), "seed phrase", range.clone(), range, 0);
        }
        // The earliest first; at the same start the more specific. What overlaps the one
        // before is joined to it.
        found.sort_by_key(|(rank, f)| (f.range.start, *rank));
        let mut kept: Vec<Finding> = Vec::new();
        for (_, finding) in found {
            match kept.last_mut() {
                Some(last) if finding.range.start < last.range.end => {
                    last.range.end = last.range.end.max(finding.range.end);
                }
                _ => kept.push(finding),
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
        self.mask_in(text, Scope::ALL)
    }

    fn mask_in(&self, text: &str, scope: Scope<'_>) -> Option<String> {
        let found = self.scan_in(text, scope);
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

    /// `value` with every secret in its strings masked — object keys as well as values — or
    /// `None` when it holds none. A masked key that would take the name of another key of the
    /// same object is numbered (`sk-ant-…[masked anthropic key] (2)`), so no entry is lost.
    ///
    /// ```
    /// use hookchain::guards::Secrets;
    /// use serde_json::json;
    ///
    /// let masked = Secrets::default()
    ///     .mask_value(&json!({"ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H": {"scopes": ["repo"]}}))
    ///     .unwrap();
    /// assert_eq!(masked, json!({"ghp_…[masked github token]": {"scopes": ["repo"]}}));
    /// ```
    pub fn mask_value(&self, value: &Value) -> Option<Value> {
        self.mask_value_in(value, Scope::ALL)
    }

    fn mask_value_in(&self, value: &Value, scope: Scope<'_>) -> Option<Value> {
        match value {
            Value::String(text) => self.mask_in(text, scope).map(Value::String),
            Value::Array(items) => {
                let masked: Vec<Option<Value>> =
                    items.iter().map(|v| self.mask_value_in(v, scope)).collect();
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
                let mut out = Map::new();
                for (key, value) in map {
                    let key = match self.mask_in(key, scope) {
                        Some(masked) => {
                            changed = true;
                            masked
                        }
                        None => key.clone(),
                    };
                    let value = match self.mask_value_in(value, scope) {
                        Some(masked) => {
                            changed = true;
                            masked
                        }
                        None => value.clone(),
                    };
                    let mut name = key.clone();
                    let mut n = 1;
                    while out.contains_key(&name) || (name != key && map.contains_key(&name)) {
                        n += 1;
                        name = format!("{key} ({n})");
                    }
                    out.insert(name, value);
                }
                changed.then_some(Value::Object(out))
            }
            _ => None,
        }
    }

    /// The secrets in every string of `value`, keys included, each with the path of the
    /// string it is in (`content`, `edits[1].new_string`; a key found in a name has the path
    /// of the object holding it).
    fn scan_value(
        &self,
        value: &Value,
        scope: Scope<'_>,
        path: &mut String,
        found: &mut Vec<(String, Finding)>,
    ) {
        match value {
            Value::String(text) => {
                found.extend(
                    self.scan_in(text, scope)
                        .into_iter()
                        .map(|f| (path.clone(), f)),
                );
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    self.scan_value(item, scope, path, found);
                    path.truncate(len);
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    found.extend(
                        self.scan_in(key, scope)
                            .into_iter()
                            .map(|f| (path.clone(), f)),
                    );
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                    self.scan_value(item, scope, path, found);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }

    /// What `action` makes of a JSON `value` (a call's arguments, a tool's result): a block's
    /// reason names where the first secret is (`in \`content\``).
    fn act_on_value(
        &self,
        action: Action,
        value: &Value,
        scope: Scope<'_>,
        place: &str,
        fix: &str,
    ) -> HookResult<Value> {
        match action {
            Action::Off => HookResult::Pass,
            Action::Mask => match self.mask_value_in(value, scope) {
                Some(masked) => HookResult::Rewrite(masked),
                None => HookResult::Pass,
            },
            Action::Block => {
                let mut found = Vec::new();
                self.scan_value(value, scope, &mut String::new(), &mut found);
                let Some((field, _)) = found.first() else {
                    return HookResult::Pass;
                };
                let place = if field.is_empty() {
                    place.to_owned()
                } else {
                    format!("`{field}` of {place}")
                };
                let findings: Vec<Finding> = found.into_iter().map(|(_, f)| f).collect();
                HookResult::block(block_reason(&place, &findings, fix))
            }
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
    let mut shown: Vec<String> = Vec::new();
    for f in found {
        let article = if f.kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        let one = if f.prefix.is_empty() {
            format!("{article} {}", f.kind)
        } else {
            format!("{article} {} (`{}…`)", f.kind, f.prefix)
        };
        if !shown.contains(&one) {
            shown.push(one);
        }
    }
    reason(
        Secrets::NAME,
        format!("{place} holds {}: {fix}", shown.join(", ")),
    )
}
