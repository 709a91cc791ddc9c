//! What RPC mode says about the conversation: `get_state` and
//! `get_session_stats` (docs/rpc.md).

use super::server::Server;
use super::wire::{model_json, queue_mode};
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::Message;

impl Server<'_> {
    /// pi's `get_state`.
    pub(super) fn state(&self) -> Value {
        let model = self.engine.conversation.config.provider.model();
        let store = self.engine.conversation.session.lock();
        json_object! {
            "model" => model_json(model),
            "thinkingLevel" => self.engine.conversation.config.options.thinking.as_str(),
            "isStreaming" => self.engine.conversation.is_running(),
            "isCompacting" => self.engine.conversation.is_compacting(),
            "steeringMode" => queue_mode(self.engine.conversation.config.steering_mode),
            "followUpMode" => queue_mode(self.engine.conversation.config.follow_up_mode),
            "autoCompactionEnabled" => self.engine.conversation.compaction.enabled,
            "sessionFile" => store.path().map(|p| p.display().to_string()),
            "sessionId" => Some(store.id()).filter(|s| !s.is_empty()),
            "sessionName" => store.name(),
            "messageCount" => self.engine.conversation.history.len(),
        }
    }

    /// pi's `get_session_stats`: message counts, tokens and cost of the context.
    pub(super) fn stats(&self) -> Value {
        let (mut users, mut assistants, mut calls, mut results) = (0u64, 0u64, 0u64, 0u64);
        let (mut input, mut output, mut cache_read, mut cache_write) = (0u64, 0u64, 0u64, 0u64);
        let mut cost = 0.0;
        for message in &self.engine.conversation.history {
            match message {
                Message::User(_) => users += 1,
                Message::Assistant(a) => {
                    assistants += 1;
                    calls += a.tool_calls().count() as u64;
                    // Token counts come from servers and session files: saturate.
                    input = input.saturating_add(a.usage.input);
                    output = output.saturating_add(a.usage.output);
                    cache_read = cache_read.saturating_add(a.usage.cache_read);
                    cache_write = cache_write.saturating_add(a.usage.cache_write);
                    cost += a.usage.cost.total;
                }
                Message::ToolResult(_) => results += 1,
                Message::Custom(_) => {}
            }
        }
        let store = self.engine.conversation.session.lock();
        json_object! {
            "sessionFile" => store.path().map(|p| p.display().to_string()),
            "sessionId" => store.id(),
            "userMessages" => users,
            "assistantMessages" => assistants,
            "toolCalls" => calls,
            "toolResults" => results,
            "totalMessages" => self.engine.conversation.history.len(),
            "tokens" => json_object! {
                "input" => input, "output" => output, "cacheRead" => cache_read,
                "cacheWrite" => cache_write,
                "total" => [input, output, cache_read, cache_write]
                    .into_iter()
                    .fold(0u64, u64::saturating_add),
            },
            "cost" => cost,
        }
    }
}
