//! `git-checkpoint` against real projects: a git repository with commits, staged and unstaged
//! changes, a stash and ignored files, whose own git must come out byte-identical; a directory
//! that is not a repository; config from `hookchain.yaml`, from Rust and from docker-agent's
//! agent file; and a machine without git. (`hookchain test` tries it in the root crate's
//! `tests/config/guards.rs`, with the other guards.)
//!
//! Every test skips, saying why, when `git` is not installed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use hookchain::config::ConfigBuilderExt;
use hookchain_core::points::{InterceptToolCall, Notification, Notify};
use hookchain_core::{Flow, HookContext, ToolCall};
use hookchain_guards::git_checkpoint::{Label, STATE_KEY, Trigger};
use hookchain_guards::{BuiltinsExt, GitCheckpoint};
use hookchain_runtime::HooksBuilder;
use serde_json::json;

use tempfile::TempDir;

use crate::support::{git, temp_dir};

/// A temporary directory, unique to the test, removed when dropped: `project/` and the
/// checkpoints' `state/`.
struct Temp(TempDir);

impl Temp {
    fn new() -> Temp {
        let dir = temp_dir();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        Temp(dir)
    }

    /// The project directory.
    fn project(&self) -> PathBuf {
        self.0.path().join("project").canonicalize().unwrap()
    }

