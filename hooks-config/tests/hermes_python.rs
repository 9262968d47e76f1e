//! Hermes' gateway hooks (`HOOK.yaml` + `handler.py`) and Python plugins run by hookchain's
//! Python runner: the fixtures of `tests/hermes/` (see its README for what each is modelled on),
//! copied into a temporary `~/.hermes`, loaded, admitted and fired through a `Session` and
//! `Turn` (the runner written under the temporary home). Each test needs `python3`: without it, it says so and passes, unless
//! `HOOKCHAIN_PYTHON_REQUIRED=1` (as `scripts/test.sh` sets) makes that a failure.
#![cfg(unix)]

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookchain::config::Config;
use hookchain::consent::{Consent, ConsentPolicy, ConsentStatus};
use hookchain::external::ExternalHooksExt;
use hookchain::points::{
    AfterToolCall, InterceptToolCall, LlmReply, ToolCall, ToolResult, TransformUserInput,
};
use hookchain::{Flow, Hooks, HooksBuilder};
use serde_json::{Value, json};
use support::temp_dir;
use tempfile::TempDir;

/// Set to make a missing `python3` a failure, not a skip.
const REQUIRED: &str = "HOOKCHAIN_PYTHON_REQUIRED";

/// `true` when `python3` runs; otherwise says why the test is skipped (or fails, when
/// [`REQUIRED`] is set).
fn python() -> bool {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        assert!(
            std::env::var(REQUIRED).is_err(),
            "python3 is not on PATH and {REQUIRED} is set: install python3"
        );
        eprintln!("skipped: python3 is not on PATH (install it to run Hermes' Python hooks)");
    }
    found
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hermes")
}

/// A home directory whose `.hermes/hooks/` and `.hermes/plugins/` hold copies of the named
/// fixtures, with `plugins.enabled` listing the plugins.
fn home_with(hooks: &[&str], plugins: &[&str]) -> TempDir {
    let home = temp_dir();
    for (kind, names) in [("hooks", hooks), ("plugins", plugins)] {
        for name in names {
            copy_dir(
                &fixtures().join(kind).join(name),
                &home.path().join(".hermes").join(kind).join(name),
            );
        }
    }
    let enabled: Vec<String> = plugins.iter().map(|p| format!("    - {p}\n")).collect();
    std::fs::write(
        home.path().join(".hermes/config.yaml"),
        format!("model: x\nplugins:\n  enabled:\n{}", enabled.concat()),
    )
    .unwrap();
    home
}

/// A home directory with one enabled plugin, `NAME/__init__.py` holding `init`.
fn plugin_home(name: &str, init: &str) -> TempDir {
    let home = temp_dir();
    let dir = home.path().join(".hermes/plugins").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("__init__.py"), init).unwrap();
    std::fs::write(
        home.path().join(".hermes/config.yaml"),
        format!("plugins:\n  enabled: [{name}]\n"),
    )
    .unwrap();
    home
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}

/// The registry of `config`, every hook approved.
fn hooks_of(config: Config) -> Hooks {
    assert!(
        config.external_hooks().iter().all(|h| h.name.contains('#')),
        "{:?}",
        config.external_hooks()
    );
    support::registry(config)
}

/// The JSON lines of `path`, each with its keys sorted.
fn json_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|line| sorted(serde_json::from_str(line).unwrap()))
        .collect()
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        other => other,
    }
}

fn calls(names: &[&str]) -> LlmReply {
    LlmReply {
        text: String::new(),
        tool_calls: names.iter().map(|n| ToolCall::new(*n, json!({}))).collect(),
    }
}

