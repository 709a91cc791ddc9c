//! What the loop hands the provider: the model's view of the history
//! ([`llm_view`]), and the assistant message that stands for a call that failed
//! before the provider could answer.

use std::borrow::Cow;

use super::config::AgentConfig;
use super::invariants::{check_history, repair_history};
use crate::cancel::CancelToken;
use crate::event::EventSink;
use crate::message::{now_ms, AssistantMessage, Message, StopReason};

/// The history as the model sees it: `transform_context`, then `convert_to_llm`
/// (default: drop custom messages), then — only if the result breaks the pairing
/// rule (a history loaded from elsewhere, a careless transform) — `repair_history`,
/// because a provider would reject it outright. Borrowed when nothing changes.
pub(crate) fn llm_view<'h>(
    config: &AgentConfig,
    history: &'h [Message],
    cancel: &CancelToken,
    events: &EventSink<'_>,
) -> Cow<'h, [Message]> {
    let has_custom = history.iter().any(|m| matches!(m, Message::Custom(_)));
    let view: Cow<'h, [Message]> = match &config.transform_context {
        Some(transform) => Cow::Owned(transform(history.to_vec(), cancel, events)),
        None => Cow::Borrowed(history),
    };
    let view = match &config.convert_to_llm {
        Some(convert) => Cow::Owned(convert(&view)),
        None if has_custom || config.transform_context.is_some() => Cow::Owned(
            view.iter()
                .filter(|m| !matches!(m, Message::Custom(_)))
                .cloned()
                .collect(),
        ),
        None => view,
    };
    match check_history(&view) {
        Ok(()) => view,
        Err(_) => Cow::Owned(repair_history(&view)),
    }
}

/// An assistant message standing for a model call that failed outside the provider.
pub(crate) fn failed_message(config: &AgentConfig, why: String) -> AssistantMessage {
    let model = config.provider.model();
    AssistantMessage {
        api: model.api.clone().into(),
        provider: model.provider.clone().into(),
        model: model.id.clone().into(),
        stop_reason: StopReason::Error,
        error_message: Some(why),
        timestamp: now_ms(),
        ..AssistantMessage::default()
    }
}

/// The error text of a failed message (never empty).
pub(crate) fn error_text(message: &AssistantMessage) -> String {
    match message.error_message.as_deref() {
        Some(text) if !text.is_empty() => text.to_string(),
        _ => "the model call failed without an error message".to_string(),
    }
}
