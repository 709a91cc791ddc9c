//! What edit does when `oldText` is not in the file exactly.
//!
//! Two jobs. [`find_whitespace_tolerant`] is the fallback matcher: it compares
//! whole lines after [`normalize_line`] (whitespace runs collapsed, ends
//! trimmed, typographic quotes, dashes and odd spaces folded to ASCII), which
//! forgives the mistakes models make most: wrong indentation, tabs for spaces,
//! trailing spaces, "smart" quotes. It is used only when it finds exactly one
//! place. [`closest_region`] serves the error message when nothing matches: it
//! finds the lines most like `oldText` so the model can correct itself in one
//! step instead of re-reading the file.

use std::collections::HashMap;
use std::ops::Range;

/// Outcome of the whitespace-tolerant search.
#[derive(Debug, PartialEq, Eq)]
pub enum FuzzyMatch {
    /// Exactly one place: the byte range to replace.
    Unique(Range<usize>),
    /// Several places, by first line number (1-based).
    Ambiguous(Vec<usize>),
    /// Nowhere.
    NotFound,
}

/// Lines most similar to a failed `oldText`.
#[derive(Debug, PartialEq)]
pub struct Closest {
    /// First line of the region, 1-based.
    pub first_line: usize,
    /// Last line of the region, 1-based, inclusive.
    pub last_line: usize,
    /// Similarity from 0 to 1.
    pub similarity: f64,
}

/// A line reduced to what the tolerant matcher compares.
pub fn normalize_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut pending_space = false;
    for c in line.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            c => c,
        };
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Lines of `text` with the byte offset where each starts (no `\n` included).
fn lines_with_offsets(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        out.push((start, line));
        start += line.len() + 1;
    }
    if text.ends_with('\n') {
        out.pop();
    }
    out
}

/// Finds `old` in `haystack` comparing whole normalised lines. The range covers
/// the matched lines; it starts after the first line's indentation when `old`
/// itself starts without indentation, and includes the final newline only when
/// `old` ends with one.
pub fn find_whitespace_tolerant(haystack: &str, old: &str) -> FuzzyMatch {
    let old_lines: Vec<String> = crate::output::lines_of(old)
        .into_iter()
        .map(normalize_line)
        .collect();
    if old_lines.iter().all(|l| l.is_empty()) {
        return FuzzyMatch::NotFound;
    }
    let file = lines_with_offsets(haystack);
    let normalized: Vec<String> = file.iter().map(|(_, l)| normalize_line(l)).collect();
    let k = old_lines.len();
    let mut starts = Vec::new();
    if normalized.len() >= k {
        for s in 0..=normalized.len() - k {
            if normalized[s..s + k] == old_lines[..] {
                starts.push(s);
            }
        }
    }
    match starts.as_slice() {
        [] => FuzzyMatch::NotFound,
        [s] => {
            let (first_offset, first_line) = file[*s];
            let indent = first_line.len() - first_line.trim_start().len();
            let starts_indented = old.starts_with(|c: char| c.is_whitespace());
            let start = if starts_indented {
                first_offset
            } else {
                first_offset + indent
            };
            let (last_offset, last_line) = file[s + k - 1];
            let mut end = last_offset + last_line.len();
            if old.ends_with('\n') && end < haystack.len() {
                end += 1;
            }
            FuzzyMatch::Unique(start..end)
        }
        many => FuzzyMatch::Ambiguous(many.iter().map(|s| s + 1).collect()),
    }
}

