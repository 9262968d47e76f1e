//! The guard's hooks: a snapshot at `turn_start`, on `intercept_tool_call` for the configured
//! tools, and at `turn_end` when asked, each putting the checkpoint's id where the agent finds
//! it.
//!
//! # The rules it keeps
//!
//! - Its hooks run after every other hook ([`CHECKPOINT_PRIORITY`]), so a tool call another
//!   hook blocks costs no snapshot.
//! - The id goes into the turn's and the session's state under [`STATE_KEY`] and into the
//!   dispatch's metadata.
//! - What a snapshot could not honour or take (a `.git/info/exclude` that is a symlink or a
//!   FIFO, a FIFO in the project) is a warning naming the file.
//! - A snapshot that fails warns and lets the work go on, unless the config says `required:
//!   true`: then it blocks (at `turn_end`, which cannot block, it warns).

use hookchain_core::points::{
    InterceptToolCall, TurnEndEvent, TurnEnded, TurnStart, TurnStartEvent,
};
use hookchain_core::{HookContext, HookResult, OnError, ToolCall};
use hookchain_runtime::{HookOptions, HooksBuilder};

use super::checkpoint::{Label, Trigger, short};
use super::config::GitCheckpoint;
use crate::inject::project_dir;
use crate::{BuiltinExtension, reason};

/// The priority of the guard's hooks: after every other hook, so that a tool call another hook
/// blocks costs no snapshot.
pub const CHECKPOINT_PRIORITY: i32 = 1_000_000;

/// The key of the turn's and the session's state that holds the last checkpoint's id.
pub const STATE_KEY: &str = "git-checkpoint";

impl BuiltinExtension for GitCheckpoint {
    const NAME: &'static str = "git-checkpoint";

    fn add_hooks(builder: HooksBuilder) -> HooksBuilder {
        let options = || {
            HookOptions::new(Self::NAME)
                .extension(Self::NAME)
                .priority(CHECKPOINT_PRIORITY)
                .on_error(OnError::Warn)
        };
        builder
            .hook_with(
                TurnStart,
                options(),
                |_: &TurnStartEvent, cx: &HookContext| {
                    hook(cx, |c| c.turn_start.then_some(Trigger::TurnStart))
                },
            )
            .hook_with(
                InterceptToolCall,
                options(),
                |call: &ToolCall, cx: &HookContext| {
                    hook(cx, |c| {
                        c.tools
                            .iter()
                            .any(|t| t == "*" || *t == call.name)
                            .then(|| Trigger::Tool(call.name.clone()))
                    })
                },
            )
            .hook_with(
                TurnEnded,
                options(),
                |_: &TurnEndEvent, cx: &HookContext| {
                    // `turn_end` cannot block: a required checkpoint that fails warns there.
                    match hook::<hookchain_core::Observed>(cx, |c| {
                        c.turn_end.then_some(Trigger::TurnEnd)
                    })? {
                        HookResult::Block(why) => Err(why.to_string()),
                        _ => Ok(()),
                    }
                },
            )
            .config_type::<GitCheckpoint>(Self::NAME)
            .off_by_default(Self::NAME)
    }
}

/// The guard's hook at any point: a snapshot when `wanted` says the config asks for one, its id
/// in the turn's and the session's state; a failure warns (`Err`), or blocks when `required`.
fn hook<R>(
    cx: &HookContext,
    wanted: impl FnOnce(&GitCheckpoint) -> Option<Trigger>,
) -> Result<HookResult<R>, String> {
    let config = cx.config::<GitCheckpoint>().map_err(|e| e.to_string())?;
    let Some(trigger) = wanted(&config) else {
        return Ok(HookResult::Pass);
    };
    let project = project_dir(&config.project_dir, &cx.project_dir());
    let what = match &trigger {
        Trigger::Tool(name) => format!("before `{name}`"),
        other => format!("at {other}"),
    };
    let label = Label {
        session: cx.session_id().to_owned(),
        turn: cx.turn(),
        trigger,
    };
    match config.snapshot(&project, &label) {
        Ok(snapshot) => {
            cx.turn_state().set(STATE_KEY, snapshot.id.clone());
            cx.session_state().set(STATE_KEY, snapshot.id.clone());
            cx.set_metadata(STATE_KEY, &snapshot.id);
            if snapshot.over_total > 0 {
                cx.warn(format!(
                    "{}: checkpoint {} of {} leaves out {} files: the snapshot reached \
                     `max_total_bytes` ({} bytes); a restore will not bring them back",
                    GitCheckpoint::NAME,
                    short(&snapshot.id),
                    project.display(),
                    snapshot.over_total,
                    config.max_total_bytes
                ));
            }
            for warning in &snapshot.warnings {
                cx.warn(format!(
                    "{}: checkpoint {} of {}: {warning}",
                    GitCheckpoint::NAME,
                    short(&snapshot.id),
                    project.display()
                ));
            }
            Ok(HookResult::Pass)
        }
        Err(error) if config.required => Ok(HookResult::block(reason(
            GitCheckpoint::NAME,
            format!(
                "no checkpoint of {} could be taken {what} ({error}), and checkpoints are \
                 required (`required: true`): nothing runs without a way back",
                project.display()
            ),
        ))),
        Err(error) => Err(format!(
            "no checkpoint of {} {what}: {error}; the agent's work goes on without one",
            project.display()
        )),
    }
}
