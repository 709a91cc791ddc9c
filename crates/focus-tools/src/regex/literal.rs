//! The literal fast path: find a string most patterns must contain, and scan
//! for it with a fast byte search before running the VM at all.
//!
//! `fn\s+parse_\w+` can only match a line containing `parse_`; a plain
//! substring scan skips the 99% of lines that do not, and the Pike VM runs only
//! on the few that do. For a pattern that *is* a literal, the scan is the whole
//! search. [`required_literal`] extracts the longest such string from the
//! syntax tree; [`LiteralSearcher`] finds it, keyed on its rarest byte (a `q` is
//! a better place to look than an `e`) scanned in 32-byte blocks that the
//! compiler turns into SIMD compares.

use super::parse::Node;

/// A fixed string to find in bytes, optionally ASCII case-insensitively.
#[derive(Clone, Debug)]
pub struct LiteralSearcher {
    needle: Vec<u8>,
    case_insensitive: bool,
    rare_index: usize,
    rare_lower: u8,
    rare_upper: u8,
}

impl LiteralSearcher {
    /// A searcher for `needle` (non-empty). With `case_insensitive`, ASCII
    /// letters match either case; other bytes match exactly.
    pub fn new(needle: &[u8], case_insensitive: bool) -> LiteralSearcher {
        let needle: Vec<u8> = if case_insensitive {
            needle.to_ascii_lowercase()
        } else {
            needle.to_vec()
        };
        let rare_index = (0..needle.len())
            .min_by_key(|&i| byte_rank(needle[i]))
            .unwrap_or(0);
        let rare = needle.get(rare_index).copied().unwrap_or(0);
        let (rare_lower, rare_upper) = if case_insensitive {
            (rare.to_ascii_lowercase(), rare.to_ascii_uppercase())
        } else {
            (rare, rare)
        };
        LiteralSearcher {
            needle,
            case_insensitive,
            rare_index,
            rare_lower,
            rare_upper,
        }
    }

    /// The string searched for (lower-cased when case-insensitive).
    pub fn needle(&self) -> &[u8] {
        &self.needle
    }

    /// The first occurrence at or after `from`, as a byte offset.
    pub fn find(&self, haystack: &[u8], from: usize) -> Option<usize> {
        let n = self.needle.len();
        if n == 0 {
            return (from <= haystack.len()).then_some(from);
        }
        let mut scan = from + self.rare_index;
        while scan < haystack.len() {
            let found = if self.rare_lower == self.rare_upper {
                find_byte(&haystack[scan..], self.rare_lower)
            } else {
                find_either_byte(&haystack[scan..], self.rare_lower, self.rare_upper)
            };
            let hit = scan + found?;
            let start = hit - self.rare_index;
            if let Some(candidate) = haystack.get(start..start + n) {
                let equal = if self.case_insensitive {
                    candidate.eq_ignore_ascii_case(&self.needle)
                } else {
                    candidate == self.needle.as_slice()
                };
                if equal {
                    return Some(start);
                }
            } else {
                return None;
            }
            scan = hit + 1;
        }
        None
    }
}

/// How common a byte is in source code and prose (higher: more common). Only
/// the order matters: the searcher keys on the needle's least common byte.
fn byte_rank(b: u8) -> u8 {
    match b {
        b' ' | b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' => 250,
        b'l' | b'c' | b'd' | b'u' | b'h' | b'm' | b'p' | b'\n' | b'\t' => 230,
        b'_' | b'f' | b'g' | b'y' | b'b' | b'w' | b'.' | b',' | b'(' | b')' | b';' | b':' => 200,
        b'a'..=b'z' => 170,
        b'0'..=b'9' | b'=' | b'"' | b'\'' | b'-' | b'/' | b'{' | b'}' | b'<' | b'>' => 150,
        b'A'..=b'Z' => 120,
        0x80..=0xFF => 40,
        _ => 90,
    }
}

/// The first index of `needle` in `haystack`.
pub fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    let mut chunks = haystack.chunks_exact(32);
    let mut base = 0;
    for chunk in &mut chunks {
        // No early exit inside the block, so the loop vectorises.
        let mut any = 0u8;
        for &b in chunk {
            any |= u8::from(b == needle);
        }
        if any != 0 {
            return chunk.iter().position(|&b| b == needle).map(|i| base + i);
        }
        base += 32;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == needle)
        .map(|i| base + i)
}

