//! `hookchain extensions list | enable NAME | disable NAME | enable --all | disable --all |
//! info NAME | doctor`: the extensions of the registry the agent would build — compiled in,
//! built-in guards, the configured hooks (`external`), and the external extensions of the user
//! and the project (`NAME/EXTENSION.yaml`) — and their switches.
//!
//! # The rules it keeps
//!
//! - The switches are kept in the user's own `~/.config/hookchain/hookchain.yaml` (`$HOME`):
//!   `extensions: {NAME: {enabled: false}}` for one extension, `hooks_enabled: false` for all
//!   (every extension and configured hook off but the required ones). A project's file cannot
//!   switch off what the user's turns on, so that is where a switch holds. The file is edited
//!   line by line, its comments and other lines kept
//!   ([`switch`](hookchain_config::switch)); when that cannot be done nothing is written and the
//!   error says what to write by hand. `list` says where the switches are kept.
//! - An unknown NAME is an error with a "did you mean", and nothing is written.
//! - `doctor` exits 1 when something cannot run: an external extension's hook or tool that is
//!   not approved or changed since, a part of an `EXTENSION.yaml` left out (a bad key, a
//!   schema that is not an object's, a script that does not exist), a project extension refused.

use std::fmt::Write as _;
use std::path::PathBuf;

use hookchain_config::consent::{Consent, ConsentStatus};
use hookchain_config::switch::{persist_extension_switch, persist_master_switch, user_config_file};
use hookchain_config::{Config, ExternalExtension, is_builtin_guard};
use hookchain_external::hook;
use hookchain_runtime::{Hooks, HooksBuilder};

use crate::args::{Cli, ExtensionsCommand, Switch};
use crate::outcome::{EXIT_ERROR, EXIT_OK, Failure, Io};
use crate::registry::{ON, registry, state};
use crate::render::consent_word;
use crate::sources::{home_dir, load_config, load_consent};
use crate::table::table;

/// Runs one `extensions` subcommand.
pub(crate) fn extensions(
    cli: &Cli,
    command: &ExtensionsCommand,
    hooks: HooksBuilder,
    io: &mut Io<'_>,
) -> Result<i32, Failure> {
    let (config, _) = load_config(cli)?;
    let consent = load_consent(cli)?;
    let registry = registry(hooks, &config, Some(&consent));
    let views = views(&registry, &config);
    match command {
        ExtensionsCommand::List => list(&views, &config, io),
        ExtensionsCommand::Enable(switch) => set(switch, true, &views, &config, io),
        ExtensionsCommand::Disable(switch) => set(switch, false, &views, &config, io),
        ExtensionsCommand::Info(name) => {
            let view = find(&views, &name.name)?;
            info(view, &registry, &config, &consent, io)
        }
        ExtensionsCommand::Doctor => doctor(&config, &consent, io),
    }
}

/// One extension, as the commands show it.
struct View<'a> {
    name: String,
    version: Option<String>,
    description: Option<String>,
    /// `on`, or `disabled by WHO`.
    state: String,
    hooks: usize,
    tools: usize,
    commands: usize,
    source: String,
    external: Option<&'a ExternalExtension>,
}

