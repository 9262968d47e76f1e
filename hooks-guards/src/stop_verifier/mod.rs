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

mod claims;
mod config;
mod hooks;
mod rules;
mod verify;

pub use config::{ClaimRule, StopVerifier};
pub use verify::Unverified;
