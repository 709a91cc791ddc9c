//! Where a session's bytes come from, and reading them line by line through a small
//! window instead of all at once.
//!
//! A big session is tens of megabytes. Reading it whole means one serial copy of
//! every byte into a buffer as big as the file, every page of which is faulted in
//! before the first line is decoded, and then a second trip through memory to decode
//! it. Instead each decoding thread reads its own byte range of the file through a
//! window of [`WINDOW_BYTES`]: the copy runs on every core at once, the window stays
//! in the cache while its lines are decoded, and the file's bytes never need a home
//! of their own. Bytes already in memory are a [`Source`] too, so both take the same
//! path (and the tests reach the file path's boundary cases with tiny windows).

use focus_core::scan::{bytes_equal, find_first};
use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::unix::fs::FileExt;

/// Bytes that can be read at any offset, from several threads at once.
pub trait Source: Sync {
    /// How many bytes there are (fixed when the source was opened).
    fn len(&self) -> u64;

    /// Reads into `buf` from `offset`; the count read, `0` only at the end.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;

    /// `range` read whole into a vector (short if the source ended early).
    fn read_range(&self, range: Range<u64>) -> io::Result<Vec<u8>> {
        let mut bytes = vec![0; (range.end - range.start) as usize];
        let mut filled = 0;
        while filled < bytes.len() {
            match self.read_at(&mut bytes[filled..], range.start + filled as u64)? {
                0 => break,
                n => filled += n,
            }
        }
        bytes.truncate(filled);
        Ok(bytes)
    }
}

