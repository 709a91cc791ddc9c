//! [`Engine`]: one conversation, shared by every mode. It holds the agent's
//! configuration, the history and the session, starts runs, and keeps the session
//! file in step with the events (one entry per finished message, written before the
//! next event is handled).

use crate::store::{SessionRequest, Store};
use focus_core::agent::{spawn_agent, AgentConfig, AgentRun};
use focus_core::cancel::CancelToken;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::{Message, StopReason};
use focus_core::tool::Tool;
use focus_harness::compaction::overflow::RECOVERY_FAILED;
use focus_harness::compaction::{
    compact_session, estimate_context_tokens, should_compact, CompactionSettings, OverflowAction,
    OverflowRecovery,
};
use focus_tools::gates::Gatekeeper;
use focus_tools::mcp::McpManager;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A conversation: configuration, history, session.
pub struct Engine {
    /// Model, system prompt, tools, gate, options.
    pub config: AgentConfig,
    /// The messages so far (the current branch of the session).
    pub history: Vec<Message>,
    /// Where finished messages go.
    pub store: Store,
    /// When to compact automatically.
    pub compaction: CompactionSettings,
    /// A warning from the last session write or compaction, shown once by the mode.
    pub store_warning: Option<String>,
    /// The permission gate (for `/permissions`).
    pub gatekeeper: Option<Arc<Gatekeeper>>,
    /// The MCP servers, kept alive as long as the conversation.
    pub mcp: Option<McpManager>,
    /// The built-in tools (MCP tools are added to these).
    pub base_tools: Vec<Arc<dyn Tool>>,
    /// The MCP tool generation `config.tools` was built from.
    pub mcp_generation: u64,
    /// How model calls are retried (the `retry` settings), for providers built
    /// later (a model switch).
    pub retry: focus_providers::RetryPolicy,
    /// What the system prompt is built from; each run rebuilds it before every
    /// model call. `None`: `config.system_prompt` as it is.
    pub prompt: Option<crate::seams::PromptSource>,
    /// Automatic compactions that failed in a row; at
    /// [`MAX_COMPACTION_FAILURES`] focus stops trying until one succeeds.
    pub compaction_failures: u32,
}

/// After this many automatic compactions failed in a row, focus stops starting
/// new ones (each costs a model call) and says so; `/compact` still works.
pub const MAX_COMPACTION_FAILURES: u32 = 3;

/// How a run ended, as the modes need it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// The loop's reason.
    pub reason: EndReason,
    /// The last assistant message's text (print mode's answer).
    pub final_text: String,
}

impl Engine {
    /// An engine with `config`, starting from `history`, saving into `store`.
    pub fn new(config: AgentConfig, history: Vec<Message>, store: Store) -> Engine {
        Engine {
            config,
            history,
            store,
            compaction: CompactionSettings::default(),
            store_warning: None,
            gatekeeper: None,
            mcp: None,
            base_tools: Vec::new(),
            mcp_generation: 0,
            retry: focus_providers::RetryPolicy::default(),
            prompt: None,
            compaction_failures: 0,
        }
    }

    /// Starts a run with `prompts` (empty = continue) on its own thread. When an
    /// MCP server's tools changed (it announced `tools/list_changed`, or died), the
    /// tool list is rebuilt first; MCP warnings become the store warning.
    pub fn spawn(&mut self, prompts: Vec<Message>) -> AgentRun {
        self.refresh_mcp_tools();
        if let Some(gate) = &self.gatekeeper {
            // The session may have changed since the last run (`/new`, a fork).
            gate.set_session(self.store.id(), self.store.path());
        }
        let mut config = self.config.clone();
        if let Some(source) = self.prompt.clone() {
            let specs: Vec<_> = config.tools.iter().map(|t| t.spec()).collect();
            // Kept current for what shows the prompt (export, /session).
            self.config.system_prompt = source.build(&specs).0;
            config.system_prompt_source = Some(Arc::new(move || source.build(&specs).0));
        }
        spawn_agent(config, self.history.clone(), prompts)
    }

