//! Runs other projects' test suites for the jobs of `destructive-commands` and `secrets` through
//! the guards, as an agent would meet them, and prints how many cases each guard gets wrong.
//!
//! ```text
//! cargo run --release -p hookchain-guards --example guard_suites -- CASES.jsonl \
//!     [--scope scripts/guard_suites/scope.toml] [--misses] [--scoped] [--project DIR]
//! ```
//!
//! `CASES.jsonl` is what `scripts/guard_suites/extract.py` writes: one case a line,
//! `{"suite", "source", "guard", "input", "expect", "note"?}`, `expect` being `block` or `allow`
//! (for secrets, `block` means blocked or masked).
//!
//! # How a case is fed
//!
//! Each guard is enabled alone, with its documented defaults, by a config entry read as the
//! user's own `hookchain.yaml` (`extensions: {NAME: {enabled: true}}`), and every case runs in
//! a turn of its own:
//!
//! - a `destructive-commands` case is a `Bash` tool call `{"command": input}` through
//!   `intercept_tool_call`; caught when blocked (or rewritten);
//! - a `secrets` case is, first, what a `Read` tool returned (`input` as the result, a string)
//!   through `transform_tool_result`: caught when blocked or when the result comes back
//!   changed (masked); and, reported apart, the `content` of a `Write` call through
//!   `intercept_tool_call`: caught when blocked or when the args come back changed. The file
//!   read or written is `notes.txt`, or the file a case's note names (`(file x.yaml)`: a
//!   suite's rule for one kind of file).
//!
//! Every session's project directory is the same checkout, so no verdict depends on where the
//! runner is started: `--project DIR`, else `target/guard-suites/project` under the current
//! directory, which the runner makes as an agent's usual checkout — a git repository on a
//! working branch (`.git/HEAD` names `refs/heads/work`), so a force push that names no branch is
//! judged as one of that branch. (A project under the temporary directory would make every
//! `rm -rf /tmp/*` a deletion of the project.)
//!
//! Only public API a user has is used, so the same runner measures the guards before and after
//! they change.
//!
//! # Scope
//!
//! `--scope FILE` names the cases that do not count, in two tables of entries, each with
//! optional matchers (`suite`, `guard`, `expect`: exact; `input`, `source`, `note`: regular
//! expressions searched in the case's field; `not_input`, `not_note`: regular expressions the
//! field must not match; every matcher given must hold) and a `why`:
//!
//! - `[[out]]`: outside the guard's documented remit ("left out");
//! - `[[policy]]`: in its remit, but decided the other way on purpose, by a documented default
//!   ("policy"). An entry may carry `option`, the guard's documented config under which the
//!   guard decides the suite's way; those cases are run again under it and reported.
//!
//! A case matching an `out` entry is left out; otherwise one matching a `policy` entry is a
//! policy case; every other case counts. Entries that match no case are listed at the end, so
//! a scope file does not go stale unseen.
//!
//! # What it prints
//!
//! A markdown table, one row per suite and guard (and the secrets' `Write` channel): cases,
//! counted (to block / to allow), missed, wrongly blocked, left out, policy (and how many of
//! them the documented option decides the suite's way). With `--misses`, every miss and wrong
//! block with its source and the guard's reason, and the policy cases the option still decides
//! the other way. With `--scoped`, every case the scope takes, so that a reader can check that
//! no entry takes more than its reason covers.

use std::collections::BTreeMap;
use std::time::Instant;

use hookchain::TurnEnd;
use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::points::ToolResult;
use hookchain::prelude::*;
use regex::Regex;
use serde::Deserialize;

/// One case of the cases file.
#[derive(Debug, Deserialize)]
struct Case {
    suite: String,
    source: String,
    guard: String,
    input: String,
    expect: Expect,
    #[serde(default)]
    note: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Expect {
    Block,
    Allow,
}

/// The scope file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scope {
    #[serde(default)]
    out: Vec<Entry>,
    #[serde(default)]
    policy: Vec<Entry>,
}

/// One `[[out]]` or `[[policy]]` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    suite: Option<String>,
    guard: Option<String>,
    expect: Option<Expect>,
    #[serde(default, with = "pattern")]
    input: Option<Regex>,
    #[serde(default, with = "pattern")]
    source: Option<Regex>,
    #[serde(default, with = "pattern")]
    note: Option<Regex>,
    /// Regular expressions the case's field must *not* match.
    #[serde(default, with = "pattern")]
    not_input: Option<Regex>,
    #[serde(default, with = "pattern")]
    not_note: Option<Regex>,
    why: String,
    /// The guard's documented config under which it decides the suite's way (policy only).
    option: Option<toml::Table>,
}