    /// The guard's config: this project, checkpoints kept in this directory.
    fn guard(&self) -> GitCheckpoint {
        GitCheckpoint {
            project_dir: Some(self.project().display().to_string()),
            dir: Some(self.0.path().join("state").display().to_string()),
            ..GitCheckpoint::default()
        }
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.project().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.project().join(name)).ok()
    }

    /// The files checkpoint `id` holds, read from the shadow repository.
    fn files_in(&self, id: &str) -> Vec<String> {
        let state = self.0.path().join("state");
        let shadow = std::fs::read_dir(&state)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let out = Command::new("git")
            .args(["ls-tree", "-r", "--name-only", id])
            .env("GIT_DIR", &shadow)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// `false`, saying so, when git is not installed: the test is skipped.
fn have_git(test: &str) -> bool {
    let found = Command::new("git").arg("--version").output().is_ok();
    if !found {
        println!("{test}: skipped, git is not installed");
    }
    found
}

/// Every file under `.git`, by path, with its bytes.
fn dot_git(project: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(&project.join(".git"), &mut files);
    files
}

/// What the user sees of their repository: status, history, stash, refs.
fn user_view(project: &Path) -> [String; 4] {
    [
        git(project, &["status", "--porcelain", "--untracked-files=all"]),
        git(project, &["log", "--all", "--format=%H %s"]),
        git(project, &["stash", "list"]),
        git(project, &["for-each-ref"]),
    ]
}

fn label(trigger: Trigger) -> Label {
    Label {
        session: "s1".into(),
        turn: 0,
        trigger,
    }
}

#[test]
fn snapshots_and_restores_leave_the_users_git_byte_identical() {
    if !have_git("byte_identical") {
        return;
    }
    let temp = Temp::new();
    let project = temp.project();
    git(&project, &["init", "-q"]);
    temp.write(".gitignore", "*.log\n");
    temp.write("a.txt", "a1\n");
    temp.write("b.txt", "b1\n");
    temp.write("c.txt", "c1\n");
    git(&project, &["add", "."]);
    git(&project, &["commit", "-q", "-m", "first"]);
    temp.write("a.txt", "a2\n");
    git(&project, &["commit", "-q", "-am", "second"]);
    temp.write("b.txt", "stashed\n");
    git(&project, &["stash", "push", "-q", "-m", "kept for later"]);
    temp.write("a.txt", "a3 staged\n");
    git(&project, &["add", "a.txt"]);
    temp.write("b.txt", "b2 unstaged\n");
    temp.write("untracked.txt", "u\n");
    temp.write("debug.log", "ignored\n");

    let files_before = dot_git(&project);
    let view_before = user_view(&project);

    let guard = temp.guard();
    let hooks = HooksBuilder::new().builtin(guard.clone()).build().unwrap();
    let turn = hooks.session("identical").begin_turn();
    assert!(turn.turn_start("change things").continued().is_some());
    let first: String = turn
        .state()
        .get(STATE_KEY)
        .expect("a checkpoint at turn start");

    // The agent edits, deletes and creates files, then writes again.
    temp.write("b.txt", "b3 by the agent\n");
    std::fs::remove_file(project.join("c.txt")).unwrap();
    temp.write("src/new.rs", "fn main() {}\n");
    let call = ToolCall::new("write_file", json!({"path": "src/new.rs", "content": "x"}));
    assert!(!turn.intercept_tool_call(call).is_blocked());
    let second: String = turn.state().get(STATE_KEY).unwrap();
    assert_ne!(first, second, "the files changed, so a new checkpoint");

    let restored = guard.restore(&project, &first).unwrap();
    assert_eq!(
        temp.read("b.txt").as_deref(),
        Some("b2 unstaged\n"),
        "edited file back"
    );
    assert_eq!(
        temp.read("c.txt").as_deref(),
        Some("c1\n"),
        "deleted file back"
    );
    assert_eq!(temp.read("src/new.rs"), None, "created file removed");
    assert!(
        !project.join("src").exists(),
        "the directory it left empty is removed"
    );
    assert_eq!(restored.removed, ["src/new.rs"]);
    assert_eq!(restored.written, ["b.txt", "c.txt"]);
    assert!(restored.left_alone.is_empty(), "{:?}", restored.left_alone);
    assert_eq!(temp.read("debug.log").as_deref(), Some("ignored\n"));

    assert!(
        dot_git(&project) == files_before,
        "the user's .git (index, refs, objects, stash, logs) is byte-identical"
    );
    assert_eq!(user_view(&project), view_before);
    let files = temp.files_in(&first);
    assert!(!files.iter().any(|f| f == "debug.log"), "{files:?}");
    assert!(!files.iter().any(|f| f.starts_with(".git/")), "{files:?}");

    // The restore took a checkpoint first: restoring it undoes the restore.
    let undo = guard.restore(&project, &restored.before).unwrap();
    assert_eq!(undo.checkpoint, second);
    assert_eq!(temp.read("b.txt").as_deref(), Some("b3 by the agent\n"));
    assert_eq!(temp.read("src/new.rs").as_deref(), Some("fn main() {}\n"));
    assert_eq!(temp.read("c.txt"), None);
    assert!(dot_git(&project) == files_before);

    let list = guard.list(&project).unwrap();
    let triggers: Vec<&str> = list.iter().map(|c| c.trigger.as_str()).collect();
    assert_eq!(
        triggers,
        [
            format!("restore {}", &second[..12]).as_str(),
            "tool write_file",
            "turn_start"
        ],
        "newest first: the undo took one of the restored files"
    );
    assert_eq!(
        restored.before, second,
        "the files before the first restore were the tool's checkpoint's: no new one"
    );
    assert_eq!(list[2].id, first);
    assert_eq!(list[2].session, "identical");
    assert_eq!(
        list[1].summary,
        "before `write_file` (session identical, turn 0)"
    );
}

#[test]
fn ignored_excluded_and_large_files_are_not_snapshotted_nor_touched_by_a_restore() {
    if !have_git("ignored") {
        return;
    }
    let temp = Temp::new();
    let project = temp.project();
    git(&project, &["init", "-q"]);
    temp.write(".gitignore", "secret.env\nbuild/\n");
    temp.write(".git/info/exclude", "local-notes.md\n");
    temp.write("kept.txt", "kept\n");
    temp.write("secret.env", "TOKEN=1\n");
    temp.write("build/out.bin", "binary\n");
    temp.write("local-notes.md", "mine\n");
    temp.write("big.txt", &"x".repeat(2000));
    temp.write("nested/repo/inner.txt", "inner\n");
    git(&project.join("nested/repo"), &["init", "-q"]);
    let guard = GitCheckpoint {
        max_file_bytes: 1000,
        ..temp.guard()
    };
    let snapshot = guard
        .snapshot(&project, &label(Trigger::TurnStart))
        .unwrap();
    assert_eq!(snapshot.too_large, 1);
    assert_eq!(temp.files_in(&snapshot.id), [".gitignore", "kept.txt"]);
    assert_eq!(
        guard.list(&project).unwrap()[0].left_out.as_deref(),
        Some("1 files over 1000 bytes")
    );

    // Files no checkpoint holds survive a restore, created after the checkpoint or not.
    temp.write("secret.env", "TOKEN=2\n");
    temp.write("build/new.bin", "new\n");
    temp.write("big.txt", &"y".repeat(2000));
    temp.write("kept.txt", "changed\n");
    guard.restore(&project, &snapshot.id[..8]).unwrap();
    assert_eq!(temp.read("kept.txt").as_deref(), Some("kept\n"));
    assert_eq!(temp.read("secret.env").as_deref(), Some("TOKEN=2\n"));
    assert_eq!(temp.read("build/new.bin").as_deref(), Some("new\n"));
    assert_eq!(temp.read("big.txt"), Some("y".repeat(2000)));
    assert_eq!(temp.read("local-notes.md").as_deref(), Some("mine\n"));
    assert_eq!(
        temp.read("nested/repo/inner.txt").as_deref(),
        Some("inner\n")
    );
}

#[test]
fn a_file_that_grew_past_the_cap_is_left_alone_and_the_total_cap_warns() {
    if !have_git("caps") {
        return;
    }
    let temp = Temp::new();
    let project = temp.project();
    temp.write("log.txt", "short\n");
    let guard = GitCheckpoint {
        max_file_bytes: 100,
        max_total_bytes: 150,
        ..temp.guard()
    };
    let first = guard
        .snapshot(&project, &label(Trigger::TurnStart))
        .unwrap();
    temp.write("log.txt", &"z".repeat(500));
    let restored = guard.restore(&project, &first.id).unwrap();
    assert_eq!(
        temp.read("log.txt"),
        Some("z".repeat(500)),
        "never overwritten"
    );
    assert_eq!(restored.left_alone.len(), 1);
    assert!(
        restored.left_alone[0].1.contains("no checkpoint holds it"),
        "{:?}",
        restored.left_alone
    );

    temp.write("a.txt", &"a".repeat(90));
    temp.write("b.txt", &"b".repeat(90));
    let hooks = HooksBuilder::new().builtin(guard).build().unwrap();
    let turn = hooks.session("caps").begin_turn();
    assert!(turn.turn_start("go").continued().is_some());
    let warnings = turn.take_warnings();
    assert!(
        warnings.len() == 1
            && warnings[0].contains("leaves out 1 files")
            && warnings[0].contains("max_total_bytes"),
        "{warnings:?}"
    );
}

#[test]
fn a_directory_that_is_not_a_repository_is_snapshotted_and_restored() {
    if !have_git("plain") {
        return;
    }
    let temp = Temp::new();
    let project = temp.project();
    temp.write("notes/todo.md", "- one\n");
    temp.write("keep.txt", "keep\n");
    let guard = temp.guard();
    let first = guard
        .snapshot(&project, &label(Trigger::TurnStart))
        .unwrap();
    assert!(first.new);
    let again = guard
        .snapshot(&project, &label(Trigger::Tool("edit_file".into())))
        .unwrap();
    assert_eq!(
        (again.id.as_str(), again.new),
        (first.id.as_str(), false),
        "nothing changed"
    );

    temp.write("notes/todo.md", "- one\n- two\n");
    std::fs::remove_file(project.join("keep.txt")).unwrap();
    temp.write("extra.txt", "made later\n");
    let restored = guard.restore(&project, &first.id).unwrap();
    assert_eq!(temp.read("notes/todo.md").as_deref(), Some("- one\n"));
    assert_eq!(temp.read("keep.txt").as_deref(), Some("keep\n"));
    assert_eq!(temp.read("extra.txt"), None);
    assert_eq!(restored.removed, ["extra.txt"]);
    assert!(
        !project.join(".git").exists(),
        "no repository is made in the project"
    );

    let error = guard.restore(&project, "deadbeef").unwrap_err().to_string();
    assert!(
        error.starts_with("no checkpoint `deadbeef` for "),
        "{error}"
    );
    let error = guard.restore(&project, "HEAD~1").unwrap_err().to_string();
    assert!(error.starts_with("no checkpoint `HEAD~1`"), "{error}");
}

#[test]
fn enabled_from_rust_it_snapshots_at_turn_start_and_before_write_tools_only() {
    if !have_git("rust") {
        return;
    }
    let temp = Temp::new();
    temp.write("main.rs", "fn main() {}\n");
    let guard = GitCheckpoint {
        turn_end: true,
        ..temp.guard()
    };
    let hooks = HooksBuilder::new().builtin(guard.clone()).build().unwrap();
    let session = hooks.session("rust");
    let turn = session.begin_turn();
    turn.turn_start("hi").continued().unwrap();
    temp.write("main.rs", "fn main() { todo() }\n");
    let read = ToolCall::new("read_file", json!({"path": "main.rs"}));
    assert!(!turn.intercept_tool_call(read).is_blocked());
    assert_eq!(
        guard.list(&temp.project()).unwrap().len(),
        1,
        "a read takes none"
    );
    let shell = ToolCall::new("bash", json!({"command": "cargo fmt"}));
    let outcome = turn.fire::<InterceptToolCall>(shell);
    assert!(!outcome.flow.is_blocked());
    let id = outcome.metadata[STATE_KEY].as_str().unwrap().to_owned();
    assert_eq!(turn.state().get::<String>(STATE_KEY), Some(id.clone()));
    temp.write("main.rs", "fn main() { done() }\n");
    turn.end(hookchain_core::TurnEnd::Normal);
    let list = guard.list(&temp.project()).unwrap();
    let triggers: Vec<&str> = list.iter().map(|c| c.trigger.as_str()).collect();
    assert_eq!(triggers, ["turn_end", "tool bash", "turn_start"]);
    assert_eq!(list[1].id, id);
    assert_eq!(
        session.state().get::<String>(STATE_KEY),
        Some(list[0].id.clone())
    );
}

#[test]
fn enabled_from_hookchain_yaml_and_a_misspelt_field_names_file_and_line() {
    if !have_git("yaml") {
        return;
    }
    let temp = Temp::new();
    temp.write("a.txt", "a\n");
    let yaml = format!(
        "extensions:\n  git-checkpoint:\n    enabled: true\n    tools: [apply_patch]\n    project_dir: {}\n    dir: {}\n",
        temp.project().display(),
        temp.0.path().join("state").display()
    );
    let config = hookchain::config::Config::from_user_yaml_str(&yaml, "./hookchain.yaml").unwrap();
    let hooks = HooksBuilder::new().config(config).build().unwrap();
    let turn = hooks.session("yaml").begin_turn();
    turn.turn_start("hi").continued().unwrap();
    temp.write("a.txt", "b\n");
    let write = ToolCall::new("write_file", json!({"path": "a.txt"}));
    assert!(!turn.intercept_tool_call(write).is_blocked());
    let patch = ToolCall::new("apply_patch", json!({"input": "..."}));
    assert!(!turn.intercept_tool_call(patch).is_blocked());
    let list = temp.guard().list(&temp.project()).unwrap();
    let triggers: Vec<&str> = list.iter().map(|c| c.trigger.as_str()).collect();
    assert_eq!(
        triggers,
        ["tool apply_patch", "turn_start"],
        "only the tools listed"
    );

    let typo = "extensions:\n  git-checkpoint:\n    enabled: true\n    max_file_byte: 10\n";
    let config = hookchain::config::Config::from_yaml_str(typo, "./hookchain.yaml").unwrap();
    let error = HooksBuilder::new()
        .config(config)
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("extension `git-checkpoint` in ./hookchain.yaml line 4"),
        "{error}"
    );
    assert!(error.contains("unknown field `max_file_byte`"), "{error}");
}

