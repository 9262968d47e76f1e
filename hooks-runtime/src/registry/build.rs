//! Building a registry from a [`HooksBuilder`]: the steps layered crates left run first, then the
//! stand-ins of what is required and missing, then the chains and the sections.
//!
//! - Two hooks with the same name on the same point are an error
//!   ([`BuildError::DuplicateName`]) when building with [`HooksBuilder::build`];
//!   [`Hooks::global`](crate::Hooks::global) cannot fail: it logs the error and keeps both, in
//!   file:line order.
//! - A wildcard pattern that can match no point is an error ([`BuildError::Pattern`]) naming the
//!   hook and where it is defined.
//! - An extension a built-in claimed ([`HooksBuilder::claim_extension`]) with hooks or a config
//!   type of another owner is an error ([`BuildError::ExtensionClash`]).
//! - Two tools of one name, or a tool a provider would refuse, are an error
//!   ([`BuildError::DuplicateTool`], [`BuildError::Tool`]; see `tools`).
//! - A lenient build leaves out what is wrong, logs it, and tells every session of what may
//!   leave a guard off.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use hookchain_core::__private::Registration;
use hookchain_core::points;
use parking_lot::{Mutex, RwLock};

use super::builder::{
    BuildMode, Claim, DEFAULT_ASYNC_TIMEOUT, DEFAULT_OBSERVER_TIMEOUT, DEFAULT_STOP_REDO_CAP,
    HooksBuilder,
};
use super::chains::{Added, BuiltinChains, Timeouts};
use super::error::BuildError;
use super::extensions::extensions;
use super::hooks::{Hooks, Registry};
use super::info::{HookInfo, registered_info};
use super::manifests::Manifests;
use crate::sections::{self, Declared};

