//! Where one edit applies in the file ([`locate`]): exact search, then the
//! whitespace-tolerant matcher, then an error that shows the closest lines (the
//! steps in the `edit` module's documentation).

use std::ops::Range;

use crate::edit::fuzzy;
use crate::output;

/// Where one replacement applies in the LF-normalised file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Byte range replaced.
    pub range: Range<usize>,
    /// Whether the whitespace-tolerant matcher found it.
    pub fuzzy: bool,
}

/// Finds the one place `old` applies in `text`, or explains why not (see the
/// module documentation for the steps).
///
/// # Errors
///
/// `old` is not found (the message shows the closest lines), or found more than once (it says
/// where).
pub fn locate(text: &str, old: &str, label: &str, shown: &str) -> Result<Located, String> {
    if old.is_empty() {
        return Err(format!(
            "{label} has an empty oldText. Give the exact text to replace; to create or \
             rewrite a whole file use write. No edits were applied."
        ));
    }
    let positions: Vec<usize> = text.match_indices(old).map(|(i, _)| i).take(1000).collect();
    match positions.len() {
        1 => {
            return Ok(Located {
                range: positions[0]..positions[0] + old.len(),
                fuzzy: false,
            })
        }
        0 => {}
        n => {
            let lines: Vec<String> = positions
                .iter()
                .map(|&p| line_of(text, p).to_string())
                .collect();
            return Err(format!(
                "{label}: oldText occurs {n} times in {shown}, starting at lines {}. It must occur \
                 exactly once: add surrounding lines to oldText to pick one. No edits were applied.",
                join_limited(&lines, 20)
            ));
        }
    }
    match fuzzy::find_whitespace_tolerant(text, old) {
        fuzzy::FuzzyMatch::Unique(range) => return Ok(Located { range, fuzzy: true }),
        fuzzy::FuzzyMatch::Ambiguous(lines) => {
            let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
            return Err(format!(
                "{label}: oldText is not in {shown} exactly; ignoring whitespace it matches {} \
                 places, starting at lines {}. Copy the exact text (with its indentation) from one \
                 of them and add surrounding lines to make it unique. No edits were applied.",
                lines.len(),
                join_limited(&lines, 20)
            ));
        }
        fuzzy::FuzzyMatch::NotFound => {}
    }
    Err(not_found_message(text, old, label, shown))
}

/// The 1-based line number of byte `offset`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The zero-match error: what failed, the closest region with line numbers, and
/// the first line that differs.
fn not_found_message(text: &str, old: &str, label: &str, shown: &str) -> String {
    let mut message = format!(
        "{label}: oldText was not found in {shown}. It must match the file exactly, including \
         whitespace, indentation and line breaks. No edits were applied."
    );
    let Some(closest) = fuzzy::closest_region(text, old) else {
        message.push_str(" The file is empty.");
        return message;
    };
    if closest.similarity < 0.3 {
        message.push_str(" Nothing in the file resembles it; read the file again before retrying.");
        return message;
    }
    let lines = output::lines_of(text);
    let first = closest.first_line.saturating_sub(2).max(1);
    let last = (closest.last_line + 1).min(lines.len());
    let place = if closest.first_line == closest.last_line {
        format!("line {}", closest.first_line)
    } else {
        format!("lines {}-{}", closest.first_line, closest.last_line)
    };
    message.push_str(&format!(
        "\n\nThe most similar text is at {place} ({}% similar):\n",
        (closest.similarity * 100.0).round() as u32
    ));
    let width = last.to_string().len();
    for number in first..=last {
        let marker = if (closest.first_line..=closest.last_line).contains(&number) {
            '>'
        } else {
            ' '
        };
        let line = output::sanitize(lines[number - 1]);
        message.push_str(&format!(
            "{marker}{number:>width$} | {}\n",
            output::cut_line(&line, 300)
        ));
    }
    let old_lines = output::lines_of(old);
    for (j, old_line) in old_lines.iter().enumerate() {
        let number = closest.first_line + j;
        let Some(file_line) = lines.get(number - 1) else {
            break;
        };
        if file_line != old_line {
            message.push_str(&format!(
                "First difference: line {number} of the file is {:?} but your line {} is {:?}.\n",
                output::cut_line(&output::sanitize(file_line), 200),
                j + 1,
                output::cut_line(&output::sanitize(old_line), 200)
            ));
            break;
        }
    }
    message.push_str(
        "Copy the text from these lines (without the line numbers) into oldText and retry.",
    );
    message
}

/// `items` joined with commas, at most `max` of them and a count of the rest.
fn join_limited(items: &[String], max: usize) -> String {
    if items.len() <= max {
        items.join(", ")
    } else {
        format!(
            "{}, … ({} more)",
            items[..max].join(", "),
            items.len() - max
        )
    }
}
