//! A small fuzzy matcher for the pickers: the query's characters must appear in
//! the candidate in order (a subsequence, ignoring case); among the ways they
//! can, the best-scoring one counts. A match scores more at a word start (the
//! first character, after `/ _ - . :` or a space, a capital after a small
//! letter) and right after the previous match (a contiguous run), and a little
//! less for every character skipped between two matches. [`rank`] orders a list
//! by that score, then shorter candidates first, then the list's own order.
//! Speed (100,000 paths) is `bench_picker`'s business (docs/benchmarks.md):
//! a growing query narrows the last matches, candidates can be packed in one
//! buffer ([`Packed`]), a long list is scored on every core, each query
//! character is only looked for between its earliest and latest possible
//! place, and no candidate allocates.

/// Points for each matched character.
const MATCH: i64 = 16;
/// Extra points for a match at a word start.
const WORD_START: i64 = 10;
/// Extra points for a match right after the previous one.
const CONTIGUOUS: i64 = 12;
/// Points lost per character skipped between two matches.
const GAP: i64 = 1;

/// The score of `query` against `candidate`, `None` when the query's characters
/// do not all appear in order. An empty query matches everything with 0.
pub fn score(query: &str, candidate: &str) -> Option<i64> {
    Matcher::new(query).score(candidate)
}

/// The indices of the `candidates` matching `query`, best first (ties: shorter
/// first, then in the given order). An empty query keeps the given order.
pub fn rank<C: Candidates + ?Sized>(query: &str, candidates: &C) -> Vec<usize> {
    rank_among(query, candidates, 0..candidates.count())
}

/// A list of candidates, by index.
pub trait Candidates: Sync {
    /// The candidate at `index`.
    fn get(&self, index: usize) -> &str;
    /// How many there are.
    fn count(&self) -> usize;
}

impl<S: AsRef<str> + Sync> Candidates for [S] {
    fn get(&self, index: usize) -> &str {
        self[index].as_ref()
    }
    fn count(&self) -> usize {
        self.len()
    }
}

/// Candidates in one buffer, end to end: scoring 100,000 of them reads memory
/// in order instead of chasing 100,000 separate strings.
#[derive(Clone, Debug, Default)]
pub struct Packed {
    text: String,
    /// Where each candidate ends in `text`.
    ends: Vec<u32>,
}

impl Packed {
    /// The candidates `labels`, packed.
    pub fn new<'a>(labels: impl Iterator<Item = &'a str>) -> Packed {
        let mut packed = Packed::default();
        for label in labels {
            packed.text.push_str(label);
            packed.ends.push(packed.text.len() as u32);
        }
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
}

/// Like [`rank`], looking only at the candidates at `among` (a picker narrowing
/// its last matches when the query grows).
pub fn rank_among<C: Candidates + ?Sized>(
    query: &str,
    candidates: &C,
    among: impl Iterator<Item = usize>,
) -> Vec<usize> {
    if query.is_empty() {
        return among.collect();
    }
    let among: Vec<usize> = among.collect();
    // A long list is scored on every core, a slice each.
    let threads = if among.len() >= PARALLEL_FROM {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    } else {
        1
    };
    let score_slice = |slice: &[usize]| {
        let mut matcher = Matcher::new(query);
        slice
            .iter()
            .filter_map(|&i| {
                let c = candidates.get(i);
                matcher.score(c).map(|s| sort_key(s, c.len(), i))
            })
            .collect::<Vec<u64>>()
    };
    // One u64 per match, sorted as a number: the best score first, then the
    // shorter candidate, then the list's order (no tuple comparisons, no
    // allocation per candidate).
    let mut keys: Vec<u64> = if threads > 1 {
        let size = among.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let parts: Vec<_> = among
                .chunks(size)
                .map(|slice| scope.spawn(move || score_slice(slice)))
                .collect();
            parts
                .into_iter()
                .flat_map(|p| p.join().unwrap_or_default())
                .collect()
        })
    } else {
        score_slice(&among)
    };
    keys.sort_unstable();
    keys.into_iter()
        .map(|k| (k & INDEX_MASK) as usize)
        .collect()
}

