//! `grep`: search file contents with a regex or a literal string.
//!
//! One walker ([`crate::walk`]) lists candidate files in sorted order and two
//! worker threads search them ([`search_buffer`]). Each file is read whole; a
//! NUL byte in its first 8 KB marks it binary and it is skipped. The search runs
//! over the whole buffer, not line by line: the regex's literal prefilter finds
//! the next candidate, only then is that one line cut out and checked, and line
//! numbers are counted lazily between hits. On a typical tree almost every file
//! is rejected by one fast byte scan.
//!
//! Results keep the walk's order however the threads interleave: files are
//! handed out in order, every file handed out is finished, and the output takes
//! the first `limit` matches of that ordered prefix.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::sync::lock;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

use crate::args;
use crate::glob::Glob;
use crate::open::{self, OpenError};
use crate::output::{self, MAX_BYTES};
use crate::path;
use crate::regex::literal::{find_byte, rfind_byte};
use crate::regex::Regex;
use crate::schema;
use crate::state::ToolState;
use crate::walk::{self, Flow};

/// Matches returned when the model gives no limit.
pub const DEFAULT_LIMIT: usize = 100;
/// Matched lines are cut at this many characters.
pub const MAX_LINE_CHARS: usize = 500;
/// How much of a file's start is checked for NUL bytes.
const BINARY_SNIFF_BYTES: usize = 8192;
/// Files larger than this are skipped (logs and data dumps, not source).
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Threads searching file contents.
const WORKERS: usize = 2;

/// The `grep` tool.
pub struct GrepTool {
    cwd: PathBuf,
    state: ToolState,
}

impl GrepTool {
    /// A `grep` tool resolving relative paths against `cwd`, within `state`'s
    /// sandbox.
    pub fn new(cwd: PathBuf, state: ToolState) -> GrepTool {
        GrepTool { cwd, state }
    }
}

/// Options for one search.
#[derive(Clone, Debug)]
pub struct GrepOptions {
    /// Lines of context before and after each match.
    pub context: usize,
    /// Most matches reported.
    pub limit: usize,
    /// Only files whose name (or relative path, if it has a `/`) matches.
    pub glob: Option<Glob>,
}

/// One matched line found in a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineMatch {
    /// 1-based line number.
    pub line_number: usize,
    /// Byte range of the line (without its `\n` or `\r\n`).
    pub start: usize,
    /// End of the line.
    pub end: usize,
}

/// What one file contributed.
#[derive(Debug, Default)]
struct FileResult {
    /// Output lines: (is a match, text).
    lines: Vec<(bool, String)>,
    matches: usize,
    long_lines_cut: bool,
}

impl Tool for GrepTool {
    fn name(&self) -> &str {
        "grep"
    }

    fn description(&self) -> &str {
        "Search file contents for a regular expression (or a literal string with literal=true). \
         Searches a directory tree recursively (respecting .gitignore, skipping binary files) or \
         one file. Output lines are `path:LINE: text`, context lines `path-LINE- text`. Regex \
         syntax: . \\d \\w \\s [a-z] [^...] ^ $ \\b | (...) * + ? {m,n}. Use glob (e.g. '*.rs' or \
         'src/**/*.ts') to filter files, ignoreCase for case-insensitive search, context for \
         surrounding lines. At most limit matches (default 100) are returned; lines are cut at \
         500 characters."
    }

    fn parameters(&self) -> Value {
        schema::object(
            [
                (
                    "pattern",
                    schema::string(
                        "Regular expression to search for (a literal string if literal is true)",
                    ),
                ),
                (
                    "path",
                    schema::string("Directory or file to search (default: the working directory)"),
                ),
                (
                    "glob",
                    schema::string(
                        "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.rs'",
                    ),
                ),
                (
                    "ignoreCase",
                    schema::boolean("Case-insensitive search (default false)"),
                ),
                (
                    "literal",
                    schema::boolean(
                        "Treat pattern as a literal string, not a regex (default false)",
                    ),
                ),
                (
                    "context",
                    schema::integer(
                        0,
                        "Lines of context to show before and after each match (default 0)",
                    ),
                ),
                (
                    "limit",
                    schema::integer(1, "Maximum number of matches to return (default 100)"),
                ),
            ],
            &["pattern"],
        )
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        run(&self.cwd, &self.state, args, &|| ctx.cancel.is_cancelled())
            .unwrap_or_else(ToolOutput::error)
    }

    fn is_read_only(&self, _args: &Value) -> bool {
        true
    }
}

