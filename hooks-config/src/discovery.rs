//! Discovery: the user's `~/.config/hookchain/hookchain.yaml`, then the project's
//! `./hookchain.yaml` put over it (see the crate's docs, "Where it comes from"), then the
//! external extensions of both ([`external_extension`](crate::external_extension)), then the
//! user's Hermes gateway hooks and enabled Python plugins
//! ([`hermes_python`](crate::hermes_python)).
//!
//! # The rules it keeps
//!
//! - A file that does not exist is skipped; the project's file is untrusted (it cannot approve
//!   its own hooks, nor switch off what the user's file turns on).
//! - [`Config::discover`] fails on a file that does not read or parse, and on any part of a file
//!   that cannot be loaded. [`Config::discover_lenient`] leaves out such a part only, with a
//!   warning (see the crate's docs, "When it is checked, and what is an error"), and still fails
//!   on a file that does not read or parse; the discovery of `init()` leaves such a file out
//!   whole, with its error and a warning every session hears — and each of its `required: true`
//!   hooks that can be made out still blocks its point, so a guard never vanishes with its file.

use std::path::{Path, PathBuf};

use hookchain_core::{ConfigError, PathSegment};
use yaml_serde::Value as Yaml;

use crate::config::Config;
use crate::entry::UnloadedRequired;
use crate::file::{self, home_dir};
use crate::hookchain_file::{CONFIG_FILE, untrusted};
use crate::load::is_docker_agent;
use crate::position::{locate, yaml_key};

