//! The kernel's half of a tool process beyond Landlock: namespaces, protected
//! mounts, limits, capabilities and seccomp, put together as one
//! `focus_sys::jail::Jail` per spawn.

use std::path::{Path, PathBuf};

use super::limits::ToolLimits;

/// What the system offers besides Landlock, probed once per session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSupport {
    /// Mount and PID namespaces (`None`: neither works here).
    #[cfg(target_os = "linux")]
    pub namespaces: Option<focus_sys::namespaces::Support>,
    /// Whether a seccomp filter can be installed (x86-64, AArch64).
    pub seccomp: bool,
    /// The file the namespaces' answer was read from, when it was remembered
    /// rather than probed now ([`super::probe_cache`]).
    pub remembered_in: Option<PathBuf>,
}

impl KernelSupport {
    /// Probes the running system.
    pub fn probe() -> KernelSupport {
        KernelSupport::probe_remembered(None)
    }

    /// Probes the running system, or reads what a probe found from
    /// `state_dir` when nothing it depends on changed since
    /// ([`super::probe_cache`]; `None`: always probe).
    pub fn probe_remembered(state_dir: Option<&Path>) -> KernelSupport {
        #[cfg(target_os = "linux")]
        {
            let (namespaces, source) = super::probe_cache::namespaces(state_dir);
            KernelSupport {
                namespaces,
                seccomp: focus_sys::seccomp::supported(),
                remembered_in: match (source, state_dir) {
                    (super::probe_cache::Source::Remembered, Some(dir)) => {
                        Some(dir.join(super::probe_cache::FILE_NAME))
                    }
                    _ => None,
                },
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = state_dir;
            KernelSupport {
                seccomp: false,
                remembered_in: None,
            }
        }
    }

    /// Whether protected paths are mounted read-only.
    pub fn protects_paths(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.namespaces.is_some_and(|s| s.mounts)
        }
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// Whether tools get a PID namespace with their own `/proc`.
    pub fn hides_processes(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.namespaces.is_some_and(|s| s.pids)
        }
        #[cfg(not(target_os = "linux"))]
        false
    }
}

/// Everything [`build`] needs from the sandbox.
pub struct Request<'a> {
    /// The project (its protected paths are mounted read-only).
    pub project: &'a Path,
    /// Whether the project is writable (not plan mode): only then are missing
    /// parts of its git directory created to be mounted over.
    pub project_writable: bool,
    /// What the system offers.
    pub support: &'a KernelSupport,
    /// The Landlock rules; `None` where the kernel has no Landlock.
    pub rules: Option<focus_sys::landlock::Rules>,
    /// Limits of tool processes.
    pub limits: &'a ToolLimits,
    /// The session's `pids` control group to join (root).
    pub cgroup_procs: Option<PathBuf>,
    /// Whether `socket(AF_UNIX)` is allowed.
    pub allow_unix_sockets: bool,
    /// Whether sockets of other families are allowed.
    pub network: bool,
}

/// Applies the whole confinement to `command`; an error means it must not run.
///
/// # Errors
///
/// A sentence (starting `sandbox:`) when the Landlock ruleset or the namespace plan cannot be
/// built; the command must not run then.
#[cfg(target_os = "linux")]
pub fn build(request: Request<'_>, command: &mut std::process::Command) -> Result<(), String> {
    use focus_sys::jail::Jail;
    let landlock = match &request.rules {
        Some(rules) => Some(
            focus_sys::landlock::Confinement::new(rules).map_err(|e| format!("sandbox: {e}"))?,
        ),
        None => None,
    };
    let namespaces = match request.support.namespaces {
        Some(support) => {
            // In plan mode Landlock keeps the whole project read-only already:
            // no mounts needed (and nothing is created in `.git`).
            let (pinned, read_only) = if request.project_writable {
                super::mounts::prepare_git_dirs(request.project);
                super::mounts::mount_points(request.project)
            } else {
                (Vec::new(), Vec::new())
            };
            let pinned: Vec<&Path> = pinned.iter().map(PathBuf::as_path).collect();
            let read_only: Vec<&Path> = read_only.iter().map(PathBuf::as_path).collect();
            let message = match request.limits.processes {
                Some(n) => format!(
                    "\nfocus: the command reached the sandbox's limit of {n} processes \
                     (sandbox.limits.processes); it and every process it started were killed.\n"
                ),
                None => "\nfocus: the command could not start more processes; it and every \
                         process it started were killed.\n"
                    .to_string(),
            };
            Some(
                focus_sys::namespaces::Plan::new(
                    support,
                    &pinned,
                    &read_only,
                    request.cgroup_procs.as_deref(),
                    &message,
                )
                .map_err(|e| format!("sandbox: {e}"))?,
            )
        }
        None => None,
    };
    let seccomp = request.support.seccomp.then(|| {
        focus_sys::seccomp::Filter::new(focus_sys::seccomp::Policy {
            allow_unix_sockets: request.allow_unix_sockets,
            network: request.network,
        })
    });
    Jail {
        namespaces,
        limits: Some(request.limits.rlimits().prepare()),
        drop_capabilities: true,
        landlock,
        seccomp,
    }
    .apply_to(command);
    Ok(())
}

/// Applies Landlock alone (the only part outside Linux: never reached, since
/// there is no Landlock there).
///
/// # Errors
///
/// A sentence (starting `sandbox:`) when the Landlock ruleset cannot be built.
#[cfg(not(target_os = "linux"))]
pub fn build(request: Request<'_>, command: &mut std::process::Command) -> Result<(), String> {
    if let Some(rules) = &request.rules {
        focus_sys::landlock::Confinement::new(rules)
            .map_err(|e| format!("sandbox: {e}"))?
            .apply_to(command);
    }
    Ok(())
}