/// From this many candidates on, [`rank_among`] scores on several threads.
const PARALLEL_FROM: usize = 20_000;

/// Bits of a sort key holding the candidate's index.
const INDEX_MASK: u64 = (1 << 32) - 1;

/// The sort key of a match: `score` inverted (higher sorts first) in the top
/// 20 bits, the length (capped) in the next 12, the index in the low 32.
fn sort_key(score: i64, len: usize, index: usize) -> u64 {
    let score = score.clamp(-(1 << 19), (1 << 19) - 1);
    let inverted = ((1i64 << 19) - 1 - score) as u64;
    (inverted << 44) | ((len.min(4095) as u64) << 32) | (index as u64 & INDEX_MASK)
}

/// A query ready to score many candidates, reusing its buffers: no
/// allocation per candidate. An ASCII candidate (most file names) is compared
/// byte by byte, others character by character.
struct Matcher {
    query: Vec<char>,
    /// The query as bytes, when it is ASCII.
    ascii: Option<Vec<u8>>,
    /// A candidate's characters (when it is not ASCII).
    text: Vec<char>,
    buffers: Buffers,
}

/// The search's working rows, kept from one candidate to the next.
#[derive(Default)]
struct Buffers {
    /// The previous query character's places and best scores there (in order
    /// of place), and the current one's: only places where the character is.
    best: Vec<(usize, i32)>,
    next: Vec<(usize, i32)>,
    /// The earliest and latest place each query character can match.
    earliest: Vec<usize>,
    latest: Vec<usize>,
}

/// No alignment ends here.
const NONE: i32 = i32::MIN / 2;

impl Matcher {
    fn new(query: &str) -> Matcher {
        let folded: Vec<char> = query.chars().map(fold).collect();
        Matcher {
            ascii: folded
                .iter()
                .all(char::is_ascii)
                .then(|| folded.iter().map(|&c| c as u8).collect()),
            query: folded,
            text: Vec::new(),
            buffers: Buffers::default(),
        }
    }

    fn score(&mut self, candidate: &str) -> Option<i64> {
        if self.query.is_empty() {
            return Some(0);
        }
        if candidate.is_ascii() {
            if let Some(query) = &self.ascii {
                return align(query, candidate.as_bytes(), &mut self.buffers);
            }
        }
        self.text.clear();
        self.text.extend(candidate.chars());
        align(&self.query, &self.text, &mut self.buffers)
    }
}

/// What the search compares: a byte of an ASCII name, or a character.
trait Unit: Copy + PartialEq {
    /// Compared without case.
    fn fold(self) -> Self;
    /// Whether it is `q` (already folded), ignoring case.
    fn is(self, q: Self) -> bool {
        self.fold() == q
    }
    /// A word starts after it.
    fn separates(self) -> bool;
    /// A small letter (a capital after one starts a word).
    fn is_small(self) -> bool;
    /// A capital letter.
    fn is_capital(self) -> bool;
}

impl Unit for u8 {
    fn fold(self) -> u8 {
        self.to_ascii_lowercase()
    }
    fn is(self, q: u8) -> bool {
        // A small letter is itself or its capital, one bit apart.
        if q.is_ascii_lowercase() {
            self | 0x20 == q
        } else {
            self == q
        }
    }
    fn separates(self) -> bool {
        matches!(self, b'/' | b'_' | b'-' | b'.' | b':' | b' ' | b'\\')
    }
    fn is_small(self) -> bool {
        self.is_ascii_lowercase()
    }
    fn is_capital(self) -> bool {
        self.is_ascii_uppercase()
    }
}

impl Unit for char {
    fn fold(self) -> char {
        fold(self)
    }
    fn separates(self) -> bool {
        matches!(self, '/' | '_' | '-' | '.' | ':' | ' ' | '\\')
    }
    fn is_small(self) -> bool {
        self.is_lowercase()
    }
    fn is_capital(self) -> bool {
        self.is_uppercase()
    }
}

