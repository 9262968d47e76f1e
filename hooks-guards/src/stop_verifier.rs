//! `stop-verifier`: a final reply that claims work the turn shows no sign of is sent back for a
//! redo ("verify the claim").
//!
//! # What it owns
//!
//! - On `after_tool_call`: the turn's successful tool calls (a typed slot of the turn's
//!   state): each call's tool name and, for a shell tool ([`StopVerifier::shell_tools`]), its
//!   command line. A call that failed (`is_error`) or was refused by a hook (`blocked`) is not
//!   evidence and is not kept.
//! - On `on_stop`: the claims of the final reply, rule by rule ([`ClaimRule`]), and the evidence
//!   each needs. Three rules are built in:
//!
//!   | rule | the reply claims | evidence: a successful call of this turn |
//!   |---|---|---|
//!   | `files` | files were written, created, updated, fixed, deleted (`I've updated src/lib.rs`, `Created README.md`, `config.yaml has been modified`) | a write or edit tool (`write_file`, `Edit`, `apply_patch`, …), or a shell command that writes files (`>`, `tee`, `cp`, `mv`, `sed -i`, `git apply`, …) |
//!   | `tests` | tests pass or were run (`all 42 tests pass`, `I ran the test suite`, `12 passed`) | a test tool (`run_tests`, …), or a shell command that runs tests (`cargo test`, `pytest`, `npm test`, `go test`, `jest`, `make test`, …) |
//!   | `publish` | something was pushed, published, sent, deployed (`Pushed to origin/main`, `I've sent the email`, `the site is live`) | a tool that sends, posts, publishes, deploys or pushes, or a shell command that does (`git push`, `npm publish`, `cargo publish`, `docker push`, `kubectl apply`, `gh pr create`, `curl -d`, …) |
//!
//! # The rules it keeps
//!
//! - A claim without evidence blocks `on_stop`, which makes the agent redo: the reason, its next
//!   instruction, quotes each claim and says what evidence is missing, and asks it to do the
//!   work and check the result, or to say in its reply that it was not done.
//! - Its own cap on redos, [`max_redos`](StopVerifier::max_redos) per turn (default 1, in the
//!   turn's state under `stop-verifier.redos`), on top of the runtime's
//!   [`stop_redo_cap`](hookchain_runtime::HooksBuilder::stop_redo_cap): past it the reply goes out as
//!   it is, with a warning for the user and a `notification` naming the claims still
//!   unverified.
//! - What is not a claim passes: prose that claims nothing; negated claims (`I have not run the
//!   tests`, `the file wasn't changed`); future, intended and conditional ones (`next I will
//!   write the file`, `I'm going to push`, `once the tests pass`); claims about or for the user
//!   (`you should run the tests`); hedged ones (`the tests should pass now`); questions
//!   (`Should I push?`); text in fenced code blocks, block quotes, and a claim wholly inside
//!   inline code or double quotes (`` look for `all tests passed` ``).
//! - How: the reply is cut into sentences (a `?` ends a question) and clauses (at `,` `;` `:`
//!   dashes and brackets, and at `but`, `and`, `or`, `then`, `although`, `though`, `while`); a
//!   claim's pattern is searched in each clause, and the claim stands unless a negation,
//!   future, modal or conditional word (`not`, `n't`, `never`, `no`, `without`, `will`, `'ll`,
//!   `going to`, `should`, `could`, `can`, `may`, `might`, `need to`, `let me`, `if`,
//!   `once`, `until`, `so that`, `you`, `the logs show`, …) comes in the clause before the
//!   claim's end. A clause that starts with a verb after `and`/`or` (`I haven't written it or
//!   pushed it`) shares the previous clause's negation. Claims are the agent's own past work:
//!   a subject-led or bare past verb (`I've updated …`, `Pushed the fix …`), a passive
//!   (`config.yaml has been modified`, `the site is live`), a headline (`Branch pushed.`,
//!   `Report sent to #ops`), a relative clause (`docs/api.md, which I updated`), and the test
//!   outcomes (`tests pass`, `they all pass`, `12 passed`, `all green`).
//! - It reads words, not meaning: see the corpus in `tests/stop_verifier.rs` for what it tells
//!   apart. Known limits: a claim about an earlier turn (`as I pushed yesterday`) asks for a
//!   redo, since only this turn's calls are evidence; a claim in a language other than English
//!   passes; a shell script that writes files without a telltale command (`python gen.py`) is
//!   no evidence of written files.
//!
//! # Config
//!
//! ```yaml
//! extensions:
//!   stop-verifier:
//!     enabled: true
//!     max_redos: 1                 # redos this guard asks for per turn (default 1)
//!     shell_tools: [bash, shell]   # default: those destructive-commands reads
//!     command_keys: [command, cmd]
//!     rules:                       # default: files, tests, publish, as built in
//!       - name: files              # a built-in rule, named: its fields default to the built-in's
//!       - name: tests
//!         commands: ['\bjust\s+test\b', '\bcargo\s+(test|nextest)\b']
//!       - name: publish
//!         tools: ['slack_.*', 'send_.*']
//!       - name: tickets            # a rule of your own
//!         claims: ['\b(opened|filed|created)\s+(a|the)\s+(ticket|jira)\b']
//!         tools: ['jira_create_issue']
//!         evidence: a successful jira_create_issue call
//! ```
//!
//! `claims` are regular expressions over the reply, case-insensitive; `tools` are regular
//! expressions that must match the whole tool name, case-insensitive; `commands` are regular
//! expressions searched in a shell tool's command line, case-insensitive. An invalid
//! expression is refused when the config is loaded, naming the file and line. `rules` replaces
//! the built-in list: name a built-in rule to keep it.
//!
//! In Rust: `Hooks::builder().builtin(StopVerifier::default())`.