#[test]
fn the_activity_logger_sees_each_agent_event_with_hermes_context() {
    if !python() {
        return;
    }
    let home = home_with(&["activity-logger"], &[]);
    let config = Config::discover_hermes_python(Some(home.path()));
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let mut points: Vec<(&str, &str)> = config
        .external_hooks()
        .iter()
        .map(|h| (h.point, h.event.as_str()))
        .collect();
    points.sort();
    assert_eq!(
        points,
        [
            ("after_llm_call", "agent:step"),
            ("transform_response", "agent:end"),
            ("transform_user_input", "agent:start"),
        ]
    );
    // The runner is written under the home given, never elsewhere.
    let hookchain::external::Transport::Process(spec) = &config.external_hooks()[0].transport
    else {
        panic!("{:?}", config.external_hooks()[0].transport);
    };
    assert!(
        Path::new(&spec.argv[1]).starts_with(home.path().join(".cache/hookchain")),
        "{spec:?}"
    );
    let hooks = hooks_of(config);
    let session = hooks.session("s-1");
    hookchain::external::transcript::set_payload_field(&session.state(), "platform", "telegram");
    let turn = session.begin_turn();
    assert_eq!(
        turn.transform_user_input("deploy the app"),
        Flow::Continue("deploy the app".to_owned())
    );
    turn.after_llm_call(calls(&["terminal", "read_file"]));
    turn.after_llm_call(calls(&["write_file"]));
    assert_eq!(
        turn.transform_response("deployed"),
        Flow::Continue("deployed".to_owned())
    );
    turn.end(hookchain::TurnEnd::Normal);
    session.end("exit");

    let log = home
        .path()
        .join(".hermes/hooks/activity-logger/activity.log");
    let mut lines = json_lines(&log);
    for line in &mut lines {
        line.as_object_mut().unwrap().remove("at");
    }
    let start = json!({"event": "agent:start", "platform": "telegram", "user_id": "", "chat_id": "",
        "thread_id": "", "chat_type": "", "session_id": "s-1", "message": "deploy the app"});
    let mut end = start.clone();
    end["event"] = json!("agent:end");
    end["response"] = json!("deployed");
    assert_eq!(
        lines,
        [
            sorted(start),
            sorted(
                json!({"event": "agent:step", "platform": "telegram", "user_id": "",
                "session_id": "s-1", "iteration": 1, "tool_names": ["terminal", "read_file"]})
            ),
            sorted(
                json!({"event": "agent:step", "platform": "telegram", "user_id": "",
                "session_id": "s-1", "iteration": 2, "tool_names": ["write_file"]})
            ),
            sorted(end),
        ]
    );
}

/// A server on 127.0.0.1 that answers one POST with 200 and hands back its body.
fn one_post_server() -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/alert", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let server = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        let (stream, _) = loop {
            match listener.accept() {
                Ok(accepted) => break accepted,
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Err(e) => panic!("no POST within 20 s: {e}"),
            }
        };
        stream.set_nonblocking(false).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut reader = BufReader::new(stream);
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        reader
            .get_mut()
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .unwrap();
        String::from_utf8(body).unwrap()
    });
    (url, server)
}

#[test]
fn the_long_task_alert_posts_once_the_turn_reaches_its_third_step() {
    if !python() {
        return;
    }
    let home = home_with(&["long-task-alert"], &[]);
    let (url, server) = one_post_server();
    std::fs::write(
        home.path()
            .join(".hermes/hooks/long-task-alert/alert_url.txt"),
        &url,
    )
    .unwrap();
    let hooks = hooks_of(Config::discover_hermes_python(Some(home.path())));
    let session = hooks.session("s-2");
    let turn = session.begin_turn();
    for tools in [
        &["terminal"][..],
        &["read_file"],
        &["web_search", "terminal"],
    ] {
        turn.after_llm_call(calls(tools));
    }
    let body: Value = serde_json::from_str(&server.join().unwrap()).unwrap();
    assert_eq!(
        sorted(body),
        sorted(json!({"chat_id": "ops",
            "text": "Step 3 of one turn; tools this step: web_search, terminal"}))
    );
    turn.end(hookchain::TurnEnd::Normal);
    session.end("exit");
}

#[test]
fn the_command_logger_gets_each_slash_command_by_name() {
    if !python() {
        return;
    }
    let home = home_with(&["command-logger"], &[]);
    let hooks = hooks_of(Config::discover_hermes_python(Some(home.path())));
    let session = hooks.session("s-3");
    session.command("/model gpt-5");
    session.command("/reset");
    session.end("exit");
    let lines = json_lines(
        &home
            .path()
            .join(".hermes/hooks/command-logger/commands.jsonl"),
    );
    assert_eq!(
        lines,
        [
            sorted(
                json!({"event": "command:model", "command": "model", "args": "gpt-5",
                "platform": "", "user": ""})
            ),
            sorted(
                json!({"event": "command:reset", "command": "reset", "args": "",
                "platform": "", "user": ""})
            ),
        ]
    );
}

