//! `hookchain extensions list|enable|disable|info|doctor`, run as the `hookchain` binary with
//! its home directory (`HOME`) and its project (the current directory) in temporary
//! directories: the user's real files are never read or written.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

const NOTES: &str = "\
version: 0.2.0
description: Keeps notes
hooks:
  intercept_tool_call:
    - command: ./guard.sh
      name: notes-guard
      priority: 30
tools:
  - name: add_note
    description: Adds a note
    parameters:
      type: object
      properties:
        text: {type: string}
      required: [text]
    command: ./add_note.sh
";

/// A home directory and a project, removed when dropped.
struct Sandbox {
    home: TempDir,
    project: TempDir,
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

impl Sandbox {
    fn new() -> Sandbox {
        let temp = || {
            let base = std::env::temp_dir().canonicalize().unwrap();
            tempfile::Builder::new()
                .prefix("hookchain-")
                .tempdir_in(base)
                .unwrap()
        };
        let sandbox = Sandbox {
            home: temp(),
            project: temp(),
        };
        std::fs::create_dir_all(sandbox.home.path().join(".config/hookchain")).unwrap();
        sandbox
    }

    fn user_file(&self) -> PathBuf {
        self.home.path().join(".config/hookchain/hookchain.yaml")
    }

    /// Writes `NAME/EXTENSION.yaml` and executable scripts under `dir`.
    fn extension(&self, dir: &Path, name: &str, yaml: &str, scripts: &[&str]) {
        let dir = dir.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("EXTENSION.yaml"), yaml).unwrap();
        for script in scripts {
            let path = dir.join(script);
            std::fs::write(&path, "#!/bin/sh\ncat\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    fn user_extension(&self, name: &str, yaml: &str, scripts: &[&str]) {
        self.extension(
            &self.home.path().join(".config/hookchain/extensions"),
            name,
            yaml,
            scripts,
        );
    }

    fn project_extension(&self, name: &str, yaml: &str, scripts: &[&str]) {
        self.extension(
            &self.project.path().join(".hookchain/extensions"),
            name,
            yaml,
            scripts,
        );
    }

    fn run(&self, args: &[&str]) -> Run {
        let output = Command::new(env!("CARGO_BIN_EXE_hookchain"))
            .args(args)
            .current_dir(self.project.path())
            .env("HOME", self.home.path())
            .env_remove("HOOKCHAIN_ACCEPT_HOOKS")
            .output()
            .unwrap();
        Run {
            code: output.status.code().unwrap_or(-1),
            out: String::from_utf8(output.stdout).unwrap(),
            err: String::from_utf8(output.stderr).unwrap(),
        }
    }
}

/// The row of `name` in a table.
fn row<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row `{name}` in:\n{out}"))
}

#[test]
fn list_shows_each_extension_its_version_counts_source_and_state() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    sandbox.project_extension("lint", "version: '1.0'\n", &[]);
    let run = sandbox.run(&["extensions", "list"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    let notes: Vec<&str> = row(&run.out, "notes").split_whitespace().collect();
    assert_eq!(
        notes,
        ["notes", "0.2.0", "1", "1", "0", "user", "external", "on"],
        "{}",
        run.out
    );
    assert!(
        row(&run.out, "lint").contains("project external"),
        "{}",
        run.out
    );
    let file = sandbox.user_file().display().to_string();
    assert!(
        run.out.contains(&format!("switches are kept in {file}")),
        "{}",
        run.out
    );
}

#[test]
fn disable_and_enable_edit_the_users_file_line_by_line() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    std::fs::write(
        sandbox.user_file(),
        "# my settings\nextensions:\n  audit-log:  # the log\n    path: /tmp/x\n",
    )
    .unwrap();
    let run = sandbox.run(&["extensions", "disable", "notes"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        run.out.contains("line 6 now says `enabled: false`"),
        "{}",
        run.out
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.user_file()).unwrap(),
        "# my settings\nextensions:\n  audit-log:  # the log\n    path: /tmp/x\n  notes:\n    enabled: false\n"
    );
    let run = sandbox.run(&["extensions", "list"]);
    let state = row(&run.out, "notes");
    assert!(state.contains("disabled"), "{}", run.out);

    let run = sandbox.run(&["extensions", "enable", "notes"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        std::fs::read_to_string(sandbox.user_file())
            .unwrap()
            .contains("  notes:\n    enabled: true\n")
    );
    let run = sandbox.run(&["extensions", "list"]);
    // On, and who switched it on: the line of the user's file that says so.
    let state = row(&run.out, "notes");
    let file = sandbox.user_file().display().to_string();
    assert!(
        state.ends_with(&format!(" on (enabled by {file}:6)")),
        "{}",
        run.out
    );
}

#[test]
fn disable_all_sets_the_master_switch() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    let run = sandbox.run(&["extensions", "disable", "--all"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert_eq!(
        std::fs::read_to_string(sandbox.user_file()).unwrap(),
        "hooks_enabled: false\n"
    );
    let run = sandbox.run(&["extensions", "list"]);
    assert!(
        row(&run.out, "notes").contains("(`hooks_enabled: false`)"),
        "{}",
        run.out
    );
    let run = sandbox.run(&["extensions", "enable", "--all"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert_eq!(
        std::fs::read_to_string(sandbox.user_file()).unwrap(),
        "hooks_enabled: true\n"
    );
}

#[test]
fn an_unknown_name_is_an_error_with_a_suggestion_and_writes_nothing() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    for args in [
        ["extensions", "disable", "note"],
        ["extensions", "info", "note"],
    ] {
        let run = sandbox.run(&args);
        assert_eq!(run.code, 1, "{}{}", run.out, run.err);
        assert!(
            run.err
                .contains("no extension `note`, did you mean `notes`?"),
            "{}",
            run.err
        );
    }
    assert!(!sandbox.user_file().exists());
}

#[test]
fn info_shows_hooks_tools_with_their_schemas_and_consent() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    let run = sandbox.run(&["extensions", "info", "notes"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(run.out.contains("version     0.2.0"), "{}", run.out);
    assert!(run.out.contains("source      user external"), "{}", run.out);
    assert!(
        run.out
            .contains("intercept_tool_call `notes-guard`: new — does not run until approved"),
        "{}",
        run.out
    );
    assert!(run.out.contains("add_note — Adds a note"), "{}", run.out);
    assert!(run.out.contains("\"required\": ["), "{}", run.out);
    assert!(run.out.contains("config section: none"), "{}", run.out);
}

#[test]
fn doctor_names_what_cannot_run() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    sandbox.project_extension("notes", "version: '9'\n", &[]);
    sandbox.project_extension(
        "broken",
        "tools:\n  - name: t\n    description: d\n    parameters: {type: object}\n    command: ./missing.sh\n",
        &[],
    );
    let run = sandbox.run(&["extensions", "doctor"]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    assert!(
        run.out
            .contains("hook `notes-guard` (intercept_tool_call) does not run: new"),
        "{}",
        run.out
    );
    assert!(
        run.out.contains("tool `add_note` does not run"),
        "{}",
        run.out
    );
    assert!(run.out.contains("missing.sh"), "{}", run.out);
    assert!(
        run.out
            .contains("the project's extension `notes` is refused"),
        "{}",
        run.out
    );
}

#[test]
fn approve_lets_an_extensions_hook_and_tool_run() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    let run = sandbox.run(&["approve", "notes-guard", "tool add_note"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(run.out.contains("approved `tool add_note`"), "{}", run.out);
    let run = sandbox.run(&["extensions", "doctor"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        run.out.contains("ok: 1 hook(s) and 1 tool(s) approved"),
        "{}",
        run.out
    );
    // Once approved, its hook is in the registry, in the extension `notes`.
    let run = sandbox.run(&["extensions", "info", "notes"]);
    assert!(run.out.contains("intercept_tool_call"), "{}", run.out);
    assert!(run.out.contains("notes-guard"), "{}", run.out);
    assert!(
        !run.out.contains("does not run until approved"),
        "{}",
        run.out
    );
}

#[test]
fn doctor_passes_approved_extensions() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("plain", "version: '1'\ndescription: nothing to run\n", &[]);
    let run = sandbox.run(&["extensions", "doctor"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        run.out.contains("1 external extension(s); 0 problem(s)"),
        "{}",
        run.out
    );
}

/// Writes an executable script `name` into the user's extension `extension`.
fn script(sandbox: &Sandbox, extension: &str, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = sandbox
        .home
        .path()
        .join(".config/hookchain/extensions")
        .join(extension)
        .join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn tools_lists_each_tool_with_its_schema_and_says_which_wait_for_consent() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    let run = sandbox.run(&["tools"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        run.out.contains("add_note  (notes, not approved (new): does not run; `hookchain approve \"tool add_note\"`)"),
        "{}",
        run.out
    );
    let run = sandbox.run(&["approve", "tool add_note"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    let run = sandbox.run(&["tools", "--json"]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    let listed: serde_json::Value = serde_json::from_str(&run.out).unwrap();
    assert_eq!(listed[0]["name"], "add_note", "{}", run.out);
    assert_eq!(listed[0]["extension"], "notes", "{}", run.out);
    assert_eq!(listed[0]["state"], "on", "{}", run.out);
    assert_eq!(
        listed[0]["parameters"]["required"][0], "text",
        "{}",
        run.out
    );
}

#[test]
fn call_runs_a_tool_through_the_chains_and_a_hook_blocks_it() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &[]);
    script(&sandbox, "notes", "add_note.sh", "#!/bin/sh\ncat\n");
    script(
        &sandbox,
        "notes",
        "guard.sh",
        "#!/bin/sh\nif grep -q secret; then echo 'no secrets in notes' >&2; exit 2; fi\nexit 0\n",
    );
    let run = sandbox.run(&[
        "--accept-hooks",
        "call",
        "add_note",
        "--args",
        r#"{"text": "milk"}"#,
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    let answer: serde_json::Value = serde_json::from_str(&run.out).unwrap();
    assert_eq!(answer["ran"], true, "{}", run.out);
    assert_eq!(
        answer["result"],
        serde_json::json!({"text": "milk"}),
        "{}",
        run.out
    );

    let run = sandbox.run(&["call", "add_note", "--args", r#"{"text": "the secret"}"#]);
    assert_eq!(run.code, 2, "{}{}", run.out, run.err);
    assert!(
        run.out
            .contains("blocked by notes-guard: no secrets in notes"),
        "{}",
        run.out
    );

    let run = sandbox.run(&["call", "add_notes", "--args", "{}"]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    assert!(run.out.contains("did you mean `add_note`"), "{}", run.out);

    // The tool's arguments are checked against its schema before it runs.
    let run = sandbox.run(&["call", "add_note", "--args", r#"{"txt": "milk"}"#]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    assert!(run.out.contains("missing field `text`"), "{}", run.out);

    let run = sandbox.run(&["call", "add_notes", "--args", "{}"]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    assert!(run.out.contains("did you mean `add_note`"), "{}", run.out);

    let run = sandbox.run(&["call", "add_note", "--args", "{text"]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    assert!(run.err.contains("--args is not JSON"), "{}", run.err);
}

#[test]
fn call_says_a_tool_that_is_not_approved_is_not_approved() {
    let sandbox = Sandbox::new();
    sandbox.user_extension("notes", NOTES, &["guard.sh", "add_note.sh"]);
    let run = sandbox.run(&["call", "add_note", "--args", r#"{"text": "milk"}"#]);
    assert_eq!(run.code, 1, "{}{}", run.out, run.err);
    assert!(
        run.err.contains(
            "tool `add_note` of extension `notes` does not run: it is not approved (new)"
        ),
        "{}",
        run.err
    );
    assert!(
        run.err.contains(r#"hookchain approve "tool add_note""#),
        "{}",
        run.err
    );
    // Approved, the tool runs; its extension's guard, not approved, is said to be skipped.
    assert_eq!(sandbox.run(&["approve", "tool add_note"]).code, 0);
    let run = sandbox.run(&["call", "add_note", "--args", r#"{"text": "milk"}"#]);
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    assert!(
        run.err.contains("note: skipped:") && run.err.contains("notes-guard"),
        "{}",
        run.err
    );
}
