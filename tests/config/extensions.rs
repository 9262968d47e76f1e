//! Extensions with builder hooks: enabling and disabling them at runtime and from config, their
//! typed config, the config's sources and errors, and reloading it while threads dispatch.
//!
//! Every error test asserts the whole message: the wording is a promise to users.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use hookchain::config::{Config, ConfigBuilderExt, ConfigHooksExt};
use hookchain_core::points::InterceptToolCall;
use hookchain_core::{ConfigError, ConfigOrigin, Flow, HookContext, HookResult, OnError, ToolCall};
use hookchain_runtime::{
    BUILDER_EXTENSION, BuildError, ExtensionError, HookOptions, Hooks, HooksBuilder,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::temp_dir;

/// The config of the guard used throughout: the shape of the feature request's example.
#[derive(Debug, Deserialize, PartialEq)]
struct PlanCheckConfig {
    plan_path: String,
    #[serde(default)]
    blocked_tools: Vec<String>,
    #[serde(default)]
    allowed_paths: Vec<String>,
}

/// The guard: blocks the configured tools unless their `path` is under an allowed path.
fn guard(call: &ToolCall, cx: &HookContext) -> Result<HookResult<Value>, ConfigError> {
    let config = cx.config::<PlanCheckConfig>()?;
    let blocked = config.blocked_tools.contains(&call.name);
    let path = call.str_arg("path").unwrap_or("");
    if blocked && !config.allowed_paths.iter().any(|p| path.starts_with(p)) {
        return Ok(HookResult::block(format!(
            "write {} first: `{}` is blocked until then",
            config.plan_path, call.name
        )));
    }
    Ok(HookResult::Pass)
}

/// A registry with the guard (extension `plan-check`, `on_error = block`, its config type
/// declared) and one hook of the default extension.
fn builder() -> HooksBuilder {
    HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard")
                .priority(10)
                .extension("plan-check")
                .on_error(OnError::Block),
            guard,
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("audit"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .config_type::<PlanCheckConfig>("plan-check")
}

const YAML: &str = "\
extensions:
  plan-check:
    plan_path: plans/active/plan.md
    blocked_tools: [write_file, edit_file, apply_patch]
    allowed_paths: [plans/, handoff/]
";

fn yaml(text: &str) -> Config {
    Config::from_yaml_str(text, "./hookchain.yaml").unwrap()
}

/// `text` as the user's own `~/.config/hookchain/hookchain.yaml` (in a directory of its own),
/// which may switch extensions off: a project's file may not.
fn users_file(text: &str) -> Config {
    let dirs = TempDirs::new();
    dirs.write_global(text);
    Config::discover_from(&dirs.project, Some(&dirs.home)).unwrap()
}

fn hooks() -> Hooks {
    builder().config(yaml(YAML)).build().unwrap()
}

fn write(path: &str) -> ToolCall {
    ToolCall::new("write_file", json!({ "path": path }))
}

/// `Some(reason)` when the call was blocked.
fn blocked(hooks: &Hooks, call: ToolCall) -> Option<String> {
    match hooks.dispatch::<InterceptToolCall>(call).flow {
        Flow::Blocked(b) => Some(b.reason),
        Flow::Continue(_) => None,
    }
}

const BLOCK: &str = "write plans/active/plan.md first: `write_file` is blocked until then";

// ---------------------------------------------------------------------------------------------
// Extensions and their flags.
// ---------------------------------------------------------------------------------------------

#[test]
fn extensions_list_name_state_and_hook_count() {
    let hooks = hooks();
    let listed: Vec<(&str, bool, usize)> = hooks
        .extensions()
        .map(|e| (e.name(), e.is_enabled(), e.hook_count()))
        .collect();
    assert_eq!(
        listed,
        [(BUILDER_EXTENSION, true, 1), ("plan-check", true, 1)]
    );
    assert_eq!(BUILDER_EXTENSION, "app");
    assert_eq!(hooks.extension("plan-check").unwrap().hook_count(), 1);
    assert!(hooks.extension("nope").is_none());
    let audit = hooks.chain_of("intercept_tool_call");
    assert_eq!(&*audit[0].extension, "app", "{audit:?}");
}

#[test]
fn a_disabled_extension_stops_blocking_and_blocks_again_when_enabled() {
    let hooks = hooks();
    assert_eq!(
        blocked(&hooks, write("src/main.rs")).as_deref(),
        Some(BLOCK)
    );
    assert_eq!(blocked(&hooks, write("plans/x.md")), None);

    hooks.disable_extension("plan-check").unwrap();
    assert!(!hooks.extension("plan-check").unwrap().is_enabled());
    assert_eq!(blocked(&hooks, write("src/main.rs")), None);
    let text = hooks.describe().to_string();
    let row = text.lines().find(|l| l.contains(" guard ")).unwrap();
    assert!(row.ends_with("  disabled by the agent's code"), "{text}");
    let audit = text.lines().find(|l| l.contains(" audit ")).unwrap();
    assert!(!audit.contains("disabled"), "{text}");
    assert!(
        text.ends_with(
            "extensions: app (1 hook), plan-check (1 hook, disabled by the agent's code)\n"
        ),
        "{text}"
    );

    hooks.enable_extension("plan-check").unwrap();
    assert_eq!(
        blocked(&hooks, write("src/main.rs")).as_deref(),
        Some(BLOCK)
    );
    assert!(
        hooks
            .describe()
            .to_string()
            .ends_with("extensions: app (1 hook), plan-check (1 hook)\n")
    );
}

#[tokio::test]
async fn the_async_dispatch_skips_a_disabled_extension_too() {
    let hooks = hooks();
    let session = hooks.session("ext-async");
    let turn = session.begin_turn();
    let call = write("src/main.rs");
    assert!(
        turn.intercept_tool_call_async(call.clone())
            .await
            .is_blocked()
    );
    hooks.disable_extension("plan-check").unwrap();
    assert!(!turn.intercept_tool_call_async(call).await.is_blocked());
}

#[test]
fn an_unknown_extension_name_is_an_error_with_a_suggestion() {
    let hooks = hooks();
    let error = hooks.disable_extension("plan-chekc").unwrap_err();
    assert_eq!(
        error.to_string(),
        "no extension is named `plan-chekc`, did you mean `plan-check`?"
    );
    assert!(matches!(error, ExtensionError::Unknown { .. }));
    assert_eq!(
        hooks.enable_extension("zzz").unwrap_err().to_string(),
        "no extension is named `zzz` (the extensions are `app`, `plan-check`)"
    );
    assert_eq!(
        HooksBuilder::new()
            .build()
            .unwrap()
            .enable_extension("x")
            .unwrap_err()
            .to_string(),
        "no extension is named `x` (the registry has no extensions)"
    );
    // Nothing changed.
    assert!(hooks.extensions().all(|e| e.is_enabled()));
}

/// 8 threads dispatch while another toggles the guard. Each dispatch sees the guard either on
/// (blocked by it, with its reason) or off (passed, args untouched): never a half-run guard, a
/// failure, or a lost hook of another extension.
#[test]
fn toggling_while_eight_threads_dispatch_never_tears_a_dispatch() {
    const THREADS: usize = 8;
    const DISPATCHES: usize = 2_000;
    let guard_runs = Arc::new(AtomicUsize::new(0));
    let audit_runs = Arc::new(AtomicUsize::new(0));
    let (g, a) = (guard_runs.clone(), audit_runs.clone());
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard").extension("plan-check"),
            move |call: &ToolCall, _: &HookContext| {
                g.fetch_add(1, Ordering::Relaxed);
                if call.name == "write_file" {
                    HookResult::block("guarded")
                } else {
                    HookResult::<Value>::Pass
                }
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("audit").priority(-1),
            move |_: &ToolCall, _: &HookContext| {
                a.fetch_add(1, Ordering::Relaxed);
                HookResult::<Value>::Pass
            },
        )
        .build()
        .unwrap();
    let done = AtomicBool::new(false);
    let (on, off) = std::thread::scope(|s| {
        let toggler = s.spawn(|| {
            let mut toggles = 0;
            while !done.load(Ordering::Relaxed) && toggles < 100_000 {
                hooks.disable_extension("plan-check").unwrap();
                std::thread::yield_now();
                hooks.enable_extension("plan-check").unwrap();
                std::thread::yield_now();
                toggles += 1;
            }
        });
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    let (mut on, mut off) = (0, 0);
                    for i in 0..DISPATCHES {
                        let call = ToolCall::new("write_file", json!({ "i": i }));
                        let outcome = hooks.dispatch::<InterceptToolCall>(call);
                        assert!(outcome.failures.is_empty(), "{outcome:?}");
                        assert!(outcome.rewritten_by.is_empty(), "{outcome:?}");
                        match outcome.flow {
                            Flow::Blocked(b) => {
                                assert_eq!(
                                    (b.reason.as_str(), b.hook.as_str()),
                                    ("guarded", "guard")
                                );
                                on += 1;
                            }
                            Flow::Continue(call) => {
                                assert_eq!(call.args, json!({ "i": i }));
                                off += 1;
                            }
                        }
                    }
                    (on, off)
                })
            })
            .collect();
        let counts: Vec<(usize, usize)> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        toggler.join().unwrap();
        counts
            .into_iter()
            .fold((0, 0), |(a, b), (on, off)| (a + on, b + off))
    });
    assert_eq!(on + off, THREADS * DISPATCHES);
    // The guard ran exactly in the dispatches it blocked; the other extension's hook in all.
    assert_eq!(guard_runs.load(Ordering::Relaxed), on);
    assert_eq!(audit_runs.load(Ordering::Relaxed), THREADS * DISPATCHES);
    // The toggler always leaves it enabled.
    assert!(hooks.extension("plan-check").unwrap().is_enabled());
    assert!(blocked(&hooks, write("x")).is_some());
}

