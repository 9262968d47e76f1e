//! The rules: the built-in `files`, `tests` and `publish` rules (the default config), a rule
//! settled and compiled, and the evidence a successful tool call gives.
//!
//! # The rules it keeps
//!
//! - A built-in claim is a clause that starts (after a subject, an auxiliary or an adverb) with
//!   a verb of its kind; a rule of the config overrides the built-in rule of its name field by
//!   field.
//! - A call is evidence when its tool matches a rule's `tools`, or when it is a shell tool
//!   whose command line matches the rule's `commands` (redirections that write no file do not
//!   count as writing one).

use std::sync::LazyLock;

use regex::Regex;

use super::config::{ClaimRule, StopVerifier};
use crate::{DestructiveCommands, ProtectedPaths};

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

/// A successful tool call of the turn: the tool, and the command line of a shell tool.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) tool: String,
    pub(super) command: Option<String>,
}

/// A rule with every field settled and its expressions compiled.
pub(super) struct Compiled {
    pub(super) name: String,
    pub(super) claim: String,
    pub(super) evidence: String,
    pub(super) claims: Vec<Regex>,
    tools: Vec<Regex>,
    commands: Vec<Regex>,
}

/// `rule` with every field settled (a left-out field of a built-in rule's name is the built-in
/// rule's) and its expressions compiled.
pub(super) fn compile_rule(rule: &ClaimRule) -> Result<Compiled, String> {
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
    pub(super) fn substantiated_by(&self, call: &Call) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmless_redirects_are_not_file_writes() {
        assert_eq!(
            without_harmless_redirects("cargo test 2>&1 | tail").trim(),
            "cargo test   | tail"
        );
        assert!(!without_harmless_redirects("ls > /dev/null").contains('>'));
        assert!(without_harmless_redirects("echo x > out.txt").contains('>'));
    }
}
