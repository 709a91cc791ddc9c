//! [`SharedText`]: the text of a content block, shared by every copy of a message.
//!
//! A conversation is copied more often than it looks: the session tree keeps every
//! message, the agent keeps its history, each model call gets a converted view, and
//! resuming a session builds the history from the tree. Nearly all of a message's
//! bytes are in a few texts (a tool's output, the model's answer and reasoning, an
//! image), so those are held behind a reference count: copying a message copies its
//! structure and shares its texts. Writing to a shared text (only the stream
//! decoders append, and only to the message they are building) copies it first, so
//! no copy ever sees another change.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An immutable-when-shared string: `clone` is a reference-count increment, writing
/// copies first if another clone exists. Reads as a `&str` (it derefs to one).
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SharedText(Arc<String>);

impl SharedText {
    /// An empty text.
    pub fn new() -> SharedText {
        SharedText::default()
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text to change in place: unshared first if another clone holds it.
    pub fn make_mut(&mut self) -> &mut String {
        Arc::make_mut(&mut self.0)
    }

    /// Appends `s` (see [`SharedText::make_mut`]).
    pub fn push_str(&mut self, s: &str) {
        self.make_mut().push_str(s);
    }

    /// The text as an owned `String`, copied only if it is shared.
    pub fn into_string(self) -> String {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl Deref for SharedText {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SharedText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<String> for SharedText {
    fn from(s: String) -> SharedText {
        SharedText(Arc::new(s))
    }
}

impl From<&str> for SharedText {
    fn from(s: &str) -> SharedText {
        SharedText(Arc::new(s.to_string()))
    }
}

impl From<&String> for SharedText {
    fn from(s: &String) -> SharedText {
        SharedText(Arc::new(s.clone()))
    }
}

impl From<Cow<'_, str>> for SharedText {
    fn from(s: Cow<'_, str>) -> SharedText {
        SharedText(Arc::new(s.into_owned()))
    }
}

impl From<SharedText> for String {
    fn from(text: SharedText) -> String {
        text.into_string()
    }
}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl PartialEq<str> for SharedText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SharedText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<SharedText> for str {
    fn eq(&self, other: &SharedText) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SharedText> for &str {
    fn eq(&self, other: &SharedText) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<SharedText> for String {
    fn eq(&self, other: &SharedText) -> bool {
        self == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_and_writes_unshare() {
        let mut a = SharedText::from("tool output");
        let b = a.clone();
        assert!(
            std::ptr::eq(a.as_str(), b.as_str()),
            "a clone shares the bytes"
        );
        a.push_str(", more");
        assert_eq!(a, "tool output, more");
        assert_eq!(b, "tool output", "the other clone never sees the write");
        let before = a.as_ptr();
        a.push_str("!");
        assert_eq!(a.as_ptr(), before, "an unshared text grows in place");
    }

    #[test]
    fn into_string_copies_only_when_shared() {
        let text = SharedText::from(String::with_capacity(64) + "abc");
        let pointer = text.as_ptr();
        assert_eq!(text.clone().into_string(), "abc");
        let owned = text.into_string();
        assert_eq!(
            owned.as_ptr(),
            pointer,
            "the last holder gets the buffer itself"
        );
    }
}