/// A regular expression field of the scope file.
mod pattern {
    use regex::Regex;
    use serde::{Deserialize, Deserializer};

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Regex>, D::Error> {
        let Some(text) = Option::<String>::deserialize(d)? else {
            return Ok(None);
        };
        Regex::new(&text).map(Some).map_err(|e| {
            serde::de::Error::custom(format!("`{text}` is not a regular expression: {e}"))
        })
    }
}

impl Entry {
    fn matches(&self, case: &Case) -> bool {
        let exact = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        let search =
            |want: &Option<Regex>, have: &str| want.as_ref().is_none_or(|re| re.is_match(have));
        exact(&self.suite, &case.suite)
            && exact(&self.guard, &case.guard)
            && self.expect.is_none_or(|e| e == case.expect)
            && search(&self.input, &case.input)
            && search(&self.source, &case.source)
            && search(&self.note, &case.note)
            && self
                .not_input
                .as_ref()
                .is_none_or(|re| !re.is_match(&case.input))
            && self
                .not_note
                .as_ref()
                .is_none_or(|re| !re.is_match(&case.note))
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (key, value) in [
            ("suite", self.suite.clone()),
            ("guard", self.guard.clone()),
            (
                "expect",
                self.expect.map(|e| format!("{e:?}").to_lowercase()),
            ),
            ("input", self.input.as_ref().map(|r| r.as_str().to_owned())),
            (
                "source",
                self.source.as_ref().map(|r| r.as_str().to_owned()),
            ),
            ("note", self.note.as_ref().map(|r| r.as_str().to_owned())),
            (
                "not_input",
                self.not_input.as_ref().map(|r| r.as_str().to_owned()),
            ),
            (
                "not_note",
                self.not_note.as_ref().map(|r| r.as_str().to_owned()),
            ),
        ] {
            if let Some(v) = value {
                parts.push(format!("{key} = {v:?}"));
            }
        }
        format!("{{ {} }}: {}", parts.join(", "), self.why)
    }
}

/// Where a case stands once the scope is applied.
#[derive(Clone, Copy)]
enum Standing {
    Counted,
    Out,
    /// The index of the `[[policy]]` entry that takes it.
    Policy(usize),
}

/// The three ways a case reaches a guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Channel {
    /// A `Bash` call's command, through `intercept_tool_call`.
    Command,
    /// A `Read` call's result, through `transform_tool_result`.
    ToolResult,
    /// A `Write` call's content, through `intercept_tool_call`.
    WriteArgs,
}

impl Channel {
    fn label(self) -> &'static str {
        match self {
            Channel::Command => "Bash command",
            Channel::ToolResult => "Read result",
            Channel::WriteArgs => "Write content",
        }
    }

    fn of(guard: &str) -> &'static [Channel] {
        match guard {
            "destructive-commands" => &[Channel::Command],
            "secrets" => &[Channel::ToolResult, Channel::WriteArgs],
            _ => &[],
        }
    }
}

/// The guard's decision on a case: caught (blocked or rewritten), with the reason when blocked.
struct Decision {
    caught: bool,
    reason: Option<String>,
}

/// A registry with `guard` enabled alone, `extra` merged into its config entry; read as the
/// user's own `hookchain.yaml`.
fn registry(guard: &str, extra: &serde_json::Map<String, Value>) -> Result<Hooks, String> {
    let mut section = serde_json::Map::new();
    section.insert("enabled".into(), Value::Bool(true));
    section.extend(extra.clone());
    // JSON is YAML: the section goes in flow style.
    let yaml = format!("extensions:\n  {guard}: {}\n", Value::Object(section));
    let config = Config::from_user_yaml_str(&yaml, "./hookchain.yaml")
        .map_err(|e| format!("the config of `{guard}` ({yaml:?}): {e}"))?;
    Hooks::builder()
        .config(config)
        .build()
        .map_err(|e| format!("the registry of `{guard}`: {e}"))
}

