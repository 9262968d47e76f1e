//! The `command` transport against the fixture scripts in `tests/fixtures/external/`: what comes
//! back for every way a hook can end, that every failure ends within its time limit, and that no
//! process of the hook is left behind.

use std::time::{Duration, Instant};

use hookchain_external::command::{
    ArgvError, CommandHook, argv_from_line, resolve_program, shell_argv,
};
use hookchain_external::{CommandSpec, Invoke, OUTPUT_CAP, TransportError};

use crate::support::{
    self, assert_gone, fixture_str, make_executable, read_pid, shell, spec, temp_dir,
};

/// A bound on hanging, not a benchmark: generous for a loaded 2-core CI machine.
const HANG_BOUND: Duration = Duration::from_secs(5);

/// A hook running the fixture `name` with `args`.
fn hook(name: &str, args: &[&str]) -> CommandHook {
    let program = fixture_str(name);
    let mut argv = vec![program.as_str()];
    argv.extend_from_slice(args);
    CommandHook::new(spec(&argv)).unwrap()
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let out = f();
    (out, started.elapsed())
}

const PAYLOAD: &[u8] = br#"{"hook_event_name":"intercept_tool_call","tool_name":"shell"}"#;

#[test]
fn a_passing_hook_exits_0_with_empty_output() {
    let out = hook("pass.sh", &[])
        .invoke(PAYLOAD, Duration::from_secs(10))
        .unwrap();
    assert_eq!(out.exit_code, Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn payload_args_env_and_working_dir_reach_the_hook() {
    let dir = temp_dir();
    let mut spec = spec(&[&fixture_str("echo_env.sh"), "one", "two words"]);
    spec.env.insert("HOOK_GREETING".into(), "hello".into());
    spec.working_dir = Some(dir.path().to_owned());
    let out = CommandHook::new(spec)
        .unwrap()
        .invoke(PAYLOAD, Duration::from_secs(10))
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let d = dir.path().display();
    let expected = format!(
        "payload={}\nargs=one two words\ncwd={d}\nHOOKCHAIN_PROJECT_DIR={d}\nCLAUDE_PROJECT_DIR={d}\nHOOK_GREETING=hello\n",
        std::str::from_utf8(PAYLOAD).unwrap()
    );
    assert_eq!(text, expected);
}

#[test]
fn without_working_dir_the_project_dir_is_the_current_dir() {
    let out = hook("echo_env.sh", &[])
        .invoke(b"{}", Duration::from_secs(10))
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let cwd = std::env::current_dir().unwrap();
    assert!(
        text.contains(&format!("\nHOOKCHAIN_PROJECT_DIR={}\n", cwd.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("\nCLAUDE_PROJECT_DIR={}\n", cwd.display())),
        "{text}"
    );
}

#[test]
fn the_hooks_env_may_override_the_project_dir() {
    let mut spec = spec(&[&fixture_str("echo_env.sh")]);
    spec.env
        .insert("CLAUDE_PROJECT_DIR".into(), "/somewhere/else".into());
    let out = CommandHook::new(spec)
        .unwrap()
        .invoke(b"{}", Duration::from_secs(10))
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\nCLAUDE_PROJECT_DIR=/somewhere/else\n"),
        "{text}"
    );
}

#[test]
fn exit_codes_come_back_as_they_are() {
    let blocked = hook("block.sh", &[])
        .invoke(PAYLOAD, Duration::from_secs(10))
        .unwrap();
    assert_eq!(blocked.exit_code, Some(2));
    assert_eq!(blocked.stderr, b"rm -rf is not allowed here\n");
    assert!(blocked.stdout.is_empty());

    let failed = hook("fail.sh", &[])
        .invoke(PAYLOAD, Duration::from_secs(10))
        .unwrap();
    assert_eq!(failed.exit_code, Some(1));
    assert_eq!(failed.stderr, b"something went wrong\n");

    let missing = hook("missing_inside.sh", &[])
        .invoke(PAYLOAD, Duration::from_secs(10))
        .unwrap();
    assert_eq!(missing.exit_code, Some(127));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("hookchain-fixture-no-such-command"),
        "{stderr}"
    );
}

#[test]
fn junk_and_non_utf8_come_back_as_raw_bytes() {
    let junk = hook("junk.sh", &[])
        .invoke(PAYLOAD, Duration::from_secs(10))
        .unwrap();
    assert_eq!(junk.exit_code, Some(0));
    assert_eq!(junk.stdout, b"{\"decision\": \"block\", oops\n");

    let bytes = hook("non_utf8.sh", &[])
        .invoke(PAYLOAD, Duration::from_secs(10))
        .unwrap();
    assert_eq!(bytes.exit_code, Some(0));
    assert_eq!(bytes.stdout, b"\xff\xfe{\x80}\n");
    assert_eq!(bytes.stderr, b"caf\xe9\n");
}

#[test]
fn output_past_the_cap_fails_the_hook() {
    for stream in ["stdout", "stderr"] {
        let (result, elapsed) =
            timed(|| hook("big_output.sh", &[stream]).invoke(PAYLOAD, Duration::from_secs(30)));
        assert_eq!(
            result,
            Err(TransportError::OutputTooLarge {
                stream: if stream == "stdout" {
                    "stdout"
                } else {
                    "stderr"
                },
                limit: OUTPUT_CAP
            })
        );
        assert!(elapsed < HANG_BOUND, "{stream}: took {elapsed:?}");
    }
}

#[test]
fn exit_2_with_stderr_past_the_cap_still_blocks_with_the_reason_cut() {
    // Claude Code's block: exit code 2, the reason on stderr — here 2 MiB of it, twice the cap.
    let line = "cat >/dev/null; head -c 2097152 /dev/zero | tr '\\0' r >&2; exit 2";
    let hook = CommandHook::new(shell(line)).unwrap();
    let (result, elapsed) = timed(|| hook.invoke(PAYLOAD, Duration::from_secs(30)));
    let out = result.unwrap();
    assert!(elapsed < HANG_BOUND, "took {elapsed:?}");
    assert_eq!(out.exit_code, Some(2));
    let (kept, marker) = out.stderr.split_at(OUTPUT_CAP);
    assert!(kept.iter().all(|&b| b == b'r'));
    let marker = String::from_utf8(marker.to_vec()).unwrap();
    assert_eq!(
        marker,
        format!(
            "\n[hookchain: 1048576 more bytes of stderr were cut at the {OUTPUT_CAP}-byte cap]"
        )
    );
    // The protocol reads it as the block it is.
    match hookchain_external::protocol::decide(&out).unwrap().verdict {
        hookchain_external::Verdict::Block(reason) => {
            assert!(reason.starts_with("rrrr"));
            assert!(
                reason.ends_with("-byte cap]"),
                "{}",
                &reason[reason.len() - 80..]
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let dir = temp_dir();
    let pid_file = dir.path().join("grandchild.pid");
    let timeout = Duration::from_millis(500);
    let (result, elapsed) =
        timed(|| hook("sleep.sh", &[pid_file.to_str().unwrap()]).invoke(PAYLOAD, timeout));
    assert_eq!(result, Err(TransportError::Timeout(timeout)));
    assert!(elapsed >= timeout, "returned after {elapsed:?}");
    assert!(elapsed < HANG_BOUND, "took {elapsed:?}");
    assert_gone(read_pid(&pid_file));
}

#[test]
fn a_grandchild_holding_stdout_open_does_not_hold_the_firing() {
    let dir = temp_dir();
    let pid_file = dir.path().join("grandchild.pid");
    // A long time limit: the firing must end because the hook exited, not because time ran out.
    let (result, elapsed) = timed(|| {
        hook("grandchild_holds_stdout.sh", &[pid_file.to_str().unwrap()])
            .invoke(PAYLOAD, Duration::from_secs(60))
    });
    let out = result.unwrap();
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.stdout, b"{\"decision\": \"approve\"}\n");
    assert!(elapsed < HANG_BOUND, "took {elapsed:?}");
    assert_gone(read_pid(&pid_file));
}

#[test]
fn a_background_process_is_killed_when_the_hook_succeeds() {
    let dir = temp_dir();
    let pid_file = dir.path().join("background.pid");
    let out = hook("background.sh", &[pid_file.to_str().unwrap()])
        .invoke(PAYLOAD, Duration::from_secs(10))
        .unwrap();
    assert_eq!(out.exit_code, Some(0));
    assert_gone(read_pid(&pid_file));
}

#[test]
fn a_hook_that_never_reads_stdin_neither_blocks_nor_fails() {
    // Far more than a pipe holds, so the writer meets a closed pipe.
    let payload = vec![b' '; 4 * 1024 * 1024];
    let (result, elapsed) =
        timed(|| hook("ignore_stdin.sh", &[]).invoke(&payload, Duration::from_secs(10)));
    assert_eq!(result.unwrap().exit_code, Some(0));
    assert!(elapsed < HANG_BOUND, "took {elapsed:?}");
}

#[test]
fn a_hook_killed_by_a_signal_fails_naming_it() {
    match hook("self_kill.sh", &[]).invoke(PAYLOAD, Duration::from_secs(10)) {
        Err(TransportError::Io(message)) => {
            assert!(message.contains("SIGKILL (signal 9)"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn shell_strings_run_with_sh() {
    let line = "read -r payload; echo \"got $payload\"; exit 3";
    let hook = CommandHook::new(shell(line)).unwrap();
    assert!(hook.program().ends_with("sh"));
    let out = hook.invoke(b"{}\n", Duration::from_secs(10)).unwrap();
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(out.stdout, b"got {}\n");
}

#[test]
fn many_firings_at_once() {
    let hook = hook("echo_env.sh", &[]);
    std::thread::scope(|s| {
        for t in 0..8 {
            let hook = &hook;
            s.spawn(move || {
                for i in 0..5 {
                    let payload = format!("{{\"n\":\"{t}-{i}\"}}");
                    let out = hook
                        .invoke(payload.as_bytes(), Duration::from_secs(30))
                        .unwrap();
                    let text = String::from_utf8(out.stdout).unwrap();
                    assert!(text.starts_with(&format!("payload={payload}\n")), "{text}");
                }
            });
        }
    });
}

fn spawn_error(spec: CommandSpec) -> String {
    match CommandHook::new(spec) {
        Err(TransportError::Spawn { reason, .. }) => reason,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_program_is_an_error_at_load_time() {
    let reason = spawn_error(spec(&["./hooks/no-such-guard.sh"]));
    assert!(
        reason.ends_with("hooks/no-such-guard.sh` does not exist"),
        "{reason}"
    );

    let reason = spawn_error(spec(&["hookchain-no-such-program-anywhere", "--x"]));
    assert_eq!(
        reason,
        "`hookchain-no-such-program-anywhere` is not found in PATH"
    );

    let mut in_missing_dir = spec(&["sh"]);
    in_missing_dir.working_dir = Some("/hookchain/no/such/dir".into());
    let reason = spawn_error(in_missing_dir);
    assert_eq!(
        reason,
        "its working_dir `/hookchain/no/such/dir` is not a directory"
    );

    assert_eq!(spawn_error(spec(&[])), "the command is empty");
}

#[test]
fn a_non_executable_program_is_an_error_at_load_time() {
    use std::os::unix::fs::PermissionsExt;

    let dir = temp_dir();
    let script = dir.path().join("guard.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let reason = spawn_error(spec(&[script.to_str().unwrap()]));
    assert_eq!(
        reason,
        format!("`{}` is not executable (mode 644)", script.display())
    );

    let reason = spawn_error(spec(&[dir.path().to_str().unwrap()]));
    assert!(reason.ends_with("is a directory"), "{reason}");

    // Found in PATH, but not executable: said so, rather than "not found".
    let mut on_path = spec(&["guard.sh"]);
    on_path
        .env
        .insert("PATH".into(), dir.path().to_str().unwrap().into());
    let reason = spawn_error(on_path);
    assert!(reason.contains("is not executable"), "{reason}");
}

#[test]
fn programs_are_found_in_the_hooks_own_path_and_relative_to_working_dir() {
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    let script = dir.path().join("bin/guard.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    make_executable(&script);

    let mut on_path = spec(&["guard.sh"]);
    on_path.env.insert(
        "PATH".into(),
        dir.path().join("bin").to_str().unwrap().into(),
    );
    assert_eq!(resolve_program(&on_path).unwrap(), script);

    let mut relative = spec(&["./bin/guard.sh"]);
    relative.working_dir = Some(dir.path().to_owned());
    assert_eq!(
        resolve_program(&relative).unwrap(),
        dir.path().join("./bin/guard.sh")
    );
}

#[test]
fn command_lines_split_like_a_shell_without_one() {
    assert_eq!(
        argv_from_line(r#"python3 hooks/guard.py --msg "no rm -rf" $HOME 'a;b'"#).unwrap(),
        [
            "python3",
            "hooks/guard.py",
            "--msg",
            "no rm -rf",
            "$HOME",
            "a;b"
        ]
    );
    assert_eq!(argv_from_line("   "), Err(ArgvError::Empty));
    assert!(matches!(
        argv_from_line("guard.sh \"open"),
        Err(ArgvError::Unclosed { .. })
    ));
    assert_eq!(shell_argv("a | b"), ["sh", "-c", "a | b"]);
}

/// Set in the child process of [`in_child_with_secrets`]: the test runs there.
const ENV_CHILD: &str = "HOOKCHAIN_TEST_ENV_CHILD";

/// Runs `test` (the path of a test of this file) again, alone, in a child process whose
/// environment holds `HOOKCHAIN_TEST_SECRET` and `HOOKCHAIN_TEST_ALLOWED`, without touching this
/// process's own environment; asserts that it passes.
fn in_child_with_secrets(test: &str) {
    let out = support::run_alone(
        test,
        &[
            (ENV_CHILD, "1"),
            ("HOOKCHAIN_TEST_SECRET", "s3cret"),
            ("HOOKCHAIN_TEST_ALLOWED", "fine"),
        ],
    );
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The environment `env` prints, run as a hook with `env_clear` and `env_allow` as given.
fn hook_env(env_clear: bool, env_allow: &[&str]) -> String {
    let mut spec = spec(&["env"]);
    spec.env_clear = env_clear;
    spec.env_allow = env_allow.iter().map(|s| s.to_string()).collect();
    spec.env.insert("HOOK_GREETING".into(), "hello".into());
    let out = CommandHook::new(spec)
        .unwrap()
        .invoke(b"{}", Duration::from_secs(10))
        .unwrap();
    assert_eq!(out.exit_code, Some(0));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn env_clear_keeps_only_the_allowed_variables_of_the_agent() {
    if std::env::var_os(ENV_CHILD).is_none() {
        return in_child_with_secrets(concat!(
            module_path!(),
            "::env_clear_keeps_only_the_allowed_variables_of_the_agent"
        ));
    }
    let lines = |text: &str| -> Vec<String> { text.lines().map(str::to_owned).collect() };
    // Without env_clear, the hook inherits the agent's secret.
    let inherited = lines(&hook_env(false, &[]));
    assert!(inherited.contains(&"HOOKCHAIN_TEST_SECRET=s3cret".to_owned()));

    let cleared = hook_env(true, &["HOOKCHAIN_TEST_ALLOWED", "HOOKCHAIN_TEST_NOT_SET"]);
    assert!(!cleared.contains("s3cret"), "{cleared}");
    assert!(!cleared.contains("HOOKCHAIN_TEST_SECRET"), "{cleared}");
    let mut names: Vec<&str> = cleared
        .lines()
        .map(|line| line.split_once('=').unwrap().0)
        .collect();
    names.sort_unstable();
    // The allowed variable, the protocol's own, and the hook's `env`: nothing else (no PATH,
    // no HOME).
    assert_eq!(
        names,
        [
            "CLAUDE_PROJECT_DIR",
            "GEMINI_CWD",
            "GEMINI_PROJECT_DIR",
            "HOOKCHAIN_PROJECT_DIR",
            "HOOKCHAIN_TEST_ALLOWED",
            "HOOK_GREETING"
        ]
    );
    let cleared = lines(&cleared);
    assert!(cleared.contains(&"HOOKCHAIN_TEST_ALLOWED=fine".to_owned()));
    assert!(cleared.contains(&"HOOK_GREETING=hello".to_owned()));
    let cwd = std::env::current_dir().unwrap();
    assert!(cleared.contains(&format!("CLAUDE_PROJECT_DIR={}", cwd.display())));
    assert!(cleared.contains(&format!("GEMINI_PROJECT_DIR={}", cwd.display())));
}
