//! [`Conversation`]: one conversation, whatever shows it. It holds the agent's
//! configuration, the history and the session, and owns every run from start
//! to end: a front end asks ([`Conversation::prompt`], `steer`, `follow_up`,
//! `abort`, [`Conversation::request_compaction`]) and renders what
//! [`Conversation::poll`] hands it — one closed type, [`ConversationEvent`].
//! The run itself, the compaction after it and the retry after an overflow
//! happen on the run's thread ([`super::lifecycle`]); the session file is
//! written by the loop's event observer before any front end sees an event, so
//! the session is whole whenever the loop compacts it between two model calls
//! ([`compaction_transform`]), however far behind the screen or the client is.
//!
//! It knows nothing of terminals: the front end says how the user interrupts
//! ([`Conversation::interrupts`], for the blocking [`Conversation::run_to_end`])
//! and plugs in hooks and changing tools through the traits of
//! [`super::hooks`]. The CLI's print, JSON, RPC and interactive modes all drive
//! one, and so can any other front end: there is no handshake to get wrong.

use super::changed_files::TreeSnapshot;
use super::event::{ConversationEvent, Events};
use super::hooks::{ConversationHooks, ToolSource};
use super::lifecycle::{Lifecycle, Work};
use super::output_schema::{ask_again, check, OutputSchema};
use super::store::Store;
use super::summary::{RunSummary, SAVE_FAILED};
use crate::compaction::{compaction_transform, CompactionSettings, InRunCompaction};
use focus_core::agent::{
    event_queue, AgentConfig, AgentHandle, EventReceiver, EventSender, EVENT_QUEUE_CAPACITY,
};
use focus_core::cancel::{CancelRegistration, CancelToken};
use focus_core::event::{AgentEvent, EndReason};
use focus_core::message::Message;
use focus_core::provider::{Provider, ThinkingLevel, ToolSpec};
use focus_core::sync::lock;
use focus_core::tool::Tool;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Builds the system prompt for the tools offered (re-run before every model
/// call, so an AGENTS.md edit or a mode change reaches the next one).
pub type PromptBuilder = dyn Fn(&[ToolSpec]) -> String + Send + Sync;

/// Why a prompt does not start once the deadline has passed.
pub const DEADLINE_PASSED: &str =
    "the deadline (--deadline, deadlineSeconds) has passed; no prompt starts any more";

/// The warning when the deadline stops a run.
pub const DEADLINE_STOPPED: &str =
    "the deadline (--deadline, deadlineSeconds) passed; the run was stopped";

/// How many times the user has interrupted so far (Ctrl+C, a termination
/// signal): a counter that only goes up.
pub type InterruptCounter = dyn Fn() -> u64 + Send + Sync;

/// A conversation: configuration, history, session, and the run going on.
pub struct Conversation {
    /// Model, system prompt, tools, gate, options.
    pub config: AgentConfig,
    /// The messages so far (the current branch of the session). While a run
    /// goes on it is the history the run started from; the run's own comes
    /// back with its `RunEnded`.
    pub history: Vec<Message>,
    /// Where finished messages go; shared with the running loop, which writes
    /// them (see the module's text).
    pub session: SharedStore,
    /// When to compact automatically.
    pub compaction: CompactionSettings,
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
    /// How often the user has interrupted: a run in
    /// [`Conversation::run_to_end`] (and the compaction after it) stops when it
    /// goes up. The CLI counts Ctrl+C and termination signals.
    pub interrupts: Arc<InterruptCounter>,
    /// Automatic compactions that failed in a row (after a run or inside one);
    /// at [`crate::compaction::MAX_COMPACTION_FAILURES`] focus stops trying
    /// until one succeeds.
    pub compaction_failures: Arc<AtomicU32>,
    /// What the runs came to so far (model calls, usage, time, refused
    /// calls, files changed, the end): kept as the events pass through
    /// [`Conversation::poll`]; a headless front end's exit code and result
    /// record are read from it.
    pub summary: RunSummary,
    /// When whatever runs is stopped (`--deadline`), in every front end: the
    /// first [`Conversation::poll`] after it aborts the run as the user would
    /// (the summary says why, a warning tells the front end), and no prompt
    /// starts after it ([`Conversation::prompt`] refuses).
    pub deadline: Option<Instant>,
    /// The cost budget in USD (`--max-cost`): once the answers' cost reaches it,
    /// no further model call starts ([`super::budget`]) and the summary says so.
    pub max_cost_usd: Option<f64>,
    /// The working directory whose files [`Conversation::run_to_end`] looks at
    /// before and after a run, so the summary's `files_changed` holds what
    /// `bash` changed too ([`super::changed_files`]); `None`: only what `write`
    /// and `edit` name.
    pub watch_files: Option<std::path::PathBuf>,
    /// The schema the final answer must validate against (`--output-schema`):
    /// [`Conversation::run_to_end`] asks the model again when it does not.
    pub output_schema: Option<OutputSchema>,
    /// The project's file tracker: when set, every tool call that may change
    /// files is checkpointed, and so is each prompt ([`super::checkpoints`]).
    pub checkpoints: Option<super::checkpoints::SharedTracker>,
    /// A token whose cancellation aborts every run of this conversation at
    /// once, from the cancelling thread (a subagent's conversation follows its
    /// parent's tool call so: docs/subagents.md).
    pub parent_cancel: Option<CancelToken>,
    /// What the answers cost so far, in USD, for the budget.
    budget_spent: Arc<Mutex<f64>>,
    /// Set when the budget stopped a run.
    budget_stop: Arc<AtomicBool>,
    /// Warnings to hand out at the next [`Conversation::poll`].
    pub(super) warnings: Vec<String>,
    /// The run (or manual compaction) going on.
    job: Option<Job>,
    /// The storage of the last batch handed out, to serve as the run's queue
    /// again (see [`Events`]).
    spare: Arc<Mutex<VecDeque<ConversationEvent>>>,
}

/// A lifecycle going on, as the front end has seen it so far.
struct Job {
    handle: AgentHandle,
    events: EventReceiver<ConversationEvent>,
    thread: JoinHandle<Vec<Message>>,
    /// Between the run's `AgentStart` and `AgentEnd` (steering goes in).
    running: bool,
    /// A compaction is summarizing (inside the run or after it).
    compacting: bool,
    /// A manual compaction: its end is the lifecycle's end.
    manual: bool,
    /// The parent's cancellation, linked to this job's abort while it lasts.
    _linked: Option<CancelRegistration>,
}

/// The conversation's session, shared between the front end's thread and a
/// running loop (whose observer writes each finished message).
pub struct SharedStore(pub(super) Arc<Mutex<Store>>);

impl SharedStore {
    /// The session, locked for a moment: a running loop writes to it too, so do
    /// not hold it across anything slow.
    pub fn lock(&self) -> MutexGuard<'_, Store> {
        lock(&self.0)
    }
}

