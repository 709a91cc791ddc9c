//! A std-only regular-expression engine for grep, find and the ignore rules.
//!
//! The classic design (Thompson 1968, Pike's VM, the structure of RE2 and of
//! Rust's `regex` crate without the DFAs): [`parse`] turns the pattern into a
//! tree, [`compile`] into an NFA program, [`pike`] runs every NFA thread in
//! lock-step over the text. Time is linear in the text for any pattern, so a
//! pathological pattern such as `(a*)*b` cannot hang the agent.
//!
//! Speed comes from [`literal`]: most patterns contain a string every match
//! must include, and scanning for that string with a fast byte search rejects
//! most lines without running the VM; a pattern that is only a literal never
//! runs the VM at all.
//!
//! Matching works on `&[u8]`, decoded as UTF-8 (invalid bytes read as U+FFFD),
//! so `.`, classes and case-insensitivity operate on Unicode characters.

pub mod compile;
pub mod literal;
pub mod parse;
pub mod pike;

use focus_core::sync::lock;
use literal::LiteralSearcher;
pub use parse::Error;
use std::sync::Mutex;

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Regex {
    program: compile::Program,
    prefilter: Option<LiteralSearcher>,
    /// The pattern is exactly `prefilter`'s string: no VM needed.
    pure_literal: bool,
    /// The VM's buffers, kept between searches.
    scratch: Scratch,
}

/// Spare [`pike::Cache`]s of one [`Regex`]: a search takes one (or makes one)
/// and gives it back, so threads searching with the same pattern each get
/// their own and a search allocates nothing once warm.
#[derive(Default)]
struct Scratch(Mutex<Vec<pike::Cache>>);

/// At most this many spare caches are kept (one per searching thread).
const MAX_SPARE_CACHES: usize = 16;

impl Scratch {
    /// Runs `search` with a spare cache.
    fn with<R>(&self, search: impl FnOnce(&mut pike::Cache) -> R) -> R {
        let mut cache = lock(&self.0).pop().unwrap_or_default();
        let result = search(&mut cache);
        let mut spare = lock(&self.0);
        if spare.len() < MAX_SPARE_CACHES {
            spare.push(cache);
        }
        result
    }
}

