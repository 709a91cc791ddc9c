//! File checkpoints in the CLI: the walk focus-tools does for grep and find
//! (`.gitignore` and `.ignore` rules honoured, `.git` skipped) plugged into the
//! harness's tracker ([`IgnoringWalker`]), the tracker set on the
//! conversation when the `checkpoints` settings allow ([`enable`]), and the
//! `focus rewind` command ([`run_rewind`]).

use focus_core::json::{Object, Value};
use focus_harness::checkpoint::{
    finish_records, journal, prompt_changes, rewind_files, CheckpointSettings, CheckpointStore,
    ProjectWalker, RewindRequest, Tracker,
};
use focus_harness::conversation::{Conversation, RewindScope, SessionRequest, Store};
use focus_harness::session::{EntryKind, SessionManager};
use focus_tools::ignore::IgnoreStack;
use focus_tools::walk::{walk, Flow};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// focus-tools' walk, stopped (and reported incomplete) past `max_paths`.
pub struct IgnoringWalker {
    /// The most paths listed.
    pub max_paths: usize,
}

impl ProjectWalker for IgnoringWalker {
    fn walk(&self, root: &Path, visit: &mut dyn FnMut(&Path)) -> bool {
        let mut count = 0usize;
        let mut complete = true;
        walk(root, true, &mut |entry| {
            count += 1;
            if count > self.max_paths {
                complete = false;
                return Flow::Stop;
            }
            if let Ok(rel) = entry.path.strip_prefix(root) {
                visit(rel);
            }
            Flow::Continue
        });
        complete
    }

    fn excluded(&self, root: &Path, rel: &Path) -> bool {
        let mut stack = IgnoreStack::for_root(root);
        let mut prefix = PathBuf::new();
        let parts: Vec<_> = rel.components().collect();
        for (i, part) in parts.iter().enumerate() {
            prefix.push(part);
            let last = i + 1 == parts.len();
            let is_dir = !last || root.join(&prefix).is_dir();
            let text = prefix.to_string_lossy();
            if part.as_os_str() == ".git" || stack.is_ignored(&text, is_dir) {
                return true;
            }
            if !last {
                stack = stack.push_dir(&root.join(&prefix), &text);
            }
        }
        false
    }
}

/// Sets a tracker of `cwd` on `conversation` when the settings allow and the
/// session is kept on disk; why not, when it cannot.
pub fn enable(conversation: &mut Conversation, cwd: &Path, settings: &Value) -> Option<String> {
    let settings = CheckpointSettings::from_value(settings);
    if !settings.enabled {
        return None;
    }
    // The first look stores every tracked file: not of a whole home folder or
    // file system.
    let home = focus_harness::session::paths::home_dir();
    if cwd == Path::new("/") || home.as_deref() == Some(cwd) {
        return Some(format!(
            "file checkpoints are off in {} (a home folder or the root; run focus in a project)",
            cwd.display()
        ));
    }
    let folder = conversation
        .session
        .lock()
        .path()
        .and_then(Path::parent)
        .map(Path::to_path_buf)?;
    let walker = IgnoringWalker {
        max_paths: settings.max_paths,
    };
    match Tracker::new(
        cwd,
        CheckpointStore::in_session_dir(&folder),
        Arc::new(walker),
        settings.max_file_bytes,
    ) {
        Ok(mut tracker) => {
            tracker.set_watching(settings.watch);
            let shared = Arc::new(Mutex::new(tracker));
            conversation.checkpoints = Some(shared.clone());
            let own = conversation.session.lock().path().map(Path::to_path_buf);
            start_background(shared, folder, own, &settings);
            None
        }
        Err(e) => Some(format!("file checkpoints are off: {e}")),
    }
}

/// How often the folder's checkpoint store is swept under the caps by a
/// session's start: sweeping reads every session file of the folder, which a
/// batch of hundreds of runs sharing one folder would otherwise repeat once
/// per run (docs/sessions.md, "Bounded storage").
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(600);

/// Takes the first look (the baseline: every tracked file's content) while
/// the user types the first prompt, then sweeps the folder's checkpoint store
/// under the caps (oldest checkpoints of closed sessions first), unless a
/// session of the folder did so in the last [`SWEEP_EVERY`] (the stamp
/// `checkpoints/.swept`). The first checkpoint waits for the baseline if it
/// is not done; a failure is left for that checkpoint to report.
fn start_background(
    tracker: Arc<Mutex<Tracker>>,
    folder: PathBuf,
    own: Option<PathBuf>,
    settings: &CheckpointSettings,
) {
    let (max_session, max_total) = (settings.max_session_bytes, settings.max_total_bytes);
    let spawned = std::thread::Builder::new()
        .name("focus-checkpoints".into())
        .spawn(move || {
            let _ = focus_core::sync::lock(&tracker).baseline();
            let stamp = folder.join("checkpoints").join(".swept");
            let own = own.filter(|_| focus_sys::stamp::due(&stamp, SWEEP_EVERY));
            if let Some(own) = own {
                focus_harness::checkpoint::prune::gc_running(
                    &folder,
                    max_session,
                    max_total,
                    &own,
                    &tracker,
                );
            }
        });
    // Without a thread the first checkpoint takes the baseline itself.
    drop(spawned);
}