// ---------------------------------------------------------------------------------------------
// Config: enabled, typed sections, sources.
// ---------------------------------------------------------------------------------------------

#[test]
fn enabled_false_in_the_config_disables_the_extension() {
    let hooks = builder()
        .config(users_file(&format!("{YAML}    enabled: false\n")))
        .build()
        .unwrap();
    assert!(!hooks.extension("plan-check").unwrap().is_enabled());
    assert!(hooks.extension("app").unwrap().is_enabled());
    assert_eq!(blocked(&hooks, write("src/main.rs")), None);
    hooks.enable_extension("plan-check").unwrap();
    assert_eq!(
        blocked(&hooks, write("src/main.rs")).as_deref(),
        Some(BLOCK)
    );
}

#[test]
fn a_hook_reads_its_typed_config_from_its_section() {
    let hooks = hooks();
    let guard = hooks.extension("plan-check").unwrap();
    let config = guard.config::<PlanCheckConfig>().unwrap();
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
    // Deserialized once (when the config was loaded), shared after.
    assert!(Arc::ptr_eq(
        &config,
        &guard.config::<PlanCheckConfig>().unwrap()
    ));
    assert_eq!(blocked(&hooks, write("handoff/notes.md")), None);
    assert_eq!(
        blocked(&hooks, ToolCall::new("apply_patch", json!({}))).as_deref(),
        Some("write plans/active/plan.md first: `apply_patch` is blocked until then")
    );
    assert_eq!(blocked(&hooks, ToolCall::new("read_file", json!({}))), None);
}

