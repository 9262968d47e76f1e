//! Consent: configured hooks run only once approved, and only while their script is the one
//! approved. Every test keeps its allowlist and scripts in a directory of its own under the
//! system's temp directory, never in the real home directory.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use hookchain::config::Config;
use hookchain::consent::{
    ACCEPT_HOOKS_ENV, AcceptedBy, Consent, ConsentError, ConsentPolicy, ConsentStatus, Prompt,
    TerminalPrompt, admit,
};
use hookchain::external::ExternalHook;
use tempfile::TempDir;

use crate::support::{make_executable, temp_dir};

/// A directory of its own for one test, removed when the test ends.
struct Scratch(TempDir);

impl Scratch {
    fn new() -> Scratch {
        Scratch(temp_dir())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    /// Writes an executable script.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        make_executable(&path);
        path
    }

    /// The hooks of a `hookchain.yaml` in this directory.
    fn hooks(&self, yaml: &str) -> Vec<ExternalHook> {
        let file = self.path("hookchain.yaml").display().to_string();
        Config::from_yaml_str(yaml, &file)
            .unwrap()
            .external_hooks()
            .to_vec()
    }

    fn allowlist(&self) -> PathBuf {
        self.path("state/approved-hooks.json")
    }
}

const GUARD: &str = "hooks:\n  PreToolUse:\n    - command: ./guard.sh\n      matcher: Bash\n";

fn names(hooks: &[ExternalHook]) -> Vec<&str> {
    hooks.iter().map(|h| h.name.as_str()).collect()
}

#[test]
fn a_hook_runs_once_approved_and_stops_when_its_script_changes() {
    let dir = Scratch::new();
    let script = dir.script("guard.sh", "exit 0");
    let hooks = dir.hooks(GUARD);
    let hook = &hooks[0];
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    assert!(consent.approvals().is_empty());

    // New: not run, skipped with a warning naming it, its file and line.
    assert_eq!(consent.status(hook), ConsentStatus::New);
    let (admitted, report) = admit(hooks.clone(), &mut consent, &mut ConsentPolicy::new());
    assert!(admitted.is_empty());
    assert!(report.admitted.is_empty());
    let skipped = &report.skipped[0];
    assert_eq!(skipped.name, hook.name);
    assert_eq!(skipped.point, "intercept_tool_call");
    assert_eq!(skipped.status, ConsentStatus::New);
    let file = dir.path("hookchain.yaml").display().to_string();
    assert_eq!(
        skipped.to_string(),
        format!(
            "hook `{file}#01` (command `./guard.sh` on intercept_tool_call, {file} line 3) is \
             skipped: new: never approved; approve it with `hookchain approve`, --accept-hooks or \
             HOOKCHAIN_ACCEPT_HOOKS=1"
        )
    );

    // Approved: it runs, and the approval is in the file.
    consent.approve(hook).unwrap();
    assert_eq!(consent.status(hook), ConsentStatus::Approved);
    let (admitted, report) = admit(hooks.clone(), &mut consent, &mut ConsentPolicy::new());
    assert_eq!(names(&admitted), [hook.name.as_str()]);
    assert_eq!(report.admitted[0].accepted_by, AcceptedBy::Allowlist);
    assert!(report.skipped.is_empty());
    let reloaded = Consent::load(dir.allowlist()).unwrap();
    assert_eq!(reloaded.status(hook), ConsentStatus::Approved);
    let approval = &reloaded.approvals()[0];
    assert_eq!(approval.event, "intercept_tool_call");
    assert_eq!(approval.kind, "command");
    assert_eq!(approval.command, "./guard.sh");
    assert_eq!(approval.script.as_deref(), Some(script.as_path()));
    let approved_hash = approval.sha256.clone().unwrap();
    assert_eq!(approved_hash.len(), 64);

    // The script is edited: the drift is reported and the hook does not run.
    std::fs::write(&script, "#!/bin/sh\nexit 2\n").unwrap();
    let ConsentStatus::Drifted { old, new } = consent.status(hook) else {
        panic!("{:?}", consent.status(hook))
    };
    assert_eq!(old, approved_hash);
    assert_ne!(new, old);
    let (admitted, report) = admit(hooks.clone(), &mut consent, &mut ConsentPolicy::new());
    assert!(admitted.is_empty());
    let warning = report.skipped[0].to_string();
    assert!(
        warning.contains(&format!(
            "is skipped: its script changed since it was approved (sha256 {} → {})",
            &old[..12],
            &new[..12]
        )),
        "{warning}"
    );

    // Approved again: it runs.
    consent.approve(hook).unwrap();
    assert_eq!(consent.status(hook), ConsentStatus::Approved);
    assert_eq!(
        consent.approvals().len(),
        1,
        "the new approval replaces the old"
    );
    let (admitted, _) = admit(hooks.clone(), &mut consent, &mut ConsentPolicy::new());
    assert_eq!(admitted.len(), 1);

    // Revoked: new again.
    assert!(consent.revoke(hook).unwrap());
    assert_eq!(consent.status(hook), ConsentStatus::New);
    assert!(!consent.revoke(hook).unwrap());
    assert!(
        Consent::load(dir.allowlist())
            .unwrap()
            .approvals()
            .is_empty()
    );
}

