//! A pull reader: walk a JSON text one token at a time and build only what you need.
//!
//! [`parse()`](super::parse()) builds a whole [`Value`] tree, which is the right tool
//! almost always. When a large document is read straight into Rust types, though,
//! most of that tree is thrown away at once: every key is allocated only to be
//! compared, and every string copied out of it. [`PullReader`] lets a decoder ask
//! for "an object", "its next key", "a string here" instead, borrowing keys from
//! the input and building [`Value`]s only where it wants one ([`PullReader::read_value`]).
//!
//! It is exactly as strict as [`parse()`](super::parse()) (the same scanner reads every token),
//! so a text either reads the same way through both or fails in both. Errors are
//! [`ParseError`]s; a wrong kind of token where a typed read expected another is an
//! error too (`expected a string, found '1'`).
//!
//! ```
//! use focus_core::json::PullReader;
//! let mut r = PullReader::new(r#"{"name": "read", "limit": 10, "extra": [1, 2]}"#);
//! r.begin_object().unwrap();
//! let mut name = String::new();
//! while let Some(key) = r.next_key().unwrap() {
//!     match &*key {
//!         "name" => name = r.read_string().unwrap(),
//!         _ => r.skip_value().unwrap(),
//!     }
//! }
//! r.finish().unwrap();
//! assert_eq!(name, "read");
//! ```

use super::parse::{ParseError, Parser, ScannedNumber, MAX_DEPTH};
use super::value::{Number, Value};
use std::borrow::Cow;

/// What the next value is, judged by its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A cursor over one JSON text; see the [module docs](self).
pub struct PullReader<'a> {
    parser: Parser<'a>,
    /// One flag per open container: whether it has had a member or element yet
    /// (the next one must then be preceded by a comma).
    open: OpenContainers,
}

/// A stack of flags, one per open container, kept in a word for the first 64
/// levels (real documents never go deeper), so reading a line allocates nothing
/// for it.
#[derive(Default)]
struct OpenContainers {
    depth: usize,
    /// Bit `i`: the flag of the container at depth `i`, for `i < 64`.
    shallow: u64,
    /// The flags of the containers past the 64th.
    deep: Vec<bool>,
}

impl OpenContainers {
    fn len(&self) -> usize {
        self.depth
    }

    fn is_empty(&self) -> bool {
        self.depth == 0
    }

    /// Opens a container with no items yet.
    fn push(&mut self) {
        if self.depth < 64 {
            self.shallow &= !(1 << self.depth);
        } else {
            self.deep.push(false);
        }
        self.depth += 1;
    }

    fn pop(&mut self) {
        if self.depth > 64 {
            self.deep.pop();
        }
        self.depth = self.depth.saturating_sub(1);
    }

    /// The innermost container's flag; `None` when none is open.
    fn top(&self) -> Option<bool> {
        match self.depth {
            0 => None,
            d if d <= 64 => Some(self.shallow & (1 << (d - 1)) != 0),
            _ => self.deep.last().copied(),
        }
    }

    /// Marks the innermost container as having had an item.
    fn mark_top(&mut self) {
        match self.depth {
            0 => {}
            d if d <= 64 => self.shallow |= 1 << (d - 1),
            _ => {
                if let Some(flag) = self.deep.last_mut() {
                    *flag = true;
                }
            }
        }
    }
}