#[test]
fn a_time_limit_cut_warns_and_the_next_snapshot_works() {
    if !have_git("timeout") {
        return;
    }
    let temp = Temp::new();
    temp.write("a.txt", "a\n");
    let hurried = GitCheckpoint {
        timeout_ms: 0,
        ..temp.guard()
    };
    let hooks = HooksBuilder::new().builtin(hurried).build().unwrap();
    let turn = hooks.session("timeout").begin_turn();
    let call = ToolCall::new("edit_file", json!({"path": "a.txt"}));
    assert!(
        !turn.intercept_tool_call(call).is_blocked(),
        "a failed snapshot does not block"
    );
    let warnings = turn.take_warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("did not finish within 0 ms") && w.contains("goes on without one")),
        "{warnings:?}"
    );
    let snapshot = temp
        .guard()
        .snapshot(&temp.project(), &label(Trigger::TurnStart))
        .unwrap();
    assert_eq!(temp.files_in(&snapshot.id), ["a.txt"]);
}

/// The environment variable that makes [`without_git_a_snapshot_warns_and_required_blocks`] run
/// its body (in a child process whose PATH has no git).
const NO_GIT_CHILD: &str = "HOOKCHAIN_CHECKPOINT_TEST_NO_GIT";

#[test]
fn without_git_a_snapshot_warns_and_required_blocks() {
    if std::env::var_os(NO_GIT_CHILD).is_none() {
        if !have_git("no_git") {
            return;
        }
        // PATH is the process's: the body runs in a child of its own, with an empty PATH.
        let empty = Temp::new();
        // The test's name as the harness knows it: its module path without the crate's name.
        let (_, module) = module_path!().split_once("::").unwrap();
        let name = format!("{module}::without_git_a_snapshot_warns_and_required_blocks");
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &name])
            .args(["--nocapture", "--test-threads=1"])
            .env(NO_GIT_CHILD, "1")
            .env("PATH", empty.project())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{text}");
        assert!(text.contains("1 passed"), "{text}");
        return;
    }
    let temp = Temp::new();
    temp.write("a.txt", "a\n");
    let heard = Arc::new(Mutex::new(Vec::new()));
    let hooks = guarded(temp.guard(), &heard);
    let turn = hooks.session("no-git").begin_turn();
    assert!(
        turn.turn_start("hi").continued().is_some(),
        "the turn goes on"
    );
    let call = ToolCall::new("write_file", json!({"path": "a.txt"}));
    assert!(
        !turn.intercept_tool_call(call.clone()).is_blocked(),
        "the write goes on"
    );
    let warnings = turn.take_warnings();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("git is not installed"), "{warnings:?}");
    let notified = std::mem::take(&mut *heard.lock().unwrap());
    assert!(
        notified.len() == 2
            && notified
                .iter()
                .all(|m| m.contains("git-checkpoint") && m.contains("git is not installed")),
        "{notified:?}"
    );
    assert_eq!(turn.state().get::<String>(STATE_KEY), None);

    let strict = GitCheckpoint {
        required: true,
        turn_end: true,
        ..temp.guard()
    };
    let hooks = guarded(strict, &heard);
    let turn = hooks.session("no-git-required").begin_turn();
    let Flow::Blocked(blocked) = turn.intercept_tool_call(call) else {
        panic!("required: a write without a checkpoint is blocked");
    };
    assert_eq!(&*blocked.hook, "git-checkpoint");
    assert!(
        blocked
            .reason
            .starts_with("git-checkpoint: no checkpoint of ")
            && blocked.reason.contains("git is not installed")
            && blocked.reason.contains("required: true"),
        "{}",
        blocked.reason
    );
    assert!(
        turn.turn_start("hi").continued().is_none(),
        "nor does the turn start"
    );
    turn.end(hookchain_core::TurnEnd::Normal);
    let notified = heard.lock().unwrap().clone();
    assert!(
        notified.len() == 1
            && notified[0].contains("required: true")
            && notified[0].contains("on `turn_end`"),
        "turn_end cannot block, so it warns: {notified:?}"
    );
}

