//! Decoder behaviour the recordings do not show: in-band errors after content,
//! streams cut short, interleaved tool-call fragments, a repeated index with a new
//! id, failed responses, garbage data. Each stream is written out by hand here
//! because no real recording exists (see the conformance README's "Gaps").

use focus_core::message::{AssistantMessage, StopReason};
use focus_providers::builder::ignore_events;
use focus_providers::decode_body;

fn decode(api: &str, body: &str) -> AssistantMessage {
    decode_body(api, &[body.as_bytes()], &mut ignore_events).unwrap()
}

fn sse(events: &[(&str, &str)]) -> String {
    events
        .iter()
        .map(|(name, data)| {
            if name.is_empty() {
                format!("data: {data}\n\n")
            } else {
                format!("event: {name}\ndata: {data}\n\n")
            }
        })
        .collect()
}

#[test]
fn anthropic_error_after_content_keeps_the_content() {
    let m = decode(
        "anthropic-messages",
        &sse(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":3}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Part"}}"#,
            ),
            (
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ),
        ]),
    );
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.text(), "Part");
    assert_eq!(
        m.error_message.as_deref(),
        Some("overloaded_error: Overloaded")
    );
    assert_eq!(m.usage.input, 3);
}

#[test]
fn a_stream_cut_before_its_end_is_an_error_for_every_api() {
    let cases = [
        (
            "anthropic-messages",
            sse(&[(
                "message_start",
                r#"{"type":"message_start","message":{"id":"m","usage":{}}}"#,
            )]),
        ),
        (
            "openai-completions",
            sse(&[(
                "",
                r#"{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}"#,
            )]),
        ),
        (
            "openai-responses",
            sse(&[(
                "response.created",
                r#"{"type":"response.created","response":{"id":"r"}}"#,
            )]),
        ),
        (
            "google-generative-ai",
            sse(&[(
                "",
                r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}"#,
            )]),
        ),
    ];
    for (api, body) in cases {
        let m = decode(api, &body);
        assert_eq!(m.stop_reason, StopReason::Error, "{api}");
        assert!(m.error_message.unwrap().contains("ended before"), "{api}");
    }
}

#[test]
fn completions_tool_fragments_interleaved_by_index() {
    let chunk = |calls: &str| {
        format!(r#"{{"id":"c","choices":[{{"index":0,"delta":{{"tool_calls":{calls}}}}}]}}"#)
    };
    let body = sse(&[
        (
            "",
            &chunk(r#"[{"index":0,"id":"a","function":{"name":"read","arguments":""}}]"#),
        ),
        (
            "",
            &chunk(r#"[{"index":1,"id":"b","function":{"name":"bash","arguments":"{\"comm"}}]"#),
        ),
        (
            "",
            &chunk(r#"[{"index":0,"function":{"arguments":"{\"path\":"}}]"#),
        ),
        (
            "",
            &chunk(r#"[{"index":1,"function":{"arguments":"and\":\"ls\"}"}}]"#),
        ),
        (
            "",
            &chunk(r#"[{"index":0,"function":{"arguments":"\"x\"}"}}]"#),
        ),
        (
            "",
            r#"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ),
        ("", "[DONE]"),
    ]);
    let m = decode("openai-completions", &body);
    let calls: Vec<_> = m.tool_calls().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].arguments.to_json_string(), r#"{"path":"x"}"#);
    assert_eq!(calls[1].arguments.to_json_string(), r#"{"command":"ls"}"#);
    assert_eq!(m.stop_reason, StopReason::ToolUse);
}

#[test]
fn completions_same_index_with_a_new_id_starts_a_new_call() {
    let body = sse(&[
        (
            "",
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{}"}}]}}]}"#,
        ),
        (
            "",
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"y","arguments":"{}"}}]}}]}"#,
        ),
        (
            "",
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ),
    ]);
    let m = decode("openai-completions", &body);
    let names: Vec<&str> = m.tool_calls().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["x", "y"]);
}