impl HooksBuilder {
    /// Runs the steps left with [`on_build`](HooksBuilder::on_build), in order, and those they
    /// leave in turn.
    fn run_steps(
        &mut self,
        mode: BuildMode,
        errors: &mut Vec<BuildError>,
    ) -> Result<(), BuildError> {
        while !self.steps.is_empty() {
            let steps = std::mem::take(&mut self.steps);
            for step in steps {
                if let Err(error) = step(self, mode) {
                    match mode {
                        BuildMode::Strict => return Err(error),
                        BuildMode::Lenient => {
                            tracing::error!("{error}");
                            errors.push(error);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Builds the registry; fails when two hooks on one point share a name, when the sections
    /// do not fit (a section for an unknown extension, a section that does not deserialize into
    /// its declared type, ...), or when a step left by a layered crate fails.
    pub fn build(mut self) -> Result<Hooks, BuildError> {
        self.run_steps(BuildMode::Strict, &mut Vec::new())?;
        self.stand_in_for_missing();
        let sections = self.sections.take().unwrap_or_default();
        let registry = Registry::new(self);
        if let Some(error) = registry.duplicates.first() {
            return Err(error.clone());
        }
        let mut registry = registry;
        let (plan, errors) = sections::plan(
            &sections,
            &registry.extensions,
            &registry.declared,
            &registry.infos,
        );
        if let Some(error) = errors.into_iter().next() {
            return Err(error.into());
        }
        registry.refused(&plan.refusals);
        plan.apply(&registry.extensions);
        Ok(Hooks {
            inner: Arc::new(registry),
        })
    }

    /// Builds the registry, logging (not failing on) duplicate names, sections that do not fit
    /// and failed steps: what is wrong is left out.
    pub fn build_lenient(self) -> Hooks {
        self.build_reporting().0
    }

    /// [`build_lenient`](HooksBuilder::build_lenient), with every error it logged: failed
    /// steps, duplicate names, then sections that do not fit.
    pub fn build_reporting(mut self) -> (Hooks, Vec<BuildError>) {
        let mut errors = Vec::new();
        // A lenient run of the steps logs and keeps their errors; it never returns one.
        let _ = self.run_steps(BuildMode::Lenient, &mut errors);
        self.stand_in_for_missing();
        let sections = self.sections.take().unwrap_or_default();
        let mut registry = Registry::new(self);
        for error in registry.duplicates.clone() {
            tracing::error!("{error}");
            // Two owners under one extension, or a manifest's permission or dependency broken:
            // every session hears of it.
            if let BuildError::ExtensionClash { .. }
            | BuildError::PointNotAllowed { .. }
            | BuildError::MissingDependency { .. }
            | BuildError::DuplicateManifest { .. } = error
            {
                registry.notices.push(hookchain_core::Notification {
                    level: hookchain_core::Level::Error,
                    message: error.to_string(),
                    source: Some("config".to_owned()),
                    kind: hookchain_core::NotificationKind::General,
                });
            }
            errors.push(error);
        }
        let (plan, config_errors) = sections::plan(
            &sections,
            &registry.extensions,
            &registry.declared,
            &registry.infos,
        );
        for error in config_errors {
            tracing::error!("{error}");
            // A section left out may leave a guard off, or on without its settings: every
            // session hears of it.
            registry.notices.push(hookchain_core::Notification {
                level: hookchain_core::Level::Error,
                message: format!("{error}; the section is left out"),
                source: Some("config".to_owned()),
                kind: hookchain_core::NotificationKind::General,
            });
            errors.push(error.into());
        }
        registry.refused(&plan.refusals);
        plan.apply(&registry.extensions);
        let hooks = Hooks {
            inner: Arc::new(registry),
        };
        (hooks, errors)
    }
}

impl Registry {
    pub(super) fn new(mut builder: HooksBuilder) -> Self {
        // From here on, `tracing` tells the dispatches whether a subscriber wants their spans.
        crate::trace::register();
        let mut infos: Vec<HookInfo> = builder
            .registered
            .iter()
            .map(|r| registered_info(r))
            .chain(builder.added.iter().map(|a| a.info.clone()))
            .collect();
        for info in &mut infos {
            info.required = builder.required_set.contains(info);
        }
        infos.sort_by(|a, b| {
            (a.point, a.sort_key(), &a.file, a.line).cmp(&(b.point, b.sort_key(), &b.file, b.line))
        });
        let (commands, command_errors) = super::commands::table(builder.commands);
        // The manifests' permissions: a hook outside its manifest's points is an error, and is
        // left out of every chain, unless it is required (see `manifests`).
        let mut manifest_errors = Vec::new();
        let manifests = Manifests::new(builder.manifests, &mut manifest_errors);
        manifests.check_points(&infos, &mut manifest_errors);
        let required_set = &builder.required_set;
        let left_out = |info: &HookInfo| manifests.forbids(info) && !required_set.contains(info);
        infos.retain(|info| !left_out(info));
        let mut duplicates = find_duplicates(&infos);
        duplicates.extend(command_errors);
        duplicates.extend(find_clashes(&infos, &builder.declared, &builder.claims));
        duplicates.extend(pattern_errors(&infos));
        let (tools, tool_errors) = super::tools::pending(std::mem::take(&mut builder.tools));
        duplicates.extend(tool_errors);
        let extensions = extensions(
            &infos,
            &builder.declared,
            &builder.off_by_default,
            &super::tools::names(&tools),
            &commands,
            &manifests,
        );
        let tools = super::tools::Tools::bind(tools, &extensions);
        let known: Vec<&str> = extensions.iter().map(|e| e.name()).collect();
        manifests.check_dependencies(&known, &mut manifest_errors);
        duplicates.extend(manifest_errors);
        let (mut registered, mut added) = (builder.registered, builder.added);
        registered.retain(|r| !left_out(&registered_info(r)));
        added.retain(|a| !left_out(&a.info));
        let timeouts = Timeouts {
            async_hooks: builder.async_timeout.unwrap_or(DEFAULT_ASYNC_TIMEOUT),
            observers: builder.observer_timeout.unwrap_or(DEFAULT_OBSERVER_TIMEOUT),
        };
        let required = builder.required_set;
        let builtin = BuiltinChains::build(&registered, &added, &extensions, &required, timeouts);
        let firers = event_firers(&registered, &added);
        Registry {
            infos,
            registered,
            added,
            extensions,
            declared: builder.declared,
            config_lock: Mutex::new(()),
            builtin,
            custom: RwLock::new(HashMap::new()),
            commands,
            custom_names: RwLock::new(HashMap::new()),
            firers: RwLock::new(firers),
            duplicates,
            timeouts,
            required,
            stop_redo_cap: builder.stop_redo_cap.unwrap_or(DEFAULT_STOP_REDO_CAP),
            attachments: builder.attachments,
            notices: builder.notices,
            refusals: Mutex::new(Vec::new()),
            store: crate::state::Store::new(),
            tools,
        }
    }
}

/// The dispatch of the events of every point the registry knows of: the built-in ones, those of
/// `#[register_hook]` fns (their records carry it) and those of hooks added to the builder.
fn event_firers(
    registered: &[&'static Registration],
    added: &[Added],
) -> HashMap<TypeId, crate::session::Firer> {
    let mut firers: HashMap<_, _> = BuiltinChains::firers().into_iter().collect();
    let linked = registered
        .iter()
        .filter_map(|r| r.firer?.downcast_ref::<crate::session::Firer>());
    for firer in linked {
        firers.entry((firer.point)()).or_insert(*firer);
    }
    for a in added {
        firers.entry(a.point_type).or_insert(a.firer);
    }
    firers
}

/// The wildcard hooks whose pattern can match no point.
fn pattern_errors(infos: &[HookInfo]) -> Vec<BuildError> {
    let builtin = points::catalog().iter().map(|p| p.name);
    infos
        .iter()
        .filter(|info| hookchain_core::Pattern::is_wildcard(info.point))
        .filter_map(|info| {
            let error = hookchain_core::Pattern::parse(info.point, builtin.clone()).err()?;
            Some(BuildError::Pattern {
                hook: info.name.to_string(),
                at: info.location(),
                message: error.to_string(),
            })
        })
        .collect()
}

fn find_duplicates(sorted: &[HookInfo]) -> Vec<BuildError> {
    let mut seen: HashMap<(&str, &str), &HookInfo> = HashMap::new();
    let mut errors = Vec::new();
    for info in sorted {
        if let Some(first) = seen.insert((info.point, &info.name), info) {
            errors.push(BuildError::DuplicateName {
                point: info.point,
                name: info.name.to_string(),
                first: format!("{}:{}", first.file, first.line),
                second: format!("{}:{}", info.file, info.line),
            });
        }
    }
    errors
}

/// The hooks and config types in an extension a built-in claimed that are not the owner's.
/// `true` when a hook named `name` is one of the claimed extension's own: named after it,
/// `extension` or `extension:part` (a guard with several hooks on one point).
fn owned_by(name: &str, extension: &str) -> bool {
    name.strip_prefix(extension)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
}

fn find_clashes(infos: &[HookInfo], declared: &[Declared], claims: &[Claim]) -> Vec<BuildError> {
    let mut errors = Vec::new();
    for claim in claims {
        let clash = |other: String| BuildError::ExtensionClash {
            extension: claim.extension.clone(),
            owner: claim.owner.clone(),
            other,
        };
        let hooks = infos
            .iter()
            .filter(|i| *i.extension == *claim.extension && !owned_by(&i.name, &claim.extension));
        errors.extend(hooks.map(|info| {
            clash(format!(
                "the hook `{}` ({}) on `{}`",
                info.name,
                info.location(),
                info.point
            ))
        }));
        let owners = declared
            .iter()
            .skip(claim.declared_from)
            .find(|d| d.extension == claim.extension)
            .map(|d| d.type_name);
        let types = declared
            .iter()
            .filter(|d| d.extension == claim.extension && Some(d.type_name) != owners);
        errors.extend(types.map(|d| clash(format!("the config type `{}`", d.type_name))));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::HookOptions;
    use crate::sections::Sections;
    use hookchain_core::points::InterceptToolCall;
    use hookchain_core::{HookContext, HookResult, ToolCall};
    use serde_json::{Value, json};

    /// A lenient build with sections that do not fit: builds anyway, leaves out what is wrong,
    /// reports every error.
    #[test]
    fn a_lenient_build_runs_without_what_is_wrong_and_reports_the_errors() {
        #[derive(serde::Deserialize)]
        struct Guard {
            #[allow(dead_code)]
            plan_path: String,
        }
        let builder = || {
            HooksBuilder::new()
                .hook_with(
                    InterceptToolCall,
                    HookOptions::new("guard").extension("guard"),
                    |_: &ToolCall, _: &HookContext| HookResult::<Value>::block("no"),
                )
                .hook_with(
                    InterceptToolCall,
                    HookOptions::new("audit").priority(-1),
                    |_: &ToolCall, _: &HookContext| HookResult::<Value>::Pass,
                )
                .config_type::<Guard>("guard")
        };
        let sections = Sections::new()
            .extension("guard", json!({"plan_path": 3, "enabled": false}))
            .extension("app", json!({"enabled": false}))
            .extension("gaurd", json!({}));
        let (hooks, errors) = builder()
            .sections(sections)
            .on_build(|_, _| {
                Err(BuildError::step(std::io::Error::other(
                    "cannot read approved-hooks.json",
                )))
            })
            .build_reporting();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "cannot read approved-hooks.json",
                "extension `gaurd` in the config set from code: no hook belongs to this \
                 extension, did you mean `guard`?",
                "extension `guard` in the config set from code: field `plan_path`: invalid \
                 type: integer `3`, expected a string",
            ]
        );
        // Every session hears of the sections left out.
        let notices: Vec<&str> = hooks.notices().iter().map(|n| n.message.as_str()).collect();
        assert_eq!(
            notices,
            [
                "extension `gaurd` in the config set from code: no hook belongs to this \
                 extension, did you mean `guard`?; the section is left out",
                "extension `guard` in the config set from code: field `plan_path`: invalid \
                 type: integer `3`, expected a string; the section is left out",
            ]
        );
        // The section that does not fit is left out whole (`enabled: false` with it); the rest
        // of the sections apply.
        let guard = hooks.extension("guard").unwrap();
        assert!(guard.is_enabled());
        assert!(guard.section().is_absent());
        assert!(!hooks.extension("app").unwrap().is_enabled());
        assert!(
            hooks
                .dispatch::<InterceptToolCall>(ToolCall::new("x", json!({})))
                .is_blocked()
        );
        // Sections that fit give no error; a strict build refuses the failed step.
        let fine = Sections::new().extension("guard", json!({"plan_path": "p"}));
        let (hooks, errors) = builder().sections(fine.clone()).build_reporting();
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!hooks.extension("guard").unwrap().section().is_absent());
        let refused = builder()
            .sections(fine)
            .on_build(|_, mode| {
                assert_eq!(mode, BuildMode::Strict);
                Err(BuildError::step(std::io::Error::other("no")))
            })
            .build();
        assert_eq!(refused.unwrap_err().to_string(), "no");
    }

    #[test]
    fn attachments_travel_from_the_builder_to_the_registry() {
        #[derive(Debug, PartialEq)]
        struct Report(u32);
        let hooks = HooksBuilder::new()
            .attach(Report(1))
            .on_build(|builder, _| {
                builder.attachment_mut::<Report>().unwrap().0 += 1;
                Ok(())
            })
            .build()
            .unwrap();
        assert_eq!(hooks.attachment::<Report>(), Some(&Report(2)));
        assert_eq!(hooks.attachment::<String>(), None);
    }
}