use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize};

use crate::{BuiltinExtension, DestructiveCommands, ProtectedPaths, hook_options, reason};
use hookchain_core::points::{AfterToolCall, OnStop, StopEvent, ToolResult};
use hookchain_core::{HookContext, HookResult, Level, Notification};
use hookchain_runtime::HooksBuilder;
use serde_json::Value;

/// The `stop-verifier` guard and its config (see the [module docs](self)).
///
/// ```
/// use hookchain::guards::{BuiltinsExt, StopVerifier};
/// use hookchain::prelude::*;
/// use hookchain::Stop;
///
/// let hooks = Hooks::builder().builtin(StopVerifier::default()).build().unwrap();
/// let turn = hooks.session("doc").begin_turn();
/// // No test ran in this turn: the claim is sent back.
/// let Stop::Redo { instruction, .. } = turn.on_stop("Done: all tests pass.") else { panic!() };
/// assert!(instruction.contains("tests pass"), "{instruction}");
/// // A test run that succeeded is the evidence.
/// let call = ToolCall::new("bash", json!({"command": "cargo test --workspace"}));
/// turn.run_tool(call, |_| Ok(json!("test result: ok. 42 passed")));
/// assert!(matches!(turn.on_stop("Done: all tests pass."), Stop::Finish(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StopVerifier {
    /// How many redos this guard asks for in one turn (default 1); past it the reply goes out,
    /// with a warning and a notification.
    pub max_redos: u32,
    /// The tools whose calls are shell commands (default: those of
    /// [`DestructiveCommands`]: `shell`, `bash`, `Bash`, `terminal`, `run_shell_command`,
    /// `exec_command`, `execute_command`, `run_terminal_cmd`).
    pub shell_tools: Vec<String>,
    /// The args of a shell tool that hold the command (default: `command`, `cmd`).
    pub command_keys: Vec<String>,
    /// The claims and their evidence (default: the built-in `files`, `tests` and `publish`).
    pub rules: Vec<ClaimRule>,
}

