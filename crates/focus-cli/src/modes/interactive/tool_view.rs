//! A tool call as a block tied to its call id: a header with the arguments and
//! the elapsed time, then the result under it (even when parallel calls finish in
//! another order): the tail of bash's output, edit's diff with line numbers,
//! the head of what write wrote, the head of anything else; an error in red with
//! its reason. Ctrl+O shows it all.

use super::blocks::Look;
use super::images::ShownImage;
use super::linkify::link_line;
use crate::modes::print::{clip, tool_summary};
use focus_core::json::Value;
use focus_tui::rows::text_rows;
use std::time::{Duration, Instant};

/// Lines shown when collapsed.
const COLLAPSED: usize = 5;
/// Diff lines shown when collapsed.
const COLLAPSED_DIFF: usize = 16;
/// Lines shown at most when expanded (the rest is counted).
const EXPANDED: usize = 2000;
/// The fewest lines a fold hides: an output only this much longer than the
/// fold is shown whole (`… 1 more lines` takes a row to save one).
const MIN_HIDDEN: usize = 3;

/// One tool call.
pub struct ToolBlock {
    /// The call's id (results find their call by it).
    pub call_id: String,
    name: String,
    args: Value,
    started: Instant,
    elapsed: Option<Duration>,
    /// Since when the call waits for the user's answer to an approval (its
    /// clock stands still meanwhile), and how long it waited before.
    waiting_since: Option<Instant>,
    waited: Duration,
    /// The running tool's output so far.
    partial: String,
    /// The result: text, details, whether it failed.
    result: Option<(String, Value, bool)>,
    /// The images in the result.
    images: Vec<ShownImage>,
}

impl ToolBlock {
    /// A call that starts now.
    pub fn new(call_id: &str, name: &str, args: &Value) -> ToolBlock {
        ToolBlock {
            call_id: call_id.to_string(),
            name: name.to_string(),
            args: args.clone(),
            started: Instant::now(),
            elapsed: None,
            waiting_since: None,
            waited: Duration::ZERO,
            partial: String::new(),
            result: None,
            images: Vec::new(),
        }
    }

    /// The images the result holds (shown under its text).
    pub fn show_images(&mut self, images: Vec<ShownImage>) {
        self.images = images;
    }

    /// The output so far of the running tool.
    pub fn progress(&mut self, text: String) {
        self.partial = text;
    }

    /// An approval about the call is asked: its clock stops until
    /// [`ToolBlock::answered`] (the time is the tool's, not the user's).
    pub fn waits_for_user(&mut self) {
        if self.elapsed.is_none() && self.waiting_since.is_none() {
            self.waiting_since = Some(Instant::now());
        }
    }

    /// The approval was answered: the clock goes on.
    pub fn answered(&mut self) {
        if let Some(since) = self.waiting_since.take() {
            self.waited += since.elapsed();
        }
    }

    /// The time the call took so far, less the time it waited for the user.
    fn running_time(&self) -> Duration {
        let waiting = self.waiting_since.map_or(Duration::ZERO, |s| s.elapsed());
        self.started.elapsed().saturating_sub(self.waited + waiting)
    }

    /// The call ended with `text` (what the model reads), `details` and `is_error`.
    pub fn end(&mut self, text: String, details: Value, is_error: bool) {
        self.answered();
        if self.elapsed.is_none() {
            self.elapsed = Some(self.running_time());
        }
        self.result = Some((text, details, is_error));
    }

    /// An ended call from a saved history (no time known).
    pub fn ended(
        call_id: &str,
        name: &str,
        args: &Value,
        result: Option<(String, Value, bool)>,
    ) -> ToolBlock {
        let mut block = ToolBlock::new(call_id, name, args);
        block.elapsed = Some(Duration::ZERO);
        block.result = result;
        block
    }

