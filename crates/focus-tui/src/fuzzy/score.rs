//! One candidate's score: the best alignment of the query in it, found row by
//! row (one per query character), each character looked for only between its
//! earliest and latest possible place. An ASCII candidate (most file names) is
//! compared byte by byte, others character by character; no candidate
//! allocates.

/// Points for each matched character.
pub(super) const MATCH: i64 = 16;
/// Extra points for a match at a word start.
pub(super) const WORD_START: i64 = 10;
/// Extra points for a match right after the previous one.
pub(super) const CONTIGUOUS: i64 = 12;
/// Points lost per character skipped between two matches.
pub(super) const GAP: i64 = 1;

/// A query ready to score many candidates, reusing its buffers: no
/// allocation per candidate. An ASCII candidate (most file names) is compared
/// byte by byte, others character by character.
pub(super) struct Matcher {
    /// The query, folded.
    pub(super) query: Vec<char>,
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
    /// A matcher for `query`.
    pub(super) fn new(query: &str) -> Matcher {
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

    /// The best score of the query in `candidate`, `None` when it does not
    /// match.
    pub(super) fn score(&mut self, candidate: &str) -> Option<i64> {
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

    /// Whether the query matches `candidate` (the cheap test: the first place
    /// each character can go), and where its first character can go first.
    pub(super) fn find(&mut self, candidate: &str) -> Option<usize> {
        if self.query.is_empty() {
            return Some(0);
        }
        if candidate.is_ascii() {
            if let Some(query) = &self.ascii {
                return first_place(query, candidate.as_bytes());
            }
        }
        self.text.clear();
        self.text.extend(candidate.chars());
        first_place(&self.query, &self.text)
    }
}

/// Where `query`'s first character goes in the earliest alignment, `None`
/// when `query` (not empty) is not a subsequence of `text`.
fn first_place<U: Unit>(query: &[U], text: &[U]) -> Option<usize> {
    let mut places = text.iter().enumerate();
    let mut first = None;
    for &q in query {
        let (j, _) = places.find(|(_, c)| c.is(q))?;
        first.get_or_insert(j);
    }
    first
}

/// What the search compares: a byte of an ASCII name, or a character.
pub(super) trait Unit: Copy + PartialEq {
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
pub(super) fn word_start<U: Unit>(text: &[U], j: usize) -> bool {
    j == 0 || text[j - 1].separates() || (text[j - 1].is_small() && text[j].is_capital())
}

#[cfg(test)]
mod tests {
    use super::super::score;
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
        let mut rng = focus_testkit::rng::Rng::new(99);
        let mut next = |n: usize| rng.below(n);
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
