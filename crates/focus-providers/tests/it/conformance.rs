//! Every recorded provider stream in `shared/conformance/providers/` decoded and
//! checked against its `.expect.json`: text, thinking, tool calls (ids, names,
//! parsed arguments, signatures), stop reason, usage and errors; whole, byte by
//! byte, and split at random points; with the event protocol checked on the way.

use crate::support::decode::{check_protocol, decode_in_pieces, Decoded};
use crate::support::transports::both;
use focus_core::cancel::CancelToken;
use focus_core::json::{parse, Value};
use focus_core::message::{AssistantMessage, Content, StopReason};
use focus_testkit::rng::Rng;
use focus_testkit::server::{ScriptedResponse, TestServer};
use focus_testkit::streams::{recorded_streams, RecordedStream};
use focus_transport::HttpRequest;
use std::io::Read;
use std::path::Path;

/// Decodes `body` split at `cuts`, checking the event protocol as it goes.
fn decode(api: &str, body: &[u8], cuts: &[usize]) -> AssistantMessage {
    let Decoded {
        mut message,
        events,
        last_partial_len,
    } = decode_in_pieces(api, body, cuts);
    // Gemini sends no call ids; minted ones may embed the clock. Compare by shape.
    for c in &mut message.content {
        if let Content::ToolCall(call) = c {
            if call.id.starts_with("gemini_") {
                call.id = format!("gemini_{}", call.name).into();
            }
        }
    }
    check_protocol(api, &events, &message);
    assert_eq!(last_partial_len, message.content.len());
    message
}

