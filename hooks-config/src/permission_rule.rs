//! Claude Code's `if` key of a hook: a permission rule (`Bash(git push*)`, `Edit(*.ts)`,
//! `WebFetch(domain:example.com)`) that must match the tool call for the hook to run at all.
//!
//! # The rules it keeps
//!
//! - `Tool` matches a call of that tool; `Tool(spec)` a call of it whose argument matches
//!   `spec`, a glob where `*` is any run of characters (`**` too), and a trailing `:*` is "this,
//!   then anything" (the older prefix form, `Bash(npm run test:*)`).
//! - The argument is the tool's own: `command` for `Bash` — each command of a compound line
//!   counts on its own (`ls && git push` matches `Bash(git push*)`), with leading `VAR=value`
//!   assignments skipped —, the file path for `Read`/`Edit`/`MultiEdit`/`Write`/`NotebookEdit`
//!   (absolute, or relative to the current directory), the URL's host for
//!   `WebFetch(domain:…)`, and for any other tool any string value of its input.
//! - A call that does not match passes: the hook is not started, as in Claude Code.
//! - Checked on the payload the hook would receive, at each firing; on an event with no tool the
//!   rule cannot match and the hook does not run (Claude Code evaluates `if` on tool events only).

use serde_json::Value;

/// A parsed `if` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PermissionRule {
    tool: String,
    spec: Option<String>,
}

impl PermissionRule {
    /// Parses a rule; the error says what is wrong with it.
    pub(crate) fn parse(text: &str) -> Result<PermissionRule, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("the rule is empty (write `Tool` or `Tool(pattern)`)".to_owned());
        }
        match text.find('(') {
            None => Ok(PermissionRule {
                tool: text.to_owned(),
                spec: None,
            }),
            Some(open) => {
                let Some(spec) = text[open + 1..].strip_suffix(')') else {
                    return Err(format!(
                        "`{text}` does not end with `)`: write `Tool(pattern)`"
                    ));
                };
                let tool = text[..open].trim();
                if tool.is_empty() {
                    return Err(format!("`{text}` names no tool: write `Tool(pattern)`"));
                }
                Ok(PermissionRule {
                    tool: tool.to_owned(),
                    spec: Some(spec.to_owned()),
                })
            }
        }
    }

    /// `true` when the call described by `payload` (its `tool_name` and `tool_input`) matches.
    pub(crate) fn matches(&self, payload: &Value) -> bool {
        let Some(tool) = payload.get("tool_name").and_then(Value::as_str) else {
            return false;
        };
        if !glob(&self.tool, tool) {
            return false;
        }
        let Some(spec) = &self.spec else {
            return true;
        };
        let spec = match spec.strip_suffix(":*") {
            Some(prefix) => format!("{prefix}*"),
            None => spec.clone(),
        };
        let input = payload.get("tool_input").unwrap_or(&Value::Null);
        let text = |key: &str| input.get(key).and_then(Value::as_str);
        match tool {
            "Bash" => text("command")
                .is_some_and(|line| commands(line).iter().any(|command| glob(&spec, command))),
            "Read" | "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
                ["file_path", "notebook_path", "path"]
                    .iter()
                    .filter_map(|key| text(key))
                    .any(|path| path_matches(&spec, path))
            }
            "WebFetch" if spec.starts_with("domain:") => text("url")
                .and_then(host)
                .is_some_and(|host| glob(&spec["domain:".len()..], host)),
            _ => strings(input).iter().any(|value| glob(&spec, value)),
        }
    }
}

/// The commands of a shell line: split at `&&`, `||`, `;`, `|` and new lines, each trimmed and
/// without its leading `NAME=value` assignments.
fn commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in line.split(['\n', ';', '|', '&']) {
        let mut words: Vec<&str> = part.split_whitespace().collect();
        while words
            .first()
            .is_some_and(|w| w.contains('=') && !w.starts_with('='))
        {
            words.remove(0);
        }
        if !words.is_empty() {
            out.push(words.join(" "));
        }
    }
    out
}

/// A file path matches the glob as written, relative to the project directory of the firing
/// (`program::firing_dir`), or without a leading `./` in the glob.
fn path_matches(spec: &str, path: &str) -> bool {
    let spec = spec.strip_prefix("./").unwrap_or(spec);
    if glob(spec, path) {
        return true;
    }
    let relative = hookchain_external::program::firing_dir()
        .ok()
        .and_then(|dir| {
            std::path::Path::new(path)
                .strip_prefix(dir)
                .ok()
                .map(|p| p.display().to_string())
        });
    relative.is_some_and(|relative| glob(spec, &relative))
}

/// The host of a URL.
fn host(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
    Some(host.split(':').next().unwrap_or(host))
}

/// Every string in `value`, depth first.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// `*` is any run of characters; everything else is itself.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(tool: &str, input: Value) -> Value {
        json!({"tool_name": tool, "tool_input": input})
    }

    #[test]
    fn rules_match_as_claude_code_matches_them() {
        let push = PermissionRule::parse("Bash(git push*)").unwrap();
        assert!(push.matches(&call("Bash", json!({"command": "git push --force"}))));
        assert!(push.matches(&call("Bash", json!({"command": "ls && git push"}))));
        assert!(push.matches(&call("Bash", json!({"command": "FOO=bar git push"}))));
        assert!(!push.matches(&call("Bash", json!({"command": "git status"}))));
        assert!(!push.matches(&call("Write", json!({"command": "git push"}))));
        let prefix = PermissionRule::parse("Bash(npm run test:*)").unwrap();
        assert!(prefix.matches(&call("Bash", json!({"command": "npm run test -- -w"}))));
        let ts = PermissionRule::parse("Edit(*.ts)").unwrap();
        assert!(ts.matches(&call("Edit", json!({"file_path": "/p/src/a.ts"}))));
        assert!(!ts.matches(&call("Edit", json!({"file_path": "/p/src/a.rs"}))));
        let web = PermissionRule::parse("WebFetch(domain:*.example.com)").unwrap();
        assert!(web.matches(&call(
            "WebFetch",
            json!({"url": "https://api.example.com/x"})
        )));
        assert!(!web.matches(&call("WebFetch", json!({"url": "https://example.org/"}))));
        let any = PermissionRule::parse("Bash").unwrap();
        assert!(any.matches(&call("Bash", json!({}))));
        assert!(!any.matches(&json!({"prompt": "hi"})));
        assert!(PermissionRule::parse("Bash(git").is_err());
        assert!(PermissionRule::parse(" ").is_err());
    }
}
