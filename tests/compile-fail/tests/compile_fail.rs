//! Every mistake `#[register_hook]`, `#[register_tool]` and `#[register_command]` report, with
//! the message and the token it points at (`tests/ui/*.stderr`). Bless new wording with
//! `TRYBUILD=overwrite cargo test -p hookchain-compile-fail`, then read the diff: a snapshot is a
//! promise to users about the wording.

#[test]
fn compile_fail() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