fn thinking_text(m: &AssistantMessage) -> String {
    m.content
        .iter()
        .filter_map(|c| match c {
            Content::Thinking {
                thinking,
                redacted: false,
                ..
            } => Some(thinking.as_str()),
            _ => None,
        })
        .collect()
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// What the expect file says, in focus's terms.
struct Expected {
    text: String,
    thinking: Option<String>,
    stop: StopReason,
    usage: [u64; 4],
    notes: Vec<String>,
}

fn expected(folder: &str, e: &Value) -> Expected {
    let u = &e["usage"];
    let mut notes = Vec::new();
    let has_error = !e["error"].is_null();
    let has_calls = e["tool_calls"].as_array().is_some_and(|a| !a.is_empty())
        || e["choices"][0]["tool_calls"]
            .as_array()
            .is_some_and(|a| !a.is_empty());
    let (text, thinking, stop, usage) = match folder {
        "anthropic" => {
            let stop = match e["stop_reason"].as_str().unwrap_or("") {
                "max_tokens" => StopReason::Length,
                "tool_use" => StopReason::ToolUse,
                _ => StopReason::Stop,
            };
            (
                e["text"].as_str().unwrap_or("").to_string(),
                Some(e["thinking"].as_str().unwrap_or("").to_string()),
                stop,
                [
                    num(&u["input_tokens"]),
                    num(&u["output_tokens"]),
                    num(&u["cache_read_input_tokens"]),
                    num(&u["cache_creation_input_tokens"]),
                ],
            )
        }
        "openai-chat" | "openai-compat" => {
            let choice = &e["choices"][0];
            if e["choices"].as_array().map_or(0, Vec::len) > 1 {
                notes.push(
                    "n>1 stream: focus reads choice 0 only; choices 1.. are not compared".into(),
                );
            }
            let mut text = choice["text"].as_str().unwrap_or("").to_string();
            if let Some(r) = choice["refusal"].as_str() {
                notes.push("refusal text is shown to the user as answer text".into());
                text.push_str(r);
            }
            let stop = match choice["finish_reason"].as_str() {
                _ if has_error => StopReason::Error,
                Some("length") => StopReason::Length,
                Some("tool_calls") => StopReason::ToolUse,
                None if has_calls => StopReason::ToolUse,
                _ => StopReason::Stop,
            };
            let cached = num(&u["cached_tokens"]);
            (
                text,
                Some(choice["reasoning"].as_str().unwrap_or("").to_string()),
                stop,
                [
                    num(&u["prompt_tokens"]) - cached,
                    num(&u["completion_tokens"]),
                    cached,
                    0,
                ],
            )
        }
        "openai-responses" => {
            let mut thinking = Vec::new();
            if let Some(items) = e["output_items"].as_array() {
                for item in items {
                    for key in ["summary", "reasoning_text"] {
                        if let Some(parts) = item[key].as_array() {
                            let parts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
                            if !parts.is_empty() {
                                thinking.push(parts.join("\n\n"));
                            }
                        }
                    }
                }
            }
            let stop = match e["status"].as_str() {
                Some("incomplete") => StopReason::Length,
                Some("completed") if has_calls => StopReason::ToolUse,
                Some("completed") => StopReason::Stop,
                _ => StopReason::Error,
            };
            let cached = num(&u["cached_tokens"]);
            (
                e["text"].as_str().unwrap_or("").to_string(),
                Some(thinking.concat()),
                stop,
                [
                    num(&u["input_tokens"]) - cached,
                    num(&u["output_tokens"]),
                    cached,
                    0,
                ],
            )
        }
        _ => {
            let stop = match e["finish_reason"].as_str() {
                _ if !e["prompt_block_reason"].is_null() => StopReason::Error,
                Some("STOP") if has_calls => StopReason::ToolUse,
                Some("STOP") => StopReason::Stop,
                Some("MAX_TOKENS") => StopReason::Length,
                _ => StopReason::Error,
            };
            let cached = num(&u["cachedContentTokenCount"]);
            (
                e["text"].as_str().unwrap_or("").to_string(),
                Some(e["thinking"].as_str().unwrap_or("").to_string()),
                stop,
                [
                    num(&u["promptTokenCount"]) - cached,
                    num(&u["candidatesTokenCount"]) + num(&u["thoughtsTokenCount"]),
                    cached,
                    0,
                ],
            )
        }
    };
    Expected {
        text,
        thinking,
        stop,
        usage,
        notes,
    }
}

fn expected_calls(e: &Value) -> Vec<Value> {
    match e["tool_calls"].as_array() {
        Some(a) => a.clone(),
        None => e["choices"][0]["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    }
}

/// Compares one decoded message with its expectations; returns notes to print.
fn check(name: &str, folder: &str, m: &AssistantMessage, e: &Value) -> Vec<String> {
    let want = expected(folder, e);
    let mut notes = want.notes;
    assert_eq!(m.text(), want.text, "{name}: text");
    if let Some(thinking) = want.thinking {
        assert_eq!(thinking_text(m), thinking, "{name}: thinking");
    }
    assert_eq!(
        m.stop_reason, want.stop,
        "{name}: stop reason ({:?})",
        m.error_message
    );
    if want.stop == StopReason::Error {
        let msg = m.error_message.as_deref().unwrap_or("");
        assert!(!msg.is_empty(), "{name}: error needs a message");
        if let Some(provider_msg) = e["error"]["message"]
            .as_str()
            .or(e["error"]["error"]["message"].as_str())
        {
            assert!(
                msg.contains(provider_msg),
                "{name}: error {msg:?} lacks {provider_msg:?}"
            );
        }
    }
    let u = &m.usage;
    assert_eq!(
        [u.input, u.output, u.cache_read, u.cache_write],
        want.usage,
        "{name}: usage"
    );
    let calls: Vec<_> = m.tool_calls().collect();
    let want_calls = expected_calls(e);
    assert_eq!(calls.len(), want_calls.len(), "{name}: tool call count");
    for (got, want) in calls.iter().zip(&want_calls) {
        assert_eq!(
            Some(got.name.as_str()),
            want["name"].as_str(),
            "{name}: call name"
        );
        let want_id = match folder {
            "openai-responses" => Some(format!(
                "{}|{}",
                want["call_id"].as_str().unwrap(),
                want["item_id"].as_str().unwrap()
            )),
            _ => want["id"].as_str().map(str::to_string),
        };
        if let Some(id) = want_id {
            assert_eq!(got.id, id, "{name}: call id");
        } else {
            assert!(!got.id.is_empty(), "{name}: a missing id is synthesized");
        }
        if want["arguments"].is_null() {
            notes.push(format!(
                "UNKNOWABLE: tool call {} arguments were cut off (not valid JSON); focus keeps the lenient partial parse {}",
                got.name,
                got.arguments.to_json_string()
            ));
            assert!(got.arguments.as_object().is_some());
        } else {
            assert_eq!(got.arguments, want["arguments"], "{name}: arguments");
        }
        if let Some(sig) = want["thought_signature"].as_str() {
            assert_eq!(
                got.thought_signature.as_deref(),
                Some(sig),
                "{name}: thoughtSignature"
            );
        }
    }
    if let Some(sigs) = e["text_part_thought_signatures"].as_array() {
        for sig in sigs.iter().filter_map(Value::as_str) {
            let kept = m.content.iter().any(|c| match c {
                Content::Text { signature, .. } | Content::Thinking { signature, .. } => {
                    signature.as_deref() == Some(sig)
                }
                _ => false,
            });
            assert!(kept, "{name}: text part thoughtSignature kept for replay");
        }
    }
    if folder == "openai-responses" {
        // Reasoning items and message ids are kept whole for the next request.
        for item in e["output_items"].as_array().into_iter().flatten() {
            let id = item["id"].as_str().unwrap_or("");
            let kept = m.content.iter().any(|c| match (item["type"].as_str(), c) {
                (
                    Some("reasoning"),
                    Content::Thinking {
                        signature: Some(s), ..
                    },
                ) => {
                    let v = focus_core::json::parse_str(s).unwrap();
                    v["id"].as_str() == Some(id)
                        && (item["has_encrypted_content"].as_bool() != Some(true)
                            || v["encrypted_content"].as_str().is_some())
                }
                (
                    Some("message"),
                    Content::Text {
                        signature: Some(s), ..
                    },
                ) => focus_providers::openai_responses::message_id(s).as_deref() == Some(id),
                (Some("reasoning" | "message"), _) => false,
                _ => true,
            });
            assert!(kept, "{name}: output item {id} kept for replay");
        }
    }
    if folder == "anthropic" {
        let blocks: Vec<&Value> = e["content_blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking")))
            .collect();
        let ours: Vec<&Content> = m
            .content
            .iter()
            .filter(|c| matches!(c, Content::Thinking { .. }))
            .collect();
        assert_eq!(blocks.len(), ours.len(), "{name}: thinking blocks");
        for (b, c) in blocks.iter().zip(ours) {
            let Content::Thinking {
                signature,
                redacted,
                ..
            } = c
            else {
                unreachable!()
            };
            let want = b["signature"].as_str().or(b["data"].as_str());
            assert_eq!(signature.as_deref(), want, "{name}: signature/data");
            assert_eq!(*redacted, b["type"].as_str() == Some("redacted_thinking"));
        }
        if e["message_stop_seen"].as_bool() == Some(false) {
            notes.push("message_stop never dispatched (no final blank line): treated as a normal end after message_delta".into());
        }
    }
    notes
}

/// A tiny deterministic generator for split points.
fn load(path: &Path) -> (Vec<u8>, Value) {
    let body = std::fs::read(path).unwrap();
    let expect = std::fs::read(path.with_extension("expect.json")).unwrap();
    (body, parse(&expect).unwrap())
}

#[test]
fn all_recorded_streams_reproduce_their_expectations() {
    let Some(streams) = recorded_streams() else {
        return;
    };
    assert_eq!(streams.len(), 54, "the README promises 54 streams");
    for RecordedStream { name, api, path } in &streams {
        let (body, expect) = load(path);
        let folder = name.split('/').next().unwrap();
        let whole = decode(api, &body, &[]);
        for note in check(name, folder, &whole, &expect) {
            println!("{name}: {note}");
        }
    }
}

#[test]
fn chunking_never_changes_the_result() {
    let Some(streams) = recorded_streams() else {
        return;
    };
    let mut rng = Rng::new(0x5eed);
    for RecordedStream { name, api, path } in &streams {
        let (body, expect) = load(path);
        let folder = name.split('/').next().unwrap();
        let reference = decode(api, &body, &[]);
        for round in 0..6 {
            let mut cuts: Vec<usize> = (0..1 + rng.below(40))
                .map(|_| rng.below(body.len()))
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            let split = decode(api, &body, &cuts);
            assert_eq!(
                split.content, reference.content,
                "{name}: round {round} cuts {cuts:?}"
            );
            assert_eq!(split.usage, reference.usage, "{name}");
            assert_eq!(split.stop_reason, reference.stop_reason, "{name}");
            check(name, folder, &split, &expect);
        }
        if body.len() < 40_000 {
            let every: Vec<usize> = (1..body.len()).collect();
            let bytewise = decode(api, &body, &every);
            assert_eq!(bytewise.content, reference.content, "{name}: byte by byte");
        }
    }
}

#[test]
fn recorded_streams_rebuild_identically_over_both_transports() {
    let Some(streams) = recorded_streams() else {
        return;
    };
    assert_eq!(streams.len(), 54, "the README promises 54 streams");
    let rows = both();
    let mut rng = Rng::new(0x7a5e_0034);
    for (i, RecordedStream { name, api, path }) in streams.iter().enumerate() {
        let (body, expect) = load(path);
        let folder = name.split('/').next().unwrap();
        let reference = decode(api, &body, &[]);
        let mut cuts: Vec<usize> = (0..1 + rng.below(60))
            .map(|_| rng.below(body.len()))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut pieces = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&body.len())) {
            pieces.push(&body[start..cut]);
            start = cut;
        }
        // One HTTP chunk per piece, or the pieces as separate writes under a
        // Content-Length or until the server closes: each framing in turn.
        let script = ScriptedResponse::sse(&pieces);
        let script = match i % 3 {
            0 => script,
            1 => ScriptedResponse {
                framing: focus_testkit::server::Framing::ContentLength,
                ..script
            },
            _ => script.close_delimited(),
        };
        let server = TestServer::repeating(script);
        for row in &rows {
            let what = format!("{name} over {} ({:?})", row.name, server_framing(i));
            let request = HttpRequest {
                method: "POST".into(),
                url: server.url_for("/stream"),
                body: b"{}".to_vec(),
                connect_timeout: Some(std::time::Duration::from_secs(5)),
                total_timeout: Some(std::time::Duration::from_secs(30)),
                ..HttpRequest::default()
            };
            let response = row
                .transport
                .send(&request, &CancelToken::new())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let mut reader = response.body;
            let mut received = Vec::new();
            let mut read_ends = Vec::new();
            let mut buf = vec![0u8; 1 + rng.below(16 * 1024)];
            loop {
                let n = reader
                    .read(&mut buf)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                if n == 0 {
                    break;
                }
                received.extend_from_slice(&buf[..n]);
                read_ends.push(received.len());
            }
            read_ends.pop();
            assert!(received == body, "{what}: the bytes differ");
            // Decoded in the pieces the reads returned, as a provider sees them.
            let rebuilt = decode(api, &received, &read_ends);
            assert_eq!(rebuilt.content, reference.content, "{what}");
            assert_eq!(rebuilt.usage, reference.usage, "{what}");
            assert_eq!(rebuilt.stop_reason, reference.stop_reason, "{what}");
            check(name, folder, &rebuilt, &expect);
        }
    }
}

/// The framing stream number `i` is served with.
fn server_framing(i: usize) -> &'static str {
    ["chunked", "content-length", "until close"][i % 3]
}
