//! The listing of every hook, [`Hooks::describe`]: an empty registry is visible, never silent.

use std::fmt;

use hookchain_core::Extension;

use super::hooks::Hooks;
use super::info::HookSource;

impl Hooks {
    /// A listing of every hook (point, priority, name, extension, file:line) that prints as a
    /// table; an empty registry says so and says why it may be empty.
    pub fn describe(&self) -> Description<'_> {
        Description { hooks: self }
    }
}

/// The listing [`Hooks::describe`] returns; `Display` prints it as a table.
pub struct Description<'a> {
    hooks: &'a Hooks,
}

impl fmt::Display for Description<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let infos = &self.hooks.inner.infos;
        let count = |source: HookSource| infos.iter().filter(|h| h.source == source).count();
        let external = count(HookSource::External);
        write!(
            f,
            "{} hook(s): {} collected by #[register_hook] ({}), {} added by the builder",
            infos.len(),
            count(HookSource::Registered),
            hookchain_core::__private::backend(),
            count(HookSource::Builder)
        )?;
        match external {
            0 => writeln!(f)?,
            n => writeln!(f, ", {n} external (scripts, workers, endpoints)")?,
        }
        if infos.is_empty() {
            return writeln!(
                f,
                "no hooks: a #[register_hook] fn in a library crate is collected only if that crate is linked \
                 (add `use my_hooks as _;` to the binary)"
            );
        }
        let name_width = infos.iter().map(|h| h.name.len()).max().unwrap_or(4).max(4);
        writeln!(
            f,
            "{:<22} {:>8} {:<name_width$} {:<16} {:<8} {:<5} location",
            "point", "priority", "name", "extension", "on_error", "async"
        )?;
        for h in infos {
            let disabled = match self.hooks.extension(&h.extension) {
                Some(e) if !e.is_enabled() => format!("  {}", disabled_text(e)),
                _ => String::new(),
            };
            let required = if h.required { "  required" } else { "" };
            writeln!(
                f,
                "{:<22} {:>8} {:<name_width$} {:<16} {:<8} {:<5} {}:{}{required}{}",
                h.point,
                h.priority,
                h.name,
                if h.extension.is_empty() {
                    "-"
                } else {
                    &h.extension
                },
                h.on_error,
                if h.is_async { "yes" } else { "no" },
                h.file,
                h.line,
                disabled
            )?;
        }
        let extensions: Vec<String> = self
            .hooks
            .extensions()
            .map(|e| {
                let hooks = match e.hook_count() {
                    1 => "1 hook".to_owned(),
                    n => format!("{n} hooks"),
                };
                let state = if e.is_enabled() {
                    String::new()
                } else {
                    format!(", {}", disabled_text(e))
                };
                format!("{} ({hooks}{state})", e.name())
            })
            .collect();
        writeln!(f, "extensions: {}", extensions.join(", "))
    }
}

/// `disabled by ./hookchain.yaml:7` (or `disabled by the agent's code`).
fn disabled_text(extension: &Extension) -> String {
    match extension.disabled_by() {
        Some(who) => format!("disabled by {who}"),
        None => "disabled".to_owned(),
    }
}

impl fmt::Debug for Description<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
