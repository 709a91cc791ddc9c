//! Encoders: one [`Reply`] as the server-sent events each wire API streams.
//!
//! The shapes follow recorded provider streams (see `shared/conformance/providers`):
//! text arrives in small pieces, tool-call arguments as JSON fragments (Gemini sends
//! them whole, as it does), usage at the end. Each returned item is one complete SSE
//! event, so a server can send them as separate chunks and cut after any of them.

use super::scenario::Reply;
use focus_core::json::Value;
use focus_core::{json_array, json_object};

/// The four wire APIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `POST /v1/messages`.
    AnthropicMessages,
    /// `POST /v1/chat/completions`.
    OpenAiCompletions,
    /// `POST /v1/responses`.
    OpenAiResponses,
    /// `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
    GoogleGenerativeAi,
}

impl Api {
    /// The API's name as focus spells it (`anthropic-messages`…).
    pub fn name(self) -> &'static str {
        match self {
            Api::AnthropicMessages => "anthropic-messages",
            Api::OpenAiCompletions => "openai-completions",
            Api::OpenAiResponses => "openai-responses",
            Api::GoogleGenerativeAi => "google-generative-ai",
        }
    }

    /// Parses [`Api::name`].
    pub fn parse(name: &str) -> Option<Api> {
        [
            Api::AnthropicMessages,
            Api::OpenAiCompletions,
            Api::OpenAiResponses,
            Api::GoogleGenerativeAi,
        ]
        .into_iter()
        .find(|api| api.name() == name)
    }

    /// Which API a request path belongs to (`/v1/messages` → Anthropic…).
    pub fn from_path(path: &str) -> Option<Api> {
        let path = path.split('?').next().unwrap_or(path);
        if path.ends_with("/messages") {
            Some(Api::AnthropicMessages)
        } else if path.ends_with("/chat/completions") {
            Some(Api::OpenAiCompletions)
        } else if path.ends_with("/responses") {
            Some(Api::OpenAiResponses)
        } else if path.contains(":streamGenerateContent") {
            Some(Api::GoogleGenerativeAi)
        } else {
            None
        }
    }
}

/// Encodes `reply` as `api`'s SSE events. `turn` makes ids unique per request.
pub fn encode_reply(api: Api, reply: &Reply, model: &str, turn: usize) -> Vec<String> {
    match api {
        Api::AnthropicMessages => anthropic(reply, model, turn),
        Api::OpenAiCompletions => openai_completions(reply, model, turn),
        Api::OpenAiResponses => openai_responses(reply, model, turn),
        Api::GoogleGenerativeAi => google(reply, model, turn),
    }
}

/// Splits text into pieces of a few words, keeping the whitespace, so deltas look
/// like a model's.
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for (i, word) in text.split_inclusive(' ').enumerate() {
        current.push_str(word);
        if i % 3 == 2 {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() || out.is_empty() {
        out.push(current);
    }
    out
}

/// Splits a JSON text into three fragments at character boundaries.
fn json_fragments(json: &str) -> Vec<String> {
    let chars: Vec<char> = json.chars().collect();
    let third = chars.len().div_ceil(3).max(1);
    chars.chunks(third).map(|c| c.iter().collect()).collect()
}

fn sse(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {}\n\n", data.to_json_string()),
        None => format!("data: {}\n\n", data.to_json_string()),
    }
}

