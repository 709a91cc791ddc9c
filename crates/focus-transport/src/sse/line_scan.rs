//! Finding the next line terminator (CR or LF) quickly.
//!
//! The decoder spends most of its time looking for the end of a line, so this scan
//! reads eight bytes at a time ("SWAR": SIMD within a register) instead of one.

/// The index of the first CR or LF in `bytes`, if any.
pub(super) fn find_line_end(bytes: &[u8]) -> Option<usize> {
    const LF: u64 = splat(b'\n');
    const CR: u64 = splat(b'\r');
    let mut offset = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_le_bytes([
            word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
        ]);
        let found = zero_byte_mask(word ^ LF) | zero_byte_mask(word ^ CR);
        if found != 0 {
            // Little-endian: the lowest marked byte is the first in memory.
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|i| offset + i)
}

/// `byte` repeated in all eight bytes of a word.
const fn splat(byte: u8) -> u64 {
    (byte as u64) * 0x0101_0101_0101_0101
}

/// A word with the high bit set in exactly the bytes of `x` that are zero.
///
/// `(x & 0x7f..) + 0x7f..` sets a byte's high bit when its low seven bits are not
/// all zero, with no carry between bytes; or-ing `x` back in covers bytes whose own
/// high bit was set. The bytes left without a high bit are the zero ones.
fn zero_byte_mask(x: u64) -> u64 {
    const LOW7: u64 = splat(0x7f);
    !(((x & LOW7) + LOW7) | x | LOW7)
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
