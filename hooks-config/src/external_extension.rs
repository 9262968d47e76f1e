//! External extensions: a directory `NAME/EXTENSION.yaml` under the user's
//! `~/.config/hookchain/extensions/` or the project's `./.hookchain/extensions/`, contributing
//! hooks and command-backed tools with no code.
//!
//! ```yaml
//! # ~/.config/hookchain/extensions/notes/EXTENSION.yaml
//! name: notes                # optional; when given, it must be the directory's name
//! version: 0.2.0
//! description: Keeps notes for the agent
//! hooks:                     # exactly the `hooks:` of a hookchain.yaml
//!   intercept_tool_call:
//!     - command: ./guard.sh  # relative to the extension's directory
//! tools:
//!   - name: add_note
//!     description: Adds a note
//!     parameters:            # a JSON Schema object
//!       type: object
//!       properties: {text: {type: string}}
//!       required: [text]
//!     command: ./add_note.sh # gets the call's JSON arguments on stdin
//!     timeout: 10            # seconds: default 60, at most 600
//! ```
//!
//! # The rules it keeps
//!
//! - **The directory names the extension.** `enable NAME`, consent's messages and the section
//!   `NAME:` of the user's `hookchain.yaml` all go by the directory, which cannot be changed by
//!   editing the file; a `name:` that says otherwise is an error naming the file and line (the
//!   fix: make them the same, or remove `name`), and the extension is left out.
//! - **Its hooks are a `hookchain.yaml`'s**, read by the same reader ([`native`]),
//!   with the same errors, names (`<file>#<n>`) and consent; they belong to the extension
//!   `NAME`, so `extensions: {NAME: {enabled: false}}` switches them off (and its tools, which
//!   carry `extension: NAME`, once they are registered as the registry's tools).
//! - **Pinned to its content.** Every command of the extension (hooks and tools) runs with
//!   `HOOKCHAIN_EXTENSION` (its name), `HOOKCHAIN_EXTENSION_DIR` (its directory) and
//!   `HOOKCHAIN_EXTENSION_SHA256` (the SHA-256 of its `EXTENSION.yaml`) in its environment. A
//!   hook's environment is part of what consent pins, so an approval covers the
//!   `EXTENSION.yaml` as well as each script its commands name: editing either makes the hook
//!   drifted, and it does not run until approved again. (An HTTP hook of an extension is pinned
//!   by its URL and headers, as in a `hookchain.yaml`.) Tools are approved the same way, each
//!   as the command it runs ([`ExternalTool::consent_hook`]).
//! - **A project adds, never replaces.** A project extension with the name of one of the user's
//!   is refused, with a notice every session hears: the user's stays. A project's files cannot
//!   switch off a user's extension (see the crate's docs, "What a project file cannot switch
//!   off").
//! - **One bad part costs that part only**: a hook entry or a tool that cannot be loaded is left
//!   out with a warning naming the file, the line and the fix; a file that does not parse
//!   leaves its extension out whole, with a warning. Every such warning is heard by every
//!   session through `notification`.
//! - **A tool is a command**, run by the `command` transport of
//!   [`hookchain_external`] (its own process group, killed on every way out; its time limit;
//!   stdout and stderr capped): the call's JSON arguments on stdin; what it prints on stdout is
//!   the result, as JSON, or as a JSON string when it is not JSON; an exit code other than 0 is
//!   an error result the model can read, with what it printed on stderr.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookchain_core::suggest::closest;
use hookchain_core::{ConfigError, ConfigOrigin, ConfigSource, PathSegment};
use hookchain_external::{
    CommandSpec, Dialect, ExternalHook, Matcher, OnError, Transport, TransportError,
};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use yaml_serde::Value as Yaml;

use crate::config::Config;
use crate::consent::{Consent, ConsentStatus};
use crate::entry::{FileContext, at};
use crate::file;
use crate::native;
use crate::position::{locate, syntax, yaml_key, yaml_kind};

/// The file that makes a directory an external extension.
pub const EXTENSION_FILE: &str = "EXTENSION.yaml";

/// The default time limit of a tool.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// The keys an `EXTENSION.yaml` may have at its top level.
const TOP_LEVEL_KEYS: [&str; 5] = ["name", "version", "description", "hooks", "tools"];

/// The keys of one tool.
const TOOL_KEYS: [&str; 5] = ["name", "description", "parameters", "command", "timeout"];

