//! External hooks in one chain with compiled-in ones, through the facade.
//!
//! - A mixed chain on `intercept_tool_call`: a `#[register_hook]` Rust hook at priority 5, a bash
//!   script at priority 10 (`tests/fixtures/external/add_flag.sh`, answering in Claude Code's
//!   dialect) and a Rust hook at priority 20, each adding a flag to the command. Each sees the
//!   rewrite of the one before it; the caller gets the last one and all three names in order —
//!   with the script added in code and with the script read from a `hookchain.yaml`.
//! - A script that hangs past its 1 s time limit (`hang.sh`, with a grandchild holding its
//!   stdout): under `on_error: block` the call is blocked within the bound, under `warn` it goes
//!   on with a warning naming the hook; either way no process of it is left.
//!
//! No network; the temporary directories are removed when each test ends.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookchain::config::Config;
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::external::{
    CommandSpec, ConfigOrigin, Dialect, ExternalHook, Matcher, OnError, Transport,
};
use hookchain::points::InterceptToolCall;
use hookchain::{HookContext, prelude::*};
use hookchain::{HooksBuilder, Outcome};
use tempfile::TempDir;

mod support;
use support::{gone, temp_dir};

/// The tool the mixed-chain hooks act on; the `#[register_hook]` hooks pass on every other tool.
const TOOL: &str = "mixed_shell";

/// The name the script hook is given.
const SCRIPT: &str = "add-flag-script";

/// `call`'s args with `flag` added to its command.
fn with_flag(call: &ToolCall, flag: &str) -> Value {
    json!({"cmd": format!("{} {flag}", call.str_arg("cmd").unwrap_or_default())})
}

/// First in the chain: adds `-a`.
#[register_hook("intercept_tool_call", priority = 5, name = "rust-5")]
fn rust_5(call: &ToolCall) -> HookResult<Value> {
    if call.name != TOOL {
        return HookResult::Pass;
    }
    HookResult::Rewrite(with_flag(call, "-a"))
}

/// Last in the chain: records what it saw, adds `-h`.
#[register_hook("intercept_tool_call", priority = 20, name = "rust-20")]
fn rust_20(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    if call.name != TOOL {
        return HookResult::Pass;
    }
    cx.set_metadata("rust-20 saw", &call.args);
    HookResult::Rewrite(with_flag(call, "-h"))
}

fn fixture(name: &str) -> PathBuf {
    support::fixture(&format!("external/{name}"))
}

/// A command hook on `intercept_tool_call`, added in code.
fn script_hook(name: &str, argv: Vec<String>, priority: i32, on_error: OnError) -> ExternalHook {
    ExternalHook {
        point: "intercept_tool_call",
        event: "PreToolUse".to_owned(),
        name: name.to_owned(),
        transport: Transport::Command(CommandSpec {
            display: argv.join(" "),
            argv,
            env: Default::default(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        }),
        matcher: Matcher::all(),
        timeout: Duration::from_secs(1),
        priority,
        on_error,
        dialect: Dialect::Hookchain,
        required: false,
        origin: ConfigOrigin::Code,
    }
}

/// Fires one `ls` call through a fresh turn of `hooks`.
fn fire_ls(hooks: &Hooks, session: &str) -> Outcome<ToolCall> {
    let turn = hooks.session(session).begin_turn();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new(TOOL, json!({"cmd": "ls"})));
    turn.end(TurnEnd::Normal);
    outcome
}

#[track_caller]
fn assert_rewritten_by_all_three(outcome: &Outcome<ToolCall>) {
    let call = match &outcome.flow {
        Flow::Continue(call) => call,
        Flow::Blocked(b) => panic!("blocked by {}: {}", b.hook, b.reason),
    };
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    // The script saw `ls -a` (it answered `ls -a -l`), and rust-20 saw the script's answer.
    assert_eq!(
        outcome.metadata.get("rust-20 saw"),
        Some(&json!({"cmd": "ls -a -l"}))
    );
    assert_eq!(call.args, json!({"cmd": "ls -a -l -h"}));
    assert_eq!(outcome.rewritten_by, ["rust-5", SCRIPT, "rust-20"]);
}

