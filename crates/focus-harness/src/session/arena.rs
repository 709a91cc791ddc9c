//! [`TextArena`]: where the session loader writes the texts it decodes, many to a
//! block, so that loading tens of thousands of entries makes one allocation per
//! 256 KiB block instead of one (or two) per text.
//!
//! Each text is a [`SharedText::piece`] of its block, as cheap to share as a text
//! of its own. A block is written first and read after: the arena hands out pieces
//! while it writes and *seals* the block (sets it, once) when it is full, when
//! [`TextArena::seal`] is called, or when the arena is dropped; reading a piece
//! before that panics (a bug in the code holding the arena, whatever the input).
//! The loader seals at the end of its part of the file, and only then hashes the
//! entries' ids. A piece keeps its whole block alive, so an arena suits texts that
//! live and die together, as a loaded session's do.
//!
//! When the last piece of a block is dropped, its buffer goes to a spare list the
//! next arena writes into: loading a session again in the same process (switching
//! back to it, the RPC mode's `switch_session`) then fills memory the process
//! already has, where fresh memory costs a page fault per 4 KiB page (some 40% of
//! the time of a first load). That list is the process's, and so lives here, with
//! the loader, not in focus-core.

use focus_core::json::{ParseError, PullReader};
use focus_core::shared_text::{SharedText, TextBlock};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// Writes many texts into shared blocks.
///
/// ```
/// use focus_harness::session::arena::TextArena;
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

/// The texts an arena wrote, one after another; set once, when the arena seals it.
struct Block(OnceLock<String>);

impl TextBlock for Block {
    fn text(&self) -> Option<&str> {
        self.0.get().map(String::as_str)
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if let Some(buffer) = self.0.take() {
            if let Ok(mut spare) = SPARE_BUFFERS.lock() {
                spare.give_back(buffer);
            }
        }
    }
}

/// The size a block is started with; a block is sealed when less than
/// [`BLOCK_SLACK_BYTES`] of it is left (a text longer than what is left grows it).
const BLOCK_BYTES: usize = 256 * 1024;
/// See [`BLOCK_BYTES`].
const BLOCK_SLACK_BYTES: usize = 16 * 1024;

/// Buffers of blocks no text points into any more (see the module's comment).
static SPARE_BUFFERS: Mutex<SpareBuffers> = Mutex::new(SpareBuffers::new(SPARE_LIMIT_BYTES));

/// The most [`SPARE_BUFFERS`] keeps; past it, buffers go back to the allocator.
const SPARE_LIMIT_BYTES: usize = 64 << 20;

/// Emptied buffers up to a limit in bytes of capacity.
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

    /// Reads a JSON string from `reader` straight into the arena.
    ///
    /// # Errors
    ///
    /// The next value is not a well-formed JSON string; what was added is taken back.
    pub fn read(&mut self, reader: &mut PullReader<'_>) -> Result<SharedText, ParseError> {
        self.add_with(|out| reader.read_str_into(out))
    }

    /// Adds the text `write` appends to the string it is given (it must only
    /// append). If `write` fails, what it appended is taken back and its error
    /// returned.
    ///
    /// # Errors
    ///
    /// `write`'s own error; what it appended is taken back.
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
            (Ok(start), Ok(len)) if u32::try_from(end).is_ok() => {
                let block: Arc<dyn TextBlock> = self.block.clone();
                Ok(SharedText::piece(block, start, len))
            }
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn json_strings_read_into_the_arena_and_a_bad_one_leaves_nothing() {
        let mut arena = TextArena::new();
        let a = arena
            .read(&mut PullReader::new(r#""line\nbreak""#))
            .unwrap();
        assert!(arena.read(&mut PullReader::new(r#""bad \x""#)).is_err());
        let b = arena.read(&mut PullReader::new(r#""next""#)).unwrap();
        drop(arena);
        assert_eq!((a.as_str(), b.as_str()), ("line\nbreak", "next"));
        assert_eq!(b.as_ptr() as usize - a.as_ptr() as usize, a.len());
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
    #[should_panic(expected = "before its writer finished it")]
    fn reading_a_text_before_its_arena_is_sealed_fails_loudly() {
        let mut arena = TextArena::new();
        let text = arena.add("not yet");
        let _ = text.len();
    }
}