#[test]
fn config_from_code_works_like_a_file() {
    let config = Config::new().extension(
        "plan-check",
        json!({"plan_path": "PLAN.md", "blocked_tools": ["write_file"]}),
    );
    let hooks = builder().config(config).build().unwrap();
    assert_eq!(
        blocked(&hooks, write("plans/x")).as_deref(),
        Some("write PLAN.md first: `write_file` is blocked until then")
    );
    let off = Config::new().extension("plan-check", json!({"plan_path": "P", "enabled": false}));
    let hooks = builder().config(off).build().unwrap();
    assert_eq!(blocked(&hooks, write("x")), None);
}

#[test]
fn a_serde_default_config_reads_without_a_section() {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Quiet {
        level: u8,
    }
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("quiet").extension("quiet"),
            |_: &ToolCall, cx: &HookContext| -> Result<HookResult<Value>, ConfigError> {
                let level = cx.config::<Quiet>()?.level;
                cx.set_metadata("level", level);
                Ok(HookResult::Pass)
            },
        )
        .config_type::<Quiet>("quiet")
        .build()
        .unwrap();
    let outcome = hooks.dispatch::<InterceptToolCall>(write("x"));
    assert_eq!(outcome.metadata["level"], json!(0));
}

#[test]
fn the_project_file_is_put_over_the_global_one_key_by_key() {
    let dirs = TempDirs::new();
    dirs.write_global(
        "extensions:\n  plan-check:\n    plan_path: global.md\n    blocked_tools: [write_file]\n    enabled: false\n",
    );
    dirs.write_project("extensions:\n  plan-check:\n    plan_path: project.md\n");
    let config = Config::discover_from(&dirs.project, Some(&dirs.home)).unwrap();
    assert_eq!(config.files(), [dirs.global_file(), dirs.project_file()]);
    let section = config.section("plan-check").unwrap();
    assert_eq!(section["plan_path"], "project.md");
    assert_eq!(section["blocked_tools"], json!(["write_file"]));
    assert_eq!(config.enabled("plan-check"), Some(false));

    // The project's `enabled` replaces the global's too.
    dirs.write_project("extensions:\n  plan-check:\n    enabled: true\n");
    let config = Config::discover_from(&dirs.project, Some(&dirs.home)).unwrap();
    assert_eq!(config.enabled("plan-check"), Some(true));
    assert_eq!(
        config.section("plan-check").unwrap()["plan_path"],
        "global.md"
    );
    let hooks = builder().config(config).build().unwrap();
    assert_eq!(
        blocked(&hooks, write("x")).as_deref(),
        Some("write global.md first: `write_file` is blocked until then")
    );
}

