//! Reading a session file's bytes into a header and entries, surviving damage.
//!
//! A session file is only ever appended to, so the ways it breaks are few and known:
//! - **A torn last line.** The writer died mid-`write`: the file does not end with a
//!   newline and its last line is not valid JSON. It is reported and ignored; every
//!   line before it is intact.
//! - **A corrupt line in the middle** (a disk error, a hand edit, a torn line that a
//!   later append followed): reported with its line number and skipped.
//! - **An old version**: migrated in memory ([`super::migrate`]).
//! - **A newer version**: refused, because skipping what we do not understand could
//!   lose history on the next fork.

use super::arena::TextArena;
use super::damaged::DamagedLine;
use super::entry::{Entry, EntryKind, SessionHeader, CURRENT_VERSION};
use super::id_index::{IdIndex, IdKeys};
use super::migrate::migrate_to_current;
use super::source::{
    after_last_newline, split_at_lines, trim_cr, LineReader, Source, WINDOW_BYTES,
};
use focus_core::json::{self, FromJson, Value};
use std::fmt;
use std::io;
use std::ops::Range;

/// A file's contents, as far as they could be read.
#[derive(Debug)]
pub struct ParsedSession {
    /// The header, if line 1 held a readable one.
    pub header: Option<SessionHeader>,
    /// The entries in file order (migrated to the current version).
    pub entries: Vec<Entry>,
    /// What was wrong with the file, line by line.
    pub problems: Vec<LoadProblem>,
    /// The lines skipped as corrupt, with what could be salvaged of them
    /// ([`super::damaged`]), in file order.
    pub damaged: Vec<DamagedLine>,
    /// How the file ends; the writer needs this to start its next line cleanly.
    pub tail: Tail,
}

/// How the bytes of a file end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// Empty, or the last byte is a newline: appends can go straight on.
    Clean,
    /// The last line is complete JSON but lacks its newline: the next append must
    /// write one first.
    MissingNewline,
    /// The last line is torn; only the first `keep` bytes are whole lines. The next
    /// append truncates the file to `keep` first.
    Torn {
        /// Bytes of whole lines.
        keep: u64,
    },
}

/// One thing wrong with a session file.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadProblem {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub kind: ProblemKind,
}

/// The kinds of [`LoadProblem`].
#[derive(Clone, Debug, PartialEq)]
pub enum ProblemKind {
    /// The last line was cut short (the writer was killed mid-write); `bytes` were ignored.
    TornTail {
        /// How many bytes the incomplete line had.
        bytes: usize,
    },
    /// A line that is not valid JSON, or not an object with `type` and `id`; skipped.
    CorruptLine(String),
    /// An entry of a known type whose fields could not be read; kept out of the context.
    UnreadableEntry(String),
    /// Line 1 is not a session header; the entries are read anyway.
    MissingHeader(String),
    /// The file was migrated in memory from this version.
    Migrated {
        /// The version in the header.
        from: u64,
    },
}

impl fmt::Display for LoadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = self.line;
        match &self.kind {
            ProblemKind::TornTail { bytes } => write!(
                f,
                "line {line}: incomplete last line ({bytes} bytes, the writer was probably interrupted); ignored"
            ),
            ProblemKind::CorruptLine(why) => write!(f, "line {line}: skipped corrupt line: {why}"),
            ProblemKind::UnreadableEntry(why) => {
                write!(f, "line {line}: entry kept out of the context: {why}")
            }
            ProblemKind::MissingHeader(why) => write!(f, "line {line}: no session header: {why}"),
            ProblemKind::Migrated { from } => write!(
                f,
                "line {line}: format version {from} migrated to {CURRENT_VERSION} in memory"
            ),
        }
    }
}

/// Why a file cannot be read as a session at all.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The header's version is newer than [`CURRENT_VERSION`].
    NewerVersion(u64),
    /// Line 1 is complete JSON but some other kind of object.
    NotASession(String),
}

/// Files bigger than this are decoded on several threads (parsing JSON is most of
/// the cost of loading, and lines are independent).
const PARALLEL_THRESHOLD_BYTES: u64 = 1 << 20;

/// The window the first line (the header) is read through: headers are small, and
/// the entry threads read the rest of the file on their own.
const HEADER_WINDOW_BYTES: usize = 4096;

