//! The sandbox: the kernel's half of a permission mode.
//!
//! The permission gate ([`crate::gates`]) decides whether a call runs, and for
//! shell commands it leans on a judge that reads the command line. A judge of
//! bash can be wrong (bash is large); the kernel cannot be talked around. So
//! every process focus starts for a tool (the `bash` tool, a `!command`, the
//! project's hooks, and the user's own hooks when `sandbox.hooks` says so) is
//! confined with Landlock
//! ([`focus_sys::landlock`]) before it runs:
//!
//! | mode | the kernel lets the process write |
//! |------|-----------------------------------|
//! | plan | `/dev/null` and a private temporary directory |
//! | default, accept-edits, auto | the project (resolved, so a symbolic link out of it grants nothing), the temporary directory, `/dev/null`, and `sandbox.writablePaths` |
//!
//! Reading and executing stay open everywhere; writing a device (`/dev/tty`)
//! is refused; with `sandbox.network: false` so are TCP `connect` and `bind`.
//! The temporary directory is private (mode 0700) and is the child's `TMPDIR`.
//!
//! The file tools run inside focus itself, so the kernel cannot confine them;
//! they ask [`Sandbox::check_write`] (and [`Sandbox::check_read`]) with the
//! same policy instead, on the path with every symbolic link resolved.
//!
//! Where the kernel has no Landlock the [`Status`] says so, focus says so once
//! at start and in `/session`, and the gate alone stands: plan mode refuses
//! every command the judge cannot prove read-only. `--sandbox off` (or
//! `sandbox.enabled: false`) is the explicit choice to run unconfined.
//!
//! The CLI builds one [`Sandbox`] for the session and builds the tools, the
//! gate (for hooks) and the MCP servers with it ([`crate::ToolState`]); a
//! library user who gives none gets [`Sandbox::off`], the old, unconfined
//! behaviour. Its private temporary directory goes when it is dropped.

pub mod kernel;
pub mod limits;
pub mod mounts;
pub mod probe_cache;
pub mod settings;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

pub use crate::protected::protected_paths;
use focus_sys::landlock::Rules;
pub use kernel::KernelSupport;
pub use limits::ToolLimits;
pub use settings::SandboxSettings;

use crate::gates::permission::Mode;

/// Whether tools are confined, and if not, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The kernel confines every tool process (Landlock at this ABI version).
    Enforcing {
        /// The Landlock ABI version in use.
        abi: u32,
    },
    /// The kernel cannot confine tools here; the text says why.
    Unavailable(String),
    /// Turned off on purpose (`--sandbox off` or `sandbox.enabled: false`).
    Off,
}

/// One session's sandbox: the policy for the current mode, and the private
/// temporary directory. See the module docs.
#[derive(Debug)]
pub struct Sandbox {
    status: Status,
    project: PathBuf,
    /// Where the private temporary directory is made, on first use.
    temp_base: PathBuf,
    /// The private temporary directory, once made (`None`: it could not be).
    temp: OnceLock<Option<PathBuf>>,
    writable: Vec<PathBuf>,
    network: bool,
    hooks: bool,
    mcp_servers: bool,
    read_only: AtomicBool,
    /// Whether `temp` was created for this sandbox (and may be removed).
    owns_temp: bool,
    /// Whether tools may create Unix sockets (`sandbox.allowUnixSockets`).
    allow_unix: bool,
    /// Limits of tool processes.
    limits: ToolLimits,
    /// Namespaces and seccomp, as far as the system offers them.
    support: KernelSupport,
    /// The session's `pids` control group (root), made at the first spawn.
    #[cfg(target_os = "linux")]
    pids_group: OnceLock<Option<focus_sys::cgroup::PidsGroup>>,
}