/// The best score of `query` (folded) in `text`, `None` when it is not a
/// subsequence. Every query character can only match between the place the
/// earliest alignment puts it and the place the latest one does, and only
/// where it is: each row holds those places alone.
// Places in `text` are what the rows hold: index loops say it most plainly.
#[allow(clippy::needless_range_loop)]
fn align<U: Unit>(query: &[U], text: &[U], b: &mut Buffers) -> Option<i64> {
    if let [q] = query {
        return align_one(*q, text);
    }
    // The cheap test first (most candidates fail it), giving the earliest places.
    b.earliest.clear();
    let mut j = 0;
    for &q in query {
        while j < text.len() && !text[j].is(q) {
            j += 1;
        }
        if j == text.len() {
            return None;
        }
        b.earliest.push(j);
        j += 1;
    }
    // From the end: the latest places.
    b.latest.clear();
    b.latest.resize(query.len(), 0);
    let mut j = text.len();
    for (i, &q) in query.iter().enumerate().rev() {
        j -= 1;
        while !text[j].is(q) {
            j -= 1;
        }
        b.latest[i] = j;
    }
    let bonus = |j: usize| {
        let start =
            j == 0 || text[j - 1].separates() || (text[j - 1].is_small() && text[j].is_capital());
        if start {
            WORD_START as i32
        } else {
            0
        }
    };
    // Row by row, one per query character, holding only the places where the
    // character is (between its earliest and latest place): the best score of
    // the query so far with that character matched there.
    b.best.clear();
    for j in b.earliest[0]..=b.latest[0] {
        if text[j].is(query[0]) {
            b.best
                .push((j, MATCH as i32 + bonus(j) - GAP as i32 * j.min(8) as i32));
        }
    }
    for (i, &q) in query.iter().enumerate().skip(1) {
        b.next.clear();
        // `gapped`: the best of score + GAP * place over the previous row's
        // places before j - 1 (a gap before j); `at` walks that row.
        let mut gapped = NONE;
        let mut at = 0;
        for j in b.earliest[i]..=b.latest[i] {
            if !text[j].is(q) {
                continue;
            }
            while at < b.best.len() && b.best[at].0 + 2 <= j {
                let (k, s) = b.best[at];
                gapped = gapped.max(s + GAP as i32 * k as i32);
                at += 1;
            }
            let bonus = bonus(j);
            let mut score = NONE;
            if gapped > NONE {
                score = gapped - GAP as i32 * (j - 1) as i32 + bonus;
            }
            if let Some(&(k, s)) = b.best.get(at) {
                if k + 1 == j {
                    score = score.max(s + CONTIGUOUS as i32 + bonus.min(CONTIGUOUS as i32));
                }
            }
            if score > NONE {
                b.next.push((j, score + MATCH as i32));
            }
        }
        std::mem::swap(&mut b.best, &mut b.next);
    }
    b.best.iter().map(|&(_, s)| i64::from(s)).max()
}

/// [`align`] for a query of one character, in one pass: the first match at a
/// word start scores best (its bonus outweighs any place's penalty), else the
/// first match.
fn align_one<U: Unit>(q: U, text: &[U]) -> Option<i64> {
    let mut first = None;
    for (j, &c) in text.iter().enumerate() {
        if !c.is(q) {
            continue;
        }
        let start = j == 0 || text[j - 1].separates() || (text[j - 1].is_small() && c.is_capital());
        if start {
            return Some(MATCH + WORD_START - GAP * j.min(8) as i64);
        }
        first.get_or_insert(MATCH - GAP * j.min(8) as i64);
    }
    first
}

/// A character compared without case.
fn fold(c: char) -> char {
    if c.is_ascii() {
        c.to_ascii_lowercase()
    } else {
        let mut lower = c.to_lowercase();
        match (lower.next(), lower.next()) {
            (Some(one), None) => one,
            _ => c,
        }
    }
}