#[test]
fn the_environment_approves_and_remembers() {
    let dir = Scratch::new();
    dir.script("guard.sh", "exit 0");
    let hooks = dir.hooks(GUARD);
    let mut consent = Consent::load(dir.allowlist()).unwrap();

    let env = |value: &'static str| {
        move |name: &str| (name == ACCEPT_HOOKS_ENV).then(|| value.to_owned())
    };
    for refused in ["0", "", "no"] {
        let (admitted, _) = admit(
            hooks.clone(),
            &mut consent,
            &mut ConsentPolicy::from_lookup(env(refused)),
        );
        assert!(admitted.is_empty(), "{ACCEPT_HOOKS_ENV}={refused}");
    }
    let (admitted, report) = admit(
        hooks.clone(),
        &mut consent,
        &mut ConsentPolicy::from_lookup(env("1")),
    );
    assert_eq!(admitted.len(), 1);
    assert_eq!(report.admitted[0].accepted_by, AcceptedBy::Env);
    assert_eq!(report.admitted[0].was, ConsentStatus::New);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    // Remembered: the next run needs no variable.
    let mut later = Consent::load(dir.allowlist()).unwrap();
    let (admitted, report) = admit(hooks, &mut later, &mut ConsentPolicy::new());
    assert_eq!(admitted.len(), 1);
    assert_eq!(report.admitted[0].accepted_by, AcceptedBy::Allowlist);
    for accepted in ["true", "YES", " 1 "] {
        assert!(
            format!("{:?}", ConsentPolicy::from_lookup(env(accepted))).contains("env: true"),
            "{accepted}"
        );
    }
}

#[test]
fn auto_accept_and_the_accept_flag_approve_new_and_changed_hooks() {
    let dir = Scratch::new();
    let script = dir.script("guard.sh", "exit 0");
    let hooks = dir.hooks(GUARD);
    let mut consent = Consent::load(dir.allowlist()).unwrap();

    let (admitted, report) = admit(
        hooks.clone(),
        &mut consent,
        &mut ConsentPolicy::new().auto_accept(true),
    );
    assert_eq!(admitted.len(), 1);
    assert_eq!(report.admitted[0].accepted_by, AcceptedBy::Config);

    std::fs::write(&script, "#!/bin/sh\nexit 1\n").unwrap();
    let (admitted, report) = admit(
        hooks.clone(),
        &mut consent,
        &mut ConsentPolicy::new().accept_hooks(true),
    );
    assert_eq!(admitted.len(), 1);
    assert_eq!(report.admitted[0].accepted_by, AcceptedBy::AcceptFlag);
    assert!(matches!(
        report.admitted[0].was,
        ConsentStatus::Drifted { .. }
    ));
    assert_eq!(consent.status(&hooks[0]), ConsentStatus::Approved);
}

#[test]
fn the_prompt_is_asked_about_unapproved_hooks_only() {
    let dir = Scratch::new();
    dir.script("guard.sh", "exit 0");
    dir.script("audit.sh", "exit 0");
    let hooks =
        dir.hooks("hooks:\n  PreToolUse:\n    - command: ./guard.sh\n    - command: ./audit.sh\n");
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    consent.approve(&hooks[0]).unwrap();

    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let no = move |hook: &ExternalHook, status: &ConsentStatus| {
        record
            .lock()
            .unwrap()
            .push((hook.name.clone(), status.clone()));
        false
    };
    let (admitted, report) = admit(
        hooks.clone(),
        &mut consent,
        &mut ConsentPolicy::new().prompt(no),
    );
    assert_eq!(names(&admitted), [hooks[0].name.as_str()]);
    assert_eq!(
        *asked.lock().unwrap(),
        [(hooks[1].name.clone(), ConsentStatus::New)]
    );
    assert_eq!(report.skipped[0].name, hooks[1].name);

    let (admitted, report) = admit(
        hooks.clone(),
        &mut consent,
        &mut ConsentPolicy::new().prompt(|_: &ExternalHook, _: &ConsentStatus| true),
    );
    assert_eq!(admitted.len(), 2);
    assert_eq!(report.admitted[1].accepted_by, AcceptedBy::Prompt);
    assert_eq!(consent.status(&hooks[1]), ConsentStatus::Approved);
}