impl Sandbox {
    /// No confinement and no path checks: what tools built without a sandbox
    /// get, and what `--sandbox off` gives.
    pub fn off() -> Sandbox {
        Sandbox {
            status: Status::Off,
            project: PathBuf::from("/"),
            temp_base: std::env::temp_dir(),
            temp: OnceLock::from(Some(std::env::temp_dir())),
            writable: Vec::new(),
            network: true,
            hooks: false,
            mcp_servers: false,
            read_only: AtomicBool::new(false),
            owns_temp: false,
            allow_unix: true,
            limits: ToolLimits::default(),
            support: KernelSupport {
                #[cfg(target_os = "linux")]
                namespaces: None,
                seccomp: false,
                remembered_in: None,
            },
            #[cfg(target_os = "linux")]
            pids_group: OnceLock::new(),
        }
    }

    /// The sandbox for a session in `project` (starting in default mode),
    /// with its private temporary directory created under the system's.
    ///
    /// # Errors
    ///
    /// The project folder cannot be resolved.
    pub fn new(settings: &SandboxSettings, project: &Path) -> Result<Sandbox, String> {
        Sandbox::with_temp_base(settings, project, &std::env::temp_dir())
    }

    /// Like [`Sandbox::new`], with the private temporary directory created
    /// under `temp_base` (tests keep everything in one directory this way).
    ///
    /// # Errors
    ///
    /// The project folder cannot be resolved.
    pub fn with_temp_base(
        settings: &SandboxSettings,
        project: &Path,
        temp_base: &Path,
    ) -> Result<Sandbox, String> {
        let project = project.canonicalize().map_err(|e| {
            format!(
                "sandbox: cannot resolve the project {}: {e}",
                project.display()
            )
        })?;
        let status = if !settings.enabled {
            Status::Off
        } else {
            match focus_sys::landlock::abi_version() {
                Some(abi) => Status::Enforcing { abi },
                None if cfg!(target_os = "linux") => Status::Unavailable(
                    "this Linux kernel offers no Landlock (older than 5.13, or not enabled at boot)"
                        .to_string(),
                ),
                None => Status::Unavailable("Landlock exists only on Linux".to_string()),
            }
        };
        Ok(Sandbox {
            status,
            project,
            temp_base: temp_base.to_path_buf(),
            temp: OnceLock::new(),
            writable: settings
                .writable_paths
                .iter()
                .map(|p| resolve_existing(p))
                .collect(),
            network: settings.network,
            hooks: settings.hooks,
            mcp_servers: settings.mcp_servers,
            read_only: AtomicBool::new(false),
            owns_temp: true,
            allow_unix: !settings.allow_unix_sockets.is_empty(),
            limits: settings.limits,
            support: if settings.enabled {
                KernelSupport::probe_remembered(settings.state_dir.as_deref())
            } else {
                Sandbox::off().support.clone()
            },
            #[cfg(target_os = "linux")]
            pids_group: OnceLock::new(),
        })
    }

    /// Whether tools are confined.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// Whether the kernel confines tool processes.
    pub fn is_enforcing(&self) -> bool {
        matches!(self.status, Status::Enforcing { .. })
    }

    /// One line for `/session` and for start-up: what confines tools now.
    pub fn describe(&self) -> String {
        match &self.status {
            Status::Enforcing { abi } => {
                format!(
                    "sandbox: Landlock ABI {abi}; tools write only {}{}",
                    if self.read_only.load(Ordering::SeqCst) {
                        "the private temporary directory (plan mode)".to_string()
                    } else {
                        let extra = match self.writable.len() {
                            0 => String::new(),
                            1 => ", 1 path from sandbox.writablePaths".to_string(),
                            n => format!(", {n} paths from sandbox.writablePaths"),
                        };
                        format!(
                            "inside {}{extra} and the private temporary directory",
                            crate::path::printable(&self.project.display().to_string())
                        )
                    },
                    if self.network { "" } else { "; no network" }
                ) + &self.describe_kernel()
            }
            Status::Unavailable(why) => format!(
                "sandbox: NONE ({why}); plan mode refuses every command it cannot prove \
                 read-only, and other modes rely on asking"
            ),
            Status::Off => "sandbox: off (--sandbox off or sandbox.enabled: false); tools run \
                            unconfined"
                .to_string(),
        }
    }