/// One kind of claim and the tool calls that substantiate it.
///
/// A field left out (`None`) of a rule named `files`, `tests` or `publish` is the built-in
/// rule's; of another rule, empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimRule {
    /// The rule's name (`files`, `tests`, `publish`, or one of your own).
    pub name: String,
    /// Regular expressions over the reply (case-insensitive) that make a claim.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "patterns"
    )]
    pub claims: Option<Vec<String>>,
    /// Regular expressions matching the whole name of a tool whose successful call is evidence
    /// (case-insensitive).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "patterns"
    )]
    pub tools: Option<Vec<String>>,
    /// Regular expressions searched in a shell tool's command line (case-insensitive) whose
    /// successful run is evidence.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "patterns"
    )]
    pub commands: Option<Vec<String>>,
    /// What the claim says, in words, for the redo reason (`tests pass`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// What counts as evidence, in words, for the redo reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

impl ClaimRule {
    /// A rule named `name` with every other field left out: a built-in rule's name keeps the
    /// built-in rule.
    pub fn named(name: impl Into<String>) -> Self {
        ClaimRule {
            name: name.into(),
            claims: None,
            tools: None,
            commands: None,
            claim: None,
            evidence: None,
        }
    }
}

impl Default for StopVerifier {
    fn default() -> Self {
        let shell = DestructiveCommands::default();
        StopVerifier {
            max_redos: 1,
            shell_tools: shell.shell_tools,
            command_keys: shell.command_keys,
            rules: BUILT_IN.iter().map(|r| ClaimRule::named(r.name)).collect(),
        }
    }
}

/// A built-in rule.
struct BuiltIn {
    name: &'static str,
    claim: &'static str,
    evidence: &'static str,
    claims: fn() -> Vec<String>,
    tools: fn() -> Vec<String>,
    commands: &'static [&'static str],
}

/// Words that, before a claim in its clause, make it no claim: negation, future, intention,
/// modality, condition, the user as the subject.
const CUES: &str = r"(?i)(?:n't\b|\b(?:not|no|never|nothing|none|neither|nor|without|unable|cannot|yet to|failed to|fail to|will|shall|would|should|could|can|may|might|must|going to|gonna|about to|plan to|planning to|intend to|want to|wants to|need to|needs to|have to|has to|had to|let me|let's|ready to|try to|trying to|attempt to|remember to|forgot to|if|unless|whether|once|until|in order to|so that|make sure|ensure|please|you|hopefully|hope|supposed to|pending|todo|instead of|according to|logs?\s+(?:show|shows|showed|say|says|said|indicate|indicates))\b|\B'(?:ll|d)\b)";

/// The words before a built-in claim's verb: a subject, an auxiliary, an adverb.
const LEAD: &str = r"^\W*(?:(?:i|we|i've|we've|ive|i'm|we're|have|has|had|just|also|then|successfully|already|now|finally|and|both|first|lastly|next|so|all|done|i've\s+now|i\s+have)\s+){0,4}";

/// A file, in a claim: the word, a path, a name with an extension, or what code is made of.
const FILE_OBJECT: &str = r#"(?:files?|[`'"(\[]?(?:[\w.~-]*/[\w./-]+|[\w-]+\.[a-z][a-z0-9]{0,4})\b|readme|makefile|dockerfile|changelog|module|modules|script|scripts|config|configuration|function|functions|tests?|struct|class|method|code|docs|documentation|bug|typo|changes|edits|fix|fixes|patch|implementation)"#;

const FILE_VERBS: &str = r"(?:wrote|written|rewrote|rewritten|created|updated|saved|modified|edited|changed|patched|generated|added|fixed|refactored|implemented|deleted|removed|renamed|moved|overwrote|overwritten|replaced|appended|inserted|applied|made)";

const PUBLISH_VERBS: &str = r"(?:pushed|force-pushed|deployed|redeployed|published|released|shipped|sent|emailed|mailed|posted|uploaded|merged|tweeted|announced|rolled out|submitted|notified|messaged)";

/// The end of a headline claim ("Branch pushed.", "Report sent to #ops"): the clause ends, or
/// says where.
const HEADLINE_END: &str = r"(?:\s*$|\s+(?:to|on|in|into|at|for|with|via|under)\b)";

