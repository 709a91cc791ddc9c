//! Ordering a list by score: [`rank_among`] scores every match and sorts them
//! all; [`top`] finds only the best few (what a picker shows) and counts every
//! match. A candidate's [`Hints`](super::Hints) bound its score from above, so
//! [`top`] scores exactly only the candidates whose bound can still beat the
//! worst of the best found so far; the rest only pass the cheap test that they
//! match at all. A long list is split over every core.

use super::cores::on_every_core;
use super::packed::{Bounds, Candidates};
use super::score::Matcher;
use std::collections::BinaryHeap;

/// The indices of the `candidates` matching `query`, best first (ties: shorter
/// first, then in the given order). An empty query keeps the given order.
pub fn rank<C: Candidates + ?Sized>(query: &str, candidates: &C) -> Vec<usize> {
    rank_among(query, candidates, 0..candidates.count())
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
    // One u64 per match, sorted as a number: the best score first, then the
    // shorter candidate, then the list's order (no tuple comparisons, no
    // allocation per candidate).
    let mut keys: Vec<u64> = on_every_core(&among, |slice| {
        let mut matcher = Matcher::new(query);
        slice
            .iter()
            .filter_map(|&i| {
                let c = candidates.get(i);
                matcher.score(c).map(|s| sort_key(s, c.len(), i))
            })
            .collect::<Vec<u64>>()
    })
    .into_iter()
    .flatten()
    .collect();
    keys.sort_unstable();
    keys.into_iter().map(index_of).collect()
}

/// What [`top`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Top {
    /// The best matches, best first: the first ones of [`rank_among`]'s order.
    pub best: Vec<usize>,
    /// Every match, in the order given (not ranked).
    pub matches: Vec<usize>,
}

/// The first `count` of what [`rank_among`] gives for `query` over `among`
/// (the same ones, in the same order), and every match; with an empty query,
/// everything in the order given.
pub fn top<C: Candidates + ?Sized>(
    query: &str,
    candidates: &C,
    among: impl Iterator<Item = usize>,
    count: usize,
) -> Top {
    let among: Vec<usize> = among.collect();
    if query.is_empty() {
        return Top {
            best: among.iter().copied().take(count).collect(),
            matches: among,
        };
    }
    let parts = on_every_core(&among, |slice| best_in(query, candidates, slice, count));
    let mut keys = Vec::new();
    let mut matches = Vec::new();
    for (part, best) in parts {
        matches.extend(part);
        keys.extend(best);
    }
    keys.sort_unstable();
    keys.truncate(count);
    Top {
        best: keys.into_iter().map(index_of).collect(),
        matches,
    }
}