impl<'a> PullReader<'a> {
    /// A reader at the start of `text`.
    pub fn new(text: &'a str) -> PullReader<'a> {
        PullReader {
            parser: Parser {
                input: text.as_bytes(),
                text: Some(text),
                pos: 0,
            },
            open: OpenContainers::default(),
        }
    }

    /// The kind of the next value, without reading it; `None` at the end of input or
    /// before a byte that cannot start a value.
    pub fn peek(&mut self) -> Option<Token> {
        self.parser.skip_whitespace();
        Some(match self.parser.peek()? {
            b'n' => Token::Null,
            b't' | b'f' => Token::Bool,
            b'-' | b'0'..=b'9' => Token::Number,
            b'"' => Token::String,
            b'[' => Token::Array,
            b'{' => Token::Object,
            _ => return None,
        })
    }

    /// Reads `{`, opening an object whose members [`PullReader::next_key`] walks.
    ///
    /// # Errors
    ///
    /// The next value is not an object, or the input is not JSON there (a [`ParseError`] with its
    /// position).
    pub fn begin_object(&mut self) -> Result<(), ParseError> {
        self.open_container(b'{', "'{'")
    }

    /// Reads `[`, opening an array whose elements [`PullReader::next_element`] walks.
    ///
    /// # Errors
    ///
    /// The next value is not an array, or the input is not JSON there.
    pub fn begin_array(&mut self) -> Result<(), ParseError> {
        self.open_container(b'[', "'['")
    }

    fn open_container(&mut self, bracket: u8, name: &str) -> Result<(), ParseError> {
        self.parser.skip_whitespace();
        if self.parser.peek() != Some(bracket) {
            return Err(self.parser.expected(name));
        }
        if self.open.len() >= MAX_DEPTH {
            return Err(self
                .parser
                .error(&format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.parser.pos += 1;
        self.open.push();
        Ok(())
    }

    /// In an object: the next member's key (its colon read; the caller then reads
    /// the value), or `None` after reading the closing `}`. Keys without escapes
    /// are borrowed from the input.
    ///
    /// # Errors
    ///
    /// The input is not a well-formed object member there (a key that is no string, a missing colon
    /// or comma, the end of the input).
    pub fn next_key(&mut self) -> Result<Option<Cow<'a, str>>, ParseError> {
        if !self.next_item(b'}', "',' or '}' after an object member")? {
            return Ok(None);
        }
        if self.parser.peek() != Some(b'"') {
            return Err(self.parser.expected("a string key in double quotes"));
        }
        let key = self.parser.parse_str_or_borrow()?;
        self.parser.skip_whitespace();
        if self.parser.peek() != Some(b':') {
            return Err(self.parser.expected("':' after an object key"));
        }
        self.parser.pos += 1;
        Ok(Some(key))
    }

    /// In an array: `true` if another element follows (the caller then reads it),
    /// `false` after reading the closing `]`.
    ///
    /// # Errors
    ///
    /// The input is not a well-formed array there (a missing comma, the end of the input).
    pub fn next_element(&mut self) -> Result<bool, ParseError> {
        self.next_item(b']', "',' or ']' after an array element")
    }

    /// Steps past the comma before a member or element, or reads the closing bracket.
    fn next_item(&mut self, close: u8, what: &str) -> Result<bool, ParseError> {
        self.parser.skip_whitespace();
        let Some(had_items) = self.open.top() else {
            return Err(self.parser.error("no open object or array here"));
        };
        if self.parser.peek() == Some(close) {
            self.parser.pos += 1;
            self.open.pop();
            return Ok(false);
        }
        if had_items {
            if self.parser.peek() != Some(b',') {
                return Err(self.parser.expected(what));
            }
            self.parser.pos += 1;
            self.parser.skip_whitespace();
        }
        self.open.mark_top();
        Ok(true)
    }

    /// Reads a string (decoded, owned).
    ///
    /// # Errors
    ///
    /// The next value is not a string, or the string is malformed (a bad escape, a control
    /// character, no closing quote).
    pub fn read_string(&mut self) -> Result<String, ParseError> {
        self.read_str().map(Cow::into_owned)
    }

    /// Reads a string, borrowed from the input when it has no escapes.
    ///
    /// # Errors
    ///
    /// The next value is not a string, or the string is malformed.
    pub fn read_str(&mut self) -> Result<Cow<'a, str>, ParseError> {
        self.parser.skip_whitespace();
        if self.parser.peek() != Some(b'"') {
            return Err(self.parser.expected("a string"));
        }
        self.parser.parse_str_or_borrow()
    }

    /// Reads a string, appending its decoded text to `out`: for a loader that keeps
    /// many strings one after another in a few buffers (the session loader's arena)
    /// instead of one allocation per string. On an error, what was appended is
    /// unspecified: the caller takes it back.
    ///
    /// # Errors
    ///
    /// The next value is not a string, or the string is malformed; what was appended to `out` is
    /// then unspecified.
    pub fn read_str_into(&mut self, out: &mut String) -> Result<(), ParseError> {
        self.parser.skip_whitespace();
        if self.parser.peek() != Some(b'"') {
            return Err(self.parser.expected("a string"));
        }
        self.parser.parse_str_into(out)
    }

    /// Reads a number, as [`parse()`](super::parse()) would hold it.
    ///
    /// # Errors
    ///
    /// The next value is not a number, or the number is malformed.
    pub fn read_number(&mut self) -> Result<Number, ParseError> {
        self.expect_number()?;
        self.parser.parse_number()
    }

    /// Reads a number as `f64` (the same value as [`Number::as_f64`] would give),
    /// without keeping a non-integer's text.
    ///
    /// # Errors
    ///
    /// The next value is not a number, or the number is malformed.
    pub fn read_f64(&mut self) -> Result<f64, ParseError> {
        self.expect_number()?;
        Ok(match self.parser.scan_number()? {
            ScannedNumber::Exact(n) => n.as_f64(),
            ScannedNumber::Float(text) => text.parse().unwrap_or(f64::NAN),
        })
    }

    fn expect_number(&mut self) -> Result<(), ParseError> {
        if self.peek() != Some(Token::Number) {
            return Err(self.parser.expected("a number"));
        }
        Ok(())
    }

    /// Reads `true` or `false`.
    ///
    /// # Errors
    ///
    /// The next value is not `true` or `false`.
    pub fn read_bool(&mut self) -> Result<bool, ParseError> {
        match self.peek() {
            Some(Token::Bool) if self.parser.peek() == Some(b't') => {
                self.parser.parse_literal(b"true", Value::Null)?;
                Ok(true)
            }
            Some(Token::Bool) => {
                self.parser.parse_literal(b"false", Value::Null)?;
                Ok(false)
            }
            _ => Err(self.parser.expected("true or false")),
        }
    }

    /// Reads `null`.
    ///
    /// # Errors
    ///
    /// The next value is not `null`.
    pub fn read_null(&mut self) -> Result<(), ParseError> {
        if self.peek() != Some(Token::Null) {
            return Err(self.parser.expected("null"));
        }
        self.parser.parse_literal(b"null", Value::Null).map(drop)
    }

    /// Reads the next value whole, as a tree (nesting counted from the top of the
    /// document, so [`MAX_DEPTH`] means the same as for [`parse()`](super::parse())).
    ///
    /// # Errors
    ///
    /// The value is not well-formed JSON, or nests deeper than [`MAX_DEPTH`].
    pub fn read_value(&mut self) -> Result<Value, ParseError> {
        self.parser.parse_value(self.open.len())
    }

    /// Reads the next value and drops it (it is still checked in full).
    ///
    /// # Errors
    ///
    /// The value is not well-formed JSON, or nests deeper than [`MAX_DEPTH`].
    pub fn skip_value(&mut self) -> Result<(), ParseError> {
        self.read_value().map(drop)
    }

    /// Checks that every container is closed and only whitespace is left.
    ///
    /// # Errors
    ///
    /// A container is still open, or something other than whitespace follows the value.
    pub fn finish(&mut self) -> Result<(), ParseError> {
        self.parser.skip_whitespace();
        if !self.open.is_empty() {
            return Err(self.parser.error("an object or array is still open"));
        }
        if self.parser.pos < self.parser.input.len() {
            return Err(self.parser.expected("end of input after the JSON value"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse_str, Object};

    /// Rebuilds a value through the pull reader's typed calls (a second, independent
    /// tree builder), to compare with the tree parser.
    fn rebuild(r: &mut PullReader<'_>) -> Result<Value, ParseError> {
        Ok(match r.peek() {
            Some(Token::Object) => {
                r.begin_object()?;
                let mut o = Object::new();
                while let Some(key) = r.next_key()? {
                    let value = rebuild(r)?;
                    o.push(key.into_owned(), value);
                }
                Value::Object(o)
            }
            Some(Token::Array) => {
                r.begin_array()?;
                let mut items = Vec::new();
                while r.next_element()? {
                    items.push(rebuild(r)?);
                }
                Value::Array(items)
            }
            Some(Token::String) => Value::String(r.read_string()?),
            Some(Token::Number) => Value::Number(r.read_number()?),
            Some(Token::Bool) => Value::Bool(r.read_bool()?),
            Some(Token::Null) => r.read_null().map(|_| Value::Null)?,
            None => r.read_value()?,
        })
    }

    fn pull(text: &str) -> Result<Value, ParseError> {
        let mut r = PullReader::new(text);
        let value = rebuild(&mut r)?;
        r.finish()?;
        Ok(value)
    }

    #[test]
    fn agrees_with_the_tree_parser_on_good_and_bad_texts() {
        for text in [
            r#"{"a":[1,-2,3.5,1e3,-0,true,false,null,"x\n\u00e9"],"b":{},"c":[],"a":" dup "}"#,
            " [ 1 , { \"k\" : [ ] } ] ",
            r#""\ud83d\ude00 tail""#,
            "18446744073709551616",
            "{\"a\":1,}",
            "[1,]",
            "[1 2]",
            "{\"a\" 1}",
            "{\"a\":1}x",
            "{1:2}",
            "[\"abc",
            "[tru]",
            "{\"a\":[}",
            "",
            "{",
        ] {
            let tree = parse_str(text);
            let pulled = pull(text);
            assert_eq!(
                tree.is_ok(),
                pulled.is_ok(),
                "{text}: {tree:?} vs {pulled:?}"
            );
            if let (Ok(a), Ok(b)) = (&tree, &pulled) {
                assert_eq!(a, b, "{text}");
                assert_eq!(a.to_json_string(), b.to_json_string(), "{text}");
            }
        }
    }

    #[test]
    fn typed_reads_borrow_keys_and_reject_wrong_tokens() {
        let mut r = PullReader::new(r#"{"plain": 1.5, "esc\u0061ped": "s", "n": null}"#);
        r.begin_object().unwrap();
        assert!(matches!(
            r.next_key().unwrap(),
            Some(Cow::Borrowed("plain"))
        ));
        assert_eq!(r.read_f64().unwrap(), 1.5);
        assert!(matches!(r.next_key().unwrap(), Some(Cow::Owned(k)) if k == "escaped"));
        let err = r.read_f64().unwrap_err();
        assert_eq!(err.message, "expected a number, found '\"'");
        assert_eq!(r.read_string().unwrap(), "s");
        assert_eq!(r.next_key().unwrap().as_deref(), Some("n"));
        assert_eq!(r.peek(), Some(Token::Null));
        r.read_null().unwrap();
        assert_eq!(r.next_key().unwrap(), None);
        r.finish().unwrap();
    }

    #[test]
    fn strings_read_into_a_buffer_match_read_string() {
        let strings = [
            r#""plain""#,
            r#""line\nbreak\t\"quoted\" \\ \/""#,
            r#""\u00e9\ud83d\ude00 after""#,
            r#""""#,
            r#""bad \x escape""#,
            r#""unpaired \ud800""#,
            "\"raw\ncontrol\"",
            r#""unclosed"#,
            "5",
        ];
        let mut read = 0;
        for text in strings {
            let expected = PullReader::new(text).read_string();
            let mut out = String::from("kept:");
            let got = PullReader::new(text).read_str_into(&mut out);
            assert_eq!(got.is_ok(), expected.is_ok(), "{text}");
            if let (Err(a), Err(b)) = (&got, &expected) {
                assert_eq!(a.message, b.message, "{text}");
            }
            if let Ok(expected) = expected {
                assert_eq!(out, format!("kept:{expected}"), "{text}");
                read += 1;
            }
        }
        assert_eq!(read, 4);
    }

    #[test]
    fn commas_are_tracked_at_every_depth_past_the_first_64() {
        // `[0,{"k":[0,{"k":…}, 1]}, 1]`: items before and after each nested
        // container, so every level's flag is read after deeper ones closed.
        for depth in [63, 64, 65, 130] {
            let text = format!("{}0{}", "[0,{\"k\":".repeat(depth), "},1]".repeat(depth));
            assert_eq!(pull(&text).unwrap(), parse_str(&text).unwrap(), "{depth}");
            let missing_comma = text.replacen("},1]", "} 1]", depth / 2 + 1);
            assert!(pull(&missing_comma).is_err(), "{depth}");
            assert!(parse_str(&missing_comma).is_err(), "{depth}");
        }
    }

    #[test]
    fn depth_counts_from_the_top_of_the_document() {
        let text = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(parse_str(&text).is_err());
        let mut r = PullReader::new(&text);
        r.begin_object().unwrap();
        r.next_key().unwrap();
        assert!(r.read_value().unwrap_err().message.contains("nesting"));
    }
}
