//! A config in a registry: [`ConfigBuilderExt`] gives a [`HooksBuilder`] a [`Config`] — its
//! extension sections and its external hooks, each let in by consent — and
//! [`ConfigHooksExt`] reloads a built registry's sections and says what consent did.
//!
//! # The rules it keeps
//!
//! - The sections go to the registry's extensions as
//!   [`HooksBuilder::sections`](hookchain_runtime::HooksBuilder::sections) says. With the `guards`
//!   feature, a section named after a built-in guard (`destructive-commands`, ...) adds the
//!   guard's hooks, off until the section says `enabled: true`; a section whose name is a near
//!   miss of a guard's adds that guard too, so the section is refused with a "did you mean".
//!   A reload ([`ConfigHooksExt::set_config`]) cannot add a guard the registry was built without.
//! - The config's external hooks join their points' chains when the registry is built, each once
//!   [`consent`](crate::consent) lets it run: approved in the allowlist and unchanged since, or
//!   approved then by the policy. The others are skipped with a warning naming each and listed by
//!   [`ConfigHooksExt::consent_report`]. Consent is checked again at every firing: a hook whose
//!   script (or command line, `env`, `working_dir`, headers) changed since it was approved fails
//!   before anything runs, under its `on_error`. A hook marked `required: true` is never left
//!   out in silence: skipped, its point blocks with a reason naming it and how to approve it
//!   ([`HooksBuilder::require_hook_because`](hookchain_runtime::HooksBuilder::require_hook_because));
//!   drifted or unusable, its point blocks at every firing whatever its `on_error`. The chains
//!   never change after that:
//!   [`ConfigHooksExt::set_config`] reloads sections and flags only.
//! - The hooks of one Hermes Python hook directory or plugin
//!   ([`hermes_python`](crate::hermes_python)) share one worker: one interpreter serves every
//!   point the directory hooks.
//! - Without [`ConfigBuilderExt::consent`], the allowlist is
//!   `~/.config/hookchain/approved-hooks.json` and the policy is the environment's
//!   (`HOOKCHAIN_ACCEPT_HOOKS`); nobody is asked on a terminal unless the program gives a
//!   policy with a prompt. A strict build fails when that allowlist cannot be read; a lenient
//!   one runs only the hooks approved otherwise and reports the error.

use std::sync::Arc;

use hookchain_core::ConfigError;
use hookchain_external::ExternalHooksExt;
use hookchain_external::hook::Unusable;
use hookchain_runtime::{BuildError, BuildMode, Hooks, HooksBuilder};
use parking_lot::Mutex;

use crate::config::Config;
use crate::consent::{self, Consent, ConsentPolicy, ConsentReport};
use crate::external_extension::ExternalTool;

/// What the builder was given, until it is built.
#[derive(Default)]
struct Pending {
    config: Option<Config>,
    consent: Option<(Consent, ConsentPolicy)>,
    accept_hooks: bool,
}

/// Gives a [`HooksBuilder`] a config: `use hookchain::prelude::*;` brings it in.
///
/// - The sections go to the registry's extensions as
///   [`HooksBuilder::sections`](hookchain_runtime::HooksBuilder::sections) says.
/// - The config's external hooks join their points' chains when the registry is built, each
///   once [`consent`](crate::consent) lets it run: approved in the allowlist and unchanged
///   since, or approved then by the policy. The others are skipped with a warning naming each,
///   and listed by [`ConfigHooksExt::consent_report`].
/// - Without [`consent`](ConfigBuilderExt::consent), the allowlist is
///   `~/.config/hookchain/approved-hooks.json` and the policy is the environment's
///   (`HOOKCHAIN_ACCEPT_HOOKS`); nobody is asked on a terminal unless the program gives a policy
///   with a prompt. A strict `build` fails when that allowlist cannot be read; a lenient one runs
///   only the hooks approved otherwise and reports the error.
pub trait ConfigBuilderExt: Sized {
    /// The config the registry starts with: its sections (checked by `build`, see
    /// [`HooksBuilder::sections`](hookchain_runtime::HooksBuilder::sections)) and its external
    /// hooks, which join their chains once consent lets them (see the [trait docs](ConfigBuilderExt)).
    /// Given twice, the second is put over the first.
    fn config(self, config: Config) -> Self;

