//! Manifests: an extension declared once — its name, version, description, the extensions it
//! depends on and the points its hooks may use (an extension permissions model).
//!
//! # What it owns
//!
//! A [`Manifest`] is what `hookchain::extension! { .. }` declares at link time (collected as a
//! [`ManifestDeclaration`], like `#[register_hook]` fns and `extension_config!` types, with
//! either backend) or what the agent's code gives `HooksBuilder::manifest`. The runtime checks
//! every manifest when it builds a registry, and the extension keeps its manifest
//! ([`Extension::manifest`](crate::Extension::manifest) and the accessors beside it).
//!
//! # The rules it keeps
//!
//! - A manifest is optional: an extension without one keeps the behaviour it always had (its
//!   hooks may use any point, it depends on nothing).
//! - `points` lists the points the extension's hooks may use, by canonical name (another
//!   agent's name for a built-in point is resolved to the canonical one). A manifest without
//!   `points` does not restrict them; `points: []` allows none. A wildcard hook is allowed by
//!   its pattern (`"*"`, `"after_*"`) listed as written.
//! - When the registry is built, a hook of a declared extension on a point outside its `points`
//!   is an error naming the hook, the point and the manifest (file:line); so is a `depends_on`
//!   naming an extension the registry does not have, and two manifests of one name (naming
//!   both). `Hooks::global()`, which cannot fail, logs them, tells every session through
//!   `notification`, and leaves the hook outside its `points` out of its chain.

use std::fmt;

use crate::point::HookPoint;

/// An extension's manifest: who it is and what it may do.
///
/// ```
/// use hookchain::registry::Manifest;
///
/// let manifest = Manifest::new("notes")
///     .version("0.2.0")
///     .description("Saves notes")
///     .depends_on(["workflow-guard"])
///     .points(["intercept_tool_call", "PreToolUse", "turn_start"]);
/// // Another agent's name for a built-in point is its canonical one.
/// assert_eq!(
///     manifest.points.as_deref().unwrap(),
///     ["intercept_tool_call", "intercept_tool_call", "turn_start"]
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Manifest {
    /// The extension's name.
    pub name: String,
    /// Its version, as its author writes it (`"0.2.0"`).
    pub version: Option<String>,
    /// What it does, in a sentence.
    pub description: Option<String>,
    /// The extensions it needs in the registry.
    pub depends_on: Vec<String>,
    /// The canonical names of the points its hooks may use; `None`: any.
    pub points: Option<Vec<String>>,
    /// Where it was declared: `file:line` of `extension!`, or of the code that made it.
    pub at: String,
}

impl Manifest {
    /// The manifest of extension `name`, with no version, description, dependency or limit on
    /// points; declared where this is called.
    #[track_caller]
    pub fn new(name: impl Into<String>) -> Self {
        let at = std::panic::Location::caller();
        Manifest {
            name: name.into(),
            version: None,
            description: None,
            depends_on: Vec::new(),
            points: None,
            at: format!("{}:{}", at.file(), at.line()),
        }
    }

    /// With `version`.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// With `description`.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Depending on the extensions `names` as well.
    pub fn depends_on(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.depends_on.extend(names.into_iter().map(Into::into));
        self
    }

    /// Allowing the points `names` as well: canonical names, other agents' names for built-in
    /// points (resolved to the canonical ones), user-defined points' names, wildcard patterns.
    pub fn points(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let points = self.points.get_or_insert_with(Vec::new);
        points.extend(names.into_iter().map(|name| canonical(name.into())));
        self
    }

    /// Allowing point `P` as well.
    pub fn point<P: HookPoint>(self) -> Self {
        self.points([P::NAME])
    }

    /// Declared at `at` (`file:line`), for a manifest read from somewhere else than code.
    pub fn at(mut self, at: impl Into<String>) -> Self {
        self.at = at.into();
        self
    }

    /// `true` when its hooks may use the point named `point` (a canonical name, or a wildcard
    /// hook's pattern).
    pub fn allows(&self, point: &str) -> bool {
        self.points
            .as_ref()
            .is_none_or(|points| points.iter().any(|p| p == point))
    }
}

impl fmt::Display for Manifest {
    /// `notes 0.2.0 (src/lib.rs:3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(version) = &self.version {
            write!(f, " {version}")?;
        }
        write!(f, " ({})", self.at)
    }
}

/// The canonical name of a built-in point named by one of its aliases; any other name as is.
fn canonical(name: String) -> String {
    match crate::points::resolve(&name) {
        Some(point) => point.name.to_owned(),
        None => name,
    }
}

/// An `extension!` manifest, as collected at link time.
#[derive(Debug)]
pub struct ManifestDeclaration {
    /// The extension's name.
    pub name: &'static str,
    /// Its version, `""` when not given.
    pub version: &'static str,
    /// Its description, `""` when not given.
    pub description: &'static str,
    /// The extensions it depends on.
    pub depends_on: &'static [&'static str],
    /// The canonical names of the points its hooks may use; `None`: any.
    pub points: Option<&'static [&'static str]>,
    /// The source file of the declaration.
    pub file: &'static str,
    /// Its line.
    pub line: u32,
}

impl From<&ManifestDeclaration> for Manifest {
    fn from(d: &ManifestDeclaration) -> Self {
        Manifest {
            name: d.name.to_owned(),
            version: (!d.version.is_empty()).then(|| d.version.to_owned()),
            description: (!d.description.is_empty()).then(|| d.description.to_owned()),
            depends_on: d.depends_on.iter().map(|s| (*s).to_owned()).collect(),
            points: d
                .points
                .map(|points| points.iter().map(|p| canonical((*p).to_owned())).collect()),
            at: format!("{}:{}", d.file, d.line),
        }
    }
}

#[cfg(not(feature = "linkme"))]
inventory::collect!(ManifestDeclaration);

/// Every `extension!` manifest linked into the program, in no particular order.
#[cfg(not(feature = "linkme"))]
pub fn manifest_declarations() -> impl Iterator<Item = &'static ManifestDeclaration> {
    inventory::iter::<ManifestDeclaration>.into_iter()
}

/// Every `extension!` manifest linked into the program, in no particular order.
#[cfg(feature = "linkme")]
pub fn manifest_declarations() -> impl Iterator<Item = &'static ManifestDeclaration> {
    MANIFEST_DECLARATIONS.iter()
}

/// The linkme slice that collects `extension!` manifests (`__private::MANIFEST_DECLARATIONS` to
/// the macros).
#[cfg(feature = "linkme")]
#[linkme::distributed_slice]
#[linkme(crate = linkme)]
pub static MANIFEST_DECLARATIONS: [ManifestDeclaration];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_without_points_allows_any_and_an_empty_list_none() {
        assert!(Manifest::new("a").allows("turn_end"));
        let none = Manifest::new("a").points(Vec::<String>::new());
        assert!(!none.allows("turn_end"));
        let some = Manifest::new("a").points(["Stop"]);
        assert!(some.allows("on_stop") && !some.allows("turn_end"));
    }

    #[test]
    fn a_declaration_reads_as_a_manifest() {
        static D: ManifestDeclaration = ManifestDeclaration {
            name: "notes",
            version: "0.2.0",
            description: "",
            depends_on: &["workflow-guard"],
            points: Some(&["pre_tool_call"]),
            file: "src/lib.rs",
            line: 3,
        };
        let m = Manifest::from(&D);
        assert_eq!(m.to_string(), "notes 0.2.0 (src/lib.rs:3)");
        assert_eq!(m.description, None);
        assert_eq!(
            m.points.as_deref(),
            Some(&["intercept_tool_call".to_owned()][..])
        );
    }
}
