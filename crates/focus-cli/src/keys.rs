//! Keys out of reach of tools: before anything else runs, every variable focus
//! may take a key from (the built-in names, the names models.json points to,
//! and anything named like a credential) leaves the environment, and is wiped
//! from the block `/proc/PID/environ` shows (in place, else by restarting
//! without them: `focus_sys::secrets`). The registry reads them from the vault.

use focus_sys::secrets::{self, Hidden};

/// Hides the keys; returns only in the process that goes on (see the module
/// docs). A warning is printed when neither the wipe nor the restart worked.
pub fn hide() -> Hidden {
    let registry =
        crate::seams::registry().unwrap_or_else(|_| focus_providers::registry::Registry::builtin());
    let names = registry.key_variable_names();
    let hidden = secrets::hide_keys(&|name| {
        names.iter().any(|n| n == name) || focus_tools::secret_env::is_secret_variable(name)
    });
    if let Hidden::InMemoryOnly(why) = &hidden {
        errln!(
            "focus: keys are removed from the environment of every tool, but this process \
             still shows them in /proc ({why})"
        );
    }
    hidden
}
