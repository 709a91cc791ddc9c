//! A small fuzzy matcher for the pickers: the query's characters must appear in
//! the candidate in order (a subsequence, ignoring case); among the ways they
//! can, the best-scoring one counts. A match scores more at a word start (the
//! first character, after `/ _ - . :` or a space, a capital after a small
//! letter) and right after the previous match (a contiguous run), and a little
//! less for every character skipped between two matches. [`rank`] orders a list
//! by that score, then shorter candidates first, then the list's own order.
//! Ranking 100,000 paths is a benchmark's business, not a test's.

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
pub fn rank<S: AsRef<str>>(query: &str, candidates: &[S]) -> Vec<usize> {
    rank_among(query, candidates, 0..candidates.len())
}

/// Like [`rank`], looking only at the candidates at `among` (a picker narrowing
/// its last matches when the query grows).
pub fn rank_among<S: AsRef<str>>(
    query: &str,
    candidates: &[S],
    among: impl Iterator<Item = usize>,
) -> Vec<usize> {
    if query.is_empty() {
        return among.collect();
    }
    let mut matcher = Matcher::new(query);
    let mut scored: Vec<(i64, usize, usize)> = among
        .filter_map(|i| {
            let c = candidates[i].as_ref();
            matcher.score(c).map(|s| (s, c.len(), i))
        })
        .collect();
    scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    scored.into_iter().map(|(_, _, i)| i).collect()
}

/// A query ready to score many candidates, reusing its buffers.
struct Matcher {
    query: Vec<char>,
    text: Vec<char>,
    best: Vec<Option<i64>>,
    next: Vec<Option<i64>>,
}

impl Matcher {
    fn new(query: &str) -> Matcher {
        Matcher {
            query: query.chars().map(fold).collect(),
            text: Vec::new(),
            best: Vec::new(),
            next: Vec::new(),
        }
    }

    fn score(&mut self, candidate: &str) -> Option<i64> {
        let query = &self.query;
        if query.is_empty() {
            return Some(0);
        }
        // The cheap test first: most candidates fail it.
        let mut wanted = 0;
        for c in candidate.chars() {
            if fold(c) == query[wanted] {
                wanted += 1;
                if wanted == query.len() {
                    break;
                }
            }
        }
        if wanted < query.len() {
            return None;
        }
        self.text.clear();
        self.text.extend(candidate.chars());
        let text = &self.text;
        let bonus = |j: usize| if word_start(text, j) { WORD_START } else { 0 };
        // best[j]: the best score of the query so far with its last character
        // matched at j (None: cannot end there).
        self.best.clear();
        self.best.extend(text.iter().enumerate().map(|(j, &c)| {
            (fold(c) == query[0]).then(|| MATCH + bonus(j) - GAP * j.min(8) as i64)
        }));
        for &q in &query[1..] {
            self.next.clear();
            self.next.resize(text.len(), None);
            // The best of best[k] + GAP * k over k < j - 1 (a gap before j).
            let mut gapped: Option<i64> = None;
            for (j, &c) in text.iter().enumerate().skip(1) {
                if j >= 2 {
                    if let Some(s) = self.best[j - 2] {
                        let value = s + GAP * (j - 2) as i64;
                        gapped = Some(gapped.map_or(value, |g: i64| g.max(value)));
                    }
                }
                if fold(c) != q {
                    continue;
                }
                let bonus = bonus(j);
                let after_gap = gapped.map(|g| g - GAP * (j - 1) as i64 + bonus);
                let contiguous = self.best[j - 1].map(|s| s + CONTIGUOUS + bonus.min(CONTIGUOUS));
                self.next[j] = match (after_gap, contiguous) {
                    (Some(a), Some(b)) => Some(a.max(b) + MATCH),
                    (Some(a), None) | (None, Some(a)) => Some(a + MATCH),
                    (None, None) => None,
                };
            }
            std::mem::swap(&mut self.best, &mut self.next);
        }
        self.best.iter().flatten().copied().max()
    }
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
fn word_start(text: &[char], j: usize) -> bool {
    if j == 0 {
        return true;
    }
    let (before, here) = (text[j - 1], text[j]);
    matches!(before, '/' | '_' | '-' | '.' | ':' | ' ' | '\\')
        || (before.is_lowercase() && here.is_uppercase())
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
        let ranked = rank("cli", &items);
        assert_eq!(ranked[0], 2, "{ranked:?}");
        assert!(!ranked.contains(&4));
        assert_eq!(ranked.len(), 4);
        assert_eq!(rank("", &items), vec![0, 1, 2, 3, 4]);
        let ties = ["ab", "ab"];
        assert_eq!(rank("ab", &ties), vec![0, 1]);
    }
}
