//! Tools an extension gives the model: [`ToolSpec`], what a model is told of a tool, and the
//! link-time record of a `#[register_tool]` fn.
//!
//! # What it owns
//!
//! - [`ToolSpec`]: a tool's name, its description, the JSON Schema of its parameters and the
//!   extension it belongs to, and the shapes the providers take it in: an OpenAI function tool
//!   ([`ToolSpec::to_openai`]), an Anthropic tool ([`ToolSpec::to_anthropic`]) and an MCP tool
//!   ([`ToolSpec::to_mcp`]).
//! - [`parameters_of`]: the parameters schema of an argument type, made by schemars.
//! - The record `#[register_tool]` emits ([`ToolRegistration`], behind `__private`), collected at
//!   link time like the hooks' records: `inventory` by default, `linkme` with the `linkme`
//!   feature; [`tool_registrations`] iterates them in no particular order.
//!
//! # The rules it keeps
//!
//! - A tool's parameters are a JSON Schema **object** (`"type": "object"`), as every provider
//!   requires: what [`parameters_of`] makes of a struct. Subschemas are inlined (no `$ref`, which
//!   some providers refuse) and the `$schema` keyword is dropped; the title and the doc comments
//!   of the fields stay, as descriptions the model reads. The registry refuses a tool whose
//!   parameters are not an object, or whose name a provider would refuse (it must match
//!   `^[a-zA-Z0-9_-]{1,64}$`, the rule OpenAI and Anthropic share).
//! - The arguments a model sends are deserialized into the tool's argument type with the path of
//!   the field that does not fit ([`ToolFailure::Args`]), so the model can read what to fix.
//! - A compiled-in tool's schema is generated once per program, however many registries are
//!   built.

use std::any::type_name;
use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::context::HookContext;
use crate::registration::BoxFuture;

/// What a model is told of a tool: its name, what it does, the JSON Schema of its parameters,
/// and the extension it belongs to (enabled and disabled with the extension's hooks).
///
/// `Session::tools()` hands out the specs of the tools a session offers; build one yourself for
/// `HooksBuilder::tool`:
///
/// ```
/// use hookchain::ToolSpec;
/// use hookchain::schemars::JsonSchema;
/// use serde::Deserialize;
/// use serde_json::json;
///
/// /// The note to keep.
/// #[derive(Deserialize, JsonSchema)]
/// #[schemars(crate = "hookchain::schemars")]
/// struct AddNote {
///     /// The note's text.
///     text: String,
/// }
///
/// let spec = ToolSpec::for_args::<AddNote>("add_note", "Keeps a note for later.").in_extension("notes");
/// assert_eq!(spec.parameters["type"], "object");
/// assert_eq!(spec.parameters["required"], json!(["text"]));
/// assert_eq!(spec.to_anthropic()["input_schema"], spec.parameters);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does, for the model to decide when to call it.
    pub description: String,
    /// The JSON Schema of the tool's arguments: an object schema.
    pub parameters: Value,
    /// The extension the tool belongs to.
    pub extension: String,
}

/// The extension of a [`ToolSpec`] made with [`ToolSpec::new`] or [`ToolSpec::for_args`]: the
/// one builder hooks that name none belong to.
const DEFAULT_EXTENSION: &str = "app";