impl Config {
    /// Every hook file `dialect`'s agent loads for a session in the current directory, as that
    /// agent finds them, so the hooks written for it run in this program:
    ///
    /// | dialect | files |
    /// |---|---|
    /// | hookchain | [`discover`](Config::discover) |
    /// | Claude Code | `~/.claude/settings.json`, then the project's `.claude/settings.json` and `.claude/settings.local.json` |
    /// | Codex | [`discover_codex_from`](Config::discover_codex_from) |
    /// | Gemini CLI | [`discover_gemini_from`](Config::discover_gemini_from) |
    /// | Cursor | [`discover_cursor`](Config::discover_cursor) |
    /// | Copilot | [`discover_copilot_from`](Config::discover_copilot_from) |
    /// | Hermes | `~/.hermes/config.yaml` (its gateway hooks and plugins come with [`discover`](Config::discover)) |
    ///
    /// docker-agent's and Starchild's hooks live in files a user names (an agent YAML, a
    /// `shell_hooks.yaml`), and Pi's in `hookchain.yaml`: for those the result is empty, with a
    /// warning saying to load the file with [`load`](Config::load). The project's files are
    /// untrusted: their hooks run once the user approves them ([`consent`](crate::consent)).
    ///
    /// ```no_run
    /// use hookchain::Dialect;
    /// use hookchain::config::Config;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let config = Config::discover()?.merge(Config::discover_agent(Dialect::Codex)?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn discover_agent(dialect: hookchain_core::Dialect) -> Result<Config, ConfigError> {
        use hookchain_core::Dialect;
        let project = Path::new(".");
        let home = home_dir();
        match dialect {
            Dialect::Hookchain => Config::discover(),
            Dialect::ClaudeCode => Config::discover_claude_from(project, home.as_deref()),
            Dialect::Codex => Config::discover_codex_from(project, home.as_deref()),
            Dialect::Gemini => Config::discover_gemini_from(project, home.as_deref()),
            Dialect::Cursor => Config::discover_cursor(),
            Dialect::Copilot => Config::discover_copilot_from(project, home.as_deref()),
            Dialect::Hermes => match &home {
                Some(home) => {
                    let path = home.join(".hermes").join("config.yaml");
                    match file::read_text(&path)? {
                        Some(_) => Config::load_hermes(&path),
                        None => Ok(Config::new()),
                    }
                }
                None => Ok(Config::new()),
            },
            other => {
                let mut config = Config::new();
                config.warnings.push(format!(
                    "{other}'s hooks are in a file of its own that hookchain cannot find by \
                     itself: load it with `Config::load(PATH)` (or `hookchain --config PATH`)"
                ));
                Ok(config)
            }
        }
    }

    /// Claude Code's settings files for a session in `project_dir`, in Claude Code's order:
    /// `home_dir/.claude/settings.json` (the user's), then the project's
    /// `.claude/settings.json` and `.claude/settings.local.json` (untrusted). Files that do not
    /// exist are skipped; one that does not parse is an error.
    pub fn discover_claude_from(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        let mut files: Vec<(PathBuf, bool)> = Vec::new();
        if let Some(home) = home_dir {
            files.push((home.join(".claude").join("settings.json"), false));
        }
        let claude = project_dir.join(".claude");
        files.push((claude.join("settings.json"), true));
        files.push((claude.join("settings.local.json"), true));
        let canonical: Vec<PathBuf> = files
            .iter()
            .map(|(path, _)| std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()))
            .collect();
        let mut config = Config::new();
        for (index, (path, is_project)) in files.iter().enumerate() {
            // A session in the home directory: its project's file is the user's, read once.
            if canonical[..index].contains(&canonical[index]) {
                continue;
            }
            if file::read_text(path)?.is_none() {
                continue;
            }
            let loaded = Config::load_claude_settings(path)?;
            config = config.merge(discovered(loaded, *is_project));
        }
        Ok(config)
    }

    /// The config of the current directory's project over the user's: `./hookchain.yaml` over
    /// `~/.config/hookchain/hookchain.yaml` (`$HOME`). Files that do not exist are skipped; a
    /// file that does not read or parse is an error.
    pub fn discover() -> Result<Config, ConfigError> {
        Config::discover_from(Path::new("."), home_dir().as_deref())
    }

    /// [`discover`](Config::discover) with the directories given: `project_dir/hookchain.yaml`
    /// over `home_dir/.config/hookchain/hookchain.yaml` (no global file when `home_dir` is
    /// `None`).
    pub fn discover_from(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        discover_with(project_dir, home_dir, load_if_present)
    }

    /// [`discover`](Config::discover), lenient as [`init`](crate::init) is: a part of a file
    /// that cannot be loaded — a hook entry with an unknown point or key, a program that does
    /// not exist, a bad matcher or time limit; a section that is not a mapping; an unknown
    /// top-level key — costs that part only: it is left out with a warning
    /// ([`warnings`](Config::warnings)) naming the file, the line and the fix, which every
    /// session hears through `notification` once the config is loaded into a registry, and a
    /// `required: true` hook left out blocks its point. A file that does not read or parse as
    /// YAML is an error.
    pub fn discover_lenient() -> Result<Config, ConfigError> {
        Config::discover_lenient_from(Path::new("."), home_dir().as_deref())
    }

    /// [`discover_lenient`](Config::discover_lenient) with the directories given, as
    /// [`discover_from`](Config::discover_from) takes them.
    pub fn discover_lenient_from(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        discover_with(project_dir, home_dir, load_lenient_if_present)
    }

    /// [`discover_lenient_from`](Config::discover_lenient_from), leaving out each file that
    /// does not read or parse, with the errors: what `init()` installs.
    pub(crate) fn discover_leaving_out(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> (Config, Vec<ConfigError>) {
        let mut config = Config::new();
        let mut errors = Vec::new();
        let files = discovered_files(project_dir, home_dir);
        let project = files.len() - 1;
        for (index, path) in files.iter().enumerate() {
            match load_lenient_if_present(path) {
                Ok(Some(file)) => config = config.merge(discovered(file, index == project)),
                Ok(None) => {}
                Err(error) => {
                    config = config.merge(Config::left_out_whole(path, &error));
                    errors.push(error);
                }
            }
        }
        let config = config
            .merge(Config::discover_extensions(project_dir, home_dir))
            .merge(Config::discover_hermes_python(home_dir));
        (config, errors)
    }

    /// What is left of a config file that failed to load with `error` and is left out whole:
    /// a warning saying so, which every session hears (never a silent "no config file"), and
    /// the file's `required: true` hooks, each of which blocks its point with a reason naming
    /// the hook, its file and line, and the error — a guard never vanishes with its file. Those
    /// are found as well as the file can be read: a file that is not YAML at all, or not a
    /// `hookchain.yaml`, has none.
    pub(crate) fn left_out_whole(path: &Path, error: &ConfigError) -> Config {
        let name = path.display().to_string();
        let warning = format!(
            "{error}: the whole file is left out — none of its hooks or sections apply, and \
             each of its `required: true` hooks blocks its point — until it is fixed"
        );
        tracing::warn!("{warning}");
        let mut config = Config {
            left_out_files: vec![name.clone()],
            warnings: vec![warning.clone()],
            notices: vec![warning],
            ..Config::default()
        };
        let Ok(Some(text)) = file::read_text(path) else {
            return config;
        };
        if path.extension().is_some_and(|e| e == "json") || is_docker_agent(&text) {
            return config;
        }
        let Ok(Yaml::Mapping(top)) = yaml_serde::from_str::<Yaml>(&text) else {
            return config;
        };
        let Some(Yaml::Mapping(events)) = top.get("hooks") else {
            return config;
        };
        // Every item of every list is an entry, numbered in file order as `name_entries` does.
        let items: Vec<(String, usize, &Yaml)> = events
            .iter()
            .flat_map(|(event, list)| {
                let event = yaml_key(event);
                let items = match list {
                    Yaml::Sequence(items) => items.iter().collect(),
                    _ => Vec::new(),
                };
                items
                    .into_iter()
                    .enumerate()
                    .map(move |(index, item)| (event.clone(), index, item))
            })
            .collect();
        let width = items.len().to_string().len().max(2);
        for (number, (event, index, item)) in items.iter().enumerate() {
            if item.get("required") != Some(&Yaml::Bool(true)) {
                continue;
            }
            let Some(point) = hookchain_core::points::resolve(event) else {
                continue;
            };
            let hook = match item.get("name").and_then(Yaml::as_str) {
                Some(hook) => hook.to_owned(),
                None => format!("{name}#{:0width$}", number + 1),
            };
            let at = [
                PathSegment::Key("hooks".to_owned()),
                PathSegment::Key(event.clone()),
                PathSegment::Index(*index),
            ];
            let at = match locate(&text, &at) {
                Some(line) => format!("{name}:{line}"),
                None => name.clone(),
            };
            config.unloaded_required.push(UnloadedRequired {
                point: point.name,
                reason: format!(
                    "required hook `{hook}` ({at}) did not run: its file was left out because \
                     it failed to load: {error}"
                ),
                name: hook,
            });
        }
        config
    }
}