fn run(
    cwd: &Path,
    state: &ToolState,
    args: &Value,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<ToolOutput, String> {
    let pattern = args::required_str(args, "pattern")?;
    let given = args::optional_str(args, "path")?.unwrap_or(".");
    let ignore_case = args::optional_bool(args, "ignoreCase")?.unwrap_or(false);
    let literal = args::optional_bool(args, "literal")?.unwrap_or(false);
    let context = args::optional_u64(args, "context")?.unwrap_or(0).min(50) as usize;
    let limit = args::optional_u64(args, "limit")?
        .unwrap_or(DEFAULT_LIMIT as u64)
        .max(1) as usize;
    let glob = match args::optional_str(args, "glob")? {
        Some(g) if !g.is_empty() => Some(Glob::new(g).map_err(|e| format!("Invalid glob: {e}."))?),
        _ => None,
    };
    let regex = if literal {
        Regex::literal(pattern, ignore_case)
    } else {
        Regex::with_options(pattern, ignore_case).map_err(|e| {
            format!("Invalid regex {pattern:?}: {e}. Escape special characters with \\, or set literal=true to search for the text as-is.")
        })?
    };
    let resolved = path::resolve(cwd, given)?;
    state.sandbox.check_read(&resolved)?;
    let metadata =
        std::fs::metadata(&resolved).map_err(|e| path::io_error("search", given, &resolved, &e))?;
    let options = GrepOptions {
        context,
        limit,
        glob,
    };
    let (results, special) = if metadata.is_dir() {
        search_tree(cwd, &resolved, &regex, &options, cancelled)
    } else {
        // Asked for this very file: a file grep would skip is an error saying
        // why, never a silent "No matches found."
        let shown = path::describe(given, &resolved);
        let mut buffer = Vec::new();
        match load_file(&resolved, &mut buffer) {
            Ok(()) => {}
            Err(Skipped::TooLarge(size)) => {
                return Err(format!(
                    "{shown} is {}, larger than the {} grep searches. Use bash instead, for \
                     example `grep -n PATTERN FILE | head -100`.",
                    output::format_size(size as usize),
                    output::format_size(MAX_FILE_BYTES as usize)
                ))
            }
            Err(Skipped::NotRegular(kind)) => return Err(open::not_regular_text(&shown, kind)),
            Err(Skipped::WouldBlock) => return Err(open::would_block_text(&shown)),
            Err(Skipped::Io(e)) => return Err(path::io_error("search", given, &resolved, &e)),
        }
        let label = path::printable(&path::relative_display(cwd, &resolved)).into_owned();
        let mut map = BTreeMap::new();
        if let Some(result) = search_file(&label, &regex, &options, &buffer, cancelled) {
            map.insert(0, result);
        } else if find_byte(&buffer[..buffer.len().min(BINARY_SNIFF_BYTES)], 0).is_some() {
            // Asked for this very file: say why nothing came back.
            return Ok(ToolOutput::text(format!(
                "{} is a binary file; grep skips binary files. Use bash (for example `strings`) to inspect it.",
                path::describe(given, &resolved)
            )));
        }
        (map, 0)
    };
    if cancelled() {
        return Err("The search was cancelled.".to_string());
    }
    Ok(format_results(results, limit, context, special))
}

fn format_results(
    results: BTreeMap<usize, FileResult>,
    limit: usize,
    context: usize,
    special: usize,
) -> ToolOutput {
    let mut lines: Vec<String> = Vec::new();
    let mut matches = 0;
    let mut more_available = false;
    let mut long_lines_cut = false;
    let mut files = 0;
    'files: for result in results.into_values() {
        files += 1;
        long_lines_cut |= result.long_lines_cut;
        let mut trailing_context = 0;
        for (is_match, text) in result.lines {
            if is_match {
                if matches == limit {
                    more_available = true;
                    break 'files;
                }
                matches += 1;
                trailing_context = context;
            } else if matches == limit {
                if trailing_context == 0 {
                    continue;
                }
                trailing_context -= 1;
            }
            lines.push(text);
        }
    }
    let special_note = (special > 0).then(|| {
        format!(
            "{special} special file{} (pipe, device or a kernel file whose reads block) skipped unread",
            if special == 1 { "" } else { "s" }
        )
    });
    if matches == 0 {
        let text = match &special_note {
            Some(note) => format!("No matches found.\n\n[{note}]"),
            None => "No matches found.".to_string(),
        };
        return ToolOutput::text(text).with_details(json_object! { "matches" => 0 });
    }
    let text = lines.join("\n");
    let cut = output::truncate_head(&text, usize::MAX, MAX_BYTES);
    let mut out = cut.content;
    let mut notes = Vec::new();
    if more_available {
        notes.push(format!(
            "{limit} matches limit reached. Use limit={} for more, or refine the pattern",
            limit * 2
        ));
    }
    if cut.truncated {
        notes.push(format!(
            "{} limit reached; output cut",
            output::format_size(MAX_BYTES)
        ));
    }
    notes.extend(special_note);
    if long_lines_cut {
        notes.push(format!("Some lines were longer than {MAX_LINE_CHARS} characters and were cut; use read to see them whole"));
    }
    if !notes.is_empty() {
        out.push_str(&format!("\n\n[{}]", notes.join(". ")));
    }
    ToolOutput::text(out).with_details(json_object! {
        "matches" => matches,
        "files" => files,
        "limitReached" => more_available,
    })
}

