//! ANSI styles: none for output that is not a terminal, so pipes and files get
//! plain text; attributes without colors for `NO_COLOR` (<https://no-color.org>
//! asks for no *color*: bold, dim and italic still tell a heading, thinking and a
//! note apart). Colours come from a [`Theme`] at the terminal's [`Depth`];
//! outside the interactive mode that is the dark theme's 16 basic colours.

use crate::theme::{Depth, Theme, DARK};

/// Which styles to emit on one stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Whether escape codes are written at all (bold, dim, italic).
    pub enabled: bool,
    /// Whether colors are written too.
    pub color: bool,
    /// Where the colours come from.
    pub theme: &'static Theme,
    /// How many colours the terminal shows.
    pub depth: Depth,
}

impl Style {
    /// Styles for descriptor `fd`: on when it is a terminal; colors too when
    /// `NO_COLOR` is unset or empty.
    pub fn for_fd(fd: i32) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let enabled = crate::terminal::is_tty(fd);
        Style {
            enabled,
            color: enabled && !no_color,
            theme: &DARK,
            depth: Depth::Basic,
        }
    }

    /// These styles with `theme`'s colours at `depth`.
    pub fn themed(self, theme: &'static Theme, depth: Depth) -> Style {
        Style {
            theme,
            depth,
            ..self
        }
    }

    /// No styles at all.
    pub const PLAIN: Style = Style {
        enabled: false,
        color: false,
        theme: &DARK,
        depth: Depth::Basic,
    };

    /// Attributes and colors.
    pub const COLOR: Style = Style {
        enabled: true,
        color: true,
        theme: &DARK,
        depth: Depth::Basic,
    };

    /// Attributes only (`NO_COLOR` on a terminal).
    pub const NO_COLOR: Style = Style {
        enabled: true,
        color: false,
        theme: &DARK,
        depth: Depth::Basic,
    };

    /// `text` in the theme's colour of slot `slot` (see [`crate::theme::SLOTS`]).
    fn paint(self, slot: usize, text: &str) -> String {
        if self.color {
            let sgr = self.theme.sgr(slot, self.depth);
            let mut out = String::with_capacity(text.len() + sgr.len() + 7);
            out.push_str("\x1b[");
            out.push_str(&sgr);
            out.push('m');
            out.push_str(text);
            out.push_str("\x1b[0m");
            out
        } else {
            text.to_string()
        }
    }

    fn wrap(self, code: &str, text: &str) -> String {
        if self.enabled {
            let mut out = String::with_capacity(text.len() + code.len() + 7);
            out.push_str("\x1b[");
            out.push_str(code);
            out.push('m');
            out.push_str(text);
            out.push_str("\x1b[0m");
            out
        } else {
            text.to_string()
        }
    }

    /// Bold.
    pub fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    /// Dim (thinking, secondary information).
    pub fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    /// Italic.
    pub fn italic(self, text: &str) -> String {
        self.wrap("3", text)
    }

    /// The theme's `error` colour (red).
    pub fn red(self, text: &str) -> String {
        self.paint(0, text)
    }

    /// The theme's `success` colour (green).
    pub fn green(self, text: &str) -> String {
        self.paint(1, text)
    }

    /// The theme's `warning` colour (yellow: warnings, approvals).
    pub fn yellow(self, text: &str) -> String {
        self.paint(2, text)
    }

    /// The theme's `accent` colour (blue: tool headers).
    pub fn blue(self, text: &str) -> String {
        self.paint(3, text)
    }

    /// The theme's `code` colour (cyan).
    pub fn cyan(self, text: &str) -> String {
        self.paint(4, text)
    }

    /// The theme's `keyword` colour (magenta: keywords in code).
    pub fn magenta(self, text: &str) -> String {
        self.paint(5, text)
    }

    /// Underlined (top headings, links).
    pub fn underline(self, text: &str) -> String {
        self.wrap("4", text)
    }

    /// The raw code to start a style, or "" when disabled (for streaming output
    /// where the end comes later).
    pub fn start(self, code: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m")
        } else {
            String::new()
        }
    }

    /// The reset code, or "" when disabled.
    pub fn reset(self) -> &'static str {
        if self.enabled {
            "\x1b[0m"
        } else {
            ""
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_style_writes_no_escapes() {
        assert_eq!(Style::PLAIN.bold("x"), "x");
        assert_eq!(Style::PLAIN.start("1"), "");
        assert_eq!(Style::COLOR.red("e"), "\x1b[31me\x1b[0m");
        assert_eq!(Style::NO_COLOR.red("e"), "e");
        assert_eq!(Style::NO_COLOR.bold("e"), "\x1b[1me\x1b[0m");
    }
}
