//! Hostile input for every stream decoder: the recorded provider streams with
//! their JSON mutated (wrong types, huge and negative numbers, missing keys,
//! events dropped, repeated and reordered), and plain random bytes. Nothing may
//! panic, and every decode still ends with exactly one terminal event and
//! well-nested blocks. Seeded, so a failure reproduces.

use crate::support::decode::{check_protocol, decode_in_pieces, Decoded};
use focus_core::json::parse_str;
use focus_core::message::AssistantMessage;
use focus_providers::decode::APIS;
use focus_testkit::mutate::JsonMutator;
use focus_testkit::rng::Rng;
use focus_testkit::streams::{recorded_streams, RecordedStream};

/// Values a hostile or broken server might put where anything else belongs.
const WEIRD: [&str; 22] = [
    "null",
    "true",
    "-1",
    "0",
    "1.5",
    "1e400",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "\"\"",
    "\"\\u0000\"",
    "\"{\\\"a\\\":\"",
    "\"[DONE]\"",
    "\"message_stop\"",
    "\"tool_use\"",
    "\"function_call\"",
    "[]",
    "[{}]",
    "{}",
    "{\"type\":\"error\"}",
    "\"\u{1F600}\u{0301}\"",
];

/// How the documents here are damaged.
const MUTATOR: JsonMutator = JsonMutator {
    weird: &WEIRD,
    replace_one_in: 6,
    deepest: 6,
    key_draws: 8,
    reshape_arrays: true,
};

/// The `(event name, data)` pairs of a recorded body, by blank-line frames.
fn frames(body: &str) -> Vec<(Option<String>, String)> {
    body.split("\n\n")
        .filter(|f| !f.trim().is_empty())
        .map(|f| {
            let mut event = None;
            let mut data = Vec::new();
            for line in f.lines() {
                if let Some(e) = line.strip_prefix("event:") {
                    event = Some(e.trim().to_string());
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push(d.strip_prefix(' ').unwrap_or(d).to_string());
                }
            }
            (event, data.join("\n"))
        })
        .collect()
}

fn render(frames: &[(Option<String>, String)]) -> String {
    let mut out = String::new();
    for (event, data) in frames {
        if let Some(e) = event {
            out.push_str(&format!("event: {e}\n"));
        }
        for line in data.split('\n') {
            out.push_str(&format!("data: {line}\n"));
        }
        out.push('\n');
    }
    out
}

/// Decodes `body` cut at random points and checks the event protocol.
fn decode_checked(api: &str, body: &[u8], rng: &mut Rng, what: &str) -> AssistantMessage {
    let mut cuts: Vec<usize> = (0..rng.below(6))
        .map(|_| rng.below(body.len() + 1))
        .collect();
    cuts.sort();
    let Decoded {
        message, events, ..
    } = decode_in_pieces(api, body, &cuts);
    check_protocol(what, &events, &message);
    let ids: Vec<&str> = message.tool_calls().map(|c| c.id.as_str()).collect();
    let unique: std::collections::HashSet<&str> = ids.iter().copied().collect();
    assert!(
        unique.len() == ids.len() && !unique.contains(""),
        "{what}: call ids unique and present: {ids:?}"
    );
    message
}

#[test]
fn mutated_recorded_streams_never_panic_and_keep_the_event_protocol() {
    let Some(streams) = recorded_streams() else {
        return;
    };
    let mut rng = Rng::new(0x5eed_0001);
    for RecordedStream { api, path, .. } in &streams {
        let body = std::fs::read_to_string(path).unwrap();
        let original = frames(&body);
        for round in 0..25 {
            let mut mutated = original.clone();
            for frame in mutated.iter_mut() {
                if rng.below(4) != 0 {
                    continue;
                }
                if let Ok(mut v) = parse_str(&frame.1) {
                    MUTATOR.mutate(&mut v, &mut rng);
                    frame.1 = v.to_json_string();
                } else if rng.below(2) == 0 {
                    frame.1 = WEIRD[rng.below(WEIRD.len())].to_string();
                }
            }
            match rng.below(4) {
                0 if !mutated.is_empty() => {
                    let i = rng.below(mutated.len());
                    mutated.remove(i);
                }
                1 if !mutated.is_empty() => {
                    let i = rng.below(mutated.len());
                    let copy = mutated[i].clone();
                    let j = rng.below(mutated.len());
                    mutated.insert(j, copy);
                }
                2 if mutated.len() > 1 => {
                    let (i, j) = (rng.below(mutated.len()), rng.below(mutated.len()));
                    mutated.swap(i, j);
                }
                _ => {}
            }
            let what = format!("{} round {round}", path.display());
            decode_checked(api, render(&mutated).as_bytes(), &mut rng, &what);
        }
    }
}