fn anthropic(reply: &Reply, model: &str, turn: usize) -> Vec<String> {
    let mut events = vec![sse(
        Some("message_start"),
        &json_object! {
            "type" => "message_start",
            "message" => json_object! {
                "id" => format!("msg_mock_{turn}"), "type" => "message", "role" => "assistant",
                "model" => model, "content" => json_array![], "stop_reason" => Value::Null,
                "stop_sequence" => Value::Null,
                "usage" => json_object! {
                    "input_tokens" => reply.input_tokens, "output_tokens" => 1,
                    "cache_creation_input_tokens" => 0, "cache_read_input_tokens" => 0,
                },
            },
        },
    )];
    let mut index = 0;
    let block_delta = |index: usize, delta: Value| {
        sse(
            Some("content_block_delta"),
            &json_object! { "type" => "content_block_delta", "index" => index, "delta" => delta },
        )
    };
    let block_start = |index: usize, block: Value| {
        sse(
            Some("content_block_start"),
            &json_object! { "type" => "content_block_start", "index" => index, "content_block" => block },
        )
    };
    let block_stop = |index: usize| {
        sse(
            Some("content_block_stop"),
            &json_object! { "type" => "content_block_stop", "index" => index },
        )
    };
    if let Some(thinking) = &reply.thinking {
        events.push(block_start(
            index,
            json_object! { "type" => "thinking", "thinking" => "", "signature" => "" },
        ));
        for piece in pieces(thinking) {
            events.push(block_delta(
                index,
                json_object! { "type" => "thinking_delta", "thinking" => piece },
            ));
        }
        events.push(block_delta(
            index,
            json_object! { "type" => "signature_delta", "signature" => format!("sig_mock_{turn}") },
        ));
        events.push(block_stop(index));
        index += 1;
    }
    events.push(sse(Some("ping"), &json_object! { "type" => "ping" }));
    if let Some(text) = &reply.text {
        events.push(block_start(
            index,
            json_object! { "type" => "text", "text" => "" },
        ));
        for piece in pieces(text) {
            events.push(block_delta(
                index,
                json_object! { "type" => "text_delta", "text" => piece },
            ));
        }
        events.push(block_stop(index));
        index += 1;
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        events.push(block_start(
            index,
            json_object! { "type" => "tool_use", "id" => format!("toolu_mock_{turn}_{i}"), "name" => call.name.as_str(), "input" => json_object! {} },
        ));
        for fragment in json_fragments(&call.arguments.to_json_string()) {
            events.push(block_delta(
                index,
                json_object! { "type" => "input_json_delta", "partial_json" => fragment },
            ));
        }
        events.push(block_stop(index));
        index += 1;
    }
    let stop_reason = if reply.truncated {
        "max_tokens"
    } else if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    events.push(sse(
        Some("message_delta"),
        &json_object! {
            "type" => "message_delta",
            "delta" => json_object! { "stop_reason" => stop_reason, "stop_sequence" => Value::Null },
            "usage" => json_object! { "output_tokens" => reply.output_tokens },
        },
    ));
    events.push(sse(
        Some("message_stop"),
        &json_object! { "type" => "message_stop" },
    ));
    events
}

fn openai_completions(reply: &Reply, model: &str, turn: usize) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        sse(
            None,
            &json_object! {
                "id" => format!("chatcmpl-mock-{turn}"), "object" => "chat.completion.chunk", "created" => 1_700_000_000,
                "model" => model,
                "choices" => json_array![json_object! { "index" => 0, "delta" => delta, "logprobs" => Value::Null, "finish_reason" => finish }],
            },
        )
    };
    let mut events = vec![chunk(
        json_object! { "role" => "assistant", "content" => "" },
        Value::Null,
    )];
    if let Some(thinking) = &reply.thinking {
        for piece in pieces(thinking) {
            events.push(chunk(
                json_object! { "reasoning_content" => piece },
                Value::Null,
            ));
        }
    }
    if let Some(text) = &reply.text {
        for piece in pieces(text) {
            events.push(chunk(json_object! { "content" => piece }, Value::Null));
        }
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let head = json_object! {
            "index" => i, "id" => format!("call_mock_{turn}_{i}"), "type" => "function",
            "function" => json_object! { "name" => call.name.as_str(), "arguments" => "" },
        };
        events.push(chunk(
            json_object! { "tool_calls" => json_array![head] },
            Value::Null,
        ));
        for fragment in json_fragments(&call.arguments.to_json_string()) {
            let part = json_object! { "index" => i, "function" => json_object! { "arguments" => fragment } };
            events.push(chunk(
                json_object! { "tool_calls" => json_array![part] },
                Value::Null,
            ));
        }
    }
    let finish = if reply.truncated {
        "length"
    } else if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    events.push(chunk(json_object! {}, finish.into()));
    events.push(sse(
        None,
        &json_object! {
            "id" => format!("chatcmpl-mock-{turn}"), "object" => "chat.completion.chunk", "created" => 1_700_000_000,
            "model" => model, "choices" => json_array![],
            "usage" => json_object! {
                "prompt_tokens" => reply.input_tokens, "completion_tokens" => reply.output_tokens,
                "total_tokens" => reply.input_tokens + reply.output_tokens,
            },
        },
    ));
    events.push("data: [DONE]\n\n".to_string());
    events
}

