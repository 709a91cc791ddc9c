//! Standard base64 (RFC 4648 §4) read back: an image arrives as base64 text
//! (in a tool's result, a pasted attachment) and the screen needs its bytes
//! to read its size. The text is outside data: anything but the alphabet,
//! padding at the end and line breaks makes it invalid, never a panic.

/// The bytes `text` encodes, or `None` when it is not base64 (a character
/// outside the alphabet, padding before the end, a length that cannot be).
/// ASCII whitespace (line breaks of wrapped base64) is skipped.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut quad = [0u8; 4];
    let mut filled = 0;
    let mut padding = 0;
    for &byte in text.as_bytes() {
        if byte.is_ascii_whitespace() {
            continue;
        }
        if byte == b'=' {
            padding += 1;
            if padding > 2 {
                return None;
            }
            continue;
        }
        if padding > 0 {
            // Data after padding.
            return None;
        }
        quad[filled] = value(byte)?;
        filled += 1;
        if filled == 4 {
            let n = quad.iter().fold(0u32, |n, &v| (n << 6) | u32::from(v));
            out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
            filled = 0;
        }
    }
    match (filled, padding) {
        (0, 0) => {}
        (2, 0 | 2) => {
            let n = (u32::from(quad[0]) << 6) | u32::from(quad[1]);
            out.push((n >> 4) as u8);
        }
        (3, 0 | 1) => {
            let n = (u32::from(quad[0]) << 12) | (u32::from(quad[1]) << 6) | u32::from(quad[2]);
            out.extend_from_slice(&[(n >> 10) as u8, (n >> 2) as u8]);
        }
        _ => return None,
    }
    Some(out)
}

/// The 6-bit value of one character of the alphabet.
fn value(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_vectors_decode() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(decode(coded).as_deref(), Some(plain.as_bytes()), "{coded}");
        }
        assert_eq!(decode("Zm9v\nYmFy\r\n").as_deref(), Some(&b"foobar"[..]));
        assert_eq!(decode("Zg").as_deref(), Some(&b"f"[..]));
    }

    /// Random bytes of the alphabet, padding, whitespace and escapes: no
    /// panic, and what decodes has the length its characters say.
    #[test]
    fn garbage_never_panics() {
        let alphabet: Vec<char> = "QUJDaz09+/=\n \x1b\x07é".chars().collect();
        let mut rng = focus_testkit::rng::Rng::new(64);
        for _ in 0..20_000 {
            let text: String = (0..rng.below(24))
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            if let Some(bytes) = decode(&text) {
                let data = text
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '+' || *c == '/')
                    .count();
                assert_eq!(bytes.len(), data * 3 / 4, "{text:?}");
            }
        }
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "Z", "Zg=a", "Zg===", "Zm9\x1b", "Zm9v\x07", "Zm9v]8;;", "Zm=v", "é",
        ] {
            assert_eq!(decode(bad), None, "{bad:?}");
        }
    }
}