    /// What confines tools besides Landlock, for [`Sandbox::describe`].
    fn describe_kernel(&self) -> String {
        let mut parts = Vec::new();
        parts.push(if self.support.protects_paths() {
            "git config/hooks/info and .focus, .claude, .codex, .pi read-only".to_string()
        } else {
            "NO mount namespace here, so git config/hooks and .focus are writable by tools"
                .to_string()
        });
        parts.push(if self.support.hides_processes() {
            "own PID namespace and /proc".to_string()
        } else {
            "NO PID namespace here, so other processes' /proc entries are readable".to_string()
        });
        if self.support.seccomp {
            parts.push(if self.allow_unix {
                "seccomp (Unix sockets ALLOWED by sandbox.allowUnixSockets: the kernel cannot                  limit them to the listed paths)"
                    .to_string()
            } else {
                "seccomp (no Unix sockets, no devices, no ptrace, no mounts)".to_string()
            });
        } else {
            parts.push("NO seccomp filter on this architecture".to_string());
        }
        parts.push("no capabilities".to_string());
        format!("; {}", parts.join("; "))
    }

    /// The warning to print once at start, when there is one: the kernel could
    /// not confine tools although the sandbox was wanted, or confines them
    /// less than it should (no namespaces, no seccomp, Unix sockets allowed).
    pub fn start_notice(&self) -> Option<String> {
        match self.status {
            Status::Unavailable(_) => Some(self.describe()),
            Status::Enforcing { .. }
                if !self.support.protects_paths()
                    || !self.support.hides_processes()
                    || !self.support.seccomp
                    || self.allow_unix =>
            {
                Some(self.describe())
            }
            _ => None,
        }
    }

    /// Every protected path of the project ([`crate::protected`]): the write
    /// and edit tools ask before writing one; tool processes see them read-only.
    pub fn protected_paths(&self) -> Vec<PathBuf> {
        crate::protected::protected_paths(&self.project)
    }

    /// The limits of tool processes.
    pub fn limits(&self) -> &ToolLimits {
        &self.limits
    }

    /// What the system offers besides Landlock.
    pub fn kernel_support(&self) -> &KernelSupport {
        &self.support
    }

    /// After a confined command could not start: if the namespaces' answer
    /// was remembered from an earlier session ([`probe_cache`]), that answer
    /// may be what no longer holds, so its file is removed (the next session
    /// probes again) and a sentence saying so is returned for the error.
    pub fn forget_remembered_probe(&self) -> Option<String> {
        let file = self.support.remembered_in.as_ref()?;
        std::fs::remove_file(file).ok()?;
        Some(format!(
            "The sandbox used the namespaces an earlier session found working ({}); that \
             answer is now removed, so the next focus session probes them again.",
            file.display()
        ))
    }

    /// Notes the protected names absent from the project before a command
    /// runs; [`Sandbox::after_call`] moves any that appeared. `None` when off.
    pub fn before_call(&self) -> Option<mounts::MissingGuard> {
        (self.status != Status::Off).then(|| mounts::MissingGuard::before(&self.project))
    }

    /// After a command: moves protected names it created out of the project
    /// and returns a note for its result (see [`mounts`]).
    pub fn after_call(&self, guard: Option<mounts::MissingGuard>) -> Option<String> {
        let guard = guard?;
        let quarantine = self
            .temp_dir()
            .map(|t| t.join("moved-out-of-the-project"))?;
        guard.after(&quarantine)
    }

    /// Whether the private temporary directory is past `sandbox.limits.tempDirMb`:
    /// `Some(bytes in use)` if so. Never when off.
    pub fn temp_dir_over_cap(&self) -> Option<u64> {
        let cap = self.limits.temp_dir?;
        if self.status == Status::Off {
            return None;
        }
        let dir = self.temp.get()?.as_deref()?;
        let used = limits::disk_usage(dir, cap);
        (used > cap).then_some(used)
    }

