//! A process-count limit that holds for root too: a `pids` control group.
//!
//! `RLIMIT_NPROC` never applies to uid 0 (see [`crate::rlimits`]), so a fork
//! bomb run by a root tool would only end at the machine's pid limit. Where
//! focus may create a control group (root, with the `pids` controller mounted
//! writable: cgroup v1's `/sys/fs/cgroup/pids`, or v2 with `pids` enabled for
//! children), [`PidsGroup::create`] makes one for the session with `pids.max`
//! set, and every tool process joins it between `fork` and `exec` by writing
//! `0` (itself) to its `cgroup.procs` ([`PidsGroup::procs_file`]). The limit
//! then counts every tool process of the session together, root or not, and
//! a `fork` past it fails with `EAGAIN`. The group is removed by
//! [`PidsGroup::remove`] once empty.

use std::path::{Path, PathBuf};

/// A `pids` control group made for this session.
#[derive(Debug)]
pub struct PidsGroup {
    dir: PathBuf,
}

impl PidsGroup {
    /// Creates `focus-<name>` beside this process's own `pids` group with
    /// `pids.max = max`; `None` where that is not possible (no controller, no
    /// permission).
    pub fn create(name: &str, max: u64) -> Option<PidsGroup> {
        let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let mut candidates = Vec::new();
        for line in own.lines() {
            let mut parts = line.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            let path = path.trim_start_matches('/');
            if controllers.split(',').any(|c| c == "pids") {
                candidates.push(Path::new("/sys/fs/cgroup/pids").join(path));
            } else if controllers.is_empty() {
                candidates.push(Path::new("/sys/fs/cgroup").join(path));
                candidates.push(Path::new("/sys/fs/cgroup/unified").join(path));
            }
        }
        for parent in candidates {
            let dir = parent.join(format!("focus-{name}"));
            if std::fs::create_dir(&dir).is_err() && !dir.is_dir() {
                continue;
            }
            if std::fs::write(dir.join("pids.max"), max.to_string()).is_ok() {
                return Some(PidsGroup { dir });
            }
            let _ = std::fs::remove_dir(&dir);
        }
        None
    }

    /// The group's `cgroup.procs`: a process writing `0` to it joins.
    pub fn procs_file(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// How often a `fork` was refused at the limit so far (`pids.events`).
    pub fn times_at_limit(&self) -> u64 {
        std::fs::read_to_string(self.dir.join("pids.events"))
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("max ").map(|n| n.trim().parse().ok()))
            })
            .flatten()
            .unwrap_or(0)
    }

    /// Removes the group if no process is left in it.
    pub fn remove(&self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}
