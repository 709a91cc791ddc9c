//! What focus said in the conversation (a command's output, its errors, the
//! notes of `/name`, `/copy`, `/undo`…) as part of the screen's model, not only
//! of the scrollback.
//!
//! Two rules keep notes out of the way of the conversation:
//! - a note never lands inside a streaming block: it goes after the blocks
//!   still live, in the live area, and reaches the scrollback once they end
//!   (the answer streaming on keeps its own block: [`super::view`] finds it
//!   behind the notes);
//! - a full redraw that rebuilds the transcript from the history (`/undo`,
//!   `/tree`, `/resume`…) puts the session's notes back, each after the
//!   messages that were there when it was said ([`Said::anchored`]).

use super::blocks::{Block, Kind};

/// The notes said in one session, each with the number of history messages
/// before it.
#[derive(Default)]
pub struct Said {
    /// The session they belong to.
    session: String,
    /// (messages before it, the styled note).
    notes: Vec<(usize, String)>,
}

impl Said {
    /// Keeps `note`, said in `session` after `messages` history messages
    /// (notes of another session are forgotten: the transcript changed).
    pub fn keep(&mut self, session: &str, messages: usize, note: &str) {
        if self.session != session {
            self.session = session.to_string();
            self.notes.clear();
        }
        self.notes.push((messages, note.to_string()));
    }

    /// The notes of `session`, in order, with their anchors (none when the
    /// session is another one).
    pub fn anchored(&self, session: &str) -> &[(usize, String)] {
        if self.session == session {
            &self.notes
        } else {
            &[]
        }
    }
}

/// `blocks` (the blocks of a history, `ends[i]` the number of blocks made
/// from its first `i + 1` messages) with `notes` put back where they were said:
/// a note anchored after `n` messages follows the blocks of those `n` (one
/// anchored past the end, said before an `/undo`, goes last).
pub fn interleave(blocks: Vec<Block>, ends: &[usize], notes: &[(usize, String)]) -> Vec<Block> {
    let mut out = Vec::with_capacity(blocks.len() + notes.len());
    let mut blocks = blocks.into_iter();
    let mut taken = 0;
    for (messages, note) in notes {
        let upto = match messages {
            0 => 0,
            n => ends.get(n - 1).copied().unwrap_or(usize::MAX),
        };
        while taken < upto {
            match blocks.next() {
                Some(block) => out.push(block),
                None => break,
            }
            taken += 1;
        }
        out.push(Block::done(Kind::Note(note.clone())));
    }
    out.extend(blocks);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(block: &Block) -> &str {
        match &block.kind {
            Kind::Note(text) => text,
            _ => "?",
        }
    }

    #[test]
    fn notes_go_back_after_their_messages() {
        let blocks = vec![
            Block::done(Kind::Note("m1".into())),
            Block::done(Kind::Note("m2a".into())),
            Block::done(Kind::Note("m2b".into())),
        ];
        // Message 1 made one block, message 2 two.
        let notes = vec![
            (0, "first".to_string()),
            (1, "after one".to_string()),
            (7, "after an undo".to_string()),
        ];
        let out = interleave(blocks, &[1, 3], &notes);
        let texts: Vec<&str> = out.iter().map(text).collect();
        assert_eq!(
            texts,
            ["first", "m1", "after one", "m2a", "m2b", "after an undo"]
        );
    }

    #[test]
    fn another_sessions_notes_are_forgotten() {
        let mut said = Said::default();
        said.keep("a", 0, "one");
        said.keep("a", 2, "two");
        assert_eq!(said.anchored("a").len(), 2);
        assert!(said.anchored("b").is_empty());
        said.keep("b", 0, "three");
        assert_eq!(said.anchored("b"), [(0, "three".to_string())]);
        assert!(said.anchored("a").is_empty());
    }
}
