//! `~` and `$HOME` in commands, expanded as each agent expands them. The only test of its binary,
//! as it points `HOME` at a directory of its own under the system's temp directory.

use std::path::PathBuf;

use hookchain::config::Config;
use hookchain::external::Transport;

#[cfg(unix)]
fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A `hookchain.yaml` command written as Hermes' docs write them (`~/.hermes/agent-hooks/x.py`)
/// runs the script under the home directory, and so does `$HOME/…`; a Claude Code line starting
/// with `$HOME/…` names the script under it, so the file loads with no warning and consent pins
/// that script.
#[test]
fn tilde_and_home_name_the_script_under_the_home_directory() {
    let home: PathBuf =
        std::env::temp_dir().join(format!("hookchain-home-expansion-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(home.join(".hermes/agent-hooks")).unwrap();
    let home = std::fs::canonicalize(&home).unwrap();
    let script = home.join(".hermes/agent-hooks/guard.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    make_executable(&script);
    // SAFETY: the only test of this binary; nothing else reads the environment meanwhile.
    unsafe { std::env::set_var("HOME", &home) };

    for written in [
        "~/.hermes/agent-hooks/guard.sh",
        "$HOME/.hermes/agent-hooks/guard.sh",
    ] {
        let config = Config::from_yaml_str(
            &format!("hooks:\n  pre_tool_call:\n    - command: {written} --strict\n"),
            "./hookchain.yaml",
        )
        .unwrap_or_else(|e| panic!("{written}: {e}"));
        let Transport::Command(spec) = &config.external_hooks()[0].transport else {
            panic!("a command hook")
        };
        assert_eq!(
            spec.argv,
            [script.display().to_string(), "--strict".to_owned()]
        );
        assert_eq!(hookchain::consent::script_of(spec), Some(script.clone()));
    }

    let settings = Config::from_claude_settings_str(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "$HOME/.hermes/agent-hooks/guard.sh"}]}]}}"#,
        "settings.json",
    )
    .unwrap();
    assert!(settings.warnings().is_empty(), "{:#?}", settings.warnings());
    let Transport::Command(spec) = &settings.external_hooks()[0].transport else {
        panic!("a command hook")
    };
    assert_eq!(hookchain::consent::script_of(spec), Some(script.clone()));
    let _ = std::fs::remove_dir_all(&home);
}
