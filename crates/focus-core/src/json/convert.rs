//! Conversions between JSON values and Rust types: [`ToJson`] and [`FromJson`].
//!
//! Errors name the path to the offending value, outermost first:
//! `messages[3].content[0].type: expected string, found number`.
//! Implementations build that path by calling [`FromJsonError::at_key`] and
//! [`FromJsonError::at_index`] as an error travels outwards; the helpers on
//! [`Value`] ([`Value::field`], [`Value::opt_field`]) do it for you.

use super::value::{Object, Value};
use std::fmt;

/// Turns a Rust value into JSON.
pub trait ToJson {
    /// The JSON form of `self`.
    fn to_json(&self) -> Value;
}

/// Builds a Rust value from JSON, or says where and why it cannot.
pub trait FromJson: Sized {
    /// Reads `Self` from `value`.
    fn from_json(value: &Value) -> Result<Self, FromJsonError>;
}

/// A conversion failure: the path to the value and what was wrong with it.
#[derive(Clone, PartialEq, Eq)]
pub struct FromJsonError {
    /// Path segments, outermost first (`messages`, `[3]`, `content`…).
    path: Vec<String>,
    /// What was wrong, e.g. `expected string, found number`.
    pub message: String,
}

impl FromJsonError {
    /// An error at the current value.
    pub fn new(message: impl Into<String>) -> FromJsonError {
        FromJsonError {
            path: Vec::new(),
            message: message.into(),
        }
    }

    /// `expected <what>, found <type of value>`.
    pub fn expected(what: &str, found: &Value) -> FromJsonError {
        FromJsonError::new(format!("expected {what}, found {}", found.type_name()))
    }

    /// Prefixes the path with an object key.
    pub fn at_key(mut self, key: &str) -> FromJsonError {
        self.path.insert(0, key.to_string());
        self
    }

    /// Prefixes the path with an array index.
    pub fn at_index(mut self, idx: usize) -> FromJsonError {
        self.path.insert(0, format!("[{idx}]"));
        self
    }

    /// The path as text: `messages[3].content[0].type` (empty at the root).
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            if !out.is_empty() && !seg.starts_with('[') {
                out.push('.');
            }
            out.push_str(seg);
        }
        out
    }
}

impl fmt::Display for FromJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{path}: {}", self.message)
        }
    }
}

impl fmt::Debug for FromJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for FromJsonError {}

impl Value {
    /// Reads the required field `key` of this object as `T`; errors carry the key.
    ///
    /// # Errors
    ///
    /// The field is missing, or its value is not a `T`: the error carries the key.
    pub fn field<T: FromJson>(&self, key: &str) -> Result<T, FromJsonError> {
        match self {
            Value::Object(o) => match o.get(key) {
                Some(v) => T::from_json(v).map_err(|e| e.at_key(key)),
                None => Err(FromJsonError::new("missing field").at_key(key)),
            },
            other => Err(FromJsonError::expected("object", other)),
        }
    }

    /// Reads the optional field `key` as `T`: absent or `null` gives `None`.
    ///
    /// # Errors
    ///
    /// The field is present and not `null` but not a `T`: the error carries the key.
    pub fn opt_field<T: FromJson>(&self, key: &str) -> Result<Option<T>, FromJsonError> {
        match self {
            Value::Object(o) => match o.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => T::from_json(v).map(Some).map_err(|e| e.at_key(key)),
            },
            other => Err(FromJsonError::expected("object", other)),
        }
    }
}

impl ToJson for Value {
    fn to_json(&self) -> Value {
        self.clone()
    }
}
impl FromJson for Value {
    fn from_json(value: &Value) -> Result<Value, FromJsonError> {
        Ok(value.clone())
    }
}

impl ToJson for str {
    fn to_json(&self) -> Value {
        Value::String(self.to_string())
    }
}
impl ToJson for String {
    fn to_json(&self) -> Value {
        Value::String(self.clone())
    }
}
impl FromJson for String {
    fn from_json(value: &Value) -> Result<String, FromJsonError> {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| FromJsonError::expected("string", value))
    }
}
impl ToJson for crate::shared_text::SharedText {
    fn to_json(&self) -> Value {
        Value::String(self.to_string())
    }
}
impl FromJson for crate::shared_text::SharedText {
    fn from_json(value: &Value) -> Result<crate::shared_text::SharedText, FromJsonError> {
        String::from_json(value).map(Into::into)
    }
}

impl ToJson for bool {
    fn to_json(&self) -> Value {
        Value::Bool(*self)
    }
}
impl FromJson for bool {
    fn from_json(value: &Value) -> Result<bool, FromJsonError> {
        value
            .as_bool()
            .ok_or_else(|| FromJsonError::expected("boolean", value))
    }
}

impl ToJson for f64 {
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}
impl FromJson for f64 {
    fn from_json(value: &Value) -> Result<f64, FromJsonError> {
        value
            .as_f64()
            .ok_or_else(|| FromJsonError::expected("number", value))
    }
}

macro_rules! integer_conversions {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self) -> Value { Value::from(*self) }
        }
        impl FromJson for $t {
            fn from_json(value: &Value) -> Result<$t, FromJsonError> {
                let wide = value
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| value.as_u64().map(i128::from))
                    .ok_or_else(|| match value {
                        Value::Number(n) => FromJsonError::new(format!("expected integer, found {n}")),
                        other => FromJsonError::expected("integer", other),
                    })?;
                <$t>::try_from(wide).map_err(|_| {
                    FromJsonError::new(format!("{wide} is out of range for {}", stringify!($t)))
                })
            }
        }
    )*};
}
integer_conversions!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}
impl<T: ToJson> ToJson for [T] {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}
impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(value: &Value) -> Result<Vec<T>, FromJsonError> {
        let items = value
            .as_array()
            .ok_or_else(|| FromJsonError::expected("array", value))?;
        items
            .iter()
            .enumerate()
            .map(|(i, v)| T::from_json(v).map_err(|e| e.at_index(i)))
            .collect()
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}
impl<T: FromJson> FromJson for Option<T> {
    fn from_json(value: &Value) -> Result<Option<T>, FromJsonError> {
        match value {
            Value::Null => Ok(None),
            v => T::from_json(v).map(Some),
        }
    }
}

impl ToJson for Object {
    fn to_json(&self) -> Value {
        Value::Object(self.clone())
    }
}
impl FromJson for Object {
    fn from_json(value: &Value) -> Result<Object, FromJsonError> {
        value
            .as_object()
            .cloned()
            .ok_or_else(|| FromJsonError::expected("object", value))
    }
}
