//! Finding the first byte of a kind in a long buffer, sixteen bytes per step.
//!
//! The JSON parser looks for the end of a run of string content, and the session
//! reader for the end of a line; both scan megabytes, where testing one byte at a
//! time is a visible share of the work. [`find_first`] tests two 64-bit words per
//! step instead, using the classic "has a zero byte" bit trick ([`zero_bytes`]).

/// Eight bytes of `0x01`.
pub const ONES: u64 = 0x0101_0101_0101_0101;
/// Eight bytes of `0x80`.
pub const HIGHS: u64 = 0x8080_8080_8080_8080;

/// For a little-endian word `x`, a mask whose lowest set bit is the high bit of the
/// first zero byte of `x` (`0` if it has none). Higher bits may be false alarms, but
/// only above a true match, so `trailing_zeros` finds the right byte.
#[inline(always)]
pub fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Like [`zero_bytes`], for the bytes of `x` equal to `byte`.
#[inline(always)]
pub fn bytes_equal(x: u64, byte: u8) -> u64 {
    zero_bytes(x ^ (ONES * byte as u64))
}

/// The index of the first byte at or after `from` that `is_hit` accepts, or
/// `bytes.len()` if none. `word_hits` must be `is_hit` for eight bytes at once: its
/// lowest set bit the high bit of the first accepted byte of the little-endian word
/// (as [`zero_bytes`] and [`bytes_equal`] give), `0` when none is.
#[inline(always)]
pub fn find_first(
    bytes: &[u8],
    from: usize,
    word_hits: impl Fn(u64) -> u64,
    is_hit: impl Fn(u8) -> bool,
) -> usize {
    let mut i = from;
    // Two words per step: halves the loop's own overhead on long runs.
    while let Some(chunk) = bytes.get(i..i + 16) {
        let (Ok(low), Ok(high)) = (
            <[u8; 8]>::try_from(&chunk[..8]),
            <[u8; 8]>::try_from(&chunk[8..]),
        ) else {
            break;
        };
        let low = word_hits(u64::from_le_bytes(low));
        let high = word_hits(u64::from_le_bytes(high));
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
        if is_hit(b) {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value at every position of short inputs, from several starts: the
    /// word test agrees with a byte loop in both words of a step and in the tail,
    /// with high bytes (borrow effects) before the probe.
    #[test]
    fn equal_bytes_are_found_where_a_byte_loop_finds_them() {
        for target in [b'\n', 0x00] {
            for len in 0..36 {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut bytes: Vec<u8> =
                            (0..len).map(|i| [0x0b, 0xff, 0x80, b'a'][i % 4]).collect();
                        bytes[at] = b;
                        for from in [0, at / 2, at, (at + 1).min(len)] {
                            let naive = (from..len).find(|&i| bytes[i] == target).unwrap_or(len);
                            let found = find_first(
                                &bytes,
                                from,
                                |x| bytes_equal(x, target),
                                |x| x == target,
                            );
                            assert_eq!(found, naive, "{target} {bytes:?} {from}");
                        }
                    }
                }
            }
        }
    }
}
