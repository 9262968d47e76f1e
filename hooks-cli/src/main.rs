//! `hookchain`: list, test, check, approve and revoke the hooks of an agent (see
//! [`hooks_cli`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    hooks_cli::run(std::env::args_os())
}