/// The matches in `slice` (in its order) and the sort keys of its best
/// `count`. Every candidate gets the cheap test (does it match, and where can
/// its first character go first) and a bound on its score; then they are
/// scored exactly from the highest bound down, until a bound can no longer
/// beat the worst of the best `count` found.
fn best_in<C: Candidates + ?Sized>(
    query: &str,
    candidates: &C,
    slice: &[usize],
    count: usize,
) -> (Vec<usize>, Vec<u64>) {
    let mut matcher = Matcher::new(query);
    let mut matches = Vec::new();
    // The best keys so far (the worst of them on top), at most `count`.
    let mut best: BinaryHeap<u64> = BinaryHeap::with_capacity(count + 1);
    let keep = |best: &mut BinaryHeap<u64>, key| {
        best.push(key);
        if best.len() > count {
            best.pop();
        }
    };
    if matcher.query.len() == 1 {
        // One character: scoring is as cheap as any bound.
        for &i in slice {
            let c = candidates.get(i);
            if let Some(score) = matcher.score(c) {
                matches.push(i);
                keep(&mut best, sort_key(score, c.len(), i));
            }
        }
        return (matches, best.into_vec());
    }
    let bounds = Bounds::new(&matcher.query);
    let most = bounds.most();
    let mut bounded = Vec::new();
    for &i in slice {
        let c = candidates.get(i);
        let Some(first) = matcher.find(c) else {
            continue;
        };
        matches.push(i);
        let bound = candidates
            .hints(i)
            .map_or(most, |hints| bounds.of(hints, c, first));
        bounded.push(bound);
    }
    if count == 0 || matches.is_empty() {
        return (matches, Vec::new());
    }
    // The matches by bound, highest first (a counting sort: bounds are small).
    let low = bounded.iter().copied().min().unwrap_or(0);
    let high = bounded.iter().copied().max().unwrap_or(0);
    let mut starts = vec![0usize; (high - low + 2) as usize];
    for &b in &bounded {
        starts[(high - b) as usize + 1] += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    let mut order = vec![0usize; matches.len()];
    let mut next = starts.clone();
    for (&i, &b) in matches.iter().zip(&bounded) {
        let slot = &mut next[(high - b) as usize];
        order[*slot] = i;
        *slot += 1;
    }
    for (bucket, bound) in (low..=high).rev().enumerate() {
        let worst = |best: &BinaryHeap<u64>| best.peek().copied().filter(|_| best.len() == count);
        if worst(&best).is_some_and(|w| sort_key(bound, 0, 0) > w) {
            break;
        }
        for &i in &order[starts[bucket]..starts[bucket + 1]] {
            let c = candidates.get(i);
            if worst(&best).is_some_and(|w| sort_key(bound, c.len(), i) > w) {
                continue;
            }
            let score = matcher.score(c).unwrap_or(i64::MIN);
            keep(&mut best, sort_key(score, c.len(), i));
        }
    }
    (matches, best.into_vec())
}

/// Bits of a sort key holding the candidate's index.
const INDEX_MASK: u64 = (1 << 32) - 1;

/// The sort key of a match: `score` inverted (higher sorts first) in the top
/// 20 bits, the length (capped) in the next 12, the index in the low 32. A
/// higher score never gives a larger key: a bound's key is never larger than
/// the key of the score it bounds.
fn sort_key(score: i64, len: usize, index: usize) -> u64 {
    let score = score.clamp(-(1 << 19), (1 << 19) - 1);
    let inverted = ((1i64 << 19) - 1 - score) as u64;
    (inverted << 44) | ((len.min(4095) as u64) << 32) | (index as u64 & INDEX_MASK)
}

/// The candidate a sort key is for.
fn index_of(key: u64) -> usize {
    (key & INDEX_MASK) as usize
}

#[cfg(test)]
mod tests {
    use super::super::Packed;
    use super::*;

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
        // The best two and every match.
        let found = top("cli", &packed, 0..5, 2);
        assert_eq!(found.best, ranked[..2]);
        assert_eq!(found.matches, vec![0, 1, 2, 3]);
        let empty = top("", &packed, 0..5, 2);
        assert_eq!(
            (empty.best, empty.matches),
            (vec![0, 1], vec![0, 1, 2, 3, 4])
        );
    }

    /// Random candidates made of path-like pieces and random queries: the
    /// pruned search ([`top`], over packed candidates with their hints) finds
    /// exactly the first ones of the exhaustive order, and every match.
    #[test]
    fn the_pruned_top_is_the_exhaustive_top() {
        let mut rng = focus_testkit::rng::Rng::new(2026);
        let mut next = |n: usize| rng.below(n);
        let pieces = [
            "core", "Core", "src", "main", "rs", "model", "mod", "a", "b", "ab", "/", "_", "-",
            ".", "x", "é", "É", "ü", "mainRs", "cor", "e",
        ];
        let letters: Vec<char> = "coremainsrd/._-abxéü".chars().collect();
        for round in 0..300 {
            // Many near-ties (few pieces) in some rounds, varied names in others.
            let size = 1 + next(if round % 3 == 0 { 400 } else { 60 });
            let names: Vec<String> = (0..size)
                .map(|_| (0..next(9)).map(|_| pieces[next(pieces.len())]).collect())
                .collect();
            let packed = Packed::new(names.iter().map(String::as_str));
            for _ in 0..5 {
                let query: String = (0..1 + next(5))
                    .map(|_| letters[next(letters.len())])
                    .collect();
                let count = next(14);
                let ranked = rank(&query, &packed);
                let found = top(&query, &packed, 0..size, count);
                let want = &ranked[..count.min(ranked.len())];
                assert_eq!(found.best, want, "{query:?} over {names:?}");
                let mut matches = ranked.clone();
                matches.sort_unstable();
                assert_eq!(found.matches, matches, "{query:?}");
                // Narrowing (the given order is not the list's order): the same.
                let among: Vec<usize> = ranked.iter().rev().copied().collect();
                let longer = format!("{query}{}", letters[next(letters.len())]);
                let narrowed = top(&longer, &packed, among.iter().copied(), count);
                let exhaustive = rank_among(&longer, &packed, among.into_iter());
                assert_eq!(narrowed.best, exhaustive[..count.min(exhaustive.len())]);
            }
        }
    }
}
