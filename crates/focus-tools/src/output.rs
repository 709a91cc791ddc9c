//! Caps and cleaning for everything a tool returns.
//!
//! **Why cap?** Every byte a tool returns is read by the model on every later
//! turn of the conversation: a 5 MB log dumped once costs its tokens again and
//! again, crowds out the code that matters, and can overflow the context window
//! outright. So output is cut at [`MAX_LINES`] lines or [`MAX_BYTES`] bytes,
//! whichever comes first (pi's numbers), and the cut is never silent: a note says
//! what was dropped and exactly how to get it (`Use offset=2001 to continue.`,
//! or the path of a file holding the full output).
//!
//! Files keep their head ([`truncate_head`]: the start of a file is where a
//! reader begins); command output keeps its tail ([`truncate_tail`]: errors and
//! summaries come last).
//!
//! **Why sanitise?** Tool output is also printed to the user's terminal. A stray
//! escape sequence from a binary-ish file or a coloured build log can move the
//! cursor, change the title or hide text; [`sanitize`] removes ANSI sequences and
//! every control character except newline and tab.

use std::borrow::Cow;

use focus_core::char_boundary;

/// Most lines any tool returns.
pub const MAX_LINES: usize = 2000;
/// Most bytes any tool returns (50 KB).
pub const MAX_BYTES: usize = 50 * 1024;

/// What a truncation kept and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncated {
    /// The text kept.
    pub content: String,
    /// Whether anything was dropped.
    pub truncated: bool,
    /// Whether the byte cap (rather than the line cap) was the one hit.
    pub by_bytes: bool,
    /// Lines in the input.
    pub total_lines: usize,
    /// Complete lines kept.
    pub kept_lines: usize,
    /// (tail only) the first kept line was itself cut, keeping its end.
    pub partial_line: bool,
}

/// Splits into lines the way a reader counts them: `"a\nb\n"` is two lines,
/// `""` is zero.
pub fn lines_of(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// Keeps whole lines from the start until `max_lines` or `max_bytes` would be
/// exceeded. A first line longer than `max_bytes` yields empty content (the
/// caller explains how to read it another way).
pub fn truncate_head(text: &str, max_lines: usize, max_bytes: usize) -> Truncated {
    truncate_head_lines(&lines_of(text), max_lines, max_bytes)
}

/// [`truncate_head`] over lines already split. Counting stays with the caller's
/// lines even when one of them holds a `\n` (read shows a lone `\r` as a line
/// break, but the file still counts it as one line, and so must the offsets).
pub fn truncate_head_lines(
    lines: &[impl AsRef<str>],
    max_lines: usize,
    max_bytes: usize,
) -> Truncated {
    let total_lines = lines.len();
    let mut content = String::new();
    let mut kept_lines = 0;
    let mut by_bytes = false;
    for line in lines {
        let line = line.as_ref();
        if kept_lines == max_lines {
            break;
        }
        let extra = line.len() + usize::from(kept_lines > 0);
        if content.len() + extra > max_bytes {
            by_bytes = true;
            break;
        }
        if kept_lines > 0 {
            content.push('\n');
        }
        content.push_str(line);
        kept_lines += 1;
    }
    Truncated {
        truncated: kept_lines < total_lines,
        by_bytes,
        content,
        total_lines,
        kept_lines,
        partial_line: false,
    }
}

/// Keeps whole lines from the end until `max_lines` or `max_bytes` would be
/// exceeded; if even the last line is too long, keeps the end of it
/// (`partial_line`).
pub fn truncate_tail(text: &str, max_lines: usize, max_bytes: usize) -> Truncated {
    let lines = lines_of(text);
    let total_lines = lines.len();
    let mut kept: Vec<&str> = Vec::new();
    let mut size = 0;
    let mut by_bytes = false;
    let mut partial_line = false;
    for line in lines.iter().rev() {
        if kept.len() == max_lines {
            break;
        }
        let extra = line.len() + usize::from(!kept.is_empty());
        if size + extra > max_bytes {
            by_bytes = true;
            if kept.is_empty() {
                let start = char_boundary::ceil(line, line.len().saturating_sub(max_bytes));
                kept.push(&line[start..]);
                partial_line = true;
            }
            break;
        }
        size += extra;
        kept.push(line);
    }
    kept.reverse();
    let kept_lines = kept.len() - usize::from(partial_line);
    Truncated {
        truncated: kept_lines < total_lines,
        by_bytes,
        content: kept.join("\n"),
        total_lines,
        kept_lines,
        partial_line,
    }
}

/// Cuts a line longer than `max_chars` characters, marking how much was dropped.
pub fn cut_line(line: &str, max_chars: usize) -> Cow<'_, str> {
    if line.len() <= max_chars {
        return Cow::Borrowed(line);
    }
    match line.char_indices().nth(max_chars) {
        None => Cow::Borrowed(line),
        Some((cut, _)) => {
            let dropped = line[cut..].chars().count();
            Cow::Owned(format!("{}… [{dropped} more characters]", &line[..cut]))
        }
    }
}

