//! What a config file must be before any parser sees it: a regular file (not a FIFO, which would
//! hang start-up, nor a device such as `/dev/zero`, which would be read until memory runs out),
//! of at most 1 MiB, nested at most 64 levels deep (deeply nested YAML takes the parser seconds
//! to refuse). Each is an error naming the file; each case runs on a thread with a deadline, so a
//! hang fails the test instead of hanging it.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use hookchain::config::Config;
use tempfile::TempDir;

use crate::support::temp_dir;

/// A directory of its own for one test, removed when the test ends.
struct Scratch(TempDir);

impl Scratch {
    fn new() -> Scratch {
        Scratch(temp_dir())
    }
}

/// The error `Config::load(path)` gives, within ten seconds.
fn load_error(path: &Path) -> String {
    let (done, result) = mpsc::channel();
    let path = path.to_owned();
    std::thread::spawn(move || {
        let _ = done.send(Config::load(&path).map(|_| ()).map_err(|e| e.to_string()));
    });
    match result.recv_timeout(Duration::from_secs(10)) {
        Ok(Err(message)) => message,
        Ok(Ok(())) => panic!("the file loaded"),
        Err(_) => panic!("loading the file did not return within 10 s"),
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_not_waited_on() {
    let dir = Scratch::new();
    let fifo = dir.0.path().join("hookchain.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let message = load_error(&fifo);
    assert!(message.contains("not a regular file"), "{message}");
    assert!(message.contains(&fifo.display().to_string()), "{message}");
}

#[cfg(unix)]
#[test]
fn a_link_to_a_device_is_refused_not_read() {
    let dir = Scratch::new();
    let link = dir.0.path().join("hookchain.yaml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let message = load_error(&link);
    assert!(message.contains("not a regular file"), "{message}");
}

#[test]
fn a_file_over_the_size_cap_is_refused() {
    let dir = Scratch::new();
    let big = dir.0.path().join("hookchain.yaml");
    let mut text = String::from("extensions:\n  big:\n");
    while text.len() <= 1024 * 1024 {
        text.push_str("    # padding padding padding padding padding padding padding padding\n");
    }
    std::fs::write(&big, text).unwrap();
    let message = load_error(&big);
    assert!(message.contains("at most 1 MiB"), "{message}");
}

#[test]
fn deep_nesting_is_refused_before_the_parser_sees_it() {
    let dir = Scratch::new();
    let flow = dir.0.path().join("flow.yaml");
    let depth = 20_000;
    std::fs::write(
        &flow,
        format!(
            "extensions:\n  x:\n    k: {}{}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ),
    )
    .unwrap();
    let message = load_error(&flow);
    assert!(
        message.contains("nested more than 64 levels deep"),
        "{message}"
    );
    assert!(message.contains("line 3"), "{message}");

    let block = dir.0.path().join("block.yaml");
    let mut text = String::from("extensions:\n  x:\n");
    for level in 2..200 {
        text.push_str(&"  ".repeat(level));
        text.push_str("k:\n");
    }
    std::fs::write(&block, text).unwrap();
    let message = load_error(&block);
    assert!(
        message.contains("nested more than 64 levels deep"),
        "{message}"
    );

    // Text handed over directly is checked the same way.
    let text = format!(
        "extensions:\n  x:\n    k: {}{}\n",
        "{a: ".repeat(100),
        "}".repeat(100)
    );
    let error = Config::from_yaml_str(&text, "./hookchain.yaml").unwrap_err();
    assert!(
        error
            .to_string()
            .contains("nested more than 64 levels deep"),
        "{error}"
    );
}

#[test]
fn ordinary_nesting_still_loads() {
    let text = "extensions:\n  guard:\n    rules:\n      - {when: {tool: [a, b]}, then: [deny]}\n";
    let config = Config::from_yaml_str(text, "./hookchain.yaml").unwrap();
    assert!(config.section("guard").is_some());
}
