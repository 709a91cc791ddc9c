//! Modest Markdown for a terminal, one complete line at a time (the answer streams,
//! so a line is styled once its newline arrives): fenced code blocks in color,
//! headings and `**bold**` in bold, `` `code` `` in color, list bullets as `•`.

use crate::terminal::style::Style;

/// Line-by-line Markdown styling with the code-fence state carried between lines.
#[derive(Clone, Debug, Default)]
pub struct Markdown {
    in_code: bool,
}

impl Markdown {
    /// A renderer outside any code block.
    pub fn new() -> Markdown {
        Markdown::default()
    }

    /// Whether the last line left a fenced code block open.
    pub fn in_code(&self) -> bool {
        self.in_code
    }

    /// Forgets the code-fence state (a new message starts).
    pub fn reset(&mut self) {
        self.in_code = false;
    }

    /// Styles one complete line (without its newline).
    pub fn line(&mut self, line: &str, style: Style) -> String {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            self.in_code = !self.in_code;
            let lang = trimmed.trim_start_matches('`').trim();
            return if self.in_code {
                style.dim(&format!("┌─ {lang}"))
            } else {
                style.dim("└─")
            };
        }
        if self.in_code {
            return format!("{} {}", style.dim("│"), style.cyan(line));
        }
        if let Some(heading) = heading_text(trimmed) {
            return style.bold(heading);
        }
        let indent = &line[..line.len() - trimmed.len()];
        for bullet in ["- ", "* ", "+ "] {
            if let Some(rest) = trimmed.strip_prefix(bullet) {
                return format!("{indent}• {}", inline(rest, style));
            }
        }
        inline(line, style)
    }
}

/// The text of an ATX heading (`# Title` … `###### Title`).
fn heading_text(line: &str) -> Option<&str> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        Some(line[hashes..].trim())
    } else {
        None
    }
}

/// `**bold**` and `` `code` `` inside a line; unmatched markers stay as typed.
pub fn inline(text: &str, style: Style) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("**") {
            if let Some(end) = after.find("**") {
                if end > 0 {
                    out.push_str(&style.bold(&after[..end]));
                    rest = &after[end + 2..];
                    continue;
                }
            }
        }
        if let Some(after) = rest.strip_prefix('`') {
            if let Some(end) = after.find('`') {
                if end > 0 {
                    out.push_str(&style.cyan(&after[..end]));
                    rest = &after[end + 1..];
                    continue;
                }
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_rendering_of_each_construct() {
        let plain = Style::PLAIN;
        let mut md = Markdown::new();
        assert_eq!(md.line("## Title", plain), "Title");
        assert_eq!(md.line("  - item **b**", plain), "  • item b");
        assert_eq!(md.line("```rust", plain), "┌─ rust");
        assert_eq!(md.line("let **x** = 1;", plain), "│ let **x** = 1;");
        assert_eq!(md.line("```", plain), "└─");
        assert_eq!(md.line("use `x` and ** alone", plain), "use x and ** alone");
    }

    #[test]
    fn styled_bold_and_code() {
        let on = Style { enabled: true };
        assert_eq!(inline("a **b**", on), "a \x1b[1mb\x1b[0m");
        assert_eq!(inline("`c`", on), "\x1b[36mc\x1b[0m");
    }
}