/// `focus rewind`'s options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RewindArgs {
    /// `--session ID|PATH` (default: the most recent session of this folder).
    pub session: Option<String>,
    /// `--to ENTRY` (an entry id or its prefix; default: before the last prompt).
    pub to: Option<String>,
    /// `--code`, `--conversation` or `--both` (default `both`).
    pub scope: Option<String>,
    /// `--dry-run`.
    pub dry_run: bool,
    /// `--force`.
    pub force: bool,
}

/// Runs `focus rewind`; the exit code (1 when a conflict was skipped or an
/// operation failed). Lines go to `out`.
///
/// # Errors
///
/// No session, no such entry, or the files cannot be compared; the message says which.
pub fn run_rewind(
    args: &RewindArgs,
    cwd: &Path,
    session_dir: Option<&Path>,
    out: &mut dyn FnMut(&str),
) -> Result<i32, String> {
    let request = match &args.session {
        Some(id) => SessionRequest::Open(id.clone()),
        None => SessionRequest::ContinueRecent,
    };
    let (mut store, _) = Store::open(&request, cwd, session_dir)?;
    let folder = store
        .path()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .ok_or("the session is not on disk")?;
    let checkpoints = CheckpointStore::in_session_dir(&folder);
    let resumed = journal::resume(&checkpoints, cwd).map_err(|e| e.to_string())?;
    for failure in &resumed.failures {
        out(&format!("focus: {failure}"));
    }
    finish_records(store.manager_mut(), &checkpoints, &resumed.links)?;
    let scope = match args.scope.as_deref() {
        None => RewindScope::Both,
        Some(text) => RewindScope::parse(text).ok_or(format!("unknown scope {text:?}"))?,
    };
    let manager = store.manager_mut();
    let target = resolve_target(manager, args.to.as_deref())?;
    out(&format!(
        "rewinding {} to {}",
        match scope {
            RewindScope::Both => "code and conversation",
            RewindScope::Code => "code",
            RewindScope::Conversation => "the conversation",
        },
        target.as_deref().unwrap_or("the session's start")
    ));
    let moves_leaf = scope != RewindScope::Code && !args.dry_run;
    if moves_leaf {
        manager
            .move_leaf(target.as_deref())
            .map_err(|e| e.to_string())?;
    }
    let mut code = 0;
    let mut recorded = false;
    if scope != RewindScope::Conversation {
        let before = manager.tree().entries().len();
        let report = rewind_files(
            manager,
            RewindRequest {
                root: cwd,
                store: &checkpoints,
                target: target.as_deref(),
                force: args.force,
                dry_run: args.dry_run,
            },
        )?;
        recorded = manager.tree().entries().len() > before;
        let lines = report.lines();
        if lines.is_empty() {
            out("no file changes");
        }
        for line in lines {
            out(&line);
        }
        if (!report.plan.conflicts.is_empty() && !args.force) || !report.failures.is_empty() {
            code = 1;
        }
    }
    if moves_leaf && !recorded {
        // A moved leaf is only remembered with an entry under it.
        let mut data = Object::new();
        data.insert("to", target.as_deref().map_or(Value::Null, Value::from));
        manager
            .append_custom("focus.rewind", Value::Object(data))
            .map_err(|e| e.to_string())?;
    }
    Ok(code)
}

/// The entry `to` names (an id or a prefix), or, without `--to`, the entry
/// before the last user prompt of the current branch.
fn resolve_target(manager: &SessionManager, to: Option<&str>) -> Result<Option<String>, String> {
    let tree = manager.tree();
    if let Some(prefix) = to {
        let matches: Vec<&str> = tree
            .entries()
            .iter()
            .map(|e| e.id.as_ref())
            .filter(|id: &&str| id.starts_with(prefix))
            .collect();
        return match matches.as_slice() {
            [one] => Ok(Some(one.to_string())),
            [] => Err(format!("no entry of the session starts with {prefix:?}")),
            _ => Err(format!(
                "{prefix:?} names {} entries; give more of the id",
                matches.len()
            )),
        };
    }
    let last_user = tree
        .current_branch()
        .into_iter()
        .rev()
        .find(|e| {
            matches!(
                &e.kind,
                EntryKind::Message(focus_core::message::Message::User(_))
            )
        })
        .ok_or("the session has no prompt to rewind to")?;
    Ok(last_user.parent_id.as_ref().map(|p| p.to_string()))
}