    /// The rows of the block.
    pub fn rows(&self, look: &Look, expanded: bool) -> Vec<String> {
        let style = look.style;
        let width = look.width.max(20);
        let failed = matches!(self.result, Some((_, _, true)));
        let mark = if failed {
            style.red("✗")
        } else if self.result.is_some() {
            style.green("●")
        } else {
            style.blue("●")
        };
        let mut summary = tool_summary(&self.name, &self.args);
        if look.hyperlinks {
            summary = link_line(&summary, look.host, ".");
        }
        let mut header = format!("{mark} {}", style.bold(&summary));
        let elapsed = self.elapsed.unwrap_or_else(|| self.running_time());
        if self.waiting_since.is_some() {
            header.push_str(&style.dim(&format!(
                " · {} · waiting for your answer",
                seconds(elapsed)
            )));
        } else if self.elapsed != Some(Duration::ZERO) {
            header.push_str(&style.dim(&format!(" · {}", seconds(elapsed))));
        }
        let mut rows = text_rows(&header, width);
        let body_width = width.saturating_sub(4).max(10);
        let body: Vec<String> = match &self.result {
            None => tail(&self.partial, 3, body_width, "earlier lines")
                .into_iter()
                .map(|l| style.dim(&l))
                .collect(),
            Some((text, _, true)) => head(
                text,
                if expanded { EXPANDED } else { COLLAPSED },
                body_width,
            )
            .into_iter()
            .map(|l| style.red(&l))
            .collect(),
            Some((text, details, false)) => {
                self.result_rows(text, details, look, expanded, body_width)
            }
        };
        let mut body = body;
        for image in &self.images {
            body.extend(image.rows(style, body_width, look.graphics));
        }
        for (i, line) in body.into_iter().enumerate() {
            let lead = if i == 0 { "  ⎿ " } else { "    " };
            rows.push(format!("{}{line}", style.dim(lead)));
        }
        rows
    }

    fn result_rows(
        &self,
        text: &str,
        details: &Value,
        look: &Look,
        expanded: bool,
        width: usize,
    ) -> Vec<String> {
        let style = look.style;
        let limit = |collapsed: usize| if expanded { EXPANDED } else { collapsed };
        // ls lists names inside the directory it was given.
        let under = match self.name.as_str() {
            "ls" => self.args["path"].as_str().unwrap_or("."),
            _ => ".",
        };
        let dim = |lines: Vec<String>| {
            let linked = lines.into_iter().map(|l| {
                if look.hyperlinks {
                    link_line(&l, look.host, under)
                } else {
                    l
                }
            });
            linked.map(|l| style.dim(&l)).collect()
        };
        match self.name.as_str() {
            "bash" => dim(tail(text, limit(COLLAPSED), width, "earlier lines")),
            "edit" => match details["diff"].as_str() {
                Some(diff) => diff_rows(diff, limit(COLLAPSED_DIFF), width, look),
                None => dim(head(text, limit(COLLAPSED), width)),
            },
            "write" => {
                let content = self.args["content"].as_str().unwrap_or("");
                let mut lines = vec![clip(text.lines().next().unwrap_or(""), width)];
                lines.extend(head(content, limit(COLLAPSED), width));
                dim(lines)
            }
            _ => dim(head(text, limit(3), width)),
        }
    }
}

/// `1.2s`, `12s`, `2m05s`.
fn seconds(elapsed: Duration) -> String {
    let s = elapsed.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1}s")
    } else if s < 60.0 {
        format!("{}s", s as u64)
    } else {
        format!("{}m{:02}s", s as u64 / 60, s as u64 % 60)
    }
}

/// The first `max` lines, each clipped, then "… N more lines" (all of them when
/// fewer than [`MIN_HIDDEN`] would be left out).
fn head(text: &str, max: usize, width: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return vec!["(no output)".into()];
    }
    let max = shown_of(lines.len(), max);
    let mut out: Vec<String> = lines.iter().take(max).map(|l| clip(l, width)).collect();
    if lines.len() > max {
        out.push(format!(
            "… {} more lines (Ctrl+O expands)",
            lines.len() - max
        ));
    }
    out
}

/// "… N earlier lines", then the last `max` lines, each clipped (all of them
/// when fewer than [`MIN_HIDDEN`] would be left out).
fn tail(text: &str, max: usize, width: usize, what: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let max = shown_of(lines.len(), max);
    let skip = lines.len().saturating_sub(max);
    let mut out = Vec::new();
    if skip > 0 {
        out.push(format!("… {skip} {what} (Ctrl+O expands)"));
    }
    out.extend(lines[skip..].iter().map(|l| clip(l, width)));
    out
}

/// How many of `count` lines a fold of `max` shows: `max`, or all when it
/// would hide fewer than [`MIN_HIDDEN`].
fn shown_of(count: usize, max: usize) -> usize {
    if count < max + MIN_HIDDEN {
        count
    } else {
        max
    }
}