#[test]
fn discovery_skips_missing_files_and_names_a_broken_one() {
    let dirs = TempDirs::new();
    let config = Config::discover_from(&dirs.project, Some(&dirs.home)).unwrap();
    assert!(config.is_empty() && config.files().is_empty());
    let config = Config::discover_from(&dirs.project, None).unwrap();
    assert!(config.is_empty());

    dirs.write_global("extensions: [oops\n");
    let error = Config::discover_from(&dirs.project, Some(&dirs.home)).unwrap_err();
    let ConfigError::Syntax { file, line, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(
        (file.as_str(), *line),
        (dirs.global_file().as_str(), Some(2))
    );

    // An error in the project names the project's file, with its line.
    dirs.write_global("extensions: {}\n");
    dirs.write_project("extensions:\n  plan-check:\n    plan_path: p\nhooks: []\n");
    assert_eq!(
        Config::discover_from(&dirs.project, Some(&dirs.home))
            .unwrap_err()
            .to_string(),
        format!(
            "`hooks` in {} line 4: expected a mapping from hook points (or other agents' names \
             for them) to lists of hooks, found a sequence",
            dirs.project_file()
        )
    );
}

#[test]
fn set_config_reloads_sections_and_flags() {
    let hooks = hooks();
    let guard = hooks.extension("plan-check").unwrap();
    let before = guard.config::<PlanCheckConfig>().unwrap();
    assert_eq!(blocked(&hooks, write("src/a.rs")).as_deref(), Some(BLOCK));

    hooks
        .set_config(yaml(
            "extensions:\n  plan-check:\n    plan_path: NEW.md\n    blocked_tools: [edit_file]\n",
        ))
        .unwrap();
    let after = guard.config::<PlanCheckConfig>().unwrap();
    assert!(!Arc::ptr_eq(&before, &after));
    assert_eq!(after.plan_path, "NEW.md");
    assert_eq!(blocked(&hooks, write("src/a.rs")), None);
    assert_eq!(
        blocked(&hooks, ToolCall::new("edit_file", json!({}))).as_deref(),
        Some("write NEW.md first: `edit_file` is blocked until then")
    );

    // A runtime switch lasts until the next set_config, which says what `enabled` is.
    hooks.disable_extension("plan-check").unwrap();
    hooks.set_config(yaml(YAML)).unwrap();
    assert!(guard.is_enabled());
    hooks
        .set_config(users_file(&format!("{YAML}    enabled: false\n")))
        .unwrap();
    assert!(!guard.is_enabled());
}

#[test]
fn set_config_with_an_error_changes_nothing() {
    let hooks = hooks();
    hooks.disable_extension("app").unwrap();
    let error = hooks
        .set_config(yaml(
            "extensions:\n  app:\n    enabled: true\n  plan-check:\n    blocked_tools: [write_file]\n",
        ))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "extension `plan-check` in ./hookchain.yaml line 4: missing field `plan_path`"
    );
    assert!(!hooks.extension("app").unwrap().is_enabled());
    assert_eq!(blocked(&hooks, write("src/a.rs")).as_deref(), Some(BLOCK));
}