/// Every extension of the registry, then each external extension the registry does not have (its
/// hooks not approved, or it has none), sorted by name.
fn views<'a>(registry: &Hooks, config: &'a Config) -> Vec<View<'a>> {
    let master_off = match (config.hooks_enabled(), config.hooks_enabled_at()) {
        (Some(false), Some(at)) => Some(format!("disabled by {at} (`hooks_enabled: false`)")),
        _ => None,
    };
    let external = |name: &str| config.external_extensions().iter().find(|e| e.name == name);
    let mut views: Vec<View<'a>> = registry
        .extensions()
        .map(|extension| {
            let name = extension.name().to_owned();
            let ext = external(&name);
            let source = match ext {
                Some(ext) => ext.scope.to_string(),
                None if name == hook::EXTENSION => "configured hooks".to_owned(),
                None if name == "required" => "required hooks' stand-ins".to_owned(),
                None if is_builtin_guard(&name) => "built-in guard".to_owned(),
                None => "compiled-in".to_owned(),
            };
            View {
                version: ext
                    .and_then(|e| e.version.clone())
                    .or_else(|| extension.version().map(str::to_owned)),
                description: ext
                    .and_then(|e| e.description.clone())
                    .or_else(|| extension.description().map(str::to_owned)),
                state: match extension.enabled_by() {
                    Some(who) => format!("{ON} (enabled by {who})"),
                    None => state(registry, &name),
                },
                // An external extension counts what its file declares, approved or not.
                hooks: ext.map_or(0, |e| e.hooks.len()).max(extension.hook_count()),
                tools: match ext {
                    Some(e) => e.tools.len().max(extension.tools().len()),
                    None => extension.tools().len(),
                },
                commands: extension.commands().len(),
                source,
                external: ext,
                name,
            }
        })
        .collect();
    for ext in config.external_extensions() {
        if views.iter().any(|v| v.name == ext.name) {
            continue;
        }
        let state = match (config.enabled(&ext.name), &master_off) {
            (Some(false), _) => "disabled by its section (`enabled: false`)".to_owned(),
            (_, Some(off)) => off.clone(),
            _ => ON.to_owned(),
        };
        views.push(View {
            name: ext.name.clone(),
            version: ext.version.clone(),
            description: ext.description.clone(),
            state,
            hooks: ext.hooks.len(),
            tools: ext.tools.len(),
            commands: 0,
            source: ext.scope.to_string(),
            external: Some(ext),
        });
    }
    views.sort_by(|a, b| a.name.cmp(&b.name));
    views
}

/// The extension `name`, or an error with the closest name.
fn find<'v, 'a>(views: &'v [View<'a>], name: &str) -> Result<&'v View<'a>, Failure> {
    if let Some(view) = views.iter().find(|v| v.name == name) {
        return Ok(view);
    }
    let names: Vec<&str> = views.iter().map(|v| v.name.as_str()).collect();
    let hint = match hookchain_core::suggest::closest(name, names.iter().copied()) {
        Some(close) => format!(", did you mean `{close}`?"),
        None if names.is_empty() => " (there is none: see `hookchain extensions list`)".to_owned(),
        None => format!(" (the extensions are {})", names.join(", ")),
    };
    Err(Failure(format!("no extension `{name}`{hint}")))
}

/// Where the switches are kept.
fn user_file() -> Result<PathBuf, Failure> {
    home_dir()
        .map(|home| user_config_file(&home))
        .ok_or_else(|| {
            Failure(
                "no home directory (HOME is not set): the switches are kept in \
             ~/.config/hookchain/hookchain.yaml"
                    .to_owned(),
            )
        })
}

