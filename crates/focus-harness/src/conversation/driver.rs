//! [`Conversation`]: one conversation, whatever shows it. It holds the agent's
//! configuration, the history and the session, and starts runs. The session file
//! is kept in step by the run itself: its event observer appends each finished
//! message on the loop's thread before any front end sees the event, so the
//! session is whole whenever the loop compacts it between two model calls
//! ([`compaction_transform`]), however far behind the screen or the client is.
//!
//! It knows nothing of terminals: the front end says how the user interrupts
//! ([`Conversation::interrupts`]), renders the runs' [`AgentEvent`]s and the
//! [`Notice`]s, and plugs in hooks and changing tools through the traits of
//! [`super::hooks`]. The CLI's print, JSON, RPC and interactive modes all drive
//! one.

use super::hooks::{ConversationHooks, ToolSource};
use super::notice::Notice;
use super::store::{SessionRequest, Store};
use crate::compaction::in_run::{compaction_end, failure};
use crate::compaction::overflow::RECOVERY_FAILED;
use crate::compaction::{
    compact, compaction_transform, estimate_context_tokens, leave_branch_with_summary,
    prepare_compaction, record_compaction, should_compact, CompactionError, CompactionSettings,
    InRunCompaction, OverflowAction, OverflowRecovery, MAX_COMPACTION_FAILURES,
};
use focus_core::agent::{spawn_agent, AgentConfig, AgentRun};
use focus_core::cancel::CancelToken;
use focus_core::event::{AgentEvent, Compacted, EndReason};
use focus_core::message::{Message, StopReason};
use focus_core::provider::{Provider, ThinkingLevel, ToolSpec};
use focus_core::sync::lock;
use focus_core::tool::Tool;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Builds the system prompt for the tools offered (re-run before every model
/// call, so an AGENTS.md edit or a mode change reaches the next one).
pub type PromptBuilder = dyn Fn(&[ToolSpec]) -> String + Send + Sync;

/// How many times the user has interrupted so far (Ctrl+C, a termination
/// signal): a counter that only goes up.
pub type InterruptCounter = dyn Fn() -> u64 + Send + Sync;

/// A conversation: configuration, history, session.
pub struct Conversation {
    /// Model, system prompt, tools, gate, options.
    pub config: AgentConfig,
    /// The messages so far (the current branch of the session).
    pub history: Vec<Message>,
    /// Where finished messages go; shared with the running loop, which writes
    /// them (see the module's text).
    pub session: SharedStore,
    /// When to compact automatically.
    pub compaction: CompactionSettings,
    /// A warning from the last session write or compaction, shown once by the mode.
    pub store_warning: Option<String>,
    /// The session lifecycle hooks (Claude Code's), if any.
    pub hooks: Option<Arc<dyn ConversationHooks>>,
    /// Tools that may change (MCP servers), added to `base_tools`.
    pub tool_source: Option<Arc<dyn ToolSource>>,
    /// The built-in tools (the source's tools are added to these).
    pub base_tools: Vec<Arc<dyn Tool>>,
    /// The source's tool generation `config.tools` was built from.
    pub tools_generation: u64,
    /// Builds the system prompt; each run rebuilds it before every model call.
    /// `None`: `config.system_prompt` as it is.
    pub prompt: Option<Arc<PromptBuilder>>,
    /// How often the user has interrupted: a run or a compaction in
    /// [`Conversation::run_blocking`] and [`Conversation::after_run`] stops when
    /// it goes up. The CLI counts Ctrl+C and termination signals.
    pub interrupts: Arc<InterruptCounter>,
    /// Automatic compactions that failed in a row (after a run or inside one);
    /// at [`MAX_COMPACTION_FAILURES`] focus stops trying until one succeeds.
    pub compaction_failures: Arc<AtomicU32>,
    /// Set by the last run when it compacted the session mid-run: the history
    /// to go on from is then the session's context (see [`Conversation::run_ended`]).
    run_compacted: Arc<AtomicBool>,
}

/// The conversation's session, shared between the mode's thread and a running
/// loop (whose observer writes each finished message).
pub struct SharedStore(Arc<Mutex<Store>>);

impl SharedStore {
    /// The session, locked for a moment: a running loop writes to it too, so do
    /// not hold it across anything slow.
    pub fn lock(&self) -> MutexGuard<'_, Store> {
        lock(&self.0)
    }
}