/// Reloads while 8 threads dispatch: every dispatch sees one whole config, old or new.
#[test]
fn reloading_while_threads_dispatch_gives_each_hook_one_whole_config() {
    let hooks = hooks();
    let configs = [
        yaml(YAML),
        yaml(
            "extensions:\n  plan-check:\n    plan_path: other.md\n    blocked_tools: [write_file]\n",
        ),
    ];
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let reloader = s.spawn(|| {
            for i in 0..200 {
                hooks.set_config(configs[i % 2].clone()).unwrap();
                std::thread::yield_now();
            }
            done.store(true, Ordering::Relaxed);
        });
        for _ in 0..8 {
            s.spawn(|| {
                let mut n = 0;
                while !done.load(Ordering::Relaxed) && n < 20_000 {
                    let reason = blocked(&hooks, write("src/a.rs")).unwrap();
                    assert!(
                        reason == BLOCK
                            || reason == "write other.md first: `write_file` is blocked until then",
                        "{reason}"
                    );
                    n += 1;
                }
            });
        }
        reloader.join().unwrap();
    });
}

// ---------------------------------------------------------------------------------------------
// Config errors: each message is a promise.
// ---------------------------------------------------------------------------------------------

fn build_error(text: &str) -> String {
    match builder().config(yaml(text)).build() {
        Err(BuildError::Config(error)) => error.to_string(),
        other => panic!("expected a config error, got {other:?}"),
    }
}

#[test]
fn a_value_of_the_wrong_type_names_the_field_path_the_file_and_the_line() {
    let text = "\
extensions:
  plan-check:
    plan_path: plans/active/plan.md
    blocked_tools:
      - write_file
      - 3
";
    assert_eq!(
        build_error(text),
        "extension `plan-check` in ./hookchain.yaml line 6: field `blocked_tools[1]`: \
         invalid type: integer `3`, expected a string"
    );
    let flow = "extensions:\n  plan-check:\n    plan_path: p\n    blocked_tools: [write_file, 3]\n";
    assert_eq!(
        build_error(flow),
        "extension `plan-check` in ./hookchain.yaml line 4: field `blocked_tools[1]`: \
         invalid type: integer `3`, expected a string"
    );
    let error = builder().config(yaml(text)).build().unwrap_err();
    let BuildError::Config(ConfigError::Invalid {
        extension,
        origin,
        field,
        ..
    }) = error
    else {
        panic!()
    };
    assert_eq!(
        (extension.as_str(), field.as_str()),
        ("plan-check", "blocked_tools[1]")
    );
    assert_eq!(
        origin,
        ConfigOrigin::File {
            path: "./hookchain.yaml".into(),
            line: Some(6)
        }
    );
}

#[test]
fn a_missing_field_is_named() {
    assert_eq!(
        build_error("extensions:\n  plan-check:\n    blocked_tools: []\n"),
        "extension `plan-check` in ./hookchain.yaml line 2: missing field `plan_path`"
    );
    // Without any section, the section is an empty mapping, and the field is still named.
    assert_eq!(
        builder().build().unwrap_err().to_string(),
        "extension `plan-check` with no config section: missing field `plan_path`"
    );
}

