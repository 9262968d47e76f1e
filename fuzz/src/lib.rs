//! The bodies of hookchain's fuzz targets, one function per target.
//!
//! Each function takes the fuzzer's bytes, feeds them to one reader of untrusted input, and
//! checks the reader's promises beyond "does not panic":
//!
//! - [`hook_output`]: what a hook printed, read by `protocol::decide` for every dialect. Exit 2
//!   always blocks; exit 0 with blank stdout passes; every error's message stays short (an
//!   excerpt, never the whole output), so a hook printing megabytes cannot flood a log or the
//!   model's context.
//! - [`matcher`]: a tool-name matcher of each dialect. A pattern of plain names matches exactly
//!   those names; `*` and blank match everything.
//! - [`config_native`], [`config_claude`], [`config_docker_agent`]: a config file of each kind.
//!   A refusal names the file it refused.
//!
//! The same functions run on stable in the facade's `tests/config/fuzz_regressions.rs`, over every seed
//! and every crash ever found (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`).

use hookchain::config::Config;
use hookchain::external::protocol::{Verdict, decide};
use hookchain::external::{Dialect, Matcher, RawOutput};
use serde_json::json;

/// The name the config targets give the file they read.
pub const SOURCE: &str = "fuzzed-config.yaml";

/// The longest message a refused hook output may produce, whatever its size.
const MAX_MESSAGE: usize = 2048;

/// What a hook printed: byte 0 picks the exit code, byte 1 where stdout ends and stderr begins.
pub fn hook_output(data: &[u8]) {
    let [code, split, rest @ ..] = data else {
        return;
    };
    let exit_code = match code % 5 {
        0 => Some(0),
        1 => Some(2),
        2 => None,
        3 => Some(1),
        _ => Some(i32::from(*code)),
    };
    let at = rest.len() * usize::from(*split) / 255;
    let raw = RawOutput {
        exit_code,
        stdout: rest[..at].to_vec(),
        stderr: rest[at..].to_vec(),
    };
    match decide(&raw) {
        Ok(decision) => {
            if exit_code == Some(2) {
                assert!(
                    matches!(decision.verdict, Verdict::Block(_)),
                    "exit 2 must block: {decision:?}"
                );
            }
            // Applying a decision to a payload never panics, whatever it carries.
            let _ = decision.new_input(&json!({"command": "ls", "n": [1, 2]}));
            let _ = decision.new_input(&json!("text"));
        }
        Err(error) => {
            assert!(
                !matches!(exit_code, Some(2)),
                "exit 2 is a block, never an error: {error}"
            );
            let blank = raw.stdout.iter().all(u8::is_ascii_whitespace);
            assert!(
                !(matches!(exit_code, Some(0) | None) && blank),
                "blank stdout passes: {error}"
            );
            let message = error.to_string();
            assert!(
                message.len() <= MAX_MESSAGE,
                "a refusal's message is {} bytes: {message:.200}",
                message.len()
            );
        }
    }
}

/// A matcher: byte 0 picks the dialect; the rest is `pattern\0tool_name` (lossy UTF-8).
pub fn matcher(data: &[u8]) {
    let [dialect, rest @ ..] = data else {
        return;
    };
    let dialect = match dialect % 3 {
        0 => Dialect::Hookchain,
        1 => Dialect::ClaudeCode,
        _ => Dialect::DockerAgent,
    };
    let text = String::from_utf8_lossy(rest);
    let (pattern, tool) = text.split_once('\0').unwrap_or((&text, "Bash"));
    let Ok(matcher) = Matcher::parse(dialect, pattern) else {
        return;
    };
    assert_eq!(matcher.as_str(), pattern, "the pattern is kept as written");
    let matched = matcher.matches(tool);
    let trimmed = pattern.trim();
    if trimmed.is_empty() || trimmed == "*" {
        assert!(
            matcher.is_all() && matched,
            "`{pattern}` matches every tool"
        );
    } else if dialect != Dialect::DockerAgent
        && trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|' | ','))
    {
        // Blank entries (`Bash||Write`, `|`) name no tool.
        let listed = trimmed
            .split(['|', ','])
            .map(str::trim)
            .any(|name| !name.is_empty() && name == tool);
        assert_eq!(
            matched, listed,
            "`{pattern}` lists names: it matches `{tool}` exactly when listed"
        );
    }
}

/// A `hookchain.yaml`.
pub fn config_native(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    refusal_names_the_file(Config::from_yaml_str(&text, SOURCE).map(drop));
}

/// A Claude Code `settings.json`.
pub fn config_claude(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    refusal_names_the_file(Config::from_claude_settings_str(&text, SOURCE).map(drop));
}

/// A docker-agent agent YAML.
pub fn config_docker_agent(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    refusal_names_the_file(Config::from_docker_agent_str(&text, SOURCE).map(drop));
}

fn refusal_names_the_file<E: std::fmt::Display>(result: Result<(), E>) {
    if let Err(error) = result {
        let message = error.to_string();
        assert!(
            message.contains(SOURCE),
            "a refusal names the file: {message}"
        );
    }
}
