//! What can go wrong building a registry ([`BuildError`]), installing it as the program's
//! ([`SetGlobalError`]), and switching its extensions ([`ExtensionError`]): each variant a
//! sentence the user can act on.

use std::fmt;
use std::sync::Arc;

use hookchain_core::ConfigError;

/// What can go wrong building a registry.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two hooks on one point share a name.
    #[error(
        "two hooks on `{point}` are named `{name}` ({first} and {second}): give one of them another `name = \"..\"`"
    )]
    DuplicateName {
        /// The point.
        point: &'static str,
        /// The shared name.
        name: String,
        /// file:line of the first.
        first: String,
        /// file:line of the second.
        second: String,
    },
    /// An extension a built-in claimed
    /// ([`HooksBuilder::claim_extension`](crate::HooksBuilder::claim_extension)) has hooks or a
    /// config type of another owner too: one section would configure both.
    #[error(
        "extension `{extension}` is {owner}, and {other} belongs to an extension of the same \
         name: one `{extension}` section would configure both; give your extension another name"
    )]
    ExtensionClash {
        /// The extension's name.
        extension: String,
        /// Who claimed it ("the built-in guard `workflow-guard`").
        owner: String,
        /// The other: a hook with its name and file:line, or a config type.
        other: String,
    },
    /// The config does not fit the registry: see [`ConfigError`].
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A wildcard hook's pattern can match no point.
    #[error("wildcard hook `{hook}` ({at}): {message}")]
    Pattern {
        /// The hook's name.
        hook: String,
        /// file:line of its definition.
        at: String,
        /// What is wrong with the pattern, and the fix.
        message: String,
    },
    /// Two tools share a name.
    #[error(
        "two tools are named `{name}` ({first} and {second}): give one of them another \
         `name = \"..\"`"
    )]
    DuplicateTool {
        /// The shared name.
        name: String,
        /// file:line of the first.
        first: String,
        /// file:line of the second.
        second: String,
    },
    /// A tool a provider would refuse.
    #[error("tool `{tool}` ({at}): {message}")]
    Tool {
        /// The tool's name.
        tool: String,
        /// file:line of its definition.
        at: String,
        /// What is wrong, and the fix.
        message: String,
    },
    /// A slash command's name is not one a user can type (see
    /// `hookchain::registry::check_command_name`).
    #[error("slash command `{name}` ({at}): {message}")]
    CommandName {
        /// The name as given.
        name: String,
        /// file:line of its definition.
        at: String,
        /// What is wrong with it, and the fix.
        message: String,
    },
    /// Two slash commands share a name.
    #[error(
        "two slash commands are named `/{name}` ({first} and {second}): rename one of them, or \
         leave one out"
    )]
    DuplicateCommand {
        /// The shared name.
        name: String,
        /// file:line of the first.
        first: String,
        /// file:line of the second.
        second: String,
    },
    /// A hook of an extension with a manifest is on a point the manifest does not list in its
    /// `points`.
    #[error(
        "hook `{hook}` ({at}) is on point `{point}`, which the manifest of extension \
         `{extension}` ({manifest}) does not list in its `points`: add `{point}` to them, or \
         move the hook to another extension"
    )]
    PointNotAllowed {
        /// The hook's name.
        hook: String,
        /// file:line of its definition.
        at: String,
        /// The point it is on (or its wildcard pattern).
        point: &'static str,
        /// Its extension.
        extension: String,
        /// file:line of the manifest.
        manifest: String,
    },
    /// A manifest's `depends_on` names an extension the registry does not have.
    #[error(
        "extension `{extension}` (manifest at {manifest}) depends on extension `{dependency}`, \
         which this registry does not have{}: link the crate that defines it (`use its_crate as \
         _;`), add its hooks, or remove it from `depends_on`",
        .suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
    )]
    MissingDependency {
        /// The extension whose manifest names the dependency.
        extension: String,
        /// file:line of its manifest.
        manifest: String,
        /// The extension it depends on.
        dependency: String,
        /// The registry's extension closest to `dependency`, when one is close.
        suggestion: Option<String>,
    },
    /// Two manifests declare the same extension.
    #[error(
        "extension `{name}` is declared by two manifests ({first} and {second}): keep one of them"
    )]
    DuplicateManifest {
        /// The extension's name.
        name: String,
        /// file:line of the first manifest.
        first: String,
        /// file:line of the second.
        second: String,
    },
    /// A step a layered crate left with [`HooksBuilder::on_build`](crate::HooksBuilder::on_build)
    /// failed: the allowlist of approved hooks cannot be read, a configured hook cannot be added,
    /// ...
    #[error("{0}")]
    Step(Arc<dyn std::error::Error + Send + Sync>),
}

