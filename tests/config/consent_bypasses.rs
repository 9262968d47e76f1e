//! Ways around consent and around the user's own config, one test each: every one asserts that
//! the hook does not run code nobody approved, or that the guard the user (or the agent's code)
//! turned on stays on.
//!
//! # Index: every bypass, and the test that covers it
//!
//! | bypass | test |
//! |---|---|
//! | an approved script edited after the registry is built | `tests/config/consent.rs`: `a_script_edited_after_the_registry_is_built_does_not_run` |
//! | `sh -o errexit x.sh` | here: `wrapped_scripts_are_pinned` |
//! | `python3 -W ignore x.py` | here: `wrapped_scripts_are_pinned` |
//! | `python3 -X utf8 x.py` | here: `wrapped_scripts_are_pinned` |
//! | `env python3 x.py` | here: `wrapped_scripts_are_pinned` |
//! | `nice sh x.sh`, `nice -n 5 sh x.sh` | here: `wrapped_scripts_are_pinned` |
//! | `timeout 5 sh x.sh` | here: `wrapped_scripts_are_pinned` |
//! | `sh -c 'cd "$CLAUDE_PROJECT_DIR" && ./x.sh'` | here: `wrapped_scripts_are_pinned` |
//! | `cat \| ./x.sh` (a shell line) | here: `wrapped_scripts_are_pinned` |
//! | `env` `BASH_ENV`, `LD_PRELOAD` added to an approved hook; `working_dir` changed | `tests/config/consent.rs`: `env_working_dir_and_headers_are_part_of_the_approval` |
//! | `env` `PATH` added to an approved hook | here: `a_path_added_to_an_approved_hook_does_not_run` |
//! | HTTP `headers` with `$SECRET` added to an approved hook | `tests/config/consent.rs`: `env_working_dir_and_headers_are_part_of_the_approval` |
//! | a project's `hooks_auto_accept: true`, through `Config::load` and discovery | `tests/config/external_config.rs`: `a_project_file_cannot_approve_its_own_hooks`; here, through consent: `a_projects_auto_accept_runs_nothing` |
//! | a project's `hooks_auto_accept: true`, through `Config::from_yaml_str` | `tests/config/external_config.rs`: `a_project_file_cannot_approve_its_own_hooks`; here, through consent: `a_projects_auto_accept_runs_nothing` |
//! | approvals written at once by 8 threads (all 8 kept) | `tests/config/consent.rs`: `concurrent_approvals_are_all_kept` |
//! | an allowlist that does not parse (`Consent::load`) | `tests/config/consent.rs`: `an_allowlist_that_does_not_parse_is_an_error_not_an_empty_list` |
//! | a truncated or unreadable allowlist, through `init` (a strict `build` with the default allowlist fails on it: `hooks-config/src/registry.rs`, `apply`) | here: `a_broken_allowlist_is_an_error_of_init` |
//! | a project's `extensions: {external: {enabled: false}}` over the user's approved hooks | here: `a_project_file_cannot_switch_off_the_users_hooks` |
//! | a project's `enabled: false` for a compiled-in guard's extension | here: `a_project_file_cannot_switch_off_a_compiled_in_guard` |
//! | a project's `enabled: false` for the stand-ins of `require_hook` | here: `a_project_file_cannot_switch_off_a_required_stand_in` |
//! | a project's key emptying a list the user's file set | here: `a_project_file_cannot_empty_the_users_settings` |
//! | a project's key that does not fit, wiping the user's section in a lenient build | here: `a_project_key_that_does_not_fit_keeps_the_users_settings` |
//! | a project's `hooks_auto_accept: false` over the user's `true` | here: `a_project_file_cannot_switch_off_the_users_auto_accept` |
//! | `hookchain list` / `test` with a project's `enabled: false` | `tests/cli.rs`: `a_project_file_cannot_switch_off_a_guard_in_the_cli` |

use std::path::Path;
use std::sync::{Arc, Mutex};

use hookchain::config::{Config, ConfigBuilderExt, Init};
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::points::{InterceptToolCall, Notification, Notify, ToolCall};
use hookchain::{ConfigError, HookOptions, HooksBuilder};
use hookchain::{HookContext, prelude::*};

use crate::dirs::Dirs;

