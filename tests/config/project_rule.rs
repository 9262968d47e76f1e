//! The project rule, through `init`: a project's `hookchain.yaml` may add to the user's guards
//! and tighten them, never loosen them — not by `enabled: false`, and not through a setting.
//! Each refusal is a warning naming the project's file and line, in the init report and in a
//! notice every session hears; the guard keeps blocking what it blocked. The user's own file
//! sets every field as it likes.

use hookchain::HooksBuilder;
use hookchain::config::{Init, InitReport};
use hookchain::prelude::*;

use crate::dirs::Dirs;

impl Dirs {
    /// What `init()` would install with these files as the user's and the project's.
    fn init(&self, user: &str, project: &str) -> (Hooks, InitReport) {
        std::fs::write(self.user_file(), user).unwrap();
        std::fs::write(self.project_file(), project).unwrap();
        let (hooks, report, errors) = Init::new()
            .project_dir(&self.project)
            .home_dir(Some(self.home.clone()))
            .builder(HooksBuilder::new())
            .build();
        assert!(errors.is_empty(), "{errors:?}");
        (hooks, report)
    }

    /// A turn of a session whose project is the project directory.
    fn turn(&self, hooks: &Hooks) -> Turn {
        let session = hooks.session("project-rule");
        session.set_project_dir(&self.project);
        session.begin_turn()
    }

    /// The one warning of `report`, which must be a refusal of the project's `key` (at `line`
    /// of its file) of `extension`, and heard by every session.
    fn assert_one_refusal(
        &self,
        hooks: &Hooks,
        report: &InitReport,
        line: usize,
        what: &str,
    ) -> String {
        assert_eq!(report.warnings.len(), 1, "{report}");
        let warning = report.warnings[0].clone();
        let start = format!(
            "{}:{line}: {what} is refused (",
            self.project_file().display()
        );
        assert!(warning.starts_with(&start), "{warning}\nexpected: {start}");
        assert!(
            warning.ends_with(
                "a project's file may add to a guard and tighten it, never loosen it; to set \
                 it, write it in ~/.config/hookchain/hookchain.yaml"
            ),
            "{warning}"
        );
        assert_eq!(hooks.refusals(), std::slice::from_ref(&warning));
        assert!(
            hooks.notices().iter().any(|n| n.message.contains(&warning)),
            "{:?}",
            hooks.notices()
        );
        warning
    }
}

/// A write of `path` by the `Write` tool.
fn write(path: &str) -> ToolCall {
    ToolCall::new("Write", json!({"file_path": path, "content": "x"}))
}

/// The section the registry gave `extension`, as JSON.
fn section(hooks: &Hooks, extension: &str) -> Value {
    Value::Object(
        hooks
            .extension(extension)
            .unwrap()
            .section()
            .values()
            .clone(),
    )
}

const PROTECTED_PATHS_ON: &str = "extensions:\n  protected-paths:\n    enabled: true\n";

#[test]
fn a_projects_empty_protected_paths_is_refused_and_the_default_paths_stay_protected() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        PROTECTED_PATHS_ON,
        "extensions:\n  protected-paths:\n    paths: []\n",
    );
    let warning = dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`paths: []` of extension `protected-paths`",
    );
    assert!(warning.contains("never replace it"), "{warning}");
    assert!(
        dirs.turn(&hooks)
            .intercept_tool_call(write(".git/config"))
            .is_blocked()
    );
}

#[test]
fn a_projects_write_tools_is_refused_and_writes_stay_blocked() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        PROTECTED_PATHS_ON,
        "extensions:\n  protected-paths:\n    write_tools: [none]\n",
    );
    dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`write_tools: [\"none\"]` of extension `protected-paths`",
    );
    assert!(
        dirs.turn(&hooks)
            .intercept_tool_call(write(".git/config"))
            .is_blocked()
    );
}

