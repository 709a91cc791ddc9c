//! Request building: golden bodies for each API from the histories in
//! the crate's `fixtures/requests/`, and structural checks that a history with an aborted turn,
//! a failed tool and thinking still yields a request every API accepts (no orphaned
//! tool call, no missing or stray result, no empty message, proper alternation).
//!
//! To regenerate the golden files after an intended change:
//! `FOCUS_UPDATE_GOLDEN=1 cargo test -p focus-providers --test it requests`, then
//! review the diff.

use focus_core::json::{parse, FromJson, Value};
use focus_core::message::{Message, StopReason};
use focus_core::provider::{ModelInfo, ModelRequest, RequestOptions, ThinkingLevel, ToolSpec};
use focus_providers::{anthropic, google, openai_completions, openai_responses};
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/requests")
}

fn model(api: &str, provider: &str, id: &str, base_url: &str, reasoning: bool) -> ModelInfo {
    ModelInfo {
        id: id.into(),
        name: id.into(),
        api: api.into(),
        provider: provider.into(),
        base_url: base_url.into(),
        context_window: 200_000,
        context_window_assumed: false,
        max_tokens: 64_000,
        reasoning,
        accepts_images: true,
        price: Default::default(),
    }
}

/// The targets: a file-name label and the model.
fn targets() -> Vec<(&'static str, ModelInfo)> {
    vec![
        (
            "anthropic",
            model(
                anthropic::API,
                "anthropic",
                "claude-sonnet-4-5",
                "https://api.anthropic.com",
                true,
            ),
        ),
        (
            "openai-completions",
            model(
                openai_completions::API,
                "openai",
                "o4-mini",
                "https://api.openai.com/v1",
                true,
            ),
        ),
        (
            "openai-completions-ollama",
            model(
                openai_completions::API,
                "ollama",
                "llama3.2",
                "http://localhost:11434/v1",
                false,
            ),
        ),
        (
            "openai-completions-deepseek",
            model(
                openai_completions::API,
                "deepseek",
                "deepseek-reasoner",
                "https://api.deepseek.com/v1",
                true,
            ),
        ),
        (
            "openai-responses",
            model(
                openai_responses::API,
                "openai",
                "gpt-5",
                "https://api.openai.com/v1",
                true,
            ),
        ),
        (
            "google",
            model(
                google::API,
                "google",
                "gemini-2.5-pro",
                "https://generativelanguage.googleapis.com/v1beta",
                true,
            ),
        ),
    ]
}

struct Case {
    system: String,
    messages: Vec<Message>,
    tools: Vec<ToolSpec>,
}

/// Loads a history; assistant messages marked `SAME` become the target model's.
fn load(name: &str, target: &ModelInfo) -> Case {
    let doc = parse(&std::fs::read(fixtures().join(format!("{name}.json"))).unwrap()).unwrap();
    let messages = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let mut m = Message::from_json(m).unwrap();
            if let Message::Assistant(a) = &mut m {
                if a.api == "SAME" {
                    a.api = target.api.clone().into();
                    a.provider = target.provider.clone().into();
                    a.model = target.id.clone().into();
                }
            }
            m
        })
        .collect();
    let tools = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| ToolSpec {
            name: t["name"].as_str().unwrap().into(),
            description: t["description"].as_str().unwrap().into(),
            parameters: t["parameters"].clone(),
        })
        .collect();
    Case {
        system: doc["systemPrompt"].as_str().unwrap().into(),
        messages,
        tools,
    }
}

fn build(target: &ModelInfo, case: &Case, options: &RequestOptions) -> Value {
    let request = ModelRequest {
        system_prompt: &case.system,
        messages: &case.messages,
        tools: &case.tools,
        options,
        cancel: &focus_core::cancel::CancelToken::new(),
    };
    match target.api.as_str() {
        anthropic::API => anthropic::build_request(target, &request),
        openai_completions::API => openai_completions::build_request(target, &request),
        openai_responses::API => openai_responses::build_request(target, &request),
        _ => google::build_request(target, &request),
    }
}

