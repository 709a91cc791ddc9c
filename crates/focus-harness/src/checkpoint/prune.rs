//! Bounded storage and `focus sessions gc`: the checkpoint store of one
//! session folder is swept ([`gc`]):
//!
//! 1. manifests no session file of the folder points to (a checkpoint whose
//!    entry a crash kept from being appended) are removed, unless younger than
//!    ten minutes (a writer may be about to append the entry);
//! 2. while the content the closed sessions' checkpoints hold exceeds the
//!    per-session cap, that session's oldest checkpoints are pruned; while the
//!    whole store exceeds the total cap, the oldest checkpoints of the closed
//!    sessions (oldest session first) are pruned. A session that is being
//!    written (its lock's holder runs) is never pruned;
//! 3. content no remaining manifest names is removed, but only when no
//!    session of the folder is being written (a running tracker holds the
//!    project's baseline in the store without a manifest naming it).
//!
//! A pruned checkpoint's entry stays in its session; a rewind over it says
//! its changes cannot be undone.
//!
//! Besides `focus sessions gc`, every session that turns file checkpoints on
//! sweeps its folder in the background ([`gc_running`]): the caps hold
//! without anyone running the command.

use super::history::{CHECKPOINT_TYPE, RESTORE_TYPE};
use super::manifest::Manifest;
use super::node::Node;
use super::store::CheckpointStore;
use super::tracker::Tracker;
use crate::session::lock::Holder;
use focus_core::sync::lock;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// What a sweep did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GcReport {
    /// Manifests removed (orphans and pruned checkpoints).
    pub manifests_removed: usize,
    /// Checkpoints pruned for the caps.
    pub pruned: usize,
    /// Blobs removed, and their bytes.
    pub blobs_removed: usize,
    /// Bytes freed.
    pub bytes_freed: u64,
    /// Bytes the store holds after the sweep.
    pub bytes_kept: u64,
    /// Sessions being written (their checkpoints untouched).
    pub open_sessions: usize,
}

/// The sessions of `folder` and the manifest ids each points to, in file
/// order, with whether it is being written and its modification time.
struct SessionRefs {
    ids: Vec<String>,
    open: bool,
    modified: SystemTime,
}

fn session_refs(folder: &Path) -> BTreeMap<PathBuf, SessionRefs> {
    let open_locks = running_lock_count(folder);
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(folder).into_iter().flatten().flatten() {
        let path = entry.path();
        if !path.extension().is_some_and(|e| e == "jsonl") {
            continue;
        }
        let Ok(text) = fs::read(&path) else { continue };
        let mut ids = Vec::new();
        for line in text.split(|b| *b == b'\n') {
            let interesting = [CHECKPOINT_TYPE, RESTORE_TYPE]
                .iter()
                .any(|t| line.windows(t.len()).any(|w| w == t.as_bytes()));
            if !interesting {
                continue;
            }
            if let Some(id) = focus_core::json::parse(line)
                .ok()
                .and_then(|v| v["data"]["checkpoint"].as_str().map(str::to_string))
            {
                ids.push(id);
            }
        }
        let modified = entry
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        out.insert(
            path.clone(),
            SessionRefs {
                ids,
                open: open_locks.contains(&lock_key(&path)),
                modified,
            },
        );
    }
    out
}

/// The `.<dev>-<ino>.lock` names whose holder runs.
fn running_lock_count(folder: &Path) -> HashSet<String> {
    let mut out = HashSet::new();
    for entry in fs::read_dir(folder).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.starts_with('.') && name.ends_with(".lock")) {
            continue;
        }
        let running = fs::read_to_string(entry.path())
            .ok()
            .and_then(|t| Holder::parse(&t))
            .is_some_and(|h| h.is_running());
        if running {
            out.insert(name);
        }
    }
    out
}

fn lock_key(session: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(session)
        .map(|m| format!(".{}-{}.lock", m.dev(), m.ino()))
        .unwrap_or_default()
}

fn blobs_of(manifest: &Manifest) -> impl Iterator<Item = (&str, u64)> {
    manifest
        .changes
        .iter()
        .flat_map(|c| [&c.before, &c.after])
        .filter_map(|n| match n {
            Some(Node::File { blob, size, .. }) => Some((blob.as_str(), *size)),
            _ => None,
        })
}

/// Sweeps the store of the session folder `folder` (see the module's text).
pub fn gc(folder: &Path, max_session_bytes: u64, max_total_bytes: u64) -> GcReport {
    sweep(folder, max_session_bytes, max_total_bytes, None)
}