/// The consent "event" a tool is approved under (tools have no point).
pub const TOOL_EVENT: &str = "extension_tool";

/// Where an external extension was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExtensionScope {
    /// `~/.config/hookchain/extensions/NAME/`: the user's.
    User,
    /// `./.hookchain/extensions/NAME/`: the project's.
    Project,
}

impl fmt::Display for ExtensionScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExtensionScope::User => "user external",
            ExtensionScope::Project => "project external",
        })
    }
}

/// One external extension, as its `EXTENSION.yaml` describes it. Its hooks are among the
/// config's [`external_hooks`](Config::external_hooks); this keeps their names.
#[derive(Debug, Clone)]
pub struct ExternalExtension {
    /// Its name: the name of its directory.
    pub name: String,
    /// `version`, when the file gives one.
    pub version: Option<String>,
    /// `description`, when the file gives one.
    pub description: Option<String>,
    /// Its `EXTENSION.yaml`.
    pub file: PathBuf,
    /// The user's or the project's.
    pub scope: ExtensionScope,
    /// The SHA-256 (hex) of its `EXTENSION.yaml`.
    pub sha256: String,
    /// The names of its hooks, with their points, in file order.
    pub hooks: Vec<(&'static str, String)>,
    /// Its tools, in file order.
    pub tools: Vec<ExternalTool>,
}

/// A tool of an external extension: an external command that gets the call's JSON arguments on
/// stdin and prints the result.
///
/// It has the fields of a `ToolSpec` (`name`, `description`, `parameters`, `extension`) and a
/// runner, [`run`](ExternalTool::run), to register as the tool's handler.
#[derive(Debug, Clone)]
pub struct ExternalTool {
    /// The tool's name, as the model calls it.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its arguments (an object schema).
    pub parameters: Value,
    /// The extension it belongs to.
    pub extension: String,
    /// The command it runs.
    pub command: CommandSpec,
    /// Its time limit.
    pub timeout: Duration,
    /// Where it is configured.
    pub origin: ConfigOrigin,
    /// What consent pinned when the registry let it run (`Some(None)`: pinned by its command
    /// line alone); `None` for a tool that did not go through consent.
    pub(crate) approved: Option<Option<String>>,
}

impl ExternalTool {
    /// Runs the tool once: `args` as JSON on its stdin, in `project_dir`, within its time limit.
    /// A tool of [`ConfigHooksExt::external_tools`](crate::ConfigHooksExt::external_tools) —
    /// one consent let run — first checks that its script and settings are still the ones
    /// approved, and fails without running when they are not.
    ///
    /// What it prints on stdout is the result: parsed as JSON, or, when it is not JSON, the
    /// text (trimmed of its last newline) as a JSON string; nothing printed is `null`. An exit
    /// code other than 0, a time limit passed, a program that cannot start or output over the
    /// cap is an `Err` whose text the model can read, with what the tool printed on stderr.
    ///
    /// ```no_run
    /// use hookchain::config::ExternalTool;
    /// use serde_json::json;
    ///
    /// # fn get(tool: &ExternalTool) {
    /// match tool.run(json!({"text": "hi"}), std::path::Path::new(".")) {
    ///     Ok(result) => println!("{result}"),
    ///     Err(error) => println!("the model reads: {error}"),
    /// }
    /// # }
    /// ```
    pub fn run(&self, args: Value, project_dir: &Path) -> Result<Value, String> {
        // A tool the registry let run is checked again at every call, as a hook is at every
        // firing: an edited script does not run.
        if let Some(approved) = &self.approved
            && crate::consent::pin_hash(&self.consent_hook()) != *approved
        {
            return Err(format!(
                "tool `{}` ({}): its script or settings changed since it was approved; it does \
                 not run until it is approved again: `hookchain approve \"tool {}\"`",
                self.name, self.extension, self.name
            ));
        }
        let mut spec = self.command.clone();
        if spec.working_dir.is_none() {
            spec.working_dir = Some(project_dir.to_path_buf());
        }
        let fail = |why: String| format!("tool `{}` ({}): {why}", self.name, self.extension);
        // The `command` transport of hooks: a missing program is an error here, before anything
        // is spawned.
        let command = hookchain_external::hook::invoker(&Transport::Command(spec))
            .map_err(|e| fail(e.to_string()))?;
        let payload = serde_json::to_vec(&args).map_err(|e| fail(e.to_string()))?;
        let output = command
            .invoke(&payload, self.timeout)
            .map_err(|e| match e {
                TransportError::Timeout(_) => fail(format!(
                    "did not answer within its time limit of {} seconds",
                    self.timeout.as_secs_f64()
                )),
                other => fail(other.to_string()),
            })?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.exit_code {
            Some(0) | None => {}
            Some(code) => {
                let said = match (stderr.trim(), stdout.trim()) {
                    ("", "") => String::new(),
                    ("", out) => format!(": {out}"),
                    (err, _) => format!(": {err}"),
                };
                return Err(fail(format!("exited with code {code}{said}")));
            }
        }
        let text = stdout.strip_suffix('\n').unwrap_or(&stdout);
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.trim().is_empty() {
            return Ok(Value::Null);
        }
        Ok(serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())))
    }

    /// The tool as consent sees it: an external command under the event [`TOOL_EVENT`], named
    /// `tool NAME`, pinned like a hook to its command line, its environment (and so its
    /// extension's `EXTENSION.yaml`) and its script.
    pub fn consent_hook(&self) -> ExternalHook {
        ExternalHook {
            point: TOOL_EVENT,
            event: TOOL_EVENT.to_owned(),
            name: format!("tool {}", self.name),
            transport: Transport::Command(self.command.clone()),
            matcher: Matcher::default(),
            timeout: self.timeout,
            priority: 0,
            on_error: OnError::Block,
            dialect: Dialect::Hookchain,
            origin: self.origin.clone(),
            required: false,
        }
    }

    /// Whether the tool may run under `consent`: approved, new, or changed since approved.
    pub fn consent_status(&self, consent: &Consent) -> ConsentStatus {
        consent.status(&self.consent_hook())
    }
}