#[test]
fn truncated_recorded_streams_end_with_one_terminal_event() {
    let Some(streams) = recorded_streams() else {
        return;
    };
    let mut rng = Rng::new(0x5eed_0002);
    for RecordedStream { api, path, .. } in &streams {
        let body = std::fs::read(path).unwrap();
        for _ in 0..8 {
            let cut = rng.below(body.len() + 1);
            let what = format!("{} cut at {cut}", path.display());
            decode_checked(api, &body[..cut], &mut rng, &what);
        }
    }
}

#[test]
fn random_bytes_and_random_json_events_never_panic() {
    let mut rng = Rng::new(0x5eed_0003);
    for api in APIS {
        for round in 0..150 {
            let mut body = Vec::new();
            for _ in 0..rng.below(12) {
                match rng.below(3) {
                    0 => {
                        let n = rng.below(64);
                        body.extend((0..n).map(|_| rng.next_u64() as u8));
                    }
                    1 => {
                        body.extend_from_slice(b"data: ");
                        body.extend_from_slice(WEIRD[rng.below(WEIRD.len())].as_bytes());
                        body.extend_from_slice(b"\n\n");
                    }
                    _ => {
                        let types = [
                            "message_start",
                            "content_block_start",
                            "content_block_delta",
                            "content_block_stop",
                            "message_delta",
                            "response.output_item.added",
                            "response.output_text.delta",
                            "response.function_call_arguments.delta",
                            "response.output_item.done",
                            "response.completed",
                            "error",
                        ];
                        let t = types[rng.below(types.len())];
                        let mut v = parse_str(&format!(
                            r#"{{"type":"{t}","index":1,"output_index":2,"content_block":{{"type":"tool_use","id":"x","name":"n"}},"delta":{{"type":"input_json_delta","partial_json":"{{","text":"t"}},"item":{{"type":"function_call","call_id":"c","name":"n"}},"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"c","function":{{"name":"n","arguments":"{{"}}}}]}},"finish_reason":"tool_calls"}}],"candidates":[{{"content":{{"parts":[{{"functionCall":{{"name":"n","args":{{}}}}}},{{"text":"x","thought":true}}]}},"finishReason":"STOP"}}]}}"#
                        ))
                        .unwrap();
                        MUTATOR.mutate(&mut v, &mut rng);
                        body.extend_from_slice(format!("event: {t}\ndata: ").as_bytes());
                        body.extend_from_slice(v.to_json_string().as_bytes());
                        body.extend_from_slice(b"\n\n");
                    }
                }
            }
            let what = format!("{api} random round {round}");
            decode_checked(api, &body, &mut rng, &what);
        }
    }
}

#[test]
fn absurd_token_counts_saturate_instead_of_overflowing() {
    const MAX: &str = "18446744073709551615";
    let gemini = format!(
        r#"data: {{"candidates":[{{"content":{{"parts":[{{"text":"hi"}}]}},"finishReason":"STOP"}}],"usageMetadata":{{"promptTokenCount":{MAX},"candidatesTokenCount":{MAX},"thoughtsTokenCount":{MAX}}}}}"#
    ) + "\n\n";
    let mut rng = Rng::new(7);
    let m = decode_checked(
        "google-generative-ai",
        gemini.as_bytes(),
        &mut rng,
        "gemini",
    );
    assert_eq!(m.usage.output, u64::MAX);
    assert_eq!(m.usage.total_tokens, u64::MAX);
    let anthropic = format!(
        "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"usage\":{{\"input_tokens\":{MAX},\"output_tokens\":{MAX},\"cache_read_input_tokens\":{MAX}}}}}}}\n\n\
         event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
    );
    let m = decode_checked(
        "anthropic-messages",
        anthropic.as_bytes(),
        &mut rng,
        "anthropic",
    );
    assert_eq!(m.usage.total_tokens, u64::MAX);
}
