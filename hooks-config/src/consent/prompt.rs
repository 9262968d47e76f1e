//! Asking the user: the [`Prompt`] a policy asks about each hook that nothing else approves, and
//! the [`TerminalPrompt`] that asks on a terminal.
//!
//! # The rules it keeps
//!
//! - The question shows the hook's name, point, transport, command line or URL, where it is
//!   configured, the script it runs and, for a changed hook, how its hash changed.
//! - Only `y` or `yes` (any case) is yes; anything else, end of input included, is no, and a
//!   prompt on stdio exists only when stdin is a terminal (a non-interactive run never waits).

use std::fmt;
use std::io::{IsTerminal, Read, Write};

use hookchain_external::ExternalHook;

use super::allowlist::ConsentStatus;
use super::pin::{Pin, origin_text};

/// Asks the user whether a hook that is not approved may run.
pub trait Prompt {
    /// `true` when `hook` (new, or changed as `status` says) may run, now and from now on.
    fn ask(&mut self, hook: &ExternalHook, status: &ConsentStatus) -> bool;
}

impl<F> Prompt for F
where
    F: FnMut(&ExternalHook, &ConsentStatus) -> bool,
{
    fn ask(&mut self, hook: &ExternalHook, status: &ConsentStatus) -> bool {
        self(hook, status)
    }
}

/// Asks on a terminal: shows the hook on `output`, reads one line from `input`, and takes `y`
/// or `yes` (any case) for yes and anything else, end of input included, for no.
///
/// ```
/// use hookchain::consent::{ConsentStatus, Prompt, TerminalPrompt};
/// use hookchain::config::Config;
///
/// let config = Config::from_yaml_str(
///     "hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/check\n",
///     "./hookchain.yaml",
/// )?;
/// let mut shown = Vec::new();
/// let mut prompt = TerminalPrompt::new(&b"y\n"[..], &mut shown);
/// assert!(prompt.ask(&config.external_hooks()[0], &ConsentStatus::New));
/// drop(prompt);
/// let shown = String::from_utf8(shown)?;
/// assert!(shown.contains("intercept_tool_call"));
/// assert!(shown.contains("https://hooks.example.com/check"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TerminalPrompt<R, W> {
    input: R,
    output: W,
}

impl<R, W> fmt::Debug for TerminalPrompt<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TerminalPrompt").finish_non_exhaustive()
    }
}

impl<R: Read, W: Write> TerminalPrompt<R, W> {
    /// A prompt reading answers from `input` and writing questions to `output`.
    pub fn new(input: R, output: W) -> Self {
        TerminalPrompt { input, output }
    }

    /// One line of input, read a byte at a time so nothing after it is taken from the reader.
    fn read_line(&mut self) -> String {
        let mut line = Vec::new();
        let mut byte = [0u8];
        while let Ok(1) = self.input.read(&mut byte) {
            if byte[0] == b'\n' {
                break;
            }
            line.push(byte[0]);
        }
        String::from_utf8_lossy(&line).into_owned()
    }
}

impl TerminalPrompt<std::io::Stdin, std::io::Stderr> {
    /// A prompt on stdin and stderr, when stdin is a terminal; `None` otherwise (a
    /// non-interactive run never waits for an answer).
    pub fn stdio() -> Option<Self> {
        let stdin = std::io::stdin();
        stdin
            .is_terminal()
            .then(|| TerminalPrompt::new(stdin, std::io::stderr()))
    }
}

impl<R: Read, W: Write> Prompt for TerminalPrompt<R, W> {
    fn ask(&mut self, hook: &ExternalHook, status: &ConsentStatus) -> bool {
        let headline = match status {
            ConsentStatus::Drifted { .. } => "the script of an approved hook changed",
            _ => "a new hook wants to run",
        };
        let mut question = format!(
            "hookchain: {headline}\n  {} on {}: {} `{}`\n  configured in {}\n",
            hook.name,
            hook.point,
            hook.transport.kind(),
            hook.transport.target(),
            origin_text(&hook.origin),
        );
        let pin = Pin::of(hook);
        if let Some(script) = &pin.script {
            question.push_str(&format!("  script {}\n", script.display()));
        }
        if let ConsentStatus::Drifted { .. } = status {
            question.push_str(&format!("  {status}\n"));
        }
        question.push_str("Run it, now and from now on? [y/N] ");
        if self.output.write_all(question.as_bytes()).is_err() {
            return false;
        }
        let _ = self.output.flush();
        let answer = self.read_line();
        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    }
}