impl ToolSpec {
    /// A tool called `name`, described by `description`, whose arguments `parameters` (a JSON
    /// Schema object) describes, in extension `"app"` (the extension of builder hooks that name
    /// none; [`in_extension`](ToolSpec::in_extension) names another).
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters,
            extension: DEFAULT_EXTENSION.to_owned(),
        }
    }

    /// [`new`](ToolSpec::new) with the parameters schema of `A` ([`parameters_of`]).
    pub fn for_args<A: schemars::JsonSchema>(
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        ToolSpec::new(name, description, parameters_of::<A>())
    }

    /// The same spec, in extension `extension`.
    pub fn in_extension(mut self, extension: impl Into<String>) -> Self {
        self.extension = extension.into();
        self
    }

    /// The tool as OpenAI's Chat Completions API takes it in `tools`:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    ///
    /// ```
    /// use hookchain::ToolSpec;
    /// use serde_json::json;
    ///
    /// let spec = ToolSpec::new("now", "The time.", json!({"type": "object", "properties": {}}));
    /// assert_eq!(
    ///     spec.to_openai(),
    ///     json!({"type": "function", "function": {
    ///         "name": "now", "description": "The time.",
    ///         "parameters": {"type": "object", "properties": {}}}})
    /// );
    /// ```
    pub fn to_openai(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            }
        })
    }

    /// The tool as Anthropic's Messages API takes it in `tools`:
    /// `{"name", "description", "input_schema"}`.
    pub fn to_anthropic(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "input_schema": self.parameters,
        })
    }

    /// The tool as an MCP server lists it (`tools/list`): `{"name", "description",
    /// "inputSchema"}`.
    pub fn to_mcp(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.parameters,
        })
    }

    /// The names of the parameters the schema declares (its `properties`), sorted by name: the
    /// same order whether or not serde_json keeps a map's insertion order (its
    /// `preserve_order` feature, which any crate of the program may turn on).
    pub fn parameter_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .parameters
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| props.keys().map(String::as_str).collect())
            .unwrap_or_default();
        names.sort_unstable();
        names
    }

    /// Checks a call's arguments against the outline of the parameters schema, before the tool
    /// runs: the arguments are a JSON object, every `required` parameter is there, each
    /// parameter whose schema names a JSON `type` has a value of that type, and, where the
    /// schema says `"additionalProperties": false`, no other key is. `Err` says which parameter,
    /// as a [`ToolFailure::Args`] (path `.name`).
    ///
    /// This is what every tool gets, whatever its handler: a `#[register_tool]` fn's arguments
    /// are then also read by serde, a [`HooksBuilder::tool`]'s or an external extension's tool
    /// gets its JSON only once it passed. It is not a full JSON Schema validator: nested
    /// schemas, formats, ranges and patterns are the tool's to check.
    ///
    /// [`HooksBuilder::tool`]: https://docs.rs/hookchain/latest/hookchain/struct.HooksBuilder.html#method.tool
    ///
    /// ```
    /// use hookchain::ToolSpec;
    /// use serde_json::json;
    ///
    /// let spec = ToolSpec::new("add", "Adds two numbers", json!({
    ///     "type": "object",
    ///     "properties": {"left": {"type": "integer"}, "right": {"type": "integer"}},
    ///     "required": ["left", "right"],
    /// }));
    /// assert!(spec.check_args(&json!({"left": 1, "right": 2})).is_ok());
    /// assert_eq!(spec.check_args(&json!([1, 2])).unwrap_err().to_string(),
    ///            "the arguments are a JSON object of the parameters `left`, `right`, not an array");
    /// assert_eq!(spec.check_args(&json!({"left": 1})).unwrap_err().to_string(),
    ///            "missing field `right`");
    /// assert_eq!(spec.check_args(&json!({"left": 1, "right": "2"})).unwrap_err().to_string(),
    ///            "at `right`: invalid type: a string, expected integer");
    /// ```
    pub fn check_args(&self, args: &Value) -> Result<(), ToolFailure> {
        let schema = &self.parameters;
        let is_object_schema = schema.get("type").and_then(Value::as_str) == Some("object")
            || schema.get("properties").is_some();
        if !is_object_schema {
            return Ok(());
        }
        let whole = |message: String| ToolFailure::Args {
            path: ".".to_owned(),
            message,
        };
        let Some(given) = args.as_object() else {
            let names: Vec<String> = self
                .parameter_names()
                .iter()
                .map(|n| format!("`{n}`"))
                .collect();
            let of = if names.is_empty() {
                String::new()
            } else {
                format!(" of the parameters {}", names.join(", "))
            };
            return Err(whole(format!(
                "the arguments are a JSON object{of}, not {}",
                arg_kind(args)
            )));
        };
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for name in required.iter().filter_map(Value::as_str) {
                if !given.contains_key(name) {
                    return Err(whole(format!("missing field `{name}`")));
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        // By name: the first argument that does not fit is the same whatever order serde_json
        // keeps a map in.
        let mut given: Vec<(&String, &Value)> = given.iter().collect();
        given.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (key, value) in given {
            let Some(property) = properties.and_then(|p| p.get(key)) else {
                if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
                    return Err(whole(format!("unknown field `{key}`")));
                }
                continue;
            };
            let allowed: Vec<&str> = match property.get("type") {
                Some(Value::String(one)) => vec![one.as_str()],
                Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
                _ => continue,
            };
            if !allowed.is_empty() && !allowed.iter().any(|t| has_type(value, t)) {
                return Err(ToolFailure::Args {
                    path: key.clone(),
                    message: format!(
                        "invalid type: {}, expected {}",
                        arg_kind(value),
                        allowed.join(" or ")
                    ),
                });
            }
        }
        Ok(())
    }

    /// What is wrong with the spec for a provider, as a sentence naming the tool and the fix;
    /// `None` when nothing is. A name must match `^[a-zA-Z0-9_-]{1,64}$` and the parameters
    /// must be a JSON Schema object (`"type": "object"`).
    pub fn problem(&self) -> Option<String> {
        let name_ok = !self.name.is_empty()
            && self.name.len() <= 64
            && self
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !name_ok {
            return Some(format!(
                "the tool name `{}` is not one providers accept: use 1 to 64 ASCII letters, \
                 digits, `_` or `-`",
                self.name
            ));
        }
        if self.parameters.get("type").and_then(Value::as_str) != Some("object") {
            return Some(format!(
                "the parameters of tool `{}` are not a JSON Schema object (`\"type\": \
                 \"object\"`), which providers require: take the arguments as a struct with \
                 named fields",
                self.name
            ));
        }
        None
    }
}

