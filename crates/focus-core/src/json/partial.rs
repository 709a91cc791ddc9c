//! A lenient parser for *partial* JSON: the prefix of a document that is still
//! streaming in, as tool-call arguments do.
//!
//! `{"path": "src/ma` gives `{"path": "src/ma"}`; an empty or whitespace-only input
//! gives an empty object. The parser makes one pass over the input, like the strict
//! one (an explicit stack, no recursion, no re-parsing), and when the input ends —
//! or stops making sense — it closes every open container and returns what it has:
//!
//! - an unterminated string keeps the text so far, minus a half-typed escape
//!   (`\`, `\u12`, or a leading surrogate still waiting for its partner);
//! - a number cut short is trimmed to its longest valid prefix (`1.` → `1`,
//!   `1e` → `1`, `-` → nothing);
//! - a half literal (`tr`) and a key with no value yet (`{"a": 1, "b"`) are dropped.
//!
//! Inside strings it forgives what the strict parser would not: raw control
//! characters are kept, unknown escapes give the escaped character, and lone
//! surrogates become U+FFFD. A complete, valid document gives exactly what
//! [`super::parse()`] gives. Never fails, never panics; time is linear in the input.

use super::parse::{find_special, parse as parse_strict, MAX_DEPTH};
use super::value::{Object, Value};

/// Parses as much of `input` as forms a value; see the module documentation.
pub fn parse_partial(input: &str) -> Value {
    let mut p = Lenient {
        text: input,
        bytes: input.as_bytes(),
        pos: 0,
    };
    p.document().unwrap_or_else(|| Value::Object(Object::new()))
}

/// An open container; an object frame holds the key whose value is being read.
enum Frame {
    Array(Vec<Value>),
    Object(Object, Option<String>),
}

impl Frame {
    fn close(self) -> Value {
        match self {
            Frame::Array(items) => Value::Array(items),
            Frame::Object(object, _) => Value::Object(object),
        }
    }

    /// Adds a finished child; an object frame uses (and clears) its pending key.
    fn attach(&mut self, value: Value) {
        match self {
            Frame::Array(items) => items.push(value),
            Frame::Object(object, key) => {
                if let Some(key) = key.take() {
                    object.push(key, value);
                }
            }
        }
    }
}

