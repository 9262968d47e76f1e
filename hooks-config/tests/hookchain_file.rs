//! hookchain's own `hookchain.yaml`, read the way `init()` reads it: one part of the file that
//! cannot be loaded — an unknown point or key, a program that does not exist, a bad matcher or
//! time limit, a section that is not a mapping, an unknown top-level key — costs that part
//! only, loudly (the init report, a notification every session hears, the config's warnings),
//! as a bad entry of another agent's file does; a `required: true` entry that cannot be loaded
//! blocks its point; a file that does not parse is left out whole, and says so. The strict
//! reads (`Config::from_yaml_str`, `Config::load`, `Config::discover`) keep failing on the
//! first such part.

mod support;

use std::path::{Path, PathBuf};

use hookchain::Hooks;
use hookchain::config::{Config, Init};
use hookchain::consent::{Consent, ConsentPolicy};
use hookchain::points::{InterceptToolCall, ToolCall};
use tempfile::TempDir;

use support::{make_executable, temp_dir};

/// A project directory of its own, with an executable `guard.sh` that blocks every call it
/// sees (the Claude Code way: exit code 2, the reason on stderr).
struct Project(TempDir);

impl Project {
    fn new() -> Project {
        let dir = temp_dir();
        let guard = dir.path().join("guard.sh");
        std::fs::write(
            &guard,
            "#!/bin/sh\ncat >/dev/null\necho 'stopped by the project guard' >&2\nexit 2\n",
        )
        .unwrap();
        make_executable(&guard);
        Project(dir)
    }

    fn dir(&self) -> &Path {
        self.0.path()
    }

    /// Writes `./hookchain.yaml`.
    fn config(&self, text: &str) -> PathBuf {
        let file = self.dir().join("hookchain.yaml");
        std::fs::write(&file, text).unwrap();
        file
    }

    /// What `init()` builds for this project (no user file), every hook approved.
    fn init(&self) -> (Hooks, hookchain::config::InitReport, Vec<String>) {
        let (hooks, report, errors) = Init::new()
            .project_dir(self.dir())
            .home_dir(None)
            .consent(
                Consent::in_memory(),
                ConsentPolicy::new().accept_hooks(true),
            )
            .build();
        (
            hooks,
            report,
            errors.iter().map(|e| e.to_string()).collect(),
        )
    }
}

fn blocked(hooks: &Hooks) -> Option<String> {
    hooks
        .dispatch::<InterceptToolCall>(ToolCall::new("Bash", serde_json::json!({"command": "ls"})))
        .flow
        .blocked()
        .map(|b| b.reason)
}

fn notices(hooks: &Hooks) -> Vec<String> {
    hooks.notices().iter().map(|n| n.message.clone()).collect()
}

/// A file with a good guard among bad entries of every kind: the guard loads and blocks; each
/// bad part is a warning naming the file and its line, in the init report and in a notification
/// every session hears; the report names the file as read, not "no config file"; `init` returns
/// no error.
#[test]
fn one_bad_entry_of_a_hookchain_yaml_costs_that_entry_only_loudly() {
    let project = Project::new();
    let file = project.config(
        "hooks:\n\
         \x20 PreToolUse:\n\
         \x20   - command: ./guard.sh\n\
         \x20     name: project-guard\n\
         \x20   - command: ./no-such-script.sh\n\
         \x20   - command: ./guard.sh\n\
         \x20     matcher: \"(\"\n\
         \x20   - command: ./guard.sh\n\
         \x20     timeout: -3\n\
         \x20   - comand: ./guard.sh\n\
         \x20 pre_tool_cal:\n\
         \x20   - command: ./guard.sh\n\
         extensions:\n\
         \x20 my-extension: [1, 2]\n\
         hook_auto_accept: true\n",
    );
    let name = file.display().to_string();
    let (hooks, report, errors) = project.init();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(
        blocked(&hooks).as_deref(),
        Some("stopped by the project guard")
    );
    assert_eq!(report.files, std::slice::from_ref(&name));
    let text = report.to_string();
    assert!(text.contains(&format!("config from {name}")), "{text}");
    assert!(!text.contains("no config file"), "{text}");

    let expected = [
        (5, "no-such-script.sh"),
        (7, "`matcher` of hook #3 of `PreToolUse`"),
        (9, "`timeout` of hook #4 of `PreToolUse`"),
        (10, "key `comand` of hook #5 of `PreToolUse`"),
        (11, "did you mean `pre_tool_call`?"),
        (14, "extension `my-extension`"),
        (15, "did you mean `hooks_auto_accept`?"),
    ];
    let warnings = &report.warnings;
    assert_eq!(warnings.len(), expected.len(), "{warnings:#?}");
    let notices = notices(&hooks);
    for (line, says) in expected {
        let warning = warnings
            .iter()
            .find(|w| w.contains(&format!("{name} line {line}")))
            .unwrap_or_else(|| panic!("no warning for line {line}: {warnings:#?}"));
        assert!(warning.contains(says), "line {line}: {warning}");
        assert!(
            warning.ends_with(
                "this is left out until it is fixed; the file's other hooks and sections load"
            ),
            "{warning}"
        );
        assert!(text.contains(warning.as_str()), "{text}");
        assert!(notices.contains(warning), "{notices:#?}");
    }
}

