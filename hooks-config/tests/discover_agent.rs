//! `Config::discover_agent` and `Config::discover_claude_from`: each agent's files found where
//! the agent finds them.

use std::path::Path;

use hookchain::Dialect;
use hookchain::config::Config;

fn settings(dir: &Path, name: &str, command: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let text = format!(
        "{{\"hooks\": {{\"PreToolUse\": [{{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": \"{command}\"}}]}}]}}}}\n"
    );
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn claude_codes_three_settings_files_load_in_its_order() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    settings(&home.path().join(".claude"), "settings.json", "echo user");
    settings(
        &project.path().join(".claude"),
        "settings.json",
        "echo project",
    );
    settings(
        &project.path().join(".claude"),
        "settings.local.json",
        "echo local",
    );
    let config = Config::discover_claude_from(project.path(), Some(home.path())).unwrap();
    let files: Vec<&str> = config.files().iter().map(String::as_str).collect();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(
        files[0].ends_with(".claude/settings.json")
            && files[0].contains(&*home.path().to_string_lossy()),
        "{files:?}"
    );
    assert!(files[2].ends_with("settings.local.json"), "{files:?}");
    assert_eq!(config.external_hooks().len(), 3);
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
}

#[test]
fn a_session_in_the_home_directory_reads_the_users_file_once() {
    let home = tempfile::tempdir().unwrap();
    settings(&home.path().join(".claude"), "settings.json", "echo user");
    let config = Config::discover_claude_from(home.path(), Some(home.path())).unwrap();
    assert_eq!(config.external_hooks().len(), 1);
}

#[test]
fn no_files_is_an_empty_config() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let config = Config::discover_claude_from(project.path(), Some(home.path())).unwrap();
    assert!(config.external_hooks().is_empty());
}

#[test]
fn agents_without_files_of_their_own_say_how_to_load_theirs() {
    for dialect in [Dialect::DockerAgent, Dialect::Starchild] {
        let config = Config::discover_agent(dialect).unwrap();
        assert!(config.external_hooks().is_empty());
        let warnings = config.warnings().join("\n");
        assert!(
            warnings.contains("Config::load(PATH)"),
            "{dialect}: {warnings}"
        );
        assert!(warnings.contains(dialect.name()), "{dialect}: {warnings}");
    }
}
