//! `audit-log`: one line per tool call with its decision, the hook that decided and why, its
//! args and durations, blocked calls included; rotation at `max_bytes`; whole lines from
//! concurrent writers; one warning for a log that cannot be written; `points` for every
//! dispatch. Each test writes under a temporary directory of its own, removed when it ends.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookchain_core::points::{InterceptToolCall, Notify};
use hookchain_core::{HookContext, HookResult, Notification, ToolCall, TurnEnd};
use hookchain_guards::{AuditLog, BuiltinsExt};
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder};
use parking_lot::Mutex;
use serde_json::{Value, json};

use tempfile::TempDir;

use crate::support::temp_dir;

/// The log's path in `dir`, in a directory the guard creates.
fn log(dir: &TempDir) -> PathBuf {
    dir.path().join("logs/audit.jsonl")
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// A registry with `audit` and two hooks of the agent's: `no-rm` blocks `rm`, `quiet` adds
/// `-q` to `git`'s args.
fn registry(audit: AuditLog) -> Hooks {
    HooksBuilder::new()
        .builtin(audit)
        .hook_with(
            InterceptToolCall,
            HookOptions::new("no-rm"),
            |call: &ToolCall, _: &HookContext| {
                if call.name == "rm" {
                    HookResult::block(format!("rm of {} is refused", call.args["path"]))
                } else {
                    HookResult::<Value>::Pass
                }
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("quiet").priority(1),
            |call: &ToolCall, _: &HookContext| {
                if call.name == "git" {
                    HookResult::Rewrite(json!({"args": [call.args["args"][0], "-q"]}))
                } else {
                    HookResult::<Value>::Pass
                }
            },
        )
        .build()
        .unwrap()
}

fn config(path: &Path) -> AuditLog {
    AuditLog {
        path: path.display().to_string(),
        ..AuditLog::default()
    }
}

#[test]
fn eight_tool_calls_give_eight_lines_with_their_decisions_blocked_ones_included() {
    let dir = temp_dir();
    let hooks = registry(config(&log(&dir)));
    let turn = hooks.session("audit-eight").begin_turn();
    let calls = [
        ToolCall::new("ls", json!({"dir": "."})),
        ToolCall::new("rm", json!({"path": "/"})),
        ToolCall::new("git", json!({"args": ["status"]})),
        ToolCall::new("cat", json!({"file": "a"})),
        ToolCall::new("rm", json!({"path": "/etc"})),
        ToolCall::new("ls", json!({"dir": "src"})),
        ToolCall::new("fail", json!({})),
        ToolCall::new("echo", json!({"text": "hi"})),
    ];
    for mut call in calls {
        call.id = Some(format!("id-{}", call.name));
        let _ = turn.run_tool(call, |call| {
            if call.name == "fail" {
                Err("no such tool".into())
            } else {
                Ok(json!("ok"))
            }
        });
    }
    turn.end(TurnEnd::Normal);

    let lines = lines(&log(&dir));
    assert_eq!(lines.len(), 8, "{lines:#?}");
    let summary: Vec<(&str, &str, Option<&str>, bool, bool)> = lines
        .iter()
        .map(|l| {
            (
                l["tool"].as_str().unwrap(),
                l["decision"].as_str().unwrap(),
                l["hook"].as_str(),
                l["ran"].as_bool().unwrap(),
                l["is_error"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("ls", "pass", None, true, false),
            ("rm", "block", Some("no-rm"), false, true),
            ("git", "rewrite", Some("quiet"), true, false),
            ("cat", "pass", None, true, false),
            ("rm", "block", Some("no-rm"), false, true),
            ("ls", "pass", None, true, false),
            ("fail", "pass", None, true, true),
            ("echo", "pass", None, true, false),
        ]
    );
    let blocked = &lines[1];
    assert_eq!(blocked["type"], "tool_call");
    assert_eq!(blocked["reason"], "rm of \"/\" is refused");
    assert_eq!(blocked["args"], json!({"path": "/"}));
    assert_eq!(blocked["id"], "id-rm");
    assert_eq!(blocked["failed"], false);
    assert_eq!(
        (&blocked["session_id"], &blocked["turn"]),
        (&json!("audit-eight"), &json!(0))
    );
    // The rewritten call is logged with the args it ran with.
    assert_eq!(lines[2]["args"], json!({"args": ["status", "-q"]}));
    for line in &lines {
        assert!(
            line["intercept_us"].is_u64() && line["duration_us"].is_u64(),
            "{line}"
        );
        assert!(line["ts_ms"].as_u64().unwrap() > 1_600_000_000_000);
    }
}

#[test]
fn redact_args_hides_the_args_and_keeps_the_rest() {
    let dir = temp_dir();
    let hooks = registry(AuditLog {
        redact_args: true,
        ..config(&log(&dir))
    });
    let turn = hooks.session("audit-redact").begin_turn();
    let _ = turn.run_tool(ToolCall::new("rm", json!({"path": "/etc"})), |_| {
        Ok(json!(1))
    });
    let _ = turn.run_tool(ToolCall::new("cat", json!({"file": "/secret"})), |_| {
        Ok(json!(1))
    });
    let lines = lines(&log(&dir));
    assert_eq!(lines[0]["args"], "[redacted]");
    assert_eq!(lines[0]["decision"], "block");
    assert_eq!(lines[1]["args"], "[redacted]");
    assert_eq!(lines[1]["tool"], "cat");
    assert!(!lines[1].to_string().contains("/secret"));
}

#[test]
fn the_log_rotates_at_max_bytes_and_keeps_keep_files_of_whole_lines() {
    let dir = temp_dir();
    let hooks = registry(AuditLog {
        max_bytes: 1000,
        keep: 50,
        ..config(&log(&dir))
    });
    let turn = hooks.session("audit-rotate").begin_turn();
    for i in 0..30 {
        let _ = turn.run_tool(ToolCall::new("ls", json!({"i": i})), |_| Ok(json!(1)));
    }
    let mut files = vec![log(&dir)];
    files.extend((1..=50).map(|n| PathBuf::from(format!("{}.{n}", log(&dir).display()))));
    let files: Vec<PathBuf> = files.into_iter().filter(|f| f.exists()).collect();
    assert!(files.len() > 2, "{files:?}");
    let mut numbers = Vec::new();
    for file in &files {
        assert!(std::fs::metadata(file).unwrap().len() <= 1000, "{file:?}");
        numbers.extend(lines(file).iter().map(|l| l["args"]["i"].as_u64().unwrap()));
    }
    numbers.sort_unstable();
    assert_eq!(numbers, (0..30).collect::<Vec<u64>>());

    // With keep: 1, only the newest rotated file is kept.
    let dir = temp_dir();
    let hooks = registry(AuditLog {
        max_bytes: 1000,
        keep: 1,
        ..config(&log(&dir))
    });
    let turn = hooks.session("audit-rotate-keep").begin_turn();
    for i in 0..30 {
        let _ = turn.run_tool(ToolCall::new("ls", json!({"i": i})), |_| Ok(json!(1)));
    }
    assert!(PathBuf::from(format!("{}.1", log(&dir).display())).exists());
    assert!(!PathBuf::from(format!("{}.2", log(&dir).display())).exists());
    let last = lines(&log(&dir));
    assert_eq!(last.last().unwrap()["args"]["i"], 29);
}

#[test]
fn four_threads_of_concurrent_sessions_write_whole_lines() {
    let dir = temp_dir();
    let hooks = registry(config(&log(&dir)));
    let long = "x".repeat(5000);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (hooks, long) = (&hooks, &long);
            s.spawn(move || {
                let turn = hooks.session(format!("audit-thread-{t}")).begin_turn();
                for i in 0..50 {
                    let call = ToolCall::new("echo", json!({"t": t, "i": i, "pad": long}));
                    let _ = turn.run_tool(call, |_| Ok(json!(1)));
                }
            });
        }
    });
    let lines = lines(&log(&dir));
    assert_eq!(lines.len(), 200);
    for t in 0..4 {
        let mine: Vec<u64> = lines
            .iter()
            .filter(|l| l["args"]["t"] == t)
            .map(|l| l["args"]["i"].as_u64().unwrap())
            .collect();
        assert_eq!(mine, (0..50).collect::<Vec<u64>>(), "thread {t}");
    }
}

#[test]
fn a_log_that_cannot_be_written_is_one_warning_and_the_calls_go_on() {
    let dir = temp_dir();
    // A file where the log's directory should be.
    std::fs::write(dir.path().join("logs"), "not a directory").unwrap();
    let notes = Arc::new(Mutex::new(Vec::<String>::new()));
    let kept = Arc::clone(&notes);
    let hooks = HooksBuilder::new()
        .builtin(config(&log(&dir)))
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            kept.lock().push(n.message.clone());
        })
        .build()
        .unwrap();
    let turn = hooks.session("audit-unwritable").begin_turn();
    for _ in 0..3 {
        let run = turn.run_tool(ToolCall::new("ls", json!({})), |_| Ok(json!(1)));
        assert!(run.ran);
    }
    let notes = notes.lock();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("audit-log cannot write"), "{}", notes[0]);
    assert!(notes[0].contains("logs/audit.jsonl"), "{}", notes[0]);
}

