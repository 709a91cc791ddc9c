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
//!
//! A text has its own allocation, or is a piece of a block that a [`TextArena`]
//! filled with many texts one after another. Loading a session decodes tens of
//! thousands of texts; giving each its own allocation (a buffer, then a reference
//! count beside it) was a third of the loader's calls into the allocator. An arena
//! makes one allocation per block instead, and the texts are as cheap to share.

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

/// An immutable-when-shared string: `clone` is a reference-count increment, writing
/// copies first if another clone exists. Reads as a `&str` (it derefs to one).
#[derive(Clone)]
pub struct SharedText(Repr);

/// Where a [`SharedText`]'s bytes are.
#[derive(Clone)]
enum Repr {
    /// An allocation of its own.
    Own(Arc<String>),
    /// `len` bytes from `start` of an arena's block.
    Piece {
        block: Arc<Block>,
        start: u32,
        len: u32,
    },
}

/// The texts a [`TextArena`] wrote, one after another. Set once, when the arena
/// seals the block; no piece of it is read before (the arena is still writing it).
/// When the last text in it is dropped, its buffer goes to [`SPARE_BUFFERS`].
struct Block(OnceLock<String>);

impl Drop for Block {
    fn drop(&mut self) {
        if let Some(buffer) = self.0.take() {
            if let Ok(mut spare) = SPARE_BUFFERS.lock() {
                spare.give_back(buffer);
            }
        }
    }
}

/// Buffers of blocks no text points into any more, for the next arena to write
/// into. Loading a session again in the same process (switching back to it, the
/// RPC mode's `switch_session`) then fills memory the process already has: fresh
/// memory costs a page fault per 4 KiB page, some 40% of the time of a first load.
static SPARE_BUFFERS: Mutex<SpareBuffers> = Mutex::new(SpareBuffers::new(SPARE_LIMIT_BYTES));

/// The most [`SPARE_BUFFERS`] keeps; past it, buffers go back to the allocator.
const SPARE_LIMIT_BYTES: usize = 64 << 20;

/// Emptied buffers up to a limit in bytes of capacity (see [`SPARE_BUFFERS`]).
struct SpareBuffers {
    buffers: Vec<String>,
    bytes: usize,
    limit: usize,
}

impl SpareBuffers {
    const fn new(limit: usize) -> SpareBuffers {
        SpareBuffers {
            buffers: Vec::new(),
            bytes: 0,
            limit,
        }
    }

    /// Keeps `buffer` (emptied) if it fits under the limit; drops it otherwise.
    fn give_back(&mut self, mut buffer: String) {
        if self.bytes + buffer.capacity() <= self.limit && buffer.capacity() > 0 {
            buffer.clear();
            self.bytes += buffer.capacity();
            self.buffers.push(buffer);
        }
    }

    /// A kept buffer, or a new one of [`BLOCK_BYTES`].
    fn take(&mut self) -> String {
        match self.buffers.pop() {
            Some(buffer) => {
                self.bytes -= buffer.capacity();
                buffer
            }
            None => String::with_capacity(BLOCK_BYTES),
        }
    }
}

/// A buffer for a new block: a spare one if there is one.
fn new_block_buffer() -> String {
    match SPARE_BUFFERS.lock() {
        Ok(mut spare) => spare.take(),
        Err(_) => String::with_capacity(BLOCK_BYTES),
    }
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

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Own(text) => text,
            Repr::Piece { block, start, len } => {
                // Reading a piece before its arena sealed the block is a bug in the
                // code that holds the arena (see `TextArena`), never a matter of
                // input; failing loudly here is what lets tests catch it.
                let block = block
                    .0
                    .get()
                    .expect("a text from a TextArena was read before the arena sealed it");
                let start = *start as usize;
                &block[start..start + *len as usize]
            }
        }
    }

    /// The text to change in place: unshared first if another clone holds it (an
    /// arena's piece becomes a text of its own).
    pub fn make_mut(&mut self) -> &mut String {
        if let Repr::Piece { .. } = self.0 {
            self.0 = Repr::Own(Arc::new(self.as_str().to_owned()));
        }
        match &mut self.0 {
            Repr::Own(text) => Arc::make_mut(text),
            Repr::Piece { .. } => unreachable!("made its own just above"),
        }
    }

    /// Appends `s` (see [`SharedText::make_mut`]).
    pub fn push_str(&mut self, s: &str) {
        self.make_mut().push_str(s);
    }

    /// The text as an owned `String`, copied only if it is shared.
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Own(text) => Arc::try_unwrap(text).unwrap_or_else(|shared| (*shared).clone()),
            Repr::Piece { .. } => self.as_str().to_owned(),
        }
    }
}

