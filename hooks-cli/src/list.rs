//! `hookchain list`: two tables, the compiled-in hooks and the configured ones (with their
//! consent), then the notes — a drifted script, config left out or refused.

use std::fmt::Write as _;

use hookchain_config::Config;
use hookchain_config::consent::{Consent, ConsentStatus};
use hookchain_runtime::{Hooks, HooksBuilder};

use crate::args::Cli;
use crate::outcome::{EXIT_OK, Failure, Io};
use crate::registry::{compiled_in, configured_required, refusals, registry, state, with_required};
use crate::render::{consent_word, matcher_text, seconds};
use crate::sources::{discovery_files_text, load_config, load_consent};
use crate::table::table;
use crate::target::one_line;

/// Prints the hooks of `hooks` and of the config, with their state and consent.
pub(crate) fn list(cli: &Cli, hooks: HooksBuilder, io: &mut Io<'_>) -> Result<i32, Failure> {
    let (config, mut notes) = load_config(cli)?;
    let consent = load_consent(cli)?;
    let registry = registry(hooks, &config, Some(&consent));
    let mut text = compiled_section(&registry);
    text.push('\n');
    text.push_str(&configured_section(cli, &config, &consent, &registry));
    notes.extend(config.warnings().iter().cloned());
    notes.extend(refusals(&registry, &config));
    let left_out =
        crate::registry::left_out(&registry, |error| notes.iter().any(|n| n.contains(error)));
    notes.extend(left_out);
    for note in notes {
        let _ = writeln!(text, "note: {note}");
    }
    io.out.write_all(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// The table of the compiled-in hooks, or why there are none.
fn compiled_section(registry: &Hooks) -> String {
    let compiled = compiled_in(registry);
    if compiled.is_empty() {
        return "compiled-in hooks: none (this program links no #[register_hook] fn; an agent \
                lists its own by mounting hookchain::cli::run_with with its HooksBuilder)\n"
            .to_owned();
    }
    let mut text = format!("compiled-in hooks: {}\n", compiled.len());
    let rows: Vec<Vec<String>> = compiled
        .iter()
        .map(|h| {
            vec![
                h.point.to_owned(),
                h.priority.to_string(),
                h.name.to_string(),
                h.extension.to_string(),
                format!("{}:{}", h.file, h.line),
                with_required(state(registry, &h.extension), h.required),
            ]
        })
        .collect();
    text.push_str(&table(
        &[
            "point",
            "priority",
            "name",
            "extension",
            "location",
            "state",
        ],
        &rows,
        &[1],
    ));
    text
}

/// The table of the configured hooks with their consent, the notes on drifted scripts and how
/// to approve; or why there are none.
fn configured_section(cli: &Cli, config: &Config, consent: &Consent, registry: &Hooks) -> String {
    let configured = config.external_hooks();
    if configured.is_empty() {
        return no_configured_hooks(cli, config);
    }
    let mut text = format!(
        "configured hooks: {} (from {})\n",
        configured.len(),
        config.files().join(", ")
    );
    let mut notes = Vec::new();
    let rows: Vec<Vec<String>> = configured
        .iter()
        .map(|h| {
            let status = consent.status(h);
            if let ConsentStatus::Drifted { .. } = status {
                notes.push(format!("`{}`: {status}", h.name));
            }
            if let Some(why) = hookchain_config::consent::not_pinnable(h) {
                notes.push(format!(
                    "`{}`: not pinnable: runs what the line computes ({why}); only `hookchain \
                     approve {}` or a yes when asked approves it",
                    h.name, h.name
                ));
            }
            vec![
                h.point.to_owned(),
                h.priority.to_string(),
                h.name.clone(),
                matcher_text(h),
                seconds(h.timeout),
                h.transport.kind().to_owned(),
                one_line(h.transport.target()),
                h.origin.short().to_string(),
                with_required(
                    state(registry, config.extension_of(h)),
                    configured_required(registry, h),
                ),
                consent_word(&status).to_owned(),
            ]
        })
        .collect();
    text.push_str(&table(
        &[
            "point",
            "priority",
            "name",
            "matcher",
            "timeout",
            "transport",
            "target",
            "origin",
            "state",
            "consent",
        ],
        &rows,
        &[1],
    ));
    for note in notes {
        let _ = writeln!(text, "note: {note}");
    }
    if configured
        .iter()
        .any(|h| consent.status(h) != ConsentStatus::Approved)
    {
        text.push_str(
            "hooks that are not approved do not run: approve them with `hookchain approve \
             NAME...` (or --all)\n",
        );
    }
    text
}

/// Why the table of configured hooks is empty: no config file where it was looked for, or a
/// config without a `hooks:` section.
fn no_configured_hooks(cli: &Cli, config: &Config) -> String {
    if !config.files().is_empty() {
        return format!(
            "configured hooks: none ({} runs no script, worker or endpoint; those go in a \
             `hooks:` section)\n",
            config.files().join(", ")
        );
    }
    let looked = if cli.config.is_empty() {
        discovery_files_text()
    } else {
        let named: Vec<String> = cli.config.iter().map(|p| p.display().to_string()).collect();
        named.join(" and ")
    };
    format!(
        "configured hooks: none (no config file: looked for {looked}; name one with --config \
         FILE)\n"
    )
}
