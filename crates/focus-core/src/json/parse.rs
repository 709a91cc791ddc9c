//! The strict RFC 8259 parser: bytes in, [`Value`] or a positioned [`ParseError`] out.
//!
//! One loop over an explicit stack of open containers, so nesting depth costs heap,
//! not call stack. Depth is still capped at [`MAX_DEPTH`] (far beyond any real
//! document) so that a hostile one gets a clear error of its own instead of a value
//! whose depth surprises code elsewhere that does recurse.

use super::value::{Number, NumberKind, Object, Value};
use crate::scan::{bytes_equal, find_first, HIGHS, ONES};
use std::borrow::Cow;
use std::fmt;

/// The deepest nesting of arrays and objects the parser accepts.
pub const MAX_DEPTH: usize = 10_000;

/// Why and where parsing failed.
#[derive(Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the offending byte (or of the end of input).
    pub offset: usize,
    /// One-based line of `offset`.
    pub line: usize,
    /// One-based column of `offset`, counted in bytes.
    pub column: usize,
    /// What went wrong, phrased as what was expected.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {}, column {} (byte {})",
            self.message, self.line, self.column, self.offset
        )
    }
}

impl fmt::Debug for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ParseError {}

/// Parses one complete JSON text. Surrounding whitespace is allowed; anything else
/// after the value is an error. Duplicate object keys are kept in order (see
/// [`Object::get`] for which one a lookup sees).
///
/// # Errors
///
/// A [`ParseError`] with the byte offset and what was wrong: invalid UTF-8, a syntax error, nesting
/// deeper than [`MAX_DEPTH`], or anything but whitespace after the value.
pub fn parse(input: &[u8]) -> Result<Value, ParseError> {
    parse_text(input, std::str::from_utf8(input).ok())
}

/// Parses a `&str`; see [`parse`]. Skips the up-front UTF-8 check, which the type
/// already guarantees.
///
/// # Errors
///
/// As [`parse`]: a syntax error, nesting deeper than [`MAX_DEPTH`], or trailing text, with its
/// position.
pub fn parse_str(input: &str) -> Result<Value, ParseError> {
    parse_text(input.as_bytes(), Some(input))
}

/// `text` is `input` as `&str` when it is known to be valid UTF-8.
fn parse_text(input: &[u8], text: Option<&str>) -> Result<Value, ParseError> {
    let mut parser = Parser {
        input,
        text,
        pos: 0,
    };
    if input.starts_with(b"\xEF\xBB\xBF") {
        // RFC 8259 section 8.1: implementations must not add a BOM; we do not accept one.
        return Err(parser.error_at(0, "unexpected byte order mark (BOM) before the JSON text"));
    }
    let value = parser.parse_value(0)?;
    parser.skip_whitespace();
    if parser.pos < input.len() {
        return Err(parser.expected("end of input after the JSON value"));
    }
    Ok(value)
}

/// A number as [`Parser::scan_number`] read it.
pub(super) enum ScannedNumber<'a> {
    /// An integer held exactly.
    Exact(Number),
    /// Anything else (a fraction, an exponent, a wider integer, `-0`): its text.
    Float(&'a str),
}

/// An open container: where its children start in the shared child list, and for
/// an object the key whose value is being parsed.
enum Frame {
    Array(usize),
    Object(usize, String),
}

pub(super) struct Parser<'a> {
    pub(super) input: &'a [u8],
    /// The whole input as `&str` when it is valid UTF-8 (checked once, up front, which
    /// is much faster than validating each string on its own); `None` sends string
    /// runs through their own validation, which finds and reports the bad byte.
    pub(super) text: Option<&'a str>,
    pub(super) pos: usize,
}

/// The most [`Parser::parse_str_or_borrow`] reserves up front for a string with
/// escapes; longer strings grow from there.
const RESERVE_CAP: usize = 64 * 1024;