#[test]
fn points_star_also_logs_every_dispatch() {
    let dir = temp_dir();
    let hooks = registry(AuditLog {
        points: vec!["*".into()],
        ..config(&log(&dir))
    });
    let session = hooks.session("audit-points");
    let turn = session.begin_turn();
    let _ = turn.transform_user_input("hello");
    let _ = turn.run_tool(ToolCall::new("rm", json!({"path": "/"})), |_| Ok(json!(1)));
    turn.end(TurnEnd::Normal);
    let lines = lines(&log(&dir));
    let kinds: Vec<(String, String)> = lines
        .iter()
        .map(|l| {
            let what = l["point"].as_str().or(l["tool"].as_str()).unwrap();
            (l["type"].as_str().unwrap().to_owned(), what.to_owned())
        })
        .collect();
    let kinds: Vec<(&str, &str)> = kinds
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("dispatch", "session_start"),
            ("dispatch", "transform_user_input"),
            ("dispatch", "intercept_tool_call"),
            ("tool_call", "rm"),
            ("dispatch", "after_tool_call"),
            ("dispatch", "turn_end"),
        ]
    );
    assert_eq!(lines[2]["decision"], "block");
    assert_eq!(lines[2]["payload"]["args"], json!({"path": "/"}));
}

#[test]
fn a_point_pattern_that_cannot_match_is_refused_in_the_config() {
    let error = HooksBuilder::new()
        .builtin(AuditLog {
            points: vec!["atfer_*".into()],
            ..AuditLog::default()
        })
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("did you mean `after_*`?"), "{error}");
}