/// A registry with `guard`, and a hook that keeps every notification's message in `heard`.
fn guarded(guard: GitCheckpoint, heard: &Arc<Mutex<Vec<String>>>) -> hookchain_runtime::Hooks {
    let sink = Arc::clone(heard);
    HooksBuilder::new()
        .builtin(guard)
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            sink.lock().unwrap().push(n.message.clone());
        })
        .build()
        .unwrap()
}

#[test]
fn docker_agents_snapshot_builtin_loads_as_the_guard() {
    if !have_git("docker_agent") {
        return;
    }
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/docker-agent/snapshot_hooks.yaml");
    let config = hookchain::config::Config::load_docker_agent(&fixture).unwrap();
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    assert!(config.external_hooks().is_empty());
    let section = config.section("git-checkpoint").unwrap();
    assert_eq!(section["turn_start"], true);
    assert_eq!(
        section["tools"],
        json!(["shell", "edit_file", "write_file"])
    );
    assert_eq!(section["turn_end"], true, "turn_end and session_end");
    // Where it snapshots is the session's project (or the user's setting), never the agent
    // file's say: a repository's agent file is held to the project rule.
    assert!(section.get("project_dir").is_none(), "{section:?}");

    // Run it on a project of the test's own, keeping the fixture's triggers.
    let temp = Temp::new();
    temp.write("a.txt", "a\n");
    let config = config.extension(
        "git-checkpoint",
        json!({"project_dir": temp.project(), "dir": temp.0.path().join("state")}),
    );
    let hooks = HooksBuilder::new().config(config).build().unwrap();
    let turn = hooks.session("docker-agent").begin_turn();
    turn.turn_start("hi").continued().unwrap();
    temp.write("a.txt", "b\n");
    let call = ToolCall::new("shell", json!({"cmd": "make"}));
    assert!(!turn.intercept_tool_call(call).is_blocked());
    let list = temp.guard().list(&temp.project()).unwrap();
    let triggers: Vec<&str> = list.iter().map(|c| c.trigger.as_str()).collect();
    assert_eq!(triggers, ["tool shell", "turn_start"]);

    let bad = "agents:\n  root:\n    hooks:\n      turn_start:\n        - type: builtin\n          command: snapshot\n          args: [all]\n";
    let config = hookchain::config::Config::from_docker_agent_str(bad, "agent.yaml").unwrap();
    assert!(config.section("git-checkpoint").is_none());
    assert!(
        config.warnings()[0].contains("line 5")
            && config.warnings()[0].contains("`snapshot` takes no `args`"),
        "{:?}",
        config.warnings()
    );
}

