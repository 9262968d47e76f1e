//! Manifests: `hookchain::extension!` (collected at link time) and `HooksBuilder::manifest`
//! declare an extension's version, description, dependencies and the points its hooks may use;
//! the registry enforces them when it is built. Run with the default backend (inventory) and
//! with `--features linkme`.

use hookchain::points::{InterceptToolCall, Level, Notification, Notify, TurnEndEvent, TurnEnded};
use hookchain::registry::{BuildError, HookInfo, Manifest};
use hookchain::{HookContext, HookOptions, HookResult, HooksBuilder, hook_point, prelude::*};

hook_point! {
    /// A note was saved.
    pub struct NoteSaved: observe("man_note_saved") {
        type Value = String;
    }
}

hookchain::extension! {
    name: "man-notes",
    version: "0.2.0",
    description: "Saves notes",
    depends_on: ["man-journal"],
    points: ["intercept_tool_call", NoteSaved],
}

#[register_hook("intercept_tool_call", extension = "man-notes")]
fn save(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    if call.name == "save_note" {
        cx.emit::<NoteSaved>("n".to_owned());
    }
    HookResult::Pass
}

#[register_hook(NoteSaved, extension = "man-journal")]
fn journal(_: &String, cx: &HookContext) {
    cx.warn("journal heard it");
}

/// This file's link-time hooks and manifests only.
fn collected() -> HooksBuilder {
    HooksBuilder::new().collected_where(|info: &HookInfo| info.extension.starts_with("man-"))
}

/// `file:line` of the `extension!` above, as the manifest records it.
fn manifest_at() -> String {
    let source = include_str!("manifests.rs");
    let line = source
        .lines()
        .position(|l| l.starts_with("hookchain::extension! {"))
        .expect("the manifest is in this file")
        + 1;
    format!("tests/manifests.rs:{line}")
}

#[test]
fn a_declared_extension_keeps_its_manifest_and_runs_as_before() {
    let hooks = collected().build().expect("the manifest holds");
    let notes = hooks.extension("man-notes").unwrap();
    assert_eq!(notes.version(), Some("0.2.0"));
    assert_eq!(notes.description(), Some("Saves notes"));
    assert_eq!(notes.depends_on(), ["man-journal"]);
    assert_eq!(
        notes.points().unwrap(),
        ["intercept_tool_call", "man_note_saved"]
    );
    assert_eq!(notes.manifest().unwrap().at, manifest_at());
    // An undeclared extension keeps today's behaviour.
    let journal = hooks.extension("man-journal").unwrap();
    assert_eq!((journal.version(), journal.points()), (None, None));
    assert!(journal.depends_on().is_empty());

    let turn = hooks.session("manifest-ok").begin_turn();
    let _ = turn.intercept_tool_call(ToolCall::new("save_note", json!({})));
    assert_eq!(turn.take_warnings(), ["journal heard it"]);
    turn.end(TurnEnd::Normal);
}

#[test]
fn a_hook_on_a_point_outside_the_manifest_is_a_build_error_naming_hook_point_and_manifest() {
    let build = || {
        collected().hook_with(
            TurnEnded,
            HookOptions::new("notes-end").extension("man-notes"),
            |_: &TurnEndEvent, cx: &HookContext| cx.warn("notes-end ran"),
        )
    };
    let error = build().build().unwrap_err();
    let line = line!() - 7;
    assert_eq!(
        error.to_string(),
        format!(
            "hook `notes-end` (tests/manifests.rs:{line}) is on point `turn_end`, which the \
             manifest of extension `man-notes` ({}) does not list in its `points`: add \
             `turn_end` to them, or move the hook to another extension",
            manifest_at()
        )
    );

    // A lenient build (what `Hooks::global` does) reports it, tells every session, and leaves
    // the hook out.
    let heard = std::sync::Arc::new(parking_lot::Mutex::new(Vec::<Notification>::new()));
    let notes = std::sync::Arc::clone(&heard);
    let (hooks, errors) = build()
        .hook(Notify, 0, move |n: &Notification, _: &HookContext| {
            notes.lock().push(n.clone());
            HookResult::Pass
        })
        .build_reporting();
    assert_eq!(errors, std::slice::from_ref(&error));
    assert!(hooks.chain_of("turn_end").is_empty());
    let session = hooks.session("manifest-lenient");
    let turn = session.begin_turn();
    turn.end(TurnEnd::Normal);
    assert!(turn.take_warnings().is_empty());
    let heard = heard.lock();
    assert!(
        heard
            .iter()
            .any(|n| n.level == Level::Error && n.message == error.to_string()),
        "{heard:?}"
    );
}

