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

use super::entry::{Entry, EntryKind, SessionHeader, CURRENT_VERSION};
use super::id_index::{IdIndex, IdKeys};
use super::migrate::migrate_to_current;
use focus_core::json::{self, FromJson, Value};
use std::fmt;

/// A file's contents, as far as they could be read.
#[derive(Debug)]
pub struct ParsedSession {
    /// The header, if line 1 held a readable one.
    pub header: Option<SessionHeader>,
    /// The entries in file order (migrated to the current version).
    pub entries: Vec<Entry>,
    /// What was wrong with the file, line by line.
    pub problems: Vec<LoadProblem>,
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
const PARALLEL_THRESHOLD_BYTES: usize = 1 << 20;

/// One decoded line.
// Short-lived (one per line, consumed at once); boxing the entry would cost an
// allocation per line for nothing.
#[allow(clippy::large_enum_variant)]
enum Decoded {
    Entry(Entry, Option<LoadProblem>),
    Problem(LoadProblem),
}

/// Reads a session file's bytes.
pub fn parse_session(bytes: &[u8]) -> Result<ParsedSession, Refusal> {
    parse_session_for_tree(bytes).map(|(parsed, _)| parsed)
}

/// What the decoding threads note for [`super::SessionTree::from_hashed`] while the
/// entries are fresh in their caches.
pub(super) struct TreeHints {
    /// The key of the id hashes.
    pub(super) keys: IdKeys,
    /// Each entry's id hash, in entry order.
    pub(super) hashes: Vec<u64>,
    /// The positions of label entries.
    pub(super) labels: Vec<usize>,
}

/// [`parse_session`], with what building the tree can use.
pub(super) fn parse_session_for_tree(bytes: &[u8]) -> Result<(ParsedSession, TreeHints), Refusal> {
    let keys = IdKeys::new();
    let mut problems = Vec::new();
    // A byte-order mark (some editors add one) is not part of the first line.
    let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let (whole, tail) = split_tail(&bytes[bom..]);
    // `body` is every whole line, plus a last line that lacks only its newline.
    let mut body = whole;
    let tail = match tail {
        Some(torn) => {
            if let Ok(Value::Object(_)) = json::parse(trim_cr(torn)) {
                // Complete JSON, only the newline is missing: a whole entry.
                body = &bytes[bom..];
                Tail::MissingNewline
            } else {
                let number = whole.iter().filter(|&&b| b == b'\n').count() + 1;
                problems.push(LoadProblem {
                    line: number,
                    kind: ProblemKind::TornTail { bytes: torn.len() },
                });
                Tail::Torn {
                    keep: (bom + whole.len()) as u64,
                }
            }
        }
        None => Tail::Clean,
    };

    let mut header = None;
    // The entries are the lines after the header (all lines if there is none).
    let mut entry_region = Lines::new(body, 0);
    let mut first_lines = Lines::new(body, 0);
    if let Some((number, first)) = first_lines.next() {
        match json::parse(first) {
            Ok(value) if value["type"].as_str() == Some("session") => {
                match SessionHeader::from_json(&value) {
                    Ok(h) if h.version > CURRENT_VERSION => {
                        return Err(Refusal::NewerVersion(h.version))
                    }
                    Ok(h) => header = Some(h),
                    Err(err) => problems.push(LoadProblem {
                        line: number,
                        kind: ProblemKind::MissingHeader(format!("unreadable header: {err}")),
                    }),
                }
                entry_region = first_lines;
            }
            Ok(value @ Value::Object(_)) if number == 1 => {
                return Err(Refusal::NotASession(format!(
                    "line 1 has type {:?}, expected \"session\"",
                    value["type"].as_str().unwrap_or("(none)")
                )));
            }
            _ => problems.push(LoadProblem {
                line: 1,
                kind: ProblemKind::MissingHeader("line 1 is not a readable session header".into()),
            }),
        }
    }

    let version = header.as_ref().map_or(CURRENT_VERSION, |h| h.version);
    // One part per thread, in file order.
    let parts: Vec<Part> = if version < CURRENT_VERSION {
        problems.push(LoadProblem {
            line: 1,
            kind: ProblemKind::Migrated { from: version },
        });
        if let Some(h) = header.as_mut() {
            h.version = CURRENT_VERSION;
        }
        let lines: Vec<_> = entry_region.collect();
        vec![Part::of(decode_old_version(version, &lines), &keys)]
    } else if entry_region.remaining() > PARALLEL_THRESHOLD_BYTES {
        decode_in_parallel(entry_region, &keys)
    } else {
        vec![Part::of(
            entry_region.map(|(n, l)| decode_line(n, l)),
            &keys,
        )]
    };
    let mut entries = Vec::new();
    let mut hashes = Vec::new();
    let mut labels = Vec::new();
    for part in parts {
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
        tail,
    };
    let hints = TreeHints {
        keys,
        hashes,
        labels,
    };
    Ok((parsed, hints))
}

/// An iterator over the non-blank lines of a byte region, with their 1-based line
/// numbers in the file, carriage returns trimmed.
#[derive(Clone)]
struct Lines<'a> {
    bytes: &'a [u8],
    /// Where the next line starts.
    pos: usize,
    /// The number of the line before `pos`.
    number: usize,
}

