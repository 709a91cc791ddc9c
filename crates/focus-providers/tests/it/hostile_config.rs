//! Hostile `models.json`: the documented example mutated at random (wrong types,
//! absurd numbers, missing keys). Merging must give a registry or an error that
//! names where the problem is, and every model that loads must build a request for
//! every thinking level and output cap without panicking. Seeded.

use focus_core::json::{parse_str, Value};
use focus_core::message::{Message, UserMessage};
use focus_core::provider::{ModelInfo, ModelRequest, RequestOptions, ThinkingLevel};
use focus_providers::Registry;
use focus_testkit::mutate::JsonMutator;
use focus_testkit::rng::Rng;
use focus_transport::replay::ReplayTransport;
use std::sync::Arc;

const EXAMPLE: &str = r#"{"providers": {
  "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
             "models": [{"id": "qwen3:8b", "contextWindow": 40960, "reasoning": true}]},
  "claude-proxy": {"baseUrl": "https://p.example/v1", "api": "anthropic-messages", "apiKey": "QA_NO_SUCH_VAR",
             "models": [{"id": "claude-opus-4-1", "reasoning": true, "maxTokens": 64000}]},
  "gem": {"baseUrl": "https://g.example", "api": "google-generative-ai",
             "models": [{"id": "gemini-2.5-pro", "reasoning": true, "maxTokens": 65536}]},
  "resp": {"baseUrl": "https://r.example/v1", "api": "openai-responses",
             "models": [{"id": "gpt-5", "reasoning": true}]},
  "work-proxy": {"baseUrl": "https://llm.internal/v1", "api": "openai-completions",
                 "apiKey": "WORK_LLM_TOKEN", "headers": {"X-Team": "qa"},
                 "compat": {"supportsUsageInStreaming": false, "maxTokensField": "max_tokens", "thinkingFormat": "qwen"},
                 "models": [{"id": "big-model", "input": ["text", "image"], "contextWindow": 128000,
                             "cost": {"input": 1, "output": 3, "cacheRead": 0.1, "cacheWrite": 1}}]}}}"#;

const WEIRD: [&str; 16] = [
    "null",
    "-1",
    "0",
    "1e400",
    "-1e400",
    "18446744073709551615",
    "18446744073709551616",
    "1.5",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "true",
    "[\"image\",7]",
    "\"anthropic-messages\"",
    "\"google-generative-ai\"",
];

/// How the documents here are damaged.
const MUTATOR: JsonMutator = JsonMutator {
    weird: &WEIRD,
    replace_one_in: 6,
    deepest: 6,
    key_draws: 7,
    reshape_arrays: false,
};

fn build_every_request(registry: &Registry, models: &[ModelInfo]) {
    let messages = vec![Message::User(UserMessage::text("hi", 0))];
    for model in models {
        let provider = registry.http_provider_for(model, Arc::new(ReplayTransport::new(vec![])));
        for thinking in ThinkingLevel::ALL {
            for max_tokens in [None, Some(0), Some(1), Some(u64::MAX)] {
                let options = RequestOptions {
                    thinking,
                    max_tokens,
                    ..RequestOptions::default()
                };
                let request = ModelRequest {
                    system_prompt: "s",
                    messages: &messages,
                    tools: &[],
                    options: &options,
                    cancel: &focus_core::cancel::CancelToken::new(),
                };
                let _ = provider.http_request(&request);
            }
        }
    }
}

#[test]
fn the_example_builds_requests_at_every_level_and_cap() {
    let mut registry = Registry::builtin();
    let before = registry.models().len();
    registry.merge_models_json(EXAMPLE).unwrap();
    let added = registry.models()[before..].to_vec();
    assert_eq!(added.len(), 5);
    build_every_request(&registry, &added);
}

#[test]
fn mutated_models_json_merges_or_names_the_problem() {
    let example = parse_str(EXAMPLE).unwrap();
    let mut rng = Rng::new(0x30de_15ee);
    for _ in 0..400 {
        let mut doc = example.clone();
        MUTATOR.mutate(&mut doc, &mut rng);
        let mut registry = Registry::builtin();
        let before = registry.models().len();
        match registry.merge_models_json(&doc.to_json_string()) {
            Ok(()) => {
                let added: Vec<_> = registry.models()[before..].to_vec();
                for m in &added {
                    let _ = registry.find(&format!("{}/{}", m.provider, m.id));
                    let _ = registry.compat_for(m);
                }
                build_every_request(&registry, &added);
            }
            Err(e) => assert!(
                e.starts_with("providers") || e.starts_with("expected"),
                "an error names where: {e}"
            ),
        }
    }
    for text in [
        "",
        "{",
        "[]",
        "null",
        "{\"providers\":[]}",
        "\u{0}",
        "{\"providers\":{\"\":{}}}",
    ] {
        let _ = Registry::builtin().merge_models_json(text);
    }
}

/// Messages of the real pi sessions, mutated, then sent through every API's
/// request builder (history repair included): never a panic.
#[test]
fn mutated_histories_build_requests_for_every_api() {
    use focus_core::json::FromJson;
    let Some(dir) = focus_testkit::pi_samples_dir() else {
        return;
    };
    let mut originals: Vec<Value> = Vec::new();
    for name in [
        "pi-session-anthropic-messages.jsonl",
        "pi-session-openai-completions.jsonl",
        "pi-session-openai-responses.jsonl",
    ] {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
            continue;
        };
        for line in text.lines() {
            if let Ok(v) = parse_str(line) {
                if !v["message"].is_null() {
                    originals.push(v["message"].clone());
                }
            }
        }
    }
    assert!(!originals.is_empty(), "no messages in {}", dir.display());
    let mut registry = Registry::builtin();
    registry.merge_models_json(EXAMPLE).unwrap();
    // One model of each wire API, from the example.
    let models: Vec<ModelInfo> = ["claude-proxy", "gem", "resp", "work-proxy"]
        .iter()
        .filter_map(|p| registry.models().iter().find(|m| m.provider == *p).cloned())
        .collect();
    let apis: std::collections::HashSet<&str> = models.iter().map(|m| m.api.as_str()).collect();
    assert_eq!(apis.len(), 4);
    let mut built = 0;
    let mut rng = Rng::new(0x4157_0e11);
    for _ in 0..150 {
        let mut messages = Vec::new();
        for _ in 0..rng.below(8) + 1 {
            let mut m = originals[rng.below(originals.len())].clone();
            if rng.below(2) == 0 {
                MUTATOR.mutate(&mut m, &mut rng);
            }
            if let Ok(message) = Message::from_json(&m) {
                messages.push(message);
            }
        }
        for model in &models {
            let provider =
                registry.http_provider_for(model, Arc::new(ReplayTransport::new(vec![])));
            let options = RequestOptions::default();
            let request = ModelRequest {
                system_prompt: "s",
                messages: &messages,
                tools: &[],
                options: &options,
                cancel: &focus_core::cancel::CancelToken::new(),
            };
            built += usize::from(provider.http_request(&request).is_some());
        }
    }
    assert_eq!(built, 150 * 4);
}
