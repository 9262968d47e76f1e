//! The project rule of each field, as an extension of the program's own declares it
//! (`HooksBuilder::config_type_with_rules`): what a restricted layer (a project's file) writes is
//! added, compared or refused field by field, when the sections are loaded into a registry —
//! at build and at every reload. A field with no rule keeps the rule of every setting.

use hookchain_core::{ProjectRule, ProjectRules};
use hookchain_runtime::sections::Sections;
use hookchain_runtime::{Hooks, HooksBuilder};
use serde::Deserialize;
use serde_json::{Map, Value, json};

const FENCE: &str = "fence";

/// An extension of the program's own, with a field under each rule and one under none.
#[derive(Deserialize)]
#[serde(default)]
#[allow(dead_code)]
struct Fence {
    blocked: Vec<String>,
    tools: Vec<String>,
    limit: u32,
    strict: bool,
    files: Vec<String>,
    note: String,
    /// No rule: the rule of every setting.
    extra: Vec<String>,
}

impl Default for Fence {
    fn default() -> Self {
        Fence {
            blocked: vec!["rm".to_owned()],
            tools: vec!["shell".to_owned()],
            limit: 10,
            strict: false,
            files: Vec::new(),
            note: String::new(),
            extra: Vec::new(),
        }
    }
}

impl ProjectRules for Fence {
    const PROJECT_RULES: &'static [(&'static str, ProjectRule)] = &[
        ("blocked", ProjectRule::Union),
        ("tools", ProjectRule::UserOnly),
        ("limit", ProjectRule::Lower),
        ("strict", ProjectRule::Raise),
        ("files", ProjectRule::InsideProject),
        ("note", ProjectRule::Free),
    ];

    fn project_defaults() -> Map<String, Value> {
        let mut defaults = Map::new();
        defaults.insert("blocked".to_owned(), json!(["rm"]));
        defaults.insert("tools".to_owned(), json!(["shell"]));
        defaults.insert("limit".to_owned(), json!(10));
        defaults.insert("strict".to_owned(), json!(false));
        defaults
    }
}

fn builder() -> HooksBuilder {
    HooksBuilder::new().config_type_with_rules::<Fence>(FENCE)
}

fn project(section: Value) -> Sections {
    Sections::new().extension(FENCE, section).restricted()
}

fn section(hooks: &Hooks) -> Value {
    Value::Object(hooks.extension(FENCE).unwrap().section().values().clone())
}

#[test]
fn a_projects_settings_are_held_to_each_fields_rule_over_the_defaults() {
    let hooks = builder()
        .sections(project(json!({
            "blocked": ["dd"],
            "tools": ["none"],
            "limit": 50,
            "strict": true,
            "files": ["AGENTS.md", "~/.netrc"],
            "note": "hello",
        })))
        .build()
        .unwrap();
    assert_eq!(
        section(&hooks),
        json!({
            "blocked": ["rm", "dd"],
            "strict": true,
            "files": ["AGENTS.md"],
            "note": "hello",
        })
    );
    let refusals = hooks.refusals();
    assert_eq!(refusals.len(), 3, "{refusals:?}");
    assert!(refusals[0].starts_with("the agent's code: `files` entry \"~/.netrc\""));
    assert!(refusals[1].contains("`limit: 50` of extension `fence` is refused (it is more than 10, set by the default of `fence`"));
    assert!(refusals[2].contains("`tools: [\"none\"]` of extension `fence` is refused"));
    assert_eq!(hooks.notices().len(), 3);
}

#[test]
fn a_projects_settings_are_held_to_each_fields_rule_over_the_users() {
    let user = Sections::new().extension(
        FENCE,
        json!({"blocked": ["curl"], "limit": 3, "strict": true, "files": ["~/notes.md"]}),
    );
    let hooks = builder()
        .sections(user.merge(project(json!({
            "blocked": ["dd"],
            "limit": 5,
            "strict": false,
            "files": ["docs/rules.md"],
        }))))
        .build()
        .unwrap();
    assert_eq!(
        section(&hooks),
        json!({
            "blocked": ["curl", "dd"],
            "limit": 3,
            "strict": true,
            "files": ["~/notes.md", "docs/rules.md"],
        })
    );
    assert_eq!(hooks.refusals().len(), 2, "{:?}", hooks.refusals());
    // A limit lowered, and a switch turned on, hold.
    let user = Sections::new().extension(FENCE, json!({"limit": 3}));
    let hooks = builder()
        .sections(user.merge(project(json!({"limit": 2, "strict": true}))))
        .build()
        .unwrap();
    assert_eq!(section(&hooks), json!({"limit": 2, "strict": true}));
    assert!(hooks.refusals().is_empty(), "{:?}", hooks.refusals());
}

#[test]
fn a_reload_holds_a_project_to_the_same_rules() {
    let hooks = builder().build().unwrap();
    hooks
        .set_sections(project(json!({"tools": ["none"], "blocked": []})))
        .unwrap();
    assert_eq!(section(&hooks), json!({}));
    assert_eq!(hooks.refusals().len(), 2, "{:?}", hooks.refusals());
}

#[test]
fn a_field_with_no_rule_keeps_the_rule_of_every_setting() {
    let user = || Sections::new().extension(FENCE, json!({"extra": ["a"]}));
    // Emptying what the user set is refused.
    let sections = user().merge(project(json!({"extra": []})));
    assert_eq!(sections.refusals().len(), 1);
    let hooks = builder().sections(sections).build().unwrap();
    assert_eq!(section(&hooks), json!({"extra": ["a"]}));
    // Another value replaces it.
    let hooks = builder()
        .sections(user().merge(project(json!({"extra": ["b"]}))))
        .build()
        .unwrap();
    assert_eq!(section(&hooks), json!({"extra": ["b"]}));
    assert!(hooks.refusals().is_empty());
}

#[test]
fn the_agents_code_sets_every_field_as_it_likes() {
    let code = Sections::new().extension(
        FENCE,
        json!({"blocked": [], "tools": ["none"], "limit": 1000, "strict": false, "files": ["/etc/passwd"]}),
    );
    let hooks = builder().sections(code).build().unwrap();
    assert_eq!(section(&hooks)["tools"], json!(["none"]));
    assert_eq!(section(&hooks)["files"], json!(["/etc/passwd"]));
    assert!(hooks.refusals().is_empty(), "{:?}", hooks.refusals());
}
