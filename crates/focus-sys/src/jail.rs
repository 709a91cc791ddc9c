//! The jail: everything a tool's process does between `fork` and `exec`, in
//! the one order that works.
//!
//! 1. join the session's `pids` control group, make the namespaces, map the
//!    ids and mount the protected paths read-only ([`crate::namespaces`]);
//! 2. set the resource limits ([`crate::rlimits`]), after the user namespace
//!    so a normal user's process count is the namespace's own;
//! 3. split into the PID namespace's init and the command
//!    ([`crate::namespaces::Plan::split_pid`]); what follows runs in the
//!    command's process only;
//! 4. `no_new_privs`, then drop every capability ([`crate::capabilities`]);
//! 5. restrict to the Landlock ruleset ([`crate::landlock`]);
//! 6. install the seccomp filter ([`crate::seccomp`]) last, since it refuses
//!    the mount and namespace calls of step 1.
//!
//! Everything is prepared in the parent ([`Jail`]'s fields are built there:
//! ruleset descriptor, compiled filter, C strings, map contents), so the child
//! only makes system calls. A step that fails makes the spawn fail with its
//! error: a command never runs with less confinement than asked.

use std::os::unix::process::CommandExt;
use std::process::Command;

use crate::landlock::Confinement;
use crate::namespaces::Plan;
use crate::rlimits::Prepared;
use crate::seccomp::Filter;

/// The confinement of one tool process; each part is optional.
#[derive(Debug, Default)]
pub struct Jail {
    /// Namespaces, read-only mounts, the control group to join.
    pub namespaces: Option<Plan>,
    /// Resource limits.
    pub limits: Option<Prepared>,
    /// Drop every capability (and set `no_new_privs`).
    pub drop_capabilities: bool,
    /// The Landlock ruleset.
    pub landlock: Option<Confinement>,
    /// The seccomp filter.
    pub seccomp: Option<Filter>,
}

impl Jail {
    /// Makes `command`'s child apply the jail before `exec` (see the module
    /// docs for the order).
    pub fn apply_to(self, command: &mut Command) {
        let jail = self;
        let setup = move || -> std::io::Result<()> {
            if let Some(plan) = &jail.namespaces {
                plan.enter()?;
            }
            if let Some(limits) = &jail.limits {
                limits.apply()?;
            }
            if let Some(plan) = &jail.namespaces {
                plan.split_pid()?;
            }
            crate::ffi::set_no_new_privs()?;
            if jail.drop_capabilities {
                crate::capabilities::drop_all()?;
            }
            if let Some(landlock) = &jail.landlock {
                landlock.restrict_self()?;
            }
            if let Some(filter) = &jail.seccomp {
                filter.install()?;
            }
            Ok(())
        };
        // SAFETY: the closure runs in the forked child before exec and makes
        // only async-signal-safe system calls on memory prepared before the
        // fork (it allocates nothing); see each step's function.
        unsafe {
            command.pre_exec(setup);
        }
    }
}
