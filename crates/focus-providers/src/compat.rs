//! Per-server quirks of the OpenAI Chat Completions dialect, in ONE table.
//!
//! Many servers speak "OpenAI-compatible" Chat Completions, each a little
//! differently. Rather than `if provider == …` scattered through the request builder,
//! [`COMPAT_TABLE`] lists every known server once, matched by provider name or by a
//! piece of the base URL; [`compat_for`] picks the first matching row, and the
//! builder reads flags from the [`Compat`] it returns.

use focus_core::provider::ModelInfo;

use focus_core::json::Value;

/// How a server wants thinking switched on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThinkingFormat {
    /// `reasoning_effort: "low" | "medium" | "high"`.
    ReasoningEffort,
    /// `thinking: {type: "enabled" | "disabled"}` (Z.ai GLM).
    ZaiThinking,
    /// `enable_thinking: bool` (Qwen on DashScope and friends).
    EnableThinking,
    /// OpenRouter's unified `reasoning: {effort}` object.
    OpenRouter,
    /// The server has no knob (thinking is a property of the model).
    None,
}

/// One server's quirks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compat {
    /// A name for docs and debugging.
    pub server: &'static str,
    /// The output-cap field: `max_completion_tokens` (OpenAI) or `max_tokens`.
    pub max_tokens_field: &'static str,
    /// Whether `store: false` may be sent.
    pub supports_store: bool,
    /// Whether reasoning models take the system prompt as role `developer`.
    pub supports_developer_role: bool,
    /// How thinking is switched on.
    pub thinking: ThinkingFormat,
    /// Whether `stream_options: {include_usage: true}` is understood.
    pub usage_in_streaming: bool,
    /// Whether tool results need a `name` field.
    pub tool_result_name: bool,
    /// Whether tool-call ids must be Mistral's nine alphanumerics.
    pub mistral_ids: bool,
    /// Whether earlier reasoning goes back under its field (`reasoning_content`)
    /// on assistant messages (DeepSeek needs it around tool calls).
    pub replay_reasoning: bool,
    /// Whether an assistant message with only tool calls says `"content": null`.
    /// By default `content` is left out there, as the OpenAI SDK does: every
    /// compatible server accepts that, while llama.cpp and llama-cpp-python answer
    /// HTTP 500 to `null` (models.json `compat.supportsNullContent: true` asks for it).
    pub null_content: bool,
}

/// A plain compatible server: the conservative choices every server accepts.
const GENERIC: Compat = Compat {
    server: "generic",
    max_tokens_field: "max_tokens",
    supports_store: false,
    supports_developer_role: false,
    thinking: ThinkingFormat::ReasoningEffort,
    usage_in_streaming: true,
    tool_result_name: false,
    mistral_ids: false,
    replay_reasoning: false,
    null_content: false,
};

/// OpenAI's own API: a plain server plus the newer fields only it accepts.
const OPENAI: Compat = Compat {
    server: "openai",
    max_tokens_field: "max_completion_tokens",
    supports_store: true,
    supports_developer_role: true,
    ..GENERIC
};

/// How a row is recognised.
#[derive(Clone, Copy, Debug)]
pub struct Matcher {
    /// Provider names (as in the registry or models.json) that select this row.
    pub providers: &'static [&'static str],
    /// Pieces of the base URL that select this row.
    pub url_contains: &'static [&'static str],
}

/// Every known server, first match wins; the last row is the fallback.
pub const COMPAT_TABLE: &[(Matcher, Compat)] = &[
    (
        Matcher {
            providers: &["openai"],
            url_contains: &["api.openai.com"],
        },
        OPENAI,
    ),
    (
        Matcher {
            providers: &["openrouter"],
            url_contains: &["openrouter.ai"],
        },
        Compat {
            server: "openrouter",
            thinking: ThinkingFormat::OpenRouter,
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["groq"],
            url_contains: &["api.groq.com"],
        },
        Compat {
            server: "groq",
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["deepseek"],
            url_contains: &["api.deepseek.com"],
        },
        Compat {
            server: "deepseek",
            thinking: ThinkingFormat::None,
            replay_reasoning: true,
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["xai"],
            url_contains: &["api.x.ai"],
        },
        Compat {
            server: "xai",
            thinking: ThinkingFormat::None,
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["mistral"],
            url_contains: &["api.mistral.ai"],
        },
        Compat {
            server: "mistral",
            thinking: ThinkingFormat::None,
            mistral_ids: true,
            tool_result_name: true,
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["zai"],
            url_contains: &["api.z.ai", "bigmodel.cn"],
        },
        Compat {
            server: "zai",
            thinking: ThinkingFormat::ZaiThinking,
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["cerebras"],
            url_contains: &["api.cerebras.ai"],
        },
        Compat {
            server: "cerebras",
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["qwen", "dashscope"],
            url_contains: &["dashscope"],
        },
        Compat {
            server: "qwen",
            thinking: ThinkingFormat::EnableThinking,
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["ollama"],
            url_contains: &[":11434"],
        },
        Compat {
            server: "ollama",
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["llama.cpp", "llamacpp", "llama-cpp"],
            url_contains: &[":8080"],
        },
        Compat {
            server: "llama.cpp",
            thinking: ThinkingFormat::None,
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["vllm"],
            url_contains: &[":8000"],
        },
        Compat {
            server: "vllm",
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &["huggingface"],
            url_contains: &["router.huggingface.co"],
        },
        Compat {
            server: "huggingface",
            ..GENERIC
        },
    ),
    (
        Matcher {
            providers: &[],
            url_contains: &[],
        },
        GENERIC,
    ),
];