impl Dirs {
    /// What `init()` would install from these directories, with `builder`'s hooks.
    fn init_with(&self, builder: HooksBuilder) -> (Hooks, hookchain::config::InitReport) {
        let (hooks, report, errors) = Init::new()
            .project_dir(&self.project)
            .home_dir(Some(self.home.clone()))
            .builder(builder)
            .build();
        assert!(errors.is_empty(), "{errors:?}");
        (hooks, report)
    }
}

fn rm_rf() -> ToolCall {
    ToolCall::new("Bash", json!({"command": "rm -rf /"}))
}

/// A compiled-in guard in extension `guard` that blocks every `rm -rf`.
fn compiled_guard() -> HooksBuilder {
    HooksBuilder::new().hook_with(
        InterceptToolCall,
        HookOptions::new("no-rm").extension("guard"),
        |call: &ToolCall, _: &HookContext| {
            if call.args["command"]
                .as_str()
                .unwrap_or("")
                .contains("rm -rf")
            {
                HookResult::<Value>::block("rm -rf is not allowed")
            } else {
                HookResult::Pass
            }
        },
    )
}

/// What every session hears through `notification` when it starts.
fn heard_at_start(builder: HooksBuilder) -> (HooksBuilder, Arc<Mutex<Vec<Notification>>>) {
    let heard: Arc<Mutex<Vec<Notification>>> = Arc::default();
    let seen = Arc::clone(&heard);
    let builder = builder.hook(Notify, 0, move |n: &Notification, _: &HookContext| {
        seen.lock().unwrap().push(n.clone());
    });
    (builder, heard)
}

/// The refusal of the project's `enabled: false` at `line`, as the user reads it.
fn assert_refused(message: &str, dirs: &Dirs, line: usize, extension: &str) {
    let start = format!(
        "{}:{line}: `enabled: false` of extension `{extension}` is refused (",
        dirs.project_file().display()
    );
    assert!(message.starts_with(&start), "{message}\nexpected: {start}");
    assert!(
        message.ends_with(
            "a project's file may add hooks and settings, never switch off what the user's own \
             file or the agent's code turns on; to switch it off, write it in \
             ~/.config/hookchain/hookchain.yaml"
        ),
        "{message}"
    );
}

/// The user's approved guard keeps running when a project's file says
/// `extensions: {external: {enabled: false}}`, and every session hears what was refused.
#[test]
fn a_project_file_cannot_switch_off_the_users_hooks() {
    let dirs = Dirs::new();
    let block = dirs.script("block.sh", "cat >/dev/null\necho 'no rm' >&2\nexit 2");
    dirs.write(
        &format!(
            "hooks:\n  PreToolUse:\n    - command: {}\n      name: no-rm\n",
            block.display()
        ),
        "extensions:\n  external:\n    enabled: false\n",
    );
    // The user approved the guard.
    let config = Config::discover_from(&dirs.project, Some(&dirs.home)).unwrap();
    Consent::load(dirs.allowlist())
        .unwrap()
        .approve(&config.external_hooks()[0])
        .unwrap();

    let (builder, heard) = heard_at_start(HooksBuilder::new());
    let (hooks, report) = dirs.init_with(builder);
    assert!(hooks.extension("external").unwrap().is_enabled());
    let turn = hooks.session("external").begin_turn();
    assert!(turn.intercept_tool_call(rm_rf()).is_blocked());
    turn.end(TurnEnd::Normal);

    let refusals = hooks.refusals();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert_refused(&refusals[0], &dirs, 3, "external");
    assert!(
        refusals[0].contains(&format!(
            "(its hooks include `no-rm` ({}:",
            dirs.user_file().display()
        )),
        "{}",
        refusals[0]
    );
    assert!(report.warnings.contains(&refusals[0]), "{report}");
    let heard = heard.lock().unwrap();
    assert!(heard.iter().any(|n| n.message == refusals[0]), "{heard:?}");
}