/// The parameters schema of argument type `A`: its JSON Schema (draft 2020-12), subschemas
/// inlined, without the `$schema` keyword, as providers take it.
///
/// ```
/// use hookchain::schemars::JsonSchema;
/// use serde_json::json;
///
/// #[derive(JsonSchema)]
/// #[schemars(crate = "hookchain::schemars")]
/// struct Search { query: String, limit: Option<u32> }
///
/// let schema = hookchain::registry::parameters_of::<Search>();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["required"], json!(["query"]));
/// assert!(schema.get("$schema").is_none());
/// ```
pub fn parameters_of<A: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
        if map.get("type").and_then(Value::as_str) == Some("object")
            && !map.contains_key("properties")
        {
            map.insert("properties".to_owned(), Value::Object(Map::new()));
        }
    }
    schema
}

/// Why a tool did not return a result: its arguments did not fit its parameters, or it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolFailure {
    /// The arguments did not deserialize into the tool's argument type.
    Args {
        /// Where, as serde's path says (`.path`, `.items[2].name`); `.` for the whole value.
        path: String,
        /// What serde said.
        message: String,
    },
    /// The tool returned an error (its `Display`), or could not run.
    Failed(String),
}

impl fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolFailure::Args { path, message } if path == "." => write!(f, "{message}"),
            ToolFailure::Args { path, message } => write!(f, "at `{path}`: {message}"),
            ToolFailure::Failed(message) => f.write_str(message),
        }
    }
}

/// What a tool hands back once normalised: its result as JSON, or why there is none.
pub type ToolReturn = Result<Value, ToolFailure>;

/// A synchronous tool, normalised: the call's arguments and the tool's context.
pub type SyncToolFn = for<'a, 'b> fn(Value, &'a HookContext<'b>) -> ToolReturn;

/// An async tool, normalised.
pub type AsyncToolFn = for<'a> fn(Value, &'a HookContext<'a>) -> BoxFuture<'a, ToolReturn>;

/// A tool added at runtime (`HooksBuilder::tool`), shared by every registry built with it.
pub type SyncToolClosure =
    Arc<dyn for<'a, 'b> Fn(Value, &'a HookContext<'b>) -> ToolReturn + Send + Sync>;

/// An async tool added at runtime (`HooksBuilder::async_tool`).
pub type AsyncToolClosure =
    Arc<dyn for<'a> Fn(Value, &'a HookContext<'a>) -> BoxFuture<'a, ToolReturn> + Send + Sync>;

/// How a tool is run.
#[derive(Clone)]
pub enum ToolHandler {
    /// A sync `#[register_tool]` fn.
    SyncFn(SyncToolFn),
    /// An `async fn` `#[register_tool]`.
    AsyncFn(AsyncToolFn),
    /// A closure added with `HooksBuilder::tool`.
    Sync(SyncToolClosure),
    /// A closure added with `HooksBuilder::async_tool`.
    Async(AsyncToolClosure),
}

impl ToolHandler {
    /// `true` for an async tool.
    pub fn is_async(&self) -> bool {
        matches!(self, ToolHandler::AsyncFn(_) | ToolHandler::Async(_))
    }
}