/// One decoded line.
// Short-lived (one per line, consumed at once); boxing the entry would cost an
// allocation per line for nothing.
#[allow(clippy::large_enum_variant)]
enum Decoded {
    /// An entry, what was wrong with it, and its id's hash when the fast path
    /// already took it (the id may be in an arena not sealed yet).
    Entry(Entry, Option<LoadProblem>, Option<u64>),
    Problem(LoadProblem),
    /// A line that is not an entry at all, kept aside.
    Damaged(LoadProblem, DamagedLine),
}

/// Why a [`Source`] could not be read as a session.
pub(super) enum ReadFailure {
    /// It is not a session focus may read.
    Refused(Refusal),
    /// Reading its bytes failed.
    Io(io::Error),
}

impl From<io::Error> for ReadFailure {
    fn from(e: io::Error) -> ReadFailure {
        ReadFailure::Io(e)
    }
}

/// Reads a session file's bytes.
///
/// # Errors
///
/// A [`Refusal`] when the bytes are no session: no header line, a header of another kind, or a
/// newer format version.
pub fn parse_session(bytes: &[u8]) -> Result<ParsedSession, Refusal> {
    match parse_source_for_tree(bytes) {
        Ok((parsed, _)) => Ok(parsed),
        Err(ReadFailure::Refused(refusal)) => Err(refusal),
        // Reading from memory does not fail; should it anyway, say so rather than
        // hand back a partial session.
        Err(ReadFailure::Io(e)) => Err(Refusal::NotASession(format!("unreadable: {e}"))),
    }
}

/// What the decoding threads note for [`super::SessionTree::from_hashed`], each
/// for its own entries, so that work is shared out too.
pub(super) struct TreeHints {
    /// The key of the id hashes.
    pub(super) keys: IdKeys,
    /// Each entry's id hash, in entry order.
    pub(super) hashes: Vec<u64>,
    /// The positions of label entries.
    pub(super) labels: Vec<usize>,
}

/// [`parse_session`] for any [`Source`] (a file is read through windows, never
/// whole), with what building the tree can use.
pub(super) fn parse_source_for_tree<S: Source + ?Sized>(
    source: &S,
) -> Result<(ParsedSession, TreeHints), ReadFailure> {
    let keys = IdKeys::new();
    let mut problems = Vec::new();
    let len = source.len();
    // A byte-order mark (some editors add one) is not part of the first line.
    let bom = if source.read_range(0..len.min(3))? == b"\xEF\xBB\xBF" {
        3
    } else {
        0
    };
    // `body` is every whole line, plus a last line that lacks only its newline.
    let mut body_end = len;
    let mut torn = None;
    let mut tail = Tail::Clean;
    if len > bom && source.read_range(len - 1..len)? != b"\n" {
        let last_start = after_last_newline(source, bom..len)?;
        let last = source.read_range(last_start..len)?;
        if let Ok(Value::Object(_)) = json::parse(trim_cr(&last)) {
            // Complete JSON, only the newline is missing: a whole entry.
            tail = Tail::MissingNewline;
        } else {
            body_end = last_start;
            torn = Some(last.len());
            tail = Tail::Torn { keep: last_start };
        }
    }

    let mut header = None;
    // The entries are the lines after the header (all lines if there is none).
    let mut entries_from = bom;
    let mut lines_before = 0;
    let mut first_lines = LineReader::new(source, bom..body_end, HEADER_WINDOW_BYTES);
    if let Some((number, first)) = first_lines.next_line()? {
        match json::parse(first) {
            Ok(value) if value["type"].as_str() == Some("session") => {
                match SessionHeader::from_json(&value) {
                    Ok(h) if h.version > CURRENT_VERSION => {
                        return Err(ReadFailure::Refused(Refusal::NewerVersion(h.version)))
                    }
                    Ok(h) => header = Some(h),
                    Err(err) => problems.push(LoadProblem {
                        line: number,
                        kind: ProblemKind::MissingHeader(format!("unreadable header: {err}")),
                    }),
                }
                entries_from = first_lines.position();
                lines_before = first_lines.lines_passed();
            }
            Ok(value @ Value::Object(_)) if number == 1 => {
                return Err(ReadFailure::Refused(Refusal::NotASession(format!(
                    "line 1 has type {:?}, expected \"session\"",
                    value["type"].as_str().unwrap_or("(none)")
                ))));
            }
            _ => problems.push(LoadProblem {
                line: 1,
                kind: ProblemKind::MissingHeader("line 1 is not a readable session header".into()),
            }),
        }
    }
    drop(first_lines);

    let version = header.as_ref().map_or(CURRENT_VERSION, |h| h.version);
    let region = entries_from..body_end;
    // One part per thread, in file order.
    let (parts, lines) = if version < CURRENT_VERSION {
        problems.push(LoadProblem {
            line: 1,
            kind: ProblemKind::Migrated { from: version },
        });
        if let Some(h) = header.as_mut() {
            h.version = CURRENT_VERSION;
        }
        decode_old_version(source, region, version, lines_before, &keys)?
    } else {
        let threads = if region.end - region.start > PARALLEL_THRESHOLD_BYTES {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
        } else {
            1
        };
        decode_in_parallel(source, region, threads, lines_before, &keys)?
    };
    if let Some(bytes) = torn {
        problems.push(LoadProblem {
            line: lines + 1,
            kind: ProblemKind::TornTail { bytes },
        });
    }
    let mut entries = Vec::new();
    let mut hashes = Vec::new();
    let mut labels = Vec::new();
    let mut damaged = Vec::new();
    for part in parts {
        damaged.extend(part.damaged);
        labels.extend(part.labels.iter().map(|p| p + entries.len()));
        if entries.is_empty() {
            // The first part's vector is kept and the others appended to it, so half
            // the entries (with two threads) never move again.
            entries = part.entries;
            hashes = part.hashes;
        } else {
            entries.extend(part.entries);
            hashes.extend(part.hashes);
        }
        problems.extend(part.problems);
    }
    problems.sort_by_key(|p| p.line);
    let parsed = ParsedSession {
        header,
        entries,
        problems,
        damaged,
        tail,
    };
    let hints = TreeHints {
        keys,
        hashes,
        labels,
    };
    Ok((parsed, hints))
}