impl<'a> Lines<'a> {
    /// The lines of `bytes`, the first numbered `after + 1`.
    fn new(bytes: &'a [u8], after: usize) -> Lines<'a> {
        Lines {
            bytes,
            pos: 0,
            number: after,
        }
    }

    /// How many bytes are not yet read.
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos.min(self.bytes.len())
    }

    /// Splits what is left into about `parts` pieces of similar size, each ending
    /// at a line end, with the line numbers each starts after. Finding the split
    /// points needs no scan of the lines before them; only counting their
    /// numbers does, so the caller renumbers afterwards (see [`decode_in_parallel`]).
    fn split(self, parts: usize) -> Vec<Lines<'a>> {
        let rest = &self.bytes[self.pos.min(self.bytes.len())..];
        let mut pieces = Vec::with_capacity(parts);
        let mut start = 0;
        for k in 1..=parts {
            let end = if k == parts {
                rest.len()
            } else {
                // Just past the first newline at or after the k-th equal share.
                (find_newline(rest, (rest.len() * k / parts).max(start)) + 1).min(rest.len())
            };
            pieces.push(Lines::new(&rest[start..end], 0));
            start = end;
        }
        pieces
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        while self.pos < self.bytes.len() {
            let end = find_newline(self.bytes, self.pos);
            self.number += 1;
            let line = trim_cr(&self.bytes[self.pos..end]);
            self.pos = end + 1;
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Some((self.number, line));
            }
        }
        None
    }
}