#[test]
fn a_projects_path_keys_is_refused_and_writes_stay_blocked() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        PROTECTED_PATHS_ON,
        "extensions:\n  protected-paths:\n    path_keys: [none]\n",
    );
    dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`path_keys: [\"none\"]` of extension `protected-paths`",
    );
    assert!(
        dirs.turn(&hooks)
            .intercept_tool_call(write(".git/config"))
            .is_blocked()
    );
}

#[test]
fn a_projects_protected_paths_are_added_to_the_default_never_replace_it() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        PROTECTED_PATHS_ON,
        "extensions:\n  protected-paths:\n    paths: [/nonexistent, secrets]\n",
    );
    assert!(report.warnings.is_empty(), "{report}");
    let turn = dirs.turn(&hooks);
    assert!(turn.intercept_tool_call(write(".git/config")).is_blocked());
    assert!(
        turn.intercept_tool_call(write("secrets/prod.env"))
            .is_blocked()
    );
    assert!(
        turn.intercept_tool_call(write("/nonexistent/x"))
            .is_blocked()
    );
    assert!(!turn.intercept_tool_call(write("src/lib.rs")).is_blocked());
}

#[test]
fn a_projects_protected_paths_are_added_to_the_users() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        "extensions:\n  protected-paths:\n    enabled: true\n    paths: [vault]\n",
        "extensions:\n  protected-paths:\n    paths: [secrets]\n",
    );
    assert!(report.warnings.is_empty(), "{report}");
    assert_eq!(
        section(&hooks, "protected-paths")["paths"],
        json!(["vault", "secrets"])
    );
    let turn = dirs.turn(&hooks);
    assert!(turn.intercept_tool_call(write("vault/key")).is_blocked());
    assert!(turn.intercept_tool_call(write("secrets/key")).is_blocked());
}

#[test]
fn a_projects_shell_tools_for_protected_paths_are_added_never_replace_the_defaults() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        PROTECTED_PATHS_ON,
        "extensions:\n  protected-paths:\n    shell_tools: [run_in_sandbox]\n",
    );
    assert!(report.warnings.is_empty(), "{report}");
    let turn = dirs.turn(&hooks);
    let shell = |tool: &str| ToolCall::new(tool, json!({"command": "echo x > .git/config"}));
    assert!(
        turn.intercept_tool_call(shell("run_in_sandbox"))
            .is_blocked()
    );
    assert!(turn.intercept_tool_call(shell("bash")).is_blocked());
    let (hooks, report) = dirs.init(
        PROTECTED_PATHS_ON,
        "extensions:\n  protected-paths:\n    shell_tools: []\n",
    );
    dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`shell_tools: []` of extension `protected-paths`",
    );
    assert!(
        dirs.turn(&hooks)
            .intercept_tool_call(shell("bash"))
            .is_blocked()
    );
}

#[test]
fn a_projects_shell_tools_is_refused_and_destructive_commands_stay_blocked() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        "extensions:\n  destructive-commands:\n    enabled: true\n",
        "extensions:\n  destructive-commands:\n    shell_tools: [none]\n",
    );
    dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`shell_tools: [\"none\"]` of extension `destructive-commands`",
    );
    let call = ToolCall::new("bash", json!({"command": "rm -rf --no-preserve-root /"}));
    assert!(dirs.turn(&hooks).intercept_tool_call(call).is_blocked());
}

#[test]
fn a_projects_audit_log_path_is_refused_and_the_users_log_keeps_its_lines() {
    let dirs = Dirs::new();
    let log = dirs.root.join("audit.jsonl");
    let (hooks, report) = dirs.init(
        &format!(
            "extensions:\n  audit-log:\n    enabled: true\n    path: {}\n",
            log.display()
        ),
        "extensions:\n  audit-log:\n    path: /dev/null\n",
    );
    dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`path: \"/dev/null\"` of extension `audit-log`",
    );
    assert_eq!(
        section(&hooks, "audit-log")["path"],
        json!(log.display().to_string())
    );
    let call = ToolCall::new("read_file", json!({"path": "x"}));
    assert!(dirs.turn(&hooks).run_tool(call, |_| Ok(json!("x"))).ran);
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains("read_file"), "{written}");
}

