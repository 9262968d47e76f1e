//! The fuzz targets' bodies (`fuzz/src/lib.rs`), run on stable over every seed of their corpus
//! (`fuzz/corpus/<target>/`) and every input a fuzzer ever crashed them with
//! (`fuzz/regressions/<target>/`). A crash found by `cargo fuzz run` is saved into the
//! regressions folder, fixed, and from then on checked here by every test run.

#[path = "../../fuzz/src/lib.rs"]
mod targets;

use std::path::Path;

/// Runs `body` over every file under `fuzz/corpus/<target>` and `fuzz/regressions/<target>`;
/// returns how many it ran, and fails naming the file whose input panicked.
fn run(target: &str, body: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut ran = 0;
    for folder in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder).join(target)) else {
            continue;
        };
        let mut files: Vec<_> = entries.map(|entry| entry.unwrap().path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap();
            if std::panic::catch_unwind(|| body(&data)).is_err() {
                panic!("fuzz target `{target}` fails on {}", file.display());
            }
            ran += 1;
        }
    }
    ran
}

#[test]
fn hook_output_seeds_and_regressions() {
    assert!(run("hook_output", targets::hook_output) >= 10);
}

#[test]
fn matcher_seeds_and_regressions() {
    assert!(run("matcher", targets::matcher) >= 5);
}

#[test]
fn config_native_seeds_and_regressions() {
    assert!(run("config_native", targets::config_native) >= 2);
}

#[test]
fn config_claude_seeds_and_regressions() {
    assert!(run("config_claude", targets::config_claude) >= 1);
}

#[test]
fn config_docker_agent_seeds_and_regressions() {
    assert!(run("config_docker_agent", targets::config_docker_agent) >= 1);
}