/// The index of the first byte at or after `from` that ends a run of plain string
/// content: a quote, a backslash or a control byte (below 0x20); `bytes.len()` if none.
///
/// Eight bytes at a time ([`crate::scan::find_first`]): quotes and backslashes with
/// [`bytes_equal`]; bytes below 0x20 by subtracting 0x20 instead of 0x01 in the
/// "has a zero byte" trick (bytes >= 0x80 are excluded by `!x`).
#[inline]
pub(super) fn find_special(bytes: &[u8], from: usize) -> usize {
    let special = |x: u64| {
        bytes_equal(x, b'"') | bytes_equal(x, b'\\') | (x.wrapping_sub(ONES * 0x20) & !x & HIGHS)
    };
    find_first(bytes, from, special, |b| {
        b == b'"' || b == b'\\' || b < 0x20
    })
}

/// The character a one-character escape (`\n`, `\"`…) stands for, given the byte
/// after the backslash; `None` for `u` and for bytes that are not escapes.
#[inline]
fn one_char_escape(byte: u8) -> Option<char> {
    Some(match byte {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    #[cold]
    pub(super) fn error_at(&self, offset: usize, message: &str) -> ParseError {
        let offset = offset.min(self.input.len());
        let before = &self.input[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        ParseError {
            offset,
            line,
            column: offset - line_start + 1,
            message: message.to_string(),
        }
    }

    #[cold]
    pub(super) fn error(&self, message: &str) -> ParseError {
        if self.pos >= self.input.len() {
            self.error_at(self.pos, &format!("unexpected end of input: {message}"))
        } else {
            self.error_at(self.pos, message)
        }
    }

    /// `expected <what>, found <the byte at pos>` (or `found end of input`).
    #[cold]
    pub(super) fn expected(&self, what: &str) -> ParseError {
        let found = match self.input.get(self.pos) {
            None => "end of input".to_string(),
            Some(&b) if b.is_ascii_graphic() => format!("'{}'", b as char),
            Some(b' ') => "a space".to_string(),
            Some(b'\n') => "a newline".to_string(),
            Some(&b) => format!("byte 0x{b:02x}"),
        };
        self.error_at(self.pos, &format!("expected {what}, found {found}"))
    }

    #[inline]
    pub(super) fn skip_whitespace(&mut self) {
        while let Some(&b) = self.input.get(self.pos) {
            if b == b' ' || b == b'\n' || b == b'\t' || b == b'\r' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    /// The main loop: scalars are returned directly; containers push a frame and the
    /// loop fills it until its closing bracket pops it. `outer_depth` is how many
    /// containers are already open around this value (by a [`super::pull`] reader),
    /// so that [`MAX_DEPTH`] counts from the top of the document either way.
    pub(super) fn parse_value(&mut self, outer_depth: usize) -> Result<Value, ParseError> {
        let mut stack: Vec<Frame> = Vec::new();
        // Children of all open containers, innermost last; each frame remembers where
        // its own start. Closing a container moves its children into one vector of
        // exactly the right size, instead of growing a vector per container.
        let mut elements: Vec<Value> = Vec::new();
        let mut members: Vec<(String, Value)> = Vec::new();
        'value: loop {
            self.skip_whitespace();
            // Parse one value start: a scalar, or open a container.
            let mut value = match self.peek() {
                Some(b'[') => {
                    self.pos += 1;
                    if stack.len() + outer_depth >= MAX_DEPTH {
                        return Err(self.error(&format!("nesting deeper than {MAX_DEPTH} levels")));
                    }
                    self.skip_whitespace();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        Value::Array(Vec::new())
                    } else {
                        stack.push(Frame::Array(elements.len()));
                        continue 'value;
                    }
                }
                Some(b'{') => {
                    self.pos += 1;
                    if stack.len() + outer_depth >= MAX_DEPTH {
                        return Err(self.error(&format!("nesting deeper than {MAX_DEPTH} levels")));
                    }
                    self.skip_whitespace();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Value::Object(Object::new())
                    } else {
                        let key = self.parse_key()?;
                        stack.push(Frame::Object(members.len(), key));
                        continue 'value;
                    }
                }
                Some(b'"') => Value::String(self.parse_string()?),
                Some(b't') => self.parse_literal(b"true", Value::Bool(true))?,
                Some(b'f') => self.parse_literal(b"false", Value::Bool(false))?,
                Some(b'n') => self.parse_literal(b"null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => Value::Number(self.parse_number()?),
                _ => return Err(self.expected("a JSON value")),
            };
            // Attach the finished value to its parent; close as many containers as end here.
            loop {
                let Some(frame) = stack.last_mut() else {
                    return Ok(value);
                };
                self.skip_whitespace();
                match frame {
                    Frame::Array(start) => {
                        let start = *start;
                        elements.push(value);
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                stack.pop();
                                value = Value::Array(elements.drain(start..).collect());
                            }
                            _ => return Err(self.expected("',' or ']' after an array element")),
                        }
                    }
                    Frame::Object(start, key) => {
                        let start = *start;
                        members.push((std::mem::take(key), value));
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_whitespace();
                                *key = self.parse_key()?;
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                stack.pop();
                                let entries = members.drain(start..).collect();
                                value = Value::Object(Object::from_entries(entries));
                            }
                            _ => return Err(self.expected("',' or '}' after an object member")),
                        }
                    }
                }
            }
        }
    }

    /// A member name and its colon.
    pub(super) fn parse_key(&mut self) -> Result<String, ParseError> {
        if self.peek() != Some(b'"') {
            return Err(self.expected("a string key in double quotes"));
        }
        let key = self.parse_string()?;
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(self.expected("':' after an object key"));
        }
        self.pos += 1;
        Ok(key)
    }

    pub(super) fn parse_literal(&mut self, word: &[u8], value: Value) -> Result<Value, ParseError> {
        let end = self.pos + word.len();
        if self.input.get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(value)
        } else {
            let text = String::from_utf8_lossy(word);
            Err(self.error(&format!("invalid literal: expected '{text}'")))
        }
    }

    /// After the opening quote has been seen: the decoded string. Unescaped runs are
    /// found a word at a time ([`find_special`]) and validated as UTF-8 in one call;
    /// only strings with escapes are copied piecewise.
    pub(super) fn parse_string(&mut self) -> Result<String, ParseError> {
        self.parse_str_or_borrow().map(Cow::into_owned)
    }

    /// [`Parser::parse_string`], but a string without escapes is borrowed from the
    /// input instead of copied (for keys that are only compared).
    pub(super) fn parse_str_or_borrow(&mut self) -> Result<Cow<'a, str>, ParseError> {
        self.pos += 1; // the opening quote
        let start = self.pos;
        let end = find_special(self.input, start);
        if self.input.get(end) == Some(&b'"') {
            let run = self.utf8_run(start, end)?;
            self.pos = end + 1;
            return Ok(Cow::Borrowed(run));
        }
        // The decoded string is never longer than the rest of the input, so that
        // (capped) is reserved at once and the unused tail given back at the end: one
        // allocation instead of a chain of doublings, each of which may copy
        // (a 6 KB tool output with a `\n` per line grew ten times).
        let mut out = String::with_capacity((self.input.len() - start).min(RESERVE_CAP));
        self.decode_runs(start, end, &mut out)?;
        out.shrink_to_fit();
        Ok(Cow::Owned(out))
    }

    /// After the opening quote has been seen: the decoded string appended to `out`
    /// (for callers that collect many strings in one buffer).
    pub(super) fn parse_str_into(&mut self, out: &mut String) -> Result<(), ParseError> {
        self.pos += 1; // the opening quote
        let start = self.pos;
        let end = find_special(self.input, start);
        self.decode_runs(start, end, out)
    }

    /// Decodes the rest of a string into `out`, from its first run of plain content
    /// (`run_start..run_end`, ending at a special byte) to its closing quote.
    fn decode_runs(
        &mut self,
        mut run_start: usize,
        mut run_end: usize,
        out: &mut String,
    ) -> Result<(), ParseError> {
        loop {
            out.push_str(self.utf8_run(run_start, run_end)?);
            self.pos = run_end;
            match self.input.get(run_end) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    // The one-character escapes (`\n` above all: long tool outputs hold
                    // one per line) are decoded here; `\u` and errors take the full path.
                    match self
                        .input
                        .get(run_end + 1)
                        .and_then(|&b| one_char_escape(b))
                    {
                        Some(c) => {
                            out.push(c);
                            self.pos += 2;
                        }
                        None => {
                            self.pos += 1;
                            out.push(self.parse_escape()?);
                        }
                    }
                }
                Some(_) => {
                    return Err(self.error("control character in string: escape it as \\u00XX"))
                }
                None => return Err(self.expected("'\"' to close the string")),
            }
            run_start = self.pos;
            run_end = find_special(self.input, run_start);
        }
    }

    /// `input[start..end]` as `&str`, or an error at the first invalid UTF-8 byte.
    ///
    /// Called once per run of every string, so the common case is inlined and the
    /// validating one kept out of line.
    #[inline]
    fn utf8_run(&self, start: usize, end: usize) -> Result<&'a str, ParseError> {
        // Runs start and end at ASCII bytes (quotes, backslashes, escapes), so in valid
        // UTF-8 they are char boundaries and `get` succeeds without re-validating.
        match self.text.and_then(|t| t.get(start..end)) {
            Some(run) => Ok(run),
            None => self.validated_run(start, end),
        }
    }

    /// [`Parser::utf8_run`] when the input was not known to be valid UTF-8.
    #[inline(never)]
    fn validated_run(&self, start: usize, end: usize) -> Result<&'a str, ParseError> {
        let bytes = self.input.get(start..end).unwrap_or_default();
        std::str::from_utf8(bytes)
            .map_err(|e| self.error_at(start + e.valid_up_to(), "invalid UTF-8 in string"))
    }

    /// After a backslash: the character the escape stands for.
    fn parse_escape(&mut self) -> Result<char, ParseError> {
        let Some(&esc) = self.input.get(self.pos) else {
            return Err(self.expected("an escape character after '\\'"));
        };
        if esc == b'u' {
            self.pos += 1;
            return self.parse_unicode_escape();
        }
        let Some(c) = one_char_escape(esc) else {
            return Err(self.expected("one of \" \\ / b f n r t u after '\\'"));
        };
        self.pos += 1;
        Ok(c)
    }

    fn parse_hex4(&mut self) -> Result<u32, ParseError> {
        let mut n = 0u32;
        for _ in 0..4 {
            let Some(&b) = self.input.get(self.pos) else {
                return Err(self.expected("4 hex digits after '\\u'"));
            };
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(self.expected("4 hex digits after '\\u'")),
            };
            n = n * 16 + d as u32;
            self.pos += 1;
        }
        Ok(n)
    }

    /// After `\u`: one code point, pairing surrogates. A lone surrogate is an error
    /// (it cannot be held in a Rust `String`).
    fn parse_unicode_escape(&mut self) -> Result<char, ParseError> {
        let escape_start = self.pos - 2;
        let first = self.parse_hex4()?;
        let code = if (0xD800..0xDC00).contains(&first) {
            if self.input.get(self.pos..self.pos + 2) != Some(b"\\u") {
                return Err(self.error_at(escape_start, "lone leading surrogate in \\u escape"));
            }
            self.pos += 2;
            let second = self.parse_hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return Err(self.error_at(
                    escape_start,
                    "leading surrogate not followed by a trailing one",
                ));
            }
            0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00..0xE000).contains(&first) {
            return Err(self.error_at(escape_start, "lone trailing surrogate in \\u escape"));
        } else {
            first
        };
        char::from_u32(code).ok_or_else(|| self.error_at(escape_start, "invalid code point"))
    }

    pub(super) fn parse_number(&mut self) -> Result<Number, ParseError> {
        Ok(match self.scan_number()? {
            ScannedNumber::Exact(n) => n,
            ScannedNumber::Float(text) => Number {
                kind: NumberKind::Float(text.parse().unwrap_or(f64::NAN)),
                text: Some(text.into()),
            },
        })
    }

    /// Reads a number, leaving a non-integer as its text (so that a caller who only
    /// wants the `f64` does not pay for keeping the text).
    pub(super) fn scan_number(&mut self) -> Result<ScannedNumber<'a>, ParseError> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        // Integer part: 0, or a non-zero digit and more digits.
        let mut int: u64 = 0;
        let mut overflow = false;
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if matches!(self.peek(), Some(b'0'..=b'9')) {
                    return Err(self.error("leading zeros are not allowed in numbers"));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    match int
                        .checked_mul(10)
                        .and_then(|n| n.checked_add((d - b'0') as u64))
                    {
                        Some(n) => int = n,
                        None => overflow = true,
                    }
                    self.pos += 1;
                }
            }
            _ => return Err(self.expected("a digit")),
        }
        let mut is_float = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.expected("a digit after the decimal point"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            is_float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.expected("a digit in the exponent"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            is_float = true;
        }
        // "-0" (int == 0) is not exact either: it keeps its sign through its text.
        if !is_float && !overflow && (!negative || int != 0) {
            if !negative {
                return Ok(ScannedNumber::Exact(Number::from_u64(int)));
            }
            if int <= i64::MAX as u64 + 1 {
                let n = Number::from_i64((int as i128).wrapping_neg() as i64);
                return Ok(ScannedNumber::Exact(n));
            }
        }
        // The matched bytes are ASCII digits, signs, '.', 'e': valid UTF-8 by construction.
        let text = std::str::from_utf8(&self.input[start..self.pos]).unwrap_or("0");
        Ok(ScannedNumber::Float(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string with escapes is reserved at the rest of the input's length and must
    /// give the unused part back: a small string early in a big document keeps no
    /// 64 KB buffer, and long strings (past the reservation) still decode whole.
    #[test]
    fn escaped_strings_keep_only_what_they_hold() {
        let padding = " ".repeat(200_000);
        let text = format!("[\"a\\nb\"{padding}]");
        let value = parse(text.as_bytes()).unwrap();
        let Value::String(s) = &value[0] else {
            panic!("not a string");
        };
        assert_eq!(s, "a\nb");
        assert!(s.capacity() < 64, "capacity {}", s.capacity());
        for len in [
            RESERVE_CAP - 1,
            RESERVE_CAP,
            RESERVE_CAP + 1,
            3 * RESERVE_CAP,
        ] {
            let long = "x\\n".repeat(len / 3 + 1);
            let value = parse(format!("\"{long}\"").as_bytes()).unwrap();
            let Value::String(s) = &value else {
                panic!("not a string");
            };
            assert_eq!(s.len(), 2 * (len / 3 + 1));
            assert!(s.bytes().step_by(2).all(|b| b == b'x'));
        }
    }

    /// The word-at-a-time scan must agree with a plain byte loop for every byte value
    /// at every position of short inputs (covering the 8-byte chunks and the tail).
    #[test]
    fn find_special_agrees_with_a_byte_loop() {
        let naive = |bytes: &[u8], from: usize| {
            (from..bytes.len())
                .find(|&i| matches!(bytes[i], b'"' | b'\\' | 0..=0x1f))
                .unwrap_or(bytes.len())
        };
        for len in 0..36 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    // A high byte before the probe must not hide it (borrow effects).
                    if at > 0 {
                        bytes[at - 1] = 0xff;
                    }
                    for from in [0, at / 2, at] {
                        assert_eq!(
                            find_special(&bytes, from),
                            naive(&bytes, from),
                            "{bytes:?} from {from}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn errors_name_position_and_what_was_found() {
        let err = parse(b"{\n  \"a\": [1, 2,]\n}").unwrap_err();
        assert_eq!((err.offset, err.line, err.column), (15, 2, 14));
        assert_eq!(err.message, "expected a JSON value, found ']'");
        let err = parse(b"[1, 2").unwrap_err();
        assert_eq!(
            err.to_string(),
            "expected ',' or ']' after an array element, found end of input at line 1, column 6 (byte 5)"
        );
        let err = parse(b"\"abc\xff\"").unwrap_err();
        assert_eq!(
            (err.offset, err.message.as_str()),
            (4, "invalid UTF-8 in string")
        );
        let err = parse(b"\"a\\ud800\"").unwrap_err();
        assert_eq!(err.offset, 2, "points at the escape");
        assert!(err.message.contains("surrogate"), "{err}");
        let err = parse(b"[tru]").unwrap_err();
        assert_eq!(err.message, "invalid literal: expected 'true'");
        let err = parse(b"\xEF\xBB\xBF{}").unwrap_err();
        assert!(err.message.contains("byte order mark"), "{err}");
        let err = parse(b"{\"a\":1}x").unwrap_err();
        assert_eq!(
            err.message,
            "expected end of input after the JSON value, found 'x'"
        );
    }

    #[test]
    fn strings_decode_escapes_and_keep_utf8() {
        let v = parse_str(r#""a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u4e2d\ud83d\ude00 é中😀""#).unwrap();
        assert_eq!(v.as_str(), Some("a\"b\\c/d\u{8}\u{c}\n\r\tAé中😀 é中😀"));
    }
}