/// Walks `root` and searches every file in parallel; results keyed by walk order,
/// and how many special files (pipes, devices, blocking kernel files, reached
/// through symbolic links) were skipped unread.
fn search_tree(
    cwd: &Path,
    root: &Path,
    regex: &Regex,
    options: &GrepOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> (BTreeMap<usize, FileResult>, usize) {
    let results: Mutex<BTreeMap<usize, FileResult>> = Mutex::new(BTreeMap::new());
    let total = AtomicUsize::new(0);
    let special = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::sync_channel::<(usize, PathBuf, String)>(256);
    // Only the workers hold the receiver: when they all stop early (limit
    // reached), it is dropped and a walker blocked on a full channel gets an
    // error instead of waiting forever.
    let receiver = Arc::new(Mutex::new(receiver));
    let worker_receivers: Vec<_> = (0..WORKERS).map(|_| Arc::clone(&receiver)).collect();
    drop(receiver);
    std::thread::scope(|scope| {
        for receiver in worker_receivers {
            let (results, total, stop, special) = (&results, &total, &stop, &special);
            scope.spawn(move || {
                let mut buffer = Vec::new();
                loop {
                    let next = {
                        let guard = lock(&receiver);
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        guard.recv()
                    };
                    let Ok((index, path, label)) = next else {
                        break;
                    };
                    match load_file(&path, &mut buffer) {
                        Ok(()) => {}
                        // A symbolic link to a directory is not followed, and not special.
                        Err(Skipped::NotRegular(kind)) if kind == open::DIRECTORY => continue,
                        Err(Skipped::NotRegular(_) | Skipped::WouldBlock) => {
                            special.fetch_add(1, Ordering::Relaxed);
                            continue;
                        }
                        Err(_) => continue,
                    }
                    if let Some(result) = search_file(&label, regex, options, &buffer, cancelled) {
                        // One more than the limit tells "there is more".
                        if total.fetch_add(result.matches, Ordering::Relaxed) + result.matches
                            > options.limit
                        {
                            stop.store(true, Ordering::Relaxed);
                        }
                        lock(results).insert(index, result);
                    }
                    if cancelled() {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
        let mut index = 0;
        walk::walk(root, true, &mut |entry| {
            if stop.load(Ordering::Relaxed) || cancelled() {
                return Flow::Stop;
            }
            if entry.is_dir {
                return Flow::Continue;
            }
            let rel_to_root = &entry.rel;
            if let Some(glob) = &options.glob {
                if !glob.matches_path(rel_to_root) {
                    return Flow::Continue;
                }
            }
            let label = path::printable(&path::relative_display(cwd, &entry.path)).into_owned();
            index += 1;
            match sender.send((index, entry.path.clone(), label)) {
                Ok(()) => Flow::Continue,
                Err(_) => Flow::Stop,
            }
        });
        drop(sender);
    });
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    (results, special.into_inner())
}

/// Why a file was not searched.
#[derive(Debug)]
enum Skipped {
    /// Larger than [`MAX_FILE_BYTES`] (its size).
    TooLarge(u64),
    /// A pipe, device, socket… (what it is).
    NotRegular(&'static str),
    /// A special file whose read would wait (`/proc/kmsg`).
    WouldBlock,
    /// Could not be opened or read.
    Io(std::io::Error),
}

/// Reads the whole of `path` into `buffer`, never waiting on a special file
/// ([`open::open_regular`]).
fn load_file(path: &Path, buffer: &mut Vec<u8>) -> Result<(), Skipped> {
    let (mut file, metadata) = open::open_regular(path).map_err(|e| match e {
        OpenError::Io(e) => Skipped::Io(e),
        OpenError::NotRegular(kind) => Skipped::NotRegular(kind),
    })?;
    let size = metadata.len();
    if size > MAX_FILE_BYTES {
        return Err(Skipped::TooLarge(size));
    }
    buffer.clear();
    buffer.reserve(size as usize + 1);
    // Read at most one byte more than the cap: a file that grows while read
    // (a log) cannot make the buffer unbounded.
    match (&mut file).take(MAX_FILE_BYTES + 1).read_to_end(buffer) {
        Ok(_) if buffer.len() as u64 > MAX_FILE_BYTES => {
            Err(Skipped::TooLarge(buffer.len() as u64))
        }
        Ok(_) => Ok(()),
        Err(e) if open::would_block(&e) => Err(Skipped::WouldBlock),
        Err(e) => Err(Skipped::Io(e)),
    }
}

/// Searches one file's contents; `None` when it has no match, is binary, too large or
/// unreadable.
fn search_file(
    label: &str,
    regex: &Regex,
    options: &GrepOptions,
    buffer: &[u8],
    cancelled: &dyn Fn() -> bool,
) -> Option<FileResult> {
    let sniff = &buffer[..buffer.len().min(BINARY_SNIFF_BYTES)];
    if find_byte(sniff, 0).is_some() {
        return None;
    }
    let found = search_buffer(regex, buffer, options.limit.saturating_add(1), cancelled);
    if found.is_empty() {
        return None;
    }
    Some(format_file(label, buffer, &found, options.context))
}

/// The matching lines of `buffer`, at most `max`; stops early (with what it
/// found so far) once `cancelled` says so. A pattern such as `(.{100}){100}\d`
/// costs its program size per character, so one large file can take minutes:
/// checking per line lets Esc stop it.
pub fn search_buffer(
    regex: &Regex,
    buffer: &[u8],
    max: usize,
    cancelled: &dyn Fn() -> bool,
) -> Vec<LineMatch> {
    let mut found = Vec::new();
    let mut pos = 0;
    let mut line_number = 1;
    let mut counted_to = 0;
    while pos < buffer.len() && found.len() < max && !cancelled() {
        // Jump to the next line that can match: the prefilter's next hit, or
        // simply the next line when there is no prefilter.
        let line_start = match regex.prefilter() {
            Some(prefilter) => {
                let Some(hit) = prefilter.find(buffer, pos) else {
                    break;
                };
                rfind_byte(&buffer[pos..hit], b'\n').map_or(pos, |i| pos + i + 1)
            }
            None => pos,
        };
        let line_end =
            find_byte(&buffer[line_start..], b'\n').map_or(buffer.len(), |i| line_start + i);
        let mut content_end = line_end;
        if content_end > line_start && buffer[content_end - 1] == b'\r' {
            content_end -= 1;
        }
        let line = &buffer[line_start..content_end];
        let is_match =
            (regex.is_pure_literal() && regex.prefilter().is_some()) || regex.is_match(line);
        if is_match {
            line_number += buffer[counted_to..line_start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted_to = line_start;
            found.push(LineMatch {
                line_number,
                start: line_start,
                end: content_end,
            });
        }
        pos = line_end + 1;
    }
    found
}

/// Output lines for one file: matches and, with `context`, their neighbours.
fn format_file(label: &str, buffer: &[u8], found: &[LineMatch], context: usize) -> FileResult {
    let mut result = FileResult {
        matches: found.len(),
        ..FileResult::default()
    };
    let render = |result: &mut FileResult, is_match: bool, number: usize, bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let clean = output::sanitize(&text);
        let cut = output::cut_line(&clean, MAX_LINE_CHARS);
        result.long_lines_cut |= cut.len() != clean.len();
        let sep = if is_match { ':' } else { '-' };
        result
            .lines
            .push((is_match, format!("{label}{sep}{number}{sep} {cut}")));
    };
    if context == 0 {
        for m in found {
            render(&mut result, true, m.line_number, &buffer[m.start..m.end]);
        }
        return result;
    }
    let lines: Vec<&[u8]> = {
        let mut lines: Vec<&[u8]> = buffer.split(|&b| b == b'\n').collect();
        if buffer.ends_with(b"\n") {
            lines.pop();
        }
        lines
            .into_iter()
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .collect()
    };
    let matched: std::collections::HashSet<usize> = found.iter().map(|m| m.line_number).collect();
    let mut next_line = 1;
    for m in found {
        let from = m.line_number.saturating_sub(context).max(next_line);
        let to = (m.line_number + context).min(lines.len());
        for number in from..=to {
            // A later match inside this window is printed as a match, once.
            if number > m.line_number && matched.contains(&number) {
                break;
            }
            render(
                &mut result,
                number == m.line_number,
                number,
                lines[number - 1],
            );
            next_line = number + 1;
        }
    }
    result
}