/// Writes many texts into shared blocks: one allocation per block instead of one
/// (or two) per text. Used by the session loader, which decodes tens of thousands
/// of texts at once and keeps them all.
///
/// A text added here can be read once its block is sealed: when the block is full,
/// by [`TextArena::seal`], or when the arena is dropped; reading it before panics
/// (a bug in the code holding the arena, whatever the input). Seal before the
/// texts are needed (the loader seals at the end of its part of the file, and
/// only then hashes the entries' ids).
/// A piece of a block keeps the whole block alive, so an arena suits texts that
/// live and die together.
///
/// ```
/// use focus_core::shared_text::TextArena;
/// let mut arena = TextArena::new();
/// let a = arena.add("tool output");
/// let b = arena.add("an answer");
/// drop(arena); // seals the block
/// assert_eq!((a.as_str(), b.as_str()), ("tool output", "an answer"));
/// ```
pub struct TextArena {
    /// The block the pending texts will be read from.
    block: Arc<Block>,
    /// The texts added since the last seal, one after another.
    pending: String,
}

/// The size a block is started with; a block is sealed when less than
/// [`BLOCK_SLACK_BYTES`] of it is left (a text longer than what is left grows it).
const BLOCK_BYTES: usize = 256 * 1024;
/// See [`BLOCK_BYTES`].
const BLOCK_SLACK_BYTES: usize = 16 * 1024;

impl TextArena {
    /// An arena with no block yet (the first text allocates one).
    pub fn new() -> TextArena {
        TextArena {
            block: Arc::new(Block(OnceLock::new())),
            pending: String::new(),
        }
    }