/// The message, as `Display` writes it: what `main` prints for an error it returns with `?`.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl BuildError {
    /// A failed [`on_build`](crate::HooksBuilder::on_build) step.
    pub fn step(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        BuildError::Step(Arc::new(error))
    }
}

impl PartialEq for BuildError {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                BuildError::DuplicateName {
                    point,
                    name,
                    first,
                    second,
                },
                BuildError::DuplicateName {
                    point: p,
                    name: n,
                    first: f,
                    second: s,
                },
            ) => (point, name, first, second) == (p, n, f, s),
            (
                BuildError::ExtensionClash {
                    extension,
                    owner,
                    other,
                },
                BuildError::ExtensionClash {
                    extension: e,
                    owner: o,
                    other: x,
                },
            ) => (extension, owner, other) == (e, o, x),
            (
                BuildError::Pattern { hook, at, message },
                BuildError::Pattern {
                    hook: h,
                    at: a,
                    message: m,
                },
            ) => (hook, at, message) == (h, a, m),
            (
                BuildError::DuplicateTool {
                    name,
                    first,
                    second,
                },
                BuildError::DuplicateTool {
                    name: n,
                    first: f,
                    second: s,
                },
            ) => (name, first, second) == (n, f, s),
            (
                BuildError::Tool { tool, at, message },
                BuildError::Tool {
                    tool: t,
                    at: a,
                    message: m,
                },
            ) => (tool, at, message) == (t, a, m),
            (
                BuildError::CommandName { name, at, message },
                BuildError::CommandName {
                    name: n,
                    at: a,
                    message: m,
                },
            ) => (name, at, message) == (n, a, m),
            (
                BuildError::DuplicateCommand {
                    name,
                    first,
                    second,
                },
                BuildError::DuplicateCommand {
                    name: n,
                    first: f,
                    second: s,
                },
            ) => (name, first, second) == (n, f, s),
            (BuildError::Config(a), BuildError::Config(b)) => a == b,
            (BuildError::Step(a), BuildError::Step(b)) => a.to_string() == b.to_string(),
            (
                a @ (BuildError::PointNotAllowed { .. }
                | BuildError::MissingDependency { .. }
                | BuildError::DuplicateManifest { .. }),
                b,
            ) => {
                std::mem::discriminant(a) == std::mem::discriminant(b)
                    && a.to_string() == b.to_string()
            }
            _ => false,
        }
    }
}

impl Eq for BuildError {}

/// What [`Hooks::set_global`](crate::Hooks::set_global) returns when the global registry is already
/// in use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the global registry is already in use: install it (hookchain::init() or Hooks::set_global) \
     before anything calls Hooks::global()"
)]
#[non_exhaustive]
pub struct SetGlobalError;

/// What can go wrong enabling or disabling an extension.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExtensionError {
    /// No hook of the registry belongs to an extension of that name.
    #[error("no extension is named `{name}`{}", unknown_hint(.suggestion, .known))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The closest extension's name, when one is close.
        suggestion: Option<String>,
        /// Every extension of the registry, sorted.
        known: Vec<String>,
    },
}

fn unknown_hint(suggestion: &Option<String>, known: &[String]) -> String {
    match suggestion {
        Some(s) => format!(", did you mean `{s}`?"),
        None if known.is_empty() => " (the registry has no extensions)".to_owned(),
        None => format!(
            " (the extensions are {})",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
