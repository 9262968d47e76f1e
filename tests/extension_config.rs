//! Extensions through the facade: `#[register_hook(.., extension = "plan-check")]` hooks that
//! read `cx.config::<PlanCheckConfig>()`, the type declared with
//! `hookchain::extension_config!`, config files from `tests/fixtures/extensions/`, and enabling
//! and disabling the extension. Run with both registration backends:
//! `cargo test --test extension_config` and `cargo test --test extension_config --features linkme`.
//!
//! The registries here are built with `HooksBuilder::new().collected()`, never
//! `Hooks::global()`, so no test reads the real `./hookchain.yaml` or `~/.config`.

use std::path::PathBuf;

use hookchain::config::Config;
use hookchain::registry::{BuildError, ConfigOrigin};
use hookchain::{ConfigError, HooksBuilder};
use hookchain::{HookContext, prelude::*};
use serde::Deserialize;

mod support;
use support::temp_dir;

/// The workflow guard's settings, as the feature request has them.
#[derive(Debug, Deserialize, PartialEq)]
struct PlanCheckConfig {
    plan_path: String,
    #[serde(default)]
    blocked_tools: Vec<String>,
    #[serde(default)]
    allowed_paths: Vec<String>,
}

hookchain::extension_config!("plan-check", PlanCheckConfig);

/// A second view of the same section, declared in the same module: each declaration is checked.
#[derive(Debug, Deserialize)]
struct PlanPath {
    plan_path: String,
}

hookchain::extension_config!("plan-check", PlanPath);

/// Blocks the configured tools outside the allowed paths.
#[register_hook(
    "intercept_tool_call",
    priority = 10,
    extension = "plan-check",
    on_error = "block"
)]
fn require_plan(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<PlanCheckConfig>()?;
    let path = call.str_arg("path").unwrap_or("");
    if config.blocked_tools.contains(&call.name)
        && !config.allowed_paths.iter().any(|p| path.starts_with(p))
    {
        return Ok(HookResult::block(format!(
            "No valid plan yet: write {} first",
            config.plan_path
        )));
    }
    Ok(HookResult::Pass)
}

/// `/plan` becomes an instruction naming the configured plan file.
#[register_hook("transform_user_input", extension = "plan-check")]
fn expand_plan(text: &str, cx: &HookContext) -> Result<HookResult<String>, ConfigError> {
    if text != "/plan" {
        return Ok(HookResult::Pass);
    }
    let config = cx.config::<PlanCheckConfig>()?;
    Ok(HookResult::Rewrite(format!(
        "write the plan to {}",
        config.plan_path
    )))
}

/// A hook of the default extension (this package's name), never configured.
#[register_hook("intercept_tool_call", priority = 20)]
fn audit(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    cx.set_metadata("audited", call.name.as_str());
    HookResult::Pass
}

fn fixture(name: &str) -> PathBuf {
    support::fixture(&format!("extensions/{name}"))
}

fn hooks_with(config: Config) -> Result<Hooks, BuildError> {
    HooksBuilder::new().collected().config(config).build()
}

fn hooks() -> Hooks {
    hooks_with(Config::load(fixture("hookchain.yaml")).unwrap()).unwrap()
}

fn write(path: &str) -> ToolCall {
    ToolCall::new("write_file", json!({ "path": path }))
}

#[test]
fn the_declaration_is_collected_by_the_backend_in_use() {
    let backend = if cfg!(feature = "linkme") {
        "linkme"
    } else {
        "inventory"
    };
    assert_eq!(hookchain::__private::backend(), backend);
    let mut declared: Vec<_> = hookchain::__private::config_declarations().collect();
    declared.sort_by_key(|d| d.type_name);
    let names: Vec<_> = declared
        .iter()
        .map(|d| (d.extension, d.type_name))
        .collect();
    assert_eq!(
        names,
        [
            ("plan-check", "PlanCheckConfig"),
            ("plan-check", "PlanPath")
        ]
    );
    assert!(
        declared
            .iter()
            .all(|d| d.file.ends_with("extension_config.rs")),
        "{declared:?}"
    );
    let registered: Vec<_> = hookchain::__private::registrations()
        .map(|r| (r.name, r.extension))
        .collect();
    assert!(registered.contains(&("extension_config::require_plan", "plan-check")));
    assert!(registered.contains(&("extension_config::audit", "hookchain")));
}

