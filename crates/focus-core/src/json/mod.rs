//! A hand-written JSON codec: a value tree, a strict parser, a lenient parser for
//! partial input, a serializer, and the `ToJson`/`FromJson` conversion traits.
//!
//! Reading order: [`value`] (the data), [`mod@parse`] (text to data), [`serialize`]
//! (data to text), [`mod@partial`] (streaming tool-call arguments), [`convert`] (data to
//! Rust types and back), [`pull`] (text straight to Rust types, for big documents).
//!
//! Guarantees, each backed by tests in `crates/focus-core/tests/json_*.rs`:
//! - [`parse()`] is strict RFC 8259 over bytes (it passes JSONTestSuite) and never
//!   panics; errors carry byte offset, line, column and what was expected and found.
//!   Nesting is capped at [`MAX_DEPTH`] with its own error; no walk over a [`Value`]
//!   (parse, drop, clone, compare, print) uses the call stack for depth.
//! - Numbers are never silently changed: exact 64-bit integers, otherwise an `f64`
//!   plus the original text (see [`Number`]).
//! - The serializer writes UTF-8, escapes only `"`, `\` and control characters, and
//!   writes non-finite floats as `null`.
//! - [`parse_partial()`] turns any prefix of a document into the value it promises so
//!   far, in one linear pass.

pub mod convert;
pub mod parse;
pub mod partial;
pub mod pull;
pub mod serialize;
pub mod value;

pub use convert::{FromJson, FromJsonError, ToJson};
pub use parse::{parse, parse_str, ParseError, MAX_DEPTH};
pub use partial::parse_partial;
pub use pull::{PullReader, Token};
pub use value::{Number, Object, Value};

/// Builds a [`Value::Object`] from `key => value` pairs; values go through `Into<Value>`.
///
/// ```
/// use focus_core::{json_object, json::Value};
/// let v = json_object! { "name" => "read", "limit" => 10 };
/// assert_eq!(v["limit"].as_u64(), Some(10));
/// ```
#[macro_export]
macro_rules! json_object {
    ($($key:expr => $value:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut object = $crate::json::Object::new();
        $( object.insert($key, $crate::json::Value::from($value)); )*
        $crate::json::Value::Object(object)
    }};
}

/// Builds a [`Value::Array`] from values that go through `Into<Value>`.
///
/// ```
/// use focus_core::json_array;
/// let v = json_array![1, "two", true];
/// assert_eq!(v[1].as_str(), Some("two"));
/// ```
#[macro_export]
macro_rules! json_array {
    ($($value:expr),* $(,)?) => {
        $crate::json::Value::Array(vec![$( $crate::json::Value::from($value) ),*])
    };
}

#[cfg(test)]
mod smoke_tests {
    use super::*;

    #[test]
    fn parse_and_print_round_trip() {
        let text = r#"{"a":[1,-2,3.5,1e3,-0,true,null,"x\n\u00e9\ud83d\ude00"],"b":{}}"#;
        let v = parse_str(text).unwrap();
        assert_eq!(
            v.to_json_string(),
            "{\"a\":[1,-2,3.5,1e3,-0,true,null,\"x\\né😀\"],\"b\":{}}"
        );
        assert_eq!(parse_str(&v.to_pretty_string()).unwrap(), v);
        let err = parse_str("{\"a\" 1}").unwrap_err();
        assert_eq!((err.line, err.column, err.offset), (1, 6, 5));
    }

    #[test]
    fn partial_json_completes_prefixes() {
        assert_eq!(
            parse_partial(r#"{"path": "src/ma"#).to_json_string(),
            r#"{"path":"src/ma"}"#
        );
        assert_eq!(parse_partial("").to_json_string(), "{}");
        assert_eq!(
            parse_partial(r#"{"a": 1, "b"#).to_json_string(),
            r#"{"a":1}"#
        );
        assert_eq!(
            parse_partial(r#"{"a": [1, 2"#).to_json_string(),
            r#"{"a":[1,2]}"#
        );
        assert_eq!(parse_partial(r#"{"a": tr"#).to_json_string(), r#"{}"#);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(parse_str(&deep).unwrap_err().message.contains("nesting"));
        let ok = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let v = parse_str(&ok).unwrap();
        assert_eq!(v.to_json_string(), ok);
    }
}