impl Config {
    /// Every hooks file Codex loads for a session in `project_dir`, in Codex's order (see
    /// [`external::codex`](crate::codex)): the user's `~/.codex/hooks.json` and
    /// `~/.codex/config.toml` (under `home_dir`; none when it is `None`), then the project's
    /// `.codex/hooks.json` and `.codex/config.toml`. Every hook of every file runs, as in
    /// Codex; the project's are the project's (they cannot approve themselves: [`consent`]
    /// asks). The user's `config.toml` switches hooks off as Codex reads it: `[features] hooks
    /// = false` leaves every hook out, `[hooks.state."<key>"] enabled = false` one hook; each
    /// with a warning. A layer with both files loads both, with Codex's warning. Files that do
    /// not exist are skipped; one that does not parse is an error.
    ///
    /// [`consent`]: crate::consent
    pub fn discover_codex_from(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        let mut config = Config::new();
        let user_dir = home_dir.map(|home| home.join(".codex"));
        let mut state = crate::codex::UserState::default();
        if let Some(dir) = &user_dir {
            let toml = dir.join("config.toml");
            if let Some(text) = file::read_text(&toml)? {
                state = crate::codex::user_state(&toml.display().to_string(), &text);
            }
        }
        if let Some(off) = &state.hooks_off {
            let warning = format!(
                "{off}: hooks are switched off in the user's ~/.codex/config.toml, so none of \
                 Codex's hooks runs"
            );
            tracing::warn!("{warning}");
            config.warnings.push(warning.clone());
            config.notices.push(warning);
            return Ok(config);
        }
        let layers = user_dir
            .into_iter()
            .map(|dir| (dir, true))
            .chain([(project_dir.join(".codex"), false)]);
        for (dir, user) in layers {
            let mut found = Vec::new();
            for name in ["hooks.json", "config.toml"] {
                let path = dir.join(name);
                let Some(text) = file::read_text(&path)? else {
                    continue;
                };
                let shown = path.display().to_string();
                let layer = Config::codex(&text, &shown, Some(user), &state)?;
                found.push(shown);
                config = config.merge(discovered(layer, !user));
            }
            if let [json, toml] = found.as_slice() {
                let warning = format!(
                    "{} has hooks in both {json} and {toml}: both load, as in Codex, which \
                     prefers a single representation per layer",
                    dir.display()
                );
                config.warnings.push(warning.clone());
                config.notices.push(warning);
            }
        }
        Ok(config)
    }
}

impl Config {
    /// Every settings file Gemini CLI loads hooks from for a session in `project_dir` (see
    /// [`external::gemini`](crate::gemini)): the project's `.gemini/settings.json`, the user's
    /// `~/.gemini/settings.json` (under `home_dir`; none when it is `None`) and the system's
    /// (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else `/etc/gemini-cli/settings.json`), in Gemini
    /// CLI's order; [`discover_gemini_in`](Config::discover_gemini_in) names the system's file.
    pub fn discover_gemini_from(
        project_dir: &Path,
        home_dir: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        let system = crate::gemini::system_settings();
        Config::discover_gemini_in(project_dir, home_dir, Some(&system))
    }

