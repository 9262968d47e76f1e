//! One call through each external transport, next to a bare spawn of `/bin/true`, in one run.
//!
//! - `spawn_bin_true`: `std::process::Command::new("/bin/true").status()` — the floor of any
//!   spawn-per-call hook;
//! - `spawn_pass_sh`: the script `command_bash` runs, spawned directly with `std::process`: the
//!   payload written to its stdin, its output read, its exit awaited — what the `command`
//!   transport's overhead is measured against;
//! - `command_bash`: a bash script that reads the payload and passes, through the `command`
//!   transport (process group, stdin, capped stdout/stderr, timeout);
//! - `matcher_miss`: a tool call dispatched through a `Turn` whose only hook is a `command` hook
//!   matching another tool (`Bash`): nothing is spawned (the script would block, and the bench
//!   checks the call goes on);
//! - `process_worker`: the same decision from a long-lived python worker over JSON lines;
//! - `http_loopback`: the same decision from an HTTP server on 127.0.0.1 (`allow_local`).
//!
//! Every variant sends the same `intercept_tool_call` payload. Run with
//! `cargo bench --bench external`; the figures are in BENCHMARKS.md.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hookchain::HooksBuilder;
use hookchain::external::command::CommandHook;
use hookchain::external::http::HttpHook;
use hookchain::external::process::ProcessHook;
use hookchain::external::{
    CommandSpec, ConfigOrigin, Dialect, ExternalHook, HttpSpec, Invoke, Matcher, Transport,
};
use hookchain::prelude::*;

fn fixture(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "fixtures",
        "external",
        name,
    ]
    .iter()
    .collect();
    path.display().to_string()
}

fn spec(argv: Vec<String>) -> CommandSpec {
    CommandSpec {
        display: argv.join(" "),
        argv,
        env: BTreeMap::new(),
        working_dir: None,
        env_clear: false,
        env_allow: Vec::new(),
    }
}

/// A keep-alive HTTP/1.1 server on 127.0.0.1 answering every POST with `{}`.
fn serve_loopback() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut writer = stream;
                loop {
                    let mut length = 0usize;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let lower = line.to_ascii_lowercase();
                        if let Some(v) = lower.strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let reply = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
                    if writer.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://{addr}/hook")
}

