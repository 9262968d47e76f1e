//! Manifests when a registry is built: the checks of the permissions they declare, and the
//! manifest each extension keeps.
//!
//! - Two manifests of one extension are an error naming both ([`BuildError::DuplicateManifest`]);
//!   the first, in file:line order, is kept.
//! - A hook of an extension with a manifest, on a point outside the manifest's `points`, is an
//!   error naming the hook, the point and the manifest ([`BuildError::PointNotAllowed`]). A
//!   lenient build ([`Hooks::global`](crate::Hooks::global)) leaves such a hook out of every
//!   chain: the manifest is a permission, not a note. A required hook is kept (and reported):
//!   a guard is never silently absent.
//! - A `depends_on` naming an extension the registry does not have (no hook, config type or
//!   manifest of that name) is an error naming both ([`BuildError::MissingDependency`]); a
//!   lenient build keeps the extension.
//! - An extension with a manifest is in the registry even when it has no hook.

use std::collections::BTreeMap;
use std::sync::Arc;

use hookchain_core::Manifest;

use super::error::BuildError;
use super::info::HookInfo;

/// The manifests of a registry, one per extension.
#[derive(Debug, Default)]
pub(super) struct Manifests {
    by_name: BTreeMap<String, Arc<Manifest>>,
}

impl Manifests {
    /// The manifests of `declared`, the first of each name kept, and an error for each other.
    pub(super) fn new(mut declared: Vec<Manifest>, errors: &mut Vec<BuildError>) -> Self {
        declared.sort_by(|a, b| a.at.cmp(&b.at));
        let mut by_name: BTreeMap<String, Arc<Manifest>> = BTreeMap::new();
        for manifest in declared {
            match by_name.get(&manifest.name) {
                Some(first) => errors.push(BuildError::DuplicateManifest {
                    name: manifest.name.clone(),
                    first: first.at.clone(),
                    second: manifest.at.clone(),
                }),
                None => {
                    by_name.insert(manifest.name.clone(), Arc::new(manifest));
                }
            }
        }
        Manifests { by_name }
    }

    /// The manifest of extension `name`.
    pub(super) fn of(&self, name: &str) -> Option<&Arc<Manifest>> {
        self.by_name.get(name)
    }

    /// The names of the extensions with a manifest.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }

    /// `true` when the hook `info` is on a point its extension's manifest does not allow.
    pub(super) fn forbids(&self, info: &HookInfo) -> bool {
        self.of(&info.extension)
            .is_some_and(|manifest| !manifest.allows(info.point))
    }

    /// The errors of the hooks `infos` outside their manifests' points.
    pub(super) fn check_points(&self, infos: &[HookInfo], errors: &mut Vec<BuildError>) {
        for info in infos.iter().filter(|info| self.forbids(info)) {
            let manifest = &self.by_name[&*info.extension];
            errors.push(BuildError::PointNotAllowed {
                hook: info.name.to_string(),
                at: info.location(),
                point: info.point,
                extension: info.extension.to_string(),
                manifest: manifest.at.clone(),
            });
        }
    }

    /// The errors of the dependencies missing from a registry whose extensions are `known`.
    pub(super) fn check_dependencies(&self, known: &[&str], errors: &mut Vec<BuildError>) {
        for manifest in self.by_name.values() {
            for dependency in &manifest.depends_on {
                if known.contains(&dependency.as_str()) {
                    continue;
                }
                errors.push(BuildError::MissingDependency {
                    extension: manifest.name.clone(),
                    manifest: manifest.at.clone(),
                    dependency: dependency.clone(),
                    suggestion: hookchain_core::suggest::closest(dependency, known.iter().copied())
                        .map(str::to_owned),
                });
            }
        }
    }
}
