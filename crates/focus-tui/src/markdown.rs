//! Markdown for a terminal, one complete line at a time (the answer streams, so a
//! line is styled once its newline arrives), tables excepted (laid out once the
//! table ends): headings by level, `**bold**`, `*italic*`, `` `code` ``,
//! links (OSC 8 hyperlinks where the terminal shows them, else `text (url)`),
//! bullet and numbered lists, block quotes, rules, tables that wrap inside their cells (or turn into `header: value` blocks), and
//! fenced code with syntax highlighting ([`highlight`](crate::highlight)).
//! Tables are laid out by [`table`](crate::table) once they end.
//! Wrapping counts what shows, not the markup.

use crate::highlight::{highlight, Lang};
use crate::links::{file_url, find_links, osc8, Host, Resolve, Target};
use crate::printable::printable;
use crate::rows::{split_rows, wrap_styled};
use crate::style::Style;
use crate::width::visible_width;

/// Line-by-line Markdown styling with the code-fence state carried between lines.
#[derive(Clone, Debug, Default)]
pub struct Markdown {
    /// Inside a fenced code block: its language and fence.
    code: Option<(Lang, String)>,
    /// Links as OSC 8 hyperlinks.
    pub hyperlinks: bool,
    /// With hyperlinks: what finds the file a path in the text names, and
    /// the host of its `file://` URL (`None`: paths stay plain; bare URLs are
    /// linked either way).
    pub paths: Option<(Resolve, Host)>,
}

impl Markdown {
    /// A renderer outside any code block.
    pub fn new() -> Markdown {
        Markdown::default()
    }

    /// Whether the last line left a fenced code block open.
    pub fn in_code(&self) -> bool {
        self.code.is_some()
    }

    /// Forgets the code-fence state (a new message starts).
    pub fn reset(&mut self) {
        self.code = None;
    }

    /// Styles one complete line (without its newline), unwrapped.
    pub fn line(&mut self, line: &str, style: Style) -> String {
        self.rows(line, style, usize::MAX / 4).join("\n")
    }

    /// Styles one complete line (not a table row) into rows of `width` columns,
    /// for a width of 6 or more (a quote's or a list's marker and one wide
    /// character; the screen asks for 20 at least).
    /// Control characters in `line` are dropped first (the callers pass the
    /// model's text sanitized already; a byte scan then finds nothing to do), so
    /// no row carries an escape of the text's own or counts one as columns.
    pub fn rows(&mut self, line: &str, style: Style, width: usize) -> Vec<String> {
        let clean = printable(line);
        // A lone `\r` comes back as a line break: inside one line, a space.
        let line = &*match clean {
            std::borrow::Cow::Owned(text) if text.contains('\n') => text.replace('\n', " ").into(),
            clean => clean,
        };
        let trimmed = line.trim_start();
        if let Some((_, fence)) = &self.code {
            if trimmed.starts_with(fence.as_str()) && trimmed.trim_matches(['`', '~']).is_empty() {
                self.code = None;
                return vec![style.dim("└─")];
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let fence: String = trimmed
                .chars()
                .take_while(|&c| c == '`' || c == '~')
                .collect();
            let info = trimmed[fence.len()..].trim();
            self.code = Some((Lang::from_fence(info), fence));
            return split_rows(&style.dim(&format!("┌─ {info}")), width);
        }
        if let Some((lang, _)) = &self.code {
            // Code is cut, not word-wrapped.
            let text = format!("{} {}", style.dim("│"), highlight(line, *lang, style));
            return split_rows(&text, width);
        }
        let indent = &line[..line.len() - trimmed.len()];
        if let Some((level, text)) = heading(trimmed) {
            let text = self.inline_styled(text, style);
            let shown = match level {
                1 => style.bold(&style.underline(&text)),
                2 => style.bold(&text),
                _ => style.bold(&style.italic(&text)),
            };
            return wrap_styled(shown, width, "");
        }
        if is_rule(trimmed) {
            return vec![style.dim(&"─".repeat(width.min(60)))];
        }
        if let Some(quoted) = trimmed.strip_prefix('>') {
            let marker = style.dim("│ ");
            let text = self.inline_styled(quoted.trim_start(), style);
            let first = format!("{indent}{marker}{}", style.italic(&text));
            let lead = format!("{indent}{marker}");
            return wrap_styled(first, width, &lead);
        }
        if let Some((bullet, rest)) = list_item(trimmed) {
            let first = format!("{indent}{bullet} {}", self.inline_styled(rest, style));
            let lead = " ".repeat(indent.len() + visible_width(&bullet) + 1);
            return wrap_styled(first, width, &lead);
        }
        wrap_styled(self.inline_styled(line, style), width, "")
    }

    /// [`inline_linked`] with this renderer's link settings.
    fn inline_styled(&self, text: &str, style: Style) -> String {
        let links = self.hyperlinks.then_some(self.paths);
        inline_linked(text, style, links)
    }
}

/// The level and text of an ATX heading (`# Title` … `###### Title`).
fn heading(line: &str) -> Option<(usize, &str)> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        Some((hashes, line[hashes..].trim()))
    } else {
        None
    }
}

