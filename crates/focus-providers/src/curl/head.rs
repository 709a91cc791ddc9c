//! Reading the response head that `curl --include` prints before the body.
//!
//! curl writes every head it receives: interim `1xx` heads (`100 Continue`,
//! `103 Early Hints`) come before the final one and are skipped. The bytes after
//! the final head are the start of the body and are handed back.

use std::io::{self, Read};

/// The largest head accepted (curl itself refuses single headers over 100 KiB).
const MAX_HEAD_BYTES: usize = 1 << 20;

/// A final response head.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Head {
    /// The status code.
    pub status: u16,
    /// Header names (as sent) and values, in order.
    pub headers: Vec<(String, String)>,
}

/// Reads from `stdout` until a final head is complete. Returns the head and the
/// body bytes read past it, or `None` when the stream ended first (curl failed
/// before a response arrived; its exit code says why).
pub(super) fn read_head(stdout: &mut impl Read) -> io::Result<Option<(Head, Vec<u8>)>> {
    let mut buffer: Vec<u8> = Vec::with_capacity(8 * 1024);
    let mut scanned = 0;
    let mut chunk = [0u8; 8 * 1024];
    loop {
        if let Some((head_len, body_start)) = find_head_end(&buffer, scanned) {
            let head = parse_head(&buffer[..head_len])?;
            buffer.drain(..body_start);
            scanned = 0;
            if (100..200).contains(&head.status) {
                continue; // an interim head; the real one follows
            }
            return Ok(Some((head, buffer)));
        }
        scanned = buffer.len();
        if buffer.len() > MAX_HEAD_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the response head is larger than 1 MiB",
            ));
        }
        let n = loop {
            match stdout.read(&mut chunk) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        if n == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

/// Where the head ends: `(length without the blank line, index of the body)`.
/// The search resumes a few bytes before `from`, so a terminator split between
/// reads is found without rescanning the whole buffer.
fn find_head_end(buffer: &[u8], from: usize) -> Option<(usize, usize)> {
    let start = from.saturating_sub(3);
    let mut i = start;
    while let Some(offset) = buffer[i..].iter().position(|&b| b == b'\n') {
        let lf = i + offset;
        if buffer.get(lf + 1) == Some(&b'\n') {
            return Some((lf, lf + 2));
        }
        if buffer.get(lf + 1..lf + 3) == Some(b"\r\n") {
            return Some((lf, lf + 3));
        }
        i = lf + 1;
    }
    None
}

/// Parses the status line and header lines.
fn parse_head(head: &[u8]) -> io::Result<Head> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.lines();
    let status_line = lines.next().unwrap_or_default().trim();
    let status = status_line
        .strip_prefix("HTTP/")
        .and_then(|rest| rest.split_whitespace().nth(1))
        .filter(|code| code.len() == 3)
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| {
            let shown: String = status_line.chars().take(80).collect();
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the server's reply does not start with an HTTP status line: {shown:?}"),
            )
        })?;
    let mut headers = Vec::new();
    for line in lines {
        // Lines without a colon (obsolete folding, junk) are skipped, not fatal.
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    Ok(Head { status, headers })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its bytes `step` at a time.
    struct Pieces<'a>(&'a [u8], usize);

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(self.0.len()).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn skips_interim_heads_at_any_chunking() {
        let stream = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/2 429 \r\nretry-after: 3\r\nX: a:b\r\n\r\nbody\r\n\r\nmore";
        for step in 1..stream.len() {
            let (head, rest) = read_head(&mut Pieces(stream, step)).unwrap().unwrap();
            assert_eq!(head.status, 429);
            assert_eq!(
                head.headers,
                [
                    ("retry-after".into(), "3".into()),
                    ("X".into(), "a:b".into())
                ]
            );
            assert!(b"body\r\n\r\nmore".starts_with(&rest), "step {step}");
        }
    }

    #[test]
    fn lf_only_heads_and_early_end() {
        let (head, rest) = read_head(&mut Pieces(b"HTTP/1.0 200 OK\nA: 1\n\nxy", 100))
            .unwrap()
            .unwrap();
        assert_eq!((head.status, rest.as_slice()), (200, &b"xy"[..]));
        assert!(read_head(&mut Pieces(b"HTTP/1.1 200 OK\r\nA: 1\r\n", 100))
            .unwrap()
            .is_none());
        assert!(read_head(&mut Pieces(b"", 100)).unwrap().is_none());
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(read_head(&mut Pieces(b"hello\r\n\r\n", 100)).is_err());
        assert!(read_head(&mut Pieces(b"HTTP/1.1 2000 OK\r\n\r\n", 100)).is_err());
    }
}
