//! Cold start of the `hookchain` binary: what one process costs from spawn to exit, the way a
//! coding agent that runs a hook command per event pays it, against spawning `/bin/true`.
//!
//! The binary is the release build (`cargo build --release -p hookchain-cli`, or the file named
//! by `HOOKCHAIN_BIN`). Each variant runs in a temporary project with `HOME` in a temporary
//! directory of its own, so no file of the machine's user is read:
//!
//! - `true`: `/bin/true`, the floor: fork, exec and wait of a program that does nothing;
//! - `version`: `hookchain --version`: the binary's own start (loading, relocations, the
//!   link-time collections) and clap, no config;
//! - `no-config`: `hookchain test PreToolUse --json --payload-file F` in a project with no
//!   `hookchain.yaml`: config discovery, the consent file, the registry, one dispatch of an
//!   empty chain;
//! - `guards`: the same with a `hookchain.yaml` enabling `destructive-commands`,
//!   `protected-paths` and `secrets`, a `git status` call (the chain passes);
//! - `guards-block`: the same guards on `rm -rf ~` (the chain blocks, exit 2);
//! - `hook-guards`, `hook-guards-block`: the same two calls as an agent's hook runs them,
//!   `hookchain hook --agent claude-code` with the PreToolUse payload on stdin (the block is
//!   Claude Code's `permissionDecision: "deny"`, exit 0). A baseline build from before `hook`
//!   existed is timed without them.
//!
//! Each round spawns every variant once, in an order that rotates from round to round, so a
//! change in the machine's load falls on all of them alike; the bench prints each variant's
//! median, 10th and 90th percentile wall clock and its ratio to `/bin/true`. Before timing it
//! checks each variant's answer (exit code and outcome), so a broken setup is an error, never
//! a fast figure. `cargo bench --bench cold_start` (`COLD_START_ROUNDS`, default 200).
//!
//! `HOOKCHAIN_BASELINE=FILE` adds the hookchain variants of another build of the binary (an
//! older commit's), named `baseline …`, to the same rounds: a before and after side by side,
//! under the same load.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// One program line to time, with the exit code and outcome it must give.
struct Variant {
    name: String,
    program: PathBuf,
    args: Vec<String>,
    exit: i32,
    /// A string stdout must hold (`""`: anything).
    answer: &'static str,
    /// The payload file fed on stdin, in the variant's project; `None`: no stdin.
    stdin: Option<&'static str>,
}

/// The project the hookchain variants run in: a `hookchain.yaml`, payload files and a HOME.
struct Project {
    _dir: tempfile::TempDir,
    bare: PathBuf,
    guarded: PathBuf,
    home: PathBuf,
}

const GUARDS_YAML: &str = "\
extensions:
  destructive-commands:
    enabled: true
  protected-paths:
    enabled: true
    paths: [\".env\", \"secrets/**\"]
  secrets:
    enabled: true
";

fn payload(command: &str) -> String {
    serde_json::json!({
        "session_id": "cold-start",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "bench"},
        "tool_use_id": "toolu_cold_start"
    })
    .to_string()
}

impl Project {
    fn new() -> std::io::Result<Project> {
        let dir = tempfile::tempdir()?;
        let home = dir.path().join("home");
        let bare = dir.path().join("bare");
        let guarded = dir.path().join("guarded");
        for d in [&home, &bare, &guarded] {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(guarded.join("hookchain.yaml"), GUARDS_YAML)?;
        for project in [&bare, &guarded] {
            std::fs::write(project.join("pass.json"), payload("git status"))?;
            std::fs::write(project.join("block.json"), payload("rm -rf ~"))?;
        }
        Ok(Project {
            _dir: dir,
            bare,
            guarded,
            home,
        })
    }

    /// The directory a variant runs in: the guarded project for the guard variants.
    fn cwd_of(&self, variant: &Variant) -> &Path {
        if variant.name.contains("guards") {
            &self.guarded
        } else {
            &self.bare
        }
    }
}

fn binary() -> Result<PathBuf, String> {
    let path = std::env::var_os("HOOKCHAIN_BIN").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/hookchain"),
        PathBuf::from,
    );
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "no hookchain binary at {}: build it with `cargo build --release -p hookchain-cli`, \
             or name one with HOOKCHAIN_BIN",
            path.display()
        ))
    }
}

/// The floor: `/bin/true`.
fn floor() -> Variant {
    Variant {
        name: "true".to_owned(),
        program: PathBuf::from("/bin/true"),
        args: Vec::new(),
        exit: 0,
        answer: "",
        stdin: None,
    }
}