/// The user's extensions directory under `home`: `home/.config/hookchain/extensions`.
pub fn user_extensions_dir(home: &Path) -> PathBuf {
    home.join(".config").join("hookchain").join("extensions")
}

/// The project's extensions directory: `project_dir/.hookchain/extensions`.
pub fn project_extensions_dir(project_dir: &Path) -> PathBuf {
    project_dir.join(".hookchain").join("extensions")
}

impl Config {
    /// The external extensions found, the user's first, then the project's, each sorted by
    /// name.
    pub fn external_extensions(&self) -> &[ExternalExtension] {
        &self.external_extensions
    }

    /// The extension `hook` (one of [`external_hooks`](Config::external_hooks)) belongs to:
    /// its external extension's name, or `external`
    /// ([`hook::EXTENSION`](hookchain_external::hook::EXTENSION)) for a hook of a config file.
    pub fn extension_of(&self, hook: &ExternalHook) -> &str {
        self.hook_extensions
            .iter()
            .find(|(point, name, _)| *point == hook.point && *name == hook.name)
            .map_or(hookchain_external::hook::EXTENSION, |(_, _, extension)| {
                extension.as_str()
            })
    }

    /// The tools of every external extension, in the order of
    /// [`external_extensions`](Config::external_extensions).
    pub fn external_tools(&self) -> impl Iterator<Item = &ExternalTool> {
        self.external_extensions.iter().flat_map(|e| e.tools.iter())
    }

    /// The external extensions of the user (`home_dir/.config/hookchain/extensions/`) and of the
    /// project (`project_dir/.hookchain/extensions/`), as a config to put over the files': their
    /// hooks, their tools, and what was left out, with a warning every session hears (see the
    /// [module docs](crate::external_extension)).
    pub fn discover_extensions(project_dir: &Path, home_dir: Option<&Path>) -> Config {
        let mut config = Config::new();
        let mut scopes = Vec::new();
        if let Some(home) = home_dir {
            scopes.push((ExtensionScope::User, user_extensions_dir(home)));
        }
        scopes.push((ExtensionScope::Project, project_extensions_dir(project_dir)));
        let mut seen_dirs: Vec<PathBuf> = Vec::new();
        for (scope, dir) in scopes {
            // The project's directory and the user's can be one (a project in the home
            // directory): read it once, as the user's.
            let canonical = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
            if seen_dirs.contains(&canonical) {
                continue;
            }
            seen_dirs.push(canonical);
            for (name, file) in extension_files(&dir, &mut config) {
                if scope == ExtensionScope::Project
                    && let Some(user) = config
                        .external_extensions
                        .iter()
                        .find(|e| e.name == name && e.scope == ExtensionScope::User)
                {
                    let notice = format!(
                        "{}: the project's extension `{name}` is refused: the user's extension \
                         of that name ({}) stays; rename the project's directory to add it",
                        file.display(),
                        user.file.display()
                    );
                    config.warn(notice);
                    continue;
                }
                match load(&name, &file, scope) {
                    Ok(loaded) => config = config.merge(loaded),
                    Err(error) => config.warn(format!(
                        "{error}: the extension `{name}` is left out — none of its hooks or \
                         tools apply — until it is fixed"
                    )),
                }
            }
        }
        config
    }