    /// Re-reads the MCP tools when their generation changed.
    fn refresh_mcp_tools(&mut self) {
        let Some(mcp) = &self.mcp else { return };
        let warnings = mcp.take_warnings();
        if !warnings.is_empty() {
            self.store_warning = Some(format!("MCP: {}", warnings.join("; ")));
        }
        let generation = mcp.tools_generation();
        if generation == self.mcp_generation {
            return;
        }
        self.mcp_generation = generation;
        let mut tools = self.base_tools.clone();
        tools.extend(mcp.tools());
        self.config.tools = tools;
    }

    /// Switches the conversation to `provider`'s model and records a `model_change`
    /// in the session (when it is a change), so a resume comes back to it.
    pub fn switch_model(&mut self, provider: Arc<dyn focus_core::provider::Provider>) {
        let (old, new) = (self.config.provider.model(), provider.model());
        let changed = (&old.provider, &old.id) != (&new.provider, &new.id);
        let (name, id) = (new.provider.clone(), new.id.clone());
        self.config.provider = provider;
        if changed {
            if let Err(error) = self.store.append_model_change(&name, &id) {
                self.store_warning = Some(format!("could not save the session: {error}"));
            }
        }
    }

    /// Sets the thinking level and records a `thinking_level_change` in the session
    /// (when it is a change), so a resume comes back to it.
    pub fn set_thinking(&mut self, level: focus_core::provider::ThinkingLevel) {
        if self.config.options.thinking == level {
            return;
        }
        self.config.options.thinking = level;
        if let Err(error) = self.store.append_thinking_change(level.as_str()) {
            self.store_warning = Some(format!("could not save the session: {error}"));
        }
    }

    /// Keeps the session in step with one event: every finished message is appended;
    /// at the run's end, hook failures become the warning.
    pub fn record(&mut self, event: &AgentEvent) {
        if let AgentEvent::MessageEnd { message } = event {
            if let Err(error) = self.store.append_message(message) {
                self.store_warning = Some(format!("could not save the session: {error}"));
            }
        }
        // A hook that failed during the run (a Stop hook) is told once, at its end.
        if let (AgentEvent::AgentEnd { .. }, Some(gate)) = (event, &self.gatekeeper) {
            let failures = gate.take_hook_failures();
            if !failures.is_empty() {
                self.store_warning = Some(failures.join("; "));
            }
        }
    }

    /// Hands the pending warning (a session write that failed, an MCP server that
    /// died) to `on_notice` as `{"type":"warning","message":…}`, so no mode loses
    /// it: JSON mode prints it as a line, print mode on stderr.
    pub fn pass_on_warning(&mut self, on_notice: &mut dyn FnMut(&Value)) {
        if let Some(message) = self.store_warning.take() {
            on_notice(&json_object! {"type" => "warning", "message" => message});
        }
        // An MCP server that died mid-run is told at once, not at the next prompt.
        for warning in self
            .mcp
            .as_ref()
            .map(McpManager::take_warnings)
            .unwrap_or_default()
        {
            let message = format!("MCP: {warning}");
            on_notice(&json_object! {"type" => "warning", "message" => message});
        }
    }

    /// Takes the history back from a finished run.
    pub fn finish(&mut self, run: AgentRun) {
        self.history = run.join();
    }

    /// Runs `prompts` to the end on this thread, handing every event to `on_event`
    /// after recording it. On a context-overflow error the history is compacted and
    /// the run retried once; after a run that filled the context past the window's
    /// reserve, the history is compacted for the next prompt. Compactions are
    /// announced to `on_notice` (see [`Engine::after_run`]).
    pub fn run_blocking(
        &mut self,
        prompts: Vec<Message>,
        on_event: &mut dyn FnMut(&AgentEvent),
        on_notice: &mut dyn FnMut(&Value),
    ) -> RunOutcome {
        let mut recovery = OverflowRecovery::new();
        let mut outcome = self.run_once(prompts, on_event, on_notice);
        loop {
            // A run the user stopped is not followed by a compaction.
            if outcome.reason == EndReason::Aborted {
                return outcome;
            }
            let after = self.after_run(&mut recovery, on_notice);
            self.pass_on_warning(on_notice);
            match after {
                AfterRun::Retry => outcome = self.run_once(Vec::new(), on_event, on_notice),
                AfterRun::Done => return outcome,
                AfterRun::Aborted => {
                    outcome.reason = EndReason::Aborted;
                    return outcome;
                }
                AfterRun::GaveUp(note) => {
                    outcome.reason = EndReason::Error(note);
                    return outcome;
                }
            }
        }
    }