#[test]
fn the_terminal_prompt_shows_the_hook_and_takes_yes_only() {
    let dir = Scratch::new();
    let script = dir.script("guard.sh", "exit 0");
    let hooks = dir.hooks(GUARD);
    let hook = &hooks[0];
    let ask = |input: &str, status: &ConsentStatus| {
        let mut shown = Vec::new();
        let yes = TerminalPrompt::new(input.as_bytes(), &mut shown).ask(hook, status);
        (yes, String::from_utf8(shown).unwrap())
    };
    let (yes, shown) = ask("y\n", &ConsentStatus::New);
    assert!(yes);
    assert!(
        shown.starts_with("hookchain: a new hook wants to run\n"),
        "{shown}"
    );
    assert!(shown.contains(&format!(
        "{} on intercept_tool_call: command `./guard.sh`",
        hook.name
    )));
    assert!(shown.contains(&format!(
        "configured in {} line 3",
        dir.path("hookchain.yaml").display()
    )));
    assert!(shown.contains(&format!("script {}", script.display())));
    assert!(shown.ends_with("Run it, now and from now on? [y/N] "));
    assert!(ask("YES\n", &ConsentStatus::New).0);
    assert!(!ask("n\n", &ConsentStatus::New).0);
    assert!(!ask("", &ConsentStatus::New).0, "end of input is no");
    assert!(!ask("maybe\n", &ConsentStatus::New).0);
    let drift = ConsentStatus::Drifted {
        old: "a".repeat(64),
        new: "b".repeat(64),
    };
    let (_, shown) = ask("y\n", &drift);
    assert!(shown.starts_with("hookchain: the script of an approved hook changed\n"));
    assert!(
        shown.contains("sha256 aaaaaaaaaaaa → bbbbbbbbbbbb"),
        "{shown}"
    );

    // Only the answer's line is read.
    let mut input: &[u8] = b"y\nrest of the input";
    assert!(TerminalPrompt::new(&mut input, std::io::sink()).ask(hook, &ConsentStatus::New));
    assert_eq!(input, b"rest of the input");
}