/// A unified diff with old and new line numbers, removals red, additions green.
fn diff_rows(diff: &str, max: usize, width: usize, look: &Look) -> Vec<String> {
    let style = look.style;
    let (mut old, mut new) = (0usize, 0usize);
    let mut out = Vec::new();
    let lines: Vec<&str> = diff.lines().collect();
    let mut shown = 0;
    for line in &lines {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        if shown == max {
            let left = lines.len().saturating_sub(shown + 2);
            out.push(style.dim(&format!("… {left} more diff lines (Ctrl+O expands)")));
            break;
        }
        shown += 1;
        if let Some(hunk) = line.strip_prefix("@@") {
            // @@ -a,b +c,d @@
            let mut parts = hunk.split_whitespace();
            old = number(parts.next());
            new = number(parts.next());
            out.push(style.cyan(&clip(line, width)));
            continue;
        }
        let text = clip(line, width.saturating_sub(10).max(10));
        match line.chars().next() {
            Some('-') => {
                out.push(style.red(&format!("{old:>4}      {text}")));
                old += 1;
            }
            Some('+') => {
                out.push(style.green(&format!("     {new:>4} {text}")));
                new += 1;
            }
            _ => {
                out.push(style.dim(&format!("{old:>4} {new:>4} {text}")));
                old += 1;
                new += 1;
            }
        }
    }
    out
}

/// The start of `-12,3` or `+4`: 12, 4.
fn number(part: Option<&str>) -> usize {
    part.unwrap_or("")
        .trim_start_matches(['-', '+'])
        .split(',')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::style::Style;

    fn look() -> Look {
        Look {
            width: 60,
            style: Style::PLAIN,
            show_thinking: true,
            hyperlinks: false,
            graphics: None,
            host: Default::default(),
        }
    }

    #[test]
    fn bash_shows_the_tail() {
        let mut block = ToolBlock::ended("c1", "bash", &Value::Null, None);
        let output: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        block.end(output, Value::Null, false);
        let rows = block.rows(&look(), false);
        assert!(rows[1].contains("… 15 earlier lines"), "{rows:?}");
        assert!(rows.last().unwrap().ends_with("line 20"));
        assert_eq!(block.rows(&look(), true).len(), 21);
    }

    #[test]
    fn a_fold_hides_three_lines_or_none() {
        let read = |lines: usize| {
            let mut block = ToolBlock::ended("c1", "read", &Value::Null, None);
            let output: String = (1..=lines).map(|i| format!("line {i}\n")).collect();
            block.end(output, Value::Null, false);
            block.rows(&look(), false)
        };
        // A 4- and a 5-line read (3 shown when folded) are shown whole.
        for lines in [4, 5] {
            let rows = read(lines);
            assert!(rows.iter().all(|r| !r.contains("more lines")), "{rows:?}");
            assert!(rows.last().unwrap().ends_with(&format!("line {lines}")));
        }
        let rows = read(6);
        assert!(rows.last().unwrap().contains("… 3 more lines"), "{rows:?}");
        // The same for bash's tail (5 shown): 7 lines whole, 8 folded.
        let bash = |lines: usize| {
            let mut block = ToolBlock::ended("c1", "bash", &Value::Null, None);
            let output: String = (1..=lines).map(|i| format!("line {i}\n")).collect();
            block.end(output, Value::Null, false);
            block.rows(&look(), false)
        };
        assert!(bash(7).iter().all(|r| !r.contains("earlier lines")));
        assert!(bash(8)[1].contains("… 3 earlier lines"), "{:?}", bash(8));
    }

    #[test]
    fn an_edit_shows_its_diff_with_line_numbers() {
        let mut block = ToolBlock::ended("c1", "edit", &Value::Null, None);
        let details = focus_core::json_object! {
            "diff" => "--- a/x\n+++ b/x\n@@ -3,3 +3,3 @@\n keep\n-old\n+new\n keep",
        };
        block.end("ok".into(), details, false);
        let rows = block.rows(&look(), false);
        assert!(
            rows.iter().any(|r| r.contains("   4      -old")),
            "{rows:?}"
        );
        assert!(
            rows.iter().any(|r| r.contains("        4 +new")),
            "{rows:?}"
        );
        assert!(
            rows.iter().any(|r| r.contains("   3    3  keep")),
            "{rows:?}"
        );
    }

    #[test]
    fn an_error_is_marked() {
        let mut block = ToolBlock::ended("c1", "read", &Value::Null, None);
        block.end("no such file".into(), Value::Null, true);
        let rows = block.rows(&look(), false);
        assert!(rows[0].starts_with("✗ read"));
        assert!(rows[1].contains("no such file"));
    }
}