#[test]
fn a_required_hook_outside_the_manifest_is_reported_and_kept() {
    let (hooks, errors) = collected()
        .hook_with(
            TurnEnded,
            HookOptions::new("notes-guard")
                .extension("man-notes")
                .required(true),
            |_: &TurnEndEvent, _: &HookContext| {},
        )
        .build_reporting();
    assert!(
        matches!(&errors[..], [BuildError::PointNotAllowed { hook, .. }] if hook == "notes-guard"),
        "{errors:?}"
    );
    let chain: Vec<&str> = hooks
        .chain_of("turn_end")
        .iter()
        .map(|info| &*info.name)
        .collect();
    assert_eq!(chain, ["notes-guard"]);
}

#[test]
fn a_missing_dependency_is_an_error_naming_both() {
    let error = HooksBuilder::new()
        .hook_with(
            InterceptToolCall,
            HookOptions::new("guard").extension("workflow-guard"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .manifest(Manifest::new("solo").depends_on(["workflow-gaurd"]))
        .build()
        .unwrap_err();
    let line = line!() - 3;
    assert!(matches!(error, BuildError::MissingDependency { .. }));
    assert_eq!(
        error.to_string(),
        format!(
            "extension `solo` (manifest at tests/manifests.rs:{line}) depends on extension \
             `workflow-gaurd`, which this registry does not have (did you mean \
             `workflow-guard`?): link the crate that defines it (`use its_crate as _;`), add its \
             hooks, or remove it from `depends_on`"
        )
    );
    // The link-time manifest's dependency, left out of the registry, is missing too.
    let error = HooksBuilder::new()
        .collected_where(|info: &HookInfo| &*info.extension == "man-notes")
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("extension `man-notes` (manifest at tests/manifests.rs:"),
        "{error}"
    );
}

#[test]
fn two_manifests_of_one_extension_are_an_error_naming_both() {
    let error = collected()
        .manifest(Manifest::new("man-notes").at("notes/EXTENSION.yaml:1"))
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "extension `man-notes` is declared by two manifests (notes/EXTENSION.yaml:1 and {}): \
             keep one of them",
            manifest_at()
        )
    );
}

#[test]
fn a_manifest_alone_lists_its_extension_and_names_points_as_hooks_do() {
    let hooks = HooksBuilder::new()
        .manifest(
            Manifest::new("tools-only")
                .version("1.0.0")
                .points(["PreToolUse"])
                .point::<NoteSaved>(),
        )
        .hook_with(
            InterceptToolCall,
            HookOptions::new("g").extension("tools-only"),
            |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
        )
        .build()
        .expect("an alias names the canonical point");
    let ext = hooks.extension("tools-only").unwrap();
    assert_eq!(
        ext.points().unwrap(),
        ["intercept_tool_call", "man_note_saved"]
    );
    assert_eq!(ext.hook_count(), 1);

    let hooks = HooksBuilder::new()
        .manifest(Manifest::new("no-hooks").description("commands only"))
        .build()
        .unwrap();
    let names: Vec<&str> = hooks.extensions().map(|e| e.name()).collect();
    assert_eq!(names, ["no-hooks"]);
    assert_eq!(
        hooks.extension("no-hooks").unwrap().description(),
        Some("commands only")
    );
}
