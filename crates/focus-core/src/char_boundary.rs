//! Cutting text by bytes without splitting a character: [`floor`] and
//! [`ceil`] (std's own `str::floor_char_boundary` is not stable yet).
//!
//! Every cap in focus is in bytes (what a context window, a log line or a
//! session file costs), and a UTF-8 character is up to four of them; slicing
//! between two of a character's bytes panics. So a cut is first moved to the
//! nearest boundary, toward the kept side.

/// The largest character boundary at or before `index` (`text.len()` when
/// `index` is past the end): where to cut to keep *at most* `index` bytes.
pub fn floor(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    let mut at = index;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest character boundary at or after `index` (`text.len()` when
/// past the end): where to start to keep *at most* the bytes from `index`.
pub fn ceil(text: &str, index: usize) -> usize {
    let mut at = index.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_land_on_boundaries_toward_the_kept_side() {
        let text = "aé€😀"; // 1 + 2 + 3 + 4 bytes
        let floors: Vec<usize> = (0..=12).map(|i| floor(text, i)).collect();
        assert_eq!(floors, [0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10, 10]);
        let ceils: Vec<usize> = (0..=12).map(|i| ceil(text, i)).collect();
        assert_eq!(ceils, [0, 1, 3, 3, 6, 6, 6, 10, 10, 10, 10, 10, 10]);
    }
}
