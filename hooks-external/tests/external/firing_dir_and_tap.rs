//! What the agent says about a session reaches its command hooks — the project directory they
//! run in and name as `cwd` — and a session's tap sees each exchange: the exact payload and the
//! raw answer, stderr included, of a hook that passes too.
#![cfg(all(unix, feature = "command"))]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookchain_core::points::OnStop;
use hookchain_core::{Flow, SessionState, StopEvent};
use hookchain_external::hook::tap;
use hookchain_external::{
    CommandSpec, ConfigOrigin, Dialect, ExternalHook, ExternalHooksExt, Matcher, OnError, Transport,
};
use hookchain_runtime::HooksBuilder;
use serde_json::Value;

use crate::support::{make_executable, temp_dir};

/// A hook on `on_stop` running `script`, in hookchain's own protocol.
fn stop_hook(script: &str) -> ExternalHook {
    ExternalHook {
        point: "on_stop",
        event: "on_stop".to_owned(),
        name: "where".to_owned(),
        transport: Transport::Command(CommandSpec {
            argv: vec![script.to_owned()],
            display: script.to_owned(),
            env: BTreeMap::new(),
            working_dir: None,
            env_clear: false,
            env_allow: Vec::new(),
        }),
        matcher: Matcher::parse(Dialect::Hookchain, "*").unwrap(),
        timeout: Duration::from_secs(20),
        priority: 10,
        on_error: OnError::Block,
        dialect: Dialect::Hookchain,
        required: false,
        origin: ConfigOrigin::Code,
    }
}

fn stop() -> StopEvent {
    StopEvent {
        response: "Done.".into(),
        stop_hook_active: false,
        redos: 0,
    }
}

#[test]
fn a_hook_runs_in_the_sessions_project_dir_and_the_tap_sees_payload_and_stderr() {
    let scripts = temp_dir();
    let project = temp_dir();
    let script = scripts.path().join("where.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\necho \"pwd=$(pwd) project=$CLAUDE_PROJECT_DIR\" >&2\nexit 0\n",
    )
    .unwrap();
    make_executable(&script);
    let hooks = HooksBuilder::new()
        .external(stop_hook(&script.display().to_string()))
        .build()
        .unwrap();

    let seen: Arc<Mutex<Vec<(String, Value, String)>>> = Arc::default();
    let state = SessionState::default();
    state.set_project_dir(project.path());
    let log = seen.clone();
    tap(&state, move |exchange| {
        let payload: Value = serde_json::from_slice(exchange.payload).unwrap();
        let raw = exchange.answer.expect("the hook ran");
        let stderr = String::from_utf8_lossy(&raw.stderr).into_owned();
        log.lock()
            .unwrap()
            .push((exchange.hook.to_owned(), payload, stderr));
    });
    let outcome = hooks.dispatch_in_session::<OnStop>("s-where", &state, stop());
    assert!(
        matches!(outcome.flow, Flow::Continue(_)),
        "{:?}",
        outcome.failures
    );

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "one exchange: {seen:?}");
    let (hook, payload, stderr) = &seen[0];
    let dir = project.path().display().to_string();
    assert_eq!(hook, "where");
    assert_eq!(payload["session_id"], "s-where");
    assert_eq!(payload["cwd"], dir.as_str(), "{payload}");
    assert_eq!(stderr.trim(), format!("pwd={dir} project={dir}"));
}

#[test]
fn without_a_project_dir_a_hook_runs_in_the_current_directory() {
    let scripts = temp_dir();
    let script = scripts.path().join("where.sh");
    std::fs::write(&script, "#!/bin/sh\ncat >/dev/null\npwd >&2\n").unwrap();
    make_executable(&script);
    let hooks = HooksBuilder::new()
        .external(stop_hook(&script.display().to_string()))
        .build()
        .unwrap();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let state = SessionState::default();
    let log = seen.clone();
    tap(&state, move |exchange| {
        let raw = exchange.answer.expect("the hook ran");
        log.lock()
            .unwrap()
            .push(String::from_utf8_lossy(&raw.stderr).trim().to_owned());
    });
    let _ = hooks.dispatch_in_session::<OnStop>("s-here", &state, stop());
    let here = std::fs::canonicalize(std::env::current_dir().unwrap()).unwrap();
    assert_eq!(*seen.lock().unwrap(), [here.display().to_string()]);
}