fn options() -> RequestOptions {
    RequestOptions {
        thinking: ThinkingLevel::Medium,
        max_tokens: Some(4096),
        temperature: None,
        session_id: None,
    }
}

fn golden(case: &str) {
    let update = std::env::var("FOCUS_UPDATE_GOLDEN").is_ok();
    for (label, target) in targets() {
        let body = build(&target, &load(case, &target), &options());
        let path = fixtures().join(format!("{case}.{label}.json"));
        let text = body.to_pretty_string() + "\n";
        if update {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "missing golden file {} (run with FOCUS_UPDATE_GOLDEN=1)",
                path.display()
            )
        });
        assert_eq!(
            parse(want.as_bytes()).unwrap(),
            body,
            "{case} for {label} differs from {}:\n{text}",
            path.display()
        );
    }
}

#[test]
fn golden_conversation_requests() {
    golden("conversation");
}

#[test]
fn golden_cross_provider_requests() {
    golden("cross_provider");
}

/// Checks that `body` is a request the API accepts structurally.
fn check_wire(api: &str, body: &Value) {
    match api {
        anthropic::API => {
            let messages = body["messages"].as_array().unwrap();
            let mut last_role = "";
            let mut pending: Vec<String> = Vec::new();
            for m in messages {
                let role = m["role"].as_str().unwrap();
                assert_ne!(role, last_role, "roles alternate");
                last_role = role;
                let blocks = m["content"].as_array().unwrap();
                assert!(!blocks.is_empty(), "no empty message");
                let results: Vec<String> = blocks
                    .iter()
                    .filter(|b| b["type"].as_str() == Some("tool_result"))
                    .map(|b| b["tool_use_id"].as_str().unwrap().to_string())
                    .collect();
                let mut want = std::mem::take(&mut pending);
                want.sort();
                let mut got = results.clone();
                got.sort();
                assert_eq!(got, want, "results answer exactly the previous calls");
                for b in blocks {
                    if b["type"].as_str() == Some("text") {
                        assert!(
                            !b["text"].as_str().unwrap().trim().is_empty(),
                            "no empty text"
                        );
                    }
                    if b["type"].as_str() == Some("tool_use") {
                        let id = b["id"].as_str().unwrap();
                        assert!(id
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
                        pending.push(id.to_string());
                    }
                }
            }
            assert!(pending.is_empty(), "no orphaned call at the end");
            assert_eq!(last_role, "user");
        }
        openai_completions::API => {
            let mut pending: Vec<String> = Vec::new();
            for m in body["messages"].as_array().unwrap() {
                match m["role"].as_str().unwrap() {
                    "tool" => {
                        let id = m["tool_call_id"].as_str().unwrap().to_string();
                        let at = pending
                            .iter()
                            .position(|p| *p == id)
                            .expect("result has a call");
                        pending.remove(at);
                        assert!(!m["content"].as_str().unwrap().is_empty());
                    }
                    role => {
                        assert!(
                            pending.is_empty(),
                            "{role} message before all results: {pending:?}"
                        );
                        if role == "assistant" {
                            let calls = m["tool_calls"].as_array();
                            assert!(
                                !m["content"].is_null() || calls.is_some_and(|c| !c.is_empty()),
                                "no empty assistant message"
                            );
                            for c in calls.into_iter().flatten() {
                                let args = c["function"]["arguments"].as_str().unwrap();
                                assert!(parse(args.as_bytes()).is_ok(), "arguments are JSON text");
                                pending.push(c["id"].as_str().unwrap().to_string());
                            }
                        }
                    }
                }
            }
            assert!(pending.is_empty());
        }
        openai_responses::API => {
            let mut pending: Vec<String> = Vec::new();
            for item in body["input"].as_array().unwrap() {
                match item["type"].as_str() {
                    Some("function_call") => pending.push(item["call_id"].as_str().unwrap().into()),
                    Some("function_call_output") => {
                        let id = item["call_id"].as_str().unwrap();
                        let at = pending
                            .iter()
                            .position(|p| p == id)
                            .expect("output has a call");
                        pending.remove(at);
                    }
                    _ => assert!(pending.is_empty(), "item before all outputs"),
                }
            }
            assert!(pending.is_empty());
        }
        _ => {
            let mut last_role = "";
            let mut pending = 0usize;
            for c in body["contents"].as_array().unwrap() {
                let role = c["role"].as_str().unwrap();
                assert_ne!(role, last_role, "roles alternate");
                last_role = role;
                let parts = c["parts"].as_array().unwrap();
                assert!(!parts.is_empty());
                let responses = parts
                    .iter()
                    .filter(|p| p["functionResponse"].as_object().is_some())
                    .count();
                assert_eq!(
                    responses, pending,
                    "one response per call of the previous turn"
                );
                pending = parts
                    .iter()
                    .filter(|p| p["functionCall"].as_object().is_some())
                    .count();
            }
            assert_eq!(pending, 0);
            assert_eq!(last_role, "user");
        }
    }
}

#[test]
fn messy_history_gives_valid_requests_for_every_api() {
    for case in ["conversation", "cross_provider"] {
        for (label, target) in targets() {
            let c = load(case, &target);
            assert!(c.messages.iter().any(|m| m
                .as_assistant()
                .is_some_and(|a| a.stop_reason == StopReason::Aborted)
                || case == "cross_provider"));
            for level in ThinkingLevel::ALL {
                let opts = RequestOptions {
                    thinking: level,
                    ..options()
                };
                let body = build(&target, &c, &opts);
                check_wire(&target.api, &body);
                let text = body.to_json_string();
                assert!(
                    !text.contains("No result provided") || case == "conversation",
                    "{label}"
                );
                assert!(
                    !text.contains("I will now edit"),
                    "{label}: aborted turn dropped"
                );
                assert!(!text.contains("stray"), "{label}: stray result dropped");
                assert!(
                    !text.contains("not for the model"),
                    "{label}: custom dropped"
                );
            }
        }
    }
}

#[test]
fn thinking_levels_map_to_each_providers_knobs() {
    let case = load("cross_provider", &targets()[0].1);
    let level = |label: &str, l: ThinkingLevel| {
        let target = targets().into_iter().find(|(n, _)| *n == label).unwrap().1;
        build(
            &target,
            &case,
            &RequestOptions {
                thinking: l,
                max_tokens: Some(4096),
                ..Default::default()
            },
        )
    };
    let a = level("anthropic", ThinkingLevel::High);
    assert_eq!(a["thinking"]["budget_tokens"].as_u64(), Some(16384));
    assert!(a["max_tokens"].as_u64().unwrap() > 16384);
    assert!(level("anthropic", ThinkingLevel::Off)["thinking"].is_null());
    let mut opus5 = targets()[0].1.clone();
    opus5.id = "claude-opus-5".into();
    let adaptive = build(
        &opus5,
        &case,
        &RequestOptions {
            thinking: ThinkingLevel::Low,
            max_tokens: Some(4096),
            ..Default::default()
        },
    );
    assert_eq!(adaptive["thinking"]["type"].as_str(), Some("adaptive"));
    assert_eq!(adaptive["output_config"]["effort"].as_str(), Some("low"));
    assert_eq!(adaptive["max_tokens"].as_u64(), Some(4096));
    assert_eq!(
        level("openai-completions", ThinkingLevel::Low)["reasoning_effort"].as_str(),
        Some("low")
    );
    assert_eq!(
        level("openai-completions", ThinkingLevel::XHigh)["reasoning_effort"].as_str(),
        Some("high")
    );
    assert!(
        level("openai-completions-deepseek", ThinkingLevel::High)["reasoning_effort"].is_null()
    );
    let mut openrouter = targets()[1].1.clone();
    openrouter.provider = "openrouter".into();
    let body = build(
        &openrouter,
        &case,
        &RequestOptions {
            thinking: ThinkingLevel::High,
            ..Default::default()
        },
    );
    assert_eq!(body["reasoning"]["effort"].as_str(), Some("high"));
    assert!(body["reasoning_effort"].is_null() && body["max_tokens"].as_u64().is_some());
    let r = level("openai-responses", ThinkingLevel::Minimal);
    assert_eq!(r["reasoning"]["effort"].as_str(), Some("minimal"));
    assert_eq!(
        r["include"][0].as_str(),
        Some("reasoning.encrypted_content")
    );
    assert_eq!(
        level("openai-responses", ThinkingLevel::Off)["reasoning"]["effort"].as_str(),
        Some("minimal"),
        "gpt-5 reasons at medium unless told: off asks for the least"
    );
    assert!(level("openai-responses", ThinkingLevel::Off)["include"].is_null());
    assert!(
        level("openai-completions", ThinkingLevel::Off)["reasoning_effort"].is_null(),
        "o4-mini has no lower effort"
    );
    let g = level("google", ThinkingLevel::Medium);
    assert_eq!(
        g["generationConfig"]["thinkingConfig"]["thinkingBudget"].as_i64(),
        Some(8192)
    );
    assert_eq!(
        level("google", ThinkingLevel::Off)["generationConfig"]["thinkingConfig"]["thinkingBudget"]
            .as_i64(),
        Some(128),
        "2.5 Pro cannot switch thinking off"
    );
}

#[test]
fn anthropic_without_tools_gets_tool_turns_as_text() {
    let (_, target) = targets().into_iter().next().unwrap();
    let case = load("cross_provider", &target);
    assert!(case.tools.is_empty());
    let text = build(&target, &case, &options()).to_json_string();
    assert!(
        !text.contains("tool_use") && !text.contains("tool_result"),
        "{text}"
    );
    assert!(
        text.contains(r#"[called tool bash with {\"command\":\"ls\"}]"#),
        "{text}"
    );
    assert!(text.contains("[result of tool bash]: README.md"), "{text}");
}

/// The first message of the conversation as the API sees it (after any system or
/// developer message), and its role.
fn first_role(api: &str, body: &Value) -> String {
    let list = match api {
        openai_responses::API => &body["input"],
        google::API => &body["contents"],
        _ => &body["messages"],
    };
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            m["role"]
                .as_str()
                .unwrap_or(m["type"].as_str().unwrap_or("?"))
        })
        .find(|role| *role != "system" && *role != "developer")
        .unwrap_or("none")
        .to_string()
}

