//! `hookchain doctor`: checks each config file on its own, the registry the agent would build
//! (extensions switched off, refusals, required hooks that do not run), then each configured
//! hook — its program, its consent and drift, and one timed firing of each approved hook.
//! Exit 1 on any problem.

mod firing;

use std::fmt::Write as _;
use std::path::PathBuf;

use hookchain_config::Config;
use hookchain_config::consent::{Consent, ConsentStatus};
use hookchain_external::hook::{self, invoker};
use hookchain_external::{ExternalHook, Transport};
use hookchain_runtime::{Hooks, HooksBuilder};

use crate::args::Cli;
use crate::outcome::{EXIT_ERROR, EXIT_OK, Failure, Io};
use crate::registry::{ON, compiled_in, configured_required, registry, state};
use crate::render::millis;
use crate::sources::{discovery_files, discovery_files_text, home_dir, load_consent};
use crate::target::one_line;
use firing::{describe_answer, fire_once, fire_wildcard_once};

/// Checks the config and every configured hook, and prints what it found.
pub(crate) fn doctor(cli: &Cli, hooks: HooksBuilder, io: &mut Io<'_>) -> Result<i32, Failure> {
    let mut report = Report::default();
    let config = report.load_each_file(cli);
    let consent = match load_consent(cli) {
        Ok(consent) => Some(consent),
        Err(Failure(error)) => {
            report.problem(&error);
            None
        }
    };
    let registry = registry(hooks, &config, consent.as_ref());
    report.check_registry(&registry, &config);

    let configured = config.external_hooks();
    let mut ok = 0usize;
    for hook in configured {
        let mut check = HookCheck {
            text: &mut report.text,
            problems: 0,
        };
        let external_state = state(&registry, config.extension_of(hook));
        check.hook(hook, &registry, consent.as_ref(), &external_state);
        if check.problems == 0 {
            ok += 1;
        } else {
            report.problems += 1;
        }
    }
    let (agents, agent_problems) = crate::install::doctor_lines();
    report.text.push_str(&agents);
    report.problems += agent_problems;
    let text = &mut report.text;
    let _ = write!(
        text,
        "{} configured hook(s): {ok} ok, {} with problems; {} config file(s) not loaded; {} \
         compiled-in hook(s) (not checked)",
        configured.len(),
        configured.len() - ok,
        report.load_errors,
        compiled_in(&registry).len()
    );
    if report.problems > 0 {
        let _ = write!(text, "; {} problem(s) in all", report.problems);
    }
    text.push('\n');
    io.out.write_all(text.as_bytes())?;
    Ok(if report.problems + report.load_errors == 0 {
        EXIT_OK
    } else {
        EXIT_ERROR
    })
}

/// What `doctor` prints, and what it counts.
#[derive(Default)]
struct Report {
    text: String,
    /// Problems of the config, the allowlist, the registry, and configured hooks (one each).
    problems: usize,
    /// Config files that could not be loaded.
    load_errors: usize,
}

impl Report {
    fn problem(&mut self, message: &str) {
        self.problems += 1;
        let _ = writeln!(self.text, "problem: {message}");
    }

    /// The config of the files of `--config`, or of those discovery finds, each loaded on its
    /// own so that one that cannot be loaded does not hide the others.
    fn load_each_file(&mut self, cli: &Cli) -> Config {
        let files: Vec<PathBuf> = if cli.config.is_empty() {
            discovery_files()
                .into_iter()
                .filter(|p| p.exists())
                .collect()
        } else {
            cli.config.clone()
        };
        let mut config = Config::new();
        for file in &files {
            match Config::load_lenient(file) {
                Ok(loaded) => config = config.merge(loaded),
                Err(error) => {
                    self.load_errors += 1;
                    let _ = writeln!(self.text, "problem: {error}");
                }
            }
        }
        if files.is_empty() {
            let _ = writeln!(
                self.text,
                "no config file: looked for {}; name one with --config FILE",
                discovery_files_text()
            );
        }
        // The external extensions of the user and the project: their hooks are checked with the
        // others, and what was left out of their files is a problem. Discovery also finds the
        // user's Hermes gateway hooks and enabled Python plugins.
        let config = config.merge(Config::discover_extensions(
            std::path::Path::new("."),
            home_dir().as_deref(),
        ));
        if cli.config.is_empty() {
            config.merge(Config::discover_hermes_python(home_dir().as_deref()))
        } else {
            config
        }
    }

