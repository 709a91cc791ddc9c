//! Which model to use when the user did not say, in the order the issue sets for
//! air-gapped hosts: the configured default; else a provider whose API key is in
//! the environment; else a local OpenAI-compatible server answering on loopback
//! (Ollama, then llama.cpp), with its first model; else the offline demo.
//!
//! [`choose_model`] is pure: the environment, the settings and the network come in
//! as arguments, so the order is unit-tested with fakes and a loopback server.

use crate::probe;
use focus_core::json::Value;

/// Where the model came from (shown to the user when it was not their explicit choice).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// `--provider`/`--model`.
    Flags,
    /// The model a resumed session was using.
    Session,
    /// The default in settings.
    Settings,
    /// An API key found in the environment (the variable's name).
    Environment(String),
    /// A local server that answered a probe.
    LocalServer,
    /// Nothing was configured.
    Demo,
}

/// The model to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    /// A model the registry knows: `provider` may be empty when only a model
    /// pattern was given (the registry finds it).
    Registered {
        /// Provider name, or empty.
        provider: String,
        /// Model id or pattern, or empty for the provider's default model.
        model: String,
        /// Why this one.
        source: ModelSource,
    },
    /// A model on a local OpenAI-compatible server.
    Local {
        /// `ollama` or `llama.cpp`.
        provider: String,
        /// The OpenAI-compatible base URL (`http://127.0.0.1:11434/v1`).
        base_url: String,
        /// The first model the server listed.
        model: String,
        /// The context window the server says it runs with (llama.cpp's `/props`
        /// `n_ctx`, or its model list's metadata: [`probe::context_from_model_list`]),
        /// when it says.
        context_window: Option<u64>,
    },
    /// The built-in offline demo.
    Demo,
}

/// What the choice depends on.
pub struct ChoiceInputs<'a> {
    /// `--provider`.
    pub flag_provider: Option<&'a str>,
    /// `--model`.
    pub flag_model: Option<&'a str>,
    /// The settings' default provider.
    pub settings_provider: Option<&'a str>,
    /// The settings' default model.
    pub settings_model: Option<&'a str>,
    /// Providers with an API key available, with the variable that holds it, in
    /// order of preference.
    pub keyed_providers: &'a [(String, String)],
    /// `OLLAMA_HOST`.
    pub ollama_host: Option<&'a str>,
    /// `--offline`: do not probe.
    pub offline: bool,
}

/// The default port of llama.cpp's `llama-server`.
pub const LLAMA_CPP_AUTHORITY: &str = "127.0.0.1:8080";

/// Chooses the model. `probe(authority, path)` performs one GET and returns the
/// JSON answer (see [`probe::get_json`]).
pub fn choose_model(
    inputs: &ChoiceInputs<'_>,
    probe: &dyn Fn(&str, &str) -> Option<Value>,
) -> ModelChoice {
    if inputs.flag_provider.is_some() || inputs.flag_model.is_some() {
        return ModelChoice::Registered {
            provider: inputs.flag_provider.unwrap_or_default().to_string(),
            model: inputs.flag_model.unwrap_or_default().to_string(),
            source: ModelSource::Flags,
        };
    }
    if inputs.settings_provider.is_some() || inputs.settings_model.is_some() {
        return ModelChoice::Registered {
            provider: inputs.settings_provider.unwrap_or_default().to_string(),
            model: inputs.settings_model.unwrap_or_default().to_string(),
            source: ModelSource::Settings,
        };
    }
    if let Some((provider, variable)) = inputs.keyed_providers.first() {
        return ModelChoice::Registered {
            provider: provider.clone(),
            model: String::new(),
            source: ModelSource::Environment(variable.clone()),
        };
    }
    if !inputs.offline {
        if let Some(choice) = probe_local_servers(inputs.ollama_host, probe) {
            return choice;
        }
    }
    ModelChoice::Demo
}

