//! The JSON value tree: [`Value`], [`Number`] and the insertion-ordered [`Object`].

use std::fmt;

/// A parsed or constructed JSON value.
///
/// Objects keep their keys in insertion order; numbers keep enough to round-trip
/// (see [`Number`]). Dropping a deeply nested value does not recurse (see the
/// `Drop` impl), so a 100,000-deep array is safe to drop.
///
/// Every operation that walks the tree — `Drop`, `Clone`, `PartialEq`, `Debug`,
/// `Display` and the serializer — uses an explicit work list on the heap instead of
/// recursion, so even hand-built values far deeper than the parser's
/// [`MAX_DEPTH`](super::MAX_DEPTH) cannot overflow the call stack.
#[derive(Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, integer or float, with its original text when it had one.
    Number(Number),
    /// A string (always valid UTF-8).
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object whose keys keep insertion order.
    Object(Object),
}

/// A JSON number.
///
/// # Policy: a number is never silently changed
///
/// - **Integers** (no fraction, no exponent) that fit in `u64` or `i64` are kept
///   exactly: `18446744073709551615` and `-9223372036854775808` read back bit for bit
///   through [`Number::as_u64`] / [`Number::as_i64`].
/// - **Everything else** — fractions, exponents, integers wider than 64 bits, and `-0` —
///   is held as the nearest `f64` *and* its original text. The serializer writes that
///   text back unchanged, so `1.0` stays `1.0` (not `1`), `1e400` stays `1e400` (not
///   `null` or `inf`), `123456789012345678901234567890` keeps all thirty digits, and
///   `-0` keeps its sign. [`Number::original_text`] exposes the text; [`Number::as_f64`]
///   gives the (possibly rounded or infinite) float.
/// - **Constructed floats** ([`Number::from_f64`]) print in the shortest form that reads
///   back as the same `f64`, with `.0` on integral values so they stay floats and
///   exponent form for very large or small magnitudes (`2.0`, `0.1`, `1e300`). NaN and ±infinity have no JSON spelling: they serialize as `null`.
/// - **Equality** compares the held value and kind: `1` (integer) and `1.0` (float)
///   differ; `1.0` and `1.00` are equal (same float, different text); NaN equals NaN,
///   so that equality stays reflexive for values built by hand.
#[derive(Clone)]
pub struct Number {
    pub(crate) kind: NumberKind,
    /// Original text, kept only when `kind` alone would print differently.
    pub(crate) text: Option<Box<str>>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum NumberKind {
    PosInt(u64),
    NegInt(i64),
    Float(f64),
}

impl Number {
    /// An exact unsigned integer.
    pub fn from_u64(n: u64) -> Number {
        Number {
            kind: NumberKind::PosInt(n),
            text: None,
        }
    }

    /// An exact signed integer.
    pub fn from_i64(n: i64) -> Number {
        if n >= 0 {
            Number::from_u64(n as u64)
        } else {
            Number {
                kind: NumberKind::NegInt(n),
                text: None,
            }
        }
    }

    /// A float. Non-finite floats are allowed here; the serializer writes them as `null`
    /// (JSON has no spelling for them).
    pub fn from_f64(f: f64) -> Number {
        Number {
            kind: NumberKind::Float(f),
            text: None,
        }
    }

    /// The number as `u64`, if it is a non-negative integer that fits.
    pub fn as_u64(&self) -> Option<u64> {
        match self.kind {
            NumberKind::PosInt(n) => Some(n),
            NumberKind::NegInt(_) => None,
            NumberKind::Float(f) => float_as_integer(f).and_then(|i| u64::try_from(i).ok()),
        }
    }

    /// The number as `i64`, if it is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self.kind {
            NumberKind::PosInt(n) => i64::try_from(n).ok(),
            NumberKind::NegInt(n) => Some(n),
            NumberKind::Float(f) => float_as_integer(f).and_then(|i| i64::try_from(i).ok()),
        }
    }

    /// The number as `f64` (integers beyond 2^53 lose precision here, not in the value).
    pub fn as_f64(&self) -> f64 {
        match self.kind {
            NumberKind::PosInt(n) => n as f64,
            NumberKind::NegInt(n) => n as f64,
            NumberKind::Float(f) => f,
        }
    }

    /// Whether the number is held as an exact integer.
    pub fn is_integer(&self) -> bool {
        !matches!(self.kind, NumberKind::Float(_))
    }

    /// The original text of a parsed number that is not held as an exact 64-bit
    /// integer (a fraction, an exponent, a wider integer, `-0`); `None` for exact
    /// integers, whose value prints back identically, and for constructed numbers.
    pub fn original_text(&self) -> Option<&str> {
        self.text.as_deref()
    }
}

