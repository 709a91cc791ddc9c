//! The model registry: which models exist, where they live, what they cost, and
//! which key unlocks them.
//!
//! [`Registry::builtin`] knows the well-known models of each provider;
//! [`Registry::load`] adds the user's `models.json` from focus's config directory,
//! in pi's shape:
//!
//! ```json
//! {"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1",
//!   "api": "openai-completions", "apiKey": "ollama",
//!   "models": [{"id": "llama3.2", "contextWindow": 128000}]}}}
//! ```
//!
//! `apiKey` is `!command` (its output), an environment variable name (its value is
//! used when it is set) or the key itself. Keys otherwise come from the conventional variables
//! ([`env_vars_for`]). A key is only ever handed out wrapped in [`ApiKey`].

use crate::http::HttpProvider;
use crate::secret::ApiKey;
use focus_core::json::{parse_str, Value};
use focus_core::message::Usage;
use focus_core::provider::{ModelInfo, Price, Provider};
use focus_transport::Transport;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Where a provider's models live and how to authenticate.
#[derive(Clone, PartialEq)]
pub struct ProviderEntry {
    /// The provider name (`anthropic`, `ollama`…).
    pub name: String,
    /// The API base URL.
    pub base_url: String,
    /// The wire API.
    pub api: String,
    /// The `apiKey` value from models.json (a variable name or a literal key).
    api_key: Option<String>,
    /// Extra headers from models.json (values may name variables, like `apiKey`).
    pub headers: Vec<(String, String)>,
    /// The models.json `compat` object (Chat Completions quirk overrides), or null.
    pub compat: Value,
}

impl std::fmt::Debug for ProviderEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderEntry")
            .field("name", &self.name)
            .field("base_url", &self.base_url)
            .field("api", &self.api)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// All known models and providers.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    providers: Vec<ProviderEntry>,
    models: Vec<ModelInfo>,
    /// Per-model `compat` objects from models.json: (provider, id) → overrides.
    model_compat: Vec<((String, String), Value)>,
}

/// The environment variables that hold a provider's key, in order of preference.
pub fn env_vars_for(provider: &str) -> &'static [&'static str] {
    match provider {
        "anthropic" => &["ANTHROPIC_API_KEY"],
        "openai" => &["OPENAI_API_KEY"],
        "google" | "gemini" => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        "groq" => &["GROQ_API_KEY"],
        "openrouter" => &["OPENROUTER_API_KEY"],
        "deepseek" => &["DEEPSEEK_API_KEY"],
        "xai" => &["XAI_API_KEY"],
        "mistral" => &["MISTRAL_API_KEY"],
        "cerebras" => &["CEREBRAS_API_KEY"],
        "zai" => &["ZAI_API_KEY"],
        "huggingface" => &["HF_TOKEN"],
        _ => &[],
    }
}

/// One built-in model row: provider, id, name, context, max output, reasoning,
/// images, $/M input, output, cache read, cache write.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    u64,
    u64,
    bool,
    bool,
    [f64; 4],
);

#[rustfmt::skip]
const BUILTIN_PROVIDERS: &[(&str, &str, &str)] = &[
    ("anthropic", "https://api.anthropic.com", "anthropic-messages"),
    ("openai", "https://api.openai.com/v1", "openai-responses"),
    ("google", "https://generativelanguage.googleapis.com/v1beta", "google-generative-ai"),
    ("groq", "https://api.groq.com/openai/v1", "openai-completions"),
    ("openrouter", "https://openrouter.ai/api/v1", "openai-completions"),
    ("deepseek", "https://api.deepseek.com/v1", "openai-completions"),
    ("xai", "https://api.x.ai/v1", "openai-completions"),
    ("mistral", "https://api.mistral.ai/v1", "openai-completions"),
];