#[test]
fn a_log_planted_as_a_symlink_is_never_written_through_and_a_warning_says_why() {
    let dir = temp_dir();
    // What a repository could plant: the log a link to a file of the user's.
    let target = dir.path().join("bashrc");
    std::fs::write(&target, "# the user's file\n").unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    std::os::unix::fs::symlink(&target, log(&dir)).unwrap();
    let notes = Arc::new(Mutex::new(Vec::<String>::new()));
    let kept = Arc::clone(&notes);
    let hooks = HooksBuilder::new()
        .builtin(config(&log(&dir)))
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            kept.lock().push(n.message.clone());
        })
        .build()
        .unwrap();
    let turn = hooks.session("audit-symlink").begin_turn();
    let run = turn.run_tool(ToolCall::new("ls", json!({"model": "text"})), |_| {
        Ok(json!(1))
    });
    assert!(run.ran);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "# the user's file\n"
    );
    let notes = notes.lock();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("is a symbolic link"), "{}", notes[0]);
    assert!(
        notes[0].contains("never writes through one"),
        "{}",
        notes[0]
    );
}

/// The variable that makes [`two_processes_rotating_one_log_lose_no_line`], run as a child of
/// itself, one of the two writers: the log's path.
const WRITER_LOG: &str = "HOOKCHAIN_TEST_AUDIT_WRITER_LOG";
/// The writer's number, in the child.
const WRITER_ID: &str = "HOOKCHAIN_TEST_AUDIT_WRITER_ID";
/// Lines each writer writes.
const WRITER_LINES: u64 = 400;

#[test]
fn two_processes_rotating_one_log_lose_no_line() {
    let audit = |path: &Path| AuditLog {
        max_bytes: 2000,
        keep: 10_000,
        ..config(path)
    };
    if let (Some(path), Some(id)) = (std::env::var_os(WRITER_LOG), std::env::var_os(WRITER_ID)) {
        // The child: one writer.
        let id: u64 = id.to_string_lossy().parse().unwrap();
        let hooks = registry(audit(Path::new(&path)));
        let turn = hooks.session(format!("writer-{id}")).begin_turn();
        for i in 0..WRITER_LINES {
            let _ = turn.run_tool(ToolCall::new("ls", json!({"w": id, "i": i})), |_| {
                Ok(json!(1))
            });
        }
        return;
    }
    let dir = temp_dir();
    let path = log(&dir);
    let me = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|id| {
            std::process::Command::new(&me)
                .args([
                    "--exact",
                    "audit_log::two_processes_rotating_one_log_lose_no_line",
                    "--test-threads=1",
                ])
                .env(WRITER_LOG, &path)
                .env(WRITER_ID, id.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    for mut child in children {
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("a writer did not finish within 120 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(status.success(), "{status}");
    }
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut seen: Vec<(u64, u64)> = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(path.parent().unwrap()).unwrap() {
        let entry = entry.unwrap();
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.starts_with(&name) {
            files += 1;
            seen.extend(lines(&entry.path()).iter().map(|l| {
                (
                    l["args"]["w"].as_u64().unwrap(),
                    l["args"]["i"].as_u64().unwrap(),
                )
            }));
        }
    }
    seen.sort_unstable();
    let all: Vec<(u64, u64)> = (0..2)
        .flat_map(|w| (0..WRITER_LINES).map(move |i| (w, i)))
        .collect();
    let lost = all.len() - seen.len().min(all.len());
    println!(
        "two writers, {} lines, {files} files: {lost} lost ({:.1} %)",
        all.len(),
        lost as f64 * 100.0 / all.len() as f64
    );
    assert_eq!(seen, all);
}