    /// The extensions switched off, what a project's file tried to switch off (a problem: the
    /// line does not do what it says; the user's own file is where a guard is switched off),
    /// config left out, and the required hooks that do not run (a problem: their point blocks).
    fn check_registry(&mut self, registry: &Hooks, config: &Config) {
        for extension in registry.extensions() {
            if !extension.is_enabled() && extension.name() != hook::EXTENSION {
                let _ = writeln!(
                    self.text,
                    "extension `{}` ({} hook(s)) is {}: its hooks do not run",
                    extension.name(),
                    extension.hook_count(),
                    state(registry, extension.name())
                );
            }
        }
        let refused = registry.refusals();
        for warning in config.warnings() {
            if config.left_out().contains(warning) {
                self.problem(warning);
            } else if !refused.contains(warning) {
                let _ = writeln!(self.text, "note: {warning}");
            }
        }
        for refusal in &refused {
            self.problem(refusal);
        }
        // Missing (not linked, not approved, changed since approved): the registry's error
        // notices say which.
        let text = &self.text;
        for message in crate::registry::left_out(registry, |error| text.contains(error)) {
            self.problem(&message);
        }
        // Present, and switched off.
        for h in registry.hooks() {
            if h.required && state(registry, &h.extension) != ON {
                self.problem(&format!(
                    "required hook `{}` ({}) is {}: `{}` blocks until it is enabled again",
                    h.name,
                    h.location(),
                    state(registry, &h.extension),
                    h.point
                ));
            }
        }
    }
}

/// The lines of one configured hook, and how many of them are problems.
struct HookCheck<'a> {
    text: &'a mut String,
    problems: usize,
}