#[test]
fn the_allowlist_is_written_whole_and_atomically() {
    let dir = Scratch::new();
    dir.script("guard.sh", "exit 0");
    dir.script("audit.sh", "exit 0");
    let hooks = dir.hooks(
        "hooks:\n  PreToolUse:\n    - command: ./guard.sh\n  on_stop:\n    - command: ./audit.sh\n",
    );
    // The directory does not exist yet: it is created.
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    for hook in &hooks {
        consent.approve(hook).unwrap();
        // After every write the file is the whole list, as valid JSON.
        let text = std::fs::read_to_string(dir.allowlist()).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["version"], 1);
        assert_eq!(
            json["hooks"].as_array().unwrap().len(),
            consent.approvals().len()
        );
    }
    let mut leftovers: Vec<String> = std::fs::read_dir(dir.path("state"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    leftovers.sort();
    // The list, and the lock file writers take turns on; no temporary file.
    assert_eq!(
        leftovers,
        [".approved-hooks.json.lock", "approved-hooks.json"],
        "no temporary file is left"
    );

    // Another process's approval, saved meanwhile, is kept by the next write.
    let mut other = Consent::load(dir.allowlist()).unwrap();
    other.revoke(&hooks[0]).unwrap();
    consent.revoke(&hooks[1]).unwrap();
    assert!(
        Consent::load(dir.allowlist())
            .unwrap()
            .approvals()
            .is_empty()
    );
}

#[test]
fn an_allowlist_that_does_not_parse_is_an_error_not_an_empty_list() {
    let dir = Scratch::new();
    std::fs::create_dir_all(dir.path("state")).unwrap();
    std::fs::write(dir.allowlist(), "{\"version\": 1, \"hooks\": [").unwrap();
    let error = Consent::load(dir.allowlist()).unwrap_err();
    assert!(matches!(error, ConsentError::Invalid { .. }), "{error:?}");
    assert!(
        error.to_string().starts_with(&format!(
            "the approved hooks in {} cannot be read: ",
            dir.allowlist().display()
        )),
        "{error}"
    );
    std::fs::write(dir.allowlist(), "{\"version\": 9, \"hooks\": []}").unwrap();
    assert!(
        Consent::load(dir.allowlist())
            .unwrap_err()
            .to_string()
            .contains("format version 9")
    );
}

#[test]
fn an_http_hook_is_approved_by_its_url() {
    let dir = Scratch::new();
    let hooks = dir.hooks("hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/a\n");
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    consent.approve(&hooks[0]).unwrap();
    let approval = &consent.approvals()[0];
    assert_eq!(approval.kind, "http");
    assert_eq!(approval.command, "https://hooks.example.com/a");
    assert_eq!(consent.status(&hooks[0]), ConsentStatus::Approved);
    let other = dir.hooks("hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/b\n");
    assert_eq!(consent.status(&other[0]), ConsentStatus::New);
}

#[test]
fn shell_lines_pin_the_script_they_name() {
    let dir = Scratch::new();
    std::fs::create_dir_all(dir.path(".claude/hooks")).unwrap();
    let script = dir.script(".claude/hooks/check.sh", "exit 0");
    let settings = dir.path(".claude/settings.json");
    let config = Config::from_claude_settings_str(
        "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \
         \"\\\"$CLAUDE_PROJECT_DIR\\\"/.claude/hooks/check.sh --fast\"}]}]}}",
        &settings.display().to_string(),
    )
    .unwrap();
    let hook = &config.external_hooks()[0];
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    consent.approve(hook).unwrap();
    assert_eq!(
        consent.approvals()[0].script.as_deref(),
        Some(script.as_path())
    );
    std::fs::write(&script, "#!/bin/sh\necho changed\n").unwrap();
    assert!(matches!(
        consent.status(hook),
        ConsentStatus::Drifted { .. }
    ));

    // An interpreter's script: its first operand that is a file.
    dir.script("audit.sh", "exit 0");
    let hooks =
        dir.hooks("hooks:\n  PreToolUse:\n    - command: sh -e audit.sh\n      working_dir: .\n");
    consent.approve(&hooks[0]).unwrap();
    assert_eq!(
        consent.approvals()[1].script.as_deref(),
        Some(dir.path("audit.sh").as_path())
    );
    std::fs::write(dir.path("audit.sh"), "exit 3\n").unwrap();
    assert!(matches!(
        consent.status(&hooks[0]),
        ConsentStatus::Drifted { .. }
    ));
}

#[test]
fn an_in_memory_allowlist_writes_nothing() {
    let dir = Scratch::new();
    dir.script("guard.sh", "exit 0");
    let hooks = dir.hooks(GUARD);
    let mut consent = Consent::in_memory();
    assert_eq!(consent.path(), None);
    consent.approve(&hooks[0]).unwrap();
    assert_eq!(consent.status(&hooks[0]), ConsentStatus::Approved);
    assert!(!dir.allowlist().exists());
    assert!(
        Consent::default_path()
            .is_none_or(|p| p.ends_with(".config/hookchain/approved-hooks.json"))
    );
}

/// One approval per script file, however the path to the config (and so to the script) was
/// written: `hookchain --config ../agent/hookchain.yaml approve` from one directory holds for the
/// agent reading `./hookchain.yaml` from its own.
#[test]
fn an_approval_holds_whichever_way_the_path_to_the_script_is_written() {
    let dir = Scratch::new();
    std::fs::create_dir_all(dir.path("agent/hooks")).unwrap();
    std::fs::create_dir_all(dir.path("elsewhere")).unwrap();
    let script = dir.path("agent/hooks/guard.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    make_executable(&script);
    let yaml =
        "hooks:\n  intercept_tool_call:\n    - command: ./hooks/guard.sh\n      name: guard\n";
    let read = |file: PathBuf| {
        Config::from_yaml_str(yaml, &file.display().to_string())
            .unwrap()
            .external_hooks()
            .to_vec()
    };
    // Approved through a path with `..` in it ...
    let roundabout = read(dir.path("elsewhere/../agent/hookchain.yaml"));
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    consent.approve(&roundabout[0]).unwrap();
    // ... and read back through the plain one: the same file, approved.
    let plain = read(dir.path("agent/hookchain.yaml"));
    let consent = Consent::load(dir.allowlist()).unwrap();
    assert_eq!(consent.status(&plain[0]), ConsentStatus::Approved);
}

/// What decides what runs is part of the approval: adding `env` (`BASH_ENV`, `LD_PRELOAD`,
/// `PATH`) or changing `working_dir` to an approved hook makes it drifted, as does adding a
/// header (which may carry a secret) to an approved HTTP hook.
#[test]
fn env_working_dir_and_headers_are_part_of_the_approval() {
    let dir = Scratch::new();
    dir.script("guard.sh", "exit 0");
    std::fs::create_dir_all(dir.path("sub")).unwrap();
    // The same script, byte for byte, in another directory.
    dir.script("sub/guard.sh", "exit 0");
    let plain = dir.hooks("hooks:\n  PreToolUse:\n    - command: ./guard.sh\n");
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    consent.approve(&plain[0]).unwrap();
    assert_eq!(consent.status(&plain[0]), ConsentStatus::Approved);
    for changed in [
        "hooks:\n  PreToolUse:\n    - command: ./guard.sh\n      env: {BASH_ENV: ./evil.sh}\n",
        "hooks:\n  PreToolUse:\n    - command: ./guard.sh\n      env: {LD_PRELOAD: ./evil.so}\n",
        "hooks:\n  PreToolUse:\n    - command: ./guard.sh\n      working_dir: sub\n",
    ] {
        let hooks = dir.hooks(changed);
        assert!(
            matches!(consent.status(&hooks[0]), ConsentStatus::Drifted { .. }),
            "{changed}: {:?}",
            consent.status(&hooks[0])
        );
    }

    let url = "hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/a\n";
    let with_header = "hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/a\n      \
                       headers: {Authorization: Bearer $SECRET}\n";
    let http = dir.hooks(url);
    consent.approve(&http[0]).unwrap();
    assert_eq!(consent.status(&http[0]), ConsentStatus::Approved);
    let http = dir.hooks(with_header);
    assert!(matches!(
        consent.status(&http[0]),
        ConsentStatus::Drifted { .. }
    ));
}

/// Consent is checked again at every firing: a script edited after the registry was built does
/// not run until it is approved again; the firing fails under the hook's policy, naming why.
#[test]
fn a_script_edited_after_the_registry_is_built_does_not_run() {
    use hookchain::HooksBuilder;
    use hookchain::config::ConfigBuilderExt;
    use hookchain::points::{InterceptToolCall, ToolCall};

    let dir = Scratch::new();
    let marker = dir.path("ran");
    let script = dir.script(
        "guard.sh",
        &format!("echo run >> {}; exit 0", marker.display()),
    );
    let file = dir.path("hookchain.yaml").display().to_string();
    let config = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: ./guard.sh\n      name: guard\n      on_error: block\n",
        &file,
    )
    .unwrap();
    let hooks = HooksBuilder::new()
        .config(config)
        .consent(
            Consent::load(dir.allowlist()).unwrap(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build()
        .unwrap();
    let call = || ToolCall::new("Bash", serde_json::json!({"command": "ls"}));
    assert!(!hooks.dispatch::<InterceptToolCall>(call()).is_blocked());
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "run\n");

    // Edited while the agent runs: it does not run, and the guard blocks instead of vanishing.
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho edited >> {}\nexit 0\n", marker.display()),
    )
    .unwrap();
    let outcome = hooks.dispatch::<InterceptToolCall>(call());
    let hookchain::Flow::Blocked(blocked) = &outcome.flow else {
        panic!("an edited guard must block: {outcome:?}");
    };
    assert!(
        blocked.reason.contains("changed since it was approved"),
        "{}",
        blocked.reason
    );
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "run\n",
        "the edited script ran"
    );
}

