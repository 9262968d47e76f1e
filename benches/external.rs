//! One call through each external transport, next to a bare spawn of `/bin/true`, in one run.
//!
//! - `spawn_bin_true`: `std::process::Command::new("/bin/true").status()` — the floor of any
//!   spawn-per-call hook;
//! - `command_bash`: a bash script that reads the payload and passes, through the `command`
//!   transport (process group, stdin, capped stdout/stderr, timeout);
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
use hookchain::external::command::CommandHook;
use hookchain::external::http::HttpHook;
use hookchain::external::process::ProcessHook;
use hookchain::external::{CommandSpec, HttpSpec, Invoke};

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
    group.bench_function("command_bash", |b| {
        b.iter(|| command.invoke(&payload, timeout).expect("command"))
    });
    group.bench_function("process_worker", |b| {
        b.iter(|| worker.invoke(&payload, timeout).expect("worker"))
    });
    group.bench_function("http_loopback", |b| {
        b.iter(|| http.invoke(&payload, timeout).expect("http"))
    });
    group.finish();
}

criterion_group!(benches, external);
criterion_main!(benches);
