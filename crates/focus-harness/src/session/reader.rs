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

use super::entry::{Entry, SessionHeader, CURRENT_VERSION};
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

/// Reads a session file's bytes.
pub fn parse_session(bytes: &[u8]) -> Result<ParsedSession, Refusal> {
    let mut problems = Vec::new();
    let (whole, tail) = split_tail(bytes);
    let mut lines: Vec<(usize, Value)> = Vec::new();
    let mut line_number = 0;
    let mut start = 0;
    while start < whole.len() {
        let end = whole[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(whole.len(), |i| start + i);
        line_number += 1;
        let line = trim_cr(&whole[start..end]);
        start = end + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match json::parse(line) {
            Ok(value @ Value::Object(_)) => lines.push((line_number, value)),
            Ok(other) => problems.push(LoadProblem {
                line: line_number,
                kind: ProblemKind::CorruptLine(format!(
                    "expected a JSON object, found {}",
                    other.type_name()
                )),
            }),
            Err(err) => problems.push(LoadProblem {
                line: line_number,
                kind: ProblemKind::CorruptLine(err.to_string()),
            }),
        }
    }
    let tail = match tail {
        Some(torn) => match json::parse(trim_cr(torn)) {
            // Complete JSON, only the newline is missing: a whole entry.
            Ok(value @ Value::Object(_)) => {
                lines.push((line_number + 1, value));
                Tail::MissingNewline
            }
            _ => {
                problems.push(LoadProblem {
                    line: line_number + 1,
                    kind: ProblemKind::TornTail { bytes: torn.len() },
                });
                Tail::Torn {
                    keep: whole.len() as u64,
                }
            }
        },
        None => Tail::Clean,
    };

    let mut header = None;
    let mut first_entry = 0;
    if let Some((number, first)) = lines.first() {
        if first["type"].as_str() == Some("session") {
            match SessionHeader::from_json(first) {
                Ok(h) => {
                    if h.version > CURRENT_VERSION {
                        return Err(Refusal::NewerVersion(h.version));
                    }
                    header = Some(h);
                }
                Err(err) => problems.push(LoadProblem {
                    line: *number,
                    kind: ProblemKind::MissingHeader(format!("unreadable header: {err}")),
                }),
            }
            first_entry = 1;
        } else if *number == 1 {
            return Err(Refusal::NotASession(format!(
                "line 1 has type {:?}, expected \"session\"",
                first["type"].as_str().unwrap_or("(none)")
            )));
        } else {
            problems.push(LoadProblem {
                line: 1,
                kind: ProblemKind::MissingHeader("line 1 is corrupt".into()),
            });
        }
    }

    let (numbers, mut values): (Vec<usize>, Vec<Value>) = lines.drain(first_entry..).unzip();
    let version = header.as_ref().map_or(CURRENT_VERSION, |h| h.version);
    if migrate_to_current(version, &mut values) {
        problems.push(LoadProblem {
            line: 1,
            kind: ProblemKind::Migrated { from: version },
        });
        if let Some(h) = header.as_mut() {
            h.version = CURRENT_VERSION;
        }
    }
    let mut entries = Vec::with_capacity(values.len());
    for (number, value) in numbers.into_iter().zip(values) {
        match Entry::from_json_lenient(value) {
            Ok((entry, None)) => entries.push(entry),
            Ok((entry, Some(why))) => {
                problems.push(LoadProblem {
                    line: number,
                    kind: ProblemKind::UnreadableEntry(format!(
                        "{} entry {}: {why}",
                        entry.kind.type_name(),
                        entry.id
                    )),
                });
                entries.push(entry);
            }
            Err(why) => problems.push(LoadProblem {
                line: number,
                kind: ProblemKind::CorruptLine(format!("not an entry: {why}")),
            }),
        }
    }
    problems.sort_by_key(|p| p.line);
    Ok(ParsedSession {
        header,
        entries,
        problems,
        tail,
    })
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

    #[test]
    fn empty_and_torn_header_files_load_empty() {
        for text in ["", &HEADER[..20]] {
            let parsed = parse_session(text.as_bytes()).unwrap();
            assert!(parsed.header.is_none() && parsed.entries.is_empty());
        }
    }
}
