//! What a successful `edit` returns ([`edited`]): how many blocks were
//! replaced, where only a whitespace-tolerant match was found, how the file was
//! written, and a unified diff (the first lines in the text the model reads, all
//! of it in the details).

use focus_core::json_object;
use focus_core::tool::ToolOutput;

use crate::edit::diff;
use crate::edit::locate::line_of;
use crate::edit::plan::Planned;
use crate::output;
use crate::path;
use crate::replace::Replaced;
use crate::write::{replaced_note, written_label};

/// Lines of context around each change in the diff.
const DIFF_CONTEXT: usize = 3;
/// Diff lines included in the text the model reads (the full diff is in details).
const DIFF_LINES_FOR_MODEL: usize = 80;

/// The result of an edit of `given` that turned `text` into `updated` (both
/// with LF line endings) by `planned` (in file order), written `how`.
pub(super) fn edited(
    given: &str,
    text: &str,
    updated: &str,
    planned: &[Planned],
    how: Replaced,
) -> ToolOutput {
    let first_changed_line = planned
        .first()
        .map_or(1, |p| line_of(text, p.located.range.start));
    let diff = diff::unified_diff(given, text, updated, DIFF_CONTEXT);
    let fuzzy_lines: Vec<String> = planned
        .iter()
        .filter(|p| p.located.fuzzy)
        .map(|p| line_of(text, p.located.range.start).to_string())
        .collect();
    let mut message = format!(
        "Successfully replaced {} block{} in {}.",
        planned.len(),
        if planned.len() == 1 { "" } else { "s" },
        path::printable(given)
    );
    if !fuzzy_lines.is_empty() {
        message.push_str(&format!(
            " Note: the text at line {} matched only when ignoring whitespace differences; check the diff.",
            fuzzy_lines.join(", ")
        ));
    }
    message.push_str(&replaced_note(how));
    let diff_for_model = output::truncate_head(&diff, DIFF_LINES_FOR_MODEL, output::MAX_BYTES);
    message.push_str("\n\n");
    message.push_str(&output::sanitize(&diff_for_model.content));
    if diff_for_model.truncated {
        message.push_str(&format!(
            "\n[Diff cut at {} of {} lines.]",
            diff_for_model.kept_lines, diff_for_model.total_lines
        ));
    }
    let full_diff = output::truncate_head(&diff, usize::MAX, output::MAX_BYTES).content;
    ToolOutput::text(message).with_details(json_object! {
        "diff" => full_diff,
        "firstChangedLine" => first_changed_line,
        "written" => written_label(how),
    })
}