/// Approvals written at the same time, by threads (or processes) each with its own handle on the
/// allowlist, are all kept: the read-modify-write of the file is done under a lock, and every
/// writer has a temporary file of its own.
#[test]
fn concurrent_approvals_are_all_kept() {
    let dir = Scratch::new();
    let writers = 8;
    let mut hooks = Vec::new();
    for n in 0..writers {
        dir.script(&format!("guard{n}.sh"), "exit 0");
        let yaml =
            format!("hooks:\n  PreToolUse:\n    - command: ./guard{n}.sh\n      name: g{n}\n");
        hooks.push(dir.hooks(&yaml).remove(0));
    }
    let allowlist = dir.allowlist();
    let barrier = Arc::new(std::sync::Barrier::new(writers));
    let threads: Vec<_> = hooks
        .into_iter()
        .map(|hook| {
            let (allowlist, barrier) = (allowlist.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                let mut consent = Consent::load(&allowlist).unwrap();
                barrier.wait();
                consent.approve(&hook).unwrap();
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let consent = Consent::load(&allowlist).unwrap();
    assert_eq!(
        consent.approvals().len(),
        writers,
        "{:?}",
        consent.approvals()
    );
}

/// The config of one `PreToolUse` hook named `push-guard`, its script in `dir`.
fn push_guard(dir: &Scratch) -> Config {
    dir.script("guard.sh", "exit 0");
    let file = dir.path("hookchain.yaml").display().to_string();
    Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: ./guard.sh\n      name: push-guard\n",
        &file,
    )
    .unwrap()
}

/// A configured hook that does not run is never silent: every session hears of it through
/// `notification` when it starts, sync or async, and the notice names the hook and why.
#[test]
fn a_skipped_hook_is_reported_through_notification_at_every_session_start() {
    use hookchain::HooksBuilder;
    use hookchain::config::ConfigBuilderExt;
    use hookchain::points::{Level, Notification, Notify};
    use std::sync::Mutex as StdMutex;

    let dir = Scratch::new();
    let config = push_guard(&dir);
    let heard: Arc<StdMutex<Vec<Notification>>> = Arc::default();
    let seen = Arc::clone(&heard);
    let hooks = HooksBuilder::new()
        .hook(
            Notify,
            0,
            move |n: &Notification, _: &hookchain::HookContext| {
                seen.lock().unwrap().push(n.clone());
            },
        )
        .config(config)
        .consent(Consent::in_memory(), ConsentPolicy::new())
        .build()
        .unwrap();
    let first = hooks.session("one");
    let second = hooks.session("two");
    let heard = heard.lock().unwrap().clone();
    assert_eq!(heard.len(), 2, "{heard:?}");
    for n in &heard {
        assert_eq!(n.level, Level::Warning);
        assert_eq!(n.source.as_deref(), Some("push-guard"));
        assert!(
            n.message.contains("is skipped: new: never approved"),
            "{}",
            n.message
        );
    }
    first.end("done");
    second.end("done");
}

/// A configured guard the agent requires blocks its point when consent skips it, instead of
/// vanishing.
#[test]
fn a_required_configured_hook_that_is_skipped_blocks_its_point() {
    use hookchain::HooksBuilder;
    use hookchain::config::ConfigBuilderExt;
    use hookchain::points::{InterceptToolCall, ToolCall};

    let dir = Scratch::new();
    let config = push_guard(&dir);
    let build = |policy: ConsentPolicy| {
        HooksBuilder::new()
            .require_hook(InterceptToolCall, "push-guard")
            .config(config.clone())
            .consent(Consent::in_memory(), policy)
            .build()
            .unwrap()
    };
    let call = || ToolCall::new("Bash", serde_json::json!({"command": "git push --force"}));
    let skipped = build(ConsentPolicy::new());
    let outcome = skipped.dispatch::<InterceptToolCall>(call());
    assert!(outcome.is_blocked(), "{outcome:?}");
    let approved = build(ConsentPolicy::new().accept_hooks(true));
    assert!(!approved.dispatch::<InterceptToolCall>(call()).is_blocked());
}

/// `push-guard`, marked `required: true`, with `on_error: pass`.
fn required_push_guard(dir: &Scratch) -> (Config, String) {
    dir.script("guard.sh", "cat >/dev/null; exit 0");
    let file = dir.path("hookchain.yaml").display().to_string();
    let config = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: ./guard.sh\n      name: push-guard\n      \
         on_error: pass\n      required: true\n",
        &file,
    )
    .unwrap();
    (config, format!("{file}:3"))
}

fn push_call() -> hookchain::points::ToolCall {
    hookchain::points::ToolCall::new("Bash", serde_json::json!({"command": "git push --force"}))
}

fn blocked_reason(hooks: &hookchain::Hooks) -> Option<String> {
    use hookchain::points::InterceptToolCall;
    hooks
        .dispatch::<InterceptToolCall>(push_call())
        .flow
        .blocked()
        .map(|b| b.reason)
}

/// A configured hook marked `required: true` that consent skips blocks its point, with a reason
/// naming the hook, where it is configured, why and how to approve it; every session hears of
/// it.
#[test]
fn a_required_configured_hook_that_is_not_approved_blocks_naming_it() {
    use hookchain::HooksBuilder;
    use hookchain::config::ConfigBuilderExt;

    let dir = Scratch::new();
    let (config, at) = required_push_guard(&dir);
    assert!(config.external_hooks()[0].required);
    let hooks = HooksBuilder::new()
        .config(config.clone())
        .consent(Consent::in_memory(), ConsentPolicy::new())
        .build()
        .unwrap();
    assert_eq!(
        blocked_reason(&hooks).as_deref(),
        Some(
            format!(
                "required hook `push-guard` ({at}) did not run: not approved — run `hookchain \
                 approve push-guard` (or pass --accept-hooks)"
            )
            .as_str()
        )
    );
    assert_eq!(hooks.notices().len(), 1, "{:?}", hooks.notices());
    assert!(
        hooks.notices()[0]
            .message
            .contains("required hook `push-guard`")
    );
    // Approved, it runs (and passes).
    let hooks = HooksBuilder::new()
        .config(config)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build()
        .unwrap();
    assert_eq!(blocked_reason(&hooks), None);
    assert!(hooks.notices().is_empty());
}

/// A required configured hook whose script changes after approval blocks at its next firing,
/// even with `on_error: pass`; the same hook not required goes on under its `on_error`.
#[test]
fn a_required_configured_hook_that_drifted_blocks_even_with_on_error_pass() {
    use hookchain::HooksBuilder;
    use hookchain::config::ConfigBuilderExt;

    let dir = Scratch::new();
    let (config, at) = required_push_guard(&dir);
    let mut optional = config.external_hooks()[0].clone();
    optional.required = false;
    let build = |config: Config| {
        HooksBuilder::new()
            .config(config)
            .consent(
                Consent::load(dir.allowlist()).unwrap(),
                ConsentPolicy::new().accept_hooks(true),
            )
            .build()
            .unwrap()
    };
    let required = build(config);
    let not_required = build(Config::new().external_hook(optional));
    assert_eq!(blocked_reason(&required), None);
    dir.script("guard.sh", "cat >/dev/null; echo edited >&2; exit 0");
    let reason = blocked_reason(&required).expect("a drifted required hook must block");
    assert!(
        reason.starts_with(&format!("required hook `push-guard` ({at}) did not run: ")),
        "{reason}"
    );
    assert!(
        reason.contains("changed since it was approved")
            && reason.contains("`hookchain approve push-guard`"),
        "{reason}"
    );
    assert_eq!(blocked_reason(&not_required), None);
}

/// A required configured hook whose extension is switched off blocks, naming who switched it
/// off.
#[test]
fn a_required_configured_hook_that_is_disabled_blocks_naming_who() {
    use hookchain::HooksBuilder;
    use hookchain::config::ConfigBuilderExt;

    let dir = Scratch::new();
    let (config, at) = required_push_guard(&dir);
    let hooks = HooksBuilder::new()
        .config(config)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build()
        .unwrap();
    hooks.disable_extension("external").unwrap();
    let reason = blocked_reason(&hooks).expect("a disabled required hook must block");
    assert_eq!(
        reason,
        format!(
            "required hook `push-guard` ({at}) did not run: its extension `external` is \
             disabled by the agent's code; `intercept_tool_call` is blocked until the extension \
             is enabled again"
        )
    );
}

/// `required` must be a boolean; the error names the file and line.
#[test]
fn required_must_be_true_or_false() {
    let error = Config::from_yaml_str(
        "hooks:\n  PreToolUse:\n    - command: /bin/true\n      required: yes please\n",
        "./hookchain.yaml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("./hookchain.yaml line 4") && error.contains("`true` or `false`"),
        "{error}"
    );
}

/// A `required: true` entry that cannot be loaded (a missing script, a matcher that does not
/// parse) blocks its point, naming the hook, its file and line, and the error; the file's other
/// entries load, and `init` returns no error: each entry costs itself only.
#[test]
fn a_required_hook_that_cannot_be_loaded_blocks_its_point() {
    use hookchain::config::Init;
    use hookchain::points::{InterceptToolCall, TransformUserInput};

    let dir = Scratch::new();
    let project = dir.path("project");
    std::fs::create_dir_all(&project).unwrap();
    let file = project.join("hookchain.yaml");
    std::fs::write(
        &file,
        "hooks:\n  UserPromptSubmit:\n    - command: /bin/true\n  PreToolUse:\n    \
         - command: ./hooks/no-such-guard.sh\n      name: no-force-push\n      required: true\n    \
         - command: /bin/true\n      matcher: \"(\"\n      required: true\n",
    )
    .unwrap();
    let (hooks, report, errors) = Init::new()
        .project_dir(&project)
        .home_dir(None)
        .consent(Consent::in_memory(), ConsentPolicy::new())
        .build();
    assert!(errors.is_empty(), "{errors:?}");
    let file = file.display().to_string();
    let reason = blocked_reason(&hooks).expect("a required hook that cannot be loaded must block");
    assert!(
        reason.starts_with(&format!(
            "required hook `{file}#03` ({file}:8) did not run: it cannot be loaded: `matcher` of \
             hook #2 of `PreToolUse` in {file} line 9"
        )),
        "{reason}"
    );
    let notices: Vec<&str> = hooks.notices().iter().map(|n| &*n.message).collect();
    assert!(
        notices.iter().any(|n| n.starts_with(&format!(
            "required hook `no-force-push` ({file}:5) did not run: it cannot be loaded: `command` \
             of hook #1 of `PreToolUse` in {file} line 5"
        )) && n.contains("no-such-guard.sh")
            && n.ends_with("`intercept_tool_call` blocks until it runs")),
        "{notices:#?}"
    );
    // Both required hooks stand in (the second by its default name).
    let stand_ins: Vec<&str> = hooks
        .chain_of("intercept_tool_call")
        .iter()
        .map(|h| &*h.name)
        .collect();
    assert_eq!(
        stand_ins,
        [
            format!("required:{file}#03").as_str(),
            "required:no-force-push"
        ]
    );
    // The hook that is not required loads (it is not approved here, so it is skipped and
    // reported, not lost with its file).
    assert!(
        !hooks
            .dispatch::<TransformUserInput>("hi".to_owned())
            .is_blocked()
    );
    assert_eq!(report.consent.skipped.len(), 1, "{report}");
    assert_eq!(report.consent.skipped[0].name, format!("{file}#01"));
    assert_eq!(report.warnings.len(), 2, "{report}");
    let _ = InterceptToolCall;
}

/// Claude Code applies the `env` of every settings file it reads — the project's
/// `.claude/settings.json`, which the repository wrote, included — to the processes it starts,
/// hookchain among them: a repository's `"env": {"HOOKCHAIN_ACCEPT_HOOKS": "1"}` would approve
/// its own hooks. A variable a project's agent settings set is not the user's word.
#[test]
fn an_accept_variable_a_projects_agent_settings_set_approves_nothing() {
    let dir = Scratch::new();
    dir.script("guard.sh", "exit 0");
    std::fs::create_dir_all(dir.path(".claude")).unwrap();
    let settings = dir.path(".claude/settings.json");
    std::fs::write(
        &settings,
        r#"{"env": {"HOOKCHAIN_ACCEPT_HOOKS": "1"},
            "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./guard.sh"}]}]}}"#,
    )
    .unwrap();
    let hooks = Config::load_claude_settings(&settings)
        .unwrap()
        .external_hooks()
        .to_vec();
    assert_eq!(hooks.len(), 1);
    // As Claude Code starts hookchain: with the variable the project's settings set.
    let mut policy =
        ConsentPolicy::from_lookup(|name| (name == ACCEPT_HOOKS_ENV).then(|| "1".to_owned()));
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    let (admitted, report) = admit(hooks, &mut consent, &mut policy);
    assert!(admitted.is_empty(), "{admitted:?}");
    assert!(
        report.warnings[0].starts_with(&format!(
            "{ACCEPT_HOOKS_ENV} is set by the `env` of {}",
            settings.display()
        )),
        "{:?}",
        report.warnings
    );
}

