//! External extensions: `NAME/EXTENSION.yaml` under the user's and the project's extensions
//! directories — what loads, what is left out and why, consent, the master switch, and the
//! runner of their tools (scripts written here, in temporary directories).
#![cfg(unix)]

mod support;

use std::path::Path;

use hookchain::HooksBuilder;
use hookchain::config::{
    Config, ConfigBuilderExt, ConfigHooksExt, ExtensionScope, Init, switch_off_all,
};
use hookchain::consent::{Consent, ConsentPolicy, ConsentStatus};
use hookchain::points::{InterceptToolCall, ToolCall};
use serde_json::json;
use support::{make_executable, temp_dir};

/// Writes `NAME/EXTENSION.yaml` with `yaml` under `extensions`, and each script.
fn extension(extensions: &Path, name: &str, yaml: &str, scripts: &[(&str, &str)]) {
    let dir = extensions.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("EXTENSION.yaml"), yaml).unwrap();
    for (file, body) in scripts {
        let path = dir.join(file);
        std::fs::write(&path, body).unwrap();
        make_executable(&path);
    }
}

fn user_extensions(home: &Path) -> std::path::PathBuf {
    home.join(".config/hookchain/extensions")
}

fn project_extensions(project: &Path) -> std::path::PathBuf {
    project.join(".hookchain/extensions")
}

const NOTES: &str = "\
name: notes
version: 0.2.0
description: Keeps notes
hooks:
  intercept_tool_call:
    - command: ./guard.sh
      name: notes-guard
tools:
  - name: add_note
    description: Adds a note
    parameters:
      type: object
      properties:
        text: {type: string}
      required: [text]
    command: ./add_note.sh
    timeout: 5
";

const GUARD: &str =
    "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"notes says no\"}'\n";
const ADD_NOTE: &str = "#!/bin/sh\nread -r line\necho \"{\\\"got\\\": $line}\"\n";

#[test]
fn an_extension_loads_its_hooks_and_tools_under_its_own_name() {
    let (home, project) = (temp_dir(), temp_dir());
    extension(
        &user_extensions(home.path()),
        "notes",
        NOTES,
        &[("guard.sh", GUARD), ("add_note.sh", ADD_NOTE)],
    );
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let [notes] = config.external_extensions() else {
        panic!("{:?}", config.external_extensions());
    };
    assert_eq!(notes.name, "notes");
    assert_eq!(notes.version.as_deref(), Some("0.2.0"));
    assert_eq!(notes.description.as_deref(), Some("Keeps notes"));
    assert_eq!(notes.scope, ExtensionScope::User);
    assert_eq!(
        notes.hooks,
        vec![("intercept_tool_call", "notes-guard".to_owned())]
    );
    let tool = &notes.tools[0];
    assert_eq!(tool.name, "add_note");
    assert_eq!(tool.extension, "notes");
    assert_eq!(tool.parameters["required"], json!(["text"]));
    assert_eq!(tool.timeout.as_secs(), 5);

    // Approved, the hook runs in the chain, in the extension `notes`.
    let mut consent = Consent::in_memory();
    consent.approve(&config.external_hooks()[0]).unwrap();
    consent.approve(&tool.consent_hook()).unwrap();
    let hooks = HooksBuilder::new()
        .config(config.clone())
        .consent(consent, ConsentPolicy::new())
        .build()
        .unwrap();
    let chain = hooks.chain_of("intercept_tool_call");
    assert_eq!(&*chain[0].extension, "notes");
    let flow = hooks.dispatch::<InterceptToolCall>(ToolCall::new("shell", json!({})));
    assert_eq!(flow.flow.blocked().unwrap().reason, "notes says no");
    let [admitted] = hooks.external_tools() else {
        panic!("{:?}", hooks.external_tools());
    };
    assert_eq!(
        admitted.run(json!({"text": "hi"}), project.path()).unwrap(),
        json!({"got": {"text": "hi"}})
    );
    // Its script edited after it was let in: it does not run.
    std::fs::write(
        user_extensions(home.path()).join("notes/add_note.sh"),
        "#!/bin/sh\necho other\n",
    )
    .unwrap();
    let error = admitted
        .run(json!({"text": "hi"}), project.path())
        .unwrap_err();
    assert!(error.contains("changed since it was approved"), "{error}");
    // Switched off by its section, its hook does not run.
    hooks.disable_extension("notes").unwrap();
    assert!(
        hooks
            .dispatch::<InterceptToolCall>(ToolCall::new("shell", json!({})))
            .flow
            .blocked()
            .is_none()
    );
}