    fn run_once(
        &mut self,
        prompts: Vec<Message>,
        on_event: &mut dyn FnMut(&AgentEvent),
        on_notice: &mut dyn FnMut(&Value),
    ) -> RunOutcome {
        let run = self.spawn(prompts);
        let mut reason = EndReason::Completed;
        let interrupts_before = crate::terminal::signals::interrupts();
        loop {
            // Poll so Ctrl+C (counted by the signal handler) can abort the run.
            let event = match run
                .events
                .recv_timeout(std::time::Duration::from_millis(50))
            {
                Ok(event) => event,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if crate::terminal::signals::interrupts() > interrupts_before {
                        run.handle.abort();
                    }
                    continue;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            };
            self.record(&event);
            if let AgentEvent::AgentEnd { reason: r, .. } = &event {
                reason = r.clone();
            }
            on_event(&event);
            self.pass_on_warning(on_notice);
        }
        self.finish(run);
        // A terminal's Ctrl+C also reaches curl (same process group), so the
        // stream may fail before the abort lands: the user's intent is the abort.
        if crate::terminal::signals::interrupts() > interrupts_before {
            reason = EndReason::Aborted;
        }
        let final_text = self
            .history
            .iter()
            .rev()
            .find_map(Message::as_assistant)
            .map(|m| m.text())
            .unwrap_or_default();
        RunOutcome { reason, final_text }
    }

    /// After a run: retry once after compacting on overflow, or compact when the
    /// context passed the threshold. Each compaction is announced to `notify` as
    /// pi's `auto_compaction_start` `{reason}` and `auto_compaction_end`
    /// `{result, aborted, willRetry, errorMessage?}` events. Ctrl+C and the
    /// termination signals cancel a compaction (see [`Engine::after_run_watching`]).
    pub fn after_run(
        &mut self,
        recovery: &mut OverflowRecovery,
        notify: &mut dyn FnMut(&Value),
    ) -> AfterRun {
        let before = crate::terminal::signals::interrupts();
        self.after_run_watching(recovery, notify, &mut |cancel| {
            if crate::terminal::signals::interrupts() > before {
                cancel.cancel();
            }
        })
    }

    /// [`Engine::after_run`], with `watch` called on this thread every few
    /// milliseconds while a compaction's summary call runs (on a thread of its
    /// own): it cancels the token to stop the compaction, and may answer whoever
    /// asks meanwhile (the RPC server answers `abort` and `get_state` that way).
    pub fn after_run_watching(
        &mut self,
        recovery: &mut OverflowRecovery,
        notify: &mut dyn FnMut(&Value),
        watch: &mut CompactionWatch<'_>,
    ) -> AfterRun {
        let window = self.config.provider.model().context_window;
        let last = self
            .history
            .iter()
            .rev()
            .find_map(Message::as_assistant)
            .cloned();
        if let Some(last) = last {
            match recovery.after_run(&last, window) {
                OverflowAction::CompactAndRetry => {
                    let compacted =
                        self.announced_compaction("overflow", notify, watch, |engine| {
                            engine.drop_trailing_error()
                        });
                    return match compacted {
                        Ok(true) => AfterRun::Retry,
                        Ok(false) => AfterRun::Done,
                        Err(error) if error == CANCELLED => AfterRun::Aborted,
                        // An answer that arrived (the provider only reported more
                        // input than the window) stands; the failure is a warning.
                        Err(error) if last.stop_reason != StopReason::Error => {
                            self.store_warning = Some(format!("automatic compaction: {error}"));
                            AfterRun::Done
                        }
                        Err(error) => AfterRun::GaveUp(format!(
                            "the context is too long for the model and {error}"
                        )),
                    };
                }
                OverflowAction::GiveUp => return AfterRun::GaveUp(RECOVERY_FAILED.into()),
                OverflowAction::None => {}
            }
        }
        let tokens = estimate_context_tokens(&self.history);
        if should_compact(tokens, window, &self.compaction)
            && self.compaction_failures < MAX_COMPACTION_FAILURES
        {
            match self.announced_compaction("threshold", notify, watch, |_| false) {
                Err(error) if error == CANCELLED => return AfterRun::Aborted,
                Err(error) => self.store_warning = Some(format!("automatic compaction: {error}")),
                Ok(_) => {}
            }
        }
        AfterRun::Done
    }

