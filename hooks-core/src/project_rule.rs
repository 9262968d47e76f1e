//! The project rule: what a project's file may do to each setting of an extension.
//!
//! # What it owns
//!
//! A project's file (`./hookchain.yaml`, any file but the user's own
//! `~/.config/hookchain/hookchain.yaml`) is written by whoever wrote the repository. It may add
//! hooks and guards and tighten their settings; it may never weaken what the user's file, the
//! agent's code or a guard's own defaults set. Whether a value tightens or weakens depends on
//! the field, so an extension says it once per field of its config type, with a
//! [`ProjectRule`], in an implementation of [`ProjectRules`] on that type. The runtime applies
//! the rules when a config is loaded into a registry (`hookchain_runtime::sections`), to every
//! key a project's file wrote:
//!
//! | rule | for | a project's value |
//! |---|---|---|
//! | [`Union`](ProjectRule::Union) | lists of protected or blocked things (protected paths, branches, required plan headings) | is added to the list the other layers (or the default) set, never replaces it |
//! | [`UserOnly`](ProjectRule::UserOnly) | what scopes a guard (the tools and args it watches, its exemptions, its project directory), where it logs or keeps data, what it runs with | is refused |
//! | [`Lower`](ProjectRule::Lower) | limits (`max_iterations`' `max`, an injector's `timeout_ms`) | holds when it is no more than the other layers' (or the default); a larger one is refused |
//! | [`Raise`](ProjectRule::Raise) | minimums and switches that tighten (`min_plan_chars`, `block_pipe_to_shell`) | holds when it is no less (for a switch: only `true`); a smaller one is refused |
//! | [`Stronger`](ProjectRule::Stronger) | a choice among levels, weakest first (secrets' `off`, `mask`, `block`) | holds when it is no weaker; a weaker one is refused |
//! | [`InsideProject`](ProjectRule::InsideProject) | lists of files an extension reads (`add-prompt-files`' `files`) | each entry holds when it is a relative path inside the project (no `..`, `~`, `$` or absolute path), and is added to the other layers' list; any other entry is refused |
//! | [`Free`](ProjectRule::Free) | what cannot weaken (a message text, where an injector's context goes) | holds |
//!
//! # The rules it keeps
//!
//! - The rules bind project files only: the user's own file and the agent's code set every
//!   field as they like.
//! - Every refusal is a warning naming the file and line of the project's key, the key, why, and
//!   where to write it instead (`~/.config/hookchain/hookchain.yaml`); the registry reports it
//!   with the other refusals of a project's file.
//! - A field with no rule (a field of an extension that declares none, or one its rules leave
//!   out) keeps the rule of every setting: a project's file may set it, but not empty what the
//!   user's file or code set (nothing, `false`, `0`, `""`, `[]`, `{}`).

use serde_json::{Map, Value};

/// What a project's file may do to one field of an extension's config.
///
/// A project's file (`./hookchain.yaml`, any file but the user's own
/// `~/.config/hookchain/hookchain.yaml`) may add to an extension and tighten it, never weaken
/// what the user's file, the agent's code or the extension's defaults set. The rules bind
/// project files only; every refusal is a warning naming the file and line, the key, why, and
/// to write it in the user's own file instead. A field with no rule keeps the rule of every
/// setting: a project's file may set it, but not empty what the user's file or code set.
///
/// | rule | for | a project's value |
/// |---|---|---|
/// | [`Union`](ProjectRule::Union) | lists of protected or blocked things | is added to the other layers' list (or the default) |
/// | [`UserOnly`](ProjectRule::UserOnly) | what scopes a guard, where it logs or keeps data | is refused |
/// | [`Lower`](ProjectRule::Lower) | limits | holds when no more than the other layers' (or the default) |
/// | [`Raise`](ProjectRule::Raise) | minimums, switches that tighten | holds when no less (a switch: only `true`) |
/// | [`Stronger`](ProjectRule::Stronger) | a choice among levels (`off`, `mask`, `block`) | holds when no weaker |
/// | [`InsideProject`](ProjectRule::InsideProject) | files an extension reads | each entry holds when inside the project, and is added |
/// | [`Free`](ProjectRule::Free) | what cannot weaken | holds |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectRule {
    /// Plain configuration that cannot weaken the extension (a message text, a format): a
    /// project's value holds.
    Free,
    /// A list of protected or blocked things: a project's entries are added to the list of the
    /// user's file and code, or to the default, never replace it. A project's empty list is
    /// refused (it removes nothing).
    Union,
    /// A setting that scopes a guard (which tools and args it watches, its exemptions, its
    /// project directory), a log or storage location, or anything a project could loosen it
    /// with: refused from a project's file.
    UserOnly,
    /// A limit: a project's value holds when it is no more than the value of the user's file
    /// and code (or the default, when they set none), and is refused when it is more.
    Lower,
    /// A minimum, or a switch that tightens when `true`: a project's value holds when it is no
    /// less than the value of the user's file and code (or the default), and is refused when
    /// it is less (`false` over `true`).
    Raise,
    /// A choice among named levels, weakest first (`["off", "mask", "block"]`): a project's
    /// value holds when it is no weaker than the value of the user's file and code (or the
    /// default), and is refused when it is weaker, or is not written as a plain word
    /// (`{off: ~}`, which serde may read as `off`).
    Stronger(&'static [&'static str]),
    /// A list of files the extension reads: a project's entry holds when it is a relative path
    /// inside the project (no `..` component, no absolute path, no `~`, no `$`), and is added to
    /// the list of the user's file and code (or the default); any other entry is refused.
    InsideProject,
}

