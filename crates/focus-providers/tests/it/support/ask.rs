//! One question to a provider: a single user message, no tools, default
//! options; what most provider tests send.

use focus_core::cancel::CancelToken;
use focus_core::message::{AssistantMessage, Message, UserMessage};
use focus_core::provider::{ModelRequest, Provider, RequestOptions, StreamSink};

/// `provider`'s answer to the user message `prompt` under the system prompt
/// `system`, each streamed event handed to `sink`.
pub fn ask(
    provider: &dyn Provider,
    system: &str,
    prompt: &str,
    cancel: &CancelToken,
    sink: &mut StreamSink<'_>,
) -> AssistantMessage {
    let messages = vec![Message::User(UserMessage::text(prompt, 0))];
    let options = RequestOptions::default();
    let request = ModelRequest {
        system_prompt: system,
        messages: &messages,
        tools: &[],
        options: &options,
        cancel,
    };
    provider.stream(&request, sink)
}
