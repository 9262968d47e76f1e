//! The session `test` fires a chain in: the one a payload file names (its `session_id`, `cwd`,
//! `transcript_path` and `permission_mode`), else the synthetic one.

use std::path::PathBuf;

use hookchain_core::SessionState;
use hookchain_external::transcript;
use serde_json::Value;

use crate::outcome::Failure;
use crate::payload::SESSION;

/// What a payload file says about the session it was sent in: what `test` fires the chain in.
pub(crate) struct Given {
    /// `session_id`, else [`SESSION`].
    pub(crate) session_id: String,
    /// `cwd`: the project directory the hooks run in.
    pub(crate) cwd: Option<PathBuf>,
    /// `transcript_path`: the agent's transcript.
    pub(crate) transcript_path: Option<String>,
    /// `permission_mode`.
    pub(crate) permission_mode: Option<String>,
}

impl Given {
    /// The synthetic session: [`SESSION`], in the current directory, with a transcript
    /// hookchain keeps.
    pub(crate) fn synthetic() -> Given {
        Given {
            session_id: SESSION.to_owned(),
            cwd: None,
            transcript_path: None,
            permission_mode: None,
        }
    }

    /// What the payload file `shown` holds in `json`; a key of the wrong type, or a `cwd` that
    /// is not a directory, is an error naming the file and the key.
    pub(crate) fn of(json: &Value, shown: &str) -> Result<Given, Failure> {
        let text = |key: &str| -> Result<Option<String>, Failure> {
            match json.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) => Ok(Some(text.clone())),
                Some(other) => Err(Failure(format!(
                    "{shown}: `{key}` must be a string, not {other}"
                ))),
            }
        };
        let cwd = text("cwd")?.map(PathBuf::from);
        if let Some(dir) = &cwd
            && !dir.is_dir()
        {
            return Err(Failure(format!(
                "{shown}: `cwd` is `{}`, which is not a directory here (the hooks run in it): \
                 give a directory that exists, or leave `cwd` out",
                dir.display()
            )));
        }
        Ok(Given {
            session_id: text("session_id")?.unwrap_or_else(|| SESSION.to_owned()),
            cwd,
            transcript_path: text("transcript_path")?,
            permission_mode: text("permission_mode")?,
        })
    }

    /// A session state holding what external hooks are told about the session.
    pub(crate) fn state(&self) -> SessionState {
        let state = SessionState::default();
        if let Some(dir) = &self.cwd {
            state.set_project_dir(dir);
        }
        if let Some(path) = &self.transcript_path {
            transcript::set_transcript_path(&state, path);
        }
        if let Some(mode) = &self.permission_mode {
            transcript::set_permission_mode(&state, mode);
        }
        state
    }
}
