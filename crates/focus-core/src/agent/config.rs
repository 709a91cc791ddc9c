//! [`AgentConfig`]: everything a run needs besides the history — the model, the
//! system prompt, the tools, the gate, the limits, and the two context hooks.

use std::sync::Arc;

use crate::cancel::CancelToken;
use crate::event::{AgentEvent, EventSink};
use crate::message::Message;
use crate::provider::{Provider, RequestOptions};
use crate::tool::{Tool, ToolGate};

/// Turns the stored history into the view sent to one model call (compaction,
/// pruning). Its output is used for that call only; the stored history is unchanged.
/// It runs at a step boundary on the loop's thread, after the turn's `TurnStart`:
/// work it does there (a compaction's summary call) stops when the token fires,
/// and what it wants to report goes to the sink as events (`CompactionStart`,
/// `CompactionEnd`), in order with the run's own.
pub type TransformContext =
    dyn Fn(Vec<Message>, &CancelToken, &EventSink<'_>) -> Vec<Message> + Send + Sync;

/// Sees every event of a run on the loop's thread, before it is queued for the
/// consumers (see [`AgentConfig::observe`]).
pub type EventObserver = dyn Fn(&AgentEvent) + Send + Sync;

/// The single boundary where custom message kinds are translated or dropped before
/// the history reaches a provider.
pub type ConvertToLlm = dyn Fn(&[Message]) -> Vec<Message> + Send + Sync;

/// Builds the system prompt for one model call (see [`AgentConfig::system_prompt_source`]).
pub type SystemPromptSource = dyn Fn() -> String + Send + Sync;

/// What a front end runs around prompts (Claude Code's `UserPromptSubmit` and
/// `Stop` hooks). The loop calls it; what it runs is the front end's business.
pub trait PromptHooks: Send + Sync {
    /// Called with each user prompt before it is delivered (the first prompts,
    /// follow-ups, steering). `Err(reason)`: the prompt is refused and the run ends
    /// with that reason, nothing sent. `Ok(Some(text))`: `text` is added to the
    /// prompt as an extra text block (context for the model).
    fn before_prompt(&self, prompt: &Message) -> Result<Option<String>, String>;
    /// Called when the run would end because the model answered without tools.
    /// `continuations` is how many times this was answered with `Some` for the
    /// current prompt. `Some(text)`: the run goes on with `text` as a new user
    /// message. At most [`MAX_STOP_CONTINUATIONS`] times per prompt.
    fn before_stop(&self, history: &[Message], continuations: u32) -> Option<String>;
}

/// How many times [`PromptHooks::before_stop`] may keep one prompt's run going;
/// a hook that asks once more ends the run with [`crate::event::EndReason::StopHookLimit`]
/// (a guard against a hook that always says "continue"), which says why.
pub const MAX_STOP_CONTINUATIONS: u32 = 3;

/// How a queue of steering or follow-up messages is delivered (pi's
/// `steeringMode`/`followUpMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum QueueMode {
    /// Everything queued, together, at the next delivery point.
    #[default]
    All,
    /// The oldest message only; the rest wait for the next turn (steering) or
    /// the next time the agent would stop (follow-ups).
    OneAtATime,
}

impl QueueMode {
    /// Parses pi's spelling: `all` or `one-at-a-time`.
    pub fn parse(text: &str) -> Option<QueueMode> {
        match text {
            "all" => Some(QueueMode::All),
            "one-at-a-time" => Some(QueueMode::OneAtATime),
            _ => None,
        }
    }
}

/// The default round-trip limit of [`AgentConfig::new`]: generous, it only catches a
/// model stuck in a loop.
pub const DEFAULT_MAX_TURNS: usize = 200;

/// The default circuit breaker of [`AgentConfig::new`]: stop after this many
/// consecutive turns in which every tool call failed.
pub const DEFAULT_MAX_FAILED_TURNS: usize = 8;

/// How a run behaves. Cheap to clone (everything heavy is behind an `Arc`).
#[derive(Clone)]
pub struct AgentConfig {
    /// The model to call.
    pub provider: Arc<dyn Provider>,
    /// The system prompt sent with every call (unless `system_prompt_source` is set).
    pub system_prompt: String,
    /// Builds the system prompt anew before every model call, so what it is made
    /// of (a project's AGENTS.md, the skills, the permission mode) reaches the next
    /// call when it changes mid-run. `None`: `system_prompt` as it is.
    pub system_prompt_source: Option<Arc<SystemPromptSource>>,
    /// The tools the model may call.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Per-call knobs (thinking level, token cap…).
    pub options: RequestOptions,
    /// Checks every tool call before and after it runs; `None` allows everything.
    pub gate: Option<Arc<dyn ToolGate>>,
    /// Model round-trips per prompt (a follow-up starts a new count; steering does
    /// not); 0 = unlimited.
    pub max_turns: usize,
    /// Circuit breaker: consecutive turns whose tool calls all failed; 0 = off.
    pub max_failed_turns: usize,
    /// How queued steering messages are delivered.
    pub steering_mode: QueueMode,
    /// How queued follow-up messages are delivered.
    pub follow_up_mode: QueueMode,
    /// Runs before each model call (compaction/pruning); see [`TransformContext`].
    pub transform_context: Option<Arc<TransformContext>>,
    /// Converts the history for the model; default: drop `Message::Custom`.
    pub convert_to_llm: Option<Arc<ConvertToLlm>>,
    /// Called with every event on the loop's thread before consumers get it: the
    /// session writer. What it writes is therefore complete and in order whenever
    /// the loop looks (`transform_context` compacting the session mid-run), however
    /// far behind the consumers are. It must be quick and must not fail.
    pub observe: Option<Arc<EventObserver>>,
    /// Runs around prompts (refuse, add context, keep going); see [`PromptHooks`].
    pub prompt_hooks: Option<Arc<dyn PromptHooks>>,
}

impl AgentConfig {
    /// A config with no system prompt, no tools, no gate, default options,
    /// [`DEFAULT_MAX_TURNS`] and [`DEFAULT_MAX_FAILED_TURNS`].
    pub fn new(provider: Arc<dyn Provider>) -> AgentConfig {
        AgentConfig {
            provider,
            system_prompt: String::new(),
            system_prompt_source: None,
            tools: Vec::new(),
            options: RequestOptions::default(),
            gate: None,
            max_turns: DEFAULT_MAX_TURNS,
            max_failed_turns: DEFAULT_MAX_FAILED_TURNS,
            steering_mode: QueueMode::All,
            follow_up_mode: QueueMode::All,
            transform_context: None,
            convert_to_llm: None,
            observe: None,
            prompt_hooks: None,
        }
    }
}

impl std::fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
        f.debug_struct("AgentConfig")
            .field("model", &self.provider.model().id)
            .field("tools", &tools)
            .field("max_turns", &self.max_turns)
            .field("max_failed_turns", &self.max_failed_turns)
            .finish_non_exhaustive()
    }
}