fn openai_responses(reply: &Reply, model: &str, turn: usize) -> Vec<String> {
    let response_id = format!("resp_mock_{turn}");
    let mut seq = 0usize;
    let mut events = Vec::new();
    let mut push = |events: &mut Vec<String>, kind: &str, mut data: Value| {
        if let Some(o) = data.as_object_mut() {
            o.insert("type", kind);
            o.insert("sequence_number", seq);
        }
        seq += 1;
        events.push(sse(Some(kind), &data));
    };
    let response = |status: &str, output: Vec<Value>, usage: Value| {
        json_object! {
            "id" => response_id.as_str(), "object" => "response", "created_at" => 1_700_000_000, "status" => status,
            "model" => model, "output" => output, "usage" => usage,
            "incomplete_details" => if reply.truncated && status != "in_progress" {
                json_object! { "reason" => "max_output_tokens" }
            } else {
                Value::Null
            },
        }
    };
    push(
        &mut events,
        "response.created",
        json_object! { "response" => response("in_progress", vec![], Value::Null) },
    );
    let mut output = Vec::new();
    if let Some(thinking) = &reply.thinking {
        let item_id = format!("rs_mock_{turn}");
        let idx = output.len();
        push(
            &mut events,
            "response.output_item.added",
            json_object! {
                "output_index" => idx, "item" => json_object! { "id" => item_id.as_str(), "type" => "reasoning", "summary" => json_array![] },
            },
        );
        push(
            &mut events,
            "response.reasoning_summary_part.added",
            json_object! {
                "item_id" => item_id.as_str(), "output_index" => idx, "summary_index" => 0,
                "part" => json_object! { "type" => "summary_text", "text" => "" },
            },
        );
        for piece in pieces(thinking) {
            push(
                &mut events,
                "response.reasoning_summary_text.delta",
                json_object! {
                    "item_id" => item_id.as_str(), "output_index" => idx, "summary_index" => 0, "delta" => piece,
                },
            );
        }
        push(
            &mut events,
            "response.reasoning_summary_text.done",
            json_object! {
                "item_id" => item_id.as_str(), "output_index" => idx, "summary_index" => 0, "text" => thinking.as_str(),
            },
        );
        let item = json_object! {
            "id" => item_id.as_str(), "type" => "reasoning",
            "summary" => json_array![json_object! { "type" => "summary_text", "text" => thinking.as_str() }],
        };
        push(
            &mut events,
            "response.output_item.done",
            json_object! { "output_index" => idx, "item" => item.clone() },
        );
        output.push(item);
    }
    if let Some(text) = &reply.text {
        let item_id = format!("msg_mock_{turn}");
        let idx = output.len();
        push(
            &mut events,
            "response.output_item.added",
            json_object! {
                "output_index" => idx,
                "item" => json_object! { "id" => item_id.as_str(), "type" => "message", "status" => "in_progress", "role" => "assistant", "content" => json_array![] },
            },
        );
        push(
            &mut events,
            "response.content_part.added",
            json_object! {
                "item_id" => item_id.as_str(), "output_index" => idx, "content_index" => 0,
                "part" => json_object! { "type" => "output_text", "text" => "", "annotations" => json_array![] },
            },
        );
        for piece in pieces(text) {
            push(
                &mut events,
                "response.output_text.delta",
                json_object! {
                    "item_id" => item_id.as_str(), "output_index" => idx, "content_index" => 0, "delta" => piece,
                },
            );
        }
        push(
            &mut events,
            "response.output_text.done",
            json_object! {
                "item_id" => item_id.as_str(), "output_index" => idx, "content_index" => 0, "text" => text.as_str(),
            },
        );
        let part = json_object! { "type" => "output_text", "text" => text.as_str(), "annotations" => json_array![] };
        push(
            &mut events,
            "response.content_part.done",
            json_object! {
                "item_id" => item_id.as_str(), "output_index" => idx, "content_index" => 0, "part" => part.clone(),
            },
        );
        let item = json_object! {
            "id" => item_id.as_str(), "type" => "message", "status" => "completed", "role" => "assistant",
            "content" => json_array![part],
        };
        push(
            &mut events,
            "response.output_item.done",
            json_object! { "output_index" => idx, "item" => item.clone() },
        );
        output.push(item);
    }
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let item_id = format!("fc_mock_{turn}_{i}");
        let call_id = format!("call_mock_{turn}_{i}");
        let idx = output.len();
        let args = call.arguments.to_json_string();
        let item = |status: &str, arguments: &str| {
            json_object! {
                "id" => item_id.as_str(), "type" => "function_call", "status" => status,
                "arguments" => arguments, "call_id" => call_id.as_str(), "name" => call.name.as_str(),
            }
        };
        push(
            &mut events,
            "response.output_item.added",
            json_object! { "output_index" => idx, "item" => item("in_progress", "") },
        );
        for fragment in json_fragments(&args) {
            push(
                &mut events,
                "response.function_call_arguments.delta",
                json_object! {
                    "item_id" => item_id.as_str(), "output_index" => idx, "delta" => fragment,
                },
            );
        }
        push(
            &mut events,
            "response.function_call_arguments.done",
            json_object! {
                "item_id" => item_id.as_str(), "output_index" => idx, "arguments" => args.as_str(),
            },
        );
        let done = item("completed", &args);
        push(
            &mut events,
            "response.output_item.done",
            json_object! { "output_index" => idx, "item" => done.clone() },
        );
        output.push(done);
    }
    let usage = json_object! {
        "input_tokens" => reply.input_tokens, "output_tokens" => reply.output_tokens,
        "total_tokens" => reply.input_tokens + reply.output_tokens,
        "input_tokens_details" => json_object! { "cached_tokens" => 0 },
        "output_tokens_details" => json_object! { "reasoning_tokens" => 0 },
    };
    let (kind, status) = if reply.truncated {
        ("response.incomplete", "incomplete")
    } else {
        ("response.completed", "completed")
    };
    push(
        &mut events,
        kind,
        json_object! { "response" => response(status, output, usage) },
    );
    events
}