    /// A warning that is also said to every session.
    fn warn(&mut self, warning: String) {
        tracing::warn!("{warning}");
        self.warnings.push(warning.clone());
        self.left_out.push(warning.clone());
        self.notices.push(warning);
    }
}

/// The `NAME/EXTENSION.yaml` files under `dir`, sorted by name. A directory that cannot be read
/// is a warning; one that does not exist has none.
fn extension_files(dir: &Path, config: &mut Config) -> Vec<(String, PathBuf)> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            config.warn(format!(
                "{}: cannot read the extensions directory: {e}",
                dir.display()
            ));
            return Vec::new();
        }
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let file = entry.path().join(EXTENSION_FILE);
            file.exists().then_some((name, file))
        })
        .collect();
    found.sort();
    found
}

/// Reads one `EXTENSION.yaml` leniently: a hook entry or tool that cannot be loaded is left out
/// with a warning; an error when the file cannot be read or parsed, or its `name` is not its
/// directory's.
pub(crate) fn load(name: &str, path: &Path, scope: ExtensionScope) -> Result<Config, ConfigError> {
    let source_name = path.display().to_string();
    let text = file::read_text(path)?.ok_or_else(|| ConfigError::Read {
        file: source_name.clone(),
        message: "no such file".to_owned(),
    })?;
    file::check_nesting(&text, &source_name)?;
    let sha256 = hex(&Sha256::digest(text.as_bytes()));
    let text: Arc<str> = text.into();
    let located = Arc::clone(&text);
    let source = ConfigSource::file(source_name.as_str(), move |p: &[PathSegment]| {
        locate(&located, p)
    });
    let cx = FileContext {
        file: &source_name,
        source: &source,
        dialect: Dialect::Hookchain,
    };
    let document: Yaml = yaml_serde::from_str(&text).map_err(|e| syntax(&source_name, &e))?;
    let top = match document {
        Yaml::Null => Default::default(),
        Yaml::Mapping(top) => top,
        other => {
            return Err(cx.error(
                format!("extension `{name}`"),
                &[],
                format!(
                    "expected a mapping with `name`, `version`, `description`, `hooks` and \
                     `tools`, found {}",
                    yaml_kind(&other)
                ),
            ));
        }
    };
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let env: BTreeMap<String, String> = [
        ("HOOKCHAIN_EXTENSION", name.to_owned()),
        (
            "HOOKCHAIN_EXTENSION_DIR",
            absolute(&dir).display().to_string(),
        ),
        ("HOOKCHAIN_EXTENSION_SHA256", sha256.clone()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let mut extension = ExternalExtension {
        name: name.to_owned(),
        version: None,
        description: None,
        file: path.to_path_buf(),
        scope,
        sha256,
        hooks: Vec::new(),
        tools: Vec::new(),
    };
    let mut config = Config {
        files: vec![source_name.clone()],
        ..Config::default()
    };
    let mut left_out: Vec<native::LeftOut> = Vec::new();
    let mut hooks_value = Yaml::Null;
    let mut tools_value = Yaml::Null;
    for (key, value) in top {
        let key = yaml_key(&key);
        let path = [PathSegment::Key(key.clone())];
        match key.as_str() {
            "name" | "version" | "description" => {
                let text = match value {
                    Yaml::String(text) => text,
                    Yaml::Number(n) if key == "version" => n.to_string(),
                    other => {
                        return Err(cx.error(
                            format!("`{key}` of extension `{name}`"),
                            &path,
                            format!("expected a string, found {}", yaml_kind(&other)),
                        ));
                    }
                };
                match key.as_str() {
                    "name" if text != name => {
                        return Err(cx.error(
                            format!("`name` of extension `{name}`"),
                            &path,
                            format!(
                                "says `{text}`, but the extension's directory is `{name}`: the \
                                 directory names the extension; rename the directory to \
                                 `{text}`, or set `name: {name}` (or remove `name`)"
                            ),
                        ));
                    }
                    "name" => {}
                    "version" => extension.version = Some(text),
                    _ => extension.description = Some(text),
                }
            }
            "hooks" => hooks_value = value,
            "tools" => tools_value = value,
            _ => {
                let hint = match closest(&key, TOP_LEVEL_KEYS.iter().copied()) {
                    Some(s) => format!("unknown key, did you mean `{s}`?"),
                    None => "unknown key (the keys are `name`, `version`, `description`, \
                             `hooks`, `tools`)"
                        .to_owned(),
                };
                left_out.push(cx.error(format!("key `{key}`"), &path, hint).into());
            }
        }
    }
    let mut hooks = native::read(&cx, hooks_value);
    left_out.append(&mut hooks.left_out);
    let mut named = hooks.named(&source_name);
    for hook in &mut named {
        if let Transport::Command(spec) | Transport::Process(spec) = &mut hook.transport {
            // Set over the entry's own `env`: the file cannot name another hash for itself.
            for (key, value) in &env {
                spec.env.insert(key.clone(), value.clone());
            }
        }
        extension.hooks.push((hook.point, hook.name.clone()));
    }
    config.hook_extensions.extend(
        named
            .iter()
            .map(|hook| (hook.point, hook.name.clone(), name.to_owned())),
    );
    config.hooks = named;
    let (tools, mut bad) = read_tools(&cx, name, tools_value, &env);
    extension.tools = tools;
    left_out.append(&mut bad);
    for part in left_out {
        let warning = format!(
            "{}: this is left out until it is fixed; the extension's other hooks and tools load",
            part.error
        );
        config.warn(warning);
        config.unloaded_required.extend(part.required);
    }
    config.external_extensions.push(extension);
    Ok(config)
}

/// Reads `tools:`, a list of tools; each that cannot be loaded is left out.
fn read_tools(
    cx: &FileContext<'_>,
    extension: &str,
    value: Yaml,
    env: &BTreeMap<String, String>,
) -> (Vec<ExternalTool>, Vec<native::LeftOut>) {
    let root = vec![PathSegment::Key("tools".to_owned())];
    let mut tools: Vec<ExternalTool> = Vec::new();
    let mut left_out = Vec::new();
    let items = match value {
        Yaml::Null => return (tools, left_out),
        Yaml::Sequence(items) => items,
        other => {
            left_out.push(
                cx.error(
                    "`tools`",
                    &root,
                    format!("expected a list of tools, found {}", yaml_kind(&other)),
                )
                .into(),
            );
            return (tools, left_out);
        }
    };
    for (index, item) in items.into_iter().enumerate() {
        let path = at(&root, index);
        match tool(cx, extension, item, &path, env) {
            Ok(tool) => {
                if let Some(first) = tools.iter().find(|t| t.name == tool.name) {
                    left_out.push(
                        cx.error(
                            format!("tool `{}`", tool.name),
                            &at(&path, "name"),
                            format!(
                                "a second tool of that name (the first is at {}): rename one",
                                first.origin.short()
                            ),
                        )
                        .into(),
                    );
                    continue;
                }
                tools.push(tool);
            }
            Err(error) => left_out.push(error.into()),
        }
    }
    (tools, left_out)
}

/// Reads one tool.
fn tool(
    cx: &FileContext<'_>,
    extension: &str,
    item: Yaml,
    path: &[PathSegment],
    env: &BTreeMap<String, String>,
) -> Result<ExternalTool, ConfigError> {
    let index = match path.last() {
        Some(PathSegment::Index(i)) => *i + 1,
        _ => 0,
    };
    let value = cx.yaml_json(&item, path, |_| format!("tool {index} of `tools`"))?;
    let Value::Object(fields) = value else {
        return Err(cx.error(
            format!("tool {index} of `tools`"),
            path,
            format!(
                "expected a mapping with `name`, `description`, `parameters` and `command`, \
                 found {}",
                hookchain_core::json_kind(&value)
            ),
        ));
    };
    let mut subject = format!("tool {index} of `tools`");
    cx.known_keys(&subject, &fields, path, &TOOL_KEYS)?;
    let required = |key: &str, subject: &str| -> Result<&Value, ConfigError> {
        fields.get(key).filter(|v| !v.is_null()).ok_or_else(|| {
            cx.error(
                subject.to_owned(),
                path,
                format!("has no `{key}`: every tool needs `name`, `description`, `parameters` and `command`"),
            )
        })
    };
    let name = cx
        .string(
            &format!("`name` of {subject}"),
            required("name", &subject)?,
            &at(path, "name"),
        )?
        .to_owned();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(cx.error(
            format!("`name` of {subject}"),
            &at(path, "name"),
            format!(
                "`{name}` is not a tool name a model can call: use letters, digits, `_` and `-` \
                 only"
            ),
        ));
    }
    subject = format!("tool `{name}`");
    let description = cx
        .string(
            &format!("`description` of {subject}"),
            required("description", &subject)?,
            &at(path, "description"),
        )?
        .to_owned();
    let parameters = required("parameters", &subject)?.clone();
    check_schema(cx, &subject, &parameters, &at(path, "parameters"))?;
    let command_value = required("command", &subject)?;
    let (argv, display) = native::argv(
        cx,
        &format!("`command` of {subject}"),
        command_value,
        &at(path, "command"),
    )?;
    let command = CommandSpec {
        argv: native::resolve_program(&cx.dir(), argv),
        display,
        env: env.clone(),
        working_dir: None,
        env_clear: false,
        env_allow: Vec::new(),
    };
    cx.check_argv(
        &format!("`command` of {subject}"),
        &command,
        &at(path, "command"),
    )?;
    let timeout = match fields.get("timeout").filter(|v| !v.is_null()) {
        Some(v) => cx.timeout(&format!("`timeout` of {subject}"), v, &at(path, "timeout"))?,
        None => DEFAULT_TOOL_TIMEOUT,
    };
    Ok(ExternalTool {
        name,
        description,
        parameters,
        extension: extension.to_owned(),
        command,
        timeout,
        origin: cx.hook_origin(path),
        approved: None,
    })
}

/// A tool's `parameters` must be a JSON Schema of an object: a mapping whose `type`, when
/// given, is `object`, whose `properties`, when given, is a mapping of schemas, and whose
/// `required`, when given, lists names of its properties.
fn check_schema(
    cx: &FileContext<'_>,
    subject: &str,
    schema: &Value,
    path: &[PathSegment],
) -> Result<(), ConfigError> {
    let subject = format!("`parameters` of {subject}");
    let fail =
        |at_path: &[PathSegment], problem: String| cx.error(subject.clone(), at_path, problem);
    let Value::Object(schema) = schema else {
        return Err(fail(
            path,
            format!(
                "expected a JSON Schema object (`type: object` with `properties`), found {}",
                hookchain_core::json_kind(schema)
            ),
        ));
    };
    match schema.get("type") {
        None => {}
        Some(Value::String(kind)) if kind == "object" => {}
        Some(other) => {
            return Err(fail(
                &at(path, "type"),
                format!(
                    "a tool's arguments are a JSON object: `type` must be `object`, found {other}"
                ),
            ));
        }
    }
    let properties: Option<&Map<String, Value>> = match schema.get("properties") {
        None => None,
        Some(Value::Object(properties)) => {
            if let Some((key, _)) = properties
                .iter()
                .find(|(_, v)| !v.is_object() && !v.is_boolean())
            {
                return Err(fail(
                    &at(&at(path, "properties"), key.as_str()),
                    format!(
                        "property `{key}` must be a schema (a mapping such as `{{type: string}}`)"
                    ),
                ));
            }
            Some(properties)
        }
        Some(other) => {
            return Err(fail(
                &at(path, "properties"),
                format!(
                    "`properties` must map each argument's name to its schema, found {}",
                    hookchain_core::json_kind(other)
                ),
            ));
        }
    };
    match schema.get("required") {
        None => {}
        Some(Value::Array(names)) => {
            for name in names {
                let Some(name) = name.as_str() else {
                    return Err(fail(
                        &at(path, "required"),
                        format!("`required` lists property names, found {name}"),
                    ));
                };
                if !properties.is_some_and(|p| p.contains_key(name)) {
                    return Err(fail(
                        &at(path, "required"),
                        format!(
                            "`required` names `{name}`, which is not among `properties`: add it there, or remove it from `required`"
                        ),
                    ));
                }
            }
        }
        Some(other) => {
            return Err(fail(
                &at(path, "required"),
                format!(
                    "`required` must be a list of property names, found {}",
                    hookchain_core::json_kind(other)
                ),
            ));
        }
    }
    Ok(())
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Lower-case hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
