//! Scoped models, as pi has them: the `enabledModels` setting or the
//! `--models` flag lists model patterns, and Ctrl+P / Shift+Ctrl+P (RPC
//! `cycle_model`) step through the models they match instead of every usable
//! one.
//!
//! A pattern is matched as pi's `resolveModelScope` matches it:
//!
//! - with a glob character (`*`, `?`, `[`): every model whose `provider/id` or
//!   bare id the glob matches (case-insensitive; `*` does not cross `/`), so
//!   `anthropic/*` and `*sonnet*` both work; a `:level` at the end sets the
//!   thinking level of each;
//! - else `provider/id` exactly, an id exactly, or a part of an id or name
//!   (an alias such as `claude-sonnet-4-5` preferred to a dated
//!   `claude-sonnet-4-5-20250929`, else the latest date); a `:level` at the end
//!   sets the thinking level, and an id holding colons (`model:exacto`) is
//!   tried whole first.
//!
//! A pattern matching nothing is a warning, as in pi; the order of the list is
//! the order of the patterns, each model once.

use crate::choose::{ModelChoice, ModelSource};
use crate::engine::Engine;
use crate::seams;
use focus_core::provider::{ModelInfo, ThinkingLevel};
use focus_tools::glob::Glob;

/// A model of the scope, with the thinking level its pattern gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Scoped {
    /// The model.
    pub model: ModelInfo,
    /// The `:level` of its pattern; `None` keeps the current level.
    pub thinking: Option<ThinkingLevel>,
}

/// What a cycle step switched to.
#[derive(Clone, Debug, PartialEq)]
pub struct Cycled {
    /// The model now in use.
    pub model: ModelInfo,
    /// The thinking level now in use.
    pub thinking: ThinkingLevel,
    /// Whether it came from the scope (`enabledModels` / `--models`).
    pub scoped: bool,
}

/// The models `patterns` match among `models`, in the patterns' order, and a
/// warning for each pattern that matches nothing (or has a bad suffix).
pub fn resolve(patterns: &[String], models: &[ModelInfo]) -> (Vec<Scoped>, Vec<String>) {
    let mut scoped: Vec<Scoped> = Vec::new();
    let mut warnings = Vec::new();
    let mut add = |model: &ModelInfo, thinking: Option<ThinkingLevel>| {
        let known = scoped
            .iter()
            .any(|s| s.model.provider == model.provider && s.model.id == model.id);
        if !known {
            scoped.push(Scoped {
                model: model.clone(),
                thinking,
            });
        }
    };
    for pattern in patterns {
        if pattern.contains(['*', '?', '[']) {
            let (glob, thinking) = match pattern.rsplit_once(':') {
                Some((glob, level)) if ThinkingLevel::parse(level).is_some() => {
                    (glob, ThinkingLevel::parse(level))
                }
                _ => (pattern.as_str(), None),
            };
            let glob = match Glob::new(&glob.to_lowercase()) {
                Ok(glob) => glob,
                Err(error) => {
                    warnings.push(format!("model pattern {pattern:?}: {error}"));
                    continue;
                }
            };
            let matching: Vec<&ModelInfo> = models
                .iter()
                .filter(|m| {
                    let full = format!("{}/{}", m.provider, m.id).to_lowercase();
                    glob.is_match(&full) || glob.is_match(&m.id.to_lowercase())
                })
                .collect();
            if matching.is_empty() {
                warnings.push(format!("no models match pattern {pattern:?}"));
            }
            for model in matching {
                add(model, thinking);
            }
            continue;
        }
        let parsed = parse_pattern(pattern, models);
        warnings.extend(parsed.warning);
        match parsed.model {
            Some(model) => add(model, parsed.thinking),
            None => warnings.push(format!("no models match pattern {pattern:?}")),
        }
    }
    (scoped, warnings)
}

/// A pattern without glob characters, read.
struct Parsed<'a> {
    model: Option<&'a ModelInfo>,
    thinking: Option<ThinkingLevel>,
    warning: Option<String>,
}

/// pi's `parseModelPattern`: the whole pattern as a model, else the part
/// before its last colon with the part after as the thinking level.
fn parse_pattern<'a>(pattern: &str, models: &'a [ModelInfo]) -> Parsed<'a> {
    if let Some(model) = find_model(pattern, models) {
        return Parsed {
            model: Some(model),
            thinking: None,
            warning: None,
        };
    }
    let Some((prefix, suffix)) = pattern.rsplit_once(':') else {
        return Parsed {
            model: None,
            thinking: None,
            warning: None,
        };
    };
    let inner = parse_pattern(prefix, models);
    if inner.model.is_none() {
        return inner;
    }
    match ThinkingLevel::parse(suffix) {
        Some(level) => Parsed {
            thinking: if inner.warning.is_none() {
                Some(level)
            } else {
                None
            },
            ..inner
        },
        None => Parsed {
            thinking: None,
            warning: Some(format!(
                "invalid thinking level {suffix:?} in model pattern {pattern:?}; the current level is kept"
            )),
            ..inner
        },
    }
}