const TEST_WORDS: &str = r"(?:tests?|test suite|test cases?|specs?|pytest|jest|vitest|cargo test|cargo nextest|npm test|go test|unit tests|the suite)";

static BUILT_IN: LazyLock<[BuiltIn; 3]> = LazyLock::new(|| {
    [
        BuiltIn {
            name: "files",
            claim: "files were written or changed",
            evidence: "successful call of a tool that writes or edits files (write_file, \
                       edit_file, Write, Edit, apply_patch, ...) or a shell command that writes \
                       one (>, tee, cp, mv, sed -i, git apply, ...)",
            claims: || {
                vec![
                    format!(r"{LEAD}{FILE_VERBS}\b(?:\s+\S+){{0,6}}?\s+{FILE_OBJECT}"),
                    format!(
                        r"{FILE_OBJECT}(?:\s+\S+){{0,4}}?\s+(?:has|have|had|was|were|is now|are now)\s+(?:now\s+|also\s+|successfully\s+)?(?:been\s+)?(?:successfully\s+)?{FILE_VERBS}\b"
                    ),
                    // A relative clause: "docs/api.md, which I updated".
                    format!(
                        r"\b(?:which|that)\s+(?:i|we)\s+(?:have\s+|'ve\s+|just\s+|also\s+)*{FILE_VERBS}\b"
                    ),
                    // A headline: "Config updated.", "`src/main.rs` created."
                    format!(
                        r"^\W*(?:the\s+|your\s+|my\s+)?{FILE_OBJECT}\W*\s+{FILE_VERBS}{HEADLINE_END}"
                    ),
                ]
            },
            tools: || {
                let mut tools: Vec<String> = ProtectedPaths::default()
                    .write_tools
                    .iter()
                    .map(|t| regex::escape(t))
                    .collect();
                tools.push(
                    r".*(?:write|edit|patch|replace|insert|create_file|save_file|delete_file|move_file|rename_file|apply_diff).*"
                        .to_owned(),
                );
                tools
            },
            commands: &[
                r">",
                r"\btee\b",
                r"\b(?:cp|mv|rm|touch|mkdir|install|ln|truncate|patch|unzip|tar|rsync)\b",
                r"\bsed\s+(?:-\w+\s+)*-\w*i",
                r"\bperl\s+-\w*i",
                r"\bgit\s+(?:apply|checkout|restore|mv|rm|am|cherry-pick|merge|rebase|reset|stash\s+pop|commit)\b",
                r"\bcargo\s+(?:fmt|fix|add|new|init)\b",
                r"\b(?:npm|yarn|pnpm)\s+(?:init|install|add|i)\b",
                r"\b(?:rustfmt|prettier\s+--write|black|gofmt\s+-w|ruff\s+format)\b",
            ],
        },
        BuiltIn {
            name: "tests",
            claim: "tests pass or were run",
            evidence: "successful test run (cargo test, pytest, npm test, go test, jest, make \
                       test, ...) or a call of a test tool",
            claims: || {
                vec![
                    format!(
                        r"\b{TEST_WORDS}(?:\s+\S+){{0,3}}?\s+(?:pass|passes|passed|passing|succeed|succeeds|succeeded|green)\b"
                    ),
                    format!(
                        r"{LEAD}(?:ran|reran|re-ran|executed)\b(?:\s+\S+){{0,4}}?\s+[`'\x22]?{TEST_WORDS}\b"
                    ),
                    format!(
                        r"\b(?:have|has|had|'ve)\s+(?:\w+\s+)?(?:run|re-run|rerun|executed)\b(?:\s+\S+){{0,4}}?\s+[`'\x22]?{TEST_WORDS}\b"
                    ),
                    r"\b\d+\s+(?:tests?\s+)?passed\b".to_owned(),
                    r"\ball\s+(?:\w+\s+)?green\b".to_owned(),
                    r"\b(?:they|these|those)\s+(?:all\s+|now\s+|both\s+)*(?:pass|passed|passing)\b"
                        .to_owned(),
                ]
            },
            tools: || vec![r".*test.*".to_owned()],
            commands: &[
                r"\bcargo\s+(?:\+\S+\s+)?(?:test|nextest|t)\b",
                r"\bpytest\b|\bpy\.test\b|\bpython3?\s+-m\s+(?:pytest|unittest)\b",
                r"\b(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?(?:test|t)\b|\bnpx\s+(?:jest|vitest|mocha)\b",
                r"\b(?:jest|vitest|mocha|karma|ava|tap|rspec|phpunit|ctest|tox|nox)\b",
                r"\bgo\s+test\b|\bdeno\s+test\b|\bmix\s+test\b|\bswift\s+test\b|\bdotnet\s+test\b",
                r"\b(?:mvn|gradle|\./gradlew|sbt)\b.*\btest\b|\bzig\s+build\s+test\b",
                r"\bmake\s+(?:test|check)\b|\bjust\s+test\b",
            ],
        },
        BuiltIn {
            name: "publish",
            claim: "something was pushed, published, sent or deployed",
            evidence: "successful call of a tool that sends, posts, publishes, deploys or \
                       pushes, or a shell command that does (git push, npm publish, cargo \
                       publish, docker push, kubectl apply, gh pr create, curl -d, ...)",
            claims: || {
                vec![
                    format!(r"{LEAD}{PUBLISH_VERBS}\b"),
                    format!(
                        r"\b(?:has|have|had|was|were|is now|are now)\s+(?:now\s+|also\s+|successfully\s+|already\s+)?(?:been\s+)?(?:successfully\s+)?{PUBLISH_VERBS}\b"
                    ),
                    r"\b(?:is|are)\s+(?:now\s+)?(?:deployed|published|released|pushed|shipped|live)\b"
                        .to_owned(),
                    r"\bwent\s+out\b".to_owned(),
                    // A headline: "Branch pushed.", "Notification sent to #ops."
                    format!(r"^\W*(?:the\s+|your\s+|my\s+)?[\w-]+(?:\s+[\w-]+)?\s+{PUBLISH_VERBS}{HEADLINE_END}"),
                    r"\b(?:opened|created|submitted|raised|filed)\s+(?:a\s+|an\s+|the\s+)?(?:new\s+|draft\s+)?(?:pr|pull request|merge request|mr)\b"
                        .to_owned(),
                    r"\b(?:pr|pull request|merge request)\s+(?:#?\d+\s+)?(?:is|has been)\s+(?:now\s+)?(?:up|open|opened|created|ready for review)\b"
                        .to_owned(),
                ]
            },
            tools: || {
                vec![
                    r".*(?:send|post|publish|deploy|push|upload|notify|email|mail|message|tweet|release|slack|discord|telegram|webhook|http|request|merge|pull_request|create_pr).*"
                        .to_owned(),
                ]
            },
            commands: &[
                r"\bgit\s+push\b",
                r"\bgh\s+(?:pr\s+(?:create|merge)|release\s+create|issue\s+create|repo\s+create)\b",
                r"\b(?:npm|yarn|pnpm)\s+publish\b|\bcargo\s+publish\b|\btwine\s+upload\b",
                r"\b(?:poetry|uv|hatch|flit|gem)\s+(?:publish|push)\b",
                r"\bdocker\s+push\b|\bkubectl\s+(?:apply|create|rollout|set\s+image|replace|patch)\b",
                r"\bhelm\s+(?:install|upgrade)\b|\bterraform\s+apply\b|\bpulumi\s+up\b",
                r"\b(?:fly|flyctl|netlify|firebase|wrangler)\s+deploy\b|\bvercel\b|\bheroku\b",
                r"\bgcloud\b.*\bdeploy\b|\baws\b.*\b(?:deploy|s3\s+(?:cp|sync|mv))\b",
                r"\b(?:scp|rsync|sftp)\b|\b(?:sendmail|mutt|msmtp)\b|\bmail\s+-s\b",
                r"\bcurl\b.*(?:\s-d\b|--data|-X\s*(?:POST|PUT|PATCH)|\s-F\b|--form|\s-T\b|--upload-file)",
                r"\bmake\s+(?:deploy|publish|release)\b|\bansible-playbook\b",
            ],
        },
    ]
});

