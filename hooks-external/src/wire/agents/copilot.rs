//! Copilot's differences from Claude Code's hook protocol, as an overlay (see the
//! [parent module](super)): for now none, so a Copilot hook is fired and read as a Claude Code hook.

use super::Overlay;

/// Copilot's overlay.
pub(super) const OVERLAY: Overlay = Overlay::CLAUDE_CODE;