impl Source for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = (offset as usize).min(<[u8]>::len(self));
        let n = buf.len().min(<[u8]>::len(self) - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

/// An open file, its length taken once: a writer appending meanwhile adds lines
/// this load does not see, and never a half line.
pub struct FileSource {
    file: File,
    len: u64,
}

impl FileSource {
    /// `file`, as long as it is now.
    ///
    /// # Errors
    ///
    /// The file's metadata cannot be read.
    pub fn new(file: File) -> io::Result<FileSource> {
        let len = file.metadata()?.len();
        Ok(FileSource { file, len })
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let room = self.len.saturating_sub(offset).min(buf.len() as u64) as usize;
        loop {
            match self.file.read_at(&mut buf[..room], offset) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }
}

/// How much of a file one [`LineReader`] holds at a time: big enough that reads are
/// few, small enough to stay in a core's cache. A longer line grows it.
pub const WINDOW_BYTES: usize = 256 * 1024;

/// The non-blank lines of a byte range of a [`Source`], with their 1-based line
/// numbers counted from the range's start, carriage returns trimmed.
pub struct LineReader<'s, S: Source + ?Sized> {
    source: &'s S,
    /// The next byte to read from the source.
    offset: u64,
    end: u64,
    window: Vec<u8>,
    /// `window[start..filled]` is read but not yet handed out.
    start: usize,
    filled: usize,
    /// The lines passed so far, blank ones included.
    number: usize,
}

impl<'s, S: Source + ?Sized> LineReader<'s, S> {
    /// The lines of `source[range]`, read `window` bytes at a time.
    pub fn new(source: &'s S, range: Range<u64>, window: usize) -> LineReader<'s, S> {
        LineReader {
            source,
            offset: range.start,
            end: range.end.max(range.start),
            window: vec![0; window.max(1)],
            start: 0,
            filled: 0,
            number: 0,
        }
    }

    /// How many lines (blank ones included) have been passed.
    pub fn lines_passed(&self) -> usize {
        self.number
    }

    /// The offset in the source just past the last line handed out.
    pub fn position(&self) -> u64 {
        self.offset - (self.filled - self.start) as u64
    }

    /// The next non-blank line and its number, `None` at the end of the range.
    ///
    /// # Errors
    ///
    /// What reading the source fails with.
    pub fn next_line(&mut self) -> io::Result<Option<(usize, &[u8])>> {
        loop {
            let at = find_newline(&self.window[..self.filled], self.start);
            let (end, next) = if at < self.filled {
                (at, at + 1)
            } else if !self.fill()? {
                // The range is read: what is left is a last line without a newline.
                if self.start == self.filled {
                    return Ok(None);
                }
                (self.filled, self.filled)
            } else {
                continue;
            };
            let line_start = std::mem::replace(&mut self.start, next);
            self.number += 1;
            let blank = trim_cr(&self.window[line_start..end])
                .iter()
                .all(u8::is_ascii_whitespace);
            if !blank {
                return Ok(Some((self.number, trim_cr(&self.window[line_start..end]))));
            }
        }
    }

    /// Reads more of the range after what is unread (moved to the window's front,
    /// the window doubled if a line fills it); `false` when the range is exhausted.
    fn fill(&mut self) -> io::Result<bool> {
        if self.offset >= self.end {
            return Ok(false);
        }
        self.window.copy_within(self.start..self.filled, 0);
        self.filled -= self.start;
        self.start = 0;
        if self.filled == self.window.len() {
            self.window.resize(self.window.len() * 2, 0);
        }
        let room = (self.window.len() - self.filled).min((self.end - self.offset) as usize);
        let n = self.source.read_at(
            &mut self.window[self.filled..self.filled + room],
            self.offset,
        )?;
        if n == 0 {
            // The source is shorter than when it was measured (truncated meanwhile).
            self.end = self.offset;
            return Ok(false);
        }
        self.filled += n;
        self.offset += n as u64;
        Ok(true)
    }
}

/// Splits `range` of `source` into about `parts` ranges of similar size, each but the
/// last ending just past a newline, so no line is cut. Finding each split point reads
/// only the bytes up to the next newline.
///
/// # Errors
///
/// What reading the source fails with.
pub fn split_at_lines<S: Source + ?Sized>(
    source: &S,
    range: Range<u64>,
    parts: usize,
) -> io::Result<Vec<Range<u64>>> {
    let parts = parts.max(1) as u64;
    let length = range.end - range.start;
    let mut pieces = Vec::new();
    let mut start = range.start;
    let mut probe = vec![0; 4096];
    for k in 1..parts {
        let mut at = (range.start + length * k / parts).max(start);
        // Just past the first newline at or after the k-th equal share.
        let split = loop {
            if at >= range.end {
                break range.end;
            }
            let want = probe.len().min((range.end - at) as usize);
            let n = source.read_at(&mut probe[..want], at)?;
            if n == 0 {
                break range.end;
            }
            let found = find_newline(&probe[..n], 0);
            if found < n {
                break at + found as u64 + 1;
            }
            at += n as u64;
        };
        if split > start {
            pieces.push(start..split);
        }
        start = split;
    }
    pieces.push(start..range.end);
    Ok(pieces)
}

/// The offset just past the last newline in `source[range]`, or `range.start` if it
/// holds none; read backwards a block at a time.
///
/// # Errors
///
/// What reading the source fails with.
pub fn after_last_newline<S: Source + ?Sized>(source: &S, range: Range<u64>) -> io::Result<u64> {
    const BLOCK: u64 = 4096;
    let mut end = range.end;
    while end > range.start {
        let from = end.saturating_sub(BLOCK).max(range.start);
        let bytes = source.read_range(from..end)?;
        if let Some(i) = bytes.iter().rposition(|&b| b == b'\n') {
            return Ok(from + i as u64 + 1);
        }
        if bytes.len() < (end - from) as usize {
            // Shorter than measured: no newline in what is there.
            return Ok(range.start);
        }
        end = from;
    }
    Ok(range.start)
}

/// `line` without a trailing carriage return.
pub fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The index of the first `\n` at or after `from`, or `bytes.len()` if none;
/// eight bytes at a time (splitting 20 MB into lines one byte at a time is a
/// noticeable share of a load).
#[inline]
pub fn find_newline(bytes: &[u8], from: usize) -> usize {
    find_first(bytes, from, |x| bytes_equal(x, b'\n'), |b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines with CRLF endings, blank lines, one longer than any small window, and
    /// no newline at the very end.
    fn text() -> Vec<u8> {
        let mut text = Vec::new();
        for i in 0..300 {
            match i % 7 {
                3 => text.extend_from_slice(b"  \r\n"),
                5 => text.extend_from_slice(format!("{}\r\n", "L".repeat(i * 3)).as_bytes()),
                _ => text.extend_from_slice(format!("line {i}\n").as_bytes()),
            }
        }
        text.extend_from_slice(b"last without newline");
        text
    }

    fn plain_lines(bytes: &[u8]) -> Vec<(usize, Vec<u8>)> {
        let mut out = Vec::new();
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = trim_cr(line);
            if !line.iter().all(u8::is_ascii_whitespace) {
                out.push((i + 1, line.to_vec()));
            }
        }
        out
    }

    fn read_all<S: Source + ?Sized>(
        source: &S,
        range: Range<u64>,
        window: usize,
    ) -> (Vec<(usize, Vec<u8>)>, usize) {
        let mut reader = LineReader::new(source, range, window);
        let mut out = Vec::new();
        while let Some((n, line)) = reader.next_line().unwrap() {
            out.push((n, line.to_vec()));
        }
        (out, reader.lines_passed())
    }

    #[test]
    fn every_window_size_gives_the_same_lines_as_a_plain_split() {
        let text = text();
        let expected = plain_lines(&text);
        for window in [1, 2, 3, 7, 16, 100, 4096] {
            let (lines, passed) = read_all(&text[..], 0..text.len() as u64, window);
            assert_eq!(lines, expected, "window {window}");
            assert_eq!(
                passed,
                text.split(|&b| b == b'\n').count(),
                "window {window}"
            );
        }
    }

    #[test]
    fn split_pieces_read_in_turn_give_every_line_once() {
        let text = text();
        let expected = plain_lines(&text);
        let whole = 0..text.len() as u64;
        for parts in 1..=9 {
            let pieces = split_at_lines(&text[..], whole.clone(), parts).unwrap();
            assert_eq!(pieces.first().unwrap().start, 0);
            assert_eq!(pieces.last().unwrap().end, whole.end);
            let mut joined = Vec::new();
            let mut before = 0;
            for piece in pieces.windows(2) {
                assert_eq!(piece[0].end, piece[1].start, "{parts} parts");
                assert_eq!(text[piece[0].end as usize - 1], b'\n', "{parts} parts");
            }
            for piece in pieces {
                let (lines, passed) = read_all(&text[..], piece, 5);
                joined.extend(lines.into_iter().map(|(n, l)| (n + before, l)));
                before += passed;
            }
            assert_eq!(joined, expected, "{parts} parts");
        }
    }

    #[test]
    fn a_file_reads_like_its_bytes_and_stops_at_its_measured_length() {
        let text = text();
        let path = std::env::temp_dir().join(format!("focus-source-{}", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let source = FileSource::new(File::open(&path).unwrap()).unwrap();
        // Appended after opening: not part of this load.
        let mut appender = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut appender, b"\nlater line\n").unwrap();
        let (lines, _) = read_all(&source, 0..source.len(), 64);
        assert_eq!(lines, plain_lines(&text));
        assert_eq!(
            after_last_newline(&source, 0..source.len()).unwrap(),
            text.iter().rposition(|&b| b == b'\n').unwrap() as u64 + 1
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn last_newline_is_found_across_blocks_or_not_at_all() {
        let mut text = b"a\nb".to_vec();
        text.extend(std::iter::repeat(b'x').take(10_000));
        assert_eq!(
            after_last_newline(&text[..], 0..text.len() as u64).unwrap(),
            2
        );
        assert_eq!(
            after_last_newline(&text[..], 2..text.len() as u64).unwrap(),
            2
        );
        assert_eq!(after_last_newline(&b"abc"[..], 0..3).unwrap(), 0);
        assert_eq!(after_last_newline(&b"ab\n"[..], 0..3).unwrap(), 3);
    }

    #[test]
    fn word_at_a_time_newline_search_agrees_with_a_byte_loop() {
        // Around every position: first and second word of a step, the byte-wise
        // tail, bytes next to 0x0a.
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
}