impl BuiltinExtension for StopVerifier {
    const NAME: &'static str = "stop-verifier";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        builder
            .hook_with(AfterToolCall, hook_options(Self::NAME), record_hook)
            .hook_with(OnStop, hook_options(Self::NAME), stop_hook)
            .config_type::<StopVerifier>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

/// A successful tool call of the turn: the tool, and the command line of a shell tool.
#[derive(Debug, Clone)]
struct Call {
    tool: String,
    command: Option<String>,
}

/// The turn's successful tool calls, in order, up to [`MAX_CALLS`].
#[derive(Debug, Default)]
struct Calls {
    calls: Vec<Call>,
    /// More calls succeeded than were kept.
    overflow: bool,
}

/// How many calls one turn keeps; past it the verifier cannot tell and lets every claim pass.
const MAX_CALLS: usize = 4096;

/// How much of a command line is kept.
const MAX_COMMAND: usize = 4096;

/// The turn-state key of this guard's redo count.
const REDOS_KEY: &str = "stop-verifier.redos";

/// `after_tool_call`: keeps a successful call as evidence.
fn record_hook(result: &ToolResult, cx: &HookContext) -> Result<(), String> {
    if result.is_error || result.blocked.is_some() {
        return Ok(());
    }
    let config = cx.config::<StopVerifier>().map_err(|e| e.to_string())?;
    let call = Call {
        tool: result.tool_name.clone(),
        command: config.command_of(&result.tool_name, &result.tool_input),
    };
    cx.turn_state().with_ext_or_default::<Calls, _>(|kept| {
        if kept.calls.len() < MAX_CALLS {
            kept.calls.push(call);
        } else {
            kept.overflow = true;
        }
    });
    Ok(())
}

/// `on_stop`: sends the reply back when it claims what no call of the turn did.
fn stop_hook(stop: &StopEvent, cx: &HookContext) -> Result<HookResult<String>, String> {
    let config = cx.config::<StopVerifier>().map_err(|e| e.to_string())?;
    let (calls, overflow) = cx
        .turn_state()
        .with_ext(|kept: &mut Calls| (kept.calls.clone(), kept.overflow))
        .unwrap_or_default();
    if overflow {
        return Ok(HookResult::Pass);
    }
    let unverified = config.unverified(&stop.response, &calls)?;
    if unverified.is_empty() {
        return Ok(HookResult::Pass);
    }
    let redos: u32 = cx.turn_state().get(REDOS_KEY).unwrap_or(0);
    let listed = unverified
        .iter()
        .map(|u| format!("{} (\"{}\"): {} in this turn", u.claim, u.quote, u.missing))
        .collect::<Vec<_>>()
        .join("; ");
    if redos >= config.max_redos {
        let note = reason(
            StopVerifier::NAME,
            format!(
                "the reply still claims what this turn shows no evidence of after {redos} \
                 redo(s), and goes out as it is: {listed}"
            ),
        );
        cx.warn(note.clone());
        cx.notify(Notification::new(Level::Warning, note).source(StopVerifier::NAME));
        return Ok(HookResult::Pass);
    }
    cx.turn_state().set(REDOS_KEY, redos + 1);
    Ok(HookResult::block(reason(
        StopVerifier::NAME,
        format!(
            "the reply claims what no successful tool call of this turn did — {listed}. Do it \
             now and check that it worked, or correct the reply to say it was not done."
        ),
    )))
}

/// A claim without evidence: what it says, where, and what is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unverified {
    /// The rule's name (`tests`).
    pub rule: String,
    /// The claim in words (`tests pass or were run`).
    pub claim: String,
    /// The clause of the reply that makes it.
    pub quote: String,
    /// The evidence it lacks, in words.
    pub missing: String,
}

