//! The `bash` tool's result ([`build_result`]): the output's tail (cut to the
//! caps, with a note on where the full output is), how the command ended, and
//! the details a front end shows; notes from the sandbox added at the end
//! ([`with_notes`]).

use std::time::Duration;

use focus_core::json::Value;
use focus_core::tool::ToolOutput;

use crate::bash::spill::{SpillDir, Spilled};
use crate::output::{self, Truncated, MAX_BYTES, MAX_LINES};

/// How the command ended.
pub(super) enum Ending {
    /// It exited with this code, or was killed by this signal.
    Exited(Option<i32>, Option<i32>),
    /// It ran past its timeout.
    TimedOut,
    /// The user aborted it.
    Aborted,
    /// Stopped by focus for passing a limit (the note says which).
    Stopped,
}

/// `output` with `notes` appended to its text (an error if any note is).
pub(super) fn with_notes(output: ToolOutput, notes: &[String]) -> ToolOutput {
    if notes.is_empty() {
        return output;
    }
    let text = format!("{}\n\n{}", output.text_content(), notes.join("\n"));
    let out = if output.is_error {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    };
    out.with_details(output.details)
}

/// The tool result for a command that printed `raw` (its tail: `total_lines`
/// lines and `total_bytes` bytes in all, the rest in `spilled` or a spill file
/// made now), ended `ending` after `elapsed`.
pub(super) fn build_result(
    raw: &str,
    total_lines: usize,
    total_bytes: usize,
    (spilled, spill_dir, spill_cap): (Option<Spilled>, &SpillDir, u64),
    ending: Ending,
    timeout_secs: f64,
    elapsed: Duration,
) -> ToolOutput {
    let clean = output::sanitize(raw);
    let cut = output::truncate_tail(&clean, MAX_LINES, MAX_BYTES);
    let truncated = cut.truncated || spilled.is_some();
    let spilled = match spilled {
        Some(spilled) => Some(spilled),
        // Cut by lines while small: the full text is still in memory.
        None if truncated => spill_dir.new_file(spill_cap).map(|mut spill| {
            spill.write(raw.as_bytes());
            spill.finish()
        }),
        None => None,
    };
    let full_output_path = spilled.as_ref().map(|s| s.path.clone());
    let mut text = if cut.content.is_empty() {
        "(no output)".to_string()
    } else {
        cut.content.clone()
    };
    if truncated {
        let note = truncation_note(&cut, raw.len(), total_lines, total_bytes, spilled.as_ref());
        text.push_str(&format!("\n\n[{note}]"));
    }
    let mut details = focus_core::json::Object::new();
    details.insert("durationMs", elapsed.as_millis() as u64);
    if let Some(path) = &full_output_path {
        details.insert("fullOutputPath", path.display().to_string());
    }
    if let Some(spilled) = spilled.as_ref().filter(|s| s.dropped > 0) {
        details.insert("fullOutputCapped", true);
        details.insert("fullOutputBytes", spilled.written);
    }
    details.insert("truncated", truncated);
    let is_error = describe_ending(&ending, timeout_secs, &mut text, &mut details);
    if let Ending::Exited(Some(0), _) = ending {
        details.insert("exitCode", 0);
    }
    let result = if is_error {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    };
    result.with_details(Value::Object(details))
}

/// The note on output that was cut: which lines are shown, and where the full
/// output is ([`spill_note`]).
fn truncation_note(
    cut: &Truncated,
    raw_len: usize,
    total_lines: usize,
    total_bytes: usize,
    spilled: Option<&Spilled>,
) -> String {
    let where_full = spill_note(spilled, total_bytes);
    let shown_lines = cut.kept_lines + usize::from(cut.partial_line);
    let first = total_lines.saturating_sub(shown_lines) + 1;
    if cut.partial_line {
        format!(
            "Showing the last {} of line {total_lines}. {where_full}",
            output::format_size(cut.content.len())
        )
    } else if cut.by_bytes || total_bytes > raw_len {
        format!(
            "Showing lines {first}-{total_lines} of {total_lines} ({} limit). {where_full}",
            output::format_size(MAX_BYTES)
        )
    } else {
        format!("Showing lines {first}-{total_lines} of {total_lines}. {where_full}")
    }
}

/// Adds how the command ended to `text` and `details` (unless it exited with
/// 0); returns whether that makes the result an error.
fn describe_ending(
    ending: &Ending,
    timeout_secs: f64,
    text: &mut String,
    details: &mut focus_core::json::Object,
) -> bool {
    match *ending {
        Ending::Exited(Some(0), _) => false,
        Ending::Exited(Some(code), _) => {
            text.push_str(&format!("\n\nCommand exited with code {code}"));
            details.insert("exitCode", code);
            true
        }
        Ending::Exited(None, Some(signal)) => {
            text.push_str(&format!("\n\nCommand was killed by signal {signal}"));
            details.insert("signal", signal);
            true
        }
        Ending::Exited(None, None) => {
            text.push_str("\n\nCommand ended but its exit status could not be read");
            true
        }
        Ending::TimedOut => {
            text.push_str(&format!(
                "\n\nCommand timed out after {} seconds; it and every process it started were killed. \
                 Use a larger timeout if it needs more time.",
                format_seconds(timeout_secs)
            ));
            details.insert("timedOut", true);
            true
        }
        Ending::Stopped => {
            text.push_str(
                "\n\nCommand stopped by the sandbox; it and every process it started were killed.",
            );
            details.insert("stopped", true);
            true
        }
        Ending::Aborted => {
            text.push_str(
                "\n\nCommand aborted by the user; it and every process it started were killed.",
            );
            details.insert("aborted", true);
            true
        }
    }
}

/// Where the full output is, and whether the spill file was capped.
fn spill_note(spilled: Option<&Spilled>, total_bytes: usize) -> String {
    match spilled {
        None => "The full output could not be saved".to_string(),
        Some(s) if s.dropped == 0 => format!("Full output: {}", s.path.display()),
        Some(s) => format!(
            "Output saved to {} but capped: it holds the first {} of {}; the end is shown here. \
             Rerun the command with its output filtered (grep, head, tail) or redirected to a \
             file to see the middle",
            s.path.display(),
            output::format_size(s.written as usize),
            output::format_size(total_bytes)
        ),
    }
}

/// Seconds as the notes give them: whole, or to a tenth.
pub(super) fn format_seconds(secs: f64) -> String {
    if secs.fract() == 0.0 {
        format!("{}", secs as u64)
    } else {
        format!("{secs:.1}")
    }
}