#[test]
fn a_crashing_handler_is_a_warning_naming_its_file_and_line_and_never_blocks() {
    if !python() {
        return;
    }
    let home = home_with(&["crashing"], &[]);
    let hooks = hooks_of(Config::discover_hermes_python(Some(home.path())));
    for _ in 0..2 {
        let outcome = hooks.dispatch::<TransformUserInput>("hello".to_owned());
        assert_eq!(outcome.flow, Flow::Continue("hello".to_owned()));
        let [failure] = &outcome.failures[..] else {
            panic!("{:?}", outcome.failures);
        };
        let message = failure.to_string();
        assert!(
            message.contains("crashing/handler.py line 5: ZeroDivisionError: division by zero"),
            "{message}"
        );
    }
}

#[test]
fn a_hung_handler_fails_at_its_time_limit_and_does_not_block() {
    if !python() {
        return;
    }
    let home = home_with(&["hung"], &[]);
    let config = Config::discover_hermes_python(Some(home.path()));
    let [hook] = config.external_hooks() else {
        panic!("{:?}", config.external_hooks());
    };
    let mut hook = hook.clone();
    hook.timeout = Duration::from_millis(700);
    let hooks = HooksBuilder::new().external(hook).build().unwrap();
    let started = Instant::now();
    let outcome = hooks.dispatch::<TransformUserInput>("hello".to_owned());
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(outcome.flow, Flow::Continue("hello".to_owned()));
    assert!(
        outcome.failures[0].to_string().contains("timed out"),
        "{:?}",
        outcome.failures
    );
}

#[test]
fn a_pre_tool_call_plugin_blocks_and_a_post_tool_call_crash_is_skipped() {
    if !python() {
        return;
    }
    let home = home_with(&[], &["tool-guard"]);
    let config = Config::discover_hermes_python(Some(home.path()));
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let mut events: Vec<(&str, i32)> = config
        .external_hooks()
        .iter()
        .map(|h| (h.event.as_str(), h.priority))
        .collect();
    events.sort();
    assert_eq!(events, [("post_tool_call", 49), ("pre_tool_call", 49)]);
    let hooks = hooks_of(config);
    let session = hooks.session("s-4");
    let turn = session.begin_turn();
    let refused =
        turn.intercept_tool_call(ToolCall::new("terminal", json!({"command": "rm -rf /"})));
    assert_eq!(
        refused.blocked().map(|b| b.reason.clone()),
        Some("tool-guard: rm -rf is not allowed".to_owned())
    );
    let call = ToolCall::new("terminal", json!({"command": "ls"}));
    assert_eq!(
        turn.intercept_tool_call(call.clone()),
        Flow::Continue(call.clone())
    );
    turn.after_tool_call(ToolResult::from_text(&call, "a.txt", false));
    let results = json_lines(&home.path().join(".hermes/plugins/tool-guard/results.jsonl"));
    assert_eq!(
        results,
        [sorted(
            json!({"tool": "terminal", "args": {"command": "ls"}, "result": "a.txt"})
        )]
    );
    // A callback that raises is skipped, with where it raised.
    let explode = ToolCall::new("explode", json!({}));
    let outcome = hooks.dispatch::<AfterToolCall>(ToolResult::from_text(&explode, "x", false));
    let message = outcome.failures[0].to_string();
    assert!(
        message.contains("tool-guard/__init__.py line 17: RuntimeError: cannot record explode"),
        "{message}"
    );
    turn.end(hookchain::TurnEnd::Normal);
    session.end("exit");
}

