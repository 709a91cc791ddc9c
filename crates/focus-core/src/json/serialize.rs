//! The serializer: compact and pretty JSON text from a [`Value`].
//!
//! Control characters are escaped, non-ASCII is written as UTF-8, and non-finite
//! floats (NaN, ±infinity), which JSON cannot spell, are written as `null`.
//! Like the parser it walks an explicit stack, so depth never touches the call stack.

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

enum Step<'a> {
    Value(&'a Value, usize),
    Key(&'a str),
    Separator(usize),
    Close(char, usize),
}

/// Writes `value` into `out`; `indent` selects pretty output (the indent unit).
pub fn write_value(value: &Value, out: &mut String, indent: Option<&str>) {
    let colon = if indent.is_some() { ": " } else { ":" };
    let mut work: Vec<Step<'_>> = vec![Step::Value(value, 0)];
    while let Some(step) = work.pop() {
        match step {
            Step::Key(k) => {
                write_string(k, out);
                out.push_str(colon);
            }
            Step::Separator(depth) => {
                out.push(',');
                newline(out, indent, depth);
            }
            Step::Close(bracket, depth) => {
                newline(out, indent, depth);
                out.push(bracket);
            }
            Step::Value(v, depth) => match v {
                Value::Null => out.push_str("null"),
                Value::Bool(true) => out.push_str("true"),
                Value::Bool(false) => out.push_str("false"),
                Value::Number(n) => write_number(n, out),
                Value::String(s) => write_string(s, out),
                Value::Array(items) if items.is_empty() => out.push_str("[]"),
                Value::Object(o) if o.is_empty() => out.push_str("{}"),
                Value::Array(items) => {
                    out.push('[');
                    newline(out, indent, depth + 1);
                    work.push(Step::Close(']', depth));
                    for (i, item) in items.iter().enumerate().rev() {
                        work.push(Step::Value(item, depth + 1));
                        if i > 0 {
                            work.push(Step::Separator(depth + 1));
                        }
                    }
                }
                Value::Object(o) => {
                    out.push('{');
                    newline(out, indent, depth + 1);
                    work.push(Step::Close('}', depth));
                    let n = o.len();
                    let entries: Vec<(&str, &Value)> = o.iter().collect();
                    for (i, (k, item)) in entries.into_iter().enumerate().rev() {
                        work.push(Step::Value(item, depth + 1));
                        work.push(Step::Key(k));
                        if i > 0 && i < n {
                            work.push(Step::Separator(depth + 1));
                        }
                    }
                }
            },
        }
    }
}

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
    use std::fmt::Write;
    if let Some(text) = &n.text {
        out.push_str(text);
        return;
    }
    match n.kind {
        NumberKind::PosInt(i) => {
            let _ = write!(out, "{i}");
        }
        NumberKind::NegInt(i) => {
            let _ = write!(out, "{i}");
        }
        NumberKind::Float(f) if !f.is_finite() => out.push_str("null"),
        NumberKind::Float(f) => {
            // Rust's `{}` for f64 is the shortest round-trip form, never in exponent
            // notation; integral floats print without a fraction, which reads back as
            // an integer: add ".0" so the kind survives a round trip.
            let start = out.len();
            let _ = write!(out, "{f}");
            if !out[start..].contains(['.', 'e', 'E', 'i', 'N']) {
                out.push_str(".0");
            }
        }
    }
}

/// Writes a quoted, escaped string.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f | 0x7f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            use std::fmt::Write;
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}