#[test]
fn a_tool_gets_its_arguments_on_stdin_and_its_output_is_the_result() {
    let (home, project) = (temp_dir(), temp_dir());
    let yaml = "\
tools:
  - name: echo_json
    description: Echoes
    parameters: {type: object}
    command: ./echo.sh
  - name: text
    description: Prints text
    parameters: {type: object}
    command: ./text.sh
  - name: fails
    description: Fails
    parameters: {type: object}
    command: ./fails.sh
  - name: slow
    description: Too slow
    parameters: {type: object}
    command: ./slow.sh
    timeout: 0.2
  - name: where
    description: Prints where it runs
    parameters: {type: object}
    command: ./where.sh
";
    extension(
        &user_extensions(home.path()),
        "kit",
        yaml,
        &[
            ("echo.sh", "#!/bin/sh\ncat\n"),
            ("text.sh", "#!/bin/sh\ncat >/dev/null\necho 'plain words'\n"),
            (
                "fails.sh",
                "#!/bin/sh\ncat >/dev/null\necho 'no such note' >&2\nexit 3\n",
            ),
            ("slow.sh", "#!/bin/sh\nexec sleep 5\n"),
            ("where.sh", "#!/bin/sh\ncat >/dev/null\npwd\n"),
        ],
    );
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    let tools: Vec<_> = config.external_tools().collect();
    let run = |i: usize| tools[i].run(json!({"text": "hi"}), project.path());
    assert_eq!(run(0).unwrap(), json!({"text": "hi"}));
    assert_eq!(run(1).unwrap(), json!("plain words"));
    let error = run(2).unwrap_err();
    assert!(
        error.contains("exited with code 3: no such note"),
        "{error}"
    );
    assert!(error.contains("tool `fails`"), "{error}");
    let error = run(3).unwrap_err();
    assert!(error.contains("time limit"), "{error}");
    assert_eq!(run(4).unwrap(), json!(project.path().display().to_string()));
}

#[test]
fn bad_parts_are_left_out_naming_the_file_and_line() {
    let (home, project) = (temp_dir(), temp_dir());
    let yaml = "\
description: Half good
tool:
  - x
tools:
  - name: good
    description: Good
    parameters: {type: object}
    command: ./ok.sh
  - name: not_a_schema
    description: Bad schema
    parameters: {type: string}
    command: ./ok.sh
  - name: missing
    description: No script
    parameters: {type: object}
    command: ./missing.sh
  - name: bad_required
    description: Required names no property
    parameters: {type: object, properties: {a: {type: string}}, required: [b]}
    command: ./ok.sh
";
    extension(
        &user_extensions(home.path()),
        "half",
        yaml,
        &[("ok.sh", "#!/bin/sh\ncat\n")],
    );
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    let names: Vec<_> = config.external_tools().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["good"]);
    let file = user_extensions(home.path()).join("half/EXTENSION.yaml");
    let warnings = config.warnings().join("\n");
    let file = file.display().to_string();
    assert!(
        warnings.contains(&format!("{file} line 2")) && warnings.contains("did you mean `tools`"),
        "{warnings}"
    );
    assert!(warnings.contains(&format!("{file} line 11")), "{warnings}");
    assert!(warnings.contains("`type` must be `object`"), "{warnings}");
    assert!(warnings.contains("missing.sh"), "{warnings}");
    assert!(warnings.contains("`required` names `b`"), "{warnings}");
    // Every session hears of what was left out.
    let hooks = HooksBuilder::new().config(config).build().unwrap();
    assert!(
        hooks
            .notices()
            .iter()
            .any(|n| n.message.contains("not_a_schema"))
    );
}

#[test]
fn the_directory_names_the_extension() {
    let (home, project) = (temp_dir(), temp_dir());
    extension(&user_extensions(home.path()), "notes", "name: other\n", &[]);
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    assert!(config.external_extensions().is_empty());
    let warnings = config.warnings().join("\n");
    assert!(warnings.contains("line 1"), "{warnings}");
    assert!(
        warnings.contains("rename the directory to `other`"),
        "{warnings}"
    );
}