#[test]
fn a_plugin_that_is_not_enabled_is_not_loaded() {
    let home = home_with(&[], &["tool-guard"]);
    std::fs::write(
        home.path().join(".hermes/config.yaml"),
        "plugins:\n  enabled: [tool-guard]\n  disabled: [tool-guard]\n",
    )
    .unwrap();
    assert!(
        Config::discover_hermes_python(Some(home.path()))
            .external_hooks()
            .is_empty()
    );
    std::fs::write(home.path().join(".hermes/config.yaml"), "model: x\n").unwrap();
    assert!(
        Config::discover_hermes_python(Some(home.path()))
            .external_hooks()
            .is_empty()
    );
}

#[test]
fn pre_llm_call_context_goes_into_the_user_message_once_per_turn() {
    if !python() {
        return;
    }
    let home = home_with(&[], &["memory-recall"]);
    let config = Config::discover_hermes_python(Some(home.path()));
    let [hook] = config.external_hooks() else {
        panic!("{:?}", config.external_hooks());
    };
    assert_eq!(
        (hook.point, hook.event.as_str()),
        ("transform_user_input", "pre_llm_call")
    );
    let hooks = hooks_of(config);
    let session = hooks.session("s-5");
    let turn = session.begin_turn();
    assert_eq!(
        turn.transform_user_input("how do I deploy"),
        Flow::Continue(
            "how do I deploy\n\nRecalled memories:\n- Deploys go through the staging cluster \
             first"
                .to_owned()
        )
    );
    turn.end(hookchain::TurnEnd::Normal);
    let turn = session.begin_turn();
    assert_eq!(
        turn.transform_user_input("hello"),
        Flow::Continue("hello".to_owned())
    );
    turn.end(hookchain::TurnEnd::Normal);
    session.end("exit");
}

#[test]
fn a_plugin_that_does_not_import_says_where() {
    if !python() {
        return;
    }
    let home = plugin_home(
        "broken",
        "def register(ctx):\n    ctx.register_hook(\"pre_tool_call\", lambda **k: None)\n\nif True\n",
    );
    let hooks = hooks_of(Config::discover_hermes_python(Some(home.path())));
    let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new("terminal", json!({})));
    // `pre_tool_call` fails closed, with where the plugin does not parse.
    let reason = &outcome.flow.blocked().unwrap().reason;
    assert!(
        reason.contains("broken/__init__.py line 4: SyntaxError"),
        "{reason}"
    );
}

#[test]
fn consent_pins_the_handler_and_every_module_of_a_plugin() {
    let home = home_with(&["activity-logger"], &["memory-recall"]);
    let config = Config::discover_hermes_python(Some(home.path()));
    let mut consent = Consent::in_memory();
    for hook in config.external_hooks() {
        consent.approve(hook).unwrap();
    }
    let status = |consent: &Consent| -> Vec<ConsentStatus> {
        config
            .external_hooks()
            .iter()
            .map(|h| consent.status(h))
            .collect()
    };
    assert!(
        status(&consent)
            .iter()
            .all(|s| *s == ConsentStatus::Approved)
    );
    // A log written beside the handler is data: nothing drifts.
    let hermes = home.path().join(".hermes");
    std::fs::write(hermes.join("hooks/activity-logger/activity.log"), "{}\n").unwrap();
    assert!(
        status(&consent)
            .iter()
            .all(|s| *s == ConsentStatus::Approved)
    );
    // The plugin's sibling module edited: the plugin's hook drifts, the gateway hook's not.
    let store = hermes.join("plugins/memory-recall/store.py");
    let mut text = std::fs::read_to_string(&store).unwrap();
    text.push_str("\nFACTS['x'] = 'y'\n");
    std::fs::write(&store, text).unwrap();
    let plugin_drifted = |consent: &Consent| {
        config
            .external_hooks()
            .iter()
            .map(|h| (h.event.starts_with("agent:"), consent.status(h)))
            .all(|(gateway, status)| {
                if gateway {
                    status == ConsentStatus::Approved
                } else {
                    matches!(status, ConsentStatus::Drifted { .. })
                }
            })
    };
    assert!(plugin_drifted(&consent));
    // A module added to the gateway hook's directory: it drifts too.
    std::fs::write(hermes.join("hooks/activity-logger/helper.py"), "X = 1\n").unwrap();
    assert!(
        config
            .external_hooks()
            .iter()
            .all(|h| matches!(consent.status(h), ConsentStatus::Drifted { .. }))
    );
}

