//! Extensions off by default: a guard that ships with a library runs only once a section says
//! `enabled: true` or the agent's code enables it. A project's file may enable it (that adds a
//! guard); its `enabled: false` never switches off what the user's own file enabled.

use hookchain_core::points::InterceptToolCall;
use hookchain_core::{HookContext, HookResult, ToolCall};
use hookchain_runtime::sections::Sections;
use hookchain_runtime::{HookOptions, Hooks, HooksBuilder};
use serde_json::{Value, json};

const GUARD: &str = "no-rm";

fn builder() -> HooksBuilder {
    HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("no-rm").extension(GUARD),
            |call: &ToolCall, _: &HookContext| {
                if call.name == "rm" {
                    HookResult::<Value>::block("no rm")
                } else {
                    HookResult::Pass
                }
            },
        )
        .off_by_default(GUARD)
}

fn blocks(hooks: &Hooks) -> bool {
    hooks
        .dispatch::<InterceptToolCall>(ToolCall::new("rm", json!({})))
        .is_blocked()
}

#[test]
fn an_extension_off_by_default_does_not_run_until_enabled() {
    let hooks = builder().build().unwrap();
    let ext = hooks.extension(GUARD).unwrap();
    assert!(!ext.is_enabled());
    assert!(!ext.enabled_by_default());
    assert_eq!(ext.disabled_by().as_deref(), Some("default"));
    assert!(!blocks(&hooks));
    assert!(
        hooks
            .describe()
            .to_string()
            .contains("no-rm (1 hook, disabled by default)"),
        "{}",
        hooks.describe()
    );
    hooks.enable_extension(GUARD).unwrap();
    assert!(blocks(&hooks));
}

#[test]
fn a_section_that_says_enabled_turns_it_on_and_a_reload_without_it_turns_it_off() {
    let on = Sections::new().extension(GUARD, json!({"enabled": true}));
    let hooks = builder().sections(on).build().unwrap();
    assert!(blocks(&hooks));
    hooks.set_sections(Sections::new()).unwrap();
    assert!(!blocks(&hooks), "no section: back to its default, off");
    hooks
        .set_sections(Sections::new().extension(GUARD, json!({})))
        .unwrap();
    assert!(
        !blocks(&hooks),
        "a section that does not say enabled leaves it off"
    );
}

#[test]
fn a_projects_file_may_enable_it_which_adds_a_guard() {
    let project = Sections::new()
        .extension(GUARD, json!({"enabled": true}))
        .restricted();
    let hooks = builder().sections(project).build().unwrap();
    assert!(blocks(&hooks));
    assert!(hooks.refusals().is_empty(), "{:?}", hooks.refusals());
}

#[test]
fn a_projects_enabled_false_neither_enables_it_nor_switches_off_the_users() {
    // Nobody enabled it: the project's `false` changes nothing, and is no refusal.
    let project = || {
        Sections::new()
            .extension(GUARD, json!({"enabled": false}))
            .restricted()
    };
    let hooks = builder().sections(project()).build().unwrap();
    assert!(!blocks(&hooks));
    assert!(hooks.refusals().is_empty(), "{:?}", hooks.refusals());
    // The user enabled it: the project may not switch it off.
    let user = Sections::new().extension(GUARD, json!({"enabled": true}));
    let hooks = builder().sections(user.merge(project())).build().unwrap();
    assert!(blocks(&hooks));
    assert_eq!(hooks.refusals().len(), 1, "{:?}", hooks.refusals());
}

#[test]
fn an_extension_on_by_default_still_runs_without_a_section() {
    let hooks = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("no-rm").extension(GUARD),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::block("no"),
        )
        .build()
        .unwrap();
    assert!(hooks.extension(GUARD).unwrap().enabled_by_default());
    assert!(blocks(&hooks));
}