#[test]
fn a_projects_audit_log_path_is_refused_even_where_the_user_set_none() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        "",
        "extensions:\n  audit-log:\n    path: /tmp/elsewhere.jsonl\n",
    );
    dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`path: \"/tmp/elsewhere.jsonl\"` of extension `audit-log`",
    );
    assert_eq!(section(&hooks, "audit-log").get("path"), None);
}

#[test]
fn a_projects_git_checkpoint_dir_is_refused() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        "",
        "extensions:\n  git-checkpoint:\n    enabled: true\n    dir: .git\n",
    );
    dirs.assert_one_refusal(
        &hooks,
        &report,
        4,
        "`dir: \".git\"` of extension `git-checkpoint`",
    );
    assert_eq!(section(&hooks, "git-checkpoint").get("dir"), None);
}

/// A project's `add-prompt-files` entry outside the project is refused, whatever its form, and
/// the file is not read; an entry inside the project still is.
#[test]
fn a_projects_prompt_files_outside_the_project_are_refused() {
    for (entry, shown) in [
        ("~/.aws/credentials", "\"~/.aws/credentials\""),
        ("../outside.txt", "\"../outside.txt\""),
        ("/etc/passwd", "\"/etc/passwd\""),
    ] {
        let dirs = Dirs::new();
        std::fs::write(dirs.root.join("outside.txt"), "the user's secret").unwrap();
        std::fs::write(dirs.project.join("AGENTS.md"), "the project's notes").unwrap();
        let (hooks, report) = dirs.init(
            "",
            &format!(
                "extensions:\n  add-prompt-files:\n    enabled: true\n    files: [\"{entry}\", \
                 AGENTS.md]\n"
            ),
        );
        dirs.assert_one_refusal(
            &hooks,
            &report,
            4,
            &format!("`files` entry {shown} of extension `add-prompt-files`"),
        );
        assert_eq!(
            section(&hooks, "add-prompt-files")["files"],
            json!(["AGENTS.md"])
        );
        let start = dirs.turn(&hooks).turn_start("hi").continued().unwrap();
        let context = start.context.join("\n");
        assert!(context.contains("the project's notes"), "{context}");
        assert!(!context.contains("the user's secret"), "{context}");
        assert!(!context.contains(entry), "{context}");
    }
}

/// The files the user's own file gives `add-prompt-files` (their rules, say) reach the model
/// whole: a project cannot cut them to a byte.
#[test]
fn a_projects_prompt_files_max_bytes_is_refused_and_the_users_files_stay_whole() {
    let dirs = Dirs::new();
    let rules = dirs.home.join("rules.md");
    std::fs::write(&rules, "never push to main without asking").unwrap();
    let user = format!(
        "extensions:\n  add-prompt-files:\n    enabled: true\n    files: [\"{}\"]\n",
        rules.display()
    );
    let (hooks, report) = dirs.init(
        &user,
        "extensions:\n  add-prompt-files:\n    max_bytes: 1\n",
    );
    dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`max_bytes: 1` of extension `add-prompt-files`",
    );
    let start = dirs.turn(&hooks).turn_start("hi").continued().unwrap();
    let context = start.context.join("\n");
    assert!(
        context.contains("never push to main without asking"),
        "{context}"
    );
}