#[test]
fn hooks_read_the_typed_config_of_their_extension() {
    let hooks = hooks();
    let config = hooks
        .extension("plan-check")
        .unwrap()
        .config::<PlanCheckConfig>()
        .unwrap();
    assert_eq!(
        *config,
        PlanCheckConfig {
            plan_path: "plans/active/plan.md".into(),
            blocked_tools: vec![
                "write_file".into(),
                "edit_file".into(),
                "apply_patch".into()
            ],
            allowed_paths: vec!["plans/".into(), "handoff/".into()],
        }
    );
    let view = hooks
        .extension("plan-check")
        .unwrap()
        .config::<PlanPath>()
        .unwrap();
    assert_eq!(view.plan_path, "plans/active/plan.md");
    let session = hooks.session("ext-config-read");
    let turn = session.begin_turn();
    let Flow::Blocked(b) = turn.intercept_tool_call(write("src/main.rs")) else {
        panic!("the guard should block")
    };
    assert_eq!(
        b.reason,
        "No valid plan yet: write plans/active/plan.md first"
    );
    assert_eq!(b.hook, "extension_config::require_plan");
    assert!(
        !turn
            .intercept_tool_call(write("plans/active/plan.md"))
            .is_blocked()
    );
    assert_eq!(
        turn.transform_user_input("/plan"),
        Flow::Continue("write the plan to plans/active/plan.md".to_owned())
    );
    turn.end(TurnEnd::Normal);
}

#[test]
fn the_extension_is_disabled_and_enabled_at_runtime() {
    let hooks = hooks();
    let listed: Vec<(&str, bool, usize)> = hooks
        .extensions()
        .map(|e| (e.name(), e.is_enabled(), e.hook_count()))
        .collect();
    assert_eq!(listed, [("hookchain", true, 1), ("plan-check", true, 2)]);

    hooks.disable_extension("plan-check").unwrap();
    let outcome = hooks.dispatch::<hookchain::points::InterceptToolCall>(write("src/main.rs"));
    assert!(!outcome.is_blocked());
    // The other extension's hook still ran.
    assert_eq!(outcome.metadata["audited"], "write_file");
    let text = hooks.describe().to_string();
    for name in ["require_plan", "expand_plan"] {
        let row = text.lines().find(|l| l.contains(name)).unwrap();
        assert!(row.ends_with("  disabled by the agent's code"), "{text}");
    }
    assert!(
        !text
            .lines()
            .find(|l| l.contains("::audit"))
            .unwrap()
            .contains("disabled")
    );
    assert!(
        text.ends_with(
            "extensions: hookchain (1 hook), plan-check (2 hooks, disabled by the agent's \
             code)\n"
        ),
        "{text}"
    );

    hooks.enable_extension("plan-check").unwrap();
    assert!(
        hooks
            .dispatch::<hookchain::points::InterceptToolCall>(write("src/main.rs"))
            .is_blocked()
    );
    assert_eq!(
        hooks
            .disable_extension("plan_check")
            .unwrap_err()
            .to_string(),
        "no extension is named `plan_check`, did you mean `plan-check`?"
    );
}

#[test]
fn enabled_false_in_the_file_disables_the_extension() {
    let text = std::fs::read_to_string(fixture("hookchain.yaml"))
        .unwrap()
        .replace("enabled: true", "enabled: false");
    // The user's own file may switch a guard off (a project's file may not).
    let temp = temp_dir();
    let home = temp.path().join("ext-config");
    let user_dir = home.join(".config/hookchain");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::write(user_dir.join("hookchain.yaml"), &text).unwrap();
    let config = Config::discover_from(&home.join("no-project"), Some(&home)).unwrap();
    let _ = std::fs::remove_dir_all(&home);
    let hooks = hooks_with(config).unwrap();
    assert!(!hooks.extension("plan-check").unwrap().is_enabled());
    assert!(
        !hooks
            .dispatch::<hookchain::points::InterceptToolCall>(write("src/main.rs"))
            .is_blocked()
    );
}

