//! [`ConversationEvent`]: the one type a front end renders. A run's own events
//! ([`AgentEvent`], in the loop's order) and what the conversation does around
//! them (compactions between runs, the retry after an overflow, warnings, and
//! the end of it all), in the order they happened. [`Events`] is one batch of
//! them, as [`Conversation::poll`](super::Conversation::poll) hands it out.

use focus_core::agent::Batched;
use focus_core::event::{AgentEvent, Compacted, EndReason};
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::sync::lock;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Everything a conversation reports, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum ConversationEvent {
    /// An event of the running loop (docs/loop.md), a compaction inside the
    /// run included.
    Agent(AgentEvent),
    /// A compaction between runs starts: after a run, or asked for.
    CompactionStart(CompactionReason),
    /// That compaction ended (how: [`CompactionEnded`]).
    CompactionEnd(CompactionReason, CompactionEnded),
    /// The context overflowed and was compacted: the run goes on once more (a
    /// new `AgentStart` follows).
    RetryAfterOverflow,
    /// The context overflowed again after the retry, or could not be compacted:
    /// the sentence to show. `RunEnded` follows with it as an error.
    RecoveryFailed(String),
    /// Something went wrong that the user must hear of, not an error of the run
    /// (a session write failed, a hook failed, an MCP server died). Its text may
    /// quote files or servers: sanitize it before it reaches a terminal.
    Warning(String),
    /// The conversation is idle again: the run, its retry and the compaction
    /// after it are over. The reason is the run's, or `Aborted` when the user
    /// stopped the compaction, or the error when recovery failed.
    RunEnded(EndReason),
}

/// Why a compaction between runs happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactionReason {
    /// The context passed the window minus the reserve.
    Threshold,
    /// The provider said the prompt is too long; the run is retried after it.
    Overflow,
    /// The user asked (`/compact`, RPC `compact`).
    Manual,
}

impl CompactionReason {
    /// pi's word for it (`threshold`, `overflow`; `manual` is focus's).
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionReason::Threshold => "threshold",
            CompactionReason::Overflow => "overflow",
            CompactionReason::Manual => "manual",
        }
    }
}

/// How a compaction ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactionEnded {
    /// What it did, when it succeeded.
    pub result: Option<Compacted>,
    /// Whether the user's abort stopped it.
    pub aborted: bool,
    /// Whether the run is retried on the compacted history.
    pub will_retry: bool,
    /// Why it failed, when it did (the history is then kept in full).
    pub error_message: Option<String>,
}

impl ConversationEvent {
    /// A compaction's start or end as the loop reports one inside a run
    /// (`CompactionStart`/`CompactionEnd`), so both kinds read alike; `None`
    /// for the other events.
    pub fn compaction(&self) -> Option<AgentEvent> {
        match self {
            ConversationEvent::CompactionStart(reason) => Some(AgentEvent::CompactionStart {
                reason: reason.as_str().into(),
            }),
            ConversationEvent::CompactionEnd(_, ended) => Some(AgentEvent::CompactionEnd {
                result: ended.result.clone(),
                aborted: ended.aborted,
                will_retry: ended.will_retry,
                error_message: ended.error_message.clone(),
            }),
            _ => None,
        }
    }

    /// The JSON line of an event of the conversation's own, in pi's shape
    /// (`auto_compaction_start`, `auto_compaction_end`, `auto_retry_end` with
    /// `success: false`) or focus's (`{"type":"warning","message":…}`); `None`
    /// for the loop's events (written with `EventLines`, which folds the
    /// streamed updates) and for what pi's lines do not say.
    pub fn own_json(&self) -> Option<Value> {
        use focus_core::json::ToJson;
        match self {
            ConversationEvent::CompactionStart(_) | ConversationEvent::CompactionEnd(..) => {
                self.compaction().map(|event| event.to_json())
            }
            ConversationEvent::RecoveryFailed(note) => Some(json_object! {
                "type" => "auto_retry_end", "success" => false, "attempt" => 1,
                "finalError" => note.as_str(),
            }),
            ConversationEvent::Warning(message) => {
                Some(json_object! {"type" => "warning", "message" => message.as_str()})
            }
            _ => None,
        }
    }
}

impl Batched for ConversationEvent {
    fn is_delta(&self) -> bool {
        matches!(self, ConversationEvent::Agent(event) if event.is_delta())
    }
}

/// One batch of events, in order. Dropping it gives its storage back to the
/// conversation, which hands it to the running loop's queue at the next look:
/// a stream of any length passes through a few buffers, and no event is copied.
pub struct Events {
    events: VecDeque<ConversationEvent>,
    home: Arc<Mutex<VecDeque<ConversationEvent>>>,
}

impl Events {
    pub(super) fn new(
        events: VecDeque<ConversationEvent>,
        home: Arc<Mutex<VecDeque<ConversationEvent>>>,
    ) -> Events {
        Events { events, home }
    }

    /// The events, in order.
    pub fn iter(&self) -> std::collections::vec_deque::Iter<'_, ConversationEvent> {
        self.events.iter()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

impl<'a> IntoIterator for &'a Events {
    type Item = &'a ConversationEvent;
    type IntoIter = std::collections::vec_deque::Iter<'a, ConversationEvent>;
    fn into_iter(self) -> Self::IntoIter {
        self.events.iter()
    }
}

impl Drop for Events {
    /// The emptied storage goes home, unless home already keeps a roomier one.
    fn drop(&mut self) {
        let mut spent = std::mem::take(&mut self.events);
        spent.clear();
        let mut home = lock(&self.home);
        if spent.capacity() > home.capacity() {
            *home = spent;
        }
    }
}