#[test]
fn a_rewrite_flows_through_a_rust_hook_a_script_and_a_rust_hook() {
    let script = script_hook(
        SCRIPT,
        vec![fixture("add_flag.sh").display().to_string()],
        10,
        OnError::Block,
    );
    let hooks = HooksBuilder::new()
        .collected()
        .external(script)
        .build()
        .unwrap();
    let chain: Vec<(&str, i32)> = hooks
        .chain_of("intercept_tool_call")
        .iter()
        .map(|h| (&*h.name, h.priority))
        .collect();
    assert_eq!(chain, [("rust-5", 5), (SCRIPT, 10), ("rust-20", 20)]);
    assert_rewritten_by_all_three(&fire_ls(&hooks, "mixed-in-code"));
}

#[test]
fn the_same_chain_from_a_hookchain_yaml() {
    // The command is found from the file's directory, the fixtures'; the file itself need not
    // exist, only its name is used.
    let config = Config::from_yaml_str(
        &format!(
            "hooks:\n  PreToolUse:\n    - name: {SCRIPT}\n      command: ./add_flag.sh\n      \
             matcher: {TOOL}\n      priority: 10\n      timeout: 1\n      on_error: block\n"
        ),
        &fixture("hookchain.yaml").display().to_string(),
    )
    .unwrap();
    let hooks = HooksBuilder::new()
        .collected()
        .config(config)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build()
        .unwrap();
    assert_eq!(hooks.consent_report().admitted.len(), 1);
    assert_rewritten_by_all_three(&fire_ls(&hooks, "mixed-from-yaml"));
}

// ---------------------------------------------------------------------------------------------
// A script that hangs.

/// Asserts that the script and its grandchild, whose pids it wrote to `pids`, are gone (killing
/// and reaping take the kernel a moment).
#[track_caller]
fn assert_no_process_left(pids: &Path) {
    let text = std::fs::read_to_string(pids).expect("the script wrote its pids");
    let pids: Vec<u32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{text:?}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pids.iter().all(|&pid| gone(pid)) {
        assert!(
            Instant::now() < deadline,
            "processes left behind: {:?}",
            pids.iter().filter(|&&p| !gone(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A registry with `hang.sh` (1 s time limit) on `intercept_tool_call`, and where its pids go.
fn hanging(on_error: OnError, dir: &TempDir) -> (Hooks, PathBuf) {
    let pids = dir.path().join("pids");
    let argv = vec![
        fixture("hang.sh").display().to_string(),
        pids.display().to_string(),
    ];
    let hooks = HooksBuilder::new()
        .external(script_hook("hanging-guard", argv, 10, on_error))
        .build()
        .unwrap();
    (hooks, pids)
}

/// The time limit, and how long past it a firing may take to end.
const LIMIT: Duration = Duration::from_secs(1);
const SLACK: Duration = Duration::from_secs(2);

#[test]
fn a_hanging_script_under_on_error_block_blocks_within_its_time_limit() {
    let dir = temp_dir();
    let (hooks, pids) = hanging(OnError::Block, &dir);
    let turn = hooks.session("hang-block").begin_turn();
    let started = Instant::now();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("shell", json!({"cmd": "ls"})));
    let took = started.elapsed();
    turn.end(TurnEnd::Blocked);

    assert!(took >= LIMIT, "ended after {took:?}, before its time limit");
    assert!(took < LIMIT + SLACK, "took {took:?}");
    let blocked = outcome
        .flow
        .blocked()
        .expect("a hook that times out blocks");
    assert_eq!(blocked.hook, "hanging-guard");
    assert!(
        blocked.reason.contains("hanging-guard") && blocked.reason.contains("timed out"),
        "{}",
        blocked.reason
    );
    assert_no_process_left(&pids);
}

#[test]
fn a_hanging_script_under_on_error_warn_goes_on_with_a_warning_naming_it() {
    let dir = temp_dir();
    let (hooks, pids) = hanging(OnError::Warn, &dir);
    let turn = hooks.session("hang-warn").begin_turn();
    let started = Instant::now();
    let outcome = turn.fire::<InterceptToolCall>(ToolCall::new("shell", json!({"cmd": "ls"})));
    let took = started.elapsed();

    assert!(took < LIMIT + SLACK, "took {took:?}");
    let call = outcome
        .flow
        .continued()
        .expect("a `warn` hook does not block");
    assert_eq!(call.args, json!({"cmd": "ls"}));
    let warnings = turn.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("hanging-guard") && warnings[0].contains("timed out"),
        "{}",
        warnings[0]
    );
    turn.end(TurnEnd::Normal);
    assert_no_process_left(&pids);
}