/// Parses one entry line: an ordinary message entry straight into an [`Entry`]
/// ([`super::direct`]), anything else (or anything unusual) through a JSON tree.
///
/// The fast path's texts go into `arena`; they can be read once it is sealed, so
/// it hashes the entry's id (with `keys`) as it reads it.
fn decode_line(number: usize, line: &[u8], arena: &mut TextArena, keys: &IdKeys) -> Decoded {
    if let Ok(text) = std::str::from_utf8(line) {
        if let Some((entry, id_hash)) = super::direct::message_entry(text, arena, keys) {
            return Decoded::Entry(entry, None, Some(id_hash));
        }
    }
    match decode_line_to_value(number, line) {
        Ok(value) => match decode_value(number, value) {
            Decoded::Problem(problem) => Decoded::Damaged(problem, DamagedLine::new(number, line)),
            decoded => decoded,
        },
        Err(problem) => Decoded::Damaged(problem, DamagedLine::new(number, line)),
    }
}

fn decode_value(number: usize, value: Value) -> Decoded {
    match Entry::from_json_lenient(value) {
        Ok((entry, problem)) => {
            let problem = problem.map(|why| LoadProblem {
                line: number,
                kind: ProblemKind::UnreadableEntry(format!(
                    "{} entry {}: {why}",
                    entry.kind.type_name(),
                    entry.id
                )),
            });
            Decoded::Entry(entry, problem, None)
        }
        Err(why) => Decoded::Problem(LoadProblem {
            line: number,
            kind: ProblemKind::CorruptLine(format!("not an entry: {why}")),
        }),
    }
}