#[test]
fn completions_content_filter_is_an_error() {
    let body = sse(&[
        (
            "",
            r#"{"choices":[{"index":0,"delta":{"content":"Hm"},"finish_reason":"content_filter"}]}"#,
        ),
        ("", "[DONE]"),
    ]);
    let m = decode("openai-completions", &body);
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.text(), "Hm");
}

#[test]
fn responses_failed_reports_the_providers_message() {
    let body = sse(&[
        (
            "response.created",
            r#"{"type":"response.created","response":{"id":"r"}}"#,
        ),
        (
            "response.failed",
            r#"{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"The model crashed"}}}"#,
        ),
    ]);
    let m = decode("openai-responses", &body);
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.error_message.as_deref(), Some("The model crashed"));
    let incomplete = sse(&[(
        "response.incomplete",
        r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#,
    )]);
    assert_eq!(
        decode("openai-responses", &incomplete).stop_reason,
        StopReason::Length
    );
}

#[test]
fn gemini_error_chunk_and_max_tokens() {
    let m = decode(
        "google-generative-ai",
        &sse(&[(
            "",
            r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#,
        )]),
    );
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.error_message.as_deref(), Some("The model is overloaded."));
    let m = decode(
        "google-generative-ai",
        &sse(&[(
            "",
            r#"{"candidates":[{"content":{"parts":[{"text":"Lo"}]},"finishReason":"MAX_TOKENS"}]}"#,
        )]),
    );
    assert_eq!(
        (m.stop_reason, m.text().as_str()),
        (StopReason::Length, "Lo")
    );
}

#[test]
fn data_that_is_not_json_is_skipped_and_counted_not_the_whole_answer_lost() {
    // Alone, a stream of garbage is a failure that says what it saw.
    for api in focus_providers::APIS {
        let m = decode(api, "data: {not json\n\n");
        assert_eq!(m.stop_reason, StopReason::Error, "{api}");
        let msg = m.error_message.unwrap();
        assert!(
            msg.contains("not JSON") && msg.contains("{not json") && msg.contains("skipped 1"),
            "{api}: {msg}"
        );
    }
    // Amid a good answer, the answer survives and the skip is counted.
    let body = sse(&[
        ("", r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#),
        ("", "{not json"),
        ("", "<html>proxy hiccup</html>"),
        (
            "",
            r#"{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
        ),
        ("", "[DONE]"),
    ]);
    let m = decode("openai-completions", &body);
    assert_eq!(
        (m.stop_reason, m.text().as_str()),
        (StopReason::Stop, "Hello")
    );
    let note = m.error_message.unwrap();
    assert!(note.contains("skipped 2"), "{note}");
}

#[test]
fn completions_tool_names_split_late_or_repeated_are_assembled_once() {
    let chunk =
        |call: &str| format!(r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{call}]}}}}]}}"#);
    let cases = [
        // split across chunks
        (
            r#"{"index":0,"id":"c1","function":{"name":"Ba","arguments":""}}"#,
            r#"{"index":0,"function":{"name":"sh","arguments":"{}"}}"#,
        ),
        // repeated whole in every chunk
        (
            r#"{"index":0,"id":"c1","function":{"name":"Bash","arguments":""}}"#,
            r#"{"index":0,"id":"c1","function":{"name":"Bash","arguments":"{}"}}"#,
        ),
        // only in a later chunk
        (
            r#"{"index":0,"id":"c1","function":{"arguments":""}}"#,
            r#"{"index":0,"function":{"name":"Bash","arguments":"{}"}}"#,
        ),
    ];
    for (first, second) in cases {
        let body = sse(&[
            ("", &chunk(first)),
            ("", &chunk(second)),
            (
                "",
                r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            ),
            ("", "[DONE]"),
        ]);
        let m = decode("openai-completions", &body);
        let names: Vec<&str> = m.tool_calls().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["Bash"], "{first} then {second}");
    }
}