/// Caught when the chain blocked, or handed on something other than `before` (masked,
/// rewritten).
fn decision<T: PartialEq>(flow: Flow<T>, before: &T) -> Decision {
    match flow {
        Flow::Blocked(b) => Decision {
            caught: true,
            reason: Some(b.reason),
        },
        Flow::Continue(after) => Decision {
            caught: after != *before,
            reason: None,
        },
    }
}

/// The project directory every session is given (see the module docs).
static PROJECT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// Makes the default project: a git checkout on a working branch, as far as the guards read it.
fn default_project() -> Result<std::path::PathBuf, String> {
    let dir = std::env::current_dir()
        .map_err(|e| format!("the current directory: {e}"))?
        .join("target/guard-suites/project");
    let git = dir.join(".git");
    std::fs::create_dir_all(git.join("refs/heads"))
        .and_then(|()| std::fs::write(git.join("HEAD"), "ref: refs/heads/work\n"))
        .map_err(|e| format!("{}: {e} (name a project with --project DIR)", dir.display()))?;
    Ok(dir)
}

/// The file a case's text is in: the name its note gives (`(file x.yaml)`, for a suite's rule that
/// applies to one kind of file), else `notes.txt`.
fn file_of(case: &Case) -> &str {
    case.note
        .split_once("(file ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map_or("notes.txt", |(name, _)| name)
}

fn decide(hooks: &Hooks, channel: Channel, case: &Case) -> Decision {
    let input = case.input.as_str();
    let file = file_of(case);
    let session = hooks.session("guard-suites");
    if let Some(dir) = PROJECT.get() {
        session.set_project_dir(dir);
    }
    let turn = session.begin_turn();
    let decision = match channel {
        Channel::Command => {
            let call = ToolCall::new("Bash", json!({ "command": input }));
            decision(turn.intercept_tool_call(call.clone()), &call)
        }
        Channel::ToolResult => {
            let call = ToolCall::new("Read", json!({ "file_path": file }));
            let result = ToolResult::new(&call, Ok(Value::String(input.to_owned())));
            decision(turn.transform_tool_result(result.clone()), &result)
        }
        Channel::WriteArgs => {
            let args = json!({ "file_path": file, "content": input });
            let call = ToolCall::new("Write", args);
            decision(turn.intercept_tool_call(call.clone()), &call)
        }
    };
    turn.end(TurnEnd::Normal);
    decision
}

/// The counts of one row: a suite, a guard, a channel.
#[derive(Default)]
struct Row {
    cases: usize,
    to_block: usize,
    to_allow: usize,
    missed: usize,
    wrongly_blocked: usize,
    out: usize,
    policy: usize,
    policy_with_option: usize,
    policy_option_agrees: usize,
}

impl Row {
    /// Adds `other`'s counts to these (the totals of a guard).
    fn add(&mut self, other: &Row) {
        self.cases += other.cases;
        self.to_block += other.to_block;
        self.to_allow += other.to_allow;
        self.missed += other.missed;
        self.wrongly_blocked += other.wrongly_blocked;
        self.out += other.out;
        self.policy += other.policy;
        self.policy_with_option += other.policy_with_option;
        self.policy_option_agrees += other.policy_option_agrees;
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "—".to_owned()
    } else {
        format!("{:.1} %", 100.0 * part as f64 / whole as f64)
    }
}

/// `text` on one line, cut to `max` characters.
fn shown(text: &str, max: usize) -> String {
    let escaped: String = text.escape_debug().collect();
    match escaped.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped,
    }
}

struct Args {
    cases: String,
    scope: Option<String>,
    misses: bool,
    scoped: bool,
    project: Option<std::path::PathBuf>,
}

fn args() -> Result<Args, String> {
    let mut cases = None;
    let mut scope = None;
    let mut misses = false;
    let mut scoped = false;
    let mut project = None;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--scope" => {
                scope = Some(
                    it.next()
                        .ok_or("--scope needs a file: --scope scripts/guard_suites/scope.toml")?,
                )
            }
            "--project" => {
                project = Some(
                    it.next()
                        .ok_or("--project needs a directory: --project ~/src/app")?
                        .into(),
                )
            }
            "--misses" => misses = true,
            "--scoped" => scoped = true,
            flag if flag.starts_with("--") => {
                return Err(format!(
                    "unknown option `{flag}`: the options are --scope FILE, --misses, --scoped and --project DIR"
                ));
            }
            file if cases.is_none() => cases = Some(file.to_owned()),
            extra => return Err(format!("one cases file only; `{extra}` is a second one")),
        }
    }
    let cases = cases.ok_or(
        "name the cases file: guard_suites CASES.jsonl [--scope FILE] [--misses] [--scoped]",
    )?;
    Ok(Args {
        cases,
        scope,
        misses,
        scoped,
        project,
    })
}