#[test]
fn an_error_in_config_from_code_says_so() {
    let error = builder()
        .config(Config::new().extension("plan-check", json!({"plan_path": 7})))
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "extension `plan-check` in the config set from code: field `plan_path`: invalid \
         type: integer `7`, expected a string"
    );
    let error = builder()
        .config(Config::new().extension("plan-check", json!(["x"])))
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "extension `plan-check` in the config set from code: expected a JSON object of its \
         settings, found a sequence"
    );
}

#[test]
fn an_unknown_top_level_key_names_the_line_and_the_closest_key() {
    let error = Config::from_yaml_str(
        "# hookchain\nextentions:\n  plan-check: {}\n",
        "./hookchain.yaml",
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "key `extentions` in ./hookchain.yaml line 2: unknown top-level key, did you mean \
         `extensions`?"
    );
    assert_eq!(
        Config::from_yaml_str("extensions: {}\nplugins: {}\n", "a.yaml")
            .unwrap_err()
            .to_string(),
        "key `plugins` in a.yaml line 2: unknown top-level key; the config's top-level keys are \
         `extensions`, `hooks` and `hooks_auto_accept`"
    );
}

#[test]
fn hooks_map_points_to_lists_of_external_hooks() {
    let error = Config::from_yaml_str(
        "extensions: {}\nhooks:\n  - command: ./check.sh\n",
        "./hookchain.yaml",
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "`hooks` in ./hookchain.yaml line 2: expected a mapping from hook points (or other \
         agents' names for them) to lists of hooks, found a sequence"
    );
}

#[test]
fn a_yaml_syntax_error_names_the_line_and_the_column() {
    let error = Config::from_yaml_str(
        "extensions:\n  plan-check:\n    plan_path: a: b\n",
        "./hookchain.yaml",
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "./hookchain.yaml line 3 column 17: invalid YAML: mapping values are not allowed in \
         this context"
    );
    // A duplicate key is reported at the mapping that holds it.
    let error = Config::from_yaml_str("extensions:\n  a: 1\n  a: 2\n", "x.yaml").unwrap_err();
    assert_eq!(
        error.to_string(),
        "x.yaml line 2 column 3: invalid YAML: extensions: duplicate entry with key \"a\""
    );
}

#[test]
fn a_section_for_an_unknown_extension_is_an_error_with_a_suggestion() {
    let text = "extensions:\n  plan-check:\n    plan_path: p\n  plan-chekc:\n    blocked_tools: [write_file]\n";
    assert_eq!(
        build_error(text),
        "extension `plan-chekc` in ./hookchain.yaml line 4: no hook belongs to this \
         extension, did you mean `plan-check`?"
    );
    let hooks = hooks();
    assert_eq!(
        hooks
            .set_config(yaml("extensions:\n  zzz: {}\n"))
            .unwrap_err()
            .to_string(),
        "extension `zzz` in ./hookchain.yaml line 2: no hook belongs to this extension (the \
         extensions are `app`, `plan-check`)"
    );
}