/// The same variable set by the project's `.claude/settings.json`, which holds no hook: the
/// project's `hookchain.yaml` hooks are not approved by it either.
#[test]
fn an_accept_variable_a_projects_agent_settings_set_approves_none_of_its_hookchain_yaml() {
    let dir = Scratch::new();
    dir.script("guard.sh", "exit 0");
    std::fs::create_dir_all(dir.path(".claude")).unwrap();
    std::fs::write(
        dir.path(".claude/settings.json"),
        r#"{"env": {"HOOKCHAIN_ACCEPT_HOOKS": "1"}}"#,
    )
    .unwrap();
    let file = dir.path("hookchain.yaml");
    let yaml = format!(
        "hooks:\n  intercept_tool_call:\n    - command: {}\n",
        dir.path("guard.sh").display()
    );
    let hooks = Config::from_yaml_str(&yaml, &file.display().to_string())
        .unwrap()
        .external_hooks()
        .to_vec();
    let mut policy =
        ConsentPolicy::from_lookup(|name| (name == ACCEPT_HOOKS_ENV).then(|| "1".to_owned()));
    let mut consent = Consent::load(dir.allowlist()).unwrap();
    let (admitted, report) = admit(hooks.clone(), &mut consent, &mut policy);
    assert!(admitted.is_empty(), "{admitted:?}");
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    // Without the project's settings file, the user's variable approves as before.
    std::fs::remove_file(dir.path(".claude/settings.json")).unwrap();
    let (admitted, report) = admit(hooks, &mut consent, &mut policy);
    assert_eq!(admitted.len(), 1, "{report:?}");
}
