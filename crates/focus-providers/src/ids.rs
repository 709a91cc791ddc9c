//! Tool-call id rules: each API accepts ids of its own shape, and a history may hold
//! ids minted by another (after switching models mid-session).
//!
//! - Anthropic: `^[a-zA-Z0-9_-]+$`, at most 64 characters.
//! - OpenAI Chat Completions: at most 40 characters (longer ids are rejected).
//! - OpenAI Responses: focus stores a Responses call as `call_id|item_id`; the
//!   `call_id` part (at most 64 characters) is what pairs a call with its output.
//! - Mistral: exactly 9 characters from `[a-zA-Z0-9]`.
//! - Gemini: any string (ids are optional there).
//!
//! [`IdMap`] rewrites ids consistently (a call and its result get the same new id)
//! and keeps them unique.

use std::collections::HashMap;

/// How tool-call ids must look for one API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdRule {
    /// `[a-zA-Z0-9_-]{1,64}`.
    Anthropic,
    /// The part before `|`, at most 40 characters.
    OpenAiChat,
    /// `call_id|item_id` kept; the call id part sanitized to 64 characters.
    OpenAiResponses,
    /// Nine alphanumeric characters.
    Mistral,
    /// Anything goes.
    Any,
}

impl IdRule {
    /// The rule for a wire API name.
    pub fn for_api(api: &str) -> IdRule {
        match api {
            "anthropic-messages" => IdRule::Anthropic,
            "openai-completions" => IdRule::OpenAiChat,
            "openai-responses" => IdRule::OpenAiResponses,
            _ => IdRule::Any,
        }
    }

    /// Rewrites one id to this rule (without the uniqueness step).
    pub fn apply(self, id: &str) -> String {
        let safe = |s: &str, max: usize| -> String {
            let mut out: String = s
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(max)
                .collect();
            if out.is_empty() {
                out.push_str("call");
            }
            out
        };
        match self {
            IdRule::Anthropic => safe(id, 64),
            IdRule::OpenAiChat => {
                let call = id.split('|').next().unwrap_or(id);
                let mut out: String = call.chars().take(40).collect();
                if out.is_empty() {
                    out.push_str("call");
                }
                out
            }
            IdRule::OpenAiResponses => match id.split_once('|') {
                Some((call, item)) => format!("{}|{item}", safe(call, 64)),
                None => safe(id, 64),
            },
            IdRule::Mistral => {
                let mut out: String = id
                    .split('|')
                    .next()
                    .unwrap_or(id)
                    .chars()
                    .filter(char::is_ascii_alphanumeric)
                    .collect();
                if out.len() > 9 {
                    out = out[out.len() - 9..].to_string();
                }
                while out.len() < 9 {
                    out.push('0');
                }
                out
            }
            IdRule::Any => id.to_string(),
        }
    }
}

/// Rewrites ids to a rule, remembering each mapping so results follow their calls,
/// and appending a counter when two different ids would collide.
#[derive(Debug)]
pub struct IdMap {
    rule: IdRule,
    mapped: HashMap<String, String>,
    used: HashMap<String, String>,
}

impl IdMap {
    /// An empty map for `rule`.
    pub fn new(rule: IdRule) -> IdMap {
        IdMap {
            rule,
            mapped: HashMap::new(),
            used: HashMap::new(),
        }
    }

    /// The rewritten form of `id` (the same answer every time for the same `id`).
    pub fn map(&mut self, id: &str) -> String {
        if let Some(done) = self.mapped.get(id) {
            return done.clone();
        }
        let mut candidate = self.rule.apply(id);
        let mut n = 1;
        while self.used.get(&candidate).is_some_and(|orig| orig != id) {
            n += 1;
            let base: Vec<char> = self.rule.apply(id).chars().collect();
            // Keep the length limit: the suffix replaces the end of the id.
            let (suffix, max) = match self.rule {
                IdRule::Mistral => (n.to_string(), 9),
                IdRule::OpenAiChat => (format!("_{n}"), 40),
                IdRule::Anthropic | IdRule::OpenAiResponses => (format!("_{n}"), 64),
                IdRule::Any => (format!("_{n}"), usize::MAX),
            };
            let keep = base.len().min(max.saturating_sub(suffix.len()));
            candidate = base[..keep].iter().collect::<String>() + &suffix;
        }
        self.used.insert(candidate.clone(), id.to_string());
        self.mapped.insert(id.to_string(), candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_shape_ids() {
        assert_eq!(IdRule::Anthropic.apply("llm_version:0"), "llm_version_0");
        assert_eq!(IdRule::Anthropic.apply(&"x".repeat(80)).len(), 64);
        assert_eq!(IdRule::OpenAiChat.apply("call_a|fc_b"), "call_a");
        assert_eq!(IdRule::OpenAiResponses.apply("a:b|fc_1"), "a_b|fc_1");
        let m = IdRule::Mistral.apply("toolu_01NRLabsLyVHZPKxbKvkfSMn");
        assert_eq!(m, "xbKvkfSMn");
        assert_eq!(IdRule::Mistral.apply("a"), "a00000000");
    }

    #[test]
    fn collision_suffixes_respect_length_and_characters() {
        let mut map = IdMap::new(IdRule::OpenAiChat);
        let long = "é".repeat(40);
        let a = map.map(&format!("{long}|x"));
        let b = map.map(&format!("{long}|y"));
        assert_ne!(a, b);
        assert!(b.chars().count() <= 40 && b.ends_with("_2"), "{b}");
        let mut m = IdMap::new(IdRule::Mistral);
        let ids: Vec<String> = (0..120)
            .map(|i| m.map(&format!("same-prefix-{i:03}xx")))
            .collect();
        assert!(ids
            .iter()
            .all(|id| id.len() == 9 && id.chars().all(|c| c.is_ascii_alphanumeric())));
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
    }

    #[test]
    fn collisions_get_distinct_ids_and_mapping_is_stable() {
        let mut map = IdMap::new(IdRule::Anthropic);
        let a = map.map("x:1");
        let b = map.map("x/1");
        assert_ne!(a, b);
        assert_eq!(map.map("x:1"), a);
    }
}