#[test]
fn checkpoints_kept_inside_the_project_are_not_snapshotted() {
    if !have_git("inside") {
        return;
    }
    let temp = Temp::new();
    let project = temp.project();
    temp.write("a.txt", "a\n");
    let guard = GitCheckpoint {
        dir: Some(project.join(".checkpoints").display().to_string()),
        ..temp.guard()
    };
    let first = guard
        .snapshot(&project, &label(Trigger::TurnStart))
        .unwrap();
    assert_eq!(first.files, 1, "a.txt only, not the shadow repository");
    let again = guard.snapshot(&project, &label(Trigger::TurnEnd)).unwrap();
    assert!(
        !again.new,
        "the shadow repository's own writes are no change"
    );
}

#[cfg(unix)]
#[test]
fn a_restore_brings_back_symlinks_and_the_executable_bit() {
    use std::os::unix::fs::PermissionsExt;
    if !have_git("modes") {
        return;
    }
    let temp = Temp::new();
    let project = temp.project();
    temp.write("run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(
        project.join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::os::unix::fs::symlink("run.sh", project.join("latest")).unwrap();
    let guard = temp.guard();
    let first = guard
        .snapshot(&project, &label(Trigger::TurnStart))
        .unwrap();
    std::fs::remove_file(project.join("run.sh")).unwrap();
    std::fs::remove_file(project.join("latest")).unwrap();
    guard.restore(&project, &first.id).unwrap();
    let mode = std::fs::metadata(project.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "{mode:o}");
    assert_eq!(
        std::fs::read_link(project.join("latest")).unwrap(),
        Path::new("run.sh")
    );
}

#[test]
fn parallel_snapshots_of_one_project_take_turns() {
    if !have_git("parallel") {
        return;
    }
    let temp = Temp::new();
    let project = temp.project();
    temp.write("a.txt", "a\n");
    let guard = temp.guard();
    let ids: Vec<String> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..4)
            .map(|i| {
                let (guard, project) = (&guard, &project);
                s.spawn(move || {
                    let trigger = Trigger::Tool(format!("tool-{i}"));
                    guard.snapshot(project, &label(trigger)).unwrap().id
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert!(
        ids.iter().all(|id| *id == ids[0]),
        "one set of files, one checkpoint: {ids:?}"
    );
    assert_eq!(guard.list(&project).unwrap().len(), 1);
}
