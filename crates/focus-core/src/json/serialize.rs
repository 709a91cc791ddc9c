//! The serializer: compact and pretty JSON text from a [`Value`].
//!
//! Control characters, quotes and backslashes are escaped; everything else, including
//! non-ASCII, is written as UTF-8. Numbers follow the policy on [`Number`]: original
//! text when present, exact integers, shortest round-trip floats, and `null` for the
//! non-finite floats (NaN, ±infinity) that JSON cannot spell.
//!
//! Like the parser it walks an explicit stack of open containers, so depth never
//! touches the call stack.

use super::parse::find_special;
use super::value::{Number, NumberKind, Value};

/// Compact JSON text.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out, None);
    out
}

/// JSON text indented by two spaces per level, one member or element per line.
pub fn to_pretty_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out, Some("  "));
    out
}

/// An open container: the children still to write, and whether one was written yet.
enum Frame<'a> {
    Array(std::slice::Iter<'a, Value>, bool),
    Object(std::slice::Iter<'a, (String, Value)>, bool),
}

/// Writes `value` into `out`; `indent` selects pretty output (the indent unit).
pub fn write_value(value: &Value, out: &mut String, indent: Option<&str>) {
    let colon = if indent.is_some() { ": " } else { ":" };
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut next = value;
    loop {
        // Write `next`: a scalar or empty container completely, else its opening
        // bracket, leaving its children to the loop below.
        match next {
            Value::Null => out.push_str("null"),
            Value::Bool(true) => out.push_str("true"),
            Value::Bool(false) => out.push_str("false"),
            Value::Number(n) => write_number(n, out),
            Value::String(s) => write_string(s, out),
            Value::Array(items) if items.is_empty() => out.push_str("[]"),
            Value::Object(o) if o.is_empty() => out.push_str("{}"),
            Value::Array(items) => {
                out.push('[');
                stack.push(Frame::Array(items.iter(), false));
            }
            Value::Object(o) => {
                out.push('{');
                stack.push(Frame::Object(o.entries().iter(), false));
            }
        }
        // Find the next value to write, closing every container that is finished.
        loop {
            let depth = stack.len();
            let Some(frame) = stack.last_mut() else {
                return;
            };
            let (child, started) = match frame {
                Frame::Array(items, started) => (items.next(), started),
                Frame::Object(entries, started) => match entries.next() {
                    Some((key, child)) => {
                        separator(out, indent, depth, *started);
                        *started = true;
                        write_string(key, out);
                        out.push_str(colon);
                        next = child;
                        break;
                    }
                    None => (None, started),
                },
            };
            match child {
                Some(child) => {
                    separator(out, indent, depth, *started);
                    *started = true;
                    next = child;
                    break;
                }
                None => {
                    let close = match stack.pop() {
                        Some(Frame::Array(..)) => ']',
                        _ => '}',
                    };
                    newline(out, indent, depth - 1);
                    out.push(close);
                }
            }
        }
    }
}

/// Before a member or element: a comma unless it is the first, then (pretty) a new
/// line indented to `depth`.
#[inline]
fn separator(out: &mut String, indent: Option<&str>, depth: usize, started: bool) {
    if started {
        out.push(',');
    }
    newline(out, indent, depth);
}

#[inline]
fn newline(out: &mut String, indent: Option<&str>, depth: usize) {
    if let Some(unit) = indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(unit);
        }
    }
}

/// Writes a number: its original text when it has one, else the shortest text that
/// reads back as the same value. Non-finite floats become `null`.
pub fn write_number(n: &Number, out: &mut String) {
    if let Some(text) = &n.text {
        out.push_str(text);
        return;
    }
    match n.kind {
        NumberKind::PosInt(i) => write_u64(i, false, out),
        NumberKind::NegInt(i) => write_u64(i.unsigned_abs(), i < 0, out),
        NumberKind::Float(f) if !f.is_finite() => out.push_str("null"),
        NumberKind::Float(f) => {
            use std::fmt::Write;
            // `{:?}` is the shortest text that reads back as the same f64; it keeps a
            // `.0` on integral values (so the kind survives a round trip) and switches
            // to exponent form for very large or small magnitudes (`1e300`, `1e-7`),
            // both valid JSON.
            let _ = write!(out, "{f:?}");
        }
    }
}

/// Decimal digits of `n` (with a leading `-` when `negative`), without going through
/// `fmt`: digits are produced right to left into a small buffer.
fn write_u64(mut n: u64, negative: bool, out: &mut String) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        out.push('-');
    }
    // Only ASCII digits were written, so this cannot fail.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

/// Writes a quoted, escaped string (see [`write_escaped`]).
pub fn write_string(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    write_escaped(s, out);
    out.push('"');
}

/// Writes the escaped inside of a JSON string, without the quotes: runs that need
/// no escaping are copied whole (found eight bytes at a time), and only `"`, `\\`
/// and control bytes are escaped. Escaping works character by character, so the
/// escapes of two pieces, written one after the other, are the escape of the
/// whole: a growing text can be escaped a piece at a time.
pub fn write_escaped(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len());
    let bytes = s.as_bytes();
    let mut start = 0;
    loop {
        let special = find_special(bytes, start);
        // `special` is an ASCII byte or the end, so both cuts are char boundaries.
        out.push_str(s.get(start..special).unwrap_or_default());
        let Some(&b) = bytes.get(special) else {
            break;
        };
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
        start = special + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_escaped_and_the_rest_kept() {
        let all: String = (0u32..0x80)
            .filter_map(char::from_u32)
            .chain("é中😀".chars())
            .collect();
        let text = to_string(&Value::String(all.clone()));
        assert!(text.starts_with(r#""\u0000\u0001"#), "{text}");
        assert!(text.contains(r#"\b\t\n\u000b\f\r\u000e"#), "{text}");
        assert!(
            text.contains(r##" !\"#$"##) && text.contains(r#"[\\]"#),
            "{text}"
        );
        assert!(text.ends_with("\u{7f}é中😀\""), "{text}");
        assert!(!text.bytes().any(|b| b < 0x20), "no raw control bytes");
        let back = super::super::parse_str(&text).unwrap();
        assert_eq!(back.as_str(), Some(all.as_str()));
    }

    #[test]
    fn integers_are_written_exactly() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u64::MAX] {
            assert_eq!(to_string(&Value::from(n)), n.to_string());
        }
        for n in [-1, -10, -12345, i64::MIN] {
            assert_eq!(to_string(&Value::from(n)), n.to_string());
        }
    }

    #[test]
    fn pretty_output_indents_two_spaces() {
        let v = super::super::parse_str(r#"{"a":[1,{"b":null}],"c":{},"d":[]}"#).unwrap();
        assert_eq!(
            to_pretty_string(&v),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}"
        );
    }
}