fn read_cases(path: &str) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str::<Case>(line).map_err(|e| {
                format!("{path} line {}: {e} (a case is {{\"suite\", \"source\", \"guard\", \"input\", \"expect\": \"block\"|\"allow\"}})", i + 1)
            })
        })
        .collect()
}

fn read_scope(path: &str) -> Result<Scope, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    toml::from_str(&text).map_err(|e| format!("{path}: {e}"))
}

fn main() {
    if let Err(e) = run() {
        eprintln!("guard_suites: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let args = args()?;
    let project = match &args.project {
        Some(dir) => std::path::absolute(dir).map_err(|e| format!("--project: {e}"))?,
        None => default_project()?,
    };
    PROJECT
        .set(project)
        .map_err(|_| "the project directory is set once")?;
    let cases = read_cases(&args.cases)?;
    let scope = match &args.scope {
        Some(path) => read_scope(path)?,
        None => Scope::default(),
    };

    // One registry per guard with its defaults, and one per documented option a policy names.
    let mut defaults: BTreeMap<&str, Hooks> = BTreeMap::new();
    for case in &cases {
        if Channel::of(&case.guard).is_empty() {
            return Err(format!(
                "{}: unknown guard `{}` (destructive-commands or secrets)",
                case.source, case.guard
            ));
        }
        if !defaults.contains_key(case.guard.as_str()) {
            defaults.insert(
                case.guard.as_str(),
                registry(&case.guard, &serde_json::Map::new())?,
            );
        }
    }
    let mut with_option: Vec<Option<Hooks>> = Vec::new();
    for entry in &scope.policy {
        with_option.push(match (&entry.option, &entry.guard) {
            (Some(option), Some(guard)) => {
                let json = serde_json::to_value(option).map_err(|e| e.to_string())?;
                let Value::Object(map) = json else {
                    unreachable!("a TOML table is a JSON object")
                };
                Some(registry(guard, &map)?)
            }
            (Some(_), None) => {
                return Err(format!(
                    "a policy with an `option` names its `guard`: {}",
                    entry.describe()
                ));
            }
            (None, _) => None,
        });
    }

    let mut rows: BTreeMap<(String, String, Channel), Row> = BTreeMap::new();
    let mut misses: Vec<String> = Vec::new();
    let mut policy_disagrees: Vec<String> = Vec::new();
    let mut scoped: Vec<String> = Vec::new();
    let mut used_out = vec![0usize; scope.out.len()];
    let mut used_policy = vec![0usize; scope.policy.len()];
    let started = Instant::now();
    let mut decisions = 0usize;
    for case in &cases {
        let standing = if let Some(i) = scope.out.iter().position(|e| e.matches(case)) {
            used_out[i] += 1;
            Standing::Out
        } else if let Some(i) = scope.policy.iter().position(|e| e.matches(case)) {
            used_policy[i] += 1;
            Standing::Policy(i)
        } else {
            Standing::Counted
        };
        if args.scoped {
            let taken = match standing {
                Standing::Out => "left out",
                Standing::Policy(_) => "policy",
                Standing::Counted => "",
            };
            if !taken.is_empty() {
                scoped.push(format!(
                    "- {taken}, {} {} ({}): `{}`",
                    case.suite,
                    case.source,
                    format!("{:?}", case.expect).to_lowercase(),
                    shown(&case.input, 120)
                ));
            }
        }
        for &channel in Channel::of(&case.guard) {
            let row = rows
                .entry((case.suite.clone(), case.guard.clone(), channel))
                .or_default();
            row.cases += 1;
            match standing {
                Standing::Out => row.out += 1,
                Standing::Policy(index) => {
                    row.policy += 1;
                    if let Some(hooks) = &with_option[index] {
                        row.policy_with_option += 1;
                        decisions += 1;
                        let decision = decide(hooks, channel, case);
                        if decision.caught == (case.expect == Expect::Block) {
                            row.policy_option_agrees += 1;
                        } else {
                            policy_disagrees.push(format!(
                                "- {} {} ({}), {}: `{}`",
                                case.suite,
                                case.source,
                                channel.label(),
                                if case.expect == Expect::Block {
                                    "not blocked under its option"
                                } else {
                                    "blocked under its option"
                                },
                                shown(&case.input, 160)
                            ));
                        }
                    }
                }
                Standing::Counted => {
                    decisions += 1;
                    let decision = decide(&defaults[case.guard.as_str()], channel, case);
                    match case.expect {
                        Expect::Block => {
                            row.to_block += 1;
                            if !decision.caught {
                                row.missed += 1;
                                misses.push(format!(
                                    "- missed, {} {} ({}): `{}`{}",
                                    case.suite,
                                    case.source,
                                    channel.label(),
                                    shown(&case.input, 160),
                                    if case.note.is_empty() {
                                        String::new()
                                    } else {
                                        format!(" — {}", shown(&case.note, 80))
                                    }
                                ));
                            }
                        }
                        Expect::Allow => {
                            row.to_allow += 1;
                            if decision.caught {
                                row.wrongly_blocked += 1;
                                misses.push(format!(
                                    "- wrongly blocked, {} {} ({}): `{}` — {}",
                                    case.suite,
                                    case.source,
                                    channel.label(),
                                    shown(&case.input, 160),
                                    decision
                                        .reason
                                        .as_deref()
                                        .map_or("masked".to_owned(), |r| shown(r, 160))
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    let elapsed = started.elapsed();

    println!(
        "| suite | guard (as) | cases | counted: to block / to allow | missed | wrongly blocked | left out | policy (decided the suite's way under its documented option) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut totals: BTreeMap<(String, Channel), Row> = BTreeMap::new();
    for ((suite, guard, channel), row) in &rows {
        print_row(suite, guard, *channel, row);
        totals
            .entry((guard.clone(), *channel))
            .or_default()
            .add(row);
    }
    for ((guard, channel), row) in &totals {
        print_row("**all**", guard, *channel, row);
    }
    println!(
        "\n{} cases, {decisions} decisions in {:.0} ms ({:.1} µs a decision, registry and turn included).",
        cases.len(),
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_secs_f64() * 1e6 / decisions.max(1) as f64
    );

    if args.misses {
        if !scope.out.is_empty() || !scope.policy.is_empty() {
            println!("\n## Scope entries and the cases each takes\n");
            for (table, entries, used) in [
                ("out", &scope.out, &used_out),
                ("policy", &scope.policy, &used_policy),
            ] {
                for (entry, n) in entries.iter().zip(used.iter()) {
                    println!("- [[{table}]] {n}: {}", entry.describe());
                }
            }
        }
        println!("\n## Misses and wrong blocks\n");
        for line in &misses {
            println!("{line}");
        }
        if !policy_disagrees.is_empty() {
            println!("\n## Policy cases their documented option does not decide the suite's way\n");
            for line in &policy_disagrees {
                println!("{line}");
            }
        }
    }
    if args.scoped {
        println!("\n## Cases the scope takes\n");
        for line in &scoped {
            println!("{line}");
        }
    }
    let unused: Vec<String> = scope
        .out
        .iter()
        .zip(&used_out)
        .map(|(e, n)| ("out", e, *n))
        .chain(
            scope
                .policy
                .iter()
                .zip(&used_policy)
                .map(|(e, n)| ("policy", e, *n)),
        )
        .filter(|(_, _, n)| *n == 0)
        .map(|(table, e, _)| format!("  [[{table}]] {}", e.describe()))
        .collect();
    if !unused.is_empty() {
        eprintln!("scope entries that match no case ({}):", unused.len());
        for line in unused {
            eprintln!("{line}");
        }
    }
    Ok(())
}

fn print_row(suite: &str, guard: &str, channel: Channel, row: &Row) {
    let policy = if row.policy_with_option > 0 {
        format!(
            "{} ({} of {})",
            row.policy, row.policy_option_agrees, row.policy_with_option
        )
    } else {
        row.policy.to_string()
    };
    println!(
        "| {suite} | {guard} ({}) | {} | {} / {} | {} ({}) | {} ({}) | {} | {policy} |",
        channel.label(),
        row.cases,
        row.to_block,
        row.to_allow,
        row.missed,
        percent(row.missed, row.to_block),
        row.wrongly_blocked,
        percent(row.wrongly_blocked, row.to_allow),
        row.out,
    );
}