    /// Whether the context has passed the compaction threshold after a run that did
    /// not overflow (an overflow is handled by [`Engine::after_run`], which compacts
    /// and retries), and automatic compaction has not given up after failing.
    pub fn wants_threshold_compaction(&self) -> bool {
        let window = self.config.provider.model().context_window;
        let overflowed = self
            .history
            .iter()
            .rev()
            .find_map(Message::as_assistant)
            .is_some_and(|last| focus_core::overflow::is_context_overflow(last, window));
        !overflowed
            && self.compaction_failures < MAX_COMPACTION_FAILURES
            && should_compact(
                estimate_context_tokens(&self.history),
                window,
                &self.compaction,
            )
    }

    /// Compacts between the two announcements; `retry` says (after a successful
    /// compaction) whether the run will be retried.
    fn announced_compaction(
        &mut self,
        reason: &str,
        notify: &mut dyn FnMut(&Value),
        watch: &mut CompactionWatch<'_>,
        retry: impl FnOnce(&mut Engine) -> bool,
    ) -> Result<bool, String> {
        notify(&json_object! {"type" => "auto_compaction_start", "reason" => reason});
        if let Some(gate) = &self.gatekeeper {
            gate.pre_compact("auto", None);
        }
        // The summary is a model call that can take a minute: `watch` may cancel
        // it, as an abort would a run.
        let compacted = watching(|cancel| self.compact_with(None, cancel), watch);
        match compacted {
            Ok(result) => {
                self.compaction_failures = 0;
                let will_retry = retry(self);
                notify(&json_object! {
                    "type" => "auto_compaction_end", "result" => result,
                    "aborted" => false, "willRetry" => will_retry,
                });
                Ok(will_retry)
            }
            Err(error) => {
                let aborted = error == CANCELLED;
                if !aborted {
                    self.compaction_failures += 1;
                }
                let error = if self.compaction_failures >= MAX_COMPACTION_FAILURES {
                    format!(
                        "{error}; automatic compaction failed {MAX_COMPACTION_FAILURES} times in a \
                         row, so focus stops trying (/compact still works, and a success turns it back on)"
                    )
                } else {
                    error
                };
                notify(&json_object! {
                    "type" => "auto_compaction_end", "result" => Value::Null,
                    "aborted" => aborted, "willRetry" => false, "errorMessage" => error.as_str(),
                });
                Err(if aborted { CANCELLED.into() } else { error })
            }
        }
    }

    /// Drops a failed assistant message at the end of the history (it is kept in
    /// the session file) so the run can continue; whether the history can continue.
    fn drop_trailing_error(&mut self) -> bool {
        if let Some(Message::Assistant(last)) = self.history.last() {
            if last.stop_reason == StopReason::Error {
                self.history.pop();
            }
        }
        matches!(
            self.history.last(),
            Some(Message::User(_)) | Some(Message::ToolResult(_))
        )
    }
}

impl Drop for Engine {
    /// The conversation is over: the `SessionEnd` hooks run (reason `other`).
    fn drop(&mut self) {
        if let Some(gate) = &self.gatekeeper {
            gate.session_end("other");
        }
    }
}

/// What to do after a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum AfterRun {
    /// Nothing more.
    Done,
    /// The context was compacted after an overflow: continue the run once.
    Retry,
    /// Overflow recovery failed; the sentence to show.
    GaveUp(String),
    /// The user interrupted the compaction.
    Aborted,
}

/// The error of a compaction the user cancelled.
const CANCELLED: &str = "compaction cancelled";

/// Watches a compaction while it runs (see [`Engine::after_run_watching`]).
pub type CompactionWatch<'a> = dyn FnMut(&CancelToken) + 'a;

