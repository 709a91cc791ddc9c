//! Candidates packed end to end in one buffer ([`Packed`]): scoring 100,000 of
//! them reads memory in order instead of chasing 100,000 separate strings.
//! Each keeps its [`Hints`], taken once when packed: which characters start a
//! word in it and which pairs of characters follow each other, enough to bound
//! its score from above without reading it again.

use super::cores::on_every_core;
use super::score::{word_start, Unit, CONTIGUOUS, GAP, MATCH, WORD_START};

/// What one candidate holds, as two sets of hashed bits (a bit set may be a
/// false alarm, never a miss): the characters (folded) starting a word, and
/// the pairs of characters one right after the other (folded, with whether the
/// second starts a word).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    starts: u64,
    pairs: [u64; 4],
}

impl Hints {
    /// The hints of `candidate`.
    pub fn of(candidate: &str) -> Hints {
        if candidate.is_ascii() {
            Hints::of_units(candidate.as_bytes())
        } else {
            Hints::of_units(&candidate.chars().collect::<Vec<char>>())
        }
    }

    /// The hints of a candidate as bytes (ASCII) or characters: the same.
    fn of_units<U: Unit + Into<char>>(text: &[U]) -> Hints {
        let mut hints = Hints::default();
        let mut previous: Option<U> = None;
        for &unit in text {
            let c: char = unit.fold().into();
            let start = previous.map_or(true, |p| {
                p.separates() || (p.is_small() && unit.is_capital())
            });
            if start {
                hints.starts |= 1 << char_bit(c);
            }
            if let Some(p) = previous {
                let bit = pair_bit(p.fold().into(), c, start);
                hints.pairs[bit / 64] |= 1 << (bit % 64);
            }
            previous = Some(unit);
        }
        hints
    }

    fn has(&self, bit: usize) -> bool {
        self.pairs[bit / 64] & (1 << (bit % 64)) != 0
    }
}

/// A character's bit among 64.
fn char_bit(c: char) -> u32 {
    (c as u32).wrapping_mul(0x9E37_79B1) >> 26
}

/// A pair's bit among 256.
fn pair_bit(a: char, b: char, start: bool) -> usize {
    let key = (a as u32).wrapping_mul(0x0101_0193) ^ (b as u32) ^ (u32::from(start) << 31);
    (key.wrapping_mul(0x9E37_79B1) >> 24) as usize
}

/// Upper bounds on a query's score, from a candidate's [`Hints`] and its first
/// few characters: the query's bits looked up once.
pub(super) struct Bounds {
    /// The query, folded (not empty).
    query: Vec<char>,
    /// Each character's bit among the word starts.
    starts: Vec<u64>,
    /// Each pair's bits: plain, and with the second at a word start.
    pairs: Vec<(usize, usize)>,
}

impl Bounds {
    /// The bounds of `query` (folded, not empty).
    pub(super) fn new(query: &[char]) -> Bounds {
        Bounds {
            query: query.to_vec(),
            starts: query.iter().map(|&c| 1 << char_bit(c)).collect(),
            pairs: query
                .windows(2)
                .map(|p| (pair_bit(p[0], p[1], false), pair_bit(p[0], p[1], true)))
                .collect(),
        }
    }

    /// A score no alignment beats in any candidate: every character at a word
    /// start and in a run.
    pub(super) fn most(&self) -> i64 {
        let rest = self.query.len() as i64 - 1;
        MATCH + WORD_START + rest * (MATCH + CONTIGUOUS + WORD_START.min(CONTIGUOUS))
    }

    /// A score no alignment of the query in `candidate` (whose hints are
    /// `hints`) beats: each character's best case alone (a word start if one
    /// holds it, a run if the pair is there), summed; the first character and
    /// the second exactly when the first is among the candidate's first 8
    /// (where its place costs), else as the rest.
    /// `first` is where the first character goes first.
    pub(super) fn of(&self, hints: &Hints, candidate: &str, first: usize) -> i64 {
        // The candidate's first 9 characters, enough for the first 8 and
        // the one after.
        if candidate.is_ascii() {
            let bytes = candidate.as_bytes();
            self.of_units(hints, &bytes[..bytes.len().min(9)], first)
        } else {
            let mut text = [' '; 9];
            let mut len = 0;
            for (slot, c) in text.iter_mut().zip(candidate.chars()) {
                *slot = c;
                len += 1;
            }
            self.of_units(hints, &text[..len], first)
        }
    }