fn list(views: &[View<'_>], config: &Config, io: &mut Io<'_>) -> Result<i32, Failure> {
    let mut text = if views.is_empty() {
        "extensions: none (no hook is compiled in or configured, and no EXTENSION.yaml was \
         found under ~/.config/hookchain/extensions/ or ./.hookchain/extensions/)\n"
            .to_owned()
    } else {
        let rows: Vec<Vec<String>> = views
            .iter()
            .map(|v| {
                vec![
                    v.name.clone(),
                    v.version.clone().unwrap_or_else(|| "-".to_owned()),
                    v.hooks.to_string(),
                    v.tools.to_string(),
                    v.commands.to_string(),
                    v.source.clone(),
                    v.state.clone(),
                ]
            })
            .collect();
        let mut text = format!("extensions: {}\n", views.len());
        text.push_str(&table(
            &[
                "name", "version", "hooks", "tools", "commands", "source", "state",
            ],
            &rows,
            &[2, 3, 4],
        ));
        text
    };
    let file = match user_file() {
        Ok(file) => file.display().to_string(),
        Err(_) => "~/.config/hookchain/hookchain.yaml".to_owned(),
    };
    let _ = writeln!(
        text,
        "switches are kept in {file}: `extensions: {{NAME: {{enabled: false}}}}` for one \
         (`hookchain extensions enable|disable NAME`), `hooks_enabled: false` for all but the \
         required hooks (`hookchain extensions disable --all`)"
    );
    for warning in config.warnings() {
        let _ = writeln!(text, "note: {warning}");
    }
    io.out.write_all(text.as_bytes())?;
    Ok(EXIT_OK)
}

fn set(
    switch: &Switch,
    enabled: bool,
    views: &[View<'_>],
    config: &Config,
    io: &mut Io<'_>,
) -> Result<i32, Failure> {
    let word = if enabled { "on" } else { "off" };
    let file = user_file()?;
    let Some(name) = switch.name.as_deref().filter(|_| !switch.all) else {
        let edit = persist_master_switch(&file, enabled)?;
        let said = if edit.changed {
            "now says"
        } else {
            "already said"
        };
        let what = if enabled {
            "extensions and configured hooks are on again, each as its own switch says"
        } else {
            "every extension and configured hook is off but the required ones, and every \
             session says so when it starts"
        };
        writeln!(
            io.out,
            "hooks switched {word}: {} line {} {said} `hooks_enabled: {enabled}` (its other \
             lines are kept); {what}",
            edit.file.display(),
            edit.line
        )?;
        return Ok(EXIT_OK);
    };
    let view = find(views, name)?;
    let edit = persist_extension_switch(&file, &view.name, enabled)?;
    let said = if edit.changed {
        "now says"
    } else {
        "already said"
    };
    writeln!(
        io.out,
        "extension `{}` switched {word}: {} line {} {said} `enabled: {enabled}` under \
         `extensions: {}:` (its other lines are kept)",
        view.name,
        edit.file.display(),
        edit.line,
        view.name
    )?;
    if enabled && config.hooks_enabled() == Some(false) {
        writeln!(
            io.out,
            "note: `hooks_enabled: false` still switches every extension off: `hookchain \
             extensions enable --all` switches them back on"
        )?;
    }
    Ok(EXIT_OK)
}

fn info(
    view: &View<'_>,
    registry: &Hooks,
    config: &Config,
    consent: &Consent,
    io: &mut Io<'_>,
) -> Result<i32, Failure> {
    let mut text = format!("extension `{}`\n", view.name);
    let field = |text: &mut String, key: &str, value: &str| {
        let _ = writeln!(text, "  {key:<12}{value}");
    };
    field(&mut text, "version", view.version.as_deref().unwrap_or("-"));
    field(
        &mut text,
        "description",
        view.description.as_deref().unwrap_or("-"),
    );
    field(&mut text, "source", &view.source);
    field(&mut text, "state", &view.state);
    if let Some(ext) = view.external {
        field(&mut text, "file", &ext.file.display().to_string());
    }
    // Hooks: those in the registry, and those of an external extension not admitted.
    let hooks: Vec<Vec<String>> = registry
        .hooks()
        .iter()
        .filter(|h| *h.extension == *view.name)
        .map(|h| {
            vec![
                h.point.to_owned(),
                h.priority.to_string(),
                h.name.to_string(),
                h.location(),
                if h.required { "required" } else { "" }.to_owned(),
            ]
        })
        .collect();
    let _ = writeln!(text, "hooks: {}", hooks.len().max(view.hooks));
    if !hooks.is_empty() {
        text.push_str(&indent(&table(
            &["point", "priority", "name", "location", ""],
            &hooks,
            &[1],
        )));
    }
    if let Some(ext) = view.external {
        for (point, name) in &ext.hooks {
            let hook = config
                .external_hooks()
                .iter()
                .find(|h| h.point == *point && h.name == *name);
            if let Some(hook) = hook {
                let status = consent.status(hook);
                if status != ConsentStatus::Approved {
                    let _ = writeln!(
                        text,
                        "  {point} `{name}`: {} — does not run until approved: `hookchain \
                         approve {name}`",
                        consent_word(&status)
                    );
                }
            }
        }
        let _ = writeln!(text, "tools: {}", ext.tools.len());
        for tool in &ext.tools {
            let status = tool.consent_status(consent);
            let _ = writeln!(
                text,
                "  {} — {} ({}, timeout {}s, {})",
                tool.name,
                tool.description,
                tool.command.display,
                tool.timeout.as_secs_f64(),
                consent_word(&status)
            );
            let schema = serde_json::to_string_pretty(&tool.parameters)
                .unwrap_or_else(|_| tool.parameters.to_string());
            for line in schema.lines() {
                let _ = writeln!(text, "    {line}");
            }
        }
    } else {
        let _ = writeln!(text, "tools: {}", view.tools);
    }
    let _ = writeln!(text, "commands: {}", view.commands);
    match config.section(&view.name) {
        Some(section) if !section.is_empty() => {
            let _ = writeln!(text, "config section:");
            let section = serde_json::to_string_pretty(section).unwrap_or_default();
            for line in section.lines() {
                let _ = writeln!(text, "  {line}");
            }
        }
        _ => {
            let _ = writeln!(text, "config section: none");
        }
    }
    io.out.write_all(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// Indents every line of `text` by two spaces.
fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

fn doctor(config: &Config, consent: &Consent, io: &mut Io<'_>) -> Result<i32, Failure> {
    let mut text = String::new();
    let mut problems = 0usize;
    fn problem(text: &mut String, problems: &mut usize, line: String) {
        *problems += 1;
        let _ = writeln!(text, "  problem: {line}");
    }
    for ext in config.external_extensions() {
        let _ = writeln!(
            text,
            "extension `{}` ({}, {})",
            ext.name,
            ext.scope,
            ext.file.display()
        );
        let before = problems;
        for (point, name) in &ext.hooks {
            let Some(hook) = config
                .external_hooks()
                .iter()
                .find(|h| h.point == *point && h.name == *name)
            else {
                continue;
            };
            match consent.status(hook) {
                ConsentStatus::Approved => {}
                status => problem(
                    &mut text,
                    &mut problems,
                    format!(
                        "hook `{name}` ({point}) does not run: {status} — run `hookchain \
                         approve {name}`"
                    ),
                ),
            }
        }
        for tool in &ext.tools {
            match tool.consent_status(consent) {
                ConsentStatus::Approved => {}
                status => problem(
                    &mut text,
                    &mut problems,
                    format!(
                        "tool `{}` does not run: {status} — run `hookchain approve \"tool {}\"`",
                        tool.name, tool.name
                    ),
                ),
            }
        }
        // What was left out of this extension's file.
        let file = ext.file.display().to_string();
        for warning in config.warnings().iter().filter(|w| w.contains(&file)) {
            problem(&mut text, &mut problems, warning.clone());
        }
        if problems == before {
            let _ = writeln!(
                text,
                "  ok: {} hook(s) and {} tool(s) approved",
                ext.hooks.len(),
                ext.tools.len()
            );
        }
    }
    // What was left out of other extensions' files, or refused (a project extension with a user
    // extension's name, a file that could not be read at all): under a heading of its own, not
    // under the last extension listed.
    let files: Vec<String> = config
        .external_extensions()
        .iter()
        .map(|e| e.file.display().to_string())
        .collect();
    let others: Vec<&String> = config
        .warnings()
        .iter()
        .filter(|w| w.contains("EXTENSION.yaml") && !files.iter().any(|f| w.contains(f.as_str())))
        .collect();
    if !others.is_empty() {
        let _ = writeln!(text, "other extension files");
        for warning in others {
            problem(&mut text, &mut problems, warning.clone());
        }
    }
    if config.hooks_enabled() == Some(false) {
        let _ = writeln!(
            text,
            "note: `hooks_enabled: false` ({}): every extension and configured hook is off but \
             the required ones",
            config
                .hooks_enabled_at()
                .unwrap_or("the user's hookchain.yaml")
        );
    }
    let _ = writeln!(
        text,
        "{} external extension(s); {problems} problem(s)",
        config.external_extensions().len()
    );
    io.out.write_all(text.as_bytes())?;
    Ok(if problems == 0 { EXIT_OK } else { EXIT_ERROR })
}