/// The first index of either byte in `haystack`.
pub fn find_either_byte(haystack: &[u8], a: u8, b: u8) -> Option<usize> {
    let mut chunks = haystack.chunks_exact(32);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut any = 0u8;
        for &x in chunk {
            any |= u8::from(x == a) | u8::from(x == b);
        }
        if any != 0 {
            return chunk
                .iter()
                .position(|&x| x == a || x == b)
                .map(|i| base + i);
        }
        base += 32;
    }
    chunks
        .remainder()
        .iter()
        .position(|&x| x == a || x == b)
        .map(|i| base + i)
}

/// The last index of `needle` in `haystack`.
pub fn rfind_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    haystack.iter().rposition(|&b| b == needle)
}

/// The string the whole node matches, if it matches exactly one string.
pub fn exact_string(node: &Node) -> Option<String> {
    match node {
        Node::Empty | Node::Look(_) => Some(String::new()),
        Node::Literal(c) => Some(c.to_string()),
        Node::Concat(items) => items.iter().map(exact_string).collect(),
        Node::Repeat {
            node,
            min,
            max: Some(max),
            ..
        } if min == max && *min <= 16 => exact_string(node).map(|s| s.repeat(*min as usize)),
        _ => None,
    }
}

/// The longest string every match of `node` must contain (assertions count as
/// empty, so `\bfoo\b` still requires `foo`). Case-insensitive regions are
/// opaque here: the caller handles a pattern that is insensitive as a whole.
pub fn required_literal(node: &Node) -> Option<String> {
    let mut candidates = Vec::new();
    collect_required(node, &mut candidates);
    candidates
        .into_iter()
        .filter(|s| !s.is_empty())
        .max_by_key(String::len)
}

fn collect_required(node: &Node, out: &mut Vec<String>) {
    match node {
        Node::Literal(c) => out.push(c.to_string()),
        Node::Concat(items) => {
            let mut run = String::new();
            for item in items {
                match exact_string(item) {
                    Some(s) => run.push_str(&s),
                    None => {
                        out.push(std::mem::take(&mut run));
                        collect_required(item, out);
                    }
                }
            }
            out.push(run);
        }
        Node::Repeat { node, min, .. } if *min >= 1 => collect_required(node, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regex::parse::parse;

    #[test]
    fn byte_search_finds_every_position() {
        let mut hay = vec![b'x'; 100];
        for i in [0usize, 31, 32, 63, 70, 99] {
            hay[i] = b'q';
            assert_eq!(find_byte(&hay, b'q'), Some(i));
            assert_eq!(find_either_byte(&hay, b'z', b'q'), Some(i));
            hay[i] = b'x';
        }
        assert_eq!(find_byte(&hay, b'q'), None);
        assert_eq!(rfind_byte(b"a\nb\nc", b'\n'), Some(3));
    }

    #[test]
    fn searcher_verifies_candidates_and_folds_ascii_case() {
        let s = LiteralSearcher::new(b"quux", false);
        assert_eq!(s.find(b"qu quu quux", 0), Some(7));
        assert_eq!(s.find(b"qu quu quux", 8), None);
        let s = LiteralSearcher::new(b"Hello", true);
        assert_eq!(s.find(b"say hELLO", 0), Some(4));
        let s = LiteralSearcher::new("é".as_bytes(), false);
        assert_eq!(s.find("caf\u{e9}".as_bytes(), 0), Some(3));
    }

    #[test]
    fn required_literals_come_from_mandatory_parts() {
        let req = |p: &str| required_literal(&parse(p, false).unwrap());
        assert_eq!(req(r"fn\s+parse_\w+"), Some("parse_".to_string()));
        assert_eq!(req(r"\bimpl\b"), Some("impl".to_string()));
        assert_eq!(req(r"a|b"), None);
        assert_eq!(req(r"(foo)+bar?"), Some("foo".to_string()));
        assert_eq!(req(r"x*"), None);
        assert_eq!(
            exact_string(&parse("ab{2}c", false).unwrap()),
            Some("abbc".to_string())
        );
    }
}