    /// The allowlist of approved hooks and how hooks that are not in it get approved, for the
    /// config's external hooks. `hooks_auto_accept: true` in the config approves them too.
    ///
    /// ```
    /// use hookchain::config::Config;
    /// use hookchain::consent::{Consent, ConsentPolicy};
    /// use hookchain::prelude::*;
    ///
    /// let config = Config::from_yaml_str(
    ///     "hooks:\n  PreToolUse:\n    - url: https://hooks.example.com/check\n",
    ///     "./hookchain.yaml",
    /// )?;
    /// let hooks = Hooks::builder()
    ///     .config(config)
    ///     .consent(Consent::in_memory(), ConsentPolicy::new())
    ///     .build()?;
    /// // Not approved, in a run that asks nobody: skipped, and said so.
    /// assert!(hooks.chain_of("intercept_tool_call").is_empty());
    /// assert_eq!(hooks.consent_report().skipped[0].name, "./hookchain.yaml#01");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn consent(self, consent: Consent, policy: ConsentPolicy) -> Self;

    /// Approves every external hook of the config that is not approved yet (or changed since),
    /// and records the approvals, as `--accept-hooks` does.
    fn accept_hooks(self, accept: bool) -> Self;
}

impl ConfigBuilderExt for HooksBuilder {
    fn config(self, config: Config) -> Self {
        with_pending(self, |pending| {
            pending.config = Some(match pending.config.take() {
                Some(base) => base.merge(config),
                None => config,
            });
        })
    }

    fn consent(self, consent: Consent, policy: ConsentPolicy) -> Self {
        with_pending(self, |pending| pending.consent = Some((consent, policy)))
    }

    fn accept_hooks(self, accept: bool) -> Self {
        with_pending(self, |pending| pending.accept_hooks = accept)
    }
}

/// Changes what the builder was given; the first change leaves the step that uses it.
fn with_pending(mut builder: HooksBuilder, change: impl FnOnce(&mut Pending)) -> HooksBuilder {
    if let Some(pending) = builder.attachment_mut::<Mutex<Pending>>() {
        change(pending.get_mut());
        return builder;
    }
    let mut pending = Pending::default();
    change(&mut pending);
    builder
        .attach(Mutex::new(pending))
        .on_build(|builder, mode| {
            let pending = builder
                .take_attachment::<Mutex<Pending>>()
                .map(Mutex::into_inner)
                .unwrap_or_default();
            apply(builder, pending, mode)
        })
}

