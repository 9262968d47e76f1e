//! `hookchain`: list, test, check, approve and revoke the hooks of an agent (see
//! [`hookchain_cli`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    hookchain_cli::run(std::env::args_os())
}
