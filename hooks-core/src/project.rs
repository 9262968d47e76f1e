//! The project directory of a session: where its relative paths point.
//!
//! # What it owns
//!
//! The one decision of which directory a session works in, read by every part alike: external
//! hooks (the directory a script runs in, `CLAUDE_PROJECT_DIR` and `HOOKCHAIN_PROJECT_DIR` in
//! its environment, the payload's `cwd`), the transcript, and the built-in guards (the
//! directory protected paths and injectors are relative to). A hook reads it with
//! [`HookContext::project_dir`]; an agent gives it with [`SessionState::set_project_dir`]
//! (`Session::set_project_dir` in the runtime).
//!
//! # The rules it keeps
//!
//! - **Given, else the current directory.** The directory the agent gave the session (its
//!   workspace; for an agent that runs hookchain as its hook, the payload's `cwd`) wins;
//!   without one, the process's current directory, read when asked. [`decide`] is that rule,
//!   and nothing else in hookchain decides it.
//! - **Absolute once given.** A relative directory is made absolute against the current
//!   directory when it is given, so a later change of the process's directory does not move
//!   the session.
//! - **Never fails.** When no directory was given and the current directory cannot be read (it
//!   was removed), the answer is `.`, which is not absolute: a guard that must know where
//!   relative paths point checks [`Path::is_absolute`] and refuses to guess.

use std::path::{Path, PathBuf};

use crate::{HookContext, SessionState};

/// What a session keeps: the directory the agent gave it, made absolute.
#[derive(Debug, Clone)]
struct GivenProjectDir(PathBuf);

/// The project directory: `given` when there is one, else the process's current directory
/// (`.` when it cannot be read). The only place hookchain decides it.
///
/// ```
/// use std::path::Path;
/// use hookchain::project;
///
/// assert_eq!(project::decide(Some(Path::new("/srv/shop"))), Path::new("/srv/shop"));
/// assert_eq!(project::decide(None), std::env::current_dir().unwrap());
/// ```
pub fn decide(given: Option<&Path>) -> PathBuf {
    try_decide(given).unwrap_or_else(|_| PathBuf::from("."))
}

/// [`decide`], with the error of a current directory that cannot be read, for a caller that
/// must say why it cannot tell where relative paths point.
pub fn try_decide(given: Option<&Path>) -> std::io::Result<PathBuf> {
    match given {
        Some(dir) => Ok(dir.to_path_buf()),
        None => std::env::current_dir(),
    }
}

/// `dir` made absolute against the current directory (unchanged when that cannot be read).
fn absolute(dir: PathBuf) -> PathBuf {
    std::path::absolute(&dir).unwrap_or(dir)
}

impl SessionState {
    /// Gives the session its project directory (a relative `dir` is taken from the current
    /// directory now). Every hook of the session reads it with [`HookContext::project_dir`].
    ///
    /// ```
    /// use hookchain::SessionState;
    /// use std::path::Path;
    ///
    /// let state = SessionState::default();
    /// state.set_project_dir("/srv/projects/shop");
    /// assert_eq!(state.project_dir(), Path::new("/srv/projects/shop"));
    /// ```
    pub fn set_project_dir(&self, dir: impl Into<PathBuf>) {
        let dir = absolute(dir.into());
        self.insert_ext(GivenProjectDir(dir));
    }

    /// The session's project directory ([`decide`]: the one given, else the current
    /// directory).
    pub fn project_dir(&self) -> PathBuf {
        decide(self.given_project_dir().as_deref())
    }

    /// The directory the agent gave the session, if it gave one.
    pub fn given_project_dir(&self) -> Option<PathBuf> {
        self.with_ext(|given: &mut GivenProjectDir| given.0.clone())
    }
}

impl HookContext<'_> {
    /// The project directory of the session this hook runs in: the directory the agent gave
    /// the session ([`SessionState::set_project_dir`]), else the process's current directory.
    /// Relative paths a hook reads from its input or its config are relative to it.
    ///
    /// ```
    /// use hookchain::prelude::*;
    /// use hookchain::HookContext;
    /// use hookchain::points::InterceptToolCall;
    /// use std::path::Path;
    ///
    /// let hooks = Hooks::builder()
    ///     .hook(InterceptToolCall, 0, |call: &ToolCall, cx: &HookContext| {
    ///         let target = cx.project_dir().join(call.args["path"].as_str().unwrap_or(""));
    ///         match target.starts_with("/srv/shop/secrets") {
    ///             true => HookResult::block("secrets/ is read-only"),
    ///             false => HookResult::Pass,
    ///         }
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let session = hooks.session("project-doc");
    /// session.set_project_dir("/srv/shop");
    /// let turn = session.begin_turn();
    /// let call = ToolCall::new("write_file", json!({"path": "secrets/key"}));
    /// assert!(turn.intercept_tool_call(call).is_blocked());
    /// turn.end(TurnEnd::Normal);
    /// ```
    pub fn project_dir(&self) -> PathBuf {
        self.session_state().project_dir()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_directory_wins_over_the_current_one() {
        assert_eq!(decide(Some(Path::new("/a/b"))), Path::new("/a/b"));
        assert_eq!(decide(None), std::env::current_dir().unwrap());
    }

    #[test]
    fn a_relative_directory_is_made_absolute_when_given() {
        let state = SessionState::default();
        assert_eq!(state.given_project_dir(), None);
        state.set_project_dir("sub/dir");
        let given = state.given_project_dir().unwrap();
        assert!(given.is_absolute());
        assert_eq!(given, std::env::current_dir().unwrap().join("sub/dir"));
        assert_eq!(state.project_dir(), given);
    }

    #[test]
    fn giving_it_again_replaces_it() {
        let state = SessionState::default();
        state.set_project_dir("/first");
        state.set_project_dir("/second");
        assert_eq!(state.project_dir(), Path::new("/second"));
    }
}