impl HookCheck<'_> {
    /// `  ok      MESSAGE` or `  problem MESSAGE`.
    fn line(&mut self, good: bool, message: &str) {
        if !good {
            self.problems += 1;
        }
        let mark = if good { "ok     " } else { "problem" };
        let _ = writeln!(self.text, "  {mark} {message}");
    }

    /// The heading of `hook`, then its program, consent and state, and one firing.
    fn hook(
        &mut self,
        hook: &ExternalHook,
        registry: &Hooks,
        consent: Option<&Consent>,
        external_state: &str,
    ) {
        let required = configured_required(registry, hook);
        let _ = writeln!(
            self.text,
            "{} ({} {} `{}`, {}){}",
            hook.name,
            hook.point,
            hook.transport.kind(),
            one_line(hook.transport.target()),
            hook.origin.short(),
            if required {
                ", required: its point blocks when it does not run"
            } else {
                ""
            }
        );
        let usable = self.program(hook);
        let approved = self.consent(hook, consent);
        if external_state != ON && required {
            self.line(
                false,
                &format!(
                    "{external_state}: it does not run, and `{}` blocks",
                    hook.point
                ),
            );
        } else if external_state != ON {
            let _ = writeln!(self.text, "  off     {external_state}: it does not run");
        }
        if !approved {
            let _ = writeln!(
                self.text,
                "  -       not fired: doctor runs only hooks that are approved and unchanged"
            );
        } else if usable {
            self.fire(hook);
        }
    }

    /// Whether `hook`'s program exists and is executable (and which script a `sh -c` line
    /// runs), or its URL is valid.
    fn program(&mut self, hook: &ExternalHook) -> bool {
        match &hook.transport {
            Transport::Command(spec) | Transport::Process(spec) => {
                match hookchain_external::program::resolve_program(spec) {
                    Ok(program) => {
                        let mut found = format!("program {} is executable", program.display());
                        if let Some(script) = hookchain_config::consent::script_of(spec)
                            && std::fs::canonicalize(&script).ok()
                                != std::fs::canonicalize(&program).ok()
                        {
                            let _ = write!(found, "; it runs the script {}", script.display());
                        }
                        self.line(true, &found);
                        true
                    }
                    Err(error) => {
                        self.line(
                            false,
                            &format!(
                                "{error}; fix the path in {} or the file's mode",
                                hook.origin.short()
                            ),
                        );
                        false
                    }
                }
            }
            Transport::Http(_) => match invoker(&hook.transport) {
                Ok(_) => {
                    self.line(true, "URL is valid");
                    true
                }
                Err(error) => {
                    self.line(false, &error.to_string());
                    false
                }
            },
        }
    }

    /// Whether `hook` is approved and unchanged since; a problem when it is new or drifted.
    fn consent(&mut self, hook: &ExternalHook, consent: Option<&Consent>) -> bool {
        let not_pinnable = hookchain_config::consent::not_pinnable(hook);
        match consent.map(|c| c.status(hook)) {
            Some(ConsentStatus::Approved) if not_pinnable.is_some() => {
                let why = not_pinnable.unwrap_or_default();
                self.line(
                    true,
                    &format!(
                        "approved as written; not pinnable: runs what the line computes ({why})"
                    ),
                );
                true
            }
            Some(ConsentStatus::Approved) => {
                self.line(true, "approved, unchanged since");
                true
            }
            Some(ConsentStatus::New) if not_pinnable.is_some() => {
                let why = not_pinnable.unwrap_or_default();
                self.line(
                    false,
                    &format!(
                        "not approved, so it does not run; not pinnable: runs what the line \
                         computes ({why}); only `hookchain approve {}` or a yes when asked \
                         approves it",
                        hook.name
                    ),
                );
                false
            }
            Some(ConsentStatus::New) => {
                self.line(
                    false,
                    &format!(
                        "not approved, so it does not run: approve it with `hookchain approve {}`",
                        hook.name
                    ),
                );
                false
            }
            Some(drifted @ ConsentStatus::Drifted { .. }) => {
                self.line(
                    false,
                    &format!(
                        "{drifted}, so it does not run: review it, then `hookchain approve {}`",
                        hook.name
                    ),
                );
                false
            }
            None => false,
        }
    }

    /// One timed firing of `hook` on a synthetic payload (a synthetic dispatch event for a
    /// wildcard hook, whose output is not read).
    fn fire(&mut self, hook: &ExternalHook) {
        if hookchain_core::Pattern::is_wildcard(hook.point) {
            match fire_wildcard_once(hook) {
                Ok((took, Ok(()))) => self.line(
                    true,
                    &format!(
                        "fired on a synthetic dispatch event in {}: it ended well (a wildcard \
                         hook's output is not read)",
                        millis(took)
                    ),
                ),
                Ok((took, Err(error))) => self.line(
                    false,
                    &format!(
                        "fired on a synthetic dispatch event in {}: {error}",
                        millis(took)
                    ),
                ),
                Err(Failure(error)) => self.line(false, &error),
            }
            return;
        }
        match with_point!(hook.point, fire_once(hook)) {
            Ok((took, Ok(answer))) => self.line(
                true,
                &format!(
                    "fired on a synthetic payload in {}: valid answer ({})",
                    millis(took),
                    describe_answer(&answer)
                ),
            ),
            Ok((took, Err(error))) => self.line(
                false,
                &format!(
                    "fired on a synthetic payload in {}: {error} (on_error: {})",
                    millis(took),
                    hook.on_error
                ),
            ),
            Err(Failure(error)) => self.line(false, &error),
        }
    }
}