/// An integral float that is exactly representable as i128, for the integer getters.
fn float_as_integer(f: f64) -> Option<i128> {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1.8e19 {
        Some(f as i128)
    } else {
        None
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (self.kind, other.kind) {
            (NumberKind::PosInt(a), NumberKind::PosInt(b)) => a == b,
            (NumberKind::NegInt(a), NumberKind::NegInt(b)) => a == b,
            (NumberKind::Float(a), NumberKind::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            _ => false,
        }
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        super::serialize::write_number(self, &mut s);
        f.write_str(&s)
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A JSON object: a list of `(key, value)` pairs in insertion order.
///
/// Lookups are linear, which is the fastest choice for the small objects agents
/// exchange. Parsing keeps duplicate keys as they appear; [`Object::get`] returns
/// the last one, as JavaScript's `JSON.parse` does.
#[derive(Clone, PartialEq, Default)]
pub struct Object {
    entries: Vec<(String, Value)>,
}

impl Object {
    /// An empty object.
    pub fn new() -> Object {
        Object {
            entries: Vec::new(),
        }
    }

    /// An empty object with room for `n` entries.
    pub fn with_capacity(n: usize) -> Object {
        Object {
            entries: Vec::with_capacity(n),
        }
    }

    /// The value under `key` (the last one, if the key is duplicated).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// A mutable reference to the value under `key`.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries
            .iter_mut()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Sets `key` to `value`: replaces an existing entry in place, else appends.
    /// Returns the previous value.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) -> Option<Value> {
        let key = key.into();
        let value = value.into();
        match self.get_mut(&key) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Appends an entry without looking for an existing key (the parser's fast path).
    pub fn push(&mut self, key: String, value: Value) {
        self.entries.push((key, value));
    }

    /// Removes every entry under `key`, returning the last value removed.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let mut removed = None;
        let mut i = 0;
        while i < self.entries.len() {
            if self.entries[i].0 == key {
                removed = Some(self.entries.remove(i).1);
            } else {
                i += 1;
            }
        }
        removed
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The number of entries (duplicates counted).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the object has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The entries in insertion order, values mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (k.as_str(), v))
    }

    /// The keys in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// An object holding `entries` as they are (duplicate keys included).
    pub(crate) fn from_entries(entries: Vec<(String, Value)>) -> Object {
        Object { entries }
    }

    /// The entries in insertion order, as a slice (for walkers that keep an iterator).
    pub(crate) fn entries(&self) -> &[(String, Value)] {
        &self.entries
    }

    /// Consumes the object, giving its entries.
    pub fn into_entries(self) -> Vec<(String, Value)> {
        self.entries
    }
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

impl<K: Into<String>, V: Into<Value>> FromIterator<(K, V)> for Object {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Object {
        let mut object = Object::new();
        for (k, v) in iter {
            object.insert(k, v);
        }
        object
    }
}

static NULL: Value = Value::Null;

impl Value {
    /// The value under `key` if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(o) => o.get(key),
            _ => None,
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is a number.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as `u64`, if this is a non-negative integer that fits.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    /// The number as `i64`, if this is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    /// The number as `f64`, if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().map(Number::as_f64)
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The elements, mutable, if this is an array.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The object, if this is an object.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The object, mutable, if this is an object.
    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The JSON type name, for error messages: `null`, `boolean`, `number`, `string`,
    /// `array` or `object`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// Compact JSON text (no whitespace). Non-finite floats become `null`.
    pub fn to_json_string(&self) -> String {
        super::serialize::to_string(self)
    }

    /// Pretty JSON text, two-space indented. Non-finite floats become `null`.
    pub fn to_pretty_string(&self) -> String {
        super::serialize::to_pretty_string(self)
    }
}

/// Indexing never panics: a missing key, an index out of range or indexing into a
/// non-container gives `Value::Null`.
impl std::ops::Index<&str> for Value {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

/// Indexing never panics: out of range or not an array gives `Value::Null`.
impl std::ops::Index<usize> for Value {
    type Output = Value;
    fn index(&self, idx: usize) -> &Value {
        match self {
            Value::Array(a) => a.get(idx).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json_string())
    }
}

/// `Display` writes compact JSON.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json_string())
    }
}

/// Cloning walks a work list (see `clone_tree`) instead of recursing.
impl Clone for Value {
    fn clone(&self) -> Value {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::Number(n) => Value::Number(n.clone()),
            Value::String(s) => Value::String(s.clone()),
            Value::Array(_) | Value::Object(_) => clone_tree(self),
        }
    }
}

/// A container being copied: the source children not yet visited and the copies so far.
enum CloneFrame<'a> {
    Array(std::slice::Iter<'a, Value>, Vec<Value>),
    Object(std::slice::Iter<'a, (String, Value)>, Vec<(String, Value)>),
}

impl<'a> CloneFrame<'a> {
    /// `root` must be a container; scalars never get a frame.
    fn open(root: &'a Value) -> CloneFrame<'a> {
        match root {
            Value::Object(o) => {
                CloneFrame::Object(o.entries.iter(), Vec::with_capacity(o.entries.len()))
            }
            Value::Array(a) => CloneFrame::Array(a.iter(), Vec::with_capacity(a.len())),
            _ => CloneFrame::Array([].iter(), Vec::new()),
        }
    }

    fn close(self) -> Value {
        match self {
            CloneFrame::Array(_, items) => Value::Array(items),
            CloneFrame::Object(_, entries) => Value::Object(Object { entries }),
        }
    }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

/// Deep copy of a container with an explicit stack: scalars are copied in place;
/// a container child pushes a frame, and a finished frame is attached to its parent
/// (for objects, into the slot its key already occupies).
fn clone_tree(root: &Value) -> Value {
    let mut stack = vec![CloneFrame::open(root)];
    loop {
        let Some(top) = stack.last_mut() else {
            return Value::Null; // unreachable: the loop returns when the root frame closes
        };
        let child = match top {
            CloneFrame::Array(src, out) => match src.next() {
                Some(v) if is_scalar(v) => {
                    out.push(v.clone());
                    continue;
                }
                other => other,
            },
            CloneFrame::Object(src, out) => match src.next() {
                Some((k, v)) => {
                    if is_scalar(v) {
                        out.push((k.clone(), v.clone()));
                        continue;
                    }
                    out.push((k.clone(), Value::Null));
                    Some(v)
                }
                None => None,
            },
        };
        match child {
            Some(container) => stack.push(CloneFrame::open(container)),
            None => {
                let Some(done) = stack.pop().map(CloneFrame::close) else {
                    return Value::Null;
                };
                match stack.last_mut() {
                    None => return done,
                    Some(CloneFrame::Array(_, out)) => out.push(done),
                    Some(CloneFrame::Object(_, out)) => {
                        if let Some(slot) = out.last_mut() {
                            slot.1 = done;
                        }
                    }
                }
            }
        }
    }
}

/// Structural equality (object entries compared in order), walked with a work list.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        let mut work: Vec<(&Value, &Value)> = vec![(self, other)];
        while let Some(pair) = work.pop() {
            match pair {
                (Value::Null, Value::Null) => {}
                (Value::Bool(a), Value::Bool(b)) if a == b => {}
                (Value::Number(a), Value::Number(b)) if a == b => {}
                (Value::String(a), Value::String(b)) if a == b => {}
                (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
                    work.extend(a.iter().zip(b.iter()));
                }
                (Value::Object(a), Value::Object(b)) if a.len() == b.len() => {
                    for ((ka, va), (kb, vb)) in a.entries.iter().zip(b.entries.iter()) {
                        if ka != kb {
                            return false;
                        }
                        work.push((va, vb));
                    }
                }
                _ => return false,
            }
        }
        true
    }
}

/// Dropping walks a work list instead of recursing, so arbitrarily deep values
/// cannot overflow the stack.
impl Drop for Value {
    fn drop(&mut self) {
        let mut stack: Vec<Value> = match self {
            Value::Array(a) if a.iter().any(is_container) => std::mem::take(a),
            Value::Object(o) if o.entries.iter().any(|(_, v)| is_container(v)) => {
                std::mem::take(&mut o.entries)
                    .into_iter()
                    .map(|(_, v)| v)
                    .collect()
            }
            _ => return,
        };
        while let Some(mut value) = stack.pop() {
            match &mut value {
                Value::Array(a) => stack.append(a),
                Value::Object(o) => {
                    stack.extend(std::mem::take(&mut o.entries).into_iter().map(|(_, v)| v))
                }
                _ => {}
            }
        }
    }
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Array(a) if !a.is_empty()) || matches!(v, Value::Object(o) if !o.is_empty())
}

macro_rules! from_unsigned {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value { Value::Number(Number::from_u64(n as u64)) }
        }
    )*};
}
macro_rules! from_signed {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value { Value::Number(Number::from_i64(n as i64)) }
        }
    )*};
}
from_unsigned!(u8, u16, u32, u64, usize);
from_signed!(i8, i16, i32, i64, isize);

impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Number(Number::from_f64(f))
    }
}
impl From<f32> for Value {
    fn from(f: f32) -> Value {
        Value::Number(Number::from_f64(f as f64))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}
impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::String(s.clone())
    }
}
impl From<Number> for Value {
    fn from(n: Number) -> Value {
        Value::Number(n)
    }
}
impl From<Object> for Value {
    fn from(o: Object) -> Value {
        Value::Object(o)
    }
}
impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Value {
        Value::Array(v.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Value {
        o.map_or(Value::Null, Into::into)
    }
}
