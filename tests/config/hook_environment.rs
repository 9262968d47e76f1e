//! A hook's environment in `hookchain.yaml`: `env_clear` and `env_allow` are read with their
//! file and line, refused where they mean nothing, and part of the approval.

use hookchain::config::Config;
use hookchain::consent::{Consent, ConsentStatus};
use hookchain::external::{CommandSpec, ExternalHook, Transport};

use crate::support::temp_dir;

fn error(text: &str) -> String {
    Config::from_yaml_str(text, "./hookchain.yaml")
        .unwrap_err()
        .to_string()
}

fn hooks(text: &str, file: &str) -> Vec<ExternalHook> {
    Config::from_yaml_str(text, file)
        .unwrap()
        .external_hooks()
        .to_vec()
}

fn command(hook: &ExternalHook) -> &CommandSpec {
    match &hook.transport {
        Transport::Command(spec) | Transport::Process(spec) => spec,
        Transport::Http(_) => panic!("{} is an HTTP hook", hook.name),
    }
}

#[test]
fn env_clear_and_env_allow_are_read() {
    let read = hooks(
        "hooks:\n  PreToolUse:\n    - command: ls\n      env_clear: true\n      \
         env_allow: [PATH, HOME]\n      env: {MODE: strict}\n    - process: [ls]\n      \
         env_clear: true\n    - command: ls\n",
        "./h.yaml",
    );
    let spec = command(&read[0]);
    assert!(spec.env_clear);
    assert_eq!(spec.env_allow, ["PATH", "HOME"]);
    assert_eq!(spec.env["MODE"], "strict");
    assert!(command(&read[1]).env_clear);
    assert!(command(&read[1]).env_allow.is_empty());
    assert!(!command(&read[2]).env_clear);
}

#[test]
fn env_clear_and_env_allow_mistakes_name_their_line() {
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      env_allow: [PATH]\n"),
        "`env_allow` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: names the variables \
         kept when `env_clear: true` empties the environment; without `env_clear: true` the hook \
         gets the whole environment: add `env_clear: true` or remove `env_allow`"
    );
    assert_eq!(
        error(
            "hooks:\n  PreToolUse:\n    - command: ls\n      env_clear: true\n      \
             env_allow: [PATH, MY-VAR]\n"
        ),
        "item #2 of `env_allow` of hook #1 of `PreToolUse` in ./hookchain.yaml line 5: `MY-VAR` \
         is not a portable environment variable name (letters, digits and `_`, not starting \
         with a digit)"
    );
    assert_eq!(
        error(
            "hooks:\n  PreToolUse:\n    - command: ls\n      env_clear: true\n      \
             env_allow: PATH\n"
        ),
        "`env_allow` of hook #1 of `PreToolUse` in ./hookchain.yaml line 5: expected a list of \
         environment variable names, found a string"
    );
    assert_eq!(
        error("hooks:\n  PreToolUse:\n    - command: ls\n      env_clear: yes please\n"),
        "`env_clear` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: expected `true` or \
         `false`, found a string"
    );
    for key in ["env_clear: true", "env_allow: [PATH]"] {
        let name = key.split(':').next().unwrap();
        assert_eq!(
            error(&format!(
                "hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/a\n      {key}\n"
            )),
            format!(
                "`{name}` of hook #1 of `PreToolUse` in ./hookchain.yaml line 4: applies to \
                 `command` and `process` hooks only, and this is a `url` hook"
            )
        );
    }
}

/// Switching `env_clear` off or adding a name to `env_allow` lets the hook inherit more of the
/// agent's environment (API keys, tokens): it needs a new approval.
#[test]
fn env_clear_and_env_allow_are_part_of_the_approval() {
    let temp = temp_dir();
    let dir = temp.path().join("hook-env");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hookchain.yaml").display().to_string();
    let hook = |extra: &str| {
        hooks(
            &format!("hooks:\n  PreToolUse:\n    - command: ls\n{extra}"),
            &file,
        )
        .remove(0)
    };
    let approved = hook("      env_clear: true\n      env_allow: [PATH]\n");
    let mut consent = Consent::load(dir.join("approved-hooks.json")).unwrap();
    consent.approve(&approved).unwrap();
    assert_eq!(consent.status(&approved), ConsentStatus::Approved);
    assert_eq!(
        consent.status(&hook("      env_clear: true\n      env_allow: [PATH]\n")),
        ConsentStatus::Approved
    );
    for changed in [
        "",
        "      env_clear: false\n",
        "      env_clear: true\n",
        "      env_clear: true\n      env_allow: [PATH, AWS_SECRET_ACCESS_KEY]\n",
        "      env_clear: true\n      env_allow: [PAT, H]\n",
    ] {
        let status = consent.status(&hook(changed));
        assert!(
            matches!(status, ConsentStatus::Drifted { .. }),
            "{changed:?}: {status:?}"
        );
    }
}
