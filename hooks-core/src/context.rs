//! [`HookContext`]: what a hook knows about the dispatch it runs in, and how it talks to the
//! hooks after it and to the agent.
//!
//! One context lives for one dispatch of one chain. It names the session, the turn, the point and
//! the hook currently running, and the [`Extension`] that hook belongs to (whose config the hook
//! reads with [`HookContext::config`]); and it carries the dispatch's [`Annotations`]: metadata
//! that later hooks read, agent-facing context and user-facing warnings. Annotations are kept in
//! chain order and returned to the agent with the outcome. Nothing is allocated until a hook
//! annotates or reads its config for the first time.

use std::sync::Arc;

use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::extension::{ConfigError, Extension};

/// Key/values a hook attaches for the hooks after it in the same dispatch.
pub type Metadata = serde_json::Map<String, Value>;

/// What the hooks of one dispatch attached: metadata, context for the model, warnings for the
/// user. The runtime creates one per dispatch; tests of a single hook can create their own.
#[derive(Debug, Default)]
pub struct Annotations {
    inner: Mutex<AnnotationsInner>,
}

/// The plain data of [`Annotations`], taken out when the dispatch ends.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct AnnotationsInner {
    /// Metadata, by key; a later hook's value replaces an earlier one's.
    pub metadata: Metadata,
    /// Agent-facing context, in chain order.
    pub context: Vec<String>,
    /// User-facing warnings, in chain order.
    pub warnings: Vec<String>,
}

impl Annotations {
    /// Empty annotations.
    pub fn new() -> Self {
        Annotations::default()
    }

    /// Takes everything attached so far, leaving the annotations empty.
    pub fn take(&self) -> AnnotationsInner {
        std::mem::take(&mut *self.inner.lock())
    }

    /// Everything attached, consuming the annotations.
    pub fn into_inner(self) -> AnnotationsInner {
        self.inner.into_inner()
    }

    /// `true` when nothing was attached.
    pub fn is_empty(&self) -> bool {
        let inner = self.inner.lock();
        inner.metadata.is_empty() && inner.context.is_empty() && inner.warnings.is_empty()
    }
}

/// What a hook knows about the dispatch it runs in.
///
/// ```
/// use hookchain::HookContext;
/// use hookchain::chain::Annotations;
///
/// let notes = Annotations::new();
/// let cx = HookContext::new("sess-1", 0, "intercept_tool_call", &notes);
/// cx.set_metadata("risk", "low");
/// assert_eq!(cx.get_metadata("risk"), Some(serde_json::json!("low")));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct HookContext<'a> {
    session_id: &'a str,
    turn: u64,
    point: &'static str,
    hook: &'a str,
    extension: Option<&'a Extension>,
    annotations: &'a Annotations,
}

impl<'a> HookContext<'a> {
    /// A context for a dispatch of `point` in turn `turn` of `session_id`.
    pub fn new(
        session_id: &'a str,
        turn: u64,
        point: &'static str,
        annotations: &'a Annotations,
    ) -> Self {
        HookContext {
            session_id,
            turn,
            point,
            hook: "",
            extension: None,
            annotations,
        }
    }

    /// The same context, naming `hook` as the one running.
    #[inline]
    pub fn with_hook(mut self, hook: &'a str) -> Self {
        self.hook = hook;
        self
    }

    /// The same context, naming `extension` as the running hook's; the runtime sets it per hook.
    #[inline]
    pub fn with_extension(mut self, extension: &'a Extension) -> Self {
        self.extension = Some(extension);
        self
    }

    /// The extension the running hook belongs to (`None` in a context made by hand).
    pub fn extension(&self) -> Option<&'a Extension> {
        self.extension
    }

    /// The running hook's extension config, deserialized as `T` from the extension's section.
    ///
    /// The value is deserialized once per type and shared until the config changes; a missing
    /// section reads as an empty mapping, so `#[serde(default)]` fields work without any config.
    /// The error names the extension, the field, and the file and line it was written at.
    ///
    /// ```
    /// use hookchain::HookContext;
    /// use hookchain::chain::Annotations;
    /// use hookchain::registry::Extension;
    /// use serde::Deserialize;
    ///
    /// #[derive(Deserialize)]
    /// struct WorkflowGuardConfig { plan_path: String }
    ///
    /// let section = serde_json::json!({"plan_path": "plan.md"});
    /// let ext = Extension::with_config("workflow-guard", section);
    /// let notes = Annotations::new();
    /// let cx = HookContext::new("s", 0, "intercept_tool_call", &notes).with_extension(&ext);
    /// assert_eq!(cx.config::<WorkflowGuardConfig>().unwrap().plan_path, "plan.md");
    /// ```
    pub fn config<T>(&self) -> Result<Arc<T>, ConfigError>
    where
        T: DeserializeOwned + Send + Sync + 'static,
    {
        match self.extension {
            Some(extension) => extension.config::<T>(),
            None => Err(ConfigError::NoExtension {
                hook: self.hook.to_owned(),
            }),
        }
    }

    /// The session the dispatch belongs to; pass it to `get_turn_state`.
    pub fn session_id(&self) -> &'a str {
        self.session_id
    }

    /// The index of the turn in its session, from 0.
    pub fn turn(&self) -> u64 {
        self.turn
    }

    /// The canonical name of the point being dispatched.
    pub fn point(&self) -> &'static str {
        self.point
    }

    /// The name of the hook that is running.
    pub fn hook_name(&self) -> &'a str {
        self.hook
    }

    /// A snapshot of the metadata earlier hooks of this dispatch attached.
    pub fn metadata(&self) -> Metadata {
        self.annotations.inner.lock().metadata.clone()
    }

    /// One metadata value attached by an earlier hook of this dispatch.
    pub fn get_metadata(&self, key: &str) -> Option<Value> {
        self.annotations.inner.lock().metadata.get(key).cloned()
    }

    /// Attaches a key/value for the hooks after this one; returned to the agent with the outcome.
    ///
    /// A value that does not serialize is stored as its error message, so a hook never fails
    /// here.
    pub fn set_metadata(&self, key: impl Into<String>, value: impl Serialize) {
        let value = serde_json::to_value(value)
            .unwrap_or_else(|e| Value::String(format!("unserializable metadata: {e}")));
        self.annotations
            .inner
            .lock()
            .metadata
            .insert(key.into(), value);
    }

    /// Adds context for the model (the agent decides where it goes, usually the next prompt).
    pub fn add_context(&self, text: impl Into<String>) {
        self.annotations.inner.lock().context.push(text.into());
    }

    /// Adds a warning for the user.
    pub fn warn(&self, text: impl Into<String>) {
        self.annotations.inner.lock().warnings.push(text.into());
    }
}