/// Puts the config's sections in the builder, and its external hooks that consent lets run.
fn apply(builder: &mut HooksBuilder, pending: Pending, mode: BuildMode) -> Result<(), BuildError> {
    let Some(config) = pending.config else {
        return Ok(());
    };
    let mut taken = std::mem::take(builder).sections(config.sections().clone());
    // A section named after a built-in guard (or a near miss of one, refused then with a "did
    // you mean") adds the guard's hooks, off until the section enables it.
    #[cfg(feature = "guards")]
    for name in config.sections().extensions() {
        if let Some(guard) = hookchain_guards::guard_for_section(name) {
            taken = hookchain_guards::add_guard(taken, guard);
        }
    }
    // The required hooks of files that failed to load block their points.
    for unloaded in &config.unloaded_required {
        taken = taken.require_hook_because(
            unloaded.point,
            unloaded.name.clone(),
            unloaded.reason.clone(),
        );
    }
    // What was left out of other agents' files, or is not honoured as written: every session
    // hears of it, not only the log.
    for notice in &config.notices {
        taken = taken.notice(hookchain_core::Notification {
            level: hookchain_core::Level::Warning,
            message: notice.clone(),
            source: None,
            kind: hookchain_core::NotificationKind::General,
        });
    }
    // The master switch: `hooks_enabled: false` in the user's file leaves every configured
    // hook and external tool out but the `required` hooks, and every session hears so.
    let switched_off = config.hooks_enabled() == Some(false);
    let mut external_hooks = config.external_hooks().to_vec();
    let mut tools: Vec<ExternalTool> = config.external_tools().cloned().collect();
    if switched_off {
        let at = config
            .hooks_enabled_at()
            .unwrap_or("the user's hookchain.yaml");
        external_hooks.retain(|hook| hook.required);
        tools.clear();
        taken = taken.notice(hookchain_core::Notification {
            level: hookchain_core::Level::Warning,
            message: master_switch_notice(at),
            source: None,
            kind: hookchain_core::NotificationKind::General,
        });
    }
    let mut report = ConsentReport::default();
    let mut admitted_tools = Vec::new();
    if !external_hooks.is_empty() || !tools.is_empty() {
        let (mut allowlist, mut policy) = match pending.consent {
            Some(given) => given,
            None => {
                let allowlist = match Consent::load_default() {
                    Ok(allowlist) => allowlist,
                    Err(error) if mode == BuildMode::Strict => {
                        *builder = taken;
                        return Err(BuildError::step(error));
                    }
                    Err(error) => {
                        tracing::error!("{error}");
                        report.errors.push(error);
                        Consent::in_memory()
                    }
                };
                (
                    allowlist,
                    ConsentPolicy::from_lookup(|name| std::env::var(name).ok()),
                )
            }
        };
        if pending.accept_hooks {
            policy = policy.accept_hooks(true);
        }
        if config.accepts_hooks() {
            policy = policy.auto_accept(true);
        }
        // The tools of external extensions are approved as the commands they run.
        let tool_hooks: Vec<_> = tools.iter().map(ExternalTool::consent_hook).collect();
        let (admitted_tool_hooks, tool_admission) =
            consent::admit(tool_hooks, &mut allowlist, &mut policy);
        admitted_tools = tools
            .into_iter()
            .filter(|tool| {
                admitted_tool_hooks
                    .iter()
                    .any(|hook| hook.name == tool.consent_hook().name)
            })
            .map(|mut tool| {
                tool.approved = Some(consent::pin_hash(&tool.consent_hook()));
                tool
            })
            .collect();
        for skipped in &tool_admission.skipped {
            taken = taken.notice(hookchain_core::Notification {
                level: hookchain_core::Level::Warning,
                message: skipped.to_string(),
                source: Some(skipped.name.clone()),
                kind: hookchain_core::NotificationKind::General,
            });
        }
        let (admitted, mut admission) = consent::admit(external_hooks, &mut allowlist, &mut policy);
        admission.admitted.extend(tool_admission.admitted);
        admission.skipped.extend(tool_admission.skipped);
        admission.errors.extend(tool_admission.errors);
        report.admitted = admission.admitted;
        // A hook that does not run is never silent: every session hears of it; a required one
        // blocks its point, and the notice says so.
        for skipped in &admission.skipped {
            let required = config
                .external_hooks()
                .iter()
                .any(|h| h.required && h.name == skipped.name && h.point == skipped.point);
            if required {
                taken = taken.require_hook_because(
                    skipped.point,
                    skipped.name.clone(),
                    not_approved(skipped),
                );
                continue;
            }
            taken = taken.notice(hookchain_core::Notification {
                level: hookchain_core::Level::Warning,
                message: skipped.to_string(),
                source: Some(skipped.name.clone()),
                kind: hookchain_core::NotificationKind::General,
            });
        }
        report.skipped = admission.skipped;
        report.errors.extend(admission.errors);
        // The points one Hermes Python hook directory hooks share its one interpreter.
        let mut shared: Vec<(
            hookchain_external::CommandSpec,
            Arc<dyn hookchain_external::Invoke>,
        )> = Vec::new();
        for hook in admitted {
            let approved = consent::pin_hash(&hook);
            let python = match &hook.transport {
                hookchain_external::Transport::Process(spec)
                    if spec.env.contains_key(crate::hermes_python::DIR_ENV) =>
                {
                    Some(spec.clone())
                }
                _ => None,
            };
            let known = python
                .as_ref()
                .and_then(|spec| shared.iter().find(|(s, _)| s == spec))
                .map(|(_, invoker)| Arc::clone(invoker));
            let inner = known.unwrap_or_else(|| {
                let inner =
                    hookchain_external::hook::invoker(&hook.transport).unwrap_or_else(|error| {
                        tracing::error!(
                            hook = hook.name,
                            "external hook `{}` ({}) cannot be used, every firing will fail: \
                             {error}",
                            hook.name,
                            hook.origin.short()
                        );
                        Arc::new(Unusable(error))
                    });
                if let Some(spec) = python {
                    shared.push((spec, Arc::clone(&inner)));
                }
                inner
            });
            let verified = consent::Verified {
                inner,
                hook: hook.clone(),
                approved,
            };
            let rule = config
                .conditions
                .iter()
                .find(|(point, name, _)| *point == hook.point && *name == hook.name)
                .map(|(_, _, rule)| rule.clone());
            let invoker: Arc<dyn hookchain_external::Invoke> = match rule {
                Some(rule) => Arc::new(OnlyIf {
                    rule,
                    inner: Arc::new(verified),
                }),
                None => Arc::new(verified),
            };
            // The hooks of an external extension belong to it; the others to `external`.
            let extension = config
                .hook_extensions
                .iter()
                .find(|(point, name, _)| *point == hook.point && *name == hook.name)
                .map(|(_, _, extension)| extension.clone());
            taken = match extension {
                Some(extension) => taken.external_in(hook, invoker, &extension),
                None => taken.external_with(hook, invoker),
            };
        }
    }
    // The admitted tools join the registry as the tools of their extensions: listed by
    // `Session::tools`, called through the tool points by `Turn::call_tool`, switched off with
    // their extension.
    for tool in &admitted_tools {
        let spec = hookchain_core::ToolSpec {
            name: tool.name.clone(),
            description: tool.description.clone(),
            parameters: tool.parameters.clone(),
            extension: tool.extension.clone(),
        };
        let runner = tool.clone();
        taken = taken.tool(spec, move |args, cx| runner.run(args, &cx.project_dir()));
    }
    // Each external extension declares itself as its EXTENSION.yaml says: listed with its
    // version and description (`Hooks::extensions`, `/extensions`), even before consent lets
    // any of its hooks or tools run.
    for extension in config.external_extensions() {
        let mut manifest = hookchain_core::Manifest::new(extension.name.clone())
            .at(extension.file.display().to_string());
        if let Some(version) = &extension.version {
            manifest = manifest.version(version.clone());
        }
        if let Some(description) = &extension.description {
            manifest = manifest.description(description.clone());
        }
        taken = taken.manifest(manifest);
    }
    *builder = taken.attach(report).attach(AdmittedTools(admitted_tools));
    Ok(())
}