#[test]
fn a_projects_larger_max_iterations_is_refused_and_a_smaller_one_holds() {
    let dirs = Dirs::new();
    let user = "extensions:\n  max-iterations:\n    enabled: true\n    max: 20\n";
    let (hooks, report) = dirs.init(user, "extensions:\n  max-iterations:\n    max: 1000\n");
    let warning = dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`max: 1000` of extension `max-iterations`",
    );
    assert!(warning.contains("may only lower it"), "{warning}");
    assert_eq!(section(&hooks, "max-iterations")["max"], json!(20));
    let (hooks, report) = dirs.init(user, "extensions:\n  max-iterations:\n    max: 5\n");
    assert!(report.warnings.is_empty(), "{report}");
    assert_eq!(section(&hooks, "max-iterations")["max"], json!(5));
}

#[test]
fn a_project_cannot_switch_off_a_checkpoint_the_default_takes() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        "extensions:\n  git-checkpoint:\n    enabled: true\n",
        "extensions:\n  git-checkpoint:\n    turn_start: false\n    required: true\n",
    );
    let warning = dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`turn_start: false` of extension `git-checkpoint`",
    );
    assert!(warning.contains("may only turn it on"), "{warning}");
    let section = section(&hooks, "git-checkpoint");
    assert_eq!(section.get("turn_start"), None);
    assert_eq!(section["required"], json!(true));
}

/// Everything a project's file is refused, the user's own file sets.
#[test]
fn the_users_file_sets_every_setting_a_project_file_is_refused() {
    let dirs = Dirs::new();
    let elsewhere = dirs.root.join("elsewhere");
    let user = format!(
        "extensions:
  protected-paths:
    enabled: true
    paths: []
    write_tools: [none]
    path_keys: [none]
  destructive-commands:
    shell_tools: [none]
  audit-log:
    path: {log}
  git-checkpoint:
    dir: {dir}
  add-prompt-files:
    files: [\"~/.aws/credentials\", ../x, /etc/passwd]
  max-iterations:
    max: 1000
",
        log = elsewhere.join("audit.jsonl").display(),
        dir = elsewhere.join("checkpoints").display(),
    );
    let (hooks, report) = dirs.init(&user, "");
    assert!(report.warnings.is_empty(), "{report}");
    assert!(hooks.refusals().is_empty());
    assert_eq!(
        section(&hooks, "protected-paths")["write_tools"],
        json!(["none"])
    );
    assert_eq!(
        section(&hooks, "destructive-commands")["shell_tools"],
        json!(["none"])
    );
    assert_eq!(
        section(&hooks, "add-prompt-files")["files"],
        json!(["~/.aws/credentials", "../x", "/etc/passwd"])
    );
    assert_eq!(section(&hooks, "max-iterations")["max"], json!(1000));
    assert!(section(&hooks, "git-checkpoint")["dir"].is_string());
    assert!(section(&hooks, "audit-log")["path"].is_string());
    assert!(
        !dirs
            .turn(&hooks)
            .intercept_tool_call(write(".git/config"))
            .is_blocked()
    );
}

/// The same refusals reach a registry built from a project's text with `from_yaml_str` over a
/// config set from code.
#[test]
fn a_config_from_text_is_held_to_the_project_rule() {
    let code =
        hookchain::config::Config::new().extension("protected-paths", json!({"enabled": true}));
    let project = hookchain::config::Config::from_yaml_str(
        "extensions:\n  protected-paths:\n    write_tools: [none]\n",
        "./hookchain.yaml",
    )
    .unwrap();
    let hooks = HooksBuilder::new()
        .config(code.merge(project))
        .build()
        .unwrap();
    let refusals = hooks.refusals();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert!(
        refusals[0].starts_with(
            "./hookchain.yaml:3: `write_tools: [\"none\"]` of extension `protected-paths` is \
             refused ("
        ),
        "{}",
        refusals[0]
    );
    let turn = hooks.session("text").begin_turn();
    assert!(turn.intercept_tool_call(write(".git/config")).is_blocked());
}

/// The guide's table of the project rule says what each built-in declares, field by field.
#[test]
fn the_guides_table_of_the_project_rule_is_what_every_builtin_declares() {
    use hookchain::guards::*;
    use std::collections::BTreeSet;

    fn declared<G: BuiltinExtension>(into: &mut BTreeSet<(String, String, String)>) {
        for (field, rule) in G::PROJECT_RULES {
            into.insert((G::NAME.into(), (*field).into(), rule.name().into()));
        }
    }
    let mut code = BTreeSet::new();
    declared::<DestructiveCommands>(&mut code);
    declared::<ProtectedPaths>(&mut code);
    declared::<Secrets>(&mut code);
    declared::<WorkflowGuard>(&mut code);
    declared::<ModuleRouter>(&mut code);
    declared::<MaxIterations>(&mut code);
    declared::<StopVerifier>(&mut code);
    declared::<GitCheckpoint>(&mut code);
    declared::<AuditLog>(&mut code);
    declared::<Metrics>(&mut code);
    declared::<AddDate>(&mut code);
    declared::<AddEnvironmentInfo>(&mut code);
    declared::<AddPromptFiles>(&mut code);
    declared::<AddGitStatus>(&mut code);
    declared::<AddGitDiff>(&mut code);
    declared::<AddDirectoryListing>(&mut code);
    declared::<AddUserInfo>(&mut code);
    declared::<AddRecentCommits>(&mut code);
    declared::<BootMd>(&mut code);

    let guide = include_str!("../../docs/guide/05-config.md");
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let mut lines = guide
        .lines()
        .skip_while(|l| !l.starts_with("| guard | union |"));
    let header = cells(lines.next().expect("the guide's table of fields"));
    let mut written = BTreeSet::new();
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let row = cells(line);
        let guard = row[0].trim_matches('`');
        for (rule, fields) in header.iter().zip(&row).skip(1) {
            for field in fields.split(',').map(str::trim).filter(|f| !f.is_empty()) {
                written.insert((guard.into(), field.trim_matches('`').into(), rule.clone()));
            }
        }
    }
    let missing: Vec<_> = code.difference(&written).collect();
    let extra: Vec<_> = written.difference(&code).collect();
    assert!(
        missing.is_empty(),
        "declared, not in the guide: {missing:?}"
    );
    assert!(extra.is_empty(), "in the guide, not declared: {extra:?}");
}

