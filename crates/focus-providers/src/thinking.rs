//! Thinking levels and output caps shared by the request builders: how many tokens
//! each level may spend thinking, and the output cap to request.

use focus_core::provider::{ModelInfo, RequestOptions, ThinkingLevel};

/// The thinking token budget for a level (pi's defaults: 1024 / 2048 / 8192 /
/// 16384, `xhigh` = `high`); `None` when thinking is off.
pub fn budget(level: ThinkingLevel) -> Option<u64> {
    match level {
        ThinkingLevel::Off => None,
        ThinkingLevel::Minimal => Some(1024),
        ThinkingLevel::Low => Some(2048),
        ThinkingLevel::Medium => Some(8192),
        ThinkingLevel::High | ThinkingLevel::XHigh => Some(16384),
    }
}

/// The output cap to request: the caller's, else the model's capped at 32000 (a
/// model's full output limit makes some servers reserve that much context), else
/// 4096 for a model that does not say.
pub fn max_tokens(model: &ModelInfo, options: &RequestOptions) -> u64 {
    options.max_tokens.unwrap_or(match model.max_tokens {
        0 => 4096,
        n => n.min(32000),
    })
}

/// The OpenAI-style effort word for a level (`None` when off). `xhigh` is kept only
/// when `xhigh_ok`, else it becomes `high`.
pub fn effort(level: ThinkingLevel, xhigh_ok: bool) -> Option<&'static str> {
    match level {
        ThinkingLevel::Off => None,
        ThinkingLevel::XHigh if xhigh_ok => Some("xhigh"),
        ThinkingLevel::XHigh => Some("high"),
        other => Some(other.as_str()),
    }
}

/// Whether an OpenAI model accepts the `xhigh` effort (pi's `supportsXhigh`).
pub fn supports_xhigh(model_id: &str) -> bool {
    ["gpt-5.2", "gpt-5.3", "gpt-5.4", "gpt-5.5"]
        .iter()
        .any(|m| model_id.contains(m))
}

/// The effort that comes closest to "off" on an OpenAI reasoning model, which
/// reasons at medium effort when none is given: `none` from GPT-5.1 on, `minimal`
/// on GPT-5; `None` (send nothing) for other models.
pub fn off_effort(model_id: &str) -> Option<&'static str> {
    let id = model_id.rsplit('/').next().unwrap_or(model_id);
    let rest = id.strip_prefix("gpt-5")?;
    if rest.starts_with('.') {
        Some("none")
    } else {
        Some("minimal")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_maps_to_the_least_effort_a_model_knows() {
        assert_eq!(off_effort("gpt-5.5"), Some("none"));
        assert_eq!(off_effort("openai/gpt-5.1-codex"), Some("none"));
        assert_eq!(off_effort("gpt-5-mini"), Some("minimal"));
        assert_eq!(off_effort("o4-mini"), None);
        assert_eq!(effort(ThinkingLevel::XHigh, false), Some("high"));
    }
}