impl Clone for Scratch {
    /// A clone starts with no spare caches of its own.
    fn clone(&self) -> Scratch {
        Scratch::default()
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

impl Regex {
    /// Compiles a case-sensitive pattern.
    ///
    /// # Errors
    ///
    /// As [`Regex::with_options`].
    pub fn new(pattern: &str) -> Result<Regex, Error> {
        Regex::with_options(pattern, false)
    }

    /// Compiles a pattern, optionally case-insensitive throughout.
    ///
    /// # Errors
    ///
    /// An [`Error`] with the position: a syntax error, or a pattern whose program would be too
    /// large.
    pub fn with_options(pattern: &str, case_insensitive: bool) -> Result<Regex, Error> {
        let tree = parse::parse(pattern, case_insensitive)?;
        let program = compile::compile(&tree).map_err(|message| Error {
            message,
            position: 0,
        })?;
        let (body, insensitive) = match &tree {
            parse::Node::CaseInsensitive(inner) => (inner.as_ref(), true),
            other => (other, false),
        };
        // Case-insensitive prefilters only fold ASCII, so only ASCII strings
        // qualify; a literal spanning lines can never match within one line.
        let usable =
            |s: &String| !s.is_empty() && !s.contains('\n') && (!insensitive || s.is_ascii());
        let (prefilter, pure_literal) = match literal::exact_string(body).filter(usable) {
            Some(exact) if !contains_look(body) => (
                Some(LiteralSearcher::new(exact.as_bytes(), insensitive)),
                true,
            ),
            _ => match literal::required_literal(body).filter(usable) {
                Some(required) => (
                    Some(LiteralSearcher::new(required.as_bytes(), insensitive)),
                    false,
                ),
                None => (None, false),
            },
        };
        Ok(Regex {
            program,
            prefilter,
            pure_literal,
            scratch: Scratch::default(),
        })
    }

    /// A pattern matching `text` literally (no metacharacters).
    pub fn literal(text: &str, case_insensitive: bool) -> Regex {
        let nodes = text.chars().map(parse::Node::Literal).collect();
        let mut tree = parse::Node::Concat(nodes);
        if case_insensitive {
            tree = parse::Node::CaseInsensitive(Box::new(tree));
        }
        let usable =
            !text.is_empty() && !text.contains('\n') && (!case_insensitive || text.is_ascii());
        let program = compile::compile(&tree).unwrap_or(compile::Program {
            insts: vec![compile::Inst::Match],
            classes: Vec::new(),
            anchored_start: false,
            first_bytes: None,
        });
        Regex {
            program,
            prefilter: usable.then(|| LiteralSearcher::new(text.as_bytes(), case_insensitive)),
            pure_literal: usable,
            scratch: Scratch::default(),
        }
    }

    /// Whether the pattern matches anywhere in `text`.
    pub fn is_match(&self, text: &[u8]) -> bool {
        if let Some(prefilter) = &self.prefilter {
            if prefilter.find(text, 0).is_none() {
                return false;
            }
            if self.pure_literal {
                return true;
            }
        }
        self.scratch
            .with(|cache| pike::search(&self.program, text, true, cache))
            .is_some()
    }

    /// The leftmost-first match in `text`, as a byte range.
    pub fn find(&self, text: &[u8]) -> Option<(usize, usize)> {
        if let Some(prefilter) = &self.prefilter {
            let start = prefilter.find(text, 0)?;
            if self.pure_literal {
                return Some((start, start + prefilter.needle().len()));
            }
        }
        self.scratch
            .with(|cache| pike::search(&self.program, text, false, cache))
    }

    /// The string every match contains, if one was found (used by grep to scan
    /// whole files before looking at lines).
    pub fn prefilter(&self) -> Option<&LiteralSearcher> {
        self.prefilter.as_ref()
    }

    /// Whether the pattern is a plain string, so a prefilter hit is a match.
    pub fn is_pure_literal(&self) -> bool {
        self.pure_literal
    }
}

fn contains_look(node: &parse::Node) -> bool {
    match node {
        parse::Node::Look(_) => true,
        parse::Node::Concat(items) => items.iter().any(contains_look),
        parse::Node::Repeat { node, .. } => contains_look(node),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        Regex::new(pattern).unwrap().is_match(text.as_bytes())
    }

    fn find(pattern: &str, text: &str) -> Option<(usize, usize)> {
        Regex::new(pattern).unwrap().find(text.as_bytes())
    }

    #[test]
    fn classes_and_perl_shorthands() {
        assert!(matches(r"\d\d", "a12"));
        assert!(!matches(r"\d\d", "a1b"));
        assert!(matches(r"^\w+$", "snake_case9"));
        assert!(!matches(r"^\w+$", "kebab-case"));
        assert!(matches(r"a\sb", "a\tb"));
        assert!(matches(r"^\S+$", "x"));
        assert!(matches(r"[a-c]x", "bx"));
        assert!(!matches(r"[^a-c]x", "bx"));
        assert!(matches(r"[^a-c]x", "dx"));
        assert!(matches(r"[\d_]", "_"));
        assert!(matches(r"[a-]", "-"));
        assert!(matches(r"[]a]", "]"));
        assert!(matches(r"[[:upper:]][[:digit:]]", "A1"));
        assert!(matches(r"\D\W", "a!"));
        assert!(matches(r"a.c", "abc"));
        assert!(!matches(r"a.c", "a\nc"));
        assert!(matches(r"(?s)a.c", "a\nc"));
    }

    #[test]
    fn anchors_and_word_boundaries() {
        assert!(matches(r"^fn", "fn main"));
        assert!(!matches(r"^fn", " fn main"));
        assert!(matches(r"main$", "fn main"));
        assert!(!matches(r"main$", "fn main()"));
        assert!(matches(r"\bcat\b", "a cat sat"));
        assert!(!matches(r"\bcat\b", "concatenate"));
        assert!(matches(r"\Bcat\B", "concatenate"));
        assert!(matches(r"^$", ""));
        assert!(matches(r"\Afoo\z", "foo"));
    }

    #[test]
    fn alternation_groups_and_leftmost_first() {
        assert!(matches(r"cat|dog", "hotdog"));
        assert!(matches(r"^(ab|cd)+$", "abcdab"));
        assert!(!matches(r"^(ab|cd)+$", "abc"));
        assert_eq!(find(r"a|ab", "ab"), Some((0, 1)));
        assert_eq!(find(r"ab|a", "ab"), Some((0, 2)));
        assert_eq!(find(r"(?:x)(?P<n>y)(?<m>z)", "wxyz"), Some((1, 4)));
    }

    #[test]
    fn repetition_greedy_and_lazy() {
        assert_eq!(find(r"a+", "baaac"), Some((1, 4)));
        assert_eq!(find(r"a+?", "baaac"), Some((1, 2)));
        assert_eq!(find(r"a{2,3}", "aaaa"), Some((0, 3)));
        assert_eq!(find(r"a{2}", "a aa"), Some((2, 4)));
        assert_eq!(find(r"a{2,}", "aaaaa"), Some((0, 5)));
        assert!(!matches(r"^a{2,3}$", "aaaa"));
        assert!(matches(r"^colou?r$", "color"));
        assert!(matches(r"x*", ""));
        assert!(
            matches(r"a{,2}", "a{,2}"),
            "a brace that is no count is literal"
        );
        assert_eq!(find(r"<.*>", "<a><b>"), Some((0, 6)));
        assert_eq!(find(r"<.*?>", "<a><b>"), Some((0, 3)));
    }

    #[test]
    fn unicode_and_case_insensitivity() {
        assert!(matches(r"^.$", "é"));
        assert!(matches(r"^\w+$", "naïve"));
        assert!(matches(r"^[α-ω]+$", "λόγος".replace('ό', "ο").as_str()));
        assert!(matches(r"日本", "こんにちは日本語"));
        assert_eq!(find(r"本", "日本"), Some((3, 6)));
        let icase = Regex::with_options("ÉCOLE", true).unwrap();
        assert!(icase.is_match("une école".as_bytes()));
        let icase = Regex::with_options(r"hello\s+WORLD", true).unwrap();
        assert!(icase.is_match(b"say HeLLo   world"));
        assert!(Regex::with_options("[a-c]", true).unwrap().is_match(b"B"));
        assert!(!Regex::with_options("[^a-c]", true).unwrap().is_match(b"B"));
        assert!(matches(r"(?i)abc", "xABCx"));
        assert!(matches(r"a(?i:b)c", "aBc"));
        assert!(!matches(r"a(?i:b)c", "aBC"));
        let mixed = Regex::with_options("a(?-i)b", true).unwrap();
        assert!(mixed.is_match(b"Ab") && !mixed.is_match(b"AB"));
        assert!(matches(r"(?i)x(?-i:Y)z", "XYZ") && !matches(r"(?i)x(?-i:Y)z", "Xyz"));
        assert!(matches(r"\x41\u{e9}", "Aé"));
        // Invalid UTF-8 never panics and reads as U+FFFD.
        assert!(Regex::new("a.b").unwrap().is_match(b"a\xffb"));
    }

    #[test]
    fn pathological_patterns_finish() {
        let text = "a".repeat(30);
        assert!(!matches(r"(a*)*b", &text));
        assert!(!matches(r"(a|aa)+$b", &text));
        assert!(!matches(r"^(a+)+$x", &text));
        assert!(matches(r"(x+x+)+y|a", &text));
        let long = "a".repeat(20_000);
        assert!(!matches(r"(a?){50}a{50}b", &long));
    }

    #[test]
    fn literal_fast_path_agrees_with_the_vm() {
        let r = Regex::new("needle").unwrap();
        assert!(r.is_pure_literal());
        assert!(r.is_match(b"haystack with a needle in it"));
        assert!(!Regex::new(r"\bneedle\b").unwrap().is_pure_literal());
        assert!(!Regex::new(r"\bneedle\b").unwrap().is_match(b"needles"));
        let r = Regex::new(r"fn\s+parse_\w+").unwrap();
        assert!(!r.is_pure_literal() && r.prefilter().is_some());
        assert!(r.is_match(b"pub fn  parse_args() {"));
        assert!(!r.is_match(b"parse_args() without the keyword"));
        let lit = Regex::literal("a.b(", false);
        assert!(lit.is_match(b"x a.b( y") && !lit.is_match(b"axb("));
        assert!(Regex::literal("MiXeD", true).is_match(b"mixed"));
        assert!(Regex::literal("", false).is_match(b"anything"));
    }

    #[test]
    fn errors_name_the_problem_and_position() {
        let err = |p: &str| Regex::new(p).unwrap_err();
        assert_eq!(err("(ab").message, "unclosed '('");
        assert_eq!(err("ab)").position, 2);
        assert!(err("[a-").message.contains("unclosed '['"));
        assert!(err("*a").message.contains("nothing to repeat"));
        assert!(err("a{3,2}").message.contains("n < m"));
        assert!(err("a{5000}").message.contains("at most"));
        assert!(err(r"\q").message.contains("unknown escape"));
        assert!(err("[z-a]").message.contains("invalid range"));
        assert!(err("(?=x)").message.contains("look-ahead"));
        assert!(err("x{1000}{1000}").message.contains("too large"));
        assert!(err(r"a\").message.contains("lone"));
        assert_eq!(err("(ab").to_string(), "unclosed '(' at position 0");
    }
}