/// A compiled-in guard stays on whatever a project's file says of its extension; it is listed as
/// enabled, and every session hears what was refused.
#[test]
fn a_project_file_cannot_switch_off_a_compiled_in_guard() {
    let dirs = Dirs::new();
    dirs.write("", "extensions:\n  guard:\n    enabled: false\n");
    let (builder, heard) = heard_at_start(compiled_guard());
    let (hooks, report) = dirs.init_with(builder);
    assert!(hooks.extension("guard").unwrap().is_enabled());
    assert!(!hooks.describe().to_string().contains("disabled"));
    let session = hooks.session("compiled");
    let turn = session.begin_turn();
    assert!(turn.intercept_tool_call(rm_rf()).is_blocked());
    turn.end(TurnEnd::Normal);
    let refusals = hooks.refusals();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert_refused(&refusals[0], &dirs, 3, "guard");
    assert!(
        refusals[0].contains("(its hooks include `no-rm` ("),
        "{}",
        refusals[0]
    );
    assert_eq!(report.warnings, refusals);
    assert!(
        heard
            .lock()
            .unwrap()
            .iter()
            .any(|n| n.message == refusals[0])
    );

    // The same line in the user's own file switches it off, and says who did.
    dirs.write("extensions:\n  guard:\n    enabled: false\n", "");
    let (hooks, _) = dirs.init_with(compiled_guard());
    assert!(!hooks.extension("guard").unwrap().is_enabled());
    assert!(hooks.refusals().is_empty());
    let turn = hooks.session("compiled-user").begin_turn();
    assert!(!turn.intercept_tool_call(rm_rf()).is_blocked());
    turn.end(TurnEnd::Normal);
    let listed = hooks.describe().to_string();
    assert!(
        listed.contains(&format!(
            "guard (1 hook, disabled by {}:3)",
            dirs.user_file().display()
        )),
        "{listed}"
    );
}

/// A project's file may switch off what it added itself: its own hooks, when no other file's or
/// the agent's share their extension.
#[test]
fn a_project_file_may_switch_off_its_own_hooks() {
    let dirs = Dirs::new();
    let block = dirs.script("block.sh", "cat >/dev/null\nexit 2");
    dirs.write(
        "",
        &format!(
            "hooks:\n  PreToolUse:\n    - command: {}\n      name: mine\nextensions:\n  \
             external:\n    enabled: false\n",
            block.display()
        ),
    );
    let config = Config::discover_from(&dirs.project, Some(&dirs.home)).unwrap();
    let hooks = HooksBuilder::new()
        .config(config)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build()
        .unwrap();
    assert!(hooks.refusals().is_empty(), "{:?}", hooks.refusals());
    let external = hooks.extension("external").unwrap();
    assert!(!external.is_enabled());
    assert_eq!(
        external.disabled_by().as_deref(),
        Some(format!("{}:7", dirs.project_file().display()).as_str())
    );
    assert!(!hooks.dispatch::<InterceptToolCall>(rm_rf()).is_blocked());
}

/// The stand-in `require_hook` puts for a missing guard keeps blocking whatever a project's file
/// says of its extension.
#[test]
fn a_project_file_cannot_switch_off_a_required_stand_in() {
    let dirs = Dirs::new();
    dirs.write("", "extensions:\n  required:\n    enabled: false\n");
    let (hooks, _) = dirs.init_with(HooksBuilder::new().require_hook(InterceptToolCall, "no-rm"));
    let turn = hooks.session("stand-in").begin_turn();
    assert!(turn.intercept_tool_call(rm_rf()).is_blocked());
    turn.end(TurnEnd::Normal);
    assert_refused(&hooks.refusals()[0], &dirs, 3, "required");
}

#[derive(serde::Deserialize)]
struct Blocked {
    blocked_tools: Vec<String>,
}

/// A compiled-in guard that blocks the tools its section lists.
fn listing_guard() -> HooksBuilder {
    HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("tools").extension("guard"),
            |call: &ToolCall, cx: &HookContext| -> Result<HookResult<Value>, ConfigError> {
                let config = cx.config::<Blocked>()?;
                Ok(if config.blocked_tools.contains(&call.name) {
                    HookResult::block(format!("`{}` is blocked", call.name))
                } else {
                    HookResult::Pass
                })
            },
        )
        .config_type::<Blocked>("guard")
}