/// Whether position `j` of `text` starts a word.
#[cfg(test)]
fn word_start(text: &[char], j: usize) -> bool {
    j == 0 || text[j - 1].separates() || (text[j - 1].is_small() && text[j].is_capital())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subsequence_matches_in_order_and_ignores_case() {
        assert!(score("mdl", "model").is_some());
        assert!(score("MoD", "model").is_some());
        assert!(score("ldm", "model").is_none());
        assert!(score("models", "model").is_none());
        assert_eq!(score("", "anything"), Some(0));
        assert!(score("x", "").is_none());
        assert!(score("ü", "Über").is_some());
    }

    #[test]
    fn word_starts_beat_letters_inside_words() {
        // "sr" at the starts of "src/" … "rows" beats "s…r" inside a word.
        let at_starts = score("sr", "src/rows.rs").unwrap();
        let inside = score("sr", "usr").unwrap();
        assert!(at_starts > inside, "{at_starts} vs {inside}");
        assert!(score("fb", "foo_bar").unwrap() > score("fb", "fooxbar").unwrap());
        assert!(score("fb", "fooBar").unwrap() > score("fb", "foobar").unwrap());
    }

    #[test]
    fn contiguous_runs_beat_scattered_letters() {
        let run = score("mod", "x/model.rs").unwrap();
        let scattered = score("mod", "my/other/dir.rs").unwrap();
        assert!(run > scattered, "{run} vs {scattered}");
    }

    #[test]
    fn the_best_alignment_counts_not_the_first() {
        // The first 'm' is inside "xm"; the run "mod" later must still win.
        let best = score("mod", "xm/mod.rs").unwrap();
        let greedy_only = MATCH * 3; // what a scattered, bonus-less match would get
        assert!(best > greedy_only, "{best}");
    }

    #[test]
    fn rank_orders_by_score_then_length_then_order() {
        let items = [
            "docs/cli.md",
            "crates/focus-cli/src/lib.rs",
            "cli",
            "c_l_i",
            "nothing",
        ];
        let ranked = rank("cli", &items[..]);
        assert_eq!(ranked[0], 2, "{ranked:?}");
        assert!(!ranked.contains(&4));
        assert_eq!(ranked.len(), 4);
        assert_eq!(rank("", &items[..]), vec![0, 1, 2, 3, 4]);
        // Packed, the same.
        let packed = Packed::new(items.iter().copied());
        assert_eq!(rank("cli", &packed), ranked);
        assert_eq!(packed.get(0), "docs/cli.md");
        assert_eq!(packed.get(4), "nothing");
        let ties = ["ab", "ab"];
        assert_eq!(rank("ab", &ties[..]), vec![0, 1]);
    }

    /// Every alignment, tried one by one: what the bounded search must find.
    fn every_alignment(query: &[char], text: &[char], at: usize, from: usize) -> Option<i64> {
        if at == query.len() {
            return Some(0);
        }
        let mut best = None;
        for j in from..text.len() {
            if fold(text[j]) != query[at] {
                continue;
            }
            let bonus = if word_start(text, j) { WORD_START } else { 0 };
            let here = if at == 0 {
                MATCH + bonus - GAP * j.min(8) as i64
            } else if j == from {
                MATCH + CONTIGUOUS + bonus.min(CONTIGUOUS)
            } else {
                MATCH + bonus - GAP * (j - from) as i64
            };
            if let Some(rest) = every_alignment(query, text, at + 1, j + 1) {
                best = Some(best.map_or(here + rest, |b: i64| b.max(here + rest)));
            }
        }
        best
    }

    #[test]
    fn the_bounded_search_finds_the_best_alignment() {
        let mut seed = 99u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let letters: Vec<char> = "abAB/._-xé".chars().collect();
        for _ in 0..3000 {
            let text: String = (0..next(14))
                .map(|_| letters[next(letters.len())])
                .collect();
            let query: String = (0..1 + next(4)).map(|_| letters[next(6)]).collect();
            let q: Vec<char> = query.chars().map(fold).collect();
            let t: Vec<char> = text.chars().collect();
            assert_eq!(
                score(&query, &text),
                every_alignment(&q, &t, 0, 0),
                "{query:?} in {text:?}"
            );
        }
    }
}
