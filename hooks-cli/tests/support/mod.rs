//! What the tests of the `hookchain` binary under an agent share: temporary directories, a copy
//! of an agent's fixtures (`tests/fixtures/agents/AGENT/`), the binary run with a temporary home
//! directory (`HOME`), fixture payloads with their `cwd` rewritten, and the guest check of every
//! fixture payload. Each test program declares it with `mod support;` and uses some of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hookchain_core::points;
use hookchain_external::{Dialect, RawOutput};
use serde_json::Value;
use tempfile::TempDir;

/// The destructive-commands guard as hookchain's projects configure it.
pub(crate) const GUARD: &str = "extensions:\n  destructive-commands:\n    enabled: true\n    protected_branches: [main, master]\n";

/// The fixtures of `agent` (`codex`, `gemini`, `cursor`, `copilot`), in the source tree.
pub(crate) fn fixtures(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/agents")
        .join(agent)
}

/// A fresh, empty directory under the system's temporary directory, removed when dropped. Its
/// path has no symbolic link in it, so that it reads the same as a script's `pwd`.
pub(crate) fn temp() -> TempDir {
    let base = std::env::temp_dir().canonicalize().unwrap();
    tempfile::Builder::new()
        .prefix("hookchain-")
        .tempdir_in(base)
        .unwrap()
}

/// `from` copied into `to`, recursively, file modes kept.
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

/// The JSON payload in the file `payload`, its `cwd` replaced by `cwd`.
pub(crate) fn with_cwd(payload: &Path, cwd: &Path) -> String {
    let text = std::fs::read_to_string(payload).unwrap();
    let mut json: Value = serde_json::from_str(&text).unwrap();
    json["cwd"] = Value::from(cwd.display().to_string());
    json.to_string()
}

/// What a run of `hookchain` answered.
#[derive(Debug)]
pub(crate) struct Run {
    /// The exit code, -1 when a signal ended the process.
    pub(crate) code: i32,
    /// Standard output.
    pub(crate) out: String,
    /// Standard error.
    pub(crate) err: String,
}

impl Run {
    /// Standard output read as JSON; panics naming the run when it is not.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.out)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// The run as a hook process's output, for a host's reading of answers.
    pub(crate) fn raw(&self) -> RawOutput {
        RawOutput {
            exit_code: Some(self.code),
            stdout: self.out.clone().into_bytes(),
            stderr: self.err.clone().into_bytes(),
        }
    }
}

/// The `hookchain` binary run with `args` in `cwd`, `home` as its home directory and `stdin` on
/// its standard input; `HOOKCHAIN_ACCEPT_HOOKS` and `CLAUDE_PROJECT_DIR` removed from its
/// environment.
pub(crate) fn hookchain(cwd: &Path, home: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookchain"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("HOOKCHAIN_ACCEPT_HOOKS")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&output.stdout).into_owned(),
        err: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A copy of one agent's fixture directory and an empty home directory (with its
/// `.config/hookchain`), both removed when dropped. The binary runs in the copy's project
/// sub-directory.
pub(crate) struct Sandbox {
    /// The home directory.
    pub(crate) home: TempDir,
    /// The copy of the agent's fixture directory.
    pub(crate) root: TempDir,
    agent: String,
    project: PathBuf,
}

impl Sandbox {
    /// `tests/fixtures/agents/AGENT/` copied, its `project` sub-directory the project.
    pub(crate) fn new(agent: &str, project: &str) -> Sandbox {
        let home = temp();
        let root = temp();
        copy_dir(&fixtures(agent), root.path());
        std::fs::create_dir_all(home.path().join(".config/hookchain")).unwrap();
        let project = root.path().join(project);
        Sandbox {
            home,
            root,
            agent: agent.to_owned(),
            project,
        }
    }

    /// The copy's project directory.
    pub(crate) fn project(&self) -> PathBuf {
        self.project.clone()
    }

    /// `hookchain ARGS` in the project, `stdin` on its standard input.
    pub(crate) fn run(&self, args: &[&str], stdin: &str) -> Run {
        hookchain(&self.project, self.home.path(), args, stdin)
    }

    /// `hookchain --config CONFIG [--consent-file CONSENT] --accept-hooks test EVENT
    /// --payload-file FILE --json` in the project, `payload` written to FILE (in the copy's
    /// root).
    pub(crate) fn test(
        &self,
        config: &str,
        consent: Option<&Path>,
        event: &str,
        payload: &str,
    ) -> Run {
        let file = self.root.path().join("payload.json");
        std::fs::write(&file, payload).unwrap();
        let file = file.display().to_string();
        let consent = consent.map(|path| path.display().to_string());
        let mut args = vec!["--config", config];
        if let Some(consent) = &consent {
            args.extend(["--consent-file", consent.as_str()]);
        }
        args.extend([
            "--accept-hooks",
            "test",
            event,
            "--payload-file",
            &file,
            "--json",
        ]);
        self.run(&args, "")
    }

    /// The agent's fixture payload `payloads/NAME.json`, in the source tree.
    pub(crate) fn payload_file(&self, name: &str) -> PathBuf {
        fixtures(&self.agent)
            .join("payloads")
            .join(format!("{name}.json"))
    }

    /// [`test`](Self::test) with the project's `config` (approved by `--accept-hooks`) on the
    /// JSON payload in the file `payload`, its `cwd` the project: the run and its stdout as JSON.
    pub(crate) fn test_file(&self, config: &str, event: &str, payload: &Path) -> (Run, Value) {
        let config = self.project.join(config).display().to_string();
        let payload = with_cwd(payload, &self.project);
        let run = self.test(&config, None, event, &payload);
        let json = run.json();
        (run, json)
    }
}

/// Every fixture payload of `agent` (`payloads/*.json`, in name order), its `cwd` the project,
/// through `hookchain hook --agent AGENT` in `sandbox`: an event with no point fails open (no
/// exit 2, nothing on stdout, as the host takes a failed hook); every other answer reads back
/// without a failure as `dialect` reads answers (`host` names the agent in the messages).
/// Gives back the payload of `tool_event`'s fixture with its command a force push.
pub(crate) fn hook_every_payload(
    sandbox: &Sandbox,
    agent: &str,
    dialect: Dialect,
    tool_event: &str,
    host: &str,
) -> Value {
    let cwd = sandbox.project().display().to_string();
    let mut payloads: Vec<PathBuf> = std::fs::read_dir(fixtures(agent).join("payloads"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    payloads.sort();
    let mut force_push = None;
    for path in &payloads {
        let mut payload: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        payload["cwd"] = Value::from(cwd.as_str());
        if path.ends_with(format!("{tool_event}.json")) {
            let mut push = payload.clone();
            push["tool_input"]["command"] = Value::from("git push --force origin main");
            force_push = Some(push);
        }
        let event = payload["hook_event_name"].as_str().unwrap().to_owned();
        let run = sandbox.run(&["hook", "--agent", agent], &payload.to_string());
        let Some(point) = points::resolve(&event).map(|p| p.name) else {
            assert!(run.code != 2 && run.out.is_empty(), "{event}: {run:?}");
            continue;
        };
        let answer =
            hookchain_external::wire::agents::read_answer(dialect, point, &event, &run.raw());
        assert!(
            answer.is_ok(),
            "{}: {host} would count {run:?} as failed: {answer:?}",
            path.display()
        );
    }
    force_push.unwrap_or_else(|| panic!("the fixtures have {tool_event}.json"))
}