/// pi's `tryMatchModel`: `provider/id`, an id, or a part of an id or name
/// (case-insensitive), an alias preferred to a dated id.
fn find_model<'a>(pattern: &str, models: &'a [ModelInfo]) -> Option<&'a ModelInfo> {
    let lower = pattern.to_lowercase();
    if let Some((provider, id)) = lower.split_once('/') {
        let exact = models
            .iter()
            .find(|m| m.provider.to_lowercase() == provider && m.id.to_lowercase() == id);
        if exact.is_some() {
            return exact;
        }
    }
    if let Some(exact) = models.iter().find(|m| m.id.to_lowercase() == lower) {
        return Some(exact);
    }
    let matching: Vec<&ModelInfo> = models
        .iter()
        .filter(|m| m.id.to_lowercase().contains(&lower) || m.name.to_lowercase().contains(&lower))
        .collect();
    let aliases: Vec<&ModelInfo> = matching
        .iter()
        .copied()
        .filter(|m| is_alias(&m.id))
        .collect();
    let pool = if aliases.is_empty() {
        matching
    } else {
        aliases
    };
    pool.into_iter().max_by(|a, b| a.id.cmp(&b.id))
}

/// An id without a `-YYYYMMDD` date at its end (or ending in `-latest`).
fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let bytes = id.as_bytes();
    let dated = bytes.len() > 9
        && bytes[bytes.len() - 9] == b'-'
        && bytes[bytes.len() - 8..].iter().all(u8::is_ascii_digit);
    !dated
}

/// The models usable now: those of providers with an API key, and the demo.
pub fn usable_models() -> Result<Vec<ModelInfo>, String> {
    let registry = seams::registry()?;
    let keyed: Vec<String> = seams::keyed_providers(&registry)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    Ok(seams::list_models(&registry, None)
        .into_iter()
        .filter(|m| keyed.contains(&m.provider) || m.provider == crate::demo::DEMO_PROVIDER)
        .collect())
}

/// The first usable model `patterns` match (the model a new session starts
/// with when no flag names one, as in pi), and the warnings of the patterns.
pub fn first_in_scope(patterns: &[String]) -> Result<(Option<Scoped>, Vec<String>), String> {
    let (scoped, warnings) = resolve(patterns, &usable_models()?);
    Ok((scoped.into_iter().next(), warnings))
}

/// The models a cycle steps through: the scope's when `patterns` match any,
/// else every usable one; whether it is the scope; the warnings.
pub fn cycle_list(patterns: &[String]) -> Result<(Vec<Scoped>, bool, Vec<String>), String> {
    let usable = usable_models()?;
    let (scoped, warnings) = resolve(patterns, &usable);
    if !scoped.is_empty() {
        return Ok((scoped, true, warnings));
    }
    let all = usable
        .into_iter()
        .map(|model| Scoped {
            model,
            thinking: None,
        })
        .collect();
    Ok((all, false, warnings))
}

/// The entry after (or before, `backward`) the one named `provider/id` in
/// `list`, wrapping around; the first (last) when it is not in the list.
pub fn step<'a>(list: &'a [Scoped], current: (&str, &str), backward: bool) -> Option<&'a Scoped> {
    let len = list.len();
    let at = list
        .iter()
        .position(|s| s.model.provider == current.0 && s.model.id == current.1);
    let next = match (at, backward) {
        (Some(at), false) => (at + 1) % len.max(1),
        (Some(at), true) => (at + len - 1) % len.max(1),
        (None, false) => 0,
        (None, true) => len.checked_sub(1)?,
    };
    list.get(next)
}

