//! Cursor's differences from Claude Code's hook protocol, as an overlay (see the
//! [parent module](super)): for now none, so a Cursor hook is fired and read as a Claude Code hook.

use super::Overlay;

/// Cursor's overlay.
pub(super) const OVERLAY: Overlay = Overlay::CLAUDE_CODE;