/// `---`, `***`, `___` (three or more, spaces allowed).
fn is_rule(line: &str) -> bool {
    let mut marker = None;
    let mut count = 0;
    for c in line.chars().filter(|c| !c.is_whitespace()) {
        match marker {
            None if matches!(c, '-' | '*' | '_') => marker = Some(c),
            Some(m) if m == c => {}
            _ => return false,
        }
        count += 1;
    }
    count >= 3
}

/// A list item's marker as shown (`•` for bullets, `3.` kept) and its text.
fn list_item(line: &str) -> Option<(String, &str)> {
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return Some(("•".into(), rest));
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let after = &line[digits..];
        for end in [". ", ") "] {
            if let Some(rest) = after.strip_prefix(end) {
                return Some((line[..digits + 1].to_string(), rest));
            }
        }
    }
    None
}

/// Whether a line is a row of a table (`| a | b |`).
pub fn is_table_row(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.len() > 1
}

/// `**bold**`, `*italic*`/`_italic_`, `` `code` `` and `[links](url)` inside a
/// line, links as `text (url)`; unmatched markers stay as typed.
pub fn inline(text: &str, style: Style) -> String {
    inline_with(text, style, false)
}

/// [`inline`], links as OSC 8 hyperlinks when `hyperlinks` (bare URLs too).
pub fn inline_with(text: &str, style: Style, hyperlinks: bool) -> String {
    inline_linked(text, style, hyperlinks.then_some(None))
}