#[test]
fn a_history_never_starts_with_an_assistant_message_on_any_api() {
    // A session cut by compaction or a branch summary can begin with the model's
    // turn; every API wants the user first (Gemini and Anthropic refuse otherwise).
    for (label, target) in targets() {
        let said = focus_core::message::AssistantMessage {
            content: vec![focus_core::message::Content::text("from an earlier branch")],
            api: target.api.clone().into(),
            ..Default::default()
        };
        let case = Case {
            system: "sys".into(),
            messages: vec![
                Message::Assistant(said),
                Message::User(focus_core::message::UserMessage::text("go on", 1)),
            ],
            tools: Vec::new(),
        };
        let body = build(&target, &case, &options());
        assert_eq!(first_role(&target.api, &body), "user", "{label}: {body:?}");
    }
}

/// An assistant message with only tool calls leaves `content` out, as the OpenAI
/// SDK does: llama.cpp and llama-cpp-python answer 500 to `"content": null`, and
/// every compatible server accepts the field missing. `supportsNullContent`
/// asks for `null`.
#[test]
fn a_tool_call_only_message_leaves_content_out() {
    let call = focus_core::message::Content::ToolCall(focus_core::message::ToolCall {
        id: "c1".into(),
        name: "ls".into(),
        arguments: parse(b"{}").unwrap(),
        thought_signature: None,
        invalid_arguments: None,
    });
    let said = focus_core::message::AssistantMessage {
        content: vec![call],
        stop_reason: StopReason::ToolUse,
        ..Default::default()
    };
    let case = Case {
        system: String::new(),
        messages: vec![
            Message::User(focus_core::message::UserMessage::text("list", 1)),
            Message::Assistant(said),
        ],
        tools: Vec::new(),
    };
    for (provider, url) in [
        ("llama.cpp", "http://127.0.0.1:8080/v1"),
        ("ollama", "http://127.0.0.1:11434/v1"),
        ("llama-cpp-python", "http://127.0.0.1:8000/v1"),
        ("openai", "https://api.openai.com/v1"),
        ("some-proxy", "https://llm.internal/v1"),
    ] {
        let target = model("openai-completions", provider, "m", url, false);
        let body = build(&target, &case, &options());
        let assistant = &body["messages"][1];
        assert_eq!(assistant["role"].as_str(), Some("assistant"));
        assert!(
            assistant.get("content").is_none(),
            "{provider}: {assistant:?}"
        );
        assert_eq!(assistant["tool_calls"].as_array().map(Vec::len), Some(1));
    }
    let target = model("openai-completions", "ollama", "m", "http://x/v1", false);
    let null = focus_providers::compat::compat_for(&target)
        .with_overrides(&parse(br#"{"supportsNullContent": true}"#).unwrap())
        .unwrap();
    let request = ModelRequest {
        system_prompt: "",
        messages: &case.messages,
        tools: &[],
        options: &options(),
        cancel: &focus_core::cancel::CancelToken::new(),
    };
    let body = openai_completions::build_request_with(&target, &request, null);
    assert!(body["messages"][1]["content"].is_null());
    assert!(body["messages"][1].get("content").is_some());
}

/// A local server's window holds prompt and answer: the output cap shrinks as the
/// prompt grows, and stays the model's own where the window is roomy or unknown.
#[test]
fn max_tokens_leaves_room_for_the_prompt() {
    use openai_completions::fit_max_tokens;
    assert_eq!(fit_max_tokens(8_192, 0, 5_000), 8_192, "unknown window");
    assert_eq!(fit_max_tokens(8_192, 200_000, 5_000), 8_192, "roomy window");
    assert_eq!(fit_max_tokens(8_192, 8_192, 800), 8_192 - 900);
    assert_eq!(fit_max_tokens(8_192, 8_192, 4_000), 8_192 - 4_500);
    assert_eq!(fit_max_tokens(8_192, 8_192, 9_000), 512, "the floor");
    assert_eq!(fit_max_tokens(16_384, 2_048, 1_500), 2_048 - 1_687);
    assert_eq!(
        fit_max_tokens(16_384, 2_048, 1_900),
        256,
        "an eighth of a small window"
    );
    let mut target = model(
        "openai-completions",
        "llama.cpp",
        "m",
        "http://127.0.0.1:8080/v1",
        false,
    );
    target.context_window = 8_192;
    target.max_tokens = 8_192;
    let asked = |words: usize| {
        let case = Case {
            system: "You are a coding agent.".into(),
            messages: vec![Message::User(focus_core::message::UserMessage::text(
                "word ".repeat(words),
                1,
            ))],
            tools: Vec::new(),
        };
        let options = RequestOptions {
            max_tokens: None,
            ..options()
        };
        build(&target, &case, &options)["max_tokens"]
            .as_u64()
            .unwrap()
    };
    let short = asked(10);
    let long = asked(4_000); // 20,000 characters: about 5,000 tokens
    assert!(short < 8_192 && short > 8_000, "{short}");
    assert!(long < 8_192 - 5_000, "{long}");
}
