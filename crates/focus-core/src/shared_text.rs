//! [`SharedText`]: the text of a content block, shared by every copy of a message.
//!
//! A conversation is copied more often than it looks: the session tree keeps every
//! message, the agent keeps its history, each model call gets a converted view, and
//! resuming a session builds the history from the tree. Nearly all of a message's
//! bytes are in a few texts (a tool's output, the model's answer and reasoning, an
//! image), so those are held behind a reference count: copying a message copies its
//! structure and shares its texts.
//!
//! A `SharedText` never changes. A text still being written (a block the model is
//! streaming) is a plain `String` in whoever writes it, and becomes a `SharedText`
//! when it is complete (`SharedText::from(String)` takes the buffer as it is).
//!
//! A text has its own allocation, or is a piece of a [`TextBlock`]: one buffer
//! holding many texts one after another. The session loader decodes tens of
//! thousands of texts at once and writes them into blocks (its arena lives in
//! focus-harness), so it makes one allocation per block instead of one or two per
//! text; a piece is as cheap to share as a text of its own.

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// An immutable string whose `clone` is a reference-count increment. Reads as a
/// `&str` (it derefs to one).
#[derive(Clone)]
pub struct SharedText(Repr);

/// Where a [`SharedText`]'s bytes are.
#[derive(Clone)]
enum Repr {
    /// An allocation of its own.
    Own(Arc<String>),
    /// `len` bytes from `start` of a block's text.
    Piece {
        block: Arc<dyn TextBlock>,
        start: u32,
        len: u32,
    },
}

/// A buffer many texts are pieces of (see [`SharedText::piece`]). Its writer may
/// hand out pieces before it has finished the buffer, and must finish it before
/// any piece is read.
pub trait TextBlock: Send + Sync {
    /// The whole buffer, or `None` while its writer is still filling it.
    fn text(&self) -> Option<&str>;
}

impl Default for SharedText {
    fn default() -> SharedText {
        SharedText(Repr::Own(Arc::default()))
    }
}

impl SharedText {
    /// An empty text.
    pub fn new() -> SharedText {
        SharedText::default()
    }

    /// The `len` bytes at `start` of `block`'s text. Reading the piece before the
    /// block is finished, or a range that is not in it, is a bug in the block's
    /// writer (never a matter of input) and panics, so tests catch it.
    pub fn piece(block: Arc<dyn TextBlock>, start: u32, len: u32) -> SharedText {
        SharedText(Repr::Piece { block, start, len })
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Own(text) => text,
            Repr::Piece { block, start, len } => {
                let text = block
                    .text()
                    .expect("a piece of a text block was read before its writer finished it");
                let (start, end) = (*start as usize, *start as usize + *len as usize);
                text.get(start..end)
                    .expect("a piece of a text block lies outside it")
            }
        }
    }

    /// The text as an owned `String`, copied only if it is shared.
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Own(text) => Arc::try_unwrap(text).unwrap_or_else(|shared| (*shared).clone()),
            Repr::Piece { .. } => self.as_str().to_owned(),
        }
    }
}

impl PartialEq for SharedText {
    fn eq(&self, other: &SharedText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SharedText {}

impl Hash for SharedText {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for SharedText {
    fn partial_cmp(&self, other: &SharedText) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SharedText {
    fn cmp(&self, other: &SharedText) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Deref for SharedText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SharedText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for SharedText {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for SharedText {
    fn from(s: String) -> SharedText {
        SharedText(Repr::Own(Arc::new(s)))
    }
}

impl From<&str> for SharedText {
    fn from(s: &str) -> SharedText {
        SharedText(Repr::Own(Arc::new(s.to_string())))
    }
}

impl From<&String> for SharedText {
    fn from(s: &String) -> SharedText {
        SharedText(Repr::Own(Arc::new(s.clone())))
    }
}

impl From<Cow<'_, str>> for SharedText {
    fn from(s: Cow<'_, str>) -> SharedText {
        SharedText(Repr::Own(Arc::new(s.into_owned())))
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
    use std::sync::OnceLock;

    /// A block finished by hand.
    struct Block(OnceLock<String>);

    impl TextBlock for Block {
        fn text(&self) -> Option<&str> {
            self.0.get().map(String::as_str)
        }
    }

    #[test]
    fn clones_share_their_bytes() {
        let a = SharedText::from("tool output");
        let b = a.clone();
        assert!(
            std::ptr::eq(a.as_str(), b.as_str()),
            "a clone shares the bytes"
        );
    }

    #[test]
    fn pieces_compare_and_hash_like_their_own_texts() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |t: &SharedText| {
            let mut h = DefaultHasher::new();
            t.hash(&mut h);
            h.finish()
        };
        let block = Arc::new(Block(OnceLock::new()));
        let piece = SharedText::piece(block.clone(), 0, 3);
        let neighbour = SharedText::piece(block.clone(), 3, 3);
        let _ = block.0.set("abcdef".into());
        let own = SharedText::from("abc");
        assert_eq!(piece, own);
        assert_eq!(hash(&piece), hash(&own));
        assert!(piece < neighbour && own < neighbour);
        assert_eq!(neighbour, "def");
        assert_eq!(piece.into_string(), "abc");
    }

    #[test]
    #[should_panic(expected = "before its writer finished it")]
    fn reading_a_piece_of_an_unfinished_block_fails_loudly() {
        let block = Arc::new(Block(OnceLock::new()));
        let _ = SharedText::piece(block, 0, 1).len();
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