/// The tools of external extensions that consent let run, kept on the registry.
struct AdmittedTools(Vec<ExternalTool>);

/// What every session hears when `hooks_enabled: false` is set at `at`.
pub(crate) fn master_switch_notice(at: &str) -> String {
    format!(
        "hooks are switched off ({at}: `hooks_enabled: false`): every extension and configured \
         hook is off except the `required` ones; switch them back on with `hookchain extensions \
         enable --all`"
    )
}

/// Switches off every extension of `hooks` that has no `required` hook, as `hooks_enabled:
/// false` (set at `at`) asks, each said to be switched off by it; returns their names. An
/// extension with a `required` hook stays on: a guard that must not vanish does not vanish
/// with the master switch either.
pub fn switch_off_all(hooks: &Hooks, at: &str) -> Vec<String> {
    let by: Arc<str> = format!("{at} (`hooks_enabled: false`)").into();
    let mut off = Vec::new();
    for extension in hooks.extensions() {
        let required = hooks
            .hooks()
            .iter()
            .any(|hook| hook.required && *hook.extension == *extension.name());
        if !required && extension.is_enabled() {
            extension.set_enabled_by(false, Arc::clone(&by));
            off.push(extension.name().to_owned());
        }
    }
    off
}

/// `true` when `extension` is the extension of a built-in guard or injector (with the `guards`
/// feature; `false` without it): for listings that say where an extension comes from.
pub fn is_builtin_guard(extension: &str) -> bool {
    #[cfg(feature = "guards")]
    {
        hookchain_guards::guard_for_section(extension) == Some(extension)
    }
    #[cfg(not(feature = "guards"))]
    {
        let _ = extension;
        false
    }
}