/// Runs `work` on a thread of its own and calls `watch` on this one every few
/// milliseconds until it is done; `watch` may cancel the token `work` is given.
/// For work the user must be able to stop that is not a run (a compaction's
/// summary call).
fn watching<T: Send>(
    work: impl FnOnce(&CancelToken) -> T + Send,
    watch: &mut CompactionWatch<'_>,
) -> T {
    let cancel = CancelToken::new();
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| work(&cancel));
        while !worker.is_finished() {
            watch(&cancel);
            std::thread::park_timeout(std::time::Duration::from_millis(20));
        }
        match worker.join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

impl Engine {
    /// Compacts the history now (the `/compact` and RPC `compact` commands), with
    /// optional extra instructions for the summary; returns the result as JSON.
    pub fn compact(&mut self, instructions: Option<&str>) -> Result<Value, String> {
        if let Some(gate) = &self.gatekeeper {
            gate.pre_compact("manual", instructions);
        }
        let compacted = self.compact_with(instructions, &CancelToken::new());
        if compacted.is_ok() {
            self.compaction_failures = 0;
        }
        compacted
    }

    /// [`Engine::compact`], stopped when `cancel` fires (the error is then
    /// [`CANCELLED`]).
    fn compact_with(
        &mut self,
        instructions: Option<&str>,
        cancel: &CancelToken,
    ) -> Result<Value, String> {
        let provider = self.config.provider.clone();
        let outcome = compact_session(
            self.store.manager_mut(),
            provider.as_ref(),
            &self.compaction,
            instructions,
            cancel,
        )
        .map_err(|e| match e {
            focus_harness::compaction::CompactionError::Cancelled => CANCELLED.to_string(),
            other => other.to_string(),
        })?;
        self.history = self.store.context_messages();
        Ok(json_object! {
            "entryId" => outcome.entry_id.as_str(),
            "tokensBefore" => outcome.tokens_before,
            "tokensAfter" => outcome.tokens_after,
        })
    }

    /// Starts a fresh session (same settings, empty history).
    pub fn new_session(&mut self, cwd: &Path) -> Result<(), String> {
        let request = if self.store.is_disabled() {
            SessionRequest::Disabled
        } else {
            SessionRequest::New
        };
        let (mut store, history) = Store::open(&request, cwd, self.store.dir())?;
        self.store_warning = store.take_load_warning();
        if let Some(gate) = &self.gatekeeper {
            // Claude Code's `/clear`: the old session ends, a new one starts.
            gate.session_end("clear");
            gate.set_session(store.id(), store.path());
            let failures = gate.session_start("clear");
            if !failures.is_empty() {
                self.store_warning = Some(failures.join("; "));
            }
        }
        self.store = store;
        self.history = history;
        Ok(())
    }

    /// Opens another session file and continues from its current leaf.
    pub fn switch_session(&mut self, path: &str, cwd: &Path) -> Result<(), String> {
        if !Path::new(path).is_file() {
            return Err(format!("no session file at {path}"));
        }
        let (mut store, history) = Store::open(
            &SessionRequest::Open(path.to_string()),
            cwd,
            self.store.dir(),
        )?;
        self.store_warning = store.take_load_warning();
        if let Some(gate) = &self.gatekeeper {
            // Claude Code's `/resume`.
            gate.set_session(store.id(), store.path());
            let failures = gate.session_start("resume");
            if !failures.is_empty() {
                self.store_warning = Some(failures.join("; "));
            }
        }
        self.store = store;
        self.history = history;
        Ok(())
    }

    /// Forks: a new session holding the branch up to (not including) the user
    /// message `entry_id`, whose text is returned so the user can edit and resend it.
    pub fn fork(&mut self, entry_id: &str) -> Result<String, String> {
        let (store, history, text) = self.store.fork(entry_id)?;
        self.store = store;
        self.history = history;
        Ok(text)
    }

    /// The session tree as JSON (entries with ids, parents, kinds, short text, and
    /// the current leaf).
    pub fn session_tree(&self) -> Result<Value, String> {
        self.store.tree_json()
    }