    /// Adds a copy of `text`.
    pub fn add(&mut self, text: &str) -> SharedText {
        self.add_with(|out| {
            out.push_str(text);
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap_or_else(|never| match never {})
    }

    /// Adds the text `write` appends to the string it is given (it must only
    /// append). If `write` fails, what it appended is taken back and its error
    /// returned.
    pub fn add_with<E>(
        &mut self,
        write: impl FnOnce(&mut String) -> Result<(), E>,
    ) -> Result<SharedText, E> {
        if self.pending.capacity() - self.pending.len() < BLOCK_SLACK_BYTES {
            self.seal();
            if self.pending.capacity() == 0 {
                self.pending = new_block_buffer();
            }
        }
        let start = self.pending.len();
        if let Err(e) = write(&mut self.pending) {
            self.pending.truncate(start);
            return Err(e);
        }
        let end = self.pending.len();
        match (u32::try_from(start), u32::try_from(end - start)) {
            (Ok(start), Ok(len)) if u32::try_from(end).is_ok() => Ok(SharedText(Repr::Piece {
                block: Arc::clone(&self.block),
                start,
                len,
            })),
            // Past what a piece can address (4 GiB): a text of its own.
            _ => {
                let own = self.pending[start..].to_owned();
                self.pending.truncate(start);
                Ok(SharedText::from(own))
            }
        }
    }

    /// Makes every text added so far readable; the next text starts a new block.
    pub fn seal(&mut self) {
        if Arc::strong_count(&self.block) == 1 {
            // No text points into this block: nothing to publish, the buffer is
            // reused as it is.
            self.pending.clear();
            return;
        }
        // The unused end of the buffer stays: memory never written is not resident,
        // and the buffer is reused whole once the block is dropped.
        let text = std::mem::take(&mut self.pending);
        let block = std::mem::replace(&mut self.block, Arc::new(Block(OnceLock::new())));
        // This arena is the only writer of its blocks, and sets each once.
        let _ = block.0.set(text);
    }
}

impl Default for TextArena {
    fn default() -> TextArena {
        TextArena::new()
    }
}

impl Drop for TextArena {
    fn drop(&mut self) {
        self.seal();
    }
}

impl fmt::Debug for TextArena {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TextArena")
            .field("pending_bytes", &self.pending.len())
            .finish()
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
    fn arena_texts_share_one_block_and_read_after_the_seal() {
        let mut arena = TextArena::new();
        let a = arena.add("first");
        let b = arena
            .add_with(|out| {
                out.push_str("sec");
                out.push_str("ond");
                Ok::<(), ()>(())
            })
            .unwrap();
        let empty = arena.add("");
        let failed = arena.add_with(|out| {
            out.push_str("taken back");
            Err("bad input")
        });
        assert_eq!(failed.unwrap_err(), "bad input");
        let c = arena.add("third");
        drop(arena);
        assert_eq!(
            (a.as_str(), b.as_str(), c.as_str()),
            ("first", "second", "third")
        );
        assert_eq!(empty, "");
        assert_eq!(
            b.as_ptr() as usize - a.as_ptr() as usize,
            "first".len(),
            "texts lie one after another in one block"
        );
        assert_eq!(
            c.as_ptr() as usize - b.as_ptr() as usize,
            "second".len(),
            "a failed text left nothing behind"
        );
    }

    #[test]
    fn a_full_block_is_sealed_and_a_new_one_started() {
        let mut arena = TextArena::new();
        let chunk = "x".repeat(BLOCK_SLACK_BYTES);
        let texts: Vec<SharedText> = (0..40).map(|_| arena.add(&chunk)).collect();
        // The first block filled up long before the 40th text: it is readable
        // while the arena still writes the next one.
        assert_eq!(texts[0], chunk);
        let long = "y".repeat(3 * BLOCK_BYTES);
        let big = arena.add(&long);
        drop(arena);
        assert!(texts.iter().all(|t| *t == chunk));
        assert_eq!(big, long);
    }

    #[test]
    fn spare_buffers_are_kept_emptied_up_to_their_limit() {
        let mut spare = SpareBuffers::new(100);
        let mut buffer = String::with_capacity(60);
        buffer.push_str("old texts");
        let pointer = buffer.as_ptr();
        spare.give_back(buffer);
        spare.give_back(String::with_capacity(60)); // over the limit: dropped
        assert_eq!(spare.bytes, 60);
        let reused = spare.take();
        assert_eq!((reused.as_ptr(), reused.len()), (pointer, 0));
        assert_eq!(spare.bytes, 0);
        assert_eq!(spare.take().capacity(), BLOCK_BYTES, "none left: a new one");
    }

    #[test]
    #[should_panic(expected = "before the arena sealed it")]
    fn reading_a_text_before_its_arena_is_sealed_fails_loudly() {
        let mut arena = TextArena::new();
        let text = arena.add("not yet");
        let _ = text.len();
    }

    #[test]
    fn pieces_compare_hash_and_change_like_their_own_texts() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |t: &SharedText| {
            let mut h = DefaultHasher::new();
            t.hash(&mut h);
            h.finish()
        };
        let mut arena = TextArena::new();
        let mut piece = arena.add("abc");
        let neighbour = arena.add("def");
        drop(arena);
        let own = SharedText::from("abc");
        assert_eq!(piece, own);
        assert_eq!(hash(&piece), hash(&own));
        assert!(piece < neighbour && own < neighbour);
        let copy = piece.clone();
        piece.push_str("!");
        assert_eq!((piece.as_str(), copy.as_str()), ("abc!", "abc"));
        assert_eq!(neighbour, "def", "writing a piece leaves the block alone");
        assert_eq!(copy.into_string(), "abc");
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
