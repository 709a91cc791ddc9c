//! Whether links are written as OSC 8 hyperlinks, decided from the
//! environment alone (no terminfo: it has no entry for OSC 8, and focus reads
//! no database): `FOCUS_HYPERLINKS=1` or `0` decides; `NO_COLOR` means plain
//! text; inside tmux or screen (which may drop them or pass them to a terminal
//! that does not show them) plain text; else the terminals known to show them
//! (iTerm2, WezTerm, VS Code, Ghostty, kitty, Windows Terminal, VTE 0.50+).
//! Plain text shows a link as `text (url)`.

/// [`supported_in`] for the process's environment.
pub fn supported() -> bool {
    supported_in(&|name| std::env::var(name).unwrap_or_default())
}

/// Whether an environment read by `var` (unset reads as empty) shows OSC 8
/// hyperlinks.
pub fn supported_in(var: &dyn Fn(&str) -> String) -> bool {
    match var("FOCUS_HYPERLINKS").as_str() {
        "1" => return true,
        "0" => return false,
        _ => {}
    }
    if !var("NO_COLOR").is_empty() || !var("TMUX").is_empty() || var("TERM").starts_with("screen") {
        return false;
    }
    matches!(
        var("TERM_PROGRAM").as_str(),
        "iTerm.app" | "WezTerm" | "vscode" | "ghostty"
    ) || !var("KITTY_WINDOW_ID").is_empty()
        || !var("WT_SESSION").is_empty()
        || var("VTE_VERSION").parse::<u32>().is_ok_and(|v| v >= 5000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> String + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map_or(String::new(), |(_, v)| v.to_string())
        }
    }

    #[test]
    fn known_terminals_outside_tmux_without_no_color() {
        assert!(supported_in(&env(&[("TERM_PROGRAM", "WezTerm")])));
        assert!(supported_in(&env(&[("VTE_VERSION", "7600")])));
        assert!(!supported_in(&env(&[("VTE_VERSION", "4200")])));
        assert!(!supported_in(&env(&[("TERM", "xterm-256color")])));
        assert!(!supported_in(&env(&[
            ("TERM_PROGRAM", "WezTerm"),
            ("NO_COLOR", "1")
        ])));
        assert!(!supported_in(&env(&[
            ("KITTY_WINDOW_ID", "1"),
            ("TMUX", "/tmp/tmux-0/default,1,0")
        ])));
        assert!(!supported_in(&env(&[
            ("TERM", "screen-256color"),
            ("WT_SESSION", "x")
        ])));
        assert!(supported_in(&env(&[
            ("TMUX", "x"),
            ("FOCUS_HYPERLINKS", "1")
        ])));
        assert!(!supported_in(&env(&[
            ("TERM_PROGRAM", "vscode"),
            ("FOCUS_HYPERLINKS", "0")
        ])));
    }
}