/// The variants of one hookchain binary, their names after `prefix`.
fn variants(hookchain: &Path, prefix: &str, with_hook: bool) -> Vec<Variant> {
    let test = |file: &str| -> Vec<String> {
        ["test", "PreToolUse", "--json", "--payload-file", file]
            .map(String::from)
            .to_vec()
    };
    let hook: Vec<String> = ["hook", "--agent", "claude-code"]
        .map(String::from)
        .to_vec();
    let named = |v: Variant| Variant {
        name: format!("{prefix}{}", v.name),
        ..v
    };
    [
        Variant {
            name: "version".to_owned(),
            program: hookchain.to_owned(),
            args: vec!["--version".to_owned()],
            exit: 0,
            answer: "hookchain",
            stdin: None,
        },
        Variant {
            name: "no-config".to_owned(),
            program: hookchain.to_owned(),
            args: test("pass.json"),
            exit: 0,
            answer: "\"outcome\":\"continue\"",
            stdin: None,
        },
        Variant {
            name: "guards".to_owned(),
            program: hookchain.to_owned(),
            args: test("pass.json"),
            exit: 0,
            answer: "\"outcome\":\"continue\"",
            stdin: None,
        },
        Variant {
            name: "guards-block".to_owned(),
            program: hookchain.to_owned(),
            args: test("block.json"),
            exit: 2,
            answer: "\"outcome\":\"blocked\"",
            stdin: None,
        },
        Variant {
            name: "hook-guards".to_owned(),
            program: hookchain.to_owned(),
            args: hook.clone(),
            exit: 0,
            answer: "",
            stdin: Some("pass.json"),
        },
        Variant {
            name: "hook-guards-block".to_owned(),
            program: hookchain.to_owned(),
            args: hook,
            exit: 0,
            answer: "\"permissionDecision\":\"deny\"",
            stdin: Some("block.json"),
        },
    ]
    .into_iter()
    .filter(|v| with_hook || v.stdin.is_none())
    .map(named)
    .collect()
}

fn command(project: &Project, variant: &Variant) -> Command {
    let mut command = Command::new(&variant.program);
    command
        .args(&variant.args)
        .current_dir(project.cwd_of(variant))
        .env_clear()
        .env("HOME", &project.home)
        .env("PATH", "/usr/bin:/bin");
    match variant.stdin {
        Some(file) => match std::fs::File::open(project.cwd_of(variant).join(file)) {
            Ok(payload) => command.stdin(payload),
            Err(error) => panic!("{}: cannot open {file}: {error}", variant.name),
        },
        None => command.stdin(Stdio::null()),
    };
    command
}

/// Runs `variant` once and checks its answer.
fn check(project: &Project, variant: &Variant) -> Result<(), String> {
    let Output {
        status,
        stdout,
        stderr,
    } = command(project, variant).output().map_err(|e| {
        format!(
            "{}: cannot run {}: {e}",
            variant.name,
            variant.program.display()
        )
    })?;
    let stdout = String::from_utf8_lossy(&stdout);
    if status.code() != Some(variant.exit) || !stdout.contains(variant.answer) {
        return Err(format!(
            "{}: expected exit {} and `{}` on stdout, got {status}\nstdout: {stdout}\nstderr: {}",
            variant.name,
            variant.exit,
            variant.answer,
            String::from_utf8_lossy(&stderr)
        ));
    }
    Ok(())
}

/// Wall clock of one spawn of `variant`, to its exit, its output discarded.
fn time(project: &Project, variant: &Variant) -> Duration {
    let mut command = command(project, variant);
    command.stdout(Stdio::null()).stderr(Stdio::null());
    let started = Instant::now();
    let status = command.status();
    let elapsed = started.elapsed();
    assert!(status.is_ok(), "{}: spawn failed: {status:?}", variant.name);
    elapsed
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() - 1) * p / 100]
}

fn millis(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() -> Result<(), String> {
    // `cargo bench` passes `--bench`; a filter or `--list` would mean nothing here.
    let rounds: usize = match std::env::var("COLD_START_ROUNDS") {
        Ok(n) => n
            .parse()
            .map_err(|e| format!("COLD_START_ROUNDS={n}: not a number of rounds: {e}"))?,
        Err(_) => 200,
    };
    if rounds == 0 {
        return Err("COLD_START_ROUNDS=0: at least one round is needed".to_owned());
    }
    let hookchain = binary()?;
    let project = Project::new().map_err(|e| format!("cannot make the temp project: {e}"))?;
    let mut variants = vec![floor()];
    variants.extend(self::variants(&hookchain, "", true));
    if let Some(baseline) = std::env::var_os("HOOKCHAIN_BASELINE") {
        let baseline = PathBuf::from(baseline);
        if !baseline.is_file() {
            return Err(format!(
                "HOOKCHAIN_BASELINE={}: no such file (a hookchain binary of another build)",
                baseline.display()
            ));
        }
        variants.extend(self::variants(&baseline, "baseline ", false));
    }
    for variant in &variants {
        check(&project, variant)?;
    }
    let mut samples: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); variants.len()];
    for round in 0..rounds {
        for k in 0..variants.len() {
            let i = (round + k) % variants.len();
            samples[i].push(time(&project, &variants[i]));
        }
    }
    for s in &mut samples {
        s.sort();
    }
    let floor = percentile(&samples[0], 50);
    println!(
        "cold start, {rounds} interleaved rounds, binary {}",
        hookchain.display()
    );
    println!("| variant | median | p10 | p90 | median / `/bin/true` |");
    println!("|---|---|---|---|---|");
    for (variant, s) in variants.iter().zip(&samples) {
        let median = percentile(s, 50);
        println!(
            "| {} | {} | {} | {} | {:.1}× |",
            variant.name,
            millis(median),
            millis(percentile(s, 10)),
            millis(percentile(s, 90)),
            median.as_secs_f64() / floor.as_secs_f64()
        );
    }
    Ok(())
}