fn google(reply: &Reply, model: &str, turn: usize) -> Vec<String> {
    let chunk = |parts: Vec<Value>, finish: Option<&str>, usage: bool| {
        let mut candidate = json_object! { "content" => json_object! { "parts" => parts, "role" => "model" }, "index" => 0 };
        if let (Some(reason), Some(o)) = (finish, candidate.as_object_mut()) {
            o.insert("finishReason", reason);
        }
        let mut data = json_object! {
            "candidates" => json_array![candidate], "modelVersion" => model, "responseId" => format!("mock-{turn}"),
        };
        if let (true, Some(o)) = (usage, data.as_object_mut()) {
            o.insert(
                "usageMetadata",
                json_object! {
                    "promptTokenCount" => reply.input_tokens, "candidatesTokenCount" => reply.output_tokens,
                    "totalTokenCount" => reply.input_tokens + reply.output_tokens,
                },
            );
        }
        sse(None, &data)
    };
    let mut events = Vec::new();
    if let Some(thinking) = &reply.thinking {
        for piece in pieces(thinking) {
            events.push(chunk(
                vec![json_object! { "text" => piece, "thought" => true }],
                None,
                false,
            ));
        }
    }
    if let Some(text) = &reply.text {
        for piece in pieces(text) {
            events.push(chunk(vec![json_object! { "text" => piece }], None, false));
        }
    }
    let calls: Vec<Value> = reply
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let mut part = json_object! {
                "functionCall" => json_object! { "name" => call.name.as_str(), "args" => call.arguments.clone() },
            };
            if let (0, Some(o)) = (i, part.as_object_mut()) {
                o.insert("thoughtSignature", format!("c2lnX21vY2tf{turn}"));
            }
            part
        })
        .collect();
    let finish = if reply.truncated {
        "MAX_TOKENS"
    } else {
        "STOP"
    };
    events.push(chunk(calls, Some(finish), true));
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock_llm::scenario::ToolCallSpec;

    fn sample() -> Reply {
        Reply {
            thinking: Some("Let me think about it".into()),
            text: Some("I will list the files now.".into()),
            tool_calls: vec![ToolCallSpec {
                name: "ls".into(),
                arguments: json_object! { "path" => "src/ma" },
            }],
            input_tokens: 10,
            output_tokens: 5,
            truncated: false,
            chunk_delay_ms: 0,
        }
    }

    #[test]
    fn every_event_is_one_sse_frame_with_valid_json() {
        for api in [
            Api::AnthropicMessages,
            Api::OpenAiCompletions,
            Api::OpenAiResponses,
            Api::GoogleGenerativeAi,
        ] {
            let events = encode_reply(api, &sample(), "m", 3);
            assert!(events.len() >= 4, "{api:?}");
            for event in &events {
                assert!(event.ends_with("\n\n"), "{api:?}: {event}");
                let data = event
                    .lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .unwrap();
                if data != "[DONE]" {
                    focus_core::json::parse_str(data)
                        .unwrap_or_else(|e| panic!("{api:?}: {e}: {data}"));
                }
            }
        }
    }

    #[test]
    fn text_pieces_and_json_fragments_reassemble() {
        let text = "one two three four five six seven";
        assert_eq!(pieces(text).concat(), text);
        assert!(pieces(text).len() > 1);
        let json = r#"{"path":"src/main.rs"}"#;
        assert_eq!(json_fragments(json).concat(), json);
        assert_eq!(json_fragments(json).len(), 3);
    }

    #[test]
    fn paths_map_to_apis() {
        assert_eq!(Api::from_path("/v1/messages"), Some(Api::AnthropicMessages));
        assert_eq!(
            Api::from_path("/v1/chat/completions"),
            Some(Api::OpenAiCompletions)
        );
        assert_eq!(Api::from_path("/v1/responses"), Some(Api::OpenAiResponses));
        assert_eq!(
            Api::from_path("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"),
            Some(Api::GoogleGenerativeAi)
        );
        assert_eq!(Api::parse("openai-responses"), Some(Api::OpenAiResponses));
    }
}
