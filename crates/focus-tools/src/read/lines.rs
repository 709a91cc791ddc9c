//! The lines `read` returns ([`read_window`]): the file streamed line by line,
//! only the requested window kept, each kept line cleaned and capped, every line
//! counted (so the closing note can say how many remain) and every byte hashed
//! (for the record of files seen).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};

use crate::output::{self, MAX_LINES};
use crate::seen::StreamHash;

/// Lines longer than this many characters are cut (minified code, data blobs).
pub const MAX_LINE_CHARS: usize = 2000;

/// Most bytes of one line held in memory; the rest is only counted, so a
/// gigabyte-long line (a minified bundle, a database dump) cannot exhaust memory.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// What streaming a file gave.
pub(super) struct Window {
    /// The kept lines, from the first wanted one on (one more than
    /// [`MAX_LINES`] at most: enough to know the page is cut).
    pub lines: Vec<String>,
    /// Every line of the file, counted.
    pub total_lines: usize,
    /// Bytes read, all of them.
    pub read_len: u64,
    /// The hash of those bytes ([`StreamHash`]).
    pub hash: u64,
}

/// Streams `head` (the file's first bytes, already read) then the rest of
/// `file`, keeping lines `offset..=last_wanted` (1-based).
///
/// # Errors
///
/// The read was cancelled (`cancelled` said so between lines), or reading
/// failed (the message is `failed`'s).
pub(super) fn read_window(
    head: Vec<u8>,
    file: &File,
    offset: usize,
    last_wanted: usize,
    cancelled: &dyn Fn() -> bool,
    failed: &dyn Fn(std::io::Error) -> String,
) -> Result<Window, String> {
    let mut reader = BufReader::new(Hashing {
        inner: std::io::Cursor::new(head).chain(file),
        hash: StreamHash::default(),
    });
    let mut selected: Vec<String> = Vec::new();
    let mut total_lines = 0usize;
    let mut line = Vec::new();
    loop {
        line.clear();
        let wanted =
            total_lines + 1 >= offset && total_lines < last_wanted && selected.len() <= MAX_LINES;
        if cancelled() {
            return Err("The read was cancelled.".to_string());
        }
        let (n, dropped_chars) =
            read_line_capped(&mut reader, &mut line, wanted).map_err(failed)?;
        if n == 0 {
            break;
        }
        total_lines += 1;
        if wanted {
            selected.push(shown_line(&line, dropped_chars));
        }
    }
    let hashed = reader.into_inner().hash;
    Ok(Window {
        lines: selected,
        total_lines,
        read_len: hashed.len(),
        hash: hashed.finish(),
    })
}

/// A kept line as shown: without its line ending, sanitized, cut at
/// [`MAX_LINE_CHARS`] with a count of what was left out (`dropped_chars` more
/// were never held in memory).
fn shown_line(line: &[u8], dropped_chars: usize) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let clean = output::sanitize(text);
    if dropped_chars == 0 {
        output::cut_line(&clean, MAX_LINE_CHARS).into_owned()
    } else {
        let kept: String = clean.chars().take(MAX_LINE_CHARS).collect();
        let dropped = clean.chars().count() - kept.chars().count() + dropped_chars;
        format!("{kept}… [{dropped} more characters]")
    }
}

/// A reader that hashes every byte passing through it.
struct Hashing<R> {
    inner: R,
    hash: StreamHash,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

/// Reads one line (with its `\n`) into `line`, keeping at most
/// [`MAX_LINE_BYTES`] of it, or none when `keep` is false. Returns the bytes
/// consumed (0 at the end) and how many characters were dropped unkept.
fn read_line_capped(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    keep: bool,
) -> std::io::Result<(usize, usize)> {
    let (mut consumed, mut dropped_chars) = (0, 0);
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((consumed, dropped_chars));
        }
        let (piece, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..=i], true),
            None => (chunk, false),
        };
        let room = if keep {
            MAX_LINE_BYTES.saturating_sub(line.len())
        } else {
            0
        };
        let kept = piece.len().min(room);
        line.extend_from_slice(&piece[..kept]);
        // Count characters by their first bytes (UTF-8 continuation bytes are 10xxxxxx).
        dropped_chars += piece[kept..]
            .iter()
            .filter(|&&b| b & 0xC0 != 0x80 && b != b'\n' && b != b'\r')
            .count();
        let len = piece.len();
        reader.consume(len);
        consumed += len;
        if done {
            return Ok((consumed, dropped_chars));
        }
    }
}