/// [`inline`]; with `links` (`Some`), links as OSC 8 hyperlinks: Markdown
/// links, bare URLs, and the paths the resolver inside (if any) finds.
pub fn inline_linked(text: &str, style: Style, links: Option<Option<(Resolve, Host)>>) -> String {
    let hyperlinks = links.is_some();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut previous = ' ';
    while !rest.is_empty() {
        // A bare URL or a path starting a word is linked whole (underscores
        // and stars in it are not markup).
        if let Some(paths) = links.filter(|_| !previous.is_alphanumeric()) {
            if let Some((linked, used)) = bare_link(rest, paths) {
                out.push_str(&linked);
                previous = rest[..used].chars().next_back().unwrap_or(previous);
                rest = &rest[used..];
                continue;
            }
        }
        // Text up to the next character that may open markup (or, with
        // links, through the next space: each word is looked at) is copied
        // as is.
        let plain = if hyperlinks {
            match rest.find(['*', '_', '`', '[', ' ']) {
                Some(at) if rest.as_bytes()[at] == b' ' => at + 1,
                Some(at) => at,
                None => rest.len(),
            }
        } else {
            rest.find(['*', '_', '`', '[']).unwrap_or(rest.len())
        };
        if plain > 0 {
            out.push_str(&rest[..plain]);
            previous = rest[..plain].chars().next_back().unwrap_or(previous);
            rest = &rest[plain..];
            continue;
        }
        if let Some(after) = rest.strip_prefix("**") {
            if let Some(end) = after.find("**") {
                if end > 0 {
                    out.push_str(&style.bold(&inline_linked(&after[..end], style, links)));
                    rest = &after[end + 2..];
                    previous = '*';
                    continue;
                }
            }
        }
        if let Some(after) = rest.strip_prefix('`') {
            if let Some(end) = after.find('`') {
                if end > 0 {
                    let code = style.cyan(&after[..end]);
                    let linked = links.and_then(|paths| whole_link(&after[..end], paths));
                    match linked.and_then(|target| osc8(&target, &code)) {
                        Some(linked) => out.push_str(&linked),
                        None => out.push_str(&code),
                    }
                    rest = &after[end + 1..];
                    previous = '`';
                    continue;
                }
            }
        }
        if let Some((text, used)) = italic(rest, previous) {
            out.push_str(&style.italic(&inline_linked(text, style, links)));
            rest = &rest[used..];
            previous = '*';
            continue;
        }
        if let Some(after) = rest.strip_prefix('[') {
            if let Some((label, url, used)) = link(after) {
                let label = inline_linked(label, style, None);
                let linked = osc8(url, &style.underline(&label)).filter(|_| hyperlinks);
                if let Some(linked) = linked {
                    out.push_str(&linked);
                } else if visible_width(&label) == url.chars().count() && label.contains(url) {
                    out.push_str(&style.underline(&label));
                } else {
                    out.push_str(&format!(
                        "{} {}",
                        style.underline(&label),
                        style.dim(&format!("({url})"))
                    ));
                }
                rest = &after[used..];
                previous = ')';
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        previous = c;
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The link target of a found link: a URL as it is, a path through `paths`.
fn target_of(target: &Target, paths: Option<(Resolve, Host)>) -> Option<String> {
    match target {
        Target::Url(url) => Some(url.clone()),
        Target::Path(path) => {
            let (resolve, host) = paths?;
            Some(file_url(host.as_str(), resolve(path)?.to_str()?))
        }
    }
}

/// A URL or an existing path at the start of `rest` (after opening quotes or
/// brackets), as a hyperlink with what came before it, and the bytes used.
fn bare_link(rest: &str, paths: Option<(Resolve, Host)>) -> Option<(String, usize)> {
    let word = &rest[..rest.find(' ').unwrap_or(rest.len())];
    // A URL has `/` and a path `/` or `.`: most words have neither.
    if !word.bytes().any(|b| b == b'/' || b == b'.') {
        return None;
    }
    let first = find_links(word).into_iter().next()?;
    let before = &word[..first.start];
    if !before.chars().all(|c| "([{<\"'".contains(c)) {
        return None;
    }
    let target = target_of(&first.target, paths)?;
    let linked = osc8(&target, &word[first.start..first.end])?;
    Some((format!("{before}{linked}"), first.end))
}

/// The target when all of `text` is one link (`` `src/main.rs:3` ``).
fn whole_link(text: &str, paths: Option<(Resolve, Host)>) -> Option<String> {
    let found = find_links(text);
    match &found[..] {
        [only] if only.start == 0 && only.end == text.len() => target_of(&only.target, paths),
        _ => None,
    }
}

/// `*italic*` or `_italic_` at the start of `rest`: the marker opens only after
/// a non-word character and before a non-space, and closes before a non-word
/// character (so `a * b` and `snake_case` stay as typed). The text and the bytes
/// used.
fn italic(rest: &str, previous: char) -> Option<(&str, usize)> {
    let marker = rest.chars().next().filter(|c| *c == '*' || *c == '_')?;
    if previous.is_alphanumeric() {
        return None;
    }
    let after = &rest[1..];
    if !after.starts_with(|c: char| !c.is_whitespace() && c != marker) {
        return None;
    }
    let end = after.find(marker)?;
    let closes = after[end + 1..]
        .chars()
        .next()
        .map_or(true, |c| !c.is_alphanumeric());
    (closes && !after[..end].ends_with(' ')).then(|| (&after[..end], end + 2))
}

/// `label](url)` after a `[`: the label, the url and the bytes used. A url
/// with spaces or control characters is not a link.
fn link(after: &str) -> Option<(&str, &str, usize)> {
    let close = after.find("](")?;
    let label = &after[..close];
    if label.contains(['[', ']']) {
        return None;
    }
    let url_start = close + 2;
    let url_len = after[url_start..].find(')')?;
    let url = &after[url_start..url_start + url_len];
    if url.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    Some((label, url, url_start + url_len + 1))
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
        assert_eq!(md.line("3. third", plain), "3. third");
        assert_eq!(md.line("```rust", plain), "┌─ rust");
        assert_eq!(md.line("let **x** = 1;", plain), "│ let **x** = 1;");
        assert_eq!(md.line("```", plain), "└─");
        assert_eq!(md.line("use `x` and ** alone", plain), "use x and ** alone");
        assert_eq!(md.line("> quoted *words*", plain), "│ quoted words");
        assert_eq!(md.rows("---", plain, 10), ["──────────"]);
        assert_eq!(md.line("a *b* c_d_e a * b", plain), "a b c_d_e a * b");
        assert_eq!(
            md.line("see [the docs](https://x.dev/a) now", plain),
            "see the docs (https://x.dev/a) now"
        );
    }

    #[test]
    fn styled_bold_italic_code_and_links() {
        let on = Style::COLOR;
        assert_eq!(inline("a **b**", on), "a \x1b[1mb\x1b[0m");
        assert_eq!(inline("`c`", on), "\x1b[36mc\x1b[0m");
        assert_eq!(inline("_i_", on), "\x1b[3mi\x1b[0m");
        let linked = inline_with("[x](https://e.com)", on, true);
        assert_eq!(
            linked,
            "\x1b]8;;https://e.com\x1b\\\x1b[4mx\x1b[0m\x1b]8;;\x1b\\"
        );
        assert_eq!(visible_width(&linked), 1);
    }

    #[test]
    fn bare_urls_and_existing_paths_are_linked() {
        fn resolve(path: &str) -> Option<std::path::PathBuf> {
            (path == "src/key_input.rs").then(|| "/w/src/key_input.rs".into())
        }
        let mut md = Markdown::new();
        md.hyperlinks = true;
        md.paths = Some((resolve, Host::new("h")));
        let link =
            |target: &str, label: &str| format!("\x1b]8;;{target}\x1b\\{label}\x1b]8;;\x1b\\");
        let line = "see (https://e.com/a_b_c). and src/key_input.rs:3, not gone_file.rs";
        assert_eq!(
            md.line(line, Style::PLAIN),
            format!(
                "see ({}). and {}, not gone_file.rs",
                link("https://e.com/a_b_c", "https://e.com/a_b_c"),
                link("file://h/w/src/key_input.rs", "src/key_input.rs:3")
            )
        );
        assert_eq!(
            md.line("in `src/key_input.rs` **https://x.dev**", Style::PLAIN),
            format!(
                "in {} {}",
                link("file://h/w/src/key_input.rs", "src/key_input.rs"),
                link("https://x.dev", "https://x.dev")
            )
        );
        // Without hyperlinks the text is as before.
        md.hyperlinks = false;
        assert_eq!(
            md.line(line, Style::PLAIN),
            "see (https://e.com/a_b_c). and src/key_input.rs:3, not gone_file.rs"
        );
        assert_eq!(md.line("a _b_ c", Style::PLAIN), "a b c");
    }

    /// A Markdown link whose target holds what is not printable ASCII is not
    /// written as a hyperlink; an escape sequence inside a bare URL is removed
    /// with the text's other escapes before links are looked for.
    #[test]
    fn hostile_link_targets_stay_out_of_the_sequence() {
        let mut md = Markdown::new();
        md.hyperlinks = true;
        let out = md.line(
            "[x](https://e.com/é) https://e.com/\x1b]8;;evil\x07x",
            Style::PLAIN,
        );
        assert_eq!(
            out,
            "x (https://e.com/é) \x1b]8;;https://e.com/x\x1b\\https://e.com/x\x1b]8;;\x1b\\"
        );
    }

    /// Wrapping counts what shows: a line whose markup makes it longer than the
    /// width fits once the markup is gone.
    #[test]
    fn wrapping_counts_what_shows() {
        let mut md = Markdown::new();
        let rows = md.rows("**bold** and **more bold**", Style::COLOR, 20);
        assert_eq!(rows.len(), 1, "{rows:?}");
        let rows = md.rows("- a list item that wraps onto more rows", Style::PLAIN, 16);
        assert_eq!(rows, ["• a list item", "  that wraps", "  onto more rows"]);
    }

    /// Linked words, markup and wide characters at random widths: every row
    /// fits, and every link a row opens it also closes (a link cut by a row
    /// end is closed there and opened again on the next row).
    #[test]
    fn linked_rows_fit_and_close_their_links() {
        fn resolve(path: &str) -> Option<std::path::PathBuf> {
            Some(format!("/w/{path}").into())
        }
        let words = [
            "https://e.com/a_b?q=1",
            "src/x.rs:3",
            "word",
            "**",
            "`",
            "_",
            "你好",
            "[l](https://u.v/w)",
            "(https://x.y/z).",
            "a/very/long/path/that/will/not/fit/anywhere.rs",
        ];
        let mut rng = focus_testkit::rng::Rng::new(61);
        for _ in 0..1500 {
            let line: Vec<&str> = (0..rng.below(12))
                .map(|_| words[rng.below(words.len())])
                .collect();
            let line = line.join(if rng.below(2) == 0 { " " } else { "" });
            let width = 6 + rng.below(40);
            let mut md = Markdown::new();
            md.hyperlinks = true;
            md.paths = Some((resolve, Host::new("h")));
            for style in [Style::PLAIN, Style::COLOR] {
                for row in md.rows(&line, style, width) {
                    assert!(visible_width(&row) <= width, "{width} {line:?}: {row:?}");
                    let opens = row.matches("\x1b]8;;").count();
                    let closes = row.matches("\x1b]8;;\x1b\\").count();
                    assert_eq!(opens, 2 * closes, "{width} {line:?}: {row:?}");
                }
            }
        }
    }

    /// Random text through every path: nothing panics and no row is wider
    /// than asked.
    #[test]
    fn random_text_never_panics_or_overflows() {
        let alphabet: Vec<char> = "ab |*_`[]()#>-+1.~\\\n\r\t 你🚀é\u{301}\u{200d}\x1b:=\"'/"
            .chars()
            .collect();
        let mut rng = focus_testkit::rng::Rng::new(7);
        let mut next = |n: usize| rng.below(n);
        for _ in 0..2000 {
            let len = next(60);
            let text: String = (0..len).map(|_| alphabet[next(alphabet.len())]).collect();
            let width = 6 + next(50);
            let mut md = Markdown::new();
            for line in text.split('\n') {
                for style in [Style::PLAIN, Style::COLOR] {
                    for row in md.rows(line, style, width) {
                        assert!(visible_width(&row) <= width, "{width} {line:?}: {row:?}");
                    }
                }
            }
            let lines: Vec<&str> = text.split('\n').collect();
            let _ = crate::table::table(&lines, Style::COLOR, width, true);
            for lang in ["rust", "py", "sh", "json", "yaml", "toml", "diff", "c"] {
                let _ = crate::highlight::highlight(&text, Lang::from_fence(lang), Style::COLOR);
            }
        }
    }
}