    fn of_units<U: Unit + Into<char>>(&self, hints: &Hints, text: &[U], first: usize) -> i64 {
        let start = |i: usize| {
            if hints.starts & self.starts[i] != 0 {
                WORD_START
            } else {
                0
            }
        };
        // Character `i` (not the first) after the previous one: in a run if
        // the pair is there (at a word start too if that pair is), else at
        // least one skipped.
        let after = |i: usize| {
            let (plain, at_start) = self.pairs[i - 1];
            let mut best = start(i) - GAP;
            if hints.has(plain) {
                best = best.max(CONTIGUOUS);
            }
            if hints.has(at_start) {
                best = best.max(CONTIGUOUS + WORD_START.min(CONTIGUOUS));
            }
            MATCH + best
        };
        let n = self.query.len();
        let rest: i64 = (2..n).map(after).sum();
        // The first character from the 9th place on: its place costs 8.
        let mut head = MATCH + start(0) - GAP * 8;
        if n > 1 {
            head += after(1);
        }
        // Among the first 8: read them.
        let q = self.query[0];
        for j in first..text.len().min(8) {
            if text[j].fold().into() != q {
                continue;
            }
            let bonus = |j| if word_start(text, j) { WORD_START } else { 0 };
            let mut here = MATCH + bonus(j) - GAP * j as i64;
            if n > 1 {
                // The second: right after, or at least one skipped.
                let mut next = MATCH + start(1) - GAP;
                if j + 1 < text.len() && text[j + 1].fold().into() == self.query[1] {
                    next = next.max(MATCH + CONTIGUOUS + bonus(j + 1).min(CONTIGUOUS));
                }
                here += next;
            }
            head = head.max(here);
        }
        head + rest
    }
}

/// Candidates in one buffer, end to end, with their [`Hints`].
#[derive(Clone, Debug, Default)]
pub struct Packed {
    text: String,
    /// Where each candidate ends in `text`.
    ends: Vec<u32>,
    hints: Vec<Hints>,
}

impl Packed {
    /// The candidates `labels`, packed.
    pub fn new<'a>(labels: impl Iterator<Item = &'a str>) -> Packed {
        let mut packed = Packed::default();
        for label in labels {
            packed.text.push_str(label);
            packed.ends.push(packed.text.len() as u32);
        }
        // The hints, on every core for a long list.
        let all: Vec<usize> = (0..packed.ends.len()).collect();
        let parts = on_every_core(&all, |slice| {
            slice
                .iter()
                .map(|&i| Hints::of(packed.get(i)))
                .collect::<Vec<_>>()
        });
        packed.hints = parts.into_iter().flatten().collect();
        packed
    }
}

impl Candidates for Packed {
    fn get(&self, index: usize) -> &str {
        let start = index
            .checked_sub(1)
            .map_or(0, |before| self.ends[before] as usize);
        &self.text[start..self.ends[index] as usize]
    }
    fn count(&self) -> usize {
        self.ends.len()
    }
    fn hints(&self, index: usize) -> Option<&Hints> {
        self.hints.get(index)
    }
}

/// A list of candidates, by index.
pub trait Candidates: Sync {
    /// The candidate at `index`.
    fn get(&self, index: usize) -> &str;
    /// How many there are.
    fn count(&self) -> usize;
    /// What the candidate at `index` holds, for an upper bound on its score
    /// ([`top`](super::top) scores only candidates whose bound can still make the top):
    /// `None` when not kept (every candidate is then scored).
    fn hints(&self, index: usize) -> Option<&Hints> {
        let _ = index;
        None
    }
}

impl<S: AsRef<str> + Sync> Candidates for [S] {
    fn get(&self, index: usize) -> &str {
        self[index].as_ref()
    }
    fn count(&self) -> usize {
        self.len()
    }
}