#[rustfmt::skip]
const BUILTIN_MODELS: &[Row] = &[
    ("anthropic", "claude-opus-5-5", "Claude Opus 5.5", 1_000_000, 128_000, true, true, [4.0, 20.0, 0.4, 5.0]),
    ("anthropic", "claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, 128_000, true, true, [2.0, 10.0, 0.2, 2.5]),
    ("anthropic", "claude-opus-5", "Claude Opus 5", 1_000_000, 128_000, true, true, [5.0, 25.0, 0.5, 6.25]),
    ("anthropic", "claude-sonnet-5", "Claude Sonnet 5", 1_000_000, 128_000, true, true, [2.0, 10.0, 0.2, 2.5]),
    ("anthropic", "claude-fable-5-1", "Claude Fable 5.1", 1_000_000, 128_000, true, true, [10.0, 50.0, 1.0, 12.5]),
    ("anthropic", "claude-opus-4-6", "Claude Opus 4.6", 1_000_000, 128_000, true, true, [5.0, 25.0, 0.5, 6.25]),
    ("anthropic", "claude-sonnet-4-6", "Claude Sonnet 4.6", 200_000, 64_000, true, true, [3.0, 15.0, 0.3, 3.75]),
    ("anthropic", "claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, true, true, [5.0, 25.0, 0.5, 6.25]),
    ("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, true, true, [3.0, 15.0, 0.3, 3.75]),
    ("anthropic", "claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, true, true, [1.0, 5.0, 0.1, 1.25]),
    ("openai", "gpt-5.5", "GPT-5.5", 1_050_000, 128_000, true, true, [5.0, 30.0, 0.5, 0.0]),
    ("openai", "gpt-5.4", "GPT-5.4", 1_050_000, 128_000, true, true, [2.5, 15.0, 0.25, 0.0]),
    ("openai", "gpt-5.2", "GPT-5.2", 400_000, 128_000, true, true, [1.75, 14.0, 0.175, 0.0]),
    ("openai", "gpt-5.1", "GPT-5.1", 400_000, 128_000, true, true, [1.25, 10.0, 0.125, 0.0]),
    ("openai", "gpt-5", "GPT-5", 400_000, 128_000, true, true, [1.25, 10.0, 0.125, 0.0]),
    ("openai", "gpt-5-mini", "GPT-5 mini", 400_000, 128_000, true, true, [0.25, 2.0, 0.025, 0.0]),
    ("openai", "gpt-4.1", "GPT-4.1", 1_047_576, 32_768, false, true, [2.0, 8.0, 0.5, 0.0]),
    ("openai", "gpt-4o", "GPT-4o", 128_000, 16_384, false, true, [2.5, 10.0, 1.25, 0.0]),
    ("openai", "o4-mini", "o4-mini", 200_000, 100_000, true, true, [1.1, 4.4, 0.275, 0.0]),
    ("google", "gemini-2.5-pro", "Gemini 2.5 Pro", 1_048_576, 65_536, true, true, [1.25, 10.0, 0.31, 0.0]),
    ("google", "gemini-2.5-flash", "Gemini 2.5 Flash", 1_048_576, 65_536, true, true, [0.3, 2.5, 0.075, 0.0]),
    ("google", "gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 1_048_576, 65_536, true, true, [0.1, 0.4, 0.025, 0.0]),
    ("google", "gemini-3-pro-preview", "Gemini 3 Pro Preview", 1_048_576, 65_536, true, true, [2.0, 12.0, 0.2, 0.0]),
    ("groq", "openai/gpt-oss-120b", "GPT OSS 120B (Groq)", 131_072, 65_536, true, false, [0.15, 0.6, 0.0, 0.0]),
    ("groq", "llama-3.3-70b-versatile", "Llama 3.3 70B (Groq)", 131_072, 32_768, false, false, [0.59, 0.79, 0.0, 0.0]),
    ("groq", "moonshotai/kimi-k2-instruct-0905", "Kimi K2 (Groq)", 262_144, 16_384, false, false, [1.0, 3.0, 0.0, 0.0]),
    ("openrouter", "anthropic/claude-sonnet-4.5", "Claude Sonnet 4.5 (OpenRouter)", 1_000_000, 64_000, true, true, [3.0, 15.0, 0.3, 3.75]),
    ("openrouter", "openai/gpt-5", "GPT-5 (OpenRouter)", 400_000, 128_000, true, true, [1.25, 10.0, 0.125, 0.0]),
    ("openrouter", "moonshotai/kimi-k2", "Kimi K2 (OpenRouter)", 131_072, 16_384, false, false, [0.5, 2.4, 0.0, 0.0]),
    ("deepseek", "deepseek-chat", "DeepSeek Chat", 128_000, 8_192, false, false, [0.28, 0.42, 0.028, 0.0]),
    ("deepseek", "deepseek-reasoner", "DeepSeek Reasoner", 128_000, 64_000, true, false, [0.28, 0.42, 0.028, 0.0]),
    ("xai", "grok-4", "Grok 4", 256_000, 64_000, true, true, [3.0, 15.0, 0.75, 0.0]),
    ("xai", "grok-code-fast-1", "Grok Code Fast 1", 256_000, 10_000, true, false, [0.2, 1.5, 0.02, 0.0]),
    ("mistral", "devstral-medium-latest", "Devstral Medium", 128_000, 32_768, false, false, [0.4, 2.0, 0.0, 0.0]),
    ("mistral", "codestral-latest", "Codestral", 256_000, 32_768, false, false, [0.3, 0.9, 0.0, 0.0]),
];

impl Registry {
    /// The built-in providers and models.
    pub fn builtin() -> Registry {
        let providers = BUILTIN_PROVIDERS
            .iter()
            .map(|(name, url, api)| ProviderEntry {
                name: (*name).into(),
                base_url: (*url).into(),
                api: (*api).into(),
                api_key: None,
                headers: Vec::new(),
                compat: Value::Null,
            })
            .collect();
        let mut registry = Registry {
            providers,
            models: Vec::new(),
            model_compat: Vec::new(),
        };
        for (provider, id, name, context, max, reasoning, images, [i, o, cr, cw]) in BUILTIN_MODELS
        {
            let entry = registry
                .provider(provider)
                .cloned()
                .expect("built-in provider");
            registry.models.push(ModelInfo {
                id: (*id).into(),
                name: (*name).into(),
                api: entry.api,
                provider: (*provider).into(),
                base_url: entry.base_url,
                context_window: *context,
                context_window_assumed: false,
                max_tokens: *max,
                reasoning: *reasoning,
                accepts_images: *images,
                price: Price {
                    input: *i,
                    output: *o,
                    cache_read: *cr,
                    cache_write: *cw,
                },
            });
        }
        registry
    }

    /// The built-in registry plus `config_dir/models.json` when that file exists.
    /// A file that exists but is broken is an error naming the file and the place.
    ///
    /// # Errors
    ///
    /// `models.json` exists but cannot be read, is not JSON, or holds a bad value: the message
    /// names the file and the place.
    pub fn load(config_dir: &Path) -> Result<Registry, String> {
        let mut registry = Registry::builtin();
        let path = config_dir.join("models.json");
        match std::fs::read_to_string(&path) {
            Ok(text) => registry
                .merge_models_json(&text)
                .map_err(|e| format!("{}: {e}", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        }
        Ok(registry)
    }

    /// Merges a models.json document: new providers are added; for a known
    /// provider, `baseUrl`/`api`/`apiKey`/`headers` override and `models` are
    /// upserted by id. Errors name the JSON path (`providers.ollama.models[0].id`).
    ///
    /// # Errors
    ///
    /// A value of the wrong type or a model without an id: the message names its JSON path.
    pub fn merge_models_json(&mut self, text: &str) -> Result<(), String> {
        let doc = parse_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let Some(providers) = doc["providers"].as_object() else {
            return Err("expected an object at `providers`".into());
        };
        for (name, config) in providers.iter() {
            let at = format!("providers.{name}");
            if config.as_object().is_none() {
                return Err(format!("{at}: expected an object"));
            }
            let string = |key: &str| -> Result<Option<String>, String> {
                match &config[key] {
                    Value::Null => Ok(None),
                    Value::String(s) => Ok(Some(s.clone())),
                    other => Err(format!(
                        "{at}.{key}: expected a string, found {}",
                        other.type_name()
                    )),
                }
            };
            let base_url = string("baseUrl")?;
            let api = string("api")?;
            if let Some(api) = &api {
                if !crate::decode::APIS.contains(&api.as_str()) {
                    return Err(format!(
                        "{at}.api: unknown API {api:?} (expected one of {})",
                        crate::decode::APIS.join(", ")
                    ));
                }
            }
            let api_key = string("apiKey")?;
            let mut headers = Vec::new();
            if let Some(h) = config["headers"].as_object() {
                for (k, v) in h.iter() {
                    let v = v
                        .as_str()
                        .ok_or_else(|| format!("{at}.headers.{k}: expected a string"))?;
                    headers.push((k.to_string(), v.to_string()));
                }
            }
            let compat = config["compat"].clone();
            if !compat.is_null() {
                crate::compat::compat_for(&ModelInfo::default())
                    .with_overrides(&compat)
                    .map_err(|e| format!("{at}.{e}"))?;
            }
            let entry = match self.providers.iter_mut().find(|p| p.name == name) {
                Some(existing) => {
                    if let Some(u) = base_url {
                        existing.base_url = u;
                    }
                    if let Some(a) = api {
                        existing.api = a;
                    }
                    if api_key.is_some() {
                        existing.api_key = api_key;
                    }
                    existing.headers.extend(headers);
                    if !compat.is_null() {
                        existing.compat = compat;
                    }
                    existing.clone()
                }
                None => {
                    let base_url = base_url
                        .ok_or_else(|| format!("{at}.baseUrl: required for a new provider"))?;
                    let api =
                        api.ok_or_else(|| format!("{at}.api: required for a new provider"))?;
                    let entry = ProviderEntry {
                        name: name.to_string(),
                        base_url,
                        api,
                        api_key,
                        headers,
                        compat,
                    };
                    self.providers.push(entry.clone());
                    entry
                }
            };
            // The provider's URL and API apply to its existing models too.
            for m in self.models.iter_mut().filter(|m| m.provider == name) {
                m.base_url = entry.base_url.clone();
                m.api = entry.api.clone();
            }
            let models = match &config["models"] {
                Value::Null => continue,
                Value::Array(a) => a,
                other => {
                    return Err(format!(
                        "{at}.models: expected an array, found {}",
                        other.type_name()
                    ))
                }
            };
            for (i, m) in models.iter().enumerate() {
                let model = parse_model(m, &entry).map_err(|e| format!("{at}.models[{i}]{e}"))?;
                if !m["compat"].is_null() {
                    crate::compat::compat_for(&model)
                        .with_overrides(&m["compat"])
                        .map_err(|e| format!("{at}.models[{i}].{e}"))?;
                    let key = (model.provider.clone(), model.id.clone());
                    self.model_compat.retain(|(k, _)| *k != key);
                    self.model_compat.push((key, m["compat"].clone()));
                }
                match self
                    .models
                    .iter_mut()
                    .find(|x| x.provider == model.provider && x.id == model.id)
                {
                    Some(existing) => *existing = model,
                    None => self.models.push(model),
                }
            }
        }
        Ok(())
    }

    /// Every model, built-in first, in registry order.
    pub fn models(&self) -> &[ModelInfo] {
        &self.models
    }

    /// Every provider entry (built-in first, then models.json additions).
    pub fn providers(&self) -> &[ProviderEntry] {
        &self.providers
    }

    /// A provider entry by name.
    pub fn provider(&self, name: &str) -> Option<&ProviderEntry> {
        self.providers.iter().find(|p| p.name == name)
    }

    /// Models whose `provider/id` or name contains every word of `query`
    /// (case-insensitive). An empty query matches all.
    pub fn search(&self, query: &str) -> Vec<&ModelInfo> {
        let words: Vec<String> = query
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        self.models
            .iter()
            .filter(|m| {
                let hay = format!("{}/{} {}", m.provider, m.id, m.name).to_ascii_lowercase();
                words.iter().all(|w| hay.contains(w.as_str()))
            })
            .collect()
    }

    /// Finds a model by `provider/id` or by bare id. A bare id held by several
    /// providers is an error listing them.
    ///
    /// # Errors
    ///
    /// No model matches, or a bare id matches models of several providers (the message lists them).
    pub fn find(&self, spec: &str) -> Result<&ModelInfo, String> {
        if let Some((provider, id)) = spec.split_once('/') {
            if let Some(m) = self
                .models
                .iter()
                .find(|m| m.provider == provider && m.id == id)
            {
                return Ok(m);
            }
        }
        let matches: Vec<&ModelInfo> = self.models.iter().filter(|m| m.id == spec).collect();
        match matches.as_slice() {
            [one] => Ok(one),
            [] => {
                let close: Vec<String> = self
                    .search(spec.rsplit('/').next().unwrap_or(spec))
                    .iter()
                    .take(5)
                    .map(|m| format!("{}/{}", m.provider, m.id))
                    .collect();
                if close.is_empty() {
                    Err(format!("no model {spec:?} (list models with --list-models, or add it to models.json)"))
                } else {
                    Err(format!(
                        "no model {spec:?}; did you mean {}?",
                        close.join(", ")
                    ))
                }
            }
            many => Err(format!(
                "model id {spec:?} is offered by several providers; say which: {}",
                many.iter()
                    .map(|m| format!("{}/{}", m.provider, m.id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The key for `provider`, from the process environment.
    pub fn api_key(&self, provider: &str) -> Option<ApiKey> {
        self.api_key_with(provider, &focus_sys::secrets::var)
    }

    /// The key for `provider`, reading variables through `env`: models.json's
    /// `apiKey` first (a variable's value when a variable of that name is set, else
    /// the literal), then the conventional variables.
    pub fn api_key_with(
        &self,
        provider: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<ApiKey> {
        if let Some(value) = self.provider(provider).and_then(|p| p.api_key.as_deref()) {
            let key = resolve_value(value, env);
            return (!key.is_empty()).then(|| ApiKey::new(key));
        }
        env_vars_for(provider)
            .iter()
            .find_map(|var| env(var).filter(|v| !v.trim().is_empty()))
            .map(|v| ApiKey::new(v.trim()))
    }

    /// Every environment variable a key or header value may come from: the
    /// conventional names of the built-in providers, and each `apiKey` or header
    /// value of models.json that names a variable. focus hides them all from
    /// the processes it starts (and from `/proc`: see `focus_sys::secrets`).
    pub fn key_variable_names(&self) -> Vec<String> {
        const BUILT_IN: &[&str] = &[
            "anthropic",
            "openai",
            "google",
            "groq",
            "openrouter",
            "deepseek",
            "xai",
            "mistral",
            "cerebras",
            "zai",
            "huggingface",
        ];
        let mut names: Vec<String> = BUILT_IN
            .iter()
            .flat_map(|p| env_vars_for(p).iter().map(|v| v.to_string()))
            .collect();
        for entry in &self.providers {
            names.extend(env_vars_for(&entry.name).iter().map(|v| v.to_string()));
            let values = entry
                .api_key
                .iter()
                .chain(entry.headers.iter().map(|(_, v)| v));
            names.extend(values.filter(|v| looks_like_variable(v)).cloned());
        }
        names.sort();
        names.dedup();
        names
    }

    /// Extra headers for `provider`, values resolved like `apiKey`.
    pub fn headers_for(&self, provider: &str) -> Vec<(String, String)> {
        let env = focus_sys::secrets::var;
        self.provider(provider)
            .map(|p| {
                p.headers
                    .iter()
                    .map(|(k, v)| (k.clone(), resolve_value(v, &env)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A ready provider for `model` over `transport`, with its key from
    /// [`Registry::api_key`] (local servers work without one).
    pub fn provider_for(
        &self,
        model: &ModelInfo,
        transport: Arc<dyn Transport>,
    ) -> Arc<dyn Provider> {
        Arc::new(self.http_provider_for(model, transport))
    }

    /// Like [`Registry::provider_for`], but the concrete type, for callers that
    /// set a retry policy or observer before sharing it.
    pub fn http_provider_for(
        &self,
        model: &ModelInfo,
        transport: Arc<dyn Transport>,
    ) -> HttpProvider {
        HttpProvider::new(model.clone(), self.api_key(&model.provider), transport)
            .with_headers(self.headers_for(&model.provider))
            .with_compat(self.compat_for(model))
    }

    /// The Chat Completions quirks for `model`: the table's row, then the
    /// provider's models.json `compat`, then the model's (validated at load).
    pub fn compat_for(&self, model: &ModelInfo) -> crate::compat::Compat {
        let mut compat = crate::compat::compat_for(model);
        let provider = self.provider(&model.provider).map(|p| &p.compat);
        let own = self
            .model_compat
            .iter()
            .find(|((p, id), _)| *p == model.provider && *id == model.id)
            .map(|(_, v)| v);
        for overrides in [provider, own].into_iter().flatten() {
            if !overrides.is_null() {
                compat = compat.with_overrides(overrides).unwrap_or(compat);
            }
        }
        compat
    }
}

/// pi's rule for `apiKey`/header values: `!command` runs the command with `sh -c`
/// and uses its trimmed output (empty when it fails: the key then reads as
/// missing); the value of the variable of that name when it is set; else the text
/// itself.
fn resolve_value(value: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    if let Some(command) = value.strip_prefix('!') {
        return run_key_command(command, KEY_COMMAND_TIMEOUT).unwrap_or_default();
    }
    match looks_like_variable(value).then(|| env(value)).flatten() {
        Some(v) => v,
        None => value.to_string(),
    }
}

/// Whether an `apiKey` or header value is spelled like a variable name
/// (`MY_KEY`): upper-case letters, digits and underscores.
fn looks_like_variable(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// How long a `!command` key lookup (a password manager, say) may take.
const KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs a `!command` from models.json and returns its trimmed stdout, or `None`
/// when it fails, prints nothing or outlives `timeout` (it is then
/// killed: a hanging helper must not hang focus).
fn run_key_command(command: &str, timeout: Duration) -> Option<String> {
    use focus_sys::process::{sh, Ending, Job};
    // In focus's own process group: a helper may prompt on the terminal.
    let outcome = Job::new(sh(command))
        .in_our_group()
        .keep(MAX_KEY_OUTPUT)
        .run_with_deadline(std::time::Instant::now() + timeout, || {
            std::ops::ControlFlow::Continue(())
        })
        .ok()?;
    let Ending::Exited(status) = outcome.ending else {
        return None;
    };
    let text = String::from_utf8_lossy(&outcome.stdout).trim().to_string();
    (status.success() && !text.is_empty()).then_some(text)
}

/// The most a `!command` may print that is kept (a key is far shorter).
const MAX_KEY_OUTPUT: usize = 1024 * 1024;

fn parse_model(m: &Value, provider: &ProviderEntry) -> Result<ModelInfo, String> {
    let id = m["id"].as_str().ok_or(".id: required string")?;
    let num = |key: &str, default: u64| -> Result<u64, String> {
        match &m[key] {
            Value::Null => Ok(default),
            v => v
                .as_u64()
                .ok_or_else(|| format!(".{key}: expected a whole number")),
        }
    };
    let cost = &m["cost"];
    let price = |key: &str| cost[key].as_f64().unwrap_or(0.0);
    let accepts_images = match &m["input"] {
        Value::Array(kinds) => kinds.iter().any(|k| k.as_str() == Some("image")),
        Value::Null => false,
        _ => return Err(".input: expected an array like [\"text\", \"image\"]".into()),
    };
    Ok(ModelInfo {
        id: id.to_string(),
        name: m["name"].as_str().unwrap_or(id).to_string(),
        api: m["api"].as_str().unwrap_or(&provider.api).to_string(),
        provider: provider.name.clone(),
        base_url: m["baseUrl"]
            .as_str()
            .unwrap_or(&provider.base_url)
            .to_string(),
        context_window: num("contextWindow", 128_000)?,
        context_window_assumed: m["contextWindow"].is_null(),
        max_tokens: num("maxTokens", 16_384)?,
        reasoning: m["reasoning"].as_bool().unwrap_or(false),
        accepts_images,
        price: Price {
            input: price("input"),
            output: price("output"),
            cache_read: price("cacheRead"),
            cache_write: price("cacheWrite"),
        },
    })
}

/// Fills `usage.cost` from per-million prices.
pub fn apply_cost(usage: &mut Usage, price: &Price) {
    let c = &mut usage.cost;
    c.input = price.input * usage.input as f64 / 1e6;
    c.output = price.output * usage.output as f64 / 1e6;
    c.cache_read = price.cache_read * usage.cache_read as f64 / 1e6;
    c.cache_write = price.cache_write * usage.cache_write as f64 / 1e6;
    c.total = c.input + c.output + c.cache_read + c.cache_write;
}

#[cfg(test)]
mod tests {

    #[test]
    fn key_commands_give_their_output_and_a_hanging_one_is_killed() {
        let quick = Duration::from_millis(300);
        assert_eq!(
            run_key_command("echo ' sk-from-helper '", quick).as_deref(),
            Some("sk-from-helper")
        );
        assert_eq!(run_key_command("exit 3", quick), None);
        let started = std::time::Instant::now();
        assert_eq!(run_key_command("sleep 20; echo late", quick), None);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the hanging command was not killed"
        );
    }

    use super::*;

    #[test]
    fn builtin_models_are_found_by_spec_and_id() {
        let r = Registry::builtin();
        assert_eq!(
            r.find("anthropic/claude-sonnet-4-5").unwrap().api,
            "anthropic-messages"
        );
        assert_eq!(r.find("gpt-4o").unwrap().provider, "openai");
        assert_eq!(
            r.find("openrouter/openai/gpt-5").unwrap().provider,
            "openrouter"
        );
        assert!(r.find("nope-model").unwrap_err().contains("no model"));
        assert!(r.search("gemini flash").len() >= 2);
        for m in r.models() {
            assert!(crate::decode::APIS.contains(&m.api.as_str()), "{}", m.id);
        }
    }

    #[test]
    fn models_json_adds_a_local_server_and_keys_resolve() {
        let mut r = Registry::builtin();
        r.merge_models_json(
            r#"{"providers":{"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","apiKey":"MY_OLLAMA_KEY",
               "models":[{"id":"llama3.2","input":["text","image"]}]},
               "anthropic":{"apiKey":"literal-key"}}}"#,
        )
        .unwrap();
        let m = r.find("ollama/llama3.2").unwrap();
        assert_eq!(
            (m.context_window, m.max_tokens, m.accepts_images),
            (128_000, 16_384, true)
        );
        let env = |name: &str| (name == "MY_OLLAMA_KEY").then(|| "from-env".to_string());
        assert_eq!(r.api_key_with("ollama", &env).unwrap().expose(), "from-env");
        assert_eq!(
            r.api_key_with("anthropic", &env).unwrap().expose(),
            "literal-key"
        );
        r.merge_models_json(r#"{"providers":{"xai":{"apiKey":"!printf ' cmd-key\\n'"},"mistral":{"apiKey":"!exit 3"}}}"#)
            .unwrap();
        assert_eq!(r.api_key_with("xai", &env).unwrap().expose(), "cmd-key");
        assert!(
            r.api_key_with("mistral", &env).is_none(),
            "a failing command gives no key"
        );
        let env2 = |name: &str| (name == "GROQ_API_KEY").then(|| "g".to_string());
        assert_eq!(r.api_key_with("groq", &env2).unwrap().expose(), "g");
        assert!(r.api_key_with("openai", &env2).is_none());
        assert!(!format!("{r:?}").contains("literal-key"));
    }

    #[test]
    fn models_json_compat_overrides_the_table_row() {
        let mut r = Registry::builtin();
        r.merge_models_json(
            r#"{"providers":{"box":{"baseUrl":"http://box:9000/v1","api":"openai-completions",
               "compat":{"supportsUsageInStreaming":false},
               "models":[{"id":"m1"},{"id":"m2","compat":{"maxTokensField":"max_completion_tokens"}}]}}}"#,
        )
        .unwrap();
        let m1 = r.compat_for(r.find("box/m1").unwrap());
        let m2 = r.compat_for(r.find("box/m2").unwrap());
        assert!(!m1.usage_in_streaming && !m2.usage_in_streaming);
        assert_eq!(
            (m1.max_tokens_field, m2.max_tokens_field),
            ("max_tokens", "max_completion_tokens")
        );
        let e = r
            .merge_models_json(r#"{"providers":{"box":{"models":[{"id":"m3","compat":{"thinkingFormat":"magic"}}]}}}"#)
            .unwrap_err();
        assert!(
            e.starts_with("providers.box.models[0].compat.thinkingFormat"),
            "{e}"
        );
    }

    #[test]
    fn the_documented_local_server_example_loads() {
        // The example in docs/providers.md.
        let mut r = Registry::builtin();
        r.merge_models_json(
            r#"{"providers": {
  "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
             "models": [{"id": "qwen3:8b", "contextWindow": 40960, "reasoning": true}]},
  "llama.cpp": {"baseUrl": "http://127.0.0.1:8080/v1", "api": "openai-completions",
                "models": [{"id": "local", "contextWindow": 32768, "maxTokens": 8192}]},
  "work-proxy": {"baseUrl": "https://llm.internal/v1", "api": "openai-completions",
                 "apiKey": "WORK_LLM_TOKEN", "compat": {"supportsUsageInStreaming": false},
                 "models": [{"id": "big-model", "input": ["text", "image"],
                             "cost": {"input": 1, "output": 3}}]}}}"#,
        )
        .unwrap();
        assert!(r.find("ollama/qwen3:8b").unwrap().reasoning);
        assert_eq!(
            r.compat_for(r.find("llama.cpp/local").unwrap()).server,
            "llama.cpp"
        );
        let proxy = r.find("big-model").unwrap();
        assert!(proxy.accepts_images && proxy.price.output == 3.0);
        assert!(r.api_key_with("ollama", &|_| None).is_none());
    }

    #[test]
    fn broken_models_json_names_the_place() {
        let mut r = Registry::builtin();
        let e = r
            .merge_models_json(r#"{"providers":{"x":{"baseUrl":"u","api":"openai-completions","models":[{"name":"n"}]}}}"#)
            .unwrap_err();
        assert_eq!(e, "providers.x.models[0].id: required string");
        let e = r
            .merge_models_json(r#"{"providers":{"x":{"baseUrl":"u","api":"soap"}}}"#)
            .unwrap_err();
        assert!(e.starts_with("providers.x.api: unknown API"), "{e}");
    }
}