/// Ollama (native `/api/tags`, then `/v1/models`), then llama.cpp (`/v1/models`).
fn probe_local_servers(
    ollama_host: Option<&str>,
    probe: &dyn Fn(&str, &str) -> Option<Value>,
) -> Option<ModelChoice> {
    let ollama = probe::ollama_authority(ollama_host);
    let candidates = [
        ("ollama", ollama.as_str(), "/api/tags"),
        ("ollama", ollama.as_str(), "/v1/models"),
        ("llama.cpp", LLAMA_CPP_AUTHORITY, "/v1/models"),
    ];
    let mut unreachable: Vec<&str> = Vec::new();
    for (provider, authority, path) in candidates {
        if unreachable.contains(&authority) {
            continue;
        }
        let Some(answer) = probe(authority, path) else {
            // One failed path is enough to skip a host whose port is closed, but a
            // server may lack /api/tags and still serve /v1/models.
            if path == "/v1/models" {
                unreachable.push(authority);
            }
            continue;
        };
        if let Some(model) = probe::model_ids(&answer).into_iter().next() {
            // llama.cpp runs with one context size, which it reports; guessing
            // would compact too late (an overflow) or too early. Other servers
            // may say it in their model list (vLLM, LM Studio).
            // Ollama runs a loaded model with a context of its own choosing
            // (`num_ctx`), which `/api/ps` reports.
            let context_window = (provider == "llama.cpp")
                .then(|| probe(authority, "/props"))
                .flatten()
                .and_then(|props| probe::context_size(&props))
                .or_else(|| probe::context_from_model_list(&answer, &model))
                .or_else(|| {
                    (provider == "ollama")
                        .then(|| probe(authority, "/api/ps"))
                        .flatten()
                        .and_then(|running| probe::context_from_model_list(&running, &model))
                });
            return Some(ModelChoice::Local {
                provider: provider.to_string(),
                base_url: format!("http://{authority}/v1"),
                model,
                context_window,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    fn inputs<'a>(keyed: &'a [(String, String)]) -> ChoiceInputs<'a> {
        ChoiceInputs {
            flag_provider: None,
            flag_model: None,
            settings_provider: None,
            settings_model: None,
            keyed_providers: keyed,
            ollama_host: None,
            offline: false,
        }
    }

    fn nothing(_: &str, _: &str) -> Option<Value> {
        None
    }

    #[test]
    fn flags_beat_settings_beat_keys() {
        let keyed = [("openai".to_string(), "OPENAI_API_KEY".to_string())];
        let mut i = inputs(&keyed);
        i.settings_provider = Some("anthropic");
        i.flag_model = Some("gpt-4o");
        assert!(matches!(
            choose_model(&i, &nothing),
            ModelChoice::Registered { source: ModelSource::Flags, ref model, .. } if model == "gpt-4o"
        ));
        i.flag_model = None;
        assert!(matches!(
            choose_model(&i, &nothing),
            ModelChoice::Registered { source: ModelSource::Settings, ref provider, .. } if provider == "anthropic"
        ));
        i.settings_provider = None;
        assert_eq!(
            choose_model(&i, &nothing),
            ModelChoice::Registered {
                provider: "openai".into(),
                model: String::new(),
                source: ModelSource::Environment("OPENAI_API_KEY".into())
            }
        );
    }

    #[test]
    fn local_servers_then_demo() {
        let none: [(String, String); 0] = [];
        let llama = |authority: &str, path: &str| -> Option<Value> {
            match (authority == LLAMA_CPP_AUTHORITY, path) {
                (true, "/v1/models") => {
                    Some(parse_str(r#"{"data":[{"id":"qwen2.5-coder"}]}"#).unwrap())
                }
                // The context the server runs with, as llama.cpp reports it.
                (true, "/props") => Some(
                    parse_str(r#"{"default_generation_settings":{"n_ctx":16384},"total_slots":1}"#)
                        .unwrap(),
                ),
                _ => None,
            }
        };
        assert_eq!(
            choose_model(&inputs(&none), &llama),
            ModelChoice::Local {
                provider: "llama.cpp".into(),
                base_url: "http://127.0.0.1:8080/v1".into(),
                model: "qwen2.5-coder".into(),
                context_window: Some(16384),
            }
        );
        let mut i = inputs(&none);
        i.ollama_host = Some("127.0.0.1:5555");
        let ollama = |authority: &str, path: &str| -> Option<Value> {
            (authority == "127.0.0.1:5555" && path == "/api/tags")
                .then(|| parse_str(r#"{"models":[{"name":"llama3.2"}]}"#).unwrap())
        };
        assert!(matches!(
            choose_model(&i, &ollama),
            ModelChoice::Local { ref base_url, ref model, .. }
                if base_url == "http://127.0.0.1:5555/v1" && model == "llama3.2"
        ));
        i.offline = true;
        assert_eq!(choose_model(&i, &ollama), ModelChoice::Demo);
        assert_eq!(choose_model(&inputs(&none), &nothing), ModelChoice::Demo);
    }

    #[test]
    fn a_window_from_the_model_list_when_there_is_no_props() {
        let none: [(String, String); 0] = [];
        let server = |authority: &str, path: &str| -> Option<Value> {
            (authority == LLAMA_CPP_AUTHORITY && path == "/v1/models")
                .then(|| parse_str(r#"{"data":[{"id":"qwen","max_model_len":4096}]}"#).unwrap())
        };
        let unknown = |authority: &str, path: &str| -> Option<Value> {
            (authority == LLAMA_CPP_AUTHORITY && path == "/v1/models")
                .then(|| parse_str(r#"{"data":[{"id":"qwen"}]}"#).unwrap())
        };
        let window = |choice| match choice {
            ModelChoice::Local { context_window, .. } => context_window,
            other => panic!("{other:?}"),
        };
        assert_eq!(window(choose_model(&inputs(&none), &server)), Some(4_096));
        let ollama = |authority: &str, path: &str| -> Option<Value> {
            match (authority == "127.0.0.1:11434", path) {
                (true, "/api/tags") => {
                    Some(parse_str(r#"{"models":[{"name":"qwen3:8b"}]}"#).unwrap())
                }
                (true, "/api/ps") => Some(
                    parse_str(r#"{"models":[{"name":"qwen3:8b","context_length":8192}]}"#).unwrap(),
                ),
                _ => None,
            }
        };
        assert_eq!(window(choose_model(&inputs(&none), &ollama)), Some(8_192));
        assert_eq!(window(choose_model(&inputs(&none), &unknown)), None);
    }

    #[test]
    fn a_server_with_no_models_is_skipped() {
        let none: [(String, String); 0] = [];
        let empty = |_: &str, _: &str| parse_str(r#"{"models":[]}"#).ok();
        assert_eq!(choose_model(&inputs(&none), &empty), ModelChoice::Demo);
    }
}