/// A rule with every field settled and its expressions compiled.
struct Compiled {
    name: String,
    claim: String,
    evidence: String,
    claims: Vec<Regex>,
    tools: Vec<Regex>,
    commands: Vec<Regex>,
}

impl StopVerifier {
    /// The claims of `reply`, each as (rule name, the clause that makes it), in the order of
    /// the rules; one per rule at most.
    ///
    /// ```
    /// use hookchain::guards::StopVerifier;
    ///
    /// let v = StopVerifier::default();
    /// let claims = v.claims("I updated `src/lib.rs` and pushed it. I haven't run the tests.").unwrap();
    /// let rules: Vec<&str> = claims.iter().map(|(rule, _)| rule.as_str()).collect();
    /// assert_eq!(rules, ["files", "publish"]);
    /// assert!(v.claims("Next I will write the file; you should run the tests.").unwrap().is_empty());
    /// ```
    pub fn claims(&self, reply: &str) -> Result<Vec<(String, String)>, String> {
        let rules = self.compiled()?;
        Ok(find_claims(reply, &rules)
            .into_iter()
            .map(|(i, quote)| (rules[i].name.clone(), quote))
            .collect())
    }

    /// The claims of `reply` that no call of `calls` substantiates: `calls` are the turn's
    /// successful tool calls as (tool name, args).
    pub fn unverified_by(
        &self,
        reply: &str,
        calls: &[(&str, &Value)],
    ) -> Result<Vec<Unverified>, String> {
        let calls: Vec<Call> = calls
            .iter()
            .map(|(tool, args)| Call {
                tool: (*tool).to_owned(),
                command: self.command_of(tool, args),
            })
            .collect();
        self.unverified(reply, &calls)
    }