/// A project's file cannot empty a list the user's file set: the user's list stays, and the
/// refusal names the project's file and line.
#[test]
fn a_project_file_cannot_empty_the_users_settings() {
    let dirs = Dirs::new();
    dirs.write(
        "extensions:\n  guard:\n    blocked_tools: [Bash]\n",
        "extensions:\n  guard:\n    blocked_tools: []\n",
    );
    let (hooks, report) = dirs.init_with(listing_guard());
    assert!(hooks.dispatch::<InterceptToolCall>(rm_rf()).is_blocked());
    assert_eq!(report.warnings.len(), 1, "{report}");
    let start = format!(
        "{}:3: `blocked_tools: []` of extension `guard` is refused (`blocked_tools` is \
         [\"Bash\"] in {}:3): ",
        dirs.project_file().display(),
        dirs.user_file().display()
    );
    assert!(
        report.warnings[0].starts_with(&start),
        "{}",
        report.warnings[0]
    );
    assert_eq!(hooks.notices().len(), 1);
    // It may still configure what the user's file left unset, or set it to something else.
    dirs.write(
        "extensions:\n  guard:\n    blocked_tools: [Bash]\n",
        "extensions:\n  guard:\n    blocked_tools: [Write]\n",
    );
    let (hooks, report) = dirs.init_with(listing_guard());
    assert!(report.warnings.is_empty(), "{report}");
    assert!(!hooks.dispatch::<InterceptToolCall>(rm_rf()).is_blocked());
}

/// A project's key that does not fit the guard's config type does not cost the guard the user's
/// settings: in a lenient build (what `init` does) the guard runs with the user's section.
#[test]
fn a_project_key_that_does_not_fit_keeps_the_users_settings() {
    let dirs = Dirs::new();
    dirs.write(
        "extensions:\n  guard:\n    blocked_tools: [Bash]\n",
        "extensions:\n  guard:\n    blocked_tools: 3\n",
    );
    let (hooks, report, errors) = Init::new()
        .project_dir(&dirs.project)
        .home_dir(Some(dirs.home.clone()))
        .builder(listing_guard())
        .build();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(hooks.dispatch::<InterceptToolCall>(rm_rf()).is_blocked());
    assert!(
        report.warnings.iter().any(|w| w.contains(&format!(
            "the settings {} wrote for extension `guard` are left out",
            dirs.project_file().display()
        ))),
        "{report}"
    );
}

/// A project's `hooks_auto_accept: false` does not switch off the user's `true` (a project's
/// file has no say in `hooks_auto_accept` at all).
#[test]
fn a_project_file_cannot_switch_off_the_users_auto_accept() {
    let dirs = Dirs::new();
    dirs.write("hooks_auto_accept: true\n", "hooks_auto_accept: false\n");
    let config = Config::discover_from(&dirs.project, Some(&dirs.home)).unwrap();
    assert!(config.accepts_hooks());
}