/// The index of the first `\n` at or after `from`, or `bytes.len()` if none.
///
/// Splitting 20 MB into lines one byte at a time is a noticeable share of a load,
/// so eight bytes are tested at once with the "has a zero byte" bit trick (as the
/// JSON parser's string scanner does): XOR with eight newlines turns a newline
/// into a zero byte, and for a word `x`, `(x - 0x01..01) & !x & 0x80..80` is
/// non-zero exactly when `x` has a zero byte, its lowest set bit marking the first.
fn find_newline(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_bytes = |word: [u8; 8]| {
        let x = u64::from_le_bytes(word) ^ (ONES * b'\n' as u64);
        x.wrapping_sub(ONES) & !x & HIGHS
    };
    let mut i = from;
    // Two words per step: lines are long, so the loop itself is most of the cost.
    while let Some(chunk) = bytes.get(i..i + 16) {
        let (Ok(low), Ok(high)) = (
            <[u8; 8]>::try_from(&chunk[..8]),
            <[u8; 8]>::try_from(&chunk[8..]),
        ) else {
            break;
        };
        let (low, high) = (zero_bytes(low), zero_bytes(high));
        if low | high != 0 {
            let first = if low != 0 {
                low.trailing_zeros()
            } else {
                64 + high.trailing_zeros()
            };
            return i + (first / 8) as usize;
        }
        i += 16;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'\n' {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

/// Parses one entry line: an ordinary message entry straight into an [`Entry`]
/// ([`super::direct`]), anything else (or anything unusual) through a JSON tree.
fn decode_line(number: usize, line: &[u8]) -> Decoded {
    if let Ok(text) = std::str::from_utf8(line) {
        if let Some(entry) = super::direct::message_entry(text) {
            return Decoded::Entry(entry, None);
        }
    }
    match decode_line_to_value(number, line) {
        Ok(value) => decode_value(number, value),
        Err(problem) => Decoded::Problem(problem),
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
            Decoded::Entry(entry, problem)
        }
        Err(why) => Decoded::Problem(LoadProblem {
            line: number,
            kind: ProblemKind::CorruptLine(format!("not an entry: {why}")),
        }),
    }
}

/// Splits the lines into one piece per core (by bytes) and splits, numbers and
/// decodes the pieces on scoped threads; results come back in file order.
///
/// A piece cannot know its first line number without counting the newlines of the
/// pieces before it, which would be a serial pass over the whole file. So each
/// thread numbers its lines from 1, and the numbers are shifted here once every
/// piece has said how many lines it held.
fn decode_in_parallel(lines: Lines<'_>, keys: &IdKeys) -> Vec<Part> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let first = lines.number;
    let pieces = lines.split(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = pieces
            .into_iter()
            .map(|mut piece| {
                scope.spawn(move || {
                    let part = Part::of(piece.by_ref().map(|(n, l)| decode_line(n, l)), keys);
                    (part, piece.number)
                })
            })
            .collect();
        let mut parts = Vec::with_capacity(threads);
        let mut before = first;
        for handle in handles {
            match handle.join() {
                Ok((mut part, count)) => {
                    for problem in &mut part.problems {
                        problem.line += before;
                    }
                    before += count;
                    parts.push(part);
                }
                // Decoding does not panic on any input; should it anyway, fail loudly
                // rather than load a session with entries silently missing.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        parts
    })
}

/// Decoded lines with the entries and the problems apart, each in file order, and
/// the entries' [`TreeHints`] (label positions counted within the part).
#[derive(Default)]
struct Part {
    entries: Vec<Entry>,
    problems: Vec<LoadProblem>,
    hashes: Vec<u64>,
    labels: Vec<usize>,
}

impl Part {
    /// The part of these decoded lines, ids hashed with `keys`.
    fn of(decoded: impl IntoIterator<Item = Decoded>, keys: &IdKeys) -> Part {
        let mut part = Part::default();
        for item in decoded {
            match item {
                Decoded::Entry(entry, problem) => {
                    part.hashes.push(IdIndex::hash_with(keys, &entry.id));
                    if matches!(entry.kind, EntryKind::Label { .. }) {
                        part.labels.push(part.entries.len());
                    }
                    part.entries.push(entry);
                    part.problems.extend(problem);
                }
                Decoded::Problem(problem) => part.problems.push(problem),
            }
        }
        part
    }
}

/// Versions 1 and 2 need every line as JSON first (migration links entries to each
/// other), then decoding.
fn decode_old_version(version: u64, lines: &[(usize, &[u8])]) -> Vec<Decoded> {
    let mut problems = Vec::new();
    let mut numbers = Vec::new();
    let mut values = Vec::new();
    for &(number, line) in lines {
        match decode_line_to_value(number, line) {
            Ok(value) => {
                numbers.push(number);
                values.push(value);
            }
            Err(problem) => problems.push(Decoded::Problem(problem)),
        }
    }
    migrate_to_current(version, &mut values);
    problems.extend(
        numbers
            .into_iter()
            .zip(values)
            .map(|(number, value)| decode_value(number, value)),
    );
    problems
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

/// Splits off a last line that has no terminating newline.
fn split_tail(bytes: &[u8]) -> (&[u8], Option<&[u8]>) {
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return (bytes, None);
    }
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(i) => (&bytes[..=i], Some(&bytes[i + 1..])),
        None => (&bytes[..0], Some(bytes)),
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
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
        let summary = |parts: Vec<Part>| -> (Vec<String>, Vec<usize>) {
            let ids = parts.iter().flat_map(|p| &p.entries).map(|e| e.id.clone());
            let lines = parts.iter().flat_map(|p| &p.problems).map(|p| p.line);
            (ids.collect(), lines.collect())
        };
        let lines = Lines::new(text.as_bytes(), 1);
        let keys = IdKeys::new();
        let parallel = summary(decode_in_parallel(lines.clone(), &keys));
        let sequential = summary(vec![Part::of(lines.map(|(n, l)| decode_line(n, l)), &keys)]);
        assert_eq!(parallel, sequential);
        // 3,000 lines: 5 blank, 6 corrupt (the first, i = 7, is line 9).
        assert_eq!(parallel.0.len(), 2989);
        assert_eq!(parallel.1, [9, 509, 1009, 1509, 2009, 2509]);
    }

    #[test]
    fn split_pieces_renumbered_give_every_line_once() {
        let text = many_lines();
        let all: Vec<(usize, &[u8])> = Lines::new(text.as_bytes(), 1).collect();
        for parts in 1..=9 {
            let mut joined = Vec::new();
            let mut before = 1;
            for mut piece in Lines::new(text.as_bytes(), 1).split(parts) {
                joined.extend(piece.by_ref().map(|(n, l)| (n + before, l)));
                before += piece.number;
            }
            assert_eq!(joined, all, "{parts} parts");
        }
        // The word-at-a-time search agrees with a plain one around every position
        // (first and second word of a step, the byte-wise tail, bytes next to 0x0a).
        let naive = |bytes: &[u8], from: usize| {
            (from..bytes.len())
                .find(|&i| bytes[i] == b'\n')
                .unwrap_or(bytes.len())
        };
        for len in 0..40 {
            for at in 0..len {
                let mut bytes: Vec<u8> =
                    (0..len).map(|i| [0x0b, 0x09, 0xff, b'a'][i % 4]).collect();
                bytes[at] = b'\n';
                for from in [0, at / 2, at, (at + 1).min(len)] {
                    assert_eq!(
                        find_newline(&bytes, from),
                        naive(&bytes, from),
                        "{bytes:?} {from}"
                    );
                }
            }
        }
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
