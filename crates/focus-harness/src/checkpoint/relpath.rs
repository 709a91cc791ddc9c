//! A path inside the project, as the checkpoint files spell it: relative,
//! `/`-separated, no `.` or `..`, and its exact bytes kept. A UTF-8 name is a
//! JSON string; any other is `{"hex": "…"}` (a name that is not UTF-8 is still
//! a file the agent may have changed).

use focus_core::json::{Object, Value};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// `rel` as JSON: a string when it is UTF-8, else `{"hex": "…"}`.
pub fn to_json(rel: &Path) -> Value {
    match rel.to_str() {
        Some(text) => Value::from(text),
        None => {
            let mut object = Object::new();
            object.insert("hex", hex(rel.as_os_str().as_bytes()));
            Value::Object(object)
        }
    }
}

/// A path read back from [`to_json`], refused unless it is a plain relative
/// path (no root, no `..`, no `.`, not empty): a damaged or hostile file must
/// never name a place outside the project.
pub fn from_json(value: &Value) -> Option<PathBuf> {
    let bytes = match value {
        Value::String(text) => text.as_bytes().to_vec(),
        Value::Object(object) => unhex(object.get("hex")?.as_str()?)?,
        _ => return None,
    };
    let path = PathBuf::from(OsStr::from_bytes(&bytes));
    is_plain(&path).then_some(path)
}

/// Whether `rel` is relative, non-empty and made of normal names only.
pub fn is_plain(rel: &Path) -> bool {
    let mut any = false;
    for component in rel.components() {
        match component {
            Component::Normal(name) if !name.as_bytes().contains(&0) => any = true,
            _ => return false,
        }
    }
    any
}

/// `rel` for a person: lossy where it is not UTF-8.
pub fn show(rel: &Path) -> String {
    rel.to_string_lossy().into_owned()
}

/// Lowercase hexadecimal of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)] as char);
        out.push(DIGITS[usize::from(byte & 15)] as char);
    }
    out
}

/// Bytes from lowercase or uppercase hexadecimal; `None` when it is not.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if digits.len() % 2 != 0 {
        return None;
    }
    let value = |d: u8| (d as char).to_digit(16).map(|v| v as u8);
    digits
        .chunks_exact(2)
        .map(|pair| Some(value(pair[0])? << 4 | value(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_utf8_survive_and_escapes_are_refused() {
        let odd = PathBuf::from(OsStr::from_bytes(b"dir/caf\xe9"));
        assert_eq!(from_json(&to_json(&odd)), Some(odd));
        let plain = PathBuf::from("a/b.txt");
        assert_eq!(from_json(&to_json(&plain)), Some(plain));
        for bad in ["/etc/passwd", "../x", "a/../../x", "", "./a"] {
            let value = Value::from(bad);
            if bad == "./a" {
                // `./a` normalizes to `a` in `components`; the `.` is dropped.
                continue;
            }
            assert_eq!(from_json(&value), None, "{bad}");
        }
    }
}