/// A `required: true` entry that cannot be loaded blocks its point, naming the hook, its file
/// and line and the error; the good hooks of the file still load and run.
#[test]
fn a_required_entry_that_cannot_be_loaded_blocks_its_point_and_the_rest_loads() {
    let project = Project::new();
    let file = project.config(
        "hooks:\n\
         \x20 UserPromptSubmit:\n\
         \x20   - command: ./guard.sh\n\
         \x20 PreToolUse:\n\
         \x20   - command: ./no-such-guard.sh\n\
         \x20     name: no-force-push\n\
         \x20     required: true\n",
    );
    let name = file.display().to_string();
    let (hooks, report, errors) = project.init();
    assert!(errors.is_empty(), "{errors:#?}");
    let reason = blocked(&hooks).expect("the point of a broken required hook blocks");
    assert!(
        reason.starts_with(&format!(
            "required hook `no-force-push` ({name}:5) did not run: it cannot be loaded: \
             `command` of hook #1 of `PreToolUse` in {name} line 5"
        )),
        "{reason}"
    );
    assert!(reason.contains("no-such-guard.sh"), "{reason}");
    assert!(
        report.warnings.iter().any(|w| w.contains(
            "this required hook cannot be loaded, so `intercept_tool_call` \
                                 blocks until it is fixed"
        )),
        "{:#?}",
        report.warnings
    );
    // The file's good hook loaded: the user's prompt is blocked by it.
    let prompt = hooks.dispatch::<hookchain::points::TransformUserInput>("hi".to_owned());
    assert!(prompt.flow.is_blocked());
}

/// The strict reads fail on the first part that cannot be loaded, with the same message the
/// lenient read gives as a warning; the lenient ones keep the rest.
#[test]
fn strict_reads_fail_on_a_bad_entry_and_lenient_reads_leave_it_out() {
    let project = Project::new();
    let file = project.config(
        "hooks:\n\
         \x20 PreToolUse:\n\
         \x20   - command: ./guard.sh\n\
         \x20     timeout: 0\n\
         \x20   - command: ./guard.sh\n",
    );
    let name = file.display().to_string();
    let strict = Config::load(&file).unwrap_err().to_string();
    assert!(
        strict.starts_with(&format!(
            "`timeout` of hook #1 of `PreToolUse` in {name} line 4:"
        )),
        "{strict}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        Config::from_yaml_str(&text, &name).unwrap_err().to_string(),
        strict
    );
    assert_eq!(
        Config::discover_from(project.dir(), None)
            .unwrap_err()
            .to_string(),
        strict
    );
    for lenient in [
        Config::load_lenient(&file).unwrap(),
        Config::discover_lenient_from(project.dir(), None).unwrap(),
    ] {
        assert_eq!(lenient.external_hooks().len(), 1);
        // The hook that loads keeps the name of its place in the file: #02, not #01.
        assert_eq!(lenient.external_hooks()[0].name, format!("{name}#02"));
        assert_eq!(lenient.warnings().len(), 1, "{:#?}", lenient.warnings());
        assert!(
            lenient.warnings()[0].starts_with(&strict),
            "{:#?}",
            lenient.warnings()
        );
    }
}

/// A file that does not parse as YAML is left out whole, and says so: the report names it as
/// left out (never "no config file"), and every session hears it.
#[test]
fn a_file_that_does_not_parse_is_left_out_whole_loudly() {
    let project = Project::new();
    let file = project.config("hooks:\n  PreToolUse: [\n");
    let name = file.display().to_string();
    let (hooks, report, errors) = project.init();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].starts_with(&name), "{}", errors[0]);
    assert!(report.files.is_empty());
    assert_eq!(report.left_out, std::slice::from_ref(&name));
    let text = report.to_string();
    assert!(!text.contains("no config file\n"), "{text}");
    assert!(
        text.contains(&format!("left out whole (it does not parse): {name}")),
        "{text}"
    );
    let notices = notices(&hooks);
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with(&errors[0]) && n.contains("the whole file is left out")),
        "{notices:#?}"
    );
}
