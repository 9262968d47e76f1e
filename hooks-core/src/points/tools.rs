//! The payloads of the tool calls: the call the model asked for ([`ToolCall`]), the ask for the
//! user's permission and its grant, the result of a call (or why it did not run), and the results
//! of a whole batch.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name (`"write_file"`).
    pub name: String,
    /// The arguments, as the model produced them.
    pub args: Value,
    /// The model's id for the call, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl ToolCall {
    /// A call of `name` with `args` and no id.
    pub fn new(name: impl Into<String>, args: Value) -> Self {
        ToolCall {
            name: name.into(),
            args,
            id: None,
        }
    }

    /// The same call with the model's id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The string argument `key`, if the args are an object holding a string there.
    pub fn str_arg(&self, key: &str) -> Option<&str> {
        self.args.get(key).and_then(Value::as_str)
    }
}

/// The payload of `permission_request`: a tool call the agent is about to ask the user to
/// confirm.
///
/// ```
/// use hookchain::points::{PermissionAsk, PermissionGrant, PermissionRequest, ToolCall};
/// use hookchain::HookPoint;
/// use serde_json::json;
///
/// let call = ToolCall::new("shell", json!({"cmd": "make"})).with_id("t1");
/// let mut ask = PermissionAsk::new(&call);
/// assert!(!ask.allowed);
/// PermissionRequest::apply(&mut ask, PermissionGrant::with_args(json!({"cmd": "make -j2"})));
/// assert!(ask.allowed);
/// assert_eq!(ask.call().args, json!({"cmd": "make -j2"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionAsk {
    /// The tool's name.
    pub tool_name: String,
    /// The args the tool would run with.
    pub tool_input: Value,
    /// The model's id for the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The permission rules the agent would offer the user ("always allow `npm test`"), as the
    /// agent spells them (Claude Code's `permission_suggestions`); empty when it offers none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_suggestions: Vec<Value>,
    /// `true` once a hook granted the call: the agent runs it without asking.
    #[serde(default)]
    pub allowed: bool,
}

impl PermissionAsk {
    /// The request to confirm `call`.
    pub fn new(call: &ToolCall) -> Self {
        PermissionAsk {
            tool_name: call.name.clone(),
            tool_input: call.args.clone(),
            tool_use_id: call.id.clone(),
            permission_suggestions: Vec::new(),
            allowed: false,
        }
    }

    /// The call, with its args as the hooks left them.
    pub fn call(&self) -> ToolCall {
        ToolCall {
            name: self.tool_name.clone(),
            args: self.tool_input.clone(),
            id: self.tool_use_id.clone(),
        }
    }

    /// Applies a grant: the call is allowed, with the grant's args when it has some.
    pub fn grant(&mut self, grant: PermissionGrant) {
        self.allowed = true;
        if let Some(args) = grant.args {
            self.tool_input = args;
        }
    }
}

/// What a `permission_request` hook returns to allow a call without asking the user.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionGrant {
    /// New args for the call (Claude Code's `updatedInput`); `None` keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
}

impl PermissionGrant {
    /// Allows the call as it is.
    pub fn allow() -> Self {
        PermissionGrant { args: None }
    }

    /// Allows the call with new args.
    pub fn with_args(args: Value) -> Self {
        PermissionGrant { args: Some(args) }
    }
}

impl crate::HookResult<PermissionGrant> {
    /// Shorthand for `HookResult::Rewrite(PermissionGrant::allow())`: the call runs without
    /// asking the user.
    pub fn allow() -> Self {
        crate::HookResult::Rewrite(PermissionGrant::allow())
    }
}

/// The payload of `after_tool_batch`: the results of every call of one batch, in the order the
/// model asked for them, and the context hooks injected for the next model call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolBatch {
    /// The results, refused calls included ([`ToolResult::blocked`]).
    pub results: Vec<ToolResult>,
    /// The context injected so far by earlier hooks, in chain order.
    #[serde(default)]
    pub context: Vec<String>,
}

impl ToolBatch {
    /// The batch of `results`, with no context yet.
    pub fn new(results: Vec<ToolResult>) -> Self {
        ToolBatch {
            results,
            context: Vec::new(),
        }
    }
}

/// A tool call as it ran, and its result: the payload of `transform_tool_result` and
/// `after_tool_call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The tool's name.
    pub tool_name: String,
    /// The args the tool ran with, after every rewrite.
    pub tool_input: Value,
    /// The model's id for the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// What the tool returned (on error: the error message as a string).
    pub tool_response: Value,
    /// `true` when the tool failed, or did not run because a hook blocked it.
    #[serde(default)]
    pub is_error: bool,
    /// The block, when `intercept_tool_call` refused the call and the tool never ran: who
    /// blocked it and why. `tool_response` then holds the reason and `is_error` is `true`.
    /// `None` for a tool that ran (left out of the JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<ToolBlock>,
}

/// Why a tool call did not run: the `intercept_tool_call` block that `after_tool_call` hooks
/// see in [`ToolResult::blocked`], so an audit hook also sees the calls that were refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolBlock {
    /// The reason the model was given.
    pub reason: String,
    /// The name of the hook that blocked.
    pub hook: String,
    /// `true` when the hook did not decide to block but failed under `on_error = "block"`.
    #[serde(default)]
    pub failed: bool,
}

impl From<&crate::Blocked> for ToolBlock {
    fn from(blocked: &crate::Blocked) -> Self {
        ToolBlock {
            reason: blocked.reason.clone(),
            hook: blocked.hook.clone(),
            failed: blocked.failed,
        }
    }
}

impl ToolResult {
    /// The result of `call`: `Ok` for a success, `Err` with the message for a failure.
    pub fn new(call: &ToolCall, result: Result<Value, String>) -> Self {
        let (tool_response, is_error) = match result {
            Ok(v) => (v, false),
            Err(e) => (Value::String(e), true),
        };
        ToolResult {
            tool_name: call.name.clone(),
            tool_input: call.args.clone(),
            tool_use_id: call.id.clone(),
            tool_response,
            is_error,
            blocked: None,
        }
    }

    /// The result of `call` when `intercept_tool_call` blocked it and the tool never ran: the
    /// reason as an error, with the block recorded in [`blocked`](ToolResult::blocked). What
    /// `Turn::run_tool` fires `after_tool_call` with for a refused call; an agent that fires the
    /// tool points itself does the same.
    ///
    /// ```
    /// use hookchain::points::{ToolBlock, ToolCall, ToolResult};
    /// use serde_json::json;
    ///
    /// let call = ToolCall::new("shell", json!({"cmd": "rm -rf /"}));
    /// let block = ToolBlock { reason: "no".into(), hook: "guard".into(), failed: false };
    /// let result = ToolResult::refused(&call, block);
    /// assert!(result.is_error);
    /// assert_eq!(result.tool_response, json!("no"));
    /// assert_eq!(result.tool_input, json!({"cmd": "rm -rf /"}));
    /// assert_eq!(result.blocked.unwrap().hook, "guard");
    /// ```
    pub fn refused(call: &ToolCall, block: ToolBlock) -> Self {
        let mut result = ToolResult::new(call, Err(block.reason.clone()));
        result.blocked = Some(block);
        result
    }

    /// The call this is the result of.
    pub fn call(&self) -> ToolCall {
        ToolCall {
            name: self.tool_name.clone(),
            args: self.tool_input.clone(),
            id: self.tool_use_id.clone(),
        }
    }
}