/// The quirks for `model`'s server: by provider name first, then by base URL.
pub fn compat_for(model: &ModelInfo) -> Compat {
    let provider = model.provider.to_ascii_lowercase();
    let url = model.base_url.to_ascii_lowercase();
    COMPAT_TABLE
        .iter()
        .find(|(m, _)| m.providers.iter().any(|p| *p == provider))
        .or_else(|| {
            COMPAT_TABLE
                .iter()
                .find(|(m, _)| m.url_contains.iter().any(|u| url.contains(u)))
        })
        .map_or(GENERIC, |(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(provider: &str, url: &str) -> ModelInfo {
        ModelInfo {
            provider: provider.into(),
            base_url: url.into(),
            ..Default::default()
        }
    }

    #[test]
    fn rows_match_by_name_then_url() {
        assert_eq!(
            compat_for(&model("openai", "https://proxy")).server,
            "openai"
        );
        assert_eq!(
            compat_for(&model("local", "http://localhost:11434/v1")).server,
            "ollama"
        );
        assert_eq!(compat_for(&model("x", "http://h/v1")).server, "generic");
        assert_eq!(
            compat_for(&model("deepseek", "")).max_tokens_field,
            "max_tokens"
        );
        assert!(compat_for(&model("mistral", "")).mistral_ids);
    }
}

impl Compat {
    /// Applies a models.json `compat` object (pi's keys: `supportsStore`,
    /// `supportsDeveloperRole`, `supportsReasoningEffort`, `supportsUsageInStreaming`,
    /// `maxTokensField`, `thinkingFormat` = `openai`/`openrouter`/`zai`/`qwen`/`none`,
    /// `requiresToolResultName`). Unknown keys are ignored, as pi does; a bad value is
    /// an error naming the key.
    pub fn with_overrides(mut self, overrides: &Value) -> Result<Compat, String> {
        let Some(o) = overrides.as_object() else {
            return Err("compat: expected an object".into());
        };
        let flag = |key: &str| -> Result<Option<bool>, String> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Bool(b)) => Ok(Some(*b)),
                Some(other) => Err(format!(
                    "compat.{key}: expected true or false, found {}",
                    other.type_name()
                )),
            }
        };
        if let Some(b) = flag("supportsStore")? {
            self.supports_store = b;
        }
        if let Some(b) = flag("supportsDeveloperRole")? {
            self.supports_developer_role = b;
        }
        if let Some(b) = flag("supportsUsageInStreaming")? {
            self.usage_in_streaming = b;
        }
        if let Some(b) = flag("requiresToolResultName")? {
            self.tool_result_name = b;
        }
        if let Some(b) = flag("supportsNullContent")? {
            self.null_content = b;
        }
        if flag("supportsReasoningEffort")? == Some(false)
            && self.thinking == ThinkingFormat::ReasoningEffort
        {
            self.thinking = ThinkingFormat::None;
        }
        match o.get("maxTokensField").and_then(Value::as_str) {
            None => {}
            Some("max_tokens") => self.max_tokens_field = "max_tokens",
            Some("max_completion_tokens") => self.max_tokens_field = "max_completion_tokens",
            Some(other) => {
                return Err(format!(
                    "compat.maxTokensField: {other:?} is not max_tokens or max_completion_tokens"
                ))
            }
        }
        match o.get("thinkingFormat").and_then(Value::as_str) {
            None => {}
            Some("openai") => self.thinking = ThinkingFormat::ReasoningEffort,
            Some("openrouter") => self.thinking = ThinkingFormat::OpenRouter,
            Some("zai") => self.thinking = ThinkingFormat::ZaiThinking,
            Some("qwen") => self.thinking = ThinkingFormat::EnableThinking,
            Some("none") => self.thinking = ThinkingFormat::None,
            Some(other) => return Err(format!("compat.thinkingFormat: unknown {other:?} (expected openai, openrouter, zai, qwen or none)")),
        }
        Ok(self)
    }
}

#[cfg(test)]
mod override_tests {
    use super::*;
    use focus_core::json::parse_str;

    #[test]
    fn models_json_overrides_apply_and_bad_values_are_named() {
        let base = compat_for(&ModelInfo {
            provider: "openai".into(),
            ..Default::default()
        });
        let c = base
            .with_overrides(&parse_str(r#"{"supportsStore":false,"maxTokensField":"max_tokens","thinkingFormat":"qwen","unknown":1}"#).unwrap())
            .unwrap();
        assert!(!c.supports_store);
        assert_eq!(c.max_tokens_field, "max_tokens");
        assert_eq!(c.thinking, ThinkingFormat::EnableThinking);
        let e = base
            .with_overrides(&parse_str(r#"{"supportsStore":"no"}"#).unwrap())
            .unwrap_err();
        assert_eq!(
            e,
            "compat.supportsStore: expected true or false, found string"
        );
    }
}