/// How a run ended, as the modes need it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// The loop's reason.
    pub reason: EndReason,
    /// The last assistant message's text (print mode's answer).
    pub final_text: String,
}

impl Conversation {
    /// A conversation with `config`, starting from `history`, saving into `store`.
    /// The session's own message kinds (compaction and branch summaries, `!`
    /// commands) reach the model as pi sends them, unless `config` converts them
    /// otherwise.
    pub fn new(mut config: AgentConfig, history: Vec<Message>, store: Store) -> Conversation {
        if config.convert_to_llm.is_none() {
            config.convert_to_llm = Some(crate::session::convert_to_llm_hook());
        }
        Conversation {
            config,
            history,
            session: SharedStore(Arc::new(Mutex::new(store))),
            compaction: CompactionSettings::default(),
            store_warning: None,
            hooks: None,
            tool_source: None,
            base_tools: Vec::new(),
            tools_generation: 0,
            prompt: None,
            interrupts: Arc::new(|| 0),
            compaction_failures: Arc::new(AtomicU32::new(0)),
            run_compacted: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Starts a run with `prompts` (empty = continue) on its own thread. When the
    /// tool source changed (an MCP server announced `tools/list_changed`, or
    /// died), the tool list is rebuilt first; its warnings become the store
    /// warning.
    pub fn spawn(&mut self, prompts: Vec<Message>) -> AgentRun {
        self.refresh_tools();
        if let Some(gate) = &self.hooks {
            // The session may have changed since the last run (`/new`, a fork).
            let store = self.session.lock();
            gate.set_session(store.id(), store.path());
        }
        let mut config = self.config.clone();
        config.observe = Some(self.session_writer());
        self.run_compacted = Arc::new(AtomicBool::new(false));
        config.transform_context = Some(compaction_transform(
            self.session.0.clone(),
            InRunCompaction {
                provider: config.provider.clone(),
                settings: self.compaction,
                failures: self.compaction_failures.clone(),
                compacted: self.run_compacted.clone(),
                before: self.hooks.clone().map(|hooks| {
                    Arc::new(move || hooks.pre_compact("auto", None)) as Arc<dyn Fn() + Send + Sync>
                }),
            },
        ));
        if let Some(build) = self.prompt.clone() {
            let specs: Vec<_> = config.tools.iter().map(|t| t.spec()).collect();
            // Kept current for what shows the prompt (export, /session).
            self.config.system_prompt = build(&specs);
            config.system_prompt_source = Some(Arc::new(move || build(&specs)));
        }
        spawn_agent(config, self.history.clone(), prompts)
    }

    /// The run's event observer: appends every finished message to the session
    /// on the loop's thread; a failed write waits as the store's warning.
    fn session_writer(&self) -> Arc<focus_core::agent::EventObserver> {
        let session = self.session.0.clone();
        Arc::new(move |event: &AgentEvent| {
            if let AgentEvent::MessageEnd { message } = event {
                let mut store = lock(&session);
                if let Err(error) = store.append_message(message) {
                    store.write_warning = Some(format!("could not save the session: {error}"));
                }
            }
        })
    }

    /// Takes back the history a run ended with (from [`AgentRun::join`], or a
    /// mode that follows the run on a thread of its own): the loop's own, or,
    /// when the run compacted the session mid-way, the session's compacted
    /// context.
    pub fn run_ended(&mut self, history: Vec<Message>) {
        self.history = match self.run_compacted.swap(false, Ordering::SeqCst) {
            true => self.session.lock().context_messages(),
            false => history,
        };
    }

    /// Re-reads the source's tools when their generation changed.
    fn refresh_tools(&mut self) {
        let Some(source) = &self.tool_source else {
            return;
        };
        let warnings = source.take_warnings();
        if !warnings.is_empty() {
            self.store_warning = Some(format!("MCP: {}", warnings.join("; ")));
        }
        let generation = source.generation();
        if generation == self.tools_generation {
            return;
        }
        self.tools_generation = generation;
        let mut tools = self.base_tools.clone();
        tools.extend(source.tools());
        self.config.tools = tools;
    }

    /// Switches the conversation to `provider`'s model and records a `model_change`
    /// in the session (when it is a change), so a resume comes back to it.
    pub fn switch_model(&mut self, provider: Arc<dyn Provider>) {
        let (old, new) = (self.config.provider.model(), provider.model());
        let changed = (&old.provider, &old.id) != (&new.provider, &new.id);
        let (name, id) = (new.provider.clone(), new.id.clone());
        self.config.provider = provider;
        if changed {
            if let Err(error) = self.session.lock().append_model_change(&name, &id) {
                self.store_warning = Some(format!("could not save the session: {error}"));
            }
        }
    }

    /// Sets the thinking level and records a `thinking_level_change` in the session
    /// (when it is a change), so a resume comes back to it.
    pub fn set_thinking(&mut self, level: ThinkingLevel) {
        if self.config.options.thinking == level {
            return;
        }
        self.config.options.thinking = level;
        if let Err(error) = self.session.lock().append_thinking_change(level.as_str()) {
            self.store_warning = Some(format!("could not save the session: {error}"));
        }
    }

    /// Follows one event the mode received: a session write that failed on the
    /// loop's side becomes the warning; at the run's end, so do hook failures.
    pub fn record(&mut self, event: &AgentEvent) {
        // The session is written at a message's end, never during its deltas: a
        // streamed answer's tens of thousands of them need not take the lock.
        if event.is_delta() {
            return;
        }
        if let Some(warning) = self.session.lock().write_warning.take() {
            self.store_warning = Some(warning);
        }
        // A hook that failed during the run (a Stop hook) is told once, at its end.
        if let (AgentEvent::AgentEnd { .. }, Some(gate)) = (event, &self.hooks) {
            let failures = gate.take_hook_failures();
            if !failures.is_empty() {
                self.store_warning = Some(failures.join("; "));
            }
        }
    }

    /// Hands the pending warning (a session write that failed, an MCP server that
    /// died) to `on_notice` as a [`Notice::Warning`], so no mode loses it: JSON
    /// mode prints it as a line, print mode on stderr.
    pub fn pass_on_warning(&mut self, on_notice: &mut dyn FnMut(&Notice)) {
        if let Some(message) = self.store_warning.take() {
            on_notice(&Notice::Warning(message));
        }
        // An MCP server that died mid-run is told at once, not at the next prompt.
        let source = self.tool_source.as_ref();
        for warning in source.map(|s| s.take_warnings()).unwrap_or_default() {
            on_notice(&Notice::Warning(format!("MCP: {warning}")));
        }
    }

    /// Takes the history back from a finished run.
    pub fn finish(&mut self, run: AgentRun) {
        let history = run.join();
        self.run_ended(history);
    }

    /// Runs `prompts` to the end on this thread, handing every event to `on_event`
    /// after recording it. On a context-overflow error the history is compacted and
    /// the run retried once; after a run that filled the context past the window's
    /// reserve, the history is compacted for the next prompt. Compactions are
    /// announced to `on_notice` (see [`Conversation::after_run`]).
    pub fn run_blocking(
        &mut self,
        prompts: Vec<Message>,
        on_event: &mut dyn FnMut(&AgentEvent),
        on_notice: &mut dyn FnMut(&Notice),
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
        on_notice: &mut dyn FnMut(&Notice),
    ) -> RunOutcome {
        let run = self.spawn(prompts);
        let mut reason = EndReason::Completed;
        let interrupts_before = (self.interrupts)();
        loop {
            // Poll so Ctrl+C (counted by the signal handler) can abort the run.
            let event = match run
                .events
                .recv_timeout(std::time::Duration::from_millis(50))
            {
                Ok(event) => event,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if (self.interrupts)() > interrupts_before {
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
        if (self.interrupts)() > interrupts_before {
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
    /// termination signals cancel a compaction (see [`Conversation::after_run_watching`]).
    pub fn after_run(
        &mut self,
        recovery: &mut OverflowRecovery,
        notify: &mut dyn FnMut(&Notice),
    ) -> AfterRun {
        let interrupts = self.interrupts.clone();
        let before = interrupts();
        self.after_run_watching(recovery, notify, &mut |cancel| {
            if interrupts() > before {
                cancel.cancel();
            }
        })
    }

    /// [`Conversation::after_run`], with `watch` called on this thread every few
    /// milliseconds while a compaction's summary call runs (on a thread of its
    /// own): it cancels the token to stop the compaction, and may answer whoever
    /// asks meanwhile (the RPC server answers `abort` and `get_state` that way).
    pub fn after_run_watching(
        &mut self,
        recovery: &mut OverflowRecovery,
        notify: &mut dyn FnMut(&Notice),
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
            && self.compaction_failures.load(Ordering::SeqCst) < MAX_COMPACTION_FAILURES
            && self.has_something_to_compact()
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
    /// not overflow (an overflow is handled by [`Conversation::after_run`], which compacts
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
            && self.compaction_failures.load(Ordering::SeqCst) < MAX_COMPACTION_FAILURES
            && should_compact(
                estimate_context_tokens(&self.history),
                window,
                &self.compaction,
            )
            && self.has_something_to_compact()
    }

    /// Whether a compaction would summarize anything (a history of one exchange
    /// cannot be compacted; that is no failure, and nothing is announced).
    fn has_something_to_compact(&self) -> bool {
        let window = self.config.provider.model().context_window;
        let store = self.session.lock();
        let branch = store.manager().tree().current_branch();
        prepare_compaction(&branch, &self.compaction.fitted(window)).is_some()
    }

    /// Compacts between the two announcements (the same `CompactionStart` and
    /// `CompactionEnd` events a compaction inside a run sends, as JSON); `retry`
    /// says (after a successful compaction) whether the run will be retried.
    fn announced_compaction(
        &mut self,
        reason: &str,
        notify: &mut dyn FnMut(&Notice),
        watch: &mut CompactionWatch<'_>,
        retry: impl FnOnce(&mut Conversation) -> bool,
    ) -> Result<bool, String> {
        let reason = reason.to_string();
        notify(&Notice::Compaction(Box::new(AgentEvent::CompactionStart {
            reason,
        })));
        if let Some(gate) = &self.hooks {
            gate.pre_compact("auto", None);
        }
        // The summary is a model call that can take a minute: `watch` may cancel
        // it, as an abort would a run.
        let compacted = watching(|cancel| self.compact_with(None, cancel), watch);
        match compacted {
            Ok(result) => {
                self.compaction_failures.store(0, Ordering::SeqCst);
                let will_retry = retry(self);
                let mut end = compaction_end(Ok(result));
                if let AgentEvent::CompactionEnd { will_retry: w, .. } = &mut end {
                    *w = will_retry;
                }
                notify(&Notice::Compaction(Box::new(end)));
                Ok(will_retry)
            }
            Err(error) => {
                let failed = failure(&error, &self.compaction_failures);
                let message = failed.message.clone();
                let end = compaction_end(Err(failed));
                notify(&Notice::Compaction(Box::new(end)));
                Err(match error {
                    CompactionError::Cancelled => CANCELLED.into(),
                    _ => message,
                })
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

impl Drop for Conversation {
    /// The conversation is over: the `SessionEnd` hooks run (reason `other`).
    fn drop(&mut self) {
        if let Some(gate) = &self.hooks {
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

/// Watches a compaction while it runs (see [`Conversation::after_run_watching`]).
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

impl Conversation {
    /// Compacts the history now (the `/compact` and RPC `compact` commands), with
    /// optional extra instructions for the summary.
    ///
    /// # Errors
    ///
    /// A run is in progress, there is nothing to compact, or the summary could not be made or
    /// written; the message says which.
    pub fn compact(&mut self, instructions: Option<&str>) -> Result<Compacted, String> {
        if let Some(gate) = &self.hooks {
            gate.pre_compact("manual", instructions);
        }
        let compacted = self.compact_with(instructions, &CancelToken::new());
        if compacted.is_ok() {
            self.compaction_failures.store(0, Ordering::SeqCst);
        }
        compacted.map_err(|e| e.to_string())
    }

    /// [`Conversation::compact`], stopped when `cancel` fires.
    fn compact_with(
        &mut self,
        instructions: Option<&str>,
        cancel: &CancelToken,
    ) -> Result<Compacted, CompactionError> {
        // The session is locked to plan and to record, not during the summary
        // call: whoever asks meanwhile (RPC `get_state`) is answered.
        let plan = {
            let store = self.session.lock();
            let branch = store.manager().tree().current_branch();
            let window = self.config.provider.model().context_window;
            prepare_compaction(&branch, &self.compaction.fitted(window))
        }
        .ok_or(CompactionError::NothingToCompact)?;
        let provider = self.config.provider.clone();
        let entry = compact(
            provider.as_ref(),
            &plan,
            &self.compaction,
            instructions,
            cancel,
        )?;
        let outcome = record_compaction(self.session.lock().manager_mut(), entry)?;
        self.history = self.session.lock().context_messages();
        Ok(Compacted {
            entry_id: outcome.entry_id,
            tokens_before: outcome.tokens_before,
            tokens_after: outcome.tokens_after,
        })
    }

    /// Starts a fresh session (same settings, empty history).
    ///
    /// # Errors
    ///
    /// A run is in progress, or the new session cannot be created; the old one stays.
    pub fn new_session(&mut self, cwd: &Path) -> Result<(), String> {
        let request = if self.session.lock().is_disabled() {
            SessionRequest::Disabled
        } else {
            SessionRequest::New
        };
        let (mut store, history) = Store::open(&request, cwd, self.session.lock().dir())?;
        self.store_warning = store.take_load_warning();
        if let Some(gate) = &self.hooks {
            // Claude Code's `/clear`: the old session ends, a new one starts.
            gate.session_end("clear");
            gate.set_session(store.id(), store.path());
            let failures = gate.session_start("clear");
            if !failures.is_empty() {
                self.store_warning = Some(failures.join("; "));
            }
        }
        *self.session.lock() = store;
        self.history = history;
        Ok(())
    }

    /// Opens another session file and continues from its current leaf.
    ///
    /// # Errors
    ///
    /// A run is in progress, or the file cannot be opened (missing folder, locked by another focus,
    /// unreadable); the current session stays.
    pub fn switch_session(&mut self, path: &str, cwd: &Path) -> Result<(), String> {
        if !Path::new(path).is_file() {
            return Err(format!("no session file at {path}"));
        }
        let (mut store, history) = Store::open(
            &SessionRequest::Open(path.to_string()),
            cwd,
            self.session.lock().dir(),
        )?;
        self.store_warning = store.take_load_warning();
        if let Some(gate) = &self.hooks {
            // Claude Code's `/resume`.
            gate.set_session(store.id(), store.path());
            let failures = gate.session_start("resume");
            if !failures.is_empty() {
                self.store_warning = Some(failures.join("; "));
            }
        }
        *self.session.lock() = store;
        self.history = history;
        Ok(())
    }

    /// Forks: a new session holding the branch up to (not including) the user
    /// message `entry_id`, whose text is returned so the user can edit and resend it.
    ///
    /// # Errors
    ///
    /// A run is in progress, `entry_id` is no entry, or the new session cannot be written.
    pub fn fork(&mut self, entry_id: &str) -> Result<String, String> {
        let (store, history, text) = self.session.lock().fork(entry_id)?;
        *self.session.lock() = store;
        self.history = history;
        Ok(text)
    }

    /// Moves the current leaf to `entry_id` (continue from any entry).
    ///
    /// # Errors
    ///
    /// A run is in progress, or `entry_id` is no entry of the session.
    pub fn go_to_entry(&mut self, entry_id: &str) -> Result<(), String> {
        self.history = self.session.lock().set_leaf(entry_id)?;
        Ok(())
    }

    /// Moves the current leaf to `entry_id`, leaving the current branch; with
    /// `summarize`, the branch left behind is summarized first and the summary
    /// attached where the conversation goes on (a `branch_summary` entry, as pi
    /// writes), so the model keeps what was learned there. Returns the summary
    /// entry's id when one was written.
    ///
    /// # Errors
    ///
    /// A run is in progress, `entry_id` is no entry, or the summary could not be made or written;
    /// the leaf stays then.
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
        let written = leave_branch_with_summary(
            self.session.lock().manager_mut(),
            provider.as_ref(),
            Some(entry_id),
            &self.compaction,
            &CancelToken::new(),
        )
        .map_err(|e| e.to_string())?;
        self.history = self.session.lock().context_messages();
        Ok(written)
    }

    /// Sets (or with `None` clears) the label on the entry `entry_id`.
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry, or the label cannot be written.
    pub fn set_label(&mut self, entry_id: &str, label: Option<&str>) -> Result<(), String> {
        self.session
            .lock()
            .manager_mut()
            .set_label(entry_id, label)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}