    fn unverified(&self, reply: &str, calls: &[Call]) -> Result<Vec<Unverified>, String> {
        let rules = self.compiled()?;
        Ok(find_claims(reply, &rules)
            .into_iter()
            .filter(|(i, _)| !calls.iter().any(|c| rules[*i].substantiated_by(c)))
            .map(|(i, quote)| Unverified {
                rule: rules[i].name.clone(),
                claim: rules[i].claim.clone(),
                quote,
                missing: format!("no {}", rules[i].evidence),
            })
            .collect())
    }

    /// The command line of a call of a shell tool: the first of `command_keys` in its args (a
    /// string, or a list of words), capped.
    fn command_of(&self, tool: &str, args: &Value) -> Option<String> {
        if !self.shell_tools.iter().any(|t| t == tool) {
            return None;
        }
        let value = self
            .command_keys
            .iter()
            .find_map(|k| args.get(k))
            .unwrap_or(args);
        let mut line = match value {
            Value::String(s) => s.clone(),
            Value::Array(words) => words
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            _ => return None,
        };
        if line.len() > MAX_COMMAND {
            let mut end = MAX_COMMAND;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            line.truncate(end);
        }
        Some(line)
    }

    /// Every rule with its fields settled (a built-in rule's left-out fields are the
    /// built-in's) and its expressions compiled: once per list of rules (the last few lists
    /// are kept), since compiling them costs far more than reading a reply.
    fn compiled(&self) -> Result<Arc<Vec<Compiled>>, String> {
        type Cache = Mutex<Vec<(Vec<ClaimRule>, Arc<Vec<Compiled>>)>>;
        static CACHE: LazyLock<Cache> = LazyLock::new(Cache::default);
        const KEPT: usize = 8;
        let cached = |cache: &Cache| {
            let cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
            cache
                .iter()
                .find(|(rules, _)| *rules == self.rules)
                .map(|(_, compiled)| compiled.clone())
        };
        if let Some(compiled) = cached(&CACHE) {
            return Ok(compiled);
        }
        let compiled = Arc::new(
            self.rules
                .iter()
                .map(compile_rule)
                .collect::<Result<Vec<_>, _>>()?,
        );
        let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= KEPT {
            cache.remove(0);
        }
        cache.push((self.rules.clone(), compiled.clone()));
        Ok(compiled)
    }
}

