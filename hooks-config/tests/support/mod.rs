//! What the integration tests of hookchain-config share: temporary directories, executable
//! scripts, copies of an agent's fixtures (`tests/fixtures/agents/AGENT/`) and a registry with
//! every hook approved. Each test program declares it with `mod support;` and uses some of it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::consent::{Consent, ConsentPolicy, ConsentStatus};
use hookchain::{Hooks, HooksBuilder};
use hookchain_external::Dialect;
use hookchain_external::wire::agents::payload_from_agent;
use hookchain_external::wire::{WirePoint, value_from_payload};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tempfile::TempDir;

/// A fresh, empty directory under the system's temporary directory, removed when dropped. Its
/// path has no symbolic link in it, so that it reads the same as a script's `pwd`.
pub(crate) fn temp_dir() -> TempDir {
    let base = std::env::temp_dir()
        .canonicalize()
        .expect("the temporary directory");
    tempfile::Builder::new()
        .prefix("hookchain-")
        .tempdir_in(base)
        .expect("a temporary directory")
}

/// Makes `path` executable by everyone (mode 755).
#[cfg(unix)]
pub(crate) fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The fixtures of `agent` (`codex`, `gemini`, `cursor`, `copilot`), in the source tree.
pub(crate) fn agent_fixtures(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/agents")
        .join(agent)
}

/// `from` copied into `to`, recursively, file modes kept (the scripts stay executable).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A registry of `config`'s hooks, every hook approved.
pub(crate) fn registry(config: Config) -> Hooks {
    HooksBuilder::new()
        .config(config)
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build()
        .unwrap()
}

/// The payload in the file `path`, as `dialect` sends it (its event in `hook_event_name`), read
/// as point `P`'s value the way `hookchain test` reads it.
pub(crate) fn agent_payload<P>(dialect: Dialect, path: &Path) -> P::Value
where
    P: WirePoint,
    P::Value: DeserializeOwned,
{
    let text = std::fs::read_to_string(path).unwrap();
    let Value::Object(map) = serde_json::from_str(&text).unwrap() else {
        panic!("{} is not an object", path.display())
    };
    let event = map["hook_event_name"].as_str().unwrap().to_owned();
    let map = payload_from_agent(dialect, &event, &map);
    let value = value_from_payload::<P>(&[Dialect::ClaudeCode], Value::Object(map), None);
    serde_json::from_value(value).unwrap()
}

/// Consent pins the hook of `config` whose command names the file `script` to the script's
/// content: approved, it is approved; `script` edited (its `exit 0` marked), it has drifted.
pub(crate) fn assert_consent_pins_script(config: &Config, script: &Path) {
    let name = script.file_name().unwrap().to_string_lossy().into_owned();
    let hook = config
        .external_hooks()
        .iter()
        .find(|h| h.transport.target().contains(&name))
        .unwrap()
        .clone();
    let mut consent = Consent::in_memory();
    consent.approve(&hook).unwrap();
    assert_eq!(consent.status(&hook), ConsentStatus::Approved);
    let text = std::fs::read_to_string(script).unwrap();
    std::fs::write(script, text.replace("exit 0", "exit 0 # edited")).unwrap();
    assert!(matches!(
        consent.status(&hook),
        ConsentStatus::Drifted { .. }
    ));
}