    /// How often a `fork` of a tool process was refused at the session's
    /// process limit so far, where the kernel counts it (root's `pids`
    /// control group; 0 elsewhere).
    pub fn process_limit_hits(&self) -> u64 {
        #[cfg(target_os = "linux")]
        if let Some(Some(group)) = self.pids_group.get() {
            return group.times_at_limit();
        }
        0
    }

    /// Empties the private temporary directory (after it passed its cap).
    pub fn empty_temp_dir(&self) {
        if let Some(Some(dir)) = self.temp.get() {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                let _ = if path.is_dir() && !path.is_symlink() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            }
        }
    }

    /// Follows the permission mode: plan mode makes the policy read-only.
    pub fn set_mode(&self, mode: Mode) {
        self.read_only.store(mode == Mode::Plan, Ordering::SeqCst);
    }

    /// Whether the protected paths are protected ([`crate::protected`]): unless
    /// the sandbox was turned off.
    pub fn protects_paths(&self) -> bool {
        self.status != Status::Off
    }

    /// The writable place a file tool's write of `target` (resolved) starts
    /// from ([`crate::beneath`]): the deepest writable directory holding it,
    /// or `/` when the sandbox is off or none holds it.
    pub fn write_root(&self, target: &Path) -> PathBuf {
        if self.status == Status::Off {
            return PathBuf::from("/");
        }
        self.rules()
            .writable_dirs
            .into_iter()
            .filter(|dir| target.starts_with(dir))
            .max_by_key(|dir| dir.components().count())
            .unwrap_or_else(|| PathBuf::from("/"))
    }

    /// Whether the sandbox is in plan mode's read-only policy.
    pub fn is_read_only(&self) -> bool {
        self.read_only.load(Ordering::SeqCst)
    }

    /// The private temporary directory (the confined children's `TMPDIR`),
    /// made on first use; `None` if it could not be made (then nothing but
    /// `/dev/null` is writable in plan mode).
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp
            .get_or_init(|| create_private_dir(&self.temp_base).ok())
            .as_deref()
    }

    /// Removes the private temporary directory and what tools left in it (at
    /// the end of the session); a sandbox that did not create one removes
    /// nothing.
    pub fn remove_temp_dir(&self) {
        if let (true, Some(Some(dir))) = (self.owns_temp, self.temp.get()) {
            let _ = std::fs::remove_dir_all(dir);
        }
        #[cfg(target_os = "linux")]
        if let Some(Some(group)) = self.pids_group.get() {
            group.remove();
        }
    }

    /// The project directory, resolved.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// The Landlock rules for the current mode.
    pub fn rules(&self) -> Rules {
        self.rules_for(self.read_only.load(Ordering::SeqCst))
    }

    /// The Landlock rules for plan mode (`read_only`) or the modes that write.
    fn rules_for(&self, read_only: bool) -> Rules {
        let mut writable_dirs: Vec<PathBuf> =
            self.temp_dir().map(Path::to_path_buf).into_iter().collect();
        if !read_only {
            writable_dirs.push(self.project.clone());
            writable_dirs.extend(self.writable.iter().cloned());
        }
        Rules {
            writable_dirs,
            writable_files: vec![PathBuf::from("/dev/null")],
            deny_tcp: !self.network,
        }
    }

    /// Confines `command` (a tool's process) to the current policy, and points
    /// its `TMPDIR` at the private directory. A no-op unless enforcing. Fails
    /// only if the kernel refuses a rule; then the command must not run.
    ///
    /// # Errors
    ///
    /// The kernel refuses a rule of the ruleset: the command must not run.
    pub fn confine(&self, command: &mut Command) -> Result<(), String> {
        self.confine_with(command, self.rules())
    }

    /// Confines `command` to `rules` (see [`Sandbox::confine`]): Landlock,
    /// and where the system offers them namespaces with the protected paths
    /// read-only, limits, no capabilities and the seccomp filter
    /// ([`kernel::build`]).
    fn confine_with(&self, command: &mut Command, rules: Rules) -> Result<(), String> {
        if !self.is_enforcing() {
            return Ok(());
        }
        if let Some(temp) = self.temp_dir() {
            command.env("TMPDIR", temp);
        }
        kernel::build(
            kernel::Request {
                project: &self.project,
                project_writable: rules.writable_dirs.contains(&self.project),
                support: &self.support,
                rules: Some(rules),
                limits: &self.limits,
                cgroup_procs: self.cgroup_procs(),
                allow_unix_sockets: self.allow_unix,
                network: self.network,
            },
            command,
        )
    }

    /// The `cgroup.procs` of the session's `pids` control group, made at the
    /// first call where `RLIMIT_NPROC` does not hold (root) and a group can be
    /// made.
    #[cfg(target_os = "linux")]
    fn cgroup_procs(&self) -> Option<PathBuf> {
        let max = self.limits.processes?;
        if !focus_sys::namespaces::is_root() {
            return None;
        }
        self.pids_group
            .get_or_init(|| {
                let name = format!("{}-{:p}", std::process::id(), self as *const Sandbox);
                focus_sys::cgroup::PidsGroup::create(&name, max)
            })
            .as_ref()
            .map(|g| g.procs_file())
    }

    #[cfg(not(target_os = "linux"))]
    fn cgroup_procs(&self) -> Option<PathBuf> {
        None
    }

    /// [`Sandbox::confine`] for a hook: always for a hook of the project's
    /// settings (`from_project`), for one of the user's own settings only
    /// when `sandbox.hooks` is true (they are the user's code, as in Claude
    /// Code, and an audit-log hook must be able to write its log).
    ///
    /// # Errors
    ///
    /// As [`Sandbox::confine`].
    pub fn confine_hook(&self, command: &mut Command, from_project: bool) -> Result<(), String> {
        if from_project || self.hooks {
            self.confine(command)
        } else {
            Ok(())
        }
    }

    /// Confines an MCP server when `sandbox.mcpServers` is true, with the
    /// policy of the modes that write whatever the mode is now: the server
    /// outlives mode changes, and a ruleset cannot be loosened later.
    ///
    /// # Errors
    ///
    /// As [`Sandbox::confine`].
    pub fn confine_mcp_server(&self, command: &mut Command) -> Result<(), String> {
        if self.mcp_servers {
            self.confine_with(command, self.rules_for(false))
        } else {
            Ok(())
        }
    }

    /// Whether a file tool (write, edit) may write `path` (already joined to
    /// the working directory): resolved with every symbolic link followed, it
    /// must lie where a confined process could write. Always allowed when off.
    ///
    /// # Errors
    ///
    /// `path` lies outside what the mode lets a tool write (or plan mode is on); the message says
    /// what is writable.
    pub fn check_write(&self, path: &Path) -> Result<(), String> {
        if self.status == Status::Off {
            return Ok(());
        }
        let resolved = resolve_existing(path);
        let allowed = self
            .rules()
            .writable_dirs
            .iter()
            .any(|dir| resolved.starts_with(dir));
        if allowed {
            return Ok(());
        }
        let shown = crate::path::printable(&resolved.display().to_string()).into_owned();
        Err(if self.read_only.load(Ordering::SeqCst) {
            format!(
                "Blocked by the sandbox: plan mode writes nowhere but the private temporary \
                 directory {}, and {shown} is outside it.",
                self.temp_dir().unwrap_or(Path::new("(none)")).display()
            )
        } else {
            format!(
                "Blocked by the sandbox: {shown} is outside the project {} (symbolic links \
                 resolved). Write inside the project, or ask the user to add the path to \
                 sandbox.writablePaths in settings.",
                self.project.display()
            )
        })
    }

    /// Whether a file tool (read, grep, find, ls) may read `path`: everything
    /// a confined process could read, except another process's environment or
    /// memory under `/proc` (where focus's own keys would be). Always allowed
    /// when off.
    ///
    /// # Errors
    ///
    /// `path` is another process's environment or memory under `/proc`.
    pub fn check_read(&self, path: &Path) -> Result<(), String> {
        if self.status == Status::Off {
            return Ok(());
        }
        let resolved = resolve_existing(path);
        let mut parts = resolved.components().skip(1);
        let is_proc = parts.next().is_some_and(|c| c.as_os_str() == "proc");
        let last = parts.last();
        let private = last.is_some_and(|c| {
            ["environ", "mem", "auxv", "maps", "pagemap"]
                .iter()
                .any(|name| c.as_os_str() == *name)
        });
        if is_proc && private {
            return Err(format!(
                "Blocked by the sandbox: {} holds a process's environment or memory.",
                resolved.display()
            ));
        }
        Ok(())
    }
}