/// Switches `engine` to the next (or previous) model of the cycle, with the
/// thinking level its pattern gives; both recorded in the session as
/// `model_change` and `thinking_level_change`. `None` when there is nothing
/// else to switch to (one model or none).
pub fn cycle(engine: &mut Engine, backward: bool) -> Result<Option<Cycled>, String> {
    let (list, scoped, _) = cycle_list(&engine.model_scope)?;
    let current = engine.conversation.config.provider.model().clone();
    let Some(next) = step(&list, (&current.provider, &current.id), backward) else {
        return Ok(None);
    };
    if next.model.provider == current.provider && next.model.id == current.id {
        return Ok(None);
    }
    let choice = if next.model.provider == crate::demo::DEMO_PROVIDER {
        ModelChoice::Demo
    } else {
        ModelChoice::Registered {
            provider: next.model.provider.clone(),
            model: next.model.id.clone(),
            source: ModelSource::Flags,
        }
    };
    let registry = seams::registry()?;
    let built = seams::build_provider(&choice, &registry, &engine.retry)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    crate::model_switch::switch(engine, built, next.thinking, &cwd);
    Ok(Some(Cycled {
        model: engine.conversation.config.provider.model().clone(),
        thinking: engine.conversation.config.options.thinking,
        scoped,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(provider: &str, id: &str) -> ModelInfo {
        ModelInfo {
            id: id.into(),
            name: id.into(),
            provider: provider.into(),
            ..ModelInfo::default()
        }
    }

    fn models() -> Vec<ModelInfo> {
        vec![
            model("anthropic", "claude-sonnet-4-5"),
            model("anthropic", "claude-sonnet-4-5-20250929"),
            model("anthropic", "claude-haiku-4-5-20251001"),
            model("anthropic", "claude-haiku-4-5-20241022"),
            model("openai", "gpt-5"),
            model("openrouter", "qwen/qwen3:exacto"),
        ]
    }

    fn names(patterns: &[&str]) -> (Vec<String>, Vec<String>) {
        let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        let (scoped, warnings) = resolve(&patterns, &models());
        let names = scoped
            .iter()
            .map(|s| {
                let level = s
                    .thinking
                    .map_or(String::new(), |l| format!(":{}", l.as_str()));
                format!("{}/{}{level}", s.model.provider, s.model.id)
            })
            .collect();
        (names, warnings)
    }

    #[test]
    fn globs_match_provider_slash_id_or_the_bare_id() {
        let (found, warnings) = names(&["anthropic/*sonnet*", "GPT-*:high"]);
        assert_eq!(
            found,
            [
                "anthropic/claude-sonnet-4-5",
                "anthropic/claude-sonnet-4-5-20250929",
                "openai/gpt-5:high"
            ]
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        // `*` does not cross `/`, but the bare id is tried too.
        assert_eq!(names(&["*/gpt-5"]).0, ["openai/gpt-5"]);
        assert_eq!(names(&["*/*exacto"]).0, ["openrouter/qwen/qwen3:exacto"]);
        let (none, warnings) = names(&["mistral/*"]);
        assert!(none.is_empty());
        assert_eq!(warnings, ["no models match pattern \"mistral/*\""]);
    }

    #[test]
    fn plain_patterns_are_exact_then_partial_preferring_aliases() {
        assert_eq!(
            names(&["anthropic/claude-sonnet-4-5-20250929"]).0,
            ["anthropic/claude-sonnet-4-5-20250929"]
        );
        assert_eq!(names(&["sonnet"]).0, ["anthropic/claude-sonnet-4-5"]);
        // No alias: the latest date.
        assert_eq!(names(&["haiku"]).0, ["anthropic/claude-haiku-4-5-20251001"]);
        assert_eq!(names(&["gpt-5:low"]).0, ["openai/gpt-5:low"]);
        // A colon that is part of the id is kept; a level after it is read.
        assert_eq!(
            names(&["qwen3:exacto", "qwen3:exacto:xhigh"]).0,
            ["openrouter/qwen/qwen3:exacto"]
        );
        assert_eq!(
            names(&["qwen3:exacto:xhigh"]).0,
            ["openrouter/qwen/qwen3:exacto:xhigh"]
        );
        let (found, warnings) = names(&["gpt-5:turbo", "nothing-like-it", "sonnet"]);
        assert_eq!(found, ["openai/gpt-5", "anthropic/claude-sonnet-4-5"]);
        assert!(
            warnings[0].contains("invalid thinking level \"turbo\""),
            "{warnings:?}"
        );
        assert_eq!(warnings[1], "no models match pattern \"nothing-like-it\"");
    }

    #[test]
    fn each_model_once_in_the_patterns_order() {
        assert_eq!(
            names(&["gpt-5", "anthropic/*", "claude-sonnet-4-5"]).0,
            [
                "openai/gpt-5",
                "anthropic/claude-sonnet-4-5",
                "anthropic/claude-sonnet-4-5-20250929",
                "anthropic/claude-haiku-4-5-20251001",
                "anthropic/claude-haiku-4-5-20241022",
            ]
        );
    }

    #[test]
    fn steps_wrap_both_ways() {
        let list: Vec<Scoped> = ["a", "b", "c"]
            .iter()
            .map(|id| Scoped {
                model: model("p", id),
                thinking: None,
            })
            .collect();
        let id = |s: Option<&Scoped>| s.map(|s| s.model.id.clone());
        assert_eq!(id(step(&list, ("p", "c"), false)).as_deref(), Some("a"));
        assert_eq!(id(step(&list, ("p", "a"), true)).as_deref(), Some("c"));
        assert_eq!(id(step(&list, ("p", "b"), true)).as_deref(), Some("a"));
        // Not in the list: the first forward, the last backward.
        assert_eq!(id(step(&list, ("q", "x"), false)).as_deref(), Some("a"));
        assert_eq!(id(step(&list, ("q", "x"), true)).as_deref(), Some("c"));
        assert_eq!(step(&[], ("p", "a"), true), None);
        assert_eq!(step(&[], ("p", "a"), false), None);
    }
}
