//! `edit`: exact text replacements in one file, all or nothing.
//!
//! The model sends `edits: [{oldText, newText}, …]`. Each `oldText` must occur
//! exactly once in the file as it was before the call; the replacements must
//! not overlap; if any edit fails, none is applied and the file is untouched.
//!
//! How matching works ([`locate`]):
//! 1. The file is read as UTF-8; a BOM is set aside, and CRLF line endings are
//!    turned into LF (and the model's text likewise), so a model that never saw
//!    a `\r` can still match. Both are restored when the file is written.
//! 2. Exact search. One occurrence: done. Several: an error listing the line of
//!    each, asking for more surrounding context.
//! 3. No exact occurrence: the whitespace-tolerant matcher
//!    ([`fuzzy::find_whitespace_tolerant`]) compares whole lines ignoring
//!    indentation and spacing; it is used only if it finds exactly one place.
//! 4. Still nothing: the error shows the most similar region of the file with
//!    line numbers ([`fuzzy::closest_region`]), and its first differing line,
//!    so the model can correct its `oldText` in one step. Failed edits are the
//!    most common complaint about coding agents; a bare "not found" makes the
//!    model re-read the whole file and guess again.
//!
//! Before anything is written, the file must be as focus last read or wrote it
//! ([`crate::seen`]); it is written by [`crate::replace::replace_existing`] (in
//! place when it has hard links or other writers, by atomic rename otherwise)
//! and the result shows a small unified diff ([`diff::unified_diff`]).

pub mod diff;
pub mod fuzzy;

use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

use crate::args;
use crate::open::{self, OpenError};
use crate::output;
use crate::path;
use crate::replace::ReplaceError;
use crate::schema;
use crate::seen::{self, Seen};
use crate::state::ToolState;
use crate::write::{commit, replaced_note, written_label};

/// Lines of context around each change in the diff.
const DIFF_CONTEXT: usize = 3;
/// Diff lines included in the text the model reads (the full diff is in details).
const DIFF_LINES_FOR_MODEL: usize = 80;

/// The `edit` tool.
pub struct EditTool {
    cwd: PathBuf,
    state: ToolState,
}

impl EditTool {
    /// An `edit` tool resolving relative paths against `cwd`, within `state`'s
    /// sandbox, sharing its record of files seen.
    pub fn new(cwd: PathBuf, state: ToolState) -> EditTool {
        EditTool { cwd, state }
    }
}

/// One requested replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// Text to find (exactly once).
    pub old_text: String,
    /// Text to put in its place.
    pub new_text: String,
}

/// Where one replacement applies in the LF-normalised file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Byte range replaced.
    pub range: Range<usize>,
    /// Whether the whitespace-tolerant matcher found it.
    pub fuzzy: bool,
}

impl Tool for EditTool {
    fn name(&self) -> &str {
        "edit"
    }

    fn description(&self) -> &str {
        "Edit a file by replacing exact text. Give one or more {oldText, newText} pairs in edits. \
         Each oldText must appear exactly once in the current file: copy it from the file \
         character for character, including indentation and line breaks, with enough surrounding \
         lines to be unique. Edits are matched against the file before any of them is applied, must \
         not overlap, and are applied all together or not at all. On failure, the error shows the \
         closest matching lines or the lines of every match; fix oldText and retry. To create a \
         file or rewrite it entirely, use write."
    }

    fn parameters(&self) -> Value {
        let edit = schema::object(
            [
                (
                    "oldText",
                    schema::string("Exact text to replace; must occur exactly once in the file"),
                ),
                ("newText", schema::string("Text to put in its place")),
            ],
            &["oldText", "newText"],
        );
        let edits = json_object! {
            "type" => "array",
            "items" => edit,
            "minItems" => 1,
            "description" => "Replacements, each matched against the original file",
        };
        schema::object(
            [("path", schema::file_path()), ("edits", edits)],
            &["path", "edits"],
        )
    }

    fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        run(&self.cwd, &self.state, args).unwrap_or_else(ToolOutput::error)
    }

    fn runs_alone(&self, _args: &Value) -> bool {
        true
    }
}

/// Reads the replacements from the arguments: `edits: [{oldText, newText}]`
/// (also spelled `old_text`/`new_text`), or pi's older single-edit shape with
/// `oldText`/`newText` at the top level.
///
/// # Errors
///
/// No edits, an edit without `oldText` or `newText`, an empty `oldText`, or a value of the wrong
/// type; the message names it.
pub fn parse_edits(args: &Value) -> Result<Vec<Replacement>, String> {
    let pair = |item: &Value, label: &str| -> Result<Replacement, String> {
        let field = |camel: &str, snake: &str| -> Result<String, String> {
            match (&item[camel], &item[snake]) {
                (Value::String(s), _) | (Value::Null, Value::String(s)) => Ok(s.clone()),
                (Value::Null, Value::Null) => Err(format!("{label} is missing \"{camel}\".")),
                (other, _) => Err(format!(
                    "{label}: \"{camel}\" must be a string, got {}.",
                    other.type_name()
                )),
            }
        };
        Ok(Replacement {
            old_text: field("oldText", "old_text")?,
            new_text: field("newText", "new_text")?,
        })
    };
    // Some models send the array as a JSON string; accept that too.
    let decoded;
    let mut edits = &args["edits"];
    if let Value::String(text) = edits {
        if let Ok(value @ Value::Array(_)) = focus_core::json::parse_str(text) {
            decoded = value;
            edits = &decoded;
        }
    }
    match edits {
        Value::Array(items) if items.is_empty() => {
            Err("\"edits\" is empty: give at least one {oldText, newText} pair.".to_string())
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| pair(item, &format!("Edit {}", i + 1)))
            .collect(),
        Value::Null if !args["oldText"].is_null() || !args["old_text"].is_null() => {
            Ok(vec![pair(args, "The edit")?])
        }
        Value::Null => Err("Missing required argument \"edits\".".to_string()),
        other => Err(format!(
            "Argument \"edits\" must be an array of {{oldText, newText}} objects, got {}.",
            other.type_name()
        )),
    }
}