/// `1536` → `"1.5KB"`: bytes as B, KB or MB with one decimal.
pub fn format_size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1}KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1}MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// Removes what would corrupt a terminal: ANSI escape sequences (CSI such as
/// colours, OSC such as window titles, and two-byte escapes), C0 control
/// characters other than `\n` and `\t`, DEL, and C1 controls. `\r\n` becomes
/// `\n`; a lone `\r` (progress bars) becomes `\n` so each update stays readable.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    // A byte check first (most text has nothing to remove): controls are below
    // 0x20, DEL is 0x7F, and the C1 controls (U+0080..U+009F) start with 0xC2.
    // Checked 32 bytes at a time without stopping early inside a chunk: the
    // compiler turns that into vector compares, several times faster than a
    // byte loop that can exit at every byte (this runs on every streamed delta).
    let suspect = |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f || b == 0xc2;
    let maybe = text
        .as_bytes()
        .chunks(32)
        .any(|chunk| chunk.iter().fold(false, |found, &b| found | suspect(b)));
    let needs_work = maybe
        && text
            .chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t') || c == '\u{1b}');
    if !needs_work {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\u{1b}' => skip_escape_sequence(&mut chars),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Consumes the rest of an escape sequence whose ESC was just read. A
/// sequence never runs past a line break: an unterminated one (a stray ESC in
/// a binary file, output cut mid-sequence) would otherwise swallow everything
/// after it, and the model would never see the error printed at the end.
fn skip_escape_sequence(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.peek() {
        // CSI: parameters and intermediates, then one final byte in @..~.
        Some('[') => {
            chars.next();
            while let Some(c) = chars.next_if(|&c| c != '\n') {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
        // OSC, DCS, SOS, PM, APC: a string ended by BEL or ESC \.
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            while let Some(c) = chars.next_if(|&c| c != '\n') {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        // A two-character escape such as ESC c or ESC 7.
        Some(c) if *c != '\n' => {
            chars.next();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_keeps_whole_lines_and_reports_which_cap_hit() {
        let text = "a\nbb\nccc\n";
        let t = truncate_head(text, 2, 100);
        assert_eq!(
            (t.content.as_str(), t.truncated, t.by_bytes),
            ("a\nbb", true, false)
        );
        assert_eq!((t.total_lines, t.kept_lines), (3, 2));
        let t = truncate_head(text, 10, 5);
        assert_eq!(
            (t.content.as_str(), t.by_bytes, t.kept_lines),
            ("a\nbb", true, 2)
        );
        let t = truncate_head(text, 10, 100);
        assert!(!t.truncated);
        let t = truncate_head("toolong\nx", 10, 3);
        assert_eq!((t.content.as_str(), t.kept_lines), ("", 0));
    }

    #[test]
    fn tail_keeps_the_end_and_may_cut_the_first_kept_line() {
        let t = truncate_tail("1\n2\n3\n4", 2, 100);
        assert_eq!(
            (t.content.as_str(), t.kept_lines, t.total_lines),
            ("3\n4", 2, 4)
        );
        let t = truncate_tail("short\nééééé", 10, 5);
        assert!(t.partial_line && t.by_bytes && t.truncated);
        assert!(t.content.len() <= 5 && "ééééé".ends_with(&t.content));
    }

    #[test]
    fn long_lines_are_cut_with_a_marker() {
        assert_eq!(cut_line("abcdef", 3), "abc… [3 more characters]");
        assert_eq!(cut_line("ééé", 3), "ééé");
        assert_eq!(format_size(51200), "50.0KB");
        assert_eq!(format_size(10), "10B");
        assert_eq!(format_size(3 * 1024 * 1024), "3.0MB");
    }

    #[test]
    fn sanitize_finds_controls_behind_the_byte_check() {
        assert!(matches!(sanitize("plain é 中 text\n\t"), Cow::Borrowed(_)));
        assert_eq!(sanitize("a\u{85}b\u{9b}c\x7fd"), "abcd");
        assert_eq!(sanitize("Â©\u{c2}x"), "Â©\u{c2}x");
    }

    #[test]
    fn control_characters_and_escapes_are_removed() {
        assert_eq!(sanitize("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(sanitize("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(sanitize("\u{1b}]0;title\u{7}after"), "after");
        assert_eq!(sanitize("\u{1b}]8;;x\u{1b}\\link"), "link");
        assert_eq!(sanitize("a\u{0}b\u{8}c\u{7f}d\u{9b}e"), "abcde");
        assert_eq!(sanitize("crlf\r\nline"), "crlf\nline");
        assert_eq!(sanitize("10%\r20%"), "10%\n20%");
        assert_eq!(sanitize("end\u{1b}"), "end");
        // An unterminated sequence ends at the line break; the next line stays.
        assert_eq!(sanitize("a\u{1b}]0;title\nerror: kept"), "a\nerror: kept");
        assert_eq!(sanitize("a\u{1b}[12\nkept"), "a\nkept");
        assert_eq!(sanitize("a\u{1b}\nkept"), "a\nkept");
    }
}