#[test]
fn a_project_extension_cannot_take_the_name_of_the_users() {
    let (home, project) = (temp_dir(), temp_dir());
    extension(
        &user_extensions(home.path()),
        "notes",
        "version: '1'\n",
        &[],
    );
    extension(
        &project_extensions(project.path()),
        "notes",
        "version: '2'\n",
        &[],
    );
    extension(
        &project_extensions(project.path()),
        "extra",
        "version: '3'\n",
        &[],
    );
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    let found: Vec<_> = config
        .external_extensions()
        .iter()
        .map(|e| (e.name.as_str(), e.version.as_deref(), e.scope))
        .collect();
    assert_eq!(
        found,
        [
            ("notes", Some("1"), ExtensionScope::User),
            ("extra", Some("3"), ExtensionScope::Project)
        ]
    );
    let warnings = config.warnings().join("\n");
    assert!(
        warnings.contains("the project's extension `notes` is refused"),
        "{warnings}"
    );
}

#[test]
fn an_edited_extension_file_drifts_its_approval() {
    let (home, project) = (temp_dir(), temp_dir());
    let dir = user_extensions(home.path());
    extension(
        &dir,
        "notes",
        NOTES,
        &[("guard.sh", GUARD), ("add_note.sh", ADD_NOTE)],
    );
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    let mut consent = Consent::in_memory();
    consent.approve(&config.external_hooks()[0]).unwrap();
    let tool = config.external_tools().next().unwrap().clone();
    consent.approve(&tool.consent_hook()).unwrap();
    // Only the description changes: the file is not the one approved.
    std::fs::write(
        dir.join("notes/EXTENSION.yaml"),
        NOTES.replace("Keeps notes", "Keeps notes, now more"),
    )
    .unwrap();
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    assert!(matches!(
        consent.status(&config.external_hooks()[0]),
        ConsentStatus::Drifted { .. }
    ));
    let tool = config.external_tools().next().unwrap();
    assert!(matches!(
        tool.consent_status(&consent),
        ConsentStatus::Drifted { .. }
    ));
    // An edited script drifts it too.
    std::fs::write(dir.join("notes/add_note.sh"), "#!/bin/sh\necho changed\n").unwrap();
    let mut fresh = Consent::in_memory();
    fresh.approve(&tool.consent_hook()).unwrap();
    std::fs::write(dir.join("notes/add_note.sh"), "#!/bin/sh\necho again\n").unwrap();
    assert!(matches!(
        tool.consent_status(&fresh),
        ConsentStatus::Drifted { .. }
    ));
}

#[test]
fn a_hook_cannot_name_another_hash_for_its_extension_file() {
    let (home, project) = (temp_dir(), temp_dir());
    let yaml = "hooks:\n  intercept_tool_call:\n    - command: ./guard.sh\n      env: {HOOKCHAIN_EXTENSION_SHA256: fixed}\n";
    extension(
        &user_extensions(home.path()),
        "notes",
        yaml,
        &[("guard.sh", GUARD)],
    );
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    let sha256 = &config.external_extensions()[0].sha256;
    let hookchain::external::Transport::Command(spec) = &config.external_hooks()[0].transport
    else {
        panic!("{:?}", config.external_hooks()[0].transport);
    };
    assert_eq!(&spec.env["HOOKCHAIN_EXTENSION_SHA256"], sha256);
    assert_eq!(spec.env["HOOKCHAIN_EXTENSION"], "notes");
}

#[test]
fn unapproved_tools_are_not_admitted() {
    let (home, project) = (temp_dir(), temp_dir());
    extension(
        &user_extensions(home.path()),
        "notes",
        NOTES,
        &[("guard.sh", GUARD), ("add_note.sh", ADD_NOTE)],
    );
    let config = Config::discover_extensions(project.path(), Some(home.path()));
    let hooks = HooksBuilder::new()
        .config(config)
        .consent(Consent::in_memory(), ConsentPolicy::new())
        .build()
        .unwrap();
    assert!(hooks.external_tools().is_empty());
    assert!(hooks.chain_of("intercept_tool_call").is_empty());
    let skipped: Vec<_> = hooks
        .consent_report()
        .skipped
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(skipped, ["notes-guard", "tool add_note"]);
}

#[test]
fn the_master_switch_is_the_users_alone() {
    let project = Config::from_yaml_str("hooks_enabled: false\n", "./hookchain.yaml").unwrap();
    assert_eq!(project.hooks_enabled(), None);
    assert!(
        project.warnings()[0].contains("only the user's own"),
        "{:?}",
        project.warnings()
    );
    let user = Config::from_user_yaml_str(
        "hooks_enabled: false\n",
        "~/.config/hookchain/hookchain.yaml",
    )
    .unwrap();
    assert_eq!(user.hooks_enabled(), Some(false));
    let error = Config::from_user_yaml_str("hooks_enabled: no way\n", "u.yaml").unwrap_err();
    assert!(error.to_string().contains("`hooks_enabled`"), "{error}");
}