fn run(cwd: &Path, state: &ToolState, args: &Value) -> Result<ToolOutput, String> {
    let given = args::required_str(args, "path")?;
    let edits = parse_edits(args)?;
    let resolved = path::resolve(cwd, given)?;
    state.sandbox.check_write(&resolved)?;
    let shown = path::describe(given, &resolved);
    let (file, metadata) = match open::open_regular_checked(&resolved, &state.sandbox) {
        Ok(opened) => opened,
        Err(OpenError::Io(e)) => {
            let mut message = path::io_error("edit", given, &resolved, &e);
            if e.kind() == std::io::ErrorKind::NotFound {
                message.push_str(" To create a new file, use write.");
            }
            return Err(message);
        }
        Err(OpenError::NotRegular(open::DIRECTORY)) => {
            return Err(format!("{shown} is a directory, not a file."))
        }
        Err(OpenError::NotRegular(kind)) => return Err(open::not_regular_text(&shown, kind)),
    };
    let mut bytes = Vec::new();
    (&file).read_to_end(&mut bytes).map_err(|e| {
        if open::would_block(&e) {
            open::would_block_text(&shown)
        } else {
            path::io_error("read", given, &resolved, &e)
        }
    })?;
    let read_len = bytes.len() as u64;
    state.seen.check(
        &resolved,
        Seen::new(&metadata, read_len, seen::hash_blocks(&bytes)),
        &shown,
    )?;
    let original = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{shown} is not valid UTF-8 text (invalid byte at offset {}); edit only changes text files.",
            e.utf8_error().valid_up_to()
        )
    })?;
    let (bom, body) = match original.strip_prefix('\u{FEFF}') {
        Some(rest) => ("\u{FEFF}", rest),
        None => ("", original.as_str()),
    };
    let crlf = uses_crlf(body);
    let text = body.replace("\r\n", "\n");
    // Where each removed `\r` stood, in `text`'s offsets, so that a range found
    // in `text` maps back to `body` and every line the edits do not touch keeps
    // its own ending (a file may mix CRLF and LF).
    let removed_cr: Vec<usize> = body
        .match_indices("\r\n")
        .enumerate()
        .map(|(i, (pos, _))| pos - i)
        .collect();
    let to_body = |offset: usize| offset + removed_cr.partition_point(|&p| p < offset);

    let mut planned: Vec<(usize, Located, String)> = Vec::new();
    for (i, edit) in edits.iter().enumerate() {
        let label = edit_label(i, edits.len());
        let old = edit.old_text.replace("\r\n", "\n");
        let located = locate(&text, &old, &label, &shown)?;
        planned.push((i, located, edit.new_text.replace("\r\n", "\n")));
    }
    planned.sort_by_key(|(_, located, _)| located.range.start);
    for pair in planned.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a.1.range.end > b.1.range.start {
            return Err(format!(
                "{} and {} overlap in {shown} (both touch line {}). Merge them into one edit. \
                 No edits were applied.",
                edit_label(a.0, edits.len()),
                edit_label(b.0, edits.len()).to_lowercase(),
                line_of(&text, b.1.range.start)
            ));
        }
    }
    let mut updated = String::with_capacity(text.len());
    let mut cursor = 0;
    for (_, located, new_text) in &planned {
        updated.push_str(&text[cursor..located.range.start]);
        updated.push_str(new_text);
        cursor = located.range.end;
    }
    updated.push_str(&text[cursor..]);
    if updated == text {
        return Err(format!(
            "No changes made to {shown}: every newText equals the text it replaces."
        ));
    }

    // The file is rebuilt from its own bytes; only the replaced ranges change,
    // and new text takes the file's line ending (that of its first line).
    let mut file_text = String::with_capacity(body.len() + updated.len() / 10 + 3);
    file_text.push_str(bom);
    let mut cursor = 0;
    for (_, located, new_text) in &planned {
        let start = to_body(located.range.start);
        file_text.push_str(&body[cursor..start]);
        if crlf {
            file_text.push_str(&new_text.replace('\n', "\r\n"));
        } else {
            file_text.push_str(new_text);
        }
        cursor = to_body(located.range.end);
    }
    file_text.push_str(&body[cursor..]);
    let how = commit(
        state,
        &resolved,
        &file,
        &metadata,
        read_len,
        file_text.as_bytes(),
    )
    .map_err(|e| match e {
        ReplaceError::Changed(why) => format!(
            "{shown} was not edited: {why}. Read it again and redo the edit against its \
                 current content."
        ),
        ReplaceError::Io(e) => path::io_error("write", given, &resolved, &e),
    })?;

    let first_changed_line = planned
        .first()
        .map_or(1, |(_, located, _)| line_of(&text, located.range.start));
    let diff = diff::unified_diff(given, &text, &updated, DIFF_CONTEXT);
    let fuzzy_lines: Vec<String> = planned
        .iter()
        .filter(|(_, located, _)| located.fuzzy)
        .map(|(_, located, _)| line_of(&text, located.range.start).to_string())
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
    Ok(ToolOutput::text(message).with_details(json_object! {
        "diff" => full_diff,
        "firstChangedLine" => first_changed_line,
        "written" => written_label(how),
    }))
}

/// "Edit 2" when there are several, "The edit" when there is one.
fn edit_label(index: usize, count: usize) -> String {
    if count == 1 {
        "The edit".to_string()
    } else {
        format!("Edit {}", index + 1)
    }
}

/// Whether the file's first line ends with CRLF (the convention the file uses).
pub fn uses_crlf(text: &str) -> bool {
    match text.find('\n') {
        Some(i) => i > 0 && text.as_bytes()[i - 1] == b'\r',
        None => false,
    }
}

/// The 1-based line number of byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
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
