//! File checkpoints inside the conversation's own lifecycle: every tool call
//! that may change files runs wrapped ([`CheckpointedTool`]), so the tracker
//! records what it changed (`write`/`edit`: the paths it names, with their
//! previous content checked just before; anything else that is not
//! read-only, `bash` and MCP tools included: a walk of the project) and the
//! session gets a `focus.checkpoint` entry naming the call. Before each
//! prompt and after each `!command` the conversation records what changed
//! since the last look ([`Conversation::checkpoint`]): edits by the user,
//! hooks, anything. [`Conversation::rewind`] restores a session entry's
//! files, its conversation, or both.

use super::driver::Conversation;
use super::store::Store;
use crate::checkpoint::{record, rewind_files, RewindReport, RewindRequest, Tracker};
use focus_core::json::Value;
use focus_core::message::Message;
use focus_core::sync::lock;
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The tracker a conversation records into, shared with its wrapped tools.
pub type SharedTracker = Arc<Mutex<Tracker>>;

/// What a rewind restores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewindScope {
    /// Files and conversation.
    Both,
    /// Only the files.
    Code,
    /// Only the conversation (the leaf moves; files stay).
    Conversation,
}

impl RewindScope {
    /// `both`, `code` or `conversation`.
    pub fn parse(text: &str) -> Option<RewindScope> {
        match text {
            "both" => Some(RewindScope::Both),
            "code" => Some(RewindScope::Code),
            "conversation" => Some(RewindScope::Conversation),
            _ => None,
        }
    }
}

/// A tool whose calls are checkpointed.
pub struct CheckpointedTool {
    inner: Arc<dyn Tool>,
    tracker: SharedTracker,
    session: Arc<Mutex<Store>>,
}

/// `tools`, each that may change files wrapped to record its changes.
pub fn wrap_tools(
    tools: &[Arc<dyn Tool>],
    tracker: &SharedTracker,
    session: &Arc<Mutex<Store>>,
) -> Vec<Arc<dyn Tool>> {
    tools
        .iter()
        .map(|tool| {
            Arc::new(CheckpointedTool {
                inner: tool.clone(),
                tracker: tracker.clone(),
                session: session.clone(),
            }) as Arc<dyn Tool>
        })
        .collect()
}

impl Tool for CheckpointedTool {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn description(&self) -> &str {
        self.inner.description()
    }
    fn parameters(&self) -> Value {
        self.inner.parameters()
    }
    fn is_read_only(&self, args: &Value) -> bool {
        self.inner.is_read_only(args)
    }
    fn runs_alone(&self, args: &Value) -> bool {
        self.inner.runs_alone(args)
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        if self.inner.is_read_only(args) {
            return self.inner.execute(args, ctx);
        }
        let named: Option<Vec<PathBuf>> = match self.inner.name() {
            "write" | "edit" => args
                .get("path")
                .and_then(Value::as_str)
                .map(|p| vec![PathBuf::from(p)]),
            _ => None,
        };
        // Calls that may change files run one at a time, so each change is
        // recorded against the call that made it.
        let mut tracker = lock(&self.tracker);
        let ready = match &named {
            Some(paths) => tracker.prepare_paths(paths),
            None => tracker.baseline(),
        };
        let output = self.inner.execute(args, ctx);
        let manifest = ready.and_then(|()| match &named {
            Some(paths) => tracker.record_paths(paths),
            None => tracker.record_walk(),
        });
        let mut store = lock(&self.session);
        let saved = manifest
            .map_err(|e| format!("checkpoint not recorded: {e}"))
            .and_then(|m| {
                record(
                    store.manager_mut(),
                    &tracker.store,
                    &m,
                    "tool",
                    Some(ctx.call_id),
                    false,
                )
            });
        if let Err(error) = saved {
            store.write_warning = Some(error);
        }
        output
    }
}

impl Conversation {
    /// Records what changed in the project since the last look (before a
    /// prompt: `cause` `prompt`; after a `!command`: `command`). Failures
    /// become warnings; without a tracker nothing happens.
    pub fn checkpoint(&mut self, cause: &str) {
        let Some(tracker) = self.checkpoints.clone() else {
            return;
        };
        let mut tracker = lock(&tracker);
        let walked = tracker.record_walk();
        for notice in tracker.take_notices() {
            self.warn(notice);
        }
        let saved = walked
            .map_err(|e| format!("checkpoint not recorded: {e}"))
            .and_then(|m| {
                record(
                    self.session.lock().manager_mut(),
                    &tracker.store,
                    &m,
                    cause,
                    None,
                    false,
                )
            });
        if let Err(error) = saved {
            self.warn(error);
        }
    }

    /// Rewinds to the entry `target` (`None`: before the first entry): the
    /// files as they were there (`Code`), the conversation (`Conversation`: the
    /// leaf moves to `target`), or both. A file changed outside focus since
    /// focus recorded it is a conflict, kept unless `force`. A dry run only
    /// reports the file operations and conflicts, exactly those the rewind
    /// would have. Refused while a run goes on.
    ///
    /// # Errors
    ///
    /// A run goes on, no tracker is set, `target` is no entry, or the files
    /// cannot be compared or restored; the message says which.
    pub fn rewind(
        &mut self,
        target: Option<&str>,
        scope: RewindScope,
        force: bool,
        dry_run: bool,
    ) -> Result<Option<RewindReport>, String> {
        if self.is_busy() {
            return Err("a prompt is running; stop it before rewinding".into());
        }
        let mut report = None;
        if scope != RewindScope::Conversation {
            let tracker = self
                .checkpoints
                .clone()
                .ok_or("file checkpoints are off for this session")?;
            let mut tracker = lock(&tracker);
            // What changed since focus last looked is not recorded first: a
            // file someone else changed meanwhile is a conflict, kept unless
            // `force` (its content is stored by the plan either way), and the
            // dry run shows exactly what the rewind will do.
            let store = tracker.store.clone();
            let root = tracker.root().to_path_buf();
            let done = rewind_files(
                self.session.lock().manager_mut(),
                RewindRequest {
                    root: &root,
                    store: &store,
                    target,
                    force,
                    dry_run,
                },
            )?;
            if !dry_run {
                tracker
                    .refresh_after_restore(&done.touched)
                    .map_err(|e| e.to_string())?;
            }
            report = Some(done);
        }
        if scope != RewindScope::Code && !dry_run {
            let messages: Vec<Message> = match target {
                Some(id) => self.session.lock().set_leaf(id)?,
                None => {
                    let mut store = self.session.lock();
                    store
                        .manager_mut()
                        .move_leaf(None)
                        .map_err(|e| e.to_string())?;
                    store.context_messages()
                }
            };
            self.history = messages;
        }
        Ok(report)
    }
}
