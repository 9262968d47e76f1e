//! The program's registry: [`Hooks::global`] does no I/O and cannot fail: it is the collected
//! hooks, or the registry the program installed with [`Hooks::set_global`] before first using it.

use std::sync::OnceLock;

use super::builder::HooksBuilder;
use super::error::SetGlobalError;
use super::hooks::Hooks;

/// The global registry, once built or installed.
static GLOBAL: OnceLock<Hooks> = OnceLock::new();

impl Hooks {
    /// The program's registry: every `#[register_hook]` and `#[register_command]` fn linked into
    /// the program and the built-in commands (`/hooks`, `/extensions`), or the
    /// registry the program installed with [`set_global`](Hooks::set_global) (which
    /// `hookchain::init()` does, with the config files it found) before first calling this.
    ///
    /// It never reads a file, never prompts and cannot fail: two collected hooks with the same
    /// name on one point are both kept (and logged). A hook in a library crate is collected only
    /// if that crate is linked: when nothing else of the crate is used, add
    /// `use my_hooks as _;`. [`describe`](Hooks::describe) shows what was collected.
    pub fn global() -> &'static Hooks {
        GLOBAL.get_or_init(|| {
            HooksBuilder::new()
                .collected()
                .builtin_commands()
                .build_lenient()
        })
    }

    /// Installs `hooks` as the program's registry, which [`global`](Hooks::global) returns from
    /// then on. Like `tracing::subscriber::set_global_default`, it is the binary's choice, made
    /// once, before anything uses the global registry: it fails when the global registry was
    /// already built or installed. A library never calls it.
    pub fn set_global(hooks: Hooks) -> Result<&'static Hooks, SetGlobalError> {
        let mut hooks = Some(hooks);
        let installed = GLOBAL.get_or_init(|| hooks.take().expect("taken once"));
        match hooks {
            None => Ok(installed),
            Some(_) => Err(SetGlobalError),
        }
    }
}