/// RPC `get_checkpoints`: the user's prompts on the current branch, each with
/// the entry a rewind goes to (`rewindTo`: the entry before the prompt) and
/// what the prompt's run changed (files, lines added and removed, paths:
/// [`prompt_changes`], as `/rewind` lists them), and every checkpoint entry of
/// the branch.
pub fn checkpoints_json(conversation: &Conversation) -> Value {
    let store = conversation.session.lock();
    let tree = store.manager().tree();
    let prompts: Vec<Value> = prompt_changes(tree)
        .into_iter()
        .map(|p| {
            let mut prompt = Object::new();
            prompt.insert("entryId", p.entry_id);
            prompt.insert("rewindTo", p.rewind_to.map_or(Value::Null, Value::from));
            prompt.insert("text", p.text);
            prompt.insert("files", p.files);
            prompt.insert("linesAdded", p.lines_added);
            prompt.insert("linesRemoved", p.lines_removed);
            let paths: Vec<Value> = p.paths.into_iter().map(Value::from).collect();
            prompt.insert("paths", paths);
            Value::Object(prompt)
        })
        .collect();
    let mut checkpoints: Vec<Value> = Vec::new();
    for entry in tree.current_branch() {
        if let EntryKind::Custom { custom_type, data } = &entry.kind {
            if custom_type == focus_harness::checkpoint::CHECKPOINT_TYPE {
                let mut listed = Object::new();
                listed.insert("entryId", entry.id.as_ref());
                for (key, value) in data.as_object().into_iter().flat_map(|o| o.iter()) {
                    listed.insert(key, value.clone());
                }
                checkpoints.push(Value::Object(listed));
            }
        }
    }
    let mut out = Object::new();
    out.insert("enabled", conversation.checkpoints.is_some());
    out.insert("prompts", prompts);
    out.insert("checkpoints", checkpoints);
    Value::Object(out)
}

/// RPC `rewind`: `{"entryId"?, "scope"?: "both"|"code"|"conversation",
/// "dryRun"?, "force"?}`; without `entryId`, to before the last prompt.
///
/// # Errors
///
/// A bad scope or entry, or the rewind failed; the message says which.
pub fn rpc_rewind(conversation: &mut Conversation, command: &Value) -> Result<Value, String> {
    let scope = match command["scope"].as_str() {
        None => RewindScope::Both,
        Some(text) => RewindScope::parse(text).ok_or(format!(
            "unknown scope {text:?}; use both, code or conversation"
        ))?,
    };
    let target = {
        let store = conversation.session.lock();
        resolve_target(store.manager(), command["entryId"].as_str())?
    };
    let dry_run = command["dryRun"].as_bool().unwrap_or(false);
    let force = command["force"].as_bool().unwrap_or(false);
    let report = conversation.rewind(target.as_deref(), scope, force, dry_run)?;
    let mut out = Object::new();
    out.insert("entryId", target.map_or(Value::Null, Value::from));
    if let Some(report) = report {
        let ops: Vec<Value> = report
            .plan
            .ops
            .iter()
            .map(|o| Value::from(o.describe()))
            .collect();
        out.insert("operations", ops);
        let conflicts: Vec<Value> = report
            .plan
            .conflicts
            .iter()
            .map(|c| {
                let mut object = Object::new();
                object.insert("path", c.path.to_string_lossy().as_ref());
                object.insert("diff", c.diff.as_str());
                Value::Object(object)
            })
            .collect();
        out.insert("conflicts", conflicts);
        let failures: Vec<Value> = report
            .failures
            .iter()
            .map(|f| Value::from(f.as_str()))
            .collect();
        out.insert("failures", failures);
    }
    out.insert("dryRun", dry_run);
    out.insert("messageCount", conversation.history.len() as u64);
    Ok(Value::Object(out))
}

/// `focus sessions gc`: sweeps the checkpoint store of this folder's sessions
/// under the `checkpoints` caps; prints what it did. The exit code.
pub fn sessions_gc(cwd: &Path, out: &mut dyn FnMut(&str)) -> i32 {
    let settings =
        focus_harness::settings::load_settings(&focus_harness::session::focus_home(), cwd)
            .map(|l| CheckpointSettings::from_value(l.settings.raw("checkpoints")))
            .unwrap_or_default();
    let folder = focus_harness::session::SessionStore::from_env().dir_for(cwd);
    let report = focus_harness::checkpoint::prune::gc(
        &folder,
        settings.max_session_bytes,
        settings.max_total_bytes,
    );
    out(&format!(
        "{}: {} checkpoint(s) pruned, {} manifest(s) and {} content file(s) removed, {} bytes freed, {} bytes kept{}",
        folder.display(),
        report.pruned,
        report.manifests_removed,
        report.blobs_removed,
        report.bytes_freed,
        report.bytes_kept,
        if report.open_sessions > 0 {
            format!(
                " ({} session(s) open: their checkpoints and unreferenced content kept)",
                report.open_sessions
            )
        } else {
            String::new()
        }
    ));
    0
}