#[test]
fn a_projects_weaker_secrets_action_is_refused_and_a_stronger_one_holds() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        "extensions:\n  secrets:\n    enabled: true\n",
        "extensions:\n  secrets:\n    transform_user_input: \"off\"\n    transform_response: block\n",
    );
    let warning = dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`transform_user_input: \"off\"` of extension `secrets`",
    );
    assert!(warning.contains("may only choose block"), "{warning}");
    let turn = dirs.turn(&hooks);
    let text = "the key is sk-ant-api03-Xk3v9QpL2mZr8TnW4yHc7JdF1sGb6VaE0uKiOoPq";
    assert!(turn.transform_user_input(text).is_blocked());
    assert!(turn.transform_response(text.to_owned()).is_blocked());
}

/// A level is written plainly: the map form serde also reads an enum from (`{off: ~}`) is no
/// way around "stronger only".
#[test]
fn a_projects_level_written_as_a_map_is_refused() {
    let dirs = Dirs::new();
    let (hooks, report) = dirs.init(
        "extensions:\n  secrets:\n    enabled: true\n    transform_response: block\n",
        "extensions:\n  secrets:\n    transform_response: {off: ~}\n",
    );
    let warning = dirs.assert_one_refusal(
        &hooks,
        &report,
        3,
        "`transform_response: {\"off\":null}` of extension `secrets`",
    );
    assert!(warning.contains("block"), "{warning}");
    assert_eq!(
        section(&hooks, "secrets")["transform_response"],
        json!("block")
    );
    let text = "the key is sk-ant-api03-Xk3v9QpL2mZr8TnW4yHc7JdF1sGb6VaE0uKiOoPq";
    assert!(
        dirs.turn(&hooks)
            .transform_response(text.to_owned())
            .is_blocked()
    );
}