/// How a run ended, as [`Conversation::run_to_end`] reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// The final reason (`RunEnded`'s; `Aborted` when the user interrupted).
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
            hooks: None,
            tool_source: None,
            base_tools: Vec::new(),
            tools_generation: 0,
            prompt: None,
            summary: RunSummary::new(),
            deadline: None,
            max_cost_usd: None,
            watch_files: None,
            output_schema: None,
            checkpoints: None,
            parent_cancel: None,
            budget_spent: Arc::new(Mutex::new(0.0)),
            budget_stop: Arc::new(AtomicBool::new(false)),
            interrupts: Arc::new(|| 0),
            compaction_failures: Arc::new(AtomicU32::new(0)),
            warnings: Vec::new(),
            job: None,
            spare: Arc::default(),
        }
    }

    /// Starts a run with `prompts` (empty: continue from the history). Refused
    /// while a run or a compaction goes on (steer, follow up or wait for
    /// `RunEnded`). When the tool source changed (an MCP server announced
    /// `tools/list_changed`, or died) the tool list is rebuilt first.
    ///
    /// # Errors
    ///
    /// A run or a compaction is going on; the message says so and nothing starts.
    pub fn prompt(&mut self, prompts: Vec<Message>) -> Result<(), String> {
        if self.job.is_some() {
            return Err("a prompt is running (or the history is being compacted)".into());
        }
        self.checkpoint("prompt");
        self.start(Work::Run(prompts))
    }

    /// Compacts the history in the background (`/compact`, RPC `compact`), with
    /// optional extra instructions for the summary: `CompactionStart` and
    /// `CompactionEnd` (reason `Manual`) come through [`Conversation::poll`], and
    /// [`Conversation::abort`] cancels it. Refused while a run goes on.
    ///
    /// # Errors
    ///
    /// A run or a compaction is going on; the message says so and nothing starts.
    pub fn request_compaction(&mut self, instructions: Option<String>) -> Result<(), String> {
        self.start(Work::Compact(instructions))
    }

    /// Queues a message for the model to read after the current tool batch;
    /// gives it back when no run is going on (the front end starts one).
    ///
    /// # Errors
    ///
    /// No run is going on: the message is given back, unsent.
    pub fn steer(&self, message: Message) -> Result<(), Box<Message>> {
        match &self.job {
            Some(job) if job.running => {
                job.handle.steer(message);
                Ok(())
            }
            _ => Err(Box::new(message)),
        }
    }

    /// Queues a message for when the model would otherwise stop; gives it back
    /// when no run is going on.
    ///
    /// # Errors
    ///
    /// No run is going on: the message is given back, unsent.
    pub fn follow_up(&self, message: Message) -> Result<(), Box<Message>> {
        match &self.job {
            Some(job) if job.running => {
                job.handle.follow_up(message);
                Ok(())
            }
            _ => Err(Box::new(message)),
        }
    }

    /// Stops the run (its stream, its tools) or the compaction going on; the
    /// events that follow end with `RunEnded(Aborted)` (or the compaction's end).
    /// Whether anything was going on.
    pub fn abort(&self) -> bool {
        match &self.job {
            Some(job) => {
                job.handle.abort();
                true
            }
            None => false,
        }
    }

    /// Takes back the steering and follow-up messages not yet delivered (to put
    /// them back in an editor).
    pub fn take_queued(&self) -> Vec<Message> {
        self.job
            .as_ref()
            .map(|job| job.handle.drain_queued())
            .unwrap_or_default()
    }

    /// Whether a run or a compaction goes on (until the front end has taken
    /// its last event).
    pub fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    /// Whether the loop runs: between its `AgentStart` and `AgentEnd` as
    /// taken so far (steering and follow-ups go in).
    pub fn is_running(&self) -> bool {
        self.job.as_ref().is_some_and(|job| job.running)
    }

    /// Whether a compaction is summarizing, inside a run or after it.
    pub fn is_compacting(&self) -> bool {
        self.job.as_ref().is_some_and(|job| job.compacting)
    }

    /// Adds a warning for the front end, handed out at the next poll.
    pub fn warn(&mut self, warning: String) {
        self.warnings.push(warning);
    }

    /// What happened since the last look, in order: pending warnings first,
    /// then what the run queued, waiting until `deadline` for something when
    /// nothing is there yet (a deadline already past never waits). The front
    /// end renders the batch and drops it (its storage serves the run again).
    /// Once it holds `RunEnded` (or a manual compaction's end) the conversation
    /// is idle, its history is the run's, and the next prompt may start.
    pub fn poll(&mut self, deadline: Instant) -> Events {
        let mut batch = std::mem::take(&mut *lock(&self.spare));
        batch.clear();
        batch.extend(self.warnings.drain(..).map(ConversationEvent::Warning));
        if let Some(job) = &self.job {
            batch = take_from(job, batch, deadline);
        }
        self.enforce_deadline(&mut batch);
        self.follow(&mut batch);
        for event in batch.iter() {
            self.summary.observe(event);
        }
        Events::new(batch, self.spare.clone())
    }

    /// Runs `prompts` to the end on this thread (print and JSON modes), handing
    /// every event to `on_event`: the run, a compaction after it, the retry
    /// after an overflow, warnings, `RunEnded`. The user's interrupts (see
    /// [`Conversation::interrupts`]) abort it, and so does the
    /// [`Conversation::deadline`].
    ///
    /// With an [`Conversation::output_schema`], a run that completed is
    /// followed up while its answer does not validate (at most the schema's
    /// retries); the summary keeps the valid value, or that none came.
    ///
    /// With [`Conversation::watch_files`], the files a tool changed behind
    /// `write` and `edit`'s back (`bash`) are added to the summary.
    pub fn run_to_end(
        &mut self,
        prompts: Vec<Message>,
        on_event: &mut dyn FnMut(&ConversationEvent),
    ) -> RunOutcome {
        let Some(root) = self.watch_files.clone() else {
            return self.run_checked(prompts, on_event);
        };
        let before = TreeSnapshot::take(&root);
        let outcome = self.run_checked(prompts, on_event);
        if self.summary.may_have_changed_files {
            let changed = TreeSnapshot::take(&root).changed_since(&before);
            self.summary.note_changed(changed, &root);
        }
        outcome
    }

    /// [`Conversation::run_to_end`] without the look at the files.
    fn run_checked(
        &mut self,
        prompts: Vec<Message>,
        on_event: &mut dyn FnMut(&ConversationEvent),
    ) -> RunOutcome {
        let mut outcome = self.run_once(prompts, on_event);
        let Some(shape) = self.output_schema.clone() else {
            return outcome;
        };
        let mut retries = 0;
        while outcome.reason == EndReason::Completed {
            match check(&shape.schema, &outcome.final_text) {
                Ok(value) => {
                    self.summary.structured_output = Some(value);
                    self.summary.schema_failed = false;
                    break;
                }
                Err(error) => {
                    self.summary.schema_failed = true;
                    if retries == shape.retries {
                        on_event(&ConversationEvent::Warning(format!(
                            "output schema: {error}"
                        )));
                        break;
                    }
                    retries += 1;
                    outcome = self.run_once(vec![ask_again(&shape.schema, &error)], on_event);
                }
            }
        }
        outcome
    }

    /// One run of `prompts` to its end ([`Conversation::run_to_end`] without
    /// the output schema).
    fn run_once(
        &mut self,
        prompts: Vec<Message>,
        on_event: &mut dyn FnMut(&ConversationEvent),
    ) -> RunOutcome {
        let interrupts_before = (self.interrupts)();
        let past_deadline = || self.deadline.is_some_and(|d| Instant::now() >= d);
        let over_budget = self
            .max_cost_usd
            .is_some_and(|limit| *lock(&self.budget_spent) >= limit);
        let mut reason = if past_deadline() {
            // Nothing starts once the deadline has passed.
            self.summary.deadline_reached = true;
            on_event(&ConversationEvent::Warning(DEADLINE_PASSED.into()));
            EndReason::Aborted
        } else if over_budget {
            // Nor once the budget is spent.
            self.summary.budget_reached = true;
            EndReason::Aborted
        } else {
            match self.prompt(prompts) {
                Ok(()) => EndReason::Completed,
                Err(error) => EndReason::Error(error),
            }
        };
        while self.is_busy() {
            let mut look = Instant::now() + BLOCKING_LOOK;
            if let Some(deadline) = self.deadline {
                look = look.min(deadline);
            }
            let events = self.poll(look);
            for event in &events {
                on_event(event);
                if let ConversationEvent::RunEnded(r) = event {
                    reason = r.clone();
                }
            }
            if (self.interrupts)() > interrupts_before {
                self.abort();
            }
        }
        if self.budget_stop.swap(false, Ordering::SeqCst) {
            self.summary.budget_reached = true;
        }
        if self.summary.deadline_reached || self.summary.budget_reached {
            reason = EndReason::Aborted;
        }
        // Warnings left by the last events (a hook's failure) are not lost.
        for event in &self.poll(Instant::now()) {
            on_event(event);
        }
        // A terminal's Ctrl+C also reaches curl (same process group), so the
        // stream may fail before the abort lands: the user's intent is the abort.
        if (self.interrupts)() > interrupts_before {
            reason = EndReason::Aborted;
        }
        // The summary ends as the run did (a prompt refused at the start, the
        // user's interrupt).
        self.summary.end = Some(reason.clone());
        let final_text = self
            .history
            .iter()
            .rev()
            .find_map(Message::as_assistant)
            .map(|m| m.text())
            .unwrap_or_default();
        RunOutcome { reason, final_text }
    }

    /// Stops whatever goes on and waits, at most until `deadline`, for its end
    /// (every tool call answered and in the session); the events are dropped.
    /// `between` runs between two looks (the interactive mode denies approvals
    /// asked meanwhile). Whether the conversation is idle.
    pub fn stop(&mut self, deadline: Instant, between: &mut dyn FnMut()) -> bool {
        self.abort();
        while self.is_busy() && Instant::now() < deadline {
            drop(self.poll(Instant::now() + STOP_LOOK));
            between();
        }
        !self.is_busy()
    }

    /// Adds a message made outside a run (the output of a user's `!command`)
    /// to the history and the session; a failed write becomes a warning.
    pub fn add_message(&mut self, message: Message) {
        let saved = self.session.lock().append_message(&message);
        if let Err(error) = saved {
            self.warn(format!("{SAVE_FAILED}: {error}"));
        }
        self.history.push(message);
        self.checkpoint("command");
    }

    /// Switches the conversation to `provider`'s model and records a `model_change`
    /// in the session (when it is a change), so a resume comes back to it.
    pub fn switch_model(&mut self, provider: Arc<dyn Provider>) {
        let (old, new) = (self.config.provider.model(), provider.model());
        let changed = (&old.provider, &old.id) != (&new.provider, &new.id);
        let (name, id) = (new.provider.clone(), new.id.clone());
        self.config.provider = provider;
        if changed {
            let saved = self.session.lock().append_model_change(&name, &id);
            if let Err(error) = saved {
                self.warn(format!("{SAVE_FAILED}: {error}"));
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
        let saved = self.session.lock().append_thinking_change(level.as_str());
        if let Err(error) = saved {
            self.warn(format!("{SAVE_FAILED}: {error}"));
        }
    }

    /// The deadline, as [`Conversation::poll`] applies it: once it has passed,
    /// the run (or compaction) going on is aborted as the user would abort it (cleanly, every
    /// tool call answered, the session whole) and a warning says why, once.
    fn enforce_deadline(&mut self, batch: &mut VecDeque<ConversationEvent>) {
        let passed = self.deadline.is_some_and(|d| Instant::now() >= d);
        if !passed || self.summary.deadline_reached || !self.is_busy() {
            return;
        }
        self.summary.deadline_reached = true;
        self.abort();
        batch.push_back(ConversationEvent::Warning(DEADLINE_STOPPED.into()));
    }

    /// Starts a lifecycle on its own thread.
    fn start(&mut self, work: Work) -> Result<(), String> {
        if self.job.is_some() {
            return Err("a prompt is running (or the history is being compacted)".into());
        }
        if matches!(work, Work::Run(_)) && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.summary.deadline_reached = true;
            return Err(DEADLINE_PASSED.into());
        }
        let manual = matches!(work, Work::Compact(_));
        let (sender, events) = event_queue(EVENT_QUEUE_CAPACITY);
        let lifecycle = self.lifecycle(sender);
        let handle = lifecycle.handle.clone();
        let linked = self.parent_cancel.as_ref().map(|parent| {
            let handle = handle.clone();
            parent.on_cancel(move || handle.abort())
        });
        let thread = std::thread::Builder::new()
            .name("focus-conversation".into())
            .spawn(move || lifecycle.run(work))
            .map_err(|e| format!("cannot start the run's thread: {e}"))?;
        self.job = Some(Job {
            handle,
            events,
            thread,
            running: false,
            compacting: false,
            manual,
            _linked: linked,
        });
        Ok(())
    }

    /// What a run needs: the configuration with the session writer, the in-run
    /// compaction and the prompt builder plugged in, the tools refreshed.
    fn lifecycle(&mut self, events: EventSender<ConversationEvent>) -> Lifecycle {
        self.refresh_tools();
        if let Some(gate) = &self.hooks {
            // The session may have changed since the last run (`/new`, a fork).
            let store = self.session.lock();
            gate.set_session(store.id(), store.path());
        }
        let mut config = self.config.clone();
        if let Some(tracker) = &self.checkpoints {
            config.tools = super::checkpoints::wrap_tools(&config.tools, tracker, &self.session.0);
        }
        let handle = AgentHandle::new();
        config.observe = Some(match self.max_cost_usd {
            Some(limit) => super::budget::guard(
                self.session_writer(),
                limit,
                self.budget_spent.clone(),
                handle.cancel_token().clone(),
                self.budget_stop.clone(),
            ),
            None => self.session_writer(),
        });
        let run_compacted = Arc::new(AtomicBool::new(false));
        config.transform_context = Some(compaction_transform(
            self.session.0.clone(),
            InRunCompaction {
                provider: config.provider.clone(),
                settings: self.compaction,
                failures: self.compaction_failures.clone(),
                compacted: run_compacted.clone(),
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
        Lifecycle {
            config,
            history: self.history.clone(),
            handle,
            session: self.session.0.clone(),
            settings: self.compaction,
            failures: self.compaction_failures.clone(),
            run_compacted,
            hooks: self.hooks.clone(),
            tool_source: self.tool_source.clone(),
            events,
            held_end: None,
        }
    }

    /// The run's event observer: appends every finished message to the session
    /// on the loop's thread; a failed write waits as the store's warning (the
    /// lifecycle passes it on).
    fn session_writer(&self) -> Arc<focus_core::agent::EventObserver> {
        let session = self.session.0.clone();
        Arc::new(move |event: &AgentEvent| {
            if let AgentEvent::MessageEnd { message } = event {
                let mut store = lock(&session);
                // A subagent's result: its session file is linked first, in
                // an entry pi skips (`crate::subagents::record`).
                if let Some(link) = crate::subagents::record::link_data(message) {
                    let linked = store
                        .manager_mut()
                        .append_custom(crate::subagents::record::LINK_TYPE, link);
                    if let Err(error) = linked {
                        store.write_warning = Some(format!("{SAVE_FAILED}: {error}"));
                    }
                }
                if let Err(error) = store.append_message(message) {
                    store.write_warning = Some(format!("{SAVE_FAILED}: {error}"));
                }
            }
        })
    }

    /// Re-reads the source's tools when their generation changed.
    fn refresh_tools(&mut self) {
        let Some(source) = &self.tool_source else {
            return;
        };
        let warnings = source.take_warnings();
        if !warnings.is_empty() {
            self.warnings.push(format!("MCP: {}", warnings.join("; ")));
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

    /// Keeps the job's state in step with the events handed out, and ends the
    /// job at its last event (its history taken back).
    fn follow(&mut self, batch: &mut VecDeque<ConversationEvent>) {
        let Some(job) = &mut self.job else {
            return;
        };
        // A thread that is done has queued its last events by now (or died
        // without them): take them too.
        let finished = job.thread.is_finished();
        if finished {
            batch.extend(job.events.take_all(VecDeque::new()));
        }
        let mut ended = false;
        for event in batch.iter() {
            match event {
                ConversationEvent::Agent(event) if event.is_delta() => {}
                ConversationEvent::Agent(AgentEvent::AgentStart) => job.running = true,
                ConversationEvent::Agent(AgentEvent::AgentEnd { .. }) => job.running = false,
                ConversationEvent::Agent(AgentEvent::CompactionStart { .. })
                | ConversationEvent::CompactionStart(_) => job.compacting = true,
                ConversationEvent::Agent(AgentEvent::CompactionEnd { .. }) => {
                    job.compacting = false
                }
                ConversationEvent::CompactionEnd(..) => {
                    job.compacting = false;
                    ended |= job.manual;
                }
                ConversationEvent::RunEnded(_) => ended = true,
                _ => {}
            }
        }
        if !ended && finished {
            if !job.manual {
                batch.push_back(ConversationEvent::RunEnded(EndReason::Error(
                    "the run stopped without an end event".into(),
                )));
            }
            ended = true;
        }
        if let Some(job) = self.job.take_if(|_| ended) {
            self.history = match job.thread.join() {
                Ok(history) => history,
                // The loop catches its panics; this would be one in the
                // compaction after it: the session holds what happened.
                Err(_) => self.session.lock().context_messages(),
            };
        }
    }
}

/// How long [`Conversation::run_to_end`] waits for events before it looks at
/// the user's interrupts again.
const BLOCKING_LOOK: Duration = Duration::from_millis(50);

/// How long [`Conversation::stop`] waits between two looks.
const STOP_LOOK: Duration = Duration::from_millis(33);

/// Takes what `job` queued into `batch` (storage swapped, not copied), waiting
/// until `deadline` for a first event when there is none.
fn take_from(
    job: &Job,
    mut batch: VecDeque<ConversationEvent>,
    deadline: Instant,
) -> VecDeque<ConversationEvent> {
    if !batch.is_empty() {
        batch.extend(job.events.take_all(VecDeque::new()));
        return batch;
    }
    let mut taken = job.events.take_all(batch);
    if !taken.is_empty() {
        return taken;
    }
    let wait = deadline.saturating_duration_since(Instant::now());
    if wait.is_zero() {
        return taken;
    }
    if let Ok(first) = job.events.recv_timeout(wait) {
        let spare = std::mem::take(&mut taken);
        taken = job.events.take_all(spare);
        taken.push_front(first);
    }
    taken
}

impl Drop for Conversation {
    /// The conversation is over: a run still going is aborted (its thread ends
    /// on its own), and the `SessionEnd` hooks run (reason `other`).
    fn drop(&mut self) {
        self.abort();
        if let Some(gate) = &self.hooks {
            gate.session_end("other");
        }
    }
}