    /// Moves the current leaf to `entry_id` (continue from any entry).
    pub fn go_to_entry(&mut self, entry_id: &str) -> Result<(), String> {
        self.history = self.store.set_leaf(entry_id)?;
        Ok(())
    }

    /// Moves the current leaf to `entry_id`, leaving the current branch; with
    /// `summarize`, the branch left behind is summarized first and the summary
    /// attached where the conversation goes on (a `branch_summary` entry, as pi
    /// writes), so the model keeps what was learned there. Returns the summary
    /// entry's id when one was written.
    pub fn leave_branch(
        &mut self,
        entry_id: &str,
        summarize: bool,
    ) -> Result<Option<String>, String> {
        if !summarize {
            self.go_to_entry(entry_id)?;
            return Ok(None);
        }
        let provider = self.config.provider.clone();
        let written = focus_harness::compaction::leave_branch_with_summary(
            self.store.manager_mut(),
            provider.as_ref(),
            Some(entry_id),
            &self.compaction,
            &CancelToken::new(),
        )
        .map_err(|e| e.to_string())?;
        self.history = self.store.context_messages();
        Ok(written)
    }

    /// Sets (or with `None` clears) the label on the entry `entry_id`.
    pub fn set_label(&mut self, entry_id: &str, label: Option<&str>) -> Result<(), String> {
        self.store
            .manager_mut()
            .set_label(entry_id, label)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Writes the conversation as one self-contained HTML file; returns its path.
    pub fn export_html(&self, output: Option<&Path>) -> Result<PathBuf, String> {
        let default_name = format!(
            "focus-session-{}.html",
            if self.store.id().is_empty() {
                "unsaved"
            } else {
                self.store.id()
            }
        );
        let path = output
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(default_name));
        let meta = crate::export::Meta {
            title: self.store.name().unwrap_or("focus session").to_string(),
            model: format!(
                "{}/{}",
                self.config.provider.model().provider,
                self.config.provider.model().id
            ),
            session_id: self.store.id().to_string(),
            cwd: String::new(),
            system_prompt: self.config.system_prompt.clone(),
        };
        let html = crate::export::render_html(&meta, &self.history);
        std::fs::write(&path, html).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    }
}

/// How many inputs (keys, stdin lines, batches of agent events) a mode's loop may
/// have waiting. The threads that feed it wait when it is full: an agent streaming
/// faster than the screen or the client can take it is slowed down, and memory
/// stays flat: at most this many batches of [`FORWARD_BATCH`] events wait.
pub const INPUT_QUEUE_CAPACITY: usize = 64;

/// The most events forwarded as one input by [`follow_run`].
pub const FORWARD_BATCH: usize = 64;

/// Follows `run` to its end on a thread of its own, for the modes that keep
/// reading input while the agent works: the events but the last go to `inputs`
/// as `events(…)`, in batches of what has arrived meanwhile (a streamed answer is
/// tens of thousands of deltas; one wake-up of the mode per batch, not per delta),
/// until nobody listens; then the final `AgentEnd` and the history
/// ([`AgentRun::join`]) as `finished(…)`. A run that closed its events without an
/// `AgentEnd` (a bug) is reported as one that ended with an error.
pub fn follow_run<T: Send + 'static>(
    run: AgentRun,
    inputs: std::sync::mpsc::SyncSender<T>,
    events: fn(Vec<AgentEvent>) -> T,
    finished: fn(AgentEvent, Vec<Message>) -> T,
) {
    std::thread::spawn(move || {
        let mut end = None;
        while let Ok(first) = run.events.recv() {
            let mut batch = vec![first];
            while batch.len() < FORWARD_BATCH {
                match run.events.try_recv() {
                    Ok(next) => batch.push(next),
                    Err(_) => break,
                }
            }
            if matches!(batch.last(), Some(AgentEvent::AgentEnd { .. })) {
                end = batch.pop();
            }
            if !batch.is_empty() && inputs.send(events(batch)).is_err() {
                return;
            }
        }
        let history = run.join();
        let end = end.unwrap_or(AgentEvent::AgentEnd {
            messages: Vec::new(),
            reason: EndReason::Error("the agent stopped without an end event".into()),
        });
        let _ = inputs.send(finished(end, history));
    });
}