impl fmt::Debug for ToolHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ToolHandler::SyncFn(_) => "SyncFn",
            ToolHandler::AsyncFn(_) => "AsyncFn",
            ToolHandler::Sync(_) => "Sync",
            ToolHandler::Async(_) => "Async",
        })
    }
}

/// One `#[register_tool]` fn, as collected at link time.
#[derive(Debug)]
pub struct ToolRegistration {
    /// The tool's name: the `name = ..` key, or the fn's name.
    pub name: &'static str,
    /// The `description = ..` key, or the fn's doc comment.
    pub description: &'static str,
    /// The `extension = ..` key, or the crate's name.
    pub extension: &'static str,
    /// The parameters schema of the argument type (generated once per program).
    pub parameters: fn() -> Value,
    /// The source file of the fn.
    pub file: &'static str,
    /// Its line.
    pub line: u32,
    /// `true` for an `async fn`.
    pub is_async: bool,
    /// The sync adapter, for a sync fn.
    pub sync: Option<SyncToolFn>,
    /// The async adapter, for an `async fn`.
    pub run_async: Option<AsyncToolFn>,
}

impl ToolRegistration {
    /// The tool's spec, its parameters schema generated (or taken from the program's cache).
    pub fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            parameters: (self.parameters)(),
            extension: self.extension.to_owned(),
        }
    }

    /// How the tool is run.
    pub fn handler(&self) -> Option<ToolHandler> {
        match (self.sync, self.run_async) {
            (Some(f), _) => Some(ToolHandler::SyncFn(f)),
            (None, Some(f)) => Some(ToolHandler::AsyncFn(f)),
            (None, None) => None,
        }
    }

    /// `file:line` of the fn.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

#[cfg(not(feature = "linkme"))]
inventory::collect!(ToolRegistration);

/// Every `#[register_tool]` fn linked into the program, in no particular order.
#[cfg(not(feature = "linkme"))]
pub fn tool_registrations() -> impl Iterator<Item = &'static ToolRegistration> {
    inventory::iter::<ToolRegistration>.into_iter()
}

/// Every `#[register_tool]` fn linked into the program, in no particular order.
#[cfg(feature = "linkme")]
pub fn tool_registrations() -> impl Iterator<Item = &'static ToolRegistration> {
    TOOL_REGISTRATIONS.iter()
}

/// The linkme slice that collects tool registrations (`__private::TOOL_REGISTRATIONS` to the
/// macros).
#[cfg(feature = "linkme")]
#[linkme::distributed_slice]
#[linkme(crate = linkme)]
pub static TOOL_REGISTRATIONS: [ToolRegistration];

/// Deserializes a tool's arguments as `A`, with the path of the field that does not fit.
pub fn tool_args<A: DeserializeOwned>(args: Value) -> Result<A, ToolFailure> {
    serde_path_to_error::deserialize(args).map_err(|error| ToolFailure::Args {
        path: error.path().to_string(),
        message: error.into_inner().to_string(),
    })
}

/// Checks a tool's argument type: implemented for every type that deserializes and has a JSON
/// Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's arguments: it needs `Deserialize` and `JsonSchema`",
    label = "the arguments of a tool deserialize from JSON and describe themselves with a JSON Schema",
    note = "derive both: `#[derive(serde::Deserialize, hookchain::schemars::JsonSchema)]` with \
            `#[schemars(crate = \"hookchain::schemars\")]`"
)]
pub trait ToolArgs: Sized {
    /// The arguments, from the call's JSON.
    fn from_args(args: Value) -> Result<Self, ToolFailure>;
    /// The parameters schema.
    fn parameters() -> Value;
}

impl<T: DeserializeOwned + schemars::JsonSchema> ToolArgs for T {
    fn from_args(args: Value) -> Result<Self, ToolFailure> {
        tool_args(args)
    }

    fn parameters() -> Value {
        parameters_of::<T>()
    }
}

/// Checks what a tool returns when it succeeds: implemented for every `Serialize` type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result: it needs `Serialize`",
    label = "a tool returns `Result<R, E>` with `R: Serialize`",
    note = "derive it: `#[derive(serde::Serialize)]`, or return a `serde_json::Value`"
)]
pub trait ToolOutput {
    /// The result as JSON.
    fn into_result(self) -> ToolReturn;
}

impl<T: Serialize> ToolOutput for T {
    fn into_result(self) -> ToolReturn {
        serde_json::to_value(self).map_err(|e| {
            ToolFailure::Failed(format!(
                "the result of the tool does not serialize as JSON ({}): {e}",
                type_name::<T>()
            ))
        })
    }
}

