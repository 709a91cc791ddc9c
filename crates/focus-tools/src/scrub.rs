//! Finding a secret in text also when it was disguised on the way: reversed
//! (`rev`), base64-encoded (`base64`, in any of the three alignments a value
//! can have inside a longer encoded stream, standard and URL-safe alphabets),
//! hex-encoded (`xxd -p`, `od`-free `printf %x` runs, lower or upper case), and
//! split across lines or spaced out (`fold`, `base64`'s 76-column lines).
//!
//! [`redact_values`] looks for every form of every value in the text with all
//! whitespace left out (a map back to the original positions is kept), and
//! replaces each stretch of the original that spells one with `[redacted]`.
//!
//! What no scrubbing can catch is listed in docs/permissions.md ("Keys"): any
//! transformation not listed here (a key compressed, encrypted, hashed, shifted
//! by one letter, or printed a few characters per tool call) passes.

use std::borrow::Cow;

/// The text that replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// The shortest value (and the shortest disguised form) looked for: shorter
/// ones would match ordinary text.
pub const MIN_LEN: usize = 8;

/// `text` with every occurrence of each value in `values` (at least
/// [`MIN_LEN`] bytes), and of its disguised forms ([`disguises`]), replaced by
/// [`REDACTED`]; borrowed when nothing was found.
pub fn redact_values<'a>(text: &'a str, values: &[String]) -> Cow<'a, str> {
    let needles: Vec<String> = values
        .iter()
        .filter(|v| v.len() >= MIN_LEN)
        .flat_map(|v| disguises(v))
        .filter(|n| n.len() >= MIN_LEN)
        .collect();
    if needles.is_empty() {
        return Cow::Borrowed(text);
    }
    // The text without whitespace, and where each of its bytes came from.
    let mut compact = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        if !c.is_ascii_whitespace() {
            compact.push(c);
            origin.extend(std::iter::repeat(at).take(c.len_utf8()));
        }
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for needle in &needles {
        for (start, found) in compact.match_indices(needle.as_str()) {
            let last = start + found.len() - 1;
            let end_char = text[origin[last]..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
            spans.push((origin[start], origin[last] + end_char));
        }
    }
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    spans.sort();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in spans {
        if end <= at {
            continue;
        }
        if start >= at {
            out.push_str(&text[at..start]);
            out.push_str(REDACTED);
        }
        at = end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// The forms of `value` looked for: itself, reversed, hex (lower and upper
/// case), and base64 (standard and URL-safe) of the value from each of its
/// first three bytes on, cut to whole 3-byte groups, which is what appears
/// verbatim in the encoding of any longer text holding the value.
pub fn disguises(value: &str) -> Vec<String> {
    let bytes = value.as_bytes();
    let mut forms = vec![value.to_string(), value.chars().rev().collect()];
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    forms.push(hex.to_ascii_uppercase());
    forms.push(hex);
    for skip in 0..3.min(bytes.len()) {
        let rest = &bytes[skip..];
        let whole = rest.len() / 3 * 3;
        let standard = base64(&rest[..whole]);
        let url_safe = standard.replace('+', "-").replace('/', "_");
        if url_safe != standard {
            forms.push(url_safe);
        }
        forms.push(standard);
    }
    forms
}

/// Standard base64 of `bytes` (whole groups only are asked for: no padding).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len() / 3 * 4 + 4);
    for group in bytes.chunks(3) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        let chars = group.len() + 1;
        for i in 0..4 {
            if i < chars {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-test-0123456789abcdefXYZ";

    fn scrubbed(text: &str) -> String {
        redact_values(text, &[KEY.to_string()]).into_owned()
    }

    /// What the shell would print: `printf PREFIX$KEY | base64 -w0`.
    fn encoded_after(prefix: &str) -> String {
        base64(format!("{prefix}{KEY}\n").as_bytes())
    }

    #[test]
    fn base64_matches_the_known_encoding() {
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"any carnal pleas"), "YW55IGNhcm5hbCBwbGVhcw==");
    }

    #[test]
    fn every_disguise_is_caught() {
        let reversed: String = KEY.chars().rev().collect();
        let hex: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
        let folded: String = KEY
            .as_bytes()
            .chunks(5)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("\n");
        let cases = [
            format!("OPENAI_API_KEY={KEY}"),
            format!("{reversed}=YEK_IPA_IANEPO"),
            format!("hex {hex}"),
            format!("HEX {}", hex.to_ascii_uppercase()),
            encoded_after(""),
            encoded_after("K="),
            encoded_after("KEY="),
            encoded_after("OPENAI_API_KEY="),
            encoded_after("").replace('+', "-").replace('/', "_"),
            format!("key:\n{folded}\nend"),
            format!(
                "key: {}",
                hex.as_bytes()
                    .chunks(4)
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ];
        for case in cases {
            let out = scrubbed(&case);
            assert!(out.contains(REDACTED), "not caught: {case:?} -> {out:?}");
        }
    }

    #[test]
    fn text_around_a_secret_is_kept_and_clean_text_is_borrowed() {
        assert_eq!(scrubbed(&format!("a {KEY} b")), "a [redacted] b");
        assert_eq!(
            scrubbed(&format!("x\n{}\n{}\ny", &KEY[..10], &KEY[10..])),
            "x\n[redacted]\ny"
        );
        assert!(matches!(
            redact_values("nothing here at all", &[KEY.to_string()]),
            Cow::Borrowed(_)
        ));
        assert_eq!(scrubbed("ünïcödé ✓ text"), "ünïcödé ✓ text");
        let short = redact_values("abc abc", &["abc".to_string()]);
        assert_eq!(short, "abc abc");
    }
}