/// The automatic sweep a running session starts (in the background) when it
/// turns file checkpoints on: as [`gc`], but the running session itself
/// (`own`, its session file) does not keep content from being removed. Its
/// own checkpoints are never pruned, and the content its tracker holds
/// without a manifest naming it (the baseline) is kept: the tracker is locked
/// while content is removed, so it cannot store a file meanwhile.
pub fn gc_running(
    folder: &Path,
    max_session_bytes: u64,
    max_total_bytes: u64,
    own: &Path,
    tracker: &Mutex<Tracker>,
) -> GcReport {
    sweep(
        folder,
        max_session_bytes,
        max_total_bytes,
        Some((own, tracker)),
    )
}

fn sweep(
    folder: &Path,
    max_session_bytes: u64,
    max_total_bytes: u64,
    running: Option<(&Path, &Mutex<Tracker>)>,
) -> GcReport {
    let store = CheckpointStore::in_session_dir(folder);
    let mut sessions = session_refs(folder);
    let own_key = running.map(|(own, _)| own.to_path_buf());
    let own_path = own_key.as_ref().and_then(|own| {
        sessions
            .keys()
            .find(|p| p.file_name() == own.file_name())
            .cloned()
    });
    let own_ids: Vec<String> = own_path
        .and_then(|p| sessions.remove(&p))
        .map(|s| s.ids)
        .unwrap_or_default();
    let mut report = GcReport {
        open_sessions: sessions.values().filter(|s| s.open).count(),
        ..GcReport::default()
    };
    let referenced: HashSet<&str> = sessions
        .values()
        .flat_map(|s| s.ids.iter().map(String::as_str))
        .chain(own_ids.iter().map(String::as_str))
        .collect();
    let young = SystemTime::now() - Duration::from_secs(600);
    for (id, time) in store.manifests.list() {
        if !referenced.contains(id.as_str()) && time < young && store.manifests.remove(&id).is_ok()
        {
            report.manifests_removed += 1;
        }
    }
    let mut manifests: HashMap<String, Manifest> = HashMap::new();
    for id in &referenced {
        if let Ok(m) = store.manifests.load(id) {
            manifests.insert(id.to_string(), m);
        }
    }
    let bytes_of = |ids: &[String], manifests: &HashMap<String, Manifest>| -> u64 {
        let mut seen = HashSet::new();
        ids.iter()
            .filter_map(|id| manifests.get(id))
            .flat_map(blobs_of)
            .filter(|(blob, _)| seen.insert(blob.to_string()))
            .map(|(_, size)| size)
            .sum()
    };
    // Closed sessions, oldest first; each one's live checkpoint ids, oldest first.
    let mut closed: Vec<(SystemTime, Vec<String>)> = sessions
        .values()
        .filter(|s| !s.open)
        .map(|s| (s.modified, s.ids.clone()))
        .collect();
    closed.sort_by_key(|(time, _)| *time);
    let prune = |id: &str, manifests: &mut HashMap<String, Manifest>, report: &mut GcReport| {
        if manifests.remove(id).is_some() && store.manifests.remove(id).is_ok() {
            report.pruned += 1;
            report.manifests_removed += 1;
        }
    };
    for (_, ids) in closed.iter_mut() {
        while !ids.is_empty() && bytes_of(ids, &manifests) > max_session_bytes {
            let id = ids.remove(0);
            prune(&id, &mut manifests, &mut report);
        }
    }
    let total = |m: &HashMap<String, Manifest>| -> u64 {
        let mut seen = HashSet::new();
        m.values()
            .flat_map(blobs_of)
            .filter(|(b, _)| seen.insert(b.to_string()))
            .map(|(_, s)| s)
            .sum()
    };
    for (_, ids) in closed.iter_mut() {
        while !ids.is_empty() && total(&manifests) > max_total_bytes {
            let id = ids.remove(0);
            prune(&id, &mut manifests, &mut report);
        }
    }
    let mut keep: HashSet<String> = manifests
        .values()
        .flat_map(blobs_of)
        .map(|(b, _)| b.to_string())
        .collect();
    let blobs = store.blobs.list();
    // The running session's tracker stores nothing while content is removed;
    // what it holds, and what every manifest on disk now names (its own
    // checkpoints saved since the sweep began), is kept.
    let tracker = running.map(|(_, tracker)| lock(tracker));
    if let Some(tracker) = &tracker {
        keep.extend(tracker.state().filter_map(|(_, node)| match node {
            Node::File { blob, .. } => Some(blob.clone()),
            _ => None,
        }));
        for (id, _) in store.manifests.list() {
            if !manifests.contains_key(&id) {
                if let Ok(m) = store.manifests.load(&id) {
                    keep.extend(blobs_of(&m).map(|(b, _)| b.to_string()));
                }
            }
        }
    }
    for (id, size) in blobs {
        if keep.contains(&id) {
            report.bytes_kept += size;
        } else if report.open_sessions == 0 && store.blobs.remove(&id).is_ok() {
            report.blobs_removed += 1;
            report.bytes_freed += size;
        } else {
            report.bytes_kept += size;
        }
    }
    report
}