impl Drop for Sandbox {
    /// The private temporary directory goes with the sandbox, and the
    /// session's `pids` control group once no process is left in it.
    fn drop(&mut self) {
        self.remove_temp_dir();
        #[cfg(target_os = "linux")]
        if let Some(Some(group)) = self.pids_group.get() {
            group.remove();
        }
    }
}

/// `path` (made absolute by the caller) with `.` and `..` folded lexically, as
/// the file tools do, then every symbolic link in its longest existing prefix
/// resolved; the components that do not exist yet are appended as written.
pub fn resolve_existing(path: &Path) -> PathBuf {
    let normalized = crate::path::normalize(path);
    let mut existing = normalized.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(mut real) = existing.canonicalize() {
            for name in rest.iter().rev() {
                real.push(name);
            }
            return real;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return normalized.clone(),
        }
    }
}

/// Removes the private directories that earlier focus processes left in
/// `base` when they did not end normally (killed, or the terminal closed):
/// only ours (same owner, mode 0700), only of processes that no longer run
/// (Linux's `/proc` answers), and only when untouched for [`STALE_AFTER`] (a
/// process in another pid namespace sharing `/tmp` is not visible in ours).
/// Listing a busy `/tmp` costs a millisecond or more, so it is done at most
/// every [`SWEEP_EVERY`] by one process of this user (the stamp
/// `focus-tmp-swept-UID` in `base`, focus-sys's `stamp::due`).
fn sweep_stale_dirs(base: &Path) {
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").map_or(u32::MAX, |m| m.uid());
    let stamp = base.join(format!("focus-tmp-swept-{uid}"));
    if focus_sys::stamp::due(&stamp, SWEEP_EVERY) {
        sweep_stale_dirs_older_than(base, STALE_AFTER);
    }
}