fn compile_rule(rule: &ClaimRule) -> Result<Compiled, String> {
    let built_in = BUILT_IN.iter().find(|b| b.name == rule.name);
    let pick = |given: &Option<Vec<String>>, default: &dyn Fn(&BuiltIn) -> Vec<String>| {
        given
            .clone()
            .or_else(|| built_in.map(default))
            .unwrap_or_default()
    };
    let claims = pick(&rule.claims, &|b| (b.claims)());
    let tools = pick(&rule.tools, &|b| (b.tools)());
    let commands = pick(&rule.commands, &|b| {
        b.commands.iter().map(|c| (*c).to_owned()).collect()
    });
    let compile = |pattern: &str, whole: bool| {
        let source = if whole {
            format!("(?i)^(?:{pattern})$")
        } else {
            format!("(?i){pattern}")
        };
        Regex::new(&source).map_err(|e| {
            format!(
                "stop-verifier rule `{}`: invalid regular expression `{pattern}`: {e}",
                rule.name
            )
        })
    };
    Ok(Compiled {
        name: rule.name.clone(),
        claim: rule
            .claim
            .clone()
            .or_else(|| built_in.map(|b| b.claim.to_owned()))
            .unwrap_or_else(|| format!("`{}`", rule.name)),
        evidence: rule
            .evidence
            .clone()
            .or_else(|| built_in.map(|b| b.evidence.to_owned()))
            .unwrap_or_else(|| "successful call of a tool or command the rule names".to_owned()),
        claims: claims
            .iter()
            .map(|p| compile(p, false))
            .collect::<Result<_, _>>()?,
        tools: tools
            .iter()
            .map(|p| compile(p, true))
            .collect::<Result<_, _>>()?,
        commands: commands
            .iter()
            .map(|p| compile(p, false))
            .collect::<Result<_, _>>()?,
    })
}

impl Compiled {
    fn substantiated_by(&self, call: &Call) -> bool {
        if self.tools.iter().any(|t| t.is_match(&call.tool)) {
            return true;
        }
        match &call.command {
            Some(line) => {
                let line = without_harmless_redirects(line);
                self.commands.iter().any(|c| c.is_match(&line))
            }
            None => false,
        }
    }
}

/// `line` without the redirections that write no file: `2>&1`, `>&2`, `> /dev/null`.
fn without_harmless_redirects(line: &str) -> String {
    static HARMLESS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"[0-9&]*>{1,2}\s*(?:&[0-9-]|/dev/null\b)").expect("a valid expression")
    });
    HARMLESS.replace_all(line, " ").into_owned()
}

/// The claims of `reply`: (rule index, the clause that makes it), one per rule, in rule order.
fn find_claims(reply: &str, rules: &[Compiled]) -> Vec<(usize, String)> {
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

/// Deserializes a list of regular expressions, refusing one that does not compile.
fn patterns<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    let list = Option::<Vec<String>>::deserialize(deserializer)?;
    if let Some(list) = &list {
        for pattern in list {
            if let Err(e) = Regex::new(pattern) {
                return Err(serde::de::Error::custom(format!(
                    "invalid regular expression `{pattern}`: {e}"
                )));
            }
        }
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_expressions_compile() {
        let rules = StopVerifier::default().compiled().unwrap();
        assert_eq!(rules.len(), 3);
        assert!(Regex::new(CUES).is_ok());
    }

    #[test]
    fn harmless_redirects_are_not_file_writes() {
        assert_eq!(
            without_harmless_redirects("cargo test 2>&1 | tail").trim(),
            "cargo test   | tail"
        );
        assert!(!without_harmless_redirects("ls > /dev/null").contains('>'));
        assert!(without_harmless_redirects("echo x > out.txt").contains('>'));
    }

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
