//! A lenient parser for *partial* JSON: the prefix of a document that is still
//! streaming in, as tool-call arguments do.
//!
//! `{"path": "src/ma` gives `{"path": "src/ma"}`; an empty or whitespace-only input
//! gives an empty object. Whatever cannot be completed (a dangling key, half a
//! literal, half an escape) is dropped. Never fails, never panics.

use super::value::{Object, Value};

/// Parses as much of `input` as forms a value; see the module documentation.
/// A complete, valid document parses exactly as [`super::parse()`] would.
pub fn parse_partial(input: &str) -> Value {
    if input.trim().is_empty() {
        return Value::Object(Object::new());
    }
    if let Ok(v) = super::parse_str(input) {
        return v;
    }
    let completed = complete(input);
    match super::parse_str(&completed) {
        Ok(v @ Value::Object(_)) | Ok(v @ Value::Array(_)) => v,
        Ok(v)
            if input
                .trim_start()
                .starts_with(['"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']) =>
        {
            v
        }
        _ => Value::Object(Object::new()),
    }
}

/// Closes open strings and containers and trims what cannot be completed.
fn complete(input: &str) -> String {
    let mut out = String::with_capacity(input.len() + 16);
    let mut stack: Vec<char> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    // Byte index in `out` of the last point where cutting leaves a valid prefix
    // ("safe point"), with the stack depth at that point.
    for ch in input.chars() {
        if in_string {
            out.push(ch);
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == '"' {
                in_string = false;
            }
            continue;
        }
        match ch {
            '"' => in_string = true,
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
        out.push(ch);
    }
    if in_string {
        if escaped {
            out.pop();
        }
        // A half-typed \uXXXX escape cannot be completed: drop it.
        if let Some(idx) = out.rfind("\\u") {
            let tail = &out[idx + 2..];
            if tail.len() < 4
                && tail.chars().all(|c| c.is_ascii_hexdigit())
                && !out[..idx].ends_with('\\')
            {
                out.truncate(idx);
            }
        }
        out.push('"');
    }
    // Trim a trailing fragment that cannot stand: a comma, a colon, a key with no
    // value, or half a literal or number.
    loop {
        let trimmed = out.trim_end();
        let len = trimmed.len();
        out.truncate(len);
        if out.ends_with(',') || out.ends_with(':') {
            out.pop();
            if out.trim_end().ends_with('"') && stack.last() == Some(&'}') && ends_with_key(&out) {
                remove_last_string(&mut out);
            }
            continue;
        }
        if stack.last() == Some(&'}') && ends_with_key(&out) {
            remove_last_string(&mut out);
            continue;
        }
        let tail_start = out
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '+'))
            .map_or(0, |i| i + 1);
        let tail = &out[tail_start..];
        if !tail.is_empty() && !is_complete_scalar(tail) {
            if let Some(fixed) = complete_number(tail) {
                out.truncate(tail_start);
                out.push_str(&fixed);
            } else {
                out.truncate(tail_start);
                continue;
            }
        }
        break;
    }
    while let Some(close) = stack.pop() {
        out.push(close);
    }
    out
}

fn is_complete_scalar(s: &str) -> bool {
    matches!(s, "true" | "false" | "null")
        || super::parse_str(s)
            .map(|v| v.as_number().is_some())
            .unwrap_or(false)
}

/// `12.` → `12`, `1e` → `1`, `-` → none.
fn complete_number(s: &str) -> Option<String> {
    let trimmed = s.trim_end_matches(['.', 'e', 'E', '+', '-']);
    if !trimmed.is_empty() && super::parse_str(trimmed).is_ok() {
        Some(trimmed.to_string())
    } else {
        None
    }
}

/// Whether `out` ends with a string that is an object key (preceded by `{` or `,`
/// inside an object) and so has no value yet.
fn ends_with_key(out: &str) -> bool {
    let Some(start) = last_string_start(out) else {
        return false;
    };
    let before = out[..start].trim_end();
    before.ends_with('{') || before.ends_with(',')
}

fn remove_last_string(out: &mut String) {
    if let Some(start) = last_string_start(out) {
        out.truncate(start);
        let len = out.trim_end().len();
        out.truncate(len);
        if out.ends_with(',') {
            out.pop();
        }
    }
}

/// The byte index of the opening quote of the string that `out` ends with.
fn last_string_start(out: &str) -> Option<usize> {
    if !out.ends_with('"') {
        return None;
    }
    let bytes = out.as_bytes();
    let mut i = bytes.len() - 1;
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' {
            let mut backslashes = 0;
            let mut j = i;
            while j > 0 && bytes[j - 1] == b'\\' {
                backslashes += 1;
                j -= 1;
            }
            if backslashes % 2 == 0 {
                return Some(i);
            }
        }
    }
    None
}