struct Lenient<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Lenient<'_> {
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The main loop, shaped like the strict parser's. Any `break 'parse` means "the
    /// input ends (or goes wrong) here": the open containers are then closed as they are.
    fn document(&mut self) -> Option<Value> {
        let mut stack: Vec<Frame> = Vec::new();
        'parse: loop {
            self.skip_whitespace();
            // One value start. `last` marks a value cut off by the end of input: it is
            // kept, but nothing can follow it.
            let (mut value, mut last) = match self.peek() {
                Some(open @ (b'[' | b'{')) => {
                    if stack.len() >= MAX_DEPTH {
                        break 'parse;
                    }
                    self.pos += 1;
                    self.skip_whitespace();
                    if open == b'[' {
                        if self.peek() == Some(b']') {
                            self.pos += 1;
                            (Value::Array(Vec::new()), false)
                        } else {
                            stack.push(Frame::Array(Vec::new()));
                            continue 'parse;
                        }
                    } else if self.peek() == Some(b'}') {
                        self.pos += 1;
                        (Value::Object(Object::new()), false)
                    } else {
                        let key = self.key();
                        let complete = key.is_some();
                        stack.push(Frame::Object(Object::new(), key));
                        if complete {
                            continue 'parse;
                        }
                        break 'parse;
                    }
                }
                Some(b'"') => {
                    let (s, complete) = self.string();
                    (Value::String(s), !complete)
                }
                Some(b't' | b'f' | b'n') => match self.literal() {
                    Some(v) => (v, false),
                    None => break 'parse,
                },
                Some(b'-' | b'0'..=b'9') => match self.number() {
                    Some(v) => (v, self.pos >= self.bytes.len()),
                    None => break 'parse,
                },
                _ => break 'parse,
            };
            // Attach it to its parent, then close every container that ends here.
            loop {
                let Some(frame) = stack.last_mut() else {
                    return Some(value);
                };
                frame.attach(value);
                if last {
                    break 'parse;
                }
                self.skip_whitespace();
                let closer = match frame {
                    Frame::Array(_) => b']',
                    Frame::Object(..) => b'}',
                };
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if let Frame::Object(_, key) = frame {
                            self.skip_whitespace();
                            *key = self.key();
                            if key.is_none() {
                                break 'parse;
                            }
                        }
                        continue 'parse;
                    }
                    Some(b) if b == closer => {
                        self.pos += 1;
                        let Some(done) = stack.pop() else {
                            break 'parse;
                        };
                        value = done.close();
                        last = false;
                    }
                    _ => break 'parse,
                }
            }
        }
        // The input ended inside `stack`: close each container into its parent.
        let mut value = stack.pop()?.close();
        while let Some(mut parent) = stack.pop() {
            parent.attach(value);
            value = parent.close();
        }
        Some(value)
    }

    /// A complete member name and its colon, or `None` if the input ends (or breaks)
    /// before the colon.
    fn key(&mut self) -> Option<String> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let (key, complete) = self.string();
        if !complete {
            return None;
        }
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return None;
        }
        self.pos += 1;
        Some(key)
    }

    /// `true`, `false` or `null`, only if complete.
    fn literal(&mut self) -> Option<Value> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let (word, value) = if rest.starts_with(b"true") {
            (4, Value::Bool(true))
        } else if rest.starts_with(b"false") {
            (5, Value::Bool(false))
        } else if rest.starts_with(b"null") {
            (4, Value::Null)
        } else {
            return None;
        };
        self.pos += word;
        Some(value)
    }

    /// A number; at the end of input, its longest valid prefix. The text is handed
    /// to the strict parser, so a number means exactly what it means there.
    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        let mut end = start;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.bytes.get(end) {
            end += 1;
        }
        self.pos = end;
        let mut text = self.bytes.get(start..end).unwrap_or_default();
        if end == self.bytes.len() {
            while let [rest @ .., b'.' | b'e' | b'E' | b'+' | b'-'] = text {
                text = rest;
            }
        }
        match parse_strict(text) {
            Ok(v @ Value::Number(_)) => Some(v),
            _ => None,
        }
    }

    /// After the opening quote: the string so far and whether its closing quote came.
    fn string(&mut self) -> (String, bool) {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let special = find_special(self.bytes, self.pos);
            // `special` is at an ASCII byte or the end: a char boundary of `text`.
            out.push_str(self.text.get(self.pos..special).unwrap_or_default());
            self.pos = special;
            match self.peek() {
                None => return (out, false),
                Some(b'"') => {
                    self.pos += 1;
                    return (out, true);
                }
                Some(b'\\') => match self.escape() {
                    Some(c) => out.push(c),
                    None => return (out, false),
                },
                Some(control) => {
                    out.push(control as char);
                    self.pos += 1;
                }
            }
        }
    }

    /// At a backslash: the escaped character, or `None` if the input ends before
    /// the escape (or a surrogate pair) is complete.
    fn escape(&mut self) -> Option<char> {
        let esc = *self.bytes.get(self.pos + 1)?;
        self.pos += 2;
        let c = match esc {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            // `"`, `\`, `/`, and (leniently) anything else ASCII stands for itself.
            b if b.is_ascii() => b as char,
            // A multi-byte character after `\`: step back so it is copied as text.
            _ => {
                self.pos -= 1;
                '\\'
            }
        };
        Some(c)
    }

    /// After `\u`: the code point, pairing surrogates; U+FFFD for a broken escape.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        let Some(first) = first else {
            return Some(char::REPLACEMENT_CHARACTER);
        };
        if !(0xD800..0xDC00).contains(&first) {
            return Some(char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER));
        }
        // A leading surrogate: its partner may still be on its way.
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        if rest.len() < 2 && b"\\u".starts_with(rest) {
            return None;
        }
        if !rest.starts_with(b"\\u") {
            return Some(char::REPLACEMENT_CHARACTER);
        }
        let after_first = self.pos;
        self.pos += 2;
        match self.hex4()? {
            Some(second @ 0xDC00..=0xDFFF) => {
                let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                Some(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER))
            }
            // Not a partner: the lone surrogate becomes U+FFFD, the next escape is
            // read again on its own.
            _ => {
                self.pos = after_first;
                Some(char::REPLACEMENT_CHARACTER)
            }
        }
    }

    /// Four hex digits: `None` if the input ends first, `Some(None)` if a non-hex
    /// byte comes (which is then left unread).
    fn hex4(&mut self) -> Option<Option<u32>> {
        let mut n = 0;
        for _ in 0..4 {
            let b = *self.bytes.get(self.pos)?;
            let Some(d) = (b as char).to_digit(16) else {
                return Some(None);
            };
            n = n * 16 + d;
            self.pos += 1;
        }
        Some(Some(n))
    }
}
