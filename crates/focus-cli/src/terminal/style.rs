//! ANSI styles, switched off for `NO_COLOR` (<https://no-color.org>) and for output
//! that is not a terminal, so pipes and files get plain text.

/// Which styles to emit on one stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Whether escape codes are written at all.
    pub enabled: bool,
}

impl Style {
    /// Styles for descriptor `fd`: on when it is a terminal and `NO_COLOR` is unset
    /// or empty.
    pub fn for_fd(fd: i32) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            enabled: !no_color && super::is_tty(fd),
        }
    }

    /// No styles at all.
    pub const PLAIN: Style = Style { enabled: false };

    fn wrap(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
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

    /// Red (errors).
    pub fn red(self, text: &str) -> String {
        self.wrap("31", text)
    }

    /// Green (success).
    pub fn green(self, text: &str) -> String {
        self.wrap("32", text)
    }

    /// Yellow (warnings, approvals).
    pub fn yellow(self, text: &str) -> String {
        self.wrap("33", text)
    }

    /// Blue (tool headers).
    pub fn blue(self, text: &str) -> String {
        self.wrap("34", text)
    }

    /// Cyan (code).
    pub fn cyan(self, text: &str) -> String {
        self.wrap("36", text)
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
        let on = Style { enabled: true };
        assert_eq!(on.red("e"), "\x1b[31me\x1b[0m");
    }
}
