//! Gemini CLI's differences from Claude Code's hook protocol, as an overlay (see the
//! [parent module](super)): so far its tool names; otherwise a Gemini CLI hook is fired and read
//! as a Claude Code hook.

use super::Overlay;

/// Gemini CLI's overlay.
pub(super) const OVERLAY: Overlay = Overlay {
    tools: &TOOLS,
    ..Overlay::CLAUDE_CODE
};

/// Gemini CLI's tools, and Claude Code's names for them (the names hookchain's guards know).
const TOOLS: [(&str, &str); 9] = [
    ("run_shell_command", "Bash"),
    ("write_file", "Write"),
    ("replace", "Edit"),
    ("read_file", "Read"),
    ("glob", "Glob"),
    ("search_file_content", "Grep"),
    ("grep_search", "Grep"),
    ("list_directory", "LS"),
    ("web_fetch", "WebFetch"),
];