/// A hook whose command wraps its script — an interpreter's options, `env`, `nice`, `timeout`,
/// a shell line that changes directory or pipes into it — is pinned to that script: once it is
/// edited after approval, the hook is drifted and does not run.
#[test]
fn wrapped_scripts_are_pinned() {
    let dirs = Dirs::new();
    let marker = dirs.root.join("ran");
    let body = format!("echo edited >> {}\nexit 0", marker.display());
    let python = format!(
        "open({:?}, 'a').write('edited')\n",
        marker.display().to_string()
    );
    dirs.script("x.sh", "exit 0");
    dirs.script("x.py", "exit 0");
    let root = dirs.root.display().to_string();
    let native = |command: &str| {
        format!(
            "hooks:\n  PreToolUse:\n    - command: {command}\n      working_dir: {root}\n      \
             env: {{CLAUDE_PROJECT_DIR: {root}}}\n"
        )
    };
    let lines = [
        native("sh -o errexit x.sh"),
        native("python3 -W ignore x.py"),
        native("python3 -X utf8 x.py"),
        native("env python3 x.py"),
        native("nice sh x.sh"),
        native("nice -n 5 sh x.sh"),
        native("timeout 5 sh x.sh"),
        native("[sh, -c, 'cd \"$CLAUDE_PROJECT_DIR\" && ./x.sh']"),
        native("[sh, -c, 'cat | ./x.sh']"),
    ];
    let mut ran = Vec::new();
    for yaml in &lines {
        let _ = std::fs::remove_file(&marker);
        std::fs::write(dirs.root.join("x.sh"), "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::write(dirs.root.join("x.py"), "pass\n").unwrap();
        let file = dirs.root.join("hookchain.yaml").display().to_string();
        let config = Config::from_yaml_str(yaml, &file).unwrap();
        let mut consent = Consent::in_memory();
        consent.approve(&config.external_hooks()[0]).unwrap();
        // Edited after approval.
        std::fs::write(dirs.root.join("x.sh"), format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::write(dirs.root.join("x.py"), &python).unwrap();
        let hooks = HooksBuilder::new()
            .config(config)
            .consent(consent, ConsentPolicy::new())
            .build()
            .unwrap();
        let _ = hooks.dispatch::<InterceptToolCall>(rm_rf());
        if marker.exists() {
            ran.push(yaml.lines().nth(2).unwrap_or_default().trim().to_owned());
        }
    }
    assert!(ran.is_empty(), "the edited script ran: {ran:#?}");
}

/// A `PATH` added to an approved hook's `env` (which would make it run another program under the
/// same name) makes it drifted: it does not run.
#[test]
fn a_path_added_to_an_approved_hook_does_not_run() {
    let dirs = Dirs::new();
    let marker = dirs.root.join("ran");
    std::fs::create_dir_all(dirs.root.join("evil")).unwrap();
    dirs.script("evil/helper", &format!("echo evil >> {}", marker.display()));
    dirs.script("guard.sh", "cat >/dev/null\nhelper 2>/dev/null\nexit 0");
    let file = dirs.root.join("hookchain.yaml").display().to_string();
    let yaml = |env: &str| {
        format!("hooks:\n  PreToolUse:\n    - command: ./guard.sh\n      name: guard\n{env}")
    };
    let plain = Config::from_yaml_str(&yaml(""), &file).unwrap();
    let mut consent = Consent::in_memory();
    consent.approve(&plain.external_hooks()[0]).unwrap();
    let evil_path = format!(
        "      env: {{PATH: \"{}:/usr/bin:/bin\"}}\n",
        dirs.root.join("evil").display()
    );
    let changed = Config::from_yaml_str(&yaml(&evil_path), &file).unwrap();
    let hooks = HooksBuilder::new()
        .config(changed)
        .consent(consent, ConsentPolicy::new())
        .build()
        .unwrap();
    assert_eq!(hooks.consent_report().skipped.len(), 1);
    let _ = hooks.dispatch::<InterceptToolCall>(rm_rf());
    assert!(!marker.exists(), "the hook ran with the new PATH");
}

/// An allowlist that is cut off, or cannot be read at all, is an error `init` returns — never an
/// empty list that quietly leaves the user's approved guards out.
#[test]
fn a_broken_allowlist_is_an_error_of_init() {
    let dirs = Dirs::new();
    let block = dirs.script("block.sh", "cat >/dev/null\nexit 2");
    dirs.write(
        &format!(
            "hooks:\n  PreToolUse:\n    - command: {}\n      name: no-rm\n",
            block.display()
        ),
        "",
    );
    let allowlist = dirs.allowlist();
    for (broken, make) in [
        (
            "truncated",
            Box::new(|p: &Path| std::fs::write(p, "{\"version\": 1, \"hooks\": [{\"ev").unwrap())
                as Box<dyn Fn(&Path)>,
        ),
        (
            "unreadable",
            Box::new(|p: &Path| std::fs::create_dir_all(p).unwrap()),
        ),
    ] {
        let _ = std::fs::remove_file(&allowlist);
        let _ = std::fs::remove_dir_all(&allowlist);
        make(&allowlist);
        let (hooks, report, errors) = Init::new()
            .project_dir(&dirs.project)
            .home_dir(Some(dirs.home.clone()))
            .builder(HooksBuilder::new())
            .build();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains(&allowlist.display().to_string())),
            "{broken}: {messages:?}"
        );
        // The guard is not run unapproved, and is reported, not dropped in silence.
        assert_eq!(report.consent.skipped.len(), 1, "{broken}: {report}");
        assert!(!hooks.notices().is_empty(), "{broken}");
        assert!(Consent::load(&allowlist).is_err(), "{broken}");
    }
}