#[test]
fn events_hookchain_does_not_deliver_are_left_out_with_their_line() {
    let home = temp_dir();
    let dir = home.path().join(".hermes/hooks/boot-md");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("HOOK.yaml"),
        "name: boot-md\nevents:\n  - gateway:startup\n  - session:*\n",
    )
    .unwrap();
    std::fs::write(dir.join("handler.py"), "def handle(e, c):\n    pass\n").unwrap();
    let config = Config::discover_hermes_python(Some(home.path()));
    let [warning] = config.warnings() else {
        panic!("{:?}", config.warnings());
    };
    assert!(
        warning.contains("boot-md/HOOK.yaml line 3: Hermes' gateway event `gateway:startup` has no hookchain point"),
        "{warning}"
    );
    let mut points: Vec<&str> = config.external_hooks().iter().map(|h| h.point).collect();
    points.sort();
    assert_eq!(points, ["session_end", "session_reset", "session_start"]);

    // No events at all: left out, as Hermes skips it.
    std::fs::write(dir.join("HOOK.yaml"), "name: boot-md\nevents: []\n").unwrap();
    let config = Config::discover_hermes_python(Some(home.path()));
    assert!(config.external_hooks().is_empty());
    assert!(
        config.warnings()[0].contains("declares no `events`"),
        "{:?}",
        config.warnings()
    );
}

/// A plugin hooking the session events and `subagent_stop`, recording what each callback gets.
const SESSION_PLUGIN: &str = r#"import json
from pathlib import Path

SEEN = Path(__file__).with_name("seen.jsonl")


def recorder(name):
    def record(**kwargs):
        with open(SEEN, "a") as out:
            out.write(json.dumps({"hook": name, **kwargs}) + "\n")
    return record


def register(ctx):
    for name in ["on_session_start", "on_session_end", "on_session_reset", "subagent_stop"]:
        ctx.register_hook(name, recorder(name))
"#;