/// Splits `region` into `threads` pieces of about equal bytes (at line ends) and
/// reads and decodes each on its own scoped thread; the parts come back in file
/// order, with the number of lines up to the region's end.
///
/// A piece cannot know its first line number without counting the newlines of the
/// pieces before it, which would be a serial pass over the whole file. So each
/// thread numbers its lines from 1, and the numbers are shifted here once every
/// piece has said how many lines it held (`lines_before` is the count before the
/// region).
fn decode_in_parallel<S: Source + ?Sized>(
    source: &S,
    region: Range<u64>,
    threads: usize,
    lines_before: usize,
    keys: &IdKeys,
) -> io::Result<(Vec<Part>, usize)> {
    let pieces = split_at_lines(source, region, threads)?;
    let results = if pieces.len() == 1 {
        vec![decode_range(source, pieces[0].clone(), keys)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = pieces
                .into_iter()
                .map(|piece| scope.spawn(move || decode_range(source, piece, keys)))
                .collect();
            handles
                .into_iter()
                .map(|handle| match handle.join() {
                    Ok(result) => result,
                    // Decoding does not panic on any input; should it anyway, fail
                    // loudly rather than load a session with entries silently missing.
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        })
    };
    let mut parts = Vec::with_capacity(results.len());
    let mut before = lines_before;
    for result in results {
        let (mut part, count) = result?;
        for problem in &mut part.problems {
            problem.line += before;
        }
        for damaged in &mut part.damaged {
            damaged.line += before;
        }
        before += count;
        parts.push(part);
    }
    Ok((parts, before))
}

/// Reads and decodes the lines of `range`, numbered from its start; with the count
/// of lines it held (blank ones included).
fn decode_range<S: Source + ?Sized>(
    source: &S,
    range: Range<u64>,
    keys: &IdKeys,
) -> io::Result<(Part, usize)> {
    let mut lines = LineReader::new(source, range, WINDOW_BYTES);
    let mut part = Part::default();
    // One arena per thread, sealed before the entries leave (their texts can be
    // read from then on).
    let mut arena = TextArena::new();
    while let Some((number, line)) = lines.next_line()? {
        part.add(decode_line(number, line, &mut arena, keys), keys);
    }
    arena.seal();
    Ok((part, lines.lines_passed()))
}

/// Decoded lines with the entries and the problems apart, each in file order, and
/// the entries' [`TreeHints`] (label positions counted within the part).
#[derive(Default)]
struct Part {
    entries: Vec<Entry>,
    problems: Vec<LoadProblem>,
    damaged: Vec<DamagedLine>,
    hashes: Vec<u64>,
    labels: Vec<usize>,
}

impl Part {
    /// Adds the next decoded line, with its id's hash (taken with `keys` if the
    /// decoder did not take it).
    fn add(&mut self, decoded: Decoded, keys: &IdKeys) {
        match decoded {
            Decoded::Entry(entry, problem, id_hash) => {
                // Without a hash from the decoder, the id is a text of its own
                // (the general path), readable now.
                let hash = id_hash.unwrap_or_else(|| IdIndex::hash_with(keys, &entry.id));
                self.hashes.push(hash);
                if matches!(entry.kind, EntryKind::Label { .. }) {
                    self.labels.push(self.entries.len());
                }
                self.entries.push(entry);
                self.problems.extend(problem);
            }
            Decoded::Problem(problem) => self.problems.push(problem),
            Decoded::Damaged(problem, damaged) => {
                self.problems.push(problem);
                self.damaged.push(damaged);
            }
        }
    }
}

/// Versions 1 and 2 need every line of `region` as JSON first (migration links
/// entries to each other), then decoding; with the line count as
/// [`decode_in_parallel`] gives it.
fn decode_old_version<S: Source + ?Sized>(
    source: &S,
    region: Range<u64>,
    version: u64,
    lines_before: usize,
    keys: &IdKeys,
) -> io::Result<(Vec<Part>, usize)> {
    let mut part = Part::default();
    let mut numbers = Vec::new();
    let mut values = Vec::new();
    let mut lines = LineReader::new(source, region, WINDOW_BYTES);
    while let Some((number, line)) = lines.next_line()? {
        let number = number + lines_before;
        match decode_line_to_value(number, line) {
            Ok(value) => {
                numbers.push(number);
                values.push(value);
            }
            Err(problem) => part.add(
                Decoded::Damaged(problem, DamagedLine::new(number, line)),
                keys,
            ),
        }
    }
    migrate_to_current(version, &mut values);
    for (number, value) in numbers.into_iter().zip(values) {
        part.add(decode_value(number, value), keys);
    }
    Ok((vec![part], lines_before + lines.lines_passed()))
}

fn decode_line_to_value(number: usize, line: &[u8]) -> Result<Value, LoadProblem> {
    match decode_line_value(line) {
        Ok(value) => Ok(value),
        Err(why) => Err(LoadProblem {
            line: number,
            kind: ProblemKind::CorruptLine(why),
        }),
    }
}

fn decode_line_value(line: &[u8]) -> Result<Value, String> {
    match json::parse(line) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(format!(
            "expected a JSON object, found {}",
            other.type_name()
        )),
        Err(err) => Err(err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
    const E1: &str =
        r#"{"type":"session_info","id":"aaaaaaaa","parentId":null,"timestamp":"t","name":"x"}"#;
    const E2: &str = r#"{"type":"label","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"t","targetId":"aaaaaaaa","label":"l"}"#;

    #[test]
    fn torn_tail_is_reported_and_whole_lines_kept() {
        let text = format!("{HEADER}\n{E1}\n{}", &E2[..30]);
        let parsed = parse_session(text.as_bytes()).unwrap();
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!(
            parsed.tail,
            Tail::Torn {
                keep: (HEADER.len() + E1.len() + 2) as u64
            }
        );
        assert_eq!(
            parsed.problems[0].to_string(),
            "line 3: incomplete last line (30 bytes, the writer was probably interrupted); ignored"
        );
    }

    #[test]
    fn complete_last_line_without_newline_is_an_entry() {
        let text = format!("{HEADER}\n{E1}\n{E2}");
        let parsed = parse_session(text.as_bytes()).unwrap();
        assert_eq!(parsed.entries.len(), 2);
        assert_eq!(parsed.tail, Tail::MissingNewline);
        assert!(parsed.problems.is_empty());
    }

    #[test]
    fn corrupt_middle_line_is_skipped_with_its_number() {
        let text = format!("{HEADER}\n{E1}\n{{\"type\":\"mess\n{E2}\n");
        let parsed = parse_session(text.as_bytes()).unwrap();
        assert_eq!(parsed.entries.len(), 2);
        assert_eq!(parsed.problems.len(), 1);
        assert_eq!(parsed.problems[0].line, 3);
        assert!(matches!(
            parsed.problems[0].kind,
            ProblemKind::CorruptLine(_)
        ));
    }

    #[test]
    fn newer_versions_and_foreign_files_are_refused() {
        let newer = r#"{"type":"session","version":4,"id":"s","timestamp":"t","cwd":"/"}"#;
        assert_eq!(
            parse_session(format!("{newer}\n").as_bytes()).unwrap_err(),
            Refusal::NewerVersion(4)
        );
        assert!(matches!(
            parse_session(b"{\"type\":\"message\",\"id\":\"x\"}\n"),
            Err(Refusal::NotASession(_))
        ));
    }

    /// 3,000 lines with corrupt ones, blank ones and CRLF endings among them.
    fn many_lines() -> String {
        let mut text = String::new();
        for i in 0..3000 {
            if i % 500 == 7 {
                text.push_str("{broken\n");
            } else if i % 700 == 3 {
                text.push_str("  \r\n");
            } else {
                text.push_str(&format!(
                    r#"{{"type":"custom","id":"{i:08x}","parentId":null,"timestamp":"t","customType":"x","data":"{}"}}"#,
                    "d".repeat(i % 50)
                ));
                text.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
            }
        }
        text
    }

    #[test]
    fn parallel_decoding_matches_sequential_order_and_problems() {
        let text = many_lines();
        let bytes = text.as_bytes();
        let keys = IdKeys::new();
        let summary = |threads: usize| -> (Vec<String>, Vec<usize>, usize) {
            let (parts, lines) =
                decode_in_parallel(bytes, 0..bytes.len() as u64, threads, 1, &keys).unwrap();
            let ids = parts
                .iter()
                .flat_map(|p| &p.entries)
                .map(|e| e.id.to_string());
            let numbers = parts.iter().flat_map(|p| &p.problems).map(|p| p.line);
            (ids.collect(), numbers.collect(), lines)
        };
        let sequential = summary(1);
        for threads in 2..=5 {
            assert_eq!(summary(threads), sequential, "{threads} threads");
        }
        // 3,000 lines after one before the region: 5 blank, 6 corrupt (the first,
        // i = 7, is line 9).
        assert_eq!(sequential.0.len(), 2989);
        assert_eq!(sequential.1, [9, 509, 1009, 1509, 2009, 2509]);
        assert_eq!(sequential.2, 3001);
    }

    #[test]
    fn a_torn_tail_after_many_lines_is_numbered_past_all_of_them() {
        let text = format!("{HEADER}\n{}{{\"type\":\"mess", many_lines());
        let parsed = parse_session(text.as_bytes()).unwrap();
        assert_eq!(parsed.entries.len(), 2989);
        let torn = parsed.problems.last().unwrap();
        assert_eq!(torn.line, 3002);
        assert_eq!(torn.kind, ProblemKind::TornTail { bytes: 13 });
    }

    #[test]
    fn byte_order_mark_is_skipped_and_counted_in_offsets() {
        let text = format!("\u{feff}{HEADER}\n{E1}\n{{\"ty");
        let parsed = parse_session(text.as_bytes()).unwrap();
        assert_eq!(parsed.header.unwrap().id, "s1");
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!(
            parsed.tail,
            Tail::Torn {
                keep: (3 + HEADER.len() + E1.len() + 2) as u64
            }
        );
    }

    #[test]
    fn empty_and_torn_header_files_load_empty() {
        for text in ["", &HEADER[..20]] {
            let parsed = parse_session(text.as_bytes()).unwrap();
            assert!(parsed.header.is_none() && parsed.entries.is_empty());
        }
    }
}