#[test]
fn the_declared_type_is_checked_when_the_config_is_loaded() {
    let file = fixture("wrong_type.yaml");
    let error = hooks_with(Config::load(&file).unwrap()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "extension `plan-check` in {} line 7: field `blocked_tools[1]`: invalid type: \
             integer `3`, expected a string",
            file.display()
        )
    );
    // `main` returning it with `?` prints its `Debug`: the message, not the enum's fields.
    assert_eq!(format!("{error:?}"), error.to_string());
    let BuildError::Config(ConfigError::Invalid { origin, field, .. }) = error else {
        panic!("{error:?}")
    };
    assert_eq!(field, "blocked_tools[1]");
    assert_eq!(
        origin,
        ConfigOrigin::File {
            path: file.display().to_string(),
            line: Some(7)
        }
    );
    // No config at all: the required field is named.
    assert_eq!(
        HooksBuilder::new()
            .collected()
            .build()
            .unwrap_err()
            .to_string(),
        "extension `plan-check` with no config section: missing field `plan_path`"
    );
}

#[test]
fn a_section_for_an_unknown_extension_suggests_the_closest() {
    let config = Config::from_yaml_str(
        "extensions:\n  plan-check:\n    plan_path: p\n  hookchian:\n    enabled: false\n",
        "./hookchain.yaml",
    )
    .unwrap();
    assert_eq!(
        hooks_with(config).unwrap_err().to_string(),
        "extension `hookchian` in ./hookchain.yaml line 4: no hook belongs to this extension, \
         did you mean `hookchain`?"
    );
}

#[test]
fn the_project_file_is_put_over_the_global_one() {
    let config = Config::discover_from(&fixture("project"), Some(&fixture("home"))).unwrap();
    let hooks = hooks_with(config).unwrap();
    let guard = hooks
        .extension("plan-check")
        .unwrap()
        .config::<PlanCheckConfig>()
        .unwrap();
    // plan_path from the project, blocked_tools from the global file, allowed_paths from the
    // project.
    assert_eq!(guard.plan_path, "plans/active/plan.md");
    assert_eq!(
        guard.blocked_tools,
        ["write_file", "edit_file", "apply_patch"]
    );
    assert_eq!(guard.allowed_paths, ["plans/", "handoff/"]);
}

#[test]
fn config_from_code_and_reload_with_set_config() {
    let hooks = hooks_with(Config::new().extension(
        "plan-check",
        json!({"plan_path": "A.md", "blocked_tools": ["write_file"]}),
    ))
    .unwrap();
    let dispatch = |call| match hooks
        .dispatch::<hookchain::points::InterceptToolCall>(call)
        .flow
    {
        Flow::Blocked(b) => Some(b.reason),
        Flow::Continue(_) => None,
    };
    assert_eq!(
        dispatch(write("x")).as_deref(),
        Some("No valid plan yet: write A.md first")
    );
    hooks
        .set_config(Config::new().extension(
            "plan-check",
            json!({"plan_path": "B.md", "blocked_tools": ["write_file"]}),
        ))
        .unwrap();
    assert_eq!(
        dispatch(write("x")).as_deref(),
        Some("No valid plan yet: write B.md first")
    );
    // A reload that does not fit is refused whole; the old config stays.
    let error = hooks
        .set_config(Config::load(fixture("wrong_type.yaml")).unwrap())
        .unwrap_err();
    assert!(matches!(error, ConfigError::Invalid { .. }), "{error}");
    assert_eq!(
        dispatch(write("x")).as_deref(),
        Some("No valid plan yet: write B.md first")
    );
}