/// Checks a tool's error type: implemented for every `Display` type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error: it needs `Display`",
    label = "a tool returns `Result<R, E>` with `E: Display`, the message the model reads",
    note = "implement `std::fmt::Display` for it, or return `String` or `anyhow::Error`"
)]
pub trait ToolErrorMessage {
    /// The message the model reads.
    fn into_failure(self) -> ToolFailure;
}

impl<T: fmt::Display> ToolErrorMessage for T {
    fn into_failure(self) -> ToolFailure {
        ToolFailure::Failed(self.to_string())
    }
}

/// Checks a tool's return type when it is not written `Result<R, E>`: implemented for
/// `Result<R, E>` with `R: Serialize` and `E: Display`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be what a tool returns",
    label = "a tool returns `Result<R, E>` with `R: Serialize` and `E: Display`",
    note = "an error the tool cannot have is still written: `Result<R, std::convert::Infallible>`"
)]
pub trait IntoToolReturn {
    /// The normalised return.
    fn into_tool_return(self) -> ToolReturn;
}

impl<R: Serialize, E: fmt::Display> IntoToolReturn for Result<R, E> {
    fn into_tool_return(self) -> ToolReturn {
        match self {
            Ok(value) => value.into_result(),
            Err(error) => Err(error.into_failure()),
        }
    }
}

/// `true` when `value` is of the JSON Schema type `ty`.
fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        // A type this check does not know is the tool's to judge.
        _ => true,
    }
}

/// `a string`, `an array`, … for a sentence.
fn arg_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        depth: u8,
    }

    /// What to read.
    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct ReadFile {
        /// The file.
        path: String,
        inner: Option<Inner>,
    }

    #[test]
    fn the_schema_is_an_inlined_object_without_its_meta_schema() {
        let schema = parameters_of::<ReadFile>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["path"]));
        assert_eq!(schema["properties"]["path"]["description"], "The file.");
        assert!(schema.get("$schema").is_none());
        assert!(schema.get("$defs").is_none(), "{schema}");
        assert!(!schema.to_string().contains("$ref"), "{schema}");
    }

    #[test]
    fn a_struct_with_no_fields_has_empty_properties() {
        #[derive(Deserialize, schemars::JsonSchema)]
        struct Nothing {}
        let schema = parameters_of::<Nothing>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"], json!({}));
    }

    #[test]
    fn the_provider_shapes() {
        let spec = ToolSpec::new("read_file", "Reads.", json!({"type": "object"}));
        assert_eq!(
            spec.to_openai(),
            json!({"type": "function", "function": {"name": "read_file", "description": "Reads.",
                "parameters": {"type": "object"}}})
        );
        assert_eq!(
            spec.to_anthropic(),
            json!({"name": "read_file", "description": "Reads.", "input_schema": {"type": "object"}})
        );
        assert_eq!(
            spec.to_mcp(),
            json!({"name": "read_file", "description": "Reads.", "inputSchema": {"type": "object"}})
        );
        assert_eq!(spec.extension, "app");
    }

    #[test]
    fn problems_name_the_tool_and_the_fix() {
        assert_eq!(
            ToolSpec::for_args::<ReadFile>("read_file", "r").problem(),
            None
        );
        let spaced = ToolSpec::for_args::<ReadFile>("read file", "r")
            .problem()
            .unwrap();
        assert!(
            spaced.starts_with("the tool name `read file` is not one"),
            "{spaced}"
        );
        let scalar = ToolSpec::for_args::<String>("echo", "e").problem().unwrap();
        assert!(
            scalar.starts_with("the parameters of tool `echo` are not a JSON Schema object"),
            "{scalar}"
        );
    }

    #[test]
    fn bad_args_name_the_field() {
        let err = tool_args::<ReadFile>(json!({"path": 3})).err().unwrap();
        assert_eq!(
            err,
            ToolFailure::Args {
                path: "path".to_owned(),
                message: "invalid type: integer `3`, expected a string".to_owned()
            }
        );
        assert_eq!(
            err.to_string(),
            "at `path`: invalid type: integer `3`, expected a string"
        );
        let missing = tool_args::<ReadFile>(json!({})).err().unwrap();
        assert_eq!(missing.to_string(), "missing field `path`");
    }
}
