//! A small fuzzy matcher for the pickers: the query's characters must appear in
//! the candidate in order (a subsequence, ignoring case); among the ways they
//! can, the best-scoring one counts. A match scores more at a word start (the
//! first character, after `/ _ - . :` or a space, a capital after a small
//! letter) and right after the previous match (a contiguous run), and a little
//! less for every character skipped between two matches. [`rank`] orders a list
//! by that score, then shorter candidates first, then the list's own order;
//! [`top`] finds only the first few of that order, and every match.
//!
//! One file a job: `score.rs` scores one candidate (the best alignment),
//! `packed.rs` keeps a list in one buffer with what each candidate holds
//! (for a cheap upper bound on its score), `rank.rs` orders a list (on every core:
//! `cores.rs`) and finds its best few without scoring most of it. Speed (100,000
//! paths) is `bench_picker`'s business (docs/benchmarks.md).

mod cores;
mod packed;
mod rank;
mod score;

pub use packed::{Candidates, Hints, Packed};
pub use rank::{rank, rank_among, top, Top};

/// The score of `query` against `candidate`, `None` when the query's characters
/// do not all appear in order. An empty query matches everything with 0.
pub fn score(query: &str, candidate: &str) -> Option<i64> {
    score::Matcher::new(query).score(candidate)
}
