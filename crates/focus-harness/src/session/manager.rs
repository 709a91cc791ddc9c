//! [`SessionManager`]: one open session — its header, its tree, and (unless it is
//! in memory or read-only) the writer that appends to its file.
//!
//! Every `append_*` call writes the entry to the file *before* adding it to the
//! tree, so what the agent goes on with is always what a reload would give. A
//! failed write returns the error and leaves the tree unchanged.

use super::context::{build_context, model_and_thinking, SessionContext};
use super::damaged;
use super::entry::{CompactionEntry, Entry, EntryKind, SessionHeader, CURRENT_VERSION};
use super::error::SessionError;
use super::ids::{session_uuid, unique_short_id};
use super::paths::{id_from_file_name, session_file_name, SessionStore};
use super::reader::{parse_source_for_tree, LoadProblem, ProblemKind, ReadFailure, Refusal, Tail};
use super::source::FileSource;
use super::time::now_iso8601;
use super::tree::SessionTree;
use super::writer::{Durability, SessionWriter};
use focus_core::event::AgentEvent;
use focus_core::json::{ToJson, Value};
use focus_core::message::Message;
use std::path::{Path, PathBuf};

/// An open session.
#[derive(Debug)]
pub struct SessionManager {
    pub(super) header: SessionHeader,
    pub(super) tree: SessionTree,
    pub(super) path: Option<PathBuf>,
    pub(super) writer: Option<SessionWriter>,
    pub(super) problems: Vec<LoadProblem>,
    /// The note about damaged lines skipped on load, if any.
    pub(super) damage_note: Option<String>,
}

impl SessionManager {
    /// A new session for `cwd` in `store`. The file appears with the first entry.
    ///
    /// # Errors
    ///
    /// The writer lock for the new file cannot be taken (its lock file cannot be created).
    pub fn create(store: &SessionStore, cwd: &Path) -> Result<SessionManager, SessionError> {
        SessionManager::create_in(&store.dir_for(cwd), cwd, None)
    }

    /// A new session in directory `dir`, optionally recording the session it was
    /// forked from.
    ///
    /// # Errors
    ///
    /// The writer lock for the new file cannot be taken (its lock file cannot be created).
    pub fn create_in(
        dir: &Path,
        cwd: &Path,
        parent_session: Option<&Path>,
    ) -> Result<SessionManager, SessionError> {
        let header = new_header(cwd, parent_session);
        let path = dir.join(session_file_name(&header.timestamp, &header.id));
        let writer =
            SessionWriter::new(&path, Some(header.to_json().to_json_string()), Tail::Clean)?;
        Ok(SessionManager {
            header,
            tree: SessionTree::default(),
            path: Some(path),
            writer: Some(writer),
            problems: Vec::new(),
            damage_note: None,
        })
    }

    /// A session that is never written (`--no-session`).
    pub fn in_memory(cwd: &Path) -> SessionManager {
        SessionManager {
            header: new_header(cwd, None),
            tree: SessionTree::default(),
            path: None,
            writer: None,
            problems: Vec::new(),
            damage_note: None,
        }
    }

    /// Opens a session file for reading and appending (takes the writer lock).
    /// A missing file becomes a new session at that path.
    ///
    /// A file of an older format version is rewritten in the current version first
    /// (as pi does), because appending version-3 entries under an old header would
    /// make the next load migrate them again. The original is kept beside it as
    /// `<name>.v<N>.bak`, and the new file replaces it with an atomic rename.
    ///
    /// # Errors
    ///
    /// The file cannot be read, is no session (its first line is no session header), is of a newer
    /// version, cannot be migrated, or is locked by another running focus.
    pub fn open(path: &Path) -> Result<SessionManager, SessionError> {
        let (mut manager, tail, has_header) = SessionManager::load(path)?;
        let header_line = (!has_header).then(|| manager.header.to_json().to_json_string());
        // A file whose header line is damaged but whose entries are fine keeps its
        // entries; a header is only written into an empty (or torn-to-empty) file.
        let header_line = header_line.filter(|_| manager.tree.entries().is_empty());
        // The lock is taken before anything is rewritten.
        let mut writer = SessionWriter::new(path, header_line, tail)?;
        let migrated_from = manager.problems.iter().find_map(|p| match p.kind {
            ProblemKind::Migrated { from } => Some(from),
            _ => None,
        });
        if let Some(from) = migrated_from {
            manager.rewrite_in_current_version(path, from)?;
            writer.assume_clean_tail();
        }
        manager.writer = Some(writer);
        Ok(manager)
    }