/// The region of `haystack` most like `old`, or `None` for an empty file.
///
/// Candidates come from two places: starts voted for by lines of `old` that
/// occur (normalised) in the file, and the file lines most like `old`'s longest
/// line by character-bigram similarity. Each candidate window of `old`'s line
/// count is scored by average line similarity; the best wins.
pub fn closest_region(haystack: &str, old: &str) -> Option<Closest> {
    let file: Vec<String> = crate::output::lines_of(haystack)
        .into_iter()
        .map(normalize_line)
        .collect();
    let old_lines: Vec<String> = crate::output::lines_of(old)
        .into_iter()
        .map(normalize_line)
        .collect();
    if file.is_empty() || old_lines.is_empty() {
        return None;
    }
    let k = old_lines.len().min(file.len());
    let mut by_text: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, line) in file.iter().enumerate() {
        if !line.is_empty() {
            by_text.entry(line.as_str()).or_default().push(i);
        }
    }
    let mut votes: HashMap<usize, usize> = HashMap::new();
    for (j, line) in old_lines.iter().enumerate() {
        for &i in by_text.get(line.as_str()).into_iter().flatten().take(50) {
            if i >= j {
                *votes.entry(i - j).or_default() += 1;
            }
        }
    }
    let mut candidates: Vec<(usize, usize)> = votes.into_iter().map(|(s, n)| (n, s)).collect();
    candidates.sort_unstable_by(|x, y| y.cmp(x));
    candidates.truncate(8);
    let mut starts: Vec<usize> = candidates.into_iter().map(|(_, s)| s).collect();

    // Anchor on the longest line of `old`: it carries the most signal.
    let (anchor_idx, anchor) = old_lines
        .iter()
        .enumerate()
        .max_by_key(|(_, l)| l.len())
        .map(|(i, l)| (i, Bigrams::of(l)))?;
    // Dice similarity is at most 2·min/(a+b) in bigram counts, so lines of a
    // very different length are skipped without building their bigrams.
    let anchor_len = anchor.total as f64;
    let mut by_anchor: Vec<(f64, usize)> = file
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let len = l.chars().count().saturating_sub(1) as f64;
            2.0 * len.min(anchor_len) / (len + anchor_len).max(1.0) >= 0.3
        })
        .map(|(i, l)| (anchor.similarity(&Bigrams::of(l)), i))
        .collect();
    by_anchor.sort_unstable_by(|x, y| y.0.total_cmp(&x.0));
    starts.extend(
        by_anchor
            .iter()
            .take(8)
            .map(|&(_, i)| i.saturating_sub(anchor_idx)),
    );

    let old_bigrams: Vec<Bigrams> = old_lines.iter().map(|l| Bigrams::of(l)).collect();
    let mut best: Option<Closest> = None;
    for start in starts {
        let start = start.min(file.len() - k);
        let total: f64 = (0..k)
            .map(|j| old_bigrams[j].similarity(&Bigrams::of(&file[start + j])))
            .sum();
        let similarity = total / k as f64;
        if best.as_ref().map_or(true, |b| similarity > b.similarity) {
            best = Some(Closest {
                first_line: start + 1,
                last_line: start + k,
                similarity,
            });
        }
    }
    best
}

/// Character-bigram counts of a line, for Dice similarity.
struct Bigrams {
    counts: HashMap<(char, char), u32>,
    total: u32,
    text_equal_key: String,
}

impl Bigrams {
    fn of(line: &str) -> Bigrams {
        let chars: Vec<char> = line.chars().collect();
        let mut counts = HashMap::new();
        for pair in chars.windows(2) {
            *counts.entry((pair[0], pair[1])).or_insert(0) += 1;
        }
        Bigrams {
            total: chars.len().saturating_sub(1) as u32,
            counts,
            text_equal_key: line.to_string(),
        }
    }

    /// Dice coefficient: 2·|shared bigrams| / (|a| + |b|); equal lines score 1.
    fn similarity(&self, other: &Bigrams) -> f64 {
        if self.text_equal_key == other.text_equal_key {
            return 1.0;
        }
        if self.total == 0 || other.total == 0 {
            return 0.0;
        }
        let shared: u32 = self
            .counts
            .iter()
            .map(|(pair, n)| (*n).min(*other.counts.get(pair).unwrap_or(&0)))
            .sum();
        2.0 * f64::from(shared) / f64::from(self.total + other.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_forgives_whitespace_and_typography() {
        assert_eq!(normalize_line("\t  let  x =\u{a0}“a”;  "), "let x = \"a\";");
        assert_eq!(normalize_line("a \u{2014} b"), "a - b");
    }

    #[test]
    fn tolerant_match_is_unique_or_reports_every_place() {
        let file = "fn a() {\n    call(1);\n}\nfn b() {\n    call(2);\n}\n";
        let FuzzyMatch::Unique(range) = find_whitespace_tolerant(file, "call(1);\n}\n") else {
            panic!("expected a unique match");
        };
        assert_eq!(&file[range], "call(1);\n}\n");
        assert_eq!(
            find_whitespace_tolerant(file, "}"),
            FuzzyMatch::Ambiguous(vec![3, 6])
        );
        assert_eq!(
            find_whitespace_tolerant(file, "nothing"),
            FuzzyMatch::NotFound
        );
        assert_eq!(find_whitespace_tolerant(file, "\n\n"), FuzzyMatch::NotFound);
    }

    #[test]
    fn closest_region_finds_the_nearly_matching_lines() {
        let mut file = String::new();
        for i in 0..100 {
            file.push_str(&format!("let value_{i} = compute({i});\n"));
        }
        let closest = closest_region(
            &file,
            "let value_42 = compute(43);\nlet value_43 = compute(43);",
        )
        .unwrap();
        assert_eq!((closest.first_line, closest.last_line), (43, 44));
        assert!(closest.similarity > 0.8 && closest.similarity < 1.0);
        assert!(closest_region("", "x").is_none());
    }
}