impl ProjectRule {
    /// The rule's name, as the guide's table writes it (`union`, `user only`, …).
    pub fn name(self) -> &'static str {
        match self {
            ProjectRule::Free => "free",
            ProjectRule::Union => "union",
            ProjectRule::UserOnly => "user only",
            ProjectRule::Lower => "lower only",
            ProjectRule::Raise => "raise only",
            ProjectRule::Stronger(_) => "stronger only",
            ProjectRule::InsideProject => "inside the project",
        }
    }

    /// Why `entry` of a list under [`InsideProject`](ProjectRule::InsideProject) is refused,
    /// or `None` when it names a file inside the project.
    ///
    /// ```
    /// use hookchain::registry::ProjectRule;
    ///
    /// assert_eq!(ProjectRule::outside_project("AGENTS.md"), None);
    /// assert_eq!(ProjectRule::outside_project("docs/./guide.md"), None);
    /// assert!(ProjectRule::outside_project("~/.aws/credentials").is_some());
    /// assert!(ProjectRule::outside_project("../x").is_some());
    /// assert!(ProjectRule::outside_project("docs/../../x").is_some());
    /// assert!(ProjectRule::outside_project("/etc/passwd").is_some());
    /// assert!(ProjectRule::outside_project("$HOME/.netrc").is_some());
    /// ```
    pub fn outside_project(entry: &str) -> Option<&'static str> {
        if entry.trim().is_empty() {
            return Some("it names no file");
        }
        if entry.starts_with('~') {
            return Some("it starts with `~`, the home directory");
        }
        if entry.contains('$') {
            return Some("it names a variable, which can lead anywhere");
        }
        if entry.starts_with('/') || entry.starts_with('\\') || entry.get(1..2) == Some(":") {
            return Some("it is an absolute path");
        }
        if entry.split(['/', '\\']).any(|part| part == "..") {
            return Some("it climbs with `..`");
        }
        None
    }
}

/// The [`ProjectRule`] of every field of an extension's config type: implemented on the type,
/// declared to a registry with `HooksBuilder::config_type_with_rules`.
///
/// ```
/// use hookchain::registry::{ProjectRule, ProjectRules};
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Default)]
/// #[serde(default)]
/// struct NoForcePush {
///     branches: Vec<String>,
///     message: String,
/// }
///
/// impl ProjectRules for NoForcePush {
///     const PROJECT_RULES: &'static [(&'static str, ProjectRule)] =
///         &[("branches", ProjectRule::Union), ("message", ProjectRule::Free)];
/// }
///
/// let hooks = hookchain::HooksBuilder::new()
///     .config_type_with_rules::<NoForcePush>("no-force-push")
///     .build()
///     .unwrap();
/// # drop(hooks);
/// ```
pub trait ProjectRules {
    /// Each field (as the section names it) and its rule. A field left out keeps the rule of
    /// every setting: a project's file may not empty what the user's file or code set.
    const PROJECT_RULES: &'static [(&'static str, ProjectRule)];

    /// The value of each field when no file and no code sets it: what a
    /// [`Union`](ProjectRule::Union) adds a project's entries to and a
    /// [`Lower`](ProjectRule::Lower) or [`Raise`](ProjectRule::Raise) compares with. None by
    /// default: then a project's list is the list, and any limit tightens.
    fn project_defaults() -> Map<String, Value> {
        Map::new()
    }
}

/// The rules of one extension's config type, as a registry keeps them.
#[derive(Debug, Clone, Copy)]
pub struct DeclaredRules {
    /// Each field and its rule.
    pub fields: &'static [(&'static str, ProjectRule)],
    /// The value of each field by default.
    pub defaults: fn() -> Map<String, Value>,
}

impl DeclaredRules {
    /// The rules of `T`.
    pub fn of<T: ProjectRules>() -> Self {
        DeclaredRules {
            fields: T::PROJECT_RULES,
            defaults: T::project_defaults,
        }
    }

    /// The rule of `field`, if the type declares one.
    pub fn rule(&self, field: &str) -> Option<ProjectRule> {
        self.fields
            .iter()
            .find(|(name, _)| *name == field)
            .map(|(_, rule)| *rule)
    }
}