#[test]
fn malformed_shapes_are_named() {
    let cases = [
        (
            "extensions: [a, b]\n",
            "`extensions` in x.yaml line 1: expected a mapping from extension names to their \
             sections, found a sequence",
        ),
        (
            "extensions:\n  g: 3\n",
            "extension `g` in x.yaml line 2: expected a mapping of its settings, found a number",
        ),
        (
            "extensions:\n  g:\n    enabled: yes\n",
            "`enabled` of extension `g` in x.yaml line 3: expected `true` or `false`, found a \
             string",
        ),
        (
            "- extensions\n",
            "the config in x.yaml line 1: expected a mapping with the key `extensions`, found a \
             sequence",
        ),
    ];
    for (text, message) in cases {
        let error = Config::from_yaml_str(text, "x.yaml").unwrap_err();
        assert_eq!(error.to_string(), message, "{text}");
    }
    assert!(
        Config::from_yaml_str("", "empty.yaml").unwrap().is_empty(),
        "an empty file is an empty config"
    );
    assert!(
        Config::from_yaml_str("extensions:\n", "x.yaml")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_file_that_cannot_be_read_is_named() {
    let dirs = TempDirs::new();
    let missing = dirs.project.join("nope.yaml");
    let error = Config::load(&missing).unwrap_err();
    let expected = format!("cannot read {}: ", missing.display());
    assert!(error.to_string().starts_with(&expected), "{error}");
}

#[test]
fn a_config_error_in_an_undeclared_type_fails_the_hook_under_its_policy() {
    #[derive(Deserialize)]
    struct Strict {
        #[allow(dead_code)]
        limit: u32,
    }
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("strict")
                .extension("strict")
                .on_error(OnError::Block),
            |_: &ToolCall, cx: &HookContext| -> Result<HookResult<Value>, ConfigError> {
                cx.config::<Strict>()?;
                Ok(HookResult::Pass)
            },
        )
        .config(Config::new().extension("strict", json!({"limit": "ten"})))
        .build()
        .unwrap();
    let outcome = hooks.dispatch::<InterceptToolCall>(write("x"));
    let Flow::Blocked(b) = &outcome.flow else {
        panic!("{outcome:?}")
    };
    assert_eq!(
        b.reason,
        "hook `strict` failed and its policy is to block: extension `strict` in the config set \
         from code: field `limit`: invalid type: string \"ten\", expected u32"
    );
}

// ---------------------------------------------------------------------------------------------
// Temporary directories for discovery: never the user's real home or project.
// ---------------------------------------------------------------------------------------------

struct TempDirs {
    _root: TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl TempDirs {
    fn new() -> Self {
        let root = temp_dir();
        let project = root.path().join("project");
        let home = root.path().join("home");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(home.join(".config").join("hookchain")).unwrap();
        TempDirs {
            _root: root,
            project,
            home,
        }
    }

    fn global_file(&self) -> String {
        self.home
            .join(".config/hookchain/hookchain.yaml")
            .display()
            .to_string()
    }

    fn project_file(&self) -> String {
        self.project.join("hookchain.yaml").display().to_string()
    }

    fn write_global(&self, text: &str) {
        std::fs::write(self.global_file(), text).unwrap();
    }

    fn write_project(&self, text: &str) {
        std::fs::write(self.project_file(), text).unwrap();
    }
}

/// A hook that disables another extension mid-dispatch, in a chain of closures: that extension's
/// later hooks are skipped in the very same dispatch (such a chain reads each hook's flag before
/// it runs), and run again once it is enabled. A chain made only of compiled-in fns sees the
/// switch from the next dispatch (`tests/pass_path.rs`).
#[test]
fn disabling_an_extension_from_a_hook_skips_its_later_hooks_in_the_same_dispatch() {
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    let hooks = Arc::new(std::sync::OnceLock::<Hooks>::new());
    let h = hooks.clone();
    let built = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("switch").priority(1).extension("switch"),
            move |call: &ToolCall, _: &HookContext| {
                if call.name == "switch_off" {
                    h.get().unwrap().disable_extension("counted").unwrap();
                }
                HookResult::<Value>::Pass
            },
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("counted").priority(2).extension("counted"),
            move |_: &ToolCall, _: &HookContext| {
                r.fetch_add(1, Ordering::Relaxed);
                HookResult::<Value>::Pass
            },
        )
        .build()
        .unwrap();
    assert!(hooks.set(built).is_ok());
    let hooks = hooks.get().unwrap();
    let session = hooks.session("switch-mid-dispatch");
    let turn = session.begin_turn();

    let call = |name: &str| ToolCall::new(name, json!({}));
    assert!(matches!(
        turn.intercept_tool_call(call("read")),
        Flow::Continue(_)
    ));
    assert_eq!(
        ran.load(Ordering::Relaxed),
        1,
        "enabled, the counted hook runs"
    );
    assert!(matches!(
        turn.intercept_tool_call(call("switch_off")),
        Flow::Continue(_)
    ));
    assert_eq!(
        ran.load(Ordering::Relaxed),
        1,
        "disabled by the hook before it, in the same dispatch, it must not run"
    );
    hooks.enable_extension("counted").unwrap();
    assert!(matches!(
        turn.intercept_tool_call(call("read")),
        Flow::Continue(_)
    ));
    assert_eq!(ran.load(Ordering::Relaxed), 2, "enabled again, it runs");
    turn.end(hookchain::TurnEnd::Normal);
}