/// Why a required hook consent skipped does not run, and what to do:
/// "required hook `guard` (./hookchain.yaml:12) did not run: not approved — run `hookchain
/// approve guard`".
fn not_approved(skipped: &consent::SkippedHook) -> String {
    let why = match skipped.status {
        consent::ConsentStatus::Drifted { .. } => {
            "its script or settings changed since it was approved"
        }
        _ => "not approved",
    };
    format!(
        "required hook `{}` ({}) did not run: {why} — run `hookchain approve {}` (or pass \
         --accept-hooks)",
        skipped.name,
        skipped.origin.short(),
        skipped.name
    )
}

/// A hook with Claude Code's `if`: started only for the calls its rule matches; any other call
/// passes without it running, as in Claude Code.
struct OnlyIf {
    rule: crate::permission_rule::PermissionRule,
    inner: Arc<dyn hookchain_external::Invoke>,
}

impl hookchain_external::Invoke for OnlyIf {
    fn invoke(
        &self,
        payload: &[u8],
        timeout: std::time::Duration,
    ) -> Result<hookchain_external::RawOutput, hookchain_external::TransportError> {
        let matches = serde_json::from_slice::<serde_json::Value>(payload)
            .is_ok_and(|payload| self.rule.matches(&payload));
        if matches {
            self.inner.invoke(payload, timeout)
        } else {
            Ok(hookchain_external::RawOutput::default())
        }
    }
}

/// Reloads a registry's config and says what consent did: `use hookchain::prelude::*;` brings
/// it in.
pub trait ConfigHooksExt {
    /// Replaces the sections of every extension with the config's, as
    /// [`Hooks::set_sections`](hookchain_runtime::Hooks::set_sections) does: all or nothing, safe
    /// while other threads dispatch. The registry's external hooks were fixed when it was built:
    /// the config's hooks are not added (a warning says so).
    fn set_config(&self, config: Config) -> Result<(), ConfigError>;

    /// What consent did with the external hooks of the config the registry was built with:
    /// which run and why, which were skipped (new, or changed since approved) and the
    /// allowlist's errors. Empty when the registry was built without a config.
    fn consent_report(&self) -> &ConsentReport;

    /// The tools of the config's external extensions that consent let run (none when
    /// `hooks_enabled: false`), each with its runner ([`ExternalTool::run`]).
    fn external_tools(&self) -> &[ExternalTool];
}

impl ConfigHooksExt for Hooks {
    fn set_config(&self, config: Config) -> Result<(), ConfigError> {
        if !config.external_hooks().is_empty() {
            tracing::warn!(
                "set_config reloads extension sections only: the registry's external hooks were \
                 fixed when it was built, and the {} hook(s) of the new config are not added",
                config.external_hooks().len()
            );
        }
        self.set_sections(config.sections().clone())
    }

    fn consent_report(&self) -> &ConsentReport {
        static EMPTY: ConsentReport = ConsentReport {
            admitted: Vec::new(),
            skipped: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
        };
        self.attachment::<ConsentReport>().unwrap_or(&EMPTY)
    }

    fn external_tools(&self) -> &[ExternalTool] {
        self.attachment::<AdmittedTools>()
            .map_or(&[], |tools| tools.0.as_slice())
    }
}