/// How long a dead process's private directory stays before it is swept.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(600);

/// How often `base` is looked through for dead processes' directories.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

fn sweep_stale_dirs_older_than(base: &Path, age: std::time::Duration) {
    use std::os::unix::fs::MetadataExt;
    let Ok(me) = std::fs::metadata("/proc/self") else {
        return;
    };
    for entry in std::fs::read_dir(base).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("focus-tmp-"))
            .and_then(|rest| rest.split('-').next())
            .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let path = entry.path();
        let ours = std::fs::symlink_metadata(&path).is_ok_and(|m| {
            let idle = m.modified().ok().and_then(|t| t.elapsed().ok());
            m.is_dir()
                && m.uid() == me.uid()
                && m.mode() & 0o777 == 0o700
                && idle.is_some_and(|idle| idle >= age)
        });
        if ours && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Creates a fresh directory readable only by us under `base` (sweeping the
/// ones dead focus processes left behind first).
fn create_private_dir(base: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    sweep_stale_dirs(base);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for attempt in 0..16u32 {
        let dir = base.join(format!(
            "focus-tmp-{}-{nanos}-{attempt}",
            std::process::id()
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {
                return dir
                    .canonicalize()
                    .map_err(|e| format!("sandbox: cannot resolve {}: {e}", dir.display()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "sandbox: cannot create a private temporary directory in {}: {e}",
                    base.display()
                ))
            }
        }
    }
    Err(format!(
        "sandbox: cannot create a private temporary directory in {}",
        base.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sandbox as it would be on a kernel without Landlock.
    fn unavailable(project: &Path) -> Sandbox {
        Sandbox {
            status: Status::Unavailable("no Landlock in this test".to_string()),
            project: project.to_path_buf(),
            temp_base: std::env::temp_dir(),
            temp: OnceLock::from(None),
            writable: Vec::new(),
            network: true,
            hooks: true,
            mcp_servers: false,
            read_only: AtomicBool::new(false),
            owns_temp: false,
            allow_unix: false,
            limits: ToolLimits::default(),
            support: KernelSupport::probe(),
            #[cfg(target_os = "linux")]
            pids_group: OnceLock::new(),
        }
    }

    #[test]
    fn without_landlock_focus_says_so_and_still_checks_file_tools() {
        let project = std::env::temp_dir().canonicalize().unwrap();
        let sandbox = unavailable(&project);
        let notice = sandbox.start_notice().expect("a notice");
        assert!(
            notice.contains("NONE") && notice.contains("plan mode refuses"),
            "{notice}"
        );
        let mut command = Command::new("true");
        assert!(sandbox.confine(&mut command).is_ok());
        assert!(sandbox.check_write(&project.join("x")).is_ok());
        assert!(sandbox.check_write(Path::new("/etc/x")).is_err());
        sandbox.set_mode(Mode::Plan);
        assert!(sandbox.check_write(&project.join("x")).is_err());
    }

    #[test]
    fn off_says_it_is_a_choice_and_checks_nothing() {
        let sandbox = Sandbox::off();
        assert!(sandbox.start_notice().is_none());
        assert!(sandbox.describe().contains("--sandbox off"));
        assert!(sandbox.check_write(Path::new("/etc/x")).is_ok());
        sandbox.remove_temp_dir(); // must not remove the system's temporary directory
        assert!(std::env::temp_dir().is_dir());
    }

    #[test]
    fn stale_private_dirs_of_dead_processes_are_swept() {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir().join(format!("focus-sweep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let make = |name: &str, mode: u32| {
            std::fs::DirBuilder::new()
                .mode(mode)
                .create(base.join(name))
                .unwrap();
        };
        // No process has pid 4194304 or more (Linux's limit); ours is alive.
        make("focus-tmp-4194304-1-0", 0o700);
        make(&format!("focus-tmp-{}-1-0", std::process::id()), 0o700);
        make("focus-tmp-4194305-1-0", 0o755); // not one of ours: mode differs
        make("other-4194304", 0o700);
        // Too recent to sweep at the real threshold.
        let fresh = create_private_dir(&base).unwrap();
        assert!(fresh.is_dir());
        assert!(base.join("focus-tmp-4194304-1-0").exists());
        sweep_stale_dirs_older_than(&base, std::time::Duration::ZERO);
        assert!(!base.join("focus-tmp-4194304-1-0").exists());
        assert!(base
            .join(format!("focus-tmp-{}-1-0", std::process::id()))
            .exists());
        assert!(base.join("focus-tmp-4194305-1-0").exists());
        assert!(base.join("other-4194304").exists());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn paths_resolve_through_links_and_missing_parts() {
        let base = std::env::temp_dir().canonicalize().unwrap();
        let missing = base.join("focus-sandbox-missing-dir/a/../b");
        assert_eq!(
            resolve_existing(&missing),
            base.join("focus-sandbox-missing-dir/b")
        );
    }
}
