//! A model switch and the thinking level that goes with it, as in pi: a
//! switch to a reasoning model while thinking is off turns thinking on at the
//! default level (`defaultThinkingLevel`, else `medium`); otherwise the level
//! stays (a model that does not reason is sent none, and the level is there
//! again when the next switch goes back to one that does). Interactive
//! mode's `/model` (and its picker) and the model cycle (Ctrl+P, when the
//! pattern gives no level) switch through [`switch`].

use crate::engine::Engine;
use focus_core::provider::{Provider, ThinkingLevel};
use std::path::Path;
use std::sync::Arc;

/// The thinking level after switching from `current` to a model that reasons
/// (`reasoning`) or not; `default` is the `defaultThinkingLevel` setting.
pub fn level_after_switch(
    current: ThinkingLevel,
    reasoning: bool,
    default: Option<ThinkingLevel>,
) -> ThinkingLevel {
    match (reasoning, current) {
        (true, ThinkingLevel::Off) => default
            .filter(|level| *level != ThinkingLevel::Off)
            .unwrap_or(ThinkingLevel::Medium),
        (_, level) => level,
    }
}

/// Switches `engine` to `provider`, with thinking at `explicit` when given,
/// else at [`level_after_switch`]'s level (the default read from the settings
/// of `cwd`); both changes are recorded in the session.
pub fn switch(
    engine: &mut Engine,
    provider: Arc<dyn Provider>,
    explicit: Option<ThinkingLevel>,
    cwd: &Path,
) {
    let reasoning = provider.model().reasoning;
    engine.conversation.switch_model(provider);
    let level = explicit.unwrap_or_else(|| {
        let default =
            focus_harness::settings::load_settings(&focus_harness::session::focus_home(), cwd)
                .ok()
                .and_then(|loaded| loaded.settings.default_thinking_level);
        level_after_switch(
            engine.conversation.config.options.thinking,
            reasoning,
            default,
        )
    });
    engine.conversation.set_thinking(level);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ThinkingLevel::*;

    #[test]
    fn a_reasoning_model_thinks_at_the_default_level() {
        assert_eq!(level_after_switch(Off, true, None), Medium);
        assert_eq!(level_after_switch(Off, true, Some(High)), High);
        assert_eq!(level_after_switch(Off, true, Some(Off)), Medium);
        assert_eq!(level_after_switch(Low, true, Some(High)), Low, "kept");
        assert_eq!(level_after_switch(High, false, None), High, "kept");
        assert_eq!(level_after_switch(Off, false, Some(High)), Off);
    }
}
