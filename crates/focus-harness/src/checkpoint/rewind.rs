//! A rewind of the project's files to the state of an entry of the session
//! tree: plan against what focus last recorded ([`super::plan`]), stop at a
//! dry run, else run the plan under a journal ([`super::journal`]) and record
//! what it did as a restore entry, so the next rewind knows what the disk
//! holds. [`record`] is also how a checkpoint reaches the session.

use super::history::{branch_ids, entry_data, FileHistory, CHECKPOINT_TYPE, RESTORE_TYPE};
use super::journal::RestoreLink;
use super::manifest::{new_id, Manifest};
use super::plan::{plan, Plan};
use super::store::CheckpointStore;
use crate::session::{EntryKind, SessionManager};
use std::path::{Path, PathBuf};

/// What a rewind did (or, dry, would do).
#[derive(Clone, Debug, Default)]
pub struct RewindReport {
    /// The operations and conflicts.
    pub plan: Plan,
    /// Operations that failed (the others were done).
    pub failures: Vec<String>,
    /// Checkpoints whose manifests are gone (pruned): what they changed
    /// cannot be undone.
    pub missing: Vec<String>,
    /// Whether the files were left untouched (`--dry-run`).
    pub dry_run: bool,
    /// The paths written or removed.
    pub touched: Vec<PathBuf>,
}

impl RewindReport {
    /// One line per operation, conflict and failure, for a person.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = self.plan.describe();
        if !self.missing.is_empty() {
            lines.push(format!(
                "{} checkpoint(s) were pruned; their changes stay: {}",
                self.missing.len(),
                self.missing.join(", ")
            ));
        }
        lines.extend(self.failures.iter().map(|f| format!("failed: {f}")));
        lines
    }
}

/// How a rewind is asked for.
#[derive(Clone, Copy, Debug)]
pub struct RewindRequest<'a> {
    /// The project.
    pub root: &'a Path,
    /// The store the session's checkpoints are in.
    pub store: &'a CheckpointStore,
    /// The entry whose file state to restore (`None`: before the first entry).
    pub target: Option<&'a str>,
    /// Overwrite files changed outside focus.
    pub force: bool,
    /// Only plan.
    pub dry_run: bool,
}

/// Restores the files of `request.root` to their state at `request.target`
/// in `manager`'s session, and records the restore there (not on a dry run).
///
/// # Errors
///
/// The project or the store cannot be read, the journal cannot be written,
/// or the restore entry cannot be appended; the message says which.
pub fn rewind_files(
    manager: &mut SessionManager,
    request: RewindRequest<'_>,
) -> Result<RewindReport, String> {
    let history = FileHistory::load(manager.tree(), &request.store.manifests);
    let target = {
        let ids = branch_ids(manager.tree(), request.target);
        history.state_at(&ids)
    };
    let recorded = history.last_recorded();
    let plan = plan(
        request.root,
        &request.store.blobs,
        &recorded,
        &target,
        request.force,
    )
    .map_err(|e| format!("cannot compare the project with its checkpoints: {e}"))?;
    let mut report = RewindReport {
        missing: history.missing.clone(),
        dry_run: request.dry_run,
        touched: plan.changes.iter().map(|c| c.path.clone()).collect(),
        plan,
        failures: Vec::new(),
    };
    if request.dry_run || report.plan.changes.is_empty() {
        return Ok(report);
    }
    // The restore's record is saved before anything moves; the journal names
    // it, so a restore finished after a crash still gets its entry
    // ([`finish_records`]).
    let manifest = Manifest {
        id: new_id(),
        changes: report.plan.changes.clone(),
        skipped: Vec::new(),
        lines: super::lines::count(&request.store.blobs, &report.plan.changes),
    };
    request
        .store
        .manifests
        .save(&manifest)
        .map_err(|e| format!("cannot save the restore's record (nothing was changed): {e}"))?;
    let link = manager.path().map(|session| RestoreLink {
        session: session.to_path_buf(),
        manifest: manifest.id.clone(),
    });
    let (failures, journal) =
        super::journal::run(request.store, request.root, &report.plan.ops, link.as_ref())
            .map_err(|e| format!("cannot write the restore journal (nothing was changed): {e}"))?;
    report.failures = failures;
    record(manager, request.store, &manifest, "rewind", None, true)?;
    super::journal::done(&journal)
        .map_err(|e| format!("cannot remove the restore journal: {e}"))?;
    Ok(report)
}

/// Appends the `focus.restore` entries that restores finished after a crash
/// owe `manager`'s session (those of other sessions are left; their files
/// are restored, and the next rewind there sees the difference as changes
/// made outside focus).
///
/// # Errors
///
/// An entry cannot be appended.
pub fn finish_records(
    manager: &mut SessionManager,
    store: &CheckpointStore,
    links: &[RestoreLink],
) -> Result<usize, String> {
    let mut appended = 0;
    for link in links {
        if manager.path() != Some(link.session.as_path()) {
            continue;
        }
        let present = manager.tree().entries().iter().any(|e| {
            matches!(&e.kind, EntryKind::Custom { data, .. }
                if data.get("checkpoint").and_then(focus_core::json::Value::as_str) == Some(link.manifest.as_str()))
        });
        if present {
            continue;
        }
        let manifest = store.manifests.load(&link.manifest)?;
        record(manager, store, &manifest, "rewind", None, true)?;
        appended += 1;
    }
    Ok(appended)
}

/// Saves `manifest` and appends the entry that points to it (a checkpoint, or
/// with `restore` a restore); nothing when it records nothing. The entry's id.
///
/// # Errors
///
/// The manifest or the entry cannot be written.
pub fn record(
    manager: &mut SessionManager,
    store: &CheckpointStore,
    manifest: &Manifest,
    cause: &str,
    tool_call_id: Option<&str>,
    restore: bool,
) -> Result<Option<String>, String> {
    if manifest.changes.is_empty() && manifest.skipped.is_empty() {
        return Ok(None);
    }
    store
        .manifests
        .save(manifest)
        .map_err(|e| format!("cannot save checkpoint {}: {e}", manifest.id))?;
    let kind = if restore {
        RESTORE_TYPE
    } else {
        CHECKPOINT_TYPE
    };
    manager
        .append_custom(kind, entry_data(manifest, cause, tool_call_id))
        .map(Some)
        .map_err(|e| format!("cannot record checkpoint {}: {e}", manifest.id))
}
