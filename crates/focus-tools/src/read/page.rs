//! The text `read` returns for a window of lines ([`page`]): cut to the caps
//! ([`MAX_LINES`] lines, [`MAX_BYTES`] bytes), with a closing note that says
//! exactly which `offset` reads the next part, and the line numbers in the
//! details.

use focus_core::json_object;
use focus_core::tool::ToolOutput;

use crate::output::{self, MAX_BYTES, MAX_LINES};

/// The result for `lines`, the kept lines from `offset` (1-based) of a file of
/// `total_lines`, of which lines up to `last_wanted` were asked for.
///
/// # Errors
///
/// `offset` is beyond the end of the file.
pub(super) fn page(
    shown: &str,
    lines: &[String],
    total_lines: usize,
    offset: usize,
    last_wanted: usize,
) -> Result<ToolOutput, String> {
    if total_lines == 0 {
        return Ok(ToolOutput::text(format!("[{shown} is empty.]")));
    }
    if offset > total_lines {
        return Err(format!(
            "Offset {offset} is beyond the end of {shown} ({total_lines} lines total). \
             Use an offset between 1 and {total_lines}."
        ));
    }
    let window_end = total_lines.min(last_wanted);
    let cut = output::truncate_head_lines(lines, MAX_LINES, MAX_BYTES);
    let mut text = cut.content;
    let first = offset;
    let last = offset + cut.kept_lines - 1;
    if cut.truncated {
        let reason = if cut.by_bytes {
            format!(" ({} limit)", output::format_size(MAX_BYTES))
        } else {
            String::new()
        };
        text.push_str(&format!(
            "\n\n[Showing lines {first}-{last} of {total_lines}{reason}. Use offset={} to continue.]",
            last + 1
        ));
    } else if window_end < total_lines {
        text.push_str(&format!(
            "\n\n[{} more lines in file. Use offset={} to continue.]",
            total_lines - window_end,
            window_end + 1
        ));
    }
    Ok(ToolOutput::text(text).with_details(json_object! {
        "totalLines" => total_lines,
        "firstLine" => first,
        "lastLine" => last,
        "truncated" => cut.truncated,
    }))
}