#[test]
fn session_hooks_and_subagent_stop_get_hermes_keyword_arguments() {
    if !python() {
        return;
    }
    let home = temp_dir();
    let dir = home.path().join(".hermes/plugins/sessions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("__init__.py"), SESSION_PLUGIN).unwrap();
    std::fs::write(
        home.path().join(".hermes/config.yaml"),
        "plugins:\n  enabled: [sessions]\n",
    )
    .unwrap();
    // The events are named by a variable: the plugin is hooked on every plugin event.
    let config = Config::discover_hermes_python(Some(home.path()));
    assert_eq!(config.external_hooks().len(), 9, "{:?}", config.warnings());
    // Through init(), as an agent loads it.
    let project = temp_dir();
    let (hooks, report, errors) = hookchain::config::Init::new()
        .project_dir(project.path())
        .home_dir(Some(home.path().to_path_buf()))
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .build();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(report.consent.admitted.len(), 9, "{report}");
    let session = hooks.session("parent");
    hookchain::external::transcript::set_payload_field(&session.state(), "model", "m-1");
    hookchain::external::transcript::set_payload_field(&session.state(), "child_role", "leaf");
    hookchain::external::transcript::set_payload_field(&session.state(), "duration_ms", 1200);
    let outcome =
        session.fire::<hookchain::points::SubagentStop>(hookchain::points::SubagentStopEvent {
            session_id: "child".to_owned(),
            parent_session_id: "parent".to_owned(),
            reason: "normal".to_owned(),
        });
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    let next = session.reset("parent-2");
    next.end("exit");
    let mut seen = json_lines(&dir.join("seen.jsonl"));
    for line in &mut seen {
        line.as_object_mut().unwrap().remove("reason");
    }
    assert_eq!(
        seen,
        [
            sorted(
                json!({"hook": "on_session_start", "session_id": "parent", "model": "",
                "platform": ""})
            ),
            sorted(
                json!({"hook": "subagent_stop", "parent_session_id": "parent",
                "child_session_id": "child", "child_role": "leaf", "child_summary": null,
                "child_status": "completed", "duration_ms": 1200})
            ),
            sorted(
                json!({"hook": "on_session_reset", "session_id": "parent", "platform": "",
                "old_session_id": "parent", "new_session_id": "parent-2"})
            ),
            sorted(
                json!({"hook": "on_session_start", "session_id": "parent-2", "model": "",
                "platform": ""})
            ),
            sorted(
                json!({"hook": "on_session_end", "session_id": "parent-2", "task_id": "parent-2",
                "completed": true, "interrupted": false, "model": "", "platform": ""})
            ),
        ]
    );
}

#[test]
fn one_interpreter_serves_every_point_of_a_hook_directory_across_firings() {
    if !python() {
        return;
    }
    let home = temp_dir();
    let dir = home.path().join(".hermes/hooks/pids");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("HOOK.yaml"),
        "name: pids\nevents: [\"agent:*\", \"session:*\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("handler.py"),
        "import os\nfrom pathlib import Path\n\n\ndef handle(event_type, context):\n    \
         with open(Path(__file__).with_name('pids.txt'), 'a') as out:\n        \
         out.write(f'{event_type} {os.getpid()}\\n')\n",
    )
    .unwrap();
    let config = Config::discover_hermes_python(Some(home.path()));
    assert_eq!(config.external_hooks().len(), 6);
    let hooks = hooks_of(config);
    for id in ["a", "b"] {
        let session = hooks.session(id);
        let turn = session.begin_turn();
        let _ = turn.transform_user_input("hi");
        turn.after_llm_call(calls(&["x"]));
        let _ = turn.transform_response("done");
        turn.end(hookchain::TurnEnd::Normal);
        session.end("exit");
    }
    let text = std::fs::read_to_string(dir.join("pids.txt")).unwrap();
    let lines: Vec<(&str, &str)> = text.lines().map(|l| l.split_once(' ').unwrap()).collect();
    let events: Vec<&str> = lines.iter().map(|(e, _)| *e).collect();
    assert_eq!(
        events,
        [
            "session:start",
            "agent:start",
            "agent:step",
            "agent:end",
            "session:end",
            "session:start",
            "agent:start",
            "agent:step",
            "agent:end",
            "session:end",
        ]
    );
    let pids: std::collections::BTreeSet<&str> = lines.iter().map(|(_, p)| *p).collect();
    assert_eq!(pids.len(), 1, "{text}");
}

/// Two callbacks that rewrite, one that blocks only `terminal`, and all of them print.
const REWRITING_PLUGIN: &str = r#"import os


def default_path(tool_name, args, **kwargs):
    print("default_path called")
    if "path" not in args:
        return {"action": "modify", "args": {"path": "README.md"}}


def cap_lines(tool_name, args, **kwargs):
    os.write(1, b"written straight to fd 1\n")
    return {"action": "modify", "args": {"limit": 100}}


def no_terminal(tool_name, **kwargs):
    if tool_name == "terminal":
        return {"action": "block", "message": "no terminal here"}


def register(ctx):
    ctx.register_hook("pre_tool_call", default_path)
    ctx.register_hook("pre_tool_call", cap_lines)
    ctx.register_hook("pre_tool_call", no_terminal)
"#;

#[test]
fn pre_tool_call_rewrites_merge_a_block_wins_and_printing_does_not_disturb_the_answers() {
    if !python() {
        return;
    }
    let home = plugin_home("rewriter", REWRITING_PLUGIN);
    let hooks = hooks_of(Config::discover_hermes_python(Some(home.path())));
    let session = hooks.session("s-6");
    let turn = session.begin_turn();
    let flow = turn.intercept_tool_call(ToolCall::new("read_file", json!({"offset": 5})));
    let Flow::Continue(call) = flow else {
        panic!("{flow:?}");
    };
    assert_eq!(
        sorted(call.args),
        sorted(json!({"offset": 5, "path": "README.md", "limit": 100}))
    );
    let flow = turn.intercept_tool_call(ToolCall::new("terminal", json!({"path": "x"})));
    assert_eq!(
        flow.blocked().map(|b| b.reason.clone()),
        Some("no terminal here".to_owned())
    );
    turn.end(hookchain::TurnEnd::Normal);
    session.end("exit");
}
