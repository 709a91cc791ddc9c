//! The Pike VM: runs a [`Program`] over bytes in one pass.
//!
//! All NFA threads advance together, one input character at a time. Each list
//! holds at most one thread per instruction (a sparse set), so the work per
//! character is bounded by the program size: a search costs O(text × program),
//! whatever the pattern. That is what rules out the exponential blow-up a
//! backtracking matcher suffers on `(a*)*b` against `aaaa…`.
//!
//! Threads are kept in priority order (the order a backtracker would try them),
//! and a thread that reaches `Match` cuts off every lower-priority thread, which
//! yields Perl's leftmost-first match. The text is bytes, decoded as UTF-8 on
//! the fly; an invalid byte reads as U+FFFD and consumes one byte, so any file
//! can be searched.

use super::compile::{Inst, Program};
use super::parse::{is_word_char, Look};

/// A sparse set of threads: each is an instruction and the start of its match.
#[derive(Default)]
struct Threads {
    dense: Vec<(usize, usize)>,
    sparse: Vec<usize>,
}

impl Threads {
    fn reset(&mut self, size: usize) {
        self.dense.clear();
        if self.sparse.len() < size {
            self.sparse.resize(size, 0);
        }
    }

    fn contains(&self, pc: usize) -> bool {
        let i = self.sparse[pc];
        i < self.dense.len() && self.dense[i].0 == pc
    }

    fn insert(&mut self, pc: usize, start: usize) {
        self.sparse[pc] = self.dense.len();
        self.dense.push((pc, start));
    }
}

/// Buffers reused between searches (grep calls the VM per line): the caller
/// keeps one and passes it to every [`search`] (a [`super::Regex`] keeps a few).
#[derive(Default)]
pub struct Cache {
    current: Threads,
    next: Threads,
    stack: Vec<usize>,
}

/// The character at `pos` and its length in bytes; invalid UTF-8 reads as
/// U+FFFD of length 1. `None` at the end.
#[inline]
pub fn decode(text: &[u8], pos: usize) -> Option<(char, usize)> {
    let first = *text.get(pos)?;
    if first < 0x80 {
        return Some((first as char, 1));
    }
    let width = match first {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return Some(('\u{FFFD}', 1)),
    };
    let decoded = text
        .get(pos..pos + width)
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .and_then(|s| s.chars().next());
    Some(decoded.map_or(('\u{FFFD}', 1), |c| (c, width)))
}

/// Searches `text` with the buffers in `cache`. Returns the leftmost-first
/// match as a byte range; with `earliest`, returns as soon as any match is
/// certain (its range is then not meaningful beyond "there is one").
pub fn search(
    program: &Program,
    text: &[u8],
    earliest: bool,
    cache: &mut Cache,
) -> Option<(usize, usize)> {
    let Cache {
        current,
        next,
        stack,
    } = cache;
    let size = program.insts.len();
    current.reset(size);
    next.reset(size);
    let mut matched = None;
    let mut pos = 0;
    let mut prev: Option<char> = None;
    loop {
        // Nothing alive and no match yet: jump to the next byte a match can
        // start with, instead of stepping through every character.
        if current.dense.is_empty() && matched.is_none() && pos > 0 {
            if let Some(first) = &program.first_bytes {
                match text[pos..].iter().position(|&b| first[b as usize]) {
                    Some(skip) if skip > 0 => {
                        pos += skip;
                        prev = previous_char(text, pos);
                    }
                    Some(_) => {}
                    None => break,
                }
            }
        }
        let here = decode(text, pos);
        let cur = here.map(|(c, _)| c);
        if matched.is_none() && (pos == 0 || !program.anchored_start) {
            add_thread(program, current, stack, 0, pos, prev, cur);
        }
        if current.dense.is_empty() && (matched.is_some() || program.anchored_start) {
            break;
        }
        let step = here.map_or(0, |(_, len)| len);
        let after = if here.is_some() {
            decode(text, pos + step).map(|(c, _)| c)
        } else {
            None
        };
        next.reset(size);
        for i in 0..current.dense.len() {
            let (pc, start) = current.dense[i];
            let advance = match &program.insts[pc] {
                Inst::Match => {
                    matched = Some((start, pos));
                    if earliest {
                        return matched;
                    }
                    break;
                }
                Inst::Char(c) => cur == Some(*c),
                Inst::Class(k) => cur.is_some_and(|c| program.classes[*k].matches(c)),
                Inst::AnyButNewline => cur.is_some_and(|c| c != '\n'),
                Inst::Any => cur.is_some(),
                Inst::Look(_) | Inst::Split(..) | Inst::Jmp(_) => false,
            };
            if advance {
                add_thread(program, next, stack, pc + 1, start, cur, after);
            }
        }
        std::mem::swap(current, next);
        if here.is_none() {
            break;
        }
        prev = cur;
        pos += step;
    }
    matched
}

/// The character that ends just before `pos` (which is a character boundary).
fn previous_char(text: &[u8], pos: usize) -> Option<char> {
    let mut start = pos.checked_sub(1)?;
    // Back over at most three UTF-8 continuation bytes to the lead byte.
    while start > 0 && pos - start < 4 && (text[start] & 0xC0) == 0x80 {
        start -= 1;
    }
    match decode(text, start) {
        Some((c, len)) if start + len == pos => Some(c),
        _ => Some('\u{FFFD}'),
    }
}

/// Adds the thread at `pc` and everything reachable from it without consuming
/// input (following jumps, splits and assertions that hold between `prev` and
/// `next`), in priority order.
fn add_thread(
    program: &Program,
    list: &mut Threads,
    stack: &mut Vec<usize>,
    pc: usize,
    start: usize,
    prev: Option<char>,
    next: Option<char>,
) {
    stack.clear();
    stack.push(pc);
    while let Some(pc) = stack.pop() {
        if list.contains(pc) {
            continue;
        }
        list.insert(pc, start);
        match program.insts[pc] {
            Inst::Jmp(target) => stack.push(target),
            Inst::Split(first, second) => {
                stack.push(second);
                stack.push(first);
            }
            Inst::Look(look) if look_holds(look, prev, next) => stack.push(pc + 1),
            _ => {}
        }
    }
}

fn look_holds(look: Look, prev: Option<char>, next: Option<char>) -> bool {
    let word = |c: Option<char>| c.is_some_and(is_word_char);
    match look {
        Look::Start => prev.is_none(),
        Look::End => next.is_none(),
        Look::WordBoundary => word(prev) != word(next),
        Look::NotWordBoundary => word(prev) == word(next),
    }
}