fn external(c: &mut Criterion) {
    let payload = serde_json::to_vec(&serde_json::json!({
        "hook_event_name": "intercept_tool_call",
        "event": "PreToolUse",
        "session_id": "bench",
        "cwd": "/repo",
        "tool_name": "write_file",
        "tool_input": {"path": "src/lib.rs", "content": "fn main() {}"},
    }))
    .expect("payload");
    let timeout = Duration::from_secs(10);

    let command = CommandHook::new(spec(vec![fixture("pass.sh")])).expect("pass.sh");
    let worker = ProcessHook::new(spec(vec!["python3".into(), fixture("echo_worker.py")]))
        .expect("echo_worker.py");
    let http = HttpHook::new(HttpSpec {
        url: serve_loopback(),
        headers: BTreeMap::new(),
        allow_local: true,
    })
    .expect("http hook");
    // Warm the worker and the connection before measuring.
    worker.invoke(&payload, timeout).expect("worker round trip");
    http.invoke(&payload, timeout).expect("http round trip");

    // A command hook that would block, for another tool than the one dispatched.
    let hooks = HooksBuilder::new()
        .external(ExternalHook {
            point: "intercept_tool_call",
            event: "PreToolUse".to_owned(),
            name: "bash-only".to_owned(),
            transport: Transport::Command(spec(vec![fixture("block.sh")])),
            matcher: Matcher::parse(Dialect::ClaudeCode, "Bash").expect("matcher"),
            timeout,
            priority: 0,
            on_error: OnError::Block,
            dialect: Dialect::ClaudeCode,
            origin: ConfigOrigin::Code,
            required: false,
        })
        .build()
        .expect("one external hook");
    let session = hooks.session("external-bench");
    let turn = session.begin_turn();
    let read = || ToolCall::new("read_file", serde_json::json!({"path": "src/lib.rs"}));
    assert!(
        !turn.intercept_tool_call(read()).is_blocked(),
        "a matcher miss must not run the hook"
    );
    assert!(
        turn.intercept_tool_call(ToolCall::new("Bash", serde_json::json!({"command": "ls"})))
            .is_blocked(),
        "a matcher hit runs the hook, which blocks"
    );

    let mut group = c.benchmark_group("external");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("spawn_bin_true", |b| {
        b.iter(|| {
            Command::new("/bin/true")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("/bin/true")
        })
    });
    group.bench_function("spawn_pass_sh", |b| {
        b.iter(|| {
            let mut child = Command::new(fixture("pass.sh"))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("pass.sh");
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(&payload).expect("payload");
            drop(stdin);
            child.wait_with_output().expect("pass.sh")
        })
    });
    group.bench_function("command_bash", |b| {
        b.iter(|| command.invoke(&payload, timeout).expect("command"))
    });
    group.bench_function("process_worker", |b| {
        b.iter(|| worker.invoke(&payload, timeout).expect("worker"))
    });
    group.bench_function("http_loopback", |b| {
        b.iter(|| http.invoke(&payload, timeout).expect("http"))
    });
    group.bench_function("matcher_miss", |b| {
        b.iter_batched(
            read,
            |call| turn.intercept_tool_call(call),
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
    turn.end(TurnEnd::Normal);
    session.end("done");
    interleaved(&payload, &command, &worker, timeout);
}

/// Criterion times one variant after another, and on a shared machine a busy period can fall on
/// one and not another. So the spawns, the command transport and the worker are also timed
/// interleaved: rounds of a few calls of each in turn, the order rotating, and the medians
/// printed with the command transport's overhead over spawning the same script directly.
fn interleaved(payload: &[u8], command: &CommandHook, worker: &ProcessHook, timeout: Duration) {
    type Variant<'a> = (&'static str, usize, Box<dyn Fn() + 'a>);
    // The worker's floor: the same python worker, driven over its pipes by this thread alone.
    let mut direct = Command::new("python3")
        .arg(fixture("echo_worker.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("echo_worker.py");
    let direct_in = std::cell::RefCell::new(direct.stdin.take().expect("stdin"));
    let direct_out = std::cell::RefCell::new(BufReader::new(direct.stdout.take().expect("stdout")));
    let mut request = br#"{"id": 1, "payload": "#.to_vec();
    request.extend_from_slice(payload);
    request.extend_from_slice(b"}\n");
    let variants: Vec<Variant<'_>> = vec![
        (
            "spawn_pass_sh",
            5,
            Box::new(|| {
                let mut child = Command::new(fixture("pass.sh"))
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("pass.sh");
                let mut stdin = child.stdin.take().expect("stdin");
                stdin.write_all(payload).expect("payload");
                drop(stdin);
                child.wait_with_output().expect("pass.sh");
            }),
        ),
        (
            "command_bash",
            5,
            Box::new(|| {
                command.invoke(payload, timeout).expect("command");
            }),
        ),
        (
            "process_worker",
            200,
            Box::new(|| {
                worker.invoke(payload, timeout).expect("worker");
            }),
        ),
        (
            "worker_direct",
            200,
            Box::new(|| {
                direct_in.borrow_mut().write_all(&request).expect("request");
                let mut line = String::new();
                direct_out
                    .borrow_mut()
                    .read_line(&mut line)
                    .expect("answer");
                assert!(line.contains("\"id\": 1"), "{line}");
            }),
        ),
    ];
    let rounds = 60;
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for round in 0..rounds {
        for k in 0..variants.len() {
            let i = (round + k) % variants.len();
            let (_, calls, run) = &variants[i];
            let started = std::time::Instant::now();
            for _ in 0..*calls {
                run();
            }
            samples[i].push(started.elapsed().as_secs_f64() * 1e6 / *calls as f64);
        }
    }
    let medians: Vec<f64> = samples
        .into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
        .collect();
    println!("interleaved, {rounds} rounds, medians:");
    for ((name, _, _), median) in variants.iter().zip(&medians) {
        println!("  {name:<15} {median:>10.1} µs");
    }
    println!(
        "  command transport over spawning the same script: {:+.1} %",
        (medians[1] / medians[0] - 1.0) * 100.0
    );
    println!(
        "  process transport over the same worker driven directly: {:+.1} µs",
        medians[2] - medians[3]
    );
    drop(variants);
    drop(direct_in);
    let _ = direct.wait();
}

criterion_group!(benches, external);
criterion_main!(benches);