    /// [`discover_gemini_from`](Config::discover_gemini_from) with the system's settings file
    /// given (`None`: none). Every hook of every file runs, as in Gemini CLI; the project's are
    /// the project's (they cannot approve themselves: [`consent`] asks). The user's and the
    /// system's `hooksConfig` switch hooks off as Gemini CLI reads it: `enabled: false` leaves
    /// every hook out, `disabled` the hooks it names, in every file; a project's `hooksConfig`
    /// switches off its own hooks only. Each with a warning. Files that do not exist are
    /// skipped; one that does not parse is an error.
    ///
    /// [`consent`]: crate::consent
    pub fn discover_gemini_in(
        project_dir: &Path,
        home_dir: Option<&Path>,
        system: Option<&Path>,
    ) -> Result<Config, ConfigError> {
        let mut config = Config::new();
        let user = home_dir.map(|home| home.join(".gemini").join("settings.json"));
        let shared: Vec<PathBuf> = user
            .into_iter()
            .chain(system.map(Path::to_path_buf))
            .collect();
        let mut switches = crate::gemini::Switches::default();
        for path in &shared {
            if let Some(text) = file::read_text(path)? {
                let found = crate::gemini::switches(&path.display().to_string(), &text);
                switches.disabled.extend(found.disabled);
                switches.hooks_off = switches.hooks_off.or(found.hooks_off);
            }
        }
        if let Some(off) = &switches.hooks_off {
            let warning = format!(
                "{off}: `hooksConfig.enabled` is false, so none of Gemini CLI's hooks runs"
            );
            tracing::warn!("{warning}");
            config.warnings.push(warning.clone());
            config.notices.push(warning);
            return Ok(config);
        }
        let project = project_dir.join(".gemini").join("settings.json");
        let files = std::iter::once((project, false)).chain(shared.into_iter().map(|p| (p, true)));
        for (path, user) in files {
            let Some(text) = file::read_text(&path)? else {
                continue;
            };
            let shown = path.display().to_string();
            let file = Config::gemini(&text, &shown, Some(user), &switches)?;
            config = config.merge(discovered(file, !user));
        }
        Ok(config)
    }
}

/// The global file, then the project's.
fn discovered_files(project_dir: &Path, home_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(home) = home_dir {
        files.push(home.join(".config").join("hookchain").join(CONFIG_FILE));
    }
    files.push(project_dir.join(CONFIG_FILE));
    files
}

/// A discovered file: a project's file cannot let its own hooks run unapproved.
fn discovered(file: Config, is_project: bool) -> Config {
    if is_project {
        untrusted(file, true)
    } else {
        file
    }
}

/// The discovered files, each read with `load` (`None` when it does not exist), the project's
/// put over the user's.
fn discover_with(
    project_dir: &Path,
    home_dir: Option<&Path>,
    load: fn(&Path) -> Result<Option<Config>, ConfigError>,
) -> Result<Config, ConfigError> {
    let mut config = Config::new();
    let files = discovered_files(project_dir, home_dir);
    let project = files.len() - 1;
    for (index, path) in files.iter().enumerate() {
        if let Some(file) = load(path)? {
            config = config.merge(discovered(file, index == project));
        }
    }
    Ok(config
        .merge(Config::discover_extensions(project_dir, home_dir))
        .merge(Config::discover_hermes_python(home_dir)))
}

fn load_if_present(path: &Path) -> Result<Option<Config>, ConfigError> {
    match file::read_text(path)? {
        Some(text) => Config::from_yaml_trusted(&text, &path.display().to_string()).map(Some),
        None => Ok(None),
    }
}

fn load_lenient_if_present(path: &Path) -> Result<Option<Config>, ConfigError> {
    match file::read_text(path)? {
        Some(text) => Config::from_yaml_lenient(&text, &path.display().to_string()).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `init()` discovers: a file that does not parse is left out whole, with its
    /// error; the other file still applies.
    #[test]
    fn lenient_discovery_leaves_out_a_broken_file() {
        let root = tempfile::tempdir().unwrap();
        let (project, home) = (root.path().join("project"), root.path().join("home"));
        let global_dir = home.join(".config").join("hookchain");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&global_dir).unwrap();
        std::fs::write(
            global_dir.join(CONFIG_FILE),
            "extensions:\n  guard:\n    plan_path: global.md\n",
        )
        .unwrap();
        std::fs::write(project.join(CONFIG_FILE), "extensions:\n  guard: [\n").unwrap();
        let (config, errors) = Config::discover_leaving_out(&project, Some(&home));
        assert_eq!(config.section("guard").unwrap()["plan_path"], "global.md");
        assert_eq!(errors.len(), 1, "{errors:?}");
        let message = errors[0].to_string();
        let project_file = project.join(CONFIG_FILE).display().to_string();
        assert!(
            message.starts_with(&format!("{project_file} line 3 column 1: invalid YAML: ")),
            "{message}"
        );
    }
}
