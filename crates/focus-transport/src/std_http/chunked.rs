//! The chunk-size line of `Transfer-Encoding: chunked` (RFC 9112 §7.1):
//!
//! ```text
//! chunk-size [ BWS ";" chunk-ext ] CRLF      e.g.  1a;name="v"
//! ```
//!
//! The size is hexadecimal digits and nothing else: no sign, no `0x`, no
//! spaces inside. It is read with checked arithmetic, so `10000000000000000`
//! (2^64) is an error rather than a wrap to zero. Extensions are skipped (their
//! length is capped with the line's).

use crate::protocol_error::shown;
use crate::protocol_error::ProtocolError;

/// The size a chunk-size line announces.
///
/// # Errors
///
/// A [`ProtocolError`] when the line holds no hexadecimal size or one too large.
pub fn chunk_size(line: &[u8]) -> Result<u64, ProtocolError> {
    let digits_end = line
        .iter()
        .position(|b| !b.is_ascii_hexdigit())
        .unwrap_or(line.len());
    let (digits, rest) = line.split_at(digits_end);
    if digits.is_empty() {
        return Err(ProtocolError::BadChunkSize(shown(line)));
    }
    // After the digits: optional whitespace, then nothing or `;` extensions.
    let rest = trim_start_ws(rest);
    if !(rest.is_empty() || rest[0] == b';') {
        return Err(ProtocolError::BadChunkSize(shown(line)));
    }
    let mut size: u64 = 0;
    for &d in digits {
        let value = u64::from((d as char).to_digit(16).unwrap_or(0));
        size = size
            .checked_mul(16)
            .and_then(|s| s.checked_add(value))
            .ok_or_else(|| ProtocolError::ChunkSizeTooLarge(shown(digits)))?;
    }
    Ok(size)
}

fn trim_start_ws(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| *b != b' ' && *b != b'\t')
        .unwrap_or(bytes.len());
    &bytes[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_extensions() {
        assert_eq!(chunk_size(b"1a").unwrap(), 26);
        assert_eq!(chunk_size(b"0").unwrap(), 0);
        assert_eq!(chunk_size(b"00000000000000000000ff").unwrap(), 255);
        assert_eq!(chunk_size(b"A ;name=\"v;x\"").unwrap(), 10);
        assert_eq!(chunk_size(b"ffffffffffffffff").unwrap(), u64::MAX);
    }

    #[test]
    fn bad_sizes_are_named() {
        assert!(matches!(
            chunk_size(b"10000000000000000"),
            Err(ProtocolError::ChunkSizeTooLarge(_))
        ));
        for bad in [&b"-5"[..], b"", b"0x10", b"zz", b"1 2", b" 5", b"5\x00"] {
            assert!(
                matches!(chunk_size(bad), Err(ProtocolError::BadChunkSize(_))),
                "{:?}",
                shown(bad)
            );
        }
    }
}