/// A compiled-in hook of extension `extension`, required or not, that passes.
fn passing(builder: HooksBuilder, name: &str, extension: &str, required: bool) -> HooksBuilder {
    builder.hook_with(
        InterceptToolCall,
        hookchain::HookOptions::new(name)
            .extension(extension)
            .required(required),
        |_: &ToolCall, _: &hookchain::HookContext<'_>| {
            hookchain::HookResult::<serde_json::Value>::Pass
        },
    )
}

#[test]
fn init_loads_extensions_and_the_master_switch_turns_all_but_required_hooks_off() {
    let (home, project) = (temp_dir(), temp_dir());
    extension(
        &user_extensions(home.path()),
        "notes",
        NOTES,
        &[("guard.sh", GUARD), ("add_note.sh", ADD_NOTE)],
    );
    let build = || {
        let builder = passing(HooksBuilder::new(), "must", "vital", true);
        let builder = passing(builder, "may", "optional", false);
        Init::new()
            .project_dir(project.path())
            .home_dir(Some(home.path().to_path_buf()))
            .consent(
                Consent::in_memory(),
                ConsentPolicy::new().accept_hooks(true),
            )
            .builder(builder)
            .build()
    };
    // Switched on: the extension's hook and tool are in.
    let (hooks, _, errors) = build();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(hooks.external_tools().len(), 1);
    assert!(
        hooks
            .chain_of("intercept_tool_call")
            .iter()
            .any(|h| &*h.extension == "notes")
    );
    assert!(hooks.extension("optional").unwrap().is_enabled());

    // `hooks_enabled: false` in the user's file: only the required hook's extension stays on.
    let hookchain = home.path().join(".config/hookchain/hookchain.yaml");
    std::fs::write(&hookchain, "hooks_enabled: false\n").unwrap();
    let (hooks, _, errors) = build();
    assert!(errors.is_empty(), "{errors:?}");
    assert!(hooks.external_tools().is_empty());
    assert!(
        hooks
            .chain_of("intercept_tool_call")
            .iter()
            .all(|h| &*h.extension != "notes")
    );
    assert!(hooks.extension("vital").unwrap().is_enabled());
    let optional = hooks.extension("optional").unwrap();
    assert!(!optional.is_enabled());
    let by = optional.disabled_by().unwrap();
    assert!(by.contains("hooks_enabled: false"), "{by}");
    assert!(
        hooks
            .notices()
            .iter()
            .any(|n| n.message.contains("hooks are switched off"))
    );
    // Switching again finds nothing more to switch off.
    assert!(switch_off_all(&hooks, "x").is_empty());
}

#[test]
fn a_projects_file_cannot_switch_a_users_extension_off_and_its_tool_runs_through_the_chains() {
    let (home, project) = (temp_dir(), temp_dir());
    extension(
        &user_extensions(home.path()),
        "notes",
        NOTES,
        &[
            ("guard.sh", "#!/bin/sh\ncat >/dev/null\nexit 0\n"),
            ("add_note.sh", ADD_NOTE),
        ],
    );
    std::fs::write(
        project.path().join("hookchain.yaml"),
        "extensions:\n  notes:\n    enabled: false\n",
    )
    .unwrap();
    let (hooks, _, errors) = Init::new()
        .project_dir(project.path())
        .home_dir(Some(home.path().to_path_buf()))
        .consent(
            Consent::in_memory(),
            ConsentPolicy::new().accept_hooks(true),
        )
        .builder(HooksBuilder::new())
        .build();
    assert!(errors.is_empty(), "{errors:?}");
    let notes = hooks.extension("notes").unwrap();
    assert!(notes.is_enabled(), "disabled by {:?}", notes.disabled_by());
    assert_eq!(notes.version(), Some("0.2.0"));
    assert_eq!(notes.tools(), ["add_note"]);
    assert!(
        hooks.refusals().iter().any(|r| r.contains("notes")),
        "{:?}",
        hooks.refusals()
    );

    let session = hooks.session("project-cannot-switch-off");
    session.set_project_dir(project.path());
    assert!(session.tools().iter().any(|t| t.name == "add_note"));
    let turn = session.begin_turn();
    let run = turn.call_tool(ToolCall::new("add_note", json!({"text": "milk"})));
    assert!(!run.result.is_error, "{:?}", run.result);
    assert_eq!(run.result.tool_response, json!({"got": {"text": "milk"}}));
    turn.end(hookchain::TurnEnd::Normal);
}