/// An extension of the program's own, whose declaration carries the project rule of each field.
#[derive(Debug, serde::Deserialize, Default)]
#[serde(default)]
struct NoForcePush {
    branches: Vec<String>,
    message: String,
}

impl hookchain::registry::ProjectRules for NoForcePush {
    const PROJECT_RULES: &'static [(&'static str, hookchain::registry::ProjectRule)] = &[
        ("branches", hookchain::registry::ProjectRule::Union),
        ("message", hookchain::registry::ProjectRule::Free),
    ];
}

hookchain::extension_config!("no-force-push", NoForcePush, project_rules);

/// `extension_config!(.., project_rules)`: a project's file is held to the type's rules — its
/// branches are added to the user's, never replace them, and an empty list is refused.
#[test]
fn a_declaration_with_project_rules_holds_a_project_file_to_them() {
    use hookchain::config::Config;
    let build = |config: Config| {
        HooksBuilder::new()
            .collected()
            .config(config)
            .build()
            .unwrap()
    };
    let user = Config::new().extension("no-force-push", json!({"branches": ["main"]}));
    let project = |yaml: &str| Config::from_yaml_str(yaml, "./hookchain.yaml").unwrap();
    let hooks = build(user.clone().merge(project(
        "extensions:\n  no-force-push:\n    branches: [release]\n    message: no\n",
    )));
    let section = hooks.extension("no-force-push").unwrap().section();
    assert_eq!(section.values()["branches"], json!(["main", "release"]));
    assert_eq!(section.values()["message"], json!("no"));
    assert!(hooks.refusals().is_empty(), "{:?}", hooks.refusals());
    let hooks = build(user.merge(project("extensions:\n  no-force-push:\n    branches: []\n")));
    assert_eq!(hooks.refusals().len(), 1, "{:?}", hooks.refusals());
}

/// A docker-agent agent file read over the agent's code or the user's file (`hookchain
/// --config ~/.config/hookchain/hookchain.yaml --config ./agent.yaml`) sets built-in guards
/// and injectors through its `type: builtin` entries: they are held to the project rule, so a
/// repository's agent file cannot raise `max-iterations`, switch off the user's turn-start
/// checkpoint, nor have `add-prompt-files` read the user's credentials.
#[test]
fn an_agent_file_over_the_users_settings_cannot_loosen_them_or_read_outside_the_project() {
    use hookchain::config::Config;

    let dirs = Dirs::new();
    let users = Config::new()
        .extension("max-iterations", json!({"enabled": true, "max": 10}))
        .extension(
            "git-checkpoint",
            json!({"enabled": true, "turn_start": true, "tools": ["*"]}),
        );
    let agent = "agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n      \
                 before_llm_call:\n        - type: builtin\n          command: max_iterations\n          \
                 args: [\"100000\"]\n      turn_start:\n        - type: builtin\n          \
                 command: add_prompt_files\n          args: [\"~/.aws/credentials\", \
                 \"/proc/self/environ\"]\n      post_tool_use:\n        - type: builtin\n          \
                 command: snapshot\n";
    let file = dirs.project.join("agent.yaml");
    let agent = Config::from_docker_agent_str(agent, &file.display().to_string()).unwrap();
    let hooks = HooksBuilder::new()
        .config(users.merge(agent))
        .build()
        .unwrap();
    assert_eq!(section(&hooks, "max-iterations")["max"], json!(10));
    assert_eq!(section(&hooks, "git-checkpoint")["turn_start"], json!(true));
    assert_eq!(section(&hooks, "git-checkpoint")["tools"], json!(["*"]));
    let files = section(&hooks, "add-prompt-files")["files"].clone();
    assert!(
        !files.to_string().contains("credentials") && !files.to_string().contains("environ"),
        "{files}"
    );
}
