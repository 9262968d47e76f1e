//! What a command gives back and where it writes: the exit codes, [`Failure`] (a command that
//! could not be carried out, one line for stderr) and [`Io`] (stdout and stderr, as the caller
//! of `run_with` hands them over).

use std::io::Write;

/// The exit code of a command that succeeded, and of a `test` whose chain went on.
pub const EXIT_OK: i32 = 0;
/// The exit code of an error: bad arguments, a file that cannot be read, a problem `doctor`
/// found.
pub const EXIT_ERROR: i32 = 1;
/// The exit code of a `test` whose chain blocked.
pub const EXIT_BLOCKED: i32 = 2;

/// A command that could not be carried out: one line for stderr.
pub(crate) struct Failure(pub(crate) String);

impl<T: std::fmt::Display> From<T> for Failure {
    fn from(error: T) -> Self {
        Failure(error.to_string())
    }
}

/// Where a command writes.
pub(crate) struct Io<'a> {
    pub(crate) out: &'a mut dyn Write,
    pub(crate) err: &'a mut dyn Write,
}