    fn rewrite_in_current_version(&self, path: &Path, from: u64) -> Result<(), SessionError> {
        let mut text = self.header.to_json().to_json_string();
        text.push('\n');
        for entry in self.tree.entries() {
            text.push_str(&entry.to_json().to_json_string());
            text.push('\n');
        }
        let mut backup = path.as_os_str().to_owned();
        backup.push(format!(".v{from}.bak"));
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        let temporary = PathBuf::from(temporary);
        std::fs::copy(path, PathBuf::from(backup))
            .map_err(|e| SessionError::io("backing up", path, e))?;
        let created = focus_sys::private_files::options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temporary);
        let written = created.and_then(|mut file| {
            use std::io::Write;
            file.write_all(text.as_bytes())?;
            file.sync_all()
        });
        written.map_err(|e| SessionError::io("writing", &temporary, e))?;
        std::fs::rename(&temporary, path).map_err(|e| SessionError::io("replacing", path, e))
    }

    /// Opens a session file without the ability to append (no lock is taken).
    ///
    /// # Errors
    ///
    /// The file cannot be read or is no session.
    pub fn open_read_only(path: &Path) -> Result<SessionManager, SessionError> {
        SessionManager::load(path).map(|(manager, _, _)| manager)
    }

    /// Opens the most recently modified session of `cwd`, or creates one.
    ///
    /// # Errors
    ///
    /// As [`SessionManager::open`] for the session found, or [`SessionManager::create`].
    pub fn continue_recent(
        store: &SessionStore,
        cwd: &Path,
    ) -> Result<SessionManager, SessionError> {
        match store.most_recent(cwd) {
            Some(path) => SessionManager::open(&path),
            None => SessionManager::create(store, cwd),
        }
    }

    /// Opens the session whose id starts with `prefix`, looking in `cwd`'s sessions
    /// first, then everywhere.
    ///
    /// # Errors
    ///
    /// No session or several match `prefix`, or the one found cannot be opened.
    pub fn open_by_id_prefix(
        store: &SessionStore,
        prefix: &str,
        cwd: &Path,
    ) -> Result<SessionManager, SessionError> {
        SessionManager::open(&store.find_by_id_prefix(prefix, cwd)?)
    }

    /// Opens what `--session <arg>` names: a path if it contains a slash or ends in
    /// `.jsonl`, else a session id prefix (pi's rule).
    ///
    /// # Errors
    ///
    /// As [`SessionManager::open`] or [`SessionManager::open_by_id_prefix`].
    pub fn open_path_or_id(
        store: &SessionStore,
        arg: &str,
        cwd: &Path,
    ) -> Result<SessionManager, SessionError> {
        if arg.contains('/') || arg.contains('\\') || arg.ends_with(".jsonl") {
            SessionManager::open(Path::new(arg))
        } else {
            SessionManager::open_by_id_prefix(store, arg, cwd)
        }
    }

    fn load(path: &Path) -> Result<(SessionManager, Tail, bool), SessionError> {
        let read = match std::fs::File::open(path).and_then(FileSource::new) {
            Ok(file) => parse_source_for_tree(&file),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => parse_source_for_tree(&[][..]),
            Err(e) => Err(ReadFailure::Io(e)),
        };
        let (parsed, hints) = read.map_err(|failure| match failure {
            ReadFailure::Io(e) => SessionError::io("reading", path, e),
            ReadFailure::Refused(Refusal::NewerVersion(version)) => SessionError::NewerVersion {
                path: path.to_path_buf(),
                version,
            },
            ReadFailure::Refused(Refusal::NotASession(reason)) => SessionError::NotASession {
                path: path.to_path_buf(),
                reason,
            },
        })?;
        let has_header = parsed.header.is_some();
        let header = parsed.header.unwrap_or_else(|| SessionHeader {
            version: CURRENT_VERSION,
            id: id_from_file_name(path).map_or_else(session_uuid, str::to_string),
            timestamp: now_iso8601(),
            cwd: std::env::current_dir()
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default(),
            parent_session: None,
        });
        let mut tree =
            SessionTree::from_hashed(parsed.entries, hints.keys, &hints.hashes, &hints.labels);
        tree.set_bridges(damaged::bridges(&parsed.damaged));
        let damage_note = if parsed.damaged.is_empty() {
            None
        } else {
            let aside = damaged::keep_aside(path, &parsed.damaged);
            damaged::summary(&parsed.damaged, aside.as_deref())
        };
        let manager = SessionManager {
            header,
            tree,
            path: Some(path.to_path_buf()),
            writer: None,
            problems: parsed.problems,
            damage_note,
        };
        Ok((manager, parsed.tail, has_header))
    }

    /// The header (session id, cwd, parent session).
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.header.id
    }

    /// The session file, unless the session is in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether appends reach a file.
    pub fn is_persisted(&self) -> bool {
        self.writer.is_some()
    }

    /// What was wrong with the file when it was loaded (torn tail, corrupt lines,
    /// migration); the CLI shows these as notes.
    pub fn load_problems(&self) -> &[LoadProblem] {
        &self.problems
    }

    /// When damaged lines were skipped on load: how many, where, that the file
    /// was left untouched, where their content was kept, and whether the
    /// conversation continues across them ([`super::damaged::summary`]).
    pub fn damage_note(&self) -> Option<&str> {
        self.damage_note.as_deref()
    }

    /// The entries as a tree.
    pub fn tree(&self) -> &SessionTree {
        &self.tree
    }

    /// The display name, if one was set.
    pub fn name(&self) -> Option<&str> {
        self.tree.name()
    }

    /// The current leaf's id (`None` before the first entry).
    pub fn leaf_id(&self) -> Option<&str> {
        self.tree.leaf_id()
    }

    /// The context at the current leaf: messages, model, thinking level.
    pub fn context(&self) -> SessionContext {
        build_context(&self.tree.current_branch())
    }

    /// The model `(provider, model id)` and thinking level at the current leaf, as
    /// [`SessionManager::context`] gives them, without copying the messages.
    pub fn model_and_thinking(&self) -> (Option<(String, String)>, String) {
        model_and_thinking(&self.tree.current_branch())
    }

    /// Makes appends `fsync` (or not).
    pub fn set_durability(&mut self, durability: Durability) {
        if let Some(writer) = &mut self.writer {
            writer.set_durability(durability);
        }
    }

    /// Appends an entry of `kind` as a child of the leaf and makes it the leaf.
    /// Returns its id.
    ///
    /// # Errors
    ///
    /// The session was opened read-only, or the entry cannot be written (a full disk, a removed
    /// folder); the tree is unchanged then.
    pub fn append(&mut self, mut kind: EntryKind) -> Result<String, SessionError> {
        // A hostile tool name is never stored.
        if let EntryKind::Message(message) = &mut kind {
            focus_core::tool::sanitize_tool_names(message);
        }
        let tree = &self.tree;
        let entry = Entry {
            id: unique_short_id(|id| tree.contains(id)).into(),
            parent_id: self
                .tree
                .leaf_id()
                .map(focus_core::shared_text::SharedText::from),
            timestamp: now_iso8601().into(),
            kind,
        };
        if let Some(writer) = &mut self.writer {
            writer.append_lines(&[entry.to_json().to_json_string()])?;
        }
        let id = entry.id.clone();
        self.tree.push(entry);
        Ok(id.to_string())
    }

    /// Appends a message (user, assistant, tool result, or a custom role such as
    /// `bashExecution`).
    ///
    /// # Errors
    ///
    /// As [`SessionManager::append`].
    pub fn append_message(&mut self, message: &Message) -> Result<String, SessionError> {
        self.append(EntryKind::Message(message.clone()))
    }

    /// Persists what an agent event finished: every `MessageEnd` becomes an entry
    /// (a `custom`-role message becomes a `custom_message` entry, as in pi). Call it
    /// for each event before handing the next one on, so a crash loses nothing the
    /// user saw. Returns the new entry's id, if one was written.
    ///
    /// # Errors
    ///
    /// As [`SessionManager::append`].
    pub fn record_event(&mut self, event: &AgentEvent) -> Result<Option<String>, SessionError> {
        let AgentEvent::MessageEnd { message } = event else {
            return Ok(None);
        };
        let kind = match message {
            Message::Custom(c) if c.role == "custom" => EntryKind::CustomMessage {
                custom_type: c.raw["customType"].as_str().unwrap_or("").to_string(),
                content: c.raw["content"].clone(),
                display: c.raw["display"].as_bool().unwrap_or(true),
                details: c.raw["details"].clone(),
            },
            other => EntryKind::Message(other.clone()),
        };
        self.append(kind).map(Some)
    }

    /// Records a model switch.
    ///
    /// # Errors
    ///
    /// As [`SessionManager::append`].
    pub fn append_model_change(
        &mut self,
        provider: &str,
        model_id: &str,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::ModelChange {
            provider: provider.into(),
            model_id: model_id.into(),
        })
    }

    /// Records a thinking-level switch.
    ///
    /// # Errors
    ///
    /// As [`SessionManager::append`].
    pub fn append_thinking_level_change(&mut self, level: &str) -> Result<String, SessionError> {
        self.append(EntryKind::ThinkingLevelChange {
            thinking_level: level.into(),
        })
    }

    /// Records a compaction (see [`crate::compaction::compact`]).
    ///
    /// # Errors
    ///
    /// As [`SessionManager::append`].
    pub fn append_compaction(
        &mut self,
        compaction: CompactionEntry,
    ) -> Result<String, SessionError> {
        if !self.tree.contains(&compaction.first_kept_entry_id) {
            return Err(SessionError::NoSuchEntry(compaction.first_kept_entry_id));
        }
        self.append(EntryKind::Compaction(compaction))
    }

    /// Records a summary of the branch the user left (`from_id`, the old leaf).
    ///
    /// # Errors
    ///
    /// As [`SessionManager::append`].
    pub fn append_branch_summary(
        &mut self,
        from_id: &str,
        summary: &str,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::BranchSummary {
            from_id: from_id.into(),
            summary: summary.into(),
            details: Value::Null,
            from_hook: false,
        })
    }

    /// Stores extension state (never sent to the model).
    ///
    /// # Errors
    ///
    /// As [`SessionManager::append`].
    pub fn append_custom(
        &mut self,
        custom_type: &str,
        data: Value,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::Custom {
            custom_type: custom_type.into(),
            data,
        })
    }

    /// Sets (or with `None` clears) the label on an entry.
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry, or as [`SessionManager::append`].
    pub fn set_label(
        &mut self,
        target_id: &str,
        label: Option<&str>,
    ) -> Result<String, SessionError> {
        if !self.tree.contains(target_id) {
            return Err(SessionError::NoSuchEntry(target_id.into()));
        }
        self.append(EntryKind::Label {
            target_id: target_id.into(),
            label: label.map(str::to_string).filter(|l| !l.is_empty()),
        })
    }

    /// Names the session (shown by the session list).
    ///
    /// # Errors
    ///
    /// As [`SessionManager::append`].
    pub fn set_name(&mut self, name: &str) -> Result<String, SessionError> {
        self.append(EntryKind::SessionInfo {
            name: Some(name.trim().to_string()),
        })
    }

    /// Moves the leaf to `entry_id` (branching in place: the next entry becomes a new
    /// child of it). `None` moves before the first entry.
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry of the session.
    pub fn move_leaf(&mut self, entry_id: Option<&str>) -> Result<(), SessionError> {
        if self.tree.set_leaf(entry_id) {
            Ok(())
        } else {
            Err(SessionError::NoSuchEntry(
                entry_id.unwrap_or_default().into(),
            ))
        }
    }

    /// When the leaf is an assistant message that failed (`stopReason` `error`, e.g.
    /// a context overflow), moves the leaf to its parent so the failed answer leaves
    /// the context but stays in the file (the next entry starts a sibling branch).
    /// Returns whether it moved.
    pub fn skip_failed_answer(&mut self) -> bool {
        let Some(leaf) = self.tree.leaf() else {
            return false;
        };
        let failed = matches!(
            leaf.message(),
            Some(Message::Assistant(a)) if a.stop_reason == focus_core::message::StopReason::Error
        );
        if !failed {
            return false;
        }
        let parent = leaf.parent_id.clone();
        self.tree.set_leaf(parent.as_deref())
    }
}

pub(crate) fn new_header(cwd: &Path, parent_session: Option<&Path>) -> SessionHeader {
    SessionHeader {
        version: CURRENT_VERSION,
        id: session_uuid(),
        timestamp: now_iso8601(),
        cwd: cwd.to_string_lossy().into_owned(),
        parent_session: parent_session.map(|p| p.to_string_lossy().into_owned()),
    }
}
