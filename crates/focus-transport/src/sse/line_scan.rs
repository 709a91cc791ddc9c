//! Finding the next line terminator (CR or LF) quickly.
//!
//! The decoder spends most of its time looking for the end of a line, so this scan
//! reads eight bytes at a time ("SWAR": SIMD within a register) instead of one,
//! with the byte search focus-core's JSON parser and session reader use too.

use focus_core::scan::{bytes_equal, find_first};

/// The index of the first CR or LF in `bytes`, if any.
pub(super) fn find_line_end(bytes: &[u8]) -> Option<usize> {
    // Each mask's lowest set bit is a true match, so the lowest of both is the first.
    let terminators = |x: u64| bytes_equal(x, b'\n') | bytes_equal(x, b'\r');
    let at = find_first(bytes, 0, terminators, |b| b == b'\n' || b == b'\r');
    (at < bytes.len()).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_a_plain_scan_at_every_position_and_length() {
        let bytes: Vec<u8> = (0..40u8)
            .map(|i| {
                if i % 13 == 12 {
                    b'\r'
                } else if i % 7 == 6 {
                    b'\n'
                } else {
                    0x80 | i
                }
            })
            .collect();
        for start in 0..bytes.len() {
            for end in start..=bytes.len() {
                let slice = &bytes[start..end];
                let expected = slice.iter().position(|&b| b == b'\n' || b == b'\r');
                assert_eq!(find_line_end(slice), expected, "{start}..{end}");
            }
        }
    }

    #[test]
    fn no_false_positives_on_neighbouring_bytes() {
        for b in 0..=255u8 {
            let bytes = [b; 17];
            let expected = if b == b'\n' || b == b'\r' {
                Some(0)
            } else {
                None
            };
            assert_eq!(find_line_end(&bytes), expected, "byte {b}");
        }
    }
}
